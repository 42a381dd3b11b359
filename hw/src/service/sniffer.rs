//! The traffic sniffer at the MAC (BALBOA §4.7): taps on the RX and TX streams, a field filter,
//! a snap length, a free-running nanosecond timestamp, and capture records in an on-chip buffer
//! per direction that drain through `m_axis_cap` (to a DMA writer into host or card memory).
//!
//! * **Never backpressures.** A tap only watches (`tvalid & tready`). A record that does not
//!   fit (data ring or descriptor queue full) is dropped whole and counted; the next record
//!   says how many were lost before it.
//! * **Records.** A descriptor word, then the first `cap_len = min(length, snap)` bytes in
//!   64-byte words; the layout is in `nicgen_model::sniff`, whose `parse_records` and
//!   `write_pcapng` are the host side (`nicgen pcap records`).
//! * **Filter.** Value and mask per field, all fields ANDed; a zero mask matches anything. IP
//!   matches the IPv4 source or destination, port the UDP source or destination port; opcode
//!   and QPN are the BTH's of RoCEv2 frames (IPv4 without options and unfragmented, or IPv6
//!   without extension headers). Fields are read at fixed offsets from the first two beats.
//! * **Per tap:** a 3-stage pipeline (register, parse and compare, write), a data ring of
//!   `2^A` words (BRAM) with a commit pointer so a dropped record leaves nothing behind, a
//!   descriptor queue of `2^M` entries, and a reader that emits descriptor + words. An
//!   IPv6 frame's QPN is in its second beat, so the keep-or-drop decision is made at the
//!   frame's last beat; the beats are written as they come and rolled back if dropped.
//! * The two record streams meet in a frame arbiter (round robin).
use crate::axil::*;
use crate::crc::fields::KeepCount;
use crate::stream::*;
use rust_hdl::prelude::*;

/// Register offsets of the sniffer's AXI4-Lite window.
pub mod reg {
    /// bit 0: capture RX, bit 1: capture TX (a frame is captured if enabled at its first beat).
    pub const CTRL: u16 = 0x00;
    /// Bytes captured per frame (reset: 65535, everything); 0 keeps descriptors only.
    pub const SNAPLEN: u16 = 0x04;
    pub const IP: u16 = 0x08;
    pub const IP_MASK: u16 = 0x0c;
    /// value 15:0, mask 31:16
    pub const PORT: u16 = 0x10;
    /// value 7:0, mask 15:8
    pub const OPCODE: u16 = 0x14;
    pub const QPN: u16 = 0x18;
    pub const QPN_MASK: u16 = 0x1c;
    /// The nanosecond counter: reading TS_LO latches the high word for TS_HI.
    pub const TS_LO: u16 = 0x20;
    pub const TS_HI: u16 = 0x24;
    /// Counters per direction, RX at 0x40, TX at 0x50: frames seen, records captured, frames
    /// the filter passed over, records dropped for lack of room.
    pub const RX_COUNTERS: u16 = 0x40;
    pub const TX_COUNTERS: u16 = 0x50;
    pub const COUNTERS: [&str; 4] = ["seen", "captured", "filtered", "dropped_full"];
}

/// The register writes that set the sniffer up: snap length, the filter's fields, then both
/// taps on. (offset, value) pairs, in order.
pub fn setup_writes(f: &nicgen_model::sniff::Filter, snap: u16) -> [(u16, u32); 8] {
    [
        (reg::SNAPLEN, snap as u32),
        (reg::IP, f.ip.0),
        (reg::IP_MASK, f.ip.1),
        (reg::PORT, f.port.0 as u32 | (f.port.1 as u32) << 16),
        (reg::OPCODE, f.opcode.0 as u32 | (f.opcode.1 as u32) << 8),
        (reg::QPN, f.qpn.0),
        (reg::QPN_MASK, f.qpn.1),
        (reg::CTRL, 3),
    ]
}

/// Nanoseconds per cycle at the 250 MHz design clock.
pub const NS_PER_CYCLE: u64 = 4;
/// Cycles from a beat at the tap to its write into the data ring.
pub const TAP_LATENCY: usize = 3;

