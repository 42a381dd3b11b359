//! VXLAN (RFC 7348): `EmVxlanEncap` on egress, `EmVxlanDecap` on ingress (below).
//!
//! `EmVxlanEncap`: VXLAN encapsulation on egress. Per frame it takes the frame's
//! parsed header (`EmHdr`, from the parser) and its tenant's tunnel (`VxlanTun`), both on
//! channels beside the frame, in frame order, and prepends the 50 outer bytes: Ethernet, IPv4
//! (no options, ID 0, DF clear, TTL and TOS from the tunnel, a valid header checksum), UDP to
//! port 4789 from a hash of the inner 5-tuple in 49152..=65535 with checksum 0, and VXLAN with
//! the I flag and the tunnel's VNI. The golden model is `nicgen_model::em::vxlan_encap`.
//!
//! ```text
//! s_hdr, s_tun ─► prep (lengths, source-port hash, checksum sum) ─► reg ─► outer header
//!                 (checksum fold, 50 bytes) ─► reg ─► AxisInsert header ─┐
//! s_axis ───────────────────────────────────────────────────────► AxisInsert ─► m_axis
//! ```
//! The header pipeline takes one frame's header per cycle; `AxisInsert` moves one beat per
//! cycle, so a frame of n bytes leaves in ceil((n + 50) / 64) cycles.
use super::{be_put, fold_verilog, vfield, EmHdr, EmHdrFields};
use crate::stream::*;
use nicgen_model::em::{ones_fold, vxlan_sport, VXLAN_PORT};
use rust_hdl::prelude::*;

crate::record!(
    /// A tenant's overlay tunnel (from the tenant table): outer MACs and IPv4 addresses, TTL,
    /// TOS and VNI.
    VxlanTun,
    VxlanTunFields {
        dmac: u64 = 48,
        smac: u64 = 48,
        sip: u32 = 32,
        dip: u32 = 32,
        ttl: u8 = 8,
        tos: u8 = 8,
        vni: u32 = 24,
    }
);

impl VxlanTunFields {
    pub fn to_model(&self) -> nicgen_model::em::VxlanTunnel {
        let mac = |m: u64| -> [u8; 6] { std::array::from_fn(|i| (m >> (40 - 8 * i)) as u8) };
        nicgen_model::em::VxlanTunnel { dmac: mac(self.dmac), smac: mac(self.smac), sip: self.sip, dip: self.dip, ttl: self.ttl, tos: self.tos, vni: self.vni }
    }
}

/// The first header stage (pure logic): the outer IPv4 total length, the UDP length, the
/// source port, and the 20-bit sum of the outer IPv4 header's words (checksum field zero).
#[derive(LogicBlock, Default)]
pub struct VxlanPrep {
    pub hdr: Signal<In, EmHdr>,
    pub tun: Signal<In, VxlanTun>,
    pub tot: Signal<Out, Bits<16>>,
    pub ulen: Signal<Out, Bits<16>>,
    pub sport: Signal<Out, Bits<16>>,
    pub sum: Signal<Out, Bits<20>>,
}

/// The words of the outer IPv4 header that are not zero, checksum left out.
fn ip_words(tos: u8, tot: u16, ttl: u8, sip: u32, dip: u32) -> [u32; 7] {
    [0x4500 | tos as u32, tot as u32, (ttl as u32) << 8 | 17, sip >> 16, sip & 0xffff, dip >> 16, dip & 0xffff]
}

