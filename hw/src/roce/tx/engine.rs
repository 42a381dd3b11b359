//! `RoceTx` (`tx/request` + `tx/arbiter` + `tx/addressing`, then the deparser): everything the
//! engine sends.
//!
//! * **Requester** (`s_axis_sq` work requests): a WRITE becomes PMTU packets
//!   (FIRST/MIDDLE/LAST/ONLY, RETH on the first, AckReq on the last), each fetching its payload by
//!   DMA read; a READ becomes one READ REQUEST and reserves max(1, ceil(len/PMTU)) PSNs. The
//!   send PSN (`sq_next_psn`) lives per QP in RAM. Every sent message is reported on `sent` (its
//!   PSN range) for the completion side.
//! * **Responses** (`rsp` from the RX responder, one ordered queue with an entry per QP of the
//!   table, so a QP's responses leave in PSN order): an ACK/NAK packet, or the READ RESPONSE FIRST/MIDDLE/LAST/ONLY packets
//!   of a READ, streamed from host memory (and copied to the retransmission buffer's response
//!   half), or for a duplicate READ whose copies are all still there, from those copies; AETH on
//!   FIRST/LAST/ONLY.
//! * **Arbiter**: responses (ACK/NAK and READ responses, in their order) > new requests, one
//!   packet at a time (so at frame granularity). A chosen packet's DMA read command leaves at once; its descriptor waits in a
//!   256-entry FIFO for its payload, so up to 256 payload fetches are in flight. DMA reads must
//!   complete in command order.
//! * **Output**: a 128-beat cut-through FIFO (`AxisCutFifo`): a frame starts once `start`
//!   beats of it are here (16 after reset) or all of it, and never has a gap once started; if
//!   its payload falls behind the wire, the frame ends with an abort beat (`tuser`: the MAC sends
//!   a bad FCS), is counted in `underruns`, the threshold doubles, and Go-Back-N resends it.
//! * **Addressing**: the QP's table (a copy of the RX configuration table, written by the control
//!   plane) supplies addresses, destination QPN, P_Key, UDP source port, TTL and DSCP; then
//!   `RoceTxBuild` builds the frame.
use crate::axil::Axi4Master512;
use crate::record::{FromBits, ToBits};
use crate::roce::qp::*;
use crate::roce::psn_count::PsnCount;
use crate::roce::tx::build::{RoceTxBuild, TxHdr};
use crate::roce::*;
use crate::service::aes_ctr::{kind, SvcCfg};
use crate::service::slot::{PayloadSlot, SlotMeta, META_BITS, SLOT_A_SHORT};
use crate::stream::*;
use nicgen_model::opcode as op;
use rust_hdl::prelude::*;

const _: () = assert!(SQ_BITS == 251 && DST_BITS == 128);
pub const DESC_BITS: usize = TxDescFields::BITS;
const DESC_W: usize = DESC_BITS + 3;
const RSP_BITS: usize = RespItemFields::BITS;
const RSP_W: usize = RSP_BITS + 3;
const META_W: usize = META_BITS + 3;
const SQ_BITS: usize = SqWrFields::BITS;
const DST_BITS: usize = DeferStFields::BITS;
const DQ_BITS: usize = SQ_BITS + DST_BITS;
const DQ_W: usize = DQ_BITS + 3;
const SRC_BITS: usize = RbSrcFields::BITS;
const SRC_W: usize = SRC_BITS + 3;
const _: () = assert!(WINDOW_MAX * RB_SLOT == 1 << 16 && RB_SLOT == 1 << 12);
const _: () = assert!(WINDOW_MAX < 32); // the window checks clamp `window` to it (`w_lim_d`)
/// Parked work requests at most (the parking FIFO holds 32 and its output stage 1; new requests
/// are taken only while it has this many or fewer). A request is parked only from the TX's hand
/// (which is empty when a new one is taken) and a retransmission never is, so the FIFO holds at
/// most this many, plus the one taken and the paused one: 27, and a push never finds it full
/// (the pushes do not look at its ready).
const DQ_ADMIT: u64 = 25;
const _: () = assert!(DQ_ADMIT + 2 <= 33);
/// Payload bytes the TX fetches ahead of the deparser: enough to cover 2.6 µs of host read
/// latency at line rate.
pub const INFLIGHT_BUDGET: usize = 16384;

