//! The server scenario (`nicgen sim server`): the OM software driving EM0's M2M endpoint, with
//! EM1..EMn behind EM0's relay, every EM an `em_node` under Verilator carrying tenant traffic.
//!
//! ```text
//! OM ──hop──► EM0.s_axis_up ─► EM0.m_axis_down ──hop──► EMk.s_axis_up      (k = target_em)
//! OM ◄─hop── EM0.m_axis_reply ◄─ EM0.s_axis_ret ◄─hop── EMk.m_axis_reply
//! ```
//!
//! `hop` models one PCIe crossing (cycles at 250 MHz). Each EM forwards VXLAN traffic from its VM
//! (VF 2) to a remote while the OM programs it. The scenario measures control latency in cycles
//! (a one-entry table write and a one-counter telemetry read, through EM0 and through one relay
//! hop), the cycles from a message's acceptance to its entries being visible (the bank swap),
//! and then crashes the OM mid-batch, keeps traffic running, restarts the OM from its store,
//! and checks that it resumes above every epoch it used and brings every EM to the policy. An EM
//! can be made faulty (its `em_id` strap wrong, so it never answers): the OM isolates it and the
//! others carry on.
use crate::om::Om;
use crate::policy::compile;
use anyhow::{bail, ensure, Result};
use nicgen_hw::m2m::node::EmNode;
use nicgen_model::em::{ipv4_udp_frame, RemoteEntry};
use nicgen_model::m2m::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;
use std::collections::VecDeque;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct ServerOpts {
    /// EMs behind EM0 (0, 4 or 8 in the paper's servers).
    pub ems: usize,
    /// One PCIe crossing, cycles.
    pub hop: u64,
    /// Make this EM faulty (never answers).
    pub faulty: Option<u8>,
    /// Crash and restart the OM mid-run.
    pub crash: bool,
    /// Host frames per EM.
    pub frames: usize,
    pub store: PathBuf,
    pub seed: u64,
}

impl Default for ServerOpts {
    fn default() -> Self {
        ServerOpts { ems: 4, hop: 0, faulty: None, crash: true, frames: 300, store: std::env::temp_dir().join("nicgen-om-store.json"), seed: 1 }
    }
}

/// One control operation's cost.
#[derive(Clone, Debug)]
pub struct Latency {
    pub what: String,
    pub em: u8,
    /// From the first byte offered by the OM to the last byte of the reply at the OM.
    pub cycles: u64,
}

#[derive(Clone, Debug, Default)]
pub struct ServerReport {
    pub latencies: Vec<Latency>,
    /// Per table batch: cycles from its acceptance (last beat in) to the bank swap.
    pub visible: Vec<(u8, usize, u64)>,
    /// Per EM: frames offered, frames out, and its endpoint and datapath counters.
    pub frames: Vec<(u8, usize, usize)>,
    pub counters: Vec<(u8, Vec<u64>)>,
    pub isolated: Vec<u8>,
    pub epoch_before_crash: u64,
    pub first_epoch_after_restart: u64,
    pub messages: u64,
    pub cycles: u64,
    /// Table entries read back from the hardware after the restart and found as the policy says.
    pub entries_checked: usize,
    /// Frames each EM forwarded while the OM was down, in `outage_cycles`.
    pub outage: Vec<(u8, usize)>,
    pub outage_cycles: u64,
}

struct EmSim {
    id: u8,
    sim: VerilatorSim,
    b: StreamBench,
    swapped: usize,
    /// Cycle the last message's last beat went in.
    accepted: Option<u64>,
    sent_frames: usize,
}

const UP: usize = 0;
const RET: usize = 1;
const HOST: usize = 2;
const DOWN: usize = 0;
const REPLY: usize = 1;
const P0: usize = 2;
const P1: usize = 3;

