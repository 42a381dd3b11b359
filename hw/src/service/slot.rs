//! Service slots (DESIGN.md §4): where a service joins the engine's datapath.
//!
//! A **service core** is a fixed-latency pipeline that never stalls: it takes at most one
//! [`SlotBeat`] per cycle (`in_valid`) and returns each beat, possibly transformed, exactly
//! `L` cycles later (`out_valid`), in order. A core does not see backpressure; the
//! [`SlotShell`] around it does the flow control: it admits a beat only while the shell has a
//! free place for it (a credit), and collects the core's output in a FIFO that feeds the
//! downstream stream. So a core of any latency up to the shell's capacity keeps one beat per
//! cycle, with any downstream backpressure, and adds `L + 1` cycles (its FIFO falls through
//! when empty; `L + 3` behind a backlog).
//!
//! * **TX payload slot** (`RoceTx`): the payload fetched from host memory, before the headers
//!   are built and the ICRC appended.
//! * **RX payload slot** (`RoceEngine`): the payload of accepted WRITE and READ RESPONSE
//!   packets, after the ICRC check and the responder's checks, before the DMA write.
//! * **Parallel tap** ([`TapJoin`]): a copy of every frame that passed the ICRC check, beat by
//!   beat; the tap core returns one verdict per frame (pass, flag, drop) that joins the frame
//!   before the RX buffer, so a dropped frame never reaches the BTH stage.
//!
//! The pass-through defaults are [`SlotPass`] (a delay line) and [`TapPass`] (always pass).
use crate::record::{FromBits, ToBits};
use crate::service::aes_ctr::{kind, AesCtr, SvcCfg, AES_LATENCY};
use crate::service::dlrm::{DlrmCore, DLRM_LATENCY};
use crate::service::dpi::{DpiCore, DPI_LATENCY};
use crate::stream::*;
use rust_hdl::prelude::*;

crate::record!(
    /// What a slot knows about the packet a beat belongs to. The producer gives `qpn`, `psn`
    /// and `opcode` (held for all beats of a packet); the shell fills `off`.
    SlotMeta,
    SlotMetaFields {
        qpn: u32 = 24,
        psn: u32 = 24,
        /// Byte offset of this beat in the packet's payload (the frame, for the tap).
        off: u16 = 16,
        /// BTH opcode of the packet.
        opcode: u8 = 8,
    }
);

pub const META_BITS: usize = SlotMetaFields::BITS;
const SD: usize = DATA_W + META_BITS;
const SW: usize = SD + KEEP_W + 2;

/// One beat of a slot: the stream's fields and the packet's metadata.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct SlotBeat {
    pub data: Bits<DATA_W>,
    pub keep: Bits<KEEP_W>,
    pub last: Bit,
    pub user: Bit,
    pub meta: SlotMeta,
}

/// `N` bits of a word vector from bit `off`.
fn bits_at<const N: usize>(w: &[u32], off: usize) -> Bits<N> {
    let big = num_bigint::BigUint::from_slice(w) >> off;
    let mask = (num_bigint::BigUint::from(1u8) << N) - 1u8;
    Bits::from(big & mask)
}

impl nicgen_hdl::StructWords for SlotBeat {
    fn to_words(&self) -> Vec<u32> {
        let b: Bits<{ <SlotBeat as Synth>::BITS }> = (*self).into();
        let mut w = num_bigint::BigUint::from(b).to_u32_digits();
        w.resize(<SlotBeat as Synth>::BITS.div_ceil(32), 0);
        w
    }
    fn from_words(w: &[u32]) -> Self {
        let m: Bits<META_BITS> = bits_at(w, DATA_W + KEEP_W + 2);
        let mw: Vec<u32> = num_bigint::BigUint::from(m).to_u32_digits();
        SlotBeat {
            data: bits_at(w, 0),
            keep: bits_at(w, DATA_W),
            last: bits_at::<1>(w, DATA_W + KEEP_W).get_bit(0),
            user: bits_at::<1>(w, DATA_W + KEEP_W + 1).get_bit(0),
            meta: SlotMetaFields::from_words(&mw).to_struct(),
        }
    }
}

/// Verdicts of a tap core.
pub mod verdict {
    pub const PASS: u8 = 0;
    /// Count the frame and let it pass.
    pub const FLAG: u8 = 1;
    pub const DROP: u8 = 2;
}

