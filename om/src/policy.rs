//! The OM's policy compiler: a tenant policy file (TOML) → per-EM device profiles and table
//! images (the EM's classifier and lookup tables, both sides). Errors name the file, the line and
//! the field.
//!
//! ```toml
//! mode = "overlay"                 # or "nat"
//! [[em]]
//! id = 0
//! pip = "192.168.0.1"              # the EM's own address (the VTEP in overlay mode)
//! smac = "02:00:00:00:00:aa"
//! dmac = "02:00:00:00:00:bb"       # the next hop
//! ttl = 64
//! [[tenant]]
//! name = "blue"
//! id = 1
//! vni = 1001                       # overlay mode
//! qos = { rate_gbps = 10.0, burst = 65536, mark = false }
//! acl = [
//!   { priority = 10, action = "deny", proto = "tcp", dport = "22" },
//!   { priority = 20, action = "allow" },
//! ]
//! [[vm]]                           # a tenant's VF on an EM
//! tenant = "blue"
//! em = 0
//! vf = 2
//! vip = "10.1.0.2"
//! pip = "192.168.1.2"
//! [[remote]]                       # a peer outside this server
//! tenant = "blue"
//! vip = "10.1.1.5"
//! pip = "172.16.1.5"
//! port = 1                         # the preferred wire port
//! rdma = true                      # pinned: never evicted
//! on_demand = true                 # installed by the slow path on the flow's first TCP miss
//! ```
//!
//! ACL rules are walked in priority order (lowest first) with the hardware's semantics: the
//! verdict is the last match up to the first terminating one (rules are terminating unless
//! `terminating = false`), and deny without a match. At most 16 rules per tenant; two rules of a
//! tenant may not share a priority.
use crate::image::TableImage;
use nicgen_model::em::*;
use nicgen_model::m2m::Profile;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use toml::Spanned;

/// A policy error: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {field}: {msg}")]
pub struct PolicyError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub msg: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    mode: Spanned<String>,
    #[serde(default)]
    em: Vec<EmSpec>,
    #[serde(default)]
    tenant: Vec<TenantSpec>,
    #[serde(default)]
    vm: Vec<VmSpec>,
    #[serde(default)]
    remote: Vec<RemoteSpec>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct EmSpec {
    id: Spanned<u8>,
    pip: Spanned<String>,
    smac: Spanned<String>,
    dmac: Spanned<String>,
    #[serde(default = "ttl64")]
    ttl: u8,
    #[serde(default)]
    tos: u8,
}

