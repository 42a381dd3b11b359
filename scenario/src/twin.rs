//! The twin: one verilated RoCE engine, with its host-memory and card-memory models, attached
//! to a Linux TAP device, so that real stacks (Linux rxe, perftest) reach it through a real
//! network interface.
//!
//! Frames cross in both directions without FCS. Simulated time runs continuously: the engine
//! is clocked whether or not frames arrive, so its timers keep counting. At 250 MHz one
//! simulated second takes far longer than one wall-clock second, so every engine timer fires
//! later in wall time than its nominal value, never earlier.
//!
//! The TAP side passes what a MAC's address filter passes (frames to the card's MAC and
//! broadcasts) to the engine, which answers ARP and ICMP echo itself
//! ([`nicgen_hw::roce::arp_icmp`]); peers are resolved through the engine's `ARP_WHO_HAS` and
//! neighbour registers.
use crate::rdma::Node;
use anyhow::{bail, Context, Result};
use nicgen_hw::roce::engine::reg;
use nicgen_model::pcap::Captured;
use nicgen_sim::axis::{AxisDriver, AxisFrame, AxisMonitor};
use nicgen_sim::host::DmaParams;
use nicgen_sim::CycleSim;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// A Linux TAP device opened by name (it must exist: `ip tuntap add NAME mode tap`), without
/// packet information, non-blocking.
pub struct Tap {
    fd: OwnedFd,
    pub name: String,
    /// The receive buffer, reused by every poll (the twin polls every 16 cycles).
    buf: Vec<u8>,
}

impl Tap {
    pub fn open(name: &str) -> Result<Tap> {
        if name.len() >= libc::IFNAMSIZ {
            bail!("interface name {name} is too long");
        }
        // SAFETY: plain system calls on a descriptor this function owns; `ifreq` is zeroed and
        // only its name and flags are set, as TUNSETIFF expects.
        unsafe {
            let fd = libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC);
            if fd < 0 {
                bail!("opening /dev/net/tun: {}", std::io::Error::last_os_error());
            }
            let fd = OwnedFd::from_raw_fd(fd);
            let mut ifr: libc::ifreq = std::mem::zeroed();
            for (d, s) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
                *d = s as libc::c_char;
            }
            ifr.ifr_ifru.ifru_flags = (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short;
            const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
            if libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &ifr) < 0 {
                bail!("attaching to TAP {name}: {}", std::io::Error::last_os_error());
            }
            Ok(Tap { fd, name: name.to_string(), buf: vec![0u8; 65536] })
        }
    }
    /// One frame, if one is waiting.
    pub fn recv(&mut self) -> Result<Option<Vec<u8>>> {
        // SAFETY: `buf` is valid for its length.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), self.buf.as_mut_ptr() as *mut libc::c_void, self.buf.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                return Ok(None);
            }
            bail!("reading {}: {e}", self.name);
        }
        Ok(Some(self.buf[..n as usize].to_vec()))
    }
    pub fn send(&self, f: &[u8]) -> Result<()> {
        // SAFETY: `f` is valid for its length.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), f.as_ptr() as *const libc::c_void, f.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            // a TAP whose other side is down refuses frames: the wire drops them
            if e.raw_os_error() == Some(libc::EIO) {
                return Ok(());
            }
            bail!("writing {}: {e}", self.name);
        }
        Ok(())
    }
}

const ETH_IPV4: u16 = 0x0800;
const ROCE_PORT: u16 = 4791;

/// What the twin's host side did with the frames it saw.
#[derive(Clone, Debug, Default)]
pub struct TwinCounts {
    pub from_wire: u64,
    pub to_engine: u64,
    pub from_engine: u64,
    /// Frames for another MAC address.
    pub ignored: u64,
    /// Frames dropped on purpose by the loss model (`TwinOpts::loss_pct`), each direction.
    pub lost_in: u64,
    pub lost_out: u64,
}

#[derive(Clone, Debug)]
pub struct TwinOpts {
    pub iface: String,
    pub ip: Ipv4Addr,
    pub mac: [u8; 6],
    /// Drop this many percent of the RoCE frames crossing the twin's side of the TAP, both
    /// ways (a lossy link), drawn from `seed`.
    pub loss_pct: u32,
    pub seed: u64,
    /// Keep every frame crossing the TAP (for `--pcap`).
    pub capture: bool,
}

