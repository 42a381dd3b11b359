//! NAT rewrite on Verilator: every frame against the golden model (`nicgen_model::em::
//! nat_rewrite`, whose checksums are etherparse's for the new frame, carrying any error the
//! old frame had; the hardware updates them incrementally, RFC 1624), with random gaps and backpressure on all inputs and
//! the output and every `tkeep` residue; tshark validates every IPv4, TCP and UDP checksum of the
//! output; round trips (VIP -> PIP -> VIP) give back the original frames; lock step.
mod common;
use common::em_frame;
use nicgen_hw::em::nat::{EmNat, EmNat1024, NatXlateFields};
use nicgen_hw::em::nat_wide::EmNatPath1024;
use nicgen_hw::em::EmHdrFields;
use nicgen_model::em::*;
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_sim::axis::*;
use nicgen_sim::chan::ChanDriver;
use nicgen_sim::oracle::tshark_fields_opts;
use nicgen_sim::*;

struct Case {
    frames: Vec<Vec<u8>>,
    hdrs: Vec<EmHdrFields>,
    xls: Vec<NatXlateFields>,
    want: Vec<Vec<u8>>,
}

fn case(n: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut lens: Vec<usize> = (0..128).map(|i| 60 + i).collect();
    lens.extend((0..n).map(|_| if rng.chance(10) { rng.range(200, 9000) as usize } else { rng.range(60, 400) as usize }));
    let mut c = Case { frames: vec![], hdrs: vec![], xls: vec![], want: vec![] };
    for len in lens {
        let proto = [6u8, 17, 17, 1][rng.below(4) as usize];
        let vlan = if rng.chance(25) { Some(rng.below(4096) as u16) } else { None };
        let base = em_frame(&mut rng, vlan, proto, 7, &[]).len();
        let payload = rng.bytes(len.saturating_sub(base));
        let dport = rng.range(1, 4000) as u16;
        let mut f = em_frame(&mut rng, vlan, proto, dport, &payload);
        let l3 = if vlan.is_some() { 18 } else { 14 };
        if proto == 17 && rng.chance(30) {
            // no UDP checksum
            f[l3 + 26] = 0;
            f[l3 + 27] = 0;
        }
        let p = em_parse(&f, false, false).expect("a well-formed frame");
        let x = match rng.below(3) {
            0 => NatXlateFields { src_rw: true, src: rng.next_u64() as u32, ..Default::default() },
            1 => NatXlateFields { dst_rw: true, dst: rng.next_u64() as u32, ..Default::default() },
            _ => NatXlateFields { src_rw: true, dst_rw: true, src: rng.next_u64() as u32, dst: rng.next_u64() as u32 },
        };
        c.want.push(nat_rewrite(&f, x.src_rw.then_some(x.src), x.dst_rw.then_some(x.dst)));
        c.hdrs.push(EmHdrFields::of(&p, 0));
        c.xls.push(x);
        c.frames.push(f);
    }
    c
}

fn run<S: CycleSim>(sim: &mut S, frames: &[Vec<u8>], hdrs: &[EmHdrFields], xls: &[NatXlateFields], valid: u32, ready: u32, seed: u64) -> Vec<Vec<u8>> {
    sim.reset(2);
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    for f in frames {
        d.push(AxisFrame::new(f.clone()));
    }
    let mut hd = ChanDriver::new(sim, "s_hdr", valid, seed + 1);
    let mut xd = ChanDriver::new(sim, "s_xl", valid, seed + 2);
    for (h, x) in hdrs.iter().zip(xls) {
        hd.push(h.to_words());
        xd.push(x.to_words());
    }
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 3);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let mut quiet = 0;
    while quiet < 50 {
        hd.drive(sim);
        xd.drive(sim);
        let moved = b.step_with(sim, |s| hd.sample(s) | xd.sample(s));
        let busy = !b.drivers[0].idle() || !hd.idle() || !xd.idle();
        quiet = if moved || busy { 0 } else { quiet + 1 };
        assert!(b.cycles < 5_000_000, "NAT stalled");
    }
    b.monitors[0].frames.iter().map(|f| f.data.clone()).collect()
}

