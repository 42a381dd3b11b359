//! `EmParse`: the EM's parser. Ethernet (an optional 802.1Q tag), IPv4 without options or IPv6
//! without extension headers, TCP, UDP, and on the wire side VXLAN over IPv4 with its inner frame, read from the first 128 bytes of each
//! frame. It hands on accepted frames on `m_axis` and their headers ([`EmHdr`]) on a header
//! channel beside them, in the same order, and drops the others, counted by cause
//! (`nicgen_model::em::EmDrop`, whose rules this block implements).
//!
//! ```text
//! s_axis ─┬──────────────────────────────► payload FIFO (512 beats) ───────────┐
//!         ├─ window (beats 0, 1) ─► EmExtract (5 stages) ─► header results (64) ─┐ ├─► gate ─► m_axis
//!         └─ frame length, MAC error (at tlast) ─────► lengths (64) ─────────┴─► join ─► headers (64) ─► m_hdr
//! ```
//!
//! * The header stage decides from the window alone (bytes past the frame's end read as zero):
//!   the first header cause, and how many bytes the frame must have (the headers read and the
//!   IPv4 datagrams' ends). The join adds the frame's length and the MAC's error bit when the
//!   frame has ended, so a frame is handed on only once all of it is here (store and forward:
//!   a truncated datagram is known only at its end).
//! * The gate takes a header and the first beat of its frame in the same cycle, so one-beat
//!   frames pass at one per cycle; a dropped frame's beats are read and discarded.
//! * `s_tready` falls only when a FIFO runs short of room (the three small FIFOs keep 16
//!   entries spare for the frames between the input and them), never for a frame's content.
//!   A frame must fit in the payload FIFO (32 KiB).
use super::{be_get, vfield, EmHdr, EmHdrFields};
use crate::crc::fields::{bytes_of, KeepCount};
use crate::record::{FromBits, ToBits};
use crate::stream::*;
use nicgen_model::em::{em_extract, EmDrop, ROCE_MIN, ROCE_PORT, V6_EXT, V6_FRAG, V6_MAX_PLEN, VXLAN_PORT};
use rust_hdl::prelude::*;

pub const EM_HDR_BITS: usize = EmHdrFields::BITS;
const HDR_W: usize = EM_HDR_BITS + 3;
/// A header result: the header, then `need` (17 bits).
const RES_BITS: usize = EM_HDR_BITS + 17;
const RES_W: usize = RES_BITS + 3;
/// A length record: frame bytes (16), MAC error (1).
const LEN_BITS: usize = 17;
const LEN_W: usize = LEN_BITS + 3;
const _: () = assert!(EM_HDR_BITS == 398 && EXTRACT_LATENCY == 5);

/// Number of drop causes (`EmDrop` codes 1..=8).
pub const EM_DROP_CAUSES: usize = 8;

/// Cycles from the window to the header stage's outputs.
pub const EXTRACT_LATENCY: usize = 5;

/// The header stage: from the first 128 bytes of a frame (`w`, byte 0 in `w[7:0]`, zeros past
/// the frame's end), its header fields (`hdr`, with `len`, `vf` and `cause` zero; all zero when a
/// header cause drops the frame), its first header cause and the bytes it must have, five
/// cycles later ([`EXTRACT_LATENCY`]; a new window every cycle). Generated as Verilog, five
/// register stages so that no path has more than a few LUT levels:
/// 1. each layer's fields by its VLAN tag (outer from byte 0, inner from byte 50 or 54), the
///    IPv4 header's words in partial sums (before the tag picks them);
/// 2. the header checksum's verdict and every field check, each a flag;
/// 3. each layer's first cause and header end, the inner layer chosen by the outer tag;
/// 4. VXLAN and the layers' causes combined, the ends compared;
/// 5. the bytes the frame must have, and the header.
///
/// Its Rust model is `nicgen_model::em::em_extract`, delayed by five cycles.
#[derive(LogicBlock, Default)]
pub struct EmExtract {
    pub clock: Signal<In, Clock>,
    pub w: Signal<In, Bits<1024>>,
    pub from_wire: Signal<In, Bit>,
    pub hdr: Signal<Out, EmHdr>,
    pub cause: Signal<Out, Bits<4>>,
    pub need: Signal<Out, Bits<17>>,
    _pipe: std::collections::VecDeque<(EmHdrFields, u8, u64)>,
}

impl Logic for EmExtract {
    fn update(&mut self) {
        if self._pipe.is_empty() {
            self._pipe = (0..EXTRACT_LATENCY).map(|_| (EmHdrFields::default(), 0, 0)).collect();
        }
        if self.clock.pos_edge() {
            let x = em_extract(&bytes_of(self.w.val()), self.from_wire.val());
            self._pipe.push_back((EmHdrFields::of(&x.p, 0), x.cause.map_or(0, |c| c as u8), x.need as u64));
            self._pipe.pop_front();
        }
        let (h, c, n) = self._pipe[0];
        self.hdr.next = h.to_struct();
        self.cause.next = (c as u64).into();
        self.need.next = n.into();
    }
    fn connect(&mut self) {
        self.hdr.connect();
        self.cause.connect();
        self.need.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(extract_verilog())
    }
}

/// `{w[..], ...}`: `n` bytes from byte `o`, the first most significant.
fn be(o: usize, n: usize) -> String {
    assert!(o + n <= 128);
    be_get("w", o, n)
}

/// `reg [n-1:0] x;` loaded from `e` at every clock edge (zero at start).
fn reg(x: &str, n: usize, e: &str) -> String {
    format!("reg [{}:0] {x};\ninitial {x} = {n}'d0;\nalways @(posedge clock) {x} <= {e};\n", n - 1)
}

