//! Requester completion side on Verilator: coalesced ACKs complete the right messages, READ
//! responses land at the right host addresses, a fatal NAK fails and flushes, ghost ACKs and
//! out-of-order responses are counted, a retransmit timer is checked against the state before it
//! fires, under random backpressure; the timer's mask test equals the compare it replaces.
mod common;
use nicgen_hw::roce::hdr::RxHdrFields;
use nicgen_hw::roce::rx::requester::RoceRequester500;
use nicgen_hw::roce::*;
use nicgen_model::opcode as op;
use nicgen_sim::axis::*;
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::*;

#[derive(Default)]
struct Out {
    cq: Vec<CqEntryFields>,
    cmds: Vec<DmaCmdFields>,
    data: Vec<Vec<u8>>,
    rtx: Vec<RtxWrFields>,
    /// QPs whose requester went to ERROR (`err_qpn`, taken at once).
    err: Vec<u32>,
}

fn run<S: CycleSim>(sim: &mut S, sent: &[SentWrFields], resp: &[(RxHdrFields, Vec<u8>)], out: &mut Out, seed: u64) {
    run_vd(sim, sent, resp, &[], out, seed)
}

/// `run` with the verdicts (bit 0 bad, bit 1 tap flag) of the responses with `spec` set.
fn run_vd<S: CycleSim>(sim: &mut S, sent: &[SentWrFields], resp: &[(RxHdrFields, Vec<u8>)], vds: &[u64], out: &mut Out, seed: u64) {
    run_vd_at(sim, sent, resp, vds, 0, out, seed)
}

/// `run_vd` with the verdicts held back until cycle `vd_at` of the run: a response waiting for
/// its verdict has then waited that long (its payload held too), whatever the random timing.
fn run_vd_at<S: CycleSim>(sim: &mut S, sent: &[SentWrFields], resp: &[(RxHdrFields, Vec<u8>)], vds: &[u64], vd_at: u64, out: &mut Out, seed: u64) {
    let mut vd = ChanDriver::new(sim, "vd", 40, seed + 7);
    for &v in vds {
        vd.push(vec![v as u32]);
    }
    let mut sd = ChanDriver::new(sim, "sent", 70, seed);
    let mut rd = ChanDriver::new(sim, "resp", 70, seed + 1);
    let mut cqm = ChanMonitor::new(sim, "cq", 60, seed + 2);
    let mut cm = ChanMonitor::new(sim, "dma_wr_cmd", 60, seed + 3);
    let mut xm = ChanMonitor::new(sim, "rtx", 60, seed + 6);
    let d = AxisDriver::new(sim, "s_axis", 70, seed + 4);
    let m = AxisMonitor::new(sim, "m_axis_dma_wr", 60, seed + 5);
    let mut b = StreamBench::new(vec![d], vec![m]);
    let (err_valid, err_qpn) = (sim.port("err_valid"), sim.port("err_qpn"));
    let err_ready = sim.port("err_ready");
    sim.set_bit(err_ready, true);
    let mut errs = vec![];
    for s in sent {
        sd.push(s.to_words());
    }
    for (h, p) in resp {
        rd.push(h.to_words());
        if !p.is_empty() {
            b.drivers[0].push(AxisFrame::new(p.clone()));
        }
    }
    let mut quiet = 0;
    while quiet < 50 {
        sd.drive(sim);
        rd.drive(sim);
        let vd_on = b.cycles >= vd_at;
        if vd_on {
            vd.drive(sim);
        }
        cqm.drive(sim);
        cm.drive(sim);
        xm.drive(sim);
        let moved = b.step_with(sim, |s| {
            let m = sd.sample(s) | rd.sample(s) | (vd_on && vd.sample(s)) | cqm.sample(s) | cm.sample(s) | xm.sample(s);
            if s.get_bit(err_valid) {
                errs.push(s.get_u64(err_qpn) as u32);
            }
            m | s.get_bit(cqm.ports.valid) | s.get_bit(cm.ports.valid)
        });
        quiet = if moved || !sd.idle() || !rd.idle() || !vd.idle() || !b.drivers[0].idle() { 0 } else { quiet + 1 };
        assert!(b.cycles < 1_000_000, "requester stalled");
    }
    out.cq.extend(cqm.seen.iter().map(|(_, w)| CqEntryFields::from_words(w)));
    out.cmds.extend(cm.seen.iter().map(|(_, w)| DmaCmdFields::from_words(w)));
    out.data.extend(b.monitors[0].frames.iter().map(|f| f.data.clone()));
    out.rtx.extend(xm.seen.iter().map(|(_, w)| RtxWrFields::from_words(w)));
    out.err.extend(errs);
}

