//! EM parser on Verilator: every frame's fate (handed on with its header, or dropped by cause)
//! against the golden model (`nicgen_model::em`, IPv4 checksums by etherparse), accepted
//! frames byte for byte, with random gaps and backpressure on every port and every `tkeep`
//! residue; tshark's dissection of the accepted frames (outer checksum status, addresses,
//! ports, VXLAN VNI) against the hardware's headers; 10^5 random and mutated frames; one-beat
//! frames at one per cycle; lock step against rust-hdl.
mod common;
use common::{em_frame as frame4, em_frame6};
use etherparse::Ipv4Header;
use nicgen_hw::em::parse::{EmParse, EmParse1024};
use nicgen_hw::em::EmHdrFields;
use nicgen_model::em::*;
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_sim::axis::*;
use nicgen_sim::chan::ChanMonitor;
use nicgen_sim::oracle::tshark_fields_opts;
use nicgen_sim::*;
use std::collections::HashMap;

/// An IPv4 frame, or one in five IPv6 (ICMP becomes ICMPv6).
fn frame(rng: &mut Rng, vlan: Option<u16>, proto: u8, dport: u16, payload: &[u8]) -> Vec<u8> {
    if rng.chance(20) { em_frame6(rng, vlan, if proto == 1 { 58 } else { proto }, dport, payload) } else { frame4(rng, vlan, proto, dport, payload) }
}

fn l3_of(f: &[u8], e: usize) -> usize {
    if f.len() > e + 13 && f[e + 12] == 0x81 && f[e + 13] == 0 { e + 18 } else { e + 14 }
}

/// Recompute the IPv4 header checksum at `l3` (after a deliberate change).
fn fix_csum(f: &mut [u8], l3: usize) {
    if f.len() < l3 + 20 {
        return;
    }
    f[l3 + 10] = 0;
    f[l3 + 11] = 0;
    if let Ok((h, _)) = Ipv4Header::from_slice(&f[l3..l3 + 20]) {
        let c = h.calc_header_checksum().to_be_bytes();
        f[l3 + 10] = c[0];
        f[l3 + 11] = c[1];
    }
}

