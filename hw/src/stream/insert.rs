//! `AxisInsert`: prepends a header of `hdr_len` bytes (0..=128, from the header channel
//! `hdr_*`, one header per frame) to each payload frame, realigning the payload at one beat per
//! cycle. With `hdr_only` the frame is the header alone and no payload frame is taken (an ACK,
//! say). The output leaves from a register stage ([`AxisReg`]), so `s_tready` follows
//! `m_tready` through a few LUTs: the consumer's ready should come from registers. While a
//! frame is under way the next header waits in a one-entry buffer (`hdr_ready` is that buffer's
//! room, a register), and it starts in the cycle the frame's last beat leaves, whatever that
//! beat is (a header beat, a spilled carry or a payload beat), so frames follow each other
//! without a gap.
use super::axis::*;
use super::funnel::{ByteRotW, ByteSplitW};
use super::skid::AxisReg;
use rust_hdl::prelude::*;

/// The inserter at `D` bits: `K` = `D`/8, `CB` = log2(`K`) (the header's bytes past its whole
/// beats), `SB` = 8 - `CB` (its whole beats: 0..=2 at 512 bits, 0..=1 at 1024).
#[derive(LogicBlock)]
pub struct AxisInsertW<const D: usize, const K: usize, const CB: usize, const SB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub hdr_data: Signal<In, Bits<1024>>,
    pub hdr_len: Signal<In, Bits<8>>,
    pub hdr_only: Signal<In, Bit>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_ready: Signal<Out, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    oreg: AxisReg<D, K>,
    busy: DFF<Bit>,
    hdr: DFF<Bits<1024>>,
    hfull: DFF<Bits<SB>>,
    c_q: DFF<Bits<CB>>,
    only_q: DFF<Bit>,
    /// The payload's carry, loaded only with the rotated beat (see `csplit`). A header's carry
    /// is not copied in: it is the header register's low beat once its whole beats have left
    /// (`hdr` shifts down a beat per whole beat), and `c_hdr` says which of the two is the carry.
    carry: DFF<Bits<D>>,
    c_hdr: DFF<Bit>,
    carry_keep: DFF<Bits<K>>,
    flush: DFF<Bit>,
    flush_user: DFF<Bit>,
    /// The next header, taken while a frame is under way.
    nv: DFF<Bit>,
    n_hdr: DFF<Bits<1024>>,
    n_len: DFF<Bits<8>>,
    n_only: DFF<Bit>,
    /// The header a frame starts with: the buffered one, else the input's.
    src_hdr: Signal<Local, Bits<1024>>,
    src_len: Signal<Local, Bits<8>>,
    src_only: Signal<Local, Bit>,
    src_valid: Signal<Local, Bit>,
    spill: Signal<Local, Bit>,
    /// The frame's last beat leaves this cycle: the next header may start now.
    endf: Signal<Local, Bit>,
    kshr_c: Signal<Local, Bits<CB>>,
    /// `K - c`, a register loaded with `c` (LUT depth: the spill test and the carry's keep
    /// start from flops, not from a subtractor)
    kshr: DFF<Bits<8>>,
    h_full: Signal<Local, Bits<SB>>,
    h_c: Signal<Local, Bits<CB>>,
    /// the payload beat rotated up by `c`, split at byte `c`: `hi` joins the carry in this
    /// beat (`split.lo` is not read: the bytes below `c` are the next carry, kept in `carry`
    /// with the rest of the rotated beat and split off by `csplit`, zero when `c` is 0)
    rot: ByteRotW<D, CB>,
    split: ByteSplitW<D, CB>,
    /// The carry register holds the whole rotated beat (no mask in front of it, the rotator's
    /// output goes straight to its input); its bytes below `c` are the carry, split off as it is
    /// read (`csplit.lo`), from `carry` or from the header's low beat (`c_hdr`).
    csplit: ByteSplitW<D, CB>,
    cx: Signal<Local, Bits<D>>,
    unused_split: Signal<Local, Bits<D>>,
    ones: Constant<Bits<K>>,
    zero_k: Constant<Bits<K>>,
    one_s: Constant<Bits<SB>>,
    /// Bytes per beat (`K`), its log2 (`CB`) and bits per beat (`D`).
    c_k: Constant<Bits<8>>,
    c_cb: Constant<Bits<8>>,
    c_d: Constant<Bits<11>>,
}

