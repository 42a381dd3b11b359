//! `ArpIcmp`: the card's own address services, so that Linux peers reach it through their
//! neighbour table and `ping` (as Coyote's and the fpga-network-stack's ARP and ICMP servers do).
//!
//! - **ARP.** An ARP request for `local_ip` (to `local_mac` or broadcast) is answered with a
//!   reply from `local_mac`. The sender of every such request, and of every ARP reply to
//!   `local_ip`, is learned into an 8-entry neighbour table (an entry with the same IP is
//!   updated, else the oldest replaced), which `nb_query_ip`/`nb_hit`/`nb_mac` read. A pulse on
//!   `who_has_go` broadcasts a request for `who_has_ip`, so that the host resolves a peer by ARP.
//! - **ICMP echo.** An IPv4 echo request to `local_mac` and `local_ip` (no IP options, not a
//!   fragment, type 8 code 0) is answered with the same frame sent back: the MACs and IP
//!   addresses swapped, type 0, the ICMP checksum updated incrementally (RFC 1624: + 0x0800
//!   with end-around carry; the IP header's words are the same, so its checksum stays). A
//!   request whose checksum is wrong gets a reply whose checksum is wrong, which the peer drops.
//!   Requests are stored in a 32-beat frame FIFO (2,048 bytes, so a 1500-byte MTU ping fits
//!   while another waits); one that ends bad (`tuser`) or does not fit in the room left is
//!   dropped and counted.
//! - **Output.** Replies join the engine's frames (`s_axis_tx`, through a skid buffer) at frame
//!   boundaries, before them when both wait (replies are rare and short). The merge is a
//!   multiplexer of registers; the engine's frames take one cycle longer to the MAC.
//!
//! Byte `i` of a frame is `tdata[8i+7:8i]`. `local_mac`, `local_ip`, `who_has_ip`,
//! `nb_query_ip` and `nb_mac` are numbers (the first byte on the wire is the most significant).
//! The RX side is a passive tap: it never pushes back.
use crate::stream::*;
use rust_hdl::prelude::*;

/// Neighbour table entries.
pub const NEIGH_ENTRIES: usize = 8;
/// The echo FIFO's address bits: 32 beats of 64 bytes.
pub const ECHO_FIFO_A: usize = 5;

/// Output sources (`out_sel`).
mod src {
    #[allow(dead_code)]
    pub const TX: u64 = 0;
    pub const ARP: u64 = 1;
    pub const ECHO: u64 = 2;
}

