//! AES-CTR on the data path (`AesCtr`): a slot core that encrypts (TX slot) or decrypts (RX
//! slot) every payload beat with AES-128 or AES-256 in counter mode, four 16-byte keystream
//! blocks per 512-bit beat, one beat per cycle, [`AES_LATENCY`] cycles from beat in to beat out.
//!
//! * **Keys**: 256 key slots in block RAM, each 128 or 256 bits, written through the engine's
//!   control registers (write-only: no register reads a key back).
//! * **QP context** (block RAM, by QPN): enable, key id, side bit, the QP's own generation (the
//!   hardware advances it at every setup of that QPN, so a reused QPN never repeats a counter)
//!   and the peer's QPN and generation.
//! * **Counter block** (`nicgen_model::aes_ctr::CtrBlock`): key id, kind, owner side, owner QPN,
//!   owner generation, PSN wrap count, PSN, block index. The PSN wrap count is tracked per QP
//!   and kind from the PSNs passing the slot (`PsnExt`), in a block RAM read every beat and
//!   written back when it changes (with forwarding, so back-to-back beats see each other).
//! * **Pipeline**: QP context and wrap state read (1), key read and counter (1), round 0 (1),
//!   rounds 1–14 (14; AES-128 stops at round 10 and passes through the last four), XOR (1).
//!   The round keys are expanded on the fly, one round ahead of the data, so a key change
//!   costs nothing and no expanded keys are stored.
//!
//! A QP without encryption passes unchanged. The core is Verilog (Verilator and Yosys), as the
//! CDC blocks and the M2M endpoint; its rust-hdl model only drives the outputs idle.
use crate::service::slot::{SlotBeat, SlotMetaFields, META_BITS};
use crate::stream::{ram::zero_init, DATA_W, KEEP_W};
use nicgen_model::opcode as op;
use rust_hdl::prelude::*;

crate::record!(
    /// A write into a slot's configuration registers (the engine's 0x300 window).
    SvcCfg,
    SvcCfgFields {
        we: bool = 1,
        /// Byte address within the window.
        addr: u8 = 8,
        data: u32 = 32,
    }
);

/// Beat in to beat out, in cycles.
pub const AES_LATENCY: usize = 18;

/// Service kinds of a slot (`S` of `AesCtr<S>` and `PayloadSlot<L, S, A, F>`).
pub mod kind {
    /// Pass-through (the slot's delay line).
    pub const PASS: usize = 0;
    /// AES-CTR.
    pub const AES: usize = 1;
    /// DLRM preprocessing (the application slot's example, RX side).
    pub const DLRM: usize = 2;
    /// AES-CTR, then DLRM preprocessing, in one slot (the kinds are bits).
    pub const AES_DLRM: usize = AES | DLRM;
    /// DPI on the parallel tap (RX only; `nicgen_hw::service::dpi`).
    pub const DPI: usize = 4;
    /// The services engine's RX side: AES-CTR then DLRM in the payload slot, DPI on the tap.
    pub const AES_DLRM_DPI: usize = AES | DLRM | DPI;
    pub const AES_DPI: usize = AES | DPI;
    pub const DLRM_DPI: usize = DLRM | DPI;
    /// Every service (an engine's set of services is a subset of these bits).
    pub const ALL: usize = AES_DLRM_DPI;
    /// The services' names, by bit.
    pub const NAMES: [(&str, usize); 3] = [("aes", AES), ("dlrm", DLRM), ("dpi", DPI)];

    /// A set of services from names (`aes,dlrm,dpi`; `none` or empty: none).
    pub fn parse(list: &str) -> Result<usize, String> {
        let mut k = 0;
        for n in list.split(',').map(str::trim).filter(|n| !n.is_empty() && *n != "none") {
            k |= NAMES.iter().find(|(m, _)| *m == n).ok_or_else(|| format!("{n} is not a service (aes, dlrm, dpi)"))?.1;
        }
        Ok(k)
    }

    /// The names of a set of services, joined by `_` (`none` for none).
    pub fn name(k: usize) -> String {
        let v: Vec<&str> = NAMES.iter().filter(|(_, b)| k & b != 0).map(|(n, _)| *n).collect();
        if v.is_empty() { "none".into() } else { v.join("_") }
    }
}

