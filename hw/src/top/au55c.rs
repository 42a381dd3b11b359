//! Alveo U55C board top levels (part `xcu55c-fsvh2892-2L-e`), emitted as Verilog text around
//! the generated cores:
//!
//! - `au55c100g` (configuration `Au55c100g`): the RoCE engine on QSFP28 port 0 through the
//!   100G MAC (`cmac_usplus_0`), XDMA (PCIe Gen3 x16) for the host, HBM for the retransmission
//!   buffer.
//! - `au55c_em` (configuration `Au55cEm`): the DistDPU execution module on both QSFP28 ports,
//!   its M2M endpoint reached in Ethernet frames on port 0.
//!
//! Vendor IP (CMAC, XDMA, HBM, clocking wizard, AXI converters) is a black box here, created
//! in Vivado from `scripts/vivado/ip/*.tcl`. Each instance is described once ([`Inst`]): the
//! instance text and the black-box stub used for linting come from the same description.
//! Clock-domain crossings use `cdc_axis_fifo` and `cdc_sync_bits`, whose scoped constraint
//! files are `constraints/au55c/cdc_*.xdc`.
use super::Top;
use nicgen_hdl::Dir;

/// What sort of package pin a top-level port is, for the constraint check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinKind {
    /// A general-purpose I/O: needs a LOC and an IOSTANDARD.
    Io,
    /// A differential clock input pair on general I/O (LOC and IOSTANDARD on the `_p` pin).
    DiffClock,
    /// A transceiver data pin: placed by the IP (its LOC is given too, for the check).
    Gt,
    /// A transceiver reference clock: LOC only.
    GtRefclk,
}

#[derive(Clone, Debug)]
pub struct BoardPort {
    pub name: String,
    pub dir: Dir,
    pub width: usize,
    pub kind: PinKind,
}

/// A board top level.
pub struct BoardTop {
    pub name: &'static str,
    /// The configuration's name in the generator (`Au55c100g`).
    pub config: &'static str,
    pub about: &'static str,
    pub ports: Vec<BoardPort>,
    pub verilog: String,
    /// Black-box modules of the vendor IP and primitives, for linting only (Vivado has the real
    /// ones).
    pub stubs: String,
    /// Generated tops it instantiates (their `.f` lists are read before it).
    pub uses: Vec<&'static str>,
    /// Vendor IP it instantiates (module names = `scripts/vivado/ip/<name>.tcl`).
    pub ips: Vec<&'static str>,
    /// Constraint files (`constraints/au55c/`) for this top.
    pub xdc: Vec<&'static str>,
}

pub const PART: &str = "xcu55c-fsvh2892-2L-e";

/// One instance: module, name, parameters and pins (pin, direction seen from the instance,
/// width, connected expression).
struct Inst {
    module: String,
    name: String,
    params: String,
    pins: Vec<(String, Dir, usize, String)>,
    /// Vendor IP or a primitive (gets a stub), or one of our generated modules (does not).
    vendor: bool,
}

impl Inst {
    fn new(module: &str, name: &str, vendor: bool) -> Self {
        Inst { module: module.into(), name: name.into(), params: String::new(), pins: vec![], vendor }
    }
    fn pin(mut self, pin: &str, dir: Dir, width: usize, expr: &str) -> Self {
        self.pins.push((pin.into(), dir, width, expr.into()));
        self
    }
    fn i(self, pin: &str, width: usize, expr: &str) -> Self {
        self.pin(pin, Dir::In, width, expr)
    }
    fn o(self, pin: &str, width: usize, expr: &str) -> Self {
        self.pin(pin, Dir::Out, width, expr)
    }
    fn params(mut self, p: &str) -> Self {
        self.params = p.into();
        self
    }
    fn verilog(&self) -> String {
        let p = if self.params.is_empty() { String::new() } else { format!(" #({})", self.params) };
        let pins: Vec<String> = self.pins.iter().map(|(n, _, _, e)| format!("    .{n}({e})")).collect();
        format!("  {}{p} {} (\n{}\n  );\n", self.module, self.name, pins.join(",\n"))
    }
    fn stub(&self) -> String {
        let decl: Vec<String> = self
            .pins
            .iter()
            .map(|(n, d, w, _)| {
                let dir = if *d == Dir::In { "input " } else { "output" };
                let r = if *w > 1 { format!("[{}:0] ", w - 1) } else { String::new() };
                format!("  {dir} wire {r}{n}")
            })
            .collect();
        let params = if self.params.is_empty() {
            String::new()
        } else {
            // parameters named in the instance, declared with a default
            let names: Vec<String> = self.params.split(',').filter_map(|p| p.trim().strip_prefix('.').map(|p| p.split('(').next().unwrap().to_string())).collect();
            format!(" #({})", names.iter().map(|n| format!("parameter {n} = 0")).collect::<Vec<_>>().join(", "))
        };
        format!("(* blackbox *)\nmodule {}{params} (\n{}\n);\nendmodule\n", self.module, decl.join(",\n"))
    }
}

/// The body being built: wire declarations, instances and glue lines.
#[derive(Default)]
struct Body {
    wires: Vec<(String, usize)>,
    insts: Vec<Inst>,
    glue: Vec<String>,
    unused: Vec<String>,
    /// Module parameters beyond the build stamp (`parameter [..] NAME = default`).
    params: Vec<String>,
}

