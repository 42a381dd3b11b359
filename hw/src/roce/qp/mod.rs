//! QP state: the records kept per QP in on-chip RAM, indexed by QPN.
//!
//! Names say whose state a field is. `rq_*` fields belong to this QP's responder (requests
//! arriving from the remote requester); `sq_*` fields to its requester (work this side sends).
//! So `rq_expected_psn` is the PSN the responder expects next from the remote side, and
//! `sq_next_psn` the PSN this side's requester sends next; BALBOA's `remote_psn`/`local_psn`
//! named the same two things less clearly.

use rust_hdl::prelude::*;

/// QP states (IBA 10.3.1). The responder serves requests in RTR and RTS; the requester sends
/// in RTS only. ERROR drops everything (counted) until the control plane resets the QP.
pub mod state {
    pub const RESET: u8 = 0;
    pub const INIT: u8 = 1;
    pub const RTR: u8 = 2;
    pub const RTS: u8 = 3;
    pub const ERROR: u8 = 4;
}

/// AETH syndromes.
pub mod syndrome {
    /// ACK with the "invalid credit count" code: RC without end-to-end credits.
    pub const ACK: u8 = 0x1f;
    pub const NAK_PSN_SEQ: u8 = 0x60;
    pub const NAK_INVALID_REQ: u8 = 0x61;
    pub const NAK_REMOTE_ACCESS: u8 = 0x62;
    pub const NAK_REMOTE_OP: u8 = 0x63;
    /// RNR NAK: the low five bits carry the responder's minimum RNR timer code (IBA table 45).
    pub const RNR_NAK: u8 = 0x20;
}

/// Access bits of [`QpCfgFields::access`].
pub mod access {
    pub const REMOTE_WRITE: u8 = 1;
    pub const REMOTE_READ: u8 = 2;
}

crate::record!(
    /// Per-QP configuration, written by the control plane (`s_axil_ctrl`) and read by the
    /// datapath.
    QpCfg,
    QpCfgFields {
        ipv6: bool = 1,
        /// log2(PMTU) - 8: 0 = 256 B … 4 = 4096 B.
        pmtu: u8 = 3,
        remote_qpn: u32 = 24,
        /// IPv4 addresses in the low 32 bits.
        remote_ip: u128 = 128,
        remote_mac: u64 = 48,
        udp_sport: u16 = 16,
        pkey: u16 = 16,
        ttl: u8 = 8,
        dscp: u8 = 6,
        /// The rkey a remote requester must present for this QP's memory region.
        rkey: u32 = 32,
        /// The memory region remote requesters may access: `[mr_base, mr_base + mr_len)`.
        mr_base: u64 = 64,
        mr_len: u64 = 64,
        /// [`access`] bits.
        access: u8 = 2,
        /// Local ACK timeout (IBA): 4.096 µs × 2^timeout, 0 = none (values above 21 count as 21).
        timeout: u8 = 5,
        /// Retries (timeouts and sequence NAKs) before the QP's work completes with `retry
        /// exceeded`; progress restores the count.
        retry_cnt: u8 = 3,
        /// The minimum RNR NAK timer code this responder sends when no RECV is posted (IBA
        /// table 45: 0 = 655.36 ms, 1 = 0.01 ms … 31 = 491.52 ms).
        min_rnr_timer: u8 = 5,
        /// RNR retries this side's requester makes before its SEND completes with `RNR retry
        /// exceeded` (7: without end).
        rnr_retry: u8 = 3,
    }
);

