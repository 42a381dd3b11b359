//! The ICRC pipeline shared by the generator and the checker.
//!
//! Stages (all advance together on `en`; a beat enters when `en & in_valid`):
//! 1. `p`: classify the first beat, track the frame length, mask the covered bytes;
//! 2. `m`: `M·masked` (32×512 XOR matrix);
//! 3. `s`: running state `A^64·s ⊕ M·d` (seeded on the first beat);
//! 4–6. `f1..f3`: for the last beat, `A^-(64-k)` in three 2-bit steps.
//!
//! The original beat travels beside the CRC, so at the output each beat comes with, on its
//! last beat, the raw CRC register over the whole frame. Latency: [`ICRC_CORE_LATENCY`] steps.
use super::fields::*;
use super::gf2::*;
use super::matrix::XorMatrix;
use rust_hdl::prelude::*;

pub const ICRC_CORE_LATENCY: usize = 6;

#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct IcrcBeat {
    pub data: Bits<512>,
    pub keep: Bits<64>,
    pub last: Bit,
    pub user: Bit,
    pub first: Bit,
    pub roce: Bit,
    /// IP length disagrees with the frame (short frame: truncated; long frame: not padding).
    pub trunc: Bit,
    pub badlen: Bit,
    /// Valid bytes in this beat, 1..=64.
    pub kcnt: Bits<7>,
    /// 64 minus the bytes covered by the CRC in the last beat, in three 2-bit digits
    /// (one per fix-up stage).
    pub zl: Bits<2>,
    pub zm: Bits<2>,
    pub zh: Bits<2>,
}

#[derive(LogicBlock)]
pub struct IcrcCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<512>>,
    pub in_keep: Signal<In, Bits<64>>,
    pub in_last: Signal<In, Bit>,
    pub in_user: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_beat: Signal<Out, IcrcBeat>,
    /// Raw CRC register after the frame (meaningful with `out_beat.last`).
    pub out_crc: Signal<Out, Bits<32>>,
    // classification and masking
    kcount: KeepCount<64, 7>,
    kexp: crate::stream::KeepExpand<64, 512>,
    classify: IcrcClassify,
    mask: IcrcMask,
    // matrices
    beat_m: XorMatrix<512, 32>,
    a64: XorMatrix<32, 32>,
    u: [XorMatrix<32, 32>; 9],
    // per-frame state
    mid: DFF<Bit>,
    second: DFF<Bit>,
    v6_q: DFF<Bit>,
    roce_q: DFF<Bit>,
    rem_q: DFF<Bits<16>>,
    bad_q: DFF<Bit>,
    // pipeline
    p: DFF<IcrcBeat>,
    p_valid: DFF<Bit>,
    p_masked: DFF<Bits<512>>,
    m: DFF<IcrcBeat>,
    m_valid: DFF<Bit>,
    m_md: DFF<Bits<32>>,
    s: DFF<IcrcBeat>,
    s_valid: DFF<Bit>,
    s_crc: DFF<Bits<32>>,
    f1: DFF<IcrcBeat>,
    f1_valid: DFF<Bit>,
    f1_crc: DFF<Bits<32>>,
    f2: DFF<IcrcBeat>,
    f2_valid: DFF<Bit>,
    f2_crc: DFF<Bits<32>>,
    f3: DFF<IcrcBeat>,
    f3_valid: DFF<Bit>,
    f3_crc: DFF<Bits<32>>,
    // constants
    seed64: Constant<Bits<32>>,
    len_adj: Constant<Bits<16>>,
    min_v4: Constant<Bits<16>>,
    min_v6: Constant<Bits<16>>,
    c64: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    need_v4: Constant<Bits<16>>,
    need_v6: Constant<Bits<16>>,
    c60: Constant<Bits<16>>,
    all_keep: Constant<Bits<64>>,
    // locals
    first: Signal<Local, Bit>,
    v6_now: Signal<Local, Bit>,
    roce_now: Signal<Local, Bit>,
    rem: Signal<Local, Bits<16>>,
    k16: Signal<Local, Bits<16>>,
    keff: Signal<Local, Bits<16>>,
    keep_eff: Signal<Local, Bits<64>>,
    trunc_now: Signal<Local, Bit>,
    badlen_now: Signal<Local, Bit>,
    nb: Signal<Local, IcrcBeat>,
    zfull: Signal<Local, Bits<6>>,
}

