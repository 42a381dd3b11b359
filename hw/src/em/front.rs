//! `EmFront`: one side of the EM up to its verdict: parse, classify, look up, gate. Frames wait
//! in a 512-beat FIFO while their headers cross the classifier and the lookups; the gate then
//! drops each frame whose verdict has a cause and hands the others on with their header and
//! lookup result (one channel, `m_hdr` + `m_look`). Events from the classifier and the
//! lookups leave merged on `m_ev` (the classifier's first).
//!
//! ```text
//! s_axis ─► EmParse ─► frames ────────────────► FIFO (512 beats) ─► gate ─► m_axis
//!             └─► hdr ─► EmClassify ─► EmLookup ─► verdict ────────┘   └─► m_hdr, m_look
//! ```
use super::classify::{EmClassify, EmEvent, EmTblWr};
use super::lookup::{EmLook, EmLookup};
use super::parse::EmParseW;
use super::tele::EmTele;
use super::EmHdr;
use crate::stream::*;
use rust_hdl::prelude::*;

/// One side at `D` bits (`K` = `D`/8, `FW` = `D` + `K` + 2: the FIFOs' entry).
#[derive(LogicBlock)]
pub struct EmFrontW<const D: usize, const K: usize, const FW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Configuration: the wire side; NAT mode.
    pub from_wire: Signal<In, Bit>,
    pub nat: Signal<In, Bit>,
    /// Host side: each frame's VF, with its first beat.
    pub s_vf: Signal<In, Bits<12>>,
    pub s_axis: AxisSink<D, K>,
    /// Table writes for this side: `dest` bit 0 picks the classifier (0) or the lookups (1).
    /// They go to the bank that is not `bank`.
    pub s_tw: Signal<In, EmTblWr>,
    pub s_tw_valid: Signal<In, Bit>,
    /// The live table bank: new headers read it throughout the classifier and the lookups.
    pub bank: Signal<In, Bit>,
    /// One cycle, as `bank` flips: from the next cycle `busy` holds while headers that read the
    /// old bank are still before the gate.
    pub swap: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    /// Table read-back of the live bank (`dest` bit 0 picks the block), answered two cycles later.
    pub s_rb: Signal<In, EmTblWr>,
    pub s_rb_valid: Signal<In, Bit>,
    pub m_rb: Signal<Out, EmTblWr>,
    pub m_rb_valid: Signal<Out, Bit>,
    pub m_axis: AxisSource<D, K>,
    pub m_hdr: Signal<Out, EmHdr>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    pub m_look: Signal<Out, EmLook>,
    pub m_ev: Signal<Out, EmEvent>,
    pub m_ev_valid: Signal<Out, Bit>,
    pub m_ev_ready: Signal<In, Bit>,
    /// Frames the parser handed on; frames kept and dropped by their verdict.
    pub parsed: Signal<Out, Bits<32>>,
    pub kept: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub parse: EmParseW<D, K, FW>,
    pub fifo: AxisFifo<D, K, FW, 9>,
    pub cls: EmClassify,
    pub lk: EmLookup,
    oskid: AxisSkid<D, K>,
    hskid: ChanSkid<EmHdr>,
    lskid: ChanSkid<EmLook>,
    /// Per-VF and per-tenant counters, counted at the gate.
    pub tele: EmTele,
    c_no_ten: Constant<Bits<3>>,
    in_frame: DFF<Bit>,
    cur_drop: DFF<Bit>,
    k_kept: DFF<Bits<32>>,
    k_drop: DFF<Bits<32>>,
    n_fly: DFF<Bits<32>>,
    old_left: DFF<Bits<32>>,
    fly_next: Signal<Local, Bits<32>>,
    enter: Signal<Local, Bit>,
    vv: Signal<Local, Bit>,
    drop: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    dest: Signal<Local, Bits<3>>,
    rdest: Signal<Local, Bits<3>>,
    c0: Constant<Bits<3>>,
}

/// One side on the 512-bit datapath.
pub type EmFront = EmFrontW<DATA_W, KEEP_W, 578>;
/// One side on the 1024-bit datapath.
pub type EmFront1024 = EmFrontW<1024, 128, 1154>;

impl<const D: usize, const K: usize, const FW: usize> Default for EmFrontW<D, K, FW> {
    fn default() -> Self {
        EmFrontW {
            clock: Default::default(),
            reset: Default::default(),
            from_wire: Default::default(),
            nat: Default::default(),
            s_vf: Default::default(),
            s_axis: Default::default(),
            s_tw: Default::default(),
            s_tw_valid: Default::default(),
            bank: Default::default(),
            swap: Default::default(),
            busy: Default::default(),
            s_rb: Default::default(),
            s_rb_valid: Default::default(),
            m_rb: Default::default(),
            m_rb_valid: Default::default(),
            m_axis: Default::default(),
            m_hdr: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            m_look: Default::default(),
            m_ev: Default::default(),
            m_ev_valid: Default::default(),
            m_ev_ready: Default::default(),
            parsed: Default::default(),
            kept: Default::default(),
            dropped: Default::default(),
            parse: Default::default(),
            fifo: Default::default(),
            cls: Default::default(),
            lk: Default::default(),
            oskid: Default::default(),
            hskid: Default::default(),
            lskid: Default::default(),
            tele: Default::default(),
            c_no_ten: Constant::new((nicgen_model::em::ClsDrop::NoTenant as u64).into()),
            in_frame: Default::default(),
            cur_drop: Default::default(),
            k_kept: Default::default(),
            k_drop: Default::default(),
            n_fly: Default::default(),
            old_left: Default::default(),
            fly_next: Default::default(),
            enter: Default::default(),
            vv: Default::default(),
            drop: Default::default(),
            room: Default::default(),
            start: Default::default(),
            take: Default::default(),
            unused: Default::default(),
            dest: Default::default(),
            rdest: Default::default(),
            c0: Constant::new(0.into()),
        }
    }
}

