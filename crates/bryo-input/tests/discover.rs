//! Discovery on real temporary directories and zip archives.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use bryo_input::{discover, parse_file_list, InputError, InputOptions, Inputs, SkipReason, Source};
use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn opts(roots: &[PathBuf]) -> InputOptions {
    InputOptions {
        roots: roots.to_vec(),
        ..InputOptions::default()
    }
}

/// Submission names, with the temporary root replaced by `R`.
fn names(inputs: &Inputs, root: &Path) -> Vec<String> {
    let prefix = root.to_string_lossy().into_owned();
    inputs
        .submissions
        .iter()
        .map(|s| s.name.replacen(&prefix, "R", 1))
        .collect()
}

/// Display paths of each submission's files, with the root replaced by `R`.
fn files(inputs: &Inputs, root: &Path) -> Vec<Vec<String>> {
    let prefix = root.to_string_lossy().into_owned();
    inputs
        .submissions
        .iter()
        .map(|s| {
            s.files
                .iter()
                .map(|f| f.display_path.replacen(&prefix, "R", 1))
                .collect()
        })
        .collect()
}

fn skipped(inputs: &Inputs, root: &Path) -> Vec<(String, SkipReason)> {
    let prefix = root.to_string_lossy().into_owned();
    inputs
        .skipped
        .iter()
        .map(|s| (s.path.replacen(&prefix, "R", 1), s.reason.clone()))
        .collect()
}

/// A small class: two students with a directory each, one loose file.
fn class(root: &Path) {
    write(root, "bob/main.py", "print('bob')\n");
    write(root, "alice/main.py", "print('alice')\n");
    write(root, "alice/lib/util.py", "x = 1\n");
    write(root, "alice/README.txt", "notes\n");
    write(root, "loose.py", "print('loose')\n");
    write(root, "carol/notes.txt", "only prose\n");
}

#[test]
fn without_directory_mode_every_file_is_a_submission() {
    let t = tempfile::tempdir().unwrap();
    class(t.path());
    let inputs = discover(&opts(&[t.path().to_path_buf()])).unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        [
            "R/alice/README.txt",
            "R/alice/lib/util.py",
            "R/alice/main.py",
            "R/bob/main.py",
            "R/carol/notes.txt",
            "R/loose.py"
        ]
    );
    assert!(inputs
        .submissions
        .iter()
        .all(|s| s.files.len() == 1 && !s.old));
    let bob = &inputs.submissions[3].files[0];
    assert_eq!(bob.bytes, b"print('bob')\n");
    assert_eq!(bob.source, Source::File(t.path().join("bob/main.py")));
    assert!(inputs.skipped.is_empty() && inputs.base.is_empty());
}

#[test]
fn directory_mode_groups_by_directory_under_the_root() {
    let t = tempfile::tempdir().unwrap();
    class(t.path());
    let inputs = discover(&InputOptions {
        directory_mode: true,
        include: vec!["*.py".into()],
        ..opts(&[t.path().to_path_buf()])
    })
    .unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/alice", "R/bob", "R/loose.py"]);
    assert_eq!(
        files(&inputs, t.path()),
        [
            vec!["R/alice/lib/util.py", "R/alice/main.py"],
            vec!["R/bob/main.py"],
            vec!["R/loose.py"],
        ]
    );
    // carol has no .py file: her directory does not vanish silently.
    assert_eq!(
        skipped(&inputs, t.path()),
        [("R/carol".to_owned(), SkipReason::NoFiles)]
    );
}

#[test]
fn named_files_in_directory_mode_group_by_parent_like_moss() {
    let t = tempfile::tempdir().unwrap();
    class(t.path());
    let list = format!(
        "{0}/alice/main.py\r\n\n{0}/bob/main.py\n{0}/alice/lib/util.py\n",
        t.path().display()
    );
    let listed = parse_file_list(&list);
    assert_eq!(listed.len(), 3);
    let inputs = discover(&InputOptions {
        files_from: listed,
        directory_mode: true,
        ..InputOptions::default()
    })
    .unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        ["R/alice", "R/bob", "R/alice/lib"]
    );
}

