//! The M2M endpoint on its emitted Verilog under Verilator, against the golden endpoint
//! (`nicgen_model::m2m::Endpoint`): epochs, relay, atomic batches (shadow writes, swap, drain,
//! second pass), telemetry, malformed messages, and the host window under attack.
mod common;
use nicgen_hw::em::classify::EmTblWrFields;
use nicgen_hw::m2m::endpoint::*;
use nicgen_model::m2m::*;
use nicgen_sim::axil::{AxilMaster, OKAY, SLVERR};
use nicgen_sim::axis::*;
use nicgen_sim::*;

/// What the endpoint does towards the EM's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
enum TblEv {
    Write(EmTblWrFields),
    Swap,
}

fn tw_of(e: &TableEntry) -> EmTblWrFields {
    let (d0, d1) = e.effective();
    EmTblWrFields { table: e.table, index: e.index, d0, d1, dest: e.dest }
}

struct Bench {
    sim: VerilatorSim,
    b: StreamBench,
    ev: Vec<(u64, TblEv)>,
    /// Cycles at which `s_busy` fell after each swap.
    released: Vec<u64>,
    busy_left: u64,
    busy_max: u64,
    rng: Rng,
    p: [usize; 5],
    /// Miss events offered on `s_ev`, and those taken.
    ev_q: std::collections::VecDeque<nicgen_hw::em::classify::EmEventFields>,
    ev_taken: Vec<nicgen_hw::em::classify::EmEventFields>,
    evp: [usize; 3],
    id: u8,
    /// The datapath's two banks as the endpoint sees them: writes to the shadow, swap, reads
    /// of the live bank answered two cycles later.
    banks: [std::collections::BTreeMap<(u8, u8, u16), (u128, u128)>; 2],
    live: usize,
    rb_pending: std::collections::VecDeque<(u64, (u128, u128))>,
    rbp: [usize; 4],
    pub reads: usize,
}

