//! `M2mEndpoint` (top `m2m_endpoint`): receives M2M messages, checks them, relays the ones for
//! other EMs, applies the ones for this EM by epoch, and answers. The host's window beside it
//! reaches device registers only.
//!
//! ```text
//! s_axis_up ─► message buffer (BRAM, 512 × 64) ─► checks ─► target ≠ em_id ─► m_axis_down (unchanged)
//!                                                   │ this EM: epoch per class
//!                                                   ├─ profile, CC ─► registers (cfg, nat, profile, cc)
//!                                                   ├─ table batch ─► m_tw (shadow bank) ─► m_swap ─► wait !s_busy ─► m_tw again
//!                                                   └─ telemetry read ─► counters
//! s_ev (table misses) ─► event messages ─┐
//! acks and replies ──────────────────────┴─┬─► m_axis_reply
//! s_axis_ret ───────┘   (downstream EMs' replies, merged a message at a time)
//! s_axil_host ─► ID, em_id, status, scratch; every other access SLVERR and counted
//! ```
//!
//! - **Store and forward.** A message is buffered whole before anything acts on it, so a
//!   truncated or malformed one changes nothing. `s_axis_up_tready` is low while a message is
//!   handled (the M2M channel takes backpressure). A message longer than the buffer is read to its
//!   end and dropped.
//! - **Checks,** in the order of `nicgen_model::m2m::Msg::decode`; a failed one drops the message
//!   and counts its cause (`Ctr`). A last beat with `tuser` set (the sender aborted) counts as
//!   truncated.
//! - **Epochs.** Per class with state (profile, CC, tables): older than stored → ack `stale` with
//!   the stored epoch; equal → ack `equal`, nothing changes; newer → apply, store, ack `applied`.
//!   64-bit serial arithmetic: newer when `epoch - stored` is in 1..2^63.
//! - **Atomic batches.** The datapath's tables have two banks; each frame reads one bank
//!   throughout. A batch is written to the shadow bank (`m_tw`, one write per cycle, the EM takes
//!   one every cycle), then `m_swap` makes it live at once. When no frame still reads the old
//!   bank (`s_busy` low), the batch is written again into the new shadow, so both banks agree and
//!   the next batch starts from the live tables. The stored epoch advances at the swap.
//! - **Events.** A table miss from the datapath (`s_ev`) leaves as an event message (type 5) on
//!   `m_axis_reply`, numbered by `seq`, when no message is being received; it waits otherwise
//!   (the datapath's one-deep event register counts what it cannot hand on).
//! - **Relay.** A message for another EM leaves on `m_axis_down` byte for byte, epoch included.
//!   Replies from downstream EMs (`s_axis_ret`) merge into `m_axis_reply` between whole messages.
//! - **Host window** (`s_axil_host`, the tenant-reachable BAR). It decodes four device registers
//!   and nothing else; no wire from it reaches the message path, the epochs or the table port.
//!   Every other read or write answers SLVERR, changes nothing and is counted.
use super::{Axis64Sink, Axis64Source};
use crate::axil::AxilSlave;
use crate::em::classify::{EmEvent, EmEventFields, EmTblWr, EmTblWrFields};
use crate::em::front::{EmCfg, EmCfgFields};
use crate::em::{be_get, be_put, vfield};
use nicgen_model::m2m::*;
use rust_hdl::prelude::*;

/// Host window registers (byte offsets).
pub const HOST_ID: u32 = 0x4E49_4345; // "NICE"
pub const HOST_REG_ID: u32 = 0x000;
pub const HOST_REG_EM_ID: u32 = 0x004;
pub const HOST_REG_STATUS: u32 = 0x008;
pub const HOST_REG_SCRATCH: u32 = 0x00C;
/// Message buffer words (address bits).
pub const MBUF_BITS: usize = 9;

#[derive(LogicBlock)]
pub struct M2mEndpoint {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// This EM's number (a strap).
    pub em_id: Signal<In, Bits<8>>,
    pub s_axis_up: Axis64Sink,
    pub m_axis_down: Axis64Source,
    pub m_axis_reply: Axis64Source,
    pub s_axis_ret: Axis64Sink,
    /// Table writes into the EM's shadow bank; the EM takes one every cycle.
    pub m_tw: Signal<Out, EmTblWr>,
    pub m_tw_valid: Signal<Out, Bit>,
    /// One cycle: the shadow bank becomes live.
    pub m_swap: Signal<Out, Bit>,
    /// The EM still has frames that read the bank that was live before the last swap.
    pub s_busy: Signal<In, Bit>,
    /// Table read-back from the EM's live bank (`table`, `index`, `dest` of `m_rb`); the EM
    /// answers `{d1, d0}` on `s_rb` with `s_rb_valid`.
    pub m_rb: Signal<Out, EmTblWr>,
    pub m_rb_valid: Signal<Out, Bit>,
    pub s_rb: Signal<In, EmTblWr>,
    pub s_rb_valid: Signal<In, Bit>,
    /// From the device profile.
    pub cfg: Signal<Out, EmCfg>,
    pub nat: Signal<Out, Bit>,
    /// The profile and CC policy bodies as received (byte 0 in bits 7:0).
    pub profile: Signal<Out, Bits<256>>,
    pub cc: Signal<Out, Bits<256>>,
    /// The datapath's counters, telemetry 16..32.
    pub dp_ctr: [Signal<In, Bits<32>>; 16],
    /// Table misses from the datapath, sent to the OM as event messages.
    pub s_ev: Signal<In, EmEvent>,
    pub s_ev_valid: Signal<In, Bit>,
    pub s_ev_ready: Signal<Out, Bit>,
    /// The host's view of the device (the window's `STATUS`).
    pub dev_status: Signal<In, Bits<32>>,
    pub s_axil_host: AxilSlave<32>,
}

