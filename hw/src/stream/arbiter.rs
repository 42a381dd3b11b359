//! `AxisArb4`: four streams onto one, a whole frame at a time. Round-robin by default; with
//! `priority` the lowest-numbered waiting input wins (the TX arbiter's ACK > READ response >
//! retransmission > new). A grant is made in the cycle the first beat passes, so frames follow
//! each other with no idle cycle. The output leaves from a skid buffer; `grant` shows the input
//! of the frame in flight.
use super::axis::*;
use super::skid::AxisSkid;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisArb4W<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s0_axis: AxisSink<D, K>,
    pub s1_axis: AxisSink<D, K>,
    pub s2_axis: AxisSink<D, K>,
    pub s3_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub grant: Signal<Out, Bits<2>>,
    skid: AxisSkid<D, K>,
    busy: DFF<Bit>,
    sel: DFF<Bits<2>>,
    prev: DFF<Bits<2>>,
    prio_mode: Constant<Bit>,
    k: [Constant<Bits<2>>; 4],
    k1_8: Constant<Bits<8>>,
    req: Signal<Local, Bits<4>>,
    rot: Signal<Local, Bits<4>>,
    pick: Signal<Local, Bits<2>>,
    cur: Signal<Local, Bits<2>>,
    take: Signal<Local, Bit>,
}

/// The 512-bit arbiter.
pub type AxisArb4 = AxisArb4W<DATA_W, KEEP_W>;
/// The 1024-bit arbiter.
pub type AxisArb4_1024 = AxisArb4W<1024, 128>;

