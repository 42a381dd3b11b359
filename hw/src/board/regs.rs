//! The board's host register window (`board_regs`): the AXI4-Lite master of the PCIe DMA IP
//! (XDMA `m_axil`, BAR0) comes in here. The lower 64 KiB go on to the engine's `s_axil_ctrl`;
//! the upper 64 KiB are the board's own registers: identity, build stamp, link status, MAC-side
//! drop counters, and the host's send and completion queues (a staging window and a doorbell).
//!
//! | offset (bit 16 set) | register | access |
//! |---|---|---|
//! | 0x00 | `ID`, 0x4E494347 ("NICG") | ro |
//! | 0x04 + 4i, i < 8 | `status[i]` (board inputs: build date, git hash, link, counters) | ro |
//! | 0x24 | `SCRATCH` | rw |
//! | 0x40 + 4i, i < 8 | `SQ[i]`: the staged work request (`SqWr`, packed from bit 0) | rw |
//! | 0x60 | `SQ_DOORBELL`: write posts the staged request; read bit 0: still posting | rw |
//! | 0x80 + 4i, i < 3 | `CQ[i]`: the oldest completion (`CqEntry`, packed from bit 0) | ro |
//! | 0x8C | `CQ_STATUS`: bit 0, a completion waits in `CQ` | ro |
//! | 0x90 | `CQ_POP`: write drops the completion in `CQ` and loads the next | wo |
//!
//! A write to a read-only register, a read of `CQ_POP`, an unknown offset, and a doorbell rung
//! while the previous request is still posting answer SLVERR and change nothing.
use crate::axil::{AxilMaster, AxilSlave};
use rust_hdl::prelude::*;

pub const BOARD_ID: u64 = 0x4E49_4347;
pub const REG_STATUS: u64 = 0x04;
pub const REG_SCRATCH: u64 = 0x24;
pub const REG_SQ: u64 = 0x40;
pub const REG_SQ_DOORBELL: u64 = 0x60;
pub const REG_CQ: u64 = 0x80;
pub const REG_CQ_STATUS: u64 = 0x8C;
pub const REG_CQ_POP: u64 = 0x90;
/// Bit of the BAR offset that selects the board window (below it: the engine).
pub const BOARD_WINDOW: u64 = 1 << 16;
pub const SQ_WORDS: usize = 8;
pub const CQ_WORDS: usize = 3;
pub const STATUS_WORDS: usize = 8;

/// The register window and the AXI4-Lite router. One write and one read may be in flight at a
/// time each; a transaction for the engine is handed on unchanged (address bits 15:0) and its
/// response returned.
#[derive(LogicBlock)]
pub struct BoardRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// From the PCIe DMA IP's AXI4-Lite master (BAR0).
    pub s_axil: AxilSlave<32>,
    /// To the engine's `s_axil_ctrl`.
    pub m_axil: AxilMaster<16>,
    pub status: [Signal<In, Bits<32>>; STATUS_WORDS],
    pub sq: [Signal<Out, Bits<32>>; SQ_WORDS],
    pub sq_valid: Signal<Out, Bit>,
    pub sq_ready: Signal<In, Bit>,
    pub cq: [Signal<In, Bits<32>>; CQ_WORDS],
    pub cq_valid: Signal<In, Bit>,
    pub cq_ready: Signal<Out, Bit>,
    // write path
    fw: DFF<Bit>,
    aw_pend: DFF<Bit>,
    w_pend: DFF<Bit>,
    fw_addr: DFF<Bits<16>>,
    fw_data: DFF<Bits<32>>,
    fw_strb: DFF<Bits<4>>,
    bvalid: DFF<Bit>,
    bresp: DFF<Bits<2>>,
    // read path
    fr: DFF<Bit>,
    ar_pend: DFF<Bit>,
    fr_addr: DFF<Bits<16>>,
    rvalid: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    rresp: DFF<Bits<2>>,
    // registers
    scratch: DFF<Bits<32>>,
    sqw: [DFF<Bits<32>>; SQ_WORDS],
    sqv: DFF<Bit>,
    cqw: [DFF<Bits<32>>; CQ_WORDS],
    cqv: DFF<Bit>,
    // decode
    wtake: Signal<Local, Bit>,
    rtake: Signal<Local, Bit>,
    wlocal: Signal<Local, Bits<16>>,
    rlocal: Signal<Local, Bits<16>>,
    werr: Signal<Local, Bit>,
    rerr: Signal<Local, Bit>,
    rval: Signal<Local, Bits<32>>,
    unused: Signal<Local, Bit>,
    c_id: Constant<Bits<32>>,
    c_status: [Constant<Bits<16>>; STATUS_WORDS],
    c_scratch: Constant<Bits<16>>,
    c_sq: [Constant<Bits<16>>; SQ_WORDS],
    c_doorbell: Constant<Bits<16>>,
    c_cq: [Constant<Bits<16>>; CQ_WORDS],
    c_cq_status: Constant<Bits<16>>,
    c_cq_pop: Constant<Bits<16>>,
    c_zero16: Constant<Bits<16>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_okay: Constant<Bits<2>>,
    c_slverr: Constant<Bits<2>>,
}

