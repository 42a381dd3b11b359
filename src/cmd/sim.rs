//! `nicgen sim rdma`: two engines, RDMA WRITE/READ end to end (see `nicgen_scenario::rdma`).
//! `nicgen sim icrc`: the ICRC generator and checker under Verilator, on random RoCEv2 frames
//! with random gaps and backpressure, verified against the golden model.
use anyhow::{bail, Result};
use nicgen_hw::crc::icrc::{IcrcCheck, IcrcGen, ICRC_CHECK_LATENCY, ICRC_GEN_LATENCY};
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_sim::axis::*;
use nicgen_sim::frames::random_roce_frame;
use nicgen_sim::*;
use std::path::Path;
use std::time::Instant;

pub const CLOCK_MHZ: f64 = 250.0;

fn build<T: rust_hdl::prelude::Block>(mut uut: T, trace: Option<&Path>) -> Result<VerilatorSim> {
    uut.connect_all();
    let v = verilog_named(&uut, "top");
    let mut opts = VerilatorOptions::from_env();
    opts.trace = trace.map(|p| p.to_path_buf());
    VerilatorSim::build(&v, "top", top_ports(&uut), "clock", &opts)
}

struct Run {
    out: Vec<SeenFrame>,
    cycles: u64,
    secs: f64,
}

fn run(sim: &mut VerilatorSim, frames: &[AxisFrame], valid: u32, ready: u32, seed: u64) -> Run {
    sim.reset(2);
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    for f in frames {
        d.push(f.clone());
    }
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 1);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let t = Instant::now();
    b.drain(sim, 30, 100_000_000);
    Run { out: b.monitors.remove(0).frames, cycles: b.cycles, secs: t.elapsed().as_secs_f64() }
}

pub fn icrc(n: usize, seed: u64, pcap: Option<&Path>, trace: Option<&Path>) -> Result<()> {
    let mut rng = Rng::new(seed);
    let frames: Vec<Vec<u8>> = (0..n).map(|_| random_roce_frame(&mut rng, 9216)).collect();
    let bytes: usize = frames.iter().map(|f| f.len()).sum();
    println!("nicgen sim icrc: {n} random RoCEv2 frames (IPv4/IPv6, every RC opcode, {bytes} bytes), seed {seed}");
    let t = Instant::now();
    let mut gen = build(IcrcGen::default(), trace)?;
    let mut chk = build(IcrcCheck::default(), None)?;
    println!("verilated in {:.1} s", t.elapsed().as_secs_f64());

    // generator: frames without ICRC in, with random gaps and backpressure
    let input: Vec<AxisFrame> = frames.iter().map(|f| AxisFrame::new(f[..f.len() - 4].to_vec())).collect();
    let r = run(&mut gen, &input, 80, 70, seed);
    let mut errors = 0;
    for (i, (o, f)) in r.out.iter().zip(&frames).enumerate() {
        if o.data != *f {
            errors += 1;
            if errors < 5 {
                println!("  generator frame {i}: ICRC differs from the golden model");
            }
        }
    }
    if r.out.len() != frames.len() {
        bail!("generator produced {} frames for {}", r.out.len(), frames.len());
    }
    // full rate: throughput and latency
    let fr = run(&mut gen, &input, 100, 100, seed);
    let in_beats: usize = input.iter().map(|f| f.data.len().div_ceil(64)).sum();
    let span = fr.out.last().unwrap().last_cycle - fr.out[0].first_cycle + 1;
    let out_beats: usize = frames.iter().map(|f| f.len().div_ceil(64)).sum();

    // checker: every 10th frame has one bit of its ICRC flipped
    let mut cin = vec![];
    for (i, f) in frames.iter().enumerate() {
        let mut g = f.clone();
        if i % 10 == 3 {
            let n = g.len();
            g[n - 1 - (i / 10) % 4] ^= 0x20;
        }
        cin.push(AxisFrame::new(g));
    }
    let c = run(&mut chk, &cin, 80, 70, seed + 2);
    for (i, (o, f)) in c.out.iter().zip(&frames).enumerate() {
        let want_bad = i % 10 == 3;
        if o.user != want_bad || (!want_bad && o.data[..] != f[..f.len() - 4]) {
            errors += 1;
            if errors < 10 {
                println!("  checker frame {i}: flagged {} (expected {want_bad})", o.user);
            }
        }
    }
    let cnt = |sim: &mut VerilatorSim, name: &str| {
        let p = sim.port(name);
        sim.get_u64(p)
    };
    let bad = cnt(&mut chk, "cnt$bad_icrc");
    println!();
    println!("| block      | frames | beats in | cycles (full rate) | beats/cycle | Gb/s @ {CLOCK_MHZ} MHz | latency (cycles) | Verilator cycles/s |");
    println!("|------------|--------|----------|--------------------|-------------|-----------------|------------------|--------------------|");
    println!(
        "| icrc_gen   | {n:>6} | {in_beats:>8} | {span:>18} | {:>11.3} | {:>15.1} | {ICRC_GEN_LATENCY:>16} | {:>18.0} |",
        out_beats as f64 / span as f64,
        out_beats as f64 / span as f64 * 512.0 * CLOCK_MHZ / 1000.0,
        r.cycles as f64 / r.secs
    );
    println!(
        "| icrc_check | {n:>6} | {:>8} | {:>18} | {:>11} | {:>15} | {ICRC_CHECK_LATENCY:>16} | {:>18.0} |",
        out_beats, "-", "-", "-", c.cycles as f64 / c.secs
    );
    println!();
    println!("checker: {} frames flagged bad (bad_icrc counter {bad}), expected {}", c.out.iter().filter(|o| o.user).count(), (0..n).filter(|i| i % 10 == 3).count());
    if let Some(p) = pcap {
        let caps: Vec<Captured> = r.out.iter().map(|f| Captured { ts_ns: (f.first_cycle as f64 * 1000.0 / CLOCK_MHZ) as u64, data: f.data.clone() }).collect();
        write_pcap(p, &caps)?;
        println!("generator output written to {} (check it: nicgen pcap check {})", p.display(), p.display());
    }
    if let Some(t) = trace {
        println!("waveform of the generator run: {}", t.display());
    }
    if errors > 0 {
        bail!("{errors} frames wrong");
    }
    println!("all {n} frames verified against the golden model");
    Ok(())
}

