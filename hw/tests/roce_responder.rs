//! Responder on Verilator: WRITEs of random sizes over many QPs land byte for byte in a
//! host-memory model, READ requests become READ jobs, and every bad request is dropped or
//! NAKed as IBA says and counted by cause, while other QPs carry on. Random gaps and
//! backpressure on every port; lock step against rust-hdl; 4096 QPs build and run.
mod common;
use nicgen_hw::roce::hdr::RxHdrFields;
use nicgen_hw::roce::qp::*;
use nicgen_hw::roce::rx::responder::*;
use nicgen_hw::roce::{cq_status, wr_op, CqEntryFields, DmaCmdFields, RecvWrFields, RespItemFields};
use nicgen_model::opcode as op;
use nicgen_sim::axis::*;
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::*;
use std::collections::HashMap;

const NUM_QPS: u64 = 500;

#[derive(Clone, Debug)]
struct QpSetup {
    qpn: u32,
    cfg: QpCfgFields,
    rq: QpRqFields,
}

fn qp(rng: &mut Rng, qpn: u32) -> QpSetup {
    let pmtu = rng.below(5) as u8;
    QpSetup {
        qpn,
        cfg: QpCfgFields {
            pmtu,
            remote_qpn: rng.below(1 << 24) as u32,
            rkey: rng.next_u64() as u32,
            mr_base: 0x1_0000_0000 * (qpn as u64 + 1),
            mr_len: 1 << 32,
            access: access::REMOTE_WRITE | access::REMOTE_READ,
            pkey: 0xffff,
            ..Default::default()
        },
        rq: QpRqFields { state: state::RTS, rq_expected_psn: rng.below(1 << 24) as u32, rq_msn: rng.below(1000) as u32, ..Default::default() },
    }
}

/// Drive one control-plane access and wait for `ctl_done`.
fn ctl<S: CycleSim>(sim: &mut S, write: bool, qpn: u32, cfg: &QpCfgFields, rq: &QpRqFields) -> (QpCfgFields, QpRqFields) {
    let p = |s: &S, n: &str| s.port(n);
    let (wr, q, c, r) = (p(sim, "ctl_write"), p(sim, "ctl_qpn"), p(sim, "ctl_cfg"), p(sim, "ctl_rq"));
    sim.set_bit(wr, write);
    sim.set_u64(q, qpn as u64);
    sim.set(c, &cfg.to_words());
    sim.set(r, &rq.to_words());
    common::ctl_handshake(sim, 100, |s| {
        let rc = { let x = p(s, "rd_cfg"); QpCfgFields::from_words(&s.get_words(x)) };
        let rr = { let x = p(s, "rd_rq"); QpRqFields::from_words(&s.get_words(x)) };
        (rc, rr)
    })
}

fn setup<S: CycleSim>(sim: &mut S, q: &QpSetup) {
    ctl(sim, true, q.qpn, &q.cfg, &q.rq);
}

fn read_qp<S: CycleSim>(sim: &mut S, qpn: u32) -> (QpCfgFields, QpRqFields) {
    ctl(sim, false, qpn, &Default::default(), &Default::default())
}

fn hdr(opc: u8, qpn: u32, psn: u32, plen: usize) -> RxHdrFields {
    RxHdrFields { opcode: opc, dqpn: qpn, psn: psn & 0xff_ffff, plen: plen as u16, known: true, pkey: 0xffff, ..Default::default() }
}

/// The packets of one WRITE message, as the RX parser presents them.
fn write_msg(q: &QpSetup, psn: u32, va: u64, data: &[u8]) -> Vec<(RxHdrFields, Vec<u8>)> {
    let pmtu = pmtu_bytes(q.cfg.pmtu);
    let chunks: Vec<&[u8]> = if data.is_empty() { vec![&[][..]] } else { data.chunks(pmtu).collect() };
    let n = chunks.len();
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let opc = match (i, n) {
                (_, 1) => op::WRITE_ONLY,
                (0, _) => op::WRITE_FIRST,
                (i, n) if i == n - 1 => op::WRITE_LAST,
                _ => op::WRITE_MIDDLE,
            };
            let mut h = hdr(opc, q.qpn, psn.wrapping_add(i as u32), c.len());
            if i == 0 {
                (h.va, h.rkey, h.dma_len) = (va, q.cfg.rkey, data.len() as u32);
            }
            h.ackreq = i == n - 1;
            (h, c.to_vec())
        })
        .collect()
}

#[derive(Default, Debug)]
struct Out {
    cmds: Vec<DmaCmdFields>,
    /// Cycle of each command transfer.
    cmd_cycles: Vec<u64>,
    data: Vec<Vec<u8>>,
    acks: Vec<RespItemFields>,
    jobs: Vec<RespItemFields>,
    resps: Vec<RxHdrFields>,
    resp_data: Vec<Vec<u8>>,
    /// Receive completions.
    rcq: Vec<CqEntryFields>,
    /// Longest run of cycles with a payload beat offered and not taken.
    max_stall: u64,
}

fn run<S: CycleSim>(sim: &mut S, items: &[(RxHdrFields, Vec<u8>)], valid: u32, ready: u32, seed: u64) -> Out {
    run_v(sim, items, &[], valid, ready, seed)
}

/// [`run`] with the verdicts of the headers with `spec` set (bit 0 bad) on `vd`.
fn run_v<S: CycleSim>(sim: &mut S, items: &[(RxHdrFields, Vec<u8>)], vds: &[u32], valid: u32, ready: u32, seed: u64) -> Out {
    run_all(sim, items, vds, &[], valid, ready, seed)
}

/// [`run_v`] with RECVs posted on `recv` (beside the headers, in no set order to them).
fn run_all<S: CycleSim>(sim: &mut S, items: &[(RxHdrFields, Vec<u8>)], vds: &[u32], posts: &[RecvWrFields], valid: u32, ready: u32, seed: u64) -> Out {
    let mut pd = ChanDriver::new(sim, "recv", valid, seed + 13);
    for p in posts {
        pd.push(p.to_words());
    }
    let mut cqm = ChanMonitor::new(sim, "rcq", ready, seed + 14);
    let mut vd = ChanDriver::new(sim, "vd", valid, seed + 11);
    for v in vds {
        vd.push(vec![*v]);
    }
    // the header channel with the parser's look-ahead: in a cycle with no header at the input,
    // `hdr_pre_*` names the QP of the one that arrives next cycle
    let mut hd = ChanDriver::new(sim, "hdr", valid, seed).lookahead();
    let (pq, pv) = (sim.port("hdr_pre_qpn"), sim.port("hdr_pre_valid"));
    let d = AxisDriver::new(sim, "s_axis", valid, seed + 1);
    let m_dma = AxisMonitor::new(sim, "m_axis_dma_wr", ready, seed + 2);
    let m_resp = AxisMonitor::new(sim, "m_axis_resp", ready, seed + 3);
    let mut cm = ChanMonitor::new(sim, "dma_wr_cmd", ready, seed + 4);
    let mut am = ChanMonitor::new(sim, "rsp", ready, seed + 5);
    let mut rm = ChanMonitor::new(sim, "resp", ready, seed + 7);
    let mut b = StreamBench::new(vec![d], vec![m_dma, m_resp]);
    for (h, p) in items {
        hd.push(h.to_words());
        if !p.is_empty() {
            b.drivers[0].push(AxisFrame::new(p.clone()));
        }
    }
    let (tv, tr) = (sim.port("s_axis$tvalid"), sim.port("s_axis$tready"));
    let (mut stall, mut max_stall) = (0u64, 0u64);
    let mut quiet = 0;
    while quiet < 50 {
        hd.drive(sim);
        let hint = hd.hint().map(|w| RxHdrFields::from_words(w).dqpn as u64);
        sim.set_bit(pv, hint.is_some());
        sim.set_u64(pq, hint.unwrap_or(0));
        vd.drive(sim);
        pd.drive(sim);
        cqm.drive(sim);
        cm.drive(sim);
        am.drive(sim);
        rm.drive(sim);
        let moved = b.step_with(sim, |s| {
            let mut m = hd.sample(s) | vd.sample(s) | pd.sample(s);
            m |= cm.sample(s) | am.sample(s) | rm.sample(s) | cqm.sample(s);
            for c in [&cm, &am, &rm, &cqm] {
                m |= s.get_bit(c.ports.valid);
            }
            if s.get_bit(tv) && !s.get_bit(tr) {
                stall += 1;
                max_stall = max_stall.max(stall);
            } else {
                stall = 0;
            }
            m
        });
        quiet = if moved || !b.drivers[0].idle() || !hd.idle() || !vd.idle() || !pd.idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 5_000_000, "responder stalled");
    }
    Out {
        cmds: cm.seen.iter().map(|(_, w)| DmaCmdFields::from_words(w)).collect(),
        cmd_cycles: cm.seen.iter().map(|(c, _)| *c).collect(),
        data: b.monitors[0].frames.iter().map(|f| f.data.clone()).collect(),
        acks: am.seen.iter().map(|(_, w)| RespItemFields::from_words(w)).filter(|r| !r.read).collect(),
        jobs: am.seen.iter().map(|(_, w)| RespItemFields::from_words(w)).filter(|r| r.read).collect(),
        resps: rm.seen.iter().map(|(_, w)| RxHdrFields::from_words(w)).collect(),
        resp_data: b.monitors[1].frames.iter().map(|f| f.data.clone()).collect(),
        rcq: cqm.seen.iter().map(|(_, w)| CqEntryFields::from_words(w)).collect(),
        max_stall,
    }
}

