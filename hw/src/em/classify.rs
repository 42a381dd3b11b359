//! `EmClassify`: classification and policy. Per parsed frame header it resolves the tenant,
//! applies the tenant's ACL and, on the host side, its VF's QoS profile, and hands the header on
//! with a verdict (`EmAct`). It drops nothing itself: the frame's gate acts on the verdict.
//! The golden model is `nicgen_model::em::ClsTables::classify`.
//!
//! ```text
//! s_hdr ─► key, hash ─► map (4 ways) ─► tenant ─► ACL group (16 rules) ─► match ─► resolve ─► QoS cfg ─► GCRA ─► m_hdr, m_act
//!          (VF | VNI | PIP)  compare      table     read at once          16 ×     priority   len × T    TAT RAM
//! s_tw (table writes, any cycle) ─► the five RAMs                                                    m_ev (misses)
//! ```
//!
//! - **Tenant map** (`map_bits`, default 10: 1024 rows × 4 ways = 4K keys): key `{kind, value}`:
//!   the VF (host side), the VNI (a VXLAN frame from the wire: the VNI check of overlay mode)
//!   or the destination address (a PIP: any other frame from the wire). A key lives in one of
//!   the 4 ways of the row its hash names (`nicgen_model::em::map_row`); the four are read and
//!   compared at once. A miss, or a tenant whose entry is not valid, is `no_tenant`, and the
//!   frame's key and 5-tuple go to the OM as an event on `m_ev`.
//! - **Tenant table** (`ten_bits`, default 12: 4K tenants): valid and the tenant's ACL group.
//! - **ACL** (`group_bits`, default 6: 64 groups × 16 rules = 1K rules): the 16 rules of the
//!   tenant's group are read at once and matched (prefixes, protocol, port ranges); the verdict
//!   is the last match up to the first terminating one, deny without a match. A tenant's rules
//!   change atomically by writing a new group and then the tenant's group number (one write).
//! - **QoS** (4K VFs): GCRA per VF, in 1/65536 cycles: a frame conforms when its VF's
//!   TAT ≤ now + τ and then moves it to max(TAT, now) + len × T. The TAT RAM is read a stage ahead and
//!   the last write is forwarded, so back-to-back frames of one VF see each other. `now` is a
//!   64-bit cycle counter that reset does not clear (time never runs backwards under a TAT).
//!
//! Eight stages, one header per cycle; the whole pipeline advances when the output skid has
//! room (`adv`). Latency: 9 cycles (`CLASSIFY_LATENCY`).
use super::{vfield, EmHdr, EmHdrFields};
pub use nicgen_model::em::ClsDrop;
use crate::stream::*;
use nicgen_model::em::{AclRule, QosCfg, ACL_SLOTS, MAP_WAYS, QOS_FRAC};
use rust_hdl::prelude::*;

crate::record!(
    /// The classifier's verdict on a frame, beside its header.
    EmAct,
    EmActFields {
        tenant: u16 = 12,
        /// 0: pass; else `nicgen_model::em::ClsDrop`.
        cause: u8 = 3,
        /// Out of profile, passed marked.
        marked: bool = 1,
        /// An ACL rule decided (`rule` is its slot).
        rule_hit: bool = 1,
        rule: u8 = 4,
        /// The cycle (low 32 bits) at which the frame passed the policer.
        ts: u32 = 32,
        /// The table bank the frame reads throughout (the classifier's and the lookups').
        bank: bool = 1,
    }
);

crate::record!(
    /// A table write: `table` 0 tenant map (index = row × 4 + way), 1 tenant (index = tenant),
    /// 2 ACL rule (index = group × 16 + slot), 3 QoS profile (index = VF); the entry packed
    /// from bit 0 of `{d1, d0}`.
    EmTblWr,
    EmTblWrFields {
        table: u8 = 2,
        index: u16 = 16,
        d0: u128 = 128,
        d1: u128 = 96,
        /// In the EM: bit 0 the block (0 classifier, 1 lookups), bit 1 the side (0 host, 1 wire),
        /// bit 2 telemetry (read-back only: `table` 0 per VF, 1 per tenant; see `em::tele`).
        dest: u8 = 3,
    }
);

crate::record!(
    /// A miss event for the OM: the key that found nothing and the frame's 5-tuple. Kinds 0-2:
    /// no tenant for a VF, VNI or PIP (`value`); 3: no remote entry, 4: no local entry (`value`
    /// the address, `tenant` the frame's tenant).
    EmEvent,
    EmEventFields {
        kind: u8 = 3,
        value: u32 = 32,
        src: u32 = 32,
        dst: u32 = 32,
        proto: u8 = 8,
        sport: u16 = 16,
        dport: u16 = 16,
        tenant: u16 = 12,
    }
);

crate::record!(
    /// An ACL rule as the RAM holds it (`nicgen_model::em::AclRule`).
    AclRuleBits,
    AclRuleBitsFields {
        valid: bool = 1,
        allow: bool = 1,
        term: bool = 1,
        proto_any: bool = 1,
        proto: u8 = 8,
        src: u32 = 32,
        src_mask: u32 = 32,
        dst: u32 = 32,
        dst_mask: u32 = 32,
        sp_lo: u16 = 16,
        sp_hi: u16 = 16,
        dp_lo: u16 = 16,
        dp_hi: u16 = 16,
    }
);

crate::record!(
    /// A QoS profile as the RAM holds it (`nicgen_model::em::QosCfg`).
    QosCfgBits,
    QosCfgBitsFields {
        enable: bool = 1,
        mark: bool = 1,
        t: u32 = 32,
        tau: u64 = 48,
    }
);

crate::record!(
    /// A tenant map entry (one way).
    MapEntryBits,
    MapEntryBitsFields {
        valid: bool = 1,
        pinned: bool = 1,
        kind: u8 = 2,
        value: u32 = 32,
        tenant: u16 = 12,
    }
);

/// A tenant table entry.
pub const TENANT_BITS: usize = 16;

impl From<&AclRule> for AclRuleBitsFields {
    fn from(r: &AclRule) -> Self {
        AclRuleBitsFields {
            valid: r.valid,
            allow: r.allow,
            term: r.term,
            proto_any: r.proto_any,
            proto: r.proto,
            src: r.src,
            src_mask: r.src_mask,
            dst: r.dst,
            dst_mask: r.dst_mask,
            sp_lo: r.sp_lo,
            sp_hi: r.sp_hi,
            dp_lo: r.dp_lo,
            dp_hi: r.dp_hi,
        }
    }
}

