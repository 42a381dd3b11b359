//! Whole-engine scenarios under Verilator. `rdma`: two engines joined by a 100G link model
//! (both directions, MAC pacing), each with a host memory and a DMA model; node A posts RDMA
//! WRITE and READ work requests over several QPs to node B. Every destination byte is checked
//! against its source, every completion's status too.
use nicgen_hw::roce::ctrl::{STAGE_CFG, STAGE_RQ, STAGE_SQ_PSN};
use nicgen_hw::roce::engine::{reg, RoceEngine4k, ENGINE_COUNTERS};
use nicgen_hw::roce::engine::WithEngine as _;
use nicgen_hw::service::aes_ctr as aes;
use nicgen_model::aes_ctr::{ctr_xor, Key, PsnExt, QpCrypto};
use nicgen_model::opcode;
use nicgen_hw::roce::qp::*;
use nicgen_hw::roce::*;
use anyhow::{bail, Result};
use nicgen_model::pcap::{write_pcap, Captured};
use nicgen_sim::verilator::{pair_step, pair_threads_default};
use nicgen_sim::axil::AxilMaster;
use nicgen_sim::axis::{AxisMonitor, AxisPorts};
use nicgen_sim::chan::{ChanDriver, ChanMonitor};
use nicgen_sim::cardmem::{CardMem, CardParams};
use nicgen_sim::host::*;
use nicgen_sim::*;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Write,
    Read,
    /// WRITE or READ, at random.
    Mixed,
    /// SEND into RECVs the peer posts (each exactly as long as its SEND, or longer with
    /// `random_size`).
    Send,
    /// WRITE, READ or SEND, at random.
    MixedAll,
}

#[derive(Clone, Debug)]
pub struct RdmaOpts {
    pub op: Op,
    /// Message size in bytes.
    pub size: usize,
    pub count: usize,
    pub qps: usize,
    pub seed: u64,
    pub pcap: Option<PathBuf>,
    /// PMTU code (4 = 4096 B).
    pub pmtu: u8,
    pub dma: DmaParams,
    /// Print progress and the report.
    pub verbose: bool,
    /// QPs in each engine's tables: 500 (the default engine) or 4096.
    pub table_qps: usize,
    /// Each message gets a random size from 1 to `size` bytes (biased to small and to
    /// non-multiples of 4 and of the PMTU) instead of exactly `size`.
    pub random_size: bool,
    /// AES-CTR in both engines' payload slots (and an 11-cycle tap): every QP pair gets its own
    /// key (AES-128 on even QPs, AES-256 on odd), the wire carries ciphertext, and every WRITE
    /// packet on the wire is decrypted with RustCrypto and compared with the destination.
    pub aes: bool,
    /// At most this many messages posted and not yet completed (0: post everything at once).
    /// 1 measures latency with one outstanding message.
    pub outstanding: usize,
    /// Node B posts `count` messages of this kind to A at the same time (bidirectional
    /// traffic), over the same QP pairs. None: B only answers.
    pub b_op: Option<Op>,
    /// Faults injected on both link directions (ACK/NAK frames included).
    pub faults: Faults,
    /// The QPs' local ACK timeout (4.096 µs × 2^timeout; 0 = none) and retry count.
    pub timeout: u8,
    pub retry_cnt: u8,
    /// Faults aimed at given frames of A→B and of B→A (tests with an exact trace).
    pub script: [Vec<(usize, Scripted)>; 2],
    /// The first PSN of every QP, both ways (None: random).
    pub first_psn: Option<u32>,
    /// (QP index, cycle): every A→B frame of that QP is lost until that cycle.
    pub stall_qp: Option<(usize, u64)>,
    /// The retransmission buffer's card memory.
    pub card: CardParams,
    /// The sniffer at node A's MAC, writing PCAPNG.
    pub sniff: Option<SniffOpts>,
    /// DLRM preprocessing in node A's RX slot: every QP of A bound to this operation
    /// (`nicgen_model::dlrm::op`), with this modulus. Data arriving at A is checked against the
    /// model's transform of its source.
    pub dlrm: Option<(u8, u32)>,
    /// DPI on node A's parallel tap: (policy of every QP of A (`nicgen_model::dpi::verdict`),
    /// class mask). The frames that reach A's tap are checked against the model's verdicts:
    /// A's flag and drop counters must equal the model's counts, and each READ completion's
    /// tap flag the model's.
    pub dpi: Option<(u8, u8)>,
    /// With `dpi`: only A's first this many QPs take the policy; the others pass (0: all).
    pub dpi_qps: usize,
    /// The engines' services (bits of `service::aes_ctr::kind`; any subset generates). None:
    /// all of them when `aes`, `dlrm` or `dpi` is set (the services engine), else none.
    pub services: Option<usize>,
    /// Evaluate the two engines on two threads (the results are the same cycle for cycle);
    /// None: [`nicgen_sim::verilator::pair_threads_default`].
    pub threads: Option<bool>,
    /// Both engines' TX cut-through start threshold in beats (`TX_START`; 255 = store and
    /// forward). None: the engine's default.
    pub tx_start: Option<u8>,
    /// Both engines' RX cut-through (`RX_CUT`: bit 0 WRITE MIDDLE/LAST and READ responses placed
    /// before their verdict, bit 2 WRITE FIRST/ONLY cut through and held for it, bit 1 those
    /// placed before it too; 0 = store every frame). None: the engine's default (5).
    pub rx_cut: Option<u8>,
    /// Cycles after the start before the receiving nodes post their first RECVs: SENDs before
    /// then find none and are answered RNR NAK.
    pub recv_delay: u64,
}

impl Default for RdmaOpts {
    fn default() -> Self {
        RdmaOpts { op: Op::Write, size: 4096, count: 64, qps: 4, seed: 1, pcap: None, pmtu: 4, dma: DmaParams::default(), verbose: false, table_qps: 500, random_size: false, aes: false, outstanding: 0, b_op: None, faults: Faults::default(), timeout: 8, retry_cnt: 7, script: [vec![], vec![]], first_psn: None, stall_qp: None, card: CardParams::default(), sniff: None, dlrm: None, dpi: None, dpi_qps: 0, services: None, threads: None, tx_start: None, rx_cut: None, recv_delay: 0 }
    }
}

