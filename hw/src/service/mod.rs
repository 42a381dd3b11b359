//! Services on the engine's datapath: the slots they join at (`slot`).
pub mod aes_ctr;
pub mod slot;
