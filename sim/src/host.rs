//! Host and network models for whole-engine scenarios (DESIGN.md §7):
//! * [`HostMem`]: sparse byte-addressed host memory;
//! * [`DmaPort`]: a host DMA engine on an engine's `dma_rd_cmd`/`s_axis_dma_rd` and
//!   `dma_wr_cmd`/`m_axis_dma_wr` ports, with read latency and a bandwidth limit (PCIe Gen3 x16
//!   by default), answering reads in command order;
//! * [`MacLink`]: one direction of a 100G link. The sending MAC takes at most 100 Gb/s of frame
//!   bits counting 20 B of preamble and IFG and 4 B of FCS per frame (so at most 0.78125 beats
//!   per cycle at 250 MHz); frames arrive at the far end's RX (which has no `tready`) after a
//!   fixed latency, with the beat timing they left with. With [`Faults`], each frame may be
//!   lost (alone or in a burst), held back (reordered), duplicated, corrupted by one bit, or
//!   truncated, from a seeded generator; [`FaultCounts`] says what was done.
use crate::axis::{keep_len, keep_words, pack_beat, unpack_beat, AxisPorts};
use crate::cycle::CycleSim;
use crate::rng::Rng;
use std::collections::{HashMap, VecDeque};

/// Cycle time at the design clock (250 MHz).
pub const NS_PER_CYCLE: f64 = 4.0;

#[derive(Default, Clone)]
pub struct HostMem {
    pages: HashMap<u64, Vec<u8>>,
}

impl HostMem {
    const PAGE: u64 = 4096;
    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let a = addr + done as u64;
            let off = (a % Self::PAGE) as usize;
            let n = (Self::PAGE as usize - off).min(len - done);
            if let Some(p) = self.pages.get(&(a / Self::PAGE)) {
                out[done..done + n].copy_from_slice(&p[off..off + n]);
            }
            done += n;
        }
        out
    }
    pub fn byte(&self, a: u64) -> u8 {
        self.pages.get(&(a / Self::PAGE)).map_or(0, |p| p[(a % Self::PAGE) as usize])
    }
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let a = addr + done as u64;
            let off = (a % Self::PAGE) as usize;
            let n = (Self::PAGE as usize - off).min(data.len() - done);
            self.pages.entry(a / Self::PAGE).or_insert_with(|| vec![0; Self::PAGE as usize])[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }
}

/// Host DMA parameters.
#[derive(Clone, Copy, Debug)]
pub struct DmaParams {
    /// Cycles from a read command to its first data beat.
    pub rd_latency: u64,
    /// Bytes per cycle each direction can move (PCIe Gen3 x16: about 13 GB/s = 52 B/cycle).
    pub bytes_per_cycle: f64,
    /// Percent of cycles the host accepts commands and write data (backpressure).
    pub ready_pct: u32,
}

impl DmaParams {
    /// The model of a host link given as read latency (ns) and bandwidth (GB/s each way), at
    /// the design clock; the host never backpressures.
    pub fn from_ns_gbps(rd_latency_ns: u64, gbps: f64) -> Self {
        DmaParams { rd_latency: (rd_latency_ns as f64 / NS_PER_CYCLE).round() as u64, bytes_per_cycle: gbps * NS_PER_CYCLE, ready_pct: 100 }
    }
}

impl Default for DmaParams {
    fn default() -> Self {
        DmaParams { rd_latency: 250, bytes_per_cycle: 52.0, ready_pct: 100 }
    }
}

pub struct DmaPort {
    pub p: DmaParams,
    rd_cmd: (usize, usize, usize),
    wr_cmd: (usize, usize, usize),
    rd: AxisPorts,
    wr: AxisPorts,
    rng: Rng,
    /// Reads waiting for their data: (cycle the data may start, bytes).
    pending: VecDeque<(u64, Vec<u8>)>,
    offset: usize,
    rd_credit: f64,
    wr_credit: f64,
    wr_cmds: VecDeque<(u64, u32)>,
    /// Write data frames that arrived before their command (the two streams are independent).
    wr_data: VecDeque<Vec<u8>>,
    wr_cur: Vec<u8>,
    rd_ready: bool,
    wr_ready: bool,
    presenting: bool,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Cycle of the last completed host-memory write.
    pub last_write: u64,
    pub errors: Vec<String>,
}

