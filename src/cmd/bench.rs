//! `nicgen bench`: the performance report. Every row is a two-node Verilator run of the RoCE
//! engines (`nicgen_scenario::rdma::rdma`, every byte verified) or a per-block measurement, beside
//! BALBOA's published figure where there is one. Writes `bench.md`, `bench.json` and plots.
use nicgen_sim::cardmem::CardParams;
use anyhow::{bail, Result};
use nicgen_scenario::blockbench::{block_figures, sniffer_figures, BlockFigure, SniffFigure};
use nicgen_scenario::rdma::*;
use nicgen_sim::host::{DmaParams, NS_PER_CYCLE};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

pub struct BenchOpts {
    pub quick: bool,
    /// The tiny form `make test` runs: two sizes, two QP counts.
    pub smoke: bool,
    pub out: Option<PathBuf>,
    pub pcie_latency_ns: u64,
    pub pcie_gbps: f64,
    pub hbm_latency_ns: u64,
    pub hbm_gbps: f64,
    pub seed: u64,
}

/// The model settings every figure depends on.
#[derive(Serialize)]
struct Settings {
    clock_mhz: f64,
    data_width_bits: usize,
    mac: String,
    pcie_read_latency_ns: u64,
    pcie_gbps: f64,
    hbm: String,
    pmtu: usize,
    slot_latency_cycles: usize,
    quick: bool,
}

#[derive(Serialize, Clone)]
pub struct Row {
    pub group: &'static str,
    pub op: String,
    pub size: usize,
    pub qps: usize,
    pub messages: usize,
    pub outstanding: usize,
    pub goodput_gbps: f64,
    pub ceiling_pct: f64,
    pub mpps: f64,
    pub msg_rate_m: f64,
    pub lat_mean_cycles: f64,
    pub lat_p99_cycles: u64,
    /// Mean of the QPs' goodputs; none, like `jain`, when the QPs were not all active at once.
    pub per_qp_gbps: Option<f64>,
    /// Jain's index over the QPs' goodputs; none when the QPs were not all active at once (an
    /// outstanding cap smaller than the QP count serves them in turn).
    pub jain: Option<f64>,
    pub published: String,
    pub sim_cycles: u64,
    pub cycles_per_sec: f64,
    /// Random frame loss on both link directions (the loss sweep), and what it cost.
    pub loss_pct: f64,
    pub pct_of_lossless: Option<f64>,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Median cycles from a NAK's arrival to the retransmission's first byte on the wire.
    pub nak_to_rtx_cycles: Option<u64>,
}

/// One EM rate measurement: clean traffic of one frame size through `EmDatapath`, both
/// directions at once, every frame checked against the model.
#[derive(Serialize)]
pub struct EmRow {
    /// The datapath's width in bits (its line rate: 100G at 512, 200G at 1024).
    width: usize,
    mode: String,
    /// Frame bytes offered (Ethernet without FCS).
    frame: usize,
    direction: &'static str,
    /// Bytes of each output frame.
    out_frame: usize,
    mpps: f64,
    /// Output on the wire, counting 24 B of FCS, preamble and IFG per frame.
    wire_gbps: f64,
    /// The port's line rate (100 GbE at 512 bits, 200 GbE at 1024) for the offered frame size,
    /// in Mpps.
    line_mpps: f64,
    pct_of_line: f64,
    /// The offered frames' bytes delivered, Gb/s (the tenant's goodput).
    goodput_gbps: f64,
}

