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
