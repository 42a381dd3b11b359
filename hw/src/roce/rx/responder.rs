//! `RoceResponder` (`qp/` state lookup + `rx/dispatch`): checks each parsed request against its
//! QP and acts on it. The QP tables read the QP of the header waiting at the input or, with the
//! input empty, of the one the parser is loading into it (`hdr_pre_qpn`), so its state is there
//! when it arrives; the header is taken with its checks worked out from that state (registered:
//! [`RespChecks`]), decided on in LOOK and acted on in ACT. One header every 3 cycles on one QP
//! (its state written back in ACT reaches the next header's checks through a forwarding
//! register), or every 2 when it is for another QP than the one before (it is taken in the act
//! cycle). With `hdr_pre_valid` tied low, a header that finds the input empty waits one cycle.
//! Payloads move beside it at one beat per cycle. So long packets run at line rate, 64-byte WRITEs at up to
//! 125 Mpps over several QPs (83 Mpps on one), and READ requests (98 bytes on the wire, at most
//! 128 M/s) at 125 M/s.
//!
//! Per header, in this order (the first that applies decides; IBA 9.7 and rxe's order):
//! 1. QPN beyond the table: dropped, `unknown_qp`.
//! 2. QP in RESET or INIT: dropped, `qp_not_ready`. QP in ERROR: dropped, `qp_error`.
//! 3. Response opcodes (ACK, READ RESPONSE, ATOMIC ACK) with transport version 0 and a P_Key
//!    that matches the QP's go to the requester side (`m_resp` header channel, `m_axis_resp`
//!    payload); others are dropped as `malformed` (step 4).
//! 4. Unknown opcode, a pad that does not fit, a transport version other than 0 or a P_Key
//!    that does not match the QP's: dropped, `malformed`.
//! 5. PSN behind the expected one (a duplicate): not executed again, `duplicate`; a WRITE
//!    packet is ACKed again (C9-105), a READ inside an accepted one answered again. PSN ahead: one NAK
//!    0x60 per gap (carrying the expected PSN), then silence; `psn_out_of_window`.
//! 6. Opcode sequence broken (a FIRST must be followed by MIDDLE or LAST of its kind), or a
//!    request this responder does not serve (with immediate, with invalidate, atomics): NAK
//!    0x61, QP to ERROR, `bad_opcode_seq`. A SEND FIRST or ONLY with no RECV posted: RNR NAK
//!    with the QP's `min_rnr_timer`, which also counts as the gap's NAK; nothing else changes,
//!    `rnr_naks`.
//! 7. Length: FIRST and MIDDLE carry exactly PMTU, LAST 1..PMTU, ONLY at most PMTU; the WRITE's
//!    packets add up to the RETH length; a READ REQUEST carries nothing: NAK 0x61, QP to ERROR,
//!    `length_error`.
//! 8. rkey, access right or address range (`[va, va+len)` inside the QP's region) wrong on a
//!    FIRST, ONLY or READ REQUEST with a nonzero length: NAK 0x62, QP to ERROR, `rkey_violation`.
//! 9. Accepted. WRITE: a DMA write command and the payload to host memory; an ACK (0x1F) when
//!    AckReq is set or `ack_every` packets went unacknowledged. READ: a read job for the TX
//!    path, the expected PSN advances by max(1, ceil(len/PMTU)). MSN counts messages.
//!
//! **Speculative placement.** A header with `spec` set comes from a frame the RX buffer cut
//! through (WRITE MIDDLE or LAST, a READ RESPONSE, [`crate::roce::hdr::CUT_OPS`]): its ICRC
//! verdict comes later, on `vd` (one per such header, in order). Its DMA command and payload go
//! out at once (ACT); everything else it decides (the QP's state, the ACK or NAK, the counters)
//! waits in ACT for the verdict and is done only on a good one. A bad frame therefore writes only
//! bytes the good packet of that PSN writes again: its address and length come from the QP's
//! state, which it did not change. A cut-through WRITE FIRST or ONLY (`RX_CUT` bit 2, the
//! default) names its own address in its RETH, so it is **held** instead: it is looked up and
//! checked while its frame still arrives, and its DMA command and payload go only on a good
//! verdict, in the cycle the verdict is taken (a bad one's payload is dropped and nothing of it
//! is written). That is what storing it would do, less the time a stored frame then spends
//! reaching the responder and being looked up. With `reth_early` (`RX_CUT` bit 1) it is placed
//! before its verdict like a MIDDLE. A response goes to the requester at once too, and its verdict
//! after it (`resp_vd`): the requester holds the response's effects in the same way. A payload
//! shorter than its command (a frame cut short) is padded to the command's length (its last
//! beat's `tkeep` from the length, then zero beats), so the DMA engine always gets what it was
//! told.
use crate::roce::hdr::RoceHdr;
use crate::roce::psn_count::PsnCount;
use crate::roce::qp::*;
use crate::roce::{RdRes, RdResFields, RD_RES};
use crate::roce::{cq_status, wr_op, CqEntry, DmaCmd, RecvEnt, RecvWr, RespItem, RECV_RING};
use crate::record::{FromBits, ToBits};
use crate::service::slot::SlotMeta;
use crate::stream::*;
use nicgen_model::opcode as op;
use nicgen_model::OpcodeLayout;
use rust_hdl::prelude::*;

/// Opcode classes of the responder, one-hot (none for an unknown opcode). A SEND packet is in
/// the class of the WRITE packet in its place (FIRST, MIDDLE, LAST, ONLY), with `send` set.
#[derive(LogicBlock, Default)]
pub struct RespOpClass {
    pub op: Signal<In, Bits<8>>,
    pub wr_first: Signal<Out, Bit>,
    pub wr_mid: Signal<Out, Bit>,
    pub wr_last: Signal<Out, Bit>,
    pub wr_only: Signal<Out, Bit>,
    pub rd_req: Signal<Out, Bit>,
    /// Response opcodes, for the requester.
    pub resp: Signal<Out, Bit>,
    /// Known RC request opcodes this responder does not serve.
    pub other: Signal<Out, Bit>,
    /// SEND FIRST, MIDDLE, LAST or ONLY.
    pub send: Signal<Out, Bit>,
}

const RESPONSE_OPS: [u8; 6] = [op::READ_RESP_FIRST, op::READ_RESP_MIDDLE, op::READ_RESP_LAST, op::READ_RESP_ONLY, op::ACK, op::ATOMIC_ACK];

/// Class of an opcode: index of the output set (0..=6), or None.
pub fn op_class(o: u8) -> Option<usize> {
    match o {
        op::WRITE_FIRST | op::SEND_FIRST => Some(0),
        op::WRITE_MIDDLE | op::SEND_MIDDLE => Some(1),
        op::WRITE_LAST | op::SEND_LAST => Some(2),
        op::WRITE_ONLY | op::SEND_ONLY => Some(3),
        op::READ_REQUEST => Some(4),
        _ if RESPONSE_OPS.contains(&o) => Some(5),
        _ if OpcodeLayout::of(o).is_some() => Some(6),
        _ => None,
    }
}

/// The SEND opcodes the responder serves (without immediate data or invalidation).
pub fn is_send(o: u8) -> bool {
    matches!(o, op::SEND_FIRST | op::SEND_MIDDLE | op::SEND_LAST | op::SEND_ONLY)
}

const CLASS_NAMES: [&str; 7] = ["wr_first", "wr_mid", "wr_last", "wr_only", "rd_req", "resp", "other"];

impl Logic for RespOpClass {
    fn update(&mut self) {
        let o: u64 = self.op.val().into();
        let c = op_class(o as u8);
        self.wr_first.next = c == Some(0);
        self.wr_mid.next = c == Some(1);
        self.wr_last.next = c == Some(2);
        self.wr_only.next = c == Some(3);
        self.rd_req.next = c == Some(4);
        self.resp.next = c == Some(5);
        self.other.next = c == Some(6);
        self.send.next = is_send(o as u8);
    }
    fn connect(&mut self) {
        self.wr_first.connect();
        self.wr_mid.connect();
        self.wr_last.connect();
        self.wr_only.connect();
        self.rd_req.connect();
        self.resp.connect();
        self.other.connect();
        self.send.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        let any = |ops: Vec<String>| if ops.is_empty() { "1'b0".to_string() } else { ops.join(" | ") };
        for (i, n) in CLASS_NAMES.iter().enumerate() {
            let ops: Vec<String> = (0..=255u8).filter(|&o| op_class(o) == Some(i)).map(|o| format!("(op == 8'h{o:02x})")).collect();
            v += &format!("assign {n} = {};\n", any(ops));
        }
        let sends: Vec<String> = (0..=255u8).filter(|&o| is_send(o)).map(|o| format!("(op == 8'h{o:02x})")).collect();
        v += &format!("assign send = {};\n", any(sends));
        Verilog::Custom(v)
    }
}

/// What LOOK needs of a header and its QP's state, worked out in the cycle the header is taken
/// (from the header at the input and the tables' outputs) and registered (`checks`), so LOOK's verdict
/// starts from flops and not behind the tables' RAM outputs and their compares.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct RespChecks {
    pub wr_first: Bit,
    pub wr_mid: Bit,
    pub wr_last: Bit,
    pub wr_only: Bit,
    pub rd_req: Bit,
    pub resp: Bit,
    pub other: Bit,
    /// The QPN is inside the table.
    pub qp_ok: Bit,
    /// The QP is in ERROR; in RTR or RTS (`live`).
    pub err: Bit,
    pub live: Bit,
    /// The PSN is behind the expected one (a duplicate); it is not the expected one.
    pub behind: Bit,
    pub psn_ne: Bit,
    pub seq_ok: Bit,
    pub len_ok: Bit,
    /// The access check, in parts (each compare's carry chain straight into its flop, so no
    /// logic waits behind a carry chain in this cycle): passed regardless (`acc_ovr`: no
    /// length, or not a FIRST, ONLY or READ REQUEST), the rkey and access right, `va` at or
    /// above the region's base, `va + len` at or below its end. LOOK joins them (`acc_ok`).
    pub acc_ovr: Bit,
    pub acc_key: Bit,
    pub acc_lo: Bit,
    pub acc_hi: Bit,
    pub dup_fits: Bit,
    pub dup_near: Bit,
    pub ack_now: Bit,
    /// The BTH's transport version is 0 and its P_Key matches the QP's (the low 15 bits
    /// equal, and at least one of the two a full member: IBA 10.9.3).
    pub key_ok: Bit,
    /// The packet carries a payload.
    pub plen_nz: Bit,
    /// A READ's PSNs; a WRITE packet's address and the bytes its WRITE has left before it.
    pub npkts: Bits<24>,
    pub addr: Bits<64>,
    pub left: Bits<32>,
    /// va + DMA length, with the carry.
    pub va_end: Bits<65>,
    /// The QP's PMTU code.
    pub pmtu: Bits<3>,
    /// A SEND packet; its QP's receive queue is empty; the QP's minimum RNR timer code.
    pub send: Bit,
    pub rcv_empty: Bit,
    pub rnr_timer: Bits<5>,
}

