//! Width converters between the 512-bit datapath and a 64-bit stream (the M2M channel).
//!
//! * `AxisNarrow64`: each 512-bit beat leaves as its 64-bit words, one per cycle, byte 0 first;
//!   a word with no `tkeep` byte ends the beat, so a partial last beat leaves only the words it
//!   holds. `tlast` and `tuser` go with the frame's last word. The input beat is consumed with
//!   its last word; the output leaves from a skid buffer.
//! * `AxisWiden64`: 64-bit words gathered into 512-bit beats, word 0 in bits 63..0; a frame's
//!   last word closes its beat. A frame shorter than `MIN_WORDS` words is padded with zero words
//!   (`tkeep` set) to that length, so that a header put in front makes a frame of legal length.
//!   One word in per cycle; the output leaves from a skid buffer.
use super::axis::*;
use super::skid::{AxisSkid, AxisSkid512};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisNarrow64 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: AxisSource<64, 8>,
    skid: AxisSkid<64, 8>,
    idx: DFF<Bits<3>>,
    sh: Signal<Local, Bits<10>>,
    ksh: Signal<Local, Bits<7>>,
    word: Signal<Local, Bits<512>>,
    wkeep: Signal<Local, Bits<64>>,
    /// This word is the last one of its beat.
    lastw: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    c7: Constant<Bits<3>>,
    c1_3: Constant<Bits<3>>,
    c0_3: Constant<Bits<3>>,
}

impl Default for AxisNarrow64 {
    fn default() -> Self {
        AxisNarrow64 {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            skid: Default::default(),
            idx: Default::default(),
            sh: Default::default(),
            ksh: Default::default(),
            word: Default::default(),
            wkeep: Default::default(),
            lastw: Default::default(),
            unused: Default::default(),
            c7: Constant::new(7u64.into()),
            c1_3: Constant::new(1u64.into()),
            c0_3: Constant::new(0u64.into()),
        }
    }
}

impl Logic for AxisNarrow64 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, idx);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        self.sh.next = bit_cast::<10, 3>(self.idx.q.val()) << 6;
        self.ksh.next = bit_cast::<7, 3>(self.idx.q.val()) << 3;
        self.word.next = self.s_axis.tdata.val() >> self.sh.val();
        self.wkeep.next = self.s_axis.tkeep.val() >> self.ksh.val();
        // the next word of the beat holds no byte (or there is none)
        self.lastw.next = !self.wkeep.val().get_bit(8) | (self.idx.q.val() == self.c7.val());
        self.skid.s_axis.tdata.next = self.word.val().get_bits::<64>(0);
        self.skid.s_axis.tkeep.next = self.wkeep.val().get_bits::<8>(0);
        self.skid.s_axis.tlast.next = self.s_axis.tlast.val() & self.lastw.val();
        self.skid.s_axis.tuser.next = self.s_axis.tuser.val() & self.lastw.val();
        self.skid.s_axis.tvalid.next = self.s_axis.tvalid.val();
        self.s_axis.tready.next = self.skid.s_axis.tready.val() & self.lastw.val();
        if self.s_axis.tvalid.val() & self.skid.s_axis.tready.val() {
            if self.lastw.val() {
                self.idx.d.next = self.c0_3.val();
            } else {
                self.idx.d.next = self.idx.q.val() + self.c1_3.val();
            }
        }
        AxisSource::<64, 8>::link(&mut self.m_axis, &mut self.skid.m_axis);
        self.unused.next = self.word.val().get_bits::<448>(64).any() | self.wkeep.val().get_bits::<55>(9).any();
        if self.reset.val() {
            self.idx.d.next = self.c0_3.val();
        }
    }
}

/// Frames shorter than this many 64-bit words are padded to it (46 bytes with a 14-byte
/// Ethernet header in front: 60, the shortest legal frame without FCS; 48 as whole words).
pub const MIN_WORDS: u64 = 6;