/// Per-cause TX counters.
#[derive(LogicInterface, Default)]
pub struct TxCounters {
    pub frames: Signal<Out, Bits<32>>,
    pub acks: Signal<Out, Bits<32>>,
    pub read_resp: Signal<Out, Bits<32>>,
    pub requests: Signal<Out, Bits<32>>,
    pub messages: Signal<Out, Bits<32>>,
    /// Request packets sent again (Go-Back-N).
    pub retransmits: Signal<Out, Bits<32>>,
    /// Payload copies written to the retransmission buffer, and payloads read back from it.
    pub rb_writes: Signal<Out, Bits<32>>,
    pub rb_reads: Signal<Out, Bits<32>>,
    /// Frames ended early on the wire by an abort beat (output underrun).
    pub underruns: Signal<Out, Bits<32>>,
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// `F`: the payload slot's FIFO address bits (see [`PayloadSlot`]).
/// The requester's state machine: IDLE takes the next request (a parked one or a new one),
/// LOOK reads the QP's send PSN and window, GEN generates its packets, REC waits for the
/// completion side to record a new message before its first packet, FLUSH completes the work
/// of a QP that cannot send.
#[derive(LogicBlock)]
pub struct RoceTx<const A: usize, const R: usize, const LT: usize, const ST: usize, const F: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub sq: Signal<In, SqWr>,
    pub sq_valid: Signal<In, Bit>,
    pub sq_ready: Signal<Out, Bit>,
    pub rsp: Signal<In, RespItem>,
    pub rsp_valid: Signal<In, Bit>,
    pub rsp_ready: Signal<Out, Bit>,
    pub sent: Signal<Out, SentWr>,
    pub sent_valid: Signal<Out, Bit>,
    pub sent_ready: Signal<In, Bit>,
    /// The completion side would take a new message's record now (`sent_ready` as it is while
    /// `rec` offers one, without waiting on `sent_valid`): the `rec` state's answer.
    pub sent_take: Signal<In, Bit>,
    /// A record may follow next cycle (its QPN is on `sent` now): a hint, not a handshake.
    pub sent_soon: Signal<Out, Bit>,
    pub dma_rd_cmd: Signal<Out, DmaCmd>,
    pub dma_rd_cmd_valid: Signal<Out, Bit>,
    pub dma_rd_cmd_ready: Signal<In, Bit>,
    /// DMA read data: one frame of exactly `len` bytes per command, in command order.
    pub s_axis_dma_rd: Axis512Sink,
    pub m_axis_tx: Axis512Source,
    pub local_mac: Signal<In, Bits<48>>,
    pub local_ip: Signal<In, Bits<128>>,
    /// Control-plane writes of a QP's TX tables (`ctl_cfg`, and `ctl_sq_psn` as its send PSN);
    /// held until `ctl_done`.
    pub ctl_req: Signal<In, Bit>,
    pub ctl_qpn: Signal<In, Bits<A>>,
    pub ctl_cfg: Signal<In, QpCfg>,
    pub ctl_sq_psn: Signal<In, Bits<24>>,
    /// The QP's state: the requester sends only in RTS; other work completes as flushed.
    pub ctl_state: Signal<In, Bits<3>>,
    pub ctl_done: Signal<Out, Bit>,
    /// The completion side put this QP in ERROR (a fatal NAK): its later work is flushed.
    pub err_qpn: Signal<In, Bits<A>>,
    pub err_valid: Signal<In, Bit>,
    pub err_ready: Signal<Out, Bit>,
    /// Retransmissions from the completion side: they go before new work requests, and a run
    /// (until `last`) is not interleaved with new ones.
    pub rtx: Signal<In, RtxWr>,
    pub rtx_valid: Signal<In, Bit>,
    pub rtx_ready: Signal<Out, Bit>,
    /// The completion side's oldest unacknowledged PSN of a QP (`una_open`: nothing
    /// outstanding), written whenever it changes: the window is [una, una + window).
    pub una_wr: Signal<In, Bit>,
    pub una_qpn: Signal<In, Bits<A>>,
    pub una_psn: Signal<In, Bits<24>>,
    pub una_open: Signal<In, Bit>,
    /// Packets a QP may have outstanding (1..=WINDOW_MAX; 0 or more means WINDOW_MAX).
    pub window: Signal<In, Bits<8>>,
    /// The output's cut-through start threshold in beats (`AxisCutFifo`): loaded from `start`
    /// when `start_load` is high; `start_now` is its value now (raised by each underrun).
    pub start: Signal<In, Bits<8>>,
    pub start_load: Signal<In, Bit>,
    pub start_now: Signal<Out, Bits<8>>,
    /// The retransmission buffer in card memory: every WRITE payload is copied to its packet's
    /// slot when first sent, and a retransmitted WRITE packet reads it back from there.
    pub m_axi_rb: Axi4Master512,
    pub cnt: TxCounters,
    rb_rd_q: ChanSkid<RbBurst>,
    rb_aw_q: ChanSkid<RbBurst>,
    rb_w: AxisFifo<DATA_W, KEEP_W, 578, 5>,
    src_in: ToBits<RbSrc, SRC_BITS>,
    src_q: AxisFifo<SRC_BITS, 1, SRC_W, 3>,
    src_out: FromBits<RbSrc, SRC_BITS>,
    /// Copies chosen, and copies written (B responses): a read of the buffer waits until the
    /// last copy to its slot (`cps_ram`) is written.
    cp_fired: DFF<Bits<16>>,
    cp_done: DFF<Bits<16>>,
    cp_gap: Signal<Local, Bits<16>>,
    /// Per slot of the requester's half (QPN * 16 + PSN mod 16, R = A + 4 bits): the number of
    /// the last copy written to it. A read of the buffer waits only for that copy, not for every
    /// copy before it.
    cps_ram: Ram<16, R>,
    /// The same for the response half (READ response packets).
    cps_rsp_ram: Ram<16, R>,
    rbp_rsp: DFF<Bit>,
    cps_last: Signal<Local, Bits<16>>,
    /// The response half's base address (bit A + 16).
    c_rsp_half: Constant<Bits<64>>,
    slot_idx: Signal<Local, Bits<R>>,
    pick_s4: Signal<Local, Bits<4>>,
    rbp_valid: DFF<Bit>,
    rbp: DFF<RbBurst>,
    rbp_d: Signal<Local, Bits<16>>,
    c1024: Constant<Bits<16>>,
    ar_ok: Signal<Local, Bit>,
    p_qpn: Signal<Local, Bits<A>>,
    pick_addr: Signal<Local, Bits<64>>,
    rb_qpn: Signal<Local, Bits<A>>,
    x_src: Signal<Local, RbSrc>,
    /// The next payload beat is its packet's first; beats of the buffer's payload so far.
    pay_first: DFF<Bit>,
    rb_beat: DFF<Bits<8>>,
    sel_rb: Signal<Local, Bit>,
    src_copy: Signal<Local, Bit>,
    rb_n: Signal<Local, Bits<7>>,
    rb_lastb: Signal<Local, Bit>,
    rb_keep: Signal<Local, Bits<64>>,
    in_valid: Signal<Local, Bit>,
    in_last: Signal<Local, Bit>,
    in_keep: Signal<Local, Bits<64>>,
    in_data: Signal<Local, Bits<512>>,
    pay_src_valid: Signal<Local, Bit>,
    cp_ok: Signal<Local, Bit>,
    acc: Signal<Local, Bit>,
    count_rb_writes: DFF<Bits<32>>,
    count_rb_reads: DFF<Bits<32>>,
    c15_24: Constant<Bits<24>>,
    c63_16: Constant<Bits<16>>,
    c1_16: Constant<Bits<16>>,
    c1_8: Constant<Bits<8>>,
    c64_7: Constant<Bits<7>>,
    c_all64: Constant<Bits<64>>,
    c_size64: Constant<Bits<3>>,
    c_incr: Constant<Bits<2>>,
    r_adv: Signal<Local, Bit>,
    una_busy: Signal<Local, Bit>,
    pick_slot: Signal<Local, Bits<24>>,
    x_slot: Signal<Local, Bits<24>>,
    rb_sh: Signal<Local, Bits<7>>,
    c0_8: Constant<Bits<8>>,
    c_half16: Constant<Bits<16>>,
    rtx_go: Signal<Local, Bit>,
    rtx_hold: DFF<Bit>,
    /// The new message in hand sent a packet since it was taken (only then may a retransmission
    /// pause it for another QP).
    r_sent1: DFF<Bit>,
    r_stale: Signal<Local, Bit>,
    /// The packet's PSN less the oldest unacknowledged one, and less the window's end (only
    /// their signs are used): a PSN is inside the window when it is not behind the oldest
    /// unacknowledged PSN and is behind the end.
    r_behind_unused_low: Signal<Local, Bits<24>>,
    r_dend_unused_low: Signal<Local, Bits<24>>,
    /// The QP read from `una_ram` has packets outstanding.
    una_out_busy: Signal<Local, Bit>,
    // inputs
    sq_q: ChanSkid<SqWr>,
    rsp_in: ToBits<RespItem, RSP_BITS>,
    /// The responder's items in order: one entry per QP of the table (2^A), so that every QP
    /// can have a READ waiting for its responses at once (a smaller queue stalls the responder,
    /// and the RX buffer then drops requests at line rate until their retransmission).
    rsp_fifo: AxisFifo<RSP_BITS, 1, RSP_W, A>,
    rsp_out: FromBits<RespItem, RSP_BITS>,
    a_pend: DFF<Bit>,
    a_item: DFF<RespItem>,
    cmd_q: ChanSkid<DmaCmd>,
    /// The requester's state machine: `fsm_idle` takes the next request (a parked one or a new
    /// one), `fsm_look` reads the QP's send PSN and window, `fsm_gen` generates its packets,
    /// `fsm_rec` waits for the completion side to record a new message before its first
    /// packet, `fsm_flush` completes the work of a QP that cannot send. Named constants, not a
    /// `LogicState` enum (see the responder's `hdr_fsm`).
    req_fsm: DFF<Bits<3>>,
    fsm_idle: Constant<Bits<3>>,
    fsm_look: Constant<Bits<3>>,
    fsm_gen: Constant<Bits<3>>,
    fsm_flush: Constant<Bits<3>>,
    fsm_rec: Constant<Bits<3>>,
    r_wr: DFF<SqWr>,
    r_addr: DFF<Bits<64>>,
    r_left: DFF<Bits<32>>,
    r_psn: DFF<Bits<24>>,
    r_first: DFF<Bit>,
    /// The message being generated is a retransmission: no `sent` record, no send-PSN update.
    r_rtx: DFF<Bit>,
    rtx_busy: DFF<Bit>,
    /// A new message of another QP, paused (between two of its packets) for a retransmission,
    /// and resumed after it.
    p_valid: DFF<Bit>,
    p_wr: DFF<SqWr>,
    p_addr: DFF<Bits<64>>,
    p_left: DFF<Bits<32>>,
    p_psn: DFF<Bits<24>>,
    p_first: DFF<Bit>,
    r_resume: DFF<Bit>,
    /// The paused message was not yet recorded by the completion side.
    r_unrec: DFF<Bit>,
    preempt: Signal<Local, Bit>,
    p_seq: DFF<Bits<6>>,
    count_retransmits: DFF<Bits<32>>,
    // ACK-clocked window: a QP whose window is full parks its work request (in its QP's order)
    // and the TX goes on with other QPs
    /// Per QP {end, busy, una}: `end` is `una + w_lim`, added as the completion side writes the
    /// word, so each packet's window check is the signs of two subtractions side by side (no
    /// compare behind a subtractor on the send decision). A change of `window` applies to a
    /// QP from its next write.
    una_ram: Ram<49, A>,
    /// The word both copies write: {end, busy, una}.
    una_w: Signal<Local, Bits<49>>,
    una_end: Signal<Local, Bits<24>>,
    una_end_d: Signal<Local, Bits<24>>,
    /// A copy of `una_ram` read at the next request's QP (the look-up's window check), while
    /// `una_ram` is read at the current message's QP (each packet's window check).
    una2_ram: Ram<49, A>,
    una2_d: Signal<Local, Bits<24>>,
    una2_end: Signal<Local, Bits<24>>,
    una2_busy: Signal<Local, Bit>,
    /// The send PSN written in the cycle it is read (read-first RAM): forwarded.
    psn_rd: Signal<Local, Bits<24>>,
    g_done: Signal<Local, Bit>,
    disp: Signal<Local, Bit>,
    dhead_ram: Ram<6, A>,
    dtail_ram: Ram<6, A>,
    dq_wr_in: ToBits<SqWr, SQ_BITS>,
    dq_st_in: ToBits<DeferSt, DST_BITS>,
    dq: AxisFifo<DQ_BITS, 1, DQ_W, 5>,
    dq_wr_out: FromBits<SqWr, SQ_BITS>,
    dq_st_out: FromBits<DeferSt, DST_BITS>,
    /// Requests in the parking FIFO (its output stage too), counted here as they go in and out:
    /// `dq_room` is then one compare on a register, not a compare behind the FIFO's level
    /// subtractor (LUT depth).
    dq_n: FillCount<6>,
    dq_room: Signal<Local, Bit>,
    dq_pop: Signal<Local, Bit>,
    dq_admit: Constant<Bits<6>>,
    /// Beats in the copy FIFO `rb_w` (its output stage too), counted the same way: the copy's
    /// room is a compare on a register, not on the FIFO's pointer difference, which sat at the
    /// head of the payload accept path (`acc`).
    rbw_n: FillCount<6>,
    rbw_room: Signal<Local, Bit>,
    rbw_pop: Signal<Local, Bit>,
    /// Descriptors in `desc_fifo` (its output stage too), counted the same way: a packet's room
    /// in it (`df_room`) is a compare on a register, not the FIFO's pointer difference, which
    /// sat at the head of the send decision (`fire`).
    df_n: FillCount<10>,
    df_room: Signal<Local, Bit>,
    df_pop: Signal<Local, Bit>,
    c255_10: Constant<Bits<10>>,
    c31_6: Constant<Bits<6>>,
    /// The request in hand came from the parking FIFO; its place in its QP's order.
    r_def: DFF<Bit>,
    r_seq: DFF<Bits<6>>,
    /// A retransmission stops at the QP's next unsent PSN (packets never sent are not resent).
    r_lim: DFF<Bits<24>>,
    /// Idle: prefer the parking FIFO over new requests (they alternate).
    prefer_parked: DFF<Bit>,
    i_dq: Signal<Local, Bit>,
    i_sq: Signal<Local, Bit>,
    /// The window in packets (a register: `window` is configuration), at most `WINDOW_MAX`,
    /// added to a QP's oldest unacknowledged PSN as its `una_ram` word is written (the window's
    /// end).
    w_lim: DFF<Bits<24>>,
    w_lim_d: Signal<Local, Bits<24>>,
    /// AckReq interval: a packet whose PSN has these low bits all set asks for an ACK, so a
    /// request is asked for at least every half window (every 8 PSNs in a 16-packet window,
    /// every packet in a window of 1..3). A responder that ACKs only what asks (Linux rxe)
    /// then never lets the window close.
    ackreq_mask: DFF<Bits<3>>,
    /// The look-up's window check for each PSN it may use (the send PSN read, or `r_psn` for a
    /// parked request that already started), selected after the compares, not before. Like each
    /// packet's check, a PSN is inside when it is not behind `una` and behind the end: the signs
    /// of two subtractions side by side, no compare behind a subtractor.
    l_beh_rd_unused_low: Signal<Local, Bits<24>>,
    l_beh_r_unused_low: Signal<Local, Bits<24>>,
    l_dend_rd_unused_low: Signal<Local, Bits<24>>,
    l_dend_r_unused_low: Signal<Local, Bits<24>>,
    l_out: Signal<Local, Bit>,
    una_d: Signal<Local, Bits<24>>,
    win_ok: Signal<Local, Bit>,
    l_new: Signal<Local, Bit>,
    l_park: Signal<Local, Bit>,
    g_park: Signal<Local, Bit>,
    rtx_end: Signal<Local, Bit>,
    c_wmax: Constant<Bits<24>>,
    c_win16: Constant<Bits<24>>,
    c_win8: Constant<Bits<24>>,
    c_win4: Constant<Bits<24>>,
    c_mask0: Constant<Bits<3>>,
    c_mask7: Constant<Bits<3>>,
    c_mask3: Constant<Bits<3>>,
    c_mask1: Constant<Bits<3>>,
    c1_6: Constant<Bits<6>>,
    psn_ram: Ram<24, A>,
    pmtu_ram: Ram<6, A>,
    /// Set by the completion side's error events, cleared by a control-plane write.
    err_ram: Ram<1, A>,
    r_pmtu_code: Signal<Local, Bits<3>>,
    /// The message's PMTU code, PMTU and packet count, worked out in its look-up cycle from the
    /// PMTU RAM's output and held for its packets (the send decision starts from flops, not from
    /// the RAM's output: LUT depth).
    g_code: DFF<Bits<3>>,
    g_pmtu: DFF<Bits<16>>,
    /// A PMTU (a power of two) as the mask of the budget values it fits in: `room >= PMTU`
    /// is `room & mask != 0`, an AND-OR of flops, not a compare's carry chain with ABC's
    /// mapping of its constant low bits in front (this compare led the send decision's paths).
    g_pmask: DFF<Bits<24>>,
    g_npkts: DFF<Bits<24>>,
    l_pmtu: Signal<Local, Bits<16>>,
    l_npkts: Signal<Local, Bits<24>>,
    l_npk: PsnCount,
    r_state: Signal<Local, Bits<3>>,
    c_rts: Constant<Bits<3>>,
    r_pmtu: Signal<Local, Bits<16>>,
    /// The packet in hand is its message's last (`r_left <= PMTU`), a register: worked out in
    /// the look-up cycle from what is left then, and after each packet from `r_left <= 2 PMTU`
    /// (what is left less a whole PMTU), so the send decision does not start behind a compare.
    g_last: DFF<Bit>,
    l_left: Signal<Local, Bits<32>>,
    r_last: Signal<Local, Bit>,
    r_plen: Signal<Local, Bits<32>>,
    r_npkts: Signal<Local, Bits<24>>,
    r_desc: Signal<Local, TxDesc>,
    r_valid: Signal<Local, Bit>,
    r_take: Signal<Local, Bit>,
    wr_qpn: Signal<Local, Bits<A>>,
    // READ responder
    j_active: DFF<Bit>,
    j_job: DFF<RespItem>,
    j_addr: DFF<Bits<64>>,
    j_left: DFF<Bits<32>>,
    j_psn: DFF<Bits<24>>,
    j_first: DFF<Bit>,
    j_pmtu: Signal<Local, Bits<32>>,
    /// The READ job's PMTU, worked out as the job is taken (not a shift behind `j_job`).
    j_pm: DFF<Bits<16>>,
    /// ... and its mask (see `g_pmask`).
    j_pmask: DFF<Bits<24>>,
    j_last: Signal<Local, Bit>,
    /// The READ response packet in hand is the job's last (`j_left <= PMTU`) and the job has
    /// bytes left (`j_left != 0`), registers: set as the job is loaded, and after each packet
    /// from `j_left <= 2 PMTU` (what is left less a whole PMTU, never 0), as `g_last` is for
    /// requests, so the send decision does not start behind a 32-bit compare and OR.
    jg_last: DFF<Bit>,
    j_nz: DFF<Bit>,
    j_pm_new: Signal<Local, Bits<16>>,
    j_desc: Signal<Local, TxDesc>,
    j_take: Signal<Local, Bit>,
    // ACK generator
    a_desc: Signal<Local, TxDesc>,
    a_take: Signal<Local, Bit>,
    // arbiter → descriptor FIFO + DMA command
    pick: Signal<Local, TxDesc>,
    fire: Signal<Local, Bit>,
    /// Payload bytes that may still be chosen: `budget` less those chosen but not yet handed to
    /// the deparser, so that ACKs and retransmissions wait behind at most `budget` bytes of data
    /// (plus the packet FIFO). Kept as the room left (set to `budget` by reset), so a packet's
    /// budget check is one compare of its length with a register.
    room: DFF<Bits<24>>,
    /// What went to the deparser last cycle (`x_desc`'s length, or 0), in a register: the
    /// hand-off (`x_go`) waits on the deparser's ready chain, so it is given back to `room` a
    /// cycle later instead of from the end of that chain.
    room_ret: DFF<Bits<24>>,
    /// `room` plus what went to the deparser, and that less the pick: the two next values,
    /// worked out beside `fire`, which only selects. The add starts from flops and does not wait
    /// for the pick (its three-way select is the late input), so the pick meets one subtract.
    room_keep: Signal<Local, Bits<24>>,
    room_fire: Signal<Local, Bits<24>>,
    /// Whether a READ response or a request could go, each worked out from its own descriptor
    /// beside the arbiter's pick (`r_valid`, the late one, comes last).
    fire_j: Signal<Local, Bit>,
    fire_r: Signal<Local, Bit>,
    j_fits: Signal<Local, Bit>,
    r_fits: Signal<Local, Bit>,
    /// The budget check for each candidate length (a whole PMTU, or what is left), worked out
    /// beside the last-packet compare, which only selects; and whether the packet has a payload.
    j_fit_full: Signal<Local, Bit>,
    j_fit_left: Signal<Local, Bit>,
    r_fit_full: Signal<Local, Bit>,
    r_fit_left: Signal<Local, Bit>,
    j_pay: Signal<Local, Bit>,
    r_pay: Signal<Local, Bit>,
    budget: Constant<Bits<24>>,
    desc_in: ToBits<TxDesc, DESC_BITS>,
    desc_fifo: AxisFifo<DESC_BITS, 1, DESC_W, 8>,
    desc_out: FromBits<TxDesc, DESC_BITS>,
    // addressing: 0 wait, 1 table read issued
    addr_read_issued: DFF<Bit>,
    x_desc: DFF<TxDesc>,
    /// The QP's [`QpPath`]: the configuration its headers carry.
    cfg_ram: Ram<QP_PATH_BITS, A>,
    cfg_w: Signal<Local, QpPath>,
    cfg_in: ToBits<QpPath, QP_PATH_BITS>,
    cfg_out: FromBits<QpPath, QP_PATH_BITS>,
    x_qpn: Signal<Local, Bits<A>>,
    x_hdr: Signal<Local, TxHdr>,
    /// The frame's header on its way to the deparser: a register stage, not a skid buffer (the
    /// deparser's header ready is one LUT on its registers, so no 655-bit select is needed to
    /// keep the ready path short).
    hdr_q: ChanReg<TxHdr>,
    /// The TX payload slot, and the metadata of the payloads on their way to it.
    slot: PayloadSlot<LT, ST, A, F>,
    /// Without a TX service the slot is not in the data path: a skid buffer takes its place
    /// (the payload path's ready stays a register), and the deparser takes the payload from it
    /// (`slot_on` is a constant; synthesis removes the unread slot).
    pay_skid: AxisSkid512,
    slot_on: Constant<Bit>,
    /// The payload path's ready: the slot's, or the skid buffer's.
    sl_ready: Signal<Local, Bit>,
    meta_in: ToBits<SlotMeta, META_BITS>,
    meta_q: AxisFifo<META_BITS, 1, META_W, 3>,
    meta_out: FromBits<SlotMeta, META_BITS>,
    x_meta: Signal<Local, SlotMeta>,
    x_go: Signal<Local, Bit>,
    x_pay: Signal<Local, Bit>,
    pub slot_overrun: Signal<Out, Bits<32>>,
    /// The TX slot service's configuration writes, and its QP generation readback.
    pub svc_cfg: Signal<In, SvcCfg>,
    pub svc_gen: Signal<Out, Bits<24>>,
    build: RoceTxBuild,
    /// 128 beats (8 KiB), cut through: a frame starts once `start` beats of it are here (or
    /// all of it), and is aborted if it runs dry; little data queued ahead of ACKs and
    /// retransmissions.
    out_fifo: AxisCutFifo512,
    count_frames: DFF<Bits<32>>,
    count_acks: DFF<Bits<32>>,
    count_read_resp: DFF<Bits<32>>,
    count_requests: DFF<Bits<32>>,
    count_messages: DFF<Bits<32>>,
    unused: Signal<Local, Bit>,
    c256: Constant<Bits<16>>,
    c1_24: Constant<Bits<24>>,
    c0_16: Constant<Bits<16>>,
    c0_24: Constant<Bits<24>>,
    c0_32: Constant<Bits<32>>,
    c0_64: Constant<Bits<64>>,
    op_read: Constant<Bits<2>>,
    o_wf: Constant<Bits<8>>,
    o_wm: Constant<Bits<8>>,
    o_wl: Constant<Bits<8>>,
    o_wo: Constant<Bits<8>>,
    /// A SEND's opcodes, by the same place in the message.
    o_sf: Constant<Bits<8>>,
    o_sm: Constant<Bits<8>>,
    o_sl: Constant<Bits<8>>,
    o_so: Constant<Bits<8>>,
    op_send: Constant<Bits<2>>,
    o_rq: Constant<Bits<8>>,
    o_rf: Constant<Bits<8>>,
    o_rm: Constant<Bits<8>>,
    o_rl: Constant<Bits<8>>,
    o_ro: Constant<Bits<8>>,
    o_ack: Constant<Bits<8>>,
    syn_ack: Constant<Bits<8>>,
    ecn_ect0: Constant<Bits<2>>,
    zero_flow: Constant<Bits<20>>,
}