/// The PMTU code (log2(PMTU) - 8) of a PMTU in bytes.
pub fn pmtu_code(pmtu: usize) -> Result<u8> {
    match pmtu {
        256 => Ok(0),
        512 => Ok(1),
        1024 => Ok(2),
        2048 => Ok(3),
        4096 => Ok(4),
        _ => bail!("--pmtu {pmtu}: must be 256, 512, 1024, 2048 or 4096"),
    }
}

/// `nicgen sim rdma`: one run, or with `campaign` a fault campaign (and a lossless twin run for
/// the goodput fraction).
pub fn rdma(o: &nicgen_scenario::rdma::RdmaOpts, lat_ns: u64, gbps: f64, campaign: bool) -> Result<()> {
    use nicgen_scenario::rdma::*;
    use nicgen_sim::host::NS_PER_CYCLE;
    let (op, size, count, qps, seed, pmtu) = (o.op, o.size, o.count, o.qps, o.seed, 256usize << o.pmtu);
    let pcap = o.pcap.clone();
    println!("nicgen sim rdma: {op:?}, {count} messages of {size} B over {qps} QPs, PMTU {pmtu}, seed {seed}");
    if let Some(b) = o.b_op {
        println!("bidirectional: node B posts {count} {b:?} messages to A at the same time (ceiling: every link direction that carries data)");
    }
    let f = o.faults;
    if f.any() || campaign {
        println!("faults per frame, both directions: loss {}, burst {}, reorder {} (≤ {} cycles), dup {}, corrupt {}, truncate {}; QP timeout 4.096 µs × 2^{}, retry count {}", f.loss, f.burst, f.reorder, f.reorder_bound, f.dup, f.corrupt, f.truncate, o.timeout, o.retry_cnt);
    }
    let c = o.card;
    println!(
        "model: 250 MHz; 100G MAC pacing (20 B preamble/IFG + 4 B FCS per frame); host DMA {lat_ns} ns read latency, {gbps} GB/s each way; HBM (retransmission buffer) {} ns, {:.1} GB/s, 4 KiB fetch {:.2} µs",
        c.rd_latency as f64 * NS_PER_CYCLE,
        c.bytes_per_cycle / NS_PER_CYCLE,
        c.fetch_cycles(4096) as f64 * NS_PER_CYCLE / 1000.0
    );
    let t = Instant::now();
    let r = rdma(o)?;
    let ceiling = payload_ceiling(pmtu);
    println!("simulated {} cycles ({:.1} µs) in {:.1} s", r.cycles, r.cycles as f64 * NS_PER_CYCLE / 1000.0, t.elapsed().as_secs_f64());
    println!("{:<28} {:>12}", "metric", "value");
    println!("{:<28} {:>12}", "messages", r.messages);
    println!("{:<28} {:>12}", "payload bytes checked", r.bytes);
    println!("{:<28} {:>12.3}", "goodput (GB/s)", r.goodput_gbps);
    println!("{:<28} {:>11.1}%", "of the payload ceiling", 100.0 * r.ceiling_frac);
    println!("{:<28} {:>12.3}", "payload ceiling (GB/s)", ceiling);
    println!("{:<28} {:>12.2}", "data packets (Mpps)", r.mpps);
    println!("{:<28} {:>12.2}", "messages (M/s)", r.messages as f64 / (r.cycles as f64 * NS_PER_CYCLE) * 1000.0);
    println!("{:<28} {:>12.0}", "latency mean (cycles)", r.lat_mean);
    println!("{:<28} {:>12}", "latency p99 (cycles)", r.lat_p99);
    println!("{:<28} {:>12}", "frames on the link", r.frames);
    println!("{:<28} {:>12.4}", "Jain index over QPs", r.jain);
    println!("{:<28} {:>12.0}", "sim speed (cycles/s)", r.cycles_per_sec);
    println!("{:<28} {:>12}", "descriptor→wire (cycles)", r.tx_latency);
    println!("{:<28} {:>12}", "wire→last DMA write (cyc.)", r.rx_latency);
    println!("{:<28} {:>12}", "TX_START after (beats A/B)", format!("{}/{}", r.tx_start_after[0], r.tx_start_after[1]));
    if o.aes {
        println!("{:<28} {:>12}", "AES WRITE packets checked", r.aes_checked);
    }
    if o.dlrm.is_some() {
        println!("{:<28} {:>12}", "DLRM lanes checked at A", r.dlrm_lanes);
        println!("{:<28} {:>12}", "  of them transformed", r.dlrm_changed);
    }
    if o.dpi.is_some() {
        println!("{:<28} {:>12}", "DPI frames checked at A", r.dpi_frames);
        println!("{:<28} {:>12}", "  flagged (model = counter)", r.dpi_flagged);
        println!("{:<28} {:>12}", "  dropped (model = counter)", r.dpi_dropped);
        let how = if r.dpi_cq_checked { "(= model)" } else { "(not checked: responses lost or replayed)" };
        println!("{:<28} {:>12} {how}", "  READ completions flagged", r.dpi_cq_flagged);
    }
    if let Some(s) = &o.sniff {
        println!("{:<28} {:>12}", "sniffed at A, RX (checked)", r.sniffed[0]);
        println!("{:<28} {:>12}", "sniffed at A, TX (checked)", r.sniffed[1]);
        println!("{:<28} {:>12}", "sniffer records lost", r.sniff_lost);
        println!("sniffer capture (PCAPNG): {}", s.path.display());
    }
    println!("counters (node A / node B), nonzero:");
    for (n, a, b) in &r.counters {
        if *a > 0 || *b > 0 {
            println!("  {n:<26} {a:>10} {b:>10}");
        }
    }
    if let Some(p) = pcap {
        println!("capture: {}", p.display());
    }
    if campaign || f.any() {
        print_recovery(&r);
    }
    if campaign {
        let clean = rdma(&RdmaOpts { faults: Default::default(), pcap: None, sniff: None, verbose: false, ..o.clone() })?;
        println!("{:<28} {:>12.3}", "lossless twin goodput", clean.goodput_gbps);
        println!("{:<28} {:>11.1}%", "goodput vs lossless", 100.0 * r.goodput_gbps / clean.goodput_gbps);
    }
    if r.mismatches > 0 || !r.errors.is_empty() {
        for e in &r.errors {
            println!("ERROR: {e}");
        }
        bail!("{} of {} messages differ from their source; {} errors", r.mismatches, r.messages, r.errors.len());
    }
    println!("PASS: every destination byte equals its source");
    Ok(())
}