#[test]
fn include_exclude_and_extensions() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "a/main.py", "1");
    write(t.path(), "a/test_main.py", "2");
    write(t.path(), "a/build/gen.py", "3");
    write(t.path(), "a/Main.JAVA", "4");
    write(t.path(), "b/x.c", "5");
    let root = t.path().to_path_buf();
    let run = |include: &[&str], exclude: &[&str], ext: &[&str]| {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
        let inputs = discover(&InputOptions {
            include: v(include),
            exclude: v(exclude),
            extensions: v(ext),
            ..opts(std::slice::from_ref(&root))
        })
        .unwrap();
        names(&inputs, &root)
    };
    assert_eq!(
        run(&["*.py"], &["test_*", "a/build/**"], &[]),
        ["R/a/main.py"]
    );
    assert_eq!(
        run(&[], &["**/build/**"], &["java", "c"]),
        ["R/a/Main.JAVA", "R/b/x.c"]
    );
    assert_eq!(run(&["*.py", "*.c"], &[], &["c"]), ["R/b/x.c"]);
    // A file named directly but left out by a glob is reported, not dropped.
    let inputs = discover(&InputOptions {
        exclude: vec!["*.c".into()],
        ..opts(&[t.path().join("b/x.c")])
    })
    .unwrap();
    assert!(inputs.submissions.is_empty());
    assert_eq!(
        skipped(&inputs, t.path()),
        [("R/b/x.c".to_owned(), SkipReason::Filtered)]
    );
}

#[test]
fn files_named_explicitly_bypass_the_extension_list() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "a.py", "1");
    write(t.path(), "b.py", "2");
    write(t.path(), "notes.md", "3");
    let listed = parse_file_list(&format!("{}\n", t.path().join("notes.md").display()));
    // `-l text a.py b.py`: the user chose the files, they are compared.
    let inputs = discover(&InputOptions {
        extensions: vec!["txt".into()],
        files_from: listed,
        ..opts(&[t.path().join("a.py"), t.path().join("b.py")])
    })
    .unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/a.py", "R/b.py", "R/notes.md"]);
    assert!(inputs.skipped.is_empty(), "{:?}", inputs.skipped);
    // Globs still apply to them.
    let inputs = discover(&InputOptions {
        extensions: vec!["txt".into()],
        include: vec!["a.*".into()],
        ..opts(&[t.path().join("a.py"), t.path().join("b.py")])
    })
    .unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/a.py"]);
    assert_eq!(
        skipped(&inputs, t.path()),
        [("R/b.py".to_owned(), SkipReason::Filtered)]
    );
}

#[test]
fn walked_files_with_other_extensions_are_listed_and_extensionless_kept() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "alice/main.py", "1");
    write(t.path(), "alice/run", "#!/usr/bin/env python3\n2");
    write(t.path(), "alice/README.md", "3");
    write(t.path(), "alice/.hidden.md", "4");
    write(t.path(), "bob/notes.TXT", "5");
    write(t.path(), ".gitignore", "*.log\n");
    write(t.path(), "bob/debug.log", "6");
    let inputs = discover(&InputOptions {
        extensions: vec!["py".into()],
        directory_mode: true,
        ..opts(&[t.path().to_path_buf()])
    })
    .unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/alice"]);
    assert_eq!(
        files(&inputs, t.path()),
        [vec!["R/alice/main.py", "R/alice/run"]]
    );
    // Hidden and ignored files stay silent; bob's directory is reported as
    // empty as well as the file that was left out.
    let skipped = skipped(&inputs, t.path());
    assert_eq!(
        skipped,
        [
            (
                "R/alice/README.md".to_owned(),
                SkipReason::OtherExtension {
                    extension: "md".into()
                }
            ),
            (
                "R/bob/notes.TXT".to_owned(),
                SkipReason::OtherExtension {
                    extension: "TXT".into()
                }
            ),
            ("R/bob".to_owned(), SkipReason::NoFiles),
        ]
    );
    assert_eq!(
        skipped[0].1.to_string(),
        "extension .md is not one of the language's (-l)"
    );
    // Without an extension list nothing is left out.
    let inputs = discover(&opts(&[t.path().to_path_buf()])).unwrap();
    assert_eq!(inputs.submissions.len(), 4);
    assert!(inputs.skipped.is_empty(), "{:?}", inputs.skipped);
}

#[test]
fn gitignore_and_hidden_files_are_respected_outside_git() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), ".gitignore", "*.pyc\nbuild/\n");
    write(t.path(), "a/main.py", "1");
    write(t.path(), "a/main.pyc", "2");
    write(t.path(), "a/build/out.py", "3");
    write(t.path(), "a/.hidden.py", "4");
    write(t.path(), ".git/config", "5");
    write(t.path(), "b/.ignore", "secret.py\n");
    write(t.path(), "b/secret.py", "6");
    write(t.path(), "b/ok.py", "7");
    let inputs = discover(&opts(&[t.path().to_path_buf()])).unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/a/main.py", "R/b/ok.py"]);
}

