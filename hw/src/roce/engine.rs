//! `RoceEngine`: the RoCEv2 RC engine (DESIGN.md §2): ICRC check and drop, parser, responder,
//! requester completion side, TX engine and the control plane, with one DMA read port, one DMA
//! write port (responder WRITEs and READ responses merged) and `s_axil_ctrl`.
//!
//! Register map of `s_axil_ctrl` (byte offsets; [`ENGINE_COUNTERS`] lists 0x000–0x0FC):
//! * 0x000–0x0FF: per-cause counters, read-only.
//! * 0x100 `QP_SEL`: the QPN the next `QP_CMD` acts on.
//! * 0x104 `QP_CMD`: write 1 = write the staged QP (configuration, responder state, send PSN;
//!   the completion side is emptied); 2 = read the QP's configuration and responder state into
//!   the staging words. Reads bit 0 = busy.
//! * 0x108 `NUM_QPS` (read-only), 0x10C `ACK_EVERY` (default 8, half the window),
//!   0x110/0x114 `LOCAL_MAC` low/high, 0x118–0x124 `LOCAL_IP` (IPv4 in 0x118), 0x128
//!   `TX_WINDOW` (packets a QP may have outstanding, 1..=16, default 16), 0x12C `TX_START` (the
//!   TX cut-through start threshold in beats, default 16; reads give the value now, which each
//!   underrun doubles; 255 = store and forward), 0x130 `RX_CUT` (cut-through at the RX buffer:
//!   bit 0 cuts WRITE MIDDLE and LAST and READ RESPONSE frames through before their ICRC is
//!   checked and places them speculatively; bit 2 cuts WRITE FIRST and ONLY through too but
//!   holds their placement until the verdict; bit 1 places those speculatively as well
//!   ([`crate::roce::hdr::CUT_OPS`]; frames shorter than [`crate::roce::hdr::CUT_MIN_LEN`] are
//!   stored); default 5).
//!   0x134 `ARP_WHO_HAS` (write an IPv4 address: the card broadcasts an ARP request for it),
//!   0x138 `NEIGH_IP` (the IPv4 address `NEIGH_MAC_*` look up in the neighbour table),
//!   0x13C `NEIGH_MAC_LO` / 0x140 `NEIGH_MAC_HI` (read-only: its MAC, bit 31 of `HI` set when
//!   the table holds it; [`crate::roce::arp_icmp`]).
//! * 0x200–0x260: the QP staging words ([`crate::roce::ctrl`]).
//! * 0x300–0x3FF: the payload slots' service registers (`RoceEngineAes`: `service::aes_ctr::reg`),
//!   write-only except the generation readback; absent (SLVERR) without a service.
//!
//! Writes elsewhere, and reads of unmapped words, answer SLVERR.
use crate::axil::*;
use crate::crc::icrc::IcrcCheck;
use crate::roce::ctrl::QpStage;
use crate::roce::hdr::RxCutPick;
use crate::roce::arp_icmp::ArpIcmp;
use crate::roce::dma::DmaWrMux;
use crate::roce::rx::parse::RoceRxParse;
use crate::roce::rx::requester::RoceRequester;
use crate::roce::rx::responder::RoceResponder;
use crate::roce::tx::engine::RoceTx;
use crate::roce::*;
use crate::service::aes_ctr::{self as aes, kind, SvcCfg};
use crate::service::dpi::DPI_LATENCY;
use crate::service::slot::{PayloadSlot, TapCore, TapFlagQueue, TapJoin, SLOT_A, SLOT_A_SHORT};
use crate::stream::*;
use rust_hdl::prelude::*;

/// The counters at 0x000 + 4i, in order: (name, meaning).
pub const ENGINE_COUNTERS: [(&str, &str); 64] = [
    ("rx_frames", "frames from the MAC"),
    ("rx_roce", "RoCEv2 frames from the MAC"),
    ("rx_bad_icrc", "dropped: wrong ICRC"),
    ("rx_truncated", "dropped: shorter than the IP length, or ending inside the headers"),
    ("rx_bad_length", "dropped: longer than the IP length, or shorter than the headers"),
    ("rx_user_flagged", "dropped: flagged bad by the MAC"),
    ("rx_drop_bad", "frames dropped by the RX buffer for the causes above"),
    ("rx_drop_overflow", "dropped: RX buffer full"),
    ("rx_parsed", "RoCEv2 frames parsed"),
    ("rx_not_roce", "dropped by the RoCE path: not RoCEv2 (ARP and ICMP echo requests, which arp_icmp answers, count here too)"),
    ("resp_headers", "headers at the responder"),
    ("resp_unknown_qp", "dropped: QPN beyond the QP table"),
    ("resp_qp_not_ready", "dropped: QP in RESET or INIT"),
    ("resp_qp_error", "dropped: QP in ERROR"),
    ("resp_malformed", "dropped: unknown opcode, pad that does not fit, transport version or P_Key (requests and responses)"),
    ("resp_duplicate", "dropped: duplicate PSN"),
    ("resp_psn_out_of_window", "PSN ahead of the expected one (one NAK 0x60 per gap)"),
    ("resp_bad_opcode_seq", "NAK 0x61: opcode out of sequence or not served"),
    ("resp_length_error", "NAK 0x61: length"),
    ("resp_rkey_violation", "NAK 0x62: rkey, access or range"),
    ("resp_writes", "WRITE packets accepted"),
    ("resp_reads", "READ requests accepted"),
    ("resp_acks", "ACKs requested"),
    ("resp_naks", "NAKs requested"),
    ("resp_to_requester", "responses passed to the requester"),
    ("req_acks", "ACKs matched"),
    ("req_ack_out_of_window", "ACKs ignored: outside the outstanding window"),
    ("req_nak_seq", "NAK 0x60 received"),
    ("req_nak_fatal", "NAK 0x61-0x63 received"),
    ("req_read_resp", "READ response packets placed"),
    ("req_resp_unexpected", "responses dropped"),
    ("req_completions", "completions posted"),
    ("tx_frames", "frames sent"),
    ("tx_acks", "ACK/NAK packets sent"),
    ("tx_read_resp", "READ RESPONSE packets sent"),
    ("tx_requests", "request packets sent"),
    ("tx_messages", "messages sent"),
    ("rx_tap_drop", "dropped: parallel-tap verdict"),
    ("rx_tap_flag", "frames flagged by the parallel tap"),
    ("slot_overrun", "service-slot beats lost for lack of room, TX + RX + tap (must stay 0)"),
    ("req_ack_duplicate", "ACKs ignored: already acknowledged"),
    ("req_implied_nak", "READ responses ahead of the expected PSN (implied NAK)"),
    ("req_timeouts", "retransmit timer expiries"),
    ("req_replays", "Go-Back-N replays started"),
    ("req_replay_deferred", "replays left to the timer (no retries left or no room)"),
    ("tx_retransmits", "request packets sent again"),
    ("resp_read_replays", "duplicate READ requests answered again"),
    ("tx_rb_writes", "WRITE and READ response payloads copied to the retransmission buffer (write bursts completed)"),
    ("tx_rb_reads", "payloads read back from the retransmission buffer (a retransmitted WRITE packet, or a duplicate READ's answer)"),
    ("tx_underruns", "frames aborted on the wire: the payload fell behind the cut-through start (each doubles TX_START)"),
    ("rx_cut_through", "frames cut through the RX buffer before their ICRC verdict (speculative placement)"),
    ("rx_cut_bad", "cut-through frames that ended bad (ICRC, length, MAC flag, tap drop or cut short): their writes withdrawn"),
    ("req_bad_response", "READ responses whose opcode or length does not fit the READ: the READ fails (bad response)"),
    ("arp_replies", "ARP replies sent (requests for LOCAL_IP)"),
    ("arp_requests", "ARP requests sent (ARP_WHO_HAS)"),
    ("arp_learned", "neighbour entries written from ARP requests for LOCAL_IP and ARP replies to it"),
    ("arp_dropped", "ARP frames for LOCAL_IP not answered: ended bad, or a reply still waiting"),
    ("icmp_echo_replies", "ICMP echo replies sent"),
    ("icmp_echo_dropped", "ICMP echo requests not answered: ended bad, or no room in the echo FIFO"),
    ("resp_rnr_naks", "RNR NAKs sent: a SEND found no RECV posted"),
    ("resp_sends", "SEND packets accepted (placed into a RECV's buffer)"),
    ("recv_posted", "RECVs posted to the receive queues"),
    ("recv_dropped", "RECV posts dropped: QPN beyond the table or receive queue full"),
    ("req_rnr_naks", "RNR NAKs received: the rest of the QP's work is sent again after the RNR timer"),
];