fn chan<S: CycleSim + ?Sized>(sim: &S, n: &str) -> (usize, usize, usize) {
    (sim.port(n), sim.port(&format!("{n}_valid")), sim.port(&format!("{n}_ready")))
}

/// Decode a `DmaCmd` port (addr 64, len 32, tag 24, from bit 0).
fn dma_cmd(w: &[u32]) -> (u64, u32) {
    (w[0] as u64 | (w[1] as u64) << 32, w[2])
}

impl DmaPort {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, p: DmaParams, seed: u64) -> Self {
        DmaPort {
            p,
            rd_cmd: chan(sim, "dma_rd_cmd"),
            wr_cmd: chan(sim, "dma_wr_cmd"),
            rd: AxisPorts::find(sim, "s_axis_dma_rd"),
            wr: AxisPorts::find(sim, "m_axis_dma_wr"),
            rng: Rng::new(seed),
            pending: VecDeque::new(),
            offset: 0,
            rd_credit: 0.0,
            wr_credit: 0.0,
            wr_cmds: VecDeque::new(),
            wr_data: VecDeque::new(),
            wr_cur: vec![],
            rd_ready: false,
            wr_ready: false,
            presenting: false,
            bytes_read: 0,
            bytes_written: 0,
            last_write: 0,
            errors: vec![],
        }
    }
    pub fn idle(&self) -> bool {
        self.pending.is_empty() && self.wr_cmds.is_empty() && self.wr_data.is_empty() && self.wr_cur.is_empty()
    }
    /// Before `eval`.
    pub fn drive<S: CycleSim + ?Sized>(&mut self, sim: &mut S) {
        let now = sim.cycle();
        self.rd_credit = (self.rd_credit + self.p.bytes_per_cycle).min(128.0);
        self.wr_credit = (self.wr_credit + self.p.bytes_per_cycle).min(128.0);
        let r = self.rng.chance(self.p.ready_pct);
        sim.set_bit(self.rd_cmd.2, r);
        self.rd_ready = r;
        self.wr_ready = self.rng.chance(self.p.ready_pct) && self.wr_credit >= 64.0;
        sim.set_bit(self.wr_cmd.2, r);
        if let Some(t) = self.wr.tready {
            sim.set_bit(t, self.wr_ready);
        }
        // read data, in order, once its latency has passed and the link has credit
        self.presenting = false;
        if let Some((t, d)) = self.pending.front() {
            if *t <= now && self.rd_credit >= 64.0 {
                let n = (d.len() - self.offset).min(64);
                sim.set(self.rd.tdata, &pack_beat(&d[self.offset..self.offset + n], 64));
                sim.set(self.rd.tkeep, &keep_words(n, 64));
                sim.set_bit(self.rd.tlast, self.offset + n == d.len());
                self.presenting = true;
            }
        }
        sim.set_bit(self.rd.tvalid, self.presenting);
        if let Some(u) = self.rd.tuser {
            sim.set_bit(u, false);
        }
    }
    /// After `eval`. Returns whether anything moved.
    pub fn sample<S: CycleSim + ?Sized>(&mut self, sim: &mut S, mem: &mut HostMem) -> bool {
        let now = sim.cycle();
        let mut moved = false;
        if self.rd_ready && sim.get_bit(self.rd_cmd.1) {
            let (addr, len) = dma_cmd(&sim.get_words(self.rd_cmd.0));
            if len == 0 {
                self.errors.push(format!("cycle {now}: DMA read of zero bytes at {addr:#x}"));
            } else {
                self.pending.push_back((now + self.p.rd_latency, mem.read(addr, len as usize)));
            }
            moved = true;
        }
        if self.presenting && sim.get_bit(self.rd.tready.unwrap()) {
            let d = &self.pending.front().unwrap().1;
            let n = (d.len() - self.offset).min(64);
            self.offset += n;
            self.rd_credit -= n as f64;
            self.bytes_read += n as u64;
            if self.offset == d.len() {
                self.pending.pop_front();
                self.offset = 0;
            }
            moved = true;
        }
        if self.rd_ready && sim.get_bit(self.wr_cmd.1) {
            self.wr_cmds.push_back(dma_cmd(&sim.get_words(self.wr_cmd.0)));
            moved = true;
        }
        if self.wr_ready && sim.get_bit(self.wr.tvalid) {
            let data = sim.get_words(self.wr.tdata);
            let keep = sim.get_words(self.wr.tkeep);
            let n = keep_len(&keep, 64);
            self.wr_cur.extend(unpack_beat(&data, n));
            self.wr_credit -= n as f64;
            if sim.get_bit(self.wr.tlast) {
                self.wr_data.push_back(std::mem::take(&mut self.wr_cur));
            }
            moved = true;
        }
        // pair commands with data frames, in order
        while !self.wr_cmds.is_empty() && !self.wr_data.is_empty() {
            let (addr, len) = self.wr_cmds.pop_front().unwrap();
            let d = self.wr_data.pop_front().unwrap();
            if len as usize == d.len() {
                mem.write(addr, &d);
                self.bytes_written += len as u64;
                self.last_write = now;
            } else {
                self.errors.push(format!("cycle {now}: DMA write of {} bytes for a {len}-byte command at {addr:#x}", d.len()));
            }
        }
        moved
    }
}

