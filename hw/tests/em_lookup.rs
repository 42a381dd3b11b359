//! Address lookups on Verilator: every result against the golden model
//! (`nicgen_model::em::LookTables::lookup`) in both modes and on both sides, with random
//! tables (full rows included), misses, spoofed sources and frames the classifier already
//! dropped; random gaps and backpressure; one frame per cycle at `LOOKUP_LATENCY`; lock step.
mod common;
use common::{em_frame, em_frame6};
use nicgen_hw::em::classify::{EmActFields, EmEventFields};
use nicgen_hw::em::lookup::*;
use nicgen_hw::em::EmHdrFields;
use nicgen_model::em::*;
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::*;

#[derive(Clone)]
struct In {
    p: EmParsed,
    vf: u16,
    h: EmHdrFields,
    a: EmActFields,
}

struct Out {
    v: Vec<(EmHdrFields, EmActFields, EmLookFields)>,
    at: Vec<u64>,
    ev: Vec<EmEventFields>,
    counters: Vec<u32>,
}

#[allow(clippy::too_many_arguments)]
fn run<S: CycleSim>(sim: &mut S, wire: bool, nat: bool, t: &LookTables, ins: &[In], rates: (u32, u32, u32), seed: u64) -> Out {
    sim.reset(2);
    let (fw, np) = (sim.port("from_wire"), sim.port("nat"));
    sim.set_bit(fw, wire);
    sim.set_bit(np, nat);
    let mut tw = ChanDriver::new(sim, "s_tw", 100, seed);
    for w in lookup_writes(t) {
        tw.push(w.to_words());
    }
    let mut hd = ChanDriver::new(sim, "s_hdr", rates.0, seed + 1);
    let mut mo = ChanMonitor::new(sim, "m_hdr", rates.1, seed + 2);
    let mut ev = ChanMonitor::new(sim, "m_ev", rates.2, seed + 3);
    let (s_act, m_act, m_look) = (sim.port("s_act"), sim.port("m_act"), sim.port("m_look"));
    let mut o = Out { v: vec![], at: vec![], ev: vec![], counters: vec![] };
    let (mut loaded, mut quiet, mut next) = (false, 0, 0usize);
    while quiet < 30 {
        if !loaded && tw.idle() {
            for i in ins {
                hd.push(i.h.to_words());
            }
            loaded = true;
        }
        tw.drive(sim);
        hd.drive(sim);
        if loaded && next < ins.len() {
            // the verdict moves with its header
            sim.set(s_act, &ins[next].a.to_words());
        }
        mo.drive(sim);
        ev.drive(sim);
        sim.eval();
        let mut moved = tw.sample(sim) | ev.sample(sim);
        if hd.sample(sim) {
            next += 1;
            moved = true;
        }
        if mo.sample(sim) {
            let (c, w) = mo.seen.last().unwrap().clone();
            o.v.push((EmHdrFields::from_words(&w), EmActFields::from_words(&sim.get_words(m_act)), EmLookFields::from_words(&sim.get_words(m_look))));
            o.at.push(c);
            moved = true;
        }
        sim.tick();
        quiet = if moved || !hd.idle() || !tw.idle() || !loaded { 0 } else { quiet + 1 };
        assert!(sim.cycle() < 1_000_000, "lookup stalled");
    }
    o.ev = ev.seen.iter().map(|(_, w)| EmEventFields::from_words(w)).collect();
    o.counters = ["drop_no_route", "drop_no_local", "drop_spoof", "ev_lost", "drop_ipv6"].iter().map(|c| sim.get_u64(sim.port(c)) as u32).collect();
    o
}

/// Tables for tenants 1..=3 over a small address pool (so lookups hit and miss), with rows
/// deliberately filled to 4 ways by a small row count.
fn tables(rng: &mut Rng, pool: &[u32], z: LookSizes) -> LookTables {
    let mut t = LookTables::new(z.remote_bits as u32, z.local_bits as u32);
    for tenant in 1..=3u16 {
        t.vni[tenant as usize] = 5000 + tenant as u32;
        for (k, a) in pool.iter().enumerate() {
            if rng.chance(70) {
                let _ = t.insert_remote(RemoteEntry { valid: true, pinned: k % 5 == 0, kind: 0, tenant, addr: *a, value: rng.next_u64() as u32, port: rng.below(2) as u8 });
            }
            if rng.chance(70) {
                let _ = t.insert_remote(RemoteEntry { valid: true, pinned: false, kind: 1, tenant, addr: *a, value: rng.next_u64() as u32, port: 0 });
            }
            if rng.chance(60) {
                let _ = t.insert_local(LocalEntry { valid: true, tenant, addr: *a, vf: rng.below(4096) as u16, vip: rng.next_u64() as u32 });
            }
        }
    }
    for vf in 0..16usize {
        t.vfs[vf] = (pool[vf % pool.len()], rng.next_u64() as u32);
    }
    t
}

