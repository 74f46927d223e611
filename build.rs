//! Embeds the shipped pre-check models (`models/NAME/{config.json,
//! model.safetensors,manifest.json}`) into the binary, so `builtin:NAME`
//! works from any directory and offline. A model folder that is missing a
//! file is not embedded, and `builtin:NAME` then fails closed at load time.
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=models");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut entries = Vec::new();
    if let Ok(dir) = std::fs::read_dir(&root) {
        for e in dir.flatten() {
            let p = e.path();
            let files = ["config.json", "model.safetensors", "manifest.json"];
            if p.is_dir() && files.iter().all(|f| p.join(f).is_file()) {
                for f in files {
                    println!("cargo:rerun-if-changed={}", p.join(f).display());
                }
                entries.push((e.file_name().to_string_lossy().into_owned(), p));
            }
        }
    }
    entries.sort();
    let mut code =
        String::from("pub static EMBEDDED_MODELS: &[(&str, &[u8], &[u8], &[u8])] = &[\n");
    for (name, p) in &entries {
        let inc = |f: &str| format!("include_bytes!({:?})", p.join(f).display().to_string());
        let _ = writeln!(
            code,
            "    ({name:?}, {}, {}, {}),",
            inc("config.json"),
            inc("model.safetensors"),
            inc("manifest.json")
        );
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("embedded_models.rs");
    std::fs::write(out, code).unwrap();
}
