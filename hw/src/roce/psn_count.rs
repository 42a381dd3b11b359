//! [`PsnCount`]: the PSNs a message takes, `max(1, ceil(len / PMTU))`.
use rust_hdl::prelude::*;

/// PSNs a message of `len` bytes takes at the PMTU of `code` (`256 << code` bytes, IBA's
/// `max(1, ceil(len / PMTU))`; a READ reserves this many, and its response has this many
/// packets). Combinational: for each code, `(len + PMTU - 1) >> (8 + code)` with constants (an
/// adder, 33 bits wide so that no length overflows it, and wiring), and the code picks one. So
/// neither a variable shift nor an adder sits behind the code, which comes late in the
/// responder (from its configuration RAM). Rounding up with an OR of the bits shifted out and an
/// incrementer measured 2 LUT levels more there.
#[derive(LogicBlock)]
pub struct PsnCount {
    pub len: Signal<In, Bits<32>>,
    pub code: Signal<In, Bits<3>>,
    pub n: Signal<Out, Bits<24>>,
    len33: Signal<Local, Bits<33>>,
    quo: [Signal<Local, Bits<33>>; 8],
    c_pm1: [Constant<Bits<33>>; 8],
    c_sh: [Constant<Bits<33>>; 8],
    c1: Constant<Bits<24>>,
}

impl Default for PsnCount {
    fn default() -> Self {
        Self {
            len: Default::default(),
            code: Default::default(),
            n: Default::default(),
            len33: Default::default(),
            quo: Default::default(),
            c_pm1: core::array::from_fn(|i| Constant::new(((256u64 << i) - 1).into())),
            c_sh: core::array::from_fn(|i| Constant::new((8 + i as u64).into())),
            c1: Constant::new(1.into()),
        }
    }
}

impl Logic for PsnCount {
    #[hdl_gen]
    fn update(&mut self) {
        self.len33.next = bit_cast::<33, 32>(self.len.val());
        for i in 0..8 {
            self.quo[i].next = (self.len33.val() + self.c_pm1[i].val()) >> self.c_sh[i].val();
        }
        match self.code.val().index() {
            0 => self.n.next = bit_cast::<24, 33>(self.quo[0].val()),
            1 => self.n.next = bit_cast::<24, 33>(self.quo[1].val()),
            2 => self.n.next = bit_cast::<24, 33>(self.quo[2].val()),
            3 => self.n.next = bit_cast::<24, 33>(self.quo[3].val()),
            4 => self.n.next = bit_cast::<24, 33>(self.quo[4].val()),
            5 => self.n.next = bit_cast::<24, 33>(self.quo[5].val()),
            6 => self.n.next = bit_cast::<24, 33>(self.quo[6].val()),
            _ => self.n.next = bit_cast::<24, 33>(self.quo[7].val()),
        }
        if !self.len.val().any() {
            self.n.next = self.c1.val();
        }
    }
}
