//! Per-block figures for `nicgen bench`: each block verilated on its own, fed 4 KiB RoCEv2
//! WRITE frames. **Latency**: cycles from a frame's first beat entering an idle block to its
//! first beat leaving. **II**: cycles per beat over a run of back-to-back frames with the output
//! always ready, counting the input or the output beats, whichever are more (1.0 = one beat per
//! cycle).
use nicgen_hw::crc::icrc::{IcrcCheck, IcrcGen, IcrcRx};
use nicgen_hw::em::classify::{EmActFields, EmClassify};
use nicgen_hw::em::lookup::EmLookup;
use nicgen_hw::em::nat::NatXlateFields;
use nicgen_hw::em::nat_wide::EmNatPathInc;
use nicgen_hw::em::parse::{EmParse, EmParse1024};
use nicgen_hw::em::vxlan::{EmVxlanEncap, EmVxlanEncap1024, VxlanTunFields};
use nicgen_hw::em::EmHdrFields;
use nicgen_hw::roce::rx::parse::RoceRxParse;
use nicgen_hw::roce::tx::build::{RoceTxBuild, TxFields};
use nicgen_hw::service::slot::{AesSlot, DlrmSlot, DpiTap9, PayloadSlot11};
use nicgen_hw::stream::AxisFifo512;
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

/// Latency and II of a stream block (`s_axis` → `m_axis`). Each of `chans` (a channel's name
/// and its words) feeds one transfer per frame on that channel; `hold` names inputs held at 1.
fn measure<T: Block>(mut uut: T, input: &[Vec<u8>], chans: &[(&str, Vec<Vec<u32>>)], hold: &[&str]) -> (u64, f64) {
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
        let mut hds: Vec<ChanDriver> = chans
            .iter()
            .enumerate()
            .map(|(i, (name, words))| {
                let mut hd = ChanDriver::new(v, name, 100, 3 + i as u64);
                for h in &words[..k] {
                    hd.push(h.clone());
                }
                hd
            })
            .collect();
        let mut b = StreamBench::new(vec![d], vec![m]);
        let start = v.cycle();
        let mut quiet = 0;
        while quiet < 200 {
            for hd in &mut hds {
                hd.drive(v);
            }
            let moved = b.step_with(v, |s| hds.iter_mut().fold(false, |m, hd| hd.sample(s) | m));
            let waiting = !b.drivers[0].idle() || hds.iter().any(|hd| !hd.idle());
            quiet = if moved || waiting { 0 } else { quiet + 1 };
            assert!(b.cycles < 1_000_000, "block stalled");
        }
        let m = &b.monitors[0];
        (start, m.frames[0].first_cycle, m.frames.last().unwrap().last_cycle, m.beats)
    };
    let (start, first, _, _) = run(&mut v, 1);
    let (_, first_b, last_b, out_beats) = run(&mut v, input.len());
    let bytes = v.ports()[v.port("s_axis$tdata")].width / 8;
    let in_beats: u64 = input.iter().map(|f| f.len().div_ceil(bytes) as u64).sum();
    (first - start, (last_b - first_b + 1) as f64 / out_beats.max(in_beats) as f64)
}

/// The deparser's headers: WRITE ONLY, IPv4, `payload` bytes each.
fn build_headers(n: usize, payload: usize) -> Vec<Vec<u32>> {
    (0..n)
        .map(|i| TxFields { opcode: opcode::WRITE_ONLY, ackreq: true, pkey: 0xffff, dqpn: 5, psn: i as u32, src_ip: 0x0a00_0001, dst_ip: 0x0a00_0002, src_mac: 2, dst_mac: 3, udp_sport: 49152, ttl: 64, plen: payload as u16, ..Default::default() }.to_words())
        .collect()
}

/// The EM encapsulation's side channels for `frames`: each frame's parsed header, and a tunnel.
fn encap_channels(frames: &[Vec<u8>]) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let t = VxlanTunFields { dmac: 0x02_0000_0000_01, smac: 0x02_0000_0000_02, sip: 0x0a00_0001, dip: 0x0a00_0002, ttl: 64, tos: 0, vni: 42 };
    frames
        .iter()
        .map(|f| {
            let p = nicgen_model::em::em_parse(f, false, false).expect("a well-formed IPv4 frame");
            (EmHdrFields::of(&p, 0).to_words(), t.to_words())
        })
        .unzip()
}