fn reset_qp<S: CycleSim>(sim: &mut S, qpn: u32) {
    reset_qp_timeout(sim, qpn, 0)
}

/// `reset_qp` with the QP's local ACK timeout (IBA code: 4.096 µs × 2^code, 0 = no timer).
fn reset_qp_timeout<S: CycleSim>(sim: &mut S, qpn: u32, timeout: u8) {
    let t = sim.port("ctl_timeout");
    sim.set_u64(t, timeout as u64);
    let q = sim.port("ctl_qpn");
    sim.set_u64(q, qpn as u64);
    let r = sim.port("ctl_retry");
    sim.set_u64(r, 7);
    common::ctl_handshake(sim, 50, |_| ());
}

fn w(wr_id: u32, op: u8, qpn: u32, first: u32, last: u32, signaled: bool) -> SentWrFields {
    SentWrFields { wr_id, op, qpn, first_psn: first, last_psn: last, laddr: 0x10_0000 * wr_id as u64, raddr: 0, rkey: 0, len: 100 * wr_id, signaled, pmtu: 0, flush: false }
}

fn resp(opc: u8, qpn: u32, psn: u32, syndrome: u8, plen: usize) -> (RxHdrFields, Vec<u8>) {
    let h = RxHdrFields { opcode: opc, dqpn: qpn, psn, syndrome, plen: plen as u16, known: true, ..Default::default() };
    (h, (0..plen).map(|i| (i * 7 + psn as usize) as u8).collect())
}

fn counter<S: CycleSim>(sim: &mut S, name: &str) -> u64 {
    let p = sim.port(&format!("cnt${name}"));
    sim.get_u64(p)
}

fn ok(wr_id: u32, qpn: u32, op: u8) -> CqEntryFields {
    CqEntryFields { wr_id, qpn, op, status: cq_status::SUCCESS, byte_len: 100 * wr_id, recv: false, tap_flag: false }
}

