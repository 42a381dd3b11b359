//! The ICRC pipeline shared by the generator and the checker.
//!
//! Stages (all advance together on `en`; a beat enters when `en & s_axis.tvalid`):
//! 1. `a`: count the valid bytes; on a first beat, classify it and read its IP length;
//! 2. `b`: frame length checks against the IP length, bytes covered in this beat;
//! 3. `p`: the covered bytes: Ethernet header zeroed, variant fields set to ones, the rest of
//!    the beat zeroed; the checker's strip masks;
//! 4. `m`: `M·masked` (32×512 XOR matrix);
//! 5. `s`: running state `A^64·s ⊕ M·d` (seeded on the first beat);
//! 6–8. `f1..f3`: for the last beat, the `z = 64 - k` zero bytes after its `k` covered ones.
//!    The generator undoes them, `A^-z`, in three 2-bit digits of `z`, each two conditional
//!    1-bit steps; the checker compares with the CRC residue run on over them, `A^z·R`, a
//!    table of 64 words (in `f1`; `f2` and `f3` only delay, so both have the same latency).
//!
//! The original beat travels beside the CRC, so at the output each beat comes with, on its
//! last beat, the raw CRC register over the whole frame (generator) or that register XOR the
//! residue, zero for a right ICRC (checker). Each stage is a few LUT levels deep
//! (`nicgen report`). Latency: [`ICRC_CORE_LATENCY`] steps.
use super::fields::*;
use super::gf2::*;
use super::matrix::{CrcFix, FixKind, XorMatrix};
use crate::stream::KeepExpand;
use rust_hdl::prelude::*;

pub const ICRC_CORE_LATENCY: usize = 8;

#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct IcrcBeat {
    pub data: Bits<512>,
    pub keep: Bits<64>,
    pub last: Bit,
    pub user: Bit,
    pub first: Bit,
    pub roce: Bit,
    /// Truncated: shorter than its IP length, or an IP frame ending inside its IP/UDP headers.
    pub trunc: Bit,
    /// Longer than its IP length (and not Ethernet padding), or shorter than the headers.
    pub badlen: Bit,
    /// Valid bytes in this beat, 1..=64.
    pub kcnt: Bits<7>,
    /// 64 minus the bytes the CRC covers in this beat (the fix-up stages' `z`).
    pub z: Bits<6>,
    /// Checker: `tkeep` of this beat once the ICRC is stripped (last beat, more than 4 bytes).
    pub kstrip: Bits<64>,
    /// Checker: `tkeep` of the previous beat when this last beat holds only ICRC bytes.
    pub kprev: Bits<64>,
    /// Checker: this last beat holds at most 4 covered bytes (only ICRC bytes).
    pub tail4: Bit,
}

/// One fix-up stage: on a last beat, apply its [`FixKind`] to the CRC (with the beat's `z`);
/// other beats pass unchanged.
#[derive(LogicBlock)]
pub struct CrcFixStep {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_beat: Signal<In, IcrcBeat>,
    pub in_crc: Signal<In, Bits<32>>,
    pub z: Signal<In, Bits<6>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_beat: Signal<Out, IcrcBeat>,
    pub out_crc: Signal<Out, Bits<32>>,
    f: CrcFix,
    valid: DFF<Bit>,
    beat: DFF<IcrcBeat>,
    crc: DFF<Bits<32>>,
}

impl CrcFixStep {
    pub fn new(kind: FixKind) -> Self {
        CrcFixStep {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            in_valid: Default::default(),
            in_beat: Default::default(),
            in_crc: Default::default(),
            z: Default::default(),
            out_valid: Default::default(),
            out_beat: Default::default(),
            out_crc: Default::default(),
            f: CrcFix::new(kind),
            valid: Default::default(),
            beat: Default::default(),
            crc: Default::default(),
        }
    }
}

