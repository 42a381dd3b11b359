//! DLRM preprocessing in the application slot, on Verilator: every lane of every beat against
//! the bit-exact model (`nicgen_model::dlrm`), and against references we did not write: Rust's
//! `f64::ln_1p` for the logarithm (within the stated bound, over every exponent), Rust's float
//! comparison for Neg2Zero, and Rust's `%` for Modulus. Edge cases: ±0, ±∞, quiet and signaling
//! NaNs of both signs, subnormals, the largest finite values, the boundaries of the
//! logarithm's ranges; random gaps and backpressure, every `tkeep` residue; QPs bound to each
//! operation, an unbound QP, and the TX side passing everything.
mod common;
use common::*;
use nicgen_hw::service::dlrm::{mod_writes, reg, DLRM_LATENCY};
use nicgen_hw::service::slot::*;
use nicgen_model::dlrm::{self, op, LOG_ULP_BOUND};
use nicgen_sim::axis::*;
use nicgen_sim::*;

const M: u32 = 1_000_003;

/// Values that matter: specials, subnormals, extremes, range boundaries, every exponent.
fn values(rng: &mut Rng) -> Vec<u32> {
    let mut v = vec![0u32, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0xff80_0001, 0x7fbf_ffff, 1, 0x8000_0001, 0x007f_ffff, 0x0080_0000, 0x7f7f_ffff, 0xff7f_ffff, 0x3f80_0000, 0xbf80_0000, 0xbf00_0000];
    for ex in [102u32, 103, 119, 120, 150, 151, 254] {
        v.extend([ex << 23, ex << 23 | 0x7f_ffff, (ex - 1) << 23 | 0x7f_ffff]);
    }
    for ex in 0..256u32 {
        for _ in 0..24 {
            v.push(ex << 23 | (rng.next_u64() as u32 & 0x7f_ffff) | (rng.chance(15) as u32) << 31);
        }
    }
    v
}

/// Rust's float semantics for Neg2Zero: negatives and -0 become +0, NaN stays NaN.
fn n2z_ref(x: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        x
    } else if f < 0.0 || (f == 0.0 && f.is_sign_negative()) {
        0
    } else {
        x
    }
}

/// The logarithm against `f64::ln_1p` on the domain (x ≥ 0 after Neg2Zero).
fn check_log(x: u32, got: u32) {
    let f = f32::from_bits(x);
    let g = f32::from_bits(got);
    if f.is_nan() || (f < 0.0) {
        assert!(g.is_nan(), "ln_1p({x:#010x}) = {got:#010x}, want NaN");
    } else if f.is_infinite() || f == 0.0 {
        assert_eq!(got, x, "ln_1p({x:#010x})");
    } else {
        let e = dlrm::ulps(g, (f as f64).ln_1p());
        assert!(e <= LOG_ULP_BOUND, "ln_1p({x:#010x}) = {got:#010x}: {e:.3} ulp");
    }
}

