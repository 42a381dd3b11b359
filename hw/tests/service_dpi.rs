//! DPI on the parallel tap, on Verilator (`dpi_tap`: the tap join with the DPI core generated
//! from `hw/dpi/weights.json`): the class of every beat agrees bit for bit with the Rust
//! integer model (`nicgen_model::dpi`, itself checked against the training script's numpy
//! inference), and every frame leaves with its own verdict (the model's, from its QP's policy
//! and the class mask) under random gaps and backpressure, at every `tkeep` residue, with
//! adversarial interleavings of long and one-beat frames and of dropping and passing QPs.
mod common;
use common::*;
use nicgen_hw::service::dpi::{self, policy_write, reg};
use nicgen_hw::service::slot::DpiTap9;
use nicgen_model::dpi::{frame_verdict, verdict, Net};
use nicgen_sim::axis::*;
use nicgen_sim::*;

/// Payload sources of the four kinds: an ELF executable (this test binary), text (the
/// project's README, two of its docs and this file), CSV (generated) and random bytes (as compressed PNG data).
struct Sources {
    elf: Vec<u8>,
    text: Vec<u8>,
    csv: Vec<u8>,
}

impl Sources {
    fn new(rng: &mut Rng) -> Sources {
        let elf = std::fs::read("/proc/self/exe").expect("the test binary");
        assert_eq!(&elf[..4], b"\x7fELF");
        let text = [include_str!("../../README.md"), include_str!("../../docs/rc-engine.md"), include_str!("../../docs/em.md"), include_str!("service_dpi.rs")].concat().into_bytes();
        let mut csv = String::from("id,value,when,name\n");
        for i in 0..4000 {
            csv += &format!("{i},{}.{:02},20{:02}-{:02}-{:02},n{}\n", rng.below(100000) as i64 - 50000, rng.below(100), rng.below(30), 1 + rng.below(12), 1 + rng.below(28), rng.below(999));
        }
        Sources { elf, text, csv: csv.into_bytes() }
    }

    fn payload(&self, rng: &mut Rng, kind: u64, n: usize) -> Vec<u8> {
        let src = match kind {
            0 => &self.elf,
            1 => &self.text,
            2 => &self.csv,
            _ => return rng.bytes(n),
        };
        let o = rng.below((src.len() - n) as u64) as usize;
        src[o..o + n].to_vec()
    }
}

/// A RoCEv2-shaped frame of `len` bytes (IPv4 or IPv6) for `qpn`, its payload from `kind`.
fn frame(rng: &mut Rng, src: &Sources, len: usize, v6: bool, qpn: u32, kind: u64) -> AxisFrame {
    let mut b = rng.bytes(len.min(96));
    b.resize(len, 0);
    let bth = if v6 { 62 } else { 42 };
    if len >= 14 {
        b[12..14].copy_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
    }
    if len >= bth + 8 {
        b[bth + 5..bth + 8].copy_from_slice(&qpn.to_be_bytes()[1..]);
    }
    let hdr = (bth + 28).min(len);
    let p = src.payload(rng, kind, len - hdr);
    b[hdr..].copy_from_slice(&p);
    AxisFrame { data: b, user: rng.chance(5) }
}

/// A frame whose payload is a slice of the ELF source that the model's classifier calls ELF. The
/// ELF source is this test binary, which changes with every build (it holds the README and docs), so a
/// slice drawn at random may read as something else; draw again until it reads ELF, so a test's
/// ELF frames do not depend on what the binary holds (the hardware's verdicts are still checked
/// against the model).
fn elf_frame(rng: &mut Rng, src: &Sources, net: &Net, len: usize, v6: bool, qpn: u32) -> AxisFrame {
    let elf = net.class("elf").unwrap();
    let mut f = frame(rng, src, len, v6, qpn, 0);
    for _ in 0..200 {
        if nicgen_model::dpi::frame_class(net, &f.data) == Some(elf) {
            break;
        }
        f = frame(rng, src, len, v6, qpn, 0);
    }
    f
}

struct Run {
    beats: usize,
    by_verdict: [usize; 3],
    /// Each frame's verdict (the model's, which the hardware's matched).
    verdicts: Vec<u8>,
}

