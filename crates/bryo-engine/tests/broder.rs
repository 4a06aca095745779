//! Broder's algebra and applications checked against direct computation:
//! polynomials as plain coefficient vectors, long division, explicit string
//! concatenation, explicit tree encodings and explicit DAG unfolding.

use std::collections::HashMap;

use bryo_engine::{
    bits_of, intercalate, residue_bits, tree_fingerprint, BinaryTree, DagTagger,
    ElementPolynomials, Fp, GroundSet, Modulus, Polynomial, PowerTable, Rabin, SplitMix64,
    SubsetProduct, SubsetSum, TagPermutation,
};
use proptest::prelude::*;

/// A polynomial as coefficients, index = power of t.
type Naive = Vec<bool>;

fn naive_of_bits(bits: &[bool]) -> Naive {
    bits.iter().rev().copied().collect()
}

fn naive_of_u128(x: u128) -> Naive {
    (0..128).map(|i| x >> i & 1 == 1).collect()
}

fn naive_modulus(m: &Modulus) -> Naive {
    let mut p = naive_of_u128(m.low_bits());
    p.resize(m.degree() as usize + 1, false);
    p[m.degree() as usize] = true;
    p
}

/// Long division remainder, returned as a u128.
fn naive_rem(a: &Naive, p: &Naive) -> u128 {
    let dp = p.len() - 1;
    let mut a = a.clone();
    for i in (dp..a.len()).rev() {
        if a[i] {
            for (j, &c) in p.iter().enumerate() {
                a[i - dp + j] ^= c;
            }
        }
    }
    a.iter()
        .take(dp)
        .enumerate()
        .fold(0u128, |acc, (i, &c)| acc | (u128::from(c) << i))
}

fn naive_mul(a: &Naive, b: &Naive) -> Naive {
    let mut out = vec![false; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        if x {
            for (j, &y) in b.iter().enumerate() {
                out[i + j] ^= y;
            }
        }
    }
    out
}

fn direct(m: &Modulus, bits: &[bool]) -> u128 {
    naive_rem(&naive_of_bits(bits), &naive_modulus(m))
}

/// Default, degree-96 and degree-128 moduli from seeds, and small ones.
fn moduli() -> Vec<Modulus> {
    vec![
        Modulus::default_64(),
        Modulus::random(96, 96).unwrap(),
        Modulus::random(128, 128).unwrap(),
        Modulus::random(32, 32).unwrap(),
        Modulus::random(13, 13).unwrap(),
        Modulus::random(5, 5).unwrap(),
    ]
}

fn modulus() -> impl Strategy<Value = Modulus> {
    (0..moduli().len()).prop_map(|i| moduli().swap_remove(i))
}

fn residue(m: &Modulus, x: u128) -> u128 {
    m.add(x, 0)
}

#[test]
fn generated_moduli_are_irreducible_and_reproducible() {
    for d in [96, 128, 100, 64, 32, 7] {
        let m = Modulus::random(d, 42).unwrap();
        assert_eq!(m.degree(), d);
        assert_eq!(Modulus::new(d, m.low_bits()).unwrap(), m);
        assert_eq!(Modulus::random(d, 42).unwrap(), m);
        // In GF(2^d), t^(2^d − 1) = 1 and t^(2^d) = t.
        let t = m.pow_t(1);
        let mut x = t;
        for _ in 0..d {
            x = m.square(x);
        }
        assert_eq!(x, t, "degree {d}");
    }
}

#[test]
fn default_degree_64_agrees_with_the_rolling_hash() {
    let m = Modulus::default_64();
    let rabin = Rabin::new(Polynomial::DEFAULT, 4);
    let mut rng = SplitMix64::new(1);
    for len in 0..200 {
        let mut bytes = vec![0u8; len];
        rng.fill_from(&[0, 1, 7, 0xff, b'a'], &mut bytes);
        assert_eq!(m.hash_bytes(&bytes), u128::from(rabin.hash_bytes(&bytes)));
        let syms: Vec<u64> = bytes.iter().map(|&b| rng.next() ^ u64::from(b)).collect();
        assert_eq!(m.hash_symbols(&syms), u128::from(rabin.hash_symbols(&syms)));
    }
}