/// One engine on a TAP device.
pub struct Twin {
    pub node: Node,
    rx: AxisDriver,
    tx: AxisMonitor,
    tap: Tap,
    pub opts: TwinOpts,
    pub counts: TwinCounts,
    /// Frames in both directions, stamped with the wall time since the twin started.
    pub captured: Vec<Captured>,
    /// RoCE frames from the wire (after the loss model) and from the engine, in order, with
    /// the cycle each entered or left the engine.
    pub roce_in: Vec<(u64, Vec<u8>)>,
    pub roce_out: Vec<(u64, Vec<u8>)>,
    tx_taken: usize,
    /// Frames from the wire not yet on the engine's RX stream, and the cycle the wire (100 Gb/s:
    /// 50 bytes a cycle at 250 MHz, with preamble and inter-frame gap) is free again.
    wire_in: std::collections::VecDeque<Vec<u8>>,
    wire_free: u64,
    /// The cycle the outgoing wire is free again: after each frame the engine sends, its
    /// `m_axis_tx` is held off for the rest of the frame's time at 100 Gb/s (between frames
    /// only, as a MAC would).
    wire_out_free: u64,
    start: Instant,
    rng: nicgen_sim::Rng,
}

/// A MAC as the engine's registers and QP records hold it (the low 48 bits).
pub fn mac_u64(m: &[u8; 6]) -> u64 {
    u64::from_be_bytes([0, 0, m[0], m[1], m[2], m[3], m[4], m[5]])
}