/// The configuration registers, byte offsets within the engine's service window.
pub mod reg {
    /// Eight staging words of a key; word 0 holds the key's first four bytes (big-endian).
    pub const KEY_W0: u8 = 0x00;
    /// Write `slot | aes256 << 8`: the staged key goes into key slot `slot`.
    pub const KEY_CMD: u8 = 0x20;
    /// `key_id | enable << 8 | side << 9`, staged for the next QP setup.
    pub const QP_KEY: u8 = 0x24;
    pub const QP_PEER_QPN: u8 = 0x28;
    pub const QP_PEER_GEN: u8 = 0x2c;
    /// Write a QPN: its context takes the staged values and its generation advances.
    pub const QP_CMD: u8 = 0x30;
    /// (Read, engine level) the generation the last QP setup gave.
    pub const QP_GEN: u8 = 0x34;
}

/// Four AES blocks per cycle, fully pipelined (`S` = [`kind::AES`]; [`kind::PASS`]: an idle
/// stub): `ks` holds the encryptions of `ctr`, `ctr + 1`, `ctr + 2`, `ctr + 3` (the increment on
/// the low 16 bits, NIST SP 800-38A's standard incrementing function with m = 16) under `key`
/// (bit 256: AES-256; else AES-128 in bits 255..128 and again in bits 127..0, the key window's
/// AES-128 form, so that the first key step's S-boxes read the port directly), block j in
/// `ks[128j+127:128j]`, [`CIPHER_LATENCY`] cycles after `in_valid`.
#[derive(LogicBlock, Default)]
pub struct AesCipher4<const S: usize> {
    pub clock: Signal<In, Clock>,
    pub in_valid: Signal<In, Bit>,
    pub ctr: Signal<In, Bits<128>>,
    pub key: Signal<In, Bits<257>>,
    pub ks: Signal<Out, Bits<512>>,
    pub out_valid: Signal<Out, Bit>,
}

/// `ctr` in to `ks` out, in cycles: round 0, then rounds 1–14.
pub const CIPHER_LATENCY: usize = 15;

impl<const S: usize> Logic for AesCipher4<S> {
    fn update(&mut self) {
        self.ks.next = 0.into();
        self.out_valid.next = false;
    }
    fn connect(&mut self) {
        self.ks.connect();
        self.out_valid.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(if S & kind::AES != 0 {
            cipher_verilog()
        } else {
            "wire unused_stub = ^{clock, in_valid, ctr, key};\nalways @(*) begin\n  ks = 512'd0;\n  out_valid = 1'b0;\nend\n".into()
        })
    }
}

/// The AES-CTR slot core (`S` = [`kind::AES`]); `S` = [`kind::PASS`] emits an idle stub, so a
/// slot without the service carries no AES logic. `A`: QPN address bits of the QP context.
#[derive(LogicBlock, Default)]
pub struct AesCtr<const S: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_beat: Signal<In, SlotBeat>,
    pub in_valid: Signal<In, Bit>,
    pub out_beat: Signal<Out, SlotBeat>,
    pub out_valid: Signal<Out, Bit>,
    pub cfg: Signal<In, SvcCfg>,
    /// The slot is on the RX side (decrypt); fixes whose PSN space each kind of payload is in.
    pub rx: Signal<In, Bit>,
    /// The generation the last QP setup gave.
    pub gen: Signal<Out, Bits<24>>,
    cipher: AesCipher4<S>,
}

impl<const S: usize, const A: usize> Logic for AesCtr<S, A> {
    fn update(&mut self) {
        self.out_beat.next = SlotBeat::default();
        self.out_valid.next = false;
        self.gen.next = 0.into();
    }
    fn connect(&mut self) {
        self.out_beat.connect();
        self.out_valid.connect();
        self.gen.connect();
        self.cipher.clock.connect();
        self.cipher.in_valid.connect();
        self.cipher.ctr.connect();
        self.cipher.key.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(if S & kind::AES != 0 { aes_verilog(A) } else { stub_verilog() })
    }
}

fn stub_verilog() -> String {
    "wire unused_stub = ^{clock, reset, in_beat, in_valid, cfg, rx, cipher$ks, cipher$out_valid};\nalways @(*) begin\n  out_beat = 0;\n  out_valid = 1'b0;\n  gen = 24'd0;\n  cipher$clock = clock;\n  cipher$in_valid = 1'b0;\n  cipher$ctr = 128'd0;\n  cipher$key = 257'd0;\nend\n".into()
}