#[test]
fn size_limit_skips_with_a_reason() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "small.py", "x");
    write(t.path(), "big.py", &"y".repeat(2000));
    let inputs = discover(&InputOptions {
        max_file_size: 1000,
        ..opts(&[t.path().to_path_buf()])
    })
    .unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/small.py"]);
    let skipped = skipped(&inputs, t.path());
    assert_eq!(
        skipped,
        [(
            "R/big.py".to_owned(),
            SkipReason::TooLarge {
                size: 2000,
                limit: 1000
            }
        )]
    );
    assert_eq!(
        skipped[0].1.to_string(),
        "larger than the 1000 B limit (2 KiB)"
    );
    // A named file over the limit is skipped too, not an error.
    let inputs = discover(&InputOptions {
        max_file_size: 1000,
        ..opts(&[t.path().join("big.py")])
    })
    .unwrap();
    assert_eq!(inputs.skipped.len(), 1);
}

#[test]
fn missing_path_is_a_clear_error() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "a.py", "1");
    let missing = t.path().join("nope");
    for options in [
        opts(&[t.path().to_path_buf(), missing.clone()]),
        InputOptions {
            base: vec![missing.clone()],
            ..opts(&[t.path().to_path_buf()])
        },
        InputOptions {
            old: vec![missing.clone()],
            ..opts(&[t.path().to_path_buf()])
        },
        InputOptions {
            files_from: vec![missing.clone()],
            ..InputOptions::default()
        },
    ] {
        let err = discover(&options).unwrap_err();
        assert!(matches!(&err, InputError::NotFound { path } if *path == missing));
        assert_eq!(
            err.to_string(),
            format!("{}: no such file or directory", missing.display())
        );
    }
}

#[test]
fn unreadable_zip_is_a_clear_error() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "subs.zip", "this is not a zip archive");
    let err = discover(&opts(&[t.path().join("subs.zip")])).unwrap_err();
    assert!(matches!(err, InputError::Archive { .. }));
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "{}: not a readable zip archive: ",
            t.path().join("subs.zip").display()
        )),
        "{text}"
    );
    assert!(!text.contains('\n'));
}

#[test]
fn bad_glob_is_a_clear_error() {
    let err = discover(&InputOptions {
        exclude: vec!["src/[".into()],
        ..InputOptions::default()
    })
    .unwrap_err();
    assert!(matches!(err, InputError::Glob { ref pattern, .. } if pattern == "src/["));
}

/// Writes a zip archive of `(name, content)`; names ending in `/` are
/// directories.
fn make_zip(path: &Path, entries: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(fs::File::create(path).unwrap());
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, content) in entries {
        if name.ends_with('/') {
            zip.add_directory(*name, deflated).unwrap();
        } else {
            zip.start_file(*name, deflated).unwrap();
            zip.write_all(content).unwrap();
        }
    }
    zip.finish().unwrap();
}

fn class_zip(path: &Path) {
    make_zip(
        path,
        &[
            ("bob/main.py", b"print('bob')\n"),
            ("alice/", b""),
            ("alice/main.py", b"print('alice')\n"),
            ("alice/lib/util.py", b"x = 1\n"),
            ("__MACOSX/alice/._main.py", b"junk"),
            ("alice/.DS_Store", b"junk"),
            ("loose.py", b"print('loose')\n"),
            ("dave/", b""),
        ],
    );
}

#[test]
fn zip_archive_without_directory_mode() {
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("subs.zip");
    class_zip(&archive);
    let inputs = discover(&opts(std::slice::from_ref(&archive))).unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        [
            "R/subs.zip/alice/lib/util.py",
            "R/subs.zip/alice/main.py",
            "R/subs.zip/bob/main.py",
            "R/subs.zip/loose.py"
        ]
    );
    let alice = &inputs.submissions[1].files[0];
    assert_eq!(alice.bytes, b"print('alice')\n");
    assert_eq!(
        alice.source,
        Source::ArchiveEntry {
            archive: archive.clone(),
            entry: "alice/main.py".into()
        }
    );
    assert!(inputs.skipped.is_empty(), "{:?}", inputs.skipped);
}