/// The responder's header state machine: IDLE takes a header (or a control-plane access),
/// LOOK decides, ACT acts; CTL_READ returns a control-plane read.
/// Per-cause counters of the responder (wrap at 2^32).
#[derive(LogicInterface, Default)]
pub struct RespCounters {
    pub headers: Signal<Out, Bits<32>>,
    pub unknown_qp: Signal<Out, Bits<32>>,
    pub qp_not_ready: Signal<Out, Bits<32>>,
    pub qp_error: Signal<Out, Bits<32>>,
    pub malformed: Signal<Out, Bits<32>>,
    pub duplicate: Signal<Out, Bits<32>>,
    pub psn_out_of_window: Signal<Out, Bits<32>>,
    pub bad_opcode_seq: Signal<Out, Bits<32>>,
    pub length_error: Signal<Out, Bits<32>>,
    pub rkey_violation: Signal<Out, Bits<32>>,
    pub writes: Signal<Out, Bits<32>>,
    pub reads: Signal<Out, Bits<32>>,
    pub acks: Signal<Out, Bits<32>>,
    pub naks: Signal<Out, Bits<32>>,
    pub to_requester: Signal<Out, Bits<32>>,
    /// Duplicate READ requests answered again from memory.
    pub read_replays: Signal<Out, Bits<32>>,
    /// SENDs that found no RECV posted: RNR NAKs sent.
    pub rnr_naks: Signal<Out, Bits<32>>,
    /// Accepted SEND packets (placed into a RECV's buffer).
    pub sends: Signal<Out, Bits<32>>,
    /// RECVs posted; posts dropped (QPN beyond the table, or the QP's receive queue full).
    pub recv_posted: Signal<Out, Bits<32>>,
    pub recv_dropped: Signal<Out, Bits<32>>,
}

/// Payload destinations of the mover.
const DEST_DROP: u64 = 0;
const DEST_DMA: u64 = 1;
const DEST_RESP: u64 = 2;

#[derive(LogicBlock)]
pub struct RoceResponder<const A: usize, const R: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Parsed headers and payloads from the RX parser.
    pub hdr: Signal<In, RoceHdr>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_ready: Signal<Out, Bit>,
    pub s_axis: Axis512Sink,
    /// Host memory writes.
    pub dma_wr_cmd: Signal<Out, DmaCmd>,
    pub dma_wr_cmd_valid: Signal<Out, Bit>,
    pub dma_wr_cmd_ready: Signal<In, Bit>,
    /// The packet each DMA write belongs to, beside `dma_wr_cmd` (for the RX payload slot).
    pub dma_wr_meta: Signal<Out, SlotMeta>,
    pub m_axis_dma_wr: Axis512Source,
    /// ACK/NAK requests and READ jobs for the TX path, in one ordered channel.
    pub rsp: Signal<Out, RespItem>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_ready: Signal<In, Bit>,
    /// Responses (ACK, READ RESPONSE) for the requester side, unchecked.
    pub resp: Signal<Out, RoceHdr>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_ready: Signal<In, Bit>,
    pub m_axis_resp: Axis512Source,
    /// The verdicts (as on `vd`) of the cut-through responses passed on `resp`, in order: the
    /// requester holds a response's effects until its verdict.
    pub resp_vd: Signal<Out, Bits<2>>,
    pub resp_vd_valid: Signal<Out, Bit>,
    pub resp_vd_ready: Signal<In, Bit>,
    /// Verdicts of the cut-through frames, in order: bit 0 bad (ICRC, length, tap drop or an
    /// abort), bit 1 the tap's flag. One is taken per header with `spec`.
    pub vd: Signal<In, Bits<2>>,
    pub vd_valid: Signal<In, Bit>,
    pub vd_ready: Signal<Out, Bit>,
    /// `RX_CUT` bit 1: a cut-through WRITE FIRST or ONLY is placed before its verdict, like a
    /// MIDDLE. Low (the default): it is held, and its DMA command and payload go only after a
    /// good verdict (a bad one's payload is dropped), because its address comes from its own RETH.
    pub reth_early: Signal<In, Bit>,
    /// The header arriving at `hdr` next cycle when `hdr_valid` is low (the parser's
    /// [`crate::roce::rx::parse::RoceRxParse::hdr_pre_qpn`]): the tables read its QP now, so it
    /// is taken as it arrives. Tied low, a header that finds the input empty waits a cycle.
    pub hdr_pre_qpn: Signal<In, Bits<24>>,
    pub hdr_pre_valid: Signal<In, Bit>,
    /// QPs in the table (QPNs 0..num_qps-1).
    pub num_qps: Signal<In, Bits<24>>,
    /// Coalescing: an ACK at the latest every `ack_every` accepted WRITE packets (1 = every
    /// packet; 0 = only when AckReq is set).
    pub ack_every: Signal<In, Bits<8>>,
    /// Control-plane access to one QP: held until `ctl_done`. Write: `ctl_cfg`/`ctl_rq` into the
    /// tables. Read: `rd_cfg`/`rd_rq` are valid with `ctl_done`.
    pub ctl_req: Signal<In, Bit>,
    pub ctl_write: Signal<In, Bit>,
    pub ctl_qpn: Signal<In, Bits<A>>,
    pub ctl_cfg: Signal<In, QpCfg>,
    pub ctl_rq: Signal<In, QpRq>,
    pub ctl_done: Signal<Out, Bit>,
    pub rd_cfg: Signal<Out, QpCfg>,
    pub rd_rq: Signal<Out, QpRq>,
    /// RECVs posted to the QPs' receive queues (taken between headers, two cycles each).
    pub recv: Signal<In, RecvWr>,
    pub recv_valid: Signal<In, Bit>,
    pub recv_ready: Signal<Out, Bit>,
    /// Receive completions: a RECV filled by a SEND (or failed by one too long for it).
    pub rcq: Signal<Out, CqEntry>,
    pub rcq_valid: Signal<Out, Bit>,
    pub rcq_ready: Signal<In, Bit>,
    pub cnt: RespCounters,
    // tables
    /// The receive queues: [`RECV_RING`] RECVs per QP, one row per {QPN, ring index} (`R` =
    /// `A` + 4 address bits). Written by a post; read for a SEND in the cycle after it is taken
    /// (`fsm_recv_read`), its output held until the SEND is acted on.
    recv_ram: Ram<128, R>,
    recv_in: ToBits<RecvEnt, 128>,
    recv_out: FromBits<RecvEnt, 128>,
    recv_ra: Signal<Local, Bits<R>>,
    recv_wa: Signal<Local, Bits<R>>,
    /// The ring head and tail of the QP the tables read (a post's, or the header's at the
    /// input); the post's QP and whether it is taken.
    ring_head: Signal<Local, Bits<5>>,
    ring_tail: Signal<Local, Bits<5>>,
    post_qpn: Signal<Local, Bits<A>>,
    post_ok: Signal<Local, Bit>,
    /// The ring head of the SEND taken (`d_rq`).
    send_head: Signal<Local, Bits<5>>,
    /// A SEND FIRST or ONLY: its buffer is the RECV's (read in `fsm_recv_read`).
    send_starts: Signal<Local, Bit>,
    rcq_q: ChanSkid<CqEntry>,
    /// ACT posts a receive completion with this status.
    d_do_rcq: DFF<Bit>,
    d_rcq_status: DFF<Bits<4>>,
    st_success: Constant<Bits<4>>,
    st_loc_len: Constant<Bits<4>>,
    op_send: Constant<Bits<2>>,
    syn_rnr: Constant<Bits<8>>,
    c1_5: Constant<Bits<5>>,
    ring_full: Constant<Bits<5>>,
    cfg_ram: Ram<QP_CFG_BITS, A>,
    rq_ram: Ram<QP_RQ_BITS, A>,
    /// The QP's last RD_RES accepted READ requests ([`RdRes`]) and where the next one goes. Their
    /// PSNs (psn, n) in one RAM per entry, all compared at once in LOOK...
    res_ram: [Ram<48, A>; RD_RES],
    /// ...and their address ranges (end_lo, va) in one row per {QPN, entry} (`R` = `A` + 4
    /// address bits: Ultra RAM), read in LOOK for the entry a duplicate READ's PSN falls in and
    /// checked in the cycle after (only a duplicate READ takes that cycle).
    rng_ram: Ram<96, R>,
    rng_ra: Signal<Local, Bits<R>>,
    rng_wa: Signal<Local, Bits<R>>,
    /// The request's end (va + length, from `checks`), its low 64 bits and its carry.
    checks_va_end: Signal<Local, Bits<65>>,
    va_end64: Signal<Local, Bits<64>>,
    va_ovf: Signal<Local, Bit>,
    r_psn: [Signal<Local, Bits<24>>; RD_RES],
    r_n: [Signal<Local, Bits<24>>; RD_RES],
    res_d: [Signal<Local, Bits<24>>; RD_RES],
    /// The header's PSN inside entry i's PSNs (none in a cleared entry: n = 0).
    res_hit: [Signal<Local, Bit>; RD_RES],
    /// The hits, registered in LOOK: a duplicate READ's entry is picked from them in ACT's
    /// first cycle (the entries stay read: `res_ram` reads only as a header is taken), so the
    /// compares and the pick are not one path.
    d_hit: [DFF<Bit>; RD_RES],
    /// Some entry holds the PSN (`any`): the last such (PSN ranges of accepted READs do not
    /// overlap), its index (`idx`) and its first PSN (`y`). The PSN's offset in it (`dup_psn_offset`) is
    /// subtracted after the pick: the pick from the RAM words, not from the subtractors' sums.
    last_hit: LastHit<RD_RES, 24>,
    dup_psn_offset: Signal<Local, Bits<24>>,
    /// A duplicate READ spends three cycles in ACT: the first picks its entry (`d_dup`) and
    /// reads its range, the second (`d_dup2`: an entry was found) checks the request against it
    /// (`dup_in_range_q`: the range check, registered), the third (`d_dup3`) acts on the result; the
    /// PSN offset in the entry.
    d_dup: DFF<Bit>,
    d_dup2: DFF<Bit>,
    d_dup3: DFF<Bit>,
    dup_in_range_q: DFF<Bit>,
    /// The request's va less its PSN offset in the entry times the PMTU (where the entry's
    /// range must start for `dup_aligned`), registered in `d_dup2` for `dup_aligned` in `d_dup3` (the entry's
    /// range RAM stays read): `dup_aligned` is then one compare with the RAM's word.
    dup_range_start_q: DFF<Bits<64>>,
    dup_psn_offset_q: DFF<Bits<24>>,
    /// The entry's range from `rng_ram`: va, and va + length with va's high word (see `dup_range_end_carry`).
    dup_range_va: Signal<Local, Bits<64>>,
    dup_range_end: Signal<Local, Bits<64>>,
    /// The entry's end carried into the high word (its low word below va's).
    dup_range_end_carry: Signal<Local, Bit>,
    dup_range_end_ok: Signal<Local, Bit>,
    /// The request inside the entry's range.
    dup_in_range: Signal<Local, Bit>,
    /// The request starts where the entry's own response packet of the same PSN began (so its
    /// packets are the same as that READ's, and their copies are in the retransmission buffer).
    dup_offset: Signal<Local, Bits<64>>,
    dup_aligned: Signal<Local, Bit>,
    /// va + length of the request, less 2^32, and whether it is below 2^32
    ve_m: Signal<Local, Bits<64>>,
    ve_small: Signal<Local, Bit>,
    c_2p32: Constant<Bits<64>>,
    c_hi32: Constant<Bits<64>>,
    c_lo32: Constant<Bits<64>>,
    res_in: ToBits<RdRes, 144>,
    pm_sh: Signal<Local, Bits<64>>,
    /// A duplicate READ within the last 16 PSNs (the buffer's slots per QP): no response packet
    /// sent after it can have reused its slots.
    dup_near: Signal<Local, Bit>,
    c16_24: Constant<Bits<24>>,
    c8_64: Constant<Bits<64>>,
    res_idx: [Constant<Bits<4>>; RD_RES],
    rdh_ram: Ram<4, A>,
    d_res_new: DFF<Bit>,
    d_res: DFF<RdRes>,
    d_rdh: DFF<Bits<4>>,
    c1_4: Constant<Bits<4>>,
    rd_count_zero: Constant<Bits<4>>,
    res_zero: Constant<Bits<48>>,
    cfg_in: ToBits<QpCfg, QP_CFG_BITS>,
    rq_in: ToBits<QpRq, QP_RQ_BITS>,
    cfg_out: FromBits<QpCfg, QP_CFG_BITS>,
    rq_out: FromBits<QpRq, QP_RQ_BITS>,
    cls: RespOpClass,
    /// The checks of the header taken, for LOOK ([`RespChecks`]).
    checks: DFF<RespChecks>,
    /// The tables read every cycle (but for a control-plane read) the QP of the header at the
    /// input, or, with none there, of the one arriving (`la_qpn`), so their outputs hold the
    /// state of the header at the input (`qp_read_valid`: last cycle read its QP, it was not taken, and
    /// the control plane neither read nor wrote); only then is it taken, with its checks worked
    /// out from them.
    qp_read_valid: DFF<Bit>,
    /// `qp_read_valid`, and the header at the input is for another QP than the one in `hdr_taken` (neither
    /// changes while the header waits): it may be taken in the act cycle.
    qp_read_other: DFF<Bit>,
    qp_read_next: Signal<Local, Bit>,
    /// The QP the tables read: the header's at the input, or (none there) the one arriving.
    la_qpn: Signal<Local, Bits<A>>,
    /// Last cycle wrote the receive state of the QP it read (the header acted on and the one
    /// waiting are of one QP): the RAM's output is the old state, and the state written
    /// (`wb_rq`) is used in its place (`rq_sel`).
    fwd: DFF<Bit>,
    wb_rq: DFF<Bits<QP_RQ_BITS>>,
    rq_sel: Signal<Local, Bits<QP_RQ_BITS>>,
    // outputs
    cmd_q: ChanSkid<DmaCmd>,
    meta_q: ChanSkid<SlotMeta>,
    d_meta: DFF<SlotMeta>,
    out_q: ChanSkid<RespItem>,
    resp_q: ChanSkid<RoceHdr>,
    /// Per header with a payload: its destination (bits 1..0) and length (bits 17..2).
    act_q: ChanSkid<Bits<18>>,
    /// ACT waits for a cut-through frame's verdict.
    wait_verdict: DFF<Bit>,
    /// ACT's outputs that go at once (DMA command, payload, response header) and those a
    /// cut-through frame's verdict holds back (state, ACK/NAK, READ entry, counters).
    now: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    /// The header is a cut-through WRITE FIRST or ONLY held for its verdict (`reth_early` low);
    /// `held_bad`: its verdict came bad, so its payload is dropped and no command goes.
    d_hold: DFF<Bit>,
    held_bad: Signal<Local, Bit>,
    can_commit: Signal<Local, Bit>,
    // the payload mover: a payload's bytes still owed (after the beats moved), and padding
    mv_mid: DFF<Bit>,
    mv_left: DFF<Bits<16>>,
    mv_pad: DFF<Bit>,
    /// The beat the mover moves (the input's, or a zero padding beat), whether there is one, and
    /// whether its destination takes it.
    mv_data: Signal<Local, Bits<512>>,
    mv_keep: Signal<Local, Bits<64>>,
    mv_last: Signal<Local, Bit>,
    mv_user: Signal<Local, Bit>,
    mv_valid: Signal<Local, Bit>,
    mv_go: Signal<Local, Bit>,
    a_dest: Signal<Local, Bits<2>>,
    a_len: Signal<Local, Bits<16>>,
    cur_left: Signal<Local, Bits<16>>,
    left_nx: Signal<Local, Bits<16>>,
    more: Signal<Local, Bit>,
    /// `mv_left > 64` and `mv_left != 0`, registered beside `mv_left` (LUT depth: the keep of a
    /// payload's last beat starts from flops, not from a 16-bit compare behind a select)
    mv_more: DFF<Bit>,
    mv_nz: DFF<Bit>,
    /// the bytes left are not 0
    nz: Signal<Local, Bit>,
    /// the keep of the payload's last beat: all ones while more follows or when the bytes left
    /// are a multiple of 64; else the low bits of the length (`mv_left` keeps `a_len`'s low six
    /// bits: it only ever drops by 64)
    kfull: Signal<Local, Bit>,
    last_keep: Signal<Local, Bits<64>>,
    c64_16: Constant<Bits<16>>,
    zero512: Constant<Bits<512>>,
    ones64: Constant<Bits<64>>,
    /// The mover's two destinations, each a register stage: the write mux's ready and the
    /// requester's are a few LUTs on registers, and the skid of the write mux's output ends the
    /// ready path.
    dma_out: AxisReg<512, 64>,
    resp_out: AxisReg<512, 64>,
    /// The header state machine: `fsm_idle` takes a header (or a control-plane access),
    /// `fsm_look` decides, `fsm_act` acts, `fsm_ctl_read` returns a control-plane read. Named
    /// constants, not a `LogicState` enum: rust-hdl 0.46 emits a DFF of an enum with a 64-bit
    /// reset constant and unused localparams, which Verilator -Wall rejects.
    hdr_fsm: DFF<Bits<3>>,
    fsm_idle: Constant<Bits<3>>,
    fsm_look: Constant<Bits<3>>,
    fsm_act: Constant<Bits<3>>,
    fsm_ctl_read: Constant<Bits<3>>,
    /// A SEND reads its RECV (`fsm_recv_read`), then takes the RECV's buffer into its checks
    /// (`fsm_recv_check`) before LOOK; a RECV post reads its QP's ring (in idle) and is written
    /// (`fsm_post`).
    fsm_recv_read: Constant<Bits<3>>,
    fsm_recv_check: Constant<Bits<3>>,
    fsm_post: Constant<Bits<3>>,
    hdr_taken: DFF<RoceHdr>,
    // decided in LOOK, done in ACT
    d_cmd: DFF<DmaCmd>,
    d_item: DFF<RespItem>,
    d_rq: DFF<QpRq>,
    /// An accepted WRITE packet's new write address and bytes left, worked out in LOOK for every
    /// header and written back in place of `d_rq`'s only when `d_wr_acc` (the packet was
    /// accepted): the 96 wide selects no longer wait on LOOK's verdict, only one flag does.
    d_wva: DFF<Bits<64>>,
    d_wleft: DFF<Bits<32>>,
    d_wr_acc: DFF<Bit>,
    d_do_cmd: DFF<Bit>,
    d_do_ack: DFF<Bit>,
    d_do_job: DFF<Bit>,
    d_do_resp: DFF<Bit>,
    d_do_wb: DFF<Bit>,
    d_pay: DFF<Bit>,
    d_dest: DFF<Bits<2>>,
    d_cause: [DFF<Bit>; NUM_COUNTERS],
    counters: [DFF<Bits<32>>; NUM_COUNTERS],
    // the checks, on the header at the input (registered in `checks` as it is taken)
    qp_ok: Signal<Local, Bit>,
    live: Signal<Local, Bit>,
    psn_delta: Signal<Local, Bits<24>>,
    seq_ok: Signal<Local, Bit>,
    pmtu: Signal<Local, Bits<16>>,
    len_ok: Signal<Local, Bit>,
    first_like: Signal<Local, Bit>,
    acc_ok: Signal<Local, Bit>,
    acc_key: Signal<Local, Bit>,
    acc_ovr: Signal<Local, Bit>,
    va_end: Signal<Local, Bits<65>>,
    mr_end: Signal<Local, Bits<65>>,
    npkts: Signal<Local, Bits<24>>,
    /// The READ's PSN count: the QP's PMTU code (a RAM output) only picks one of eight counts
    /// worked out from the header ([`PsnCount`]), so no variable shift sits behind the RAM.
    npk: PsnCount,
    addr: Signal<Local, Bits<64>>,
    left: Signal<Local, Bits<32>>,
    ack_now: Signal<Local, Bit>,
    cause: [Signal<Local, Bit>; NUM_COUNTERS],
    /// A duplicate READ request's response PSNs end at or before the expected PSN.
    dup_fits: Signal<Local, Bit>,
    /// The header's and the QP's P_Key, and their match with a transport version of 0.
    hdr_pkey: Signal<Local, Bits<16>>,
    qp_pkey: Signal<Local, Bits<16>>,
    key_ok: Signal<Local, Bit>,
    in_qpn: Signal<Local, Bits<A>>,
    h_qpn: Signal<Local, Bits<A>>,
    c0_8: Constant<Bits<8>>,
    can_act: Signal<Local, Bit>,
    /// This cycle may take the next header (idle, or acting on a header of another QP).
    take: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    meta_off_zero: Constant<Bits<16>>,
    c_rtr: Constant<Bits<3>>,
    c_rts: Constant<Bits<3>>,
    c_err: Constant<Bits<3>>,
    c256: Constant<Bits<16>>,
    c1_24: Constant<Bits<24>>,
    c1_8: Constant<Bits<8>>,
    syn_ack: Constant<Bits<8>>,
    syn_seq: Constant<Bits<8>>,
    syn_inv: Constant<Bits<8>>,
    syn_acc: Constant<Bits<8>>,
    dest_drop: Constant<Bits<2>>,
    dest_dma: Constant<Bits<2>>,
    dest_resp: Constant<Bits<2>>,
    acc_w: Constant<Bits<2>>,
    acc_r: Constant<Bits<2>>,
}