/// Latency and II of a header-only block (`s_hdr` → `m_hdr`, e.g. classification): `words`
/// offered one per cycle, the output always ready.
fn measure_hdr<T: Block>(mut uut: T, words: &[Vec<u32>], extra: &[(&str, Vec<u32>)]) -> (u64, f64) {
    let mut v = verilate(&mut uut);
    v.reset(2);
    for (name, w) in extra {
        let p = v.port(name);
        v.set(p, w);
    }
    let mut hd = ChanDriver::new(&v, "s_hdr", 100, 1);
    for w in words {
        hd.push(w.clone());
    }
    let mut mo = nicgen_sim::chan::ChanMonitor::new(&v, "m_hdr", 100, 2);
    let mut first_in = None;
    let mut quiet = 0;
    while quiet < 50 {
        hd.drive(&mut v);
        mo.drive(&mut v);
        v.eval();
        let c = v.cycle();
        let took = hd.sample(&mut v);
        if took && first_in.is_none() {
            first_in = Some(c);
        }
        let moved = took | mo.sample(&mut v);
        v.tick();
        quiet = if moved || !hd.idle() { 0 } else { quiet + 1 };
    }
    let (first, last) = (mo.seen[0].0, mo.seen.last().unwrap().0);
    (first - first_in.unwrap(), (last - first + 1) as f64 / words.len() as f64)
}

/// The NAT path's side channels: each frame's parsed header and a translation of both addresses.
fn nat_channels(frames: &[Vec<u8>]) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let x = NatXlateFields { src_rw: true, dst_rw: true, src: 0xc0a8_0001, dst: 0xc0a8_0002 };
    frames
        .iter()
        .map(|f| (EmHdrFields::of(&nicgen_model::em::em_parse(f, false, false).expect("a well-formed IPv4 frame"), 0).to_words(), x.to_words()))
        .unzip()
}

fn job<'a>(f: impl FnOnce() -> (u64, f64) + Send + 'a) -> Box<dyn FnOnce() -> (u64, f64) + Send + 'a> {
    Box::new(f)
}

