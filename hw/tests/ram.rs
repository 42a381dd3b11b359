//! RAM wrappers on Verilator against a reference model, in lock step against rust-hdl, and
//! inferred as BRAM/URAM by Yosys.
use nicgen_hw::stream::*;
use rust_hdl::prelude::Block;
use nicgen_sim::*;
use std::collections::HashMap;

/// Random writes and reads; checks synchronous read-first behaviour and the read latency.
fn ram_tb<S: CycleSim>(sim: &mut S, abits: u32, wbits: u32, latency: usize, cycles: usize, seed: u64) {
    ram_tb_with(sim, abits, wbits, latency, cycles, seed, false)
}

/// [`ram_tb`]; with `fw`, write-first reads (a read of the address written in the same cycle
/// returns the new word), reads enabled on 70% of cycles, and the read word held in between.
fn ram_tb_with<S: CycleSim>(sim: &mut S, abits: u32, wbits: u32, latency: usize, cycles: usize, seed: u64, fw: bool) {
    let mut rng = Rng::new(seed);
    let (wa, wd, we, ra, re, oce, rd) = (sim.port("waddr"), sim.port("wdata"), sim.port("we"), sim.port("raddr"), sim.port("re"), sim.port("oce"), sim.port("rdata"));
    let mut mem: HashMap<u64, u64> = HashMap::new();
    let mask = if wbits >= 64 { u64::MAX } else { (1 << wbits) - 1 };
    let mut pipe: Vec<Option<u64>> = vec![None; latency];
    let depth = 1u64 << abits;
    let mut held = 0u64;
    let (mut fwd, mut held_checked) = (0, 0);
    for _ in 0..cycles {
        let a = rng.below(16.min(depth)); // a small window, so reads hit recent writes
        let w = rng.chance(50);
        let v = rng.next_u64() & mask;
        let r = rng.below(16.min(depth));
        sim.set_u64(wa, a);
        sim.set(wd, &[v as u32, (v >> 32) as u32, 0]);
        sim.set_bit(we, w);
        sim.set_u64(ra, r);
        let rd_en = !fw || rng.chance(70);
        sim.set_bit(re, rd_en);
        sim.set_bit(oce, true);
        sim.eval();
        if let Some(exp) = pipe[0] {
            let got = sim.get_words(rd);
            assert_eq!(got[0] as u64 | (got[1] as u64) << 32, exp, "read data at cycle {}", sim.cycle());
        }
        // read-first: the read sees the value before this cycle's write (write-first with `fw`);
        // without a read the output holds
        let old = *mem.get(&r).unwrap_or(&0);
        let word = if !rd_en {
            held_checked += 1;
            held
        } else if fw && w && a == r {
            fwd += 1;
            v
        } else {
            old
        };
        held = word;
        pipe.remove(0);
        pipe.push(Some(word));
        if w {
            mem.insert(a, v);
        }
        sim.tick();
    }
    if fw {
        assert!(fwd > cycles / 100 && held_checked > cycles / 10, "forwarded {fwd}, held {held_checked}");
    }
}

#[test]
fn bram_and_uram_on_verilator_and_in_lock_step() {
    for out_reg in [false, true] {
        let mut v = verilate(&mut Ram::<64, 9>::new(RamStyle::Block, out_reg));
        ram_tb(&mut v, 9, 64, 1 + out_reg as usize, 20_000, 1);
        let mut d = Diff::new(verilate(&mut Ram::<64, 9>::new(RamStyle::Block, out_reg)), RustHdlSim::new(Ram::<64, 9>::new(RamStyle::Block, out_reg)));
        ram_tb(&mut d, 9, 64, 1 + out_reg as usize, 2_000, 2);
        let mut u = verilate(&mut Ram::<72, 12>::new(RamStyle::Ultra, out_reg));
        ram_tb(&mut u, 12, 64, 1 + out_reg as usize, 20_000, 3);
    }
}

#[test]
fn write_first_rams_forward_and_hold() {
    let mut v = verilate(&mut Ram::<64, 9>::new_forwarding(RamStyle::Block));
    ram_tb_with(&mut v, 9, 64, 1, 20_000, 4, true);
    let mut d = Diff::new(verilate(&mut Ram::<64, 9>::new_forwarding(RamStyle::Block)), RustHdlSim::new(Ram::<64, 9>::new_forwarding(RamStyle::Block)));
    ram_tb_with(&mut d, 9, 64, 1, 2_000, 5, true);
    let mut u = verilate(&mut Ram::<72, 12>::new_forwarding(RamStyle::Ultra));
    ram_tb_with(&mut u, 12, 64, 1, 20_000, 6, true);
    // the bypass register sits beside the RAM, which Yosys still infers
    let mut b = Ram::<64, 9>::new_forwarding(RamStyle::Block);
    b.connect_all();
    let s = yosys_cells(&verilog_named(&b, "bram_fw"), "bram_fw");
    assert!(s.contains("RAMB18E2") || s.contains("RAMB36E2"), "no block RAM:\n{s}");
}

fn yosys_cells(v: &str, top: &str) -> String {
    let dir = std::env::temp_dir().join(format!("nicgen-ram-{}-{top}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("top.v"), v).unwrap();
    let out = std::process::Command::new("yosys")
        .current_dir(&dir)
        .args(["-q", "-p", &format!("read_verilog top.v; synth_xilinx -family xcup -top {top}; tee -q -o stat.txt stat")])
        .output()
        .expect("yosys (run scripts/setup.sh)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(dir.join("stat.txt")).unwrap()
}

#[test]
fn yosys_infers_bram_and_uram() {
    let mut b = Ram::<64, 9>::new(RamStyle::Block, true);
    b.connect_all();
    let s = yosys_cells(&verilog_named(&b, "bram"), "bram");
    assert!(s.contains("RAMB18E2") || s.contains("RAMB36E2"), "no block RAM:\n{s}");
    let mut u = Ram::<72, 12>::new(RamStyle::Ultra, true);
    u.connect_all();
    let s = yosys_cells(&verilog_named(&u, "uram"), "uram");
    assert!(s.contains("URAM288"), "no UltraRAM:\n{s}");
}
