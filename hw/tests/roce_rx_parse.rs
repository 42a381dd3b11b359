//! RX parser on Verilator: headers checked field by field against the golden model's parse
//! (etherparse), payloads byte for byte, with random gaps and backpressure on every port; the
//! pad trimmer (`AxisLimit`) on every residue; lock step against rust-hdl.
mod common;
use nicgen_hw::roce::hdr::*;
use nicgen_hw::roce::rx::parse::RoceRxParse;
use nicgen_hw::stream::AxisLimit;
use nicgen_model::*;
use nicgen_sim::axis::*;
use nicgen_sim::chan::ChanMonitor;
use nicgen_sim::frames::*;
use nicgen_sim::*;

// ------------------------------------------------------------------ AxisLimit

fn run_limit<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], lims: &[usize], valid: u32, ready: u32, seed: u64) -> Vec<Vec<u8>> {
    common::run_with_frame_param(sim, "limit", frames, lims, valid, ready, seed).0.into_iter().map(|f| f.data).collect()
}

fn limit_case(n: usize, seed: u64) -> (Vec<AxisFrame>, Vec<usize>, Vec<Vec<u8>>) {
    let mut rng = Rng::new(seed);
    let mut frames = vec![];
    let mut lims = vec![];
    let mut want = vec![];
    for i in 0..n {
        let len = if i < 192 { i + 1 } else { rng.range(1, 9216) as usize };
        let lim = match rng.below(4) {
            0 => len,
            1 => len.saturating_sub(rng.below(4) as usize),
            2 => rng.below(len as u64 + 70) as usize,
            _ => rng.below(65536) as usize,
        };
        let f = rng.bytes(len);
        if lim > 0 {
            want.push(f[..lim.min(len)].to_vec());
        }
        frames.push(AxisFrame::new(f));
        lims.push(lim);
    }
    (frames, lims, want)
}

#[test]
fn limit_cuts_every_residue_under_backpressure() {
    let mut sim = verilate(&mut AxisLimit::default());
    let (frames, lims, want) = limit_case(600, 5);
    for (seed, v, r) in [(1, 100, 100), (2, 50, 40), (3, 90, 70)] {
        assert_eq!(run_limit(&mut sim, &frames, &lims, v, r, seed), want, "seed {seed}");
    }
}

#[test]
fn limit_lock_step() {
    let mut sim = Diff::new(verilate(&mut AxisLimit::default()), RustHdlSim::new(AxisLimit::default()));
    let (frames, lims, want) = limit_case(40, 9);
    assert_eq!(run_limit(&mut sim, &frames[..40], &lims, 70, 60, 4), want);
}

// ------------------------------------------------------------------ parser

/// What the parser must report for a frame (given with its ICRC), from the golden model.
fn expect_hdr(f: &[u8]) -> (RxHdrFields, Vec<u8>) {
    let p = parse(f).expect("golden model parses its own frame");
    let h = &p.hdr;
    let l = OpcodeLayout::of(h.bth.opcode).unwrap();
    let (ipv6, ecn, src_ip) = match h.ip {
        IpHdr::V4 { src, ecn, .. } => (false, ecn, u32::from_be_bytes(src) as u128),
        IpHdr::V6 { src, tclass, .. } => (true, tclass & 3, u128::from_be_bytes(src)),
    };
    let mut e = RxHdrFields {
        opcode: h.bth.opcode,
        se: h.bth.se,
        migreq: h.bth.migreq,
        pad: h.bth.pad,
        tver: h.bth.tver,
        pkey: h.bth.pkey,
        fecn: h.bth.fecn,
        becn: h.bth.becn,
        dqpn: h.bth.dqpn,
        ackreq: h.bth.ackreq,
        psn: h.bth.psn,
        ipv6,
        ecn,
        src_ip,
        udp_sport: h.udp_sport,
        known: true,
        len_err: false,
        plen: p.payload.len() as u16,
        ..Default::default()
    };
    if let Some(r) = h.reth {
        (e.va, e.rkey, e.dma_len) = (r.va, r.rkey, r.dma_len);
    }
    if let Some(a) = h.aeth {
        (e.syndrome, e.msn) = (a.syndrome, a.msn);
    }
    let _ = l;
    (e, p.payload)
}

