//! Capability views of corpus rows, for `training/view_cnn.py` (session 35,
//! training/README.md). Not built with the project: copy it to `examples/`
//! and run `cargo run --release --example dump_views SET < IN.jsonl > OUT.jsonl`.
//! Each row comes out with `set` = SET and `view` (what the veto model
//! reads of its `text`, "" when nothing) in place of `text`. It only reads
//! the rows as text.
use std::io::{BufRead, Write};
fn main() {
    let set = std::env::args().nth(1).expect("SET");
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        if line.trim().is_empty() {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let text = v["text"].as_str().unwrap_or("").to_string();
        let view = canary::precheck::View::Capabilities
            .apply(text.as_bytes())
            .map(|c| String::from_utf8_lossy(&c).into_owned())
            .unwrap_or_default();
        let o = v.as_object_mut().unwrap();
        o.remove("text");
        o.insert("set".into(), serde_json::Value::String(set.clone()));
        o.insert("view".into(), serde_json::Value::String(view));
        writeln!(out, "{}", serde_json::to_string(&v).unwrap()).unwrap();
    }
}
