//! `ArpIcmp` on Verilator and in lock step with rust-hdl: ARP requests answered, peers learned,
//! requests sent on demand, ICMP echo requests of every length residue answered byte for byte
//! as etherparse builds the reply (its own checksums), everything else ignored, bad and oversized
//! requests dropped and counted, and the engine's frames passed through whole and in order,
//! under random gaps and backpressure on every stream.
mod common;
use etherparse::PacketBuilder;
use nicgen_hw::roce::arp_icmp::ArpIcmp;
use nicgen_sim::axis::*;
use nicgen_sim::*;

const MAC: [u8; 6] = [0x02, 0x4e, 0x49, 0x43, 0x00, 0x01];
const IP: [u8; 4] = [10, 9, 0, 2];

fn num_mac(m: &[u8; 6]) -> u64 {
    u64::from_be_bytes([0, 0, m[0], m[1], m[2], m[3], m[4], m[5]])
}

fn arp(op: u16, dst: [u8; 6], sha: [u8; 6], spa: [u8; 4], tha: [u8; 6], tpa: [u8; 4]) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend(sha);
    f.extend([0x08, 0x06, 0, 1, 0x08, 0, 6, 4]);
    f.extend(op.to_be_bytes());
    f.extend(sha);
    f.extend(spa);
    f.extend(tha);
    f.extend(tpa);
    f.resize(60, 0);
    f
}

fn echo(src_mac: [u8; 6], dst_mac: [u8; 6], src: [u8; 4], dst: [u8; 4], id: u16, seq: u16, payload: &[u8], reply: bool) -> Vec<u8> {
    let b = PacketBuilder::ethernet2(src_mac, dst_mac).ipv4(src, dst, 64);
    let b = if reply { b.icmpv4_echo_reply(id, seq) } else { b.icmpv4_echo_request(id, seq) };
    let mut f = Vec::with_capacity(b.size(payload.len()));
    b.write(&mut f, payload).unwrap();
    if f.len() < 60 {
        f.resize(60, 0);
    }
    f
}

/// What goes in and what must come out.
struct Plan {
    rx: Vec<AxisFrame>,
    tx: Vec<AxisFrame>,
    /// Replies in the order their requests arrive (ARP and echo each keep their order).
    arp_out: Vec<Vec<u8>>,
    echo_out: Vec<Vec<u8>>,
    learned: Vec<([u8; 4], [u8; 6])>,
    echo_bad: u64,
}

fn plan(rng: &mut Rng, n_echo_lens: &[usize]) -> Plan {
    let mut p = Plan { rx: vec![], tx: vec![], arp_out: vec![], echo_out: vec![], learned: vec![], echo_bad: 0 };
    let peer_mac = |i: u8| [0x52, 0x54, 0, 0x12, 0x34, i];
    let peer_ip = |i: u8| [10, 9, 0, 100 + i];
    for (k, &n) in n_echo_lens.iter().enumerate() {
        let i = (k % 5) as u8;
        let payload = rng.bytes(n);
        let (id, seq) = (rng.next_u64() as u16, k as u16);
        let req = echo(peer_mac(i), MAC, peer_ip(i), IP, id, seq, &payload, false);
        p.rx.push(AxisFrame::new(req.clone()));
        // the reply keeps the request's frame length (and its Ethernet padding)
        let mut want = echo(MAC, peer_mac(i), IP, peer_ip(i), id, seq, &payload, true);
        want.resize(req.len(), 0);
        p.echo_out.push(want);
        match k % 7 {
            0 => {
                // an ARP request for the card, broadcast, and one for another host
                p.rx.push(AxisFrame::new(arp(1, [0xff; 6], peer_mac(i), peer_ip(i), [0; 6], IP)));
                p.arp_out.push(arp(2, peer_mac(i), MAC, IP, peer_mac(i), peer_ip(i)));
                p.learned.push((peer_ip(i), peer_mac(i)));
                p.rx.push(AxisFrame::new(arp(1, [0xff; 6], peer_mac(i), peer_ip(i), [0; 6], [10, 9, 0, 3])));
            }
            1 => {
                // an echo request to another IP, to another MAC, with IP options, a fragment,
                // and an ICMP echo reply: none is answered
                p.rx.push(AxisFrame::new(echo(peer_mac(i), MAC, peer_ip(i), [10, 9, 0, 3], 1, 2, &payload, false)));
                p.rx.push(AxisFrame::new(echo(peer_mac(i), peer_mac(9), peer_ip(i), IP, 1, 2, &payload, false)));
                let mut opt = req.clone();
                opt[14] = 0x46;
                p.rx.push(AxisFrame::new(opt));
                let mut frag = req.clone();
                frag[20] = 0x20;
                p.rx.push(AxisFrame::new(frag));
                p.rx.push(AxisFrame::new(echo(peer_mac(i), MAC, peer_ip(i), IP, 1, 2, &payload, true)));
            }
            2 => {
                // an echo request that ends bad is dropped; an ARP reply to the card is learned
                p.rx.push(AxisFrame { data: req.clone(), user: true });
                p.echo_bad += 1;
                let m = [0x52, 0x54, 0, 0x77, 0, i];
                p.rx.push(AxisFrame::new(arp(2, MAC, m, [10, 9, 0, 200 + i], MAC, IP)));
                p.learned.push(([10, 9, 0, 200 + i], m));
            }
            3 => {
                // a bad ARP request is not answered; RoCE-like UDP is not the block's
                let mut a = AxisFrame::new(arp(1, [0xff; 6], peer_mac(i), peer_ip(i), [0; 6], IP));
                a.user = true;
                p.rx.push(a);
                p.rx.push(AxisFrame::new(rng.bytes(200)));
            }
            _ => {}
        }
        // the engine's frames meanwhile
        for _ in 0..2 {
            let n = rng.range(60, 600) as usize;
            p.tx.push(AxisFrame::new(rng.bytes(n)));
        }
    }
    p
}

