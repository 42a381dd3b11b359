//! `AxisStrip`: removes the first `strip_len` bytes (0..=255, sampled with each frame's first
//! beat) of every frame, realigning the rest at one beat per cycle. A frame no longer than
//! `strip_len` leaves nothing: it is dropped and counted in `runts`. The output leaves from a
//! skid buffer.
use super::axis::*;
use super::funnel::{ByteFunnel, Sel};
use super::skid::AxisSkid512;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisStrip {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub strip_len: Signal<In, Bits<8>>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    pub runts: Signal<Out, Bits<32>>,
    skid: AxisSkid512,
    mid: DFF<Bit>,
    skip_q: DFF<Bits<2>>,
    r_q: DFF<Bits<6>>,
    have: DFF<Bit>,
    carry: DFF<Bits<512>>,
    carry_keep: DFF<Bits<64>>,
    carry_user: DFF<Bit>,
    flush: DFF<Bit>,
    flush_user: DFF<Bit>,
    /// `have | flush`, kept in a register of its own (set wherever they are): the funnel's `lo`
    /// select then costs no LUT level of its own
    lo_carry: DFF<Bit>,
    runt_q: DFF<Bits<32>>,
    skip: Signal<Local, Bits<2>>,
    r: Signal<Local, Bits<6>>,
    keep_at_r: Signal<Local, Bit>,
    /// The output's realignment: `{hi, lo}` shifted right by `fun_r.y` bytes (the frame's `r`,
    /// or the next frame's first `strip_len` between frames); the keep uses the same shift.
    fun: ByteFunnel,
    fun_r: Sel<6>,
    fun_lo: Sel<512>,
    keep_hi: Signal<Local, Bits<64>>,
    keep_lo: Signal<Local, Bits<64>>,
    cat_keep: Signal<Local, Bits<128>>,
    comb_keep: Signal<Local, Bits<64>>,
    out_here: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    c64: Constant<Bits<7>>,
    zero64: Constant<Bits<64>>,
    one2: Constant<Bits<2>>,
}

impl Default for AxisStrip {
    fn default() -> Self {
        AxisStrip {
            clock: Default::default(),
            reset: Default::default(),
            strip_len: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            runts: Default::default(),
            skid: Default::default(),
            mid: Default::default(),
            skip_q: Default::default(),
            r_q: Default::default(),
            have: Default::default(),
            carry: Default::default(),
            carry_keep: Default::default(),
            carry_user: Default::default(),
            flush: Default::default(),
            flush_user: Default::default(),
            lo_carry: Default::default(),
            runt_q: Default::default(),
            skip: Default::default(),
            r: Default::default(),
            keep_at_r: Default::default(),
            fun: Default::default(),
            fun_r: Default::default(),
            fun_lo: Default::default(),
            keep_hi: Default::default(),
            keep_lo: Default::default(),
            cat_keep: Default::default(),
            comb_keep: Default::default(),
            out_here: Default::default(),
            accept: Default::default(),
            take: Default::default(),
            c64: Constant::new(64u64.into()),
            zero64: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
        }
    }
}