impl<const D: usize, const K: usize, const FW: usize> Logic for EmFrontW<D, K, FW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame, cur_drop, k_kept, k_drop, n_fly, old_left);
        clock!(self, clock, parse, fifo, cls, lk, oskid, hskid, lskid, tele);
        self.tele.reset.next = self.reset.val();
        self.parse.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.cls.reset.next = self.reset.val();
        self.lk.reset.next = self.reset.val();
        self.oskid.reset.next = self.reset.val();
        self.hskid.reset.next = self.reset.val();
        self.lskid.reset.next = self.reset.val();
        self.parse.from_wire.next = self.from_wire.val();
        self.cls.from_wire.next = self.from_wire.val();
        self.lk.from_wire.next = self.from_wire.val();
        self.lk.nat.next = self.nat.val();
        self.parse.s_vf.next = self.s_vf.val();
        AxisSink::<D, K>::link(&mut self.s_axis, &mut self.parse.s_axis);
        AxisSource::<D, K>::join(&mut self.parse.m_axis, &mut self.fifo.s_axis);
        // headers: parser -> classifier -> lookups
        self.cls.s_hdr.next = self.parse.m_hdr.val();
        self.cls.s_hdr_valid.next = self.parse.m_hdr_valid.val();
        self.parse.m_hdr_ready.next = self.cls.s_hdr_ready.val();
        self.lk.s_hdr.next = self.cls.m_hdr.val();
        self.lk.s_act.next = self.cls.m_act.val();
        self.lk.s_hdr_valid.next = self.cls.m_hdr_valid.val();
        self.cls.m_hdr_ready.next = self.lk.s_hdr_ready.val();
        // table writes to the shadow bank; headers read the live one
        self.cls.bank.next = self.bank.val();
        self.cls.wbank.next = !self.bank.val();
        self.lk.wbank.next = !self.bank.val();
        self.lk.bank.next = self.bank.val();
        self.cls.s_rb.next = self.s_rb.val();
        self.lk.s_rb.next = self.s_rb.val();
        self.rdest.next = self.s_rb.val().dest;
        self.cls.s_rb_valid.next = self.s_rb_valid.val() & !self.rdest.val().get_bit(0) & !self.rdest.val().get_bit(2);
        self.lk.s_rb_valid.next = self.s_rb_valid.val() & self.rdest.val().get_bit(0) & !self.rdest.val().get_bit(2);
        self.tele.s_rb.next = self.s_rb.val();
        self.tele.s_rb_valid.next = self.s_rb_valid.val();
        self.m_rb.next = self.lk.m_rb.val();
        if self.cls.m_rb_valid.val() {
            self.m_rb.next = self.cls.m_rb.val();
        }
        if self.tele.m_rb_valid.val() {
            self.m_rb.next = self.tele.m_rb.val();
        }
        self.m_rb_valid.next = self.cls.m_rb_valid.val() | self.lk.m_rb_valid.val() | self.tele.m_rb_valid.val();
        self.cls.s_tw.next = self.s_tw.val();
        self.lk.s_tw.next = self.s_tw.val();
        self.dest.next = self.s_tw.val().dest;
        // (telemetry, dest bit 2, is read-only)
        self.cls.s_tw_valid.next = self.s_tw_valid.val() & !self.dest.val().get_bit(0) & !self.dest.val().get_bit(2);
        self.lk.s_tw_valid.next = self.s_tw_valid.val() & self.dest.val().get_bit(0) & !self.dest.val().get_bit(2);
        // events, the classifier's first
        self.m_ev.next = self.lk.m_ev.val();
        if self.cls.m_ev_valid.val() {
            self.m_ev.next = self.cls.m_ev.val();
        }
        self.m_ev_valid.next = self.cls.m_ev_valid.val() | self.lk.m_ev_valid.val();
        self.cls.m_ev_ready.next = self.m_ev_ready.val();
        self.lk.m_ev_ready.next = self.m_ev_ready.val() & !self.cls.m_ev_valid.val();
        // the gate: a frame's first beat waits for its verdict
        self.vv.next = self.lk.m_hdr_valid.val();
        self.drop.next = self.lk.m_act.val().cause != self.c0.val();
        self.room.next = self.oskid.s_axis.tready.val() & self.hskid.s_ready.val() & self.lskid.s_ready.val();
        self.start.next = !self.in_frame.q.val() & self.vv.val() & self.fifo.m_axis.tvalid.val() & (self.drop.val() | self.room.val()) & self.tele.ready.val();
        self.oskid.s_axis.tdata.next = self.fifo.m_axis.tdata.val();
        self.oskid.s_axis.tkeep.next = self.fifo.m_axis.tkeep.val();
        self.oskid.s_axis.tlast.next = self.fifo.m_axis.tlast.val();
        self.oskid.s_axis.tuser.next = self.fifo.m_axis.tuser.val();
        if self.in_frame.q.val() {
            self.fifo.m_axis.tready.next = self.cur_drop.q.val() | self.oskid.s_axis.tready.val();
            self.oskid.s_axis.tvalid.next = self.fifo.m_axis.tvalid.val() & !self.cur_drop.q.val();
        } else {
            self.fifo.m_axis.tready.next = self.vv.val() & (self.drop.val() | self.room.val()) & self.tele.ready.val();
            self.oskid.s_axis.tvalid.next = self.start.val() & !self.drop.val();
        }
        self.lk.m_hdr_ready.next = self.start.val();
        self.hskid.s_data.next = self.lk.m_hdr.val();
        self.lskid.s_data.next = self.lk.m_look.val();
        self.hskid.s_valid.next = self.start.val() & !self.drop.val();
        self.lskid.s_valid.next = self.start.val() & !self.drop.val();
        self.take.next = self.fifo.m_axis.tvalid.val() & self.fifo.m_axis.tready.val();
        if self.take.val() {
            self.in_frame.d.next = !self.fifo.m_axis.tlast.val();
        }
        if self.start.val() {
            self.cur_drop.d.next = self.drop.val();
            if self.drop.val() {
                self.k_drop.d.next = self.k_drop.q.val() + 1;
            } else {
                self.k_kept.d.next = self.k_kept.q.val() + 1;
            }
        }
        // telemetry: the VF (host side: the frame's; wire side: the one a kept frame goes to) and
        // the tenant (unless there is none)
        self.tele.ev_valid.next = self.start.val();
        self.tele.ev_vf.next = self.lk.m_hdr.val().vf;
        if self.from_wire.val() {
            self.tele.ev_vf.next = self.lk.m_look.val().vf;
        }
        self.tele.ev_vf_ok.next = !self.from_wire.val() | !self.drop.val();
        self.tele.ev_ten.next = self.lk.m_act.val().tenant;
        self.tele.ev_ten_ok.next = self.lk.m_act.val().cause != self.c_no_ten.val();
        self.tele.ev_len.next = self.lk.m_hdr.val().len;
        self.tele.ev_drop.next = self.drop.val();
        // headers between the classifier's input and the gate (they read the tables); after a
        // swap, those still in flight read the old bank
        self.enter.next = self.parse.m_hdr_valid.val() & self.cls.s_hdr_ready.val();
        self.fly_next.next = self.n_fly.q.val();
        if self.enter.val() & !self.start.val() {
            self.fly_next.next = self.n_fly.q.val() + 1;
        }
        if self.start.val() & !self.enter.val() {
            self.fly_next.next = self.n_fly.q.val() - 1;
        }
        self.n_fly.d.next = self.fly_next.val();
        if self.start.val() & self.old_left.q.val().any() {
            self.old_left.d.next = self.old_left.q.val() - 1;
        }
        if self.swap.val() {
            self.old_left.d.next = self.fly_next.val();
        }
        self.busy.next = self.old_left.q.val().any();
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.oskid.m_axis);
        self.m_hdr.next = self.hskid.m_data.val();
        self.m_look.next = self.lskid.m_data.val();
        self.m_hdr_valid.next = self.hskid.m_valid.val();
        self.hskid.m_ready.next = self.m_hdr_ready.val();
        self.lskid.m_ready.next = self.m_hdr_ready.val();
        self.parsed.next = self.parse.frames.val();
        self.kept.next = self.k_kept.q.val();
        self.dropped.next = self.k_drop.q.val();
        // the blocks' own counters stay inside (the M2M telemetry read will reach them)
        // dest bit 1 (the side) was used by the parent
        self.unused.next = self.lskid.m_valid.val() | self.dest.val().get_bit(1) | self.rdest.val().get_bit(1) | (self.lk.m_act.val() != self.lk.m_act.val()) | self.fifo.level.val().any() | self.cls.s_tw_ready.val() | self.lk.s_tw_ready.val()
            | self.parse.drop_bad_frame.val().any() | self.parse.drop_truncated.val().any() | self.parse.drop_not_ip.val().any() | self.parse.drop_malformed.val().any()
            | self.parse.drop_ip_options.val().any() | self.parse.drop_bad_ip_checksum.val().any() | self.parse.drop_fragment.val().any() | self.parse.drop_bad_vxlan.val().any()
            | self.cls.frames.val().any() | self.cls.drop_no_tenant.val().any() | self.cls.drop_acl.val().any() | self.cls.drop_qos.val().any() | self.cls.marked.val().any() | self.cls.ev_lost.val().any()
            | self.lk.drop_no_route.val().any() | self.lk.drop_no_local.val().any() | self.lk.drop_spoof.val().any() | self.lk.drop_ipv6.val().any() | self.lk.ev_lost.val().any();
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.k_kept.d.next = 0.into();
            self.k_drop.d.next = 0.into();
            self.n_fly.d.next = 0.into();
            self.old_left.d.next = 0.into();
        }
    }
}