impl<const A: usize, const R: usize, const LT: usize, const ST: usize, const F: usize> Default for RoceTx<A, R, LT, ST, F> {
    fn default() -> Self {
        let style = RamStyle::for_qp_table(A);
        RoceTx {
            clock: Default::default(),
            reset: Default::default(),
            sq: Default::default(),
            sq_valid: Default::default(),
            sq_ready: Default::default(),
            rsp: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            sent: Default::default(),
            sent_valid: Default::default(),
            sent_ready: Default::default(),
            sent_take: Default::default(),
            sent_soon: Default::default(),
            dma_rd_cmd: Default::default(),
            dma_rd_cmd_valid: Default::default(),
            dma_rd_cmd_ready: Default::default(),
            s_axis_dma_rd: Default::default(),
            m_axis_tx: Default::default(),
            local_mac: Default::default(),
            local_ip: Default::default(),
            ctl_req: Default::default(),
            ctl_qpn: Default::default(),
            ctl_cfg: Default::default(),
            ctl_sq_psn: Default::default(),
            ctl_state: Default::default(),
            ctl_done: Default::default(),
            cnt: Default::default(),
            sq_q: Default::default(),
            rsp_in: Default::default(),
            rsp_fifo: AxisFifo::new(),
            rsp_out: Default::default(),
            a_pend: Default::default(),
            a_item: Default::default(),
            cmd_q: Default::default(),
            req_fsm: Default::default(),
            fsm_idle: c(0),
            fsm_look: c(1),
            fsm_gen: c(2),
            fsm_flush: c(3),
            fsm_rec: c(4),
            r_wr: Default::default(),
            r_addr: Default::default(),
            r_left: Default::default(),
            r_psn: Default::default(),
            r_first: Default::default(),
            r_rtx: Default::default(),
            rtx_busy: Default::default(),
            p_valid: Default::default(),
            p_wr: Default::default(),
            p_addr: Default::default(),
            p_left: Default::default(),
            p_psn: Default::default(),
            p_first: Default::default(),
            r_resume: Default::default(),
            r_unrec: Default::default(),
            preempt: Default::default(),
            p_seq: Default::default(),
            count_retransmits: Default::default(),
            una_ram: Ram::new(style, false),
            una2_ram: Ram::new(style, false),
            una2_d: Default::default(),
            una2_end: Default::default(),
            una2_busy: Default::default(),
            psn_rd: Default::default(),
            g_done: Default::default(),
            disp: Default::default(),
            dhead_ram: Ram::new(style, false),
            dtail_ram: Ram::new(style, false),
            dq_wr_in: Default::default(),
            dq_st_in: Default::default(),
            dq: AxisFifo::new(),
            dq_wr_out: Default::default(),
            dq_st_out: Default::default(),
            dq_n: Default::default(),
            dq_room: Default::default(),
            dq_pop: Default::default(),
            dq_admit: Constant::new(DQ_ADMIT.into()),
            rbw_n: Default::default(),
            df_n: Default::default(),
            df_room: Default::default(),
            df_pop: Default::default(),
            c255_10: c(255),
            rbw_room: Default::default(),
            rbw_pop: Default::default(),
            c31_6: c(31),
            r_def: Default::default(),
            r_seq: Default::default(),
            r_lim: Default::default(),
            prefer_parked: Default::default(),
            i_dq: Default::default(),
            i_sq: Default::default(),
            w_lim: Default::default(),
            w_lim_d: Default::default(),
            ackreq_mask: Default::default(),
            l_beh_rd_unused_low: Default::default(),
            l_beh_r_unused_low: Default::default(),
            l_dend_rd_unused_low: Default::default(),
            l_dend_r_unused_low: Default::default(),
            l_out: Default::default(),
            una_d: Default::default(),
            win_ok: Default::default(),
            l_new: Default::default(),
            l_park: Default::default(),
            g_park: Default::default(),
            rtx_end: Default::default(),
            c_wmax: c(WINDOW_MAX as u64),
            c_win16: c(16),
            c_win8: c(8),
            c_win4: c(4),
            c_mask0: c(0),
            c_mask7: c(7),
            c_mask3: c(3),
            c_mask1: c(1),
            c1_6: c(1),
            rtx: Default::default(),
            rtx_valid: Default::default(),
            rtx_ready: Default::default(),
            una_wr: Default::default(),
            una_qpn: Default::default(),
            una_psn: Default::default(),
            una_open: Default::default(),
            window: Default::default(),
            start: Default::default(),
            start_load: Default::default(),
            start_now: Default::default(),
            m_axi_rb: Default::default(),
            rb_rd_q: Default::default(),
            rb_aw_q: Default::default(),
            rb_w: AxisFifo::new(),
            src_in: Default::default(),
            src_q: AxisFifo::new(),
            src_out: Default::default(),
            cp_fired: Default::default(),
            cp_done: Default::default(),
            cp_gap: Default::default(),
            cps_ram: Ram::new(if R > 14 { RamStyle::Ultra } else { RamStyle::Block }, false),
            cps_rsp_ram: Ram::new(if R > 14 { RamStyle::Ultra } else { RamStyle::Block }, false),
            rbp_rsp: Default::default(),
            cps_last: Default::default(),
            c_rsp_half: c(1u64 << (A + 16)),
            slot_idx: Default::default(),
            pick_s4: Default::default(),
            rbp_valid: Default::default(),
            rbp: Default::default(),
            rbp_d: Default::default(),
            c1024: c(1024),
            ar_ok: Default::default(),
            p_qpn: Default::default(),
            pick_addr: Default::default(),
            rb_qpn: Default::default(),
            x_src: Default::default(),
            pay_first: Default::default(),
            rb_beat: Default::default(),
            sel_rb: Default::default(),
            src_copy: Default::default(),
            rb_n: Default::default(),
            rb_lastb: Default::default(),
            rb_keep: Default::default(),
            in_valid: Default::default(),
            in_last: Default::default(),
            in_keep: Default::default(),
            in_data: Default::default(),
            pay_src_valid: Default::default(),
            cp_ok: Default::default(),
            acc: Default::default(),
            count_rb_writes: Default::default(),
            count_rb_reads: Default::default(),
            c15_24: c(15),
            c63_16: c(63),
            c1_16: c(1),
            c1_8: c(1),
            c64_7: c(64),
            c_all64: c(u64::MAX),
            c_size64: c(6),
            c_incr: c(1),
            r_adv: Default::default(),
            una_busy: Default::default(),
            pick_slot: Default::default(),
            x_slot: Default::default(),
            rb_sh: Default::default(),
            c0_8: c(0),
            c_half16: c(0x8000),
            rtx_go: Default::default(),
            rtx_hold: Default::default(),
            r_sent1: Default::default(),
            r_stale: Default::default(),
            r_behind_unused_low: Default::default(),
            r_dend_unused_low: Default::default(),
            una_w: Default::default(),
            una_end: Default::default(),
            una_end_d: Default::default(),
            una_out_busy: Default::default(),
            psn_ram: Ram::new_forwarding(style),
            pmtu_ram: Ram::new(style, false),
            err_ram: Ram::new(style, false),
            err_qpn: Default::default(),
            err_valid: Default::default(),
            err_ready: Default::default(),
            r_pmtu_code: Default::default(),
            g_code: Default::default(),
            g_pmtu: Default::default(),
            g_pmask: Default::default(),
            g_npkts: Default::default(),
            l_pmtu: Default::default(),
            l_npkts: Default::default(),
            l_npk: Default::default(),
            r_state: Default::default(),
            c_rts: c(state::RTS as u64),
            r_pmtu: Default::default(),
            g_last: Default::default(),
            l_left: Default::default(),
            r_last: Default::default(),
            r_plen: Default::default(),
            r_npkts: Default::default(),
            r_desc: Default::default(),
            r_valid: Default::default(),
            r_take: Default::default(),
            wr_qpn: Default::default(),
            j_active: Default::default(),
            j_job: Default::default(),
            j_addr: Default::default(),
            j_left: Default::default(),
            j_psn: Default::default(),
            j_first: Default::default(),
            j_pmtu: Default::default(),
            j_pm: Default::default(),
            j_pmask: Default::default(),
            j_last: Default::default(),
            jg_last: Default::default(),
            j_nz: Default::default(),
            j_pm_new: Default::default(),
            j_desc: Default::default(),
            j_take: Default::default(),
            a_desc: Default::default(),
            a_take: Default::default(),
            pick: Default::default(),
            fire: Default::default(),
            room: Default::default(),
            room_ret: Default::default(),
            room_keep: Default::default(),
            room_fire: Default::default(),
            fire_j: Default::default(),
            fire_r: Default::default(),
            j_fits: Default::default(),
            r_fits: Default::default(),
            j_fit_full: Default::default(),
            j_fit_left: Default::default(),
            r_fit_full: Default::default(),
            r_fit_left: Default::default(),
            j_pay: Default::default(),
            r_pay: Default::default(),
            budget: c(INFLIGHT_BUDGET as u64),
            desc_in: Default::default(),
            desc_fifo: AxisFifo::new(),
            desc_out: Default::default(),
            addr_read_issued: Default::default(),
            x_desc: Default::default(),
            cfg_ram: Ram::new(style, false),
            cfg_w: Default::default(),
            cfg_in: Default::default(),
            cfg_out: Default::default(),
            x_qpn: Default::default(),
            x_hdr: Default::default(),
            hdr_q: Default::default(),
            slot: Default::default(),
            pay_skid: Default::default(),
            slot_on: Constant::new(ST != kind::PASS),
            sl_ready: Default::default(),
            meta_in: Default::default(),
            meta_q: AxisFifo::new(),
            meta_out: Default::default(),
            x_meta: Default::default(),
            x_go: Default::default(),
            x_pay: Default::default(),
            slot_overrun: Default::default(),
            svc_cfg: Default::default(),
            svc_gen: Default::default(),
            build: Default::default(),
            out_fifo: AxisCutFifo512::default(),
            count_frames: Default::default(),
            count_acks: Default::default(),
            count_read_resp: Default::default(),
            count_requests: Default::default(),
            count_messages: Default::default(),
            unused: Default::default(),
            c256: c(256),
            c1_24: c(1),
            c0_16: c(0),
            c0_24: c(0),
            c0_32: c(0),
            c0_64: c(0),
            op_read: c(wr_op::READ as u64),
            o_wf: c(op::WRITE_FIRST as u64),
            o_wm: c(op::WRITE_MIDDLE as u64),
            o_wl: c(op::WRITE_LAST as u64),
            o_wo: c(op::WRITE_ONLY as u64),
            o_sf: c(op::SEND_FIRST as u64),
            o_sm: c(op::SEND_MIDDLE as u64),
            o_sl: c(op::SEND_LAST as u64),
            o_so: c(op::SEND_ONLY as u64),
            op_send: c(wr_op::SEND as u64),
            o_rq: c(op::READ_REQUEST as u64),
            o_rf: c(op::READ_RESP_FIRST as u64),
            o_rm: c(op::READ_RESP_MIDDLE as u64),
            o_rl: c(op::READ_RESP_LAST as u64),
            o_ro: c(op::READ_RESP_ONLY as u64),
            o_ack: c(op::ACK as u64),
            syn_ack: c(syndrome::ACK as u64),
            ecn_ect0: c(0b10),
            zero_flow: c(0),
        }
    }
}

