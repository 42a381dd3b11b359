//! Random RoCEv2 stimulus built with the golden model.
use crate::rng::Rng;
use nicgen_model::*;

/// Random headers for a random RC opcode, IPv4 or IPv6, with random field values.
pub fn random_headers(rng: &mut Rng) -> RoceHeaders {
    let op = opcode::ALL_RC[rng.below(opcode::ALL_RC.len() as u64) as usize];
    let ip = if rng.chance(50) {
        IpHdr::V4 {
            src: (rng.next_u64() as u32).to_be_bytes(),
            dst: (rng.next_u64() as u32).to_be_bytes(),
            dscp: rng.below(64) as u8,
            ecn: rng.below(4) as u8,
            ttl: rng.range(1, 255) as u8,
            id: rng.next_u64() as u16,
        }
    } else {
        let mut src = [0u8; 16];
        let mut dst = [0u8; 16];
        src.copy_from_slice(&rng.bytes(16));
        dst.copy_from_slice(&rng.bytes(16));
        IpHdr::V6 { src, dst, tclass: rng.next_u64() as u8, flow: rng.below(1 << 20) as u32, hlim: rng.range(1, 255) as u8 }
    };
    let mut h = RoceHeaders::new(ip, op, rng.below(1 << 24) as u32, rng.below(1 << 24) as u32);
    h.src_mac.copy_from_slice(&rng.bytes(6));
    h.dst_mac.copy_from_slice(&rng.bytes(6));
    h.udp_sport = rng.range(49152, 65535) as u16;
    h.udp_csum = if rng.chance(50) { 0 } else { rng.next_u64() as u16 };
    h.bth.se = rng.chance(50);
    h.bth.migreq = rng.chance(50);
    h.bth.pkey = rng.next_u64() as u16;
    h.bth.fecn = rng.chance(30);
    h.bth.becn = rng.chance(30);
    h.bth.ackreq = rng.chance(50);
    if let Some(r) = &mut h.reth {
        *r = Reth { va: rng.next_u64(), rkey: rng.next_u64() as u32, dma_len: rng.below(1 << 31) as u32 };
    }
    if let Some(a) = &mut h.aeth {
        *a = Aeth { syndrome: rng.next_u64() as u8, msn: rng.below(1 << 24) as u32 };
    }
    if let Some(i) = &mut h.immdt {
        *i = rng.next_u64() as u32;
    }
    if let Some(i) = &mut h.ieth {
        *i = rng.next_u64() as u32;
    }
    if let Some(a) = &mut h.atomic {
        let n = a.len();
        *a = rng.bytes(n);
    }
    h
}

/// A random payload length for `op`: zero for opcodes without payload, else biased to short.
pub fn random_payload_len(rng: &mut Rng, op: u8, max: usize) -> usize {
    if !OpcodeLayout::of(op).unwrap().payload {
        return 0;
    }
    match rng.below(3) {
        0 => rng.below(65) as usize,
        1 => rng.below(301) as usize,
        _ => rng.below(max as u64 + 1) as usize,
    }
}

/// A whole random RoCEv2 frame with a correct ICRC; total length at most `max_len`.
pub fn random_roce_frame(rng: &mut Rng, max_len: usize) -> Vec<u8> {
    let h = random_headers(rng);
    let overhead = h.build(&[]).len();
    let n = random_payload_len(rng, h.bth.opcode, max_len.saturating_sub(overhead + 3));
    h.build(&rng.bytes(n))
}