/// The conversion of a lookup result to the VXLAN tunnel (with the EM's tunnel settings) and
/// to the NAT translation (pure logic).
#[derive(LogicBlock, Default)]
pub struct LookConv {
    pub cfg: Signal<In, EmCfg>,
    pub look: Signal<In, EmLook>,
    pub tun: Signal<Out, super::vxlan::VxlanTun>,
    pub xl: Signal<Out, super::nat::NatXlate>,
}

crate::record!(
    /// The EM's settings: the local VTEP's address and MAC, the next hop's MAC, the outer TTL
    /// and TOS.
    EmCfg,
    EmCfgFields {
        smac: u64 = 48,
        dmac: u64 = 48,
        sip: u32 = 32,
        ttl: u8 = 8,
        tos: u8 = 8,
    }
);

impl Logic for LookConv {
    fn update(&mut self) {
        let c = EmCfgFields::from_struct(&self.cfg.val());
        let l = super::lookup::EmLookFields::from_struct(&self.look.val());
        self.tun.next = super::vxlan::VxlanTunFields { dmac: c.dmac, smac: c.smac, sip: c.sip, dip: l.dip, ttl: c.ttl, tos: c.tos, vni: l.vni }.to_struct();
        self.xl.next = super::nat::NatXlateFields { src_rw: l.src_rw, dst_rw: l.dst_rw, src: l.src, dst: l.dst }.to_struct();
    }
    fn connect(&mut self) {
        self.tun.connect();
        self.xl.connect();
    }
    fn hdl(&self) -> Verilog {
        use super::lookup::EmLookFields as L;
        use super::nat::NatXlateFields as X;
        use super::vxlan::VxlanTunFields as T;
        use super::vfield;
        let c = |f: &str| vfield("cfg", EmCfgFields::slot(f));
        let l = |f: &str| vfield("look", L::slot(f));
        let mut v = String::from("always @(*) begin\n");
        for (f, e) in [("dmac", c("dmac")), ("smac", c("smac")), ("sip", c("sip")), ("dip", l("dip")), ("ttl", c("ttl")), ("tos", c("tos")), ("vni", l("vni"))] {
            v += &format!("  {} = {e};\n", vfield("tun", T::slot(f)));
        }
        for f in ["src_rw", "dst_rw", "src", "dst"] {
            v += &format!("  {} = {};\n", vfield("xl", X::slot(f)), l(f));
        }
        v += "end\n";
        v += &format!("wire unused_look = ^{} ^ {};\n", l("vf"), l("port"));
        Verilog::Custom(v)
    }
}