#[test]
fn zip_archive_in_directory_mode() {
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("subs.zip");
    class_zip(&archive);
    let inputs = discover(&InputOptions {
        directory_mode: true,
        ..opts(&[archive])
    })
    .unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        ["R/subs.zip/alice", "R/subs.zip/bob", "R/subs.zip/loose.py"]
    );
    assert_eq!(inputs.submissions[0].files.len(), 2);
    // dave's directory is empty.
    assert_eq!(
        skipped(&inputs, t.path()),
        [("R/subs.zip/dave".to_owned(), SkipReason::NoFiles)]
    );
}

#[test]
fn zip_guards_against_bombs_and_traversal() {
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("evil.zip");
    let zeros = vec![0u8; 3 << 20];
    make_zip(
        &archive,
        &[
            ("../escape.py", b"x"),
            ("/etc/passwd", b"x"),
            ("a.py", b"ok"),
            ("bomb.py", &zeros),
            ("b.py", &[b'b'; 600]),
            ("c.py", &[b'c'; 600]),
        ],
    );
    // The 3 MiB of zeros compress to a few KiB.
    assert!(fs::metadata(&archive).unwrap().len() < 64 << 10);
    let inputs = discover(&InputOptions {
        max_file_size: 1 << 20,
        max_archive_size: 1000,
        ..opts(&[archive])
    })
    .unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        ["R/evil.zip/a.py", "R/evil.zip/b.py"]
    );
    let skipped = skipped(&inputs, t.path());
    assert_eq!(
        skipped,
        [
            (
                "R/evil.zip/../escape.py".to_owned(),
                SkipReason::UnsafeArchivePath
            ),
            (
                "R/evil.zip//etc/passwd".to_owned(),
                SkipReason::UnsafeArchivePath
            ),
            (
                "R/evil.zip/bomb.py".to_owned(),
                SkipReason::TooLarge {
                    size: 3 << 20,
                    limit: 1 << 20
                }
            ),
            (
                "R/evil.zip/c.py".to_owned(),
                SkipReason::ArchiveLimit { limit: 1000 }
            ),
        ]
    );
}

#[test]
fn too_many_archive_entries_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("many.zip");
    make_zip(&archive, &[("a", b"1"), ("b", b"2"), ("c", b"3")]);
    let err = discover(&InputOptions {
        max_archive_entries: 2,
        ..opts(&[archive])
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("3 entries, more than the limit of 2"),
        "{err}"
    );
}

#[test]
fn base_code_is_never_a_submission_and_old_comes_last() {
    let t = tempfile::tempdir().unwrap();
    class(t.path());
    write(t.path(), "starter/hw.py", "def main(): pass\n");
    let last_term = tempfile::tempdir().unwrap();
    write(last_term.path(), "zed/main.py", "print('zed')\n");
    let base = t.path().join("starter");
    let inputs = discover(&InputOptions {
        directory_mode: true,
        include: vec!["*.py".into()],
        base: vec![base.clone()],
        old: vec![last_term.path().to_path_buf()],
        ..opts(&[t.path().to_path_buf()])
    })
    .unwrap();
    let mut got = names(&inputs, t.path());
    let old_name = got.pop().unwrap();
    assert_eq!(got, ["R/alice", "R/bob", "R/loose.py"]);
    assert_eq!(old_name, format!("{}/zed", last_term.path().display()));
    let flags: Vec<bool> = inputs.submissions.iter().map(|s| s.old).collect();
    assert_eq!(flags, [false, false, false, true]);
    assert_eq!(inputs.base.len(), 1);
    assert_eq!(
        inputs.base[0].display_path,
        format!("{}/hw.py", base.display())
    );
    assert_eq!(inputs.base[0].bytes, b"def main(): pass\n");
    // The starter directory under the root was base code: said so, per file.
    let skipped = skipped(&inputs, t.path());
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(skipped[0].0, "R/starter/hw.py");
    assert_eq!(
        skipped[0].1,
        SkipReason::Duplicate {
            first: "R/starter/hw.py".replacen('R', &t.path().to_string_lossy(), 1)
        }
    );
    assert_eq!(skipped[1], ("R/carol".to_owned(), SkipReason::NoFiles));
}

#[test]
fn a_file_reached_twice_is_read_once() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "a.py", "1");
    write(t.path(), "b.py", "2");
    let inputs = discover(&opts(&[t.path().join("a.py"), t.path().to_path_buf()])).unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/a.py", "R/b.py"]);
    assert_eq!(inputs.skipped.len(), 1);
    assert!(matches!(
        inputs.skipped[0].reason,
        SkipReason::Duplicate { .. }
    ));
}

