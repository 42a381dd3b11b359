//! `M2mEth`: the M2M channel carried in Ethernet frames on a wire port (EtherType
//! `nicgen_model::m2m::M2M_ETHERTYPE`, one message per frame), between the port's MAC and the
//! EM. This is the U55C board's private channel: the card has no second PCIe function the host
//! could not also reach, and the paper names in-band Ethernet M2M as the way across nodes.
//!
//! ```text
//! s_axis_rx ─► split by the first beat ─► m_axis_rx (every other frame, to the EM)
//!                 ├─ M2M to `mac` ─► frame FIFO (drops bad FCS) ─► strip 14 B ─► limit to `length` ─► 512→64 ─► m_axis_up
//!                 └─ M2M to another MAC: discarded, counted
//! s_axis_reply ─► 64→512 (pad to 60 B) ─► Ethernet header (to the last sender, from `mac`) ─┐
//! s_axis_tx (the EM's frames) ───────────────────────────────────────────────────────────┴─► arbiter ─► m_axis_tx
//! ```
//!
//! * Who can write: the host's frames enter the EM, whose parser drops every frame that is not
//!   IPv4 or IPv6 (`not_ip`), so no host frame leaves an EM with this EtherType, and frames from the
//!   wire are split off here, before the EM (a VXLAN inner frame with this EtherType is the
//!   tenant's and goes to its VF). The fabric between the OM and the card must not let other
//!   senders through (every tenant NIC on it an EM, or a switch ACL on the EtherType); epochs
//!   still refuse any replay.
//! * A frame is passed to the endpoint only once all of it is in and its FCS is good (the MAC's
//!   `tuser`); frames whose message would not fit the FIFO are dropped and counted. A frame
//!   longer than its message's `length` is cut to it (Ethernet padding); a shorter one reaches
//!   the endpoint as it is, which counts it.
//! * Replies go to the source MAC of the last message accepted, from `mac`. Until a message has
//!   been accepted there is no OM to send to: the endpoint's messages (events) are dropped
//!   whole and counted.
//! * `mac` is in wire order: the address's first byte in bits 7..0.
use super::{Axis64Sink, Axis64Source};
use crate::stream::*;
use nicgen_model::m2m::M2M_ETHERTYPE;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct M2mEth {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// This card's MAC address, first byte in bits 7..0.
    pub mac: Signal<In, Bits<48>>,
    pub s_axis_rx: Axis512Sink,
    pub m_axis_rx: Axis512Source,
    pub s_axis_tx: Axis512Sink,
    pub m_axis_tx: Axis512Source,
    pub m_axis_up: Axis64Source,
    pub s_axis_reply: Axis64Sink,
    /// M2M frames handed to the endpoint; dropped for a bad FCS, for lack of room, for another
    /// MAC; reply frames sent, and dropped because no OM has been heard from yet.
    pub frames: Signal<Out, Bits<32>>,
    pub drop_bad_fcs: Signal<Out, Bits<32>>,
    pub drop_overflow: Signal<Out, Bits<32>>,
    pub drop_other_mac: Signal<Out, Bits<32>>,
    pub replies: Signal<Out, Bits<32>>,
    pub replies_unsent: Signal<Out, Bits<32>>,
    // RX split
    em_skid: AxisSkid512,
    fifo: AxisFrameFifo512,
    strip: AxisStrip,
    trim: AxisLimit,
    narrow: AxisNarrow64,
    mid: DFF<Bit>,
    route: DFF<Bits<2>>,
    cur: Signal<Local, Bits<2>>,
    is_m2m: Signal<Local, Bit>,
    to_us: Signal<Local, Bit>,
    f_mid: DFF<Bit>,
    om_mac: DFF<Bits<48>>,
    /// A message has been accepted, so `om_mac` names the OM.
    known: DFF<Bit>,
    k_frames: DFF<Bits<32>>,
    k_other: DFF<Bits<32>>,
    // TX
    widen: AxisWiden64,
    ins: AxisInsert,
    arb: AxisArb4,
    o_mid: DFF<Bit>,
    o_drop: DFF<Bit>,
    drop_now: Signal<Local, Bit>,
    k_replies: DFF<Bits<32>>,
    k_unsent: DFF<Bits<32>>,
    t_mid: DFF<Bit>,
    c14: Constant<Bits<8>>,
    et_wire: Constant<Bits<16>>,
    r_em: Constant<Bits<2>>,
    r_m2m: Constant<Bits<2>>,
    r_drop: Constant<Bits<2>>,
    c0_512: Constant<Bits<512>>,
    c0_64: Constant<Bits<64>>,
    unused: Signal<Local, Bit>,
}

