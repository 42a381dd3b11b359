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
        /// Also emit the engine with this set of services (comma-separated: aes, dlrm, dpi;
        /// `none`), as top `roce_engine_svc_<names>`; repeat for more. Any subset generates.
        #[arg(long, value_parser = parse_services)]
        services: Vec<usize>,
    },
    /// Verilator -Wall lint and Yosys validation of every emitted top level.
    Lint {
        #[arg(long, default_value = "gen")]
        dir: PathBuf,
        /// Only these top levels (repeat the option; default: every top and board top).
        #[arg(long)]
        top: Vec<String>,
    },
    /// The orchestration module (OM) software.
    Om {
        #[command(subcommand)]
        cmd: OmCmd,
    },
    /// The engine's side of perftest: the simulated card on a TAP device, against a real RoCE
    /// stack (Linux rxe, a ConnectX) running ib_write_bw / ib_read_bw / ib_send_bw and their
    /// _lat forms.
    Perf {
        /// write, read or send.
        op: String,
        /// perftest's server (a host address on the TCP side); omit with --server.
        peer: Option<std::net::Ipv4Addr>,
        /// Listen for perftest's client on TCP port 18515.
        #[arg(long)]
        server: bool,
        /// The TAP device the card attaches to (it must exist: ip tuntap add IF mode tap).
        #[arg(long)]
        iface: String,
        /// The card's IPv4 address.
        #[arg(long)]
        ip: std::net::Ipv4Addr,
        #[arg(long, default_value = "02:4e:47:00:00:01")]
        mac: String,
        #[arg(long, default_value_t = 65536)]
        size: usize,
        #[arg(long, default_value_t = 100)]
        iters: usize,
        #[arg(long, default_value_t = 1)]
        qps: usize,
        /// The largest MTU offered (bytes); the smaller of both sides' is used.
        #[arg(long, default_value_t = 4096)]
        mtu: usize,
        /// Write every frame crossing the TAP here.
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// The QPs' local ACK timeout code (4.096 us x 2^code of simulated time).
        #[arg(long, default_value_t = 12)]
        timeout: u8,
        /// Drop this percentage of RoCE frames at the card's side of the TAP, each way.
        #[arg(long, default_value_t = 0)]
        loss: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Give up after this many seconds of wall time.
        #[arg(long, default_value_t = 600)]
        wall: u64,
        /// The latency tests (ib_write_lat, ib_read_lat), as server or client: write ping-pongs
        /// WRITEs (the server first), read READs one at a time.
        #[arg(long)]
        lat: bool,
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
        /// Card memory (HBM pseudo-channel of the retransmission buffer) read latency in ns.
        #[arg(long, default_value_t = 1416)]
        hbm_latency_ns: u64,
        /// Card memory bandwidth in GB/s (reads and writes together).
        #[arg(long, default_value_t = 14.4)]
        hbm_gbps: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Yosys resources (LUT/FF/BRAM/URAM/DSP) and logic depth per top level.
    Report {
        /// Only these top levels (repeat the option; default: all).
        #[arg(long)]
        top: Vec<String>,
        /// Also print each top's deepest LUT path, cell by cell with its Verilog source line.
        #[arg(long)]
        path: bool,
        /// Also list every combinational path end deeper than this many LUT levels, grouped by
        /// the module and Verilog line where the path starts and ends.
        #[arg(long)]
        deeper_than: Option<u64>,
    },
    /// Vivado: synthesize, implement and write the bitstream of a U55C board top.
    Build {
        /// Board top: au55c100g (RoCE engine) or au55c_em (execution module).
        #[arg(long, default_value = "au55c100g")]
        board: String,
        #[arg(long, default_value = "gen")]
        gen: PathBuf,
        #[arg(long, default_value = "out/vivado")]
        out: PathBuf,
        #[arg(long, default_value_t = 4)]
        jobs: usize,
    },
    /// Vivado: load a bitstream over JTAG (hw_server at HW_SERVER_URL, default localhost:3121).
    Program {
        #[arg(default_value = "out/vivado/au55c100g.bit")]
        bit: PathBuf,
    },
    /// Vivado: write a bitstream to the configuration flash at 0x01002000 (golden image kept).
    Flash {
        #[arg(default_value = "out/vivado/au55c100g.bit")]
        bit: PathBuf,
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
    /// The DistDPU execution module: mixed tenant traffic (TCP, UDP, RoCEv2; malformed, unknown,
    /// denied and spoofed frames among them) both ways through the EM; every output frame is
    /// checked against the golden model.
    Em {
        #[arg(long, value_enum, default_value_t = EmModeArg::Overlay)]
        mode: EmModeArg,
        /// Frames offered in each direction.
        #[arg(long, default_value_t = 4000)]
        frames: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Largest payload in bytes (RoCEv2 payloads stop at 1 KiB).
        #[arg(long, default_value_t = 1400)]
        max_payload: usize,
        /// `tvalid`/`tready` percentages of the testbench streams.
        #[arg(long, default_value_t = 100)]
        valid: u32,
        #[arg(long, default_value_t = 100)]
        ready: u32,
        /// Write every output frame (both ports and the host) here.
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// The datapath's width in bits: 512, or 1024 (2x200G).
        #[arg(long, default_value_t = 512, value_parser = clap::builder::PossibleValuesParser::new(["512", "1024"]).map(|s| s.parse::<usize>().unwrap()))]
        width: usize,
        /// Percent of the frames replaced by mutated ones (header bits flipped, cut short, padded,
        /// or random bytes).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
        fuzz: u32,
    },
    /// The server: the OM software drives EM0's M2M endpoint, EM1..EMn sit behind its relay, every
    /// EM carries traffic; control latencies, the OM crash and restart, a faulty EM isolated.
    Server {
        /// EMs behind EM0 (DistDPU's servers have 0, 4 or 8).
        #[arg(long, default_value_t = 4)]
        ems: usize,
        /// One PCIe crossing in cycles (250 MHz).
        #[arg(long, default_value_t = 200)]
        hop: u64,
        /// Make this EM faulty (its id strap wrong: it never answers).
        #[arg(long)]
        faulty: Option<u8>,
        /// Skip the OM crash and restart.
        #[arg(long)]
        no_crash: bool,
        /// Host frames per EM.
        #[arg(long, default_value_t = 300)]
        frames: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
        /// Card memory (HBM pseudo-channel of the retransmission buffer) read latency in ns.
        #[arg(long, default_value_t = 1416)]
        hbm_latency_ns: u64,
        /// Card memory bandwidth in GB/s (reads and writes together).
        #[arg(long, default_value_t = 14.4)]
        hbm_gbps: f64,
        /// Write both directions of the link here (PCAP, ns timestamps).
        #[arg(long)]
        pcap: Option<PathBuf>,
        /// Random message sizes from 1 B to --size.
        #[arg(long)]
        random_size: bool,
        /// AES-CTR in both engines' payload slots: a key per QP pair, ciphertext on the wire,
        /// every WRITE packet decrypted by RustCrypto and checked against the destination.
        #[arg(long)]
        aes: bool,
        /// Node B posts as many messages of this kind to A at the same time (bidirectional).
        #[arg(long, value_enum)]
        b_op: Option<RdmaOp>,
        /// QPs in each engine's tables (500 or 4096).
        #[arg(long, default_value_t = 500, value_parser = clap::builder::PossibleValuesParser::new(["500", "4096"]).try_map(|s| s.parse::<usize>()))]
        qp_table: usize,
        #[command(flatten)]
        faults: FaultArgs,
        /// Fault campaign: run N messages with the faults above, verify every byte, print
        /// recovery statistics and the goodput against the same run without faults.
        #[arg(long, value_name = "N")]
        campaign: Option<usize>,
        /// Local ACK timeout of the QPs: 4.096 µs × 2^T (0 = none). The default, 8 (1.05 ms),
        /// stays above the worst queueing of these scenarios; loss campaigns recover faster
        /// from lost tails with 3 (33 µs) when few messages are outstanding.
        #[arg(long, default_value_t = 8)]
        timeout: u8,
        /// Retries before a QP's work completes with `retry exceeded`.
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(0..=7))]
        retry_cnt: u8,
        /// Node A keeps at most N messages outstanding (posted, not completed; 0 = post all at
        /// once). Messages go to QPs in turn, so N = --qps keeps one message per QP in flight.
        #[arg(long, default_value_t = 0)]
        outstanding: usize,
        /// Both engines' TX cut-through start threshold in beats (register TX_START): a frame
        /// starts to the MAC once this many of its beats are buffered (16 after reset; 255 =
        /// store and forward). Each underrun doubles it.
        #[arg(long)]
        tx_start: Option<u8>,
        /// Both engines' RX cut-through (register RX_CUT): bit 0 cuts WRITE MIDDLE/LAST and READ
        /// RESPONSE frames through the RX buffer and places them before their ICRC verdict; bit 2
        /// cuts WRITE FIRST/ONLY through but places them only after a good verdict; bit 1 places
        /// those before it too. Default 5; 0 stores every frame until its ICRC is checked.
        #[arg(long)]
        rx_cut: Option<u8>,
        /// The traffic sniffer (its Verilog, under Verilator) at node A's MAC: its records go
        /// to this PCAPNG (interface rx and tx, ns timestamps), each checked against the frame
        /// the link model saw.
        #[arg(long)]
        sniff: Option<PathBuf>,
        /// Sniffer snap length in bytes (64: the headers only).
        #[arg(long, default_value_t = 65535)]
        snap: u16,
        /// Sniffer filter: field=value[/mask], comma-separated, fields qpn, opcode, ip, port
        /// (e.g. `qpn=0x101,opcode=0x0a`).
        #[arg(long, default_value = "")]
        sniff_filter: nicgen_model::sniff::Filter,
        /// DLRM preprocessing in node A's RX slot, on every QP of A: data arriving at A (READ
        /// responses, B's WRITEs) is transformed before its DMA write and checked against the
        /// model. Uses the services engine (AES-CTR, then DLRM, on RX).
        #[arg(long, value_enum)]
        dlrm: Option<DlrmOp>,
        /// The modulus of `--dlrm modulus`.
        #[arg(long, default_value_t = 1_000_003)]
        dlrm_mod: u32,
        /// DPI on node A's parallel tap, this policy on every QP of A: frames of the classes in
        /// `--dpi-classes` are flagged (counted, and they pass) or dropped (the requester then
        /// retries, and gives up with `retry exceeded`). A's flag and drop counters are checked
        /// against the Rust model's verdict for every frame that reached A, and so is the tap flag
        /// of each READ completion (set when a response of the READ was flagged). Uses the
        /// services engine.
        #[arg(long, value_enum)]
        dpi: Option<DpiPolicy>,
        /// The DPI classes that take the policy, comma-separated (csv, png, text, elf; a file-type
        /// classifier, not a malware detector).
        #[arg(long, default_value = "elf", value_delimiter = ',')]
        dpi_classes: Vec<String>,
        /// With --dpi: only A's first N QPs take the policy; the others pass (0: all).
        #[arg(long, default_value_t = 0)]
        dpi_qps: usize,
        /// Both engines with exactly this set of services (aes, dlrm, dpi, comma-separated;
        /// `none`). Default: all of them with --aes, --dlrm or --dpi, else none.
        #[arg(long, value_parser = parse_services)]
        services: Option<usize>,
    },
}

