//! Skid buffer and FIFO on Verilator (every residue, up to 9 KiB, random gaps and
//! backpressure), in lock step against rust-hdl, and at full rate.
mod common;
use common::*;
use nicgen_hw::stream::*;
use nicgen_sim::axis::AxisFrame;
use nicgen_sim::*;

fn check_passthrough<S: CycleSim>(sim: &mut S, n_long: usize, seed: u64, valid: u32, ready: u32) {
    let mut rng = Rng::new(seed);
    let lens = residue_and_long_lengths(&mut rng, n_long);
    let frames = random_frames(&mut rng, &lens, 10);
    let (got, _) = pass_through(sim, &frames, valid, ready, seed);
    assert_eq!(got.len(), frames.len());
    for (i, (g, f)) in got.iter().zip(&frames).enumerate() {
        assert_eq!(g, f, "frame {i} (len {}) differs", f.data.len());
    }
}

#[test]
fn skid_verilator_random() {
    let mut v = verilate(&mut AxisSkid512::default());
    for (seed, valid, ready) in [(1, 70, 60), (2, 100, 30), (3, 30, 100), (4, 95, 95)] {
        check_passthrough(&mut v, 20, seed, valid, ready);
    }
}

#[test]
fn skid_lock_step() {
    let v = verilate(&mut AxisSkid512::default());
    let r = RustHdlSim::new(AxisSkid512::default());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(9);
    let frames = random_frames(&mut rng, &(1..=130).collect::<Vec<_>>(), 10);
    let (got, _) = pass_through(&mut d, &frames, 70, 60, 9);
    assert_eq!(got, frames);
}

#[test]
fn skid_full_rate() {
    let mut v = verilate(&mut AxisSkid512::default());
    let frames = random_frames(&mut Rng::new(5), &[640; 20], 0);
    let (cycles, beats) = full_rate_cycles(&mut v, &frames);
    assert_eq!(beats, 200);
    assert_eq!(cycles, 200, "skid must move one beat per cycle");
}

#[test]
fn fifo_verilator_random() {
    let mut v = verilate(&mut AxisFifo512::default());
    for (seed, valid, ready) in [(1, 70, 60), (2, 100, 20), (3, 30, 100), (4, 95, 95)] {
        check_passthrough(&mut v, 20, seed, valid, ready);
    }
}

#[test]
fn fifo_lock_step() {
    let v = verilate(&mut AxisFifo512::default());
    let r = RustHdlSim::new(AxisFifo512::default());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(11);
    let frames = random_frames(&mut rng, &(1..=130).collect::<Vec<_>>(), 10);
    let (got, _) = pass_through(&mut d, &frames, 80, 40, 11);
    assert_eq!(got, frames);
}

#[test]
fn fifo_full_rate_and_fill() {
    let mut v = verilate(&mut AxisFifo512::default());
    let frames = random_frames(&mut Rng::new(5), &[640; 20], 0);
    let (cycles, beats) = full_rate_cycles(&mut v, &frames);
    assert_eq!(beats, 200);
    assert_eq!(cycles, 200, "FIFO must move one beat per cycle");
    // fill it completely with no reader, then drain: nothing lost, level reaches the depth
    v.reset(2);
    let mut d = nicgen_sim::axis::AxisDriver::new(&v, "s_axis", 100, 3);
    let frames = random_frames(&mut Rng::new(6), &[64 * 600], 0);
    d.push(frames[0].clone());
    let tr = v.port("m_axis$tready");
    let lvl = v.port("level");
    for _ in 0..700 {
        d.drive(&mut v);
        v.set_bit(tr, false);
        v.eval();
        d.sample(&mut v);
        v.tick();
    }
    assert_eq!(v.get_u64(lvl), 512, "RAM level when full");
    assert_eq!(d.beats, 512 + 2, "RAM depth plus the two-entry output stage");
    let m = nicgen_sim::axis::AxisMonitor::new(&v, "m_axis", 50, 4);
    let mut b = nicgen_sim::axis::StreamBench::new(vec![d], vec![m]);
    b.drain(&mut v, 30, 100_000);
    assert_eq!(b.monitors[0].frames[0].data, frames[0].data);
}