/// A random frame of the kinds the EM sees (wire side: VXLAN too), possibly damaged in one of
/// the ways the parser must catch. Returns the frame and whether the MAC marks it bad.
fn random_frame(rng: &mut Rng, wire: bool) -> (Vec<u8>, bool) {
    let plen = match rng.below(10) {
        0 => rng.range(0, 3000) as usize,
        1 => rng.range(3000, 9000) as usize,
        _ => rng.range(0, 200) as usize,
    };
    let payload = rng.bytes(plen);
    let vlan = |r: &mut Rng| if r.chance(30) { Some(r.below(4096) as u16) } else { None };
    let proto = [6u8, 17, 17, 1][rng.below(4) as usize];
    let dport = match rng.below(4) {
        0 => ROCE_PORT,
        1 if wire => VXLAN_PORT,
        _ => rng.range(1, 65535) as u16,
    };
    let mut f = if wire && rng.chance(40) {
        // (VXLAN over IPv4; the inner frame IPv4 or IPv6)
        let ip = [6u8, 17, 1][rng.below(3) as usize];
        let idp = if rng.chance(30) { ROCE_PORT } else { rng.range(1, 65535) as u16 };
        let iv = vlan(rng);
        let inner = frame(rng, iv, ip, idp, &payload);
        let vni = rng.below(1 << 24) as u32;
        let mut vx = vec![0x08, 0, 0, 0, (vni >> 16) as u8, (vni >> 8) as u8, vni as u8, 0];
        vx.extend(inner);
        let ov = vlan(rng);
        frame4(rng, ov, 17, VXLAN_PORT, &vx)
    } else {
        let ov = vlan(rng);
        frame(rng, ov, proto, dport, &payload)
    };
    let mut bad = false;
    let l3 = l3_of(&f, 0);
    // the inner layer, when there is one
    let il3 = l3_of(&f, l3 + 36);
    let at = if rng.chance(50) || f.len() < il3 + 40 { l3 } else { il3 };
    let fits = f.len() > at + 40;
    match if fits { rng.below(24) } else { rng.below(2) } {
        0 => f.truncate(rng.range(1, f.len() as u64) as usize),
        1 => {
            let i = rng.below(f.len().min(112) as u64) as usize;
            f[i] ^= 1 << rng.below(8);
        }
        2 => {
            f[at] = 0x46;
            fix_csum(&mut f, at);
        }
        3 => {
            f[at + 6] |= 0x20;
            fix_csum(&mut f, at);
        }
        4 => f[at + 10] ^= 0x40,
        5 => {
            // another ethertype: IPv6 over an IPv4 header (or IPv4 over IPv6), ARP, a local one
            let et = [[0x86, 0xdd], [0x08, 0x00], [0x08, 0x06], [0x88, 0xb5]][rng.below(4) as usize];
            f[at - 2..at].copy_from_slice(&et);
        }
        6 => bad = true,
        7 => f[l3 + 28] &= !0x08,
        8 => {
            // an IPv4 total length past the frame's end
            let t = u16::from_be_bytes([f[at + 2], f[at + 3]]).saturating_add(rng.range(1, 100) as u16);
            f[at + 2..at + 4].copy_from_slice(&t.to_be_bytes());
            fix_csum(&mut f, at);
        }
        9 => {
            // a UDP/TCP header that does not fit its datagram
            f[at + 2] = 0;
            f[at + 3] = rng.range(20, 40) as u8;
            fix_csum(&mut f, at);
        }
        10 => {
            f[at + 24] = 0;
            f[at + 25] = rng.below(8) as u8;
        }
        11 => f[at + 32] &= 0x3f,
        // IPv6: an extension header or a fragment header next, a version other than 6, a payload
        // length past the frame's end (in an IPv4 header these are other damage)
        12 => f[at + 6] = [0u8, 43, 44, 51, 60, 135, 139, 140, 253, 254, 50, 59][rng.below(12) as usize],
        13 => f[at] = (f[at] & 0x0f) | (rng.below(16) as u8) << 4,
        14 => {
            let t = u16::from_be_bytes([f[at + 4], f[at + 5]]).saturating_add(rng.range(1, 100) as u16);
            f[at + 4..at + 6].copy_from_slice(&t.to_be_bytes());
        }
        15 => f[at + 4..at + 6].copy_from_slice(&(rng.range(0, 24) as u16).to_be_bytes()),
        _ => {}
    }
    (f, bad)
}

/// Cycles with nothing on offer that end a run: more than a 9 KiB frame takes to arrive at the
/// slowest input rate here (the parser hands a frame on only once all of it is in).
const QUIET: u64 = 1000;

struct Run {
    /// (frame, its VF, MAC bad) in, and what came out.
    out: Vec<Vec<u8>>,
    hdrs: Vec<EmHdrFields>,
    counters: HashMap<String, u64>,
    cycles: u64,
}

fn run<S: CycleSim>(sim: &mut S, frames: &[(Vec<u8>, bool)], vfs: &[u16], wire: bool, valid: u32, ready: u32, seed: u64) -> Run {
    let (w, vf) = (sim.port("from_wire"), sim.port("s_vf"));
    sim.reset(2);
    sim.set_bit(w, wire);
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    for (f, bad) in frames {
        d.push(AxisFrame { data: f.clone(), user: *bad });
    }
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 1);
    let mut hm = ChanMonitor::new(sim, "m_hdr", ready, seed + 2);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let mut quiet = 0;
    while quiet < QUIET {
        let k = b.drivers[0].frames as usize;
        sim.set_u64(vf, vfs.get(k).copied().unwrap_or(0) as u64);
        hm.drive(sim);
        let moved = b.step_with(sim, |s| hm.sample(s) | s.get_bit(hm.ports.valid));
        quiet = if moved || !b.drivers[0].idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 20_000_000, "EM parser stalled");
    }
    let mut counters = HashMap::new();
    for n in ["frames", "drop_bad_frame", "drop_truncated", "drop_not_ip", "drop_malformed", "drop_ip_options", "drop_bad_ip_checksum", "drop_fragment", "drop_bad_vxlan"] {
        let p = sim.port(n);
        counters.insert(n.to_string(), sim.get_u64(p));
    }
    Run {
        out: b.monitors[0].frames.iter().map(|f| f.data.clone()).collect(),
        hdrs: hm.seen.iter().map(|(_, w)| EmHdrFields::from_words(w)).collect(),
        counters,
        cycles: b.cycles,
    }
}