impl<const A: usize, const R: usize, const LT: usize, const ST: usize, const F: usize> Logic for RoceTx<A, R, LT, ST, F> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, g_last, jg_last, j_nz, j_pm, j_pmask, g_code, g_pmtu, g_pmask, g_npkts, w_lim, ackreq_mask, rbp_valid, rbp, rbp_rsp, r_sent1, rtx_hold, cp_fired, cp_done, pay_first, rb_beat, count_rb_writes, count_rb_reads, p_seq, r_def, r_seq, r_lim, prefer_parked, r_unrec, room, room_ret, p_valid, p_wr, p_addr, p_left, p_psn, p_first, r_resume, r_rtx, rtx_busy, count_retransmits, req_fsm, r_wr, r_addr, r_left, r_psn, r_first, j_active, j_job, j_addr, j_left, j_psn, j_first, a_pend, a_item, addr_read_issued, x_desc, count_frames, count_acks, count_read_resp, count_requests, count_messages);
        clock!(self, clock, cps_ram, cps_rsp_ram, rb_rd_q, rb_aw_q, rb_w, src_q, una_ram, una2_ram, dhead_ram, dtail_ram, dq, slot, pay_skid, meta_q, sq_q, rsp_fifo, cmd_q, psn_ram, pmtu_ram, err_ram, desc_fifo, cfg_ram, hdr_q, build, out_fifo, dq_n, rbw_n, df_n);
        self.sq_q.reset.next = self.reset.val();
        self.rsp_fifo.reset.next = self.reset.val();
        self.cmd_q.reset.next = self.reset.val();
        self.desc_fifo.reset.next = self.reset.val();
        self.hdr_q.reset.next = self.reset.val();
        self.build.reset.next = self.reset.val();
        self.out_fifo.reset.next = self.reset.val();
        self.slot.reset.next = self.reset.val();
        self.pay_skid.reset.next = self.reset.val();
        self.dq_n.reset.next = self.reset.val();
        self.rbw_n.reset.next = self.reset.val();
        self.df_n.reset.next = self.reset.val();
        self.meta_q.reset.next = self.reset.val();
        self.dq.reset.next = self.reset.val();
        self.rb_rd_q.reset.next = self.reset.val();
        self.rb_aw_q.reset.next = self.reset.val();
        self.rb_w.reset.next = self.reset.val();
        self.src_q.reset.next = self.reset.val();
        // ------------------------------------------------ channels in and out
        self.sq_q.s_data.next = self.sq.val();
        self.sq_q.s_valid.next = self.sq_valid.val();
        self.sq_ready.next = self.sq_q.s_ready.val();
        self.rsp_in.fields.next = self.rsp.val();
        self.rsp_fifo.s_axis.tdata.next = self.rsp_in.bits.val();
        self.rsp_fifo.s_axis.tkeep.next = true.into();
        self.rsp_fifo.s_axis.tlast.next = true;
        self.rsp_fifo.s_axis.tuser.next = false;
        self.rsp_fifo.s_axis.tvalid.next = self.rsp_valid.val();
        self.rsp_ready.next = self.rsp_fifo.s_axis.tready.val();
        self.rsp_out.bits.next = self.rsp_fifo.m_axis.tdata.val();
        self.dma_rd_cmd.next = self.cmd_q.m_data.val();
        self.dma_rd_cmd_valid.next = self.cmd_q.m_valid.val();
        self.cmd_q.m_ready.next = self.dma_rd_cmd_ready.val();
        self.cnt.frames.next = self.count_frames.q.val();
        self.cnt.acks.next = self.count_acks.q.val();
        self.cnt.read_resp.next = self.count_read_resp.q.val();
        self.cnt.requests.next = self.count_requests.q.val();
        self.cnt.messages.next = self.count_messages.q.val();
        self.cnt.retransmits.next = self.count_retransmits.q.val();
        self.cnt.rb_writes.next = self.count_rb_writes.q.val();
        self.cnt.rb_reads.next = self.count_rb_reads.q.val();
        self.cnt.underruns.next = self.out_fifo.aborts.val();
        self.out_fifo.start.next = self.start.val();
        self.out_fifo.start_load.next = self.start_load.val();
        self.start_now.next = self.out_fifo.thr_now.val();
        // ------------------------------------------------ parking FIFO and window
        self.dq_wr_out.bits.next = self.dq.m_axis.tdata.val().get_bits::<251>(0);
        self.dq_st_out.bits.next = self.dq.m_axis.tdata.val().get_bits::<128>(251);
        self.dq.m_axis.tready.next = false;
        self.dq_room.next = self.dq_n.n.val() <= self.dq_admit.val();
        // idle: parked requests and new ones take turns (a new one only while there is room to
        // park it)
        self.i_dq.next = self.dq.m_axis.tvalid.val() & !self.rtx_busy.q.val() & (!self.sq_q.m_valid.val() | self.prefer_parked.q.val() | !self.dq_room.val());
        self.i_sq.next = self.sq_q.m_valid.val() & !self.rtx_busy.q.val() & self.dq_room.val() & !self.i_dq.val();
        self.w_lim_d.next = bit_cast::<24, 8>(self.window.val());
        if !self.window.val().any() | (self.w_lim_d.val() > self.c_wmax.val()) {
            self.w_lim_d.next = self.c_wmax.val();
        }
        self.w_lim.d.next = self.w_lim_d.val();
        self.ackreq_mask.d.next = self.c_mask0.val();
        if self.w_lim.q.val() >= self.c_win16.val() {
            self.ackreq_mask.d.next = self.c_mask7.val();
        } else if self.w_lim.q.val() >= self.c_win8.val() {
            self.ackreq_mask.d.next = self.c_mask3.val();
        } else if self.w_lim.q.val() >= self.c_win4.val() {
            self.ackreq_mask.d.next = self.c_mask1.val();
        }
        // una_ram: {busy, una}; zero (open) until the completion side reports a QP
        self.una_ram.we.next = self.una_wr.val();
        self.una_ram.waddr.next = self.una_qpn.val();
        self.una_busy.next = !self.una_open.val();
        self.una_end.next = self.una_psn.val() + self.w_lim.q.val();
        self.una_w.next = bit_cast::<49, 24>(self.una_psn.val()) | (bit_cast::<49, 1>(self.una_busy.val().into()) << 24) | (bit_cast::<49, 24>(self.una_end.val()) << 25);
        self.una_ram.wdata.next = self.una_w.val();
        self.una_ram.re.next = true;
        self.una_ram.oce.next = false;
        self.una2_ram.we.next = self.una_wr.val();
        self.una2_ram.waddr.next = self.una_qpn.val();
        self.una2_ram.wdata.next = self.una_w.val();
        self.una2_ram.re.next = true;
        self.una2_ram.oce.next = false;
        self.una2_d.next = self.una2_ram.rdata.val().get_bits::<24>(0);
        self.una2_busy.next = self.una2_ram.rdata.val().get_bit(24);
        self.una2_end.next = self.una2_ram.rdata.val().get_bits::<24>(25);
        self.psn_rd.next = self.psn_ram.rdata.val();
        self.una_d.next = self.una_ram.rdata.val().get_bits::<24>(0);
        self.una_end_d.next = self.una_ram.rdata.val().get_bits::<24>(25);
        // tables
        self.wr_qpn.next = bit_cast::<A, 24>(self.sq_q.m_data.val().qpn);
        // replay pacing: after a run of retransmissions, one new message (when one waits) goes
        // before the next run, so replays never starve the other QPs' new traffic
        self.rtx_go.next = self.rtx_valid.val() & (!self.rtx_hold.q.val() | self.rtx_busy.q.val() | !(self.p_valid.q.val() | self.dq.m_axis.tvalid.val() | self.sq_q.m_valid.val()));
        if self.rtx_go.val() {
            self.wr_qpn.next = bit_cast::<A, 24>(self.rtx.val().qpn);
        } else if self.p_valid.q.val() & !self.rtx_busy.q.val() {
            self.wr_qpn.next = bit_cast::<A, 24>(self.p_wr.q.val().qpn);
        } else if self.i_dq.val() {
            self.wr_qpn.next = bit_cast::<A, 24>(self.dq_wr_out.fields.val().qpn);
        }
        self.una_ram.raddr.next = bit_cast::<A, 24>(self.r_wr.q.val().qpn);
        self.una2_ram.raddr.next = self.wr_qpn.val();
        self.dhead_ram.raddr.next = self.wr_qpn.val();
        self.dtail_ram.raddr.next = self.wr_qpn.val();
        self.dhead_ram.re.next = true;
        self.dtail_ram.re.next = true;
        self.dhead_ram.oce.next = false;
        self.dtail_ram.oce.next = false;
        self.dhead_ram.we.next = false;
        self.dtail_ram.we.next = false;
        self.dhead_ram.waddr.next = bit_cast::<A, 24>(self.r_wr.q.val().qpn);
        self.dtail_ram.waddr.next = bit_cast::<A, 24>(self.r_wr.q.val().qpn);
        self.dhead_ram.wdata.next = self.r_seq.q.val();
        self.dtail_ram.wdata.next = self.dtail_ram.rdata.val() + self.c1_6.val();
        self.rtx_ready.next = false;
        self.psn_ram.raddr.next = self.wr_qpn.val();
        self.pmtu_ram.raddr.next = self.wr_qpn.val();
        self.err_ram.raddr.next = self.wr_qpn.val();
        self.err_ram.re.next = false;
        self.err_ram.oce.next = false;
        self.err_ram.we.next = false;
        self.err_ram.waddr.next = self.ctl_qpn.val();
        self.err_ram.wdata.next = false.into();
        self.err_ready.next = false;
        self.psn_ram.re.next = false;
        self.pmtu_ram.re.next = false;
        self.psn_ram.oce.next = false;
        self.pmtu_ram.oce.next = false;
        self.psn_ram.we.next = false;
        self.pmtu_ram.we.next = false;
        self.psn_ram.waddr.next = self.ctl_qpn.val();
        self.pmtu_ram.waddr.next = self.ctl_qpn.val();
        self.psn_ram.wdata.next = self.ctl_sq_psn.val();
        self.pmtu_ram.wdata.next = bit_cast::<6, 3>(self.ctl_cfg.val().pmtu) | (bit_cast::<6, 3>(self.ctl_state.val()) << 3);
        self.cfg_w.next.ipv6 = self.ctl_cfg.val().ipv6;
        self.cfg_w.next.remote_qpn = self.ctl_cfg.val().remote_qpn;
        self.cfg_w.next.remote_ip = self.ctl_cfg.val().remote_ip;
        self.cfg_w.next.remote_mac = self.ctl_cfg.val().remote_mac;
        self.cfg_w.next.udp_sport = self.ctl_cfg.val().udp_sport;
        self.cfg_w.next.pkey = self.ctl_cfg.val().pkey;
        self.cfg_w.next.ttl = self.ctl_cfg.val().ttl;
        self.cfg_w.next.dscp = self.ctl_cfg.val().dscp;
        self.cfg_in.fields.next = self.cfg_w.val();
        self.cfg_ram.wdata.next = self.cfg_in.bits.val();
        self.cfg_ram.waddr.next = self.ctl_qpn.val();
        self.cfg_ram.we.next = false;
        self.cfg_ram.re.next = false;
        self.cfg_ram.oce.next = false;
        self.ctl_done.next = false;
        // ------------------------------------------------ requester
        self.r_state.next = self.pmtu_ram.rdata.val().get_bits::<3>(3);
        // the look-up cycle works out the message's PMTU and packet count from the RAM's output
        self.l_pmtu.next = self.c256.val() << bit_cast::<16, 3>(self.pmtu_ram.rdata.val().get_bits::<3>(0));
        self.l_npk.len.next = self.r_wr.q.val().len;
        // what is left as the look-up ends: a new message's length (`r_left` is loaded now), or
        // where a retransmission or a resumed message starts
        self.l_left.next = self.r_left.q.val();
        if !self.r_rtx.q.val() & !self.r_resume.q.val() {
            self.l_left.next = self.r_wr.q.val().len;
        }
        self.l_npk.code.next = self.pmtu_ram.rdata.val().get_bits::<3>(0);
        self.l_npkts.next = self.l_npk.n.val();
        if self.req_fsm.q.val() == self.fsm_look.val() {
            self.g_code.d.next = self.pmtu_ram.rdata.val().get_bits::<3>(0);
            self.g_pmtu.d.next = self.l_pmtu.val();
            self.g_pmask.d.next = self.c0_24.val() - bit_cast::<24, 16>(self.l_pmtu.val());
            self.g_last.d.next = self.l_left.val() <= bit_cast::<32, 16>(self.l_pmtu.val());
            self.g_npkts.d.next = self.l_npkts.val();
        }
        self.r_pmtu_code.next = self.g_code.q.val();
        self.r_pmtu.next = self.g_pmtu.q.val();
        self.r_last.next = self.g_last.q.val();
        self.r_plen.next = bit_cast::<32, 16>(self.r_pmtu.val());
        if self.r_last.val() {
            self.r_plen.next = self.r_left.q.val();
        }
        self.r_npkts.next = self.g_npkts.q.val();
        self.r_desc.next.qpn = self.r_wr.q.val().qpn;
        self.r_desc.next.psn = self.r_psn.q.val();
        self.r_desc.next.va = self.r_wr.q.val().raddr;
        self.r_desc.next.rkey = self.r_wr.q.val().rkey;
        self.r_desc.next.dma_len = self.r_wr.q.val().len;
        self.r_desc.next.syndrome = self.syn_ack.val();
        self.r_desc.next.msn = self.c0_24.val();
        self.r_desc.next.laddr = self.r_addr.q.val();
        self.r_desc.next.plen = bit_cast::<16, 32>(self.r_plen.val());
        self.r_desc.next.ackreq = self.r_last.val() | ((self.r_psn.q.val().get_bits::<3>(0) & self.ackreq_mask.q.val()) == self.ackreq_mask.q.val());
        self.r_desc.next.rb = self.r_rtx.q.val() & self.r_plen.val().any();
        self.r_desc.next.cp = !self.r_rtx.q.val() & self.r_plen.val().any();
        self.r_desc.next.rsp = false;
        self.r_desc.next.opcode = self.o_wm.val();
        if self.r_first.q.val() & self.r_last.val() {
            self.r_desc.next.opcode = self.o_wo.val();
        } else if self.r_first.q.val() {
            self.r_desc.next.opcode = self.o_wf.val();
        } else if self.r_last.val() {
            self.r_desc.next.opcode = self.o_wl.val();
        }
        // a SEND's packets carry no RETH: its place in the message is all the opcode says
        if self.r_wr.q.val().op == self.op_send.val() {
            self.r_desc.next.opcode = self.o_sm.val();
            if self.r_first.q.val() & self.r_last.val() {
                self.r_desc.next.opcode = self.o_so.val();
            } else if self.r_first.q.val() {
                self.r_desc.next.opcode = self.o_sf.val();
            } else if self.r_last.val() {
                self.r_desc.next.opcode = self.o_sl.val();
            }
        }
        if self.r_wr.q.val().op == self.op_read.val() {
            self.r_desc.next.opcode = self.o_rq.val();
            self.r_desc.next.plen = self.c0_16.val();
            self.r_desc.next.ackreq = true;
            self.r_desc.next.rb = false;
            self.r_desc.next.cp = false;
        }
        self.una_out_busy.next = self.una_ram.rdata.val().get_bit(24);
        self.r_behind_unused_low.next = self.r_psn.q.val() - self.una_d.val();
        self.r_dend_unused_low.next = self.r_psn.q.val() - self.una_end_d.val();
        self.win_ok.next = !self.una_out_busy.val() | (self.r_dend_unused_low.val().get_bit(23) & !self.r_behind_unused_low.val().get_bit(23));
        self.rtx_end.next = self.r_rtx.q.val() & (self.r_psn.q.val() == self.r_lim.q.val());
        // a retransmitted packet the QP has meanwhile seen acknowledged is skipped (its slot in the
        // buffer may already hold a newer packet)
        self.r_stale.next = self.r_rtx.q.val() & (!self.una_out_busy.val() | self.r_behind_unused_low.val().get_bit(23));
        // a new message's first packet may go in the cycle its record is taken
        self.r_valid.next = ((self.req_fsm.q.val() == self.fsm_gen.val()) | ((self.req_fsm.q.val() == self.fsm_rec.val()) & self.sent_take.val()))
            & !self.rtx_end.val() & !self.r_stale.val() & (self.r_rtx.q.val() | self.win_ok.val());
        if (self.req_fsm.q.val() == self.fsm_gen.val()) & self.rtx_end.val() {
            self.req_fsm.d.next = self.fsm_idle.val();
        }
        self.sq_q.m_ready.next = false;
        // a new message is recorded by the completion side (in its QP's ring) before its first
        // packet goes out, so no ACK can come before its record
        self.sent_valid.next = self.req_fsm.q.val() == self.fsm_rec.val();
        // a hint a cycle ahead (the look-up of a message that may need a record, with its QPN on
        // `sent`), so the completion side reads the QP's ring state in time to take the record
        // in the message's first `rec` cycle
        self.sent_soon.next = (self.req_fsm.q.val() == self.fsm_look.val()) & ((!self.r_rtx.q.val() & !self.r_resume.q.val()) | (self.r_resume.q.val() & self.r_unrec.q.val()));
        self.sent.next.wr_id = self.r_wr.q.val().wr_id;
        self.sent.next.op = self.r_wr.q.val().op;
        self.sent.next.qpn = self.r_wr.q.val().qpn;
        self.sent.next.first_psn = self.r_psn.q.val();
        self.sent.next.last_psn = self.r_psn.q.val() + self.r_npkts.val() - self.c1_24.val();
        self.sent.next.laddr = self.r_wr.q.val().laddr;
        self.sent.next.raddr = self.r_wr.q.val().raddr;
        self.sent.next.rkey = self.r_wr.q.val().rkey;
        self.sent.next.len = self.r_wr.q.val().len;
        self.sent.next.signaled = self.r_wr.q.val().signaled;
        self.sent.next.pmtu = self.r_pmtu_code.val();
        self.sent.next.flush = false;
        // look: a request from the SQ or the parking FIFO keeps its QP's order, and is parked
        // when its first packet is outside the QP's window
        self.l_new.next = !self.r_rtx.q.val() & (self.r_def.q.val() | !self.r_resume.q.val());
        self.l_beh_rd_unused_low.next = self.psn_rd.val() - self.una2_d.val();
        self.l_beh_r_unused_low.next = self.r_psn.q.val() - self.una2_d.val();
        self.l_dend_rd_unused_low.next = self.psn_rd.val() - self.una2_end.val();
        self.l_dend_r_unused_low.next = self.r_psn.q.val() - self.una2_end.val();
        self.l_out.next = !(self.l_dend_r_unused_low.val().get_bit(23) & !self.l_beh_r_unused_low.val().get_bit(23));
        if !self.r_rtx.q.val() & !self.r_resume.q.val() {
            self.l_out.next = !(self.l_dend_rd_unused_low.val().get_bit(23) & !self.l_beh_rd_unused_low.val().get_bit(23));
        }
        self.l_park.next = (!self.r_def.q.val() & (self.dhead_ram.rdata.val() != self.dtail_ram.rdata.val()))
            | (self.r_def.q.val() & (self.r_seq.q.val() != self.dhead_ram.rdata.val()))
            | ((self.r_state.val() == self.c_rts.val()) & !self.err_ram.rdata.val().any() & self.una2_busy.val()
                & self.l_out.val());
        if self.req_fsm.q.val() == self.fsm_look.val() {
            if !self.r_rtx.q.val() & !self.r_resume.q.val() {
                self.r_psn.d.next = self.psn_rd.val();
                self.r_addr.d.next = self.r_wr.q.val().laddr;
                self.r_left.d.next = self.r_wr.q.val().len;
                self.r_first.d.next = true;
            }
            self.r_lim.d.next = self.psn_rd.val();
            self.req_fsm.d.next = self.fsm_gen.val();
            if (!self.r_rtx.q.val() & !self.r_resume.q.val()) | (self.r_resume.q.val() & self.r_unrec.q.val()) {
                self.req_fsm.d.next = self.fsm_rec.val();
            }
            if (self.r_state.val() != self.c_rts.val()) | self.err_ram.rdata.val().any() {
                // not in RTS: new work completes as flushed, a retransmission is dropped
                self.req_fsm.d.next = self.fsm_flush.val();
                if self.r_rtx.q.val() | (self.r_resume.q.val() & !self.r_unrec.q.val()) {
                    // a retransmission, or a request already recorded (and flushed by the
                    // completion side), is dropped
                    self.req_fsm.d.next = self.fsm_idle.val();
                }
            }
            // (the park decision comes last, below)
        }
        if (self.req_fsm.q.val() == self.fsm_rec.val()) & self.sent_take.val() {
            self.req_fsm.d.next = self.fsm_gen.val();
        }
        if self.req_fsm.q.val() == self.fsm_flush.val() {
            // the QP is not in RTS: nothing goes out, the message completes as flushed
            self.sent.next.flush = true;
            self.sent.next.first_psn = self.r_psn.q.val();
            self.sent.next.last_psn = self.r_psn.q.val();
            self.sent_valid.next = true;
            if self.sent_ready.val() {
                self.req_fsm.d.next = self.fsm_idle.val();
            }
        }
        // ------------------------------------------------ READ responder
        self.j_pmtu.next = bit_cast::<32, 16>(self.j_pm.q.val());
        self.j_last.next = self.jg_last.q.val();
        self.j_desc.next.qpn = self.j_job.q.val().qpn;
        self.j_desc.next.psn = self.j_psn.q.val();
        self.j_desc.next.va = self.j_job.q.val().va;
        self.j_desc.next.rkey = self.c0_32.val();
        self.j_desc.next.dma_len = self.j_job.q.val().len;
        self.j_desc.next.syndrome = self.syn_ack.val();
        self.j_desc.next.msn = self.j_job.q.val().msn;
        self.j_desc.next.laddr = self.j_addr.q.val();
        self.j_desc.next.ackreq = false;
        self.j_desc.next.rsp = true;
        self.j_desc.next.plen = bit_cast::<16, 32>(self.j_pmtu.val());
        if self.j_last.val() {
            self.j_desc.next.plen = bit_cast::<16, 32>(self.j_left.q.val());
        }
        // a first answer is copied to the buffer's response half; a duplicate is answered from
        // those copies when the responder found them all still there, else from host memory
        // (and not copied: its older PSNs' slots may hold newer responses by now)
        self.j_desc.next.rb = self.j_job.q.val().rb & self.j_desc.val().plen.any();
        self.j_desc.next.cp = !self.j_job.q.val().again & self.j_desc.val().plen.any();
        self.j_desc.next.opcode = self.o_rm.val();
        if self.j_first.q.val() & self.j_last.val() {
            self.j_desc.next.opcode = self.o_ro.val();
        } else if self.j_first.q.val() {
            self.j_desc.next.opcode = self.o_rf.val();
        } else if self.j_last.val() {
            self.j_desc.next.opcode = self.o_rl.val();
        }
        // the next response, in order: an ACK/NAK, or a READ to stream
        self.rsp_fifo.m_axis.tready.next = !self.j_active.q.val() & !self.a_pend.q.val();
        self.j_pm_new.next = self.c256.val() << bit_cast::<16, 3>(self.rsp_out.fields.val().pmtu);
        if !self.j_active.q.val() & !self.a_pend.q.val() & self.rsp_fifo.m_axis.tvalid.val() {
            if self.rsp_out.fields.val().read {
                self.j_job.d.next = self.rsp_out.fields.val();
                self.j_pm.d.next = self.j_pm_new.val();
                self.j_pmask.d.next = self.c0_24.val() - bit_cast::<24, 16>(self.j_pm_new.val());
                self.jg_last.d.next = self.rsp_out.fields.val().len <= bit_cast::<32, 16>(self.j_pm_new.val());
                self.j_nz.d.next = self.rsp_out.fields.val().len.any();
                self.j_addr.d.next = self.rsp_out.fields.val().va;
                self.j_left.d.next = self.rsp_out.fields.val().len;
                self.j_psn.d.next = self.rsp_out.fields.val().psn;
                self.j_first.d.next = true;
                self.j_active.d.next = true;
            } else {
                self.a_item.d.next = self.rsp_out.fields.val();
                self.a_pend.d.next = true;
            }
        }
        if self.j_take.val() {
            self.j_psn.d.next = self.j_psn.q.val() + self.c1_24.val();
            self.j_addr.d.next = self.j_addr.q.val() + bit_cast::<64, 16>(self.j_desc.val().plen);
            self.j_left.d.next = self.j_left.q.val() - bit_cast::<32, 16>(self.j_desc.val().plen);
            self.jg_last.d.next = self.j_left.q.val() <= (self.j_pmtu.val() << 1);
            self.j_nz.d.next = true;
            self.j_first.d.next = false;
            if self.j_last.val() {
                self.j_active.d.next = false;
            }
        }
        // ------------------------------------------------ ACK generator
        self.a_desc.next.opcode = self.o_ack.val();
        self.a_desc.next.qpn = self.a_item.q.val().qpn;
        self.a_desc.next.psn = self.a_item.q.val().psn;
        self.a_desc.next.ackreq = false;
        self.a_desc.next.rb = false;
        self.a_desc.next.cp = false;
        self.a_desc.next.rsp = false;
        self.a_desc.next.va = self.c0_64.val();
        self.a_desc.next.rkey = self.c0_32.val();
        self.a_desc.next.dma_len = self.c0_32.val();
        self.a_desc.next.syndrome = self.a_item.q.val().syndrome;
        self.a_desc.next.msn = self.a_item.q.val().msn;
        self.a_desc.next.plen = self.c0_16.val();
        self.a_desc.next.laddr = self.c0_64.val();
        // ------------------------------------------------ arbiter: ACK > READ response > request
        self.pick.next = self.r_desc.val();
        if self.a_pend.q.val() {
            self.pick.next = self.a_desc.val();
        } else if self.j_active.q.val() {
            self.pick.next = self.j_desc.val();
        }
        // a packet goes when the descriptor FIFO has room and, with a payload, its fetch queue
        // (the buffer's or the host's) has room and the payload stays within the budget. Each
        // candidate's condition is worked out from its own descriptor (an ACK has no payload),
        // and the arbiter's registers pick one: the request's `r_valid` (late: the completion
        // side's `sent_ready`) enters last
        self.j_fit_full.next = (self.room.q.val() & self.j_pmask.q.val()).any();
        self.j_fit_left.next = bit_cast::<24, 32>(self.j_left.q.val()) <= self.room.q.val();
        self.j_fits.next = self.j_fit_full.val();
        if self.j_last.val() {
            self.j_fits.next = self.j_fit_left.val();
        }
        self.r_fit_full.next = (self.room.q.val() & self.g_pmask.q.val()).any();
        self.r_fit_left.next = bit_cast::<24, 32>(self.r_left.q.val()) <= self.room.q.val();
        self.r_fits.next = self.r_fit_full.val();
        if self.r_last.val() {
            self.r_fits.next = self.r_fit_left.val();
        }
        // a PMTU is never 0, so only a last packet can be empty (a READ request always is); with
        // a payload, a descriptor's `rb` is its job's (or its retransmission flag)
        self.j_pay.next = !self.j_last.val() | self.j_nz.q.val();
        self.r_pay.next = (!self.r_last.val() | self.r_left.q.val().any()) & (self.r_wr.q.val().op != self.op_read.val());
        self.df_room.next = self.df_n.n.val() <= self.c255_10.val();
        self.fire_j.next = self.df_room.val()
            & (!self.j_pay.val() | (((self.j_job.q.val().rb & self.rb_rd_q.s_ready.val() & !self.rbp_valid.q.val()) | (!self.j_job.q.val().rb & self.cmd_q.s_ready.val())) & self.j_fits.val()));
        self.fire_r.next = self.df_room.val()
            & (!self.r_pay.val() | (((self.r_rtx.q.val() & self.rb_rd_q.s_ready.val() & !self.rbp_valid.q.val()) | (!self.r_rtx.q.val() & self.cmd_q.s_ready.val())) & self.r_fits.val()));
        self.fire.next = self.r_valid.val() & self.fire_r.val();
        if self.a_pend.q.val() {
            self.fire.next = self.df_room.val();
        } else if self.j_active.q.val() {
            self.fire.next = self.fire_j.val();
        }
        self.a_take.next = self.fire.val() & self.a_pend.q.val();
        self.j_take.next = self.fire.val() & !self.a_pend.q.val() & self.j_active.q.val();
        self.r_take.next = self.fire.val() & !self.a_pend.q.val() & !self.j_active.q.val();
        self.r_adv.next = self.r_take.val() | ((self.req_fsm.q.val() == self.fsm_gen.val()) & self.r_stale.val() & !self.rtx_end.val());
        if self.r_take.val() & !self.r_rtx.q.val() {
            self.r_sent1.d.next = true;
        }
        if self.r_adv.val() {
            self.r_psn.d.next = self.r_psn.q.val() + self.c1_24.val();
            self.r_addr.d.next = self.r_addr.q.val() + bit_cast::<64, 32>(self.r_plen.val());
            self.r_left.d.next = self.r_left.q.val() - self.r_plen.val();
            self.r_first.d.next = false;
            self.g_last.d.next = self.r_left.q.val() <= (bit_cast::<32, 16>(self.r_pmtu.val()) << 1);
            // the QP's next unsent PSN, after every packet
            self.psn_ram.waddr.next = bit_cast::<A, 24>(self.r_wr.q.val().qpn);
            self.psn_ram.wdata.next = self.r_psn.q.val() + self.c1_24.val();
            self.psn_ram.we.next = !self.r_rtx.q.val();
            if self.r_wr.q.val().op == self.op_read.val() {
                self.psn_ram.wdata.next = self.r_psn.q.val() + self.r_npkts.val();
                self.req_fsm.d.next = self.fsm_idle.val();
            } else if self.r_last.val() {
                self.req_fsm.d.next = self.fsm_idle.val();
            }
        }
        if self.a_take.val() {
            self.a_pend.d.next = false;
        }
        // a retransmission pauses a new message between two of its packets: one of another QP,
        // or one still waiting for its record (its QP's ring may be full, and only the
        // retransmission can free it)
        // (a new message whose window is closed is never taken, so that case does not wait on
        // `r_take`)
        self.preempt.next = !self.r_rtx.q.val() & !self.p_valid.q.val() & self.rtx_go.val()
            & (((self.req_fsm.q.val() == self.fsm_gen.val()) & !self.win_ok.val())
                | ((self.req_fsm.q.val() == self.fsm_gen.val()) & (self.rtx.val().qpn != self.r_wr.q.val().qpn) & self.r_sent1.q.val() & !self.r_take.val())
                | ((self.req_fsm.q.val() == self.fsm_rec.val()) & !self.sent_take.val()));
        if self.preempt.val() {
            self.p_valid.d.next = true;
            self.p_wr.d.next = self.r_wr.q.val();
            self.p_addr.d.next = self.r_addr.q.val();
            self.p_left.d.next = self.r_left.q.val();
            self.p_psn.d.next = self.r_psn.q.val();
            self.p_first.d.next = self.r_first.q.val();
            self.p_seq.d.next = self.r_seq.q.val();
            self.r_unrec.d.next = self.req_fsm.q.val() == self.fsm_rec.val();
            self.req_fsm.d.next = self.fsm_idle.val();
        }
        // a started request whose window is full is parked (first in its QP's order again)
        self.g_park.next = (self.req_fsm.q.val() == self.fsm_gen.val()) & !self.r_rtx.q.val() & !self.win_ok.val() & !self.preempt.val();
        if self.g_park.val() {
            self.req_fsm.d.next = self.fsm_idle.val();
            self.dhead_ram.we.next = true;
            self.dhead_ram.wdata.next = self.r_seq.q.val();
        }
        // the next request: from idle, or in the cycle a message's last packet goes (with the
        // send PSN it writes forwarded to the read: `psn_ram` reads write-first); control-plane and error writes
        // wait for idle
        self.g_done.next = self.r_adv.val() & ((self.r_wr.q.val().op == self.op_read.val()) | self.r_last.val());
        self.disp.next = (self.req_fsm.q.val() == self.fsm_idle.val()) | (self.g_done.val() & !self.ctl_req.val() & !self.err_valid.val());
        if self.disp.val() {
            if self.ctl_req.val() {
                self.cfg_ram.we.next = true;
                self.psn_ram.we.next = true;
                self.pmtu_ram.we.next = true;
                self.err_ram.we.next = true;
                self.ctl_done.next = true;
            } else if self.err_valid.val() {
                self.err_ready.next = true;
                self.err_ram.waddr.next = self.err_qpn.val();
                self.err_ram.wdata.next = true.into();
                self.err_ram.we.next = true;
            } else if self.rtx_go.val() {
                self.rtx_hold.d.next = self.rtx.val().last;
                self.rtx_ready.next = true;
                self.r_resume.d.next = false;
                self.r_wr.d.next.wr_id = self.rtx.val().wr_id;
                self.r_wr.d.next.op = self.rtx.val().op;
                self.r_wr.d.next.qpn = self.rtx.val().qpn;
                self.r_wr.d.next.laddr = self.rtx.val().laddr;
                // the replay starts `off` bytes into its message (worked out by the completion side)
                self.r_wr.d.next.raddr = self.rtx.val().raddr + bit_cast::<64, 32>(self.rtx.val().off);
                self.r_wr.d.next.rkey = self.rtx.val().rkey;
                self.r_wr.d.next.len = self.rtx.val().len - self.rtx.val().off;
                self.r_wr.d.next.signaled = false;
                self.r_psn.d.next = self.rtx.val().start_psn;
                self.r_addr.d.next = self.rtx.val().laddr + bit_cast::<64, 32>(self.rtx.val().off);
                self.r_left.d.next = self.rtx.val().len - self.rtx.val().off;
                self.r_first.d.next = self.rtx.val().first;
                self.r_rtx.d.next = true;
                self.r_def.d.next = false;
                self.rtx_busy.d.next = !self.rtx.val().last;
                self.psn_ram.re.next = true;
                self.pmtu_ram.re.next = true;
                self.err_ram.re.next = true;
                self.req_fsm.d.next = self.fsm_look.val();
            } else if self.p_valid.q.val() & !self.rtx_busy.q.val() {
                // resume the paused message
                self.rtx_hold.d.next = false;
                self.r_sent1.d.next = false;
                self.r_def.d.next = false;
                self.r_seq.d.next = self.p_seq.q.val();
                self.r_wr.d.next = self.p_wr.q.val();
                self.r_addr.d.next = self.p_addr.q.val();
                self.r_left.d.next = self.p_left.q.val();
                self.r_psn.d.next = self.p_psn.q.val();
                self.r_first.d.next = self.p_first.q.val();
                self.r_rtx.d.next = false;
                self.r_resume.d.next = true;
                self.p_valid.d.next = false;
                self.psn_ram.re.next = true;
                self.pmtu_ram.re.next = true;
                self.err_ram.re.next = true;
                self.req_fsm.d.next = self.fsm_look.val();
            } else if self.i_dq.val() {
                // a parked request: started ones go on where they stopped
                self.dq.m_axis.tready.next = true;
                self.rtx_hold.d.next = false;
                self.r_sent1.d.next = false;
                self.r_wr.d.next = self.dq_wr_out.fields.val();
                self.r_addr.d.next = self.dq_st_out.fields.val().addr;
                self.r_left.d.next = self.dq_st_out.fields.val().left;
                self.r_psn.d.next = self.dq_st_out.fields.val().psn;
                self.r_first.d.next = self.dq_st_out.fields.val().first;
                self.r_resume.d.next = self.dq_st_out.fields.val().started;
                self.r_seq.d.next = self.dq_st_out.fields.val().seq;
                self.r_unrec.d.next = false;
                self.r_rtx.d.next = false;
                self.r_def.d.next = true;
                self.prefer_parked.d.next = false;
                self.psn_ram.re.next = true;
                self.pmtu_ram.re.next = true;
                self.err_ram.re.next = true;
                self.req_fsm.d.next = self.fsm_look.val();
            } else if self.i_sq.val() {
                self.sq_q.m_ready.next = true;
                self.rtx_hold.d.next = false;
                self.r_sent1.d.next = false;
                self.r_def.d.next = false;
                self.prefer_parked.d.next = true;
                self.r_rtx.d.next = false;
                self.r_resume.d.next = false;
                self.r_wr.d.next = self.sq_q.m_data.val();
                self.psn_ram.re.next = true;
                self.pmtu_ram.re.next = true;
                self.err_ram.re.next = true;
                self.req_fsm.d.next = self.fsm_look.val();
            }
        }
        self.dq_wr_in.fields.next = self.r_wr.q.val();
        self.dq_st_in.fields.next.addr = self.r_addr.q.val();
        self.dq_st_in.fields.next.left = self.r_left.q.val();
        self.dq_st_in.fields.next.psn = self.r_psn.q.val();
        self.dq_st_in.fields.next.first = self.r_first.q.val();
        self.dq_st_in.fields.next.started = self.r_resume.q.val() | (self.req_fsm.q.val() == self.fsm_gen.val());
        self.dq_st_in.fields.next.seq = self.r_seq.q.val();
        if (self.req_fsm.q.val() == self.fsm_look.val()) & !self.r_def.q.val() {
            self.dq_st_in.fields.next.seq = self.dtail_ram.rdata.val();
        }
        self.dq.s_axis.tdata.next = bit_cast::<379, 251>(self.dq_wr_in.bits.val()) | (bit_cast::<379, 128>(self.dq_st_in.bits.val()) << 251);
        self.dq.s_axis.tkeep.next = true.into();
        self.dq.s_axis.tlast.next = true;
        self.dq.s_axis.tuser.next = false;
        self.dq.s_axis.tvalid.next = self.g_park.val() | ((self.req_fsm.q.val() == self.fsm_look.val()) & self.l_new.val() & self.l_park.val());
        self.dq_pop.next = self.dq.m_axis.tvalid.val() & self.dq.m_axis.tready.val();
        self.dq_n.push.next = self.dq.s_axis.tvalid.val();
        self.dq_n.pop.next = self.dq_pop.val();
        self.desc_in.fields.next = self.pick.val();
        self.desc_fifo.s_axis.tdata.next = self.desc_in.bits.val();
        self.desc_fifo.s_axis.tkeep.next = true.into();
        self.desc_fifo.s_axis.tlast.next = true;
        self.desc_fifo.s_axis.tuser.next = false;
        self.desc_fifo.s_axis.tvalid.next = self.fire.val();
        self.cmd_q.s_data.next.addr = self.pick.val().laddr;
        self.cmd_q.s_data.next.len = bit_cast::<32, 16>(self.pick.val().plen);
        self.cmd_q.s_data.next.tag = self.pick.val().qpn;
        self.cmd_q.s_valid.next = self.fire.val() & self.pick.val().plen.any() & !self.pick.val().rb;
        // the packet's slot in the retransmission buffer: QPN * 16 + PSN mod 16, 4 KiB each
        self.p_qpn.next = bit_cast::<A, 24>(self.pick.val().qpn);
        self.pick_slot.next = self.pick.val().psn & self.c15_24.val();
        self.pick_addr.next = (bit_cast::<64, A>(self.p_qpn.val()) << 16) | (bit_cast::<64, 24>(self.pick_slot.val()) << 12);
        if self.pick.val().rsp {
            self.pick_addr.next = self.pick_addr.val() | self.c_rsp_half.val();
        }
        // a read of the buffer: its slot's last copy number is looked up, then it is queued
        // (a cycle later) to wait for that copy; a copy more than 1024 back is surely written
        // (fewer copies than that are ever in flight)
        self.pick_s4.next = self.pick_slot.val().get_bits::<4>(0);
        self.slot_idx.next = (bit_cast::<R, A>(self.p_qpn.val()) << 4) | bit_cast::<R, 4>(self.pick_s4.val());
        self.cps_ram.raddr.next = self.slot_idx.val();
        self.cps_ram.re.next = true;
        self.cps_ram.oce.next = false;
        self.cps_ram.waddr.next = self.slot_idx.val();
        self.cps_ram.wdata.next = self.cp_fired.q.val();
        self.cps_ram.we.next = self.fire.val() & self.pick.val().cp & !self.pick.val().rsp;
        self.cps_rsp_ram.raddr.next = self.slot_idx.val();
        self.cps_rsp_ram.re.next = true;
        self.cps_rsp_ram.oce.next = false;
        self.cps_rsp_ram.waddr.next = self.slot_idx.val();
        self.cps_rsp_ram.wdata.next = self.cp_fired.q.val();
        self.cps_rsp_ram.we.next = self.fire.val() & self.pick.val().cp & self.pick.val().rsp;
        self.rbp_rsp.d.next = self.pick.val().rsp;
        self.cps_last.next = self.cps_ram.rdata.val();
        if self.rbp_rsp.q.val() {
            self.cps_last.next = self.cps_rsp_ram.rdata.val();
        }
        self.rbp_valid.d.next = self.fire.val() & self.pick.val().rb;
        self.rbp.d.next.addr = self.pick_addr.val();
        self.rbp.d.next.alen = bit_cast::<8, 16>((self.pick.val().plen - self.c1_16.val()) >> 6);
        // (here: the copies chosen so far; the queued burst's `need` is computed from it)
        self.rbp.d.next.need = self.cp_fired.q.val();
        self.rbp_d.next = self.rbp.q.val().need - self.cps_last.val();
        self.rb_rd_q.s_data.next.addr = self.rbp.q.val().addr;
        self.rb_rd_q.s_data.next.alen = self.rbp.q.val().alen;
        self.rb_rd_q.s_data.next.need = self.cps_last.val() + self.c1_16.val();
        if self.rbp_d.val() > self.c1024.val() {
            self.rb_rd_q.s_data.next.need = self.rbp.q.val().need - self.c1024.val();
        }
        self.rb_rd_q.s_valid.next = self.rbp_valid.q.val();
        if self.fire.val() & self.pick.val().cp {
            self.cp_fired.d.next = self.cp_fired.q.val() + self.c1_16.val();
        }
        if self.a_take.val() {
            self.count_acks.d.next = self.count_acks.q.val() + 1;
        }
        if self.j_take.val() {
            self.count_read_resp.d.next = self.count_read_resp.q.val() + 1;
        }
        if self.r_take.val() {
            self.count_requests.d.next = self.count_requests.q.val() + 1;
            if self.r_rtx.q.val() {
                self.count_retransmits.d.next = self.count_retransmits.q.val() + 1;
            } else if self.r_last.val() | (self.r_wr.q.val().op == self.op_read.val()) {
                self.count_messages.d.next = self.count_messages.q.val() + 1;
            }
        }
        // ------------------------------------------------ addressing
        self.desc_out.bits.next = self.desc_fifo.m_axis.tdata.val();
        self.x_qpn.next = bit_cast::<A, 24>(self.desc_out.fields.val().qpn);
        self.cfg_ram.raddr.next = self.x_qpn.val();
        self.cfg_out.bits.next = self.cfg_ram.rdata.val();
        // the payload's metadata, for the TX slot
        self.x_pay.next = self.x_desc.q.val().plen.any();
        self.x_meta.next.qpn = self.x_desc.q.val().qpn;
        self.x_meta.next.psn = self.x_desc.q.val().psn;
        self.x_meta.next.opcode = self.x_desc.q.val().opcode;
        self.x_meta.next.off = self.c0_16.val();
        self.meta_in.fields.next = self.x_meta.val();
        self.meta_q.s_axis.tdata.next = self.meta_in.bits.val();
        self.meta_q.s_axis.tkeep.next = true.into();
        self.meta_q.s_axis.tlast.next = true;
        self.meta_q.s_axis.tuser.next = false;
        self.desc_fifo.m_axis.tready.next = false;
        self.hdr_q.s_valid.next = false;
        self.x_go.next = false;
        self.df_pop.next = false;
        if !self.addr_read_issued.q.val() {
            if self.desc_fifo.m_axis.tvalid.val() {
                self.desc_fifo.m_axis.tready.next = true;
                self.df_pop.next = true;
                self.x_desc.d.next = self.desc_out.fields.val();
                self.cfg_ram.re.next = true;
                self.addr_read_issued.d.next = true;
            }
        } else if self.hdr_q.s_ready.val() & (!self.x_pay.val() | (self.meta_q.s_axis.tready.val() & self.src_q.s_axis.tready.val())) {
            self.hdr_q.s_valid.next = true;
            self.x_go.next = true;
            self.count_frames.d.next = self.count_frames.q.val() + 1;
            self.addr_read_issued.d.next = false;
        }
        self.meta_q.s_axis.tvalid.next = self.x_go.val() & self.x_pay.val();
        // and where it comes from and goes to
        self.rb_qpn.next = bit_cast::<A, 24>(self.x_desc.q.val().qpn);
        self.x_src.next.rb = self.x_desc.q.val().rb;
        self.x_src.next.cp = self.x_desc.q.val().cp;
        self.x_slot.next = self.x_desc.q.val().psn & self.c15_24.val();
        self.x_src.next.addr = (bit_cast::<64, A>(self.rb_qpn.val()) << 16) | (bit_cast::<64, 24>(self.x_slot.val()) << 12);
        if self.x_desc.q.val().rsp {
            self.x_src.next.addr = self.x_src.val().addr | self.c_rsp_half.val();
        }
        self.x_src.next.alen = bit_cast::<8, 16>((self.x_desc.q.val().plen - self.c1_16.val()) >> 6);
        self.x_src.next.plen = self.x_desc.q.val().plen;
        self.src_in.fields.next = self.x_src.val();
        self.src_q.s_axis.tdata.next = self.src_in.bits.val();
        self.src_q.s_axis.tkeep.next = true.into();
        self.src_q.s_axis.tlast.next = true;
        self.src_q.s_axis.tuser.next = false;
        self.src_q.s_axis.tvalid.next = self.x_go.val() & self.x_pay.val();
        // less what was chosen, plus what went to the deparser last cycle
        self.room_ret.d.next = self.c0_24.val();
        if self.x_go.val() {
            self.room_ret.d.next = bit_cast::<24, 16>(self.x_desc.q.val().plen);
        }
        self.room_keep.next = self.room.q.val() + self.room_ret.q.val();
        self.room_fire.next = self.room_keep.val() - bit_cast::<24, 16>(self.pick.val().plen);
        self.room.d.next = self.room_keep.val();
        if self.fire.val() {
            self.room.d.next = self.room_fire.val();
        }
        self.x_hdr.next.opcode = self.x_desc.q.val().opcode;
        self.x_hdr.next.se = false;
        self.x_hdr.next.ackreq = self.x_desc.q.val().ackreq;
        self.x_hdr.next.pkey = self.cfg_out.fields.val().pkey;
        self.x_hdr.next.dqpn = self.cfg_out.fields.val().remote_qpn;
        self.x_hdr.next.psn = self.x_desc.q.val().psn;
        self.x_hdr.next.va = self.x_desc.q.val().va;
        self.x_hdr.next.rkey = self.x_desc.q.val().rkey;
        self.x_hdr.next.dma_len = self.x_desc.q.val().dma_len;
        self.x_hdr.next.syndrome = self.x_desc.q.val().syndrome;
        self.x_hdr.next.msn = self.x_desc.q.val().msn;
        self.x_hdr.next.ipv6 = self.cfg_out.fields.val().ipv6;
        self.x_hdr.next.src_ip = self.local_ip.val();
        self.x_hdr.next.dst_ip = self.cfg_out.fields.val().remote_ip;
        self.x_hdr.next.src_mac = self.local_mac.val();
        self.x_hdr.next.dst_mac = self.cfg_out.fields.val().remote_mac;
        self.x_hdr.next.udp_sport = self.cfg_out.fields.val().udp_sport;
        self.x_hdr.next.dscp = self.cfg_out.fields.val().dscp;
        self.x_hdr.next.ecn = self.ecn_ect0.val();
        self.x_hdr.next.ttl = self.cfg_out.fields.val().ttl;
        self.x_hdr.next.flow = self.zero_flow.val();
        self.x_hdr.next.plen = self.x_desc.q.val().plen;
        self.hdr_q.s_data.next = self.x_hdr.val();
        self.build.hdr.next = self.hdr_q.m_data.val();
        self.build.hdr_valid.next = self.hdr_q.m_valid.val();
        self.hdr_q.m_ready.next = self.build.hdr_ready.val();
        // payload: DMA read or the retransmission buffer → TX slot (with its packet's metadata)
        // → deparser; a first transmission's payload is copied to the buffer on the way
        self.meta_out.bits.next = self.meta_q.m_axis.tdata.val();
        self.src_out.bits.next = self.src_q.m_axis.tdata.val();
        self.slot.s_meta.next = self.meta_out.fields.val();
        self.slot.cfg.next = self.svc_cfg.val();
        self.slot.rx.next = false;
        self.svc_gen.next = self.slot.gen.val();
        self.sel_rb.next = self.src_out.fields.val().rb;
        self.src_copy.next = self.src_out.fields.val().cp;
        // the buffer's beats are full but the last (plen mod 64 bytes, if not 0)
        self.rb_n.next = bit_cast::<7, 16>(self.src_out.fields.val().plen & self.c63_16.val());
        self.rb_lastb.next = self.rb_beat.q.val() == self.src_out.fields.val().alen;
        self.rb_keep.next = self.c_all64.val();
        self.rb_sh.next = self.c64_7.val() - self.rb_n.val();
        if self.rb_lastb.val() & self.rb_n.val().any() {
            self.rb_keep.next = self.c_all64.val() >> bit_cast::<64, 7>(self.rb_sh.val());
        }
        self.in_valid.next = self.s_axis_dma_rd.tvalid.val();
        self.in_last.next = self.s_axis_dma_rd.tlast.val();
        self.in_keep.next = self.s_axis_dma_rd.tkeep.val();
        self.in_data.next = self.s_axis_dma_rd.tdata.val();
        if self.sel_rb.val() {
            self.in_valid.next = self.m_axi_rb.rvalid.val();
            self.in_last.next = self.rb_lastb.val();
            self.in_keep.next = self.rb_keep.val();
            self.in_data.next = self.m_axi_rb.rdata.val();
        }
        self.pay_src_valid.next = self.meta_q.m_axis.tvalid.val() & self.src_q.m_axis.tvalid.val();
        // the copy FIFO holds 32 in RAM: at most 31 beats in it (output stage included) leave
        // room for one more
        self.rbw_room.next = self.rbw_n.n.val() <= self.c31_6.val();
        self.cp_ok.next = !self.src_copy.val() | (self.rbw_room.val() & (!self.pay_first.q.val() | self.rb_aw_q.s_ready.val()));
        self.slot.s_axis.tdata.next = self.in_data.val();
        self.slot.s_axis.tkeep.next = self.in_keep.val();
        self.slot.s_axis.tlast.next = self.in_last.val();
        self.slot.s_axis.tuser.next = self.s_axis_dma_rd.tuser.val() & !self.sel_rb.val();
        self.slot.s_axis.tvalid.next = self.in_valid.val() & self.pay_src_valid.val() & self.cp_ok.val();
        self.pay_skid.s_axis.tdata.next = self.in_data.val();
        self.pay_skid.s_axis.tkeep.next = self.in_keep.val();
        self.pay_skid.s_axis.tlast.next = self.in_last.val();
        self.pay_skid.s_axis.tuser.next = self.s_axis_dma_rd.tuser.val() & !self.sel_rb.val();
        self.pay_skid.s_axis.tvalid.next = self.in_valid.val() & self.pay_src_valid.val() & self.cp_ok.val();
        self.sl_ready.next = self.pay_skid.s_axis.tready.val();
        if self.slot_on.val() {
            self.sl_ready.next = self.slot.s_axis.tready.val();
        }
        self.acc.next = self.in_valid.val() & self.pay_src_valid.val() & self.cp_ok.val() & self.sl_ready.val();
        self.s_axis_dma_rd.tready.next = !self.sel_rb.val() & self.pay_src_valid.val() & self.cp_ok.val() & self.sl_ready.val();
        self.m_axi_rb.rready.next = self.sel_rb.val() & self.pay_src_valid.val() & self.cp_ok.val() & self.sl_ready.val();
        self.meta_q.m_axis.tready.next = self.acc.val() & self.in_last.val();
        self.src_q.m_axis.tready.next = self.acc.val() & self.in_last.val();
        if self.acc.val() {
            self.pay_first.d.next = self.in_last.val();
            self.rb_beat.d.next = self.rb_beat.q.val() + self.c1_8.val();
            if self.in_last.val() {
                self.rb_beat.d.next = self.c0_8.val();
            }
        }
        // ------------------------------------------------ retransmission buffer (AXI4)
        self.rb_w.s_axis.tdata.next = self.in_data.val();
        self.rb_w.s_axis.tkeep.next = self.in_keep.val();
        self.rb_w.s_axis.tlast.next = self.in_last.val();
        self.rb_w.s_axis.tuser.next = false;
        self.rb_w.s_axis.tvalid.next = self.acc.val() & self.src_copy.val();
        self.rb_aw_q.s_data.next.addr = self.src_out.fields.val().addr;
        self.rb_aw_q.s_data.next.alen = self.src_out.fields.val().alen;
        self.rb_aw_q.s_data.next.need = self.c0_16.val();
        self.rb_aw_q.s_valid.next = self.acc.val() & self.src_copy.val() & self.pay_first.q.val();
        self.m_axi_rb.awaddr.next = self.rb_aw_q.m_data.val().addr;
        self.m_axi_rb.awlen.next = self.rb_aw_q.m_data.val().alen;
        self.m_axi_rb.awsize.next = self.c_size64.val();
        self.m_axi_rb.awburst.next = self.c_incr.val();
        self.m_axi_rb.awvalid.next = self.rb_aw_q.m_valid.val();
        self.rb_aw_q.m_ready.next = self.m_axi_rb.awready.val();
        self.m_axi_rb.wdata.next = self.rb_w.m_axis.tdata.val();
        self.m_axi_rb.wstrb.next = self.rb_w.m_axis.tkeep.val();
        self.m_axi_rb.wlast.next = self.rb_w.m_axis.tlast.val();
        self.m_axi_rb.wvalid.next = self.rb_w.m_axis.tvalid.val();
        self.rb_w.m_axis.tready.next = self.m_axi_rb.wready.val();
        self.rbw_pop.next = self.rb_w.m_axis.tvalid.val() & self.m_axi_rb.wready.val();
        self.rbw_n.push.next = self.rb_w.s_axis.tvalid.val();
        self.rbw_n.pop.next = self.rbw_pop.val();
        self.df_n.push.next = self.fire.val();
        self.df_n.pop.next = self.df_pop.val();
        self.m_axi_rb.bready.next = true;
        if self.m_axi_rb.bvalid.val() {
            self.cp_done.d.next = self.cp_done.q.val() + self.c1_16.val();
            self.count_rb_writes.d.next = self.count_rb_writes.q.val() + 1;
        }
        // a read goes once the last copy to its slot is written
        self.cp_gap.next = self.cp_done.q.val() - self.rb_rd_q.m_data.val().need;
        self.ar_ok.next = self.cp_gap.val() < self.c_half16.val();
        self.m_axi_rb.araddr.next = self.rb_rd_q.m_data.val().addr;
        self.m_axi_rb.arlen.next = self.rb_rd_q.m_data.val().alen;
        self.m_axi_rb.arsize.next = self.c_size64.val();
        self.m_axi_rb.arburst.next = self.c_incr.val();
        self.m_axi_rb.arvalid.next = self.rb_rd_q.m_valid.val() & self.ar_ok.val();
        self.rb_rd_q.m_ready.next = self.m_axi_rb.arready.val() & self.ar_ok.val();
        if self.m_axi_rb.arvalid.val() & self.m_axi_rb.arready.val() {
            self.count_rb_reads.d.next = self.count_rb_reads.q.val() + 1;
        }
        self.build.s_axis.tdata.next = self.slot.m_axis.tdata.val();
        self.build.s_axis.tkeep.next = self.slot.m_axis.tkeep.val();
        self.build.s_axis.tlast.next = self.slot.m_axis.tlast.val();
        self.build.s_axis.tuser.next = self.slot.m_axis.tuser.val();
        self.build.s_axis.tvalid.next = self.slot.m_axis.tvalid.val();
        self.slot.m_axis.tready.next = self.build.s_axis.tready.val();
        self.pay_skid.m_axis.tready.next = false;
        if !self.slot_on.val() {
            self.build.s_axis.tdata.next = self.pay_skid.m_axis.tdata.val();
            self.build.s_axis.tkeep.next = self.pay_skid.m_axis.tkeep.val();
            self.build.s_axis.tlast.next = self.pay_skid.m_axis.tlast.val();
            self.build.s_axis.tuser.next = self.pay_skid.m_axis.tuser.val();
            self.build.s_axis.tvalid.next = self.pay_skid.m_axis.tvalid.val();
            self.pay_skid.m_axis.tready.next = self.build.s_axis.tready.val();
            self.slot.m_axis.tready.next = false;
        }
        self.slot_overrun.next = 0.into();
        if self.slot_on.val() {
            self.slot_overrun.next = self.slot.overrun.val();
        }
        // to the MAC, cut through: a frame starts once `start` beats of it are here; one that
        // runs dry ends with an abort beat (bad FCS on the wire; the transport resends it)
        self.out_fifo.s_axis.tdata.next = self.build.m_axis.tdata.val();
        self.out_fifo.s_axis.tkeep.next = self.build.m_axis.tkeep.val();
        self.out_fifo.s_axis.tlast.next = self.build.m_axis.tlast.val();
        self.out_fifo.s_axis.tuser.next = self.build.m_axis.tuser.val();
        self.out_fifo.s_axis.tvalid.next = self.build.m_axis.tvalid.val();
        self.build.m_axis.tready.next = self.out_fifo.s_axis.tready.val();
        Axis512Source::link(&mut self.m_axis_tx, &mut self.out_fifo.m_axis);
        // look, a new request: parked, or out of its QP's parked order. Assigned after every
        // other write of the same registers and RAM ports (none of which is active in look), so
        // that the park decision, at the end of the window compare on the RAMs' outputs, is one
        // select in front of them (LUT depth).
        if (self.req_fsm.q.val() == self.fsm_look.val()) & self.l_new.val() {
            if self.l_park.val() {
                self.req_fsm.d.next = self.fsm_idle.val();
                if !self.r_def.q.val() {
                    self.dtail_ram.we.next = true;
                }
            } else {
                // it leaves its QP's parked order
                self.dhead_ram.we.next = true;
                self.dhead_ram.wdata.next = self.r_seq.q.val() + self.c1_6.val();
                if !self.r_def.q.val() {
                    self.dhead_ram.wdata.next = self.dtail_ram.rdata.val() + self.c1_6.val();
                    self.dtail_ram.we.next = true;
                    self.r_seq.d.next = self.dtail_ram.rdata.val();
                }
            }
        }
        self.unused.next = self.desc_fifo.level.val().any()
            | self.desc_fifo.m_axis.tkeep.val().any() | self.desc_fifo.m_axis.tlast.val() | self.desc_fifo.m_axis.tuser.val()
            | self.x_desc.q.val().laddr.any() | self.ctl_cfg.val().rkey.any() | self.ctl_cfg.val().mr_base.any()
            | self.ctl_cfg.val().mr_len.any() | self.ctl_cfg.val().access.any()
            | self.ctl_cfg.val().timeout.any() | self.ctl_cfg.val().retry_cnt.any() | self.ctl_cfg.val().min_rnr_timer.any() | self.ctl_cfg.val().rnr_retry.any()
            | self.j_job.q.val().psn.any() | self.j_job.q.val().syndrome.any() | self.j_job.q.val().read
            | self.a_item.q.val().read | self.a_item.q.val().va.any() | self.a_item.q.val().len.any() | self.a_item.q.val().pmtu.any() | self.a_item.q.val().again | self.a_item.q.val().rb
            | self.rsp_fifo.level.val().any()
            | self.rsp_fifo.m_axis.tkeep.val().any() | self.rsp_fifo.m_axis.tlast.val() | self.rsp_fifo.m_axis.tuser.val()
            | self.dq.m_axis.tkeep.val().any() | self.dq.m_axis.tlast.val() | self.dq.m_axis.tuser.val()
            | self.dq.level.val().any() | self.dq.s_axis.tready.val()
            | self.rb_w.level.val().any() | self.rb_w.m_axis.tuser.val() | self.rb_w.s_axis.tready.val() | self.desc_fifo.s_axis.tready.val()
            | self.src_q.level.val().any()
            | self.src_q.m_axis.tkeep.val().any() | self.src_q.m_axis.tlast.val() | self.src_q.m_axis.tuser.val()
            | self.m_axi_rb.bresp.val().any() | self.m_axi_rb.rresp.val().any() | self.m_axi_rb.rlast.val()
            | self.rb_aw_q.m_data.val().need.any() | self.x_desc.q.val().rb | self.x_desc.q.val().cp
            | self.meta_q.level.val().any()
            | self.meta_q.m_axis.tkeep.val().any() | self.meta_q.m_axis.tlast.val() | self.meta_q.m_axis.tuser.val()
            | self.slot.m_meta.val().qpn.any() | self.slot.m_meta.val().psn.any() | self.slot.m_meta.val().off.any() | self.slot.m_meta.val().opcode.any();
        if self.reset.val() {
            self.req_fsm.d.next = self.fsm_idle.val();
            self.j_active.d.next = false;
            self.a_pend.d.next = false;
            self.addr_read_issued.d.next = false;
            self.count_frames.d.next = 0.into();
            self.count_acks.d.next = 0.into();
            self.count_read_resp.d.next = 0.into();
            self.count_requests.d.next = 0.into();
            self.count_messages.d.next = 0.into();
            self.count_retransmits.d.next = 0.into();
            self.room.d.next = self.budget.val();
            self.room_ret.d.next = self.c0_24.val();
            self.p_valid.d.next = false;
            self.r_resume.d.next = false;
            self.rtx_busy.d.next = false;
            self.r_rtx.d.next = false;
            self.r_def.d.next = false;
            self.prefer_parked.d.next = false;
            self.rbp_valid.d.next = false;
            self.cp_fired.d.next = self.c0_16.val();
            self.rtx_hold.d.next = false;
            self.cp_done.d.next = self.c0_16.val();
            self.pay_first.d.next = true;
            self.rb_beat.d.next = self.c0_8.val();
            self.count_rb_writes.d.next = 0.into();
            self.count_rb_reads.d.next = 0.into();
        }
    }
}