/// What the faults did and how the engines recovered (a fault run or campaign).
fn print_recovery(r: &nicgen_scenario::rdma::RdmaReport) {
    let names = ["success", "retry exceeded", "remote access", "remote invalid request", "remote operational", "flushed", "bad response"];
    println!("completions by status: {}", names.iter().zip(r.by_status).map(|(n, c)| format!("{n} {c}")).collect::<Vec<_>>().join(", "));
    if r.recv_completions > 0 {
        println!("receive completions: {} (each checked: its RECV, in QP order, with its SEND's length)", r.recv_completions);
    }
    for (dir, c) in ["A→B", "B→A"].iter().zip(r.faults) {
        println!("link {dir}: {} frames; lost {} (+{} in bursts), reordered {}, duplicated {}, corrupted {}, truncated {}", c.frames, c.lost, c.burst_lost, c.reordered, c.duplicated, c.corrupted, c.truncated);
    }
    println!("recovery (node A / node B):");
    for n in ["tx_retransmits", "req_timeouts", "req_replays", "req_nak_seq", "resp_naks", "req_implied_nak", "resp_read_replays", "resp_duplicate", "resp_psn_out_of_window", "req_ack_duplicate", "req_resp_unexpected"] {
        let (a, b) = r.counter(n);
        println!("  {n:<26} {a:>10} {b:>10}");
    }
    println!("drops by cause (node A / node B):");
    for n in ["rx_bad_icrc", "rx_truncated", "rx_bad_length", "rx_not_roce", "rx_drop_overflow"] {
        let (a, b) = r.counter(n);
        println!("  {n:<26} {a:>10} {b:>10}");
    }
    if !r.nak_to_rtx.is_empty() {
        let mut v = r.nak_to_rtx.clone();
        v.sort();
        println!("NAK arrival → retransmission's first byte on the wire: {} cases, min {} cycles, median {}, max {}", v.len(), v[0], v[v.len() / 2], v[v.len() - 1]);
        if std::env::var("NICGEN_DEBUG").is_ok() { println!("{v:?}"); }
    }
}