fn inputs(rng: &mut Rng, pool: &[u32], t: &LookTables, wire: bool, n: usize) -> Vec<In> {
    (0..n)
        .map(|_| {
            let proto = [6u8, 17][rng.below(2) as usize];
            let dport = rng.range(1, 3000) as u16;
            let v6 = rng.chance(25);
            let mut f = if v6 { em_frame6(rng, None, proto, dport, &[]) } else { em_frame(rng, None, proto, dport, &[]) };
            let vf = if wire { 0 } else { rng.below(16) as u16 };
            let (mut src, dst) = (pool[rng.below(pool.len() as u64) as usize], pool[rng.below(pool.len() as u64) as usize]);
            if !wire && rng.chance(70) {
                // the VF's own VIP (else NAT egress calls it spoofed)
                src = t.vfs[vf as usize].0;
            }
            if v6 {
                // IPv6 addresses whose folds are the pool's addresses (the entries' keys)
                for (o, a) in [(22, src), (38, dst)] {
                    let w: u32 = (0..3).map(|j| u32::from_be_bytes(f[o + 4 * j..o + 4 * j + 4].try_into().unwrap())).fold(a, |x, y| x ^ y);
                    f[o + 12..o + 16].copy_from_slice(&w.to_be_bytes());
                }
            } else {
                f[26..30].copy_from_slice(&src.to_be_bytes());
                f[30..34].copy_from_slice(&dst.to_be_bytes());
                f[24] = 0;
                f[25] = 0;
                let c = ipv4_checksum(&f[14..34]);
                f[24..26].copy_from_slice(&c.to_be_bytes());
            }
            let f = if wire && rng.chance(50) {
                let tun = VxlanTunnel { smac: [2, 0, 0, 0, 0, 1], dmac: [2, 0, 0, 0, 0, 2], sip: 1, dip: 2, ttl: 64, tos: 0, vni: 7 };
                vxlan_encap(&f, &tun, 50000)
            } else {
                f
            };
            let p = em_parse(&f, wire, false).expect("well formed");
            let cause = if rng.chance(10) { rng.range(1, 3) as u8 } else { 0 };
            let a = EmActFields { tenant: rng.range(1, 4) as u16, cause, ts: rng.next_u64() as u32, ..Default::default() };
            In { p, vf, h: EmHdrFields::of(&p, vf), a }
        })
        .collect()
}

fn check(ins: &[In], o: &Out, t: &LookTables, wire: bool, mode: EmMode) -> [u32; 8] {
    assert_eq!(o.v.len(), ins.len());
    let mut n = [0u32; 8];
    for (k, (i, (h, a, l))) in ins.iter().zip(&o.v).enumerate() {
        assert_eq!(*h, i.h, "header {k}");
        let (cause, look) = if i.a.cause != 0 {
            (i.a.cause, Look::default())
        } else {
            match t.lookup(&i.p, i.vf, i.a.tenant, wire, mode) {
                Ok(l) => (0, l),
                Err(d) => (d as u8, Look::default()),
            }
        };
        assert_eq!(*a, EmActFields { cause, ..i.a }, "verdict {k} ({mode:?}, wire {wire})");
        assert_eq!(*l, EmLookFields::of(&look), "lookup {k} ({mode:?}, wire {wire})");
        n[cause as usize] += 1;
    }
    n
}

