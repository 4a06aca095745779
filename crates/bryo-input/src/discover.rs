use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, BufReader, Read};
use std::path::{Component, Path, PathBuf};

use ignore::WalkBuilder;
use rayon::prelude::*;

use crate::filter::{Extension, Filter};
use crate::{
    InputError, InputFile, InputOptions, Inputs, SkipReason, SkippedInput, Source, Submission,
};

/// Finds every file to compare and groups them into submissions.
///
/// Order is deterministic: roots in the order given (`roots`, then
/// `files_from`), entries of a directory or archive sorted by path, new
/// submissions before old ones. Directories are walked like ripgrep does:
/// `.gitignore`, `.ignore` and `.git/info/exclude` rules are respected (also
/// outside a git repository; the user's global git excludes are not read, so
/// results do not depend on the machine), hidden files and directories are
/// left out, and symbolic links are not followed. Zip archives, named as a
/// path or found while walking a directory, are read like directories
/// (hidden entries and `__MACOSX/` are left out; ignore files inside an
/// archive are not applied; a `.zip` entry is skipped, not opened). An
/// archive found in a directory is matched by exclude globs only (include
/// globs select the files inside it); its entries are matched by their path
/// below the root, e.g. `alice.zip/src/main.py`.
///
/// The extension list filters only files found in a directory or archive;
/// see [`InputOptions::extensions`].
///
/// A file is read once: if two roots reach the same file, or a base path
/// reaches a file under a root, it is kept where it was met first (base code
/// first, then old roots, then new ones) and listed as skipped elsewhere.
///
/// # Errors
///
/// Only paths the user named stop discovery: one that does not exist or
/// cannot be read, an archive that cannot be opened, an invalid glob.
/// Problems with files found inside them are listed in
/// [`Inputs::skipped`] with the reason.
pub fn discover(options: &InputOptions) -> Result<Inputs, InputError> {
    let filter = Filter::new(&options.include, &options.exclude, &options.extensions)?;
    let named = || {
        options
            .base
            .iter()
            .chain(&options.old)
            .chain(&options.roots)
            .chain(&options.files_from)
    };
    // Check every named path before reading anything, so a typo fails fast.
    for path in named() {
        if let Err(source) = fs::metadata(path) {
            return Err(if source.kind() == io::ErrorKind::NotFound {
                InputError::NotFound { path: path.clone() }
            } else {
                InputError::Unreadable {
                    path: path.clone(),
                    source,
                }
            });
        }
    }

    let mut d = Discovery {
        options,
        filter,
        claimed: HashMap::new(),
        skipped: Vec::new(),
    };
    let mut base = Vec::new();
    for path in &options.base {
        base.extend(d.gather(path, Role::Base)?.into_iter().map(|(_, f)| f));
    }
    let mut old = Groups::default();
    for path in &options.old {
        for (name, file) in d.gather(path, Role::Old)? {
            old.add(name, file);
        }
    }
    let mut new = Groups::default();
    for path in options.roots.iter().chain(&options.files_from) {
        for (name, file) in d.gather(path, Role::New)? {
            new.add(name, file);
        }
    }
    let mut submissions = new.finish(false);
    submissions.extend(old.finish(true));
    Ok(Inputs {
        submissions,
        base,
        skipped: d.skipped,
    })
}

/// The directory walker of every bryo command: `.gitignore`, `.ignore` and
/// `.git/info/exclude` rules (also outside a git repository, never the
/// user's global excludes), hidden files left out, links not followed,
/// entries sorted by name.
pub(crate) fn walker(root: &Path) -> ignore::Walk {
    WalkBuilder::new(root)
        .standard_filters(true)
        .require_git(false)
        .git_global(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
}

/// Which list the files of a named path go to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Base,
    Old,
    New,
}

/// Identity of a file, to read each one once.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    /// Device and inode: cheaper than resolving the path, and hard links
    /// count as the same file.
    #[cfg(unix)]
    Inode(u64, u64),
    /// The resolved path, where inodes are not available.
    #[cfg(not(unix))]
    File(std::path::PathBuf),
    /// An archive (by key) and an entry name.
    Entry(Box<Key>, String),
}

