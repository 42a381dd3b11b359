//! `ByteFunnel`: `y = ({hi, lo} >> 8·r)[D-1:0]`, the `K` = `D`/8 bytes that start `r`
//! (0..K-1) bytes into the 2K-byte pair `{hi, lo}` (`lo` first). The realignment at the heart
//! of `AxisStrip`. A parent whose `#[hdl_gen]` block sets this block's inputs conditionally and
//! reads `y` back makes Verilator see a combinational loop through the two (UNOPTFLAT): set each
//! input with one plain assignment, choosing between values with [`Sel`] blocks.
//!
//! Emitted as explicit stages of 4:1 byte multiplexers, each on two bits of `r` (at 512 bits:
//! shift by 0..3, then 0..12 in fours, then 0..48 in sixteens; at 1024 a last 2:1 stage by 64),
//! each stage only as wide as the later stages still read (124, 112, then 64 bytes at 512
//! bits): three LUT levels and about 2,600 LUT on UltraScale+ at 512 bits (Yosys), where
//! `{hi, lo} >> {r, 3'b0}` written as one shift maps to about 5,100.
use rust_hdl::prelude::*;

/// The funnel at `D` bits, `r` of `CB` = log2(`D`/8) bits.
#[derive(LogicBlock, Default)]
pub struct ByteFunnelW<const D: usize, const CB: usize> {
    pub hi: Signal<In, Bits<D>>,
    pub lo: Signal<In, Bits<D>>,
    pub r: Signal<In, Bits<CB>>,
    pub y: Signal<Out, Bits<D>>,
}

/// The 512-bit funnel.
pub type ByteFunnel = ByteFunnelW<512, 6>;

/// `y = sel ? b : a`, a multiplexer as a block of its own (see [`ByteFunnel`]).
#[derive(LogicBlock, Default)]
pub struct Sel<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<N>>,
    pub sel: Signal<In, Bit>,
    pub y: Signal<Out, Bits<N>>,
}

impl<const N: usize> Logic for Sel<N> {
    fn update(&mut self) {
        self.y.next = if self.sel.val() { self.b.val() } else { self.a.val() };
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) y = sel ? b : a;\n".into())
    }
}

/// `{name}[byte j]` as a Verilog part select.
fn byte(name: &str, j: usize) -> String {
    format!("{name}[{}:{}]", 8 * j + 7, 8 * j)
}

/// The multiplexer stages for a `cb`-bit byte shift: (the stage's low select bit `b`, its
/// number of select bits, 2 or a last 1); the stage shifts by `k << b` bytes, k < 2^bits.
fn stages_of(cb: usize) -> Vec<(usize, usize)> {
    (0..cb).step_by(2).map(|b| (b, (cb - b).min(2))).collect()
}

/// The most a stage shifts, in bytes.
fn stage_max((b, n): (usize, usize)) -> usize {
    ((1 << n) - 1) << b
}

/// One stage of 4:1 (or 2:1) byte multiplexers on the select bits `{sel}[b + 1]`, `{sel}[b]`:
/// `dst` byte j = `src` byte `at(j, k << b)` for the select value k; each line starts with
/// `lead` (`assign ` for a wire, indentation inside `always`).
#[allow(clippy::too_many_arguments)]
fn stage(v: &mut String, lead: &str, dst: &str, src: &str, bytes: usize, sel: &str, (b, n): (usize, usize), at: impl Fn(usize, usize) -> usize) {
    for j in 0..bytes {
        let d: Vec<String> = (0..1 << n).map(|k| byte(src, at(j, k << b))).collect();
        let e = if n == 2 {
            format!("{sel}[{}] ? ({sel}[{b}] ? {} : {}) : ({sel}[{b}] ? {} : {})", b + 1, d[3], d[2], d[1], d[0])
        } else {
            format!("{sel}[{b}] ? {} : {}", d[1], d[0])
        };
        *v += &format!("{lead}{} = {e};\n", byte(dst, j));
    }
}

/// Every stage of a byte shift: `src` to `out` through wires `{out}_s0`, `{out}_s1`, ... of
/// `widths[i]` bytes, the last stage in an `always` block (`out` is a `reg` port).
fn stages(v: &mut String, src: &str, out: &str, sel: &str, cb: usize, widths: &[usize], at: impl Fn(usize, usize) -> usize) {
    let st = stages_of(cb);
    let mut from = src.to_string();
    for (i, (&s, &w)) in st.iter().zip(widths).enumerate() {
        if i + 1 == st.len() {
            *v += "always @(*) begin\n";
            stage(v, "  ", out, &from, w, sel, s, &at);
            *v += "end\n";
        } else {
            let name = format!("{out}_s{i}");
            *v += &format!("wire [{}:0] {name};\n", 8 * w - 1);
            stage(v, "assign ", &name, &from, w, sel, s, &at);
            from = name;
        }
    }
}