/// Flow control around a service core: credits in, a `2^A`-entry FIFO out.
#[derive(LogicBlock)]
pub struct SlotShell<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub s_meta: Signal<In, SlotMeta>,
    pub m_axis: Axis512Source,
    pub m_meta: Signal<Out, SlotMeta>,
    /// To the core: at most one beat per cycle, never stalled.
    pub core_in: Signal<Out, SlotBeat>,
    pub core_in_valid: Signal<Out, Bit>,
    /// From the core, `L` cycles later.
    pub core_out: Signal<In, SlotBeat>,
    pub core_out_valid: Signal<In, Bit>,
    /// Beats the core returned when the FIFO had no room: only a core longer than the shell
    /// allows can cause it. Must stay 0.
    pub overrun: Signal<Out, Bits<32>>,
    fifo: AxisFifo<SD, KEEP_W, SW, A>,
    meta_in: ToBits<SlotMeta, META_BITS>,
    meta_out: FromBits<SlotMeta, META_BITS>,
    credits: DFF<Bits<16>>,
    off: DFF<Bits<16>>,
    k_over: DFF<Bits<32>>,
    cap: Constant<Bits<16>>,
    beat: Constant<Bits<16>>,
    sh_meta: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    hi: Signal<Local, Bits<SD>>,
    cm: Signal<Local, SlotMeta>,
    take: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
}

impl<const A: usize> Default for SlotShell<A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            s_meta: Default::default(),
            m_axis: Default::default(),
            m_meta: Default::default(),
            core_in: Default::default(),
            core_in_valid: Default::default(),
            core_out: Default::default(),
            core_out_valid: Default::default(),
            overrun: Default::default(),
            fifo: AxisFifo::new_fall_through(),
            meta_in: Default::default(),
            meta_out: Default::default(),
            credits: Default::default(),
            off: Default::default(),
            k_over: Default::default(),
            cap: Constant::new((1u64 << A).into()),
            beat: Constant::new((KEEP_W as u64).into()),
            sh_meta: Constant::new((DATA_W as u64).into()),
            one16: Constant::new(1u64.into()),
            zero16: Constant::new(0u64.into()),
            hi: Default::default(),
            cm: Default::default(),
            take: Default::default(),
            give: Default::default(),
            unused: Default::default(),
        }
    }
}

impl<const A: usize> Logic for SlotShell<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, credits, off, k_over);
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        // in: a beat enters the core only when its place in the FIFO is reserved
        self.s_axis.tready.next = self.credits.q.val().any();
        self.take.next = self.s_axis.tvalid.val() & self.credits.q.val().any();
        self.core_in.next.data = self.s_axis.tdata.val();
        self.core_in.next.keep = self.s_axis.tkeep.val();
        self.core_in.next.last = self.s_axis.tlast.val();
        self.core_in.next.user = self.s_axis.tuser.val();
        self.cm.next.qpn = self.s_meta.val().qpn;
        self.cm.next.psn = self.s_meta.val().psn;
        self.cm.next.opcode = self.s_meta.val().opcode;
        self.cm.next.off = self.off.q.val();
        self.core_in.next.meta = self.cm.val();
        self.core_in_valid.next = self.take.val();
        if self.take.val() {
            self.off.d.next = self.off.q.val() + self.beat.val();
            if self.s_axis.tlast.val() {
                self.off.d.next = self.zero16.val();
            }
        }
        // out: the core's beats into the FIFO
        self.meta_in.fields.next = self.core_out.val().meta;
        self.fifo.s_axis.tdata.next = bit_cast::<SD, DATA_W>(self.core_out.val().data) | (bit_cast::<SD, META_BITS>(self.meta_in.bits.val()) << self.sh_meta.val());
        self.fifo.s_axis.tkeep.next = self.core_out.val().keep;
        self.fifo.s_axis.tlast.next = self.core_out.val().last;
        self.fifo.s_axis.tuser.next = self.core_out.val().user;
        self.fifo.s_axis.tvalid.next = self.core_out_valid.val();
        if self.core_out_valid.val() & !self.fifo.s_axis.tready.val() {
            self.k_over.d.next = self.k_over.q.val() + 1;
        }
        self.overrun.next = self.k_over.q.val();
        self.m_axis.tdata.next = self.fifo.m_axis.tdata.val().get_bits::<DATA_W>(0);
        self.hi.next = self.fifo.m_axis.tdata.val() >> self.sh_meta.val();
        self.meta_out.bits.next = self.hi.val().get_bits::<META_BITS>(0);
        self.m_meta.next = self.meta_out.fields.val();
        self.m_axis.tkeep.next = self.fifo.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.fifo.m_axis.tlast.val();
        self.m_axis.tuser.next = self.fifo.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.fifo.m_axis.tvalid.val();
        self.fifo.m_axis.tready.next = self.m_axis.tready.val();
        self.give.next = self.fifo.m_axis.tvalid.val() & self.m_axis.tready.val();
        if self.take.val() & !self.give.val() {
            self.credits.d.next = self.credits.q.val() - self.one16.val();
        }
        if self.give.val() & !self.take.val() {
            self.credits.d.next = self.credits.q.val() + self.one16.val();
        }
        self.unused.next = self.fifo.level.val().any()
            | self.hi.val().any() | self.s_meta.val().off.any();
        if self.reset.val() {
            self.credits.d.next = self.cap.val();
            self.off.d.next = self.zero16.val();
            self.k_over.d.next = 0.into();
        }
    }
}

