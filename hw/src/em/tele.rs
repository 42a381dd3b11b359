//! `EmTele`: per-VF and per-tenant telemetry of one EM side, counted at the gate (the frame's
//! policy and lookup verdict). Each table (4096 VFs, 4096 tenants) holds per index
//! `{pkts, bytes, drops}` (bits 31:0, 95:32, 127:96): frames passed and their bytes (as they
//! arrived at this side, before encapsulation or translation), and frames dropped by their
//! verdict. A frame counts for its VF (host side: always; wire side: the VF it is delivered to,
//! so only when kept) and for its tenant (unless the verdict is `no_tenant`). Frames the parser
//! drops never reach the gate; they, and drops after the gate (`roce_vlan`, `link_down`), are in
//! the per-cause counters.
//!
//! Read-modify-write in two stages per frame (read, then add and write), one frame per cycle; a
//! read issued in the cycle its index is written takes the written value (forwarded). The
//! tables are read through the table read-back port with `dest` bit 2 set (`table` 0 VF,
//! 1 tenant; the entry in `d0`), answered two cycles later; a read-back takes the RAMs' read
//! port for a cycle, and `ready` holds the gate meanwhile. Writes to `dest` bit 2 are ignored:
//! telemetry is read-only.
use super::classify::EmTblWr;
use crate::stream::ram::{Ram, RamStyle};
use rust_hdl::prelude::*;

/// Index bits of the two tables.
pub const TELE_BITS: usize = 12;

/// One counter table: a read at `raddr` (stage 0), then, a cycle later, `cur` (the entry, with
/// a write of the same cycle as the read forwarded) and, with `upd`, the entry plus one frame
/// (`drop`, `len`) written back at `waddr`.
#[derive(LogicBlock)]
pub struct TeleTable {
    pub clock: Signal<In, Clock>,
    pub raddr: Signal<In, Bits<TELE_BITS>>,
    pub re: Signal<In, Bit>,
    pub upd: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<TELE_BITS>>,
    pub drop: Signal<In, Bit>,
    pub len: Signal<In, Bits<16>>,
    pub cur: Signal<Out, Bits<128>>,
    ram: Ram<128, TELE_BITS>,
    inc_k: Signal<Local, Bits<32>>,
    inc_d: Signal<Local, Bits<32>>,
    inc_b: Signal<Local, Bits<64>>,
    pk: Signal<Local, Bits<32>>,
    by: Signal<Local, Bits<64>>,
    dr: Signal<Local, Bits<32>>,
    nxt: Signal<Local, Bits<128>>,
    c0_64: Constant<Bits<64>>,
    c0_32: Constant<Bits<32>>,
    c1_32: Constant<Bits<32>>,
}

impl Default for TeleTable {
    fn default() -> Self {
        TeleTable {
            clock: Default::default(),
            raddr: Default::default(),
            re: Default::default(),
            upd: Default::default(),
            waddr: Default::default(),
            drop: Default::default(),
            len: Default::default(),
            cur: Default::default(),
            ram: Ram::new_forwarding(RamStyle::Ultra),
            inc_k: Default::default(),
            inc_d: Default::default(),
            inc_b: Default::default(),
            pk: Default::default(),
            by: Default::default(),
            dr: Default::default(),
            nxt: Default::default(),
            c0_64: Constant::new(0u64.into()),
            c0_32: Constant::new(0u64.into()),
            c1_32: Constant::new(1u64.into()),
        }
    }
}

impl Logic for TeleTable {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ram);
        self.ram.raddr.next = self.raddr.val();
        self.ram.re.next = self.re.val();
        self.ram.oce.next = false;
        self.cur.next = self.ram.rdata.val();
        // {pkts, bytes, drops}: a kept frame adds 1 and its length, a dropped one 1 drop
        self.inc_k.next = self.c1_32.val();
        self.inc_d.next = self.c0_32.val();
        self.inc_b.next = bit_cast::<64, 16>(self.len.val());
        if self.drop.val() {
            self.inc_k.next = self.c0_32.val();
            self.inc_d.next = self.c1_32.val();
            self.inc_b.next = self.c0_64.val();
        }
        self.pk.next = self.cur.val().get_bits::<32>(0) + self.inc_k.val();
        self.by.next = self.cur.val().get_bits::<64>(32) + self.inc_b.val();
        self.dr.next = self.cur.val().get_bits::<32>(96) + self.inc_d.val();
        self.nxt.next = bit_cast::<128, 32>(self.pk.val()) | (bit_cast::<128, 64>(self.by.val()) << 32) | (bit_cast::<128, 32>(self.dr.val()) << 96);
        self.ram.waddr.next = self.waddr.val();
        self.ram.wdata.next = self.nxt.val();
        self.ram.we.next = self.upd.val();
    }
}

