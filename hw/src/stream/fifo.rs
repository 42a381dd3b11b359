//! Synchronous AXI4-Stream FIFO on a RAM (block RAM; LUT RAM at 32 entries or fewer) with a
//! registered output. Storage: `2^A` entries in RAM plus a two-entry output stage that hides the
//! RAM's read latency, so it moves one beat per cycle in and out. `s_tready` and `m_tvalid` come
//! from registers. `W` must be `D+K+2` (data, keep, last, user packed into one RAM word).
//!
//! [`AxisFifo`] has two modes:
//! * **beat FIFO** ([`AxisFifo::new`]): every beat is readable as soon as it is written; a full
//!   FIFO backpressures;
//! * **packet FIFO** ([`AxisFifo::new_packet`]): like the beat FIFO (a full FIFO backpressures,
//!   nothing is dropped), but a frame becomes readable only after its last beat, so it leaves
//!   without gaps, as a MAC's TX side needs. A frame must fit in the FIFO.
//!
//! [`AxisRxFifo`] is the **frame FIFO** (store and forward): a frame becomes readable only after
//! its last beat. A frame with `tuser` set on its last beat is dropped (`drop_bad`), as is a frame
//! that does not fit (`drop_overflow`). It never backpressures (`s_tready` is always high), so it
//! can sit behind a MAC that has no `tready`. Frames leave with `tuser` clear. A frame may instead
//! be cut through (`s_cut`); [`AxisFrameFifo512`] ties that low.
use super::axis::*;
use super::ram::{Ram, RamStyle};
use rust_hdl::prelude::*;

/// The pointers' low `a + 1` bits: two pointers at most `2^a` apart are equal, or `2^a`
/// apart, exactly when these bits are (the FIFOs' full and "entries to read" tests).
fn ptr_mask(a: usize) -> Bits<16> {
    ((1u64 << (a + 1)) - 1).to_bits()
}