fn em_rows(smoke: bool) -> Result<Vec<EmRow>> {
    use nicgen_scenario::em::{run_em, EmOpts};
    use nicgen_model::em::EmMode;
    let mut rows = vec![];
    // (the smoke run keeps to 512 bits: the 1024-bit EM's rows cost two more Verilator builds)
    let widths: &[usize] = if smoke { &[512] } else { &[512, 1024] };
    for (&width, mode, len) in widths.iter().flat_map(|w| [EmMode::Overlay, EmMode::Nat].into_iter().flat_map(move |m| [60usize, 4096].map(move |l| (w, m, l)))) {
        {
            let frames = if len < 100 { if smoke { 400 } else { 3000 } } else if smoke { 40 } else { 300 };
            let r = run_em(&EmOpts { mode, frames, seed: 5, valid: 100, ready: 100, max_payload: 0, pcap: None, clean_len: Some(len), width, fuzz: 0 })?;
            if !r.mismatches.is_empty() {
                anyhow::bail!("EM rate run: {} frames differ from the model: {:?}", r.mismatches.len(), &r.mismatches[..r.mismatches.len().min(5)]);
            }
            let ovl = mode == EmMode::Overlay;
            // (direction, frames out, span, bytes out, frame offered): a wire overlay frame is at
            // least 92 bytes (50 outer + a 42-byte inner frame)
            let dirs = [("host to wire", r.eg_out[0] + r.eg_out[1], r.eg_span, r.eg_bytes, len), ("wire to host", r.ig_out, r.ig_span, r.ig_bytes, if ovl { len.max(92) } else { len })];
            for (dir, n, span, bytes, offered) in dirs {
                let mpps = n as f64 / span.max(1) as f64 * 250.0;
                let out_frame = (bytes / n.max(1) as u64) as usize;
                let line_gbps = if width == 1024 { 200e3 } else { 100e3 };
                let line_mpps = line_gbps / ((offered + 24) * 8) as f64;
                // the tenant's frame: the host frame going out, the inner frame coming in
                let tenant = if dir == "host to wire" { len } else { out_frame };
                rows.push(EmRow {
                    width,
                    mode: format!("{mode:?}").to_lowercase(),
                    frame: offered,
                    direction: dir,
                    out_frame,
                    mpps,
                    wire_gbps: mpps * ((out_frame + 24) * 8) as f64 / 1000.0,
                    line_mpps,
                    pct_of_line: 100.0 * mpps / line_mpps,
                    goodput_gbps: mpps * (tenant * 8) as f64 / 1000.0,
                });
            }
        }
    }
    Ok(rows)
}

#[derive(Serialize)]
struct Report {
    settings: Settings,
    rows: Vec<Row>,
    blocks: Vec<BlockFigure>,
    sniffer: Vec<SniffFigure>,
    em: Vec<EmRow>,
    sim_cycles_per_sec: f64,
}

struct Job {
    group: &'static str,
    o: RdmaOpts,
    published: String,
}

fn op_name(o: Op) -> &'static str {
    match o {
        Op::Write => "WRITE",
        Op::Read => "READ",
        Op::Mixed => "mixed",
        Op::Send => "SEND",
        Op::MixedAll => "mixed-all",
    }
}

fn published_fig4(op: Op, size: usize, latency: bool) -> String {
    match (latency, op, size) {
        (false, _, s) if s >= 32768 => "11.2–11.6 GB/s".into(),
        (true, Op::Write, 64) => "5.5 µs".into(),
        (true, Op::Read, 64) => "7.8 µs".into(),
        _ => String::new(),
    }
}