impl Bench {
    fn new(id: u8, valid: u32, ready: u32, seed: u64) -> Bench {
        let mut sim = verilate(&mut M2mEndpoint::default());
        sim.reset(2);
        let emp = sim.port("em_id");
        sim.set_u64(emp, id as u64);
        let up = AxisDriver::new(&sim, "s_axis_up", valid, seed);
        let ret = AxisDriver::new(&sim, "s_axis_ret", valid, seed ^ 3);
        let down = AxisMonitor::new(&sim, "m_axis_down", ready, seed ^ 5);
        let reply = AxisMonitor::new(&sim, "m_axis_reply", ready, seed ^ 7);
        let p = [sim.port("m_tw"), sim.port("m_tw_valid"), sim.port("m_swap"), sim.port("s_busy"), emp];
        AxilMaster::new(&sim, "s_axil_host", 100, 1).idle(&mut sim);
        let evp = [sim.port("s_ev"), sim.port("s_ev_valid"), sim.port("s_ev_ready")];
        let rbp = [sim.port("m_rb"), sim.port("m_rb_valid"), sim.port("s_rb"), sim.port("s_rb_valid")];
        Bench { sim, b: StreamBench::new(vec![up, ret], vec![down, reply]), ev: vec![], released: vec![], busy_left: 0, busy_max: 40, rng: Rng::new(seed ^ 11), p, ev_q: Default::default(), ev_taken: vec![], evp, id, banks: Default::default(), live: 0, rb_pending: Default::default(), rbp, reads: 0 }
    }
    fn send(&mut self, msg: &[u8]) {
        self.b.drivers[0].push(AxisFrame::new(msg.to_vec()));
    }
    /// One cycle; returns whether anything happened towards the tables or the streams.
    fn step(&mut self) -> bool {
        let [tw, twv, swap, busy, _] = self.p;
        let mut ev = None;
        let mut sw = false;
        let [evd, evv, evr] = self.evp;
        let offer = self.ev_q.front().copied();
        if let Some(e) = offer {
            self.sim.set(evd, &e.to_words());
        }
        self.sim.set_bit(evv, offer.is_some());
        let mut ev_took = false;
        // the datapath's read-back answer, two cycles after the request
        let [rbq, rbqv, rbd, rbdv] = self.rbp;
        let now = self.sim.cycle();
        let ans = self.rb_pending.front().filter(|(at, _)| *at == now).map(|x| x.1);
        if let Some((d0, d1)) = ans {
            self.rb_pending.pop_front();
            self.sim.set(rbd, &EmTblWrFields { d0, d1, ..Default::default() }.to_words());
        }
        self.sim.set_bit(rbdv, ans.is_some());
        let mut rb_req = None;
        let moved = self.b.step_with(&mut self.sim, |sim| {
            ev_took = sim.get_bit(evr);
            if sim.get_bit(rbqv) {
                rb_req = Some(EmTblWrFields::from_words(&sim.get_words(rbq)));
            }
            if sim.get_bit(twv) {
                ev = Some(TblEv::Write(EmTblWrFields::from_words(&sim.get_words(tw))));
            }
            sw = sim.get_bit(swap);
            sim.get_bit(twv) | sw
        });
        let c = self.sim.cycle();
        if ev_took {
            assert!(offer.is_some(), "s_ev_ready without s_ev_valid");
            self.ev_taken.push(self.ev_q.pop_front().unwrap());
        }
        if let Some(r) = rb_req {
            let d = self.banks[self.live].get(&(r.dest, r.table, r.index)).copied().unwrap_or_default();
            self.rb_pending.push_back((c + 1, d));
            self.reads += 1;
        }
        if let Some(e) = ev {
            if let TblEv::Write(w) = &e {
                let k = (w.dest, w.table, w.index);
                self.banks[1 - self.live].insert(k, (w.d0, w.d1));
            }
            self.ev.push((c, e));
        }
        // the EM: frames that read the old bank stay in flight a while after each swap
        if sw {
            self.live = 1 - self.live;
            self.ev.push((c, TblEv::Swap));
            self.busy_left = self.rng.range(0, self.busy_max + 1);
        }
        if self.busy_left > 0 {
            self.busy_left -= 1;
            if self.busy_left == 0 {
                self.released.push(c);
            }
        } else if sw {
            self.released.push(c);
        }
        self.sim.set_bit(busy, self.busy_left > 0);
        moved || self.busy_left > 0
    }
    /// Run until every message is in and nothing has moved for 200 cycles.
    fn settle(&mut self) {
        let mut quiet = 0;
        let start = self.sim.cycle();
        while quiet < 200 {
            let busy = self.step() || self.b.drivers.iter().any(|d| !d.idle()) || !self.ev_q.is_empty();
            quiet = if busy { 0 } else { quiet + 1 };
            assert!(self.sim.cycle() - start < 2_000_000, "the endpoint wedged");
        }
    }
    /// Replies and acks (event messages left out).
    fn replies(&self) -> Vec<Vec<u8>> {
        self.b.monitors[1].frames.iter().map(|f| f.data.clone()).filter(|d| d[1] != MsgType::Event as u8).collect()
    }
    fn events(&self) -> Vec<Vec<u8>> {
        self.b.monitors[1].frames.iter().map(|f| f.data.clone()).filter(|d| d[1] == MsgType::Event as u8).collect()
    }
    fn relayed(&self) -> Vec<Vec<u8>> {
        self.b.monitors[0].frames.iter().map(|f| f.data.clone()).collect()
    }
}

/// The table events a list of golden outcomes implies: per applied batch, its writes, the swap,
/// and its writes again.
fn expected_events(outs: &[Outcome]) -> Vec<TblEv> {
    let mut v = vec![];
    for o in outs {
        if let Outcome::Reply { writes, .. } = o {
            if !writes.is_empty() {
                v.extend(writes.iter().map(|e| TblEv::Write(tw_of(e))));
                v.push(TblEv::Swap);
                v.extend(writes.iter().map(|e| TblEv::Write(tw_of(e))));
            }
        }
    }
    v
}