pub mod reg {
    pub const QP_SEL: u16 = 0x100;
    pub const QP_CMD: u16 = 0x104;
    pub const NUM_QPS: u16 = 0x108;
    pub const ACK_EVERY: u16 = 0x10c;
    pub const LOCAL_MAC_LO: u16 = 0x110;
    pub const LOCAL_MAC_HI: u16 = 0x114;
    pub const LOCAL_IP: u16 = 0x118;
    pub const TX_WINDOW: u16 = 0x128;
    pub const TX_START: u16 = 0x12c;
    pub const RX_CUT: u16 = 0x130;
    pub const ARP_WHO_HAS: u16 = 0x134;
    pub const NEIGH_IP: u16 = 0x138;
    pub const NEIGH_MAC_LO: u16 = 0x13c;
    pub const NEIGH_MAC_HI: u16 = 0x140;
    /// The service slots' configuration window (`service::aes_ctr::reg` offsets), present only in
    /// an engine with a slot service.
    pub const SVC_BASE: u16 = 0x300;
    pub const CMD_WRITE: u32 = 1;
    pub const CMD_READ: u32 = 2;
}

/// The responder's ACK coalescing after reset: half the default window, so an ACK is on its way
/// while the second half of a window is sent.
pub const ACK_EVERY_DEFAULT: usize = WINDOW_MAX / 2;

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// `A`: QPN bits; `R`: replay-ring index bits; `LT`, `LR`, `LP`: latencies of the pass-through
/// TX slot, RX slot and tap; `S`, `SR`: the TX and RX slots' services; `F`: the payload slots'
/// FIFO address bits ([`SLOT_A_SHORT`] unless a slot's core takes more than 28 cycles).
#[derive(LogicBlock)]
pub struct RoceEngine<const A: usize, const R: usize, const LT: usize, const LR: usize, const LP: usize, const S: usize, const SR: usize, const F: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rx: Axis512Sink,
    pub m_axis_tx: Axis512Source,
    /// The retransmission buffer in card memory (an HBM pseudo-channel on the U55C).
    pub m_axi_rb: Axi4Master512,
    pub sq: Signal<In, SqWr>,
    pub sq_valid: Signal<In, Bit>,
    pub sq_ready: Signal<Out, Bit>,
    /// RECVs for the QPs' receive queues.
    pub recv: Signal<In, RecvWr>,
    pub recv_valid: Signal<In, Bit>,
    pub recv_ready: Signal<Out, Bit>,
    /// Completions: of the work requests sent, and of the RECVs filled (`recv` set), merged.
    pub cq: Signal<Out, CqEntry>,
    pub cq_valid: Signal<Out, Bit>,
    pub cq_ready: Signal<In, Bit>,
    pub dma_rd_cmd: Signal<Out, DmaCmd>,
    pub dma_rd_cmd_valid: Signal<Out, Bit>,
    pub dma_rd_cmd_ready: Signal<In, Bit>,
    pub s_axis_dma_rd: Axis512Sink,
    pub dma_wr_cmd: Signal<Out, DmaCmd>,
    pub dma_wr_cmd_valid: Signal<Out, Bit>,
    pub dma_wr_cmd_ready: Signal<In, Bit>,
    pub m_axis_dma_wr: Axis512Source,
    pub s_axil_ctrl: AxilSlave<16>,
    check: IcrcCheck,
    /// The parallel tap: a copy of every checked frame goes to `tap_core`, whose verdict joins
    /// the frame before the RX buffer.
    rx_tap: TapJoin<LP>,
    tap_core: TapCore<LP, SR, A>,
    rx_fifo: AxisRxFifo512,
    /// Which frames the RX buffer cuts through ([`crate::roce::hdr::CUT_OPS`]), from their first
    /// beat.
    cut_pick: RxCutPick,
    /// The verdicts (bit 0 bad, bit 1 tap flag) of the cut-through frames, written as each one's
    /// last beat enters the buffer, taken by the responder once per such header. A frame is cut
    /// through only while this queue has room for its verdict.
    vq: AxisFifo<2, 1, 5, 5>,
    /// A verdict on its way into `vq`: one register after the buffer, so that the first-beat
    /// cut decision (`cut_pick` → the buffer's write side → `cut_end`) does not run on into the
    /// queue's fall-through logic (12 LUT levels without it).
    vq_in_v: DFF<Bit>,
    vq_in_d: DFF<Bits<2>>,
    /// `RX_CUT`: bit 0 cut the safe class of [`crate::roce::hdr::CUT_OPS`] through; bit 2 the
    /// own-address class too, held by the responder until its verdict; bit 1 that class too,
    /// placed before its verdict.
    rx_cut: DFF<Bits<3>>,
    /// The verdict queue has room (a register: the queue's level and its input are one block).
    vq_ok: DFF<Bit>,
    cut_dflt: Constant<Bits<3>>,
    a_cut: Constant<Bits<16>>,
    vq_room: Constant<Bits<16>>,
    /// A register stage between the tap's join and the RX buffer (which never backpressures),
    /// with the tap flag and the buffer's cut decision for the beat: the first-beat cut
    /// decision (`cut_pick`) ends in a register, and the buffer's write side starts from flops
    /// (LUT depth: 9 to 12 levels from `cut_pick` through the write side without it).
    rxq_valid: DFF<Bit>,
    rxq_data: DFF<Bits<512>>,
    rxq_keep: DFF<Bits<64>>,
    rxq_last: DFF<Bit>,
    rxq_user: DFF<Bit>,
    rxq_flag: DFF<Bit>,
    rxq_cut: DFF<Bit>,
    /// The tap's flags of the frames in `rx_fifo`, for the parser.
    rx_flags: TapFlagQueue,
    /// A register slice between the RX buffer and the parser, each beat with its frame's tap
    /// flag in bit 512 and whether it is cut through in bit 513: the parser's header extraction
    /// starts from flops, not from the buffer's RAM output and its read logic (LUT depth).
    rx_pipe: AxisSkid<514, 64>,
    parse: RoceRxParse,
    responder: RoceResponder<A, R>,
    req: RoceRequester<A, R>,
    tx: RoceTx<A, R, LT, S, F>,
    wmux: DmaWrMux,
    /// The RX payload slot, on the merged DMA write data.
    rx_slot: PayloadSlot<LR, SR, A, F>,
    /// Without an RX slot service, the slot's 32 beats of room are kept here (LUT RAM): the
    /// DMA write path absorbs as much host backpressure as it did with the slot.
    rx_room: AxisFifo<DATA_W, KEEP_W, 578, 5>,
    bridge: AxilBridge,
    window: StatusWindow<64>,
    /// The requester's completions and the responder's receive completions, to `cq`.
    cq_merge: ChanMerge2<CqEntry>,
    /// ARP and ICMP echo: a tap on the RX input, its replies merged into the TX output.
    net: ArpIcmp,
    who_has_ip: DFF<Bits<32>>,
    who_has_go: DFF<Bit>,
    neigh_ip: DFF<Bits<32>>,
    a_who: Constant<Bits<16>>,
    a_nip: Constant<Bits<16>>,
    a_nlo: Constant<Bits<16>>,
    a_nhi: Constant<Bits<16>>,
    k_cut: DFF<Bits<32>>,
    k_cut_bad: DFF<Bits<32>>,
    stage: QpStage,
    sel: DFF<Bits<24>>,
    ack_every: DFF<Bits<8>>,
    tx_window: DFF<Bits<8>>,
    mac_lo: DFF<Bits<32>>,
    mac_hi: DFF<Bits<16>>,
    /// `LOCAL_MAC` as one number, for the TX and `net`.
    local_mac: Signal<Local, Bits<48>>,
    ip: [DFF<Bits<32>>; 4],
    pend_w: DFF<Bit>,
    pend_r: DFF<Bit>,
    done_resp: DFF<Bit>,
    done_tx: DFF<Bit>,
    done_req: DFF<Bit>,
    own_q: DFF<Bits<32>>,
    own_hit_q: DFF<Bit>,
    own_wr: Signal<Local, Bit>,
    sel_a: Signal<Local, Bits<A>>,
    num_qps: Constant<Bits<24>>,
    a_sel: Constant<Bits<16>>,
    a_cmd: Constant<Bits<16>>,
    a_num: Constant<Bits<16>>,
    a_ack: Constant<Bits<16>>,
    a_win: Constant<Bits<16>>,
    a_start: Constant<Bits<16>>,
    a_mlo: Constant<Bits<16>>,
    a_mhi: Constant<Bits<16>>,
    a_ip: [Constant<Bits<16>>; 4],
    busy: Signal<Local, Bit>,
    cmd_w: Constant<Bits<32>>,
    cmd_r: Constant<Bits<32>>,
    ack16: Constant<Bits<8>>,
    win16: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    /// The service window (0x300..0x3ff) answers only when a slot holds a service.
    svc_on: Constant<Bit>,
    /// The parallel tap is in the data path only with a tap service (DPI), the RX payload slot
    /// only with an RX slot service (AES, DLRM): an engine without one has no shell, no line
    /// FIFO and no latency there (both blocks are still instantiated and fed, and synthesis
    /// removes them, as nothing reads them).
    tap_on: Constant<Bit>,
    rxs_on: Constant<Bit>,
    /// The tap's and the RX slot's overruns, 0 without them.
    ovr_tap: Signal<Local, Bits<32>>,
    ovr_rxs: Signal<Local, Bits<32>>,
    /// Status word 39, the three overrun counters' sum, registered so that the add is not in
    /// front of the window's pick (7 LUT levels to `window$rd_data` in `roce_engine_aes`).
    ovr_sum: DFF<Bits<32>>,
    a_svc: Constant<Bits<16>>,
    svc_mask: Constant<Bits<16>>,
    a_gen: Constant<Bits<16>>,
    svc_hit: Signal<Local, Bit>,
    svc_cfg: Signal<Local, SvcCfg>,
    unused: Signal<Local, Bit>,
}

