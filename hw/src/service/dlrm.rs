//! DLRM preprocessing in the application slot (BALBOA §8): Neg2Zero, Logarithm (`ln(1 + x)`)
//! and Modulus on the sixteen 32-bit lanes of each beat, at one beat per cycle, for the QPs the
//! slot is bound to. The arithmetic is `nicgen_model::dlrm` (bit for bit), which states the
//! logarithm's error bound and is tested against Rust's `ln_1p`.
//!
//! Per QP (a table in block RAM, by QPN) an operation code ([`nicgen_model::dlrm::op`]): pass,
//! Neg2Zero, Logarithm, Neg2Zero then Logarithm (DLRM's dense features), or Modulus (sparse
//! ids). The slot transforms data only on the RX side (received WRITE and READ RESPONSE
//! payloads, before their DMA write); on the TX side it passes everything. A lane that is not
//! wholly inside `tkeep` (a payload that is not a multiple of 4 bytes) passes unchanged.
//!
//! Lane pipeline ([`LANE_STAGES`] stages): decode and align (`1 + x` exactly, or `x`), leading
//! one, normalizing shift, reciprocal-table multiply, `d`, two Horner multiplies (each
//! registered before use), `q`, `d·q`, `mx·q` and `e·ln 2`, their sum, leading one, normalizing
//! shift with the round and sticky bits, round and pack. Modulus: `x·R`, `q·M`, `x - q·M`, one
//! correction.
use crate::service::aes_ctr::{kind, SvcCfg};
use crate::service::slot::{SlotBeat, SlotMetaFields, META_BITS};
use crate::stream::{ram::zero_init, DATA_W, KEEP_W};
use nicgen_model::dlrm::{lnc, ln2, rc, C3, FRAC, QNAN};
use rust_hdl::prelude::*;

/// Registers in the slot's configuration window.
pub mod reg {
    /// Write `qpn | op << 24`: the QP's operation (`nicgen_model::dlrm::op`).
    pub const QP_OP: u8 = 0x40;
    /// The modulus `M` (0: pass the value, 1: zero).
    pub const MOD_M: u8 = 0x44;
    /// The reciprocal `R = ⌊2^64 / M⌋` (`nicgen_model::dlrm::mod_magic`), low and high words.
    pub const MOD_R_LO: u8 = 0x48;
    pub const MOD_R_HI: u8 = 0x4c;
}

/// The register writes that set the modulus `m` and its reciprocal (offset, value).
pub fn mod_writes(m: u32) -> [(u8, u32); 3] {
    let r = nicgen_model::dlrm::mod_magic(m);
    [(reg::MOD_M, m), (reg::MOD_R_LO, r as u32), (reg::MOD_R_HI, (r >> 32) as u32)]
}

/// Stages of a lane.
pub const LANE_STAGES: usize = 14;
/// Beat in to beat out: the operation's table read, then the lanes.
pub const DLRM_LATENCY: usize = 1 + LANE_STAGES;

/// The DLRM slot core (`S` = [`kind::DLRM`]; otherwise an idle stub). `A`: QPN address bits of
/// the operation table.
#[derive(LogicBlock, Default)]
pub struct DlrmCore<const S: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_beat: Signal<In, SlotBeat>,
    pub in_valid: Signal<In, Bit>,
    pub out_beat: Signal<Out, SlotBeat>,
    pub out_valid: Signal<Out, Bit>,
    pub cfg: Signal<In, SvcCfg>,
    pub rx: Signal<In, Bit>,
}

impl<const S: usize, const A: usize> Logic for DlrmCore<S, A> {
    // Verilog only (checked under Verilator): the rust-hdl model is idle.
    fn update(&mut self) {
        self.out_beat.next = SlotBeat::default();
        self.out_valid.next = false;
    }
    fn connect(&mut self) {
        self.out_beat.connect();
        self.out_valid.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(if S & kind::DLRM != 0 {
            dlrm_verilog(A)
        } else {
            "wire unused_stub = ^{clock, reset, in_beat, in_valid, cfg, rx};\nalways @(*) begin\n  out_beat = 0;\n  out_valid = 1'b0;\nend\n".into()
        })
    }
}

