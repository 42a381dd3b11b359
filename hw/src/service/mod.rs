//! Services on the engine's datapath: the slots they join at (`slot`), and the traffic sniffer
//! at the MAC (`sniffer`).
pub mod aes_ctr;
pub mod dlrm;
pub mod slot;
pub mod sniffer;
