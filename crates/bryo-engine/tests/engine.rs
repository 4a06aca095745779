//! Integration tests of the engine: every fast path against a naive
//! reference, the winnowing guarantee, the paper's statistics, golden values.

#[path = "support/naive.rs"]
mod naive;

use bryo_engine::{
    poly, Config, Error, Fingerprint, Fingerprinter, GapMeter, HashFunction, Hasher, Polynomial,
    Selection, Selector, SplitMix64,
};
use proptest::prelude::*;

fn hashers() -> Vec<HashFunction> {
    vec![
        HashFunction::KarpRabin,
        HashFunction::RABIN_DEFAULT,
        HashFunction::Rabin(Polynomial::random(7)),
    ]
}

fn config(k: usize, w: usize) -> Config {
    Config::new(k, w).unwrap()
}

/// Hashes from a small range (many ties) or the full range.
fn hash_stream() -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![
        prop::collection::vec(0u64..4, 0..600),
        prop::collection::vec(0u64..40, 0..600),
        prop::collection::vec(any::<u64>(), 0..600),
        // long monotone runs: the worst case for rescanning winnowers
        (0usize..600, any::<bool>()).prop_map(|(n, up)| (0..n as u64)
            .map(|i| if up { i } else { u64::MAX - i })
            .collect()),
    ]
}

fn selections() -> impl Strategy<Value = Selection> {
    prop_oneof![
        Just(Selection::Winnow),
        Just(Selection::RobustWinnow),
        (1u64..12).prop_map(|p| Selection::ModP { p }),
        (1u64..12).prop_map(|p| Selection::SafeModP { p }),
        (1usize..20).prop_map(|n| Selection::Smallest { n }),
        Just(Selection::All),
    ]
}