#[derive(Clone, Debug, Default)]
pub struct RdmaReport {
    pub messages: usize,
    pub bytes: u64,
    pub cycles: u64,
    /// Payload bytes per ns (= GB/s).
    pub goodput_gbps: f64,
    /// Fraction of the 100G payload ceiling at this PMTU, times the link directions that carry
    /// data (two when both nodes post WRITEs, say).
    pub ceiling_frac: f64,
    pub mpps: f64,
    pub lat_mean: f64,
    pub lat_p99: u64,
    pub frames: usize,
    pub mismatches: usize,
    /// Engine latency, descriptor to first wire beat: cycles from the first work request's
    /// acceptance to the first beat node A sends, less the host model's DMA read latency when
    /// that request is a WRITE (whose payload the engine fetches first).
    pub tx_latency: i64,
    /// Engine latency, last wire beat to last DMA write: cycles from the last data frame's last
    /// beat reaching the receiving engine to that engine's last host-memory write.
    pub rx_latency: i64,
    pub errors: Vec<String>,
    pub counters: Vec<(String, u64, u64)>,
    /// Goodput of each QP (GB/s): its bytes over the time from the start to its last completion.
    pub per_qp_gbps: Vec<f64>,
    /// Each QP's payload bytes and the cycle of its last completion (from the start).
    pub per_qp_bytes: Vec<u64>,
    pub per_qp_last: Vec<u64>,
    /// Jain's fairness index of `per_qp_gbps`.
    pub jain: f64,
    /// Wall-clock seconds of the traffic phase, and the two-node cycles per second.
    pub sim_secs: f64,
    pub cycles_per_sec: f64,
    /// What the links did: A→B and B→A.
    pub faults: [FaultCounts; 2],
    /// Each node's `TX_START` after the run (read back over AXI4-Lite): the start threshold as
    /// its underruns left it.
    pub tx_start_after: [u32; 2],
    /// Completions by status (index = `cq_status`), both nodes.
    pub by_status: [u64; 7],
    /// Receive completions (RECVs filled by SENDs), both nodes, each checked.
    pub recv_completions: usize,
    /// Loss detection to retransmission: for each NAK 0x60 that reached a requester, the
    /// cycles from its last beat arriving to the first beat of the next request frame with
    /// the PSN it names leaving that requester.
    pub nak_to_rtx: Vec<u64>,
    /// With AES: WRITE packets on the wire decrypted by the reference and found equal to the
    /// destination (and different from it before decryption).
    pub aes_checked: usize,
    /// With AES: 16-byte pieces of data packets on the wire (both ways) looked up among the
    /// 16-byte pieces of every message's plaintext (a hit is an error).
    pub aes_pieces_checked: usize,
    /// With the sniffer: records captured at A's MAC (RX, TX), each checked against the link
    /// model's frame, and records lost for room.
    pub sniffed: [usize; 2],
    pub sniff_lost: u32,
    /// With DLRM: 32-bit lanes that reached A checked against the model's transform, and how
    /// many of them the transform changed.
    pub dlrm_lanes: usize,
    pub dlrm_changed: usize,
    /// With DPI: frames that passed A's ICRC check (each given the model's verdict), and the
    /// model's flag and drop counts (equal to A's counters, or an error is reported).
    pub dpi_frames: usize,
    pub dpi_flagged: u64,
    pub dpi_dropped: u64,
    /// With DPI: READ completions at A that carry the tap's flag, and whether each READ
    /// completion's flag was checked against the model (every response reached A once; with
    /// loss or replays the check is skipped).
    pub dpi_cq_flagged: u64,
    pub dpi_cq_checked: bool,
}

/// The name of a work request's operation ([`wr_op`]).
pub fn op_name(op: u8) -> &'static str {
    match op {
        wr_op::WRITE => "WRITE",
        wr_op::READ => "READ",
        wr_op::SEND => "SEND",
        _ => "?",
    }
}

impl RdmaReport {
    /// A counter of [`ENGINE_COUNTERS`]: (node A, node B).
    pub fn counter(&self, name: &str) -> (u64, u64) {
        self.counters.iter().find(|c| c.0 == name).map_or((0, 0), |c| (c.1, c.2))
    }
}

/// [`RdmaReport::nak_to_rtx`] for the requester whose frames leave on `req` and whose
/// responses arrive on `rsp`.
fn nak_to_rtx(req: &MacLink, rsp: &MacLink) -> Vec<u64> {
    let mut v = vec![];
    for (id, at) in &rsp.delivered {
        let Ok(nak) = nicgen_model::parse(&rsp.frames[*id].1) else { continue };
        if nak.hdr.bth.opcode != nicgen_model::opcode::ACK || nak.hdr.aeth.map(|a| a.syndrome) != Some(syndrome::NAK_PSN_SEQ) {
            continue;
        }
        // the requester's frames are in time order: look only at those that left after it
        let from = req.frames.partition_point(|(c, _)| c <= at);
        let next = req.frames[from..].iter().find(|(_, f)| nicgen_model::parse(f).is_ok_and(|p| p.hdr.bth.opcode <= nicgen_model::opcode::READ_REQUEST && p.hdr.bth.psn == nak.hdr.bth.psn));
        if let Some((c, _)) = next {
            v.push(c - at);
        }
    }
    v
}

/// Jain's fairness index: (Σx)² / (n Σx²); 1 when all are equal.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 { 0.0 } else { s * s / (x.len() as f64 * s2) }
}

/// The 100G payload ceiling (bytes per ns) for a PMTU: payload / (payload + headers + ICRC +
/// FCS + preamble/IFG) of full packets, IPv4.
pub fn payload_ceiling(pmtu: usize) -> f64 {
    let overhead = 14 + 20 + 8 + 12 + 4 + 4 + 20;
    12.5 * pmtu as f64 / (pmtu + overhead) as f64
}

/// MAC and IPv4 addresses of node A (0) and node B (1).
pub const MAC: [u64; 2] = [0x02_00_00_00_00_0a, 0x02_00_00_00_00_0b];
pub const IP: [u32; 2] = [0x0a00_0001, 0x0a00_0002];
const MR_BASE: u64 = 0x1_0000_0000;

/// One verilated engine with its host memory, DMA model, SQ/CQ agents and control master.
pub struct Node {
    pub sim: VerilatorSim,
    pub mem: HostMem,
    pub dma: DmaPort,
    /// The retransmission buffer's card memory (an HBM pseudo-channel).
    pub rb: CardMem,
    pub sq: ChanDriver,
    /// RECVs for the receive queues.
    pub recv: ChanDriver,
    pub cq: ChanMonitor,
    /// The completions seen on `cq` so far, split: of work requests sent (`done`) and of RECVs
    /// (`recvs`), each with its cycle ([`Node::sort_cq`]).
    pub done: Vec<(u64, CqEntryFields)>,
    pub recvs: Vec<(u64, CqEntryFields)>,
    pub axil: AxilMaster,
}

fn build_engine(table_qps: usize, svc: usize) -> Result<VerilatorSim> {
    use rust_hdl::prelude::Block;
    // The Verilog of each engine variant is generated once per process (it takes rust-hdl
    // about a second); Verilator's own cache then finds the built model.
    type Gen = (String, Vec<nicgen_sim::PortInfo>);
    static MADE: std::sync::Mutex<Vec<((usize, usize), Gen)>> = std::sync::Mutex::new(Vec::new());
    let key = (table_qps, svc);
    if let Some((_, (v, ports))) = MADE.lock().unwrap().iter().find(|(k, _)| *k == key) {
        return VerilatorSim::build(v, "roce_engine", ports.clone(), "clock", &VerilatorOptions::from_env());
    }
    struct G;
    impl nicgen_hw::roce::engine::WithEngine for G {
        type Out = Gen;
        fn with<T: Block>(self, mut e: T) -> Gen {
            e.connect_all();
            (verilog_named(&e, "roce_engine"), top_ports(&e))
        }
    }
    let (v, ports) = match key {
        (500, k) => nicgen_hw::roce::engine::engine_with(k, G),
        (4096, 0) => G.with(RoceEngine4k::new(4096)),
        (n, _) => bail!("no engine with {n} QPs and services is built here (500 or 4096 QPs, or 500 with services)"),
    };
    MADE.lock().unwrap().push((key, (v.clone(), ports.clone())));
    VerilatorSim::build(&v, "roce_engine", ports, "clock", &VerilatorOptions::from_env())
}