/// `EmDatapath`: the whole EM. Host to wire: `EmFront` (host side), then VXLAN encapsulation
/// (overlay) or NAT (`nat`), then `EmForward` to port 0 or 1 with failover. Wire to host: ports 0
/// and 1 merged (`AxisArb4`), `EmFront` (wire side), then decapsulation or NAT, to the host with
/// the frame's VF on `m_host_vf` (with its first beat). One table-write port serves both sides
/// (`dest`), and one event output carries both sides' misses (the host side's first). Set
/// `nat` and `cfg` while no traffic flows.
///
/// Every table has two banks. Table writes go to the shadow bank; `swap` (one cycle) makes it
/// live for every header that enters after it, and each frame reads one bank throughout, so a
/// batch of writes becomes visible to all frames at once and no frame sees part of it. `busy`
/// stays high while frames that read the old bank are still before their gates; the writer
/// then repeats the batch into the new shadow (the M2M endpoint does this).
///
/// `EmDatapathW<D, K, FW, CB, SB, C>` is the EM at `D` bits (`K` = `D`/8, `FW` = `D` + `K` + 2,
/// `CB` = log2 `K`, `SB` = 8 - `CB`, `C` = `CB` + 1): `EmDatapath` at 512, `EmDatapath1024`
/// at 1024 (2×200G). Its NAT path updates each RoCEv2 frame's ICRC in place
/// (`nat_wide::EmNatPathIncW`).
#[derive(LogicBlock)]
pub struct EmDatapathW<const D: usize, const K: usize, const FW: usize, const CB: usize, const SB: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub nat: Signal<In, Bit>,
    pub cfg: Signal<In, EmCfg>,
    pub link_up: Signal<In, Bits<2>>,
    pub s_axis_host_tx: AxisSink<D, K>,
    pub s_host_vf: Signal<In, Bits<12>>,
    pub m_axis_p0_tx: AxisSource<D, K>,
    pub m_axis_p1_tx: AxisSource<D, K>,
    pub s_axis_p0_rx: AxisSink<D, K>,
    pub s_axis_p1_rx: AxisSink<D, K>,
    pub m_axis_host_rx: AxisSource<D, K>,
    pub m_host_vf: Signal<Out, Bits<12>>,
    pub s_tw: Signal<In, EmTblWr>,
    pub s_tw_valid: Signal<In, Bit>,
    pub s_tw_ready: Signal<Out, Bit>,
    pub swap: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    /// Table read-back of the live bank (`dest` as for writes), answered two cycles later.
    pub s_rb: Signal<In, EmTblWr>,
    pub s_rb_valid: Signal<In, Bit>,
    pub m_rb: Signal<Out, EmTblWr>,
    pub m_rb_valid: Signal<Out, Bit>,
    pub m_ev: Signal<Out, EmEvent>,
    pub m_ev_valid: Signal<Out, Bit>,
    pub m_ev_ready: Signal<In, Bit>,
    pub eg_parsed: Signal<Out, Bits<32>>,
    pub eg_kept: Signal<Out, Bits<32>>,
    pub eg_dropped: Signal<Out, Bits<32>>,
    pub ig_parsed: Signal<Out, Bits<32>>,
    pub ig_kept: Signal<Out, Bits<32>>,
    pub ig_dropped: Signal<Out, Bits<32>>,
    pub frames_p0: Signal<Out, Bits<32>>,
    pub frames_p1: Signal<Out, Bits<32>>,
    pub failover: Signal<Out, Bits<32>>,
    pub drop_link_down: Signal<Out, Bits<32>>,
    pub drop_roce_vlan: Signal<Out, Bits<32>>,
    pub eg: EmFrontW<D, K, FW>,
    pub ig: EmFrontW<D, K, FW>,
    econv: LookConv,
    iconv: LookConv,
    encap: super::vxlan::EmVxlanEncapW<D, K, CB, SB>,
    enat: super::nat_wide::EmNatPathIncW<D, K, FW, CB, C>,
    fwd: super::forward::EmForwardW<D, K>,
    port_q: AxisFifo<1, 1, 4, 6>,
    /// The frames on their way to the encapsulation, which takes a header two stages before its
    /// frame's first beat (the front end hands both on together).
    encap_q: AxisFifo<D, K, FW, 3>,
    fwd_in: DFF<Bit>,
    live: DFF<Bit>,
    rdest: Signal<Local, Bits<3>>,
    arb: AxisArb4W<D, K>,
    decap: super::vxlan::EmVxlanDecapW<D, K, CB, SB>,
    inat: super::nat_wide::EmNatPathIncW<D, K, FW, CB, C>,
    vf_q: AxisFifo<12, 1, 15, 6>,
    host_in: DFF<Bit>,
    e_drop: Signal<Local, Bit>,
    i_drop: Signal<Local, Bit>,
    e_go: Signal<Local, Bit>,
    i_go: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    dest: Signal<Local, Bits<3>>,
    c0_12: Constant<Bits<12>>,
    c0_d: Constant<Bits<D>>,
    c0_k: Constant<Bits<K>>,
}

