//! `RoceRequester` (the requester's completion side): matches ACKs, NAKs and READ responses
//! against the messages the TX requester has sent (`sent`, kept in a ring of 16 per QP in RAM)
//! and posts completions on `cq`.
//!
//! * An ACK completes every outstanding WRITE or SEND whose last PSN it covers (coalesced ACKs complete
//!   several); an ACK inside a multi-packet message moves the oldest unacknowledged PSN. An ACK
//!   with a PSN outside `[oldest unacknowledged, last sent]`, or with nothing outstanding, is
//!   ignored and counted (`ack_out_of_window`).
//! * A READ response (in order: its PSN is the oldest unacknowledged) is written to host memory
//!   at the READ's local address plus `(psn - first psn) × PMTU`; the last one completes the READ.
//!   It first completes, implicitly, WRITEs sent before the READ. A response out of order is
//!   dropped and counted (`resp_unexpected`; recovery is the reliability issue's).
//! * NAK 0x60 completes the messages before its PSN and is counted (Go-Back-N is the reliability
//!   issue's). NAK 0x61/0x62/0x63 completes the messages before its PSN, then the one it names
//!   with `remote invalid request`/`remote access error`/`remote operational error`, flushes the
//!   rest (`flushed`) and moves the QP's requester to ERROR; later work completes as flushed, as
//!   does work the TX requester did not send because its QP was not in RTS.
//! * Completions: one per signaled message, and one per message that ends in error.
//! * Speculative placement: a response with `spec` set was cut through the RX buffer, and its
//!   verdict follows on `vd`. Nothing is decided for it before the verdict, but the next READ
//!   response of the oldest message whose bytes lie inside the READ's buffer is placed at once
//!   (DMA command and payload). A good verdict then evaluates the response as if it had been
//!   stored; after a bad one only the placed bytes remain, which the good copy of that PSN
//!   writes again.
use crate::record::{FromBits, ToBits};
use crate::roce::hdr::RoceHdr;
use crate::roce::qp::*;
use crate::roce::*;
use crate::service::slot::SlotMeta;
use crate::stream::*;
use nicgen_model::opcode as op;
use rust_hdl::prelude::*;

const SENT_BITS: usize = SentWrFields::BITS;
/// A ring entry: the sent record, and above it (bits 303..319) the length of the response at
/// its last PSN (`last_len`), worked out as the record is written so that a READ response's
/// length check does not start with three carry chains behind the ring RAM's output.
const RING_BITS: usize = SENT_BITS + 16;
// a full ring is `count` bit 4 (`rec_full_unused_low`), and its slots are 4-bit indices
const _: () = assert!(RING == 16);
const _: () = assert!(SENT_BITS == 303 && RING_BITS == 319);
const RTX_BITS: usize = RtxWrFields::BITS;
const RTX_W: usize = RTX_BITS + 3;
/// Counters of the requester (`counts`).
const NK: usize = 14;

/// A retransmit timer's limit, `1024 << timeout` cycles, as the mask of the elapsed-time bits
/// that mean expired: elapsed ≥ 1024 << timeout exactly when a bit at or above 10 + timeout is
/// set (bits 10 + timeout .. 31, or bit 31 alone when timeout > 21). The test is then an AND-OR,
/// not a subtractor and compare. The timer scan and the timer step each have one.
#[derive(LogicBlock)]
pub struct TimeoutMask {
    pub timeout: Signal<In, Bits<5>>,
    pub mask: Signal<Out, Bits<32>>,
    c21: Constant<Bits<5>>,
    c_m1k: Constant<Bits<32>>,
    c2_31: Constant<Bits<32>>,
}

impl Default for TimeoutMask {
    fn default() -> Self {
        TimeoutMask {
            timeout: Default::default(),
            mask: Default::default(),
            c21: Constant::new(21.into()),
            c_m1k: Constant::new(0xFFFF_FC00u64.into()),
            c2_31: Constant::new((1u64 << 31).into()),
        }
    }
}

impl Logic for TimeoutMask {
    #[hdl_gen]
    fn update(&mut self) {
        self.mask.next = self.c_m1k.val() << bit_cast::<32, 5>(self.timeout.val());
        if self.timeout.val() > self.c21.val() {
            self.mask.next = self.c2_31.val();
        }
    }
}

