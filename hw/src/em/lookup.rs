//! `EmLookup`: the address lookups after classification. Per classified frame (header and
//! verdict) it finds where the frame goes and how it is rewritten (`EmLook`), or drops it by a
//! new cause. Golden model: `nicgen_model::em::LookTables::lookup`.
//!
//! - **Remote table** (`remote_bits`, default 14: 16K rows × 4 ways = 64K entries): `(kind,
//!   tenant, addr)` → addr. Kind 0: a remote VIP → its PIP (host side: the tunnel's
//!   destination in overlay mode, the new destination in NAT mode); kind 1: a remote PIP → its
//!   VIP (NAT ingress: the new source). A key lives in one of the 4 ways of the row its hash
//!   names (bounded probing); the four are read and compared at once. Entries carry a `pinned`
//!   bit for the OM (RDMA entries are never evicted).
//! - **Local table** (`local_bits`, default 10: 4K entries): `(tenant, addr)` → the VF that owns
//!   the address and its VIP (wire side: the frame's destination; the VF is its host queue).
//! - **VF table** (4K): the VF's VIP and PIP (NAT egress: the source must be the VIP and
//!   becomes the PIP; anything else is `spoof`).
//! - **Tenant VNI** (4K): the VNI of the tenant's overlay.
//!
//! A miss is dropped (`no_route`, `no_local`) and reported on `m_ev`. An IPv6 frame's addresses
//! are their 32-bit folds (the keys of its entries); NAT mode drops IPv6 frames first (`ipv6`:
//! VIPs and PIPs are IPv4 addresses). Frames the classifier
//! already dropped pass with their cause. Three stages (read, compare, decide), one frame per
//! cycle; latency 4 cycles (`LOOKUP_LATENCY`).
use super::classify::{tuple_of as tuple, EmAct, EmActFields, EmEvent, EmEventFields, EmTblWr, EmTblWrFields, EvSlot};
use super::{vfield, EmHdr, EmHdrFields};
use crate::stream::*;
use nicgen_model::em::{LocalEntry, LookTables, RemoteEntry, MAP_WAYS};
use rust_hdl::prelude::*;

crate::record!(
    /// Where a frame goes and how it is rewritten.
    EmLook,
    EmLookFields {
        /// From the wire: the host VF (queue) the frame goes to.
        vf: u16 = 12,
        /// NAT: the new source and/or destination.
        src_rw: bool = 1,
        dst_rw: bool = 1,
        src: u32 = 32,
        dst: u32 = 32,
        /// Overlay egress: the tunnel's VNI and destination (the remote VTEP's PIP).
        vni: u32 = 24,
        dip: u32 = 32,
        /// Host side: the preferred wire port.
        port: u8 = 1,
    }
);

impl EmLookFields {
    pub fn of(l: &nicgen_model::em::Look) -> Self {
        EmLookFields { vf: l.vf, src_rw: l.src_rw, dst_rw: l.dst_rw, src: l.src, dst: l.dst, vni: l.vni, dip: l.dip, port: l.port }
    }
}

crate::record!(
    /// A remote entry as the RAM holds it.
    RemoteBits,
    RemoteBitsFields {
        valid: bool = 1,
        pinned: bool = 1,
        kind: u8 = 1,
        tenant: u16 = 12,
        addr: u32 = 32,
        value: u32 = 32,
        port: u8 = 1,
    }
);

crate::record!(
    /// A local entry as the RAM holds it.
    LocalBits,
    LocalBitsFields {
        valid: bool = 1,
        tenant: u16 = 12,
        addr: u32 = 32,
        vf: u16 = 12,
        vip: u32 = 32,
    }
);

/// Table numbers of the lookup's write port.
pub mod table {
    pub const REMOTE: u8 = 0;
    pub const LOCAL: u8 = 1;
    pub const VF: u8 = 2;
    pub const VNI: u8 = 3;
}

fn wr(table: u8, index: u16, w: &[u32]) -> EmTblWrFields {
    let mut x = EmTblWrFields { table, index, ..Default::default() };
    x.d0 = crate::record::words_get(w, 0, 128);
    x
}

impl EmTblWrFields {
    pub fn remote(row: u32, way: usize, e: &RemoteEntry) -> Self {
        let b = RemoteBitsFields { valid: e.valid, pinned: e.pinned, kind: e.kind, tenant: e.tenant, addr: e.addr, value: e.value, port: e.port };
        wr(table::REMOTE, (row * MAP_WAYS as u32 + way as u32) as u16, &b.to_words())
    }
    pub fn local(row: u32, way: usize, e: &LocalEntry) -> Self {
        let b = LocalBitsFields { valid: e.valid, tenant: e.tenant, addr: e.addr, vf: e.vf, vip: e.vip };
        wr(table::LOCAL, (row * MAP_WAYS as u32 + way as u32) as u16, &b.to_words())
    }
    pub fn vf(vf: u16, vip: u32, pip: u32) -> Self {
        wr(table::VF, vf, &[vip, pip])
    }
    pub fn vni(tenant: u16, vni: u32) -> Self {
        wr(table::VNI, tenant, &[vni & 0xff_ffff])
    }
}

