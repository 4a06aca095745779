use std::time::Instant;
const B: u64 = 0x9E37_79B9_7F4A_7C15;
struct T { inn: [u64; 256], out: [u64; 256] }
fn tables(k: usize) -> T {
    let bk1 = B.wrapping_pow(k as u32 + 1);
    let mut t = T { inn: [0; 256], out: [0; 256] };
    for c in 0..256u64 { t.inn[c as usize] = c.wrapping_mul(B); t.out[c as usize] = c.wrapping_mul(bk1); }
    t
}
fn start(x: &[u8]) -> u64 { x.iter().fold(0u64, |h, &c| h.wrapping_add(c as u64).wrapping_mul(B)) }

#[inline(never)]
fn lanes<const L: usize>(t: &T, input: &[u8], k: usize, out: &mut [u64]) {
    let n = out.len();
    let q = n / L;
    let mut st = [0u64; L];
    for j in 0..L { st[j] = start(&input[j * q..j * q + k]); }
    let (outs, _) = out.split_at_mut(q * L);
    for i in 0..q {
        for j in 0..L {
            let p = j * q + i;
            outs[p] = st[j];
            let d = t.inn[input[p + k] as usize].wrapping_sub(t.out[input[p] as usize]);
            st[j] = st[j].wrapping_mul(B).wrapping_add(d);
        }
    }
}

// Interleaved lanes over words: lane j handles positions i*L + j? No: stride layout.
#[inline(never)]
fn words4(t: &T, input: &[u8], k: usize, out: &mut [u64]) {
    const L: usize = 4;
    let n = out.len();
    let q = (n / L) & !7;
    let mut st = [0u64; L];
    for j in 0..L { st[j] = start(&input[j * q..j * q + k]); }
    for blk in 0..q / 8 {
        let mut wo = [0u64; L];
        let mut wi = [0u64; L];
        for j in 0..L {
            let p = j * q + blk * 8;
            wo[j] = u64::from_le_bytes(input[p..p + 8].try_into().unwrap());
            wi[j] = u64::from_le_bytes(input[p + k..p + k + 8].try_into().unwrap());
        }
        for b in 0..8 {
            for j in 0..L {
                let p = j * q + blk * 8 + b;
                out[p] = st[j];
                let ci = (wi[j] >> (8 * b)) as u8;
                let co = (wo[j] >> (8 * b)) as u8;
                let d = t.inn[ci as usize].wrapping_sub(t.out[co as usize]);
                st[j] = st[j].wrapping_mul(B).wrapping_add(d);
            }
        }
    }
}

fn main() {
    let n = 64_000_000usize;
    let mut x = 1u64;
    let input: Vec<u8> = (0..n).map(|_| { x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (x >> 56) as u8 }).collect();
    let k = 50;
    let t = tables(k);
    let chunk = 16 * 1024;
    let mut out = vec![0u64; chunk];
    for round in 0..2 {
        for name in ["l2", "l3", "l4", "l6", "l8", "w4"] {
            let s = Instant::now();
            let mut acc = 0u64;
            let mut first = 0;
            while first + chunk + k < n {
                let inp = &input[first..first + chunk + k];
                match name { "l2" => lanes::<2>(&t, inp, k, &mut out), "l3" => lanes::<3>(&t, inp, k, &mut out), "l4" => lanes::<4>(&t, inp, k, &mut out), "l6" => lanes::<6>(&t, inp, k, &mut out), "l8" => lanes::<8>(&t, inp, k, &mut out), _ => words4(&t, inp, k, &mut out) }
                acc = acc.wrapping_add(out[100]);
                first += chunk;
            }
            let e = s.elapsed().as_secs_f64();
            if round == 1 { println!("{name}: {:.0} MB/s  {:.2} ns/hash ({acc})", n as f64 / e / 1e6, e * 1e9 / n as f64); }
        }
    }
}
