//! `EmNode` (top `em_node`): one EM as the server sees it: the datapath (`EmDatapath`) with
//! its M2M endpoint as the only writer of its tables and settings. The endpoint's profile
//! drives the datapath's `cfg` and `nat`; its table port, swap and busy join the datapath's
//! banks; the datapath's counters are telemetry 16..27; its table misses leave as event messages
//! on the M2M reply stream.
use super::endpoint::M2mEndpoint;
use super::{Axis64Sink, Axis64Source};
use crate::axil::{AxilSlave, AxilSlave32};
use crate::em::front::EmDatapath;
use crate::stream::*;
use rust_hdl::prelude::*;

/// The datapath counters in telemetry order (index 16 + i).
pub const NODE_DP_COUNTERS: [&str; 11] = ["eg_parsed", "eg_kept", "eg_dropped", "ig_parsed", "ig_kept", "ig_dropped", "frames_p0", "frames_p1", "failover", "drop_link_down", "drop_roce_vlan"];

#[derive(LogicBlock, Default)]
pub struct EmNode {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub em_id: Signal<In, Bits<8>>,
    pub link_up: Signal<In, Bits<2>>,
    pub s_axis_up: Axis64Sink,
    pub m_axis_down: Axis64Source,
    pub m_axis_reply: Axis64Source,
    pub s_axis_ret: Axis64Sink,
    pub s_axil_host: AxilSlave<32>,
    pub s_axis_host_tx: Axis512Sink,
    pub s_host_vf: Signal<In, Bits<12>>,
    pub m_axis_p0_tx: Axis512Source,
    pub m_axis_p1_tx: Axis512Source,
    pub s_axis_p0_rx: Axis512Sink,
    pub s_axis_p1_rx: Axis512Sink,
    pub m_axis_host_rx: Axis512Source,
    pub m_host_vf: Signal<Out, Bits<12>>,
    /// One cycle: a table batch became visible to the datapath (the bank swap).
    pub swapped: Signal<Out, Bit>,
    pub ep: M2mEndpoint,
    pub dp: EmDatapath,
    unused: Signal<Local, Bit>,
}

impl Logic for EmNode {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ep, dp);
        self.ep.reset.next = self.reset.val();
        self.dp.reset.next = self.reset.val();
        self.ep.em_id.next = self.em_id.val();
        self.dp.link_up.next = self.link_up.val();
        Axis64Sink::link(&mut self.s_axis_up, &mut self.ep.s_axis_up);
        Axis64Source::link(&mut self.m_axis_down, &mut self.ep.m_axis_down);
        Axis64Source::link(&mut self.m_axis_reply, &mut self.ep.m_axis_reply);
        Axis64Sink::link(&mut self.s_axis_ret, &mut self.ep.s_axis_ret);
        AxilSlave32::link(&mut self.s_axil_host, &mut self.ep.s_axil_host);
        // the endpoint is the only writer of the datapath's tables and settings
        self.dp.s_tw.next = self.ep.m_tw.val();
        self.dp.s_tw_valid.next = self.ep.m_tw_valid.val();
        self.dp.swap.next = self.ep.m_swap.val();
        self.swapped.next = self.ep.m_swap.val();
        self.ep.s_busy.next = self.dp.busy.val();
        self.dp.s_rb.next = self.ep.m_rb.val();
        self.dp.s_rb_valid.next = self.ep.m_rb_valid.val();
        self.ep.s_rb.next = self.dp.m_rb.val();
        self.ep.s_rb_valid.next = self.dp.m_rb_valid.val();
        self.dp.cfg.next = self.ep.cfg.val();
        self.dp.nat.next = self.ep.nat.val();
        self.ep.dev_status.next = bit_cast::<32, 2>(self.link_up.val());
        self.ep.dp_ctr[0].next = self.dp.eg_parsed.val();
        self.ep.dp_ctr[1].next = self.dp.eg_kept.val();
        self.ep.dp_ctr[2].next = self.dp.eg_dropped.val();
        self.ep.dp_ctr[3].next = self.dp.ig_parsed.val();
        self.ep.dp_ctr[4].next = self.dp.ig_kept.val();
        self.ep.dp_ctr[5].next = self.dp.ig_dropped.val();
        self.ep.dp_ctr[6].next = self.dp.frames_p0.val();
        self.ep.dp_ctr[7].next = self.dp.frames_p1.val();
        self.ep.dp_ctr[8].next = self.dp.failover.val();
        self.ep.dp_ctr[9].next = self.dp.drop_link_down.val();
        self.ep.dp_ctr[10].next = self.dp.drop_roce_vlan.val();
        for i in 11..16 {
            self.ep.dp_ctr[i].next = 0.into();
        }
        // the datapath's streams
        Axis512Sink::link(&mut self.s_axis_host_tx, &mut self.dp.s_axis_host_tx);
        self.dp.s_host_vf.next = self.s_host_vf.val();
        Axis512Source::link(&mut self.m_axis_p0_tx, &mut self.dp.m_axis_p0_tx);
        Axis512Source::link(&mut self.m_axis_p1_tx, &mut self.dp.m_axis_p1_tx);
        Axis512Sink::link(&mut self.s_axis_p0_rx, &mut self.dp.s_axis_p0_rx);
        Axis512Sink::link(&mut self.s_axis_p1_rx, &mut self.dp.s_axis_p1_rx);
        Axis512Source::link(&mut self.m_axis_host_rx, &mut self.dp.m_axis_host_rx);
        self.m_host_vf.next = self.dp.m_host_vf.val();
        // table misses go to the OM as event messages
        self.ep.s_ev.next = self.dp.m_ev.val();
        self.ep.s_ev_valid.next = self.dp.m_ev_valid.val();
        self.dp.m_ev_ready.next = self.ep.s_ev_ready.val();
        self.unused.next = self.dp.s_tw_ready.val() | self.ep.profile.val().any() | self.ep.cc.val().any();
    }
}
