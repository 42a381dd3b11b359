//! The parsed RoCEv2 header: one field definition, [`RoceHdr`], shared by the RX parser, the
//! dispatcher, the testbenches (through [`RxHdrFields`]) and the field extractors.
//!
//! Fields are located by a table of wire positions ([`FIELDS`], in bits from the start of the
//! Ethernet frame, most significant bit first), one for IPv4 and one for IPv6 frames. The
//! extractors are emitted as `Verilog::Custom` from that table; their Rust models read the same
//! table. Tests check both against the golden model (`nicgen-model`, built on etherparse).
use crate::crc::fields::bytes_of;
use nicgen_model::OpcodeLayout;
use rust_hdl::prelude::*;

crate::record!(
    /// A parsed RoCEv2 header, as it travels on the header channel beside the payload stream.
    /// RETH and AETH fields are read at the position right after the BTH whatever the opcode;
    /// the opcode says which of them are meaningful.
    RoceHdr,
    /// The header fields as plain integers: the word-level model of the extractors, and the
    /// testbench view of a `RoceHdr` port.
    RxHdrFields {
        opcode: u8 = 8,
        se: bool = 1,
        migreq: bool = 1,
        pad: u8 = 2,
        tver: u8 = 4,
        pkey: u16 = 16,
        fecn: bool = 1,
        becn: bool = 1,
        dqpn: u32 = 24,
        ackreq: bool = 1,
        psn: u32 = 24,
        va: u64 = 64,
        rkey: u32 = 32,
        dma_len: u32 = 32,
        syndrome: u8 = 8,
        msn: u32 = 24,
        ipv6: bool = 1,
        ecn: u8 = 2,
        /// IPv4 addresses sit in the low 32 bits.
        src_ip: u128 = 128,
        udp_sport: u16 = 16,
        /// The opcode is an RC opcode whose header layout the parser knows.
        known: bool = 1,
        /// Headers plus pad do not fit in the frame (the frame carries no payload then).
        len_err: bool = 1,
        /// Payload bytes, pad excluded (0 when `len_err`).
        plen: u16 = 16,
        /// The parallel tap flagged the frame (DPI policy `flag`): set by the parser from the
        /// engine's per-frame verdict, never read from the frame (0 from the extractor).
        tap_flag: bool = 1,
        /// The frame was cut through the RX buffer ([`CUT_OPS`]): it may still turn out bad, so
        /// its effects wait for its verdict. Set by the parser, 0 from the extractor.
        spec: bool = 1,
    }
);

/// Byte offsets of the BTH in IPv4 and IPv6 frames.
pub const BTH_V4: usize = 14 + 20 + 8;
pub const BTH_V6: usize = 14 + 40 + 8;

/// A field read from the wire: its name in [`RoceHdr`], and (bit position, width) in IPv4 and
/// IPv6 frames.
pub struct Field {
    pub name: &'static str,
    pub v4: (usize, usize),
    pub v6: (usize, usize),
}

const fn bth(byte: usize, bit: usize, w: usize) -> ((usize, usize), (usize, usize)) {
    ((8 * (BTH_V4 + byte) + bit, w), (8 * (BTH_V6 + byte) + bit, w))
}

macro_rules! f {
    ($n:literal, $p:expr) => {
        Field { name: $n, v4: $p.0, v6: $p.1 }
    };
}