/// Compare, ignoring the RETH/AETH slots the opcode does not have (they hold other bytes).
fn same_hdr(got: &RxHdrFields, want: &RxHdrFields) -> bool {
    let l = OpcodeLayout::of(want.opcode);
    let mut g = *got;
    if !l.is_some_and(|l| l.reth) {
        (g.va, g.rkey, g.dma_len) = (want.va, want.rkey, want.dma_len);
    }
    if !l.is_some_and(|l| l.aeth) {
        (g.syndrome, g.msn) = (want.syndrome, want.msn);
    }
    g == *want
}

struct Case {
    /// Frames as the ICRC checker passes them on: without the ICRC.
    frames: Vec<AxisFrame>,
    hdrs: Vec<RxHdrFields>,
    payloads: Vec<Vec<u8>>,
    not_roce: u64,
}

fn parser_case(n: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut c = Case { frames: vec![], hdrs: vec![], payloads: vec![], not_roce: 0 };
    for i in 0..n {
        let kind = rng.below(20);
        if kind == 0 {
            // not RoCE: random bytes, a UDP frame to another port, or a VLAN-tagged frame
            let mut f = random_roce_frame(&mut rng, 600);
            match rng.below(3) {
                0 => {
                    let n = rng.range(1, 300) as usize;
                    f = rng.bytes(n)
                }
                1 => {
                    let (l4, _) = locate_udp(&f).unwrap();
                    f[l4 + 3] ^= 0x40;
                }
                _ => {
                    f.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
                }
            }
            f.truncate(f.len().max(5) - 4);
            c.frames.push(AxisFrame::new(f));
            c.not_roce += 1;
            continue;
        }
        let mut h = random_headers(&mut rng);
        let op = h.bth.opcode;
        let len = if i < 200 && OpcodeLayout::of(op).unwrap().payload {
            i % 130 // every residue of the payload's last beat, whatever the header length
        } else {
            random_payload_len(&mut rng, op, 9000)
        };
        h.bth.tver = rng.below(16) as u8;
        let f = h.build(&rng.bytes(len));
        let (e, p) = expect_hdr(&f);
        c.hdrs.push(e);
        if !p.is_empty() {
            c.payloads.push(p);
        }
        c.frames.push(AxisFrame::new(f[..f.len() - 4].to_vec()));
        if kind == 1 {
            // an opcode the engine does not know (UD SEND ONLY): no extension headers assumed
            let mut h2 = RoceHeaders::new(h.ip, opcode::WRITE_MIDDLE, 7, 9);
            h2.bth.opcode = 0x64;
            let n = rng.below(200) as usize;
            let pay = rng.bytes(n);
            let f = h2.build(&pay);
            let mut e = expect_hdr(&h.build(&[])).0;
            e = RxHdrFields { opcode: 0x64, dqpn: 7, psn: 9, pad: f[if e.ipv6 { BTH_V6 } else { BTH_V4 } + 1] >> 4 & 3, known: false, plen: pay.len() as u16, ..e };
            e.se = false;
            e.migreq = false;
            e.tver = 0;
            e.pkey = 0xffff;
            e.fecn = false;
            e.becn = false;
            e.ackreq = false;
            e.udp_sport = 0xc000;
            c.hdrs.push(e);
            if !pay.is_empty() {
                c.payloads.push(pay);
            }
            c.frames.push(AxisFrame::new(f[..f.len() - 4].to_vec()));
        }
        if kind == 2 {
            // pad count larger than the payload area: a length error, no payload
            let h3 = RoceHeaders::new(h.ip, opcode::WRITE_MIDDLE, 3, 4);
            let mut f = h3.build(&[]);
            let b = if matches!(h.ip, IpHdr::V6 { .. }) { BTH_V6 } else { BTH_V4 };
            f[b + 1] |= 0x30;
            let mut e = expect_hdr(&h3.build(&[])).0;
            e.pad = 3;
            e.len_err = true;
            e.plen = 0;
            c.hdrs.push(e);
            c.frames.push(AxisFrame::new(f[..f.len() - 4].to_vec()));
        }
    }
    c
}

