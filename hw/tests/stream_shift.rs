//! Header stripper and inserter on Verilator (every residue and shift, random gaps and
//! backpressure, frames up to 9 KiB), in lock step against rust-hdl, and at full rate.
mod common;
use nicgen_hw::stream::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;

/// Run the stripper: frame i loses its first `ns[i]` bytes.
fn run_strip<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], ns: &[usize], valid: u32, ready: u32, seed: u64) -> (Vec<AxisFrame>, u64, u64) {
    let (out, cycles) = common::run_with_frame_param(sim, "strip_len", frames, ns, valid, ready, seed);
    let runts = { let p = sim.port("runts"); sim.get_u64(p) };
    (out, runts, cycles)
}

fn strip_expect(frames: &[AxisFrame], ns: &[usize]) -> (Vec<AxisFrame>, u64) {
    let mut out = vec![];
    let mut runts = 0;
    for (f, &n) in frames.iter().zip(ns) {
        if f.data.len() > n {
            out.push(AxisFrame { data: f.data[n..].to_vec(), user: f.user });
        } else {
            runts += 1;
        }
    }
    (out, runts)
}

fn bus_bytes<S: CycleSim>(sim: &S) -> usize {
    sim.ports()[sim.port("s_axis$tdata")].width / 8
}

fn strip_every_shift_and_residue_on<S: CycleSim>(sim: &mut S) {
    let bytes = bus_bytes(sim);
    let mut rng = Rng::new(1);
    let mut frames = vec![];
    let mut ns = vec![];
    for n in 0..=255usize {
        for _ in 0..3 {
            let len = match rng.below(4) { 0 => rng.range(1, 64), 1 => rng.range(n as u64 + 1, n as u64 + 130), 2 => rng.range(1, 400), _ => rng.range(1, 9216) } as usize;
            frames.push(AxisFrame { data: rng.bytes(len), user: rng.chance(10) });
            ns.push(n);
        }
    }
    // every output residue at this width, whatever the random lengths gave
    for r in 0..bytes {
        frames.push(AxisFrame { data: rng.bytes(5 + bytes + r + 1), user: false });
        ns.push(5);
    }
    for (seed, valid, ready) in [(1, 100, 100), (2, 60, 50), (3, 90, 30)] {
        let (got, runts, _) = run_strip(sim, &frames, &ns, valid, ready, seed);
        let (exp, exp_runts) = strip_expect(&frames, &ns);
        assert_eq!(got.len(), exp.len());
        for (i, (g, e)) in got.iter().zip(&exp).enumerate() {
            assert_eq!(g, e, "output frame {i}");
        }
        assert_eq!(runts, exp_runts);
        assert!(runts > 50);
    }
    // every residue of the output's last beat was seen
    let (exp, _) = strip_expect(&frames, &ns);
    assert_eq!(exp.iter().map(|f| f.data.len() % bytes).collect::<std::collections::BTreeSet<_>>().len(), bytes);
}

#[test]
fn strip_every_shift_and_residue() {
    strip_every_shift_and_residue_on(&mut verilate(&mut AxisStrip::default()));
}

#[test]
fn strip_every_shift_and_residue_at_1024_bits() {
    strip_every_shift_and_residue_on(&mut verilate(&mut AxisStrip1024::default()));
}

fn strip_lock_step_and_full_rate_on<T: Default + nicgen_sim::rusthdl::PortAccess + rust_hdl::prelude::Block>() {
    let mut rng = Rng::new(2);
    let frames: Vec<AxisFrame> = (0..40).map(|_| { let n = rng.range(1, 300) as usize; AxisFrame::new(rng.bytes(n)) }).collect();
    let ns: Vec<usize> = (0..40).map(|_| rng.below(140) as usize).collect();
    let mut d = Diff::new(verilate(&mut T::default()), RustHdlSim::new(T::default()));
    let (got, _, _) = run_strip(&mut d, &frames, &ns, 70, 60, 5);
    assert_eq!(got, strip_expect(&frames, &ns).0);
    // full rate: 20 frames of 10 beats, stripping 42 bytes: 10 output beats each, no bubble
    let mut sim = verilate(&mut T::default());
    let bytes = bus_bytes(&sim);
    let frames: Vec<AxisFrame> = (0..20).map(|_| AxisFrame::new(rng.bytes(10 * bytes))).collect();
    let (got, _, cycles) = run_strip(&mut sim, &frames, &[42; 20], 100, 100, 1);
    assert_eq!(got.len(), 20);
    // 200 input beats, plus the pipeline fill and the 30-cycle drain
    assert!(cycles <= 200 + 3 + 30, "II=1: {cycles} cycles");
    // one-beat frames back to back (each leaves from the carry the cycle after its beat): II=1
    let frames: Vec<AxisFrame> = (0..40).map(|_| { let n = rng.range(43, bytes as u64) as usize; AxisFrame::new(rng.bytes(n)) }).collect();
    let (got, _, cycles) = run_strip(&mut sim, &frames, &[42; 40], 100, 100, 3);
    assert_eq!(got, strip_expect(&frames, &[42; 40]).0);
    assert!(cycles <= 40 + 3 + 30, "II=1 on one-beat frames: {cycles} cycles");
}