impl Logic for VxlanPrep {
    fn update(&mut self) {
        let h = EmHdrFields::from_struct(&self.hdr.val());
        let t = VxlanTunFields::from_struct(&self.tun.val());
        let tot = h.len.wrapping_add(36);
        self.tot.next = (tot as u64).into();
        self.ulen.next = (h.len.wrapping_add(16) as u64).into();
        self.sport.next = (vxlan_sport(h.src, h.dst, h.proto, h.sport, h.dport) as u64).into();
        self.sum.next = (ip_words(t.tos, tot, t.ttl, t.sip, t.dip).iter().sum::<u32>() as u64).into();
    }
    fn connect(&mut self) {
        self.tot.connect();
        self.ulen.connect();
        self.sport.connect();
        self.sum.connect();
    }
    fn hdl(&self) -> Verilog {
        let h = |f: &str| vfield("hdr", EmHdrFields::slot(f));
        let t = |f: &str| vfield("tun", VxlanTunFields::slot(f));
        let mut v = String::new();
        v += &format!("wire unused_hdr = ^{} ^ ^{} ^ ^{} ^ ^{} ^ ^{} ^ ^{} ^ ^{};\n", h("vf"), h("vlan"), h("vid"), h("v6"), h("l3"), h("tos"), h("ttl"));
        v += &format!("wire unused_hdr2 = ^{} ^ ^{} ^ ^hdr[{}:{}] ^ ^{};\n", h("tot"), h("vxlan"), EmHdrFields::BITS - 1, EmHdrFields::slot("vni").0, t("vni"));
        v += &format!("wire unused_tun = ^{} ^ ^{};\n", t("dmac"), t("smac"));
        v += &format!("wire [15:0] len = {};\n", h("len"));
        v += "wire [15:0] tot_w = len + 16'd36;\n";
        v += "always @(*) begin\n  tot = tot_w;\n  ulen = len + 16'd16;\nend\n";
        // the source-port hash: the tuple's words, each rotated left by 3 x its index, XORed
        v += &format!("wire [31:0] src = {};\nwire [31:0] dst = {};\n", h("src"), h("dst"));
        let (src, dst) = ("src", "dst");
        let words = [format!("{src}[31:16]"), format!("{src}[15:0]"), format!("{dst}[31:16]"), format!("{dst}[15:0]"), format!("{{8'd0, {}}}", h("proto")), h("sport"), h("dport")];
        for (i, w) in words.iter().enumerate() {
            let r = (3 * i) % 16;
            v += &format!("wire [15:0] hw{i} = {w};\n");
            if r == 0 {
                v += &format!("wire [15:0] hr{i} = hw{i};\n");
            } else {
                v += &format!("wire [15:0] hr{i} = {{hw{i}[{}:0], hw{i}[15:{}]}};\n", 15 - r, 16 - r);
            }
        }
        v += "wire [15:0] hx = hr0 ^ hr1 ^ hr2 ^ hr3 ^ hr4 ^ hr5 ^ hr6;\nwire unused_hx = ^hx[15:14];\n";
        v += "always @(*) sport = {2'b11, hx[13:0]};\n";
        v += &format!("wire [31:0] sip = {};\nwire [31:0] dip = {};\n", t("sip"), t("dip"));
        let (sip, dip) = ("sip", "dip");
        v += &format!(
            "always @(*) sum = {{4'd0, 8'h45, {}}} + {{4'd0, tot_w}} + {{4'd0, {}, 8'd17}} + {{4'd0, {sip}[31:16]}} + {{4'd0, {sip}[15:0]}} + {{4'd0, {dip}[31:16]}} + {{4'd0, {dip}[15:0]}};\n",
            t("tos"),
            t("ttl")
        );
        Verilog::Custom(v)
    }
}

/// The second header stage (pure logic): the checksum (the sum folded and complemented) and
/// the 50 outer bytes (byte 0 in `h[7:0]`).
#[derive(LogicBlock, Default)]
pub struct VxlanOuter {
    pub tun: Signal<In, VxlanTun>,
    pub tot: Signal<In, Bits<16>>,
    pub ulen: Signal<In, Bits<16>>,
    pub sport: Signal<In, Bits<16>>,
    pub sum: Signal<In, Bits<20>>,
    pub h: Signal<Out, Bits<1024>>,
}

/// Where each outer field sits: (byte offset, bytes).
const O_DMAC: usize = 0;
const O_SMAC: usize = 6;
const O_TYPE: usize = 12;
const O_VIHL: usize = 14;
const O_TOS: usize = 15;
const O_TOT: usize = 16;
const O_TTL: usize = 22;
const O_PROTO: usize = 23;
const O_CSUM: usize = 24;
const O_SIP: usize = 26;
const O_DIP: usize = 30;
const O_SPORT: usize = 34;
const O_DPORT: usize = 36;
const O_ULEN: usize = 38;
const O_FLAGS: usize = 42;
const O_VNI: usize = 46;

