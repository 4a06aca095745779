//! What shapes the fingerprints of an index: fixed when it is created,
//! checked whenever it is opened and queried.

use std::path::Path;

use bryo_compare::{
    default_thresholds, AnalyzeOptions, Normalization, Normalize, Parser,
    TOKEN_NORMALIZATION_VERSION,
};
use bryo_engine::Config;
use bryo_frontend::{FrontendKind, Language, TextMode};

use crate::error::{IndexError, Result};

/// Version of the index's on-disk layout (catalogue tables, segment
/// columns, stream encoding). A change bumps it; older indexes are refused.
pub const INDEX_FORMAT_VERSION: u32 = 2;

/// The options under which every document of an index was analyzed and
/// fingerprinted. Documents and queries made under other options would not
/// share hashes with them, so an index accepts only its own.
#[derive(Clone, Copy, Debug)]
pub struct IndexSettings {
    /// Front-end choices: language (or detection per file), parser,
    /// normalization, text mode.
    pub analyze: AnalyzeOptions,
    /// `k` and `w`.
    pub config: Config,
}

impl IndexSettings {
    /// Settings from the user's options: `k` and `w` (or `t`) default as in
    /// `bryo compare` — the defaults of the language's kind of front-end,
    /// those of source code when no language is given. With a language,
    /// [`Normalize::Auto`] is decided for it.
    pub fn new(
        mut analyze: AnalyzeOptions,
        k: Option<usize>,
        w: Option<usize>,
        t: Option<usize>,
    ) -> Result<IndexSettings> {
        let kind = analyze
            .language
            .map_or(FrontendKind::Code, Language::frontend);
        let (default_k, default_w) = default_thresholds(kind, analyze.text_mode);
        let k = k.unwrap_or(default_k);
        let config = match (w, t) {
            (Some(w), _) => Config::new(k, w),
            (None, Some(t)) => Config::from_thresholds(k, t),
            (None, None) => Config::new(k, default_w),
        }
        .map_err(|e| IndexError::Settings(e.to_string()))?;
        if let Some(language) = analyze.language {
            analyze = analyze.for_language(language);
        }
        Ok(IndexSettings { analyze, config })
    }

    /// The settings as catalogue `meta` rows, scheme versions included.
    pub(crate) fn to_meta(self) -> Vec<(&'static str, String)> {
        vec![
            ("format_version", INDEX_FORMAT_VERSION.to_string()),
            (
                "hash_scheme_version",
                bryo_engine::HASH_SCHEME_VERSION.to_string(),
            ),
            (
                "symbol_scheme_version",
                bryo_frontend::SYMBOL_SCHEME_VERSION.to_string(),
            ),
            (
                "language",
                self.analyze
                    .language
                    .map_or_else(String::new, |l| l.name().to_string()),
            ),
            ("parser", self.analyze.parser.name().to_string()),
            (
                "normalization",
                self.analyze.normalization.name().to_string(),
            ),
            ("text_mode", self.analyze.text_mode.name().to_string()),
            (
                "token_normalization",
                match self.analyze.normalize {
                    Normalize::Off => "off".to_string(),
                    Normalize::On => TOKEN_NORMALIZATION_VERSION.to_string(),
                    Normalize::Auto => format!("auto {TOKEN_NORMALIZATION_VERSION}"),
                },
            ),
            ("k", self.config.k().to_string()),
            ("w", self.config.w().to_string()),
        ]
    }