/// Runs `plan` with random gaps and backpressure; returns (replies in wire order, engine frames
/// in wire order).
fn run<S: CycleSim>(sim: &mut S, p: &Plan, valid: u32, ready: u32, seed: u64) -> Vec<SeenFrame> {
    start(sim);
    let mut rx = AxisDriver::new(sim, "rx", valid, seed);
    let mut tx = AxisDriver::new(sim, "s_axis_tx", valid, seed + 1);
    let out = AxisMonitor::new(sim, "m_axis_tx", ready, seed + 2);
    for f in &p.rx {
        rx.push(f.clone());
    }
    for f in &p.tx {
        tx.push(f.clone());
    }
    let mut b = StreamBench::new(vec![rx, tx], vec![out]);
    let rdy = sim.port("rx$tready");
    let mut rng = Rng::new(seed ^ 0x77);
    let mut still = 0;
    while still < 200 {
        // the tap's ready is the RX path's: random too
        sim.set_bit(rdy, rng.chance(ready));
        let n = b.step(sim);
        let busy = b.drivers.iter().any(|d| !d.idle());
        still = if n > 0 || busy { 0 } else { still + 1 };
        assert!(b.cycles < 3_000_000, "stalled");
    }
    b.monitors[0].frames.clone()
}

/// Reset, and the card's MAC and IP.
fn start<S: CycleSim>(sim: &mut S) {
    sim.reset(2);
    let (mp, ip) = (sim.port("local_mac"), sim.port("local_ip"));
    sim.set_u64(mp, num_mac(&MAC));
    sim.set_u64(ip, u32::from_be_bytes(IP) as u64);
}

fn counter<S: CycleSim>(sim: &mut S, name: &str) -> u64 {
    let p = sim.port(name);
    sim.get_u64(p)
}

fn check<S: CycleSim>(sim: &mut S, p: &Plan, valid: u32, ready: u32, seed: u64) {
    let got = run(sim, p, valid, ready, seed);
    let tx_set: Vec<&Vec<u8>> = p.tx.iter().map(|f| &f.data).collect();
    let (mut txs, mut arps, mut echos) = (vec![], vec![], vec![]);
    for g in &got {
        assert!(!g.user, "no frame leaves flagged");
        if g.data.len() >= 14 && g.data[12..14] == [0x08, 0x06] && g.data[6..12] == MAC {
            arps.push(g.data.clone());
        } else if g.data.len() >= 34 && g.data[6..12] == MAC && g.data[23] == 1 {
            echos.push(g.data.clone());
        } else {
            txs.push(&g.data);
        }
    }
    assert_eq!(txs, tx_set, "the engine's frames pass whole and in order");
    assert_eq!(arps.len(), p.arp_out.len(), "one ARP reply per request for the card");
    for (i, (g, w)) in arps.iter().zip(&p.arp_out).enumerate() {
        assert_eq!(g, w, "ARP reply {i}");
    }
    assert_eq!(echos.len(), p.echo_out.len(), "one echo reply per good request");
    for (i, (g, w)) in echos.iter().zip(&p.echo_out).enumerate() {
        assert_eq!(g, w, "echo reply {i} (frame of {} bytes)", w.len());
    }
    assert_eq!(counter(sim, "arp_replies"), p.arp_out.len() as u64);
    assert_eq!(counter(sim, "echo_replies"), p.echo_out.len() as u64);
    assert_eq!(counter(sim, "echo_dropped"), p.echo_bad);
    assert_eq!(counter(sim, "arp_dropped"), p.rx.iter().filter(|f| f.user && f.data[12..14] == [0x08, 0x06]).count() as u64);
    // the neighbour table holds the last 8 peers learned
    let mut want: Vec<([u8; 4], [u8; 6])> = vec![];
    for (ip, mac) in &p.learned {
        want.retain(|(i, _)| i != ip);
        want.push((*ip, *mac));
    }
    let (q, hit, mac) = (sim.port("nb_query_ip"), sim.port("nb_hit"), sim.port("nb_mac"));
    for (k, (ip, m)) in want.iter().rev().enumerate() {
        sim.set_u64(q, u32::from_be_bytes(*ip) as u64);
        sim.eval();
        let in_table = k < 8;
        assert_eq!(sim.get_bit(hit), in_table, "neighbour {ip:?}");
        if in_table {
            assert_eq!(sim.get_u64(mac), num_mac(m), "neighbour {ip:?}");
        }
    }
    sim.set_u64(q, u32::from_be_bytes([10, 9, 0, 99]) as u64);
    sim.eval();
    assert!(!sim.get_bit(hit), "an unknown IP misses");
}

