//! Per-block figures for `nicgen bench`: each block verilated on its own, fed 4 KiB RoCEv2
//! WRITE frames. **Latency**: cycles from a frame's first beat entering an idle block to its
//! first beat leaving. **II**: cycles per beat over a run of back-to-back frames with the output
//! always ready, counting the input or the output beats, whichever are more (1.0 = one beat per
//! cycle).
use crate::crc::icrc::{IcrcCheck, IcrcGen, IcrcRx};
use crate::roce::rx::parse::RoceRxParse;
use crate::roce::tx::build::{RoceTxBuild, TxFields};
use crate::service::slot::PayloadSlot11;
use crate::stream::AxisFifo512;
use nicgen_model::roce::{opcode, IpHdr, RoceHeaders};
use nicgen_sim::axis::*;
use nicgen_sim::chan::ChanDriver;
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

/// Latency and II of a stream block (`s_axis` → `m_axis`). `hdrs`, when not empty, go on the
/// block's `hdr` channel, one per frame; `hold` names inputs held at 1.
fn measure<T: Block>(mut uut: T, input: &[Vec<u8>], hdrs: &[Vec<u32>], hold: &[&str]) -> (u64, f64) {
    let mut v = verilate(&mut uut);
    let run = |v: &mut VerilatorSim, k: usize| {
        v.reset(2);
        for h in hold {
            let p = v.port(h);
            v.set_bit(p, true);
        }
        let mut d = AxisDriver::new(v, "s_axis", 100, 1);
        for f in &input[..k] {
            d.push(AxisFrame::new(f.clone()));
        }
        let m = AxisMonitor::new(v, "m_axis", 100, 2);
        let mut hd = (!hdrs.is_empty()).then(|| ChanDriver::new(v, "hdr", 100, 3));
        if let Some(hd) = &mut hd {
            for h in &hdrs[..k] {
                hd.push(h.clone());
            }
        }
        let mut b = StreamBench::new(vec![d], vec![m]);
        let start = v.cycle();
        let mut quiet = 0;
        while quiet < 40 {
            if let Some(hd) = &mut hd {
                hd.drive(v);
            }
            let moved = b.step_with(v, |s| hd.as_mut().is_some_and(|hd| hd.sample(s)));
            let waiting = !b.drivers[0].idle() || hd.as_ref().is_some_and(|hd| !hd.idle());
            quiet = if moved || waiting { 0 } else { quiet + 1 };
            assert!(b.cycles < 1_000_000, "block stalled");
        }
        let m = &b.monitors[0];
        (start, m.frames[0].first_cycle, m.frames.last().unwrap().last_cycle, m.beats)
    };
    let (start, first, _, _) = run(&mut v, 1);
    let (_, first_b, last_b, out_beats) = run(&mut v, input.len());
    let in_beats: u64 = input.iter().map(|f| f.len().div_ceil(64) as u64).sum();
    (first - start, (last_b - first_b + 1) as f64 / out_beats.max(in_beats) as f64)
}

/// The deparser's headers: WRITE ONLY, IPv4, `payload` bytes each.
fn build_headers(n: usize, payload: usize) -> Vec<Vec<u32>> {
    (0..n)
        .map(|i| TxFields { opcode: opcode::WRITE_ONLY, ackreq: true, pkey: 0xffff, dqpn: 5, psn: i as u32, src_ip: 0x0a00_0001, dst_ip: 0x0a00_0002, src_mac: 2, dst_mac: 3, udp_sport: 49152, ttl: 64, plen: payload as u16, ..Default::default() }.to_words())
        .collect()
}

/// The per-block table.
pub fn block_figures() -> Vec<BlockFigure> {
    let with = frames(16, 4096, true);
    let without = frames(16, 4096, false);
    let mut rng = Rng::new(3);
    let payloads: Vec<Vec<u8>> = (0..16).map(|_| rng.bytes(4096)).collect();
    let mut out = vec![];
    let mut add = |block, about, (l, ii): (u64, f64)| out.push(BlockFigure { block, about, latency_cycles: l, ii });
    add("icrc_gen", "ICRC generator (appends 4 bytes)", measure(IcrcGen::default(), &without, &[], &[]));
    add("icrc_check", "ICRC checker (cut-through; flags on the last beat)", measure(IcrcCheck::default(), &with, &[], &[]));
    add("icrc_rx", "ICRC checker + dropping frame FIFO (store and forward)", measure(IcrcRx::default(), &with, &[], &[]));
    add("roce_rx_parse", "RX parser: header channel + payload stream", measure(RoceRxParse::default(), &with, &[], &["hdr_ready"]));
    add("roce_tx_build", "TX deparser: Ethernet/IPv4/UDP/BTH/RETH, pad, ICRC (latency from header and payload offered)", measure(RoceTxBuild::default(), &payloads, &build_headers(16, 4096), &[]));
    add("payload_slot", "service slot, 11-cycle pass-through core", measure(PayloadSlot11::default(), &without, &[], &[]));
    add("axis_fifo", "512-beat BRAM FIFO", measure(AxisFifo512::default(), &without, &[], &[]));
    out
}