impl EmTblWrFields {
    fn with(table: u8, index: u16, bits: u128, hi: u128) -> Self {
        EmTblWrFields { table, index, d0: bits, d1: hi, dest: 0 }
    }
    /// The same write, sent to `dest` in the EM (bit 0: the lookups; bit 1: the wire side).
    pub fn to(self, dest: u8) -> Self {
        EmTblWrFields { dest, ..self }
    }
    /// Words (LSB first) to the write's data.
    fn of_words(table: u8, index: u16, w: &[u32]) -> Self {
        let big = crate::record::words_get(w, 0, 128);
        let hi = if w.len() > 4 { crate::record::words_get(w, 128, 96) } else { 0 };
        Self::with(table, index, big, hi)
    }
    pub fn map(row: u32, way: usize, e: &nicgen_model::em::MapEntry) -> Self {
        let b = MapEntryBitsFields { valid: e.valid, pinned: e.pinned, kind: e.kind, value: e.value, tenant: e.tenant };
        Self::of_words(0, (row * MAP_WAYS as u32 + way as u32) as u16, &b.to_words())
    }
    pub fn tenant(tenant: u16, valid: bool, group: u16) -> Self {
        Self::with(1, tenant, (valid as u128) << 15 | (group & 0x7fff) as u128, 0)
    }
    pub fn acl(group: u16, slot: usize, r: &AclRule) -> Self {
        Self::of_words(2, group * ACL_SLOTS as u16 + slot as u16, &AclRuleBitsFields::from(r).to_words())
    }
    pub fn qos(vf: u16, c: &QosCfg) -> Self {
        let b = QosCfgBitsFields { enable: c.enable, mark: c.mark, t: c.t, tau: c.tau };
        Self::of_words(3, vf, &b.to_words())
    }
    /// The packed data `{d1, d0}` as words.
    fn data_words(&self) -> Vec<u32> {
        crate::record::words_put(224, [(0, 128, self.d0), (128, 96, self.d1)].into_iter())
    }
}

/// Stages from a header in to its verdict out (no backpressure).
pub const CLASSIFY_LATENCY: usize = 9;
const VF_BITS: usize = 12;
const TAT_BITS: usize = 80;

/// The classifier's sizes (address bits of each table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClsSizes {
    pub map_bits: usize,
    pub ten_bits: usize,
    pub group_bits: usize,
}

impl Default for ClsSizes {
    fn default() -> Self {
        ClsSizes { map_bits: 10, ten_bits: 12, group_bits: 6 }
    }
}

// ------------------------------------------------------------------ the core's Rust model

fn mask(n: usize) -> u128 {
    if n >= 128 { u128::MAX } else { (1u128 << n) - 1 }
}

#[derive(Clone, Default)]
struct Stage {
    v: bool,
    /// The table bank this header reads.
    b: bool,
    h: EmHdrFields,
}

/// The core's RAMs.
#[derive(Clone, Default)]
struct Mems {
    map: Vec<[u128; MAP_WAYS]>,
    ten: Vec<u32>,
    acl: Vec<[AclRuleBitsFields; ACL_SLOTS]>,
    qcfg: Vec<QosCfgBitsFields>,
    tat: Vec<u128>,
}

/// The core's RAMs and registers (the Rust side of the Verilog, cycle for cycle).
#[derive(Clone, Default)]
struct CoreState {
    m: Mems,
    r: Regs,
}

#[derive(Clone, Default)]
struct Regs {
    now: u64,
    s1: Stage,
    kind1: u8,
    val1: u32,
    m_rd: [u128; MAP_WAYS],
    s2: Stage,
    hit2: bool,
    ten2: u16,
    s3: Stage,
    hit3: bool,
    ten3: u16,
    t_rd: u32,
    s4: Stage,
    ok4: bool,
    ten4: u16,
    tup4: Tup,
    r_rd: [AclRuleBitsFields; ACL_SLOTS],
    s5: Stage,
    ok5: bool,
    ten5: u16,
    m5: u16,
    t5: u16,
    a5: u16,
    s6: Stage,
    ok6: bool,
    ten6: u16,
    allow6: bool,
    hit6: bool,
    rule6: u8,
    q_rd: QosCfgBitsFields,
    s7: Stage,
    ok7: bool,
    ten7: u16,
    allow7: bool,
    hit7: bool,
    rule7: u8,
    en7: bool,
    mark7: bool,
    inc7: u64,
    lim7: u128,
    t7: u64,
    tat_rd: u128,
    tup7: Tup,
    bpv: bool,
    bp_vf: u16,
    bp_tat: u128,
    ov: bool,
    oh: EmHdrFields,
    oa: EmActFields,
    oe: EmEventFields,
    // table read-back
    rb_v1: bool,
    rb_val1: (u128, u128),
    rb_v2: bool,
    rb_q: (u128, u128),
}

/// The offset of bank `b` in a two-bank table of `bits` address bits.
fn bk(b: bool, bits: usize) -> usize {
    (b as usize) << bits
}

/// The map key (`nicgen_model::em::class_key`): kind 3 is an IPv6 frame from the wire outside
/// VXLAN, which never hits and raises no event.
fn key_of(h: &EmHdrFields, wire: bool) -> (u8, u32) {
    match (wire, h.vxlan) {
        (false, _) => (0, h.vf as u32),
        (true, true) => (1, h.vni),
        (true, false) => (if h.v6 { 3 } else { 2 }, h.dst),
    }
}

/// The 5-tuple the ACL and the lookups use (the inner frame's under VXLAN), and whether it is
/// IPv6 (its addresses then are folds).
pub(crate) type Tup = (u32, u32, u8, u16, u16, bool);

/// The (src, dst, proto, sport, dport, v6) the ACL and the lookups use.
pub(crate) fn tuple_of(h: &EmHdrFields) -> Tup {
    if h.vxlan {
        (h.i_src, h.i_dst, h.i_proto, h.i_sport, h.i_dport, h.i_v6)
    } else {
        (h.src, h.dst, h.proto, h.sport, h.dport, h.v6)
    }
}

fn rule_matches(r: &AclRuleBitsFields, t: &Tup) -> bool {
    let rule = AclRule { valid: r.valid, allow: r.allow, term: r.term, proto_any: r.proto_any, proto: r.proto, src: r.src, src_mask: r.src_mask, dst: r.dst, dst_mask: r.dst_mask, sp_lo: r.sp_lo, sp_hi: r.sp_hi, dp_lo: r.dp_lo, dp_hi: r.dp_hi };
    rule.matches(&nicgen_model::em::Tuple { src: t.0, dst: t.1, proto: t.2, sport: t.3, dport: t.4, v6: t.5 })
}

