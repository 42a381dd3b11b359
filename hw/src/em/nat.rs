//! `EmNat`: NAT mode's rewrite (VIP -> PIP on egress, PIP -> VIP on ingress). Per frame it
//! takes the frame's parsed header (`EmHdr`) and its translation (`NatXlate`: a new source
//! and/or destination address), both on channels beside the frame, in frame order. It
//! rewrites the addresses in the first beat and updates the IPv4 header checksum and the TCP or
//! UDP checksum incrementally (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m') over the changed
//! words; the L4 checksum covers the addresses through the pseudo-header). A UDP checksum of 0
//! (none) stays 0, and a computed UDP checksum of 0 is sent as 0xffff (RFC 768). No bytes are
//! added. Three stages at one beat per cycle: the delta, the new checksums, the rewrite.
//! The golden model is `nicgen_model::em::nat_rewrite`: etherparse's checksums of the new
//! frame, off by as much as the old frame's were (a damaged frame stays damaged).
//!
//! RoCEv2 frames, whose ICRC covers the addresses, have it updated after this block, in
//! `nat_wide::EmNatPathIncW`.
//!
//! ```text
//! s_hdr, s_xl ─► delta (sum of ~old + new words) ─┐
//! s_axis ─► stage 1 ──────────────────────────────┴─► stage 2 (new checksums) ─► stage 3 (first beat rewritten) ─► skid ─► m_axis
//! ```
use super::{be_get, be_put, fold_verilog, vfield, EmHdr, EmHdrFields};
use crate::stream::*;
use nicgen_model::em::ones_fold;
use rust_hdl::prelude::*;

crate::record!(
    /// A frame's translation (from the NAT table): the new source and/or destination address.
    NatXlate,
    NatXlateFields {
        src_rw: bool = 1,
        dst_rw: bool = 1,
        src: u32 = 32,
        dst: u32 = 32,
    }
);

/// The words that change: (old, new) per rewritten 16-bit word.
fn changed(h: &EmHdrFields, x: &NatXlateFields) -> Vec<(u16, u16)> {
    let mut v = vec![];
    if x.src_rw {
        v.extend([((h.src >> 16) as u16, (x.src >> 16) as u16), (h.src as u16, x.src as u16)]);
    }
    if x.dst_rw {
        v.extend([((h.dst >> 16) as u16, (x.dst >> 16) as u16), (h.dst as u16, x.dst as u16)]);
    }
    v
}

/// The checksum delta (pure logic): the sum of ~old + new over the changed words, 20 bits.
#[derive(LogicBlock, Default)]
pub struct NatDelta {
    pub hdr: Signal<In, EmHdr>,
    pub xl: Signal<In, NatXlate>,
    pub d: Signal<Out, Bits<20>>,
}

impl Logic for NatDelta {
    fn update(&mut self) {
        let h = EmHdrFields::from_struct(&self.hdr.val());
        let x = NatXlateFields::from_struct(&self.xl.val());
        let d: u32 = changed(&h, &x).iter().map(|(o, n)| (!o) as u32 + *n as u32).sum();
        self.d.next = (d as u64).into();
    }
    fn connect(&mut self) {
        self.d.connect();
    }
    fn hdl(&self) -> Verilog {
        let h = |f: &str| vfield("hdr", EmHdrFields::slot(f));
        let x = |f: &str| vfield("xl", NatXlateFields::slot(f));
        let mut v = format!("wire [31:0] os = {};\nwire [31:0] od = {};\nwire [31:0] ns = {};\nwire [31:0] nd = {};\n", h("src"), h("dst"), x("src"), x("dst"));
        v += &format!("wire srw = {};\nwire drw = {};\n", x("src_rw"), x("dst_rw"));
        v += &format!("wire unused_hdr = ^hdr[{}:{}] ^ ^hdr[{}:{}];\n", EmHdrFields::slot("src").0 - 1, 0, EmHdrFields::BITS - 1, EmHdrFields::slot("dst").0 + 32);
        v += "wire [19:0] ds = srw ? ({4'd0, ~os[31:16]} + {4'd0, ns[31:16]} + {4'd0, ~os[15:0]} + {4'd0, ns[15:0]}) : 20'd0;\n";
        v += "wire [19:0] dd = drw ? ({4'd0, ~od[31:16]} + {4'd0, nd[31:16]} + {4'd0, ~od[15:0]} + {4'd0, nd[15:0]}) : 20'd0;\n";
        v += "always @(*) d = ds + dd;\n";
        Verilog::Custom(v)
    }
}

