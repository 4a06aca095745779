//! `bryo serve` on 127.0.0.1, end to end: real clients (mosspy from PyPI,
//! a Perl client speaking as moss.pl does, raw sockets for hostile input)
//! submit classes; the result pages are fetched and checked against
//! `bryo compare` on the same files; the server is killed with SIGKILL
//! during a job and after one.
//!
//! The mosspy test needs Python with mosspy: `$BRYO_PYTHON`, or
//! `target/venv-serve/bin/python` (`.ci/serve-tests` creates it). It is
//! ignored by default; `cargo test -p bryo-cli --test serve --
//! --include-ignored` runs it and then a missing mosspy is a failure.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BASE: &str =
    "def read_input():\n    import sys\n    return [line.strip() for line in sys.stdin]\n";

/// A running `bryo serve`, killed (SIGKILL) when dropped.
struct Server {
    child: Child,
    moss: SocketAddr,
    http: SocketAddr,
}

impl Server {
    fn start(data: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bryo"));
        cmd.args(["serve", "--data"])
            .arg(data)
            .args(["--http", "127.0.0.1:0", "--moss", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("cannot start bryo serve");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let (mut moss, mut http) = (None, None);
        while moss.is_none() || http.is_none() {
            let line = lines
                .next()
                .expect("bryo serve ended before listening")
                .unwrap();
            if let Some(a) = line.strip_prefix("bryo serve: MOSS protocol on ") {
                moss = Some(a.parse().unwrap());
            }
            if let Some(a) = line.strip_prefix("bryo serve: HTTP on ") {
                http = Some(a.parse().unwrap());
            }
        }
        // Keep draining standard output so the server never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            moss: moss.unwrap(),
            http: http.unwrap(),
        }
    }

    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// GET `path` (or a full URL on this server): status and body.
    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        self.request("GET", path, None, None)
    }

    /// An HTTP/1.1 request with an optional bearer token and body (with
    /// its content type): status and body.
    fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<(&str, &[u8])>,
    ) -> (u16, Vec<u8>) {
        let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n"));
        self.request_with(method, path, auth.as_deref().unwrap_or(""), body)
    }

    /// GET `path` logged in to the web UI with `token` (its cookie).
    fn get_logged_in(&self, path: &str, token: &str) -> (u16, Vec<u8>) {
        self.request_with(
            "GET",
            path,
            &format!("Cookie: bryo_token={token}\r\n"),
            None,
        )
    }

    /// A request with `headers` (lines ending in CRLF) added.
    fn request_with(
        &self,
        method: &str,
        path: &str,
        headers: &str,
        body: Option<(&str, &[u8])>,
    ) -> (u16, Vec<u8>) {
        let path = match path.split_once("://") {
            Some((_, rest)) => &rest[rest.find('/').unwrap()..],
            None => path,
        };
        let mut s = TcpStream::connect(self.http).unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.http
        );
        head.push_str(headers);
        let (ctype, bytes) = body.unwrap_or(("text/plain", b""));
        head.push_str(&format!(
            "Content-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
            bytes.len()
        ));
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(bytes).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..end]).to_string();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let mut body = raw[end + 4..].to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = dechunk(&body);
        }
        (status, body)
    }

    /// A protocol conversation: sends `input`, closes the sending side
    /// unless told not to, returns everything the server answered.
    fn talk(&self, input: &[u8], close: bool) -> String {
        let mut s = TcpStream::connect(self.moss).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        // The server may answer and close before reading everything.
        let _ = s.write_all(input);
        if close {
            let _ = s.shutdown(std::net::Shutdown::Write);
        }
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[eol + 2..eol + 2 + size]);
        body = &body[eol + 4 + size..];
    }
}