/// Bit of each cause in `d_cause`, and the counter it feeds (index into `counters`).
pub mod cause {
    pub const HEADERS: usize = 0;
    pub const UNKNOWN_QP: usize = 1;
    pub const QP_NOT_READY: usize = 2;
    pub const QP_ERROR: usize = 3;
    pub const MALFORMED: usize = 4;
    pub const DUPLICATE: usize = 5;
    pub const PSN_OOW: usize = 6;
    pub const BAD_OPSEQ: usize = 7;
    pub const LENGTH: usize = 8;
    pub const RKEY: usize = 9;
    pub const WRITE: usize = 10;
    pub const READ: usize = 11;
    pub const ACK: usize = 12;
    pub const NAK: usize = 13;
    pub const TO_REQ: usize = 14;
    pub const READ_REPLAY: usize = 15;
    pub const RNR_NAK: usize = 16;
    pub const SEND: usize = 17;
    pub const RECV_POSTED: usize = 18;
    pub const RECV_DROPPED: usize = 19;
}

/// Per-cause counters of the responder ([`RespCounters`]).
pub const NUM_COUNTERS: usize = 20;

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

impl<const A: usize, const R: usize> Default for RoceResponder<A, R> {
    fn default() -> Self {
        assert_eq!(R, A + 4, "the range table has RD_RES = 16 rows per QP");
        let style = RamStyle::for_qp_table(A);
        RoceResponder {
            clock: Default::default(),
            reset: Default::default(),
            hdr: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            s_axis: Default::default(),
            dma_wr_cmd: Default::default(),
            dma_wr_cmd_valid: Default::default(),
            dma_wr_cmd_ready: Default::default(),
            dma_wr_meta: Default::default(),
            m_axis_dma_wr: Default::default(),
            rsp: Default::default(),
            rsp_valid: Default::default(),
            rsp_ready: Default::default(),
            resp: Default::default(),
            resp_valid: Default::default(),
            resp_ready: Default::default(),
            m_axis_resp: Default::default(),
            resp_vd: Default::default(),
            resp_vd_valid: Default::default(),
            resp_vd_ready: Default::default(),
            vd: Default::default(),
            vd_valid: Default::default(),
            vd_ready: Default::default(),
            reth_early: Default::default(),
            hdr_pre_qpn: Default::default(),
            hdr_pre_valid: Default::default(),
            num_qps: Default::default(),
            ack_every: Default::default(),
            ctl_req: Default::default(),
            ctl_write: Default::default(),
            ctl_qpn: Default::default(),
            ctl_cfg: Default::default(),
            ctl_rq: Default::default(),
            ctl_done: Default::default(),
            rd_cfg: Default::default(),
            rd_rq: Default::default(),
            recv: Default::default(),
            recv_valid: Default::default(),
            recv_ready: Default::default(),
            rcq: Default::default(),
            rcq_valid: Default::default(),
            rcq_ready: Default::default(),
            cnt: Default::default(),
            recv_ram: Ram::new(RamStyle::for_qp_table(R), false),
            recv_in: Default::default(),
            recv_out: Default::default(),
            recv_ra: Default::default(),
            recv_wa: Default::default(),
            ring_head: Default::default(),
            ring_tail: Default::default(),
            post_qpn: Default::default(),
            post_ok: Default::default(),
            send_head: Default::default(),
            send_starts: Default::default(),
            rcq_q: Default::default(),
            d_do_rcq: Default::default(),
            d_rcq_status: Default::default(),
            st_success: c(cq_status::SUCCESS as u64),
            st_loc_len: c(cq_status::LOCAL_LENGTH as u64),
            op_send: c(wr_op::SEND as u64),
            syn_rnr: c(syndrome::RNR_NAK as u64),
            c1_5: c(1),
            ring_full: c(RECV_RING as u64),
            cfg_ram: Ram::new(style, false),
            rq_ram: Ram::new(style, false),
            res_ram: std::array::from_fn(|_| Ram::new(style, false)),
            rng_ram: Ram::new(RamStyle::Ultra, false),
            rng_ra: Default::default(),
            rng_wa: Default::default(),
            checks_va_end: Default::default(),
            va_end64: Default::default(),
            va_ovf: Default::default(),
            r_psn: Default::default(),
            r_n: Default::default(),
            res_d: Default::default(),
            dup_psn_offset: Default::default(),
            res_hit: Default::default(),
            d_hit: Default::default(),
            last_hit: Default::default(),
            d_dup: Default::default(),
            d_dup2: Default::default(),
            d_dup3: Default::default(),
            dup_in_range_q: Default::default(),
            dup_range_start_q: Default::default(),
            dup_psn_offset_q: Default::default(),
            dup_range_va: Default::default(),
            dup_range_end: Default::default(),
            dup_range_end_carry: Default::default(),
            dup_range_end_ok: Default::default(),
            dup_in_range: Default::default(),
            dup_offset: Default::default(),
            dup_aligned: Default::default(),
            ve_m: Default::default(),
            ve_small: Default::default(),
            c_2p32: c(1 << 32),
            c_hi32: c(0xffff_ffff_0000_0000),
            c_lo32: c(0xffff_ffff),
            res_in: Default::default(),
            pm_sh: Default::default(),
            dup_near: Default::default(),
            c16_24: c(16),
            c8_64: c(8),
            res_idx: std::array::from_fn(|i| Constant::new((i as u64).into())),
            rdh_ram: Ram::new(style, false),
            d_res_new: Default::default(),
            d_res: Default::default(),
            d_rdh: Default::default(),
            c1_4: c(1),
            rd_count_zero: c(0),
            res_zero: c(0),
            cfg_in: Default::default(),
            rq_in: Default::default(),
            cfg_out: Default::default(),
            rq_out: Default::default(),
            cls: Default::default(),
            checks: Default::default(),
            qp_read_valid: Default::default(),
            qp_read_other: Default::default(),
            qp_read_next: Default::default(),
            la_qpn: Default::default(),
            fwd: Default::default(),
            wb_rq: Default::default(),
            rq_sel: Default::default(),
            cmd_q: Default::default(),
            meta_q: Default::default(),
            d_meta: Default::default(),
            out_q: Default::default(),
            resp_q: Default::default(),
            act_q: Default::default(),
            wait_verdict: Default::default(),
            now: Default::default(),
            commit: Default::default(),
            d_hold: Default::default(),
            held_bad: Default::default(),
            can_commit: Default::default(),
            mv_mid: Default::default(),
            mv_left: Default::default(),
            mv_pad: Default::default(),
            mv_data: Default::default(),
            mv_keep: Default::default(),
            mv_last: Default::default(),
            mv_user: Default::default(),
            mv_valid: Default::default(),
            mv_go: Default::default(),
            a_dest: Default::default(),
            a_len: Default::default(),
            cur_left: Default::default(),
            left_nx: Default::default(),
            more: Default::default(),
            mv_more: Default::default(),
            mv_nz: Default::default(),
            nz: Default::default(),
            kfull: Default::default(),
            last_keep: Default::default(),
            c64_16: c(64),
            zero512: c(0),
            ones64: c(u64::MAX),
            dma_out: Default::default(),
            resp_out: Default::default(),
            hdr_fsm: Default::default(),
            fsm_idle: c(0),
            fsm_look: c(1),
            fsm_act: c(2),
            fsm_ctl_read: c(3),
            fsm_recv_read: c(4),
            fsm_recv_check: c(5),
            fsm_post: c(6),
            hdr_taken: Default::default(),
            d_cmd: Default::default(),
            d_item: Default::default(),
            d_rq: Default::default(),
            d_wva: Default::default(),
            d_wleft: Default::default(),
            d_wr_acc: Default::default(),
            d_do_cmd: Default::default(),
            d_do_ack: Default::default(),
            d_do_job: Default::default(),
            d_do_resp: Default::default(),
            d_do_wb: Default::default(),
            d_pay: Default::default(),
            d_dest: Default::default(),
            d_cause: Default::default(),
            counters: Default::default(),
            qp_ok: Default::default(),
            live: Default::default(),
            psn_delta: Default::default(),
            seq_ok: Default::default(),
            pmtu: Default::default(),
            len_ok: Default::default(),
            first_like: Default::default(),
            acc_ok: Default::default(),
            acc_key: Default::default(),
            acc_ovr: Default::default(),
            va_end: Default::default(),
            mr_end: Default::default(),
            npkts: Default::default(),
            npk: Default::default(),
            addr: Default::default(),
            left: Default::default(),
            ack_now: Default::default(),
            cause: Default::default(),
            in_qpn: Default::default(),
            h_qpn: Default::default(),
            c0_8: c(0),
            can_act: Default::default(),
            take: Default::default(),
            unused: Default::default(),
            meta_off_zero: Constant::new(0u64.into()),
            c_rtr: c(state::RTR as u64),
            c_rts: c(state::RTS as u64),
            c_err: c(state::ERROR as u64),
            c256: c(256),
            c1_24: c(1),
            c1_8: c(1),
            syn_ack: c(syndrome::ACK as u64),
            syn_seq: c(syndrome::NAK_PSN_SEQ as u64),
            dup_fits: Default::default(),
            hdr_pkey: Default::default(),
            qp_pkey: Default::default(),
            key_ok: Default::default(),
            syn_inv: c(syndrome::NAK_INVALID_REQ as u64),
            syn_acc: c(syndrome::NAK_REMOTE_ACCESS as u64),
            dest_drop: c(DEST_DROP),
            dest_dma: c(DEST_DMA),
            dest_resp: c(DEST_RESP),
            acc_w: c(access::REMOTE_WRITE as u64),
            acc_r: c(access::REMOTE_READ as u64),
        }
    }
}