/// Stage 1 of one layer whose Ethernet header starts at byte `e`: registers `p_<field>_1`.
fn layer_s1(p: &str, e: usize) -> String {
    // an L3-relative field: by the tag, at e + 18 + k or e + 14 + k
    let sel = |k: usize, n: usize| format!("(tag_{p} ? {} : {})", be(e + 18 + k, n), be(e + 14 + k, n));
    let mut v = String::new();
    v += &format!("wire tag_{p} = {} == 16'h8100;\n", be(e + 12, 2));
    v += &reg(&format!("{p}_tag_1"), 1, &format!("tag_{p}"));
    v += &reg(&format!("{p}_etok_1"), 1, &format!("tag_{p} ? ({} == 16'h0800) : ({} == 16'h0800)", be(e + 16, 2), be(e + 12, 2)));
    v += &reg(&format!("{p}_et6_1"), 1, &format!("tag_{p} ? ({} == 16'h86dd) : ({} == 16'h86dd)", be(e + 16, 2), be(e + 12, 2)));
    v += &reg(&format!("{p}_tci_1"), 16, &be(e + 14, 2));
    v += &reg(&format!("{p}_l3_1"), 8, &format!("tag_{p} ? 8'd{} : 8'd{}", e + 18, e + 14));
    for (f, k, n) in [("vi", 0, 1), ("tos", 1, 1), ("tot", 2, 2), ("fl", 6, 2), ("ttl", 8, 1), ("proto", 9, 1), ("src", 12, 4), ("dst", 16, 4), ("sp", 20, 2), ("dp", 22, 2), ("ulen", 24, 2), ("doff", 32, 1), ("dqpn", 33, 3)] {
        v += &reg(&format!("{p}_{f}_1"), 8 * n, &sel(k, n));
    }
    // the IPv4 header's words, partly summed before the tag picks them: untagged they are the
    // 16-bit words 0..9 from byte e + 14, tagged 2..11, so words 2..9 are summed either way
    // (two sums of four), and 0-1 and 10-11 in pairs for stage 2 to choose from
    let wd = |k: usize| format!("{{2'd0, {}}}", be(e + 14 + 2 * k, 2));
    let wsum = |ks: std::ops::Range<usize>| ks.map(wd).collect::<Vec<_>>().join(" + ");
    for (f, ks) in [("wa", 0..2), ("wm", 2..6), ("wn", 6..10), ("wb", 10..12)] {
        v += &reg(&format!("{p}_{f}_1"), 18, &wsum(ks));
    }
    // IPv6: version and traffic class, payload length, next header, hop limit, the addresses'
    // folds, and the L4 fields 40 bytes in
    for (f, k, n) in [("vt6", 0, 2), ("plen6", 4, 2), ("nh6", 6, 1), ("hl6", 7, 1), ("sp6", 40, 2), ("dp6", 42, 2), ("ulen6", 44, 2), ("doff6", 52, 1), ("dqpn6", 53, 3)] {
        v += &reg(&format!("{p}_{f}_1"), 8 * n, &sel(k, n));
    }
    let fold = |o: usize| (0..4).map(|j| be(o + 4 * j, 4)).collect::<Vec<_>>().join(" ^ ");
    for (f, k) in [("s6", 8), ("d6", 24)] {
        v += &reg(&format!("{p}_{f}_1"), 32, &format!("tag_{p} ? ({}) : ({})", fold(e + 18 + k), fold(e + 14 + k)));
    }
    v += &reg(&format!("{p}_tot6_1"), 16, &format!("{} + 16'd40", sel(4, 2)));
    v
}

