//! Reliability under faults, two engines under Verilator.
//!
//! * Scenarios after rxe's and roce-sim's error cases, each with a fault aimed at one frame
//!   and the exact packet trace that must follow, read back from the capture by tshark (an
//!   independent dissector): Go-Back-N after a sequence NAK (a partial WRITE retry), a lost ACK
//!   and the local ACK timeout, retry exceeded, a lost READ response (implied NAK and a
//!   duplicate READ answered again), ghost and duplicate ACKs, a coalesced ACK, PSN wrap-around,
//!   and a sequence-NAK retry below and at the retry limit. (The rkey violation is in
//!   `rdma_interop`: `fatal_nak_stops_the_qps_sending`.)
//! * Campaigns: tens of thousands of messages with random faults on both directions, every
//!   byte verified, every completion successful, no hang, and every corrupted or truncated
//!   frame counted by the receiver's checks (asserted inside the scenario).
use nicgen_hw::roce::cq_status;
use nicgen_scenario::rdma::*;
use nicgen_model::opcode as op;
use nicgen_sim::cardmem::CardParams;
use nicgen_sim::host::{Faults, Scripted};
use nicgen_sim::oracle::tshark_fields;

const P0: u32 = 0x40_0000;

fn ok(r: &RdmaReport) {
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.mismatches, 0);
}

fn counter(r: &RdmaReport, name: &str) -> (u64, u64) {
    assert!(r.counters.iter().any(|c| c.0 == name), "no counter {name}");
    r.counter(name)
}

/// Run `o` with a capture; the trace of each direction as tshark dissects it: "OPCODE psn" with
/// the PSN relative to the QPs' first PSN, and the AETH syndrome for ACK/NAK.
fn traced(o: RdmaOpts, name: &str) -> (RdmaReport, Vec<String>, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("nicgen-rel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.pcap"));
    let r = rdma(&RdmaOpts { pcap: Some(path.clone()), first_psn: Some(o.first_psn.unwrap_or(P0)), qps: 1, ..o.clone() }).unwrap();
    let base = o.first_psn.unwrap_or(P0);
    let rows = tshark_fields(&path, &["ip.src", "infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.aeth.syndrome"]).unwrap();
    let (mut ab, mut ba) = (vec![], vec![]);
    for row in rows {
        let num = |s: &str| -> u32 { if let Some(h) = s.strip_prefix("0x") { u32::from_str_radix(h, 16).unwrap() } else { s.parse().unwrap() } };
        let opc = num(&row[1]) as u8;
        let rel = num(&row[2]).wrapping_sub(base) & 0xff_ffff;
        let rel = if rel > 0x80_0000 { format!("-{}", 0x100_0000 - rel) } else { rel.to_string() };
        let n = match opc {
            op::WRITE_FIRST => "WF",
            op::WRITE_MIDDLE => "WM",
            op::WRITE_LAST => "WL",
            op::WRITE_ONLY => "WO",
            op::READ_REQUEST => "RQ",
            op::READ_RESP_FIRST => "RF",
            op::READ_RESP_MIDDLE => "RM",
            op::READ_RESP_LAST => "RL",
            op::READ_RESP_ONLY => "RO",
            op::ACK if num(&row[3]) == 0x1f => "ACK",
            op::ACK => "NAK",
            _ => "?",
        };
        let s = if n == "NAK" { format!("NAK{:x} {rel}", num(&row[3])) } else { format!("{n} {rel}") };
        if row[0] == "10.0.0.1" { ab.push(s) } else { ba.push(s) }
    }
    (r, ab, ba)
}

fn base(op: Op, size: usize, count: usize) -> RdmaOpts {
    // PMTU 1024; a short timeout (8.2 µs) so that timeout cases run quickly
    RdmaOpts { op, size, count, qps: 1, pmtu: 2, timeout: 1, outstanding: 0, seed: 7, ..Default::default() }
}

