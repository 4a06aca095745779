//! `bryo fingerprint`: Rabin fingerprints of files, raw and normalized, and
//! which files share them (`bryo_stats::fingerprint_files`), printed.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use bryo_report::Columns;
use bryo_stats::{fingerprint_files, raw_fingerprint_files, FileFingerprints};

use crate::args::{formats, Format, TEXT_JSON};
use crate::frontend_args::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct FingerprintArgs {
    /// The files to fingerprint.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Only the fingerprint of the raw bytes: each file is streamed through
    /// it without a front-end, as fast as it can be read (files of any
    /// size, as `cksum`).
    #[arg(long, conflicts_with_all = ["language", "parser", "normalization", "verbatim", "text_mode"])]
    raw: bool,

    #[command(flatten)]
    frontend: FrontendArgs,

    /// Output format.
    #[arg(long = "format", default_value = "text", value_parser = formats(TEXT_JSON))]
    format: Format,
}

/// `bryo fingerprint FILE…`.
pub fn run(args: &FingerprintArgs) -> Result<()> {
    let out = if args.raw {
        raw_fingerprint_files(&args.files)?
    } else {
        fingerprint_files(&args.files, &args.frontend.analyze_options()?)?
    };
    let mut w = BufWriter::new(io::stdout().lock());
    if args.format == Format::Json {
        serde_json::to_writer_pretty(&mut w, &out)?;
        writeln!(w)?;
        w.flush()?;
        return Ok(());
    }
    if args.raw {
        let mut table = Columns::new().left("", 16).right("  ", 10).left("  ", 0);
        table.row(["raw", "bytes", "file"]);
        for f in &out.files {
            let path = f.path.escape_debug().to_string();
            table.row([f.raw.clone(), f.bytes.to_string(), path]);
        }
        table.write(&mut w)?;
    } else {
        write_table(&mut w, &out)?;
    }
    for (title, groups) in [
        ("identical bytes", &out.identical_bytes),
        ("identical after normalization", &out.identical_normalized),
    ] {
        for g in groups {
            let names: Vec<String> = g.iter().map(|p| p.escape_debug().to_string()).collect();
            writeln!(w, "{title}: {}", names.join(" = "))?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Raw and normalized fingerprints, one row per file.
fn write_table(w: &mut impl Write, out: &FileFingerprints) -> Result<()> {
    let columns = Columns::new().left("", 16).left("  ", 16);
    let mut table = columns.right("  ", 8).left("  ", 0);
    table.row(["raw", "normalized", "symbols", "file"]);
    for f in &out.files {
        let path = f.path.escape_debug().to_string();
        table.row(match (&f.normalized, f.symbols) {
            (Some(n), Some(s)) => [f.raw.clone(), n.clone(), s.to_string(), path],
            _ => {
                let why = f.skipped.as_deref().unwrap_or("not normalized");
                [
                    f.raw.clone(),
                    "-".into(),
                    "-".into(),
                    format!("{path} ({why})"),
                ]
            }
        });
    }
    table.write(w)?;
    Ok(())
}