#[test]
fn replies_of_every_length_and_the_engine_frames_pass() {
    let mut sim = verilate(&mut ArpIcmp::default());
    let mut rng = Rng::new(1);
    // ICMP payloads of 0..=128 bytes: frames of 60 (padded) to 170 bytes, every tkeep residue
    // of the last beat from 42 + 18 on; and long ones up to a 1500-byte MTU
    let mut lens: Vec<usize> = (0..=150).collect();
    lens.extend([1472, 1000, 64 * 7 - 42, 64 * 7 - 41]);
    let p = plan(&mut rng, &lens);
    for (seed, valid, ready) in [(1, 100, 100), (2, 60, 70), (3, 90, 30), (4, 30, 95)] {
        check(&mut sim, &p, valid, ready, seed);
    }
}

#[test]
fn every_residue_of_the_reply_last_beat() {
    // frame lengths 64k + r for every r: payloads from 64*2 - 42 upward
    let mut sim = verilate(&mut ArpIcmp::default());
    let mut rng = Rng::new(2);
    let lens: Vec<usize> = (128 - 42..128 - 42 + 64).collect();
    let p = plan(&mut rng, &lens);
    let residues: std::collections::BTreeSet<usize> = p.echo_out.iter().map(|f| f.len() % 64).collect();
    assert_eq!(residues.len(), 64);
    check(&mut sim, &p, 80, 80, 9);
}

#[test]
fn oversized_echo_requests_are_dropped_and_counted() {
    let mut sim = verilate(&mut ArpIcmp::default());
    let mut rng = Rng::new(3);
    let mut p = plan(&mut rng, &[10, 20]);
    let big = echo([0x52, 0x54, 0, 0, 0, 1], MAC, [10, 9, 0, 100], IP, 1, 1, &rng.bytes(3000), false);
    p.rx.insert(1, AxisFrame::new(big));
    p.echo_bad += 1;
    check(&mut sim, &p, 100, 100, 5);
}

#[test]
fn who_has_sends_an_arp_request() {
    let mut sim = verilate(&mut ArpIcmp::default());
    start(&mut sim);
    let (wip, go) = (sim.port("who_has_ip"), sim.port("who_has_go"));
    sim.set_u64(wip, u32::from_be_bytes([10, 9, 0, 1]) as u64);
    sim.set_bit(go, true);
    sim.eval();
    sim.tick();
    sim.set_bit(go, false);
    let out = AxisMonitor::new(&sim, "m_axis_tx", 100, 1);
    let mut b = StreamBench::new(vec![], vec![out]);
    b.drain(&mut sim, 20, 1000);
    let f = &b.monitors[0].frames;
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].data, arp(1, [0xff; 6], MAC, IP, [0; 6], [10, 9, 0, 1]));
    assert_eq!(counter(&mut sim, "arp_requests"), 1);
}

#[test]
fn lock_step() {
    let v = verilate(&mut ArpIcmp::default());
    let r = RustHdlSim::new(ArpIcmp::default());
    let mut d = Diff::new(v, r);
    let mut rng = Rng::new(4);
    let p = plan(&mut rng, &[0, 1, 17, 64, 100, 200, 700]);
    check(&mut d, &p, 70, 70, 6);
}