#[derive(LogicBlock)]
pub struct ArpIcmp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Every frame from the MAC (a tap: a beat passes on `tvalid & tready`).
    pub rx: Axis512Tap,
    /// The engine's frames.
    pub s_axis_tx: Axis512Sink,
    /// To the MAC.
    pub m_axis_tx: Axis512Source,
    pub local_mac: Signal<In, Bits<48>>,
    pub local_ip: Signal<In, Bits<32>>,
    pub who_has_ip: Signal<In, Bits<32>>,
    pub who_has_go: Signal<In, Bit>,
    pub nb_query_ip: Signal<In, Bits<32>>,
    pub nb_hit: Signal<Out, Bit>,
    pub nb_mac: Signal<Out, Bits<48>>,
    /// ARP replies sent.
    pub arp_replies: Signal<Out, Bits<32>>,
    /// ARP requests sent (`who_has_go`).
    pub arp_requests: Signal<Out, Bits<32>>,
    /// Neighbour entries written or refreshed.
    pub arp_learned: Signal<Out, Bits<32>>,
    /// ARP frames for this card not answered: ended bad, or a reply still waiting to go.
    pub arp_dropped: Signal<Out, Bits<32>>,
    /// ICMP echo replies sent.
    pub echo_replies: Signal<Out, Bits<32>>,
    /// Echo requests not answered: ended bad, or no room in the FIFO.
    pub echo_dropped: Signal<Out, Bits<32>>,
    /// `local_mac`/`local_ip` in wire order (byte 0 in bits 7:0).
    mac_wire: Signal<Local, Bits<48>>,
    ip_wire: Signal<Local, Bits<32>>,
    who_wire: Signal<Local, Bits<32>>,
    query_wire: Signal<Local, Bits<32>>,
    /// The next RX beat starts a frame.
    rx_in_frame: DFF<Bit>,
    // stage A: the beat, and its first-beat field checks, registered
    a_valid: DFF<Bit>,
    a_first: DFF<Bit>,
    a_data: DFF<Bits<512>>,
    a_keep: DFF<Bits<64>>,
    a_last: DFF<Bit>,
    a_user: DFF<Bit>,
    a_dst_ours: DFF<Bit>,
    a_dst_bcast: DFF<Bit>,
    a_arp_hdr: DFF<Bit>,
    a_arp_req: DFF<Bit>,
    a_arp_rep: DFF<Bit>,
    a_arp_for_us: DFF<Bit>,
    a_echo_hdr: DFF<Bit>,
    a_ip_for_us: DFF<Bit>,
    /// The echo reply's ICMP checksum (a number).
    a_csum: DFF<Bits<16>>,
    csum_in: Signal<Local, Bits<17>>,
    csum_sum: Signal<Local, Bits<17>>,
    /// This frame is an ARP frame to answer or learn from / an echo request to answer.
    arp_on: DFF<Bit>,
    echo_on: DFF<Bit>,
    arp_now: Signal<Local, Bit>,
    echo_now: Signal<Local, Bit>,
    /// The ARP frame's sender (wire order) and whether it asks.
    arp_sha: DFF<Bits<48>>,
    arp_spa: DFF<Bits<32>>,
    arp_asks: DFF<Bit>,
    // stage B: the echo FIFO's input, the first beat made the reply's
    b_valid: DFF<Bit>,
    b_data: DFF<Bits<512>>,
    b_keep: DFF<Bits<64>>,
    b_last: DFF<Bit>,
    b_user: DFF<Bit>,
    reply_head: Signal<Local, Bits<512>>,
    echo_fifo: AxisRxFifo<DATA_W, KEEP_W, 578, ECHO_FIFO_A>,
    /// A reply to send: to `reply_sha`/`reply_spa` (wire order).
    reply_pend: DFF<Bit>,
    reply_sha: DFF<Bits<48>>,
    reply_spa: DFF<Bits<32>>,
    /// A request to send, for `who_ip` (wire order).
    who_pend: DFF<Bit>,
    who_ip: DFF<Bits<32>>,
    /// The ARP frame on its way out (one beat, 60 bytes).
    arp_out_valid: DFF<Bit>,
    arp_out_data: DFF<Bits<512>>,
    arp_template: Constant<Bits<512>>,
    arp_own: Signal<Local, Bits<512>>,
    arp_keep: Constant<Bits<64>>,
    op_reply: Constant<Bits<512>>,
    op_request: Constant<Bits<512>>,
    // the neighbour table (wire order)
    nb_valid: [DFF<Bit>; NEIGH_ENTRIES],
    nb_ip: [DFF<Bits<32>>; NEIGH_ENTRIES],
    nb_mac_w: [DFF<Bits<48>>; NEIGH_ENTRIES],
    nb_next: DFF<Bits<3>>,
    nb_idx: [Constant<Bits<3>>; NEIGH_ENTRIES],
    learn_hit: Signal<Local, Bit>,
    learn_idx: Signal<Local, Bits<3>>,
    learn: Signal<Local, Bit>,
    src_sha: Signal<Local, Bits<48>>,
    src_spa: Signal<Local, Bits<32>>,
    src_asks: Signal<Local, Bit>,
    bcast: Constant<Bits<48>>,
    query_mac_w: Signal<Local, Bits<48>>,
    // the output merge
    /// The engine's frames enter through a skid buffer: the merge after it is a multiplexer
    /// of registers, and no path runs from `m_axis_tx.tready` to `s_axis_tx.tready`.
    tx_in: AxisSkid<DATA_W, KEEP_W>,
    out_busy: DFF<Bit>,
    out_sel: DFF<Bits<2>>,
    cur: Signal<Local, Bits<2>>,
    is_arp: Signal<Local, Bit>,
    is_echo: Signal<Local, Bit>,
    sel_arp: Constant<Bits<2>>,
    sel_echo: Constant<Bits<2>>,
    // field values on the wire, as `get_bits` reads them (byte 0 lowest)
    k_eth_arp: Constant<Bits<16>>,
    k_eth_ip4: Constant<Bits<16>>,
    k_arp_fixed: Constant<Bits<48>>,
    k_op_req: Constant<Bits<16>>,
    k_op_rep: Constant<Bits<16>>,
    k_ver_ihl: Constant<Bits<8>>,
    k_proto_icmp: Constant<Bits<8>>,
    k_frag_mask: Constant<Bits<16>>,
    k_echo_req: Constant<Bits<16>>,
    k_csum_add: Constant<Bits<17>>,
    k_kept_bytes: Constant<Bits<512>>,
    one3: Constant<Bits<3>>,
    zero3: Constant<Bits<3>>,
    one32: Constant<Bits<32>>,
    n_arp_replies: DFF<Bits<32>>,
    n_arp_requests: DFF<Bits<32>>,
    n_arp_learned: DFF<Bits<32>>,
    n_arp_dropped: DFF<Bits<32>>,
    n_echo_replies: DFF<Bits<32>>,
    unused: Signal<Local, Bit>,
}