/// One direction's capture path.
#[derive(LogicBlock)]
pub struct SniffTap<const A: usize, const M: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub tap: Axis512Tap,
    pub ts: Signal<In, Bits<64>>,
    pub en: Signal<In, Bit>,
    pub snap: Signal<In, Bits<16>>,
    pub ip_v: Signal<In, Bits<32>>,
    pub ip_m: Signal<In, Bits<32>>,
    pub port_v: Signal<In, Bits<16>>,
    pub port_m: Signal<In, Bits<16>>,
    pub op_v: Signal<In, Bits<8>>,
    pub op_m: Signal<In, Bits<8>>,
    pub qpn_v: Signal<In, Bits<24>>,
    pub qpn_m: Signal<In, Bits<24>>,
    pub m_axis: Axis512Source,
    pub c_seen: Signal<Out, Bits<32>>,
    pub c_cap: Signal<Out, Bits<32>>,
    pub c_filt: Signal<Out, Bits<32>>,
    pub c_full: Signal<Out, Bits<32>>,
    kc: KeepCount<64, 7>,
    _dir: u8,
}

impl<const A: usize, const M: usize> SniffTap<A, M> {
    pub fn new(dir: u8) -> Self {
        SniffTap {
            clock: Default::default(),
            reset: Default::default(),
            tap: Default::default(),
            ts: Default::default(),
            en: Default::default(),
            snap: Default::default(),
            ip_v: Default::default(),
            ip_m: Default::default(),
            port_v: Default::default(),
            port_m: Default::default(),
            op_v: Default::default(),
            op_m: Default::default(),
            qpn_v: Default::default(),
            qpn_m: Default::default(),
            m_axis: Default::default(),
            c_seen: Default::default(),
            c_cap: Default::default(),
            c_filt: Default::default(),
            c_full: Default::default(),
            kc: Default::default(),
            _dir: dir,
        }
    }
}

impl<const A: usize, const M: usize> Logic for SniffTap<A, M> {
    // Verilog only (checked under Verilator): the rust-hdl model is idle.
    fn update(&mut self) {
        self.m_axis.tvalid.next = false;
    }
    fn connect(&mut self) {
        for s in [&mut self.m_axis.tdata] {
            s.connect();
        }
        self.m_axis.tkeep.connect();
        self.m_axis.tlast.connect();
        self.m_axis.tuser.connect();
        self.m_axis.tvalid.connect();
        for c in [&mut self.c_seen, &mut self.c_cap, &mut self.c_filt, &mut self.c_full] {
            c.connect();
        }
        self.kc.keep.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(tap_verilog(self._dir, A, M))
    }
}

/// `n` bytes of `w` from byte `at`, in network order (the first byte most significant).
fn be(w: &str, at: usize, n: usize) -> String {
    let parts: Vec<String> = (at..at + n).map(|i| format!("{w}[{}:{}]", 8 * i + 7, 8 * i)).collect();
    format!("{{{}}}", parts.join(", "))
}