fn counter<S: CycleSim>(sim: &mut S, name: &str) -> u64 {
    let p = sim.port(&format!("cnt${name}"));
    sim.get_u64(p)
}

fn start<S: CycleSim>(sim: &mut S, ack_every: u64) {
    sim.reset(2);
    let (n, a) = (sim.port("num_qps"), sim.port("ack_every"));
    sim.set_u64(n, NUM_QPS);
    sim.set_u64(a, ack_every);
}

/// Apply DMA writes to a sparse host memory.
fn apply(out: &Out) -> HashMap<u64, u8> {
    assert_eq!(out.cmds.len(), out.data.len(), "one data frame per DMA write command");
    let mut mem = HashMap::new();
    for (c, d) in out.cmds.iter().zip(&out.data) {
        assert_eq!(c.len as usize, d.len(), "{c:x?}");
        for (i, b) in d.iter().enumerate() {
            mem.insert(c.addr + i as u64, *b);
        }
    }
    mem
}

/// Random WRITE messages over `nq` QPs, packets interleaved across QPs.
fn write_traffic(rng: &mut Rng, sim_qps: &[QpSetup], msgs: usize, max: usize) -> (Vec<(RxHdrFields, Vec<u8>)>, Vec<(u64, Vec<u8>)>, Vec<u32>) {
    let mut psn: Vec<u32> = sim_qps.iter().map(|q| q.rq.rq_expected_psn).collect();
    let mut next_va: Vec<u64> = sim_qps.iter().map(|q| q.cfg.mr_base).collect();
    let mut per_qp: Vec<Vec<(RxHdrFields, Vec<u8>)>> = vec![vec![]; sim_qps.len()];
    let mut expect = vec![];
    let mut nmsg = vec![0u32; sim_qps.len()];
    for k in 0..msgs {
        let i = rng.below(sim_qps.len() as u64) as usize;
        let len = match k % 4 {
            0 => rng.range(1, 64) as usize,
            1 => rng.range(1, 5000) as usize,
            _ => rng.range(1, max as u64) as usize,
        };
        let data = rng.bytes(len);
        let pk = write_msg(&sim_qps[i], psn[i], next_va[i], &data);
        psn[i] = psn[i].wrapping_add(pk.len() as u32) & 0xff_ffff;
        expect.push((next_va[i], data));
        next_va[i] += len as u64 + rng.below(64);
        nmsg[i] += 1;
        per_qp[i].extend(pk);
    }
    // interleave, keeping each QP's order
    let mut items = vec![];
    let mut idx = vec![0usize; sim_qps.len()];
    loop {
        let live: Vec<usize> = (0..sim_qps.len()).filter(|&i| idx[i] < per_qp[i].len()).collect();
        if live.is_empty() {
            break;
        }
        let i = live[rng.below(live.len() as u64) as usize];
        items.push(per_qp[i][idx[i]].clone());
        idx[i] += 1;
    }
    (items, expect, nmsg)
}

fn writes_over<S: CycleSim>(sim: &mut S, nq: usize, msgs: usize, max: usize, seed: u64, valid: u32, ready: u32) {
    let mut rng = Rng::new(seed);
    start(sim, 0);
    let qps: Vec<QpSetup> = (0..nq).map(|i| qp(&mut rng, (i * 7 + 3) as u32 % NUM_QPS as u32)).collect();
    for q in &qps {
        setup(sim, q);
    }
    let (items, expect, nmsg) = write_traffic(&mut rng, &qps, msgs, max);
    let out = run(sim, &items, valid, ready, seed);
    let mem = apply(&out);
    for (va, data) in &expect {
        for (i, b) in data.iter().enumerate() {
            assert_eq!(mem.get(&(va + i as u64)), Some(b), "byte {i} of the message at {va:#x}");
        }
    }
    // one ACK per message (AckReq on the last packet), MSN counting messages
    assert_eq!(out.acks.len(), msgs);
    for a in &out.acks {
        assert_eq!(a.syndrome, syndrome::ACK);
    }
    for (i, q) in qps.iter().enumerate() {
        let mine: Vec<&RespItemFields> = out.acks.iter().filter(|a| a.qpn == q.qpn).collect();
        assert_eq!(mine.len() as u32, nmsg[i]);
        for (k, a) in mine.iter().enumerate() {
            assert_eq!(a.msn, (q.rq.rq_msn + k as u32 + 1) & 0xff_ffff, "QP {} ACK {k}", q.qpn);
        }
        let (_, rq) = read_qp(sim, q.qpn);
        assert_eq!(rq.rq_msn, (q.rq.rq_msn + nmsg[i]) & 0xff_ffff);
        assert_eq!((rq.state, rq.rq_in_write), (state::RTS, false));
    }
    assert_eq!(counter(sim, "writes") as usize, items.len());
    assert_eq!(counter(sim, "headers") as usize, items.len());
    for c in ["unknown_qp", "qp_error", "malformed", "duplicate", "psn_out_of_window", "bad_opcode_seq", "length_error", "rkey_violation", "naks"] {
        assert_eq!(counter(sim, c), 0, "{c}");
    }
    assert!(out.max_stall < 50, "payload input held off {} cycles", out.max_stall);
}

#[test]
fn writes_land_in_host_memory_1_8_64_qps() {
    let mut sim = verilate(&mut RoceResponder500::default());
    writes_over(&mut sim, 1, 60, 70_000, 1, 100, 100);
    writes_over(&mut sim, 8, 200, 40_000, 2, 70, 50);
    writes_over(&mut sim, 64, 400, 20_000, 3, 90, 80);
}

#[test]
fn lock_step() {
    let mut sim = Diff::new(verilate(&mut RoceResponder500::default()), RustHdlSim::new(RoceResponder500::default()));
    writes_over(&mut sim, 3, 6, 600, 9, 80, 70);
}

fn read_req(q: &QpSetup, psn: u32, va: u64, len: u32) -> (RxHdrFields, Vec<u8>) {
    let mut h = hdr(op::READ_REQUEST, q.qpn, psn, 0);
    (h.va, h.rkey, h.dma_len) = (va, q.cfg.rkey, len);
    (h, vec![])
}

#[test]
fn reads_become_jobs_and_reserve_psns() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(21);
    start(&mut sim, 0);
    let qps: Vec<QpSetup> = (0..4).map(|i| qp(&mut rng, 10 + i)).collect();
    for q in &qps {
        setup(&mut sim, q);
    }
    let mut items = vec![];
    let mut want_jobs = vec![];
    let mut psn: Vec<u32> = qps.iter().map(|q| q.rq.rq_expected_psn).collect();
    let mut msgs = vec![0u32; qps.len()];
    for k in 0..120 {
        let i = rng.below(4) as usize;
        let q = &qps[i];
        let pmtu = pmtu_bytes(q.cfg.pmtu) as u32;
        let len = match k % 5 {
            0 => 0,
            1 => pmtu,
            2 => pmtu + 1,
            3 => rng.range(1, 64) as u32,
            _ => rng.range(1, 1 << 20) as u32,
        };
        let va = q.cfg.mr_base + rng.below(1 << 24);
        items.push(read_req(q, psn[i], va, len));
        want_jobs.push(RespItemFields { read: true, syndrome: syndrome::ACK, qpn: q.qpn, va, len, psn: psn[i], pmtu: q.cfg.pmtu, msn: (q.rq.rq_msn + msgs[i] + 1) & 0xff_ffff, again: false, rb: false });
        // the response takes max(1, ceil(len / PMTU)) PSNs; the next request must follow them
        psn[i] = (psn[i] + len.div_ceil(pmtu).max(1)) & 0xff_ffff;
        msgs[i] += 1;
        if k % 7 == 0 {
            // a WRITE in between, at the PSN after the reservation
            let n = rng.range(1, 3000) as usize;
            let data = rng.bytes(n);
            let pk = write_msg(q, psn[i], q.cfg.mr_base, &data);
            psn[i] = (psn[i] + pk.len() as u32) & 0xff_ffff;
            msgs[i] += 1;
            items.extend(pk);
        }
    }
    let out = run(&mut sim, &items, 80, 60, 5);
    assert_eq!(out.jobs, want_jobs);
    assert_eq!(counter(&mut sim, "reads"), 120);
    for c in ["duplicate", "psn_out_of_window", "bad_opcode_seq", "length_error", "rkey_violation", "naks"] {
        assert_eq!(counter(&mut sim, c), 0, "{c}");
    }
    for (i, q) in qps.iter().enumerate() {
        let (_, rq) = read_qp(&mut sim, q.qpn);
        assert_eq!((rq.rq_expected_psn, rq.rq_msn), (psn[i], (q.rq.rq_msn + msgs[i]) & 0xff_ffff), "QP {}", q.qpn);
    }
}

