//! The `canary` binary: parses arguments and hands over to the library.
fn main() {
    std::process::exit(canary::cli::main());
}
