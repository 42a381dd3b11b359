//! `nicgen om`: the orchestration module's tools.
use anyhow::{Context, Result};
use nicgen_model::m2m::{Msg, MAX_ENTRIES};
use nicgen_om::image::TableImage;
use nicgen_om::policy::compile as compile_policy;
use std::path::Path;

/// Compile `policy`; print a summary per EM; with `out`, write the M2M messages that bring
/// empty EMs to the policy (profile, then table batches of at most 64 entries), epochs rising
/// from 1, as hex lines.
pub fn compile(policy: &Path, out: Option<&Path>) -> Result<()> {
    let text = std::fs::read_to_string(policy).with_context(|| format!("reading {}", policy.display()))?;
    let c = compile_policy(&policy.display().to_string(), &text)?;
    println!("{}: {:?} mode, {} EMs, {} on-demand RDMA peers", policy.display(), c.mode, c.ems.len(), c.on_demand.len());
    println!("| EM | VFs | tenants | table entries | batches |");
    println!("|---:|---:|---:|---:|---:|");
    let mut lines = vec![];
    let mut epoch = 0u64;
    for (id, plan) in &c.ems {
        let batch = TableImage::default().diff(&plan.image());
        let chunks: Vec<_> = batch.chunks(MAX_ENTRIES).collect();
        println!("| {id} | {} | {} | {} | {} |", plan.profile.vf_count, plan.profile.tenant_quota, batch.len(), chunks.len());
        epoch += 1;
        lines.push(Msg::profile(*id, epoch, epoch as u32, plan.profile).encode());
        for ch in chunks {
            epoch += 1;
            lines.push(Msg::tables(*id, epoch, epoch as u32, ch.to_vec()).encode());
        }
    }
    if let Some(out) = out {
        let hex: Vec<String> = lines.iter().map(|m| m.iter().map(|b| format!("{b:02x}")).collect()).collect();
        std::fs::write(out, hex.join("\n") + "\n").with_context(|| format!("writing {}", out.display()))?;
        println!("{} messages (epochs 1..={epoch}) written to {}", lines.len(), out.display());
    }
    Ok(())
}

/// Print a rail plan: each rail's subnet, node 0's route table, and the relay NIC it uses to
/// reach a node on every rail.
pub fn rails(base: std::net::Ipv4Addr, rails: u32, nodes: u32) -> Result<()> {
    anyhow::ensure!(rails > 0 && nodes > 0, "--rails and --nodes must be at least 1");
    let p = nicgen_om::rail::RailPlan::new(base, rails, nodes);
    println!("{rails} rails of {nodes} NICs: one /{} per rail from {base}", p.prefix);
    println!("| rail | subnet | node 0 | node {} |", nodes - 1);
    println!("|---:|---|---|---|");
    for r in 0..rails {
        let (net, len) = p.subnet(r);
        println!("| {r} | {net}/{len} | {} | {} |", p.addr(r, 0), p.addr(r, nodes - 1));
    }
    println!("node 0's routes (longest-prefix match picks the NIC on the destination's rail; cross-rail traffic moves to that NIC inside the node first: PXN):");
    for rt in p.routes(0) {
        println!("  {}/{} dev {}", rt.dst, rt.len, rt.dev);
    }
    Ok(())
}
