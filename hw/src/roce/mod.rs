//! The RoCEv2 RC engine: header definition, RX path, TX path and QP state.
pub mod hdr;
pub mod rx;
pub mod tx;
