//! `nicgen report`: Yosys `synth_xilinx -family xcup` resources and logic depth.
use anyhow::{bail, Context, Result};
use nicgen_hw::top::all_tops;
use std::process::Command;

pub struct Resources {
    pub luts: u64,
    pub ffs: u64,
    pub bram18: u64,
    pub uram: u64,
    pub dsp: u64,
    pub depth: u64,
}

fn count(stat: &str, prefixes: &[&str]) -> u64 {
    stat.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() == 2 && prefixes.iter().any(|p| w[0].starts_with(p)) {
                w[1].parse::<u64>().ok()
            } else {
                None
            }
        })
        .sum()
}

/// LUT levels: the most LUTs on any combinational path between registers, RAMs and ports, from
/// a Yosys JSON netlist. Paths run through MUXF7/8/9 and CARRY cells, which are not counted
/// (they are the in-slice wide-mux and carry logic, a fraction of a LUT delay each).
pub fn logic_depth(module: &serde_json::Value) -> u64 {
    use std::collections::HashMap;
    let comb = |t: &str| t.starts_with("LUT") || t.starts_with("MUXF") || t.starts_with("CARRY");
    let cells = module["cells"].as_object().cloned().unwrap_or_default();
    let mut names = vec![];
    let mut driver: HashMap<u64, usize> = HashMap::new();
    let mut inputs: Vec<Vec<u64>> = vec![];
    for (_, c) in cells.iter() {
        let t = c["type"].as_str().unwrap_or("");
        if !comb(t) {
            continue;
        }
        let idx = names.len();
        names.push(t.to_string());
        let mut ins = vec![];
        if let (Some(conns), Some(dirs)) = (c["connections"].as_object(), c["port_directions"].as_object()) {
            for (port, bits) in conns {
                for b in bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()) {
                    if dirs.get(port).and_then(|d| d.as_str()) == Some("output") {
                        driver.insert(b, idx);
                    } else {
                        ins.push(b);
                    }
                }
            }
        }
        inputs.push(ins);
    }
    let mut memo: Vec<Option<u64>> = vec![None; names.len()];
    let weight: Vec<u64> = names.iter().map(|t| t.starts_with("LUT") as u64).collect();
    #[allow(clippy::too_many_arguments)]
    fn visit(i: usize, inputs: &[Vec<u64>], driver: &std::collections::HashMap<u64, usize>, memo: &mut Vec<Option<u64>>, guard: &mut Vec<bool>, weight: &[u64]) -> u64 {
        if let Some(d) = memo[i] {
            return d;
        }
        if guard[i] {
            return 0; // a combinational loop: counted once
        }
        guard[i] = true;
        let mut best = 0;
        for b in &inputs[i] {
            if let Some(&j) = driver.get(b) {
                best = best.max(visit(j, inputs, driver, memo, guard, weight));
            }
        }
        guard[i] = false;
        let d = best + weight[i];
        memo[i] = Some(d);
        d
    }
    let mut guard = vec![false; names.len()];
    (0..names.len()).map(|i| visit(i, &inputs, &driver, &mut memo, &mut guard, &weight)).max().unwrap_or(0)
}

/// Synthesize `verilog` (top module `top`) for UltraScale+ and count cells and logic depth.
pub fn synth(name: &str, verilog: &str, top: &str) -> Result<Resources> {
    let dir = std::env::temp_dir().join(format!("nicgen-report-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("top.v"), verilog)?;
    let script = format!("read_verilog top.v; synth_xilinx -family xcup -flatten -top {top}; tee -q -o stat.txt stat; write_json net.json");
    let out = Command::new("yosys").current_dir(&dir).args(["-q", "-p", &script]).output().context("running yosys")?;
    if !out.status.success() {
        bail!("yosys failed on {name}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let stat = std::fs::read_to_string(dir.join("stat.txt"))?;
    let net: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("net.json"))?)?;
    let depth = logic_depth(&net["modules"][top]);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Resources {
        luts: count(&stat, &["LUT"]),
        ffs: count(&stat, &["FD"]),
        bram18: count(&stat, &["RAMB18"]) + 2 * count(&stat, &["RAMB36"]),
        uram: count(&stat, &["URAM"]),
        dsp: count(&stat, &["DSP"]),
        depth,
    })
}

/// Published figures for comparison (BALBOA, OSDI 2026, Table: base transport; Limago).
pub const BALBOA_BASE: (u64, u64, f64) = (43_732, 102_988, 101.0);
pub const LIMAGO: (u64, f64) = (72_974, 78.0);

/// The table for `only` (every top when empty), with a total row and the published figures.
pub fn run(only: &[String]) -> Result<()> {
    println!("{:<16} {:>8} {:>8} {:>8} {:>5} {:>4} {:>6}", "top", "LUT", "FF", "RAMB36", "URAM", "DSP", "levels");
    let mut total = Resources { luts: 0, ffs: 0, bram18: 0, uram: 0, dsp: 0, depth: 0 };
    let mut n = 0;
    for t in all_tops() {
        if !only.is_empty() && !only.iter().any(|o| o == t.name) {
            continue;
        }
        let core = format!("{}_core", t.name);
        let r = synth(t.name, &t.verilog, &core)?;
        println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6}", t.name, r.luts, r.ffs, r.bram18 as f64 / 2.0, r.uram, r.dsp, r.depth);
        total.luts += r.luts;
        total.ffs += r.ffs;
        total.bram18 += r.bram18;
        total.uram += r.uram;
        total.dsp += r.dsp;
        total.depth = total.depth.max(r.depth);
        n += 1;
    }
    if n == 0 {
        bail!("no top named {:?} (see gen/tops.json)", only);
    }
    println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6}", format!("total ({n})"), total.luts, total.ffs, total.bram18 as f64 / 2.0, total.uram, total.dsp, total.depth);
    println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6}", "BALBOA base", BALBOA_BASE.0, BALBOA_BASE.1, BALBOA_BASE.2, "-", "-", "-");
    println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6}", "Limago", "-", LIMAGO.0, LIMAGO.1, "-", "-", "-");
    println!("(ours: Yosys estimates, synth_xilinx -family xcup -flatten, not Vivado; LUT includes SRL/LUTRAM; RAMB36 = RAMB36 + RAMB18/2; levels = LUT levels on the worst register-to-register path, MUXF and CARRY cells not counted; total levels = the deepest. The total sums the tops listed, and tops that contain others count those twice: compare roce_engine alone with BALBOA's base transport. BALBOA and Limago: Vivado, published.)");
    Ok(())
}
