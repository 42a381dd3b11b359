//! Classification and policy on Verilator: every verdict against the golden model
//! (`nicgen_model::em::ClsTables::classify`) with random tables, random gaps and backpressure;
//! the ACL outcome table of docs/em.md; the token bucket (GCRA) against its rate; an atomic
//! switch of a tenant's rule group under traffic; miss events; one header per cycle at a
//! latency of `CLASSIFY_LATENCY`; lock step with rust-hdl.
mod common;
use common::{em_frame, em_frame6};
use nicgen_hw::em::classify::*;
use nicgen_hw::em::EmHdrFields;
use nicgen_model::em::*;
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::*;

/// One header to classify: the parsed frame, its VF and its header.
#[derive(Clone)]
struct In {
    p: EmParsed,
    vf: u16,
    h: EmHdrFields,
}

#[derive(Default)]
struct Out {
    /// (header, verdict) in order.
    v: Vec<(EmHdrFields, EmActFields)>,
    ev: Vec<EmEventFields>,
    counters: Vec<u32>,
    /// Cycle of each verdict's transfer.
    at: Vec<u64>,
}

const COUNTERS: [&str; 6] = ["frames", "drop_no_tenant", "drop_acl", "drop_qos", "marked", "ev_lost"];

/// Run `ins` through the classifier after `writes`; `mid` = (after this many verdicts out, these
/// writes). `rates` = (valid %, ready %, event ready %).
fn run<S: CycleSim>(sim: &mut S, wire: bool, writes: &[EmTblWrFields], ins: &[In], mid: Option<(usize, Vec<EmTblWrFields>)>, rates: (u32, u32, u32), seed: u64) -> Out {
    sim.reset(2);
    let fw = sim.port("from_wire");
    sim.set_bit(fw, wire);
    let mut tw = ChanDriver::new(sim, "s_tw", 100, seed);
    for w in writes {
        tw.push(w.to_words());
    }
    let mut hd = ChanDriver::new(sim, "s_hdr", rates.0, seed + 1);
    let mut mo = ChanMonitor::new(sim, "m_hdr", rates.1, seed + 2);
    let mut ev = ChanMonitor::new(sim, "m_ev", rates.2, seed + 3);
    let act = sim.port("m_act");
    let mut o = Out::default();
    let mut mid = mid;
    let mut quiet = 0;
    let mut loaded = false;
    while quiet < 40 {
        if !loaded && tw.idle() {
            // the tables are in: offer the headers
            for i in ins {
                hd.push(i.h.to_words());
            }
            loaded = true;
        }
        if let Some((n, w)) = &mid {
            if o.v.len() >= *n {
                for x in w {
                    tw.push(x.to_words());
                }
                mid = None;
            }
        }
        tw.drive(sim);
        hd.drive(sim);
        mo.drive(sim);
        ev.drive(sim);
        sim.eval();
        let mut moved = tw.sample(sim) | hd.sample(sim) | ev.sample(sim);
        if mo.sample(sim) {
            let (c, w) = mo.seen.last().unwrap().clone();
            o.v.push((EmHdrFields::from_words(&w), EmActFields::from_words(&sim.get_words(act))));
            o.at.push(c);
            moved = true;
        }
        sim.tick();
        quiet = if moved || !hd.idle() || !tw.idle() || !loaded { 0 } else { quiet + 1 };
        assert!(sim.cycle() < 2_000_000, "classifier stalled");
    }
    o.ev = ev.seen.iter().map(|(_, w)| EmEventFields::from_words(w)).collect();
    o.counters = COUNTERS.iter().map(|c| sim.get_u64(sim.port(c)) as u32).collect();
    o
}

fn host_in(rng: &mut Rng, vf: u16) -> In {
    let proto = [6u8, 17, 17, 1][rng.below(4) as usize];
    let vlan = if rng.chance(20) { Some(rng.below(4096) as u16) } else { None };
    let n = rng.range(0, 400) as usize;
    let payload = rng.bytes(n);
    let dport = rng.range(1, 2000) as u16;
    let f = if rng.chance(20) { em_frame6(rng, vlan, if proto == 1 { 58 } else { proto }, dport, &payload) } else { em_frame(rng, vlan, proto, dport, &payload) };
    let p = em_parse(&f, false, false).expect("well formed");
    In { p, vf, h: EmHdrFields::of(&p, vf) }
}