fn case_rom(name: &str, w: usize, f: impl Fn(usize) -> u64) -> String {
    let mut v = format!("function [{}:0] {name};\n  input [6:0] ix;\n  case (ix)\n", w - 1);
    for i in 0..128 {
        v += &format!("    7'd{i}: {name} = {w}'d{};\n", f(i));
    }
    v += &format!("    default: {name} = {w}'d0;\n  endcase\nendfunction\n");
    v
}

/// A Verilog function `name` of a `w`-bit input: its leading zeros below bit `w-1`, the shift
/// that brings the leading one to the top; `w-1` when only bit 0, or none, is set. It is a
/// tree, not a priority chain: each 8-bit block finds its own leading one, the first non-zero
/// block is found from the blocks' flags (a prefix OR), and an AND-OR picks its count.
fn lz_fn(name: &str, w: usize) -> String {
    assert!(w > 8, "lz_fn needs at least two 8-bit blocks");
    let nb = w.div_ceil(8);
    let pad = 8 * nb - w;
    let hw = usize::BITS as usize - (nb - 1).leading_zeros() as usize;
    let mut v = format!("function [{}:0] {name};\n  input [{}:0] x;\n", hw + 2, w - 1);
    v += &format!("  reg [{}:0] v;\n  reg [{}:0] nz;\n  reg [{}:0] lb;\n  reg [{}:0] hb;\n  reg [2:0] lo;\n  reg above, first;\n  integer b, k;\n", 8 * nb - 1, nb - 1, 3 * nb - 1, hw - 1);
    let padz = if pad > 0 { format!(", {pad}'d0") } else { String::new() };
    // bit 0 counts as set: the count is the same either way (x[0] is read only for the lint)
    v += &format!("  begin\n    v = {{x[{}:1], x[0] | 1'b1{padz}}};\n", w - 1);
    v += &format!("    for (b = 0; b < {nb}; b = b + 1) begin\n      nz[b] = v[8*b +: 8] != 8'd0;\n      lb[3*b +: 3] = 3'd7;\n      for (k = 0; k < 8; k = k + 1) if (v[8*b + k]) lb[3*b +: 3] = 3'd7 - k[2:0];\n    end\n");
    v += &format!("    hb = {hw}'d0;\n    lo = 3'd0;\n    above = 1'b0;\n    for (b = {}; b >= 0; b = b - 1) begin\n      first = nz[b] & !above;\n      hb = hb | ({{{hw}{{first}}}} & ({hw}'d{} - b[{}:0]));\n      lo = lo | ({{3{{first}}}} & lb[3*b +: 3]);\n      above = above | nz[b];\n    end\n", nb - 1, nb - 1, hw - 1);
    v += &format!("    {name} = {{hb, lo}};\n  end\nendfunction\n");
    v
}