fn random_entry(rng: &mut Rng) -> TableEntry {
    let op = if rng.chance(20) { OP_DELETE } else { OP_WRITE };
    let d0 = (rng.next_u64() as u128) << 64 | rng.next_u64() as u128;
    let d1 = ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) & ((1u128 << 96) - 1);
    TableEntry { op, dest: rng.range(0, 3) as u8, table: rng.range(0, 3) as u8, index: rng.next_u64() as u16, d0, d1 }
}

/// A random message: well-formed for this EM or another, with an epoch older, equal or newer
/// than the golden endpoint's, or malformed in one of the ways the endpoint must count.
fn random_message(rng: &mut Rng, ep: &Endpoint, seq: u32) -> Vec<u8> {
    let target = if rng.chance(75) { ep.id } else { rng.range(0, 9) as u8 };
    let pick_epoch = |rng: &mut Rng, stored: u64| match rng.range(0, 10) {
        0 => stored,
        1 => stored.wrapping_sub(rng.range(1, 4)),
        _ => stored.wrapping_add(rng.range(1, 4)),
    };
    let good = match rng.range(0, 4) {
        0 => {
            let p = Profile { smac: rng.next_u64() & 0xffff_ffff_ffff, dmac: rng.next_u64() & 0xffff_ffff_ffff, sip: rng.next_u64() as u32, ttl: rng.next_u64() as u8, tos: rng.next_u64() as u8, nat: rng.chance(50), vf_count: rng.next_u64() as u16, vf_base: rng.next_u64() as u16, tenant_quota: rng.next_u64() as u16, entry_quota: rng.next_u64() as u16 };
            Msg::profile(target, pick_epoch(rng, ep.stored[0]), seq, p)
        }
        1 => Msg::cc(target, pick_epoch(rng, ep.stored[1]), seq, CcPolicy { algo: rng.range(0, 2) as u8, params: std::array::from_fn(|_| rng.next_u64() as u32) }),
        2 => {
            let n = if rng.chance(10) { MAX_ENTRIES } else { rng.range(1, 9) as usize };
            Msg::tables(target, pick_epoch(rng, ep.stored[2]), seq, (0..n).map(|_| random_entry(rng)).collect())
        }
        3 => {
            let start = rng.range(0, 32) as u16;
            Msg::tele_read(target, seq, start, rng.range(1, 33 - start as u64) as u16)
        }
        _ => {
            // read back entries written before, and some never written
            let known: Vec<(u8, u8, u16)> = ep.tables.keys().copied().collect();
            let hi = if rng.chance(10) { MAX_ENTRIES as u64 } else { 6 };
            let n = rng.range(1, hi) as usize;
            let mut keys = vec![];
            for _ in 0..n {
                let k = if !known.is_empty() && rng.chance(70) {
                    known[rng.below(known.len() as u64) as usize]
                } else {
                    (rng.range(0, 3) as u8, rng.range(0, 3) as u8, rng.next_u64() as u16)
                };
                keys.push(k);
            }
            Msg::table_read(target, seq, keys)
        }
    };
    let mut b = good.encode();
    if rng.chance(70) {
        return b;
    }
    // malformed
    match rng.range(0, 10) {
        0 => b.truncate(rng.range(1, b.len() as u64 - 1) as usize),
        1 => b.extend((0..rng.range(1, 17)).map(|_| rng.next_u64() as u8)),
        2 => b[0] = rng.range(2, 256) as u8,
        3 => b[1] = [0u8, 3, 4, 5, 0xff][rng.range(0, 4) as usize],
        4 => b[3] = [0u8, 4, 5, 0xff][rng.range(0, 3) as usize],
        5 => b[23] = b[23].wrapping_add(1),
        6 if b.len() > HDR_BYTES => b[HDR_BYTES] = [0u8, 3, 0xff][rng.range(0, 2) as usize],
        7 => {
            // longer than the buffer, with a plausible header
            b.resize(4096 + 8 * rng.range(1, 8) as usize, 0xa5);
        }
        8 => b = (0..rng.range(1, 120)).map(|_| rng.next_u64() as u8).collect(),
        _ => {
            b = (0..rng.range(1, 120)).map(|_| rng.next_u64() as u8).collect();
            b[0] = VERSION;
        }
    }
    b
}

