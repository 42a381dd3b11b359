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

/// One stage: `dst` byte j = `src` byte j + k·`step`, k from the two select bits `s1`, `s0`;
/// each line starts with `lead` (`assign ` for a wire, indentation inside `always`).
fn stage(v: &mut String, lead: &str, dst: &str, src: &str, bytes: usize, step: usize, s1: usize, s0: usize) {
    for j in 0..bytes {
        let d: Vec<String> = (0..4).map(|k| byte(src, j + k * step)).collect();
        *v += &format!("{lead}{} = r[{s1}] ? (r[{s0}] ? {} : {}) : (r[{s0}] ? {} : {});\n", byte(dst, j), d[3], d[2], d[1], d[0]);
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
        let mut v = String::from("wire [1023:0] c = {hi, lo};\nwire unused_c = &c[1023:1016];\nwire [991:0] a;\nwire [895:0] b;\n");
        stage(&mut v, "assign ", "a", "c", 124, 1, 1, 0);
        stage(&mut v, "assign ", "b", "a", 112, 4, 3, 2);
        v += "always @(*) begin\n";
        stage(&mut v, "  ", "y", "b", 64, 16, 5, 4);
        v += "end\n";
        Verilog::Custom(v)
    }
}