#[derive(LogicInterface, Default)]
pub struct ReqCounters {
    pub acks: Signal<Out, Bits<32>>,
    pub ack_out_of_window: Signal<Out, Bits<32>>,
    pub nak_seq: Signal<Out, Bits<32>>,
    pub nak_fatal: Signal<Out, Bits<32>>,
    pub read_resp: Signal<Out, Bits<32>>,
    pub resp_unexpected: Signal<Out, Bits<32>>,
    pub completions: Signal<Out, Bits<32>>,
    /// ACKs for PSNs already acknowledged (behind the oldest unacknowledged one): ignored.
    pub ack_duplicate: Signal<Out, Bits<32>>,
    /// READ responses ahead of the expected PSN (implied NAK).
    pub implied_nak: Signal<Out, Bits<32>>,
    /// Retransmit timer expiries.
    pub timeouts: Signal<Out, Bits<32>>,
    /// Go-Back-N replays started.
    pub replays: Signal<Out, Bits<32>>,
    /// Replays not started (no retries left, or no room in the retransmission queue): the
    /// timer takes over.
    pub replay_deferred: Signal<Out, Bits<32>>,
    /// READ responses whose opcode or length does not fit their place in the READ: the READ
    /// fails with `BAD_RESPONSE` and nothing of the response is written.
    pub bad_response: Signal<Out, Bits<32>>,
    /// RNR NAKs received: the messages before the PSN complete, the rest wait for the RNR
    /// timer and are sent again.
    pub rnr_naks: Signal<Out, Bits<32>>,
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

crate::record!(
    /// A READ response's DMA write as it waits in `cmd_q`: its address is worked out as it
    /// leaves (`laddr + (dpsn << (8 + pmtu))`, the response's place in the READ's buffer), so
    /// the queue's input has no adder behind the PSN offset's subtractor.
    RdWrCmd,
    RdWrCmdFields {
        laddr: u64 = 64,
        /// The response's PSN minus the READ's first PSN.
        dpsn: u32 = 24,
        pmtu: u8 = 3,
        len: u32 = 32,
        tag: u32 = 24,
    }
);

#[derive(LogicBlock)]
pub struct RoceRequester<const A: usize, const R: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub sent: Signal<In, SentWr>,
    pub sent_valid: Signal<In, Bit>,
    pub sent_ready: Signal<Out, Bit>,
    /// `sent_ready` for a new message's record (not a flush), without `sent_valid`: the record
    /// would be taken now. The TX uses it in its `rec` state, where it equals `sent_ready`, so
    /// that its send decision does not wait on its own `sent_valid` going through this block.
    pub sent_take: Signal<Out, Bit>,
    /// The TX's hint that a record may follow next cycle, for the QP on `sent` now: its ring
    /// state is read at once (a hint that no record follows costs one cycle).
    pub sent_soon: Signal<In, Bit>,
    pub resp: Signal<In, RoceHdr>,
    pub resp_valid: Signal<In, Bit>,
    pub resp_ready: Signal<Out, Bit>,
    pub s_axis: Axis512Sink,
    /// The verdicts of the responses with `spec` set (cut through the RX buffer), in order: bit
    /// 0 bad, bit 1 the tap's flag.
    pub vd: Signal<In, Bits<2>>,
    pub vd_valid: Signal<In, Bit>,
    pub vd_ready: Signal<Out, Bit>,
    pub cq: Signal<Out, CqEntry>,
    pub cq_valid: Signal<Out, Bit>,
    pub cq_ready: Signal<In, Bit>,
    pub dma_wr_cmd: Signal<Out, DmaCmd>,
    pub dma_wr_cmd_valid: Signal<Out, Bit>,
    pub dma_wr_cmd_ready: Signal<In, Bit>,
    /// The packet each DMA write belongs to, beside `dma_wr_cmd` (for the RX payload slot).
    pub dma_wr_meta: Signal<Out, SlotMeta>,
    /// A fatal NAK put this QP's requester in ERROR: the TX stops sending for it.
    pub err_qpn: Signal<Out, Bits<A>>,
    pub err_valid: Signal<Out, Bit>,
    pub err_ready: Signal<In, Bit>,
    pub m_axis_dma_wr: Axis512Source,
    /// Control-plane reset of a QP's requester state (empty ring, no error), held until done.
    pub ctl_req: Signal<In, Bit>,
    pub ctl_qpn: Signal<In, Bits<A>>,
    /// The QP's local ACK timeout and retry count (IBA attributes), written with `ctl_req`.
    pub ctl_timeout: Signal<In, Bits<5>>,
    pub ctl_retry: Signal<In, Bits<3>>,
    pub ctl_rnr_retry: Signal<In, Bits<3>>,
    pub ctl_done: Signal<Out, Bit>,
    /// Go-Back-N: the outstanding messages of a QP to send again, oldest first.
    pub rtx: Signal<Out, RtxWr>,
    pub rtx_valid: Signal<Out, Bit>,
    pub rtx_ready: Signal<In, Bit>,
    /// Every write of a QP's state, for the TX window: its oldest unacknowledged PSN, and
    /// `una_open` when nothing is outstanding (or the QP is in error).
    pub una_wr: Signal<Out, Bit>,
    pub una_qpn: Signal<Out, Bits<A>>,
    pub una_psn: Signal<Out, Bits<24>>,
    pub una_open: Signal<Out, Bit>,
    pub cnt: ReqCounters,
    rtx_in: ToBits<RtxWr, RTX_BITS>,
    rtx_fifo: AxisFifo<RTX_BITS, 1, RTX_W, 6>,
    rtx_out: FromBits<RtxWr, RTX_BITS>,
    rtx_room: Signal<Local, Bit>,
    /// `rtx_room` a cycle late, as a register: only a replay fills the FIFO, and no step
    /// follows a replay's last write by less than two cycles (idle, LOOK), so the late value
    /// is never above the true level.
    rtx_room_q: DFF<Bit>,
    /// Free-running cycle count (the retransmit timers' time base).
    now: DFF<Bits<32>>,
    /// Retransmit timers: a copy of each QP's {armed, timeout, stamp}, written with the QP's
    /// state and scanned one QP per cycle on its own read port; an expired QP goes on `tmo_q`
    /// and the FSM checks it against the QP's state (a timer job, `scan`).
    tmr_ram: Ram<38, A>,
    scan_q: DFF<Bits<A>>,
    scan_qd: DFF<Bits<A>>,
    t_stamp: Signal<Local, Bits<32>>,
    t_to: Signal<Local, Bits<5>>,
    t_msk: TimeoutMask,
    /// The scan's second stage: the entry read, armed (with a non-zero timeout), the time since
    /// its stamp (`now − stamp`, subtracted in the first stage), its limit as a mask of the
    /// elapsed-time bits that mean expired (worked out in the first), and its QP; the expiry test
    /// is an AND-OR of these registers.
    tm_v: DFF<Bit>,
    tm_el: DFF<Bits<32>>,
    tm_msk: DFF<Bits<32>>,
    tm_q: DFF<Bits<A>>,
    t_in: Signal<Local, Bits<38>>,
    tmo_q: ChanSkid<Bits<A>>,
    scan: DFF<Bit>,
    una0: DFF<Bits<24>>,
    expired: Signal<Local, Bit>,
    want_rty: Signal<Local, Bit>,
    /// The oldest message fails with `fail_status` (a fatal NAK, or retry exceeded).
    fail: Signal<Local, Bit>,
    fail_status: Signal<Local, Bits<4>>,
    prog: Signal<Local, Bit>,
    /// `prog` for each value the step may give the oldest unacknowledged PSN, each compared with
    /// `una0` beside the step's decision (not after it): the PSN kept, the header's PSN + 1, the
    /// header's PSN, the ring entry's last PSN + 1.
    prog_if_kept: Signal<Local, Bit>,
    prog_if_hdr_next: Signal<Local, Bit>,
    prog_if_hdr: Signal<Local, Bit>,
    /// `prog_if_hdr` and `prog_if_hdr_next` as registers: the header and `una0` are fixed for a job, so both
    /// are compared in LOOK, from the state read. `prog_if_kept` is a register too: false after LOOK
    /// (`qp_req` is the state read, whose PSN is `una0`), and after each step the step's `prog`
    /// (which is exactly "the PSN the step leaves differs from `una0`").
    prog_if_hdr_q: DFF<Bit>,
    prog_if_hdr_next_q: DFF<Bit>,
    prog_if_kept_q: DFF<Bit>,
    prog_if_entry_end: Signal<Local, Bit>,
    rty_go: Signal<Local, Bit>,
    /// `rty_go` if the step made progress (`_p`, the retries restored first) and if not (`_n`).
    rty_go_p: Signal<Local, Bit>,
    rty_go_n: Signal<Local, Bit>,
    p_fin: Signal<Local, QpReq>,
    behind: Signal<Local, Bit>,
    /// The response's PSN against the QP's window [una, last], as registers: worked out in LOOK
    /// from the state read (`w_in`, `w_beh`), and in each evaluation step for the oldest
    /// unacknowledged PSN that completing the step's message leaves (`w_in_e`, `w_beh_e`: its
    /// last PSN + 1); `w_mv` says the step before completed its message. Only a completion moves
    /// the PSN without ending the evaluation, so `in_win` and `behind` are a select on registers,
    /// not two subtractions and a compare behind `qp_req`.
    w_in: DFF<Bit>,
    w_beh: DFF<Bit>,
    w_in_e: DFF<Bit>,
    w_beh_e: DFF<Bit>,
    w_mv: DFF<Bit>,
    w_in_now: Signal<Local, Bit>,
    w_beh_now: Signal<Local, Bit>,
    /// The window [una, last] the check is made against (LOOK: the state read; EVAL: after this
    /// step's message), the response's distance from `una`, and the check's two results.
    w_una: Signal<Local, Bits<24>>,
    w_last: Signal<Local, Bits<24>>,
    w_d: Signal<Local, Bits<24>>,
    w_new_in: Signal<Local, Bit>,
    // replay: ring entries tail .. tail + n - 1, the first from `rp_una`
    rp_i: DFF<Bits<5>>,
    rp_n: DFF<Bits<5>>,
    rp_una: DFF<Bits<24>>,
    rp_dpsn: Signal<Local, Bits<24>>,
    rp_off: Signal<Local, Bits<32>>,
    c8_4: Constant<Bits<4>>,
    c0_32: Constant<Bits<32>>,
    c1_3: Constant<Bits<3>>,
    rp_last: Signal<Local, Bit>,
    t_armed: Signal<Local, Bit>,
    c1_a: Constant<Bits<A>>,
    rp_ptr: DFF<Bits<4>>,
    c48: Constant<Bits<16>>,
    st_retry: Constant<Bits<4>>,
    s_rp_rd: Constant<Bits<3>>,
    s_rp_em: Constant<Bits<3>>,
    resp_q: ChanSkid<RoceHdr>,
    cq_q: ChanSkid<CqEntry>,
    cmd_q: ChanSkid<RdWrCmd>,
    meta_q: ChanSkid<SlotMeta>,
    err_q: ChanSkid<Bits<A>>,
    act_q: ChanSkid<Bit>,
    vd_q: ChanSkid<Bits<2>>,
    /// Speculative placement: a `spec` response's payload is already on its way, placed (its
    /// DMA command pushed) or dropped in the verdict wait, so the evaluation after a good verdict
    /// does not send it again.
    placed: DFF<Bit>,
    /// The response waiting for its verdict may be placed at once: it is the next one of the
    /// oldest message, a READ (`vw_pl`), and it lies inside the READ's buffer (`vw_fit`).
    vw_pl: DFF<Bit>,
    vw_fit: DFF<Bit>,
    /// Its payload may be placed after a good verdict (`vw_pl`, or behind WRITEs it completes);
    /// otherwise it is dropped at once, whatever the verdict.
    vw_keep: DFF<Bit>,
    /// Whether the response's length is at most the READ's last length (`rf_last`), and at most
    /// its PMTU (`le_sh`, from `h_le`).
    rf_last: Signal<Local, Bit>,
    le_sh: Signal<Local, Bits<8>>,
    /// The response is the next one of the oldest message, a READ (its PSN the oldest
    /// unacknowledged one); and it is a READ response with something outstanding, QP not in error.
    rr_next: Signal<Local, Bit>,
    rr_live: Signal<Local, Bit>,
    /// The response fits its place in the READ: a LAST or ONLY at the READ's last PSN and only
    /// there, a FIRST or ONLY at its first PSN (a retried READ starts again with a FIRST or ONLY
    /// at the PSN it resumes from); exactly PMTU bytes before the last PSN and the rest of the
    /// READ's length at it. So the responses of a READ write exactly its buffer (IBA 9.9.2.3: a
    /// response of the wrong length is a bad response).
    rr_shape: Signal<Local, Bit>,
    rr_len_ok: Signal<Local, Bit>,
    rr_at_first: Signal<Local, Bit>,
    rr_at_last: Signal<Local, Bit>,
    rr_op_first: Signal<Local, Bit>,
    rr_op_last: Signal<Local, Bit>,
    /// Decoded as the header is taken from `resp_q` (like `h_rr`): FIRST or ONLY, LAST or ONLY,
    /// and bit k: the payload length is 256 << k (the PMTU of code k).
    h_rof: DFF<Bit>,
    h_rol: DFF<Bit>,
    h_pm: DFF<Bits<8>>,
    /// Bit k: the payload length is at most 256 << k. From the length's high byte smeared
    /// right (`hi_smear*`: bit k set when the high byte is 2^k or more), or `n_pm`.
    h_le: DFF<Bits<8>>,
    n_pm: Signal<Local, Bits<8>>,
    hi_smear1: Signal<Local, Bits<8>>,
    hi_smear2: Signal<Local, Bits<8>>,
    hi_smear4: Signal<Local, Bits<8>>,
    c255_8: Constant<Bits<8>>,
    n_hi: Signal<Local, Bits<8>>,
    n_plen: Signal<Local, Bits<16>>,
    pm_sh: Signal<Local, Bits<8>>,
    c1_8: Constant<Bits<8>>,
    c0_8: Constant<Bits<8>>,
    /// The header's PSN is the oldest unacknowledged one (`h.psn == p.sq_una_psn`), as a
    /// register: compared in LOOK with the state read, and set with each step's new PSN (the
    /// header's PSN + 1: no; the header's PSN: yes; the entry's last PSN + 1: `rn_e`).
    rn_q: DFF<Bit>,
    rn_e: Signal<Local, Bit>,
    rn_nx: Signal<Local, Bit>,
    last_len: Signal<Local, Bits<16>>,
    /// The same for the record being written (`sent`), and its PMTU in bytes.
    s_pm: Signal<Local, Bits<16>>,
    s_len: Signal<Local, Bits<32>>,
    s_last_len: Signal<Local, Bits<16>>,
    c256_16: Constant<Bits<16>>,
    c1_16: Constant<Bits<16>>,
    o_rl: Constant<Bits<8>>,
    st_bad: Constant<Bits<4>>,
    s_vw: Constant<Bits<3>>,
    /// The payload to host memory: a register stage (the write mux's ready is one LUT on its
    /// registers). Its ready runs on through the responder's register stage and the parser's
    /// stripper to the parser's trimmer, whose skid ends the path.
    dma_out: AxisReg<512, 64>,
    ptr_ram: Ram<QP_REQ_BITS, A>,
    ring_ram: Ram<RING_BITS, R>,
    /// Beside the ring: word `qpn * 16 + i` holds the last PSN of entry `i + 1`, written with
    /// that entry, and read with the ring at the same address. A step that completes the oldest
    /// message so has the next one's last PSN a cycle early, and whether the ACK covers it
    /// (`e_done`) is a register, not a carry chain behind the ring RAM at the head of the step's
    /// decision.
    nx_ram: Ram<24, R>,
    /// The ring's read address and enable, given to both RAMs.
    r_raddr: Signal<Local, Bits<R>>,
    r_re: Signal<Local, Bit>,
    nx_last: Signal<Local, Bits<24>>,
    /// `e_done` for the step: loaded in LOOK from the state's `tail_last`, and after a step
    /// that completes the oldest message from `nx_last`.
    e_done_q: DFF<Bit>,
    ed_look: Signal<Local, Bit>,
    ed_nx: Signal<Local, Bit>,
    ed_look_unused_low: Signal<Local, Bits<24>>,
    ed_nx_unused_low: Signal<Local, Bits<24>>,
    /// The same for `rr_at_last` (the header's PSN is the oldest message's last) and `prog_if_entry_end`
    /// (completing the oldest message moves the oldest unacknowledged PSN): registers loaded in
    /// LOOK from `tail_last` and after a completing step from `nx_last`.
    rl_q: DFF<Bit>,
    /// The ring slot before `head` (the entry whose `nx_ram` word a new record writes).
    head_m1: Signal<Local, Bits<4>>,
    prog_if_entry_end_q: DFF<Bit>,
    /// The retransmit timer's expiry for a timer job. LOOK registers the time since the state's
    /// stamp (`x_el`), its timeout (`x_to`) and whether the timer runs (`x_on`: messages
    /// outstanding, no error, a non-zero timeout); a timer job then spends one cycle in EXP,
    /// which tests these registers against the limit's mask (`x_msk`) into `p_exp`, read by
    /// the step in its first cycle. No carry chain and no mask sits behind the state's read.
    p_exp: DFF<Bit>,
    x_el: DFF<Bits<32>>,
    x_to: DFF<Bits<5>>,
    x_on: DFF<Bit>,
    x_msk: TimeoutMask,
    ptr_in: ToBits<QpReq, QP_REQ_BITS>,
    ptr_out: FromBits<QpReq, QP_REQ_BITS>,
    /// A state read issued in the cycle its QP's state was written (read-first RAM) takes the
    /// written value instead: the FSM takes its next job in the cycle it finishes one.
    disp: Signal<Local, Bit>,
    /// A dispatch would take the sent record (the address choice and the dispatch share it).
    take_sent: Signal<Local, Bit>,
    ring_in: ToBits<SentWr, SENT_BITS>,
    ring_out: FromBits<SentWr, SENT_BITS>,
    /// The completion side's state machine: 0 idle, 1 look (ptr in, ring read), 2 evaluate,
    /// 3 record a sent message, 4/5 replay, 6 a cut-through response's verdict wait.
    cmp_fsm: DFF<Bits<3>>,
    hdr_taken: DFF<RoceHdr>,
    qp_req: DFF<QpReq>,
    qp_req_next: Signal<Local, QpReq>,
    fatal: DFF<Bit>,
    sblk: DFF<Bit>,
    first: DFF<Bit>,
    counts: [DFF<Bits<32>>; NK],
    qpn_a: Signal<Local, Bits<A>>,
    in_qpn: Signal<Local, Bits<A>>,
    h_qpn: Signal<Local, Bits<A>>,
    entry: Signal<Local, SentWr>,
    is_ack: Signal<Local, Bit>,
    is_nak_seq: Signal<Local, Bit>,
    /// An RNR NAK (AETH syndrome 001xxxxx), its decode as taken and registered.
    is_rnr: Signal<Local, Bit>,
    n_rnr: Signal<Local, Bit>,
    h_rnr: DFF<Bit>,
    syn_rnr: Constant<Bits<3>>,
    /// The RNR NAK's timer code, and the timeout code the requester waits for it
    /// (`(code >> 1) + 2`, or 18 for code 0: the smallest 4.096 µs × 2^t at least IBA's time).
    rnr_code: Signal<Local, Bits<5>>,
    h_syn: Signal<Local, Bits<8>>,
    rnr_wait: Signal<Local, Bits<5>>,
    /// This step is an RNR NAK's (its stamp restarts the timer), or a timer expiry that
    /// replays after one (an RNR retry, not a timeout retry).
    rnr_now: Signal<Local, Bit>,
    rnr_fire: Signal<Local, Bit>,
    st_rnr: Constant<Bits<4>>,
    c7_3: Constant<Bits<3>>,
    c2_5: Constant<Bits<5>>,
    c18_5: Constant<Bits<5>>,
    /// The timeout code the QP's timer runs for: the ACK timeout, or after an RNR NAK its wait.
    t_code_in: Signal<Local, Bits<5>>,
    is_nak_fatal: Signal<Local, Bit>,
    is_rr: Signal<Local, Bit>,
    cov_psn: Signal<Local, Bits<24>>,
    /// The decode of the header as it is taken (`resp_q`), registered beside `hdr_taken` so that a step's
    /// evaluation starts from flops: is it an ACK, a sequence NAK, a fatal NAK, a READ response;
    /// the PSN it covers; the status a fatal NAK gives.
    n_ack: Signal<Local, Bit>,
    n_nak_seq: Signal<Local, Bit>,
    n_nak_fatal: Signal<Local, Bit>,
    n_rr: Signal<Local, Bit>,
    n_cov: Signal<Local, Bits<24>>,
    n_status: Signal<Local, Bits<4>>,
    h_ack: DFF<Bit>,
    h_nak_seq: DFF<Bit>,
    h_nak_fatal: DFF<Bit>,
    h_rr: DFF<Bit>,
    h_cov: DFF<Bits<24>>,
    h_status: DFF<Bits<4>>,
    e_done: Signal<Local, Bit>,
    psn_off: Signal<Local, Bits<24>>,
    syn: Signal<Local, Bits<8>>,
    c0_4: Constant<Bits<4>>,
    in_win: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    tail_nx: Signal<Local, Bits<4>>,
    roff: Signal<Local, Bits<64>>,
    /// A READ response's offset for each of the eight PMTU codes (constant shifts), from
    /// `cmd_q`'s output; the code queued with it picks one.
    roffs: [Signal<Local, Bits<64>>; 8],
    c_sh: [Constant<Bits<64>>; 8],
    status: Signal<Local, Bits<4>>,
    finish: Signal<Local, Bit>,
    pay_dma: Signal<Local, Bit>,
    complete: Signal<Local, Bit>,
    bump: [Signal<Local, Bit>; NK],
    unused: Signal<Local, Bit>,
    c0_16m: Constant<Bits<16>>,
    s_idle: Constant<Bits<3>>,
    s_look: Constant<Bits<3>>,
    s_eval: Constant<Bits<3>>,
    s_sent: Constant<Bits<3>>,
    s_exp: Constant<Bits<3>>,
    /// The state read's `count` (at most 16): bit 4 is "the ring is full".
    rec_full_unused_low: Signal<Local, Bits<5>>,
    c1_4: Constant<Bits<4>>,
    c1_5: Constant<Bits<5>>,
    c1_24: Constant<Bits<24>>,
    c0_5: Constant<Bits<5>>,
    o_ack: Constant<Bits<8>>,
    o_rf: Constant<Bits<8>>,
    o_ro: Constant<Bits<8>>,
    op_read: Constant<Bits<2>>,
    syn_nak: Constant<Bits<3>>,
    syn_ack: Constant<Bits<3>>,
    nak_seq: Constant<Bits<5>>,
    nak_inv: Constant<Bits<5>>,
    nak_acc: Constant<Bits<5>>,
    st_ok: Constant<Bits<4>>,
    st_acc: Constant<Bits<4>>,
    st_inv: Constant<Bits<4>>,
    st_op: Constant<Bits<4>>,
    st_flush: Constant<Bits<4>>,
}

