//! `nicgen verilog`: emit every top level.
use anyhow::{Context, Result};
use nicgen_hw::top::{all_tops, clean_wrapper, regmap_header, regmap_json};
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
    Ok(())
}
