//! `bryo compare --timings`: where a run's time went, stage by stage — wall
//! time, CPU time (user + system, all threads), page faults and the peak
//! resident memory so far — printed to standard error once the report is
//! written.

use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The run's marks, set once when `--timings` is given.
static TIMINGS: OnceLock<Timings> = OnceLock::new();

#[derive(Debug)]
struct Timings {
    start: Instant,
    marks: Mutex<Vec<Mark>>,
}

/// The start of a phase: its name, when, and the process's use so far.
#[derive(Clone, Copy, Debug)]
struct Mark {
    name: &'static str,
    at: Duration,
    usage: Option<Usage>,
}

/// The process's CPU time, minor page faults and peak resident memory
/// so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Usage {
    user: Duration,
    system: Duration,
    faults: u64,
    /// Peak resident set size, in KiB.
    peak_kib: u64,
}

impl Usage {
    /// The time and faults from `earlier` to `self`; the peak is `self`'s
    /// (a peak so far, not a difference).
    fn since(self, earlier: Usage) -> Usage {
        Usage {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
            faults: self.faults.saturating_sub(earlier.faults),
            peak_kib: self.peak_kib,
        }
    }
}

#[cfg(unix)]
fn usage() -> Option<Usage> {
    let mut raw = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes a `rusage` through the valid pointer it
    // is given and reads nothing from it; it is used only on success.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, raw.as_mut_ptr()) } == 0;
    if !ok {
        return None;
    }
    // SAFETY: initialized by the successful call (and zeroed before).
    let raw = unsafe { raw.assume_init() };
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Some(Usage {
        user: time(raw.ru_utime),
        system: time(raw.ru_stime),
        faults: u64::try_from(raw.ru_minflt).unwrap_or(0),
        // Linux reports KiB.
        peak_kib: u64::try_from(raw.ru_maxrss).unwrap_or(0),
    })
}

#[cfg(not(unix))]
fn usage() -> Option<Usage> {
    None
}

/// Starts timing the run (its first phase is `name`); later [`mark`]s
/// record the next phases. Without this call they do nothing.
pub(crate) fn enable(start: Instant, name: &'static str) {
    let timings = Timings {
        start,
        marks: Mutex::new(Vec::new()),
    };
    if TIMINGS.set(timings).is_ok() {
        mark(name);
    }
}

/// Records that the phase `name` starts now (a repeated name continues
/// the same phase in the printed table).
pub(crate) fn mark(name: &'static str) {
    let Some(t) = TIMINGS.get() else {
        return;
    };
    let m = Mark {
        name,
        at: t.start.elapsed(),
        usage: usage(),
    };
    if let Ok(mut marks) = t.marks.lock() {
        if marks.last().is_none_or(|last| last.name != name) {
            marks.push(m);
        }
    }
}

/// Prints the table to standard error if timing is on.
pub(crate) fn print() {
    let Some(t) = TIMINGS.get() else {
        return;
    };
    let end = Mark {
        name: "",
        at: t.start.elapsed(),
        usage: usage(),
    };
    let marks = t.marks.lock().map(|m| m.clone()).unwrap_or_default();
    eprint!("{}", table(&marks, end));
    eprintln!("bryo: {}", crate::hugepages::describe());
}

/// The table of phases `marks`, each lasting until the next one (the last
/// until `end`).
fn table(marks: &[Mark], end: Mark) -> String {
    let mut out =
        String::from("bryo: timings (wall, and CPU of all threads: user + system; page faults; peak resident memory at the phase's end)\n");
    let _ = writeln!(
        out,
        "{:<12} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "phase", "wall ms", "CPU ms", "user ms", "sys ms", "faults", "peak MB"
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut row = |name: &str, wall: Duration, used: Option<Usage>| {
        let _ = write!(out, "{name:<12} {:>9.1}", ms(wall));
        match used {
            Some(u) => {
                let _ = writeln!(
                    out,
                    " {:>9.1} {:>9.1} {:>9.1} {:>8} {:>8.1}",
                    ms(u.user + u.system),
                    ms(u.user),
                    ms(u.system),
                    u.faults,
                    u.peak_kib as f64 / 1024.0
                );
            }
            None => out.push('\n'),
        }
    };
    for (i, m) in marks.iter().enumerate() {
        let next = marks.get(i + 1).copied().unwrap_or(end);
        let used = m.usage.zip(next.usage).map(|(a, b)| b.since(a));
        row(m.name, next.at.saturating_sub(m.at), used);
    }
    let total = end.usage.map(|u| u.since(Usage::default()));
    row("total", end.at, total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_of(ms: u64, faults: u64) -> Option<Usage> {
        Some(Usage {
            user: Duration::from_millis(ms),
            system: Duration::from_millis(ms / 2),
            faults,
            peak_kib: faults * 4,
        })
    }

    #[test]
    fn each_phase_lasts_until_the_next() {
        let marks = [
            Mark {
                name: "discover",
                at: Duration::from_millis(1),
                usage: usage_of(2, 10),
            },
            Mark {
                name: "analyze",
                at: Duration::from_millis(21),
                usage: usage_of(40, 110),
            },
        ];
        let end = Mark {
            name: "",
            at: Duration::from_millis(101),
            usage: usage_of(200, 1000),
        };
        let t = table(&marks, end);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 5, "{t}");
        let cells = |l: &str| -> Vec<String> { l.split_whitespace().map(String::from).collect() };
        // discover: wall 20 ms, user 38, system 19, 100 faults.
        assert_eq!(
            cells(lines[2]),
            ["discover", "20.0", "57.0", "38.0", "19.0", "100", "0.4"]
        );
        assert_eq!(
            cells(lines[3]),
            ["analyze", "80.0", "240.0", "160.0", "80.0", "890", "3.9"]
        );
        assert_eq!(
            cells(lines[4]),
            ["total", "101.0", "300.0", "200.0", "100.0", "1000", "3.9"]
        );
    }

    #[test]
    fn without_usage_only_wall_time() {
        let marks = [Mark {
            name: "discover",
            at: Duration::ZERO,
            usage: None,
        }];
        let end = Mark {
            name: "",
            at: Duration::from_millis(5),
            usage: None,
        };
        let t = table(&marks, end);
        assert!(
            t.lines()
                .nth(2)
                .is_some_and(|l| l.trim_end() == "discover           5.0"),
            "{t}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_process_usage_only_grows() {
        let (Some(a), Some(b)) = (usage(), {
            // Some work between the two readings.
            let v: Vec<u64> = (0..200_000).collect();
            std::hint::black_box(v);
            usage()
        }) else {
            panic!("getrusage failed");
        };
        assert!(b.user + b.system >= a.user + a.system);
        assert!(b.faults >= a.faults);
        assert!(b.peak_kib >= a.peak_kib && a.peak_kib > 0);
    }
}