/// Every field the wire carries, by position.
pub const FIELDS: [Field; 19] = [
    f!("opcode", bth(0, 0, 8)),
    f!("se", bth(1, 0, 1)),
    f!("migreq", bth(1, 1, 1)),
    f!("pad", bth(1, 2, 2)),
    f!("tver", bth(1, 4, 4)),
    f!("pkey", bth(2, 0, 16)),
    f!("fecn", bth(4, 0, 1)),
    f!("becn", bth(4, 1, 1)),
    f!("dqpn", bth(5, 0, 24)),
    f!("ackreq", bth(8, 0, 1)),
    f!("psn", bth(9, 0, 24)),
    f!("va", bth(12, 0, 64)),
    f!("rkey", bth(20, 0, 32)),
    f!("dma_len", bth(24, 0, 32)),
    f!("syndrome", bth(12, 0, 8)),
    f!("msn", bth(13, 0, 24)),
    Field { name: "ecn", v4: (8 * 15 + 6, 2), v6: (8 * 14 + 10, 2) },
    Field { name: "src_ip", v4: (8 * 26, 32), v6: (8 * 22, 128) },
    Field { name: "udp_sport", v4: (8 * 34, 16), v6: (8 * 54, 16) },
];

/// Positions (bytes) of the fields that locate and size the headers.
const ETHERTYPE: usize = 12;
const V4_VER_IHL: usize = 14;
const V4_TOTAL_LEN: usize = 16;
const V4_PROTO: usize = 23;
const V4_DPORT: usize = 36;
const V6_PAYLOAD_LEN: usize = 18;
const V6_NEXT_HDR: usize = 20;
const V6_DPORT: usize = 56;

/// Bits `pos..pos+width` of `bytes` in wire order (MSB of byte 0 first); bytes past the end read 0.
pub fn wire_bits(bytes: &[u8], pos: usize, width: usize) -> u128 {
    (0..width).fold(0u128, |a, i| {
        let q = pos + i;
        let bit = bytes.get(q / 8).map_or(0, |b| b >> (7 - q % 8) & 1);
        a << 1 | bit as u128
    })
}

/// Extension-header bytes after the BTH, if `op` is an RC opcode the parser knows.
pub fn ext_len(op: u8) -> Option<usize> {
    OpcodeLayout::of(op).map(|l| l.ext_len())
}

/// What the first beat of a frame says about it (the model of [`RoceFrameInfo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FrameInfo {
    /// IPv4 without options or IPv6, UDP to port 4791.
    pub roce: bool,
    /// Bytes of Ethernet, IP, UDP, BTH and extension headers.
    pub hdr_len: u16,
    /// Frame bytes without the ICRC and the pad: headers plus payload.
    pub limit: u16,
    pub known: bool,
    pub len_err: bool,
    pub plen: u16,
    /// The header-length code (see [`ext_lens`]): bit 3 IPv6, bits 2..0 the index of the
    /// extension length in [`ext_lens`] (0 for an opcode the parser does not know).
    pub hdr_code: u8,
}

pub fn frame_info(b: &[u8]) -> FrameInfo {
    let be = |o: usize| wire_bits(b, 8 * o, 16) as u16;
    let byte = |o: usize| wire_bits(b, 8 * o, 8) as u8;
    let v6 = be(ETHERTYPE) == 0x86dd;
    let v4 = be(ETHERTYPE) == 0x0800;
    let roce = (v4 && byte(V4_VER_IHL) == 0x45 && byte(V4_PROTO) == 17 && be(V4_DPORT) == 4791)
        || (v6 && byte(V6_NEXT_HDR) == 17 && be(V6_DPORT) == 4791);
    let bth = if v6 { BTH_V6 } else { BTH_V4 };
    let op = byte(bth);
    let pad = byte(bth + 1) >> 4 & 3;
    let ext = ext_len(op);
    let hdr_len = (bth + 12 + ext.unwrap_or(0)) as u16;
    let data_len = if v6 { be(V6_PAYLOAD_LEN).wrapping_add(50) } else { be(V4_TOTAL_LEN).wrapping_add(10) };
    let limit = data_len.wrapping_sub(pad as u16);
    let len_err = limit < hdr_len;
    let ext_i = ext.map(|e| ext_lens().iter().position(|&x| x == e).unwrap()).unwrap_or(0);
    let hdr_code = (v6 as u8) << 3 | ext_i as u8;
    FrameInfo { roce, hdr_len, limit, known: ext.is_some(), len_err, plen: if len_err { 0 } else { limit - hdr_len }, hdr_code }
}

