//! Gate-level check: the block is synthesized by Yosys for UltraScale+ (`synth_xilinx -family
//! xcup`) and the netlist, with Yosys's Xilinx cell models, runs under Verilator in lock step
//! with the RTL: the same input vectors each cycle (recorded by the Recorder, which also writes
//! them as a self-checking testbench), and every output compared in every cycle. Simulation and
//! synthesis must agree. (iverilog replays the recorded testbench on the RTL in the harness
//! tests; on these netlists it takes about 5 s per cycle, so Verilator runs them, built without
//! C++ optimization.)
mod common;
use common::*;
use nicgen_hw::crc::icrc::IcrcGen;
use nicgen_hw::roce::rx::parse::RoceRxParse;
use nicgen_hw::stream::skid::AxisSkid512;
use nicgen_sim::axis::{AxisDriver, AxisFrame, AxisMonitor, StreamBench};
use nicgen_sim::*;
use rust_hdl::prelude::Block;
use std::path::Path;
use std::process::Command;

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nicgen-gl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Synthesize `top.v` (module `top`) in `dir` to `net.v` with Xilinx cells.
///
/// - `-nosrl`: Yosys 0.23's SRL inference turns the ICRC core's enabled beat registers
///   (`core.b` → `core.fix$2.beat`) into SRL16E cells with CE tied to 1, and that netlist
///   drops a beat under backpressure (cycle 16 of the run below, under iverilog and Verilator
///   alike). Every `synth_xilinx` step before `map_luts` simulates equal to the RTL, and so
///   does the whole flow with `-nosrl`. Vivado infers its own shift registers.
/// - `opt_clean -purge`: drops the alias assignments between internal wire names that
///   `write_verilog` otherwise emits (some circular, with x bits); Verilator mis-orders them
///   (UNOPTFLAT) and the ICRC netlist then differed at cycle 27, where iverilog agreed.
/// - `splitnets`: every multi-bit netlist wire becomes single bits. Without it Verilator sees
///   word-level loops where bits of one vector feed others (`assign {s_data[390], ...} =
///   {..., s_data[218:211], ...}`, UNOPTFLAT) and the RX parser's netlist differed from the
///   RTL in cycle 3, while Yosys `sat` proved its header extractor equal to the RTL and iverilog
///   agreed with the RTL on 20,000 random headers.
fn synthesize(dir: &Path) -> String {
    let script = "read_verilog top.v; synth_xilinx -family xcup -flatten -nosrl -top top; splitnets; opt_clean -purge; tee -q -o stat.txt stat; write_verilog -noattr net.v";
    let out = Command::new("yosys").current_dir(dir).args(["-q", "-p", script]).output().unwrap();
    assert!(out.status.success(), "yosys: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(dir.join("stat.txt")).unwrap()
}

fn cells() -> std::path::PathBuf {
    let share = Command::new("yosys-config").arg("--datdir").output().ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_else(|| "/usr/share/yosys".into());
    Path::new(&share).join("xilinx").join("cells_sim.v")
}

/// Synthesize, then drive the RTL (recorded) and the netlist in lock step; then, with `mutant`,
/// show the check can fail: a netlist with one LUT's function changed is caught (a second
/// Verilator build of the netlist: the skid buffer's, which builds in seconds, where the ICRC
/// generator's took 150 s).
fn gate_level<T: Block>(name: &str, make: impl Fn() -> T, mutant: bool, drive: impl Fn(&mut Diff<Recorder<VerilatorSim>, VerilatorSim>)) {
    let mut uut = make();
    let dir = tmpdir(name);
    uut.connect_all();
    std::fs::write(dir.join("top.v"), verilog_named(&uut, "top")).unwrap();
    let stat = synthesize(&dir);
    assert!(stat.contains("LUT") && stat.contains("FD"), "{name}: not mapped to Xilinx cells:\n{stat}");
    let netlist = std::fs::read_to_string(dir.join("net.v")).unwrap();
    assert!(netlist.contains("LUT6") || netlist.contains("LUT5"), "{name}: the netlist has no LUTs");
    let lib = std::fs::read_to_string(cells()).unwrap();
    let mut opts = VerilatorOptions::from_env();
    opts.quick = true;
    let ports = top_ports(&uut);
    let run = |net: &str| {
        let gl = VerilatorSim::build(&format!("{net}\n{lib}"), "top", ports.clone(), "clock", &opts).unwrap();
        let mut d = Diff::new(Recorder::new(verilate(&mut make())), gl);
        drive(&mut d);
        d
    };
    let d = run(&netlist);
    let cycles = d.cycle();
    assert!(cycles > 300, "{name}: only {cycles} cycles");
    let tb = d.a.write_testbench(&dir, "top").unwrap();
    assert!(tb.exists());
    if !mutant {
        return;
    }
    // a mutant: the first LUT's INIT inverted must be caught by the comparison
    let at = netlist.find(".INIT(").expect("a LUT INIT");
    let end = at + netlist[at..].find(')').unwrap();
    let init = &netlist[at + 6..end];
    let (w, hex) = init.split_once("'h").unwrap();
    let bits: u32 = w.parse().unwrap();
    let v = u64::from_str_radix(hex, 16).unwrap() ^ (if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 });
    let mutant = format!("{}{}'h{:x}{}", &netlist[..at + 6], w, v, &netlist[end..]);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(&mutant);
    }));
    assert!(caught.is_err(), "{name}: a netlist with an inverted LUT went unnoticed");
}