struct Server {
    ems: Vec<EmSim>,
    hop: u64,
    /// In flight on the fabric: (deliver at, to EM index or OM (None), message).
    wires: VecDeque<(u64, Option<usize>, Vec<u8>, bool)>,
    /// Replies that reached the OM.
    om_in: VecDeque<Vec<u8>>,
    cycle: u64,
    seen_down: Vec<usize>,
    seen_reply: Vec<usize>,
    visible: Vec<(u8, usize, u64)>,
    /// Event messages that reached the OM: (EM, event number, event).
    events: Vec<(u8, u32, EventMsg)>,
}

fn policy_text(n: usize) -> String {
    let mut s = String::from("mode = \"overlay\"\n");
    for k in 0..=n {
        s += &format!("[[em]]\nid = {k}\npip = \"192.168.0.{}\"\nsmac = \"02:00:00:00:00:{:02x}\"\ndmac = \"02:00:00:00:01:{:02x}\"\n", k + 1, k, k);
    }
    s += "[[tenant]]\nname = \"blue\"\nid = 1\nvni = 1001\nacl = [{ priority = 1, action = \"allow\" }]\n";
    for k in 0..=n {
        s += &format!("[[vm]]\ntenant = \"blue\"\nem = {k}\nvf = 2\nvip = \"10.1.0.{}\"\npip = \"192.168.1.{}\"\n", k + 2, k + 2);
    }
    s += "[[remote]]\ntenant = \"blue\"\nvip = \"10.1.1.5\"\npip = \"172.16.1.5\"\n";
    s += "[[remote]]\ntenant = \"blue\"\nvip = \"10.1.1.9\"\npip = \"172.16.1.9\"\nrdma = true\non_demand = true\n";
    s
}

const REMOTE: u32 = 0x0a01_0105;
const RDMA_PEER: u32 = 0x0a01_0109;

