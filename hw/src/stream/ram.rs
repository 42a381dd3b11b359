//! Simple-dual-port RAM wrappers that infer BRAM, URAM or LUT RAM (`ram_style`), with
//! synchronous read (read-first on a same-address write) and an optional output register.
//! Contents start at zero. There is no asynchronous read path: LUT RAM (only for memories of
//! at most 32 words, [`RamStyle::for_depth`]) reads into the same read register.
//!
//! Read latency: 1 cycle (`raddr`/`re` → `rdata`), or 2 with the output register (`oce`
//! enables the second stage).
//!
//! [`Ram::new_forwarding`] reads write-first instead: a read issued in the cycle its address is
//! written returns the written word (a bypass register beside the RAM, as the RAM's two ports
//! read first). Read-modify-write pipelines that update one entry in back-to-back cycles need
//! it.
use rust_hdl::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RamStyle {
    Block,
    Ultra,
    /// LUT RAM, for shallow memories (at most 32 words, [`RamStyle::for_depth`]), where a block
    /// RAM would hold a few percent of its bits: a 578-bit, 32-deep FIFO is 9 RAMB36 or about 330
    /// LUTs.
    Distributed,
}

impl RamStyle {
    pub fn attr(&self) -> &'static str {
        match self {
            RamStyle::Block => "block",
            RamStyle::Ultra => "ultra",
            RamStyle::Distributed => "distributed",
        }
    }
    /// A per-QP table of `2^a` entries: block RAM up to 1024 QPs, Ultra RAM above (where one
    /// table would take tens of block RAMs).
    pub fn for_qp_table(a: usize) -> Self {
        if a > 10 {
            RamStyle::Ultra
        } else {
            RamStyle::Block
        }
    }
    /// Block RAM, or LUT RAM for memories of at most 32 words (`A` <= 5).
    pub fn for_depth(a: usize) -> Self {
        if a <= 5 {
            RamStyle::Distributed
        } else {
            RamStyle::Block
        }
    }
}

#[derive(LogicBlock)]
pub struct Ram<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub waddr: Signal<In, Bits<A>>,
    pub wdata: Signal<In, Bits<W>>,
    pub we: Signal<In, Bit>,
    pub raddr: Signal<In, Bits<A>>,
    pub re: Signal<In, Bit>,
    pub oce: Signal<In, Bit>,
    pub rdata: Signal<Out, Bits<W>>,
    _style: RamStyle,
    _out_reg: bool,
    _fw: bool,
    _mem: Box<Vec<Bits<W>>>,
    _rd: Bits<W>,
    _out: Bits<W>,
    _fw_v: bool,
    _fw_d: Bits<W>,
}

impl<const W: usize, const A: usize> Ram<W, A> {
    pub fn new(style: RamStyle, out_reg: bool) -> Self {
        Ram {
            clock: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            we: Default::default(),
            raddr: Default::default(),
            re: Default::default(),
            oce: Default::default(),
            rdata: Default::default(),
            _style: style,
            _out_reg: out_reg,
            _fw: false,
            _mem: Box::new(vec![Bits::<W>::default(); 1 << A]),
            _rd: Default::default(),
            _out: Default::default(),
            _fw_v: false,
            _fw_d: Default::default(),
        }
    }
    /// Write-first reads (see the module notes), without the output register.
    pub fn new_forwarding(style: RamStyle) -> Self {
        Ram { _fw: true, ..Self::new(style, false) }
    }
    pub fn latency(&self) -> usize {
        1 + self._out_reg as usize
    }
}

/// The zeroing of a memory (and its registers) at time 0, in simulation only: an FPGA's block and
/// Ultra RAM hold zeros after configuration without an INIT, so synthesis loses nothing, and
/// Yosys (which defines `SYNTHESIS`) no longer unrolls one assignment per word (the 8192-deep
/// replay ring took 214 s of `hierarchy`). `body` loops over the index `var`, declared here.
pub fn zero_init(var: &str, body: &str) -> String {
    format!("`ifndef SYNTHESIS\ninteger {var};\ninitial begin\n{body}end\n`endif\n")
}

impl<const W: usize, const A: usize> Default for Ram<W, A> {
    fn default() -> Self {
        Self::new(RamStyle::Block, false)
    }
}

impl<const W: usize, const A: usize> Logic for Ram<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let old_rd = self._rd;
            if self.re.val() {
                self._rd = self._mem[self.raddr.val().index()];
            }
            if self._out_reg && self.oce.val() {
                self._out = old_rd;
            }
            if self._fw && self.re.val() {
                self._fw_v = self.we.val() && self.waddr.val() == self.raddr.val();
                self._fw_d = self.wdata.val();
            }
            if self.we.val() {
                self._mem[self.waddr.val().index()] = self.wdata.val();
            }
        }
        self.rdata.next = if self._out_reg {
            self._out
        } else if self._fw_v {
            self._fw_d
        } else {
            self._rd
        };
    }
    fn connect(&mut self) {
        self.rdata.connect();
    }
    fn hdl(&self) -> Verilog {
        let wm = W - 1;
        let out = if self._out_reg {
            "always @(posedge clock) begin\n  if (oce) rdata <= rd_q;\nend\n".to_string()
        } else if self._fw {
            format!(
                "// write-first: a read of the address written in the same cycle returns the new word\n\
                 reg fw_v;\nreg [{wm}:0] fw_d;\n\
                 always @(posedge clock) begin\n  if (re) begin\n    fw_v <= we & (waddr == raddr);\n    fw_d <= wdata;\n  end\nend\n\
                 always @(*) rdata = fw_v ? fw_d : rd_q;\nwire unused_oce = oce; // no output register: no enable for it\n"
            )
        } else {
            "always @(*) rdata = rd_q;\nwire unused_oce = oce; // no output register: no enable for it\n".to_string()
        };
        let dm = (1usize << A) - 1;
        Verilog::Custom(format!(
            "(* ram_style = \"{style}\" *) reg [{wm}:0] mem [0:{dm}];\n\
             reg [{wm}:0] rd_q;\n\
             {init}\
             always @(posedge clock) begin\n  if (we) mem[waddr] <= wdata;\n  if (re) rd_q <= mem[raddr];\nend\n{out}",
            style = self._style.attr(),
            init = zero_init("i", &format!(
                "  for (i = 0; i <= {dm}; i = i + 1) mem[i] = {W}'d0;\n  rd_q = {W}'d0;\n{oi}{fi}",
                oi = if self._out_reg { format!("  rdata = {W}'d0;\n") } else { String::new() },
                fi = if self._fw { format!("  fw_v = 1'b0;\n  fw_d = {W}'d0;\n") } else { String::new() }
            )),
        ))
    }
}

/// A 512-deep BRAM of 64-bit words with an output register, and a 4096-deep URAM of 72-bit
/// words: the two shapes the tables use, as testable top levels.
pub type Bram64x512 = Ram<64, 9>;
pub type Uram72x4k = Ram<72, 12>;

nicgen_hdl::impl_ports!(Ram<64, 9>, clock = clock, [clock, waddr, wdata, we, raddr, re, oce, rdata]);
nicgen_hdl::impl_ports!(Ram<72, 12>, clock = clock, [clock, waddr, wdata, we, raddr, re, oce, rdata]);