/// Runs `frames` through the parser; `side`, when not empty, holds each frame's `s_flag` and
/// `s_spec`, driven while the frame is on the input (otherwise both stay 0).
fn run_parser<S: CycleSim>(sim: &mut S, frames: &[AxisFrame], side: &[(bool, bool)], valid: u32, ready: u32, hready: u32, seed: u64) -> (Vec<RxHdrFields>, Vec<Vec<u8>>, u64, u64) {
    sim.reset(2);
    let (pf, ps) = (sim.port("s_flag"), sim.port("s_spec"));
    let mut d = AxisDriver::new(sim, "s_axis", valid, seed);
    let m = AxisMonitor::new(sim, "m_axis", ready, seed + 1);
    let mut hm = ChanMonitor::new(sim, "hdr", hready, seed + 2);
    for f in frames {
        d.push(f.clone());
    }
    let mut b = StreamBench::new(vec![d], vec![m]);
    let mut quiet = 0;
    while quiet < 40 {
        // the frame on the input is the one after those fully sent
        if let Some(&(flag, spec)) = side.get((b.drivers[0].frames as usize).min(side.len().saturating_sub(1))) {
            sim.set_bit(pf, flag);
            sim.set_bit(ps, spec);
        }
        hm.drive(sim);
        let moved = b.step_with(sim, |s| hm.sample(s) | s.get_bit(hm.ports.valid));
        quiet = if moved || !b.drivers[0].idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 3_000_000, "parser stalled");
    }
    let hdrs = hm.seen.iter().map(|(_, w)| RxHdrFields::from_words(w)).collect();
    let pays = b.monitors[0].frames.iter().map(|f| f.data.clone()).collect();
    let fr = { let p = sim.port("frames"); sim.get_u64(p) };
    let nr = { let p = sim.port("not_roce"); sim.get_u64(p) };
    (hdrs, pays, fr, nr)
}

fn check_parser<S: CycleSim>(sim: &mut S, c: &Case, valid: u32, ready: u32, hready: u32, seed: u64) {
    let (hdrs, pays, frames, not_roce) = run_parser(sim, &c.frames, &[], valid, ready, hready, seed);
    assert_eq!(hdrs.len(), c.hdrs.len(), "header count");
    for (i, (g, w)) in hdrs.iter().zip(&c.hdrs).enumerate() {
        assert!(same_hdr(g, w), "header {i}:\n got  {g:x?}\n want {w:x?}");
    }
    assert_eq!(pays.len(), c.payloads.len(), "payload count");
    for (i, (g, w)) in pays.iter().zip(&c.payloads).enumerate() {
        assert_eq!(g, w, "payload {i}");
    }
    assert_eq!((frames, not_roce), (c.hdrs.len() as u64, c.not_roce));
}

#[test]
fn parser_matches_golden_model_under_backpressure() {
    let mut sim = verilate(&mut RoceRxParse::default());
    let c = parser_case(700, 11);
    for (seed, v, r, h) in [(1, 100, 100, 100), (2, 60, 50, 40), (3, 95, 80, 20), (4, 30, 100, 100)] {
        check_parser(&mut sim, &c, v, r, h, seed);
    }
}

#[test]
fn parser_lock_step() {
    let mut sim = Diff::new(verilate(&mut RoceRxParse::default()), RustHdlSim::new(RoceRxParse::default()));
    let c = parser_case(25, 12);
    check_parser(&mut sim, &c, 80, 70, 60, 5);
}