#[test]
fn sequence_nak_goes_back_n_from_the_lost_packet() {
    // two 4-packet WRITEs; the second packet is lost
    let (r, ab, ba) = traced(RdmaOpts { script: [vec![(1, Scripted::Drop)], vec![]], ..base(Op::Write, 4096, 2) }, "seq");
    ok(&r);
    // the responder NAKs the gap once (at the first packet after it), then drops silently until
    // the requester goes back to PSN 1: a partial WRITE retry, from a MIDDLE packet
    assert_eq!(ab, ["WF 0", "WM 1", "WM 2", "WL 3", "WF 4", "WM 5", "WM 6", "WL 7", "WM 1", "WM 2", "WL 3", "WF 4", "WM 5", "WM 6", "WL 7"]);
    assert_eq!(ba, ["NAK60 1", "ACK 3", "ACK 7"]);
    assert_eq!(counter(&r, "resp_naks"), (0, 1));
    assert_eq!(counter(&r, "resp_psn_out_of_window"), (0, 6));
    assert_eq!(counter(&r, "req_replays"), (1, 0));
    assert_eq!(counter(&r, "tx_retransmits"), (7, 0));
    // every payload went to the retransmission buffer once, and the replayed ones (packets 1 to
    // 7; the bytes of 1..=3 reach B only this way) came back from it
    assert_eq!(counter(&r, "tx_rb_writes"), (8, 0));
    assert_eq!(counter(&r, "tx_rb_reads"), (7, 0));
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 2);
}

#[test]
fn lost_ack_times_out_and_the_duplicate_is_acked_again() {
    let (r, ab, ba) = traced(RdmaOpts { script: [vec![], vec![(0, Scripted::Drop)]], ..base(Op::Write, 1000, 1) }, "tmo");
    ok(&r);
    assert_eq!(ab, ["WO 0", "WO 0"]);
    // the duplicate is not written again, but ACKed again with the PSN before the expected one
    assert_eq!(ba, ["ACK 0", "ACK 0"]);
    assert_eq!(counter(&r, "req_timeouts"), (1, 0));
    assert_eq!(counter(&r, "resp_duplicate"), (0, 1));
    assert_eq!(counter(&r, "resp_writes"), (0, 1));
    // 4.096 µs × 2^1 = 2048 cycles, plus one scan of the timers at most
    assert!(r.cycles > 2048 && r.cycles < 2048 + 1500, "{} cycles", r.cycles);
}

#[test]
fn retry_exceeded_after_the_retry_count() {
    // every request frame is lost: the original and two retries, then the QP fails
    let drop_all: Vec<(usize, Scripted)> = (0..20).map(|i| (i, Scripted::Drop)).collect();
    let (r, ab, ba) = traced(RdmaOpts { script: [drop_all, vec![]], retry_cnt: 2, ..base(Op::Write, 500, 3) }, "rex");
    assert_eq!(ab, ["WO 0", "WO 1", "WO 2", "WO 0", "WO 1", "WO 2", "WO 0", "WO 1", "WO 2"]);
    assert!(ba.is_empty());
    assert_eq!(counter(&r, "req_timeouts"), (3, 0));
    assert_eq!(r.by_status[cq_status::RETRY_EXCEEDED as usize], 1);
    assert_eq!(r.by_status[cq_status::FLUSHED as usize], 2);
}

#[test]
fn a_lost_read_response_is_an_implied_nak() {
    // a READ of 4 responses; the second response is lost
    let (r, ab, ba) = traced(RdmaOpts { script: [vec![], vec![(1, Scripted::Drop)]], ..base(Op::Read, 4096, 1) }, "rr");
    ok(&r);
    // the third response is ahead: the READ is asked again from PSN 1 (3 KiB from 1 KiB in);
    // the responder answers the duplicate again, as a new response run, from the copies of its
    // first answer in the retransmission buffer (all 4 copied, 3 read back)
    assert_eq!(ab, ["RQ 0", "RQ 1"]);
    assert_eq!(ba, ["RF 0", "RM 1", "RM 2", "RL 3", "RF 1", "RM 2", "RL 3"]);
    assert_eq!(counter(&r, "tx_rb_writes"), (0, 4));
    assert_eq!(counter(&r, "tx_rb_reads"), (0, 3));
    // both responses ahead are implied NAKs; one replay
    assert_eq!(counter(&r, "req_implied_nak"), (2, 0));
    assert_eq!(counter(&r, "req_replays"), (1, 0));
    assert_eq!(counter(&r, "resp_read_replays"), (0, 1));
    assert_eq!(counter(&r, "req_resp_unexpected"), (0, 0));
}

#[test]
fn ghost_and_duplicate_acks_are_ignored_and_counted() {
    // the first ACK arrives twice; the second is made a ghost (a PSN never sent)
    let (r, _, ba) = traced(RdmaOpts { script: [vec![], vec![(0, Scripted::Dup), (1, Scripted::SetPsn((P0 + 1000) & 0xff_ffff))]], ..base(Op::Write, 100, 3) }, "ghost");
    ok(&r);
    assert_eq!(ba, ["ACK 0", "ACK 1", "ACK 2"]);
    assert_eq!(counter(&r, "req_ack_duplicate"), (1, 0));
    assert_eq!(counter(&r, "req_ack_out_of_window"), (1, 0));
    // the third ACK covers the second message too (no timeout)
    assert_eq!(counter(&r, "req_timeouts"), (0, 0));
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 3);
}