fn jobs(b: &BenchOpts) -> Vec<Job> {
    let dma = DmaParams::from_ns_gbps(b.pcie_latency_ns, b.pcie_gbps);
    let base = RdmaOpts { seed: b.seed, dma, card: CardParams::from_ns_gbps(b.hbm_latency_ns, b.hbm_gbps), ..Default::default() };
    let sizes: Vec<usize> = if b.smoke {
        vec![64, 32768]
    } else if b.quick {
        vec![64, 1024, 4096, 32768, 262144]
    } else {
        (6..=20).map(|k| 1usize << k).collect()
    };
    let budget = if b.quick { 2 << 20 } else { 6 << 20 };
    let mut v = vec![];
    for latency in [false, true] {
        for op in [Op::Write, Op::Read] {
            for &size in &sizes {
                let j = if latency {
                    let count = if b.smoke || b.quick { 3 } else { 6 };
                    Job { group: "fig4-latency", o: RdmaOpts { op, size, count, qps: 1, outstanding: 1, ..base.clone() }, published: published_fig4(op, size, true) }
                } else {
                    let count = if b.smoke { 16 } else { (budget / size).clamp(if b.quick { 16 } else { 24 }, if b.quick { 128 } else { 256 }) };
                    Job { group: "fig4-throughput", o: RdmaOpts { op, size, count, qps: 1, ..base.clone() }, published: published_fig4(op, size, false) }
                };
                v.push(j);
            }
        }
    }
    let qp_counts: &[usize] = if b.smoke { &[1, 4] } else { &[1, 2, 4, 8, 16, 32] };
    let mut fig5: Vec<(usize, usize)> = qp_counts.iter().map(|&q| (q, 500)).collect();
    if !b.quick && !b.smoke {
        fig5.push((498, 500));
        fig5.push((4094, 4096));
    }
    for (qps, table) in fig5 {
        // Beyond 32 QPs the host keeps one READ per QP outstanding (`outstanding` = QPs; the
        // next READ of a QP is posted when one completes), so that every QP is active during the
        // whole run. The responder's queue holds one pending READ per QP of the table. The queueing
        // of 498 (4094) READs of 32 KiB is 1.3 (11) ms, above the default ACK timeout (8: 1 ms),
        // so these rows use 14 (67 ms), a common value in deployed RoCE networks.
        let many = qps > 32;
        // 256 messages at least in the full run: the first round trip (about 5 µs) is then 0.3% of it
        let count = if b.smoke { 16 } else { (qps * 4).max(if b.quick { 32 } else { 256 }) };
        let (outstanding, timeout) = if many { (qps, 14) } else { (0, base.timeout) };
        let published = match qps {
            1..=32 => format!("11.2–11.5 GB/s{}", match qps { 2 => ", 5.7/QP", 4 => ", 2.8/QP", 8 => ", 1.42/QP", _ => "" }),
            _ => String::new(),
        };
        v.push(Job { group: "fig5-qps", o: RdmaOpts { op: Op::Read, size: 32768, count, qps, table_qps: table, outstanding, timeout, ..base.clone() }, published });
    }
    for &qps in qp_counts {
        // a rate: long enough that the first message's round trip (about 550 cycles) is small
        let count = if b.smoke { 64 } else if b.quick { 256 } else { 4096 };
        v.push(Job { group: "small-64B", o: RdmaOpts { op: Op::Write, size: 64, count, qps, ..base.clone() }, published: if qps == 32 { "ACK path ≤ 2.94 M/s".into() } else { String::new() } });
    }
    let bidir: &[(Op, Op)] = &[(Op::Write, Op::Write), (Op::Read, Op::Write)];
    for &(a, bo) in bidir {
        let count = if b.smoke { 16 } else if b.quick { 64 } else { 256 };
        v.push(Job { group: "bidir", o: RdmaOpts { op: a, b_op: Some(bo), size: 32768, count, qps: 4, ..base.clone() }, published: "not measured".into() });
    }
    // loss sweep: 64 KiB WRITEs over 4 QPs, random loss on both directions (ACKs too)
    for loss in [0.0, 0.001, 0.01, 0.05] {
        let count = if b.smoke { 16 } else if b.quick { 48 } else { 160 };
        let faults = nicgen_sim::host::Faults { loss, ..Default::default() };
        v.push(Job { group: "loss", o: RdmaOpts { op: Op::Write, size: 65536, count, qps: 4, timeout: 3, faults, ..base.clone() }, published: if loss == 0.01 { "goal ≥ 80% of lossless".into() } else { String::new() } });
    }
    v
}

fn row(j: &Job, r: &RdmaReport) -> Row {
    let ns = r.cycles as f64 * NS_PER_CYCLE;
    let concurrent = j.o.outstanding == 0 || j.o.outstanding >= j.o.qps;
    Row {
        group: j.group,
        op: match j.o.b_op {
            Some(b) => format!("A {} / B {}", op_name(j.o.op), op_name(b)),
            None => op_name(j.o.op).into(),
        },
        size: j.o.size,
        qps: j.o.qps,
        messages: r.messages,
        outstanding: j.o.outstanding,
        goodput_gbps: r.goodput_gbps,
        ceiling_pct: 100.0 * r.ceiling_frac,
        mpps: r.mpps,
        msg_rate_m: r.messages as f64 / ns * 1000.0,
        lat_mean_cycles: r.lat_mean,
        lat_p99_cycles: r.lat_p99,
        per_qp_gbps: concurrent.then_some(r.per_qp_gbps.iter().sum::<f64>() / r.per_qp_gbps.len().max(1) as f64),
        jain: concurrent.then_some(r.jain),
        published: j.published.clone(),
        sim_cycles: r.cycles,
        cycles_per_sec: r.cycles_per_sec,
        loss_pct: 100.0 * j.o.faults.loss,
        pct_of_lossless: None,
        retransmits: { let (a, b) = r.counter("tx_retransmits"); a + b },
        timeouts: { let (a, b) = r.counter("req_timeouts"); a + b },
        nak_to_rtx_cycles: {
            let mut v = r.nak_to_rtx.clone();
            v.sort();
            v.get(v.len() / 2).copied()
        },
    }
}

