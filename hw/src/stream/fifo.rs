//! Synchronous AXI4-Stream FIFO on a BRAM with a registered output. Storage: `2^A` entries in
//! RAM plus a two-entry output stage that hides the RAM's read latency, so it moves one beat
//! per cycle in and out. `s_tready` and `m_tvalid` come from registers. `W` must be `D+K+2`
//! (data, keep, last, user packed into one RAM word).
use super::axis::*;
use super::ram::{Ram, RamStyle};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisFifo<const D: usize, const K: usize, const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    /// Entries held in RAM (not counting the output stage).
    pub level: Signal<Out, Bits<16>>,
    ram: Ram<W, A>,
    wr_ptr: DFF<Bits<A>>,
    rd_ptr: DFF<Bits<A>>,
    count: DFF<Bits<16>>,
    inflight: DFF<Bit>,
    out_word: DFF<Bits<W>>,
    out_valid: DFF<Bit>,
    skid_word: DFF<Bits<W>>,
    skid_valid: DFF<Bit>,
    full_at: Constant<Bits<16>>,
    sh_keep: Constant<Bits<16>>,
    sh_last: Constant<Bits<16>>,
    sh_user: Constant<Bits<16>>,
    in_word: Signal<Local, Bits<W>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    keep_out: Signal<Local, Bits<W>>,
    last_out: Signal<Local, Bits<W>>,
    user_out: Signal<Local, Bits<W>>,
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Default for AxisFifo<D, K, W, A> {
    fn default() -> Self {
        assert_eq!(W, D + K + 2, "AxisFifo: W must be D+K+2");
        assert!(A < 16);
        AxisFifo {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            level: Default::default(),
            ram: Ram::new(RamStyle::Block, false),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            count: Default::default(),
            inflight: Default::default(),
            out_word: Default::default(),
            out_valid: Default::default(),
            skid_word: Default::default(),
            skid_valid: Default::default(),
            full_at: Constant::new(((1u64 << A) as u64).to_bits()),
            sh_keep: Constant::new((D as u64).to_bits()),
            sh_last: Constant::new(((D + K) as u64).to_bits()),
            sh_user: Constant::new(((D + K + 1) as u64).to_bits()),
            in_word: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            issue: Default::default(),
            keep_out: Default::default(),
            last_out: Default::default(),
            user_out: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const W: usize, const A: usize> Logic for AxisFifo<D, K, W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, rd_ptr, count, inflight, out_word, out_valid, skid_word, skid_valid);
        self.ram.clock.next = self.clock.val();
        self.in_word.next = bit_cast::<W, D>(self.s_axis.tdata.val())
            | (bit_cast::<W, K>(self.s_axis.tkeep.val()) << self.sh_keep.val())
            | (bit_cast::<W, 1>(self.s_axis.tlast.val().into()) << self.sh_last.val())
            | (bit_cast::<W, 1>(self.s_axis.tuser.val().into()) << self.sh_user.val());
        self.s_axis.tready.next = self.count.q.val() != self.full_at.val();
        self.push.next = self.s_axis.tvalid.val() & (self.count.q.val() != self.full_at.val());
        self.pop.next = self.out_valid.q.val() & self.m_axis.tready.val();
        // read the RAM when it holds data and the output stage will have room for the result
        self.issue.next = false;
        if self.count.q.val().any() {
            if !(self.out_valid.q.val() & self.skid_valid.q.val())
                & !((self.out_valid.q.val() | self.skid_valid.q.val()) & self.inflight.q.val())
            {
                self.issue.next = true;
            }
            if self.pop.val() & !(self.out_valid.q.val() & self.skid_valid.q.val() & self.inflight.q.val()) {
                self.issue.next = true;
            }
        }
        self.ram.we.next = self.push.val();
        self.ram.waddr.next = self.wr_ptr.q.val();
        self.ram.wdata.next = self.in_word.val();
        self.ram.re.next = self.issue.val();
        self.ram.oce.next = false;
        self.ram.raddr.next = self.rd_ptr.q.val();
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        if self.issue.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        if self.push.val() & !self.issue.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if !self.push.val() & self.issue.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
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
        self.level.next = self.count.q.val();
        if self.reset.val() {
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.count.d.next = 0.into();
            self.inflight.d.next = false;
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

/// 512-bit FIFO, 512 beats deep (one 32 KiB BRAM bank: jumbo frames fit three times).
pub type AxisFifo512 = AxisFifo<DATA_W, KEEP_W, 578, 9>;

nicgen_sim::impl_ports!(AxisFifo512, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, level]);