/// The writes that load the model's lookup tables into the hardware.
pub fn lookup_writes(t: &LookTables) -> Vec<EmTblWrFields> {
    let mut w = vec![];
    for (row, ways) in t.remote.iter().enumerate() {
        for (way, e) in ways.iter().enumerate().filter(|(_, e)| e.valid) {
            w.push(EmTblWrFields::remote(row as u32, way, e));
        }
    }
    for (row, ways) in t.local.iter().enumerate() {
        for (way, e) in ways.iter().enumerate().filter(|(_, e)| e.valid) {
            w.push(EmTblWrFields::local(row as u32, way, e));
        }
    }
    for (vf, (vip, pip)) in t.vfs.iter().enumerate().filter(|(_, x)| **x != (0, 0)) {
        w.push(EmTblWrFields::vf(vf as u16, *vip, *pip));
    }
    for (tenant, vni) in t.vni.iter().enumerate().filter(|(_, v)| **v != 0) {
        w.push(EmTblWrFields::vni(tenant as u16, *vni));
    }
    w
}

/// Cycles from a frame in to its result out (no backpressure).
pub const LOOKUP_LATENCY: usize = 4;

/// The lookup's sizes (row address bits of the two hash tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LookSizes {
    pub remote_bits: usize,
    pub local_bits: usize,
}

impl Default for LookSizes {
    fn default() -> Self {
        LookSizes { remote_bits: 14, local_bits: 10 }
    }
}

// ------------------------------------------------------------------ the core's Rust model

#[derive(Clone, Default)]
struct Mems {
    remote: Vec<[RemoteBitsFields; MAP_WAYS]>,
    local: Vec<[LocalBitsFields; MAP_WAYS]>,
    vfs: Vec<(u32, u32)>,
    vni: Vec<u32>,
}

#[derive(Clone, Default)]
struct Regs {
    v1: bool,
    h1: EmHdrFields,
    a1: EmActFields,
    r_rd: [RemoteBitsFields; MAP_WAYS],
    l_rd: [LocalBitsFields; MAP_WAYS],
    vf_rd: (u32, u32),
    vni_rd: u32,
    v2: bool,
    h2: EmHdrFields,
    a2: EmActFields,
    rhit2: bool,
    rval2: u32,
    rport2: u8,
    lhit2: bool,
    lvf2: u16,
    lvip2: u32,
    vf2: (u32, u32),
    vni2: u32,
    ov: bool,
    oh: EmHdrFields,
    oa: EmActFields,
    ol: EmLookFields,
    oe: EmEventFields,
    omiss: bool,
}

fn mask(n: usize) -> usize {
    (1 << n) - 1
}