impl CoreState {
    fn new(z: ClsSizes) -> Self {
        // two banks of each table (the TAT RAM is state, not a table: one bank)
        let m = Mems {
            map: vec![[0; MAP_WAYS]; 2 << z.map_bits],
            ten: vec![0; 2 << z.ten_bits],
            acl: vec![[AclRuleBitsFields::default(); ACL_SLOTS]; 2 << z.group_bits],
            qcfg: vec![QosCfgBitsFields::default(); 2 << VF_BITS],
            tat: vec![0; 1 << VF_BITS],
        };
        CoreState { m, r: Regs::default() }
    }

    /// One clock edge: `hdr`/`hv` the input, `tw` a table write.
    #[allow(clippy::too_many_arguments)]
    /// The live bank's entry `index` of `table`, as the read-back port answers it.
    fn read_back(&self, z: ClsSizes, bank: bool, table: u8, index: u16) -> (u128, u128) {
        let i = index as usize;
        let m = &self.m;
        let w = match table & 3 {
            0 => crate::record::words_put(48, [(0, 48, m.map[bk(bank, z.map_bits) | (i >> 2) & mask(z.map_bits) as usize][i & 3])].into_iter()),
            1 => vec![m.ten[bk(bank, z.ten_bits) | i & mask(z.ten_bits) as usize]],
            2 => m.acl[bk(bank, z.group_bits) | (i >> 4) & mask(z.group_bits) as usize][i & 15].to_words(),
            _ => m.qcfg[bk(bank, VF_BITS) | i & mask(VF_BITS) as usize].to_words(),
        };
        let n = w.len() * 32;
        (crate::record::words_get(&w, 0, n.min(128)), if n > 128 { crate::record::words_get(&w, 128, n - 128) } else { 0 })
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(&mut self, z: ClsSizes, reset: bool, hdr: EmHdrFields, hv: bool, (bank, wbank): (bool, bool), wire: bool, adv: bool, tw: Option<EmTblWrFields>, rb: Option<EmTblWrFields>) {
        // read-back: port A reads when no write is in the same cycle
        let rb_now = rb.filter(|_| tw.is_none()).map(|r| self.read_back(z, bank, r.table, r.index));
        if self.r.rb_v1 {
            self.r.rb_q = self.r.rb_val1;
        }
        self.r.rb_v2 = self.r.rb_v1;
        self.r.rb_v1 = rb_now.is_some();
        self.r.rb_val1 = rb_now.unwrap_or_default();
        let s = &self.r.clone();
        let mem = &self.m;
        let mut tat_w = None;
        let r = &mut self.r;
        if adv {
            // stage 7 -> out, with the TAT write
            let tat_cur = if s.bpv && s.bp_vf == s.s7.h.vf { s.bp_tat } else { s.tat_rd };
            let policed = s.ok7 && s.allow7 && s.en7 && !wire;
            let conform = tat_cur <= s.lim7;
            let base = tat_cur.max((s.t7 as u128) << QOS_FRAC);
            let new_tat = (base + s.inc7 as u128) & mask(TAT_BITS);
            if s.s7.v && policed && conform {
                let vf = s.s7.h.vf as usize & mask(VF_BITS) as usize;
                tat_w = Some((vf, new_tat));
                r.bp_vf = s.s7.h.vf;
                r.bp_tat = new_tat;
                r.bpv = true;
            }
            let cause = if !s.ok7 { 1 } else if !s.allow7 { 2 } else if policed && !conform && !s.mark7 { 3 } else { 0 };
            r.ov = s.s7.v;
            r.oh = s.s7.h;
            r.oa = EmActFields { tenant: s.ten7, cause, marked: policed && !conform && s.mark7, rule_hit: s.hit7 && s.ok7, rule: if s.ok7 { s.rule7 } else { 0 }, ts: s.t7 as u32, bank: s.s7.b };
            let (kind, value) = key_of(&s.s7.h, wire);
            r.oe = EmEventFields { kind, value, src: s.tup7.0, dst: s.tup7.1, proto: s.tup7.2, sport: s.tup7.3, dport: s.tup7.4, tenant: s.ten7 };
            // stage 6 -> 7
            r.s7 = s.s6.clone();
            r.ok7 = s.ok6;
            r.ten7 = s.ten6;
            r.allow7 = s.allow6;
            r.hit7 = s.hit6;
            r.rule7 = s.rule6;
            r.en7 = s.q_rd.enable;
            r.mark7 = s.q_rd.mark;
            r.inc7 = s.s6.h.len as u64 * s.q_rd.t as u64;
            r.lim7 = (((s.now as u128) << QOS_FRAC) + s.q_rd.tau as u128) & mask(TAT_BITS);
            r.t7 = s.now;
            r.tat_rd = mem.tat[s.s6.h.vf as usize];
            r.tup7 = tuple_of(&s.s6.h);
            // stage 5 -> 6: resolve
            let mt = s.m5 & s.t5;
            let mn = s.m5 & !s.t5;
            let (hit, rule) = if mt != 0 {
                (true, mt.trailing_zeros() as u8)
            } else if mn != 0 {
                (true, 15 - mn.leading_zeros() as u8)
            } else {
                (false, 0)
            };
            r.s6 = s.s5.clone();
            r.ok6 = s.ok5;
            r.ten6 = s.ten5;
            r.allow6 = hit && s.a5 >> rule & 1 == 1;
            r.hit6 = hit;
            r.rule6 = rule;
            r.q_rd = mem.qcfg[bk(s.s5.b, VF_BITS) | s.s5.h.vf as usize];
            // stage 4 -> 5: match
            let (mut m, mut t, mut a) = (0u16, 0u16, 0u16);
            for (i, r) in s.r_rd.iter().enumerate() {
                m |= (rule_matches(r, &s.tup4) as u16) << i;
                t |= (r.term as u16) << i;
                a |= (r.allow as u16) << i;
            }
            r.s5 = s.s4.clone();
            r.ok5 = s.ok4;
            r.ten5 = s.ten4;
            r.m5 = m;
            r.t5 = t;
            r.a5 = a;
            // stage 3 -> 4: the ACL group read
            let group = (s.t_rd & 0x7fff) as usize & mask(z.group_bits) as usize;
            r.s4 = s.s3.clone();
            r.ok4 = s.hit3 && s.t_rd >> 15 & 1 == 1;
            r.ten4 = s.ten3;
            r.tup4 = tuple_of(&s.s3.h);
            r.r_rd = mem.acl[bk(s.s3.b, z.group_bits) | group];
            // stage 2 -> 3: the tenant read
            r.s3 = s.s2.clone();
            r.hit3 = s.hit2;
            r.ten3 = s.ten2;
            r.t_rd = mem.ten[bk(s.s2.b, z.ten_bits) | s.ten2 as usize & mask(z.ten_bits) as usize];
            // stage 1 -> 2: compare the ways
            let e: Vec<MapEntryBitsFields> = s.m_rd.iter().map(|w| MapEntryBitsFields::from_words(&crate::record::words_put(48, [(0, 48, *w)].into_iter()))).collect();
            let hitw = |w: usize| s.kind1 != 3 && e[w].valid && e[w].kind == s.kind1 && e[w].value == s.val1;
            let first = (0..MAP_WAYS).find(|w| hitw(*w));
            r.s2 = s.s1.clone();
            r.hit2 = first.is_some();
            r.ten2 = first.map_or(0, |w| e[w].tenant);
            // in -> stage 1: the key and the map read
            let (kind, value) = key_of(&hdr, wire);
            let row = nicgen_model::em::map_row(nicgen_model::em::KeyKind::from(kind), value, z.map_bits as u32) as usize;
            r.s1 = Stage { v: hv, b: bank, h: hdr };
            r.kind1 = kind;
            r.val1 = value;
            r.m_rd = mem.map[bk(bank, z.map_bits) | row];
        }
        r.now = s.now.wrapping_add(1);
        if let Some((vf, t)) = tat_w {
            self.m.tat[vf] = t;
        }
        if let Some(w) = tw {
            let d = w.data_words();
            let i = w.index as usize;
            match w.table {
                0 => self.m.map[bk(wbank, z.map_bits) | (i >> 2) & mask(z.map_bits) as usize][i & 3] = crate::record::words_get(&d, 0, 48),
                1 => self.m.ten[bk(wbank, z.ten_bits) | i & mask(z.ten_bits) as usize] = crate::record::words_get(&d, 0, TENANT_BITS) as u32,
                2 => self.m.acl[bk(wbank, z.group_bits) | (i >> 4) & mask(z.group_bits) as usize][i & 15] = AclRuleBitsFields::from_words(&d),
                _ => self.m.qcfg[bk(wbank, VF_BITS) | i & mask(VF_BITS) as usize] = QosCfgBitsFields::from_words(&d),
            }
        }
        if reset {
            let r = &mut self.r;
            for st in [&mut r.s1, &mut r.s2, &mut r.s3, &mut r.s4, &mut r.s5, &mut r.s6, &mut r.s7] {
                st.v = false;
            }
            r.ov = false;
            r.bpv = false;
            r.rb_v1 = false;
            r.rb_v2 = false;
        }
    }
}

// ------------------------------------------------------------------ the core's Verilog

/// The classifier's table memories (management port view).
fn cls_mems(z: ClsSizes) -> Vec<super::TableMem> {
    use super::TableMem as M;
    let mut v = vec![];
    for w in 0..MAP_WAYS {
        v.push(M { name: format!("map{w}"), width: MapEntryBitsFields::BITS, abits: z.map_bits, table: 0, shift: 2, sub: Some((2, w)) });
    }
    v.push(M { name: "tmem".into(), width: TENANT_BITS, abits: z.ten_bits, table: 1, shift: 0, sub: None });
    for s in 0..ACL_SLOTS {
        v.push(M { name: format!("acl{s}"), width: AclRuleBitsFields::BITS, abits: z.group_bits, table: 2, shift: 4, sub: Some((4, s)) });
    }
    v.push(M { name: "qmem".into(), width: QosCfgBitsFields::BITS, abits: VF_BITS, table: 3, shift: 0, sub: None });
    v
}

fn core_verilog(z: ClsSizes) -> String {
    let h = |f: &str| vfield("hdr", EmHdrFields::slot(f));
    let hs = |p: &str, f: &str| vfield(p, EmHdrFields::slot(f));
    let r = |f: &str| AclRuleBitsFields::slot(f);
    let q = |p: &str, f: &str| vfield(p, QosCfgBitsFields::slot(f));
    let me = |p: &str, f: &str| vfield(p, MapEntryBitsFields::slot(f));
    let hb = EmHdrFields::BITS;
    let (mb, tb, gb) = (z.map_bits, z.ten_bits, z.group_bits);
    let rb = AclRuleBitsFields::BITS;
    let qb = QosCfgBitsFields::BITS;
    let eb = MapEntryBitsFields::BITS;
    let mut v = String::new();
    let mem = |v: &mut String, name: &str, w: usize, depth_bits: usize| *v += &super::mem_verilog(name, w, depth_bits, "block");
    v += "integer i;\n";
    // two banks of each table: the top address bit is the bank
    for w in 0..MAP_WAYS {
        mem(&mut v, &format!("map{w}"), eb, mb + 1);
    }
    mem(&mut v, "tmem", TENANT_BITS, tb + 1);
    for s in 0..ACL_SLOTS {
        mem(&mut v, &format!("acl{s}"), rb, gb + 1);
    }
    mem(&mut v, "qmem", qb, VF_BITS + 1);
    mem(&mut v, "tatm", TAT_BITS, VF_BITS);
    // every register starts at zero
    let mut regs: Vec<(String, usize)> = vec![];
    let mut reg = |v: &mut String, name: &str, w: usize| {
        *v += &format!("reg [{}:0] {name};\n", w - 1);
        regs.push((name.to_string(), w));
    };
    for s in 1..=7 {
        reg(&mut v, &format!("v{s}"), 1);
        reg(&mut v, &format!("b{s}"), 1);
        reg(&mut v, &format!("h{s}"), hb);
    }
    for (n, w) in [("kind1", 2), ("val1", 32), ("hit2", 1), ("ten2", 12), ("hit3", 1), ("ten3", 12), ("t_rd", TENANT_BITS), ("ok4", 1), ("ten4", 12), ("tup4", 105), ("ok5", 1), ("ten5", 12), ("m5", 16), ("t5", 16), ("a5", 16)] {
        reg(&mut v, n, w);
    }
    for w in 0..MAP_WAYS {
        reg(&mut v, &format!("m_rd{w}"), eb);
    }
    for s in 0..ACL_SLOTS {
        reg(&mut v, &format!("r_rd{s}"), rb);
    }
    for (n, w) in [("ok6", 1), ("ten6", 12), ("allow6", 1), ("hit6", 1), ("rule6", 4), ("q_rd", qb), ("ok7", 1), ("ten7", 12), ("allow7", 1), ("hit7", 1), ("rule7", 4), ("en7", 1), ("mark7", 1), ("inc7", 48), ("lim7", TAT_BITS), ("t7", 64), ("tat_rd", TAT_BITS), ("tup7", 105), ("bpv", 1), ("bp_vf", 12), ("bp_tat", TAT_BITS), ("fw7", 1), ("now", 64)] {
        reg(&mut v, n, w);
    }
    v += "initial begin\n";
    for (n, w) in &regs {
        v += &format!("  {n} = {w}'d0;\n");
    }
    v += &format!("  o_valid = 1'b0;\n  o_hdr = {hb}'d0;\n  o_act = {}'d0;\n  o_ev = {}'d0;\nend\n", EmActFields::BITS, EmEventFields::BITS);
    // ---- table writes and read-back (port A of each memory)
    let twd = |f: &str| vfield("tw", EmTblWrFields::slot(f));
    v += &format!("wire [223:0] tw_data = {{{}, {}}};\n", twd("d1"), twd("d0"));
    v += &super::table_port_verilog(&cls_mems(z), "tw_data", "bank", "wbank");
    let used = (mb + 2).max(tb).max(gb + 4).max(VF_BITS);
    v += &format!("wire unused_tw = ^tw_data[223:{rb}] ^ ^{}{};\n", twd("dest"), if used < 16 { format!(" ^ ^tw_idx[15:{used}]") } else { String::new() });
    // ---- in: the key, its row, the map read
    v += &format!("wire [1:0] kind0 = !from_wire ? 2'd0 : ({} ? 2'd1 : {} ? 2'd3 : 2'd2);\n", h("vxlan"), h("v6"));
    v += &format!("wire [31:0] val0 = !from_wire ? {{20'd0, {}}} : ({} ? {{8'd0, {}}} : {});\n", h("vf"), h("vxlan"), h("vni"), h("dst"));
    v += &format!("wire [33:0] k = {{kind0, val0}};\nwire [{}:0] row;\n", mb - 1);
    v += &super::fold_xor_verilog("row", "k", 34, mb);
    // ---- stage 1: compare the ways
    for w in 0..MAP_WAYS {
        v += &format!("wire hw{w} = (kind1 != 2'd3) & {} & ({} == kind1) & ({} == val1);\n", me(&format!("m_rd{w}"), "valid"), me(&format!("m_rd{w}"), "kind"), me(&format!("m_rd{w}"), "value"));
        v += &format!("wire [11:0] tw{w}_ten = {};\n", me(&format!("m_rd{w}"), "tenant"));
        v += &format!("wire unused_m{w} = {};\n", me(&format!("m_rd{w}"), "pinned"));
    }
    v += "wire hit1 = hw0 | hw1 | hw2 | hw3;\n";
    v += "wire [11:0] ten1 = hw0 ? tw0_ten : hw1 ? tw1_ten : hw2 ? tw2_ten : hw3 ? tw3_ten : 12'd0;\n";
    // ---- stage 3: the tenant's entry and the tuple
    v += &format!("wire [{}:0] group3 = t_rd[{}:0];\nwire unused_t = ^t_rd[14:{}];\n", gb - 1, gb - 1, gb);
    let tup = |p: &str| {
        format!(
            "{v} ? {{{}, {}, {}, {}, {}, {}}} : {{{}, {}, {}, {}, {}, {}}}",
            hs(p, "i_v6"), hs(p, "i_src"), hs(p, "i_dst"), hs(p, "i_proto"), hs(p, "i_sport"), hs(p, "i_dport"),
            hs(p, "v6"), hs(p, "src"), hs(p, "dst"), hs(p, "proto"), hs(p, "sport"), hs(p, "dport"),
            v = hs(p, "vxlan")
        )
    };
    v += &format!("wire [104:0] tup3 = {};\nwire [104:0] tup6 = {};\n", tup("h3"), tup("h6"));
    // ---- stage 4: match the 16 rules. tup: v6 104, src 103:72, dst 71:40, proto 39:32, sport
    // 31:16, dport 15:0 (IPv6 matches only rules without address prefixes)
    for s in 0..ACL_SLOTS {
        let f = |n: &str| vfield(&format!("r_rd{s}"), r(n));
        v += &format!(
            "wire rm{s} = {valid} & (!tup4[104] | (({sm} | {dm}) == 32'd0)) & (((tup4[103:72] ^ {src}) & {sm}) == 32'd0) & (((tup4[71:40] ^ {dst}) & {dm}) == 32'd0) & ({pa} | (tup4[39:32] == {pr})) & (tup4[31:16] >= {spl}) & (tup4[31:16] <= {sph}) & (tup4[15:0] >= {dpl}) & (tup4[15:0] <= {dph});\n",
            valid = f("valid"), src = f("src"), sm = f("src_mask"), dst = f("dst"), dm = f("dst_mask"), pa = f("proto_any"), pr = f("proto"),
            spl = f("sp_lo"), sph = f("sp_hi"), dpl = f("dp_lo"), dph = f("dp_hi")
        );
    }
    let cat = |p: &str| (0..ACL_SLOTS).rev().map(|s| format!("{p}{s}")).collect::<Vec<_>>().join(", ");
    v += &format!("wire [15:0] m4 = {{{}}};\n", cat("rm"));
    v += &format!("wire [15:0] t4 = {{{}}};\n", (0..ACL_SLOTS).rev().map(|s| vfield(&format!("r_rd{s}"), r("term"))).collect::<Vec<_>>().join(", "));
    v += &format!("wire [15:0] a4 = {{{}}};\n", (0..ACL_SLOTS).rev().map(|s| vfield(&format!("r_rd{s}"), r("allow"))).collect::<Vec<_>>().join(", "));
    // ---- stage 5: resolve: the first terminating match, else the last match
    v += "wire [15:0] mt5 = m5 & t5;\nwire [15:0] mn5 = m5 & ~t5;\nreg [3:0] ft5;\nreg [3:0] ln5;\n";
    v += "always @(*) begin\n  ft5 = 4'd0;\n  for (i = 15; i >= 0; i = i - 1) if (mt5[i]) ft5 = i[3:0];\n  ln5 = 4'd0;\n  for (i = 0; i < 16; i = i + 1) if (mn5[i]) ln5 = i[3:0];\nend\n";
    v += "wire hit5 = (mt5 != 16'd0) | (mn5 != 16'd0);\nwire [3:0] rule5 = (mt5 != 16'd0) ? ft5 : ln5;\nwire allow5 = hit5 & a5[rule5];\n";
    // ---- stage 7: GCRA with the last write forwarded
    // (`fw7`, a register: the last write is of this VF, `bpv & (bp_vf == vf)`, worked out as the
    // header enters the stage, so no VF compare sits before the GCRA's compares and adder)
    v += &format!("wire [{}:0] tat_cur = fw7 ? bp_tat : tat_rd;\n", TAT_BITS - 1);
    v += "wire policed = ok7 & allow7 & en7 & !from_wire;\n";
    v += "wire conform = tat_cur <= lim7;\n";
    v += &format!("wire [{n}:0] now7 = {{t7, {f}'d0}};\nwire [{n}:0] base7 = (tat_cur > now7) ? tat_cur : now7;\nwire [{n}:0] new_tat = base7 + {{32'd0, inc7}};\n", n = TAT_BITS - 1, f = QOS_FRAC);
    v += "wire [2:0] cause7 = !ok7 ? 3'd1 : !allow7 ? 3'd2 : (policed & !conform & !mark7) ? 3'd3 : 3'd0;\n";
    v += "wire marked7 = policed & !conform & mark7;\n";
    v += &format!("wire [{}:0] act7 = {{b7, t7[31:0], ok7 ? rule7 : 4'd0, hit7 & ok7, marked7, cause7, ten7}};\n", EmActFields::BITS - 1);
    v += &format!("wire [{}:0] ev7 = {{ten7, tup7[15:0], tup7[31:16], tup7[39:32], tup7[71:40], tup7[103:72], !from_wire ? {{20'd0, {vf}}} : ({vx} ? {{8'd0, {vni}}} : {dst}), !from_wire ? 3'd0 : ({vx} ? 3'd1 : {v6} ? 3'd3 : 3'd2)}};\nwire unused_tup7 = tup7[104];\n",
        EmEventFields::BITS - 1, vf = hs("h7", "vf"), vx = hs("h7", "vxlan"), vni = hs("h7", "vni"), dst = hs("h7", "dst"), v6 = hs("h7", "v6"));
    // ---- the pipeline
    v += "always @(posedge clock) begin\n  now <= now + 64'd1;\n  if (adv) begin\n";
    v += &format!("    if (v7 & policed & conform) begin\n      tatm[{vf}] <= new_tat;\n      bp_vf <= {vf};\n      bp_tat <= new_tat;\n      bpv <= 1'b1;\n    end\n", vf = hs("h7", "vf"));
    v += &format!("    fw7 <= (v7 & policed & conform) ? ({vf7} == {vf6}) : (bpv & (bp_vf == {vf6}));\n", vf7 = hs("h7", "vf"), vf6 = hs("h6", "vf"));
    v += "    o_valid <= v7;\n    o_hdr <= h7;\n    o_act <= act7;\n    o_ev <= ev7;\n";
    v += "    v7 <= v6;\n    b7 <= b6;\n    h7 <= h6;\n    ok7 <= ok6;\n    ten7 <= ten6;\n    allow7 <= allow6;\n    hit7 <= hit6;\n    rule7 <= rule6;\n";
    v += &format!("    en7 <= {};\n    mark7 <= {};\n    inc7 <= {{32'd0, {}}} * {{16'd0, {}}};\n", q("q_rd", "enable"), q("q_rd", "mark"), hs("h6", "len"), q("q_rd", "t"));
    v += &format!("    lim7 <= {{now, {}'d0}} + {{32'd0, {}}};\n    t7 <= now;\n    tat_rd <= tatm[{}];\n    tup7 <= tup6;\n", QOS_FRAC, q("q_rd", "tau"), hs("h6", "vf"));
    v += "    v6 <= v5;\n    b6 <= b5;\n    h6 <= h5;\n    ok6 <= ok5;\n    ten6 <= ten5;\n    allow6 <= allow5;\n    hit6 <= hit5;\n    rule6 <= rule5;\n";
    v += &format!("    q_rd <= qmem[{{b5, {}}}];\n", hs("h5", "vf"));
    v += "    v5 <= v4;\n    b5 <= b4;\n    h5 <= h4;\n    ok5 <= ok4;\n    ten5 <= ten4;\n    m5 <= m4;\n    t5 <= t4;\n    a5 <= a4;\n";
    v += "    v4 <= v3;\n    b4 <= b3;\n    h4 <= h3;\n    ok4 <= hit3 & t_rd[15];\n    ten4 <= ten3;\n    tup4 <= tup3;\n";
    for s in 0..ACL_SLOTS {
        v += &format!("    r_rd{s} <= acl{s}[{{b3, group3}}];\n");
    }
    v += &format!("    v3 <= v2;\n    b3 <= b2;\n    h3 <= h2;\n    hit3 <= hit2;\n    ten3 <= ten2;\n    t_rd <= tmem[{{b2, ten2[{}:0]}}];\n", tb - 1);
    v += "    v2 <= v1;\n    b2 <= b1;\n    h2 <= h1;\n    hit2 <= hit1;\n    ten2 <= ten1;\n";
    v += "    v1 <= hdr_valid;\n    b1 <= bank;\n    h1 <= hdr;\n    kind1 <= kind0;\n    val1 <= val0;\n";
    for w in 0..MAP_WAYS {
        v += &format!("    m_rd{w} <= map{w}[{{bank, row}}];\n");
    }
    v += "  end\n  if (reset) begin\n    v1 <= 1'b0;\n    v2 <= 1'b0;\n    v3 <= 1'b0;\n    v4 <= 1'b0;\n    v5 <= 1'b0;\n    v6 <= 1'b0;\n    v7 <= 1'b0;\n    o_valid <= 1'b0;\n    bpv <= 1'b0;\n    fw7 <= 1'b0;\n  end\nend\n";
    // bits of the pipelined headers no stage reads
    v
}

/// The classifier's core: the eight stages and the tables (a Custom Verilog block with a
/// cycle-exact Rust model).
#[derive(LogicBlock)]
pub struct ClsCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub from_wire: Signal<In, Bit>,
    pub hdr: Signal<In, EmHdr>,
    pub hdr_valid: Signal<In, Bit>,
    /// The bank new headers read; the bank table writes go to.
    pub bank: Signal<In, Bit>,
    pub wbank: Signal<In, Bit>,
    pub adv: Signal<In, Bit>,
    pub tw: Signal<In, EmTblWr>,
    pub tw_valid: Signal<In, Bit>,
    /// Table read-back (live bank): `table` and `index` of `rb`; `{d1, d0}` of `rb_data` two
    /// cycles later with `rb_dvalid`. Not in a cycle with a table write.
    pub rb: Signal<In, EmTblWr>,
    pub rb_valid: Signal<In, Bit>,
    pub rb_data: Signal<Out, EmTblWr>,
    pub rb_dvalid: Signal<Out, Bit>,
    pub o_valid: Signal<Out, Bit>,
    pub o_hdr: Signal<Out, EmHdr>,
    pub o_act: Signal<Out, EmAct>,
    pub o_ev: Signal<Out, EmEvent>,
    _z: ClsSizes,
    _s: Box<CoreState>,
}

