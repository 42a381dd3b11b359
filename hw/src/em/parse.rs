//! `EmParse`: the EM's parser. Ethernet (an optional 802.1Q tag), IPv4 without options, TCP,
//! UDP, and on the wire side VXLAN with its inner frame, read from the first 128 bytes of each
//! frame. It hands on accepted frames on `m_axis` and their headers ([`EmHdr`]) on a header
//! channel beside them, in the same order, and drops the others, counted by cause
//! (`nicgen_model::em::EmDrop`, whose rules this block implements).
//!
//! ```text
//! s_axis ─┬──────────────────────────────► payload FIFO (512 beats) ───────────┐
//!         ├─ window (beats 0, 1) ─► EmExtract ─► reg ─► header results (64) ─┐ ├─► gate ─► m_axis
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
use super::{EmHdr, EmHdrFields};
use crate::crc::fields::bytes_of;
use crate::record::{FromBits, ToBits};
use crate::stream::*;
use nicgen_model::em::{em_extract, EmDrop, ROCE_PORT, VXLAN_PORT};
use rust_hdl::prelude::*;

pub const EM_HDR_BITS: usize = EmHdrFields::BITS;
const HDR_W: usize = EM_HDR_BITS + 3;
/// A header result: the header, then `need` (17 bits).
const RES_BITS: usize = EM_HDR_BITS + 17;
const RES_W: usize = RES_BITS + 3;
/// A length record: frame bytes (16), MAC error (1).
const LEN_BITS: usize = 17;
const LEN_W: usize = LEN_BITS + 3;
const _: () = assert!(EM_HDR_BITS == 396);

/// Number of drop causes (`EmDrop` codes 1..=8).
pub const EM_DROP_CAUSES: usize = 8;

/// The header stage: from the first 128 bytes of a frame (`w`, byte 0 in `w[7:0]`, zeros past
/// the frame's end), its header fields (`hdr`, with `len`, `vf` and `cause` zero), its first
/// header cause and the bytes it must have. Pure logic, generated as Verilog; its Rust model
/// is `nicgen_model::em::em_extract`.
#[derive(LogicBlock, Default)]
pub struct EmExtract {
    pub w: Signal<In, Bits<1024>>,
    pub from_wire: Signal<In, Bit>,
    pub hdr: Signal<Out, EmHdr>,
    pub cause: Signal<Out, Bits<4>>,
    pub need: Signal<Out, Bits<17>>,
}

