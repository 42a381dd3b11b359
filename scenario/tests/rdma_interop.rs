//! Requests built by scapy, as another RoCE stack would send them, answered by one verilated
//! engine: a WRITE ONLY, a READ REQUEST (a 60-byte IP packet) and a multi-packet WRITE. The
//! data must land in host memory, and the ACKs and READ responses must pass scapy's ICRC check
//! and carry the right fields by the golden model's parse.
use nicgen_hw::roce::qp::*;
use nicgen_hw::roce::{cq_status, wr_op, CqEntryFields, SqWrFields};
use nicgen_scenario::rdma::*;
use nicgen_model::opcode as op;
use nicgen_model::*;
use nicgen_sim::axis::*;
use nicgen_sim::host::DmaParams;
use nicgen_sim::oracle::*;
use nicgen_sim::CycleSim;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Node B (one verilated engine) with QP 7 in RTS, expecting PSN 5 and talking to node A's QP
/// 0x11: PMTU code `pmtu`, rkey 9, region `[0x1000, 0x1000 + 1 MiB)`, read and write access.
fn node_b(seed: u64, pmtu: u8) -> (Node, QpCfgFields) {
    let mut n = Node::new(DmaParams { rd_latency: 60, ..Default::default() }, seed, 500).unwrap();
    n.setup(1).unwrap();
    let cfg = QpCfgFields {
        pmtu,
        remote_qpn: 0x11,
        remote_ip: IP[0] as u128,
        remote_mac: MAC[0],
        udp_sport: 50000,
        pkey: 0xffff,
        ttl: 64,
        rkey: 9,
        mr_base: 0x1000,
        mr_len: 1 << 20,
        access: access::REMOTE_READ | access::REMOTE_WRITE,
        ..Default::default()
    };
    n.qp(7, &cfg, &QpRqFields { state: state::RTS, rq_expected_psn: 5, ..Default::default() }, 100).unwrap();
    (n, cfg)
}

/// A request from node A for `roce_oracle.py request`.
#[allow(clippy::too_many_arguments)]
fn req(opc: u8, qp: u32, psn: u32, ack: u8, va: u64, rkey: u32, dlen: usize, pay: &[u8]) -> String {
    format!(
        r#"{{"op": {opc}, "dqpn": {qp}, "psn": {psn}, "ackreq": {ack}, "va": {va}, "rkey": {rkey}, "dlen": {dlen}, "payload": "{}", "src": "10.0.0.1", "dst": "10.0.0.2", "smac": "02:00:00:00:00:0a", "dmac": "02:00:00:00:00:0b", "sport": 50001}}"#,
        hex(pay)
    )
}

