//! The golden model checked against code we did not write: scapy (ICRC, frames built by another
//! stack) and tshark (field dissection).
use nicgen_model::pcap::{read_pcap, write_pcap, Captured};
use nicgen_model::*;
use nicgen_sim::frames::*;
use nicgen_sim::oracle::*;
use nicgen_sim::Rng;

#[test]
fn model_icrc_matches_scapy_on_2000_frames() {
    let mut rng = Rng::new(2024);
    let frames: Vec<Vec<u8>> = (0..2000).map(|_| random_roce_frame(&mut rng, 9216)).collect();
    let v = scapy_check(&frames).unwrap();
    for (i, (f, r)) in frames.iter().zip(&v).enumerate() {
        assert_eq!(*r, ScapyVerdict::Ok, "frame {i} ({} bytes, opcode 0x{:02x})", f.len(), parse(f).unwrap().hdr.bth.opcode);
    }
    // and the oracle is not a rubber stamp: a corrupted ICRC is reported bad
    let mut bad = frames[0].clone();
    let n = bad.len();
    bad[n - 1] ^= 0x10;
    assert!(matches!(scapy_check(&[bad]).unwrap()[0], ScapyVerdict::Bad { .. }));
}

#[test]
fn scapy_frames_pass_the_model() {
    let frames = scapy_build(2000, 7).unwrap();
    let mut ops = std::collections::BTreeSet::new();
    let (mut v4, mut v6) = (0, 0);
    for (i, f) in frames.iter().enumerate() {
        let c = check_icrc(f).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        assert!(c.ok(), "frame {i}: {c:?}");
        let p = parse(f).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        ops.insert(p.hdr.bth.opcode);
        match p.hdr.ip {
            IpHdr::V4 { .. } => v4 += 1,
            IpHdr::V6 { .. } => v6 += 1,
        }
        // rebuilding from the parsed fields reproduces scapy's bytes exactly
        assert_eq!(&p.hdr.build(&p.payload), f, "frame {i} rebuild");
    }
    assert_eq!(ops.len(), opcode::ALL_RC.len(), "every RC opcode seen");
    assert!(v4 > 800 && v6 > 800);
}

#[test]
fn every_single_bit_flip_is_detected() {
    let mut rng = Rng::new(3);
    for _ in 0..20 {
        let f = random_roce_frame(&mut rng, 600);
        let covered = check_icrc(&f).unwrap();
        assert!(covered.ok());
        let (l4, _) = locate_udp(&f).unwrap();
        for bit in 0..f.len() * 8 {
            let byte = bit / 8;
            // flips in masked fields (and the Ethernet header) are invisible to the ICRC by design
            let masked = byte < 14
                || (f[12] == 0x08 && [15, 22, 24, 25].contains(&byte))
                || (f[12] == 0x86 && (byte == 14 && bit % 8 < 4 || (15..=17).contains(&byte) || byte == 21))
                || byte == l4 + 6
                || byte == l4 + 7
                || byte == l4 + 12;
            let mut g = f.clone();
            g[byte] ^= 1 << (bit % 8);
            match check_icrc(&g) {
                Ok(c) => assert_eq!(c.ok(), masked, "bit {bit} of {}", f.len()),
                Err(_) => {} // the flip broke the L2-L4 headers: no longer a RoCE frame at all
            }
        }
    }
}

