//! AXI4-Lite status window of the ICRC RX block: every counter in the register map reads back
//! through AXI4-Lite at its documented offset, with random handshake timing; unmapped reads and
//! all writes get SLVERR and change nothing; and the same in lock step against rust-hdl.
mod common;
use common::*;
use nicgen_hw::crc::icrc::IcrcRx;
use nicgen_hw::top::all_tops;
use nicgen_sim::axil::{AxilMaster, OKAY, SLVERR};
use nicgen_sim::axis::AxisFrame;
use nicgen_sim::frames::random_roce_frame;
use nicgen_sim::*;

fn traffic(rng: &mut Rng) -> Vec<AxisFrame> {
    let mut v = vec![];
    for i in 0..40 {
        let mut f = random_roce_frame(rng, 700);
        match i % 4 {
            0 => {
                let n = f.len();
                f[n - 2] ^= 1;
                v.push(AxisFrame::new(f));
            }
            1 => v.push(AxisFrame { data: f, user: true }),
            2 => {
                f.truncate(f.len() - 9);
                v.push(AxisFrame::new(f));
            }
            _ => v.push(AxisFrame::new(f)),
        }
    }
    v
}

fn check_window<S: CycleSim>(sim: &mut S, seed: u64, pct: u32) {
    let mut rng = Rng::new(seed);
    let frames = traffic(&mut rng);
    let (out, _) = pass_through(sim, &frames, 90, 90, seed);
    assert_eq!(out.len(), 10, "only the good frames come out");
    let top = all_tops().into_iter().find(|t| t.name == "icrc_rx").unwrap();
    let mut m = AxilMaster::new(sim, "s_axil", pct, seed);
    m.idle(sim);
    let mut values = vec![];
    for r in &top.regs {
        let p = sim.port(&r.port);
        let want = sim.get_u64(p) as u32;
        let (got, resp) = m.read(sim, r.offset as u16);
        assert_eq!(resp, OKAY, "{}", r.name);
        assert_eq!(got, want, "{} at 0x{:02x}", r.name, r.offset);
        values.push(got);
    }
    assert_eq!(values, vec![40, 40, 10, 10, 0, 10, 30, 0], "frames, roce, bad_icrc, truncated, bad_length, user, dropped, overflow");
    // unmapped and misaligned reads, and any write, are refused
    for addr in [0x06u16, 0x20, 0x22, 0x80, 0x100, 0xfffc] {
        assert_eq!(m.read(sim, addr), (0, SLVERR), "read 0x{addr:04x}");
    }
    assert_eq!(m.write(sim, 0x0u16, 0xdead_beef, 0xf), SLVERR);
    assert_eq!(m.write(sim, 0x8u16, 0, 0x1), SLVERR);
    assert_eq!(m.read(sim, 0x0u16), (40, OKAY), "a write changed nothing");
}

#[test]
fn status_window_reads_every_counter() {
    let mut sim = verilate(&mut IcrcRx::default());
    check_window(&mut sim, 1, 100);
    check_window(&mut sim, 2, 40);
    check_window(&mut sim, 3, 15);
}

#[test]
fn status_window_lock_step() {
    let mut d = Diff::new(verilate(&mut IcrcRx::default()), RustHdlSim::new(IcrcRx::default()));
    check_window(&mut d, 4, 50);
}