/// `x` as a big unsigned integer.
fn big<const N: usize>(x: Bits<N>) -> num_bigint::BigUint {
    x.into()
}

impl<const D: usize, const CB: usize> Logic for ByteFunnelW<D, CB> {
    fn update(&mut self) {
        let r: u64 = self.r.val().into();
        let c = (big(self.hi.val()) << D) | big(self.lo.val());
        let mask = (num_bigint::BigUint::from(1u32) << D) - 1u32;
        self.y.next = Bits::<D>::from((c >> (8 * r as usize)) & mask);
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        let k = D / 8;
        assert_eq!(k, 1 << CB);
        // each stage's output as wide as the later stages read
        let st = stages_of(CB);
        let widths: Vec<usize> = (0..st.len()).map(|i| k + st[i + 1..].iter().map(|s| stage_max(*s)).sum::<usize>()).collect();
        // (the pair's top bytes past the widest read are never read: r ≤ K - 1)
        let top = widths[0] + stage_max(st[0]);
        let mut v = String::from(nicgen_hdl::KEEP_HIERARCHY);
        v += &format!("wire [{}:0] c = {{hi, lo}};\nwire unused_c = &c[{}:{}];\n", 2 * D - 1, 2 * D - 1, 8 * top);
        stages(&mut v, "c", "y", "r", CB, &widths, |j, s| j + s);
        Verilog::Custom(v)
    }
}

/// `ByteRot`: `y` = `x` rotated up by `c` bytes (byte j of `y` is byte (j − c) mod K of `x`,
/// K = `D`/8). The realignment at the heart of `AxisInsert`: the bytes a beat moves up stay in
/// this beat (at and above `c`), the ones it moves past the top wrap to the bottom and become
/// the next beat's carry. At 512 bits three stages of 4:1 byte multiplexers (c in ones, fours,
/// sixteens), 512 LUT each; at 1024 a fourth 2:1 stage (by 64); kept whole in synthesis like
/// [`ByteFunnel`].
#[derive(LogicBlock, Default)]
pub struct ByteRotW<const D: usize, const CB: usize> {
    pub x: Signal<In, Bits<D>>,
    pub c: Signal<In, Bits<CB>>,
    pub y: Signal<Out, Bits<D>>,
}

/// The 512-bit rotator.
pub type ByteRot = ByteRotW<512, 6>;

impl<const D: usize, const CB: usize> Logic for ByteRotW<D, CB> {
    fn update(&mut self) {
        let c: u64 = self.c.val().into();
        let x = self.x.val();
        self.y.next = if c == 0 { x } else { (x << (8 * c)) | (x >> (D as u64 - 8 * c)) };
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        let k = D / 8;
        assert_eq!(k, 1 << CB);
        let mut v = String::from(nicgen_hdl::KEEP_HIERARCHY);
        stages(&mut v, "x", "y", "c", CB, &vec![k; stages_of(CB).len()], |j, s| (j + k - s) % k);
        Verilog::Custom(v)
    }
}

/// `ByteSplit`: the bytes of `x` at and above byte `c` (`hi`, the rest zero) and below it
/// (`lo`). After a [`ByteRot`] by `c`: `hi` is what stays in this beat, `lo` what wraps into
/// the next. Not kept whole: each byte's mask merges into the logic that reads it.
#[derive(LogicBlock, Default)]
pub struct ByteSplitW<const D: usize, const CB: usize> {
    pub x: Signal<In, Bits<D>>,
    pub c: Signal<In, Bits<CB>>,
    pub hi: Signal<Out, Bits<D>>,
    pub lo: Signal<Out, Bits<D>>,
}

/// The 512-bit splitter.
pub type ByteSplit = ByteSplitW<512, 6>;

impl<const D: usize, const CB: usize> Logic for ByteSplitW<D, CB> {
    fn update(&mut self) {
        let c: u64 = self.c.val().into();
        let x = self.x.val();
        let lo_mask: Bits<D> = if c == 0 { Bits::default() } else { !Bits::<D>::default() >> (D as u64 - 8 * c) };
        self.hi.next = x & !lo_mask;
        self.lo.next = x & lo_mask;
    }
    fn connect(&mut self) {
        self.hi.connect();
        self.lo.connect();
    }
    fn hdl(&self) -> Verilog {
        let k = D / 8;
        let mut v = String::new();
        for j in 0..k - 1 {
            let b = byte("x", j);
            v += &format!("assign {} = (c <= {CB}'d{j}) ? {b} : 8'd0;\nassign {} = (c > {CB}'d{j}) ? {b} : 8'd0;\n", byte("hi", j), byte("lo", j));
        }
        // the top byte is never below c
        v += &format!("assign {} = {};\nassign {} = 8'd0;\n", byte("hi", k - 1), byte("x", k - 1), byte("lo", k - 1));
        Verilog::Custom(v)
    }
}
