//! `nicgen lint`: `verilator --lint-only -Wall` and rust-hdl's `yosys_validate` on every
//! emitted top level. Waivers live in `hw/lint/waivers.vlt`, each scoped to the generated files
//! and to one message pattern.
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

pub fn waivers() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("hw").join("lint").join("waivers.vlt")
}

pub fn run(dir: &Path) -> Result<()> {
    let index: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("tops.json")).with_context(|| format!("{}: run `nicgen verilog` first", dir.display()))?,
    )?;
    let mut failed = 0;
    for t in &index {
        let name = t["name"].as_str().unwrap();
        let d = dir.join(name);
        let out = Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", name])
            .arg(waivers())
            .arg(d.join(format!("{name}_core.v")))
            .arg(d.join(format!("{name}.v")))
            .output()
            .context("running verilator (run scripts/setup.sh)")?;
        let text = String::from_utf8_lossy(&out.stderr).to_string();
        let warnings = text.lines().filter(|l| l.starts_with("%Warning") || l.starts_with("%Error")).count();
        let core = std::fs::read_to_string(d.join(format!("{name}_core.v")))?;
        let yosys = rust_hdl::prelude::yosys_validate(&format!("nicgen_{name}"), &core.replace(&format!("{name}_core"), "top"));
        let ok = out.status.success() && warnings == 0 && yosys.is_ok();
        println!("{:<16} verilator -Wall: {:>3} warnings   yosys_validate: {}", name, warnings, if yosys.is_ok() { "ok".to_string() } else { format!("{:?}", yosys.as_ref().err().unwrap()) });
        if !ok {
            failed += 1;
            for l in text.lines().take(40) {
                println!("    {l}");
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} top levels are not lint-clean", index.len());
    }
    println!("lint clean: {} top levels", index.len());
    Ok(())
}