impl<const A: usize, const R: usize> Logic for RoceResponder<A, R> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wait_verdict, d_hold, mv_mid, mv_left, mv_more, mv_nz, mv_pad, d_dup, d_dup2, d_dup3, dup_in_range_q, dup_range_start_q, dup_psn_offset_q, d_res_new, d_res, d_rdh, hdr_fsm, hdr_taken, checks, qp_read_valid, qp_read_other, fwd, wb_rq, d_cmd, d_meta, d_item, d_rq, d_wva, d_wleft, d_wr_acc, d_do_cmd, d_do_ack, d_do_job, d_do_resp, d_do_wb, d_pay, d_dest, d_do_rcq, d_rcq_status);
        clock!(self, clock, rng_ram, rdh_ram, meta_q, cfg_ram, rq_ram, recv_ram, cmd_q, out_q, resp_q, act_q, rcq_q, dma_out, resp_out);
        for i in 0..NUM_COUNTERS {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].d.next = self.counters[i].q.val();
            self.d_cause[i].clock.next = self.clock.val();
            self.d_cause[i].d.next = self.d_cause[i].q.val();
            self.cause[i].next = false;
        }
        self.in_qpn.next = bit_cast::<A, 24>(self.hdr.val().dqpn);
        self.h_qpn.next = bit_cast::<A, 24>(self.hdr_taken.q.val().dqpn);
        self.cmd_q.reset.next = self.reset.val();
        self.out_q.reset.next = self.reset.val();
        self.resp_q.reset.next = self.reset.val();
        self.act_q.reset.next = self.reset.val();
        self.rcq_q.reset.next = self.reset.val();
        self.dma_out.reset.next = self.reset.val();
        self.resp_out.reset.next = self.reset.val();
        // ------------------------------------------------ output channels
        self.dma_wr_cmd.next = self.cmd_q.m_data.val();
        self.dma_wr_cmd_valid.next = self.cmd_q.m_valid.val();
        self.cmd_q.m_ready.next = self.dma_wr_cmd_ready.val();
        self.dma_wr_meta.next = self.meta_q.m_data.val();
        self.meta_q.m_ready.next = self.dma_wr_cmd_ready.val();
        self.meta_q.reset.next = self.reset.val();
        self.rsp.next = self.out_q.m_data.val();
        self.rsp_valid.next = self.out_q.m_valid.val();
        self.out_q.m_ready.next = self.rsp_ready.val();
        self.resp.next = self.resp_q.m_data.val();
        self.resp_valid.next = self.resp_q.m_valid.val();
        self.resp_q.m_ready.next = self.resp_ready.val();
        self.cmd_q.s_data.next = self.d_cmd.q.val();
        self.meta_q.s_data.next = self.d_meta.q.val();
        self.out_q.s_data.next = self.d_item.q.val();
        self.resp_q.s_data.next = self.hdr_taken.q.val();
        self.act_q.s_data.next = (bit_cast::<18, 16>(self.hdr_taken.q.val().plen) << 2) | bit_cast::<18, 2>(self.d_dest.q.val());
        self.rcq.next = self.rcq_q.m_data.val();
        self.rcq_valid.next = self.rcq_q.m_valid.val();
        self.rcq_q.m_ready.next = self.rcq_ready.val();
        self.rcq_q.s_valid.next = false;
        // a receive completion: the RECV read for the SEND; its bytes are its length less what
        // the SEND left of it (`d_wleft`, from LOOK); a failed one reports none
        self.rcq_q.s_data.next.wr_id = self.recv_out.fields.val().wr_id;
        self.rcq_q.s_data.next.qpn = self.hdr_taken.q.val().dqpn;
        self.rcq_q.s_data.next.op = self.op_send.val();
        self.rcq_q.s_data.next.status = self.d_rcq_status.q.val();
        self.rcq_q.s_data.next.byte_len = self.recv_out.fields.val().len - self.d_wleft.q.val();
        if self.d_rcq_status.q.val() != self.st_success.val() {
            self.rcq_q.s_data.next.byte_len = 0.into();
        }
        self.rcq_q.s_data.next.recv = true;
        self.rcq_q.s_data.next.tap_flag = false;
        self.cmd_q.s_valid.next = false;
        self.out_q.s_valid.next = false;
        self.resp_q.s_valid.next = false;
        self.act_q.s_valid.next = false;
        // ------------------------------------------------ counters
        self.cnt.headers.next = self.counters[0].q.val();
        self.cnt.unknown_qp.next = self.counters[1].q.val();
        self.cnt.qp_not_ready.next = self.counters[2].q.val();
        self.cnt.qp_error.next = self.counters[3].q.val();
        self.cnt.malformed.next = self.counters[4].q.val();
        self.cnt.duplicate.next = self.counters[5].q.val();
        self.cnt.psn_out_of_window.next = self.counters[6].q.val();
        self.cnt.bad_opcode_seq.next = self.counters[7].q.val();
        self.cnt.length_error.next = self.counters[8].q.val();
        self.cnt.rkey_violation.next = self.counters[9].q.val();
        self.cnt.writes.next = self.counters[10].q.val();
        self.cnt.reads.next = self.counters[11].q.val();
        self.cnt.acks.next = self.counters[12].q.val();
        self.cnt.naks.next = self.counters[13].q.val();
        self.cnt.to_requester.next = self.counters[14].q.val();
        self.cnt.read_replays.next = self.counters[15].q.val();
        self.cnt.rnr_naks.next = self.counters[16].q.val();
        self.cnt.sends.next = self.counters[17].q.val();
        self.cnt.recv_posted.next = self.counters[18].q.val();
        self.cnt.recv_dropped.next = self.counters[19].q.val();
        // ------------------------------------------------ receive queues
        self.recv_out.bits.next = self.recv_ram.rdata.val();
        self.send_head.next = self.d_rq.q.val().rq_recv_head;
        self.recv_ra.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.send_head.val().get_bits::<4>(0));
        self.recv_ram.raddr.next = self.recv_ra.val();
        self.recv_ram.re.next = false;
        self.recv_ram.oce.next = false;
        self.post_qpn.next = bit_cast::<A, 24>(self.recv.val().qpn);
        self.ring_head.next = self.rq_out.fields.val().rq_recv_head;
        self.ring_tail.next = self.rq_out.fields.val().rq_recv_tail;
        self.post_ok.next = (self.recv.val().qpn < self.num_qps.val()) & ((self.ring_tail.val() - self.ring_head.val()) != self.ring_full.val());
        self.recv_wa.next = (bit_cast::<R, A>(self.post_qpn.val()) << 4) | bit_cast::<R, 4>(self.ring_tail.val().get_bits::<4>(0));
        self.recv_ram.waddr.next = self.recv_wa.val();
        self.recv_in.fields.next.wr_id = self.recv.val().wr_id;
        self.recv_in.fields.next.addr = self.recv.val().addr;
        self.recv_in.fields.next.len = self.recv.val().len;
        self.recv_ram.wdata.next = self.recv_in.bits.val();
        self.recv_ram.we.next = false;
        self.recv_ready.next = self.hdr_fsm.q.val() == self.fsm_post.val();
        self.send_starts.next = self.checks.q.val().send & (self.checks.q.val().wr_first | self.checks.q.val().wr_only);
        // ------------------------------------------------ tables
        self.cfg_out.bits.next = self.cfg_ram.rdata.val();
        self.rq_sel.next = self.rq_ram.rdata.val();
        if self.fwd.q.val() {
            self.rq_sel.next = self.wb_rq.q.val();
        }
        self.rq_out.bits.next = self.rq_sel.val();
        self.wb_rq.d.next = self.rq_in.bits.val();
        self.fwd.d.next = false;
        self.rd_cfg.next = self.cfg_out.fields.val();
        self.rd_rq.next = self.rq_out.fields.val();
        self.cfg_ram.oce.next = false;
        self.rq_ram.oce.next = false;
        self.cfg_ram.re.next = true;
        self.rq_ram.re.next = true;
        self.la_qpn.next = bit_cast::<A, 24>(self.hdr_pre_qpn.val());
        if self.hdr_valid.val() {
            self.la_qpn.next = self.in_qpn.val();
        }
        self.cfg_ram.raddr.next = self.la_qpn.val();
        self.rq_ram.raddr.next = self.la_qpn.val();
        self.cfg_in.fields.next = self.ctl_cfg.val();
        self.rq_in.fields.next = self.ctl_rq.val();
        self.cfg_ram.wdata.next = self.cfg_in.bits.val();
        self.rq_ram.wdata.next = self.rq_in.bits.val();
        self.cfg_ram.waddr.next = self.ctl_qpn.val();
        self.rq_ram.waddr.next = self.ctl_qpn.val();
        self.cfg_ram.we.next = false;
        self.rq_ram.we.next = false;
        self.hdr_ready.next = false;
        self.ctl_done.next = false;
        // ------------------------------------------------ the checks on the header at the input and
        // its QP (the tables' outputs), for LOOK: registered in `checks` as the header is taken
        self.cls.op.next = self.hdr.val().opcode;
        self.qp_ok.next = self.hdr.val().dqpn < self.num_qps.val();
        self.live.next = (self.rq_out.fields.val().state == self.c_rtr.val()) | (self.rq_out.fields.val().state == self.c_rts.val());
        self.psn_delta.next = self.hdr.val().psn - self.rq_out.fields.val().rq_expected_psn;
        // a MIDDLE or LAST continues the message in progress, of its kind (SEND or WRITE); a
        // FIRST or ONLY starts one
        self.seq_ok.next = ((self.cls.wr_mid.val() | self.cls.wr_last.val()) == self.rq_out.fields.val().rq_in_write)
            & (!(self.cls.wr_mid.val() | self.cls.wr_last.val()) | (self.cls.send.val() == self.rq_out.fields.val().rq_in_send));
        self.pmtu.next = self.c256.val() << bit_cast::<16, 3>(self.cfg_out.fields.val().pmtu);
        self.first_like.next = self.cls.wr_first.val() | self.cls.wr_only.val() | self.cls.rd_req.val();
        self.len_ok.next = false;
        if self.cls.wr_first.val() {
            self.len_ok.next = (self.hdr.val().plen == self.pmtu.val()) & (self.hdr.val().dma_len > bit_cast::<32, 16>(self.pmtu.val()));
        }
        if self.cls.wr_mid.val() {
            self.len_ok.next = (self.hdr.val().plen == self.pmtu.val()) & (self.rq_out.fields.val().rq_write_left > bit_cast::<32, 16>(self.pmtu.val()));
        }
        if self.cls.wr_last.val() {
            self.len_ok.next = (bit_cast::<32, 16>(self.hdr.val().plen) == self.rq_out.fields.val().rq_write_left) & (self.hdr.val().plen <= self.pmtu.val()) & self.hdr.val().plen.any();
        }
        if self.cls.wr_only.val() {
            self.len_ok.next = (bit_cast::<32, 16>(self.hdr.val().plen) == self.hdr.val().dma_len) & (self.hdr.val().plen <= self.pmtu.val());
        }
        if self.cls.rd_req.val() {
            self.len_ok.next = !self.hdr.val().plen.any();
        }
        // a SEND has no length of its own: FIRST and MIDDLE carry exactly PMTU, LAST 1..PMTU,
        // ONLY at most PMTU, and a MIDDLE or LAST fits what is left of the RECV's buffer (a
        // FIRST or ONLY is checked against the RECV in `fsm_recv_check`)
        if self.cls.send.val() {
            if self.cls.wr_first.val() {
                self.len_ok.next = self.hdr.val().plen == self.pmtu.val();
            }
            if self.cls.wr_mid.val() {
                self.len_ok.next = (self.hdr.val().plen == self.pmtu.val()) & (bit_cast::<32, 16>(self.hdr.val().plen) <= self.rq_out.fields.val().rq_write_left);
            }
            if self.cls.wr_last.val() {
                self.len_ok.next = (bit_cast::<32, 16>(self.hdr.val().plen) <= self.rq_out.fields.val().rq_write_left) & (self.hdr.val().plen <= self.pmtu.val()) & self.hdr.val().plen.any();
            }
            if self.cls.wr_only.val() {
                self.len_ok.next = self.hdr.val().plen <= self.pmtu.val();
            }
        }
        self.va_end.next = bit_cast::<65, 64>(self.hdr.val().va) + bit_cast::<65, 32>(self.hdr.val().dma_len);
        self.mr_end.next = bit_cast::<65, 64>(self.cfg_out.fields.val().mr_base) + bit_cast::<65, 64>(self.cfg_out.fields.val().mr_len);
        self.acc_key.next = self.hdr.val().rkey == self.cfg_out.fields.val().rkey;
        if self.cls.rd_req.val() {
            if !(self.cfg_out.fields.val().access & self.acc_r.val()).any() {
                self.acc_key.next = false;
            }
        } else if !(self.cfg_out.fields.val().access & self.acc_w.val()).any() {
            self.acc_key.next = false;
        }
        self.acc_ovr.next = !self.hdr.val().dma_len.any() | !self.first_like.val() | self.cls.send.val();
        // the registered parts joined, for LOOK
        self.acc_ok.next = self.checks.q.val().acc_ovr | (self.checks.q.val().acc_key & self.checks.q.val().acc_lo & self.checks.q.val().acc_hi);
        // READ: PSNs the response takes, max(1, ceil(len / PMTU))
        self.npk.len.next = self.hdr.val().dma_len;
        self.npk.code.next = self.cfg_out.fields.val().pmtu;
        self.npkts.next = self.npk.n.val();
        self.dup_fits.next = (self.rq_out.fields.val().rq_expected_psn - self.hdr.val().psn) >= self.npkts.val();
        self.addr.next = self.rq_out.fields.val().rq_write_va;
        self.left.next = self.rq_out.fields.val().rq_write_left;
        if self.cls.wr_first.val() | self.cls.wr_only.val() {
            self.addr.next = self.hdr.val().va;
            self.left.next = self.hdr.val().dma_len;
        }
        self.ack_now.next = self.hdr.val().ackreq | (self.ack_every.val().any() & ((self.rq_out.fields.val().rq_unacked + self.c1_8.val()) >= self.ack_every.val()));
        self.dup_near.next = (self.rq_out.fields.val().rq_expected_psn - self.hdr.val().psn) <= self.c16_24.val();
        // P_Key and transport version (bit selects on plain signals: Yosys takes no range
        // select of a struct field)
        self.hdr_pkey.next = self.hdr.val().pkey;
        self.qp_pkey.next = self.cfg_out.fields.val().pkey;
        self.key_ok.next = !self.hdr.val().tver.any()
            & (self.hdr_pkey.val().get_bits::<15>(0) == self.qp_pkey.val().get_bits::<15>(0))
            & (self.hdr_pkey.val().get_bit(15) | self.qp_pkey.val().get_bit(15));
        // the request's end, for a duplicate READ's range check in ACT
        self.checks_va_end.next = self.checks.q.val().va_end;
        self.va_end64.next = bit_cast::<64, 65>(self.checks_va_end.val());
        self.va_ovf.next = self.checks_va_end.val().get_bit(64);
        self.ve_m.next = self.va_end64.val() - self.c_2p32.val();
        self.ve_small.next = !self.va_end64.val().get_bits::<32>(32).any();
        // responder resources: read with the QP's state, written on a new READ, cleared by a
        // control-plane write of the QP
        self.res_in.fields.next = self.d_res.q.val();
        self.pm_sh.next = bit_cast::<64, 3>(self.checks.q.val().pmtu) + self.c8_64.val();
        for i in 0..RD_RES {
            self.res_ram[i].clock.next = self.clock.val();
            self.res_ram[i].raddr.next = self.in_qpn.val();
            self.res_ram[i].re.next = false;
            self.res_ram[i].oce.next = false;
            self.res_ram[i].waddr.next = self.h_qpn.val();
            self.res_ram[i].wdata.next = self.res_in.bits.val().get_bits::<48>(0);
            self.res_ram[i].we.next = false;
            // psn, n
            self.r_psn[i].next = self.res_ram[i].rdata.val().get_bits::<24>(0);
            self.r_n[i].next = self.res_ram[i].rdata.val().get_bits::<24>(24);
            self.res_d[i].next = self.hdr_taken.q.val().psn - self.r_psn[i].val();
            self.res_hit[i].next = self.res_d[i].val() < self.r_n[i].val();
            self.d_hit[i].clock.next = self.clock.val();
            self.d_hit[i].d.next = self.d_hit[i].q.val();
            if self.hdr_fsm.q.val() == self.fsm_look.val() {
                self.d_hit[i].d.next = self.res_hit[i].val();
            }
            self.last_hit.hit[i].next = self.d_hit[i].q.val();
            self.last_hit.d[i].next = self.r_psn[i].val();
        }
        // the hit entry's range, read in ACT's first cycle (`d_dup`), here the cycle after: end_lo, va
        self.dup_psn_offset.next = self.hdr_taken.q.val().psn - self.last_hit.y.val();
        self.rng_ra.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.last_hit.idx.val());
        self.rng_wa.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.d_rdh.q.val());
        self.rng_ram.raddr.next = self.rng_ra.val();
        self.rng_ram.re.next = true;
        self.rng_ram.oce.next = false;
        self.rng_ram.waddr.next = self.rng_wa.val();
        self.rng_ram.wdata.next = self.res_in.bits.val().get_bits::<96>(48);
        self.rng_ram.we.next = false;
        self.dup_range_va.next = self.rng_ram.rdata.val().get_bits::<64>(32);
        self.dup_range_end.next = (self.dup_range_va.val() & self.c_hi32.val()) | (self.rng_ram.rdata.val().get_bits::<64>(0) & self.c_lo32.val());
        self.dup_range_end_carry.next = self.rng_ram.rdata.val().get_bits::<32>(0) < self.rng_ram.rdata.val().get_bits::<32>(32);
        // the request's end within the entry's: end = g_end, or g_end + 2^32 with the carry (no
        // adder after the RAM: the request's side is moved instead)
        self.dup_range_end_ok.next = self.va_end64.val() <= self.dup_range_end.val();
        if self.dup_range_end_carry.val() {
            self.dup_range_end_ok.next = self.ve_small.val() | (self.ve_m.val() <= self.dup_range_end.val());
        }
        self.dup_in_range.next = (self.hdr_taken.q.val().va >= self.dup_range_va.val()) & !self.va_ovf.val() & self.dup_range_end_ok.val();
        // (PSN - its PSN) mod 2^24 times the PMTU
        self.dup_offset.next = bit_cast::<64, 24>(self.dup_psn_offset_q.q.val()) << self.pm_sh.val();
        self.dup_range_start_q.d.next = self.hdr_taken.q.val().va - self.dup_offset.val();
        self.dup_aligned.next = self.dup_range_start_q.q.val() == self.dup_range_va.val();
        self.rdh_ram.raddr.next = self.in_qpn.val();
        self.rdh_ram.re.next = true;
        self.rdh_ram.oce.next = false;
        self.rdh_ram.waddr.next = self.h_qpn.val();
        self.rdh_ram.wdata.next = self.d_rdh.q.val() + self.c1_4.val();
        self.rdh_ram.we.next = false;
        self.unused.next = self.meta_q.s_ready.val() | self.meta_q.m_valid.val() | self.hdr_taken.q.val().se | self.hdr_taken.q.val().tap_flag | self.hdr_taken.q.val().migreq | self.hdr_taken.q.val().fecn | self.hdr_taken.q.val().becn | self.hdr_taken.q.val().ipv6 | self.hdr_taken.q.val().ackreq
            | self.hdr_taken.q.val().tver.any() | self.hdr_taken.q.val().pkey.any() | self.hdr_taken.q.val().syndrome.any() | self.hdr_taken.q.val().msn.any()
            | self.hdr_taken.q.val().ecn.any() | self.hdr_taken.q.val().src_ip.any() | self.hdr_taken.q.val().udp_sport.any() | self.hdr_taken.q.val().pad.any()
            | self.cfg_out.fields.val().ipv6 | self.cfg_out.fields.val().remote_qpn.any() | self.cfg_out.fields.val().remote_ip.any()
            | self.cfg_out.fields.val().remote_mac.any() | self.cfg_out.fields.val().udp_sport.any() | self.cfg_out.fields.val().pkey.any()
            | self.cfg_out.fields.val().ttl.any() | self.cfg_out.fields.val().dscp.any() | self.cfg_out.fields.val().timeout.any() | self.cfg_out.fields.val().retry_cnt.any()
            | self.cfg_out.fields.val().rnr_retry.any();
        // ------------------------------------------------ ACT: all outputs it needs must have room
        self.can_act.next = (!self.d_do_cmd.q.val() | self.cmd_q.s_ready.val())
            & (!(self.d_do_ack.q.val() | self.d_do_job.q.val()) | self.out_q.s_ready.val())
            & (!self.d_do_resp.q.val() | self.resp_q.s_ready.val())
            & (!self.d_pay.q.val() | self.act_q.s_ready.val())
            & (!self.d_do_rcq.q.val() | self.rcq_q.s_ready.val());
        self.can_commit.next = !(self.d_do_ack.q.val() | self.d_do_job.q.val()) | self.out_q.s_ready.val();
        self.vd_ready.next = false;
        // a cut-through response's verdict goes on to the requester, which holds the response
        self.resp_vd.next = self.vd.val();
        self.resp_vd_valid.next = false;
        // ------------------------------------------------ the header FSM
        self.take.next = false;
        self.now.next = false;
        self.commit.next = false;
        self.held_bad.next = false;
        if self.hdr_fsm.q.val() == self.fsm_idle.val() {
            if self.ctl_req.val() {
                if self.ctl_write.val() {
                    self.cfg_ram.we.next = true;
                    self.rq_ram.we.next = true;
                    self.rdh_ram.waddr.next = self.ctl_qpn.val();
                    self.rdh_ram.wdata.next = self.rd_count_zero.val();
                    self.rdh_ram.we.next = true;
                    for i in 0..RD_RES {
                        self.res_ram[i].waddr.next = self.ctl_qpn.val();
                        self.res_ram[i].wdata.next = self.res_zero.val();
                        self.res_ram[i].we.next = true;
                    }
                    self.ctl_done.next = true;
                } else {
                    self.cfg_ram.raddr.next = self.ctl_qpn.val();
                    self.rq_ram.raddr.next = self.ctl_qpn.val();
                    self.hdr_fsm.d.next = self.fsm_ctl_read.val();
                }
            } else if self.recv_valid.val() {
                // a RECV post: its QP's state (the ring's head and tail) is read now
                self.rq_ram.raddr.next = self.post_qpn.val();
                self.hdr_fsm.d.next = self.fsm_post.val();
            } else {
                self.take.next = true;
            }
        }
        if self.hdr_fsm.q.val() == self.fsm_post.val() {
            // the post goes into its QP's ring at the tail, unless the QPN is beyond the table or
            // the ring is full (dropped, counted); the header waiting (if any) had its QP read in
            // this cycle: the write is forwarded to it when it is the same QP
            self.hdr_fsm.d.next = self.fsm_idle.val();
            if self.post_ok.val() {
                self.recv_ram.we.next = true;
                self.rq_in.fields.next = self.rq_out.fields.val();
                self.rq_in.fields.next.rq_recv_tail = self.ring_tail.val() + self.c1_5.val();
                self.rq_ram.waddr.next = self.post_qpn.val();
                self.rq_ram.we.next = true;
                self.fwd.d.next = self.post_qpn.val() == self.la_qpn.val();
                self.counters[18].d.next = self.counters[18].q.val() + 1;
            } else {
                self.counters[19].d.next = self.counters[19].q.val() + 1;
            }
        }
        if self.hdr_fsm.q.val() == self.fsm_recv_read.val() {
            // a SEND's RECV (at its QP's ring head), held until the SEND is acted on
            self.recv_ram.re.next = true;
            self.hdr_fsm.d.next = self.fsm_recv_check.val();
        }
        if self.hdr_fsm.q.val() == self.fsm_recv_check.val() {
            // a SEND FIRST or ONLY starts at the RECV's buffer, and must fit it
            if self.send_starts.val() {
                self.checks.d.next.addr = self.recv_out.fields.val().addr;
                self.checks.d.next.left = self.recv_out.fields.val().len;
                self.checks.d.next.len_ok = self.checks.q.val().len_ok & (bit_cast::<32, 16>(self.hdr_taken.q.val().plen) <= self.recv_out.fields.val().len);
            }
            self.hdr_fsm.d.next = self.fsm_look.val();
        }
        if self.hdr_fsm.q.val() == self.fsm_ctl_read.val() {
            self.ctl_done.next = true;
            self.hdr_fsm.d.next = self.fsm_idle.val();
        }
        if self.hdr_fsm.q.val() == self.fsm_look.val() {
            self.hdr_fsm.d.next = self.fsm_act.val();
            // defaults: nothing to send, payload (if any) dropped, state unchanged
            self.d_do_cmd.d.next = false;
            self.d_do_ack.d.next = false;
            self.d_do_job.d.next = false;
            self.d_do_resp.d.next = false;
            self.d_do_wb.d.next = false;
            self.d_pay.d.next = self.checks.q.val().plen_nz;
            self.d_hold.d.next = self.hdr_taken.q.val().spec & (self.checks.q.val().wr_first | self.checks.q.val().wr_only) & !self.reth_early.val();
            self.d_res_new.d.next = false;
            self.d_do_rcq.d.next = false;
            self.d_rcq_status.d.next = self.st_success.val();
            self.d_dup.d.next = false;
            self.d_dup2.d.next = false;
            self.d_dup3.d.next = false;
            self.d_rdh.d.next = self.rdh_ram.rdata.val();
            self.d_res.d.next.psn = self.hdr_taken.q.val().psn;
            self.d_res.d.next.n = self.checks.q.val().npkts;
            self.d_res.d.next.va = self.hdr_taken.q.val().va;
            self.d_res.d.next.end_lo = self.va_end64.val().get_bits::<32>(0);
            self.d_dest.d.next = self.dest_drop.val();
            self.d_wva.d.next = self.checks.q.val().addr + bit_cast::<64, 16>(self.hdr_taken.q.val().plen);
            self.d_wleft.d.next = self.checks.q.val().left - bit_cast::<32, 16>(self.hdr_taken.q.val().plen);
            self.d_wr_acc.d.next = false;
            self.d_cmd.d.next.addr = self.checks.q.val().addr;
            self.d_cmd.d.next.len = bit_cast::<32, 16>(self.hdr_taken.q.val().plen);
            self.d_cmd.d.next.tag = self.hdr_taken.q.val().dqpn;
            self.d_meta.d.next.qpn = self.hdr_taken.q.val().dqpn;
            self.d_meta.d.next.psn = self.hdr_taken.q.val().psn;
            self.d_meta.d.next.opcode = self.hdr_taken.q.val().opcode;
            self.d_meta.d.next.off = self.meta_off_zero.val();
            self.d_item.d.next.read = false;
            self.d_item.d.next.qpn = self.hdr_taken.q.val().dqpn;
            self.d_item.d.next.syndrome = self.syn_ack.val();
            self.d_item.d.next.msn = self.d_rq.q.val().rq_msn;
            self.d_item.d.next.psn = self.hdr_taken.q.val().psn;
            self.d_item.d.next.va = self.hdr_taken.q.val().va;
            self.d_item.d.next.len = self.hdr_taken.q.val().dma_len;
            self.d_item.d.next.pmtu = self.checks.q.val().pmtu;
            self.d_item.d.next.again = false;
            self.d_item.d.next.rb = false;
            self.cause[0].next = true;
            if !self.checks.q.val().qp_ok {
                self.cause[1].next = true;
            } else if self.checks.q.val().err {
                self.cause[3].next = true;
            } else if !self.checks.q.val().live {
                self.cause[2].next = true;
            } else if self.checks.q.val().resp & self.checks.q.val().key_ok {
                self.cause[14].next = true;
                self.d_do_resp.d.next = true;
                self.d_dest.d.next = self.dest_resp.val();
            } else if !self.hdr_taken.q.val().known | self.hdr_taken.q.val().len_err | !self.checks.q.val().key_ok {
                self.cause[4].next = true;
            } else if self.checks.q.val().behind {
                // a duplicate: every WRITE packet is ACKed again (expected PSN - 1), whether or
                // not it asks (IBA C9-105, as rxe does), and not executed again; a READ that asks
                // for a subset of a READ this QP accepted (inside its PSNs and its range, with
                // the QP's rkey), still valid for the QP's memory region, is answered again
                // (decided in ACT's third cycle, with the range); anything else is dropped
                self.cause[5].next = true;
                if self.checks.q.val().rd_req {
                    if self.checks.q.val().dup_fits & self.acc_ok.val() & self.checks.q.val().len_ok {
                        self.d_dup.d.next = true;
                        self.d_item.d.next.read = true;
                        self.d_item.d.next.again = true;
                    }
                } else {
                    self.d_do_ack.d.next = true;
                    self.d_item.d.next.psn = self.d_rq.q.val().rq_expected_psn - self.c1_24.val();
                }
            } else if self.checks.q.val().psn_ne {
                self.cause[6].next = true;
                if !self.d_rq.q.val().rq_nak_sent {
                    self.d_do_ack.d.next = true;
                    self.d_item.d.next.syndrome = self.syn_seq.val();
                    self.d_item.d.next.psn = self.d_rq.q.val().rq_expected_psn;
                    self.d_do_wb.d.next = true;
                    self.d_rq.d.next.rq_nak_sent = true;
                }
            } else if !self.checks.q.val().seq_ok | self.checks.q.val().other {
                self.cause[7].next = true;
                self.d_do_ack.d.next = true;
                self.d_item.d.next.syndrome = self.syn_inv.val();
                self.d_do_wb.d.next = true;
                self.d_rq.d.next.state = self.c_err.val();
            } else if self.send_starts.val() & self.checks.q.val().rcv_empty {
                // a SEND with no RECV posted: RNR NAK with the QP's timer; nothing else changes
                // but that the NAK counts as the gap's (the requester's packets after it, in
                // flight, are dropped without a sequence NAK that would end its RNR wait)
                self.cause[16].next = true;
                self.d_do_ack.d.next = true;
                self.d_item.d.next.syndrome = self.syn_rnr.val() | bit_cast::<8, 5>(self.checks.q.val().rnr_timer);
                self.d_do_wb.d.next = true;
                self.d_rq.d.next.rq_nak_sent = true;
            } else if !self.checks.q.val().len_ok {
                // (a SEND's RECV completes with a local length error)
                self.cause[8].next = true;
                self.d_do_ack.d.next = true;
                self.d_item.d.next.syndrome = self.syn_inv.val();
                self.d_do_wb.d.next = true;
                self.d_rq.d.next.state = self.c_err.val();
                if self.checks.q.val().send {
                    self.d_do_rcq.d.next = true;
                    self.d_rcq_status.d.next = self.st_loc_len.val();
                    self.d_rq.d.next.rq_recv_head = self.send_head.val() + self.c1_5.val();
                }
            } else if !self.acc_ok.val() {
                self.cause[9].next = true;
                self.d_do_ack.d.next = true;
                self.d_item.d.next.syndrome = self.syn_acc.val();
                self.d_do_wb.d.next = true;
                self.d_rq.d.next.state = self.c_err.val();
            } else if self.checks.q.val().rd_req {
                self.cause[11].next = true;
                self.d_res_new.d.next = true;
                self.d_do_job.d.next = true;
                self.d_item.d.next.read = true;
                self.d_item.d.next.msn = self.d_rq.q.val().rq_msn + self.c1_24.val();
                self.d_do_wb.d.next = true;
                self.d_rq.d.next.rq_expected_psn = self.d_rq.q.val().rq_expected_psn + self.checks.q.val().npkts;
                self.d_rq.d.next.rq_msn = self.d_rq.q.val().rq_msn + self.c1_24.val();
                self.d_rq.d.next.rq_nak_sent = false;
                self.d_rq.d.next.rq_unacked = self.c0_8.val();
            } else {
                // an accepted WRITE or SEND packet; the last of a SEND completes its RECV
                self.cause[10].next = !self.checks.q.val().send;
                self.cause[17].next = self.checks.q.val().send;
                self.d_rq.d.next.rq_in_send = self.checks.q.val().send;
                if self.checks.q.val().send & (self.checks.q.val().wr_last | self.checks.q.val().wr_only) {
                    self.d_do_rcq.d.next = true;
                    self.d_rq.d.next.rq_recv_head = self.send_head.val() + self.c1_5.val();
                }
                self.d_do_cmd.d.next = self.checks.q.val().plen_nz;
                self.d_dest.d.next = self.dest_dma.val();
                self.d_do_wb.d.next = true;
                self.d_rq.d.next.rq_expected_psn = self.d_rq.q.val().rq_expected_psn + self.c1_24.val();
                self.d_rq.d.next.rq_in_write = self.checks.q.val().wr_first | self.checks.q.val().wr_mid;
                self.d_rq.d.next.rq_nak_sent = false;
                self.d_wr_acc.d.next = true;
                self.d_rq.d.next.rq_unacked = self.d_rq.q.val().rq_unacked + self.c1_8.val();
                if self.checks.q.val().wr_last | self.checks.q.val().wr_only {
                    self.d_rq.d.next.rq_msn = self.d_rq.q.val().rq_msn + self.c1_24.val();
                    self.d_item.d.next.msn = self.d_rq.q.val().rq_msn + self.c1_24.val();
                }
                if self.checks.q.val().ack_now {
                    self.d_do_ack.d.next = true;
                    self.d_rq.d.next.rq_unacked = self.c0_8.val();
                }
            }
            for i in 0..NUM_COUNTERS {
                self.d_cause[i].d.next = self.cause[i].val();
            }
        }
        if self.hdr_fsm.q.val() == self.fsm_act.val() {
            if self.d_dup.q.val() {
                // a duplicate READ: its entry (if any holds its PSN) and that entry's range
                self.d_dup.d.next = false;
                self.d_dup2.d.next = self.last_hit.any.val();
                self.dup_psn_offset_q.d.next = self.dup_psn_offset.val();
            } else if self.d_dup2.q.val() {
                // its entry's range is here: the request checked against it
                self.d_dup2.d.next = false;
                self.d_dup3.d.next = true;
                self.dup_in_range_q.d.next = self.dup_in_range.val();
            } else if self.d_dup3.q.val() {
                // answered if inside the range
                self.d_dup3.d.next = false;
                if self.dup_in_range_q.q.val() {
                    self.d_cause[15].d.next = true;
                    self.d_do_job.d.next = true;
                    self.d_item.d.next.rb = self.dup_aligned.val() & self.checks.q.val().dup_near;
                }
            } else if self.wait_verdict.q.val() {
                // a cut-through frame's verdict: its held-back effects now, or none
                // (a held frame's command and payload go now too: they need their room)
                self.resp_vd_valid.next = self.vd_valid.val() & self.can_commit.val() & self.d_do_resp.q.val();
                if self.vd_valid.val() & self.can_commit.val() & (!self.d_do_resp.q.val() | self.resp_vd_ready.val()) & (!self.d_hold.q.val() | self.can_act.val()) {
                    self.vd_ready.next = true;
                    self.wait_verdict.d.next = false;
                    self.commit.next = !self.vd.val().get_bit(0);
                    self.now.next = self.d_hold.q.val();
                    self.held_bad.next = self.d_hold.q.val() & self.vd.val().get_bit(0);
                    self.hdr_fsm.d.next = self.fsm_idle.val();
                }
            } else if self.can_act.val() {
                self.now.next = !self.d_hold.q.val();
                if self.hdr_taken.q.val().spec {
                    self.wait_verdict.d.next = true;
                } else {
                    self.commit.next = true;
                    self.hdr_fsm.d.next = self.fsm_idle.val();
                    // the next header, in the same cycle, when it is for another QP (this
                    // cycle's write-back is to this header's QP; the RAMs read first) and the
                    // control plane is not waiting: two cycles a header
                    if !self.ctl_req.val() & !self.recv_valid.val() & self.qp_read_other.q.val() {
                        self.take.next = true;
                    }
                }
            }
        }
        if self.now.val() {
            self.cmd_q.s_valid.next = self.d_do_cmd.q.val() & !self.held_bad.val();
            self.resp_q.s_valid.next = self.d_do_resp.q.val();
            self.act_q.s_valid.next = self.d_pay.q.val();
            if self.held_bad.val() {
                self.act_q.s_data.next = (bit_cast::<18, 16>(self.hdr_taken.q.val().plen) << 2) | bit_cast::<18, 2>(self.dest_drop.val());
            }
        }
        if self.commit.val() {
            self.out_q.s_valid.next = self.d_do_ack.q.val() | self.d_do_job.q.val();
            self.rcq_q.s_valid.next = self.d_do_rcq.q.val();
            self.rq_in.fields.next = self.d_rq.q.val();
            if self.d_wr_acc.q.val() {
                self.rq_in.fields.next.rq_write_va = self.d_wva.q.val();
                self.rq_in.fields.next.rq_write_left = self.d_wleft.q.val();
            }
            self.rq_ram.waddr.next = self.h_qpn.val();
            self.rq_ram.we.next = self.d_do_wb.q.val();
            self.fwd.d.next = self.d_do_wb.q.val() & (self.h_qpn.val() == self.la_qpn.val());
            if self.d_res_new.q.val() {
                self.rdh_ram.we.next = true;
                self.rng_ram.we.next = true;
                for i in 0..RD_RES {
                    self.res_ram[i].we.next = self.d_rdh.q.val() == self.res_idx[i].val();
                }
            }
            for i in 0..12 {
                if self.d_cause[i].q.val() {
                    self.counters[i].d.next = self.counters[i].q.val() + 1;
                }
            }
            if self.d_do_ack.q.val() {
                if self.d_item.q.val().syndrome == self.syn_ack.val() {
                    self.counters[12].d.next = self.counters[12].q.val() + 1;
                } else {
                    self.counters[13].d.next = self.counters[13].q.val() + 1;
                }
            }
            for i in 14..18 {
                if self.d_cause[i].q.val() {
                    self.counters[i].d.next = self.counters[i].q.val() + 1;
                }
            }
        }
        if self.take.val() & self.qp_read_valid.q.val() {
            self.hdr_ready.next = true;
            if self.hdr_valid.val() {
                self.hdr_taken.d.next = self.hdr.val();
                self.d_rq.d.next = self.rq_out.fields.val();
                self.checks.d.next.wr_first = self.cls.wr_first.val();
                self.checks.d.next.wr_mid = self.cls.wr_mid.val();
                self.checks.d.next.wr_last = self.cls.wr_last.val();
                self.checks.d.next.wr_only = self.cls.wr_only.val();
                self.checks.d.next.rd_req = self.cls.rd_req.val();
                self.checks.d.next.resp = self.cls.resp.val();
                self.checks.d.next.other = self.cls.other.val();
                self.checks.d.next.qp_ok = self.qp_ok.val();
                self.checks.d.next.err = self.rq_out.fields.val().state == self.c_err.val();
                self.checks.d.next.live = self.live.val();
                self.checks.d.next.behind = self.psn_delta.val().get_bit(23);
                self.checks.d.next.psn_ne = self.psn_delta.val().any();
                self.checks.d.next.seq_ok = self.seq_ok.val();
                self.checks.d.next.len_ok = self.len_ok.val();
                // (the access check applies to a FIRST, ONLY or READ REQUEST)
                self.checks.d.next.acc_ovr = self.acc_ovr.val();
                self.checks.d.next.acc_key = self.acc_key.val();
                self.checks.d.next.acc_lo = self.hdr.val().va >= self.cfg_out.fields.val().mr_base;
                self.checks.d.next.acc_hi = self.va_end.val() <= self.mr_end.val();
                self.checks.d.next.dup_fits = self.dup_fits.val();
                self.checks.d.next.dup_near = self.dup_near.val();
                self.checks.d.next.ack_now = self.ack_now.val();
                self.checks.d.next.key_ok = self.key_ok.val();
                self.checks.d.next.plen_nz = self.hdr.val().plen.any();
                self.checks.d.next.npkts = self.npkts.val();
                self.checks.d.next.addr = self.addr.val();
                self.checks.d.next.left = self.left.val();
                self.checks.d.next.va_end = self.va_end.val();
                self.checks.d.next.pmtu = self.cfg_out.fields.val().pmtu;
                self.checks.d.next.send = self.cls.send.val();
                self.checks.d.next.rcv_empty = self.ring_head.val() == self.ring_tail.val();
                self.checks.d.next.rnr_timer = self.cfg_out.fields.val().min_rnr_timer;
                for i in 0..RD_RES {
                    self.res_ram[i].re.next = true;
                }
                self.hdr_fsm.d.next = self.fsm_look.val();
                if self.cls.send.val() {
                    self.hdr_fsm.d.next = self.fsm_recv_read.val();
                }
            }
        }
        self.qp_read_next.next = self.hdr_pre_valid.val() & !((self.hdr_fsm.q.val() == self.fsm_idle.val()) & (self.ctl_req.val() | self.recv_valid.val()));
        if self.hdr_valid.val() {
            self.qp_read_next.next = !(self.take.val() & self.qp_read_valid.q.val()) & !((self.hdr_fsm.q.val() == self.fsm_idle.val()) & (self.ctl_req.val() | self.recv_valid.val()));
        }
        self.qp_read_valid.d.next = self.qp_read_next.val();
        self.qp_read_other.d.next = self.qp_read_next.val() & (self.la_qpn.val() != self.h_qpn.val());
        // ------------------------------------------------ payload mover
        // a payload that ends before its length (a cut-through frame cut short) is padded with
        // zero beats to that length: the beat moved is the input's, or a zero one while padding
        self.a_dest.next = self.act_q.m_data.val().get_bits::<2>(0);
        self.a_len.next = self.act_q.m_data.val().get_bits::<16>(2);
        self.cur_left.next = self.a_len.val();
        self.more.next = self.a_len.val() > self.c64_16.val();
        self.nz.next = self.a_len.val().any();
        if self.mv_mid.q.val() | self.mv_pad.q.val() {
            self.cur_left.next = self.mv_left.q.val();
            self.more.next = self.mv_more.q.val();
            self.nz.next = self.mv_nz.q.val();
        }
        self.left_nx.next = self.cur_left.val() - self.c64_16.val();
        // the keep of the payload's last beat, from its length (a frame cut short inside that
        // beat leaves it with fewer bytes); all ones while more follows
        self.kfull.next = self.more.val() | (self.nz.val() & !self.a_len.val().get_bits::<6>(0).any());
        // bits below the length's low six (a shift of a constant: one LUT per bit)
        self.last_keep.next = !(self.ones64.val() << bit_cast::<64, 6>(self.a_len.val().get_bits::<6>(0)));
        if self.kfull.val() {
            self.last_keep.next = self.ones64.val();
        }
        self.mv_data.next = self.s_axis.tdata.val();
        self.mv_keep.next = self.s_axis.tkeep.val();
        self.mv_last.next = self.s_axis.tlast.val();
        self.mv_user.next = self.s_axis.tuser.val();
        self.mv_valid.next = self.act_q.m_valid.val() & self.s_axis.tvalid.val();
        if self.mv_pad.q.val() {
            self.mv_data.next = self.zero512.val();
            self.mv_user.next = false;
            self.mv_valid.next = true;
        }
        // the input's last beat, or a padding beat: the length decides keep and last
        if self.mv_pad.q.val() | self.s_axis.tlast.val() {
            self.mv_keep.next = self.last_keep.val();
            self.mv_last.next = !self.more.val();
        }
        self.dma_out.s_axis.tdata.next = self.mv_data.val();
        self.dma_out.s_axis.tkeep.next = self.mv_keep.val();
        self.dma_out.s_axis.tlast.next = self.mv_last.val();
        self.dma_out.s_axis.tuser.next = self.mv_user.val();
        self.resp_out.s_axis.tdata.next = self.mv_data.val();
        self.resp_out.s_axis.tkeep.next = self.mv_keep.val();
        self.resp_out.s_axis.tlast.next = self.mv_last.val();
        self.resp_out.s_axis.tuser.next = self.mv_user.val();
        self.dma_out.s_axis.tvalid.next = false;
        self.resp_out.s_axis.tvalid.next = false;
        self.act_q.m_ready.next = false;
        self.mv_go.next = false;
        if self.act_q.m_valid.val() {
            if self.a_dest.val() == self.dest_dma.val() {
                self.dma_out.s_axis.tvalid.next = self.mv_valid.val();
                self.mv_go.next = self.dma_out.s_axis.tready.val();
            } else if self.a_dest.val() == self.dest_resp.val() {
                self.resp_out.s_axis.tvalid.next = self.mv_valid.val();
                self.mv_go.next = self.resp_out.s_axis.tready.val();
            } else {
                self.mv_go.next = true;
            }
            if self.mv_valid.val() & self.mv_go.val() {
                self.mv_left.d.next = self.left_nx.val();
                self.mv_more.d.next = self.left_nx.val() > self.c64_16.val();
                self.mv_nz.d.next = self.left_nx.val().any();
                if self.mv_pad.q.val() {
                    if !self.more.val() {
                        self.mv_pad.d.next = false;
                        self.act_q.m_ready.next = true;
                    }
                } else {
                    self.mv_mid.d.next = true;
                    if self.s_axis.tlast.val() {
                        self.mv_mid.d.next = false;
                        if self.more.val() & (self.a_dest.val() != self.dest_drop.val()) {
                            self.mv_pad.d.next = true;
                        } else {
                            self.act_q.m_ready.next = true;
                        }
                    }
                }
            }
        }
        self.s_axis.tready.next = self.act_q.m_valid.val() & self.mv_go.val() & !self.mv_pad.q.val();
        Axis512Source::link(&mut self.m_axis_dma_wr, &mut self.dma_out.m_axis);
        Axis512Source::link(&mut self.m_axis_resp, &mut self.resp_out.m_axis);
        // the metadata queue moves in lock step with the command queue
        self.meta_q.s_valid.next = self.cmd_q.s_valid.val();
        if self.reset.val() {
            self.hdr_fsm.d.next = self.fsm_idle.val();
            self.qp_read_valid.d.next = false;
            self.qp_read_other.d.next = false;
            self.fwd.d.next = false;
            self.d_dup.d.next = false;
            self.d_dup2.d.next = false;
            self.d_dup3.d.next = false;
            self.wait_verdict.d.next = false;
            self.mv_mid.d.next = false;
            self.mv_pad.d.next = false;
            for i in 0..NUM_COUNTERS {
                self.counters[i].d.next = 0.into();
            }
        }
    }
}

