//! Word-level access to a block's ports (u32 words, little-endian), for testbenches.
use rust_hdl::prelude::*;

/// Word-level access to a rust-hdl signal.
pub trait SigWords {
    fn put(&mut self, w: &[u32]);
    fn take(&self, w: &mut [u32]);
}

fn bits_put<const N: usize>(w: &[u32]) -> Bits<N> {
    if N <= 64 {
        let v = w[0] as u64 | (w.get(1).copied().unwrap_or(0) as u64) << 32;
        let v = if N == 64 { v } else { v & ((1u64 << N) - 1) };
        v.into()
    } else {
        let mut ws = w[..N.div_ceil(32).min(w.len())].to_vec();
        if N % 32 != 0 && ws.len() == N.div_ceil(32) {
            let last = ws.len() - 1;
            ws[last] &= (1u32 << (N % 32)) - 1;
        }
        Bits::<N>::from(num_bigint::BigUint::from_slice(&ws))
    }
}

fn bits_take<const N: usize>(b: Bits<N>, w: &mut [u32]) {
    if N <= 64 {
        let v: u64 = b.into();
        w[0] = v as u32;
        if w.len() > 1 {
            w[1] = (v >> 32) as u32;
        }
    } else {
        let big: num_bigint::BigUint = b.into();
        let d = big.to_u32_digits();
        for (i, x) in w.iter_mut().enumerate() {
            *x = d.get(i).copied().unwrap_or(0);
        }
    }
}

macro_rules! sigwords_dir {
    ($d:ty) => {
        impl<const N: usize> SigWords for Signal<$d, Bits<N>> {
            fn put(&mut self, w: &[u32]) {
                self.next = bits_put::<N>(w)
            }
            fn take(&self, w: &mut [u32]) {
                bits_take::<N>(self.val(), w)
            }
        }
        impl SigWords for Signal<$d, Bit> {
            fn put(&mut self, w: &[u32]) {
                self.next = w[0] & 1 != 0
            }
            fn take(&self, w: &mut [u32]) {
                w[0] = self.val() as u32
            }
        }
        impl SigWords for Signal<$d, Clock> {
            fn put(&mut self, w: &[u32]) {
                self.next = Clock { clk: w[0] & 1 != 0 }
            }
            fn take(&self, w: &mut [u32]) {
                w[0] = self.val().clk as u32
            }
        }
    };
}
sigwords_dir!(In);
sigwords_dir!(Out);

/// A `LogicStruct` port type that testbenches set and read as u32 words (its packed bits).
/// Implement it next to the struct; every `Signal` of that type then works with `impl_ports!`.
pub trait StructWords: Synth {
    fn to_words(&self) -> Vec<u32>;
    fn from_words(w: &[u32]) -> Self;
}

macro_rules! structwords_dir {
    ($d:ty) => {
        impl<T: StructWords> SigWords for Signal<$d, T> {
            fn put(&mut self, w: &[u32]) {
                self.next = T::from_words(w)
            }
            fn take(&self, w: &mut [u32]) {
                let v = self.val().to_words();
                let n = w.len().min(v.len());
                w[..n].copy_from_slice(&v[..n]);
            }
        }
    };
}
structwords_dir!(In);
structwords_dir!(Out);

/// Implemented per top-level block by [`impl_ports!`](crate::impl_ports): index → signal, in
/// `top_ports` order.
pub trait PortAccess {
    fn port_sig(&mut self, idx: usize) -> &mut dyn SigWords;
    fn clock_sig(&mut self) -> &mut Signal<In, Clock>;
    fn port_names() -> Vec<String>
    where
        Self: Sized;
}

/// `impl_ports!(Type, clock = clock, [clock, reset, s_axis.tdata, ...])`: list every top-level
/// port in declaration order. `RustHdlSim::new` checks the list against the Verilog port order.
/// `impl_ports!([Type, Type1024], clock = ..., [...])`: one list for several types with the same
/// ports (a block's width aliases).
#[macro_export]
macro_rules! impl_ports {
    ([$t:ty $(, $rest:ty)* $(,)?], $($tail:tt)*) => {
        $crate::impl_ports!($t, $($tail)*);
        $crate::impl_ports!([$($rest),*], $($tail)*);
    };
    ([], $($tail:tt)*) => {};
    ($t:ty, clock = $($clk:ident).+, [ $( $($p:ident).+ ),* $(,)? ]) => {
        impl $crate::PortAccess for $t {
            fn port_sig(&mut self, idx: usize) -> &mut dyn $crate::SigWords {
                let mut i = 0usize;
                $( if idx == i { return &mut self.$($p).+; } i += 1; )*
                let _ = i;
                panic!("bad port index {idx}")
            }
            fn clock_sig(&mut self) -> &mut rust_hdl::prelude::Signal<rust_hdl::prelude::In, rust_hdl::prelude::Clock> { &mut self.$($clk).+ }
            fn port_names() -> Vec<String> {
                vec![$( stringify!($($p).+).replace(' ', "").replace('.', "$") ),*]
            }
        }
    };
}
