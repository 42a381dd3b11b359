//! The RoCEv2 RC engine: header definition, RX path, TX path and QP state.
pub mod hdr;
pub mod rx;
pub mod tx;
pub mod qp;

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
    /// A request from the RX path to the TX path: send an ACK or NAK.
    AckReq,
    AckReqFields {
        qpn: u32 = 24,
        syndrome: u8 = 8,
        msn: u32 = 24,
        psn: u32 = 24,
    }
);

crate::record!(
    /// An accepted RDMA READ request: the TX path streams `len` bytes from `va` as READ
    /// RESPONSE packets with PSNs from `psn`.
    ReadJob,
    ReadJobFields {
        qpn: u32 = 24,
        va: u64 = 64,
        len: u32 = 32,
        psn: u32 = 24,
    }
);
