//! Board glue on its emitted Verilog under Verilator: the asynchronous frame FIFO with two
//! free-running clocks, the level synchronizers, and the host register window with its router.
mod common;
use common::*;
use nicgen_hw::axil::{AxilBridge, AxilSlave, AxilSlave32};
use nicgen_hw::board::cdc::{CdcAxisFifo, CdcSyncBits};
use nicgen_hw::board::regs::*;
use nicgen_sim::axil::{AxilMaster, OKAY, SLVERR};
use nicgen_sim::axis::*;
use nicgen_sim::*;
use rust_hdl::prelude::*;

/// One edge of the write clock `s_clock` (the read clock is the simulator's `clock`).
fn s_edge<S: CycleSim>(sim: &mut S, clk: usize) {
    sim.set_bit(clk, true);
    sim.eval();
    sim.set_bit(clk, false);
    sim.eval();
}

struct CdcRun {
    out: Vec<AxisFrame>,
    drops: u64,
    /// Read-clock cycles in which `m_axis_tvalid` was low inside a frame (must stay 0).
    gaps_in_frame: u64,
    /// Write-clock cycles with `s_axis_tready` low.
    not_ready: u64,
}

/// Drive `frames` through the FIFO with the write clock at `w_period` and the read clock at
/// `r_period` (arbitrary units, with jitter), random `tvalid` gaps and `tready` backpressure.
fn cdc_run(frames: &[AxisFrame], drop_mode: bool, w_period: u64, r_period: u64, valid: u32, ready: u32, seed: u64) -> CdcRun {
    let mut sim = verilate(&mut CdcAxisFifo::default());
    let (sclk, srst, dm, rst) = (sim.port("s_clock"), sim.port("s_reset"), sim.port("drop_mode"), sim.port("reset"));
    sim.set_bit(dm, drop_mode);
    sim.set_bit(srst, true);
    sim.set_bit(rst, true);
    for _ in 0..3 {
        s_edge(&mut sim, sclk);
        sim.tick();
    }
    sim.set_bit(srst, false);
    sim.set_bit(rst, false);
    let mut d = AxisDriver::new(&sim, "s_axis", valid, seed);
    let mut m = AxisMonitor::new(&sim, "m_axis", ready, seed ^ 0x77);
    for f in frames {
        d.push(f.clone());
    }
    let (tvalid, tlast, tready) = (m.ports.tvalid, m.ports.tlast, d.ports.tready.unwrap());
    let drops = sim.port("drops");
    let mut rng = Rng::new(seed ^ 0x1234);
    let (mut tw, mut tr) = (0u64, 0u64);
    let (mut in_frame, mut gaps, mut not_ready, mut quiet) = (false, 0u64, 0u64, 0u64);
    while quiet < 200 {
        if tw <= tr {
            d.drive(&mut sim);
            sim.eval();
            if !sim.get_bit(tready) {
                not_ready += 1;
            }
            d.sample(&mut sim);
            s_edge(&mut sim, sclk);
            tw += w_period + rng.range(0, w_period / 4 + 1);
        } else {
            m.drive(&mut sim);
            sim.eval();
            let v = sim.get_bit(tvalid);
            if in_frame && !v {
                gaps += 1;
            }
            let moved = m.sample(&mut sim);
            if moved {
                in_frame = !sim.get_bit(tlast);
            }
            quiet = if d.idle() && !v { quiet + 1 } else { 0 };
            sim.tick();
            tr += r_period + rng.range(0, r_period / 4 + 1);
        }
    }
    let out = m.frames.iter().map(|f| AxisFrame { data: f.data.clone(), user: f.user }).collect();
    CdcRun { out, drops: sim.get_u64(drops), gaps_in_frame: gaps, not_ready }
}

