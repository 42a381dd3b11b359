//! `DmaWrMux`: merges two sources of host-memory writes (a command, then its data frame of
//! exactly `len` bytes) onto one DMA write port, one whole write at a time, round robin. Each
//! command comes with its packet's slot metadata (`*_meta`), which leaves beside every beat of
//! its data (`m_meta`) for the RX payload slot.
//!
//! A source is chosen only when its command **and the first beat of its data** are both
//! waiting. The responder's data leaves its payload mover in RX order, behind payloads it hands
//! to the requester; the requester's data waits for this mux. Granting the responder's command
//! before its data exists could wait on a payload stuck behind the requester's own write: a
//! deadlock (a READ response to the requester followed by a WRITE or SEND to host memory, with
//! both commands arriving in one cycle, did it).
use crate::roce::DmaCmd;
use crate::service::slot::{SlotBeat, SlotMeta};
use crate::stream::*;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DmaWrMux {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub a_cmd: Signal<In, DmaCmd>,
    pub a_cmd_valid: Signal<In, Bit>,
    pub a_cmd_ready: Signal<Out, Bit>,
    pub a_meta: Signal<In, SlotMeta>,
    pub s_axis_a: Axis512Sink,
    pub b_cmd: Signal<In, DmaCmd>,
    pub b_cmd_valid: Signal<In, Bit>,
    pub b_cmd_ready: Signal<Out, Bit>,
    pub b_meta: Signal<In, SlotMeta>,
    pub s_axis_b: Axis512Sink,
    pub cmd: Signal<Out, DmaCmd>,
    pub cmd_valid: Signal<Out, Bit>,
    pub cmd_ready: Signal<In, Bit>,
    pub m_axis: Axis512Source,
    pub m_meta: Signal<Out, SlotMeta>,
    cmd_q: ChanSkid<DmaCmd>,
    skid: ChanSkid<SlotBeat>,
    meta: DFF<SlotMeta>,
    /// A write's data is passing: from b when `sel`, else from a.
    busy: DFF<Bit>,
    sel: DFF<Bit>,
    last_b: DFF<Bit>,
    /// A source's command and its data's first beat are both here.
    a_go: Signal<Local, Bit>,
    b_go: Signal<Local, Bit>,
    pick_b: Signal<Local, Bit>,
}

impl Logic for DmaWrMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, sel, last_b, meta);
        clock!(self, clock, cmd_q, skid);
        self.cmd_q.reset.next = self.reset.val();
        self.skid.reset.next = self.reset.val();
        self.cmd.next = self.cmd_q.m_data.val();
        self.cmd_valid.next = self.cmd_q.m_valid.val();
        self.cmd_q.m_ready.next = self.cmd_ready.val();
        self.m_axis.tdata.next = self.skid.m_data.val().data;
        self.m_axis.tkeep.next = self.skid.m_data.val().keep;
        self.m_axis.tlast.next = self.skid.m_data.val().last;
        self.m_axis.tuser.next = self.skid.m_data.val().user;
        self.m_meta.next = self.skid.m_data.val().meta;
        self.m_axis.tvalid.next = self.skid.m_valid.val();
        self.skid.m_ready.next = self.m_axis.tready.val();
        // choose a write when idle, among those whose data has started to arrive: b if only b
        // is ready, or both are and a went last
        self.a_go.next = self.a_cmd_valid.val() & self.s_axis_a.tvalid.val();
        self.b_go.next = self.b_cmd_valid.val() & self.s_axis_b.tvalid.val();
        self.pick_b.next = self.b_go.val() & (!self.a_go.val() | !self.last_b.q.val());
        self.a_cmd_ready.next = false;
        self.b_cmd_ready.next = false;
        self.cmd_q.s_valid.next = false;
        self.cmd_q.s_data.next = self.a_cmd.val();
        if self.pick_b.val() {
            self.cmd_q.s_data.next = self.b_cmd.val();
        }
        if !self.busy.q.val() & self.cmd_q.s_ready.val() {
            if self.pick_b.val() {
                self.b_cmd_ready.next = true;
                self.cmd_q.s_valid.next = true;
                self.meta.d.next = self.b_meta.val();
                self.busy.d.next = true;
                self.sel.d.next = true;
                self.last_b.d.next = true;
            } else if self.a_go.val() {
                self.a_cmd_ready.next = true;
                self.cmd_q.s_valid.next = true;
                self.meta.d.next = self.a_meta.val();
                self.busy.d.next = true;
                self.sel.d.next = false;
                self.last_b.d.next = false;
            }
        }
        // then its data frame
        self.s_axis_a.tready.next = false;
        self.s_axis_b.tready.next = false;
        self.skid.s_valid.next = false;
        self.skid.s_data.next.data = self.s_axis_a.tdata.val();
        self.skid.s_data.next.keep = self.s_axis_a.tkeep.val();
        self.skid.s_data.next.last = self.s_axis_a.tlast.val();
        self.skid.s_data.next.user = self.s_axis_a.tuser.val();
        self.skid.s_data.next.meta = self.meta.q.val();
        if self.busy.q.val() {
            if self.sel.q.val() {
                self.skid.s_data.next.data = self.s_axis_b.tdata.val();
                self.skid.s_data.next.keep = self.s_axis_b.tkeep.val();
                self.skid.s_data.next.last = self.s_axis_b.tlast.val();
                self.skid.s_data.next.user = self.s_axis_b.tuser.val();
                self.skid.s_valid.next = self.s_axis_b.tvalid.val();
                self.s_axis_b.tready.next = self.skid.s_ready.val();
                if self.s_axis_b.tvalid.val() & self.skid.s_ready.val() & self.s_axis_b.tlast.val() {
                    self.busy.d.next = false;
                }
            } else {
                self.skid.s_valid.next = self.s_axis_a.tvalid.val();
                self.s_axis_a.tready.next = self.skid.s_ready.val();
                if self.s_axis_a.tvalid.val() & self.skid.s_ready.val() & self.s_axis_a.tlast.val() {
                    self.busy.d.next = false;
                }
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!(DmaWrMux, clock = clock, [clock, reset, a_cmd, a_cmd_valid, a_cmd_ready, a_meta,
    s_axis_a.tdata, s_axis_a.tkeep, s_axis_a.tlast, s_axis_a.tuser, s_axis_a.tvalid, s_axis_a.tready,
    b_cmd, b_cmd_valid, b_cmd_ready, b_meta,
    s_axis_b.tdata, s_axis_b.tkeep, s_axis_b.tlast, s_axis_b.tuser, s_axis_b.tvalid, s_axis_b.tready,
    cmd, cmd_valid, cmd_ready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, m_meta]);