#[test]
fn leading_zeros_count() {
    for m in moduli() {
        assert_ne!(m.hash_bytes(&[0]), m.hash_bytes(&[0, 0]));
        assert_ne!(m.hash_bits(&[false]), m.hash_bits(&[]));
        // Without the leading 1 they would collide.
        assert_eq!(m.fp_bytes(&[0]).value(), m.fp_bytes(&[0, 0]).value());
    }
}

#[test]
fn tag_permutation_is_a_bijection() {
    for (d, seed) in [(12, 1), (16, 2), (9, 3)] {
        let t = TagPermutation::new(d, seed).unwrap();
        let mut seen = vec![false; 1 << d];
        for x in 0..1u128 << d {
            let y = t.apply(x) as usize;
            assert!(!seen[y], "T not injective at degree {d}");
            seen[y] = true;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn bits_and_bytes_match_long_division(m in modulus(), bytes in prop::collection::vec(any::<u8>(), 0..40), extra in prop::collection::vec(any::<bool>(), 0..20)) {
        let bits = bits_of(&bytes);
        let fb = m.fp_bytes(&bytes);
        prop_assert_eq!(fb.value(), direct(&m, &bits));
        prop_assert_eq!(fb.bits(), bits.len() as u64);
        prop_assert_eq!(m.fp_bits(&bits), fb);
        let mut all = bits.clone();
        all.extend(&extra);
        prop_assert_eq!(m.fp_bits(&all).value(), direct(&m, &all));
        // Broder's leading 1.
        let mut one = vec![true];
        one.extend(&bits);
        prop_assert_eq!(m.hash_bytes(&bytes), direct(&m, &one));
        let syms: Vec<u64> = bytes.chunks(8).map(|c| c.iter().fold(0u64, |s, &b| s << 8 | u64::from(b))).collect();
        let sym_bytes: Vec<u8> = syms.iter().flat_map(|s| s.to_be_bytes()).collect();
        prop_assert_eq!(m.hash_symbols(&syms), m.hash_bytes(&sym_bytes));
    }

    #[test]
    fn sum_is_eq_8(m in modulus(), a in prop::collection::vec(any::<bool>(), 0..200), b in prop::collection::vec(any::<bool>(), 0..200)) {
        // A + B as polynomials: align on the last bit, xor.
        let n = a.len().max(b.len());
        let pad = |s: &[bool]| -> Vec<bool> { let mut v = vec![false; n - s.len()]; v.extend(s); v };
        let s: Vec<bool> = pad(&a).iter().zip(pad(&b)).map(|(x, y)| x ^ y).collect();
        prop_assert_eq!(m.fp_bits(&a).sum(m.fp_bits(&b)), m.fp_bits(&s));
        prop_assert_eq!(m.fp_bits(&s).value(), direct(&m, &s));
    }

    #[test]
    fn concat_is_eq_9_and_10(m in modulus(), a in prop::collection::vec(any::<u8>(), 0..60), b in prop::collection::vec(any::<u8>(), 0..60), cut in 0usize..60) {
        let mut ab = a.clone();
        ab.extend(&b);
        let whole = m.fp_bytes(&ab);
        let (fa, fb) = (m.fp_bytes(&a), m.fp_bytes(&b));
        // (10) from the two fingerprints and |B|.
        prop_assert_eq!(m.concat(fa, fb).unwrap(), whole);
        let table = PowerTable::new(&m, 200);
        prop_assert_eq!(table.concat(&m, fa, fb).unwrap(), whole);
        // (9): continue from f(A) alone …
        prop_assert_eq!(m.extend_bytes(fa, &b).unwrap(), whole);
        // … which is the fingerprint of the d-bit string f(A) followed by B.
        let mut fa_then_b = residue_bits(&m, fa.value());
        fa_then_b.extend(bits_of(&b));
        prop_assert_eq!(m.fp_bits(&fa_then_b).value(), whole.value());
        // Pieces compose in any grouping, lengths tracked.
        let cut = cut.min(ab.len());
        let (x, y) = ab.split_at(cut);
        prop_assert_eq!(m.concat(m.fp_bytes(x), m.fp_bytes(y)).unwrap(), whole);
        prop_assert_eq!(m.prefixed(whole), m.hash_bytes(&ab));
        let bits_b = bits_of(&b);
        prop_assert_eq!(m.extend_bits(fa, &bits_b).unwrap(), whole);
        prop_assert_eq!(m.concat(Fp::EMPTY, whole).unwrap(), whole);
    }

    #[test]
    fn field_operations_match_direct_computation(m in modulus(), a in any::<u128>(), b in any::<u128>(), e in 0u128..5000, l in 0u64..3000) {
        let (a, b) = (residue(&m, a), residue(&m, b));
        let p = naive_modulus(&m);
        let prod = m.mul(a, b);
        prop_assert_eq!(prod, naive_rem(&naive_mul(&naive_of_u128(a), &naive_of_u128(b)), &p));
        prop_assert_eq!(m.square(a), m.mul(a, a));
        let mut x = m.pow_t(0);
        for _ in 0..e % 70 { x = m.mul(x, a); }
        prop_assert_eq!(m.pow(a, e % 70), x);
        prop_assert_eq!(m.pow(a, e + 1), m.mul(m.pow(a, e), a));
        let mut tl = vec![false; l as usize + 1];
        tl[l as usize] = true;
        prop_assert_eq!(m.pow_t(l), naive_rem(&tl, &p));
        match m.inverse(a) {
            None => prop_assert_eq!(a, 0),
            Some(inv) => {
                prop_assert_eq!(m.mul(a, inv), 1);
                prop_assert_eq!(m.inverse(inv), Some(a));
            }
        }
    }

    #[test]
    fn subset_sums_are_eq_12(m in modulus(), set in prop::collection::btree_set(0u64..300, 0..40), order_seed in any::<u64>(), extra in 0u64..300) {
        let ground = GroundSet::new(&m, 300);
        let elems: Vec<u64> = set.iter().copied().collect();
        let f = ground.subset(elems.iter().copied()).unwrap();
        // Direct: Σ t^i by long division of the polynomial with those bits.
        let mut poly = vec![false; 300];
        for &i in &elems { poly[i as usize] = true; }
        prop_assert_eq!(f.value(), naive_rem(&poly, &naive_modulus(&m)));
        // Order-independent.
        let mut shuffled = elems.clone();
        shuffle(&mut shuffled, order_seed);
        prop_assert_eq!(ground.subset(shuffled).unwrap(), f);
        // Add / remove equals recomputation.
        let mut g = f;
        if set.contains(&extra) {
            g.remove(&ground, extra).unwrap();
            prop_assert_eq!(g, ground.subset(set.iter().copied().filter(|&i| i != extra)).unwrap());
        } else {
            g.insert(&ground, extra).unwrap();
            prop_assert_eq!(g, ground.subset(set.iter().copied().chain([extra])).unwrap());
        }
        prop_assert!(ground.subset([300]).is_err());
        prop_assert_eq!(SubsetSum::EMPTY, ground.subset([]).unwrap());
    }

    #[test]
    fn subset_products_are_eq_11(m in modulus(), keys in prop::collection::vec(0u128..50, 0..30), order_seed in any::<u64>(), extra in 0u128..50, seed in any::<u64>()) {
        let polys = ElementPolynomials::new(seed);
        let elem = |k: u128| polys.element(&m, k);
        let f = SubsetProduct::of(&m, keys.iter().map(|&k| elem(k)));
        // Direct: the product of the element polynomials, by long division.
        let p = naive_modulus(&m);
        let direct = keys.iter().fold(1u128, |acc, &k| {
            naive_rem(&naive_mul(&naive_of_u128(acc), &naive_of_u128(elem(k).polynomial())), &p)
        });
        prop_assert_eq!(f.value(), direct);
        prop_assert_eq!(f.len(), keys.len() as u64);
        // The polynomials alone, without their inverses, are the elements'
        // and give the same product.
        for &k in &keys {
            prop_assert_eq!(polys.polynomial(&m, k), elem(k).polynomial());
        }
        prop_assert_eq!(SubsetProduct::of_polynomials(&m, keys.iter().map(|&k| polys.polynomial(&m, k))), f);
        let mut shuffled = keys.clone();
        shuffle(&mut shuffled, order_seed);
        prop_assert_eq!(SubsetProduct::of(&m, shuffled.iter().map(|&k| elem(k))), f);
        // Insert then remove, and remove of a present element, equal recomputation.
        let mut g = f;
        g.insert(&m, elem(extra));
        prop_assert_eq!(g, SubsetProduct::of(&m, keys.iter().chain([&extra]).map(|&k| elem(k))));
        prop_assert!(g.remove(&m, elem(extra)));
        prop_assert_eq!(g, f);
        if let Some((&first, rest)) = keys.split_first() {
            let mut h = f;
            prop_assert!(h.remove(&m, elem(first)));
            prop_assert_eq!(h, SubsetProduct::of(&m, rest.iter().map(|&k| elem(k))));
            // Union and difference.
            let a = SubsetProduct::of(&m, [elem(first)]);
            prop_assert_eq!(h.union(&m, a), f);
            prop_assert_eq!(f.difference(&m, a), Some(h));
        }
        prop_assert!(!SubsetProduct::empty(&m).remove(&m, elem(extra)));
    }

    #[test]
    fn tree_fingerprints_are_eq_15(m in modulus(), tree in binary_tree()) {
        let enc = tree.encoding();
        prop_assert_eq!(tree_fingerprint(&m, &tree), direct(&m, &enc));
        prop_assert_eq!(tree_fingerprint(&m, &tree.clone()), tree_fingerprint(&m, &tree));
    }

    #[test]
    fn intercalation_is_squaring(m in modulus(), a in prop::collection::vec(any::<bool>(), 1..60), b in prop::collection::vec(any::<bool>(), 1..60)) {
        let n = a.len().max(b.len());
        let pad = |s: &[bool]| -> Vec<bool> { let mut v = vec![false; n - s.len()]; v.extend(s); v };
        let s: Vec<bool> = pad(&a).iter().zip(pad(&b)).flat_map(|(&x, y)| [x, y]).collect();
        prop_assert_eq!(intercalate(&m, m.fp_bits(&a).value(), m.fp_bits(&b).value()), direct(&m, &s));
    }

    #[test]
    fn different_trees_have_different_encodings(a in binary_tree(), b in binary_tree()) {
        let (ea, eb) = (a.encoding(), b.encoding());
        prop_assert_eq!(a == b, ea == eb);
        // As polynomials too (leading zeros dropped): so f(C) separates them
        // except with the probability of a fingerprint collision.
        prop_assert_eq!(a == b, strip(&ea) == strip(&eb));
        let m = Modulus::random(128, 7).unwrap();
        prop_assert_eq!(a == b, tree_fingerprint(&m, &a) == tree_fingerprint(&m, &b));
    }

    #[test]
    fn dag_tags_equal_iff_unfoldings_are_isomorphic(dag in random_dag(), seed in any::<u64>()) {
        for m in [Modulus::random(96, 96).unwrap(), Modulus::default_64()] {
            let tagger = DagTagger::new(m, seed);
            let tags = dag_tags(&tagger, &dag);
            let forms: Vec<String> = (0..dag.len()).map(|i| unfold(&dag, i)).collect();
            for i in 0..dag.len() {
                for j in 0..dag.len() {
                    prop_assert_eq!(tags[i] == tags[j], forms[i] == forms[j], "nodes {} {}: {} / {}", i, j, forms[i], forms[j]);
                }
            }
        }
    }
}

#[test]
fn all_small_trees_have_distinct_encodings() {
    // Every binary tree with up to 6 nodes.
    let mut by_size: Vec<Vec<BinaryTree>> = vec![vec![], vec![BinaryTree::leaf()]];
    for n in 2..=6 {
        let mut trees = Vec::new();
        let opt = |k: usize, by: &Vec<Vec<BinaryTree>>| -> Vec<Option<BinaryTree>> {
            if k == 0 {
                vec![None]
            } else {
                by[k].iter().cloned().map(Some).collect()
            }
        };
        for left in 0..n {
            let right = n - 1 - left;
            for l in opt(left, &by_size) {
                for r in opt(right, &by_size) {
                    trees.push(BinaryTree::node(l.clone(), r));
                }
            }
        }
        by_size.push(trees);
    }
    let all: Vec<&BinaryTree> = by_size.iter().flatten().collect();
    assert_eq!(all.len(), 1 + 2 + 5 + 14 + 42 + 132); // Catalan numbers
    let mut seen = HashMap::new();
    let m = Modulus::default_64();
    for t in &all {
        assert!(
            seen.insert(strip(&t.encoding()).to_vec(), *t).is_none(),
            "{t:?}"
        );
        assert_eq!(tree_fingerprint(&m, t), direct(&m, &t.encoding()));
    }
    let fps: std::collections::HashSet<u128> =
        all.iter().map(|t| tree_fingerprint(&m, t)).collect();
    assert_eq!(fps.len(), all.len());
}

fn strip(bits: &[bool]) -> &[bool] {
    let first = bits.iter().position(|&b| b).unwrap_or(bits.len());
    &bits[first..]
}

fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

fn binary_tree() -> impl Strategy<Value = BinaryTree> {
    let leaf = Just(BinaryTree::leaf());
    leaf.prop_recursive(4, 12, 2, |inner| {
        (prop::option::of(inner.clone()), prop::option::of(inner))
            .prop_map(|(l, r)| BinaryTree::node(l, r))
    })
}

/// A DAG in topological order: a node is a source text or a list of
/// (label, earlier node) edges. Small alphabets so that isomorphic
/// unfoldings are common.
#[derive(Clone, Debug)]
enum Node {
    Source(Vec<u8>),
    Inner(Vec<(Vec<u8>, usize)>),
}

fn random_dag() -> impl Strategy<Value = Vec<Node>> {
    prop::collection::vec(
        (
            any::<bool>(),
            prop::collection::vec(0u8..2, 0..3),
            prop::collection::vec(
                (
                    prop::collection::vec(0u8..2, 0..2),
                    any::<prop::sample::Index>(),
                ),
                0..3,
            ),
        ),
        1..9,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (source, text, edges))| {
                if source || i == 0 {
                    Node::Source(text)
                } else {
                    Node::Inner(edges.into_iter().map(|(l, c)| (l, c.index(i))).collect())
                }
            })
            .collect()
    })
}

