//! ICRC generator and checker on their emitted Verilog: against the golden model, against
//! scapy, every `tkeep` residue, 1 byte to 9 KiB, random gaps and backpressure, corrupted,
//! truncated and flagged frames, lock step against rust-hdl, throughput and latency.
mod common;
use common::*;
use nicgen_hw::crc::icrc::*;
use nicgen_model::*;
use nicgen_sim::axis::*;
use nicgen_sim::frames::*;
use nicgen_sim::oracle::*;
use nicgen_sim::*;

/// RoCE frames (with ICRC) whose lengths cover every residue mod 64, from the smallest to 9 KiB,
/// IPv4 and IPv6, random opcodes.
fn roce_frames(rng: &mut Rng, n_random: usize) -> Vec<Vec<u8>> {
    let mut v = vec![];
    for target in (58..58 + 64 * 3).chain([9216 - 1, 9216, 9000, 4200, 1100]) {
        let mut h = random_headers(rng);
        let op = [opcode::WRITE_MIDDLE, opcode::SEND_ONLY, opcode::READ_RESP_MIDDLE][rng.below(3) as usize];
        let mut n = RoceHeaders::new(h.ip, op, h.bth.dqpn, h.bth.psn);
        n.bth = h.bth;
        n.bth.opcode = op;
        h = n;
        let base = h.build_with(&[], false).len();
        if target < base {
            continue;
        }
        v.push(h.build_with(&rng.bytes(target - base), false));
    }
    for _ in 0..n_random {
        v.push(random_roce_frame(rng, 9216));
    }
    v
}

fn non_roce_frames(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut v = vec![];
    for len in [1usize, 2, 13, 14, 30, 60, 63, 64, 65, 127, 128, 129, 1514] {
        let mut f = rng.bytes(len);
        if len >= 14 {
            f[12] = 0x08;
            f[13] = 0x06; // ARP
        }
        v.push(f);
    }
    // IPv4 UDP to another port, and IPv4 with options to 4791 (not supported: passes through)
    let mut h = RoceHeaders::new(IpHdr::V4 { src: [1; 4], dst: [2; 4], dscp: 0, ecn: 0, ttl: 9, id: 1 }, opcode::SEND_ONLY, 1, 2);
    let mut f = h.build(&rng.bytes(100));
    f[36] = 0x12;
    f[37] = 0xb8;
    v.push(f);
    h.udp_sport = 7;
    let mut f = h.build(&rng.bytes(33));
    f[14] = 0x46;
    v.push(f);
    v
}

fn run_gen<S: CycleSim>(sim: &mut S, inputs: &[Vec<u8>], valid: u32, ready: u32, seed: u64) -> Vec<AxisFrame> {
    let frames: Vec<AxisFrame> = inputs.iter().map(|d| AxisFrame::new(d.clone())).collect();
    pass_through(sim, &frames, valid, ready, seed).0
}

#[test]
fn gen_matches_model_every_residue_with_backpressure() {
    let mut sim = verilate(&mut IcrcGen::default());
    let mut rng = Rng::new(1);
    let good = roce_frames(&mut rng, 100);
    let other = non_roce_frames(&mut rng);
    let mut input: Vec<Vec<u8>> = good.iter().map(|f| f[..f.len() - 4].to_vec()).collect();
    input.extend(other.clone());
    let mut expect = good.clone();
    expect.extend(other);
    let mut residues = std::collections::BTreeSet::new();
    for f in &expect {
        residues.insert(f.len() % 64);
    }
    assert_eq!(residues.len(), 64, "every tkeep residue of the output's last beat");
    for (seed, valid, ready) in [(1, 100, 100), (2, 60, 50), (3, 90, 20)] {
        let out = run_gen(&mut sim, &input, valid, ready, seed);
        assert_eq!(out.len(), expect.len());
        for (i, (o, e)) in out.iter().zip(&expect).enumerate() {
            assert!(o.data == *e && !o.user, "frame {i} ({} bytes) seed {seed}", e.len());
        }
    }
}

