//! Shared testbench pieces for the hw tests.
#![allow(dead_code)]
use nicgen_sim::axis::*;
use nicgen_sim::*;

/// Frame lengths that cover every `tkeep` residue of the last beat (1..=192 bytes, so 1 to 3
/// beats) and a spread of long frames up to 9 KiB.
pub fn residue_and_long_lengths(rng: &mut Rng, n_long: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (1..=192).collect();
    v.extend([9216, 9215, 9153, 4096 + 1, 1500]);
    for _ in 0..n_long {
        v.push(rng.range(193, 9216) as usize);
    }
    v
}

pub fn random_frames(rng: &mut Rng, lens: &[usize], user_pct: u32) -> Vec<AxisFrame> {
    lens.iter().map(|&l| AxisFrame { data: rng.bytes(l), user: rng.chance(user_pct) }).collect()
}

/// Push `frames` into `s_axis`, collect `m_axis`, with random gaps and backpressure.
pub fn pass_through<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], valid_pct: u32, ready_pct: u32, seed: u64) -> (Vec<AxisFrame>, u64) {
    sim.reset(2);
    let mut d = AxisDriver::new(sim, "s_axis", valid_pct, seed);
    let m = AxisMonitor::new(sim, "m_axis", ready_pct, seed ^ 0x55);
    for f in frames {
        d.push(f.clone());
    }
    let mut b = StreamBench::new(vec![d], vec![m]);
    b.drain(sim, 30, 2_000_000);
    let got = b.monitors[0].frames.iter().map(|f| AxisFrame { data: f.data.clone(), user: f.user }).collect();
    (got, b.cycles)
}

/// Cycles taken to move `beats` beats with no gaps and no backpressure, from first input to last output.
pub fn full_rate_cycles<S: CycleSim>(sim: &mut S, frames: &[AxisFrame]) -> (u64, u64) {
    sim.reset(2);
    let mut d = AxisDriver::new(sim, "s_axis", 100, 1);
    let m = AxisMonitor::new(sim, "m_axis", 100, 2);
    for f in frames {
        d.push(f.clone());
    }
    let mut b = StreamBench::new(vec![d], vec![m]);
    b.drain(sim, 30, 2_000_000);
    let m = &b.monitors[0];
    let first = m.frames.first().unwrap().first_cycle;
    let last = m.frames.last().unwrap().last_cycle;
    (last - first + 1, m.beats)
}

/// Push `frames` into `s_axis` with `params[i]` on port `param` while frame `i` is offered (a
/// per-frame input sampled with the first beat), collect `m_axis`; random gaps and backpressure.
pub fn run_with_frame_param<S: CycleSim>(sim: &mut S, param: &str, frames: &[AxisFrame], params: &[usize], valid: u32, ready: u32, seed: u64) -> (Vec<AxisFrame>, u64) {
    let words: Vec<Vec<u32>> = params.iter().map(|&p| vec![p as u32, (p as u64 >> 32) as u32]).collect();
    run_with_frame_words(sim, param, frames, &words, valid, ready, seed)
}

/// [`run_with_frame_param`] for a port of any width: `words[i]` (32-bit words, least
/// significant first) while frame `i` is offered.
pub fn run_with_frame_words<S: CycleSim>(sim: &mut S, param: &str, frames: &[AxisFrame], words: &[Vec<u32>], valid: u32, ready: u32, seed: u64) -> (Vec<AxisFrame>, u64) {
    run_with_frame_words_held(sim, param, frames, words, &[], valid, ready, seed)
}

/// [`run_with_frame_words`] with the inputs `held` set to their values after the reset (which
/// zeroes every input).
#[allow(clippy::too_many_arguments)]
pub fn run_with_frame_words_held<S: CycleSim>(sim: &mut S, param: &str, frames: &[AxisFrame], words: &[Vec<u32>], held: &[(&str, bool)], valid: u32, ready: u32, seed: u64) -> (Vec<AxisFrame>, u64) {
    sim.reset(2);
    for (name, v) in held {
        let p = sim.port(name);
        sim.set_bit(p, *v);
    }
    let pp = sim.port(param);
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    let mut m = AxisMonitor::new(sim, "m_axis", ready, seed + 9);
    for f in frames {
        d.push(f.clone());
    }
    let mut quiet = 0;
    let mut cycles = 0u64;
    let idle = vec![0u32; words.first().map_or(1, |w| w.len())];
    while quiet < 30 {
        sim.set(pp, words.get(d.frames as usize).unwrap_or(&idle));
        d.drive(sim);
        m.drive(sim);
        sim.eval();
        d.sample(sim);
        let got = m.sample(sim);
        sim.tick();
        cycles += 1;
        quiet = if got || !d.idle() { 0 } else { quiet + 1 };
        assert!(cycles < 2_000_000, "stalled");
    }
    (m.frames.iter().map(|f| AxisFrame { data: f.data.clone(), user: f.user }).collect(), cycles)
}

/// A control-plane access to a QP table: with the `ctl_*` inputs already set, hold `ctl_req`
/// high until the design answers `ctl_done` (at most `max` cycles); `at_done` reads outputs in
/// that cycle. Then drop `ctl_req`.
pub fn ctl_handshake<S: CycleSim, T>(sim: &mut S, max: usize, mut at_done: impl FnMut(&mut S) -> T) -> T {
    let (req, done) = (sim.port("ctl_req"), sim.port("ctl_done"));
    sim.set_bit(req, true);
    for _ in 0..max {
        sim.eval();
        if sim.get_bit(done) {
            let v = at_done(sim);
            sim.tick();
            sim.set_bit(req, false);
            sim.eval();
            return v;
        }
        sim.tick();
    }
    panic!("control access never completed");
}