impl ClsCore {
    pub fn new(z: ClsSizes) -> Self {
        ClsCore {
            clock: Default::default(),
            reset: Default::default(),
            from_wire: Default::default(),
            hdr: Default::default(),
            hdr_valid: Default::default(),
            bank: Default::default(),
            wbank: Default::default(),
            adv: Default::default(),
            tw: Default::default(),
            tw_valid: Default::default(),
            rb: Default::default(),
            rb_valid: Default::default(),
            rb_data: Default::default(),
            rb_dvalid: Default::default(),
            o_valid: Default::default(),
            o_hdr: Default::default(),
            o_act: Default::default(),
            o_ev: Default::default(),
            _z: z,
            _s: Box::new(CoreState::new(z)),
        }
    }
}

impl Logic for ClsCore {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let tw = self.tw_valid.val().then(|| EmTblWrFields::from_struct(&self.tw.val()));
            let hdr = EmHdrFields::from_struct(&self.hdr.val());
            let rb = self.rb_valid.val().then(|| EmTblWrFields::from_struct(&self.rb.val()));
            self._s.edge(self._z, self.reset.val(), hdr, self.hdr_valid.val(), (self.bank.val(), self.wbank.val()), self.from_wire.val(), self.adv.val(), tw, rb);
        }
        self.o_valid.next = self._s.r.ov;
        self.o_hdr.next = self._s.r.oh.to_struct();
        self.o_act.next = self._s.r.oa.to_struct();
        self.o_ev.next = self._s.r.oe.to_struct();
        self.rb_data.next = EmTblWrFields { d0: self._s.r.rb_q.0, d1: self._s.r.rb_q.1, ..Default::default() }.to_struct();
        self.rb_dvalid.next = self._s.r.rb_v2;
    }
    fn connect(&mut self) {
        self.rb_data.connect();
        self.rb_dvalid.connect();
        self.o_valid.connect();
        self.o_hdr.connect();
        self.o_act.connect();
        self.o_ev.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(core_verilog(self._z))
    }
}