/// Frames through the tap with `policy` per QP (by the low 9 bits) and `mask`; checks every
/// beat's class, every frame's verdict (`tuser` and `m_flag` at its last beat) and the counters.
fn dpi_run(sim: &mut VerilatorSim, net: &Net, frames: &[AxisFrame], policy: &[u8; 512], mask: u8, valid: u32, ready: u32, seed: u64) -> Run {
    sim.reset(2);
    let cfg = sim.port("cfg");
    // every entry: the table keeps its contents across resets
    for (q, p) in policy.iter().enumerate() {
        let (a, d) = policy_write(q as u32, *p);
        slot_cfg_write(sim, cfg, a, d);
    }
    slot_cfg_write(sim, cfg, reg::CLASS_MASK, mask as u32);
    let p = |s: &VerilatorSim, n: &str| s.port(n);
    let (s_data, s_valid, s_ready, bc, bc_valid) = (p(sim, "s_axis$tdata"), p(sim, "s_axis$tvalid"), p(sim, "s_axis$tready"), p(sim, "beat_class"), p(sim, "beat_class_valid"));
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    let mut m = AxisMonitor::new(sim, "m_axis", ready, seed + 9);
    for f in frames {
        d.push(f.clone());
    }
    let (m_valid, m_ready, m_last, m_flag) = (p(sim, "m_axis$tvalid"), p(sim, "m_axis$tready"), p(sim, "m_axis$tlast"), p(sim, "m_flag"));
    let mut flags_out = vec![];
    let mut beats_in: std::collections::VecDeque<[u8; 64]> = Default::default();
    let (mut quiet, mut cycles, mut checked) = (0, 0u64, 0usize);
    while quiet < 60 {
        d.drive(sim);
        m.drive(sim);
        sim.eval();
        if sim.get_bit(s_valid) && sim.get_bit(s_ready) {
            let w = sim.get_words(s_data);
            beats_in.push_back(unpack_beat(&w, 64).collect::<Vec<u8>>().try_into().unwrap());
        }
        if sim.get_bit(bc_valid) {
            let b = beats_in.pop_front().expect("a class for a beat that never entered");
            assert_eq!(sim.get_u64(bc) as u8, net.classify(&b), "beat {checked}: class differs from the model");
            checked += 1;
        }
        if sim.get_bit(m_valid) && sim.get_bit(m_ready) && sim.get_bit(m_last) {
            flags_out.push(sim.get_bit(m_flag));
        }
        d.sample(sim);
        let got = m.sample(sim);
        sim.tick();
        cycles += 1;
        quiet = if got || !d.idle() || !beats_in.is_empty() { 0 } else { quiet + 1 };
        assert!(cycles < 5_000_000, "tap stalled");
    }
    // the model's verdict: the frame's QP's policy (a frame shorter than its headers has no
    // votes, so its QPN does not matter)
    let qpn = |f: &AxisFrame| if f.data.len() >= 70 {
        let bth = if f.data[12..14] == [0x86, 0xdd] { 62 } else { 42 };
        u32::from_be_bytes([0, f.data[bth + 5], f.data[bth + 6], f.data[bth + 7]]) & 511
    } else {
        0
    };
    let verdicts: Vec<u8> = frames.iter().map(|f| frame_verdict(net, &f.data, policy[qpn(f) as usize], mask)).collect();
    assert_eq!(flags_out, verdicts.iter().map(|v| *v == nicgen_model::dpi::verdict::FLAG).collect::<Vec<_>>(), "m_flag at each frame's last beat");
    check_tap_verdicts(sim, &m.frames, frames, &verdicts, |i| {
        let f = &frames[i];
        format!("len {}, qpn {:#x}, class {:?}, policy {}", f.data.len(), qpn(f), nicgen_model::dpi::frame_class(net, &f.data), policy[qpn(f) as usize])
    });
    let mut by_verdict = [0usize; 3];
    for v in &verdicts {
        by_verdict[*v as usize] += 1;
    }
    Run { beats: checked, by_verdict, verdicts }
}

fn policies(rng: &mut Rng) -> [u8; 512] {
    std::array::from_fn(|_| [verdict::PASS, verdict::FLAG, verdict::DROP][rng.below(3) as usize])
}

/// Every residue, every payload kind, random QPs and policies; more than 10^4 beats compared.
#[test]
fn dpi_matches_the_model_on_every_beat_and_frame() {
    let net = Net::builtin();
    let mut v = verilate(&mut DpiTap9::default());
    let mut total = 0;
    let mut seen = [0usize; 3];
    for (seed, valid, ready, mask) in [(1, 100, 100, 0x8u8), (2, 70, 60, 0x8), (3, 100, 25, 0xf), (4, 35, 100, 0x6)] {
        let mut rng = Rng::new(seed);
        let src = Sources::new(&mut rng);
        let pol = policies(&mut rng);
        let mut lens: Vec<usize> = (1..=192).collect();
        lens.extend((0..72).map(|_| rng.range(193, 4200) as usize));
        let frames: Vec<AxisFrame> = lens.iter().map(|&l| {
            let qpn = rng.below(1 << 24) as u32;
            let kind = rng.below(4);
            let v6 = rng.chance(25);
            frame(&mut rng, &src, l, v6, qpn, kind)
        }).collect();
        let r = dpi_run(&mut v, &net, &frames, &pol, mask, valid, ready, seed);
        total += r.beats;
        for k in 0..3 {
            seen[k] += r.by_verdict[k];
        }
    }
    assert!(total >= 10_000, "only {total} beats compared");
    eprintln!("dpi: {total} beats compared, frames by verdict (pass, flag, drop): {seen:?}");
    assert!(seen.iter().all(|n| *n >= 20), "every verdict must occur: {seen:?}");
}