#[test]
fn gen_output_passes_scapy_2000_frames() {
    let mut sim = verilate(&mut IcrcGen::default());
    let mut rng = Rng::new(77);
    let frames: Vec<Vec<u8>> = (0..2000).map(|_| random_roce_frame(&mut rng, 9216)).collect();
    let input: Vec<Vec<u8>> = frames.iter().map(|f| f[..f.len() - 4].to_vec()).collect();
    let out = run_gen(&mut sim, &input, 80, 70, 5);
    let out: Vec<Vec<u8>> = out.into_iter().map(|f| f.data).collect();
    let v = scapy_check(&out).unwrap();
    let mut v6 = 0;
    for (i, r) in v.iter().enumerate() {
        assert_eq!(*r, ScapyVerdict::Ok, "frame {i}");
        v6 += (out[i][12] == 0x86) as usize;
    }
    assert!(v6 > 800 && v6 < 1200);
}

fn run_check<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], valid: u32, ready: u32, seed: u64) -> Vec<AxisFrame> {
    pass_through(sim, frames, valid, ready, seed).0
}

fn counters<S: CycleSim>(sim: &mut S) -> [u64; 6] {
    let names = ["cnt$frames", "cnt$roce", "cnt$bad_icrc", "cnt$truncated", "cnt$bad_length", "cnt$user_flagged"];
    names.map(|n| {
        let p = sim.port(n);
        sim.get_u64(p)
    })
}

#[test]
fn check_strips_and_passes_good_frames_every_residue() {
    let mut sim = verilate(&mut IcrcCheck::default());
    let mut rng = Rng::new(2);
    let good = roce_frames(&mut rng, 100);
    let other = non_roce_frames(&mut rng);
    let mut input: Vec<AxisFrame> = good.iter().map(|f| AxisFrame::new(f.clone())).collect();
    input.extend(other.iter().map(|f| AxisFrame::new(f.clone())));
    let mut residues = std::collections::BTreeSet::new();
    for f in &input {
        residues.insert(f.data.len() % 64);
    }
    assert_eq!(residues.len(), 64);
    for (seed, valid, ready) in [(1, 100, 100), (2, 50, 60), (3, 95, 25)] {
        let out = run_check(&mut sim, &input, valid, ready, seed);
        assert_eq!(out.len(), input.len());
        for (i, o) in out.iter().enumerate() {
            let exp: &[u8] = if i < good.len() { &good[i][..good[i].len() - 4] } else { &other[i - good.len()] };
            assert!(!o.user, "good frame {i} ({} bytes) flagged, seed {seed}", input[i].data.len());
            assert_eq!(o.data, exp, "frame {i} seed {seed}");
        }
        let c = counters(&mut sim);
        assert_eq!(c, [input.len() as u64, good.len() as u64, 0, 0, 0, 0]);
    }
}

#[test]
fn check_accepts_scapy_frames() {
    let mut sim = verilate(&mut IcrcCheck::default());
    let frames = scapy_build(2000, 99).unwrap();
    let input: Vec<AxisFrame> = frames.iter().map(|f| AxisFrame::new(f.clone())).collect();
    let out = run_check(&mut sim, &input, 85, 80, 4);
    assert_eq!(out.len(), frames.len());
    for (i, (o, f)) in out.iter().zip(&frames).enumerate() {
        assert!(!o.user, "scapy frame {i} flagged bad");
        assert_eq!(o.data, &f[..f.len() - 4]);
    }
    assert_eq!(counters(&mut sim)[..3], [2000, 2000, 0]);
}

