//! One EM (`em_node`: the datapath and its M2M endpoint) under Verilator, driven by OM table
//! images: table batches that overlap line-rate traffic are never partially visible, and the
//! per-VF and per-tenant telemetry read over M2M counts every frame.
use nicgen_hw::m2m::node::EmNode;
use nicgen_model::em::*;
use nicgen_model::m2m::*;
use nicgen_om::image::TableImage;
use nicgen_sim::axis::*;
use nicgen_sim::*;
use nicgen_model::m2m::Body;

const VF: u16 = 1;
const FLOWS: u32 = 8;
const SRC_VIP: u32 = 0xc0a8_0002;

fn vip(f: u32) -> u32 {
    0xc0a8_0010 + f
}
/// Version `k`'s tenant, VNI and tunnel destination of flow `f`: all three change with `k`, so
/// a frame that read part of a batch shows it.
fn tenant(k: u32) -> u16 {
    100 + k as u16
}
fn vni(k: u32) -> u32 {
    5000 + k
}
fn pip(k: u32, f: u32) -> u32 {
    0x0a00_0001 | k << 16 | f << 8
}

/// Version `k` of the host side's tables: VF 1 → tenant(k), which may send anywhere, and whose
/// flows tunnel to pip(k, f) with vni(k).
fn image(k: u32) -> TableImage {
    let mut cls = ClsTables::new(10, 4096, 64, 4096);
    cls.insert(KeyKind::Vf, VF as u32, tenant(k), false).unwrap();
    cls.tenants[tenant(k) as usize] = (true, 3);
    cls.acl[3][0] = AclRule { valid: true, allow: true, term: true, proto_any: true, sp_hi: 0xffff, dp_hi: 0xffff, ..Default::default() };
    let mut look = LookTables::new(14, 10);
    for f in 0..FLOWS {
        look.insert_remote(RemoteEntry { valid: true, pinned: false, kind: 0, tenant: tenant(k), addr: vip(f), value: pip(k, f), port: 0 }).unwrap();
    }
    look.vni[tenant(k) as usize] = vni(k);
    let mut img = TableImage::default();
    img.add_side(&cls, &look, false);
    img
}

/// One `em_node` model for every test here (built once; each test loads its own instance).
fn node_sim() -> VerilatorSim {
    static BUILD: std::sync::OnceLock<(VerilatorBuild, Vec<PortInfo>)> = std::sync::OnceLock::new();
    let (b, p) = BUILD.get_or_init(|| {
        let s = verilate(&mut EmNode::default());
        (s.build.clone(), s.ports().to_vec())
    });
    VerilatorSim::load(b.clone(), p.clone()).unwrap()
}

struct Node {
    sim: VerilatorSim,
    b: StreamBench,
}