/// The model's verdict on every frame: the frames and headers it hands on, and drops per cause.
fn expect(frames: &[(Vec<u8>, bool)], vfs: &[u16], wire: bool) -> (Vec<Vec<u8>>, Vec<EmHdrFields>, HashMap<String, u64>) {
    let mut c: HashMap<String, u64> = HashMap::new();
    let (mut out, mut hdrs) = (vec![], vec![]);
    for (i, (f, bad)) in frames.iter().enumerate() {
        match em_parse(f, wire, *bad) {
            Ok(p) => {
                out.push(f.clone());
                hdrs.push(EmHdrFields::of(&p, vfs[i]));
                *c.entry("frames".into()).or_default() += 1;
            }
            Err(e) => *c.entry(format!("drop_{}", e.name())).or_default() += 1,
        }
    }
    (out, hdrs, c)
}

fn check(r: &Run, frames: &[(Vec<u8>, bool)], vfs: &[u16], wire: bool, ctx: &str) {
    let (out, hdrs, c) = expect(frames, vfs, wire);
    // the first frame whose fate differs, named
    let mut j = 0;
    for (i, (f, bad)) in frames.iter().enumerate() {
        let passed = r.out.get(j) == Some(f);
        let want = em_parse(f, wire, *bad);
        assert_eq!(passed, want.is_ok(), "{ctx}: frame {i} (len {}, MAC bad {bad}): model says {want:?}; extract {:?}; bytes {:02x?}", f.len(), em_extract(f, wire), &f[..f.len().min(128)]);
        j += passed as usize;
    }
    assert_eq!(r.out.len(), out.len(), "{ctx}: frames handed on");
    for (i, (g, w)) in r.out.iter().zip(&out).enumerate() {
        assert_eq!(g, w, "{ctx}: frame {i}");
    }
    for (i, (g, w)) in r.hdrs.iter().zip(&hdrs).enumerate() {
        assert_eq!(g, w, "{ctx}: header {i}");
    }
    assert_eq!(r.hdrs.len(), hdrs.len(), "{ctx}: headers");
    for (k, v) in &r.counters {
        assert_eq!(*v, c.get(k).copied().unwrap_or(0), "{ctx}: counter {k}");
    }
}

fn case(n: usize, wire: bool, seed: u64) -> (Vec<(Vec<u8>, bool)>, Vec<u16>) {
    let mut rng = Rng::new(seed);
    let mut frames: Vec<(Vec<u8>, bool)> = (0..n).map(|_| random_frame(&mut rng, wire)).collect();
    // every tkeep residue of the last beat, on frames that are handed on
    for len in 60..=187 {
        let payload = rng.bytes(len - 42);
        frames.push((frame4(&mut rng, None, 17, 5000, &payload), false));
    }
    let vfs = (0..frames.len()).map(|_| rng.below(4096) as u16).collect();
    (frames, vfs)
}