/// Adversarial interleavings: long frames of a dropping QP followed at once by runs of one-beat
/// and short frames of a passing QP (and the reverse), with stalls; the verdicts must not slide.
#[test]
fn dpi_verdicts_stay_aligned_under_adversarial_interleavings() {
    let net = Net::builtin();
    let mut v = verilate(&mut DpiTap9::default());
    let mut rng = Rng::new(9);
    let src = Sources::new(&mut rng);
    let mut pol = [verdict::PASS; 512];
    pol[7] = verdict::DROP;
    pol[8] = verdict::FLAG;
    let mut frames = vec![];
    for i in 0..40 {
        let (qa, qb) = if i % 2 == 0 { (7, 9) } else { (9, 8) };
        frames.push(elf_frame(&mut rng, &src, &net, 4096 + 70, i % 3 == 0, qa));
        for _ in 0..rng.range(1, 12) {
            let len = [60, 64, 65, 70, 128, 129][rng.below(6) as usize];
            let v6 = rng.chance(30);
            frames.push(frame(&mut rng, &src, len, v6, qb, 0));
        }
        // the flagging QP's long frame reads ELF (so that QP 8 is flagged whatever the binary
        // holds); the passing QP's is of any kind
        if qb == 8 {
            frames.push(elf_frame(&mut rng, &src, &net, 1024 + 70, false, qb));
        } else {
            let kind = rng.below(4);
            frames.push(frame(&mut rng, &src, 1024 + 70, false, qb, kind));
        }
    }
    for (seed, valid, ready) in [(11, 100, 100), (12, 100, 15), (13, 20, 100), (14, 60, 60)] {
        let r = dpi_run(&mut v, &net, &frames, &pol, 0x8, valid, ready, seed);
        assert!(r.by_verdict[verdict::DROP as usize] >= 10 && r.by_verdict[verdict::FLAG as usize] >= 10, "{:?}", r.by_verdict);
    }
}

/// The policy is per QP: ELF payloads of a dropping QP are dropped, the same payloads of a
/// flagging QP are flagged and pass, of a passing QP pass; text passes everywhere; a QPN that
/// shares the low bits of the table's index shares its entry (the table has 512 entries).
#[test]
fn dpi_policy_is_per_qp() {
    let net = Net::builtin();
    let mut v = verilate(&mut DpiTap9::default());
    let mut rng = Rng::new(21);
    let src = Sources::new(&mut rng);
    let mut pol = [verdict::PASS; 512];
    pol[1] = verdict::DROP;
    pol[2] = verdict::FLAG;
    let elf = net.class("elf").unwrap();
    let mut frames = vec![];
    for i in 0..64 {
        let qpn = [1, 2, 3, 0x201][i % 4];
        // every QP gets its ELF frames whatever the binary holds (`elf_frame`)
        let f = if i % 8 < 4 { elf_frame(&mut rng, &src, &net, 1024 + 70, false, qpn) } else { frame(&mut rng, &src, 1024 + 70, false, qpn, 1) };
        frames.push(AxisFrame { user: false, ..f });
    }
    let r = dpi_run(&mut v, &net, &frames, &pol, 0x8, 80, 70, 21);
    let mut elf_frames = [0usize; 4];
    for (i, (f, got)) in frames.iter().zip(&r.verdicts).enumerate() {
        let is_elf = nicgen_model::dpi::frame_class(&net, &f.data) == Some(elf);
        let want = if !is_elf { verdict::PASS } else { [verdict::DROP, verdict::FLAG, verdict::PASS, verdict::DROP][i % 4] };
        assert_eq!(*got, want, "frame {i}");
        elf_frames[i % 4] += is_elf as usize;
    }
    assert!(elf_frames.iter().all(|n| *n >= 4), "ELF frames on each QP: {elf_frames:?}");
    assert!(r.by_verdict[verdict::PASS as usize] >= 16, "text frames must pass: {:?}", r.by_verdict);
}

/// The verdict comes DPI_LATENCY cycles after the frame's last beat, and the tap moves one beat
/// per cycle: a frame through an idle tap leaves after DPI_LATENCY + 1 cycles.
#[test]
fn dpi_tap_line_rate_and_latency() {
    let mut v = verilate(&mut DpiTap9::default());
    let mut rng = Rng::new(5);
    let src = Sources::new(&mut rng);
    let frames: Vec<AxisFrame> = (0..8).map(|_| AxisFrame { user: false, ..frame(&mut rng, &src, 4096, false, 3, 1) }).collect();
    let (cycles, beats) = full_rate_cycles(&mut v, &frames);
    assert_eq!((cycles, beats), (512, 512), "one beat per cycle");
    v.reset(2);
    let mut d = AxisDriver::new(&v, "s_axis", 100, 1);
    let m = AxisMonitor::new(&v, "m_axis", 100, 2);
    d.push(AxisFrame::new(vec![7; 64]));
    let mut b = StreamBench::new(vec![d], vec![m]);
    let start = v.cycle();
    b.drain(&mut v, 30, 1000);
    assert_eq!(b.monitors[0].frames[0].first_cycle - start, dpi::DPI_LATENCY as u64 + 1);
}