/// Equal, but for a TCP checksum of 0x0000 where the other has 0xffff (the same ones'
/// complement value: the incremental update and a fresh sum may pick either).
fn same(g: &[u8], w: &[u8], h: &EmHdrFields) -> bool {
    if g == w {
        return true;
    }
    let o = h.l3 as usize + 36;
    if h.proto != 6 || g.len() != w.len() {
        return false;
    }
    let (gc, wc) = ([g[o], g[o + 1]], [w[o], w[o + 1]]);
    let zero_or_ones = |c: [u8; 2]| c == [0, 0] || c == [0xff, 0xff];
    zero_or_ones(gc) && zero_or_ones(wc) && g[..o] == w[..o] && g[o + 2..] == w[o + 2..]
}

fn rewritten_frames_against_the_model_and_tshark<S: CycleSim>(sim: &mut S) {
    let c = case(600, 1);
    for (valid, ready, seed) in [(100, 100, 1), (70, 55, 2), (90, 80, 3)] {
        let out = run(sim, &c.frames, &c.hdrs, &c.xls, valid, ready, seed);
        assert_eq!(out.len(), c.want.len());
        for (i, (g, w)) in out.iter().zip(&c.want).enumerate() {
            assert!(same(g, w, &c.hdrs[i]), "frame {i}, valid {valid}% ready {ready}%:\n got  {:02x?}\n want {:02x?}", &g[..g.len().min(64)], &w[..w.len().min(64)]);
        }
    }
    // tshark checks every checksum of the output
    let out = run(sim, &c.frames, &c.hdrs, &c.xls, 80, 70, 4);
    let bits = sim.ports()[sim.port("s_axis$tdata")].width;
    let dir = std::env::temp_dir().join(format!("nicgen-em-nat-{}-{bits}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nat.pcap");
    write_pcap(&path, &out.iter().enumerate().map(|(i, d)| Captured { ts_ns: i as u64, data: d.clone() }).collect::<Vec<_>>()).unwrap();
    let opts = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"];
    let rows = tshark_fields_opts(&path, &opts, &["ip.checksum.status", "tcp.checksum.status", "udp.checksum.status", "ip.src", "ip.dst", "udp.checksum"]).unwrap();
    assert_eq!(rows.len(), out.len());
    let (mut tcp, mut udp) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let (h, x) = (&c.hdrs[i], &c.xls[i]);
        assert_eq!(row[0], "1", "frame {i}: IPv4 checksum (1 = good)");
        let ip = |a: u32| std::net::Ipv4Addr::from(a).to_string();
        assert_eq!(row[3], ip(if x.src_rw { x.src } else { h.src }), "frame {i}");
        assert_eq!(row[4], ip(if x.dst_rw { x.dst } else { h.dst }), "frame {i}");
        if h.proto == 6 {
            assert_eq!(row[1], "1", "frame {i}: TCP checksum");
            tcp += 1;
        }
        if h.proto == 17 && row[5] != "0x0000" {
            assert_eq!(row[2], "1", "frame {i}: UDP checksum");
            udp += 1;
        }
    }
    assert!(tcp > 100 && udp > 100, "{tcp} TCP and {udp} UDP frames with checksums");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn rewritten_frames_match_the_model_and_tshark() {
    rewritten_frames_against_the_model_and_tshark(&mut verilate(&mut EmNat::default()));
}

/// At 1024 bits the rewrite sees the first beat's low 512 bits (every rewritten field is in
/// the first 64 bytes); lengths 60..=187 cover every 128-byte residue.
#[test]
fn rewritten_frames_match_the_model_and_tshark_at_1024_bits() {
    rewritten_frames_against_the_model_and_tshark(&mut verilate(&mut EmNat1024::default()));
}

#[test]
fn vip_to_pip_and_back_gives_the_frame_back() {
    let mut sim = verilate(&mut EmNat::default());
    let c = case(300, 2);
    let there = run(&mut sim, &c.frames, &c.hdrs, &c.xls, 85, 75, 5);
    // back: the original addresses, with the rewritten frames' headers
    let hdrs2: Vec<EmHdrFields> = there.iter().map(|f| EmHdrFields::of(&em_parse(f, false, false).unwrap(), 0)).collect();
    let back_xl: Vec<NatXlateFields> = c.xls.iter().zip(&c.hdrs).map(|(x, h)| NatXlateFields { src_rw: x.src_rw, dst_rw: x.dst_rw, src: h.src, dst: h.dst }).collect();
    let back = run(&mut sim, &there, &hdrs2, &back_xl, 85, 75, 6);
    for (i, (g, w)) in back.iter().zip(&c.frames).enumerate() {
        assert!(same(g, w, &c.hdrs[i]), "frame {i}");
    }
    assert_eq!(back.len(), c.frames.len());
}

#[test]
fn lock_step() {
    let mut sim = Diff::new(verilate(&mut EmNat::default()), RustHdlSim::new(EmNat::default()));
    let c = case(10, 3);
    let k = 30;
    let out = run(&mut sim, &c.frames[..k], &c.hdrs[..k], &c.xls[..k], 70, 60, 9);
    for (i, (g, w)) in out.iter().zip(&c.want).enumerate() {
        assert!(same(g, w, &c.hdrs[i]), "frame {i}");
    }
    assert_eq!(out.len(), k);
    let mut sim = Diff::new(verilate(&mut EmNat1024::default()), RustHdlSim::new(EmNat1024::default()));
    let out = run(&mut sim, &c.frames[..k], &c.hdrs[..k], &c.xls[..k], 70, 60, 10);
    for (i, (g, w)) in out.iter().zip(&c.want).enumerate() {
        assert!(same(g, w, &c.hdrs[i]), "frame {i}, 1024 bits");
    }
    assert_eq!(out.len(), k);
}

/// RoCEv2 frames (every RC opcode, some with Ethernet padding, some VLAN-tagged) mixed with
/// TCP/UDP/ICMP frames.
fn roce_case(n: usize, seed: u64) -> (Case, usize) {
    use nicgen_model::roce::{opcode, IpHdr, RoceHeaders};
    let mut c = case(n, seed);
    let mut rng = Rng::new(seed + 100);
    let mut tagged = 0;
    for k in 0..n {
        let ip = |r: &mut Rng| { let b = r.bytes(4); [b[0], b[1], b[2], b[3]] };
        let (s, d) = (ip(&mut rng), ip(&mut rng));
        let op = opcode::ALL_RC[k % opcode::ALL_RC.len()];
        let mut h = RoceHeaders::new(IpHdr::V4 { src: s, dst: d, dscp: 0, ecn: 0, ttl: 64, id: rng.below(65536) as u16 }, op, rng.below(1 << 24) as u32, rng.below(1 << 24) as u32);
        h.udp_sport = rng.range(49152, 65535) as u16;
        let len = if rng.chance(10) { 0 } else { rng.range(1, 1500) as usize };
        let mut f = h.build(&rng.bytes(len));
        if f.len() < 60 {
            f.resize(60, 0); // Ethernet padding after the ICRC
        }
        if rng.chance(10) {
            f.splice(12..12, [0x81, 0x00, 0, 7]);
            tagged += 1;
        }
        let p = em_parse(&f, false, false).expect("a RoCEv2 frame the parser accepts");
        assert!(p.roce);
        let x = NatXlateFields { src_rw: true, dst_rw: rng.chance(70), src: rng.next_u64() as u32, dst: rng.next_u64() as u32 };
        let at = rng.below(c.frames.len() as u64) as usize;
        c.frames.insert(at, f.clone());
        c.hdrs.insert(at, EmHdrFields::of(&p, 0));
        c.xls.insert(at, x);
        c.want.insert(at, nat_rewrite_icrc(&f, Some(x.src), x.dst_rw.then_some(x.dst)).unwrap_or_default());
    }
    (c, tagged)
}

fn roce_frames_against_scapy<S: CycleSim>(sim: &mut S) {
    use nicgen_sim::oracle::{scapy_check, ScapyVerdict};
    let (c, tagged) = roce_case(300, 7);
    let want: Vec<(usize, &Vec<u8>)> = c.want.iter().enumerate().filter(|(_, w)| !w.is_empty()).collect();
    for (valid, ready, seed) in [(100, 100, 1), (70, 55, 2)] {
        let out = run(sim, &c.frames, &c.hdrs, &c.xls, valid, ready, seed);
        assert_eq!(out.len(), want.len(), "every frame but the tagged RoCEv2 ones");
        assert_eq!(sim.get_u64(sim.port("drop_roce_vlan")) as usize, tagged);
        for (g, (i, w)) in out.iter().zip(&want) {
            assert!(same(g, w, &c.hdrs[*i]), "frame {i}:\n got  {:02x?}\n want {:02x?}", &g[..g.len().min(80)], &w[..w.len().min(80)]);
        }
        // scapy (contrib.roce) recomputes every ICRC: all good, and the old ones would not be
        let v = scapy_check(&out).unwrap();
        let mut roce = 0;
        for (k, (verdict, (i, _))) in v.iter().zip(&want).enumerate() {
            if c.hdrs[*i].roce {
                assert_eq!(*verdict, ScapyVerdict::Ok, "output {k} (input {i})");
                let stale = nat_rewrite(&c.frames[*i], Some(c.xls[*i].src), c.xls[*i].dst_rw.then_some(c.xls[*i].dst));
                assert!(nicgen_model::icrc::check_icrc(&stale[..c.hdrs[*i].l3 as usize + c.hdrs[*i].tot as usize]).map_or(true, |x| !x.ok()), "input {i}: a stale ICRC would have passed");
                roce += 1;
            } else {
                assert_eq!(*verdict, ScapyVerdict::NotRoce, "output {k}");
            }
        }
        assert!(roce > 250, "{roce} RoCEv2 frames checked");
    }
}

#[test]
fn roce_frames_get_a_new_icrc_that_scapy_accepts() {
    roce_frames_against_scapy(&mut verilate(&mut nicgen_hw::em::nat_wide::EmNatPathInc::default()));
}

/// At 1024 bits, as at 512: the ICRC updated in place by the CRC delta of the addresses.
#[test]
fn roce_frames_get_a_new_icrc_that_scapy_accepts_at_1024_bits() {
    roce_frames_against_scapy(&mut verilate(&mut EmNatPath1024::default()));
}

#[test]
fn nat_path_lock_step() {
    use nicgen_hw::em::nat_wide::EmNatPathInc;
    let mut sim = Diff::new(verilate(&mut EmNatPathInc::default()), RustHdlSim::new(EmNatPathInc::default()));
    let (c, _) = roce_case(15, 11);
    let k = 40;
    let out = run(&mut sim, &c.frames[..k], &c.hdrs[..k], &c.xls[..k], 70, 60, 9);
    let want: Vec<(usize, &Vec<u8>)> = c.want[..k].iter().enumerate().filter(|(_, w)| !w.is_empty()).collect();
    assert_eq!(out.len(), want.len());
    for (g, (i, w)) in out.iter().zip(&want) {
        assert!(same(g, w, &c.hdrs[*i]), "frame {i}");
    }
    let mut sim = Diff::new(verilate(&mut EmNatPath1024::default()), RustHdlSim::new(EmNatPath1024::default()));
    let out = run(&mut sim, &c.frames[..k], &c.hdrs[..k], &c.xls[..k], 70, 60, 10);
    assert_eq!(out.len(), want.len());
    for (g, (i, w)) in out.iter().zip(&want) {
        assert!(same(g, w, &c.hdrs[*i]), "frame {i}, 1024 bits");
    }
}

/// At 1024 bits the ICRC is updated, not generated: a RoCEv2 frame that arrives with a damaged
/// ICRC leaves with the same damage (the correct ICRC XOR the flipped bit), so the receiver
/// still drops it; a path that generated a fresh ICRC would make it look good.
#[test]
fn a_bad_icrc_stays_bad_at_1024_bits() {
    let (mut c, _) = roce_case(120, 13);
    let mut rng = Rng::new(14);
    let mut flipped = vec![None; c.frames.len()];
    for (i, f) in c.frames.iter_mut().enumerate() {
        let h = &c.hdrs[i];
        if h.roce && !h.vlan {
            let at = h.l3 as usize + h.tot as usize - 4 + rng.below(4) as usize;
            let bit = 1u8 << rng.below(8);
            f[at] ^= bit;
            flipped[i] = Some((at, bit));
        }
    }
    let mut sim = verilate(&mut EmNatPath1024::default());
    let out = run(&mut sim, &c.frames, &c.hdrs, &c.xls, 80, 70, 15);
    let kept: Vec<usize> = (0..c.frames.len()).filter(|i| !c.want[*i].is_empty()).collect();
    assert_eq!(out.len(), kept.len());
    let mut n = 0;
    for (g, &i) in out.iter().zip(&kept) {
        let mut w = c.want[i].clone();
        if let Some((at, bit)) = flipped[i] {
            w[at] ^= bit;
            assert!(!nicgen_model::icrc::check_icrc(g).unwrap().ok(), "frame {i}: its ICRC must stay bad");
            n += 1;
        }
        assert!(same(g, &w, &c.hdrs[i]), "frame {i}");
    }
    assert!(n > 100, "{n} damaged RoCEv2 frames");
}