impl<const A: usize, const R: usize, const LT: usize, const LR: usize, const LP: usize, const S: usize, const SR: usize, const F: usize> RoceEngine<A, R, LT, LR, LP, S, SR, F> {
    /// An engine whose QP table holds `num_qps` QPs (at most 2^A).
    pub fn new(num_qps: usize) -> Self {
        assert!(num_qps <= 1 << A);
        RoceEngine {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_rx: Default::default(),
            m_axis_tx: Default::default(),
            m_axi_rb: Default::default(),
            sq: Default::default(),
            sq_valid: Default::default(),
            sq_ready: Default::default(),
            recv: Default::default(),
            recv_valid: Default::default(),
            recv_ready: Default::default(),
            cq: Default::default(),
            cq_valid: Default::default(),
            cq_ready: Default::default(),
            cq_merge: Default::default(),
            dma_rd_cmd: Default::default(),
            dma_rd_cmd_valid: Default::default(),
            dma_rd_cmd_ready: Default::default(),
            s_axis_dma_rd: Default::default(),
            dma_wr_cmd: Default::default(),
            dma_wr_cmd_valid: Default::default(),
            dma_wr_cmd_ready: Default::default(),
            m_axis_dma_wr: Default::default(),
            s_axil_ctrl: Default::default(),
            check: Default::default(),
            rx_tap: Default::default(),
            tap_core: Default::default(),
            rx_fifo: Default::default(),
            cut_pick: Default::default(),
            vq: AxisFifo::new_fall_through(),
            vq_in_v: Default::default(),
            vq_in_d: Default::default(),
            rx_cut: Default::default(),
            vq_ok: Default::default(),
            cut_dflt: c(5),
            a_cut: c(reg::RX_CUT as u64),
            vq_room: c(29),
            rxq_valid: Default::default(),
            rxq_data: Default::default(),
            rxq_keep: Default::default(),
            rxq_last: Default::default(),
            rxq_user: Default::default(),
            rxq_flag: Default::default(),
            rxq_cut: Default::default(),
            k_cut: Default::default(),
            k_cut_bad: Default::default(),
            rx_flags: Default::default(),
            rx_pipe: Default::default(),
            parse: Default::default(),
            responder: Default::default(),
            req: Default::default(),
            tx: Default::default(),
            wmux: Default::default(),
            rx_slot: Default::default(),
            rx_room: Default::default(),
            bridge: Default::default(),
            window: Default::default(),
            net: Default::default(),
            who_has_ip: Default::default(),
            who_has_go: Default::default(),
            neigh_ip: Default::default(),
            a_who: c(reg::ARP_WHO_HAS as u64),
            a_nip: c(reg::NEIGH_IP as u64),
            a_nlo: c(reg::NEIGH_MAC_LO as u64),
            a_nhi: c(reg::NEIGH_MAC_HI as u64),
            stage: Default::default(),
            sel: Default::default(),
            ack_every: Default::default(),
            tx_window: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            local_mac: Default::default(),
            ip: Default::default(),
            pend_w: Default::default(),
            pend_r: Default::default(),
            done_resp: Default::default(),
            done_tx: Default::default(),
            done_req: Default::default(),
            own_q: Default::default(),
            own_hit_q: Default::default(),
            own_wr: Default::default(),
            sel_a: Default::default(),
            num_qps: c(num_qps as u64),
            a_sel: c(reg::QP_SEL as u64),
            a_cmd: c(reg::QP_CMD as u64),
            a_num: c(reg::NUM_QPS as u64),
            a_ack: c(reg::ACK_EVERY as u64),
            a_win: c(reg::TX_WINDOW as u64),
            a_start: c(reg::TX_START as u64),
            a_mlo: c(reg::LOCAL_MAC_LO as u64),
            a_mhi: c(reg::LOCAL_MAC_HI as u64),
            a_ip: std::array::from_fn(|i| c(reg::LOCAL_IP as u64 + 4 * i as u64)),
            busy: Default::default(),
            cmd_w: c(reg::CMD_WRITE as u64),
            cmd_r: c(reg::CMD_READ as u64),
            ack16: c(ACK_EVERY_DEFAULT as u64),
            win16: c(WINDOW_MAX as u64),
            zero32: c(0),
            svc_on: Constant::new(S != kind::PASS || SR != kind::PASS),
            tap_on: Constant::new(SR & kind::DPI != 0),
            rxs_on: Constant::new(SR & kind::AES_DLRM != 0),
            ovr_tap: Default::default(),
            ovr_rxs: Default::default(),
            ovr_sum: Default::default(),
            a_svc: c(reg::SVC_BASE as u64),
            svc_mask: c(0xff00),
            a_gen: c(reg::SVC_BASE as u64 + aes::reg::QP_GEN as u64),
            svc_hit: Default::default(),
            svc_cfg: Default::default(),
            unused: Default::default(),
        }
    }
}