impl Regs {
    #[allow(clippy::too_many_arguments)]
    fn edge(&mut self, m: &Mems, z: LookSizes, wire: bool, nat: bool, hdr: EmHdrFields, act: EmActFields, hv: bool, adv: bool, reset: bool) {
        let s = self.clone();
        if adv {
            // stage 2 -> out: decide
            let t = tuple(&s.h2);
            let mut a = s.a2;
            let mut l = EmLookFields::default();
            let mut miss = None;
            if a.cause == 0 {
                if nat && t.5 {
                    a.cause = 7;
                } else if !wire {
                    if !s.rhit2 {
                        a.cause = 4;
                        miss = Some((3, t.1));
                    } else if !nat {
                        (l.dip, l.vni, l.port) = (s.rval2, s.vni2, s.rport2);
                    } else if t.0 != s.vf2.0 {
                        a.cause = 6;
                    } else {
                        (l.src_rw, l.src, l.dst_rw, l.dst, l.port) = (true, s.vf2.1, true, s.rval2, s.rport2);
                    }
                } else if !s.lhit2 {
                    a.cause = 5;
                    miss = Some((4, t.1));
                } else {
                    l.vf = s.lvf2;
                    if nat {
                        if !s.rhit2 {
                            a.cause = 4;
                            l.vf = 0;
                            miss = Some((3, t.0));
                        } else {
                            (l.src_rw, l.src, l.dst_rw, l.dst) = (true, s.rval2, true, s.lvip2);
                        }
                    }
                }
            }
            self.ov = s.v2;
            self.oh = s.h2;
            self.oa = a;
            self.ol = l;
            self.omiss = miss.is_some();
            let (kind, value) = miss.unwrap_or((3, t.1));
            self.oe = EmEventFields { kind, value, src: t.0, dst: t.1, proto: t.2, sport: t.3, dport: t.4, tenant: s.a2.tenant };
            // stage 1 -> 2: compare
            let t1 = tuple(&s.h1);
            let (rkind, raddr) = if wire { (1, t1.0) } else { (0, t1.1) };
            let r = s.r_rd.iter().find(|e| e.valid && e.kind == rkind && e.tenant == s.a1.tenant && e.addr == raddr);
            let lo = s.l_rd.iter().find(|e| e.valid && e.tenant == s.a1.tenant && e.addr == t1.1);
            self.v2 = s.v1;
            self.h2 = s.h1;
            self.a2 = s.a1;
            self.rhit2 = r.is_some();
            self.rval2 = r.map_or(0, |e| e.value);
            self.rport2 = r.map_or(0, |e| e.port);
            self.lhit2 = lo.is_some();
            self.lvf2 = lo.map_or(0, |e| e.vf);
            self.lvip2 = lo.map_or(0, |e| e.vip);
            self.vf2 = s.vf_rd;
            self.vni2 = s.vni_rd;
            // in -> stage 1: the reads
            let t0 = tuple(&hdr);
            let (rkind, raddr) = if wire { (1, t0.0) } else { (0, t0.1) };
            let rrow = nicgen_model::em::remote_row(rkind, act.tenant, raddr, z.remote_bits as u32) as usize;
            let lrow = nicgen_model::em::local_row(act.tenant, t0.1, z.local_bits as u32) as usize;
            self.v1 = hv;
            self.h1 = hdr;
            self.a1 = act;
            let b = act.bank as usize;
            self.r_rd = m.remote[b << z.remote_bits | rrow];
            self.l_rd = m.local[b << z.local_bits | lrow];
            self.vf_rd = m.vfs[b << 12 | hdr.vf as usize & 0xfff];
            self.vni_rd = m.vni[b << 12 | act.tenant as usize & 0xfff];
        }
        if reset {
            self.v1 = false;
            self.v2 = false;
            self.ov = false;
        }
    }
}

impl Mems {
    fn new(z: LookSizes) -> Self {
        // two banks of each table
        Mems {
            remote: vec![[RemoteBitsFields::default(); MAP_WAYS]; 2 << z.remote_bits],
            local: vec![[LocalBitsFields::default(); MAP_WAYS]; 2 << z.local_bits],
            vfs: vec![(0, 0); 8192],
            vni: vec![0; 8192],
        }
    }
    /// Entry `index` of `table` in bank `bank`, as the read-back port answers it.
    fn read_back(&self, z: LookSizes, bank: bool, table: u8, index: u16) -> u128 {
        let (i, b) = (index as usize, bank as usize);
        let w = match table & 3 {
            table::REMOTE => self.remote[b << z.remote_bits | (i >> 2) & mask(z.remote_bits)][i & 3].to_words(),
            table::LOCAL => self.local[b << z.local_bits | (i >> 2) & mask(z.local_bits)][i & 3].to_words(),
            table::VF => {
                let (a, c) = self.vfs[b << 12 | i & 0xfff];
                vec![a, c]
            }
            _ => vec![self.vni[b << 12 | i & 0xfff]],
        };
        crate::record::words_get(&w, 0, (w.len() * 32).min(128))
    }
    fn write(&mut self, z: LookSizes, w: &EmTblWrFields, wbank: bool) {
        let i = w.index as usize;
        let b = wbank as usize;
        let d = crate::record::words_put(128, [(0, 128, w.d0)].into_iter());
        match w.table {
            table::REMOTE => self.remote[b << z.remote_bits | (i >> 2) & mask(z.remote_bits)][i & 3] = RemoteBitsFields::from_words(&d),
            table::LOCAL => self.local[b << z.local_bits | (i >> 2) & mask(z.local_bits)][i & 3] = LocalBitsFields::from_words(&d),
            table::VF => self.vfs[b << 12 | i & 0xfff] = (d[0], d[1]),
            _ => self.vni[b << 12 | i & 0xfff] = d[0] & 0xff_ffff,
        }
    }
}

// ------------------------------------------------------------------ the core's Verilog

/// The lookup's table memories (management port view).
fn look_mems(z: LookSizes) -> Vec<super::TableMem> {
    use super::TableMem as M;
    let mut v = vec![];
    for w in 0..MAP_WAYS {
        v.push(M { name: format!("rmem{w}"), width: RemoteBitsFields::BITS, abits: z.remote_bits, table: table::REMOTE, shift: 2, sub: Some((2, w)) });
        v.push(M { name: format!("lmem{w}"), width: LocalBitsFields::BITS, abits: z.local_bits, table: table::LOCAL, shift: 2, sub: Some((2, w)) });
    }
    v.push(M { name: "vfm".into(), width: 64, abits: 12, table: table::VF, shift: 0, sub: None });
    v.push(M { name: "vnim".into(), width: 24, abits: 12, table: table::VNI, shift: 0, sub: None });
    v
}