/// The EM on the 512-bit datapath.
pub type EmDatapath = EmDatapathW<DATA_W, KEEP_W, 578, 6, 2, 7>;
/// The EM on the 1024-bit datapath (2×200G).
pub type EmDatapath1024 = EmDatapathW<1024, 128, 1154, 7, 1, 8>;

impl<const D: usize, const K: usize, const FW: usize, const CB: usize, const SB: usize, const C: usize> Default for EmDatapathW<D, K, FW, CB, SB, C> {
    fn default() -> Self {
        EmDatapathW {
            clock: Default::default(),
            reset: Default::default(),
            nat: Default::default(),
            cfg: Default::default(),
            link_up: Default::default(),
            s_axis_host_tx: Default::default(),
            s_host_vf: Default::default(),
            m_axis_p0_tx: Default::default(),
            m_axis_p1_tx: Default::default(),
            s_axis_p0_rx: Default::default(),
            s_axis_p1_rx: Default::default(),
            m_axis_host_rx: Default::default(),
            m_host_vf: Default::default(),
            s_tw: Default::default(),
            s_tw_valid: Default::default(),
            s_tw_ready: Default::default(),
            swap: Default::default(),
            busy: Default::default(),
            s_rb: Default::default(),
            s_rb_valid: Default::default(),
            m_rb: Default::default(),
            m_rb_valid: Default::default(),
            rdest: Default::default(),
            live: Default::default(),
            m_ev: Default::default(),
            m_ev_valid: Default::default(),
            m_ev_ready: Default::default(),
            eg_parsed: Default::default(),
            eg_kept: Default::default(),
            eg_dropped: Default::default(),
            ig_parsed: Default::default(),
            ig_kept: Default::default(),
            ig_dropped: Default::default(),
            frames_p0: Default::default(),
            frames_p1: Default::default(),
            failover: Default::default(),
            drop_link_down: Default::default(),
            drop_roce_vlan: Default::default(),
            eg: Default::default(),
            ig: Default::default(),
            econv: Default::default(),
            iconv: Default::default(),
            encap: Default::default(),
            enat: Default::default(),
            fwd: Default::default(),
            port_q: AxisFifo::new(),
            encap_q: AxisFifo::new(),
            fwd_in: Default::default(),
            arb: Default::default(),
            decap: Default::default(),
            inat: Default::default(),
            vf_q: AxisFifo::new(),
            host_in: Default::default(),
            e_drop: Default::default(),
            i_drop: Default::default(),
            e_go: Default::default(),
            i_go: Default::default(),
            unused: Default::default(),
            dest: Default::default(),
            c0_12: Constant::new(0.into()),
            c0_d: Constant::new(Bits::<D>::default()),
            c0_k: Constant::new(Bits::<K>::default()),
        }
    }
}

