//! TX engine on Verilator: work requests, READ jobs and ACK requests in; frames out, each parsed
//! by the golden model (etherparse, ICRC by the `crc` crate) and by scapy, with payloads equal
//! to host memory. Random gaps and backpressure everywhere, payload fetched through a DMA-read
//! model that answers in order.
mod common;
use nicgen_hw::roce::qp::*;
use nicgen_hw::roce::tx::engine::RoceTx500;
use nicgen_hw::roce::*;
use nicgen_model::opcode as op;
use nicgen_model::*;
use nicgen_sim::axis::*;
use nicgen_sim::cardmem::{CardMem, CardParams};
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::oracle::*;
use nicgen_sim::*;

const LOCAL_MAC: u64 = 0x02_00_00_00_00_0a;
const LOCAL_IP: u128 = 0x0a00_0001;

struct Qp {
    qpn: u32,
    cfg: QpCfgFields,
    psn: u32,
    state: u8,
}

fn qp(rng: &mut Rng, qpn: u32) -> Qp {
    let v6 = rng.chance(30);
    Qp {
        qpn,
        cfg: QpCfgFields {
            ipv6: v6,
            pmtu: rng.below(5) as u8,
            remote_qpn: rng.below(1 << 24) as u32,
            remote_ip: if v6 { (rng.next_u64() as u128) << 64 | rng.next_u64() as u128 } else { rng.next_u64() as u32 as u128 },
            remote_mac: rng.next_u64() & 0xffff_ffff_ffff,
            udp_sport: rng.range(49152, 65535) as u16,
            pkey: 0xffff,
            ttl: 64,
            dscp: rng.below(64) as u8,
            ..Default::default()
        },
        psn: rng.below(1 << 24) as u32,
        state: state::RTS,
    }
}

fn setup<S: CycleSim>(sim: &mut S, q: &Qp) {
    let p = |s: &S, n: &str| s.port(n);
    let (qn, c, ps, st) = (p(sim, "ctl_qpn"), p(sim, "ctl_cfg"), p(sim, "ctl_sq_psn"), p(sim, "ctl_state"));
    sim.set_u64(st, q.state as u64);
    sim.set_u64(qn, q.qpn as u64);
    sim.set(c, &q.cfg.to_words());
    sim.set_u64(ps, q.psn as u64);
    common::ctl_handshake(sim, 100, |_| ());
}

