//! A stable LSD radix sort of items by a small integer key, on all threads:
//! the index's pair shares, whose key (the pair of dense submissions) has
//! about twice as many bits as there are submissions' bits — 22 for the
//! standard library's 1,790 files, two passes of 11 bits — where a
//! comparison sort spends `log n` comparisons per item.

use rayon::prelude::*;

/// Bits per pass: 2,048 counters per chunk of items stay in the first-level
/// cache.
const DIGIT: u32 = 11;

/// Below this many items one thread's `sort_by_key` is as fast.
const SMALL: usize = 1 << 14;

/// Sorts `items` by `key`, every key below `2^bits`, keeping the order of
/// equal keys (a stable sort).
pub(crate) fn sort_by_small_key<T, K>(items: &mut [T], bits: u32, key: K)
where
    T: Copy + Send + Sync,
    K: Fn(&T) -> u64 + Sync,
{
    debug_assert!(bits == 64 || items.iter().all(|x| key(x) >> bits == 0));
    if items.len() < SMALL || bits > 64 {
        items.sort_by_key(|x| key(x));
        return;
    }
    let Some(&first) = items.first() else {
        return;
    };
    let mut scratch = vec![first; items.len()];
    let mut shift = 0;
    let mut swapped = false;
    while shift < bits {
        let width = DIGIT.min(bits - shift);
        let digit = |x: &T| (key(x) >> shift) as usize & ((1 << width) - 1);
        let (from, to) = if swapped {
            (&scratch[..], &mut items[..])
        } else {
            (&items[..], &mut scratch[..])
        };
        pass(from, to, 1 << width, &digit);
        swapped = !swapped;
        shift += width;
    }
    if swapped {
        items.copy_from_slice(&scratch);
    }
}

/// One counting-sort pass: `from` scattered into `to` by `digit` (below
/// `radix`), stably. Each chunk of `from` counts its digits, then writes
/// into its own part of every digit's range.
fn pass<T, D>(from: &[T], to: &mut [T], radix: usize, digit: &D)
where
    T: Copy + Send + Sync,
    D: Fn(&T) -> usize + Sync,
{
    let per_chunk = from.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let chunks: Vec<&[T]> = from.chunks(per_chunk).collect();
    let counts: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|chunk| {
            let mut c = vec![0usize; radix];
            for x in *chunk {
                c[digit(x)] += 1;
            }
            c
        })
        .collect();
    // Digit-major, chunk-minor parts of `to`: chunk `c`'s items of digit
    // `d` follow those of the chunks before it, so equal digits keep their
    // order.
    let mut parts: Vec<Vec<&mut [T]>> = (0..chunks.len())
        .map(|_| Vec::with_capacity(radix))
        .collect();
    let mut rest = to;
    for d in 0..radix {
        for (c, count) in counts.iter().enumerate() {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(count[d]);
            parts[c].push(head);
            rest = tail;
        }
    }
    parts
        .into_par_iter()
        .zip(chunks.par_iter())
        .for_each(|(mut slots, chunk)| {
            let mut next = vec![0usize; radix];
            for x in *chunk {
                let d = digit(x);
                slots[d][next[d]] = *x;
                next[d] += 1;
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Equal to the standard library's stable sort, ties in their
        /// order, for any number of bits and of passes.
        #[test]
        fn equals_a_stable_sort(
            bits in 1u32..40,
            len in 0usize..60_000,
            seed in any::<u64>(),
        ) {
            let mut state = seed;
            let mut next = || {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                state >> 11
            };
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            // Keys drawn from a few values too, so that ties are common.
            let few = next() % 2 == 0;
            let items: Vec<(u64, u32)> = (0..len as u32)
                .map(|i| {
                    let k = if few { next() % 7 } else { next() };
                    (k & mask, i)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|x| x.0);
            let mut sorted = items;
            sort_by_small_key(&mut sorted, bits, |x| x.0);
            prop_assert_eq!(sorted, expected);
        }
    }

    #[test]
    fn large_inputs_take_every_pass() {
        // 22 bits: two passes of 11; 33: three; a key using only the top
        // digit and one using only the bottom.
        for bits in [22u32, 33] {
            let n = 3 * SMALL + 17;
            let items: Vec<(u64, u32)> = (0..n as u32)
                .map(|i| {
                    let k = u64::from(i.wrapping_mul(2_654_435_761)) % (1 << bits);
                    (k, i)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|x| x.0);
            let mut sorted = items;
            sort_by_small_key(&mut sorted, bits, |x| x.0);
            assert_eq!(sorted, expected, "{bits} bits");
        }
    }
}