impl<const A: usize, const R: usize> Default for RoceRequester<A, R> {
    fn default() -> Self {
        assert_eq!(R, A + 4, "the ring RAM holds 16 entries per QP");
        let style = RamStyle::for_qp_table(A);
        RoceRequester {
            clock: Default::default(),
            reset: Default::default(),
            sent: Default::default(),
            sent_valid: Default::default(),
            sent_ready: Default::default(),
            sent_take: Default::default(),
            rec_full_unused_low: Default::default(),
            sent_soon: Default::default(),
            resp: Default::default(),
            resp_valid: Default::default(),
            resp_ready: Default::default(),
            s_axis: Default::default(),
            vd: Default::default(),
            vd_valid: Default::default(),
            vd_ready: Default::default(),
            cq: Default::default(),
            cq_valid: Default::default(),
            cq_ready: Default::default(),
            dma_wr_cmd: Default::default(),
            dma_wr_cmd_valid: Default::default(),
            dma_wr_cmd_ready: Default::default(),
            dma_wr_meta: Default::default(),
            err_qpn: Default::default(),
            err_valid: Default::default(),
            err_ready: Default::default(),
            m_axis_dma_wr: Default::default(),
            ctl_req: Default::default(),
            ctl_qpn: Default::default(),
            ctl_done: Default::default(),
            ctl_timeout: Default::default(),
            ctl_retry: Default::default(),
            ctl_rnr_retry: Default::default(),
            rtx: Default::default(),
            rtx_valid: Default::default(),
            rtx_ready: Default::default(),
            una_wr: Default::default(),
            una_qpn: Default::default(),
            una_psn: Default::default(),
            una_open: Default::default(),
            cnt: Default::default(),
            rtx_in: Default::default(),
            rtx_fifo: AxisFifo::new(),
            rtx_out: Default::default(),
            rtx_room: Default::default(),
            rtx_room_q: Default::default(),
            now: Default::default(),
            tmr_ram: Ram::new(style, false),
            scan_q: Default::default(),
            scan_qd: Default::default(),
            t_stamp: Default::default(),
            t_to: Default::default(),
            t_msk: Default::default(),
            tm_v: Default::default(),
            tm_el: Default::default(),
            tm_msk: Default::default(),
            tm_q: Default::default(),
            t_in: Default::default(),
            tmo_q: Default::default(),
            scan: Default::default(),
            una0: Default::default(),
            expired: Default::default(),
            want_rty: Default::default(),
            fail: Default::default(),
            fail_status: Default::default(),
            prog: Default::default(),
            prog_if_kept: Default::default(),
            prog_if_hdr_next: Default::default(),
            prog_if_hdr: Default::default(),
            prog_if_hdr_q: Default::default(),
            prog_if_hdr_next_q: Default::default(),
            prog_if_kept_q: Default::default(),
            prog_if_entry_end: Default::default(),
            rty_go: Default::default(),
            rty_go_p: Default::default(),
            rty_go_n: Default::default(),
            p_fin: Default::default(),
            behind: Default::default(),
            w_in: Default::default(),
            w_beh: Default::default(),
            w_in_e: Default::default(),
            w_beh_e: Default::default(),
            w_mv: Default::default(),
            w_in_now: Default::default(),
            w_beh_now: Default::default(),
            w_una: Default::default(),
            w_last: Default::default(),
            w_d: Default::default(),
            w_new_in: Default::default(),
            rp_i: Default::default(),
            rp_n: Default::default(),
            rp_una: Default::default(),
            rp_dpsn: Default::default(),
            rp_off: Default::default(),
            c8_4: c(8),
            c0_32: c(0),
            c1_3: c(1),
            rp_last: Default::default(),
            t_armed: Default::default(),
            c1_a: c(1),
            rp_ptr: Default::default(),
            c48: c(48),
            st_retry: c(cq_status::RETRY_EXCEEDED as u64),
            s_rp_rd: c(4),
            s_rp_em: c(5),
            resp_q: Default::default(),
            cq_q: Default::default(),
            cmd_q: Default::default(),
            meta_q: Default::default(),
            err_q: Default::default(),
            act_q: Default::default(),
            vd_q: Default::default(),
            placed: Default::default(),
            vw_pl: Default::default(),
            vw_fit: Default::default(),
            vw_keep: Default::default(),
            rf_last: Default::default(),
            le_sh: Default::default(),
            rr_next: Default::default(),
            rr_live: Default::default(),
            rr_shape: Default::default(),
            rr_len_ok: Default::default(),
            rr_at_first: Default::default(),
            rr_at_last: Default::default(),
            rr_op_first: Default::default(),
            rr_op_last: Default::default(),
            h_rof: Default::default(),
            h_rol: Default::default(),
            h_pm: Default::default(),
            h_le: Default::default(),
            n_pm: Default::default(),
            hi_smear1: Default::default(),
            hi_smear2: Default::default(),
            hi_smear4: Default::default(),
            c255_8: c(255),
            n_hi: Default::default(),
            n_plen: Default::default(),
            pm_sh: Default::default(),
            c1_8: c(1),
            c0_8: c(0),
            rn_q: Default::default(),
            rn_e: Default::default(),
            rn_nx: Default::default(),
            last_len: Default::default(),
            s_pm: Default::default(),
            s_len: Default::default(),
            s_last_len: Default::default(),
            c256_16: c(256),
            c1_16: c(1),
            o_rl: c(op::READ_RESP_LAST as u64),
            st_bad: c(cq_status::BAD_RESPONSE as u64),
            s_vw: c(6),
            dma_out: Default::default(),
            ptr_ram: Ram::new_forwarding(style),
            ring_ram: Ram::new(if R > 12 { RamStyle::Ultra } else { RamStyle::Block }, false),
            ptr_in: Default::default(),
            ptr_out: Default::default(),
            disp: Default::default(),
            take_sent: Default::default(),
            ring_in: Default::default(),
            ring_out: Default::default(),
            cmp_fsm: Default::default(),
            hdr_taken: Default::default(),
            qp_req: Default::default(),
            qp_req_next: Default::default(),
            fatal: Default::default(),
            sblk: Default::default(),
            first: Default::default(),
            counts: Default::default(),
            qpn_a: Default::default(),
            in_qpn: Default::default(),
            h_qpn: Default::default(),
            entry: Default::default(),
            is_ack: Default::default(),
            is_nak_seq: Default::default(),
            is_rnr: Default::default(),
            n_rnr: Default::default(),
            h_rnr: Default::default(),
            syn_rnr: c(1),
            rnr_code: Default::default(),
            h_syn: Default::default(),
            rnr_wait: Default::default(),
            rnr_now: Default::default(),
            rnr_fire: Default::default(),
            st_rnr: c(cq_status::RNR_RETRY_EXCEEDED as u64),
            c7_3: c(7),
            c2_5: c(2),
            c18_5: c(18),
            t_code_in: Default::default(),
            is_nak_fatal: Default::default(),
            is_rr: Default::default(),
            cov_psn: Default::default(),
            n_ack: Default::default(),
            n_nak_seq: Default::default(),
            n_nak_fatal: Default::default(),
            n_rr: Default::default(),
            n_cov: Default::default(),
            n_status: Default::default(),
            h_ack: Default::default(),
            h_nak_seq: Default::default(),
            h_nak_fatal: Default::default(),
            h_rr: Default::default(),
            h_cov: Default::default(),
            h_status: Default::default(),
            e_done: Default::default(),
            nx_ram: Ram::new(if R > 12 { RamStyle::Ultra } else { RamStyle::Block }, false),
            r_raddr: Default::default(),
            r_re: Default::default(),
            nx_last: Default::default(),
            e_done_q: Default::default(),
            ed_look: Default::default(),
            ed_nx: Default::default(),
            ed_look_unused_low: Default::default(),
            ed_nx_unused_low: Default::default(),
            rl_q: Default::default(),
            head_m1: Default::default(),
            prog_if_entry_end_q: Default::default(),
            p_exp: Default::default(),
            x_el: Default::default(),
            x_to: Default::default(),
            x_on: Default::default(),
            x_msk: Default::default(),
            psn_off: Default::default(),
            syn: Default::default(),
            c0_4: c(0),
            in_win: Default::default(),
            room: Default::default(),
            tail_nx: Default::default(),
            roff: Default::default(),
            roffs: Default::default(),
            c_sh: core::array::from_fn(|i| c(8 + i as u64)),
            status: Default::default(),
            finish: Default::default(),
            pay_dma: Default::default(),
            complete: Default::default(),
            bump: Default::default(),
            unused: Default::default(),
            c0_16m: Constant::new(0u64.into()),
            s_idle: c(0),
            s_look: c(1),
            s_eval: c(2),
            s_sent: c(3),
            s_exp: c(7),
            c1_4: c(1),
            c1_5: c(1),
            c1_24: c(1),
            c0_5: c(0),
            o_ack: c(op::ACK as u64),
            o_rf: c(op::READ_RESP_FIRST as u64),
            o_ro: c(op::READ_RESP_ONLY as u64),
            op_read: c(wr_op::READ as u64),
            syn_nak: c(3),
            syn_ack: c(0),
            nak_seq: c(0),
            nak_inv: c(1),
            nak_acc: c(2),
            st_ok: c(cq_status::SUCCESS as u64),
            st_acc: c(cq_status::REMOTE_ACCESS as u64),
            st_inv: c(cq_status::REMOTE_INVALID_REQ as u64),
            st_op: c(cq_status::REMOTE_OP as u64),
            st_flush: c(cq_status::FLUSHED as u64),
        }
    }
}