#[test]
fn scapy_requests_are_answered() {
    let (mut n, _) = node_b(1, 2);
    let read_data: Vec<u8> = (0..2500u32).map(|i| (i * 13 + 1) as u8).collect();
    n.mem.write(0x8000, &read_data);
    let w2: Vec<u8> = (0..2100u32).map(|i| (i * 7) as u8).collect();
    let w = |o: u8, psn: u32, ack: u8, va: u64, dlen: usize, pay: &[u8]| req(o, 7, psn, ack, va, 9, dlen, pay);
    let reqs = vec![
        w(op::WRITE_ONLY, 5, 1, 0x1000, 3, &[0xaa, 0xbb, 0xcc]),
        w(op::READ_REQUEST, 6, 0, 0x8000, 2500, &[]),
        w(op::WRITE_FIRST, 9, 0, 0x2000, 2100, &w2[..1024]),
        w(op::WRITE_MIDDLE, 10, 0, 0, 0, &w2[1024..2048]),
        w(op::WRITE_LAST, 11, 1, 0, 0, &w2[2048..]),
    ];
    let frames = scapy_request(&reqs).unwrap();
    assert_eq!(frames[1].len() - 14, 60, "a READ REQUEST is a 60-byte IP packet");
    let mut d = AxisDriver::new(&n.sim, "s_axis_rx", 100, 1);
    for f in &frames {
        d.push(AxisFrame::new(f.clone()));
    }
    let m = AxisMonitor::new(&n.sim, "m_axis_tx", 100, 2);
    let mut b = StreamBench::new(vec![d], vec![m]);
    for _ in 0..3000 {
        n.dma.drive(&mut n.sim);
        n.rb.drive(&mut n.sim);
        b.step_with(&mut n.sim, |s| {
            n.dma.sample(s, &mut n.mem);
            n.rb.sample(s);
            false
        });
    }
    assert!(n.dma.errors.is_empty(), "{:?}", n.dma.errors);
    assert_eq!(n.mem.read(0x1000, 3), vec![0xaa, 0xbb, 0xcc]);
    assert_eq!(n.mem.read(0x2000, 2100), w2);
    let out: Vec<Vec<u8>> = b.monitors[0].frames.iter().map(|f| f.data.clone()).collect();
    for (i, v) in scapy_check(&out).unwrap().iter().enumerate() {
        assert_eq!(*v, ScapyVerdict::Ok, "frame {i}");
    }
    let p: Vec<RoceFrame> = out.iter().map(|f| parse(f).unwrap()).collect();
    let got: Vec<(u8, u32, Option<Aeth>, usize)> = p.iter().map(|f| (f.hdr.bth.opcode, f.hdr.bth.psn, f.hdr.aeth, f.payload.len())).collect();
    let ack = |msn| Some(Aeth { syndrome: 0x1f, msn });
    assert_eq!(got, vec![
        (op::ACK, 5, ack(1), 0),
        (op::READ_RESP_FIRST, 6, ack(2), 1024),
        (op::READ_RESP_MIDDLE, 7, None, 1024),
        (op::READ_RESP_LAST, 8, ack(2), 452),
        (op::ACK, 11, ack(3), 0),
    ]);
    let data: Vec<u8> = p[1..4].iter().flat_map(|f| f.payload.clone()).collect();
    assert_eq!(data, read_data);
    for f in &p {
        assert_eq!(f.hdr.bth.dqpn, 0x11);
        assert_eq!(f.hdr.dst_mac, MAC[0].to_be_bytes()[2..]);
        assert_eq!(f.hdr.udp_sport, 50000);
    }
}

