//! Service slots on Verilator: the payload slot (shell + an 11-cycle core) keeps every byte and
//! every packet's metadata under random gaps and backpressure at every residue, moves one beat
//! per cycle with a fixed latency, and agrees with rust-hdl cycle for cycle; the parallel tap
//! joins each frame with its own verdict under adversarial verdict timing.
mod common;
use common::*;
use nicgen_hw::service::slot::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;

fn meta_of(i: usize) -> SlotMetaFields {
    SlotMetaFields { qpn: (i as u32 * 7919) & 0xFF_FFFF, psn: (0xFF_FFF0 + i as u32) & 0xFF_FFFF, off: 0, opcode: (i % 256) as u8 }
}

/// Frames through the slot with per-frame metadata; checks data, `tuser`, and the metadata
/// (with `off` counting 64 bytes per beat) of every output beat. Returns the cycles taken.
fn slot_run<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], valid: u32, ready: u32, seed: u64) -> u64 {
    sim.reset(2);
    let (s_meta, m_meta, m_valid, m_ready, overrun) = (sim.port("s_meta"), sim.port("m_meta"), sim.port("m_axis$tvalid"), sim.port("m_axis$tready"), sim.port("overrun"));
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    let mut m = AxisMonitor::new(sim, "m_axis", ready, seed + 9);
    for f in frames {
        d.push(f.clone());
    }
    let (mut quiet, mut cycles, mut beat) = (0, 0u64, 0u16);
    while quiet < 40 {
        sim.set(s_meta, &meta_of(d.frames as usize).to_words());
        d.drive(sim);
        m.drive(sim);
        sim.eval();
        d.sample(sim);
        let moving = sim.get_bit(m_valid) && sim.get_bit(m_ready);
        if moving {
            let got = SlotMetaFields::from_words(&sim.get_words(m_meta));
            let mut want = meta_of(m.frames.len());
            want.off = beat * 64;
            assert_eq!(got, want, "frame {} beat {beat}", m.frames.len());
        }
        let before = m.frames.len();
        let got = m.sample(sim);
        if got {
            beat = if m.frames.len() > before { 0 } else { beat + 1 };
        }
        sim.tick();
        cycles += 1;
        quiet = if got || !d.idle() { 0 } else { quiet + 1 };
        assert!(cycles < 2_000_000, "slot stalled");
    }
    assert_eq!(m.frames.len(), frames.len());
    for (i, (g, f)) in m.frames.iter().zip(frames).enumerate() {
        assert_eq!((&g.data, g.user), (&f.data, f.user), "frame {i} (len {})", f.data.len());
    }
    assert_eq!(sim.get_u64(overrun), 0, "the core returned a beat the FIFO could not take");
    cycles
}

#[test]
fn payload_slot_random_backpressure_every_residue() {
    let mut v = verilate(&mut PayloadSlot11::default());
    for (seed, valid, ready) in [(1, 70, 60), (2, 100, 25), (3, 30, 100), (4, 97, 97)] {
        let mut rng = Rng::new(seed);
        let lens = residue_and_long_lengths(&mut rng, 10);
        let frames = random_frames(&mut rng, &lens, 10);
        slot_run(&mut v, &frames, valid, ready, seed);
    }
}

#[test]
fn payload_slot_line_rate_and_latency() {
    let mut v = verilate(&mut PayloadSlot11::default());
    let frames = random_frames(&mut Rng::new(5), &[4096; 8], 0);
    let (cycles, beats) = full_rate_cycles(&mut v, &frames);
    assert_eq!(beats, 512);
    assert_eq!(cycles, 512, "a slot must move one beat per cycle");
    // latency: one single-beat frame into an idle slot
    v.reset(2);
    let mut d = AxisDriver::new(&v, "s_axis", 100, 1);
    let m = AxisMonitor::new(&v, "m_axis", 100, 2);
    d.push(AxisFrame::new(vec![7; 64]));
    let mut b = StreamBench::new(vec![d], vec![m]);
    let start = v.cycle();
    b.drain(&mut v, 20, 1000);
    assert_eq!(b.monitors[0].frames[0].first_cycle - start, 11 + 1, "slot latency is the core's 11 cycles plus 1 (the shell's FIFO falls through)");
}

#[test]
fn payload_slot_lock_step() {
    let mut d = Diff::new(verilate(&mut PayloadSlot11::default()), RustHdlSim::new(PayloadSlot11::default()));
    let mut rng = Rng::new(11);
    let lens: Vec<usize> = (1..=130).step_by(3).collect();
    let frames = random_frames(&mut rng, &lens, 10);
    slot_run(&mut d, &frames, 70, 60, 11);
}