crate::record!(
    /// Per-QP responder state, read and written by the RX path for every request (and by the
    /// control plane to set a QP up).
    QpRq,
    QpRqFields {
        /// [`state`] of the QP.
        state: u8 = 3,
        /// The PSN the responder expects next.
        rq_expected_psn: u32 = 24,
        /// Messages completed (MSN), carried in every ACK.
        rq_msn: u32 = 24,
        /// Inside a multi-packet WRITE (after FIRST, before LAST).
        rq_in_write: bool = 1,
        /// A PSN sequence NAK was sent for the current gap.
        rq_nak_sent: bool = 1,
        /// Next host address of the WRITE in progress.
        rq_write_va: u64 = 64,
        /// Bytes the WRITE in progress still has to carry.
        rq_write_left: u32 = 32,
        /// Packets accepted since the last ACK (coalescing).
        rq_unacked: u8 = 8,
        /// The multi-packet message in progress (`rq_in_write`) is a SEND, placed into the
        /// RECV at the receive queue's head (`rq_write_va`/`rq_write_left` then track that
        /// buffer).
        rq_in_send: bool = 1,
        /// The receive queue: a ring of [`crate::roce::RECV_RING`] RECVs. `head` is the oldest
        /// (the one the next SEND fills), `tail` where the next post goes; both count modulo
        /// twice the ring, so head = tail is empty and a difference of the ring's size full.
        rq_recv_head: u8 = 5,
        rq_recv_tail: u8 = 5,
    }
);

crate::record!(
    /// The part of [`QpCfg`] the TX path keeps in its table: what its packet headers carry, 247
    /// of the 420 bits. (The responder keeps the whole record, which the control plane reads
    /// back.)
    QpPath,
    QpPathFields {
        ipv6: bool = 1,
        remote_qpn: u32 = 24,
        remote_ip: u128 = 128,
        remote_mac: u64 = 48,
        udp_sport: u16 = 16,
        pkey: u16 = 16,
        ttl: u8 = 8,
        dscp: u8 = 6,
    }
);

/// Bits of the RAM words.
pub const QP_CFG_BITS: usize = QpCfgFields::BITS;
pub const QP_PATH_BITS: usize = QpPathFields::BITS;
pub const QP_RQ_BITS: usize = QpRqFields::BITS;

/// PMTU in bytes of a [`QpCfgFields::pmtu`] code.
pub fn pmtu_bytes(code: u8) -> usize {
    256 << code
}

crate::record!(
    /// Per-QP requester state on the completion side: the ring of outstanding messages
    /// (16 per QP) and the PSN range they cover.
    QpReq,
    QpReqFields {
        head: u8 = 4,
        tail: u8 = 4,
        count: u8 = 5,
        /// Oldest unacknowledged PSN.
        sq_una_psn: u32 = 24,
        /// Last PSN sent.
        sq_last_psn: u32 = 24,
        /// A fatal NAK moved the QP's requester to ERROR.
        err: bool = 1,
        /// Retries left, and the QP's retry count and timeout ([`QpCfgFields`]).
        retry_left: u8 = 3,
        retry_cnt: u8 = 3,
        timeout: u8 = 5,
        /// Cycle of the last progress (or of the first message into an empty ring): the
        /// retransmit timer runs from it while messages are outstanding.
        stamp: u32 = 32,
        /// A replay from the current `sq_una_psn` has been requested: further sequence NAKs and
        /// implied NAKs for it are ignored until the PSN moves (the timer still retries).
        rty: bool = 1,
        /// The parallel tap flagged an accepted response packet of the oldest outstanding READ:
        /// its completion carries the flag ([`crate::roce::CqEntryFields::tap_flag`]).
        flagged: bool = 1,
        /// The last PSN of the oldest outstanding message (the ring entry at `tail`; meaningless
        /// when `count` is 0), so that whether an ACK covers it is worked out from this word in
        /// the look-up cycle, a register before the first step's decision.
        tail_last: u32 = 24,
        /// The last event was an RNR NAK: the timer runs for `rnr_wait` (a timeout code, the
        /// smallest 4.096 µs × 2^code at least the NAK's RNR timer) and its expiry replays
        /// from the oldest unacknowledged PSN, using an RNR retry (`rnr_left`, refilled from
        /// `rnr_retry` by progress; 7 never runs out), not a timeout retry.
        rnr: bool = 1,
        rnr_wait: u8 = 5,
        rnr_left: u8 = 3,
        rnr_retry: u8 = 3,
    }
);
pub const QP_REQ_BITS: usize = QpReqFields::BITS;
/// Outstanding messages per QP.
pub const RING: usize = 16;
