//! nicgen golden model: RoCEv2 frame formats (Ethernet/IPv4/IPv6/UDP/BTH/RETH/AETH/ImmDt and
//! the other RC extension headers), the ICRC, and PCAP I/O. The L2–L4 headers are built and
//! parsed with `etherparse`; the CRC is the `crc` crate's CRC-32 (ISO-HDLC).
pub mod aes_ctr;
pub mod dlrm;
pub mod dpi;
pub mod em;
pub mod icrc;
pub mod m2m;
pub mod pcap;
pub mod roce;
pub mod sniff;

pub use icrc::{icrc_of, check_icrc, IcrcVerdict};
pub use roce::*;
