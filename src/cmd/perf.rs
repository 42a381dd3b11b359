//! `nicgen perf`: the engine's side of perftest (`nicgen_scenario::perf`).
use anyhow::{bail, Result};
use nicgen_scenario::perf::{perf, PerfOp, PerfOpts};
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Duration;

fn parse_mac(s: &str) -> Result<[u8; 6]> {
    let v: Vec<u8> = s.split(':').map(|x| u8::from_str_radix(x, 16)).collect::<Result<_, _>>()?;
    v.try_into().map_err(|_| anyhow::anyhow!("a MAC has six bytes: {s}"))
}

#[allow(clippy::too_many_arguments)]
pub fn run(op: &str, peer: Option<Ipv4Addr>, server: bool, iface: String, ip: Ipv4Addr, mac: &str, size: usize, iters: usize, qps: usize, mtu: usize, pcap: Option<PathBuf>, timeout: u8, loss: u32, seed: u64, wall: u64, lat: bool) -> Result<()> {
    let op = match op {
        "write" => PerfOp::Write,
        "read" => PerfOp::Read,
        "send" => PerfOp::Send,
        "atomic" => bail!("atomic: the engine has no atomics yet"),
        _ => bail!("unknown test {op} (write, read, send)"),
    };
    if server == peer.is_some() {
        bail!("give either --server or the peer's address");
    }
    if !(256..=4096).contains(&mtu) || !mtu.is_power_of_two() {
        bail!("--mtu is one of 256, 512, 1024, 2048, 4096");
    }
    let o = PerfOpts { op, peer, iface, ip, mac: parse_mac(mac)?, size, iters, qps, mtu, pcap, timeout, loss_pct: loss, seed, wall: Duration::from_secs(wall), lat };
    let r = perf(&o)?;
    for l in &r.log {
        println!("{l}");
    }
    for (q, d) in r.remote.iter().enumerate() {
        println!("QP {q}: remote QPN {:#08x} PSN {:#08x} rkey {:#010x} VA {:#018x}", d.qpn, d.psn, d.rkey, d.vaddr);
    }
    println!("nicgen: {} bytes in {} cycles = {:.2} Gb/s of simulated time (250 MHz); {} bytes checked against the wire; {} completions", r.bytes, r.cycles, r.gbps(), r.checked_bytes, r.completions);
    if let Some(p) = r.peer_report {
        println!("peer's report: {} B x {} iterations, average {:.2} MB/s, peak {:.2} MB/s, {:.6} Mpps", p.size, p.iters, p.bw_avg, p.bw_peak, p.msg_rate);
    }
    let nz: Vec<String> = r.engine_counters.iter().filter(|(_, v)| *v > 0).map(|(n, v)| format!("{n} {v}")).collect();
    println!("engine counters: {}", nz.join(", "));
    println!("twin: {:?}", r.twin_counts);
    Ok(())
}