fn tap_verilog(dir: u8, a: usize, m: usize) -> String {
    let depth = 1usize << a;
    let mdepth = 1usize << m;
    let mw = 64 + 16 + 16 + 1 + 32 + 32; // ts, orig, cap, bad, drops, seq
    let mut v = String::new();
    // stage 0: register the tapped beat; the frame's timestamp and enable ride with every beat
    v += "reg [511:0] d0;\nreg [63:0] k0;\nreg l0, u0, v0, f0, e0, mid, e_f;\nreg [15:0] i0, idx;\nreg [63:0] t0, t_f;\n";
    v += "wire acc = tap$tvalid & tap$tready;\n";
    v += "always @(posedge clock) begin\n  v0 <= acc;\n  if (acc) begin\n    d0 <= tap$tdata;\n    k0 <= tap$tkeep;\n    l0 <= tap$tlast;\n    u0 <= tap$tuser;\n    f0 <= !mid;\n    i0 <= mid ? idx : 16'd0;\n    idx <= mid ? idx + 16'd1 : 16'd1;\n    mid <= !tap$tlast;\n    t0 <= mid ? t_f : ts;\n    e0 <= mid ? e_f : en;\n    if (!mid) begin\n      t_f <= ts;\n      e_f <= en;\n    end\n  end\n  if (reset) begin\n    v0 <= 1'b0;\n    mid <= 1'b0;\n    idx <= 16'd0;\n  end\nend\n";
    // stage 1: fields of the first beat (and the IPv6 QPN in the second), compared
    v += &format!("wire [15:0] ety = {};\nwire [7:0] vihl = d0[119:112];\n", be("d0", 12, 2));
    v += &format!("wire v4 = ety == 16'h0800 && vihl == 8'h45 && ({} & 16'h3fff) == 16'd0;\n", be("d0", 20, 2));
    v += "wire v6 = ety == 16'h86dd && vihl[7:4] == 4'h6;\n";
    v += "wire udp = (v4 && d0[191:184] == 8'd17) || (v6 && d0[167:160] == 8'd17);\n";
    v += &format!("wire [15:0] sp = v4 ? {} : {};\nwire [15:0] dp = v4 ? {} : {};\n", be("d0", 34, 2), be("d0", 54, 2), be("d0", 36, 2), be("d0", 56, 2));
    v += "wire roce = udp && dp == 16'd4791;\n";
    v += &format!("wire [7:0] opc = v4 ? {} : {};\n", be("d0", 42, 1), be("d0", 62, 1));
    v += &format!("wire [23:0] q4 = {};\nwire [23:0] q6 = {};\n", be("d0", 47, 3), be("d0", 3, 3));
    v += &format!("wire [31:0] sip = {};\nwire [31:0] dip = {};\n", be("d0", 26, 4), be("d0", 30, 4));
    v += "wire m_ip = ip_m == 32'd0 || (v4 && (((sip ^ ip_v) & ip_m) == 32'd0 || ((dip ^ ip_v) & ip_m) == 32'd0));\n";
    v += "wire m_port = port_m == 16'd0 || (udp && (((sp ^ port_v) & port_m) == 16'd0 || ((dp ^ port_v) & port_m) == 16'd0));\n";
    v += "wire m_op = op_m == 8'd0 || (roce && ((opc ^ op_v) & op_m) == 8'd0);\n";
    v += "wire need6 = qpn_m != 24'd0 && roce && v6;\n";
    v += "wire m_q4 = qpn_m == 24'd0 || need6 || (roce && v4 && ((q4 ^ qpn_v) & qpn_m) == 24'd0);\n";
    v += "always @(*) kc$keep = k0;\n";
    v += "reg [511:0] d1;\nreg l1, u1, v1, f1, e1, m1, n1, q1;\nreg [15:0] i1, sb;\nreg [6:0] nb1;\nreg [63:0] t1;\n";
    v += "always @(posedge clock) begin\n  v1 <= v0;\n  d1 <= d0;\n  l1 <= l0;\n  u1 <= u0;\n  f1 <= f0;\n  e1 <= e0;\n  i1 <= i0;\n  t1 <= t0;\n  nb1 <= kc$count;\n  m1 <= m_ip & m_port & m_op & m_q4;\n  n1 <= need6;\n  q1 <= ((q6 ^ qpn_v) & qpn_m) == 24'd0;\n  sb <= {6'd0, snap[15:6]} + {15'd0, snap[5:0] != 6'd0};\n  if (reset) v1 <= 1'b0;\nend\n";
    // stage 2: keep-or-drop, data ring writes, descriptor at the last beat
    v += &format!("(* ram_style = \"block\" *) reg [511:0] mem [0:{}];\n", depth - 1);
    v += &format!("(* ram_style = \"block\" *) reg [{}:0] meta [0:{}];\n", mw - 1, mdepth - 1);
    v += &format!("reg [{a}:0] wr, wc, rd;\nreg [{m}:0] mwp, mrp;\n");
    v += "reg fm, p6, ovf, on;\nreg [31:0] seen, capd, filt, full_n, drops;\n";
    v += "wire fm_c = f1 ? m1 : (p6 && i1 == 16'd1) ? (fm & q1) : fm;\n";
    v += "wire p6_c = f1 & n1;\n";
    v += "wire on_c = f1 ? e1 : on;\n";
    v += &format!("wire ring_full = (wr - rd) == {}'d{depth};\n", a + 1);
    // a frame of 1024 beats or more has no 16-bit length: dropped as if it did not fit; a
    // last beat without bytes is not written (the length does not count it)
    v += "wire huge = i1[15:10] != 6'd0;\n";
    v += "wire want = v1 && on_c && fm_c && i1 < sb && !(l1 && nb1 == 7'd0);\n";
    v += "wire ovf_c = (f1 ? 1'b0 : ovf) | (want & ring_full) | (v1 & huge);\n";
    v += "wire wr_do = want && !ovf_c;\n";
    v += &format!("wire [{a}:0] wr_n = wr_do ? wr + {}'d1 : wr;\n", a + 1);
    v += "wire fm_fin = fm_c && !p6_c;\n";
    v += "wire [15:0] olen = {i1[9:0], 6'd0} + {9'd0, nb1};\n";
    v += "wire [15:0] clen = (olen < snap) ? olen : snap;\n";
    v += &format!("wire mroom = (mwp - mrp) != {}'d{mdepth};\n", m + 1);
    v += "wire fin = v1 && l1;\n";
    v += "wire commit = fin && on_c && fm_fin && !ovf_c && mroom;\n";
    v += "wire lost = fin && on_c && fm_fin && !(!ovf_c && mroom);\n";
    v += "always @(posedge clock) begin\n";
    v += &format!("  if (wr_do) mem[wr[{}:0]] <= d1;\n", a - 1);
    v += &format!("  if (commit) meta[mwp[{}:0]] <= {{seen, drops, u1, clen, olen, t1}};\n", m - 1);
    v += "  if (v1) begin\n    fm <= fm_c;\n    p6 <= p6_c;\n    ovf <= ovf_c;\n    on <= on_c;\n  end\n";
    v += "  wr <= fin ? (commit ? wr_n : wc) : wr_n;\n";
    v += "  if (commit) begin\n    wc <= wr_n;\n    mwp <= mwp + 1'b1;\n    capd <= capd + 32'd1;\n    drops <= 32'd0;\n  end\n";
    v += "  if (lost) begin\n    full_n <= full_n + 32'd1;\n    drops <= drops + 32'd1;\n  end\n";
    v += "  if (fin) seen <= seen + 32'd1;\n";
    v += "  if (fin && on_c && !fm_fin) filt <= filt + 32'd1;\n";
    v += &format!("  if (reset) begin\n    wr <= {n}'d0;\n    wc <= {n}'d0;\n    mwp <= {mn}'d0;\n    seen <= 32'd0;\n    capd <= 32'd0;\n    filt <= 32'd0;\n    full_n <= 32'd0;\n    drops <= 32'd0;\n  end\nend\n", n = a + 1, mn = m + 1);
    // reader: descriptor, then the record's words, into a 4-entry output queue. The next
    // descriptor is fetched ahead (`mq`), so a record follows the last with no idle cycle: each
    // cycle issues one word (the descriptor from `mq`, or a data word from the ring), which
    // reaches the queue the next cycle.
    v += "reg [1:0] st;\nreg [15:0] rem;\nreg infl, infl_hdr, infl_last, mqv;\nreg [511:0] dq, dd;\n";
    v += &format!("reg [{}:0] mq;\n", mw - 1);
    v += "reg [511:0] q0, q1w, q2, q3;\nreg [3:0] ql;\nreg [1:0] qh, qt;\nreg [2:0] qn;\n";
    v += "wire pop = (qn != 3'd0) & m_axis$tready;\n";
    v += "wire room = ({1'b0, qn} + {3'd0, infl}) < 4'd4;\n";
    v += "wire take_hdr = st == 2'd0 && mqv && room;\n";
    v += "wire issue_dat = st == 2'd2 && room;\n";
    v += "wire fetch = (!mqv || take_hdr) && mrp != mwp;\n";
    v += "wire [15:0] m_clen = mq[95:80];\n";
    v += "wire [15:0] nw = {6'd0, m_clen[15:6]} + {15'd0, m_clen[5:0] != 6'd0};\n";
    v += &format!(
        "wire [511:0] desc = {{288'd0, 32'h31464e53, mq[{s1}:{s0}], mq[{d1}:{d0}], 16'd0, 7'd0, mq[96], 8'd{dir}, mq[95:0]}};\n",
        s1 = mw - 1,
        s0 = mw - 32,
        d1 = mw - 33,
        d0 = mw - 64
    );
    v += "wire push = infl;\n";
    v += "wire [511:0] pw = infl_hdr ? dd : dq;\n";
    v += "wire pl = infl_last;\n";
    v += "always @(posedge clock) begin\n";
    v += &format!("  if (issue_dat) dq <= mem[rd[{}:0]];\n", a - 1);
    v += &format!("  if (fetch) mq <= meta[mrp[{}:0]];\n", m - 1);
    v += "  if (fetch) mrp <= mrp + 1'b1;\n";
    v += "  mqv <= fetch | (mqv & !take_hdr);\n";
    v += "  infl <= take_hdr | issue_dat;\n  infl_hdr <= take_hdr;\n";
    v += "  if (take_hdr) begin\n    dd <= desc;\n    infl_last <= nw == 16'd0;\n    rem <= nw;\n    st <= (nw == 16'd0) ? 2'd0 : 2'd2;\n  end\n";
    v += "  if (issue_dat) begin\n    infl_last <= rem == 16'd1;\n    rd <= rd + 1'b1;\n    rem <= rem - 16'd1;\n    if (rem == 16'd1) st <= 2'd0;\n  end\n";
    v += "  if (push) begin\n    case (qt)\n      2'd0: q0 <= pw;\n      2'd1: q1w <= pw;\n      2'd2: q2 <= pw;\n      default: q3 <= pw;\n    endcase\n    ql[qt] <= pl;\n    qt <= qt + 2'd1;\n  end\n";
    v += "  if (pop) qh <= qh + 2'd1;\n";
    v += "  qn <= qn + {2'd0, push} - {2'd0, pop};\n";
    v += &format!("  if (reset) begin\n    st <= 2'd0;\n    infl <= 1'b0;\n    mqv <= 1'b0;\n    rd <= {}'d0;\n    mrp <= {}'d0;\n    qh <= 2'd0;\n    qt <= 2'd0;\n    qn <= 3'd0;\n  end\nend\n", a + 1, m + 1);
    v += "always @(*) begin\n  case (qh)\n    2'd0: m_axis$tdata = q0;\n    2'd1: m_axis$tdata = q1w;\n    2'd2: m_axis$tdata = q2;\n    default: m_axis$tdata = q3;\n  endcase\n";
    v += "  m_axis$tlast = ql[qh];\n  m_axis$tkeep = {64{1'b1}};\n  m_axis$tuser = 1'b0;\n  m_axis$tvalid = qn != 3'd0;\n";
    v += "  c_seen = seen;\n  c_cap = capd;\n  c_filt = filt;\n  c_full = full_n;\nend\n";
    v
}

