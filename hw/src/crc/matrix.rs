//! `XorMatrix`: a GF(2) matrix as generated Verilog (`Verilog::Custom`: one XOR per output
//! bit), with a word-level Rust model for rust-hdl simulation.
use super::gf2::{crc32_raw, unshift_matrix, Gf2Matrix};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct XorMatrix<const I: usize, const O: usize> {
    pub x: Signal<In, Bits<I>>,
    pub y: Signal<Out, Bits<O>>,
    _m: Box<Gf2Matrix>,
}

impl<const I: usize, const O: usize> XorMatrix<I, O> {
    pub fn new(m: Gf2Matrix) -> Self {
        assert_eq!(m.inputs, I);
        assert_eq!(m.rows.len(), O);
        assert!(O <= 64);
        XorMatrix { x: Default::default(), y: Default::default(), _m: Box::new(m) }
    }
}

pub fn bits_to_u64s<const N: usize>(b: Bits<N>) -> Vec<u64> {
    if N <= 64 {
        let v: u64 = b.into();
        vec![v]
    } else {
        let big: BigUint = b.into();
        let mut w = big.to_u64_digits();
        w.resize(N.div_ceil(64), 0);
        w
    }
}

impl<const I: usize, const O: usize> Logic for XorMatrix<I, O> {
    fn update(&mut self) {
        let x = bits_to_u64s(self.x.val());
        self.y.next = self._m.apply(&x).into();
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    /// Each output's XOR as a tree of 6-input XORs, every inner node a `(* keep *)` wire: one
    /// LUT6 each, so a row of n terms takes about n/5 LUTs and log6(n) levels. Left to itself,
    /// Yosys's mapper spends about twice that on the 32×512 beat matrix (3,312 against 1,714).
    fn hdl(&self) -> Verilog {
        let mut wires = String::new();
        let mut v = String::from("always @(*) begin\n");
        for (i, row) in self._m.rows.iter().enumerate() {
            let terms = xor_tree(row_terms(row, I, "x"), 6, &format!("t{i}"), &mut wires);
            let e = if terms.is_empty() { "1'b0".to_string() } else { terms.join(" ^ ") };
            v += &format!("  y[{i}] = {e};\n");
        }
        v += "end\n";
        Verilog::Custom(wires + &v)
    }
}

/// The inputs `{x}[j]` a matrix row selects.
fn row_terms(row: &[u64], inputs: usize, x: &str) -> Vec<String> {
    (0..inputs).filter(|j| row[j / 64] >> (j % 64) & 1 == 1).map(|j| format!("{x}[{j}]")).collect()
}

/// Reduce an XOR of `terms` to at most `max` terms with 6-input XORs on `(* keep *)` wires
/// (`{name}_{level}_{k}`, one LUT6 each), appended to `wires`.
fn xor_tree(mut terms: Vec<String>, max: usize, name: &str, wires: &mut String) -> Vec<String> {
    let mut level = 0;
    while terms.len() > max {
        terms = terms
            .chunks(6)
            .enumerate()
            .map(|(k, c)| {
                if c.len() == 1 {
                    return c[0].clone();
                }
                let w = format!("{name}_{level}_{k}");
                *wires += &format!("(* keep *) wire {w} = {};\n", c.join(" ^ "));
                w
            })
            .collect();
        level += 1;
    }
    terms
}

/// What a [`CrcFix`] does to a 32-bit CRC register `x` that has run on over `z` zero bytes
/// after the last byte it covers (`z` = 0..63, the zeroed tail of a last beat).
#[derive(Clone, Debug)]
pub enum FixKind {
    /// Undo the zero bytes of one 2-bit digit of `z`: `A^-(n·d)·x` for `d = z[pos+1:pos]`, as two
    /// conditional steps, `A^-n` when `z[pos]` and then `A^-2n` when `z[pos+1]`.
    Unshift { n: usize, pos: usize },
    /// `x ^ A^z·r`: zero exactly when the register before the zero bytes was `r` (`A` is
    /// invertible). A checker compares with the CRC residue this way, with no `A^-z` at all.
    Residue(u32),
    /// `x` unchanged.
    Pass,
}

enum FixPlan {
    /// `(bit of z, matrix)`, applied in order, each when its bit is set.
    Steps(Vec<(usize, Gf2Matrix)>),
    /// `x ^ table[z]`.
    Table(Vec<u32>),
}

/// One fix-up function on the CRC register (`Verilog::Custom`, with a Rust model).
///
/// A conditional step `y = z[b] ? M·x : x` is emitted as `y_i = x_i ^ (z[b] & (D·x)_i)` with
/// `D = M ⊕ I`: `D`'s rows (at most 23 terms for the ICRC's `A^-n`) are reduced to at most 4
/// partial XORs (one LUT6 each), so that each output bit is one more LUT6 with `x_i` and
/// `z[b]`: two LUT levels a step. The table is one LUT6 per bit on `z` and one XOR.
#[derive(LogicBlock)]
pub struct CrcFix {
    pub x: Signal<In, Bits<32>>,
    pub z: Signal<In, Bits<6>>,
    pub y: Signal<Out, Bits<32>>,
    _p: Box<FixPlan>,
}

impl CrcFix {
    pub fn new(kind: FixKind) -> Self {
        let p = match kind {
            FixKind::Unshift { n, pos } => FixPlan::Steps(vec![(pos, unshift_matrix(n)), (pos + 1, unshift_matrix(2 * n))]),
            FixKind::Residue(r) => FixPlan::Table((0..64).map(|z| crc32_raw(r, &vec![0u8; z])).collect()),
            FixKind::Pass => FixPlan::Steps(vec![]),
        };
        CrcFix { x: Default::default(), z: Default::default(), y: Default::default(), _p: Box::new(p) }
    }
    /// The Rust model: `y` for `x` and `z`.
    pub fn model(&self, x: u32, z: usize) -> u32 {
        match &*self._p {
            FixPlan::Steps(steps) => steps.iter().fold(x, |v, (b, m)| if z >> b & 1 == 1 { m.apply(&[v as u64]) as u32 } else { v }),
            FixPlan::Table(t) => x ^ t[z],
        }
    }
}

impl Logic for CrcFix {
    fn update(&mut self) {
        let x: u64 = self.x.val().into();
        let z: u64 = self.z.val().into();
        self.y.next = (self.model(x as u32, z as usize) as u64).into();
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut wires = String::new();
        let mut v = String::from("always @(*) begin\n");
        match &*self._p {
            FixPlan::Steps(steps) => {
                let mut cur = "x".to_string();
                for (s, (b, m)) in steps.iter().enumerate() {
                    let last = s + 1 == steps.len();
                    let out = if last { "y".to_string() } else { format!("v{s}") };
                    if !last {
                        wires += &format!("wire [31:0] {out};\n");
                    }
                    for (i, row) in m.rows.iter().enumerate() {
                        let mut d = row.clone();
                        d[0] ^= 1 << i;
                        let terms = xor_tree(row_terms(&d, 32, &cur), 4, &format!("s{s}_t{i}"), &mut wires);
                        let e = if terms.is_empty() { format!("{cur}[{i}]") } else { format!("{cur}[{i}] ^ (z[{b}] & ({}))", terms.join(" ^ ")) };
                        if last {
                            v += &format!("  y[{i}] = {e};\n");
                        } else {
                            // a LUT of its own: the next step's XORs start from it
                            wires += &format!("(* keep *) wire {out}_{i} = {e};\nassign {out}[{i}] = {out}_{i};\n");
                        }
                    }
                    cur = out;
                }
                if steps.is_empty() {
                    v += "  y = x;\n";
                }
                // the bits of z that other steps own (Verilator ignores names matching *unused*)
                wires += "wire unused_z = ^z;\n";
            }
            FixPlan::Table(t) => {
                wires += "reg [31:0] t;\n";
                v += "  case (z)\n";
                for (z, c) in t.iter().enumerate() {
                    v += &format!("    6'd{z}: t = 32'h{c:08x};\n");
                }
                v += "    default: t = 32'h0;\n  endcase\n  y = x ^ t;\n";
            }
        }
        v += "end\n";
        Verilog::Custom(wires + &v)
    }
}