#[derive(LogicBlock)]
pub struct EmTele {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// One frame's verdict (at most one a cycle, only while `ready`).
    pub ev_valid: Signal<In, Bit>,
    pub ev_vf: Signal<In, Bits<12>>,
    pub ev_vf_ok: Signal<In, Bit>,
    pub ev_ten: Signal<In, Bits<12>>,
    pub ev_ten_ok: Signal<In, Bit>,
    pub ev_len: Signal<In, Bits<16>>,
    pub ev_drop: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub s_rb: Signal<In, EmTblWr>,
    pub s_rb_valid: Signal<In, Bit>,
    pub m_rb: Signal<Out, EmTblWr>,
    pub m_rb_valid: Signal<Out, Bit>,
    vf_t: TeleTable,
    ten_t: TeleTable,
    v1: DFF<Bit>,
    vf1: DFF<Bits<12>>,
    vok1: DFF<Bit>,
    ten1: DFF<Bits<12>>,
    tok1: DFF<Bit>,
    len1: DFF<Bits<16>>,
    drop1: DFF<Bit>,
    rb_pend: DFF<Bit>,
    rb_tab: DFF<Bit>,
    rb_idx: DFF<Bits<12>>,
    rb1: DFF<Bit>,
    q_dest: Signal<Local, Bits<3>>,
    q_tab: Signal<Local, Bits<2>>,
    q_idx: Signal<Local, Bits<16>>,
    c0_96: Constant<Bits<96>>,
    unused: Signal<Local, Bit>,
}

impl Default for EmTele {
    fn default() -> Self {
        EmTele {
            clock: Default::default(),
            reset: Default::default(),
            ev_valid: Default::default(),
            ev_vf: Default::default(),
            ev_vf_ok: Default::default(),
            ev_ten: Default::default(),
            ev_ten_ok: Default::default(),
            ev_len: Default::default(),
            ev_drop: Default::default(),
            ready: Default::default(),
            s_rb: Default::default(),
            s_rb_valid: Default::default(),
            m_rb: Default::default(),
            m_rb_valid: Default::default(),
            vf_t: Default::default(),
            ten_t: Default::default(),
            v1: Default::default(),
            vf1: Default::default(),
            vok1: Default::default(),
            ten1: Default::default(),
            tok1: Default::default(),
            len1: Default::default(),
            drop1: Default::default(),
            rb_pend: Default::default(),
            rb_tab: Default::default(),
            rb_idx: Default::default(),
            rb1: Default::default(),
            q_dest: Default::default(),
            q_tab: Default::default(),
            q_idx: Default::default(),
            c0_96: Constant::new(0u64.into()),
            unused: Default::default(),
        }
    }
}

impl Logic for EmTele {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v1, vf1, vok1, ten1, tok1, len1, drop1, rb_pend, rb_tab, rb_idx, rb1);
        clock!(self, clock, vf_t, ten_t);
        self.ready.next = !self.rb_pend.q.val();
        // stage 0: read both tables at the frame's indices, or at a waiting read-back's
        self.vf_t.raddr.next = self.ev_vf.val();
        self.ten_t.raddr.next = self.ev_ten.val();
        self.vf_t.re.next = self.ev_valid.val();
        self.ten_t.re.next = self.ev_valid.val();
        self.v1.d.next = self.ev_valid.val();
        self.vf1.d.next = self.ev_vf.val();
        self.vok1.d.next = self.ev_vf_ok.val();
        self.ten1.d.next = self.ev_ten.val();
        self.tok1.d.next = self.ev_ten_ok.val();
        self.len1.d.next = self.ev_len.val();
        self.drop1.d.next = self.ev_drop.val();
        self.rb1.d.next = false;
        if self.rb_pend.q.val() {
            self.vf_t.raddr.next = self.rb_idx.q.val();
            self.ten_t.raddr.next = self.rb_idx.q.val();
            self.vf_t.re.next = true;
            self.ten_t.re.next = true;
            self.rb_pend.d.next = false;
            self.rb1.d.next = true;
        }
        self.q_dest.next = self.s_rb.val().dest;
        self.q_tab.next = self.s_rb.val().table;
        self.q_idx.next = self.s_rb.val().index;
        if self.s_rb_valid.val() & self.q_dest.val().get_bit(2) {
            self.rb_pend.d.next = true;
            self.rb_tab.d.next = self.q_tab.val().get_bit(0);
            self.rb_idx.d.next = self.q_idx.val().get_bits::<12>(0);
        }
        // stage 1: each table adds the frame to its entry
        self.vf_t.upd.next = self.v1.q.val() & self.vok1.q.val();
        self.vf_t.waddr.next = self.vf1.q.val();
        self.vf_t.drop.next = self.drop1.q.val();
        self.vf_t.len.next = self.len1.q.val();
        self.ten_t.upd.next = self.v1.q.val() & self.tok1.q.val();
        self.ten_t.waddr.next = self.ten1.q.val();
        self.ten_t.drop.next = self.drop1.q.val();
        self.ten_t.len.next = self.len1.q.val();
        // the read-back's answer
        self.m_rb.next = self.s_rb.val();
        self.m_rb.next.d1 = self.c0_96.val();
        self.m_rb.next.d0 = self.vf_t.cur.val();
        if self.rb_tab.q.val() {
            self.m_rb.next.d0 = self.ten_t.cur.val();
        }
        self.m_rb_valid.next = self.rb1.q.val();
        self.unused.next = self.q_idx.val().get_bits::<4>(12).any() | self.q_tab.val().get_bit(1) | self.q_dest.val().get_bit(0) | self.q_dest.val().get_bit(1);
        if self.reset.val() {
            self.v1.d.next = false;
            self.rb_pend.d.next = false;
            self.rb1.d.next = false;
        }
    }
}

nicgen_hdl::impl_ports!(EmTele, clock = clock, [clock, reset, ev_valid, ev_vf, ev_vf_ok, ev_ten, ev_ten_ok, ev_len, ev_drop, ready,
    s_rb, s_rb_valid, m_rb, m_rb_valid]);