impl Default for M2mEndpoint {
    fn default() -> Self {
        M2mEndpoint {
            clock: Default::default(),
            reset: Default::default(),
            em_id: Default::default(),
            s_axis_up: Default::default(),
            m_axis_down: Default::default(),
            m_axis_reply: Default::default(),
            s_axis_ret: Default::default(),
            m_tw: Default::default(),
            m_tw_valid: Default::default(),
            m_swap: Default::default(),
            s_busy: Default::default(),
            m_rb: Default::default(),
            m_rb_valid: Default::default(),
            s_rb: Default::default(),
            s_rb_valid: Default::default(),
            cfg: Default::default(),
            nat: Default::default(),
            profile: Default::default(),
            cc: Default::default(),
            dp_ctr: std::array::from_fn(|_| Default::default()),
            s_ev: Default::default(),
            s_ev_valid: Default::default(),
            s_ev_ready: Default::default(),
            dev_status: Default::default(),
            s_axil_host: Default::default(),
        }
    }
}

impl Logic for M2mEndpoint {
    fn update(&mut self) {}
    fn connect(&mut self) {
        for s in [&mut self.m_axis_down, &mut self.m_axis_reply] {
            s.tdata.connect();
            s.tkeep.connect();
            s.tlast.connect();
            s.tuser.connect();
            s.tvalid.connect();
        }
        self.s_axis_up.tready.connect();
        self.s_axis_ret.tready.connect();
        self.m_tw.connect();
        self.m_tw_valid.connect();
        self.m_swap.connect();
        self.s_ev_ready.connect();
        self.m_rb.connect();
        self.m_rb_valid.connect();
        self.cfg.connect();
        self.nat.connect();
        self.profile.connect();
        self.cc.connect();
        let h = &mut self.s_axil_host;
        h.awready.connect();
        h.wready.connect();
        h.bresp.connect();
        h.bvalid.connect();
        h.arready.connect();
        h.rdata.connect();
        h.rresp.connect();
        h.rvalid.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(endpoint_verilog())
    }
}

const S_RX: u8 = 0;
const S_DEC: u8 = 1;
const S_W: u8 = 2;
const S_SWAP: u8 = 3;
const S_DRAIN: u8 = 4;
const S_REPLY: u8 = 5;
const S_RELAY: u8 = 6;
/// A table read: the reply's header, then per entry: read the request word, ask the datapath,
/// wait for the answer, send the entry.
const S_RBH: u8 = 7;
const S_RBQ: u8 = 8;
const S_RBI: u8 = 9;
const S_RBW: u8 = 10;
const S_RBE: u8 = 11;
/// A whole message is in: its checks (the drop cause, the epoch compare, the target) and its
/// capped entry count are registered here, and S_DEC and the states after act on the
/// registers (the checks and the actions in one cycle were 9 LUT levels: the class's epoch
/// pick, a 64-bit subtract and its zero test in series).
const S_CHK: u8 = 12;

/// A 4-entry FIFO of `{tlast, tdata}` words, `<n>_push`/`<n>_in` in, `<n>_pop` out (clocked
/// part; the caller drives push, in and pop).
fn word_fifo(n: &str) -> String {
    format!(
        "reg [64:0] {n}_m [0:3];\nreg [1:0] {n}_rp, {n}_wp;\nreg [2:0] {n}_cnt;\nwire {n}_push;\nwire [64:0] {n}_in;\nwire {n}_pop;\nwire [64:0] {n}_head = {n}_m[{n}_rp];\n\
         always @(posedge clock) begin\n  if ({n}_push) begin\n    {n}_m[{n}_wp] <= {n}_in;\n    {n}_wp <= {n}_wp + 2'd1;\n  end\n  if ({n}_pop) {n}_rp <= {n}_rp + 2'd1;\n  {n}_cnt <= {n}_cnt + {{2'd0, {n}_push}} - {{2'd0, {n}_pop}};\n  if (reset) begin\n    {n}_rp <= 2'd0;\n    {n}_wp <= 2'd0;\n    {n}_cnt <= 3'd0;\n  end\nend\n"
    )
}

/// The counters the state machine keeps as `c<i>` (the host window keeps the two refusals).
fn own_ctrs() -> impl Iterator<Item = usize> {
    (0..16).filter(|&i| i != Ctr::HostReadRefused as usize && i != Ctr::HostWriteRefused as usize)
}