#[test]
fn check_flags_every_corruption_and_next_frame_is_unharmed() {
    let mut sim = verilate(&mut IcrcCheck::default());
    let mut rng = Rng::new(3);
    let good = roce_frames(&mut rng, 0);
    let mut input = vec![];
    let mut expect_bad = vec![];
    let mut n_bad = 0;
    for (i, f) in good.iter().enumerate().take(150) {
        // one flipped bit anywhere in the covered bytes or the ICRC, then a good frame
        let (l4, _) = locate_udp(f).unwrap();
        let masked = |b: usize| b < 14 || (f[12] == 0x08 && [15, 22, 24, 25].contains(&b)) || (f[12] == 0x86 && (14..=17).contains(&b)) || (f[12] == 0x86 && b == 21) || b == l4 + 6 || b == l4 + 7 || b == l4 + 12;
        let mut byte;
        loop {
            byte = rng.below(f.len() as u64) as usize;
            // flips in the IP/UDP length or protocol fields are length/class errors, covered below
            if !masked(byte) && byte != 14 && !(16..=23).contains(&byte) && !(byte >= 18 && byte < 22) && !(l4..l4 + 6).contains(&byte) && byte != 20 {
                break;
            }
        }
        if i % 10 == 0 {
            byte = f.len() - 1 - (i / 10) % 4; // the ICRC itself
        }
        let mut g = f.clone();
        g[byte] ^= 1 << rng.below(8);
        input.push(AxisFrame::new(g));
        expect_bad.push(true);
        n_bad += 1;
        input.push(AxisFrame::new(f.clone()));
        expect_bad.push(false);
    }
    let out = run_check(&mut sim, &input, 70, 60, 8);
    assert_eq!(out.len(), input.len());
    for (i, (o, b)) in out.iter().zip(&expect_bad).enumerate() {
        assert_eq!(o.user, *b, "frame {i}");
        if !b {
            assert_eq!(o.data, &input[i].data[..input[i].data.len() - 4], "good frame {i} after a bad one");
        }
    }
    let c = counters(&mut sim);
    assert_eq!(c[2], n_bad, "bad_icrc counter");
}

#[test]
fn check_flags_truncated_bad_length_and_user_frames() {
    let mut sim = verilate(&mut IcrcCheck::default());
    let mut rng = Rng::new(4);
    let good = roce_frames(&mut rng, 20);
    let mut input = vec![];
    let mut kinds = vec![];
    for (i, f) in good.iter().enumerate() {
        match i % 4 {
            0 => {
                // truncated anywhere after the first 40 bytes
                let cut = rng.range(40.min(f.len() as u64 - 1), f.len() as u64 - 1) as usize;
                input.push(AxisFrame::new(f[..cut].to_vec()));
                kinds.push("trunc");
            }
            1 => {
                let mut g = f.clone();
                let extra = rng.range(1, 100) as usize;
                g.extend(rng.bytes(extra));
                let padded_short = g.len() <= 60;
                input.push(AxisFrame::new(g));
                kinds.push(if padded_short { "pad" } else { "long" });
            }
            2 => {
                input.push(AxisFrame { data: f.clone(), user: true });
                kinds.push("user");
            }
            _ => {
                input.push(AxisFrame::new(f.clone()));
                kinds.push("good");
            }
        }
    }
    let out = run_check(&mut sim, &input, 75, 65, 9);
    assert_eq!(out.len(), input.len());
    for (i, o) in out.iter().enumerate() {
        assert_eq!(o.user, kinds[i] != "good" && kinds[i] != "pad", "frame {i} ({})", kinds[i]);
        if kinds[i] == "good" {
            assert_eq!(o.data, &good[i][..good[i].len() - 4]);
        }
    }
    let c = counters(&mut sim);
    let n = |k: &str| kinds.iter().filter(|x| **x == k).count() as u64;
    assert_eq!(c[3], n("trunc"), "truncated counter");
    assert_eq!(c[4], n("long"), "bad_length counter");
    assert_eq!(c[5], n("user"), "user_flagged counter");
}

#[test]
fn ethernet_padding_of_a_short_frame_is_stripped() {
    let mut sim = verilate(&mut IcrcCheck::default());
    // SEND_ONLY with no payload over IPv4: 58 bytes, padded by the MAC to 60
    let h = RoceHeaders::new(IpHdr::V4 { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], dscp: 0, ecn: 0, ttl: 64, id: 0 }, opcode::SEND_ONLY, 5, 6);
    let f = h.build(&[]);
    assert_eq!(f.len(), 58);
    let mut padded = f.clone();
    padded.extend([0, 0]);
    let out = run_check(&mut sim, &[AxisFrame::new(padded)], 100, 100, 1);
    assert!(!out[0].user);
    assert_eq!(out[0].data, &f[..54]);
}

