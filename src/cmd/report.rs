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

/// Synthesize `verilog` (top module `top`) for UltraScale+ and count cells. `depth` is the
/// longest path in LUT levels between flip-flops (Yosys `ltp -noff` over LUT cells only).
pub fn synth(name: &str, verilog: &str, top: &str) -> Result<Resources> {
    let dir = std::env::temp_dir().join(format!("nicgen-report-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("top.v"), verilog)?;
    let script = format!(
        "read_verilog top.v; synth_xilinx -family xcup -flatten -top {top}; tee -q -o stat.txt stat; \
         select -set luts t:LUT*; select -set ffs t:FD*; cd {top}; tee -q -o ltp.txt ltp -noff"
    );
    let out = Command::new("yosys").current_dir(&dir).args(["-q", "-p", &script]).output().context("running yosys")?;
    if !out.status.success() {
        bail!("yosys failed on {name}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let stat = std::fs::read_to_string(dir.join("stat.txt"))?;
    let ltp = std::fs::read_to_string(dir.join("ltp.txt")).unwrap_or_default();
    let depth = ltp.lines().find_map(|l| l.split("length=").nth(1).and_then(|x| x.trim_end_matches(')').trim().parse::<u64>().ok())).unwrap_or(0);
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

pub fn run(only: Option<&str>) -> Result<()> {
    println!("{:<16} {:>8} {:>8} {:>7} {:>5} {:>4} {:>6}", "top", "LUT", "FF", "BRAM18", "URAM", "DSP", "depth");
    for t in all_tops() {
        if only.is_some_and(|o| o != t.name) {
            continue;
        }
        let core = format!("{}_core", t.name);
        let r = synth(t.name, &t.verilog, &core)?;
        println!("{:<16} {:>8} {:>8} {:>7} {:>5} {:>4} {:>6}", t.name, r.luts, r.ffs, r.bram18, r.uram, r.dsp, r.depth);
    }
    println!("(Yosys synth_xilinx -family xcup -flatten; depth = longest cell path between registers, ltp -noff)");
    Ok(())
}
