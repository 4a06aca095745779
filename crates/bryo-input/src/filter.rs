use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::InputError;

/// The include, exclude and extension filters, applied to `/`-separated
/// relative paths.
pub(crate) struct Filter {
    include: Patterns,
    exclude: Patterns,
    extensions: Vec<String>,
}

/// Patterns split by what they match: the file name or the whole path.
struct Patterns {
    by_name: GlobSet,
    by_path: GlobSet,
    empty: bool,
}

impl Patterns {
    fn new(patterns: &[String]) -> Result<Self, InputError> {
        let mut by_name = GlobSetBuilder::new();
        let mut by_path = GlobSetBuilder::new();
        for pattern in patterns {
            let glob = Glob::new(pattern).map_err(|e| InputError::Glob {
                pattern: pattern.clone(),
                message: e.kind().to_string(),
            })?;
            if pattern.contains('/') {
                by_path.add(glob);
            } else {
                by_name.add(glob);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|e| InputError::Glob {
                pattern: patterns.join(" "),
                message: e.to_string(),
            })
        };
        Ok(Patterns {
            by_name: build(by_name)?,
            by_path: build(by_path)?,
            empty: patterns.is_empty(),
        })
    }

    fn matches(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.by_name.is_match(name) || self.by_path.is_match(path)
    }
}

impl Filter {
    pub(crate) fn new(
        include: &[String],
        exclude: &[String],
        extensions: &[String],
    ) -> Result<Self, InputError> {
        Ok(Filter {
            include: Patterns::new(include)?,
            exclude: Patterns::new(exclude)?,
            extensions: extensions
                .iter()
                .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
                .collect(),
        })
    }

    /// A filter by extension only (no globs, so it cannot fail).
    pub(crate) fn for_extensions(extensions: &[String]) -> Self {
        let none = || Patterns {
            by_name: GlobSet::empty(),
            by_path: GlobSet::empty(),
            empty: true,
        };
        Filter {
            include: none(),
            exclude: none(),
            extensions: extensions
                .iter()
                .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
                .collect(),
        }
    }

    /// Whether the include and exclude globs take the file at `path`
    /// (relative, `/`-separated).
    pub(crate) fn globs_accept(&self, path: &str) -> bool {
        (self.include.empty || self.include.matches(path)) && !self.exclude.matches(path)
    }

    /// Whether an exclude glob matches `path`.
    pub(crate) fn excluded(&self, path: &str) -> bool {
        self.exclude.matches(path)
    }

    /// How the file name at the end of `path` fares against the extension
    /// list. With an empty list every file is [`Extension::Listed`].
    pub(crate) fn extension<'p>(&self, path: &'p str) -> Extension<'p> {
        let name = path.rsplit('/').next().unwrap_or(path);
        match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => {
                if self.extensions.is_empty()
                    || self.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
                {
                    Extension::Listed
                } else {
                    Extension::Other(ext)
                }
            }
            _ => Extension::None,
        }
    }
}

/// A file name's extension compared with the extension list.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Extension<'p> {
    /// One of the listed extensions (or the list is empty).
    Listed,
    /// No extension at all (`Makefile`, a script with a shebang, `.bashrc`).
    None,
    /// Another extension, as written in the name.
    Other(&'p str),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(include: &[&str], exclude: &[&str], ext: &[&str]) -> Filter {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Filter::new(&v(include), &v(exclude), &v(ext)).unwrap()
    }

    #[test]
    fn name_patterns_match_at_any_depth() {
        let f = filter(&["*.py"], &["test_*"], &[]);
        assert!(f.globs_accept("alice/src/main.py"));
        assert!(f.globs_accept("main.py"));
        assert!(!f.globs_accept("alice/test_main.py"));
        assert!(!f.globs_accept("alice/main.c"));
        assert!(f.excluded("alice/test_main.py"));
        assert!(!f.excluded("alice/main.c"));
    }

    #[test]
    fn path_patterns_match_the_relative_path() {
        let f = filter(&[], &["build/**", "**/vendor/**"], &[]);
        assert!(!f.globs_accept("build/x.c"));
        assert!(f.globs_accept("alice/build/x.c"));
        assert!(!f.globs_accept("alice/vendor/lib/x.c"));
        assert!(f.globs_accept("alice/x.c"));
    }

    #[test]
    fn extensions_ignore_case_and_dots() {
        let f = filter(&[], &[], &[".java", "JAV"]);
        assert_eq!(f.extension("a/Main.JAVA"), Extension::Listed);
        assert_eq!(f.extension("a/x.jav"), Extension::Listed);
        assert_eq!(f.extension("a/java"), Extension::None);
        assert_eq!(f.extension("a/.java"), Extension::None);
        assert_eq!(f.extension("a.b/run"), Extension::None);
        assert_eq!(f.extension("a/x.CLASS"), Extension::Other("CLASS"));
        // The globs do not look at the extension list.
        assert!(f.globs_accept("a/x.class"));
        // With no list every extension is taken.
        let f = filter(&[], &[], &[]);
        assert_eq!(f.extension("a/x.class"), Extension::Listed);
        assert_eq!(f.extension("a/Makefile"), Extension::None);
    }

    #[test]
    fn bad_glob_is_an_error() {
        let err = Filter::new(&["a[".into()], &[], &[]).err().unwrap();
        assert!(err.to_string().starts_with("invalid glob \"a[\""), "{err}");
    }
}
