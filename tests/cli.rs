//! The `nicgen` command line, run as a user would.
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_sim::frames::random_roce_frame;
use nicgen_sim::Rng;
use std::process::Command;

fn nicgen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nicgen"))
}

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nicgen-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn pcap_check_reports_bad_frames_and_exit_code() {
    let dir = tmpdir("pcap");
    let mut rng = Rng::new(8);
    let mut caps: Vec<Captured> = (0..40).map(|i| Captured { ts_ns: 1000 * i, data: random_roce_frame(&mut rng, 3000) }).collect();
    // an ARP frame: not RoCE, not judged
    caps.push(Captured { ts_ns: 99_000, data: { let mut a = rng.bytes(60); a[12] = 8; a[13] = 6; a } });
    let good = dir.join("good.pcap");
    write_pcap(&good, &caps).unwrap();
    let out = nicgen().args(["pcap", "check"]).arg(&good).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("41 frames, 40 roce, 0 bad"), "{text}");
    // corrupt two frames: one payload bit, one ICRC byte
    let n = caps[7].data.len();
    caps[7].data[n - 10] ^= 2;
    let n = caps[20].data.len();
    caps[20].data[n - 1] ^= 0x80;
    let bad = dir.join("bad.pcap");
    write_pcap(&bad, &caps).unwrap();
    let out = nicgen().args(["pcap", "check"]).arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("41 frames, 40 roce, 2 bad"), "{text}");
    for f in [8, 21] {
        let line = text.lines().find(|l| l.starts_with(&format!("frame {f}:"))).unwrap_or_else(|| panic!("no line for frame {f}: {text}"));
        assert!(line.contains("expected ICRC 0x") && line.contains("found 0x") && line.contains("qpn") && line.contains("psn"), "{line}");
        assert!(line.contains("[model and hardware]"), "{line}");
    }
    // the same capture as PCAPNG (what tshark and Wireshark write), converted by editcap
    let ng = dir.join("bad.pcapng");
    let conv = Command::new("editcap").args(["-F", "pcapng"]).arg(&bad).arg(&ng).output().expect("editcap (run scripts/setup.sh)");
    assert!(conv.status.success(), "{}", String::from_utf8_lossy(&conv.stderr));
    let out = nicgen().args(["pcap", "check"]).arg(&ng).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("41 frames, 40 roce, 2 bad") && text.contains("frame 8:") && text.contains("frame 21:"), "{text}");
    // a file that is not a PCAP names the file
    let junk = dir.join("junk.pcap");
    std::fs::write(&junk, b"not a capture").unwrap();
    let out = nicgen().args(["pcap", "check"]).arg(&junk).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk.pcap"));
}

#[test]
fn verilog_then_lint_is_clean() {
    let dir = tmpdir("gen");
    let out = nicgen().args(["verilog", "--out"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["icrc_check/icrc_check.v", "icrc_check/icrc_check_core.v", "icrc_check/icrc_check.f", "icrc_check/regmap.json", "icrc_check/regmap.h", "tops.json"] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let map: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("icrc_check/regmap.json")).unwrap()).unwrap();
    assert_eq!(map["registers"][2]["name"], "cnt_bad_icrc");
    assert_eq!(map["registers"][2]["offset"], 8);
    let wrapper = std::fs::read_to_string(dir.join("icrc_check/icrc_check.v")).unwrap();
    assert!(wrapper.contains("input  wire [511:0] s_axis_tdata") && !wrapper.contains("$tdata,\n"));
    let out = nicgen().args(["lint", "--dir"]).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("lint clean"), "{text}");
}