#[test]
fn acks_reads_and_naks_complete_the_right_messages() {
    let mut sim = verilate(&mut RoceRequester500::default());
    sim.reset(2);
    for q in [5, 6, 7, 8] {
        reset_qp(&mut sim, q);
    }
    let mut out = Out::default();
    let mut read = w(4, wr_op::READ, 5, 105, 107, true);
    read.len = 600;
    // two PSNs of 256 bytes: FIRST 256 and LAST 44
    let mut read21 = w(21, wr_op::READ, 8, 0xff_fffe, 0xff_ffff, true);
    read21.len = 300;
    let sent = vec![
        w(1, wr_op::WRITE, 5, 100, 100, true),
        w(2, wr_op::WRITE, 5, 101, 103, false),
        w(3, wr_op::WRITE, 5, 104, 104, true),
        read,
        w(5, wr_op::WRITE, 5, 108, 108, true),
        w(11, wr_op::WRITE, 7, 10, 10, true),
        w(12, wr_op::WRITE, 7, 11, 12, false),
        w(13, wr_op::WRITE, 7, 13, 13, false),
        read21,
    ];
    run(&mut sim, &sent, &[], &mut out, 1);
    assert!(out.cq.is_empty());
    let mut rs = vec![
        resp(op::ACK, 5, 99, 0x1f, 0),               // before the window: ignored
        resp(op::ACK, 6, 3, 0x1f, 0),                // nothing outstanding: ignored
        resp(op::ACK, 5, 102, 0x1f, 0),              // completes 1, inside 2
        resp(op::ACK, 5, 104, 0x1f, 0),              // completes 2 (unsignaled) and 3
        resp(op::READ_RESP_FIRST, 5, 105, 0x1f, 256),
        resp(op::READ_RESP_MIDDLE, 5, 106, 0, 256),
        resp(op::READ_RESP_LAST, 5, 107, 0x1f, 88),  // completes the READ
        resp(op::ACK, 5, 108, 0x1f, 0),              // completes 5
        resp(op::ACK, 7, 11, 0x62, 0),               // NAK remote access on 12: 11 ok, 12 failed, 13 flushed
        resp(op::READ_RESP_LAST, 8, 0xff_ffff, 0x1f, 64), // ahead of the expected PSN: implied NAK, replay
        resp(op::ACK, 8, 0xff_fffe, 0x60, 0),        // NAK sequence error for the same PSN: replay already asked
    ];
    // the parallel tap flagged READ 4's middle response (its completion carries the flag) and
    // the response on QP 8 that is not accepted (READ 21's completion below does not)
    rs[5].0.tap_flag = true;
    rs[9].0.tap_flag = true;
    run(&mut sim, &[], &rs, &mut out, 2);
    let mut want = vec![ok(1, 5, 0), ok(3, 5, 0)];
    let mut rd = ok(4, 5, wr_op::READ);
    rd.byte_len = 600;
    rd.tap_flag = true;
    want.push(rd);
    want.push(ok(5, 5, 0));
    want.push(ok(11, 7, 0));
    want.push(CqEntryFields { status: cq_status::REMOTE_ACCESS, ..ok(12, 7, 0) });
    want.push(CqEntryFields { status: cq_status::FLUSHED, ..ok(13, 7, 0) });
    assert_eq!(out.cq, want);
    let l = 0x10_0000 * 4;
    assert_eq!(out.cmds, vec![
        DmaCmdFields { addr: l, len: 256, tag: 5 },
        DmaCmdFields { addr: l + 256, len: 256, tag: 5 },
        DmaCmdFields { addr: l + 512, len: 88, tag: 5 },
    ]);
    assert_eq!(out.data, vec![rs[4].1.clone(), rs[5].1.clone(), rs[6].1.clone()]);
    assert_eq!(counter(&mut sim, "ack_out_of_window"), 1);
    assert_eq!(counter(&mut sim, "ack_duplicate"), 1);
    assert_eq!(counter(&mut sim, "acks"), 3);
    assert_eq!(counter(&mut sim, "read_resp"), 3);
    assert_eq!(counter(&mut sim, "nak_fatal"), 1);
    assert_eq!(counter(&mut sim, "nak_seq"), 1);
    assert_eq!(counter(&mut sim, "implied_nak"), 1);
    assert_eq!(counter(&mut sim, "resp_unexpected"), 0);
    // one Go-Back-N replay: the READ on QP 8 again, from its first PSN
    assert_eq!(counter(&mut sim, "replays"), 1);
    assert_eq!(out.rtx, vec![RtxWrFields { wr_id: 21, op: wr_op::READ, qpn: 8, start_psn: 0xff_fffe, off: 0, first: true, laddr: 0x10_0000 * 21, raddr: 0, rkey: 0, len: 300, last: true }]);
    // the failed QP's requester is in ERROR: new work completes as flushed, responses dropped
    let mut out2 = Out::default();
    run(&mut sim, &[w(14, wr_op::WRITE, 7, 14, 14, false)], &[], &mut out2, 3);
    run(&mut sim, &[], &[resp(op::ACK, 7, 14, 0x1f, 0)], &mut out2, 4);
    assert_eq!(out2.cq, vec![CqEntryFields { status: cq_status::FLUSHED, ..ok(14, 7, 0) }]);
    assert_eq!(counter(&mut sim, "resp_unexpected"), 1);
    // work the TX did not send (its QP not in RTS) completes as flushed, and takes no ring slot
    let mut out3 = Out::default();
    run(&mut sim, &[SentWrFields { flush: true, ..w(15, wr_op::WRITE, 5, 109, 109, false) }], &[], &mut out3, 6);
    assert_eq!(out3.cq, vec![CqEntryFields { status: cq_status::FLUSHED, ..ok(15, 5, 0) }]);
    // the READ on QP 8 completes once its responses come in order
    run(&mut sim, &[], &[resp(op::READ_RESP_FIRST, 8, 0xff_fffe, 0x1f, 256), resp(op::READ_RESP_LAST, 8, 0xff_ffff, 0x1f, 44)], &mut out2, 5);
    assert_eq!(out2.cq[1], CqEntryFields { op: wr_op::READ, byte_len: 300, ..ok(21, 8, 0) });
    assert_eq!(out2.cmds[1].addr, 0x10_0000 * 21 + 256);
}