fn check_against_model(bench: &Bench, outs: &[Outcome], ret_sent: &[Vec<u8>]) {
    let exp_relay: Vec<Vec<u8>> = outs.iter().filter_map(|o| if let Outcome::Relay(b) = o { Some(b.clone()) } else { None }).collect();
    let exp_reply: Vec<Vec<u8>> = outs.iter().filter_map(|o| if let Outcome::Reply { reply, .. } = o { Some(reply.clone()) } else { None }).collect();
    assert_eq!(bench.relayed(), exp_relay, "relayed messages");
    // own replies and downstream replies, each in order, interleaved whole
    let (mut own, mut ret) = (vec![], vec![]);
    for r in bench.replies() {
        if ret_sent.contains(&r) && !exp_reply.contains(&r) {
            ret.push(r);
        } else {
            own.push(r);
        }
    }
    assert_eq!(own.len(), exp_reply.len());
    for (i, (g, e)) in own.iter().zip(&exp_reply).enumerate() {
        assert_eq!(g, e, "reply {i}: {:?} vs {:?}", Header::decode(g), Header::decode(e));
    }
    assert_eq!(ret, ret_sent, "downstream replies pass through whole and in order");
    // miss events leave as numbered event messages, in order
    let id = bench.id;
    let want: Vec<Vec<u8>> = bench
        .ev_taken
        .iter()
        .enumerate()
        .map(|(k, e)| EventMsg { kind: e.kind, tenant: e.tenant, value: e.value, src: e.src, dst: e.dst, proto: e.proto, sport: e.sport, dport: e.dport }.message(id, k as u32))
        .collect();
    assert_eq!(bench.events(), want, "event messages");
    let got: Vec<TblEv> = bench.ev.iter().map(|(_, e)| e.clone()).collect();
    assert_eq!(got.len(), expected_events(outs).len());
    assert_eq!(got, expected_events(outs), "table writes and swaps");
    // the second pass starts only when no frame reads the old bank
    let swaps: Vec<u64> = bench.ev.iter().filter(|(_, e)| *e == TblEv::Swap).map(|(c, _)| *c).collect();
    for (k, s) in swaps.iter().enumerate() {
        let next_write = bench.ev.iter().find(|(c, e)| c > s && matches!(e, TblEv::Write(_))).map(|(c, _)| *c);
        if let Some(w) = next_write {
            assert!(w > bench.released[k], "swap {k} at {s}: second pass at {w} before the old bank drained at {}", bench.released[k]);
        }
    }
}

fn tele_all(bench: &mut Bench, ep: &mut Endpoint, seq: u32) -> (Vec<u64>, Vec<u64>) {
    let mut got = vec![];
    let mut exp = vec![];
    for (start, n) in [(0u16, 16u16), (16, 16)] {
        let m = Msg::tele_read(ep.id, seq, start, n).encode();
        bench.send(&m);
        bench.settle();
        let r = bench.replies().last().unwrap().clone();
        let Some(Msg { body: Body::TeleReply(v), .. }) = Msg::decode_reply(&r) else { panic!("no telemetry reply") };
        got.extend(v);
        let Outcome::Reply { reply, .. } = ep.receive(&m) else { panic!() };
        let Some(Msg { body: Body::TeleReply(v), .. }) = Msg::decode_reply(&reply) else { panic!() };
        exp.extend(v);
    }
    (got, exp)
}

