//! `FillCount`: an up/down count of the entries in a queue, kept beside it by the queue's user
//! from the push and pop it already drives (a push and a pop in one cycle leave it as it was).
//! A room test on this register is one compare on flops, where the queue's own level (a
//! difference of its pointers) would put a subtractor at the head of the decision that uses it.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FillCount<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub pop: Signal<In, Bit>,
    /// The count, a register.
    pub n: Signal<Out, Bits<N>>,
    cnt: DFF<Bits<N>>,
    one: Constant<Bits<N>>,
    zero: Constant<Bits<N>>,
}

impl<const N: usize> Default for FillCount<N> {
    fn default() -> Self {
        FillCount {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            n: Default::default(),
            cnt: Default::default(),
            one: Constant::new(1u64.into()),
            zero: Constant::new(0u64.into()),
        }
    }
}

impl<const N: usize> Logic for FillCount<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt);
        if self.push.val() & !self.pop.val() {
            self.cnt.d.next = self.cnt.q.val() + self.one.val();
        } else if self.pop.val() & !self.push.val() {
            self.cnt.d.next = self.cnt.q.val() - self.one.val();
        }
        if self.reset.val() {
            self.cnt.d.next = self.zero.val();
        }
        self.n.next = self.cnt.q.val();
    }
}
