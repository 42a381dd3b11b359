//! nicgen simulation harness.
//!
//! One testbench API ([`CycleSim`]) with three back ends:
//! * [`VerilatorSim`]: the emitted Verilog, verilated into a cached shared library behind a
//!   generated C-ABI shim;
//! * [`RustHdlSim`]: rust-hdl's own simulator, stepped by hand;
//! * [`Diff`]: both in lock step, failing on the first cycle where any output differs.
//!
//! [`Recorder`] wraps any back end and writes a self-checking Verilog testbench of the run.
//! [`axis`] holds the AXI4-Stream driver and monitor with random gaps and backpressure.
pub mod axil;
pub mod axis;
pub mod cardmem;
pub mod chan;
pub mod cycle;
pub mod diff;
pub mod frames;
pub mod host;
pub mod oracle;
pub mod recorder;
pub mod rng;
pub mod rusthdl;
pub mod verilator;

pub use cycle::CycleSim;
pub use nicgen_hdl::{impl_ports, top_ports, verilog_named, Dir, PortInfo, KEEP_HIERARCHY, ROOT, SHARED_BEGIN, SHARED_END};
pub use diff::Diff;
pub use recorder::Recorder;
pub use rng::Rng;
pub use rusthdl::{PortAccess, RustHdlSim, SigWords, StructWords};
pub use verilator::{VerilatorBuild, VerilatorOptions, VerilatorSim};

/// Build a Verilator model of a rust-hdl block (root module named `top`) and load it.
pub fn verilate<T: rust_hdl::prelude::Block>(uut: &mut T) -> VerilatorSim {
    uut.connect_all();
    let v = verilog_named(uut, "top");
    let ports = top_ports(uut);
    VerilatorSim::build(&v, "top", ports, "clock", &VerilatorOptions::from_env())
        .unwrap_or_else(|e| panic!("verilator build failed: {e:#}"))
}

/// Runs `jobs` on every core (`available_parallelism` threads) and returns their results in
/// order. For independent runs that each verilate a model (the bench's per-block figures);
/// jobs of different types go in as `Box<dyn FnOnce() -> T + Send>`.
pub fn par_map<T: Send, F: FnOnce() -> T + Send>(jobs: Vec<F>) -> Vec<T> {
    let n = jobs.len();
    let threads = std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1).min(n.max(1));
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate().collect::<std::collections::VecDeque<_>>());
    let done = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<Option<T>>>());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let Some((i, job)) = queue.lock().unwrap().pop_front() else { return };
                let r = job();
                done.lock().unwrap()[i] = Some(r);
            });
        }
    });
    done.into_inner().unwrap().into_iter().map(|r| r.expect("every job ran")).collect()
}