/// The user id and token printed by `bryo serve user add`.
fn add_user_with_token(data: &Path, email: &str) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bryo"))
        .args(["serve", "user", "add", email, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let id = lines.next().unwrap().to_string();
    let token = lines
        .next()
        .unwrap()
        .strip_prefix("token ")
        .unwrap()
        .to_string();
    (id, token)
}

fn add_user(data: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bryo"))
        .args(["serve", "user", "add", "teacher@example.edu", "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let id = text.lines().next().unwrap().to_string();
    assert!(id.bytes().all(|b| b.is_ascii_digit()), "{text}");
    id
}

/// A class of `n` Python submissions, `-d` style (`sub/sNN/main.py` and
/// `sub/sNN/util.py`), with the handed-out base code in each, and planted
/// copies: s01 copies s00 with renamed variables, s03 half of s02.
fn class(root: &Path, n: usize) {
    std::fs::write(root.join("base.py"), BASE).unwrap();
    for i in 0..n {
        let dir = root.join(format!("sub/s{i:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        let own = |seed: usize| program(seed as u64);
        let main = match i {
            1 => own(0).replace('x', "y").replace("values", "vals"),
            3 => {
                let a = own(2);
                format!("{}{}", &a[..a.len() / 2], own(3 + 100))
            }
            _ => own(i),
        };
        std::fs::write(dir.join("main.py"), format!("{BASE}{main}")).unwrap();
        std::fs::write(dir.join("util.py"), own(i + 500)).unwrap();
    }
}

/// A Python program of varied structure drawn by a fixed-seed generator.
fn program(seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n) as usize
    };
    const OPS: [&str; 6] = ["+", "-", "*", "//", "%", "**"];
    const CMP: [&str; 6] = ["<", ">", "<=", ">=", "==", "!="];
    let mut out = String::new();
    for j in 0..18 {
        let (o1, o2, c) = (OPS[next(6)], OPS[next(6)], CMP[next(6)]);
        let stmt = match next(8) {
            0 => format!(
                "def f{j}(a, b{}):\n    return a {o1} b {o2} {}\n",
                [", c", ""][next(2)],
                next(9)
            ),
            1 => format!("if x {c} y:\n    z = x {o1} y\nelse:\n    z = y {o2} 1\n"),
            2 => format!("while i {c} n:\n    i = i {o1} {}\n", next(5) + 1),
            3 => format!("data = [v {o1} 2 for v in range(n) if v {c} 3]\n"),
            4 => format!("print(a, b {o1} c, [d{}])\n", [", e", ""][next(2)]),
            5 => format!("class C{j}:\n    def m(self, x):\n        return self.v {o1} x\n"),
            6 => format!("try:\n    r = a {o1} b\nexcept ValueError:\n    r = None\n"),
            _ => format!("result = {{k: v {o1} 2 for k, v in items.items() if v {c} k}}\n"),
        };
        out.push_str(&stmt);
    }
    out
}

/// The rows of MOSS's `index.html`: (name, percent, name, percent, lines).
fn moss_rows(index: &str) -> Vec<(String, String, String, String, u64)> {
    let mut rows = Vec::new();
    for row in index.split("<TR><TD>").skip(1) {
        let cells: Vec<&str> = row.split("<TD").collect();
        assert_eq!(cells.len(), 3, "a row has three cells: {row}");
        let link_text = |cell: &str| -> (String, String) {
            let text = &cell[cell.find('>').unwrap() + 1..cell.find("</A>").unwrap()];
            let text = text.rsplit('>').next().unwrap();
            let (name, pct) = text.rsplit_once(" (").unwrap();
            (name.to_string(), pct.trim_end_matches(')').to_string())
        };
        let (a, ap) = link_text(cells[0]);
        let (b, bp) = link_text(cells[1]);
        let lines = cells[2]
            .split('>')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        rows.push((a, ap, b, bp, lines));
    }
    rows
}

/// The same rows computed from `bryo compare`'s JSON.
fn json_rows(report: &Value) -> Vec<(String, String, String, String, u64)> {
    let subs = report["submissions"].as_array().unwrap();
    let name = |i: &Value| {
        subs[i.as_u64().unwrap() as usize]["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let pct = |p: &Value| {
        format!(
            "{}%",
            (p.as_f64().unwrap() + 1e-9).floor().min(100.0) as u64
        )
    };
    report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                name(&p["a"]),
                pct(&p["a_percent"]),
                name(&p["b"]),
                pct(&p["b_percent"]),
                p["lines_matched"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every page of a MOSS result is there, framed and cross-linked.
fn check_moss_pages(server: &Server, url: &str, pairs: usize) {
    for n in 0..pairs {
        let (status, frame) = server.get(&format!("{url}match{n}.html"));
        assert_eq!(status, 200);
        let frame = String::from_utf8(frame).unwrap();
        assert!(frame.contains(&format!("<FRAME SRC=\"match{n}-top.html\"")));
        let (_, top) = server.get(&format!("{url}match{n}-top.html"));
        let top = String::from_utf8(top).unwrap();
        // MOSS's match table: four cells a row.
        for row in top.split("<TR>").skip(2) {
            assert_eq!(row.matches("<TD>").count(), 4, "{row}");
        }
        for side in 0..2 {
            let (status, page) = server.get(&format!("{url}match{n}-{side}.html"));
            assert_eq!(status, 200);
            let page = String::from_utf8(page).unwrap();
            assert!(page.contains(&format!("HREF=\"match{n}-{}.html#0\"", 1 - side)));
        }
    }
}

fn python() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let py = std::env::var_os("BRYO_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/venv-serve/bin/python"));
    let ok = Command::new(&py)
        .args(["-c", "import mosspy"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

#[test]
#[ignore = "needs Python with mosspy (.ci/serve-tests installs it); run with --include-ignored"]
fn mosspy_with_base_files_and_directories_ranks_like_bryo_compare() {
    let py = python().expect(
        "mosspy not found: python3 -m venv target/venv-serve && target/venv-serve/bin/pip install mosspy",
    );
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let class_dir = tmp.path().join("class");
    std::fs::create_dir_all(&class_dir).unwrap();
    class(&class_dir, 8);
    let user = add_user(&data);
    let server = Server::start(&data, &[], &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/serve/mosspy_client.py");
    let out = Command::new(&py)
        .arg(&script)
        .args([
            &user,
            &server.moss.port().to_string(),
            "python",
            "base.py",
            "sub/*/*.py",
        ])
        .current_dir(&class_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(
        url.starts_with(&format!("http://{}/results/", server.http)),
        "{url}"
    );
    let id = url.trim_end_matches('/').rsplit('/').next().unwrap();
    assert_eq!(id.len(), 32, "128 random bits in hex: {id}");

    let (status, index) = server.get(&url);
    assert_eq!(status, 200);
    let index = String::from_utf8(index).unwrap();
    assert!(index.contains("<TITLE>Moss Results</TITLE>"));

    // bryo compare on the same files, named as mosspy named them.
    let mut files: Vec<String> = Vec::new();
    for i in 0..8 {
        for f in ["main.py", "util.py"] {
            files.push(format!("sub/s{i:02}/{f}"));
        }
    }
    let mut args = vec![
        // mosspy sends `maxmatches 10`, its default: bryo's default rule.
        "compare", "-l", "python", "-d", "-n", "250", "-b", "base.py",
    ];
    args.extend(files.iter().map(String::as_str));
    let expected = support::json_in(&class_dir, &args);
    let rows = moss_rows(&index);
    assert_eq!(rows, json_rows(&expected));
    for planted in [("sub/s00", "sub/s01"), ("sub/s02", "sub/s03")] {
        assert!(
            rows[..2]
                .iter()
                .any(|r| (r.0.as_str(), r.2.as_str()) == planted),
            "{rows:?}"
        );
    }

    // The JSON next to it is the same result.
    let (status, json) = server.get(&format!("{url}result.json"));
    assert_eq!(status, 200);
    let served: Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(served["schema"], expected["schema"]);
    assert_eq!(json_rows(&served), json_rows(&expected));
    let (status, report) = server.get(&format!("{url}report/index.html"));
    assert_eq!(status, 200);
    assert!(String::from_utf8(report).unwrap().contains("sub/s00"));
    check_moss_pages(&server, &url, rows.len());
}

#[test]
fn perl_client_as_moss_pl_sends_it() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let class_dir = tmp.path().join("class");
    std::fs::create_dir_all(&class_dir).unwrap();
    class(&class_dir, 4);
    // A name with blanks, which moss.pl sends with `_`, and non-ASCII
    // text, whose size moss.pl counts in bytes.
    std::fs::rename(class_dir.join("sub/s00"), class_dir.join("sub/s 00")).unwrap();
    let mut main = std::fs::read_to_string(class_dir.join("sub/s01/main.py")).unwrap();
    main.push_str("# überprüft — ✓\n");
    std::fs::write(class_dir.join("sub/s01/main.py"), main).unwrap();
    let user = add_user(&data);
    let server = Server::start(&data, &[], &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/serve/moss_client.pl");
    let mut files = Vec::new();
    for dir in ["s 00", "s01", "s02", "s03"] {
        for f in ["main.py", "util.py"] {
            files.push(format!("sub/{dir}/{f}"));
        }
    }
    let out = Command::new("perl")
        .arg(&script)
        .args(["-s", "127.0.0.1", "-p", &server.moss.port().to_string()])
        .args([
            "-u", &user, "-l", "python", "-d", "-b", "base.py", "-c", "term one",
        ])
        .args(&files)
        .current_dir(&class_dir)
        .output()
        .expect("perl not found");
    assert!(out.status.success(), "{out:?}");
    let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(url.starts_with("http://"), "{url}");
    let (status, index) = server.get(&url);
    assert_eq!(status, 200);
    let index = String::from_utf8(index).unwrap();
    assert!(index.contains("term one"), "the comment is shown");
    let rows = moss_rows(&index);
    assert!(
        rows[..2]
            .iter()
            .any(|r| (r.0.as_str(), r.2.as_str()) == ("sub/s01", "sub/s_00")),
        "{rows:?}"
    );
    check_moss_pages(&server, &url, rows.len());
}

/// A session header for user `user`, language python.
fn header(user: &str) -> String {
    format!("moss {user}\ndirectory 0\nX 0\nmaxmatches 10\nshow 250\nlanguage python\n")
}

fn file(id: u32, name: &str, text: &str) -> String {
    format!("file {id} python {} {name}\n{text}", text.len())
}

const A: &str = "def total(xs):\n    s = 0\n    for x in xs:\n        if x > 2:\n            s += x * 3\n    return s\nprint(total([1, 2, 3, 4, 5, 6, 7]))\n";
const B: &str = "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, v):\n        self.items.append(v)\n    def pop(self):\n        return self.items.pop()\n";

#[test]
fn protocol_answers_and_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let user = add_user(&data);
    let server = Server::start(&data, &["--read-timeout", "2"], &[]);
    let h = header(&user);

    // `language` is answered at once, before anything else is sent.
    let mut s = TcpStream::connect(server.moss).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(format!("moss {user}\nlanguage cobol\n").as_bytes())
        .unwrap();
    let mut buf = [0u8; 16];
    let n = s.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"no\n");
    s.write_all(b"language ml\n").unwrap();
    let n = s.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"yes\n");
    drop(s);

    // A zero-file query, as tools send to check a user id.
    let answer = server.talk(format!("{h}query 0 \nend\n").as_bytes(), true);
    assert_eq!(answer, "yes\nError: No files uploaded to compare.\n");

    // A good one, with a 0-byte file among them.
    let good = format!(
        "{h}{}{}{}{}query 0 \nend\n",
        file(0, "base.py", "import sys\n"),
        file(1, "a.py", A),
        file(2, "empty.py", ""),
        file(3, "b.py", &A.replace('s', "t"))
    );
    let answer = server.talk(good.as_bytes(), true);
    let url = answer.strip_prefix("yes\n").unwrap().trim();
    assert!(url.starts_with("http://"), "{answer}");
    let (status, _) = server.get(url);
    assert_eq!(status, 200);

    let cases: Vec<(String, &str)> = vec![
        (
            "hello\n".into(),
            "Error: the first line must be `moss <userid>`",
        ),
        (
            format!("{h}frobnicate 1\n"),
            "Error: unknown command `frobnicate`",
        ),
        ("moss 1\nquery 0 \n".into(), "Error: user id 1 is not known"),
        (
            format!("{h}file 1 python -5 a.py\n"),
            "Error: bad `file` line",
        ),
        (
            format!("{h}file 1 python 99999999999 a.py\n"),
            "Error: file a.py declares 99999999999 bytes",
        ),
        (
            format!("{h}file 1 python 100 a.py\nabc"),
            "Error: the connection ended after 3 of the 100 bytes declared for file a.py",
        ),
        (
            format!("{h}lang"),
            "Error: the connection ended in the middle of a command line",
        ),
        (
            "\u{0}\u{1}binary\u{ff}\n".into(),
            "Error: the first line must be",
        ),
        (format!("{h}\u{fffd}\x00\x01\n"), "Error: unknown command"),
        (
            format!("moss {user}\n{}\n", "x".repeat(10_000)),
            "Error: a command line is longer than 4096 bytes",
        ),
        // Moji counts CRLF as one byte: the declared size is short.
        (
            format!("{h}file 1 python 8 a.py\nx = 1\r\ny = 2\r\nquery 0 \n"),
            "declared size (8 bytes) does not match the bytes sent",
        ),
    ];
    for (input, expected) in &cases {
        let answer = server.talk(input.as_bytes(), true);
        assert!(answer.contains(expected), "{input:?}\n→ {answer:?}");
        assert!(
            answer.lines().last().unwrap().starts_with("Error: "),
            "{answer:?}"
        );
    }
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    let answer = server.talk(&binary, true);
    assert!(answer.starts_with("Error: "), "{answer:?}");

    // A declared size larger than the bytes sent, and a client that never
    // sends: the read timeout answers, never a hang.
    let started = Instant::now();
    let answer = server.talk(
        format!("{h}file 1 python 100 a.py\nx = 1\nquery 0 \n").as_bytes(),
        false,
    );
    assert!(
        answer.contains("Error: no data for 2 seconds while reading file a.py"),
        "{answer}"
    );
    let answer = server.talk(b"", false);
    assert!(
        answer.starts_with("Error: no data for 2 seconds before the `moss` line"),
        "{answer}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));

    // 10,000 files: over the default limit of 5,000, refused cleanly.
    let mut many = h.clone();
    for i in 0..10_000 {
        many.push_str(&file(i + 1, &format!("f{i}.py"), "x = 1\n"));
    }
    many.push_str("query 0 \n");
    let answer = server.talk(many.as_bytes(), true);
    assert!(
        answer.contains("Error: more than 5000 files in one job"),
        "{answer}"
    );

    // The server still answers.
    let answer = server.talk(good.as_bytes(), true);
    assert!(answer.starts_with("yes\nhttp://"), "{answer}");
}

#[test]
fn a_disabled_user_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let user = add_user(&data);
    let out = Command::new(env!("CARGO_BIN_EXE_bryo"))
        .args(["serve", "user", "disable", &user, "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success());
    let list = Command::new(env!("CARGO_BIN_EXE_bryo"))
        .args(["serve", "user", "list", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(
        list.contains(&format!("{user}\tdisabled\tteacher@example.edu")),
        "{list}"
    );
    let server = Server::start(&data, &[], &[]);
    let input = format!(
        "{}{}{}query 0 \n",
        header(&user),
        file(1, "a.py", A),
        file(2, "b.py", B)
    );
    let answer = server.talk(input.as_bytes(), true);
    assert!(
        answer.contains(&format!("Error: user id {user} is not known")),
        "{answer}"
    );
}

#[test]
fn sigkill_during_and_after_a_job_loses_nothing_and_serves_nothing_half_written() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let user = add_user(&data);
    let job = copied_pair_job(&user);

    // After a job.
    let server = Server::start(&data, &[], &[]);
    let answer = server.talk(job.as_bytes(), true);
    let url = answer.strip_prefix("yes\n").unwrap().trim().to_string();
    let path = url[url.find("/results/").unwrap()..].to_string();
    let before: Vec<_> = [
        "",
        "result.json",
        "match0.html",
        "match0-0.html",
        "report/index.html",
    ]
    .iter()
    .map(|p| server.get(&format!("{path}{p}")))
    .collect();
    assert!(before.iter().all(|(s, _)| *s == 200));
    server.kill();

    // During one: the job is held after writing part of its result.
    let server = Server::start(&data, &[], &[("BRYO_SERVE_PAUSE_MS", "600000")]);
    let moss = server.moss;
    let job2 = job.clone();
    let client = std::thread::spawn(move || {
        let mut s = TcpStream::connect(moss).unwrap();
        s.write_all(job2.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    });
    let first = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let second = wait_running(&data);
    assert_ne!(second, first);
    let (status, _) = server.get(&format!("/results/{second}/result.json"));
    assert_eq!(status, 202, "a running job's files are not served");
    server.kill();
    let answer = client.join().unwrap();
    assert_eq!(answer, "yes\n", "the client saw the connection end, no URL");

    // Restarted: the finished result unchanged, the interrupted job run
    // again from its stored upload and served whole.
    let server = Server::start(&data, &[], &[]);
    let after: Vec<_> = [
        "",
        "result.json",
        "match0.html",
        "match0-0.html",
        "report/index.html",
    ]
    .iter()
    .map(|p| server.get(&format!("{path}{p}")))
    .collect();
    assert_eq!(before, after);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body) = server.get(&format!("/results/{second}/result.json"));
        if status == 200 {
            let report: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(json_rows(&report).len(), 1);
            break;
        }
        assert_eq!(status, 202, "{}", String::from_utf8_lossy(&body));
        assert!(
            Instant::now() < deadline,
            "the interrupted job never finished"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!data.join(format!("jobs/{second}/result.tmp")).exists());
    let (status, index) = server.get(&format!("/results/{second}/"));
    assert_eq!(status, 200);
    assert_eq!(moss_rows(&String::from_utf8(index).unwrap()).len(), 1);
}

/// A job of user `user` comparing `A` with a copy of it.
fn copied_pair_job(user: &str) -> String {
    format!(
        "{}{}{}query 0 \nend\n",
        header(user),
        file(1, "a.py", A),
        file(2, "b.py", &A.replace('s', "q"))
    )
}

/// Waits until a job of `data` has started writing its result (the
/// server holds it there under `BRYO_SERVE_PAUSE_MS`); its id.
fn wait_running(data: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let partial = std::fs::read_dir(data.join("jobs"))
            .unwrap()
            .flatten()
            .find(|e| e.path().join("result.tmp/result.json").exists());
        if let Some(e) = partial {
            return e.file_name().to_string_lossy().into_owned();
        }
        assert!(Instant::now() < deadline, "the job never started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_job_running_each_time_the_server_ends_is_given_up_after_three_runs() {
    // A job whose files end the process (memory, a crash in a parser)
    // would end every restart too. Each run here is held mid-result and
    // the server killed: twice it is run again; after the third it fails
    // with the reason, and the server stays up.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let user = add_user(&data);
    let job = copied_pair_job(&user);
    let pause = [("BRYO_SERVE_PAUSE_MS", "600000")];
    let server = Server::start(&data, &[], &pause);
    let moss = server.moss;
    let client = std::thread::spawn(move || {
        let mut s = TcpStream::connect(moss).unwrap();
        s.write_all(job.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
    });
    let id = wait_running(&data);
    server.kill();
    client.join().unwrap();
    for run in 2..=3 {
        // Restarted, the job runs again from its upload (and is held).
        let server = Server::start(&data, &[], &pause);
        assert_eq!(wait_running(&data), id, "run {run}");
        server.kill();
    }
    let server = Server::start(&data, &[], &[]);
    let (status, body) = server.get(&format!("/results/{id}/"));
    let page = String::from_utf8_lossy(&body);
    assert_eq!(status, 422, "{page}");
    assert!(page.contains("last 3 times the server"), "{page}");
    assert!(!data.join(format!("jobs/{id}/result")).exists());
    // Still serving: a new job runs.
    let fresh = format!(
        "{}{}{}query 0 \nend\n",
        header(&user),
        file(1, "a.py", A),
        file(2, "b.py", B)
    );
    let answer = server.talk(fresh.as_bytes(), true);
    assert!(answer.starts_with("yes\nhttp://"), "{answer}");
}

#[test]
fn unknown_and_malformed_result_ids_are_not_found() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(&tmp.path().join("data"), &[], &[]);
    for path in [
        "/results/00000000000000000000000000000000/",
        "/results/../bryo.sqlite",
        "/results/x/",
        "/results/00000000000000000000000000000000/../../bryo.sqlite",
    ] {
        let (status, _) = server.get(path);
        assert_eq!(status, 404, "{path}");
    }
}

/// A multipart body of form fields and files (name, file name, bytes).
fn multipart(fields: &[(&str, &str)], files: &[(&str, &str, Vec<u8>)]) -> (String, Vec<u8>) {
    let boundary = "bryo-test-boundary-7d1f";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .as_bytes(),
        );
    }
    for (name, file_name, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A zip of a `-d` class: `cls/sNN/main.py`.
fn class_zip(n: usize) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..n {
        let text = match i {
            1 => program(40).replace("data", "rows"),
            2 => program(42),
            _ => program(i as u64 + 40),
        };
        zip.start_file(
            format!("cls/s{i:02}/main.py"),
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn json_of(body: &[u8]) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

#[test]
fn api_jobs_belong_to_their_user() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_, alice) = add_user_with_token(&data, "alice@example.edu");
    let (_, bob) = add_user_with_token(&data, "bob@example.edu");
    let server = Server::start(&data, &[], &[]);

    let (status, spec) = server.get("/api/openapi.json");
    assert_eq!(status, 200);
    assert_eq!(json_of(&spec)["openapi"], "3.0.3");

    let (ctype, body) = multipart(
        &[
            ("language", "python"),
            ("directory", "true"),
            ("comment", "week 3"),
        ],
        &[("file", "class.zip", class_zip(4))],
    );
    let (status, created) =
        server.request("POST", "/api/jobs", Some(&alice), Some((&ctype, &body)));
    assert_eq!(status, 202, "{}", String::from_utf8_lossy(&created));
    let job = json_of(&created);
    let id = job["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32);

    // Poll until done.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body) = server.request("GET", &format!("/api/jobs/{id}"), Some(&alice), None);
        assert_eq!(status, 200);
        let state = json_of(&body)["state"].as_str().unwrap().to_string();
        if state == "done" {
            break;
        }
        assert!(state == "queued" || state == "running", "{state}");
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, result) =
        server.request("GET", &format!("/api/jobs/{id}/result"), Some(&alice), None);
    assert_eq!(status, 200);
    let result = json_of(&result);
    assert_eq!(result["submissions"].as_array().unwrap().len(), 4);
    let top = &result["pairs"][0];
    let names = [top["a"].as_u64().unwrap(), top["b"].as_u64().unwrap()].map(|i| {
        result["submissions"][i as usize]["name"]
            .as_str()
            .unwrap()
            .to_string()
    });
    assert_eq!(names, ["cls/s00", "cls/s01"]);

    // Bob sees none of it; no token or a wrong one is refused.
    let (status, list) = server.request("GET", "/api/jobs", Some(&bob), None);
    assert_eq!(status, 200);
    assert_eq!(json_of(&list)["jobs"].as_array().unwrap().len(), 0);
    for (method, path) in [
        ("GET", format!("/api/jobs/{id}")),
        ("GET", format!("/api/jobs/{id}/result")),
        ("DELETE", format!("/api/jobs/{id}")),
    ] {
        let (status, _) = server.request(method, &path, Some(&bob), None);
        assert_eq!(status, 404, "{method} {path}");
        let (status, _) = server.request(method, &path, None, None);
        assert_eq!(status, 401, "{method} {path}");
        let (status, _) = server.request(
            method,
            &path,
            Some("0123456789abcdef0123456789abcdef"),
            None,
        );
        assert_eq!(status, 401, "{method} {path}");
    }
    let (status, list) = server.request("GET", "/api/jobs", Some(&alice), None);
    assert_eq!(status, 200);
    let jobs = json_of(&list);
    assert_eq!(jobs["jobs"][0]["id"], id.as_str());
    let url = jobs["jobs"][0]["url"].as_str().unwrap().to_string();
    let (status, _) = server.get(&url);
    assert_eq!(status, 200, "the result URL is readable by whoever has it");

    // Refusals with a reason.
    let (ctype, body) = multipart(&[("language", "python")], &[]);
    let (status, answer) = server.request("POST", "/api/jobs", Some(&alice), Some((&ctype, &body)));
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&answer).contains("No files uploaded"));
    let (ctype, body) = multipart(&[], &[("file", "broken.zip", b"PK not a zip".to_vec())]);
    let (status, _) = server.request("POST", "/api/jobs", Some(&alice), Some((&ctype, &body)));
    assert_eq!(status, 413);

    // Alice deletes it: gone from the API and from its URL.
    let (status, _) = server.request("DELETE", &format!("/api/jobs/{id}"), Some(&alice), None);
    assert_eq!(status, 204);
    let (status, _) = server.get(&url);
    assert_eq!(status, 404);
    assert!(!data.join(format!("jobs/{id}")).exists());
}

#[test]
#[ignore = "needs chromium, node and npm ci in tests/browser; run with --include-ignored"]
fn web_ui_upload_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let browser_dir = root.join("tests/browser");
    let chromium = std::env::var_os("BRYO_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(chromium.is_file(), "{} not found", chromium.display());
    assert!(
        browser_dir.join("node_modules/playwright-core").is_dir(),
        "run npm ci in {}",
        browser_dir.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_, token) = add_user_with_token(&data, "ui@example.edu");
    let zip = tmp.path().join("class.zip");
    std::fs::write(&zip, class_zip(5)).unwrap();
    let server = Server::start(&data, &[], &[]);
    let output = Command::new("node")
        .arg(browser_dir.join("serve-ui.test.js"))
        .env("BRYO_SERVE_URL", format!("http://{}", server.http))
        .env("BRYO_SERVE_TOKEN", &token)
        .env("BRYO_SERVE_ZIP", &zip)
        .env("BRYO_CHROMIUM", &chromium)
        .env("BRYO_ARTIFACTS", root.join("target/browser-artifacts"))
        .output()
        .expect("cannot run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the UI test failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn a_full_queue_is_refused_and_the_server_stays_responsive() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let user = add_user(&data);
    // One job at a time, held half-written for a while.
    let server = Server::start(
        &data,
        &["--queue", "1", "--workers", "1"],
        &[("BRYO_SERVE_PAUSE_MS", "4000")],
    );
    let job = copied_pair_job(&user);
    let moss = server.moss;
    let first_job = job.clone();
    let first = std::thread::spawn(move || {
        let mut s = TcpStream::connect(moss).unwrap();
        s.write_all(first_job.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_dir(data.join("jobs"))
        .unwrap()
        .flatten()
        .any(|e| e.path().join("result.tmp").exists())
    {
        assert!(Instant::now() < deadline, "the first job never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let started = Instant::now();
    let answer = server.talk(job.as_bytes(), true);
    assert_eq!(
        answer,
        "yes\nError: the server's job queue is full; try again in a few minutes.\n"
    );
    let (status, _) = server.get("/api/openapi.json");
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered while the job runs"
    );
    let answer = first.join().unwrap();
    assert!(answer.starts_with("yes\nhttp://"), "{answer}");
}

/// Polls a job through the API until it ends; its final JSON.
fn wait_job(server: &Server, token: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body) = server.request("GET", &format!("/api/jobs/{id}"), Some(token), None);
        assert_eq!(status, 200);
        let job = json_of(&body);
        if job["state"] == "done" || job["state"] == "failed" {
            return job;
        }
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn past_terms_in_an_archive_are_compared_and_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_, alice) = add_user_with_token(&data, "alice@example.edu");
    let (_, bob) = add_user_with_token(&data, "bob@example.edu");
    let server = Server::start(&data, &[], &[]);
    let post_json = |token: &str, path: &str, body: &str| {
        server.request(
            "POST",
            path,
            Some(token),
            Some(("application/json", body.as_bytes())),
        )
    };
    let (status, created) = post_json(
        &alice,
        "/api/archives",
        r#"{"name":"CS1 2025","language":"python"}"#,
    );
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&created));
    let archive = json_of(&created)["id"].as_str().unwrap().to_string();

    // Last term: a class, archived under its comment.
    let (ctype, body) = multipart(
        &[
            ("language", "python"),
            ("directory", "1"),
            ("comment", "fall-2025"),
        ],
        &[("file", "class.zip", class_zip(4))],
    );
    let (status, job) = server.request("POST", "/api/jobs", Some(&alice), Some((&ctype, &body)));
    assert_eq!(status, 202);
    let old = json_of(&job)["id"].as_str().unwrap().to_string();
    assert_eq!(wait_job(&server, &alice, &old)["state"], "done");
    // Bob can neither add Alice's job nor use Alice's archive.
    let (status, _) = post_json(&bob, &format!("/api/archives/{archive}/jobs/{old}"), "");
    assert_eq!(status, 404);
    let (status, added) = post_json(&alice, &format!("/api/archives/{archive}/jobs/{old}"), "");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&added));
    assert_eq!(json_of(&added)["added_submissions"], 4);

    // This term: one student copies last term's s02.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in [
        ("new/t00/main.py", program(42)),
        ("new/t01/main.py", program(900)),
        ("new/t02/main.py", program(901)),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    let zip = zip.finish().unwrap().into_inner();
    let fields = [
        ("language", "python"),
        ("directory", "1"),
        ("archive", archive.as_str()),
    ];
    let (ctype, body) = multipart(&fields, &[("file", "new.zip", zip.clone())]);
    let (status, answer) = server.request("POST", "/api/jobs", Some(&bob), Some((&ctype, &body)));
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&answer));
    let (status, job) = server.request("POST", "/api/jobs", Some(&alice), Some((&ctype, &body)));
    assert_eq!(status, 202);
    let new = json_of(&job)["id"].as_str().unwrap().to_string();
    let done = wait_job(&server, &alice, &new);
    assert_eq!(done["state"], "done", "{done}");
    let (_, result) = server.request(
        "GET",
        &format!("/api/jobs/{new}/result"),
        Some(&alice),
        None,
    );
    let result = json_of(&result);
    let rows = json_rows(&result);
    assert_eq!(
        (rows[0].0.as_str(), rows[0].2.as_str()),
        ("new/t00", "cls/s02 [fall-2025]"),
        "{rows:?}"
    );
    // The MOSS page marks it too.
    let url = done["url"].as_str().unwrap();
    let (_, index) = server.get(url);
    assert!(String::from_utf8(index)
        .unwrap()
        .contains("cls/s02 [fall-2025] ("));
    // Its match page shows the archived side's text, read from the
    // archive (the archived files are not part of the upload).
    let (_, side) = server.get(&format!("{url}match0-1.html"));
    let side = String::from_utf8(side).unwrap();
    let plain = program(42)
        .lines()
        .find(|l| l.len() > 12 && !l.contains(['<', '>', '&', '"', '\'']))
        .unwrap()
        .to_string();
    assert!(side.contains("cls/s02/main.py [fall-2025]"), "{side}");
    assert!(side.contains(plain.trim()), "{plain} not in {side}");
    let (status, list) = server.request("GET", "/api/archives", Some(&bob), None);
    assert_eq!(status, 200);
    assert_eq!(json_of(&list)["archives"].as_array().unwrap().len(), 0);
    let (status, _) = server.request(
        "DELETE",
        &format!("/api/archives/{archive}"),
        Some(&alice),
        None,
    );
    assert_eq!(status, 204);
    assert!(!data.join(format!("archives/{archive}")).exists());
}

#[test]
fn api_one_zip_per_student_makes_one_submission_each() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_, token) = add_user_with_token(&data, "carol@example.edu");
    let server = Server::start(&data, &[], &[]);
    let student = |files: &[(&str, String)]| {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, text) in files {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    };
    let (ctype, body) = multipart(
        &[("language", "python"), ("directory", "on")],
        &[
            (
                "file",
                "alice.zip",
                student(&[("main.py", program(7)), ("util.py", program(8))]),
            ),
            (
                "file",
                "bob.zip",
                student(&[("main.py", program(7).replace("data", "xs"))]),
            ),
            ("file", "dave.zip", student(&[("main.py", program(9))])),
        ],
    );
    let (status, job) = server.request("POST", "/api/jobs", Some(&token), Some((&ctype, &body)));
    assert_eq!(status, 202, "{}", String::from_utf8_lossy(&job));
    let id = json_of(&job)["id"].as_str().unwrap().to_string();
    assert_eq!(wait_job(&server, &token, &id)["state"], "done");
    let (_, result) = server.request("GET", &format!("/api/jobs/{id}/result"), Some(&token), None);
    let result = json_of(&result);
    let names: Vec<_> = result["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["alice", "bob", "dave"]);
    let rows = json_rows(&result);
    assert_eq!((rows[0].0.as_str(), rows[0].2.as_str()), ("alice", "bob"));
}

/// Submits a `-d` class of `n` students through the API and waits for it
/// to finish; its id.
fn api_class_job(server: &Server, token: &str, n: usize, comment: &str) -> String {
    let (ctype, body) = multipart(
        &[
            ("language", "python"),
            ("directory", "1"),
            ("comment", comment),
        ],
        &[("file", "class.zip", class_zip(n))],
    );
    let (status, job) = server.request("POST", "/api/jobs", Some(token), Some((&ctype, &body)));
    assert_eq!(status, 202, "{}", String::from_utf8_lossy(&job));
    let id = json_of(&job)["id"].as_str().unwrap().to_string();
    assert_eq!(wait_job(server, token, &id)["state"], "done");
    id
}

#[test]
fn a_revoked_result_answers_404_to_all_but_its_owner_until_restored() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_, alice) = add_user_with_token(&data, "alice@example.edu");
    let (_, bob) = add_user_with_token(&data, "bob@example.edu");
    let server = Server::start(&data, &[], &[]);
    let id = api_class_job(&server, &alice, 4, "hw1");
    let pages = [
        "",
        "index.html",
        "match0.html",
        "match0-top.html",
        "match0-1.html",
        "report/index.html",
        "result.json",
    ];
    let statuses = |server: &Server, auth: &str| -> Vec<u16> {
        pages
            .iter()
            .map(|p| {
                server
                    .request_with("GET", &format!("/results/{id}/{p}"), auth, None)
                    .0
            })
            .collect()
    };
    let bearer = |t: &str| format!("Authorization: Bearer {t}\r\n");
    let cookie = |t: &str| format!("Cookie: bryo_token={t}\r\n");
    assert_eq!(statuses(&server, ""), [200; 7]);

    // Only the owner revokes.
    let revoke = |server: &Server, token: &str, action: &str| {
        server.request(
            "POST",
            &format!("/api/jobs/{id}/{action}"),
            Some(token),
            None,
        )
    };
    assert_eq!(revoke(&server, &bob, "revoke").0, 404);
    assert_eq!(statuses(&server, ""), [200; 7]);
    let (status, job) = revoke(&server, &alice, "revoke");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&job));
    assert_eq!(json_of(&job)["revoked"], true);
    for auth in [
        String::new(),
        bearer(&bob),
        cookie(&bob),
        bearer("nonsense"),
    ] {
        assert_eq!(statuses(&server, &auth), [404; 7], "{auth}");
    }
    // The owner still reads it, by token or logged in to the web UI, and
    // sees it marked in the job list and on the job's page.
    assert_eq!(statuses(&server, &bearer(&alice)), [200; 7]);
    assert_eq!(statuses(&server, &cookie(&alice)), [200; 7]);
    let (_, list) = server.request("GET", "/api/jobs", Some(&alice), None);
    assert_eq!(json_of(&list)["jobs"][0]["revoked"], true);
    let (_, page) = server.get_logged_in(&format!("/ui/jobs/{id}"), &alice);
    let page = String::from_utf8(page).unwrap();
    assert!(
        page.contains("<span class=\"revoked\">revoked</span>"),
        "{page}"
    );
    assert!(page.contains(&format!("action=\"/ui/jobs/{id}/restore\"")));
    let (_, page) = server.get_logged_in("/ui/jobs", &alice);
    assert!(String::from_utf8(page).unwrap().contains("revoked"));
    assert_eq!(revoke(&server, &bob, "restore").0, 404);

    // A restart keeps it revoked; leftovers of a crash are removed then.
    server.kill();
    std::fs::create_dir_all(data.join(format!("jobs/{id}/result.tmp/report"))).unwrap();
    let orphan = data.join("jobs/00000000000000000000000000000000/result.tmp");
    std::fs::create_dir_all(&orphan).unwrap();
    let server = Server::start(&data, &[], &[]);
    assert!(!data.join(format!("jobs/{id}/result.tmp")).exists());
    assert!(!data.join("jobs/00000000000000000000000000000000").exists());
    assert_eq!(statuses(&server, ""), [404; 7]);
    assert_eq!(statuses(&server, &bearer(&alice)), [200; 7]);

    // Restored from the web UI's button (Bob's session cannot).
    let form = Some(("application/x-www-form-urlencoded", &b""[..]));
    let restore = format!("/ui/jobs/{id}/restore");
    assert_eq!(
        server.request_with("POST", &restore, &cookie(&bob), form).0,
        404
    );
    assert_eq!(statuses(&server, ""), [404; 7]);
    assert_eq!(
        server
            .request_with("POST", &restore, &cookie(&alice), form)
            .0,
        303
    );
    assert_eq!(statuses(&server, ""), [200; 7]);
    assert_eq!(statuses(&server, &bearer(&bob)), [200; 7]);
    let (_, job) = server.request("GET", &format!("/api/jobs/{id}"), Some(&alice), None);
    assert_eq!(json_of(&job)["revoked"], false);

    // And through the API.
    assert_eq!(revoke(&server, &alice, "revoke").0, 200);
    assert_eq!(statuses(&server, ""), [404; 7]);
    let (status, job) = revoke(&server, &alice, "restore");
    assert_eq!(status, 200);
    assert_eq!(json_of(&job)["revoked"], false);
    assert_eq!(statuses(&server, ""), [200; 7]);
}