/// `nicgen sim em`: the EM scenario's report; fails on any frame the model disagrees with.
pub fn em(o: &nicgen_scenario::em::EmOpts) -> Result<()> {
    let t0 = std::time::Instant::now();
    let r = nicgen_scenario::em::run_em(o)?;
    let (eg, ig) = r.gbps();
    println!("EM, {:?} mode, {} bits, seed {}: {} cycles under Verilator ({:.1} s)", o.mode, o.width, o.seed, r.cycles, t0.elapsed().as_secs_f64());
    println!("  host -> wire: {} frames in, {} out (port 0: {}, port 1: {}), {} bytes, {:.1} Gb/s at 250 MHz", r.eg_in, r.eg_out[0] + r.eg_out[1], r.eg_out[0], r.eg_out[1], r.eg_bytes, eg);
    println!("  wire -> host: {} frames in, {} out, {} bytes, {:.1} Gb/s at 250 MHz", r.ig_in, r.ig_out, r.ig_bytes, ig);
    println!("  IPv6 frames among them: {} host -> wire, {} wire -> host", r.eg_v6, r.ig_v6);
    if o.mode == nicgen_model::em::EmMode::Nat {
        println!("  kept with the wrong TCP/UDP checksum or ICRC they arrived with: {}", r.damaged_kept);
    }
    println!("  drops (the model's causes; the hardware's totals below):");
    for (k, v) in &r.drops {
        println!("    {k:<28} {v}");
    }
    println!("  counters:");
    for (k, v) in &r.counters {
        println!("    {k:<28} {v}");
    }
    if let Some(p) = &o.pcap {
        println!("  wrote {}", p.display());
    }
    if !r.mismatches.is_empty() {
        for m in r.mismatches.iter().take(20) {
            println!("  MISMATCH {m}");
        }
        anyhow::bail!("{} mismatches with the model", r.mismatches.len());
    }
    println!("  every output frame matches the golden model");
    Ok(())
}