impl Default for BoardRegs {
    fn default() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        BoardRegs {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            m_axil: Default::default(),
            status: std::array::from_fn(|_| Default::default()),
            sq: std::array::from_fn(|_| Default::default()),
            sq_valid: Default::default(),
            sq_ready: Default::default(),
            cq: std::array::from_fn(|_| Default::default()),
            cq_valid: Default::default(),
            cq_ready: Default::default(),
            fw: Default::default(),
            aw_pend: Default::default(),
            w_pend: Default::default(),
            fw_addr: Default::default(),
            fw_data: Default::default(),
            fw_strb: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            fr: Default::default(),
            ar_pend: Default::default(),
            fr_addr: Default::default(),
            rvalid: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            scratch: Default::default(),
            sqw: std::array::from_fn(|_| Default::default()),
            sqv: Default::default(),
            cqw: std::array::from_fn(|_| Default::default()),
            cqv: Default::default(),
            wtake: Default::default(),
            rtake: Default::default(),
            wlocal: Default::default(),
            rlocal: Default::default(),
            werr: Default::default(),
            rerr: Default::default(),
            rval: Default::default(),
            unused: Default::default(),
            c_id: Constant::new(BOARD_ID.into()),
            c_status: std::array::from_fn(|i| c16(REG_STATUS + 4 * i as u64)),
            c_scratch: c16(REG_SCRATCH),
            c_sq: std::array::from_fn(|i| c16(REG_SQ + 4 * i as u64)),
            c_doorbell: c16(REG_SQ_DOORBELL),
            c_cq: std::array::from_fn(|i| c16(REG_CQ + 4 * i as u64)),
            c_cq_status: c16(REG_CQ_STATUS),
            c_cq_pop: c16(REG_CQ_POP),
            c_zero16: c16(0),
            c_zero32: Constant::new(0u64.into()),
            c_one32: Constant::new(1u64.into()),
            c_okay: Constant::new(0u64.into()),
            c_slverr: Constant::new(2u64.into()),
        }
    }
}