impl RxHdrFields {
    /// The model of [`RoceHdrExtract`]: the fields of a frame whose first 128 bytes are `b`.
    pub fn from_frame(b: &[u8]) -> Self {
        let v6 = wire_bits(b, 8 * ETHERTYPE, 16) == 0x86dd;
        let get = |name: &str| {
            let f = FIELDS.iter().find(|f| f.name == name).unwrap();
            let (p, w) = if v6 { f.v6 } else { f.v4 };
            wire_bits(b, p, w)
        };
        let i = frame_info(b);
        RxHdrFields {
            opcode: get("opcode") as u8,
            se: get("se") == 1,
            migreq: get("migreq") == 1,
            pad: get("pad") as u8,
            tver: get("tver") as u8,
            pkey: get("pkey") as u16,
            fecn: get("fecn") == 1,
            becn: get("becn") == 1,
            dqpn: get("dqpn") as u32,
            ackreq: get("ackreq") == 1,
            psn: get("psn") as u32,
            va: get("va") as u64,
            rkey: get("rkey") as u32,
            dma_len: get("dma_len") as u32,
            syndrome: get("syndrome") as u8,
            msn: get("msn") as u32,
            ipv6: v6,
            ecn: get("ecn") as u8,
            src_ip: get("src_ip"),
            udp_sport: get("udp_sport") as u16,
            known: i.known,
            len_err: i.len_err,
            plen: i.plen,
            tap_flag: false,
            spec: false,
        }
    }

}

// ------------------------------------------------------------------ Verilog generation

/// `{x[..], x[..], ...}`: bits `pos..pos+w` of the wire-order byte stream `x` (byte 0 in x[7:0]),
/// most significant first, zero-extended to `width`.
pub(crate) fn vwire(x: &str, pos: usize, w: usize, width: usize) -> String {
    let mut parts = vec![];
    if width > w {
        parts.push(format!("{}'d0", width - w));
    }
    let mut i = 0;
    while i < w {
        let q = pos + i;
        if q % 8 == 0 && w - i >= 8 {
            parts.push(format!("{x}[{}:{}]", 8 * (q / 8) + 7, 8 * (q / 8)));
            i += 8;
        } else {
            parts.push(format!("{x}[{}]", 8 * (q / 8) + 7 - q % 8));
            i += 1;
        }
    }
    format!("{{{}}}", parts.join(", "))
}

/// Wires shared by both extractors, read from input `x`: `v6`, `roce`, `opcode`, `pad`, `ext`,
/// `known`, `ext_n`, `limit`, `len_err`, `plen` (the header length: [`FrameInfo::hdr_code`]).
/// `is4`, `v6`, `roce_w` (IPv4 without options or IPv6, UDP to 4791) and the opcode `op` of the
/// first beat `x`.
fn roce_wires(x: &str) -> String {
    let b16 = |o: usize| vwire(x, 8 * o, 16, 16);
    let b8 = |o: usize| vwire(x, 8 * o, 8, 8);
    let mut v = String::new();
    v += &format!("wire is4 = {} == 16'h0800;\nwire v6 = {} == 16'h86dd;\n", b16(ETHERTYPE), b16(ETHERTYPE));
    v += &format!(
        "wire roce_w = (is4 & ({} == 8'h45) & ({} == 8'h11) & ({} == 16'd4791)) | (v6 & ({} == 8'h11) & ({} == 16'd4791));\n",
        b8(V4_VER_IHL),
        b8(V4_PROTO),
        b16(V4_DPORT),
        b8(V6_NEXT_HDR),
        b16(V6_DPORT)
    );
    v += &format!("wire [7:0] op = v6 ? {} : {};\n", b8(BTH_V6), b8(BTH_V4));
    v
}