#[test]
fn strip_lock_step_and_full_rate() {
    strip_lock_step_and_full_rate_on::<AxisStrip>();
    strip_lock_step_and_full_rate_on::<AxisStrip1024>();
}

struct Hdr {
    bytes: Vec<u8>,
    only: bool,
}

fn run_insert<S: CycleSim>(sim: &mut S, hdrs: &[Hdr], payloads: &[AxisFrame], valid: u32, ready: u32, seed: u64) -> (Vec<AxisFrame>, u64) {
    sim.reset(2);
    let (hd, hl, ho, hv, hr) = (sim.port("hdr_data"), sim.port("hdr_len"), sim.port("hdr_only"), sim.port("hdr_valid"), sim.port("hdr_ready"));
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    let mut m = AxisMonitor::new(sim, "m_axis", ready, seed + 9);
    for f in payloads {
        d.push(f.clone());
    }
    let mut rng = Rng::new(seed + 1);
    let mut hi = 0;
    let mut quiet = 0;
    let mut cycles = 0;
    let mut hv_now = false;
    while quiet < 30 {
        if !hv_now {
            hv_now = hi < hdrs.len() && rng.chance(valid);
        }
        if hi < hdrs.len() {
            sim.set(hd, &pack_beat(&hdrs[hi].bytes, 128));
            sim.set_u64(hl, hdrs[hi].bytes.len() as u64);
            sim.set_bit(ho, hdrs[hi].only);
        }
        sim.set_bit(hv, hv_now);
        d.drive(sim);
        m.drive(sim);
        sim.eval();
        if hv_now && sim.get_bit(hr) {
            hi += 1;
            hv_now = false;
        }
        d.sample(sim);
        let got = m.sample(sim);
        sim.tick();
        cycles += 1;
        quiet = if got || !d.idle() || hi < hdrs.len() { 0 } else { quiet + 1 };
        assert!(cycles < 1_000_000, "stalled");
    }
    (m.frames.iter().map(|f| AxisFrame { data: f.data.clone(), user: f.user }).collect(), cycles)
}

fn insert_case(rng: &mut Rng, n: usize) -> (Vec<Hdr>, Vec<AxisFrame>, Vec<AxisFrame>) {
    let (mut hdrs, mut pays, mut exp) = (vec![], vec![], vec![]);
    for i in 0..n {
        let hl = (i % 129).max(if rng.chance(10) { 1 } else { 0 });
        let h = rng.bytes(hl);
        if hl > 0 && rng.chance(10) {
            exp.push(AxisFrame::new(h.clone()));
            hdrs.push(Hdr { bytes: h, only: true });
            continue;
        }
        let len = match rng.below(3) { 0 => rng.range(1, 128), 1 => rng.range(1, 600), _ => rng.range(1, 9216 - 128) } as usize;
        let p = AxisFrame { data: rng.bytes(len), user: rng.chance(10) };
        let mut e = h.clone();
        e.extend(&p.data);
        exp.push(AxisFrame { data: e, user: p.user });
        pays.push(p);
        hdrs.push(Hdr { bytes: h, only: false });
    }
    (hdrs, pays, exp)
}

