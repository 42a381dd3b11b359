//! The library's small unit checks, kept out of the library so that `cargo test` does not
//! compile the whole of `nicgen-hw` a second time with `cfg(test)` (that second build took
//! 392 s of the release build, for these six tests; `hw/Cargo.toml` sets `test = false`).
use crc::{Crc, CRC_32_ISO_HDLC};
use nicgen_hw::crc::gf2::*;

fn words(b: &[u8; 64]) -> Vec<u64> {
    b.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn raw_crc_matches_the_crc_crate() {
    let c = Crc::<u32>::new(&CRC_32_ISO_HDLC);
    for n in 0..200usize {
        let v: Vec<u8> = (0..n).map(|i| (i * 131 + 7) as u8).collect();
        assert_eq!(!crc32_raw(0xFFFF_FFFF, &v), c.checksum(&v));
    }
}

#[test]
fn matrices_match_bytewise_crc() {
    let m = beat_matrix();
    let a64 = shift_matrix(64);
    let mut x = 0x1234_5678_9abc_def0u64;
    for k in 1..=64usize {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let s = (x >> 17) as u32;
        let mut b = [0u8; 64];
        for (i, v) in b.iter_mut().enumerate().take(k) {
            *v = (x >> (i % 56)) as u8 ^ i as u8;
        }
        let full = a64.apply(&[s as u64]) as u32 ^ m.apply(&words(&b)) as u32;
        let fixed = unshift_matrix(64 - k).apply(&[full as u64]) as u32;
        assert_eq!(fixed, crc32_raw(s, &b[..k]), "k = {k}");
    }
    assert_eq!(crc32_unstep(crc32_raw(0xdead_beef, &[0; 9]), 9), 0xdead_beef);
}

#[test]
fn residue_is_the_known_magic() {
    // the CRC-32 "magic" check value, before the final inversion
    assert_eq!(crc32_residue(), 0xDEBB_20E3);
}

#[test]
fn sbox_matches_fips197() {
    use nicgen_hw::service::aes_ctr::{rcon, sbox};
    let s = sbox();
    assert_eq!(&s[..8], &[0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5]);
    assert_eq!(s[0x53], 0xed);
    assert_eq!(s[0xff], 0x16);
    assert_eq!((1..=10).map(rcon).collect::<Vec<_>>(), [1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36]);
}

#[test]
fn qp_table_widths_match_the_structs() {
    use nicgen_hw::roce::qp::*;
    use rust_hdl::prelude::Synth;
    assert_eq!(<QpCfg as Synth>::BITS, QP_CFG_BITS);
    assert_eq!(<QpRq as Synth>::BITS, QP_RQ_BITS);
    assert_eq!(<QpPath as Synth>::BITS, QP_PATH_BITS);
    assert_eq!((QP_CFG_BITS, QP_RQ_BITS, QP_PATH_BITS), (428, 168, 247));
}

/// Every subset of the services generates an engine that holds exactly its services' logic
/// and lists exactly their registers (the RC tests on each: `scripts/compose.sh`).
#[test]
fn every_subset_of_services_generates() {
    use nicgen_hw::service::aes_ctr::kind;
    use nicgen_hw::top::engine_services_top;
    for svc in 0..=kind::ALL {
        let t = engine_services_top(svc);
        assert_eq!(t.name, format!("roce_engine_svc_{}", kind::name(svc)));
        let has = |p: &str| t.regs.iter().any(|r| r.name.starts_with(p));
        // each service's own table: AES key slots, DLRM operations, DPI policies
        let logic = |m: &str| t.verilog.contains(m);
        for (k, reg, mark) in [(kind::AES, "aes_", "keymem"), (kind::DLRM, "dlrm_", "opmem"), (kind::DPI, "dpi_", "polmem")] {
            assert_eq!(has(reg), svc & k != 0, "{}: registers {reg}", t.name);
            assert_eq!(logic(mark), svc & k != 0, "{}: logic {mark}", t.name);
        }
    }
}

/// The fix-up stages' models (which the Verilog is run against in lock step in `icrc`): the
/// generator's three unshift stages recover the CRC of a message from the register run on over
/// `z` zero bytes, and the checker's residue table reads zero exactly for a message followed by
/// its own CRC; the CRC itself from the `crc` crate.
#[test]
fn fix_up_stages_undo_every_zero_tail() {
    use nicgen_hw::crc::matrix::{CrcFix, FixKind};
    let c = Crc::<u32>::new(&CRC_32_ISO_HDLC);
    let gen: Vec<CrcFix> = (0..3).map(|s| CrcFix::new(FixKind::Unshift { n: 1 << (2 * s), pos: 2 * s })).collect();
    let check = CrcFix::new(FixKind::Residue(crc32_residue()));
    for z in 0..64usize {
        let msg: Vec<u8> = (0..(z * 7 + 3) % 61 + 1).map(|i| (i * 29 + z) as u8).collect();
        let run_on = crc32_raw(0xFFFF_FFFF, &[msg.clone(), vec![0; z]].concat());
        let back = gen.iter().fold(run_on, |x, f| f.model(x, z));
        assert_eq!(!back, c.checksum(&msg), "z = {z}");
        let framed = [msg.clone(), c.checksum(&msg).to_le_bytes().to_vec()].concat();
        assert_eq!(check.model(crc32_raw(0xFFFF_FFFF, &[framed.clone(), vec![0; z]].concat()), z), 0, "z = {z}");
        let mut bad = framed;
        bad[z % msg.len()] ^= 1 << (z % 8);
        assert_ne!(check.model(crc32_raw(0xFFFF_FFFF, &[bad, vec![0; z]].concat()), z), 0, "z = {z}");
    }
}