impl Default for M2mEth {
    fn default() -> Self {
        // the EtherType as it lies in beat bytes 12 and 13 (first byte in the low bits)
        let et = (M2M_ETHERTYPE >> 8) as u64 | ((M2M_ETHERTYPE as u64 & 0xff) << 8);
        M2mEth {
            clock: Default::default(),
            reset: Default::default(),
            mac: Default::default(),
            s_axis_rx: Default::default(),
            m_axis_rx: Default::default(),
            s_axis_tx: Default::default(),
            m_axis_tx: Default::default(),
            m_axis_up: Default::default(),
            s_axis_reply: Default::default(),
            frames: Default::default(),
            drop_bad_fcs: Default::default(),
            drop_overflow: Default::default(),
            drop_other_mac: Default::default(),
            replies: Default::default(),
            replies_unsent: Default::default(),
            em_skid: Default::default(),
            fifo: Default::default(),
            strip: Default::default(),
            trim: Default::default(),
            narrow: Default::default(),
            mid: Default::default(),
            route: Default::default(),
            cur: Default::default(),
            is_m2m: Default::default(),
            to_us: Default::default(),
            f_mid: Default::default(),
            om_mac: Default::default(),
            known: Default::default(),
            k_frames: Default::default(),
            k_other: Default::default(),
            widen: Default::default(),
            ins: Default::default(),
            arb: AxisArb4::new(false),
            o_mid: Default::default(),
            o_drop: Default::default(),
            drop_now: Default::default(),
            k_replies: Default::default(),
            k_unsent: Default::default(),
            t_mid: Default::default(),
            c14: Constant::new(14u64.into()),
            et_wire: Constant::new(et.into()),
            r_em: Constant::new(0u64.into()),
            r_m2m: Constant::new(1u64.into()),
            r_drop: Constant::new(2u64.into()),
            c0_512: Constant::new(0u64.into()),
            c0_64: Constant::new(0u64.into()),
            unused: Default::default(),
        }
    }
}