/// A Go-Back-N replay that starts inside a message carries the byte offset of its first PSN
/// ((start − first) × PMTU, across the PSN wrap here) and is not the message's first packet;
/// the messages after it start at their first PSN, at offset 0.
#[test]
fn a_replay_inside_a_message_carries_its_byte_offset() {
    let mut sim = verilate(&mut RoceRequester500::default());
    sim.reset(2);
    reset_qp(&mut sim, 9);
    // four PSNs of 512 bytes (PMTU code 1), across the wrap; then a one-packet message
    let big = SentWrFields { len: 1900, pmtu: 1, ..w(30, wr_op::WRITE, 9, 0xff_fffe, 0x00_0001, true) };
    let small = SentWrFields { pmtu: 1, ..w(31, wr_op::WRITE, 9, 2, 2, true) };
    let mut out = Out::default();
    run(&mut sim, &[big, small], &[], &mut out, 11);
    // NAK sequence error at PSN 0: 0xfffffe and 0xffffff arrived, replay from PSN 0
    run(&mut sim, &[], &[resp(op::ACK, 9, 0, 0x60, 0)], &mut out, 12);
    assert_eq!(out.rtx, vec![
        RtxWrFields { wr_id: 30, op: wr_op::WRITE, qpn: 9, start_psn: 0, off: 1024, first: false, laddr: 0x10_0000 * 30, raddr: 0, rkey: 0, len: 1900, last: false },
        RtxWrFields { wr_id: 31, op: wr_op::WRITE, qpn: 9, start_psn: 2, off: 0, first: true, laddr: 0x10_0000 * 31, raddr: 0, rkey: 0, len: 3100, last: true },
    ]);
    assert!(out.cq.is_empty());
    run(&mut sim, &[], &[resp(op::ACK, 9, 2, 0x1f, 0)], &mut out, 13);
    assert_eq!(out.cq, vec![CqEntryFields { byte_len: 1900, ..ok(30, 9, 0) }, ok(31, 9, 0)]);
}

#[test]
fn sixteen_outstanding_per_qp_then_backpressure() {
    let mut sim = verilate(&mut RoceRequester500::default());
    sim.reset(2);
    reset_qp(&mut sim, 1);
    let sent: Vec<SentWrFields> = (0..20).map(|i| w(i + 1, wr_op::WRITE, 1, i, i, true)).collect();
    let mut out = Out::default();
    // only 16 fit; the rest wait until ACKs free slots
    let mut sd = ChanDriver::new(&sim, "sent", 100, 1);
    for s in &sent {
        sd.push(s.to_words());
    }
    for _ in 0..400 {
        sd.drive(&mut sim);
        sim.eval();
        sd.sample(&mut sim);
        sim.tick();
    }
    // a record is taken only once it is in the ring (so no ACK can come before it)
    assert_eq!(sd.sent, 16, "16 in the ring");
    let (v, _) = (sim.port("sent_valid"), 0);
    sim.set_bit(v, false);
    run(&mut sim, &[], &[resp(op::ACK, 1, 9, 0x1f, 0)], &mut out, 2);
    run(&mut sim, &sent[16..], &[], &mut out, 3);
    run(&mut sim, &[], &[resp(op::ACK, 1, 19, 0x1f, 0)], &mut out, 4);
    let ids: Vec<u32> = out.cq.iter().map(|c| c.wr_id).collect();
    assert_eq!(ids, (1..=20).collect::<Vec<u32>>());
}