fn dag_tags(tagger: &DagTagger, dag: &[Node]) -> Vec<u128> {
    let mut tags: Vec<u128> = Vec::new();
    for node in dag {
        let tag = match node {
            Node::Source(text) => tagger.source(text),
            Node::Inner(edges) => {
                let e: Vec<(&[u8], u128)> = edges
                    .iter()
                    .map(|(l, c)| (l.as_slice(), tags[*c]))
                    .collect();
                tagger.node(&e).unwrap()
            }
        };
        tags.push(tag);
    }
    tags
}

/// The canonical form of the tree unfolded below node `i`.
fn unfold(dag: &[Node], i: usize) -> String {
    match &dag[i] {
        Node::Source(text) => format!("S{text:?}"),
        Node::Inner(edges) => {
            let parts: Vec<String> = edges
                .iter()
                .map(|(l, c)| format!("{l:?}:{}", unfold(dag, *c)))
                .collect();
            format!("N({})", parts.join(","))
        }
    }
}

/// Colliding pairs among `values`.
fn colliding_pairs(mut values: Vec<u32>) -> u64 {
    values.sort_unstable();
    let mut pairs = 0u64;
    let mut i = 0;
    while i < values.len() {
        let run = values[i..].iter().take_while(|&&v| v == values[i]).count() as u64;
        pairs += run * (run - 1) / 2;
        i += run as usize;
    }
    pairs
}

