//! RoCEv2 ICRC generator and checker on 512-bit Ethernet frames (no FCS), one beat per cycle,
//! byte-granular `tkeep`. Frames that are not RoCEv2 (not IPv4 without options or IPv6, UDP to
//! port 4791) pass through unchanged.
//!
//! * [`IcrcGen`] appends the 4-byte ICRC (adding a beat when the last one has more than 60
//!   bytes). Latency: [`ICRC_GEN_LATENCY`] cycles.
//! * [`IcrcCheck`] strips the ICRC and sets `tuser` on the last beat of a bad frame: wrong ICRC,
//!   truncated (shorter than its IP length), bad length (longer, and not Ethernet padding, or
//!   shorter than the headers), or `tuser` set on input. It counts each cause. Latency:
//!   [`ICRC_CHECK_LATENCY`] cycles.
use super::core::*;
use super::fields::IcrcPlace;
use crate::stream::*;
use rust_hdl::prelude::*;

/// Input beat to output beat, no gaps or backpressure: core stages plus the output skid.
pub const ICRC_GEN_LATENCY: usize = ICRC_CORE_LATENCY + 1;
/// Core stages, the ICRC-strip hold register and the output skid.
pub const ICRC_CHECK_LATENCY: usize = ICRC_CORE_LATENCY + 2;

#[derive(LogicBlock)]
pub struct IcrcGen {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    core: IcrcCore,
    skid: AxisSkid512,
    place: IcrcPlace,
    add_th: super::fields::Thermo<7, 64>,
    extra_th: super::fields::Thermo<7, 64>,
    extra: DFF<Bit>,
    extra_crc: DFF<Bits<32>>,
    extra_keep: DFF<Bits<64>>,
    extra_user: DFF<Bit>,
    en: Signal<Local, Bit>,
    unused_flags: Signal<Local, Bit>,
    c60: Constant<Bits<7>>,
}

impl Default for IcrcGen {
    fn default() -> Self {
        IcrcGen {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            core: IcrcCore::new(false),
            skid: Default::default(),
            place: Default::default(),
            // tkeep with the ICRC: k + 4 > i; of the extra beat: k + 4 - 64 > i
            add_th: super::fields::Thermo::new(-4),
            extra_th: super::fields::Thermo::new(60),
            extra: Default::default(),
            extra_crc: Default::default(),
            extra_keep: Default::default(),
            extra_user: Default::default(),
            en: Default::default(),
            unused_flags: Default::default(),
            c60: Constant::new(60u64.into()),
        }
    }
}

impl Logic for IcrcGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, extra, extra_crc, extra_keep, extra_user);
        clock!(self, clock, core, skid);
        self.core.reset.next = self.reset.val();
        self.skid.reset.next = self.reset.val();
        Axis512Source::link(&mut self.m_axis, &mut self.skid.m_axis);
        self.en.next = self.skid.s_axis.tready.val() & !self.extra.q.val();
        self.core.en.next = self.en.val();
        Axis512Sink::link(&mut self.s_axis, &mut self.core.s_axis);
        self.place.data.next = self.core.out_beat.val().data;
        self.place.k.next = self.core.out_beat.val().kcnt;
        self.place.icrc.next = !self.core.out_crc.val();
        self.add_th.x.next = self.core.out_beat.val().kcnt;
        self.extra_th.x.next = self.core.out_beat.val().kcnt;
        // fields the generator does not use (Verilator ignores names matching *unused*)
        self.unused_flags.next = self.core.out_beat.val().first
            | self.core.out_beat.val().trunc
            | self.core.out_beat.val().badlen
            | self.core.out_beat.val().tail4
            | self.core.out_beat.val().kstrip.any()
            | self.core.out_beat.val().kprev.any()
            | self.core.out_beat.val().z.any();
        // default: pass the core's beat through
        self.skid.s_axis.tvalid.next = self.core.out_valid.val() & self.en.val();
        self.skid.s_axis.tdata.next = self.core.out_beat.val().data;
        self.skid.s_axis.tkeep.next = self.core.out_beat.val().keep;
        self.skid.s_axis.tlast.next = self.core.out_beat.val().last;
        self.skid.s_axis.tuser.next = self.core.out_beat.val().user;
        if self.core.out_beat.val().last & self.core.out_beat.val().roce {
            self.skid.s_axis.tdata.next = self.place.out.val();
            self.skid.s_axis.tkeep.next = self.add_th.out.val();
            if self.core.out_beat.val().kcnt > self.c60.val() {
                self.skid.s_axis.tlast.next = false;
                self.skid.s_axis.tuser.next = false;
                if self.core.out_valid.val() & self.en.val() {
                    self.extra.d.next = true;
                    self.extra_crc.d.next = self.place.extra.val();
                    self.extra_keep.d.next = self.extra_th.out.val();
                    self.extra_user.d.next = self.core.out_beat.val().user;
                }
            }
        }
        if self.extra.q.val() {
            self.skid.s_axis.tvalid.next = true;
            self.skid.s_axis.tdata.next = bit_cast::<512, 32>(self.extra_crc.q.val());
            self.skid.s_axis.tkeep.next = self.extra_keep.q.val();
            self.skid.s_axis.tlast.next = true;
            self.skid.s_axis.tuser.next = self.extra_user.q.val();
            if self.skid.s_axis.tready.val() {
                self.extra.d.next = false;
            }
        }
        if self.reset.val() {
            self.extra.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!(IcrcGen, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready]);