/// Fault rates of a link direction, per frame, each in 0..=0.1 (checked by [`Faults::check`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Faults {
    /// A frame is lost.
    pub loss: f64,
    /// A burst starts: this frame and the next 1 to 7 are lost.
    pub burst: f64,
    /// A frame is held back and delivered up to `reorder_bound` cycles later, after frames
    /// that left behind it.
    pub reorder: f64,
    pub reorder_bound: u64,
    /// A frame arrives twice.
    pub dup: f64,
    /// One bit flips in the ICRC-covered part past the UDP header (BTH, payload, ICRC; not the
    /// masked BTH byte 4): the receiver's ICRC check must drop it.
    pub corrupt: f64,
    /// A frame loses its tail: it ends 1 or more bytes early, past the IPv4 header.
    pub truncate: f64,
}

impl Faults {
    pub fn any(&self) -> bool {
        self.loss + self.burst + self.reorder + self.dup + self.corrupt + self.truncate > 0.0
    }
    pub fn check(&self) -> Result<(), String> {
        for (n, v) in [("loss", self.loss), ("burst", self.burst), ("reorder", self.reorder), ("dup", self.dup), ("corrupt", self.corrupt), ("truncate", self.truncate)] {
            if !(0.0..=0.1).contains(&v) {
                return Err(format!("{n} rate {v}: must be between 0 and 0.1 (10%)"));
            }
        }
        Ok(())
    }
}

/// A fault aimed at one frame (by its number in its link direction, from 0), for tests with
/// an exact expected trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scripted {
    Drop,
    /// Delivered twice.
    Dup,
    /// The BTH PSN becomes this one (ICRC recomputed): a ghost.
    SetPsn(u32),
}

/// What a link direction did to its frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultCounts {
    pub frames: u64,
    /// Lost alone, and lost in bursts.
    pub lost: u64,
    pub burst_lost: u64,
    pub reordered: u64,
    pub duplicated: u64,
    /// Corrupted and truncated copies delivered (a damaged frame that is also duplicated
    /// counts twice): each must be dropped by the receiver's checks.
    pub corrupted: u64,
    pub truncated: u64,
}

type Beat = (u64, Vec<u32>, Vec<u32>, bool);