#[test]
fn acks_coalesce_every_n_packets() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(4);
    start(&mut sim, 16);
    let mut q = qp(&mut rng, 1);
    q.cfg.pmtu = 0;
    setup(&mut sim, &q);
    // 100 single-packet WRITEs without AckReq, then one message of 40 packets with AckReq at the end
    let mut items = vec![];
    let mut psn = q.rq.rq_expected_psn;
    for _ in 0..100 {
        let mut pk = write_msg(&q, psn, q.cfg.mr_base, &rng.bytes(64));
        pk[0].0.ackreq = false;
        psn = (psn + 1) & 0xff_ffff;
        items.extend(pk);
    }
    items.extend(write_msg(&q, psn, q.cfg.mr_base, &rng.bytes(40 * 256)));
    let out = run(&mut sim, &items, 100, 100, 1);
    let psns: Vec<u32> = out.acks.iter().map(|a| (a.psn.wrapping_sub(q.rq.rq_expected_psn)) & 0xff_ffff).collect();
    // every 16th packet (PSN offsets 15, 31, …) and the message end (offset 139)
    let want: Vec<u32> = (0..140).filter(|i| i % 16 == 15).chain([139]).collect();
    assert_eq!(psns, want);
    assert_eq!(out.acks.last().unwrap().msn, (q.rq.rq_msn + 101) & 0xff_ffff);
}

/// 64-byte WRITE ONLY packets, no gaps, no backpressure: two cycles a header when each is for
/// another QP than the one before, three on one QP (the QP state's write-back comes first).
#[test]
fn one_header_every_two_cycles_across_qps_three_on_one() {
    for (nq, gap) in [(32usize, 2u64), (1, 3)] {
        let mut sim = verilate(&mut RoceResponder500::default());
        let mut rng = Rng::new(8);
        start(&mut sim, 0);
        let qps: Vec<QpSetup> = (0..nq as u32).map(|i| qp(&mut rng, i)).collect();
        for q in &qps {
            setup(&mut sim, q);
        }
        let mut psn: Vec<u32> = qps.iter().map(|q| q.rq.rq_expected_psn).collect();
        let mut items = vec![];
        for k in 0..600 {
            let i = k % nq;
            items.extend(write_msg(&qps[i], psn[i], qps[i].cfg.mr_base, &rng.bytes(64)));
            psn[i] = (psn[i] + 1) & 0xff_ffff;
        }
        let out = run(&mut sim, &items, 100, 100, 2);
        assert_eq!(out.cmds.len(), 600);
        let gaps: Vec<u64> = out.cmd_cycles.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps[10..].iter().all(|&g| g == gap), "{nq} QPs: command spacing {:?}", &gaps[..40]);
        assert_eq!(out.data.len(), 600);
        assert_eq!(counter(&mut sim, "writes"), 600);
    }
}

struct Case {
    name: &'static str,
    state: u8,
    access: u8,
    /// The bad QP's packets, given its setup and expected PSN.
    items: fn(&QpSetup, u32) -> Vec<(RxHdrFields, Vec<u8>)>,
    /// NAKs (syndrome, PSN offset from the expected PSN) the bad QP gets.
    naks: Vec<(u8, u32)>,
    counter: &'static str,
    delta: u64,
    end_state: u8,
}

fn only(q: &QpSetup, psn: u32, va: u64, rkey: u32, n: usize) -> (RxHdrFields, Vec<u8>) {
    let mut h = hdr(op::WRITE_ONLY, q.qpn, psn, n);
    (h.va, h.rkey, h.dma_len) = (va, rkey, n as u32);
    h.ackreq = true;
    (h, vec![0xa5; n])
}

fn cases() -> Vec<Case> {
    use state::*;
    use syndrome::*;
    let rw = access::REMOTE_WRITE | access::REMOTE_READ;
    let c = |name, state, items, naks, counter, delta, end_state| Case { name, state, access: rw, items, naks, counter, delta, end_state };
    let mut v = vec![
        c("unknown QPN", RTS, |q, p| {
            let mut a = only(q, p, q.cfg.mr_base, q.cfg.rkey, 100);
            a.0.dqpn = 600;
            let mut b = a.clone();
            b.0.dqpn = 0xff_ffff;
            vec![a, b]
        }, vec![], "unknown_qp", 2, RTS),
        c("P_Key of another partition", RTS, |q, p| {
            let mut a = only(q, p, q.cfg.mr_base, q.cfg.rkey, 100);
            a.0.pkey = 0x8001;
            // a limited member's key against the QP's full-member key matches: not dropped, so
            // it goes last (it consumes the PSN)
            let mut b = only(q, p, q.cfg.mr_base, q.cfg.rkey, 100);
            b.0.pkey = 0x7fff;
            vec![a, b]
        }, vec![], "malformed", 1, RTS),
        c("transport version 1", RTS, |q, p| {
            let mut a = only(q, p, q.cfg.mr_base, q.cfg.rkey, 100);
            a.0.tver = 1;
            vec![a]
        }, vec![], "malformed", 1, RTS),
        c("QP in RESET", RESET, |q, p| vec![only(q, p, q.cfg.mr_base, q.cfg.rkey, 100)], vec![], "qp_not_ready", 1, RESET),
        c("QP in INIT", INIT, |q, p| vec![only(q, p, q.cfg.mr_base, q.cfg.rkey, 100)], vec![], "qp_not_ready", 1, INIT),
        c("QP in ERROR", ERROR, |q, p| vec![only(q, p, q.cfg.mr_base, q.cfg.rkey, 100)], vec![], "qp_error", 1, ERROR),
        c("wrong rkey", RTS, |q, p| vec![only(q, p, q.cfg.mr_base, q.cfg.rkey ^ 1, 100)], vec![(NAK_REMOTE_ACCESS, 0)], "rkey_violation", 1, ERROR),
        c("below the region", RTS, |q, p| vec![only(q, p, q.cfg.mr_base - 1, q.cfg.rkey, 100)], vec![(NAK_REMOTE_ACCESS, 0)], "rkey_violation", 1, ERROR),
        c("past the region", RTS, |q, p| vec![only(q, p, q.cfg.mr_base + q.cfg.mr_len - 99, q.cfg.rkey, 100)], vec![(NAK_REMOTE_ACCESS, 0)], "rkey_violation", 1, ERROR),
        c("address wraps", RTS, |q, p| {
            let mut a = only(q, p, u64::MAX - 10, q.cfg.rkey, 100);
            a.0.dma_len = 100;
            vec![a]
        }, vec![(NAK_REMOTE_ACCESS, 0)], "rkey_violation", 1, ERROR),
        c("MIDDLE without FIRST", RTS, |q, p| vec![(hdr(op::WRITE_MIDDLE, q.qpn, p, pmtu_bytes(q.cfg.pmtu)), vec![1; pmtu_bytes(q.cfg.pmtu)])], vec![(NAK_INVALID_REQ, 0)], "bad_opcode_seq", 1, ERROR),
        c("FIRST inside a WRITE", RTS, |q, p| {
            let n = pmtu_bytes(q.cfg.pmtu);
            let mut v = write_msg(q, p, q.cfg.mr_base, &vec![3; 3 * n]);
            v.truncate(1);
            let mut again = v[0].clone();
            again.0.psn = (p + 1) & 0xff_ffff;
            v.push(again);
            v
        }, vec![(NAK_INVALID_REQ, 1)], "bad_opcode_seq", 1, ERROR),
        c("SEND with no RECV posted", RTS, |q, p| vec![(hdr(op::SEND_ONLY, q.qpn, p, 8), vec![1; 8])], vec![(RNR_NAK, 0)], "rnr_naks", 1, RTS),
        c("SEND with immediate (not served)", RTS, |q, p| vec![(hdr(op::SEND_ONLY_IMM, q.qpn, p, 8), vec![1; 8])], vec![(NAK_INVALID_REQ, 0)], "bad_opcode_seq", 1, ERROR),
        c("SEND MIDDLE inside a WRITE", RTS, |q, p| {
            let n = pmtu_bytes(q.cfg.pmtu);
            let mut v = write_msg(q, p, q.cfg.mr_base, &vec![3; 3 * n]);
            v.truncate(1);
            v.push((hdr(op::SEND_MIDDLE, q.qpn, p + 1, n), vec![1; n]));
            v
        }, vec![(NAK_INVALID_REQ, 1)], "bad_opcode_seq", 1, ERROR),
        c("short FIRST", RTS, |q, p| {
            let n = pmtu_bytes(q.cfg.pmtu);
            let mut v = write_msg(q, p, q.cfg.mr_base, &vec![3; 3 * n]);
            v.truncate(1);
            v[0].1.pop();
            v[0].0.plen -= 1;
            v
        }, vec![(NAK_INVALID_REQ, 0)], "length_error", 1, ERROR),
        c("ONLY longer than PMTU", RTS, |q, p| vec![only(q, p, q.cfg.mr_base, q.cfg.rkey, pmtu_bytes(q.cfg.pmtu) + 4)], vec![(NAK_INVALID_REQ, 0)], "length_error", 1, ERROR),
        c("LAST short of the RETH length", RTS, |q, p| {
            let n = pmtu_bytes(q.cfg.pmtu);
            let mut v = write_msg(q, p, q.cfg.mr_base, &vec![3; 2 * n]);
            v[1].1.truncate(n - 4);
            v[1].0.plen -= 4;
            v
        }, vec![(NAK_INVALID_REQ, 1)], "length_error", 1, ERROR),
        c("READ carrying data", RTS, |q, p| {
            let mut r = read_req(q, p, q.cfg.mr_base, 64);
            r.0.plen = 16;
            r.1 = vec![0; 16];
            vec![r]
        }, vec![(NAK_INVALID_REQ, 0)], "length_error", 1, ERROR),
        c("unknown opcode", RTS, |q, p| {
            let mut a = only(q, p, q.cfg.mr_base, q.cfg.rkey, 40);
            (a.0.opcode, a.0.known) = (0x64, false);
            vec![a]
        }, vec![], "malformed", 1, RTS),
        c("pad does not fit", RTS, |q, p| {
            let mut a = only(q, p, q.cfg.mr_base, q.cfg.rkey, 0);
            a.0.len_err = true;
            vec![a]
        }, vec![], "malformed", 1, RTS),
        c("PSN ahead, twice, then in order", RTS, |q, p| {
            vec![only(q, p + 2, q.cfg.mr_base, q.cfg.rkey, 10), only(q, p + 3, q.cfg.mr_base, q.cfg.rkey, 10), only(q, p, q.cfg.mr_base, q.cfg.rkey, 10)]
        }, vec![(NAK_PSN_SEQ, 0)], "psn_out_of_window", 2, RTS),
        c("duplicate PSN", RTS, |q, p| vec![only(q, p.wrapping_sub(1) & 0xff_ffff, q.cfg.mr_base, q.cfg.rkey, 10)], vec![], "duplicate", 1, RTS),
        c("zero-length WRITE needs no rkey", RTS, |q, p| vec![only(q, p, 0, q.cfg.rkey ^ 0xffff, 0)], vec![], "writes", 1, RTS),
    ];
    v.push(Case { name: "READ without read access", state: RTS, access: access::REMOTE_WRITE, items: |q, p| vec![read_req(q, p, q.cfg.mr_base, 64)], naks: vec![(NAK_REMOTE_ACCESS, 0)], counter: "rkey_violation", delta: 1, end_state: ERROR });
    v.push(Case { name: "WRITE without write access", state: RTS, access: access::REMOTE_READ, items: |q, p| vec![only(q, p, q.cfg.mr_base, q.cfg.rkey, 64)], naks: vec![(NAK_REMOTE_ACCESS, 0)], counter: "rkey_violation", delta: 1, end_state: ERROR });
    v
}

