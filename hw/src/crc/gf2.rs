//! CRC-32 (reflected polynomial 0xEDB88320) as GF(2) matrices, computed at generation time.
//!
//! The raw register update over bytes is linear: `s' = A^n·s ⊕ M·d`. For a 64-byte beat, `M`
//! is a 32×512 matrix and `A^64` a 32×32 one. A last beat with `k` valid bytes is processed as
//! a full beat with its invalid bytes zeroed, which leaves `A^(64-k)·s_k`; multiplying by
//! `A^-(64-k)` (the CRC step is invertible) recovers `s_k`. Each matrix is a list of rows, each
//! row a bitmask over the inputs (u64 words, input bit j in word j/64).
pub const POLY: u32 = 0xEDB8_8320;

/// Raw byte-wise update (no pre- or post-inversion).
pub fn crc32_raw(mut s: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        s ^= b as u32;
        for _ in 0..8 {
            s = if s & 1 != 0 { (s >> 1) ^ POLY } else { s >> 1 };
        }
    }
    s
}

/// Undo `n` zero-byte steps: the `s` with `crc32_raw(s, &[0; n]) == t`.
pub fn crc32_unstep(mut t: u32, n: usize) -> u32 {
    for _ in 0..8 * n {
        t = if t & 0x8000_0000 != 0 { ((t ^ POLY) << 1) | 1 } else { t << 1 };
    }
    t
}

/// A GF(2) matrix with `O` rows over `I` inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gf2Matrix {
    pub inputs: usize,
    pub rows: Vec<Vec<u64>>,
}

impl Gf2Matrix {
    /// Build from a linear function given as the image of each unit input vector.
    pub fn from_fn(inputs: usize, outputs: usize, f: impl Fn(usize) -> u64) -> Self {
        let words = inputs.div_ceil(64);
        let mut rows = vec![vec![0u64; words]; outputs];
        for j in 0..inputs {
            let out = f(j);
            for (i, row) in rows.iter_mut().enumerate() {
                if out >> i & 1 == 1 {
                    row[j / 64] |= 1 << (j % 64);
                }
            }
        }
        Gf2Matrix { inputs, rows }
    }
    /// Word-level evaluation: output bit i = parity(row_i & x).
    pub fn apply(&self, x: &[u64]) -> u64 {
        let mut out = 0u64;
        for (i, row) in self.rows.iter().enumerate() {
            let mut acc = 0u32;
            for (r, v) in row.iter().zip(x) {
                acc ^= (r & v).count_ones();
            }
            out |= ((acc & 1) as u64) << i;
        }
        out
    }
    /// The most inputs any output depends on.
    pub fn max_fan_in(&self) -> usize {
        self.rows.iter().map(|r| r.iter().map(|w| w.count_ones() as usize).sum()).max().unwrap_or(0)
    }
}

/// `M`: contribution of a 64-byte beat (byte k = bits 8k+7..8k) to a zero state.
pub fn beat_matrix() -> Gf2Matrix {
    Gf2Matrix::from_fn(512, 32, |j| {
        let mut b = [0u8; 64];
        b[j / 8] = 1 << (j % 8);
        crc32_raw(0, &b) as u64
    })
}

/// `A^n` for n ≥ 0 zero bytes.
pub fn shift_matrix(n: usize) -> Gf2Matrix {
    Gf2Matrix::from_fn(32, 32, |j| crc32_raw(1 << j, &vec![0u8; n]) as u64)
}

/// `A^-n`.
pub fn unshift_matrix(n: usize) -> Gf2Matrix {
    Gf2Matrix::from_fn(32, 32, |j| crc32_unstep(1 << j, n) as u64)
}

/// The raw register after eight 0xFF bytes from 0xFFFFFFFF (the ICRC's masked-LRH stand-in),
/// rewound over the 14 Ethernet header bytes that enter the engine as zeros.
pub fn icrc_seed() -> u32 {
    crc32_unstep(crc32_raw(0xFFFF_FFFF, &[0xff; 8]), 14)
}

/// The raw register after a message followed by its own CRC (little-endian): a constant.
pub fn crc32_residue() -> u32 {
    let msg = b"nicgen";
    let c = !crc32_raw(0xFFFF_FFFF, msg);
    let mut v = msg.to_vec();
    v.extend(c.to_le_bytes());
    crc32_raw(0xFFFF_FFFF, &v)
}
