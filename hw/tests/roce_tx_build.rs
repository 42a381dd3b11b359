//! TX deparser on Verilator: every frame equals, byte for byte, the golden model's frame
//! (etherparse builds the headers and the IPv4 checksum, the `crc` crate the ICRC), passes
//! scapy's ICRC check, and decodes in tshark to the fields we asked for. Random gaps and
//! backpressure on every port, every payload residue; lock step against rust-hdl.
mod common;
use nicgen_hw::roce::tx::build::*;
use nicgen_model::pcap::*;
use nicgen_model::*;
use nicgen_sim::axis::*;
use nicgen_sim::chan::ChanDriver;
use nicgen_sim::oracle::*;
use nicgen_sim::*;

const OPS: [u8; 9] = [
    opcode::WRITE_FIRST,
    opcode::WRITE_MIDDLE,
    opcode::WRITE_LAST,
    opcode::WRITE_ONLY,
    opcode::READ_REQUEST,
    opcode::READ_RESP_FIRST,
    opcode::READ_RESP_MIDDLE,
    opcode::READ_RESP_LAST,
    opcode::ACK,
];

fn random_tx(rng: &mut Rng, i: usize) -> (TxFields, Vec<u8>) {
    let op = OPS[rng.below(OPS.len() as u64) as usize];
    let v6 = rng.chance(40);
    let payload = OpcodeLayout::of(op).unwrap().payload;
    let plen = if !payload {
        0
    } else if i < 260 {
        i % 130
    } else {
        rng.below(4097) as usize
    };
    let f = TxFields {
        opcode: op,
        se: rng.chance(50),
        ackreq: rng.chance(50),
        pkey: rng.next_u64() as u16,
        dqpn: rng.below(1 << 24) as u32,
        psn: rng.below(1 << 24) as u32,
        va: rng.next_u64(),
        rkey: rng.next_u64() as u32,
        dma_len: rng.next_u64() as u32,
        syndrome: rng.next_u64() as u8,
        msn: rng.below(1 << 24) as u32,
        ipv6: v6,
        src_ip: if v6 { (rng.next_u64() as u128) << 64 | rng.next_u64() as u128 } else { rng.next_u64() as u32 as u128 },
        dst_ip: if v6 { (rng.next_u64() as u128) << 64 | rng.next_u64() as u128 } else { rng.next_u64() as u32 as u128 },
        src_mac: rng.next_u64() & 0xffff_ffff_ffff,
        dst_mac: rng.next_u64() & 0xffff_ffff_ffff,
        udp_sport: rng.range(49152, 65535) as u16,
        dscp: rng.below(64) as u8,
        ecn: rng.below(4) as u8,
        ttl: rng.range(1, 255) as u8,
        flow: rng.below(1 << 20) as u32,
        plen: plen as u16,
    };
    (f, rng.bytes(plen))
}

/// The frame the golden model builds for the same fields.
fn golden(f: &TxFields, payload: &[u8]) -> Vec<u8> {
    let ip = if f.ipv6 {
        IpHdr::V6 { src: f.src_ip.to_be_bytes(), dst: f.dst_ip.to_be_bytes(), tclass: f.dscp << 2 | f.ecn, flow: f.flow, hlim: f.ttl }
    } else {
        IpHdr::V4 { src: (f.src_ip as u32).to_be_bytes(), dst: (f.dst_ip as u32).to_be_bytes(), dscp: f.dscp, ecn: f.ecn, ttl: f.ttl, id: 0 }
    };
    let mut h = RoceHeaders::new(ip, f.opcode, f.dqpn, f.psn);
    h.src_mac.copy_from_slice(&f.src_mac.to_be_bytes()[2..]);
    h.dst_mac.copy_from_slice(&f.dst_mac.to_be_bytes()[2..]);
    h.udp_sport = f.udp_sport;
    h.bth.se = f.se;
    h.bth.ackreq = f.ackreq;
    h.bth.pkey = f.pkey;
    if let Some(r) = &mut h.reth {
        *r = Reth { va: f.va, rkey: f.rkey, dma_len: f.dma_len };
    }
    if let Some(a) = &mut h.aeth {
        *a = Aeth { syndrome: f.syndrome, msn: f.msn };
    }
    h.build(payload)
}

fn run_build<S: CycleSim>(sim: &mut S, reqs: &[(TxFields, Vec<u8>)], valid: u32, ready: u32, seed: u64) -> Vec<Vec<u8>> {
    sim.reset(2);
    let d = AxisDriver::new(sim, "s_axis", valid, seed);
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 1);
    let mut hd = ChanDriver::new(sim, "hdr", valid, seed + 2);
    let mut b = StreamBench::new(vec![d], vec![m]);
    for (f, p) in reqs {
        hd.push(f.to_words());
        if !p.is_empty() {
            b.drivers[0].push(AxisFrame::new(p.clone()));
        }
    }
    let mut quiet = 0;
    while quiet < 40 {
        hd.drive(sim);
        let moved = b.step_with(sim, |s| hd.sample(s));
        quiet = if moved || !b.drivers[0].idle() || !hd.idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 3_000_000, "deparser stalled");
    }
    b.monitors[0].frames.iter().map(|f| f.data.clone()).collect()
}

