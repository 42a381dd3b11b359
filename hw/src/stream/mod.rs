//! Stream library: AXI4-Stream types, register slice, FIFO, cut-through TX FIFO, header
//! insert/strip, frame arbiter and RAM wrappers.
pub mod axis;
pub use axis::*;
pub mod skid;
pub use skid::*;
pub mod ram;
pub use ram::*;
pub mod fifo;
pub use fifo::*;
pub mod cut;
pub use cut::*;
pub mod keep;
pub use keep::*;
pub mod funnel;
pub use funnel::*;
pub mod strip;
pub use strip::*;
pub mod insert;
pub use insert::*;
pub mod arbiter;
pub use arbiter::*;
pub mod limit;
pub use limit::*;
pub mod chan;
pub mod width;
pub use width::*;
pub use chan::*;