pub type RoceTx500 = RoceTx<9, 13, 1, { kind::PASS }, SLOT_A_SHORT>;

nicgen_hdl::impl_ports!(RoceTx500, clock = clock, [clock, reset, sq, sq_valid, sq_ready, rsp, rsp_valid, rsp_ready,
    sent, sent_valid, sent_ready, sent_take, sent_soon, dma_rd_cmd, dma_rd_cmd_valid, dma_rd_cmd_ready,
    s_axis_dma_rd.tdata, s_axis_dma_rd.tkeep, s_axis_dma_rd.tlast, s_axis_dma_rd.tuser, s_axis_dma_rd.tvalid, s_axis_dma_rd.tready,
    m_axis_tx.tdata, m_axis_tx.tkeep, m_axis_tx.tlast, m_axis_tx.tuser, m_axis_tx.tvalid, m_axis_tx.tready,
    una_wr, una_qpn, una_psn, una_open, window,
    m_axi_rb.awaddr, m_axi_rb.awlen, m_axi_rb.awsize, m_axi_rb.awburst, m_axi_rb.awvalid, m_axi_rb.awready,
    m_axi_rb.wdata, m_axi_rb.wstrb, m_axi_rb.wlast, m_axi_rb.wvalid, m_axi_rb.wready, m_axi_rb.bresp, m_axi_rb.bvalid, m_axi_rb.bready,
    m_axi_rb.araddr, m_axi_rb.arlen, m_axi_rb.arsize, m_axi_rb.arburst, m_axi_rb.arvalid, m_axi_rb.arready,
    m_axi_rb.rdata, m_axi_rb.rresp, m_axi_rb.rlast, m_axi_rb.rvalid, m_axi_rb.rready, local_mac, local_ip, ctl_req, ctl_qpn, ctl_cfg, ctl_sq_psn, ctl_state, ctl_done, err_qpn, err_valid, err_ready, rtx, rtx_valid, rtx_ready,
    cnt.frames, cnt.acks, cnt.read_resp, cnt.requests, cnt.messages, cnt.retransmits, cnt.rb_writes, cnt.rb_reads, cnt.underruns, start, start_load, start_now, slot_overrun, svc_cfg, svc_gen]);