impl Logic for AxisStrip {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, skip_q, r_q, have, carry, carry_keep, carry_user, flush, flush_user, lo_carry, runt_q);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        Axis512Source::link(&mut self.m_axis, &mut self.skid.m_axis);
        self.skip.next = self.skip_q.q.val();
        self.r.next = self.r_q.q.val();
        if !self.mid.q.val() {
            self.skip.next = self.strip_len.val().get_bits::<2>(6);
            self.r.next = self.strip_len.val().get_bits::<6>(0);
        }
        // more than r valid bytes <=> tkeep bit r is set (tkeep is contiguous): a mux, not a count
        self.keep_at_r.next = self.s_axis.tkeep.val().get_bits::<1>(self.r.val().index()).any();
        // every output beat but a pass-through is one funnel shift right by r bytes (no 64 - r on
        // the path): {data, carry} inside a frame; {-, beat} for a frame of one beat; {-, carry}
        // for the rest of the last beat (the flush, with its frame's r)
        self.fun.hi.next = self.s_axis.tdata.val();
        self.fun_lo.a.next = self.s_axis.tdata.val();
        self.fun_lo.b.next = self.carry.q.val();
        self.fun_lo.sel.next = self.lo_carry.q.val();
        self.fun.lo.next = self.fun_lo.y.val();
        self.fun_r.a.next = self.strip_len.val().get_bits::<6>(0);
        self.fun_r.b.next = self.r_q.q.val();
        self.fun_r.sel.next = self.mid.q.val() | self.flush.q.val();
        self.fun.r.next = self.fun_r.y.val();
        self.keep_hi.next = self.s_axis.tkeep.val();
        self.keep_lo.next = self.carry_keep.q.val();
        if self.flush.q.val() {
            self.keep_hi.next = self.zero64.val();
        } else if !self.have.q.val() {
            self.keep_hi.next = self.zero64.val();
            self.keep_lo.next = self.s_axis.tkeep.val();
        }
        self.cat_keep.next = bit_cast::<128, 64>(self.keep_lo.val()) | (bit_cast::<128, 64>(self.keep_hi.val()) << self.c64.val());
        self.comb_keep.next = bit_cast::<64, 128>(self.cat_keep.val() >> self.fun_r.y.val());
        // does the input beat make an output beat this cycle?
        self.out_here.next = false;
        if !self.skip.val().any() {
            if self.have.q.val() | !self.r.val().any() {
                self.out_here.next = true;
            } else if self.s_axis.tlast.val() & (self.keep_at_r.val()) {
                self.out_here.next = true;
            }
        }
        // during a flush the output is busy: only a beat that makes no output may enter
        self.accept.next = self.skid.s_axis.tready.val() & !(self.flush.q.val() & self.out_here.val());
        self.s_axis.tready.next = self.accept.val();
        self.take.next = self.accept.val() & self.s_axis.tvalid.val();
        self.skid.s_axis.tvalid.next = false;
        self.skid.s_axis.tdata.next = self.fun.y.val();
        self.skid.s_axis.tkeep.next = self.comb_keep.val();
        self.skid.s_axis.tlast.next = false;
        self.skid.s_axis.tuser.next = false;
        if self.flush.q.val() {
            self.skid.s_axis.tvalid.next = true;
            self.skid.s_axis.tlast.next = true;
            self.skid.s_axis.tuser.next = self.flush_user.q.val();
            if self.skid.s_axis.tready.val() {
                self.flush.d.next = false;
                self.lo_carry.d.next = self.have.q.val();
            }
        }
        if self.take.val() {
            self.mid.d.next = !self.s_axis.tlast.val();
            self.skip_q.d.next = self.skip.val();
            self.r_q.d.next = self.r.val();
            if self.skip.val().any() {
                self.skip_q.d.next = self.skip.val() - self.one2.val();
                if self.s_axis.tlast.val() {
                    self.runt_q.d.next = self.runt_q.q.val() + 1;
                }
            } else if !self.r.val().any() {
                // no sub-beat shift: pass through (the funnel at r = 0 with `lo` the beat: no
                // frame with r = 0 sets `have` or `flush`)
                self.skid.s_axis.tvalid.next = true;
                self.skid.s_axis.tkeep.next = self.s_axis.tkeep.val();
                self.skid.s_axis.tlast.next = self.s_axis.tlast.val();
                self.skid.s_axis.tuser.next = self.s_axis.tuser.val();
            } else if !self.have.q.val() {
                if self.s_axis.tlast.val() {
                    if self.keep_at_r.val() {
                        self.skid.s_axis.tvalid.next = true;
                        self.skid.s_axis.tlast.next = true;
                        self.skid.s_axis.tuser.next = self.s_axis.tuser.val();
                    } else {
                        self.runt_q.d.next = self.runt_q.q.val() + 1;
                    }
                } else {
                    self.have.d.next = true;
                    self.lo_carry.d.next = true;
                    self.carry.d.next = self.s_axis.tdata.val();
                    self.carry_keep.d.next = self.s_axis.tkeep.val();
                }
            } else {
                self.skid.s_axis.tvalid.next = true;
                self.carry.d.next = self.s_axis.tdata.val();
                self.carry_keep.d.next = self.s_axis.tkeep.val();
                if self.s_axis.tlast.val() {
                    self.have.d.next = false;
                    self.lo_carry.d.next = self.keep_at_r.val();
                    if self.keep_at_r.val() {
                        // the rest of this beat leaves next cycle from `carry`
                        self.flush.d.next = true;
                        self.flush_user.d.next = self.s_axis.tuser.val();
                    } else {
                        self.skid.s_axis.tlast.next = true;
                        self.skid.s_axis.tuser.next = self.s_axis.tuser.val();
                    }
                }
            }
        }
        self.runts.next = self.runt_q.q.val();
        if self.reset.val() {
            self.mid.d.next = false;
            self.have.d.next = false;
            self.flush.d.next = false;
            self.lo_carry.d.next = false;
            self.runt_q.d.next = 0.into();
        }
    }
}

nicgen_sim::impl_ports!(AxisStrip, clock = clock, [clock, reset, strip_len,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, runts]);