/// The AES S-box, computed (multiplicative inverse in GF(2^8), then the affine map).
pub fn sbox() -> [u8; 256] {
    fn mul(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            let hi = a & 0x80;
            a <<= 1;
            if hi != 0 {
                a ^= 0x1b;
            }
            b >>= 1;
        }
        p
    }
    let mut t = [0u8; 256];
    for (x, out) in t.iter_mut().enumerate() {
        let inv = if x == 0 { 0 } else { (1..=255u8).find(|&y| mul(x as u8, y) == 1).unwrap() };
        let mut s = inv;
        for i in 1..5 {
            s ^= inv.rotate_left(i);
        }
        *out = s ^ 0x63;
    }
    t
}

/// Round constants: rcon[1] = 1, doubling in GF(2^8).
pub fn rcon(i: usize) -> u8 {
    let mut r = 1u8;
    for _ in 1..i {
        r = (r << 1) ^ if r & 0x80 != 0 { 0x1b } else { 0 };
    }
    r
}

/// The S-box instances of the cipher: each use is a wire driven by an instance of the one
/// S-box module (`<root>$aes_sbox`, a case ROM defined once per file, see
/// [`nicgen_hdl::SHARED_BEGIN`]), so synthesis maps it once and Verilator builds it once.
struct SboxUses(usize);

impl SboxUses {
    /// The module, to be emitted once.
    fn module() -> String {
        let mut v = nicgen_hdl::SHARED_BEGIN.to_string();
        v += &format!("module {}$aes_sbox(x, y);\n{}/* verilator no_inline_module */\ninput wire [7:0] x;\noutput reg [7:0] y;\nalways @(*) begin\n  case (x)\n", nicgen_hdl::ROOT, nicgen_hdl::KEEP_HIERARCHY);
        for (i, s) in sbox().iter().enumerate() {
            v += &format!("    8'h{i:02x}: y = 8'h{s:02x};\n");
        }
        v += "    default: y = 8'h00;\n  endcase\nend\nendmodule\n";
        v + nicgen_hdl::SHARED_END
    }
    /// Declare a wire carrying S(`x`) (an instance of the module), named by the return value.
    fn of(&mut self, v: &mut String, x: &str) -> String {
        let n = self.0;
        self.0 += 1;
        *v += &format!("wire [7:0] sb{n};\n{}$aes_sbox sbox{n} (.x({x}), .y(sb{n}));\n", nicgen_hdl::ROOT);
        format!("sb{n}")
    }
}

