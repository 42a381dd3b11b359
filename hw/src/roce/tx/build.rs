//! `RoceTxBuild` (`tx/bth` + `tx/eth_ip_udp` + `crc/append`): the deparser. It takes one
//! [`TxHdr`] per frame and, when `plen > 0`, a payload frame of exactly `plen` bytes, and sends
//! the whole RoCEv2 frame: Ethernet, IPv4 (checksum computed) or IPv6, UDP (checksum 0),
//! BTH, RETH or AETH as the opcode requires, payload, zero pad to a 4-byte multiple, ICRC.
//!
//! The header bytes come from a placement table ([`layout`]) emitted as `Verilog::Custom`
//! ([`RoceHdrPack`]); its Rust model reads the same table. Tests check the frames byte for byte
//! against the golden model (etherparse), and with scapy and tshark.
use crate::crc::fields::bits_of;
use crate::crc::icrc::IcrcGen;
use crate::em::{fold_verilog, vfield};
use crate::roce::hdr::{ext_len, BTH_V4, BTH_V6};
use crate::stream::*;
use nicgen_model::OpcodeLayout;
use rust_hdl::prelude::*;

crate::record!(
    /// What the transmit side knows about a frame before it is built: the QP's addressing and
    /// the packet's transport fields.
    TxHdr,
    /// The plain-integer mirror of [`TxHdr`] for testbenches and the model.
    TxFields {
        opcode: u8 = 8,
        se: bool = 1,
        ackreq: bool = 1,
        pkey: u16 = 16,
        dqpn: u32 = 24,
        psn: u32 = 24,
        va: u64 = 64,
        rkey: u32 = 32,
        dma_len: u32 = 32,
        syndrome: u8 = 8,
        msn: u32 = 24,
        ipv6: bool = 1,
        /// IPv4 addresses in the low 32 bits.
        src_ip: u128 = 128,
        dst_ip: u128 = 128,
        src_mac: u64 = 48,
        dst_mac: u64 = 48,
        udp_sport: u16 = 16,
        dscp: u8 = 6,
        ecn: u8 = 2,
        /// IPv4 TTL or IPv6 hop limit.
        ttl: u8 = 8,
        flow: u32 = 20,
        /// Payload bytes (the pad is added here).
        plen: u16 = 16,
    }
);

// ------------------------------------------------------------------ header placement