/// The bench in its smallest form: every group runs, `bench.json` parses with the rows the table
/// shows, goodput stays under the 100G payload ceiling, and the plots are written as PNG and SVG.
#[test]
fn bench_smoke_writes_table_json_and_plots() {
    let dir = tmpdir("bench");
    let out = nicgen().args(["bench", "--smoke", "--out"]).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("bench.json")).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let groups: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["group"].as_str().unwrap()).collect();
    assert_eq!(groups.into_iter().collect::<Vec<_>>(), ["bidir", "fig4-latency", "fig4-throughput", "fig5-qps", "loss", "small-64B"]);
    for r in rows {
        let g = r["goodput_gbps"].as_f64().unwrap();
        let dirs = if r["group"] == "bidir" { 2.0 } else { 1.0 };
        assert!(g > 0.0 && g <= 12.26 * dirs, "{r}");
        // bidirectional rows share a link direction between two posting sides by priority
        // (READ responses before requests), so only the others are checked for fairness
        if r["group"] != "bidir" && r["group"] != "loss" {
            assert!(r["jain"].as_f64().is_some_and(|j| j > 0.9), "{r}");
        }
    }
    // the loss sweep: lossless first, then losses that cost retransmissions and goodput
    let loss: Vec<&serde_json::Value> = rows.iter().filter(|r| r["group"] == "loss").collect();
    assert_eq!(loss.iter().map(|r| r["loss_pct"].as_f64().unwrap()).collect::<Vec<_>>(), [0.0, 0.1, 1.0, 5.0]);
    assert_eq!(loss[0]["retransmits"], 0);
    assert!(loss[3]["retransmits"].as_u64().unwrap() > 0, "{}", loss[3]);
    assert!(loss[3]["pct_of_lossless"].as_f64().unwrap() < 100.0, "{}", loss[3]);
    assert_eq!(v["settings"]["pcie_read_latency_ns"], 1000);
    let blocks = v["blocks"].as_array().unwrap();
    assert!(blocks.iter().any(|b| b["block"] == "icrc_check" && b["ii"].as_f64().unwrap() == 1.0));
    assert!(blocks.iter().any(|b| b["block"] == "roce_tx_build" && b["ii"].as_f64().unwrap() < 1.05));
    // the 1024-bit EM parser: a beat per cycle at 4 KiB, a one-beat frame per cycle at 64 B
    let ii = |name: &str| blocks.iter().find(|b| b["block"] == name).unwrap_or_else(|| panic!("{name}"))["ii"].as_f64().unwrap();
    assert_eq!((ii("em_parse 1024"), ii("em_parse 1024 64 B")), (1.0, 1.0));
    // the encapsulation: a beat per cycle at 4 KiB, a frame per cycle at 64 B (1024 bits: one
    // beat each; the inserter starts the next header as the last beat leaves)
    assert!(ii("em_vxlan_encap 1024") < 1.005 && ii("em_vxlan_encap") < 1.005, "{} {}", ii("em_vxlan_encap 1024"), ii("em_vxlan_encap"));
    assert_eq!(ii("em_vxlan_encap 1024 64 B"), 1.0);
    // the whole EM: overlay 64-byte frames leave at one per two cycles (their 110 bytes are two
    // beats at 512 bits); NAT's at more than 200 Mpps
    let em = v["em"].as_array().unwrap();
    let mpps = |mode: &str, frame: u64, dir: &str| em.iter().find(|r| r["width"] == 512 && r["mode"] == mode && r["frame"] == frame && r["direction"] == dir).unwrap()["mpps"].as_f64().unwrap();
    assert!(mpps("overlay", 60, "host to wire") > 124.0, "{}", mpps("overlay", 60, "host to wire"));
    assert!(mpps("nat", 60, "host to wire") > 200.0);
    assert_eq!((ii("em_nat_path 1024"), ii("em_nat_path 1024 64 B")), (1.0, 1.0));
    // the sniffer keeps every record of one direction of 4 KiB frames at line rate, and the
    // headers of both directions; whole 64-byte frames outrun the capture stream (counted)
    let sn = v["sniffer"].as_array().unwrap();
    let pct = |frame: u64, snap: u64, dirs: u64| sn.iter().find(|x| x["frame"] == frame && x["snap"] == snap && x["directions"] == dirs).unwrap()["pct"].as_f64().unwrap();
    assert_eq!(pct(4154, 65535, 1), 100.0);
    assert_eq!(pct(4154, 64, 2), 100.0);
    assert!(pct(60, 65535, 2) < 100.0);
    assert!(std::fs::read_to_string(dir.join("bench.md")).unwrap().contains("| READ | 32768 |"));
    for p in ["throughput", "latency", "qp_share", "loss"] {
        for ext in ["png", "svg"] {
            let f = dir.join(format!("{p}.{ext}"));
            assert!(std::fs::metadata(&f).map(|m| m.len() > 1000).unwrap_or(false), "{} missing", f.display());
        }
    }
}

/// `nicgen report` synthesizes with Yosys and prints the table beside the published figures: the
/// ICRC engine and a RoCE top (the RX parser, which holds no QP state) in CI.
#[test]
fn report_prints_resources_beside_balboa() {
    let out = nicgen().args(["report", "--top", "icrc_gen", "--top", "roce_rx_parse", "--top", "cdc_sync_bits", "--deeper-than", "3"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let row = |name: &str| -> Vec<String> { text.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| panic!("no {name} row:\n{text}")).split_whitespace().map(|s| s.to_string()).collect() };
    let icrc = row("icrc_gen");
    let luts: u64 = icrc[1].parse().unwrap();
    let levels: u64 = icrc[6].parse().unwrap();
    assert!(luts > 500 && levels > 0, "{text}");
    // the LUT column counts LUT sites used as memory too: the generator's beat delay line maps
    // to shift registers (SRL16E), one LUT each
    let lutmem: u64 = icrc[7].parse().unwrap();
    assert!(lutmem > 500 && lutmem < luts, "{text}");
    assert_eq!(row("cdc_sync_bits")[2], "16", "two flops per bit: {text}");
    let parse: u64 = row("roce_rx_parse")[1].parse().unwrap();
    assert!(parse > 100, "{text}");
    assert!(row("total").len() >= 7);
    assert_eq!(row("BALBOA")[2], "43732", "{text}");
    assert!(text.contains("Yosys estimates"));
    // --deeper-than: the path ends past 3 levels, grouped by the registers they run between,
    // deepest first; the deepest group is the top's level count
    let head = text.lines().position(|l| l.starts_with("icrc_gen: ") && l.contains("path ends deeper than 3")).unwrap_or_else(|| panic!("no path-end list:\n{text}"));
    let ends: u64 = text.lines().nth(head).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(ends > 0, "{text}");
    let groups: Vec<&str> = text.lines().skip(head + 1).take_while(|l| l.starts_with("  ")).collect();
    assert!(!groups.is_empty(), "{text}");
    let depth = |g: &str| -> u64 { g.split_whitespace().next().unwrap().parse().unwrap() };
    assert_eq!(depth(groups[0]), levels, "{text}");
    assert!(groups.iter().all(|g| depth(g) > 3 && g.contains(" -> ")), "{text}");
    assert_eq!(groups.iter().map(|g| g.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap()).sum::<u64>(), ends, "{text}");
    let bad = nicgen().args(["report", "--top", "no_such_top"]).output().unwrap();
    assert!(!bad.status.success());
}
