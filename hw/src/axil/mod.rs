//! AXI4-Lite control: a slave that turns AXI4-Lite transactions into a simple register bus,
//! and a read-only status window of 32-bit counters on that bus.
//!
//! Register bus (one transaction at a time): `wr_en` with `wr_addr`/`wr_data`/`wr_strb` for one
//! cycle, answered the same cycle by `wr_err`; `rd_en` with `rd_addr` for one cycle, answered
//! the next cycle by `rd_data`/`rd_err`. Errors become SLVERR.
use rust_hdl::prelude::*;

pub const AXIL_OKAY: u64 = 0;
pub const AXIL_SLVERR: u64 = 2;

/// The slave side of AXI4-Lite (`s_axil_*`): `AW`-bit byte addresses (16 for a block's register
/// window, 32 for a PCIe BAR window such as XDMA's `m_axil`), 32-bit data.
#[derive(LogicInterface, Default)]
#[join = "AxilMaster"]
pub struct AxilSlave<const AW: usize> {
    pub awaddr: Signal<In, Bits<AW>>,
    pub awvalid: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub wvalid: Signal<In, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub bvalid: Signal<Out, Bit>,
    pub bready: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<AW>>,
    pub arvalid: Signal<In, Bit>,
    pub arready: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    pub rvalid: Signal<Out, Bit>,
    pub rready: Signal<In, Bit>,
}

/// A block's register window (16-bit addresses) and a PCIe BAR window (32-bit). rust-hdl's
/// `#[hdl_gen]` names a bundle's type in its links, so they go by these names there.
pub type AxilSlave16 = AxilSlave<16>;
pub type AxilSlave32 = AxilSlave<32>;
pub type AxilMaster16 = AxilMaster<16>;

/// The master side, for joining a slave inside a design.
#[derive(LogicInterface, Default)]
#[join = "AxilSlave"]
pub struct AxilMaster<const AW: usize> {
    pub awaddr: Signal<Out, Bits<AW>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<32>>,
    pub wstrb: Signal<Out, Bits<4>>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    pub araddr: Signal<Out, Bits<AW>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub rdata: Signal<In, Bits<32>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
}

/// AXI4-Lite slave to register bus. Accepts a write when address and data are both offered,
/// and a read when no read response is pending; responses are held until taken.
#[derive(LogicBlock)]
pub struct AxilBridge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<16>,
    pub wr_en: Signal<Out, Bit>,
    pub wr_addr: Signal<Out, Bits<16>>,
    pub wr_data: Signal<Out, Bits<32>>,
    pub wr_strb: Signal<Out, Bits<4>>,
    pub wr_err: Signal<In, Bit>,
    pub rd_en: Signal<Out, Bit>,
    pub rd_addr: Signal<Out, Bits<16>>,
    pub rd_data: Signal<In, Bits<32>>,
    pub rd_err: Signal<In, Bit>,
    bvalid: DFF<Bit>,
    bresp: DFF<Bits<2>>,
    rpend: DFF<Bit>,
    rvalid: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    rresp: DFF<Bits<2>>,
    okay: Constant<Bits<2>>,
    slverr: Constant<Bits<2>>,
    wtake: Signal<Local, Bit>,
    rtake: Signal<Local, Bit>,
}

impl Default for AxilBridge {
    fn default() -> Self {
        AxilBridge {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_strb: Default::default(),
            wr_err: Default::default(),
            rd_en: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            rd_err: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            rpend: Default::default(),
            rvalid: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            okay: Constant::new(AXIL_OKAY.into()),
            slverr: Constant::new(AXIL_SLVERR.into()),
            wtake: Default::default(),
            rtake: Default::default(),
        }
    }
}

impl Logic for AxilBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bvalid, bresp, rpend, rvalid, rdata, rresp);
        // write: address and data together, one response outstanding at most
        self.wtake.next = self.s_axil.awvalid.val() & self.s_axil.wvalid.val() & !self.bvalid.q.val();
        self.s_axil.awready.next = self.wtake.val();
        self.s_axil.wready.next = self.wtake.val();
        self.wr_en.next = self.wtake.val();
        self.wr_addr.next = self.s_axil.awaddr.val();
        self.wr_data.next = self.s_axil.wdata.val();
        self.wr_strb.next = self.s_axil.wstrb.val();
        if self.wtake.val() {
            self.bvalid.d.next = true;
            self.bresp.d.next = self.okay.val();
            if self.wr_err.val() {
                self.bresp.d.next = self.slverr.val();
            }
        } else if self.s_axil.bready.val() {
            self.bvalid.d.next = false;
        }
        self.s_axil.bvalid.next = self.bvalid.q.val();
        self.s_axil.bresp.next = self.bresp.q.val();
        // read: the register answers one cycle after rd_en
        self.rtake.next = self.s_axil.arvalid.val() & !self.rpend.q.val() & !self.rvalid.q.val();
        self.s_axil.arready.next = self.rtake.val();
        self.rd_en.next = self.rtake.val();
        self.rd_addr.next = self.s_axil.araddr.val();
        self.rpend.d.next = self.rtake.val();
        if self.rpend.q.val() {
            self.rvalid.d.next = true;
            self.rdata.d.next = self.rd_data.val();
            self.rresp.d.next = self.okay.val();
            if self.rd_err.val() {
                self.rresp.d.next = self.slverr.val();
            }
        } else if self.s_axil.rready.val() {
            self.rvalid.d.next = false;
        }
        self.s_axil.rvalid.next = self.rvalid.q.val();
        self.s_axil.rdata.next = self.rdata.q.val();
        self.s_axil.rresp.next = self.rresp.q.val();
        if self.reset.val() {
            self.bvalid.d.next = false;
            self.rpend.d.next = false;
            self.rvalid.d.next = false;
        }
    }
}