/// A one-deep event register for the OM: an event pushed while one waits unread is lost and
/// counted in `lost`.
#[derive(LogicBlock, Default)]
pub struct EvSlot {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub s_ev: Signal<In, EmEvent>,
    pub m_ev: Signal<Out, EmEvent>,
    pub m_ev_valid: Signal<Out, Bit>,
    pub m_ev_ready: Signal<In, Bit>,
    pub lost: Signal<Out, Bits<32>>,
    r: DFF<EmEvent>,
    v: DFF<Bit>,
    k: DFF<Bits<32>>,
}

impl Logic for EvSlot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r, v, k);
        if self.v.q.val() & self.m_ev_ready.val() {
            self.v.d.next = false;
        }
        if self.push.val() {
            if !self.v.q.val() | self.m_ev_ready.val() {
                self.r.d.next = self.s_ev.val();
                self.v.d.next = true;
            } else {
                self.k.d.next = self.k.q.val() + 1;
            }
        }
        self.m_ev.next = self.r.q.val();
        self.m_ev_valid.next = self.v.q.val();
        self.lost.next = self.k.q.val();
        if self.reset.val() {
            self.v.d.next = false;
            self.k.d.next = 0.into();
        }
    }
}

/// The classifier: the core, an output skid for the header and the verdict, a one-deep event
/// register (a miss while it is full is lost and counted), and the counters.
#[derive(LogicBlock)]
pub struct EmClassify {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Configuration: this classifier sits on the wire side (VNI or PIP keys, no QoS).
    pub from_wire: Signal<In, Bit>,
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    /// The table bank new headers read (carried in `m_act.bank`), and the bank table writes go
    /// to. Both 0: one bank, writes visible at once.
    pub bank: Signal<In, Bit>,
    pub wbank: Signal<In, Bit>,
    /// Table writes, one per cycle, always taken.
    pub s_tw: Signal<In, EmTblWr>,
    pub s_tw_valid: Signal<In, Bit>,
    pub s_tw_ready: Signal<Out, Bit>,
    /// Table read-back of the `bank` bank (never in a cycle with a write): the entry two cycles
    /// later on `m_rb` (`{d1, d0}`).
    pub s_rb: Signal<In, EmTblWr>,
    pub s_rb_valid: Signal<In, Bit>,
    pub m_rb: Signal<Out, EmTblWr>,
    pub m_rb_valid: Signal<Out, Bit>,
    /// The header and its verdict, one channel (`m_act` moves with `m_hdr`).
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    pub m_act: Signal<Out, EmAct>,
    pub m_ev: Signal<Out, EmEvent>,
    pub m_ev_valid: Signal<Out, Bit>,
    pub m_ev_ready: Signal<In, Bit>,
    pub frames: Signal<Out, Bits<32>>,
    pub drop_no_tenant: Signal<Out, Bits<32>>,
    pub drop_acl: Signal<Out, Bits<32>>,
    pub drop_qos: Signal<Out, Bits<32>>,
    pub marked: Signal<Out, Bits<32>>,
    pub ev_lost: Signal<Out, Bits<32>>,
    core: ClsCore,
    hskid: ChanSkid<EmHdr>,
    askid: ChanSkid<EmAct>,
    ev: EvSlot,
    k_frames: DFF<Bits<32>>,
    k_tenant: DFF<Bits<32>>,
    k_acl: DFF<Bits<32>>,
    k_qos: DFF<Bits<32>>,
    k_mark: DFF<Bits<32>>,
    out: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    c_tenant: Constant<Bits<3>>,
    c_acl: Constant<Bits<3>>,
    c_qos: Constant<Bits<3>>,
}

