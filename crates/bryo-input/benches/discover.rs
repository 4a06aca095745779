//! Discovery of a class-sized batch: 60 submission directories of 30 files
//! (1,800 files, 7.2 MB), as a directory tree and as one zip archive, grouped
//! with directory mode. Contents come from a fixed-seed generator.
//!
//! Set `BRYO_BENCH_TREE=/path` to also time a real tree (e.g. a Python
//! standard library), one submission per file.

use std::io::Write;
use std::path::Path;

use bryo_input::{discover, InputOptions};
use criterion::{criterion_group, criterion_main, Criterion};

const SUBMISSIONS: usize = 60;
const FILES: usize = 30;
const FILE_BYTES: usize = 4000;

/// SplitMix64, so every run sees the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn content(rng: &mut Rng) -> Vec<u8> {
    (0..FILE_BYTES)
        .map(|i| {
            if i % 60 == 59 {
                b'\n'
            } else {
                b"abcdefghij (){}=+;,.xyz "[(rng.next() % 24) as usize]
            }
        })
        .collect()
}

fn build(root: &Path) -> std::path::PathBuf {
    let mut rng = Rng(42);
    let archive = root.join("batch.zip");
    let tree = root.join("batch");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for s in 0..SUBMISSIONS {
        let dir = tree.join(format!("student{s:03}/src"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..FILES {
            let bytes = content(&mut rng);
            std::fs::write(dir.join(format!("file{f:02}.c")), &bytes).unwrap();
            zip.start_file(format!("student{s:03}/src/file{f:02}.c"), opts)
                .unwrap();
            zip.write_all(&bytes).unwrap();
        }
    }
    zip.finish().unwrap();
    archive
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let archive = build(tmp.path());
    let tree = tmp.path().join("batch");
    let grouped = |root: &Path| InputOptions {
        roots: vec![root.to_path_buf()],
        directory_mode: true,
        ..InputOptions::default()
    };
    let check = |o: &InputOptions| {
        let inputs = discover(o).unwrap();
        assert_eq!(inputs.submissions.len(), SUBMISSIONS);
        inputs
    };
    check(&grouped(&tree));
    check(&grouped(&archive));
    let mut group = c.benchmark_group("discover");
    group.sample_size(10);
    group.bench_function("tree_1800_files", |b| b.iter(|| check(&grouped(&tree))));
    group.bench_function("zip_1800_files", |b| b.iter(|| check(&grouped(&archive))));
    if let Some(real) = std::env::var_os("BRYO_BENCH_TREE") {
        let o = InputOptions {
            roots: vec![real.into()],
            extensions: vec!["py".into()],
            ..InputOptions::default()
        };
        let n = discover(&o).unwrap().submissions.len();
        group.bench_function(format!("real_tree_{n}_py_files"), |b| {
            b.iter(|| discover(&o).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