/// Speculative placement of READ responses (cut through the RX buffer, `spec` set, verdicts on
/// `vd`): the next response of the oldest message, inside the READ's buffer, is placed before its
/// verdict, and only a good verdict completes or counts anything; a bad one that does not fit is
/// not placed at all; a response behind a WRITE is held whole until its verdict.
#[test]
fn cut_through_read_responses_wait_for_their_verdicts() {
    let mut sim = verilate(&mut RoceRequester500::default());
    sim.reset(2);
    for q in [5, 6] {
        reset_qp(&mut sim, q);
    }
    let mut read = w(4, wr_op::READ, 5, 105, 107, true);
    read.len = 600;
    let mut read2 = w(32, wr_op::READ, 6, 11, 11, true);
    read2.len = 64;
    let mut out = Out::default();
    run(&mut sim, &[read, w(31, wr_op::WRITE, 6, 10, 10, true), read2], &[], &mut out, 1);
    let spec = |(mut h, p): (RxHdrFields, Vec<u8>)| {
        h.spec = true;
        (h, p)
    };
    let rs = vec![
        spec(resp(op::READ_RESP_FIRST, 5, 105, 0x1f, 256)),  // bad: placed, withdrawn
        spec(resp(op::READ_RESP_FIRST, 5, 105, 0x1f, 300)),  // bad, longer than the PMTU: not placed
        spec(resp(op::READ_RESP_FIRST, 5, 105, 0x1f, 256)),  // good
        spec(resp(op::READ_RESP_LAST, 5, 107, 0x1f, 88)),   // bad, and out of order: not placed
        spec(resp(op::READ_RESP_MIDDLE, 5, 106, 0, 256)),    // good, tap-flagged (its verdict)
        spec(resp(op::READ_RESP_LAST, 5, 107, 0x1f, 200)),   // bad, beyond the READ's 600 bytes: not placed
        spec(resp(op::READ_RESP_LAST, 5, 107, 0x1f, 88)),    // good: completes the READ
        spec(resp(op::READ_RESP_ONLY, 6, 11, 0x1f, 64)),     // good, behind WRITE 31: held, then both complete
    ];
    // the first response, its verdict not yet known: placed, nothing else
    run_vd(&mut sim, &[], &rs[..1], &[], &mut out, 2);
    assert_eq!(out.cmds.len(), 1);
    assert_eq!(out.data.len(), 1);
    assert!(out.cq.is_empty());
    assert_eq!(counter(&mut sim, "read_resp"), 0);
    // then its verdict (bad)
    run_vd(&mut sim, &[], &[], &[1], &mut out, 3);
    // responses too long for where they land, each with its verdict (bad) held back 300
    // cycles: the next response of the READ, but not placed before the verdict (nor after).
    // Before the READ's last PSN, longer than a PMTU:
    run_vd_at(&mut sim, &[], &rs[1..2], &[1], 300, &mut out, 4);
    assert_eq!(out.cmds.len(), 1);
    run_vd(&mut sim, &[], &rs[2..5], &[0, 1, 2], &mut out, 5);
    assert_eq!(out.cmds.len(), 3);
    // at its last PSN, longer than the last length (beyond the READ's buffer):
    run_vd_at(&mut sim, &[], &rs[5..6], &[1], 300, &mut out, 6);
    assert_eq!(out.cmds.len(), 3);
    assert_eq!(out.data.len(), 3);
    // and the rest with theirs
    run_vd(&mut sim, &[], &rs[6..], &[0, 0], &mut out, 7);
    let mut rd = ok(4, 5, wr_op::READ);
    rd.byte_len = 600;
    rd.tap_flag = true;
    let mut rd2 = ok(32, 6, wr_op::READ);
    rd2.byte_len = 64;
    assert_eq!(out.cq, vec![rd, ok(31, 6, 0), rd2]);
    let l = 0x10_0000 * 4;
    assert_eq!(out.cmds, vec![
        DmaCmdFields { addr: l, len: 256, tag: 5 },
        DmaCmdFields { addr: l, len: 256, tag: 5 },
        DmaCmdFields { addr: l + 256, len: 256, tag: 5 },
        DmaCmdFields { addr: l + 512, len: 88, tag: 5 },
        DmaCmdFields { addr: 0x10_0000 * 32, len: 64, tag: 6 },
    ]);
    assert_eq!(out.data, vec![rs[0].1.clone(), rs[2].1.clone(), rs[4].1.clone(), rs[6].1.clone(), rs[7].1.clone()]);
    assert_eq!(counter(&mut sim, "read_resp"), 4);
    assert_eq!(counter(&mut sim, "completions"), 3);
    assert_eq!(counter(&mut sim, "resp_unexpected"), 0);
    assert_eq!(counter(&mut sim, "implied_nak"), 0);
    assert_eq!(counter(&mut sim, "replays"), 0);
}