pub fn format_mac(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

impl Twin {
    pub fn new(opts: TwinOpts) -> Result<Twin> {
        let tap = Tap::open(&opts.iface)?;
        let mut node = Node::with_services(DmaParams { rd_latency: 250, ..Default::default() }, opts.seed, 500, 0)?;
        let mac = mac_u64(&opts.mac);
        node.write(reg::LOCAL_MAC_LO, mac as u32)?;
        node.write(reg::LOCAL_MAC_HI, (mac >> 32) as u32)?;
        node.write(reg::LOCAL_IP, u32::from(opts.ip))?;
        let rx = AxisDriver::new(&node.sim, "s_axis_rx", 100, opts.seed + 10);
        let tx = AxisMonitor::new(&node.sim, "m_axis_tx", 100, opts.seed + 11);
        let rng = nicgen_sim::Rng::new(opts.seed ^ 0x1055);
        Ok(Twin { node, rx, tx, tap, opts, counts: TwinCounts::default(), captured: vec![], roce_in: vec![], roce_out: vec![], tx_taken: 0, wire_in: Default::default(), wire_free: 0, wire_out_free: 0, start: Instant::now(), rng })
    }

    fn capture(&mut self, f: &[u8]) {
        if self.opts.capture {
            self.captured.push(Captured { ts_ns: self.start.elapsed().as_nanos() as u64, data: f.to_vec() });
        }
    }

    fn wire_out(&mut self, f: Vec<u8>) -> Result<()> {
        self.capture(&f);
        self.tap.send(&f)
    }

    /// One frame from the wire: to the engine when it is for the card's MAC or broadcast (the
    /// loss model drops RoCEv2 frames only), else ignored.
    fn take_from_wire(&mut self, f: Vec<u8>) -> Result<()> {
        self.counts.from_wire += 1;
        if f.len() < 14 || (f[0..6] != self.opts.mac && f[0..6] != [0xff; 6]) {
            self.counts.ignored += 1;
            return Ok(());
        }
        let roce = u16::from_be_bytes([f[12], f[13]]) == ETH_IPV4 && f.len() >= 42 && f[23] == 17 && {
            let ihl = (f[14] & 0xf) as usize * 4;
            f.len() >= 14 + ihl + 4 && u16::from_be_bytes([f[14 + ihl + 2], f[14 + ihl + 3]]) == ROCE_PORT
        };
        if roce && self.opts.loss_pct > 0 && self.rng.chance(self.opts.loss_pct) {
            self.counts.lost_in += 1;
            return Ok(());
        }
        self.capture(&f);
        self.counts.to_engine += 1;
        self.wire_in.push_back(f);
        Ok(())
    }

    /// The Ethernet streams idle for a register access, which clocks the engine without the
    /// stream agents: no beat may move unseen (the agents drive them again next cycle).
    pub fn pause_streams(&mut self) {
        let (v, r) = (self.node.sim.port("s_axis_rx$tvalid"), self.node.sim.port("m_axis_tx$tready"));
        self.node.sim.set_bit(v, false);
        self.node.sim.set_bit(r, false);
    }
    pub fn reg_write(&mut self, addr: u16, v: u32) -> Result<()> {
        self.pause_streams();
        self.node.write(addr, v)
    }
    pub fn reg_read(&mut self, addr: u16) -> u32 {
        self.pause_streams();
        self.node.read(addr)
    }

    /// One clock cycle of the engine and its host: DMA, card memory, SQ and CQ agents, the
    /// Ethernet streams. Every 16 cycles the TAP is polled.
    pub fn step(&mut self) -> Result<()> {
        let n = &mut self.node;
        if n.sim.cycle().is_multiple_of(16) {
            while let Some(f) = self.tap.recv()? {
                self.take_from_wire(f)?;
            }
        }
        let n = &mut self.node;
        let now = n.sim.cycle();
        if now >= self.wire_free {
            if let Some(f) = self.wire_in.pop_front() {
                self.wire_free = now + (f.len() as u64 + 4 + 20).div_ceil(50);
                self.roce_in.push((now, f.clone()));
                self.rx.push(AxisFrame::new(f));
            }
        }
        n.dma.drive(&mut n.sim);
        n.rb.drive(&mut n.sim);
        n.sq.drive(&mut n.sim);
        n.recv.drive(&mut n.sim);
        n.cq.drive(&mut n.sim);
        self.rx.drive(&mut n.sim);
        self.tx.ready_pct = if now >= self.wire_out_free { 100 } else { 0 };
        self.tx.drive(&mut n.sim);
        n.sim.eval();
        n.dma.sample(&mut n.sim, &mut n.mem);
        n.rb.sample(&mut n.sim);
        n.sq.sample(&mut n.sim);
        n.recv.sample(&mut n.sim);
        if n.cq.sample(&mut n.sim) {
            n.sort_cq();
        }
        self.rx.sample(&mut n.sim);
        self.tx.sample(&mut n.sim);
        n.sim.tick();
        while self.tx_taken < self.tx.frames.len() {
            let f = self.tx.frames[self.tx_taken].data.clone();
            self.tx_taken += 1;
            self.counts.from_engine += 1;
            let len = f.len() as u64;
            let now = self.node.sim.cycle();
            self.wire_out_free = now + ((len + 4 + 20).div_ceil(50)).saturating_sub(len.div_ceil(64));
            self.roce_out.push((self.node.sim.cycle(), f.clone()));
            if self.opts.loss_pct > 0 && self.rng.chance(self.opts.loss_pct) {
                self.counts.lost_out += 1;
                continue;
            }
            self.wire_out(f)?;
        }
        Ok(())
    }

    /// Run until `done` holds (checked every 64 cycles) or `wall` passes.
    pub fn run_until(&mut self, wall: Duration, what: &str, mut done: impl FnMut(&mut Twin) -> bool) -> Result<()> {
        let t0 = Instant::now();
        loop {
            for _ in 0..64 {
                self.step()?;
            }
            if done(self) {
                return Ok(());
            }
            if t0.elapsed() > wall {
                bail!("{what}: not done after {:.0} s of wall time ({} cycles)", wall.as_secs_f64(), self.node.sim.cycle());
            }
        }
    }

    /// The MAC of `ip`, from the engine's neighbour table: the engine asks by ARP
    /// (`ARP_WHO_HAS`, once per 200 ms of wall time) until the table holds it, up to `wall`.
    pub fn resolve(&mut self, ip: Ipv4Addr, wall: Duration) -> Result<[u8; 6]> {
        let t0 = Instant::now();
        let mut asked: Option<Instant> = None;
        self.reg_write(reg::NEIGH_IP, u32::from(ip))?;
        loop {
            let hi = self.reg_read(reg::NEIGH_MAC_HI);
            if hi >> 31 == 1 {
                let lo = self.reg_read(reg::NEIGH_MAC_LO);
                let m = ((hi as u64 & 0xffff) << 32 | lo as u64).to_be_bytes();
                return Ok([m[2], m[3], m[4], m[5], m[6], m[7]]);
            }
            if asked.is_none_or(|a| a.elapsed() > Duration::from_millis(200)) {
                self.reg_write(reg::ARP_WHO_HAS, u32::from(ip))?;
                asked = Some(Instant::now());
            }
            for _ in 0..256 {
                self.step()?;
            }
            if t0.elapsed() > wall {
                bail!("no ARP answer from {ip} on {} within {:.0} s", self.opts.iface, wall.as_secs_f64());
            }
        }
    }

    /// The engine's status counters, by name.
    pub fn engine_counters(&mut self) -> Vec<(&'static str, u64)> {
        use nicgen_hw::roce::engine::ENGINE_COUNTERS;
        self.pause_streams();
        let v = self.node.counters();
        ENGINE_COUNTERS.iter().zip(v).map(|((n, _), c)| (*n, c)).collect()
    }

    /// Write the captured frames as a PCAP.
    pub fn write_pcap(&self, path: &std::path::Path) -> Result<()> {
        nicgen_model::pcap::write_pcap(path, &self.captured).with_context(|| format!("writing {}", path.display()))
    }
}