#[test]
fn a_running_job_shows_its_stage_and_deleting_it_cancels_it_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_, alice) = add_user_with_token(&data, "alice@example.edu");
    // Every job is held for 8 s after writing its result.json.
    let pause = Duration::from_secs(8);
    let server = Server::start(
        &data,
        &[],
        &[("BRYO_SERVE_PAUSE_MS", &pause.as_millis().to_string())],
    );
    let (ctype, body) = multipart(
        &[("language", "python"), ("directory", "1")],
        &[("file", "class.zip", class_zip(4))],
    );
    let (status, job) = server.request("POST", "/api/jobs", Some(&alice), Some((&ctype, &body)));
    assert_eq!(status, 202);
    let job = json_of(&job);
    let id = job["id"].as_str().unwrap().to_string();
    assert!(
        job.get("stage").is_some() && job.get("progress").is_some(),
        "{job}"
    );

    // Polled until it is held while writing its pages: in the write stage
    // with its first step (result.json) done. The stage shows before that
    // step, so a poll can land between the two.
    let deadline = Instant::now() + Duration::from_secs(60);
    let running = loop {
        let (_, body) = server.request("GET", &format!("/api/jobs/{id}"), Some(&alice), None);
        let job = json_of(&body);
        if job["stage"] == "write" && job["progress"]["done"] != 0 {
            break job;
        }
        assert_ne!(job["state"], "done", "the job was not held: {job}");
        assert!(
            Instant::now() < deadline,
            "never reached the write stage: {job}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let held = Instant::now();
    assert_eq!(running["state"], "running");
    assert_eq!(running["progress"]["done"], 1, "{running}");
    assert_eq!(running["progress"]["total"], 3, "{running}");
    let stages: Vec<&str> = running["progress"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(
        stages,
        [
            "analyze",
            "fingerprint",
            "index",
            "pairs",
            "fragments",
            "report",
            "write"
        ]
    );
    let (status, page) = server.get_logged_in(&format!("/ui/jobs/{id}"), &alice);
    assert_eq!(status, 200);
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("running: write 1/3"), "{page}");
    assert!(page.contains("<meta http-equiv=\"refresh\" content=\"2\">"));
    assert!(data
        .join(format!("jobs/{id}/result.tmp/result.json"))
        .exists());

    let (status, _) = server.request("DELETE", &format!("/api/jobs/{id}"), Some(&alice), None);
    assert_eq!(status, 204);
    // Past the end of the hold: a job that was not cancelled would have
    // written its result back by now.
    std::thread::sleep(
        (held + pause + Duration::from_secs(2)).saturating_duration_since(Instant::now()),
    );
    assert!(
        !data.join(format!("jobs/{id}")).exists(),
        "{:?}",
        std::fs::read_dir(data.join(format!("jobs/{id}"))).map(|d| d.count())
    );
    let (status, _) = server.get(&format!("/results/{id}/"));
    assert_eq!(status, 404);
    let (_, list) = server.request("GET", "/api/jobs", Some(&alice), None);
    assert_eq!(json_of(&list)["jobs"].as_array().unwrap().len(), 0);

    // A finished job has no stage.
    let server = {
        server.kill();
        Server::start(&data, &[], &[])
    };
    let done = api_class_job(&server, &alice, 3, "");
    let (_, job) = server.request("GET", &format!("/api/jobs/{done}"), Some(&alice), None);
    let job = json_of(&job);
    assert_eq!(
        (&job["stage"], &job["progress"]),
        (&Value::Null, &Value::Null)
    );
    let (_, page) = server.get_logged_in(&format!("/ui/jobs/{done}"), &alice);
    let page = String::from_utf8(page).unwrap();
    assert!(!page.contains("http-equiv=\"refresh\""), "{page}");
    assert!(page.contains("<dd class=\"state\">done</dd>"), "{page}");
}

#[test]
#[ignore = "needs Python with mosspy (.ci/serve-tests installs it); run with --include-ignored"]
fn mosspy_comment_names_an_archive_of_past_terms() {
    let py = python().expect(
        "mosspy not found: python3 -m venv target/venv-serve && target/venv-serve/bin/pip install mosspy",
    );
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (user, alice) = add_user_with_token(&data, "alice@example.edu");
    let server = Server::start(&data, &[], &[]);
    let (status, created) = server.request(
        "POST",
        "/api/archives",
        Some(&alice),
        Some((
            "application/json",
            br#"{"name":"CS1 2025","language":"python"}"#,
        )),
    );
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&created));
    let archive = json_of(&created)["id"].as_str().unwrap().to_string();
    let old = api_class_job(&server, &alice, 4, "fall-2025");
    let (status, _) = server.request(
        "POST",
        &format!("/api/archives/{archive}/jobs/{old}"),
        Some(&alice),
        None,
    );
    assert_eq!(status, 200);

    // This term's class, sent by mosspy: t00 copies last term's s02.
    let class_dir = tmp.path().join("class");
    for (name, text) in [
        ("new/t00/main.py", program(42)),
        ("new/t01/main.py", program(900)),
        ("new/t02/main.py", program(901)),
    ] {
        let path = class_dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(class_dir.join("base.py"), BASE).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/serve/mosspy_client.py");
    let mosspy = |comment: &str| {
        let out = Command::new(&py)
            .arg(&script)
            .args([
                &user,
                &server.moss.port().to_string(),
                "python",
                "base.py",
                "new/*/*.py",
                comment,
            ])
            .current_dir(&class_dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };

    let url = mosspy("hw4 bryo:against=\"CS1 2025\"");
    assert!(url.contains("/results/"), "{url}");
    let (status, index) = server.get(&url);
    assert_eq!(status, 200);
    let rows = moss_rows(&String::from_utf8(index).unwrap());
    assert_eq!(
        (rows[0].0.as_str(), rows[0].2.as_str()),
        ("new/t00", "cls/s02 [fall-2025]"),
        "{rows:?}"
    );
    // The token is taken out of the stored comment.
    let id = url.trim_end_matches('/').rsplit('/').next().unwrap();
    let (_, job) = server.request("GET", &format!("/api/jobs/{id}"), Some(&alice), None);
    assert_eq!(json_of(&job)["comment"], "hw4");

    // Without the token the archive is not used.
    let url = mosspy("hw4");
    let (_, index) = server.get(&url);
    let index = String::from_utf8(index).unwrap();
    assert!(!index.contains("[fall-2025]"), "{index}");

    let answer = mosspy("bryo:against=CS9");
    assert_eq!(
        answer,
        "Error: no archive of past terms is named `CS9` (yours: `CS1 2025`)."
    );
}