/// Both sides, three stream settings, against the model.
fn golden_model_runs<S: CycleSim>(sim: &mut S, n: usize, width: usize) {
    for wire in [false, true] {
        let (frames, vfs) = case(n, wire, 11 + wire as u64);
        let (_, _, c) = expect(&frames, &vfs, wire);
        // every cause the side can see occurs, and most frames pass
        let causes: Vec<&str> = if wire { EmDrop::ALL.iter().map(|d| d.name()).collect() } else { EmDrop::ALL.iter().filter(|d| **d != EmDrop::BadVxlan).map(|d| d.name()).collect() };
        for name in causes {
            assert!(c.get(&format!("drop_{name}")).copied().unwrap_or(0) > 5, "wire {wire}: too few {name}: {c:?}");
        }
        assert!(c["frames"] as usize > n / 2, "{c:?}");
        for (valid, ready, seed) in [(100, 100, 1), (60, 45, 2), (90, 75, 3)] {
            let r = run(sim, &frames, &vfs, wire, valid, ready, seed);
            check(&r, &frames, &vfs, wire, &format!("{width} bits, wire {wire}, valid {valid}%, ready {ready}%"));
        }
    }
}

#[test]
fn frames_and_headers_match_the_golden_model_under_backpressure() {
    golden_model_runs(&mut verilate(&mut EmParse::default()), 3000, 512);
}

/// The 1024-bit parser (2×200G): the 128-byte window is the first beat alone; the residues
/// 60..=187 of `case` cover every one of the 128 last-beat `tkeep` residues.
#[test]
fn frames_and_headers_match_the_golden_model_at_1024_bits() {
    golden_model_runs(&mut verilate(&mut EmParse1024::default()), 2000, 1024);
}