impl IcrcCore {
    /// `icrc_in_frame`: the frames carry their ICRC (checker) or not yet (generator, whose
    /// frames announce 4 bytes more in their IP length than they hold).
    pub fn new(icrc_in_frame: bool) -> Self {
        let u = |n: usize| XorMatrix::new(unshift_matrix(n));
        IcrcCore {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_keep: Default::default(),
            in_last: Default::default(),
            in_user: Default::default(),
            out_valid: Default::default(),
            out_beat: Default::default(),
            out_crc: Default::default(),
            kcount: Default::default(),
            kexp: Default::default(),
            classify: Default::default(),
            mask: Default::default(),
            beat_m: XorMatrix::new(beat_matrix()),
            a64: XorMatrix::new(shift_matrix(64)),
            u: [u(1), u(2), u(3), u(4), u(8), u(12), u(16), u(32), u(48)],
            mid: Default::default(),
            second: Default::default(),
            v6_q: Default::default(),
            roce_q: Default::default(),
            rem_q: Default::default(),
            bad_q: Default::default(),
            p: Default::default(),
            p_valid: Default::default(),
            p_masked: Default::default(),
            m: Default::default(),
            m_valid: Default::default(),
            m_md: Default::default(),
            s: Default::default(),
            s_valid: Default::default(),
            s_crc: Default::default(),
            f1: Default::default(),
            f1_valid: Default::default(),
            f1_crc: Default::default(),
            f2: Default::default(),
            f2_valid: Default::default(),
            f2_crc: Default::default(),
            f3: Default::default(),
            f3_valid: Default::default(),
            f3_crc: Default::default(),
            seed64: Constant::new((shift_matrix(64).apply(&[icrc_seed() as u64])).into()),
            len_adj: Constant::new((if icrc_in_frame { 0u64 } else { 4 }).into()),
            min_v4: Constant::new((MIN_ROCE_V4 as u64 - if icrc_in_frame { 0 } else { 4 }).into()),
            min_v6: Constant::new((MIN_ROCE_V6 as u64 - if icrc_in_frame { 0 } else { 4 }).into()),
            c64: Constant::new(64u64.into()),
            zero16: Constant::new(0u64.into()),
            need_v4: Constant::new(38u64.into()),
            need_v6: Constant::new(58u64.into()),
            c60: Constant::new(60u64.into()),
            all_keep: Constant::new(u64::MAX.into()),
            first: Default::default(),
            v6_now: Default::default(),
            roce_now: Default::default(),
            rem: Default::default(),
            k16: Default::default(),
            keff: Default::default(),
            keep_eff: Default::default(),
            trunc_now: Default::default(),
            badlen_now: Default::default(),
            nb: Default::default(),
            zfull: Default::default(),
        }
    }
}