fn dlrm_verilog(qa: usize) -> String {
    let nq = 1usize << qa;
    let mb = DATA_W + KEEP_W + 2;
    let (q_o, _) = SlotMetaFields::slot("qpn");
    let bw = DATA_W + KEEP_W + 2 + META_BITS;
    let one = 1u64 << FRAC;
    let mut v = String::new();
    // ---- configuration: the operation table and the modulus
    v += "wire c_we = cfg[0];\nwire [7:0] c_ad = cfg[8:1];\nwire [31:0] c_d = cfg[40:9];\n";
    v += "reg [31:0] mod_m, r_lo, r_hi;\n";
    v += &format!("(* ram_style = \"block\" *) reg [2:0] opmem [0:{}];\n", nq - 1);
    v += &zero_init("i", &format!("  for (i = 0; i < {nq}; i = i + 1) opmem[i] = 3'd0;\n  mod_m = 32'd0;\n  r_lo = 32'd0;\n  r_hi = 32'd0;\n"));
    v += "always @(posedge clock) begin\n  if (c_we) begin\n";
    v += &format!("    if (c_ad == 8'h{:02x}) opmem[c_d[{}:0]] <= c_d[26:24];\n", reg::QP_OP, qa - 1);
    v += &format!("    if (c_ad == 8'h{:02x}) mod_m <= c_d;\n", reg::MOD_M);
    v += &format!("    if (c_ad == 8'h{:02x}) r_lo <= c_d;\n", reg::MOD_R_LO);
    v += &format!("    if (c_ad == 8'h{:02x}) r_hi <= c_d;\n", reg::MOD_R_HI);
    v += "  end\nend\n";
    v += "wire [63:0] mod_r = {r_hi, r_lo};\n";
    // ---- S0: the QP's operation (RX only)
    v += &format!("wire [{}:0] i_q = in_beat[{}:{}];\n", qa - 1, mb + q_o + qa - 1, mb + q_o);
    v += &format!("reg [2:0] op_q;\nreg p1_v;\nreg [{}:0] p1_b;\n", bw - 1);
    v += "always @(posedge clock) begin\n  op_q <= opmem[i_q];\n  p1_v <= in_valid & ~reset;\n  p1_b <= in_beat;\nend\n";
    v += "wire [2:0] op_b = rx ? op_q : 3'd0;\n";
    // ---- tables and helpers
    v += &case_rom("rc_t", 49, rc);
    v += &case_rom("lnc_t", 48, lnc);
    v += &lz_fn("lz55", 55);
    v += &lz_fn("lz73", 73);
    // ---- the rest of the beat waits beside the lanes
    let n = LANE_STAGES;
    let rest = bw - DATA_W;
    v += &format!("reg [{}:0] bd [0:{}];\nreg [{}:0] vd;\ninteger d;\n", rest - 1, n - 1, n - 1);
    v += &format!("always @(posedge clock) begin\n  bd[0] <= p1_b[{}:{DATA_W}];\n  vd[0] <= p1_v & ~reset;\n  for (d = 1; d < {n}; d = d + 1) begin\n    bd[d] <= bd[d-1];\n    vd[d] <= vd[d-1] & ~reset;\n  end\nend\n", bw - 1);
    v += "wire [511:0] lanes;\ngenvar gl;\ngenerate for (gl = 0; gl < 16; gl = gl + 1) begin : g_lane\n";
    v += "  wire [31:0] xi = p1_b[32*gl +: 32];\n";
    // a lane only partly inside tkeep is not a whole value: it passes unchanged
    v += &format!("  wire [2:0] op = p1_b[{DATA_W} + 4*gl + 3] ? op_b : 3'd0;\n");
    // S1 (a): decode, Neg2Zero, align; the modulus' first multiply
    // Neg2Zero (`nz`) makes the value +0: exponent 0, fraction 0. Everything below is worked
    // out from the input's own fields and `nz` picks at the end, so the NaN test is not in
    // front of the shifts' subtractors (+0 gives a_y = 2^30 + 2^31, a_ds = 0, a_cs = 1,
    // a_cl = 0, sp = 1, spv = 0, as the same formulas on +0 would).
    v += "  wire nan_i = xi[30:23] == 8'hff && xi[22:0] != 23'd0;\n";
    v += "  wire nz = op[0] && xi[31] && !nan_i;\n";
    v += "  wire [31:0] xn = nz ? 32'd0 : xi;\n";
    v += "  wire s = xi[31];\n  wire [7:0] ex = xi[30:23];\n  wire [22:0] fr = xi[22:0];\n  wire [23:0] mx = {1'b1, fr};\n";
    v += &format!("  wire sp = nz | (ex == 8'hff) | s | (ex < 8'd103);\n  wire [31:0] spv = nz ? 32'd0 : (ex == 8'hff) ? ((fr != 23'd0) ? (xi | 32'h00400000) : (s ? 32'h{QNAN:08x} : xi)) : (s ? ((xi[30:0] == 31'd0) ? xi : 32'h{QNAN:08x}) : xi);\n");
    v += "  wire [7:0] shm = ex - 8'd120;\n  wire [7:0] shs = ex - 8'd102;\n";
    v += "  reg a_sp, a_cs, a_cl, a_log, a_mod;\n  reg [31:0] a_alt, a_x;\n  reg [7:0] a_ex;\n  reg [23:0] a_mx;\n  reg [22:0] a_fr;\n  reg [54:0] a_y;\n  reg [41:0] a_ds;\n  reg [95:0] a_mp;\n";
    v += "  always @(posedge clock) begin\n    a_sp <= sp;\n    a_cs <= nz | (ex < 8'd120);\n    a_cl <= !nz & (ex >= 8'd151);\n    a_log <= op[1] & ~op[2];\n    a_mod <= op[2];\n    a_alt <= (op[1] & ~op[2]) ? spv : xn;\n    a_x <= xi;\n    a_ex <= nz ? 8'd0 : ex;\n    a_mx <= nz ? 24'h800000 : mx;\n    a_fr <= nz ? 23'd0 : fr;\n";
    v += "    a_y <= nz ? 55'hc0000000 : (55'd1 << 30) + ({31'd0, mx} << shm[4:0]);\n    a_ds <= nz ? 42'd0 : {18'd0, mx} << shs[4:0];\n    a_mp <= {64'd0, xi} * {32'd0, mod_r};\n  end\n";
    // S2 (n): the leading one of 1 + x (as the shift that brings it to bit 54); the modulus' quotient
    v += "  reg n_sp, n_cs, n_cl, n_log, n_mod;\n  reg [31:0] n_alt, n_x, n_q;\n  reg [7:0] n_ex;\n  reg [23:0] n_mx;\n  reg [22:0] n_fr;\n  reg [54:0] n_y;\n  reg [41:0] n_ds;\n  reg [5:0] n_lz;\n";
    v += "  always @(posedge clock) begin\n    n_sp <= a_sp;\n    n_cs <= a_cs;\n    n_cl <= a_cl;\n    n_log <= a_log;\n    n_mod <= a_mod;\n    n_alt <= a_alt;\n    n_x <= a_x;\n    n_q <= a_mp[95:64];\n    n_ex <= a_ex;\n    n_mx <= a_mx;\n    n_fr <= a_fr;\n    n_y <= a_y;\n    n_ds <= a_ds;\n    n_lz <= lz55(a_y);\n  end\n";
    // S3 (b): normalize: the leading one to bit 54; the 48 bits below it are m's fraction
    v += "  wire [54:0] f_w = n_y << n_lz;\n  wire [47:0] f_m = f_w[53:6];\n";
    v += "  reg b_sp, b_cs, b_log, b_mod;\n  reg [31:0] b_alt, b_x, b_q;\n  reg [7:0] b_e, b_ex;\n  reg [47:0] b_f;\n  reg [23:0] b_mx;\n  reg [41:0] b_ds;\n";
    v += "  always @(posedge clock) begin\n    b_sp <= n_sp;\n    b_cs <= n_cs;\n    b_log <= n_log;\n    b_mod <= n_mod;\n    b_alt <= n_alt;\n    b_x <= n_x;\n    b_q <= n_q;\n    b_ex <= n_ex;\n    b_mx <= n_mx;\n    b_ds <= n_ds;\n";
    v += "    b_e <= n_cl ? (n_ex - 8'd127) : (8'd24 - {2'd0, n_lz});\n    b_f <= n_cl ? {n_fr, 25'd0} : f_m;\n  end\n";
    // S3 (c): m · (1/c); ln c; q·M
    v += "  wire [6:0] ti = b_f[47:41];\n  wire [97:0] mp = {49'd0, 1'b1, b_f} * {49'd0, rc_t(ti)};\n";
    v += "  reg c_sp, c_cs, c_log, c_mod;\n  reg [31:0] c_alt, c_x;\n  reg [63:0] c_qm;\n  reg [7:0] c_e, c_ex;\n  reg [23:0] c_mx;\n  reg [41:0] c_ds;\n  reg [49:0] c_p;\n  reg [47:0] c_ln;\n";
    v += "  always @(posedge clock) begin\n    c_sp <= b_sp;\n    c_cs <= b_cs;\n    c_log <= b_log;\n    c_mod <= b_mod;\n    c_alt <= b_alt;\n    c_x <= b_x;\n    c_qm <= {32'd0, b_q} * {32'd0, mod_m};\n    c_e <= b_e;\n    c_ex <= b_ex;\n    c_mx <= b_mx;\n    c_ds <= b_ds;\n    c_p <= mp[97:48];\n    c_ln <= lnc_t(ti);\n  end\n";
    // S4 (d): d; 1/3 - d/4; x - q·M
    v += &format!("  wire [49:0] dm = (c_p > 50'd{one}) ? (c_p - 50'd{one}) : 50'd0;\n  wire [41:0] dd = c_cs ? c_ds : dm[41:0];\n");
    v += "  reg d_sp, d_cs, d_log, d_mod;\n  reg [31:0] d_alt, d_x;\n  reg [32:0] d_r;\n  reg [7:0] d_e, d_ex;\n  reg [23:0] d_mx;\n  reg [41:0] d_d;\n  reg [47:0] d_t3, d_ln;\n";
    v += &format!("  always @(posedge clock) begin\n    d_sp <= c_sp;\n    d_cs <= c_cs;\n    d_log <= c_log;\n    d_mod <= c_mod;\n    d_alt <= c_alt;\n    d_x <= c_x;\n    d_r <= {{1'b0, c_x}} - c_qm[32:0];\n    d_e <= c_e;\n    d_ex <= c_ex;\n    d_mx <= c_mx;\n    d_d <= dd;\n    d_t3 <= 48'd{C3} - {{8'd0, dd[41:2]}};\n    d_ln <= c_ln;\n  end\n");
    // S5 (e): d · t3; the modulus' correction decides the lane's value when it is not a log
    v += "  wire [31:0] mr = (mod_m == 32'd0) ? d_x : (mod_m == 32'd1) ? 32'd0 : (d_r >= {1'b0, mod_m}) ? (d_r[31:0] - mod_m) : d_r[31:0];\n";
    v += "  reg e_use;\n  reg [31:0] e_alt;\n  reg e_cs;\n  reg [7:0] e_e, e_ex;\n  reg [23:0] e_mx;\n  reg [41:0] e_d;\n  reg [89:0] e_p1;\n  reg [47:0] e_ln;\n";
    v += "  always @(posedge clock) begin\n    e_use <= d_mod | ~d_log | d_sp;\n    e_alt <= d_mod ? mr : d_alt;\n    e_cs <= d_cs;\n    e_e <= d_e;\n    e_ex <= d_ex;\n    e_mx <= d_mx;\n    e_d <= d_d;\n    e_p1 <= {48'd0, d_d} * {42'd0, d_t3};\n    e_ln <= d_ln;\n  end\n";
    // the lane's alternative value (pass, Neg2Zero, special, modulus) waits for the log's stages
    // (registered beside stage 7 (f), needed beside stage 13's (l1): alt_d[j] sits beside
    // stage 7 + j)
    v += "  reg [32:0] alt_d [0:6];\n  integer k2;\n";
    v += "  always @(posedge clock) begin\n    alt_d[0] <= {e_use, e_alt};\n    for (k2 = 1; k2 <= 6; k2 = k2 + 1) alt_d[k2] <= alt_d[k2-1];\n  end\n";
    // S6 (f): t2 = 1/2 - d·t3
    v += &format!("  reg f_cs;\n  reg [7:0] f_e, f_ex;\n  reg [23:0] f_mx;\n  reg [41:0] f_d;\n  reg [47:0] f_t2, f_ln;\n  always @(posedge clock) begin\n    f_cs <= e_cs;\n    f_e <= e_e;\n    f_ex <= e_ex;\n    f_mx <= e_mx;\n    f_d <= e_d;\n    f_t2 <= 48'd{} - {{6'd0, e_p1[89:48]}};\n    f_ln <= e_ln;\n  end\n", one >> 1);
    // S7 (g): d · t2
    v += "  reg g_cs;\n  reg [7:0] g_e, g_ex;\n  reg [23:0] g_mx;\n  reg [41:0] g_d;\n  reg [89:0] g_p2;\n  reg [47:0] g_ln;\n  always @(posedge clock) begin\n    g_cs <= f_cs;\n    g_e <= f_e;\n    g_ex <= f_ex;\n    g_mx <= f_mx;\n    g_d <= f_d;\n    g_p2 <= {48'd0, f_d} * {42'd0, f_t2};\n    g_ln <= f_ln;\n  end\n";
    // S8 (h): q = 1 - d·t2
    v += &format!("  reg h_cs;\n  reg [7:0] h_e, h_ex;\n  reg [23:0] h_mx;\n  reg [41:0] h_d;\n  reg [48:0] h_q;\n  reg [47:0] h_ln;\n  always @(posedge clock) begin\n    h_cs <= g_cs;\n    h_e <= g_e;\n    h_ex <= g_ex;\n    h_mx <= g_mx;\n    h_d <= g_d;\n    h_q <= 49'd{one} - {{7'd0, g_p2[89:48]}};\n    h_ln <= g_ln;\n  end\n");
    // S9 (i): d·q and mx·q
    v += "  wire [90:0] dq = {49'd0, h_d} * {42'd0, h_q};\n";
    v += &format!("  reg i_cs;\n  reg [7:0] i_ex;\n  reg [72:0] i_ps;\n  reg [42:0] i_t;\n  reg [47:0] i_ln;\n  reg [55:0] i_eln;\n  always @(posedge clock) begin\n    i_cs <= h_cs;\n    i_eln <= {{48'd0, h_e}} * 56'd{};\n    i_ex <= h_ex;\n    i_ps <= {{49'd0, h_mx}} * {{24'd0, h_q}};\n    i_t <= dq[90:48];\n    i_ln <= h_ln;\n  end\n", ln2());
    // S10 (j): R = e·ln 2 + ln c + d·q, or mx·q
    v += "  wire [72:0] rr = {17'd0, i_eln} + {25'd0, i_ln} + {30'd0, i_t};\n";
    v += "  reg j_cs;\n  reg [7:0] j_ex;\n  reg [72:0] j_v;\n  always @(posedge clock) begin\n    j_cs <= i_cs;\n    j_ex <= i_ex;\n    j_v <= i_cs ? i_ps : rr;\n  end\n";
    // S11 (k): the leading one (as the shift that brings it to bit 72)
    v += "  reg k_cs;\n  reg [7:0] k_ex;\n  reg [72:0] k_v;\n  reg [6:0] k_lz;\n  always @(posedge clock) begin\n    k_cs <= j_cs;\n    k_ex <= j_ex;\n    k_v <= j_v;\n    k_lz <= lz73(j_v);\n  end\n";
    // S13 (l1): the leading one to bit 72: the mantissa, the round bit, the sticky bits
    v += "  wire [72:0] vn = k_v << k_lz;\n";
    v += "  reg [23:0] l1_m;\n  reg l1_up;\n  reg [8:0] l1_eb;\n";
    v += "  always @(posedge clock) begin\n    l1_m <= vn[72:49];\n    l1_up <= vn[48] & ((vn[47:0] != 48'd0) | vn[49]);\n    l1_eb <= k_cs ? ({1'b0, k_ex} + 9'd1 - {2'd0, k_lz}) : (9'd151 - {2'd0, k_lz});\n  end\n";
    // S14 (l2): round to nearest even, pack; or the alternative value
    v += "  wire [24:0] m2 = {1'b0, l1_m} + {24'd0, l1_up};\n";
    v += "  wire [7:0] eo = m2[24] ? (l1_eb[7:0] + 8'd1) : l1_eb[7:0];\n  wire [22:0] mo = m2[24] ? m2[23:1] : m2[22:0];\n";
    v += "  wire [32:0] alt = alt_d[6];\n";
    v += "  reg [31:0] l_o;\n  always @(posedge clock) l_o <= alt[32] ? alt[31:0] : {1'b0, eo, mo};\n";
    v += "  assign lanes[32*gl +: 32] = l_o;\n";
    v += "  wire unused_l = ^{l1_eb[8], rr[72:60], k_v[72], c_qm[63:33], shm[7:5], shs[7:5], a_mp[63:0], mp[47:0], dm[49:42], e_p1[47:0], g_p2[47:0], dq[47:0], f_w[54], f_w[5:0]};\n";
    v += "end endgenerate\n";
    v += &format!("always @(*) begin\n  out_beat = {{bd[{}], lanes}};\n  out_valid = vd[{}];\nend\n", n - 1, n - 1);
    v += &format!("wire unused_d = ^{{p1_b[{}:{}], in_beat}};\n", bw - 1, DATA_W);
    v
}