/// Where a header bit range comes from.
#[derive(Clone, Copy, Debug)]
pub enum Src {
    /// Bits `lo..lo+width` of a [`TxHdr`] field.
    F(&'static str, usize),
    /// A constant.
    C(u64),
    /// A computed value: `pad` (2), `ulen` (UDP length, 16), `iplen` (IPv4 total length, 16),
    /// `csum` (IPv4 header checksum, 16), `tclass` (DSCP and ECN, 8), `ext` (RETH or AETH,
    /// 128, left-aligned).
    W(&'static str),
}

/// One field of the header: wire bit position (from frame start, MSB first), width, source.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    pub pos: usize,
    pub width: usize,
    pub src: Src,
}

const fn p(pos: usize, width: usize, src: Src) -> Place {
    Place { pos, width, src }
}

/// The header layout of an IPv4 or IPv6 RoCEv2 frame.
pub fn layout(v6: bool) -> Vec<Place> {
    use Src::*;
    let mut v = vec![p(0, 48, F("dst_mac", 0)), p(48, 48, F("src_mac", 0))];
    let (l4, b) = if v6 {
        v.extend([
            p(96, 16, C(0x86dd)),
            p(112, 4, C(6)),
            p(116, 8, W("tclass")),
            p(124, 20, F("flow", 0)),
            p(144, 16, W("ulen")),
            p(160, 8, C(17)),
            p(168, 8, F("ttl", 0)),
            p(176, 128, F("src_ip", 0)),
            p(304, 128, F("dst_ip", 0)),
        ]);
        (14 + 40, BTH_V6)
    } else {
        v.extend([
            p(96, 16, C(0x0800)),
            p(112, 8, C(0x45)),
            p(120, 8, W("tclass")),
            p(128, 16, W("iplen")),
            p(144, 16, C(0)),
            p(160, 16, C(0x4000)),
            p(176, 8, F("ttl", 0)),
            p(184, 8, C(17)),
            p(192, 16, W("csum")),
            p(208, 32, F("src_ip", 0)),
            p(240, 32, F("dst_ip", 0)),
        ]);
        (14 + 20, BTH_V4)
    };
    let (u, b) = (8 * l4, 8 * b);
    v.extend([
        p(u, 16, F("udp_sport", 0)),
        p(u + 16, 16, C(4791)),
        p(u + 32, 16, W("ulen")),
        p(u + 48, 16, C(0)),
        p(b, 8, F("opcode", 0)),
        p(b + 8, 1, F("se", 0)),
        p(b + 9, 1, C(0)),
        p(b + 10, 2, W("pad")),
        p(b + 12, 4, C(0)),
        p(b + 16, 16, F("pkey", 0)),
        p(b + 32, 8, C(0)),
        p(b + 40, 24, F("dqpn", 0)),
        p(b + 64, 1, F("ackreq", 0)),
        p(b + 65, 7, C(0)),
        p(b + 72, 24, F("psn", 0)),
        p(b + 96, 128, W("ext")),
    ]);
    v
}

/// The computed values of [`Src::W`], and the header length.
pub struct Derived {
    pub pad: u128,
    /// The IPv4 header's words summed except the total length, which comes late out of the
    /// opcode ROM and two adds (what `RoceHdrPre` hands on; the packer adds the length).
    pub sum: u128,
    pub ulen: u128,
    pub iplen: u128,
    pub csum: u128,
    pub tclass: u128,
    pub ext: u128,
    pub hdr_len: usize,
}

pub fn derive(f: &TxFields) -> Derived {
    let l = OpcodeLayout::of(f.opcode);
    let ext_n = ext_len(f.opcode).unwrap_or(0) as u128;
    let plen = f.plen as u128;
    let pad = (4 - plen % 4) % 4;
    let ulen = (24 + ext_n + plen + pad) & 0xffff;
    let iplen = (ulen + 20) & 0xffff;
    let tclass = (f.dscp as u128 & 63) << 2 | f.ecn as u128 & 3;
    let (s, d) = (f.src_ip as u32 as u128, f.dst_ip as u32 as u128);
    let fixed = (0x45 << 8 | tclass) + 0x4000 + ((f.ttl as u128) << 8 | 17) + (s >> 16) + (s & 0xffff) + (d >> 16) + (d & 0xffff);
    let s0 = fixed + iplen;
    let s1 = (s0 & 0xffff) + (s0 >> 16);
    let s2 = (s1 & 0xffff) + (s1 >> 16);
    let ext = if l.is_some_and(|l| l.reth) {
        (f.va as u128) << 64 | (f.rkey as u128) << 32 | f.dma_len as u128
    } else if l.is_some_and(|l| l.aeth) {
        ((f.syndrome as u128) << 24 | f.msn as u128 & 0xff_ffff) << 96
    } else {
        0
    };
    let hdr_len = if f.ipv6 { BTH_V6 } else { BTH_V4 } + 12 + ext_n as usize;
    Derived { pad, sum: fixed, ulen, iplen, csum: !s2 & 0xffff, tclass, ext, hdr_len }
}

/// The model of [`RoceHdrPack`]: the header bytes (128, zero past the header) and their count.
pub fn pack(f: &TxFields) -> (Vec<u8>, usize) {
    let d = derive(f);
    let mut out = vec![0u8; 128];
    for pl in layout(f.ipv6) {
        let v = match pl.src {
            Src::F(n, lo) => f.get(n) >> lo,
            Src::C(c) => c as u128,
            Src::W(w) => match w {
                "pad" => d.pad,
                "ulen" => d.ulen,
                "iplen" => d.iplen,
                "csum" => d.csum,
                "tclass" => d.tclass,
                "ext" => d.ext,
                _ => unreachable!(),
            },
        };
        for i in 0..pl.width {
            let bit = v >> (pl.width - 1 - i) & 1;
            let q = pl.pos + i;
            out[q / 8] |= (bit as u8) << (7 - q % 8);
        }
    }
    (out, d.hdr_len)
}

crate::record!(
    /// What [`RoceHdrPre`] works out from a [`TxHdr`] a cycle before the packer: the lengths and
    /// the IPv4 checksum's words summed but for the total length (not yet folded).
    HdrPre,
    HdrPreFields {
        sum: u32 = 20,
        ulen: u16 = 16,
        iplen: u16 = 16,
        pad: u8 = 2,
        ext_n: u8 = 6,
        has_reth: bool = 1,
        has_aeth: bool = 1,
    }
);

impl HdrPreFields {
    /// The model: what the packer's first stage gives for `f`.
    pub fn of(f: &TxFields) -> Self {
        let d = derive(f);
        let l = OpcodeLayout::of(f.opcode);
        HdrPreFields {
            sum: d.sum as u32,
            ulen: d.ulen as u16,
            iplen: d.iplen as u16,
            pad: d.pad as u8,
            ext_n: ext_len(f.opcode).unwrap_or(0) as u8,
            has_reth: l.is_some_and(|l| l.reth),
            has_aeth: l.is_some_and(|l| l.aeth),
        }
    }
}

/// The header packer's first stage: the opcode ROM (extension length, RETH/AETH), the UDP and
/// IPv4 lengths and the checksum's sum of the words other than the length, so that the packer
/// after the stage register only adds the length, folds the sum and places bytes. (With the
/// length in this stage's sum, the length's ROM and adds fed Yosys's carry-save tree of the
/// sum: 8 LUT levels into the stage register.)
#[derive(LogicBlock, Default)]
pub struct RoceHdrPre {
    pub h: Signal<In, TxHdr>,
    pub pre: Signal<Out, HdrPre>,
}

impl Logic for RoceHdrPre {
    fn update(&mut self) {
        self.pre.next = HdrPreFields::of(&TxFields::from_struct(&self.h.val())).to_struct();
    }
    fn connect(&mut self) {
        self.pre.connect();
    }
    fn hdl(&self) -> Verilog {
        let fld = |n: &str| vfield("h", TxFields::slot(n));
        let out = |n: &str| vfield("pre", HdrPreFields::slot(n));
        let mut v = String::new();
        v += &format!("wire [7:0] op = {};\nwire [15:0] plen = {};\n", fld("opcode"), fld("plen"));
        v += "reg [5:0] ext_n;\nreg [7:0] ul_b;\nreg [7:0] ip_b;\nreg has_reth;\nreg has_aeth;\nalways @(*) begin\n  has_reth = 1'b0;\n  has_aeth = 1'b0;\n  ext_n = 6'd0;\n  ul_b = 8'd24;\n  ip_b = 8'd44;\n  case (op)\n";
        for op in 0..=255u8 {
            if let Some(l) = OpcodeLayout::of(op) {
                let e = l.ext_len();
                v += &format!("    8'h{op:02x}: begin ext_n = 6'd{e}; ul_b = 8'd{}; ip_b = 8'd{}; has_reth = 1'b{}; has_aeth = 1'b{}; end\n", 24 + e, 44 + e, l.reth as u8, l.aeth as u8);
            }
        }
        v += "    default: ;\n  endcase\nend\n";
        // plen + pad is plen rounded up to 4 (an incrementer on plen[15:2]); the UDP and IPv4
        // lengths are each one add from it and the ROM's 24 or 44 + the extension length
        v += "wire [1:0] pad = 2'd0 - plen[1:0];\nwire [15:0] plen4 = {plen[15:2] + {13'd0, |plen[1:0]}, 2'b00};\n";
        v += "wire [15:0] ulen = {8'd0, ul_b} + plen4;\nwire [15:0] iplen = {8'd0, ip_b} + plen4;\n";
        // the IPv4 header's words: {TTL, TOS} (the TOS byte of word 0 and the TTL byte of word
        // 4 share no bit), 0x4500 + 0x4000 + protocol 0x11 and the addresses: all flops, so the
        // tree is shallow; the length is added after the stage register
        let (so, _) = TxFields::slot("src_ip");
        let (d_o, _) = TxFields::slot("dst_ip");
        let w16 = |o: usize| format!("{{4'd0, h[{}:{}]}}", o + 15, o);
        v += &format!(
            "wire [19:0] t1 = {{4'd0, {}, {}, {}}} + {};\nwire [19:0] t2 = {} + {};\nwire [19:0] t3 = {} + 20'h08511;\nwire [19:0] sum = (t1 + t2) + t3;\n",
            fld("ttl"),
            fld("dscp"),
            fld("ecn"),
            w16(so + 16),
            w16(so),
            w16(d_o + 16),
            w16(d_o)
        );
        for (n, e) in [("sum", "sum"), ("ulen", "ulen"), ("iplen", "iplen"), ("pad", "pad"), ("ext_n", "ext_n"), ("has_reth", "has_reth"), ("has_aeth", "has_aeth")] {
            v += &format!("assign {} = {e};\n", out(n));
        }
        // fields the stage does not read
        let used = ["opcode", "plen", "ttl", "dscp", "ecn"];
        let rest: Vec<String> = TxFields::FIELDS.iter().filter(|(n, _)| !used.contains(n) && *n != "src_ip" && *n != "dst_ip").map(|(n, _)| fld(n)).collect();
        v += &format!("wire unused_h = ^{{{}, {}, {}}};\n", rest.join(", "), format_args!("h[{}:{}]", so + 127, so + 32), format_args!("h[{}:{}]", d_o + 127, d_o + 32));
        Verilog::Custom(v)
    }
}

/// The header packer: [`TxHdr`] and its [`HdrPre`] in, header bytes (`data`, byte 0 in
/// `data[7:0]`), their count and "no payload" out: byte selects and the checksum's fold.
#[derive(LogicBlock, Default)]
pub struct RoceHdrPack {
    pub h: Signal<In, TxHdr>,
    pub pre: Signal<In, HdrPre>,
    pub data: Signal<Out, Bits<1024>>,
    pub len: Signal<Out, Bits<8>>,
    pub only: Signal<Out, Bit>,
}

impl Logic for RoceHdrPack {
    fn update(&mut self) {
        let w = nicgen_hdl::StructWords::to_words(&self.h.val());
        let f = TxFields::from_words(&w);
        let (bytes, n) = pack(&f);
        self.data.next = bits_of(&bytes);
        self.len.next = (n as u64).into();
        self.only.next = f.plen == 0;
    }
    fn connect(&mut self) {
        self.data.connect();
        self.len.connect();
        self.only.connect();
    }
    fn hdl(&self) -> Verilog {
        let fld = |n: &str| vfield("h", TxFields::slot(n));
        let pf = |n: &str| vfield("pre", HdrPreFields::slot(n));
        let mut v = String::new();
        v += &format!("wire v6 = {};\nwire [15:0] plen = {};\n", fld("ipv6"), fld("plen"));
        for n in ["ulen", "iplen", "pad", "ext_n", "has_reth", "has_aeth"] {
            let (_, w) = HdrPreFields::slot(n);
            v += &format!("wire [{}:0] {n} = {};\n", w - 1, pf(n));
        }
        v += &format!("wire [7:0] tclass = {{{}, {}}};\n", fld("dscp"), fld("ecn"));
        // the checksum: the first stage's 20-bit sum and the length, folded twice
        v += &format!("wire [19:0] sum = {} + {{4'd0, iplen}};\n", pf("sum"));
        v += &fold_verilog("s", "sum");
        v += "wire [15:0] csum = ~s_f2;\n";
        v += &format!(
            "wire [127:0] ext_w = has_reth ? {{{}, {}, {}}} : (has_aeth ? {{{}, {}, 96'd0}} : 128'd0);\n",
            fld("va"),
            fld("rkey"),
            fld("dma_len"),
            fld("syndrome"),
            fld("msn")
        );
        v += &format!("assign len = (v6 ? 8'd{} : 8'd{}) + {{2'd0, ext_n}};\nassign only = plen == 16'd0;\n", BTH_V6 + 12, BTH_V4 + 12);
        // every header bit from either layout
        let table = |v6: bool| {
            let mut bits = vec!["1'b0".to_string(); 1024];
            for pl in layout(v6) {
                for i in 0..pl.width {
                    let q = pl.pos + i;
                    let msb = pl.width - 1 - i;
                    bits[8 * (q / 8) + 7 - q % 8] = match pl.src {
                        Src::F(n, lo) => {
                            let (o, _) = TxFields::slot(n);
                            format!("h[{}]", o + lo + msb)
                        }
                        Src::C(c) => format!("1'b{}", c >> msb & 1),
                        Src::W(w) => format!("{}[{msb}]", if w == "ext" { "ext_w" } else { w }),
                    };
                }
            }
            bits
        };
        let (t4, t6) = (table(false), table(true));
        for byte in 0..128 {
            let cat = |t: &[String]| format!("{{{}}}", (0..8).rev().map(|i| t[8 * byte + i].clone()).collect::<Vec<_>>().join(", "));
            let (a, b) = (cat(&t6), cat(&t4));
            if a == b {
                v += &format!("assign data[{}:{}] = {a};\n", 8 * byte + 7, 8 * byte);
            } else {
                v += &format!("assign data[{}:{}] = v6 ? {a} : {b};\n", 8 * byte + 7, 8 * byte);
            }
        }
        // fields the packer does not place in every layout
        v += &format!("wire unused_h = ^{{{}}};\n", fld("flow"));
        Verilog::Custom(v)
    }
}

// ------------------------------------------------------------------ the deparser

#[derive(LogicBlock)]
pub struct RoceTxBuild {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub hdr: Signal<In, TxHdr>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_ready: Signal<Out, Bit>,
    /// Payload frames: exactly `plen` bytes, one per header with `plen > 0`.
    pub s_axis: Axis512Sink,
    /// Whole frames with their ICRC.
    pub m_axis: Axis512Source,
    /// The packed header: data (bits 1023..0), length (1031..1024), header-only (1032), in a
    /// register, so the inserter starts from flops (the packer's byte selects, adders and
    /// checksum were 15 LUT levels deep with the inserter's shifts behind). A register stage,
    /// not a skid buffer: its ready is one LUT on its valid and the inserter's header ready (that
    /// buffer's room, a register), so no 1033-bit select is needed to keep the ready path short.
    hreg: ChanReg<Bits<1033>>,
    /// The packer's first stage and the register after it (a pipeline stage whose ready is the
    /// header register's ready, or empty): a header takes one cycle more, the stream none.
    hdr_pre: RoceHdrPre,
    st_h: DFF<TxHdr>,
    st_p: DFF<HdrPre>,
    st_v: DFF<Bit>,
    st_ready: Signal<Local, Bit>,
    pack: RoceHdrPack,
    hpk: Signal<Local, Bits<1033>>,
    only_bit: Constant<Bits<1033>>,
    /// The last beat's keep rounded up to the pad (wiring) and its data mask.
    up4: KeepUp4<64>,
    pad_mask: KeepExpand<64, 512>,
    ins: AxisInsert,
    gen: IcrcGen,
}

impl Default for RoceTxBuild {
    fn default() -> Self {
        RoceTxBuild {
            clock: Default::default(),
            reset: Default::default(),
            hdr: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            hreg: Default::default(),
            hdr_pre: Default::default(),
            st_h: Default::default(),
            st_p: Default::default(),
            st_v: Default::default(),
            st_ready: Default::default(),
            pack: Default::default(),
            hpk: Default::default(),
            only_bit: Constant::new(Bits::<1033>::default().replace_bit(1032, true)),
            up4: Default::default(),
            pad_mask: Default::default(),
            ins: Default::default(),
            gen: Default::default(),
        }
    }
}

impl Logic for RoceTxBuild {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, hreg, ins, gen);
        dff_setup!(self, clock, st_h, st_p, st_v);
        self.hreg.reset.next = self.reset.val();
        self.ins.reset.next = self.reset.val();
        self.gen.reset.next = self.reset.val();
        // header: first stage → register → packer → register → inserter
        self.hdr_pre.h.next = self.hdr.val();
        self.st_ready.next = !self.st_v.q.val() | self.hreg.s_ready.val();
        if self.st_ready.val() {
            self.st_v.d.next = self.hdr_valid.val();
            self.st_h.d.next = self.hdr.val();
            self.st_p.d.next = self.hdr_pre.pre.val();
        }
        if self.reset.val() {
            self.st_v.d.next = false;
        }
        self.hdr_ready.next = self.st_ready.val();
        self.pack.h.next = self.st_h.q.val();
        self.pack.pre.next = self.st_p.q.val();
        self.hpk.next = bit_cast::<1033, 1024>(self.pack.data.val()) | (bit_cast::<1033, 8>(self.pack.len.val()) << 1024);
        if self.pack.only.val() {
            self.hpk.next = self.hpk.val() | self.only_bit.val();
        }
        self.hreg.s_data.next = self.hpk.val();
        self.hreg.s_valid.next = self.st_v.q.val();
        self.ins.hdr_data.next = self.hreg.m_data.val().get_bits::<1024>(0);
        self.ins.hdr_len.next = self.hreg.m_data.val().get_bits::<8>(1024);
        self.ins.hdr_only.next = self.hreg.m_data.val().get_bit(1032);
        self.ins.hdr_valid.next = self.hreg.m_valid.val();
        self.hreg.m_ready.next = self.ins.hdr_ready.val();
        // payload: the last beat gets its zero pad (never an extra beat: k % 4 == plen % 4).
        // A payload beat's keep is contiguous, so the padded keep is the keep with byte i
        // following byte i & !3, and the data is masked by its own keep: both leave full
        // beats unchanged, so no byte count and no tlast select (the old count, +3 and
        // thermometer decode were the engine's deepest path into the inserter's keep shift)
        self.up4.keep.next = self.s_axis.tkeep.val();
        self.pad_mask.keep.next = self.s_axis.tkeep.val();
        self.ins.s_axis.tvalid.next = self.s_axis.tvalid.val();
        self.ins.s_axis.tdata.next = self.s_axis.tdata.val() & self.pad_mask.mask.val();
        self.ins.s_axis.tkeep.next = self.up4.out.val();
        self.ins.s_axis.tlast.next = self.s_axis.tlast.val();
        self.ins.s_axis.tuser.next = self.s_axis.tuser.val();
        self.s_axis.tready.next = self.ins.s_axis.tready.val();
        // ICRC
        self.gen.s_axis.tvalid.next = self.ins.m_axis.tvalid.val();
        self.gen.s_axis.tdata.next = self.ins.m_axis.tdata.val();
        self.gen.s_axis.tkeep.next = self.ins.m_axis.tkeep.val();
        self.gen.s_axis.tlast.next = self.ins.m_axis.tlast.val();
        self.gen.s_axis.tuser.next = self.ins.m_axis.tuser.val();
        self.ins.m_axis.tready.next = self.gen.s_axis.tready.val();
        Axis512Source::link(&mut self.m_axis, &mut self.gen.m_axis);
    }
}

nicgen_hdl::impl_ports!(RoceTxBuild, clock = clock, [clock, reset, hdr, hdr_valid, hdr_ready,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready]);
