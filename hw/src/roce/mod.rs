//! The RoCEv2 RC engine: header definition, RX path, TX path and QP state.
pub mod hdr;
pub mod rx;
pub mod tx;
pub mod qp;
pub mod dma;
pub mod ctrl;
pub mod engine;
pub mod psn_count;
pub mod arp_icmp;

use rust_hdl::prelude::*;

crate::record!(
    /// A DMA command to host memory (`m_axis_dma_{rd,wr}_cmd`): `len` bytes at `addr`. A write
    /// command's data follows on the write data stream as one frame of exactly `len` bytes.
    DmaCmd,
    DmaCmdFields {
        addr: u64 = 64,
        len: u32 = 32,
        /// Who asked (the QPN for the engine's own commands).
        tag: u32 = 24,
    }
);

crate::record!(
    /// What the responder asks the TX path to send, in the order it must go out (IBA: a QP's
    /// responses in PSN order): an ACK/NAK, or (`read`) the READ RESPONSE packets of an accepted
    /// RDMA READ: `len` bytes from `va`, PSNs from `psn`.
    RespItem,
    RespItemFields {
        read: bool = 1,
        qpn: u32 = 24,
        psn: u32 = 24,
        /// ACK/NAK syndrome (READ responses carry 0x1F).
        syndrome: u8 = 8,
        msn: u32 = 24,
        va: u64 = 64,
        len: u32 = 32,
        /// The QP's PMTU code.
        pmtu: u8 = 3,
        /// A READ answered again (a duplicate request): its payload is not copied to the
        /// retransmission buffer again.
        again: bool = 1,
        /// ... and it is answered from the copies of its first answer in the retransmission
        /// buffer (they are all still there), not from host memory.
        rb: bool = 1,
    }
);

/// [`SqWrFields::op`] values.
pub mod wr_op {
    pub const WRITE: u8 = 0;
    pub const READ: u8 = 1;
    /// A SEND: its payload goes into the buffer of the peer's oldest posted RECV.
    pub const SEND: u8 = 2;
}

crate::record!(
    /// A receive buffer, as the responder keeps it on a QP's receive queue: `len` bytes at
    /// `addr`; the completion of the SEND placed into it carries `wr_id`.
    RecvEnt,
    RecvEntFields {
        wr_id: u32 = 32,
        addr: u64 = 64,
        len: u32 = 32,
    }
);

crate::record!(
    /// A RECV work request (`recv` channel): a receive buffer posted to QP `qpn`'s receive
    /// queue.
    RecvWr,
    RecvWrFields {
        qpn: u32 = 24,
        wr_id: u32 = 32,
        addr: u64 = 64,
        len: u32 = 32,
    }
);

/// RECVs a QP's receive queue holds (a ring per QP in the responder; a post to a full ring is
/// dropped and counted).
pub const RECV_RING: usize = 16;

crate::record!(
    /// A work request on the send queue (`s_axis_sq`): one whole message.
    SqWr,
    SqWrFields {
        wr_id: u32 = 32,
        /// [`wr_op`].
        op: u8 = 2,
        qpn: u32 = 24,
        /// Local (host) address: the source of a WRITE, the destination of a READ.
        laddr: u64 = 64,
        /// Remote address and key.
        raddr: u64 = 64,
        rkey: u32 = 32,
        len: u32 = 32,
        /// Post a completion when the message is acknowledged.
        signaled: bool = 1,
    }
);

crate::record!(
    /// A message the requester has sent, for the completion side: its PSN range.
    SentWr,
    SentWrFields {
        wr_id: u32 = 32,
        op: u8 = 2,
        qpn: u32 = 24,
        first_psn: u32 = 24,
        last_psn: u32 = 24,
        laddr: u64 = 64,
        /// Remote address and key, for a retransmission.
        raddr: u64 = 64,
        rkey: u32 = 32,
        len: u32 = 32,
        signaled: bool = 1,
        pmtu: u8 = 3,
        /// Not sent: the QP is not in RTS. Completes as flushed.
        flush: bool = 1,
    }
);

crate::record!(
    /// A retransmission (Go-Back-N), from the completion side to the TX requester: send the
    /// outstanding message again from `start_psn` (its first PSN, or for the oldest message the
    /// oldest unacknowledged PSN, which may be inside it). The replay of one QP is a run of these,
    /// oldest first; `last` ends the run.
    RtxWr,
    RtxWrFields {
        wr_id: u32 = 32,
        op: u8 = 2,
        qpn: u32 = 24,
        start_psn: u32 = 24,
        /// The byte offset of `start_psn` in the message: (start − first PSN) × PMTU, worked out
        /// by the completion side as it queues the replay, so the TX adds it to the addresses
        /// and subtracts it from the length without a subtractor and a shifter in front.
        off: u32 = 32,
        /// `start_psn` is the message's first PSN.
        first: bool = 1,
        laddr: u64 = 64,
        raddr: u64 = 64,
        rkey: u32 = 32,
        len: u32 = 32,
        last: bool = 1,
    }
);

crate::record!(
    /// The progress of a work request parked by the TX because its QP's window was full (or an
    /// older request of its QP was parked): where its next packet starts, and its place in its
    /// QP's order.
    DeferSt,
    DeferStFields {
        addr: u64 = 64,
        left: u32 = 32,
        psn: u32 = 24,
        first: bool = 1,
        /// Recorded by the completion side and partly sent (else it starts afresh).
        started: bool = 1,
        seq: u8 = 6,
    }
);