/// The retransmit timer (code 1: 2048 cycles). The scan finds a QP expired while the step is
/// busy with that QP's own cut-through READ response, held for its verdict; the good verdict
/// acknowledges the READ and restarts the timer, so the timer job that follows checks the
/// state again and finds nothing expired: no timeout, no replay. Then the WRITE behind it goes
/// unanswered: it times out once and is replayed from its first PSN.
#[test]
fn a_timer_is_checked_against_the_state_before_it_fires() {
    let mut sim = verilate(&mut RoceRequester500::default());
    sim.reset(2);
    reset_qp_timeout(&mut sim, 5, 1);
    let mut read = w(4, wr_op::READ, 5, 105, 105, true);
    read.len = 64;
    let write = w(31, wr_op::WRITE, 5, 106, 106, true);
    let mut out = Out::default();
    run(&mut sim, &[read, write.clone()], &[], &mut out, 1);
    let (mut h, p) = resp(op::READ_RESP_ONLY, 5, 105, 0x1f, 64);
    h.spec = true;
    // the verdict comes 3000 cycles into the run: the timer (2048) has expired and the scan
    // (one QP a cycle, 512) has queued the QP by then
    run_vd_at(&mut sim, &[], &[(h, p)], &[0], 3000, &mut out, 2);
    let mut rd = ok(4, 5, wr_op::READ);
    rd.byte_len = 64;
    assert_eq!(out.cq, vec![rd.clone()]);
    assert_eq!(counter(&mut sim, "timeouts"), 0, "the READ's response restarted the timer");
    assert_eq!(counter(&mut sim, "replays"), 0);
    assert!(out.rtx.is_empty());
    // nothing answers the WRITE: one timeout and a replay of it
    for _ in 0..3000 {
        sim.eval();
        sim.tick();
    }
    run(&mut sim, &[], &[], &mut out, 3);
    assert_eq!(counter(&mut sim, "timeouts"), 1);
    assert_eq!(counter(&mut sim, "replays"), 1);
    assert_eq!(out.rtx, vec![RtxWrFields {
        wr_id: 31, op: wr_op::WRITE, qpn: 5, start_psn: 106, off: 0, first: true, laddr: write.laddr, raddr: 0, rkey: 0, len: write.len, last: true,
    }]);
    run(&mut sim, &[], &[resp(op::ACK, 5, 106, 0x1f, 0)], &mut out, 4);
    assert_eq!(out.cq, vec![rd, ok(31, 5, 0)]);
}

/// READ responses that do not fit their place in the READ (IBA 9.9.2.3, a bad response): a LAST
/// longer than the rest of the READ (which would write past the READ's buffer), a short FIRST, a
/// MIDDLE at the first PSN, an ONLY longer than the READ, an ONLY for a READ of two PSNs. Each
/// fails its READ with `BAD_RESPONSE`, writes nothing, flushes the QP's later work and is
/// counted. The READs of other QPs complete: one of zero bytes, and two answered as a retried
/// READ is (a FIRST, or an ONLY with the rest, at the PSN it resumes from). Every byte written
/// lies in its READ's buffer.
#[test]
fn bad_read_responses_fail_the_read_and_write_nothing() {
    let mut sim = verilate(&mut RoceRequester500::default());
    sim.reset(2);
    for q in 1..=9 {
        reset_qp(&mut sim, q);
    }
    let read = |wr_id: u32, qpn: u32, first: u32, last: u32, len: u32| SentWrFields { len, ..w(wr_id, wr_op::READ, qpn, first, last, true) };
    let sent = vec![
        read(1, 1, 10, 12, 600),
        w(2, wr_op::WRITE, 1, 13, 13, true),
        read(3, 2, 20, 22, 600),
        read(4, 3, 30, 32, 600),
        read(5, 4, 40, 40, 100),
        read(6, 5, 50, 50, 100),
        read(7, 6, 60, 61, 300),
        read(8, 7, 70, 70, 0),
        read(9, 8, 80, 82, 600),
        read(10, 9, 90, 91, 300),
    ];
    let mut out = Out::default();
    run(&mut sim, &sent, &[], &mut out, 1);
    let rs = vec![
        resp(op::READ_RESP_FIRST, 1, 10, 0x1f, 256),
        resp(op::READ_RESP_MIDDLE, 1, 11, 0, 256),
        resp(op::READ_RESP_LAST, 1, 12, 0x1f, 256),  // 88 left: it would write 168 bytes past the buffer
        resp(op::READ_RESP_FIRST, 2, 20, 0x1f, 200), // a FIRST carries PMTU bytes
        resp(op::READ_RESP_MIDDLE, 3, 30, 0, 256),   // a MIDDLE at the first PSN
        resp(op::READ_RESP_ONLY, 4, 40, 0x1f, 120),  // longer than the READ
        resp(op::READ_RESP_ONLY, 5, 50, 0x1f, 100),  // good
        resp(op::READ_RESP_ONLY, 6, 60, 0x1f, 256),  // an ONLY for a READ of two PSNs
        resp(op::READ_RESP_ONLY, 7, 70, 0x1f, 0),    // good: a READ of zero bytes
        resp(op::ACK, 1, 13, 0x1f, 0),               // the QP's requester is in ERROR: dropped
        resp(op::READ_RESP_FIRST, 8, 80, 0x1f, 256),
        resp(op::READ_RESP_FIRST, 8, 81, 0x1f, 256), // the READ resumed at 81 (after a loss)
        resp(op::READ_RESP_LAST, 8, 82, 0x1f, 88),
        resp(op::READ_RESP_FIRST, 9, 90, 0x1f, 256),
        resp(op::READ_RESP_ONLY, 9, 91, 0x1f, 44),   // the READ resumed at its last PSN
    ];
    run(&mut sim, &[], &rs, &mut out, 2);
    let bad = |wr_id: u32, qpn: u32, len: u32| CqEntryFields { op: wr_op::READ, status: cq_status::BAD_RESPONSE, byte_len: len, ..ok(wr_id, qpn, 0) };
    assert_eq!(out.cq, vec![
        bad(1, 1, 600),
        CqEntryFields { status: cq_status::FLUSHED, ..ok(2, 1, 0) },
        bad(3, 2, 600),
        bad(4, 3, 600),
        bad(5, 4, 100),
        CqEntryFields { op: wr_op::READ, byte_len: 100, ..ok(6, 5, 0) },
        bad(7, 6, 300),
        CqEntryFields { op: wr_op::READ, byte_len: 0, ..ok(8, 7, 0) },
        CqEntryFields { op: wr_op::READ, byte_len: 600, ..ok(9, 8, 0) },
        CqEntryFields { op: wr_op::READ, byte_len: 300, ..ok(10, 9, 0) },
    ]);
    let l = 0x10_0000;
    assert_eq!(out.cmds, vec![
        DmaCmdFields { addr: l, len: 256, tag: 1 },
        DmaCmdFields { addr: l + 256, len: 256, tag: 1 },
        DmaCmdFields { addr: 6 * l, len: 100, tag: 5 },
        DmaCmdFields { addr: 9 * l, len: 256, tag: 8 },
        DmaCmdFields { addr: 9 * l + 256, len: 256, tag: 8 },
        DmaCmdFields { addr: 9 * l + 512, len: 88, tag: 8 },
        DmaCmdFields { addr: 10 * l, len: 256, tag: 9 },
        DmaCmdFields { addr: 10 * l + 256, len: 44, tag: 9 },
    ]);
    let good: Vec<Vec<u8>> = [0, 1, 6, 10, 11, 12, 13, 14].iter().map(|&i| rs[i].1.clone()).collect();
    assert_eq!(out.data, good);
    assert_eq!(out.err, vec![1, 2, 3, 4, 6]);
    assert_eq!(counter(&mut sim, "bad_response"), 5);
    // accepted: QP 1's FIRST and MIDDLE, the ONLYs of QP 5 and 7 (zero bytes), QP 8's three and
    // QP 9's two
    assert_eq!(counter(&mut sim, "read_resp"), 9);
    assert_eq!(counter(&mut sim, "resp_unexpected"), 1);
    assert_eq!(counter(&mut sim, "completions"), 10);
}