fn core_verilog(z: LookSizes) -> String {
    let hs = |p: &str, f: &str| vfield(p, EmHdrFields::slot(f));
    let act = |p: &str, f: &str| vfield(p, EmActFields::slot(f));
    let re = |p: &str, f: &str| vfield(p, RemoteBitsFields::slot(f));
    let le = |p: &str, f: &str| vfield(p, LocalBitsFields::slot(f));
    let (rb, lb) = (RemoteBitsFields::BITS, LocalBitsFields::BITS);
    let (hb, ab) = (EmHdrFields::BITS, EmActFields::BITS);
    let mut v = String::new();
    for w in 0..MAP_WAYS {
        v += &super::mem_verilog(&format!("rmem{w}"), rb, z.remote_bits + 1, "ultra");
        v += &super::mem_verilog(&format!("lmem{w}"), lb, z.local_bits + 1, "block");
    }
    // two banks of each table: the top address bit is the bank
    v += &super::mem_verilog("vfm", 64, 13, "block");
    v += &super::mem_verilog("vnim", 24, 13, "block");
    let mut regs: Vec<(String, usize)> = vec![("v1".into(), 1), ("h1".into(), hb), ("a1".into(), ab), ("vf_rd".into(), 64), ("vni_rd".into(), 24)];
    for w in 0..MAP_WAYS {
        regs.push((format!("r_rd{w}"), rb));
        regs.push((format!("l_rd{w}"), lb));
    }
    for (n, w) in [("v2", 1), ("h2", hb), ("a2", ab), ("rhit2", 1), ("rval2", 32), ("rport2", 1), ("lhit2", 1), ("lvf2", 12), ("lvip2", 32), ("vf2", 64), ("vni2", 24)] {
        regs.push((n.into(), w));
    }
    for (n, w) in &regs {
        v += &format!("reg [{}:0] {n};\n", w - 1);
    }
    v += "initial begin\n";
    for (n, w) in &regs {
        v += &format!("  {n} = {w}'d0;\n");
    }
    v += &format!("  o_valid = 1'b0;\n  o_hdr = {hb}'d0;\n  o_act = {ab}'d0;\n  o_look = {}'d0;\n  o_ev = {}'d0;\n  o_miss = 1'b0;\nend\n", EmLookFields::BITS, EmEventFields::BITS);
    // ---- table writes and read-back (port A of each memory)
    let twd = |f: &str| vfield("tw", EmTblWrFields::slot(f));
    v += &format!("wire [127:0] tw_data = {};\n", twd("d0"));
    v += &format!("wire unused_tw = ^{} ^ ^{} ^ ^tw_data[127:{}];\n", twd("d1"), twd("dest"), lb);
    v += &super::table_port_verilog(&look_mems(z), "tw_data", "bank", "wbank");
    let used = (z.remote_bits + 2).max(z.local_bits + 2).max(12);
    if used < 16 {
        v += &format!("wire unused_ti = ^tw_idx[15:{used}];\n");
    }
    // ---- the tuple (inner under VXLAN): src, dst
    let tup = |p: &str| format!("wire [31:0] {p}_src = {vx} ? {} : {};\nwire [31:0] {p}_dst = {vx} ? {} : {};\n", hs(p, "i_src"), hs(p, "src"), hs(p, "i_dst"), hs(p, "dst"), vx = hs(p, "vxlan"));
    v += &tup("hdr");
    v += &tup("h1");
    v += &tup("h2");
    v += &format!("wire h2_v6 = {vx} ? {} : {};\n", hs("h2", "i_v6"), hs("h2", "v6"), vx = hs("h2", "vxlan"));
    // ---- in: keys and reads
    v += &format!("wire [11:0] ten0 = {};\nwire bank0 = {};\n", act("act", "tenant"), act("act", "bank"));
    v += "wire [31:0] raddr0 = from_wire ? hdr_src : hdr_dst;\n";
    v += &format!("wire [44:0] rkey = {{from_wire, ten0, raddr0}};\nwire [43:0] lkey = {{ten0, hdr_dst}};\nwire [{}:0] rrow;\nwire [{}:0] lrow;\n", z.remote_bits - 1, z.local_bits - 1);
    v += &super::fold_xor_verilog("rrow", "rkey", 45, z.remote_bits);
    v += &super::fold_xor_verilog("lrow", "lkey", 44, z.local_bits);
    // ---- stage 1: compare
    v += &format!("wire [11:0] ten1 = {};\nwire [31:0] raddr1 = from_wire ? h1_src : h1_dst;\n", act("a1", "tenant"));
    for w in 0..MAP_WAYS {
        let r = format!("r_rd{w}");
        let l = format!("l_rd{w}");
        v += &format!("wire rh{w} = {} & ({} == from_wire) & ({} == ten1) & ({} == raddr1);\n", re(&r, "valid"), re(&r, "kind"), re(&r, "tenant"), re(&r, "addr"));
        v += &format!("wire lh{w} = {} & ({} == ten1) & ({} == h1_dst);\n", le(&l, "valid"), le(&l, "tenant"), le(&l, "addr"));
        v += &format!("wire unused_r{w} = {};\n", re(&r, "pinned"));
    }
    let first = |h: &str, val: &dyn Fn(usize) -> String, w: usize| {
        let mut e = format!("{w}'d0");
        for k in (0..MAP_WAYS).rev() {
            e = format!("{h}{k} ? {} : {e}", val(k));
        }
        e
    };
    v += &format!("wire [31:0] rval1 = {};\n", first("rh", &|k| re(&format!("r_rd{k}"), "value"), 32));
    v += &format!("wire rport1 = {};\n", first("rh", &|k| re(&format!("r_rd{k}"), "port"), 1));
    v += &format!("wire [11:0] lvf1 = {};\n", first("lh", &|k| le(&format!("l_rd{k}"), "vf"), 12));
    v += &format!("wire [31:0] lvip1 = {};\n", first("lh", &|k| le(&format!("l_rd{k}"), "vip"), 32));
    // ---- stage 2: decide
    let c = act("a2", "cause");
    v += &format!("wire pass2 = {c} == 3'd0;\n");
    v += "reg [2:0] cause2;\nreg [11:0] lk_vf;\nreg lk_srw;\nreg lk_drw;\nreg [31:0] lk_src;\nreg [31:0] lk_dst;\nreg [23:0] lk_vni;\nreg [31:0] lk_dip;\nreg lk_port;\nreg miss2;\nreg [2:0] ekind2;\nreg [31:0] evalue2;\n";
    v += &format!("always @(*) begin\n  cause2 = {c};\n  lk_vf = 12'd0;\n  lk_srw = 1'b0;\n  lk_drw = 1'b0;\n  lk_src = 32'd0;\n  lk_dst = 32'd0;\n  lk_vni = 24'd0;\n  lk_dip = 32'd0;\n  lk_port = 1'b0;\n  miss2 = 1'b0;\n  ekind2 = 3'd3;\n  evalue2 = h2_dst;\n");
    v += "  if (pass2) begin\n    if (nat & h2_v6) cause2 = 3'd7;\n    else if (!from_wire) begin\n";
    v += "      if (!rhit2) begin cause2 = 3'd4; miss2 = 1'b1; end\n";
    v += "      else if (!nat) begin lk_dip = rval2; lk_vni = vni2; lk_port = rport2; end\n";
    v += "      else if (h2_src != vf2[31:0]) cause2 = 3'd6;\n";
    v += "      else begin lk_srw = 1'b1; lk_src = vf2[63:32]; lk_drw = 1'b1; lk_dst = rval2; lk_port = rport2; end\n";
    v += "    end else if (!lhit2) begin cause2 = 3'd5; miss2 = 1'b1; ekind2 = 3'd4; end\n";
    v += "    else begin\n      lk_vf = lvf2;\n      if (nat) begin\n";
    v += "        if (!rhit2) begin cause2 = 3'd4; miss2 = 1'b1; evalue2 = h2_src; lk_vf = 12'd0; end\n";
    v += "        else begin lk_srw = 1'b1; lk_src = rval2; lk_drw = 1'b1; lk_dst = lvip2; end\n";
    v += "      end\n    end\n  end\nend\n";
    let (co, cw) = EmActFields::slot("cause");
    v += &format!("wire [{}:0] act2 = {{a2[{}:{}], cause2, a2[{}:0]}};\n", ab - 1, ab - 1, co + cw, co - 1);
    v += "wire [134:0] look2 = {lk_port, lk_dip, lk_vni, lk_dst, lk_src, lk_drw, lk_srw, lk_vf};\n";
    v += &format!(
        "wire [{}:0] ev2 = {{{ten}, {dp}, {sp}, {pr}, h2_dst, h2_src, evalue2, ekind2}};\n",
        EmEventFields::BITS - 1,
        ten = act("a2", "tenant"),
        dp = format!("({vx} ? {} : {})", hs("h2", "i_dport"), hs("h2", "dport"), vx = hs("h2", "vxlan")),
        sp = format!("({vx} ? {} : {})", hs("h2", "i_sport"), hs("h2", "sport"), vx = hs("h2", "vxlan")),
        pr = format!("({vx} ? {} : {})", hs("h2", "i_proto"), hs("h2", "proto"), vx = hs("h2", "vxlan")),
    );
    // ---- the pipeline
    v += "always @(posedge clock) begin\n  if (adv) begin\n";
    v += "    o_valid <= v2;\n    o_hdr <= h2;\n    o_act <= act2;\n    o_look <= look2;\n    o_ev <= ev2;\n    o_miss <= miss2 & v2;\n";
    v += "    v2 <= v1;\n    h2 <= h1;\n    a2 <= a1;\n    rhit2 <= rh0 | rh1 | rh2 | rh3;\n    rval2 <= rval1;\n    rport2 <= rport1;\n    lhit2 <= lh0 | lh1 | lh2 | lh3;\n    lvf2 <= lvf1;\n    lvip2 <= lvip1;\n    vf2 <= vf_rd;\n    vni2 <= vni_rd;\n";
    v += &format!("    v1 <= hdr_valid;\n    h1 <= hdr;\n    a1 <= act;\n    vf_rd <= vfm[{{bank0, {}}}];\n    vni_rd <= vnim[{{bank0, ten0}}];\n", hs("hdr", "vf"));
    for w in 0..MAP_WAYS {
        v += &format!("    r_rd{w} <= rmem{w}[{{bank0, rrow}}];\n    l_rd{w} <= lmem{w}[{{bank0, lrow}}];\n");
    }
    v += "  end\n  if (reset) begin\n    v1 <= 1'b0;\n    v2 <= 1'b0;\n    o_valid <= 1'b0;\n    o_miss <= 1'b0;\n  end\nend\n";
    v
}

