//! `AxisStrip`: removes the first `strip_len` bytes (0..=255, sampled with each frame's first
//! beat) of every frame, realigning the rest at one beat per cycle. A frame no longer than
//! `strip_len` leaves nothing: it is dropped and counted in `runts`.
//!
//! A frame's first kept beat waits in a carry register; each later beat makes an output beat
//! from `{beat, carry}`, and the rest of the last beat (all of a one-beat frame) leaves from
//! the carry the cycle after. So every output beat is one funnel shift by a register (the
//! frame's `r`), with no select ahead of the funnel. The cost is one cycle of latency for a
//! one-beat frame and for `strip_len` a multiple of the beat; II stays 1 (a flush takes no
//! input beat that makes an output, and the next frame's first beat makes none).
//!
//! The output leaves from a register stage ([`AxisReg`]), so `s_tready` follows `m_tready`
//! through a few LUTs: the consumer's ready should come from registers (a skid buffer's, say).
use super::axis::*;
use super::funnel::ByteFunnelW;
use super::skid::AxisReg;
use rust_hdl::prelude::*;

/// The stripper at `D` bits: `K` = `D`/8, `CB` = log2(`K`) (the sub-beat shift's bits), `SB` =
/// 8 - `CB` (the whole beats `strip_len` can skip).
#[derive(LogicBlock)]
pub struct AxisStripW<const D: usize, const K: usize, const CB: usize, const SB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub strip_len: Signal<In, Bits<8>>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub runts: Signal<Out, Bits<32>>,
    oreg: AxisReg<D, K>,
    mid: DFF<Bit>,
    skip_q: DFF<Bits<SB>>,
    r_q: DFF<Bits<CB>>,
    have: DFF<Bit>,
    carry: DFF<Bits<D>>,
    carry_keep: DFF<Bits<K>>,
    flush: DFF<Bit>,
    flush_user: DFF<Bit>,
    runt_q: DFF<Bits<32>>,
    skip: Signal<Local, Bits<SB>>,
    r: Signal<Local, Bits<CB>>,
    keep_at_r: Signal<Local, Bit>,
    /// The output's realignment: `{hi, lo}` = `{data, carry}` shifted right by the frame's `r`
    /// bytes (`r_q`); the keep uses the same shift.
    fun: ByteFunnelW<D, CB>,
    keep_hi: Signal<Local, Bits<K>>,
    kfun: KeepFunnel<K, CB>,
    out_here: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    /// `CB`: `strip_len >> CB` is the whole beats to skip.
    c_cb: Constant<Bits<8>>,
    zero_k: Constant<Bits<K>>,
    one_s: Constant<Bits<SB>>,
}

/// The 512-bit stripper.
pub type AxisStrip = AxisStripW<DATA_W, KEEP_W, 6, 2>;
/// The 1024-bit stripper.
pub type AxisStrip1024 = AxisStripW<1024, 128, 7, 1>;

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Default for AxisStripW<D, K, CB, SB> {
    fn default() -> Self {
        assert!(D == 8 * K && K == 1 << CB && SB == 8 - CB);
        AxisStripW {
            clock: Default::default(),
            reset: Default::default(),
            strip_len: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            runts: Default::default(),
            oreg: Default::default(),
            mid: Default::default(),
            skip_q: Default::default(),
            r_q: Default::default(),
            have: Default::default(),
            carry: Default::default(),
            carry_keep: Default::default(),
            flush: Default::default(),
            flush_user: Default::default(),
            runt_q: Default::default(),
            skip: Default::default(),
            r: Default::default(),
            keep_at_r: Default::default(),
            fun: Default::default(),
            keep_hi: Default::default(),
            kfun: Default::default(),
            out_here: Default::default(),
            accept: Default::default(),
            take: Default::default(),
            c_cb: Constant::new((CB as u64).into()),
            zero_k: Constant::new(Bits::<K>::default()),
            one_s: Constant::new(1u64.into()),
        }
    }
}