fn common_wires(x: &str) -> String {
    let b16 = |o: usize| vwire(x, 8 * o, 16, 16);
    let mut v = roce_wires(x);
    v += &format!("wire [1:0] padc = v6 ? {} : {};\n", vwire(x, 8 * BTH_V6 + 10, 2, 2), vwire(x, 8 * BTH_V4 + 10, 2, 2));
    // Lengths, re-associated so that no adder waits for another (LUT depth): with lf the IP
    // length field and K the bytes around it (10 for IPv4, 50 for IPv6),
    //   limit = lf + (K - pad),  plen = limit - hdr_len = lf - d,  d = (hdr_base - K) + ext + pad,
    // and limit < hdr_len exactly when lf + K - pad wraps 16 bits or lf < d. `d4`/`d6` come
    // from the opcode table with the base already added.
    let (b4, b6) = (BTH_V4 + 12, BTH_V6 + 12);
    v += "reg [5:0] ext_n;\nreg [6:0] d4, d6;\nreg known_w;\nalways @(*) begin\n  known_w = 1'b1;\n  case (op)\n";
    for op in 0..=255u8 {
        if let Some(e) = ext_len(op) {
            v += &format!("    8'h{op:02x}: begin ext_n = 6'd{e}; d4 = 7'd{}; d6 = 7'd{}; end\n", b4 - 10 + e, b6 - 50 + e);
        }
    }
    v += &format!("    default: begin ext_n = 6'd0; d4 = 7'd{}; d6 = 7'd{}; known_w = 1'b0; end\n  endcase\nend\n", b4 - 10, b6 - 50);
    v += &format!("wire [15:0] lf = v6 ? {} : {};\n", b16(V6_PAYLOAD_LEN), b16(V4_TOTAL_LEN));
    // a table, not a subtractor (a carry chain ahead of the adder)
    v += "reg [5:0] kpad;\nalways @(*) begin\n  case ({v6, padc})\n";
    for k in 0..8u32 {
        v += &format!("    3'd{k}: kpad = 6'd{};\n", if k & 4 != 0 { 50 } else { 10 } - (k & 3));
    }
    v += "    default: kpad = 6'd0;\n  endcase\nend\n";
    v += "wire [16:0] lsum = {1'b0, lf} + {11'd0, kpad};\n";
    v += "wire [15:0] limit_w = lsum[15:0];\n";
    v += "wire [7:0] dlen = {1'b0, v6 ? d6 : d4} + {6'd0, padc};\n";
    v += "wire len_err_w = lsum[16] | (lf < {8'd0, dlen});\n";
    v += "wire [15:0] plen_w = len_err_w ? 16'd0 : lf - {8'd0, dlen};\n";
    v
}

/// The header extractor: every [`RoceHdr`] field from the first 128 bytes of a frame (`w`,
/// byte 0 in `w[7:0]`; zeros past the frame's end). Pure logic: byte selects by IP version,
/// an opcode ROM and three 16-bit adders.
#[derive(LogicBlock, Default)]
pub struct RoceHdrExtract {
    pub w: Signal<In, Bits<1024>>,
    pub hdr: Signal<Out, RoceHdr>,
}

impl Logic for RoceHdrExtract {
    fn update(&mut self) {
        self.hdr.next = RxHdrFields::from_frame(&bytes_of(self.w.val())).to_struct();
    }
    fn connect(&mut self) {
        self.hdr.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("wire unused_w = ^w; // only header bytes are read\n");
        v += &common_wires("w");
        v += "wire unused_info = roce_w ^ ^limit_w ^ ^ext_n;\n";
        for f in FIELDS.iter() {
            let (o, n) = RxHdrFields::slot(f.name);
            v += &format!("assign hdr[{}:{}] = v6 ? {} : {};\n", o + n - 1, o, vwire("w", f.v6.0, f.v6.1, n), vwire("w", f.v4.0, f.v4.1, n));
        }
        let one = |name: &str, e: &str| {
            let (o, n) = RxHdrFields::slot(name);
            format!("assign hdr[{}:{}] = {e};\n", o + n - 1, o)
        };
        v += &one("ipv6", "v6");
        v += &one("known", "known_w");
        v += &one("len_err", "len_err_w");
        v += &one("plen", "plen_w");
        v += &one("tap_flag", "1'b0");
        v += &one("spec", "1'b0");
        Verilog::Custom(v)
    }
}

