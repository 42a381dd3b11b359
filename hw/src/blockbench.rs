//! Per-block figures for `nicgen bench`: each block verilated on its own, fed 4 KiB RoCEv2
//! WRITE frames. **Latency**: cycles from a frame's first beat entering an idle block to its
//! first beat leaving. **II**: cycles per beat over a run of back-to-back frames with the output
//! always ready, counting the input or the output beats, whichever are more (1.0 = one beat per
//! cycle).
use crate::crc::icrc::{IcrcCheck, IcrcGen, IcrcRx};
use crate::roce::rx::parse::RoceRxParse;
use crate::roce::tx::build::{RoceTxBuild, TxFields};
use nicgen_sim::chan::ChanDriver;
use crate::service::slot::PayloadSlot11;
use crate::stream::AxisFifo512;
use nicgen_model::roce::{opcode, IpHdr, RoceHeaders};
use nicgen_sim::axis::*;
use nicgen_sim::*;
use rust_hdl::prelude::Block;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct BlockFigure {
    pub block: &'static str,
    pub about: &'static str,
    pub latency_cycles: u64,
    pub ii: f64,
}

fn frames(n: usize, payload: usize, with_icrc: bool) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(7);
    (0..n)
        .map(|i| {
            let ip = IpHdr::V4 { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], dscp: 0, ecn: 0, ttl: 64, id: 0 };
            let h = RoceHeaders::new(ip, opcode::WRITE_ONLY, 5, i as u32);
            let f = h.build(&rng.bytes(payload));
            if with_icrc { f } else { f[..f.len() - 4].to_vec() }
        })
        .collect()
}

/// Latency and II of a stream block (`s_axis` → `m_axis`); `hold` names inputs held at 1.
fn measure<T: Block>(mut uut: T, input: &[Vec<u8>], hold: &[&str]) -> (u64, f64) {
    let mut v = verilate(&mut uut);
    let run = |v: &mut VerilatorSim, fr: &[Vec<u8>]| {
        v.reset(2);
        for h in hold {
            let p = v.port(h);
            v.set_bit(p, true);
        }
        let mut d = AxisDriver::new(v, "s_axis", 100, 1);
        for f in fr {
            d.push(AxisFrame::new(f.clone()));
        }
        let m = AxisMonitor::new(v, "m_axis", 100, 2);
        let mut b = StreamBench::new(vec![d], vec![m]);
        let start = v.cycle();
        b.drain(v, 40, 1_000_000);
        let m = &b.monitors[0];
        (start, m.frames.first().map(|f| f.first_cycle).unwrap_or(0), m.frames.last().map(|f| f.last_cycle).unwrap_or(0), m.beats)
    };
    let (start, first, _, _) = run(&mut v, &input[..1]);
    let (_, first_b, last_b, out_beats) = run(&mut v, input);
    let in_beats: u64 = input.iter().map(|f| f.len().div_ceil(64) as u64).sum();
    (first - start, (last_b - first_b + 1) as f64 / out_beats.max(in_beats) as f64)
}

/// The deparser: a `TxHdr` on `hdr` and its payload on `s_axis` per frame (WRITE ONLY, IPv4).
fn measure_build(n: usize, payload: usize) -> (u64, f64) {
    let mut v = verilate(&mut RoceTxBuild::default());
    let hdr = |i: usize| TxFields { opcode: opcode::WRITE_ONLY, ackreq: true, pkey: 0xffff, dqpn: 5, psn: i as u32, src_ip: 0x0a00_0001, dst_ip: 0x0a00_0002, src_mac: 2, dst_mac: 3, udp_sport: 49152, ttl: 64, plen: payload as u16, ..Default::default() };
    let mut rng = Rng::new(3);
    let mut run = |k: usize| {
        v.reset(2);
        let d = AxisDriver::new(&v, "s_axis", 100, 1);
        let m = AxisMonitor::new(&v, "m_axis", 100, 2);
        let mut hd = ChanDriver::new(&v, "hdr", 100, 3);
        let mut b = StreamBench::new(vec![d], vec![m]);
        for i in 0..k {
            hd.push(hdr(i).to_words());
            b.drivers[0].push(AxisFrame::new(rng.bytes(payload)));
        }
        let start = v.cycle();
        let mut quiet = 0;
        while quiet < 40 {
            hd.drive(&mut v);
            let moved = b.step_with(&mut v, |s| hd.sample(s));
            quiet = if moved || !b.drivers[0].idle() || !hd.idle() { 0 } else { quiet + 1 };
            assert!(b.cycles < 1_000_000, "deparser stalled");
        }
        let m = &b.monitors[0];
        (start, m.frames[0].first_cycle, m.frames.last().unwrap().last_cycle, m.beats)
    };
    let (start, first, _, _) = run(1);
    let (_, fb, lb, out_beats) = run(n);
    (first - start, (lb - fb + 1) as f64 / out_beats.max((n * payload.div_ceil(64)) as u64) as f64)
}

/// The per-block table.
pub fn block_figures() -> Vec<BlockFigure> {
    let with = frames(16, 4096, true);
    let without = frames(16, 4096, false);
    let mut out = vec![];
    let mut add = |block, about, (l, ii): (u64, f64)| out.push(BlockFigure { block, about, latency_cycles: l, ii });
    add("icrc_gen", "ICRC generator (appends 4 bytes)", measure(IcrcGen::default(), &without, &[]));
    add("icrc_check", "ICRC checker (cut-through; flags on the last beat)", measure(IcrcCheck::default(), &with, &[]));
    add("icrc_rx", "ICRC checker + dropping frame FIFO (store and forward)", measure(IcrcRx::default(), &with, &[]));
    add("roce_rx_parse", "RX parser: header channel + payload stream", measure(RoceRxParse::default(), &with, &["hdr_ready"]));
    add("roce_tx_build", "TX deparser: Ethernet/IPv4/UDP/BTH/RETH, pad, ICRC (latency from header and payload offered)", measure_build(16, 4096));
    add("payload_slot", "service slot, 11-cycle pass-through core", measure(PayloadSlot11::default(), &without, &[]));
    add("axis_fifo", "512-beat BRAM FIFO", measure(AxisFifo512::default(), &without, &[]));
    out
}