#[test]
fn lookups_match_the_model_in_both_modes() {
    let mut rng = Rng::new(9);
    let pool: Vec<u32> = (0..90).map(|_| rng.next_u64() as u32).collect();
    let z = LookSizes { remote_bits: 6, local_bits: 5 };
    let t = tables(&mut rng, &pool, z);
    let full = t.remote.iter().filter(|r| r.iter().all(|e| e.valid)).count();
    assert!(full > 10, "{full} full rows: bounded probing is exercised");
    for (k, (wire, mode)) in [(false, EmMode::Overlay), (false, EmMode::Nat), (true, EmMode::Overlay), (true, EmMode::Nat)].into_iter().enumerate() {
        let ins = inputs(&mut rng, &pool, &t, wire, 1500);
        let mut sim = verilate(&mut EmLookup::new(z));
        for (j, rates) in [(100, 100, 100), (70, 55, 40)].into_iter().enumerate() {
            let o = run(&mut sim, wire, mode == EmMode::Nat, &t, &ins, rates, (10 * k + j) as u64);
            let n = check(&ins, &o, &t, wire, mode);
            assert!(n[0] > 100, "{n:?}");
            // IPv6 frames pass in overlay mode (by their addresses' folds) and NAT mode drops them
            let v6_ok = ins.iter().zip(&o.v).filter(|(i, (_, a, _))| Tuple::of(&i.p).v6 && a.cause == 0).count();
            if mode == EmMode::Nat {
                assert!(n[7] > 100 && v6_ok == 0, "{n:?}");
            } else {
                assert!(n[7] == 0 && v6_ok > 30, "{n:?}, {v6_ok} IPv6 frames passed");
            }
            assert_eq!(o.counters[4], n[7], "drop_ipv6");
            match (wire, mode) {
                (false, EmMode::Nat) => assert!(n[4] > 50 && n[6] > 50, "{n:?}"),
                (false, EmMode::Overlay) => assert!(n[4] > 50 && n[6] == 0, "{n:?}"),
                (true, EmMode::Nat) => assert!(n[4] > 50 && n[5] > 50, "{n:?}"),
                (true, EmMode::Overlay) => assert!(n[5] > 50 && n[4] == 0, "{n:?}"),
            }
            assert_eq!(&o.counters[..3], &[n[4], n[5], n[6]]);
            assert_eq!(o.ev.len() as u32 + o.counters[3], n[4] + n[5], "every miss is an event or counted lost");
            if rates.2 == 100 {
                assert_eq!(o.counters[3], 0);
                let misses: Vec<(&In, u8)> = ins.iter().zip(&o.v).filter(|(_, (_, a, _))| a.cause == 4 || a.cause == 5).map(|(i, (_, a, _))| (i, a.cause)).collect();
                for (e, (i, c)) in o.ev.iter().zip(misses) {
                    let tu = Tuple::of(&i.p);
                    let value = if c == 5 || !wire { tu.dst } else { tu.src };
                    assert_eq!((e.kind, e.value, e.tenant), (c - 1, value, i.a.tenant));
                }
            }
        }
    }
}

#[test]
fn one_frame_per_cycle_at_fixed_latency() {
    let mut rng = Rng::new(4);
    let pool: Vec<u32> = (0..40).map(|_| rng.next_u64() as u32).collect();
    // the default sizes (64K remote entries, whose RAM has no initial loop: it starts at zero)
    let t = tables(&mut rng, &pool, LookSizes::default());
    let ins = inputs(&mut rng, &pool, &t, false, 300);
    let mut sim = verilate(&mut EmLookup::default());
    let o = run(&mut sim, false, true, &t, &ins, (100, 100, 100), 1);
    check(&ins, &o, &t, false, EmMode::Nat);
    for (k, c) in o.at.iter().enumerate() {
        assert_eq!(*c, o.at[0] + k as u64, "frame {k}");
    }
    assert_eq!(o.at[0] - (2 + lookup_writes(&t).len() as u64), LOOKUP_LATENCY as u64);
}

#[test]
fn lock_step() {
    let mut rng = Rng::new(6);
    let pool: Vec<u32> = (0..60).map(|_| rng.next_u64() as u32).collect();
    let z = LookSizes { remote_bits: 6, local_bits: 5 };
    let t = tables(&mut rng, &pool, z);
    for wire in [false, true] {
        let ins = inputs(&mut rng, &pool, &t, wire, 200);
        let mut sim = Diff::new(verilate(&mut EmLookup::new(z)), RustHdlSim::new(EmLookup::new(z)));
        let o = run(&mut sim, wire, true, &t, &ins, (80, 70, 50), 2);
        check(&ins, &o, &t, wire, EmMode::Nat);
    }
}