impl<const A: usize, const R: usize, const LT: usize, const LR: usize, const LP: usize, const S: usize, const SR: usize, const F: usize> Logic for RoceEngine<A, R, LT, LR, LP, S, SR, F> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rxq_valid, rxq_data, rxq_keep, rxq_last, rxq_user, rxq_flag, rxq_cut, rx_cut, vq_ok, vq_in_v, vq_in_d, k_cut, k_cut_bad, ovr_sum, who_has_ip, who_has_go, neigh_ip, sel, ack_every, tx_window, mac_lo, mac_hi, pend_w, pend_r, done_resp, done_tx, done_req, own_q, own_hit_q);
        for i in 0..4 {
            self.ip[i].clock.next = self.clock.val();
            self.ip[i].d.next = self.ip[i].q.val();
        }
        clock!(self, clock, check, rx_tap, tap_core, rx_slot, rx_room, rx_fifo, vq, rx_flags, rx_pipe, parse, responder, req, tx, wmux, bridge, window, stage, net);
        self.check.reset.next = self.reset.val();
        self.rx_tap.reset.next = self.reset.val();
        self.tap_core.reset.next = self.reset.val();
        self.rx_slot.reset.next = self.reset.val();
        self.rx_room.reset.next = self.reset.val();
        self.rx_fifo.reset.next = self.reset.val();
        self.vq.reset.next = self.reset.val();
        self.rx_flags.reset.next = self.reset.val();
        self.rx_pipe.reset.next = self.reset.val();
        self.parse.reset.next = self.reset.val();
        self.responder.reset.next = self.reset.val();
        self.req.reset.next = self.reset.val();
        self.tx.reset.next = self.reset.val();
        self.wmux.reset.next = self.reset.val();
        self.bridge.reset.next = self.reset.val();
        self.stage.reset.next = self.reset.val();
        self.net.reset.next = self.reset.val();
        // ------------------------------------------------ RX: ICRC check, drop, parse
        Axis512Sink::link(&mut self.s_axis_rx, &mut self.check.s_axis);
        // ARP and ICMP echo see every frame from the MAC
        self.net.rx.tdata.next = self.s_axis_rx.tdata.val();
        self.net.rx.tkeep.next = self.s_axis_rx.tkeep.val();
        self.net.rx.tlast.next = self.s_axis_rx.tlast.val();
        self.net.rx.tuser.next = self.s_axis_rx.tuser.val();
        self.net.rx.tvalid.next = self.s_axis_rx.tvalid.val();
        self.net.rx.tready.next = self.s_axis_rx.tready.val();
        self.rx_tap.s_axis.tdata.next = self.check.m_axis.tdata.val();
        self.rx_tap.s_axis.tkeep.next = self.check.m_axis.tkeep.val();
        self.rx_tap.s_axis.tlast.next = self.check.m_axis.tlast.val();
        self.rx_tap.s_axis.tuser.next = self.check.m_axis.tuser.val();
        self.rx_tap.s_axis.tvalid.next = self.check.m_axis.tvalid.val();
        self.check.m_axis.tready.next = self.rx_tap.s_axis.tready.val();
        self.tap_core.in_beat.next = self.rx_tap.tap.val();
        self.tap_core.in_valid.next = self.rx_tap.tap_valid.val();
        self.rx_tap.verdict.next = self.tap_core.verdict.val();
        self.rx_tap.verdict_valid.next = self.tap_core.verdict_valid.val();
        // the tap's join → one register stage → the RX buffer (which never backpressures)
        self.rx_tap.m_axis.tready.next = true;
        self.rxq_valid.d.next = self.rx_tap.m_axis.tvalid.val();
        self.rxq_data.d.next = self.rx_tap.m_axis.tdata.val();
        self.rxq_keep.d.next = self.rx_tap.m_axis.tkeep.val();
        self.rxq_last.d.next = self.rx_tap.m_axis.tlast.val();
        self.rxq_user.d.next = self.rx_tap.m_axis.tuser.val();
        self.rxq_flag.d.next = self.rx_tap.m_flag.val();
        self.rx_fifo.s_axis.tvalid.next = self.rxq_valid.q.val();
        self.rx_fifo.s_axis.tdata.next = self.rxq_data.q.val();
        self.rx_fifo.s_axis.tkeep.next = self.rxq_keep.q.val();
        self.rx_fifo.s_axis.tlast.next = self.rxq_last.q.val();
        self.rx_fifo.s_axis.tuser.next = self.rxq_user.q.val();
        // speculative placement: the frames `RX_CUT` picks leave the buffer as they arrive
        // (their verdicts follow on `vq`), while the verdict queue has room
        self.cut_pick.data.next = self.rx_tap.m_axis.tdata.val();
        if !self.tap_on.val() {
            // no tap: the checked frames go straight to the register stage
            self.check.m_axis.tready.next = true;
            self.rxq_valid.d.next = self.check.m_axis.tvalid.val();
            self.rxq_data.d.next = self.check.m_axis.tdata.val();
            self.rxq_keep.d.next = self.check.m_axis.tkeep.val();
            self.rxq_last.d.next = self.check.m_axis.tlast.val();
            self.rxq_user.d.next = self.check.m_axis.tuser.val();
            self.rxq_flag.d.next = false;
            self.cut_pick.data.next = self.check.m_axis.tdata.val();
        }
        self.vq_ok.d.next = self.vq.level.val() < self.vq_room.val();
        self.rxq_cut.d.next = ((self.cut_pick.cut_safe.val() & self.rx_cut.q.val().get_bit(0)) | (self.cut_pick.cut_reth.val() & (self.rx_cut.q.val().get_bit(1) | self.rx_cut.q.val().get_bit(2)))) & self.vq_ok.q.val();
        self.rx_fifo.s_cut.next = self.rxq_cut.q.val();
        self.vq_in_d.d.next = (bit_cast::<2, 1>(self.rxq_flag.q.val().into()) << 1) | bit_cast::<2, 1>(self.rx_fifo.cut_bad.val().into());
        self.vq_in_v.d.next = self.rx_fifo.cut_end.val();
        self.vq.s_axis.tdata.next = self.vq_in_d.q.val();
        self.vq.s_axis.tkeep.next = true.into();
        self.vq.s_axis.tlast.next = true;
        self.vq.s_axis.tuser.next = false;
        self.vq.s_axis.tvalid.next = self.vq_in_v.q.val();
        self.responder.vd.next = self.vq.m_axis.tdata.val();
        self.responder.vd_valid.next = self.vq.m_axis.tvalid.val();
        self.vq.m_axis.tready.next = self.responder.vd_ready.val();
        self.responder.reth_early.next = self.rx_cut.q.val().get_bit(1);
        if self.rx_fifo.cut_first.val() {
            self.k_cut.d.next = self.k_cut.q.val() + 1;
        }
        // counted from the verdict queue's input register, a cycle after the buffer's end
        if self.vq_in_v.q.val() & self.vq_in_d.q.val().get_bit(0) {
            self.k_cut_bad.d.next = self.k_cut_bad.q.val() + 1;
        }
        // each frame the buffer keeps has its tap flag queued beside it; a frame enters the
        // parser once its flag is known, and the flag rides in its header
        self.rx_flags.in_valid.next = self.rxq_valid.q.val() & self.rx_fifo.s_axis.tready.val();
        self.rx_flags.in_last.next = self.rxq_last.q.val();
        self.rx_flags.in_user.next = self.rxq_user.q.val();
        self.rx_flags.in_flag.next = self.rxq_flag.q.val();
        self.rx_flags.ovf.next = self.rx_fifo.drop_overflow.val();
        self.rx_flags.in_cut.next = self.rx_fifo.w_cut.val();
        self.rx_flags.in_cut_first.next = self.rx_fifo.cut_first.val();
        self.rx_pipe.s_axis.tdata.next = (bit_cast::<514, 1>(self.rx_flags.head_cut.val().into()) << 513)
            | (bit_cast::<514, 1>(self.rx_flags.head.val().into()) << 512)
            | bit_cast::<514, 512>(self.rx_fifo.m_axis.tdata.val());
        self.rx_pipe.s_axis.tkeep.next = self.rx_fifo.m_axis.tkeep.val();
        self.rx_pipe.s_axis.tlast.next = self.rx_fifo.m_axis.tlast.val();
        self.rx_pipe.s_axis.tuser.next = self.rx_fifo.m_axis.tuser.val();
        self.rx_pipe.s_axis.tvalid.next = self.rx_fifo.m_axis.tvalid.val() & self.rx_flags.head_valid.val();
        self.rx_fifo.m_axis.tready.next = self.rx_pipe.s_axis.tready.val() & self.rx_flags.head_valid.val();
        self.rx_flags.pop.next = self.rx_fifo.m_axis.tvalid.val() & self.rx_fifo.m_axis.tlast.val() & self.rx_pipe.s_axis.tready.val() & self.rx_flags.head_valid.val();
        self.parse.s_flag.next = self.rx_pipe.m_axis.tdata.val().get_bit(512);
        self.parse.s_spec.next = self.rx_pipe.m_axis.tdata.val().get_bit(513);
        self.parse.s_axis.tdata.next = self.rx_pipe.m_axis.tdata.val().get_bits::<512>(0);
        self.parse.s_axis.tkeep.next = self.rx_pipe.m_axis.tkeep.val();
        self.parse.s_axis.tlast.next = self.rx_pipe.m_axis.tlast.val();
        self.parse.s_axis.tuser.next = self.rx_pipe.m_axis.tuser.val();
        self.parse.s_axis.tvalid.next = self.rx_pipe.m_axis.tvalid.val();
        self.rx_pipe.m_axis.tready.next = self.parse.s_axis.tready.val();
        // parser → responder
        self.responder.hdr.next = self.parse.hdr.val();
        self.responder.hdr_valid.next = self.parse.hdr_valid.val();
        self.responder.hdr_pre_qpn.next = self.parse.hdr_pre_qpn.val();
        self.responder.hdr_pre_valid.next = self.parse.hdr_pre_valid.val();
        self.parse.hdr_ready.next = self.responder.hdr_ready.val();
        self.responder.s_axis.tdata.next = self.parse.m_axis.tdata.val();
        self.responder.s_axis.tkeep.next = self.parse.m_axis.tkeep.val();
        self.responder.s_axis.tlast.next = self.parse.m_axis.tlast.val();
        self.responder.s_axis.tuser.next = self.parse.m_axis.tuser.val();
        self.responder.s_axis.tvalid.next = self.parse.m_axis.tvalid.val();
        self.parse.m_axis.tready.next = self.responder.s_axis.tready.val();
        self.responder.num_qps.next = self.num_qps.val();
        self.responder.ack_every.next = self.ack_every.q.val();
        self.tx.window.next = self.tx_window.q.val();
        self.tx.start.next = bit_cast::<8, 32>(self.bridge.wr_data.val());
        self.tx.start_load.next = self.bridge.wr_en.val() & (self.bridge.wr_addr.val() == self.a_start.val());
        self.tx.una_wr.next = self.req.una_wr.val();
        self.tx.una_qpn.next = self.req.una_qpn.val();
        self.tx.una_psn.next = self.req.una_psn.val();
        self.tx.una_open.next = self.req.una_open.val();
        Axi4Master512::link(&mut self.m_axi_rb, &mut self.tx.m_axi_rb);
        // responder → requester (responses), → TX (ACKs, READ jobs), → DMA writes
        self.req.vd.next = self.responder.resp_vd.val();
        self.req.vd_valid.next = self.responder.resp_vd_valid.val();
        self.responder.resp_vd_ready.next = self.req.vd_ready.val();
        self.req.resp.next = self.responder.resp.val();
        self.req.resp_valid.next = self.responder.resp_valid.val();
        self.responder.resp_ready.next = self.req.resp_ready.val();
        self.req.s_axis.tdata.next = self.responder.m_axis_resp.tdata.val();
        self.req.s_axis.tkeep.next = self.responder.m_axis_resp.tkeep.val();
        self.req.s_axis.tlast.next = self.responder.m_axis_resp.tlast.val();
        self.req.s_axis.tuser.next = self.responder.m_axis_resp.tuser.val();
        self.req.s_axis.tvalid.next = self.responder.m_axis_resp.tvalid.val();
        self.responder.m_axis_resp.tready.next = self.req.s_axis.tready.val();
        self.tx.rsp.next = self.responder.rsp.val();
        self.tx.rsp_valid.next = self.responder.rsp_valid.val();
        self.responder.rsp_ready.next = self.tx.rsp_ready.val();
        self.wmux.a_cmd.next = self.responder.dma_wr_cmd.val();
        self.wmux.a_cmd_valid.next = self.responder.dma_wr_cmd_valid.val();
        self.responder.dma_wr_cmd_ready.next = self.wmux.a_cmd_ready.val();
        self.wmux.s_axis_a.tdata.next = self.responder.m_axis_dma_wr.tdata.val();
        self.wmux.s_axis_a.tkeep.next = self.responder.m_axis_dma_wr.tkeep.val();
        self.wmux.s_axis_a.tlast.next = self.responder.m_axis_dma_wr.tlast.val();
        self.wmux.s_axis_a.tuser.next = self.responder.m_axis_dma_wr.tuser.val();
        self.wmux.s_axis_a.tvalid.next = self.responder.m_axis_dma_wr.tvalid.val();
        self.responder.m_axis_dma_wr.tready.next = self.wmux.s_axis_a.tready.val();
        self.wmux.a_meta.next = self.responder.dma_wr_meta.val();
        self.wmux.b_meta.next = self.req.dma_wr_meta.val();
        self.wmux.b_cmd.next = self.req.dma_wr_cmd.val();
        self.wmux.b_cmd_valid.next = self.req.dma_wr_cmd_valid.val();
        self.req.dma_wr_cmd_ready.next = self.wmux.b_cmd_ready.val();
        self.wmux.s_axis_b.tdata.next = self.req.m_axis_dma_wr.tdata.val();
        self.wmux.s_axis_b.tkeep.next = self.req.m_axis_dma_wr.tkeep.val();
        self.wmux.s_axis_b.tlast.next = self.req.m_axis_dma_wr.tlast.val();
        self.wmux.s_axis_b.tuser.next = self.req.m_axis_dma_wr.tuser.val();
        self.wmux.s_axis_b.tvalid.next = self.req.m_axis_dma_wr.tvalid.val();
        self.req.m_axis_dma_wr.tready.next = self.wmux.s_axis_b.tready.val();
        self.dma_wr_cmd.next = self.wmux.cmd.val();
        self.dma_wr_cmd_valid.next = self.wmux.cmd_valid.val();
        self.wmux.cmd_ready.next = self.dma_wr_cmd_ready.val();
        self.rx_slot.s_axis.tdata.next = self.wmux.m_axis.tdata.val();
        self.rx_slot.s_axis.tkeep.next = self.wmux.m_axis.tkeep.val();
        self.rx_slot.s_axis.tlast.next = self.wmux.m_axis.tlast.val();
        self.rx_slot.s_axis.tuser.next = self.wmux.m_axis.tuser.val();
        self.rx_slot.s_axis.tvalid.next = self.wmux.m_axis.tvalid.val();
        self.wmux.m_axis.tready.next = self.rx_slot.s_axis.tready.val();
        self.rx_slot.s_meta.next = self.wmux.m_meta.val();
        self.m_axis_dma_wr.tdata.next = self.rx_slot.m_axis.tdata.val();
        self.m_axis_dma_wr.tkeep.next = self.rx_slot.m_axis.tkeep.val();
        self.m_axis_dma_wr.tlast.next = self.rx_slot.m_axis.tlast.val();
        self.m_axis_dma_wr.tuser.next = self.rx_slot.m_axis.tuser.val();
        self.m_axis_dma_wr.tvalid.next = self.rx_slot.m_axis.tvalid.val();
        self.rx_slot.m_axis.tready.next = self.m_axis_dma_wr.tready.val();
        self.rx_room.s_axis.tdata.next = self.wmux.m_axis.tdata.val();
        self.rx_room.s_axis.tkeep.next = self.wmux.m_axis.tkeep.val();
        self.rx_room.s_axis.tlast.next = self.wmux.m_axis.tlast.val();
        self.rx_room.s_axis.tuser.next = self.wmux.m_axis.tuser.val();
        self.rx_room.s_axis.tvalid.next = self.wmux.m_axis.tvalid.val();
        self.rx_room.m_axis.tready.next = false;
        if !self.rxs_on.val() {
            // no RX slot service: the merged DMA writes go through the slot's room alone
            self.m_axis_dma_wr.tdata.next = self.rx_room.m_axis.tdata.val();
            self.m_axis_dma_wr.tkeep.next = self.rx_room.m_axis.tkeep.val();
            self.m_axis_dma_wr.tlast.next = self.rx_room.m_axis.tlast.val();
            self.m_axis_dma_wr.tuser.next = self.rx_room.m_axis.tuser.val();
            self.m_axis_dma_wr.tvalid.next = self.rx_room.m_axis.tvalid.val();
            self.wmux.m_axis.tready.next = self.rx_room.s_axis.tready.val();
            self.rx_room.m_axis.tready.next = self.m_axis_dma_wr.tready.val();
            self.rx_slot.m_axis.tready.next = false;
        }
        // ------------------------------------------------ TX, SQ, CQ
        self.tx.sq.next = self.sq.val();
        self.tx.sq_valid.next = self.sq_valid.val();
        self.sq_ready.next = self.tx.sq_ready.val();
        self.tx.err_qpn.next = self.req.err_qpn.val();
        self.tx.err_valid.next = self.req.err_valid.val();
        self.req.err_ready.next = self.tx.err_ready.val();
        self.tx.rtx.next = self.req.rtx.val();
        self.tx.rtx_valid.next = self.req.rtx_valid.val();
        self.req.rtx_ready.next = self.tx.rtx_ready.val();
        self.req.sent.next = self.tx.sent.val();
        self.req.sent_valid.next = self.tx.sent_valid.val();
        self.tx.sent_ready.next = self.req.sent_ready.val();
        self.tx.sent_take.next = self.req.sent_take.val();
        self.req.sent_soon.next = self.tx.sent_soon.val();
        self.cq_merge.clock.next = self.clock.val();
        self.cq_merge.reset.next = self.reset.val();
        self.cq_merge.a_data.next = self.req.cq.val();
        self.cq_merge.a_valid.next = self.req.cq_valid.val();
        self.req.cq_ready.next = self.cq_merge.a_ready.val();
        self.cq_merge.b_data.next = self.responder.rcq.val();
        self.cq_merge.b_valid.next = self.responder.rcq_valid.val();
        self.responder.rcq_ready.next = self.cq_merge.b_ready.val();
        self.cq.next = self.cq_merge.m_data.val();
        self.cq_valid.next = self.cq_merge.m_valid.val();
        self.cq_merge.m_ready.next = self.cq_ready.val();
        self.responder.recv.next = self.recv.val();
        self.responder.recv_valid.next = self.recv_valid.val();
        self.recv_ready.next = self.responder.recv_ready.val();
        self.dma_rd_cmd.next = self.tx.dma_rd_cmd.val();
        self.dma_rd_cmd_valid.next = self.tx.dma_rd_cmd_valid.val();
        self.tx.dma_rd_cmd_ready.next = self.dma_rd_cmd_ready.val();
        Axis512Sink::link(&mut self.s_axis_dma_rd, &mut self.tx.s_axis_dma_rd);
        // the engine's frames, with ARP and ICMP echo replies merged in between, to the MAC
        Axis512Source::join(&mut self.tx.m_axis_tx, &mut self.net.s_axis_tx);
        Axis512Source::link(&mut self.m_axis_tx, &mut self.net.m_axis_tx);
        self.local_mac.next = bit_cast::<48, 32>(self.mac_lo.q.val()) | (bit_cast::<48, 16>(self.mac_hi.q.val()) << 32);
        self.tx.local_mac.next = self.local_mac.val();
        self.net.local_mac.next = self.local_mac.val();
        self.net.local_ip.next = self.ip[0].q.val();
        self.net.who_has_ip.next = self.who_has_ip.q.val();
        self.net.who_has_go.next = self.who_has_go.q.val();
        self.net.nb_query_ip.next = self.neigh_ip.q.val();
        self.who_has_go.d.next = false;
        self.tx.local_ip.next = bit_cast::<128, 32>(self.ip[0].q.val()) | (bit_cast::<128, 32>(self.ip[1].q.val()) << 32)
            | (bit_cast::<128, 32>(self.ip[2].q.val()) << 64) | (bit_cast::<128, 32>(self.ip[3].q.val()) << 96);
        // ------------------------------------------------ control plane
        AxilSlave16::link(&mut self.s_axil_ctrl, &mut self.bridge.s_axil);
        self.window.status[0].next = self.check.cnt.frames.val();
        self.window.status[1].next = self.check.cnt.roce.val();
        self.window.status[2].next = self.check.cnt.bad_icrc.val();
        self.window.status[3].next = self.check.cnt.truncated.val();
        self.window.status[4].next = self.check.cnt.bad_length.val();
        self.window.status[5].next = self.check.cnt.user_flagged.val();
        self.window.status[6].next = self.rx_fifo.drop_bad.val();
        self.window.status[7].next = self.rx_fifo.drop_overflow.val();
        self.window.status[8].next = self.parse.frames.val();
        self.window.status[9].next = self.parse.not_roce.val();
        self.window.status[10].next = self.responder.cnt.headers.val();
        self.window.status[11].next = self.responder.cnt.unknown_qp.val();
        self.window.status[12].next = self.responder.cnt.qp_not_ready.val();
        self.window.status[13].next = self.responder.cnt.qp_error.val();
        self.window.status[14].next = self.responder.cnt.malformed.val();
        self.window.status[15].next = self.responder.cnt.duplicate.val();
        self.window.status[16].next = self.responder.cnt.psn_out_of_window.val();
        self.window.status[17].next = self.responder.cnt.bad_opcode_seq.val();
        self.window.status[18].next = self.responder.cnt.length_error.val();
        self.window.status[19].next = self.responder.cnt.rkey_violation.val();
        self.window.status[20].next = self.responder.cnt.writes.val();
        self.window.status[21].next = self.responder.cnt.reads.val();
        self.window.status[22].next = self.responder.cnt.acks.val();
        self.window.status[23].next = self.responder.cnt.naks.val();
        self.window.status[24].next = self.responder.cnt.to_requester.val();
        self.window.status[25].next = self.req.cnt.acks.val();
        self.window.status[26].next = self.req.cnt.ack_out_of_window.val();
        self.window.status[27].next = self.req.cnt.nak_seq.val();
        self.window.status[28].next = self.req.cnt.nak_fatal.val();
        self.window.status[29].next = self.req.cnt.read_resp.val();
        self.window.status[30].next = self.req.cnt.resp_unexpected.val();
        self.window.status[31].next = self.req.cnt.completions.val();
        self.window.status[32].next = self.tx.cnt.frames.val();
        self.window.status[33].next = self.tx.cnt.acks.val();
        self.window.status[34].next = self.tx.cnt.read_resp.val();
        self.window.status[35].next = self.tx.cnt.requests.val();
        self.window.status[36].next = self.tx.cnt.messages.val();
        self.window.status[37].next = self.zero32.val();
        self.window.status[38].next = self.zero32.val();
        self.ovr_tap.next = self.zero32.val();
        self.ovr_rxs.next = self.zero32.val();
        if self.tap_on.val() {
            self.window.status[37].next = self.rx_tap.drops.val();
            self.window.status[38].next = self.rx_tap.flags.val();
            self.ovr_tap.next = self.rx_tap.overrun.val();
        }
        if self.rxs_on.val() {
            self.ovr_rxs.next = self.rx_slot.overrun.val();
        }
        self.ovr_sum.d.next = self.tx.slot_overrun.val() + self.ovr_rxs.val() + self.ovr_tap.val();
        self.window.status[39].next = self.ovr_sum.q.val();
        self.window.status[40].next = self.req.cnt.ack_duplicate.val();
        self.window.status[41].next = self.req.cnt.implied_nak.val();
        self.window.status[42].next = self.req.cnt.timeouts.val();
        self.window.status[43].next = self.req.cnt.replays.val();
        self.window.status[44].next = self.req.cnt.replay_deferred.val();
        self.window.status[45].next = self.tx.cnt.retransmits.val();
        self.window.status[47].next = self.tx.cnt.rb_writes.val();
        self.window.status[48].next = self.tx.cnt.rb_reads.val();
        self.window.status[46].next = self.responder.cnt.read_replays.val();
        self.window.status[49].next = self.tx.cnt.underruns.val();
        self.window.status[50].next = self.k_cut.q.val();
        self.window.status[51].next = self.k_cut_bad.q.val();
        self.window.status[52].next = self.req.cnt.bad_response.val();
        self.window.status[53].next = self.net.arp_replies.val();
        self.window.status[54].next = self.net.arp_requests.val();
        self.window.status[55].next = self.net.arp_learned.val();
        self.window.status[56].next = self.net.arp_dropped.val();
        self.window.status[57].next = self.net.echo_replies.val();
        self.window.status[58].next = self.net.echo_dropped.val();
        self.window.status[59].next = self.responder.cnt.rnr_naks.val();
        self.window.status[60].next = self.responder.cnt.sends.val();
        self.window.status[61].next = self.responder.cnt.recv_posted.val();
        self.window.status[62].next = self.responder.cnt.recv_dropped.val();
        self.window.status[63].next = self.req.cnt.rnr_naks.val();
        self.window.rd_en.next = self.bridge.rd_en.val();
        self.window.rd_addr.next = self.bridge.rd_addr.val();
        self.stage.rd_en.next = self.bridge.rd_en.val();
        self.stage.rd_addr.next = self.bridge.rd_addr.val();
        self.stage.wr_en.next = self.bridge.wr_en.val();
        self.stage.wr_addr.next = self.bridge.wr_addr.val();
        self.stage.wr_data.next = self.bridge.wr_data.val();
        // service writes go to both slots' services
        self.svc_hit.next = self.svc_on.val() & ((self.bridge.wr_addr.val() & self.svc_mask.val()) == self.a_svc.val());
        self.svc_cfg.next.we = self.bridge.wr_en.val() & self.svc_hit.val();
        self.svc_cfg.next.addr = self.bridge.wr_addr.val().get_bits::<8>(0);
        self.svc_cfg.next.data = self.bridge.wr_data.val();
        self.tx.svc_cfg.next = self.svc_cfg.val();
        self.rx_slot.cfg.next = self.svc_cfg.val();
        self.rx_slot.rx.next = true;
        self.tap_core.cfg.next = self.svc_cfg.val();
        // (the service window's decode is written out again below, not read from `svc_hit`: a local
        // shared by the write-error term and the `wr_en` term makes Verilator see a loop)
        self.own_wr.next = (self.bridge.wr_addr.val() == self.a_sel.val()) | (self.bridge.wr_addr.val() == self.a_cmd.val())
            | (self.bridge.wr_addr.val() == self.a_ack.val()) | (self.bridge.wr_addr.val() == self.a_win.val()) | (self.bridge.wr_addr.val() == self.a_start.val())
            | (self.bridge.wr_addr.val() == self.a_cut.val())
            | (self.bridge.wr_addr.val() == self.a_who.val()) | (self.bridge.wr_addr.val() == self.a_nip.val())
            | (self.bridge.wr_addr.val() == self.a_mlo.val())
            | (self.bridge.wr_addr.val() == self.a_mhi.val()) | (self.bridge.wr_addr.val() == self.a_ip[0].val())
            | (self.bridge.wr_addr.val() == self.a_ip[1].val()) | (self.bridge.wr_addr.val() == self.a_ip[2].val())
            | (self.bridge.wr_addr.val() == self.a_ip[3].val()) | (self.svc_on.val() & ((self.bridge.wr_addr.val() & self.svc_mask.val()) == self.a_svc.val()));
        self.bridge.wr_err.next = !(self.own_wr.val() | self.stage.wr_hit.val());
        if self.bridge.wr_en.val() {
            if self.bridge.wr_addr.val() == self.a_sel.val() {
                self.sel.d.next = bit_cast::<24, 32>(self.bridge.wr_data.val());
            }
            if (self.bridge.wr_addr.val() == self.a_cmd.val()) & !self.pend_w.q.val() & !self.pend_r.q.val() {
                if self.bridge.wr_data.val() == self.cmd_w.val() {
                    self.pend_w.d.next = true;
                }
                if self.bridge.wr_data.val() == self.cmd_r.val() {
                    self.pend_r.d.next = true;
                }
            }
            if self.bridge.wr_addr.val() == self.a_ack.val() {
                self.ack_every.d.next = bit_cast::<8, 32>(self.bridge.wr_data.val());
            }
            if self.bridge.wr_addr.val() == self.a_win.val() {
                self.tx_window.d.next = bit_cast::<8, 32>(self.bridge.wr_data.val());
            }
            if self.bridge.wr_addr.val() == self.a_cut.val() {
                self.rx_cut.d.next = self.bridge.wr_data.val().get_bits::<3>(0);
            }
            if self.bridge.wr_addr.val() == self.a_mlo.val() {
                self.mac_lo.d.next = self.bridge.wr_data.val();
            }
            if self.bridge.wr_addr.val() == self.a_who.val() {
                self.who_has_ip.d.next = self.bridge.wr_data.val();
                self.who_has_go.d.next = true;
            }
            if self.bridge.wr_addr.val() == self.a_nip.val() {
                self.neigh_ip.d.next = self.bridge.wr_data.val();
            }
            if self.bridge.wr_addr.val() == self.a_mhi.val() {
                self.mac_hi.d.next = bit_cast::<16, 32>(self.bridge.wr_data.val());
            }
            for i in 0..4 {
                if self.bridge.wr_addr.val() == self.a_ip[i].val() {
                    self.ip[i].d.next = self.bridge.wr_data.val();
                }
            }
        }
        self.busy.next = self.pend_w.q.val() | self.pend_r.q.val();
        if self.bridge.rd_en.val() {
            self.own_hit_q.d.next = true;
            self.own_q.d.next = self.zero32.val();
            if self.bridge.rd_addr.val() == self.a_sel.val() {
                self.own_q.d.next = bit_cast::<32, 24>(self.sel.q.val());
            } else if self.bridge.rd_addr.val() == self.a_cmd.val() {
                self.own_q.d.next = bit_cast::<32, 1>(self.busy.val().into());
            } else if self.bridge.rd_addr.val() == self.a_num.val() {
                self.own_q.d.next = bit_cast::<32, 24>(self.num_qps.val());
            } else if self.bridge.rd_addr.val() == self.a_ack.val() {
                self.own_q.d.next = bit_cast::<32, 8>(self.ack_every.q.val());
            } else if self.bridge.rd_addr.val() == self.a_win.val() {
                self.own_q.d.next = bit_cast::<32, 8>(self.tx_window.q.val());
            } else if self.bridge.rd_addr.val() == self.a_start.val() {
                self.own_q.d.next = bit_cast::<32, 8>(self.tx.start_now.val());
            } else if self.bridge.rd_addr.val() == self.a_cut.val() {
                self.own_q.d.next = bit_cast::<32, 3>(self.rx_cut.q.val());
            } else if self.bridge.rd_addr.val() == self.a_mlo.val() {
                self.own_q.d.next = self.mac_lo.q.val();
            } else if self.bridge.rd_addr.val() == self.a_mhi.val() {
                self.own_q.d.next = bit_cast::<32, 16>(self.mac_hi.q.val());
            } else if self.bridge.rd_addr.val() == self.a_who.val() {
                self.own_q.d.next = self.who_has_ip.q.val();
            } else if self.bridge.rd_addr.val() == self.a_nip.val() {
                self.own_q.d.next = self.neigh_ip.q.val();
            } else if self.bridge.rd_addr.val() == self.a_nlo.val() {
                self.own_q.d.next = self.net.nb_mac.val().get_bits::<32>(0);
            } else if self.bridge.rd_addr.val() == self.a_nhi.val() {
                self.own_q.d.next = bit_cast::<32, 16>(self.net.nb_mac.val().get_bits::<16>(32)) | (bit_cast::<32, 1>(self.net.nb_hit.val().into()) << 31);
            } else if self.bridge.rd_addr.val() == self.a_ip[0].val() {
                self.own_q.d.next = self.ip[0].q.val();
            } else if self.bridge.rd_addr.val() == self.a_ip[1].val() {
                self.own_q.d.next = self.ip[1].q.val();
            } else if self.bridge.rd_addr.val() == self.a_ip[2].val() {
                self.own_q.d.next = self.ip[2].q.val();
            } else if self.bridge.rd_addr.val() == self.a_ip[3].val() {
                self.own_q.d.next = self.ip[3].q.val();
            } else if self.svc_on.val() & (self.bridge.rd_addr.val() == self.a_gen.val()) {
                self.own_q.d.next = bit_cast::<32, 24>(self.tx.svc_gen.val());
            } else {
                self.own_hit_q.d.next = false;
            }
        }
        self.bridge.rd_data.next = self.window.rd_data.val();
        self.bridge.rd_err.next = self.window.rd_err.val() & !self.own_hit_q.q.val() & !self.stage.rd_hit.val();
        if self.own_hit_q.q.val() {
            self.bridge.rd_data.next = self.own_q.q.val();
        }
        if self.stage.rd_hit.val() {
            self.bridge.rd_data.next = self.stage.rd_data.val();
        }
        // QP commands: every table at once; each part signals done once
        self.sel_a.next = bit_cast::<A, 24>(self.sel.q.val());
        self.responder.ctl_qpn.next = self.sel_a.val();
        self.responder.ctl_cfg.next = self.stage.cfg.val();
        self.responder.ctl_rq.next = self.stage.rq.val();
        self.responder.ctl_write.next = self.pend_w.q.val();
        self.responder.ctl_req.next = (self.pend_w.q.val() & !self.done_resp.q.val()) | self.pend_r.q.val();
        self.tx.ctl_qpn.next = self.sel_a.val();
        self.tx.ctl_cfg.next = self.stage.cfg.val();
        self.tx.ctl_sq_psn.next = self.stage.sq_psn.val();
        self.tx.ctl_state.next = self.stage.rq.val().state;
        self.tx.ctl_req.next = self.pend_w.q.val() & !self.done_tx.q.val();
        self.req.ctl_qpn.next = self.sel_a.val();
        self.req.ctl_timeout.next = self.stage.cfg.val().timeout;
        self.req.ctl_retry.next = self.stage.cfg.val().retry_cnt;
        self.req.ctl_rnr_retry.next = self.stage.cfg.val().rnr_retry;
        self.req.ctl_req.next = self.pend_w.q.val() & !self.done_req.q.val();
        self.stage.ld_en.next = self.pend_r.q.val() & self.responder.ctl_done.val();
        self.stage.ld_cfg.next = self.responder.rd_cfg.val();
        self.stage.ld_rq.next = self.responder.rd_rq.val();
        if self.pend_r.q.val() & self.responder.ctl_done.val() {
            self.pend_r.d.next = false;
        }
        if self.pend_w.q.val() {
            if self.responder.ctl_done.val() {
                self.done_resp.d.next = true;
            }
            if self.tx.ctl_done.val() {
                self.done_tx.d.next = true;
            }
            if self.req.ctl_done.val() {
                self.done_req.d.next = true;
            }
            if (self.done_resp.q.val() | self.responder.ctl_done.val()) & (self.done_tx.q.val() | self.tx.ctl_done.val()) & (self.done_req.q.val() | self.req.ctl_done.val()) {
                self.pend_w.d.next = false;
                self.done_resp.d.next = false;
                self.done_tx.d.next = false;
                self.done_req.d.next = false;
            }
        }
        self.unused.next = self.bridge.wr_strb.val().any() | self.window.wr_err.val() | self.rx_fifo.level.val().any() | self.rx_room.level.val().any()
            | self.vq.s_axis.tready.val()
            | self.vq.m_axis.tkeep.val().any() | self.vq.m_axis.tlast.val() | self.vq.m_axis.tuser.val()
            | self.rx_slot.m_meta.val().qpn.any() | self.rx_slot.m_meta.val().psn.any() | self.rx_slot.m_meta.val().off.any() | self.rx_slot.m_meta.val().opcode.any() | self.rx_slot.gen.val().any()
            | self.tap_core.beat_class.val().any() | self.tap_core.beat_class_valid.val();
        if self.reset.val() {
            self.rxq_valid.d.next = false;
            self.pend_w.d.next = false;
            self.pend_r.d.next = false;
            self.done_resp.d.next = false;
            self.done_tx.d.next = false;
            self.done_req.d.next = false;
            self.ack_every.d.next = self.ack16.val();
            self.tx_window.d.next = self.win16.val();
            self.rx_cut.d.next = self.cut_dflt.val();
            self.vq_in_v.d.next = false;
            self.k_cut.d.next = 0.into();
            self.k_cut_bad.d.next = 0.into();
            self.who_has_go.d.next = false;
        }
    }
}

