//! The MOSS wire protocol as a pure state machine: bytes in, [`Event`]s
//! out. No I/O, no clock: the server feeds it what it reads and acts on
//! the events; the fuzz target feeds it anything.
//!
//! ```text
//! moss <userid>
//! directory <0|1>
//! X <0|1>
//! maxmatches <int>
//! show <int>
//! language <name>                  → the server answers "yes" or "no"
//! file <id> <lang> <size> <name>   then exactly <size> raw bytes
//! query 0 <comment>                → the server answers the URL or "Error: …"
//! end
//! ```
//!
//! Clients differ in what they send (see the crate documentation); every
//! departure from the grammar ends in a [`ProtocolError`], whose text is
//! the `Error:` line sent back. Nothing here panics on any input.

use std::fmt;

/// The `maxmatches` that moss.pl and mosspy send when their user gave no
/// `-m`: read as bryo's default rule, not as MOSS's `-m 10`.
pub const CLIENT_DEFAULT_MAXMATCHES: u32 = 10;

/// Bounds on what one connection may send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest command line, in bytes, without its `\n`.
    pub max_line_bytes: usize,
    /// Largest declared size of one file.
    pub max_file_bytes: u64,
    /// Largest total of the files of one job.
    pub max_job_bytes: u64,
    /// Most files (base and submission files together) in one job.
    pub max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_line_bytes: 4096,
            max_file_bytes: 4 << 20,
            max_job_bytes: 64 << 20,
            max_files: 5000,
        }
    }
}

/// One file as the client sent it.
#[derive(Clone, PartialEq, Eq)]
pub struct UploadedFile {
    /// 0 for base code, 1, 2, … for submission files.
    pub id: u32,
    /// The language the client named on the `file` line.
    pub language: String,
    /// The name as sent (the rest of the `file` line after the size).
    pub name: String,
    /// Exactly the declared number of bytes.
    pub bytes: Vec<u8>,
}

impl fmt::Debug for UploadedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UploadedFile")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("bytes", &format_args!("[{} bytes]", self.bytes.len()))
            .finish()
    }
}

/// Everything a client sent up to its `query` line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Upload {
    /// The `moss` line's user id.
    pub user_id: u64,
    /// `directory 1` (MOSS `-d`).
    pub directory: bool,
    /// `maxmatches` (MOSS `-m`), if sent.
    pub max_matches: Option<u32>,
    /// `show` (MOSS `-n`), if sent.
    pub show: Option<u32>,
    /// `language`, if sent (MOSS's default is `c`).
    pub language: Option<String>,
    /// The `query` line's comment, possibly empty.
    pub comment: String,
    /// Base files (id 0) and submission files, in the order received.
    pub files: Vec<UploadedFile>,
    /// The id of the user's archive of past terms to compare against (the
    /// API and the web UI; the protocol has no way to name one).
    pub archive: Option<String>,
}

/// What the server must do after a piece of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The `moss` line arrived: the server checks the user id.
    User(u64),
    /// A `language` line arrived: answer `yes` or `no` at once.
    Language(String),
    /// The `query` line arrived: run the job and answer its URL.
    Query(Upload),
    /// The client said `end`.
    End,
}

