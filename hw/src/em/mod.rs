//! The DistDPU execution module (EM): parse, classify, policy, encapsulate or translate,
//! forward. Its golden model is `nicgen_model::em`.
pub mod classify;
pub mod forward;
pub mod front;
pub mod lookup;
pub mod parse;
pub mod tele;
pub mod nat;
pub mod nat_wide;
pub mod vxlan;

use rust_hdl::prelude::*;

crate::record!(
    /// A parsed EM header, on the header channel beside the frame (one per accepted frame, in
    /// frame order). `i_*` is the inner frame's layer under VXLAN (wire side only).
    EmHdr,
    EmHdrFields {
        /// Frame bytes.
        len: u16 = 16,
        /// The VF the frame came from (host side).
        vf: u16 = 12,
        vlan: bool = 1,
        vid: u16 = 12,
        /// IPv6 (else IPv4); its addresses are their 32-bit folds (`nicgen_model::em::v6_fold`).
        v6: bool = 1,
        /// Offset of the IP header.
        l3: u8 = 8,
        src: u32 = 32,
        dst: u32 = 32,
        proto: u8 = 8,
        tos: u8 = 8,
        ttl: u8 = 8,
        tot: u16 = 16,
        sport: u16 = 16,
        dport: u16 = 16,
        vxlan: bool = 1,
        vni: u32 = 24,
        i_vlan: bool = 1,
        i_vid: u16 = 12,
        i_v6: bool = 1,
        i_l3: u8 = 8,
        i_src: u32 = 32,
        i_dst: u32 = 32,
        i_proto: u8 = 8,
        i_tos: u8 = 8,
        i_ttl: u8 = 8,
        i_tot: u16 = 16,
        i_sport: u16 = 16,
        i_dport: u16 = 16,
        /// UDP to port 4791 (the last layer), and its BTH's destination QP.
        roce: bool = 1,
        dqpn: u32 = 24,
        /// Inside the parser: the drop cause (`nicgen_model::em::EmDrop`), 0 to accept.
        cause: u8 = 4,
    }
);

impl EmHdrFields {
    /// The header the parser hands on for `p` (the model's view), from VF `vf`.
    pub fn of(p: &nicgen_model::em::EmParsed, vf: u16) -> Self {
        let o = p.outer;
        let i = p.inner.unwrap_or_default();
        EmHdrFields {
            len: p.len as u16,
            vf,
            vlan: o.vlan.is_some(),
            vid: o.vlan.unwrap_or(0),
            v6: o.v6,
            l3: o.l3 as u8,
            src: o.src,
            dst: o.dst,
            proto: o.proto,
            tos: o.tos,
            ttl: o.ttl,
            tot: o.tot,
            sport: o.sport,
            dport: o.dport,
            vxlan: p.vni.is_some(),
            vni: p.vni.unwrap_or(0),
            i_vlan: i.vlan.is_some(),
            i_vid: i.vlan.unwrap_or(0),
            i_v6: i.v6,
            i_l3: i.l3 as u8,
            i_src: i.src,
            i_dst: i.dst,
            i_proto: i.proto,
            i_tos: i.tos,
            i_ttl: i.ttl,
            i_tot: i.tot,
            i_sport: i.sport,
            i_dport: i.dport,
            roce: p.roce,
            dqpn: p.dqpn,
            cause: 0,
        }
    }
}

/// `port[hi:lo]`: a record field (`slot` = its offset and width) in generated Verilog.
pub(crate) fn vfield(port: &str, (o, n): (usize, usize)) -> String {
    format!("{port}[{}:{}]", o + n - 1, o)
}

