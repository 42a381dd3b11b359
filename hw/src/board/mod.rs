//! Board glue for the Alveo U55C top levels (`top::au55c`): clock-domain crossings and the
//! host register window. Each is emitted as its own top, so the board top instantiates them by
//! stable module names.
pub mod cdc;
pub mod regs;