impl Logic for M2mEth {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, route, f_mid, om_mac, known, k_frames, k_other, o_mid, o_drop, k_replies, k_unsent, t_mid);
        clock!(self, clock, em_skid, fifo, strip, trim, narrow, widen, ins, arb);
        self.em_skid.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.strip.reset.next = self.reset.val();
        self.trim.reset.next = self.reset.val();
        self.narrow.reset.next = self.reset.val();
        self.widen.reset.next = self.reset.val();
        self.ins.reset.next = self.reset.val();
        self.arb.reset.next = self.reset.val();
        // ---- RX: each frame's route is decided by its first beat
        self.is_m2m.next = (self.s_axis_rx.tdata.val().get_bits::<16>(96) == self.et_wire.val()) & self.s_axis_rx.tkeep.val().get_bit(13);
        self.to_us.next = self.s_axis_rx.tdata.val().get_bits::<48>(0) == self.mac.val();
        self.cur.next = self.r_em.val();
        if self.is_m2m.val() {
            self.cur.next = self.r_drop.val();
            if self.to_us.val() {
                self.cur.next = self.r_m2m.val();
            }
        }
        if self.mid.q.val() {
            self.cur.next = self.route.q.val();
        }
        self.em_skid.s_axis.tdata.next = self.s_axis_rx.tdata.val();
        self.em_skid.s_axis.tkeep.next = self.s_axis_rx.tkeep.val();
        self.em_skid.s_axis.tlast.next = self.s_axis_rx.tlast.val();
        self.em_skid.s_axis.tuser.next = self.s_axis_rx.tuser.val();
        self.em_skid.s_axis.tvalid.next = self.s_axis_rx.tvalid.val() & (self.cur.val() == self.r_em.val());
        self.fifo.s_axis.tdata.next = self.s_axis_rx.tdata.val();
        self.fifo.s_axis.tkeep.next = self.s_axis_rx.tkeep.val();
        self.fifo.s_axis.tlast.next = self.s_axis_rx.tlast.val();
        self.fifo.s_axis.tuser.next = self.s_axis_rx.tuser.val();
        self.fifo.s_axis.tvalid.next = self.s_axis_rx.tvalid.val() & (self.cur.val() == self.r_m2m.val());
        self.s_axis_rx.tready.next = true;
        if self.cur.val() == self.r_em.val() {
            self.s_axis_rx.tready.next = self.em_skid.s_axis.tready.val();
        }
        if self.cur.val() == self.r_m2m.val() {
            self.s_axis_rx.tready.next = self.fifo.s_axis.tready.val();
        }
        if self.s_axis_rx.tvalid.val() & self.s_axis_rx.tready.val() {
            self.mid.d.next = !self.s_axis_rx.tlast.val();
            self.route.d.next = self.cur.val();
            if !self.mid.q.val() & (self.cur.val() == self.r_drop.val()) {
                self.k_other.d.next = self.k_other.q.val() + 1;
            }
        }
        Axis512Source::link(&mut self.m_axis_rx, &mut self.em_skid.m_axis);
        // good M2M frames: the sender's MAC is learned, the Ethernet header stripped, the frame
        // cut to its message's length (bytes 4 and 5 of the message), then 64 bits wide
        Axis512Source::join(&mut self.fifo.m_axis, &mut self.strip.s_axis);
        self.strip.strip_len.next = self.c14.val();
        if self.fifo.m_axis.tvalid.val() & self.fifo.m_axis.tready.val() {
            self.f_mid.d.next = !self.fifo.m_axis.tlast.val();
            if !self.f_mid.q.val() {
                self.om_mac.d.next = self.fifo.m_axis.tdata.val().get_bits::<48>(48);
                self.known.d.next = true;
                self.k_frames.d.next = self.k_frames.q.val() + 1;
            }
        }
        Axis512Source::join(&mut self.strip.m_axis, &mut self.trim.s_axis);
        self.trim.limit.next = (bit_cast::<16, 8>(self.strip.m_axis.tdata.val().get_bits::<8>(32)) << 8) | bit_cast::<16, 8>(self.strip.m_axis.tdata.val().get_bits::<8>(40));
        Axis512Source::join(&mut self.trim.m_axis, &mut self.narrow.s_axis);
        Axis64Source::link(&mut self.m_axis_up, &mut self.narrow.m_axis);
        self.frames.next = self.k_frames.q.val();
        self.drop_bad_fcs.next = self.fifo.drop_bad.val();
        self.drop_overflow.next = self.fifo.drop_overflow.val();
        self.drop_other_mac.next = self.k_other.q.val();
        // ---- TX: replies framed to the last sender, merged with the EM's frames. Until an OM
        // has been heard from, messages (events) have nowhere to go: each is dropped whole and
        // counted, decided at its first word.
        self.drop_now.next = !self.known.q.val();
        if self.o_mid.q.val() {
            self.drop_now.next = self.o_drop.q.val();
        }
        self.widen.s_axis.tdata.next = self.s_axis_reply.tdata.val();
        self.widen.s_axis.tkeep.next = self.s_axis_reply.tkeep.val();
        self.widen.s_axis.tlast.next = self.s_axis_reply.tlast.val();
        self.widen.s_axis.tuser.next = self.s_axis_reply.tuser.val();
        self.widen.s_axis.tvalid.next = self.s_axis_reply.tvalid.val() & !self.drop_now.val();
        self.s_axis_reply.tready.next = self.widen.s_axis.tready.val() | self.drop_now.val();
        if self.s_axis_reply.tvalid.val() & self.s_axis_reply.tready.val() {
            self.o_mid.d.next = !self.s_axis_reply.tlast.val();
            self.o_drop.d.next = self.drop_now.val();
            if self.s_axis_reply.tlast.val() {
                if self.drop_now.val() {
                    self.k_unsent.d.next = self.k_unsent.q.val() + 1;
                } else {
                    self.k_replies.d.next = self.k_replies.q.val() + 1;
                }
            }
        }
        self.replies.next = self.k_replies.q.val();
        self.replies_unsent.next = self.k_unsent.q.val();
        Axis512Source::join(&mut self.widen.m_axis, &mut self.ins.s_axis);
        self.ins.hdr_data.next = bit_cast::<1024, 48>(self.om_mac.q.val()) | (bit_cast::<1024, 48>(self.mac.val()) << 48) | (bit_cast::<1024, 16>(self.et_wire.val()) << 96);
        self.ins.hdr_len.next = self.c14.val();
        self.ins.hdr_only.next = false;
        self.ins.hdr_valid.next = self.widen.m_axis.tvalid.val() & !self.t_mid.q.val();
        if self.widen.m_axis.tvalid.val() & self.widen.m_axis.tready.val() {
            self.t_mid.d.next = !self.widen.m_axis.tlast.val();
        }
        Axis512Source::join(&mut self.ins.m_axis, &mut self.arb.s1_axis);
        Axis512Sink::link(&mut self.s_axis_tx, &mut self.arb.s0_axis);
        self.arb.s2_axis.tvalid.next = false;
        self.arb.s2_axis.tdata.next = self.c0_512.val();
        self.arb.s2_axis.tkeep.next = self.c0_64.val();
        self.arb.s2_axis.tlast.next = false;
        self.arb.s2_axis.tuser.next = false;
        self.arb.s3_axis.tvalid.next = false;
        self.arb.s3_axis.tdata.next = self.c0_512.val();
        self.arb.s3_axis.tkeep.next = self.c0_64.val();
        self.arb.s3_axis.tlast.next = false;
        self.arb.s3_axis.tuser.next = false;
        Axis512Source::link(&mut self.m_axis_tx, &mut self.arb.m_axis);
        self.fifo.s_cut.next = false;
        self.unused.next = self.fifo.level.val().any() | self.fifo.w_cut.val() | self.fifo.cut_first.val() | self.fifo.cut_end.val() | self.fifo.cut_bad.val() | self.strip.runts.val().any() | self.ins.hdr_ready.val() | self.arb.grant.val().any() | self.arb.s2_axis.tready.val() | self.arb.s3_axis.tready.val();
        if self.reset.val() {
            self.mid.d.next = false;
            self.f_mid.d.next = false;
            self.t_mid.d.next = false;
            self.o_mid.d.next = false;
            self.known.d.next = false;
            self.k_unsent.d.next = 0.into();
            self.k_frames.d.next = 0.into();
            self.k_other.d.next = 0.into();
            self.k_replies.d.next = 0.into();
        }
    }
}