impl Logic for IcrcCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, second, v6_q, roce_q, rem_q, bad_q, p, p_valid, p_masked, m, m_valid, m_md, s, s_valid, s_crc, f1, f1_valid, f1_crc, f2, f2_valid, f2_crc, f3, f3_valid, f3_crc);
        // ---------------- stage p: classify, length, mask
        self.first.next = !self.mid.q.val();
        self.kexp.keep.next = self.in_keep.val();
        self.classify.data.next = self.in_data.val() & self.kexp.mask.val();
        self.kcount.keep.next = self.in_keep.val();
        self.k16.next = bit_cast::<16, 7>(self.kcount.count.val());
        self.v6_now.next = self.v6_q.q.val();
        self.roce_now.next = self.roce_q.q.val();
        self.rem.next = self.rem_q.q.val();
        if self.first.val() {
            self.v6_now.next = self.classify.v6.val();
            self.roce_now.next = self.classify.roce.val();
            self.rem.next = self.classify.ip_frame_len.val() - self.len_adj.val();
        }
        // frame length checks against the IP header
        self.keff.next = self.k16.val();
        self.trunc_now.next = false;
        self.badlen_now.next = false;
        if self.first.val() & self.classify.roce.val() {
            if self.classify.v6.val() {
                if self.rem.val() < self.min_v6.val() {
                    self.badlen_now.next = true;
                }
            } else if self.rem.val() < self.min_v4.val() {
                self.badlen_now.next = true;
            }
        }
        if self.first.val() & self.in_last.val() {
            // an IP frame that ends before its UDP destination port cannot be classified
            if (self.classify.v4.val() & (self.k16.val() < self.need_v4.val())) | (self.classify.v6.val() & (self.k16.val() < self.need_v6.val())) {
                self.trunc_now.next = true;
            }
        }
        if self.in_last.val() {
            if self.roce_now.val() {
                if self.k16.val() < self.rem.val() {
                    self.trunc_now.next = true;
                }
                if self.k16.val() > self.rem.val() {
                    // Ethernet padding of a short frame is fine; anything else is a bad length
                    if self.first.val() & (self.k16.val() <= self.c60.val()) {
                        self.keff.next = self.rem.val();
                    } else {
                        self.badlen_now.next = true;
                    }
                }
            }
        } else if self.roce_now.val() & (self.rem.val() <= self.c64.val()) {
            self.badlen_now.next = true;
        }
        self.keep_eff.next = self.in_keep.val() & !(self.all_keep.val() << self.keff.val());
        if self.keff.val() == self.c64.val() {
            self.keep_eff.next = self.in_keep.val();
        }
        self.mask.data.next = self.in_data.val();
        self.mask.keep.next = self.keep_eff.val();
        self.mask.first.next = self.first.val();
        self.mask.second.next = self.second.q.val();
        self.mask.v6.next = self.v6_now.val();
        self.nb.next.data = self.in_data.val();
        self.nb.next.keep = self.in_keep.val();
        self.nb.next.last = self.in_last.val();
        self.nb.next.user = self.in_user.val();
        self.nb.next.first = self.first.val();
        self.nb.next.roce = self.roce_now.val();
        self.nb.next.trunc = self.trunc_now.val();
        self.nb.next.badlen = self.badlen_now.val() | self.bad_q.q.val();
        self.nb.next.kcnt = self.kcount.count.val();
        self.zfull.next = bit_cast::<6, 16>(self.c64.val() - self.keff.val());
        self.nb.next.zl = self.zfull.val().get_bits::<2>(0);
        self.nb.next.zm = self.zfull.val().get_bits::<2>(2);
        self.nb.next.zh = self.zfull.val().get_bits::<2>(4);
        if self.en.val() {
            self.p_valid.d.next = self.in_valid.val();
            if self.in_valid.val() {
                self.p.d.next = self.nb.val();
                self.p_masked.d.next = self.mask.masked.val();
                self.mid.d.next = !self.in_last.val();
                self.second.d.next = self.first.val() & !self.in_last.val();
                self.v6_q.d.next = self.v6_now.val();
                self.roce_q.d.next = self.roce_now.val();
                self.rem_q.d.next = self.zero16.val();
                if self.rem.val() > self.c64.val() {
                    self.rem_q.d.next = self.rem.val() - self.c64.val();
                }
                self.bad_q.d.next = (self.badlen_now.val() | self.bad_q.q.val()) & !self.in_last.val();
            }
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
        // ---------------- stages f1..f3: undo the zero bytes after the last valid byte
        self.u[0].x.next = self.s_crc.q.val();
        self.u[1].x.next = self.s_crc.q.val();
        self.u[2].x.next = self.s_crc.q.val();
        self.u[3].x.next = self.f1_crc.q.val();
        self.u[4].x.next = self.f1_crc.q.val();
        self.u[5].x.next = self.f1_crc.q.val();
        self.u[6].x.next = self.f2_crc.q.val();
        self.u[7].x.next = self.f2_crc.q.val();
        self.u[8].x.next = self.f2_crc.q.val();
        if self.en.val() {
            self.f1_valid.d.next = self.s_valid.q.val();
            self.f1.d.next = self.s.q.val();
            self.f1_crc.d.next = self.s_crc.q.val();
            if self.s.q.val().last {
                match self.s.q.val().zl.index() {
                    1 => self.f1_crc.d.next = self.u[0].y.val(),
                    2 => self.f1_crc.d.next = self.u[1].y.val(),
                    3 => self.f1_crc.d.next = self.u[2].y.val(),
                    _ => {}
                }
            }
            self.f2_valid.d.next = self.f1_valid.q.val();
            self.f2.d.next = self.f1.q.val();
            self.f2_crc.d.next = self.f1_crc.q.val();
            if self.f1.q.val().last {
                match self.f1.q.val().zm.index() {
                    1 => self.f2_crc.d.next = self.u[3].y.val(),
                    2 => self.f2_crc.d.next = self.u[4].y.val(),
                    3 => self.f2_crc.d.next = self.u[5].y.val(),
                    _ => {}
                }
            }
            self.f3_valid.d.next = self.f2_valid.q.val();
            self.f3.d.next = self.f2.q.val();
            self.f3_crc.d.next = self.f2_crc.q.val();
            if self.f2.q.val().last {
                match self.f2.q.val().zh.index() {
                    1 => self.f3_crc.d.next = self.u[6].y.val(),
                    2 => self.f3_crc.d.next = self.u[7].y.val(),
                    3 => self.f3_crc.d.next = self.u[8].y.val(),
                    _ => {}
                }
            }
        }
        self.out_valid.next = self.f3_valid.q.val();
        self.out_beat.next = self.f3.q.val();
        self.out_crc.next = self.f3_crc.q.val();
        if self.reset.val() {
            self.mid.d.next = false;
            self.second.d.next = false;
            self.bad_q.d.next = false;
            self.p_valid.d.next = false;
            self.m_valid.d.next = false;
            self.s_valid.d.next = false;
            self.f1_valid.d.next = false;
            self.f2_valid.d.next = false;
            self.f3_valid.d.next = false;
        }
    }
}
