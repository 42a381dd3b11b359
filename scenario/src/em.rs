//! The EM scenario (`nicgen sim em`, the EM tests): mixed tenant traffic (TCP, UDP and RoCEv2,
//! some malformed, some to unknown keys, some denied) through `EmDatapath` under Verilator in
//! both directions at once. Every output frame is checked against the golden model
//! (`nicgen_model::em`: parse, `ClsTables::classify`, `LookTables::lookup`, then
//! `vxlan_encap`, the decapsulated inner frame or `nat_rewrite_icrc`), with its port or VF.
//!
//! The world: tenants 1..=4; tenant t owns VFs 2t and 2t+1 (VIP 10.t.0.vf, PIP 192.168.t.vf)
//! and reaches remotes 10.t.1.k (PIP 172.16.t.k, port k mod 2) for k in 0..6; 10.t.1.6 has no
//! entry. VF 10 has no tenant. Tenant 3 allows UDP only; tenant 4 denies TCP to port 22 and
//! allows the rest; tenants 1 and 2 allow everything. Overlay VNIs are 1000 + t.
//!
//! IPv6 (the tables key an IPv6 address by its 32-bit fold, `nicgen_model::em::v6_fold`): VF vf
//! of tenant t also has the IPv6 VIP fd00:t::vf, and remote k the IPv6 VIP fd00:t:1::k (the
//! same PIP and port; fd00:t:1::6 has no entry). In overlay mode one frame in six of the mixed
//! traffic is IPv6, both ways; NAT mode offers IPv6 frames too, and drops them (`ipv6` on the
//! host side; from the wire an IPv6 frame has no key, `no_tenant`).
use nicgen_hw::em::classify::{table_writes, EmTblWrFields};
use nicgen_hw::em::front::{EmCfgFields, EmDatapath, EmDatapath1024};
use nicgen_hw::em::lookup::lookup_writes;
use anyhow::Result;
use nicgen_model::em::*;
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_model::roce::{opcode, IpHdr, RoceHeaders};
use nicgen_sim::axis::*;
use nicgen_sim::*;
use std::collections::VecDeque;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct EmOpts {
    pub mode: EmMode,
    /// Frames offered per direction.
    pub frames: usize,
    pub seed: u64,
    /// `tvalid` and `tready` percentages of the testbench's streams.
    pub valid: u32,
    pub ready: u32,
    /// Payload bytes per frame: random in 0..=max_payload (RoCEv2 payloads up to 1 KiB).
    pub max_payload: usize,
    pub pcap: Option<PathBuf>,
    /// Clean traffic for rate measurements: only UDP frames that pass, all `len` bytes long
    /// (Ethernet without FCS; a wire overlay frame's inner frame is 50 bytes shorter).
    pub clean_len: Option<usize>,
    /// The datapath's width: 512 (`EmDatapath`) or 1024 bits (`EmDatapath1024`).
    pub width: usize,
    /// Percent of the mixed traffic's frames replaced by mutated ones ([`mutate`]: bits flipped
    /// in the headers, cut short, padded, or random bytes), on top of the usual damage.
    pub fuzz: u32,
}

impl Default for EmOpts {
    fn default() -> Self {
        EmOpts { mode: EmMode::Overlay, frames: 2000, seed: 1, valid: 100, ready: 100, max_payload: 1400, pcap: None, clean_len: None, width: 512, fuzz: 0 }
    }
}

#[derive(Clone, Debug, Default)]
pub struct EmReport {
    pub cycles: u64,
    /// Host to wire: frames offered, expected out, out (per port), bytes out.
    pub eg_in: usize,
    pub eg_want: usize,
    pub eg_out: [usize; 2],
    pub eg_bytes: u64,
    /// Wire to host.
    pub ig_in: usize,
    pub ig_want: usize,
    pub ig_out: usize,
    pub ig_bytes: u64,
    /// Drops the model expects, by cause name, both directions.
    pub drops: Vec<(String, usize)>,
    /// IPv6 frames among the expected (and so the checked) output: host to wire (the frame,
    /// or the inner frame under VXLAN), and wire to host.
    pub eg_v6: usize,
    pub ig_v6: usize,
    /// The hardware's counters.
    pub counters: Vec<(String, u64)>,
    /// Telemetry entries read back and compared with the model, and the frames they count.
    pub tele_checked: usize,
    pub tele_frames: u64,
    /// NAT: expected frames that arrived with a wrong TCP/UDP checksum or ICRC, which the EM
    /// keeps wrong rather than hide (both directions).
    pub damaged_kept: usize,
    /// Frames that did not match (must be empty).
    pub mismatches: Vec<String>,
    /// Cycles from the first frame out to the last, per direction.
    pub eg_span: u64,
    pub ig_span: u64,
}

impl EmReport {
    /// Output goodput in Gb/s at 250 MHz, per direction.
    pub fn gbps(&self) -> (f64, f64) {
        let g = |b: u64| b as f64 * 8.0 / self.cycles.max(1) as f64 * 0.25;
        (g(self.eg_bytes), g(self.ig_bytes))
    }
}

