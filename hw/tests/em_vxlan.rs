//! VXLAN encapsulation on Verilator: every encapsulated frame byte for byte against the golden
//! model (`nicgen_model::em::vxlan_encap`, outer headers written by etherparse), with random
//! gaps and backpressure on all three inputs and the output and every `tkeep` residue; tshark
//! decodes each one (outer IPv4 checksum good, VXLAN flags, VNI, UDP ports and checksum 0);
//! the round trip through the EM parser's and decapsulation's hardware on the wire side gives
//! back the inner frame and its header; lock step against rust-hdl.
mod common;
use common::{em_frame, em_frame6};
use nicgen_hw::em::parse::{EmParse, EmParse1024};
use nicgen_hw::em::vxlan::{EmVxlanDecap, EmVxlanDecap1024, EmVxlanEncap, EmVxlanEncap1024, VxlanTunFields};
use nicgen_hw::em::EmHdrFields;
use nicgen_model::em::*;
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_sim::axis::*;
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::oracle::tshark_fields_opts;
use nicgen_sim::*;

struct Case {
    inner: Vec<Vec<u8>>,
    hdrs: Vec<EmHdrFields>,
    tuns: Vec<VxlanTunFields>,
    want: Vec<Vec<u8>>,
}

fn case(n: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut lens: Vec<usize> = (0..128).map(|i| 60 + i).collect();
    lens.extend((0..n).map(|_| if rng.chance(10) { rng.range(200, 9000) as usize } else { rng.range(60, 400) as usize }));
    let mut c = Case { inner: vec![], hdrs: vec![], tuns: vec![], want: vec![] };
    for (k, len) in lens.into_iter().enumerate() {
        let proto = [6u8, 17, 1][rng.below(3) as usize];
        let vlan = if rng.chance(20) { Some(rng.below(4096) as u16) } else { None };
        // IPv6 inner frames among the random lengths (the first 128 give every residue)
        let v6 = k >= 128 && rng.chance(25);
        let mk = |r: &mut Rng, dport: u16, payload: &[u8]| if v6 { em_frame6(r, vlan, if proto == 1 { 58 } else { proto }, dport, payload) } else { em_frame(r, vlan, proto, dport, payload) };
        let base = mk(&mut rng, 7, &[]).len();
        let payload = rng.bytes(len.saturating_sub(base));
        let dport = rng.range(1, 65535) as u16;
        let f = mk(&mut rng, dport, &payload);
        let p = em_parse(&f, false, false).expect("a well-formed inner frame");
        let t = VxlanTunFields {
            dmac: rng.next_u64() >> 16 & !(1 << 40),
            smac: rng.next_u64() >> 16 & !(1 << 40),
            sip: rng.next_u64() as u32,
            dip: rng.next_u64() as u32,
            ttl: rng.range(1, 255) as u8,
            tos: rng.below(256) as u8,
            vni: rng.below(1 << 24) as u32,
        };
        let o = p.outer;
        c.want.push(vxlan_encap(&f, &t.to_model(), vxlan_sport(o.src, o.dst, o.proto, o.sport, o.dport)));
        c.hdrs.push(EmHdrFields::of(&p, 0));
        c.tuns.push(t);
        c.inner.push(f);
    }
    c
}

fn run<S: CycleSim>(sim: &mut S, c: &Case, valid: u32, ready: u32, seed: u64) -> (Vec<Vec<u8>>, u64) {
    sim.reset(2);
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    for f in &c.inner {
        d.push(AxisFrame::new(f.clone()));
    }
    let mut hd = ChanDriver::new(sim, "s_hdr", valid, seed + 1);
    let mut td = ChanDriver::new(sim, "s_tun", valid, seed + 2);
    for (h, t) in c.hdrs.iter().zip(&c.tuns) {
        hd.push(h.to_words());
        td.push(t.to_words());
    }
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 3);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let mut quiet = 0;
    while quiet < 50 {
        hd.drive(sim);
        td.drive(sim);
        let moved = b.step_with(sim, |s| hd.sample(s) | td.sample(s));
        let busy = !b.drivers[0].idle() || !hd.idle() || !td.idle();
        quiet = if moved || busy { 0 } else { quiet + 1 };
        assert!(b.cycles < 5_000_000, "encapsulation stalled");
    }
    (b.monitors[0].frames.iter().map(|f| f.data.clone()).collect(), b.cycles)
}