#[test]
fn a_coalesced_ack_completes_several_messages() {
    let (r, ab, ba) = traced(RdmaOpts { script: [vec![], vec![(0, Scripted::Drop), (1, Scripted::Drop)]], ..base(Op::Write, 300, 4) }, "coal");
    ok(&r);
    assert_eq!(ab, ["WO 0", "WO 1", "WO 2", "WO 3"]);
    assert_eq!(ba, ["ACK 0", "ACK 1", "ACK 2", "ACK 3"]);
    assert_eq!(counter(&r, "req_acks"), (2, 0));
    assert_eq!(counter(&r, "req_timeouts"), (0, 0));
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 4);
}

#[test]
fn psn_wraps_at_2_24() {
    // PSNs 0xfffffe, 0xffffff, 0, 1; the packet with PSN 0 is lost
    let first = 0xff_fffe;
    let (r, ab, ba) = traced(RdmaOpts { first_psn: Some(first), script: [vec![(2, Scripted::Drop)], vec![]], ..base(Op::Write, 4096, 1) }, "wrap");
    ok(&r);
    assert_eq!(ab, ["WF 0", "WM 1", "WM 2", "WL 3", "WM 2", "WL 3"]);
    // PSN 0xffffff asks for an ACK (its low 3 bits are set: every 8 PSNs in a window of 16)
    assert_eq!(ba, ["ACK 1", "NAK60 2", "ACK 3"]);
}

/// AES-CTR end to end across the PSN wrap and under loss: WRITEs and READs from PSNs just before
/// 2^24 on four QPs, 2% of frames lost each way. Every destination holds the plaintext, and every
/// WRITE packet on the wire (retransmissions included, each the same ciphertext again) decrypts
/// with RustCrypto under the model's counter block to the destination's bytes.
#[test]
fn aes_across_the_psn_wrap_and_retransmissions() {
    let o = RdmaOpts { op: Op::Mixed, size: 6000, random_size: true, count: 240, qps: 4, pmtu: 2, timeout: 3, seed: 61, first_psn: Some(0xff_ffc0), faults: Faults { loss: 0.02, ..Default::default() }, aes: true, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 240);
    assert!(counter(&r, "tx_retransmits").0 > 0, "no retransmission happened");
    assert!(r.aes_checked > 300, "{} WRITE packets checked", r.aes_checked);
}

#[test]
fn sequence_nak_retry_below_and_at_the_retry_limit() {
    // one retry allowed: the NAK's retry uses it and succeeds
    let (r, ab, _) = traced(RdmaOpts { retry_cnt: 1, script: [vec![(1, Scripted::Drop)], vec![]], ..base(Op::Write, 2048, 2) }, "lim1");
    ok(&r);
    assert_eq!(ab, ["WF 0", "WL 1", "WF 2", "WL 3", "WL 1", "WF 2", "WL 3"]);
    // none allowed: the NAK is not acted on, the timer finds no retries left: retry exceeded
    let (r, ab, ba) = traced(RdmaOpts { retry_cnt: 0, script: [vec![(1, Scripted::Drop)], vec![]], ..base(Op::Write, 2048, 2) }, "lim0");
    assert_eq!(ab, ["WF 0", "WL 1", "WF 2", "WL 3"]);
    assert_eq!(ba, ["NAK60 1"]);
    assert_eq!(counter(&r, "req_replay_deferred"), (1, 0));
    assert_eq!(counter(&r, "req_timeouts"), (1, 0));
    assert_eq!(r.by_status[cq_status::RETRY_EXCEEDED as usize], 1);
    assert_eq!(r.by_status[cq_status::FLUSHED as usize], 1);
}

fn campaign(faults: Faults, count: usize, seed: u64, card: CardParams) -> RdmaReport {
    let o = RdmaOpts { op: Op::Mixed, size: 2048, random_size: true, count, qps: 8, pmtu: 2, timeout: 3, seed, faults, card, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], count as u64);
    r
}

/// 20,000 messages (READ and WRITE, 1 B to 2 KiB, 8 QPs) at 1% loss and 1% reordering on both
/// directions.
#[test]
fn campaign_1pct_loss_1pct_reorder() {
    let r = campaign(Faults { loss: 0.01, reorder: 0.01, reorder_bound: 2000, ..Default::default() }, 20_000, 41, CardParams::default());
    assert!(r.faults[0].lost > 100 && r.faults[0].reordered > 100, "{:?}", r.faults);
    assert!(counter(&r, "tx_retransmits").0 > 0);
}