/// Cycles with no beat taken in by the EM and none offered by it that `run_em` calls a stall.
const STALL_CYCLES: u64 = 20_000;
const CFG: EmCfgFields = EmCfgFields { smac: 0x02_00_00_00_00_aa, dmac: 0x02_00_00_00_00_bb, sip: 0xc0a8_0001, ttl: 64, tos: 0 };

fn vip(t: u16, vf: u16) -> u32 {
    u32::from_be_bytes([10, t as u8, 0, vf as u8])
}
fn pip(t: u16, vf: u16) -> u32 {
    u32::from_be_bytes([192, 168, t as u8, vf as u8])
}
fn rvip(t: u16, k: u32) -> u32 {
    u32::from_be_bytes([10, t as u8, 1, k as u8])
}
fn rpip(t: u16, k: u32) -> u32 {
    u32::from_be_bytes([172, 16, t as u8, k as u8])
}
/// IPv6 addresses: a VF's VIP, fd00:t::vf, and a remote's, fd00:t:1::k.
fn vip6(t: u16, vf: u16) -> u128 {
    0xfd00u128 << 112 | (t as u128) << 96 | vf as u128
}
fn rvip6(t: u16, k: u32) -> u128 {
    0xfd00u128 << 112 | (t as u128) << 96 | 1 << 80 | k as u128
}

/// The tables of both sides for `mode`.
pub fn em_tables(mode: EmMode) -> (ClsTables, LookTables, ClsTables, LookTables) {
    let mut ec = ClsTables::new(10, 4096, 64, 4096);
    let mut wc = ClsTables::new(10, 4096, 64, 4096);
    let mut el = LookTables::new(14, 10);
    let mut wl = LookTables::new(14, 10);
    let any = AclRule { valid: true, allow: true, term: true, proto_any: true, sp_hi: 65535, dp_hi: 65535, ..Default::default() };
    for t in 1..=4u16 {
        for c in [&mut ec, &mut wc] {
            c.tenants[t as usize] = (true, t);
            match t {
                3 => c.acl[3][0] = AclRule { proto_any: false, proto: 17, ..any },
                4 => {
                    c.acl[4][0] = AclRule { allow: false, proto_any: false, proto: 6, dp_lo: 22, dp_hi: 22, ..any };
                    c.acl[4][1] = any;
                }
                _ => c.acl[t as usize][0] = any,
            }
        }
        for vf in [2 * t, 2 * t + 1] {
            ec.insert(KeyKind::Vf, vf as u32, t, false).unwrap();
            el.vfs[vf as usize] = (vip(t, vf), pip(t, vf));
            match mode {
                EmMode::Overlay => {
                    wl.insert_local(LocalEntry { valid: true, tenant: t, addr: vip(t, vf), vf, vip: vip(t, vf) }).unwrap();
                    wl.insert_local(LocalEntry { valid: true, tenant: t, addr: v6_fold(vip6(t, vf)), vf, vip: vip(t, vf) }).unwrap();
                }
                EmMode::Nat => {
                    wc.insert(KeyKind::Pip, pip(t, vf), t, false).unwrap();
                    wl.insert_local(LocalEntry { valid: true, tenant: t, addr: pip(t, vf), vf, vip: vip(t, vf) }).unwrap();
                }
            }
        }
        if mode == EmMode::Overlay {
            wc.insert(KeyKind::Vni, 1000 + t as u32, t, false).unwrap();
        }
        el.vni[t as usize] = 1000 + t as u32;
        for k in 0..6u32 {
            el.insert_remote(RemoteEntry { valid: true, pinned: k == 0, kind: 0, tenant: t, addr: rvip(t, k), value: rpip(t, k), port: (k % 2) as u8 }).unwrap();
            el.insert_remote(RemoteEntry { valid: true, pinned: k == 0, kind: 0, tenant: t, addr: v6_fold(rvip6(t, k)), value: rpip(t, k), port: (k % 2) as u8 }).unwrap();
            wl.insert_remote(RemoteEntry { valid: true, pinned: k == 0, kind: 1, tenant: t, addr: rpip(t, k), value: rvip(t, k), port: 0 }).unwrap();
        }
    }
    (ec, el, wc, wl)
}

/// The writes that load all four tables, each to its place.
pub fn em_writes(t: &(ClsTables, LookTables, ClsTables, LookTables)) -> Vec<EmTblWrFields> {
    let mut w: Vec<EmTblWrFields> = table_writes(&t.0).into_iter().map(|x| x.to(0)).collect();
    w.extend(lookup_writes(&t.1).into_iter().map(|x| x.to(1)));
    w.extend(table_writes(&t.2).into_iter().map(|x| x.to(2)));
    w.extend(lookup_writes(&t.3).into_iter().map(|x| x.to(3)));
    w
}