fn encapsulated_frames_against_the_model_and_tshark<S: CycleSim>(sim: &mut S) {
    let c = case(400, 1);
    for (valid, ready, seed) in [(100, 100, 1), (70, 55, 2), (90, 80, 3)] {
        let (out, _) = run(sim, &c, valid, ready, seed);
        assert_eq!(out.len(), c.want.len(), "valid {valid}% ready {ready}%");
        for (i, (g, w)) in out.iter().zip(&c.want).enumerate() {
            assert_eq!(g, w, "frame {i} (inner {} bytes), valid {valid}% ready {ready}%", c.inner[i].len());
        }
    }
    // tshark: the outer IPv4 checksum is good, the flags are the I flag, the VNI and ports right
    let (out, _) = run(sim, &c, 80, 70, 4);
    let bits = sim.ports()[sim.port("s_axis$tdata")].width;
    let dir = std::env::temp_dir().join(format!("nicgen-em-vxlan-{}-{bits}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("encap.pcap");
    write_pcap(&path, &out.iter().enumerate().map(|(i, d)| Captured { ts_ns: i as u64, data: d.clone() }).collect::<Vec<_>>()).unwrap();
    let rows = tshark_fields_opts(&path, &["-o", "ip.check_checksum:TRUE"], &["ip.checksum.status", "vxlan.flags", "vxlan.vni", "udp.srcport", "udp.dstport", "udp.checksum", "ip.len", "ip.ttl", "ipv6.src", "ipv6.dst", "ipv6.nxt"]).unwrap();
    assert_eq!(rows.len(), out.len());
    let fold = |a: &str| v6_fold(u128::from(a.parse::<std::net::Ipv6Addr>().unwrap_or_else(|e| panic!("{a:?}: {e}"))));
    let mut v6 = 0;
    for (i, row) in rows.iter().enumerate() {
        // the inner frame: IPv6 decoded under VXLAN, its addresses folding to the header's
        let h = &c.hdrs[i];
        if h.v6 {
            v6 += 1;
            assert_eq!((fold(&row[8]), fold(&row[9]), row[10].as_str()), (h.src, h.dst, h.proto.to_string().as_str()), "frame {i}: the inner IPv6 header");
        } else {
            assert_eq!(&row[8..], &["", "", ""], "frame {i}: no IPv6");
        }
        let row = &row[..8].to_vec();
        let (h, t) = (&c.hdrs[i], &c.tuns[i]);
        let sport = vxlan_sport(h.src, h.dst, h.proto, h.sport, h.dport);
        assert!(sport >= 49152);
        // (tshark shows the VXLAN flags as 16 bits: 0x0800 is the I flag alone)
        let want = ["1".to_string(), "0x0800".into(), t.vni.to_string(), sport.to_string(), "4789".into(), "0x0000".into(), (c.inner[i].len() + 36).to_string(), t.ttl.to_string()];
        assert_eq!(row, &want.to_vec(), "frame {i}: tshark");
    }
    assert!(v6 > 40, "{v6} IPv6 inner frames");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn encapsulated_frames_match_the_model_and_tshark() {
    encapsulated_frames_against_the_model_and_tshark(&mut verilate(&mut EmVxlanEncap::default()));
}

/// The same at 1024 bits (inner lengths 60..=187: every 128-byte residue of the output).
#[test]
fn encapsulated_frames_match_the_model_and_tshark_at_1024_bits() {
    encapsulated_frames_against_the_model_and_tshark(&mut verilate(&mut EmVxlanEncap1024::default()));
}

/// Encapsulation on the host side, then the EM parser's and decapsulation's hardware on the
/// wire side; every fourth frame also goes unencapsulated, and passes unchanged.
fn round_trip<E: CycleSim, P: CycleSim, D: CycleSim>(enc_sim: &mut E, mut sim: P, dec: &mut D) {
    let c = case(200, 2);
    let (enc, _) = run(enc_sim, &c, 85, 75, 5);
    let mut input = vec![];
    let mut want: Vec<(Vec<u8>, Option<usize>)> = vec![];
    for (i, e) in enc.iter().enumerate() {
        input.push(e.clone());
        want.push((c.inner[i].clone(), Some(i)));
        if i % 4 == 0 && c.hdrs[i].dport != VXLAN_PORT {
            input.push(c.inner[i].clone());
            want.push((c.inner[i].clone(), None));
        }
    }
    // the parser
    sim.reset(2);
    let w = sim.port("from_wire");
    sim.set_bit(w, true);
    let mut d = AxisDriver::new(&sim, "s_axis", 90, 6);
    for f in &input {
        d.push(AxisFrame::new(f.clone()));
    }
    let m = AxisMonitor::new(&sim, "m_axis", 80, 7);
    let mut hm = ChanMonitor::new(&sim, "m_hdr", 80, 8);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let mut quiet = 0;
    while quiet < 1000 {
        hm.drive(&mut sim);
        let moved = b.step_with(&mut sim, |s| hm.sample(s) | s.get_bit(hm.ports.valid));
        quiet = if moved || !b.drivers[0].idle() { 0 } else { quiet + 1 };
    }
    assert_eq!(b.monitors[0].frames.len(), input.len(), "every frame is accepted");
    let parsed: Vec<EmHdrFields> = hm.seen.iter().map(|(_, w)| EmHdrFields::from_words(w)).collect();
    for (i, (h, (_, k))) in parsed.iter().zip(&want).enumerate() {
        assert_eq!(h.vxlan, k.is_some(), "frame {i}");
        if let Some(k) = *k {
            let (ih, t) = (&c.hdrs[k], &c.tuns[k]);
            assert_eq!((h.vni, h.src, h.dst, h.ttl, h.len as usize), (t.vni, t.sip, t.dip, t.ttl, c.inner[k].len() + 50), "frame {i}: outer");
            assert_eq!(
                (h.i_vlan, h.i_vid, h.i_v6, h.i_src, h.i_dst, h.i_proto, h.i_sport, h.i_dport, h.i_tot),
                (ih.vlan, ih.vid, ih.v6, ih.src, ih.dst, ih.proto, ih.sport, ih.dport, ih.tot),
                "frame {i}: inner"
            );
        }
    }
    // decapsulation, fed the parser's frames and headers
    let sim = dec;
    for (valid, ready, seed) in [(100, 100, 10), (70, 60, 11)] {
        sim.reset(2);
        let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
        for f in &b.monitors[0].frames {
            d.push(AxisFrame::new(f.data.clone()));
        }
        let mut hd = ChanDriver::new(sim, "s_hdr", valid, seed + 1);
        for h in &parsed {
            hd.push(h.to_words());
        }
        let m = AxisMonitor::new(sim, "m_axis", ready, seed + 2);
        let mut hm = ChanMonitor::new(sim, "m_hdr", ready, seed + 3);
        let mut db = StreamBench::new(vec![d], vec![m]);
        let mut quiet = 0;
        while quiet < 100 {
            hd.drive(sim);
            hm.drive(sim);
            let moved = db.step_with(sim, |s| hd.sample(s) | hm.sample(s) | s.get_bit(hm.ports.valid));
            quiet = if moved || !db.drivers[0].idle() || !hd.idle() { 0 } else { quiet + 1 };
            assert!(db.cycles < 2_000_000, "decapsulation stalled");
        }
        let out = &db.monitors[0].frames;
        assert_eq!(out.len(), want.len());
        for (i, (f, (inner, _))) in out.iter().zip(&want).enumerate() {
            assert_eq!(&f.data, inner, "frame {i}: decapsulated, valid {valid}% ready {ready}%");
            let h = EmHdrFields::from_words(&hm.seen[i].1);
            assert_eq!(h.len as usize, inner.len(), "frame {i}: header length");
        }
    }
}

#[test]
fn encapsulate_parse_decapsulate_round_trip() {
    round_trip(&mut verilate(&mut EmVxlanEncap::default()), verilate(&mut EmParse::default()), &mut verilate(&mut EmVxlanDecap::default()));
}

#[test]
fn encapsulate_parse_decapsulate_round_trip_at_1024_bits() {
    round_trip(&mut verilate(&mut EmVxlanEncap1024::default()), verilate(&mut EmParse1024::default()), &mut verilate(&mut EmVxlanDecap1024::default()));
}

#[test]
fn lock_step() {
    let mut sim = Diff::new(verilate(&mut EmVxlanEncap::default()), RustHdlSim::new(EmVxlanEncap::default()));
    let mut c = case(10, 3);
    c.inner.truncate(30);
    c.hdrs.truncate(30);
    c.tuns.truncate(30);
    c.want.truncate(30);
    let (out, _) = run(&mut sim, &c, 70, 60, 9);
    assert_eq!(out, c.want);
    let mut sim = Diff::new(verilate(&mut EmVxlanEncap1024::default()), RustHdlSim::new(EmVxlanEncap1024::default()));
    let (out, _) = run(&mut sim, &c, 70, 60, 10);
    assert_eq!(out, c.want);
}