/// Bad frames into a whole engine: each is dropped (or NAKed) and counted by cause, the RX side
/// never pushes back on the MAC, and the good traffic around them lands.
#[test]
fn bad_frames_into_the_engine_are_counted_and_harmless() {
    use nicgen_hw::roce::engine::ENGINE_COUNTERS;
    let (mut n, cfg) = node_b(2, 4);
    n.qp(8, &QpCfgFields { remote_qpn: 0x12, ..cfg }, &QpRqFields { state: state::RTS, rq_expected_psn: 50, ..Default::default() }, 200).unwrap();
    let wo = |qp: u32, psn: u32, va: u64, rkey: u32, pay: &[u8]| req(op::WRITE_ONLY, qp, psn, 1, va, rkey, pay.len(), pay);
    let good1: Vec<u8> = (0..700u32).map(|i| i as u8).collect();
    let good2: Vec<u8> = (0..300u32).map(|i| (i * 3) as u8).collect();
    let f = scapy_request(&[
        wo(7, 5, 0x1000, 9, &good1),
        wo(7, 6, 0x3000, 9, &[1, 2, 3, 4]),
        wo(600, 1, 0x1000, 9, &[5; 64]),
        wo(8, 50, 0x1000, 10, &[6; 64]),
        wo(7, 6, 0x2000, 9, &good2),
    ])
    .unwrap();
    let mut bad_icrc = f[1].clone();
    let l = bad_icrc.len();
    bad_icrc[l - 1] ^= 0x5a;
    let truncated = f[1][..40].to_vec();
    let mut not_roce = f[1].clone();
    not_roce[14 + 20 + 3] ^= 0x01; // UDP destination port 4791 → 4790
    // a P_Key that does not match the QP's (0xffff), a transport version other than 0, and a
    // duplicate WRITE that does not ask for an ACK: the first two are dropped as malformed, the
    // duplicate is ACKed again (C9-105) and not written
    let with = |r: String, extra: &str| format!("{}, {extra}}}", r.trim_end_matches('}'));
    let g = scapy_request(&[
        with(wo(7, 6, 0x3000, 9, &[1, 2, 3, 4]), r#""pkey": 4660"#),
        with(wo(7, 6, 0x3000, 9, &[1, 2, 3, 4]), r#""tver": 1"#),
        req(op::WRITE_ONLY, 7, 5, 0, 0x5000, 9, 8, &[9; 8]),
    ])
    .unwrap();
    let frames = vec![f[0].clone(), bad_icrc, truncated, not_roce, g[0].clone(), g[1].clone(), g[2].clone(), f[2].clone(), f[3].clone(), f[4].clone()];
    let before = n.counters();
    let mut d = AxisDriver::new(&n.sim, "s_axis_rx", 100, 1);
    for x in &frames {
        d.push(AxisFrame::new(x.clone()));
    }
    let m = AxisMonitor::new(&n.sim, "m_axis_tx", 100, 2);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let (tv, tr) = (n.sim.port("s_axis_rx$tvalid"), n.sim.port("s_axis_rx$tready"));
    let mut refused = 0;
    for _ in 0..2000 {
        n.dma.drive(&mut n.sim);
        n.rb.drive(&mut n.sim);
        b.step_with(&mut n.sim, |s| {
            if s.get_bit(tv) && !s.get_bit(tr) {
                refused += 1;
            }
            n.dma.sample(s, &mut n.mem);
            n.rb.sample(s);
            false
        });
    }
    assert_eq!(refused, 0, "the RX side pushed back on the MAC");
    assert_eq!(n.mem.read(0x1000, 700), good1);
    assert_eq!(n.mem.read(0x2000, 300), good2);
    assert_eq!(n.mem.read(0x3000, 4), vec![0; 4], "the bad-ICRC, bad-P_Key and bad-TVer copies of a WRITE must not land");
    assert_eq!(n.mem.read(0x5000, 8), vec![0; 8], "a duplicate WRITE must not be written again");
    let after = n.counters();
    let delta = |name: &str| {
        let i = ENGINE_COUNTERS.iter().position(|(c, _)| *c == name).unwrap();
        after[i] - before[i]
    };
    assert_eq!(delta("rx_frames"), 10);
    assert_eq!(delta("resp_malformed"), 2);
    assert_eq!(delta("resp_duplicate"), 1);
    assert_eq!(delta("rx_bad_icrc"), 1);
    assert_eq!(delta("rx_truncated"), 1);
    assert_eq!(delta("rx_not_roce"), 1);
    assert_eq!(delta("resp_unknown_qp"), 1);
    assert_eq!(delta("resp_rkey_violation"), 1);
    assert_eq!(delta("resp_writes"), 2);
    let out: Vec<RoceFrame> = b.monitors[0].frames.iter().map(|f| parse(&f.data).unwrap()).collect();
    let got: Vec<(u32, u32, u8)> = out.iter().map(|f| (f.hdr.bth.dqpn, f.hdr.bth.psn, f.hdr.aeth.unwrap().syndrome)).collect();
    assert_eq!(got, vec![(0x11, 5, 0x1f), (0x11, 5, 0x1f), (0x12, 50, 0x62), (0x11, 6, 0x1f)]);
}

/// A fatal NAK stops the QP's requester side in the TX too: node A's QP 0x11 sends a WRITE,
/// the peer answers NAK 0x62 (remote access); the WRITE completes with that error, and the QP's
/// later work sends nothing and completes as flushed, while QP 0x12 keeps sending.
#[test]
fn fatal_nak_stops_the_qps_sending() {
    let mut n = Node::new(DmaParams { rd_latency: 60, ..Default::default() }, 3, 500).unwrap();
    n.setup(0).unwrap();
    for (qpn, remote) in [(0x11u32, 7u32), (0x12, 8)] {
        let cfg = QpCfgFields { pmtu: 2, remote_qpn: remote, remote_ip: IP[1] as u128, remote_mac: MAC[1], udp_sport: 50000, pkey: 0xffff, ttl: 64, rkey: 9, mr_base: 0x1000, mr_len: 1 << 20, access: access::REMOTE_READ | access::REMOTE_WRITE, ..Default::default() };
        n.qp(qpn, &cfg, &QpRqFields { state: state::RTS, rq_expected_psn: 5, ..Default::default() }, 100).unwrap();
    }
    n.mem.write(0x4000, &[0x5a; 300]);
    let wr = |id: u32, qpn: u32| SqWrFields { wr_id: id, op: wr_op::WRITE, qpn, laddr: 0x4000, raddr: 0x1000, rkey: 9, len: 300, signaled: true }.to_words();
    let mut tx = AxisMonitor::new(&n.sim, "m_axis_tx", 100, 1);
    let mut rx = AxisDriver::new(&n.sim, "s_axis_rx", 100, 2);
    let before = n.counters();
    let run = |n: &mut Node, tx: &mut AxisMonitor, rx: &mut AxisDriver, cycles: usize| {
        for _ in 0..cycles {
            n.dma.drive(&mut n.sim);
            n.rb.drive(&mut n.sim);
            n.sq.drive(&mut n.sim);
            n.cq.drive(&mut n.sim);
            tx.drive(&mut n.sim);
            rx.drive(&mut n.sim);
            n.sim.eval();
            n.dma.sample(&mut n.sim, &mut n.mem);
            n.rb.sample(&mut n.sim);
            n.sq.sample(&mut n.sim);
            n.cq.sample(&mut n.sim);
            tx.sample(&mut n.sim);
            rx.sample(&mut n.sim);
            n.sim.tick();
        }
    };
    n.sq.push(wr(1, 0x11));
    run(&mut n, &mut tx, &mut rx, 600);
    assert_eq!(tx.frames.len(), 1, "the first WRITE goes out");
    let sent = parse(&tx.frames[0].data).unwrap().hdr.bth;
    assert_eq!((sent.opcode, sent.dqpn, sent.psn), (op::WRITE_ONLY, 7, 100));
    // the peer's NAK 0x62 for PSN 100, built by the golden model
    let ip = IpHdr::V4 { src: IP[1].to_be_bytes(), dst: IP[0].to_be_bytes(), dscp: 0, ecn: 0, ttl: 64, id: 0 };
    let mut h = RoceHeaders::new(ip, op::ACK, 0x11, 100);
    h.src_mac = MAC[1].to_be_bytes()[2..].try_into().unwrap();
    h.dst_mac = MAC[0].to_be_bytes()[2..].try_into().unwrap();
    h.aeth = Some(Aeth { syndrome: 0x62, msn: 0 });
    rx.push(AxisFrame::new(h.build(&[])));
    run(&mut n, &mut tx, &mut rx, 300);
    // later work of QP 0x11 is flushed; QP 0x12 still sends
    n.sq.push(wr(2, 0x11));
    n.sq.push(wr(3, 0x11));
    n.sq.push(wr(4, 0x12));
    run(&mut n, &mut tx, &mut rx, 800);
    let cq: Vec<(u32, u8)> = n.cq.seen.iter().map(|(_, w)| CqEntryFields::from_words(w)).map(|c| (c.wr_id, c.status)).collect();
    assert_eq!(cq, vec![(1, cq_status::REMOTE_ACCESS), (2, cq_status::FLUSHED), (3, cq_status::FLUSHED)]);
    let dq: Vec<u32> = tx.frames.iter().map(|f| parse(&f.data).unwrap().hdr.bth.dqpn).collect();
    assert_eq!(dq, vec![7, 8], "nothing more for the failed QP; QP 0x12's WRITE goes out");
    let after = n.counters();
    let i = nicgen_hw::roce::engine::ENGINE_COUNTERS.iter().position(|c| c.0 == "req_nak_fatal").unwrap();
    assert_eq!(after[i] - before[i], 1);
}