#[test]
fn tshark_agrees_with_the_headers() {
    let mut sim = verilate(&mut EmParse::default());
    let (frames, vfs) = case(600, true, 21);
    let r = run(&mut sim, &frames, &vfs, true, 80, 70, 4);
    check(&r, &frames, &vfs, true, "tshark run");
    let dir = std::env::temp_dir().join(format!("nicgen-em-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("accepted.pcap");
    write_pcap(&path, &r.out.iter().enumerate().map(|(i, d)| Captured { ts_ns: i as u64, data: d.clone() }).collect::<Vec<_>>()).unwrap();
    let rows = tshark_fields_opts(
        &path,
        &["-o", "ip.check_checksum:TRUE"],
        &["ip.checksum.status", "ip.src", "ip.dst", "ip.proto", "vxlan.flags", "vxlan.vni", "udp.srcport", "udp.dstport", "tcp.dstport", "vlan.id", "ipv6.src", "ipv6.dst", "ipv6.nxt", "ipv6.hlim"],
    )
    .unwrap();
    assert_eq!(rows.len(), r.hdrs.len());
    let ip = |a: u32| std::net::Ipv4Addr::from(a).to_string();
    let fold = |a: &str| v6_fold(u128::from(a.parse::<std::net::Ipv6Addr>().unwrap_or_else(|e| panic!("{a:?}: {e}"))));
    let (mut vx, mut v6, mut iv6) = (0, 0, 0);
    for (i, (row, h)) in rows.iter().zip(&r.hdrs).enumerate() {
        // `occurrence=f`: the first header's fields (an IPv6 field: the outer IPv6 header, or
        // under VXLAN the inner one)
        if h.v6 {
            v6 += 1;
            assert_eq!(row[0], "", "frame {i}: no IPv4 header");
            assert_eq!((fold(&row[10]), fold(&row[11])), (h.src, h.dst), "frame {i}: the IPv6 addresses' folds");
            assert_eq!((row[12].as_str(), row[13].as_str()), (h.proto.to_string().as_str(), h.ttl.to_string().as_str()), "frame {i}");
        } else {
            assert_eq!(row[0], "1", "frame {i}: tshark's IPv4 checksum status (1 = good)");
            assert_eq!((row[1].as_str(), row[2].as_str()), (ip(h.src).as_str(), ip(h.dst).as_str()), "frame {i}");
            assert_eq!(row[3], h.proto.to_string(), "frame {i}");
        }
        if h.vxlan && h.i_v6 {
            iv6 += 1;
            assert_eq!((fold(&row[10]), fold(&row[11]), row[12].as_str()), (h.i_src, h.i_dst, h.i_proto.to_string().as_str()), "frame {i}: the inner IPv6 header");
        }
        if h.proto == 17 {
            assert_eq!((row[6].as_str(), row[7].as_str()), (h.sport.to_string().as_str(), h.dport.to_string().as_str()), "frame {i}");
        }
        if h.proto == 6 {
            assert_eq!(row[8], h.dport.to_string(), "frame {i}");
        }
        // (an untagged VXLAN frame's first VLAN id is its inner frame's)
        if h.vlan || !h.vxlan {
            assert_eq!(row[9], if h.vlan { h.vid.to_string() } else { String::new() }, "frame {i}");
        }
        if h.vxlan {
            vx += 1;
            // tshark shows the flags as 16 bits: 0x0800 is the I flag alone (flags byte 0x08)
            assert_eq!((row[4].as_str(), row[5].as_str()), ("0x0800", h.vni.to_string().as_str()), "frame {i}: VXLAN flags and VNI");
        }
    }
    assert!(vx > 50 && v6 > 20 && iv6 > 5, "{vx} VXLAN frames, {v6} IPv6, {iv6} IPv6 under VXLAN");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_hundred_thousand_random_and_mutated_frames() {
    let mut sim = verilate(&mut EmParse::default());
    let mut rng = Rng::new(77);
    let mut frames = vec![];
    while frames.len() < 100_000 {
        let (mut f, bad) = random_frame(&mut rng, true);
        if rng.chance(20) {
            // bytes at random, of random length
            let n = rng.range(1, 300) as usize;
            f = rng.bytes(n);
        }
        // short frames keep the run inside the test budget
        f.truncate(rng.range(1, 400) as usize);
        frames.push((f, bad));
    }
    let vfs: Vec<u16> = (0..frames.len()).map(|i| i as u16 & 0xfff).collect();
    let r = run(&mut sim, &frames, &vfs, true, 85, 80, 9);
    check(&r, &frames, &vfs, true, "fuzz");
    let total: u64 = r.counters.values().sum();
    assert_eq!(total, frames.len() as u64, "every frame handed on or counted");
}

/// `n` frames of `len` bytes, back to back at full rate: the cycles beyond one per frame.
fn one_beat_latency<S: CycleSim>(sim: &mut S, len: usize) -> u64 {
    let mut rng = Rng::new(5);
    let frames: Vec<(Vec<u8>, bool)> = (0..400).map(|_| { let p = rng.bytes(len - 42); (frame4(&mut rng, None, 17, 80, &p), false) }).collect();
    assert!(frames.iter().all(|f| f.0.len() == len));
    let vfs = vec![3; frames.len()];
    let r = run(sim, &frames, &vfs, false, 100, 100, 1);
    check(&r, &frames, &vfs, false, "full rate");
    r.cycles - 400 - QUIET
}

#[test]
fn one_beat_frames_pass_at_one_per_cycle() {
    // 400 frames in 400 cycles, plus one frame's latency through the parser (13 cycles: window
    // 1, header stage 5, result FIFO 2, join 1, header FIFO 2, gate 1, output skid 1) and the
    // quiet cycles that end the run
    assert_eq!(one_beat_latency(&mut verilate(&mut EmParse::default()), 52), 13);
    // at 1024 bits a 128-byte frame is one beat, and its window is complete with it
    let mut wide = verilate(&mut EmParse1024::default());
    assert_eq!(one_beat_latency(&mut wide, 128), 13);
    assert_eq!(one_beat_latency(&mut wide, 52), 13);
}

#[test]
fn lock_step() {
    let mut sim = Diff::new(verilate(&mut EmParse::default()), RustHdlSim::new(EmParse::default()));
    let (frames, vfs) = case(60, true, 3);
    let r = run(&mut sim, &frames[..80], &vfs, true, 70, 60, 6);
    check(&r, &frames[..80], &vfs, true, "lock step");
    let mut sim = Diff::new(verilate(&mut EmParse1024::default()), RustHdlSim::new(EmParse1024::default()));
    let r = run(&mut sim, &frames[..80], &vfs, true, 70, 60, 7);
    check(&r, &frames[..80], &vfs, true, "lock step, 1024 bits");
}


