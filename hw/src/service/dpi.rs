//! DPI on the parallel path (BALBOA §5.2): a fully connected ternary network, generated as
//! Verilog from a weights file (`hw/dpi/weights.json`, trained by `scripts/dpi/train.py`),
//! classifies each beat the parallel tap copies; an aggregator turns the beats' classes into a
//! per-frame verdict, which the tap ([`crate::service::slot::TapJoin`]) joins to the frame
//! before the RX buffer, so it reaches the BTH stage before the packet commits. The golden model
//! is `nicgen_model::dpi` (bit for bit). The network is a file-type classifier (CSV, PNG, text,
//! ELF), not a malware detector.
//!
//! Per QP (a 2-bit table in block RAM, by QPN) a policy: pass, flag (counted by the tap) or
//! drop. A frame whose class is in the class mask takes its QP's policy; other frames pass.
//!
//! Pipeline, from the weights: the beat is registered; each layer counts the bits its neuron
//! adds (`a` for weight +1, `!a` for -1) in chunks of six (one LUT level), then sums four
//! values per stage, and the last stage compares with the neuron's threshold (hidden layers:
//! `count ≥ |N| - b`) or adds its offset (scores); a tournament of pairwise comparisons (the
//! lower class wins ties) gives the beat's class. The aggregator counts the votes of the frame's
//! beats, runs the same tournament over the frame's totals, and looks up the policy (read when
//! the frame's last beat enters). The verdict comes [`DPI_LATENCY`] cycles after the frame's
//! last beat; a network that needs fewer stages is padded to it.
use crate::service::aes_ctr::{kind, SvcCfg};
use crate::service::slot::{SlotBeat, SlotMetaFields};
use crate::stream::{ram::zero_init, DATA_W, KEEP_W};
use nicgen_model::dpi::Net;
use rust_hdl::prelude::*;

/// Registers in the service window.
pub mod reg {
    /// Write `qpn | policy << 24` (`nicgen_model::dpi::verdict`: 0 pass, 1 flag, 2 drop).
    pub const QP_POLICY: u8 = 0x60;
    /// The classes whose frames take their QP's policy, one bit per class (reset: `elf`).
    pub const CLASS_MASK: u8 = 0x64;
}

/// The register writes that set a QP's policy (offset, value).
pub fn policy_write(qpn: u32, policy: u8) -> (u8, u32) {
    (reg::QP_POLICY, (qpn & 0xFF_FFFF) | (policy as u32) << 24)
}

/// The frame's last beat in, to its verdict out.
pub const DPI_LATENCY: usize = 16;

/// The DPI tap core (`S` with [`kind::DPI`]; otherwise an idle stub). `A`: QPN bits of the
/// policy table. Besides the verdict, `beat_class` gives the class of every beat it took,
/// [`beat_latency`] cycles later (`beat_class_valid`).
#[derive(LogicBlock, Default)]
pub struct DpiCore<const S: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_beat: Signal<In, SlotBeat>,
    pub in_valid: Signal<In, Bit>,
    pub verdict: Signal<Out, Bits<2>>,
    pub verdict_valid: Signal<Out, Bit>,
    pub beat_class: Signal<Out, Bits<3>>,
    pub beat_class_valid: Signal<Out, Bit>,
    pub cfg: Signal<In, SvcCfg>,
}

impl<const S: usize, const A: usize> Logic for DpiCore<S, A> {
    // Verilog only (checked under Verilator): the rust-hdl model is idle.
    fn update(&mut self) {
        self.verdict.next = 0.into();
        self.verdict_valid.next = false;
        self.beat_class.next = 0.into();
        self.beat_class_valid.next = false;
    }
    fn connect(&mut self) {
        self.verdict.connect();
        self.verdict_valid.connect();
        self.beat_class.connect();
        self.beat_class_valid.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(if S & kind::DPI != 0 {
            dpi_verilog(&Net::builtin(), A)
        } else {
            "wire unused_stub = ^{clock, reset, in_beat, in_valid, cfg};\nalways @(*) begin\n  verdict = 2'd0;\n  verdict_valid = 1'b0;\n  beat_class = 3'd0;\n  beat_class_valid = 1'b0;\nend\n".into()
        })
    }
}

