//! Card memory (an HBM pseudo-channel) behind an AXI4 slave with 512-bit data, driven on a
//! design's `m_axi_<name>` ports: read latency, write latency, a bandwidth limit shared by
//! reads and writes, and random `*ready` backpressure. Bursts are INCR of 64-byte beats and may
//! not cross 4 KiB; any protocol error is recorded in `errors`.
//!
//! Read data is taken from memory when a beat is presented, so a read issued before a write to
//! the same address has completed (its B response) may see either value, as on real memory.
use crate::axis::{pack_beat, unpack_beat};
use crate::cycle::CycleSim;
use crate::host::NS_PER_CYCLE;
use crate::rng::Rng;
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CardParams {
    /// Cycles from an accepted read address to its first data beat.
    pub rd_latency: u64,
    /// Cycles from a burst's last write beat to its B response.
    pub wr_latency: u64,
    /// Bytes per cycle, reads and writes together.
    pub bytes_per_cycle: f64,
    /// Percent of cycles `arready`/`awready`/`wready` are high.
    pub ready_pct: u32,
}

impl CardParams {
    /// Given the read latency in ns and the bandwidth in GB/s, at the design clock.
    pub fn from_ns_gbps(rd_latency_ns: u64, gbps: f64) -> Self {
        CardParams { rd_latency: (rd_latency_ns as f64 / NS_PER_CYCLE).round() as u64, bytes_per_cycle: gbps * NS_PER_CYCLE, ..Default::default() }
    }
    /// Cycles for a read of `bytes` with nothing else in flight.
    pub fn fetch_cycles(&self, bytes: usize) -> u64 {
        self.rd_latency + (bytes as f64 / self.bytes_per_cycle).ceil() as u64
    }
}

impl Default for CardParams {
    /// One HBM2 pseudo-channel (14.4 GB/s), with a latency chosen so that a 4 KiB fetch takes
    /// 1.70 µs as in BALBOA: 354 + 72 cycles.
    fn default() -> Self {
        CardParams { rd_latency: 354, wr_latency: 100, bytes_per_cycle: 57.6, ready_pct: 100 }
    }
}

struct Ports {
    awaddr: usize,
    awlen: usize,
    awvalid: usize,
    awready: usize,
    wdata: usize,
    wstrb: usize,
    wlast: usize,
    wvalid: usize,
    wready: usize,
    bresp: usize,
    bvalid: usize,
    bready: usize,
    araddr: usize,
    arlen: usize,
    arvalid: usize,
    arready: usize,
    rdata: usize,
    rresp: usize,
    rlast: usize,
    rvalid: usize,
    rready: usize,
}

pub struct CardMem {
    pub p: CardParams,
    ports: Ports,
    rng: Rng,
    /// 64-byte lines by line address.
    mem: HashMap<u64, [u8; 64]>,
    credit: f64,
    /// Write bursts: (address, beats); the one in front receives the W beats.
    aw: VecDeque<(u64, usize)>,
    /// W beats that came before their address.
    w_early: VecDeque<([u8; 64], u64, bool)>,
    w_beat: usize,
    /// B responses: the cycle each may be given.
    b: VecDeque<u64>,
    /// Read bursts: (cycle the first beat may come, address, beats).
    r: VecDeque<(u64, u64, usize)>,
    r_beat: usize,
    ar_ready: bool,
    aw_ready: bool,
    w_ready: bool,
    r_presenting: bool,
    b_presenting: bool,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub reads: u64,
    pub writes: u64,
    pub errors: Vec<String>,
}

