//! End-to-end tests of the `bryo` binary.

mod support;
use support::{bryo, json};

#[test]
fn density_of_random_text_reports_every_strategy() {
    let v = json(&["density", "--random", "400000", "--seed", "3"]);
    assert_eq!(v["hashes"], 400_000 - 49);
    assert_eq!(v["k"], 50);
    assert_eq!(v["w"], 100);
    assert_eq!(v["t"], 149);
    assert_eq!(v["input"]["kind"], "random");
    for key in ["winnow", "robust_winnow", "mod_p", "safe_mod_p"] {
        let s = &v[key];
        let fps = s["fingerprints"].as_u64().unwrap();
        let density = s["density"].as_f64().unwrap();
        let expected = s["expected_density"].as_f64().unwrap();
        assert!(fps > 0, "{key}");
        assert!((density - fps as f64 / 399_951.0).abs() < 1e-12, "{key}");
        assert!(
            (density - expected).abs() / expected < 0.06,
            "{key}: {density} vs {expected}"
        );
        assert!(s["longest_gap"].as_u64().is_some(), "{key}");
    }
    // The guarantee: no run of t = 149 symbols without a winnowing fingerprint.
    assert!(v["winnow"]["longest_gap"].as_u64().unwrap() <= 148);
    assert!(v["robust_winnow"]["longest_gap"].as_u64().unwrap() <= 148);
    assert_eq!(v["mod_p"]["p"], 50);
}

#[test]
fn density_output_is_deterministic() {
    let args = [
        "density", "--random", "100000", "--seed", "9", "--format", "json",
    ];
    let a = bryo().args(args).output().unwrap().stdout;
    let b = bryo().args(args).output().unwrap().stdout;
    assert_eq!(a, b);
    let other = bryo()
        .args([
            "density", "--random", "100000", "--seed", "10", "--format", "json",
        ])
        .output()
        .unwrap()
        .stdout;
    assert_ne!(a, other, "the seed changes the text");
}

#[test]
fn density_options_change_the_experiment() {
    let v = json(&[
        "density", "--random", "50000", "-k", "5", "-t", "12", "--hash", "rabin", "-p", "7",
    ]);
    assert_eq!((v["k"].as_u64(), v["w"].as_u64()), (Some(5), Some(8)));
    assert_eq!(v["hash"], "rabin");
    assert_eq!(v["polynomial"], "0xc55be3e69b0d9d09");
    assert_eq!(v["mod_p"]["p"], 7);
    let seeded = json(&[
        "density",
        "--random",
        "50000",
        "--hash",
        "rabin",
        "--poly-seed",
        "5",
    ]);
    assert_ne!(seeded["polynomial"], "0xc55be3e69b0d9d09");
}

#[test]
fn density_text_output_is_a_table() {
    let out = bryo()
        .args(["density", "--random", "200000"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "random text: 200,000 bytes",
        "hashes computed: 199,951",
        "winnowing",
        "robust winnowing",
        "0 mod 50",
        "safe 0 mod 50",
        "longest gap",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn density_of_files_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(dir.path().join("a.txt"), "x".repeat(300)).unwrap();
    std::fs::write(sub.join("b.txt"), "the same text twice ".repeat(20)).unwrap();
    std::fs::write(sub.join("empty.txt"), "").unwrap();
    let missing = dir.path().join("missing.txt");
    let v = json(&[
        "density",
        "-k",
        "5",
        "-w",
        "4",
        dir.path().to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    assert_eq!(v["documents"], 3);
    assert_eq!(v["symbols"], 300 + 400);
    assert_eq!(v["hashes"], (300 - 4) + (400 - 4));
    let skipped = v["input"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("missing.txt"));
    // One repeated symbol: robust winnowing picks about one hash per window.
    assert!(
        v["robust_winnow"]["fingerprints"].as_u64().unwrap()
            < v["winnow"]["fingerprints"].as_u64().unwrap()
    );
}

#[test]
fn bad_options_are_clear_errors() {
    for (args, message) in [
        (
            vec!["density", "--random", "1000", "-k", "0"],
            "noise threshold k",
        ),
        (
            vec!["density", "--random", "1000", "-w", "0"],
            "window size w",
        ),
        (
            vec!["density", "--random", "1000", "-k", "20", "-t", "10"],
            "below the noise threshold",
        ),
        (
            vec!["density", "--random", "1000", "-p", "0"],
            "-p must be at least 1",
        ),
        (
            vec!["density", "--random", "1000", "--poly-seed", "3"],
            "--hash rabin",
        ),
        (
            vec!["density", "--random", "1000", "--hash", "md5"],
            "unknown hash function",
        ),
        (vec!["density"], "required"),
    ] {
        let out = bryo().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}