#[test]
fn order_is_deterministic_whatever_the_creation_order() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let rels = [
        "z/1.py", "a/2.py", "m/k/3.py", "a/b/4.py", "B/5.py", "é/6.py", "a.py",
    ];
    for rel in rels {
        write(a.path(), rel, rel);
    }
    for rel in rels.iter().rev() {
        write(b.path(), rel, rel);
    }
    for directory_mode in [false, true] {
        let run = |root: &Path| {
            let inputs = discover(&InputOptions {
                directory_mode,
                ..opts(&[root.to_path_buf()])
            })
            .unwrap();
            (names(&inputs, root), files(&inputs, root))
        };
        let first = run(a.path());
        assert_eq!(first, run(b.path()));
        assert_eq!(first, run(a.path()));
        // Files sort by path; submissions by the path of their first file.
        let firsts: Vec<&String> = first.1.iter().map(|f| &f[0]).collect();
        let mut sorted = firsts.clone();
        sorted.sort();
        assert_eq!(firsts, sorted);
        for f in &first.1 {
            assert!(f.windows(2).all(|w| w[0] < w[1]));
        }
    }
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_not_followed_and_say_so() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "a.py", "1");
    std::os::unix::fs::symlink(t.path().join("a.py"), t.path().join("link.py")).unwrap();
    let inputs = discover(&opts(&[t.path().to_path_buf()])).unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/a.py"]);
    assert_eq!(
        skipped(&inputs, t.path()),
        [("R/link.py".to_owned(), SkipReason::Symlink)]
    );
}

#[cfg(unix)]
#[test]
fn hard_links_are_one_file() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "a.py", "1");
    fs::hard_link(t.path().join("a.py"), t.path().join("b.py")).unwrap();
    let inputs = discover(&opts(&[t.path().to_path_buf()])).unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/a.py"]);
    assert_eq!(
        skipped(&inputs, t.path()),
        [(
            "R/b.py".to_owned(),
            SkipReason::Duplicate {
                first: format!("{}/a.py", t.path().display())
            }
        )]
    );
}

/// A zip archive of stored (uncompressed) entries, as bytes.
fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    for (name, content) in entries {
        zip.start_file(*name, stored).unwrap();
        zip.write_all(content).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn find(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    (0..=haystack.len() - needle.len())
        .filter(|&i| &haystack[i..i + needle.len()] == needle)
        .collect()
}

#[test]
fn corrupt_and_encrypted_entries_are_skipped_with_a_reason() {
    let t = tempfile::tempdir().unwrap();
    let mut bytes = stored_zip(&[
        ("good.py", b"fine"),
        ("corrupt.py", b"CORRUPTME"),
        ("locked.py", b"secret"),
    ]);
    // Damage the data of corrupt.py: its CRC no longer matches.
    let at = find(&bytes, b"CORRUPTME")[0];
    bytes[at] = b'X';
    // Mark locked.py as encrypted (bit 0 of the flags) in its local header
    // and its central directory record; each record precedes its name.
    for at in find(&bytes, b"locked.py") {
        let local = &bytes[at - 30..at - 26] == b"PK\x03\x04";
        let flags = if local { at - 30 + 6 } else { at - 46 + 8 };
        bytes[flags] |= 1;
    }
    let archive = t.path().join("damaged.zip");
    fs::write(&archive, &bytes).unwrap();
    let inputs = discover(&opts(std::slice::from_ref(&archive))).unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/damaged.zip/good.py"]);
    let skipped = skipped(&inputs, t.path());
    let paths: Vec<&str> = skipped.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        paths,
        ["R/damaged.zip/corrupt.py", "R/damaged.zip/locked.py"]
    );
    for (path, reason) in &skipped {
        assert!(
            matches!(reason, SkipReason::Unreadable { .. }),
            "{path}: {reason}"
        );
    }
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_shown_lossily() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let t = tempfile::tempdir().unwrap();
    let name = OsStr::from_bytes(b"caf\xe9.py");
    fs::write(t.path().join(name), "1").unwrap();
    let inputs = discover(&opts(&[t.path().to_path_buf()])).unwrap();
    assert_eq!(names(&inputs, t.path()), ["R/caf\u{fffd}.py"]);
    assert_eq!(
        inputs.submissions[0].files[0].source,
        Source::File(t.path().join(name))
    );
}