/// Splits `0..n` into pieces at the given cut fractions.
fn pieces(n: usize, cuts: &[u16]) -> Vec<std::ops::Range<usize>> {
    let mut points: Vec<usize> = cuts.iter().map(|&c| c as usize * n / 65536).collect();
    points.push(0);
    points.push(n);
    points.sort_unstable();
    points.windows(2).map(|p| p[0]..p[1]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn karp_rabin_rolls_exactly(bytes in prop::collection::vec(any::<u8>(), 0..1500), k in 1usize..70) {
        let h = Hasher::new(HashFunction::KarpRabin, &config(k, 1));
        let mut got = Vec::new();
        h.hash_bytes(&bytes, &mut got);
        let wide: Vec<u64> = bytes.iter().map(|&b| u64::from(b)).collect();
        let want: Vec<u64> = wide.windows(k).map(naive::karp_rabin).collect();
        prop_assert_eq!(&got, &want);
        // Bytes hash exactly as the same values widened to symbols.
        let mut sym = Vec::new();
        h.hash_symbols(&wide, &mut sym);
        prop_assert_eq!(&sym, &want);
    }

    #[test]
    fn karp_rabin_symbols_roll_exactly(syms in prop::collection::vec(any::<u64>(), 0..1500), k in 1usize..70) {
        let h = Hasher::new(HashFunction::KarpRabin, &config(k, 1));
        let mut got = Vec::new();
        h.hash_symbols(&syms, &mut got);
        let want: Vec<u64> = syms.windows(k).map(naive::karp_rabin).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn rabin_bytes_roll_exactly(bytes in prop::collection::vec(any::<u8>(), 0..1200), k in 1usize..40, seed in any::<u64>()) {
        for p in [Polynomial::DEFAULT, Polynomial::random(seed)] {
            let h = Hasher::new(HashFunction::Rabin(p), &config(k, 1));
            let mut got = Vec::new();
            h.hash_bytes(&bytes, &mut got);
            let want: Vec<u64> = bytes
                .windows(k)
                .map(|g| naive::rabin_bits(naive::bits_of_bytes(g), p))
                .collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn rabin_symbols_roll_exactly(syms in prop::collection::vec(any::<u64>(), 0..700), k in 1usize..12, seed in any::<u64>()) {
        let p = Polynomial::random(seed);
        let h = Hasher::new(HashFunction::Rabin(p), &config(k, 1));
        let mut got = Vec::new();
        h.hash_symbols(&syms, &mut got);
        let want: Vec<u64> = syms
            .windows(k)
            .map(|g| naive::rabin_bits(naive::bits_of_symbols(g), p))
            .collect();
        prop_assert_eq!(&got, &want);
        // A symbol is its 8 big-endian bytes.
        let bytes: Vec<u8> = syms.iter().flat_map(|s| s.to_be_bytes()).collect();
        let hb = Hasher::new(HashFunction::Rabin(p), &config(8 * k, 1));
        let mut by_bytes = Vec::new();
        hb.hash_bytes(&bytes, &mut by_bytes);
        let every_8th: Vec<u64> = by_bytes.iter().step_by(8).copied().collect();
        prop_assert_eq!(got, every_8th);
    }

    #[test]
    fn selector_matches_naive(
        hashes in hash_stream(),
        selection in selections(),
        w in 1usize..40,
        cuts in prop::collection::vec(any::<u16>(), 0..6),
    ) {
        let mut sel = Selector::new(selection, w).unwrap();
        let mut got = Vec::new();
        for piece in pieces(hashes.len(), &cuts) {
            sel.push(&hashes[piece], &mut got).unwrap();
        }
        sel.finish(&mut got);
        prop_assert_eq!(&got, &naive::select(&hashes, selection, w));
        // The selector is reusable for the next document.
        let mut again = Vec::new();
        sel.push(&hashes, &mut again).unwrap();
        sel.finish(&mut again);
        prop_assert_eq!(got, again);
    }

    #[test]
    fn fingerprinter_matches_naive(
        bytes in prop::collection::vec(0u8..3, 0..50_000),
        k in 1usize..30,
        w in 1usize..120,
        selection in selections(),
        hi in 0usize..3,
    ) {
        let function = hashers()[hi];
        let mut f = Fingerprinter::new(config(k, w), function, selection).unwrap();
        let mut hashes = Vec::new();
        f.hasher().hash_bytes(&bytes, &mut hashes);
        let want = naive::select(&hashes, selection, w);
        prop_assert_eq!(&f.fingerprint_bytes(&bytes).unwrap(), &want);
        let lazy: Vec<Fingerprint> = f.iter_bytes(&bytes).unwrap().collect();
        prop_assert_eq!(&lazy, &want);
        // Symbols path: same selection over the symbol hashes.
        let syms: Vec<u64> = bytes.iter().map(|&b| u64::from(b) * 0x0101_0101).collect();
        f.hasher().hash_symbols(&syms, &mut hashes);
        let want = naive::select(&hashes, selection, w);
        prop_assert_eq!(&f.fingerprint_symbols(&syms).unwrap(), &want);
        let lazy: Vec<Fingerprint> = f.iter_symbols(&syms).unwrap().collect();
        prop_assert_eq!(&lazy, &want);
    }

    /// The winnowing guarantee: a shared run of at least t symbols, planted at
    /// random offsets in random text, always yields a shared fingerprint hash.
    #[test]
    fn shared_run_of_t_symbols_is_always_detected(
        k in 1usize..25,
        w in 1usize..60,
        extra in 0usize..40,
        seed in any::<u64>(),
        alphabet in 2u8..30,
        (la, ra, lb, rb) in (0usize..300, 0usize..300, 0usize..300, 0usize..300),
        hi in 0usize..3,
        selection in prop_oneof![
            Just(Selection::Winnow),
            Just(Selection::RobustWinnow),
            (1u64..60).prop_map(|p| Selection::SafeModP { p }),
        ],
    ) {
        let t = k + w - 1;
        let mut rng = SplitMix64::new(seed);
        let mut text = |n: usize| -> Vec<u8> { (0..n).map(|_| b'a' + rng.below(u64::from(alphabet)) as u8).collect() };
        let shared = text(t + extra);
        let a = [text(la), shared.clone(), text(ra)].concat();
        let b = [text(lb), shared, text(rb)].concat();
        let mut f = Fingerprinter::new(config(k, w), hashers()[hi], selection).unwrap();
        let fa = f.fingerprint_bytes(&a).unwrap();
        let fb = f.fingerprint_bytes(&b).unwrap();
        prop_assert!(fa.iter().any(|x| fb.iter().any(|y| x.hash == y.hash)));
    }

    /// §3.2: querying with a larger window w' >= w selects a subset.
    #[test]
    fn larger_window_selects_a_subset(hashes in hash_stream(), w in 1usize..30, dw in 0usize..30) {
        let mut small = Selector::new(Selection::Winnow, w).unwrap();
        let mut large = Selector::new(Selection::Winnow, w + dw).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        small.push(&hashes, &mut a).unwrap();
        small.finish(&mut a);
        large.push(&hashes, &mut b).unwrap();
        large.finish(&mut b);
        for f in &b {
            prop_assert!(a.contains(f), "{:?} selected with w' = {} but not w = {}", f, w + dw, w);
        }
    }

    #[test]
    fn gap_meter_matches_brute_force(positions in prop::collection::btree_set(0u32..200, 0..30), k in 1usize..10, extra in 0usize..20) {
        let positions: Vec<u32> = positions.into_iter().collect();
        let n = positions.last().map_or(0, |&p| p as usize + k) + extra;
        let mut g = GapMeter::new(k);
        for &p in &positions {
            g.observe(u64::from(p));
        }
        prop_assert_eq!(g.finish(n as u64), naive::longest_gap(&positions, k, n));
    }

    /// Every run of t symbols holds a selected k-gram: the gap is below t.
    #[test]
    fn winnowing_gap_is_below_t(bytes in prop::collection::vec(0u8..4, 0..3000), k in 1usize..20, w in 1usize..50, robust in any::<bool>()) {
        let selection = if robust { Selection::RobustWinnow } else { Selection::Winnow };
        let mut f = Fingerprinter::new(config(k, w), HashFunction::KarpRabin, selection).unwrap();
        let fps = f.fingerprint_bytes(&bytes).unwrap();
        let mut g = GapMeter::new(k);
        for x in &fps {
            g.observe(u64::from(x.pos));
        }
        let gap = g.finish(bytes.len() as u64);
        if bytes.len() >= k + w - 1 {
            prop_assert!(gap < (k + w - 1) as u64, "gap {} >= t {}", gap, k + w - 1);
        }
    }
}

proptest! {
    #[test]
    fn mod_p_matches_the_remainder_operator(hashes in prop::collection::vec(any::<u64>(), 1..200), p in any::<u64>(), small in 1u64..1000, mult in any::<u64>()) {
        for p in [p.max(1), small, u64::MAX, 1 << 40, 3] {
            let mut hs = hashes.clone();
            hs.push(mult.wrapping_mul(p)); // a multiple (mod 2^64, so maybe not)
            hs.push(p);
            hs.push(0);
            let mut sel = Selector::new(Selection::ModP { p }, 1).unwrap();
            let mut got = Vec::new();
            sel.push(&hs, &mut got).unwrap();
            prop_assert_eq!(got, naive::select(&hs, Selection::ModP { p }, 1));
        }
    }
}

#[test]
fn figure_2_of_the_paper() {
    let hashes = [
        77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98,
    ];
    let mut sel = Selector::new(Selection::Winnow, 4).unwrap();
    let mut out = Vec::new();
    for &h in &hashes {
        sel.push(&[h], &mut out).unwrap(); // one hash at a time
    }
    sel.finish(&mut out);
    let got: Vec<(u64, u32)> = out.iter().map(|f| (f.hash, f.pos)).collect();
    assert_eq!(got, [(17, 3), (17, 6), (8, 8), (39, 11), (17, 15)]);
}

#[test]
fn invalid_configurations_are_errors() {
    assert_eq!(Config::new(0, 5), Err(Error::ZeroK));
    assert_eq!(Config::new(5, 0), Err(Error::ZeroWindow));
    assert_eq!(Config::from_thresholds(0, 5), Err(Error::ZeroK));
    assert_eq!(
        Config::from_thresholds(10, 9),
        Err(Error::GuaranteeBelowNoise { k: 10, t: 9 })
    );
    assert!(matches!(
        Config::new(usize::MAX, 1),
        Err(Error::TooLarge { name: "k", .. })
    ));
    assert!(matches!(
        Config::new(1, usize::MAX),
        Err(Error::TooLarge { name: "w", .. })
    ));
    assert_eq!(
        Selector::new(Selection::ModP { p: 0 }, 4).unwrap_err(),
        Error::ZeroModulus
    );
    assert_eq!(
        Selector::new(Selection::SafeModP { p: 0 }, 4).unwrap_err(),
        Error::ZeroModulus
    );
    assert_eq!(
        Selector::new(Selection::Smallest { n: 0 }, 4).unwrap_err(),
        Error::ZeroSketch
    );
    assert_eq!(
        Selector::new(Selection::Winnow, 0).unwrap_err(),
        Error::ZeroWindow
    );
    assert!(matches!(
        Polynomial::new(0),
        Err(Error::ReduciblePolynomial { .. })
    ));
    // Every error explains itself.
    assert!(Error::GuaranteeBelowNoise { k: 10, t: 9 }
        .to_string()
        .contains("t = 9"));
    // k = t gives w = 1: every k-gram is a fingerprint.
    let c = Config::from_thresholds(7, 7).unwrap();
    assert_eq!((c.w(), c.t()), (1, 7));
}

#[test]
fn inputs_shorter_than_k_have_no_fingerprints() {
    for function in hashers() {
        let mut f = Fingerprinter::new(config(10, 4), function, Selection::Winnow).unwrap();
        assert!(f.fingerprint_bytes(b"").unwrap().is_empty());
        assert!(f.fingerprint_bytes(b"short").unwrap().is_empty());
        assert_eq!(f.fingerprint_bytes(b"exactly10!").unwrap().len(), 1);
        assert!(f.fingerprint_symbols(&[1, 2, 3]).unwrap().is_empty());
    }
}

#[test]
fn selector_rejects_positions_beyond_u32() {
    let mut sel = Selector::new(Selection::All, 1).unwrap();
    let mut out = Vec::new();
    // Exactly 2^32 hashes fit (positions 0..=u32::MAX); one more does not.
    let chunk = vec![0u64; 1 << 20];
    for _ in 0..4096 {
        sel.push(&chunk, &mut out).unwrap();
        out.clear();
    }
    assert_eq!(sel.hashes_seen(), 1 << 32);
    assert_eq!(
        sel.push(&[1], &mut out),
        Err(Error::InputTooLong {
            kgrams: (1 << 32) + 1
        })
    );
}

#[test]
fn rehash_keeps_positions_and_equality() {
    let text = b"it was the best of times, it was the worst of times";
    for function in hashers() {
        let mut plain = Fingerprinter::new(config(5, 4), function, Selection::Winnow).unwrap();
        let mut mixed = plain.clone().with_rehash(true);
        let a = plain.fingerprint_bytes(text).unwrap();
        let b = mixed.fingerprint_bytes(text).unwrap();
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.pos, y.pos);
            assert_eq!(y.hash, bryo_engine::rehash(x.hash));
        }
    }
}

// ---------------------------------------------------------------------------
// Irreducibility

/// Every reducible polynomial of degree 1..=max_deg, by multiplying all pairs
/// of non-constant factors (exhaustive factoring as a sieve).
fn reducible_up_to(max_deg: u32) -> Vec<bool> {
    let size = 1usize << (max_deg + 1);
    let mut reducible = vec![false; size];
    for a in 2u64..size as u64 {
        let da = 63 - a.leading_zeros();
        if 2 * da > max_deg {
            break;
        }
        for b in a..(1u64 << (max_deg - da + 1)) {
            reducible[poly::clmul(a, b) as usize] = true;
        }
    }
    reducible
}

#[test]
fn rabin_test_agrees_with_exhaustive_factoring_up_to_degree_16() {
    let reducible = reducible_up_to(16);
    let mut count_by_degree = [0u32; 17];
    for p in 2u128..1 << 17 {
        let by_test = poly::is_irreducible(p);
        assert_eq!(by_test, !reducible[p as usize], "{p:#b}");
        if by_test {
            count_by_degree[poly::degree(p).unwrap() as usize] += 1;
        }
    }
    // Gauss: the number of irreducible polynomials of degree n over GF(2)
    // (OEIS A001037).
    let known = [
        0, 2, 1, 2, 3, 6, 9, 18, 30, 56, 99, 186, 335, 630, 1161, 2182, 4080,
    ];
    assert_eq!(count_by_degree, known);
}

#[test]
fn default_polynomial_is_irreducible_and_derived_from_its_seed() {
    assert!(poly::is_irreducible(Polynomial::DEFAULT.to_u128()));
    assert_eq!(
        Polynomial::random(Polynomial::DEFAULT_SEED),
        Polynomial::DEFAULT
    );
    assert_eq!(
        Polynomial::new(Polynomial::DEFAULT.low_bits()),
        Ok(Polynomial::DEFAULT)
    );
    // t^(2^64) = t in GF(2^64), the field the default polynomial defines.
    let p = Polynomial::DEFAULT;
    let mut x = 2u64;
    for _ in 0..64 {
        x = p.mul(x, x);
    }
    assert_eq!(x, 2);
}

#[test]
fn random_polynomials_are_irreducible_and_seeded() {
    for seed in 0..20 {
        let p = Polynomial::random(seed);
        assert!(poly::is_irreducible(p.to_u128()));
        assert_eq!(p, Polynomial::random(seed));
    }
    assert_ne!(Polynomial::random(1), Polynomial::random(2));
}

// ---------------------------------------------------------------------------
// Statistics (paper §5.1)

fn random_text(bytes: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let mut text = vec![0u8; bytes];
    rng.fill_from(b"abcdefghijklmnopqrstuvwxyz", &mut text);
    text
}

fn density(bytes: &[u8], function: HashFunction, selection: Selection) -> f64 {
    let mut f = Fingerprinter::new(config(50, 100), function, selection).unwrap();
    let n = f.fingerprint_bytes(bytes).unwrap().len();
    n as f64 / (bytes.len() - 49) as f64
}

#[test]
fn density_on_8_mb_of_random_text_matches_the_paper() {
    let text = random_text(8_000_000, 2003);
    for function in [HashFunction::KarpRabin, HashFunction::RABIN_DEFAULT] {
        let expected = 2.0 / 101.0;
        let d = density(&text, function, Selection::Winnow);
        assert!(
            (d - expected).abs() / expected < 0.01,
            "{function}: winnowing density {d} vs {expected}"
        );
        let r = density(&text, function, Selection::RobustWinnow);
        assert!(
            (r - expected).abs() / expected < 0.01,
            "{function}: robust {r}"
        );
        let m = density(&text, function, Selection::ModP { p: 50 });
        assert!(
            (m - 0.02).abs() / 0.02 < 0.02,
            "{function}: 0 mod 50 density {m}"
        );
    }
}

#[test]
fn robust_winnowing_on_a_run_of_one_symbol() {
    // The paper's "0000…" case: one distinct k-gram fills every window.
    let zeros = vec![b'0'; 200_000];
    let hashes = zeros.len() - 49;
    for function in [HashFunction::KarpRabin, HashFunction::RABIN_DEFAULT] {
        let plain = density(&zeros, function, Selection::Winnow);
        assert!(
            plain > 0.999,
            "winnowing selects nearly every hash: {plain}"
        );
        let robust = density(&zeros, function, Selection::RobustWinnow);
        let per_window = 1.0 / 100.0;
        assert!(
            (robust - per_window).abs() / per_window < 0.01,
            "robust winnowing selects one hash per window: {robust}"
        );
        assert!(hashes > 0);
    }
}

// ---------------------------------------------------------------------------
// Golden values: any change here is a change of hash scheme and needs a new
// HASH_SCHEME_VERSION (and a CHANGELOG entry).

const GOLDEN_TEXT: &[u8] = b"A do run run run, a do run run";

fn golden_hashes(function: HashFunction, k: usize) -> Vec<u64> {
    let h = Hasher::new(function, &config(k, 1));
    let mut out = Vec::new();
    h.hash_bytes(GOLDEN_TEXT, &mut out);
    out.truncate(4);
    out
}

#[test]
fn golden_karp_rabin_bytes() {
    assert_eq!(
        golden_hashes(HashFunction::KarpRabin, 5),
        GOLDEN_KR_BYTES.to_vec()
    );
}

#[test]
fn golden_rabin_bytes() {
    assert_eq!(
        golden_hashes(HashFunction::RABIN_DEFAULT, 12),
        GOLDEN_RABIN_BYTES.to_vec()
    );
}

#[test]
fn golden_symbols() {
    let syms: Vec<u64> = (1..=8u64)
        .map(|i| i.wrapping_mul(0x0123_4567_89ab_cdef))
        .collect();
    for (function, want) in [
        (HashFunction::KarpRabin, GOLDEN_KR_SYMBOLS),
        (HashFunction::RABIN_DEFAULT, GOLDEN_RABIN_SYMBOLS),
    ] {
        let h = Hasher::new(function, &config(3, 1));
        let mut out = Vec::new();
        h.hash_symbols(&syms, &mut out);
        out.truncate(3);
        assert_eq!(out, want.to_vec(), "{function}");
    }
}

#[test]
fn golden_winnowing() {
    let text = random_text(10_000, 42);
    let mut f =
        Fingerprinter::new(config(50, 100), HashFunction::KarpRabin, Selection::Winnow).unwrap();
    let fps = f.fingerprint_bytes(&text).unwrap();
    let summary: Vec<(u64, u32)> = fps.iter().take(3).map(|x| (x.hash, x.pos)).collect();
    assert_eq!(fps.len(), GOLDEN_WINNOW_COUNT);
    assert_eq!(summary, GOLDEN_WINNOW_FIRST.to_vec());
}

const GOLDEN_KR_BYTES: [u64; 4] = [
    1441542122147459152,
    13923540304823797185,
    159344878322707790,
    1468854966905977192,
];
const GOLDEN_RABIN_BYTES: [u64; 4] = [
    2627269944319532656,
    3776809628457811278,
    8930918969649136177,
    11713265555908642658,
];
const GOLDEN_KR_SYMBOLS: [u64; 3] = [
    4357068500690110018,
    1423712021106905751,
    16937099615233253100,
];
const GOLDEN_RABIN_SYMBOLS: [u64; 3] = [
    10299427424909306814,
    17722543037283978073,
    296874612917008589,
];
const GOLDEN_WINNOW_COUNT: usize = 189;
const GOLDEN_WINNOW_FIRST: [(u64, u32); 3] = [
    (100721758346448806, 41),
    (186015637922612810, 76),
    (610543691573786959, 115),
];

#[test]
fn hashing_a_range_matches_hashing_everything() {
    let text = random_text(5000, 9);
    let syms: Vec<u64> = text.iter().map(|&b| u64::from(b)).collect();
    for function in hashers() {
        let h = Hasher::new(function, &config(20, 1));
        let mut all = Vec::new();
        h.hash_bytes(&text, &mut all);
        let mut part = vec![0; 1000];
        h.hash_bytes_range(&text, 1234, &mut part).unwrap();
        assert_eq!(part, all[1234..2234]);
        h.hash_symbols(&syms, &mut all);
        h.hash_symbols_range(&syms, 1234, &mut part).unwrap();
        assert_eq!(part, all[1234..2234]);
        // The last k-gram starts at 4980; one more is out of range.
        assert!(h.hash_bytes_range(&text, 3981, &mut part).is_ok());
        assert_eq!(
            h.hash_bytes_range(&text, 3982, &mut part),
            Err(Error::RangeOutOfBounds {
                first: 3982,
                count: 1000,
                kgrams: 4981
            })
        );
        assert!(h.hash_bytes_range(&text, usize::MAX, &mut part).is_err());
    }
}
