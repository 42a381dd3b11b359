//! Responder on Verilator: WRITEs of random sizes over many QPs land byte for byte in a
//! host-memory model, READ requests become READ jobs, and every bad request is dropped or
//! NAKed as IBA says and counted by cause, while other QPs carry on. Random gaps and
//! backpressure on every port; lock step against rust-hdl; 4096 QPs build and run.
mod common;
use nicgen_hw::roce::hdr::RxHdrFields;
use nicgen_hw::roce::qp::*;
use nicgen_hw::roce::rx::responder::*;
use nicgen_hw::roce::{AckReqFields, DmaCmdFields, ReadJobFields};
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
            ..Default::default()
        },
        rq: QpRqFields { state: state::RTS, rq_expected_psn: rng.below(1 << 24) as u32, rq_msn: rng.below(1000) as u32, ..Default::default() },
    }
}

/// Drive one control-plane access and wait for `ctl_done`.
fn ctl<S: CycleSim>(sim: &mut S, write: bool, qpn: u32, cfg: &QpCfgFields, rq: &QpRqFields) -> (QpCfgFields, QpRqFields) {
    let p = |s: &S, n: &str| s.port(n);
    let (req, wr, q, c, r, done) = (p(sim, "ctl_req"), p(sim, "ctl_write"), p(sim, "ctl_qpn"), p(sim, "ctl_cfg"), p(sim, "ctl_rq"), p(sim, "ctl_done"));
    sim.set_bit(req, true);
    sim.set_bit(wr, write);
    sim.set_u64(q, qpn as u64);
    sim.set(c, &cfg.to_words());
    sim.set(r, &rq.to_words());
    for _ in 0..100 {
        sim.eval();
        if sim.get_bit(done) {
            let rc = { let x = p(sim, "rd_cfg"); QpCfgFields::from_words(&sim.get_words(x)) };
            let rr = { let x = p(sim, "rd_rq"); QpRqFields::from_words(&sim.get_words(x)) };
            sim.tick();
            sim.set_bit(req, false);
            sim.eval();
            return (rc, rr);
        }
        sim.tick();
    }
    panic!("control access never completed");
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
    data: Vec<Vec<u8>>,
    acks: Vec<AckReqFields>,
    jobs: Vec<ReadJobFields>,
    resps: Vec<RxHdrFields>,
    resp_data: Vec<Vec<u8>>,
    /// Longest run of cycles with a payload beat offered and not taken.
    max_stall: u64,
}

fn run<S: CycleSim>(sim: &mut S, items: &[(RxHdrFields, Vec<u8>)], valid: u32, ready: u32, seed: u64) -> Out {
    let mut hd = ChanDriver::new(sim, "hdr", valid, seed);
    let d = AxisDriver::new(sim, "s_axis", valid, seed + 1);
    let m_dma = AxisMonitor::new(sim, "m_axis_dma_wr", ready, seed + 2);
    let m_resp = AxisMonitor::new(sim, "m_axis_resp", ready, seed + 3);
    let mut cm = ChanMonitor::new(sim, "dma_wr_cmd", ready, seed + 4);
    let mut am = ChanMonitor::new(sim, "ack", ready, seed + 5);
    let mut jm = ChanMonitor::new(sim, "rd_job", ready, seed + 6);
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
        cm.drive(sim);
        am.drive(sim);
        jm.drive(sim);
        rm.drive(sim);
        let moved = b.step_with(sim, |s| {
            let mut m = hd.sample(s);
            m |= cm.sample(s) | am.sample(s) | jm.sample(s) | rm.sample(s);
            for c in [&cm, &am, &jm, &rm] {
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
        quiet = if moved || !b.drivers[0].idle() || !hd.idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 5_000_000, "responder stalled");
    }
    Out {
        cmds: cm.seen.iter().map(|(_, w)| DmaCmdFields::from_words(w)).collect(),
        data: b.monitors[0].frames.iter().map(|f| f.data.clone()).collect(),
        acks: am.seen.iter().map(|(_, w)| AckReqFields::from_words(w)).collect(),
        jobs: jm.seen.iter().map(|(_, w)| ReadJobFields::from_words(w)).collect(),
        resps: rm.seen.iter().map(|(_, w)| RxHdrFields::from_words(w)).collect(),
        resp_data: b.monitors[1].frames.iter().map(|f| f.data.clone()).collect(),
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
        let mine: Vec<&AckReqFields> = out.acks.iter().filter(|a| a.qpn == q.qpn).collect();
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