#[test]
fn bad_requests_are_dropped_or_naked_and_counted() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(33);
    start(&mut sim, 0);
    let good = qp(&mut rng, 499);
    setup(&mut sim, &good);
    let mut good_psn = good.rq.rq_expected_psn;
    let mut good_va = good.cfg.mr_base;
    for (k, case) in cases().iter().enumerate() {
        let mut q = qp(&mut rng, 100 + k as u32);
        q.rq.state = case.state;
        q.cfg.access = case.access;
        setup(&mut sim, &q);
        let p = q.rq.rq_expected_psn;
        let bad = (case.items)(&q, p);
        // a healthy QP's WRITEs before, between and after
        let mut items = vec![];
        let mut want = vec![];
        for b in bad.iter().cloned().map(Some).chain([None]) {
            let n = rng.range(1, 3000) as usize;
            let data = rng.bytes(n);
            items.extend(write_msg(&good, good_psn, good_va, &data));
            good_psn = (good_psn + data.len().div_ceil(pmtu_bytes(good.cfg.pmtu)) as u32) & 0xff_ffff;
            want.push((good_va, data.clone()));
            good_va += data.len() as u64;
            items.extend(b);
        }
        let before: HashMap<&str, u64> = ["unknown_qp", "qp_not_ready", "qp_error", "malformed", "duplicate", "psn_out_of_window", "bad_opcode_seq", "length_error", "rkey_violation", "writes", "rnr_naks", "sends"]
            .iter()
            .map(|c| (*c, counter(&mut sim, c)))
            .collect();
        let out = run(&mut sim, &items, 70, 60, k as u64);
        let ctx = case.name;
        let mem = apply(&out);
        for (va, data) in &want {
            for (i, b) in data.iter().enumerate() {
                assert_eq!(mem.get(&(va + i as u64)), Some(b), "{ctx}: healthy QP byte {i} at {va:#x}");
            }
        }
        let naks: Vec<(u8, u32)> = out.acks.iter().filter(|a| a.qpn == q.qpn && a.syndrome != syndrome::ACK).map(|a| (a.syndrome, (a.psn.wrapping_sub(p)) & 0xff_ffff)).collect();
        assert_eq!(naks, case.naks, "{ctx}");
        for (c, v) in &before {
            let now = counter(&mut sim, c);
            let extra = if *c == case.counter { case.delta } else { 0 };
            let good_writes = if *c == "writes" { items.len() as u64 - bad.len() as u64 } else { 0 };
            let ok_writes = if *c == "writes" && case.counter != "writes" {
                // accepted packets of the bad QP itself (the in-order one after a gap)
                (case.name.starts_with("PSN ahead") as u64) + (case.name.starts_with("FIRST inside") as u64) + (case.name.starts_with("LAST short") as u64) + (case.name.starts_with("P_Key") as u64) + (case.name.starts_with("SEND MIDDLE") as u64)
            } else {
                0
            };
            assert_eq!(now - v, extra + good_writes + ok_writes, "{ctx}: counter {c}");
        }
        let (_, rq) = read_qp(&mut sim, q.qpn);
        assert_eq!(rq.state, case.end_state, "{ctx}: QP state");
        assert!(out.max_stall < 50, "{ctx}: payload input held off {} cycles", out.max_stall);
        let (_, grq) = read_qp(&mut sim, good.qpn);
        assert_eq!((grq.state, grq.rq_expected_psn), (state::RTS, good_psn), "{ctx}: healthy QP");
    }
}

#[test]
fn responses_go_to_the_requester_side() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(5);
    start(&mut sim, 0);
    let q = qp(&mut rng, 7);
    setup(&mut sim, &q);
    let mut ack = hdr(op::ACK, q.qpn, 5, 0);
    (ack.syndrome, ack.msn) = (0x1f, 9);
    let resp = (hdr(op::READ_RESP_ONLY, q.qpn, 6, 300), rng.bytes(300));
    // responses of another partition or transport version are dropped as malformed, with
    // their payload
    let mut foreign_key = ack;
    foreign_key.pkey = 0x8001;
    let mut foreign_tver = (hdr(op::READ_RESP_ONLY, q.qpn, 6, 200), rng.bytes(200));
    foreign_tver.0.tver = 1;
    let items = vec![(foreign_key, vec![]), (ack, vec![]), foreign_tver, resp.clone()];
    let out = run(&mut sim, &items, 80, 80, 1);
    assert_eq!(out.resps, vec![ack, resp.0]);
    assert_eq!(out.resp_data, vec![resp.1]);
    assert_eq!(counter(&mut sim, "to_requester"), 2);
    assert_eq!(counter(&mut sim, "malformed"), 2);
    assert!(out.cmds.is_empty() && out.acks.is_empty());
}