/// The per-block table. The blocks are verilated and measured on every core at once (most of
/// the time is Verilator's build of each block).
pub fn block_figures() -> Vec<BlockFigure> {
    let with = frames(16, 4096, true);
    let without = frames(16, 4096, false);
    let mut rng = Rng::new(3);
    let payloads: Vec<Vec<u8>> = (0..16).map(|_| rng.bytes(4096)).collect();
    // minimum-size frames for the EM's blocks (64 bytes on the wire with the FCS: 60 in the
    // stream), and their parsed headers
    let small: Vec<Vec<u8>> = (0..64).map(|i| nicgen_model::em::ipv4_udp_frame(0x0a00_0001, 0x0a00_0002, 1000 + i, 80, &[i as u8; 18])).collect();
    let hw: Vec<Vec<u32>> = small.iter().map(|f| EmHdrFields::of(&nicgen_model::em::em_parse(f, false, false).unwrap(), 1).to_words()).collect();
    let (with, without, payloads, small, hw) = (&with, &without, &payloads, &small, &hw);
    type Job<'a> = (&'static str, &'static str, Box<dyn FnOnce() -> (u64, f64) + Send + 'a>);
    let mut jobs: Vec<Job<'_>> = vec![];
    let mut add = |block, about, f| jobs.push((block, about, f));
    add("icrc_gen", "ICRC generator (appends 4 bytes)", job(move || measure(IcrcGen::default(), without, &[], &[])));
    add("icrc_check", "ICRC checker (cut-through; flags on the last beat)", job(move || measure(IcrcCheck::default(), with, &[], &[])));
    add("icrc_rx", "ICRC checker + dropping frame FIFO (store and forward)", job(move || measure(IcrcRx::default(), with, &[], &[])));
    add("roce_rx_parse", "RX parser: header channel + payload stream", job(move || measure(RoceRxParse::default(), with, &[], &["hdr_ready"])));
    add("roce_tx_build", "TX deparser: Ethernet/IPv4/UDP/BTH/RETH, pad, ICRC (latency from header and payload offered)", job(move || measure(RoceTxBuild::default(), payloads, &[("hdr", build_headers(16, 4096))], &[])));
    // 64-byte RDMA WRITEs: 134-byte frames before the ICRC, three beats each (II per beat)
    add("icrc_gen 64 B", "ICRC generator, WRITE ONLY frames with 64 bytes of payload (3 beats each)", job(|| measure(IcrcGen::default(), &frames(64, 64, false), &[], &[])));
    add("roce_tx_build 64 B", "TX deparser, 64-byte payloads (3 beats a frame)", job(|| {
        let small_pay: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 64]).collect();
        measure(RoceTxBuild::default(), &small_pay, &[("hdr", build_headers(64, 64))], &[])
    }));
    add("payload_slot", "service slot, 11-cycle pass-through core", job(move || measure(PayloadSlot11::default(), without, &[], &[])));
    add("aes_slot", "AES-CTR service in a payload slot (the 18-cycle core runs on every beat; shell +3)", job(move || measure(AesSlot::default(), without, &[], &[])));
    add("dlrm_slot", "DLRM preprocessing in the application slot, RX (the 15-cycle core runs on every beat; shell +3)", job(move || measure(DlrmSlot::default(), without, &[], &["rx"])));
    add("dpi_tap", "DPI on the parallel tap: ternary classifier on every beat, per-frame verdict joined at the last beat (16-cycle core; tap +3)", job(move || measure(DpiTap9::default(), without, &[], &[])));
    add("axis_fifo", "512-beat BRAM FIFO", job(move || measure(AxisFifo512::default(), without, &[], &[])));
    // the EM's blocks, on the same 4 KiB frames (IPv4/UDP) and on minimum-size frames
    add("dpi_tap 64 B", "DPI tap, back-to-back one-beat frames (60 bytes without the FCS: a verdict per cycle)", job(move || measure(DpiTap9::default(), small, &[], &[])));
    add("em_parse", "EM parser, wire side (store and forward: latency includes the frame's arrival)", job(move || measure(EmParse::default(), with, &[], &["from_wire", "m_hdr_ready"])));
    add("em_parse 64 B", "EM parser, 64-byte frames (60 bytes without the FCS)", job(move || measure(EmParse::default(), small, &[], &["from_wire", "m_hdr_ready"])));
    add("em_parse 1024", "EM parser at 1024 bits (2x200G), wire side, 4 KiB frames", job(move || measure(EmParse1024::default(), with, &[], &["from_wire", "m_hdr_ready"])));
    add("em_parse 1024 64 B", "EM parser at 1024 bits, 64-byte frames (one beat each)", job(move || measure(EmParse1024::default(), small, &[], &["from_wire", "m_hdr_ready"])));
    for (label, about, fr) in [("em_vxlan_encap", "EM VXLAN encapsulation (+50 bytes; II counts the output beats)", with), ("em_vxlan_encap 64 B", "EM VXLAN encapsulation, 64-byte frames (each leaves as 2 beats)", small)] {
        add(label, about, job(move || {
            let (hdrs, tuns) = encap_channels(fr);
            measure(EmVxlanEncap::default(), fr, &[("s_hdr", hdrs), ("s_tun", tuns)], &[])
        }));
    }
    for (label, about, fr) in [("em_vxlan_encap 1024", "EM VXLAN encapsulation at 1024 bits, 4 KiB frames (II counts the output beats)", with), ("em_vxlan_encap 1024 64 B", "EM VXLAN encapsulation at 1024 bits, 64-byte frames (each leaves as 1 beat)", small)] {
        add(label, about, job(move || {
            let (hdrs, tuns) = encap_channels(fr);
            measure(EmVxlanEncap1024::default(), fr, &[("s_hdr", hdrs), ("s_tun", tuns)], &[])
        }));
    }
    for (label, about, fr) in [("em_nat_path", "EM NAT of RoCEv2 frames: addresses and checksums rewritten, the ICRC updated in place", with), ("em_nat_path 64 B", "EM NAT, 64-byte UDP frames", small)] {
        add(label, about, job(move || {
            let (hdrs, xls) = nat_channels(fr);
            measure(EmNatPathInc::default(), fr, &[("s_hdr", hdrs), ("s_xl", xls)], &[])
        }));
    }
    for (label, about, fr) in [("em_nat_path 1024", "EM NAT of RoCEv2 frames at 1024 bits: addresses and checksums rewritten, the ICRC updated in place", with), ("em_nat_path 1024 64 B", "EM NAT at 1024 bits, 64-byte UDP frames (one beat each)", small)] {
        add(label, about, job(move || {
            let (hdrs, xls) = nat_channels(fr);
            measure(nicgen_hw::em::nat_wide::EmNatPath1024::default(), fr, &[("s_hdr", hdrs), ("s_xl", xls)], &[])
        }));
    }
    add("em_classify", "EM classification and policy: tenant map, ACL (16 rules at once), QoS (headers, one per frame)", job(move || measure_hdr(EmClassify::default(), hw, &[])));
    add("em_lookup", "EM address lookups: remote (64K) and local hash tables, VF and VNI tables (headers)", job(move || measure_hdr(EmLookup::default(), hw, &[("s_act", EmActFields::default().to_words())])));
    let (names, runs): (Vec<_>, Vec<_>) = jobs.into_iter().map(|(b, a, f)| ((b, a), f)).unzip();
    names
        .into_iter()
        .zip(nicgen_sim::par_map(runs))
        .map(|((block, about), (latency_cycles, ii))| BlockFigure { block, about, latency_cycles, ii })
        .collect()
}

