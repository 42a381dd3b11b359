//! Two engines under Verilator, joined by the 100G link model: RDMA WRITE and READ of random
//! sizes (1 B to 1 MiB, not multiples of 4 or of the PMTU) over 1, 8 and 64 QPs, interleaved,
//! with random backpressure on the host DMA streams; every destination byte is checked against
//! its source, every frame on the link against scapy (ICRC) and tshark (fields), and the
//! 4096-QP engine runs the same scenario.
use nicgen_hw::service::aes_ctr::AES_LATENCY;
use nicgen_hw::service::dlrm::DLRM_LATENCY;
use nicgen_scenario::rdma::*;
use nicgen_model::*;
use nicgen_sim::host::DmaParams;
use nicgen_sim::oracle::*;

fn check(o: RdmaOpts) -> RdmaReport {
    let r = rdma(&o).unwrap();
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.mismatches, 0);
    r
}

/// Random backpressure on every host DMA handshake (15% of cycles), with enough bandwidth on
/// average to absorb line rate: below that the RX buffer overflows and drops (counted), which
/// only retransmission (the reliability issue) recovers.
fn busy_host() -> DmaParams {
    DmaParams { rd_latency: 250, bytes_per_cycle: 64.0, ready_pct: 85 }
}

#[test]
fn random_sizes_over_1_8_64_qps_with_host_backpressure() {
    check(RdmaOpts { op: Op::Mixed, size: 1 << 20, count: 6, qps: 1, seed: 11, random_size: true, dma: busy_host(), ..Default::default() });
    check(RdmaOpts { op: Op::Mixed, size: 70_000, count: 40, qps: 8, seed: 12, random_size: true, pmtu: 2, dma: busy_host(), ..Default::default() });
    // 512 B packets: at 256 B the READ responses of 64 QPs arrive back to back, faster than the
    // RX path takes 256 B packets, and the overflow drops are recovered only by retransmission
    check(RdmaOpts { op: Op::Mixed, size: 9000, count: 200, qps: 64, seed: 13, random_size: true, pmtu: 1, dma: busy_host(), ..Default::default() });
}

#[test]
fn every_frame_passes_scapy_and_tshark() {
    let dir = std::env::temp_dir().join(format!("nicgen-rdma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("link.pcap");
    check(RdmaOpts { op: Op::Mixed, size: 6000, count: 30, qps: 3, seed: 5, pmtu: 1, random_size: true, pcap: Some(path.clone()), ..Default::default() });
    let frames: Vec<Vec<u8>> = pcap::read_pcap(&path).unwrap().into_iter().map(|c| c.data).collect();
    assert!(frames.len() > 60);
    for (i, v) in scapy_check(&frames).unwrap().iter().enumerate() {
        assert_eq!(*v, ScapyVerdict::Ok, "frame {i}");
    }
    let fields = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn"];
    let rows = tshark_fields(&path, &fields).unwrap();
    assert_eq!(rows.len(), frames.len());
    let num = |s: &str| -> u64 { if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16).unwrap() } else { s.parse().unwrap() } };
    for (f, r) in frames.iter().zip(&rows) {
        let p = parse(f).unwrap();
        let b = p.hdr.bth;
        assert_eq!((num(&r[0]), num(&r[1]), num(&r[2]), num(&r[3])), (b.opcode as u64, b.dqpn as u64, b.psn as u64, b.ackreq as u64), "{r:?}");
        match p.hdr.reth {
            Some(x) => assert_eq!((num(&r[4]), num(&r[5]), num(&r[6])), (x.va, x.rkey as u64, x.dma_len as u64)),
            None => assert!(r[4].is_empty()),
        }
        match p.hdr.aeth {
            Some(x) => assert_eq!((num(&r[7]), num(&r[8])), (x.syndrome as u64, x.msn as u64)),
            None => assert!(r[7].is_empty()),
        }
    }
}

#[test]
fn tables_of_4096_qps_carry_traffic() {
    check(RdmaOpts { op: Op::Mixed, size: 5000, count: 24, qps: 6, seed: 3, random_size: true, table_qps: 4096, ..Default::default() });
}

