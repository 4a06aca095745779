//! The language table: names, aliases (every MOSS language name is one),
//! file extensions, shebang interpreters and the front-end each language
//! uses. Detection looks at the file extension first, then the shebang.

use std::path::Path;
use std::sync::OnceLock;

use crate::lexer::langs as spec;
use crate::lexer::{LexSpec, Lexer};

/// Which kind of front-end turns a language's files into symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrontendKind {
    /// Source code, lexed by [`Language::lexer`].
    Code,
    /// Prose: the text front-end.
    Text,
    /// HTML: markup removed, then the text front-end.
    Html,
}

/// One entry of the language table.
///
/// ```
/// use bryo_frontend::{Language, Normalization};
///
/// let python = Language::by_name("py").unwrap();
/// let lexer = python.lexer().unwrap();
/// let a = lexer.lex("total = price * 2  # cost", Normalization::Full);
/// let b = lexer.lex("s = p *\n    10", Normalization::Full);
/// // Renamed identifiers, a changed literal, a dropped comment: same symbols.
/// assert_eq!(a.normalized.symbols, b.normalized.symbols);
/// // Spans point into the text.
/// assert_eq!(a.normalized.spans[1].range(), 6..7);
/// ```
#[derive(Debug)]
pub struct Language {
    name: &'static str,
    aliases: &'static [&'static str],
    extensions: &'static [&'static str],
    interpreters: &'static [&'static str],
    frontend: FrontendKind,
    pub(crate) spec: Option<&'static LexSpec>,
    lexer: OnceLock<Lexer>,
}

impl Language {
    /// The canonical name (lower case, e.g. `cc`, `python`, `text`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Other accepted names, MOSS's among them (e.g. `c++`, `cpp` for `cc`).
    pub fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    /// File extensions without the dot, lower case.
    pub fn extensions(&self) -> &'static [&'static str] {
        self.extensions
    }

    /// Interpreter names recognised in a `#!` line (version suffixes such as
    /// `python3.11` are accepted too).
    pub fn interpreters(&self) -> &'static [&'static str] {
        self.interpreters
    }

    /// Which front-end the language uses.
    pub fn frontend(&self) -> FrontendKind {
        self.frontend
    }

    /// The language's lexer, built on first use and shared; `None` for
    /// prose and HTML.
    pub fn lexer(&'static self) -> Option<&'static Lexer> {
        let spec = self.spec?;
        Some(self.lexer.get_or_init(|| Lexer::new(spec)))
    }

    /// Every language, in table order.
    pub fn all() -> &'static [Language] {
        &LANGUAGES
    }

    /// The language called `name` (its canonical name or an alias), ignoring
    /// ASCII case.
    pub fn by_name(name: &str) -> Option<&'static Language> {
        LANGUAGES.iter().find(|l| {
            l.name.eq_ignore_ascii_case(name)
                || l.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
        })
    }

    /// The language of files ending in `.ext` (without the dot; any case).
    pub fn by_extension(ext: &str) -> Option<&'static Language> {
        LANGUAGES
            .iter()
            .find(|l| l.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
    }

    /// The language named by a `#!` first line, e.g. `#!/bin/sh` or
    /// `#!/usr/bin/env python3`; `None` if `first_line` is no shebang or
    /// names no known interpreter.
    pub fn by_shebang(first_line: &[u8]) -> Option<&'static Language> {
        let rest = first_line.strip_prefix(b"#!")?;
        let line_end = rest
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')
            .unwrap_or(rest.len());
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        let mut words = line.split_ascii_whitespace();
        let mut program = base_name(words.next()?);
        if program == "env" {
            // Skip env's options (`-S`, `-i`) and assignments (`A=b`).
            program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
            program = base_name(program);
        }
        let bare = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        LANGUAGES.iter().find(|l| {
            l.interpreters
                .iter()
                .any(|i| *i == program || (!bare.is_empty() && *i == bare))
        })
    }

    /// Detects the language of a file from its path's extension, then from
    /// its first line's shebang.
    pub fn detect(path: &Path, first_line: &[u8]) -> Option<&'static Language> {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(Language::by_extension)
            .or_else(|| Language::by_shebang(first_line))
    }
}

/// Languages are equal when their canonical names are.
impl PartialEq for Language {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Language {}

impl std::hash::Hash for Language {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

/// Displays the canonical name.
impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

const fn code(
    name: &'static str,
    aliases: &'static [&'static str],
    extensions: &'static [&'static str],
    interpreters: &'static [&'static str],
    spec: &'static LexSpec,
) -> Language {
    Language {
        name,
        aliases,
        extensions,
        interpreters,
        frontend: FrontendKind::Code,
        spec: Some(spec),
        lexer: OnceLock::new(),
    }
}