/// The QP tables read the QP of the header waiting at the input ahead of taking it. A
/// control-plane write of that QP while the header waits must reach its checks: here the QP is
/// moved to ERROR (and, in the second run, a control-plane read of another QP comes between), so
/// the waiting WRITE is dropped as `qp_error` and not ACKed.
#[test]
fn a_control_write_while_a_header_waits_reaches_its_checks() {
    for read_between in [false, true] {
        let mut sim = verilate(&mut RoceResponder500::default());
        let mut rng = Rng::new(6);
        start(&mut sim, 0);
        let q = qp(&mut rng, 9);
        let other = qp(&mut rng, 10);
        setup(&mut sim, &q);
        setup(&mut sim, &other);
        let (h, v, r) = (sim.port("hdr"), sim.port("hdr_valid"), sim.port("hdr_ready"));
        let rv = sim.port("rsp_valid");
        let rr = sim.port("rsp_ready");
        sim.set_bit(rr, true);
        let w = only(&q, q.rq.rq_expected_psn, q.cfg.mr_base, q.cfg.rkey, 0).0;
        sim.set(h, &w.to_words());
        sim.set_bit(v, true);
        sim.eval();
        // the header has been at the input for a cycle: its QP's state is read
        sim.tick();
        if read_between {
            read_qp(&mut sim, other.qpn);
        }
        let err = QpRqFields { state: state::ERROR, ..q.rq };
        ctl(&mut sim, true, q.qpn, &q.cfg, &err);
        let mut taken = false;
        let mut rsp = 0;
        for _ in 0..40 {
            sim.eval();
            rsp += sim.get_bit(rv) as u32;
            let fire = sim.get_bit(v) && sim.get_bit(r);
            sim.tick();
            if fire {
                taken = true;
                sim.set_bit(v, false);
            }
        }
        assert!(taken, "the header was never taken");
        assert_eq!((counter(&mut sim, "qp_error"), counter(&mut sim, "writes"), rsp), (1, 0, 0), "read between: {read_between}");
    }
}

#[test]
fn qp_tables_of_4096_build_and_run() {
    let mut sim = verilate(&mut RoceResponder4k::default());
    let mut rng = Rng::new(6);
    sim.reset(2);
    let (n, a) = (sim.port("num_qps"), sim.port("ack_every"));
    sim.set_u64(n, 4096);
    sim.set_u64(a, 0);
    let qs: Vec<QpSetup> = [0u32, 4000, 4095].iter().map(|&i| qp(&mut rng, i)).collect();
    for q in &qs {
        setup(&mut sim, q);
    }
    let mut items = vec![];
    for q in &qs {
        items.extend(write_msg(q, q.rq.rq_expected_psn, q.cfg.mr_base + 5, &[q.qpn as u8; 1000]));
    }
    let out = run(&mut sim, &items, 90, 90, 3);
    let mem = apply(&out);
    for q in &qs {
        assert_eq!(mem.get(&(q.cfg.mr_base + 5 + 999)), Some(&(q.qpn as u8)));
    }
    let (_, rq) = read_qp(&mut sim, 4000);
    assert_eq!(rq.rq_msn, qs[1].rq.rq_msn + 1);
}

#[test]
fn qp_tables_of_16k_elaborate() {
    let mut r = nicgen_hw::roce::rx::responder::RoceResponder::<14, 18>::default();
    use rust_hdl::prelude::Block;
    r.connect_all();
    let v = verilog_named(&r, "roce_responder_16k");
    assert!(v.contains(&format!("reg [{}:0] mem [0:16383]", QP_RQ_BITS - 1)), "a 16K-entry responder table");
    assert!(v.contains(&format!("reg [{}:0] mem [0:16383]", QP_CFG_BITS - 1)), "a 16K-entry configuration table");
    assert!(v.contains("(* ram_style = \"ultra\" *) reg [127:0] mem [0:262143]"), "16 RECVs per QP in Ultra RAM");
    assert!(v.contains("(* ram_style = \"ultra\" *) reg [95:0] mem [0:262143]"), "16 READ ranges per QP in Ultra RAM");
}

/// A duplicate READ is answered again only when it asks for a subset of a READ the QP accepted
/// (inside its PSNs and its address range, with the QP's rkey unless it reads nothing); others
/// are dropped and counted.
#[test]
fn duplicate_reads_are_answered_only_inside_their_reservation() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(31);
    start(&mut sim, 0);
    let q = qp(&mut rng, 7);
    setup(&mut sim, &q);
    let p = q.rq.rq_expected_psn;
    let pmtu = pmtu_bytes(q.cfg.pmtu) as u32;
    let (va, len) = (q.cfg.mr_base + 0x1000, 3 * pmtu + 5);
    let at = |k: u32| (p + k) & 0xff_ffff;
    // `again`: a duplicate, answered without copying; `rb`: from the retransmission buffer's
    // copies of the first answer
    let job = |psn, va, len, msn, again, rb| RespItemFields { read: true, syndrome: syndrome::ACK, qpn: q.qpn, va, len, psn, pmtu: q.cfg.pmtu, msn: msn & 0xff_ffff, again, rb };
    let items = vec![
        read_req(&q, p, va, len),
        // again, whole: answered from the buffer
        read_req(&q, p, va, len),
        // the rest from its third response packet: answered from the buffer
        read_req(&q, at(2), va + 2 * pmtu as u64, len - 2 * pmtu),
        // inside it, but not where its packets began: answered from host memory
        read_req(&q, p, va + 1, 100),
        // past its end, or before its start, though inside the memory region: dropped
        read_req(&q, p, va + len as u64, 64),
        read_req(&q, p, va - 64, 64),
        // its last PSN, but running past its end: dropped
        read_req(&q, at(3), va + 3 * pmtu as u64, pmtu),
        // inside it with another rkey: dropped (an entry keeps no rkey; the QP's is checked)
        rkey_xor(read_req(&q, p, va, 64), 1),
        // no bytes, with another rkey: answered (as a new READ of 0 bytes, whose rkey is not checked)
        rkey_xor(read_req(&q, p, va + 8, 0), 1),
    ];
    let out = run(&mut sim, &items, 80, 60, 9);
    let m = q.rq.rq_msn + 1;
    assert_eq!(
        out.jobs,
        vec![job(p, va, len, m, false, false), job(p, va, len, m, true, true), job(at(2), va + 2 * pmtu as u64, len - 2 * pmtu, m, true, true), job(p, va + 1, 100, m, true, false), job(p, va + 8, 0, m, true, false)]
    );
    assert_eq!(counter(&mut sim, "reads"), 1);
    assert_eq!(counter(&mut sim, "duplicate"), 8);
    assert_eq!(counter(&mut sim, "read_replays"), 4);
    // a READ of 13 packets after it: its first PSNs are now 17 behind, and their slots hold the
    // new READ's packets, so a duplicate of it is answered from host memory
    let (va2, len2) = (va + 0x10_0000, 13 * pmtu);
    let out = run(&mut sim, &[read_req(&q, at(4), va2, len2), read_req(&q, p, va, len), read_req(&q, at(1), va + pmtu as u64, len - pmtu), read_req(&q, at(4), va2, len2)], 80, 60, 11);
    assert_eq!(out.jobs, vec![job(at(4), va2, len2, m + 1, false, false), job(p, va, len, m + 1, true, false), job(at(1), va + pmtu as u64, len - pmtu, m + 1, true, true), job(at(4), va2, len2, m + 1, true, true)]);
    assert_eq!(counter(&mut sim, "read_replays"), 7);
    // a control-plane write of the QP forgets its READs: the same duplicate is now dropped
    let mut q2 = q.clone();
    q2.rq.rq_expected_psn = at(4);
    setup(&mut sim, &q2);
    let out = run(&mut sim, &[read_req(&q2, p, va, len)], 80, 60, 10);
    assert!(out.jobs.is_empty(), "{:?}", out.jobs);
    assert_eq!(counter(&mut sim, "read_replays"), 7);
}

fn rkey_xor((mut h, p): (RxHdrFields, Vec<u8>), x: u32) -> (RxHdrFields, Vec<u8>) {
    h.rkey ^= x;
    (h, p)
}