impl Server {
    fn new(o: &ServerOpts) -> Server {
        let mut ems = vec![];
        // one model, an instance per EM
        let first = verilate(&mut EmNode::default());
        let (build, ports) = (first.build.clone(), first.ports().to_vec());
        let mut first = Some(first);
        for k in 0..=o.ems {
            let mut sim = match first.take() {
                Some(s) => s,
                None => VerilatorSim::load(build.clone(), ports.clone()).expect("loading the em_node model"),
            };
            sim.reset(2);
            let id = if o.faulty == Some(k as u8) { 0x77 } else { k as u8 };
            let p = sim.port("em_id");
            sim.set_u64(p, id as u64);
            let p = sim.port("link_up");
            sim.set_u64(p, 3);
            let p = sim.port("s_host_vf");
            sim.set_u64(p, 2);
            let seed = o.seed * 100 + k as u64 * 10;
            let drivers = vec![AxisDriver::new(&sim, "s_axis_up", 100, seed), AxisDriver::new(&sim, "s_axis_ret", 100, seed + 1), AxisDriver::new(&sim, "s_axis_host_tx", 100, seed + 2)];
            let monitors = vec![AxisMonitor::new(&sim, "m_axis_down", 100, seed + 3), AxisMonitor::new(&sim, "m_axis_reply", 100, seed + 4), AxisMonitor::new(&sim, "m_axis_p0_tx", 100, seed + 5), AxisMonitor::new(&sim, "m_axis_p1_tx", 100, seed + 6)];
            let swapped = sim.port("swapped");
            ems.push(EmSim { id: k as u8, sim, b: StreamBench::new(drivers, monitors), swapped, accepted: None, sent_frames: 0 });
        }
        let n = ems.len();
        Server { ems, hop: o.hop, wires: VecDeque::new(), om_in: VecDeque::new(), cycle: 0, seen_down: vec![0; n], seen_reply: vec![0; n], visible: vec![], events: vec![] }
    }
    fn step(&mut self) {
        // deliveries due now
        while let Some((at, _, _, _)) = self.wires.front() {
            if *at > self.cycle {
                break;
            }
            let (_, to, m, is_reply) = self.wires.pop_front().unwrap();
            match (to, is_reply) {
                // the OM: events to the slow path, the rest to the waiting transaction
                (None, _) => match Msg::decode_reply(&m) {
                    Some(Msg { hdr, body: Body::Event(e) }) => self.events.push((hdr.target_em, hdr.seq, e)),
                    _ => self.om_in.push_back(m),
                },
                (Some(k), false) => self.ems[k].b.drivers[UP].push(AxisFrame::new(m)),
                (Some(k), true) => self.ems[k].b.drivers[RET].push(AxisFrame::new(m)),
            }
        }
        for e in self.ems.iter_mut() {
            let before = e.b.drivers[UP].frames;
            let sw = e.swapped;
            let mut swap = false;
            e.b.step_with(&mut e.sim, |s| {
                swap = s.get_bit(sw);
                false
            });
            if e.b.drivers[UP].frames != before {
                e.accepted = Some(self.cycle);
            }
            if swap {
                if let Some(a) = e.accepted {
                    self.visible.push((e.id, self.visible.len(), self.cycle - a));
                }
            }
        }
        // new frames on the M2M streams go onto the fabric
        let n = self.ems.len();
        for k in 0..n {
            let downs: Vec<Vec<u8>> = self.ems[k].b.monitors[DOWN].frames[self.seen_down[k]..].iter().map(|f| f.data.clone()).collect();
            self.seen_down[k] += downs.len();
            for m in downs {
                // EM0 relays over PCIe to the EM the message names; other EMs have no downstream
                let t = Header::decode(&m).target_em as usize;
                if k == 0 && t < n && t != 0 {
                    self.wires.push_back((self.cycle + self.hop, Some(t), m, false));
                }
            }
            let replies: Vec<Vec<u8>> = self.ems[k].b.monitors[REPLY].frames[self.seen_reply[k]..].iter().map(|f| f.data.clone()).collect();
            self.seen_reply[k] += replies.len();
            for m in replies {
                let to = if k == 0 { None } else { Some(0) };
                self.wires.push_back((self.cycle + self.hop, to, m, true));
            }
        }
        self.wires.make_contiguous().sort_by_key(|w| w.0);
        self.cycle += 1;
    }
    fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }
    /// Send `m` from the OM and wait for one reply (or `timeout` cycles): (reply, cycles).
    fn transact(&mut self, m: Vec<u8>, timeout: u64) -> Option<(Vec<u8>, u64)> {
        let start = self.cycle;
        self.om_in.clear();
        self.wires.push_back((self.cycle + self.hop, Some(0), m, false));
        self.wires.make_contiguous().sort_by_key(|w| w.0);
        while self.cycle - start < timeout {
            self.step();
            if let Some(r) = self.om_in.pop_front() {
                return Some((r, self.cycle - start));
            }
        }
        None
    }
    fn offer_traffic(&mut self, frames: usize, dst: u32, seed: u64) {
        let mut rng = Rng::new(seed);
        for e in self.ems.iter_mut() {
            for i in 0..frames {
                let payload = rng.bytes(18 + i % 64);
                e.b.drivers[HOST].push(AxisFrame::new(ipv4_udp_frame(0x0a01_0002 + e.id as u32, dst, 1000, 4791, &payload)));
                e.sent_frames += 1;
            }
        }
    }
    fn out_frames(&self, k: usize) -> usize {
        self.ems[k].b.monitors[P0].frames.len() + self.ems[k].b.monitors[P1].frames.len()
    }
}

/// Read `keys` back from `em`'s live bank (batches of 64): (dest, table, index) → data.
fn read_tables(s: &mut Server, em: u8, keys: &[(u8, u8, u16)], patience: u64) -> Result<Vec<((u8, u8, u16), (u128, u128))>> {
    let mut out = vec![];
    for (k, chunk) in keys.chunks(MAX_ENTRIES).enumerate() {
        let seq = 7000 + k as u32;
        let Some((rep, _)) = s.transact(Msg::table_read(em, seq, chunk.to_vec()).encode(), patience) else { bail!("EM {em} did not answer a table read") };
        let Some(Msg { body: Body::TableReply(v), hdr }) = Msg::decode_reply(&rep) else { bail!("EM {em}: not a table reply") };
        ensure!(hdr.seq == seq && v.len() == chunk.len(), "EM {em}: the table reply's entries");
        out.extend(v.iter().map(|e| ((e.dest, e.table, e.index), (e.d0, e.d1))));
    }
    Ok(out)
}

