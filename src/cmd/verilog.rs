//! `nicgen verilog`: emit every top level.
use anyhow::{Context, Result};
use nicgen_hw::top::au55c::{board_tops, PinKind, PART};
use nicgen_hw::top::{all_tops, clean_wrapper, regmap_header, regmap_json};
use nicgen_sim::Dir;
use std::path::Path;

pub fn run(out: &Path) -> Result<()> {
    let tops = all_tops();
    let mut index = vec![];
    for t in &tops {
        let dir = out.join(t.name);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let core = format!("{}_core.v", t.name);
        let wrap = format!("{}.v", t.name);
        std::fs::write(dir.join(&core), &t.verilog)?;
        std::fs::write(dir.join(&wrap), clean_wrapper(t))?;
        // paths relative to the list itself: `verilator -F`, or Vivado from this folder
        std::fs::write(dir.join(format!("{}.f", t.name)), format!("{core}\n{wrap}\n"))?;
        if !t.regs.is_empty() {
            std::fs::write(dir.join("regmap.json"), regmap_json(t))?;
            std::fs::write(dir.join("regmap.h"), regmap_header(t))?;
        }
        println!("{:<16} {:>7} lines  {:>3} ports  {:>2} regs  {}", t.name, t.verilog.lines().count(), t.ports.len(), t.regs.len(), dir.display());
        index.push(serde_json::json!({"name": t.name, "about": t.about, "dir": t.name, "wrapper": wrap, "core": core, "registers": t.regs.len()}));
    }
    std::fs::write(out.join("tops.json"), serde_json::to_string_pretty(&index)?)?;
    println!("{} top levels in {}", tops.len(), out.display());
    // board tops: the Verilog, the black-box stubs for linting, the Vivado file list (paths
    // relative to the board's folder) and a description for the build script and the checks
    let mut boards = vec![];
    for b in board_tops(&tops) {
        let dir = out.join(b.name);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{}.v", b.name)), &b.verilog)?;
        std::fs::write(dir.join(format!("{}_ip_stubs.v", b.name)), &b.stubs)?;
        let mut files: Vec<String> = vec![];
        for u in &b.uses {
            files.push(format!("../{u}/{u}_core.v"));
            files.push(format!("../{u}/{u}.v"));
        }
        files.push(format!("{}.v", b.name));
        std::fs::write(dir.join(format!("{}.f", b.name)), files.join("\n") + "\n")?;
        let ports: Vec<serde_json::Value> = b
            .ports
            .iter()
            .map(|p| {
                let kind = match p.kind {
                    PinKind::Io => "io",
                    PinKind::DiffClock => "diff_clock",
                    PinKind::Gt => "gt",
                    PinKind::GtRefclk => "gt_refclk",
                };
                serde_json::json!({"name": p.name, "dir": if p.dir == Dir::In { "in" } else { "out" }, "width": p.width, "kind": kind})
            })
            .collect();
        let desc = serde_json::json!({"name": b.name, "config": b.config, "about": b.about, "part": PART, "top": b.name,
            "files": files, "ips": b.ips, "xdc": b.xdc, "uses": b.uses, "ports": ports});
        std::fs::write(dir.join("board.json"), serde_json::to_string_pretty(&desc)?)?;
        println!("{:<16} {:>7} lines  {:>3} ports  board top ({})  {}", b.name, b.verilog.lines().count(), b.ports.len(), b.config, dir.display());
        boards.push(serde_json::json!({"name": b.name, "config": b.config, "dir": b.name}));
    }
    std::fs::write(out.join("boards.json"), serde_json::to_string_pretty(&boards)?)?;
    Ok(())
}