/// The services of an engine nobody chose services for: `NICGEN_SERVICES` (e.g. `aes,dpi`;
/// 500-QP engines only), so the RC engine's tests run unchanged on any composition
/// (`scripts/compose.sh`); none when it is unset.
pub fn env_services(table_qps: usize) -> usize {
    match std::env::var("NICGEN_SERVICES") {
        Ok(s) if table_qps == 500 => nicgen_hw::service::aes_ctr::kind::parse(&s).unwrap_or_else(|e| panic!("NICGEN_SERVICES: {e}")),
        _ => 0,
    }
}

impl Node {
    pub fn new(dma: DmaParams, seed: u64, table_qps: usize) -> Result<Self> {
        Self::with_services(dma, seed, table_qps, env_services(table_qps))
    }
    /// A node whose engine has the services `svc` (bits of `service::aes_ctr::kind`), or none
    /// (0: no slots and no tap in the data path).
    pub fn with_services(dma: DmaParams, seed: u64, table_qps: usize, svc: usize) -> Result<Self> {
        let mut sim = build_engine(table_qps, svc)?;
        sim.reset(4);
        let dma = DmaPort::new(&sim, dma, seed);
        let rb = CardMem::new(&sim, "m_axi_rb", CardParams::default(), seed + 4);
        let sq = ChanDriver::new(&sim, "sq", 100, seed + 1);
        let cq = ChanMonitor::new(&sim, "cq", 100, seed + 2);
        let recv = ChanDriver::new(&sim, "recv", 100, seed + 5);
        let axil = AxilMaster::new(&sim, "s_axil_ctrl", 100, seed + 3);
        axil.idle(&mut sim);
        Ok(Node { sim, mem: HostMem::default(), dma, rb, sq, recv, cq, done: vec![], recvs: vec![], axil })
    }
    /// Move the completions `cq` saw since the last call into `done` and `recvs`.
    pub fn sort_cq(&mut self) {
        let seen = self.done.len() + self.recvs.len();
        for (cyc, w) in &self.cq.seen[seen..] {
            let c = CqEntryFields::from_words(w);
            if c.recv {
                self.recvs.push((*cyc, c));
            } else {
                self.done.push((*cyc, c));
            }
        }
    }
    pub fn write(&mut self, addr: u16, v: u32) -> Result<()> {
        let r = self.axil.write(&mut self.sim, addr, v, 0xf);
        if r != 0 {
            bail!("AXI4-Lite write of {v:#x} to {addr:#x} answered {r}");
        }
        Ok(())
    }
    pub fn read(&mut self, addr: u16) -> u32 {
        self.axil.read(&mut self.sim, addr).0
    }
    fn write_words(&mut self, base: u16, w: &[u32]) -> Result<()> {
        for (i, x) in w.iter().enumerate() {
            self.write(base + 4 * i as u16, *x)?;
        }
        Ok(())
    }
    /// Local MAC and IP of node `me` (0 = A, 1 = B).
    pub fn setup(&mut self, me: usize) -> Result<()> {
        self.write(reg::LOCAL_MAC_LO, MAC[me] as u32)?;
        self.write(reg::LOCAL_MAC_HI, (MAC[me] >> 32) as u32)?;
        self.write(reg::LOCAL_IP, IP[me])?;
        Ok(())
    }
    /// Set a QP up through `s_axil_ctrl`.
    pub fn qp(&mut self, qpn: u32, cfg: &QpCfgFields, rq: &QpRqFields, sq_psn: u32) -> Result<()> {
        self.write_words(STAGE_CFG, &cfg.to_words())?;
        self.write_words(STAGE_RQ, &rq.to_words())?;
        self.write(STAGE_SQ_PSN, sq_psn)?;
        self.write(reg::QP_SEL, qpn)?;
        self.write(reg::QP_CMD, reg::CMD_WRITE)?;
        for _ in 0..100 {
            if self.read(reg::QP_CMD) & 1 == 0 {
                return Ok(());
            }
        }
        bail!("QP {qpn} setup never finished");
    }
    /// Store `key` in AES key slot `slot` (both payload slots take it).
    pub fn aes_key(&mut self, slot: u8, key: &Key) -> Result<()> {
        self.write_words(reg::SVC_BASE + aes::reg::KEY_W0 as u16, &key.words())?;
        self.write(reg::SVC_BASE + aes::reg::KEY_CMD as u16, slot as u32 | (key.is_256() as u32) << 8)
    }
    /// Set a QP's AES context: encryption on with key `key_id`, the connection side bit, the
    /// peer's QPN and generation. A setup advances the QP's own generation, which it returns;
    /// `keep` updates the context (the peer's generation, once known) without advancing it.
    pub fn aes_qp(&mut self, qpn: u32, key_id: u8, side: bool, peer_qpn: u32, peer_gen: u32, keep: bool) -> Result<u32> {
        let b = reg::SVC_BASE;
        self.write(b + aes::reg::QP_KEY as u16, key_id as u32 | 1 << 8 | (side as u32) << 9)?;
        self.write(b + aes::reg::QP_PEER_QPN as u16, peer_qpn)?;
        self.write(b + aes::reg::QP_PEER_GEN as u16, peer_gen)?;
        self.write(b + aes::reg::QP_CMD as u16, qpn | (keep as u32) << 31)?;
        Ok(self.read(b + aes::reg::QP_GEN as u16))
    }
    /// Bind a QP to a DLRM operation (RX slot).
    pub fn dlrm_qp(&mut self, qpn: u32, op: u8) -> Result<()> {
        self.write(reg::SVC_BASE + nicgen_hw::service::dlrm::reg::QP_OP as u16, qpn | (op as u32) << 24)
    }
    /// The DLRM modulus and its reciprocal.
    pub fn dlrm_mod(&mut self, m: u32) -> Result<()> {
        for (a, v) in nicgen_hw::service::dlrm::mod_writes(m) {
            self.write(reg::SVC_BASE + a as u16, v)?;
        }
        Ok(())
    }
    /// The DPI policy of a QP (`nicgen_model::dpi::verdict`).
    pub fn dpi_policy(&mut self, qpn: u32, policy: u8) -> Result<()> {
        let (a, v) = nicgen_hw::service::dpi::policy_write(qpn, policy);
        self.write(reg::SVC_BASE + a as u16, v)
    }
    /// Every counter of the register map, in [`ENGINE_COUNTERS`] order.
    pub fn counters(&mut self) -> Vec<u64> {
        (0..ENGINE_COUNTERS.len()).map(|i| self.read(4 * i as u16) as u64).collect()
    }
}