/// The pass-through core: a delay line of `L` ≥ 1 stages.
#[derive(LogicBlock)]
pub struct SlotPass<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub in_beat: Signal<In, SlotBeat>,
    pub in_valid: Signal<In, Bit>,
    pub out_beat: Signal<Out, SlotBeat>,
    pub out_valid: Signal<Out, Bit>,
    beat: [DFF<SlotBeat>; L],
    valid: [DFF<Bit>; L],
}

impl<const L: usize> Default for SlotPass<L> {
    fn default() -> Self {
        assert!(L >= 1);
        Self {
            clock: Default::default(),
            in_beat: Default::default(),
            in_valid: Default::default(),
            out_beat: Default::default(),
            out_valid: Default::default(),
            beat: std::array::from_fn(|_| Default::default()),
            valid: std::array::from_fn(|_| Default::default()),
        }
    }
}

impl<const L: usize> Logic for SlotPass<L> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..L {
            self.beat[i].clock.next = self.clock.val();
            self.valid[i].clock.next = self.clock.val();
        }
        self.beat[0].d.next = self.in_beat.val();
        self.valid[0].d.next = self.in_valid.val();
        for i in 1..L {
            self.beat[i].d.next = self.beat[i - 1].q.val();
            self.valid[i].d.next = self.valid[i - 1].q.val();
        }
        // the last stage drives the output (the last assignment wins)
        for i in 0..L {
            self.out_beat.next = self.beat[i].q.val();
            self.out_valid.next = self.valid[i].q.val();
        }
    }
}

/// Shell capacity of a slot (FIFO address bits, `F` of [`PayloadSlot`]): 64 beats (block
/// RAM), enough for one beat per cycle up to a core latency of 60 (AES and DLRM in series need
/// 31)...
pub const SLOT_A: usize = 6;
/// ...or 32 beats (LUT RAM: a 650-bit, 64-deep FIFO is about 10 RAMB36, the 32-deep one about
/// 380 LUTs), enough up to a latency of 28 (AES alone 18, DPI 16, the pass-through slots 1).
pub const SLOT_A_SHORT: usize = 5;

/// A payload slot: the shell around the pass-through core of latency `L` (service `S` =
/// [`kind::PASS`]) or around a service core (`S` = [`kind::AES`]: [`AesCtr`], whose latency is
/// [`AES_LATENCY`]; `L` is then unused and 1). `A`: QPN bits of a service's QP context.
#[derive(LogicBlock)]
pub struct PayloadSlot<const L: usize, const S: usize, const A: usize, const F: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub s_meta: Signal<In, SlotMeta>,
    pub m_axis: Axis512Source,
    pub m_meta: Signal<Out, SlotMeta>,
    pub overrun: Signal<Out, Bits<32>>,
    /// Configuration writes for the service (the engine's service window).
    pub cfg: Signal<In, SvcCfg>,
    /// The slot is on the RX side.
    pub rx: Signal<In, Bit>,
    /// The service's QP generation readback.
    pub gen: Signal<Out, Bits<24>>,
    shell: SlotShell<F>,
    core: SlotPass<L>,
    svc: AesCtr<S, A>,
    dlrm: DlrmCore<S, A>,
    use_svc: Constant<Bit>,
    use_dlrm: Constant<Bit>,
    /// AES, then DLRM: the DLRM core takes the AES core's output.
    chain: Constant<Bit>,
}

impl<const L: usize, const S: usize, const A: usize, const F: usize> Default for PayloadSlot<L, S, A, F> {
    fn default() -> Self {
        let lat = if S & kind::AES != 0 { AES_LATENCY } else { 0 } + if S & kind::DLRM != 0 { DLRM_LATENCY } else { 0 };
        assert!(lat.max(L) + 4 <= 1 << F, "the slot's FIFO must hold the core's latency");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            s_meta: Default::default(),
            m_axis: Default::default(),
            m_meta: Default::default(),
            overrun: Default::default(),
            cfg: Default::default(),
            rx: Default::default(),
            gen: Default::default(),
            shell: Default::default(),
            core: Default::default(),
            svc: Default::default(),
            dlrm: Default::default(),
            use_svc: Constant::new(S & kind::AES != 0),
            use_dlrm: Constant::new(S & kind::DLRM != 0),
            chain: Constant::new(S & kind::AES_DLRM == kind::AES_DLRM),
        }
    }
}

