//! `record!`: one definition of a header or command record, giving both
//! * the hardware `LogicStruct` (fields of width 1 are `Bit`, others `Bits<N>`; the first field
//!   sits at bit 0), and
//! * a plain-integer mirror for testbenches and models, with field access by name, packing to
//!   and from u32 words (the port's bits) and conversion to the hardware struct,
//!
//! plus `StructWords` so the struct can be a top-level port under every simulator.
use num_bigint::BigUint;

/// Conversion of a field value to and from u128.
pub trait FieldInt: Copy {
    fn to_u128(self) -> u128;
    fn from_u128(v: u128) -> Self;
}
impl FieldInt for bool {
    fn to_u128(self) -> u128 {
        self as u128
    }
    fn from_u128(v: u128) -> Self {
        v & 1 == 1
    }
}
macro_rules! field_int {
    ($($t:ty),*) => {$(
        impl FieldInt for $t {
            fn to_u128(self) -> u128 { self as u128 }
            fn from_u128(v: u128) -> Self { v as $t }
        }
    )*};
}
field_int!(u8, u16, u32, u64, u128);

/// Bits `off..off+width` of a word vector.
pub fn words_get(w: &[u32], off: usize, width: usize) -> u128 {
    let big = BigUint::from_slice(w);
    let v = (big >> off) & ((BigUint::from(1u8) << width) - 1u8);
    v.to_u64_digits().iter().rev().fold(0u128, |a, d| a << 64 | *d as u128)
}

/// Words of `bits` bits holding `(offset, width, value)` fields.
pub fn words_put(bits: usize, fields: impl Iterator<Item = (usize, usize, u128)>) -> Vec<u32> {
    let mut big = BigUint::from(0u8);
    for (o, w, v) in fields {
        let mask = if w == 128 { u128::MAX } else { (1u128 << w) - 1 };
        big |= BigUint::from(v & mask) << o;
    }
    let mut w = big.to_u32_digits();
    w.resize(bits.div_ceil(32), 0);
    w
}

#[macro_export]
macro_rules! record {
    (@hw 1) => { rust_hdl::prelude::Bit };
    (@hw $w:tt) => { rust_hdl::prelude::Bits<$w> };
    (@get $b:ident, $o:expr, 1) => { $b.get_bit($o) };
    (@get $b:ident, $o:expr, $w:tt) => { $b.get_bits::<$w>($o) };
    (
        $(#[$m:meta])* $hw:ident, $(#[$pm:meta])* $plain:ident {
            $( $(#[$fm:meta])* $f:ident : $t:ty = $w:tt ),* $(,)?
        }
    ) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Default, rust_hdl::prelude::LogicStruct)]
        pub struct $hw {
            $( $(#[$fm])* pub $f: $crate::record!(@hw $w), )*
        }

        $(#[$pm])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
        pub struct $plain {
            $( $(#[$fm])* pub $f: $t, )*
        }

        impl $plain {
            /// (name, width) of every field, from bit 0 up.
            pub const FIELDS: &'static [(&'static str, usize)] = &[$((stringify!($f), $w)),*];
            /// Total bits.
            pub const BITS: usize = 0 $(+ $w)*;
            /// (offset, width) of a field in the packed struct.
            pub fn slot(name: &str) -> (usize, usize) {
                let mut o = 0;
                for (n, w) in Self::FIELDS {
                    if *n == name {
                        return (o, *w);
                    }
                    o += w;
                }
                panic!("{} has no field {name}", stringify!($hw))
            }
            pub fn get(&self, name: &str) -> u128 {
                match name {
                    $( stringify!($f) => $crate::record::FieldInt::to_u128(self.$f), )*
                    _ => panic!("{} has no field {name}", stringify!($hw)),
                }
            }
            pub fn set(&mut self, name: &str, v: u128) {
                match name {
                    $( stringify!($f) => self.$f = $crate::record::FieldInt::from_u128(v), )*
                    _ => panic!("{} has no field {name}", stringify!($hw)),
                }
            }
            pub fn from_words(w: &[u32]) -> Self {
                let mut r = Self::default();
                let mut o = 0;
                for (n, width) in Self::FIELDS {
                    r.set(n, $crate::record::words_get(w, o, *width));
                    o += width;
                }
                r
            }
            pub fn to_words(&self) -> Vec<u32> {
                let mut o = 0;
                let f: Vec<(usize, usize, u128)> = Self::FIELDS
                    .iter()
                    .map(|(n, w)| {
                        let x = (o, *w, self.get(n));
                        o += w;
                        x
                    })
                    .collect();
                $crate::record::words_put(Self::BITS, f.into_iter())
            }
            /// The plain fields of a hardware struct (a block's Rust model reading its input).
            pub fn from_struct(s: &$hw) -> Self {
                Self::from_words(&nicgen_hdl::StructWords::to_words(s))
            }
            pub fn to_struct(&self) -> $hw {
                let bytes: Vec<u8> = self.to_words().iter().flat_map(|x| x.to_le_bytes()).collect();
                let b: rust_hdl::prelude::Bits<{ <$hw as rust_hdl::prelude::Synth>::BITS }> =
                    rust_hdl::prelude::Bits::from(num_bigint::BigUint::from_bytes_le(&bytes));
                let mut h = $hw::default();
                let mut _o = 0usize;
                $(
                    h.$f = $crate::record!(@get b, _o, $w);
                    _o += $w;
                )*
                h
            }
        }

        impl nicgen_hdl::StructWords for $hw {
            fn to_words(&self) -> Vec<u32> {
                let b: rust_hdl::prelude::Bits<{ <$hw as rust_hdl::prelude::Synth>::BITS }> = (*self).into();
                let mut w = num_bigint::BigUint::from(b).to_u32_digits();
                w.resize(<$hw as rust_hdl::prelude::Synth>::BITS.div_ceil(32), 0);
                w
            }
            fn from_words(w: &[u32]) -> Self {
                $plain::from_words(w).to_struct()
            }
        }
    };
}

use rust_hdl::prelude::*;

/// A record read out of a RAM word: `Bits<N>` in, the struct out (same bits; pure wiring).
#[derive(LogicBlock, Default)]
pub struct FromBits<T: Synth + nicgen_hdl::StructWords, const N: usize> {
    pub bits: Signal<In, Bits<N>>,
    pub fields: Signal<Out, T>,
}

impl<T: Synth + nicgen_hdl::StructWords, const N: usize> Logic for FromBits<T, N> {
    fn update(&mut self) {
        assert_eq!(T::BITS, N);
        let w: Vec<u32> = crate::crc::matrix::bits_to_u64s(self.bits.val()).iter().flat_map(|d| [*d as u32, (*d >> 32) as u32]).collect();
        self.fields.next = T::from_words(&w);
    }
    fn connect(&mut self) {
        self.fields.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("assign fields = bits;\n".into())
    }
}

/// A record written into a RAM word: the struct in, `Bits<N>` out.
#[derive(LogicBlock, Default)]
pub struct ToBits<T: Synth + nicgen_hdl::StructWords, const N: usize> {
    pub fields: Signal<In, T>,
    pub bits: Signal<Out, Bits<N>>,
}

impl<T: Synth + nicgen_hdl::StructWords, const N: usize> Logic for ToBits<T, N> {
    fn update(&mut self) {
        let w = self.fields.val().to_words();
        let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.bits.next = crate::crc::fields::bits_of(&bytes[..N.div_ceil(8)]);
    }
    fn connect(&mut self) {
        self.bits.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("assign bits = fields;\n".into())
    }
}