/// Per-cause counters of the checker (wrap at 2^32).
#[derive(LogicInterface, Default)]
pub struct IcrcCounters {
    pub frames: Signal<Out, Bits<32>>,
    pub roce: Signal<Out, Bits<32>>,
    pub bad_icrc: Signal<Out, Bits<32>>,
    pub truncated: Signal<Out, Bits<32>>,
    pub bad_length: Signal<Out, Bits<32>>,
    pub user_flagged: Signal<Out, Bits<32>>,
}

#[derive(LogicBlock)]
pub struct IcrcCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    pub cnt: IcrcCounters,
    core: IcrcCore,
    skid: AxisSkid512,
    h: DFF<IcrcBeat>,
    h_valid: DFF<Bit>,
    h_final: DFF<Bit>,
    c_frames: DFF<Bits<32>>,
    c_roce: DFF<Bits<32>>,
    c_bad: DFF<Bits<32>>,
    c_trunc: DFF<Bits<32>>,
    c_badlen: DFF<Bits<32>>,
    c_user: DFF<Bits<32>>,
    en: Signal<Local, Bit>,
    b: Signal<Local, IcrcBeat>,
    bvalid: Signal<Local, Bit>,
    crc_bad: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    merge: Signal<Local, Bit>,
    unused_fields: Signal<Local, Bit>,
}

impl Default for IcrcCheck {
    fn default() -> Self {
        IcrcCheck {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            cnt: Default::default(),
            core: IcrcCore::new(true),
            skid: Default::default(),
            h: Default::default(),
            h_valid: Default::default(),
            h_final: Default::default(),
            c_frames: Default::default(),
            c_roce: Default::default(),
            c_bad: Default::default(),
            c_trunc: Default::default(),
            c_badlen: Default::default(),
            c_user: Default::default(),
            en: Default::default(),
            b: Default::default(),
            bvalid: Default::default(),
            crc_bad: Default::default(),
            bad: Default::default(),
            merge: Default::default(),
            unused_fields: Default::default(),
        }
    }
}