/// The same across a 4 GiB boundary: a READ entry keeps its end as the low word and a carry
/// into va's high word, so a READ from below 2^32 to above it (and duplicates that end on
/// either side) must still be told apart exactly.
#[test]
fn duplicate_reads_across_a_4gib_boundary() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(47);
    start(&mut sim, 0);
    for (qpn, base) in [(9u32, 0u64), (10, 0x7_0000_0000)] {
        let mut q = qp(&mut rng, qpn);
        q.cfg.mr_base = base;
        q.cfg.mr_len = 1 << 33;
        setup(&mut sim, &q);
        let p = q.rq.rq_expected_psn;
        let pmtu = pmtu_bytes(q.cfg.pmtu) as u32;
        // from 2 PMTUs below the boundary to PMTU + 5 bytes above it
        let (va, len) = (base + (1 << 32) - 2 * pmtu as u64, 3 * pmtu + 5);
        let at = |k: u32| (p + k) & 0xff_ffff;
        let m = q.rq.rq_msn + 1;
        let job = |psn, va, len, again, rb| RespItemFields { read: true, syndrome: syndrome::ACK, qpn: q.qpn, va, len, psn, pmtu: q.cfg.pmtu, msn: m & 0xff_ffff, again, rb };
        let before = counter(&mut sim, "duplicate");
        let items = vec![
            read_req(&q, p, va, len),
            // ends below the boundary
            read_req(&q, p, va + 1, 100),
            // from its third packet, which starts at the boundary, to its end above it
            read_req(&q, at(2), va + 2 * pmtu as u64, len - 2 * pmtu),
            // ends exactly at its end
            read_req(&q, p, va + len as u64 - 7, 7),
            // one byte past its end, above the boundary: dropped
            read_req(&q, p, va + len as u64 - 7, 8),
            // its last PSN running past its end: dropped
            read_req(&q, at(3), va + 3 * pmtu as u64, pmtu),
            // a whole 4 GiB further on (same low words): dropped
            read_req(&q, p, va + (1 << 32), 64),
        ];
        let out = run(&mut sim, &items, 80, 60, 12 + qpn as u64);
        assert_eq!(
            out.jobs,
            vec![
                job(p, va, len, false, false),
                job(p, va + 1, 100, true, false),
                job(at(2), va + 2 * pmtu as u64, len - 2 * pmtu, true, true),
                job(p, va + len as u64 - 7, 7, true, false),
            ],
            "QP {qpn}"
        );
        assert_eq!(counter(&mut sim, "duplicate") - before, 6, "QP {qpn}");
    }
}

/// [`PsnCount`] behind a clocked wrapper (the harness drives a clock), for Verilator and
/// rust-hdl.
mod psn_count_top {
    use nicgen_hw::roce::psn_count::PsnCount;
    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    pub struct PsnCountTop {
        pub clock: Signal<In, Clock>,
        pub len: Signal<In, Bits<32>>,
        pub code: Signal<In, Bits<3>>,
        pub n: Signal<Out, Bits<24>>,
        pc: PsnCount,
    }

    impl Logic for PsnCountTop {
        #[hdl_gen]
        fn update(&mut self) {
            self.pc.len.next = self.len.val();
            self.pc.code.next = self.code.val();
            self.n.next = self.pc.n.val();
        }
    }
    nicgen_sim::impl_ports!(PsnCountTop, clock = clock, [clock, len, code, n]);
}

/// A READ's PSN count, `max(1, ceil(len / PMTU))`, for every PMTU code and lengths at and
/// around every multiple of each PMTU (and random ones up to 2^32 - 1), against `div_ceil`, on
/// Verilator and in lock step with rust-hdl.
#[test]
fn psn_count_is_max_one_ceil_len_over_pmtu() {
    use psn_count_top::PsnCountTop;
    let mut lens: Vec<u64> = vec![0, 1, 2, 255, 256, 257, u32::MAX as u64, u32::MAX as u64 - 1];
    for k in 8..=15 {
        for m in [1u64, 2, 3, 7, 100, 65_535] {
            let b = m << k;
            lens.extend([b - 1, b, b + 1]);
        }
    }
    let mut rng = Rng::new(11);
    lens.extend((0..2000).map(|_| rng.next_u64() & 0xffff_ffff));
    lens.extend((0..2000).map(|_| rng.below(1 << 20)));
    let run = |sim: &mut dyn CycleSim| {
        let (l, c, n) = (sim.port("len"), sim.port("code"), sim.port("n"));
        let mut checked = 0;
        for &len in lens.iter().filter(|&&x| x <= u32::MAX as u64) {
            for code in 0..8u64 {
                sim.set_u64(l, len);
                sim.set_u64(c, code);
                sim.eval();
                let want = len.div_ceil(256 << code).max(1) & 0xff_ffff;
                assert_eq!(sim.get_u64(n), want, "len {len} code {code}");
                checked += 1;
            }
            sim.tick();
        }
        assert!(checked > 30_000);
    };
    run(&mut verilate(&mut PsnCountTop::default()));
    run(&mut Diff::new(verilate(&mut PsnCountTop::default()), RustHdlSim::new(PsnCountTop::default())));
}

/// Speculative placement: headers with `spec` (frames cut through the RX buffer) send their DMA
/// command and payload at once, but change the QP, ACK and count only on a good verdict. A bad
/// frame cut short is padded to its command's length; its bytes land where the good packet of
/// that PSN lands again. Random gaps and backpressure, verdicts late or early.
#[test]
fn speculative_writes_commit_only_on_a_good_verdict() {
    let mut v = verilate(&mut RoceResponder500::default());
    for seed in [1, 2, 3] {
        start(&mut v, 0);
        let mut rng = Rng::new(seed);
        let mut q = qp(&mut rng, 5);
        q.cfg.pmtu = 0; // 256 bytes
        setup(&mut v, &q);
        let psn = q.rq.rq_expected_psn;
        let va = q.cfg.mr_base + 0x1000;
        let data = rng.bytes(256 * 3 + 77);
        let msg = write_msg(&q, psn, va, &data);
        assert_eq!(msg.len(), 4);
        let spec = |(mut h, p): (RxHdrFields, Vec<u8>)| { h.spec = true; (h, p) };
        let (m1, m2, last) = (spec(msg[1].clone()), spec(msg[2].clone()), spec(msg[3].clone()));
        // MIDDLE 1 cut short to 100 bytes of garbage, MIDDLE 2 whole but garbage: both bad
        let short = (m1.0.clone(), rng.bytes(100));
        let garbage = (m2.0.clone(), rng.bytes(256));
        let items = vec![msg[0].clone(), short, m1, garbage, m2, last];
        let out = run_v(&mut v, &items, &[1, 0, 1, 0, 0], 70, 60, seed);
        // every command got exactly its length in data (the short one padded)
        let mem = apply(&out);
        assert_eq!(out.cmds.len(), 6);
        assert_eq!(out.cmds[1], out.cmds[2], "the bad MIDDLE was placed where the good one is");
        assert!(out.data[1][100..].iter().skip(28).all(|&b| b == 0), "padding is zeros");
        for (i, b) in data.iter().enumerate() {
            assert_eq!(mem.get(&(va + i as u64)), Some(b), "byte {i}");
        }
        // one ACK, for the message; the QP moved as if the bad frames never came
        assert_eq!(out.acks.len(), 1);
        assert_eq!((out.acks[0].psn, out.acks[0].msn), ((psn + 3) & 0xff_ffff, (q.rq.rq_msn + 1) & 0xff_ffff));
        let (_, rq) = read_qp(&mut v, q.qpn);
        assert_eq!((rq.rq_expected_psn, rq.rq_msn, rq.rq_in_write, rq.state), ((psn + 4) & 0xff_ffff, (q.rq.rq_msn + 1) & 0xff_ffff, false, state::RTS));
        assert_eq!((counter(&mut v, "headers"), counter(&mut v, "writes"), counter(&mut v, "acks")), (4, 4, 1));
    }
}