/// One direction of a 100G link from `m_axis_tx` of one engine to `s_axis_rx` of another.
pub struct MacLink {
    pub faults: Faults,
    /// Faults aimed at given frames, before (and instead of) the random ones.
    pub script: Vec<(usize, Scripted)>,
    pub counts: FaultCounts,
    rng: Rng,
    burst_left: u64,
    /// The frame leaving now, beat by beat (delivered whole once its last beat has left).
    leaving: Vec<Beat>,
    /// Frames held back: (release cycle, frame index, beats).
    held: Vec<(u64, usize, Vec<Beat>)>,
    /// Index (in `frames`) of each frame in flight, in order.
    flight_ids: VecDeque<usize>,
    /// When the receiving end of the wire is free again (cycles).
    wire_free: f64,
    /// Frames that reached the receiver: (index in `frames`, cycle of the last beat).
    pub delivered: Vec<(usize, u64)>,
    /// Every IPv4 RoCEv2 frame to this destination QPN is lost until this cycle (one QP's
    /// path goes dark; counted as lost).
    pub stall: Option<(u32, u64)>,
    tx: AxisPorts,
    rx: AxisPorts,
    credit: f64,
    /// Bytes per cycle on the wire (100 Gb/s at 250 MHz: 50).
    pub bytes_per_cycle: f64,
    pub latency: u64,
    ready: bool,
    cur: Vec<u8>,
    first_cycle: u64,
    /// Beats in flight: (cycle they reach the receiver, words, keep, last).
    flight: VecDeque<(u64, Vec<u32>, Vec<u32>, bool)>,
    /// Frames that left, with the cycle of their first beat.
    pub frames: Vec<(u64, Vec<u8>)>,
    /// Cycle of each frame's last beat at the receiver.
    pub arrivals: Vec<u64>,
    /// Beats the receiver did not take (its RX must never push back).
    pub rx_refused: u64,
    /// With `keep_arrived`: every frame as it reached the receiver (after any fault), in order.
    pub keep_arrived: bool,
    pub arrived: Vec<Vec<u8>>,
    arriving: Vec<u8>,
    /// Cycles the MAC wanted a beat in the middle of a frame and the sender had none (a real
    /// MAC would underrun).
    pub underruns: u64,
    /// Frames the sender ended with `tuser` on the last beat (an abort: the MAC sends them with
    /// a bad FCS, so the receiving MAC drops them; they are not in `frames`).
    pub aborted: u64,
}