impl Logic for CrcFixStep {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, beat, crc);
        self.f.x.next = self.in_crc.val();
        self.f.z.next = self.z.val();
        if self.en.val() {
            self.valid.d.next = self.in_valid.val();
            self.beat.d.next = self.in_beat.val();
            self.crc.d.next = self.in_crc.val();
            if self.in_beat.val().last {
                self.crc.d.next = self.f.y.val();
            }
        }
        self.out_valid.next = self.valid.q.val();
        self.out_beat.next = self.beat.q.val();
        self.out_crc.next = self.crc.q.val();
        if self.reset.val() {
            self.valid.d.next = false;
        }
    }
}

#[derive(LogicBlock)]
pub struct IcrcCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Advance the pipeline (a beat is taken from `s_axis` when `en & tvalid`).
    pub en: Signal<In, Bit>,
    /// The input stream; `tready` is `en`.
    pub s_axis: crate::stream::Axis512Sink,
    pub out_valid: Signal<Out, Bit>,
    pub out_beat: Signal<Out, IcrcBeat>,
    /// With `out_beat.last`: the raw CRC register after the frame (generator), or that register
    /// XOR the CRC residue, zero exactly when the frame's ICRC is right (checker).
    pub out_crc: Signal<Out, Bits<32>>,
    // helpers
    kcount: KeepCount<64, 7>,
    kexp: KeepExpand<64, 512>,
    classify: IcrcClassify,
    keep_th: Thermo<7, 64>,
    strip_th: Thermo<7, 64>,
    prev_th: Thermo<7, 64>,
    mask: IcrcMask,
    beat_m: XorMatrix<512, 32>,
    a64: XorMatrix<32, 32>,
    fix: [CrcFixStep; 3],
    // stage a
    mid: DFF<Bit>,
    a_valid: DFF<Bit>,
    a_data: DFF<Bits<512>>,
    a_keep: DFF<Bits<64>>,
    a_last: DFF<Bit>,
    a_user: DFF<Bit>,
    a_first: DFF<Bit>,
    a_k: DFF<Bits<7>>,
    a_v6: DFF<Bit>,
    a_roce: DFF<Bit>,
    a_short: DFF<Bit>,
    a_rem0: DFF<Bits<16>>,
    // stage b and the per-frame state it keeps
    v6_q: DFF<Bit>,
    roce_q: DFF<Bit>,
    rem_q: DFF<Bits<16>>,
    bad_q: DFF<Bit>,
    second_q: DFF<Bit>,
    b: DFF<IcrcBeat>,
    b_valid: DFF<Bit>,
    b_v6: DFF<Bit>,
    b_second: DFF<Bit>,
    b_keff: DFF<Bits<7>>,
    // stage p onwards
    p: DFF<IcrcBeat>,
    p_valid: DFF<Bit>,
    p_masked: DFF<Bits<512>>,
    m: DFF<IcrcBeat>,
    m_valid: DFF<Bit>,
    m_md: DFF<Bits<32>>,
    s: DFF<IcrcBeat>,
    s_valid: DFF<Bit>,
    s_crc: DFF<Bits<32>>,
    // constants
    seed64: Constant<Bits<32>>,
    len_adj: Constant<Bits<16>>,
    min_v4: Constant<Bits<16>>,
    min_v6: Constant<Bits<16>>,
    need_v4: Constant<Bits<7>>,
    need_v6: Constant<Bits<7>>,
    c64: Constant<Bits<16>>,
    c60: Constant<Bits<7>>,
    c4: Constant<Bits<7>>,
    c64_7: Constant<Bits<7>>,
    zero16: Constant<Bits<16>>,
    zero6: Constant<Bits<6>>,
    zero64: Constant<Bits<64>>,
    // locals
    first_in: Signal<Local, Bit>,
    v6: Signal<Local, Bit>,
    roce: Signal<Local, Bit>,
    rem: Signal<Local, Bits<16>>,
    k16: Signal<Local, Bits<16>>,
    keff: Signal<Local, Bits<7>>,
    trunc: Signal<Local, Bit>,
    badlen: Signal<Local, Bit>,
    nb: Signal<Local, IcrcBeat>,
    np: Signal<Local, IcrcBeat>,
}

