//! Services on the engine's datapath: the slots they join at (`slot`).
pub mod aes;
pub mod slot;
