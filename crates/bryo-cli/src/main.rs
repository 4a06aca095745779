//! `bryo`: copy detection with winnowing fingerprints.

mod args;
mod compare;
mod corpus;
mod density;
mod fingerprint;
mod frontend_args;
mod hugepages;
mod index;
mod rank;
mod report;
mod serve;
mod timings;
mod tokens;

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
    /// Measure fingerprint density, the winnowing paper's experiments (§5.1, Figure 3).
    ///
    /// Fingerprints random text (--random) or the files under the given
    /// paths (raw bytes, or through the text or HTML front-end with -l),
    /// file by file in parallel, and prints for winnowing, robust winnowing,
    /// 0 mod p and Safe 0 mod p: fingerprints selected, measured and
    /// expected density, and the longest run of symbols with no fingerprint
    /// within a document.
    Density(density::Args),

    /// Frequency of k-grams by rank over a corpus (the paper's Figure 4).
    ///
    /// Counts every k-gram hash and every winnowed fingerprint in bounded
    /// memory (spilling sorted runs to disk past --memory), reports the
    /// shares seen once, twice and three times, the most frequent k-grams
    /// with their text and the power-law slope fitted on plateau endpoints,
    /// and draws the log-log plot as SVG and PNG into -o DIR.
    Rank(Box<rank::Args>),

    /// Rank the pairs of submissions that share passages (MOSS's job).
    ///
    /// Every file goes through its front-end (lexer, tree-sitter, prose or
    /// HTML), is fingerprinted by winnowing, and pairs are formed only from
    /// shared fingerprints; for the reported pairs the exact matched
    /// fragments are recovered and mapped to lines.
    Compare(Box<compare::Args>),

    /// Print the normalized symbols of a file with their text and position:
    /// what bryo compares.
    Tokens(tokens::TokensArgs),

    /// List the languages, their aliases, extensions and front-ends.
    Languages(tokens::LanguagesArgs),

    /// Render a saved result (`bryo compare --format json`) as the HTML
    /// report: a directory with an overview and a side-by-side page per
    /// pair, reading the submitted files from disk.
    Report(report::Args),
    /// Print the Rabin fingerprints of files, of their raw bytes and of
    /// their normalized symbols, and group the files that share one.
    ///
    /// The fingerprint is the file read as a polynomial over GF(2) modulo
    /// bryo's degree-64 irreducible polynomial (Broder 1993): equal files
    /// always get equal fingerprints, different files collide with
    /// negligible probability, so a fingerprint recorded once tells whether
    /// a file was already seen. The normalized fingerprint ignores what the
    /// front-end drops (layout, comments, identifier names, …; same flags
    /// as `bryo tokens`).
    Fingerprint(fingerprint::FingerprintArgs),

    /// A persistent fingerprint index of earlier terms: `create`, `add`,
    /// `info`, `remove`, `compact`; `bryo compare --against DIR` compares
    /// new submissions with everything in it.
    Index(index::Args),

    /// A self-hosted MOSS: speaks MOSS's wire protocol (moss.pl, mosspy, …
    /// work by changing the server name) and serves results that stay
    /// until their owner deletes them; `bryo serve user add EMAIL` issues
    /// user ids.
    Serve(Box<serve::Args>),
}

/// jemalloc, not the system's allocator: with glibc's, the threads'
/// arenas grow a page run at a time (thousands of `mprotect` calls a run)
/// and contend on frees across threads (BENCHMARKS.md, "The allocator").
/// Build with `--no-default-features` for the system's allocator.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// tree-sitter's C library allocates through jemalloc too, not glibc's
/// `malloc`: a parse allocates and frees a node at a time, and glibc's
/// allocator took 8 % of the cycles of `--normalize` on the standard
/// library (BENCHMARKS.md, "tree-sitter on jemalloc").
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
fn tree_sitter_on_jemalloc() {
    // SAFETY: called first in `main`, before any parser or tree exists,
    // so nothing allocated by one allocator is freed by the other.
    unsafe {
        bryo_treesitter::tree_sitter::set_allocator(
            Some(tikv_jemalloc_sys::malloc),
            Some(tikv_jemalloc_sys::calloc),
            Some(tikv_jemalloc_sys::realloc),
            Some(tikv_jemalloc_sys::free),
        );
    }
}

fn main() -> ExitCode {
    #[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
    tree_sitter_on_jemalloc();
    // Huge pages only where a command allows them (`hugepages`).
    hugepages::allow(false);
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Density(args) => density::run(&args).map(|()| false),
        Command::Rank(args) => rank::run(&args).map(|()| false),
        Command::Compare(args) => compare::run(&args),
        Command::Tokens(args) => tokens::tokens(&args).map(|()| false),
        Command::Languages(args) => tokens::languages(&args).map(|()| false),
        Command::Report(args) => report::run(&args).map(|()| false),
        Command::Fingerprint(args) => fingerprint::run(&args).map(|()| false),
        Command::Index(args) => index::run(&args).map(|()| false),
        Command::Serve(args) => serve::run(&args).map(|()| false),
    };
    match result {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bryo: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether the output went to a reader that closed it (`bryo … | head`):
/// not an error worth reporting, as with other command-line tools.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