/// TX direction (core clock 250 MHz → CMAC 322 MHz, and the reverse ratio): every frame
/// arrives whole and in order, every `tkeep` residue, and `tvalid` never drops inside a frame
/// however the writer pauses (the CMAC TX would underflow).
#[test]
fn cdc_fifo_tx_whole_frames_both_clock_ratios() {
    let mut rng = Rng::new(11);
    let mut lens: Vec<usize> = (1..=128).collect();
    lens.extend([4096 + 66, 8192, 1500, 64, 65]);
    let frames = random_frames(&mut rng, &lens, 10);
    for (w, r, valid, ready, seed) in [(400, 310, 60, 70, 1), (310, 400, 35, 90, 2), (400, 400, 100, 100, 3), (250, 900, 90, 40, 4)] {
        let run = cdc_run(&frames, false, w, r, valid, ready, seed);
        assert_eq!(run.drops, 0, "w {w} r {r}");
        assert_eq!(run.out.len(), frames.len(), "w {w} r {r}");
        assert!(run.out == frames, "w {w} r {r}: frames differ");
        assert_eq!(run.gaps_in_frame, 0, "w {w} r {r}: tvalid dropped inside a frame");
    }
}

/// RX direction (no `tready` at the MAC): the writer is never stalled. With a slow reader,
/// frames that do not fit are dropped whole and counted; the rest arrive whole and in order.
#[test]
fn cdc_fifo_rx_drops_whole_frames_and_counts_them() {
    let mut rng = Rng::new(12);
    let lens: Vec<usize> = (0..300).map(|i| if i % 7 == 0 { 4000 + i } else { 60 + (i * 37) % 1500 }).collect();
    let frames = random_frames(&mut rng, &lens, 5);
    let run = cdc_run(&frames, true, 310, 400, 100, 25, 5);
    assert_eq!(run.not_ready, 0, "the MAC side must never be stalled");
    assert!(run.drops > 0, "the slow reader must have caused drops");
    assert_eq!(run.out.len() as u64 + run.drops, frames.len() as u64, "every frame is delivered or counted");
    // what came out is a subsequence of what went in: whole frames, in order
    let mut it = frames.iter();
    for f in &run.out {
        assert!(it.any(|g| g == f), "a frame came out cut or out of order ({} bytes)", f.data.len());
    }
    assert_eq!(run.gaps_in_frame, 0);
    // with a fast reader nothing is lost
    let run = cdc_run(&frames[..60], true, 400, 310, 100, 100, 6);
    assert_eq!((run.drops, run.out.len()), (0, 60));
    assert!(run.out == frames[..60]);
}

/// A frame longer than the FIFO (128 beats) can never fit: on the TX side it is dropped and
/// counted instead of wedging the FIFO, and the frames around it pass.
#[test]
fn cdc_fifo_oversize_frame_does_not_wedge() {
    let mut rng = Rng::new(13);
    let frames = random_frames(&mut rng, &[100, 128 * 64 + 1, 200, 9000, 64], 0);
    let run = cdc_run(&frames, false, 400, 310, 80, 80, 7);
    assert_eq!(run.drops, 2);
    assert_eq!(run.out, vec![frames[0].clone(), frames[2].clone(), frames[4].clone()]);
}

#[test]
fn sync_bits_follow_after_two_clocks() {
    let mut sim = verilate(&mut CdcSyncBits::default());
    let (d, q) = (sim.port("d"), sim.port("q"));
    let mut rng = Rng::new(3);
    let mut hist = vec![0u64; 3];
    for _ in 0..200 {
        let v = rng.range(0, 256);
        sim.set_u64(d, v);
        sim.tick();
        hist.push(v);
        assert_eq!(sim.get_u64(q), hist[hist.len() - 2]);
    }
}

/// The register window with a stand-in for the engine behind its router: a register bus with
/// four writable words at 0x00..0x0C (anything else answers SLVERR).
#[derive(LogicBlock)]
struct RegsDut {
    clock: Signal<In, Clock>,
    reset: Signal<In, Bit>,
    s_axil: AxilSlave<32>,
    status: [Signal<In, Bits<32>>; STATUS_WORDS],
    sq: [Signal<Out, Bits<32>>; SQ_WORDS],
    sq_valid: Signal<Out, Bit>,
    sq_ready: Signal<In, Bit>,
    cq: [Signal<In, Bits<32>>; CQ_WORDS],
    cq_valid: Signal<In, Bit>,
    cq_ready: Signal<Out, Bit>,
    regs: BoardRegs,
    bridge: AxilBridge,
    file: [DFF<Bits<32>>; 4],
    rd: DFF<Bits<32>>,
    rerr: DFF<Bit>,
    offs: [Constant<Bits<16>>; 4],
    hit_w: Signal<Local, Bit>,
    hit_r: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
}