impl Logic for VxlanOuter {
    fn update(&mut self) {
        let t = VxlanTunFields::from_struct(&self.tun.val());
        let s = ones_fold(self.sum.val().to_u64() as u32);
        let mut b = [0u8; 128];
        let mut put = |o: usize, n: usize, x: u64| {
            for k in 0..n {
                b[o + k] = (x >> (8 * (n - 1 - k))) as u8;
            }
        };
        put(O_DMAC, 6, t.dmac);
        put(O_SMAC, 6, t.smac);
        put(O_TYPE, 2, 0x0800);
        put(O_VIHL, 1, 0x45);
        put(O_TOS, 1, t.tos as u64);
        put(O_TOT, 2, self.tot.val().to_u64());
        put(O_TTL, 1, t.ttl as u64);
        put(O_PROTO, 1, 17);
        put(O_CSUM, 2, !s as u64 & 0xffff);
        put(O_SIP, 4, t.sip as u64);
        put(O_DIP, 4, t.dip as u64);
        put(O_SPORT, 2, self.sport.val().to_u64());
        put(O_DPORT, 2, VXLAN_PORT as u64);
        put(O_ULEN, 2, self.ulen.val().to_u64());
        put(O_FLAGS, 1, 0x08);
        put(O_VNI, 3, t.vni as u64);
        self.h.next = crate::crc::fields::bits_of(&b);
    }
    fn connect(&mut self) {
        self.h.connect();
    }
    fn hdl(&self) -> Verilog {
        let t = |f: &str| vfield("tun", VxlanTunFields::slot(f));
        let mut v = String::new();
        v += &fold_verilog("s", "sum");
        v += "wire [15:0] csum = ~s_f2;\n";
        // a big-endian field of n bytes with value x at byte o
        let put = |o: usize, n: usize, x: &str| be_put("h", o, n, x);
        v += "wire [15:0] c_type = 16'h0800;\nwire [7:0] c_vihl = 8'h45;\nwire [7:0] c_udp = 8'd17;\n";
        v += &format!("wire [15:0] c_dport = 16'd{VXLAN_PORT};\nwire [7:0] c_flags = 8'h08;\n");
        v += &format!("wire [47:0] dmac = {};\nwire [47:0] smac = {};\nwire [31:0] sip = {};\nwire [31:0] dip = {};\n", t("dmac"), t("smac"), t("sip"), t("dip"));
        v += &format!("wire [7:0] ttl = {};\nwire [7:0] tos = {};\nwire [23:0] vni = {};\n", t("ttl"), t("tos"), t("vni"));
        v += "always @(*) begin\n  h = 1024'd0;\n";
        v += &put(O_DMAC, 6, "dmac");
        v += &put(O_SMAC, 6, "smac");
        v += &put(O_TYPE, 2, "c_type");
        v += &put(O_VIHL, 1, "c_vihl");
        v += &put(O_TOS, 1, "tos");
        v += &put(O_TOT, 2, "tot");
        v += &put(O_TTL, 1, "ttl");
        v += &put(O_PROTO, 1, "c_udp");
        v += &put(O_CSUM, 2, "csum");
        v += &put(O_SIP, 4, "sip");
        v += &put(O_DIP, 4, "dip");
        v += &put(O_SPORT, 2, "sport");
        v += &put(O_DPORT, 2, "c_dport");
        v += &put(O_ULEN, 2, "ulen");
        v += &put(O_FLAGS, 1, "c_flags");
        v += &put(O_VNI, 3, "vni");
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// The encapsulation at `D` bits (`K` = `D`/8, `CB` = log2 `K`, `SB` = 8 - `CB`: the
/// inserter's).
#[derive(LogicBlock)]
pub struct EmVxlanEncapW<const D: usize, const K: usize, const CB: usize, const SB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub s_tun: Signal<In, VxlanTun>,
    pub s_tun_valid: Signal<In, Bit>,
    pub s_tun_ready: Signal<Out, Bit>,
    prep: VxlanPrep,
    outer: VxlanOuter,
    ins: AxisInsertW<D, K, CB, SB>,
    s1_v: DFF<Bit>,
    s1_tun: DFF<VxlanTun>,
    s1_tot: DFF<Bits<16>>,
    s1_ulen: DFF<Bits<16>>,
    s1_sport: DFF<Bits<16>>,
    s1_sum: DFF<Bits<20>>,
    s2_v: DFF<Bit>,
    s2_h: DFF<Bits<1024>>,
    adv1: Signal<Local, Bit>,
    adv2: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    c50: Constant<Bits<8>>,
}

/// The encapsulation on the 512-bit datapath.
pub type EmVxlanEncap = EmVxlanEncapW<DATA_W, KEEP_W, 6, 2>;
/// The encapsulation on the 1024-bit datapath.
pub type EmVxlanEncap1024 = EmVxlanEncapW<1024, 128, 7, 1>;

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Default for EmVxlanEncapW<D, K, CB, SB> {
    fn default() -> Self {
        EmVxlanEncapW {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            s_tun: Default::default(),
            s_tun_valid: Default::default(),
            s_tun_ready: Default::default(),
            prep: Default::default(),
            outer: Default::default(),
            ins: Default::default(),
            s1_v: Default::default(),
            s1_tun: Default::default(),
            s1_tot: Default::default(),
            s1_ulen: Default::default(),
            s1_sport: Default::default(),
            s1_sum: Default::default(),
            s2_v: Default::default(),
            s2_h: Default::default(),
            adv1: Default::default(),
            adv2: Default::default(),
            take: Default::default(),
            c50: Constant::new((nicgen_model::em::VXLAN_OVERHEAD as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Logic for EmVxlanEncapW<D, K, CB, SB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_v, s1_tun, s1_tot, s1_ulen, s1_sport, s1_sum, s2_v, s2_h);
        clock!(self, clock, ins);
        self.ins.reset.next = self.reset.val();
        // the header pipeline: stage 2 holds the outer header until the inserter takes it
        self.adv2.next = !self.s2_v.q.val() | self.ins.hdr_ready.val();
        self.adv1.next = !self.s1_v.q.val() | self.adv2.val();
        self.take.next = self.adv1.val() & self.s_hdr_valid.val() & self.s_tun_valid.val();
        self.s_hdr_ready.next = self.adv1.val() & self.s_tun_valid.val();
        self.s_tun_ready.next = self.adv1.val() & self.s_hdr_valid.val();
        self.prep.hdr.next = self.s_hdr.val();
        self.prep.tun.next = self.s_tun.val();
        if self.adv1.val() {
            self.s1_v.d.next = self.take.val();
            self.s1_tun.d.next = self.s_tun.val();
            self.s1_tot.d.next = self.prep.tot.val();
            self.s1_ulen.d.next = self.prep.ulen.val();
            self.s1_sport.d.next = self.prep.sport.val();
            self.s1_sum.d.next = self.prep.sum.val();
        }
        self.outer.tun.next = self.s1_tun.q.val();
        self.outer.tot.next = self.s1_tot.q.val();
        self.outer.ulen.next = self.s1_ulen.q.val();
        self.outer.sport.next = self.s1_sport.q.val();
        self.outer.sum.next = self.s1_sum.q.val();
        if self.adv2.val() {
            self.s2_v.d.next = self.s1_v.q.val();
            self.s2_h.d.next = self.outer.h.val();
        }
        self.ins.hdr_data.next = self.s2_h.q.val();
        self.ins.hdr_len.next = self.c50.val();
        self.ins.hdr_only.next = false;
        self.ins.hdr_valid.next = self.s2_v.q.val();
        AxisSink::<D, K>::link(&mut self.s_axis, &mut self.ins.s_axis);
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.ins.m_axis);
        if self.reset.val() {
            self.s1_v.d.next = false;
            self.s2_v.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!([EmVxlanEncap, EmVxlanEncap1024], clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    s_hdr, s_hdr_valid, s_hdr_ready, s_tun, s_tun_valid, s_tun_ready]);

/// `EmVxlanDecap`: VXLAN decapsulation on ingress. Per frame it takes the frame's parsed header
/// (`EmHdr` from the wire-side parser, on a channel beside the frame, in frame order). A VXLAN
/// frame leaves as its inner frame: its outer `l3 + 36` bytes (50, or 54 with an outer 802.1Q
/// tag) removed by `AxisStrip`, its header with `len` the inner frame's. Other frames pass
/// unchanged. The header leaves on `m_hdr` as the frame's first beat goes in.
#[derive(LogicBlock)]
pub struct EmVxlanDecapW<const D: usize, const K: usize, const CB: usize, const SB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    strip: AxisStripW<D, K, CB, SB>,
    hskid: ChanSkid<EmHdr>,
    in_frame: DFF<Bit>,
    go: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    cut: Signal<Local, Bits<8>>,
    out_hdr: Signal<Local, EmHdr>,
    c36: Constant<Bits<8>>,
    c0_8: Constant<Bits<8>>,
    unused: Signal<Local, Bit>,
}

/// The decapsulation on the 512-bit datapath.
pub type EmVxlanDecap = EmVxlanDecapW<DATA_W, KEEP_W, 6, 2>;
/// The decapsulation on the 1024-bit datapath.
pub type EmVxlanDecap1024 = EmVxlanDecapW<1024, 128, 7, 1>;

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Default for EmVxlanDecapW<D, K, CB, SB> {
    fn default() -> Self {
        EmVxlanDecapW {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            m_hdr: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            strip: Default::default(),
            hskid: Default::default(),
            in_frame: Default::default(),
            go: Default::default(),
            start: Default::default(),
            cut: Default::default(),
            out_hdr: Default::default(),
            c36: Constant::new(36.into()),
            c0_8: Constant::new(0.into()),
            unused: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Logic for EmVxlanDecapW<D, K, CB, SB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame);
        clock!(self, clock, strip, hskid);
        self.strip.reset.next = self.reset.val();
        self.hskid.reset.next = self.reset.val();
        // a frame's first beat goes in with its header, and only if the header can leave
        self.go.next = self.in_frame.q.val() | (self.s_hdr_valid.val() & self.hskid.s_ready.val());
        self.start.next = !self.in_frame.q.val() & self.go.val() & self.s_axis.tvalid.val() & self.strip.s_axis.tready.val();
        self.cut.next = self.c0_8.val();
        if self.s_hdr.val().vxlan {
            self.cut.next = self.s_hdr.val().l3 + self.c36.val();
        }
        self.strip.strip_len.next = self.cut.val();
        self.strip.s_axis.tdata.next = self.s_axis.tdata.val();
        self.strip.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.strip.s_axis.tlast.next = self.s_axis.tlast.val();
        self.strip.s_axis.tuser.next = self.s_axis.tuser.val();
        self.strip.s_axis.tvalid.next = self.s_axis.tvalid.val() & self.go.val();
        self.s_axis.tready.next = self.strip.s_axis.tready.val() & self.go.val();
        self.s_hdr_ready.next = self.start.val();
        self.out_hdr.next = self.s_hdr.val();
        self.out_hdr.next.len = self.s_hdr.val().len - bit_cast::<16, 8>(self.cut.val());
        self.hskid.s_data.next = self.out_hdr.val();
        self.hskid.s_valid.next = self.start.val();
        if self.start.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }
        if self.in_frame.q.val() & self.s_axis.tvalid.val() & self.strip.s_axis.tready.val() & self.s_axis.tlast.val() {
            self.in_frame.d.next = false;
        }
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.strip.m_axis);
        self.m_hdr.next = self.hskid.m_data.val();
        self.m_hdr_valid.next = self.hskid.m_valid.val();
        self.hskid.m_ready.next = self.m_hdr_ready.val();
        self.unused.next = self.strip.runts.val().any();
        if self.reset.val() {
            self.in_frame.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!([EmVxlanDecap, EmVxlanDecap1024], clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    s_hdr, s_hdr_valid, s_hdr_ready, m_hdr, m_hdr_valid, m_hdr_ready]);