/// Every operation (WRITE, READ and SEND into posted RECVs; 1 B to 2 KiB, 8 QPs) at 1% loss and
/// 1% reordering: every message and every RECV completes once, with every byte in place.
#[test]
fn campaign_every_op_1pct_loss_1pct_reorder() {
    let faults = Faults { loss: 0.01, reorder: 0.01, reorder_bound: 2000, ..Default::default() };
    let o = RdmaOpts { op: Op::MixedAll, size: 2048, random_size: true, count: 4000, qps: 8, pmtu: 2, timeout: 3, seed: 44, faults, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 4000);
    assert!(r.recv_completions > 1000, "{} receive completions", r.recv_completions);
    assert!(counter(&r, "tx_retransmits").0 > 0 && counter(&r, "resp_duplicate").1 > 0);
    assert_eq!(counter(&r, "resp_rnr_naks"), (0, 0), "RECVs are posted ahead of the SENDs");
}

/// SENDs that arrive before the receiver has posted any RECV (it posts after 20,000 cycles):
/// each is answered RNR NAK with the QP's timer (0.01 ms), the sender waits that long (16 µs)
/// and sends again, with no timeout and no retry spent, until the RECVs are there; then every
/// message and every RECV completes.
#[test]
fn sends_before_any_recv_are_rnr_naked_and_retried() {
    let o = RdmaOpts { op: Op::Send, size: 3000, count: 24, qps: 2, recv_delay: 20_000, seed: 45, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 24);
    assert_eq!(r.recv_completions, 24);
    let (sent, got) = (counter(&r, "resp_rnr_naks").1, counter(&r, "req_rnr_naks").0);
    assert!(sent > 0 && sent == got, "RNR NAKs sent by B {sent}, received by A {got}");
    assert_eq!(counter(&r, "req_timeouts"), (0, 0));
}

/// 20,000 messages at 5% loss on both directions.
#[test]
fn campaign_5pct_loss() {
    let r = campaign(Faults { loss: 0.05, ..Default::default() }, 20_000, 42, CardParams::default());
    assert!(r.faults[0].lost + r.faults[1].lost > 2000, "{:?}", r.faults);
}

/// One QP's path goes dark (every A→B frame of QP 0 is lost for 160,000 cycles): its window
/// fills, its requests are parked, and the other three QPs keep the line. Their aggregate
/// goodput up to their last completion is at least 95% of the 100G ceiling. QP 0 sends exactly
/// a window (16 packets) per attempt, and recovers by timeout once its path is back. (Its
/// timeout, 524 µs, is longer than the others' run: each of its retries would put another
/// window on the wire, about 4% of it at a 131 µs timeout.)
#[test]
fn a_stalled_window_does_not_slow_the_other_qps() {
    const DARK: u64 = 160_000;
    let o = RdmaOpts { op: Op::Write, size: 65536, count: 4 * 20, qps: 4, timeout: 7, stall_qp: Some((0, DARK)), seed: 9, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 80);
    let bytes: u64 = r.per_qp_bytes[1..].iter().sum();
    let last = *r.per_qp_last[1..].iter().max().unwrap();
    assert!(last < DARK, "the other QPs finished at cycle {last}, after QP 0's path came back");
    let frac = bytes as f64 / (last as f64 * 4.0) / payload_ceiling(4096);
    println!("the other QPs: {:.1}% of the ceiling", 100.0 * frac);
    assert!(frac >= 0.95, "the other QPs: {:.1}% of the ceiling", 100.0 * frac);
    assert!(r.per_qp_last[0] > DARK);
    let lost = r.faults[0].lost;
    assert!(lost >= 32 && lost % 16 == 0, "{lost} frames of QP 0 lost: not whole windows");
    // the first window, and one more per timeout while dark; the timeout after it succeeds
    assert_eq!(lost / 16, counter(&r, "req_timeouts").0);
}

/// Every kind of fault at once: burst loss, reordering, duplication, single-bit corruption and
/// truncation; the receivers' drop counters equal the corrupted and truncated frames.
#[test]
fn campaign_every_fault() {
    let f = Faults { loss: 0.005, burst: 0.005, reorder: 0.01, reorder_bound: 3000, dup: 0.01, corrupt: 0.01, truncate: 0.01 };
    // and the card memory pushes back on 25% of its address and write-data handshakes
    let r = campaign(f, 6000, 43, CardParams { ready_pct: 75, ..Default::default() });
    let c = r.faults[0];
    assert!(c.burst_lost > 0 && c.duplicated > 0 && c.corrupted > 0 && c.truncated > 0, "{c:?}");
    let bad = counter(&r, "rx_bad_icrc").1 + counter(&r, "rx_truncated").1 + counter(&r, "rx_bad_length").1 + counter(&r, "rx_not_roce").1;
    assert_eq!(bad, c.corrupted + c.truncated);
}