impl EmClassify {
    pub fn new(z: ClsSizes) -> Self {
        EmClassify {
            clock: Default::default(),
            reset: Default::default(),
            from_wire: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            bank: Default::default(),
            wbank: Default::default(),
            s_tw: Default::default(),
            s_tw_valid: Default::default(),
            s_tw_ready: Default::default(),
            s_rb: Default::default(),
            s_rb_valid: Default::default(),
            m_rb: Default::default(),
            m_rb_valid: Default::default(),
            m_hdr: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            m_act: Default::default(),
            m_ev: Default::default(),
            m_ev_valid: Default::default(),
            m_ev_ready: Default::default(),
            frames: Default::default(),
            drop_no_tenant: Default::default(),
            drop_acl: Default::default(),
            drop_qos: Default::default(),
            marked: Default::default(),
            ev_lost: Default::default(),
            core: ClsCore::new(z),
            hskid: Default::default(),
            askid: Default::default(),
            ev: Default::default(),
            k_frames: Default::default(),
            k_tenant: Default::default(),
            k_acl: Default::default(),
            k_qos: Default::default(),
            k_mark: Default::default(),
            out: Default::default(),
            unused: Default::default(),
            c_tenant: Constant::new(1.into()),
            c_acl: Constant::new(2.into()),
            c_qos: Constant::new(3.into()),
        }
    }
}