/// The new checksums (pure logic): the IPv4 header's and the TCP/UDP one, each the old value
/// in the first beat updated by `d` (a UDP result of 0 is turned into 0xffff by `NatWrite`);
/// `udp_on`: the frame is UDP with a checksum (not 0).
#[derive(LogicBlock, Default)]
pub struct NatCsum {
    pub beat: Signal<In, Bits<512>>,
    pub hdr: Signal<In, EmHdr>,
    pub d: Signal<In, Bits<20>>,
    pub hc: Signal<Out, Bits<16>>,
    pub tc: Signal<Out, Bits<16>>,
    pub uc: Signal<Out, Bits<16>>,
    pub udp_on: Signal<Out, Bit>,
}

/// ~fold(~c + d): a checksum updated by delta `d` (ones' complement sums).
fn update_csum(c: u16, d: u32) -> u16 {
    !ones_fold((!c) as u32 + d)
}

/// The Verilog both rewrite blocks start with: `l3`, `proto`, and `tag` (the frame has an
/// 802.1Q tag: l3 is 14 or 18, and bit 4 tells them apart), the header's other bits unused.
fn l3_proto_verilog() -> String {
    let h = |f: &str| vfield("hdr", EmHdrFields::slot(f));
    let (l3, proto) = (EmHdrFields::slot("l3").0, EmHdrFields::slot("proto").0);
    let mut v = format!("wire [7:0] l3 = {};\nwire [7:0] proto = {};\nwire tag = l3[4];\nwire unused_l3 = ^l3[7:5] ^ ^l3[3:0];\n", h("l3"), h("proto"));
    v += &format!("wire unused_hdr = ^hdr[{}:{}] ^ ^hdr[{}:{}] ^ ^hdr[{}:{}];\n", l3 - 1, 0, proto - 1, l3 + 8, EmHdrFields::BITS - 1, proto + 8);
    v
}

impl Logic for NatCsum {
    fn update(&mut self) {
        let h = EmHdrFields::from_struct(&self.hdr.val());
        let d = self.d.val().to_u64() as u32;
        let mut b = crate::crc::fields::bytes_of(self.beat.val());
        b.resize(64, 0);
        let l3 = h.l3 as usize;
        let be16 = |o: usize| (b[o] as u16) << 8 | b[o + 1] as u16;
        let uc = update_csum(be16(l3 + 26), d);
        self.hc.next = (update_csum(be16(l3 + 10), d) as u64).into();
        self.tc.next = (update_csum(be16(l3 + 36), d) as u64).into();
        self.uc.next = (uc as u64).into();
        self.udp_on.next = h.proto == 17 && be16(l3 + 26) != 0;
    }
    fn connect(&mut self) {
        self.hc.connect();
        self.tc.connect();
        self.uc.connect();
        self.udp_on.connect();
    }
    fn hdl(&self) -> Verilog {
        let be = |o: usize, n: usize| be_get("beat", o, n);
        let mut v = l3_proto_verilog();
        v += "wire unused_beat = ^beat;\n";
        // the old checksums, by the VLAN tag (l3 14 or 18)
        v += &format!("wire [15:0] o_hc = tag ? {} : {};\n", be(28, 2), be(24, 2));
        v += &format!("wire [15:0] o_tc = tag ? {} : {};\n", be(54, 2), be(50, 2));
        v += &format!("wire [15:0] o_uc = tag ? {} : {};\n", be(44, 2), be(40, 2));
        for (n, c) in [("hn", "o_hc"), ("tn", "o_tc"), ("un", "o_uc")] {
            v += &format!("wire [19:0] {n}_s = {{4'd0, ~{c}}} + d;\n");
            v += &fold_verilog(n, &format!("{n}_s"));
        }
        v += "always @(*) begin\n  hc = ~hn_f2;\n  tc = ~tn_f2;\n  uc = ~un_f2;\n";
        v += "  udp_on = (proto == 8'd17) & (o_uc != 16'd0);\nend\n";
        Verilog::Custom(v)
    }
}