#[test]
fn dlrm_slot_matches_the_model_and_rust_on_every_lane() {
    let mut sim = verilate(&mut DlrmSlot::default());
    sim.reset(2);
    let cfg = sim.port("cfg");
    let bind = [(5u32, op::NEG2ZERO_LOG), (6, op::LOG), (7, op::NEG2ZERO), (8, op::MODULUS), (300, op::LOG)];
    for (q, o) in bind {
        slot_cfg_write(&mut sim, cfg, reg::QP_OP, q | (o as u32) << 24);
    }
    let r = dlrm::mod_magic(M);
    for (a, v) in mod_writes(M) {
        slot_cfg_write(&mut sim, cfg, a, v);
    }
    let mut rng = Rng::new(9);
    let vals = values(&mut rng);
    // packets: QPs 5..9 and 300 (9: unbound), every length 1..=192, then long ones carrying
    // every value under each operation
    let qpns = [5u32, 6, 7, 8, 9, 300];
    let mut pkts: Vec<(u32, Vec<u8>)> = vec![];
    for len in 1..=192usize {
        let q = qpns[len % qpns.len()];
        let b: Vec<u8> = (0..len.div_ceil(4)).flat_map(|_| vals[rng.below(vals.len() as u64) as usize].to_le_bytes()).take(len).collect();
        pkts.push((q, b));
    }
    for q in qpns {
        for chunk in vals.chunks(1024) {
            pkts.push((q, chunk.iter().flat_map(|x| x.to_le_bytes()).collect()));
        }
    }
    let frames: Vec<AxisFrame> = pkts.iter().map(|(_, d)| AxisFrame::new(d.clone())).collect();
    let metas: Vec<Vec<u32>> = pkts.iter().map(|(q, _)| SlotMetaFields { qpn: *q, psn: 0, off: 0, opcode: 0x10 }.to_words()).collect();
    let opof = |q: u32| bind.iter().find(|b| b.0 == q).map_or(op::PASS, |b| b.1);
    let mut lanes = [0usize; 5];
    for (k, (valid, ready)) in [(100u32, 100u32), (60, 70)].into_iter().enumerate() {
        let (out, cycles) = run_with_frame_words_held(&mut sim, "s_meta", &frames, &metas, &[("rx", true)], valid, ready, k as u64 + 1);
        assert_eq!(out.len(), pkts.len());
        assert_eq!(sim.get_u64(sim.port("overrun")), 0);
        for (i, ((q, d), o)) in pkts.iter().zip(&out).enumerate() {
            assert_eq!(o.data.len(), d.len(), "packet {i}");
            let opc = opof(*q);
            for (j, (x, y)) in d.chunks(4).zip(o.data.chunks(4)).enumerate() {
                if x.len() < 4 {
                    assert_eq!(x, y, "packet {i}: a partial lane passes");
                    continue;
                }
                let (x, y) = (u32::from_le_bytes(x.try_into().unwrap()), u32::from_le_bytes(y.try_into().unwrap()));
                assert_eq!(y, dlrm::lane(opc, x, M, r), "packet {i} (QP {q}, op {opc}), lane {j}: {x:#010x}");
                match opc {
                    op::NEG2ZERO => assert_eq!(y, n2z_ref(x)),
                    op::LOG => check_log(x, y),
                    op::NEG2ZERO_LOG => check_log(n2z_ref(x), y),
                    op::MODULUS => assert_eq!(y, x % M),
                    _ => assert_eq!(y, x),
                }
                lanes[opc as usize] += (k == 0) as usize;
            }
        }
        if k == 0 {
            let beats: u64 = pkts.iter().map(|(_, d)| d.len().div_ceil(64) as u64).sum();
            assert!(cycles <= beats + DLRM_LATENCY as u64 + 3 + 45, "one beat per cycle: {cycles} cycles for {beats} beats");
        }
    }
    assert!(lanes.iter().all(|n| *n >= 6000), "lanes checked per operation: {lanes:?}");
    // other moduli, including 1 (zero) and 0 (the value passes)
    let mq: Vec<usize> = (0..pkts.len()).filter(|i| pkts[*i].0 == 8).collect();
    let (mf, mm): (Vec<AxisFrame>, Vec<Vec<u32>>) = mq.iter().map(|i| (frames[*i].clone(), metas[*i].clone())).unzip();
    for m in [1u32, 0, 7, 0xffff_ffff, 0x8000_0000] {
        for (a, v) in mod_writes(m) {
            slot_cfg_write(&mut sim, cfg, a, v);
        }
        let (out, _) = run_with_frame_words_held(&mut sim, "s_meta", &mf, &mm, &[("rx", true)], 90, 90, m as u64);
        for (f, o) in mf.iter().zip(&out) {
            for (x, y) in f.data.chunks_exact(4).zip(o.data.chunks_exact(4)) {
                let (x, y) = (u32::from_le_bytes(x.try_into().unwrap()), u32::from_le_bytes(y.try_into().unwrap()));
                assert_eq!(y, if m == 0 { x } else { x % m }, "{x} mod {m}");
            }
        }
    }
    // the TX side passes everything
    let (out, _) = run_with_frame_words_held(&mut sim, "s_meta", &frames[..200], &metas[..200], &[("rx", false)], 80, 80, 7);
    for (f, o) in frames.iter().zip(&out) {
        assert_eq!(f.data, o.data, "TX side");
    }
}