pub fn run(b: &BenchOpts) -> Result<()> {
    let jobs = jobs(b);
    let bar = indicatif::ProgressBar::new(jobs.len() as u64 + 1);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}").unwrap());
    let mut rows = vec![];
    let (mut cyc, mut secs) = (0u64, 0.0);
    for j in &jobs {
        bar.set_message(format!("{} {} {} B × {} over {} QPs", j.group, op_name(j.o.op), j.o.size, j.o.count, j.o.qps));
        let r = rdma(&j.o)?;
        if !r.errors.is_empty() || r.mismatches > 0 {
            bar.abandon();
            bail!("{} {} {} B: {:?}", j.group, op_name(j.o.op), j.o.size, r.errors);
        }
        cyc += r.cycles;
        secs += r.sim_secs;
        rows.push(row(j, &r));
        bar.inc(1);
    }
    // the loss sweep against its lossless run
    let clean = rows.iter().find(|r| r.group == "loss" && r.loss_pct == 0.0).map(|r| r.goodput_gbps);
    for r in rows.iter_mut().filter(|r| r.group == "loss") {
        r.pct_of_lossless = clean.map(|c| 100.0 * r.goodput_gbps / c);
    }
    bar.set_message("per-block latency and II");
    let blocks = block_figures();
    bar.set_message("sniffer at line rate");
    let sniffer = sniffer_figures();
    bar.set_message("EM rates");
    let em = em_rows(b.smoke)?;
    bar.finish_and_clear();
    let settings = Settings {
        clock_mhz: 250.0,
        data_width_bits: 512,
        mac: "100 Gb/s per direction, counting 20 B preamble+IFG and 4 B FCS per frame; 100-cycle link".into(),
        pcie_read_latency_ns: b.pcie_latency_ns,
        pcie_gbps: b.pcie_gbps,
        hbm: {
            let c = CardParams::from_ns_gbps(b.hbm_latency_ns, b.hbm_gbps);
            format!("{} ns read latency, {} GB/s (a 4 KiB fetch takes {:.2} µs); the retransmission buffer", b.hbm_latency_ns, b.hbm_gbps, c.fetch_cycles(4096) as f64 * 4e-3)
        },
        pmtu: 4096,
        slot_latency_cycles: 1,
        quick: b.quick || b.smoke,
    };
    let rep = Report {
        settings,
        rows,
        blocks,
        sniffer,
        em,
        sim_cycles_per_sec: cyc as f64 / secs.max(1e-9),
    };
    let md = markdown(&rep);
    print!("{md}");
    if let Some(dir) = &b.out {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("bench.md"), &md)?;
        std::fs::write(dir.join("bench.json"), serde_json::to_string_pretty(&rep)?)?;
        let plots = crate::cmd::plot::all(dir, &rep.rows, &settings_line(&rep.settings))?;
        println!("\nwrote {}/bench.md, {}/bench.json and {} plots: {}", dir.display(), dir.display(), plots.len(), plots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    }
    Ok(())
}

fn settings_line(s: &Settings) -> String {
    format!("250 MHz, 512 bit, PMTU 4096, MAC 100G paced, PCIe {} ns / {} GB/s", s.pcie_read_latency_ns, s.pcie_gbps)
}