/// `{x[..], ...}`: `n` bytes of the byte vector `x` (byte i in `x[8i+7:8i]`) from byte `o`, the
/// first most significant (a big-endian field) in generated Verilog.
pub(crate) fn be_get(x: &str, o: usize, n: usize) -> String {
    let parts: Vec<String> = (o..o + n).map(|i| format!("{x}[{}:{}]", 8 * i + 7, 8 * i)).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Blocking assignments (in an `always @(*)`) that write `val`'s `n` bytes big-endian into the
/// byte vector `x` from byte `o`.
pub(crate) fn be_put(x: &str, o: usize, n: usize, val: &str) -> String {
    (0..n).map(|k| format!("  {x}[{}:{}] = {val}[{}:{}];\n", 8 * (o + k) + 7, 8 * (o + k), 8 * (n - 1 - k) + 7, 8 * (n - 1 - k))).collect()
}

/// Verilog wires `<p>_f2` (16 bits): the 20-bit sum `sum` folded twice to a ones' complement
/// sum (end-around carries), via `<p>_f1`.
pub(crate) fn fold_verilog(p: &str, sum: &str) -> String {
    format!("wire [16:0] {p}_f1 = {{1'b0, {sum}[15:0]}} + {{13'd0, {sum}[19:16]}};\nwire [15:0] {p}_f2 = {p}_f1[15:0] + {{15'd0, {p}_f1[16]}};\n")
}

/// `assign out[i] = key[i] ^ key[i + bits] ^ ...;`: a `key_bits`-bit key folded by XOR into
/// `bits` bits (the tables' row hash; `nicgen_model::em::map_row` and friends), as Verilog.
pub(crate) fn fold_xor_verilog(out: &str, key: &str, key_bits: usize, bits: usize) -> String {
    (0..bits)
        .map(|i| {
            let terms: Vec<String> = (i..key_bits).step_by(bits).map(|j| format!("{key}[{j}]")).collect();
            format!("assign {out}[{i}] = {};\n", terms.join(" ^ "))
        })
        .collect()
}

/// `(* ram_style = "<style>" *) reg [w-1:0] name [0:2^a-1];`, zeroed at time 0 in simulation
/// (`stream::ram::zero_init`: FPGA configuration zeroes BRAM and URAM).
pub(crate) fn mem_verilog(name: &str, w: usize, a: usize, style: &str) -> String {
    let mut v = format!("(* ram_style = \"{style}\" *) reg [{}:0] {name} [0:{}];\n", w - 1, (1usize << a) - 1);
    let i = format!("i_{name}");
    v += &crate::stream::ram::zero_init(&i, &format!("  for ({i} = 0; {i} < {}; {i} = {i} + 1) {name}[{i}] = {w}'d0;\n", 1usize << a));
    v
}

/// A table memory behind the management port: `name[{bank, index[shift + abits - 1 : shift]}]`,
/// `width` bits, table number `table`; `sub` = (low index bits, value) picks one of several
/// memories of a table (a way or an ACL slot).
pub(crate) struct TableMem {
    pub name: String,
    pub width: usize,
    pub abits: usize,
    pub table: u8,
    pub shift: usize,
    pub sub: Option<(usize, usize)>,
}

/// The management port of a core's tables (Verilog): each memory's port A is shared by table
/// writes (`tw`, into bank `wbank`) and read-back (`rb`, from bank `rbank`; the writer never
/// issues both in one cycle), so a memory keeps two ports (port B: the pipeline's read). A read
/// answers two cycles later on `rb_data` (an `EmTblWr`: `{d1, d0}` the entry) with `rb_dvalid`.
/// `data` names the write data vector (as wide as the widest memory at least).
pub(crate) fn table_port_verilog(mems: &[TableMem], data: &str, rbank: &str, wbank: &str) -> String {
    use classify::EmTblWrFields as T;
    let tw = |f: &str| vfield("tw", T::slot(f));
    let rb = |f: &str| vfield("rb", T::slot(f));
    let mut v = String::new();
    v += &format!("wire [1:0] rb_table = {};\nwire [15:0] rb_index = {};\nwire unused_rb = ^{} ^ ^{} ^ ^{};\n", rb("table"), rb("index"), rb("d0"), rb("d1"), rb("dest"));
    v += &format!("wire [1:0] tw_tab = {};\nwire [15:0] tw_idx = {};\n", tw("table"), tw("index"));
    for m in mems {
        let a = m.abits;
        let (hi, lo) = (m.shift + a - 1, m.shift);
        let sel = |ix: &str| m.sub.map_or(String::new(), |(b, s)| format!(" && {ix}[{}:0] == {b}'d{s}", b - 1));
        v += &format!("wire [{a}:0] pa_{n} = tw_valid ? {{{wbank}, tw_idx[{hi}:{lo}]}} : {{{rbank}, rb_index[{hi}:{lo}]}};\n", n = m.name);
        v += &format!("wire we_{n} = tw_valid && tw_tab == 2'd{t}{s};\n", n = m.name, t = m.table, s = sel("tw_idx"));
        v += &format!("reg [{}:0] qa_{};\n", m.width - 1, m.name);
        v += &format!("always @(posedge clock) begin\n  if (we_{n}) {n}[pa_{n}] <= {data}[{w}:0];\n  qa_{n} <= {n}[pa_{n}];\nend\n", n = m.name, w = m.width - 1);
    }
    v += "reg rb_v1, rb_v2;\nreg [1:0] rb_t1;\nreg [15:0] rb_i1;\nreg [223:0] rb_q;\n";
    v += "initial begin\n  rb_v1 = 1'b0;\n  rb_v2 = 1'b0;\n  rb_t1 = 2'd0;\n  rb_i1 = 16'd0;\n  rb_q = 224'd0;\nend\n";
    v += "always @(posedge clock) begin\n  rb_v1 <= rb_valid & !tw_valid;\n  rb_t1 <= rb_table;\n  rb_i1 <= rb_index;\n  rb_v2 <= rb_v1;\n  if (rb_v1) begin\n    rb_q <= 224'd0;\n";
    for m in mems {
        let s = m.sub.map_or(String::new(), |(b, s)| format!(" && rb_i1[{}:0] == {b}'d{s}", b - 1));
        let pad = if m.width < 224 { format!("{}'d0, ", 224 - m.width) } else { String::new() };
        v += &format!("    if (rb_t1 == 2'd{}{s}) rb_q <= {{{pad}qa_{}}};\n", m.table, m.name);
    }
    v += "  end\n  if (reset) begin\n    rb_v1 <= 1'b0;\n    rb_v2 <= 1'b0;\n  end\nend\n";
    v += "wire unused_rbi = ^rb_i1;\n";
    v += &format!("always @(*) begin\n  rb_data = {}'d0;\n  {} = rb_q[127:0];\n  {} = rb_q[223:128];\n  rb_dvalid = rb_v2;\nend\n", T::BITS, vfield("rb_data", T::slot("d0")), vfield("rb_data", T::slot("d1")));
    v
}