#[test]
fn parser_keeps_line_rate() {
    // long frames, no gaps, no backpressure: one beat per cycle in
    let mut sim = verilate(&mut RoceRxParse::default());
    let mut rng = Rng::new(3);
    let mut c = Case { frames: vec![], hdrs: vec![], payloads: vec![], not_roce: 0 };
    for _ in 0..50 {
        let mut h = random_headers(&mut rng);
        h.bth.opcode = opcode::WRITE_MIDDLE;
        h.reth = None;
        h.aeth = None;
        h.immdt = None;
        h.ieth = None;
        h.atomic = None;
        let f = h.build(&rng.bytes(4096));
        let (e, p) = expect_hdr(&f);
        c.hdrs.push(e);
        c.payloads.push(p);
        c.frames.push(AxisFrame::new(f[..f.len() - 4].to_vec()));
    }
    let beats_in: u64 = c.frames.iter().map(|f| f.data.len().div_ceil(64) as u64).sum();
    sim.reset(2);
    let mut d = AxisDriver::new(&sim, "s_axis", 100, 1);
    let m = AxisMonitor::new(&sim, "m_axis", 100, 2);
    let mut hm = ChanMonitor::new(&sim, "hdr", 100, 3);
    for f in &c.frames {
        d.push(f.clone());
    }
    let mut b = StreamBench::new(vec![d], vec![m]);
    let mut stalls = 0;
    while !b.drivers[0].idle() {
        hm.drive(&mut sim);
        let tr = sim.port("s_axis$tready");
        b.step_with(&mut sim, |s| {
            if !s.get_bit(tr) {
                stalls += 1;
            }
            hm.sample(s)
        });
    }
    assert!(stalls <= 2, "input stalled {stalls} cycles over {beats_in} beats");
}

// ------------------------------------------------------------------ RxCutPick

mod cut_pick_top {
    use nicgen_hw::roce::hdr::RxCutPick;
    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    pub struct CutPickTop {
        pub clock: Signal<In, Clock>,
        pub data: Signal<In, Bits<512>>,
        pub cut_safe: Signal<Out, Bit>,
        pub cut_reth: Signal<Out, Bit>,
        p: RxCutPick,
    }

    impl Logic for CutPickTop {
        #[hdl_gen]
        fn update(&mut self) {
            self.p.data.next = self.data.val();
            self.cut_safe.next = self.p.cut_safe.val();
            self.cut_reth.next = self.p.cut_reth.val();
        }
    }
    nicgen_sim::impl_ports!(CutPickTop, clock = clock, [clock, data, cut_safe, cut_reth]);
}

/// The class etherparse gives a frame: RoCEv2 (IPv4 without options or IPv6, UDP to 4791), its
/// IP length field at least `CUT_MIN_LEN`, and its opcode in `CUT_OPS`.
fn cut_class_by_etherparse(f: &[u8]) -> Option<usize> {
    use etherparse::{NetSlice, SlicedPacket, TransportSlice};
    let p = SlicedPacket::from_ethernet(f).ok()?;
    if p.vlan.is_some() {
        return None;
    }
    let lf = match p.net.as_ref()? {
        NetSlice::Ipv4(v4) if v4.header().ihl() == 5 => v4.header().total_len(),
        NetSlice::Ipv6(v6) if v6.extensions().is_empty() => v6.header().payload_length(),
        _ => return None,
    };
    let udp = match p.transport.as_ref()? {
        TransportSlice::Udp(u) => u.clone(),
        _ => return None,
    };
    if udp.destination_port() != 4791 || lf < CUT_MIN_LEN {
        return None;
    }
    let op = *udp.payload().first()?;
    CUT_OPS.iter().position(|c| c.contains(&op))
}