#[test]
fn gen_and_check_in_lock_step_with_rust_hdl() {
    let mut rng = Rng::new(12);
    let frames: Vec<Vec<u8>> = (0..12).map(|_| random_roce_frame(&mut rng, 300)).collect();
    let input: Vec<Vec<u8>> = frames.iter().map(|f| f[..f.len() - 4].to_vec()).collect();
    let mut d = Diff::new(verilate(&mut IcrcGen::default()), RustHdlSim::new(IcrcGen::default()));
    let out = run_gen(&mut d, &input, 70, 60, 3);
    assert_eq!(out.iter().map(|f| f.data.clone()).collect::<Vec<_>>(), frames);
    let mut d = Diff::new(verilate(&mut IcrcCheck::default()), RustHdlSim::new(IcrcCheck::default()));
    let mut input: Vec<AxisFrame> = frames.iter().map(|f| AxisFrame::new(f.clone())).collect();
    input[3].data[70] ^= 4;
    let out = run_check(&mut d, &input, 70, 60, 4);
    assert_eq!(out.iter().map(|f| f.user).collect::<Vec<_>>(), (0..12).map(|i| i == 3).collect::<Vec<_>>());
}

/// One beat per cycle, and the documented latency, with no gaps and no backpressure.
#[test]
fn throughput_and_latency() {
    let mut rng = Rng::new(5);
    // 1082-byte frames: the generator's ICRC fits in its last beat (54 + 4 bytes) and the
    // checker's last beat keeps 54 bytes, so neither adds nor removes a beat
    let frames: Vec<Vec<u8>> = (0..50)
        .map(|_| {
            let h = RoceHeaders::new(IpHdr::V4 { src: [1; 4], dst: [2; 4], dscp: 0, ecn: 0, ttl: 1, id: 0 }, opcode::WRITE_MIDDLE, 1, 2);
            h.build(&rng.bytes(1024))
        })
        .collect();
    let mut sim = verilate(&mut IcrcCheck::default());
    let input: Vec<AxisFrame> = frames.iter().map(|f| AxisFrame::new(f.clone())).collect();
    let (cycles, beats) = full_rate_cycles(&mut sim, &input);
    assert_eq!(cycles, beats, "checker: 1.0 beat per cycle");
    let mut sim = verilate(&mut IcrcGen::default());
    let input: Vec<AxisFrame> = frames.iter().map(|f| AxisFrame::new(f[..f.len() - 4].to_vec())).collect();
    let (cycles, beats) = full_rate_cycles(&mut sim, &input);
    assert_eq!(cycles, beats, "generator: 1.0 beat per cycle");
    // latency: first input beat taken at cycle t, first output beat at t + latency
    for (lat, gen) in [(ICRC_GEN_LATENCY, true), (ICRC_CHECK_LATENCY, false)] {
        let mut sim: VerilatorSim = if gen { verilate(&mut IcrcGen::default()) } else { verilate(&mut IcrcCheck::default()) };
        sim.reset(2);
        let mut d = AxisDriver::new(&sim, "s_axis", 100, 1);
        let m = AxisMonitor::new(&sim, "m_axis", 100, 1);
        d.push(AxisFrame::new(frames[0].clone()));
        let mut b = StreamBench::new(vec![d], vec![m]);
        let start = sim.cycle();
        b.drain(&mut sim, 20, 1000);
        assert_eq!(b.monitors[0].frames[0].first_cycle - start, lat as u64, "latency (gen = {gen})");
    }
}