impl MacLink {
    pub fn new<S: CycleSim + ?Sized, T: CycleSim + ?Sized>(from: &S, to: &T) -> Self {
        MacLink {
            faults: Faults::default(),
            script: vec![],
            counts: FaultCounts::default(),
            rng: Rng::new(1),
            burst_left: 0,
            leaving: vec![],
            held: vec![],
            flight_ids: VecDeque::new(),
            wire_free: 0.0,
            delivered: vec![],
            stall: None,
            tx: AxisPorts::find(from, "m_axis_tx"),
            rx: AxisPorts::find(to, "s_axis_rx"),
            credit: 0.0,
            bytes_per_cycle: 50.0,
            latency: 100,
            ready: false,
            cur: vec![],
            first_cycle: 0,
            flight: VecDeque::new(),
            frames: vec![],
            arrivals: vec![],
            rx_refused: 0,
            keep_arrived: false,
            arrived: vec![],
            arriving: vec![],
            underruns: 0,
            aborted: 0,
        }
    }
    /// Inject `faults`, drawn from a generator seeded with `seed`.
    pub fn with_faults(mut self, faults: Faults, seed: u64) -> Self {
        self.faults = faults;
        self.rng = Rng::new(seed);
        self
    }
    pub fn idle(&self) -> bool {
        self.flight.is_empty() && self.held.is_empty()
    }
    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    /// Queue a whole frame for the receiver, after what is already on its way, and no faster
    /// than the wire (a held-back or doubled frame does not arrive above line rate).
    fn deliver(&mut self, id: usize, beats: Vec<Beat>) {
        self.flight_ids.push_back(id);
        for (t, d, k, l) in beats {
            let start = self.wire_free.max(t as f64);
            let n = keep_len(&k, 64);
            self.wire_free = start + (n as f64 + if l { 24.0 } else { 0.0 }) / self.bytes_per_cycle;
            let t = self.flight.back().map_or(start.ceil() as u64, |b| b.0.max(start.ceil() as u64));
            self.flight.push_back((t, d, k, l));
        }
    }
    /// The beats of `bytes` (a frame cut or changed), on the timing of `like`.
    fn rebeat(like: &[Beat], bytes: &[u8]) -> Vec<Beat> {
        let n = bytes.len().div_ceil(64);
        (0..n)
            .map(|i| {
                let c = &bytes[64 * i..(64 * i + 64).min(bytes.len())];
                (like[i.min(like.len() - 1)].0, pack_beat(c, 64), keep_words(c.len(), 64), i + 1 == n)
            })
            .collect()
    }
    /// Decide what happens to the frame that just left: lost, held, changed, doubled.
    fn frame_done(&mut self, now: u64, beats: Vec<Beat>, bytes: &[u8]) {
        let id = self.frames.len();
        self.counts.frames += 1;
        if let Some((qpn, until)) = self.stall {
            if now < until && nicgen_model::parse(bytes).is_ok_and(|f| f.hdr.bth.dqpn == qpn) {
                self.counts.lost += 1;
                return;
            }
        }
        if let Some((_, f)) = self.script.iter().find(|(i, _)| *i == id).copied() {
            match f {
                Scripted::Drop => self.counts.lost += 1,
                Scripted::Dup => {
                    self.counts.duplicated += 1;
                    self.deliver(id, beats.clone());
                    self.deliver(id, beats);
                }
                Scripted::SetPsn(psn) => {
                    // an IPv4 RoCEv2 frame: PSN at 51..54, ICRC in the last 4 bytes
                    let mut b = bytes.to_vec();
                    b[51..54].copy_from_slice(&psn.to_be_bytes()[1..]);
                    let n = b.len() - 4;
                    let c = nicgen_model::icrc::icrc_of(&b[..n]).expect("a RoCEv2 frame");
                    b[n..].copy_from_slice(&c.to_le_bytes());
                    let beats = Self::rebeat(&beats, &b);
                    self.deliver(id, beats);
                }
            }
            return;
        }
        if !self.faults.any() {
            return self.deliver(id, beats);
        }
        if self.burst_left > 0 {
            self.burst_left -= 1;
            self.counts.burst_lost += 1;
            return;
        }
        if self.chance(self.faults.burst) {
            self.burst_left = self.rng.range(1, 7);
            self.counts.burst_lost += 1;
            return;
        }
        if self.chance(self.faults.loss) {
            self.counts.lost += 1;
            return;
        }
        let mut beats = beats;
        let (c0, t0) = (self.counts.corrupted, self.counts.truncated);
        // past Ethernet, IPv4 or IPv6, and UDP
        let ipv6 = bytes.len() > 14 && bytes[14] >> 4 == 6;
        let bth = 14 + if ipv6 { 40 } else { 20 } + 8;
        if bytes.len() > bth + 12 && self.chance(self.faults.corrupt) {
            let mut b = bytes.to_vec();
            let mut at = self.rng.range(bth as u64, b.len() as u64 - 1) as usize;
            if at == bth + 4 {
                at += 1;
            }
            b[at] ^= 1 << self.rng.below(8);
            beats = Self::rebeat(&beats, &b);
            self.counts.corrupted += 1;
        } else if bytes.len() > 35 && self.chance(self.faults.truncate) {
            let cut = self.rng.range(35, bytes.len() as u64 - 1) as usize;
            beats = Self::rebeat(&beats, &bytes[..cut]);
            self.counts.truncated += 1;
        }
        let twice = self.chance(self.faults.dup);
        if twice {
            // both copies of a damaged frame count
            self.counts.duplicated += 1;
            self.counts.corrupted += self.counts.corrupted - c0;
            self.counts.truncated += self.counts.truncated - t0;
        }
        if self.chance(self.faults.reorder) {
            self.counts.reordered += 1;
            let at = now + self.rng.range(1, self.faults.reorder_bound.max(1));
            if twice {
                self.deliver(id, beats.clone());
            }
            self.held.push((at, id, beats));
            return;
        }
        if twice {
            self.deliver(id, beats.clone());
        }
        self.deliver(id, beats);
    }
    /// Drive the sender's `tready` (before its `eval`).
    pub fn drive_tx<S: CycleSim + ?Sized>(&mut self, from: &mut S) {
        // room for one beat plus a cycle of credit, so waiting for credit never loses any
        self.credit = (self.credit + self.bytes_per_cycle).min(128.0);
        self.ready = self.credit >= 64.0;
        from.set_bit(self.tx.tready.unwrap(), self.ready);
    }
    /// Present the beat due at the receiver this cycle (before its `eval`).
    pub fn drive_rx<T: CycleSim + ?Sized>(&mut self, to: &mut T) {
        let now = to.cycle();
        let due = self.flight.front().is_some_and(|b| b.0 <= now);
        to.set_bit(self.rx.tvalid, due);
        if due {
            let (_, d, k, l) = self.flight.front().unwrap();
            to.set(self.rx.tdata, d);
            to.set(self.rx.tkeep, k);
            to.set_bit(self.rx.tlast, *l);
        }
        if let Some(u) = self.rx.tuser {
            to.set_bit(u, false);
        }
    }
    /// After both `eval`s.
    pub fn sample<S: CycleSim + ?Sized, T: CycleSim + ?Sized>(&mut self, from: &mut S, to: &mut T) -> bool {
        let now = from.cycle();
        let mut moved = false;
        // frames held back whose time has come, at a frame boundary
        while let Some(i) = self.held.iter().position(|h| h.0 <= now) {
            let (_, id, beats) = self.held.remove(i);
            let t = now + self.latency;
            self.deliver(id, beats.into_iter().map(|b| (t, b.1, b.2, b.3)).collect());
        }
        if self.flight.front().is_some_and(|b| b.0 <= to.cycle()) {
            if self.rx.tready.is_some_and(|t| !to.get_bit(t)) {
                self.rx_refused += 1;
            }
            let b = self.flight.pop_front().unwrap();
            if self.keep_arrived {
                self.arriving.extend(unpack_beat(&b.1, keep_len(&b.2, self.rx.bytes)));
                if b.3 {
                    self.arrived.push(std::mem::take(&mut self.arriving));
                }
            }
            if b.3 {
                self.arrivals.push(to.cycle());
                if let Some(id) = self.flight_ids.pop_front() {
                    self.delivered.push((id, to.cycle()));
                }
            }
            moved = true;
        }
        if self.ready && !self.cur.is_empty() && !from.get_bit(self.tx.tvalid) {
            self.underruns += 1;
        }
        if self.ready && from.get_bit(self.tx.tvalid) {
            let d = from.get_words(self.tx.tdata);
            let k = from.get_words(self.tx.tkeep);
            let l = from.get_bit(self.tx.tlast);
            let n = keep_len(&k, 64);
            if self.cur.is_empty() {
                self.first_cycle = now;
            }
            self.cur.extend(unpack_beat(&d, n));
            self.credit -= n as f64 + if l { 24.0 } else { 0.0 };
            self.leaving.push((now + self.latency, d, k, l));
            if l {
                let bytes = std::mem::take(&mut self.cur);
                let beats = std::mem::take(&mut self.leaving);
                if self.tx.tuser.is_some_and(|u| from.get_bit(u)) {
                    self.aborted += 1;
                } else {
                    self.frame_done(now, beats, &bytes);
                    self.frames.push((self.first_cycle, bytes));
                }
            }
            moved = true;
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::HostMem;

    #[test]
    fn reads_and_writes_across_pages() {
        let mut m = HostMem::default();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + 3) as u8).collect();
        m.write(4090, &data);
        assert_eq!(m.read(4090, data.len()), data);
        assert_eq!(m.read(4085, 7), vec![0, 0, 0, 0, 0, data[0], data[1]]);
        assert_eq!(m.byte(4090 + 9999), data[9999]);
        assert_eq!(m.read(1 << 40, 3), vec![0; 3]);
    }
}
