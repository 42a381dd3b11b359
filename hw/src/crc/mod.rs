//! RoCEv2 ICRC: GF(2) matrices computed in Rust, emitted as XOR trees, and the pipelined
//! generator and checker built on them.
pub mod gf2;
pub mod icrc;
pub mod core;
pub mod fields;
pub mod matrix;