/// An IPv4 or IPv6 address.
#[derive(Clone, Copy)]
enum Addr {
    V4(u32),
    V6(u128),
}

/// A frame from `src` to `dst` (both IPv4 or both IPv6): TCP, UDP or RoCEv2 (`kind` 0, 1, 2),
/// `n` payload bytes.
fn frame(rng: &mut Rng, kind: u32, src: Addr, dst: Addr, n: usize) -> Vec<u8> {
    let mac = [0x02, 0, 0, 0, 0, 7];
    let eth = etherparse::PacketBuilder::ethernet2(mac, [0x02, 0, 0, 0, 0, 8]);
    let (b, ip) = match (src, dst) {
        (Addr::V4(s), Addr::V4(d)) => (eth.ipv4(s.to_be_bytes(), d.to_be_bytes(), 64), IpHdr::V4 { src: s.to_be_bytes(), dst: d.to_be_bytes(), dscp: 0, ecn: 0, ttl: 64, id: 0 }),
        (Addr::V6(s), Addr::V6(d)) => (eth.ipv6(s.to_be_bytes(), d.to_be_bytes(), 64), IpHdr::V6 { src: s.to_be_bytes(), dst: d.to_be_bytes(), tclass: 0, flow: rng.below(1 << 20) as u32, hlim: 64 }),
        _ => unreachable!("one family"),
    };
    let mut v = vec![];
    match kind {
        0 => {
            let dport = if rng.chance(15) { 22 } else { rng.range(1, 9000) as u16 };
            b.tcp(rng.range(1024, 65535) as u16, dport, rng.next_u64() as u32, 1000).write(&mut v, &rng.bytes(n)).unwrap();
        }
        1 => b.udp(rng.range(1024, 65535) as u16, rng.range(1, 9000) as u16).write(&mut v, &rng.bytes(n)).unwrap(),
        _ => {
            let op = [opcode::WRITE_ONLY, opcode::SEND_ONLY, opcode::READ_RESP_ONLY, opcode::ACK][rng.below(4) as usize];
            let mut h = RoceHeaders::new(ip, op, rng.below(1 << 24) as u32, rng.below(1 << 24) as u32);
            h.udp_sport = rng.range(49152, 65535) as u16;
            v = h.build(&rng.bytes(n.min(1024)));
        }
    }
    v
}

/// Damage a frame so that the parser drops it (a bad IPv4 checksum, an IPv6 version other than
/// 6, or a cut header).
fn damage(rng: &mut Rng, f: &mut Vec<u8>) {
    if rng.chance(50) {
        if f[12..14] == [0x86, 0xdd] {
            f[14] ^= 0x40;
        } else {
            f[24] ^= 0x40;
        }
    } else {
        f.truncate(rng.range(20, 40) as usize);
    }
}

/// A mutated frame for fuzzing: one to four bits flipped in the first 128 bytes, cut to a random
/// length, random bytes appended, or replaced by 1 to 200 random bytes.
pub fn mutate(rng: &mut Rng, f: &mut Vec<u8>) {
    match rng.below(4) {
        0 => {
            for _ in 0..rng.range(1, 5) {
                let i = rng.below(f.len().min(128) as u64) as usize;
                f[i] ^= 1 << rng.below(8);
            }
        }
        1 => f.truncate(rng.range(1, f.len() as u64 + 1) as usize),
        2 => {
            let n = rng.range(1, 64) as usize;
            f.extend(rng.bytes(n));
        }
        _ => {
            let n = rng.range(1, 201) as usize;
            *f = rng.bytes(n);
        }
    }
}

/// The telemetry the model expects (`em::tele`): (side, table, index) → [frames passed, their
/// bytes, frames dropped], counted at the gate.
pub type Tele = std::collections::BTreeMap<(u8, u8, u16), [u64; 3]>;

fn tele_count(t: &mut Tele, side: u8, vf: Option<u16>, tenant: Option<u16>, len: usize, kept: bool) {
    for (table, idx) in [(0u8, vf), (1, tenant)] {
        if let Some(i) = idx {
            let e = t.entry((side, table, i)).or_default();
            if kept {
                e[0] += 1;
                e[1] += len as u64;
            } else {
                e[2] += 1;
            }
        }
    }
}

/// A verdict's tenant: none for `no_tenant`.
fn tenant_of(d: ClsDrop, tenant: u16) -> Option<u16> {
    (d != ClsDrop::NoTenant).then_some(tenant)
}

/// A frame the model expects out, and what a mismatch report says about it.
#[derive(Clone, Debug)]
pub struct Want {
    pub frame: Vec<u8>,
    /// Host to wire: the port; wire to host: the VF.
    pub to: u16,
    /// Which frame it is: where it came from, its tenant, its flow and the table entries it hit.
    pub about: String,
    /// NAT: it arrived with a wrong TCP/UDP checksum or ICRC, and the EM keeps it wrong
    /// (`nicgen_model::em::nat_damaged`).
    pub damaged: bool,
}

