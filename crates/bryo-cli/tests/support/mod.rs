//! Helpers shared by the integration tests (each test binary uses some).
#![allow(dead_code)]

pub mod metrics;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// The `bryo` binary of this build.
pub fn bryo() -> Command {
    Command::cargo_bin("bryo").unwrap()
}

/// Runs `bryo ARGS --format json`, which must succeed, and parses its output.
pub fn json(args: &[&str]) -> Value {
    serde_json::from_slice(&json_bytes(None, args)).unwrap()
}

/// As [`json`], in the directory `dir`.
pub fn json_in(dir: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&json_bytes(Some(dir), args)).unwrap()
}

/// The bytes `bryo ARGS --format json` writes (in `dir` if given); it must
/// succeed.
pub fn json_bytes(dir: Option<&Path>, args: &[&str]) -> Vec<u8> {
    let mut cmd = bryo();
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let out = cmd.args(args).args(["--format", "json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Every file under `root`, by relative path, with its bytes.
pub fn tree_of(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}
