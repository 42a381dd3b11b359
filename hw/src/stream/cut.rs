//! `AxisCutFifo`: a cut-through FIFO for a MAC's TX side, which takes no gap inside a frame.
//!
//! A frame starts leaving once `thr` of its beats are here, or once all of it is (whichever comes
//! first), so a long frame reaches the wire before its tail has arrived. Once started, `tvalid`
//! stays high until the frame's last beat. If the FIFO runs dry in the middle of a frame (the
//! tail came too slowly: an underrun), the frame is ended at once with an **abort beat**: `tlast`
//! and `tuser` set (the MAC sends it with a bad FCS, so the receiver drops it, and the transport
//! sends it again), one byte of `tkeep`; the rest of the frame is then read and discarded as it
//! arrives. Each abort is counted and doubles the threshold (`2·thr + 1`, up to 255), as NICs
//! raise their TX start threshold after an underrun: a threshold at or above a frame's beat count
//! is store and forward for that frame. `start_load` sets the threshold (a register write).
//!
//! The beat-counting threshold check reads registers only, so the start decision adds no depth
//! to the FIFO's output. The storage is an [`AxisFifo`] in beat mode (a full FIFO backpressures).
use super::axis::*;
use super::fifo::AxisFifo;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisCutFifo<const D: usize, const K: usize, const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    /// The start threshold in beats, loaded when `start_load` is high.
    pub start: Signal<In, Bits<8>>,
    pub start_load: Signal<In, Bit>,
    /// The threshold now (raised by each abort).
    pub thr_now: Signal<Out, Bits<8>>,
    /// Frames ended early by an abort beat.
    pub aborts: Signal<Out, Bits<32>>,
    fifo: AxisFifo<D, K, W, A>,
    /// Beats, and complete frames, that have reached the FIFO's output side (a beat written is
    /// readable 3 cycles later: `p1`, `p2` and `l1`, `l2` delay the writes by 2, the count
    /// itself by 1), less those read.
    cnt: DFF<Bits<16>>,
    done: DFF<Bits<16>>,
    /// Inside a frame on the output; presenting the abort beat; discarding an aborted frame.
    mid: DFF<Bit>,
    ab: DFF<Bit>,
    p1: DFF<Bit>,
    p2: DFF<Bit>,
    l1: DFF<Bit>,
    l2: DFF<Bit>,
    flush: DFF<Bit>,
    thr: DFF<Bits<8>>,
    c_abort: DFF<Bits<32>>,
    thr_reset: Constant<Bits<8>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    zero_d: Constant<Bits<D>>,
    one_k: Constant<Bits<K>>,
    one8: Constant<Bits<8>>,
    all8: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    go: Signal<Local, Bit>,
    /// Inside a frame with no beat to send: the abort beat goes out.
    underrun: Signal<Local, Bit>,
    /// `go` as a register, worked out a cycle ahead from the counts' next values: `cnt` moves
    /// by at most one a cycle, so it is one of three compares on flops (`ge_*`), selected by the
    /// write and the read; a cycle that changes `thr` leaves `go` low for a cycle. The read
    /// decision starts from a flop, not from a compare behind the counter.
    go_q: DFF<Bit>,
    ge_now: Signal<Local, Bit>,
    ge_up: Signal<Local, Bit>,
    ge_dn: Signal<Local, Bit>,
    ge_nx: Signal<Local, Bit>,
    done_nx: Signal<Local, Bit>,
    thr_mv: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push_last: Signal<Local, Bit>,
    pop_last: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> AxisCutFifo<D, K, W, A> {
    /// `start`: the threshold after reset, in beats.
    pub fn new(start: u8) -> Self {
        assert!(A < 14, "AxisCutFifo: the beat count is 16 bits");
        AxisCutFifo {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            start: Default::default(),
            start_load: Default::default(),
            thr_now: Default::default(),
            aborts: Default::default(),
            fifo: AxisFifo::new(),
            cnt: Default::default(),
            done: Default::default(),
            mid: Default::default(),
            ab: Default::default(),
            p1: Default::default(),
            p2: Default::default(),
            l1: Default::default(),
            l2: Default::default(),
            flush: Default::default(),
            thr: Default::default(),
            c_abort: Default::default(),
            thr_reset: Constant::new((start as u64).into()),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            zero_d: Constant::new(0u64.into()),
            one_k: Constant::new(1u64.into()),
            one8: Constant::new(1u64.into()),
            all8: Constant::new(255u64.into()),
            zero32: Constant::new(0u64.into()),
            one32: Constant::new(1u64.into()),
            go: Default::default(),
            underrun: Default::default(),
            go_q: Default::default(),
            ge_now: Default::default(),
            ge_up: Default::default(),
            ge_dn: Default::default(),
            ge_nx: Default::default(),
            done_nx: Default::default(),
            thr_mv: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            push_last: Default::default(),
            pop_last: Default::default(),
            unused: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Logic for AxisCutFifo<D, K, W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt, done, mid, ab, p1, p2, l1, l2, flush, thr, c_abort, go_q);
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        self.fifo.s_axis.tdata.next = self.s_axis.tdata.val();
        self.fifo.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.fifo.s_axis.tlast.next = self.s_axis.tlast.val();
        self.fifo.s_axis.tuser.next = self.s_axis.tuser.val();
        self.fifo.s_axis.tvalid.next = self.s_axis.tvalid.val();
        self.s_axis.tready.next = self.fifo.s_axis.tready.val();
        // a frame may start: one is whole, or the head one has `thr` beats here
        self.go.next = self.go_q.q.val();
        self.thr_mv.next = false;
        // the output, from the state alone: its own statements, none reading `m_tready`, so
        // that Verilator sees no path from a consumer's `tready` back to this `tvalid`
        self.underrun.next = self.mid.q.val() & !(self.fifo.m_axis.tvalid.val() & !self.ab.q.val());
        self.m_axis.tvalid.next = !self.flush.q.val() & (self.mid.q.val() | (self.fifo.m_axis.tvalid.val() & self.go.val()));
        self.m_axis.tdata.next = self.fifo.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.fifo.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.fifo.m_axis.tlast.val();
        self.m_axis.tuser.next = self.fifo.m_axis.tuser.val();
        if self.underrun.val() {
            // underrun: end the frame with the abort beat, held until taken
            self.m_axis.tdata.next = self.zero_d.val();
            self.m_axis.tkeep.next = self.one_k.val();
            self.m_axis.tlast.next = true;
            self.m_axis.tuser.next = true;
        }
        self.fifo.m_axis.tready.next = false;
        if self.flush.q.val() {
            // the rest of an aborted frame: read and discard up to its last beat
            self.fifo.m_axis.tready.next = true;
            if self.fifo.m_axis.tvalid.val() & self.fifo.m_axis.tlast.val() {
                self.flush.d.next = false;
            }
        } else if self.mid.q.val() {
            if !self.underrun.val() {
                self.fifo.m_axis.tready.next = self.m_axis.tready.val();
                if self.m_axis.tready.val() & self.fifo.m_axis.tlast.val() {
                    self.mid.d.next = false;
                }
            } else {
                self.ab.d.next = true;
                if self.m_axis.tready.val() {
                    self.ab.d.next = false;
                    self.mid.d.next = false;
                    self.flush.d.next = true;
                    self.c_abort.d.next = self.c_abort.q.val() + self.one32.val();
                    self.thr_mv.next = true;
                    self.thr.d.next = (self.thr.q.val() << self.one8.val()) | self.one8.val();
                    if self.thr.q.val().get_bit(7) {
                        self.thr.d.next = self.all8.val();
                    }
                }
            }
        } else if self.fifo.m_axis.tvalid.val() & self.go.val() {
            self.fifo.m_axis.tready.next = self.m_axis.tready.val();
            if self.m_axis.tready.val() & !self.fifo.m_axis.tlast.val() {
                self.mid.d.next = true;
            }
        }
        self.push.next = self.s_axis.tvalid.val() & self.fifo.s_axis.tready.val();
        self.pop.next = self.fifo.m_axis.tvalid.val() & self.fifo.m_axis.tready.val();
        self.push_last.next = self.push.val() & self.s_axis.tlast.val();
        self.pop_last.next = self.pop.val() & self.fifo.m_axis.tlast.val();
        self.p1.d.next = self.push.val();
        self.p2.d.next = self.p1.q.val();
        self.l1.d.next = self.push_last.val();
        self.l2.d.next = self.l1.q.val();
        if self.p2.q.val() & !self.pop.val() {
            self.cnt.d.next = self.cnt.q.val() + self.one16.val();
        }
        if !self.p2.q.val() & self.pop.val() {
            self.cnt.d.next = self.cnt.q.val() - self.one16.val();
        }
        if self.l2.q.val() & !self.pop_last.val() {
            self.done.d.next = self.done.q.val() + self.one16.val();
        }
        if !self.l2.q.val() & self.pop_last.val() {
            self.done.d.next = self.done.q.val() - self.one16.val();
        }
        if self.start_load.val() {
            self.thr.d.next = self.start.val();
        }
        // next cycle's `go` (the counts after this cycle's write and read, the same `thr`)
        self.ge_now.next = self.cnt.q.val() >= bit_cast::<16, 8>(self.thr.q.val());
        self.ge_up.next = (self.cnt.q.val() + self.one16.val()) >= bit_cast::<16, 8>(self.thr.q.val());
        self.ge_dn.next = self.cnt.q.val() > bit_cast::<16, 8>(self.thr.q.val());
        self.ge_nx.next = self.ge_now.val();
        if self.p2.q.val() & !self.pop.val() {
            self.ge_nx.next = self.ge_up.val();
        }
        if !self.p2.q.val() & self.pop.val() {
            self.ge_nx.next = self.ge_dn.val();
        }
        self.done_nx.next = self.done.q.val().any();
        if self.l2.q.val() & !self.pop_last.val() {
            self.done_nx.next = true;
        }
        if !self.l2.q.val() & self.pop_last.val() {
            self.done_nx.next = self.done.q.val().get_bits::<15>(1).any();
        }
        self.go_q.d.next = (self.done_nx.val() | self.ge_nx.val()) & !self.thr_mv.val() & !self.start_load.val();
        self.thr_now.next = self.thr.q.val();
        self.aborts.next = self.c_abort.q.val();
        self.unused.next = self.fifo.level.val().any();
        if self.reset.val() {
            self.go_q.d.next = false;
            self.cnt.d.next = self.zero16.val();
            self.done.d.next = self.zero16.val();
            self.mid.d.next = false;
            self.ab.d.next = false;
            self.p1.d.next = false;
            self.p2.d.next = false;
            self.l1.d.next = false;
            self.l2.d.next = false;
            self.flush.d.next = false;
            self.thr.d.next = self.thr_reset.val();
            self.c_abort.d.next = self.zero32.val();
        }
    }
}

/// 512-bit cut-through FIFO of 128 beats (8 KiB: two 4 KiB-PMTU frames), starting at 16 beats.
pub type AxisCutFifo512 = AxisCutFifo<DATA_W, KEEP_W, 578, 7>;
/// The TX start threshold after reset, in beats (1 KiB).
pub const TX_START_DEFAULT: u8 = 16;

impl Default for AxisCutFifo512 {
    fn default() -> Self {
        Self::new(TX_START_DEFAULT)
    }
}

nicgen_hdl::impl_ports!(AxisCutFifo512, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    start, start_load, thr_now, aborts]);