/// A cut-through WRITE FIRST or ONLY names its own address (RETH), so by default it is held: its
/// DMA command and payload go only after a good verdict, and a bad one writes nothing, whether
/// its RETH was damaged (an address inside the region where no good packet writes) or its frame
/// cut short. With `reth_early` (`RX_CUT` bit 1) the same frames are placed before their verdict,
/// and the damaged RETH's bytes land where it pointed. Random gaps and backpressure, verdicts late
/// or early.
#[test]
fn held_first_and_only_write_nothing_before_a_good_verdict() {
    let mut v = verilate(&mut RoceResponder500::default());
    let early = v.port("reth_early");
    for (seed, reth_early) in [(1, false), (2, false), (3, true)] {
        start(&mut v, 0);
        v.set_bit(early, reth_early);
        let mut rng = Rng::new(seed + 10);
        let mut q = qp(&mut rng, 6);
        q.cfg.pmtu = 0; // 256 bytes
        setup(&mut v, &q);
        let psn = q.rq.rq_expected_psn;
        let (va, va2, stray) = (q.cfg.mr_base + 0x1000, q.cfg.mr_base + 0x3000, q.cfg.mr_base + 0x8000);
        let (data, data2) = (rng.bytes(256 * 2 + 77), rng.bytes(200));
        let spec = |(mut h, p): (RxHdrFields, Vec<u8>)| { h.spec = true; (h, p) };
        let msg: Vec<_> = write_msg(&q, psn, va, &data).into_iter().map(spec).collect();
        let only = spec(write_msg(&q, psn.wrapping_add(3), va2, &data2).remove(0));
        assert_eq!((msg[0].0.opcode, msg.len(), only.0.opcode), (op::WRITE_FIRST, 3, op::WRITE_ONLY));
        // a FIRST whose RETH address was damaged (still inside the region), the FIRST cut short,
        // an ONLY with a damaged address: all bad
        let mut bad_va = msg[0].clone();
        bad_va.0.va = stray;
        bad_va.1 = rng.bytes(256);
        let short = (msg[0].0.clone(), rng.bytes(100));
        let mut bad_only = only.clone();
        bad_only.0.va = stray + 0x1000;
        let items = vec![bad_va, short, msg[0].clone(), msg[1].clone(), msg[2].clone(), bad_only, only];
        let out = run_v(&mut v, &items, &[1, 1, 0, 0, 0, 1, 0], 70, 60, seed);
        let mem = apply(&out);
        for (i, b) in data.iter().enumerate() {
            assert_eq!(mem.get(&(va + i as u64)), Some(b), "byte {i}");
        }
        for (i, b) in data2.iter().enumerate() {
            assert_eq!(mem.get(&(va2 + i as u64)), Some(b), "ONLY byte {i}");
        }
        let strays = mem.keys().filter(|&&a| a >= stray).count();
        if reth_early {
            // placed before the verdict: the two damaged RETHs' payloads and the short FIRST
            assert_eq!(out.cmds.len(), 7);
            assert_eq!((out.cmds[0].addr, out.cmds[5].addr), (stray, stray + 0x1000));
            assert_eq!(strays, 256 + 200);
        } else {
            assert_eq!(out.cmds.len(), 4, "{:x?}", out.cmds);
            assert_eq!(out.cmds.iter().map(|c| c.addr).collect::<Vec<_>>(), [va, va + 256, va + 512, va2]);
            assert_eq!(strays, 0);
        }
        // either way the bad frames change nothing else: two ACKs, the QP as after both messages
        assert_eq!(out.acks.len(), 2);
        assert_eq!((out.acks[1].psn, out.acks[1].msn), ((psn + 3) & 0xff_ffff, (q.rq.rq_msn + 2) & 0xff_ffff));
        let (_, rq) = read_qp(&mut v, q.qpn);
        assert_eq!((rq.rq_expected_psn, rq.rq_msn, rq.rq_in_write, rq.state), ((psn + 4) & 0xff_ffff, (q.rq.rq_msn + 2) & 0xff_ffff, false, state::RTS));
        assert_eq!((counter(&mut v, "headers"), counter(&mut v, "writes"), counter(&mut v, "acks")), (4, 4, 2));
    }
}

/// `LastHit`'s custom Verilog (a tree of selects) under Verilator against its model: for every
/// pattern of hits (N = 5) and for random ones with every count of hits (N = 16), `any`, `idx`
/// and `y` are those of the last entry hit. The responder alone never exercises its priority (an
/// accepted READ's PSN range overlaps no other's), so this is its only check.
mod last_hit {
    use nicgen_hw::roce::rx::responder::LastHit;
    use nicgen_sim::*;
    use rust_hdl::prelude::*;

    /// `LastHit` with its entries' data made from one seed (`d[i] = seed ^ tag(i)`), so that a
    /// wrong pick shows in `y` as well as in `idx`.
    #[derive(LogicBlock)]
    pub struct Probe<const N: usize> {
        pub clock: Signal<In, Clock>,
        pub hit: Signal<In, Bits<N>>,
        pub seed: Signal<In, Bits<24>>,
        pub any: Signal<Out, Bit>,
        pub idx: Signal<Out, Bits<4>>,
        pub y: Signal<Out, Bits<24>>,
        tag: [Constant<Bits<24>>; N],
        lh: LastHit<N, 24>,
    }

    pub fn tag(i: usize) -> u64 {
        (0x9E3779 * (i as u64 + 1)) & 0xFF_FFFF
    }

    impl<const N: usize> Default for Probe<N> {
        fn default() -> Self {
            Probe {
                clock: Default::default(),
                hit: Default::default(),
                seed: Default::default(),
                any: Default::default(),
                idx: Default::default(),
                y: Default::default(),
                tag: std::array::from_fn(|i| Constant::new(tag(i).into())),
                lh: Default::default(),
            }
        }
    }

    impl<const N: usize> Logic for Probe<N> {
        #[hdl_gen]
        fn update(&mut self) {
            for i in 0..N {
                self.lh.hit[i].next = self.hit.val().get_bit(i);
                self.lh.d[i].next = self.seed.val() ^ self.tag[i].val();
            }
            self.any.next = self.lh.any.val();
            self.idx.next = self.lh.idx.val();
            self.y.next = self.lh.y.val();
        }
    }

    fn check<const N: usize>(patterns: &[u64]) {
        let mut v = verilate(&mut Probe::<N>::default());
        let (hit, seed, any, idx, y) = (v.port("hit"), v.port("seed"), v.port("any"), v.port("idx"), v.port("y"));
        let mut rng = Rng::new(N as u64);
        for &p in patterns {
            let s = rng.below(1 << 24);
            v.set_u64(hit, p);
            v.set_u64(seed, s);
            v.eval();
            let hits: Vec<bool> = (0..N).map(|i| p >> i & 1 == 1).collect();
            let d: Vec<u64> = (0..N).map(|i| s ^ tag(i)).collect();
            let (a, i, yy) = LastHit::<N, 24>::model(&hits, &d);
            assert_eq!((v.get_bit(any), v.get_u64(idx), v.get_u64(y)), (a, i, yy), "N = {N}, hits {p:#b}");
            v.tick();
        }
    }

    #[test]
    fn last_hit_picks_the_last_entry_hit() {
        check::<5>(&(0..32).collect::<Vec<_>>());
        let mut rng = Rng::new(7);
        // every count of hits from 0 to 16, in random places, many times over
        let mut pats = vec![0, 0xFFFF, 1, 1 << 15];
        for _ in 0..400 {
            let k = rng.below(17);
            let mut p = 0u64;
            while p.count_ones() < k as u32 {
                p |= 1 << rng.below(16);
            }
            pats.push(p);
        }
        check::<16>(&pats);
    }
}

/// The packets of one SEND message (no RETH: `va`, `rkey` and `dma_len` stay 0).
fn send_msg(q: &QpSetup, psn: u32, data: &[u8]) -> Vec<(RxHdrFields, Vec<u8>)> {
    write_msg(q, psn, 0, data)
        .into_iter()
        .map(|(mut h, p)| {
            h.opcode = match h.opcode {
                op::WRITE_FIRST => op::SEND_FIRST,
                op::WRITE_MIDDLE => op::SEND_MIDDLE,
                op::WRITE_LAST => op::SEND_LAST,
                _ => op::SEND_ONLY,
            };
            (h.va, h.rkey, h.dma_len) = (0, 0, 0);
            (h, p)
        })
        .collect()
}

fn recv_wr(q: &QpSetup, wr_id: u32, addr: u64, len: u32) -> RecvWrFields {
    RecvWrFields { qpn: q.qpn, wr_id, addr, len }
}

fn recv_done(q: &QpSetup, wr_id: u32, status: u8, byte_len: u32) -> CqEntryFields {
    CqEntryFields { wr_id, qpn: q.qpn, op: wr_op::SEND, status, byte_len, recv: true, tap_flag: false }
}