impl Default for EmClassify {
    fn default() -> Self {
        Self::new(ClsSizes::default())
    }
}

impl Logic for EmClassify {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, k_frames, k_tenant, k_acl, k_qos, k_mark);
        clock!(self, clock, core, hskid, askid, ev);
        self.ev.reset.next = self.reset.val();
        self.core.reset.next = self.reset.val();
        self.hskid.reset.next = self.reset.val();
        self.askid.reset.next = self.reset.val();
        self.core.from_wire.next = self.from_wire.val();
        self.core.hdr.next = self.s_hdr.val();
        self.core.hdr_valid.next = self.s_hdr_valid.val();
        self.core.bank.next = self.bank.val();
        self.core.wbank.next = self.wbank.val();
        self.core.tw.next = self.s_tw.val();
        self.core.tw_valid.next = self.s_tw_valid.val();
        self.core.rb.next = self.s_rb.val();
        self.core.rb_valid.next = self.s_rb_valid.val();
        self.m_rb.next = self.core.rb_data.val();
        self.m_rb_valid.next = self.core.rb_dvalid.val();
        // the pipeline advances when the skids have room (both hold the same items)
        self.core.adv.next = self.hskid.s_ready.val();
        self.s_hdr_ready.next = self.hskid.s_ready.val();
        self.hskid.s_data.next = self.core.o_hdr.val();
        self.hskid.s_valid.next = self.core.o_valid.val();
        self.askid.s_data.next = self.core.o_act.val();
        self.askid.s_valid.next = self.core.o_valid.val();
        self.hskid.m_ready.next = self.m_hdr_ready.val();
        self.askid.m_ready.next = self.m_hdr_ready.val();
        self.s_tw_ready.next = true;
        self.m_hdr.next = self.hskid.m_data.val();
        self.m_act.next = self.askid.m_data.val();
        self.m_hdr_valid.next = self.hskid.m_valid.val();
        // counters and the miss event, as a verdict leaves the core
        self.out.next = self.core.o_valid.val() & self.hskid.s_ready.val();
        if self.out.val() {
            self.k_frames.d.next = self.k_frames.q.val() + 1;
            if self.core.o_act.val().cause == self.c_tenant.val() {
                self.k_tenant.d.next = self.k_tenant.q.val() + 1;
            }
            if self.core.o_act.val().cause == self.c_acl.val() {
                self.k_acl.d.next = self.k_acl.q.val() + 1;
            }
            if self.core.o_act.val().cause == self.c_qos.val() {
                self.k_qos.d.next = self.k_qos.q.val() + 1;
            }
            if self.core.o_act.val().marked {
                self.k_mark.d.next = self.k_mark.q.val() + 1;
            }
        }
        // (an IPv6 frame from the wire outside VXLAN has no key the OM could install: no event)
        self.ev.push.next = self.out.val() & (self.core.o_act.val().cause == self.c_tenant.val())
            & !(self.from_wire.val() & self.core.o_hdr.val().v6 & !self.core.o_hdr.val().vxlan);
        self.ev.s_ev.next = self.core.o_ev.val();
        self.ev.m_ev_ready.next = self.m_ev_ready.val();
        self.m_ev.next = self.ev.m_ev.val();
        self.m_ev_valid.next = self.ev.m_ev_valid.val();
        self.frames.next = self.k_frames.q.val();
        self.drop_no_tenant.next = self.k_tenant.q.val();
        self.drop_acl.next = self.k_acl.q.val();
        self.drop_qos.next = self.k_qos.q.val();
        self.marked.next = self.k_mark.q.val();
        self.ev_lost.next = self.ev.lost.val();
        self.unused.next = self.askid.m_valid.val() | self.askid.s_ready.val();
        if self.reset.val() {
            self.k_frames.d.next = 0.into();
            self.k_tenant.d.next = 0.into();
            self.k_acl.d.next = 0.into();
            self.k_qos.d.next = 0.into();
            self.k_mark.d.next = 0.into();
        }
    }
}