fn markdown(r: &Report) -> String {
    let s = &r.settings;
    let mut m = String::new();
    let _ = writeln!(m, "# nicgen bench{}\n", if s.quick { " (quick or smoke subset)" } else { "" });
    let _ = writeln!(m, "Model: {} MHz, {}-bit datapath; MAC: {}; PCIe: {} ns read latency, {} GB/s each way; HBM: {}; PMTU {} B; service slots {} cycle. Latency is post → completion at node A. Goodput counts verified payload bytes only.\n", s.clock_mhz, s.data_width_bits, s.mac, s.pcie_read_latency_ns, s.pcie_gbps, s.hbm, s.pmtu, s.slot_latency_cycles);
    let ceiling = payload_ceiling(4096);
    let mut group = "";
    for x in r.rows.iter().filter(|x| x.group != "loss") {
        if x.group != group {
            group = x.group;
            let title = match group {
                "fig4-throughput" => format!("## Fig. 4 analogue: throughput, 1 QP, batched (100G payload ceiling {ceiling:.3} GB/s)"),
                "fig4-latency" => "## Fig. 4 analogue: latency, 1 QP, one message outstanding".into(),
                "fig5-qps" => "## Fig. 5 analogue: 32 KiB READ over many QPs".into(),
                "bidir" => "## Bidirectional: both nodes post at once (BALBOA did not measure this; % of the ceiling of every link direction carrying data: A WRITE/B WRITE uses both, A READ/B WRITE only B→A, where B's READ responses go before its WRITEs)".into(),
                _ => "## Small messages: 64 B WRITE".into(),
            };
            let _ = writeln!(m, "\n{title}\n");
            let _ = writeln!(m, "| op | size B | QPs | msgs (outstanding) | GB/s | % ceiling | Mpps | M msg/s | lat mean cyc | lat mean µs | lat p99 cyc | per-QP GB/s | Jain | published (BALBOA) |");
            let _ = writeln!(m, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        }
        let _ = writeln!(m, "| {} | {} | {} | {}{} | {:.3} | {:.1} | {:.2} | {:.2} | {:.0} | {:.2} | {} | {} | {} | {} |", x.op, x.size, x.qps, x.messages, if x.outstanding > 0 { format!(" ({})", x.outstanding) } else { String::new() }, x.goodput_gbps, x.ceiling_pct, x.mpps, x.msg_rate_m, x.lat_mean_cycles, x.lat_mean_cycles * NS_PER_CYCLE / 1000.0, x.lat_p99_cycles, x.per_qp_gbps.map(|v| format!("{v:.3}")).unwrap_or("n/a".into()), x.jain.map(|v| format!("{v:.4}")).unwrap_or("n/a".into()), x.published);
    }
    let _ = writeln!(m, "\n## Loss sweep: 64 KiB WRITE over 4 QPs, random frame loss on both directions (ACKs too), Go-Back-N, local ACK timeout 33 µs\n");
    let _ = writeln!(m, "| loss % | msgs | GB/s | % of lossless | retransmitted packets | timeouts | NAK → retransmission (median cycles) | goal |\n|---:|---:|---:|---:|---:|---:|---:|---|");
    for x in r.rows.iter().filter(|x| x.group == "loss") {
        let _ = writeln!(m, "| {} | {} | {:.3} | {} | {} | {} | {} | {} |", x.loss_pct, x.messages, x.goodput_gbps, x.pct_of_lossless.map(|v| format!("{v:.1}")).unwrap_or("n/a".into()), x.retransmits, x.timeouts, x.nak_to_rtx_cycles.map(|v| v.to_string()).unwrap_or("n/a".into()), x.published);
    }
    let _ = writeln!(m);
    let _ = writeln!(m, "## Per block (4 KiB RoCEv2 WRITE frames, Verilator)\n\n| block | latency cycles | II (cycles per beat, in or out, whichever is more) | what |\n|---|---:|---:|---|");
    for b in &r.blocks {
        let _ = writeln!(m, "| {} | {} | {:.3} | {} |", b.block, b.latency_cycles, b.ii, b.about);
    }
    let _ = writeln!(m, "\n## Traffic sniffer at a 100G MAC: back-to-back frames at line rate on one or both taps, capture stream always ready\n\n| frame B (no FCS) | snap B | taps | frames offered | records | % captured | capture words/cycle | record latency (last beat in → descriptor out, cycles) |\n|---:|---:|---:|---:|---:|---:|---:|---:|");
    for x in &r.sniffer {
        let _ = writeln!(m, "| {} | {} | {} | {} | {} | {:.1} | {:.3} | {} |", x.frame, x.snap, x.directions, x.offered, x.captured, x.pct, x.out_words_per_cycle, x.latency_cycles);
    }
    let _ = writeln!(m, "\n## EM (DistDPU execution module): clean UDP traffic both ways at once at 250 MHz (512 bits: 100G line rate; 1024 bits: 200G), every frame checked against the model\n");
    let _ = writeln!(m, "| bits | mode | frame B | direction | out frame B | Mpps | wire Gb/s | line rate Mpps | % of line rate | goodput Gb/s |\n|---:|---|---:|---|---:|---:|---:|---:|---:|---:|");
    for e in &r.em {
        let _ = writeln!(m, "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.0} | {:.1} |", e.width, e.mode, e.frame, e.direction, e.out_frame, e.mpps, e.wire_gbps, e.line_mpps, e.pct_of_line, e.goodput_gbps);
    }
    let _ = writeln!(m, "\nVXLAN against NAT at a 100G line rate with 4 KiB frames: the 50 outer bytes cost {:.2}% of the goodput (the header arithmetic: 4096 / (4096 + 24) against 4096 / (4096 + 50 + 24)); the EM keeps line rate in both modes when the rows above are at or above 100%.", 100.0 * (1.0 - 4120.0 / 4170.0));
    let _ = writeln!(m, "\nSimulation speed: {:.0} two-node cycles/s ({:.0} engine-cycles/s), the two engines on {} (NICGEN_SIM_THREADS).", r.sim_cycles_per_sec, 2.0 * r.sim_cycles_per_sec, if nicgen_sim::verilator::pair_threads_default() { "two threads" } else { "one thread" });
    m
}