impl Default for RegsDut {
    fn default() -> Self {
        RegsDut {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            status: std::array::from_fn(|_| Default::default()),
            sq: std::array::from_fn(|_| Default::default()),
            sq_valid: Default::default(),
            sq_ready: Default::default(),
            cq: std::array::from_fn(|_| Default::default()),
            cq_valid: Default::default(),
            cq_ready: Default::default(),
            regs: Default::default(),
            bridge: Default::default(),
            file: std::array::from_fn(|_| Default::default()),
            rd: Default::default(),
            rerr: Default::default(),
            offs: std::array::from_fn(|i| Constant::new((4 * i as u64).into())),
            hit_w: Default::default(),
            hit_r: Default::default(),
            unused: Default::default(),
        }
    }
}

impl Logic for RegsDut {
    #[hdl_gen]
    fn update(&mut self) {
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        self.bridge.clock.next = self.clock.val();
        self.bridge.reset.next = self.reset.val();
        self.rd.clock.next = self.clock.val();
        AxilSlave32::link(&mut self.s_axil, &mut self.regs.s_axil);
        nicgen_hw::axil::AxilMaster16::join(&mut self.regs.m_axil, &mut self.bridge.s_axil);
        for i in 0..STATUS_WORDS {
            self.regs.status[i].next = self.status[i].val();
        }
        for i in 0..SQ_WORDS {
            self.sq[i].next = self.regs.sq[i].val();
        }
        for i in 0..CQ_WORDS {
            self.regs.cq[i].next = self.cq[i].val();
        }
        self.sq_valid.next = self.regs.sq_valid.val();
        self.regs.sq_ready.next = self.sq_ready.val();
        self.regs.cq_valid.next = self.cq_valid.val();
        self.cq_ready.next = self.regs.cq_ready.val();
        self.hit_w.next = false;
        self.hit_r.next = false;
        self.rd.d.next = self.rd.q.val();
        for i in 0..4 {
            self.file[i].clock.next = self.clock.val();
            self.file[i].d.next = self.file[i].q.val();
            if self.bridge.wr_addr.val() == self.offs[i].val() {
                self.hit_w.next = true;
                if self.bridge.wr_en.val() {
                    self.file[i].d.next = self.bridge.wr_data.val();
                }
            }
            if self.bridge.rd_addr.val() == self.offs[i].val() {
                self.hit_r.next = true;
                if self.bridge.rd_en.val() {
                    self.rd.d.next = self.file[i].q.val();
                }
            }
        }
        self.bridge.wr_err.next = !self.hit_w.val();
        self.bridge.rd_data.next = self.rd.q.val();
        // the error answers with the data, one cycle after rd_en
        self.rerr.clock.next = self.clock.val();
        self.rerr.d.next = self.rerr.q.val();
        if self.bridge.rd_en.val() {
            self.rerr.d.next = !self.hit_r.val();
        }
        self.bridge.rd_err.next = self.rerr.q.val();
        self.unused.next = self.bridge.wr_strb.val().any();
    }
}