/// One zip per student, as downloaded from a course site, next to a
/// student who handed in a directory.
fn zip_class(root: &Path) {
    fs::create_dir_all(root).unwrap();
    make_zip(
        &root.join("alice.zip"),
        &[
            ("main.py", b"print('alice')\n"),
            ("lib/", b""),
            ("lib/util.py", b"x = 1\n"),
            ("README.md", b"notes\n"),
            ("old.zip", b"PK\x05\x06"),
            ("__MACOSX/._main.py", b"junk"),
        ],
    );
    // A zip holding the student's directory, as many archivers write it.
    make_zip(&root.join("bob.zip"), &[("bob/main.py", b"print('bob')\n")]);
    make_zip(&root.join("dave.zip"), &[("notes.txt", b"only prose\n")]);
    write(root, "carol/main.py", "print('carol')\n");
    write(root, "broken.zip", "not a zip archive");
}

#[test]
fn zips_under_a_root_are_one_submission_each_in_directory_mode() {
    let t = tempfile::tempdir().unwrap();
    let subs = t.path().join("subs");
    zip_class(&subs);
    let inputs = discover(&InputOptions {
        directory_mode: true,
        extensions: vec!["py".into()],
        ..opts(std::slice::from_ref(&subs))
    })
    .unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        ["R/subs/alice.zip", "R/subs/bob.zip", "R/subs/carol"]
    );
    assert_eq!(
        files(&inputs, t.path()),
        [
            vec!["R/subs/alice.zip/lib/util.py", "R/subs/alice.zip/main.py"],
            vec!["R/subs/bob.zip/bob/main.py"],
            vec!["R/subs/carol/main.py"],
        ]
    );
    let main = &inputs.submissions[0].files[1];
    assert_eq!(main.bytes, b"print('alice')\n");
    assert_eq!(
        main.source,
        Source::ArchiveEntry {
            archive: subs.join("alice.zip"),
            entry: "main.py".into()
        }
    );
    let skipped = skipped(&inputs, t.path());
    let reasons: Vec<(&str, String)> = skipped
        .iter()
        .map(|(p, r)| (p.as_str(), r.to_string()))
        .collect();
    assert_eq!(reasons.len(), 5, "{reasons:?}");
    assert_eq!(
        reasons[..2],
        [
            (
                "R/subs/alice.zip/README.md",
                "extension .md is not one of the language's (-l)".to_owned()
            ),
            (
                "R/subs/alice.zip/old.zip",
                "zip inside a zip archive is not read".to_owned()
            ),
        ]
    );
    assert_eq!(skipped[1].1, SkipReason::NestedArchive);
    // broken.zip cannot be opened: listed, and not reported as empty too.
    assert_eq!(reasons[2].0, "R/subs/broken.zip");
    assert!(matches!(skipped[2].1, SkipReason::BadArchive { .. }));
    assert!(
        reasons[2].1.starts_with("not a readable zip archive: "),
        "{}",
        reasons[2].1
    );
    // dave's archive holds no Python: the file and the submission are listed.
    assert_eq!(
        reasons[3..],
        [
            (
                "R/subs/dave.zip/notes.txt",
                "extension .txt is not one of the language's (-l)".to_owned()
            ),
            (
                "R/subs/dave.zip",
                "no files to compare in this submission".to_owned()
            ),
        ]
    );
}

#[test]
fn zips_under_a_root_without_directory_mode_give_a_submission_per_entry() {
    let t = tempfile::tempdir().unwrap();
    let subs = t.path().join("subs");
    zip_class(&subs);
    let inputs = discover(&opts(std::slice::from_ref(&subs))).unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        [
            "R/subs/alice.zip/README.md",
            "R/subs/alice.zip/lib/util.py",
            "R/subs/alice.zip/main.py",
            "R/subs/bob.zip/bob/main.py",
            "R/subs/carol/main.py",
            "R/subs/dave.zip/notes.txt",
        ]
    );
    assert!(inputs.submissions.iter().all(|s| s.files.len() == 1));
    let skipped = skipped(&inputs, t.path());
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(
        skipped[0],
        (
            "R/subs/alice.zip/old.zip".to_owned(),
            SkipReason::NestedArchive
        )
    );
    assert_eq!(skipped[1].0, "R/subs/broken.zip");
}

#[test]
fn globs_see_zip_entries_below_the_root() {
    let t = tempfile::tempdir().unwrap();
    let subs = t.path().join("subs");
    zip_class(&subs);
    // Include globs pick entries, not archives; an exclude glob can leave an
    // archive out, silently like any excluded file.
    let inputs = discover(&InputOptions {
        include: vec!["main.py".into()],
        exclude: vec!["bob.zip".into(), "broken.zip".into(), "*/old.zip".into()],
        ..opts(std::slice::from_ref(&subs))
    })
    .unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        ["R/subs/alice.zip/main.py", "R/subs/carol/main.py"]
    );
    assert!(inputs.skipped.is_empty(), "{:?}", inputs.skipped);
}