/// The sniffer: two taps, their record streams merged frame by frame, and the AXI4-Lite
/// register window ([`reg`]). `A`: data ring address bits per direction; `M`: descriptor queue
/// address bits.
#[derive(LogicBlock)]
pub struct Sniffer<const A: usize, const M: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<16>,
    /// The MAC's RX stream (the CMAC has no `tready`: tie it high) and TX stream.
    pub tap_rx: Axis512Tap,
    pub tap_tx: Axis512Tap,
    /// Capture records (descriptor word, then data words; `tlast` on a record's last word).
    pub m_axis_cap: Axis512Source,
    bridge: AxilBridge,
    rx: SniffTap<A, M>,
    tx: SniffTap<A, M>,
    arb: AxisArb4,
    /// The configuration registers, in [`reg`] order from `CTRL` to `QPN_MASK`.
    cfg: [DFF<Bits<32>>; CFG_REGS],
    ts: DFF<Bits<64>>,
    ts_hi: DFF<Bits<32>>,
    rdata: DFF<Bits<32>>,
    rerr: DFF<Bit>,
    ns: Constant<Bits<64>>,
    snap_reset: Constant<Bits<32>>,
    a_cfg: [Constant<Bits<16>>; CFG_REGS],
    a_ts: [Constant<Bits<16>>; 2],
    a_cnt: [Constant<Bits<16>>; 8],
    z512: Constant<Bits<512>>,
    z64: Constant<Bits<64>>,
    z32: Constant<Bits<32>>,
    cnt: [Signal<Local, Bits<32>>; 8],
    unused_strb: Signal<Local, Bits<4>>,
    unused_arb: Signal<Local, Bit>,
    unused_cfg: Signal<Local, Bit>,
}