const _: () = assert!(RdResFields::BITS == 144);

/// The default table: 512 entries (500 QPs).
pub type RoceResponder500 = RoceResponder<9, 13>;
pub type RoceResponder4k = RoceResponder<12, 16>;

nicgen_hdl::impl_ports!(RoceResponder500, clock = clock, [clock, reset, hdr, hdr_valid, hdr_ready,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    dma_wr_cmd, dma_wr_cmd_valid, dma_wr_cmd_ready, dma_wr_meta,
    m_axis_dma_wr.tdata, m_axis_dma_wr.tkeep, m_axis_dma_wr.tlast, m_axis_dma_wr.tuser, m_axis_dma_wr.tvalid, m_axis_dma_wr.tready,
    rsp, rsp_valid, rsp_ready, resp, resp_valid, resp_ready,
    m_axis_resp.tdata, m_axis_resp.tkeep, m_axis_resp.tlast, m_axis_resp.tuser, m_axis_resp.tvalid, m_axis_resp.tready,
    resp_vd, resp_vd_valid, resp_vd_ready, vd, vd_valid, vd_ready, reth_early, hdr_pre_qpn, hdr_pre_valid, num_qps, ack_every, ctl_req, ctl_write, ctl_qpn, ctl_cfg, ctl_rq, ctl_done, rd_cfg, rd_rq,
    recv, recv_valid, recv_ready, rcq, rcq_valid, rcq_ready,
    cnt.headers, cnt.unknown_qp, cnt.qp_not_ready, cnt.qp_error, cnt.malformed, cnt.duplicate, cnt.psn_out_of_window,
    cnt.bad_opcode_seq, cnt.length_error, cnt.rkey_violation, cnt.writes, cnt.reads, cnt.acks, cnt.naks, cnt.to_requester, cnt.read_replays,
    cnt.rnr_naks, cnt.sends, cnt.recv_posted, cnt.recv_dropped]);

