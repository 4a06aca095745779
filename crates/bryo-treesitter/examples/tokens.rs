//! Prints the tree-sitter symbol stream of a file, one token a line:
//! `line:col  symbol  text`, or the fallback reason.
//!
//! `cargo run -p bryo-treesitter --example tokens -- LANGUAGE FILE [--verbatim]`

use bryo_frontend::LineIndex;
use bryo_treesitter::{Normalization, Options, TsLanguage};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: tokens LANGUAGE FILE [--verbatim]");
        std::process::exit(2);
    };
    let Some(language) = TsLanguage::by_name(name) else {
        eprintln!("no tree-sitter grammar for `{name}`");
        std::process::exit(2);
    };
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let mut options = Options::default();
    if args.iter().any(|a| a == "--verbatim") {
        options.normalization = Normalization::Verbatim;
    }
    match language.normalize(&text, &options) {
        Ok(parsed) => {
            let lines = LineIndex::new(&text);
            for (sym, span) in parsed
                .normalized
                .symbols
                .iter()
                .zip(&parsed.normalized.spans)
            {
                let (line, col) = lines.line_col(span.start);
                let shown = String::from_utf8_lossy(&text[span.range()]);
                println!("{line}:{col}\t{sym:016x}\t{}", shown.escape_debug());
            }
            eprintln!("{} symbols, {:?}", parsed.normalized.len(), parsed.stats);
        }
        Err(reason) => {
            eprintln!("fallback ({}): {reason}", reason.code());
            std::process::exit(1);
        }
    }
}