    /// Every option that shapes fingerprints and the scheme versions, in
    /// one line (`format_version=1, hash_scheme_version=…, k=…, w=…`):
    /// documents prepared under settings with another key cannot join the
    /// index ([`PreparedDocument::settings`](crate::PreparedDocument::settings)).
    pub fn key(&self) -> String {
        self.to_meta()
            .into_iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Settings back from `meta` rows; versions other than this build's
    /// are refused.
    pub(crate) fn from_meta(dir: &Path, get: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let field = |key: &'static str| {
            get(key).ok_or_else(|| IndexError::Settings(format!("the catalogue has no `{key}`")))
        };
        let versions = [
            (
                "format_version",
                "index format version",
                INDEX_FORMAT_VERSION,
            ),
            (
                "hash_scheme_version",
                "hash scheme version",
                bryo_engine::HASH_SCHEME_VERSION,
            ),
            (
                "symbol_scheme_version",
                "symbol scheme version",
                bryo_frontend::SYMBOL_SCHEME_VERSION,
            ),
        ];
        for (key, what, ours) in versions {
            let stored = field(key)?;
            if stored != ours.to_string() {
                return Err(IndexError::Mismatch {
                    dir: dir.to_path_buf(),
                    what,
                    stored,
                    wanted: format!("{ours} (this build of bryo)"),
                });
            }
        }
        let language = match field("language")?.as_str() {
            "" => None,
            name => Some(Language::by_name(name).ok_or_else(|| {
                IndexError::Settings(format!("unknown language `{name}` in the catalogue"))
            })?),
        };
        let parser = match field("parser")?.as_str() {
            "lexer" => Parser::Lexer,
            "tree-sitter" => Parser::TreeSitter,
            other => return Err(IndexError::Settings(format!("unknown parser `{other}`"))),
        };
        let normalization: Normalization = field("normalization")?
            .parse()
            .map_err(|e| IndexError::Settings(format!("{e}")))?;
        let text_mode = match field("text_mode")?.as_str() {
            "chars" => TextMode::Chars,
            "words" => TextMode::Words,
            other => return Err(IndexError::Settings(format!("unknown text mode `{other}`"))),
        };
        // Indexes made before `--normalize` existed have no row: they keep
        // every statement.
        // Its version otherwise (`auto` and the version for an index
        // without one language); the first wrote `on`.
        let current = TOKEN_NORMALIZATION_VERSION.to_string();
        let normalize = match get("token_normalization").as_deref() {
            None | Some("off") => Normalize::Off,
            Some(v) if v == current => Normalize::On,
            Some(v) if v.strip_prefix("auto ") == Some(&current) => Normalize::Auto,
            Some(v) if v == "on" || v.trim_start_matches("auto ").parse::<u32>().is_ok() => {
                return Err(IndexError::Mismatch {
                    dir: dir.to_path_buf(),
                    what: "token normalization version",
                    stored: if v == "on" { "1" } else { v }.to_string(),
                    wanted: format!("{TOKEN_NORMALIZATION_VERSION} (this build of bryo)"),
                })
            }
            Some(other) => {
                return Err(IndexError::Settings(format!(
                    "unknown token_normalization `{other}`"
                )))
            }
        };
        let number = |key: &'static str| -> Result<usize> {
            field(key)?
                .parse()
                .map_err(|_| IndexError::Settings(format!("`{key}` is not a number")))
        };
        let config = Config::new(number("k")?, number("w")?)
            .map_err(|e| IndexError::Settings(e.to_string()))?;
        Ok(IndexSettings {
            analyze: AnalyzeOptions {
                language,
                parser,
                normalization,
                text_mode,
                normalize,
            },
            config,
        })
    }

    /// Refuses `other` unless every option that shapes fingerprints equals
    /// this index's.
    pub fn check(&self, dir: &Path, other: &IndexSettings) -> Result<()> {
        let ours = self.to_meta();
        let theirs = other.to_meta();
        for ((key, stored), (_, wanted)) in ours.into_iter().zip(theirs) {
            if stored != wanted {
                let show = |v: String| {
                    if v.is_empty() {
                        "(detected per file)".to_string()
                    } else {
                        v
                    }
                };
                return Err(IndexError::Mismatch {
                    dir: dir.to_path_buf(),
                    what: key,
                    stored: show(stored),
                    wanted: show(wanted),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(normalize: Option<&str>) -> Result<IndexSettings> {
        let settings = IndexSettings::new(AnalyzeOptions::default(), None, None, None).unwrap();
        let rows = settings.to_meta();
        IndexSettings::from_meta(Path::new("idx"), |key| {
            if key == "token_normalization" {
                return normalize.map(str::to_string);
            }
            rows.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn token_normalization_is_read_with_its_version() {
        let normalize = |v| meta(v).unwrap().analyze.normalize;
        assert_eq!(normalize(None), Normalize::Off);
        assert_eq!(normalize(Some("off")), Normalize::Off);
        let current = TOKEN_NORMALIZATION_VERSION.to_string();
        assert_eq!(normalize(Some(&current)), Normalize::On);
        assert_eq!(normalize(Some(&format!("auto {current}"))), Normalize::Auto);
        // The first version wrote `on`: its streams are not this build's.
        let err = meta(Some("on")).unwrap_err().to_string();
        let wanted = format!("but {current} (this build of bryo) is asked for");
        assert!(
            err.contains(&format!(
                "index made with token normalization version 1, {wanted}"
            )),
            "{err}"
        );
        // Version 2 did not inline functions.
        let err = meta(Some("auto 2")).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "index made with token normalization version auto 2, {wanted}"
            )),
            "{err}"
        );
        assert!(matches!(
            meta(Some("sideways")),
            Err(IndexError::Settings(_))
        ));
    }
}
