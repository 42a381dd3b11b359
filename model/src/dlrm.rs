//! DLRM preprocessing operators on 32-bit lanes (BALBOA's application slot example): Neg2Zero
//! and Logarithm (`ln(1 + x)`) on f32 features, Modulus on u32 categorical ids. This is the
//! bit-exact integer model of the hardware lane (`hw/src/service/dlrm.rs`); its accuracy is
//! tested against Rust's `f32::ln_1p`/`f64::ln_1p`, which we did not write.
//!
//! **Logarithm**, for `x = mx · 2^(ex-150)` (f32, `mx` with the hidden bit):
//! * `x < 2^-24` (zero and subnormals included): `x` (the series `x - x²/2 …` rounds to `x`);
//! * `2^-24 ≤ x < 2^-7`: `x · q(x)`, `q(d) = 1 - d/2 + d²/3 - d³/4` in 48-bit fixed point;
//! * `2^-7 ≤ x < 2^24`: `y = 1 + x` exactly in fixed point, `y = m · 2^e`, `m = c·(1 + d)` with
//!   `c = 1 + i/128` from the top 7 fraction bits of `m` (tables of `1/c` and `ln c`), and
//!   `ln(1 + x) = e·ln 2 + ln c + d·q(d)`, `0 ≤ d < 2^-7`;
//! * `x ≥ 2^24`: the same with `y = x` (`ln(1 + x) - ln x < 2^-24`, below 1/32 ulp there);
//! * `+∞ → +∞`, NaN → quiet NaN, `-0 → -0`; negative inputs are outside the operator's domain
//!   and give the canonical NaN (apply Neg2Zero first, as DLRM does).
//!
//! The result is rounded to nearest, ties to even, from at least 41 significant bits whose
//! error is below 2^-35 relative, so the error bound is [`LOG_ULP_BOUND`] (0.54 ulp, of which
//! 1/32 ulp for `x ≥ 2^24`); `hw/tests/service_dlrm.rs` measures it over every exponent.
//!
//! **Modulus** by a configured constant `M` without a divider: `q = ⌊x · R / 2^64⌋` with the
//! reciprocal `R = ⌊2^64 / M⌋` ([`mod_magic`], computed by the driver), `r = x - q·M`, then one
//! correction (`r ≥ M → r - M`), since `q` is at most one short. `M = 1` gives 0, `M = 0` passes
//! the value through.

/// Per-QP operation codes (3 bits).
pub mod op {
    pub const PASS: u8 = 0;
    pub const NEG2ZERO: u8 = 1;
    pub const LOG: u8 = 2;
    /// Neg2Zero, then Logarithm: DLRM's dense-feature transform.
    pub const NEG2ZERO_LOG: u8 = 3;
    pub const MODULUS: u8 = 4;
}

pub const QNAN: u32 = 0x7fc0_0000;
/// Fraction bits of the fixed-point arithmetic.
pub const FRAC: u32 = 48;
/// The logarithm's error bound in units in the last place of the correctly rounded result.
pub const LOG_ULP_BOUND: f64 = 0.54;

/// `ceil(2^48 / (1 + i/128))`: the reciprocal table.
pub fn rc(i: usize) -> u64 {
    let n = 1u128 << 55;
    let d = 128 + i as u128;
    n.div_ceil(d) as u64
}

/// `round(ln(1 + i/128) · 2^48)`: the logarithm table.
pub fn lnc(i: usize) -> u64 {
    ((i as f64 / 128.0).ln_1p() * (1u64 << FRAC) as f64).round() as u64
}

/// `round(ln 2 · 2^48)`.
pub fn ln2() -> u64 {
    (std::f64::consts::LN_2 * (1u64 << FRAC) as f64).round() as u64
}

pub const C3: u64 = 93_824_992_236_885; // round(2^48 / 3)

/// `q(d) · 2^48` for `d = D / 2^48 < 2^-7`.
pub fn poly(d: u128) -> u128 {
    let one = 1u128 << FRAC;
    // Horner: 1 - d·(1/2 - d·(1/3 - d/4))
    let t3 = C3 as u128 - (d >> 2);
    let t2 = (one >> 1) - ((d * t3) >> FRAC);
    one - ((d * t2) >> FRAC)
}

/// `v · 2^scale` (v > 0, at least 24 significant bits) rounded to an f32, nearest-even.
pub fn pack(v: u128, scale: i32) -> u32 {
    let mut lp = 127 - v.leading_zeros() as i32;
    let sh = lp - 23;
    let mut mant = (v >> sh) as u64;
    let rem = v & ((1u128 << sh) - 1);
    let half = 1u128 << (sh - 1);
    if rem > half || (rem == half && mant & 1 == 1) {
        mant += 1;
    }
    if mant == 1 << 24 {
        mant >>= 1;
        lp += 1;
    }
    (((lp + scale + 127) as u32) << 23) | (mant as u32 & 0x7f_ffff)
}