/// A frame whose BTH fields sit where an IPv4 or IPv6 RoCE frame has them.
fn tap_frame(rng: &mut Rng, len: usize, v6: bool) -> AxisFrame {
    let mut b = rng.bytes(len);
    if len >= 14 {
        b[12..14].copy_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
    }
    AxisFrame { data: b, user: rng.chance(10) }
}

fn be24(b: &[u8]) -> u32 {
    (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32
}

/// The testbench is the tap core: it answers each frame's last tap beat with a random verdict
/// after a random delay of 1..=8 cycles (verdicts stay in order, at most one per cycle).
fn tap_run<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], valid: u32, ready: u32, seed: u64) {
    sim.reset(2);
    let p = |s: &S, n: &str| s.port(n);
    let (tap, tap_valid, vd, vd_valid) = (p(sim, "tap"), p(sim, "tap_valid"), p(sim, "verdict"), p(sim, "verdict_valid"));
    let mut rng = Rng::new(seed ^ 0xabc);
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    let mut m = AxisMonitor::new(sim, "m_axis", ready, seed + 9);
    for f in frames {
        d.push(f.clone());
    }
    let mut pending: std::collections::VecDeque<(u64, u8)> = Default::default();
    let mut verdicts = vec![];
    let (mut tap_frames, mut tap_beat, mut quiet, mut cycles) = (0usize, 0u16, 0, 0u64);
    while quiet < 40 {
        let now = sim.cycle();
        let fire = pending.front().is_some_and(|(t, _)| *t == now);
        sim.set_bit(vd_valid, fire);
        sim.set_u64(vd, pending.front().map(|x| x.1 as u64).unwrap_or(0));
        if fire {
            pending.pop_front();
        }
        d.drive(sim);
        m.drive(sim);
        sim.eval();
        if sim.get_bit(tap_valid) {
            let b = SlotBeat::from_words(&sim.get_words(tap));
            let f = &frames[tap_frames];
            let meta = SlotMetaFields::from_words(&nicgen_sim::StructWords::to_words(&b.meta));
            assert_eq!(meta.off, tap_beat * 64, "tap frame {tap_frames}");
            if f.data.len() >= 74 {
                let v6 = f.data[12] == 0x86;
                let bth = if v6 { 62 } else { 42 };
                let want = (be24(&f.data[bth + 5..]), be24(&f.data[bth + 9..]), f.data[bth]);
                // IPv6: the QPN and PSN are in the second beat
                let want = if v6 && tap_beat == 0 { (0, 0, want.2) } else { want };
                assert_eq!((meta.qpn, meta.psn, meta.opcode), want, "tap frame {tap_frames} beat {tap_beat} meta");
            }
            tap_beat += 1;
            if b.last {
                let v = [verdict::PASS, verdict::FLAG, verdict::DROP][rng.range(0, 2) as usize];
                let at = (now + rng.range(1, 8)).max(pending.back().map(|x| x.0 + 1).unwrap_or(0)).max(now + 1);
                pending.push_back((at, v));
                verdicts.push(v);
                tap_frames += 1;
                tap_beat = 0;
            }
        }
        d.sample(sim);
        let got = m.sample(sim);
        sim.tick();
        cycles += 1;
        quiet = if got || !d.idle() || !pending.is_empty() { 0 } else { quiet + 1 };
        assert!(cycles < 2_000_000, "tap stalled");
    }
    check_tap_verdicts(sim, &m.frames, frames, &verdicts, |i| format!("len {}", frames[i].data.len()));
}

#[test]
fn tap_verdicts_stay_with_their_frames() {
    let mut v = verilate(&mut TapJoin8::default());
    for (seed, valid, ready) in [(1, 100, 100), (2, 70, 60), (3, 100, 20), (4, 40, 100)] {
        let mut rng = Rng::new(seed);
        let mut lens = residue_and_long_lengths(&mut rng, 6);
        lens.extend(std::iter::repeat_n(64, 60)); // back-to-back one-beat frames
        let frames: Vec<AxisFrame> = lens.iter().map(|&l| { let v6 = rng.chance(30); tap_frame(&mut rng, l, v6) }).collect();
        tap_run(&mut v, &frames, valid, ready, seed);
    }
}

#[test]
fn tap_lock_step() {
    let mut d = Diff::new(verilate(&mut TapJoin8::default()), RustHdlSim::new(TapJoin8::default()));
    let mut rng = Rng::new(3);
    let lens: Vec<usize> = (40..=200).step_by(7).collect();
    let frames: Vec<AxisFrame> = lens.iter().map(|&l| tap_frame(&mut rng, l, l % 2 == 0)).collect();
    tap_run(&mut d, &frames, 80, 70, 3);
}
