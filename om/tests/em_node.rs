//! One EM (`em_node`: the datapath and its M2M endpoint) under Verilator, driven by OM table
//! images: table batches that overlap line-rate traffic are never partially visible.
use nicgen_hw::m2m::node::EmNode;
use nicgen_model::em::*;
use nicgen_model::m2m::*;
use nicgen_om::image::TableImage;
use nicgen_sim::axis::*;
use nicgen_sim::*;

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

struct Node {
    sim: VerilatorSim,
    b: StreamBench,
}

/// Run `frames` from VF 1 at `valid`/`ready` while batches for versions 2..=`versions` go in
/// every `gap` cycles; check every frame on the wire.
fn overlap_run(versions: u32, frames: usize, gap: u64, valid: u32, ready: u32, seed: u64) {
    let mut sim = verilate(&mut EmNode::default());
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
