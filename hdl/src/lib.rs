//! What a rust-hdl block needs to be emitted as Verilog and reached port by port: its ports in
//! declaration order, word-level access to them (`impl_ports!`), and the Verilog emitter with
//! nicgen's markers (shared modules, `keep_hierarchy`). The hardware crate depends on this and
//! not on the simulator; the simulator builds on it.
pub mod emit;
pub mod ports;
pub mod words;

pub use emit::{verilog_named, KEEP_HIERARCHY, ROOT, SHARED_BEGIN, SHARED_END};
pub use ports::{top_ports, Dir, PortInfo};
pub use words::{PortAccess, SigWords, StructWords};