/// The extension-header lengths any known opcode has, in order: the index of an opcode's
/// length is its header-length code ([`FrameInfo::hdr_code`], with the IP version in bit 3).
/// A register of the code, decoded by [`HdrLenOfCode`], lets the strip shift by one of the few
/// header lengths that can occur instead of any of 256 (a barrel shifter a fraction of the size).
/// Worked out once (the models call it every evaluation).
pub fn ext_lens() -> &'static [usize] {
    static LENS: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    LENS.get_or_init(|| {
        let mut e: Vec<usize> = (0..=255u8).filter_map(ext_len).collect();
        e.sort();
        e.dedup();
        assert!(e.len() <= 8, "header-length code: 3 bits for the extension length");
        e
    })
}

/// The header length a header-length code ([`FrameInfo::hdr_code`]) stands for.
pub fn hdr_len_of_code(code: u8) -> u16 {
    let base = if code & 8 != 0 { BTH_V6 } else { BTH_V4 } + 12;
    (base + ext_lens().get(code as usize & 7).copied().unwrap_or(0)) as u16
}

/// The first-beat classifier of the RX path: whether the frame is RoCEv2, its header-length
/// code ([`FrameInfo::hdr_code`]) and how many bytes (headers and payload) to keep.
#[derive(LogicBlock, Default)]
pub struct RoceFrameInfo {
    pub data: Signal<In, Bits<512>>,
    pub roce: Signal<Out, Bit>,
    pub hdr_code: Signal<Out, Bits<4>>,
    pub limit: Signal<Out, Bits<16>>,
}

impl Logic for RoceFrameInfo {
    fn update(&mut self) {
        let i = frame_info(&bytes_of(self.data.val()));
        self.roce.next = i.roce;
        self.hdr_code.next = (i.hdr_code as u64).into();
        self.limit.next = (i.limit as u64).into();
    }
    fn connect(&mut self) {
        self.roce.connect();
        self.hdr_code.connect();
        self.limit.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("wire unused_data = ^data; // only header bytes are read\n");
        v += &common_wires("data");
        v += "wire unused_info = known_w ^ ^plen_w ^ len_err_w;\n";
        v += "reg [2:0] ext_i;\nalways @(*) begin\n  case (ext_n)\n";
        for (i, e) in ext_lens().iter().enumerate() {
            v += &format!("    6'd{e}: ext_i = 3'd{i};\n");
        }
        v += "    default: ext_i = 3'd0;\n  endcase\nend\n";
        v += "assign roce = roce_w;\nassign hdr_code = {v6, ext_i};\nassign limit = limit_w;\n";
        Verilog::Custom(v)
    }
}

/// Opcodes whose frames the RX buffer may cut through (speculative placement), in two classes:
/// * `CUT_OPS[0]`, **safe**: the packets placed at an address the QP's state gives, not the
///   packet itself (WRITE MIDDLE and LAST at the responder; every READ RESPONSE at the requester,
///   which places one only inside the READ's buffer), so a corrupt one that passes the checks
///   writes only bytes that the good packet of that PSN writes again;
/// * `CUT_OPS[1]`, **own address**: the packets whose RETH names the address (WRITE FIRST and
///   ONLY). A corrupt RETH that still passes the rkey and range checks would write inside the
///   QP's memory region where no later packet writes. By default (`RX_CUT` bit 2) the engine cuts
///   these through but the responder holds them until their verdict (nothing is written before
///   it; what is saved is the time a stored frame spends reaching the responder and its lookup);
///   it places them before the verdict only on request (`RX_CUT` bit 1).
pub const CUT_OPS: [&[u8]; 2] = [
    &[
        nicgen_model::opcode::WRITE_MIDDLE,
        nicgen_model::opcode::WRITE_LAST,
        nicgen_model::opcode::READ_RESP_FIRST,
        nicgen_model::opcode::READ_RESP_MIDDLE,
        nicgen_model::opcode::READ_RESP_LAST,
        nicgen_model::opcode::READ_RESP_ONLY,
    ],
    &[nicgen_model::opcode::WRITE_FIRST, nicgen_model::opcode::WRITE_ONLY],
];