fn ip(a: u32) -> std::net::Ipv4Addr {
    a.into()
}

/// A parsed frame's flow: the (inner) 5-tuple, the tunnel, RoCEv2's destination QP.
fn flow(p: &EmParsed) -> String {
    let l = p.inner.unwrap_or(p.outer);
    let proto = match l.proto {
        6 => "TCP".to_string(),
        17 => "UDP".to_string(),
        n => format!("IP protocol {n}"),
    };
    let fam = if l.v6 { "IPv6 (addresses as their folds) " } else { "" };
    let mut s = format!("{fam}{proto} {}:{} -> {}:{}", ip(l.src), l.sport, ip(l.dst), l.dport);
    if let Some(vni) = p.vni {
        s = format!("VXLAN {} -> {} VNI {vni}, inner {s}", ip(p.outer.src), ip(p.outer.dst));
    }
    if p.roce {
        s += &format!(", RoCEv2 to QP {:#x}", p.dqpn);
    }
    s
}

/// The tenant-map key a frame hit, the ACL rule that decided, and what the lookups found.
fn entries(c: &ClsTables, lt: &LookTables, p: &EmParsed, vf: u16, wire: bool, v: &ClsVerdict, l: Option<&Look>) -> String {
    let (kind, value) = class_key(p, vf, wire);
    let key = match kind {
        KeyKind::Vf => format!("VF {value}"),
        KeyKind::Vni => format!("VNI {value}"),
        KeyKind::Pip => format!("PIP {}", ip(value)),
        KeyKind::V6 => format!("IPv6 fold {}", ip(value)),
    };
    let group = c.tenants.get(v.tenant as usize).map_or(0, |t| t.1);
    let rule = v.rule.map_or("no rule (denied)".to_string(), |r| format!("rule {r}"));
    let mut s = format!("tenant key {key} -> tenant {}, ACL group {group} {rule}", v.tenant);
    if let Some(l) = l {
        let t = Tuple::of(p);
        if !wire {
            if let Some(e) = lt.remote_entry(0, v.tenant, t.dst) {
                s += &format!(", remote entry (tenant {}, {}) -> {} port {}", v.tenant, ip(t.dst), ip(e.value), e.port);
            }
            let (vip, pip) = lt.vfs[vf as usize & 0xfff];
            s += &format!(", VF {vf} VIP {} PIP {}", ip(vip), ip(pip));
        } else {
            s += &format!(", local entry (tenant {}, {}) -> VF {}", v.tenant, ip(t.dst), l.vf);
            if let Some(r) = lt.remote(1, v.tenant, t.src) {
                s += &format!(", remote PIP entry (tenant {}, {}) -> {}", v.tenant, ip(t.src), ip(r));
            }
        }
        if l.src_rw || l.dst_rw {
            s += &format!(", NAT to {} -> {}", ip(l.src), ip(l.dst));
        }
    }
    s
}

/// The model's output for host frame `k` from `vf`: the frame and its port, or the drop cause.
/// The host side counts every frame that reaches the gate for its VF, and for its tenant if it
/// has one.
fn egress_model(k: usize, f: &[u8], vf: u16, t: &mut (ClsTables, LookTables, ClsTables, LookTables), mode: EmMode, tele: &mut Tele) -> Result<Want, String> {
    let p = em_parse(f, false, false).map_err(|d| d.name().to_string())?;
    let v = t.0.classify(&p, vf, false, 0);
    if let Some(d) = v.drop {
        tele_count(tele, 0, Some(vf), tenant_of(d, v.tenant), p.len, false);
        return Err(d.name().into());
    }
    let l = t.1.lookup(&p, vf, v.tenant, false, mode);
    tele_count(tele, 0, Some(vf), Some(v.tenant), p.len, l.is_ok());
    let l = l.map_err(|d| d.name().to_string())?;
    let out = match mode {
        EmMode::Overlay => {
            let tun = VxlanTunnel { dmac: CFG.dmac.to_be_bytes()[2..].try_into().unwrap(), smac: CFG.smac.to_be_bytes()[2..].try_into().unwrap(), sip: CFG.sip, dip: l.dip, ttl: CFG.ttl, tos: CFG.tos, vni: l.vni };
            let o = p.outer;
            vxlan_encap(f, &tun, vxlan_sport(o.src, o.dst, o.proto, o.sport, o.dport))
        }
        EmMode::Nat => nat_rewrite_icrc(f, l.src_rw.then_some(l.src), l.dst_rw.then_some(l.dst)).ok_or("roce_vlan")?,
    };
    let about = format!("host frame {k} from VF {vf}: {}; {}", flow(&p), entries(&t.0, &t.1, &p, vf, false, &v, Some(&l)));
    Ok(want(out, l.port as u16, about, mode == EmMode::Nat && nat_damaged(f)))
}

