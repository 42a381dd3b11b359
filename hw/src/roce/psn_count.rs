//! [`PsnCount`]: the PSNs a message takes, `max(1, ceil(len / PMTU))`.
use rust_hdl::prelude::*;

/// PSNs a message of `len` bytes takes at the PMTU of `code` (`256 << code` bytes, IBA's
/// `max(1, ceil(len / PMTU))`; a READ reserves this many, and its response has this many
/// packets). Combinational: for each code the quotient is a constant shift (wiring) and the
/// round-up bit an OR of the bits shifted out; the code picks one of each and one incrementer
/// adds them. So no variable shift sits behind the code's RAM or register, and there is one
/// adder, not eight (and no `len + PMTU - 1` to overflow).
#[derive(LogicBlock)]
pub struct PsnCount {
    pub len: Signal<In, Bits<32>>,
    pub code: Signal<In, Bits<3>>,
    pub n: Signal<Out, Bits<24>>,
    quo: [Signal<Local, Bits<32>>; 8],
    rnd: [Signal<Local, Bit>; 8],
    q: Signal<Local, Bits<24>>,
    r: Signal<Local, Bit>,
    c_mask: [Constant<Bits<32>>; 8],
    c_sh: [Constant<Bits<32>>; 8],
    c1: Constant<Bits<24>>,
}

impl Default for PsnCount {
    fn default() -> Self {
        Self {
            len: Default::default(),
            code: Default::default(),
            n: Default::default(),
            quo: Default::default(),
            rnd: Default::default(),
            q: Default::default(),
            r: Default::default(),
            c_mask: core::array::from_fn(|i| Constant::new(((256u64 << i) - 1).into())),
            c_sh: core::array::from_fn(|i| Constant::new((8 + i as u64).into())),
            c1: Constant::new(1.into()),
        }
    }
}

impl Logic for PsnCount {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..8 {
            self.quo[i].next = self.len.val() >> self.c_sh[i].val();
            self.rnd[i].next = (self.len.val() & self.c_mask[i].val()).any();
        }
        match self.code.val().index() {
            0 => {
                self.q.next = bit_cast::<24, 32>(self.quo[0].val());
                self.r.next = self.rnd[0].val();
            }
            1 => {
                self.q.next = bit_cast::<24, 32>(self.quo[1].val());
                self.r.next = self.rnd[1].val();
            }
            2 => {
                self.q.next = bit_cast::<24, 32>(self.quo[2].val());
                self.r.next = self.rnd[2].val();
            }
            3 => {
                self.q.next = bit_cast::<24, 32>(self.quo[3].val());
                self.r.next = self.rnd[3].val();
            }
            4 => {
                self.q.next = bit_cast::<24, 32>(self.quo[4].val());
                self.r.next = self.rnd[4].val();
            }
            5 => {
                self.q.next = bit_cast::<24, 32>(self.quo[5].val());
                self.r.next = self.rnd[5].val();
            }
            6 => {
                self.q.next = bit_cast::<24, 32>(self.quo[6].val());
                self.r.next = self.rnd[6].val();
            }
            _ => {
                self.q.next = bit_cast::<24, 32>(self.quo[7].val());
                self.r.next = self.rnd[7].val();
            }
        }
        self.n.next = self.q.val() + bit_cast::<24, 1>(self.r.val().into());
        if !self.len.val().any() {
            self.n.next = self.c1.val();
        }
    }
}
