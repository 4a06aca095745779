//! Deliberately naive reference implementations: obviously correct, slow.

use bryo_engine::{poly, Fingerprint, Polynomial, Selection, KARP_RABIN_BASE};

/// Karp–Rabin (improved form) by the defining sum c_1·b^k + … + c_k·b.
pub fn karp_rabin(kgram: &[u64]) -> u64 {
    let k = kgram.len() as u32;
    kgram.iter().enumerate().fold(0u64, |acc, (m, &c)| {
        acc.wrapping_add(c.wrapping_mul(KARP_RABIN_BASE.wrapping_pow(k - m as u32)))
    })
}

/// Rabin's fingerprint of the bit string 1 ‖ bits, reduced bit by bit.
pub fn rabin_bits(bits: impl IntoIterator<Item = bool>, p: Polynomial) -> u64 {
    let m = p.to_u128();
    let mut r: u128 = 1; // the leading 1
    for bit in bits {
        r = poly::rem((r << 1) | u128::from(bit), m);
    }
    r as u64
}

pub fn bits_of_bytes(bytes: &[u8]) -> Vec<bool> {
    bytes
        .iter()
        .flat_map(|&b| (0..8).rev().map(move |i| b >> i & 1 == 1))
        .collect()
}

pub fn bits_of_symbols(syms: &[u64]) -> Vec<bool> {
    syms.iter()
        .flat_map(|&s| (0..64).rev().map(move |i| s >> i & 1 == 1))
        .collect()
}

/// The windows of a document: every run of w hashes, or the whole document
/// when it is shorter than one window.
fn windows(n: usize, w: usize) -> Vec<std::ops::Range<usize>> {
    if n == 0 {
        Vec::new()
    } else if n < w {
        std::iter::once(0..n).collect()
    } else {
        (0..=n - w).map(|i| i..i + w).collect()
    }
}

/// Winnowing (Definition 1) and robust winnowing (Definition 3), O(n·w).
pub fn winnow(hashes: &[u64], w: usize, robust: bool) -> Vec<Fingerprint> {
    let mut out: Vec<Fingerprint> = Vec::new();
    let mut prev: Option<usize> = None;
    for win in windows(hashes.len(), w) {
        let min = *hashes[win.clone()].iter().min().unwrap();
        let rightmost = win.clone().rev().find(|&i| hashes[i] == min).unwrap();
        let pick = match prev {
            Some(p) if robust && win.contains(&p) && hashes[p] == min => p,
            _ => rightmost,
        };
        if prev != Some(pick) {
            out.push(Fingerprint {
                hash: hashes[pick],
                pos: pick as u32,
            });
        }
        prev = Some(pick);
    }
    out
}

pub fn select(hashes: &[u64], selection: Selection, w: usize) -> Vec<Fingerprint> {
    let at = |i: usize| Fingerprint {
        hash: hashes[i],
        pos: i as u32,
    };
    match selection {
        Selection::Winnow => winnow(hashes, w, false),
        Selection::RobustWinnow => winnow(hashes, w, true),
        Selection::ModP { p } => (0..hashes.len())
            .filter(|&i| hashes[i].is_multiple_of(p))
            .map(at)
            .collect(),
        Selection::SafeModP { p } => (0..hashes.len())
            .filter(|&i| {
                let good = |j: usize| hashes[j].is_multiple_of(p);
                good(i) || (i + 1 >= w && (i + 1 - w..=i).all(|j| !good(j)))
            })
            .map(at)
            .collect(),
        Selection::Smallest { n } => {
            let mut distinct: Vec<u64> = hashes.to_vec();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.truncate(n);
            let mut out: Vec<Fingerprint> = distinct
                .iter()
                .map(|&h| at(hashes.iter().position(|&x| x == h).unwrap()))
                .collect();
            out.sort_by_key(|f| f.pos);
            out
        }
        Selection::All => (0..hashes.len()).map(at).collect(),
    }
}

/// Longest run of symbols with no fingerprinted k-gram inside, by brute force.
pub fn longest_gap(positions: &[u32], k: usize, n: usize) -> u64 {
    let mut covered_start = vec![false; n];
    for &p in positions {
        covered_start[p as usize] = true;
    }
    let mut best = 0;
    for start in 0..n {
        let mut end = start; // run is [start, end)
        while end < n {
            // extending to end+1 would contain k-gram starting at end+1-k
            let new_end = end + 1;
            if new_end >= k && new_end - k >= start && covered_start[new_end - k] {
                break;
            }
            end = new_end;
        }
        best = best.max(end - start);
    }
    best as u64
}
