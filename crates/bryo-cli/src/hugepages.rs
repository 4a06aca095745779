//! Transparent huge pages for the runs they speed up, and only those.
//!
//! A compare run of a class or of the standard library touches most of its
//! memory once and exits: with 4 KiB pages, the kernel's page faults are a
//! fifth of its CPU time (29,000 faults for the standard library), with
//! 2 MiB pages a tenth of that. Longer runs lose instead: the allocator
//! gives memory back as they go, and a huge page partly given back is split
//! (on 10 times the standard library in memory, 0.6 s more system time).
//! So jemalloc asks for huge pages (`thp:always`, where the system grants
//! them on request: Linux's `madvise` mode, the usual default), the process
//! starts with them refused ([`allow`]`(false)`), and `bryo compare` allows
//! them for an in-memory run of at most [`HUGE_PAGE_INPUT_BYTES`] of files
//! (BENCHMARKS.md, "Huge pages for short runs").
//!
//! `_RJEM_MALLOC_CONF=thp:default` in the environment turns the request off.

/// Files up to this many bytes, compared in memory, run with huge pages:
/// measured faster up to 4 times the standard library (126 MB), no faster
/// at 8 times.
pub const HUGE_PAGE_INPUT_BYTES: u64 = 128 << 20;

/// jemalloc's options, read when it starts: its memory advised for huge
/// pages. The kernel still decides, per process ([`allow`]).
#[cfg(all(feature = "jemalloc", target_os = "linux"))]
#[export_name = "_rjem_malloc_conf"]
static MALLOC_CONF: &u8 = &b"thp:always\0"[0];

/// Allows or refuses transparent huge pages for this process's memory
/// from now on (`prctl(PR_SET_THP_DISABLE)`; pages already huge stay).
/// Returns whether the kernel took the setting; off Linux, `false`.
pub fn allow(on: bool) -> bool {
    #[cfg(target_os = "linux")]
    {
        let disable: libc::c_ulong = if on { 0 } else { 1 };
        // SAFETY: PR_SET_THP_DISABLE takes one integer argument and the
        // rest zero; it touches no memory of ours.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, disable, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = on;
        false
    }
}

/// Whether this process may have huge pages now
/// (`prctl(PR_GET_THP_DISABLE)`); off Linux, `false`.
pub fn allowed() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_GET_THP_DISABLE takes no argument and returns the flag.
        unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The system's transparent huge page mode (`always`, `madvise` or
/// `never`), if it has them.
pub fn system_mode() -> Option<String> {
    let modes = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
    let from = modes.find('[')? + 1;
    let to = from + modes[from..].find(']')?;
    Some(modes[from..to].to_string())
}

/// One line for `--timings`: whether this process may have huge pages and
/// what the system grants.
pub fn describe() -> String {
    let process = if allowed() { "allowed" } else { "refused" };
    match system_mode() {
        Some(mode) => format!("huge pages: {process} (the system's mode: {mode})"),
        None => format!("huge pages: {process} (none on this system)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_setting_is_the_processs_and_can_be_undone() {
        assert!(allow(false));
        assert!(!allowed());
        assert!(allow(true));
        assert!(allowed());
        assert!(describe().starts_with("huge pages: allowed"));
    }
}