/// Run `frames` from VF 1 at `valid`/`ready` while batches for versions 2..=`versions` go in
/// every `gap` cycles; check every frame on the wire.
fn overlap_run(versions: u32, frames: usize, gap: u64, valid: u32, ready: u32, seed: u64) {
    let mut sim = node_sim();
    sim.reset(2);
    let lp = sim.port("link_up");
    sim.set_u64(lp, 3);
    let om = AxisDriver::new(&sim, "s_axis_up", 100, seed);
    let host = AxisDriver::new(&sim, "s_axis_host_tx", valid, seed + 1);
    let p0 = AxisMonitor::new(&sim, "m_axis_p0_tx", ready, seed + 2);
    let p1 = AxisMonitor::new(&sim, "m_axis_p1_tx", ready, seed + 3);
    let reply = AxisMonitor::new(&sim, "m_axis_reply", 100, seed + 4);
    let mut n = Node { sim, b: StreamBench::new(vec![om, host], vec![p0, p1, reply]) };
    let profile = Profile { smac: 0x0200_0000_00aa, dmac: 0x0200_0000_00bb, sip: 0x0a00_00fe, ttl: 64, tos: 0, nat: false, vf_count: 4, ..Default::default() };
    let mut cur = TableImage::default();
    let mut epoch = 0u64;
    let mut push = |n: &mut Node, cur: &mut TableImage, k: u32| {
        let next = image(k);
        let batch = cur.diff(&next);
        assert!(batch.len() <= MAX_ENTRIES);
        epoch += 1;
        n.b.drivers[0].push(AxisFrame::new(Msg::tables(0, epoch, k, batch).encode()));
        *cur = next;
    };
    n.b.drivers[0].push(AxisFrame::new(Msg::profile(0, 1, 0, profile).encode()));
    push(&mut n, &mut cur, 1);
    let step = |n: &mut Node| n.b.step(&mut n.sim);
    while n.b.monitors[2].frames.len() < 2 {
        step(&mut n);
        assert!(n.sim.cycle() < 20_000, "the first batch was not acknowledged");
    }
    // traffic: every tkeep residue, eight flows
    let mut rng = Rng::new(seed);
    let mut sent = vec![];
    for i in 0..frames {
        let f = i as u32 % FLOWS;
        let payload = rng.bytes(22 + i % 128);
        let fr = ipv4_udp_frame(SRC_VIP, vip(f), 1000 + f as u16, 2000, &payload);
        sent.push(fr.clone());
        n.b.drivers[1].push(AxisFrame::new(fr));
    }
    let svf = n.sim.port("s_host_vf");
    n.sim.set_u64(svf, VF as u64);
    let mut k = 1;
    let mut next_at = n.sim.cycle() + gap;
    let mut quiet = 0;
    while quiet < 300 {
        if k < versions && n.sim.cycle() >= next_at {
            k += 1;
            push(&mut n, &mut cur, k);
            next_at += gap;
        }
        let moved = step(&mut n);
        let busy = moved > 0 || n.b.drivers.iter().any(|d| !d.idle()) || k < versions;
        quiet = if busy { 0 } else { quiet + 1 };
        assert!(n.sim.cycle() < 2_000_000, "stalled");
    }
    // every batch acknowledged as applied (no frame missed, so no event)
    let acks: Vec<Header> = n.b.monitors[2].frames.iter().map(|f| Header::decode(&f.data)).collect();
    assert_eq!(acks.len(), versions as usize + 1);
    assert!(acks.iter().all(|h| h.status == Status::Applied as u16), "{acks:?}");
    // every frame arrived once, encapsulated, with one version's tunnel: never part of a batch
    let out: Vec<Vec<u8>> = n.b.monitors[0].frames.iter().map(|f| f.data.clone()).collect();
    assert!(n.b.monitors[1].frames.is_empty(), "every flow is on port 0");
    assert_eq!(out.len(), sent.len(), "no frame lost");
    let mut last = 0;
    let mut seen = vec![0usize; versions as usize + 1];
    for (i, (o, s)) in out.iter().zip(&sent).enumerate() {
        assert_eq!(&o[VXLAN_OVERHEAD..], &s[..], "frame {i}: the inner frame");
        let dip = u32::from_be_bytes(o[30..34].try_into().unwrap());
        let v = (o[46] as u32) << 16 | (o[47] as u32) << 8 | o[48] as u32;
        let kv = v - vni(0);
        let f = i as u32 % FLOWS;
        assert_eq!(dip, pip(kv, f), "frame {i}: VNI of version {kv} with the tunnel of another version");
        assert!(kv >= last, "frame {i}: version {kv} after {last}");
        last = kv;
        seen[kv as usize] += 1;
    }
    let mid: Vec<u32> = (1..=versions).filter(|&v| seen[v as usize] > 0).collect();
    assert!(mid.len() as u32 >= versions - 1, "the batches landed while traffic flowed: frames per version {seen:?}");
    // telemetry over M2M (a table read of dest 4: host side, `em::tele`): the VF counts every
    // frame and its bytes; the tenants of the versions split the same frames as they saw them
    let mut keys = vec![(4u8, 0u8, VF)];
    keys.extend((1..=versions).map(|k| (4u8, 1u8, tenant(k))));
    n.b.drivers[0].push(AxisFrame::new(Msg::table_read(0, 4242, keys.clone()).encode()));
    let had = n.b.monitors[2].frames.len();
    while n.b.monitors[2].frames.len() == had {
        step(&mut n);
        assert!(n.sim.cycle() < 4_000_000, "no answer to the telemetry read");
    }
    let rep = n.b.monitors[2].frames.last().unwrap().data.clone();
    let Some(Msg { body: Body::TableReply(v), .. }) = Msg::decode_reply(&rep) else { panic!("not a table reply") };
    let tele: Vec<[u64; 3]> = v.iter().map(|e| [e.d0 as u32 as u64, (e.d0 >> 32) as u64, (e.d0 >> 96) as u32 as u64]).collect();
    let bytes: u64 = sent.iter().map(|f| f.len() as u64).sum();
    assert_eq!(tele[0], [sent.len() as u64, bytes, 0], "VF {VF}: frames, bytes, drops");
    let per_version: Vec<u64> = tele[1..].iter().map(|t| t[0]).collect();
    assert_eq!(per_version, seen[1..].iter().map(|&x| x as u64).collect::<Vec<_>>(), "frames per tenant = frames per version");
    assert_eq!(tele[1..].iter().map(|t| t[1]).sum::<u64>(), bytes);
    eprintln!("{} frames at valid {valid}% ready {ready}%, {versions} versions, frames per version {:?}", out.len(), &seen[1..]);
}

/// Batches that change the VF's tenant, the tenant's VNI and every flow's tunnel (with deletes
/// of the old entries) go in while frames stream at line rate: every frame on the wire carries
/// one version's VNI and tunnel together, versions never go back, and no frame is lost.
#[test]
fn batches_overlapping_line_rate_traffic_are_never_partially_visible() {
    overlap_run(6, 3000, 900, 100, 100, 1);
    overlap_run(5, 1500, 1100, 70, 60, 2);
}

