//! `nicgen`: generate, lint, simulate and check the SmartNIC hardware.
mod cmd;

use anyhow::Result;
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
