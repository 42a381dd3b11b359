//! Skid buffer, FIFO and cut-through FIFO on Verilator (every residue, up to 9 KiB, random gaps
//! and backpressure), in lock step against rust-hdl, and at full rate.
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

/// The fall-through FIFO (`AxisFifo::new_fall_through`): every residue under random gaps and
/// backpressure, in lock step with rust-hdl, one beat per cycle, the same depth, and a beat that
/// finds it empty readable the next cycle (the plain FIFO: after 3).
#[test]
fn fall_through_fifo() {
    let mut v = verilate(&mut AxisFifo512::new_fall_through());
    for (seed, valid, ready) in [(1, 70, 60), (2, 100, 20), (3, 30, 100), (4, 95, 95)] {
        check_passthrough(&mut v, 20, seed, valid, ready);
    }
    let r = RustHdlSim::new(AxisFifo512::new_fall_through());
    let mut d = Diff::new(verilate(&mut AxisFifo512::new_fall_through()), r);
    let frames = random_frames(&mut Rng::new(12), &(1..=130).collect::<Vec<_>>(), 10);
    let (got, _) = pass_through(&mut d, &frames, 80, 40, 12);
    assert_eq!(got, frames);
    let frames = random_frames(&mut Rng::new(5), &[640; 20], 0);
    assert_eq!(full_rate_cycles(&mut v, &frames), (200, 200), "one beat per cycle");
    // latency: a lone beat into the empty FIFO, for both kinds
    for (mut sim, lat) in [(v, 1u64), (verilate(&mut AxisFifo512::default()), 3)] {
        sim.reset(2);
        let (tv, tl, mv, mr) = (sim.port("s_axis$tvalid"), sim.port("s_axis$tlast"), sim.port("m_axis$tvalid"), sim.port("m_axis$tready"));
        sim.set_bit(mr, true);
        sim.set_bit(tl, true);
        sim.set_bit(tv, true);
        sim.tick();
        sim.set_bit(tv, false);
        let mut n = 1;
        sim.eval();
        while !sim.get_bit(mv) {
            sim.tick();
            sim.eval();
            n += 1;
            assert!(n < 10);
        }
        assert_eq!(n, lat, "cycles from a beat in to the beat out");
    }
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
    let mut v = verilate(&mut AxisFrameFifo512::default());
    frame_fifo_tb(&mut v, 60, 1, 100);
    frame_fifo_tb(&mut v, 60, 2, 40);
    frame_fifo_tb(&mut v, 60, 3, 5);
}

#[test]
fn frame_fifo_lock_step() {
    let v = verilate(&mut AxisFrameFifo512::default());
    let r = RustHdlSim::new(AxisFrameFifo512::default());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(4);
    let frames: Vec<AxisFrame> = (0..30).map(|_| { let n = rng.range(1, 200) as usize; AxisFrame { data: rng.bytes(n), user: rng.chance(30) } }).collect();
    let (got, _) = pass_through(&mut d, &frames, 80, 50, 4);
    let exp: Vec<AxisFrame> = frames.iter().filter(|f| !f.user).cloned().collect();
    assert_eq!(got, exp);
}

/// The cut-through FIFO with threshold `start`, random gaps in and backpressure out: every
/// frame leaves once, whole, or as a prefix of whole beats ended by the abort beat (one byte,
/// `tlast` and `tuser`); `tvalid` never drops inside a frame and a beat offered is held until
/// taken. Returns the frames out and the aborts counted.
fn cut_fifo_tb<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], start: u8, valid: u32, ready: u32, seed: u64) -> (Vec<nicgen_sim::axis::SeenFrame>, u64) {
    sim.reset(2);
    load_start(sim, start, "thr_now");
    let d = nicgen_sim::axis::AxisDriver::new(sim, "s_axis", valid, seed);
    let m = nicgen_sim::axis::AxisMonitor::new(sim, "m_axis", ready, seed + 1);
    let mut b = nicgen_sim::axis::StreamBench::new(vec![d], vec![m]);
    for f in frames {
        b.drivers[0].push(f.clone());
    }
    let p = b.monitors[0].ports.clone();
    let (mut in_frame, mut held): (bool, Option<(Vec<u32>, Vec<u32>, bool, bool)>) = (false, None);
    let mut quiet = 0;
    while quiet < 40 {
        let moved = b.step_with(sim, |s| {
            let v = s.get_bit(p.tvalid);
            let r = s.get_bit(p.tready.unwrap());
            assert!(v || !in_frame, "cycle {}: tvalid low inside a frame", s.cycle());
            let beat = (s.get_words(p.tdata), s.get_words(p.tkeep), s.get_bit(p.tlast), s.get_bit(p.tuser.unwrap()));
            if let Some(h) = held.take() {
                assert!(v && h == beat, "cycle {}: an offered beat changed before it was taken", s.cycle());
            }
            if v && r {
                in_frame = !beat.2;
            } else if v {
                held = Some(beat);
            }
            false
        });
        quiet = if moved || !b.drivers[0].idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 2_000_000, "cut-through FIFO stalled");
    }
    let got = b.monitors[0].frames.clone();
    assert_eq!(got.len(), frames.len(), "every frame leaves once");
    let mut aborted = 0;
    for (i, (g, f)) in got.iter().zip(frames).enumerate() {
        if g.user {
            aborted += 1;
            let n = g.data.len() - 1;
            assert!(n % 64 == 0 && n < f.data.len(), "frame {i}: an abort ends a prefix of whole beats ({n} of {})", f.data.len());
            assert_eq!(&g.data[..n], &f.data[..n], "frame {i}: the aborted prefix differs");
        } else {
            assert_eq!(g.data, f.data, "frame {i} (len {}) differs", f.data.len());
        }
    }
    let (ap, tp) = (sim.port("aborts"), sim.port("thr_now"));
    assert_eq!(sim.get_u64(ap), aborted, "aborts counted");
    let mut thr = start as u64;
    for _ in 0..aborted {
        thr = (2 * thr + 1).min(255);
    }
    assert_eq!(sim.get_u64(tp), thr, "each abort doubles the threshold");
    (got, aborted)
}