/// Next to a MAC (no backpressure): bad-ICRC, truncated, over-long and MAC-flagged frames are
/// dropped and counted per cause; every good frame after them arrives whole.
#[test]
fn rx_drops_and_counts_every_bad_frame_without_backpressure() {
    let mut sim = verilate(&mut IcrcRx::default());
    let mut rng = Rng::new(21);
    let mut input = vec![];
    let mut good_out = vec![];
    let mut exp = [0u64; 4]; // bad icrc, truncated, bad length, user
    for i in 0..400 {
        let f = random_roce_frame(&mut rng, 2000);
        match i % 5 {
            0 => {
                let mut g = f.clone();
                let n = g.len();
                g[n - 1 - rng.below(4) as usize] ^= 1 << rng.below(8);
                input.push(AxisFrame::new(g));
                exp[0] += 1;
            }
            1 => {
                let cut = rng.range(60, f.len() as u64 - 1) as usize;
                input.push(AxisFrame::new(f[..cut].to_vec()));
                exp[1] += 1;
            }
            2 if f.len() > 70 => {
                let mut g = f.clone();
                g.extend(rng.bytes(70));
                input.push(AxisFrame::new(g));
                exp[2] += 1;
            }
            3 => {
                input.push(AxisFrame { data: f.clone(), user: true });
                exp[3] += 1;
            }
            _ => {}
        }
        // a good frame after every case
        input.push(AxisFrame::new(f.clone()));
        good_out.push(f[..f.len() - 4].to_vec());
    }
    sim.reset(2);
    let mut d = AxisDriver::new(&sim, "s_axis", 100, 1);
    d.no_ready = true;
    let tr = sim.port("s_axis$tready");
    let m = AxisMonitor::new(&sim, "m_axis", 100, 2);
    for f in &input {
        d.push(f.clone());
    }
    let mut b = StreamBench::new(vec![d], vec![m]);
    while !b.drivers[0].idle() {
        b.step(&mut sim);
        assert!(sim.get_bit(tr), "RX pushed back on the MAC");
    }
    b.drain(&mut sim, 50, 100_000);
    let got: Vec<Vec<u8>> = b.monitors[0].frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(got.len(), good_out.len());
    assert!(got == good_out, "good frames arrive whole and in order");
    let c = counters(&mut sim);
    assert_eq!([c[2], c[3], c[4], c[5]], exp, "per-cause counters");
    let dropped = { let p = sim.port("dropped"); sim.get_u64(p) };
    assert_eq!(dropped, exp.iter().sum::<u64>());
    let ovf = { let p = sim.port("overflow"); sim.get_u64(p) };
    assert_eq!(ovf, 0);
}

/// Every single-bit flip of whole frames (IPv4 and IPv6): the checker flags each one, except
/// flips in the fields the ICRC masks by design and flips that make the frame something other
/// than RoCEv2 (which then passes through unchecked, as any non-RoCE frame does).
#[test]
fn check_flags_every_single_bit_flip() {
    use nicgen_hw::crc::fields::classify;
    let mut sim = verilate(&mut IcrcRx::default());
    let mut rng = Rng::new(31);
    let v4 = RoceHeaders::new(IpHdr::V4 { src: [10, 1, 2, 3], dst: [10, 4, 5, 6], dscp: 0, ecn: 0, ttl: 64, id: 7 }, opcode::WRITE_ONLY, 0x12, 0x345);
    let v6 = RoceHeaders::new(IpHdr::V6 { src: [0xfd; 16], dst: [0xfe; 16], tclass: 0, flow: 0, hlim: 64 }, opcode::SEND_ONLY, 0x99, 0x777);
    let mut input = vec![];
    let mut expect_pass = vec![];
    for f in [v4.build(&rng.bytes(70)), v6.build(&rng.bytes(23))] {
        let (l4, _) = locate_udp(&f).unwrap();
        let v6f = f[12] == 0x86;
        for bit in 0..f.len() * 8 {
            let byte = bit / 8;
            let mut g = f.clone();
            g[byte] ^= 1 << (bit % 8);
            let masked = byte < 14
                || (!v6f && [15, 22, 24, 25].contains(&byte))
                || (v6f && ((byte == 14 && bit % 8 < 4) || (15..=17).contains(&byte) || byte == 21))
                || byte == l4 + 6
                || byte == l4 + 7
                || byte == l4 + 12;
            let still_roce = classify(&g).roce;
            input.push(AxisFrame::new(g.clone()));
            // passes: the flip is invisible to the ICRC, or the frame is no longer RoCE
            expect_pass.push(if masked || !still_roce { Some(g[..g.len() - if still_roce { 4 } else { 0 }].to_vec()) } else { None });
            input.push(AxisFrame::new(f.clone()));
            expect_pass.push(Some(f[..f.len() - 4].to_vec()));
        }
    }
    let expect: Vec<Vec<u8>> = expect_pass.iter().flatten().cloned().collect();
    let dropped_exp = expect_pass.iter().filter(|e| e.is_none()).count() as u64;
    let (got, _) = pass_through(&mut sim, &input, 100, 100, 1);
    assert_eq!(got.len(), expect.len(), "frames through");
    for (i, (g, e)) in got.iter().zip(&expect).enumerate() {
        assert_eq!(&g.data, e, "frame {i}");
    }
    let dropped = { let p = sim.port("dropped"); sim.get_u64(p) };
    assert_eq!(dropped, dropped_exp);
    assert!(dropped > 1000, "most flips are caught: {dropped}");
}