/// The first beat rewritten (pure logic): the new addresses and the new checksums in place.
#[derive(LogicBlock, Default)]
pub struct NatWrite {
    pub beat: Signal<In, Bits<512>>,
    pub hdr: Signal<In, EmHdr>,
    pub xl: Signal<In, NatXlate>,
    pub hc: Signal<In, Bits<16>>,
    pub tc: Signal<In, Bits<16>>,
    pub uc: Signal<In, Bits<16>>,
    pub udp_on: Signal<In, Bit>,
    pub out: Signal<Out, Bits<512>>,
}

impl Logic for NatWrite {
    fn update(&mut self) {
        let h = EmHdrFields::from_struct(&self.hdr.val());
        let x = NatXlateFields::from_struct(&self.xl.val());
        let mut b = crate::crc::fields::bytes_of(self.beat.val());
        b.resize(64, 0);
        let l3 = h.l3 as usize;
        let c16 = |s: &Signal<In, Bits<16>>| (s.val().to_u64() as u16).to_be_bytes();
        if x.src_rw {
            b[l3 + 12..l3 + 16].copy_from_slice(&x.src.to_be_bytes());
        }
        if x.dst_rw {
            b[l3 + 16..l3 + 20].copy_from_slice(&x.dst.to_be_bytes());
        }
        b[l3 + 10..l3 + 12].copy_from_slice(&c16(&self.hc));
        if h.proto == 6 {
            b[l3 + 36..l3 + 38].copy_from_slice(&c16(&self.tc));
        } else if self.udp_on.val() {
            let u = c16(&self.uc);
            // a computed UDP checksum of 0 goes as 0xffff (RFC 768)
            b[l3 + 26..l3 + 28].copy_from_slice(if u == [0, 0] { &[0xff, 0xff] } else { &u });
        }
        self.out.next = crate::crc::fields::bits_of(&b);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        let x = |f: &str| vfield("xl", NatXlateFields::slot(f));
        let mut v = l3_proto_verilog();
        v += &format!("wire [31:0] ns = {};\nwire [31:0] nd = {};\nwire srw = {};\nwire drw = {};\n", x("src"), x("dst"), x("src_rw"), x("dst_rw"));
        v += "wire tcp = proto == 8'd6;\nwire [15:0] uc2 = (uc == 16'd0) ? 16'hffff : uc;\n";
        // write a big-endian value of n bytes at byte o (for each tag position)
        let put = |o: usize, n: usize, val: &str| be_put("out", o, n, val);
        v += "always @(*) begin\n  out = beat;\n";
        for (cond, l3) in [("!tag", 14usize), ("tag", 18)] {
            v += &format!("  if ({cond}) begin\n");
            v += "   if (srw) begin\n";
            v += &put(l3 + 12, 4, "ns");
            v += "   end\n   if (drw) begin\n";
            v += &put(l3 + 16, 4, "nd");
            v += "   end\n";
            v += &put(l3 + 10, 2, "hc");
            v += "   if (tcp) begin\n";
            v += &put(l3 + 36, 2, "tc");
            v += "   end\n   else if (udp_on) begin\n";
            v += &put(l3 + 26, 2, "uc2");
            v += "   end\n  end\n";
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// The rewrite at `D` bits (`K` = `D`/8). Every field it rewrites lies in a frame's first 64
/// bytes, so at 1024 bits the checksum and rewrite stages see the low 512 bits of the first
/// beat and the high bits ride along.
#[derive(LogicBlock)]
pub struct EmNatW<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub s_xl: Signal<In, NatXlate>,
    pub s_xl_valid: Signal<In, Bit>,
    pub s_xl_ready: Signal<Out, Bit>,
    delta: NatDelta,
    csum: NatCsum,
    write: NatWrite,
    oskid: AxisSkid<D, K>,
    in_frame: DFF<Bit>,
    v1: DFF<Bit>,
    first1: DFF<Bit>,
    data1: DFF<Bits<D>>,
    keep1: DFF<Bits<K>>,
    last1: DFF<Bit>,
    user1: DFF<Bit>,
    hdr1: DFF<EmHdr>,
    xl1: DFF<NatXlate>,
    d1: DFF<Bits<20>>,
    v2: DFF<Bit>,
    first2: DFF<Bit>,
    data2: DFF<Bits<D>>,
    keep2: DFF<Bits<K>>,
    last2: DFF<Bit>,
    user2: DFF<Bit>,
    hdr2: DFF<EmHdr>,
    xl2: DFF<NatXlate>,
    hc2: DFF<Bits<16>>,
    tc2: DFF<Bits<16>>,
    uc2: DFF<Bits<16>>,
    udp2: DFF<Bit>,
    v3: DFF<Bit>,
    data3: DFF<Bits<D>>,
    keep3: DFF<Bits<K>>,
    last3: DFF<Bit>,
    user3: DFF<Bit>,
    adv3: Signal<Local, Bit>,
    adv1: Signal<Local, Bit>,
    adv2: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    /// The first beat's bits above 512 (zero at 512 bits).
    hi_mask: Constant<Bits<D>>,
}

/// The rewrite on the 512-bit datapath.
pub type EmNat = EmNatW<DATA_W, KEEP_W>;
/// The rewrite on the 1024-bit datapath.
pub type EmNat1024 = EmNatW<1024, 128>;

impl<const D: usize, const K: usize> Default for EmNatW<D, K> {
    fn default() -> Self {
        assert!(D >= 512 && D == 8 * K);
        EmNatW {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            s_xl: Default::default(),
            s_xl_valid: Default::default(),
            s_xl_ready: Default::default(),
            delta: Default::default(),
            csum: Default::default(),
            write: Default::default(),
            oskid: Default::default(),
            in_frame: Default::default(),
            v1: Default::default(),
            first1: Default::default(),
            data1: Default::default(),
            keep1: Default::default(),
            last1: Default::default(),
            user1: Default::default(),
            hdr1: Default::default(),
            xl1: Default::default(),
            d1: Default::default(),
            v2: Default::default(),
            first2: Default::default(),
            data2: Default::default(),
            keep2: Default::default(),
            last2: Default::default(),
            user2: Default::default(),
            hdr2: Default::default(),
            xl2: Default::default(),
            hc2: Default::default(),
            tc2: Default::default(),
            uc2: Default::default(),
            udp2: Default::default(),
            v3: Default::default(),
            data3: Default::default(),
            keep3: Default::default(),
            last3: Default::default(),
            user3: Default::default(),
            adv3: Default::default(),
            adv1: Default::default(),
            adv2: Default::default(),
            go: Default::default(),
            take: Default::default(),
            start: Default::default(),
            hi_mask: Constant::new(!Bits::<D>::default() << 512),
        }
    }
}

impl<const D: usize, const K: usize> Logic for EmNatW<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame, v1, first1, data1, keep1, last1, user1, hdr1, xl1, d1, v2, first2, data2, keep2, last2, user2, hdr2, xl2, hc2, tc2, uc2, udp2, v3, data3, keep3, last3, user3);
        clock!(self, clock, oskid);
        self.oskid.reset.next = self.reset.val();
        // a three-stage pipeline that moves as a whole; the output skid's ready is registered
        self.adv3.next = !self.v3.q.val() | self.oskid.s_axis.tready.val();
        self.adv2.next = !self.v2.q.val() | self.adv3.val();
        self.adv1.next = !self.v1.q.val() | self.adv2.val();
        // a frame's first beat goes in with its header and translation
        self.go.next = self.in_frame.q.val() | (self.s_hdr_valid.val() & self.s_xl_valid.val());
        self.take.next = self.adv1.val() & self.go.val() & self.s_axis.tvalid.val();
        self.start.next = self.take.val() & !self.in_frame.q.val();
        self.s_axis.tready.next = self.adv1.val() & self.go.val();
        self.s_hdr_ready.next = self.start.val();
        self.s_xl_ready.next = self.start.val();
        if self.take.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }
        self.delta.hdr.next = self.s_hdr.val();
        self.delta.xl.next = self.s_xl.val();
        if self.adv1.val() {
            self.v1.d.next = self.take.val();
            self.first1.d.next = self.start.val();
            self.data1.d.next = self.s_axis.tdata.val();
            self.keep1.d.next = self.s_axis.tkeep.val();
            self.last1.d.next = self.s_axis.tlast.val();
            self.user1.d.next = self.s_axis.tuser.val();
            self.hdr1.d.next = self.s_hdr.val();
            self.xl1.d.next = self.s_xl.val();
            self.d1.d.next = self.delta.d.val();
        }
        // stage 2: the new checksums
        self.csum.beat.next = self.data1.q.val().get_bits::<512>(0);
        self.csum.hdr.next = self.hdr1.q.val();
        self.csum.d.next = self.d1.q.val();
        if self.adv2.val() {
            self.v2.d.next = self.v1.q.val();
            self.first2.d.next = self.first1.q.val();
            self.data2.d.next = self.data1.q.val();
            self.keep2.d.next = self.keep1.q.val();
            self.last2.d.next = self.last1.q.val();
            self.user2.d.next = self.user1.q.val();
            self.hdr2.d.next = self.hdr1.q.val();
            self.xl2.d.next = self.xl1.q.val();
            self.hc2.d.next = self.csum.hc.val();
            self.tc2.d.next = self.csum.tc.val();
            self.uc2.d.next = self.csum.uc.val();
            self.udp2.d.next = self.csum.udp_on.val();
        }
        // stage 3: the first beat rewritten
        self.write.beat.next = self.data2.q.val().get_bits::<512>(0);
        self.write.hdr.next = self.hdr2.q.val();
        self.write.xl.next = self.xl2.q.val();
        self.write.hc.next = self.hc2.q.val();
        self.write.tc.next = self.tc2.q.val();
        self.write.uc.next = self.uc2.q.val();
        self.write.udp_on.next = self.udp2.q.val();
        if self.adv3.val() {
            self.v3.d.next = self.v2.q.val();
            self.data3.d.next = self.data2.q.val();
            if self.first2.q.val() {
                self.data3.d.next = bit_cast::<D, 512>(self.write.out.val()) | (self.data2.q.val() & self.hi_mask.val());
            }
            self.keep3.d.next = self.keep2.q.val();
            self.last3.d.next = self.last2.q.val();
            self.user3.d.next = self.user2.q.val();
        }
        self.oskid.s_axis.tdata.next = self.data3.q.val();
        self.oskid.s_axis.tkeep.next = self.keep3.q.val();
        self.oskid.s_axis.tlast.next = self.last3.q.val();
        self.oskid.s_axis.tuser.next = self.user3.q.val();
        self.oskid.s_axis.tvalid.next = self.v3.q.val();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.oskid.m_axis);
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!([EmNat, EmNat1024], clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    s_hdr, s_hdr_valid, s_hdr_ready, s_xl, s_xl_valid, s_xl_ready]);