/// Runs `o` with 2% of the frames corrupted and 2% cut short each way, and checks the node that
/// receives direction `dir` (0 A→B, 1 B→A): every message completes, at least `cut_min` frames
/// were cut through, and each damaged frame was withdrawn or (its opcode itself damaged) stored
/// and dropped.
fn speculative_under_damage(mut o: RdmaOpts, dir: usize, cut_min: u64) {
    o.faults = Faults { corrupt: 0.02, truncate: 0.02, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], o.count as u64);
    let c = r.faults[dir];
    let rx = |name: &str| if dir == 0 { counter(&r, name).1 } else { counter(&r, name).0 };
    let (cut, cut_bad, stored_bad) = (rx("rx_cut_through"), rx("rx_cut_bad"), rx("rx_drop_bad"));
    println!("{} frames, {} corrupted, {} truncated; receiver: {cut} cut through, {cut_bad} withdrawn, {stored_bad} stored ones dropped", c.frames, c.corrupted, c.truncated);
    assert!(cut >= cut_min, "{cut} frames cut through, {cut_min} expected");
    // every damaged frame is withdrawn or dropped; besides those, only frames the RX buffer cut
    // short or dropped for lack of room (`rx_drop_overflow`, which also counts stored ones)
    let overflow = rx("rx_drop_overflow");
    println!("receiver: {overflow} frames cut short or dropped for lack of room");
    let damaged = c.corrupted + c.truncated;
    assert!(cut_bad > 0);
    assert!(cut_bad + stored_bad >= damaged && cut_bad + stored_bad <= damaged + overflow, "{cut_bad} + {stored_bad} withdrawn or dropped, {damaged} damaged, {overflow} overflows");
}

/// Speculative placement of WRITEs: 16 KiB WRITEs (PMTU 1024: FIRST, 14 MIDDLE, LAST) with every
/// WRITE packet cut through the RX buffer, with the default `RX_CUT` (5: FIRST held for its
/// verdict, MIDDLE and LAST placed before it) and with 3 (FIRST placed before it too). The
/// responder withdraws each bad cut-through frame (no state, ACK or completion; a placed one's
/// DMA write padded to its length, a held one's payload dropped), Go-Back-N sends it again over
/// whatever it placed, and every byte and completion checks out.
#[test]
fn speculative_placement_survives_corrupt_and_truncated_frames() {
    for (rx_cut, seed) in [(None, 44), (Some(3), 47)] {
        let o = RdmaOpts { op: Op::Write, size: 16384, count: 80, qps: 4, pmtu: 2, timeout: 3, seed, rx_cut, ..Default::default() };
        speculative_under_damage(o, 0, 80 * 16);
    }
}

/// Speculative placement of READ responses, with the default `RX_CUT`: 16 KiB READs (PMTU 1024,
/// 16 responses each), every response cut through the requester's RX buffer. The requester
/// places each response before its verdict, withdraws the bad ones (no state, completion or
/// count), the READ is retried over whatever they placed, and every byte checks out.
#[test]
fn speculative_read_responses_survive_corrupt_and_truncated_frames() {
    let o = RdmaOpts { op: Op::Read, size: 16384, count: 120, qps: 4, pmtu: 2, timeout: 3, seed: 46, ..Default::default() };
    speculative_under_damage(o, 1, 120 * 16);
}

/// A host slower than the wire (6 GB/s against 12.5): the RX buffer fills, cut-through frames
/// are ended early by the buffer (abort: withdrawn, their DMA writes padded) and stored ones
/// dropped whole; Go-Back-N recovers every message.
#[test]
fn a_slow_host_overflows_the_rx_buffer_and_go_back_n_recovers() {
    let dma = nicgen_sim::host::DmaParams { bytes_per_cycle: 24.0, ..Default::default() };
    let o = RdmaOpts { op: Op::Write, size: 65536, count: 32, qps: 4, timeout: 3, seed: 45, dma, ..Default::default() };
    let r = rdma(&o).unwrap();
    ok(&r);
    assert_eq!(r.by_status[cq_status::SUCCESS as usize], 32);
    let (ovf, cut_bad) = (counter(&r, "rx_drop_overflow").1, counter(&r, "rx_cut_bad").1);
    println!("B: {ovf} overflows, {cut_bad} cut-through frames withdrawn");
    assert!(ovf > 0 && cut_bad > 0);
}