impl Logic for IcrcCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, h, h_valid, h_final, c_frames, c_roce, c_bad, c_trunc, c_badlen, c_user);
        clock!(self, clock, core, skid);
        self.core.reset.next = self.reset.val();
        self.skid.reset.next = self.reset.val();
        Axis512Source::link(&mut self.m_axis, &mut self.skid.m_axis);
        self.en.next = self.skid.s_axis.tready.val();
        self.core.en.next = self.en.val();
        Axis512Sink::link(&mut self.s_axis, &mut self.core.s_axis);
        self.b.next = self.core.out_beat.val();
        self.bvalid.next = self.core.out_valid.val();
        // fields the checker does not use (Verilator ignores names matching *unused*)
        self.unused_fields.next = self.b.val().first | self.b.val().kcnt.any() | self.b.val().z.any();
        // the core's CRC XOR the residue (run on over the beat's zeroed tail)
        self.crc_bad.next = self.core.out_crc.val().any();
        self.bad.next = self.b.val().user | self.b.val().trunc | (self.b.val().roce & (self.crc_bad.val() | self.b.val().badlen));
        // a RoCE last beat of at most 4 bytes holds only ICRC bytes: fold into the held beat
        self.merge.next = self.b.val().last & self.b.val().roce & self.b.val().tail4 & self.h_valid.q.val() & !self.h_final.q.val();
        // output: the held beat, once the next beat of its frame (or its end) is known
        self.skid.s_axis.tvalid.next = false;
        self.skid.s_axis.tdata.next = self.h.q.val().data;
        self.skid.s_axis.tkeep.next = self.h.q.val().keep;
        self.skid.s_axis.tlast.next = self.h_final.q.val();
        self.skid.s_axis.tuser.next = self.h.q.val().user & self.h_final.q.val();
        if self.h_valid.q.val() & (self.h_final.q.val() | self.bvalid.val()) {
            self.skid.s_axis.tvalid.next = true;
        }
        if self.merge.val() {
            self.skid.s_axis.tkeep.next = self.b.val().kprev;
            self.skid.s_axis.tlast.next = true;
            self.skid.s_axis.tuser.next = self.bad.val();
        }
        if self.en.val() {
            if self.h_valid.q.val() & (self.h_final.q.val() | self.bvalid.val()) {
                self.h_valid.d.next = false;
            }
            if self.bvalid.val() & !self.merge.val() {
                self.h_valid.d.next = true;
                self.h.d.next = self.b.val();
                self.h_final.d.next = self.b.val().last;
                if self.b.val().last {
                    self.h.d.next.user = self.bad.val();
                    if self.b.val().roce & !self.b.val().tail4 {
                        self.h.d.next.keep = self.b.val().kstrip;
                    }
                }
            }
            if self.bvalid.val() & self.b.val().last {
                self.c_frames.d.next = self.c_frames.q.val() + 1;
                if self.b.val().trunc {
                    self.c_trunc.d.next = self.c_trunc.q.val() + 1;
                }
                if self.b.val().roce {
                    self.c_roce.d.next = self.c_roce.q.val() + 1;
                    if self.crc_bad.val() & !self.b.val().trunc & !self.b.val().badlen {
                        self.c_bad.d.next = self.c_bad.q.val() + 1;
                    }
                    if self.b.val().badlen & !self.b.val().trunc {
                        self.c_badlen.d.next = self.c_badlen.q.val() + 1;
                    }
                }
                if self.b.val().user {
                    self.c_user.d.next = self.c_user.q.val() + 1;
                }
            }
        }
        self.cnt.frames.next = self.c_frames.q.val();
        self.cnt.roce.next = self.c_roce.q.val();
        self.cnt.bad_icrc.next = self.c_bad.q.val();
        self.cnt.truncated.next = self.c_trunc.q.val();
        self.cnt.bad_length.next = self.c_badlen.q.val();
        self.cnt.user_flagged.next = self.c_user.q.val();
        if self.reset.val() {
            self.h_valid.d.next = false;
            self.c_frames.d.next = 0.into();
            self.c_roce.d.next = 0.into();
            self.c_bad.d.next = 0.into();
            self.c_trunc.d.next = 0.into();
            self.c_badlen.d.next = 0.into();
            self.c_user.d.next = 0.into();
        }
    }
}

nicgen_hdl::impl_ports!(IcrcCheck, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    cnt.frames, cnt.roce, cnt.bad_icrc, cnt.truncated, cnt.bad_length, cnt.user_flagged]);

