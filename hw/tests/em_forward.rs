//! Dual-port forwarding with failover on Verilator: links go down and up in the middle of
//! traffic (random gaps, backpressure on both ports, every last-beat residue); every frame
//! leaves whole on exactly the port its start cycle's link state names (preferred, else the
//! other, else dropped and counted), in order per port; lock step.
mod common;
use common::residue_and_long_lengths;
use nicgen_hw::em::forward::{EmForward, EmForward1024};
use nicgen_sim::axis::*;
use nicgen_sim::*;

/// Link state (bit 0: port 0) at cycle `c`: both up, then port 0 down, both down, port 1 down,
/// flapping, both up.
fn link(c: u64) -> u32 {
    match c {
        0..=2999 => 3,
        3000..=5999 => 2,
        6000..=6999 => 0,
        7000..=9999 => 1,
        10000..=11999 => 1 + 2 * ((c / 97) % 2) as u32,
        _ => 3,
    }
}

struct Res {
    out: [Vec<Vec<u8>>; 2],
    starts: Vec<u64>,
    counters: Vec<u64>,
}

fn run<S: CycleSim>(sim: &mut S, frames: &[Vec<u8>], prefs: &[bool], valid: u32, ready: u32, seed: u64) -> Res {
    sim.reset(2);
    let (lp, sp) = (sim.port("link_up"), sim.port("s_port"));
    let bytes = sim.ports()[sim.port("s_axis$tdata")].width / 8;
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    for f in frames {
        d.push(AxisFrame::new(f.clone()));
    }
    let m0 = AxisMonitor::new(sim, "m_axis_p0", ready, seed + 1);
    let m1 = AxisMonitor::new(sim, "m_axis_p1", ready, seed + 2);
    let mut b = StreamBench::new(vec![d], vec![m0, m1]);
    let (mut starts, mut offset, mut quiet) = (vec![], 0usize, 0);
    // one cycle with the links set (reset cleared every input): the registered state is link(0)
    sim.set(lp, &[link(0)]);
    sim.eval();
    sim.tick();
    let t0 = sim.cycle();
    while quiet < 30 {
        let c = sim.cycle() - t0;
        sim.set(lp, &[link(c)]);
        let k = b.drivers[0].frames as usize;
        sim.set_bit(sp, k < prefs.len() && prefs[k]);
        let before = b.drivers[0].beats;
        let moved = b.step_with(sim, |_| false);
        if b.drivers[0].beats > before {
            if offset == 0 {
                starts.push(c);
            }
            offset += bytes;
            if offset >= frames[k].len() {
                offset = 0;
            }
        }
        quiet = if moved || !b.drivers[0].idle() { 0 } else { quiet + 1 };
        assert!(c < 2_000_000, "forwarder stalled");
    }
    let out = [b.monitors[0].frames.iter().map(|f| f.data.clone()).collect(), b.monitors[1].frames.iter().map(|f| f.data.clone()).collect()];
    let counters = ["frames_p0", "frames_p1", "failover", "drop_link_down"].iter().map(|n| sim.get_u64(sim.port(n))).collect();
    Res { out, starts, counters }
}

fn check(frames: &[Vec<u8>], prefs: &[bool], r: &Res) -> [u64; 4] {
    assert_eq!(r.starts.len(), frames.len());
    let mut want: [Vec<&Vec<u8>>; 2] = [vec![], vec![]];
    let mut n = [0u64; 4];
    for (i, f) in frames.iter().enumerate() {
        // the state the forwarder saw: the link inputs one cycle before the first beat
        let up = link(r.starts[i].saturating_sub(1));
        let p = prefs[i] as usize;
        let port = if up >> p & 1 == 1 { Some(p) } else if up >> (1 - p) & 1 == 1 { Some(1 - p) } else { None };
        match port {
            Some(q) => {
                want[q].push(f);
                n[q] += 1;
                n[2] += (q != p) as u64;
            }
            None => n[3] += 1,
        }
    }
    for q in 0..2 {
        assert_eq!(r.out[q].len(), want[q].len(), "port {q}");
        for (k, (g, w)) in r.out[q].iter().zip(&want[q]).enumerate() {
            assert_eq!(g, *w, "port {q}, frame {k}: whole and in order");
        }
    }
    assert_eq!(r.counters, n.to_vec());
    n
}

/// `n` frames (enough to outlast the link schedule at the bus width).
fn failover_runs<S: CycleSim>(sim: &mut S, n: usize) {
    let mut rng = Rng::new(3);
    let mut lens = residue_and_long_lengths(&mut rng, 40);
    while lens.len() < n {
        lens.push(rng.range(60, 700) as usize);
    }
    let frames: Vec<Vec<u8>> = lens.iter().map(|n| rng.bytes(*n)).collect();
    let prefs: Vec<bool> = frames.iter().map(|_| rng.chance(50)).collect();
    for (valid, ready, seed) in [(100, 100, 1), (80, 70, 2), (60, 50, 3)] {
        let r = run(sim, &frames, &prefs, valid, ready, seed);
        let n = check(&frames, &prefs, &r);
        assert!(n[..3].iter().all(|x| *x > 10) && n[3] > 0, "every outcome: {n:?}");
        // the bound: after port 0 goes down (cycle 3000), no frame starts on it; after it comes
        // back (7000) it carries frames again
        let on0: Vec<u64> = r.starts.iter().zip(&prefs).filter(|(s, p)| !**p && (3001..6000).contains(*s)).map(|(s, _)| *s).collect();
        assert!(!on0.is_empty());
        assert!(r.counters[2] > 0);
    }
}

#[test]
fn failover_in_the_middle_of_traffic() {
    failover_runs(&mut verilate(&mut EmForward::default()), 1400);
}

/// The same at 1024 bits (the lengths 1..=192 cover every 128-byte residue).
#[test]
fn failover_in_the_middle_of_traffic_at_1024_bits() {
    failover_runs(&mut verilate(&mut EmForward1024::default()), 2800);
}

#[test]
fn lock_step() {
    let mut rng = Rng::new(4);
    let frames: Vec<Vec<u8>> = (0..150).map(|_| { let n = rng.range(1, 300) as usize; rng.bytes(n) }).collect();
    let prefs: Vec<bool> = frames.iter().map(|_| rng.chance(50)).collect();
    let mut sim = Diff::new(verilate(&mut EmForward::default()), RustHdlSim::new(EmForward::default()));
    let r = run(&mut sim, &frames, &prefs, 70, 60, 5);
    check(&frames, &prefs, &r);
    let mut sim = Diff::new(verilate(&mut EmForward1024::default()), RustHdlSim::new(EmForward1024::default()));
    let r = run(&mut sim, &frames, &prefs, 70, 60, 6);
    check(&frames, &prefs, &r);
}
