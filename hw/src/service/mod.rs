//! Services on the engine's datapath: the slots they join at (`slot`), and the traffic sniffer
//! at the MAC (`sniffer`).
//! DPI (`dpi`) is a tap core of the parallel path.
pub mod aes_ctr;
pub mod dlrm;
pub mod dpi;
pub mod slot;
pub mod sniffer;