/// A random mix of 600 messages (every class, epochs older, equal and newer, relays, every kind
/// of malformed message, every `tkeep` residue) with random gaps and backpressure, and
/// downstream replies merged at the same time: every output equals the golden endpoint's.
#[test]
fn m2m_endpoint_matches_golden_model() {
    for (seed, valid, ready) in [(1u64, 70u32, 60u32), (2, 100, 100), (3, 35, 30)] {
        let id = seed as u8;
        let mut bench = Bench::new(id, valid, ready, seed);
        let mut ep = Endpoint::new(id);
        let mut rng = Rng::new(seed * 77);
        let dp: [u32; 16] = std::array::from_fn(|i| 0x0d00_0000 + i as u32 * 7);
        for (i, x) in dp.iter().enumerate() {
            let p = bench.sim.port(&format!("dp_ctr${i}"));
            bench.sim.set_u64(p, *x as u64);
        }
        ep.dp = dp;
        let mut outs = vec![];
        let mut ret_sent = vec![];
        let mut causes = std::collections::HashSet::new();
        let mut residues = std::collections::HashSet::new();
        for i in 0..600u32 {
            let m = random_message(&mut rng, &ep, i);
            residues.insert((m.len() - 1) % 8 + 1);
            if i % 7 == 3 {
                // a table miss from the datapath
                let e = nicgen_hw::em::classify::EmEventFields { kind: rng.range(0, 4) as u8, value: rng.next_u64() as u32, src: rng.next_u64() as u32, dst: rng.next_u64() as u32, proto: rng.next_u64() as u8, sport: rng.next_u64() as u16, dport: rng.next_u64() as u16, tenant: rng.range(0, 4095) as u16 };
                bench.ev_q.push_back(e);
            }
            if i % 5 == 0 {
                // a downstream EM's reply on the return path
                let r = Header { version: VERSION, ty: MsgType::Ack as u8, target_em: 200 + (i % 50) as u8, class: 3, length: 32, seq: i, ..Default::default() }.encode().to_vec();
                bench.b.drivers[1].push(AxisFrame::new(r.clone()));
                ret_sent.push(r);
            }
            bench.send(&m);
            let o = ep.receive(&m);
            if let Outcome::Drop(d) = o {
                causes.insert(d);
            }
            outs.push(o);
        }
        bench.settle();
        assert_eq!(causes.len(), M2mDrop::ALL.len(), "every drop cause exercised: {causes:?}");
        assert_eq!(residues.len(), 8, "every tkeep residue");
        check_against_model(&bench, &outs, &ret_sent);
        assert_eq!(bench.ev_taken.len(), 600 / 7 + 1, "every event taken");
        let (got, exp) = tele_all(&mut bench, &mut ep, 9999);
        assert_eq!(got, exp, "telemetry counters");
        // the profile's outputs
        let cfg = bench.sim.port("cfg");
        let c = nicgen_hw::em::front::EmCfgFields::from_words(&bench.sim.get_words(cfg));
        assert_eq!((c.smac, c.dmac, c.sip, c.ttl, c.tos), (ep.profile.smac, ep.profile.dmac, ep.profile.sip, ep.profile.ttl, ep.profile.tos));
        let nat = bench.sim.port("nat");
        assert_eq!(bench.sim.get_bit(nat), ep.profile.nat);
        let (ap, st, eq) = (ep.ctr[Ctr::Applied as usize], ep.ctr[Ctr::Stale as usize], ep.ctr[Ctr::Equal as usize]);
        eprintln!("seed {seed}: {} messages: {ap} applied, {eq} equal, {st} stale, {} relayed, {} dropped; {} table writes, {} entries read back", ep.ctr[0], ep.ctr[Ctr::Relayed as usize], M2mDrop::ALL.iter().map(|d| ep.ctr[Ctr::of_drop(*d) as usize]).sum::<u64>(), ep.ctr[Ctr::TableWrites as usize], bench.reads);
        assert!(ap > 50 && st > 10 && eq > 5);
        assert!(bench.reads > 100, "table entries read back: {}", bench.reads);
    }
}