/// Counter slots of `counts`.
pub mod ctr {
    pub const ACKS: usize = 0;
    pub const ACK_OOW: usize = 1;
    pub const NAK_SEQ: usize = 2;
    pub const NAK_FATAL: usize = 3;
    pub const READ_RESP: usize = 4;
    pub const RESP_UNEXPECTED: usize = 5;
    pub const COMPLETIONS: usize = 6;
    pub const ACK_DUP: usize = 7;
    pub const IMPLIED_NAK: usize = 8;
    pub const TIMEOUTS: usize = 9;
    pub const REPLAYS: usize = 10;
    pub const DEFERRED: usize = 11;
}

impl<const A: usize, const R: usize> Logic for RoceRequester<A, R> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w_in, w_beh, w_in_e, w_beh_e, w_mv, placed, vw_pl, vw_fit, vw_keep, cmp_fsm, hdr_taken, h_ack, h_nak_seq, h_nak_fatal, h_rnr, h_rr, h_cov, h_status, e_done_q, rl_q, prog_if_entry_end_q, p_exp, x_el, x_to, x_on, qp_req, fatal, sblk, first, now, scan_q, scan_qd, tm_v, tm_el, tm_msk, tm_q, scan, una0, rp_i, rp_n, rp_ptr, rp_una, prog_if_hdr_q, prog_if_hdr_next_q, prog_if_kept_q, rtx_room_q, h_rof, h_rol, h_pm, h_le, rn_q);
        clock!(self, clock, tmr_ram, tmo_q, rtx_fifo, err_q, meta_q, resp_q, cq_q, cmd_q, act_q, vd_q, dma_out, ptr_ram, ring_ram, nx_ram);
        for i in 0..NK {
            self.counts[i].clock.next = self.clock.val();
            self.counts[i].d.next = self.counts[i].q.val();
            self.bump[i].next = false;
        }
        self.resp_q.reset.next = self.reset.val();
        self.cq_q.reset.next = self.reset.val();
        self.cmd_q.reset.next = self.reset.val();
        self.act_q.reset.next = self.reset.val();
        self.vd_q.reset.next = self.reset.val();
        self.vd_q.s_data.next = self.vd.val();
        self.vd_q.s_valid.next = self.vd_valid.val();
        self.vd_ready.next = self.vd_q.s_ready.val();
        self.vd_q.m_ready.next = false;
        self.dma_out.reset.next = self.reset.val();
        // channels
        self.resp_q.s_data.next = self.resp.val();
        self.resp_q.s_valid.next = self.resp_valid.val();
        self.resp_ready.next = self.resp_q.s_ready.val();
        self.cq.next = self.cq_q.m_data.val();
        self.cq_valid.next = self.cq_q.m_valid.val();
        self.cq_q.m_ready.next = self.cq_ready.val();
        // (the address of a READ response's write: the READ's buffer plus the response's
        // offset in it, (PSN − first PSN) × PMTU, a PMTU being 256 << code)
        for i in 0..8 {
            self.roffs[i].next = bit_cast::<64, 24>(self.cmd_q.m_data.val().dpsn) << self.c_sh[i].val();
        }
        match self.cmd_q.m_data.val().pmtu.index() {
            0 => self.roff.next = self.roffs[0].val(),
            1 => self.roff.next = self.roffs[1].val(),
            2 => self.roff.next = self.roffs[2].val(),
            3 => self.roff.next = self.roffs[3].val(),
            4 => self.roff.next = self.roffs[4].val(),
            5 => self.roff.next = self.roffs[5].val(),
            6 => self.roff.next = self.roffs[6].val(),
            _ => self.roff.next = self.roffs[7].val(),
        }
        self.dma_wr_cmd.next.addr = self.cmd_q.m_data.val().laddr + self.roff.val();
        self.dma_wr_cmd.next.len = self.cmd_q.m_data.val().len;
        self.dma_wr_cmd.next.tag = self.cmd_q.m_data.val().tag;
        self.dma_wr_cmd_valid.next = self.cmd_q.m_valid.val();
        self.cmd_q.m_ready.next = self.dma_wr_cmd_ready.val();
        self.dma_wr_meta.next = self.meta_q.m_data.val();
        self.meta_q.m_ready.next = self.dma_wr_cmd_ready.val();
        self.meta_q.reset.next = self.reset.val();
        self.err_q.reset.next = self.reset.val();
        self.err_qpn.next = self.err_q.m_data.val();
        self.err_valid.next = self.err_q.m_valid.val();
        self.err_q.m_ready.next = self.err_ready.val();
        self.cnt.acks.next = self.counts[0].q.val();
        self.cnt.ack_out_of_window.next = self.counts[1].q.val();
        self.cnt.nak_seq.next = self.counts[2].q.val();
        self.cnt.nak_fatal.next = self.counts[3].q.val();
        self.cnt.read_resp.next = self.counts[4].q.val();
        self.cnt.resp_unexpected.next = self.counts[5].q.val();
        self.cnt.completions.next = self.counts[6].q.val();
        self.cnt.ack_duplicate.next = self.counts[7].q.val();
        self.cnt.implied_nak.next = self.counts[8].q.val();
        self.cnt.timeouts.next = self.counts[9].q.val();
        self.cnt.replays.next = self.counts[10].q.val();
        self.cnt.replay_deferred.next = self.counts[11].q.val();
        self.cnt.bad_response.next = self.counts[12].q.val();
        self.cnt.rnr_naks.next = self.counts[13].q.val();
        self.now.d.next = self.now.q.val() + 1;
        // the timer scan: one QP per cycle
        self.scan_q.d.next = self.scan_q.q.val() + self.c1_a.val();
        self.scan_qd.d.next = self.scan_q.q.val();
        self.tmr_ram.raddr.next = self.scan_q.q.val();
        self.tmr_ram.re.next = true;
        self.tmr_ram.oce.next = false;
        self.t_stamp.next = self.tmr_ram.rdata.val().get_bits::<32>(0);
        self.t_to.next = self.tmr_ram.rdata.val().get_bits::<5>(32);
        // (expiry as a mask test: `TimeoutMask`)
        self.t_msk.timeout.next = self.t_to.val();
        self.tmo_q.reset.next = self.reset.val();
        self.tm_v.d.next = self.tmr_ram.rdata.val().get_bit(37) & self.t_to.val().any();
        // (elapsed as the second stage sees it: `now` is one higher there)
        self.tm_el.d.next = (self.now.q.val() + 1) - self.t_stamp.val();
        self.tm_msk.d.next = self.t_msk.mask.val();
        self.tm_q.d.next = self.scan_qd.q.val();
        self.tmo_q.s_data.next = self.tm_q.q.val();
        self.tmo_q.s_valid.next = self.tm_v.q.val() & (self.tm_el.q.val() & self.tm_msk.q.val()).any();
        self.tmo_q.m_ready.next = false;
        self.rtx_fifo.reset.next = self.reset.val();
        self.rtx_fifo.s_axis.tdata.next = self.rtx_in.bits.val();
        self.rtx_fifo.s_axis.tkeep.next = true.into();
        self.rtx_fifo.s_axis.tlast.next = true;
        self.rtx_fifo.s_axis.tuser.next = false;
        self.rtx_fifo.s_axis.tvalid.next = false;
        self.rtx_out.bits.next = self.rtx_fifo.m_axis.tdata.val();
        self.rtx.next = self.rtx_out.fields.val();
        self.rtx_valid.next = self.rtx_fifo.m_axis.tvalid.val();
        self.rtx_fifo.m_axis.tready.next = self.rtx_ready.val();
        // a replay starts only when its whole run (at most 16) fits
        self.rtx_room.next = self.rtx_fifo.level.val() <= self.c48.val();
        self.rtx_room_q.d.next = self.rtx_room.val();
        // tables
        self.in_qpn.next = bit_cast::<A, 24>(self.resp_q.m_data.val().dqpn);
        self.h_qpn.next = bit_cast::<A, 24>(self.hdr_taken.q.val().dqpn);
        self.qpn_a.next = bit_cast::<A, 24>(self.sent.val().qpn);
        self.ptr_out.bits.next = self.ptr_ram.rdata.val();
        self.ring_out.bits.next = self.ring_ram.rdata.val().get_bits::<303>(0);
        self.last_len.next = self.ring_ram.rdata.val().get_bits::<16>(303);
        self.entry.next = self.ring_out.fields.val();
        self.ptr_in.fields.next = self.qp_req.q.val();
        self.ptr_ram.wdata.next = self.ptr_in.bits.val();
        self.ptr_ram.waddr.next = self.h_qpn.val();
        self.ptr_ram.raddr.next = self.in_qpn.val();
        self.ptr_ram.re.next = false;
        self.ptr_ram.we.next = false;
        self.ptr_ram.oce.next = false;
        self.ring_in.fields.next = self.sent.val();
        // the length of the response at the READ's last PSN: ((len - 1) mod PMTU) + 1, or 0
        self.s_pm.next = self.c256_16.val() << bit_cast::<16, 3>(self.sent.val().pmtu);
        self.s_len.next = self.sent.val().len;
        self.s_last_len.next = ((self.s_len.val().get_bits::<16>(0) - self.c1_16.val()) & (self.s_pm.val() - self.c1_16.val())) + self.c1_16.val();
        if !self.s_len.val().any() {
            self.s_last_len.next = self.c0_16m.val();
        }
        self.ring_ram.wdata.next = bit_cast::<319, 303>(self.ring_in.bits.val()) | (bit_cast::<319, 16>(self.s_last_len.val()) << 303);
        self.ring_ram.waddr.next = (bit_cast::<R, A>(self.qpn_a.val()) << 4) | bit_cast::<R, 4>(self.ptr_out.fields.val().head);
        self.r_raddr.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.ptr_out.fields.val().tail);
        self.r_re.next = false;
        self.ring_ram.we.next = false;
        self.ring_ram.oce.next = false;
        self.nx_ram.wdata.next = self.sent.val().last_psn;
        self.head_m1.next = self.ptr_out.fields.val().head - self.c1_4.val();
        self.nx_ram.waddr.next = (bit_cast::<R, A>(self.qpn_a.val()) << 4) | bit_cast::<R, 4>(self.head_m1.val());
        self.nx_ram.we.next = false;
        self.nx_ram.oce.next = false;
        self.nx_last.next = self.nx_ram.rdata.val();
        // the record is taken (SENT, below): a QP in error completes it as flushed when the CQ
        // has room, otherwise it goes into the ring when the ring is not full; a flush record
        // (the TX found the QP not in RTS) completes when the CQ has room
        self.rec_full_unused_low.next = self.ptr_out.fields.val().count;
        self.sent_take.next = (self.cmp_fsm.q.val() == self.s_sent.val()) & !self.rec_full_unused_low.val().get_bit(4);
        if self.ptr_out.fields.val().err {
            self.sent_take.next = (self.cmp_fsm.q.val() == self.s_sent.val()) & self.cq_q.s_ready.val();
        }
        self.sent_ready.next = self.sent_valid.val() & self.sent_take.val();
        if self.sent.val().flush {
            self.sent_ready.next = self.sent_valid.val() & (self.cmp_fsm.q.val() == self.s_sent.val()) & self.cq_q.s_ready.val();
        }
        self.resp_q.m_ready.next = false;
        self.ctl_done.next = false;
        // outputs default
        self.cq_q.s_valid.next = false;
        self.cq_q.s_data.next.wr_id = self.entry.val().wr_id;
        self.cq_q.s_data.next.qpn = self.entry.val().qpn;
        self.cq_q.s_data.next.op = self.entry.val().op;
        self.cq_q.s_data.next.status = self.st_ok.val();
        self.cq_q.s_data.next.byte_len = self.entry.val().len;
        self.cq_q.s_data.next.tap_flag = false;
        self.cq_q.s_data.next.recv = false;
        self.cmd_q.s_valid.next = false;
        self.err_q.s_valid.next = false;
        self.err_q.s_data.next = self.h_qpn.val();
        self.act_q.s_valid.next = false;
        self.act_q.s_data.next = false;
        self.rtx_in.fields.next.wr_id = self.entry.val().wr_id;
        self.rtx_in.fields.next.op = self.entry.val().op;
        self.rtx_in.fields.next.qpn = self.entry.val().qpn;
        // the replay's first message starts at the oldest unacknowledged PSN, which may be inside
        // it: its byte offset there is (una − first) × PMTU (a PMTU is 256 << code)
        self.rp_dpsn.next = self.rp_una.q.val() - self.entry.val().first_psn;
        self.rp_off.next = bit_cast::<32, 24>(self.rp_dpsn.val()) << (bit_cast::<32, 3>(self.entry.val().pmtu) + bit_cast::<32, 4>(self.c8_4.val()));
        self.rtx_in.fields.next.start_psn = self.entry.val().first_psn;
        self.rtx_in.fields.next.off = self.c0_32.val();
        self.rtx_in.fields.next.first = true;
        if !self.rp_i.q.val().any() {
            self.rtx_in.fields.next.start_psn = self.rp_una.q.val();
            self.rtx_in.fields.next.off = self.rp_off.val();
            self.rtx_in.fields.next.first = self.rp_una.q.val() == self.entry.val().first_psn;
        }
        self.rtx_in.fields.next.laddr = self.entry.val().laddr;
        self.rtx_in.fields.next.raddr = self.entry.val().raddr;
        self.rtx_in.fields.next.rkey = self.entry.val().rkey;
        self.rtx_in.fields.next.len = self.entry.val().len;
        self.rp_last.next = (self.rp_i.q.val() + self.c1_5.val()) == self.rp_n.q.val();
        self.rtx_in.fields.next.last = self.rp_last.val();
        // the retransmit timer: 4.096 µs (1024 cycles) × 2^timeout
        self.x_msk.timeout.next = self.x_to.q.val();
        self.expired.next = self.p_exp.q.val();
        self.want_rty.next = false;
        self.rty_go_p.next = false;
        self.rty_go_n.next = false;
        self.fail.next = false;
        self.fail_status.next = self.st_op.val();
        self.prog.next = false;
        self.prog_if_kept.next = self.prog_if_kept_q.q.val();
        self.prog_if_hdr_next.next = self.prog_if_hdr_next_q.q.val();
        self.prog_if_hdr.next = self.prog_if_hdr_q.q.val();
        self.prog_if_entry_end.next = self.prog_if_entry_end_q.q.val();
        self.p_fin.next = self.qp_req.q.val();
        self.rty_go.next = false;
        // evaluation of one step
        // the header's decode, worked out as it is taken from `resp_q` (h keeps its other fields
        // when a timer scan takes it, so the registered decode always equals the decode of h)
        self.syn.next = self.resp_q.m_data.val().syndrome;
        self.n_ack.next = (self.resp_q.m_data.val().opcode == self.o_ack.val()) & (self.syn.val().get_bits::<3>(5) == self.syn_ack.val());
        self.n_nak_seq.next = (self.resp_q.m_data.val().opcode == self.o_ack.val()) & (self.syn.val().get_bits::<3>(5) == self.syn_nak.val()) & (self.syn.val().get_bits::<5>(0) == self.nak_seq.val());
        self.n_nak_fatal.next = (self.resp_q.m_data.val().opcode == self.o_ack.val()) & (self.syn.val().get_bits::<3>(5) == self.syn_nak.val()) & (self.syn.val().get_bits::<5>(0) != self.nak_seq.val());
        self.n_rnr.next = (self.resp_q.m_data.val().opcode == self.o_ack.val()) & (self.syn.val().get_bits::<3>(5) == self.syn_rnr.val());
        self.n_rr.next = (self.resp_q.m_data.val().opcode >= self.o_rf.val()) & (self.resp_q.m_data.val().opcode <= self.o_ro.val());
        self.n_cov.next = self.resp_q.m_data.val().psn - self.c1_24.val();
        if self.n_ack.val() {
            self.n_cov.next = self.resp_q.m_data.val().psn;
        }
        self.n_status.next = self.st_op.val();
        if self.syn.val().get_bits::<5>(0) == self.nak_inv.val() {
            self.n_status.next = self.st_inv.val();
        }
        if self.syn.val().get_bits::<5>(0) == self.nak_acc.val() {
            self.n_status.next = self.st_acc.val();
        }
        self.is_ack.next = self.h_ack.q.val();
        self.is_nak_seq.next = self.h_nak_seq.q.val();
        self.is_nak_fatal.next = self.h_nak_fatal.q.val();
        self.is_rnr.next = self.h_rnr.q.val();
        self.h_syn.next = self.hdr_taken.q.val().syndrome;
        self.rnr_code.next = self.h_syn.val().get_bits::<5>(0);
        self.rnr_wait.next = (self.rnr_code.val() >> 1) + self.c2_5.val();
        if !self.rnr_code.val().any() {
            self.rnr_wait.next = self.c18_5.val();
        }
        self.rnr_now.next = false;
        self.rnr_fire.next = false;
        self.is_rr.next = self.h_rr.q.val();
        self.n_plen.next = self.resp_q.m_data.val().plen;
        self.n_hi.next = self.n_plen.val().get_bits::<8>(8);
        self.n_pm.next = self.c0_8.val();
        if !self.n_plen.val().get_bits::<8>(0).any() & !(self.n_hi.val() & (self.n_hi.val() - self.c1_8.val())).any() {
            self.n_pm.next = self.n_hi.val();
        }
        self.hi_smear1.next = self.n_hi.val() | (self.n_hi.val() >> 1);
        self.hi_smear2.next = self.hi_smear1.val() | (self.hi_smear1.val() >> 2);
        self.hi_smear4.next = self.hi_smear2.val() | (self.hi_smear2.val() >> 4);
        self.cov_psn.next = self.h_cov.q.val();
        self.status.next = self.h_status.q.val();
        self.e_done.next = self.e_done_q.q.val();
        self.ed_look_unused_low.next = self.cov_psn.val() - self.ptr_out.fields.val().tail_last;
        self.ed_look.next = !self.ed_look_unused_low.val().get_bit(23);
        self.ed_nx_unused_low.next = self.cov_psn.val() - self.nx_last.val();
        self.ed_nx.next = !self.ed_nx_unused_low.val().get_bit(23);
        // the window check (h.psn - una <= last - una; behind: h.psn - una negative), for the
        // state read in LOOK, and in EVAL for the PSN after this step's message
        self.w_una.next = self.entry.val().last_psn + self.c1_24.val();
        self.w_last.next = self.qp_req.q.val().sq_last_psn;
        if self.cmp_fsm.q.val() == self.s_look.val() {
            self.w_una.next = self.ptr_out.fields.val().sq_una_psn;
            self.w_last.next = self.ptr_out.fields.val().sq_last_psn;
        }
        self.w_d.next = self.hdr_taken.q.val().psn - self.w_una.val();
        self.w_new_in.next = self.w_d.val() <= (self.w_last.val() - self.w_una.val());
        self.w_in_now.next = self.w_in.q.val();
        self.w_beh_now.next = self.w_beh.q.val();
        if self.w_mv.q.val() {
            self.w_in_now.next = self.w_in_e.q.val();
            self.w_beh_now.next = self.w_beh_e.q.val();
        }
        self.behind.next = self.w_beh_now.val();
        self.in_win.next = self.qp_req.q.val().count.any() & self.w_in_now.val();
        self.room.next = self.cq_q.s_ready.val() & self.cmd_q.s_ready.val() & self.act_q.s_ready.val() & self.err_q.s_ready.val();
        self.tail_nx.next = self.qp_req.q.val().tail + self.c1_4.val();
        self.psn_off.next = self.hdr_taken.q.val().psn - self.entry.val().first_psn;
        // whether a READ response's bytes stay inside its READ's buffer (`vw_fit`)
        self.rf_last.next = self.hdr_taken.q.val().plen <= self.last_len.val();
        self.le_sh.next = self.h_le.q.val() >> bit_cast::<8, 3>(self.entry.val().pmtu);
        self.rr_next.next = (self.entry.val().op == self.op_read.val()) & self.rn_q.q.val();
        // (`psn == last + 1` as `psn - 1 == last`: the subtractor is on the header's register, beside
        // the ring RAM's read, not behind it)
        self.rn_e.next = (self.hdr_taken.q.val().psn - self.c1_24.val()) == self.entry.val().last_psn;
        self.rn_nx.next = self.rn_q.q.val();
        self.rr_live.next = self.is_rr.val() & self.qp_req.q.val().count.any() & !self.qp_req.q.val().err;
        // (`last_len`, the length of the response at the READ's last PSN, is in the ring entry)
        self.rr_at_first.next = self.hdr_taken.q.val().psn == self.entry.val().first_psn;
        self.rr_at_last.next = self.rl_q.q.val();
        self.rr_op_first.next = self.h_rof.q.val();
        self.rr_op_last.next = self.h_rol.q.val();
        self.pm_sh.next = self.h_pm.q.val() >> bit_cast::<8, 3>(self.entry.val().pmtu);
        self.rr_len_ok.next = (self.pm_sh.val() & self.c1_8.val()).any();
        if self.rr_at_last.val() {
            self.rr_len_ok.next = self.hdr_taken.q.val().plen == self.last_len.val();
        }
        self.rr_shape.next = !(self.rr_op_last.val() ^ self.rr_at_last.val()) & (self.rr_op_first.val() | !self.rr_at_first.val()) & self.rr_len_ok.val();
        self.qp_req_next.next = self.qp_req.q.val();
        self.finish.next = false;
        self.pay_dma.next = false;
        self.complete.next = false;
        self.cmd_q.s_data.next.laddr = self.entry.val().laddr;
        self.cmd_q.s_data.next.dpsn = self.psn_off.val();
        self.cmd_q.s_data.next.pmtu = self.entry.val().pmtu;
        self.cmd_q.s_data.next.len = bit_cast::<32, 16>(self.hdr_taken.q.val().plen);
        self.cmd_q.s_data.next.tag = self.hdr_taken.q.val().dqpn;
        self.meta_q.s_data.next.qpn = self.hdr_taken.q.val().dqpn;
        self.meta_q.s_data.next.psn = self.hdr_taken.q.val().psn;
        self.meta_q.s_data.next.opcode = self.hdr_taken.q.val().opcode;
        self.meta_q.s_data.next.off = self.c0_16m.val();
        // ------------------------------------------------ FSM
        if self.cmp_fsm.q.val() == self.s_sent.val() {
            // record the message if the ring has room; a QP in error completes it as flushed
            self.qp_req.d.next = self.ptr_out.fields.val();
            self.ptr_ram.waddr.next = self.qpn_a.val();
            self.cq_q.s_data.next.wr_id = self.sent.val().wr_id;
            self.cq_q.s_data.next.qpn = self.sent.val().qpn;
            self.cq_q.s_data.next.op = self.sent.val().op;
            self.cq_q.s_data.next.status = self.st_flush.val();
            self.cq_q.s_data.next.byte_len = self.sent.val().len;
            self.ptr_in.fields.next = self.ptr_out.fields.val();
            if !self.sent_valid.val() {
                // the TX took its record back (a retransmission went first): look again later
            } else if self.ptr_out.fields.val().err | self.sent.val().flush {
                if self.cq_q.s_ready.val() {
                    self.cq_q.s_valid.next = true;
                    self.bump[6].next = true;
                }
            } else if self.rec_full_unused_low.val().get_bit(4) {
                // ring full: let responses through until one frees a slot
                self.sblk.d.next = true;
            } else {
                self.ring_ram.we.next = true;
                self.nx_ram.we.next = true;
                self.ptr_in.fields.next.head = self.ptr_out.fields.val().head + self.c1_4.val();
                self.ptr_in.fields.next.count = self.ptr_out.fields.val().count + self.c1_5.val();
                self.ptr_in.fields.next.sq_last_psn = self.sent.val().last_psn;
                if !self.ptr_out.fields.val().count.any() {
                    self.ptr_in.fields.next.sq_una_psn = self.sent.val().first_psn;
                    self.ptr_in.fields.next.tail_last = self.sent.val().last_psn;
                    self.ptr_in.fields.next.stamp = self.now.q.val();
                    self.ptr_in.fields.next.retry_left = self.ptr_out.fields.val().retry_cnt;
                    self.ptr_in.fields.next.rty = false;
                }
                self.ptr_ram.we.next = true;
            }
            self.cmp_fsm.d.next = self.s_idle.val();
        }
        if self.cmp_fsm.q.val() == self.s_look.val() {
            self.qp_req.d.next = self.ptr_out.fields.val();
            self.una0.d.next = self.ptr_out.fields.val().sq_una_psn;
            self.prog_if_hdr_q.d.next = self.hdr_taken.q.val().psn != self.ptr_out.fields.val().sq_una_psn;
            self.prog_if_hdr_next_q.d.next = (self.hdr_taken.q.val().psn + self.c1_24.val()) != self.ptr_out.fields.val().sq_una_psn;
            self.prog_if_kept_q.d.next = false;
            self.rn_q.d.next = self.hdr_taken.q.val().psn == self.ptr_out.fields.val().sq_una_psn;
            self.e_done_q.d.next = self.ed_look.val();
            self.rl_q.d.next = self.hdr_taken.q.val().psn == self.ptr_out.fields.val().tail_last;
            self.prog_if_entry_end_q.d.next = (self.ptr_out.fields.val().tail_last + self.c1_24.val()) != self.ptr_out.fields.val().sq_una_psn;
            self.x_el.d.next = self.now.q.val() - self.ptr_out.fields.val().stamp;
            self.x_to.d.next = self.ptr_out.fields.val().timeout;
            if self.ptr_out.fields.val().rnr {
                self.x_to.d.next = self.ptr_out.fields.val().rnr_wait;
            }
            self.x_on.d.next = self.ptr_out.fields.val().count.any() & !self.ptr_out.fields.val().err & (self.ptr_out.fields.val().timeout.any() | self.ptr_out.fields.val().rnr);
            self.w_in.d.next = self.w_new_in.val();
            self.w_beh.d.next = self.w_d.val().get_bit(23);
            self.w_mv.d.next = false;
            self.r_re.next = true;
            self.first.d.next = true;
            self.fatal.d.next = false;
            self.cmp_fsm.d.next = self.s_eval.val();
            if self.scan.q.val() {
                self.cmp_fsm.d.next = self.s_exp.val();
            }
        }
        if self.cmp_fsm.q.val() == self.s_exp.val() {
            // a timer job's expiry test (the state and the oldest message stay read)
            self.p_exp.d.next = self.x_on.q.val() & (self.x_el.q.val() & self.x_msk.mask.val()).any();
            self.cmp_fsm.d.next = self.s_eval.val();
        }
        if self.cmp_fsm.q.val() == self.s_eval.val() {
            self.qp_req_next.next = self.qp_req.q.val();
            // the window check for the next step (`w_*`, above)
            self.w_in.d.next = self.w_in_now.val();
            self.w_beh.d.next = self.w_beh_now.val();
            self.w_in_e.d.next = self.w_new_in.val();
            self.w_beh_e.d.next = self.w_d.val().get_bit(23);
            self.prog.next = self.prog_if_kept.val();
            // by default re-read the same ring entry (a step that waits for room)
            self.r_raddr.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.qp_req.q.val().tail);
            self.r_re.next = true;
            // whether a response cut through the RX buffer may be placed before its verdict
            self.vw_pl.d.next = self.rr_live.val() & self.rr_next.val();
            self.vw_keep.d.next = self.rr_live.val() & (self.rr_next.val() | ((self.entry.val().op != self.op_read.val()) & self.e_done.val()));
            // (placed only with `vw_pl`: the response's PSN is the oldest unacknowledged one, so
            // within the READ; before its last PSN at most a PMTU fits, at it the last length)
            self.vw_fit.d.next = (self.le_sh.val() & self.c1_8.val()).any();
            if self.rr_at_last.val() {
                self.vw_fit.d.next = self.rf_last.val();
            }
            if self.hdr_taken.q.val().spec & !self.scan.q.val() {
                // cut through: nothing is decided before the verdict
                self.cmp_fsm.d.next = self.s_vw.val();
            } else if self.room.val() {
                self.first.d.next = false;
                if self.scan.q.val() & self.first.q.val() {
                    // the retransmit timer of this QP
                    if self.expired.val() & self.qp_req.q.val().rnr {
                        // the wait after an RNR NAK: an RNR retry (7: without end), not a timeout
                        if !self.qp_req.q.val().rnr_left.any() & (self.qp_req.q.val().rnr_retry != self.c7_3.val()) {
                            self.fail.next = true;
                            self.fail_status.next = self.st_rnr.val();
                        } else {
                            self.want_rty.next = true;
                            self.rnr_fire.next = true;
                            self.finish.next = true;
                        }
                    } else if self.expired.val() {
                        self.bump[9].next = true;
                        if !self.qp_req.q.val().retry_left.any() {
                            // retry exceeded: the oldest message fails, the rest are flushed
                            self.fail.next = true;
                            self.fail_status.next = self.st_retry.val();
                        } else {
                            self.want_rty.next = true;
                            self.finish.next = true;
                        }
                    } else {
                        self.finish.next = true;
                    }
                } else if self.scan.q.val() & !self.fatal.q.val() {
                    self.finish.next = true;
                } else if self.first.q.val() & self.qp_req.q.val().err {
                    // the QP's requester is in error: responses are dropped
                    self.bump[5].next = true;
                    self.finish.next = true;
                } else if self.fatal.q.val() {
                    // flushing what is left behind a fatal NAK
                    if self.qp_req.q.val().count.any() {
                        self.cq_q.s_data.next.status = self.st_flush.val();
                        self.cq_q.s_valid.next = true;
                        self.complete.next = true;
                    } else {
                        self.finish.next = true;
                    }
                } else if self.is_ack.val() | self.is_nak_seq.val() | self.is_nak_fatal.val() | self.is_rnr.val() {
                    if self.first.q.val() & !self.in_win.val() {
                        // a duplicate (behind) or a ghost (never sent): ignored
                        if self.behind.val() {
                            self.bump[7].next = true;
                        } else {
                            self.bump[1].next = true;
                        }
                        self.finish.next = true;
                    } else if self.qp_req.q.val().count.any() & self.e_done.val() & (self.entry.val().op != self.op_read.val()) {
                        self.cq_q.s_valid.next = self.entry.val().signaled;
                        self.complete.next = true;
                        if self.first.q.val() & self.is_ack.val() {
                            self.bump[0].next = true;
                        }
                    } else {
                        if self.is_ack.val() {
                            if self.first.q.val() {
                                self.bump[0].next = true;
                            }
                            if self.qp_req.q.val().count.any() & (self.entry.val().op != self.op_read.val()) {
                                self.qp_req_next.next.sq_una_psn = self.hdr_taken.q.val().psn + self.c1_24.val();
                                self.rn_nx.next = false;
                                self.prog.next = self.prog_if_hdr_next.val();
                            }
                            if self.qp_req.q.val().count.any() & (self.entry.val().op == self.op_read.val()) & self.e_done.val() {
                                // acknowledged past a READ whose responses did not all arrive
                                self.bump[8].next = true;
                                self.want_rty.next = true;
                            }
                            self.finish.next = true;
                        } else if self.is_nak_seq.val() {
                            // PSNs below it are acknowledged; Go-Back-N from it
                            self.bump[2].next = true;
                            if self.qp_req.q.val().count.any() & (self.entry.val().op != self.op_read.val()) {
                                self.qp_req_next.next.sq_una_psn = self.hdr_taken.q.val().psn;
                                self.rn_nx.next = true;
                                self.prog.next = self.prog_if_hdr.val();
                            }
                            self.want_rty.next = self.qp_req.q.val().count.any();
                            self.finish.next = true;
                        } else if self.is_rnr.val() {
                            // PSNs below it are acknowledged; the rest are sent again once the
                            // NAK's RNR timer has run (the QP's timer, restarted for it)
                            self.bump[13].next = true;
                            if self.qp_req.q.val().count.any() & (self.entry.val().op != self.op_read.val()) {
                                self.qp_req_next.next.sq_una_psn = self.hdr_taken.q.val().psn;
                                self.rn_nx.next = true;
                                self.prog.next = self.prog_if_hdr.val();
                            }
                            self.qp_req_next.next.rnr = self.qp_req.q.val().count.any();
                            self.qp_req_next.next.rnr_wait = self.rnr_wait.val();
                            self.rnr_now.next = true;
                            self.finish.next = true;
                        } else if self.qp_req.q.val().count.any() {
                            // the message the fatal NAK names
                            self.bump[3].next = true;
                            self.fail.next = true;
                            self.fail_status.next = self.status.val();
                        } else {
                            self.bump[3].next = true;
                            self.finish.next = true;
                        }
                    }
                } else if self.is_rr.val() {
                    if self.qp_req.q.val().count.any() & (self.entry.val().op != self.op_read.val()) & self.e_done.val() {
                        // a READ response acknowledges the WRITEs sent before the READ
                        self.cq_q.s_valid.next = self.entry.val().signaled;
                        self.complete.next = true;
                    } else if self.qp_req.q.val().count.any() & self.rr_next.val() & !self.rr_shape.val() {
                        // the expected response, but its opcode or length does not fit its place
                        // in the READ: a bad response. Nothing of it is written; the READ fails
                        // and the QP's requester goes to ERROR (below)
                        self.bump[12].next = true;
                        self.fail.next = true;
                        self.fail_status.next = self.st_bad.val();
                    } else if self.qp_req.q.val().count.any() & self.rr_next.val() {
                        self.bump[4].next = true;
                        self.pay_dma.next = self.hdr_taken.q.val().plen.any();
                        self.cmd_q.s_valid.next = self.hdr_taken.q.val().plen.any() & !self.placed.q.val();
                        self.qp_req_next.next.sq_una_psn = self.hdr_taken.q.val().psn + self.c1_24.val();
                        self.rn_nx.next = false;
                        self.prog.next = self.prog_if_hdr_next.val();
                        // the tap's flag of an accepted response sticks to the READ
                        self.qp_req_next.next.flagged = self.qp_req.q.val().flagged | self.hdr_taken.q.val().tap_flag;
                        self.finish.next = true;
                        if self.rr_at_last.val() {
                            self.cq_q.s_valid.next = self.entry.val().signaled;
                            self.cq_q.s_data.next.tap_flag = self.qp_req.q.val().flagged | self.hdr_taken.q.val().tap_flag;
                            self.complete.next = true;
                        }
                    } else if self.qp_req.q.val().count.any() & (self.entry.val().op == self.op_read.val()) & self.in_win.val() & !self.behind.val() {
                        // ahead of the expected response: an implied NAK, Go-Back-N from it
                        self.bump[8].next = true;
                        self.want_rty.next = true;
                        self.finish.next = true;
                    } else {
                        self.bump[5].next = true;
                        self.finish.next = true;
                    }
                } else {
                    self.bump[5].next = true;
                    self.finish.next = true;
                }
            }
            if self.fail.val() {
                // the oldest message fails with this status; the QP's requester goes to ERROR
                // and flushes the rest, and TX stops sending for it
                self.cq_q.s_data.next.status = self.fail_status.val();
                self.cq_q.s_data.next.tap_flag = self.qp_req.q.val().flagged & (self.entry.val().op == self.op_read.val());
                self.cq_q.s_valid.next = true;
                self.complete.next = true;
                self.fatal.d.next = true;
                self.qp_req_next.next.err = true;
                self.err_q.s_valid.next = true;
            }
            if self.complete.val() {
                if self.entry.val().op == self.op_read.val() {
                    self.qp_req_next.next.flagged = false;
                }
                self.qp_req_next.next.tail = self.tail_nx.val();
                self.qp_req_next.next.tail_last = self.nx_last.val();
                self.e_done_q.d.next = self.ed_nx.val();
                self.rl_q.d.next = self.hdr_taken.q.val().psn == self.nx_last.val();
                self.prog_if_entry_end_q.d.next = (self.nx_last.val() + self.c1_24.val()) != self.una0.q.val();
                self.qp_req_next.next.count = self.qp_req.q.val().count - self.c1_5.val();
                self.qp_req_next.next.sq_una_psn = self.entry.val().last_psn + self.c1_24.val();
                self.rn_nx.next = self.rn_e.val();
                self.prog.next = self.prog_if_entry_end.val();
                if self.cq_q.s_valid.val() {
                    self.bump[6].next = true;
                }
                self.r_raddr.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.tail_nx.val());
                // the last message in the ring, or one that ends exactly at an ACK's PSN (later
                // messages end after it, so none of them is covered: a step saved per ACK)
                if (self.qp_req.q.val().count == self.c1_5.val())
                    | (self.is_ack.val() & !self.scan.q.val() & !self.fatal.q.val() & self.rr_at_last.val()) {
                    self.finish.next = true;
                }
            }
            self.qp_req.d.next = self.qp_req_next.val();
            self.prog_if_kept_q.d.next = self.prog.val();
            self.rn_q.d.next = self.rn_nx.val();
            self.w_mv.d.next = self.complete.val();
            // progress (`prog`: the step moved the oldest unacknowledged PSN) restarts the timer
            // and restores the retries; a replay uses one
            // (written out for progress and for none, `prog` selecting last: `prog` and
            // `want_rty` come from the step's decision, the rest from registers)
            self.rty_go_p.next = self.want_rty.val() & self.qp_req.q.val().retry_cnt.any() & self.rtx_room_q.q.val();
            self.rty_go_n.next = self.want_rty.val() & (self.qp_req.q.val().retry_left.any() | self.rnr_fire.val()) & self.rtx_room_q.q.val() & !(self.qp_req.q.val().rty & !self.scan.q.val());
            self.rty_go.next = self.rty_go_n.val();
            if self.prog.val() {
                self.rty_go.next = self.rty_go_p.val();
            }
            self.p_fin.next = self.qp_req_next.val();
            if self.prog.val() | self.rty_go_n.val() | self.rnr_now.val() {
                self.p_fin.next.stamp = self.now.q.val();
            }
            if self.rty_go_n.val() {
                self.p_fin.next.rty = true;
                self.p_fin.next.retry_left = self.qp_req.q.val().retry_left - self.c1_3.val();
                if self.rnr_fire.val() {
                    // an RNR retry: the timeout retries stay, one RNR retry is used
                    self.p_fin.next.retry_left = self.qp_req.q.val().retry_left;
                    self.p_fin.next.rnr = false;
                    if self.qp_req.q.val().rnr_retry != self.c7_3.val() {
                        self.p_fin.next.rnr_left = self.qp_req.q.val().rnr_left - self.c1_3.val();
                    }
                }
            }
            if self.prog.val() {
                self.p_fin.next.rty = self.rty_go_p.val();
                self.p_fin.next.retry_left = self.qp_req.q.val().retry_cnt;
                if self.rty_go_p.val() {
                    self.p_fin.next.retry_left = self.qp_req.q.val().retry_cnt - self.c1_3.val();
                }
                if !self.rnr_now.val() {
                    // progress past an RNR NAK: its wait is over, the RNR retries refilled
                    self.p_fin.next.rnr = false;
                    self.p_fin.next.rnr_left = self.qp_req.q.val().rnr_retry;
                }
            }
            if self.finish.val() {
                // write the state back (with this step's changes) and hand the payload on
                self.ptr_in.fields.next = self.p_fin.val();
                self.ptr_ram.we.next = true;
                self.act_q.s_valid.next = self.hdr_taken.q.val().plen.any() & !self.placed.q.val();
                self.act_q.s_data.next = self.pay_dma.val();
                self.placed.d.next = false;
                self.cmp_fsm.d.next = self.s_idle.val();
                if self.rty_go.val() {
                    self.bump[10].next = true;
                    self.rp_i.d.next = self.c0_5.val();
                    self.rp_n.d.next = self.qp_req_next.val().count;
                    self.rp_ptr.d.next = self.qp_req_next.val().tail;
                    self.rp_una.d.next = self.qp_req_next.val().sq_una_psn;
                    self.cmp_fsm.d.next = self.s_rp_rd.val();
                } else if self.want_rty.val() & !(self.qp_req.q.val().rty & !self.prog.val() & !self.scan.q.val()) {
                    self.bump[11].next = true;
                }
            }
        }
        // ------------------------------------------------ the next job: from idle, and in the
        // cycle a job ends (a sent record, or an evaluation that finishes and wants no replay), so
        // that a message costs one cycle for its record and two for its ACK. A step that wants a
        // replay does not dispatch (whether the replay starts depends on the retry count and the
        // queue's room, too deep a path to wait on): the next job goes from idle a cycle later. A state read issued
        // in the cycle that job writes the same QP's state is forwarded (`fw_*`). A control-plane
        // write waits for idle; a sent record is not taken again in the cycle it was taken.
        self.disp.next = (self.cmp_fsm.q.val() == self.s_idle.val()) | (self.cmp_fsm.q.val() == self.s_sent.val())
            | ((self.cmp_fsm.q.val() == self.s_eval.val()) & self.finish.val() & !self.want_rty.val());
        // The state RAM's addresses for a dispatch do not wait for `disp` (it needs the step's
        // `finish`): the write address counts only with `we`, the read address only with `re`
        // (and the forwarding compare is registered only with `re`), and each is chosen here by
        // the same tests as the branch below that sets `we` or `re` (a control write only in
        // idle, where `disp` holds).
        self.take_sent.next = (self.sent_valid.val() | self.sent_soon.val()) & !self.sblk.q.val() & (self.cmp_fsm.q.val() != self.s_sent.val());
        if self.ctl_req.val() & (self.cmp_fsm.q.val() == self.s_idle.val()) {
            self.ptr_ram.waddr.next = self.ctl_qpn.val();
        }
        if !self.ctl_req.val() {
            if self.tmo_q.m_valid.val() {
                self.ptr_ram.raddr.next = self.tmo_q.m_data.val();
            } else if self.take_sent.val() {
                self.ptr_ram.raddr.next = self.qpn_a.val();
            }
        }
        if self.disp.val() {
            if self.ctl_req.val() {
                if self.cmp_fsm.q.val() == self.s_idle.val() {
                    self.ptr_in.fields.next.head = self.c0_4.val();
                    self.ptr_in.fields.next.tail = self.c0_4.val();
                    self.ptr_in.fields.next.count = self.c0_5.val();
                    self.ptr_in.fields.next.err = false;
                    self.ptr_in.fields.next.retry_cnt = self.ctl_retry.val();
                    self.ptr_in.fields.next.retry_left = self.ctl_retry.val();
                    self.ptr_in.fields.next.timeout = self.ctl_timeout.val();
                    self.ptr_in.fields.next.rnr = false;
                    self.ptr_in.fields.next.rnr_retry = self.ctl_rnr_retry.val();
                    self.ptr_in.fields.next.rnr_left = self.ctl_rnr_retry.val();
                    self.ptr_in.fields.next.rty = false;
                    self.ptr_in.fields.next.flagged = false;
                    self.ptr_ram.we.next = true;
                    self.ctl_done.next = true;
                }
            } else if self.tmo_q.m_valid.val() {
                // a timer expired: check it against the QP's state
                self.tmo_q.m_ready.next = true;
                self.ptr_ram.re.next = true;
                self.hdr_taken.d.next.dqpn = bit_cast::<24, A>(self.tmo_q.m_data.val());
                self.hdr_taken.d.next.plen = self.c0_16m.val();
                self.h_pm.d.next = self.c0_8.val();
                self.h_le.d.next = self.c255_8.val();
                self.hdr_taken.d.next.spec = false;
                self.scan.d.next = true;
                self.cmp_fsm.d.next = self.s_look.val();
            } else if self.take_sent.val() {
                // sent records first: an ACK can only follow its message's record
                self.ptr_ram.re.next = true;
                self.cmp_fsm.d.next = self.s_sent.val();
            } else if self.resp_q.m_valid.val() {
                self.resp_q.m_ready.next = true;
                self.scan.d.next = false;
                self.hdr_taken.d.next = self.resp_q.m_data.val();
                self.h_ack.d.next = self.n_ack.val();
                self.h_nak_seq.d.next = self.n_nak_seq.val();
                self.h_nak_fatal.d.next = self.n_nak_fatal.val();
                self.h_rnr.d.next = self.n_rnr.val();
                self.h_rr.d.next = self.n_rr.val();
                self.h_rof.d.next = (self.resp_q.m_data.val().opcode == self.o_rf.val()) | (self.resp_q.m_data.val().opcode == self.o_ro.val());
                self.h_rol.d.next = (self.resp_q.m_data.val().opcode == self.o_rl.val()) | (self.resp_q.m_data.val().opcode == self.o_ro.val());
                self.h_pm.d.next = self.n_pm.val();
                self.h_le.d.next = !self.hi_smear4.val() | self.n_pm.val();
                self.h_cov.d.next = self.n_cov.val();
                self.h_status.d.next = self.n_status.val();
                self.ptr_ram.re.next = true;
                self.sblk.d.next = false;
                self.cmp_fsm.d.next = self.s_look.val();
            } else if self.cmp_fsm.q.val() == self.s_idle.val() {
                self.sblk.d.next = false;
            }
        }
        // ------------------------------------------------ a cut-through response's verdict wait
        // (the state and the oldest message stay read). The next READ response of the oldest
        // message, inside the READ's buffer, is placed at once: its DMA command and payload go
        // out now, so a bad one writes only bytes its good copy writes again. A payload that
        // would be dropped anyway is dropped at once. Then a good verdict evaluates the response
        // as if it had been stored (without moving its payload again); a bad one leaves no trace
        // but its placed bytes. Only a response behind WRITEs it completes waits whole.
        if self.cmp_fsm.q.val() == self.s_vw.val() {
            self.r_raddr.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.qp_req.q.val().tail);
            self.r_re.next = true;
            if self.vd_q.m_valid.val() {
                if !self.vd_q.m_data.val().get_bit(0) {
                    self.vd_q.m_ready.next = true;
                    self.hdr_taken.d.next.spec = false;
                    self.hdr_taken.d.next.tap_flag = self.vd_q.m_data.val().get_bit(1);
                    self.cmp_fsm.d.next = self.s_eval.val();
                } else if self.placed.q.val() | !self.hdr_taken.q.val().plen.any() {
                    self.vd_q.m_ready.next = true;
                    self.placed.d.next = false;
                    self.cmp_fsm.d.next = self.s_idle.val();
                } else if self.act_q.s_ready.val() {
                    self.vd_q.m_ready.next = true;
                    self.act_q.s_valid.next = true;
                    self.act_q.s_data.next = false;
                    self.cmp_fsm.d.next = self.s_idle.val();
                }
            } else if self.vw_pl.q.val() & self.vw_fit.q.val() & !self.placed.q.val() & self.cmd_q.s_ready.val() & self.act_q.s_ready.val() {
                self.cmd_q.s_valid.next = self.hdr_taken.q.val().plen.any();
                self.act_q.s_valid.next = self.hdr_taken.q.val().plen.any();
                self.act_q.s_data.next = true;
                self.placed.d.next = true;
            } else if !self.vw_keep.q.val() & !self.placed.q.val() & self.act_q.s_ready.val() {
                // dropped whatever the verdict (out of order, nothing outstanding, QP in error):
                // its payload goes now, so that it does not hold the frames behind it
                self.act_q.s_valid.next = self.hdr_taken.q.val().plen.any();
                self.act_q.s_data.next = false;
                self.placed.d.next = true;
            }
        }
        // ------------------------------------------------ replay: one ring entry every 2 cycles
        if self.cmp_fsm.q.val() == self.s_rp_rd.val() {
            self.r_raddr.next = (bit_cast::<R, A>(self.h_qpn.val()) << 4) | bit_cast::<R, 4>(self.rp_ptr.q.val());
            self.r_re.next = true;
            self.cmp_fsm.d.next = self.s_rp_em.val();
        }
        if self.cmp_fsm.q.val() == self.s_rp_em.val() {
            self.rtx_fifo.s_axis.tvalid.next = true;
            self.rp_i.d.next = self.rp_i.q.val() + self.c1_5.val();
            self.rp_ptr.d.next = self.rp_ptr.q.val() + self.c1_4.val();
            self.cmp_fsm.d.next = self.s_rp_rd.val();
            if self.rp_last.val() {
                self.cmp_fsm.d.next = self.s_idle.val();
            }
        }
        // the ring's read, to both of its RAMs (the last value written above wins)
        self.ring_ram.raddr.next = self.r_raddr.val();
        self.ring_ram.re.next = self.r_re.val();
        self.nx_ram.raddr.next = self.r_raddr.val();
        self.nx_ram.re.next = self.r_re.val();
        for i in 0..NK {
            if self.bump[i].val() {
                self.counts[i].d.next = self.counts[i].q.val() + 1;
            }
        }
        // ------------------------------------------------ payload mover: to host memory or dropped
        self.s_axis.tready.next = false;
        self.act_q.m_ready.next = false;
        self.dma_out.s_axis.tvalid.next = false;
        self.dma_out.s_axis.tdata.next = self.s_axis.tdata.val();
        self.dma_out.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.dma_out.s_axis.tlast.next = self.s_axis.tlast.val();
        self.dma_out.s_axis.tuser.next = self.s_axis.tuser.val();
        if self.act_q.m_valid.val() {
            if self.act_q.m_data.val() {
                self.s_axis.tready.next = self.dma_out.s_axis.tready.val();
                self.dma_out.s_axis.tvalid.next = self.s_axis.tvalid.val();
            } else {
                self.s_axis.tready.next = true;
            }
            self.act_q.m_ready.next = self.s_axis.tvalid.val() & self.s_axis.tready.val() & self.s_axis.tlast.val();
        }
        Axis512Source::link(&mut self.m_axis_dma_wr, &mut self.dma_out.m_axis);
        self.unused.next = self.meta_q.s_ready.val() | self.meta_q.m_valid.val() | self.hdr_taken.q.val().se | self.hdr_taken.q.val().migreq | self.hdr_taken.q.val().fecn | self.hdr_taken.q.val().becn | self.hdr_taken.q.val().ipv6
            | self.hdr_taken.q.val().tver.any() | self.hdr_taken.q.val().pkey.any() | self.hdr_taken.q.val().msn.any() | self.hdr_taken.q.val().va.any()
            | self.hdr_taken.q.val().rkey.any() | self.hdr_taken.q.val().dma_len.any() | self.hdr_taken.q.val().ecn.any() | self.hdr_taken.q.val().src_ip.any()
            | self.hdr_taken.q.val().udp_sport.any() | self.hdr_taken.q.val().pad.any() | self.hdr_taken.q.val().known | self.hdr_taken.q.val().len_err
            | self.hdr_taken.q.val().ackreq | self.entry.val().flush | self.entry.val().signaled
            | self.rtx_fifo.m_axis.tkeep.val().any()
            | self.rtx_fifo.m_axis.tlast.val() | self.rtx_fifo.m_axis.tuser.val() | self.rtx_fifo.s_axis.tready.val()
            | self.tmo_q.s_ready.val() | self.w_d.val().any() | self.h_syn.val().get_bits::<3>(5).any();
        // the metadata queue moves in lock step with the command queue
        self.meta_q.s_valid.next = self.cmd_q.s_valid.val();
        // written with the QP's state
        self.t_armed.next = self.ptr_in.fields.val().count.any() & !self.ptr_in.fields.val().err;
        self.t_code_in.next = self.ptr_in.fields.val().timeout;
        if self.ptr_in.fields.val().rnr {
            self.t_code_in.next = self.ptr_in.fields.val().rnr_wait;
        }
        self.t_in.next = bit_cast::<38, 32>(self.ptr_in.fields.val().stamp) | (bit_cast::<38, 5>(self.t_code_in.val()) << 32) | (bit_cast::<38, 1>(self.t_armed.val().into()) << 37);
        self.tmr_ram.wdata.next = self.t_in.val();
        self.tmr_ram.waddr.next = self.ptr_ram.waddr.val();
        self.tmr_ram.we.next = self.ptr_ram.we.val();
        self.una_wr.next = self.ptr_ram.we.val();
        self.una_qpn.next = self.ptr_ram.waddr.val();
        self.una_psn.next = self.ptr_in.fields.val().sq_una_psn;
        self.una_open.next = !self.ptr_in.fields.val().count.any() | self.ptr_in.fields.val().err;
        if self.reset.val() {
            self.cmp_fsm.d.next = self.s_idle.val();
            self.placed.d.next = false;
            self.sblk.d.next = false;
            for i in 0..NK {
                self.counts[i].d.next = 0.into();
            }
        }
    }
}