/// The classifier's counters (register map names and meanings).
pub const EM_CLASSIFY_COUNTERS: [(&str, &str); 6] = [
    ("frames", "verdicts handed on"),
    ("drop_no_tenant", "frames whose key has no (valid) tenant"),
    ("drop_acl", "frames the ACL denied"),
    ("drop_qos", "frames out of their VF's QoS profile (drop mode)"),
    ("marked", "frames out of profile, passed marked"),
    ("ev_lost", "miss events lost because the event output was full"),
];

nicgen_hdl::impl_ports!(EmClassify, clock = clock, [clock, reset, from_wire, s_hdr, s_hdr_valid, s_hdr_ready, bank, wbank,
    s_tw, s_tw_valid, s_tw_ready, s_rb, s_rb_valid, m_rb, m_rb_valid, m_hdr, m_hdr_valid, m_hdr_ready, m_act, m_ev, m_ev_valid, m_ev_ready,
    frames, drop_no_tenant, drop_acl, drop_qos, marked, ev_lost]);

/// The table writes that load the model's tables into the hardware (every valid map entry,
/// every tenant, every valid rule, every enabled QoS profile).
pub fn table_writes(t: &nicgen_model::em::ClsTables) -> Vec<EmTblWrFields> {
    let mut w = vec![];
    for (row, ways) in t.map.iter().enumerate() {
        for (way, e) in ways.iter().enumerate().filter(|(_, e)| e.valid) {
            w.push(EmTblWrFields::map(row as u32, way, e));
        }
    }
    for (i, (valid, group)) in t.tenants.iter().enumerate().filter(|(_, (v, g))| *v || *g != 0) {
        w.push(EmTblWrFields::tenant(i as u16, *valid, *group));
    }
    for (g, rules) in t.acl.iter().enumerate() {
        for (s, r) in rules.iter().enumerate().filter(|(_, r)| r.valid) {
            w.push(EmTblWrFields::acl(g as u16, s, r));
        }
    }
    for (vf, c) in t.qos.iter().enumerate().filter(|(_, c)| c.enable) {
        w.push(EmTblWrFields::qos(vf as u16, c));
    }
    w
}