/// The host (a tenant with root) attacks `em_node`'s window while the OM's tables are in place:
/// a dump of every policy entry read back over M2M before and after is the same and equals the
/// policy, every refused access is counted, and the endpoint still serves the OM.
#[test]
fn host_attack_on_em_node_changes_no_table_entry() {
    use nicgen_om::policy::compile;
    use nicgen_sim::axil::{AxilMaster, OKAY, SLVERR};
    let path = format!("{}/examples/overlay.toml", env!("CARGO_MANIFEST_DIR"));
    let c = compile(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
    let want = c.ems[&0].image();
    let mut sim = node_sim();
    sim.reset(2);
    let lp = sim.port("link_up");
    sim.set_u64(lp, 3);
    let om = AxisDriver::new(&sim, "s_axis_up", 100, 5);
    let reply = AxisMonitor::new(&sim, "m_axis_reply", 100, 6);
    let mut host = AxilMaster::new(&sim, "s_axil_host", 70, 7);
    host.idle(&mut sim);
    let mut b = StreamBench::new(vec![om], vec![reply]);
    let ask = |sim: &mut VerilatorSim, b: &mut StreamBench, m: Vec<u8>| -> Vec<u8> {
        let n = b.monitors[0].frames.len();
        b.drivers[0].push(AxisFrame::new(m));
        let t0 = sim.cycle();
        while b.monitors[0].frames.len() == n {
            b.step(sim);
            assert!(sim.cycle() - t0 < 20_000, "no answer");
        }
        b.monitors[0].frames[n].data.clone()
    };
    let p = ask(&mut sim, &mut b, Msg::profile(0, 1, 1, c.ems[&0].profile).encode());
    assert_eq!(Header::decode(&p).status, Status::Applied as u16);
    let batch = TableImage::default().diff(&want);
    let a = ask(&mut sim, &mut b, Msg::tables(0, 2, 2, batch).encode());
    assert_eq!(Header::decode(&a).status, Status::Applied as u16);
    // the dump: every entry of the policy plus every (dest, table) at indexes it leaves empty
    let mut keys: Vec<(u8, u8, u16)> = want.entries.keys().copied().collect();
    for d in 0..4u8 {
        for t in 0..4u8 {
            keys.push((d, t, 7));
        }
    }
    let dump = |sim: &mut VerilatorSim, b: &mut StreamBench| -> Vec<TableEntry> {
        let mut v = vec![];
        for ch in keys.chunks(MAX_ENTRIES) {
            let r = ask(sim, b, Msg::table_read(0, 9, ch.to_vec()).encode());
            let Some(Msg { body: Body::TableReply(e), .. }) = Msg::decode_reply(&r) else { panic!("not a table reply") };
            v.extend(e);
        }
        v
    };
    let before = dump(&mut sim, &mut b);
    for e in &before {
        let w = want.entries.get(&(e.dest, e.table, e.index)).copied().unwrap_or_default();
        assert_eq!((e.d0, e.d1), w, "entry {:?} holds the policy", (e.dest, e.table, e.index));
    }
    // the attack: every word of the window and beyond, random data and strobes, then bursts
    let mut rng = Rng::new(99);
    let (mut rd, mut wr) = (0u64, 0u64);
    let mut addrs: Vec<u64> = (0..0x1000u64).step_by(4).collect();
    addrs.extend((0..128).map(|_| rng.next_u64() & 0xffff_fffc));
    for &a in &addrs {
        let w = host.write(&mut sim, a, rng.next_u64() as u32, rng.range(0, 15) as u8);
        if a == 0xc {
            assert_eq!(w, OKAY);
        } else {
            assert_eq!(w, SLVERR, "write {a:#x}");
            wr += 1;
        }
        let (_, r) = host.read(&mut sim, a);
        if a > 0xc {
            assert_eq!(r, SLVERR, "read {a:#x}");
            rd += 1;
        }
    }
    host.pct = 100;
    for k in 0..200u64 {
        assert_eq!(host.write(&mut sim, 0x100 + 4 * k, 0xffff_ffff, 0xf), SLVERR);
        assert_eq!(host.read(&mut sim, 0x100 + 4 * k).1, SLVERR);
        rd += 1;
        wr += 1;
    }
    let after = dump(&mut sim, &mut b);
    assert_eq!(after, before, "the table dump after the attack equals the one before");
    let t = ask(&mut sim, &mut b, Msg::tele_read(0, 10, 12, 2).encode());
    let Some(Msg { body: Body::TeleReply(v), .. }) = Msg::decode_reply(&t) else { panic!() };
    assert_eq!(v, vec![rd, wr], "every refused read and write counted");
    eprintln!("em_node host attack: {} entries dumped before and after, {rd} reads and {wr} writes refused", before.len());
}
