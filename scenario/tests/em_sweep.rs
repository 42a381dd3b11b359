//! Seed sweeps of the whole EM on Verilator (`nicgen_scenario::em`): for each mode and width, 32 seeds
//! of 4,000 frames per direction, each seed its own traffic mix (payload sizes, `tvalid` gaps,
//! `tready` backpressure, the share of mutated frames); and one long run per mode, 10^5 frames
//! with a fifth of them mutated. NAT mode is fuzzed like overlay mode: the model keeps a damaged
//! TCP/UDP checksum or ICRC damaged, as the hardware does (`nicgen_model::em::nat_damaged`).
//! Every output frame is the model's on its port or VF, every frame is out or dropped for the
//! model's cause, and the telemetry is the model's (checked in `run_em`).
mod common;
use common::run_checked;
use nicgen_scenario::em::*;
use nicgen_model::em::EmMode;

/// Seed `seed`'s traffic mix.
fn mix(mode: EmMode, width: usize, seed: u64, frames: usize) -> EmOpts {
    let pick = |v: &[u32], k: u64| v[(k % v.len() as u64) as usize];
    EmOpts {
        mode,
        width,
        seed,
        frames,
        valid: pick(&[100, 90, 70, 40], seed),
        ready: pick(&[100, 60, 95, 30, 80], seed / 2),
        max_payload: pick(&[1400, 300, 64, 900], seed / 3) as usize,
        fuzz: pick(&[0, 5, 20], seed / 5),
        ..Default::default()
    }
}

/// 32 seeds; over the sweep every drop cause of the mode occurs, and NAT keeps damaged frames.
fn sweep(mode: EmMode, width: usize) {
    let mut causes = std::collections::BTreeMap::<String, usize>::new();
    let (mut damaged, mut out) = (0, 0);
    for seed in 1..=32 {
        let r = run_checked(&mix(mode, width, seed, 4000));
        for (k, v) in &r.drops {
            *causes.entry(k.split_once(' ').unwrap().1.to_string()).or_default() += v;
        }
        damaged += r.damaged_kept;
        out += r.eg_want + r.ig_want;
    }
    // (a mutation that sets a fragment bit or clears VXLAN's I flag is rare: the flipped bit
    // usually breaks the IPv4 checksum first)
    let mut want = vec!["truncated", "not_ip", "malformed", "ip_options", "bad_ip_checksum", "no_tenant", "acl", "no_route"];
    want.extend(match mode {
        EmMode::Nat => vec!["spoof", "ipv6"],
        EmMode::Overlay => vec!["no_local"],
    });
    for cause in want {
        assert!(causes.get(cause).is_some_and(|n| *n > 10), "{mode:?}, {width} bits: cause {cause} occurs: {causes:?}");
    }
    assert!(out > 32 * 2000, "{out} frames out");
    if mode == EmMode::Nat {
        assert!(damaged > 100, "NAT kept {damaged} damaged frames");
    }
}

#[test]
fn overlay_sweep_512() {
    sweep(EmMode::Overlay, 512);
}

#[test]
fn overlay_sweep_1024() {
    sweep(EmMode::Overlay, 1024);
}

#[test]
fn nat_sweep_512() {
    sweep(EmMode::Nat, 512);
}

#[test]
fn nat_sweep_1024() {
    sweep(EmMode::Nat, 1024);
}

/// NAT mode's long run: 10^5 frames (both directions), a fifth mutated, short payloads.
#[test]
fn a_hundred_thousand_nat_frames_a_fifth_mutated() {
    let o = EmOpts { mode: EmMode::Nat, frames: 50_000, seed: 9, valid: 90, ready: 85, max_payload: 200, fuzz: 20, ..Default::default() };
    let r = run_checked(&o);
    assert_eq!(r.eg_in + r.ig_in, 100_000);
    assert!(r.eg_want > 10_000 && r.ig_want > 10_000 && r.damaged_kept > 500, "{} and {} frames through, {} damaged", r.eg_want, r.ig_want, r.damaged_kept);
}