impl<const D: usize, const K: usize> AxisArb4W<D, K> {
    pub fn new(priority: bool) -> Self {
        AxisArb4W {
            clock: Default::default(),
            reset: Default::default(),
            s0_axis: Default::default(),
            s1_axis: Default::default(),
            s2_axis: Default::default(),
            s3_axis: Default::default(),
            m_axis: Default::default(),
            grant: Default::default(),
            skid: Default::default(),
            busy: Default::default(),
            sel: Default::default(),
            prev: Default::default(),
            prio_mode: Constant::new(priority),
            k: [0u64, 1, 2, 3].map(|v| Constant::new(v.into())),
            k1_8: Constant::new(1u64.into()),
            req: Default::default(),
            rot: Default::default(),
            pick: Default::default(),
            cur: Default::default(),
            take: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Default for AxisArb4W<D, K> {
    fn default() -> Self {
        Self::new(false)
    }
}

impl<const D: usize, const K: usize> Logic for AxisArb4W<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, sel, prev);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.skid.m_axis);
        self.req.next = bit_cast::<4, 1>(self.s0_axis.tvalid.val().into())
            | (bit_cast::<4, 1>(self.s1_axis.tvalid.val().into()) << 1)
            | (bit_cast::<4, 1>(self.s2_axis.tvalid.val().into()) << 2)
            | (bit_cast::<4, 1>(self.s3_axis.tvalid.val().into()) << 3);
        // round robin: look from the input after the previous grant
        self.rot.next = bit_cast::<4, 8>(((bit_cast::<8, 4>(self.req.val()) << 4) | bit_cast::<8, 4>(self.req.val())) >> (bit_cast::<8, 2>(self.prev.q.val()) + self.k1_8.val()));
        self.pick.next = self.prev.q.val() + self.k[1].val();
        if self.rot.val().get_bit(3) {
            self.pick.next = self.prev.q.val(); // prev + 4 = prev (mod 4)
        }
        if self.rot.val().get_bit(2) {
            self.pick.next = self.prev.q.val() + self.k[3].val();
        }
        if self.rot.val().get_bit(1) {
            self.pick.next = self.prev.q.val() + self.k[2].val();
        }
        if self.rot.val().get_bit(0) {
            self.pick.next = self.prev.q.val() + self.k[1].val();
        }
        if self.prio_mode.val() {
            self.pick.next = self.k[3].val();
            if self.req.val().get_bit(2) {
                self.pick.next = self.k[2].val();
            }
            if self.req.val().get_bit(1) {
                self.pick.next = self.k[1].val();
            }
            if self.req.val().get_bit(0) {
                self.pick.next = self.k[0].val();
            }
        }
        self.cur.next = self.pick.val();
        if self.busy.q.val() {
            self.cur.next = self.sel.q.val();
        }
        self.s0_axis.tready.next = false;
        self.s1_axis.tready.next = false;
        self.s2_axis.tready.next = false;
        self.s3_axis.tready.next = false;
        self.skid.s_axis.tvalid.next = false;
        self.skid.s_axis.tdata.next = self.s0_axis.tdata.val();
        self.skid.s_axis.tkeep.next = self.s0_axis.tkeep.val();
        self.skid.s_axis.tlast.next = self.s0_axis.tlast.val();
        self.skid.s_axis.tuser.next = self.s0_axis.tuser.val();
        match self.cur.val().index() {
            0 => {
                self.skid.s_axis.tvalid.next = self.s0_axis.tvalid.val();
                self.s0_axis.tready.next = self.skid.s_axis.tready.val();
            }
            1 => {
                self.skid.s_axis.tvalid.next = self.s1_axis.tvalid.val();
                self.skid.s_axis.tdata.next = self.s1_axis.tdata.val();
                self.skid.s_axis.tkeep.next = self.s1_axis.tkeep.val();
                self.skid.s_axis.tlast.next = self.s1_axis.tlast.val();
                self.skid.s_axis.tuser.next = self.s1_axis.tuser.val();
                self.s1_axis.tready.next = self.skid.s_axis.tready.val();
            }
            2 => {
                self.skid.s_axis.tvalid.next = self.s2_axis.tvalid.val();
                self.skid.s_axis.tdata.next = self.s2_axis.tdata.val();
                self.skid.s_axis.tkeep.next = self.s2_axis.tkeep.val();
                self.skid.s_axis.tlast.next = self.s2_axis.tlast.val();
                self.skid.s_axis.tuser.next = self.s2_axis.tuser.val();
                self.s2_axis.tready.next = self.skid.s_axis.tready.val();
            }
            _ => {
                self.skid.s_axis.tvalid.next = self.s3_axis.tvalid.val();
                self.skid.s_axis.tdata.next = self.s3_axis.tdata.val();
                self.skid.s_axis.tkeep.next = self.s3_axis.tkeep.val();
                self.skid.s_axis.tlast.next = self.s3_axis.tlast.val();
                self.skid.s_axis.tuser.next = self.s3_axis.tuser.val();
                self.s3_axis.tready.next = self.skid.s_axis.tready.val();
            }
        }
        self.take.next = self.skid.s_axis.tvalid.val() & self.skid.s_axis.tready.val();
        if self.take.val() {
            if !self.busy.q.val() {
                self.sel.d.next = self.cur.val();
                self.prev.d.next = self.cur.val();
            }
            self.busy.d.next = !self.skid.s_axis.tlast.val();
        }
        self.grant.next = self.cur.val();
        if self.reset.val() {
            self.busy.d.next = false;
            self.prev.d.next = self.k[3].val();
        }
    }
}

nicgen_hdl::impl_ports!(AxisArb4, clock = clock, [clock, reset,
    s0_axis.tdata, s0_axis.tkeep, s0_axis.tlast, s0_axis.tuser, s0_axis.tvalid, s0_axis.tready,
    s1_axis.tdata, s1_axis.tkeep, s1_axis.tlast, s1_axis.tuser, s1_axis.tvalid, s1_axis.tready,
    s2_axis.tdata, s2_axis.tkeep, s2_axis.tlast, s2_axis.tuser, s2_axis.tvalid, s2_axis.tready,
    s3_axis.tdata, s3_axis.tkeep, s3_axis.tlast, s3_axis.tuser, s3_axis.tvalid, s3_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, grant]);