/// Why a connection is refused; `Display` is the `Error:` line's text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A line longer than [`Limits::max_line_bytes`].
    LineTooLong {
        /// The limit.
        limit: usize,
    },
    /// A line that is not UTF-8 text (binary data where a command belongs).
    NotText,
    /// A command other than `moss` first.
    MissingMoss,
    /// A command this protocol does not have.
    UnknownCommand {
        /// Its first word, shortened.
        command: String,
        /// The file just read, when a wrong declared size is the likely cause.
        after_file: Option<(String, u64)>,
    },
    /// A command with missing or malformed arguments.
    BadArguments {
        /// The command.
        command: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// A file's declared size is over the per-file limit.
    FileTooLarge {
        /// The file name.
        name: String,
        /// Declared size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The job's files together are over the per-job limit.
    JobTooLarge {
        /// The limit.
        limit: u64,
    },
    /// More files than the per-job limit.
    TooManyFiles {
        /// The limit.
        limit: usize,
    },
    /// A command after `query` other than `end`.
    AfterQuery,
    /// The connection ended in the middle of a file.
    EofInFile {
        /// The file name.
        name: String,
        /// Declared size.
        declared: u64,
        /// Bytes received.
        received: u64,
    },
    /// The connection ended in the middle of a command line.
    EofInLine,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::LineTooLong { limit } => {
                write!(f, "a command line is longer than {limit} bytes")
            }
            ProtocolError::NotText => write!(f, "a command line is not text (binary data?)"),
            ProtocolError::MissingMoss => {
                write!(f, "the first line must be `moss <userid>`")
            }
            ProtocolError::UnknownCommand {
                command,
                after_file,
            } => {
                write!(f, "unknown command `{command}`")?;
                if let Some((name, size)) = after_file {
                    write!(
                        f,
                        " after file {name}: its declared size ({size} bytes) does not match the bytes sent"
                    )?;
                }
                Ok(())
            }
            ProtocolError::BadArguments { command, expected } => {
                write!(f, "bad `{command}` line: expected `{command} {expected}`")
            }
            ProtocolError::FileTooLarge { name, size, limit } => write!(
                f,
                "file {name} declares {size} bytes; this server takes at most {limit} bytes per file"
            ),
            ProtocolError::JobTooLarge { limit } => write!(
                f,
                "the files of this job exceed {limit} bytes, this server's limit per job"
            ),
            ProtocolError::TooManyFiles { limit } => write!(
                f,
                "more than {limit} files in one job, this server's limit"
            ),
            ProtocolError::AfterQuery => write!(f, "only `end` may follow `query`"),
            ProtocolError::EofInFile {
                name,
                declared,
                received,
            } => write!(
                f,
                "the connection ended after {received} of the {declared} bytes declared for file {name}"
            ),
            ProtocolError::EofInLine => {
                write!(f, "the connection ended in the middle of a command line")
            }
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Where the parser is.
#[derive(Debug)]
enum State {
    /// Reading command lines.
    Lines,
    /// Reading a file's bytes.
    File { file: UploadedFile, declared: u64 },
    /// `query` was answered; only `end` may come.
    Queried,
    /// `end` arrived or an error was returned: input is ignored.
    Closed,
}

/// One connection's parser.
///
/// ```
/// use bryo_serve::{Event, Limits, Session};
///
/// let mut s = Session::new(Limits::default());
/// let events = s
///     .feed(b"moss 42\nlanguage python\nfile 1 python 3 a.py\nx=1file 2 python 0 b.py\nquery 0 \n")
///     .unwrap();
/// assert_eq!(events[0], Event::User(42));
/// assert_eq!(events[1], Event::Language("python".into()));
/// let Event::Query(upload) = &events[2] else { panic!() };
/// assert_eq!(upload.files.len(), 2);
/// assert_eq!(upload.files[0].bytes, b"x=1");
/// ```
#[derive(Debug)]
pub struct Session {
    limits: Limits,
    state: State,
    /// Bytes of an unfinished command line.
    line: Vec<u8>,
    upload: Upload,
    seen_moss: bool,
    bytes: u64,
    files_seen: usize,
    /// When set, file bytes are counted but not kept (a refused user).
    discard: bool,
    /// The file read just before, for the size-mismatch hint.
    last_file: Option<(String, u64)>,
}

impl Session {
    /// A parser for a new connection.
    pub fn new(limits: Limits) -> Session {
        Session {
            limits,
            state: State::Lines,
            line: Vec::new(),
            upload: Upload::default(),
            seen_moss: false,
            bytes: 0,
            files_seen: 0,
            discard: false,
            last_file: None,
        }
    }

    /// Keep reading the protocol but drop file contents (the user was
    /// refused; the refusal is answered at `query`).
    pub fn discard_files(&mut self) {
        self.discard = true;
    }

    /// Whether the client has sent `end` (or the session failed): nothing
    /// more is expected.
    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed)
    }

    /// Whether the query was received (and so answered): what may follow
    /// is only `end`.
    pub fn is_answered(&self) -> bool {
        matches!(self.state, State::Queried)
    }

    /// What the client was doing, for a timeout message.
    pub fn waiting_for(&self) -> String {
        match &self.state {
            State::File { file, declared } => format!(
                "while reading file {} ({} of {declared} bytes received; does the declared size match the bytes sent?)",
                file.name,
                file.bytes.len()
            ),
            State::Queried => "after the query".to_string(),
            _ if !self.seen_moss => "before the `moss` line".to_string(),
            _ => "between commands".to_string(),
        }
    }

    /// Takes the next bytes of the connection; returns what happened. An
    /// error closes the session: later input is ignored.
    pub fn feed(&mut self, mut data: &[u8]) -> Result<Vec<Event>, ProtocolError> {
        let mut events = Vec::new();
        while !data.is_empty() {
            match &mut self.state {
                State::Closed => break,
                State::File { file, declared } => {
                    let missing = (*declared as usize).saturating_sub(file.bytes.len());
                    let take = missing.min(data.len());
                    if self.discard {
                        // Counted down instead of kept.
                        *declared -= take as u64;
                    } else {
                        file.bytes.extend_from_slice(&data[..take]);
                    }
                    data = &data[take..];
                    let complete = if self.discard {
                        *declared == 0
                    } else {
                        file.bytes.len() as u64 == *declared
                    };
                    if complete {
                        let State::File { file, declared } =
                            std::mem::replace(&mut self.state, State::Lines)
                        else {
                            unreachable!("state checked above")
                        };
                        let size = if self.discard {
                            file.bytes.len() as u64
                        } else {
                            declared
                        };
                        self.last_file = Some((file.name.clone(), size));
                        if !self.discard {
                            self.upload.files.push(file);
                        }
                    }
                }
                State::Lines | State::Queried => {
                    let Some(end) = data.iter().position(|&b| b == b'\n') else {
                        self.line.extend_from_slice(data);
                        if self.line.len() > self.limits.max_line_bytes {
                            return self.fail(ProtocolError::LineTooLong {
                                limit: self.limits.max_line_bytes,
                            });
                        }
                        break;
                    };
                    self.line.extend_from_slice(&data[..end]);
                    data = &data[end + 1..];
                    if self.line.len() > self.limits.max_line_bytes {
                        return self.fail(ProtocolError::LineTooLong {
                            limit: self.limits.max_line_bytes,
                        });
                    }
                    let line = std::mem::take(&mut self.line);
                    match self.command(&line) {
                        Ok(Some(event)) => events.push(event),
                        Ok(None) => {}
                        Err(e) => return self.fail(e),
                    }
                    if matches!(events.last(), Some(Event::End)) {
                        self.state = State::Closed;
                    }
                }
            }
        }
        Ok(events)
    }

    /// The connection was closed by the client: an error if it stopped in
    /// the middle of something.
    pub fn finish(&mut self) -> Result<(), ProtocolError> {
        let result = match &self.state {
            State::File { file, declared } => Err(ProtocolError::EofInFile {
                name: file.name.clone(),
                declared: *declared,
                received: file.bytes.len() as u64,
            }),
            State::Lines | State::Queried if !self.line.is_empty() => Err(ProtocolError::EofInLine),
            _ => Ok(()),
        };
        self.state = State::Closed;
        result
    }

    fn fail<T>(&mut self, e: ProtocolError) -> Result<T, ProtocolError> {
        self.state = State::Closed;
        self.line = Vec::new();
        self.upload = Upload::default();
        Err(e)
    }

    fn command(&mut self, line: &[u8]) -> Result<Option<Event>, ProtocolError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = std::str::from_utf8(line).map_err(|_| ProtocolError::NotText)?;
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        if matches!(self.state, State::Queried) {
            return match word {
                "end" => Ok(Some(Event::End)),
                _ => Err(ProtocolError::AfterQuery),
            };
        }
        if !self.seen_moss && word != "moss" {
            return Err(ProtocolError::MissingMoss);
        }
        let after_file = self.last_file.take();
        match word {
            "moss" => {
                let id = rest
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| ProtocolError::BadArguments {
                        command: "moss",
                        expected: "<decimal user id>",
                    })?;
                self.seen_moss = true;
                self.upload.user_id = id;
                Ok(Some(Event::User(id)))
            }
            "directory" => {
                self.upload.directory = flag(rest, "directory")?;
                Ok(None)
            }
            "X" => {
                flag(rest, "X")?;
                Ok(None)
            }
            "maxmatches" => {
                // Every moss.pl and mosspy sends 10 unless its user passed
                // -m, so 10 cannot be told from the client's default: it
                // means bryo's default rule (the rarity rule), any other
                // value MOSS's -m.
                let n = number(rest, "maxmatches")?;
                self.upload.max_matches = (n != CLIENT_DEFAULT_MAXMATCHES).then_some(n);
                Ok(None)
            }
            "show" => {
                self.upload.show = Some(number(rest, "show")?);
                Ok(None)
            }
            "language" => {
                let name = rest.trim();
                if name.is_empty() || name.contains(' ') {
                    return Err(ProtocolError::BadArguments {
                        command: "language",
                        expected: "<name>",
                    });
                }
                self.upload.language = Some(name.to_string());
                Ok(Some(Event::Language(name.to_string())))
            }
            "file" => {
                self.file(rest)?;
                Ok(None)
            }
            "query" => {
                let comment = match rest.split_once(' ') {
                    Some(("0", comment)) => comment,
                    None if rest == "0" => "",
                    _ => {
                        return Err(ProtocolError::BadArguments {
                            command: "query",
                            expected: "0 <comment>",
                        })
                    }
                };
                self.upload.comment = comment.to_string();
                self.state = State::Queried;
                Ok(Some(Event::Query(std::mem::take(&mut self.upload))))
            }
            "end" => Ok(Some(Event::End)),
            _ => {
                let command: String = word.chars().take(40).collect();
                Err(ProtocolError::UnknownCommand {
                    command,
                    after_file,
                })
            }
        }
    }

    fn file(&mut self, rest: &str) -> Result<(), ProtocolError> {
        const EXPECTED: &str = "<id> <language> <size> <name>";
        let bad = || ProtocolError::BadArguments {
            command: "file",
            expected: EXPECTED,
        };
        let mut parts = rest.splitn(4, ' ');
        let id = parts
            .next()
            .and_then(|s| s.parse::<u32>().ok())
            .ok_or_else(bad)?;
        let language = parts.next().filter(|s| !s.is_empty()).ok_or_else(bad)?;
        let size = parts
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(bad)?;
        let name = parts
            .next()
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(bad)?;
        if self.files_seen >= self.limits.max_files {
            return Err(ProtocolError::TooManyFiles {
                limit: self.limits.max_files,
            });
        }
        if size > self.limits.max_file_bytes {
            return Err(ProtocolError::FileTooLarge {
                name: name.to_string(),
                size,
                limit: self.limits.max_file_bytes,
            });
        }
        self.files_seen += 1;
        self.bytes += size;
        if self.bytes > self.limits.max_job_bytes {
            return Err(ProtocolError::JobTooLarge {
                limit: self.limits.max_job_bytes,
            });
        }
        let file = UploadedFile {
            id,
            language: language.to_string(),
            name: name.to_string(),
            bytes: Vec::with_capacity(if self.discard { 0 } else { size as usize }),
        };
        if size == 0 {
            self.last_file = Some((file.name.clone(), 0));
            if !self.discard {
                self.upload.files.push(file);
            }
        } else {
            self.state = State::File {
                file,
                declared: size,
            };
        }
        Ok(())
    }
}

