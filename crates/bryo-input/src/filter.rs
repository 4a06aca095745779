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

    /// Whether the file at `path` (relative, `/`-separated) is taken.
    pub(crate) fn accepts(&self, path: &str) -> bool {
        if !self.extensions.is_empty() {
            let name = path.rsplit('/').next().unwrap_or(path);
            let ok = match name.rsplit_once('.') {
                Some((stem, ext)) if !stem.is_empty() => {
                    self.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
                }
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        (self.include.empty || self.include.matches(path)) && !self.exclude.matches(path)
    }
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
        assert!(f.accepts("alice/src/main.py"));
        assert!(f.accepts("main.py"));
        assert!(!f.accepts("alice/test_main.py"));
        assert!(!f.accepts("alice/main.c"));
    }

    #[test]
    fn path_patterns_match_the_relative_path() {
        let f = filter(&[], &["build/**", "**/vendor/**"], &[]);
        assert!(!f.accepts("build/x.c"));
        assert!(f.accepts("alice/build/x.c"));
        assert!(!f.accepts("alice/vendor/lib/x.c"));
        assert!(f.accepts("alice/x.c"));
    }

    #[test]
    fn extensions_ignore_case_and_dots() {
        let f = filter(&[], &[], &[".java", "JAV"]);
        assert!(f.accepts("a/Main.JAVA"));
        assert!(f.accepts("a/x.jav"));
        assert!(!f.accepts("a/java"));
        assert!(!f.accepts("a/.java"));
        assert!(!f.accepts("a/x.class"));
    }

    #[test]
    fn bad_glob_is_an_error() {
        let err = Filter::new(&["a[".into()], &[], &[]).err().unwrap();
        assert!(err.to_string().starts_with("invalid glob \"a[\""), "{err}");
    }
}