/// Frames whose IP length field (IPv4 total length, IPv6 payload length) is below this are
/// stored whatever their opcode. A frame cut through costs the responder (and the requester,
/// for a READ response) a wait for its verdict before the next header: a few cycles per frame,
/// which must fit in the slack a frame has on the 100G wire against the 64-byte datapath (it
/// takes 50 B/cycle on the wire, 64 through the RX path: about 4 cycles at 1 KiB, 1 at 256 B).
/// Storing a shorter frame costs at most 17 cycles.
pub const CUT_MIN_LEN: u16 = 1024;

/// The model of [`RxCutPick`]: the class in [`CUT_OPS`] of a frame (its first 64 bytes, `b`),
/// if the RX buffer may cut it through.
pub fn cut_class(b: &[u8]) -> Option<usize> {
    let v6 = wire_bits(b, 8 * ETHERTYPE, 16) == 0x86dd;
    let op = wire_bits(b, 8 * if v6 { BTH_V6 } else { BTH_V4 }, 8) as u8;
    let lf = wire_bits(b, 8 * if v6 { V6_PAYLOAD_LEN } else { V4_TOTAL_LEN }, 16) as u16;
    if !frame_info(b).roce || lf < CUT_MIN_LEN {
        return None;
    }
    CUT_OPS.iter().position(|c| c.contains(&op))
}

/// First-beat classifier of the RX buffer: the frame is RoCEv2, at least [`CUT_MIN_LEN`] long,
/// with an opcode of [`CUT_OPS`] class 0 (`cut_safe`) or 1 (`cut_reth`).
#[derive(LogicBlock, Default)]
pub struct RxCutPick {
    pub data: Signal<In, Bits<512>>,
    pub cut_safe: Signal<Out, Bit>,
    pub cut_reth: Signal<Out, Bit>,
}

impl Logic for RxCutPick {
    fn update(&mut self) {
        let c = cut_class(&bytes_of(self.data.val()));
        self.cut_safe.next = c == Some(0);
        self.cut_reth.next = c == Some(1);
    }
    fn connect(&mut self) {
        self.cut_safe.connect();
        self.cut_reth.connect();
    }
    fn hdl(&self) -> Verilog {
        let b16 = |o: usize| vwire("data", 8 * o, 16, 16);
        let mut v = String::from("wire unused_data = ^data; // only header bytes are read\n");
        v += &roce_wires("data");
        // (the minimum is a power of two: "at least" is any bit at or above its own, tested on
        // each length field before the IPv4/IPv6 pick, with no compare's carry chain)
        assert!(CUT_MIN_LEN.is_power_of_two());
        let lg = CUT_MIN_LEN.trailing_zeros();
        v += &format!("wire [15:0] lf6 = {};\nwire [15:0] lf4 = {};\n", b16(V6_PAYLOAD_LEN), b16(V4_TOTAL_LEN));
        v += &format!("wire unused_lf = ^{{lf6[{m}:0], lf4[{m}:0]}};\n", m = lg - 1);
        v += &format!("wire long_w = v6 ? |lf6[15:{lg}] : |lf4[15:{lg}];\n");
        for (name, ops) in ["cut_safe", "cut_reth"].iter().zip(CUT_OPS) {
            let m: Vec<String> = ops.iter().map(|o| format!("(op == 8'h{o:02x})")).collect();
            v += &format!("assign {name} = roce_w & long_w & ({});\n", m.join(" | "));
        }
        Verilog::Custom(v)
    }
}