impl IcrcCore {
    /// `icrc_in_frame`: the frames carry their ICRC (checker) or not yet (generator, whose
    /// frames announce 4 bytes more in their IP length than they hold).
    pub fn new(icrc_in_frame: bool) -> Self {
        let adj: u64 = if icrc_in_frame { 0 } else { 4 };
        IcrcCore {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            s_axis: Default::default(),
            out_valid: Default::default(),
            out_beat: Default::default(),
            out_crc: Default::default(),
            kcount: Default::default(),
            kexp: Default::default(),
            classify: Default::default(),
            // covered bytes: keff > i; stripped: keff - 4 > i; previous beat: 60 + keff > i
            keep_th: Thermo::new(0),
            strip_th: Thermo::new(4),
            prev_th: Thermo::new(-60),
            mask: Default::default(),
            beat_m: XorMatrix::new(beat_matrix()),
            a64: XorMatrix::new(shift_matrix(64)),
            fix: if icrc_in_frame {
                [CrcFixStep::new(FixKind::Residue(crc32_residue())), CrcFixStep::new(FixKind::Pass), CrcFixStep::new(FixKind::Pass)]
            } else {
                [0, 1, 2].map(|s| CrcFixStep::new(FixKind::Unshift { n: 1 << (2 * s), pos: 2 * s }))
            },
            mid: Default::default(),
            a_valid: Default::default(),
            a_data: Default::default(),
            a_keep: Default::default(),
            a_last: Default::default(),
            a_user: Default::default(),
            a_first: Default::default(),
            a_k: Default::default(),
            a_v6: Default::default(),
            a_roce: Default::default(),
            a_short: Default::default(),
            a_rem0: Default::default(),
            v6_q: Default::default(),
            roce_q: Default::default(),
            rem_q: Default::default(),
            bad_q: Default::default(),
            second_q: Default::default(),
            b: Default::default(),
            b_valid: Default::default(),
            b_v6: Default::default(),
            b_second: Default::default(),
            b_keff: Default::default(),
            p: Default::default(),
            p_valid: Default::default(),
            p_masked: Default::default(),
            m: Default::default(),
            m_valid: Default::default(),
            m_md: Default::default(),
            s: Default::default(),
            s_valid: Default::default(),
            s_crc: Default::default(),
            seed64: Constant::new((shift_matrix(64).apply(&[icrc_seed() as u64])).into()),
            len_adj: Constant::new(adj.into()),
            min_v4: Constant::new((MIN_ROCE_V4 as u64 - adj).into()),
            min_v6: Constant::new((MIN_ROCE_V6 as u64 - adj).into()),
            need_v4: Constant::new(38u64.into()),
            need_v6: Constant::new(58u64.into()),
            c64: Constant::new(64u64.into()),
            c60: Constant::new(60u64.into()),
            c4: Constant::new(4u64.into()),
            c64_7: Constant::new(64u64.into()),
            zero16: Constant::new(0u64.into()),
            zero6: Constant::new(0u64.into()),
            zero64: Constant::new(0u64.into()),
            first_in: Default::default(),
            v6: Default::default(),
            roce: Default::default(),
            rem: Default::default(),
            k16: Default::default(),
            keff: Default::default(),
            trunc: Default::default(),
            badlen: Default::default(),
            nb: Default::default(),
            np: Default::default(),
        }
    }
}

