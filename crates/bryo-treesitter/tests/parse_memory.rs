//! The memory a parse takes grows with its input, not with its square,
//! however error-dense the input: error recovery used to end in a pop of
//! every path through the parse stack, each path a whole tree, and 100 KB
//! of `a[/ ` as C took 10 GB (vendor/README.md). tree-sitter's allocator is
//! replaced by one that counts the bytes live on each thread, so this file
//! holds one test: the allocator is set before any parser exists.
#![cfg(all(
    feature = "c",
    feature = "java",
    feature = "typescript",
    feature = "csharp"
))]

use bryo_treesitter::{normalize, Options};
use std::cell::Cell;
use std::ffi::c_void;

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

thread_local! {
    /// Bytes tree-sitter holds that this thread allocated, and the most it
    /// has held since [`measure`] reset it.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Each block starts with a header holding the size asked for; 16 bytes
/// keep the caller's part as aligned as malloc's.
const HEADER: usize = 16;

fn count(delta: isize) {
    let live = LIVE.with(|l| {
        l.set(l.get() + delta);
        l.get()
    });
    PEAK.with(|p| p.set(p.get().max(live)));
}

unsafe extern "C" fn counting_malloc(size: usize) -> *mut c_void {
    // SAFETY: malloc with a size; a null result is returned as it is.
    let base = unsafe { malloc(size + HEADER) }.cast::<usize>();
    if base.is_null() {
        return base.cast();
    }
    // SAFETY: the block has HEADER bytes before the caller's part, aligned
    // for a usize.
    unsafe { base.write(size) };
    count(size as isize);
    // SAFETY: HEADER bytes into a block of size + HEADER.
    unsafe { base.cast::<u8>().add(HEADER) }.cast()
}

unsafe extern "C" fn counting_calloc(n: usize, size: usize) -> *mut c_void {
    let Some(bytes) = n.checked_mul(size) else {
        return std::ptr::null_mut();
    };
    // SAFETY: as for counting_malloc.
    let block = unsafe { counting_malloc(bytes) };
    if !block.is_null() {
        // SAFETY: the caller's part of the block is `bytes` long.
        unsafe { block.cast::<u8>().write_bytes(0, bytes) };
    }
    block
}

/// The header of a block counting_malloc returned.
///
/// # Safety
/// `block` came from counting_malloc or counting_realloc and is live.
unsafe fn header(block: *mut c_void) -> *mut usize {
    // SAFETY: the caller's part starts HEADER bytes into the block.
    unsafe { block.cast::<u8>().sub(HEADER) }.cast()
}

unsafe extern "C" fn counting_realloc(block: *mut c_void, size: usize) -> *mut c_void {
    if block.is_null() {
        // SAFETY: realloc of null is malloc.
        return unsafe { counting_malloc(size) };
    }
    // SAFETY: tree-sitter reallocates only blocks these functions made.
    let base = unsafe { header(block) };
    // SAFETY: the header of a live block.
    let old = unsafe { base.read() };
    // SAFETY: base is the start of a malloc'd block.
    let moved = unsafe { realloc(base.cast(), size + HEADER) }.cast::<usize>();
    if moved.is_null() {
        return moved.cast();
    }
    // SAFETY: the moved block keeps its header.
    unsafe { moved.write(size) };
    count(size as isize - old as isize);
    // SAFETY: HEADER bytes into a block of size + HEADER.
    unsafe { moved.cast::<u8>().add(HEADER) }.cast()
}

unsafe extern "C" fn counting_free(block: *mut c_void) {
    if block.is_null() {
        return;
    }
    // SAFETY: tree-sitter frees only blocks these functions made.
    let base = unsafe { header(block) };
    // SAFETY: the header of a live block.
    count(-(unsafe { base.read() } as isize));
    // SAFETY: base is the start of a malloc'd block.
    unsafe { free(base.cast()) };
}

/// The most bytes tree-sitter held at once while normalizing `text`.
fn measure(lang: &str, text: &[u8]) -> isize {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let mut options = Options::default();
    // No wall-clock limit: the peak is what is measured, whatever the
    // machine's load.
    options.timeout = None;
    // The outcome is a tree or a fallback for too many errors; the memory it
    // took is what this test is about.
    let _ = normalize(lang, text, &options);
    PEAK.with(Cell::get) - start
}

#[test]
fn memory_grows_linearly_on_error_dense_input() {
    // SAFETY: set before any parser, tree or query exists in this process
    // (this file's only test), so every block tree-sitter frees was made by
    // these functions.
    unsafe {
        bryo_treesitter::tree_sitter::set_allocator(
            Some(counting_malloc),
            Some(counting_calloc),
            Some(counting_realloc),
            Some(counting_free),
        );
    }
    for (lang, unit) in [
        ("c", "a[/ "),
        ("csharp", "a[/ "),
        ("java", "a </ "),
        ("typescript", "a < b , "),
    ] {
        let small = unit.as_bytes().repeat(12_000 / unit.len());
        let large = unit.as_bytes().repeat(36_000 / unit.len());
        let (at_small, at_large) = (measure(lang, &small), measure(lang, &large));
        println!("{lang}: {at_small} bytes at 12 KB, {at_large} at 36 KB");
        assert!(at_small > 0, "{lang}: the allocator was not used");
        // Three times the input: about three times the memory when it is
        // linear, nine when it is quadratic.
        assert!(
            at_large < 5 * at_small,
            "{lang}: {at_small} bytes at 12 KB but {at_large} at 36 KB"
        );
    }
}