/// The model's output for frame `k` of wire port `port`: the frame and its VF, or the drop
/// cause. The wire side counts a frame for the VF it is delivered to (kept frames only), and
/// for its tenant if it has one.
fn ingress_model(port: usize, k: usize, f: &[u8], t: &mut (ClsTables, LookTables, ClsTables, LookTables), mode: EmMode, tele: &mut Tele) -> Result<Want, String> {
    let p = em_parse(f, true, false).map_err(|d| d.name().to_string())?;
    let v = t.2.classify(&p, 0, true, 0);
    if let Some(d) = v.drop {
        tele_count(tele, 1, None, tenant_of(d, v.tenant), p.len, false);
        return Err(d.name().into());
    }
    let l = t.3.lookup(&p, 0, v.tenant, true, mode);
    tele_count(tele, 1, l.as_ref().ok().map(|l| l.vf), Some(v.tenant), p.len, l.is_ok());
    let l = l.map_err(|d| d.name().to_string())?;
    let out = match (mode, p.vni.is_some()) {
        (EmMode::Overlay, true) => f[p.outer.l3 + 36..].to_vec(),
        (EmMode::Overlay, false) => f.to_vec(),
        (EmMode::Nat, _) => nat_rewrite_icrc(f, l.src_rw.then_some(l.src), l.dst_rw.then_some(l.dst)).ok_or("roce_vlan")?,
    };
    let about = format!("wire port {port} frame {k}: {}; {}", flow(&p), entries(&t.2, &t.3, &p, 0, true, &v, Some(&l)));
    Ok(want(out, l.vf, about, mode == EmMode::Nat && nat_damaged(f)))
}

fn want(frame: Vec<u8>, to: u16, about: String, damaged: bool) -> Want {
    let about = if damaged { about + " (it arrived with a wrong TCP/UDP checksum or ICRC, which NAT keeps wrong)" } else { about };
    Want { frame, to, about, damaged }
}

/// What differs between a frame out of the hardware and the one the model expects: the first
/// differing byte, the field it falls in (`vxlan`: read VXLAN, for overlay frames to the wire)
/// and both values of that field, the lengths if they differ, and which frame it is.
pub fn frame_diff(label: &str, got: &[u8], want: &Want, vxlan: bool) -> String {
    let at = got.iter().zip(&want.frame).position(|(a, b)| a != b).unwrap_or(got.len().min(want.frame.len()));
    let named = if at < want.frame.len() { &want.frame[..] } else { got };
    let (field, range) = em_field_at(named, vxlan, at);
    let show = |f: &[u8]| {
        let b = &f[range.start.min(f.len())..range.end.min(f.len())];
        if b.is_empty() { "(none)".to_string() } else { b.iter().map(|x| format!("{x:02x}")).collect() }
    };
    let mut s = format!("{label}: byte {at} differs, in {field} (bytes {}..{}): hardware {}, model {}", range.start, range.end, show(got), show(&want.frame));
    if got.len() != want.frame.len() {
        s += &format!("; length: hardware {}, model {}", got.len(), want.frame.len());
    }
    s + &format!("; the frame: {}", want.about)
}

/// A scenario before the hardware runs: the traffic, and what the model expects of it.
pub struct EmPlan {
    /// Host frames, each with its VF.
    pub host: Vec<(Vec<u8>, u16)>,
    /// Wire frames, per port.
    pub wire: [Vec<Vec<u8>>; 2],
    /// The expected frames per wire port (host to wire) and per wire port they came in on
    /// (wire to host).
    pub want_port: [VecDeque<Want>; 2],
    pub want_host: [VecDeque<Want>; 2],
    /// The writes that load the tables (taken before the model's QoS state moves).
    pub writes: Vec<EmTblWrFields>,
    pub tele: Tele,
    /// The report's model half: frames in and expected, drops, IPv6 and damaged counts.
    pub report: EmReport,
}

