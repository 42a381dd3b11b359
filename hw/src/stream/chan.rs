//! `ChanSkid<T>`: the skid buffer of a valid/ready channel that carries a struct (a parsed
//! header, a command). Same behaviour as the stream skid buffer: full rate, registered
//! `m_valid`, `m_data` and `s_ready`, latency 1.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ChanSkid<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, T>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, T>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    out_data: DFF<T>,
    out_valid: DFF<Bit>,
    skid_data: DFF<T>,
    skid_valid: DFF<Bit>,
}

impl<T: Synth> Logic for ChanSkid<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_data, out_valid, skid_data, skid_valid);
        self.s_ready.next = !self.skid_valid.q.val();
        self.m_data.next = self.out_data.q.val();
        self.m_valid.next = self.out_valid.q.val();
        if !self.out_valid.q.val() | self.m_ready.val() {
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.out_data.d.next = self.s_data.val();
                self.out_valid.d.next = self.s_valid.val();
            }
        } else if self.s_valid.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_data.val();
            self.skid_valid.d.next = true;
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}

/// `ChanReg<T>`: a plain register stage of a valid/ready channel: registered `m_valid` and
/// `m_data`, full rate, latency 1, and `s_ready = !m_valid | m_ready` (combinational). Where the
/// consumer's `m_ready` is itself a register or one LUT on registers, this keeps the ready path
/// short without the skid buffer's second entry and its select (one LUT per data bit).
#[derive(LogicBlock, Default)]
pub struct ChanReg<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, T>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, T>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    data: DFF<T>,
    valid: DFF<Bit>,
}

impl<T: Synth> Logic for ChanReg<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, data, valid);
        self.s_ready.next = !self.valid.q.val() | self.m_ready.val();
        self.m_data.next = self.data.q.val();
        self.m_valid.next = self.valid.q.val();
        if !self.valid.q.val() | self.m_ready.val() {
            self.valid.d.next = self.s_valid.val();
            self.data.d.next = self.s_data.val();
        }
        if self.reset.val() {
            self.valid.d.next = false;
        }
    }
}

/// `ChanMerge2<T>`: two valid/ready channels into one, taking turns when both are waiting
/// (round robin, one item a cycle), through an output register: registered `m_valid` and
/// `m_data`. An input's `ready` is the output's room and its turn (the other input's `valid`
/// decides the turn, so neither input's `valid` may wait on its own `ready`).
#[derive(LogicBlock, Default)]
pub struct ChanMerge2<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub a_data: Signal<In, T>,
    pub a_valid: Signal<In, Bit>,
    pub a_ready: Signal<Out, Bit>,
    pub b_data: Signal<In, T>,
    pub b_valid: Signal<In, Bit>,
    pub b_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, T>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    out_data: DFF<T>,
    out_valid: DFF<Bit>,
    /// The last item taken came from `b`: `a` goes first next time both wait.
    last_b: DFF<Bit>,
    room: Signal<Local, Bit>,
    pick_a: Signal<Local, Bit>,
}

impl<T: Synth> Logic for ChanMerge2<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_data, out_valid, last_b);
        self.room.next = !self.out_valid.q.val() | self.m_ready.val();
        self.pick_a.next = self.a_valid.val() & (!self.b_valid.val() | self.last_b.q.val());
        self.a_ready.next = self.room.val() & self.pick_a.val();
        self.b_ready.next = self.room.val() & !self.pick_a.val();
        self.m_data.next = self.out_data.q.val();
        self.m_valid.next = self.out_valid.q.val();
        if self.room.val() {
            self.out_valid.d.next = self.a_valid.val() | self.b_valid.val();
            if self.pick_a.val() {
                self.out_data.d.next = self.a_data.val();
                self.last_b.d.next = false;
            } else {
                self.out_data.d.next = self.b_data.val();
                if self.b_valid.val() {
                    self.last_b.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.last_b.d.next = false;
        }
    }
}