/// SENDs of random lengths (empty, one packet, several, exactly the RECV's size) on 8 QPs,
/// with WRITEs between them on one QP, land in the buffers of the RECVs posted, oldest first,
/// and complete each RECV in order with its byte count; the receive queues end empty.
fn sends_over<S: CycleSim>(sim: &mut S, seed: u64, valid: u32, ready: u32) {
    let mut rng = Rng::new(seed);
    start(sim, 0);
    let qs: Vec<QpSetup> = (0..8).map(|i| qp(&mut rng, 40 + 3 * i)).collect();
    for q in &qs {
        setup(sim, q);
    }
    let mut posts = vec![];
    let mut msgs: Vec<Vec<(RxHdrFields, Vec<u8>)>> = vec![vec![]; qs.len()];
    let mut want_mem = vec![];
    let mut want_cq: Vec<Vec<CqEntryFields>> = vec![vec![]; qs.len()];
    let mut psn: Vec<u32> = qs.iter().map(|q| q.rq.rq_expected_psn).collect();
    let mut next_addr = 0x7_0000_0000u64;
    for (k, q) in qs.iter().enumerate() {
        let pmtu = pmtu_bytes(q.cfg.pmtu);
        for m in 0..(2 + rng.below(5) as usize) {
            let cap = rng.range(1, 4 * pmtu as u64 + 1) as u32;
            let len = match m % 4 {
                0 => cap as usize,
                1 => 0,
                _ => rng.range(1, cap as u64 + 1) as usize,
            };
            let wr_id = (k as u32) << 16 | m as u32;
            posts.push(recv_wr(q, wr_id, next_addr, cap));
            let data = rng.bytes(len);
            msgs[k].extend(send_msg(q, psn[k], &data));
            psn[k] = (psn[k] + data.len().div_ceil(pmtu).max(1) as u32) & 0xff_ffff;
            want_mem.push((next_addr, data));
            want_cq[k].push(recv_done(q, wr_id, cq_status::SUCCESS, len as u32));
            next_addr += cap as u64 + rng.below(300);
            if k == 0 {
                // a WRITE between two SENDs of the same QP
                let n = rng.range(1, 2 * pmtu as u64) as usize;
                let data = rng.bytes(n);
                let va = q.cfg.mr_base + 0x1000 * m as u64;
                msgs[k].extend(write_msg(q, psn[k], va, &data));
                psn[k] = (psn[k] + data.len().div_ceil(pmtu) as u32) & 0xff_ffff;
                want_mem.push((va, data));
            }
        }
    }
    // all RECVs first (in one run), then the requests: QPs take turns message by message
    let posted = run_all(sim, &[], &[], &posts, valid, ready, seed + 1);
    assert!(posted.rcq.is_empty() && posted.cmds.is_empty());
    assert_eq!(counter(sim, "recv_posted"), posts.len() as u64);
    let mut items = vec![];
    let mut cursor = vec![0usize; qs.len()];
    while cursor.iter().zip(&msgs).any(|(c, m)| *c < m.len()) {
        for k in 0..qs.len() {
            // one message: packets up to and including the next LAST or ONLY
            while cursor[k] < msgs[k].len() {
                let (h, p) = msgs[k][cursor[k]].clone();
                cursor[k] += 1;
                items.push((h, p));
                if h.ackreq {
                    break;
                }
            }
        }
    }
    let out = run_all(sim, &items, &[], &[], valid, ready, seed + 2);
    let mem = apply(&out);
    for (va, data) in &want_mem {
        for (i, b) in data.iter().enumerate() {
            assert_eq!(mem.get(&(va + i as u64)), Some(b), "byte {i} at {va:#x}");
        }
    }
    for (k, q) in qs.iter().enumerate() {
        let got: Vec<CqEntryFields> = out.rcq.iter().filter(|c| c.qpn == q.qpn).copied().collect();
        assert_eq!(got, want_cq[k], "receive completions of QP {}", q.qpn);
        let (_, rq) = read_qp(sim, q.qpn);
        assert_eq!((rq.state, rq.rq_expected_psn, rq.rq_in_write), (state::RTS, psn[k], false), "QP {}", q.qpn);
        assert_eq!(rq.rq_recv_head, rq.rq_recv_tail, "QP {}: every RECV used", q.qpn);
    }
    let sends: u64 = msgs.iter().flatten().filter(|(h, _)| is_send(h.opcode)).count() as u64;
    assert_eq!(counter(sim, "sends"), sends);
    assert_eq!(out.acks.iter().filter(|a| a.syndrome != syndrome::ACK).count(), 0, "no NAK");
    assert_eq!(out.acks.len(), items.iter().filter(|(h, _)| h.ackreq).count(), "one ACK per AckReq");
    assert_eq!(counter(sim, "rnr_naks"), 0);
}

#[test]
fn sends_fill_posted_recvs_in_order_and_complete_them() {
    let mut sim = verilate(&mut RoceResponder500::default());
    sends_over(&mut sim, 71, 70, 60);
}

#[test]
fn sends_lock_step() {
    let mut sim = Diff::new(verilate(&mut RoceResponder500::default()), RustHdlSim::new(RoceResponder500::default()));
    sends_over(&mut sim, 72, 80, 70);
}

/// The IBA/rxe receive-queue error cases, each with its exact NAKs and completions:
/// * no RECV posted: RNR NAK with the QP's timer at the SEND's PSN, nothing else changes; the
///   same SEND after a post is accepted;
/// * a SEND FIRST longer than the RECV, and a SEND whose LAST overflows it: NAK 0x61 at that
///   packet, the RECV completes with a local length error, the QP goes to ERROR;
/// * a 17th post to a ring of 16, and a post to a QPN beyond the table: dropped and counted.
#[test]
fn receive_queue_errors_are_naked_completed_and_counted() {
    let mut sim = verilate(&mut RoceResponder500::default());
    let mut rng = Rng::new(73);
    start(&mut sim, 0);
    let mut qs: Vec<QpSetup> = (0..4).map(|i| qp(&mut rng, 200 + i)).collect();
    for q in qs.iter_mut() {
        q.cfg.pmtu = 1;
        q.cfg.min_rnr_timer = 14;
        setup(&mut sim, q);
    }
    let (a, b, c, d) = (&qs[0], &qs[1], &qs[2], &qs[3]);
    let pmtu = pmtu_bytes(1);
    // a: RNR, then accepted after a post
    let data = rng.bytes(300);
    let msg = send_msg(a, a.rq.rq_expected_psn, &data);
    let out = run_all(&mut sim, &msg, &[], &[], 70, 60, 1);
    let naks: Vec<(u8, u32)> = out.acks.iter().map(|r| (r.syndrome, r.psn)).collect();
    assert_eq!(naks, vec![(syndrome::RNR_NAK | 14, a.rq.rq_expected_psn)]);
    assert!(out.cmds.is_empty() && out.rcq.is_empty());
    run_all(&mut sim, &[], &[], &[recv_wr(a, 5, 0x9000_0000, 1000)], 70, 60, 2);
    let out = run_all(&mut sim, &msg, &[], &[], 70, 60, 3);
    assert_eq!(out.rcq, vec![recv_done(a, 5, cq_status::SUCCESS, 300)]);
    assert_eq!(apply(&out).len(), 300);
    assert_eq!(out.acks.iter().map(|r| (r.syndrome, r.psn)).collect::<Vec<_>>(), vec![(syndrome::ACK, a.rq.rq_expected_psn)]);
    // b: a FIRST longer than the RECV; c: a LAST that overflows it
    let posts = [recv_wr(b, 6, 0xa000_0000, 100), recv_wr(c, 7, 0xb000_0000, 2 * pmtu as u32)];
    run_all(&mut sim, &[], &[], &posts, 70, 60, 4);
    let mut items = send_msg(b, b.rq.rq_expected_psn, &rng.bytes(3 * pmtu));
    items.extend(send_msg(c, c.rq.rq_expected_psn, &rng.bytes(2 * pmtu + 10)));
    let out = run_all(&mut sim, &items, &[], &[], 70, 60, 5);
    let naks: Vec<(u32, u8, u32)> = out.acks.iter().map(|r| (r.qpn, r.syndrome, r.psn)).collect();
    assert_eq!(naks, vec![(b.qpn, syndrome::NAK_INVALID_REQ, b.rq.rq_expected_psn), (c.qpn, syndrome::NAK_INVALID_REQ, (c.rq.rq_expected_psn + 2) & 0xff_ffff)]);
    assert_eq!(out.rcq, vec![recv_done(b, 6, cq_status::LOCAL_LENGTH, 0), recv_done(c, 7, cq_status::LOCAL_LENGTH, 0)]);
    // nothing of b's lands; c's first two packets do (IBA leaves the buffer's content undefined)
    assert_eq!(out.cmds.iter().map(|x| (x.addr, x.len)).collect::<Vec<_>>(), vec![(0xb000_0000, pmtu as u32), (0xb000_0000 + pmtu as u64, pmtu as u32)]);
    for q in [b, c] {
        assert_eq!(read_qp(&mut sim, q.qpn).1.state, state::ERROR);
    }
    assert_eq!(counter(&mut sim, "length_error"), 2);
    // d: 17 posts to a ring of 16; a post beyond the table
    let mut posts: Vec<RecvWrFields> = (0..17).map(|i| recv_wr(d, i, 0xc000_0000 + 0x1000 * i as u64, 64)).collect();
    posts.push(RecvWrFields { qpn: 600, wr_id: 99, addr: 0, len: 64 });
    let before = counter(&mut sim, "recv_posted");
    run_all(&mut sim, &[], &[], &posts, 70, 60, 6);
    assert_eq!((counter(&mut sim, "recv_posted") - before, counter(&mut sim, "recv_dropped")), (16, 2));
    let rq = read_qp(&mut sim, d.qpn).1;
    assert_eq!((rq.rq_recv_tail.wrapping_sub(rq.rq_recv_head)) & 31, 16);
    // the ring's 16 RECVs fill in order: the 17th post (wr_id 16) was not kept
    let mut items = vec![];
    let mut p = d.rq.rq_expected_psn;
    for _ in 0..17 {
        items.extend(send_msg(d, p, &[0x5a; 8]));
        p = (p + 1) & 0xff_ffff;
    }
    let out = run_all(&mut sim, &items, &[], &[], 70, 60, 7);
    assert_eq!(out.rcq.iter().map(|x| x.wr_id).collect::<Vec<_>>(), (0..16).collect::<Vec<u32>>());
    assert_eq!(out.acks.last().map(|r| (r.syndrome, r.psn)), Some((syndrome::RNR_NAK | 14, (p + 0xff_ffff) & 0xff_ffff)));
}
