//! AES-CTR payload encryption (the engine's on-datapath service): the counter block, the PSN
//! extension that makes it unique across PSN wrap-around, and the keystream, computed with
//! RustCrypto's `aes` and `ctr` (the independent reference the hardware is checked against).
//!
//! **Counter block** (128 bits, big-endian, the initial counter of one packet's payload; AES-CTR
//! then counts the block index up by one per 16 bytes, as NIST SP 800-38A's standard
//! incrementing function on the low bits):
//!
//! | bits | field |
//! |---|---|
//! | 127..120 | key id |
//! | 119 | kind: 0 request data (WRITE), 1 response data (READ RESPONSE) |
//! | 118 | side of the PSN space's owner (each end of a connection has one side bit, the ends differ) |
//! | 117..94 | owner QPN: the QP that issued the request, whose PSN space the packet is in |
//! | 93..70 | owner generation: advances every time that QPN is set up again |
//! | 69..40 | PSN wrap count (30 bits): how often the owner's 24-bit PSN has wrapped |
//! | 39..16 | PSN |
//! | 15..0 | block index in the payload (0 at the first payload byte) |
//!
//! Both ends compute the same block: a WRITE is in the requester's PSN space (owner: the sender;
//! at the receiver, the peer), a READ RESPONSE in the reading requester's space (owner: the
//! receiver; at the sender, the peer). Each QP's context holds its key id, side bit, its own
//! generation (the hardware advances it at every setup) and the peer's QPN and generation.
pub use aes::{Aes128, Aes256};
use ctr::cipher::{KeyIvInit, StreamCipher};

/// The fields of one packet's counter block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CtrBlock {
    pub key_id: u8,
    /// The payload is response data (READ RESPONSE).
    pub resp: bool,
    pub side: bool,
    pub qpn: u32,
    pub gen: u32,
    pub wrap: u32,
    pub psn: u32,
}

impl CtrBlock {
    /// The 128-bit initial counter, big-endian, block index 0.
    pub fn iv(&self) -> [u8; 16] {
        let v: u128 = (self.key_id as u128) << 120
            | (self.resp as u128) << 119
            | (self.side as u128) << 118
            | ((self.qpn & 0xff_ffff) as u128) << 94
            | ((self.gen & 0xff_ffff) as u128) << 70
            | ((self.wrap & 0x3fff_ffff) as u128) << 40
            | ((self.psn & 0xff_ffff) as u128) << 16;
        v.to_be_bytes()
    }
}

/// One end's AES context of a QP, as the hardware's QP context holds it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct QpCrypto {
    pub key_id: u8,
    /// This end's QPN, generation and side bit.
    pub qpn: u32,
    pub gen: u32,
    pub side: bool,
    /// The peer's QPN and generation.
    pub peer_qpn: u32,
    pub peer_gen: u32,
}

impl QpCrypto {
    /// The counter block of a payload passing this end's TX slot (`rx` false) or RX slot. The
    /// payload is in its owner's PSN space: TX request data and RX response data are this QP's,
    /// the other two the peer's (with the other side bit).
    pub fn block(&self, rx: bool, resp: bool, wrap: u32, psn: u32) -> CtrBlock {
        let own = resp == rx;
        CtrBlock {
            key_id: self.key_id,
            resp,
            side: if own { self.side } else { !self.side },
            qpn: if own { self.qpn } else { self.peer_qpn },
            gen: if own { self.gen } else { self.peer_gen },
            wrap,
            psn,
        }
    }
}

/// An AES key of either size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    Aes128([u8; 16]),
    Aes256([u8; 32]),
}

impl Key {
    /// The key as the hardware's key registers hold it: eight 32-bit words, the key's first
    /// byte in the most significant byte of word 0; an AES-128 key fills words 0..3.
    pub fn words(&self) -> [u32; 8] {
        let b: &[u8] = match self {
            Key::Aes128(k) => k,
            Key::Aes256(k) => k,
        };
        let mut w = [0u32; 8];
        for (i, c) in b.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        w
    }
    pub fn is_256(&self) -> bool {
        matches!(self, Key::Aes256(_))
    }
}