/// `NatFrontW`: the front of both NAT paths. Each frame's first beat is taken with its header
/// and translation. An untagged RoCEv2 frame is cut to `l3 + tot - cut` bytes (`cut` = 4 drops
/// the ICRC for a path that generates a new one, 0 keeps it for one that updates it; Ethernet
/// padding goes either way); a VLAN-tagged RoCEv2 frame is dropped whole (its header and
/// translation too) and counted. The others' header and translation wait in skids for the
/// frame's first beat at the rewrite. `room` holds new frames back (a parent's own queue).
/// Between the gate and `AxisLimit` is a register stage (the beat, and the limit in `lim_q`), so
/// the limiter works from registers; the header and translation take one too (`hr`, `xr`), and
/// the front's latency is 2 cycles (the stage and the limiter's skid).
#[derive(LogicBlock)]
pub struct NatFrontW<const D: usize, const K: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub room: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub s_xl: Signal<In, NatXlate>,
    pub s_xl_valid: Signal<In, Bit>,
    pub s_xl_ready: Signal<Out, Bit>,
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    pub m_xl: Signal<Out, NatXlate>,
    pub m_xl_valid: Signal<Out, Bit>,
    pub m_xl_ready: Signal<In, Bit>,
    /// A frame that is handed on starts this cycle (`s_hdr` and `s_xl` are its).
    pub kept: Signal<Out, Bit>,
    pub drop_roce_vlan: Signal<Out, Bits<32>>,
    /// A register stage in front of the limiter: the beat, with its frame's limit beside it in
    /// `lim_q` (loaded with the first beat), so the limiter's cut, mask and `tlast` work from
    /// registers, not from `s_hdr` through an add (LUT depth).
    pipe: AxisReg<D, K>,
    lim: AxisLimitW<D, K, C>,
    /// The header and translation take a register stage too (`hr`, `xr`, ahead of the skids),
    /// so they reach the rewrite with the frame's first beat (full rate with one-beat frames).
    hr: ChanReg<EmHdr>,
    xr: ChanReg<NatXlate>,
    hq: ChanSkid<EmHdr>,
    xq: ChanSkid<NatXlate>,
    in_frame: DFF<Bit>,
    k_vlan: DFF<Bits<32>>,
    lim_q: DFF<Bits<16>>,
    rv: Signal<Local, Bit>,
    rdy: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    l3w: Signal<Local, Bits<16>>,
    limit: Signal<Local, Bits<16>>,
    cut: Constant<Bits<16>>,
    c0: Constant<Bits<16>>,
    cmax: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const C: usize> NatFrontW<D, K, C> {
    /// `cut`: the bytes of a RoCEv2 frame's end it drops (4: the ICRC; 0: none).
    pub fn new(cut: u64) -> Self {
        NatFrontW {
            clock: Default::default(),
            reset: Default::default(),
            room: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            s_xl: Default::default(),
            s_xl_valid: Default::default(),
            s_xl_ready: Default::default(),
            m_hdr: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            m_xl: Default::default(),
            m_xl_valid: Default::default(),
            m_xl_ready: Default::default(),
            kept: Default::default(),
            drop_roce_vlan: Default::default(),
            pipe: Default::default(),
            lim: Default::default(),
            hr: Default::default(),
            xr: Default::default(),
            hq: Default::default(),
            xq: Default::default(),
            in_frame: Default::default(),
            k_vlan: Default::default(),
            lim_q: Default::default(),
            rv: Default::default(),
            rdy: Default::default(),
            start: Default::default(),
            l3w: Default::default(),
            limit: Default::default(),
            cut: Constant::new(cut.into()),
            c0: Constant::new(0.into()),
            cmax: Constant::new(0xffff.into()),
        }
    }
}