/// The traffic of `o` and the model's expectations (no hardware: fast).
pub fn plan_em(o: &EmOpts) -> EmPlan {
    let mut rng = Rng::new(o.seed);
    let mut tabs = em_tables(o.mode);
    let writes = em_writes(&tabs);
    // host frames: (frame, vf)
    let mut host: Vec<(Vec<u8>, u16)> = vec![];
    let clean = o.clean_len.is_some();
    for _ in 0..o.frames {
        let vf = rng.range(2, if clean { 10 } else { 11 }) as u16;
        let t = (vf / 2).clamp(1, 4);
        let mut src = vip(t, vf);
        if o.mode == EmMode::Nat && !clean && rng.chance(5) {
            src ^= 0x100; // not the VF's VIP: spoofed
        }
        let k = rng.below(if clean { 6 } else { 7 }) as u32;
        let n = o.clean_len.map_or_else(|| rng.range(0, o.max_payload as u64) as usize, |l| l - 42);
        let kind = if clean { 1 } else { rng.below(3) as u32 };
        let (src, dst) = if !clean && rng.chance(17) { (Addr::V6(vip6(t, vf)), Addr::V6(rvip6(t, k))) } else { (Addr::V4(src), Addr::V4(rvip(t, k))) };
        let mut f = frame(&mut rng, kind, src, dst, n);
        if !clean && rng.chance(4) {
            damage(&mut rng, &mut f);
        }
        if !clean && rng.chance(o.fuzz) {
            mutate(&mut rng, &mut f);
        }
        host.push((f, vf));
    }
    // wire frames, per port
    let mut wire: [Vec<Vec<u8>>; 2] = [vec![], vec![]];
    for _ in 0..o.frames {
        let t = rng.range(1, 5) as u16;
        let vf = 2 * t + rng.below(2) as u16;
        let k = rng.below(if clean { 6 } else { 7 }) as u32;
        let odd = |r: &mut Rng| !clean && r.chance(5);
        let kind_of = |r: &mut Rng| if clean { 1 } else { r.below(3) as u32 };
        let mut f = match o.mode {
            EmMode::Overlay => {
                let n = o.clean_len.map_or_else(|| rng.range(0, o.max_payload as u64) as usize, |l| l.saturating_sub(42 + VXLAN_OVERHEAD));
                let (kind, to) = (kind_of(&mut rng), if odd(&mut rng) { 99 } else { vf });
                let (src, dst) = if !clean && rng.chance(17) { (Addr::V6(rvip6(t, k)), Addr::V6(vip6(t, to))) } else { (Addr::V4(rvip(t, k)), Addr::V4(vip(t, to))) };
                let inner = frame(&mut rng, kind, src, dst, n);
                let vni = if odd(&mut rng) { 999 } else { 1000 + t as u32 };
                let tun = VxlanTunnel { dmac: [2, 0, 0, 0, 0, 0xaa], smac: [2, 0, 0, 0, 0, 0xbb], sip: rpip(t, k), dip: CFG.sip, ttl: 64, tos: 0, vni };
                vxlan_encap(&inner, &tun, 50000 + k as u16)
            }
            EmMode::Nat => {
                let n = o.clean_len.map_or_else(|| rng.range(0, o.max_payload as u64) as usize, |l| l - 42);
                let (kind, dst) = (kind_of(&mut rng), if odd(&mut rng) { pip(t, 99) } else { pip(t, vf) });
                if !clean && rng.chance(17) {
                    frame(&mut rng, kind, Addr::V6(rvip6(t, k)), Addr::V6(vip6(t, vf)), n)
                } else {
                    frame(&mut rng, kind, Addr::V4(rpip(t, k)), Addr::V4(dst), n)
                }
            }
        };
        if !clean && rng.chance(4) {
            damage(&mut rng, &mut f);
        }
        if !clean && rng.chance(o.fuzz) {
            mutate(&mut rng, &mut f);
        }
        wire[rng.below(2) as usize].push(f);
    }
    // the model's expectations
    let mut r = EmReport { eg_in: host.len(), ig_in: wire[0].len() + wire[1].len(), ..Default::default() };
    let mut drops: std::collections::BTreeMap<String, usize> = Default::default();
    let mut tele = Tele::new();
    let mut want_port: [VecDeque<Want>; 2] = [VecDeque::new(), VecDeque::new()];
    for (k, (f, vf)) in host.iter().enumerate() {
        match egress_model(k, f, *vf, &mut tabs, o.mode, &mut tele) {
            Ok(w) => want_port[w.to as usize].push_back(w),
            Err(c) => *drops.entry(format!("host {c}")).or_default() += 1,
        }
    }
    let mut want_host: [VecDeque<Want>; 2] = [VecDeque::new(), VecDeque::new()];
    for (p, frames) in wire.iter().enumerate() {
        for (k, f) in frames.iter().enumerate() {
            match ingress_model(p, k, f, &mut tabs, o.mode, &mut tele) {
                Ok(w) => want_host[p].push_back(w),
                Err(c) => *drops.entry(format!("wire {c}")).or_default() += 1,
            }
        }
    }
    r.damaged_kept = want_port.iter().chain(&want_host).flatten().filter(|w| w.damaged).count();
    r.eg_want = want_port[0].len() + want_port[1].len();
    r.ig_want = want_host[0].len() + want_host[1].len();
    let et6 = |f: &[u8], o: usize| f.len() > o + 14 && f[o + 12..o + 14] == [0x86, 0xdd];
    let ovl = o.mode == EmMode::Overlay;
    r.eg_v6 = want_port.iter().flatten().filter(|w| et6(&w.frame, if ovl { VXLAN_OVERHEAD } else { 0 })).count();
    r.ig_v6 = want_host.iter().flatten().filter(|w| et6(&w.frame, 0)).count();
    r.drops = drops.into_iter().collect();
    EmPlan { host, wire, want_port, want_host, writes, tele, report: r }
}