#[derive(LogicBlock)]
pub struct AxisWiden64 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<64, 8>,
    pub m_axis: Axis512Source,
    skid: AxisSkid512,
    /// The beat being gathered, and the word it takes next.
    acc: DFF<Bits<512>>,
    akeep: DFF<Bits<64>>,
    idx: DFF<Bits<3>>,
    /// A beat after the frame's first is being gathered (padding applies to the first only).
    mid: DFF<Bit>,
    /// A complete beat waiting for the skid.
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<512>>,
    o_keep: DFF<Bits<64>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bit>,
    sh: Signal<Local, Bits<10>>,
    ksh: Signal<Local, Bits<7>>,
    data_n: Signal<Local, Bits<512>>,
    keep_n: Signal<Local, Bits<64>>,
    take: Signal<Local, Bit>,
    c7: Constant<Bits<3>>,
    c1_3: Constant<Bits<3>>,
    c0_3: Constant<Bits<3>>,
    c0_64: Constant<Bits<64>>,
    c0_512: Constant<Bits<512>>,
    pad_keep: Constant<Bits<64>>,
    min_idx: Constant<Bits<3>>,
}

impl Default for AxisWiden64 {
    fn default() -> Self {
        AxisWiden64 {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            skid: Default::default(),
            acc: Default::default(),
            akeep: Default::default(),
            idx: Default::default(),
            mid: Default::default(),
            c7: Constant::new(7u64.into()),
            c1_3: Constant::new(1u64.into()),
            c0_3: Constant::new(0u64.into()),
            c0_64: Constant::new(0u64.into()),
            c0_512: Constant::new(0u64.into()),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            sh: Default::default(),
            ksh: Default::default(),
            data_n: Default::default(),
            keep_n: Default::default(),
            take: Default::default(),
            pad_keep: Constant::new(((1u64 << (8 * MIN_WORDS)) - 1).into()),
            min_idx: Constant::new((MIN_WORDS - 1).into()),
        }
    }
}

impl Logic for AxisWiden64 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, akeep, idx, mid, o_valid, o_data, o_keep, o_last, o_user);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        self.skid.s_axis.tdata.next = self.o_data.q.val();
        self.skid.s_axis.tkeep.next = self.o_keep.q.val();
        self.skid.s_axis.tlast.next = self.o_last.q.val();
        self.skid.s_axis.tuser.next = self.o_user.q.val();
        self.skid.s_axis.tvalid.next = self.o_valid.q.val();
        if self.o_valid.q.val() & self.skid.s_axis.tready.val() {
            self.o_valid.d.next = false;
        }
        // a word is taken when the output register is free or leaves this cycle
        self.s_axis.tready.next = !self.o_valid.q.val() | self.skid.s_axis.tready.val();
        self.take.next = self.s_axis.tvalid.val() & (!self.o_valid.q.val() | self.skid.s_axis.tready.val());
        self.sh.next = bit_cast::<10, 3>(self.idx.q.val()) << 6;
        self.ksh.next = bit_cast::<7, 3>(self.idx.q.val()) << 3;
        self.data_n.next = self.acc.q.val() | (bit_cast::<512, 64>(self.s_axis.tdata.val()) << self.sh.val());
        self.keep_n.next = self.akeep.q.val() | (bit_cast::<64, 8>(self.s_axis.tkeep.val()) << self.ksh.val());
        if self.take.val() {
            if self.s_axis.tlast.val() | (self.idx.q.val() == self.c7.val()) {
                self.o_valid.d.next = true;
                self.o_data.d.next = self.data_n.val();
                self.o_keep.d.next = self.keep_n.val();
                if self.s_axis.tlast.val() & !self.mid.q.val() & (self.idx.q.val() < self.min_idx.val()) {
                    self.o_keep.d.next = self.keep_n.val() | self.pad_keep.val();
                }
                self.o_last.d.next = self.s_axis.tlast.val();
                self.o_user.d.next = self.s_axis.tuser.val() & self.s_axis.tlast.val();
                self.acc.d.next = self.c0_512.val();
                self.akeep.d.next = self.c0_64.val();
                self.idx.d.next = self.c0_3.val();
                self.mid.d.next = !self.s_axis.tlast.val();
            } else {
                self.acc.d.next = self.data_n.val();
                self.akeep.d.next = self.keep_n.val();
                self.idx.d.next = self.idx.q.val() + self.c1_3.val();
            }
        }
        Axis512Source::link(&mut self.m_axis, &mut self.skid.m_axis);
        if self.reset.val() {
            self.o_valid.d.next = false;
            self.acc.d.next = self.c0_512.val();
            self.akeep.d.next = self.c0_64.val();
            self.idx.d.next = self.c0_3.val();
            self.mid.d.next = false;
        }
    }
}