/// Stage 2 of a layer: the checksum's verdict and each check a flag; `p_<x>_2`.
fn layer_s2(p: &str) -> String {
    let mut v = String::new();
    let x = |f: &str| format!("{p}_{f}_1");
    v += &format!("wire [19:0] {p}_cs = {{2'd0, {}}} + {{2'd0, {}}} + {{2'd0, {} ? {} : {}}};\n", x("wm"), x("wn"), x("tag"), x("wb"), x("wa"));
    // The one's-complement sum is good when folding `cs` gives 0xffff. Ten words keep the carry
    // `cs[19:16]` at 9 or less, so that is `cs[15:0] + cs[19:16] == 0xffff` without a second
    // carry: `cs[15:4]` all ones and `cs[3:0]` the carry's complement. A compare, not an add.
    v += &reg(&format!("{p}_csok_2"), 1, &format!("({p}_cs[15:4] == 12'hfff) & ({p}_cs[3:0] == ~{p}_cs[19:16])"));
    let v6 = x("et6");
    // each field or check: IPv6's when the ethertype is IPv6, else IPv4's
    let pick = |a6: String, a4: String| format!("{v6} ? ({a6}) : ({a4})");
    v += &reg(&format!("{p}_etok_2"), 1, &format!("{} | {v6}", x("etok")));
    v += &reg(&format!("{p}_v6_2"), 1, &v6);
    let ext: Vec<String> = V6_EXT.iter().map(|n| format!("({} == 8'd{n})", x("nh6"))).collect();
    v += &reg(&format!("{p}_bad_2"), 1, &pick(format!("({}[15:12] != 4'd6) | ({} > 16'd{V6_MAX_PLEN})", x("vt6"), x("plen6")), format!("({}[7:4] != 4'd4) | ({}[3:0] < 4'd5) | ({} < 16'd20)", x("vi"), x("vi"), x("tot"))));
    v += &reg(&format!("{p}_opt_2"), 1, &pick(ext.join(" | "), format!("{}[3:0] > 4'd5", x("vi"))));
    v += &reg(&format!("{p}_frag_2"), 1, &pick(format!("{} == 8'd{V6_FRAG}", x("nh6")), format!("{}[13:0] != 14'd0", x("fl"))));
    v += &reg(&format!("{p}_tcp_2"), 1, &pick(format!("{} == 8'd6", x("nh6")), format!("{} == 8'd6", x("proto"))));
    v += &reg(&format!("{p}_udp_2"), 1, &pick(format!("{} == 8'd17", x("nh6")), format!("{} == 8'd17", x("proto"))));
    v += &reg(&format!("{p}_tcpbad_2"), 1, &pick(format!("({} < 16'd20) | ({}[7:4] < 4'd5)", x("plen6"), x("doff6")), format!("({} < 16'd40) | ({}[7:4] < 4'd5)", x("tot"), x("doff"))));
    v += &format!("wire [15:0] {p}_totm20 = {} - 16'd20;\n", x("tot"));
    v += &reg(&format!("{p}_udpbad_2"), 1, &pick(format!("({} < 16'd8) | ({} < 16'd8) | ({} > {})", x("plen6"), x("ulen6"), x("ulen6"), x("plen6")), format!("({} < 16'd28) | ({} < 16'd8) | ({} > {p}_totm20)", x("tot"), x("ulen"), x("ulen"))));
    // RoCEv2 without room for its BTH and ICRC (its own register: one more term in udpbad's
    // compare tree made this stage a level deeper)
    v += &reg(&format!("{p}_roceshort_2"), 1, &pick(format!("({} == 16'd{ROCE_PORT}) & ({} < 16'd{})", x("dp6"), x("plen6"), 8 + ROCE_MIN), format!("({} == 16'd{ROCE_PORT}) & ({} < 16'd{})", x("dp"), x("tot"), 28 + ROCE_MIN)));
    // VXLAN only over IPv4
    v += &reg(&format!("{p}_vxp_2"), 1, &format!("!{v6} & ({} == 16'd{VXLAN_PORT})", x("dp")));
    v += &reg(&format!("{p}_rocep_2"), 1, &pick(format!("{} == 16'd{ROCE_PORT}", x("dp6")), format!("{} == 16'd{ROCE_PORT}", x("dp"))));
    v += &reg(&format!("{p}_tot36_2"), 1, &format!("{} < 16'd36", x("tot")));
    v += &reg(&format!("{p}_ipend_2"), 17, &format!("{{9'd0, {}}} + {{1'b0, {}}}", x("l3"), pick(x("tot6"), x("tot"))));
    for (f, n) in [("tag", 1), ("tci", 16), ("l3", 8)] {
        v += &reg(&format!("{p}_{f}_2"), n, &x(f));
    }
    v += &reg(&format!("{p}_tos_2"), 8, &pick(format!("{}[11:4]", x("vt6")), x("tos")));
    for (f, f6, n) in [("tot", "tot6", 16), ("ttl", "hl6", 8), ("proto", "nh6", 8), ("src", "s6", 32), ("dst", "d6", 32), ("sp", "sp6", 16), ("dp", "dp6", 16), ("dqpn", "dqpn6", 24)] {
        v += &reg(&format!("{p}_{f}_2"), n, &pick(x(f6), x(f)));
    }
    v += &format!("wire unused_{p}_1 = ^{}[15:14] ^ ^{}[3:0] ^ ^{}[3:0] ^ ^{}[3:0];\n", x("fl"), x("doff"), x("doff6"), x("vt6"));
    v
}

/// Stage 3 of a layer: the first cause and the header end; `q_<x>_3`
/// (`q` names the register set, `p` the layer it is loaded from, `sel` a choice between two
/// layers: `Some((cond, p0, p1))` loads `cond ? p1 : p0`).
fn layer_s3(q: &str, src: &dyn Fn(&str) -> String) -> String {
    let mut v = String::new();
    v += &format!("wire {q}_csok = {};\n", src("csok"));
    let l3 = src("l3");
    v += &format!("reg [3:0] {q}_c;\nreg [7:0] {q}_n;\n");
    v += "always @(*) begin\n";
    let v6 = src("v6");
    v += &format!("  {q}_c = 4'd0;\n  {q}_n = {l3} + ({v6} ? 8'd40 : 8'd20);\n");
    v += &format!("  if (!{}) begin {q}_c = 4'd{}; {q}_n = {l3}; end\n", src("etok"), EmDrop::NotIp as u8);
    v += &format!("  else if ({}) {q}_c = 4'd{};\n", src("bad"), EmDrop::Malformed as u8);
    v += &format!("  else if ({}) {q}_c = 4'd{};\n", src("opt"), EmDrop::IpOptions as u8);
    v += &format!("  else if (!{v6} & !{q}_csok) {q}_c = 4'd{};\n", EmDrop::BadIpChecksum as u8);
    v += &format!("  else if ({}) {q}_c = 4'd{};\n", src("frag"), EmDrop::Fragment as u8);
    v += &format!("  else if ({}) begin {q}_n = {l3} + ({v6} ? 8'd60 : 8'd40); if ({}) {q}_c = 4'd{}; end\n", src("tcp"), src("tcpbad"), EmDrop::Malformed as u8);
    v += &format!("  else if ({}) begin {q}_n = {l3} + ({v6} ? 8'd48 : 8'd28); if ({}) {q}_c = 4'd{}; end\n", src("udp"), format!("{} | {}", src("udpbad"), src("roceshort")), EmDrop::Malformed as u8);
    v += "end\n";
    v += &reg(&format!("{q}_cause_3"), 4, &format!("{q}_c"));
    v += &reg(&format!("{q}_need_3"), 17, &format!("{{9'd0, {q}_n}}"));
    let l4 = format!("({} | {})", src("tcp"), src("udp"));
    v += &reg(&format!("{q}_sport_3"), 16, &format!("{l4} ? {} : 16'd0", src("sp")));
    v += &reg(&format!("{q}_dport_3"), 16, &format!("{l4} ? {} : 16'd0", src("dp")));
    v += &reg(&format!("{q}_vx_3"), 1, &format!("{} & {}", src("udp"), src("vxp")));
    v += &reg(&format!("{q}_roce_3"), 1, &format!("{} & {}", src("udp"), src("rocep")));
    v += &reg(&format!("{q}_tot36_3"), 1, &src("tot36"));
    v += &reg(&format!("{q}_bthend_3"), 17, &format!("{{9'd0, {l3}}} + ({v6} ? 17'd60 : 17'd40)"));
    for (f, n) in [("v6", 1), ("tag", 1), ("tci", 16), ("l3", 8), ("tos", 8), ("tot", 16), ("ttl", 8), ("proto", 8), ("src", 32), ("dst", 32), ("dqpn", 24), ("ipend", 17)] {
        v += &reg(&format!("{q}_{f}_3"), n, &src(f));
    }
    v
}