/// Configuration registers: `CTRL` to `QPN_MASK`, one word apart.
const CFG_REGS: usize = 8;

impl<const A: usize, const M: usize> Default for Sniffer<A, M> {
    fn default() -> Self {
        let cnt: Vec<u16> = [reg::RX_COUNTERS, reg::TX_COUNTERS].iter().flat_map(|b| (0..4).map(move |i| b + 4 * i)).collect();
        Sniffer {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            tap_rx: Default::default(),
            tap_tx: Default::default(),
            m_axis_cap: Default::default(),
            bridge: Default::default(),
            rx: SniffTap::new(nicgen_model::sniff::DIR_RX),
            tx: SniffTap::new(nicgen_model::sniff::DIR_TX),
            arb: AxisArb4::new(false),
            cfg: Default::default(),
            ts: Default::default(),
            ts_hi: Default::default(),
            rdata: Default::default(),
            rerr: Default::default(),
            ns: Constant::new(NS_PER_CYCLE.into()),
            snap_reset: Constant::new(0xffffu64.into()),
            a_cfg: std::array::from_fn(|i| Constant::new((reg::CTRL as u64 + 4 * i as u64).into())),
            a_ts: [Constant::new((reg::TS_LO as u64).into()), Constant::new((reg::TS_HI as u64).into())],
            a_cnt: std::array::from_fn(|i| Constant::new((cnt[i] as u64).into())),
            z512: Constant::new(0u64.into()),
            z64: Constant::new(0u64.into()),
            z32: Constant::new(0u64.into()),
            cnt: Default::default(),
            unused_strb: Default::default(),
            unused_arb: Default::default(),
            unused_cfg: Default::default(),
        }
    }
}