/// AES-CTR in both payload slots ([`AES_LATENCY`] cycles each) and an 11-cycle parallel tap:
/// 32 KiB WRITEs and READs, encrypted on the wire and decrypted at the destination, take the same
/// cycles as the engine without services (no slots, no tap), plus at most the added latency once for a
/// WRITE run and twice the round trip for a READ run (not per packet), so they stay at line rate; every byte lands as plaintext, every
/// WRITE packet on the wire is the reference's ciphertext, and no slot ever overruns.
#[test]
fn aes_service_slots_keep_line_rate() {
    for (op, seed) in [(Op::Write, 21), (Op::Read, 22)] {
        let o = RdmaOpts { op, size: 32768, count: 96, qps: 8, seed, ..Default::default() };
        let base = check(o.clone());
        let dir = std::env::temp_dir().join(format!("nicgen-aes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("aes-{op:?}.pcap"));
        // the WRITE run also has the sniffer at A's MAC, whose records the scenario checks
        // against the link model's frames
        let sniff = (op == Op::Write).then(|| SniffOpts { path: dir.join("aes-sniff.pcapng"), snap: 0xffff, filter: Default::default() });
        let r = check(RdmaOpts { aes: true, pcap: Some(path.clone()), sniff: sniff.clone(), ..o });
        if let Some(s) = &sniff {
            // tshark reads the sniffer's PCAPNG: every WRITE packet left A's TX, every ACK
            // reached its RX; the frames are the link's (checked by the scenario), so the
            // payload on the wire is ciphertext there too
            let rows = tshark_fields(&s.path, &["frame.interface_name", "infiniband.bth.opcode"]).unwrap();
            assert_eq!(rows.len(), r.sniffed[0] + r.sniffed[1]);
            let writes = rows.iter().filter(|x| x[0] == "tx" && ["6", "7", "8", "10"].contains(&x[1].as_str())).count();
            assert_eq!(writes, 96 * 8, "WRITE packets in the sniffer's capture");
            assert!(rows.iter().any(|x| x[0] == "rx" && x[1] == "17"), "ACKs in the sniffer's capture");
            assert_eq!(r.sniff_lost, 0);
        }
        // the capture: scapy finds every ICRC right (it covers the ciphertext); the scenario
        // found no 16-byte piece of any message's plaintext in any data packet on the wire
        let frames: Vec<Vec<u8>> = pcap::read_pcap(&path).unwrap().into_iter().map(|c| c.data).collect();
        for (i, v) in scapy_check(&frames).unwrap().iter().enumerate() {
            assert_eq!(*v, ScapyVerdict::Ok, "{op:?}: frame {i}");
        }
        let data_frames = frames.iter().filter(|f| parse(f).unwrap().payload.len() >= 16).count();
        assert_eq!(data_frames, 96 * 8, "{op:?}: data packets in the capture");
        assert!(r.aes_pieces_checked >= 96 * 32768 / 16, "{op:?}: {} payload pieces checked", r.aes_pieces_checked);
        let extra = r.cycles as i64 - base.cycles as i64;
        // the data's path gains two slots and a tap (and DLRM, unbound, after AES in the RX
        // slot); a READ's request also crosses a tap, and its window is reopened by its
        // responses, so a READ run can meet the round trip twice
        let one_way = 2 * (AES_LATENCY as i64 - 1) + DLRM_LATENCY as i64 + 10;
        let added = if op == Op::Write { one_way } else { 2 * (one_way + 10) };
        assert!((0..=added + 8).contains(&extra), "{op:?}: {} cycles with AES slots, {} without services", r.cycles, base.cycles);
        assert!(r.ceiling_frac >= 0.985, "{op:?}: {:.4} of the ceiling", r.ceiling_frac);
        let get = |n: &str| r.counters.iter().find(|c| c.0 == n).map(|c| (c.1, c.2)).unwrap();
        assert_eq!(get("slot_overrun"), (0, 0));
        assert_eq!(get("rx_tap_drop"), (0, 0));
        assert_eq!(get("rx_drop_overflow"), (0, 0));
        if op == Op::Write {
            assert_eq!(r.aes_checked, 96 * 8, "every WRITE packet checked on the wire");
        }
    }
}

/// Goodput counts verified bytes only; tshark, dissecting the capture on its own, finds the same
/// number of payload bytes in the unique data packets (WRITE requests and READ responses, one
/// per source, QP and PSN) that reached the wire.
#[test]
fn goodput_bytes_match_tsharks_count_of_the_wire() {
    let dir = std::env::temp_dir().join(format!("nicgen-goodput-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("link.pcap");
    let r = check(RdmaOpts { op: Op::Mixed, size: 20_000, count: 40, qps: 4, seed: 9, random_size: true, pcap: Some(path.clone()), ..Default::default() });
    let rows = tshark_fields(&path, &["ip.src", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "udp.length", "infiniband.bth.padcnt"]).unwrap();
    let num = |s: &str| -> u64 { if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16).unwrap() } else { s.parse().unwrap() } };
    let mut seen = std::collections::HashSet::new();
    let mut bytes = 0u64;
    for row in &rows {
        let ext = match num(&row[1]) {
            0x06 | 0x0a => 16,
            0x07 | 0x08 | 0x0e => 0,
            0x0d | 0x0f | 0x10 => 4,
            _ => continue,
        };
        if seen.insert((row[0].clone(), num(&row[2]), num(&row[3]))) {
            bytes += num(&row[4]) - 8 - 12 - ext - num(&row[5]) - 4;
        }
    }
    assert_eq!(bytes, r.bytes, "tshark's payload count vs the verified bytes");
}

/// Bidirectional traffic: both nodes post at once over the same QP pairs, random mixes, WRITE
/// against WRITE (data both ways) and A's READs against B's WRITEs (both carry data B→A, where
/// B's TX puts READ responses before its own requests); every byte lands, and every link
/// direction that carries data runs near line rate.
#[test]
fn both_nodes_post_at_once() {
    check(RdmaOpts { op: Op::Mixed, b_op: Some(Op::Mixed), size: 12_000, count: 60, qps: 5, seed: 31, random_size: true, dma: busy_host(), ..Default::default() });
    for (a, b) in [(Op::Write, Op::Write), (Op::Read, Op::Write)] {
        let r = check(RdmaOpts { op: a, b_op: Some(b), size: 32768, count: 64, qps: 4, seed: 32, ..Default::default() });
        assert!(r.ceiling_frac > 0.95, "{a:?}/{b:?}: {:.4} of the ceiling of the directions with data", r.ceiling_frac);
    }
}

/// SEND into the RECVs the receiving node posts (16 per QP at most, reposted as they complete):
/// every byte lands at its RECV's buffer, every RECV completes once, in order, with its SEND's
/// length; SENDs run near line rate one way, and both nodes sending at once fill both ways.
#[test]
fn sends_fill_the_peers_recvs_at_line_rate() {
    let r = check(RdmaOpts { op: Op::Send, size: 32768, count: 64, qps: 4, seed: 34, ..Default::default() });
    assert_eq!(r.recv_completions, 64);
    assert!(r.ceiling_frac > 0.95, "SEND: {:.4} of the ceiling", r.ceiling_frac);
    let r = check(RdmaOpts { op: Op::Send, b_op: Some(Op::Send), size: 32768, count: 64, qps: 4, seed: 35, ..Default::default() });
    assert_eq!(r.recv_completions, 128);
    assert!(r.ceiling_frac > 0.95, "SEND both ways: {:.4} of the ceiling", r.ceiling_frac);
    // every operation, random sizes (RECVs up to 64 bytes longer than their SENDs), 8 QPs, a
    // busy host, both nodes posting (this seed deadlocked the DMA write mux before it waited
    // for a write's data)
    let r = check(RdmaOpts { op: Op::MixedAll, b_op: Some(Op::MixedAll), size: 20_000, count: 120, qps: 8, seed: 36, random_size: true, pmtu: 2, dma: busy_host(), ..Default::default() });
    assert!(r.recv_completions > 40, "{} receive completions", r.recv_completions);
}

/// DLRM preprocessing in A's RX slot (the services engine: AES then DLRM on RX): A's RDMA READ
/// data and B's WRITEs into A are transformed before their DMA write, each 32-bit lane as the
/// model says (the model is checked against Rust's `ln_1p`, float comparison and `%` in
/// `service_dlrm`); A's WRITEs into B arrive unchanged. Random sizes give partial last lanes.
#[test]
fn dlrm_slot_transforms_data_arriving_at_its_qps() {
    use nicgen_model::dlrm::op;
    for (k, (o, m)) in [(op::NEG2ZERO_LOG, 0), (op::MODULUS, 1_000_003)].into_iter().enumerate() {
        let r = check(RdmaOpts { op: Op::Read, b_op: Some(Op::Write), size: 9000, random_size: true, count: 24, qps: 4, seed: 40 + k as u64, dlrm: Some((o, m)), ..Default::default() });
        assert!(r.dlrm_lanes > 24 * 500, "{} lanes checked", r.dlrm_lanes);
        // random bits: positive values below 2^-24 (a fifth of all) keep their value under the
        // logarithm; a random id below M is its own remainder
        assert!(r.dlrm_changed * 10 > r.dlrm_lanes * 7, "{} of {} lanes changed", r.dlrm_changed, r.dlrm_lanes);
    }
}

/// DPI on A's parallel tap (the services engine), against the Rust model's verdict for every
/// frame that reached A. Flag: every READ response of the chosen classes is counted and still
/// placed, so every byte arrives, and a READ's completion carries the tap flag exactly when
/// one of its responses was flagged. Drop: the dropped responses never reach the requester, which
/// retries and gives up (`retry exceeded`, then the QP's other work is flushed); responses
/// without a payload beat to classify pass, and every WR still completes.
#[test]
fn dpi_tap_flags_and_drops_by_qp_policy() {
    use nicgen_model::dpi::verdict;
    // QPs 0 and 1 flag, 2 and 3 pass: their responses interleave on the link, and each READ
    // completion's tap flag must be its own responses' (checked in the scenario)
    let r = check(RdmaOpts { op: Op::Read, size: 9000, random_size: true, count: 24, qps: 4, seed: 50, dpi: Some((verdict::FLAG, 0xf)), dpi_qps: 2, ..Default::default() });
    assert!(r.dpi_flagged >= 10 && r.dpi_dropped == 0, "{} flagged of {}", r.dpi_flagged, r.dpi_frames);
    assert!(r.dpi_cq_checked && (6..=12).contains(&r.dpi_cq_flagged), "{} of 24 READ completions flagged", r.dpi_cq_flagged);
    let o = RdmaOpts { op: Op::Read, size: 9000, random_size: true, count: 16, qps: 4, seed: 51, dpi: Some((verdict::DROP, 0xf)), timeout: 1, retry_cnt: 1, ..Default::default() };
    let r = rdma(&o).unwrap();
    assert!(!r.errors.iter().any(|e| e.starts_with("DPI")), "{:#?}", r.errors);
    assert!(r.dpi_dropped >= 4, "{} dropped of {}", r.dpi_dropped, r.dpi_frames);
    assert_eq!(r.by_status.iter().sum::<u64>(), o.count as u64, "every WR completes");
    assert!(r.by_status[nicgen_hw::roce::cq_status::RETRY_EXCEEDED as usize] >= 1, "{:?}", r.by_status);
    // the READs that completed successfully hold every byte
    assert!(r.mismatches as u64 <= o.count as u64 - r.by_status[0], "{} mismatches, {:?}", r.mismatches, r.by_status);
}

/// The 64 B WRITE message rate over 32 QPs (issue goal: 60 M messages/s at 250 MHz), in cycles,
/// which are deterministic: 4000 messages, every byte checked, at most 4.17 cycles per message
/// over the whole run (first post to last completion, so the first message's round trip counts).
#[test]
fn small_writes_reach_60_m_messages_per_second() {
    let r = check(RdmaOpts { op: Op::Write, size: 64, count: 4000, qps: 32, seed: 1, ..Default::default() });
    let per_msg = r.cycles as f64 / r.messages as f64;
    assert!(per_msg <= 250.0 / 60.0, "{per_msg:.3} cycles per message ({:.1} M/s)", 250.0 / per_msg);
}

/// The responder queues one pending READ per QP of its table: 200 QPs each post a 32 KiB READ
/// at once, and every request waits for its responses without a drop. (With the former 64-entry
/// queue the responder stalled, and the RX buffer dropped requests at line rate until their
/// retransmission: 167 of 498 in the same run over 498 QPs.)
#[test]
fn every_qp_may_have_a_read_pending() {
    let r = check(RdmaOpts { op: Op::Read, size: 32768, count: 200, qps: 200, seed: 21, ..Default::default() });
    for n in ["rx_drop_overflow", "tx_retransmits", "req_timeouts", "resp_duplicate"] {
        assert_eq!(r.counter(n), (0, 0), "{n}");
    }
    assert!(r.ceiling_frac > 0.99, "{:.4} of the ceiling", r.ceiling_frac);
}

/// The two engines evaluated on two threads give the same run, cycle for cycle, as one thread:
/// the same link capture (every frame, with its cycle time stamp), completion times and counters.
#[test]
fn two_threads_give_the_same_run_as_one() {
    let dir = std::env::temp_dir().join(format!("nicgen-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runs = vec![];
    for threads in [false, true] {
        let pcap = dir.join(format!("t{}.pcap", threads as u8));
        let r = check(RdmaOpts { op: Op::Mixed, b_op: Some(Op::Write), size: 20_000, count: 24, qps: 6, seed: 31, random_size: true, pmtu: 2, dma: busy_host(), pcap: Some(pcap.clone()), threads: Some(threads), ..Default::default() });
        runs.push((r, std::fs::read(&pcap).unwrap()));
    }
    let ((r1, p1), (r2, p2)) = (&runs[0], &runs[1]);
    assert!(p1.len() > 50_000);
    assert!(p1 == p2, "the captures differ");
    assert_eq!((r1.cycles, r1.frames, r1.tx_latency, r1.rx_latency), (r2.cycles, r2.frames, r2.tx_latency, r2.rx_latency));
    assert_eq!(r1.per_qp_last, r2.per_qp_last);
    assert_eq!(r1.counters, r2.counters);
    assert_eq!((r1.lat_mean, r1.lat_p99), (r2.lat_mean, r2.lat_p99));
}

/// TX cut-through (`AxisCutFifo`, `TX_START` 16 beats): with 4 KiB packets a frame reaches the
/// wire once 16 of its beats are here, so the engine's latency from descriptor to first wire
/// beat is within the 64-cycle goal, where store and forward (`TX_START` 255) waits for all 66
/// beats. A host slower than the wire (8 GB/s) underruns: the frame is aborted on the wire
/// (counted by the sender and seen by the link model), `TX_START` doubles, and Go-Back-N resends
/// it; at most 3 aborts (16 → 33 → 67, at least a 4 KiB frame's 66 beats), every byte verified.
#[test]
fn tx_cut_through_latency_and_underrun_recovery() {
    let o = RdmaOpts { op: Op::Write, size: 32768, count: 16, qps: 2, seed: 21, ..Default::default() };
    let cut = check(o.clone());
    let sf = check(RdmaOpts { tx_start: Some(255), ..o.clone() });
    assert_eq!(cut.counter("tx_underruns"), (0, 0));
    assert!(cut.tx_latency <= 64, "descriptor → wire {} cycles with cut-through", cut.tx_latency);
    assert!(sf.tx_latency >= cut.tx_latency + 50, "store and forward {} vs cut-through {}", sf.tx_latency, cut.tx_latency);
    let slow = check(RdmaOpts { dma: DmaParams { rd_latency: 250, bytes_per_cycle: 32.0, ready_pct: 100 }, timeout: 3, ..o });
    let (ua, ub) = slow.counter("tx_underruns");
    assert!((1..=3).contains(&ua) && ub == 0, "underruns A {ua}, B {ub}");
    // TX_START reads back as each abort left it: 16, then 2t + 1 per abort
    let want = (0..ua).fold(16u32, |t, _| (2 * t + 1).min(255));
    assert_eq!(slow.tx_start_after, [want, 16]);
    assert_eq!(cut.tx_start_after, [16, 16]);
    assert_eq!(sf.tx_start_after, [255, 255]);
    assert!(slow.counter("tx_retransmits").0 > 0);
}