impl<const D: usize, const K: usize, const C: usize> Logic for NatFrontW<D, K, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame, k_vlan, lim_q);
        clock!(self, clock, pipe, lim, hr, xr, hq, xq);
        self.pipe.reset.next = self.reset.val();
        self.lim.reset.next = self.reset.val();
        self.hr.reset.next = self.reset.val();
        self.xr.reset.next = self.reset.val();
        self.hq.reset.next = self.reset.val();
        self.xq.reset.next = self.reset.val();
        // a tagged RoCEv2 frame: dropped whole (limit 0), its header not handed on
        self.rv.next = self.s_hdr.val().roce & self.s_hdr.val().vlan;
        self.l3w.next = bit_cast::<16, 8>(self.s_hdr.val().l3);
        self.limit.next = self.cmax.val();
        if self.s_hdr.val().roce {
            self.limit.next = self.l3w.val() + self.s_hdr.val().tot - self.cut.val();
        }
        if self.rv.val() {
            self.limit.next = self.c0.val();
        }
        // the first beat goes with the header and translation
        self.rdy.next = self.s_hdr_valid.val() & self.s_xl_valid.val() & self.pipe.s_axis.tready.val() & self.room.val() & (self.rv.val() | (self.hr.s_ready.val() & self.xr.s_ready.val()));
        self.start.next = !self.in_frame.q.val() & self.rdy.val() & self.s_axis.tvalid.val();
        // the stage holds one beat, so the limit loaded with a first beat stays until that beat
        // has reached the limiter, which reads it only then
        if self.start.val() {
            self.lim_q.d.next = self.limit.val();
        }
        self.pipe.s_axis.tdata.next = self.s_axis.tdata.val();
        self.pipe.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.pipe.s_axis.tlast.next = self.s_axis.tlast.val();
        self.pipe.s_axis.tuser.next = self.s_axis.tuser.val();
        if self.in_frame.q.val() {
            self.pipe.s_axis.tvalid.next = self.s_axis.tvalid.val();
            self.s_axis.tready.next = self.pipe.s_axis.tready.val();
        } else {
            self.pipe.s_axis.tvalid.next = self.start.val();
            self.s_axis.tready.next = self.rdy.val();
        }
        self.lim.limit.next = self.lim_q.q.val();
        AxisSource::<D, K>::join(&mut self.pipe.m_axis, &mut self.lim.s_axis);
        self.s_hdr_ready.next = self.start.val();
        self.s_xl_ready.next = self.start.val();
        self.kept.next = self.start.val() & !self.rv.val();
        // the header and translation wait in skids for the frame's first beat at the rewrite
        self.hr.s_data.next = self.s_hdr.val();
        self.xr.s_data.next = self.s_xl.val();
        self.hr.s_valid.next = self.start.val() & !self.rv.val();
        self.xr.s_valid.next = self.start.val() & !self.rv.val();
        self.hq.s_data.next = self.hr.m_data.val();
        self.hq.s_valid.next = self.hr.m_valid.val();
        self.hr.m_ready.next = self.hq.s_ready.val();
        self.xq.s_data.next = self.xr.m_data.val();
        self.xq.s_valid.next = self.xr.m_valid.val();
        self.xr.m_ready.next = self.xq.s_ready.val();
        self.m_hdr.next = self.hq.m_data.val();
        self.m_hdr_valid.next = self.hq.m_valid.val();
        self.hq.m_ready.next = self.m_hdr_ready.val();
        self.m_xl.next = self.xq.m_data.val();
        self.m_xl_valid.next = self.xq.m_valid.val();
        self.xq.m_ready.next = self.m_xl_ready.val();
        if self.s_axis.tvalid.val() & self.s_axis.tready.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }
        if self.start.val() & self.rv.val() {
            self.k_vlan.d.next = self.k_vlan.q.val() + 1;
        }
        self.drop_roce_vlan.next = self.k_vlan.q.val();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.lim.m_axis);
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.k_vlan.d.next = 0.into();
        }
    }
}