/// Decodes a header-length code ([`FrameInfo::hdr_code`]) into the header length in bytes.
#[derive(LogicBlock, Default)]
pub struct HdrLenOfCode {
    pub code: Signal<In, Bits<4>>,
    pub hdr_len: Signal<Out, Bits<8>>,
}

impl Logic for HdrLenOfCode {
    fn update(&mut self) {
        self.hdr_len.next = (hdr_len_of_code(self.code.val().index() as u8) as u64).into();
    }
    fn connect(&mut self) {
        self.hdr_len.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("reg [7:0] n;\nalways @(*) begin\n  case (code)\n");
        for c in 0..16u8 {
            v += &format!("    4'd{c}: n = 8'd{};\n", hdr_len_of_code(c));
        }
        v += "    default: n = 8'd0;\n  endcase\nend\nassign hdr_len = n;\n";
        Verilog::Custom(v)
    }
}

/// Whether a beat ends within the frame's headers (bytes up to the header length), the header
/// length given by its code ([`FrameInfo::hdr_code`]): the frame's first beat (`mid` low, code
/// `code_first`) holds bytes 0..63, its second (`mid` high, code `code_mid`) bytes 64..127, and
/// `keep` is contiguous, so "more than n bytes in this beat" is keep bit n. Each code is a case
/// that picks one constant keep bit, a 16-way pick, where decoding the length and then shifting
/// `keep` by it would be a length decoder in front of a 64-way shifter.
#[derive(LogicBlock, Default)]
pub struct RuntOfCode {
    pub code_first: Signal<In, Bits<4>>,
    pub code_mid: Signal<In, Bits<4>>,
    pub mid: Signal<In, Bit>,
    pub keep: Signal<In, Bits<64>>,
    pub runt: Signal<Out, Bit>,
}

/// For [`RuntOfCode`], the header length of one code as: the keep bit of the byte after the
/// headers within its beat (`None` past the second beat), whether the headers fill the first
/// beat, and whether they fill the second. In the first beat a frame is a runt when its headers
/// fill the beat or that byte is not kept; in the second, when they fill that beat too, or end in
/// it and that byte is not kept.
fn runt_of_code(code: u8) -> (Option<usize>, bool, bool) {
    let hl = hdr_len_of_code(code) as usize;
    ((hl < 128).then_some(hl & 63), hl >= 64, hl >= 128)
}

impl Logic for RuntOfCode {
    fn update(&mut self) {
        let keep = self.keep.val();
        let pick = |code: u8, mid: bool| {
            let (at, first_always, mid_always) = runt_of_code(code);
            let miss = at.map_or(true, |b| !keep.get_bit(b));
            if mid { mid_always || (first_always && miss) } else { first_always || miss }
        };
        let mid = self.mid.val();
        let code = if mid { self.code_mid.val() } else { self.code_first.val() };
        self.runt.next = pick(code.index() as u8, mid);
    }
    fn connect(&mut self) {
        self.runt.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("wire unused_keep = ^keep; // only the bytes after each header length are read\nreg r_first;\nreg r_mid;\nalways @(*) begin\n  case (code_first)\n");
        let bit = |at: Option<usize>| at.map_or("1'b1".to_string(), |b| format!("~keep[{b}]"));
        for c in 0..16u8 {
            let (at, first_always, _) = runt_of_code(c);
            v += &format!("    4'd{c}: r_first = {};\n", if first_always { "1'b1".to_string() } else { bit(at) });
        }
        v += "    default: r_first = 1'b1;\n  endcase\n  case (code_mid)\n";
        for c in 0..16u8 {
            let (at, first_always, mid_always) = runt_of_code(c);
            let e = if mid_always { "1'b1".to_string() } else if first_always { bit(at) } else { "1'b0".to_string() };
            v += &format!("    4'd{c}: r_mid = {e};\n");
        }
        v += "    default: r_mid = 1'b1;\n  endcase\nend\nassign runt = mid ? r_mid : r_first;\n";
        Verilog::Custom(v)
    }
}