impl<const D: usize, const K: usize, const FW: usize, const CB: usize, const SB: usize, const C: usize> Logic for EmDatapathW<D, K, FW, CB, SB, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fwd_in, host_in, live);
        clock!(self, clock, eg, ig, encap, enat, fwd, port_q, arb, decap, inat, vf_q, encap_q);
        self.encap_q.reset.next = self.reset.val();
        self.eg.reset.next = self.reset.val();
        self.ig.reset.next = self.reset.val();
        self.encap.reset.next = self.reset.val();
        self.enat.reset.next = self.reset.val();
        self.fwd.reset.next = self.reset.val();
        self.port_q.reset.next = self.reset.val();
        self.arb.reset.next = self.reset.val();
        self.decap.reset.next = self.reset.val();
        self.inat.reset.next = self.reset.val();
        self.vf_q.reset.next = self.reset.val();
        self.eg.from_wire.next = false;
        self.ig.from_wire.next = true;
        self.eg.nat.next = self.nat.val();
        self.ig.nat.next = self.nat.val();
        self.eg.s_vf.next = self.s_host_vf.val();
        self.ig.s_vf.next = self.c0_12.val();
        self.eg.s_tw.next = self.s_tw.val();
        self.ig.s_tw.next = self.s_tw.val();
        self.dest.next = self.s_tw.val().dest;
        self.eg.s_tw_valid.next = self.s_tw_valid.val() & !self.dest.val().get_bit(1);
        self.ig.s_tw_valid.next = self.s_tw_valid.val() & self.dest.val().get_bit(1);
        self.s_tw_ready.next = true;
        self.live.d.next = self.live.q.val() ^ self.swap.val();
        self.eg.bank.next = self.live.q.val();
        self.ig.bank.next = self.live.q.val();
        self.eg.swap.next = self.swap.val();
        self.ig.swap.next = self.swap.val();
        self.busy.next = self.eg.busy.val() | self.ig.busy.val();
        self.eg.s_rb.next = self.s_rb.val();
        self.ig.s_rb.next = self.s_rb.val();
        self.rdest.next = self.s_rb.val().dest;
        self.eg.s_rb_valid.next = self.s_rb_valid.val() & !self.rdest.val().get_bit(1);
        self.ig.s_rb_valid.next = self.s_rb_valid.val() & self.rdest.val().get_bit(1);
        self.m_rb.next = self.ig.m_rb.val();
        if self.eg.m_rb_valid.val() {
            self.m_rb.next = self.eg.m_rb.val();
        }
        self.m_rb_valid.next = self.eg.m_rb_valid.val() | self.ig.m_rb_valid.val();
        self.m_ev.next = self.ig.m_ev.val();
        if self.eg.m_ev_valid.val() {
            self.m_ev.next = self.eg.m_ev.val();
        }
        self.m_ev_valid.next = self.eg.m_ev_valid.val() | self.ig.m_ev_valid.val();
        self.eg.m_ev_ready.next = self.m_ev_ready.val();
        self.ig.m_ev_ready.next = self.m_ev_ready.val() & !self.eg.m_ev_valid.val();
        // ------------------------------------------------ host to wire
        AxisSink::<D, K>::link(&mut self.s_axis_host_tx, &mut self.eg.s_axis);
        self.econv.cfg.next = self.cfg.val();
        self.econv.look.next = self.eg.m_look.val();
        // a tagged RoCEv2 frame in NAT mode is dropped by the NAT path: it takes no port entry
        self.e_drop.next = self.nat.val() & self.eg.m_hdr.val().roce & self.eg.m_hdr.val().vlan;
        self.e_go.next = self.eg.m_hdr_valid.val() & self.port_q.s_axis.tready.val();
        self.encap.s_hdr.next = self.eg.m_hdr.val();
        self.encap.s_tun.next = self.econv.tun.val();
        self.encap.s_hdr_valid.next = self.e_go.val() & !self.nat.val();
        self.encap.s_tun_valid.next = self.e_go.val() & !self.nat.val();
        self.enat.s_hdr.next = self.eg.m_hdr.val();
        self.enat.s_xl.next = self.econv.xl.val();
        self.enat.s_hdr_valid.next = self.e_go.val() & self.nat.val();
        self.enat.s_xl_valid.next = self.e_go.val() & self.nat.val();
        self.eg.m_hdr_ready.next = self.encap.s_hdr_ready.val();
        if self.nat.val() {
            self.eg.m_hdr_ready.next = self.enat.s_hdr_ready.val();
        }
        self.port_q.s_axis.tdata.next = self.eg.m_look.val().port.into();
        self.port_q.s_axis.tkeep.next = true.into();
        self.port_q.s_axis.tlast.next = true;
        self.port_q.s_axis.tuser.next = false;
        self.port_q.s_axis.tvalid.next = self.eg.m_hdr_valid.val() & self.eg.m_hdr_ready.val() & !self.e_drop.val();
        // frames to the encapsulation (through its queue) or the NAT path
        self.encap_q.s_axis.tdata.next = self.eg.m_axis.tdata.val();
        self.encap_q.s_axis.tkeep.next = self.eg.m_axis.tkeep.val();
        self.encap_q.s_axis.tlast.next = self.eg.m_axis.tlast.val();
        self.encap_q.s_axis.tuser.next = self.eg.m_axis.tuser.val();
        AxisSource::<D, K>::join(&mut self.encap_q.m_axis, &mut self.encap.s_axis);
        self.enat.s_axis.tdata.next = self.eg.m_axis.tdata.val();
        self.enat.s_axis.tkeep.next = self.eg.m_axis.tkeep.val();
        self.enat.s_axis.tlast.next = self.eg.m_axis.tlast.val();
        self.enat.s_axis.tuser.next = self.eg.m_axis.tuser.val();
        self.encap_q.s_axis.tvalid.next = self.eg.m_axis.tvalid.val() & !self.nat.val();
        self.enat.s_axis.tvalid.next = self.eg.m_axis.tvalid.val() & self.nat.val();
        self.eg.m_axis.tready.next = self.encap_q.s_axis.tready.val();
        if self.nat.val() {
            self.eg.m_axis.tready.next = self.enat.s_axis.tready.val();
        }
        // to the forwarder, each frame's first beat with its port
        self.fwd.s_axis.tdata.next = self.encap.m_axis.tdata.val();
        self.fwd.s_axis.tkeep.next = self.encap.m_axis.tkeep.val();
        self.fwd.s_axis.tlast.next = self.encap.m_axis.tlast.val();
        self.fwd.s_axis.tuser.next = self.encap.m_axis.tuser.val();
        self.fwd.s_axis.tvalid.next = self.encap.m_axis.tvalid.val() & (self.fwd_in.q.val() | self.port_q.m_axis.tvalid.val());
        if self.nat.val() {
            self.fwd.s_axis.tdata.next = self.enat.m_axis.tdata.val();
            self.fwd.s_axis.tkeep.next = self.enat.m_axis.tkeep.val();
            self.fwd.s_axis.tlast.next = self.enat.m_axis.tlast.val();
            self.fwd.s_axis.tuser.next = self.enat.m_axis.tuser.val();
            self.fwd.s_axis.tvalid.next = self.enat.m_axis.tvalid.val() & (self.fwd_in.q.val() | self.port_q.m_axis.tvalid.val());
        }
        self.encap.m_axis.tready.next = self.fwd.s_axis.tready.val() & !self.nat.val() & (self.fwd_in.q.val() | self.port_q.m_axis.tvalid.val());
        self.enat.m_axis.tready.next = self.fwd.s_axis.tready.val() & self.nat.val() & (self.fwd_in.q.val() | self.port_q.m_axis.tvalid.val());
        self.fwd.s_port.next = self.port_q.m_axis.tdata.val().any();
        self.port_q.m_axis.tready.next = self.fwd.s_axis.tvalid.val() & self.fwd.s_axis.tready.val() & !self.fwd_in.q.val();
        if self.fwd.s_axis.tvalid.val() & self.fwd.s_axis.tready.val() {
            self.fwd_in.d.next = !self.fwd.s_axis.tlast.val();
        }
        self.fwd.link_up.next = self.link_up.val();
        AxisSource::<D, K>::link(&mut self.m_axis_p0_tx, &mut self.fwd.m_axis_p0);
        AxisSource::<D, K>::link(&mut self.m_axis_p1_tx, &mut self.fwd.m_axis_p1);
        // ------------------------------------------------ wire to host
        AxisSink::<D, K>::link(&mut self.s_axis_p0_rx, &mut self.arb.s0_axis);
        AxisSink::<D, K>::link(&mut self.s_axis_p1_rx, &mut self.arb.s1_axis);
        self.arb.s2_axis.tdata.next = self.c0_d.val();
        self.arb.s2_axis.tkeep.next = self.c0_k.val();
        self.arb.s2_axis.tlast.next = false;
        self.arb.s2_axis.tuser.next = false;
        self.arb.s2_axis.tvalid.next = false;
        self.arb.s3_axis.tdata.next = self.c0_d.val();
        self.arb.s3_axis.tkeep.next = self.c0_k.val();
        self.arb.s3_axis.tlast.next = false;
        self.arb.s3_axis.tuser.next = false;
        self.arb.s3_axis.tvalid.next = false;
        AxisSource::<D, K>::join(&mut self.arb.m_axis, &mut self.ig.s_axis);
        self.iconv.cfg.next = self.cfg.val();
        self.iconv.look.next = self.ig.m_look.val();
        self.i_drop.next = self.nat.val() & self.ig.m_hdr.val().roce & self.ig.m_hdr.val().vlan;
        self.i_go.next = self.ig.m_hdr_valid.val() & self.vf_q.s_axis.tready.val();
        self.decap.s_hdr.next = self.ig.m_hdr.val();
        self.decap.s_hdr_valid.next = self.i_go.val() & !self.nat.val();
        self.decap.m_hdr_ready.next = true;
        self.inat.s_hdr.next = self.ig.m_hdr.val();
        self.inat.s_xl.next = self.iconv.xl.val();
        self.inat.s_hdr_valid.next = self.i_go.val() & self.nat.val();
        self.inat.s_xl_valid.next = self.i_go.val() & self.nat.val();
        self.ig.m_hdr_ready.next = self.decap.s_hdr_ready.val();
        if self.nat.val() {
            self.ig.m_hdr_ready.next = self.inat.s_hdr_ready.val();
        }
        self.vf_q.s_axis.tdata.next = self.ig.m_look.val().vf;
        self.vf_q.s_axis.tkeep.next = true.into();
        self.vf_q.s_axis.tlast.next = true;
        self.vf_q.s_axis.tuser.next = false;
        self.vf_q.s_axis.tvalid.next = self.ig.m_hdr_valid.val() & self.ig.m_hdr_ready.val() & !self.i_drop.val();
        self.decap.s_axis.tdata.next = self.ig.m_axis.tdata.val();
        self.decap.s_axis.tkeep.next = self.ig.m_axis.tkeep.val();
        self.decap.s_axis.tlast.next = self.ig.m_axis.tlast.val();
        self.decap.s_axis.tuser.next = self.ig.m_axis.tuser.val();
        self.inat.s_axis.tdata.next = self.ig.m_axis.tdata.val();
        self.inat.s_axis.tkeep.next = self.ig.m_axis.tkeep.val();
        self.inat.s_axis.tlast.next = self.ig.m_axis.tlast.val();
        self.inat.s_axis.tuser.next = self.ig.m_axis.tuser.val();
        self.decap.s_axis.tvalid.next = self.ig.m_axis.tvalid.val() & !self.nat.val();
        self.inat.s_axis.tvalid.next = self.ig.m_axis.tvalid.val() & self.nat.val();
        self.ig.m_axis.tready.next = self.decap.s_axis.tready.val();
        if self.nat.val() {
            self.ig.m_axis.tready.next = self.inat.s_axis.tready.val();
        }
        // to the host, each frame's first beat with its VF
        self.m_axis_host_rx.tdata.next = self.decap.m_axis.tdata.val();
        self.m_axis_host_rx.tkeep.next = self.decap.m_axis.tkeep.val();
        self.m_axis_host_rx.tlast.next = self.decap.m_axis.tlast.val();
        self.m_axis_host_rx.tuser.next = self.decap.m_axis.tuser.val();
        self.m_axis_host_rx.tvalid.next = self.decap.m_axis.tvalid.val() & (self.host_in.q.val() | self.vf_q.m_axis.tvalid.val());
        if self.nat.val() {
            self.m_axis_host_rx.tdata.next = self.inat.m_axis.tdata.val();
            self.m_axis_host_rx.tkeep.next = self.inat.m_axis.tkeep.val();
            self.m_axis_host_rx.tlast.next = self.inat.m_axis.tlast.val();
            self.m_axis_host_rx.tuser.next = self.inat.m_axis.tuser.val();
            self.m_axis_host_rx.tvalid.next = self.inat.m_axis.tvalid.val() & (self.host_in.q.val() | self.vf_q.m_axis.tvalid.val());
        }
        self.decap.m_axis.tready.next = self.m_axis_host_rx.tready.val() & !self.nat.val() & (self.host_in.q.val() | self.vf_q.m_axis.tvalid.val());
        self.inat.m_axis.tready.next = self.m_axis_host_rx.tready.val() & self.nat.val() & (self.host_in.q.val() | self.vf_q.m_axis.tvalid.val());
        self.m_host_vf.next = self.vf_q.m_axis.tdata.val();
        self.vf_q.m_axis.tready.next = self.m_axis_host_rx.tvalid.val() & self.m_axis_host_rx.tready.val() & !self.host_in.q.val();
        if self.m_axis_host_rx.tvalid.val() & self.m_axis_host_rx.tready.val() {
            self.host_in.d.next = !self.m_axis_host_rx.tlast.val();
        }
        // ------------------------------------------------ counters
        self.eg_parsed.next = self.eg.parsed.val();
        self.eg_kept.next = self.eg.kept.val();
        self.eg_dropped.next = self.eg.dropped.val();
        self.ig_parsed.next = self.ig.parsed.val();
        self.ig_kept.next = self.ig.kept.val();
        self.ig_dropped.next = self.ig.dropped.val();
        self.frames_p0.next = self.fwd.frames_p0.val();
        self.frames_p1.next = self.fwd.frames_p1.val();
        self.failover.next = self.fwd.failover.val();
        self.drop_link_down.next = self.fwd.drop_link_down.val();
        self.drop_roce_vlan.next = self.enat.drop_roce_vlan.val() + self.inat.drop_roce_vlan.val();
        // dest bit 0 (the block) is for the fronts
        self.unused.next = self.decap.m_hdr_valid.val() | self.dest.val().get_bit(0) | self.rdest.val().get_bit(0) | self.dest.val().get_bit(2) | self.rdest.val().get_bit(2) | (self.decap.m_hdr.val() != self.decap.m_hdr.val()) | (self.iconv.tun.val() != self.iconv.tun.val()) | self.arb.grant.val().any() | self.port_q.level.val().any() | self.encap_q.level.val().any()
            | self.port_q.m_axis.tkeep.val().any() | self.port_q.m_axis.tlast.val() | self.port_q.m_axis.tuser.val()
            | self.vf_q.level.val().any() | self.vf_q.m_axis.tkeep.val().any() | self.vf_q.m_axis.tlast.val() | self.vf_q.m_axis.tuser.val()
            | self.arb.s2_axis.tready.val() | self.arb.s3_axis.tready.val() | self.encap.s_tun_ready.val() | self.enat.s_xl_ready.val() | self.inat.s_xl_ready.val();
        if self.reset.val() {
            self.fwd_in.d.next = false;
            self.host_in.d.next = false;
            self.live.d.next = false;
        }
    }
}

