//! Clock-domain crossings for the board top levels. Each is a top of its own, so its module
//! names are stable (`cdc_axis_fifo_core`, `cdc_sync_bits_core`) and a constraint file scoped
//! to that module (`constraints/au55c/cdc_*.xdc`, `SCOPED_TO_REF`) constrains every instance.
//!
//! These blocks have two clocks, so they have no rust-hdl model: they are tested on their
//! emitted Verilog under Verilator only, with both clocks driven by the testbench.
use crate::stream::*;
use rust_hdl::prelude::*;

/// FIFO depth in beats (address bits): 128 beats = 8 KiB, more than one 4 KiB-PMTU frame.
pub const CDC_FIFO_ABITS: usize = 7;

/// An asynchronous store-and-forward frame FIFO for 512-bit AXI4-Stream between the MAC clock
/// and the core clock. A frame becomes visible to the read side only when its last beat is
/// written, so the read side never waits inside a frame (the CMAC TX underflows if `tvalid`
/// drops in a frame).
///
/// - `drop_mode` 1 (the MAC RX side, which has no `tready`): `s_axis_tready` is always 1. A
///   frame that does not fit is dropped whole and counted in `drops`.
/// - `drop_mode` 0 (the TX side): the writer waits for room. A frame longer than the FIFO,
///   which could never fit, is dropped whole and counted, so the FIFO cannot wedge.
///
/// Pointers cross as Gray codes through two `ASYNC_REG` flip-flops; `drops` crosses the same
/// way into the read (`clock`) domain. Write side: `s_clock`, `s_reset`. Read side: `clock`,
/// `reset`.
#[derive(LogicBlock, Default)]
pub struct CdcAxisFifo {
    pub s_clock: Signal<In, Clock>,
    pub s_reset: Signal<In, Bit>,
    pub drop_mode: Signal<In, Bit>,
    pub s_axis: Axis512Sink,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub m_axis: Axis512Source,
    /// Frames dropped on the write side, in the read domain.
    pub drops: Signal<Out, Bits<32>>,
}

impl Logic for CdcAxisFifo {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.s_axis.tready.connect();
        self.m_axis.tdata.connect();
        self.m_axis.tkeep.connect();
        self.m_axis.tlast.connect();
        self.m_axis.tuser.connect();
        self.m_axis.tvalid.connect();
        self.drops.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(cdc_fifo_verilog(CDC_FIFO_ABITS))
    }
}

/// Gray-code helper functions `b2g<suffix>` and `g2b<suffix>` of `w` bits for a Custom body.
fn gray_functions(w: usize, suffix: &str) -> String {
    let m = w - 1;
    format!(
        "function [{m}:0] b2g{suffix};\n  input [{m}:0] b;\n  b2g{suffix} = b ^ (b >> 1);\nendfunction\n\
         function [{m}:0] g2b{suffix};\n  input [{m}:0] g;\n  integer k;\n  begin\n    g2b{suffix}[{m}] = g[{m}];\n    for (k = {m} - 1; k >= 0; k = k - 1) g2b{suffix}[k] = g2b{suffix}[k + 1] ^ g[k];\n  end\nendfunction\n"
    )
}