/// The sniffer at a 100G MAC: both taps (or RX alone) carry back-to-back frames of one size at
/// line rate (20 B preamble/IFG and 4 B FCS per frame on the wire, 50 B a cycle), the capture
/// stream is always ready.
#[derive(Clone, Debug, Serialize)]
pub struct SniffFigure {
    /// Frame length in the stream (no FCS).
    pub frame: usize,
    pub snap: u16,
    pub directions: usize,
    pub offered: u64,
    pub captured: u64,
    pub pct: f64,
    /// Cycles from a frame's last beat at the tap to its descriptor on `m_axis_cap` (idle).
    pub latency_cycles: u64,
    /// Capture-stream words per cycle from the first record word to the last.
    pub out_words_per_cycle: f64,
}

fn sniff_run(frame: usize, snap: u16, dirs: usize, n: usize) -> SniffFigure {
    use nicgen_hw::service::sniffer::{reg, Sniffer512};
    let mut v = verilate(&mut Sniffer512::default());
    v.reset(2);
    let mut axil = nicgen_sim::axil::AxilMaster::new(&v, "s_axil", 100, 1);
    axil.idle(&mut v);
    axil.write(&mut v, reg::SNAPLEN, snap as u32, 0xf);
    axil.write(&mut v, reg::CTRL, 3, 0xf);
    let taps: Vec<AxisPorts> = ["tap_rx", "tap_tx"].iter().map(|t| AxisPorts::find(&v, t)).collect();
    let cap = AxisPorts::find(&v, "m_axis_cap");
    v.set_bit(cap.tready.unwrap(), true);
    let f = frames(1, frame.saturating_sub(62), true).remove(0)[..frame].to_vec();
    let beats = frame.div_ceil(64);
    let gap = (frame + 24) as f64 / 50.0;
    let (mut sent, mut words, mut descs, mut t_last_in, mut latency) = (0usize, 0u64, 0u64, 0u64, 0u64);
    let (mut beat, mut next_start, start) = (0usize, 0.0f64, v.cycle());
    let mut busy_until = 0u64;
    let (mut first_out, mut last_out) = (0u64, 0u64);
    while sent < n || v.cycle() < busy_until.max(last_out) + 50 {
        let c = (v.cycle() - start) as f64;
        let go = sent < n && (beat > 0 || c >= next_start);
        for (d, t) in taps.iter().enumerate() {
            let on = go && d < dirs;
            v.set_bit(t.tvalid, on);
            v.set_bit(t.tready.unwrap(), true);
            let lo = 64 * beat;
            let hi = (lo + 64).min(frame);
            v.set(t.tdata, &pack_beat(&f[lo..hi.max(lo)], 64));
            v.set(t.tkeep, &keep_words(hi - lo, 64));
            v.set_bit(t.tlast, beat + 1 == beats);
        }
        v.eval();
        if v.get_bit(cap.tvalid) {
            words += 1;
            if first_out == 0 {
                first_out = v.cycle();
            }
            last_out = v.cycle();
            let first_word = v.get_words(cap.tdata);
            if first_word[6] == u32::from_le_bytes(*b"SNF1") {
                descs += 1;
                if descs == 1 {
                    latency = v.cycle() - t_last_in;
                }
            }
        }
        if go {
            beat += 1;
            if beat == beats {
                if sent == 0 {
                    t_last_in = v.cycle();
                }
                beat = 0;
                sent += 1;
                next_start += gap;
                busy_until = v.cycle();
            }
        }
        v.tick();
    }
    let offered = (n * dirs) as u64;
    // descriptors are counted by their magic; a data word could carry it only by accident
    SniffFigure { frame, snap, directions: dirs, offered, captured: descs, pct: 100.0 * descs as f64 / offered as f64, latency_cycles: latency, out_words_per_cycle: words as f64 / (last_out + 1 - first_out).max(1) as f64 }
}

/// Capture at line rate: whole and header-only, 64-byte and 4 KiB frames, one and two taps.
pub fn sniffer_figures() -> Vec<SniffFigure> {
    let runs: Vec<_> = [(60, 0xffff, 1), (60, 0xffff, 2), (4154, 0xffff, 1), (4154, 0xffff, 2), (4154, 64, 2), (1024, 128, 2)]
        .into_iter()
        .map(|(frame, snap, dirs)| move || sniff_run(frame, snap, dirs, if frame < 100 { 20000 } else { 2000 }))
        .collect();
    nicgen_sim::par_map(runs)
}