fn ttl64() -> u8 {
    64
}
fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct TenantSpec {
    name: Spanned<String>,
    id: Spanned<u16>,
    vni: Option<Spanned<u32>>,
    #[serde(default)]
    acl: Vec<AclSpec>,
    qos: Option<QosSpec>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct AclSpec {
    priority: Spanned<u32>,
    action: Spanned<String>,
    #[serde(default = "yes")]
    terminating: bool,
    src: Option<Spanned<String>>,
    dst: Option<Spanned<String>>,
    proto: Option<Spanned<String>>,
    sport: Option<Spanned<String>>,
    dport: Option<Spanned<String>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct QosSpec {
    rate_gbps: f64,
    burst: u32,
    #[serde(default)]
    mark: bool,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct VmSpec {
    tenant: Spanned<String>,
    em: Spanned<u8>,
    vf: Spanned<u16>,
    vip: Spanned<String>,
    pip: Spanned<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RemoteSpec {
    tenant: Spanned<String>,
    vip: Spanned<String>,
    pip: Spanned<String>,
    #[serde(default)]
    port: u8,
    #[serde(default)]
    rdma: bool,
    #[serde(default)]
    on_demand: bool,
}

/// One EM's compiled state.
#[derive(Clone, Debug)]
pub struct EmPlan {
    pub id: u8,
    pub profile: Profile,
    /// Both sides' classifier and lookup tables.
    pub host_cls: ClsTables,
    pub host_look: LookTables,
    pub wire_cls: ClsTables,
    pub wire_look: LookTables,
}

impl EmPlan {
    pub fn image(&self) -> TableImage {
        let mut i = TableImage::default();
        i.add_side(&self.host_cls, &self.host_look, false);
        i.add_side(&self.wire_cls, &self.wire_look, true);
        i
    }
}

/// A remote the slow path installs on its flow's first TCP miss.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnDemand {
    pub tenant: u16,
    pub vip: u32,
    pub pip: u32,
    pub port: u8,
}

/// A compiled policy.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub mode: EmMode,
    pub ems: BTreeMap<u8, EmPlan>,
    pub on_demand: Vec<OnDemand>,
}

/// Table sizes the compiler fills (the hardware's defaults).
pub const MAP_BITS: u32 = 10;
pub const TENANTS: usize = 4096;
pub const GROUPS: usize = 64;
pub const VFS: usize = 4096;
pub const REMOTE_BITS: u32 = 14;
pub const LOCAL_BITS: u32 = 10;

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err<T>(&self, span: std::ops::Range<usize>, field: &str, msg: impl Into<String>) -> Result<T, PolicyError> {
        Err(PolicyError { file: self.file.to_string(), line: line_of(self.text, span.start), field: field.to_string(), msg: msg.into() })
    }
    fn ip(&self, s: &Spanned<String>, field: &str) -> Result<u32, PolicyError> {
        match s.get_ref().parse::<std::net::Ipv4Addr>() {
            Ok(a) => Ok(u32::from(a)),
            Err(_) => self.err(s.span(), field, format!("`{}` is not an IPv4 address", s.get_ref())),
        }
    }
    fn mac(&self, s: &Spanned<String>, field: &str) -> Result<u64, PolicyError> {
        let parts: Vec<&str> = s.get_ref().split(':').collect();
        let bytes: Option<Vec<u8>> = parts.iter().map(|p| u8::from_str_radix(p, 16).ok()).collect();
        match bytes {
            Some(b) if b.len() == 6 => Ok(b.iter().fold(0u64, |a, x| a << 8 | *x as u64)),
            _ => self.err(s.span(), field, format!("`{}` is not a MAC address", s.get_ref())),
        }
    }
    fn prefix(&self, s: &Option<Spanned<String>>, field: &str) -> Result<(u32, u32), PolicyError> {
        let Some(s) = s else { return Ok((0, 0)) };
        let (a, l) = s.get_ref().split_once('/').unwrap_or((s.get_ref(), "32"));
        let addr = a.parse::<std::net::Ipv4Addr>().ok();
        let len = l.parse::<u32>().ok().filter(|l| *l <= 32);
        match (addr, len) {
            (Some(a), Some(l)) => {
                let m = prefix_mask(l);
                Ok((u32::from(a) & m, m))
            }
            _ => self.err(s.span(), field, format!("`{}` is not an IPv4 prefix", s.get_ref())),
        }
    }
    fn ports(&self, s: &Option<Spanned<String>>, field: &str) -> Result<(u16, u16), PolicyError> {
        let Some(s) = s else { return Ok((0, 0xffff)) };
        let (a, b) = s.get_ref().split_once('-').unwrap_or((s.get_ref(), s.get_ref()));
        match (a.trim().parse::<u16>(), b.trim().parse::<u16>()) {
            (Ok(a), Ok(b)) if a <= b => Ok((a, b)),
            _ => self.err(s.span(), field, format!("`{}` is not a port or a range lo-hi", s.get_ref())),
        }
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|b| *b == b'\n').count() + 1
}

/// Compile the policy text `text` (read from `file`).
pub fn compile(file: &str, text: &str) -> Result<Compiled, PolicyError> {
    let cx = Ctx { file, text };
    let p: PolicyFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_of(text, s.start));
        PolicyError { file: file.to_string(), line, field: "toml".into(), msg: e.message().to_string() }
    })?;
    let mode = match p.mode.get_ref().as_str() {
        "overlay" => EmMode::Overlay,
        "nat" => EmMode::Nat,
        m => return cx.err(p.mode.span(), "mode", format!("`{m}`: expected overlay or nat")),
    };
    // tenants
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    let mut ids = BTreeSet::new();
    let mut rules: Vec<Vec<AclRule>> = vec![];
    for (i, t) in p.tenant.iter().enumerate() {
        if by_name.insert(t.name.get_ref().clone(), i).is_some() {
            return cx.err(t.name.span(), "tenant.name", format!("tenant `{}` is defined twice", t.name.get_ref()));
        }
        let id = *t.id.get_ref();
        if id == 0 || id as usize >= TENANTS || !ids.insert(id) {
            return cx.err(t.id.span(), "tenant.id", format!("tenant id {id} is zero, too large or used twice"));
        }
        if mode == EmMode::Overlay && t.vni.is_none() {
            return cx.err(t.name.span(), "tenant.vni", format!("tenant `{}` needs a vni in overlay mode", t.name.get_ref()));
        }
        if t.acl.len() > ACL_SLOTS {
            return cx.err(t.name.span(), "tenant.acl", format!("{} rules; a tenant has at most {ACL_SLOTS}", t.acl.len()));
        }
        let mut sorted: Vec<&AclSpec> = t.acl.iter().collect();
        sorted.sort_by_key(|r| *r.priority.get_ref());
        for w in sorted.windows(2) {
            if w[0].priority.get_ref() == w[1].priority.get_ref() {
                let later = if w[0].priority.span().start > w[1].priority.span().start { w[0] } else { w[1] };
                return cx.err(later.priority.span(), "tenant.acl.priority", format!("priority {} is used by two rules of tenant `{}`: their order would be undefined", later.priority.get_ref(), t.name.get_ref()));
            }
        }
        let mut rs = vec![];
        for r in sorted {
            let allow = match r.action.get_ref().as_str() {
                "allow" => true,
                "deny" => false,
                a => return cx.err(r.action.span(), "tenant.acl.action", format!("`{a}`: expected allow or deny")),
            };
            let (proto_any, proto) = match r.proto.as_ref().map(|s| s.get_ref().as_str()) {
                None | Some("any") => (true, 0),
                Some("tcp") => (false, 6),
                Some("udp") => (false, 17),
                Some(n) => match n.parse::<u8>() {
                    Ok(n) => (false, n),
                    Err(_) => return cx.err(r.proto.as_ref().unwrap().span(), "tenant.acl.proto", format!("`{n}`: expected tcp, udp, any or a number")),
                },
            };
            let (src, src_mask) = cx.prefix(&r.src, "tenant.acl.src")?;
            let (dst, dst_mask) = cx.prefix(&r.dst, "tenant.acl.dst")?;
            let (sp_lo, sp_hi) = cx.ports(&r.sport, "tenant.acl.sport")?;
            let (dp_lo, dp_hi) = cx.ports(&r.dport, "tenant.acl.dport")?;
            rs.push(AclRule { valid: true, allow, term: r.terminating, proto_any, proto, src, src_mask, dst, dst_mask, sp_lo, sp_hi, dp_lo, dp_hi });
        }
        rules.push(rs);
    }
    let tenant_of = |s: &Spanned<String>, field: &str| -> Result<usize, PolicyError> {
        match by_name.get(s.get_ref()) {
            Some(i) => Ok(*i),
            None => cx.err(s.span(), field, format!("unknown tenant `{}`", s.get_ref())),
        }
    };
    // EMs
    let mut ems: BTreeMap<u8, EmPlan> = BTreeMap::new();
    for e in &p.em {
        let id = *e.id.get_ref();
        let profile = Profile { smac: cx.mac(&e.smac, "em.smac")?, dmac: cx.mac(&e.dmac, "em.dmac")?, sip: cx.ip(&e.pip, "em.pip")?, ttl: e.ttl, tos: e.tos, nat: mode == EmMode::Nat, ..Default::default() };
        let plan = EmPlan {
            id,
            profile,
            host_cls: ClsTables::new(MAP_BITS, TENANTS, GROUPS, VFS),
            host_look: LookTables::new(REMOTE_BITS, LOCAL_BITS),
            wire_cls: ClsTables::new(MAP_BITS, TENANTS, GROUPS, VFS),
            wire_look: LookTables::new(REMOTE_BITS, LOCAL_BITS),
        };
        if ems.insert(id, plan).is_some() {
            return cx.err(e.id.span(), "em.id", format!("EM {id} is defined twice"));
        }
    }
    // VMs: addresses unique per tenant, (em, vf) unique
    let mut vips: BTreeMap<(usize, u32), ()> = BTreeMap::new();
    let mut vfs = BTreeSet::new();
    let mut vms = vec![];
    for v in &p.vm {
        let t = tenant_of(&v.tenant, "vm.tenant")?;
        let em = *v.em.get_ref();
        if !ems.contains_key(&em) {
            return cx.err(v.em.span(), "vm.em", format!("unknown EM {em}"));
        }
        let vf = *v.vf.get_ref();
        if vf == 0 || vf as usize >= VFS || !vfs.insert((em, vf)) {
            return cx.err(v.vf.span(), "vm.vf", format!("VF {vf} of EM {em} is zero, too large or used twice"));
        }
        let vip = cx.ip(&v.vip, "vm.vip")?;
        let pip = cx.ip(&v.pip, "vm.pip")?;
        if vips.insert((t, vip), ()).is_some() {
            return cx.err(v.vip.span(), "vm.vip", format!("duplicate VIP {} in tenant `{}`", v.vip.get_ref(), p.tenant[t].name.get_ref()));
        }
        vms.push((t, em, vf, vip, pip));
    }
    let mut remotes = vec![];
    let mut on_demand = vec![];
    for r in &p.remote {
        let t = tenant_of(&r.tenant, "remote.tenant")?;
        let vip = cx.ip(&r.vip, "remote.vip")?;
        let pip = cx.ip(&r.pip, "remote.pip")?;
        if vips.insert((t, vip), ()).is_some() {
            return cx.err(r.vip.span(), "remote.vip", format!("duplicate VIP {} in tenant `{}`", r.vip.get_ref(), p.tenant[t].name.get_ref()));
        }
        if r.port > 1 {
            return cx.err(r.pip.span(), "remote.port", format!("port {}: an EM has ports 0 and 1", r.port));
        }
        if r.on_demand && !r.rdma {
            return cx.err(r.vip.span(), "remote.on_demand", "on_demand is for RDMA connections (rdma = true)");
        }
        let tid = *p.tenant[t].id.get_ref();
        if r.on_demand {
            on_demand.push(OnDemand { tenant: tid, vip, pip, port: r.port });
        } else {
            remotes.push((t, vip, pip, r.port, r.rdma, r.vip.span()));
        }
    }
    // fill each EM
    for (&em, plan) in ems.iter_mut() {
        let here: Vec<usize> = (0..p.tenant.len()).filter(|t| vms.iter().any(|v| v.0 == *t && v.1 == em)).collect();
        for (g, &t) in here.iter().enumerate() {
            let ts = &p.tenant[t];
            let tid = *ts.id.get_ref() as usize;
            let group = g + 1;
            if group >= GROUPS {
                return cx.err(ts.name.span(), "tenant", format!("EM {em} has more than {} tenants", GROUPS - 1));
            }
            for c in [&mut plan.host_cls, &mut plan.wire_cls] {
                c.tenants[tid] = (true, group as u16);
                for (s, r) in rules[t].iter().enumerate() {
                    c.acl[group][s] = *r;
                }
            }
            let vni = ts.vni.as_ref().map_or(0, |v| *v.get_ref());
            if mode == EmMode::Overlay {
                plan.wire_cls.insert(KeyKind::Vni, vni, tid as u16, false).ok_or_else(|| PolicyError { file: file.into(), line: line_of(text, ts.name.span().start), field: "tenant.vni".into(), msg: "the tenant map row is full".into() })?;
                plan.host_look.vni[tid] = vni;
            }
            // the tenant's VMs on other EMs are remotes of this one
            let mut rem: Vec<(u32, u32, u8, bool)> = vms.iter().filter(|v| v.0 == t && v.1 != em).map(|v| (v.3, v.4, 0, false)).collect();
            rem.extend(remotes.iter().filter(|r| r.0 == t).map(|r| (r.1, r.2, r.3, r.4)));
            for (vip, pip, port, pinned) in rem {
                let full = || PolicyError { file: file.into(), line: line_of(text, ts.name.span().start), field: "remote".into(), msg: format!("no free way for remote {vip:#x} of tenant `{}`", ts.name.get_ref()) };
                plan.host_look.insert_remote(RemoteEntry { valid: true, pinned, kind: 0, tenant: tid as u16, addr: vip, value: pip, port }).ok_or_else(full)?;
                if mode == EmMode::Nat {
                    plan.wire_look.insert_remote(RemoteEntry { valid: true, pinned, kind: 1, tenant: tid as u16, addr: pip, value: vip, port: 0 }).ok_or_else(full)?;
                }
            }
        }
        for &(t, vem, vf, vip, pip) in vms.iter().filter(|v| v.1 == em) {
            let ts = &p.tenant[t];
            let tid = *ts.id.get_ref();
            let full = |f: &str| PolicyError { file: file.into(), line: line_of(text, ts.name.span().start), field: f.into(), msg: format!("no free way for VF {vf} of EM {vem}") };
            plan.host_cls.insert(KeyKind::Vf, vf as u32, tid, false).ok_or_else(|| full("vm"))?;
            if let Some(q) = &ts.qos {
                plan.host_cls.qos[vf as usize] = QosCfg::from_rate(q.rate_gbps * 1e9 / 8.0 / 250e6, q.burst, q.mark);
            }
            plan.host_look.vfs[vf as usize] = (vip, pip);
            match mode {
                EmMode::Overlay => {
                    plan.wire_look.insert_local(LocalEntry { valid: true, tenant: tid, addr: vip, vf, vip }).ok_or_else(|| full("vm"))?;
                }
                EmMode::Nat => {
                    plan.wire_cls.insert(KeyKind::Pip, pip, tid, false).ok_or_else(|| full("vm"))?;
                    plan.wire_look.insert_local(LocalEntry { valid: true, tenant: tid, addr: pip, vf, vip }).ok_or_else(|| full("vm"))?;
                }
            }
        }
        let n_vms = vms.iter().filter(|v| v.1 == em).count();
        plan.profile.vf_count = n_vms as u16;
        plan.profile.tenant_quota = here.len() as u16;
        plan.profile.entry_quota = plan.image().entries.len() as u16;
    }
    Ok(Compiled { mode, ems, on_demand })
}

/// The on-demand entries of a remote, for one EM (the slow path's batch).
pub fn on_demand_image(mode: EmMode, od: &OnDemand) -> (Vec<RemoteEntry>, Vec<RemoteEntry>) {
    let host = vec![RemoteEntry { valid: true, pinned: true, kind: 0, tenant: od.tenant, addr: od.vip, value: od.pip, port: od.port }];
    let wire = if mode == EmMode::Nat { vec![RemoteEntry { valid: true, pinned: true, kind: 1, tenant: od.tenant, addr: od.pip, value: od.vip, port: 0 }] } else { vec![] };
    (host, wire)
}

/// A deterministic text dump of a compiled policy (the golden files).
pub fn dump(c: &Compiled) -> String {
    let mut s = format!("mode {:?}\n", c.mode);
    for (id, p) in &c.ems {
        s += &format!("em {id} profile {:?}\n", p.profile);
        for ((dest, table, index), (d0, d1)) in &p.image().entries {
            s += &format!("  dest {dest} table {table} index {index:5} data {d1:024x}{d0:032x}\n");
        }
    }
    for od in &c.on_demand {
        s += &format!("on_demand {od:?}\n");
    }
    s
}
