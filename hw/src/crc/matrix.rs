//! `XorMatrix`: a GF(2) matrix as generated Verilog (`Verilog::Custom`: one XOR per output
//! bit), with a word-level Rust model for rust-hdl simulation.
use super::gf2::Gf2Matrix;
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
            let mut terms: Vec<String> = (0..I).filter(|j| row[j / 64] >> (j % 64) & 1 == 1).map(|j| format!("x[{j}]")).collect();
            let mut level = 0;
            while terms.len() > 6 {
                terms = terms
                    .chunks(6)
                    .enumerate()
                    .map(|(k, c)| {
                        if c.len() == 1 {
                            return c[0].clone();
                        }
                        let w = format!("t{i}_{level}_{k}");
                        wires += &format!("(* keep *) wire {w} = {};\n", c.join(" ^ "));
                        w
                    })
                    .collect();
                level += 1;
            }
            let e = if terms.is_empty() { "1'b0".to_string() } else { terms.join(" ^ ") };
            v += &format!("  y[{i}] = {e};\n");
        }
        v += "end\n";
        Verilog::Custom(wires + &v)
    }
}