/// Bring every EM to the OM's policy, one message at a time; an EM that does not answer within
/// `patience` cycles is isolated. Returns the messages sent.
fn sync_all(om: &mut Om, s: &mut Server, patience: u64, lat: &mut Vec<Latency>, label: &str) -> Result<u64> {
    let mut sent = 0;
    let ids: Vec<u8> = om.policy.ems.keys().copied().collect();
    for em in ids {
        while let Some(m) = om.next_message(em)? {
            sent += 1;
            match s.transact(m, patience) {
                Some((r, c)) => {
                    om.on_ack(&r)?;
                    lat.push(Latency { what: label.into(), em, cycles: c });
                }
                None => {
                    om.isolate(em)?;
                    break;
                }
            }
        }
    }
    Ok(sent)
}

pub fn run_server(o: &ServerOpts) -> Result<ServerReport> {
    let _ = std::fs::remove_file(&o.store);
    let text = policy_text(o.ems);
    let policy = compile("server-policy.toml", &text)?;
    let mut om = Om::open(&o.store, policy.clone())?;
    let mut s = Server::new(o);
    let mut r = ServerReport::default();
    let patience = 4 * o.hop + 5_000;
    let mut setup = vec![];
    r.messages += sync_all(&mut om, &mut s, patience, &mut setup, "setup")?;
    // traffic on every EM while the OM works
    s.offer_traffic(o.frames, REMOTE, o.seed);
    // control latency: a one-entry table write and a one-counter read, EM0 and one relay hop
    for em in [0u8, 1] {
        if em as usize > o.ems || om.isolated(em) {
            continue;
        }
        let extra = RemoteEntry { valid: true, pinned: false, kind: 0, tenant: 1, addr: 0x0a01_0200 + em as u32, value: 0xac10_0200, port: 0 };
        om.policy.ems.get_mut(&em).unwrap().host_look.insert_remote(extra);
        let m = om.next_message(em)?.expect("a one-entry batch");
        ensure!(Header::decode(&m).count == 1, "the write is one entry");
        let (rep, c) = s.transact(m, patience).ok_or_else(|| anyhow::anyhow!("EM {em} did not answer the write"))?;
        om.on_ack(&rep)?;
        r.latencies.push(Latency { what: "table write (1 entry)".into(), em, cycles: c });
        let seq = 1000 + em as u32;
        let (rep, c) = s.transact(Msg::tele_read(em, seq, 16, 1).encode(), patience).ok_or_else(|| anyhow::anyhow!("EM {em} did not answer the read"))?;
        ensure!(Header::decode(&rep).seq == seq, "the read's reply");
        r.latencies.push(Latency { what: "telemetry read (1 counter)".into(), em, cycles: c });
        r.messages += 2;
    }
    // the slow path: a TCP SYN toward the on-demand RDMA peer misses; the OM installs its entry
    {
        let mut syn = vec![];
        etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv4([10, 1, 0, 2], RDMA_PEER.to_be_bytes(), 64).tcp(5000, 18515, 1, 1000).syn().write(&mut syn, &[]).unwrap();
        s.ems[0].b.drivers[HOST].push(AxisFrame::new(syn));
        s.ems[0].sent_frames += 1;
        // the OM's slow path reads the events as they come (misses of other kinds are ignored)
        let t0 = s.cycle;
        let mut installed = false;
        while !installed && s.cycle - t0 < 50_000 {
            s.step();
            for (em, _, ev) in std::mem::take(&mut s.events) {
                installed |= om.on_miss(em, &ev);
            }
        }
        ensure!(installed, "the TCP miss toward the RDMA peer reached the OM");
        r.messages += sync_all(&mut om, &mut s, patience, &mut r.latencies, "slow path install")?;
        // the connection's RDMA data now passes
        let f = ipv4_udp_frame(0x0a01_0002, RDMA_PEER, 49152, 4791, &[7; 64]);
        s.ems[0].b.drivers[HOST].push(AxisFrame::new(f));
        s.ems[0].sent_frames += 1;
    }
    // the OM crashes with a batch in flight (its ack is lost); traffic keeps flowing
    if o.crash {
        let target = if o.ems >= 1 { 1 } else { 0 };
        let extra = RemoteEntry { valid: true, pinned: false, kind: 0, tenant: 1, addr: 0x0a01_0300, value: 0xac10_0300, port: 0 };
        om.policy.ems.get_mut(&target).unwrap().host_look.insert_remote(extra);
        let m = om.next_message(target)?.expect("a batch");
        r.epoch_before_crash = om.st.epoch_mark;
        s.wires.push_back((s.cycle + s.hop, Some(0), m, false));
        drop(om); // crash: nothing after this point of the old OM survives but the store
        let out_before: Vec<usize> = (0..s.ems.len()).map(|k| s.out_frames(k)).collect();
        s.offer_traffic(o.frames / 2, REMOTE, o.seed + 7);
        s.run(3_000);
        s.om_in.clear(); // the ack reached no one
        for (k, b) in out_before.iter().enumerate() {
            if o.faulty != Some(k as u8) {
                ensure!(s.out_frames(k) > *b, "EM {k} kept forwarding while the OM was down");
            }
            r.outage.push((k as u8, s.out_frames(k) - b));
        }
        r.outage_cycles = 3_000;
        // the watchdog restarts the OM: it resumes above every epoch it used and resyncs
        let mut policy2 = policy.clone();
        policy2.ems.get_mut(&target).unwrap().host_look.insert_remote(extra);
        for em in [0u8, 1] {
            if em as usize <= o.ems {
                let extra = RemoteEntry { valid: true, pinned: false, kind: 0, tenant: 1, addr: 0x0a01_0200 + em as u32, value: 0xac10_0200, port: 0 };
                policy2.ems.get_mut(&em).unwrap().host_look.insert_remote(extra);
            }
        }
        let od = policy2.on_demand[0].clone();
        for e in crate::policy::on_demand_image(policy2.mode, &od).0 {
            policy2.ems.get_mut(&0).unwrap().host_look.insert_remote(e);
        }
        let mut om2 = Om::open(&o.store, policy2)?;
        let held_before: std::collections::BTreeMap<u8, crate::image::TableImage> = om2.policy.ems.keys().map(|id| (*id, om2.held(*id))).collect();
        ensure!(om2.st.restarts == 1, "the store saw the restart");
        let before = om2.st.epoch_mark;
        let mut lat = vec![];
        r.messages += sync_all(&mut om2, &mut s, patience, &mut lat, "resync")?;
        r.first_epoch_after_restart = before + 1;
        // the tables match the policy: read every entry of the policy, and every entry the EM
        // held before, back from the hardware's live bank
        let plans: Vec<(u8, crate::image::TableImage)> = om2.policy.ems.iter().map(|(id, p)| (*id, p.image())).collect();
        for (id, want) in plans {
            if om2.isolated(id) {
                continue;
            }
            ensure!(om2.held(id) == want, "EM {id}: the OM's record after the resync");
            let mut keys: Vec<(u8, u8, u16)> = want.entries.keys().copied().collect();
            keys.extend(held_before.get(&id).map(|i| i.entries.keys().copied().collect::<Vec<_>>()).unwrap_or_default());
            keys.sort();
            keys.dedup();
            let got = read_tables(&mut s, id, &keys, patience)?;
            for (k, d) in &got {
                let w = want.entries.get(k).copied().unwrap_or_default();
                ensure!(*d == w, "EM {id}: entry {k:?} reads {d:x?}, the policy has {w:x?}");
            }
            r.entries_checked += got.len();
        }
        r.isolated = om2.st.ems.iter().filter(|(_, e)| e.isolated).map(|(k, _)| *k).collect();
        om = om2;
    } else {
        r.isolated = om.st.ems.iter().filter(|(_, e)| e.isolated).map(|(k, _)| *k).collect();
    }
    // drain the traffic, then read every EM's counters
    let t0 = s.cycle;
    loop {
        s.run(200);
        let idle = s.ems.iter().all(|e| e.b.drivers.iter().all(|d| d.idle()));
        if idle || s.cycle - t0 > 400_000 {
            break;
        }
    }
    s.run(500);
    for k in 0..s.ems.len() {
        let id = k as u8;
        if om.isolated(id) {
            r.frames.push((id, s.ems[k].sent_frames, s.out_frames(k)));
            continue;
        }
        let mut vals = vec![];
        for (start, n) in [(0u16, 16u16), (16, 11)] {
            let seq = 5000 + k as u32;
            let Some((rep, _)) = s.transact(Msg::tele_read(id, seq, start, n).encode(), patience) else { bail!("EM {k} did not answer telemetry") };
            let Some(Msg { body: Body::TeleReply(v), .. }) = Msg::decode_reply(&rep) else { bail!("EM {k}: not a telemetry reply") };
            vals.extend(v);
        }
        r.counters.push((id, vals));
        r.frames.push((id, s.ems[k].sent_frames, s.out_frames(k)));
    }
    r.visible = s.visible.clone();
    r.cycles = s.cycle;
    Ok(r)
}