/// The RX buffer's first-beat classifier (speculative placement): every RC opcode, IPv4 and IPv6,
/// IP lengths around `CUT_MIN_LEN`, and frames that are not RoCEv2, against etherparse, on
/// Verilator and in lock step with rust-hdl.
#[test]
fn cut_pick_matches_etherparse() {
    use cut_pick_top::CutPickTop;
    let mut rng = Rng::new(31);
    let mut frames: Vec<Vec<u8>> = vec![];
    for &op in opcode::ALL_RC.iter() {
        for _ in 0..12 {
            let mut h = random_headers(&mut rng);
            h.bth.opcode = op;
            let base = h.build(&[]).len() - 14 - 4;
            // IP lengths at and around the threshold, and long ones
            let lens = [CUT_MIN_LEN as usize - 1, CUT_MIN_LEN as usize, CUT_MIN_LEN as usize + 1, 4096 + base];
            let want_ip = lens[rng.below(4) as usize];
            let n = want_ip.saturating_sub(base);
            frames.push(h.build(&rng.bytes(n)));
        }
    }
    for _ in 0..200 {
        let mut f = random_roce_frame(&mut rng, 1200);
        match rng.below(4) {
            0 => {
                let (l4, _) = locate_udp(&f).unwrap();
                f[l4 + 3] ^= 0x40;
            }
            1 => f.splice(12..12, [0x81, 0x00, 0x00, 0x05]).for_each(drop),
            _ => {}
        }
        frames.push(f);
    }
    let classes: Vec<Option<usize>> = frames.iter().map(|f| cut_class_by_etherparse(f)).collect();
    for k in 0..2 {
        assert!(classes.iter().filter(|&&c| c == Some(k)).count() > 10, "class {k} covered");
    }
    assert!(classes.iter().filter(|c| c.is_none()).count() > 100);
    let run = |sim: &mut dyn CycleSim| {
        let (d, s, r) = (sim.port("data"), sim.port("cut_safe"), sim.port("cut_reth"));
        for (f, want) in frames.iter().zip(&classes) {
            let mut beat = f[..f.len().min(64)].to_vec();
            beat.resize(64, 0);
            sim.set(d, &nicgen_sim::axis::pack_beat(&beat, 64));
            sim.eval();
            assert_eq!((sim.get_bit(s), sim.get_bit(r)), (*want == Some(0), *want == Some(1)), "frame {:02x?}", &beat);
            assert_eq!(cut_class(&beat), *want);
            sim.tick();
        }
    };
    run(&mut verilate(&mut CutPickTop::default()));
    run(&mut Diff::new(verilate(&mut CutPickTop::default()), RustHdlSim::new(CutPickTop::default())));
}

// ------------------------------------------------------------------ RuntOfCode

mod runt_top {
    use nicgen_hw::roce::hdr::RuntOfCode;
    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    pub struct RuntTop {
        pub clock: Signal<In, Clock>,
        pub code_first: Signal<In, Bits<4>>,
        pub code_mid: Signal<In, Bits<4>>,
        pub mid: Signal<In, Bit>,
        pub keep: Signal<In, Bits<64>>,
        pub runt: Signal<Out, Bit>,
        r: RuntOfCode,
    }

    impl Logic for RuntTop {
        #[hdl_gen]
        fn update(&mut self) {
            self.r.code_first.next = self.code_first.val();
            self.r.code_mid.next = self.code_mid.val();
            self.r.mid.next = self.mid.val();
            self.r.keep.next = self.keep.val();
            self.runt.next = self.r.runt.val();
        }
    }
    nicgen_sim::impl_ports!(RuntTop, clock = clock, [clock, code_first, code_mid, mid, keep, runt]);
}

/// `RuntOfCode` on its own: every header-length code, the first and the second beat, and every
/// byte count of a contiguous `tkeep` (0 to 64). A beat is a runt's when the frame's bytes up to
/// its end (`n`, or 64 + `n` in the second beat) are no more than the header length: the count
/// compared with the length, where the block picks one keep bit. The other beat's code is set to
/// a different one, which must not matter. Verilator, and in lock step with rust-hdl.
#[test]
fn runt_of_code_matches_the_byte_count() {
    use runt_top::RuntTop;
    let run = |sim: &mut dyn CycleSim| {
        let (cf, cm, mid, keep, runt) = (sim.port("code_first"), sim.port("code_mid"), sim.port("mid"), sim.port("keep"), sim.port("runt"));
        let mut seen = [0usize; 2];
        for code in 0..16u8 {
            let hl = hdr_len_of_code(code) as usize;
            for second in [false, true] {
                for n in 0..=64usize {
                    let other = (code + 1 + (n as u8 % 15)) % 16;
                    let (f, m) = if second { (other, code) } else { (code, other) };
                    sim.set(cf, &[f as u32]);
                    sim.set(cm, &[m as u32]);
                    sim.set_bit(mid, second);
                    sim.set(keep, &keep_words(n, 64));
                    sim.eval();
                    let upto = if second { 64 + n } else { n };
                    let want = upto <= hl;
                    assert_eq!(sim.get_bit(runt), want, "code {code} (header {hl} B), {} beat, {n} bytes", if second { "second" } else { "first" });
                    seen[want as usize] += 1;
                    sim.tick();
                }
            }
        }
        assert!(seen[0] > 500 && seen[1] > 500, "both outcomes covered: {seen:?}");
    };
    run(&mut verilate(&mut RuntTop::default()));
    run(&mut Diff::new(verilate(&mut RuntTop::default()), RustHdlSim::new(RuntTop::default())));
}