/// Stages of one ternary layer: the chunk counts, then four-way sums down to one value (at
/// least one stage, which also compares or adds the offset).
fn layer_stages(max_terms: usize) -> usize {
    let mut n = max_terms.div_ceil(6).max(1);
    let mut s = 1;
    loop {
        n = n.div_ceil(4);
        s += 1;
        if n <= 1 {
            return s;
        }
    }
}

fn clog2(n: usize) -> usize {
    (usize::BITS - (n.max(1) - 1).leading_zeros()) as usize
}

/// Cycles from a beat in to its class out.
pub fn beat_latency(net: &Net) -> usize {
    let layers: usize = net.layers.iter().map(|l| layer_stages(l.w.iter().map(|r| r.iter().filter(|w| **w != 0).count()).max().unwrap_or(0))).sum();
    1 + layers + clog2(net.classes.len())
}

/// Cycles from the frame's last beat in to the verdict, before padding.
pub fn verdict_latency(net: &Net) -> usize {
    beat_latency(net) + 1 + clog2(net.classes.len()) + 1
}

/// Layer `l`: inputs `a` (a vector of bits), outputs `name` (hidden: a vector of bits; last:
/// `{name}_s{c}`, 16-bit scores raised by `off`). Signals no logic reads go to `sinks`.
/// Returns the stages used.
fn ternary_layer(v: &mut String, sinks: &mut Vec<String>, net: &Net, l: usize, a: &str, name: &str, last: bool, off: i64) -> usize {
    let layer = &net.layers[l];
    let maxt = layer.w.iter().map(|r| r.iter().filter(|w| **w != 0).count()).max().unwrap_or(0);
    let stages = layer_stages(maxt);
    if !last {
        *v += &format!("reg [{}:0] {name};\n", layer.w.len() - 1);
    }
    for (n, (row, b)) in layer.w.iter().zip(&layer.b).enumerate() {
        let terms: Vec<String> = row.iter().enumerate().filter(|(_, w)| **w != 0).map(|(i, w)| if *w > 0 { format!("{a}[{i}]") } else { format!("~{a}[{i}]") }).collect();
        let negs = row.iter().filter(|w| **w < 0).count() as i64;
        let p = format!("{name}_{n}");
        // chunks of six: 3-bit counts
        let chunks: Vec<&[String]> = terms.chunks(6).collect();
        let mut vals: Vec<(String, usize)> = vec![];
        for (k, c) in chunks.iter().enumerate() {
            let sum = c.iter().map(|t| format!("{{2'd0, {t}}}")).collect::<Vec<_>>().join(" + ");
            *v += &format!("reg [2:0] {p}_c{k};\nalways @(posedge clock) {p}_c{k} <= {sum};\n");
            vals.push((format!("{p}_c{k}"), 3));
        }
        if vals.is_empty() {
            *v += &format!("reg [2:0] {p}_c0;\nalways @(posedge clock) {p}_c0 <= 3'd0;\n");
            vals.push((format!("{p}_c0"), 3));
        }
        // four-way sums; the last stage compares (hidden) or adds the offset (scores)
        for s in 1..stages {
            let fin = s == stages - 1;
            let groups: Vec<Vec<(String, usize)>> = vals.chunks(4).map(|g| g.to_vec()).collect();
            assert!(!fin || groups.len() == 1);
            let mut next = vec![];
            for (k, g) in groups.iter().enumerate() {
                let w = g.iter().map(|x| x.1).max().unwrap() + 2;
                let sum = g.iter().map(|(n, wn)| format!("{{{}'d0, {n}}}", w - wn)).collect::<Vec<_>>().join(" + ");
                if !fin {
                    *v += &format!("reg [{}:0] {p}_s{s}_{k};\nalways @(posedge clock) {p}_s{s}_{k} <= {sum};\n", w - 1);
                    next.push((format!("{p}_s{s}_{k}"), w));
                } else if !last {
                    // h = count - negs + b >= 0  <=>  count >= negs - b
                    let t = negs - b;
                    let always = t <= 0 || t as usize > terms.len();
                    if always {
                        sinks.extend(g.iter().map(|x| x.0.clone()));
                    }
                    let cmp = if t <= 0 { "1'b1".to_string() } else if always { "1'b0".to_string() } else { format!("({sum}) >= {w}'d{t}") };
                    *v += &format!("always @(posedge clock) {name}[{n}] <= {cmp};\n");
                } else {
                    let k = b - negs + off;
                    assert!(k >= 0 && k < 1 << 15);
                    *v += &format!("reg [15:0] {name}_s{n};\nalways @(posedge clock) {name}_s{n} <= {{{}'d0, {sum}}} + 16'd{k};\n", 16 - w);
                }
            }
            vals = next;
        }
    }
    stages
}

