//! The harness itself: Recorder testbenches replayed under iverilog, VCD tracing, the lock-step
//! back end catching a real difference, and parallel builds of one design.
mod common;
use common::*;
use nicgen_hw::crc::icrc::IcrcGen;
use nicgen_hw::stream::*;
use nicgen_sim::recorder::run_iverilog;
use nicgen_sim::*;
use rust_hdl::prelude::Block;

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nicgen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Record a Verilator run of the ICRC generator, write a self-checking testbench, replay it
/// under iverilog: it passes. Then corrupt one expected value: it fails.
#[test]
fn recorder_testbench_replays_under_iverilog() {
    let dir = tmpdir("recorder");
    let mut uut = IcrcGen::default();
    uut.connect_all();
    let design = verilog_named(&uut, "top");
    std::fs::write(dir.join("top.v"), &design).unwrap();
    let mut rec = Recorder::new(verilate(&mut IcrcGen::default()));
    let mut rng = Rng::new(5);
    let frames: Vec<_> = (0..6)
        .map(|_| {
            let f = nicgen_sim::frames::random_roce_frame(&mut rng, 400);
            nicgen_sim::axis::AxisFrame::new(f[..f.len() - 4].to_vec())
        })
        .collect();
    let (out, _) = pass_through(&mut rec, &frames, 70, 60, 3);
    assert_eq!(out.len(), 6);
    let tb = rec.write_testbench(&dir, "top").unwrap();
    let text = run_iverilog(&dir, &tb, &dir.join("top.v")).unwrap();
    assert!(text.contains(&format!("PASS {} cycles", rec.cycles())), "{text}");
    // the testbench can fail: flip one bit of one recorded row and replay
    let hex_path = dir.join("tb_top.hex");
    let hex = std::fs::read_to_string(&hex_path).unwrap();
    let mut lines: Vec<String> = hex.lines().map(|s| s.to_string()).collect();
    let row = lines.len() / 2;
    let last = lines[row].pop().unwrap();
    let flipped = std::char::from_digit(last.to_digit(16).unwrap() ^ 1, 16).unwrap();
    lines[row].push(flipped);
    std::fs::write(&hex_path, lines.join("\n") + "\n").unwrap();
    let err = run_iverilog(&dir, &tb, &dir.join("top.v")).unwrap_err().to_string();
    assert!(err.contains("FAIL"), "{err}");
}

#[test]
fn vcd_trace_is_written() {
    let dir = tmpdir("trace");
    let vcd = dir.join("skid.vcd");
    let mut uut = AxisSkid512::default();
    uut.connect_all();
    let v = verilog_named(&uut, "top");
    let mut opts = VerilatorOptions::from_env();
    opts.trace = Some(vcd.clone());
    let mut sim = VerilatorSim::build(&v, "top", top_ports(&uut), "clock", &opts).unwrap();
    let frames = random_frames(&mut Rng::new(1), &[100, 200], 0);
    let (out, _) = pass_through(&mut sim, &frames, 80, 80, 1);
    assert_eq!(out, frames);
    drop(sim);
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.contains("$enddefinitions") && text.contains("tvalid"), "not a VCD of the design");
    assert!(text.matches('#').count() > 10, "too few time steps");
}

/// Two designs with the same ports but different latency: lock step must fail, naming the port.
#[test]
#[should_panic(expected = "lock step: output rdata differs")]
fn lock_step_catches_a_difference() {
    let a = verilate(&mut Ram::<64, 9>::new(RamStyle::Block, false));
    let b = RustHdlSim::new(Ram::<64, 9>::new(RamStyle::Block, true));
    let mut d = Diff::new(a, b);
    let (wa, wd, we, ra, re, oce) = (d.port("waddr"), d.port("wdata"), d.port("we"), d.port("raddr"), d.port("re"), d.port("oce"));
    for i in 0..10u64 {
        d.set_u64(wa, i);
        d.set_u64(wd, 100 + i);
        d.set_bit(we, true);
        d.set_u64(ra, i.saturating_sub(1));
        d.set_bit(re, true);
        d.set_bit(oce, true);
        d.eval();
        d.tick();
    }
}

/// Several threads verilating the same new design at once share one cached build: one thread
/// builds it while the others wait on its lock and then load it.
#[test]
fn parallel_builds_share_the_cache() {
    let cache = tmpdir("cache");
    let handles: Vec<_> = (0..3)
        .map(|t| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                let mut uut = AxisStrip::default();
                uut.connect_all();
                let v = verilog_named(&uut, "top");
                let opts = VerilatorOptions { trace: None, cache, quick: false };
                let mut sim = VerilatorSim::build(&v, "top", top_ports(&uut), "clock", &opts).unwrap();
                let frames = random_frames(&mut Rng::new(t), &[70, 130], 0);
                let sl = sim.port("strip_len");
                sim.set_u64(sl, 0);
                let (out, _) = pass_through(&mut sim, &frames, 90, 90, t);
                assert_eq!(out, frames);
                sim.build.cached
            })
        })
        .collect();
    let cached: Vec<bool> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(cached.iter().filter(|c| !**c).count(), 1, "one build, the others from the cache: {cached:?}");
    let builds: Vec<_> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(builds.iter().filter(|n| n.starts_with("top-") && !n.ends_with(".lock")).count(), 1, "{builds:?}");
    assert!(builds.iter().all(|n| !n.starts_with("tmp-")), "{builds:?}");
}
