//! `nicgen report`: Yosys `synth_xilinx -family xcup` resources and logic depth.
use anyhow::{bail, Context, Result};
use nicgen_hw::top::all_tops;
use std::process::Command;

pub struct Resources {
    /// LUT sites, logic and memory.
    pub luts: u64,
    /// Of `luts`, the LUT sites used as memory (SRLs and LUT RAM).
    pub lutmem: u64,
    pub ffs: u64,
    pub bram18: u64,
    pub uram: u64,
    pub dsp: u64,
    pub depth: u64,
}

/// The cells of a `stat` listing (`type count` lines), each counted `weight(type)` times.
fn count_by(stat: &str, weight: impl Fn(&str) -> u64) -> u64 {
    stat.lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [cell, n] => n.parse::<u64>().ok().map(|n| n * weight(cell)),
            _ => None,
        })
        .sum()
}

/// 1 for a cell whose type starts with one of `prefixes`.
fn is(cell: &str, prefixes: &[&str]) -> u64 {
    prefixes.iter().any(|p| cell.starts_with(p)) as u64
}

/// LUT sites a cell takes: a LUT, an SRL (shift register) or a distributed RAM (LUT RAM), as
/// Vivado's "CLB LUTs" counts them (LUT as logic plus LUT as memory; UltraScale+ library: a
/// RAM32M16 is the eight LUTs of a SLICEM, a RAM32M or RAM64M four, and so on). 0 for others.
pub fn lut_sites(cell: &str) -> u64 {
    match cell {
        c if c.starts_with("LUT") => 1,
        "SRL16E" | "SRLC32E" | "SRLC16E" | "RAM32X1S" | "RAM64X1S" => 1,
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 2,
        "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => 4,
        "RAM32M16" | "RAM64M8" | "RAM256X1D" | "RAM512X1S" => 8,
        _ => 0,
    }
}