/// Epoch cases taken from P4Runtime (re-sending the same election id is accepted and changes
/// nothing), gNMI (a stale write is rejected and the reply carries the current version) and
/// OVS/OpenFlow (`generation_id` compared modulo 2^64, across the wrap), plus relay copies that
/// arrive reordered and duplicated at a downstream EM.
#[test]
fn m2m_epoch_golden_cases() {
    let mut bench = Bench::new(0, 80, 80, 42);
    let mut outs = vec![];
    let status = |b: &Bench| {
        let r = bench_last(b);
        (r.status, r.stored)
    };
    fn bench_last(b: &Bench) -> Header {
        Header::decode(b.replies().last().unwrap())
    }
    let batch = |e: u64, k: u16| Msg::tables(0, e, k as u32, vec![TableEntry::write(1, 0, k, k as u128, 0)]).encode();
    let mut ep = Endpoint::new(0);
    let mut run = |bench: &mut Bench, m: Vec<u8>, want: (Status, u64)| {
        bench.send(&m);
        bench.settle();
        outs.push(ep.receive(&m));
        assert_eq!(status(bench), (want.0 as u16, want.1), "message epoch {}", Header::decode(&m).epoch);
    };
    run(&mut bench, batch(10, 1), (Status::Applied, 10));
    run(&mut bench, batch(10, 2), (Status::Equal, 10)); // P4Runtime: same id again, idempotent
    run(&mut bench, batch(9, 3), (Status::Stale, 10)); // gNMI: older rejected, stored reported
    run(&mut bench, batch(11, 4), (Status::Applied, 11));
    // the other classes keep their own epochs
    run(&mut bench, Msg::profile(0, 3, 5, Profile { ttl: 9, ..Default::default() }).encode(), (Status::Applied, 3));
    run(&mut bench, Msg::cc(0, 1, 6, CcPolicy { algo: 1, params: [1; 7] }).encode(), (Status::Applied, 1));
    run(&mut bench, batch(10, 7), (Status::Stale, 11));
    // OpenFlow generation_id: serial arithmetic across 2^64
    run(&mut bench, batch(u64::MAX - 1, 8), (Status::Stale, 11)); // 2^64 - 13 ahead: older
    run(&mut bench, batch(11 + (1 << 62), 9), (Status::Applied, 11 + (1 << 62)));
    run(&mut bench, batch(11 + (1 << 63) - 1, 10), (Status::Applied, 11 + (1 << 63) - 1));
    run(&mut bench, batch(u64::MAX, 11), (Status::Applied, u64::MAX));
    run(&mut bench, batch(0, 12), (Status::Applied, 0)); // wrapped
    run(&mut bench, batch(2, 13), (Status::Applied, 2));
    run(&mut bench, batch(u64::MAX, 14), (Status::Stale, 2)); // just before the wrap: older now
    check_against_model(&bench, &outs, &[]);

    // a downstream EM (id 3) gets relay copies reordered and duplicated: only newer ones apply,
    // and it ends at the newest epoch with the newest batch's entries written last
    let mut bench = Bench::new(3, 60, 70, 43);
    let mut ep = Endpoint::new(3);
    let copies: Vec<Vec<u8>> = [4u64, 2, 4, 5, 1, 5, 3, 6, 6, 2].iter().map(|e| Msg::tables(3, *e, *e as u32, vec![TableEntry::write(0, 1, *e as u16, *e as u128, 0)]).encode()).collect();
    let mut outs = vec![];
    for c in &copies {
        bench.send(c);
        outs.push(ep.receive(c));
    }
    bench.settle();
    check_against_model(&bench, &outs, &[]);
    let st: Vec<u16> = bench.replies().iter().map(|r| Header::decode(r).status).collect();
    use Status::*;
    assert_eq!(st, [Applied, Stale, Equal, Applied, Stale, Equal, Stale, Applied, Equal, Stale].map(|s| s as u16));
    assert_eq!(Header::decode(bench.replies().last().unwrap()).stored, 6);
}