mod timeout_mask_top {
    use nicgen_hw::roce::rx::requester::TimeoutMask;
    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    pub struct TimeoutMaskTop {
        pub clock: Signal<In, Clock>,
        pub timeout: Signal<In, Bits<5>>,
        pub elapsed: Signal<In, Bits<32>>,
        pub expired: Signal<Out, Bit>,
        m: TimeoutMask,
    }

    impl Logic for TimeoutMaskTop {
        #[hdl_gen]
        fn update(&mut self) {
            self.m.timeout.next = self.timeout.val();
            self.expired.next = (self.elapsed.val() & self.m.mask.val()).any();
        }
    }
    nicgen_sim::impl_ports!(TimeoutMaskTop, clock = clock, [clock, timeout, elapsed, expired]);
}

/// The timer's mask test against the compare it replaces: for every timeout code, elapsed times
/// at, around and far from the limit (4.096 µs × 2^code = 1024 << code cycles, at most 2^31 for
/// the 32-bit time base) are expired exactly when elapsed ≥ limit. On Verilator and in lock step
/// with rust-hdl.
#[test]
fn timeout_mask_is_the_limit_compare() {
    use timeout_mask_top::TimeoutMaskTop;
    let mut rng = nicgen_sim::Rng::new(3);
    let mut cases: Vec<(u64, u64)> = vec![];
    for t in 1..32u64 {
        let limit = (1024u64 << t).min(1 << 31);
        for el in [0, 1, limit - 1, limit, limit + 1, 2 * limit - 1, (1 << 32) - 1, limit / 2] {
            cases.push((t, el & 0xFFFF_FFFF));
        }
        for _ in 0..40 {
            cases.push((t, rng.next_u64() & 0xFFFF_FFFF >> rng.below(32)));
        }
    }
    let run = |sim: &mut dyn CycleSim| {
        let (t, e, x) = (sim.port("timeout"), sim.port("elapsed"), sim.port("expired"));
        for &(to, el) in &cases {
            sim.set_u64(t, to);
            sim.set_u64(e, el);
            sim.eval();
            let limit = (1024u64 << to).min(1 << 31);
            assert_eq!(sim.get_bit(x), el >= limit, "timeout {to} elapsed {el}");
            sim.tick();
        }
    };
    run(&mut verilate(&mut TimeoutMaskTop::default()));
    run(&mut Diff::new(verilate(&mut TimeoutMaskTop::default()), RustHdlSim::new(TimeoutMaskTop::default())));
}