/// Run the scenario; the report lists every mismatch.
pub fn run_em(o: &EmOpts) -> Result<EmReport> {
    let EmPlan { host, wire, want_port, mut want_host, writes, tele, report: mut r } = plan_em(o);
    let ovl = o.mode == EmMode::Overlay;
    // the hardware
    let mut sim = match o.width {
        512 => verilate(&mut EmDatapath::default()),
        1024 => verilate(&mut EmDatapath1024::default()),
        w => anyhow::bail!("the EM datapath is 512 or 1024 bits wide, not {w}"),
    };
    sim.reset(2);
    let port = |s: &VerilatorSim, n: &str| s.port(n);
    sim.set_bit(port(&sim, "nat"), o.mode == EmMode::Nat);
    sim.set(port(&sim, "cfg"), &CFG.to_words());
    sim.set(port(&sim, "link_up"), &[3]);
    sim.set_bit(port(&sim, "m_ev_ready"), true);
    load_tables(&mut sim, &writes);
    let mut dh = AxisDriver::new(&sim, "s_axis_host_tx", o.valid, o.seed + 1);
    for (f, _) in &host {
        dh.push(AxisFrame::new(f.clone()));
    }
    let mut d0 = AxisDriver::new(&sim, "s_axis_p0_rx", o.valid, o.seed + 2);
    let mut d1 = AxisDriver::new(&sim, "s_axis_p1_rx", o.valid, o.seed + 3);
    for f in &wire[0] {
        d0.push(AxisFrame::new(f.clone()));
    }
    for f in &wire[1] {
        d1.push(AxisFrame::new(f.clone()));
    }
    let m0 = AxisMonitor::new(&sim, "m_axis_p0_tx", o.ready, o.seed + 4);
    let m1 = AxisMonitor::new(&sim, "m_axis_p1_tx", o.ready, o.seed + 5);
    let mh = AxisMonitor::new(&sim, "m_axis_host_rx", o.ready, o.seed + 6);
    let (hvf, svf) = (port(&sim, "m_host_vf"), port(&sim, "s_host_vf"));
    let (hv, hr, hl) = (port(&sim, "m_axis_host_rx$tvalid"), port(&sim, "m_axis_host_rx$tready"), port(&sim, "m_axis_host_rx$tlast"));
    let mut b = StreamBench::new(vec![dh, d0, d1], vec![m0, m1, mh]);
    let (mut vfs, mut h_in, mut quiet, mut still) = (vec![], false, 0, 0u64);
    let mut sent_before = 0u64;
    let start = sim.cycle();
    while quiet < 300 {
        let k = b.drivers[0].frames as usize;
        sim.set(svf, &[host.get(k).map_or(0, |h| h.1 as u32)]);
        let moved = b.step_with(&mut sim, |s| {
            // the VF beside each host frame's first beat
            if s.get_bit(hv) && s.get_bit(hr) {
                if !h_in {
                    vfs.push(s.get_u64(hvf) as u16);
                }
                h_in = !s.get_bit(hl);
            }
            false
        });
        let busy = b.drivers.iter().any(|d| !d.idle());
        quiet = if moved || busy { 0 } else { quiet + 1 };
        // no beat taken in and none offered out for `STALL_CYCLES`: a wedged pipeline (ends the
        // run in seconds instead of at the overall cap)
        let sent: u64 = b.drivers.iter().map(|d| d.beats).sum();
        still = if moved || sent != sent_before { 0 } else { still + 1 };
        sent_before = sent;
        if still > STALL_CYCLES {
            r.mismatches.push(format!("the EM stalled: no beat moved for {STALL_CYCLES} cycles, at cycle {}", sim.cycle() - start));
            break;
        }
        if sim.cycle() - start > 50_000_000 {
            r.mismatches.push("the EM did not finish in 50,000,000 cycles (beats kept moving)".into());
            break;
        }
    }
    r.cycles = sim.cycle() - start - quiet as u64;
    let names = ["eg_parsed", "eg_kept", "eg_dropped", "ig_parsed", "ig_kept", "ig_dropped", "frames_p0", "frames_p1", "failover", "drop_link_down", "drop_roce_vlan"];
    r.counters = names.iter().map(|n| (n.to_string(), sim.get_u64(sim.port(n)))).collect();
    // per-VF and per-tenant telemetry: every index the model counted, and some it did not (zero)
    let mut keys: Vec<(u8, u8, u16)> = tele.keys().copied().collect();
    keys.extend((0..2u8).flat_map(|side| (0..2u8).flat_map(move |table| [(side, table, 0u16), (side, table, 77), (side, table, 4095)])));
    keys.sort();
    keys.dedup();
    for (side, table, index) in keys {
        let got = read_tele(&mut sim, side, table, index);
        let want = tele.get(&(side, table, index)).copied().unwrap_or_default();
        if got != want {
            r.mismatches.push(format!("telemetry side {side} table {table} index {index}: {got:?}, the model says {want:?}"));
        }
        r.tele_checked += 1;
        r.tele_frames += want[0] + want[2];
    }

    // compare
    let span = |fs: &[&SeenFrame]| match (fs.iter().map(|f| f.first_cycle).min(), fs.iter().map(|f| f.last_cycle).max()) {
        (Some(a), Some(b)) => b - a + 1,
        _ => 0,
    };
    r.eg_span = span(&b.monitors[0].frames.iter().chain(&b.monitors[1].frames).collect::<Vec<_>>());
    r.ig_span = span(&b.monitors[2].frames.iter().collect::<Vec<_>>());
    let mut captured = vec![];
    for p in 0..2 {
        let got = &b.monitors[p].frames;
        r.eg_out[p] = got.len();
        if got.len() != want_port[p].len() {
            r.mismatches.push(format!("port {p}: {} frames out, the model expects {}", got.len(), want_port[p].len()));
        }
        for (k, (g, w)) in got.iter().zip(&want_port[p]).enumerate() {
            r.eg_bytes += g.data.len() as u64;
            if g.data != w.frame {
                r.mismatches.push(frame_diff(&format!("port {p} frame {k}"), &g.data, w, ovl));
            }
            captured.push(Captured { ts_ns: g.first_cycle * 4, data: g.data.clone() });
        }
    }
    let got = &b.monitors[2].frames;
    r.ig_out = got.len();
    if got.len() != r.ig_want {
        r.mismatches.push(format!("host: {} frames out, the model expects {}", got.len(), r.ig_want));
    }
    for (k, (g, vf)) in got.iter().zip(&vfs).enumerate() {
        r.ig_bytes += g.data.len() as u64;
        // from port 0 or port 1: each port's frames keep their order. A frame that matches
        // neither port's next is reported against the closer one (the same length first, then
        // the longer common prefix), which is then taken: one bad frame is one mismatch.
        let exact = (0..2).find(|p| want_host[*p].front().is_some_and(|w| w.frame == g.data));
        let closeness = |p: &usize| {
            want_host[*p].front().map(|w| (w.frame.len() == g.data.len(), w.frame.iter().zip(&g.data).take_while(|(a, b)| a == b).count()))
        };
        let Some(p) = exact.or_else(|| (0..2).filter(|p| !want_host[*p].is_empty()).max_by_key(closeness)) else {
            r.mismatches.push(format!("host frame {k}: the model expects no more frames"));
            continue;
        };
        let w = want_host[p].pop_front().unwrap();
        if exact.is_none() {
            r.mismatches.push(frame_diff(&format!("host frame {k}"), &g.data, &w, false));
        }
        if w.to != *vf {
            r.mismatches.push(format!("host frame {k}: VF {vf}, the model says {}; the frame: {}", w.to, w.about));
        }
        captured.push(Captured { ts_ns: g.first_cycle * 4, data: g.data.clone() });
    }
    if let Some(path) = &o.pcap {
        captured.sort_by_key(|c| c.ts_ns);
        write_pcap(path, &captured)?;
    }
    Ok(r)
}