/// The header stage's Verilog: the outer layer from byte 0; the inner layer (VXLAN) from byte
/// 50 or 54 (both built; the outer tag picks one at stage 3).
fn extract_verilog() -> String {
    let mut v = String::from("wire unused_w = ^w; // only header bytes are read\n");
    // stage 1
    v += &layer_s1("o", 0);
    v += &layer_s1("a", 50);
    v += &layer_s1("b", 54);
    // the VXLAN header at the outer l3 + 28 (42 or 46)
    v += &reg("vflag_1", 1, &format!("tag_o ? w[{}] : w[{}]", 8 * 46 + 3, 8 * 42 + 3));
    v += &reg("vni_1", 24, &format!("tag_o ? {} : {}", be(50, 3), be(46, 3)));
    v += &reg("wire_1", 1, "from_wire");
    // stage 2
    v += &layer_s2("o");
    v += &layer_s2("a");
    v += &layer_s2("b");
    v += &reg("vflag_2", 1, "vflag_1");
    v += &reg("vni_2", 24, "vni_1");
    v += &reg("wire_2", 1, "wire_1");
    // stage 3: the outer layer, and the inner one by the outer tag
    v += &layer_s3("o", &|f| format!("o_{f}_2"));
    let fields2 = [
        ("csok", 1), ("l3", 8), ("etok", 1), ("bad", 1), ("opt", 1), ("frag", 1), ("tcp", 1), ("tcpbad", 1), ("udp", 1), ("udpbad", 1), ("roceshort", 1),
        ("sp", 16), ("dp", 16), ("vxp", 1), ("rocep", 1), ("tot36", 1), ("tag", 1), ("tci", 16), ("tos", 8), ("tot", 16), ("ttl", 8),
        ("proto", 8), ("src", 32), ("dst", 32), ("dqpn", 24), ("ipend", 17), ("v6", 1),
    ];
    for (f, n) in fields2 {
        v += &format!("wire [{}:0] i_{f}_sel = o_tag_2 ? b_{f}_2 : a_{f}_2;\n", n - 1);
    }
    v += &layer_s3("i", &|f| format!("i_{f}_sel"));
    v += &reg("vflag_3", 1, "vflag_2");
    v += &reg("vni_3", 24, "vni_2");
    v += &reg("wire_3", 1, "wire_2");
    // stage 4: VXLAN, the causes combined, the ends compared
    v += "wire isvx = wire_3 & (o_cause_3 == 4'd0) & o_vx_3;\n";
    v += "reg [3:0] c4;\nreg vxok4;\nreg roce4;\n";
    v += "always @(*) begin\n  c4 = o_cause_3;\n  vxok4 = 1'b0;\n  roce4 = 1'b0;\n";
    v += "  if (o_cause_3 == 4'd0) begin\n";
    v += &format!("    if (isvx) begin\n      if (o_tot36_3) c4 = 4'd{};\n      else if (!vflag_3) c4 = 4'd{};\n", EmDrop::Malformed as u8, EmDrop::BadVxlan as u8);
    v += "      else if (i_cause_3 != 4'd0) c4 = i_cause_3;\n      else begin vxok4 = 1'b1; roce4 = i_roce_3; end\n";
    v += "    end else roce4 = o_roce_3;\n  end\nend\n";
    v += &reg("c_4", 4, "c4");
    v += &reg("isvx_4", 1, "isvx");
    v += &reg("vxok_4", 1, "vxok4");
    v += &reg("roce_4", 1, "roce4");
    v += &reg("badvx_4", 1, "isvx & (o_tot36_3 | !vflag_3)");
    // every end the frame may need, and which of them are larger
    for (n, e) in [("on", "o_need_3"), ("oi", "o_ipend_3"), ("ov", "{9'd0, o_l3_3} + 17'd36"), ("ob", "o_bthend_3"), ("in", "i_need_3"), ("ii", "i_ipend_3"), ("ib", "i_bthend_3")] {
        v += &reg(&format!("e_{n}_4"), 17, e);
    }
    v += &reg("ov_gt_oi_4", 1, "({9'd0, o_l3_3} + 17'd36) > o_ipend_3");
    v += &reg("in_gt_oi_4", 1, "i_need_3 > o_ipend_3");
    v += &reg("ii_gt_oi_4", 1, "i_ipend_3 > o_ipend_3");
    v += &reg("ib_gt_oi_4", 1, "i_bthend_3 > o_ipend_3");
    v += &reg("ib_gt_ii_4", 1, "i_bthend_3 > i_ipend_3");
    v += &reg("ob_gt_oi_4", 1, "o_bthend_3 > o_ipend_3");
    v += &reg("vni_4", 24, "vni_3");
    v += "wire unused_ends = ^o_bthend_3 ^ ^o_need_3;\n";
    for (f, n) in [("v6", 1), ("tag", 1), ("tci", 16), ("l3", 8), ("tos", 8), ("tot", 16), ("ttl", 8), ("proto", 8), ("src", 32), ("dst", 32), ("sport", 16), ("dport", 16), ("dqpn", 24)] {
        v += &reg(&format!("o_{f}_4"), n, &format!("o_{f}_3"));
        v += &reg(&format!("i_{f}_4"), n, &format!("i_{f}_3"));
    }
    v += "wire unused_l = i_vx_3 ^ i_tot36_3 ^ ^i_tot_3[15:0];\n";
    // stage 5: the end the frame must reach, and the header
    v += "reg [16:0] n5;\n";
    v += "always @(*) begin\n";
    v += "  if (c_4 != 4'd0 & !isvx_4) n5 = e_on_4;\n";
    v += "  else if (badvx_4) n5 = ov_gt_oi_4 ? e_ov_4 : e_oi_4;\n";
    v += "  else if (isvx_4 & !vxok_4) n5 = in_gt_oi_4 ? e_in_4 : e_oi_4;\n";
    v += "  else if (vxok_4) begin\n";
    v += "    if (roce_4) n5 = ib_gt_ii_4 ? (ib_gt_oi_4 ? e_ib_4 : e_oi_4) : (ii_gt_oi_4 ? e_ii_4 : e_oi_4);\n";
    v += "    else n5 = ii_gt_oi_4 ? e_ii_4 : e_oi_4;\n";
    v += "  end\n";
    v += "  else if (roce_4) n5 = ob_gt_oi_4 ? e_ob_4 : e_oi_4;\n";
    v += "  else n5 = e_oi_4;\nend\n";
    let set = |name: &str, e: &str| format!("  {} = {e};\n", vfield("h5", EmHdrFields::slot(name)));
    v += &format!("reg [{}:0] h5;\n", EmHdrFields::BITS - 1);
    v += "always @(*) begin\n  h5 = 0;\n  if (c_4 == 4'd0) begin\n";
    v += &set("vlan", "o_tag_4");
    v += &set("vid", "o_tag_4 ? o_tci_4[11:0] : 12'd0");
    v += &set("v6", "o_v6_4");
    for f in ["l3", "src", "dst", "proto", "tos", "ttl", "tot", "sport", "dport"] {
        v += &set(f, &format!("o_{f}_4"));
    }
    v += &set("vxlan", "vxok_4");
    v += "  if (vxok_4) begin\n";
    v += &set("vni", "vni_4");
    v += &set("i_vlan", "i_tag_4");
    v += &set("i_vid", "i_tag_4 ? i_tci_4[11:0] : 12'd0");
    v += &set("i_v6", "i_v6_4");
    for f in ["l3", "src", "dst", "proto", "tos", "ttl", "tot", "sport", "dport"] {
        v += &set(&format!("i_{f}"), &format!("i_{f}_4"));
    }
    v += "  end\n";
    v += &set("roce", "roce_4");
    v += "  if (roce_4) begin\n";
    v += &set("dqpn", "vxok_4 ? i_dqpn_4 : o_dqpn_4");
    v += "  end\n  end\nend\n";
    v += "wire unused_tci = ^o_tci_4[15:12] ^ ^i_tci_4[15:12];\n";
    v += &format!("initial hdr = {}'d0;\ninitial cause = 4'd0;\ninitial need = 17'd0;\n", EmHdrFields::BITS);
    v += "always @(posedge clock) begin\n  hdr <= h5;\n  cause <= c_4;\n  need <= n5;\nend\n";
    v
}

