//! `bryo report`: render a saved JSON result as the HTML report. The files
//! it names are read through `bryo_html::CheckedLoader`: only those the
//! result vouches for are shown.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bryo_html::{write_html, CheckedLoader, DiskLoader};
use bryo_report::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A result written by `bryo compare --format json`.
    #[arg(value_name = "RESULT.json")]
    result: PathBuf,

    /// Directory to write the report into (created if needed).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: PathBuf,

    /// Directory the file paths of the result are relative to: where
    /// `bryo compare` ran.
    #[arg(long = "root", value_name = "DIR", default_value = ".")]
    root: PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let text = std::fs::read_to_string(&args.result)
        .with_context(|| format!("cannot read {}", args.result.display()))?;
    let report = Report::from_json(&text)
        .with_context(|| format!("{} is not a bryo compare result", args.result.display()))?;
    let loader = CheckedLoader::new(&report, DiskLoader::new(&args.root));
    write_html(&report, &loader, &args.output)?;
    Ok(())
}