/// `LastHit`: of `N` (at most 16) entries, the last whose `hit` is set: `any`, its index `idx`
/// and its `d`. As a tree of 2:1 selects in which the upper half wins, written out as
/// custom Verilog, in place of a chain of `N` 2:1 selects: the responder's READ-resource match
/// went through 16 of them on its way to a register (11 LUT levels in the engine).
#[derive(LogicBlock)]
pub struct LastHit<const N: usize, const W: usize> {
    pub hit: [Signal<In, Bit>; N],
    pub d: [Signal<In, Bits<W>>; N],
    pub any: Signal<Out, Bit>,
    pub idx: Signal<Out, Bits<4>>,
    pub y: Signal<Out, Bits<W>>,
}

impl<const N: usize, const W: usize> Default for LastHit<N, W> {
    fn default() -> Self {
        assert!((2..=16).contains(&N));
        LastHit { hit: std::array::from_fn(|_| Default::default()), d: std::array::from_fn(|_| Default::default()), any: Default::default(), idx: Default::default(), y: Default::default() }
    }
}

impl<const N: usize, const W: usize> LastHit<N, W> {
    /// The model: (any, idx, y) of the last entry hit; for none, (false, 0, d[0]), as the tree
    /// gives (its selects fall to the lowest entry).
    pub fn model(hit: &[bool], d: &[u64]) -> (bool, u64, u64) {
        hit.iter().rposition(|&h| h).map_or((false, 0, d[0]), |i| (true, i as u64, d[i]))
    }
}