#[test]
fn a_zip_named_directly_is_a_root_and_its_nested_zips_are_skipped() {
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("alice.zip");
    make_zip(
        &archive,
        &[
            ("main.py", b"1"),
            ("util.py", b"2"),
            ("inner/more.zip", b"PK\x05\x06"),
        ],
    );
    let inputs = discover(&InputOptions {
        directory_mode: true,
        ..opts(std::slice::from_ref(&archive))
    })
    .unwrap();
    // Like a directory named as a root: each entry at its top is a submission.
    assert_eq!(
        names(&inputs, t.path()),
        ["R/alice.zip/main.py", "R/alice.zip/util.py"]
    );
    assert_eq!(
        skipped(&inputs, t.path()),
        [
            (
                "R/alice.zip/inner/more.zip".to_owned(),
                SkipReason::NestedArchive
            ),
            ("R/alice.zip/inner".to_owned(), SkipReason::NoFiles),
        ]
    );
    // Named directly and met again under a root: read once.
    let inputs = discover(&opts(&[archive, t.path().to_path_buf()])).unwrap();
    assert_eq!(inputs.submissions.len(), 2);
    let dups: Vec<_> = inputs
        .skipped
        .iter()
        .filter(|s| matches!(s.reason, SkipReason::Duplicate { .. }))
        .collect();
    assert_eq!(dups.len(), 2, "{:?}", inputs.skipped);
}

#[test]
fn zips_under_a_root_have_the_same_guards() {
    let t = tempfile::tempdir().unwrap();
    let subs = t.path().join("subs");
    fs::create_dir_all(&subs).unwrap();
    let zeros = vec![0u8; 3 << 20];
    make_zip(
        &subs.join("evil.zip"),
        &[
            ("../escape.py", b"x"),
            ("a.py", b"ok"),
            ("bomb.py", &zeros),
            ("b.py", &[b'b'; 600]),
            ("c.py", &[b'c'; 600]),
        ],
    );
    make_zip(
        &subs.join("many.zip"),
        &[("a", b"1"), ("b", b"2"), ("c", b"3")],
    );
    let inputs = discover(&InputOptions {
        directory_mode: true,
        max_file_size: 1 << 20,
        max_archive_size: 1000,
        max_archive_entries: 5,
        ..opts(std::slice::from_ref(&subs))
    })
    .unwrap();
    assert_eq!(
        names(&inputs, t.path()),
        ["R/subs/evil.zip", "R/subs/many.zip"]
    );
    assert_eq!(
        files(&inputs, t.path())[0],
        ["R/subs/evil.zip/a.py", "R/subs/evil.zip/b.py"]
    );
    assert_eq!(
        skipped(&inputs, t.path()),
        [
            (
                "R/subs/evil.zip/../escape.py".to_owned(),
                SkipReason::UnsafeArchivePath
            ),
            (
                "R/subs/evil.zip/bomb.py".to_owned(),
                SkipReason::TooLarge {
                    size: 3 << 20,
                    limit: 1 << 20
                }
            ),
            (
                "R/subs/evil.zip/c.py".to_owned(),
                SkipReason::ArchiveLimit { limit: 1000 }
            ),
        ]
    );
    // The entry limit holds per archive: evil.zip has 5 entries.
    let inputs = discover(&InputOptions {
        max_archive_entries: 3,
        ..opts(std::slice::from_ref(&subs))
    })
    .unwrap();
    assert_eq!(names(&inputs, t.path()).len(), 3);
    assert_eq!(
        skipped(&inputs, t.path()),
        [(
            "R/subs/evil.zip".to_owned(),
            SkipReason::BadArchive {
                message: "5 entries, more than the limit of 3".into()
            }
        )]
    );
}

