//! nicgen's simulation scenarios, above the hardware and the simulator: the two-node RDMA
//! scenario (`nicgen sim rdma`, `nicgen bench`), the EM both ways (`nicgen sim em`), and the
//! per-block latency and II figures of `nicgen bench`.
pub mod blockbench;
pub mod em;
pub mod perf;
pub mod perftest;
pub mod rdma;
pub mod twin;