/// The lookup's core (Custom Verilog with a cycle-exact Rust model).
#[derive(LogicBlock)]
pub struct LookCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub from_wire: Signal<In, Bit>,
    pub nat: Signal<In, Bit>,
    pub hdr: Signal<In, EmHdr>,
    pub act: Signal<In, EmAct>,
    pub hdr_valid: Signal<In, Bit>,
    pub adv: Signal<In, Bit>,
    pub tw: Signal<In, EmTblWr>,
    pub tw_valid: Signal<In, Bit>,
    /// The bank table writes go to (reads use the bank in `act`).
    pub wbank: Signal<In, Bit>,
    /// Table read-back of bank `bank` (never in a cycle with a write): `{d1, d0}` of `rb_data`
    /// two cycles later with `rb_dvalid`.
    pub bank: Signal<In, Bit>,
    pub rb: Signal<In, EmTblWr>,
    pub rb_valid: Signal<In, Bit>,
    pub rb_data: Signal<Out, EmTblWr>,
    pub rb_dvalid: Signal<Out, Bit>,
    pub o_valid: Signal<Out, Bit>,
    pub o_hdr: Signal<Out, EmHdr>,
    pub o_act: Signal<Out, EmAct>,
    pub o_look: Signal<Out, EmLook>,
    pub o_ev: Signal<Out, EmEvent>,
    pub o_miss: Signal<Out, Bit>,
    _z: LookSizes,
    _m: Box<Mems>,
    _r: Box<Regs>,
    /// Read-back registers: stage 1 valid and value, stage 2 valid and value.
    _rb: (bool, u128, bool, u128),
}