/// The sniffer (`nicgen_hw::service::sniffer`) at node A's MAC: it watches A's TX and RX
/// streams beat by beat, and its capture records drain into a monitor.
pub struct SniffAt {
    pub sim: VerilatorSim,
    taps: [(AxisPorts, AxisPorts); 2],
    mon: AxisMonitor,
    pub opts: SniffOpts,
}

/// Where the sniffer writes, and how it is set.
#[derive(Clone, Debug)]
pub struct SniffOpts {
    pub path: PathBuf,
    pub snap: u16,
    pub filter: nicgen_model::sniff::Filter,
}

impl SniffAt {
    pub fn new(node: &VerilatorSim, opts: SniffOpts) -> Result<Self> {
        use nicgen_hw::service::sniffer::{setup_writes, Sniffer512};
        let mut sim = verilate(&mut Sniffer512::default());
        sim.reset(2);
        let mut axil = AxilMaster::new(&sim, "s_axil", 100, 1);
        axil.idle(&mut sim);
        for (a, v) in setup_writes(&opts.filter, opts.snap) {
            if axil.write(&mut sim, a, v, 0xf) != 0 {
                bail!("sniffer register {a:#x} refused a write");
            }
        }
        let taps = [
            (AxisPorts::find(node, "s_axis_rx"), AxisPorts::find(&sim, "tap_rx")),
            (AxisPorts::find(node, "m_axis_tx"), AxisPorts::find(&sim, "tap_tx")),
        ];
        let mon = AxisMonitor::new(&sim, "m_axis_cap", 100, 1);
        Ok(SniffAt { sim, taps, mon, opts })
    }
    /// One cycle: copy what A's MAC streams carry (after A's `eval`) onto the taps. The RX
    /// side is a CMAC's, which has no `tready`: every beat offered is taken.
    pub fn watch(&mut self, node: &mut VerilatorSim) {
        for (i, (from, to)) in self.taps.iter().enumerate() {
            self.sim.set(to.tdata, &node.get_words(from.tdata));
            self.sim.set(to.tkeep, &node.get_words(from.tkeep));
            self.sim.set_bit(to.tlast, node.get_bit(from.tlast));
            self.sim.set_bit(to.tuser.unwrap(), from.tuser.is_some_and(|u| node.get_bit(u)));
            self.sim.set_bit(to.tvalid, node.get_bit(from.tvalid));
            let ready = i == 0 || from.tready.is_some_and(|r| node.get_bit(r));
            self.sim.set_bit(to.tready.unwrap(), ready);
        }
        self.step();
    }
    fn step(&mut self) {
        self.mon.drive(&mut self.sim);
        self.sim.eval();
        self.mon.sample(&mut self.sim);
        self.sim.tick();
    }
    /// Stop watching, drain the records, write the PCAPNG, and check each direction against
    /// the frames the link model saw cross A's MAC (`tx`: what A sent; `rx`: what reached A).
    /// Returns records per direction and records lost for room.
    pub fn finish(&mut self, rx: &[Vec<u8>], tx: &[Vec<u8>]) -> Result<([usize; 2], u32)> {
        use nicgen_model::sniff::*;
        for (_, to) in &self.taps {
            self.sim.set_bit(to.tvalid, false);
        }
        let mut quiet = 0;
        while quiet < 20 {
            self.step();
            quiet = if self.sim.get_bit(self.mon.ports.tvalid) { 0 } else { quiet + 1 };
        }
        let bytes: Vec<u8> = self.mon.frames.iter().flat_map(|f| f.data.clone()).collect();
        let recs = parse_records(&bytes)?;
        write_pcapng(&self.opts.path, &recs, self.opts.snap as u32)?;
        let mut n = [0usize; 2];
        let mut lost = 0;
        for (dir, frames) in [(DIR_RX, rx), (DIR_TX, tx)] {
            let mine: Vec<&Record> = recs.iter().filter(|r| r.dir == dir).collect();
            let ck = check_records(&mine, frames, &self.opts.filter, self.opts.snap).map_err(|e| anyhow::anyhow!("sniffer, {}: {e}", ["RX", "TX"][dir as usize]))?;
            n[dir as usize] = ck.captured;
            lost += ck.lost;
        }
        Ok((n, lost))
    }
}

/// One cycle of the two-node system: drive both engines' host models and links, evaluate,
/// sample, clock. `posted[s][i]` gets the cycle node `s`'s SQ accepted its work request `i`.
fn step(a: &mut Node, b: &mut Node, ab: &mut MacLink, ba: &mut MacLink, posted: &mut [Vec<u64>; 2], sniff: &mut Option<SniffAt>, threads: bool) {
    for x in [&mut *a, &mut *b] {
        x.dma.drive(&mut x.sim);
        x.rb.drive(&mut x.sim);
        x.sq.drive(&mut x.sim);
        x.recv.drive(&mut x.sim);
        x.cq.drive(&mut x.sim);
    }
    ab.drive_tx(&mut a.sim);
    ba.drive_tx(&mut b.sim);
    ab.drive_rx(&mut b.sim);
    ba.drive_rx(&mut a.sim);
    pair_step(&mut a.sim, &mut b.sim, false, threads);
    if let Some(s) = sniff {
        s.watch(&mut a.sim);
    }
    for (x, posted) in [&mut *a, &mut *b].into_iter().zip(posted.iter_mut()) {
        x.dma.sample(&mut x.sim, &mut x.mem);
        x.rb.sample(&mut x.sim);
        if x.sq.sample(&mut x.sim) {
            if let Some(p) = posted.get_mut(x.sq.sent as usize - 1) {
                *p = x.sim.cycle();
            }
        }
        x.recv.sample(&mut x.sim);
        if x.cq.sample(&mut x.sim) {
            x.sort_cq();
        }
    }
    ab.sample(&mut a.sim, &mut b.sim);
    ba.sample(&mut b.sim, &mut a.sim);
    pair_step(&mut a.sim, &mut b.sim, true, threads);
}

