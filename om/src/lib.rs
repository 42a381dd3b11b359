//! The orchestration module (OM, DistDPU §4.3): the one control plane of a server. It compiles
//! tenant policy into EM table images, turns image changes into M2M table batches with rising
//! epochs, and keeps its epochs and state in a store apart from its logic.
pub mod image;
pub mod policy;
pub mod om;
pub mod rail;
pub mod server;
