//! `EmCard` (top `em_card`): the execution module as the U55C board carries it. `EmNode` (the
//! datapath and its M2M endpoint) with the M2M channel in Ethernet frames on wire port 0
//! (`M2mEth`): the OM reaches the endpoint through that port, and only through it. This board
//! is a single EM: a message for another EM is counted by the endpoint as relayed and goes no
//! further (`m_axis_down` is drained), and no downstream EM replies.
use super::eth::M2mEth;
use super::node::EmNode;
use crate::axil::{AxilSlave, AxilSlave32};
use crate::stream::*;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct EmCard {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub em_id: Signal<In, Bits<8>>,
    /// The card's MAC address for M2M frames, first byte in bits 7..0.
    pub mac: Signal<In, Bits<48>>,
    pub link_up: Signal<In, Bits<2>>,
    pub s_axil_host: AxilSlave<32>,
    pub s_axis_host_tx: Axis512Sink,
    pub s_host_vf: Signal<In, Bits<12>>,
    pub m_axis_p0_tx: Axis512Source,
    pub m_axis_p1_tx: Axis512Source,
    pub s_axis_p0_rx: Axis512Sink,
    pub s_axis_p1_rx: Axis512Sink,
    pub m_axis_host_rx: Axis512Source,
    pub m_host_vf: Signal<Out, Bits<12>>,
    pub swapped: Signal<Out, Bit>,
    /// The M2M channel's counters (`M2mEth`).
    pub m2m_frames: Signal<Out, Bits<32>>,
    pub m2m_drop_bad_fcs: Signal<Out, Bits<32>>,
    pub m2m_drop_overflow: Signal<Out, Bits<32>>,
    pub m2m_drop_other_mac: Signal<Out, Bits<32>>,
    pub m2m_replies: Signal<Out, Bits<32>>,
    pub m2m_replies_unsent: Signal<Out, Bits<32>>,
    pub node: EmNode,
    pub eth: M2mEth,
    c0_64: Constant<Bits<64>>,
    c0_8: Constant<Bits<8>>,
    unused: Signal<Local, Bit>,
}

impl Default for EmCard {
    fn default() -> Self {
        EmCard {
            clock: Default::default(),
            reset: Default::default(),
            em_id: Default::default(),
            mac: Default::default(),
            link_up: Default::default(),
            s_axil_host: Default::default(),
            s_axis_host_tx: Default::default(),
            s_host_vf: Default::default(),
            m_axis_p0_tx: Default::default(),
            m_axis_p1_tx: Default::default(),
            s_axis_p0_rx: Default::default(),
            s_axis_p1_rx: Default::default(),
            m_axis_host_rx: Default::default(),
            m_host_vf: Default::default(),
            swapped: Default::default(),
            m2m_frames: Default::default(),
            m2m_drop_bad_fcs: Default::default(),
            m2m_drop_overflow: Default::default(),
            m2m_drop_other_mac: Default::default(),
            m2m_replies: Default::default(),
            m2m_replies_unsent: Default::default(),
            node: Default::default(),
            eth: Default::default(),
            c0_64: Constant::new(0u64.into()),
            c0_8: Constant::new(0u64.into()),
            unused: Default::default(),
        }
    }
}

impl Logic for EmCard {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, node, eth);
        self.node.reset.next = self.reset.val();
        self.eth.reset.next = self.reset.val();
        self.node.em_id.next = self.em_id.val();
        self.eth.mac.next = self.mac.val();
        self.node.link_up.next = self.link_up.val();
        AxilSlave32::link(&mut self.s_axil_host, &mut self.node.s_axil_host);
        Axis512Sink::link(&mut self.s_axis_host_tx, &mut self.node.s_axis_host_tx);
        self.node.s_host_vf.next = self.s_host_vf.val();
        Axis512Source::link(&mut self.m_axis_host_rx, &mut self.node.m_axis_host_rx);
        self.m_host_vf.next = self.node.m_host_vf.val();
        self.swapped.next = self.node.swapped.val();
        // port 0 through the M2M channel, port 1 straight
        Axis512Sink::link(&mut self.s_axis_p0_rx, &mut self.eth.s_axis_rx);
        Axis512Source::join(&mut self.eth.m_axis_rx, &mut self.node.s_axis_p0_rx);
        Axis512Source::join(&mut self.node.m_axis_p0_tx, &mut self.eth.s_axis_tx);
        Axis512Source::link(&mut self.m_axis_p0_tx, &mut self.eth.m_axis_tx);
        Axis512Sink::link(&mut self.s_axis_p1_rx, &mut self.node.s_axis_p1_rx);
        Axis512Source::link(&mut self.m_axis_p1_tx, &mut self.node.m_axis_p1_tx);
        // the endpoint's message streams
        super::Axis64Source::join(&mut self.eth.m_axis_up, &mut self.node.s_axis_up);
        super::Axis64Source::join(&mut self.node.m_axis_reply, &mut self.eth.s_axis_reply);
        self.node.m_axis_down.tready.next = true;
        self.node.s_axis_ret.tvalid.next = false;
        self.node.s_axis_ret.tdata.next = self.c0_64.val();
        self.node.s_axis_ret.tkeep.next = self.c0_8.val();
        self.node.s_axis_ret.tlast.next = false;
        self.node.s_axis_ret.tuser.next = false;
        self.unused.next = self.node.m_axis_down.tdata.val().any() | self.node.m_axis_down.tkeep.val().any() | self.node.m_axis_down.tlast.val() | self.node.m_axis_down.tuser.val() | self.node.m_axis_down.tvalid.val() | self.node.s_axis_ret.tready.val();
        self.m2m_frames.next = self.eth.frames.val();
        self.m2m_drop_bad_fcs.next = self.eth.drop_bad_fcs.val();
        self.m2m_drop_overflow.next = self.eth.drop_overflow.val();
        self.m2m_drop_other_mac.next = self.eth.drop_other_mac.val();
        self.m2m_replies.next = self.eth.replies.val();
        self.m2m_replies_unsent.next = self.eth.replies_unsent.val();
    }
}