fn parse_services(s: &str) -> Result<usize, String> {
    nicgen_hw::service::aes_ctr::kind::parse(s)
}

#[derive(clap::ValueEnum, Clone, Copy)]
enum DpiPolicy {
    Pass,
    Flag,
    Drop,
}

#[derive(clap::ValueEnum, Clone, Copy)]
enum DlrmOp {
    Neg2zero,
    Log,
    Neg2zeroLog,
    Modulus,
}

/// Faults on both link directions, per frame, each a fraction from 0 to 0.1.
#[derive(clap::Args, Clone, Copy)]
struct FaultArgs {
    /// Random loss.
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Burst loss: a burst of 2 to 8 frames starts.
    #[arg(long, default_value_t = 0.0)]
    burst: f64,
    /// Reordering: a frame is held back up to --reorder-bound cycles.
    #[arg(long, default_value_t = 0.0)]
    reorder: f64,
    #[arg(long, default_value_t = 2000)]
    reorder_bound: u64,
    /// Duplication.
    #[arg(long, default_value_t = 0.0)]
    dup: f64,
    /// Single-bit corruption (the ICRC check must catch it).
    #[arg(long, default_value_t = 0.0)]
    corrupt: f64,
    /// Truncation.
    #[arg(long, default_value_t = 0.0)]
    truncate: f64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EmModeArg {
    Overlay,
    Nat,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum RdmaOp {
    Write,
    Read,
    /// WRITE or READ, at random.
    Mixed,
    /// SEND into RECVs the receiving node posts.
    Send,
    /// WRITE, READ or SEND, at random.
    MixedAll,
}

#[derive(Subcommand)]
enum OmCmd {
    /// Compile a tenant policy (TOML) into per-EM device profiles and table batches: prints a
    /// summary per EM, and with --out the M2M messages (hex, one per line) with rising epochs.
    Compile {
        policy: PathBuf,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Rail-aware subnetting (DistDPU Appendix A): a subnet per rail, the PXN relay NIC by
    /// subnet match, and a node's route table.
    Rails {
        #[arg(long, default_value_t = 8)]
        rails: u32,
        /// Nodes (NICs) per rail.
        #[arg(long, default_value_t = 16)]
        nodes: u32,
        #[arg(long, default_value = "10.200.0.0")]
        base: std::net::Ipv4Addr,
    },
}

#[derive(Subcommand)]
enum PcapCmd {
    /// Verify every RoCEv2 frame's ICRC twice: golden model and the Verilog checker.
    Check { file: PathBuf },
    /// Turn the sniffer's capture records (its `m_axis_cap` words, as DMA'd to memory) into
    /// PCAPNG: interface 0 is RX, 1 is TX, nanosecond timestamps, drop counts per packet.
    Records {
        file: PathBuf,
        #[arg(short, long)]
        out: PathBuf,
        /// The snap length the sniffer ran with (for the interface descriptions).
        #[arg(long, default_value_t = 65535)]
        snap: u32,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Verilog { out, services } => cmd::verilog::run(&out, &services),
        Cmd::Build { board, gen, out, jobs } => cmd::vivado::build(&gen, &board, &out, jobs),
        Cmd::Program { bit } => cmd::vivado::program(&bit),
        Cmd::Flash { bit } => cmd::vivado::flash(&bit),
        Cmd::Lint { dir, top } => cmd::lint::run(&dir, &top),
        Cmd::Perf { op, peer, server, iface, ip, mac, size, iters, qps, mtu, pcap, timeout, loss, seed, wall, lat } => {
            cmd::perf::run(&op, peer, server, iface, ip, &mac, size, iters, qps, mtu, pcap, timeout, loss, seed, wall, lat)
        }
        Cmd::Sim { scenario: SimScenario::Icrc { frames, seed, pcap, trace } } => cmd::sim::icrc(frames, seed, pcap.as_deref(), trace.as_deref()),
        Cmd::Sim { scenario: SimScenario::Rdma { op, size, count, qps, seed, pmtu, pcie_latency_ns, pcie_gbps, hbm_latency_ns, hbm_gbps, pcap, random_size, aes, qp_table, b_op, faults: f, campaign, timeout, retry_cnt, outstanding, tx_start, rx_cut, sniff, snap, sniff_filter, dlrm, dlrm_mod, dpi, dpi_classes, dpi_qps, services } } => {
            let conv = |op| match op {
                RdmaOp::Write => nicgen_scenario::rdma::Op::Write,
                RdmaOp::Read => nicgen_scenario::rdma::Op::Read,
                RdmaOp::Mixed => nicgen_scenario::rdma::Op::Mixed,
                RdmaOp::Send => nicgen_scenario::rdma::Op::Send,
                RdmaOp::MixedAll => nicgen_scenario::rdma::Op::MixedAll,
            };
            let faults = nicgen_sim::host::Faults { loss: f.loss, burst: f.burst, reorder: f.reorder, reorder_bound: f.reorder_bound, dup: f.dup, corrupt: f.corrupt, truncate: f.truncate };
            let o = nicgen_scenario::rdma::RdmaOpts {
                op: conv(op),
                size,
                count: campaign.unwrap_or(count),
                qps,
                seed,
                pcap,
                pmtu: cmd::sim::pmtu_code(pmtu)?,
                dma: nicgen_sim::host::DmaParams::from_ns_gbps(pcie_latency_ns, pcie_gbps),
                verbose: true,
                table_qps: qp_table,
                random_size,
                aes,
                outstanding,
                b_op: b_op.map(conv),
                faults,
                timeout,
                retry_cnt,
                card: nicgen_sim::cardmem::CardParams::from_ns_gbps(hbm_latency_ns, hbm_gbps),
                sniff: sniff.map(|path| nicgen_scenario::rdma::SniffOpts { path, snap, filter: sniff_filter }),
                dlrm: dlrm.map(|d| {
                    use nicgen_model::dlrm::op;
                    let o = match d {
                        DlrmOp::Neg2zero => op::NEG2ZERO,
                        DlrmOp::Log => op::LOG,
                        DlrmOp::Neg2zeroLog => op::NEG2ZERO_LOG,
                        DlrmOp::Modulus => op::MODULUS,
                    };
                    (o, dlrm_mod)
                }),
                services,
                threads: None,
                tx_start,
                rx_cut,
                dpi_qps,
                dpi: match dpi {
                    None => None,
                    Some(p) => {
                        use nicgen_model::dpi::{verdict, Net};
                        let net = Net::builtin();
                        let mut mask = 0u8;
                        for c in &dpi_classes {
                            let k = net.class(c).ok_or_else(|| anyhow::anyhow!("--dpi-classes: {c} is not one of {}", net.classes.join(", ")))?;
                            mask |= 1 << k;
                        }
                        Some(([verdict::PASS, verdict::FLAG, verdict::DROP][p as usize], mask))
                    }
                },
                ..Default::default()
            };
            cmd::sim::rdma(&o, pcie_latency_ns, pcie_gbps, campaign.is_some())
        }
        Cmd::Bench { quick, smoke, out, pcie_latency_ns, pcie_gbps, hbm_latency_ns, hbm_gbps, seed } => {
            cmd::bench::run(&cmd::bench::BenchOpts { quick, smoke, out, pcie_latency_ns, pcie_gbps, hbm_latency_ns, hbm_gbps, seed })
        }
        Cmd::Sim { scenario: SimScenario::Em { mode, frames, seed, max_payload, valid, ready, pcap, width, fuzz } } => {
            let mode = match mode {
                EmModeArg::Overlay => nicgen_model::em::EmMode::Overlay,
                EmModeArg::Nat => nicgen_model::em::EmMode::Nat,
            };
            cmd::sim::em(&nicgen_scenario::em::EmOpts { mode, frames, seed, valid, ready, max_payload, pcap, clean_len: None, width, fuzz })
        }
        Cmd::Report { top, path, deeper_than } => cmd::report::run(&top, path, deeper_than),
        Cmd::Om { cmd: OmCmd::Compile { policy, out } } => cmd::om::compile(&policy, out.as_deref()),
        Cmd::Om { cmd: OmCmd::Rails { rails, nodes, base } } => cmd::om::rails(base, rails, nodes),
        Cmd::Sim { scenario: SimScenario::Server { ems, hop, faulty, no_crash, frames, seed } } => {
            let store = std::env::temp_dir().join(format!("nicgen-om-{}.json", std::process::id()));
            let o = nicgen_om::server::ServerOpts { ems, hop, faulty, crash: !no_crash, frames, store: store.clone(), seed };
            let r = nicgen_om::server::run_server(&o)?;
            r.print(&o);
            std::fs::remove_file(&store).ok();
            Ok(())
        }
        Cmd::Pcap { cmd: PcapCmd::Records { file, out, snap } } => cmd::pcap::records(&file, &out, snap),
        Cmd::Pcap { cmd: PcapCmd::Check { file } } => {
            let bad = cmd::pcap::check(&file)?;
            if bad > 0 {
                std::process::exit(1);
            }
            Ok(())
        }
    }
}