/// An Ethernet/IPv4 frame: `proto` 6 (TCP), 17 (UDP) or 1 (ICMP echo), `payload` after the L4
/// header, an 802.1Q tag if `vlan`.
pub fn em_frame(rng: &mut Rng, vlan: Option<u16>, proto: u8, dport: u16, payload: &[u8]) -> Vec<u8> {
    em_frame_ip(rng, false, vlan, proto, dport, payload)
}

/// An Ethernet/IPv6 frame (a random traffic class): `proto` 6 (TCP), 17 (UDP) or 58 (ICMPv6
/// echo), `payload` after the L4 header, an 802.1Q tag if `vlan`.
pub fn em_frame6(rng: &mut Rng, vlan: Option<u16>, proto: u8, dport: u16, payload: &[u8]) -> Vec<u8> {
    em_frame_ip(rng, true, vlan, proto, dport, payload)
}

fn em_frame_ip(rng: &mut Rng, v6: bool, vlan: Option<u16>, proto: u8, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mac = |r: &mut Rng| -> [u8; 6] { let b = r.bytes(6); [b[0] & 0xfe, b[1], b[2], b[3], b[4], b[5]] };
    let (sm, dm) = (mac(rng), mac(rng));
    let eth = etherparse::PacketBuilder::ethernet2(sm, dm);
    let b = if v6 {
        let addr = |r: &mut Rng| -> [u8; 16] { r.bytes(16).try_into().unwrap() };
        let (src, dst) = (addr(rng), addr(rng));
        eth.ipv6(src, dst, rng.range(1, 255) as u8)
    } else {
        let (src, dst) = (rng.next_u64() as u32, rng.next_u64() as u32);
        eth.ipv4(src.to_be_bytes(), dst.to_be_bytes(), rng.range(1, 255) as u8)
    };
    let sport = rng.range(1, 65535) as u16;
    let mut v = vec![];
    match proto {
        6 => b.tcp(sport, dport, rng.next_u64() as u32, 1000).write(&mut v, payload).unwrap(),
        17 => b.udp(sport, dport).write(&mut v, payload).unwrap(),
        _ if v6 => b.icmpv6_echo_request(7, 9).write(&mut v, payload).unwrap(),
        _ => b.icmpv4_echo_request(7, 9).write(&mut v, payload).unwrap(),
    }
    if v6 {
        let tc = rng.below(256) as u8;
        v[14] = 0x60 | tc >> 4;
        v[15] = (v[15] & 0x0f) | tc << 4;
    }
    if let Some(id) = vlan {
        v.splice(12..12, [0x81, 0x00, (id >> 8) as u8 & 0x0f, id as u8]);
    }
    v
}


/// One write into a service slot's configuration port `cfg` (an `SvcCfg`: we, addr, data),
/// held for a cycle, then idle for a cycle.
pub fn slot_cfg_write<S: CycleSim>(sim: &mut S, cfg: usize, addr: u8, data: u32) {
    let w = 1u64 | (addr as u64) << 1 | (data as u64) << 9;
    sim.set(cfg, &[w as u32, (w >> 32) as u32]);
    sim.eval();
    sim.tick();
    sim.set(cfg, &[0, 0]);
    sim.eval();
    sim.tick();
}

/// The parallel tap's output against each frame's verdict (0 pass, 1 flag, 2 drop): every frame
/// left with its data unchanged and `tuser` set when it came in bad or was dropped, and the tap's
/// `drops` and `flags` count the good frames dropped and flagged; nothing overran. `about(i)`
/// describes frame `i` for a failure.
pub fn check_tap_verdicts<S: CycleSim>(sim: &mut S, got: &[SeenFrame], sent: &[AxisFrame], verdicts: &[u8], about: impl Fn(usize) -> String) {
    assert_eq!(got.len(), sent.len());
    let (mut drops, mut flags) = (0, 0);
    for (i, ((g, f), v)) in got.iter().zip(sent).zip(verdicts).enumerate() {
        assert_eq!(g.data, f.data, "frame {i}");
        assert_eq!(g.user, f.user || *v == 2, "frame {i} ({}): tuser must carry its own verdict {v}", about(i));
        drops += (!f.user && *v == 2) as u64;
        flags += (!f.user && *v == 1) as u64;
    }
    assert_eq!(sim.get_u64(sim.port("drops")), drops, "drop counter");
    assert_eq!(sim.get_u64(sim.port("flags")), flags, "flag counter");
    assert_eq!(sim.get_u64(sim.port("overrun")), 0, "overrun");
}

/// Load a cut-through start threshold (`AxisCutFifo`, beats): `start` with a one-cycle
/// `start_load` pulse, then check that the port `now` reads it back.
pub fn load_start<S: CycleSim>(sim: &mut S, beats: u8, now: &str) {
    let (s, l, n) = (sim.port("start"), sim.port("start_load"), sim.port(now));
    sim.set_u64(s, beats as u64);
    sim.set_bit(l, true);
    sim.tick();
    sim.set_bit(l, false);
    assert_eq!(sim.get_u64(n), beats as u64, "start threshold loaded");
}