impl<const L: usize, const S: usize, const A: usize, const F: usize> Logic for PayloadSlot<L, S, A, F> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, shell, core, svc, dlrm);
        self.shell.reset.next = self.reset.val();
        self.svc.reset.next = self.reset.val();
        self.dlrm.reset.next = self.reset.val();
        self.dlrm.in_beat.next = self.shell.core_in.val();
        self.dlrm.in_valid.next = self.shell.core_in_valid.val();
        if self.chain.val() {
            self.dlrm.in_beat.next = self.svc.out_beat.val();
            self.dlrm.in_valid.next = self.svc.out_valid.val();
        }
        self.dlrm.cfg.next = self.cfg.val();
        self.dlrm.rx.next = self.rx.val();
        Axis512Sink::link(&mut self.s_axis, &mut self.shell.s_axis);
        Axis512Source::link(&mut self.m_axis, &mut self.shell.m_axis);
        self.shell.s_meta.next = self.s_meta.val();
        self.m_meta.next = self.shell.m_meta.val();
        self.core.in_beat.next = self.shell.core_in.val();
        self.core.in_valid.next = self.shell.core_in_valid.val();
        self.svc.in_beat.next = self.shell.core_in.val();
        self.svc.in_valid.next = self.shell.core_in_valid.val();
        self.svc.cfg.next = self.cfg.val();
        self.svc.rx.next = self.rx.val();
        self.gen.next = self.svc.gen.val();
        self.shell.core_out.next = self.core.out_beat.val();
        self.shell.core_out_valid.next = self.core.out_valid.val();
        if self.use_svc.val() {
            self.shell.core_out.next = self.svc.out_beat.val();
            self.shell.core_out_valid.next = self.svc.out_valid.val();
        }
        if self.use_dlrm.val() {
            self.shell.core_out.next = self.dlrm.out_beat.val();
            self.shell.core_out_valid.next = self.dlrm.out_valid.val();
        }
        self.overrun.next = self.shell.overrun.val();
    }
}

/// The pass-through tap core: one `PASS` per frame, `L` cycles after its last beat.
#[derive(LogicBlock)]
pub struct TapPass<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub in_beat: Signal<In, SlotBeat>,
    pub in_valid: Signal<In, Bit>,
    pub verdict: Signal<Out, Bits<2>>,
    pub verdict_valid: Signal<Out, Bit>,
    done: [DFF<Bit>; L],
    pass: Constant<Bits<2>>,
    m: Signal<Local, SlotMeta>,
    unused: Signal<Local, Bit>,
}

impl<const L: usize> Default for TapPass<L> {
    fn default() -> Self {
        assert!(L >= 1);
        Self {
            clock: Default::default(),
            in_beat: Default::default(),
            in_valid: Default::default(),
            verdict: Default::default(),
            verdict_valid: Default::default(),
            done: std::array::from_fn(|_| Default::default()),
            pass: Constant::new((verdict::PASS as u64).into()),
            m: Default::default(),
            unused: Default::default(),
        }
    }
}

impl<const L: usize> Logic for TapPass<L> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..L {
            self.done[i].clock.next = self.clock.val();
        }
        self.done[0].d.next = self.in_valid.val() & self.in_beat.val().last;
        for i in 1..L {
            self.done[i].d.next = self.done[i - 1].q.val();
        }
        self.verdict.next = self.pass.val();
        // a pass-through verdict needs only the frame boundaries
        self.m.next = self.in_beat.val().meta;
        self.unused.next = self.in_beat.val().data.any() | self.in_beat.val().keep.any() | self.in_beat.val().user
            | self.m.val().qpn.any() | self.m.val().psn.any() | self.m.val().off.any() | self.m.val().opcode.any();
        for i in 0..L {
            self.verdict_valid.next = self.done[i].q.val();
        }
    }
}

/// The parallel tap: copies every frame to a tap core (`tap`, with the BTH's QPN, PSN and
/// opcode: from the first beat for IPv4; for IPv6 the opcode from the first beat and the QPN and
/// PSN from the second) while the frame itself waits in a delay
/// of `L` + 1 cycles (its FIFO and the verdict queue both fall through); at its last beat the
/// frame takes the core's verdict: `DROP` sets `tuser`
/// (so the RX buffer drops it), `FLAG` is counted. The core must return one verdict per frame,
/// in order, at most `L` cycles after the frame's last beat; a later verdict only stalls.
#[derive(LogicBlock)]
pub struct TapJoin<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    pub tap: Signal<Out, SlotBeat>,
    pub tap_valid: Signal<Out, Bit>,
    pub verdict: Signal<In, Bits<2>>,
    pub verdict_valid: Signal<In, Bit>,
    /// With `m_axis`'s last beat: the frame's verdict is `FLAG`.
    pub m_flag: Signal<Out, Bit>,
    /// Good frames dropped, and frames flagged, by verdict.
    pub drops: Signal<Out, Bits<32>>,
    pub flags: Signal<Out, Bits<32>>,
    pub overrun: Signal<Out, Bits<32>>,
    line: PayloadSlot<L, { kind::PASS }, 1, SLOT_A_SHORT>,
    vq: AxisFifo<2, 1, 5, 6>,
    first: DFF<Bit>,
    second: DFF<Bit>,
    is_v6: DFF<Bit>,
    off: DFF<Bits<16>>,
    held: DFF<SlotMeta>,
    k_drop: DFF<Bits<32>>,
    k_flag: DFF<Bits<32>>,
    v6: Signal<Local, Bit>,
    word: Signal<Local, Bits<DATA_W>>,
    meta0: Signal<Local, SlotMeta>,
    m_op: Signal<Local, Bits<8>>,
    m_qpn: Signal<Local, Bits<24>>,
    m_psn: Signal<Local, Bits<24>>,
    go: Signal<Local, Bit>,
    at_last: Signal<Local, Bit>,
    c_v6: Constant<Bits<16>>,
    zero24: Constant<Bits<24>>,
    zero16: Constant<Bits<16>>,
    v_drop: Constant<Bits<2>>,
    no_cfg: Constant<SvcCfg>,
    v_flag: Constant<Bits<2>>,
    beat: Constant<Bits<16>>,
    unused: Signal<Local, Bit>,
}