impl LookCore {
    pub fn new(z: LookSizes) -> Self {
        LookCore {
            clock: Default::default(),
            reset: Default::default(),
            from_wire: Default::default(),
            nat: Default::default(),
            hdr: Default::default(),
            act: Default::default(),
            hdr_valid: Default::default(),
            adv: Default::default(),
            tw: Default::default(),
            tw_valid: Default::default(),
            wbank: Default::default(),
            bank: Default::default(),
            rb: Default::default(),
            rb_valid: Default::default(),
            rb_data: Default::default(),
            rb_dvalid: Default::default(),
            o_valid: Default::default(),
            o_hdr: Default::default(),
            o_act: Default::default(),
            o_look: Default::default(),
            o_ev: Default::default(),
            o_miss: Default::default(),
            _z: z,
            _m: Box::new(Mems::new(z)),
            _r: Box::default(),
            _rb: (false, 0, false, 0),
        }
    }
}

impl Logic for LookCore {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let (hdr, act) = (EmHdrFields::from_struct(&self.hdr.val()), EmActFields::from_struct(&self.act.val()));
            let rb = (self.rb_valid.val() && !self.tw_valid.val()).then(|| EmTblWrFields::from_struct(&self.rb.val()));
            let (v1, val1, _, q) = self._rb;
            let now = rb.map(|r| self._m.read_back(self._z, self.bank.val(), r.table, r.index));
            self._rb = (now.is_some() && !self.reset.val(), now.unwrap_or_default(), v1 && !self.reset.val(), if v1 { val1 } else { q });
            self._r.edge(&self._m, self._z, self.from_wire.val(), self.nat.val(), hdr, act, self.hdr_valid.val(), self.adv.val(), self.reset.val());
            if self.tw_valid.val() {
                self._m.write(self._z, &EmTblWrFields::from_struct(&self.tw.val()), self.wbank.val());
            }
        }
        self.o_valid.next = self._r.ov;
        self.o_hdr.next = self._r.oh.to_struct();
        self.o_act.next = self._r.oa.to_struct();
        self.o_look.next = self._r.ol.to_struct();
        self.o_ev.next = self._r.oe.to_struct();
        self.o_miss.next = self._r.omiss && self._r.ov;
        self.rb_data.next = EmTblWrFields { d0: self._rb.3, ..Default::default() }.to_struct();
        self.rb_dvalid.next = self._rb.2;
    }
    fn connect(&mut self) {
        self.rb_data.connect();
        self.rb_dvalid.connect();
        self.o_valid.connect();
        self.o_hdr.connect();
        self.o_act.connect();
        self.o_look.connect();
        self.o_ev.connect();
        self.o_miss.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(core_verilog(self._z))
    }
}