/// The cipher pipeline as wires and registers.
fn cipher_verilog() -> String {
    let mut v = SboxUses::module();
    let mut sb = SboxUses(0);
    v += "function [7:0] x2;\n  input [7:0] x;\n  x2 = {x[6:0], 1'b0} ^ (8'h1b & {8{x[7]}});\nendfunction\n";
    // stage r holds the state before round r and the key window whose first 4 words are round
    // r's key; stage 0 the state after round 0's AddRoundKey
    let st = |r: usize, j: usize| format!("s{r}_{j}");
    let stages = 14;
    for r in 0..=stages {
        v += &format!("reg [127:0] {}, {}, {}, {};\nreg m{r}, v{r};\n", st(r, 0), st(r, 1), st(r, 2), st(r, 3));
        // the last stage reads round 14's key from k13 and no later step reads pq13
        if r < stages {
            v += &format!("reg [255:0] k{r};\n");
        }
        if r + 1 < stages {
            v += &format!("reg [127:0] pq{r};\n");
        }
    }
    // the XORs a window's `pq` holds, of its words a, b, c, d
    let pq_of = |a: &str, b: &str, c: &str, d: &str| format!("{{{a} ^ {b}, {a} ^ {b} ^ {c}, {a} ^ {b} ^ {c} ^ {d}, {a} ^ {c}}}");
    // the next key window from `k` (a register name). AES-256 slides the window by 4 words.
    // AES-128 holds its 4 words twice, {w0..w3, w0..w3}, so word 7 (bits 31:0) is the word
    // the step substitutes in both modes and the S-boxes read the register directly; SubWord
    // and RotWord commute, so the mode's rotation is a byte pick after the S-boxes. The `key`
    // port holds an AES-128 key twice already.
    //
    // The new words are n_i = w0 ^ .. ^ w_i ^ t (t the substituted word). The XORs of the window's
    // words (`pq`: w0^w1, w0^w1^w2, w0^..^w3 and w0^w2) come from a register, worked out a step
    // ahead, so each new word is one XOR after the S-box, not a chain of four: behind the
    // S-box module's boundary ABC sees no depth and shares the chain. Next window's `pq`: AES-256
    // from words 4..7; AES-128 from the n_i, where t cancels except in w0^w1^w2 (= w0^w2 ^ t):
    // n0^n1 = w1, n0^n1^n2 = w0^w2^t, n0^..^n3 = w1^w3, n0^n2 = w1^w2.
    // Wires named after the stage that registers the result.
    let key_step = |v: &mut String, sb: &mut SboxUses, r: usize, k: &str, pq: &str, m: &str, even: bool, rc128: u8, rc256: u8, with_pq: bool| {
        let w = |i: usize| format!("{k}[{}:{}]", 255 - 32 * i, 224 - 32 * i);
        // S(word 7), then RotWord unless AES-256's odd step
        let s: Vec<String> = [31, 23, 15, 7].iter().map(|h| sb.of(v, &format!("{k}[{h}:{}]", h - 7))).collect();
        *v += &format!("wire [31:0] sw{r} = {{{}}};\n", s.join(", "));
        let rot = format!("{{sw{r}[23:0], sw{r}[31:24]}}");
        let sub = if even { rot } else { format!("({m} ? sw{r} : {rot})") };
        *v += &format!("wire [31:0] ts{r} = {sub} ^ {{({m} ? 8'h{:02x} : 8'h{rc128:02x}), 24'd0}};\n", if even { rc256 } else { 0 });
        *v += &format!("wire [31:0] n{r}_0 = {} ^ ts{r};\nwire [31:0] n{r}_1 = {pq}[127:96] ^ ts{r};\nwire [31:0] n{r}_2 = {pq}[95:64] ^ ts{r};\nwire [31:0] n{r}_3 = {pq}[63:32] ^ ts{r};\n", w(0));
        *v += &format!("wire [255:0] nk{r} = {{({m} ? {k}[127:0] : {{n{r}_0, n{r}_1, n{r}_2, n{r}_3}}), n{r}_0, n{r}_1, n{r}_2, n{r}_3}};\n");
        if with_pq {
            *v += &format!(
                "wire [127:0] npq{r} = {m} ? {} : {{{w1}, {pq}[31:0] ^ ts{r}, {w1} ^ {w3}, {w1} ^ {w2}}};\n",
                pq_of(&w(4), &w(5), &w(6), &w(7)), w1 = w(1), w2 = w(2), w3 = w(3)
            );
        }
    };
    v += "wire m256_in = key[256];\nwire [255:0] kin = key[255:0];\n";
    v += &format!("wire [127:0] pqin = {};\n", pq_of("kin[255:224]", "kin[223:192]", "kin[191:160]", "kin[159:128]"));
    key_step(&mut v, &mut sb, 0, "kin", "pqin", "m256_in", true, rcon(1), rcon(1), true);
    v += "always @(posedge clock) begin\n";
    for j in 0..4 {
        v += &format!("  {} <= {{ctr[127:16], ctr[15:0] + 16'd{j}}} ^ kin[255:128];\n", st(0, j));
    }
    v += "  k0 <= nk0;\n  pq0 <= npq0;\n  m0 <= m256_in;\n  v0 <= in_valid;\nend\n";
    for r in 1..=stages {
        let p = r - 1;
        // AES-128 ends at round 10 and passes rounds 11-14 through; AES-256 ends at 14
        v += &format!("wire fin{r} = m{p} ? 1'b{} : 1'b{};\nwire skip{r} = ~m{p} & 1'b{};\n", (r == 14) as u8, (r == 10) as u8, (r > 10) as u8);
        for j in 0..4 {
            let s = st(p, j);
            // SubBytes and ShiftRows: byte 4c + i takes byte 4((c + i) mod 4) + i
            let mut t = Vec::new();
            for c in 0..4 {
                for i in 0..4 {
                    let n = 4 * ((c + i) % 4) + i;
                    t.push(sb.of(&mut v, &format!("{s}[{}:{}]", 127 - 8 * n, 120 - 8 * n)));
                }
            }
            v += &format!("wire [127:0] t{r}_{j} = {{{}}};\n", t.join(", "));
            let tb = |n: usize| format!("t{r}_{j}[{}:{}]", 127 - 8 * n, 120 - 8 * n);
            let mut m = Vec::new();
            for c in 0..4 {
                for i in 0..4 {
                    let (a0, a1, a2, a3) = (tb(4 * c + i), tb(4 * c + (i + 1) % 4), tb(4 * c + (i + 2) % 4), tb(4 * c + (i + 3) % 4));
                    m.push(format!("(x2({a0}) ^ x2({a1}) ^ {a1} ^ {a2} ^ {a3})"));
                }
            }
            v += &format!("wire [127:0] mx{r}_{j} = {{{}}};\n", m.join(", "));
        }
        if r < stages {
            key_step(&mut v, &mut sb, r, &format!("k{p}"), &format!("pq{p}"), &format!("m{p}"), r % 2 == 0, rcon(r + 1), rcon(r / 2 + 1), r + 1 < stages);
        }
        v += "always @(posedge clock) begin\n";
        for j in 0..4 {
            v += &format!("  {} <= skip{r} ? {} : ((fin{r} ? t{r}_{j} : mx{r}_{j}) ^ k{p}[255:128]);\n", st(r, j), st(p, j));
        }
        if r < stages {
            v += &format!("  k{r} <= nk{r};\n");
        }
        if r + 1 < stages {
            v += &format!("  pq{r} <= npq{r};\n");
        }
        v += &format!("  m{r} <= m{p};\n  v{r} <= v{p};\nend\n");
    }
    // without npq13, pq12's w0^w2 word and k13's low half go unread
    v += &format!("wire unused_c = ^{{k{}[127:0], pq{}[31:0], m{stages}}};\n", stages - 1, stages - 2);
    v += &format!("always @(*) begin\n  ks = {{{}, {}, {}, {}}};\n  out_valid = v{stages};\nend\n", st(stages, 3), st(stages, 2), st(stages, 1), st(stages, 0));
    v
}

