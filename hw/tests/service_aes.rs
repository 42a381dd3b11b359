//! AES-CTR on Verilator, against code we did not write: the cipher pipeline against the NIST
//! SP 800-38A CTR vectors (F.5.1 AES-128, F.5.5 AES-256) and RustCrypto `aes`; the slot (QP
//! contexts, keys, counter blocks, PSN wrap tracking, generations) against RustCrypto `ctr`
//! with the counter blocks of `nicgen_model::aes_ctr`, under random gaps and backpressure at
//! every `tkeep` residue, across PSN wrap-around, retransmission and QPN reuse.
mod common;
use common::*;
use nicgen_hw::service::aes_ctr::*;
use nicgen_hw::service::slot::*;
use nicgen_model::aes_ctr::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;
use std::collections::HashMap;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// A 128-bit big-endian value as little-endian 32-bit words.
fn be_words(b: &[u8]) -> Vec<u32> {
    let v = u128::from_be_bytes(b.try_into().unwrap());
    (0..4).map(|i| (v >> (32 * i)) as u32).collect()
}

/// The cipher's `key` port: bits 255..0 the key (first byte on top; an AES-128 key twice),
/// bit 256 AES-256.
fn key_port(k: &Key) -> Vec<u32> {
    let mut w = k.words();
    if !k.is_256() {
        w.copy_within(0..4, 4);
    }
    let mut v: Vec<u32> = (0..8).map(|i| w[7 - i]).collect();
    v.push(k.is_256() as u32);
    v
}

/// AES_k of one block, by RustCrypto (CTR over 16 zero bytes from that block).
fn aes_block(k: &Key, block: [u8; 16]) -> [u8; 16] {
    let mut z = [0u8; 16];
    ctr_xor(k, block, &mut z);
    z
}

/// The four keystream blocks the cipher must give for `ctr` (low 16 bits counting).
fn want_ks(k: &Key, ctr: [u8; 16]) -> Vec<u32> {
    let mut w = vec![];
    for j in 0..4u16 {
        let mut b = ctr;
        let lo = u16::from_be_bytes([b[14], b[15]]).wrapping_add(j);
        b[14..].copy_from_slice(&lo.to_be_bytes());
        w.extend(be_words(&aes_block(k, b)));
    }
    w
}