/// LUT levels: the most LUTs on any combinational path between registers, RAMs and ports, from
/// a Yosys JSON netlist. Paths run through MUXF7/8/9 and CARRY cells, which are not counted
/// (they are the in-slice wide-mux and carry logic, a fraction of a LUT delay each).
/// The deepest path's LUT count and its cells from start to end, each as `type src` (the
/// Verilog line Yosys kept for it), to find what to pipeline; and every path end deeper than
/// `over` levels.
pub fn deepest_path(module: &serde_json::Value, over: u64) -> (u64, Vec<String>, Vec<PathEnd>) {
    use std::collections::{HashMap, HashSet};
    let comb = |t: &str| t.starts_with("LUT") || t.starts_with("MUXF") || t.starts_with("CARRY");
    let cells = module["cells"].as_object().cloned().unwrap_or_default();
    // the designer's names of nets (Yosys keeps them where the net survived synthesis)
    let mut net_name: HashMap<u64, String> = HashMap::new();
    for (nm, n) in module["netnames"].as_object().into_iter().flatten() {
        if n["hide_name"].as_u64() == Some(1) {
            continue;
        }
        for (k, b) in n["bits"].as_array().into_iter().flatten().enumerate() {
            if let Some(b) = b.as_u64() {
                net_name.entry(b).or_insert_with(|| format!("{nm}[{k}]"));
            }
        }
    }
    let mut names = vec![];
    let mut driver: HashMap<u64, usize> = HashMap::new();
    let mut inputs: Vec<Vec<u64>> = vec![];
    for (_, c) in cells.iter() {
        let t = c["type"].as_str().unwrap_or("");
        if !comb(t) {
            continue;
        }
        let idx = names.len();
        let src = c["attributes"]["src"].as_str().unwrap_or("").split('|').find(|s| s.starts_with("top.v")).unwrap_or("");
        let mut ins = vec![];
        let mut outs = vec![];
        if let (Some(conns), Some(dirs)) = (c["connections"].as_object(), c["port_directions"].as_object()) {
            for (port, bits) in conns {
                for b in bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()) {
                    if dirs.get(port).and_then(|d| d.as_str()) == Some("output") {
                        driver.insert(b, idx);
                        outs.extend(net_name.get(&b).cloned());
                    } else {
                        ins.push(b);
                    }
                }
            }
        }
        names.push(format!("{t} {src} {}", outs.join(" ")));
        inputs.push(ins);
    }
    let weight: Vec<u64> = names.iter().map(|t| t.starts_with("LUT") as u64).collect();
    struct Walk<'a> {
        inputs: &'a [Vec<u64>],
        driver: &'a HashMap<u64, usize>,
        weight: &'a [u64],
        memo: Vec<Option<(u64, Option<usize>)>>,
        guard: Vec<bool>,
    }
    impl Walk<'_> {
        fn visit(&mut self, i: usize) -> u64 {
            if let Some((d, _)) = self.memo[i] {
                return d;
            }
            if self.guard[i] {
                return 0; // a combinational loop: counted once
            }
            self.guard[i] = true;
            let (mut best, mut from) = (0, None);
            for k in 0..self.inputs[i].len() {
                if let Some(&j) = self.driver.get(&self.inputs[i][k]) {
                    let d = self.visit(j);
                    if from.is_none() || d > best {
                        (best, from) = (d, Some(j));
                    }
                }
            }
            self.guard[i] = false;
            let d = best + self.weight[i];
            self.memo[i] = Some((d, from));
            d
        }
    }
    let n = names.len();
    let mut w = Walk { inputs: &inputs, driver: &driver, weight: &weight, memo: vec![None; n], guard: vec![false; n] };
    let Some((end, depth)) = (0..n).map(|i| (i, w.visit(i))).max_by_key(|&(_, d)| d) else {
        return (0, vec![], vec![]);
    };
    let trace = |w: &Walk, end: usize| {
        let mut path = vec![];
        let mut at = Some(end);
        while let Some(i) = at {
            path.push(i);
            at = w.memo[i].and_then(|(_, f)| f);
            if path.len() > n {
                break;
            }
        }
        path.reverse();
        path
    };
    let path = trace(&w, end).into_iter().map(|i| names[i].clone()).collect();
    if over == u64::MAX {
        return (depth, path, vec![]);
    }
    // every path end (a cell whose outputs no combinational cell reads) deeper than `over`
    let comb_reads: HashSet<u64> = inputs.iter().flatten().copied().collect();
    let mut read = vec![false; n];
    for (b, &j) in driver.iter() {
        if comb_reads.contains(b) {
            read[j] = true;
        }
    }
    // where a path ends: the register, RAM or port its last cell drives (named by that cell's
    // first named output net)
    let mut sink_of: HashMap<u64, String> = HashMap::new();
    for (cn, c) in cells.iter() {
        let t = c["type"].as_str().unwrap_or("");
        if comb(t) {
            continue;
        }
        let (Some(conns), Some(dirs)) = (c["connections"].as_object(), c["port_directions"].as_object()) else { continue };
        let is_out = |p: &String| dirs.get(p).and_then(|d| d.as_str()) == Some("output");
        let label = conns.iter().filter(|(p, _)| is_out(p)).flat_map(|(_, b)| b.as_array().cloned().unwrap_or_default()).filter_map(|b| b.as_u64()).find_map(|b| net_name.get(&b).map(|n| strip_index(n))).unwrap_or_else(|| format!("{t} {cn}"));
        for (_, bits) in conns.iter().filter(|(p, _)| !is_out(p)) {
            for b in bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()) {
                sink_of.entry(b).or_insert_with(|| label.clone());
            }
        }
    }
    let mut outs_of: Vec<Vec<u64>> = vec![vec![]; n];
    for (&b, &i) in driver.iter() {
        outs_of[i].push(b);
    }
    let end_of = |i: usize| -> String {
        outs_of[i].iter().find_map(|b| sink_of.get(b).cloned()).or_else(|| outs_of[i].iter().find_map(|b| net_name.get(b).map(|n| format!("port {}", strip_index(n))))).unwrap_or_default()
    };
    // where a path starts: the net a register, RAM or port drives into its first cell
    let start_of = |i: usize| -> String { inputs[i].iter().filter(|b| !driver.contains_key(b)).find_map(|b| net_name.get(b)).map(|n| strip_index(n)).unwrap_or_default() };
    let mut ends = vec![];
    for i in 0..n {
        let d = w.visit(i);
        if !read[i] && d > over {
            let p = trace(&w, i);
            ends.push(PathEnd { depth: d, first: names[p[0]].clone(), last: names[i].clone(), from: start_of(p[0]), to: end_of(i) });
        }
    }
    ends.sort_by_key(|e| std::cmp::Reverse(e.depth));
    (depth, path, ends)
}

/// A combinational path's end: its LUT levels and its first and last cells (`type src nets`).
pub struct PathEnd {
    pub depth: u64,
    pub first: String,
    pub last: String,
    /// The net (a register's, a RAM's or a port's, without its bit index) the path starts from.
    pub from: String,
    /// The register, RAM or port it ends in (named by that cell's output net).
    pub to: String,
}

/// A net name without its bit index (`h$q[5]` → `h$q`).
fn strip_index(n: &str) -> String {
    n.split('[').next().unwrap_or(n).to_string()
}

/// The module (of the emitted Verilog `verilog`) that line `line` is in.
fn module_at(verilog: &str, line: usize) -> String {
    let mut m = String::new();
    for (k, l) in verilog.lines().enumerate() {
        if k + 1 > line {
            break;
        }
        if let Some(r) = l.trim_start().strip_prefix("module ") {
            m = r.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or("").to_string();
        }
    }
    m
}

/// `type top.v:L.C-L.C nets` as `module:L`, to group path ends by where they are.
fn place(verilog: &str, cell: &str) -> String {
    let line = cell.split_whitespace().nth(1).and_then(|s| s.strip_prefix("top.v:")).and_then(|s| s.split('.').next()).and_then(|s| s.parse::<usize>().ok());
    match line {
        Some(l) => format!("{}:{l}", module_at(verilog, l)),
        // no source line kept: the cell's first named output net, without its bit index
        None => cell.split_whitespace().nth(1).map(strip_index).unwrap_or_else(|| "?".into()),
    }
}