fn cut_frames(seed: u64) -> Vec<AxisFrame> {
    let mut rng = Rng::new(seed);
    let mut lens: Vec<usize> = (1..=192).collect();
    lens.extend([8192, 8191, 4096 + 58, 1500, 4097]);
    for _ in 0..20 {
        lens.push(rng.range(193, 8192) as usize);
    }
    random_frames(&mut rng, &lens, 0)
}

#[test]
fn cut_fifo_frames_whole_or_aborted() {
    let mut v = verilate(&mut AxisCutFifo512::default());
    // a tail slower than the reader aborts frames (and raises the threshold until they fit)
    let (_, ab) = cut_fifo_tb(&mut v, &cut_frames(1), 0, 50, 100, 1);
    assert!(ab > 0, "a slow tail must abort some frame");
    let (_, ab) = cut_fifo_tb(&mut v, &cut_frames(2), 2, 60, 95, 2);
    assert!(ab > 0);
    cut_fifo_tb(&mut v, &cut_frames(3), 16, 70, 60, 3);
    cut_fifo_tb(&mut v, &cut_frames(4), 16, 95, 40, 4);
    // store and forward: nothing is aborted, whatever the gaps
    let (_, ab) = cut_fifo_tb(&mut v, &cut_frames(5), 255, 30, 100, 5);
    assert_eq!(ab, 0);
    // a tail that keeps up: nothing is aborted at any threshold
    for t in [0, 1, 16] {
        let (_, ab) = cut_fifo_tb(&mut v, &cut_frames(6), t, 100, 70, 6);
        assert_eq!(ab, 0, "threshold {t}");
    }
}

#[test]
fn cut_fifo_lock_step() {
    let v = verilate(&mut AxisCutFifo512::default());
    let r = RustHdlSim::new(AxisCutFifo512::default());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(8);
    let frames = random_frames(&mut rng, &[1, 64, 65, 700, 3000, 130, 4096, 9, 2000, 5000], 0);
    let (_, ab) = cut_fifo_tb(&mut d, &frames, 1, 60, 90, 8);
    assert!(ab > 0);
}

/// At full rate a frame's first beat leaves `start` beats after its first beat arrives (plus the
/// FIFO's own latency), a shorter frame once it is whole, and one beat leaves per cycle.
#[test]
fn cut_fifo_starts_at_the_threshold() {
    let mut v = verilate(&mut AxisCutFifo512::default());
    fn lat<S: CycleSim>(v: &mut S, start: u8, len: usize) -> (u64, u64) {
        let frames = random_frames(&mut Rng::new(3), &[len], 0);
        v.reset(2);
        load_start(v, start, "thr_now");
        let mut d = nicgen_sim::axis::AxisDriver::new(v, "s_axis", 100, 1);
        let m = nicgen_sim::axis::AxisMonitor::new(v, "m_axis", 100, 2);
        d.push(frames[0].clone());
        let t0 = v.cycle();
        let mut b = nicgen_sim::axis::StreamBench::new(vec![d], vec![m]);
        b.drain(v, 20, 10_000);
        let f = &b.monitors[0].frames[0];
        assert_eq!(f.data, frames[0].data);
        (f.first_cycle - t0, f.last_cycle - f.first_cycle + 1)
    }
    // beat k (from 0) arrives in cycle k and is readable from cycle k + 3, when the count
    // shows it: the frame starts as beat `start` - 1 becomes readable
    let (base, _) = lat(&mut v, 0, 64 * 64);
    assert_eq!(base, 3, "threshold 0: the FIFO's own latency");
    for t in [1u8, 8, 16, 32] {
        let (l, span) = lat(&mut v, t, 64 * 64);
        assert_eq!(l, base + t as u64 - 1, "threshold {t}");
        assert_eq!(span, 64, "64 beats in 64 cycles");
    }
    // a frame shorter than the threshold leaves once whole
    let (l4, _) = lat(&mut v, 16, 4 * 64);
    assert_eq!(l4, base + 3, "4-beat frame at threshold 16");
    assert_eq!(lat(&mut v, 255, 64 * 64).0, base + 63, "store and forward");
}