impl Logic for IcrcCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, a_valid, a_data, a_keep, a_last, a_user, a_first, a_k, a_v6, a_roce, a_short, a_rem0, v6_q, roce_q, rem_q, bad_q, second_q, b, b_valid, b_v6, b_second, b_keff, p, p_valid, p_masked, m, m_valid, m_md, s, s_valid, s_crc);
        // ---------------- stage a: count, classify (fields outside tkeep read as zero)
        self.s_axis.tready.next = self.en.val();
        self.first_in.next = !self.mid.q.val();
        self.kcount.keep.next = self.s_axis.tkeep.val();
        self.kexp.keep.next = self.s_axis.tkeep.val();
        self.classify.data.next = self.s_axis.tdata.val() & self.kexp.mask.val();
        if self.en.val() {
            self.a_valid.d.next = self.s_axis.tvalid.val();
            if self.s_axis.tvalid.val() {
                self.mid.d.next = !self.s_axis.tlast.val();
                self.a_data.d.next = self.s_axis.tdata.val();
                self.a_keep.d.next = self.s_axis.tkeep.val();
                self.a_last.d.next = self.s_axis.tlast.val();
                self.a_user.d.next = self.s_axis.tuser.val();
                self.a_first.d.next = self.first_in.val();
                self.a_k.d.next = self.kcount.count.val();
                self.a_v6.d.next = self.classify.v6.val();
                self.a_roce.d.next = self.classify.roce.val();
                self.a_rem0.d.next = self.classify.ip_frame_len.val() - self.len_adj.val();
                // an IP frame that ends before its UDP destination port cannot be classified
                self.a_short.d.next = self.first_in.val()
                    & self.s_axis.tlast.val()
                    & ((self.classify.v4.val() & (self.kcount.count.val() < self.need_v4.val()))
                        | (self.classify.v6.val() & (self.kcount.count.val() < self.need_v6.val())));
            }
        }
        // ---------------- stage b: length checks against the IP header
        self.v6.next = self.v6_q.q.val();
        self.roce.next = self.roce_q.q.val();
        self.rem.next = self.rem_q.q.val();
        if self.a_first.q.val() {
            self.v6.next = self.a_v6.q.val();
            self.roce.next = self.a_roce.q.val();
            self.rem.next = self.a_rem0.q.val();
        }
        self.k16.next = bit_cast::<16, 7>(self.a_k.q.val());
        self.keff.next = self.a_k.q.val();
        self.trunc.next = self.a_short.q.val();
        self.badlen.next = self.bad_q.q.val();
        if self.a_first.q.val() & self.a_roce.q.val() {
            if self.a_v6.q.val() {
                if self.a_rem0.q.val() < self.min_v6.val() {
                    self.badlen.next = true;
                }
            } else if self.a_rem0.q.val() < self.min_v4.val() {
                self.badlen.next = true;
            }
        }
        if self.a_last.q.val() {
            if self.roce.val() {
                if self.k16.val() < self.rem.val() {
                    self.trunc.next = true;
                }
                if self.k16.val() > self.rem.val() {
                    // Ethernet padding of a short frame is fine; anything else is a bad length
                    if self.a_first.q.val() & (self.a_k.q.val() <= self.c60.val()) {
                        self.keff.next = bit_cast::<7, 16>(self.rem.val());
                    } else {
                        self.badlen.next = true;
                    }
                }
            }
        } else if self.roce.val() & (self.rem.val() <= self.c64.val()) {
            self.badlen.next = true;
        }
        self.nb.next.data = self.a_data.q.val();
        self.nb.next.keep = self.a_keep.q.val();
        self.nb.next.last = self.a_last.q.val();
        self.nb.next.user = self.a_user.q.val();
        self.nb.next.first = self.a_first.q.val();
        self.nb.next.roce = self.roce.val();
        self.nb.next.trunc = self.trunc.val();
        self.nb.next.badlen = self.badlen.val();
        self.nb.next.kcnt = self.a_k.q.val();
        // filled in by stage p
        self.nb.next.z = self.zero6.val();
        self.nb.next.kstrip = self.zero64.val();
        self.nb.next.kprev = self.zero64.val();
        self.nb.next.tail4 = false;
        if self.en.val() {
            self.b_valid.d.next = self.a_valid.q.val();
            if self.a_valid.q.val() {
                self.b.d.next = self.nb.val();
                self.b_v6.d.next = self.v6.val();
                self.b_second.d.next = self.second_q.q.val();
                self.b_keff.d.next = self.keff.val();
                self.v6_q.d.next = self.v6.val();
                self.roce_q.d.next = self.roce.val();
                self.second_q.d.next = self.a_first.q.val() & !self.a_last.q.val();
                self.bad_q.d.next = self.badlen.val() & !self.a_last.q.val();
                self.rem_q.d.next = self.zero16.val();
                if self.rem.val() > self.c64.val() {
                    self.rem_q.d.next = self.rem.val() - self.c64.val();
                }
            }
        }
        // ---------------- stage p: covered bytes and the strip masks
        self.keep_th.x.next = self.b_keff.q.val();
        self.strip_th.x.next = self.b_keff.q.val();
        self.prev_th.x.next = self.b_keff.q.val();
        self.mask.data.next = self.b.q.val().data;
        self.mask.keep.next = self.b.q.val().keep & self.keep_th.out.val();
        self.mask.first.next = self.b.q.val().first;
        self.mask.second.next = self.b_second.q.val();
        self.mask.v6.next = self.b_v6.q.val();
        self.np.next = self.b.q.val();
        self.np.next.z = bit_cast::<6, 7>(self.c64_7.val() - self.b_keff.q.val());
        self.np.next.kstrip = self.strip_th.out.val();
        self.np.next.kprev = self.prev_th.out.val();
        self.np.next.tail4 = self.b_keff.q.val() <= self.c4.val();
        if self.en.val() {
            self.p_valid.d.next = self.b_valid.q.val();
            self.p.d.next = self.np.val();
            self.p_masked.d.next = self.mask.masked.val();
        }
        // ---------------- stage m: beat matrix
        self.beat_m.x.next = self.p_masked.q.val();
        if self.en.val() {
            self.m_valid.d.next = self.p_valid.q.val();
            self.m.d.next = self.p.q.val();
            self.m_md.d.next = self.beat_m.y.val();
        }
        // ---------------- stage s: running state
        self.a64.x.next = self.s_crc.q.val();
        if self.en.val() {
            self.s_valid.d.next = self.m_valid.q.val();
            self.s.d.next = self.m.q.val();
            if self.m_valid.q.val() {
                if self.m.q.val().first {
                    self.s_crc.d.next = self.seed64.val() ^ self.m_md.q.val();
                } else {
                    self.s_crc.d.next = self.a64.y.val() ^ self.m_md.q.val();
                }
            }
        }
        // ---------------- stages f1..f3: undo the zero bytes after the last covered byte
        self.fix[0].clock.next = self.clock.val();
        self.fix[1].clock.next = self.clock.val();
        self.fix[2].clock.next = self.clock.val();
        self.fix[0].reset.next = self.reset.val();
        self.fix[1].reset.next = self.reset.val();
        self.fix[2].reset.next = self.reset.val();
        self.fix[0].en.next = self.en.val();
        self.fix[1].en.next = self.en.val();
        self.fix[2].en.next = self.en.val();
        self.fix[0].in_valid.next = self.s_valid.q.val();
        self.fix[0].in_beat.next = self.s.q.val();
        self.fix[0].in_crc.next = self.s_crc.q.val();
        self.fix[0].z.next = self.s.q.val().z;
        self.fix[1].in_valid.next = self.fix[0].out_valid.val();
        self.fix[1].in_beat.next = self.fix[0].out_beat.val();
        self.fix[1].in_crc.next = self.fix[0].out_crc.val();
        self.fix[1].z.next = self.fix[0].out_beat.val().z;
        self.fix[2].in_valid.next = self.fix[1].out_valid.val();
        self.fix[2].in_beat.next = self.fix[1].out_beat.val();
        self.fix[2].in_crc.next = self.fix[1].out_crc.val();
        self.fix[2].z.next = self.fix[1].out_beat.val().z;
        self.out_valid.next = self.fix[2].out_valid.val();
        self.out_beat.next = self.fix[2].out_beat.val();
        self.out_crc.next = self.fix[2].out_crc.val();
        if self.reset.val() {
            self.mid.d.next = false;
            self.bad_q.d.next = false;
            self.second_q.d.next = false;
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.p_valid.d.next = false;
            self.m_valid.d.next = false;
            self.s_valid.d.next = false;
        }
    }
}
