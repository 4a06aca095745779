//! The HTML report in a real browser: runs the Node end-to-end test
//! (`tests/browser/report.test.js` at the repository root: headless
//! Chromium driven by playwright-core) against this build of `bryo`.
//!
//! It needs Debian's `chromium` (`/usr/bin/chromium`, or `$BRYO_CHROMIUM`),
//! `node`, and `npm ci` run in `tests/browser`. The test is ignored by
//! default, so `cargo test` lists it as ignored rather than passing it
//! without a browser; `cargo test -p bryo-cli --test browser --
//! --include-ignored` runs it (`.ci/run` does, after installing them) and
//! then a missing prerequisite is a failure. Screenshots are written to
//! `target/browser-artifacts/`. The Python standard library's report is
//! built with `python3`'s library (a missing one is a failure under
//! `BRYO_REQUIRE_BROWSER=1`), checked to stay under 50 MB, and its load
//! time printed, never asserted (`cargo test -p bryo-cli --test browser --
//! --nocapture` shows it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn missing_prerequisite(browser_dir: &Path, chromium: &Path) -> Option<String> {
    if !chromium.is_file() {
        return Some(format!(
            "{} not found (apt-get install chromium)",
            chromium.display()
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node not found".into());
    }
    if !browser_dir.join("node_modules/playwright-core").is_dir() {
        return Some(format!(
            "playwright-core not installed (run npm ci in {})",
            browser_dir.display()
        ));
    }
    None
}

#[test]
#[ignore = "needs chromium, node and npm ci in tests/browser; run with --include-ignored"]
fn html_report_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let browser_dir = root.join("tests/browser");
    let chromium = std::env::var_os("BRYO_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if let Some(why) = missing_prerequisite(&browser_dir, &chromium) {
        panic!("the browser test cannot run: {why}");
    }
    let output = Command::new("node")
        .arg(browser_dir.join("report.test.js"))
        .env("BRYO_BIN", env!("CARGO_BIN_EXE_bryo"))
        .env("BRYO_CHROMIUM", &chromium)
        .env("BRYO_ARTIFACTS", root.join("target/browser-artifacts"))
        .output()
        .expect("cannot run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the browser test failed:\n{stdout}\n{stderr}"
    );
}
