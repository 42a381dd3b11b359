//! The DMA write mux (responder and requester writes onto one host port) on Verilator and in
//! lock step: each command leaves followed by exactly its data, per-source order kept, under
//! random gaps and backpressure and every `tkeep` residue; and a write whose data has not
//! started never holds the port (the deadlock of a responder write queued behind a payload the
//! requester must first write).
use nicgen_hw::roce::dma::DmaWrMux;
use nicgen_hw::roce::DmaCmdFields;
use nicgen_sim::axis::*;
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::*;

fn writes(rng: &mut Rng, src: u32, n: usize) -> Vec<(DmaCmdFields, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let len = 1 + (i * 7 + src as usize * 3) % 200 + if i % 9 == 8 { 1000 } else { 0 };
            (DmaCmdFields { addr: rng.next_u64(), len: len as u32, tag: src << 16 | i as u32 }, rng.bytes(len))
        })
        .collect()
}

fn run<S: CycleSim>(sim: &mut S, src: &[Vec<(DmaCmdFields, Vec<u8>)>; 2], valid: u32, ready: u32, seed: u64) -> Vec<(DmaCmdFields, Vec<u8>)> {
    sim.reset(2);
    let mut cmds: Vec<ChanDriver> = ["a_cmd", "b_cmd"].iter().enumerate().map(|(i, n)| ChanDriver::new(sim, n, valid, seed + i as u64)).collect();
    let mut datas = vec![];
    for (i, (c, p)) in cmds.iter_mut().zip(["s_axis_a", "s_axis_b"]).enumerate() {
        let mut d = AxisDriver::new(sim, p, valid, seed + 5 + i as u64);
        for (cmd, data) in &src[i] {
            c.push(cmd.to_words());
            d.push(AxisFrame::new(data.clone()));
        }
        datas.push(d);
    }
    let mut out = ChanMonitor::new(sim, "cmd", ready, seed + 9);
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 10);
    let mut b = StreamBench::new(datas, vec![m]);
    let mut quiet = 0;
    while quiet < 40 {
        for c in cmds.iter_mut() {
            c.drive(sim);
        }
        out.drive(sim);
        let moved = b.step_with(sim, |s| {
            let mut m = out.sample(s);
            for c in cmds.iter_mut() {
                m |= c.sample(s);
            }
            m
        });
        quiet = if moved || cmds.iter().any(|c| !c.idle()) || b.drivers.iter().any(|d| !d.idle()) { 0 } else { quiet + 1 };
        assert!(b.cycles < 1_000_000, "the mux stalled");
    }
    let cmds: Vec<DmaCmdFields> = out.seen.iter().map(|(_, w)| DmaCmdFields::from_words(w)).collect();
    assert_eq!(cmds.len(), b.monitors[0].frames.len(), "one data frame per command");
    cmds.into_iter().zip(b.monitors[0].frames.iter().map(|f| f.data.clone())).collect()
}

fn check(src: &[Vec<(DmaCmdFields, Vec<u8>)>; 2], out: &[(DmaCmdFields, Vec<u8>)]) {
    let mut next = [0usize; 2];
    for (c, d) in out {
        let s = (c.tag >> 16) as usize;
        assert_eq!((c, d), (&src[s][next[s]].0, &src[s][next[s]].1), "source {s} write {}", next[s]);
        next[s] += 1;
    }
    assert_eq!(next, [src[0].len(), src[1].len()]);
}

#[test]
fn writes_leave_whole_and_in_order() {
    let mut sim = verilate(&mut DmaWrMux::default());
    let mut rng = Rng::new(3);
    let src = [writes(&mut rng, 0, 60), writes(&mut rng, 1, 60)];
    for (seed, valid, ready) in [(1, 100, 100), (2, 40, 70), (3, 90, 30)] {
        let out = run(&mut sim, &src, valid, ready, seed);
        check(&src, &out);
    }
}

#[test]
fn lock_step() {
    let mut sim = Diff::new(verilate(&mut DmaWrMux::default()), RustHdlSim::new(DmaWrMux::default()));
    let mut rng = Rng::new(4);
    let src = [writes(&mut rng, 0, 12), writes(&mut rng, 1, 12)];
    let out = run(&mut sim, &src, 60, 60, 5);
    check(&src, &out);
}

/// After a write from b (so a is next in turn), a's command waits while its data does not come
/// until b's second write has left the mux, as the responder's data waits behind a payload the
/// requester must write first. b's write goes, then a's.
#[test]
fn a_command_without_data_does_not_hold_the_port() {
    let mut sim = verilate(&mut DmaWrMux::default());
    sim.reset(2);
    let p = |s: &VerilatorSim, n: &str| s.port(n);
    let (ac, av, bc, bv) = (p(&sim, "a_cmd"), p(&sim, "a_cmd_valid"), p(&sim, "b_cmd"), p(&sim, "b_cmd_valid"));
    let (bd, bk, bl, btv) = (p(&sim, "s_axis_b$tdata"), p(&sim, "s_axis_b$tkeep"), p(&sim, "s_axis_b$tlast"), p(&sim, "s_axis_b$tvalid"));
    let (cr, mr, mv, ml) = (p(&sim, "cmd_ready"), p(&sim, "m_axis$tready"), p(&sim, "m_axis$tvalid"), p(&sim, "m_axis$tlast"));
    let (acr, bcr, btr) = (p(&sim, "a_cmd_ready"), p(&sim, "b_cmd_ready"), p(&sim, "s_axis_b$tready"));
    sim.set_bit(cr, true);
    sim.set_bit(mr, true);
    let one_beat = |sim: &mut VerilatorSim, tag: u32| {
        sim.set(bc, &DmaCmdFields { addr: 0x1000, len: 8, tag }.to_words());
        sim.set_bit(bv, true);
        sim.set(bd, &pack_beat(&[tag as u8; 8], 64));
        sim.set(bk, &keep_words(8, 64));
        sim.set_bit(bl, true);
        sim.set_bit(btv, true);
    };
    // b's first write
    one_beat(&mut sim, 1);
    let mut ends = 0;
    let (mut cmd_taken, mut data_taken) = (false, false);
    for _ in 0..20 {
        sim.eval();
        cmd_taken |= sim.get_bit(bcr);
        data_taken |= sim.get_bit(btr);
        ends += (sim.get_bit(mv) && sim.get_bit(ml)) as u32;
        sim.tick();
        if cmd_taken {
            sim.set_bit(bv, false);
        }
        if data_taken {
            sim.set_bit(btv, false);
        }
    }
    assert_eq!(ends, 1);
    // a's command (no data yet) and b's second write in the same cycle
    sim.set(ac, &DmaCmdFields { addr: 0x2000, len: 8, tag: 2 }.to_words());
    sim.set_bit(av, true);
    one_beat(&mut sim, 3);
    let (mut a_taken, mut b_done) = (false, false);
    for _ in 0..50 {
        sim.eval();
        a_taken |= sim.get_bit(acr);
        let b_cmd = sim.get_bit(bcr);
        let b_beat = sim.get_bit(btr);
        b_done |= sim.get_bit(mv) && sim.get_bit(ml);
        sim.tick();
        if b_cmd {
            sim.set_bit(bv, false);
        }
        if b_beat {
            sim.set_bit(btv, false);
        }
        if b_done {
            break;
        }
    }
    assert!(b_done, "b's write never left: a's command, without data, held the port");
    assert!(!a_taken, "a's command was taken before its data began");
}