/// Malformed messages one cause at a time, each followed by a good one: dropped, counted by
/// cause, and the endpoint keeps working (it never wedges, even on a message longer than its
/// buffer or one the sender aborted with `tuser`).
#[test]
fn m2m_malformed_messages_are_counted_and_never_wedge() {
    let mut bench = Bench::new(0, 70, 70, 5);
    let good = |e: u64| Msg::cc(0, e, e as u32, CcPolicy { algo: 1, params: [e as u32; 7] }).encode();
    let base = Msg::tables(0, 100, 1, vec![TableEntry::write(0, 0, 1, 2, 3); 2]).encode();
    let mut cases: Vec<(Vec<u8>, M2mDrop)> = vec![];
    for n in [1usize, 7, 8, 31, 33, 64, base.len() - 1] {
        cases.push((base[..n].to_vec(), M2mDrop::Truncated));
    }
    let mut long = base.clone();
    long.extend([0u8; 8]);
    cases.push((long, M2mDrop::BadLength));
    let mut huge = base.clone();
    huge.resize(8192, 0x11);
    cases.push((huge, M2mDrop::BadLength));
    let mut b = base.clone();
    b[0] = 0;
    cases.push((b, M2mDrop::BadVersion));
    for ty in [0u8, 3, 4, 200] {
        let mut b = base.clone();
        b[1] = ty;
        cases.push((b, M2mDrop::UnknownType));
    }
    for cl in [0u8, 4, 5] {
        let mut b = base.clone();
        b[3] = cl;
        cases.push((b, M2mDrop::UnknownClass));
    }
    let mut b = Msg::tele_read(0, 1, 0, 4).encode();
    b[1] = MsgType::Push as u8;
    cases.push((b, M2mDrop::UnknownClass));
    let mut b = base.clone();
    b[ENTRY_BYTES + HDR_BYTES] = 9;
    cases.push((b, M2mDrop::BadEntry));
    cases.push((Msg::tables(0, 100, 1, vec![]).encode(), M2mDrop::BadEntry));
    cases.push((Msg::tele_read(0, 1, 30, 3).encode(), M2mDrop::BadEntry));
    for (k, (m, cause)) in cases.iter().enumerate() {
        assert_eq!(Msg::decode(m).err(), Some(*cause), "case {k} as the model sees it");
        let before = bench.replies().len();
        bench.send(m);
        bench.send(&good(k as u64 + 1));
        bench.settle();
        assert_eq!(bench.replies().len(), before + 1, "case {k}: only the good message is answered");
        let h = Header::decode(bench.replies().last().unwrap());
        assert_eq!((h.status, h.epoch), (Status::Applied as u16, k as u64 + 1), "case {k}: the next message is applied");
    }
    // a message the sender aborted (tuser on its last beat) changes nothing
    bench.b.drivers[0].push(AxisFrame { data: good(1000), user: true });
    bench.send(&good(500));
    bench.settle();
    assert_eq!(Header::decode(bench.replies().last().unwrap()).epoch, 500);
    assert!(bench.ev.is_empty(), "no malformed batch wrote a table");
    let mut ep = Endpoint::new(0);
    let (got, _) = tele_all(&mut bench, &mut ep, 1);
    for d in M2mDrop::ALL {
        let want = cases.iter().filter(|(_, c)| *c == d).count() as u64 + (d == M2mDrop::Truncated) as u64;
        assert_eq!(got[Ctr::of_drop(d) as usize], want, "{} counter", d.name());
    }
}