/// The parser at `D` bits (`K` = `D`/8 `tkeep` bits; `FW` = `D` + `K` + 2, the payload FIFO's
/// entry). At 512 bits the 128-byte window is a frame's first two beats; at 1024 its first beat.
#[derive(LogicBlock)]
pub struct EmParseW<const D: usize, const K: usize, const FW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Configuration: this parser sits on a wire port (VXLAN is read), else on the host side.
    pub from_wire: Signal<In, Bit>,
    /// Host side: the VF a frame comes from, with its first beat.
    pub s_vf: Signal<In, Bits<12>>,
    /// Frames; `tuser` on the last beat: the MAC marked the frame bad.
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    /// Frames handed on, and frames dropped per cause (`EmDrop` order).
    pub frames: Signal<Out, Bits<32>>,
    pub drop_bad_frame: Signal<Out, Bits<32>>,
    pub drop_truncated: Signal<Out, Bits<32>>,
    pub drop_not_ip: Signal<Out, Bits<32>>,
    pub drop_malformed: Signal<Out, Bits<32>>,
    pub drop_ip_options: Signal<Out, Bits<32>>,
    pub drop_bad_ip_checksum: Signal<Out, Bits<32>>,
    pub drop_fragment: Signal<Out, Bits<32>>,
    pub drop_bad_vxlan: Signal<Out, Bits<32>>,
    ke: KeepExpand<K, D>,
    kc: KeepCount<K, 8>,
    ex: EmExtract,
    // window
    sof: DFF<Bit>,
    second: DFF<Bit>,
    win: DFF<Bits<1024>>,
    win_vf: DFF<Bits<12>>,
    wgo: DFF<Bit>,
    acc: Signal<Local, Bit>,
    masked: Signal<Local, Bits<D>>,
    // header results: the window's valid and VF, delayed as the header stage delays the window
    dv: [DFF<Bit>; EXTRACT_LATENCY],
    dvf: [DFF<Bits<12>>; EXTRACT_LATENCY],
    x_hdr: Signal<Local, EmHdr>,
    x_in: ToBits<EmHdr, EM_HDR_BITS>,
    res_q: AxisFifo<RES_BITS, 1, RES_W, 6>,
    res_hdr: FromBits<EmHdr, EM_HDR_BITS>,
    // lengths
    blen: DFF<Bits<16>>,
    l_valid: DFF<Bit>,
    l_keep: DFF<Bits<K>>,
    l_base: DFF<Bits<16>>,
    l_bad: DFF<Bit>,
    len_q: AxisFifo<LEN_BITS, 1, LEN_W, 6>,
    // join
    jn: Signal<Local, Bit>,
    j_len: Signal<Local, Bits<16>>,
    j_need: Signal<Local, Bits<17>>,
    j_hdr: Signal<Local, EmHdr>,
    j_in: ToBits<EmHdr, EM_HDR_BITS>,
    hdr_q: AxisFifo<EM_HDR_BITS, 1, HDR_W, 6>,
    hq_out: FromBits<EmHdr, EM_HDR_BITS>,
    drops: [DFF<Bits<32>>; EM_DROP_CAUSES],
    k_frames: DFF<Bits<32>>,
    cause_no: [Constant<Bits<4>>; EM_DROP_CAUSES],
    // the gate
    pay_q: AxisFifo<D, K, FW, 9>,
    in_frame: DFF<Bit>,
    drop_cur: DFF<Bit>,
    h_drop: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    cont: Signal<Local, Bit>,
    oskid: AxisSkid<D, K>,
    hskid: ChanSkid<EmHdr>,
    room: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    c48: Constant<Bits<16>>,
    c0_16: Constant<Bits<16>>,
    /// Bytes per beat.
    c_beat: Constant<Bits<16>>,
    /// The window is one beat (1024 bits and wider).
    one_beat: Constant<Bit>,
    c0_4: Constant<Bits<4>>,
    c_bad: Constant<Bits<4>>,
    c_trunc: Constant<Bits<4>>,
}