impl Body {
    fn wire(&mut self, name: &str, width: usize) -> String {
        if !self.wires.iter().any(|(n, _)| n == name) {
            self.wires.push((name.into(), width));
        }
        name.into()
    }
    /// Instantiate a generated top: every port gets a wire `<inst>_<port>`.
    fn core(&mut self, top: &Top, inst: &str) {
        let mut i = Inst::new(top.name, inst, false);
        for p in &top.ports {
            let n = p.clean_name();
            let w = self.wire(&format!("{inst}_{n}"), p.width);
            i = i.pin(&n, p.dir, p.width, &w);
        }
        self.insts.push(i);
    }
    fn unused(&mut self, exprs: &[&str]) {
        self.unused.extend(exprs.iter().map(|e| e.to_string()));
    }
    fn glue(&mut self, line: impl Into<String>) {
        self.glue.push(line.into());
    }
}

/// AXI4 (or AXI3 with `len` = 4) master-side signals: (name, master drives it, width).
fn axi_sigs(data: usize, addr: usize, len: usize) -> Vec<(&'static str, bool, usize)> {
    vec![
        ("awaddr", true, addr), ("awlen", true, len), ("awsize", true, 3), ("awburst", true, 2), ("awvalid", true, 1), ("awready", false, 1),
        ("wdata", true, data), ("wstrb", true, data / 8), ("wlast", true, 1), ("wvalid", true, 1), ("wready", false, 1),
        ("bresp", false, 2), ("bvalid", false, 1), ("bready", true, 1),
        ("araddr", true, addr), ("arlen", true, len), ("arsize", true, 3), ("arburst", true, 2), ("arvalid", true, 1), ("arready", false, 1),
        ("rdata", false, data), ("rresp", false, 2), ("rlast", false, 1), ("rvalid", false, 1), ("rready", true, 1),
    ]
}

/// AXI4-Lite master-side signals with `addr`-bit addresses.
fn axil_sigs(addr: usize) -> Vec<(&'static str, bool, usize)> {
    vec![
        ("awaddr", true, addr), ("awvalid", true, 1), ("awready", false, 1), ("wdata", true, 32), ("wstrb", true, 4), ("wvalid", true, 1), ("wready", false, 1),
        ("bresp", false, 2), ("bvalid", false, 1), ("bready", true, 1), ("araddr", true, addr), ("arvalid", true, 1), ("arready", false, 1),
        ("rdata", false, 32), ("rresp", false, 2), ("rvalid", false, 1), ("rready", true, 1),
    ]
}

/// Glue: stream wires `src_*` drive `dst_*` (and `dst_tready` drives `src_tready`).
fn stream_assign(b: &mut Body, dst: &str, src: &str) {
    for sig in ["tdata", "tkeep", "tlast", "tuser", "tvalid"] {
        b.glue(format!("  assign {dst}_{sig} = {src}_{sig};"));
    }
    b.glue(format!("  assign {src}_tready = {dst}_tready;"));
}