/// Packets a QP may have outstanding at most (the ACK-clocked window; `TX_WINDOW` may lower it),
/// and the retransmission-buffer slots per QP.
pub const WINDOW_MAX: usize = 16;

crate::record!(
    /// One packet to send, before addressing: what the generators (ACK, READ response,
    /// requester) decide. The addressing stage adds the QP's addresses from its table.
    TxDesc,
    TxDescFields {
        opcode: u8 = 8,
        qpn: u32 = 24,
        psn: u32 = 24,
        ackreq: bool = 1,
        va: u64 = 64,
        rkey: u32 = 32,
        dma_len: u32 = 32,
        syndrome: u8 = 8,
        msn: u32 = 24,
        plen: u16 = 16,
        /// Host address of the payload.
        laddr: u64 = 64,
        /// The payload comes from the retransmission buffer (a WRITE packet sent again, or a
        /// READ response packet answered again).
        rb: bool = 1,
        /// The payload is also written to the retransmission buffer (the first transmission of
        /// a WRITE packet or of a READ response packet).
        cp: bool = 1,
        /// The packet's slot is in the buffer's response half (a READ response packet).
        rsp: bool = 1,
    }
);

crate::record!(
    /// A responder resource (rxe's `resp_res`): an accepted READ request, kept so that a
    /// duplicate of it is answered again only if it asks for a subset of what was reserved.
    /// 144 bits: its PSNs (bits 0..48, compared for all entries at once) and its address range
    /// (bits 48..144, read for the one entry whose PSNs a duplicate falls in). Nothing is stored
    /// that the QP's other state or the entry itself already gives:
    /// - validity: `n` is at least 1 in an entry written, and 0 in one cleared;
    /// - the rkey: a READ with a nonzero length was accepted with the QP's rkey, and the QP's
    ///   configuration changes only with a control-plane write, which clears the entries; a
    ///   duplicate must present that rkey again (unless its length is 0, which is not checked);
    /// - the high 32 bits of the end: va's, plus 1 when `end_lo` is below va's low word (a READ
    ///   is shorter than 2^32 bytes).
    RdRes,
    RdResFields {
        psn: u32 = 24,
        /// PSNs reserved for the response.
        n: u32 = 24,
        /// The low 32 bits of va + length.
        end_lo: u32 = 32,
        va: u64 = 64,
    }
);

/// READ requests a responder keeps per QP (in arrival order). The requester's window (16 PSNs,
/// each READ taking at least one) leaves at most 15 READs sent after its oldest outstanding one,
/// so a READ that may still be asked again is never evicted.
pub const RD_RES: usize = 16;

crate::record!(
    /// A burst on the retransmission-buffer port: its address and AXI length (beats - 1); a
    /// read also waits until `need` copies have been written (every copy chosen before it).
    RbBurst,
    RbBurstFields {
        addr: u64 = 64,
        alen: u8 = 8,
        need: u16 = 16,
    }
);

crate::record!(
    /// Where a payload on its way to the TX slot comes from and goes to: the host (DMA) or the
    /// retransmission buffer (`rb`), and whether it is copied there (`cp`, at `addr`).
    RbSrc,
    RbSrcFields {
        rb: bool = 1,
        cp: bool = 1,
        addr: u64 = 64,
        alen: u8 = 8,
        plen: u16 = 16,
    }
);

/// Bytes of one retransmission-buffer slot (the largest PMTU). A packet's slot is
/// `(RSP * 2^A * WINDOW_MAX + QPN * WINDOW_MAX + PSN mod WINDOW_MAX) * RB_SLOT`, where RSP is 1
/// for a READ response packet (the responder's half) and 0 for a WRITE packet (the requester's
/// half), so the buffer holds 2 * 2^A * WINDOW_MAX * 4 KiB (64 MiB for the 500-QP tables).
pub const RB_SLOT: usize = 4096;

/// Completion status codes ([`CqEntryFields::status`]).
pub mod cq_status {
    pub const SUCCESS: u8 = 0;
    pub const RETRY_EXCEEDED: u8 = 1;
    pub const REMOTE_ACCESS: u8 = 2;
    pub const REMOTE_INVALID_REQ: u8 = 3;
    pub const REMOTE_OP: u8 = 4;
    /// Outstanding when the QP went to ERROR.
    pub const FLUSHED: u8 = 5;
    /// A READ response whose opcode or length does not fit its place in the READ (IBA's bad
    /// response): the READ fails, nothing of the response is written, the QP goes to ERROR.
    pub const BAD_RESPONSE: u8 = 6;
    /// A receive completion: the SEND was longer than the RECV's buffer (IBA's local length
    /// error). The QP goes to ERROR.
    pub const LOCAL_LENGTH: u8 = 7;
    /// The peer answered RNR NAK more often than the QP's `rnr_retry` allows.
    pub const RNR_RETRY_EXCEEDED: u8 = 8;
}

crate::record!(
    /// A completion on `m_axis_cq`.
    CqEntry,
    CqEntryFields {
        wr_id: u32 = 32,
        qpn: u32 = 24,
        op: u8 = 2,
        /// [`cq_status`].
        status: u8 = 4,
        byte_len: u32 = 32,
        /// A receive completion (a RECV consumed by an incoming SEND; `op` is [`wr_op::SEND`]),
        /// not the completion of a work request this side sent.
        recv: bool = 1,
        /// The parallel tap (DPI, policy `flag`) flagged a packet of the data this message
        /// brought in: a READ whose accepted responses include a flagged one.
        tap_flag: bool = 1,
    }
);