/// `ln(1 + x)` on f32 bits, as the hardware computes it.
pub fn log1p(x: u32) -> u32 {
    let (s, ex, fr) = (x >> 31, (x >> 23) & 0xff, x & 0x7f_ffff);
    if ex == 255 {
        return if fr != 0 { x | 0x40_0000 } else if s == 0 { x } else { QNAN };
    }
    if s == 1 {
        return if ex == 0 && fr == 0 { x } else { QNAN };
    }
    if ex < 103 {
        return x;
    }
    let mx = (fr | 1 << 23) as u128;
    if ex < 120 {
        let q = poly(mx << (ex - 102));
        return pack(mx * q, ex as i32 - 150 - FRAC as i32);
    }
    let (e, f48) = if ex < 151 {
        let y = (1u128 << 30) + (mx << (ex - 120));
        let lp = 127 - y.leading_zeros();
        let frac = y - (1u128 << lp);
        (lp - 30, if lp <= 48 { frac << (48 - lp) } else { frac >> (lp - 48) })
    } else {
        (ex - 127, (fr as u128) << 25)
    };
    let i = (f48 >> 41) as usize;
    let p = ((1u128 << FRAC) + f48) * rc(i) as u128;
    let d = (p >> FRAC).saturating_sub(1u128 << FRAC);
    let t = (d * poly(d)) >> FRAC;
    pack(e as u128 * ln2() as u128 + lnc(i) as u128 + t, -(FRAC as i32))
}

/// Neg2Zero: every value with the sign set (-0, negatives, -∞) becomes +0; NaN passes.
pub fn neg2zero(x: u32) -> u32 {
    let nan = (x >> 23) & 0xff == 0xff && x & 0x7f_ffff != 0;
    if x >> 31 == 1 && !nan {
        0
    } else {
        x
    }
}

/// `⌊2^64 / m⌋` for `m ≥ 2` (0 otherwise): the reciprocal the driver writes beside `m`.
pub fn mod_magic(m: u32) -> u64 {
    if m < 2 {
        0
    } else {
        ((1u128 << 64) / m as u128) as u64
    }
}

/// `x mod m` by reciprocal multiplication, as the hardware computes it.
pub fn modulus(x: u32, m: u32, r: u64) -> u32 {
    match m {
        0 => x,
        1 => 0,
        _ => {
            let q = ((x as u128 * r as u128) >> 64) as u64;
            let rem = x as u64 - q * m as u64;
            (if rem >= m as u64 { rem - m as u64 } else { rem }) as u32
        }
    }
}

/// One lane under operation `op`.
pub fn lane(op: u8, x: u32, m: u32, r: u64) -> u32 {
    match op {
        op::NEG2ZERO => neg2zero(x),
        op::LOG => log1p(x),
        op::NEG2ZERO_LOG => log1p(neg2zero(x)),
        op::MODULUS => modulus(x, m, r),
        _ => x,
    }
}

/// Distance in ulps between an f32 result and the exact value `want` (f64).
pub fn ulps(got: f32, want: f64) -> f64 {
    let w = want as f32;
    let ulp = (f32::from_bits(w.to_bits() + 1) as f64 - w as f64).abs();
    (got as f64 - want).abs() / ulp
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: Rust's `f64::ln_1p` (accurate well below an f32 ulp), over every exponent
    /// with random mantissas and the edges of each binade.
    #[test]
    fn log_error_bound_over_every_exponent() {
        let mut worst = (0.0f64, 0u32);
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for ex in 0..255u32 {
            for k in 0..400u32 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let fr = match k {
                    0 => 0,
                    1 => 0x7f_ffff,
                    2 => 1,
                    _ => s as u32 & 0x7f_ffff,
                };
                let x = ex << 23 | fr;
                let got = f32::from_bits(log1p(x));
                let want = (f32::from_bits(x) as f64).ln_1p();
                let e = ulps(got, want);
                if e > worst.0 {
                    worst = (e, x);
                }
                // and Rust's f32 function itself
                let rust = f32::from_bits(x).ln_1p();
                assert!(ulps(rust, want) <= 1.0 || ulps(got, want) <= LOG_ULP_BOUND);
            }
        }
        eprintln!("ln_1p: worst {:.4} ulp at {:#010x}", worst.0, worst.1);
        assert!(worst.0 <= LOG_ULP_BOUND, "worst {:.4} ulp at {:#010x}", worst.0, worst.1);
    }

    #[test]
    fn specials_and_neg2zero() {
        for (x, want) in [(0u32, 0u32), (0x8000_0000, 0x8000_0000), (0x7f80_0000, 0x7f80_0000), (0xff80_0000, QNAN), (0xbf80_0000, QNAN), (0x0000_0001, 1)] {
            assert_eq!(log1p(x), want, "{x:#x}");
        }
        assert!(f32::from_bits(log1p(0x7f80_0001)).is_nan());
        assert_eq!(log1p(0x7f7f_ffff), (f32::MAX as f64).ln_1p().to_bits_f32());
        for (x, want) in [(0x8000_0000u32, 0u32), (0xbf80_0000, 0), (0xff80_0000, 0), (0x3f80_0000, 0x3f80_0000), (0xffc0_0001, 0xffc0_0001), (0x8000_0001, 0)] {
            assert_eq!(neg2zero(x), want, "{x:#x}");
        }
    }

    #[test]
    fn modulus_is_exact() {
        let mut s = 88172645463325252u64;
        for m in [2u32, 3, 7, 10, 1000, 65_537, 1 << 20, 0x7fff_ffff, 0xffff_fffe, 0xffff_ffff] {
            let r = mod_magic(m);
            for x in [0u32, 1, m - 1, m, m.wrapping_add(1), u32::MAX, u32::MAX - 1] {
                assert_eq!(modulus(x, m, r), x % m, "{x} mod {m}");
            }
            for _ in 0..20_000 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let x = s as u32;
                assert_eq!(modulus(x, m, r), x % m, "{x} mod {m}");
            }
        }
        assert_eq!(modulus(77, 1, mod_magic(1)), 0);
        assert_eq!(modulus(77, 0, 0), 77);
    }

    trait Bits32 {
        fn to_bits_f32(self) -> u32;
    }
    impl Bits32 for f64 {
        fn to_bits_f32(self) -> u32 {
            (self as f32).to_bits()
        }
    }
}