impl<const D: usize, const K: usize, const CB: usize, const SB: usize> Logic for AxisStripW<D, K, CB, SB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, skip_q, r_q, have, carry, carry_keep, flush, flush_user, runt_q);
        clock!(self, clock, oreg);
        self.oreg.reset.next = self.reset.val();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.oreg.m_axis);
        self.skip.next = self.skip_q.q.val();
        self.r.next = self.r_q.q.val();
        if !self.mid.q.val() {
            self.skip.next = bit_cast::<SB, 8>(self.strip_len.val() >> self.c_cb.val());
            self.r.next = bit_cast::<CB, 8>(self.strip_len.val());
        }
        // more than r valid bytes <=> tkeep bit r is set (tkeep is contiguous): a mux, not a count
        self.keep_at_r.next = self.s_axis.tkeep.val().get_bits::<1>(self.r.val().index()).any();
        // every output beat is one funnel shift right by the frame's r (a register): {data,
        // carry} inside a frame, {-, carry} for the rest of the last beat (the flush). A frame's
        // first kept beat always goes to `carry` first, so `lo` is always `carry`.
        self.fun.hi.next = self.s_axis.tdata.val();
        self.fun.lo.next = self.carry.q.val();
        self.fun.r.next = self.r_q.q.val();
        self.keep_hi.next = self.s_axis.tkeep.val();
        if self.flush.q.val() {
            self.keep_hi.next = self.zero_k.val();
        }
        self.kfun.hi.next = self.keep_hi.val();
        self.kfun.lo.next = self.carry_keep.q.val();
        self.kfun.r.next = self.r_q.q.val();
        // the input beat makes an output beat this cycle: a kept beat after the first
        self.out_here.next = self.have.q.val() & !self.skip.val().any();
        // during a flush the output is busy: only a beat that makes no output may enter
        self.accept.next = self.oreg.s_axis.tready.val() & !(self.flush.q.val() & self.out_here.val());
        self.s_axis.tready.next = self.accept.val();
        self.take.next = self.accept.val() & self.s_axis.tvalid.val();
        self.oreg.s_axis.tvalid.next = false;
        self.oreg.s_axis.tdata.next = self.fun.y.val();
        self.oreg.s_axis.tkeep.next = self.kfun.y.val();
        self.oreg.s_axis.tlast.next = false;
        self.oreg.s_axis.tuser.next = false;
        if self.flush.q.val() {
            self.oreg.s_axis.tvalid.next = true;
            self.oreg.s_axis.tlast.next = true;
            self.oreg.s_axis.tuser.next = self.flush_user.q.val();
            if self.oreg.s_axis.tready.val() {
                self.flush.d.next = false;
            }
        }
        if self.take.val() {
            self.mid.d.next = !self.s_axis.tlast.val();
            self.skip_q.d.next = self.skip.val();
            self.r_q.d.next = self.r.val();
            if self.skip.val().any() {
                self.skip_q.d.next = self.skip.val() - self.one_s.val();
                if self.s_axis.tlast.val() {
                    self.runt_q.d.next = self.runt_q.q.val() + 1;
                }
            } else {
                if self.have.q.val() {
                    self.oreg.s_axis.tvalid.next = true;
                }
                self.carry.d.next = self.s_axis.tdata.val();
                self.carry_keep.d.next = self.s_axis.tkeep.val();
                self.have.d.next = !self.s_axis.tlast.val();
                if self.s_axis.tlast.val() {
                    if self.keep_at_r.val() {
                        // the rest of this beat (a one-beat frame's all of it) leaves next
                        // cycle from `carry`
                        self.flush.d.next = true;
                        self.flush_user.d.next = self.s_axis.tuser.val();
                    } else if self.have.q.val() {
                        self.oreg.s_axis.tlast.next = true;
                        self.oreg.s_axis.tuser.next = self.s_axis.tuser.val();
                    } else {
                        self.runt_q.d.next = self.runt_q.q.val() + 1;
                    }
                }
            }
        }
        self.runts.next = self.runt_q.q.val();
        if self.reset.val() {
            self.mid.d.next = false;
            self.have.d.next = false;
            self.flush.d.next = false;
            self.runt_q.d.next = 0.into();
        }
    }
}

/// `y = ({hi, lo} >> r)[K-1:0]`: the output beat's `tkeep` from two beats' (the bits of
/// [`ByteFunnelW`]'s shift).
#[derive(LogicBlock, Default)]
pub struct KeepFunnel<const K: usize, const CB: usize> {
    pub hi: Signal<In, Bits<K>>,
    pub lo: Signal<In, Bits<K>>,
    pub r: Signal<In, Bits<CB>>,
    pub y: Signal<Out, Bits<K>>,
}

impl<const K: usize, const CB: usize> Logic for KeepFunnel<K, CB> {
    fn update(&mut self) {
        let r = u64::from(self.r.val()) as usize;
        let (hi, lo): (num_bigint::BigUint, num_bigint::BigUint) = (self.hi.val().into(), self.lo.val().into());
        let mask = (num_bigint::BigUint::from(1u32) << K) - 1u32;
        self.y.next = Bits::<K>::from((((hi << K) | lo) >> r) & mask);
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!("wire [{}:0] c = {{hi, lo}} >> r;\nwire unused_c = ^c[{}:{K}];\nalways @(*) y = c[{}:0];\n", 2 * K - 1, 2 * K - 1, K - 1))
    }
}

nicgen_hdl::impl_ports!([AxisStrip, AxisStrip1024], clock = clock, [clock, reset, strip_len,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, runts]);