/// Frame mode: flagged frames and frames that do not fit are dropped and counted, never
/// backpressuring; everything else arrives whole and in order.
fn frame_fifo_tb<S: CycleSim>(sim: &mut S, n: usize, seed: u64, ready: u32) {
    let mut rng = Rng::new(seed);
    let mut frames = vec![];
    for i in 0..n {
        let len = match i % 7 { 0 => 512 * 64 + rng.range(1, 64) as usize, _ => rng.range(1, 3000) as usize };
        frames.push(AxisFrame { data: rng.bytes(len), user: rng.chance(20) });
    }
    sim.reset(2);
    let mut d = nicgen_sim::axis::AxisDriver::new(sim, "s_axis", 90, seed);
    d.no_ready = true; // a MAC: the FIFO must never push back
    let m = nicgen_sim::axis::AxisMonitor::new(sim, "m_axis", ready, seed + 1);
    for f in &frames {
        d.push(f.clone());
    }
    let tr = sim.port("s_axis$tready");
    let mv = sim.port("m_axis$tvalid");
    let mut b = nicgen_sim::axis::StreamBench::new(vec![d], vec![m]);
    let mut quiet = 0;
    while quiet < 50 {
        b.step(sim);
        assert!(sim.get_bit(tr), "frame FIFO pushed back");
        // done when the input is spent and nothing more is offered
        quiet = if sim.get_bit(mv) || !b.drivers[0].idle() { 0 } else { quiet + 1 };
    }
    let got: Vec<Vec<u8>> = b.monitors[0].frames.iter().map(|f| f.data.clone()).collect();
    assert!(b.monitors[0].frames.iter().all(|f| !f.user));
    let bad = { let p = sim.port("drop_bad"); sim.get_u64(p) };
    let ovf = { let p = sim.port("drop_overflow"); sim.get_u64(p) };
    // every frame out is an input frame that was neither flagged nor too big, in order
    let mut k = 0;
    for f in &frames {
        if k < got.len() && got[k] == f.data {
            assert!(!f.user && f.data.len() <= 512 * 64);
            k += 1;
        }
    }
    assert_eq!(k, got.len(), "output frames are an in-order subsequence of the input");
    let n_user = frames.iter().filter(|f| f.user && f.data.len() <= 512 * 64).count() as u64;
    assert!(bad <= frames.iter().filter(|f| f.user).count() as u64 && bad >= n_user.saturating_sub(ovf));
    assert_eq!(got.len() as u64 + bad + ovf, frames.len() as u64, "every frame delivered or counted: got {} bad {bad} ovf {ovf}", got.len());
    if ready == 100 {
        // with a reader at full speed only the oversized frames overflow
        assert_eq!(ovf, frames.iter().filter(|f| f.data.len() > 512 * 64).count() as u64);
    }
}

#[test]
fn frame_fifo_drops_and_counts() {
    let mut v = verilate(&mut AxisFrameFifo512::new());
    frame_fifo_tb(&mut v, 60, 1, 100);
    frame_fifo_tb(&mut v, 60, 2, 40);
    frame_fifo_tb(&mut v, 60, 3, 5);
}

#[test]
fn frame_fifo_lock_step() {
    let v = verilate(&mut AxisFrameFifo512::new());
    let r = RustHdlSim::new(AxisFrameFifo512::new());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(4);
    let frames: Vec<AxisFrame> = (0..30).map(|_| { let n = rng.range(1, 200) as usize; AxisFrame { data: rng.bytes(n), user: rng.chance(30) } }).collect();
    let (got, _) = pass_through(&mut d, &frames, 80, 50, 4);
    let exp: Vec<AxisFrame> = frames.iter().filter(|f| !f.user).cloned().collect();
    assert_eq!(got, exp);
}