/// 32-bit fingerprints of 2^18 random 256-bit strings collide about as
/// often as a random function's, C(n,2)/2^32 = 8 pairs per polynomial —
/// far below Broder's bound C(n,2)·m/2^32 (eq. 7), which holds for any
/// strings. Fixed seeds; see `examples/collisions.rs` and BENCHMARKS.md for
/// more trials.
#[test]
fn collisions_of_32_bit_fingerprints_match_the_expected_order_of_magnitude() {
    let n = 1usize << 18;
    let mut rng = SplitMix64::new(2026);
    let set: Vec<[u8; 32]> = (0..n)
        .map(|_| {
            let mut s = [0u8; 32];
            for chunk in s.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next().to_le_bytes());
            }
            s
        })
        .collect();
    let pairs = (n * (n - 1) / 2) as f64;
    let expected = pairs / 2f64.powi(32);
    let bound = pairs * 256.0 / 2f64.powi(32);
    let mut observed = 0u64;
    let trials = 3;
    for seed in 0..trials {
        let p32 = Modulus::random(32, seed).unwrap();
        let p64 = Modulus::random(64, seed).unwrap();
        observed += colliding_pairs(set.iter().map(|s| p32.hash_bytes(s) as u32).collect());
        observed += colliding_pairs(set.iter().map(|s| p64.hash_bytes(s) as u32).collect());
    }
    let mean = observed as f64 / (2 * trials) as f64;
    assert!(
        (expected / 3.0..=expected * 3.0).contains(&mean),
        "mean {mean} colliding pairs, expected about {expected}"
    );
    assert!(mean <= bound);
}
