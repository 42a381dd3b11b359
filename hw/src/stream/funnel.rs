//! `ByteFunnel`: `y = ({hi, lo} >> 8·r)[511:0]`, the 64 bytes that start `r` (0..=63) bytes into
//! the 128-byte pair `{hi, lo}` (`lo` first). The realignment at the heart of `AxisStrip`.
//! A parent whose `#[hdl_gen]` block sets this block's inputs conditionally and reads `y` back
//! makes Verilator see a combinational loop through the two (UNOPTFLAT): set each input with one
//! plain assignment, choosing between values with [`Sel`] blocks.
//!
//! Emitted as three explicit stages of 4:1 byte multiplexers, each on two bits of `r` (shift by
//! 0..3, then 0..12 in fours, then 0..48 in sixteens), each stage only as wide as the later
//! stages still read (124, 112, then 64 bytes): three LUT levels and about 2,600 LUT on
//! UltraScale+ (Yosys), where `{hi, lo} >> {r, 3'b0}` written as one shift maps to about 5,100.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ByteFunnel {
    pub hi: Signal<In, Bits<512>>,
    pub lo: Signal<In, Bits<512>>,
    pub r: Signal<In, Bits<6>>,
    pub y: Signal<Out, Bits<512>>,
}

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

/// One stage of 4:1 byte multiplexers on the select bits `{sel}[s1]`, `{sel}[s0]` (k = 0..3):
/// `dst` byte j = `src` byte `at(j, k)`; each line starts with `lead` (`assign ` for a wire,
/// indentation inside `always`).
#[allow(clippy::too_many_arguments)]
fn stage(v: &mut String, lead: &str, dst: &str, src: &str, bytes: usize, sel: &str, s1: usize, s0: usize, at: impl Fn(usize, usize) -> usize) {
    for j in 0..bytes {
        let d: Vec<String> = (0..4).map(|k| byte(src, at(j, k))).collect();
        *v += &format!("{lead}{} = {sel}[{s1}] ? ({sel}[{s0}] ? {} : {}) : ({sel}[{s0}] ? {} : {});\n", byte(dst, j), d[3], d[2], d[1], d[0]);
    }
}

impl Logic for ByteFunnel {
    fn update(&mut self) {
        let r: u64 = self.r.val().into();
        let c = (bit_cast::<1024, 512>(self.hi.val()) << 512) | bit_cast::<1024, 512>(self.lo.val());
        self.y.next = bit_cast::<512, 1024>(c >> Bits::<11>::from(8 * r));
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        // (byte 127 of the pair is never read: r ≤ 63)
        let mut v = String::from(nicgen_sim::KEEP_HIERARCHY);
        v += "wire [1023:0] c = {hi, lo};\nwire unused_c = &c[1023:1016];\nwire [991:0] a;\nwire [895:0] b;\n";
        stage(&mut v, "assign ", "a", "c", 124, "r", 1, 0, |j, k| j + k);
        stage(&mut v, "assign ", "b", "a", 112, "r", 3, 2, |j, k| j + 4 * k);
        v += "always @(*) begin\n";
        stage(&mut v, "  ", "y", "b", 64, "r", 5, 4, |j, k| j + 16 * k);
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// `ByteRot`: `y` = `x` rotated up by `c` bytes (byte j of `y` is byte (j − c) mod 64 of `x`).
/// The realignment at the heart of `AxisInsert`: the bytes a beat moves up stay in this beat
/// (at and above `c`), the ones it moves past the top wrap to the bottom and become the next
/// beat's carry. Three stages of 4:1 byte multiplexers (c in ones, fours, sixteens), 512 LUT
/// each, kept whole in synthesis like [`ByteFunnel`].
#[derive(LogicBlock, Default)]
pub struct ByteRot {
    pub x: Signal<In, Bits<512>>,
    pub c: Signal<In, Bits<6>>,
    pub y: Signal<Out, Bits<512>>,
}

impl Logic for ByteRot {
    fn update(&mut self) {
        let c: u64 = self.c.val().into();
        let x = self.x.val();
        self.y.next = if c == 0 { x } else { (x << (8 * c)) | (x >> (512 - 8 * c)) };
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from(nicgen_sim::KEEP_HIERARCHY);
        v += "wire [511:0] a;\nwire [511:0] b;\n";
        stage(&mut v, "assign ", "a", "x", 64, "c", 1, 0, |j, k| (j + 64 - k) % 64);
        stage(&mut v, "assign ", "b", "a", 64, "c", 3, 2, |j, k| (j + 64 - 4 * k) % 64);
        v += "always @(*) begin\n";
        stage(&mut v, "  ", "y", "b", 64, "c", 5, 4, |j, k| (j + 64 - 16 * k) % 64);
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// `ByteSplit`: the bytes of `x` at and above byte `c` (`hi`, the rest zero) and below it
/// (`lo`). After a [`ByteRot`] by `c`: `hi` is what stays in this beat, `lo` what wraps into
/// the next. Not kept whole: each byte's mask merges into the logic that reads it.
#[derive(LogicBlock, Default)]
pub struct ByteSplit {
    pub x: Signal<In, Bits<512>>,
    pub c: Signal<In, Bits<6>>,
    pub hi: Signal<Out, Bits<512>>,
    pub lo: Signal<Out, Bits<512>>,
}

impl Logic for ByteSplit {
    fn update(&mut self) {
        let c: u64 = self.c.val().into();
        let x = self.x.val();
        let lo_mask: Bits<512> = if c == 0 { Bits::default() } else { !Bits::<512>::default() >> (512 - 8 * c) };
        self.hi.next = x & !lo_mask;
        self.lo.next = x & lo_mask;
    }
    fn connect(&mut self) {
        self.hi.connect();
        self.lo.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        for j in 0..63 {
            let b = byte("x", j);
            v += &format!("assign {} = (c <= 6'd{j}) ? {b} : 8'd0;\nassign {} = (c > 6'd{j}) ? {b} : 8'd0;\n", byte("hi", j), byte("lo", j));
        }
        // byte 63 is never below c
        v += &format!("assign {} = {};\nassign {} = 8'd0;\n", byte("hi", 63), byte("x", 63), byte("lo", 63));
        Verilog::Custom(v)
    }
}
