//! `nicgen`: generate, lint, simulate and check the SmartNIC hardware.
mod cmd;

use anyhow::Result;
use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "nicgen", version, about = "SmartNIC hardware (RoCEv2 engine, DistDPU EM) generated from Rust as Verilog")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Emit every top level: core Verilog, clean-port wrapper, file list, register map.
    Verilog {
        #[arg(long, default_value = "gen")]
        out: PathBuf,
    },
    /// Verilator -Wall lint and Yosys validation of every emitted top level.
    Lint {
        #[arg(long, default_value = "gen")]
        dir: PathBuf,
    },
    /// Run a simulation under Verilator and verify it.
    Sim {
        #[command(subcommand)]
        scenario: SimScenario,
    },
    /// The performance report: two-node runs (Fig. 4 and 5 analogues, 64 B message rate) and
    /// per-block latency/II, beside BALBOA's published figures.
    Bench {
        /// A subset that runs in a few minutes.
        #[arg(long)]
        quick: bool,
        /// The tiny form the tests run.
        #[arg(long, hide = true)]
        smoke: bool,
        /// Write bench.md, bench.json and the plots (PNG and SVG) here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Host DMA read latency in ns.
        #[arg(long, default_value_t = 1000)]
        pcie_latency_ns: u64,
        /// Host DMA bandwidth in GB/s.
        #[arg(long, default_value_t = 13.0)]
        pcie_gbps: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Yosys resources (LUT/FF/BRAM/URAM/DSP) and logic depth per top level.
    Report {
        /// Only this top level (default: all).
        #[arg(long)]
        top: Option<String>,
    },
    /// PCAP tools.
    Pcap {
        #[command(subcommand)]
        cmd: PcapCmd,
    },
}

#[derive(Subcommand)]
enum SimScenario {
    /// ICRC generator → checker loop on random RoCEv2 frames with backpressure.
    Icrc {
        #[arg(long, default_value_t = 500)]
        frames: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the generator's output frames here.
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Write a VCD waveform of the generator run here.
        #[arg(long)]
        trace: Option<PathBuf>,
    },
    /// Two RoCE engines joined by a 100G link model: node A posts RDMA WRITE/READ to node B;
    /// every destination byte is verified.
    Rdma {
        #[arg(long, value_enum, default_value_t = RdmaOp::Write)]
        op: RdmaOp,
        /// Message size in bytes.
        #[arg(long, default_value_t = 32768)]
        size: usize,
        #[arg(long, default_value_t = 64)]
        count: usize,
        #[arg(long, default_value_t = 4)]
        qps: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// PMTU in bytes (256, 512, 1024, 2048, 4096).
        #[arg(long, default_value_t = 4096)]
        pmtu: usize,
        /// Host DMA read latency in ns.
        #[arg(long, default_value_t = 1000)]
        pcie_latency_ns: u64,
        /// Host DMA bandwidth in GB/s.
        #[arg(long, default_value_t = 13.0)]
        pcie_gbps: f64,
        /// Write both directions of the link here (PCAP, ns timestamps).
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Random message sizes from 1 B to --size.
        #[arg(long)]
        random_size: bool,
        /// Latency of each service slot and of the parallel tap (1: pass-through; 11: AES-class).
        #[arg(long, default_value_t = 1, value_parser = clap::builder::PossibleValuesParser::new(["1", "11"]).try_map(|s| s.parse::<usize>()))]
        slot_latency: usize,
        /// Node B posts as many messages of this kind to A at the same time (bidirectional).
        #[arg(long, value_enum)]
        b_op: Option<RdmaOp>,
        /// QPs in each engine's tables (500 or 4096).
        #[arg(long, default_value_t = 500, value_parser = clap::builder::PossibleValuesParser::new(["500", "4096"]).try_map(|s| s.parse::<usize>()))]
        qp_table: usize,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum RdmaOp {
    Write,
    Read,
    Mixed,
}

#[derive(Subcommand)]
enum PcapCmd {
    /// Verify every RoCEv2 frame's ICRC twice: golden model and the Verilog checker.
    Check { file: PathBuf },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Verilog { out } => cmd::verilog::run(&out),
        Cmd::Lint { dir } => cmd::lint::run(&dir),
        Cmd::Sim { scenario: SimScenario::Icrc { frames, seed, pcap, trace } } => cmd::sim::icrc(frames, seed, pcap.as_deref(), trace.as_deref()),
        Cmd::Sim { scenario: SimScenario::Rdma { op, size, count, qps, seed, pmtu, pcie_latency_ns, pcie_gbps, pcap, random_size, slot_latency, qp_table, b_op } } => {
            let conv = |op| match op {
                RdmaOp::Write => nicgen_hw::scenario::Op::Write,
                RdmaOp::Read => nicgen_hw::scenario::Op::Read,
                RdmaOp::Mixed => nicgen_hw::scenario::Op::Mixed,
            };
            cmd::sim::rdma(conv(op), size, count, qps, seed, pmtu, pcie_latency_ns, pcie_gbps, pcap, random_size, slot_latency, qp_table, b_op.map(conv))
        }
        Cmd::Bench { quick, smoke, out, pcie_latency_ns, pcie_gbps, seed } => cmd::bench::run(&cmd::bench::BenchOpts { quick, smoke, out, pcie_latency_ns, pcie_gbps, seed }),
        Cmd::Report { top } => cmd::report::run(top.as_deref()),
        Cmd::Pcap { cmd: PcapCmd::Check { file } } => {
            let bad = cmd::pcap::check(&file)?;
            if bad > 0 {
                std::process::exit(1);
            }
            Ok(())
        }
    }
}