/// `s_flag` and `s_spec`, held per frame, become each header's `tap_flag` and `spec`; a
/// cut-through frame cut short at or before the end of its headers (a runt) says `len_err` with
/// `plen` 0, one cut short after them keeps the lengths of its IP header. One- and two-beat
/// frames (a one-beat frame's header leaves the cycle after its beat, from registers), random
/// gaps and backpressure on both outputs, lock step with rust-hdl.
#[test]
fn flags_spec_and_cut_short_runts() {
    let mut rng = Rng::new(17);
    // (frame without ICRC, flag, spec, cut short, expected header)
    let mut cases: Vec<(Vec<u8>, bool, bool, bool, RxHdrFields)> = vec![];
    let mut runts = 0;
    for i in 0..400 {
        let h = random_headers(&mut rng);
        let op = h.bth.opcode;
        let len = if OpcodeLayout::of(op).unwrap().payload { rng.below(if i % 2 == 0 { 8 } else { 200 }) as usize } else { 0 };
        let f = h.build(&rng.bytes(len));
        let (mut e, _) = expect_hdr(&f);
        let mut f = f[..f.len() - 4].to_vec();
        let (flag, spec) = (rng.below(2) == 1, rng.below(2) == 1);
        let mut cut = false;
        let hl = frame_info(&f).hdr_len as usize;
        if spec && rng.below(2) == 1 {
            // cut short somewhere from the end of the BTH to a little past the headers
            let bth_end = if e.ipv6 { BTH_V6 } else { BTH_V4 } + 12;
            let n = rng.range(bth_end as u64, (hl + 20).min(f.len()) as u64) as usize;
            if n < f.len() {
                f.truncate(n);
                cut = true;
            }
        }
        // a cut-through frame that ends no later than its headers (cut short, or one without
        // payload; the RX buffer cuts only frames with one through) is a runt
        if spec && f.len() <= hl {
            e.len_err = true;
            e.plen = 0;
            runts += cut as usize;
        }
        e.tap_flag = flag;
        e.spec = spec;
        cases.push((f, flag, spec, cut, e));
    }
    assert!(runts > 30, "{runts} runts");
    assert!(cases.iter().filter(|c| c.0.len() <= 64).count() > 50, "one-beat frames");
    let frames: Vec<AxisFrame> = cases.iter().map(|c| AxisFrame::new(c.0.clone())).collect();
    let side: Vec<(bool, bool)> = cases.iter().map(|c| (c.1, c.2)).collect();
    let check = |got: Vec<RxHdrFields>| {
        assert_eq!(got.len(), cases.len(), "one header per frame");
        for (i, (g, c)) in got.iter().zip(&cases).enumerate() {
            let w = &c.4;
            assert_eq!((g.tap_flag, g.spec, g.len_err, g.plen), (w.tap_flag, w.spec, w.len_err, w.plen), "header {i} (frame of {} bytes, cut {})", c.0.len(), c.3);
            if !c.3 {
                assert!(same_hdr(g, w), "header {i}:\n got  {g:x?}\n want {w:x?}");
            }
        }
    };
    let mut v = verilate(&mut RoceRxParse::default());
    for (seed, valid, ready, hready) in [(1, 100, 100, 100), (2, 70, 60, 30), (3, 40, 100, 15)] {
        check(run_parser(&mut v, &frames, &side, valid, ready, hready, seed).0);
    }
    let mut d = Diff::new(verilate(&mut RoceRxParse::default()), RustHdlSim::new(RoceRxParse::default()));
    check(run_parser(&mut d, &frames, &side, 80, 70, 50, 4).0);
}