/// A read-only window of `N` 32-bit status words at byte offsets 0, 4, … 4(N-1) of the register
/// bus. A read outside the window, or any write, is an error (SLVERR). Unused inputs read 0.
#[derive(LogicBlock)]
pub struct StatusWindow<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub status: [Signal<In, Bits<32>>; N],
    pub rd_en: Signal<In, Bit>,
    pub rd_addr: Signal<In, Bits<16>>,
    pub rd_data: Signal<Out, Bits<32>>,
    pub rd_err: Signal<Out, Bit>,
    /// Always high: every write is refused (a constant, so no loop through the bridge).
    pub wr_err: Signal<Out, Bit>,
    sel: WordSel<N>,
    data: DFF<Bits<32>>,
    err: DFF<Bit>,
    /// 4·N: the first byte offset past the window.
    past: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    ok: Signal<Local, Bit>,
}

pub type StatusWindow8 = StatusWindow<8>;

impl<const N: usize> Default for StatusWindow<N> {
    fn default() -> Self {
        StatusWindow {
            clock: Default::default(),
            status: std::array::from_fn(|_| Default::default()),
            rd_en: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            rd_err: Default::default(),
            wr_err: Default::default(),
            sel: Default::default(),
            data: Default::default(),
            err: Default::default(),
            past: Constant::new((4 * N as u64).into()),
            zero32: Constant::new(0u64.into()),
            ok: Default::default(),
        }
    }
}

impl<const N: usize> Logic for StatusWindow<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, data, err);
        for i in 0..N {
            self.sel.words[i].next = self.status[i].val();
        }
        self.sel.idx.next = self.rd_addr.val().get_bits::<6>(2);
        self.ok.next = !self.rd_addr.val().get_bits::<2>(0).any() & (self.rd_addr.val() < self.past.val());
        if self.rd_en.val() {
            self.data.d.next = self.zero32.val();
            self.err.d.next = true;
            if self.ok.val() {
                self.data.d.next = self.sel.y.val();
                self.err.d.next = false;
            }
        }
        self.rd_data.next = self.data.q.val();
        self.rd_err.next = self.err.q.val();
        self.wr_err.next = true;
    }
}

/// `y = words[idx]` (0 for `idx >= N`), as one Verilog `case` (`Verilog::Custom`): Yosys maps
/// it to LUT6 4:1 selects and MUXF7/F8, about half the LUTs of a chain of compare-and-selects
/// (1,432 → 781 for the engine's 53 words, measured alone).
#[derive(LogicBlock)]
pub struct WordSel<const N: usize> {
    pub words: [Signal<In, Bits<32>>; N],
    pub idx: Signal<In, Bits<6>>,
    pub y: Signal<Out, Bits<32>>,
}

impl<const N: usize> Default for WordSel<N> {
    fn default() -> Self {
        assert!(N <= 64);
        WordSel { words: std::array::from_fn(|_| Default::default()), idx: Default::default(), y: Default::default() }
    }
}

impl<const N: usize> Logic for WordSel<N> {
    fn update(&mut self) {
        let i = self.idx.val().index();
        self.y.next = if i < N { self.words[i].val() } else { 0.into() };
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n  case (idx)\n");
        for i in 0..N {
            v += &format!("    6'd{i}: y = words${i};\n");
        }
        v += "    default: y = 32'h0;\n  endcase\nend\n";
        Verilog::Custom(v)
    }
}

/// The master side of an AXI4 memory port with 512-bit data (`m_axi_*`, e.g. an HBM
/// pseudo-channel): 64-bit byte addresses, INCR bursts of up to 64 beats that never cross 4 KiB,
/// one ID (transactions complete in order). `*size`/`*burst` are driven as 64 B and INCR.
#[derive(LogicInterface, Default)]
pub struct Axi4Master512 {
    pub awaddr: Signal<Out, Bits<64>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awsize: Signal<Out, Bits<3>>,
    pub awburst: Signal<Out, Bits<2>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<512>>,
    pub wstrb: Signal<Out, Bits<64>>,
    pub wlast: Signal<Out, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    pub araddr: Signal<Out, Bits<64>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arsize: Signal<Out, Bits<3>>,
    pub arburst: Signal<Out, Bits<2>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub rdata: Signal<In, Bits<512>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
}
