//! `nicgen build | program | flash`: the Vivado flow for the Alveo U55C. Each checks that
//! Vivado is on PATH and says what is missing; the work is done by `scripts/vivado/*.tcl`.
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join("vivado")
}

/// Vivado on PATH, or an error that says how to get it there.
fn vivado() -> Result<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join("vivado")).find(|f| f.is_file()));
    match found {
        Some(v) => Ok(v),
        None => bail!(
            "Vivado is not on PATH. Install Vivado (2023.1 or later, with UltraScale+ and the CMAC, XDMA and HBM IP) and run `source <Vivado>/settings64.sh`, \
             or run `vivado -mode batch -source {}/<script>.tcl -tclargs ...` on a machine that has it. The Verilog and constraints are in gen/ and constraints/au55c/.",
            scripts().display()
        ),
    }
}

fn run_tcl(script: &str, args: &[String]) -> Result<()> {
    let v = vivado()?;
    let status = Command::new(v)
        .args(["-mode", "batch", "-nojournal", "-nolog", "-source"])
        .arg(scripts().join(script))
        .arg("-tclargs")
        .args(args)
        .status()
        .context("running vivado")?;
    if !status.success() {
        bail!("vivado {script} failed ({status})");
    }
    Ok(())
}

/// Synthesize, implement and write the bitstream of board top `board` from `gen`.
pub fn build(gen: &Path, board: &str, out: &Path, jobs: usize) -> Result<()> {
    let dir = gen.join(board);
    if !dir.join("board.tcl").is_file() {
        bail!("{}: no board top {board}; run `nicgen verilog --out {}` first (boards: au55c100g, au55c_em)", dir.display(), gen.display());
    }
    run_tcl("build.tcl", &[dir.display().to_string(), out.display().to_string(), jobs.to_string()])
}

pub fn program(bit: &Path) -> Result<()> {
    if !bit.is_file() {
        bail!("{}: no such bitstream (run `nicgen build` first)", bit.display());
    }
    run_tcl("program.tcl", &[bit.display().to_string()])
}

pub fn flash(bit: &Path) -> Result<()> {
    if !bit.is_file() {
        bail!("{}: no such bitstream (run `nicgen build` first)", bit.display());
    }
    run_tcl("flash.tcl", &[bit.display().to_string()])
}