/// The RX frame FIFO: stored frames as in frame mode (flagged or oversized ones dropped and
/// counted); cut-through frames leave with their verdict (`tuser`) whole, or truncated by an
/// abort (whole beats, the last with `tuser`) when the buffer fills, or dropped whole when their
/// first beat finds no room. Order is kept and every frame is delivered or counted.
fn rx_fifo_tb<S: CycleSim>(sim: &mut S, n: usize, seed: u64, valid: u32, ready: u32) {
    let mut rng = Rng::new(seed);
    let mut frames = vec![];
    let mut cuts = vec![];
    for i in 0..n {
        let len = match i % 9 { 0 => 512 * 64 + rng.range(1, 64) as usize, _ => rng.range(1, 4200) as usize };
        frames.push(AxisFrame { data: rng.bytes(len), user: rng.chance(20) });
        cuts.push(rng.chance(50) as usize);
    }
    let (got, _) = run_with_frame_param(sim, "s_cut", &frames, &cuts, valid, ready, seed);
    let bad = { let p = sim.port("drop_bad"); sim.get_u64(p) };
    let ovf = { let p = sim.port("drop_overflow"); sim.get_u64(p) };
    let (mut k, mut aborts) = (0, 0u64);
    for (f, &cut) in frames.iter().zip(&cuts) {
        let Some(g) = got.get(k) else { break };
        if cut == 1 {
            if g.data == f.data && g.user == f.user {
                k += 1;
            } else if g.user && g.data.len() % 64 == 0 && g.data.len() < f.data.len() && f.data.starts_with(&g.data) {
                k += 1;
                aborts += 1;
            }
        } else if g.data == f.data {
            assert!(!g.user && !f.user, "a stored frame leaves only good");
            k += 1;
        }
    }
    assert_eq!(k, got.len(), "output frames are an in-order subsequence of the input (seed {seed})");
    assert!(aborts <= ovf);
    assert_eq!(got.len() as u64 + bad + (ovf - aborts), frames.len() as u64, "delivered {} bad {bad} ovf {ovf} aborts {aborts}", got.len());
    if ready == 100 {
        // a reader at full speed: only the oversized stored frames and oversized cut frames' ends
        let big_sf = frames.iter().zip(&cuts).filter(|(f, &c)| c == 0 && f.data.len() > 512 * 64).count() as u64;
        assert_eq!(ovf - aborts, big_sf);
    } else {
        assert!(aborts > 0, "a slow reader must make some cut frame abort (seed {seed})");
    }
}

#[test]
fn rx_fifo_cut_and_stored_frames() {
    let mut v = verilate(&mut AxisRxFifo512::default());
    rx_fifo_tb(&mut v, 80, 1, 90, 100);
    rx_fifo_tb(&mut v, 80, 2, 100, 40);
    rx_fifo_tb(&mut v, 80, 3, 70, 25);
}

#[test]
fn rx_fifo_lock_step() {
    let v = verilate(&mut AxisRxFifo512::default());
    let r = RustHdlSim::new(AxisRxFifo512::default());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(4);
    let frames: Vec<AxisFrame> = (0..40).map(|_| { let n = rng.range(1, 300) as usize; AxisFrame { data: rng.bytes(n), user: rng.chance(30) } }).collect();
    let cuts: Vec<usize> = (0..40).map(|_| rng.chance(50) as usize).collect();
    let (got, _) = run_with_frame_param(&mut d, "s_cut", &frames, &cuts, 80, 50, 4);
    let exp: Vec<AxisFrame> = frames.iter().zip(&cuts).filter(|(f, &c)| c == 1 || !f.user).map(|(f, _)| f.clone()).collect();
    assert_eq!(got, exp);
}

/// A cut frame's first beat is offered 3 cycles after it enters (write, RAM read, output register),
/// long before its end; a stored one only after its last beat.
#[test]
fn rx_fifo_cut_latency() {
    let mut v = verilate(&mut AxisRxFifo512::default());
    for cut in [true, false] {
        v.reset(2);
        let (pc, pv, pl, po) = (v.port("s_cut"), v.port("s_axis$tvalid"), v.port("s_axis$tlast"), v.port("m_axis$tvalid"));
        let (pk, pr) = (v.port("s_axis$tkeep"), v.port("m_axis$tready"));
        v.set(pk, &[u32::MAX; 2]);
        v.set_bit(pr, true);
        let mut first_out = None;
        for c in 0..80u64 {
            v.set_bit(pc, cut);
            v.set_bit(pv, c < 64);
            v.set_bit(pl, c == 63);
            v.eval();
            if first_out.is_none() && v.get_bit(po) {
                first_out = Some(c);
            }
            v.tick();
        }
        assert_eq!(first_out, Some(if cut { 3 } else { 66 }), "cut {cut}");
    }
}