/// The default engine: 500 QPs in 512-entry tables, no services: no slot and no tap in the
/// data path (a skid buffer in the TX slot's place; the RX slot's 32 beats of room kept as a
/// FIFO, `rx_room`).
pub type RoceEngine500 = RoceEngine<9, 13, 1, 1, 1, { kind::PASS }, { kind::PASS }, SLOT_A_SHORT>;
pub type RoceEngine4k = RoceEngine<12, 16, 1, 1, 1, { kind::PASS }, { kind::PASS }, SLOT_A_SHORT>;
/// The services engine: the default engine with AES-CTR in both payload slots (TX encrypts, RX
/// decrypts; `service::aes_ctr::AES_LATENCY` cycles each), DLRM preprocessing after the RX
/// decryption, and the DPI classifier on the parallel tap (`service::dpi::DPI_LATENCY` cycles).
pub type RoceEngineAes = RoceEngine<9, 13, 1, 1, { DPI_LATENCY }, { kind::AES }, { kind::AES_DLRM_DPI }, SLOT_A>;

/// Something done with an engine whose type [`engine_with`] picks.
pub trait WithEngine {
    type Out;
    fn with<T: Block>(self, engine: T) -> Self::Out;
}

/// The 500-QP engine with the services `svc`, any subset of [`kind::ALL`]: `AES` (AES-CTR in the
/// TX slot and in the RX slot), `DLRM` (in the RX slot, after AES-CTR when both), `DPI` (the
/// parallel tap's core, `DPI_LATENCY` cycles; without it the tap is a 1-cycle pass-through).
pub fn engine_with<W: WithEngine>(svc: usize, w: W) -> W::Out {
    use kind::*;
    match svc & ALL {
        0 => w.with(RoceEngine::<9, 13, 1, 1, 1, { PASS }, { PASS }, SLOT_A_SHORT>::new(500)),
        1 => w.with(RoceEngine::<9, 13, 1, 1, 1, { AES }, { AES }, SLOT_A_SHORT>::new(500)),
        2 => w.with(RoceEngine::<9, 13, 1, 1, 1, { PASS }, { DLRM }, SLOT_A_SHORT>::new(500)),
        3 => w.with(RoceEngine::<9, 13, 1, 1, 1, { AES }, { AES_DLRM }, SLOT_A>::new(500)),
        4 => w.with(RoceEngine::<9, 13, 1, 1, { DPI_LATENCY }, { PASS }, { DPI }, SLOT_A_SHORT>::new(500)),
        5 => w.with(RoceEngine::<9, 13, 1, 1, { DPI_LATENCY }, { AES }, { AES_DPI }, SLOT_A_SHORT>::new(500)),
        6 => w.with(RoceEngine::<9, 13, 1, 1, { DPI_LATENCY }, { PASS }, { DLRM_DPI }, SLOT_A_SHORT>::new(500)),
        _ => w.with(RoceEngineAes::new(500)),
    }
}