impl<const L: usize> Default for TapJoin<L> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            tap: Default::default(),
            tap_valid: Default::default(),
            verdict: Default::default(),
            verdict_valid: Default::default(),
            m_flag: Default::default(),
            drops: Default::default(),
            flags: Default::default(),
            overrun: Default::default(),
            line: Default::default(),
            vq: AxisFifo::new_fall_through(),
            first: Default::default(),
            second: Default::default(),
            is_v6: Default::default(),
            off: Default::default(),
            held: Default::default(),
            k_drop: Default::default(),
            k_flag: Default::default(),
            v6: Default::default(),
            word: Default::default(),
            meta0: Default::default(),
            m_op: Default::default(),
            m_qpn: Default::default(),
            m_psn: Default::default(),
            go: Default::default(),
            at_last: Default::default(),
            c_v6: Constant::new(0xDD86u64.into()),
            zero24: Constant::new(0u64.into()),
            zero16: Constant::new(0u64.into()),
            v_drop: Constant::new((verdict::DROP as u64).into()),
            no_cfg: Constant::new(SvcCfg::default()),
            v_flag: Constant::new((verdict::FLAG as u64).into()),
            beat: Constant::new((KEEP_W as u64).into()),
            unused: Default::default(),
        }
    }
}

impl<const L: usize> Logic for TapJoin<L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, first, second, is_v6, off, held, k_drop, k_flag);
        clock!(self, clock, line, vq);
        self.line.reset.next = self.reset.val();
        self.vq.reset.next = self.reset.val();
        // the frame: into the delay
        Axis512Sink::link(&mut self.s_axis, &mut self.line.s_axis);
        self.line.s_meta.next = self.held.q.val();
        self.line.cfg.next = self.no_cfg.val();
        self.line.rx.next = true;
        // the copy: every beat the delay accepts, with the BTH fields of the first beat
        self.word.next = self.s_axis.tdata.val();
        self.v6.next = self.word.val().get_bits::<16>(96) == self.c_v6.val();
        // beat 0: the BTH of IPv4 (bytes 42..53); IPv6 has only its opcode (byte 62) there
        self.m_op.next = self.held.q.val().opcode;
        self.m_qpn.next = self.held.q.val().qpn;
        self.m_psn.next = self.held.q.val().psn;
        if self.first.q.val() {
            self.m_op.next = self.word.val().get_bits::<8>(336);
            self.m_qpn.next = (bit_cast::<24, 8>(self.word.val().get_bits::<8>(376)) << 16) | (bit_cast::<24, 8>(self.word.val().get_bits::<8>(384)) << 8) | bit_cast::<24, 8>(self.word.val().get_bits::<8>(392));
            self.m_psn.next = (bit_cast::<24, 8>(self.word.val().get_bits::<8>(408)) << 16) | (bit_cast::<24, 8>(self.word.val().get_bits::<8>(416)) << 8) | bit_cast::<24, 8>(self.word.val().get_bits::<8>(424));
            if self.v6.val() {
                self.m_op.next = self.word.val().get_bits::<8>(496);
                self.m_qpn.next = self.zero24.val();
                self.m_psn.next = self.zero24.val();
            }
        }
        // beat 1 of IPv6: the QPN (bytes 67..69) and PSN (71..73)
        if self.second.q.val() & self.is_v6.q.val() {
            self.m_qpn.next = (bit_cast::<24, 8>(self.word.val().get_bits::<8>(24)) << 16) | (bit_cast::<24, 8>(self.word.val().get_bits::<8>(32)) << 8) | bit_cast::<24, 8>(self.word.val().get_bits::<8>(40));
            self.m_psn.next = (bit_cast::<24, 8>(self.word.val().get_bits::<8>(56)) << 16) | (bit_cast::<24, 8>(self.word.val().get_bits::<8>(64)) << 8) | bit_cast::<24, 8>(self.word.val().get_bits::<8>(72));
        }
        self.meta0.next.opcode = self.m_op.val();
        self.meta0.next.qpn = self.m_qpn.val();
        self.meta0.next.psn = self.m_psn.val();
        self.meta0.next.off = self.off.q.val();
        self.go.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        self.tap_valid.next = self.go.val();
        self.tap.next.data = self.s_axis.tdata.val();
        self.tap.next.keep = self.s_axis.tkeep.val();
        self.tap.next.last = self.s_axis.tlast.val();
        self.tap.next.user = self.s_axis.tuser.val();
        self.tap.next.meta = self.meta0.val();
        if self.go.val() {
            self.first.d.next = self.s_axis.tlast.val();
            self.second.d.next = self.first.q.val() & !self.s_axis.tlast.val();
            self.off.d.next = self.off.q.val() + self.beat.val();
            self.held.d.next = self.meta0.val();
            if self.first.q.val() {
                self.is_v6.d.next = self.v6.val();
            }
            if self.s_axis.tlast.val() {
                self.off.d.next = self.zero16.val();
            }
        }
        // verdicts wait in order; the frame's last beat leaves with its verdict
        self.vq.s_axis.tdata.next = self.verdict.val();
        self.vq.s_axis.tkeep.next = true.into();
        self.vq.s_axis.tlast.next = true;
        self.vq.s_axis.tuser.next = false;
        self.vq.s_axis.tvalid.next = self.verdict_valid.val();
        self.at_last.next = self.line.m_axis.tvalid.val() & self.line.m_axis.tlast.val();
        self.m_axis.tdata.next = self.line.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.line.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.line.m_axis.tlast.val();
        self.m_axis.tuser.next = self.line.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.line.m_axis.tvalid.val() & (!self.line.m_axis.tlast.val() | self.vq.m_axis.tvalid.val());
        self.line.m_axis.tready.next = self.m_axis.tready.val() & (!self.line.m_axis.tlast.val() | self.vq.m_axis.tvalid.val());
        self.vq.m_axis.tready.next = self.at_last.val() & self.m_axis.tready.val();
        if self.line.m_axis.tlast.val() & (self.vq.m_axis.tdata.val() == self.v_drop.val()) {
            self.m_axis.tuser.next = true;
        }
        self.m_flag.next = self.line.m_axis.tlast.val() & (self.vq.m_axis.tdata.val() == self.v_flag.val());
        if self.at_last.val() & self.m_axis.tready.val() & self.vq.m_axis.tvalid.val() & !self.line.m_axis.tuser.val() {
            if self.vq.m_axis.tdata.val() == self.v_drop.val() {
                self.k_drop.d.next = self.k_drop.q.val() + 1;
            }
            if self.vq.m_axis.tdata.val() == self.v_flag.val() {
                self.k_flag.d.next = self.k_flag.q.val() + 1;
            }
        }
        self.drops.next = self.k_drop.q.val();
        self.flags.next = self.k_flag.q.val();
        self.overrun.next = self.line.overrun.val();
        self.unused.next = self.line.m_meta.val().qpn.any() | self.line.m_meta.val().psn.any() | self.line.m_meta.val().off.any()
            | self.line.m_meta.val().opcode.any() | self.word.val().any() | self.vq.level.val().any()
            | self.vq.m_axis.tkeep.val().any() | self.vq.m_axis.tlast.val() | self.vq.m_axis.tuser.val()
            | self.vq.s_axis.tready.val() | self.line.gen.val().any();
        if self.reset.val() {
            self.first.d.next = true;
            self.second.d.next = false;
            self.off.d.next = self.zero16.val();
            self.k_drop.d.next = 0.into();
            self.k_flag.d.next = 0.into();
        }
    }
}

