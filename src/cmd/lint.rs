//! `nicgen lint`: `verilator --lint-only -Wall` and rust-hdl's `yosys_validate` on every
//! emitted top level. Waivers live in `hw/lint/waivers.vlt`, each scoped to the generated files
//! and to one message pattern.
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

pub fn waivers() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("hw").join("lint").join("waivers.vlt")
}

/// One top's lint: (verilator -Wall lines, warning count, passed, the yosys verdict).
fn lint_top(dir: &Path, name: &str) -> Result<(String, usize, bool, String)> {
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
    let verdict = if yosys.is_ok() { "ok".to_string() } else { format!("{:?}", yosys.as_ref().err().unwrap()) };
    Ok((text, warnings, ok, verdict))
}

/// Lint every top in `dir`, on as many threads as the machine has cores (Yosys takes minutes on
/// the largest tops); the report keeps the index's order.
pub fn run(dir: &Path) -> Result<()> {
    let index: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("tops.json")).with_context(|| format!("{}: run `nicgen verilog` first", dir.display()))?,
    )?;
    let names: Vec<String> = index.iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(names.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<(String, usize, bool, String)>>>> = names.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= names.len() {
                    break;
                }
                *results[i].lock().unwrap() = Some(lint_top(dir, &names[i]));
            });
        }
    });
    let mut failed = 0;
    for (name, r) in names.iter().zip(results) {
        let (text, warnings, ok, verdict) = r.into_inner().unwrap().unwrap()?;
        println!("{:<16} verilator -Wall: {:>3} warnings   yosys_validate: {}", name, warnings, verdict);
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