impl ServerReport {
    pub fn print(&self, o: &ServerOpts) {
        println!("server: OM + EM0 + {} EMs behind its relay; PCIe hop {} cycles; {} M2M messages; {} cycles", o.ems, o.hop, self.messages, self.cycles);
        println!("| operation | EM | path | cycles | ns at 250 MHz |");
        println!("|---|---:|---|---:|---:|");
        for l in &self.latencies {
            if l.what == "setup" || l.what == "resync" {
                continue;
            }
            let path = if l.em == 0 { "EM0" } else { "EM0 + 1 relay hop" };
            println!("| {} | {} | {path} | {} | {:.0} |", l.what, l.em, l.cycles, l.cycles as f64 * 4.0);
        }
        if !self.visible.is_empty() {
            let v: Vec<u64> = self.visible.iter().map(|x| x.2).collect();
            println!("accepted → visible (bank swap): min {} max {} cycles over {} batches", v.iter().min().unwrap(), v.iter().max().unwrap(), v.len());
        }
        println!("DistDPU (PCIe, deployed hardware): 4-byte write 2.2 µs, read 4.9 µs");
        println!("| EM | frames offered | frames out | applied | equal | stale | relayed | dropped msgs | host refused | table writes |");
        println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (id, sent, out) in &self.frames {
            let c = self.counters.iter().find(|c| c.0 == *id).map(|c| c.1.clone()).unwrap_or_default();
            let g = |i: usize| c.get(i).map_or("-".to_string(), |x| x.to_string());
            let dropped: u64 = (6..12).filter_map(|i| c.get(i)).sum();
            println!("| {id} | {sent} | {out} | {} | {} | {} | {} | {dropped} | {} | {} |", g(1), g(2), g(3), g(4), c.get(12).zip(c.get(13)).map_or("-".into(), |(a, b)| (a + b).to_string()), g(14));
        }
        if !self.isolated.is_empty() {
            println!("isolated by the OM (no answer): EMs {:?}", self.isolated);
        }
        if self.epoch_before_crash > 0 {
            println!("OM crash with a batch in flight at epoch {}; after the restart it resumed at epoch {}; {} table entries read back from the live EMs match the policy", self.epoch_before_crash, self.first_epoch_after_restart, self.entries_checked);
            let f: Vec<String> = self.outage.iter().map(|(k, n)| format!("EM{k} {n}")).collect();
            println!("frames forwarded while the OM was down ({} cycles, traffic offered at full rate): {}", self.outage_cycles, f.join(", "));
        }
    }
}