/// Encrypt or decrypt `data` in place with AES-CTR from counter `iv` (RustCrypto, 128-bit
/// big-endian counter).
pub fn ctr_xor(key: &Key, iv: [u8; 16], data: &mut [u8]) {
    match key {
        Key::Aes128(k) => ctr::Ctr128BE::<Aes128>::new(k.into(), &iv.into()).apply_keystream(data),
        Key::Aes256(k) => ctr::Ctr128BE::<Aes256>::new(k.into(), &iv.into()).apply_keystream(data),
    }
}

/// The wrap count of each PSN a QP direction sees, from the sequence of PSNs themselves: the
/// PSN's top two bits (its quadrant) are compared with the newest quadrant seen. Correct while
/// every PSN seen is within a quarter of the PSN space (2^22) of the newest one, which the RC
/// window (far smaller) guarantees; the first PSN seen has wrap count 0.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PsnExt {
    pub set: bool,
    pub quad: u8,
    pub wrap: u32,
}

impl PsnExt {
    /// The wrap count of `psn`, and the state after seeing it.
    pub fn see(&self, psn: u32) -> (u32, PsnExt) {
        let p = ((psn >> 22) & 3) as u8;
        if !self.set {
            return (0, PsnExt { set: true, quad: p, wrap: 0 });
        }
        let w = self.wrap;
        match (self.quad, p) {
            (3, 0) => {
                let n = w.wrapping_add(1) & 0x3fff_ffff;
                (n, PsnExt { set: true, quad: 0, wrap: n })
            }
            (0, 3) => (w.wrapping_sub(1) & 0x3fff_ffff, *self),
            (q, p) if p == (q + 1) & 3 => (w, PsnExt { set: true, quad: p, wrap: w }),
            _ => (w, *self),
        }
    }
}

