//! `EmForward`: the EM's egress to its two wire ports with per-EM dual-port failover. Each
//! frame comes with its preferred port (`s_port`, from the lookup, with the first beat). The
//! port is chosen when the frame's first beat is taken, from the links' state one cycle
//! earlier (`link_up`, registered): the preferred port if its link is up, else the other one if
//! its link is up, else the frame is dropped (`drop_link_down`). A frame never changes port
//! once started, so no frame is cut in half; a link that goes down stops receiving new frames
//! from the next frame start on (the bound: the rest of the frame in flight plus one cycle).
//! A port whose link is down must keep taking beats (its MAC discards them).
use crate::stream::*;
use rust_hdl::prelude::*;

/// The forwarder at `D` bits (`K` = `D`/8).
#[derive(LogicBlock, Default)]
pub struct EmForwardW<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Link state per port (bit 0: port 0).
    pub link_up: Signal<In, Bits<2>>,
    /// The frame's preferred port, with its first beat.
    pub s_port: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis_p0: AxisSource<D, K>,
    pub m_axis_p1: AxisSource<D, K>,
    pub frames_p0: Signal<Out, Bits<32>>,
    pub frames_p1: Signal<Out, Bits<32>>,
    pub failover: Signal<Out, Bits<32>>,
    pub drop_link_down: Signal<Out, Bits<32>>,
    sk0: AxisSkid<D, K>,
    sk1: AxisSkid<D, K>,
    up: DFF<Bits<2>>,
    in_frame: DFF<Bit>,
    cur: DFF<Bit>,
    cur_drop: DFF<Bit>,
    k0: DFF<Bits<32>>,
    k1: DFF<Bits<32>>,
    kf: DFF<Bits<32>>,
    kd: DFF<Bits<32>>,
    pref_up: Signal<Local, Bit>,
    other_up: Signal<Local, Bit>,
    choose: Signal<Local, Bit>,
    cdrop: Signal<Local, Bit>,
    sel: Signal<Local, Bit>,
    dropping: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
}

/// The forwarder on the 512-bit datapath.
pub type EmForward = EmForwardW<DATA_W, KEEP_W>;
/// The forwarder on the 1024-bit datapath.
pub type EmForward1024 = EmForwardW<1024, 128>;

impl<const D: usize, const K: usize> Logic for EmForwardW<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, up, in_frame, cur, cur_drop, k0, k1, kf, kd);
        clock!(self, clock, sk0, sk1);
        self.sk0.reset.next = self.reset.val();
        self.sk1.reset.next = self.reset.val();
        self.up.d.next = self.link_up.val();
        // the choice at a frame's first beat
        self.pref_up.next = self.up.q.val().get_bit(0);
        self.other_up.next = self.up.q.val().get_bit(1);
        if self.s_port.val() {
            self.pref_up.next = self.up.q.val().get_bit(1);
            self.other_up.next = self.up.q.val().get_bit(0);
        }
        self.choose.next = self.s_port.val() ^ !self.pref_up.val();
        self.cdrop.next = !self.pref_up.val() & !self.other_up.val();
        self.sel.next = self.choose.val();
        self.dropping.next = self.cdrop.val();
        if self.in_frame.q.val() {
            self.sel.next = self.cur.q.val();
            self.dropping.next = self.cur_drop.q.val();
        }
        self.sk0.s_axis.tdata.next = self.s_axis.tdata.val();
        self.sk0.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.sk0.s_axis.tlast.next = self.s_axis.tlast.val();
        self.sk0.s_axis.tuser.next = self.s_axis.tuser.val();
        self.sk1.s_axis.tdata.next = self.s_axis.tdata.val();
        self.sk1.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.sk1.s_axis.tlast.next = self.s_axis.tlast.val();
        self.sk1.s_axis.tuser.next = self.s_axis.tuser.val();
        self.sk0.s_axis.tvalid.next = self.s_axis.tvalid.val() & !self.dropping.val() & !self.sel.val();
        self.sk1.s_axis.tvalid.next = self.s_axis.tvalid.val() & !self.dropping.val() & self.sel.val();
        self.s_axis.tready.next = self.dropping.val() | (self.sk0.s_axis.tready.val() & !self.sel.val()) | (self.sk1.s_axis.tready.val() & self.sel.val());
        self.take.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        if self.take.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
            if !self.in_frame.q.val() {
                self.cur.d.next = self.choose.val();
                self.cur_drop.d.next = self.cdrop.val();
                if self.cdrop.val() {
                    self.kd.d.next = self.kd.q.val() + 1;
                } else {
                    if self.choose.val() {
                        self.k1.d.next = self.k1.q.val() + 1;
                    } else {
                        self.k0.d.next = self.k0.q.val() + 1;
                    }
                    if self.choose.val() != self.s_port.val() {
                        self.kf.d.next = self.kf.q.val() + 1;
                    }
                }
            }
        }
        AxisSource::<D, K>::link(&mut self.m_axis_p0, &mut self.sk0.m_axis);
        AxisSource::<D, K>::link(&mut self.m_axis_p1, &mut self.sk1.m_axis);
        self.frames_p0.next = self.k0.q.val();
        self.frames_p1.next = self.k1.q.val();
        self.failover.next = self.kf.q.val();
        self.drop_link_down.next = self.kd.q.val();
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.k0.d.next = 0.into();
            self.k1.d.next = 0.into();
            self.kf.d.next = 0.into();
            self.kd.d.next = 0.into();
        }
    }
}

/// The forwarder's counters.
pub const EM_FORWARD_COUNTERS: [(&str, &str); 4] = [
    ("frames_p0", "frames sent to port 0"),
    ("frames_p1", "frames sent to port 1"),
    ("failover", "frames sent to the port they did not prefer (its link was down)"),
    ("drop_link_down", "frames dropped: both links down"),
];

nicgen_hdl::impl_ports!([EmForward, EmForward1024], clock = clock, [clock, reset, link_up, s_port,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis_p0.tdata, m_axis_p0.tkeep, m_axis_p0.tlast, m_axis_p0.tuser, m_axis_p0.tvalid, m_axis_p0.tready,
    m_axis_p1.tdata, m_axis_p1.tkeep, m_axis_p1.tlast, m_axis_p1.tuser, m_axis_p1.tvalid, m_axis_p1.tready,
    frames_p0, frames_p1, failover, drop_link_down]);