/// Files are read on all threads; what is found, skipped and grouped must
/// not depend on how many there are.
#[test]
fn reading_in_parallel_equals_reading_on_one_thread() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    for s in 0..12 {
        for f in 0..6 {
            let body = format!("def f{f}():\n    return {s} * {f}\n").repeat(f + 1);
            write(root, &format!("s{s:02}/m{f}.py"), &body);
        }
        write(root, &format!("s{s:02}/notes.xyz"), "not code\n");
    }
    write(root, "s03/big.py", &"x = 1\n".repeat(400));
    fs::create_dir_all(root.join("empty/sub")).unwrap();
    fs::hard_link(root.join("s00/m0.py"), root.join("s07/copy.py")).unwrap();
    std::os::unix::fs::symlink(root.join("s01/m1.py"), root.join("s05/link.py")).unwrap();
    make_zip(
        &root.join("s09/extra.zip"),
        &[("z/a.py", b"print(1)\n"), ("z/b.py", b"print(2)\n")],
    );
    let options = InputOptions {
        roots: vec![root.to_path_buf()],
        directory_mode: true,
        max_file_size: 1000,
        ..InputOptions::default()
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| discover(&options).unwrap())
    };
    let one = run(1);
    assert_eq!(names(&one, root).len(), 12, "{:?}", names(&one, root));
    let reasons = skipped(&one, root);
    assert!(reasons
        .iter()
        .any(|(_, r)| matches!(r, SkipReason::TooLarge { .. })));
    assert!(reasons
        .iter()
        .any(|(_, r)| matches!(r, SkipReason::Duplicate { .. })));
    assert!(reasons
        .iter()
        .any(|(_, r)| matches!(r, SkipReason::Symlink)));
    assert!(reasons
        .iter()
        .any(|(_, r)| matches!(r, SkipReason::NoFiles)));
    for threads in [2, 4, 8] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

#[test]
fn deferred_discovery_lists_what_reading_discovery_reads() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(root, "a.py", "print(1)\n");
    write(root, "sub/b.py", "print(2)\n");
    write(root, "big.py", &"y".repeat(2000));
    fs::hard_link(root.join("a.py"), root.join("c.py")).unwrap();
    std::os::unix::fs::symlink(root.join("a.py"), root.join("link.py")).unwrap();
    let options = InputOptions {
        max_file_size: 1000,
        ..opts(&[root.to_path_buf()])
    };
    let read = discover(&options).unwrap();
    let deferred = discover(&InputOptions {
        defer_reading: true,
        ..options.clone()
    })
    .unwrap();
    assert_eq!(names(&deferred, root), names(&read, root));
    assert_eq!(names(&read, root), ["R/a.py", "R/sub/b.py"]);
    // The same files skipped for the same reasons: the size limit and the
    // second name of one file, checked on metadata alone.
    assert_eq!(skipped(&deferred, root), skipped(&read, root));
    assert_eq!(skipped(&read, root).len(), 3);
    for (d, r) in deferred.submissions.iter().zip(&read.submissions) {
        let (d, r) = (&d.files[0], &r.files[0]);
        assert!(d.bytes.is_empty());
        // The size seen on discovery is kept for the read; a file read at
        // once needs none.
        assert_eq!(d.size_hint, Some(r.bytes.len() as u64));
        assert_eq!(r.size_hint, None);
        assert_eq!(d.read(1000).unwrap().as_ref(), r.bytes.as_slice());
    }
}

#[test]
fn a_deferred_file_is_read_as_it_is_when_read() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(root, "grows.py", "print(1)\n");
    write(root, "shrinks.py", &"x = 1\n".repeat(50));
    write(root, "too_big.py", "print(2)\n");
    let deferred = discover(&InputOptions {
        defer_reading: true,
        max_file_size: 1000,
        ..opts(&[root.to_path_buf()])
    })
    .unwrap();
    let file = |name: &str| {
        deferred
            .submissions
            .iter()
            .flat_map(|s| &s.files)
            .find(|f| f.display_path.ends_with(name))
            .unwrap()
    };
    assert_eq!(file("grows.py").size_hint, Some(9));
    assert_eq!(file("shrinks.py").size_hint, Some(300));
    // Changed between discovery and reading: the read takes the file as it
    // is then, whatever size discovery saw, and still holds the limit.
    let grown = "print(1)\n".repeat(20);
    write(root, "grows.py", &grown);
    write(root, "shrinks.py", "x = 2\n");
    write(root, "too_big.py", &"y".repeat(1001));
    assert_eq!(
        file("grows.py").read(1000).unwrap().as_ref(),
        grown.as_bytes()
    );
    assert_eq!(file("shrinks.py").read(1000).unwrap().as_ref(), b"x = 2\n");
    assert_eq!(
        file("too_big.py").read(1000).unwrap_err(),
        SkipReason::TooLarge {
            size: 1001,
            limit: 1000
        }
    );
}