/// The identity of an open file.
pub(crate) fn file_key(path: &Path, meta: &fs::Metadata) -> Key {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        Key::Inode(meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Key::File(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

struct Discovery<'a> {
    options: &'a InputOptions,
    filter: Filter,
    /// Display path under which each file was first taken.
    claimed: HashMap<Key, String>,
    skipped: Vec<SkippedInput>,
}

/// Files of one named path, each with the name of its submission.
type Gathered = Vec<(String, InputFile)>;

/// Submissions in order of first appearance, merged by name.
#[derive(Default)]
struct Groups {
    list: Vec<Submission>,
    index: HashMap<String, usize>,
}

impl Groups {
    fn add(&mut self, name: String, file: InputFile) {
        let i = *self.index.entry(name.clone()).or_insert_with(|| {
            self.list.push(Submission {
                name,
                old: false,
                files: Vec::new(),
            });
            self.list.len() - 1
        });
        self.list[i].files.push(file);
    }

    fn finish(self, old: bool) -> Vec<Submission> {
        let mut list = self.list;
        for s in &mut list {
            s.old = old;
            s.files.sort_by(|a, b| a.display_path.cmp(&b.display_path));
        }
        list
    }
}

/// Why a zip archive could not be opened as a whole.
enum ArchiveError {
    /// The file cannot be opened.
    Io(io::Error),
    /// It is not a zip archive, or has too many entries.
    Zip(String),
}

/// What to do with one entry met while walking a directory, in walk order.
enum Step {
    /// Record the entry as skipped.
    Skip(String, SkipReason),
    /// Read the zip archive at the path, `rel` below the root.
    Archive(PathBuf, String),
    /// Read the file at `path`, `rel` below the root, shown as `shown`.
    Read {
        path: PathBuf,
        rel: String,
        shown: String,
    },
}

/// A file read with a size limit: its bytes and identity, and for a
/// deferred read its size on disk instead of its bytes; or why not.
type FileRead = Result<(Vec<u8>, Key, Option<u64>), ReadError>;

/// Outcome of reading a file with a size limit.
enum ReadError {
    TooLarge(u64),
    Io(io::Error),
}

impl Discovery<'_> {
    fn skip(&mut self, path: String, reason: SkipReason) {
        self.skipped.push(SkippedInput { path, reason });
    }

    /// Takes the file unless it was taken before; on a repeat, records why
    /// it is skipped here.
    fn claim(&mut self, key: Key, display: &str) -> bool {
        if let Some(first) = self.claimed.get(&key) {
            let first = first.clone();
            self.skip(display.to_owned(), SkipReason::Duplicate { first });
            return false;
        }
        self.claimed.insert(key, display.to_owned());
        true
    }

    fn gather(&mut self, path: &Path, role: Role) -> Result<Gathered, InputError> {
        let unreadable = |source| InputError::Unreadable {
            path: path.to_path_buf(),
            source,
        };
        let meta = fs::metadata(path).map_err(unreadable)?;
        let display = display_root(path);
        if meta.is_dir() {
            Ok(self.walk(path, &display, role))
        } else if is_zip(path) {
            self.archive(path, &display, role)
        } else {
            self.named_file(path, display, role)
        }
    }

    /// The submission a file belongs to, given its path below a root.
    fn group(&self, root_display: &str, rel: &str, role: Role) -> String {
        match rel.split_once('/') {
            Some((top, _)) if self.options.directory_mode && role != Role::Base => {
                join(root_display, top)
            }
            _ => join(root_display, rel),
        }
    }

    fn named_file(
        &mut self,
        path: &Path,
        display: String,
        role: Role,
    ) -> Result<Gathered, InputError> {
        // The user chose this file: the extension list does not apply.
        if !self.filter.globs_accept(&display) {
            self.skip(display, SkipReason::Filtered);
            return Ok(Vec::new());
        }
        let defer = self.options.defer_reading && role != Role::Base;
        let (bytes, key, size_hint) = match read_limited(path, self.options.max_file_size, defer) {
            Ok(read) => read,
            Err(ReadError::TooLarge(size)) => {
                let limit = self.options.max_file_size;
                self.skip(display, SkipReason::TooLarge { size, limit });
                return Ok(Vec::new());
            }
            Err(ReadError::Io(source)) => {
                return Err(InputError::Unreadable {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        if !self.claim(key, &display) {
            return Ok(Vec::new());
        }
        let group = if self.options.directory_mode && role != Role::Base {
            match display.rsplit_once('/') {
                Some(("", _)) => "/".to_owned(),
                Some((parent, _)) => parent.to_owned(),
                None => ".".to_owned(),
            }
        } else {
            display.clone()
        };
        let file = InputFile {
            display_path: display,
            bytes,
            source: Source::File(path.to_path_buf()),
            size_hint,
        };
        Ok(vec![(group, file)])
    }

    /// Walks `root` in two passes: the walk itself (cheap: directory entries
    /// and the filters) records in order what to do with each entry, then
    /// the files are read on all threads, then the steps are applied in walk
    /// order, so that skips, duplicates and groups are the same as reading
    /// one file after the other.
    fn walk(&mut self, root: &Path, display: &str, role: Role) -> Gathered {
        let mut steps = Vec::new();
        let mut tops = TopDirs::default();
        for item in walker(root) {
            let entry = match item {
                Ok(entry) => entry,
                Err(err) => {
                    let SkippedInput { path, reason } = walk_error(root, display, &err);
                    steps.push(Step::Skip(path, reason));
                    continue;
                }
            };
            if entry.depth() == 0 {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let rel = relative(rel);
            let file_type = entry.file_type();
            let is_dir = file_type.is_some_and(|t| t.is_dir());
            tops.see(&rel, is_dir);
            if is_dir {
                continue;
            }
            let shown = join(display, &rel);
            if is_zip(entry.path()) {
                // Include globs are about the files to compare, not the
                // archive holding them; an exclude glob can leave it out.
                if self.filter.excluded(&rel) {
                    continue;
                }
                if file_type.is_some_and(|t| t.is_symlink()) {
                    steps.push(Step::Skip(shown, SkipReason::Symlink));
                } else if !file_type.is_some_and(|t| t.is_file()) {
                    steps.push(Step::Skip(shown, SkipReason::NotAFile));
                } else {
                    steps.push(Step::Archive(entry.into_path(), rel));
                }
                continue;
            }
            if !self.filter.globs_accept(&rel) {
                continue;
            }
            if let Extension::Other(ext) = self.filter.extension(&rel) {
                let extension = ext.to_owned();
                steps.push(Step::Skip(shown, SkipReason::OtherExtension { extension }));
                continue;
            }
            tops.fill(&rel);
            if file_type.is_some_and(|t| t.is_symlink()) {
                steps.push(Step::Skip(shown, SkipReason::Symlink));
                continue;
            }
            if !file_type.is_some_and(|t| t.is_file()) {
                steps.push(Step::Skip(shown, SkipReason::NotAFile));
                continue;
            }
            steps.push(Step::Read {
                path: entry.into_path(),
                rel,
                shown,
            });
        }

        let limit = self.options.max_file_size;
        let defer = self.options.defer_reading && role != Role::Base;
        let reads: Vec<Option<FileRead>> = steps
            .par_iter()
            .map(|step| match step {
                Step::Read { path, .. } => Some(read_limited(path, limit, defer)),
                _ => None,
            })
            .collect();

        let mut out = Vec::new();
        for (step, read) in steps.into_iter().zip(reads) {
            match step {
                Step::Skip(path, reason) => self.skip(path, reason),
                Step::Archive(path, rel) => {
                    self.walked_archive(&path, display, &rel, role, &mut tops, &mut out);
                }
                Step::Read { path, rel, shown } => {
                    let Some(read) = read else { continue };
                    let (bytes, key, size_hint) = match read {
                        Ok(read) => read,
                        Err(ReadError::TooLarge(size)) => {
                            self.skip(shown, SkipReason::TooLarge { size, limit });
                            continue;
                        }
                        Err(ReadError::Io(e)) => {
                            let message = e.to_string();
                            self.skip(shown, SkipReason::Unreadable { message });
                            continue;
                        }
                    };
                    if !self.claim(key, &shown) {
                        continue;
                    }
                    let group = self.group(display, &rel, role);
                    out.push((
                        group,
                        InputFile {
                            display_path: shown,
                            bytes,
                            source: Source::File(path),
                            size_hint,
                        },
                    ));
                }
            }
        }
        self.report_empty(tops, display, role);
        // Sorted by path, as archive entries are: `a.py` before `a/b.py`.
        out.sort_by(|a, b| a.1.display_path.cmp(&b.1.display_path));
        out
    }

    /// A zip archive named directly: a root, grouped like a directory.
    fn archive(&mut self, path: &Path, display: &str, role: Role) -> Result<Gathered, InputError> {
        let mut tops = TopDirs::default();
        let files = self
            .archive_files(path, display, "", &mut tops)
            .map_err(|e| match e {
                ArchiveError::Io(source) => InputError::Unreadable {
                    path: path.to_path_buf(),
                    source,
                },
                ArchiveError::Zip(message) => InputError::Archive {
                    path: path.to_path_buf(),
                    message,
                },
            })?;
        let out = files
            .into_iter()
            .map(|(rel, file)| (self.group(display, &rel, role), file))
            .collect();
        self.report_empty(tops, display, role);
        Ok(out)
    }

    /// A zip archive met while walking the root shown as `display`, at `rel`
    /// below it: an entry of the root, grouped like a directory. Its files
    /// go to `out`; if it cannot be opened it is skipped with the reason.
    fn walked_archive(
        &mut self,
        path: &Path,
        display: &str,
        rel: &str,
        role: Role,
        tops: &mut TopDirs,
        out: &mut Gathered,
    ) {
        match self.archive_files(path, display, rel, tops) {
            Ok(files) => {
                // With directory mode an archive right under the root is a
                // submission: say so if nothing in it is left.
                tops.see(rel, true);
                for (rel, file) in files {
                    out.push((self.group(display, &rel, role), file));
                }
            }
            Err(ArchiveError::Io(e)) => {
                let message = e.to_string();
                self.skip(join(display, rel), SkipReason::Unreadable { message });
            }
            Err(ArchiveError::Zip(message)) => {
                self.skip(join(display, rel), SkipReason::BadArchive { message });
            }
        }
    }

    /// Reads the entries of the zip archive at `path` that pass the filters
    /// and limits, sorted by name, each with its path below the root shown as
    /// `display`: `prefix/entry`, where `prefix` is the archive's own path
    /// below that root (empty for an archive named directly). Entries left
    /// out are recorded as skipped; the top-level directories met go to
    /// `tops`.
    fn archive_files(
        &mut self,
        path: &Path,
        display: &str,
        prefix: &str,
        tops: &mut TopDirs,
    ) -> Result<Vec<(String, InputFile)>, ArchiveError> {
        let file = File::open(path).map_err(ArchiveError::Io)?;
        let meta = file.metadata().map_err(ArchiveError::Io)?;
        let archive_key = Box::new(file_key(path, &meta));
        let mut zip = zip::ZipArchive::new(BufReader::new(file))
            .map_err(|e| ArchiveError::Zip(e.to_string()))?;
        let limit = self.options.max_archive_entries;
        if zip.len() > limit {
            return Err(ArchiveError::Zip(format!(
                "{} entries, more than the limit of {limit}",
                zip.len()
            )));
        }
        let below_root = |name: &str| {
            if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}/{name}")
            }
        };
        let max_file = self.options.max_file_size;
        let max_total = self.options.max_archive_size;
        let mut total: u64 = 0;
        // (name in the archive, path below the root, bytes)
        let mut taken: Vec<(String, String, Vec<u8>)> = Vec::new();
        for i in 0..zip.len() {
            // The raw name, for messages about entries that cannot be opened.
            let raw_name = match zip.name_for_index(i) {
                Some(Ok(name)) => name.into_owned(),
                _ => format!("entry {i}"),
            };
            let raw_shown = join(display, &below_root(&raw_name));
            let mut entry = match zip.by_index(i) {
                Ok(entry) => entry,
                Err(e) => {
                    let message = e.to_string();
                    self.skip(raw_shown, SkipReason::Unreadable { message });
                    continue;
                }
            };
            let Some(name) = safe_entry_name(&raw_name) else {
                self.skip(raw_shown, SkipReason::UnsafeArchivePath);
                continue;
            };
            if name
                .split('/')
                .any(|c| c.starts_with('.') || c == "__MACOSX")
            {
                continue;
            }
            let rel = below_root(&name);
            tops.see(&rel, entry.is_dir());
            if entry.is_dir() {
                continue;
            }
            let shown = join(display, &rel);
            if is_zip(Path::new(&name)) {
                if !self.filter.excluded(&rel) {
                    self.skip(shown, SkipReason::NestedArchive);
                }
                continue;
            }
            if !self.filter.globs_accept(&rel) {
                continue;
            }
            if let Extension::Other(ext) = self.filter.extension(&rel) {
                let extension = ext.to_owned();
                self.skip(shown, SkipReason::OtherExtension { extension });
                continue;
            }
            tops.fill(&rel);
            if entry.is_symlink() {
                self.skip(shown, SkipReason::Symlink);
                continue;
            }
            let size = entry.size();
            if size > max_file {
                let reason = SkipReason::TooLarge {
                    size,
                    limit: max_file,
                };
                self.skip(shown, reason);
                continue;
            }
            if total.saturating_add(size) > max_total {
                self.skip(shown, SkipReason::ArchiveLimit { limit: max_total });
                continue;
            }
            // The declared size may lie: read at most one byte past the limit.
            let mut bytes = Vec::with_capacity(size as usize);
            if let Err(e) = (&mut entry).take(max_file + 1).read_to_end(&mut bytes) {
                let message = e.to_string();
                self.skip(shown, SkipReason::Unreadable { message });
                continue;
            }
            let len = bytes.len() as u64;
            if len > max_file {
                let reason = SkipReason::TooLarge {
                    size: len,
                    limit: max_file,
                };
                self.skip(shown, reason);
                continue;
            }
            total = total.saturating_add(len);
            if total > max_total {
                self.skip(shown, SkipReason::ArchiveLimit { limit: max_total });
                continue;
            }
            taken.push((name, rel, bytes));
        }
        // Archive order is the archiver's; sort like a directory walk.
        taken.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::with_capacity(taken.len());
        for (name, rel, bytes) in taken {
            let shown = join(display, &rel);
            if !self.claim(Key::Entry(archive_key.clone(), name.clone()), &shown) {
                continue;
            }
            let source = Source::ArchiveEntry {
                archive: path.to_path_buf(),
                entry: name,
            };
            out.push((
                rel,
                InputFile {
                    display_path: shown,
                    bytes,
                    source,
                    size_hint: None,
                },
            ));
        }
        Ok(out)
    }

    /// With directory mode, a directory under a root that offered no file
    /// would vanish from the results: say so.
    fn report_empty(&mut self, tops: TopDirs, display: &str, role: Role) {
        if !self.options.directory_mode || role == Role::Base {
            return;
        }
        for dir in tops.dirs.iter().filter(|d| !tops.filled.contains(*d)) {
            self.skip(join(display, dir), SkipReason::NoFiles);
        }
    }
}

/// The directories directly under a root, and those that hold a file that
/// passed the filters.
#[derive(Default)]
struct TopDirs {
    dirs: BTreeSet<String>,
    filled: HashSet<String>,
}

impl TopDirs {
    fn see(&mut self, rel: &str, is_dir: bool) {
        match rel.split_once('/') {
            Some((top, _)) => {
                self.dirs.insert(top.to_owned());
            }
            None if is_dir => {
                self.dirs.insert(rel.to_owned());
            }
            None => {}
        }
    }

    fn fill(&mut self, rel: &str) {
        if let Some((top, _)) = rel.split_once('/') {
            self.filled.insert(top.to_owned());
        }
    }
}

/// Reads at most `limit` bytes; a bigger file is an error, not a prefix.
/// Returns the bytes and the file's identity. With `defer`, only the
/// file's metadata is read and its size checked (the bytes are empty); a
/// file that cannot be opened is skipped when it is read.
fn read_limited(path: &Path, limit: u64, defer: bool) -> FileRead {
    if defer {
        // One `stat`, not `open`, `fstat` and `close`: the file is opened
        // once, when it is read.
        let meta = fs::metadata(path).map_err(ReadError::Io)?;
        if meta.len() > limit {
            return Err(ReadError::TooLarge(meta.len()));
        }
        return Ok((Vec::new(), file_key(path, &meta), Some(meta.len())));
    }
    let file = File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    let size = meta.len();
    if size > limit {
        return Err(ReadError::TooLarge(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // The file may grow while we read it.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, file_key(path, &meta), None))
}

fn is_zip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

/// The path as the user wrote it, `/`-separated, without `.` components
/// or a trailing `/`; `.` for the current directory.
pub(crate) fn display_root(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut absolute = false;
    for c in path.components() {
        match c {
            Component::Prefix(p) => parts.push(p.as_os_str().to_string_lossy().into_owned()),
            Component::RootDir => absolute = true,
            Component::CurDir => {}
            Component::ParentDir => parts.push("..".to_owned()),
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

pub(crate) fn join(root: &str, rel: &str) -> String {
    match root {
        "." | "" => rel.to_owned(),
        "/" => format!("/{rel}"),
        _ => format!("{root}/{rel}"),
    }
}

/// A relative path as `/`-separated text.
pub(crate) fn relative(path: &Path) -> String {
    let parts: Vec<_> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

/// An archive entry's name as a clean `/`-separated relative path; `None`
/// if it is absolute (`/x`, `\\x`, `C:x`) or climbs above the archive's top
/// with `..`. Backslashes count as separators, as some Windows tools write
/// them.
fn safe_entry_name(name: &str) -> Option<String> {
    if name.starts_with(['/', '\\']) || name.split(['/', '\\']).next()?.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    if parts.is_empty() || name.contains('\0') {
        None
    } else {
        Some(parts.join("/"))
    }
}

/// A walk error below `root` (shown as `display`) as the skipped entry it
/// names, or the root itself when it names no path below it.
pub(crate) fn walk_error(root: &Path, display: &str, err: &ignore::Error) -> SkippedInput {
    let (path, message) = split_walk_error(err);
    let path = path
        .and_then(|p| p.strip_prefix(root).ok())
        .map(|rel| join(display, &relative(rel)))
        .unwrap_or_else(|| display.to_owned());
    SkippedInput {
        path,
        reason: SkipReason::Unreadable { message },
    }
}

/// The path an `ignore` error is about, and its message without the path.
fn split_walk_error(err: &ignore::Error) -> (Option<&Path>, String) {
    match err {
        ignore::Error::WithPath { path, err } => (Some(path), split_walk_error(err).1),
        ignore::Error::WithDepth { err, .. } => split_walk_error(err),
        other => (None, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_roots() {
        assert_eq!(display_root(Path::new("subs/")), "subs");
        assert_eq!(display_root(Path::new("./subs")), "subs");
        assert_eq!(display_root(Path::new(".")), ".");
        assert_eq!(display_root(Path::new("./")), ".");
        assert_eq!(display_root(Path::new("/")), "/");
        assert_eq!(display_root(Path::new("/tmp/x/")), "/tmp/x");
        assert_eq!(display_root(Path::new("/tmp/./x")), "/tmp/x");
        assert_eq!(display_root(Path::new("../x")), "../x");
        assert_eq!(join(".", "a.py"), "a.py");
        assert_eq!(join("/", "a.py"), "/a.py");
        assert_eq!(join("subs", "a/b.py"), "subs/a/b.py");
    }

    #[test]
    fn archive_names_stay_inside() {
        assert_eq!(safe_entry_name("a/./b/../c.py").as_deref(), Some("a/c.py"));
        assert_eq!(safe_entry_name("a\\b.py").as_deref(), Some("a/b.py"));
        assert_eq!(safe_entry_name("dir/").as_deref(), Some("dir"));
        assert_eq!(safe_entry_name("../x.py"), None);
        assert_eq!(safe_entry_name("a/../../x.py"), None);
        assert_eq!(safe_entry_name("/etc/passwd"), None);
        assert_eq!(safe_entry_name("\\x"), None);
        assert_eq!(safe_entry_name("C:/x"), None);
        assert_eq!(safe_entry_name("."), None);
    }
}