/// Read one telemetry entry (`em::tele`) of an `EmDatapath` through its table read-back port:
/// [frames passed, bytes, frames dropped].
pub fn read_tele<S: CycleSim>(sim: &mut S, side: u8, table: u8, index: u16) -> [u64; 3] {
    let (rb, rbv, mrb, mrbv) = (sim.port("s_rb"), sim.port("s_rb_valid"), sim.port("m_rb"), sim.port("m_rb_valid"));
    let q = EmTblWrFields { table, index, d0: 0, d1: 0, dest: 4 | (side << 1) };
    sim.set(rb, &q.to_words());
    sim.set_bit(rbv, true);
    sim.eval();
    sim.tick();
    sim.set_bit(rbv, false);
    for _ in 0..8 {
        sim.eval();
        if sim.get_bit(mrbv) {
            let d = EmTblWrFields::from_words(&sim.get_words(mrb)).d0;
            sim.tick();
            return [d as u32 as u64, (d >> 32) as u64, (d >> 96) as u32 as u64];
        }
        sim.tick();
    }
    panic!("no telemetry answer for side {side} table {table} index {index}");
}

/// Load table writes into an idle `EmDatapath` the way the M2M endpoint applies a batch: into
/// the shadow bank, swap, wait until no frame reads the old bank, and again into the new shadow.
pub fn load_tables<S: CycleSim>(sim: &mut S, writes: &[EmTblWrFields]) {
    let (tw, twv, swap, busy) = (sim.port("s_tw"), sim.port("s_tw_valid"), sim.port("swap"), sim.port("busy"));
    for pass in 0..2 {
        for w in writes {
            sim.set(tw, &w.to_words());
            sim.set_bit(twv, true);
            sim.eval();
            sim.tick();
        }
        sim.set_bit(twv, false);
        if pass == 0 {
            sim.set_bit(swap, true);
            sim.eval();
            sim.tick();
            sim.set_bit(swap, false);
            sim.eval();
            sim.tick();
            while sim.get_bit(busy) {
                sim.tick();
            }
        }
    }
}
