//! Skid buffer / register slice: a two-entry buffer with registered `tvalid`, `tdata` and
//! `s_tready`. Full throughput (one beat per cycle) and no combinational path from `m_tready`
//! to `s_tready`. Latency: 1 cycle.
use super::axis::*;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct AxisSkid<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    out_data: DFF<Bits<D>>,
    out_keep: DFF<Bits<K>>,
    out_last: DFF<Bit>,
    out_user: DFF<Bit>,
    out_valid: DFF<Bit>,
    skid_data: DFF<Bits<D>>,
    skid_keep: DFF<Bits<K>>,
    skid_last: DFF<Bit>,
    skid_user: DFF<Bit>,
    skid_valid: DFF<Bit>,
}

impl<const D: usize, const K: usize> Logic for AxisSkid<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_data, out_keep, out_last, out_user, out_valid, skid_data, skid_keep, skid_last, skid_user, skid_valid);
        self.s_axis.tready.next = !self.skid_valid.q.val();
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.m_axis.tuser.next = self.out_user.q.val();
        self.m_axis.tvalid.next = self.out_valid.q.val();
        if !self.out_valid.q.val() | self.m_axis.tready.val() {
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_keep.d.next = self.skid_keep.q.val();
                self.out_last.d.next = self.skid_last.q.val();
                self.out_user.d.next = self.skid_user.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.out_data.d.next = self.s_axis.tdata.val();
                self.out_keep.d.next = self.s_axis.tkeep.val();
                self.out_last.d.next = self.s_axis.tlast.val();
                self.out_user.d.next = self.s_axis.tuser.val();
                self.out_valid.d.next = self.s_axis.tvalid.val();
            }
        } else if self.s_axis.tvalid.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_axis.tdata.val();
            self.skid_keep.d.next = self.s_axis.tkeep.val();
            self.skid_last.d.next = self.s_axis.tlast.val();
            self.skid_user.d.next = self.s_axis.tuser.val();
            self.skid_valid.d.next = true;
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

pub type AxisSkid512 = AxisSkid<DATA_W, KEEP_W>;

nicgen_hdl::impl_ports!(AxisSkid512, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready]);

/// `AxisReg`: a plain register stage of a stream, the stream form of
/// [`ChanReg`](super::chan::ChanReg): registered `m_axis` (full rate, latency 1) and
/// `s_tready = !m_tvalid | m_tready`, combinational. Where the consumer's `m_tready` is a
/// register or a few LUTs on registers, this keeps the ready path short without the skid
/// buffer's second entry and its select (about one LUT per data bit).
#[derive(LogicBlock, Default)]
pub struct AxisReg<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    data: DFF<Bits<D>>,
    keep: DFF<Bits<K>>,
    last: DFF<Bit>,
    user: DFF<Bit>,
    valid: DFF<Bit>,
}

impl<const D: usize, const K: usize> Logic for AxisReg<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, data, keep, last, user, valid);
        self.s_axis.tready.next = !self.valid.q.val() | self.m_axis.tready.val();
        self.m_axis.tdata.next = self.data.q.val();
        self.m_axis.tkeep.next = self.keep.q.val();
        self.m_axis.tlast.next = self.last.q.val();
        self.m_axis.tuser.next = self.user.q.val();
        self.m_axis.tvalid.next = self.valid.q.val();
        if !self.valid.q.val() | self.m_axis.tready.val() {
            self.data.d.next = self.s_axis.tdata.val();
            self.keep.d.next = self.s_axis.tkeep.val();
            self.last.d.next = self.s_axis.tlast.val();
            self.user.d.next = self.s_axis.tuser.val();
            self.valid.d.next = self.s_axis.tvalid.val();
        }
        if self.reset.val() {
            self.valid.d.next = false;
        }
    }
}