fn aes_verilog(qa: usize) -> String {
    let nq = 1usize << qa;
    let mb = DATA_W + KEEP_W + 2; // meta offset in a SlotBeat
    let (q_o, _) = SlotMetaFields::slot("qpn");
    let (p_o, _) = SlotMetaFields::slot("psn");
    let (f_o, _) = SlotMetaFields::slot("off");
    let (o_o, _) = SlotMetaFields::slot("opcode");
    let bw = DATA_W + KEEP_W + 2 + META_BITS;
    let mut v = String::new();
    // ---- configuration
    v += "wire c_we = cfg[0];\nwire [7:0] c_ad = cfg[8:1];\nwire [31:0] c_d = cfg[40:9];\n";
    v += "reg [31:0] kw0, kw1, kw2, kw3, kw4, kw5, kw6, kw7;\nreg [7:0] q_kid;\nreg q_en, q_side, g_keep;\nreg [23:0] q_rqpn, q_rgen, last_gen;\n";
    v += &format!("reg g_pend;\nreg [{}:0] g_q;\n", qa - 1);
    v += "(* ram_style = \"block\" *) reg [256:0] keymem [0:255];\n";
    v += &format!("(* ram_style = \"block\" *) reg [23:0] genmem [0:{}];\n", nq - 1);
    v += &format!("(* ram_style = \"block\" *) reg [81:0] ctxmem [0:{}];\n", nq - 1);
    v += &format!("(* ram_style = \"block\" *) reg [56:0] stmem [0:{}];\n", 2 * nq - 1);
    v += &zero_init("i", &format!("  for (i = 0; i < {nq}; i = i + 1) begin\n    genmem[i] = 24'd0;\n    ctxmem[i] = 82'd0;\n  end\n  for (i = 0; i < {}; i = i + 1) stmem[i] = 57'd0;\n", 2 * nq));
    v += "reg [23:0] gen_rd;\nwire [23:0] gen_nx = g_keep ? gen_rd : gen_rd + 24'd1;\n";
    // the setup command reads the QP's generation as it is written, and writes the context the
    // cycle after, so a register read right after the write sees the new generation
    v += &format!("wire g_cmd = c_we && (c_ad == 8'h{:02x});\n", reg::QP_CMD);
    v += &format!("always @(posedge clock) begin\n  gen_rd <= genmem[g_cmd ? c_d[{}:0] : g_q];\n  g_pend <= 1'b0;\n", qa - 1);
    v += "  if (c_we) begin\n";
    for i in 0..8 {
        v += &format!("    if (c_ad == 8'h{:02x}) kw{i} <= c_d;\n", 4 * i);
    }
    // an AES-128 key is stored twice (the cipher's key window, see `AesCipher4`)
    v += &format!("    if (c_ad == 8'h{:02x}) keymem[c_d[7:0]] <= {{c_d[8], kw0, kw1, kw2, kw3, c_d[8] ? {{kw4, kw5, kw6, kw7}} : {{kw0, kw1, kw2, kw3}}}};\n", reg::KEY_CMD);
    v += &format!("    if (c_ad == 8'h{:02x}) begin q_kid <= c_d[7:0]; q_en <= c_d[8]; q_side <= c_d[9]; end\n", reg::QP_KEY);
    v += &format!("    if (c_ad == 8'h{:02x}) q_rqpn <= c_d[23:0];\n", reg::QP_PEER_QPN);
    v += &format!("    if (c_ad == 8'h{:02x}) q_rgen <= c_d[23:0];\n", reg::QP_PEER_GEN);
    v += &format!("    if (c_ad == 8'h{:02x}) begin g_q <= c_d[{}:0]; g_keep <= c_d[31]; g_pend <= ~reset; end\n", reg::QP_CMD, qa - 1);
    v += "  end\n";
    v += "  if (g_pend) begin\n    genmem[g_q] <= gen_nx;\n    ctxmem[g_q] <= {q_en, q_side, q_kid, gen_nx, q_rqpn, q_rgen};\n    last_gen <= gen_nx;\n  end\n";
    v += "  if (reset) last_gen <= 24'd0;\nend\n";
    // ---- S0: the QP context and the wrap state of (QPN, kind)
    v += &format!("wire [7:0] i_op = in_beat[{}:{}];\n", mb + o_o + 7, mb + o_o);
    v += &format!("wire i_resp = (i_op >= 8'h{:02x}) && (i_op <= 8'h{:02x});\n", op::READ_RESP_FIRST, op::READ_RESP_ONLY);
    v += &format!("wire [{}:0] i_q = in_beat[{}:{}];\n", qa - 1, mb + q_o + qa - 1, mb + q_o);
    v += &format!("reg [81:0] ctx_q;\nreg [56:0] st_q;\nreg p1_v, p1_resp;\nreg [{}:0] p1_b;\nreg [{qa}:0] p1_sa;\n", bw - 1);
    v += "always @(posedge clock) begin\n  ctx_q <= ctxmem[i_q];\n  st_q <= stmem[{i_q, i_resp}];\n  p1_v <= in_valid & ~reset;\n  p1_b <= in_beat;\n  p1_resp <= i_resp;\n  p1_sa <= {i_q, i_resp};\nend\n";
    // ---- S1: wrap count, state write-back (forwarded to the next beat), key read, counter
    v += "wire c_en = ctx_q[81];\nwire c_side = ctx_q[80];\nwire [7:0] c_kid = ctx_q[79:72];\nwire [23:0] c_lgen = ctx_q[71:48];\nwire [23:0] c_rqpn = ctx_q[47:24];\nwire [23:0] c_rgen = ctx_q[23:0];\n";
    v += &format!("reg fw_v;\nreg [{qa}:0] fw_a;\nreg [56:0] fw_d;\n");
    v += "wire [56:0] st_e = (fw_v && fw_a == p1_sa) ? fw_d : st_q;\n";
    v += "wire st_set = st_e[56] && (st_e[55:32] == c_lgen);\nwire [1:0] s_quad = st_e[31:30];\nwire [29:0] s_wrap = st_e[29:0];\n";
    v += &format!("wire [23:0] p1_psn = p1_b[{}:{}];\nwire [1:0] pq = p1_psn[23:22];\n", mb + p_o + 23, mb + p_o);
    v += "reg [29:0] wrap1, nwrap;\nreg upd;\nreg [1:0] nquad;\n";
    v += "always @(*) begin\n  wrap1 = s_wrap;\n  upd = 1'b0;\n  nquad = s_quad;\n  nwrap = s_wrap;\n";
    v += "  if (!st_set) begin\n    wrap1 = 30'd0;\n    upd = 1'b1;\n    nquad = pq;\n    nwrap = 30'd0;\n  end else if (s_quad == 2'd3 && pq == 2'd0) begin\n    wrap1 = s_wrap + 30'd1;\n    upd = 1'b1;\n    nquad = 2'd0;\n    nwrap = s_wrap + 30'd1;\n";
    v += "  end else if (s_quad == 2'd0 && pq == 2'd3) begin\n    wrap1 = s_wrap - 30'd1;\n  end else if (pq == s_quad + 2'd1) begin\n    upd = 1'b1;\n    nquad = pq;\n  end\nend\n";
    v += "wire st_we = p1_v & c_en & upd;\nwire [56:0] st_nd = {1'b1, c_lgen, nquad, nwrap};\n";
    v += "// a payload is in its owner's PSN space: TX request data and RX response data are this QP's\n";
    v += "wire loc = (p1_resp == rx);\n";
    v += &format!("wire [23:0] o_qpn = loc ? p1_b[{}:{}] : c_rqpn;\n", mb + q_o + 23, mb + q_o);
    v += "wire [23:0] o_gen = loc ? c_lgen : c_rgen;\nwire o_side = loc ? c_side : ~c_side;\n";
    v += &format!("reg [256:0] key_q;\nreg p2_v, p2_en;\nreg [111:0] p2_iv;\nreg [{}:0] p2_b;\n", bw - 1);
    v += "always @(posedge clock) begin\n  if (st_we) stmem[p1_sa] <= st_nd;\n  fw_v <= st_we;\n  fw_a <= p1_sa;\n  fw_d <= st_nd;\n";
    v += "  key_q <= keymem[c_kid];\n  p2_v <= p1_v & ~reset;\n  p2_en <= c_en;\n  p2_b <= p1_b;\n  p2_iv <= {c_kid, p1_resp, o_side, o_qpn, o_gen, wrap1, p1_psn};\nend\n";
    // ---- S2: the counter of the beat's first block into the cipher; the beat waits beside it
    v += &format!("always @(*) begin\n  cipher$clock = clock;\n  cipher$in_valid = p2_v;\n  cipher$ctr = {{p2_iv, 4'd0, p2_b[{}:{}]}};\n  cipher$key = key_q;\nend\n", mb + f_o + 15, mb + f_o + 4);
    let n = CIPHER_LATENCY;
    v += &format!("reg [{}:0] bd [0:{}];\nreg [{}:0] ed;\nreg [{}:0] vd;\ninteger d;\n", bw - 1, n - 1, n - 1, n - 1);
    v += &format!("always @(posedge clock) begin\n  bd[0] <= p2_b;\n  ed[0] <= p2_en;\n  vd[0] <= p2_v & ~reset;\n  for (d = 1; d < {n}; d = d + 1) begin\n    bd[d] <= bd[d-1];\n    ed[d] <= ed[d-1];\n    vd[d] <= vd[d-1] & ~reset;\n  end\nend\n");
    // ---- the XOR: keystream byte 16j+k is byte k of block j; masked by tkeep and the enable
    let ks: Vec<String> = (0..64).rev().map(|n| format!("cipher$ks[{}:{}]", 128 * (n / 16) + 127 - 8 * (n % 16), 128 * (n / 16) + 120 - 8 * (n % 16))).collect();
    v += &format!("wire [{}:0] bl = bd[{}];\nwire el = ed[{}];\n", bw - 1, n - 1, n - 1);
    v += &format!("wire [511:0] ks = {{{}}};\n", ks.join(", "));
    v += &format!("wire [511:0] kmask;\ngenvar gk;\ngenerate for (gk = 0; gk < 64; gk = gk + 1) begin : g_kmask\n  assign kmask[8*gk+7:8*gk] = {{8{{bl[{DATA_W}+gk] & el}}}};\nend endgenerate\n");
    v += &format!("reg [{}:0] ob;\nreg ov;\nalways @(posedge clock) begin\n  ob <= {{bl[{}:{DATA_W}], bl[{}:0] ^ (ks & kmask)}};\n  ov <= vd[{}] & ~reset;\nend\n", bw - 1, bw - 1, DATA_W - 1, n - 1);
    v += "wire unused_aes = ^{cipher$out_valid, in_beat};\n";
    v += "always @(*) begin\n  out_beat = ob;\n  out_valid = ov;\n  gen = last_gen;\nend\n";
    v
}