pub fn rdma(o: &RdmaOpts) -> Result<RdmaReport> {
    let mut rng = Rng::new(o.seed);
    use nicgen_hw::service::aes_ctr::kind;
    let svc = o.services.unwrap_or(if o.aes || o.dlrm.is_some() || o.dpi.is_some() { kind::ALL } else { env_services(o.table_qps) });
    for (on, k) in [(o.aes, kind::AES), (o.dlrm.is_some(), kind::DLRM), (o.dpi.is_some(), kind::DPI)] {
        if on && svc & k == 0 {
            bail!("the engine's services ({}) lack {}", kind::name(svc), kind::name(k));
        }
    }
    let mut n = [Node::with_services(o.dma, o.seed, o.table_qps, svc)?, Node::with_services(o.dma, o.seed + 100, o.table_qps, svc)?];
    for node in n.iter_mut() {
        node.rb.p = o.card;
    }
    for (i, node) in n.iter_mut().enumerate() {
        node.setup(i)?;
        if let Some(t) = o.tx_start {
            node.write(reg::TX_START, t as u32)?;
        }
        if let Some(c) = o.rx_cut {
            node.write(reg::RX_CUT, c as u32)?;
        }
    }
    // QP q on A (QPN q+1, or the top QPNs of a 4096 table) talks to QP q on B (QPN q+251).
    // Beyond 249 QPs: A counts down from the table's top QPN and B up from QPN 2 (QPNs 0 and 1
    // are the special QPs of IBA), so up to table - 2 QPs.
    let t = o.table_qps;
    if o.qps == 0 || o.qps > t - 2 {
        bail!("{} QPs: this scenario sets up 1 to {} on a {t}-QP table", o.qps, t - 2);
    }
    let big = t > 500;
    let many = o.qps > 249;
    let qpn = move |side: usize, q: usize| {
        if many {
            if side == 0 { (t - 1 - q) as u32 } else { (2 + q) as u32 }
        } else if big {
            (4095 - q - 250 * side) as u32
        } else {
            (q + 1 + 250 * side) as u32
        }
    };
    let mut psn = [vec![0u32; o.qps], vec![0u32; o.qps]];
    for q in 0..o.qps {
        for side in 0..2 {
            psn[side][q] = rng.below(1 << 24) as u32;
            if let Some(p) = o.first_psn {
                psn[side][q] = p & 0xff_ffff;
            }
        }
        for side in 0..2 {
            let other = 1 - side;
            let cfg = QpCfgFields {
                pmtu: o.pmtu,
                remote_qpn: qpn(other, q),
                remote_ip: IP[other] as u128,
                remote_mac: MAC[other],
                udp_sport: 49152 + q as u16,
                pkey: 0xffff,
                ttl: 64,
                rkey: 0x1000 + q as u32,
                mr_base: MR_BASE,
                mr_len: 1 << 40,
                access: access::REMOTE_READ | access::REMOTE_WRITE,
                timeout: o.timeout,
                retry_cnt: o.retry_cnt,
                min_rnr_timer: 1,
                rnr_retry: 7,
                ..Default::default()
            };
            let rq = QpRqFields { state: state::RTS, rq_expected_psn: psn[other][q], ..Default::default() };
            n[side].qp(qpn(side, q), &cfg, &rq, psn[side][q])?;
        }
    }
    // AES-CTR: a key per QP pair in both engines; A sets its QP up first, B with A's
    // generation, then A learns B's (a connection manager's exchange)
    let mut keys = vec![];
    let mut gens = [vec![0u32; o.qps], vec![0u32; o.qps]];
    if o.aes {
        for q in 0..o.qps {
            let key = if q % 2 == 0 { Key::Aes128(rng.bytes(16).try_into().unwrap()) } else { Key::Aes256(rng.bytes(32).try_into().unwrap()) };
            for node in n.iter_mut() {
                node.aes_key((q % 256) as u8, &key)?;
            }
            keys.push(key);
            let kid = (q % 256) as u8;
            gens[0][q] = n[0].aes_qp(qpn(0, q), kid, false, qpn(1, q), 0, false)?;
            gens[1][q] = n[1].aes_qp(qpn(1, q), kid, true, qpn(0, q), gens[0][q], false)?;
            let g = n[0].aes_qp(qpn(0, q), kid, false, qpn(1, q), gens[1][q], true)?;
            if g != gens[0][q] {
                bail!("QP {}: an update without a new generation changed it from {} to {g}", qpn(0, q), gens[0][q]);
            }
        }
    }
    if let Some((op, m)) = o.dlrm {
        for q in 0..o.qps {
            n[0].dlrm_qp(qpn(0, q), op)?;
        }
        n[0].dlrm_mod(m)?;
    }
    let dpi_qps = if o.dpi_qps == 0 { o.qps } else { o.dpi_qps };
    if let Some((policy, mask)) = o.dpi {
        for q in 0..o.qps {
            n[0].dpi_policy(qpn(0, q), if q < dpi_qps { policy } else { nicgen_model::dpi::verdict::PASS })?;
        }
        n[0].write(reg::SVC_BASE + nicgen_hw::service::dpi::reg::CLASS_MASK as u16, mask as u32)?;
    }
    // work: A posts every message, signaled; with `b_op`, B posts as many to A
    let stride = (o.size as u64).div_ceil(4096) * 4096 + 4096;
    let mut wrs: [Vec<SqWrFields>; 2] = [vec![], vec![]];
    // the RECVs each side posts, per QP, in order
    let mut recvs: [Vec<std::collections::VecDeque<RecvWrFields>>; 2] = [vec![Default::default(); o.qps], vec![Default::default(); o.qps]];
    for (side, kind) in [(0, Some(o.op)), (1, o.b_op)] {
        let Some(kind) = kind else { continue };
        for k in 0..o.count {
            let q = k % o.qps;
            let op = match kind {
                Op::Write => wr_op::WRITE,
                Op::Read => wr_op::READ,
                Op::Mixed => if rng.chance(50) { wr_op::WRITE } else { wr_op::READ },
                Op::Send => wr_op::SEND,
                Op::MixedAll => [wr_op::WRITE, wr_op::READ, wr_op::SEND][rng.below(3) as usize],
            };
            let laddr = 0x2_0000_0000 + k as u64 * stride;
            let raddr = MR_BASE + 0x1000_0000 + k as u64 * stride;
            let len = if o.random_size {
                match rng.below(4) {
                    0 => rng.range(1, 65),
                    1 => rng.range(1, 9000),
                    _ => rng.range(1, o.size as u64 + 1),
                }.min(o.size as u64) as usize
            } else {
                o.size
            };
            let data = rng.bytes(len);
            if op == wr_op::READ {
                n[1 - side].mem.write(raddr, &data);
            } else {
                n[side].mem.write(laddr, &data);
            }
            if op == wr_op::SEND {
                // the peer's RECV for it: at the destination, as long as it or (random sizes)
                // up to 64 bytes longer
                let room = if o.random_size { rng.below(65) as u32 } else { 0 };
                recvs[1 - side][q].push_back(RecvWrFields { qpn: qpn(1 - side, q), wr_id: k as u32, addr: raddr, len: len as u32 + room });
            }
            wrs[side].push(SqWrFields { wr_id: k as u32, op, qpn: qpn(side, q), laddr, raddr, rkey: 0x1000 + q as u32, len: len as u32, signaled: true });
        }
    }
    let before = [n[0].counters(), n[1].counters()];
    let mut pushed = [0usize; 2];
    let [a, b] = &mut n;
    if let Err(e) = o.faults.check() {
        bail!("{e}");
    }
    let mut ab = MacLink::new(&a.sim, &b.sim).with_faults(o.faults, o.seed ^ 0xab);
    let mut ba = MacLink::new(&b.sim, &a.sim).with_faults(o.faults, o.seed ^ 0xba);
    ab.script = o.script[0].clone();
    ab.stall = o.stall_qp.map(|(q, until)| (qpn(1, q), until));
    ba.script = o.script[1].clone();
    ba.keep_arrived = o.sniff.is_some() || o.dpi.is_some();
    let mut sniff = match &o.sniff {
        Some(so) => Some(SniffAt::new(&a.sim, so.clone())?),
        None => None,
    };
    let threads = o.threads.unwrap_or_else(pair_threads_default);
    let scripted = !o.script[0].is_empty() || !o.script[1].is_empty() || o.stall_qp.is_some();
    let start = a.sim.cycle();
    let mut progress = (0usize, start);
    // a hang: no completion for long (8 timeouts at the QPs' timer, or a million cycles)
    let quiet = (1_000_000u64).max(9 * (1024u64 << o.timeout.min(21)));
    let mut posted = [vec![0u64; wrs[0].len()], vec![0u64; wrs[1].len()]];
    let total = wrs[0].len() + wrs[1].len();
    let mut last_report = start;
    let wall = std::time::Instant::now();
    // RECVs: each QP's ring is kept as full as it goes (at most RECV_RING posted and not yet
    // completed), from the start
    let want_recvs = [recvs[0].clone(), recvs[1].clone()];
    let mut recv_open = [vec![0usize; o.qps], vec![0usize; o.qps]];
    let mut recv_seen = [0usize; 2];
    let qp_index = |side: usize, qpn_wanted: u32| (0..o.qps).find(|&q| qpn(side, q) == qpn_wanted);
    while a.done.len() < wrs[0].len() || b.done.len() < wrs[1].len() {
        for (side, x) in [&mut *a, &mut *b].into_iter().enumerate() {
            for (_, c) in &x.recvs[recv_seen[side]..] {
                if let Some(q) = qp_index(side, c.qpn) {
                    recv_open[side][q] -= 1;
                }
            }
            recv_seen[side] = x.recvs.len();
            for q in (0..o.qps).filter(|_| x.sim.cycle() - start >= o.recv_delay) {
                while recv_open[side][q] < RECV_RING {
                    let Some(r) = recvs[side][q].pop_front() else { break };
                    x.recv.push(r.to_words());
                    recv_open[side][q] += 1;
                }
            }
            while pushed[side] < wrs[side].len() && (o.outstanding == 0 || pushed[side] - x.done.len() < o.outstanding) {
                x.sq.push(wrs[side][pushed[side]].to_words());
                pushed[side] += 1;
            }
        }
        step(a, b, &mut ab, &mut ba, &mut posted, &mut sniff, threads);
        let done = a.done.len() + b.done.len();
        if done != progress.0 {
            progress = (done, a.sim.cycle());
        }
        if a.sim.cycle() > progress.1 + quiet {
            let (ca, cb) = (a.counters(), b.counters());
            let nz: Vec<String> = ENGINE_COUNTERS.iter().enumerate().filter(|(i, _)| ca[*i] > 0 || cb[*i] > 0).map(|(i, (n, _))| format!("{n} {}/{}", ca[i], cb[i])).collect();
            let done: Vec<u32> = a.done.iter().map(|(_, c)| c.wr_id).collect();
            bail!("no progress: {} of {} completions at A, {} of {} at B after {} cycles (A completed {:?}); counters A/B: {}", a.done.len(), wrs[0].len(), b.done.len(), wrs[1].len(), a.sim.cycle() - start, done, nz.join(", "));
        }
        if o.verbose && a.sim.cycle() - last_report >= 1_000_000 {
            last_report = a.sim.cycle();
            eprintln!("  … {} of {} messages complete", a.done.len() + b.done.len(), total);
        }
    }
    let end = a.sim.cycle();
    let sim_secs = wall.elapsed().as_secs_f64();
    // let the last DMA writes land (the SQs are empty by now)
    for _ in 0..2000 {
        step(a, b, &mut ab, &mut ba, &mut posted, &mut sniff, threads);
    }
    let mut r = RdmaReport { messages: total, cycles: end - start, sim_secs, cycles_per_sec: (end - start) as f64 / sim_secs, faults: [ab.counts, ba.counts], ..Default::default() };
    r.nak_to_rtx = nak_to_rtx(&ab, &ba);
    r.nak_to_rtx.extend(nak_to_rtx(&ba, &ab));
    let w0 = &wrs[0];
    if let Some((c0, _)) = ab.frames.first() {
        let fetch = if w0[0].op != wr_op::READ && w0[0].len > 0 { o.dma.rd_latency as i64 } else { 0 };
        r.tx_latency = *c0 as i64 - posted[0][0] as i64 - fetch;
    }
    // the data of A's last message goes A→B for a WRITE, B→A for a READ
    let last_is_write = w0.last().is_some_and(|w| w.op != wr_op::READ);
    let (arr, dst_write) = if last_is_write { (ab.arrivals.last(), b.dma.last_write) } else { (ba.arrivals.last(), a.dma.last_write) };
    if let Some(t) = arr {
        r.rx_latency = dst_write as i64 - *t as i64;
    }
    // verify every byte and every completion, of both sides
    let mut lat = vec![];
    let names = ["A", "B"];
    for (side, x) in [&*a, &*b].into_iter().enumerate() {
        for (i, (cyc, c)) in x.done.iter().enumerate() {
            r.by_status[(c.status as usize).min(6)] += 1;
            if c.status != cq_status::SUCCESS {
                r.errors.push(format!("completion {i} at {}: WR {} status {}", names[side], c.wr_id, c.status));
            }
            if let Some(p) = posted[side].get(c.wr_id as usize) {
                lat.push(cyc - p);
            }
        }
    }
    for (side, list) in wrs.iter().enumerate() {
        let (me, peer) = if side == 0 { (&*a, &*b) } else { (&*b, &*a) };
        for w in list {
            let len = w.len as usize;
            let (mut src, dst) = if w.op != wr_op::READ { (me.mem.read(w.laddr, len), peer.mem.read(w.raddr, len)) } else { (peer.mem.read(w.raddr, len), me.mem.read(w.laddr, len)) };
            // data that reached A went through A's DLRM slot: whole 32-bit lanes from the
            // message's start are transformed, a partial last lane passes
            let to_a = (side == 0) == (w.op == wr_op::READ);
            if let (true, Some((op, m))) = (to_a, o.dlrm) {
                let rcp = nicgen_model::dlrm::mod_magic(m);
                for c in src.chunks_exact_mut(4) {
                    let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    let y = nicgen_model::dlrm::lane(op, x, m, rcp);
                    r.dlrm_lanes += 1;
                    r.dlrm_changed += (y != x) as usize;
                    c.copy_from_slice(&y.to_le_bytes());
                }
            }
            if src != dst {
                r.mismatches += 1;
                if r.errors.len() < 10 {
                    let at = src.iter().zip(&dst).position(|(x, y)| x != y).unwrap_or(0);
                    r.errors.push(format!("WR {} of {} ({}): destination differs from source at byte {at}", w.wr_id, names[side], op_name(w.op)));
                }
            }
            r.bytes += len as u64;
        }
    }
    // every RECV completes once, in its QP's order, with its SEND's length
    for (side, x) in [&*a, &*b].into_iter().enumerate() {
        let mut want: Vec<std::collections::VecDeque<RecvWrFields>> = want_recvs[side].clone();
        for (_, c) in &x.recvs {
            let Some(q) = qp_index(side, c.qpn) else {
                r.errors.push(format!("receive completion at {} for QP {}, which posted no RECV", names[side], c.qpn));
                continue;
            };
            let sent = wrs[1 - side].get(c.wr_id as usize).map_or(u32::MAX, |w| w.len);
            match want[q].pop_front() {
                Some(w) if w.wr_id == c.wr_id && c.status == cq_status::SUCCESS && c.byte_len == sent && c.op == wr_op::SEND => {}
                w => r.errors.push(format!("receive completion at {} {c:?}, expected RECV {:?} filled with {sent} bytes", names[side], w.map(|w| w.wr_id))),
            }
        }
        let left: usize = want.iter().map(|w| w.len()).sum();
        if left > 0 {
            r.errors.push(format!("{left} RECVs at {} never completed", names[side]));
        }
        r.recv_completions += x.recvs.len();
    }
    for x in [&*a, &*b] {
        r.errors.extend(x.dma.errors.iter().cloned());
        r.errors.extend(x.rb.errors.iter().map(|e| format!("retransmission buffer: {e}")));
    }
    if ab.underruns + ba.underruns > 0 {
        r.errors.push(format!("a frame had a gap on the way to the MAC {} times (underrun)", ab.underruns + ba.underruns));
    }
    if ab.rx_refused + ba.rx_refused > 0 {
        r.errors.push(format!("the RX side pushed back on the MAC {} times", ab.rx_refused + ba.rx_refused));
    }
    // per-QP goodput: each QP pair, each posting side
    let (mut qbytes, mut qlast) = (vec![0u64; 2 * o.qps], vec![0u64; 2 * o.qps]);
    for (side, x) in [&*a, &*b].into_iter().enumerate() {
        for (cyc, c) in &x.done {
            if let Some(wr) = wrs[side].get(c.wr_id as usize) {
                let q = side * o.qps + c.wr_id as usize % o.qps;
                qbytes[q] += wr.len as u64;
                qlast[q] = qlast[q].max(cyc - start);
            }
        }
    }
    let sides = if wrs[1].is_empty() { 1 } else { 2 };
    qbytes.truncate(sides * o.qps);
    // the link directions that carry data: A→B for A's WRITEs and B's READs, B→A otherwise
    let mut dirs = [false; 2];
    for (side, list) in wrs.iter().enumerate() {
        for w in list {
            dirs[(side + (w.op == wr_op::READ) as usize) % 2] = true;
        }
    }
    let dirs = dirs.iter().filter(|d| **d).count().max(1);
    r.per_qp_gbps = qbytes.iter().zip(&qlast).map(|(b, t)| *b as f64 / (*t.max(&1) as f64 * NS_PER_CYCLE)).collect();
    r.jain = jain(&r.per_qp_gbps);
    r.per_qp_bytes = qbytes.clone();
    r.per_qp_last = qlast[..qbytes.len()].to_vec();
    lat.sort();
    r.lat_mean = lat.iter().sum::<u64>() as f64 / lat.len().max(1) as f64;
    r.lat_p99 = lat.get((lat.len() * 99).div_ceil(100).saturating_sub(1)).copied().unwrap_or(0);
    let ns = r.cycles as f64 * NS_PER_CYCLE;
    r.goodput_gbps = r.bytes as f64 / ns;
    // of the ceiling of every link direction that carries data
    r.ceiling_frac = r.goodput_gbps / (dirs as f64 * payload_ceiling(pmtu_bytes(o.pmtu)));
    r.frames = ab.frames.len() + ba.frames.len();
    let data_frames = if sides == 2 { ab.frames.len() + ba.frames.len() } else if o.op == Op::Read { ba.frames.len() } else { ab.frames.len() };
    r.mpps = data_frames as f64 / ns * 1000.0;
    let after = [a.counters(), b.counters()];
    r.tx_start_after = [a.read(reg::TX_START), b.read(reg::TX_START)];
    for (i, (name, _)) in ENGINE_COUNTERS.iter().enumerate() {
        r.counters.push((name.to_string(), after[0][i] - before[0][i], after[1][i] - before[1][i]));
    }
    // counters that must stay 0: always, and when no fault is injected (with faults, the RX
    // buffer may overflow under floods of duplicates of tiny frames: counted, and recovered)
    let never = ["resp_unknown_qp", "resp_qp_error", "resp_malformed", "resp_bad_opcode_seq", "resp_length_error", "resp_rkey_violation", "req_nak_fatal", "req_bad_response", "slot_overrun"];
    // a frame aborted by a TX underrun is lost like a dropped one: the loss counters may move
    // (so is a SEND answered RNR NAK: the packets after it go again)
    let lossy = o.faults.any() || scripted || ab.aborted + ba.aborted > 0 || o.recv_delay > 0;
    let lossless = ["rx_drop_overflow", "req_replay_deferred", "req_ack_out_of_window", "rx_bad_icrc", "rx_truncated", "rx_bad_length", "rx_not_roce", "resp_duplicate", "resp_psn_out_of_window", "resp_naks", "req_nak_seq", "req_resp_unexpected", "req_ack_duplicate", "req_implied_nak", "req_timeouts", "req_replays", "tx_retransmits", "resp_read_replays", "tx_rb_reads"];
    for (name, x, y) in &r.counters {
        if (never.contains(&name.as_str()) || (!lossy && lossless.contains(&name.as_str()))) && (*x > 0 || *y > 0) {
            r.errors.push(format!("counter {name}: A {x}, B {y}"));
        }
    }
    // every frame the link saw aborted was counted by its sender
    let (ua, ub) = r.counter("tx_underruns");
    if (ua, ub) != (ab.aborted, ba.aborted) {
        r.errors.push(format!("TX underruns: counters A {ua}, B {ub}; the links saw {} and {} aborted frames", ab.aborted, ba.aborted));
    }
    // every corrupted or truncated frame is dropped by the receiver's checks, each counted once
    for (side, f) in [(1, ab.counts), (0, ba.counts)] {
        let dropped: u64 = ["rx_bad_icrc", "rx_truncated", "rx_bad_length", "rx_not_roce"].iter().map(|n| { let c = r.counter(n); if side == 0 { c.0 } else { c.1 } }).sum();
        if dropped != f.corrupted + f.truncated {
            r.errors.push(format!("node {}: {dropped} frames dropped as bad, {} corrupted and {} truncated on the way", names[side], f.corrupted, f.truncated));
        }
    }
    if o.aes {
        // no data packet on the wire, either way, carries a 16-byte piece of any plaintext;
        // every WRITE packet on the wire, decrypted by RustCrypto with the counter block the
        // model derives, equals the destination's bytes, and the wire itself differs from them
        let mut plain = std::collections::HashSet::new();
        for (side, list) in wrs.iter().enumerate() {
            let (me, peer) = if side == 0 { (&*a, &*b) } else { (&*b, &*a) };
            for w in list {
                let d = if w.op != wr_op::READ { me.mem.read(w.laddr, w.len as usize) } else { peer.mem.read(w.raddr, w.len as usize) };
                plain.extend(d.chunks_exact(16).map(|c| c.to_vec()));
            }
        }
        for (side, link) in [(0usize, &ab), (1, &ba)] {
            let peer = if side == 0 { &*b } else { &*a };
            let mut ext = vec![PsnExt::default(); o.qps];
            // each PSN's address, learned at its first transmission (a retransmitted MIDDLE or
            // LAST packet carries no RETH)
            let mut va = vec![0u64; o.qps];
            let mut at: std::collections::HashMap<(usize, u32), u64> = Default::default();
            for (_, f) in &link.frames {
                let Ok(p) = nicgen_model::roce::parse(f) else { continue };
                for c in p.payload.chunks_exact(16) {
                    r.aes_pieces_checked += 1;
                    if plain.contains(c) {
                        r.errors.push(format!("AES: plaintext on the wire in PSN {:#x} to QPN {}", p.hdr.bth.psn, p.hdr.bth.dqpn));
                        break;
                    }
                }
                let op = p.hdr.bth.opcode;
                if !(opcode::WRITE_FIRST..=opcode::WRITE_ONLY_IMM).contains(&op) || p.payload.is_empty() {
                    continue;
                }
                // the frame's destination QP is the other side's
                let Some(q) = qp_index(1 - side, p.hdr.bth.dqpn) else { continue };
                let first = !at.contains_key(&(q, p.hdr.bth.psn));
                if let (true, Some(reth)) = (first, p.hdr.reth) {
                    va[q] = reth.va;
                }
                let addr = *at.entry((q, p.hdr.bth.psn)).or_insert(va[q]);
                let (wrap, next) = ext[q].see(p.hdr.bth.psn);
                ext[q] = next;
                let ctx = QpCrypto { key_id: (q % 256) as u8, qpn: qpn(side, q), gen: gens[side][q], side: side == 1, peer_qpn: qpn(1 - side, q), peer_gen: gens[1 - side][q] };
                let mut plain = p.payload.clone();
                ctr_xor(&keys[q], ctx.block(false, false, wrap, p.hdr.bth.psn).iv(), &mut plain);
                let dst = peer.mem.read(addr, plain.len());
                if plain != dst || (p.payload.len() >= 8 && p.payload == dst) {
                    if r.errors.len() < 10 {
                        r.errors.push(format!("AES: WRITE packet PSN {:#x} to QPN {} does not decrypt to the destination (or is plaintext)", p.hdr.bth.psn, p.hdr.bth.dqpn));
                    }
                    r.mismatches += 1;
                }
                r.aes_checked += 1;
                if first {
                    va[q] = addr + plain.len() as u64;
                }
            }
        }
    }
    // DPI: the tap sees each frame that passed the ICRC check, without its ICRC; a frame takes
    // the policy of its QP (A's QPs have o.dpi's, others pass)
    if let Some((policy, mask)) = o.dpi {
        use nicgen_model::dpi::{frame_verdict, verdict, Net};
        let net = Net::builtin();
        let mine: Vec<u32> = (0..o.qps).map(|q| qpn(0, q) & 511).collect();
        let policed = |q: u32| mine.iter().position(|m| *m == q).is_some_and(|i| i < dpi_qps);
        // per QP of A, the flag of each READ's responses in order (a READ ends at a LAST or
        // ONLY response); `once`: no response arrived twice
        let mut reads: Vec<std::collections::VecDeque<bool>> = vec![Default::default(); o.qps];
        let mut cur = vec![false; o.qps];
        let mut seen = std::collections::HashSet::new();
        let mut once = true;
        for f in &ba.arrived {
            if !nicgen_model::check_icrc(f).is_ok_and(|v| v.ok()) {
                continue;
            }
            let body = &f[..f.len() - 4];
            let bth = nicgen_model::parse(f).map(|p| p.hdr.bth).ok();
            let q = bth.map(|b| b.dqpn & 511).unwrap_or(u32::MAX);
            let pol = if policed(q) { policy } else { verdict::PASS };
            let v = frame_verdict(&net, body, pol, mask);
            match v {
                verdict::FLAG => r.dpi_flagged += 1,
                verdict::DROP => r.dpi_dropped += 1,
                _ => {}
            }
            r.dpi_frames += 1;
            if let (Some(b), Some(i)) = (bth, mine.iter().position(|m| *m == q)) {
                use nicgen_model::opcode as op;
                if (op::READ_RESP_FIRST..=op::READ_RESP_ONLY).contains(&b.opcode) {
                    once &= seen.insert((i, b.psn)) && v != verdict::DROP;
                    cur[i] |= v == verdict::FLAG;
                    if b.opcode == op::READ_RESP_LAST || b.opcode == op::READ_RESP_ONLY {
                        reads[i].push_back(std::mem::take(&mut cur[i]));
                    }
                }
            }
        }
        // the CQ flag: a READ's completion at A carries it when one of its responses was
        // flagged; no other completion does
        r.dpi_cq_checked = once;
        for (side, x) in [&*a, &*b].into_iter().enumerate() {
            for (_, c) in &x.done {
                r.dpi_cq_flagged += (side == 0 && c.tap_flag) as u64;
                let want = if side == 0 && c.op == wr_op::READ && c.status == cq_status::SUCCESS && once {
                    reads[c.wr_id as usize % o.qps].pop_front().unwrap_or(false)
                } else {
                    c.tap_flag && side == 0 && c.op == wr_op::READ
                };
                if c.tap_flag != want {
                    r.errors.push(format!("DPI: completion of WR {} at {} ({}) has the tap flag {}, the model says {want}", c.wr_id, names[side], op_name(c.op), c.tap_flag));
                }
            }
        }
        let (flag, drop) = (r.counter("rx_tap_flag").0, r.counter("rx_tap_drop").0);
        if (flag, drop) != (r.dpi_flagged, r.dpi_dropped) {
            r.errors.push(format!("DPI at A: flagged {flag}, dropped {drop}; the model flags {} and drops {} of {} frames", r.dpi_flagged, r.dpi_dropped, r.dpi_frames));
        }
    }
    if let Some(s) = &mut sniff {
        let tx: Vec<Vec<u8>> = ab.frames.iter().map(|(_, f)| f.clone()).collect();
        match s.finish(&ba.arrived, &tx) {
            Ok((n, lost)) => {
                r.sniffed = n;
                r.sniff_lost = lost;
            }
            Err(e) => r.errors.push(format!("{e:#}")),
        }
    }
    if let Some(path) = &o.pcap {
        let mut caps: Vec<Captured> = ab.frames.iter().chain(ba.frames.iter()).map(|(c, f)| Captured { ts_ns: c * 4, data: f.clone() }).collect();
        caps.sort_by_key(|c| c.ts_ns);
        write_pcap(path, &caps)?;
    }
    Ok(r)
}