/// The AES-class slot used in the tests and emitted as a top: 11 cycles of service latency.
pub type PayloadSlot11 = PayloadSlot<11, { kind::PASS }, 1, SLOT_A_SHORT>;
/// The AES-CTR slot with a 9-bit (512-entry) QP context, emitted as a top and tested alone.
pub type AesSlot = PayloadSlot<1, { kind::AES }, 9, SLOT_A_SHORT>;
/// The DLRM application slot: the operation per QP for 512 QPs.
pub type DlrmSlot = PayloadSlot<1, { kind::DLRM }, 9, SLOT_A_SHORT>;
pub type TapJoin8 = TapJoin<8>;

/// The tap's flags ([`TapJoin::m_flag`]) of the frames in the RX buffer (a frame FIFO that keeps
/// a frame only once its last beat is in), in order: the flag of the frame at the buffer's
/// output is `head`, so the parser can put it in the frame's header as its first beats leave.
/// A flag is queued for each frame the buffer keeps. A frame that ends with `tuser` (the buffer
/// drops it as bad) queues none, nor does one the buffer drops for room: its `drop_overflow`
/// counter (`ovf`) rises the cycle after the decision, which falls on one of that frame's own
/// beats, so a rise seen up to the cycle after a frame's last beat belongs to that frame. The
/// queue (1024 entries) holds more flags than the buffer (512 beats) holds frames.
///
/// A frame the buffer cuts through ([`crate::stream::AxisRxFifo`]) is queued as its first beat
/// is written (`in_cut_first`), with `head_cut` set and no flag: it leaves before its tap
/// verdict is known, so its flag and verdict travel on the engine's verdict queue instead.
#[derive(LogicBlock)]
pub struct TapFlagQueue {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A beat into the buffer: whether it is a frame's last, its `tuser`, the tap's flag.
    pub in_valid: Signal<In, Bit>,
    pub in_last: Signal<In, Bit>,
    pub in_user: Signal<In, Bit>,
    pub in_flag: Signal<In, Bit>,
    /// The beat belongs to a cut-through frame (`w_cut`); such a frame's first beat was written
    /// (`cut_first`).
    pub in_cut: Signal<In, Bit>,
    pub in_cut_first: Signal<In, Bit>,
    /// The buffer's `drop_overflow` counter.
    pub ovf: Signal<In, Bits<32>>,
    pub head: Signal<Out, Bit>,
    pub head_valid: Signal<Out, Bit>,
    /// The frame at the buffer's output is cut through.
    pub head_cut: Signal<Out, Bit>,
    /// The last beat of the frame at the buffer's output leaves.
    pub pop: Signal<In, Bit>,
    q: AxisFifo<2, 1, 5, 10>,
    fin: DFF<Bit>,
    cutf: DFF<Bit>,
    /// A cut frame's entry: cut, no flag.
    cut_entry: Constant<Bits<2>>,
    keep: DFF<Bit>,
    flag: DFF<Bit>,
    lost: DFF<Bit>,
    ovf_q: DFF<Bits<32>>,
    seen: Signal<Local, Bit>,
    unused_q: Signal<Local, Bit>,
}

