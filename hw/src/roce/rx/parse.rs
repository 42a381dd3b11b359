//! `RoceRxParse` (`rx/eth_ip_udp` + `rx/bth`): splits each RoCEv2 frame into a parsed header
//! ([`RoceHdr`] on the `hdr` valid/ready channel) and its payload (`m_axis`: the bytes after the
//! BTH and extension headers, pad removed). It sits after the ICRC check (`IcrcRx`), so frames
//! arrive without their ICRC and with a length that matches their IP header.
//!
//! * One header per RoCEv2 frame, issued with the frame's second beat (the cycle after the
//!   beat, for a one-beat frame, from a register of it). Its `plen` and `len_err` come from
//!   registers of the first beat (the frame's limit and header-length code), so the header's
//!   length arithmetic starts from flops. A payload frame follows on `m_axis` only when
//!   `plen > 0`.
//! * Frames that are not RoCEv2 (not IPv4 without options or IPv6, UDP to 4791) are consumed,
//!   dropped and counted in `not_roce`. `frames` counts the RoCEv2 frames.
//! * II=1: one beat per cycle in and out. Path: input → register stage (`pipe`) → `AxisLimit`
//!   (`trim`) (cut the pad) → `AxisStrip` (remove the headers) → `m_axis`. The trimmer's limit
//!   and the strip's header-length code are worked out from the frame's first beat on the input
//!   side ([`RoceFrameInfo`]) and ride with the beat above bit 512, so the length adders are a
//!   register away from the cut and the shift (LUT depth); the code ([`FrameInfo::hdr_code`]) names one of
//!   the few header lengths that occur, so the strip's shifter stays small.
//! * `s_flag`, held for the whole frame by the source (the engine's queue of tap verdicts),
//!   becomes the header's `tap_flag`; `s_spec` (whether the RX buffer cut the frame through) its
//!   `spec`.
use crate::roce::hdr::*;
use crate::stream::*;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RoceRxParse {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    /// The parallel tap's flag of the frame on `s_axis` (held from its first beat to its last).
    pub s_flag: Signal<In, Bit>,
    /// The frame on `s_axis` is cut through the RX buffer (held like `s_flag`): its header's
    /// `spec`.
    pub s_spec: Signal<In, Bit>,
    pub m_axis: Axis512Source,
    pub hdr: Signal<Out, RoceHdr>,
    pub hdr_valid: Signal<Out, Bit>,
    pub hdr_ready: Signal<In, Bit>,
    /// The header entering the header channel's output register in this cycle when that
    /// register is empty (`hdr_valid` low): its QPN, and whether there is one. The responder
    /// reads its QP's state a cycle ahead with it.
    pub hdr_pre_qpn: Signal<Out, Bits<24>>,
    pub hdr_pre_valid: Signal<Out, Bit>,
    pub frames: Signal<Out, Bits<32>>,
    pub not_roce: Signal<Out, Bits<32>>,
    info_in: RoceFrameInfo,
    hs_v: Signal<Local, Bit>,
    strip_len: HdrLenOfCode,
    hx: RoceHdrExtract,
    /// The frame's limit (its bytes without the pad, from the first beat), registered as the
    /// first beat is taken; with the header length of `code0` it gives the header's `plen` and
    /// `len_err` (`limit < hdr_len`), so the header's length arithmetic starts from flops.
    limit0: DFF<Bits<16>>,
    hl0: HdrLenOfCode,
    hl0_16: Signal<Local, Bits<16>>,
    lerr0: Signal<Local, Bit>,
    plen0: Signal<Local, Bits<16>>,
    /// A one-beat frame's header leaves the cycle after its beat, from `beat0` and these
    /// registers (its tap flag, `spec`, and whether it is a cut-through runt).
    late: DFF<Bit>,
    flag0: DFF<Bit>,
    spec0: DFF<Bit>,
    runt0: DFF<Bit>,
    stall: Signal<Local, Bit>,
    /// a register stage ahead of the trimmer: the beat, with its frame's header-length code in
    /// bits 515..512 and limit in 531..516 (worked out from the beat on the input side), so that
    /// no cut or shift waits on the length adders. A plain register, not a skid: its ready is
    /// the trimmer's, which is a few LUTs on registers (the trimmer's skid, a zero limit).
    pipe: AxisReg<532, 64>,
    trim: AxisLimitW<516, 64, 7>,
    strip: AxisStrip,
    hskid: ChanSkid<RoceHdr>,
    /// The header length of the frame (its code from the first beat), for a frame cut short:
    /// a cut-through frame (`s_spec`) that ends no later than its headers has no payload, so its
    /// header says `len_err` and `plen` 0 (the strip drops such a runt).
    code0: DFF<Bits<4>>,
    runt_of: RuntOfCode,
    runt: Signal<Local, Bit>,
    mid: DFF<Bit>,
    dropping: DFF<Bit>,
    pend: DFF<Bit>,
    beat0: DFF<Bits<512>>,
    c_frames: DFF<Bits<32>>,
    c_not_roce: DFF<Bits<32>>,
    discard: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    unused_runts: Signal<Local, Bits<32>>,
}

