//! How much of an archive a query under MOSS's rule needs: the documents
//! [`Index::related`] loads for the files of a new term.
//!
//! ```text
//! cargo run -p bryo-index --example related -- INDEX_DIR MAX_SUBMISSIONS NEW_DIR
//! ```
//!
//! Prints the archived documents and submissions loaded, of how many, the
//! hashes excluded and the time `related` took.

use std::path::{Path, PathBuf};

use bryo_index::Index;

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [index, max_submissions, new] = args.as_slice() else {
        return Err("usage: related INDEX_DIR MAX_SUBMISSIONS NEW_DIR".into());
    };
    let index = Index::open(Path::new(index))?;
    let max_submissions: usize = max_submissions.parse()?;
    let mut paths = Vec::new();
    files(Path::new(new), &mut paths)?;
    let options = index.settings().analyze;
    // One submission per file, as `bryo compare` without -d takes them.
    let analyzed = paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p)?;
            Ok(vec![bryo_compare::analyze(
                &p.display().to_string(),
                &bytes,
                &options,
            )?])
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    let refs: Vec<&[bryo_compare::Analyzed]> = analyzed.iter().map(Vec::as_slice).collect();
    let start = std::time::Instant::now();
    let related = index.related(&refs, max_submissions)?;
    let elapsed = start.elapsed().as_secs_f64();
    let info = index.info()?;
    println!(
        "new files {} | loaded documents {} of {} | loaded submissions {} of {} | excluded hashes {} | related {:.3} s",
        refs.len(),
        related.loaded_documents,
        related.documents,
        related.archived.len(),
        info.submissions,
        related.excluded.len(),
        elapsed
    );
    Ok(())
}