/// A tournament over `n` values `{val}{i}` (16 bits): the lower index wins ties. Registers
/// `{out}_i` (index) and `{out}_v` (value) after `clog2(n)` stages (one stage when `n` is 1); the
/// stages run every cycle. Returns the stages used.
fn tournament(v: &mut String, n: usize, val: &str, out: &str) -> usize {
    let levels = clog2(n);
    let np = 1 << levels;
    let mut cur: Vec<(String, String)> = (0..np).map(|i| if i < n { (format!("3'd{i}"), format!("{val}{i}")) } else { (format!("3'd{i}"), "16'd0".into()) }).collect();
    for lv in 0..levels {
        let mut next = vec![];
        for (k, pair) in cur.chunks(2).enumerate() {
            let (ia, va) = &pair[0];
            let (ib, vb) = &pair[1];
            let nm = if lv == levels - 1 { out.to_string() } else { format!("{out}_t{lv}_{k}") };
            *v += &format!("reg [2:0] {nm}_i;\nreg [15:0] {nm}_v;\nalways @(posedge clock) begin\n  {nm}_i <= ({vb} > {va}) ? {ib} : {ia};\n  {nm}_v <= ({vb} > {va}) ? {vb} : {va};\nend\n");
            next.push((format!("{nm}_i"), format!("{nm}_v")));
        }
        cur = next;
    }
    if levels == 0 {
        *v += &format!("reg [2:0] {out}_i;\nreg [15:0] {out}_v;\nalways @(posedge clock) begin\n  {out}_i <= 3'd0;\n  {out}_v <= {val}0;\nend\n");
        return 1;
    }
    levels
}

/// A side signal delayed by `n` stages: `{name}_d` is `src` `n` cycles later.
fn delay(v: &mut String, name: &str, w: usize, src: &str, n: usize) {
    *v += &format!("reg [{}:0] {name}_p [0:{}];\ninteger {name}_k;\nalways @(posedge clock) begin\n  {name}_p[0] <= {src};\n  for ({name}_k = 1; {name}_k < {n}; {name}_k = {name}_k + 1) {name}_p[{name}_k] <= {name}_p[{name}_k-1];\nend\nwire [{}:0] {name}_d = {name}_p[{}];\n", w - 1, n - 1, w - 1, n - 1);
}

