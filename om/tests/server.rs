//! The server scenario under Verilator: the OM programs EM0 and the EMs behind its relay while
//! they carry traffic, crashes with a batch in flight and restarts from its store, and isolates
//! a faulty EM while the others carry on.
use nicgen_om::server::*;

#[test]
fn om_crash_restart_and_a_faulty_em() {
    let dir = std::env::temp_dir().join(format!("nicgen-server-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = ServerOpts { ems: 3, hop: 100, faulty: Some(3), crash: true, frames: 200, store: dir.join("om.json"), seed: 3 };
    let r = run_server(&o).unwrap();
    r.print(&o);
    assert_eq!(r.isolated, vec![3], "the faulty EM is isolated, and only it");
    // every live EM forwarded every frame (EM0's TCP SYN toward the RDMA peer missed before the
    // slow path installed the peer; its RDMA data then passed), through the crash
    for (id, sent, out) in &r.frames {
        match id {
            3 => assert_eq!(*out, 0, "the faulty EM has no tables"),
            0 => assert_eq!(*out, sent - 1, "EM0: all but the SYN"),
            _ => assert_eq!(out, sent, "EM {id}: zero loss"),
        }
    }
    // the endpoint's own counters: no malformed or stale message anywhere, every batch applied
    for (id, c) in &r.counters {
        assert_eq!(c[3], 0, "EM {id}: no stale epoch after the restart");
        assert!((6..12).all(|i| c[i] == 0), "EM {id}: no malformed message");
        assert!(c[1] >= 2, "EM {id}: profile and tables applied");
        assert_eq!(c[16] as usize, r.frames.iter().find(|f| f.0 == *id).unwrap().1, "EM {id}: the datapath parsed every frame");
    }
    // EM0 relayed what the others received (less the telemetry read each answered after EM0's
    // counters were read), plus the one message the faulty EM never answered
    let others: u64 = r.counters.iter().skip(1).map(|c| c.1[0] - 1).sum();
    assert_eq!(r.counters[0].1[4], others + 1, "EM0 relayed every message for the others");
    assert!(r.first_epoch_after_restart > r.epoch_before_crash);
    assert!(r.entries_checked > 40, "the tables were read back: {}", r.entries_checked);
    let lat = |what: &str, em: u8| r.latencies.iter().find(|l| l.what.starts_with(what) && l.em == em).unwrap().cycles;
    let (w0, w1, t0, t1) = (lat("table write", 0), lat("table write", 1), lat("telemetry read", 0), lat("telemetry read", 1));
    // every answer crosses the PCIe model twice per hop; a relay hop adds two crossings, seen
    // on the reads (a write's own time depends on the traffic in flight at its EM: the bank
    // swap waits for the headers before their gates)
    assert!(w0 > 2 * o.hop && w1 > 4 * o.hop && t0 > 2 * o.hop, "the crossings: {w0}, {w1}, {t0}");
    assert!(t1 > t0 + 2 * o.hop, "a relay hop costs two more crossings ({t0} vs {t1})");
    assert!(!r.visible.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}