fn wire_in(rng: &mut Rng, vni: Option<u32>, pip: u32) -> In {
    let proto = [6u8, 17][rng.below(2) as usize];
    let n = rng.range(0, 300) as usize;
    let payload = rng.bytes(n);
    let dport = rng.range(1, 2000) as u16;
    let v6 = rng.chance(20);
    let inner = if v6 { em_frame6(rng, None, proto, dport, &payload) } else { em_frame(rng, None, proto, dport, &payload) };
    let f = match vni {
        // an IPv6 frame from the wire outside VXLAN: it has no key (PIPs are IPv4)
        None if v6 => inner,
        Some(vni) => {
            let t = VxlanTunnel { smac: [2, 0, 0, 0, 0, 1], dmac: [2, 0, 0, 0, 0, 2], sip: 0x0a00_0001, dip: pip, ttl: 64, tos: 0, vni };
            vxlan_encap(&inner, &t, 50000)
        }
        None => {
            let mut f = inner;
            let l3 = 14;
            f[l3 + 16..l3 + 20].copy_from_slice(&pip.to_be_bytes());
            // the destination changed: a fresh IPv4 checksum
            f[l3 + 10] = 0;
            f[l3 + 11] = 0;
            let c = ipv4_checksum(&f[l3..l3 + 20]);
            f[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
            f
        }
    };
    let p = em_parse(&f, true, false).expect("well formed");
    In { p, vf: 0, h: EmHdrFields::of(&p, 0) }
}

fn random_rule(rng: &mut Rng) -> AclRule {
    let lo = |r: &mut Rng| r.range(0, 1500) as u16;
    let (a, b) = (lo(rng), lo(rng));
    let (c, d) = (lo(rng), lo(rng));
    AclRule {
        valid: !rng.chance(5),
        allow: rng.chance(75),
        term: rng.chance(50),
        proto_any: rng.chance(50),
        proto: [6u8, 17, 1][rng.below(3) as usize],
        src: rng.next_u64() as u32,
        src_mask: prefix_mask(rng.below(3) as u32),
        dst: rng.next_u64() as u32,
        dst_mask: prefix_mask(rng.below(3) as u32),
        sp_lo: if rng.chance(50) { 0 } else { (a.min(b) as u32 * 40).min(65535) as u16 },
        sp_hi: if rng.chance(50) { 65535 } else { (a.max(b) as u32 * 40).min(65535) as u16 },
        dp_lo: c.min(d),
        dp_hi: if rng.chance(30) { 65535 } else { c.max(d) },
    }
}

/// Random tables: 8 tenants (tenant 5 not valid) on groups 0..8, VFs 0..6 and VNIs 100..106
/// and PIPs 10.1.0.0..6 mapped (7 is not), random rules, QoS on VFs 0..3 (1 and 3 marking).
fn random_tables(rng: &mut Rng) -> ClsTables {
    let mut t = ClsTables::new(10, 4096, 64, 4096);
    for i in 0..8u16 {
        t.tenants[i as usize] = (i != 5, i + 3);
        let n = rng.range(0, 16) as usize;
        for s in 0..n {
            t.acl[i as usize + 3][s] = random_rule(rng);
        }
    }
    for k in 0..7u32 {
        t.insert(KeyKind::Vf, k, (k % 8) as u16, false).unwrap();
        t.insert(KeyKind::Vni, 100 + k, ((k + 2) % 8) as u16, false).unwrap();
        t.insert(KeyKind::Pip, 0x0a01_0000 + k, ((k + 4) % 8) as u16, k == 3).unwrap();
    }
    for vf in 0..4 {
        t.qos[vf] = QosCfg::from_rate(if vf % 2 == 1 { 0.3 } else { 1.0 }, 1000, vf % 2 == 1);
    }
    t
}

fn model_verdicts(t: &ClsTables, ins: &[In], wire: bool, out: &Out) -> Vec<ClsVerdict> {
    let mut m = t.clone();
    ins.iter().zip(&out.v).map(|(i, (_, a))| m.classify(&i.p, i.vf, wire, a.ts as u64)).collect()
}

fn check(ins: &[In], wire: bool, t: &ClsTables, o: &Out, what: &str) -> [u32; 4] {
    assert_eq!(o.v.len(), ins.len(), "{what}: every header comes out");
    let want = model_verdicts(t, ins, wire, o);
    if std::env::var("CLS_DEBUG").is_ok() {
        for (k, (i, (_, a))) in ins.iter().zip(&o.v).enumerate().take(12) {
            eprintln!("{k}: vf {} len {} ts {} act {:?} want {:?}", i.vf, i.p.len, a.ts, a, want[k]);
        }
    }
    let mut n = [0u32; 4];
    for (k, ((i, (h, a)), w)) in ins.iter().zip(&o.v).zip(&want).enumerate() {
        assert_eq!(*h, i.h, "{what}: header {k} unchanged");
        let cause = w.drop.map_or(0, |d| d as u8);
        assert_eq!((a.cause, a.tenant, a.marked), (cause, w.tenant, w.marked), "{what}: verdict {k} ({:?})", w);
        assert_eq!((a.rule_hit, a.rule), (w.rule.is_some(), w.rule.unwrap_or(0) as u8), "{what}: rule of {k}");
        n[cause as usize] += 1;
    }
    n
}

#[test]
fn verdicts_match_the_model_host_and_wire() {
    let mut rng = Rng::new(11);
    let t = random_tables(&mut rng);
    let writes = table_writes(&t);
    let host: Vec<In> = (0..1500).map(|_| { let vf = rng.below(8) as u16; host_in(&mut rng, vf) }).collect();
    let wire: Vec<In> = (0..1500)
        .map(|_| {
            let k = rng.below(8) as u32;
            if rng.chance(50) { wire_in(&mut rng, Some(100 + k), 0x0a00_0002) } else { wire_in(&mut rng, None, 0x0a01_0000 + k) }
        })
        .collect();
    for (k, (valid, ready, evr)) in [(100, 100, 100), (70, 60, 100), (90, 45, 30)].into_iter().enumerate() {
        // a fresh classifier per run: the model's GCRA state starts empty
        let mut sim = verilate(&mut EmClassify::default());
        let o = run(&mut sim, false, &writes, &host, None, (valid, ready, evr), 10 + k as u64);
        let n = check(&host, false, &t, &o, "host");
        assert!(n.iter().all(|x| *x > 20), "host: every outcome occurs: {n:?}");
        assert_eq!(&o.counters[..4], &[host.len() as u32, n[1], n[2], n[3]], "host counters");
        let marked = o.v.iter().filter(|(_, a)| a.marked).count() as u32;
        assert!(marked > 20, "marked {marked}, outcomes {n:?}");
        assert_eq!(o.counters[4], marked);
        assert_eq!(o.ev.len() as u32 + o.counters[5], n[1], "every miss is an event or counted lost");
        if evr == 100 {
            assert_eq!(o.counters[5], 0);
        }
        // events carry the missing key and the tuple, in order
        let misses: Vec<&In> = host.iter().zip(&o.v).filter(|(_, (_, a))| a.cause == 1).map(|(i, _)| i).collect();
        if evr == 100 {
            for (e, i) in o.ev.iter().zip(&misses) {
                let tu = Tuple::of(&i.p);
                assert_eq!((e.kind, e.value, e.src, e.dst, e.proto, e.sport, e.dport), (0, i.vf as u32, tu.src, tu.dst, tu.proto, tu.sport, tu.dport));
            }
        }
        let mut sim = verilate(&mut EmClassify::default());
        let o = run(&mut sim, true, &writes, &wire, None, (valid, ready, evr), 20 + k as u64);
        let n = check(&wire, true, &t, &o, "wire");
        assert!(n[0] > 20 && n[1] > 20 && n[2] > 20 && n[3] == 0, "wire: outcomes {n:?} (no QoS on the wire side)");
        if evr == 100 {
            // (an IPv6 frame outside VXLAN misses without an event: nothing could be installed)
            let unkeyed = wire.iter().zip(&o.v).filter(|(i, (_, a))| i.p.vni.is_none() && i.p.outer.v6 && a.cause == 1).count();
            let misses: Vec<&In> = wire.iter().zip(&o.v).filter(|(i, (_, a))| a.cause == 1 && !(i.p.vni.is_none() && i.p.outer.v6)).map(|(i, _)| i).collect();
            assert!(unkeyed > 20, "{unkeyed} IPv6 frames from the wire outside VXLAN");
            assert_eq!(o.ev.len(), misses.len(), "one event per keyed miss");
            for (e, i) in o.ev.iter().zip(&misses) {
                let want = class_key(&i.p, 0, true);
                assert_eq!((e.kind, e.value), (want.0 as u8, want.1));
            }
        }
    }
}

/// The ACL outcome table of docs/em.md: one tenant, its rules, and per packet the verdict.
#[test]
fn acl_outcome_table() {
    let ip = |a: u8, b: u8, c: u8, d: u8| u32::from_be_bytes([a, b, c, d]);
    let any = AclRule { valid: true, src_mask: 0, dst_mask: 0, proto_any: true, sp_hi: 65535, dp_hi: 65535, ..Default::default() };
    let rules = [
        // 0: deny, terminating: anything from 10.66.0.0/16
        AclRule { allow: false, term: true, src: ip(10, 66, 0, 0), src_mask: prefix_mask(16), ..any },
        // 1: allow, not terminating: TCP to 192.168.1.0/24
        AclRule { allow: true, term: false, proto_any: false, proto: 6, dst: ip(192, 168, 1, 0), dst_mask: prefix_mask(24), ..any },
        // 2: deny, not terminating: destination ports 0..=1023
        AclRule { allow: false, term: false, dp_lo: 0, dp_hi: 1023, ..any },
        // 3: allow, terminating: destination port 22 from 10.0.0.0/8
        AclRule { allow: true, term: true, src: ip(10, 0, 0, 0), src_mask: prefix_mask(8), dp_lo: 22, dp_hi: 22, ..any },
        // 4: allow, terminating: UDP source ports 5000..=5999
        AclRule { allow: true, term: true, proto_any: false, proto: 17, sp_lo: 5000, sp_hi: 5999, ..any },
        // 5: an invalid rule that would allow everything
        AclRule { valid: false, allow: true, term: true, ..any },
    ];
    // (src, dst, proto, sport, dport) -> (allow, deciding rule); the last three rows are IPv6
    // frames whose addresses fold to the addresses shown: only rules without prefixes match them
    let table: [((u32, u32, u8, u16, u16), (bool, Option<usize>)); 13] = [
        ((ip(10, 66, 1, 1), ip(192, 168, 1, 5), 6, 4000, 80), (false, Some(0))), // rule 0 ends the walk
        ((ip(10, 1, 1, 1), ip(192, 168, 1, 5), 6, 4000, 8080), (true, Some(1))), // rule 1 only
        ((ip(10, 1, 1, 1), ip(192, 168, 1, 5), 6, 4000, 80), (false, Some(2))), // 1 then 2 overrides
        ((ip(10, 1, 1, 1), ip(192, 168, 1, 5), 6, 4000, 22), (true, Some(3))), // 1, 2, then 3 ends
        ((ip(11, 1, 1, 1), ip(192, 168, 1, 5), 6, 4000, 22), (false, Some(2))), // 1, 2; 3 not (source)
        ((ip(11, 1, 1, 1), ip(8, 8, 8, 8), 17, 5353, 53), (true, Some(4))), // 2, then 4 ends
        ((ip(11, 1, 1, 1), ip(8, 8, 8, 8), 17, 6000, 53), (false, Some(2))), // 2 only
        ((ip(11, 1, 1, 1), ip(8, 8, 8, 8), 17, 6000, 2000), (false, None)), // no match: default deny
        ((ip(11, 1, 1, 1), ip(192, 168, 2, 1), 6, 1, 1024), (false, None)), // just outside 1 and 2
        ((ip(10, 66, 255, 255), ip(8, 8, 8, 8), 17, 5000, 53), (false, Some(0))), // 0 before 4
        ((ip(10, 66, 255, 255), ip(8, 8, 8, 8), 17, 5000, 53), (true, Some(4))), // IPv6: 0 not (prefix); 2, then 4 ends
        ((ip(10, 1, 1, 1), ip(192, 168, 1, 5), 6, 4000, 8080), (false, None)), // IPv6: 1 not (prefix): no match
        ((ip(10, 1, 1, 1), ip(192, 168, 1, 5), 6, 4000, 22), (false, Some(2))), // IPv6: 2; 3 not (prefix)
    ];
    let v6_rows = 10;
    let mut t = ClsTables::new(10, 4096, 64, 4096);
    t.tenants[9] = (true, 2);
    t.acl[2][..rules.len()].copy_from_slice(&rules);
    t.insert(KeyKind::Vf, 4, 9, false).unwrap();
    let mut rng = Rng::new(3);
    let ins: Vec<In> = table
        .iter()
        .enumerate()
        .map(|(k, ((s, d, pr, sp, dp), _))| {
            let mut i = host_in(&mut rng, 4);
            (i.p.outer.src, i.p.outer.dst, i.p.outer.proto, i.p.outer.sport, i.p.outer.dport) = (*s, *d, *pr, *sp, *dp);
            i.p.outer.v6 = k >= v6_rows;
            i.h = EmHdrFields::of(&i.p, 4);
            i
        })
        .collect();
    for ((tu, want), i) in table.iter().zip(&ins) {
        assert_eq!(acl_eval(&t.acl[2], &Tuple::of(&i.p)), *want, "model: {tu:x?}");
    }
    let mut sim = verilate(&mut EmClassify::default());
    let o = run(&mut sim, false, &table_writes(&t), &ins, None, (60, 60, 100), 5);
    for (k, ((tu, (allow, rule)), (_, a))) in table.iter().zip(&o.v).enumerate() {
        let got = (a.cause == 0, a.rule_hit.then_some(a.rule as usize));
        assert_eq!(got, (*allow, *rule), "row {k}: {tu:x?}");
    }
}

/// GCRA against its rate: a VF offered far more than its rate passes rate × time + burst (give
/// or take one frame); in mark mode everything passes and the excess is marked; a VF under its
/// rate loses nothing.
#[test]
fn token_bucket_conforms_to_its_rate() {
    let mut t = ClsTables::new(10, 4096, 64, 4096);
    t.tenants[1] = (true, 1);
    t.acl[1][0] = AclRule { valid: true, allow: true, term: true, proto_any: true, sp_hi: 65535, dp_hi: 65535, ..Default::default() };
    let (rate, burst) = (12.5, 20_000u32); // 12.5 B/cycle: 25 Gb/s at 250 MHz
    for vf in 0..3u32 {
        t.insert(KeyKind::Vf, vf, 1, false).unwrap();
    }
    t.qos[0] = QosCfg::from_rate(rate, burst, false);
    t.qos[1] = QosCfg::from_rate(rate, burst, true);
    t.qos[2] = QosCfg::from_rate(400.0, burst, false);
    let mut rng = Rng::new(8);
    for vf in 0..3u16 {
        let mut sim = verilate(&mut EmClassify::default());
        let ins: Vec<In> = (0..6000).map(|_| host_in(&mut rng, vf)).collect();
        let o = run(&mut sim, false, &table_writes(&t), &ins, None, (100, 100, 100), vf as u64);
        check(&ins, false, &t, &o, "qos");
        let ts: Vec<u64> = o.v.iter().map(|(_, a)| a.ts as u64).collect();
        let span = (ts[ts.len() - 1] - ts[0] + 1) as f64;
        let offered: u64 = ins.iter().map(|i| i.p.len as u64).sum();
        let passed: u64 = ins.iter().zip(&o.v).filter(|(_, (_, a))| a.cause == 0 && !a.marked).map(|(i, _)| i.p.len as u64).sum();
        let max_frame = ins.iter().map(|i| i.p.len).max().unwrap() as f64;
        match vf {
            0 | 1 => {
                assert!(offered as f64 > 4.0 * rate * span, "offered {offered} B in {span} cycles");
                let ceiling = rate * span + burst as f64 + max_frame;
                let floor = rate * span + burst as f64 - 2.0 * max_frame;
                assert!((passed as f64) <= ceiling && (passed as f64) >= floor, "vf {vf}: {passed} B in {span} cycles, bounds {floor}..{ceiling}");
                if vf == 1 {
                    assert!(o.v.iter().all(|(_, a)| a.cause == 0), "mark mode passes everything");
                    assert!(o.counters[4] > 1000 && o.counters[3] == 0);
                } else {
                    assert!(o.counters[3] > 1000 && o.counters[4] == 0);
                }
            }
            _ => assert_eq!((passed, o.counters[3], o.counters[4]), (offered, 0, 0), "a VF under its rate"),
        }
    }
}

/// A tenant's rules change atomically: the OM writes the new rules into another group, then
/// the tenant's group number (one write). Every verdict is the old group's or the new one's,
/// old before new.
#[test]
fn rule_group_switch_is_atomic() {
    let mut rng = Rng::new(21);
    let mut t = ClsTables::new(10, 4096, 64, 4096);
    t.tenants[2] = (true, 7);
    t.insert(KeyKind::Vf, 0, 2, false).unwrap();
    for s in 0..16 {
        t.acl[7][s] = random_rule(&mut rng);
    }
    let mut new = t.clone();
    for s in 0..16 {
        new.acl[8][s] = random_rule(&mut rng);
    }
    new.tenants[2] = (true, 8);
    let ins: Vec<In> = (0..3000).map(|_| host_in(&mut rng, 0)).collect();
    let mut mid: Vec<EmTblWrFields> = (0..16).map(|s| EmTblWrFields::acl(8, s, &new.acl[8][s])).collect();
    mid.push(EmTblWrFields::tenant(2, true, 8));
    let mut sim = verilate(&mut EmClassify::default());
    let o = run(&mut sim, false, &table_writes(&t), &ins, Some((1000, mid)), (100, 90, 100), 4);
    assert_eq!(o.v.len(), ins.len());
    let (mut switched, mut differ) = (None, 0);
    for (k, (i, (_, a))) in ins.iter().zip(&o.v).enumerate() {
        let old = acl_eval(&t.acl[7], &Tuple::of(&i.p));
        let nw = acl_eval(&new.acl[8], &Tuple::of(&i.p));
        let got = (a.cause == 0, a.rule_hit.then_some(a.rule as usize));
        differ += (old != nw) as usize;
        if switched.is_none() && got != old {
            assert_eq!(got, nw, "verdict {k} is neither group's");
            switched = Some(k);
        }
        if let Some(s) = switched {
            assert_eq!(got, nw, "verdict {k}: the old group after the switch at {s}");
        }
    }
    let s = switched.expect("the switch shows");
    assert!(s >= 1000 && differ > 500, "switch at {s}, {differ} verdicts differ");
}

/// One header per cycle, and the latency from a header in to its verdict out.
#[test]
fn one_header_per_cycle_at_fixed_latency() {
    let mut rng = Rng::new(2);
    let t = random_tables(&mut rng);
    let ins: Vec<In> = (0..400).map(|_| { let vf = rng.below(8) as u16; host_in(&mut rng, vf) }).collect();
    let mut sim = verilate(&mut EmClassify::default());
    let o = run(&mut sim, false, &table_writes(&t), &ins, None, (100, 100, 100), 1);
    assert_eq!(o.v.len(), ins.len());
    let first = o.at[0];
    for (k, c) in o.at.iter().enumerate() {
        assert_eq!(*c, first + k as u64, "verdict {k}: one per cycle");
    }
    // the first header was offered the cycle after the last table write
    let writes = table_writes(&t).len() as u64;
    assert_eq!(first - (2 + writes), CLASSIFY_LATENCY as u64, "latency");
}

#[test]
fn lock_step() {
    let mut rng = Rng::new(5);
    let t = random_tables(&mut rng);
    let ins: Vec<In> = (0..300).map(|_| { let vf = rng.below(8) as u16; host_in(&mut rng, vf) }).collect();
    let mut sim = Diff::new(verilate(&mut EmClassify::default()), RustHdlSim::new(EmClassify::default()));
    let o = run(&mut sim, false, &table_writes(&t), &ins, None, (80, 70, 50), 3);
    check(&ins, false, &t, &o, "lock step");
}