fn endpoint_verilog() -> String {
    let hdr = |o: usize, n: usize| be_get("hdr", o, n);
    let mut v = String::new();
    v += &format!("localparam [3:0] S_RX = 4'd{S_RX}, S_DEC = 4'd{S_DEC}, S_W = 4'd{S_W}, S_SWAP = 4'd{S_SWAP}, S_DRAIN = 4'd{S_DRAIN}, S_REPLY = 4'd{S_REPLY}, S_RELAY = 4'd{S_RELAY};\n");
    v += &format!("localparam [3:0] S_RBH = 4'd{S_RBH}, S_RBQ = 4'd{S_RBQ}, S_RBI = 4'd{S_RBI}, S_RBW = 4'd{S_RBW}, S_RBE = 4'd{S_RBE}, S_CHK = 4'd{S_CHK};\n");
    v += "reg [2:0] cause_q;\nreg ep_zero_q, ep_neg_q, other_q;\n";
    // the entry count (capped) and its last index, registered in S_CHK for the states after
    v += "reg [6:0] cnt_q, cnt_lq;\n";
    v += "reg [3:0] st;\nreg m_tw_valid_r, m_swap_r, m_rb_valid_r;\n";
    // ---- the message buffer: written by RX, read by the write passes and the relay
    let mw = 1usize << MBUF_BITS;
    v += &format!("(* ram_style = \"block\" *) reg [63:0] mbuf [0:{}];\n", mw - 1);
    v += &format!("reg [{m}:0] ra;\nreg [63:0] rq;\nwire rd_en;\nwire mb_we;\nwire [{m}:0] mb_wa;\n", m = MBUF_BITS - 1);
    v += "always @(posedge clock) begin\n  if (mb_we) mbuf[mb_wa] <= s_axis_up$tdata;\n  if (rd_en) rq <= mbuf[ra];\nend\n";
    // ---- RX
    v += "reg [15:0] wcnt;\nreg [255:0] hdr;\nreg [255:0] body;\nreg bad_ent;\nreg [2:0] epos;\nreg [3:0] lastn;\nreg aborted;\n";
    v += "wire up_go = s_axis_up$tvalid & s_axis_up$tready;\n";
    v += &format!("assign mb_we = up_go & (wcnt < 16'd{mw});\nassign mb_wa = wcnt[{}:0];\n", MBUF_BITS - 1);
    v += "integer k;\nreg [3:0] keep_n;\nalways @(*) begin\n  keep_n = 4'd0;\n  for (k = 0; k < 8; k = k + 1) keep_n = keep_n + {3'd0, s_axis_up$tkeep[k]};\nend\n";
    // ---- header fields
    v += &format!("wire [7:0] m_ver = hdr[7:0];\nwire [7:0] m_ty = hdr[15:8];\nwire [7:0] m_target = hdr[23:16];\nwire [7:0] m_class = hdr[31:24];\nwire [15:0] m_len = {};\nwire [63:0] m_epoch = {};\nwire [31:0] m_seq = {};\nwire [31:0] m_count = {};\n", hdr(4, 2), hdr(8, 8), hdr(16, 4), hdr(20, 4));
    v += &format!("wire unused_hdr = ^{} ^ ^{};\n", hdr(6, 2), hdr(24, 8));
    v += &format!("wire [15:0] t_start = {};\nwire [15:0] t_count = {};\nwire unused_tb = ^body[255:32];\n", be_get("body", 0, 2), be_get("body", 2, 2));
    // a counter read's range end, worked out as the body's first word comes in (`t_over`, so
    // S_CHK's cause chain starts from a register: LUT depth)
    v += &format!("wire [16:0] t_end_in = {{1'b0, {}}} + {{1'b0, {}}};\nreg t_over;\n", be_get("s_axis_up$tdata", 0, 2), be_get("s_axis_up$tdata", 2, 2));
    // ---- the checks (Msg::decode's order)
    v += "wire [18:0] nbytes = {wcnt - 16'd1, 3'd0} + {15'd0, lastn};\n";
    v += "wire [6:0] cnt_c = (m_count > 32'd65) ? 7'd65 : m_count[6:0];\n";
    v += "wire [15:0] need_tab = 16'd32 + {6'd0, cnt_c, 3'd0} * 16'd5;\n";
    v += "wire is_push = m_ty == 8'd1;\nwire is_read = m_ty == 8'd2;\n";
    v += "wire class_ok = is_push ? (m_class >= 8'd1 && m_class <= 8'd3) : (m_class == 8'd4 || m_class == 8'd3);\n";
    v += "wire [15:0] need_rd = 16'd32 + {6'd0, cnt_c, 3'd0};\n";
    v += &format!("wire [15:0] need = (m_class == 8'd3) ? (is_read ? need_rd : need_tab) : (m_class == 8'd4) ? 16'd{} : 16'd{};\n", HDR_BYTES + TELE_READ_BYTES, HDR_BYTES + BODY_BYTES);
    v += &format!("wire ent_bad = (m_class == 8'd3) ? (m_count == 32'd0 || (is_push && bad_ent)) : (m_class == 8'd4) ? (t_count == 16'd0 || t_over || m_count != {{16'd0, t_count}}) : 1'b0;\n");
    v += &format!(
        "wire [2:0] cause = (aborted || nbytes < 19'd32) ? 3'd{tr} : (m_ver != 8'd{VERSION}) ? 3'd{bv} : (nbytes < {{3'd0, m_len}}) ? 3'd{tr} : (nbytes > {{3'd0, m_len}} || m_len[2:0] != 3'd0 || m_len > 16'd{MAX_BYTES}) ? 3'd{bl} : !(is_push | is_read) ? 3'd{ut} : !class_ok ? 3'd{uc} : (m_len != need) ? 3'd{bl} : ent_bad ? 3'd{be} : 3'd0;\n",
        tr = M2mDrop::Truncated as u8, bv = M2mDrop::BadVersion as u8, bl = M2mDrop::BadLength as u8, ut = M2mDrop::UnknownType as u8, uc = M2mDrop::UnknownClass as u8, be = M2mDrop::BadEntry as u8
    );
    // ---- state
    v += "reg [63:0] ep_prof, ep_cc, ep_tab;\nreg [255:0] r_prof, r_cc;\n";
    v += "wire [63:0] ep_cur = (m_class == 8'd1) ? ep_prof : (m_class == 8'd2) ? ep_cc : ep_tab;\n";
    // the epoch compare against each class's epoch side by side, the class's result picked after
    // (not the pick, a 64-bit subtract and its zero test in series)
    v += "wire [63:0] ep_dp = m_epoch - ep_prof;\nwire [63:0] ep_dc = m_epoch - ep_cc;\nwire [63:0] ep_dt = m_epoch - ep_tab;\n";
    v += "wire ep_eq = (m_class == 8'd1) ? (m_epoch == ep_prof) : (m_class == 8'd2) ? (m_epoch == ep_cc) : (m_epoch == ep_tab);\n";
    v += "wire ep_lt = (m_class == 8'd1) ? ep_dp[63] : (m_class == 8'd2) ? ep_dc[63] : ep_dt[63];\n";
    v += "wire unused_ep = ^{ep_dp[62:0], ep_dc[62:0], ep_dt[62:0]};\n";
    for i in own_ctrs() {
        v += &format!("reg [31:0] c{i};\n");
    }
    // the reply's fields, and its header as bytes
    v += &format!("reg r_ev;\nreg [31:0] ev_seq;\nreg [{}:0] ev_q;\n", EmEventFields::BITS - 1);
    v += &format!("wire ev_take = (st == S_RX) && !up_go && (wcnt == 16'd0) && s_ev_valid;\nalways @(*) s_ev_ready = ev_take;\n");
    // the event body (EventMsg): 0 kind, 2-3 tenant, 4-7 value, 8-11 src, 12-15 dst, 16 proto, 18-19 sport, 20-21 dport
    let ef = |f: &str| vfield("ev_q", EmEventFields::slot(f));
    v += &format!("wire [11:0] ev_ten = {};\n", ef("tenant"));
    for (f, w) in [("value", 32), ("src", 32), ("dst", 32), ("proto", 8), ("sport", 16), ("dport", 16)] {
        v += &format!("wire [{}:0] ev_{f} = {};\n", w - 1, ef(f));
    }
    v += "reg [191:0] evb;\nalways @(*) begin\n  evb = 192'd0;\n";
    v += &format!("  evb[2:0] = {};\n", ef("kind"));
    v += "  evb[19:16] = ev_ten[11:8];\n  evb[31:24] = ev_ten[7:0];\n";
    for (o, n, f) in [(4, 4, "value"), (8, 4, "src"), (12, 4, "dst"), (16, 1, "proto"), (18, 2, "sport"), (20, 2, "dport")] {
        v += &be_put("evb", o, n, &format!("ev_{f}"));
    }
    v += "end\n";
    v += "reg [7:0] r_ty, r_class;\nreg [15:0] r_len, r_status;\nreg [63:0] r_epoch, r_stored;\nreg [31:0] r_seq, r_count;\nreg [7:0] r_em;\n";
    v += "reg [255:0] rh;\nalways @(*) begin\n  rh = 256'd0;\n";
    v += &format!("  rh[7:0] = 8'd{VERSION};\n  rh[15:8] = r_ty;\n  rh[23:16] = r_em;\n  rh[31:24] = r_class;\n");
    for (o, n, f) in [(4, 2, "r_len"), (6, 2, "r_status"), (8, 8, "r_epoch"), (16, 4, "r_seq"), (20, 4, "r_count"), (24, 8, "r_stored")] {
        v += &be_put("rh", o, n, f);
    }
    v += "end\n";
    // ---- write passes and relay: reads of the buffer
    v += &format!("reg [{m}:0] rleft;\nreg rv, rl;\nreg pass;\nreg [319:0] ent;\nreg [2:0] ecnt;\nreg [1:0] dwait;\n", m = MBUF_BITS);
    v += "wire [319:0] ent_n = {rq, ent[319:64]};\n";
    v += &word_fifo("df");
    v += &word_fifo("of");
    v += "wire relay_issue = (st == S_RELAY) && (rleft != 10'd0) && ({1'b0, df_cnt} + {3'd0, rv} < 4'd4);\n";
    v += "wire w_issue = (st == S_W) && (rleft != 10'd0);\n";
    v += "assign rd_en = relay_issue | w_issue | (st == S_RBQ);\n";
    v += "assign df_push = rv & (st == S_RELAY);\nassign df_in = {rl, rq};\n";
    // reply generation
    // `gk`: the reply word being made; `gl`: the last one's; `ti`: the counter word `gk` reads
    // (the range start + `gk` - 4, counted beside `gk`)
    v += "reg [6:0] gk;\nreg [6:0] gl;\nreg [4:0] ti;\nreg [31:0] cval;\n";
    v += "wire gen = (st == S_REPLY || st == S_RBH || st == S_RBE) && (of_cnt < 3'd4);\n";
    // a table read's reply entry: 0 op (1), 1 dest, 2 table, 4-5 index, 8-35 the data
    v += "reg [2:0] rb_dest;\nreg [1:0] rb_tab;\nreg [15:0] rb_idx;\nreg [223:0] rb_d;\nreg [6:0] rb_j;\nreg [3:0] rb_wait;\nreg [319:0] rbe;\n";
    v += "always @(*) begin\n  rbe = 320'd0;\n  rbe[7:0] = 8'd1;\n  rbe[10:8] = rb_dest;\n  rbe[17:16] = rb_tab;\n";
    v += &be_put("rbe", 4, 2, "rb_idx");
    v += &be_put("rbe", 8, 28, "rb_d");
    v += "end\n";
    v += "wire [63:0] rbe_w = (gk[2:0] == 3'd0) ? rbe[63:0] : (gk[2:0] == 3'd1) ? rbe[127:64] : (gk[2:0] == 3'd2) ? rbe[191:128] : (gk[2:0] == 3'd3) ? rbe[255:192] : rbe[319:256];\n";
    v += "assign of_push = gen;\n";
    v += "wire [63:0] rh_w = (gk[1:0] == 2'd0) ? rh[63:0] : (gk[1:0] == 2'd1) ? rh[127:64] : (gk[1:0] == 2'd2) ? rh[191:128] : rh[255:192];\n";
    v += "wire [63:0] ev_w = (gk[1:0] == 2'd0) ? evb[63:0] : (gk[1:0] == 2'd1) ? evb[127:64] : evb[191:128];\n";
    v += "wire [63:0] g_word = (gk < 7'd4) ? rh_w : r_ev ? ev_w : {cval[7:0], cval[15:8], cval[23:16], cval[31:24], 32'd0};\n";
    v += "assign of_in = (st == S_RBE) ? {gk == 7'd4 && rb_j == cnt_lq, rbe_w} : (st == S_RBH) ? {1'b0, rh_w} : {gk == gl, g_word};\n";
    v += "wire unused_gen = ^t_start[15:5];\n";
    v += &format!("wire unused_srb = ^{} ^ ^{} ^ ^{};\n", vfield("s_rb", EmTblWrFields::slot("table")), vfield("s_rb", EmTblWrFields::slot("index")), vfield("s_rb", EmTblWrFields::slot("dest")));
    // the counter mux
    v += "reg [31:0] h_rd_ref, h_wr_ref;\nalways @(*) begin\n  case (ti)\n";
    for i in 0..16 {
        let name = if i == Ctr::HostReadRefused as usize {
            "h_rd_ref".to_string()
        } else if i == Ctr::HostWriteRefused as usize {
            "h_wr_ref".to_string()
        } else {
            format!("c{i}")
        };
        v += &format!("    5'd{i}: cval = {name};\n");
    }
    for i in 16..32 {
        v += &format!("    5'd{i}: cval = dp_ctr${};\n", i - 16);
    }
    v += "    default: cval = 32'd0;\n  endcase\nend\n";
    // ---- the state machine
    let cc = |c: Ctr| format!("c{}", c as usize);
    v += "always @(posedge clock) begin\n";
    v += "  if (rv) begin\n    ent <= ent_n;\n    ecnt <= (ecnt == 3'd4) ? 3'd0 : ecnt + 3'd1;\n  end\n";
    v += "  rv <= rd_en;\n  rl <= rd_en && (rleft == 10'd1);\n  if (rd_en) begin\n    ra <= ra + 9'd1;\n    rleft <= rleft - 10'd1;\n  end\n";
    v += "  m_tw_valid_r <= 1'b0;\n  m_swap_r <= 1'b0;\n  m_rb_valid_r <= 1'b0;\n";
    v += "  if (gen) begin\n    gk <= gk + 7'd1;\n    ti <= ti + 5'd1;\n  end\n";
    v += "  case (st)\n";
    // RX
    v += "    S_RX: if (up_go) begin\n";
    v += "      case (wcnt)\n        16'd0: hdr[63:0] <= s_axis_up$tdata;\n        16'd1: hdr[127:64] <= s_axis_up$tdata;\n        16'd2: hdr[191:128] <= s_axis_up$tdata;\n        16'd3: hdr[255:192] <= s_axis_up$tdata;\n";
    v += &format!("        16'd4: begin\n          body[63:0] <= s_axis_up$tdata;\n          t_over <= t_end_in > 17'd{TELE_COUNTERS};\n        end\n        16'd5: body[127:64] <= s_axis_up$tdata;\n        16'd6: body[191:128] <= s_axis_up$tdata;\n        16'd7: body[255:192] <= s_axis_up$tdata;\n        default: ;\n      endcase\n");
    v += &format!("      if (wcnt >= 16'd4) begin\n        if (epos == 3'd0 && s_axis_up$tdata[7:0] != 8'd{OP_WRITE} && s_axis_up$tdata[7:0] != 8'd{OP_DELETE}) bad_ent <= 1'b1;\n        epos <= (epos == 3'd4) ? 3'd0 : epos + 3'd1;\n      end\n");
    v += "      if (wcnt != 16'hffff) wcnt <= wcnt + 16'd1;\n";
    v += "      if (s_axis_up$tlast) begin\n        st <= S_CHK;\n        lastn <= keep_n;\n        aborted <= s_axis_up$tuser;\n      end\n    end else if (ev_take) begin\n";
    v += &format!("      ev_q <= s_ev;\n      r_ev <= 1'b1;\n      st <= S_REPLY;\n      gk <= 7'd0;\n      gl <= 7'd{};\n      r_ty <= 8'd{};\n      r_class <= 8'd{CLASS_EVENT};\n      r_len <= 16'd{};\n      r_status <= 16'd0;\n      r_epoch <= 64'd0;\n      r_seq <= ev_seq;\n      ev_seq <= ev_seq + 32'd1;\n      r_count <= 32'd1;\n      r_stored <= 64'd0;\n      r_em <= em_id;\n    end\n", (HDR_BYTES + EVENT_BYTES) / 8 - 1, MsgType::Event as u8, HDR_BYTES + EVENT_BYTES);
    // CHK: the checks into registers (hdr and body hold still: the input is taken in S_RX only)
    v += "    S_CHK: begin\n      cause_q <= cause;\n      ep_zero_q <= ep_eq;\n      ep_neg_q <= ep_lt;\n      other_q <= m_target != em_id;\n      cnt_q <= cnt_c;\n      cnt_lq <= cnt_c - 7'd1;\n      st <= S_DEC;\n    end\n";
    // DEC
    v += &format!("    S_DEC: begin\n      {} <= {} + 32'd1;\n      r_ev <= 1'b0;\n", cc(Ctr::Received), cc(Ctr::Received));
    v += "      r_ty <= 8'd4;\n      r_em <= em_id;\n      r_class <= m_class;\n      r_len <= 16'd32;\n      r_epoch <= m_epoch;\n      r_seq <= m_seq;\n      r_count <= m_count;\n      ti <= t_start[4:0] - 5'd4;\n      gk <= 7'd0;\n      gl <= 7'd3;\n";
    v += "      if (cause_q != 3'd0) begin\n        st <= S_RX;\n        case (cause_q)\n";
    for d in M2mDrop::ALL {
        let c = cc(Ctr::of_drop(d));
        v += &format!("          3'd{}: {c} <= {c} + 32'd1;\n", d as u8);
    }
    v += "          default: ;\n        endcase\n";
    v += &format!("      end else if (other_q) begin\n        {r} <= {r} + 32'd1;\n        st <= S_RELAY;\n        ra <= 9'd0;\n        rleft <= {{1'b0, m_len[{hi}:3]}};\n      end else begin\n", r = cc(Ctr::Relayed), hi = MBUF_BITS + 2);
    v += &format!("        {r} <= {r} + 32'd1;\n        st <= S_REPLY;\n", r = cc(Ctr::Replies));
    v += &format!(
        "        if (is_read && m_class == 8'd3) begin\n          {t} <= {t} + 32'd1;\n          r_ty <= 8'd3;\n          r_status <= 16'd0;\n          r_stored <= ep_tab;\n          r_len <= 16'd32 + {{6'd0, cnt_q, 3'd0}} * 16'd5;\n          st <= S_RBH;\n          ra <= 9'd4;\n          rleft <= 10'd64;\n          rb_j <= 7'd0;\n        end else if (m_class == 8'd4) begin\n          {t} <= {t} + 32'd1;\n          r_ty <= 8'd3;\n          r_status <= 16'd0;\n          r_stored <= ep_tab;\n          r_len <= 16'd32 + {{t_count[12:0], 3'd0}};\n          gl <= 7'd3 + t_count[6:0];\n        end else if (ep_zero_q) begin\n          {e} <= {e} + 32'd1;\n          r_status <= 16'd{eq};\n          r_stored <= ep_cur;\n        end else if (ep_neg_q) begin\n          {s} <= {s} + 32'd1;\n          r_status <= 16'd{stale};\n          r_stored <= ep_cur;\n        end else begin\n          {a} <= {a} + 32'd1;\n          r_status <= 16'd{ap};\n          r_stored <= m_epoch;\n",
        t = cc(Ctr::TeleReads), e = cc(Ctr::Equal), eq = Status::Equal as u16, s = cc(Ctr::Stale), stale = Status::Stale as u16, a = cc(Ctr::Applied), ap = Status::Applied as u16
    );
    v += &format!(
        "          if (m_class == 8'd1) begin\n            ep_prof <= m_epoch;\n            r_prof <= body;\n          end\n          if (m_class == 8'd2) begin\n            ep_cc <= m_epoch;\n            r_cc <= body;\n          end\n          if (m_class == 8'd3) begin\n            {tw} <= {tw} + m_count;\n            st <= S_W;\n            pass <= 1'b0;\n            ra <= 9'd4;\n            rleft <= {{3'd0, cnt_q}} * 10'd5;\n            ecnt <= 3'd0;\n          end\n        end\n      end\n    end\n",
        tw = cc(Ctr::TableWrites)
    );
    // S_W: the entries, a write each 5 words
    v += "    S_W: begin\n      if (rv && ecnt == 3'd4) m_tw_valid_r <= 1'b1;\n      if (rleft == 0 && !rv) begin\n        if (!pass) begin\n          st <= S_SWAP;\n        end else st <= S_REPLY;\n      end\n    end\n";
    v += "    S_SWAP: begin\n      m_swap_r <= 1'b1;\n      ep_tab <= m_epoch;\n      dwait <= 2'd3;\n      st <= S_DRAIN;\n    end\n";
    v += &format!("    S_DRAIN: begin\n      if (dwait != 2'd0) dwait <= dwait - 2'd1;\n      else if (!s_busy) begin\n        st <= S_W;\n        pass <= 1'b1;\n        ra <= 9'd4;\n        rleft <= {{3'd0, cnt_q}} * 10'd5;\n        ecnt <= 3'd0;\n      end\n    end\n");
    v += "    S_REPLY: if (gen && gk == gl) st <= S_RX;\n";
    v += "    S_RBH: if (gen && gk == 7'd3) st <= S_RBQ;\n";
    v += "    S_RBQ: st <= S_RBI;\n";
    v += "    S_RBI: begin\n      rb_dest <= rq[10:8];\n      rb_tab <= rq[17:16];\n      rb_idx <= {rq[39:32], rq[47:40]};\n      m_rb_valid_r <= 1'b1;\n      rb_wait <= 4'd0;\n      st <= S_RBW;\n    end\n";
    // the datapath answers in two cycles; a missing answer reads as zeros after 15 (never wedged)
    v += &format!("    S_RBW: begin\n      rb_wait <= rb_wait + 4'd1;\n      if (s_rb_valid || rb_wait == 4'd15) begin\n        rb_d <= s_rb_valid ? {{{}, {}}} : 224'd0;\n        gk <= 7'd0;\n        st <= S_RBE;\n      end\n    end\n", vfield("s_rb", EmTblWrFields::slot("d1")), vfield("s_rb", EmTblWrFields::slot("d0")));
    v += "    S_RBE: if (gen && gk == 7'd4) begin\n      gk <= 7'd0;\n      rb_j <= rb_j + 7'd1;\n      st <= (rb_j == cnt_lq) ? S_RX : S_RBQ;\n    end\n";
    v += "    S_RELAY: if (df_push && rl) st <= S_RX;\n";
    v += "    default: st <= S_RX;\n  endcase\n";
    // leaving the handled message: clear RX
    v += "  if ((st != S_RX && st != S_CHK && st != S_DEC) || (st == S_DEC && cause_q != 3'd0)) begin\n    wcnt <= 16'd0;\n    bad_ent <= 1'b0;\n    epos <= 3'd0;\n  end\n";
    v += "  if (reset) begin\n    st <= S_RX;\n    wcnt <= 16'd0;\n    bad_ent <= 1'b0;\n    epos <= 3'd0;\n    rv <= 1'b0;\n    rleft <= 10'd0;\n    ep_prof <= 64'd0;\n    ep_cc <= 64'd0;\n    ep_tab <= 64'd0;\n    ev_seq <= 32'd0;\n    r_ev <= 1'b0;\n    r_prof <= 256'd0;\n    r_cc <= 256'd0;\n";
    for i in own_ctrs() {
        v += &format!("    c{i} <= 32'd0;\n");
    }
    v += "  end\nend\n";
    // the table write from a whole entry (bytes: 0 op, 1 dest, 2 table, 4-5 index, 8-35 data)
    v += "reg [319:0] ent_q;\nalways @(posedge clock) if (rv && ecnt == 3'd4) ent_q <= ent_n;\n";
    v += &format!("wire [223:0] e_data = (ent_q[7:0] == 8'd{OP_DELETE}) ? 224'd0 : {};\n", be_get("ent_q", 8, 28));
    v += &format!("wire unused_ent = ^ent_q[319:288] ^ ^ent_q[63:48] ^ ^ent_q[31:18] ^ ^ent_q[15:11] ^ ^ent[63:0];\n");
    let tw = |f: &str| vfield("m_tw", EmTblWrFields::slot(f));
    v += "always @(*) begin\n";
    v += &format!("  {} = ent_q[17:16];\n  {} = {{ent_q[39:32], ent_q[47:40]}};\n  {} = e_data[127:0];\n  {} = e_data[223:128];\n  {} = ent_q[10:8];\n", tw("table"), tw("index"), tw("d0"), tw("d1"), tw("dest"));
    v += "  m_tw_valid = m_tw_valid_r;\n  m_swap = m_swap_r;\n";
    v += &format!("  m_rb = {}'d0;\n  {} = rb_tab;\n  {} = rb_idx;\n  {} = rb_dest;\n  m_rb_valid = m_rb_valid_r;\n", EmTblWrFields::BITS, vfield("m_rb", EmTblWrFields::slot("table")), vfield("m_rb", EmTblWrFields::slot("index")), vfield("m_rb", EmTblWrFields::slot("dest")));
    // profile outputs
    let cf = |f: &str| vfield("cfg", EmCfgFields::slot(f));
    v += &format!("  {} = {};\n  {} = {};\n  {} = {};\n  {} = r_prof[135:128];\n  {} = r_prof[143:136];\n  nat = r_prof[144];\n", cf("smac"), be_get("r_prof", 0, 6), cf("dmac"), be_get("r_prof", 6, 6), cf("sip"), be_get("r_prof", 12, 4), cf("ttl"), cf("tos"));
    v += "  profile = r_prof;\n  cc = r_cc;\nend\n";
    // ---- the down stream (relay) and the reply merge
    v += "assign df_pop = m_axis_down$tvalid & m_axis_down$tready;\n";
    v += "always @(*) begin\n  m_axis_down$tvalid = df_cnt != 3'd0;\n  m_axis_down$tdata = df_head[63:0];\n  m_axis_down$tlast = df_head[64];\n  m_axis_down$tkeep = 8'hff;\n  m_axis_down$tuser = 1'b0;\nend\n";
    v += "reg [1:0] sel;\nwire own_v = of_cnt != 3'd0;\n";
    v += "always @(*) begin\n  m_axis_reply$tvalid = (sel == 2'd1) ? own_v : (sel == 2'd2) ? s_axis_ret$tvalid : 1'b0;\n  m_axis_reply$tdata = (sel == 2'd1) ? of_head[63:0] : s_axis_ret$tdata;\n  m_axis_reply$tlast = (sel == 2'd1) ? of_head[64] : s_axis_ret$tlast;\n  m_axis_reply$tkeep = (sel == 2'd1) ? 8'hff : s_axis_ret$tkeep;\n  m_axis_reply$tuser = (sel == 2'd2) & s_axis_ret$tuser;\n  s_axis_ret$tready = (sel == 2'd2) & m_axis_reply$tready;\n  s_axis_up$tready = (st == S_RX);\nend\n";
    v += "assign of_pop = (sel == 2'd1) & own_v & m_axis_reply$tready;\n";
    v += "always @(posedge clock) begin\n  if (sel == 2'd0) sel <= own_v ? 2'd1 : s_axis_ret$tvalid ? 2'd2 : 2'd0;\n  else if (m_axis_reply$tvalid & m_axis_reply$tready & m_axis_reply$tlast) sel <= 2'd0;\n  if (reset) sel <= 2'd0;\nend\n";
    // ---- the host window: device registers only
    let hw = |f: &str| format!("s_axil_host${f}");
    v += "reg h_bvalid, h_rvalid;\nreg [1:0] h_bresp, h_rresp;\nreg [31:0] h_rdata, h_scratch;\n";
    v += &format!("wire h_wtake = {} & {} & !h_bvalid;\nwire h_rtake = {} & !h_rvalid;\n", hw("awvalid"), hw("wvalid"), hw("arvalid"));
    v += &format!("wire h_wok = {} == 32'h{HOST_REG_SCRATCH:x};\n", hw("awaddr"));
    v += &format!("wire [31:0] ha = {};\nwire h_rok = ha == 32'h{HOST_REG_ID:x} || ha == 32'h{HOST_REG_EM_ID:x} || ha == 32'h{HOST_REG_STATUS:x} || ha == 32'h{HOST_REG_SCRATCH:x};\n", hw("araddr"));
    v += &format!("wire [31:0] h_val = (ha == 32'h{HOST_REG_ID:x}) ? 32'h{HOST_ID:x} : (ha == 32'h{HOST_REG_EM_ID:x}) ? {{24'd0, em_id}} : (ha == 32'h{HOST_REG_STATUS:x}) ? dev_status : (ha == 32'h{HOST_REG_SCRATCH:x}) ? h_scratch : 32'd0;\n");
    v += "always @(posedge clock) begin\n";
    v += &format!("  if (h_wtake) begin\n    h_bvalid <= 1'b1;\n    h_bresp <= h_wok ? 2'd0 : 2'd2;\n    if (h_wok) begin\n{strb}    end else h_wr_ref <= h_wr_ref + 32'd1;\n  end else if (h_bvalid & {br}) h_bvalid <= 1'b0;\n", br = hw("bready"), strb = (0..4).map(|k| format!("      if ({}[{k}]) h_scratch[{}:{}] <= {}[{}:{}];\n", hw("wstrb"), 8 * k + 7, 8 * k, hw("wdata"), 8 * k + 7, 8 * k)).collect::<String>());
    v += &format!("  if (h_rtake) begin\n    h_rvalid <= 1'b1;\n    h_rresp <= h_rok ? 2'd0 : 2'd2;\n    h_rdata <= h_val;\n    if (!h_rok) h_rd_ref <= h_rd_ref + 32'd1;\n  end else if (h_rvalid & {rr}) h_rvalid <= 1'b0;\n", rr = hw("rready"));
    v += "  if (reset) begin\n    h_bvalid <= 1'b0;\n    h_rvalid <= 1'b0;\n    h_scratch <= 32'd0;\n    h_wr_ref <= 32'd0;\n    h_rd_ref <= 32'd0;\n  end\nend\n";
    v += &format!(
        "always @(*) begin\n  {aw} = h_wtake;\n  {w} = h_wtake;\n  {b} = h_bvalid;\n  {bresp} = h_bresp;\n  {ar} = h_rtake;\n  {r} = h_rvalid;\n  {rresp} = h_rresp;\n  {rdata} = h_rdata;\nend\n",
        aw = hw("awready"), w = hw("wready"), b = hw("bvalid"), bresp = hw("bresp"), ar = hw("arready"), r = hw("rvalid"), rresp = hw("rresp"), rdata = hw("rdata")
    );
    v
}
