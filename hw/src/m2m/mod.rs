//! The M2M management endpoint (DistDPU §4.3): the only writer of an EM's tables. Messages come
//! from the orchestration module (OM) or an upstream EM; the codec and the golden behaviour are
//! `nicgen_model::m2m`. `EmCard` carries the channel in Ethernet frames on a wire port (the
//! U55C board's EM).
pub mod card;
pub mod endpoint;
pub mod eth;
pub mod node;

use crate::stream::{AxisSink, AxisSource};

/// The M2M channel: 64-bit AXI4-Stream (messages are multiples of 8 bytes).
pub type Axis64Sink = AxisSink<64, 8>;
pub type Axis64Source = AxisSource<64, 8>;
