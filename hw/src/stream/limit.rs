//! `AxisLimit`: keeps the first `limit` bytes (sampled with each frame's first beat) of every
//! frame and discards the rest. The beat that reaches the limit carries `tlast`; later beats of
//! the frame are consumed and dropped. A limit of zero drops the whole frame. The output leaves
//! from a skid buffer; `s_tready` does not depend on `m_tready` combinationally.
//!
//! `AxisLimitW<D, K, C>` counts `K` bytes a beat (`tkeep` is `K` bits, `C` = log2(`K`) + 1 bits
//! count them) and lets `tdata` be wider than 8·`K` bits: bits above ride along untouched, for
//! per-frame values that a later stage needs from a register (`RoceRxParse` sends the header
//! length this way). `AxisLimit` is the 512-bit stream, `AxisLimit1024` the 1024-bit one.
use super::axis::*;
use super::skid::AxisSkid;
use crate::crc::fields::Thermo;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisLimitW<const D: usize, const K: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub limit: Signal<In, Bits<16>>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    skid: AxisSkid<D, K>,
    th_first: Thermo<C, K>,
    th_mid: Thermo<C, K>,
    mid: DFF<Bit>,
    done: DFF<Bit>,
    rem: DFF<Bits<16>>,
    /// `rem <= K`, kept beside `rem` so that a later beat's cut is a register (LUT depth)
    rem_cut: DFF<Bit>,
    r: Signal<Local, Bits<16>>,
    /// The keep masks of a first and of a later beat: bit i is set when byte i is within the
    /// limit (all ones when the beat does not reach it). With them the keep is one AND and one
    /// select, not a select behind the cut compare (LUT depth).
    hi_lim: Signal<Local, Bit>,
    m_first: Signal<Local, Bits<K>>,
    m_mid: Signal<Local, Bits<K>>,
    cut: Signal<Local, Bit>,
    discard: Signal<Local, Bit>,
    zero: Signal<Local, Bit>,
    c_k: Constant<Bits<16>>,
    c_2k: Constant<Bits<16>>,
    c_c: Constant<Bits<16>>,
    ones: Constant<Bits<K>>,
}

/// The 512-bit limiter.
pub type AxisLimit = AxisLimitW<512, 64, 7>;
/// The 1024-bit limiter.
pub type AxisLimit1024 = AxisLimitW<1024, 128, 8>;

impl<const D: usize, const K: usize, const C: usize> Default for AxisLimitW<D, K, C> {
    fn default() -> Self {
        AxisLimitW {
            clock: Default::default(),
            reset: Default::default(),
            limit: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            skid: Default::default(),
            th_first: Thermo::new(0),
            th_mid: Thermo::new(0),
            mid: Default::default(),
            done: Default::default(),
            rem: Default::default(),
            rem_cut: Default::default(),
            r: Default::default(),
            hi_lim: Default::default(),
            m_first: Default::default(),
            m_mid: Default::default(),
            cut: Default::default(),
            discard: Default::default(),
            zero: Default::default(),
            c_k: Constant::new((K as u64).into()),
            c_2k: Constant::new((2 * K as u64).into()),
            c_c: Constant::new((C as u64).into()),
            ones: Constant::new(!Bits::<K>::default()),
        }
    }
}

impl<const D: usize, const K: usize, const C: usize> Logic for AxisLimitW<D, K, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, done, rem, rem_cut);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.skid.m_axis);
        // bytes still allowed, counting this beat (signals on the ready path are assigned once,
        // so Verilator sees no false combinational loop)
        self.r.next = self.limit.val();
        if self.mid.q.val() {
            self.r.next = self.rem.q.val();
        }
        self.zero.next = !self.mid.q.val() & !self.limit.val().any();
        self.discard.next = (self.mid.q.val() & self.done.q.val()) | self.zero.val();
        self.cut.next = self.limit.val() <= self.c_k.val();
        if self.mid.q.val() {
            self.cut.next = self.rem_cut.q.val();
        }
        self.th_first.x.next = bit_cast::<C, 16>(self.limit.val());
        self.th_mid.x.next = bit_cast::<C, 16>(self.rem.q.val());
        self.s_axis.tready.next = self.skid.s_axis.tready.val() | self.discard.val();
        self.skid.s_axis.tvalid.next = self.s_axis.tvalid.val() & !self.discard.val();
        self.skid.s_axis.tdata.next = self.s_axis.tdata.val();
        self.skid.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.skid.s_axis.tlast.next = self.s_axis.tlast.val() | self.cut.val();
        self.skid.s_axis.tuser.next = self.s_axis.tuser.val();
        // first beat: byte i is kept when limit > i (a limit of 2^C or more keeps the beat
        // whole); a later beat: when rem > i, or whole while rem > K
        self.hi_lim.next = (self.limit.val() >> self.c_c.val()).any();
        self.m_first.next = self.th_first.out.val();
        if self.hi_lim.val() {
            self.m_first.next = self.ones.val();
        }
        self.m_mid.next = self.th_mid.out.val();
        if !self.rem_cut.q.val() {
            self.m_mid.next = self.ones.val();
        }
        self.skid.s_axis.tkeep.next = self.s_axis.tkeep.val() & self.m_first.val();
        if self.mid.q.val() {
            self.skid.s_axis.tkeep.next = self.s_axis.tkeep.val() & self.m_mid.val();
        }
        if self.s_axis.tvalid.val() & self.s_axis.tready.val() {
            self.mid.d.next = !self.s_axis.tlast.val();
            self.rem.d.next = self.r.val() - self.c_k.val();
            self.rem_cut.d.next = self.r.val() <= self.c_2k.val();
            self.done.d.next = self.cut.val() | self.discard.val();
        }
        if self.reset.val() {
            self.mid.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!(AxisLimit, clock = clock, [clock, reset, limit,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready]);