impl Default for TapFlagQueue {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_last: Default::default(),
            in_user: Default::default(),
            in_flag: Default::default(),
            in_cut: Default::default(),
            in_cut_first: Default::default(),
            ovf: Default::default(),
            head: Default::default(),
            head_valid: Default::default(),
            head_cut: Default::default(),
            pop: Default::default(),
            q: AxisFifo::new(),
            fin: Default::default(),
            cutf: Default::default(),
            cut_entry: Constant::new(2u64.into()),
            keep: Default::default(),
            flag: Default::default(),
            lost: Default::default(),
            ovf_q: Default::default(),
            seen: Default::default(),
            unused_q: Default::default(),
        }
    }
}

impl Logic for TapFlagQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fin, cutf, keep, flag, lost, ovf_q);
        clock!(self, clock, q);
        self.q.reset.next = self.reset.val();
        self.ovf_q.d.next = self.ovf.val();
        self.seen.next = self.ovf.val() != self.ovf_q.q.val();
        self.fin.d.next = self.in_valid.val() & self.in_last.val();
        self.cutf.d.next = self.in_cut_first.val();
        // a stored frame is queued at its end, if kept; a cut one at its first beat
        self.keep.d.next = self.in_valid.val() & self.in_last.val() & !self.in_user.val() & !self.in_cut.val();
        self.flag.d.next = self.in_flag.val();
        self.q.s_axis.tdata.next = bit_cast::<2, 1>(self.flag.q.val().into());
        self.q.s_axis.tkeep.next = true.into();
        self.q.s_axis.tlast.next = true;
        self.q.s_axis.tuser.next = false;
        self.q.s_axis.tvalid.next = false;
        if self.cutf.q.val() {
            self.q.s_axis.tdata.next = self.cut_entry.val();
            self.q.s_axis.tvalid.next = true;
        }
        if self.fin.q.val() {
            self.q.s_axis.tvalid.next = self.cutf.q.val() | (self.keep.q.val() & !(self.lost.q.val() | self.seen.val()));
            self.lost.d.next = false;
        } else {
            self.lost.d.next = self.lost.q.val() | self.seen.val();
        }
        self.head.next = self.q.m_axis.tdata.val().get_bit(0);
        self.head_cut.next = self.q.m_axis.tdata.val().get_bit(1);
        self.head_valid.next = self.q.m_axis.tvalid.val();
        self.q.m_axis.tready.next = self.pop.val();
        self.unused_q.next = self.q.level.val().any() | self.q.s_axis.tready.val()
            | self.q.m_axis.tkeep.val().any() | self.q.m_axis.tlast.val() | self.q.m_axis.tuser.val();
        if self.reset.val() {
            self.fin.d.next = false;
            self.cutf.d.next = false;
            self.keep.d.next = false;
            self.lost.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!(PayloadSlot11, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready, s_meta,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, m_meta, overrun, cfg, rx, gen]);