impl CardMem {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, name: &str, p: CardParams, seed: u64) -> Self {
        let q = |n: &str| sim.port(&format!("{name}${n}"));
        CardMem {
            p,
            ports: Ports {
                awaddr: q("awaddr"),
                awlen: q("awlen"),
                awvalid: q("awvalid"),
                awready: q("awready"),
                wdata: q("wdata"),
                wstrb: q("wstrb"),
                wlast: q("wlast"),
                wvalid: q("wvalid"),
                wready: q("wready"),
                bresp: q("bresp"),
                bvalid: q("bvalid"),
                bready: q("bready"),
                araddr: q("araddr"),
                arlen: q("arlen"),
                arvalid: q("arvalid"),
                arready: q("arready"),
                rdata: q("rdata"),
                rresp: q("rresp"),
                rlast: q("rlast"),
                rvalid: q("rvalid"),
                rready: q("rready"),
            },
            rng: Rng::new(seed ^ 0xc0de),
            mem: HashMap::new(),
            credit: 0.0,
            aw: VecDeque::new(),
            w_early: VecDeque::new(),
            w_beat: 0,
            b: VecDeque::new(),
            r: VecDeque::new(),
            r_beat: 0,
            ar_ready: false,
            aw_ready: false,
            w_ready: false,
            r_presenting: false,
            b_presenting: false,
            bytes_read: 0,
            bytes_written: 0,
            reads: 0,
            writes: 0,
            errors: vec![],
        }
    }
    pub fn idle(&self) -> bool {
        self.aw.is_empty() && self.w_early.is_empty() && self.b.is_empty() && self.r.is_empty()
    }
    /// The bytes at `addr..addr + len` (zero where never written).
    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64).map(|i| self.mem.get(&((addr + i) / 64)).map_or(0, |l| l[((addr + i) % 64) as usize])).collect()
    }
    fn line(&self, addr: u64) -> [u8; 64] {
        self.mem.get(&(addr / 64)).copied().unwrap_or([0; 64])
    }
    /// Before `eval`.
    pub fn drive<S: CycleSim + ?Sized>(&mut self, sim: &mut S) {
        let now = sim.cycle();
        self.credit = (self.credit + self.p.bytes_per_cycle).min(128.0);
        let pr = &self.ports;
        self.ar_ready = self.rng.chance(self.p.ready_pct);
        self.aw_ready = self.rng.chance(self.p.ready_pct);
        self.w_ready = self.rng.chance(self.p.ready_pct) && self.credit >= 64.0;
        sim.set_bit(pr.arready, self.ar_ready);
        sim.set_bit(pr.awready, self.aw_ready);
        sim.set_bit(pr.wready, self.w_ready);
        self.b_presenting = self.b.front().is_some_and(|&t| t <= now);
        sim.set_bit(pr.bvalid, self.b_presenting);
        sim.set_u64(pr.bresp, 0);
        self.r_presenting = false;
        if let Some(&(t, addr, beats)) = self.r.front() {
            if t <= now && self.credit >= 64.0 {
                let l = self.line(addr + 64 * self.r_beat as u64);
                sim.set(pr.rdata, &pack_beat(&l, 64));
                sim.set_bit(pr.rlast, self.r_beat + 1 == beats);
                self.r_presenting = true;
            }
        }
        sim.set_bit(pr.rvalid, self.r_presenting);
        sim.set_u64(pr.rresp, 0);
    }
    /// After `eval`. Returns whether anything moved.
    pub fn sample<S: CycleSim + ?Sized>(&mut self, sim: &mut S) -> bool {
        let now = sim.cycle();
        let mut moved = false;
        let burst = |errors: &mut Vec<String>, kind: &str, addr: u64, len: u64| {
            let beats = len as usize + 1;
            if !addr.is_multiple_of(64) || (addr % 4096) + 64 * beats as u64 > 4096 {
                errors.push(format!("cycle {now}: {kind} burst of {beats} beats at {addr:#x} is unaligned or crosses 4 KiB"));
            }
            beats
        };
        if self.ar_ready && sim.get_bit(self.ports.arvalid) {
            let addr = sim.get_u64(self.ports.araddr);
            let beats = burst(&mut self.errors, "read", addr, sim.get_u64(self.ports.arlen));
            self.r.push_back((now + self.p.rd_latency, addr, beats));
            self.reads += 1;
            moved = true;
        }
        if self.r_presenting && sim.get_bit(self.ports.rready) {
            self.credit -= 64.0;
            self.bytes_read += 64;
            self.r_beat += 1;
            if self.r_beat == self.r.front().unwrap().2 {
                self.r.pop_front();
                self.r_beat = 0;
            }
            moved = true;
        }
        if self.b_presenting && sim.get_bit(self.ports.bready) {
            self.b.pop_front();
            moved = true;
        }
        if self.aw_ready && sim.get_bit(self.ports.awvalid) {
            let addr = sim.get_u64(self.ports.awaddr);
            let beats = burst(&mut self.errors, "write", addr, sim.get_u64(self.ports.awlen));
            self.aw.push_back((addr, beats));
            self.writes += 1;
            moved = true;
        }
        if self.w_ready && sim.get_bit(self.ports.wvalid) {
            let d = sim.get_words(self.ports.wdata);
            let mut line = [0u8; 64];
            for (b, v) in line.iter_mut().zip(unpack_beat(&d, 64)) {
                *b = v;
            }
            let strb = sim.get_u64(self.ports.wstrb);
            self.credit -= strb.count_ones() as f64;
            self.w_early.push_back((line, strb, sim.get_bit(self.ports.wlast)));
            moved = true;
        }
        // apply W beats to the burst in front
        while let (Some(&(addr, beats)), Some(&(line, strb, last))) = (self.aw.front(), self.w_early.front()) {
            self.w_early.pop_front();
            let a = addr + 64 * self.w_beat as u64;
            let mut l = self.line(a);
            for (i, b) in l.iter_mut().enumerate() {
                if strb >> i & 1 == 1 {
                    *b = line[i];
                    self.bytes_written += 1;
                }
            }
            self.mem.insert(a / 64, l);
            self.w_beat += 1;
            if last != (self.w_beat == beats) {
                self.errors.push(format!("cycle {now}: write burst at {addr:#x} of {beats} beats has WLAST on beat {}", self.w_beat));
            }
            if self.w_beat == beats {
                self.aw.pop_front();
                self.w_beat = 0;
                self.b.push_back(now + self.p.wr_latency);
            }
        }
        moved
    }
}