/// The lookup: the core, output skids for the header, verdict and result (one channel), a
/// one-deep event register (a miss while it is full is lost and counted), and the counters.
#[derive(LogicBlock)]
pub struct EmLookup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Configuration: the wire side; NAT mode (else overlay).
    pub from_wire: Signal<In, Bit>,
    pub nat: Signal<In, Bit>,
    /// A classified frame: its header and verdict, one channel.
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub s_act: Signal<In, EmAct>,
    /// The bank table writes go to (each frame reads the bank in its `s_act.bank`).
    pub wbank: Signal<In, Bit>,
    /// Table read-back of bank `bank` (never in a cycle with a write): the entry two cycles
    /// later on `m_rb` (`d0`).
    pub bank: Signal<In, Bit>,
    pub s_rb: Signal<In, EmTblWr>,
    pub s_rb_valid: Signal<In, Bit>,
    pub m_rb: Signal<Out, EmTblWr>,
    pub m_rb_valid: Signal<Out, Bit>,
    pub s_tw: Signal<In, EmTblWr>,
    pub s_tw_valid: Signal<In, Bit>,
    pub s_tw_ready: Signal<Out, Bit>,
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    pub m_act: Signal<Out, EmAct>,
    pub m_look: Signal<Out, EmLook>,
    pub m_ev: Signal<Out, EmEvent>,
    pub m_ev_valid: Signal<Out, Bit>,
    pub m_ev_ready: Signal<In, Bit>,
    pub drop_no_route: Signal<Out, Bits<32>>,
    pub drop_no_local: Signal<Out, Bits<32>>,
    pub drop_spoof: Signal<Out, Bits<32>>,
    pub drop_ipv6: Signal<Out, Bits<32>>,
    pub ev_lost: Signal<Out, Bits<32>>,
    core: LookCore,
    hskid: ChanSkid<EmHdr>,
    askid: ChanSkid<EmAct>,
    lskid: ChanSkid<EmLook>,
    ev: EvSlot,
    k_route: DFF<Bits<32>>,
    k_local: DFF<Bits<32>>,
    k_spoof: DFF<Bits<32>>,
    k_ipv6: DFF<Bits<32>>,
    out: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    c_route: Constant<Bits<3>>,
    c_local: Constant<Bits<3>>,
    c_spoof: Constant<Bits<3>>,
    c_ipv6: Constant<Bits<3>>,
}

impl EmLookup {
    pub fn new(z: LookSizes) -> Self {
        EmLookup {
            clock: Default::default(),
            reset: Default::default(),
            from_wire: Default::default(),
            nat: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            s_act: Default::default(),
            wbank: Default::default(),
            bank: Default::default(),
            s_rb: Default::default(),
            s_rb_valid: Default::default(),
            m_rb: Default::default(),
            m_rb_valid: Default::default(),
            s_tw: Default::default(),
            s_tw_valid: Default::default(),
            s_tw_ready: Default::default(),
            m_hdr: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            m_act: Default::default(),
            m_look: Default::default(),
            m_ev: Default::default(),
            m_ev_valid: Default::default(),
            m_ev_ready: Default::default(),
            drop_no_route: Default::default(),
            drop_no_local: Default::default(),
            drop_spoof: Default::default(),
            drop_ipv6: Default::default(),
            ev_lost: Default::default(),
            core: LookCore::new(z),
            hskid: Default::default(),
            askid: Default::default(),
            lskid: Default::default(),
            ev: Default::default(),
            k_route: Default::default(),
            k_local: Default::default(),
            k_spoof: Default::default(),
            k_ipv6: Default::default(),
            out: Default::default(),
            unused: Default::default(),
            c_route: Constant::new(4.into()),
            c_local: Constant::new(5.into()),
            c_spoof: Constant::new(6.into()),
            c_ipv6: Constant::new(7.into()),
        }
    }
}

impl Default for EmLookup {
    fn default() -> Self {
        Self::new(LookSizes::default())
    }
}

