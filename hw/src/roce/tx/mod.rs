//! TX path: work requests and responses become headers; the deparser builds the frames.
pub mod build;
pub mod engine;