fn flag(rest: &str, command: &'static str) -> Result<bool, ProtocolError> {
    match rest.trim() {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(ProtocolError::BadArguments {
            command,
            expected: "<0|1>",
        }),
    }
}

fn number(rest: &str, command: &'static str) -> Result<u32, ProtocolError> {
    rest.trim()
        .parse::<u32>()
        .map_err(|_| ProtocolError::BadArguments {
            command,
            expected: "<non-negative integer>",
        })
}

/// The token of a `query` comment that names an archive of past terms:
/// `bryo:against=NAME`, or `bryo:against="NAME WITH SPACES"`.
pub const AGAINST: &str = "bryo:against=";

/// Splits a `query` comment into the comment to keep and the archive name
/// its [`AGAINST`] token gives, if any; the token and the spaces around
/// it are taken out. `Err` says what is wrong with the token.
pub fn against_archive(comment: &str) -> Result<(String, Option<String>), String> {
    let Some(at) = comment.find(AGAINST) else {
        return Ok((comment.to_string(), None));
    };
    let rest = &comment[at + AGAINST.len()..];
    let (name, after) = if let Some(quoted) = rest.strip_prefix('"') {
        let Some(end) = quoted.find('"') else {
            return Err(format!("the comment's {AGAINST}\"… has no closing quote."));
        };
        (&quoted[..end], &quoted[end + 1..])
    } else {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        (&rest[..end], &rest[end..])
    };
    if name.trim().is_empty() {
        return Err(format!(
            "the comment's {AGAINST} names no archive ({AGAINST}NAME, or {AGAINST}\"NAME\" for a name with spaces)."
        ));
    }
    if after.contains(AGAINST) {
        return Err(format!(
            "the comment names more than one archive with {AGAINST}."
        ));
    }
    let before = comment[..at].trim_end();
    let after = after.trim_start();
    let kept = match (before.is_empty(), after.is_empty()) {
        (false, false) => format!("{before} {after}"),
        _ => format!("{before}{after}"),
    };
    Ok((kept, Some(name.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8]) -> (Vec<Event>, Result<(), ProtocolError>) {
        let mut s = Session::new(Limits {
            max_files: 3,
            ..Limits::default()
        });
        let mut events = Vec::new();
        // One byte at a time: chunk boundaries must not matter.
        for b in input {
            match s.feed(std::slice::from_ref(b)) {
                Ok(e) => events.extend(e),
                Err(e) => return (events, Err(e)),
            }
        }
        let end = s.finish();
        (events, end)
    }

    #[test]
    fn a_whole_session() {
        let (events, end) = run(
            b"moss 7\ndirectory 1\nX 0\nmaxmatches 10\nshow 250\nlanguage c\n\
              file 0 c 2 base.c\nabfile 1 c 3 a dir/x y.c\nxyzquery 0 my comment\nend\n",
        );
        end.unwrap();
        assert_eq!(events.len(), 4);
        let Event::Query(u) = &events[2] else {
            panic!("{events:?}")
        };
        assert!(u.directory);
        assert_eq!(u.max_matches, None, "10 is the clients' default");
        assert_eq!(u.show, Some(250));
        assert_eq!(u.comment, "my comment");
        assert_eq!(u.files[1].name, "a dir/x y.c");
        assert_eq!(u.files[1].bytes, b"xyz");
        assert_eq!(events[3], Event::End);
    }

    #[test]
    fn maxmatches_other_than_the_clients_default_is_mosss_rule() {
        for (sent, meant) in [(0, Some(0)), (5, Some(5)), (10, None), (11, Some(11))] {
            let (events, _) = run(format!("moss 1\nmaxmatches {sent}\nquery 0 \n").as_bytes());
            let Event::Query(u) = &events[1] else {
                panic!("{events:?}")
            };
            assert_eq!(u.max_matches, meant, "maxmatches {sent}");
        }
    }

    #[test]
    fn empty_comment_and_crlf() {
        let (events, _) = run(b"moss 1\r\nquery 0 \r\n");
        let Event::Query(u) = &events[1] else {
            panic!()
        };
        assert_eq!(u.comment, "");
        let (events, _) = run(b"moss 1\nquery 0\n");
        assert!(matches!(events[1], Event::Query(_)));
    }

    #[test]
    fn refusals() {
        let cases: &[(&[u8], &str)] = &[
            (b"hello\n", "the first line must be"),
            (b"moss x\n", "bad `moss` line"),
            (b"moss 1\nfrobnicate\n", "unknown command `frobnicate`"),
            (b"moss 1\nfile 1 c -5 a.c\n", "bad `file` line"),
            (
                b"moss 1\nfile 1 c 99999999999999999999999 a.c\n",
                "bad `file` line",
            ),
            (
                b"moss 1\nfile 1 c 999999999 a.c\n",
                "at most 4194304 bytes per file",
            ),
            (b"moss 1\nfile 1 c 10 a.c\nabc", "after 3 of the 10 bytes"),
            (
                b"moss 1\nfile 1 c 2 a.c\nabc\nquery 0 \n",
                "declared size (2 bytes)",
            ),
            (b"moss 1\n\xff\xfe\x00\n", "not text"),
            (b"moss 1\nquery 0 \nfile 1 c 1 a\n", "only `end`"),
            (b"moss 1\nlang", "middle of a command line"),
            (
                b"moss 1\nfile 1 c 0 a\nfile 1 c 0 b\nfile 1 c 0 c\nfile 1 c 0 d\n",
                "more than 3 files",
            ),
        ];
        for (input, expected) in cases {
            let (_, end) = run(input);
            let err = end.expect_err(&String::from_utf8_lossy(input)).to_string();
            assert!(err.contains(expected), "{input:?}: {err}");
        }
        let mut s = Session::new(Limits::default());
        let long = vec![b'a'; 5000];
        assert!(matches!(
            s.feed(&long),
            Err(ProtocolError::LineTooLong { .. })
        ));
    }

    #[test]
    fn discarded_files_are_read_but_not_kept() {
        let mut s = Session::new(Limits::default());
        s.feed(b"moss 1\n").unwrap();
        s.discard_files();
        let events = s.feed(b"file 1 c 3 a.c\nabcquery 0 \n").unwrap();
        let Event::Query(u) = &events[0] else {
            panic!()
        };
        assert!(u.files.is_empty());
    }

    #[test]
    fn the_against_token_is_taken_out_of_the_comment() {
        let cases = [
            ("hw3", ("hw3", None)),
            ("", ("", None)),
            ("bryo:against=cs1-2025", ("", Some("cs1-2025"))),
            ("hw3 bryo:against=cs1-2025", ("hw3", Some("cs1-2025"))),
            ("hw3 bryo:against=cs1 fall", ("hw3 fall", Some("cs1"))),
            ("bryo:against=\"CS1 2025\" hw3", ("hw3", Some("CS1 2025"))),
            ("a  bryo:against=\"x\"  b", ("a b", Some("x"))),
        ];
        for (comment, (kept, name)) in cases {
            assert_eq!(
                against_archive(comment).unwrap(),
                (kept.to_string(), name.map(str::to_string)),
                "{comment}"
            );
        }
        for bad in [
            "bryo:against=",
            "bryo:against= x",
            "bryo:against=\"",
            "bryo:against=\"\"",
            "bryo:against=\"CS1 2025",
            "bryo:against=a bryo:against=b",
        ] {
            let err = against_archive(bad).unwrap_err();
            assert!(err.contains("bryo:against="), "{bad}: {err}");
        }
    }
}