static LANGUAGES: [Language; 37] = [
    code("c", &[], &["c", "h"], &["tcc"], &spec::C),
    code(
        "cc",
        &["c++", "cpp", "cxx"],
        &[
            "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl",
        ],
        &[],
        &spec::CPP,
    ),
    code("java", &[], &["java"], &[], &spec::JAVA),
    code(
        "ml",
        &["ocaml", "sml", "standardml"],
        &["ml", "mli", "sml", "sig", "fun"],
        &["ocaml", "ocamlrun"],
        &spec::ML,
    ),
    code(
        "pascal",
        &["delphi", "objectpascal"],
        &["pas", "pp", "dpr", "lpr"],
        &[],
        &spec::PASCAL,
    ),
    code("ada", &[], &["adb", "ads", "ada"], &[], &spec::ADA),
    code(
        "lisp",
        &["commonlisp", "common-lisp", "elisp", "emacs-lisp"],
        &["lisp", "lsp", "cl", "el", "asd"],
        &["sbcl", "clisp", "ecl"],
        &spec::LISP,
    ),
    code(
        "scheme",
        &["racket"],
        &["scm", "ss", "sls", "sld", "rkt"],
        &["guile", "racket", "csi", "chez", "scheme"],
        &spec::SCHEME,
    ),
    code(
        "haskell",
        &["hs"],
        &["hs", "lhs"],
        &["runghc", "runhaskell", "stack"],
        &spec::HASKELL,
    ),
    code(
        "fortran",
        &["f77", "f90", "f95"],
        &["f", "for", "ftn", "f77", "f90", "f95", "f03", "f08"],
        &[],
        &spec::FORTRAN,
    ),
    code("vhdl", &[], &["vhd", "vhdl"], &[], &spec::VHDL),
    code("perl", &["pl"], &["pl", "pm", "t"], &["perl"], &spec::PERL),
    code("matlab", &["octave"], &["m"], &["octave"], &spec::MATLAB),
    code(
        "python",
        &["py", "python3"],
        &["py", "pyw", "pyi"],
        &["python", "pypy", "pypy3"],
        &spec::PYTHON,
    ),
    code("mips", &[], &["s", "mips"], &[], &spec::MIPS),
    code(
        "prolog",
        &[],
        &["pro", "prolog", "p"],
        &["swipl", "gprolog"],
        &spec::PROLOG,
    ),
    code(
        "spice",
        &[],
        &["sp", "cir", "spice", "ckt"],
        &[],
        &spec::SPICE,
    ),
    code(
        "vb",
        &["visualbasic", "vbnet", "vba"],
        &["vb", "bas", "vbs", "cls", "frm"],
        &[],
        &spec::VB,
    ),
    code("csharp", &["c#", "cs"], &["cs", "csx"], &[], &spec::CSHARP),
    code(
        "modula2",
        &["modula-2", "m2"],
        &["mod", "def", "mi"],
        &[],
        &spec::MODULA2,
    ),
    code(
        "a8086",
        &["asm", "x86", "8086", "nasm", "masm"],
        &["asm", "a86", "nasm"],
        &[],
        &spec::A8086,
    ),
    code(
        "javascript",
        &["js", "node"],
        &["js", "mjs", "cjs", "jsx"],
        &["node", "nodejs"],
        &spec::JAVASCRIPT,
    ),
    code(
        "plsql",
        &["pl/sql", "oracle"],
        &["pls", "plsql", "pks", "pkb", "pck"],
        &[],
        &spec::PLSQL,
    ),
    code(
        "verilog",
        &["systemverilog", "sv"],
        &["v", "vh", "sv", "svh"],
        &[],
        &spec::VERILOG,
    ),
    code(
        "typescript",
        &["ts"],
        &["ts", "tsx", "mts", "cts"],
        &["ts-node", "deno", "tsx", "bun"],
        &spec::TYPESCRIPT,
    ),
    code("go", &["golang"], &["go"], &[], &spec::GO),
    code("rust", &["rs"], &["rs"], &["run-cargo-script"], &spec::RUST),
    code(
        "kotlin",
        &["kt"],
        &["kt", "kts"],
        &["kotlin", "kscript"],
        &spec::KOTLIN,
    ),
    code(
        "php",
        &[],
        &["php", "phtml", "php3", "php4", "php5", "phps"],
        &["php"],
        &spec::PHP,
    ),
    code(
        "ruby",
        &["rb"],
        &["rb", "rake", "gemspec", "ru"],
        &["ruby", "jruby"],
        &spec::RUBY,
    ),
    code(
        "scala",
        &[],
        &["scala", "sc"],
        &["scala", "amm"],
        &spec::SCALA,
    ),
    code("swift", &[], &["swift"], &["swift"], &spec::SWIFT),
    code(
        "bash",
        &["sh", "shell", "zsh", "ksh"],
        &["sh", "bash", "zsh", "ksh"],
        &["sh", "bash", "zsh", "ksh", "dash", "ash"],
        &spec::BASH,
    ),
    code(
        "sql",
        &["mysql", "postgresql", "sqlite"],
        &["sql", "ddl", "dml"],
        &[],
        &spec::SQL,
    ),
    code("r", &["rlang"], &["r", "rscript"], &["Rscript"], &spec::R),
    Language {
        name: "text",
        aliases: &["ascii", "txt", "prose"],
        extensions: &["txt", "text", "md", "markdown", "rst", "tex", "adoc"],
        interpreters: &[],
        frontend: FrontendKind::Text,
        spec: None,
        lexer: OnceLock::new(),
    },
    Language {
        name: "html",
        aliases: &["htm", "xhtml"],
        extensions: &["html", "htm", "xhtml", "shtml"],
        interpreters: &[],
        frontend: FrontendKind::Html,
        spec: None,
        lexer: OnceLock::new(),
    },
];