fn insert_every_length_and_residue_on<S: CycleSim>(sim: &mut S) {
    let bytes = bus_bytes(sim);
    let mut rng = Rng::new(3);
    let (mut hdrs, mut pays, mut exp) = insert_case(&mut rng, 129 * 4);
    // every output residue at this width, whatever the random lengths gave
    for r in 0..bytes {
        let (h, p) = (rng.bytes(10), rng.bytes(bytes + r + 1));
        exp.push(AxisFrame::new([h.clone(), p.clone()].concat()));
        hdrs.push(Hdr { bytes: h, only: false });
        pays.push(AxisFrame::new(p));
    }
    for (seed, valid, ready) in [(1, 100, 100), (2, 60, 50), (3, 90, 30)] {
        let (got, _) = run_insert(sim, &hdrs, &pays, valid, ready, seed);
        assert_eq!(got.len(), exp.len());
        for (i, (g, e)) in got.iter().zip(&exp).enumerate() {
            assert_eq!(g, e, "frame {i} (header {} bytes, only {})", hdrs[i].bytes.len(), hdrs[i].only);
        }
    }
    assert_eq!(exp.iter().map(|f| f.data.len() % bytes).collect::<std::collections::BTreeSet<_>>().len(), bytes);
}

#[test]
fn insert_every_length_and_residue() {
    insert_every_length_and_residue_on(&mut verilate(&mut AxisInsert::default()));
}

#[test]
fn insert_every_length_and_residue_at_1024_bits() {
    insert_every_length_and_residue_on(&mut verilate(&mut AxisInsert1024::default()));
}

fn insert_lock_step_and_full_rate_on<T: Default + nicgen_sim::rusthdl::PortAccess + rust_hdl::prelude::Block>() {
    let mut rng = Rng::new(4);
    let (hdrs, pays, exp) = insert_case(&mut rng, 30);
    let pays_small: Vec<AxisFrame> = pays.iter().map(|p| AxisFrame { data: p.data[..p.data.len().min(300)].to_vec(), user: p.user }).collect();
    let exp_small: Vec<AxisFrame> = {
        let mut k = 0;
        hdrs.iter().map(|h| {
            if h.only { AxisFrame::new(h.bytes.clone()) } else { let p = &pays_small[k]; k += 1; let mut e = h.bytes.clone(); e.extend(&p.data); AxisFrame { data: e, user: p.user } }
        }).collect()
    };
    let _ = exp;
    let mut d = Diff::new(verilate(&mut T::default()), RustHdlSim::new(T::default()));
    let (got, _) = run_insert(&mut d, &hdrs, &pays_small, 70, 60, 5);
    assert_eq!(got, exp_small);
    // full rate: 54-byte headers on 10-beat payloads: 11 output beats per frame, 1 per cycle
    let mut sim = verilate(&mut T::default());
    let bytes = bus_bytes(&sim);
    let hdrs: Vec<Hdr> = (0..20).map(|_| Hdr { bytes: rng.bytes(54), only: false }).collect();
    let pays: Vec<AxisFrame> = (0..20).map(|_| AxisFrame::new(rng.bytes(10 * bytes))).collect();
    let (got, cycles) = run_insert(&mut sim, &hdrs, &pays, 100, 100, 1);
    assert_eq!(got.len(), 20);
    // 220 output beats; the header hand-over costs one cycle per frame
    assert!(cycles <= 220 + 20 + 3 + 30, "{cycles} cycles");
    // frames that end on a payload beat that does not spill (54-byte headers on 2 beats - 54
    // bytes of payload: two output beats each) follow each other without a gap: the next
    // header waits in the buffer and starts as the last beat leaves
    let hdrs: Vec<Hdr> = (0..40).map(|_| Hdr { bytes: rng.bytes(54), only: false }).collect();
    let pays: Vec<AxisFrame> = (0..40).map(|_| AxisFrame::new(rng.bytes(2 * bytes - 54))).collect();
    let (got, cycles) = run_insert(&mut sim, &hdrs, &pays, 100, 100, 2);
    assert_eq!(got.len(), 40);
    assert!(got.iter().zip(&hdrs).zip(&pays).all(|((g, h), p)| g.data[..54] == h.bytes[..] && g.data[54..] == p.data[..]));
    assert!(cycles <= 80 + 33, "{cycles} cycles for 80 output beats");
}

#[test]
fn insert_lock_step_and_full_rate() {
    insert_lock_step_and_full_rate_on::<AxisInsert>();
    insert_lock_step_and_full_rate_on::<AxisInsert1024>();
}