fn case(n: usize, seed: u64) -> (Vec<(TxFields, Vec<u8>)>, Vec<Vec<u8>>) {
    let mut rng = Rng::new(seed);
    let reqs: Vec<_> = (0..n).map(|i| random_tx(&mut rng, i)).collect();
    let want = reqs.iter().map(|(f, p)| golden(f, p)).collect();
    (reqs, want)
}

#[test]
fn model_packs_like_golden() {
    let (reqs, want) = case(500, 1);
    for ((f, p), w) in reqs.iter().zip(&want) {
        let (bytes, n) = pack(f);
        assert_eq!(&bytes[..n], &w[..n], "{f:x?}");
        assert_eq!(w.len(), n + p.len() + derive(f).pad as usize + 4);
    }
}

#[test]
fn frames_match_golden_model_under_backpressure() {
    let mut sim = verilate(&mut RoceTxBuild::default());
    let (reqs, want) = case(600, 2);
    for (seed, v, r) in [(1, 100, 100), (2, 50, 40), (3, 90, 60)] {
        let got = run_build(&mut sim, &reqs, v, r, seed);
        assert_eq!(got.len(), want.len(), "seed {seed}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "seed {seed} frame {i}: {:x?}", reqs[i].0);
        }
    }
}

#[test]
fn lock_step() {
    let mut sim = Diff::new(verilate(&mut RoceTxBuild::default()), RustHdlSim::new(RoceTxBuild::default()));
    let (reqs, want) = case(20, 3);
    assert_eq!(run_build(&mut sim, &reqs, 80, 70, 4), want);
}

#[test]
fn frames_pass_scapy_and_tshark() {
    let mut sim = verilate(&mut RoceTxBuild::default());
    let (reqs, _) = case(300, 5);
    let got = run_build(&mut sim, &reqs, 90, 90, 6);
    for (i, v) in scapy_check(&got).unwrap().iter().enumerate() {
        assert_eq!(*v, ScapyVerdict::Ok, "frame {i}");
    }
    let dir = std::env::temp_dir().join(format!("nicgen-txbuild-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tx.pcap");
    let caps: Vec<Captured> = got.iter().enumerate().map(|(i, f)| Captured { ts_ns: 1000 * i as u64, data: f.clone() }).collect();
    write_pcap(&path, &caps).unwrap();
    let fields = [
        "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.padcnt", "infiniband.bth.p_key", "infiniband.bth.destqp",
        "infiniband.bth.a", "infiniband.bth.psn", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
        "infiniband.aeth.syndrome", "infiniband.aeth.msn", "udp.srcport", "ip.ttl", "ipv6.hlim",
    ];
    let rows = tshark_fields(&path, &fields).unwrap();
    assert_eq!(rows.len(), reqs.len());
    let num = |s: &str| -> u64 {
        if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16).unwrap() } else { s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}")) }
    };
    for (i, ((f, _), r)) in reqs.iter().zip(&rows).enumerate() {
        let ctx = format!("frame {i} {f:x?}: {r:?}");
        let l = OpcodeLayout::of(f.opcode).unwrap();
        assert_eq!(num(&r[0]), f.opcode as u64, "{ctx}");
        assert_eq!(num(&r[1]), f.se as u64, "{ctx}");
        assert_eq!(num(&r[2]), derive(f).pad as u64, "{ctx}");
        assert_eq!(num(&r[3]), f.pkey as u64, "{ctx}");
        assert_eq!(num(&r[4]), f.dqpn as u64, "{ctx}");
        assert_eq!(num(&r[5]), f.ackreq as u64, "{ctx}");
        assert_eq!(num(&r[6]), f.psn as u64, "{ctx}");
        if l.reth {
            assert_eq!((num(&r[7]), num(&r[8]), num(&r[9])), (f.va, f.rkey as u64, f.dma_len as u64), "{ctx}");
        } else {
            assert!(r[7].is_empty(), "{ctx}");
        }
        if l.aeth {
            assert_eq!((num(&r[10]), num(&r[11])), (f.syndrome as u64, f.msn as u64), "{ctx}");
        } else {
            assert!(r[10].is_empty(), "{ctx}");
        }
        assert_eq!(num(&r[12]), f.udp_sport as u64, "{ctx}");
        assert_eq!(num(if f.ipv6 { &r[14] } else { &r[13] }), f.ttl as u64, "{ctx}");
    }
}