/// The RX side next to a MAC: [`IcrcCheck`] followed by a store-and-forward frame FIFO that
/// drops every flagged frame (bad ICRC, truncated, bad length, `tuser` from the MAC) and every
/// frame that finds no room. It never backpressures: a CMAC RX has no `tready`.
#[derive(LogicBlock)]
pub struct IcrcRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub m_axis: Axis512Source,
    pub cnt: IcrcCounters,
    pub dropped: Signal<Out, Bits<32>>,
    pub overflow: Signal<Out, Bits<32>>,
    /// Beats held in the frame FIFO.
    pub level: Signal<Out, Bits<16>>,
    /// The counters above, read-only, at the offsets of `gen/icrc_rx/regmap.json`.
    pub s_axil: crate::axil::AxilSlave<16>,
    check: IcrcCheck,
    fifo: AxisFrameFifo512,
    bridge: crate::axil::AxilBridge,
    window: crate::axil::StatusWindow8,
    unused_wr: Signal<Local, Bit>,
}

impl Default for IcrcRx {
    fn default() -> Self {
        IcrcRx {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            cnt: Default::default(),
            dropped: Default::default(),
            overflow: Default::default(),
            level: Default::default(),
            s_axil: Default::default(),
            check: Default::default(),
            fifo: Default::default(),
            bridge: Default::default(),
            window: Default::default(),
            unused_wr: Default::default(),
        }
    }
}

impl Logic for IcrcRx {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, check, fifo, bridge, window);
        self.check.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.bridge.reset.next = self.reset.val();
        crate::axil::AxilSlave16::link(&mut self.s_axil, &mut self.bridge.s_axil);
        self.window.rd_en.next = self.bridge.rd_en.val();
        self.window.rd_addr.next = self.bridge.rd_addr.val();
        self.bridge.rd_data.next = self.window.rd_data.val();
        self.bridge.rd_err.next = self.window.rd_err.val();
        self.bridge.wr_err.next = self.window.wr_err.val();
        // the write path carries no data here: the window is read-only
        self.window.status[0].next = self.check.cnt.frames.val();
        self.window.status[1].next = self.check.cnt.roce.val();
        self.window.status[2].next = self.check.cnt.bad_icrc.val();
        self.window.status[3].next = self.check.cnt.truncated.val();
        self.window.status[4].next = self.check.cnt.bad_length.val();
        self.window.status[5].next = self.check.cnt.user_flagged.val();
        self.window.status[6].next = self.fifo.drop_bad.val();
        self.window.status[7].next = self.fifo.drop_overflow.val();
        Axis512Sink::link(&mut self.s_axis, &mut self.check.s_axis);
        Axis512Source::join(&mut self.check.m_axis, &mut self.fifo.s_axis);
        Axis512Source::link(&mut self.m_axis, &mut self.fifo.m_axis);
        self.cnt.frames.next = self.check.cnt.frames.val();
        self.cnt.roce.next = self.check.cnt.roce.val();
        self.cnt.bad_icrc.next = self.check.cnt.bad_icrc.val();
        self.cnt.truncated.next = self.check.cnt.truncated.val();
        self.cnt.bad_length.next = self.check.cnt.bad_length.val();
        self.cnt.user_flagged.next = self.check.cnt.user_flagged.val();
        self.dropped.next = self.fifo.drop_bad.val();
        self.overflow.next = self.fifo.drop_overflow.val();
        self.level.next = self.fifo.level.val();
        // every frame is stored (none is cut through)
        self.fifo.s_cut.next = false;
        self.unused_wr.next = self.bridge.wr_en.val() | self.bridge.wr_addr.val().any() | self.bridge.wr_data.val().any() | self.bridge.wr_strb.val().any()
            | self.fifo.w_cut.val() | self.fifo.cut_first.val() | self.fifo.cut_end.val() | self.fifo.cut_bad.val();
    }
}

nicgen_hdl::impl_ports!(IcrcRx, clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    cnt.frames, cnt.roce, cnt.bad_icrc, cnt.truncated, cnt.bad_length, cnt.user_flagged, dropped, overflow, level,
    s_axil.awaddr, s_axil.awvalid, s_axil.awready, s_axil.wdata, s_axil.wstrb, s_axil.wvalid, s_axil.wready,
    s_axil.bresp, s_axil.bvalid, s_axil.bready, s_axil.araddr, s_axil.arvalid, s_axil.arready,
    s_axil.rdata, s_axil.rresp, s_axil.rvalid, s_axil.rready]);