impl Logic for RoceRxParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, code0, mid, dropping, pend, beat0, limit0, late, flag0, spec0, runt0, c_frames, c_not_roce);
        clock!(self, clock, pipe, trim, strip, hskid);
        self.pipe.reset.next = self.reset.val();
        self.trim.reset.next = self.reset.val();
        self.strip.reset.next = self.reset.val();
        self.hskid.reset.next = self.reset.val();
        self.frames.next = self.c_frames.q.val();
        self.not_roce.next = self.c_not_roce.q.val();
        // first-beat classification of the input
        self.info_in.data.next = self.s_axis.tdata.val();
        self.discard.next = self.dropping.q.val() | (!self.mid.q.val() & !self.info_in.roce.val());
        // a one-beat frame's header waiting for room in the header skid holds the input (its
        // beat0 and lengths stay until it leaves)
        self.stall.next = self.late.q.val() & !self.hskid.s_ready.val();
        self.s_axis.tready.next = !self.stall.val() & (self.discard.val() | (self.pipe.s_axis.tready.val() & self.hskid.s_ready.val()));
        self.take.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        // payload path: register, limit (drops the pad), then strip (drops the headers)
        self.pipe.s_axis.tvalid.next = self.s_axis.tvalid.val() & !self.discard.val() & self.hskid.s_ready.val() & !self.stall.val();
        self.pipe.s_axis.tdata.next = (bit_cast::<532, 16>(self.info_in.limit.val()) << 516)
            | (bit_cast::<532, 4>(self.info_in.hdr_code.val()) << 512)
            | bit_cast::<532, 512>(self.s_axis.tdata.val());
        self.pipe.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.pipe.s_axis.tlast.next = self.s_axis.tlast.val();
        self.pipe.s_axis.tuser.next = self.s_axis.tuser.val();
        self.trim.limit.next = self.pipe.m_axis.tdata.val().get_bits::<16>(516);
        self.trim.s_axis.tvalid.next = self.pipe.m_axis.tvalid.val();
        self.trim.s_axis.tdata.next = self.pipe.m_axis.tdata.val().get_bits::<516>(0);
        self.trim.s_axis.tkeep.next = self.pipe.m_axis.tkeep.val();
        self.trim.s_axis.tlast.next = self.pipe.m_axis.tlast.val();
        self.trim.s_axis.tuser.next = self.pipe.m_axis.tuser.val();
        self.pipe.m_axis.tready.next = self.trim.s_axis.tready.val();
        self.strip_len.code.next = self.trim.m_axis.tdata.val().get_bits::<4>(512);
        self.strip.strip_len.next = self.strip_len.hdr_len.val();
        self.strip.s_axis.tvalid.next = self.trim.m_axis.tvalid.val();
        self.strip.s_axis.tdata.next = self.trim.m_axis.tdata.val().get_bits::<512>(0);
        self.strip.s_axis.tkeep.next = self.trim.m_axis.tkeep.val();
        self.strip.s_axis.tlast.next = self.trim.m_axis.tlast.val();
        self.strip.s_axis.tuser.next = self.trim.m_axis.tuser.val();
        self.trim.m_axis.tready.next = self.strip.s_axis.tready.val();
        Axis512Source::link(&mut self.m_axis, &mut self.strip.m_axis);
        self.unused_runts.next = self.strip.runts.val();
        // header path: the first two beats of the frame (a one-beat frame's header leaves the
        // cycle after, from beat0 alone); the lengths come from the first beat, registered
        self.hl0.code.next = self.code0.q.val();
        self.hl0_16.next = bit_cast::<16, 8>(self.hl0.hdr_len.val());
        self.lerr0.next = self.limit0.q.val() < self.hl0_16.val();
        self.plen0.next = self.limit0.q.val() - self.hl0_16.val();
        if self.lerr0.val() {
            self.plen0.next = bit_cast::<16, 1>(false.into());
        }
        self.hx.w.next = (bit_cast::<1024, 512>(self.s_axis.tdata.val()) << 512) | bit_cast::<1024, 512>(self.beat0.q.val());
        if self.late.q.val() {
            self.hx.w.next = bit_cast::<1024, 512>(self.beat0.q.val());
        }
        self.emit.next = self.pend.q.val() & self.mid.q.val();
        self.hskid.s_data.next = self.hx.hdr.val();
        self.hskid.s_data.next.plen = self.plen0.val();
        self.hskid.s_data.next.len_err = self.lerr0.val();
        self.hskid.s_data.next.tap_flag = self.s_flag.val();
        self.hskid.s_data.next.spec = self.s_spec.val();
        if self.late.q.val() {
            self.hskid.s_data.next.tap_flag = self.flag0.q.val();
            self.hskid.s_data.next.spec = self.spec0.q.val();
        }
        // a cut-through frame that ends within its headers (bytes <= header length; keep is
        // contiguous, so "more than n bytes in this beat" is keep bit n)
        self.runt_of.code_first.next = self.info_in.hdr_code.val();
        self.runt_of.code_mid.next = self.code0.q.val();
        self.runt_of.mid.next = self.mid.q.val();
        self.runt_of.keep.next = self.s_axis.tkeep.val();
        self.runt.next = self.runt_of.runt.val();
        if (!self.late.q.val() & self.s_spec.val() & self.s_axis.tlast.val() & self.runt.val()) | (self.late.q.val() & self.runt0.q.val()) {
            self.hskid.s_data.next.len_err = true;
            self.hskid.s_data.next.plen = bit_cast::<16, 1>(false.into());
        }
        self.hs_v.next = (self.take.val() & !self.discard.val() & self.emit.val()) | self.late.q.val();
        self.hskid.s_valid.next = self.hs_v.val();
        self.hdr_pre_valid.next = self.hs_v.val();
        self.hdr_pre_qpn.next = self.hx.hdr.val().dqpn;
        if self.late.q.val() & self.hskid.s_ready.val() {
            self.late.d.next = false;
        }
        self.hdr.next = self.hskid.m_data.val();
        self.hdr_valid.next = self.hskid.m_valid.val();
        self.hskid.m_ready.next = self.hdr_ready.val();
        if self.take.val() {
            self.mid.d.next = !self.s_axis.tlast.val();
            if !self.mid.q.val() {
                self.beat0.d.next = self.s_axis.tdata.val();
                self.code0.d.next = self.info_in.hdr_code.val();
                self.limit0.d.next = self.info_in.limit.val();
                self.flag0.d.next = self.s_flag.val();
                self.spec0.d.next = self.s_spec.val();
                self.runt0.d.next = self.s_spec.val() & self.runt.val();
                if self.discard.val() {
                    self.c_not_roce.d.next = self.c_not_roce.q.val() + 1;
                    self.dropping.d.next = !self.s_axis.tlast.val();
                } else {
                    self.c_frames.d.next = self.c_frames.q.val() + 1;
                    self.pend.d.next = !self.s_axis.tlast.val();
                    self.late.d.next = self.s_axis.tlast.val();
                }
            } else {
                self.pend.d.next = false;
                if self.s_axis.tlast.val() {
                    self.dropping.d.next = false;
                }
            }
        }
        if self.reset.val() {
            self.mid.d.next = false;
            self.dropping.d.next = false;
            self.pend.d.next = false;
            self.late.d.next = false;
            self.c_frames.d.next = 0.into();
            self.c_not_roce.d.next = 0.into();
        }
    }
}

nicgen_hdl::impl_ports!(RoceRxParse, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready, s_flag, s_spec,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    hdr, hdr_valid, hdr_ready, hdr_pre_qpn, hdr_pre_valid, frames, not_roce]);