pub type RoceRequester500 = RoceRequester<9, 13>;

nicgen_hdl::impl_ports!(RoceRequester500, clock = clock, [clock, reset, sent, sent_valid, sent_ready, sent_take, sent_soon, resp, resp_valid, resp_ready,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready, vd, vd_valid, vd_ready,
    cq, cq_valid, cq_ready, dma_wr_cmd, dma_wr_cmd_valid, dma_wr_cmd_ready, dma_wr_meta, err_qpn, err_valid, err_ready,
    m_axis_dma_wr.tdata, m_axis_dma_wr.tkeep, m_axis_dma_wr.tlast, m_axis_dma_wr.tuser, m_axis_dma_wr.tvalid, m_axis_dma_wr.tready,
    ctl_req, ctl_qpn, ctl_timeout, ctl_retry, ctl_rnr_retry, ctl_done, rtx, rtx_valid, rtx_ready, una_wr, una_qpn, una_psn, una_open,
    cnt.acks, cnt.ack_out_of_window, cnt.nak_seq, cnt.nak_fatal, cnt.read_resp, cnt.resp_unexpected, cnt.completions,
    cnt.ack_duplicate, cnt.implied_nak, cnt.timeouts, cnt.replays, cnt.replay_deferred, cnt.bad_response, cnt.rnr_naks]);