/// The host (a tenant with root) attacks the window: every word address of the 4 KiB window
/// and beyond, reads and writes with random data and strobes, then bursts. Only the four device
/// registers answer; every other access is refused with SLVERR and counted; no table write, no
/// swap, no epoch or profile change happens, and the endpoint still serves the OM afterwards.
#[test]
fn m2m_host_window_attack_changes_nothing() {
    let mut bench = Bench::new(2, 80, 80, 77);
    let mut ep = Endpoint::new(2);
    // the OM's state before the attack
    let setup = [Msg::tables(2, 7, 1, (0..4).map(|k| TableEntry::write(k as u8 & 3, 1, k, k as u128 * 3, 0)).collect()).encode(), Msg::profile(2, 5, 2, Profile { smac: 0x11, dmac: 0x22, sip: 0x0a000002, ttl: 64, nat: true, ..Default::default() }).encode()];
    for m in &setup {
        bench.send(m);
        ep.receive(m);
    }
    bench.settle();
    let ev_before = bench.ev.len();
    let cfg = bench.sim.port("cfg");
    let cfg_before = bench.sim.get_words(cfg);
    let mut host = AxilMaster::new(&bench.sim, "s_axil_host", 70, 99);
    let mut rng = Rng::new(1234);
    let dev = [HOST_REG_ID, HOST_REG_EM_ID, HOST_REG_STATUS, HOST_REG_SCRATCH];
    let (mut rd_ref, mut wr_ref, mut attempts) = (0u64, 0u64, 0u64);
    let sp = bench.sim.port("dev_status");
    bench.sim.set_u64(sp, 0x5a5a);
    let mut addrs: Vec<u32> = (0..0x1000u32).step_by(4).collect();
    addrs.extend((0..256).map(|_| rng.next_u64() as u32 & !3));
    addrs.extend([0x1000, 0x2000, 0x1_0000, 0xffff_fffc, 0x8000_0000, 0x1004]);
    for &a in &addrs {
        let data = rng.next_u64() as u32;
        let strb = rng.range(0, 15) as u8;
        attempts += 2;
        let w = host.write(&mut bench.sim, a as u64, data, strb);
        if a == HOST_REG_SCRATCH {
            assert_eq!(w, OKAY);
        } else {
            assert_eq!(w, SLVERR, "write {a:#x} refused");
            wr_ref += 1;
        }
        let (r, resp) = host.read(&mut bench.sim, a as u64);
        if dev.contains(&a) {
            assert_eq!(resp, OKAY, "read {a:#x}");
            match a {
                HOST_REG_ID => assert_eq!(r, HOST_ID),
                HOST_REG_EM_ID => assert_eq!(r, 2),
                HOST_REG_STATUS => assert_eq!(r, 0x5a5a),
                _ => {}
            }
        } else {
            assert_eq!((r, resp), (0, SLVERR), "read {a:#x} refused and reveals nothing");
            rd_ref += 1;
        }
    }
    // bursts: back-to-back requests with no gaps
    host.pct = 100;
    for k in 0..400u32 {
        let a = 0x100 + 4 * (k % 0x3c0);
        attempts += 2;
        assert_eq!(host.write(&mut bench.sim, a as u64, 0xffff_ffff, 0xf), SLVERR);
        assert_eq!(host.read(&mut bench.sim, a as u64).1, SLVERR);
        wr_ref += 1;
        rd_ref += 1;
    }
    bench.settle();
    assert_eq!(bench.ev.len(), ev_before, "no table write or swap during the attack");
    assert_eq!(bench.sim.get_words(cfg), cfg_before, "the profile did not change");
    // the stored epochs did not move: the same epochs are still 'equal', older still 'stale'
    for (m, want) in [(Msg::tables(2, 7, 3, vec![TableEntry::delete(0, 0, 0)]).encode(), Status::Equal), (Msg::profile(2, 4, 4, Profile::default()).encode(), Status::Stale)] {
        bench.send(&m);
        bench.settle();
        let h = Header::decode(bench.replies().last().unwrap());
        assert_eq!(h.status, want as u16);
        ep.receive(&m);
    }
    ep.ctr[Ctr::HostReadRefused as usize] = rd_ref;
    ep.ctr[Ctr::HostWriteRefused as usize] = wr_ref;
    let (got, exp) = tele_all(&mut bench, &mut ep, 77);
    assert_eq!(got, exp, "counters, with every refusal counted");
    eprintln!("host attack: {attempts} accesses, {rd_ref} reads and {wr_ref} writes refused and counted, {} allowed", attempts - rd_ref - wr_ref);
}