impl<const N: usize, const W: usize> Logic for LastHit<N, W> {
    fn update(&mut self) {
        let hit: Vec<bool> = self.hit.iter().map(|h| h.val()).collect();
        let d: Vec<u64> = self.d.iter().map(|d| d.val().into()).collect();
        let (any, idx, y) = Self::model(&hit, &d);
        self.any.next = any;
        self.idx.next = idx.into();
        self.y.next = y.into();
    }
    fn connect(&mut self) {
        self.any.connect();
        self.idx.connect();
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        // a binary tree of (any, idx, y) pairs in which the upper half wins when it has a hit:
        // each level is one 2:1 select on an OR of the level below, so the depth grows with
        // log2(N) (a flat AND-OR of `hit[i] & ~|hit[N-1:i+1]` was mapped into a chain)
        let mut v = String::new();
        let mut cur: Vec<(String, Option<String>, String)> = (0..N).map(|i| (format!("hit${i}"), None, format!("d${i}"))).collect();
        let mut lvl = 0;
        while cur.len() > 1 {
            let mut next = Vec::new();
            for (k, pair) in cur.chunks(2).enumerate() {
                let (a, ix, y) = (format!("a{lvl}_{k}"), format!("i{lvl}_{k}"), format!("y{lvl}_{k}"));
                let lo = &pair[0];
                let lo_ix = lo.1.clone().map_or("1'b0".to_string(), |i| format!("1'b0, {i}"));
                match pair.get(1) {
                    Some(hi) => {
                        let hi_ix = hi.1.clone().map_or("1'b1".to_string(), |i| format!("1'b1, {i}"));
                        v += &format!("wire {a} = {} | {};\n", hi.0, lo.0);
                        v += &format!("wire [{lvl}:0] {ix} = {} ? {{{hi_ix}}} : {{{lo_ix}}};\n", hi.0);
                        v += &format!("wire [{}:0] {y} = {} ? {} : {};\n", W - 1, hi.0, hi.2, lo.2);
                    }
                    None => {
                        v += &format!("wire {a} = {};\n", lo.0);
                        v += &format!("wire [{lvl}:0] {ix} = {{{lo_ix}}};\n");
                        v += &format!("wire [{}:0] {y} = {};\n", W - 1, lo.2);
                    }
                }
                next.push((a, Some(ix), y));
            }
            cur = next;
            lvl += 1;
        }
        let (a, ix, y) = &cur[0];
        let ix = ix.clone().unwrap();
        v += &format!("always @(*) begin\n  any = {a};\n  idx = {};\n  y = {y};\nend\n", if lvl < 4 { format!("{{{}'d0, {ix}}}", 4 - lvl) } else { ix });
        Verilog::Custom(v)
    }
}