/// The ICRC generator: random RoCEv2 frames, every tkeep residue of the last beat, random
/// valid gaps and ready backpressure.
#[test]
fn icrc_generator_netlist_matches_simulation() {
    gate_level("icrc_gen", IcrcGen::default, false, |rec| {
        let mut rng = Rng::new(21);
        let mut frames: Vec<AxisFrame> = (0..64)
            .map(|i| {
                let f = nicgen_sim::frames::random_roce_frame(&mut rng, 60 + i * 7);
                AxisFrame::new(f[..f.len() - 4].to_vec())
            })
            .collect();
        for _ in 0..8 {
            let n = rng.range(1, 130) as usize;
            frames.push(AxisFrame::new(rng.bytes(n)));
        }
        let (out, _) = pass_through(rec, &frames, 70, 60, 4);
        assert_eq!(out.len(), frames.len());
    });
}

/// A header stage: the RoCEv2 RX parser (header channel beside the payload), with random
/// backpressure on both outputs.
#[test]
fn rx_parser_netlist_matches_simulation() {
    gate_level("roce_rx_parse", RoceRxParse::default, false, |rec| {
        rec.reset(2);
        let mut rng = Rng::new(22);
        let mut d = AxisDriver::new(rec, "s_axis", 75, 5);
        for i in 0..48 {
            let f = nicgen_sim::frames::random_roce_frame(&mut rng, 40 + i * 31);
            d.push(AxisFrame::new(f));
        }
        d.push(AxisFrame::new(rng.bytes(90))); // not RoCE: dropped and counted
        let m = AxisMonitor::new(rec, "m_axis", 65, 6);
        let hr = rec.port("hdr_ready");
        let mut b = StreamBench::new(vec![d], vec![m]);
        let mut hdrs = 0;
        let hv = rec.port("hdr_valid");
        let mut hrng = Rng::new(23);
        for _ in 0..200_000 {
            if hdrs == 48 && b.drivers[0].idle() {
                break;
            }
            let r = hrng.chance(70);
            b.step_with(rec, |s| {
                s.set_bit(hr, r);
                s.eval();
                if r && s.get_bit(hv) {
                    hdrs += 1;
                }
                false
            });
        }
        rec.set_bit(hr, true);
        b.drain(rec, 30, 200_000);
        assert_eq!(hdrs, 48);
    });
}

/// The comparison can fail: the skid buffer's netlist passes, and the same netlist with its first
/// LUT's function inverted is caught (random frames, every `tkeep` residue of the last beat,
/// random valid gaps and ready backpressure).
#[test]
fn a_netlist_with_an_inverted_lut_is_caught() {
    gate_level("axis_skid", AxisSkid512::default, true, |rec| {
        let mut rng = Rng::new(24);
        let frames: Vec<AxisFrame> = (1..=72).map(|n| AxisFrame::new(rng.bytes(n * 3))).collect();
        let (out, _) = pass_through(rec, &frames, 70, 60, 4);
        assert_eq!(out, frames);
    });
}
