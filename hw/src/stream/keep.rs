//! `KeepExpand`: a `tkeep` byte mask widened to a bit mask (`mask[8b+7:8b] = {8{keep[b]}}`),
//! generated Verilog with a word-level Rust model.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct KeepExpand<const K: usize, const D: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub mask: Signal<Out, Bits<D>>,
}

impl<const K: usize, const D: usize> Logic for KeepExpand<K, D> {
    fn update(&mut self) {
        let mut m = num_bigint::BigUint::from(0u32);
        for b in (0..K).rev() {
            m <<= 8;
            if self.keep.val().get_bit(b) {
                m |= num_bigint::BigUint::from(0xffu32);
            }
        }
        self.mask.next = Bits::<D>::from(m);
    }
    fn connect(&mut self) {
        self.mask.connect();
    }
    fn hdl(&self) -> Verilog {
        assert_eq!(D, 8 * K);
        let mut v = String::from("always @(*) begin\n");
        for b in 0..K {
            v += &format!("  mask[{}:{}] = {{8{{keep[{b}]}}}};\n", 8 * b + 7, 8 * b);
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// A contiguous (low-aligned) `tkeep` rounded up to a multiple of 4 bytes: byte `i` is kept
/// when byte `i & !3` is. Wiring only (no LUT): the 4-byte pad's keep without counting bytes.
#[derive(LogicBlock, Default)]
pub struct KeepUp4<const K: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub out: Signal<Out, Bits<K>>,
}

impl<const K: usize> KeepUp4<K> {
    pub fn eval(keep: u64) -> u64 {
        (0..K).filter(|&i| keep >> (i & !3) & 1 == 1).fold(0u64, |a, i| a | 1 << i)
    }
}

impl<const K: usize> Logic for KeepUp4<K> {
    fn update(&mut self) {
        let k: u64 = self.keep.val().into();
        self.out.next = Self::eval(k).into();
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!(K <= 64 && K % 4 == 0);
        let mut v = String::from("always @(*) begin\n");
        for i in 0..K {
            v += &format!("  out[{i}] = keep[{}];\n", i & !3);
        }
        v += "end\n";
        // a contiguous keep's other bits follow from these
        let rest: Vec<String> = (0..K).filter(|i| i % 4 != 0).map(|i| format!("keep[{i}]")).collect();
        v += &format!("wire unused_keep = ^{{{}}};\n", rest.join(", "));
        Verilog::Custom(v)
    }
}