/// Bytes `(offset, value)` on the wire as a 512-bit beat.
fn beat_of(bytes: &[(usize, u8)]) -> Bits<512> {
    let mut b = Bits::<512>::default();
    for &(at, v) in bytes {
        for bit in 0..8 {
            b = b.replace_bit(8 * at + bit, (v >> bit) & 1 == 1);
        }
    }
    b
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl Default for ArpIcmp {
    fn default() -> Self {
        // ARP: ethertype 0x0806, htype 1, ptype 0x0800, hlen 6, plen 4; the opcode at 20-21
        let template = beat_of(&[(12, 0x08), (13, 0x06), (14, 0), (15, 1), (16, 0x08), (17, 0), (18, 6), (19, 4)]);
        // the echo reply keeps every byte but the MACs (0-11), the IP addresses (26-33), the
        // ICMP type, code and checksum (34-37)
        let mut kept_bytes = Bits::<512>::default();
        for i in 0..512 {
            let byte = i / 8;
            kept_bytes = kept_bytes.replace_bit(i, !(byte < 12 || (26..38).contains(&byte)));
        }
        let mut keep60 = Bits::<64>::default();
        for i in 0..60 {
            keep60 = keep60.replace_bit(i, true);
        }
        ArpIcmp {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            s_axis_tx: Default::default(),
            m_axis_tx: Default::default(),
            local_mac: Default::default(),
            local_ip: Default::default(),
            who_has_ip: Default::default(),
            who_has_go: Default::default(),
            nb_query_ip: Default::default(),
            nb_hit: Default::default(),
            nb_mac: Default::default(),
            arp_replies: Default::default(),
            arp_requests: Default::default(),
            arp_learned: Default::default(),
            arp_dropped: Default::default(),
            echo_replies: Default::default(),
            echo_dropped: Default::default(),
            mac_wire: Default::default(),
            ip_wire: Default::default(),
            who_wire: Default::default(),
            query_wire: Default::default(),
            rx_in_frame: Default::default(),
            a_valid: Default::default(),
            a_first: Default::default(),
            a_data: Default::default(),
            a_keep: Default::default(),
            a_last: Default::default(),
            a_user: Default::default(),
            a_dst_ours: Default::default(),
            a_dst_bcast: Default::default(),
            a_arp_hdr: Default::default(),
            a_arp_req: Default::default(),
            a_arp_rep: Default::default(),
            a_arp_for_us: Default::default(),
            a_echo_hdr: Default::default(),
            a_ip_for_us: Default::default(),
            a_csum: Default::default(),
            csum_in: Default::default(),
            csum_sum: Default::default(),
            arp_on: Default::default(),
            echo_on: Default::default(),
            arp_now: Default::default(),
            echo_now: Default::default(),
            arp_sha: Default::default(),
            arp_spa: Default::default(),
            arp_asks: Default::default(),
            b_valid: Default::default(),
            b_data: Default::default(),
            b_keep: Default::default(),
            b_last: Default::default(),
            b_user: Default::default(),
            reply_head: Default::default(),
            echo_fifo: Default::default(),
            reply_pend: Default::default(),
            reply_sha: Default::default(),
            reply_spa: Default::default(),
            who_pend: Default::default(),
            who_ip: Default::default(),
            arp_out_valid: Default::default(),
            arp_out_data: Default::default(),
            arp_template: Constant::new(template),
            arp_own: Default::default(),
            arp_keep: Constant::new(keep60),
            op_reply: Constant::new(beat_of(&[(21, 2)])),
            op_request: Constant::new(beat_of(&[(21, 1)])),
            nb_valid: Default::default(),
            nb_ip: Default::default(),
            nb_mac_w: Default::default(),
            nb_next: Default::default(),
            nb_idx: std::array::from_fn(|i| k(i as u64)),
            learn_hit: Default::default(),
            learn_idx: Default::default(),
            learn: Default::default(),
            src_sha: Default::default(),
            src_spa: Default::default(),
            src_asks: Default::default(),
            bcast: k(0xffff_ffff_ffff),
            query_mac_w: Default::default(),
            tx_in: Default::default(),
            out_busy: Default::default(),
            out_sel: Default::default(),
            cur: Default::default(),
            is_arp: Default::default(),
            is_echo: Default::default(),
            sel_arp: k(src::ARP),
            sel_echo: k(src::ECHO),
            k_eth_arp: k(0x0608),
            k_eth_ip4: k(0x0008),
            k_arp_fixed: k(0x0406_0008_0100),
            k_op_req: k(0x0100),
            k_op_rep: k(0x0200),
            k_ver_ihl: k(0x45),
            k_proto_icmp: k(1),
            k_frag_mask: k(0xff3f),
            k_echo_req: k(0x0008),
            k_csum_add: k(0x0800),
            k_kept_bytes: Constant::new(kept_bytes),
            one3: k(1),
            zero3: k(0),
            one32: k(1),
            n_arp_replies: Default::default(),
            n_arp_requests: Default::default(),
            n_arp_learned: Default::default(),
            n_arp_dropped: Default::default(),
            n_echo_replies: Default::default(),
            unused: Default::default(),
        }
    }
}

impl Logic for ArpIcmp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rx_in_frame, a_valid, a_first, a_data, a_keep, a_last, a_user, a_dst_ours, a_dst_bcast, a_arp_hdr, a_arp_req, a_arp_rep, a_arp_for_us, a_echo_hdr, a_ip_for_us, a_csum, arp_on, echo_on, arp_sha, arp_spa, arp_asks, b_valid, b_data, b_keep, b_last, b_user, reply_pend, reply_sha, reply_spa, who_pend, who_ip, arp_out_valid, arp_out_data, nb_next, out_busy, out_sel, n_arp_replies, n_arp_requests, n_arp_learned, n_arp_dropped, n_echo_replies);
        for i in 0..8 {
            self.nb_valid[i].clock.next = self.clock.val();
            self.nb_ip[i].clock.next = self.clock.val();
            self.nb_mac_w[i].clock.next = self.clock.val();
            self.nb_valid[i].d.next = self.nb_valid[i].q.val();
            self.nb_ip[i].d.next = self.nb_ip[i].q.val();
            self.nb_mac_w[i].d.next = self.nb_mac_w[i].q.val();
        }
        clock!(self, clock, echo_fifo, tx_in);
        self.echo_fifo.reset.next = self.reset.val();
        self.tx_in.reset.next = self.reset.val();
        Axis512Sink::link(&mut self.s_axis_tx, &mut self.tx_in.s_axis);
        // numbers to wire order
        self.mac_wire.next = bit_cast::<48, 8>(self.local_mac.val().get_bits::<8>(40))
            | (bit_cast::<48, 8>(self.local_mac.val().get_bits::<8>(32)) << 8)
            | (bit_cast::<48, 8>(self.local_mac.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.local_mac.val().get_bits::<8>(16)) << 24)
            | (bit_cast::<48, 8>(self.local_mac.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.local_mac.val().get_bits::<8>(0)) << 40);
        self.ip_wire.next = bit_cast::<32, 8>(self.local_ip.val().get_bits::<8>(24))
            | (bit_cast::<32, 8>(self.local_ip.val().get_bits::<8>(16)) << 8)
            | (bit_cast::<32, 8>(self.local_ip.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.local_ip.val().get_bits::<8>(0)) << 24);
        self.who_wire.next = bit_cast::<32, 8>(self.who_has_ip.val().get_bits::<8>(24))
            | (bit_cast::<32, 8>(self.who_has_ip.val().get_bits::<8>(16)) << 8)
            | (bit_cast::<32, 8>(self.who_has_ip.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.who_has_ip.val().get_bits::<8>(0)) << 24);
        self.query_wire.next = bit_cast::<32, 8>(self.nb_query_ip.val().get_bits::<8>(24))
            | (bit_cast::<32, 8>(self.nb_query_ip.val().get_bits::<8>(16)) << 8)
            | (bit_cast::<32, 8>(self.nb_query_ip.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.nb_query_ip.val().get_bits::<8>(0)) << 24);
        // ------------------------------------------------ stage A: the beat and its checks
        self.a_valid.d.next = self.rx.tvalid.val() & self.rx.tready.val();
        self.a_first.d.next = !self.rx_in_frame.q.val();
        self.a_data.d.next = self.rx.tdata.val();
        self.a_keep.d.next = self.rx.tkeep.val();
        self.a_last.d.next = self.rx.tlast.val();
        self.a_user.d.next = self.rx.tuser.val();
        if self.rx.tvalid.val() & self.rx.tready.val() {
            self.rx_in_frame.d.next = !self.rx.tlast.val();
        }
        self.a_dst_ours.d.next = self.rx.tdata.val().get_bits::<48>(0) == self.mac_wire.val();
        self.a_dst_bcast.d.next = self.rx.tdata.val().get_bits::<48>(0).all();
        self.a_arp_hdr.d.next = (self.rx.tdata.val().get_bits::<16>(96) == self.k_eth_arp.val()) & (self.rx.tdata.val().get_bits::<48>(112) == self.k_arp_fixed.val());
        self.a_arp_req.d.next = self.rx.tdata.val().get_bits::<16>(160) == self.k_op_req.val();
        self.a_arp_rep.d.next = self.rx.tdata.val().get_bits::<16>(160) == self.k_op_rep.val();
        self.a_arp_for_us.d.next = self.rx.tdata.val().get_bits::<32>(304) == self.ip_wire.val();
        self.a_echo_hdr.d.next = (self.rx.tdata.val().get_bits::<16>(96) == self.k_eth_ip4.val())
            & (self.rx.tdata.val().get_bits::<8>(112) == self.k_ver_ihl.val())
            & (self.rx.tdata.val().get_bits::<8>(184) == self.k_proto_icmp.val())
            & !(self.rx.tdata.val().get_bits::<16>(160) & self.k_frag_mask.val()).any()
            & (self.rx.tdata.val().get_bits::<16>(272) == self.k_echo_req.val());
        self.a_ip_for_us.d.next = self.rx.tdata.val().get_bits::<32>(240) == self.ip_wire.val();
        // the reply's checksum: the request's (bytes 36-37, most significant first) + 0x0800,
        // the carry added back in
        self.csum_in.next = (bit_cast::<17, 8>(self.rx.tdata.val().get_bits::<8>(288)) << 8) | bit_cast::<17, 8>(self.rx.tdata.val().get_bits::<8>(296));
        self.csum_sum.next = self.csum_in.val() + self.k_csum_add.val();
        self.a_csum.d.next = self.csum_sum.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.csum_sum.val().get_bits::<1>(16));
        // ------------------------------------------------ the frame's class, from its first beat
        self.arp_now.next = self.arp_on.q.val();
        self.echo_now.next = self.echo_on.q.val();
        if self.a_first.q.val() {
            self.arp_now.next = self.a_arp_hdr.q.val() & (self.a_dst_ours.q.val() | self.a_dst_bcast.q.val()) & self.a_arp_for_us.q.val() & (self.a_arp_req.q.val() | self.a_arp_rep.q.val());
            self.echo_now.next = self.a_echo_hdr.q.val() & self.a_dst_ours.q.val() & self.a_ip_for_us.q.val();
        }
        // an ARP frame's sender: from its first beat, then as latched there
        self.src_sha.next = self.arp_sha.q.val();
        self.src_spa.next = self.arp_spa.q.val();
        self.src_asks.next = self.arp_asks.q.val();
        if self.a_first.q.val() {
            self.src_sha.next = self.a_data.q.val().get_bits::<48>(176);
            self.src_spa.next = self.a_data.q.val().get_bits::<32>(224);
            self.src_asks.next = self.a_arp_req.q.val();
        }
        if self.a_valid.q.val() {
            self.arp_on.d.next = self.arp_now.val() & !self.a_last.q.val();
            self.echo_on.d.next = self.echo_now.val() & !self.a_last.q.val();
            if self.a_first.q.val() {
                self.arp_sha.d.next = self.src_sha.val();
                self.arp_spa.d.next = self.src_spa.val();
                self.arp_asks.d.next = self.src_asks.val();
            }
        }
        // ------------------------------------------------ stage B: into the echo FIFO
        self.reply_head.next = (self.a_data.q.val() & self.k_kept_bytes.val())
            | bit_cast::<512, 48>(self.a_data.q.val().get_bits::<48>(48))
            | (bit_cast::<512, 48>(self.mac_wire.val()) << 48)
            | (bit_cast::<512, 32>(self.a_data.q.val().get_bits::<32>(240)) << 208)
            | (bit_cast::<512, 32>(self.a_data.q.val().get_bits::<32>(208)) << 240)
            | (bit_cast::<512, 8>(self.a_csum.q.val().get_bits::<8>(8)) << 288)
            | (bit_cast::<512, 8>(self.a_csum.q.val().get_bits::<8>(0)) << 296);
        self.b_valid.d.next = self.a_valid.q.val() & self.echo_now.val();
        self.b_data.d.next = self.a_data.q.val();
        if self.a_first.q.val() {
            self.b_data.d.next = self.reply_head.val();
        }
        self.b_keep.d.next = self.a_keep.q.val();
        self.b_last.d.next = self.a_last.q.val();
        self.b_user.d.next = self.a_user.q.val();
        self.echo_fifo.s_axis.tvalid.next = self.b_valid.q.val();
        self.echo_fifo.s_axis.tdata.next = self.b_data.q.val();
        self.echo_fifo.s_axis.tkeep.next = self.b_keep.q.val();
        self.echo_fifo.s_axis.tlast.next = self.b_last.q.val();
        self.echo_fifo.s_axis.tuser.next = self.b_user.q.val();
        self.echo_fifo.s_cut.next = false;
        // ------------------------------------------------ ARP: at the frame's end
        self.learn.next = false;
        if self.a_valid.q.val() & self.a_last.q.val() & self.arp_now.val() {
            if self.a_user.q.val() {
                self.n_arp_dropped.d.next = self.n_arp_dropped.q.val() + self.one32.val();
            } else {
                self.learn.next = true;
            }
        }
        // the neighbour entry to write: the one with this IP, else the oldest
        self.learn_hit.next = false;
        self.learn_idx.next = self.nb_next.q.val();
        for i in 0..8 {
            if self.nb_valid[i].q.val() & (self.nb_ip[i].q.val() == self.src_spa.val()) {
                self.learn_hit.next = true;
                self.learn_idx.next = self.nb_idx[i].val();
            }
        }
        if self.learn.val() {
            self.n_arp_learned.d.next = self.n_arp_learned.q.val() + self.one32.val();
            for i in 0..8 {
                if self.learn_idx.val() == self.nb_idx[i].val() {
                    self.nb_valid[i].d.next = true;
                    self.nb_ip[i].d.next = self.src_spa.val();
                    self.nb_mac_w[i].d.next = self.src_sha.val();
                }
            }
            if !self.learn_hit.val() {
                self.nb_next.d.next = self.nb_next.q.val() + self.one3.val();
            }
            if self.src_asks.val() {
                if self.reply_pend.q.val() {
                    self.n_arp_dropped.d.next = self.n_arp_dropped.q.val() + self.one32.val();
                } else {
                    self.reply_pend.d.next = true;
                    self.reply_sha.d.next = self.src_sha.val();
                    self.reply_spa.d.next = self.src_spa.val();
                }
            }
        }
        // neighbour queries
        self.nb_hit.next = false;
        self.query_mac_w.next = self.nb_mac_w[0].q.val();
        for i in 0..8 {
            if self.nb_valid[i].q.val() & (self.nb_ip[i].q.val() == self.query_wire.val()) {
                self.nb_hit.next = true;
                self.query_mac_w.next = self.nb_mac_w[i].q.val();
            }
        }
        self.nb_mac.next = bit_cast::<48, 8>(self.query_mac_w.val().get_bits::<8>(40))
            | (bit_cast::<48, 8>(self.query_mac_w.val().get_bits::<8>(32)) << 8)
            | (bit_cast::<48, 8>(self.query_mac_w.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.query_mac_w.val().get_bits::<8>(16)) << 24)
            | (bit_cast::<48, 8>(self.query_mac_w.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.query_mac_w.val().get_bits::<8>(0)) << 40);
        // requests the host asks for
        if self.who_has_go.val() & !self.who_pend.q.val() {
            self.who_pend.d.next = true;
            self.who_ip.d.next = self.who_wire.val();
        }
        // the ARP frame out: a reply first, then a request; both carry the fixed fields and the
        // card as the Ethernet source and the ARP sender
        self.arp_own.next = self.arp_template.val()
            | (bit_cast::<512, 48>(self.mac_wire.val()) << 48)
            | (bit_cast::<512, 48>(self.mac_wire.val()) << 176)
            | (bit_cast::<512, 32>(self.ip_wire.val()) << 224);
        if !self.arp_out_valid.q.val() {
            if self.reply_pend.q.val() {
                self.arp_out_valid.d.next = true;
                self.reply_pend.d.next = false;
                self.n_arp_replies.d.next = self.n_arp_replies.q.val() + self.one32.val();
                self.arp_out_data.d.next = self.arp_own.val() | self.op_reply.val()
                    | bit_cast::<512, 48>(self.reply_sha.q.val())
                    | (bit_cast::<512, 48>(self.reply_sha.q.val()) << 256)
                    | (bit_cast::<512, 32>(self.reply_spa.q.val()) << 304);
            } else if self.who_pend.q.val() {
                self.arp_out_valid.d.next = true;
                self.who_pend.d.next = false;
                self.n_arp_requests.d.next = self.n_arp_requests.q.val() + self.one32.val();
                self.arp_out_data.d.next = self.arp_own.val() | self.op_request.val()
                    | bit_cast::<512, 48>(self.bcast.val())
                    | (bit_cast::<512, 32>(self.who_ip.q.val()) << 304);
            }
        }
        // ------------------------------------------------ the output merge, a frame at a time
        // the source: the frame's in flight, else an ARP frame, else an echo reply, else the
        // engine's; signals on the ready path are each assigned once, in plain expressions, so
        // that Verilator sees no loop through the engine's TX block (which reads this `tready`
        // and writes its `tvalid` in one block)
        self.is_arp.next = (self.out_busy.q.val() & (self.out_sel.q.val() == self.sel_arp.val())) | (!self.out_busy.q.val() & self.arp_out_valid.q.val());
        self.is_echo.next = (self.out_busy.q.val() & (self.out_sel.q.val() == self.sel_echo.val())) | (!self.out_busy.q.val() & !self.arp_out_valid.q.val() & self.echo_fifo.m_axis.tvalid.val());
        self.tx_in.m_axis.tready.next = self.m_axis_tx.tready.val() & !self.is_arp.val() & !self.is_echo.val();
        self.echo_fifo.m_axis.tready.next = self.m_axis_tx.tready.val() & self.is_echo.val();
        // `src::ARP` is 1, `src::ECHO` 2, `src::TX` 0 (the two never both hold)
        self.cur.next = bit_cast::<2, 1>(self.is_arp.val().into()) | (bit_cast::<2, 1>(self.is_echo.val().into()) << 1);
        self.m_axis_tx.tvalid.next = self.tx_in.m_axis.tvalid.val();
        self.m_axis_tx.tdata.next = self.tx_in.m_axis.tdata.val();
        self.m_axis_tx.tkeep.next = self.tx_in.m_axis.tkeep.val();
        self.m_axis_tx.tlast.next = self.tx_in.m_axis.tlast.val();
        self.m_axis_tx.tuser.next = self.tx_in.m_axis.tuser.val();
        if self.is_arp.val() {
            self.m_axis_tx.tvalid.next = self.arp_out_valid.q.val();
            self.m_axis_tx.tdata.next = self.arp_out_data.q.val();
            self.m_axis_tx.tkeep.next = self.arp_keep.val();
            self.m_axis_tx.tlast.next = true;
            self.m_axis_tx.tuser.next = false;
            if self.m_axis_tx.tready.val() {
                self.arp_out_valid.d.next = false;
            }
        } else if self.is_echo.val() {
            self.m_axis_tx.tvalid.next = self.echo_fifo.m_axis.tvalid.val();
            self.m_axis_tx.tdata.next = self.echo_fifo.m_axis.tdata.val();
            self.m_axis_tx.tkeep.next = self.echo_fifo.m_axis.tkeep.val();
            self.m_axis_tx.tlast.next = self.echo_fifo.m_axis.tlast.val();
            self.m_axis_tx.tuser.next = false;
            if self.echo_fifo.m_axis.tvalid.val() & self.m_axis_tx.tready.val() & !self.out_busy.q.val() {
                self.n_echo_replies.d.next = self.n_echo_replies.q.val() + self.one32.val();
            }
        }
        if self.m_axis_tx.tvalid.val() & self.m_axis_tx.tready.val() {
            self.out_busy.d.next = !self.m_axis_tx.tlast.val();
            self.out_sel.d.next = self.cur.val();
        }
        self.arp_replies.next = self.n_arp_replies.q.val();
        self.arp_requests.next = self.n_arp_requests.q.val();
        self.arp_learned.next = self.n_arp_learned.q.val();
        self.arp_dropped.next = self.n_arp_dropped.q.val();
        self.echo_replies.next = self.n_echo_replies.q.val();
        self.echo_dropped.next = self.echo_fifo.drop_bad.val() + self.echo_fifo.drop_overflow.val();
        self.unused.next = self.echo_fifo.s_axis.tready.val() | self.echo_fifo.level.val().any() | self.echo_fifo.m_axis.tuser.val() | self.echo_fifo.cut_first.val() | self.echo_fifo.cut_end.val()
            | self.echo_fifo.cut_bad.val() | self.echo_fifo.w_cut.val();
        if self.reset.val() {
            self.rx_in_frame.d.next = false;
            self.a_valid.d.next = false;
            self.arp_on.d.next = false;
            self.echo_on.d.next = false;
            self.b_valid.d.next = false;
            self.reply_pend.d.next = false;
            self.who_pend.d.next = false;
            self.arp_out_valid.d.next = false;
            self.out_busy.d.next = false;
            self.nb_next.d.next = self.zero3.val();
            self.n_arp_replies.d.next = 0.into();
            self.n_arp_requests.d.next = 0.into();
            self.n_arp_learned.d.next = 0.into();
            self.n_arp_dropped.d.next = 0.into();
            self.n_echo_replies.d.next = 0.into();
            for i in 0..8 {
                self.nb_valid[i].d.next = false;
            }
        }
    }
}

nicgen_hdl::impl_ports!(ArpIcmp, clock = clock, [clock, reset,
    rx.tdata, rx.tkeep, rx.tlast, rx.tuser, rx.tvalid, rx.tready,
    s_axis_tx.tdata, s_axis_tx.tkeep, s_axis_tx.tlast, s_axis_tx.tuser, s_axis_tx.tvalid, s_axis_tx.tready,
    m_axis_tx.tdata, m_axis_tx.tkeep, m_axis_tx.tlast, m_axis_tx.tuser, m_axis_tx.tvalid, m_axis_tx.tready,
    local_mac, local_ip, who_has_ip, who_has_go, nb_query_ip, nb_hit, nb_mac,
    arp_replies, arp_requests, arp_learned, arp_dropped, echo_replies, echo_dropped]);