impl<const A: usize, const M: usize> Logic for Sniffer<A, M> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ts, ts_hi, rdata, rerr);
        for i in 0..CFG_REGS {
            self.cfg[i].clock.next = self.clock.val();
            self.cfg[i].d.next = self.cfg[i].q.val();
        }
        clock!(self, clock, bridge, rx, tx, arb);
        self.bridge.reset.next = self.reset.val();
        self.rx.reset.next = self.reset.val();
        self.tx.reset.next = self.reset.val();
        self.arb.reset.next = self.reset.val();
        AxilSlave16::link(&mut self.s_axil, &mut self.bridge.s_axil);
        Axis512Tap::link(&mut self.tap_rx, &mut self.rx.tap);
        Axis512Tap::link(&mut self.tap_tx, &mut self.tx.tap);
        Axis512Source::join(&mut self.rx.m_axis, &mut self.arb.s0_axis);
        Axis512Source::join(&mut self.tx.m_axis, &mut self.arb.s1_axis);
        Axis512Source::link(&mut self.m_axis_cap, &mut self.arb.m_axis);
        self.arb.s2_axis.tvalid.next = false;
        self.arb.s2_axis.tdata.next = self.z512.val();
        self.arb.s2_axis.tkeep.next = self.z64.val();
        self.arb.s2_axis.tlast.next = false;
        self.arb.s2_axis.tuser.next = false;
        self.arb.s3_axis.tvalid.next = false;
        self.arb.s3_axis.tdata.next = self.z512.val();
        self.arb.s3_axis.tkeep.next = self.z64.val();
        self.arb.s3_axis.tlast.next = false;
        self.arb.s3_axis.tuser.next = false;
        self.unused_arb.next = self.arb.s2_axis.tready.val() | self.arb.s3_axis.tready.val() | self.arb.grant.val().any();
        // the nanosecond clock
        self.ts.d.next = self.ts.q.val() + self.ns.val();
        // configuration, shared by both taps (register order: reg::CTRL .. reg::QPN_MASK)
        self.rx.en.next = self.cfg[0].q.val().get_bit(0);
        self.tx.en.next = self.cfg[0].q.val().get_bit(1);
        self.rx.ts.next = self.ts.q.val();
        self.tx.ts.next = self.ts.q.val();
        self.rx.snap.next = self.cfg[1].q.val().get_bits::<16>(0);
        self.tx.snap.next = self.cfg[1].q.val().get_bits::<16>(0);
        self.rx.ip_v.next = self.cfg[2].q.val();
        self.tx.ip_v.next = self.cfg[2].q.val();
        self.rx.ip_m.next = self.cfg[3].q.val();
        self.tx.ip_m.next = self.cfg[3].q.val();
        self.rx.port_v.next = self.cfg[4].q.val().get_bits::<16>(0);
        self.tx.port_v.next = self.cfg[4].q.val().get_bits::<16>(0);
        self.rx.port_m.next = self.cfg[4].q.val().get_bits::<16>(16);
        self.tx.port_m.next = self.cfg[4].q.val().get_bits::<16>(16);
        self.rx.op_v.next = self.cfg[5].q.val().get_bits::<8>(0);
        self.tx.op_v.next = self.cfg[5].q.val().get_bits::<8>(0);
        self.rx.op_m.next = self.cfg[5].q.val().get_bits::<8>(8);
        self.tx.op_m.next = self.cfg[5].q.val().get_bits::<8>(8);
        self.rx.qpn_v.next = self.cfg[6].q.val().get_bits::<24>(0);
        self.tx.qpn_v.next = self.cfg[6].q.val().get_bits::<24>(0);
        self.rx.qpn_m.next = self.cfg[7].q.val().get_bits::<24>(0);
        self.tx.qpn_m.next = self.cfg[7].q.val().get_bits::<24>(0);
        self.unused_cfg.next = self.cfg[0].q.val().get_bits::<30>(2).any()
            | self.cfg[1].q.val().get_bits::<16>(16).any()
            | self.cfg[5].q.val().get_bits::<16>(16).any()
            | self.cfg[6].q.val().get_bits::<8>(24).any()
            | self.cfg[7].q.val().get_bits::<8>(24).any();
        // writes: the configuration registers; anything else is refused
        self.bridge.wr_err.next = true;
        for i in 0..CFG_REGS {
            if self.bridge.wr_addr.val() == self.a_cfg[i].val() {
                self.bridge.wr_err.next = false;
                if self.bridge.wr_en.val() {
                    self.cfg[i].d.next = self.bridge.wr_data.val();
                }
            }
        }
        // every register is a whole word: the byte strobes are not used
        self.unused_strb.next = self.bridge.wr_strb.val();
        // reads, answered the next cycle
        self.cnt[0].next = self.rx.c_seen.val();
        self.cnt[1].next = self.rx.c_cap.val();
        self.cnt[2].next = self.rx.c_filt.val();
        self.cnt[3].next = self.rx.c_full.val();
        self.cnt[4].next = self.tx.c_seen.val();
        self.cnt[5].next = self.tx.c_cap.val();
        self.cnt[6].next = self.tx.c_filt.val();
        self.cnt[7].next = self.tx.c_full.val();
        if self.bridge.rd_en.val() {
            self.rdata.d.next = self.z32.val();
            self.rerr.d.next = true;
            for i in 0..CFG_REGS {
                if self.bridge.rd_addr.val() == self.a_cfg[i].val() {
                    self.rdata.d.next = self.cfg[i].q.val();
                    self.rerr.d.next = false;
                }
            }
            for i in 0..8 {
                if self.bridge.rd_addr.val() == self.a_cnt[i].val() {
                    self.rdata.d.next = self.cnt[i].val();
                    self.rerr.d.next = false;
                }
            }
            if self.bridge.rd_addr.val() == self.a_ts[0].val() {
                self.rdata.d.next = self.ts.q.val().get_bits::<32>(0);
                self.ts_hi.d.next = self.ts.q.val().get_bits::<32>(32);
                self.rerr.d.next = false;
            }
            if self.bridge.rd_addr.val() == self.a_ts[1].val() {
                self.rdata.d.next = self.ts_hi.q.val();
                self.rerr.d.next = false;
            }
        }
        self.bridge.rd_data.next = self.rdata.q.val();
        self.bridge.rd_err.next = self.rerr.q.val();
        if self.reset.val() {
            for i in 0..CFG_REGS {
                self.cfg[i].d.next = self.z32.val();
            }
            self.cfg[1].d.next = self.snap_reset.val();
            self.ts.d.next = self.z64.val();
        }
    }
}

/// The sniffer with 512-word data rings (32 KiB per direction: three jumbo frames, or 256
/// header-only records) and 512-entry descriptor queues.
pub type Sniffer512 = Sniffer<9, 9>;

nicgen_hdl::impl_ports!(Sniffer512, clock = clock, [clock, reset,
    s_axil.awaddr, s_axil.awvalid, s_axil.awready, s_axil.wdata, s_axil.wstrb, s_axil.wvalid, s_axil.wready,
    s_axil.bresp, s_axil.bvalid, s_axil.bready, s_axil.araddr, s_axil.arvalid, s_axil.arready,
    s_axil.rdata, s_axil.rresp, s_axil.rvalid, s_axil.rready,
    tap_rx.tdata, tap_rx.tkeep, tap_rx.tlast, tap_rx.tuser, tap_rx.tvalid, tap_rx.tready,
    tap_tx.tdata, tap_tx.tkeep, tap_tx.tlast, tap_tx.tuser, tap_tx.tvalid, tap_tx.tready,
    m_axis_cap.tdata, m_axis_cap.tkeep, m_axis_cap.tlast, m_axis_cap.tuser, m_axis_cap.tvalid, m_axis_cap.tready]);