/// RNR NAK (IBA 9.7.5.2.8, as rxe answers a SEND that finds no RECV): the messages before its
/// PSN complete; nothing is sent again until the NAK's RNR timer has run (code 1, 0.01 ms: the
/// requester waits 4.096 µs × 2^2, 4,096 cycles, even with no ACK timer); then the rest are
/// replayed from the NAK's PSN, using an RNR retry and no timeout retry. With `rnr_retry` 2,
/// the third RNR NAK for the same SEND fails it with `RNR retry exceeded` and flushes the rest.
#[test]
fn rnr_naks_wait_their_timer_and_run_out_of_retries() {
    rnr_trace(&mut verilate(&mut RoceRequester500::default()));
}

/// The same trace in lock step with rust-hdl's simulation.
#[test]
fn rnr_trace_lock_step() {
    rnr_trace(&mut Diff::new(verilate(&mut RoceRequester500::default()), RustHdlSim::new(RoceRequester500::default())));
}

fn rnr_trace<S: CycleSim>(sim: &mut S) {
    sim.reset(2);
    let r = sim.port("ctl_rnr_retry");
    sim.set_u64(r, 2);
    reset_qp_timeout(sim, 5, 0);
    let sends: Vec<SentWrFields> = (1..=3).map(|k| w(k, wr_op::SEND, 5, 9 + k, 9 + k, true)).collect();
    let mut out = Out::default();
    run(sim, &sends, &[], &mut out, 1);
    let rnr = |psn: u32| resp(op::ACK, 5, psn, syndrome_rnr(1), 0);
    // between runs nothing takes the replay or error queues (what comes waits for the next run)
    let idle = |sim: &mut S, n: usize| {
        for n in ["rtx_ready", "err_ready"] {
            let p = sim.port(n);
            sim.set_bit(p, false);
        }
        for _ in 0..n {
            sim.eval();
            sim.tick();
        }
    };
    run(sim, &[], &[rnr(11)], &mut out, 2);
    assert_eq!(out.cq, vec![ok(1, 5, wr_op::SEND)], "the SEND before the NAK's PSN completes");
    assert_eq!(counter(sim, "rnr_naks"), 1);
    for round in 0..2 {
        idle(sim, 2500);
        run(sim, &[], &[], &mut out, 3 + 10 * round);
        assert!(out.rtx.is_empty(), "round {round}: sent again before the RNR timer ran: {:?}", out.rtx);
        idle(sim, 2500);
        run(sim, &[], &[], &mut out, 4 + 10 * round);
        let replay: Vec<(u32, u32, bool)> = out.rtx.iter().map(|x| (x.wr_id, x.start_psn, x.last)).collect();
        assert_eq!(replay, vec![(2, 11, false), (3, 12, true)], "round {round}");
        out.rtx.clear();
        run(sim, &[], &[rnr(11)], &mut out, 6 + round);
    }
    idle(sim, 5000);
    run(sim, &[], &[], &mut out, 9);
    assert!(out.rtx.is_empty());
    assert_eq!(counter(sim, "timeouts"), 0, "RNR waits are not timeouts");
    assert_eq!(out.cq, vec![
        ok(1, 5, wr_op::SEND),
        CqEntryFields { status: cq_status::RNR_RETRY_EXCEEDED, ..ok(2, 5, wr_op::SEND) },
        CqEntryFields { status: cq_status::FLUSHED, ..ok(3, 5, wr_op::SEND) },
    ]);
    assert_eq!(out.err, vec![5]);
}

fn syndrome_rnr(code: u8) -> u8 {
    nicgen_hw::roce::qp::syndrome::RNR_NAK | code
}
