//! `bryo`: copy detection with winnowing fingerprints.

mod density;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// bryo finds copied passages between documents with winnowing fingerprints.
#[derive(Parser, Debug)]
#[command(name = "bryo", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Measure fingerprint density, the winnowing paper's experiment (§5.1).
    ///
    /// Fingerprints random text (--random) or the given files, each byte one
    /// symbol, and prints for winnowing, robust winnowing, 0 mod p and Safe
    /// 0 mod p: fingerprints selected, measured and expected density, and the
    /// longest run of symbols with no fingerprint.
    Density(density::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Density(args) => density::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bryo: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
