//! `AxisInsert`: prepends a header of `hdr_len` bytes (0..=128, from the header channel
//! `hdr_*`, one header per frame) to each payload frame, realigning the payload at one beat per
//! cycle. With `hdr_only` the frame is the header alone and no payload frame is taken (an ACK,
//! say). The output leaves from a skid buffer. The next header is taken in the cycle a frame's
//! last beat leaves when that beat is a header beat or a spilled carry, so such frames follow
//! each other without a gap; `hdr_ready` depends only on registers and the skid's `tready`.
use super::axis::*;
use super::funnel::{ByteRot, ByteSplit};
use super::skid::AxisSkid512;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisInsert {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub hdr_data: Signal<In, Bits<1024>>,
    pub hdr_len: Signal<In, Bits<8>>,
    pub hdr_only: Signal<In, Bit>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_ready: Signal<Out, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    skid: AxisSkid512,
    busy: DFF<Bit>,
    hdr: DFF<Bits<1024>>,
    hfull: DFF<Bits<2>>,
    c_q: DFF<Bits<6>>,
    only_q: DFF<Bit>,
    carry: DFF<Bits<512>>,
    carry_keep: DFF<Bits<64>>,
    flush: DFF<Bit>,
    flush_user: DFF<Bit>,
    spill: Signal<Local, Bit>,
    /// The frame's last beat leaves this cycle: the next header may be taken now.
    endf: Signal<Local, Bit>,
    kshr6: Signal<Local, Bits<6>>,
    kshr: Signal<Local, Bits<7>>,
    /// the payload beat rotated up by `c`, split at byte `c`: `hi` joins the carry in this
    /// beat, `lo` is the next carry (zero when `c` is 0)
    rot: ByteRot,
    split: ByteSplit,
    ones: Constant<Bits<64>>,
    zero64: Constant<Bits<64>>,
    one2: Constant<Bits<2>>,
    c64: Constant<Bits<7>>,
}