/// The parser on the 512-bit datapath.
pub type EmParse = EmParseW<DATA_W, KEEP_W, 578>;
/// The parser on the 1024-bit datapath (2×200G).
pub type EmParse1024 = EmParseW<1024, 128, 1154>;

impl<const D: usize, const K: usize, const FW: usize> Default for EmParseW<D, K, FW> {
    fn default() -> Self {
        assert!(D == 512 || D == 1024, "EmParse: 512 or 1024 bits");
        assert!(D == 8 * K && FW == D + K + 2);
        EmParseW {
            clock: Default::default(),
            reset: Default::default(),
            from_wire: Default::default(),
            s_vf: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            m_hdr: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            frames: Default::default(),
            drop_bad_frame: Default::default(),
            drop_truncated: Default::default(),
            drop_not_ip: Default::default(),
            drop_malformed: Default::default(),
            drop_ip_options: Default::default(),
            drop_bad_ip_checksum: Default::default(),
            drop_fragment: Default::default(),
            drop_bad_vxlan: Default::default(),
            ke: Default::default(),
            kc: Default::default(),
            ex: Default::default(),
            sof: Default::default(),
            second: Default::default(),
            win: Default::default(),
            win_vf: Default::default(),
            wgo: Default::default(),
            acc: Default::default(),
            masked: Default::default(),
            dv: Default::default(),
            dvf: Default::default(),
            x_hdr: Default::default(),
            x_in: Default::default(),
            res_q: AxisFifo::new(),
            res_hdr: Default::default(),
            blen: Default::default(),
            l_valid: Default::default(),
            l_keep: Default::default(),
            l_base: Default::default(),
            l_bad: Default::default(),
            len_q: AxisFifo::new(),
            jn: Default::default(),
            j_len: Default::default(),
            j_need: Default::default(),
            j_hdr: Default::default(),
            j_in: Default::default(),
            hdr_q: AxisFifo::new(),
            hq_out: Default::default(),
            drops: Default::default(),
            k_frames: Default::default(),
            cause_no: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            pay_q: AxisFifo::new(),
            in_frame: Default::default(),
            drop_cur: Default::default(),
            h_drop: Default::default(),
            start: Default::default(),
            cont: Default::default(),
            oskid: Default::default(),
            hskid: Default::default(),
            room: Default::default(),
            unused: Default::default(),
            c48: Constant::new(48.into()),
            c0_16: Constant::new(0.into()),
            c_beat: Constant::new(((D / 8) as u64).into()),
            one_beat: Constant::new(D >= 1024),
            c0_4: Constant::new(0.into()),
            c_bad: Constant::new((EmDrop::BadFrame as u64).into()),
            c_trunc: Constant::new((EmDrop::Truncated as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize, const FW: usize> Logic for EmParseW<D, K, FW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sof, second, win, win_vf, wgo, blen, l_valid, l_keep, l_base, l_bad, k_frames, in_frame, drop_cur);
        clock!(self, clock, res_q, len_q, hdr_q, pay_q, oskid, hskid);
        for i in 0..EM_DROP_CAUSES {
            self.drops[i].clock.next = self.clock.val();
            self.drops[i].d.next = self.drops[i].q.val();
        }
        for i in 0..EXTRACT_LATENCY {
            self.dv[i].clock.next = self.clock.val();
            self.dvf[i].clock.next = self.clock.val();
        }
        self.res_q.reset.next = self.reset.val();
        self.len_q.reset.next = self.reset.val();
        self.hdr_q.reset.next = self.reset.val();
        self.pay_q.reset.next = self.reset.val();
        self.oskid.reset.next = self.reset.val();
        self.hskid.reset.next = self.reset.val();
        // ------------------------------------------------ input: every beat to the payload FIFO
        self.room.next = (self.res_q.level.val() < self.c48.val()) & (self.len_q.level.val() < self.c48.val()) & (self.hdr_q.level.val() < self.c48.val());
        self.s_axis.tready.next = self.pay_q.s_axis.tready.val() & self.room.val();
        self.acc.next = self.s_axis.tvalid.val() & self.pay_q.s_axis.tready.val() & self.room.val();
        self.pay_q.s_axis.tdata.next = self.s_axis.tdata.val();
        self.pay_q.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.pay_q.s_axis.tlast.next = self.s_axis.tlast.val();
        self.pay_q.s_axis.tuser.next = false;
        self.pay_q.s_axis.tvalid.next = self.s_axis.tvalid.val() & self.room.val();
        // ------------------------------------------------ the window: the first 128 bytes (beats 0
        // and 1 at 512 bits, beat 0 at 1024), zeros past the end
        self.ke.keep.next = self.s_axis.tkeep.val();
        self.masked.next = self.s_axis.tdata.val() & self.ke.mask.val();
        self.wgo.d.next = false;
        if self.acc.val() {
            self.sof.d.next = self.s_axis.tlast.val();
            self.second.d.next = self.sof.q.val() & !self.s_axis.tlast.val() & !self.one_beat.val();
            if self.sof.q.val() {
                self.win.d.next = bit_cast::<1024, D>(self.masked.val());
                self.win_vf.d.next = self.s_vf.val();
                self.wgo.d.next = self.s_axis.tlast.val() | self.one_beat.val();
            } else if self.second.q.val() {
                self.win.d.next = bit_cast::<1024, 512>(self.win.q.val().get_bits::<512>(0)) | (bit_cast::<1024, D>(self.masked.val()) << 512);
                self.wgo.d.next = true;
            }
        }
        // ------------------------------------------------ the header stage, then its result queue
        self.ex.clock.next = self.clock.val();
        self.ex.w.next = self.win.q.val();
        self.ex.from_wire.next = self.from_wire.val();
        self.dv[0].d.next = self.wgo.q.val();
        self.dvf[0].d.next = self.win_vf.q.val();
        for i in 1..EXTRACT_LATENCY {
            self.dv[i].d.next = self.dv[i - 1].q.val();
            self.dvf[i].d.next = self.dvf[i - 1].q.val();
        }
        self.x_hdr.next = self.ex.hdr.val();
        self.x_hdr.next.cause = self.ex.cause.val();
        self.x_hdr.next.vf = self.dvf[4].q.val();
        self.x_in.fields.next = self.x_hdr.val();
        self.res_q.s_axis.tdata.next = bit_cast::<RES_BITS, EM_HDR_BITS>(self.x_in.bits.val()) | (bit_cast::<RES_BITS, 17>(self.ex.need.val()) << 398);
        self.res_q.s_axis.tkeep.next = true.into();
        self.res_q.s_axis.tlast.next = true;
        self.res_q.s_axis.tuser.next = false;
        self.res_q.s_axis.tvalid.next = self.dv[4].q.val();
        self.res_hdr.bits.next = self.res_q.m_axis.tdata.val().get_bits::<EM_HDR_BITS>(0);
        // ------------------------------------------------ the frame's length and MAC error, at its end
        self.l_valid.d.next = self.acc.val() & self.s_axis.tlast.val();
        self.l_keep.d.next = self.s_axis.tkeep.val();
        self.l_base.d.next = self.blen.q.val();
        self.l_bad.d.next = self.s_axis.tuser.val();
        if self.acc.val() {
            self.blen.d.next = self.blen.q.val() + self.c_beat.val();
            if self.s_axis.tlast.val() {
                self.blen.d.next = self.c0_16.val();
            }
        }
        self.kc.keep.next = self.l_keep.q.val();
        self.len_q.s_axis.tdata.next = bit_cast::<LEN_BITS, 16>(self.l_base.q.val() + bit_cast::<16, 8>(self.kc.count.val())) | (bit_cast::<LEN_BITS, 1>(self.l_bad.q.val().into()) << 16);
        self.len_q.s_axis.tkeep.next = true.into();
        self.len_q.s_axis.tlast.next = true;
        self.len_q.s_axis.tuser.next = false;
        self.len_q.s_axis.tvalid.next = self.l_valid.q.val();
        // ------------------------------------------------ join: the verdict, counted; the header queued
        self.jn.next = self.res_q.m_axis.tvalid.val() & self.len_q.m_axis.tvalid.val() & self.hdr_q.s_axis.tready.val();
        self.res_q.m_axis.tready.next = self.jn.val();
        self.len_q.m_axis.tready.next = self.jn.val();
        self.j_len.next = self.len_q.m_axis.tdata.val().get_bits::<16>(0);
        self.j_need.next = self.res_q.m_axis.tdata.val().get_bits::<17>(398);
        self.j_hdr.next = self.res_hdr.fields.val();
        self.j_hdr.next.len = self.j_len.val();
        if self.len_q.m_axis.tdata.val().get_bit(16) {
            self.j_hdr.next.cause = self.c_bad.val();
        } else if bit_cast::<17, 16>(self.j_len.val()) < self.j_need.val() {
            self.j_hdr.next.cause = self.c_trunc.val();
        }
        self.j_in.fields.next = self.j_hdr.val();
        self.hdr_q.s_axis.tdata.next = self.j_in.bits.val();
        self.hdr_q.s_axis.tkeep.next = true.into();
        self.hdr_q.s_axis.tlast.next = true;
        self.hdr_q.s_axis.tuser.next = false;
        self.hdr_q.s_axis.tvalid.next = self.jn.val();
        for i in 0..EM_DROP_CAUSES {
            if self.jn.val() & (self.j_hdr.val().cause == self.cause_no[i].val()) {
                self.drops[i].d.next = self.drops[i].q.val() + 1;
            }
        }
        if self.jn.val() & (self.j_hdr.val().cause == self.c0_4.val()) {
            self.k_frames.d.next = self.k_frames.q.val() + 1;
        }
        // ------------------------------------------------ the gate: a header and its frame's first beat together
        self.hq_out.bits.next = self.hdr_q.m_axis.tdata.val();
        self.h_drop.next = self.hq_out.fields.val().cause.any();
        self.start.next = !self.in_frame.q.val() & self.hdr_q.m_axis.tvalid.val() & self.pay_q.m_axis.tvalid.val()
            & (self.h_drop.val() | (self.oskid.s_axis.tready.val() & self.hskid.s_ready.val()));
        self.cont.next = self.in_frame.q.val() & self.pay_q.m_axis.tvalid.val() & (self.drop_cur.q.val() | self.oskid.s_axis.tready.val());
        self.hdr_q.m_axis.tready.next = self.start.val();
        self.pay_q.m_axis.tready.next = self.start.val() | self.cont.val();
        self.oskid.s_axis.tdata.next = self.pay_q.m_axis.tdata.val();
        self.oskid.s_axis.tkeep.next = self.pay_q.m_axis.tkeep.val();
        self.oskid.s_axis.tlast.next = self.pay_q.m_axis.tlast.val();
        self.oskid.s_axis.tuser.next = false;
        self.oskid.s_axis.tvalid.next = (self.start.val() & !self.h_drop.val()) | (self.cont.val() & !self.drop_cur.q.val());
        self.hskid.s_data.next = self.hq_out.fields.val();
        self.hskid.s_valid.next = self.start.val() & !self.h_drop.val();
        if self.start.val() {
            self.drop_cur.d.next = self.h_drop.val();
            self.in_frame.d.next = !self.pay_q.m_axis.tlast.val();
        }
        if self.cont.val() & self.pay_q.m_axis.tlast.val() {
            self.in_frame.d.next = false;
        }
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.oskid.m_axis);
        self.m_hdr.next = self.hskid.m_data.val();
        self.m_hdr_valid.next = self.hskid.m_valid.val();
        self.hskid.m_ready.next = self.m_hdr_ready.val();
        // ------------------------------------------------ counters
        self.frames.next = self.k_frames.q.val();
        self.drop_bad_frame.next = self.drops[0].q.val();
        self.drop_truncated.next = self.drops[1].q.val();
        self.drop_not_ip.next = self.drops[2].q.val();
        self.drop_malformed.next = self.drops[3].q.val();
        self.drop_ip_options.next = self.drops[4].q.val();
        self.drop_bad_ip_checksum.next = self.drops[5].q.val();
        self.drop_fragment.next = self.drops[6].q.val();
        self.drop_bad_vxlan.next = self.drops[7].q.val();
        self.unused.next = self.res_q.m_axis.tkeep.val().any() | self.res_q.m_axis.tlast.val() | self.res_q.m_axis.tuser.val()
            | self.len_q.m_axis.tkeep.val().any() | self.len_q.m_axis.tlast.val() | self.len_q.m_axis.tuser.val()
            | self.hdr_q.m_axis.tkeep.val().any() | self.hdr_q.m_axis.tlast.val() | self.hdr_q.m_axis.tuser.val()
            | self.pay_q.level.val().any() | self.pay_q.m_axis.tuser.val()
            | self.res_q.s_axis.tready.val() | self.len_q.s_axis.tready.val();
        if self.reset.val() {
            self.sof.d.next = true;
            self.second.d.next = false;
            self.wgo.d.next = false;
            for i in 0..EXTRACT_LATENCY {
                self.dv[i].d.next = false;
            }
            self.l_valid.d.next = false;
            self.blen.d.next = self.c0_16.val();
            self.in_frame.d.next = false;
            self.k_frames.d.next = 0.into();
            for i in 0..EM_DROP_CAUSES {
                self.drops[i].d.next = 0.into();
            }
        }
    }
}

/// The parser's counters (register map names and meanings).
pub const EM_PARSE_COUNTERS: [(&str, &str); 9] = [
    ("frames", "frames handed on"),
    ("drop_bad_frame", "frames the MAC marked bad"),
    ("drop_truncated", "frames that end inside a header or an IP datagram"),
    ("drop_not_ip", "frames that are neither IPv4 nor IPv6"),
    ("drop_malformed", "IPv4/IPv6/TCP/UDP/VXLAN headers with impossible fields"),
    ("drop_ip_options", "IPv4 headers with options (IHL above 5), IPv6 extension headers"),
    ("drop_bad_ip_checksum", "IPv4 headers whose checksum is wrong"),
    ("drop_fragment", "IPv4 and IPv6 fragments"),
    ("drop_bad_vxlan", "VXLAN headers without the I flag"),
];

nicgen_hdl::impl_ports!([EmParse, EmParse1024], clock = clock, [clock, reset, from_wire, s_vf,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    m_hdr, m_hdr_valid, m_hdr_ready, frames, drop_bad_frame, drop_truncated, drop_not_ip, drop_malformed,
    drop_ip_options, drop_bad_ip_checksum, drop_fragment, drop_bad_vxlan]);
