//! `nicgen lint`: `verilator --lint-only -Wall` and rust-hdl's `yosys_validate` on every
//! emitted top level. Waivers live in `hw/lint/waivers.vlt`, each scoped to the generated files
//! and to one message pattern.
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

pub fn waivers() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("hw").join("lint").join("waivers.vlt")
}

/// Tops whose every module Yosys already reads inside a larger top (the same generated
/// Verilog), or inside the tops they are made of (`roce_engine_aes`: the default engine's
/// modules and the service slots): Verilator lints them on their own, and Yosys validates them
/// there. Both are the AES cipher's (a Yosys read of `roce_engine_aes` takes 35 s on 2 cores);
/// every other top reads in seconds since memories are zeroed outside synthesis
/// (`stream::ram::zero_init`).
const YOSYS_WITHIN: [(&str, &[&str]); 2] = [
    ("aes_cipher4", &["aes_slot"]),
    ("roce_engine_aes", &["roce_engine", "aes_slot", "dlrm_slot", "dpi_tap"]),
];

/// One top's lint: (verilator -Wall lines, warning count, passed, the yosys verdict).
fn lint_top(dir: &Path, name: &str, all: &[String]) -> Result<(String, usize, bool, String)> {
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
    // validated inside its parents when they are linted in the same run
    // an engine with a chosen set of services (`nicgen verilog --services`) is made of the same
    // parts as the services engine
    let key = if name.starts_with("roce_engine_") { "roce_engine_aes" } else { name };
    if let Some((_, within)) = YOSYS_WITHIN.iter().find(|(t, p)| *t == key && p.iter().all(|p| all.iter().any(|n| n == p))) {
        let ok = out.status.success() && warnings == 0;
        return Ok((text, warnings, ok, format!("within {}", within.join(" and "))));
    }
    let core = std::fs::read_to_string(d.join(format!("{name}_core.v")))?;
    let yosys = rust_hdl::prelude::yosys_validate(&format!("nicgen_{name}"), &core.replace(&format!("{name}_core"), "top"));
    let ok = out.status.success() && warnings == 0 && yosys.is_ok();
    let verdict = if yosys.is_ok() { "ok".to_string() } else { format!("{:?}", yosys.as_ref().err().unwrap()) };
    Ok((text, warnings, ok, verdict))
}

/// A board top: (verilator lines, warnings, verdict). Verilator elaborates the whole board
/// (every instance's ports and widths against its module); the cores' synthesizability is
/// checked on each top above (a Yosys read of the whole board takes minutes).
fn lint_board(dir: &Path, name: &str) -> Result<(String, usize, String)> {
    let d = dir.join(name);
    let list = std::fs::read_to_string(d.join(format!("{name}.f")))?;
    let mut files: Vec<std::path::PathBuf> = list.lines().filter(|l| !l.is_empty()).map(|l| d.join(l)).collect();
    files.push(d.join(format!("{name}_ip_stubs.v")));
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", name])
        .arg(waivers())
        .args(&files)
        .output()
        .context("running verilator")?;
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    let warnings = text.lines().filter(|l| l.starts_with("%Warning") || l.starts_with("%Error")).count() + (!out.status.success()) as usize;
    Ok((text, warnings, if out.status.success() { "ok".into() } else { "failed".into() }))
}

/// Lint every top in `dir` (or only those in `only`, then without the board tops), on as many
/// threads as the machine has cores (Yosys takes minutes on the largest tops); the report keeps
/// the index's order. A top that Yosys reads through its parts (`YOSYS_WITHIN`) needs them in
/// `dir`; with `only`, they are taken as linted on their own.
pub fn run(dir: &Path, only: &[String]) -> Result<()> {
    let index: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("tops.json")).with_context(|| format!("{}: run `nicgen verilog` first", dir.display()))?,
    )?;
    let present: Vec<String> = index.iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    for o in only {
        if !present.contains(o) {
            bail!("{}: no top {o}", dir.display());
        }
    }
    let names: Vec<String> = present.iter().filter(|n| only.is_empty() || only.contains(n)).cloned().collect();
    let index: Vec<&serde_json::Value> = index.iter().filter(|t| names.iter().any(|n| t["name"] == n.as_str())).collect();
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
                *results[i].lock().unwrap() = Some(lint_top(dir, &names[i], &present));
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
    // board tops: Verilator over the whole design (the generated tops it uses, the vendor IP as
    // black boxes) and a Yosys hierarchy check
    let boards: Vec<serde_json::Value> = match std::fs::read_to_string(dir.join("boards.json")) {
        Ok(t) if only.is_empty() => serde_json::from_str(&t)?,
        _ => vec![],
    };
    for b in &boards {
        let name = b["name"].as_str().unwrap();
        let (text, warnings, verdict) = lint_board(dir, name)?;
        println!("{:<16} verilator -Wall: {:>3} warnings   elaboration: {}", name, warnings, verdict);
        if warnings > 0 || verdict != "ok" {
            failed += 1;
            for l in text.lines().take(40) {
                println!("    {l}");
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} top levels are not lint-clean", index.len() + boards.len());
    }
    println!("lint clean: {} top levels and {} board tops", index.len(), boards.len());
    Ok(())
}