#[test]
fn cipher_matches_nist_vectors_and_rustcrypto_one_beat_per_cycle() {
    let mut sim = verilate(&mut AesCipher4::<{ kind::AES }>::default());
    sim.reset(2);
    let (pv, pc, pk, pks, pov) = (sim.port("in_valid"), sim.port("ctr"), sim.port("key"), sim.port("ks"), sim.port("out_valid"));
    // NIST SP 800-38A F.5.1 / F.5.5: one beat holds the four counter blocks
    let pt = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
    let ctr: [u8; 16] = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff").try_into().unwrap();
    let nist = [
        (Key::Aes128(hex("2b7e151628aed2a6abf7158809cf4f3c").try_into().unwrap()), "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"),
        (Key::Aes256(hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4").try_into().unwrap()), "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"),
    ];
    // then random keys of both sizes and random counters, one per cycle with random gaps
    let mut rng = Rng::new(77);
    let mut jobs: Vec<(Key, [u8; 16])> = nist.iter().map(|(k, _)| (k.clone(), ctr)).collect();
    for i in 0..400 {
        let k = if i % 2 == 0 { Key::Aes128(rng.bytes(16).try_into().unwrap()) } else { Key::Aes256(rng.bytes(32).try_into().unwrap()) };
        jobs.push((k, rng.bytes(16).try_into().unwrap()));
    }
    let mut sent: Vec<(u64, usize)> = vec![];
    let mut got: Vec<(u64, Vec<u32>)> = vec![];
    let (mut next, mut cyc) = (0usize, 0u64);
    while got.len() < jobs.len() {
        let go = next < jobs.len() && (next < 60 || rng.chance(70));
        sim.set_bit(pv, go);
        if go {
            sim.set(pc, &be_words(&jobs[next].1));
            sim.set(pk, &key_port(&jobs[next].0));
            sent.push((cyc, next));
            next += 1;
        }
        sim.eval();
        if sim.get_bit(pov) {
            got.push((cyc, sim.get_words(pks)));
        }
        sim.tick();
        cyc += 1;
        assert!(cyc < 10_000);
    }
    for ((c_in, i), (c_out, ks)) in sent.iter().zip(&got) {
        assert_eq!(c_out - c_in, CIPHER_LATENCY as u64, "job {i}: latency");
        assert_eq!(ks, &want_ks(&jobs[*i].0, jobs[*i].1), "job {i}: keystream differs from RustCrypto");
    }
    // the NIST ciphertexts themselves: plaintext XOR the hardware's keystream
    for (i, (_, ct)) in nist.iter().enumerate() {
        let ks = &got[i].1;
        let mut out = vec![];
        for j in 0..4 {
            let v: u128 = (0..4).map(|w| (ks[4 * j + w] as u128) << (32 * w)).sum();
            out.extend(v.to_be_bytes());
        }
        let c: Vec<u8> = pt.iter().zip(&out).map(|(p, k)| p ^ k).collect();
        assert_eq!(c, hex(ct), "NIST vector {}", ["F.5.1 CTR-AES128", "F.5.5 CTR-AES256"][i]);
    }
}

struct Slot {
    sim: VerilatorSim,
    cfg: usize,
}

impl Slot {
    fn write(&mut self, addr: u8, data: u32) {
        slot_cfg_write(&mut self.sim, self.cfg, addr, data);
    }
    fn key(&mut self, slot: u8, k: &Key) {
        for (i, w) in k.words().iter().enumerate() {
            self.write(reg::KEY_W0 + 4 * i as u8, *w);
        }
        self.write(reg::KEY_CMD, slot as u32 | (k.is_256() as u32) << 8);
    }
    /// Set a QP up (its generation advances); returns the generation.
    fn qp(&mut self, c: &QpCrypto, enable: bool) -> u32 {
        self.write(reg::QP_KEY, c.key_id as u32 | (enable as u32) << 8 | (c.side as u32) << 9);
        self.write(reg::QP_PEER_QPN, c.peer_qpn);
        self.write(reg::QP_PEER_GEN, c.peer_gen);
        self.write(reg::QP_CMD, c.qpn);
        for _ in 0..4 {
            self.sim.eval();
            self.sim.tick();
        }
        let p = self.sim.port("gen");
        self.sim.get_u64(p) as u32
    }
}

/// A packet into the TX slot: its QP, PSN, opcode and payload.
#[derive(Clone)]
struct Pkt {
    qp: usize,
    psn: u32,
    opcode: u8,
    data: Vec<u8>,
}

/// The model: what the TX slot must emit for each packet, in order (RustCrypto keystream from
/// the model's counter block; a QP without encryption passes unchanged).
fn expect(pkts: &[Pkt], qps: &[(QpCrypto, Option<Key>)], ext: &mut HashMap<(u32, bool, u32), PsnExt>) -> Vec<Vec<u8>> {
    pkts.iter()
        .map(|p| {
            let (c, key) = &qps[p.qp];
            let Some(key) = key else { return p.data.clone() };
            let resp = is_resp_opcode(p.opcode);
            let st = ext.entry((c.qpn, resp, c.gen)).or_default();
            let (wrap, next) = st.see(p.psn);
            *st = next;
            let b = c.block(false, resp, wrap, p.psn);
            let mut d = p.data.clone();
            ctr_xor(key, b.iv(), &mut d);
            d
        })
        .collect()
}

fn run(s: &mut Slot, pkts: &[Pkt], qps: &[(QpCrypto, Option<Key>)], valid: u32, ready: u32, seed: u64) -> (Vec<Vec<u8>>, u64) {
    let frames: Vec<AxisFrame> = pkts.iter().map(|p| AxisFrame::new(p.data.clone())).collect();
    let metas: Vec<Vec<u32>> = pkts.iter().map(|p| SlotMetaFields { qpn: qps[p.qp].0.qpn, psn: p.psn, off: 0, opcode: p.opcode }.to_words()).collect();
    // a reset clears the pipeline, not the key, context and wrap tables
    let (out, cycles) = run_with_frame_words(&mut s.sim, "s_meta", &frames, &metas, valid, ready, seed);
    let p = s.sim.port("overrun");
    assert_eq!(s.sim.get_u64(p), 0);
    (out.into_iter().map(|f| f.data).collect(), cycles)
}

#[test]
fn slot_encrypts_like_rustcrypto_across_wrap_retransmission_and_reuse() {
    let mut sim = verilate(&mut AesSlot::default());
    sim.reset(2);
    let cfg = sim.port("cfg");
    let rx = sim.port("rx");
    sim.set_bit(rx, false);
    let mut s = Slot { sim, cfg };
    let mut rng = Rng::new(5);
    let k128 = Key::Aes128(rng.bytes(16).try_into().unwrap());
    let k256 = Key::Aes256(rng.bytes(32).try_into().unwrap());
    s.key(3, &k128);
    s.key(200, &k256);
    let mut qps = vec![
        (QpCrypto { qpn: 5, key_id: 3, side: false, peer_qpn: 0x12_3456, peer_gen: 77, gen: 0 }, Some(k128.clone())),
        (QpCrypto { qpn: 300, key_id: 200, side: true, peer_qpn: 0xab_cdef, peer_gen: 5, gen: 0 }, Some(k256.clone())),
        // set up without encryption: passes unchanged
        (QpCrypto { qpn: 9, key_id: 3, side: false, peer_qpn: 1, peer_gen: 1, gen: 0 }, None),
    ];
    for (c, k) in qps.iter_mut() {
        c.gen = s.qp(c, k.is_some());
        assert_eq!(c.gen, 1, "a first setup gives generation 1");
    }
    // every residue; each QP's PSNs cross the 24-bit wrap; WRITE (request) and READ RESPONSE
    // (response) payloads interleaved; then retransmissions of pre-wrap packets
    let ops = [0x06u8, 0x07, 0x08, 0x0a, 0x0d, 0x0e, 0x0f, 0x10];
    let mut next_psn = [0xff_fff0u32, 0xff_ffe0, 0xff_fffa];
    let mut pkts = vec![];
    for (i, len) in (1..=192usize).chain([4096, 1000, 257, 4095]).enumerate() {
        let q = i % 3;
        pkts.push(Pkt { qp: q, psn: next_psn[q], opcode: ops[rng.below(8) as usize], data: rng.bytes(len) });
        next_psn[q] = (next_psn[q] + 1) & 0xff_ffff;
    }
    let mut rtx: Vec<Pkt> = vec![];
    for q in 0..2 {
        rtx.extend(pkts.iter().filter(|p| p.qp == q && p.psn >= 0xff_fff8).take(6).cloned());
    }
    assert!(rtx.iter().any(|p| p.qp == 0) && rtx.iter().any(|p| p.qp == 1));
    pkts.extend(rtx.iter().cloned());
    let mut ext = HashMap::new();
    let want = expect(&pkts, &qps, &mut ext);
    let mut first_out = vec![];
    for (k, (seed, valid, ready)) in [(1u64, 100, 100), (2, 70, 60), (3, 30, 100), (4, 100, 25)].into_iter().enumerate() {
        // a second pass of the same packets restarts nothing: the wrap state is per QP generation,
        // so each pass after the first re-sets the QPs up (QPN reuse) and gets new keystreams
        let (got, cycles) = run(&mut s, &pkts, &qps, valid, ready, seed);
        let want = if k == 0 { want.clone() } else { expect(&pkts, &qps, &mut ext) };
        assert_eq!(got.len(), pkts.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "pass {k}, packet {i} (QP {}, PSN {:#x}, opcode {:#x}, {} B)", qps[pkts[i].qp].0.qpn, pkts[i].psn, pkts[i].opcode, pkts[i].data.len());
        }
        if k == 0 {
            // one beat per cycle: every beat, plus the pipeline once
            let beats: u64 = pkts.iter().map(|p| p.data.len().div_ceil(64) as u64).sum();
            assert!(cycles <= beats + AES_LATENCY as u64 + 3 + 45, "{cycles} cycles for {beats} beats");
            // a retransmitted packet reuses exactly its keystream
            let n = pkts.len() - rtx.len();
            for (j, r) in rtx.iter().enumerate() {
                let orig = pkts.iter().position(|p| p.qp == r.qp && p.psn == r.psn).unwrap();
                assert_eq!(got[n + j], got[orig], "retransmission of PSN {:#x}", r.psn);
            }
            first_out = got.clone();
        } else {
            // the same PSNs and data under a new generation: no keystream repeats
            for (i, p) in pkts.iter().enumerate() {
                if qps[p.qp].1.is_some() && p.data.len() >= 4 {
                    assert_ne!(got[i], first_out[i], "pass {k}: packet {i} repeated a keystream after QPN reuse");
                }
            }
        }
        // a new connection on a reused QPN: both ends are new incarnations (the peer's
        // generation, learned from the peer, advanced as well)
        for (c, k) in qps.iter_mut() {
            c.peer_gen += 1;
            let g = s.qp(c, k.is_some());
            assert_eq!(g, c.gen + 1, "the generation advances at every setup");
            c.gen = g;
        }
    }
}