nicgen_hdl::impl_ports!(DlrmSlot, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready, s_meta,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, m_meta, overrun, cfg, rx, gen]);

nicgen_hdl::impl_ports!(AesSlot, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready, s_meta,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready, m_meta, overrun, cfg, rx, gen]);

nicgen_hdl::impl_ports!(TapJoin8, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    tap, tap_valid, verdict, verdict_valid, m_flag, drops, flags, overrun]);

/// The engine's tap core: the pass-through core of latency `L` (`S` without [`kind::DPI`]) or
/// the DPI classifier ([`DpiCore`], whose latency is [`DPI_LATENCY`]: `L` must equal it). `A`:
/// QPN bits of the DPI policy table.
#[derive(LogicBlock)]
pub struct TapCore<const L: usize, const S: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_beat: Signal<In, SlotBeat>,
    pub in_valid: Signal<In, Bit>,
    pub verdict: Signal<Out, Bits<2>>,
    pub verdict_valid: Signal<Out, Bit>,
    pub beat_class: Signal<Out, Bits<3>>,
    pub beat_class_valid: Signal<Out, Bit>,
    pub cfg: Signal<In, SvcCfg>,
    pt: TapPass<L>,
    dpi: DpiCore<S, A>,
    dpi_on: Constant<Bit>,
}

impl<const L: usize, const S: usize, const A: usize> Default for TapCore<L, S, A> {
    fn default() -> Self {
        assert!(S & kind::DPI == 0 || L == DPI_LATENCY, "a DPI tap core has DPI_LATENCY cycles");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_beat: Default::default(),
            in_valid: Default::default(),
            verdict: Default::default(),
            verdict_valid: Default::default(),
            beat_class: Default::default(),
            beat_class_valid: Default::default(),
            cfg: Default::default(),
            pt: Default::default(),
            dpi: Default::default(),
            dpi_on: Constant::new(S & kind::DPI != 0),
        }
    }
}

impl<const L: usize, const S: usize, const A: usize> Logic for TapCore<L, S, A> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, pt, dpi);
        self.dpi.reset.next = self.reset.val();
        self.pt.in_beat.next = self.in_beat.val();
        self.pt.in_valid.next = self.in_valid.val();
        self.dpi.in_beat.next = self.in_beat.val();
        self.dpi.in_valid.next = self.in_valid.val();
        self.dpi.cfg.next = self.cfg.val();
        self.verdict.next = self.pt.verdict.val();
        self.verdict_valid.next = self.pt.verdict_valid.val();
        self.beat_class.next = self.dpi.beat_class.val();
        self.beat_class_valid.next = self.dpi.beat_class_valid.val();
        if self.dpi_on.val() {
            self.verdict.next = self.dpi.verdict.val();
            self.verdict_valid.next = self.dpi.verdict_valid.val();
        }
    }
}

/// The parallel tap with the DPI classifier as its core, emitted as a top and tested alone (the
/// engine's RX front: frames in, frames out with the verdict joined).
#[derive(LogicBlock, Default)]
pub struct DpiTap<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    /// With `m_axis`'s last beat: the frame is flagged.
    pub m_flag: Signal<Out, Bit>,
    pub cfg: Signal<In, SvcCfg>,
    pub beat_class: Signal<Out, Bits<3>>,
    pub beat_class_valid: Signal<Out, Bit>,
    pub drops: Signal<Out, Bits<32>>,
    pub flags: Signal<Out, Bits<32>>,
    pub overrun: Signal<Out, Bits<32>>,
    tj: TapJoin<DPI_LATENCY>,
    core: TapCore<DPI_LATENCY, { kind::DPI }, A>,
}

impl<const A: usize> Logic for DpiTap<A> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, tj, core);
        self.tj.reset.next = self.reset.val();
        self.core.reset.next = self.reset.val();
        Axis512Sink::link(&mut self.s_axis, &mut self.tj.s_axis);
        Axis512Source::link(&mut self.m_axis, &mut self.tj.m_axis);
        self.m_flag.next = self.tj.m_flag.val();
        self.core.in_beat.next = self.tj.tap.val();
        self.core.in_valid.next = self.tj.tap_valid.val();
        self.core.cfg.next = self.cfg.val();
        self.tj.verdict.next = self.core.verdict.val();
        self.tj.verdict_valid.next = self.core.verdict_valid.val();
        self.beat_class.next = self.core.beat_class.val();
        self.beat_class_valid.next = self.core.beat_class_valid.val();
        self.drops.next = self.tj.drops.val();
        self.flags.next = self.tj.flags.val();
        self.overrun.next = self.tj.overrun.val();
    }
}

pub type DpiTap9 = DpiTap<9>;

nicgen_hdl::impl_ports!(DpiTap9, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    m_flag, cfg, beat_class, beat_class_valid, drops, flags, overrun]);