/// The storage and read side the FIFOs share: the RAM, the read pointer and the two-entry
/// output stage that hides the RAM's read latency. The write side writes entry `waddr` (`we`,
/// the beat on `s_*`) and says with `commit` which entries may be read (those below it).
#[derive(LogicBlock)]
pub struct FifoCore<const D: usize, const K: usize, const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<16>>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_keep: Signal<In, Bits<K>>,
    pub s_last: Signal<In, Bit>,
    pub s_user: Signal<In, Bit>,
    pub commit: Signal<In, Bits<16>>,
    /// Fall-through: the beat written this cycle (`we`) is readable at once. When nothing is
    /// stored or on its way out, it goes straight to the output stage (out 1 cycle after in,
    /// not 3) and the read pointer steps over its RAM entry.
    pub byp: Signal<In, Bit>,
    pub rd_ptr: Signal<Out, Bits<16>>,
    /// The head entry (`tuser` as stored).
    pub m_axis: AxisSource<D, K>,
    ram: Ram<W, A>,
    rd: DFF<Bits<16>>,
    inflight: DFF<Bit>,
    out_word: DFF<Bits<W>>,
    out_valid: DFF<Bit>,
    skid_word: DFF<Bits<W>>,
    skid_valid: DFF<Bit>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    sh_keep: Constant<Bits<16>>,
    sh_last: Constant<Bits<16>>,
    sh_user: Constant<Bits<16>>,
    /// The pointers' low `A+1` bits: two pointers at most `2^A` apart differ exactly when
    /// those bits do, so "committed entries unread" is one compare of `A+1` bits (a LUT or
    /// two), not a 16-bit subtractor's carry chain and an OR behind it.
    amask: Constant<Bits<16>>,
    in_word: Signal<Local, Bits<W>>,
    avail: Signal<Local, Bits<16>>,
    pop: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    bypass: Signal<Local, Bit>,
    keep_out: Signal<Local, Bits<W>>,
    last_out: Signal<Local, Bits<W>>,
    user_out: Signal<Local, Bits<W>>,
    unused_hi: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Default for FifoCore<D, K, W, A> {
    fn default() -> Self {
        assert_eq!(W, D + K + 2, "FifoCore: W must be D+K+2");
        assert!(A < 15);
        FifoCore {
            clock: Default::default(),
            reset: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_last: Default::default(),
            s_user: Default::default(),
            commit: Default::default(),
            byp: Default::default(),
            rd_ptr: Default::default(),
            m_axis: Default::default(),
            ram: Ram::new(RamStyle::for_depth(A), false),
            rd: Default::default(),
            inflight: Default::default(),
            out_word: Default::default(),
            out_valid: Default::default(),
            skid_word: Default::default(),
            skid_valid: Default::default(),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            sh_keep: Constant::new((D as u64).to_bits()),
            sh_last: Constant::new(((D + K) as u64).to_bits()),
            sh_user: Constant::new(((D + K + 1) as u64).to_bits()),
            amask: Constant::new(ptr_mask(A)),
            in_word: Default::default(),
            avail: Default::default(),
            pop: Default::default(),
            issue: Default::default(),
            bypass: Default::default(),
            keep_out: Default::default(),
            last_out: Default::default(),
            user_out: Default::default(),
            unused_hi: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Logic for FifoCore<D, K, W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd, inflight, out_word, out_valid, skid_word, skid_valid);
        self.ram.clock.next = self.clock.val();
        self.in_word.next = bit_cast::<W, D>(self.s_data.val())
            | (bit_cast::<W, K>(self.s_keep.val()) << self.sh_keep.val())
            | (bit_cast::<W, 1>(self.s_last.val().into()) << self.sh_last.val())
            | (bit_cast::<W, 1>(self.s_user.val().into()) << self.sh_user.val());
        // nonzero when committed entries are unread (the pointers are at most 2^A apart)
        self.avail.next = (self.commit.val() ^ self.rd.q.val()) & self.amask.val();
        self.pop.next = self.out_valid.q.val() & self.m_axis.tready.val();
        // read the RAM when it holds data and the output stage will have room for the result
        self.issue.next = false;
        if self.avail.val().any() {
            if !(self.out_valid.q.val() & self.skid_valid.q.val())
                & !((self.out_valid.q.val() | self.skid_valid.q.val()) & self.inflight.q.val())
            {
                self.issue.next = true;
            }
            if self.pop.val() & !(self.out_valid.q.val() & self.skid_valid.q.val() & self.inflight.q.val()) {
                self.issue.next = true;
            }
        }
        self.ram.we.next = self.we.val();
        self.ram.waddr.next = bit_cast::<A, 16>(self.waddr.val());
        self.ram.wdata.next = self.in_word.val();
        self.ram.re.next = self.issue.val();
        self.ram.oce.next = false;
        self.ram.raddr.next = bit_cast::<A, 16>(self.rd.q.val());
        // fall-through: nothing committed unread, in flight or waiting, and the output free
        self.bypass.next = self.byp.val() & self.we.val() & !self.avail.val().any() & !self.inflight.q.val() & !self.skid_valid.q.val() & (!self.out_valid.q.val() | self.pop.val());
        if self.issue.val() | self.bypass.val() {
            self.rd.d.next = self.rd.q.val() + self.one16.val();
        }
        self.rd_ptr.next = self.rd.q.val();
        self.inflight.d.next = self.issue.val();
        // output stage: order is out, skid, then the RAM word in flight
        if !self.out_valid.q.val() | self.pop.val() {
            if self.skid_valid.q.val() {
                self.out_word.d.next = self.skid_word.q.val();
                self.out_valid.d.next = true;
                if self.inflight.q.val() {
                    self.skid_word.d.next = self.ram.rdata.val();
                } else {
                    self.skid_valid.d.next = false;
                }
            } else if self.bypass.val() {
                self.out_word.d.next = self.in_word.val();
                self.out_valid.d.next = true;
            } else {
                self.out_word.d.next = self.ram.rdata.val();
                self.out_valid.d.next = self.inflight.q.val();
            }
        } else if self.inflight.q.val() {
            self.skid_word.d.next = self.ram.rdata.val();
            self.skid_valid.d.next = true;
        }
        self.keep_out.next = self.out_word.q.val() >> self.sh_keep.val();
        self.last_out.next = self.out_word.q.val() >> self.sh_last.val();
        self.user_out.next = self.out_word.q.val() >> self.sh_user.val();
        self.m_axis.tdata.next = bit_cast::<D, W>(self.out_word.q.val());
        self.m_axis.tkeep.next = bit_cast::<K, W>(self.keep_out.val());
        self.m_axis.tlast.next = self.last_out.val().get_bit(0);
        self.m_axis.tuser.next = self.user_out.val().get_bit(0);
        self.m_axis.tvalid.next = self.out_valid.q.val();
        // the shifted copies are only read at bit 0 (Verilator ignores names matching *unused*)
        self.unused_hi.next = self.last_out.val().any() | self.user_out.val().any();
        if self.reset.val() {
            self.rd.d.next = self.zero16.val();
            self.inflight.d.next = false;
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

#[derive(LogicBlock)]
pub struct AxisFifo<const D: usize, const K: usize, const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    /// Entries held in RAM, committed or not (not counting the output stage).
    pub level: Signal<Out, Bits<16>>,
    core: FifoCore<D, K, W, A>,
    wr_ptr: DFF<Bits<16>>,
    commit: DFF<Bits<16>>,
    packet_mode: Constant<Bit>,
    fall_through: Constant<Bit>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    full_at: Constant<Bits<16>>,
    /// The pointers' low `A+1` bits (see `FifoCore`): full is those bits of the two pointers
    /// differing in bit `A` only, no subtractor in front of `s_tready`.
    amask: Constant<Bits<16>>,
    used: Signal<Local, Bits<16>>,
    full: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Default for AxisFifo<D, K, W, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> AxisFifo<D, K, W, A> {
    /// A beat FIFO.
    pub fn new() -> Self {
        Self::build(false, false)
    }
    /// A beat FIFO with fall-through: a beat that finds the FIFO empty is readable the next
    /// cycle (not after 3), at the cost of a multiplexer before the output register.
    pub fn new_fall_through() -> Self {
        Self::build(false, true)
    }
    /// Packet mode: backpressure when full, frames readable once complete.
    pub fn new_packet() -> Self {
        Self::build(true, false)
    }
    fn build(packet_mode: bool, fall_through: bool) -> Self {
        AxisFifo {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            level: Default::default(),
            core: Default::default(),
            wr_ptr: Default::default(),
            commit: Default::default(),
            packet_mode: Constant::new(packet_mode),
            fall_through: Constant::new(fall_through),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            full_at: Constant::new(((1u64 << A) as u64).to_bits()),
            amask: Constant::new(ptr_mask(A)),
            used: Default::default(),
            full: Default::default(),
            push: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Logic for AxisFifo<D, K, W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, commit);
        clock!(self, clock, core);
        self.core.reset.next = self.reset.val();
        self.used.next = self.wr_ptr.q.val() - self.core.rd_ptr.val();
        self.full.next = ((self.wr_ptr.q.val() ^ self.core.rd_ptr.val()) & self.amask.val()) == self.full_at.val();
        self.push.next = false;
        self.s_axis.tready.next = !self.full.val();
        if self.s_axis.tvalid.val() & !self.full.val() {
            self.push.next = true;
            self.wr_ptr.d.next = self.wr_ptr.q.val() + self.one16.val();
            if !self.packet_mode.val() | self.s_axis.tlast.val() {
                self.commit.d.next = self.wr_ptr.q.val() + self.one16.val();
            }
        }
        self.core.we.next = self.push.val();
        self.core.waddr.next = self.wr_ptr.q.val();
        self.core.s_data.next = self.s_axis.tdata.val();
        self.core.s_keep.next = self.s_axis.tkeep.val();
        self.core.s_last.next = self.s_axis.tlast.val();
        self.core.s_user.next = self.s_axis.tuser.val();
        self.core.commit.next = self.commit.q.val();
        self.core.byp.next = self.fall_through.val();
        self.m_axis.tdata.next = self.core.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.core.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.core.m_axis.tlast.val();
        self.m_axis.tuser.next = self.core.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.core.m_axis.tvalid.val();
        self.core.m_axis.tready.next = self.m_axis.tready.val();
        self.level.next = self.used.val();
        if self.reset.val() {
            self.wr_ptr.d.next = self.zero16.val();
            self.commit.d.next = self.zero16.val();
        }
    }
}

/// 512-bit FIFO, 512 beats deep (one 32 KiB BRAM bank: jumbo frames fit three times).
pub type AxisFifo512 = AxisFifo<DATA_W, KEEP_W, 578, 9>;

nicgen_hdl::impl_ports!(AxisFifo512, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, level]);

/// The frame FIFO: stores each frame until its last beat, drops one that ends with `tuser` or
/// does not fit, never backpressures. A frame may instead be **cut through**: when `s_cut` is high with its first beat, each of its beats is
/// readable as soon as it is written, and its last beat leaves with its `tuser` (the frame's
/// verdict) instead of the frame being dropped.
///
/// One entry stays free for a cut frame's end: when a beat other than its last finds only that
/// entry, the beat is written as the frame's last with `tuser` set (an **abort**: the frame is
/// truncated and marked bad), the rest of the frame is discarded, and `drop_overflow` counts it.
/// A cut frame whose first beat finds fewer than two free entries is dropped whole, as a stored
/// one is. `cut_first` pulses as a cut frame's first beat is written, `cut_end` (with `cut_bad`)
/// as its last (or abort) is; `w_cut` tells whether the beat at the input belongs to a cut frame.
#[derive(LogicBlock)]
pub struct AxisRxFifo<const D: usize, const K: usize, const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    /// With a frame's first beat: the frame may leave before its end.
    pub s_cut: Signal<In, Bit>,
    pub m_axis: AxisSource<D, K>,
    pub level: Signal<Out, Bits<16>>,
    pub drop_bad: Signal<Out, Bits<32>>,
    pub drop_overflow: Signal<Out, Bits<32>>,
    pub w_cut: Signal<Out, Bit>,
    pub cut_first: Signal<Out, Bit>,
    pub cut_end: Signal<Out, Bit>,
    pub cut_bad: Signal<Out, Bit>,
    core: FifoCore<D, K, W, A>,
    wr_ptr: DFF<Bits<16>>,
    commit: DFF<Bits<16>>,
    /// `wr_ptr + 1` and `commit + 1`, kept beside them, so "one entry free" is a compare of
    /// pointer bits (`near`) and not a subtraction and a compare in series.
    wr_p1: DFF<Bits<16>>,
    cm_p1: DFF<Bits<16>>,
    dropping: DFF<Bit>,
    mid: DFF<Bit>,
    cut: DFF<Bit>,
    c_bad: DFF<Bits<32>>,
    c_ovf: DFF<Bits<32>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    full_at: Constant<Bits<16>>,
    /// As in `AxisFifo`: full is the pointers' low `A+1` bits differing in bit `A` only.
    amask: Constant<Bits<16>>,
    used: Signal<Local, Bits<16>>,
    full: Signal<Local, Bit>,
    near: Signal<Local, Bit>,
    /// `wr_ptr + 2`: `wr_p1`'s next value after a push, and `cm_p1`'s as a frame commits.
    wr_p2: Signal<Local, Bits<16>>,
    tight: Signal<Local, Bit>,
    cur_cut: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    w_last: Signal<Local, Bit>,
    w_user: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Default for AxisRxFifo<D, K, W, A> {
    fn default() -> Self {
        AxisRxFifo {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            s_cut: Default::default(),
            m_axis: Default::default(),
            level: Default::default(),
            drop_bad: Default::default(),
            drop_overflow: Default::default(),
            w_cut: Default::default(),
            cut_first: Default::default(),
            cut_end: Default::default(),
            cut_bad: Default::default(),
            core: Default::default(),
            wr_ptr: Default::default(),
            commit: Default::default(),
            wr_p1: Default::default(),
            cm_p1: Default::default(),
            dropping: Default::default(),
            mid: Default::default(),
            cut: Default::default(),
            c_bad: Default::default(),
            c_ovf: Default::default(),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            full_at: Constant::new((1u64 << A).to_bits()),
            amask: Constant::new(ptr_mask(A)),
            used: Default::default(),
            full: Default::default(),
            near: Default::default(),
            wr_p2: Default::default(),
            tight: Default::default(),
            cur_cut: Default::default(),
            push: Default::default(),
            w_last: Default::default(),
            w_user: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Logic for AxisRxFifo<D, K, W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, commit, wr_p1, cm_p1, dropping, mid, cut, c_bad, c_ovf);
        clock!(self, clock, core);
        self.core.reset.next = self.reset.val();
        self.used.next = self.wr_ptr.q.val() - self.core.rd_ptr.val();
        self.full.next = ((self.wr_ptr.q.val() ^ self.core.rd_ptr.val()) & self.amask.val()) == self.full_at.val();
        // one entry free or none (`used` >= 2^A - 1): a cut frame keeps the last one for its end.
        // `used` is at most 2^A, so that is full, or wr_ptr + 1 full ahead of the read pointer.
        self.near.next = ((self.wr_p1.q.val() ^ self.core.rd_ptr.val()) & self.amask.val()) == self.full_at.val();
        self.tight.next = self.full.val() | self.near.val();
        self.wr_p2.next = self.wr_p1.q.val() + self.one16.val();
        self.push.next = false;
        self.w_last.next = self.s_axis.tlast.val();
        self.w_user.next = self.s_axis.tuser.val();
        self.cur_cut.next = self.s_cut.val();
        if self.mid.q.val() {
            self.cur_cut.next = self.cut.q.val();
        }
        self.w_cut.next = self.cur_cut.val();
        self.cut_first.next = false;
        self.cut_end.next = false;
        self.cut_bad.next = false;
        self.s_axis.tready.next = true;
        if self.s_axis.tvalid.val() {
            self.mid.d.next = !self.s_axis.tlast.val();
            if !self.mid.q.val() {
                self.cut.d.next = self.s_cut.val();
            }
            if self.dropping.q.val() {
                if self.s_axis.tlast.val() {
                    self.dropping.d.next = false;
                }
            } else if self.cur_cut.val() {
                if self.tight.val() & !self.mid.q.val() {
                    // no room for a first beat and an end: the whole frame is dropped
                    self.c_ovf.d.next = self.c_ovf.q.val() + 1;
                    self.dropping.d.next = !self.s_axis.tlast.val();
                } else {
                    // readable at once; the last beat leaves with its tuser
                    self.push.next = true;
                    self.wr_ptr.d.next = self.wr_p1.q.val();
                    self.wr_p1.d.next = self.wr_p2.val();
                    self.commit.d.next = self.wr_p1.q.val();
                    self.cm_p1.d.next = self.wr_p2.val();
                    self.cut_first.next = !self.mid.q.val();
                    if self.tight.val() & !self.s_axis.tlast.val() {
                        // the entry kept for the end: this beat ends the frame, aborted
                        self.w_last.next = true;
                        self.w_user.next = true;
                        self.c_ovf.d.next = self.c_ovf.q.val() + 1;
                        self.dropping.d.next = true;
                    }
                    self.cut_end.next = self.w_last.val();
                    self.cut_bad.next = self.w_user.val();
                }
            } else if self.full.val() {
                // no room: drop the whole frame
                self.wr_ptr.d.next = self.commit.q.val();
                self.wr_p1.d.next = self.cm_p1.q.val();
                self.c_ovf.d.next = self.c_ovf.q.val() + 1;
                self.dropping.d.next = !self.s_axis.tlast.val();
            } else {
                self.push.next = true;
                self.wr_ptr.d.next = self.wr_p1.q.val();
                self.wr_p1.d.next = self.wr_p2.val();
                if self.s_axis.tlast.val() {
                    if self.s_axis.tuser.val() {
                        self.wr_ptr.d.next = self.commit.q.val();
                        self.wr_p1.d.next = self.cm_p1.q.val();
                        self.c_bad.d.next = self.c_bad.q.val() + 1;
                    } else {
                        self.commit.d.next = self.wr_p1.q.val();
                        self.cm_p1.d.next = self.wr_p2.val();
                    }
                }
            }
        }
        self.core.we.next = self.push.val();
        self.core.waddr.next = self.wr_ptr.q.val();
        self.core.s_data.next = self.s_axis.tdata.val();
        self.core.s_keep.next = self.s_axis.tkeep.val();
        self.core.s_last.next = self.w_last.val();
        self.core.s_user.next = self.w_user.val();
        self.core.commit.next = self.commit.q.val();
        self.core.byp.next = false;
        // a stored frame's last beat has tuser clear; a cut frame's carries its verdict
        self.m_axis.tdata.next = self.core.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.core.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.core.m_axis.tlast.val();
        self.m_axis.tuser.next = self.core.m_axis.tuser.val() & self.core.m_axis.tlast.val();
        self.m_axis.tvalid.next = self.core.m_axis.tvalid.val();
        self.core.m_axis.tready.next = self.m_axis.tready.val();
        self.level.next = self.used.val();
        self.drop_bad.next = self.c_bad.q.val();
        self.drop_overflow.next = self.c_ovf.q.val();
        if self.reset.val() {
            self.wr_ptr.d.next = self.zero16.val();
            self.commit.d.next = self.zero16.val();
            self.wr_p1.d.next = self.one16.val();
            self.cm_p1.d.next = self.one16.val();
            self.dropping.d.next = false;
            self.mid.d.next = false;
            self.cut.d.next = false;
            self.c_bad.d.next = 0.into();
            self.c_ovf.d.next = 0.into();
        }
    }
}

/// The engine's RX buffer: 512 beats.
pub type AxisRxFifo512 = AxisRxFifo<DATA_W, KEEP_W, 578, 9>;

/// Frame (store-and-forward) FIFO of 512 beats that drops flagged and oversized frames: an
/// [`AxisRxFifo512`] whose parent ties `s_cut` low (and leaves the cut outputs unused).
pub type AxisFrameFifo512 = AxisRxFifo512;

nicgen_hdl::impl_ports!(AxisRxFifo512, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready, s_cut,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, level, drop_bad, drop_overflow,
    w_cut, cut_first, cut_end, cut_bad]);