impl Default for RoceEngine<9, 13, 1, 1, 1, { kind::PASS }, { kind::PASS }, SLOT_A_SHORT> {
    fn default() -> Self {
        Self::new(500)
    }
}

nicgen_hdl::impl_ports!(RoceEngine500, clock = clock, [clock, reset,
    s_axis_rx.tdata, s_axis_rx.tkeep, s_axis_rx.tlast, s_axis_rx.tuser, s_axis_rx.tvalid, s_axis_rx.tready,
    m_axis_tx.tdata, m_axis_tx.tkeep, m_axis_tx.tlast, m_axis_tx.tuser, m_axis_tx.tvalid, m_axis_tx.tready,
    m_axi_rb.awaddr, m_axi_rb.awlen, m_axi_rb.awsize, m_axi_rb.awburst, m_axi_rb.awvalid, m_axi_rb.awready,
    m_axi_rb.wdata, m_axi_rb.wstrb, m_axi_rb.wlast, m_axi_rb.wvalid, m_axi_rb.wready, m_axi_rb.bresp, m_axi_rb.bvalid, m_axi_rb.bready,
    m_axi_rb.araddr, m_axi_rb.arlen, m_axi_rb.arsize, m_axi_rb.arburst, m_axi_rb.arvalid, m_axi_rb.arready,
    m_axi_rb.rdata, m_axi_rb.rresp, m_axi_rb.rlast, m_axi_rb.rvalid, m_axi_rb.rready,
    sq, sq_valid, sq_ready, recv, recv_valid, recv_ready, cq, cq_valid, cq_ready,
    dma_rd_cmd, dma_rd_cmd_valid, dma_rd_cmd_ready,
    s_axis_dma_rd.tdata, s_axis_dma_rd.tkeep, s_axis_dma_rd.tlast, s_axis_dma_rd.tuser, s_axis_dma_rd.tvalid, s_axis_dma_rd.tready,
    dma_wr_cmd, dma_wr_cmd_valid, dma_wr_cmd_ready,
    m_axis_dma_wr.tdata, m_axis_dma_wr.tkeep, m_axis_dma_wr.tlast, m_axis_dma_wr.tuser, m_axis_dma_wr.tvalid, m_axis_dma_wr.tready,
    s_axil_ctrl.awaddr, s_axil_ctrl.awvalid, s_axil_ctrl.awready, s_axil_ctrl.wdata, s_axil_ctrl.wstrb, s_axil_ctrl.wvalid, s_axil_ctrl.wready,
    s_axil_ctrl.bresp, s_axil_ctrl.bvalid, s_axil_ctrl.bready, s_axil_ctrl.araddr, s_axil_ctrl.arvalid, s_axil_ctrl.arready,
    s_axil_ctrl.rdata, s_axil_ctrl.rresp, s_axil_ctrl.rvalid, s_axil_ctrl.rready]);