impl Logic for EmExtract {
    fn update(&mut self) {
        let x = em_extract(&bytes_of(self.w.val()), self.from_wire.val());
        self.hdr.next = EmHdrFields::of(&x.p, 0).to_struct();
        self.cause.next = (x.cause.map_or(0, |c| c as u8) as u64).into();
        self.need.next = (x.need as u64).into();
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
    let parts: Vec<String> = (o..o + n).map(|i| format!("w[{}:{}]", 8 * i + 7, 8 * i)).collect();
    format!("{{{}}}", parts.join(", "))
}

/// One layer whose Ethernet header starts at byte `e`, as wires prefixed `p_`: the fields, the
/// first cause (`p_cause`, 0 if none), the end of the last header read (`p_need`) and of the
/// datagram (`p_ipend`). The rules of `nicgen_model::em::layer`.
fn layer_verilog(p: &str, e: usize) -> String {
    // an L3-relative field: by the tag, at e + 18 + k or e + 14 + k
    let sel = |k: usize, n: usize| format!("({p}_tag ? {} : {})", be(e + 18 + k, n), be(e + 14 + k, n));
    let mut v = String::new();
    v += &format!("wire {p}_tag = {} == 16'h8100;\n", be(e + 12, 2));
    v += &format!("wire [15:0] {p}_et = {p}_tag ? {} : {};\n", be(e + 16, 2), be(e + 12, 2));
    v += &format!("wire [15:0] {p}_tci = {};\n", be(e + 14, 2));
    v += &format!("wire [7:0] {p}_l3 = {p}_tag ? 8'd{} : 8'd{};\n", e + 18, e + 14);
    v += &format!("wire [7:0] {p}_vi = {};\n", sel(0, 1));
    v += &format!("wire [7:0] {p}_tos = {};\n", sel(1, 1));
    v += &format!("wire [15:0] {p}_tot = {};\n", sel(2, 2));
    v += &format!("wire [15:0] {p}_fl = {};\n", sel(6, 2));
    v += &format!("wire [7:0] {p}_ttl = {};\n", sel(8, 1));
    v += &format!("wire [7:0] {p}_proto = {};\n", sel(9, 1));
    v += &format!("wire [31:0] {p}_src = {};\n", sel(12, 4));
    v += &format!("wire [31:0] {p}_dst = {};\n", sel(16, 4));
    // the header checksum: the ones' complement sum of its ten words is 0xffff
    let words: Vec<String> = (0..10).map(|i| format!("{{4'd0, {}}}", sel(2 * i, 2))).collect();
    v += &format!("wire [19:0] {p}_cs = {};\n", words.join(" + "));
    v += &format!("wire [16:0] {p}_f1 = {{1'b0, {p}_cs[15:0]}} + {{13'd0, {p}_cs[19:16]}};\n");
    v += &format!("wire [15:0] {p}_f2 = {p}_f1[15:0] + {{15'd0, {p}_f1[16]}};\n");
    v += &format!("wire {p}_csok = {p}_f2 == 16'hffff;\n");
    v += &format!("wire {p}_l4 = ({p}_proto == 8'd6) | ({p}_proto == 8'd17);\n");
    v += &format!("wire [15:0] {p}_sport = {p}_l4 ? {} : 16'd0;\n", sel(20, 2));
    v += &format!("wire [15:0] {p}_dport = {p}_l4 ? {} : 16'd0;\n", sel(22, 2));
    v += &format!("wire [15:0] {p}_ulen = {};\n", sel(24, 2));
    v += &format!("wire [7:0] {p}_doff = {};\n", sel(32, 1));
    v += &format!("wire [23:0] {p}_dqpn = {};\n", sel(33, 3));
    v += &format!("wire [15:0] {p}_totm20 = {p}_tot - 16'd20;\n");
    v += &format!("wire [16:0] {p}_ipend = {{9'd0, {p}_l3}} + {{1'b0, {p}_tot}};\n");
    v += &format!("reg [3:0] {p}_cause;\nreg [7:0] {p}_need;\n");
    v += "always @(*) begin\n";
    v += &format!("  {p}_cause = 4'd0;\n  {p}_need = {p}_l3 + 8'd20;\n");
    v += &format!("  if ({p}_et != 16'h0800) begin {p}_cause = 4'd{}; {p}_need = {p}_l3; end\n", EmDrop::NotIpv4 as u8);
    v += &format!("  else if (({p}_vi[7:4] != 4'd4) | ({p}_vi[3:0] < 4'd5) | ({p}_tot < 16'd20)) {p}_cause = 4'd{};\n", EmDrop::Malformed as u8);
    v += &format!("  else if ({p}_vi[3:0] > 4'd5) {p}_cause = 4'd{};\n", EmDrop::IpOptions as u8);
    v += &format!("  else if (!{p}_csok) {p}_cause = 4'd{};\n", EmDrop::BadIpChecksum as u8);
    v += &format!("  else if ({p}_fl[13:0] != 14'd0) {p}_cause = 4'd{};\n", EmDrop::Fragment as u8);
    v += &format!(
        "  else if ({p}_proto == 8'd6) begin {p}_need = {p}_l3 + 8'd40; if (({p}_tot < 16'd40) | ({p}_doff[7:4] < 4'd5)) {p}_cause = 4'd{}; end\n",
        EmDrop::Malformed as u8
    );
    v += &format!(
        "  else if ({p}_proto == 8'd17) begin {p}_need = {p}_l3 + 8'd28; if (({p}_tot < 16'd28) | ({p}_ulen < 16'd8) | ({p}_ulen > {p}_totm20)) {p}_cause = 4'd{}; end\n",
        EmDrop::Malformed as u8
    );
    v += "end\n";
    v
}

/// The header stage's Verilog: the outer layer from byte 0; the inner layer (VXLAN) from byte
/// 50 or 54 (both built; the outer tag picks one).
fn extract_verilog() -> String {
    let mut v = String::from("wire unused_w = ^w; // only header bytes are read\n");
    v += &layer_verilog("o", 0);
    v += &layer_verilog("a", 50);
    v += &layer_verilog("b", 54);
    let inner = [
        ("tag", 1),
        ("tci", 16),
        ("l3", 8),
        ("tos", 8),
        ("tot", 16),
        ("ttl", 8),
        ("proto", 8),
        ("src", 32),
        ("dst", 32),
        ("sport", 16),
        ("dport", 16),
        ("dqpn", 24),
        ("ipend", 17),
        ("cause", 4),
        ("need", 8),
    ];
    for (f, n) in inner {
        v += &format!("wire [{}:0] i_{f} = o_tag ? b_{f} : a_{f};\n", n - 1);
    }
    v += "wire unused_inner = ^a_fl ^ ^b_fl ^ ^a_ulen ^ ^b_ulen ^ ^a_doff ^ ^b_doff ^ ^a_vi ^ ^b_vi ^ a_csok ^ b_csok ^ ^a_et ^ ^b_et ^ a_l4 ^ b_l4 ^ ^a_totm20 ^ ^b_totm20 ^ ^a_cs ^ ^b_cs ^ ^a_f1 ^ ^b_f1 ^ ^a_f2 ^ ^b_f2 ^ ^o_fl ^ ^o_ulen ^ ^o_doff ^ ^o_vi ^ o_csok ^ ^o_et ^ o_l4 ^ ^o_totm20 ^ ^o_cs ^ ^o_f1 ^ ^o_f2;\n";
    // VXLAN: its header at the outer l3 + 28 (42 or 46)
    v += &format!("wire vflag_i = o_tag ? w[{}] : w[{}];\n", 8 * 46 + 3, 8 * 42 + 3);
    v += &format!("wire [23:0] vni_w = o_tag ? {} : {};\n", be(50, 3), be(46, 3));
    v += &format!("wire isvx = from_wire & (o_cause == 4'd0) & (o_proto == 8'd17) & (o_dport == 16'd{VXLAN_PORT});\n");
    v += &format!("wire o_roce = (o_proto == 8'd17) & (o_dport == 16'd{ROCE_PORT});\n");
    v += &format!("wire i_roce = (i_proto == 8'd17) & (i_dport == 16'd{ROCE_PORT});\n");
    v += "wire [16:0] o_need17 = {9'd0, o_need};\nwire [16:0] i_need17 = {9'd0, i_need};\n";
    v += "wire [16:0] o_vxend = {9'd0, o_l3} + 17'd36;\n";
    v += "wire [16:0] o_bthend = {9'd0, o_l3} + 17'd40;\nwire [16:0] i_bthend = {9'd0, i_l3} + 17'd40;\n";
    v += "reg [3:0] c_w;\nreg [16:0] n_w;\nreg vx_ok;\nreg roce_w;\n";
    v += "always @(*) begin\n";
    v += "  c_w = o_cause;\n  n_w = o_need17;\n  vx_ok = 1'b0;\n  roce_w = 1'b0;\n";
    v += "  if (o_cause == 4'd0) begin\n";
    v += "    if (o_ipend > n_w) n_w = o_ipend;\n";
    v += "    if (isvx) begin\n";
    v += "      if (o_vxend > n_w) n_w = o_vxend;\n";
    v += &format!("      if (o_tot < 16'd36) c_w = 4'd{};\n", EmDrop::Malformed as u8);
    v += &format!("      else if (!vflag_i) c_w = 4'd{};\n", EmDrop::BadVxlan as u8);
    v += "      else begin\n";
    v += "        if (i_need17 > n_w) n_w = i_need17;\n";
    v += "        if (i_cause != 4'd0) c_w = i_cause;\n";
    v += "        else begin\n";
    v += "          vx_ok = 1'b1;\n";
    v += "          if (i_ipend > n_w) n_w = i_ipend;\n";
    v += "          if (i_roce) begin roce_w = 1'b1; if (i_bthend > n_w) n_w = i_bthend; end\n";
    v += "        end\n";
    v += "      end\n";
    v += "    end else if (o_roce) begin roce_w = 1'b1; if (o_bthend > n_w) n_w = o_bthend; end\n";
    v += "  end\n";
    v += "end\n";
    // the header: zero when a header cause drops the frame (as the model has it)
    let set = |name: &str, e: &str| {
        let (o, n) = EmHdrFields::slot(name);
        format!("  hdr[{}:{}] = {e};\n", o + n - 1, o)
    };
    v += "always @(*) begin\n  hdr = 0;\n  if (c_w == 4'd0) begin\n";
    v += &set("vlan", "o_tag");
    v += &set("vid", "o_tag ? o_tci[11:0] : 12'd0");
    v += &set("l3", "o_l3");
    for f in ["src", "dst", "proto", "tos", "ttl", "tot", "sport", "dport"] {
        v += &set(f, &format!("o_{f}"));
    }
    v += &set("vxlan", "vx_ok");
    v += "  if (vx_ok) begin\n";
    v += &set("vni", "vni_w");
    v += &set("i_vlan", "i_tag");
    v += &set("i_vid", "i_tag ? i_tci[11:0] : 12'd0");
    v += &set("i_l3", "i_l3");
    for f in ["src", "dst", "proto", "tos", "ttl", "tot", "sport", "dport"] {
        v += &set(&format!("i_{f}"), &format!("i_{f}"));
    }
    v += "  end\n";
    v += &set("roce", "roce_w");
    v += "  if (roce_w) begin\n";
    v += &set("dqpn", "vx_ok ? i_dqpn : o_dqpn");
    v += "  end\n";
    v += "  end\n  cause = c_w;\n  need = n_w;\nend\n";
    v += "wire unused_tci = ^o_tci[15:12] ^ ^i_tci[15:12];\n";
    v
}

/// The number of bytes a contiguous `tkeep` marks (a popcount), generated as Verilog.
#[derive(LogicBlock, Default)]
pub struct KeepCount {
    pub keep: Signal<In, Bits<64>>,
    pub n: Signal<Out, Bits<7>>,
}

impl Logic for KeepCount {
    fn update(&mut self) {
        self.n.next = (self.keep.val().to_u64().count_ones() as u64).into();
    }
    fn connect(&mut self) {
        self.n.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("integer i;\nalways @(*) begin\n  n = 7'd0;\n  for (i = 0; i < 64; i = i + 1) n = n + {6'd0, keep[i]};\nend\n".into())
    }
}

#[derive(LogicBlock)]
pub struct EmParse {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Configuration: this parser sits on a wire port (VXLAN is read), else on the host side.
    pub from_wire: Signal<In, Bit>,
    /// Host side: the VF a frame comes from, with its first beat.
    pub s_vf: Signal<In, Bits<12>>,
    /// Frames; `tuser` on the last beat: the MAC marked the frame bad.
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    /// Frames handed on, and frames dropped per cause (`EmDrop` order).
    pub frames: Signal<Out, Bits<32>>,
    pub drop_bad_frame: Signal<Out, Bits<32>>,
    pub drop_truncated: Signal<Out, Bits<32>>,
    pub drop_not_ipv4: Signal<Out, Bits<32>>,
    pub drop_malformed: Signal<Out, Bits<32>>,
    pub drop_ip_options: Signal<Out, Bits<32>>,
    pub drop_bad_ip_checksum: Signal<Out, Bits<32>>,
    pub drop_fragment: Signal<Out, Bits<32>>,
    pub drop_bad_vxlan: Signal<Out, Bits<32>>,
    ke: KeepExpand<KEEP_W, DATA_W>,
    kc: KeepCount,
    ex: EmExtract,
    // window
    sof: DFF<Bit>,
    second: DFF<Bit>,
    win: DFF<Bits<1024>>,
    win_vf: DFF<Bits<12>>,
    wgo: DFF<Bit>,
    acc: Signal<Local, Bit>,
    masked: Signal<Local, Bits<512>>,
    // header results
    x_valid: DFF<Bit>,
    x_hdr: DFF<EmHdr>,
    x_need: DFF<Bits<17>>,
    x_in: ToBits<EmHdr, EM_HDR_BITS>,
    res_q: AxisFifo<RES_BITS, 1, RES_W, 6>,
    res_hdr: FromBits<EmHdr, EM_HDR_BITS>,
    // lengths
    blen: DFF<Bits<16>>,
    l_valid: DFF<Bit>,
    l_keep: DFF<Bits<64>>,
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
    pay_q: AxisFifo<DATA_W, KEEP_W, 578, 9>,
    in_frame: DFF<Bit>,
    drop_cur: DFF<Bit>,
    h_drop: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    cont: Signal<Local, Bit>,
    oskid: AxisSkid512,
    hskid: ChanSkid<EmHdr>,
    room: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    c48: Constant<Bits<16>>,
    c0_16: Constant<Bits<16>>,
    c64_16: Constant<Bits<16>>,
    c0_4: Constant<Bits<4>>,
    c_bad: Constant<Bits<4>>,
    c_trunc: Constant<Bits<4>>,
    c0_512: Constant<Bits<512>>,
}

impl Default for EmParse {
    fn default() -> Self {
        EmParse {
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
            drop_not_ipv4: Default::default(),
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
            x_valid: Default::default(),
            x_hdr: Default::default(),
            x_need: Default::default(),
            x_in: Default::default(),
            res_q: AxisFifo::new(false),
            res_hdr: Default::default(),
            blen: Default::default(),
            l_valid: Default::default(),
            l_keep: Default::default(),
            l_base: Default::default(),
            l_bad: Default::default(),
            len_q: AxisFifo::new(false),
            jn: Default::default(),
            j_len: Default::default(),
            j_need: Default::default(),
            j_hdr: Default::default(),
            j_in: Default::default(),
            hdr_q: AxisFifo::new(false),
            hq_out: Default::default(),
            drops: Default::default(),
            k_frames: Default::default(),
            cause_no: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            pay_q: AxisFifo::new(false),
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
            c64_16: Constant::new(64.into()),
            c0_4: Constant::new(0.into()),
            c_bad: Constant::new((EmDrop::BadFrame as u64).into()),
            c_trunc: Constant::new((EmDrop::Truncated as u64).into()),
            c0_512: Constant::new(0.into()),
        }
    }
}

impl Logic for EmParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sof, second, win, win_vf, wgo, x_valid, x_hdr, x_need, blen, l_valid, l_keep, l_base, l_bad, k_frames, in_frame, drop_cur);
        clock!(self, clock, res_q, len_q, hdr_q, pay_q, oskid, hskid);
        for i in 0..EM_DROP_CAUSES {
            self.drops[i].clock.next = self.clock.val();
            self.drops[i].d.next = self.drops[i].q.val();
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
        // ------------------------------------------------ the window: beats 0 and 1, zeros past the end
        self.ke.keep.next = self.s_axis.tkeep.val();
        self.masked.next = self.s_axis.tdata.val() & self.ke.mask.val();
        self.wgo.d.next = false;
        if self.acc.val() {
            self.sof.d.next = self.s_axis.tlast.val();
            self.second.d.next = self.sof.q.val() & !self.s_axis.tlast.val();
            if self.sof.q.val() {
                self.win.d.next = bit_cast::<1024, 512>(self.masked.val());
                self.win_vf.d.next = self.s_vf.val();
                self.wgo.d.next = self.s_axis.tlast.val();
            } else if self.second.q.val() {
                self.win.d.next = bit_cast::<1024, 512>(self.win.q.val().get_bits::<512>(0)) | (bit_cast::<1024, 512>(self.masked.val()) << 512);
                self.wgo.d.next = true;
            }
        }
        // ------------------------------------------------ the header stage, then its result queue
        self.ex.w.next = self.win.q.val();
        self.ex.from_wire.next = self.from_wire.val();
        self.x_valid.d.next = self.wgo.q.val();
        self.x_hdr.d.next = self.ex.hdr.val();
        self.x_hdr.d.next.cause = self.ex.cause.val();
        self.x_hdr.d.next.vf = self.win_vf.q.val();
        self.x_need.d.next = self.ex.need.val();
        self.x_in.x.next = self.x_hdr.q.val();
        self.res_q.s_axis.tdata.next = bit_cast::<RES_BITS, EM_HDR_BITS>(self.x_in.y.val()) | (bit_cast::<RES_BITS, 17>(self.x_need.q.val()) << 396);
        self.res_q.s_axis.tkeep.next = true.into();
        self.res_q.s_axis.tlast.next = true;
        self.res_q.s_axis.tuser.next = false;
        self.res_q.s_axis.tvalid.next = self.x_valid.q.val();
        self.res_hdr.x.next = self.res_q.m_axis.tdata.val().get_bits::<EM_HDR_BITS>(0);
        // ------------------------------------------------ the frame's length and MAC error, at its end
        self.l_valid.d.next = self.acc.val() & self.s_axis.tlast.val();
        self.l_keep.d.next = self.s_axis.tkeep.val();
        self.l_base.d.next = self.blen.q.val();
        self.l_bad.d.next = self.s_axis.tuser.val();
        if self.acc.val() {
            self.blen.d.next = self.blen.q.val() + self.c64_16.val();
            if self.s_axis.tlast.val() {
                self.blen.d.next = self.c0_16.val();
            }
        }
        self.kc.keep.next = self.l_keep.q.val();
        self.len_q.s_axis.tdata.next = bit_cast::<LEN_BITS, 16>(self.l_base.q.val() + bit_cast::<16, 7>(self.kc.n.val())) | (bit_cast::<LEN_BITS, 1>(self.l_bad.q.val().into()) << 16);
        self.len_q.s_axis.tkeep.next = true.into();
        self.len_q.s_axis.tlast.next = true;
        self.len_q.s_axis.tuser.next = false;
        self.len_q.s_axis.tvalid.next = self.l_valid.q.val();
        // ------------------------------------------------ join: the verdict, counted; the header queued
        self.jn.next = self.res_q.m_axis.tvalid.val() & self.len_q.m_axis.tvalid.val() & self.hdr_q.s_axis.tready.val();
        self.res_q.m_axis.tready.next = self.jn.val();
        self.len_q.m_axis.tready.next = self.jn.val();
        self.j_len.next = self.len_q.m_axis.tdata.val().get_bits::<16>(0);
        self.j_need.next = self.res_q.m_axis.tdata.val().get_bits::<17>(396);
        self.j_hdr.next = self.res_hdr.y.val();
        self.j_hdr.next.len = self.j_len.val();
        if self.len_q.m_axis.tdata.val().get_bit(16) {
            self.j_hdr.next.cause = self.c_bad.val();
        } else if bit_cast::<17, 16>(self.j_len.val()) < self.j_need.val() {
            self.j_hdr.next.cause = self.c_trunc.val();
        }
        self.j_in.x.next = self.j_hdr.val();
        self.hdr_q.s_axis.tdata.next = self.j_in.y.val();
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
        self.hq_out.x.next = self.hdr_q.m_axis.tdata.val();
        self.h_drop.next = self.hq_out.y.val().cause.any();
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
        self.hskid.s_data.next = self.hq_out.y.val();
        self.hskid.s_valid.next = self.start.val() & !self.h_drop.val();
        if self.start.val() {
            self.drop_cur.d.next = self.h_drop.val();
            self.in_frame.d.next = !self.pay_q.m_axis.tlast.val();
        }
        if self.cont.val() & self.pay_q.m_axis.tlast.val() {
            self.in_frame.d.next = false;
        }
        Axis512Source::link(&mut self.m_axis, &mut self.oskid.m_axis);
        self.m_hdr.next = self.hskid.m_data.val();
        self.m_hdr_valid.next = self.hskid.m_valid.val();
        self.hskid.m_ready.next = self.m_hdr_ready.val();
        // ------------------------------------------------ counters
        self.frames.next = self.k_frames.q.val();
        self.drop_bad_frame.next = self.drops[0].q.val();
        self.drop_truncated.next = self.drops[1].q.val();
        self.drop_not_ipv4.next = self.drops[2].q.val();
        self.drop_malformed.next = self.drops[3].q.val();
        self.drop_ip_options.next = self.drops[4].q.val();
        self.drop_bad_ip_checksum.next = self.drops[5].q.val();
        self.drop_fragment.next = self.drops[6].q.val();
        self.drop_bad_vxlan.next = self.drops[7].q.val();
        self.unused.next = self.res_q.drop_bad.val().any() | self.res_q.drop_overflow.val().any() | self.res_q.m_axis.tkeep.val().any() | self.res_q.m_axis.tlast.val() | self.res_q.m_axis.tuser.val()
            | self.len_q.drop_bad.val().any() | self.len_q.drop_overflow.val().any() | self.len_q.m_axis.tkeep.val().any() | self.len_q.m_axis.tlast.val() | self.len_q.m_axis.tuser.val()
            | self.hdr_q.drop_bad.val().any() | self.hdr_q.drop_overflow.val().any() | self.hdr_q.m_axis.tkeep.val().any() | self.hdr_q.m_axis.tlast.val() | self.hdr_q.m_axis.tuser.val()
            | self.pay_q.drop_bad.val().any() | self.pay_q.drop_overflow.val().any() | self.pay_q.level.val().any() | self.pay_q.m_axis.tuser.val()
            | self.res_q.s_axis.tready.val() | self.len_q.s_axis.tready.val() | self.c0_512.val().any();
        if self.reset.val() {
            self.sof.d.next = true;
            self.second.d.next = false;
            self.wgo.d.next = false;
            self.x_valid.d.next = false;
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
    ("drop_truncated", "frames that end inside a header or an IPv4 datagram"),
    ("drop_not_ipv4", "frames that are not IPv4 (IPv6 is not parsed yet)"),
    ("drop_malformed", "IPv4/TCP/UDP/VXLAN headers with impossible fields"),
    ("drop_ip_options", "IPv4 headers with options (IHL above 5)"),
    ("drop_bad_ip_checksum", "IPv4 headers whose checksum is wrong"),
    ("drop_fragment", "IPv4 fragments"),
    ("drop_bad_vxlan", "VXLAN headers without the I flag"),
];

nicgen_sim::impl_ports!(EmParse, clock = clock, [clock, reset, from_wire, s_vf,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    m_hdr, m_hdr_valid, m_hdr_ready, frames, drop_bad_frame, drop_truncated, drop_not_ipv4, drop_malformed,
    drop_ip_options, drop_bad_ip_checksum, drop_fragment, drop_bad_vxlan]);