fn cdc_fifo_verilog(a: usize) -> String {
    let w = DATA_W + KEEP_W + 2;
    let depth = 1usize << a;
    let mut v = String::new();
    v += &format!("// {depth}-beat asynchronous frame FIFO; entries {{tuser, tlast, tkeep, tdata}}\n");
    v += &format!("(* ram_style = \"block\" *) reg [{}:0] mem [0:{}];\n", w - 1, depth - 1);
    v += &gray_functions(a + 1, "");
    v += &gray_functions(32, "32");
    // write side
    v += &format!("reg [{a}:0] rp, rp_g;\n");
    v += &format!("reg [{a}:0] wp, wcommit, wcommit_g;\nreg [31:0] drops_s, drops_g;\nreg dropping;\n");
    v += &format!("(* ASYNC_REG = \"TRUE\" *) reg [{a}:0] rp_g_s1, rp_g_s2;\n");
    v += &format!("wire [{a}:0] rp_s = g2b(rp_g_s2);\n");
    v += &format!("wire full = (wp[{a}] != rp_s[{a}]) && (wp[{am}:0] == rp_s[{am}:0]);\n", am = a - 1);
    v += "// the frame being written fills the whole FIFO: it can never be read\n";
    v += "wire wedged = full && (wcommit == rp_s);\n";
    v += "always @(*) s_axis$tready = drop_mode | !full | wedged | dropping;\n";
    v += "wire wr = s_axis$tvalid & s_axis$tready;\n";
    v += "always @(posedge s_clock) begin\n";
    v += "  rp_g_s1 <= rp_g;\n  rp_g_s2 <= rp_g_s1;\n  drops_g <= b2g32(drops_s);\n";
    v += "  if (wr) begin\n";
    v += "    if (dropping) begin\n      if (s_axis$tlast) dropping <= 1'b0;\n    end else if (full) begin\n";
    v += "      wp <= wcommit;\n      drops_s <= drops_s + 32'd1;\n      dropping <= !s_axis$tlast;\n    end else begin\n";
    v += &format!("      mem[wp[{}:0]] <= {{s_axis$tuser, s_axis$tlast, s_axis$tkeep, s_axis$tdata}};\n", a - 1);
    v += &format!("      wp <= wp + {}'d1;\n", a + 1);
    v += &format!("      if (s_axis$tlast) begin\n        wcommit <= wp + {n}'d1;\n        wcommit_g <= b2g(wp + {n}'d1);\n      end\n    end\n  end\n", n = a + 1);
    v += &format!("  if (s_reset) begin\n    wp <= {n}'d0;\n    wcommit <= {n}'d0;\n    wcommit_g <= {n}'d0;\n    drops_s <= 32'd0;\n    dropping <= 1'b0;\n  end\nend\n", n = a + 1);
    // read side
    v += &format!("(* ASYNC_REG = \"TRUE\" *) reg [{a}:0] wc_g1, wc_g2;\n");
    v += "(* ASYNC_REG = \"TRUE\" *) reg [31:0] dr_g1, dr_g2;\n";
    v += &format!("wire [{a}:0] wc_r = g2b(wc_g2);\nreg ov;\nreg [{}:0] od;\n", w - 1);
    v += "wire take = (rp != wc_r) && (!ov || m_axis$tready);\n";
    v += "always @(posedge clock) begin\n  wc_g1 <= wcommit_g;\n  wc_g2 <= wc_g1;\n  dr_g1 <= drops_g;\n  dr_g2 <= dr_g1;\n";
    v += &format!("  if (take) begin\n    od <= mem[rp[{}:0]];\n    rp <= rp + {n}'d1;\n    rp_g <= b2g(rp + {n}'d1);\n    ov <= 1'b1;\n  end else if (m_axis$tready) begin\n    ov <= 1'b0;\n  end\n", a - 1, n = a + 1);
    v += &format!("  if (reset) begin\n    rp <= {n}'d0;\n    rp_g <= {n}'d0;\n    ov <= 1'b0;\n  end\nend\n", n = a + 1);
    v += &format!(
        "always @(*) begin\n  m_axis$tdata = od[{d}:0];\n  m_axis$tkeep = od[{k}:{d1}];\n  m_axis$tlast = od[{l}];\n  m_axis$tuser = od[{u}];\n  m_axis$tvalid = ov;\n  drops = g2b32(dr_g2);\nend\n",
        d = DATA_W - 1,
        d1 = DATA_W,
        k = DATA_W + KEEP_W - 1,
        l = DATA_W + KEEP_W,
        u = DATA_W + KEEP_W + 1
    );
    v
}

/// Width of [`CdcSyncBits`].
pub const CDC_SYNC_BITS: usize = 8;

/// Level synchronizers: each bit of `d` (from any domain, slowly changing status such as link
/// up) goes through two `ASYNC_REG` flip-flops into the `clock` domain. Bits are independent:
/// use a Gray code or a handshake for multi-bit values.
#[derive(LogicBlock, Default)]
pub struct CdcSyncBits {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, Bits<CDC_SYNC_BITS>>,
    pub q: Signal<Out, Bits<CDC_SYNC_BITS>>,
}

impl Logic for CdcSyncBits {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let m = CDC_SYNC_BITS - 1;
        Verilog::Custom(format!(
            "(* ASYNC_REG = \"TRUE\" *) reg [{m}:0] s1;\n(* ASYNC_REG = \"TRUE\" *) reg [{m}:0] s2;\nalways @(posedge clock) begin\n  s1 <= d;\n  s2 <= s1;\nend\nalways @(*) q = s2;\n"
        ))
    }
}