/// Opcodes whose payload is response data.
pub fn is_resp_opcode(opcode: u8) -> bool {
    (crate::opcode::READ_RESP_FIRST..=crate::opcode::READ_RESP_ONLY).contains(&opcode)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// NIST SP 800-38A F.5.1 and F.5.5 (CTR-AES128 and CTR-AES256 encrypt).
    #[test]
    fn nist_sp800_38a_ctr_vectors() {
        let pt = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
        let iv: [u8; 16] = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff").try_into().unwrap();
        let k128 = Key::Aes128(hex("2b7e151628aed2a6abf7158809cf4f3c").try_into().unwrap());
        let mut d = pt.clone();
        ctr_xor(&k128, iv, &mut d);
        assert_eq!(d, hex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"));
        let k256 = Key::Aes256(hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4").try_into().unwrap());
        let mut d = pt.clone();
        ctr_xor(&k256, iv, &mut d);
        assert_eq!(d, hex("601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"));
    }

    /// The nonce-uniqueness property: two nodes share one key for all their QPs (per tenant);
    /// QP pairs carry WRITEs and READs both ways from PSNs just before the wrap, retransmit
    /// random packets (the same data again) and are torn down and set up again on the same
    /// QPNs. Every 16-byte block any sender encrypts gets a (key, counter) pair that no other
    /// plaintext block ever gets.
    #[test]
    fn nonce_uniqueness_property() {
        use std::collections::HashMap;
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut rnd = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        // (counter block of one 16-byte block) -> the plaintext block it encrypted
        let mut used: HashMap<[u8; 16], [u8; 16]> = HashMap::new();
        let mut blocks = 0usize;
        // the QP pairs: QPN on node 0 and node 1; generation counters per node and QPN
        let pairs = [(3u32, 7u32), (7, 3), (4, 4), (9, 12)];
        let mut gen: [HashMap<u32, u32>; 2] = [HashMap::new(), HashMap::new()];
        for _incarnation in 0..3 {
            // setup: both ends advance their own generation and learn the peer's
            let conns: Vec<[QpCrypto; 2]> = pairs
                .iter()
                .map(|&(a, b)| {
                    let ga = *gen[0].entry(a).and_modify(|g| *g += 1).or_insert(1);
                    let gb = *gen[1].entry(b).and_modify(|g| *g += 1).or_insert(1);
                    // node 0 takes side bit 0, node 1 side bit 1
                    [QpCrypto { key_id: 1, qpn: a, gen: ga, side: false, peer_qpn: b, peer_gen: gb }, QpCrypto { key_id: 1, qpn: b, gen: gb, side: true, peer_qpn: a, peer_gen: ga }]
                })
                .collect();
            for (ci, c) in conns.iter().enumerate() {
                // each node's requester PSN space starts just before the wrap
                let mut next = [0xff_ff00u32 + ci as u32, 0xff_ff80 + ci as u32];
                let mut ext = [[PsnExt::default(); 2]; 2]; // [sender][kind]
                let mut sent: Vec<(usize, bool, u32, Vec<u8>)> = vec![];
                for _ in 0..400 {
                    let req = rnd(2) as usize; // the requester node
                    let resp = rnd(2) == 1; // READ (response data from the peer) or WRITE
                    let psn = next[req];
                    next[req] = (next[req] + 1) & 0xff_ffff;
                    let sender = if resp { 1 - req } else { req };
                    let data: Vec<u8> = (0..16 * (1 + rnd(4) as usize)).map(|_| rnd(256) as u8).collect();
                    sent.push((sender, resp, psn, data));
                    // now and then a retransmission of a recent packet: its own data again
                    if rnd(5) == 0 {
                        let k = sent.len() - 1 - rnd(sent.len().min(12) as u64) as usize;
                        let again = sent[k].clone();
                        sent.push(again);
                    }
                }
                for (sender, resp, psn, data) in sent {
                    // the sender's TX slot
                    let st = &mut ext[sender][resp as usize];
                    let (wrap, n) = st.see(psn);
                    *st = n;
                    let b = c[sender].block(false, resp, wrap, psn);
                    let iv = u128::from_be_bytes(b.iv());
                    for (i, blk) in data.chunks(16).enumerate() {
                        let ctr = (iv + i as u128).to_be_bytes();
                        let blk: [u8; 16] = blk.try_into().unwrap();
                        let prev = used.entry(ctr).or_insert(blk);
                        assert_eq!(*prev, blk, "a counter block was used for two plaintexts");
                        blocks += 1;
                    }
                }
            }
        }
        assert!(blocks > 10_000 && used.len() > 8_000, "{blocks} blocks, {} counters", used.len());
    }

    #[test]
    fn psn_extension_across_the_wrap() {
        let mut s = PsnExt::default();
        let mut ext = Vec::new();
        // forward through a wrap, with a retransmission of pre-wrap PSNs after it
        for psn in [0xff_fff0u32, 0xff_fff8, 0xff_ffff, 0x00_0004, 0x00_0010, 0xff_fffa, 0x00_0011] {
            let (w, n) = s.see(psn);
            ext.push(((w as u64) << 24) | psn as u64);
            s = n;
        }
        assert_eq!(ext, [0xff_fff0, 0xff_fff8, 0xff_ffff, 0x100_0004, 0x100_0010, 0xff_fffa, 0x100_0011]);
        // a QP that starts in the last quadrant and crosses four wraps
        let mut s = PsnExt::default();
        for i in 0..40u64 {
            let true_ext = 0xf0_0000 + i * 0x18_0000;
            let (w, n) = s.see((true_ext & 0xff_ffff) as u32);
            s = n;
            assert_eq!(((w as u64) << 24) | (true_ext & 0xff_ffff), true_ext);
        }
    }
}