/// Read and write the board window and the engine behind the router, with random valid and
/// ready timing on the host side; refused accesses answer SLVERR and change nothing.
#[test]
fn board_regs_window_router_and_queues() {
    let mut dut = RegsDut::default();
    let mut sim = verilate(&mut dut);
    sim.reset(2);
    let mut m = AxilMaster::new(&sim, "s_axil", 60, 9);
    m.idle(&mut sim);
    let w = |a: u64| BOARD_WINDOW + a;
    let status: Vec<usize> = (0..STATUS_WORDS).map(|i| sim.port(&format!("status${i}"))).collect();
    for (i, &p) in status.iter().enumerate() {
        sim.set_u64(p, 0x1000_0000 + i as u64 * 0x111);
    }
    assert_eq!(m.read(&mut sim, w(0)), (BOARD_ID as u32, OKAY));
    for i in 0..STATUS_WORDS {
        assert_eq!(m.read(&mut sim, w(REG_STATUS + 4 * i as u64)), (0x1000_0000 + i as u32 * 0x111, OKAY));
    }
    // scratch: read back what was written
    assert_eq!(m.write(&mut sim, w(REG_SCRATCH), 0xdead_beef, 0xf), OKAY);
    assert_eq!(m.read(&mut sim, w(REG_SCRATCH)), (0xdead_beef, OKAY));
    // read-only, write-only and unknown offsets are refused
    assert_eq!(m.write(&mut sim, w(0), 1, 0xf), SLVERR);
    assert_eq!(m.write(&mut sim, w(REG_STATUS), 1, 0xf), SLVERR);
    assert_eq!(m.write(&mut sim, w(REG_CQ), 1, 0xf), SLVERR);
    assert_eq!(m.write(&mut sim, w(0x200), 1, 0xf), SLVERR);
    assert_eq!(m.read(&mut sim, w(REG_CQ_POP)).1, SLVERR);
    assert_eq!(m.read(&mut sim, w(0x204)).1, SLVERR);
    assert_eq!(m.read(&mut sim, w(0)), (BOARD_ID as u32, OKAY));
    // the engine side: writes and reads go through with their addresses, errors come back
    for i in 0..4u64 {
        assert_eq!(m.write(&mut sim, 4 * i, 0xa000 + i as u32, 0xf), OKAY);
    }
    for i in 0..4u64 {
        assert_eq!(m.read(&mut sim, 4 * i), (0xa000 + i as u32, OKAY));
    }
    assert_eq!(m.write(&mut sim, 0x40u64, 1, 0xf), SLVERR);
    assert_eq!(m.read(&mut sim, 0x40u64).1, SLVERR);
    assert_eq!(m.read(&mut sim, w(REG_SCRATCH)), (0xdead_beef, OKAY), "the board window is not the engine's");
    // send queue: stage, ring, the request leaves when the engine takes it
    let (sqv, sqr) = (sim.port("sq_valid"), sim.port("sq_ready"));
    let sq: Vec<usize> = (0..SQ_WORDS).map(|i| sim.port(&format!("sq${i}"))).collect();
    for i in 0..SQ_WORDS {
        assert_eq!(m.write(&mut sim, w(REG_SQ + 4 * i as u64), 0x5150_0000 + i as u32, 0xf), OKAY);
    }
    assert!(!sim.get_bit(sqv));
    assert_eq!(m.write(&mut sim, w(REG_SQ_DOORBELL), 1, 0xf), OKAY);
    assert!(sim.get_bit(sqv));
    for (i, &p) in sq.iter().enumerate() {
        assert_eq!(sim.get_u64(p), 0x5150_0000 + i as u64);
    }
    assert_eq!(m.read(&mut sim, w(REG_SQ_DOORBELL)), (1, OKAY));
    assert_eq!(m.write(&mut sim, w(REG_SQ_DOORBELL), 1, 0xf), SLVERR, "rung while still posting");
    sim.set_bit(sqr, true);
    sim.tick();
    sim.set_bit(sqr, false);
    assert!(!sim.get_bit(sqv));
    assert_eq!(m.read(&mut sim, w(REG_SQ_DOORBELL)), (0, OKAY));
    // completion queue: one held, the next waits until popped
    let (cqv, cqr) = (sim.port("cq_valid"), sim.port("cq_ready"));
    let cq: Vec<usize> = (0..CQ_WORDS).map(|i| sim.port(&format!("cq${i}"))).collect();
    assert_eq!(m.read(&mut sim, w(REG_CQ_STATUS)), (0, OKAY));
    for (k, first) in [0xc0u64, 0xd0].iter().enumerate() {
        for (i, &p) in cq.iter().enumerate() {
            sim.set_u64(p, first + i as u64);
        }
        sim.set_bit(cqv, true);
        sim.eval();
        assert!(sim.get_bit(cqr), "entry {k}: the window has room");
        sim.tick();
        sim.set_bit(cqv, false);
        sim.eval();
        assert!(!sim.get_bit(cqr));
        assert_eq!(m.read(&mut sim, w(REG_CQ_STATUS)), (1, OKAY));
        for i in 0..CQ_WORDS {
            assert_eq!(m.read(&mut sim, w(REG_CQ + 4 * i as u64)), ((first + i as u64) as u32, OKAY));
        }
        assert_eq!(m.write(&mut sim, w(REG_CQ_POP), 0, 0xf), OKAY);
        assert_eq!(m.read(&mut sim, w(REG_CQ_STATUS)), (0, OKAY));
    }
}