impl Logic for AxisInsert {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, hdr, hfull, c_q, only_q, carry, carry_keep, flush, flush_user);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        Axis512Source::link(&mut self.m_axis, &mut self.skid.m_axis);
        self.kshr.next = self.c64.val() - bit_cast::<7, 6>(self.c_q.q.val());
        self.rot.x.next = self.s_axis.tdata.val();
        self.rot.c.next = self.c_q.q.val();
        self.split.x.next = self.rot.y.val();
        self.split.c.next = self.c_q.q.val();
        // the last beat spills into one more beat <=> it has more than 64 - c bytes <=> tkeep bit
        // 64 - c is set (tkeep is contiguous; never when c = 0)
        self.kshr6.next = bit_cast::<6, 7>(self.kshr.val());
        self.spill.next = self.c_q.q.val().any() & self.s_axis.tkeep.val().get_bits::<1>(self.kshr6.val().index()).any();
        self.s_axis.tready.next = false;
        self.skid.s_axis.tvalid.next = false;
        self.skid.s_axis.tdata.next = self.carry.q.val() | self.split.hi.val();
        self.skid.s_axis.tkeep.next = self.carry_keep.q.val() | (self.s_axis.tkeep.val() << self.c_q.q.val());
        self.skid.s_axis.tlast.next = false;
        self.skid.s_axis.tuser.next = false;
        self.endf.next = false;
        if !self.busy.q.val() {
            // idle: a header is taken below
        } else if self.flush.q.val() {
            self.skid.s_axis.tvalid.next = true;
            self.skid.s_axis.tdata.next = self.carry.q.val();
            self.skid.s_axis.tkeep.next = self.carry_keep.q.val();
            self.skid.s_axis.tlast.next = true;
            self.skid.s_axis.tuser.next = self.flush_user.q.val();
            if self.skid.s_axis.tready.val() {
                self.flush.d.next = false;
                self.busy.d.next = false;
                self.endf.next = true;
            }
        } else if self.hfull.q.val().any() {
            // a whole header beat
            self.skid.s_axis.tvalid.next = true;
            self.skid.s_axis.tdata.next = bit_cast::<512, 1024>(self.hdr.q.val());
            self.skid.s_axis.tkeep.next = self.ones.val();
            if self.only_q.q.val() & (self.hfull.q.val() == self.one2.val()) & !self.c_q.q.val().any() {
                self.skid.s_axis.tlast.next = true;
            }
            if self.skid.s_axis.tready.val() {
                self.hfull.d.next = self.hfull.q.val() - self.one2.val();
                self.hdr.d.next = self.hdr.q.val() >> 512;
                if self.only_q.q.val() & (self.hfull.q.val() == self.one2.val()) & !self.c_q.q.val().any() {
                    self.busy.d.next = false;
                    self.endf.next = true;
                }
            }
        } else if self.only_q.q.val() {
            // header-only frame: its last partial beat
            self.skid.s_axis.tvalid.next = true;
            self.skid.s_axis.tdata.next = self.carry.q.val();
            self.skid.s_axis.tkeep.next = self.carry_keep.q.val();
            self.skid.s_axis.tlast.next = true;
            if self.skid.s_axis.tready.val() {
                self.busy.d.next = false;
                self.endf.next = true;
            }
        } else {
            // payload beats, shifted up by the header's last partial beat
            self.s_axis.tready.next = self.skid.s_axis.tready.val();
            self.skid.s_axis.tvalid.next = self.s_axis.tvalid.val();
            if self.s_axis.tvalid.val() & self.skid.s_axis.tready.val() {
                self.carry.d.next = self.split.lo.val();
                self.carry_keep.d.next = self.s_axis.tkeep.val() >> self.kshr.val();
                if !self.c_q.q.val().any() {
                    self.carry_keep.d.next = self.zero64.val();
                }
                if self.s_axis.tlast.val() {
                    if self.spill.val() {
                        // the spilled bytes are exactly the new carry: flush it
                        self.flush.d.next = true;
                        self.flush_user.d.next = self.s_axis.tuser.val();
                    } else {
                        self.skid.s_axis.tlast.next = true;
                        self.skid.s_axis.tuser.next = self.s_axis.tuser.val();
                        // (no early header here: that would make `hdr_ready` wait on the payload's
                        // `tkeep`; a frame whose last beat does not spill keeps its idle cycle)
                        self.busy.d.next = false;
                    }
                }
            }
        }
        // take a header: whole 64-byte chunks first, then the rest becomes the carry; also in the
        // cycle the frame before it ends, so back-to-back frames leave without a gap
        self.hdr_ready.next = !self.busy.q.val() | self.endf.val();
        if !self.busy.q.val() | self.endf.val() {
            if self.hdr_valid.val() {
                self.busy.d.next = true;
                self.hdr.d.next = self.hdr_data.val();
                self.hfull.d.next = self.hdr_len.val().get_bits::<2>(6);
                self.c_q.d.next = self.hdr_len.val().get_bits::<6>(0);
                self.only_q.d.next = self.hdr_only.val();
                self.carry.d.next = bit_cast::<512, 1024>(self.hdr_data.val() >> (bit_cast::<11, 2>(self.hdr_len.val().get_bits::<2>(6)) << 9));
                self.carry_keep.d.next = !(self.ones.val() << self.hdr_len.val().get_bits::<6>(0));
                if !self.hdr_len.val().get_bits::<6>(0).any() {
                    self.carry_keep.d.next = self.zero64.val();
                }
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.flush.d.next = false;
        }
    }
}

impl Default for AxisInsert {
    fn default() -> Self {
        AxisInsert {
            clock: Default::default(),
            reset: Default::default(),
            hdr_data: Default::default(),
            hdr_len: Default::default(),
            hdr_only: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            skid: Default::default(),
            busy: Default::default(),
            hdr: Default::default(),
            hfull: Default::default(),
            c_q: Default::default(),
            only_q: Default::default(),
            carry: Default::default(),
            carry_keep: Default::default(),
            flush: Default::default(),
            flush_user: Default::default(),
            spill: Default::default(),
            endf: Default::default(),
            kshr6: Default::default(),
            kshr: Default::default(),
            rot: Default::default(),
            split: Default::default(),
            ones: Constant::new(u64::MAX.into()),
            zero64: Constant::new(0u64.into()),
            one2: Constant::new(1u64.into()),
            c64: Constant::new(64u64.into()),
        }
    }
}

nicgen_sim::impl_ports!(AxisInsert, clock = clock, [clock, reset, hdr_data, hdr_len, hdr_only, hdr_valid, hdr_ready,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready]);