impl Logic for BoardRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fw, aw_pend, w_pend, fw_addr, fw_data, fw_strb, bvalid, bresp, fr, ar_pend, fr_addr, rvalid, rdata, rresp, scratch, sqv, cqv);
        for i in 0..SQ_WORDS {
            self.sqw[i].clock.next = self.clock.val();
            self.sqw[i].d.next = self.sqw[i].q.val();
            self.sq[i].next = self.sqw[i].q.val();
        }
        for i in 0..CQ_WORDS {
            self.cqw[i].clock.next = self.clock.val();
            self.cqw[i].d.next = self.cqw[i].q.val();
        }
        // ---- writes: address and data together; one write in flight
        self.wtake.next = self.s_axil.awvalid.val() & self.s_axil.wvalid.val() & !self.bvalid.q.val() & !self.fw.q.val();
        self.s_axil.awready.next = self.wtake.val();
        self.s_axil.wready.next = self.wtake.val();
        self.wlocal.next = self.s_axil.awaddr.val().get_bits::<16>(0);
        self.werr.next = true;
        if self.wlocal.val() == self.c_scratch.val() {
            self.werr.next = false;
        }
        for i in 0..SQ_WORDS {
            if self.wlocal.val() == self.c_sq[i].val() {
                self.werr.next = false;
            }
        }
        if (self.wlocal.val() == self.c_doorbell.val()) & !self.sqv.q.val() {
            self.werr.next = false;
        }
        if self.wlocal.val() == self.c_cq_pop.val() {
            self.werr.next = false;
        }
        if self.wtake.val() {
            if self.s_axil.awaddr.val().get_bit(16) {
                self.bvalid.d.next = true;
                self.bresp.d.next = self.c_okay.val();
                if self.werr.val() {
                    self.bresp.d.next = self.c_slverr.val();
                } else {
                    if self.wlocal.val() == self.c_scratch.val() {
                        self.scratch.d.next = self.s_axil.wdata.val();
                    }
                    for i in 0..SQ_WORDS {
                        if self.wlocal.val() == self.c_sq[i].val() {
                            self.sqw[i].d.next = self.s_axil.wdata.val();
                        }
                    }
                    if self.wlocal.val() == self.c_doorbell.val() {
                        self.sqv.d.next = true;
                    }
                    if self.wlocal.val() == self.c_cq_pop.val() {
                        self.cqv.d.next = false;
                    }
                }
            } else {
                self.fw.d.next = true;
                self.aw_pend.d.next = true;
                self.w_pend.d.next = true;
                self.fw_addr.d.next = self.wlocal.val();
                self.fw_data.d.next = self.s_axil.wdata.val();
                self.fw_strb.d.next = self.s_axil.wstrb.val();
            }
        }
        self.m_axil.awaddr.next = self.fw_addr.q.val();
        self.m_axil.awvalid.next = self.aw_pend.q.val();
        self.m_axil.wdata.next = self.fw_data.q.val();
        self.m_axil.wstrb.next = self.fw_strb.q.val();
        self.m_axil.wvalid.next = self.w_pend.q.val();
        self.m_axil.bready.next = self.fw.q.val() & !self.aw_pend.q.val() & !self.w_pend.q.val();
        if self.aw_pend.q.val() & self.m_axil.awready.val() {
            self.aw_pend.d.next = false;
        }
        if self.w_pend.q.val() & self.m_axil.wready.val() {
            self.w_pend.d.next = false;
        }
        if self.fw.q.val() & !self.aw_pend.q.val() & !self.w_pend.q.val() & self.m_axil.bvalid.val() {
            self.fw.d.next = false;
            self.bvalid.d.next = true;
            self.bresp.d.next = self.m_axil.bresp.val();
        }
        if self.bvalid.q.val() & self.s_axil.bready.val() {
            self.bvalid.d.next = false;
        }
        self.s_axil.bvalid.next = self.bvalid.q.val();
        self.s_axil.bresp.next = self.bresp.q.val();
        // ---- reads: one in flight
        self.rtake.next = self.s_axil.arvalid.val() & !self.rvalid.q.val() & !self.fr.q.val();
        self.s_axil.arready.next = self.rtake.val();
        self.rlocal.next = self.s_axil.araddr.val().get_bits::<16>(0);
        self.rerr.next = true;
        self.rval.next = self.c_zero32.val();
        if self.rlocal.val() == self.c_zero16.val() {
            self.rerr.next = false;
            self.rval.next = self.c_id.val();
        }
        for i in 0..STATUS_WORDS {
            if self.rlocal.val() == self.c_status[i].val() {
                self.rerr.next = false;
                self.rval.next = self.status[i].val();
            }
        }
        if self.rlocal.val() == self.c_scratch.val() {
            self.rerr.next = false;
            self.rval.next = self.scratch.q.val();
        }
        for i in 0..SQ_WORDS {
            if self.rlocal.val() == self.c_sq[i].val() {
                self.rerr.next = false;
                self.rval.next = self.sqw[i].q.val();
            }
        }
        if self.rlocal.val() == self.c_doorbell.val() {
            self.rerr.next = false;
            if self.sqv.q.val() {
                self.rval.next = self.c_one32.val();
            }
        }
        for i in 0..CQ_WORDS {
            if self.rlocal.val() == self.c_cq[i].val() {
                self.rerr.next = false;
                self.rval.next = self.cqw[i].q.val();
            }
        }
        if self.rlocal.val() == self.c_cq_status.val() {
            self.rerr.next = false;
            if self.cqv.q.val() {
                self.rval.next = self.c_one32.val();
            }
        }
        if self.rtake.val() {
            if self.s_axil.araddr.val().get_bit(16) {
                self.rvalid.d.next = true;
                self.rdata.d.next = self.rval.val();
                self.rresp.d.next = self.c_okay.val();
                if self.rerr.val() {
                    self.rresp.d.next = self.c_slverr.val();
                }
            } else {
                self.fr.d.next = true;
                self.ar_pend.d.next = true;
                self.fr_addr.d.next = self.rlocal.val();
            }
        }
        self.m_axil.araddr.next = self.fr_addr.q.val();
        self.m_axil.arvalid.next = self.ar_pend.q.val();
        self.m_axil.rready.next = self.fr.q.val() & !self.ar_pend.q.val();
        if self.ar_pend.q.val() & self.m_axil.arready.val() {
            self.ar_pend.d.next = false;
        }
        if self.fr.q.val() & !self.ar_pend.q.val() & self.m_axil.rvalid.val() {
            self.fr.d.next = false;
            self.rvalid.d.next = true;
            self.rdata.d.next = self.m_axil.rdata.val();
            self.rresp.d.next = self.m_axil.rresp.val();
        }
        if self.rvalid.q.val() & self.s_axil.rready.val() {
            self.rvalid.d.next = false;
        }
        self.s_axil.rvalid.next = self.rvalid.q.val();
        self.s_axil.rdata.next = self.rdata.q.val();
        self.s_axil.rresp.next = self.rresp.q.val();
        // ---- queues
        self.sq_valid.next = self.sqv.q.val();
        if self.sqv.q.val() & self.sq_ready.val() {
            self.sqv.d.next = false;
        }
        self.cq_ready.next = !self.cqv.q.val();
        if !self.cqv.q.val() & self.cq_valid.val() {
            self.cqv.d.next = true;
            for i in 0..CQ_WORDS {
                self.cqw[i].d.next = self.cq[i].val();
            }
        }
        // bits 31:17 of the BAR offset are not decoded (the BAR is 128 KiB)
        self.unused.next = self.s_axil.awaddr.val().get_bits::<15>(17).any() | self.s_axil.araddr.val().get_bits::<15>(17).any();
        if self.reset.val() {
            self.fw.d.next = false;
            self.aw_pend.d.next = false;
            self.w_pend.d.next = false;
            self.bvalid.d.next = false;
            self.fr.d.next = false;
            self.ar_pend.d.next = false;
            self.rvalid.d.next = false;
            self.sqv.d.next = false;
            self.cqv.d.next = false;
        }
    }
}