#[test]
fn tshark_decodes_every_field_of_a_model_pcap() {
    let mut rng = Rng::new(11);
    let mut frames = vec![];
    for (k, &op) in opcode::ALL_RC.iter().enumerate() {
        for v6 in [false, true] {
            let mut h = random_headers(&mut rng);
            let ip = if v6 { IpHdr::V6 { src: [0xfd; 16], dst: [0xfe; 16], tclass: 3, flow: 5, hlim: 64 } } else { IpHdr::V4 { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], dscp: 26, ecn: 1, ttl: 64, id: k as u16 } };
            let mut n = RoceHeaders::new(ip, op, h.bth.dqpn, h.bth.psn);
            n.bth = h.bth;
            n.bth.opcode = op;
            h = n;
            if let Some(r) = &mut h.reth {
                *r = Reth { va: rng.next_u64(), rkey: rng.next_u64() as u32, dma_len: 4096 + k as u32 };
            }
            if let Some(a) = &mut h.aeth {
                *a = Aeth { syndrome: 0x1f, msn: 100 + k as u32 };
            }
            if let Some(i) = &mut h.immdt {
                *i = 0xabcd0000 + k as u32;
            }
            if let Some(i) = &mut h.ieth {
                *i = 0x1234_0000 + k as u32;
            }
            let len = random_payload_len(&mut rng, op, 1000);
            frames.push((h.clone(), h.build(&rng.bytes(len))));
        }
    }
    let dir = std::env::temp_dir().join(format!("nicgen-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.pcap");
    let caps: Vec<Captured> = frames.iter().enumerate().map(|(i, (_, f))| Captured { ts_ns: 1_000_000_007 * i as u64 + 3, data: f.clone() }).collect();
    write_pcap(&path, &caps).unwrap();
    assert_eq!(read_pcap(&path).unwrap(), caps, "PCAP round trip keeps ns timestamps");
    let fields = [
        "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.tver",
        "infiniband.bth.p_key", "infiniband.bth.destqp", "infiniband.bth.a", "infiniband.bth.psn",
        "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
        "infiniband.aeth.msn", "infiniband.immdt", "infiniband.ieth", "udp.srcport", "udp.dstport",
        "frame.time_epoch",
    ];
    let rows = tshark_fields(&path, &fields).unwrap();
    assert_eq!(rows.len(), frames.len());
    let num = |s: &str| -> u64 {
        if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16).unwrap() } else { s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}")) }
    };
    for (i, ((h, f), r)) in frames.iter().zip(&rows).enumerate() {
        let p = parse(f).unwrap();
        let b = p.hdr.bth;
        let ctx = format!("frame {} opcode 0x{:02x}: {r:?}", i + 1, b.opcode);
        assert_eq!(num(&r[0]), b.opcode as u64, "{ctx}");
        assert_eq!(num(&r[1]), b.se as u64, "{ctx}");
        assert_eq!(num(&r[2]), b.migreq as u64, "{ctx}");
        assert_eq!(num(&r[3]), b.pad as u64, "{ctx}");
        assert_eq!(num(&r[4]), b.tver as u64, "{ctx}");
        assert_eq!(num(&r[5]), b.pkey as u64, "{ctx}");
        assert_eq!(num(&r[6]), b.dqpn as u64, "{ctx}");
        assert_eq!(num(&r[7]), b.ackreq as u64, "{ctx}");
        assert_eq!(num(&r[8]), b.psn as u64, "{ctx}");
        match &h.reth {
            Some(x) => {
                assert_eq!(num(&r[9]), x.va, "{ctx}");
                assert_eq!(num(&r[10]), x.rkey as u64, "{ctx}");
                assert_eq!(num(&r[11]), x.dma_len as u64, "{ctx}");
            }
            None => match &h.atomic {
                // Wireshark shows the AtomicETH's VA and R_Key under the RETH field names
                Some(a) if a.len() == ATOMIC_ETH_LEN => {
                    assert_eq!(num(&r[9]), u64::from_be_bytes(a[0..8].try_into().unwrap()), "{ctx}");
                    assert_eq!(num(&r[10]), u32::from_be_bytes(a[8..12].try_into().unwrap()) as u64, "{ctx}");
                }
                _ => assert!(r[9].is_empty(), "{ctx}"),
            },
        }
        match &h.aeth {
            Some(x) => {
                assert_eq!(num(&r[12]), x.syndrome as u64, "{ctx}");
                assert_eq!(num(&r[13]), x.msn as u64, "{ctx}");
            }
            None => assert!(r[12].is_empty(), "{ctx}"),
        }
        match h.immdt {
            Some(x) => assert_eq!(u64::from_str_radix(r[14].trim_start_matches("0x"), 16).unwrap(), x as u64, "{ctx}"),
            None => assert!(r[14].is_empty(), "{ctx}"),
        }
        match h.ieth {
            Some(x) => assert_eq!(u64::from_str_radix(r[15].trim_start_matches("0x"), 16).unwrap(), x as u64, "{ctx}"),
            None => assert!(r[15].is_empty(), "{ctx}"),
        }
        assert_eq!(num(&r[16]), h.udp_sport as u64, "{ctx}");
        assert_eq!(num(&r[17]), 4791, "{ctx}");
        assert_eq!(r[18], format!("{}.{:09}", caps[i].ts_ns / 1_000_000_000, caps[i].ts_ns % 1_000_000_000), "{ctx}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