impl Logic for EmLookup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, k_route, k_local, k_spoof, k_ipv6);
        clock!(self, clock, core, hskid, askid, lskid, ev);
        self.ev.reset.next = self.reset.val();
        self.core.reset.next = self.reset.val();
        self.hskid.reset.next = self.reset.val();
        self.askid.reset.next = self.reset.val();
        self.lskid.reset.next = self.reset.val();
        self.core.from_wire.next = self.from_wire.val();
        self.core.nat.next = self.nat.val();
        self.core.hdr.next = self.s_hdr.val();
        self.core.act.next = self.s_act.val();
        self.core.hdr_valid.next = self.s_hdr_valid.val();
        self.core.tw.next = self.s_tw.val();
        self.core.tw_valid.next = self.s_tw_valid.val();
        self.core.wbank.next = self.wbank.val();
        self.core.bank.next = self.bank.val();
        self.core.rb.next = self.s_rb.val();
        self.core.rb_valid.next = self.s_rb_valid.val();
        self.m_rb.next = self.core.rb_data.val();
        self.m_rb_valid.next = self.core.rb_dvalid.val();
        self.s_tw_ready.next = true;
        self.core.adv.next = self.hskid.s_ready.val();
        self.s_hdr_ready.next = self.hskid.s_ready.val();
        self.hskid.s_data.next = self.core.o_hdr.val();
        self.hskid.s_valid.next = self.core.o_valid.val();
        self.askid.s_data.next = self.core.o_act.val();
        self.askid.s_valid.next = self.core.o_valid.val();
        self.lskid.s_data.next = self.core.o_look.val();
        self.lskid.s_valid.next = self.core.o_valid.val();
        self.hskid.m_ready.next = self.m_hdr_ready.val();
        self.askid.m_ready.next = self.m_hdr_ready.val();
        self.lskid.m_ready.next = self.m_hdr_ready.val();
        self.m_hdr.next = self.hskid.m_data.val();
        self.m_act.next = self.askid.m_data.val();
        self.m_look.next = self.lskid.m_data.val();
        self.m_hdr_valid.next = self.hskid.m_valid.val();
        self.out.next = self.core.o_valid.val() & self.hskid.s_ready.val();
        if self.out.val() {
            if self.core.o_act.val().cause == self.c_route.val() {
                self.k_route.d.next = self.k_route.q.val() + 1;
            }
            if self.core.o_act.val().cause == self.c_local.val() {
                self.k_local.d.next = self.k_local.q.val() + 1;
            }
            if self.core.o_act.val().cause == self.c_spoof.val() {
                self.k_spoof.d.next = self.k_spoof.q.val() + 1;
            }
            if self.core.o_act.val().cause == self.c_ipv6.val() {
                self.k_ipv6.d.next = self.k_ipv6.q.val() + 1;
            }
        }
        self.ev.push.next = self.out.val() & self.core.o_miss.val();
        self.ev.s_ev.next = self.core.o_ev.val();
        self.ev.m_ev_ready.next = self.m_ev_ready.val();
        self.m_ev.next = self.ev.m_ev.val();
        self.m_ev_valid.next = self.ev.m_ev_valid.val();
        self.drop_no_route.next = self.k_route.q.val();
        self.drop_no_local.next = self.k_local.q.val();
        self.drop_spoof.next = self.k_spoof.q.val();
        self.drop_ipv6.next = self.k_ipv6.q.val();
        self.ev_lost.next = self.ev.lost.val();
        self.unused.next = self.askid.m_valid.val() | self.askid.s_ready.val() | self.lskid.m_valid.val() | self.lskid.s_ready.val();
        if self.reset.val() {
            self.k_route.d.next = 0.into();
            self.k_local.d.next = 0.into();
            self.k_spoof.d.next = 0.into();
            self.k_ipv6.d.next = 0.into();
        }
    }
}

/// The lookup's counters.
pub const EM_LOOKUP_COUNTERS: [(&str, &str); 5] = [
    ("drop_no_route", "frames whose remote address has no entry"),
    ("drop_no_local", "frames from the wire whose destination has no local VF"),
    ("drop_spoof", "NAT egress frames whose source is not their VF's VIP"),
    ("drop_ipv6", "NAT mode: IPv6 frames (VIPs and PIPs are IPv4 addresses)"),
    ("ev_lost", "miss events lost because the event output was full"),
];

nicgen_hdl::impl_ports!(EmLookup, clock = clock, [clock, reset, from_wire, nat, s_hdr, s_hdr_valid, s_hdr_ready, s_act, wbank, bank, s_rb, s_rb_valid, m_rb, m_rb_valid,
    s_tw, s_tw_valid, s_tw_ready, m_hdr, m_hdr_valid, m_hdr_ready, m_act, m_look, m_ev, m_ev_valid, m_ev_ready,
    drop_no_route, drop_no_local, drop_spoof, drop_ipv6, ev_lost]);