/// Host memory: a byte pattern from the address, so any misplaced fetch shows.
fn host(addr: u64) -> u8 {
    (addr.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8
}

fn host_range(addr: u64, len: usize) -> Vec<u8> {
    (0..len as u64).map(|i| host(addr + i)).collect()
}

struct Out {
    frames: Vec<Vec<u8>>,
    sent: Vec<SentWrFields>,
    /// The retransmission buffer's card memory after the run.
    rb: CardMem,
}

fn run<S: CycleSim>(sim: &mut S, wrs: &[SqWrFields], rsps: &[RespItemFields], valid: u32, ready: u32, seed: u64) -> Out {
    let mut sq = ChanDriver::new(sim, "sq", valid, seed);
    let mut rd = ChanDriver::new(sim, "rsp", valid, seed + 1);
    let mut cm = ChanMonitor::new(sim, "dma_rd_cmd", ready, seed + 3);
    let mut sm = ChanMonitor::new(sim, "sent", ready, seed + 4);
    for w in wrs {
        sq.push(w.to_words());
    }
    for r in rsps {
        rd.push(r.to_words());
    }
    let data = AxisDriver::new(sim, "s_axis_dma_rd", valid, seed + 5);
    let mon = AxisMonitor::new(sim, "m_axis_tx", ready, seed + 6);
    let mut b = StreamBench::new(vec![data], vec![mon]);
    // card memory that pushes back as often as the other sinks
    let mut rb = CardMem::new(sim, "m_axi_rb", CardParams { ready_pct: ready, ..Default::default() }, seed + 7);
    let mut quiet = 0;
    let mut fed = 0;
    while quiet < 60 {
        for d in [&mut sq, &mut rd] {
            d.drive(sim);
        }
        cm.drive(sim);
        sm.drive(sim);
        // the completion side's answer in `rec` is its ready (a new message's record)
        let take = sim.get_bit(sm.ports.ready);
        sim.set_bit(sim.port("sent_take"), take);
        rb.drive(sim);
        let moved = b.step_with(sim, |s| {
            let mut m = rb.sample(s);
            for d in [&mut sq, &mut rd] {
                m |= d.sample(s);
            }
            m |= cm.sample(s) | sm.sample(s);
            m | s.get_bit(cm.ports.valid) | s.get_bit(sm.ports.valid)
        });
        // the DMA-read model answers each command, in order
        while fed < cm.seen.len() {
            let c = DmaCmdFields::from_words(&cm.seen[fed].1);
            b.drivers[0].push(AxisFrame::new(host_range(c.addr, c.len as usize)));
            fed += 1;
        }
        let busy = !sq.idle() || !rd.idle() || !b.drivers[0].idle() || !rb.idle();
        quiet = if moved || busy { 0 } else { quiet + 1 };
        assert!(b.cycles < 5_000_000, "TX engine stalled");
    }
    Out { frames: b.monitors[0].frames.iter().map(|f| f.data.clone()).collect(), sent: sm.seen.iter().map(|(_, w)| SentWrFields::from_words(w)).collect(), rb }
}

/// Check a frame's addressing against its QP.
fn check_addressing(f: &RoceFrame, q: &Qp, ctx: &str) {
    let h = &f.hdr;
    assert_eq!(h.bth.dqpn, q.cfg.remote_qpn, "{ctx}");
    assert_eq!(h.src_mac, LOCAL_MAC.to_be_bytes()[2..], "{ctx}");
    assert_eq!(h.dst_mac, q.cfg.remote_mac.to_be_bytes()[2..], "{ctx}");
    assert_eq!(h.udp_sport, q.cfg.udp_sport, "{ctx}");
    match h.ip {
        IpHdr::V4 { src, dst, ttl, dscp, .. } => {
            assert!(!q.cfg.ipv6, "{ctx}");
            assert_eq!((u32::from_be_bytes(src) as u128, u32::from_be_bytes(dst) as u128, ttl, dscp), (LOCAL_IP, q.cfg.remote_ip, 64, q.cfg.dscp), "{ctx}");
        }
        IpHdr::V6 { src, dst, hlim, .. } => {
            assert!(q.cfg.ipv6, "{ctx}");
            assert_eq!((u128::from_be_bytes(src), u128::from_be_bytes(dst), hlim), (LOCAL_IP, q.cfg.remote_ip, 64), "{ctx}");
        }
    }
}

#[test]
fn requests_responses_and_acks_are_built_right() {
    let mut sim = verilate(&mut RoceTx500::default());
    let mut rng = Rng::new(7);
    sim.reset(2);
    // the payload arrives with random gaps here: store and forward, so no frame is aborted
    // (the cut-through start and its aborts: `stream_basic::cut_fifo_*`)
    common::load_start(&mut sim, 255, "start_now");
    let (m, i) = (sim.port("local_mac"), sim.port("local_ip"));
    sim.set_u64(m, LOCAL_MAC);
    sim.set(i, &[LOCAL_IP as u32, 0, 0, 0]);
    let mut qps: Vec<Qp> = (0..8).map(|k| qp(&mut rng, 3 * k + 1)).collect();
    for q in &qps {
        setup(&mut sim, q);
    }
    // a QP that is not in RTS: its work requests send nothing and come back flushed
    let mut idle_qp = qp(&mut rng, 100);
    idle_qp.state = state::INIT;
    setup(&mut sim, &idle_qp);
    let mut wrs = vec![];
    for k in 0..80 {
        let q = &qps[rng.below(8) as usize];
        let len = match k % 4 {
            0 => 0,
            1 => rng.range(1, 64) as u32,
            2 => pmtu_bytes(q.cfg.pmtu) as u32 * rng.range(1, 4) as u32,
            _ => rng.range(1, 20_000) as u32,
        };
        let op = match rng.below(10) {
            0..=2 => wr_op::READ,
            3..=5 => wr_op::SEND,
            _ => wr_op::WRITE,
        };
        wrs.push(SqWrFields { wr_id: k, op, qpn: q.qpn, laddr: rng.next_u64() >> 8, raddr: rng.next_u64(), rkey: rng.next_u64() as u32, len, signaled: rng.chance(50) });
    }
    let idle_wrs: Vec<SqWrFields> = (0..3).map(|k| SqWrFields { wr_id: 1000 + k, op: k as u8 % 2, qpn: 100, laddr: 0x1000, raddr: 0x2000, rkey: 1, len: 5000, signaled: true }).collect();
    for (k, w) in idle_wrs.iter().enumerate() {
        wrs.insert(10 * k + 5, *w);
    }
    let mut jobs = vec![];
    for _ in 0..30 {
        let q = &qps[rng.below(8) as usize];
        let len = if rng.chance(20) { 0 } else { rng.range(1, 12_000) as u32 };
        let j = RespItemFields { read: true, syndrome: 0x1f, qpn: q.qpn, va: rng.next_u64() >> 8, len, psn: rng.below(1 << 24) as u32, pmtu: q.cfg.pmtu, msn: rng.below(1 << 24) as u32, again: false, rb: false };
        jobs.push(j);
        // answered again: from the buffer's copies (at most its last 16 packets, the ones still
        // in their slots), or from host memory
        if rng.chance(40) {
            let pmtu = pmtu_bytes(q.cfg.pmtu) as u32;
            let k0 = len.div_ceil(pmtu).saturating_sub(16);
            let rb = rng.chance(70);
            jobs.push(RespItemFields { psn: (j.psn + k0) & 0xff_ffff, va: j.va + (k0 * pmtu) as u64, len: len - k0 * pmtu, again: true, rb, ..j });
        }
    }
    let acks: Vec<RespItemFields> = (0..50)
        .map(|_| {
            let q = &qps[rng.below(8) as usize];
            let syn = [0x1f, 0x60, 0x61, 0x62][rng.below(4) as usize];
            RespItemFields { qpn: q.qpn, syndrome: syn, msn: rng.below(1 << 24) as u32, psn: rng.below(1 << 24) as u32, ..Default::default() }
        })
        .collect();
    // one ordered response queue: ACKs and READs interleaved
    let mut rsps = vec![];
    let (mut ja, mut aa) = (jobs.iter(), acks.iter());
    for k in 0..(jobs.len() + acks.len()) {
        let pick_job = k % 3 == 0;
        match (pick_job, ja.clone().next(), aa.clone().next()) {
            (true, Some(_), _) | (_, Some(_), None) => rsps.push(*ja.next().unwrap()),
            _ => rsps.push(*aa.next().unwrap()),
        }
    }
    let out = run(&mut sim, &wrs, &rsps, 70, 60, 1);
    // ACKs and READ responses leave in queue order
    let rsp_order: Vec<bool> = out.frames.iter().map(|f| parse(f).unwrap().hdr.bth.opcode).filter(|o| *o >= op::READ_RESP_FIRST && *o <= op::ACK).map(|o| o == op::ACK).collect();
    let mut want_order = vec![];
    for r in &rsps {
        if r.read {
            want_order.extend(std::iter::repeat(false).take((r.len as usize).div_ceil(pmtu_bytes(r.pmtu)).max(1)));
        } else {
            want_order.push(true);
        }
    }
    assert_eq!(rsp_order, want_order, "responses in queue order");
    // every frame: a valid ICRC (scapy and the crc crate) and parseable
    for (k, v) in scapy_check(&out.frames).unwrap().iter().enumerate() {
        assert_eq!(*v, ScapyVerdict::Ok, "frame {k}");
    }
    let parsed: Vec<RoceFrame> = out.frames.iter().map(|f| {
        assert!(check_icrc(f).unwrap().ok());
        parse(f).unwrap()
    }).collect();
    // ACKs, in order
    let got_acks: Vec<&RoceFrame> = parsed.iter().filter(|f| f.hdr.bth.opcode == op::ACK).collect();
    assert_eq!(got_acks.len(), acks.len());
    for (f, a) in got_acks.iter().zip(&acks) {
        let q = qps.iter().find(|q| q.qpn == a.qpn).unwrap();
        check_addressing(f, q, "ACK");
        assert_eq!((f.hdr.bth.psn, f.hdr.aeth.unwrap().syndrome, f.hdr.aeth.unwrap().msn), (a.psn, a.syndrome, a.msn));
        assert!(f.payload.is_empty());
    }
    // READ responses, in job order
    let resp_ops = [op::READ_RESP_FIRST, op::READ_RESP_MIDDLE, op::READ_RESP_LAST, op::READ_RESP_ONLY];
    let mut got_resp = parsed.iter().filter(|f| resp_ops.contains(&f.hdr.bth.opcode));
    for j in &jobs {
        let q = qps.iter().find(|q| q.qpn == j.qpn).unwrap();
        let pmtu = pmtu_bytes(j.pmtu);
        let n = (j.len as usize).div_ceil(pmtu).max(1);
        let mut data: Vec<u8> = vec![];
        for k in 0..n {
            let f = got_resp.next().expect("a READ response packet");
            check_addressing(f, q, "READ response");
            let want_op = match (k, n) {
                (_, 1) => op::READ_RESP_ONLY,
                (0, _) => op::READ_RESP_FIRST,
                (k, n) if k == n - 1 => op::READ_RESP_LAST,
                _ => op::READ_RESP_MIDDLE,
            };
            assert_eq!((f.hdr.bth.opcode, f.hdr.bth.psn), (want_op, (j.psn + k as u32) & 0xff_ffff));
            if want_op != op::READ_RESP_MIDDLE {
                assert_eq!(f.hdr.aeth.unwrap(), Aeth { syndrome: 0x1f, msn: j.msn });
            }
            data.extend(&f.payload);
        }
        assert_eq!(data, host_range(j.va, j.len as usize));
    }
    assert!(got_resp.next().is_none());
    // a first answer's packets are copied to the buffer's response half (bit 25 for 2^9 QPs); a
    // second answer's are not
    let mut slots = std::collections::HashMap::new();
    for j in jobs.iter().filter(|j| !j.again) {
        let pmtu = pmtu_bytes(j.pmtu);
        for (k, c) in host_range(j.va, j.len as usize).chunks(pmtu).enumerate() {
            slots.insert((1 << 25) | ((j.qpn as u64 & 511) << 16) | (((j.psn as u64 + k as u64) & 15) << 12), c.to_vec());
        }
    }
    let rb_packets: usize = jobs.iter().filter(|j| j.rb).map(|j| (j.len as usize).div_ceil(pmtu_bytes(j.pmtu))).sum();
    assert!(rb_packets > 5 && jobs.iter().any(|j| j.again && !j.rb));
    // requests, in work-request order; PSNs continue per QP
    let mut got_req = parsed.iter().filter(|f| !resp_ops.contains(&f.hdr.bth.opcode) && f.hdr.bth.opcode != op::ACK);
    let mut sent_want = vec![];
    // each WRITE payload's copy in the retransmission buffer: slot (QPN * 16 + PSN mod 16) * 4 KiB,
    // the last packet to use a slot holding it
    for w in &wrs {
        if w.qpn == 100 {
            sent_want.push(SentWrFields { wr_id: w.wr_id, op: w.op, qpn: 100, first_psn: idle_qp.psn, last_psn: idle_qp.psn, laddr: w.laddr, raddr: w.raddr, rkey: w.rkey, len: w.len, signaled: true, pmtu: idle_qp.cfg.pmtu, flush: true });
            continue;
        }
        let q = qps.iter_mut().find(|q| q.qpn == w.qpn).unwrap();
        let pmtu = pmtu_bytes(q.cfg.pmtu);
        let first = q.psn;
        if w.op == wr_op::READ {
            let f = got_req.next().expect("a READ REQUEST");
            assert_eq!((f.hdr.bth.opcode, f.hdr.bth.psn, f.hdr.bth.ackreq), (op::READ_REQUEST, q.psn, true));
            assert_eq!(f.hdr.reth.unwrap(), Reth { va: w.raddr, rkey: w.rkey, dma_len: w.len });
            q.psn = (q.psn + (w.len as usize).div_ceil(pmtu).max(1) as u32) & 0xff_ffff;
        } else {
            let n = (w.len as usize).div_ceil(pmtu).max(1);
            let mut data: Vec<u8> = vec![];
            let send = w.op == wr_op::SEND;
            for k in 0..n {
                let f = got_req.next().expect("a WRITE or SEND packet");
                let want_op = match (k, n, send) {
                    (_, 1, false) => op::WRITE_ONLY,
                    (0, _, false) => op::WRITE_FIRST,
                    (k, n, false) if k == n - 1 => op::WRITE_LAST,
                    (_, _, false) => op::WRITE_MIDDLE,
                    (_, 1, true) => op::SEND_ONLY,
                    (0, _, true) => op::SEND_FIRST,
                    (k, n, true) if k == n - 1 => op::SEND_LAST,
                    (_, _, true) => op::SEND_MIDDLE,
                };
                // AckReq on the last packet and at least every half window (8 PSNs of 16)
                assert_eq!((f.hdr.bth.opcode, f.hdr.bth.psn, f.hdr.bth.ackreq), (want_op, q.psn, k == n - 1 || q.psn & 7 == 7), "WR {}", w.wr_id);
                if k == 0 && !send {
                    assert_eq!(f.hdr.reth.unwrap(), Reth { va: w.raddr, rkey: w.rkey, dma_len: w.len });
                } else {
                    assert!(f.hdr.reth.is_none(), "WR {}: RETH only on a WRITE's first packet", w.wr_id);
                }
                data.extend(&f.payload);
                if !f.payload.is_empty() {
                    slots.insert(((q.qpn as u64 & 511) << 16) | ((q.psn as u64 & 15) << 12), f.payload.clone());
                }
                q.psn = (q.psn + 1) & 0xff_ffff;
            }
            assert_eq!(data, host_range(w.laddr, w.len as usize), "WR {}", w.wr_id);
        }
        let f0 = parsed.iter().find(|f| f.hdr.bth.psn == first && f.hdr.bth.dqpn == q.cfg.remote_qpn);
        check_addressing(f0.unwrap(), q, "request");
        sent_want.push(SentWrFields { wr_id: w.wr_id, op: w.op, qpn: w.qpn, first_psn: first, last_psn: (q.psn + 0xff_ffff) & 0xff_ffff, laddr: w.laddr, raddr: w.raddr, rkey: w.rkey, len: w.len, signaled: w.signaled, pmtu: q.cfg.pmtu, flush: false });
    }
    assert!(got_req.next().is_none());
    assert_eq!(out.sent, sent_want);
    assert!(out.rb.errors.is_empty(), "{:?}", out.rb.errors);
    assert!(slots.len() > 50);
    for (addr, p) in &slots {
        assert_eq!(&out.rb.read(*addr, p.len()), p, "retransmission-buffer slot {addr:#x}");
    }
    let k = |s: &mut VerilatorSim, n: &str| { let p = s.port(n); s.get_u64(p) };
    assert_eq!(k(&mut sim, "cnt$rb_reads") as usize, rb_packets);
    assert!(k(&mut sim, "cnt$rb_writes") as usize >= slots.len());
    let frames = { let p = sim.port("cnt$frames"); sim.get_u64(p) };
    assert_eq!(frames as usize, out.frames.len());
}