/// The 512-bit inserter.
pub type AxisInsert = AxisInsertW<DATA_W, KEEP_W, 6, 2>;
/// The 1024-bit inserter.
pub type AxisInsert1024 = AxisInsertW<1024, 128, 7, 1>;

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Logic for AxisInsertW<D, K, CB, SB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, hdr, hfull, c_q, kshr, only_q, carry, c_hdr, carry_keep, flush, flush_user, nv, n_hdr, n_len, n_only);
        clock!(self, clock, oreg);
        self.oreg.reset.next = self.reset.val();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.oreg.m_axis);
        self.rot.x.next = self.s_axis.tdata.val();
        self.rot.c.next = self.c_q.q.val();
        self.split.x.next = self.rot.y.val();
        self.split.c.next = self.c_q.q.val();
        self.cx.next = self.carry.q.val();
        if self.c_hdr.q.val() {
            self.cx.next = bit_cast::<D, 1024>(self.hdr.q.val());
        }
        self.csplit.x.next = self.cx.val();
        self.csplit.c.next = self.c_q.q.val();
        self.unused_split.next = self.split.lo.val() | self.csplit.hi.val();
        // the last beat spills into one more beat <=> it has more than K - c bytes <=> tkeep bit
        // K - c is set (tkeep is contiguous; never when c = 0)
        self.kshr_c.next = bit_cast::<CB, 8>(self.kshr.q.val());
        self.spill.next = self.c_q.q.val().any() & self.s_axis.tkeep.val().get_bits::<1>(self.kshr_c.val().index()).any();
        self.s_axis.tready.next = false;
        self.oreg.s_axis.tvalid.next = false;
        self.oreg.s_axis.tdata.next = self.csplit.lo.val() | self.split.hi.val();
        self.oreg.s_axis.tkeep.next = self.carry_keep.q.val() | (self.s_axis.tkeep.val() << self.c_q.q.val());
        self.oreg.s_axis.tlast.next = false;
        self.oreg.s_axis.tuser.next = false;
        self.endf.next = false;
        if !self.busy.q.val() {
            // idle: a header is taken below
        } else if self.flush.q.val() {
            self.oreg.s_axis.tvalid.next = true;
            self.oreg.s_axis.tdata.next = self.csplit.lo.val();
            self.oreg.s_axis.tkeep.next = self.carry_keep.q.val();
            self.oreg.s_axis.tlast.next = true;
            self.oreg.s_axis.tuser.next = self.flush_user.q.val();
            if self.oreg.s_axis.tready.val() {
                self.flush.d.next = false;
                self.busy.d.next = false;
                self.endf.next = true;
            }
        } else if self.hfull.q.val().any() {
            // a whole header beat
            self.oreg.s_axis.tvalid.next = true;
            self.oreg.s_axis.tdata.next = bit_cast::<D, 1024>(self.hdr.q.val());
            self.oreg.s_axis.tkeep.next = self.ones.val();
            if self.only_q.q.val() & (self.hfull.q.val() == self.one_s.val()) & !self.c_q.q.val().any() {
                self.oreg.s_axis.tlast.next = true;
            }
            if self.oreg.s_axis.tready.val() {
                self.hfull.d.next = self.hfull.q.val() - self.one_s.val();
                self.hdr.d.next = self.hdr.q.val() >> self.c_d.val();
                if self.only_q.q.val() & (self.hfull.q.val() == self.one_s.val()) & !self.c_q.q.val().any() {
                    self.busy.d.next = false;
                    self.endf.next = true;
                }
            }
        } else if self.only_q.q.val() {
            // header-only frame: its last partial beat
            self.oreg.s_axis.tvalid.next = true;
            self.oreg.s_axis.tdata.next = self.csplit.lo.val();
            self.oreg.s_axis.tkeep.next = self.carry_keep.q.val();
            self.oreg.s_axis.tlast.next = true;
            if self.oreg.s_axis.tready.val() {
                self.busy.d.next = false;
                self.endf.next = true;
            }
        } else {
            // payload beats, shifted up by the header's last partial beat
            self.s_axis.tready.next = self.oreg.s_axis.tready.val();
            self.oreg.s_axis.tvalid.next = self.s_axis.tvalid.val();
            if self.s_axis.tvalid.val() & self.oreg.s_axis.tready.val() {
                self.carry.d.next = self.rot.y.val();
                self.c_hdr.d.next = false;
                self.carry_keep.d.next = self.s_axis.tkeep.val() >> self.kshr.q.val();
                if !self.c_q.q.val().any() {
                    self.carry_keep.d.next = self.zero_k.val();
                }
                if self.s_axis.tlast.val() {
                    if self.spill.val() {
                        // the spilled bytes are exactly the new carry: flush it
                        self.flush.d.next = true;
                        self.flush_user.d.next = self.s_axis.tuser.val();
                    } else {
                        self.oreg.s_axis.tlast.next = true;
                        self.oreg.s_axis.tuser.next = self.s_axis.tuser.val();
                        self.busy.d.next = false;
                        self.endf.next = true;
                    }
                }
            }
        }
        // start a header (the buffered one first): whole beats first, then the rest becomes the
        // carry; when idle, or in the cycle the frame before it ends, so back-to-back frames leave
        // without a gap. A header that arrives while a frame is under way waits in the buffer.
        self.hdr_ready.next = !self.nv.q.val();
        self.src_valid.next = self.nv.q.val() | self.hdr_valid.val();
        self.src_hdr.next = self.hdr_data.val();
        self.src_len.next = self.hdr_len.val();
        self.src_only.next = self.hdr_only.val();
        if self.nv.q.val() {
            self.src_hdr.next = self.n_hdr.q.val();
            self.src_len.next = self.n_len.q.val();
            self.src_only.next = self.n_only.q.val();
        }
        self.h_full.next = bit_cast::<SB, 8>(self.src_len.val() >> self.c_cb.val());
        self.h_c.next = bit_cast::<CB, 8>(self.src_len.val());
        if !self.busy.q.val() | self.endf.val() {
            if self.src_valid.val() {
                self.busy.d.next = true;
                self.nv.d.next = false;
                self.hdr.d.next = self.src_hdr.val();
                self.hfull.d.next = self.h_full.val();
                self.c_q.d.next = self.h_c.val();
                self.kshr.d.next = self.c_k.val() - bit_cast::<8, CB>(self.h_c.val());
                self.only_q.d.next = self.src_only.val();
                self.c_hdr.d.next = true;
                self.carry_keep.d.next = !(self.ones.val() << self.h_c.val());
                if !self.h_c.val().any() {
                    self.carry_keep.d.next = self.zero_k.val();
                }
            }
        } else if !self.nv.q.val() & self.hdr_valid.val() {
            self.nv.d.next = true;
            self.n_hdr.d.next = self.hdr_data.val();
            self.n_len.d.next = self.hdr_len.val();
            self.n_only.d.next = self.hdr_only.val();
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.flush.d.next = false;
            self.nv.d.next = false;
        }
    }
}

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Default for AxisInsertW<D, K, CB, SB> {
    fn default() -> Self {
        assert!(D == 8 * K && K == 1 << CB && SB == 8 - CB);
        AxisInsertW {
            clock: Default::default(),
            reset: Default::default(),
            hdr_data: Default::default(),
            hdr_len: Default::default(),
            hdr_only: Default::default(),
            hdr_valid: Default::default(),
            hdr_ready: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            oreg: Default::default(),
            busy: Default::default(),
            hdr: Default::default(),
            hfull: Default::default(),
            c_q: Default::default(),
            only_q: Default::default(),
            carry: Default::default(),
            c_hdr: Default::default(),
            carry_keep: Default::default(),
            flush: Default::default(),
            flush_user: Default::default(),
            nv: Default::default(),
            n_hdr: Default::default(),
            n_len: Default::default(),
            n_only: Default::default(),
            src_hdr: Default::default(),
            src_len: Default::default(),
            src_only: Default::default(),
            src_valid: Default::default(),
            spill: Default::default(),
            endf: Default::default(),
            kshr_c: Default::default(),
            kshr: Default::default(),
            h_full: Default::default(),
            h_c: Default::default(),
            rot: Default::default(),
            split: Default::default(),
            csplit: Default::default(),
            cx: Default::default(),
            unused_split: Default::default(),
            ones: Constant::new(!Bits::<K>::default()),
            zero_k: Constant::new(Bits::<K>::default()),
            one_s: Constant::new(1u64.into()),
            c_k: Constant::new((K as u64).into()),
            c_cb: Constant::new((CB as u64).into()),
            c_d: Constant::new((D as u64).into()),
        }
    }
}

nicgen_hdl::impl_ports!([AxisInsert, AxisInsert1024], clock = clock, [clock, reset, hdr_data, hdr_len, hdr_only, hdr_valid, hdr_ready,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready]);

