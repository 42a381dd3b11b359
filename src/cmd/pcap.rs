//! `nicgen pcap check FILE`: every RoCEv2 frame's ICRC, verified by the golden model and by the
//! ICRC checker's Verilog under Verilator. `nicgen pcap records`: the sniffer's capture records
//! as PCAPNG.
use anyhow::{bail, Result};
use nicgen_hw::crc::icrc::IcrcCheck;
use nicgen_model::pcap::read_pcap;
use nicgen_model::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;
use std::path::Path;

/// Returns the number of bad frames.
pub fn check(file: &Path) -> Result<usize> {
    let caps = read_pcap(file)?;
    // golden model
    let mut model = vec![];
    for c in &caps {
        let v = match locate_udp(&c.data) {
            Ok((_, true)) => Some(check_icrc(&c.data)),
            _ => None,
        };
        model.push(v);
    }
    // hardware: the checker flags bad frames with tuser on the last beat
    let mut sim = verilate(&mut IcrcCheck::default());
    sim.reset(2);
    let mut d = AxisDriver::new(&sim, "s_axis", 100, 1);
    for c in &caps {
        if !c.data.is_empty() {
            d.push(AxisFrame::new(c.data.clone()));
        }
    }
    let m = AxisMonitor::new(&sim, "m_axis", 100, 1);
    let mut b = StreamBench::new(vec![d], vec![m]);
    b.drain(&mut sim, 30, 1_000_000_000);
    let hw = &b.monitors[0].frames;
    if hw.len() != caps.iter().filter(|c| !c.data.is_empty()).count() {
        bail!("checker returned {} frames for {}", hw.len(), caps.len());
    }
    let (mut roce, mut bad, mut k) = (0, 0, 0);
    for (i, c) in caps.iter().enumerate() {
        if c.data.is_empty() {
            continue;
        }
        let hw_bad = hw[k].user;
        k += 1;
        let Some(v) = &model[i] else {
            continue;
        };
        roce += 1;
        let (op, qpn, psn) = match parse(&c.data) {
            Ok(p) => (format!("0x{:02x}", p.hdr.bth.opcode), p.hdr.bth.dqpn.to_string(), p.hdr.bth.psn.to_string()),
            Err(_) => ("?".into(), "?".into(), "?".into()),
        };
        let model_bad = !matches!(v, Ok(x) if x.ok());
        if model_bad || hw_bad {
            bad += 1;
            let detail = match v {
                Ok(x) => format!("expected ICRC 0x{:08x}, found 0x{:08x}", x.expected, x.found),
                Err(e) => format!("malformed: {e}"),
            };
            let who = match (model_bad, hw_bad) {
                (true, true) => "model and hardware",
                (true, false) => "model only (hardware disagrees!)",
                _ => "hardware only (model disagrees!)",
            };
            println!("frame {}: opcode {op} qpn {qpn} psn {psn}: {detail} [{who}]", i + 1);
        }
    }
    println!("{} frames, {roce} roce, {bad} bad", caps.len());
    Ok(bad)
}

/// `nicgen pcap records FILE -o OUT`: capture records to PCAPNG.
pub fn records(file: &Path, out: &Path, snap: u32) -> Result<()> {
    use nicgen_model::sniff::*;
    let bytes = std::fs::read(file).map_err(|e| anyhow::anyhow!("reading {}: {e}", file.display()))?;
    let recs = parse_records(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    write_pcapng(out, &recs, snap)?;
    let n = |d| recs.iter().filter(|r| r.dir == d).count();
    let lost: u64 = recs.iter().map(|r| r.drops as u64).sum();
    println!("{}: {} records ({} RX, {} TX), {lost} reported lost; written to {}", file.display(), recs.len(), n(DIR_RX), n(DIR_TX), out.display());
    Ok(())
}