pub fn dpi_verilog(net: &Net, qa: usize) -> String {
    let nq = 1usize << qa;
    let nc = net.classes.len();
    let mb = DATA_W + KEEP_W + 2;
    let (q_o, _) = SlotMetaFields::slot("qpn");
    let (o_o, _) = SlotMetaFields::slot("off");
    let elf = net.class("elf").map(|c| 1u32 << c).unwrap_or(0);
    let lat = verdict_latency(net);
    assert!(lat <= DPI_LATENCY, "the network needs {lat} cycles; DPI_LATENCY is {DPI_LATENCY}");
    let mut v = String::new();
    // ---- configuration: the policy table and the class mask
    v += "wire c_we = cfg[0];\nwire [7:0] c_ad = cfg[8:1];\nwire [31:0] c_d = cfg[40:9];\n";
    v += &format!("(* ram_style = \"block\" *) reg [1:0] polmem [0:{}];\nreg [7:0] cmask;\n", nq - 1);
    v += &zero_init("i", &format!("  for (i = 0; i < {nq}; i = i + 1) polmem[i] = 2'd0;\n"));
    v += &format!("always @(posedge clock) begin\n  if (c_we && c_ad == 8'h{:02x}) polmem[c_d[{}:0]] <= c_d[25:24];\nend\n", reg::QP_POLICY, qa - 1);
    v += &format!("always @(posedge clock) begin\n  if (reset) cmask <= 8'd{elf};\n  else if (c_we && c_ad == 8'h{:02x}) cmask <= c_d[7:0];\nend\n", reg::CLASS_MASK);
    // ---- stage 0: the beat, whether it votes, the QP's policy (read as each beat enters)
    v += &format!("wire [15:0] i_off = in_beat[{}:{}];\n", mb + o_o + 15, mb + o_o);
    v += &format!("wire [{}:0] i_q = in_beat[{}:{}];\n", qa - 1, mb + q_o + qa - 1, mb + q_o);
    v += &format!("wire i_v6 = in_beat[111:96] == 16'hdd86;\nwire i_full = &in_beat[{}:{DATA_W}];\nwire i_last = in_beat[{}];\n", DATA_W + KEEP_W - 1, DATA_W + KEEP_W);
    v += "reg fv6;\nalways @(posedge clock) if (in_valid && i_off == 16'd0) fv6 <= i_v6;\n";
    v += "wire i_vote = i_full && i_off != 16'd0 && !(i_off == 16'd64 && fv6);\n";
    v += "reg [511:0] x0;\nreg v0, l0, e0;\nreg [1:0] pol0;\n";
    v += "always @(posedge clock) begin\n  x0 <= in_beat[511:0];\n  v0 <= in_valid & ~reset;\n  l0 <= i_last;\n  e0 <= i_vote;\n  pol0 <= polmem[i_q];\nend\n";
    // ---- the network
    let nl = net.layers.len();
    let last = &net.layers[nl - 1];
    let off = last.w.iter().zip(&last.b).map(|(r, b)| r.iter().filter(|w| **w < 0).count() as i64 - b).max().unwrap().max(0);
    // inputs and hidden units no weight uses, and sums a constant threshold ignores, are sunk
    let mut sinks = vec!["x0".to_string(), "bc_v".to_string()];
    let mut a = "x0".to_string();
    let mut st = 0;
    for l in 0..nl {
        let name = format!("h{}", l + 1);
        st += ternary_layer(&mut v, &mut sinks, net, l, &a, &name, l == nl - 1, off);
        if l + 1 < nl {
            sinks.push(name.clone());
        }
        a = name;
    }
    // the beat's class
    let sc = format!("h{nl}_s");
    st += tournament(&mut v, nc, &sc, "bc");
    assert_eq!(1 + st, beat_latency(net));
    // the beat's flags beside the network
    delay(&mut v, "side", 5, "{v0, l0, e0, pol0}", st);
    v += "wire b_v = side_d[4];\nwire b_l = side_d[3];\nwire b_e = side_d[2];\nwire [1:0] b_pol = side_d[1:0];\n";
    v += "always @(*) begin\n  beat_class = bc_i;\n  beat_class_valid = b_v;\nend\n";
    // ---- aggregator: the frame's votes; at its last beat, the totals
    for c in 0..nc {
        v += &format!("reg [15:0] cnt{c}, tot{c};\nwire [15:0] nv{c} = cnt{c} + {{15'd0, b_e && bc_i == 3'd{c}}};\n");
        v += &format!("always @(posedge clock) begin\n  if (reset) cnt{c} <= 16'd0;\n  else if (b_v) cnt{c} <= b_l ? 16'd0 : nv{c};\n  if (b_v && b_l) tot{c} <= nv{c};\nend\n");
    }
    v += "reg t_v;\nreg [1:0] t_pol;\nalways @(posedge clock) begin\n  t_v <= b_v & b_l & ~reset;\n  t_pol <= b_pol;\nend\n";
    let ft = tournament(&mut v, nc, "tot", "fc");
    delay(&mut v, "fside", 3, "{t_v, t_pol}", ft);
    v += "reg r_v;\nreg [1:0] r_verdict;\nalways @(posedge clock) begin\n  r_v <= fside_d[2] & ~reset;\n  r_verdict <= (fc_v != 16'd0 && cmask[fc_i]) ? fside_d[1:0] : 2'd0;\nend\n";
    // padding to DPI_LATENCY
    let pad = DPI_LATENCY - lat;
    if pad == 0 {
        v += "always @(*) begin\n  verdict = r_verdict;\n  verdict_valid = r_v;\nend\n";
    } else {
        delay(&mut v, "vpad", 3, "{r_v & ~reset, r_verdict}", pad);
        v += "always @(*) begin\n  verdict = vpad_d[1:0];\n  verdict_valid = vpad_d[2];\nend\n";
    }
    v += &format!("wire unused_d = ^{{in_beat, c_d[31:26], c_d[23:{qa}], {}}};\n", sinks.join(", "));
    v
}