/// Synthesize `verilog` (top module `top`) for UltraScale+ and count cells and logic depth.
pub fn synth(name: &str, verilog: &str, top: &str, show_path: bool, over: Option<u64>) -> Result<Resources> {
    let dir = std::env::temp_dir().join(format!("nicgen-report-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("top.v"), verilog)?;
    let script = format!("read_verilog top.v; synth_xilinx -family xcup -flatten -top {top}; setattr -mod -unset keep_hierarchy; flatten; hierarchy -top {top}; tee -q -o stat.txt stat; write_json net.json");
    let out = Command::new("yosys").current_dir(&dir).args(["-q", "-p", &script]).output().context("running yosys")?;
    if !out.status.success() {
        bail!("yosys failed on {name}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let stat = std::fs::read_to_string(dir.join("stat.txt"))?;
    let net: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("net.json"))?)?;
    let (depth, path, ends) = deepest_path(&net["modules"][top], over.unwrap_or(u64::MAX));
    if show_path {
        println!("{name}: deepest path, {depth} LUT levels (MUXF/CARRY cells shown, not counted):");
        for c in &path {
            println!("  {c}");
        }
    }
    if let Some(over) = over {
        // path ends grouped by where the path starts and ends (module:line), deepest first
        let mut groups: Vec<(String, String, u64, usize)> = vec![];
        for e in &ends {
            let a = format!("{} [{}]", e.from, place(verilog, &e.first));
            let b = format!("{} [{}]", e.to, place(verilog, &e.last));
            match groups.iter_mut().find(|g| g.0 == a && g.1 == b) {
                Some(g) => g.3 += 1,
                None => groups.push((a, b, e.depth, 1)),
            }
        }
        println!("{name}: {} path ends deeper than {over} LUT levels, in {} groups (levels, ends, from -> to):", ends.len(), groups.len());
        for (a, b, d, k) in &groups {
            println!("  {d:>3} {k:>5}  {a} -> {b}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Resources {
        luts: count_by(&stat, lut_sites),
        // the LUT sites used as memory (SRLs, LUT RAM)
        lutmem: count_by(&stat, |c| if c.starts_with("LUT") { 0 } else { lut_sites(c) }),
        ffs: count_by(&stat, |c| is(c, &["FD"])),
        bram18: count_by(&stat, |c| is(c, &["RAMB18"]) + 2 * is(c, &["RAMB36"])),
        uram: count_by(&stat, |c| is(c, &["URAM"])),
        dsp: count_by(&stat, |c| is(c, &["DSP"])),
        depth,
    })
}

/// Published figures for comparison (BALBOA, OSDI 2026, Table: base transport; Limago).
pub const BALBOA_BASE: (u64, u64, f64) = (43_732, 102_988, 101.0);
pub const LIMAGO: (u64, f64) = (72_974, 78.0);

/// The table for `only` (every top when empty), with a total row and the published figures.
pub fn run(only: &[String], show_path: bool, over: Option<u64>) -> Result<()> {
    println!("{:<16} {:>8} {:>8} {:>8} {:>5} {:>4} {:>6} {:>7}", "top", "LUT", "FF", "RAMB36", "URAM", "DSP", "levels", "LUTmem");
    let mut total = Resources { luts: 0, lutmem: 0, ffs: 0, bram18: 0, uram: 0, dsp: 0, depth: 0 };
    let mut n = 0;
    for t in all_tops() {
        if !only.is_empty() && !only.iter().any(|o| o == t.name) {
            continue;
        }
        let core = format!("{}_core", t.name);
        let r = synth(t.name, &t.verilog, &core, show_path, over)?;
        println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6} {:>7}", t.name, r.luts, r.ffs, r.bram18 as f64 / 2.0, r.uram, r.dsp, r.depth, r.lutmem);
        total.luts += r.luts;
        total.lutmem += r.lutmem;
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
    println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6} {:>7}", format!("total ({n})"), total.luts, total.ffs, total.bram18 as f64 / 2.0, total.uram, total.dsp, total.depth, total.lutmem);
    println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6}", "BALBOA base", BALBOA_BASE.0, BALBOA_BASE.1, BALBOA_BASE.2, "-", "-", "-");
    println!("{:<16} {:>8} {:>8} {:>8.1} {:>5} {:>4} {:>6}", "Limago", "-", LIMAGO.0, LIMAGO.1, "-", "-", "-");
    println!("(ours: Yosys estimates, synth_xilinx -family xcup -flatten, not Vivado; LUT = LUT sites as Vivado counts CLB LUTs, logic plus memory (an SRL 1, a RAM32M16 of LUT RAM 8; LUTmem is that memory part); RAMB36 = RAMB36 + RAMB18/2; levels = LUT levels on the deepest combinational path between registers, RAMs and the top's ports (a sub-block top counts from its input ports, which in the full design are driven by other blocks), MUXF and CARRY cells not counted; total levels = the deepest. The total sums the tops listed, and tops that contain others count those twice: compare roce_engine alone with BALBOA's base transport. BALBOA and Limago: Vivado, published.)");
    Ok(())
}