/// The EM's counters.
pub const EM_DATAPATH_COUNTERS: [(&str, &str); 11] = [
    ("eg_parsed", "host to wire: frames the parser accepted"),
    ("eg_kept", "host to wire: frames passed by classification, policy and lookups"),
    ("eg_dropped", "host to wire: frames dropped by their verdict"),
    ("ig_parsed", "wire to host: frames the parser accepted"),
    ("ig_kept", "wire to host: frames passed"),
    ("ig_dropped", "wire to host: frames dropped by their verdict"),
    ("frames_p0", "frames sent to port 0"),
    ("frames_p1", "frames sent to port 1"),
    ("failover", "frames sent to the port they did not prefer"),
    ("drop_link_down", "frames dropped: both links down"),
    ("drop_roce_vlan", "NAT mode: VLAN-tagged RoCEv2 frames dropped"),
];

nicgen_hdl::impl_ports!([EmDatapath, EmDatapath1024], clock = clock, [clock, reset, nat, cfg, link_up,
    s_axis_host_tx.tdata, s_axis_host_tx.tkeep, s_axis_host_tx.tlast, s_axis_host_tx.tuser, s_axis_host_tx.tvalid, s_axis_host_tx.tready,
    s_host_vf,
    m_axis_p0_tx.tdata, m_axis_p0_tx.tkeep, m_axis_p0_tx.tlast, m_axis_p0_tx.tuser, m_axis_p0_tx.tvalid, m_axis_p0_tx.tready,
    m_axis_p1_tx.tdata, m_axis_p1_tx.tkeep, m_axis_p1_tx.tlast, m_axis_p1_tx.tuser, m_axis_p1_tx.tvalid, m_axis_p1_tx.tready,
    s_axis_p0_rx.tdata, s_axis_p0_rx.tkeep, s_axis_p0_rx.tlast, s_axis_p0_rx.tuser, s_axis_p0_rx.tvalid, s_axis_p0_rx.tready,
    s_axis_p1_rx.tdata, s_axis_p1_rx.tkeep, s_axis_p1_rx.tlast, s_axis_p1_rx.tuser, s_axis_p1_rx.tvalid, s_axis_p1_rx.tready,
    m_axis_host_rx.tdata, m_axis_host_rx.tkeep, m_axis_host_rx.tlast, m_axis_host_rx.tuser, m_axis_host_rx.tvalid, m_axis_host_rx.tready,
    m_host_vf, s_tw, s_tw_valid, s_tw_ready, swap, busy, s_rb, s_rb_valid, m_rb, m_rb_valid, m_ev, m_ev_valid, m_ev_ready,
    eg_parsed, eg_kept, eg_dropped, ig_parsed, ig_kept, ig_dropped, frames_p0, frames_p1, failover, drop_link_down, drop_roce_vlan]);