/// Pins of an AXI port on `inst` (`prefix` + signal; `upper`: HBM's upper-case names), on the
/// master side (`master`) or the slave side, each joined to net `<net>_<signal>`.
fn axi_pins(mut inst: Inst, b: &mut Body, prefix: &str, upper: bool, master: bool, net: &str, sigs: &[(&'static str, bool, usize)]) -> Inst {
    for &(s, m_drives, w) in sigs {
        let pin = if upper { format!("{prefix}{}", s.to_uppercase()) } else { format!("{prefix}{s}") };
        let wire = b.wire(&format!("{net}_{s}"), w);
        let dir = if m_drives == master { Dir::Out } else { Dir::In };
        inst = inst.pin(&pin, dir, w, &wire);
    }
    inst
}

/// AXI4-Stream pins of `inst` named `<prefix>t<sig><suffix>` joined to the wires of a
/// generated core's stream `<core>_<stream>_t<sig>`. `out`: the instance drives data.
fn axis_pins(mut inst: Inst, prefix: &str, suffix: &str, out: bool, stream: &str, user: bool) -> Inst {
    let (d, r) = if out { (Dir::Out, Dir::In) } else { (Dir::In, Dir::Out) };
    inst = inst.pin(&format!("{prefix}tdata{suffix}"), d, 512, &format!("{stream}_tdata"));
    inst = inst.pin(&format!("{prefix}tkeep{suffix}"), d, 64, &format!("{stream}_tkeep"));
    inst = inst.pin(&format!("{prefix}tlast{suffix}"), d, 1, &format!("{stream}_tlast"));
    if user {
        inst = inst.pin(&format!("{prefix}tuser{suffix}"), d, 1, &format!("{stream}_tuser"));
    }
    inst = inst.pin(&format!("{prefix}tvalid{suffix}"), d, 1, &format!("{stream}_tvalid"));
    inst.pin(&format!("{prefix}tready{suffix}"), r, 1, &format!("{stream}_tready"))
}

fn stream_wires(b: &mut Body, s: &str) {
    b.wire(&format!("{s}_tdata"), 512);
    b.wire(&format!("{s}_tkeep"), 64);
    for n in ["tlast", "tuser", "tvalid", "tready"] {
        b.wire(&format!("{s}_{n}"), 1);
    }
}

/// A CDC FIFO instance between two streams (wire prefixes).
fn cdc_fifo(name: &str, s_clk: &str, s_rst: &str, drop: bool, s: &str, clk: &str, rst: &str, m: &str, drops: &str) -> Inst {
    let i = Inst::new("cdc_axis_fifo", name, false).i("s_clock", 1, s_clk).i("s_reset", 1, s_rst).i("drop_mode", 1, if drop { "1'b1" } else { "1'b0" });
    let i = axis_pins(i, "s_axis_", "", false, s, true);
    let i = i.i("clock", 1, clk).i("reset", 1, rst);
    let i = axis_pins(i, "m_axis_", "", true, m, true);
    i.o("drops", 32, drops)
}

fn port(name: &str, dir: Dir, width: usize, kind: PinKind) -> BoardPort {
    BoardPort { name: name.into(), dir, width, kind }
}

/// Pins common to both boards: PCIe, the 100 MHz system clock, HBM CATTRIP, QSFP LEDs.
fn common_ports(qsfps: usize) -> Vec<BoardPort> {
    let mut v = vec![
        port("pcie_refclk_p", Dir::In, 1, PinKind::GtRefclk),
        port("pcie_refclk_n", Dir::In, 1, PinKind::GtRefclk),
        port("pcie_perst_n", Dir::In, 1, PinKind::Io),
        port("pcie_rx_p", Dir::In, 16, PinKind::Gt),
        port("pcie_rx_n", Dir::In, 16, PinKind::Gt),
        port("pcie_tx_p", Dir::Out, 16, PinKind::Gt),
        port("pcie_tx_n", Dir::Out, 16, PinKind::Gt),
        port("clk100_p", Dir::In, 1, PinKind::DiffClock),
        port("clk100_n", Dir::In, 1, PinKind::DiffClock),
        port("hbm_cattrip", Dir::Out, 1, PinKind::Io),
        port("qsfp_led_act", Dir::Out, 2, PinKind::Io),
        port("qsfp_led_stat_g", Dir::Out, 2, PinKind::Io),
        port("qsfp_led_stat_y", Dir::Out, 2, PinKind::Io),
    ];
    for q in 0..qsfps {
        v.push(port(&format!("qsfp{q}_refclk_p"), Dir::In, 1, PinKind::GtRefclk));
        v.push(port(&format!("qsfp{q}_refclk_n"), Dir::In, 1, PinKind::GtRefclk));
        v.push(port(&format!("qsfp{q}_rx_p"), Dir::In, 4, PinKind::Gt));
        v.push(port(&format!("qsfp{q}_rx_n"), Dir::In, 4, PinKind::Gt));
        v.push(port(&format!("qsfp{q}_tx_p"), Dir::Out, 4, PinKind::Gt));
        v.push(port(&format!("qsfp{q}_tx_n"), Dir::Out, 4, PinKind::Gt));
    }
    v
}

/// Clocks, resets and PCIe: the reference clock buffers, a power-on reset in the 100 MHz
/// domain, and XDMA with its AXI4-Lite master on `board_regs` and channel 0 of H2C/C2H (with
/// descriptor bypass) on `h2c`/`c2h` stream wires. The core clock is XDMA's 250 MHz `axi_aclk`.
fn platform(b: &mut Body, xdma: &str, bypass: bool) {
    for (n, w) in [("pcie_refclk_gt", 1), ("pcie_refclk_div2", 1), ("clk100_ibuf", 1), ("clk100", 1), ("core_clk", 1), ("core_rstn", 1), ("pcie_link_up", 1)] {
        b.wire(n, w);
    }
    b.insts.push(
        Inst::new("IBUFDS_GTE4", "u_pcie_refclk_buf", true)
            .params(".REFCLK_HROW_CK_SEL(2'b00)")
            .i("I", 1, "pcie_refclk_p")
            .i("IB", 1, "pcie_refclk_n")
            .i("CEB", 1, "1'b0")
            .o("O", 1, "pcie_refclk_gt")
            .o("ODIV2", 1, "pcie_refclk_div2"),
    );
    b.insts.push(Inst::new("IBUFDS", "u_clk100_buf", true).i("I", 1, "clk100_p").i("IB", 1, "clk100_n").o("O", 1, "clk100_ibuf"));
    b.insts.push(Inst::new("BUFG", "u_clk100_bufg", true).i("I", 1, "clk100_ibuf").o("O", 1, "clk100"));
    b.glue("  // power-on reset in the 100 MHz domain (CMAC init, HBM APB)");
    b.glue("  reg [7:0] por_cnt = 8'd0;\n  always @(posedge clk100) if (!(&por_cnt)) por_cnt <= por_cnt + 8'd1;\n  wire clk100_rst = !(&por_cnt);");
    b.glue("  // the core reset, synchronous to the 250 MHz core clock\n  reg core_rst = 1'b1;\n  always @(posedge core_clk) core_rst <= !core_rstn;");
    stream_wires(b, "h2c");
    stream_wires(b, "c2h");
    if bypass {
        for (n, w) in [("h2c_byp_addr", 64), ("h2c_byp_len", 28), ("h2c_byp_load", 1), ("h2c_byp_ready", 1), ("c2h_byp_addr", 64), ("c2h_byp_len", 28), ("c2h_byp_load", 1), ("c2h_byp_ready", 1)] {
            b.wire(n, w);
        }
    }
    let mut x = Inst::new(xdma, "u_xdma", true)
        .i("sys_clk", 1, "pcie_refclk_div2")
        .i("sys_clk_gt", 1, "pcie_refclk_gt")
        .i("sys_rst_n", 1, "pcie_perst_n")
        .i("pci_exp_rxp", 16, "pcie_rx_p")
        .i("pci_exp_rxn", 16, "pcie_rx_n")
        .o("pci_exp_txp", 16, "pcie_tx_p")
        .o("pci_exp_txn", 16, "pcie_tx_n")
        .o("user_lnk_up", 1, "pcie_link_up")
        .o("axi_aclk", 1, "core_clk")
        .o("axi_aresetn", 1, "core_rstn")
        .i("usr_irq_req", 1, "1'b0");
    let lite = axil_sigs(32);
    x = axi_pins(x, b, "m_axil_", false, true, "bar", &lite);
    // H2C channel 0: host memory → card (the engine's DMA reads); C2H: card → host memory
    x = axis_pins(x, "m_axis_h2c_", "_0", true, "h2c", false);
    x = axis_pins(x, "s_axis_c2h_", "_0", false, "c2h", false);
    if bypass {
    // descriptor bypass: one descriptor per DMA command, EOP set (ctl bit 4)
    x = x
        .i("h2c_dsc_byp_load_0", 1, "h2c_byp_load")
        .i("h2c_dsc_byp_src_addr_0", 64, "h2c_byp_addr")
        .i("h2c_dsc_byp_dst_addr_0", 64, "64'd0")
        .i("h2c_dsc_byp_len_0", 28, "h2c_byp_len")
        .i("h2c_dsc_byp_ctl_0", 16, "16'h0010")
        .o("h2c_dsc_byp_ready_0", 1, "h2c_byp_ready")
        .i("c2h_dsc_byp_load_0", 1, "c2h_byp_load")
        .i("c2h_dsc_byp_src_addr_0", 64, "64'd0")
        .i("c2h_dsc_byp_dst_addr_0", 64, "c2h_byp_addr")
        .i("c2h_dsc_byp_len_0", 28, "c2h_byp_len")
        .i("c2h_dsc_byp_ctl_0", 16, "16'h0010")
        .o("c2h_dsc_byp_ready_0", 1, "c2h_byp_ready");
    }
    b.insts.push(x);
    b.glue("  // XDMA AXI-ST carries no tuser");
    b.glue("  assign h2c_tuser = 1'b0;");
}

/// The board register window on the BAR, with its status words.
fn regs(b: &mut Body, engine: Option<&str>, status: [&str; 8]) {
    let mut r = Inst::new("board_regs", "u_regs", false).i("clock", 1, "core_clk").i("reset", 1, "core_rst");
    let lite = axil_sigs(32);
    r = axi_pins(r, b, "s_axil_", false, false, "bar", &lite);
    r = axi_pins(r, b, "m_axil_", false, true, "ctl", &axil_sigs(16));
    for (i, s) in status.iter().enumerate() {
        r = r.i(&format!("status_{i}"), 32, s);
    }
    b.wire("sq_bits", 256);
    b.wire("cq_bits", 96);
    for i in 0..8 {
        r = r.o(&format!("sq_{i}"), 32, &format!("sq_bits[{}:{}]", 32 * i + 31, 32 * i));
    }
    for i in 0..3 {
        r = r.i(&format!("cq_{i}"), 32, &format!("cq_bits[{}:{}]", 32 * i + 31, 32 * i));
    }
    match engine {
        Some(e) => {
            b.wire("sq_valid_w", 1);
            b.wire("sq_ready_w", 1);
            r = r.o("sq_valid", 1, "sq_valid_w").i("sq_ready", 1, "sq_ready_w");
            b.glue(recv_glue(e));
            r = r.i("cq_valid", 1, &format!("{e}_cq_valid")).o("cq_ready", 1, &format!("{e}_cq_ready"));
        }
        None => {
            b.wire("sq_valid_nc", 1);
            b.wire("cq_ready_nc", 1);
            r = r.o("sq_valid", 1, "sq_valid_nc").i("sq_ready", 1, "1'b1").i("cq_valid", 1, "1'b0").o("cq_ready", 1, "cq_ready_nc");
        }
    }
    b.insts.push(r);
}

/// A 100G MAC on QSFP28 port `q` (`cmac_usplus_<q>`), with the RS-FEC on, its AXI4-Stream
/// user side in the MAC clock domain (`cmac<q>_clk`, 322.266 MHz), and frame FIFOs into and out
/// of the core clock domain. `rx` and `tx` are the core-side stream wire prefixes.
fn cmac(b: &mut Body, q: usize, rx: &str, tx: &str) {
    let c = format!("cmac{q}");
    for (n, w) in [("clk", 1), ("rx_rst", 1), ("tx_rst", 1), ("aligned", 1), ("rx_drops", 32), ("tx_drops", 32)] {
        b.wire(&format!("{c}_{n}"), w);
    }
    stream_wires(b, &format!("{c}_rx"));
    stream_wires(b, &format!("{c}_tx"));
    let mut m = Inst::new(&format!("cmac_usplus_{q}"), &format!("u_cmac{q}"), true)
        .i("gt_ref_clk_p", 1, &format!("qsfp{q}_refclk_p"))
        .i("gt_ref_clk_n", 1, &format!("qsfp{q}_refclk_n"))
        .i("gt_rxp_in", 4, &format!("qsfp{q}_rx_p"))
        .i("gt_rxn_in", 4, &format!("qsfp{q}_rx_n"))
        .o("gt_txp_out", 4, &format!("qsfp{q}_tx_p"))
        .o("gt_txn_out", 4, &format!("qsfp{q}_tx_n"))
        .i("gt_loopback_in", 12, "12'd0")
        .i("init_clk", 1, "clk100")
        .i("sys_reset", 1, "clk100_rst")
        .o("gt_txusrclk2", 1, &format!("{c}_clk"))
        .i("rx_clk", 1, &format!("{c}_clk"))
        .o("usr_rx_reset", 1, &format!("{c}_rx_rst"))
        .o("usr_tx_reset", 1, &format!("{c}_tx_rst"))
        .i("core_rx_reset", 1, "1'b0")
        .i("core_tx_reset", 1, "1'b0")
        .i("core_drp_reset", 1, "1'b0")
        .i("drp_clk", 1, "clk100")
        .i("drp_addr", 10, "10'd0")
        .i("drp_di", 16, "16'd0")
        .i("drp_en", 1, "1'b0")
        .i("drp_we", 1, "1'b0")
        .o("stat_rx_aligned", 1, &format!("{c}_aligned"))
        // bring-up as in PG203: receive always, transmit once aligned, RFI until then
        .i("ctl_rx_enable", 1, "1'b1")
        .i("ctl_tx_enable", 1, &format!("{c}_aligned"))
        .i("ctl_tx_send_rfi", 1, &format!("!{c}_aligned"))
        .i("ctl_tx_send_lfi", 1, "1'b0")
        .i("ctl_tx_send_idle", 1, "1'b0")
        .i("ctl_tx_test_pattern", 1, "1'b0")
        .i("ctl_rx_test_pattern", 1, "1'b0")
        .i("ctl_rx_force_resync", 1, "1'b0")
        .i("ctl_rsfec_ieee_error_indication_mode", 1, "1'b0")
        .i("ctl_rx_rsfec_enable", 1, "1'b1")
        .i("ctl_rx_rsfec_enable_correction", 1, "1'b1")
        .i("ctl_rx_rsfec_enable_indication", 1, "1'b1")
        .i("ctl_tx_rsfec_enable", 1, "1'b1")
        .i("tx_preamblein", 56, "56'd0");
    // the MAC's RX stream has no tready: the CDC FIFO in drop mode never stalls it
    m = m.o("rx_axis_tvalid", 1, &format!("{c}_rx_tvalid")).o("rx_axis_tdata", 512, &format!("{c}_rx_tdata")).o("rx_axis_tkeep", 64, &format!("{c}_rx_tkeep")).o("rx_axis_tlast", 1, &format!("{c}_rx_tlast")).o("rx_axis_tuser", 1, &format!("{c}_rx_tuser"));
    m = axis_pins(m, "tx_axis_", "", false, &format!("{c}_tx"), true);
    b.insts.push(m);
    b.glue(format!("  // {c}: RX has no tready (the FIFO's s_axis_tready is always 1 in drop mode)"));
    b.insts.push(cdc_fifo(&format!("u_{c}_rx_cdc"), &format!("{c}_clk"), &format!("{c}_rx_rst"), true, &format!("{c}_rx"), "core_clk", "core_rst", rx, &format!("{c}_rx_drops")));
    b.insts.push(cdc_fifo(&format!("u_{c}_tx_cdc"), "core_clk", "core_rst", false, tx, &format!("{c}_clk"), &format!("{c}_tx_rst"), &format!("{c}_tx"), &format!("{c}_tx_drops")));
    // LEDs: link (green), no link (yellow), activity stretched to about 50 ms
    b.glue(format!(
        "  reg [23:0] {c}_act = 24'd0;\n  always @(posedge {c}_clk) if ({c}_rx_tvalid | ({c}_tx_tvalid & {c}_tx_tready)) {c}_act <= 24'hffffff; else if ({c}_act != 24'd0) {c}_act <= {c}_act - 24'd1;\n  assign qsfp_led_act[{q}] = {c}_act != 24'd0;\n  assign qsfp_led_stat_g[{q}] = {c}_aligned;\n  assign qsfp_led_stat_y[{q}] = !{c}_aligned;"
    ));
}

fn assemble(name: &str, about: &str, ports: &[BoardPort], b: Body) -> (String, String) {
    let mut v = format!("// generated by nicgen: {name}, Alveo U55C ({PART})\n// {about}\n// Vendor IP is created by scripts/vivado/ip/*.tcl; BUILD_DATE and GIT_HASH are set by the build script.\n");
    let mut params = vec!["parameter [31:0] BUILD_DATE = 32'h0".to_string(), "parameter [31:0] GIT_HASH = 32'h0".to_string()];
    params.extend(b.params.iter().cloned());
    v += &format!("module {name} #(\n  {}\n) (\n", params.join(",\n  "));
    let decls: Vec<String> = ports
        .iter()
        .map(|p| {
            let d = if p.dir == Dir::In { "input " } else { "output" };
            let r = if p.width > 1 { format!("[{}:0] ", p.width - 1) } else { String::new() };
            format!("  {d} wire {r}{}", p.name)
        })
        .collect();
    v += &decls.join(",\n");
    v += "\n);\n";
    for (n, w) in &b.wires {
        let r = if *w > 1 { format!("[{}:0] ", w - 1) } else { String::new() };
        v += &format!("  wire {r}{n};\n");
    }
    for i in &b.insts {
        v += &i.verilog();
    }
    for g in &b.glue {
        v += g;
        v += "\n";
    }
    if !b.unused.is_empty() {
        v += &format!("  // outputs this board does not use\n  wire unused_board = &{{1'b0, {}}};\n", b.unused.join(", "));
    }
    v += "endmodule\n";
    let mut stubs = String::from("// generated by nicgen: black boxes of the vendor IP and primitives, for linting only (never read by Vivado)\n/* verilator lint_off DECLFILENAME */\n/* verilator lint_off UNDRIVEN */\n/* verilator lint_off UNUSEDSIGNAL */\n/* verilator lint_off UNUSEDPARAM */\n");
    let mut seen = vec![];
    for i in b.insts.iter().filter(|i| i.vendor) {
        if !seen.contains(&i.module) {
            seen.push(i.module.clone());
            stubs += &i.stub();
        }
    }
    (v, stubs)
}

/// RECVs are posted through the send queue's register window: a work request whose bit 251
/// (`SQ_RECV_BIT`, above the `SqWr` record) is set goes to the engine's `recv` channel instead
/// of its send queue, as a `RecvWr` made of the request's `qpn`, `wr_id`, `laddr` (the buffer)
/// and `len`.
pub const SQ_RECV_BIT: usize = crate::roce::SqWrFields::BITS;

fn recv_glue(e: &str) -> String {
    use crate::roce::{RecvWrFields, SqWrFields};
    assert!(SQ_RECV_BIT < 32 * crate::board::regs::SQ_WORDS);
    let sq = |f: &str| {
        let (o, w) = SqWrFields::slot(f);
        format!("sq_bits[{}:{o}]", o + w - 1)
    };
    // the RecvWr record's fields, highest first
    let mut parts: Vec<(usize, String)> = ["qpn", "wr_id", "addr", "len"]
        .iter()
        .map(|f| (RecvWrFields::slot(f).0, sq(match *f { "addr" => "laddr", x => x })))
        .collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    let cat: Vec<String> = parts.into_iter().map(|p| p.1).collect();
    format!(
        "  // a work request with bit {SQ_RECV_BIT} set is a RECV: to the engine's recv channel\n  assign {e}_recv = {{{}}};\n  assign {e}_recv_valid = sq_valid_w & sq_bits[{SQ_RECV_BIT}];\n  assign {e}_sq_valid = sq_valid_w & ~sq_bits[{SQ_RECV_BIT}];\n  assign sq_ready_w = sq_bits[{SQ_RECV_BIT}] ? {e}_recv_ready : {e}_sq_ready;",
        cat.join(", ")
    )
}

/// `Au55c100g`: the RoCE engine on QSFP28 port 0.
fn au55c100g(engine: &Top) -> BoardTop {
    let name = "au55c100g";
    let about = "RoCEv2 RC engine on QSFP28 port 0 (CMAC 100G, RS-FEC), XDMA Gen3 x16 host DMA and BAR0 registers, HBM pseudo-channel 0 as the retransmission buffer";
    let ports = common_ports(1);
    let mut b = Body::default();
    platform(&mut b, "xdma_0", true);
    b.core(engine, "eng");
    b.glue("  assign eng_clock = core_clk;\n  assign eng_reset = core_rst;");
    cmac(&mut b, 0, "eng_s_axis_rx", "eng_m_axis_tx");
    b.glue("  // QSFP28 port 1 is not used in this configuration");
    b.glue("  assign qsfp_led_act[1] = 1'b0;\n  assign qsfp_led_stat_g[1] = 1'b0;\n  assign qsfp_led_stat_y[1] = 1'b0;");
    // host DMA through XDMA descriptor bypass: a command is one descriptor
    b.glue("  // DMA reads (H2C) and writes (C2H): DmaCmd = {tag[23:0], len[31:0], addr[63:0]}; lengths are at most one PMTU");
    b.glue("  assign h2c_byp_addr = eng_dma_rd_cmd[63:0];\n  assign h2c_byp_len = eng_dma_rd_cmd[91:64];\n  assign h2c_byp_load = eng_dma_rd_cmd_valid;\n  assign eng_dma_rd_cmd_ready = h2c_byp_ready;");
    stream_assign(&mut b, "eng_s_axis_dma_rd", "h2c");
    b.glue("  assign c2h_byp_addr = eng_dma_wr_cmd[63:0];\n  assign c2h_byp_len = eng_dma_wr_cmd[91:64];\n  assign c2h_byp_load = eng_dma_wr_cmd_valid;\n  assign eng_dma_wr_cmd_ready = c2h_byp_ready;");
    stream_assign(&mut b, "c2h", "eng_m_axis_dma_wr");
    // control: the BAR router hands the lower 64 KiB to the engine
    for s in ["awaddr", "awvalid", "wdata", "wstrb", "wvalid", "bready", "araddr", "arvalid", "rready"] {
        b.glue(format!("  assign eng_s_axil_ctrl_{s} = ctl_{s};"));
    }
    for s in ["awready", "wready", "bresp", "bvalid", "arready", "rdata", "rresp", "rvalid"] {
        b.glue(format!("  assign ctl_{s} = eng_s_axil_ctrl_{s};"));
    }
    let cq_w = crate::roce::CqEntryFields::BITS;
    let cq_pad = if cq_w < 96 { format!("{}'d0, ", 96 - cq_w) } else { String::new() };
    b.glue(format!("  assign eng_sq = sq_bits[250:0];\n  assign cq_bits = {{{cq_pad}eng_cq}};"));
    b.wire("link_sync", 8);
    b.insts.push(Inst::new("cdc_sync_bits", "u_link_sync", false).i("clock", 1, "core_clk").i("d", 8, "{6'd0, pcie_link_up, cmac0_aligned}").o("q", 8, "link_sync"));
    regs(&mut b, Some("eng"), ["BUILD_DATE", "GIT_HASH", "{24'd0, link_sync}", "cmac0_rx_drops", "cmac0_tx_drops", "32'd0", "32'd0", "32'd0"]);
    // the retransmission buffer: engine (512-bit AXI4, 250 MHz) → clock converter (450 MHz) →
    // width converter (256) → protocol converter (AXI3) → HBM pseudo-channel 0
    for (n, w) in [("hbm_clk", 1), ("hbm_locked", 1), ("hbm_sync", 8), ("hbm_cattrip0", 1), ("hbm_cattrip1", 1), ("hbm_temp0", 7), ("hbm_temp1", 7), ("hbm_apb_done0", 1), ("hbm_apb_done1", 1)] {
        b.wire(n, w);
    }
    b.insts.push(Inst::new("clk_wiz_hbm", "u_clk_hbm", true).i("clk_in1", 1, "clk100").i("reset", 1, "clk100_rst").o("clk_out1", 1, "hbm_clk").o("locked", 1, "hbm_locked"));
    b.insts.push(Inst::new("cdc_sync_bits", "u_hbm_sync", false).i("clock", 1, "hbm_clk").i("d", 8, "{6'd0, hbm_locked, core_rstn}").o("q", 8, "hbm_sync"));
    b.glue("  wire hbm_rstn = hbm_sync[0] & hbm_sync[1];");
    let s512 = axi_sigs(512, 34, 8);
    let mut cc = Inst::new("axi_cc_rb", "u_rb_cc", true).i("s_axi_aclk", 1, "core_clk").i("s_axi_aresetn", 1, "core_rstn").i("m_axi_aclk", 1, "hbm_clk").i("m_axi_aresetn", 1, "hbm_rstn");
    cc = axi_pins(cc, &mut b, "s_axi_", false, false, "rb0", &s512);
    cc = axi_pins(cc, &mut b, "m_axi_", false, true, "rb1", &s512);
    b.insts.push(cc);
    for &(s, m, _) in &s512 {
        let e = format!("eng_m_axi_rb_{s}");
        if m {
            if s.ends_with("addr") {
                b.glue(format!("  assign rb0_{s} = {e}[33:0];"));
            } else {
                b.glue(format!("  assign rb0_{s} = {e};"));
            }
        } else {
            b.glue(format!("  assign {e} = rb0_{s};"));
        }
    }
    let mut dw = Inst::new("axi_dw_rb", "u_rb_dw", true).i("s_axi_aclk", 1, "hbm_clk").i("s_axi_aresetn", 1, "hbm_rstn");
    dw = axi_pins(dw, &mut b, "s_axi_", false, false, "rb1", &s512);
    let s256 = axi_sigs(256, 34, 8);
    dw = axi_pins(dw, &mut b, "m_axi_", false, true, "rb2", &s256);
    b.insts.push(dw);
    let mut pc = Inst::new("axi_pc_rb", "u_rb_pc", true).i("aclk", 1, "hbm_clk").i("aresetn", 1, "hbm_rstn");
    pc = axi_pins(pc, &mut b, "s_axi_", false, false, "rb2", &s256);
    let s3 = axi_sigs(256, 34, 4);
    pc = axi_pins(pc, &mut b, "m_axi_", false, true, "rb3", &s3);
    b.insts.push(pc);
    let mut h = Inst::new("hbm_0", "u_hbm", true)
        .i("HBM_REF_CLK_0", 1, "clk100")
        .i("HBM_REF_CLK_1", 1, "clk100")
        .i("APB_0_PCLK", 1, "clk100")
        .i("APB_0_PRESET_N", 1, "!clk100_rst")
        .i("APB_1_PCLK", 1, "clk100")
        .i("APB_1_PRESET_N", 1, "!clk100_rst")
        .o("apb_complete_0", 1, "hbm_apb_done0")
        .o("apb_complete_1", 1, "hbm_apb_done1")
        .o("DRAM_0_STAT_CATTRIP", 1, "hbm_cattrip0")
        .o("DRAM_1_STAT_CATTRIP", 1, "hbm_cattrip1")
        .o("DRAM_0_STAT_TEMP", 7, "hbm_temp0")
        .o("DRAM_1_STAT_TEMP", 7, "hbm_temp1")
        .i("AXI_00_ACLK", 1, "hbm_clk")
        .i("AXI_00_ARESET_N", 1, "hbm_rstn")
        .i("AXI_00_AWID", 6, "6'd0")
        .i("AXI_00_ARID", 6, "6'd0")
        .i("AXI_00_WDATA_PARITY", 32, "32'd0");
    h = axi_pins(h, &mut b, "AXI_00_", true, false, "rb3", &s3);
    b.insts.push(h);
    b.glue("  // CATTRIP: driven at all times; high shuts the card's power down (HBM over temperature)");
    b.glue("  assign hbm_cattrip = hbm_cattrip0 | hbm_cattrip1;");
    // the RB address space is 16 GiB (34 bits); DMA commands carry at most one PMTU (len < 2^28)
    b.unused(&["c2h_tuser", "eng_m_axi_rb_awaddr[63:34]", "eng_m_axi_rb_araddr[63:34]", "eng_dma_rd_cmd[119:92]", "eng_dma_wr_cmd[119:92]", "cmac0_rx_tready", "sq_bits[255:252]", "hbm_sync[7:2]", "hbm_temp0", "hbm_temp1", "hbm_apb_done0", "hbm_apb_done1"]);
    let (verilog, stubs) = assemble(name, about, &ports, b);
    BoardTop {
        name,
        config: "Au55c100g",
        about,
        ports,
        verilog,
        stubs,
        uses: vec!["roce_engine", "cdc_axis_fifo", "cdc_sync_bits", "board_regs"],
        ips: vec!["xdma_0", "cmac_usplus_0", "hbm_0", "clk_wiz_hbm", "axi_cc_rb", "axi_dw_rb", "axi_pc_rb"],
        xdc: vec!["fpga.xdc", "clocks.xdc", "pcie.xdc", "qsfp0.xdc", "hbm.xdc", "gpio.xdc", "cdc_axis_fifo.xdc", "cdc_sync_bits.xdc"],
    }
}

/// `Au55cEm`: the execution module on both QSFP28 ports, with its M2M endpoint reached in
/// Ethernet frames on port 0 (`em_card`); the host's frames through XDMA H2C/C2H channel 0.
fn au55c_em(em: &Top) -> BoardTop {
    let name = "au55c_em";
    let about = "DistDPU execution module on QSFP28 ports 0 and 1 (two CMACs, dual-port failover), host frames over XDMA Gen3 x16 streams; its tables written only by the OM in M2M frames on port 0";
    let ports = common_ports(2);
    let mut b = Body::default();
    b.params.push("parameter [7:0] EM_ID = 8'd0".into());
    b.params.push("parameter [47:0] M2M_MAC = 48'h024E49430000".into());
    platform(&mut b, "xdma_em", false);
    b.core(em, "em");
    b.glue("  assign em_clock = core_clk;\n  assign em_reset = core_rst;");
    cmac(&mut b, 0, "em_s_axis_p0_rx", "em_m_axis_p0_tx");
    cmac(&mut b, 1, "em_s_axis_p1_rx", "em_m_axis_p1_tx");
    b.wire("link_sync", 8);
    b.insts.push(Inst::new("cdc_sync_bits", "u_link_sync", false).i("clock", 1, "core_clk").i("d", 8, "{5'd0, pcie_link_up, cmac1_aligned, cmac0_aligned}").o("q", 8, "link_sync"));
    b.glue("  assign em_link_up = link_sync[1:0];");
    // host frames: H2C channel 0 is the host's transmit queue (VF 0: XDMA has one function),
    // C2H channel 0 its receive queue; a descriptor per frame, posted by the host driver.
    stream_assign(&mut b, "em_s_axis_host_tx", "h2c");
    b.glue("  assign em_s_host_vf = 12'd0;");
    stream_assign(&mut b, "c2h", "em_m_axis_host_rx");
    b.glue("  // The tables, device configuration and miss events belong to the M2M endpoint, which the OM\n  // reaches only in M2M frames on QSFP28 port 0 (em_card: m2m_eth splits them off before the\n  // EM; the host's frames cannot carry them). EM_ID is this EM's number in M2M messages,\n  // M2M_MAC the address the OM sends to (set both with -generic at synthesis).");
    b.glue("  assign em_em_id = EM_ID;");
    b.glue("  assign em_mac = {M2M_MAC[7:0], M2M_MAC[15:8], M2M_MAC[23:16], M2M_MAC[31:24], M2M_MAC[39:32], M2M_MAC[47:40]};");
    regs(&mut b, None, ["BUILD_DATE", "GIT_HASH", "{24'd0, link_sync}", "cmac0_rx_drops", "cmac1_rx_drops", "em_m2m_frames", "em_m2m_drop_bad_fcs", "em_m2m_replies"]);
    b.glue("  // the engine window of the BAR is the EM's host window (device registers only: ID, EM id,\n  // status, scratch; everything else answers SLVERR and is counted)");
    for (s, m_drives, w) in axil_sigs(16) {
        let (dst, src) = if m_drives { (format!("em_s_axil_host_{s}"), format!("ctl_{s}")) } else { (format!("ctl_{s}"), format!("em_s_axil_host_{s}")) };
        // the window's 16-bit addresses, zero-extended to the host window's 32
        let src = if w == 16 { format!("{{16'd0, {src}}}") } else { src };
        b.glue(format!("  assign {dst} = {src};"));
    }
    b.glue("  // no HBM in this configuration: CATTRIP driven low");
    b.glue("  assign hbm_cattrip = 1'b0;");
    b.glue("  assign cq_bits = 96'd0;");
    // the EM's counters and events go to the OM over M2M; the SQ belongs to the engine
    b.unused(&["c2h_tuser", "em_m_host_vf", "em_swapped", "em_m2m_drop_overflow", "em_m2m_drop_other_mac", "em_m2m_replies_unsent", "cmac0_tx_drops", "cmac0_rx_tready", "cmac1_tx_drops", "cmac1_rx_tready", "sq_bits", "sq_valid_nc", "cq_ready_nc"]);
    let (verilog, stubs) = assemble(name, about, &ports, b);
    BoardTop {
        name,
        config: "Au55cEm",
        about,
        ports,
        verilog,
        stubs,
        uses: vec!["em_card", "cdc_axis_fifo", "cdc_sync_bits", "board_regs"],
        ips: vec!["xdma_em", "cmac_usplus_0", "cmac_usplus_1"],
        xdc: vec!["fpga.xdc", "clocks.xdc", "pcie.xdc", "qsfp0.xdc", "qsfp1.xdc", "hbm.xdc", "gpio.xdc", "cdc_axis_fifo.xdc", "cdc_sync_bits.xdc"],
    }
}

/// The board tops, built around the generated tops they use.
pub fn board_tops(tops: &[Top]) -> Vec<BoardTop> {
    let find = |n: &str| tops.iter().find(|t| t.name == n).unwrap_or_else(|| panic!("no top {n}"));
    vec![au55c100g(find("roce_engine")), au55c_em(find("em_card"))]
}
