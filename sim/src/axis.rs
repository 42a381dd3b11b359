//! AXI4-Stream driver and monitor. The driver inserts random `tvalid` gaps and holds a beat
//! stable until it is taken; the monitor applies random `tready` backpressure, checks the
//! `tkeep` rules, and reassembles frames. Byte 0 of a frame is `tdata[7:0]`.
use crate::cycle::CycleSim;
use crate::rng::Rng;
use std::collections::VecDeque;

/// Port indices of one AXI4-Stream interface, found by prefix (`s_axis` → `s_axis$tdata`, …).
#[derive(Clone, Debug)]
pub struct AxisPorts {
    pub tdata: usize,
    pub tkeep: usize,
    pub tlast: usize,
    pub tvalid: usize,
    pub tready: Option<usize>,
    pub tuser: Option<usize>,
    pub bytes: usize,
}

impl AxisPorts {
    pub fn find<S: CycleSim + ?Sized>(sim: &S, prefix: &str) -> Self {
        let p = |n: &str| sim.port(&format!("{prefix}${n}"));
        let tdata = p("tdata");
        AxisPorts {
            tdata,
            tkeep: p("tkeep"),
            tlast: p("tlast"),
            tvalid: p("tvalid"),
            tready: sim.try_port(&format!("{prefix}$tready")),
            tuser: sim.try_port(&format!("{prefix}$tuser")),
            bytes: sim.ports()[tdata].width / 8,
        }
    }
}

/// A frame on a stream: its bytes and `tuser` bit 0 (bad frame) on the last beat.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AxisFrame {
    pub data: Vec<u8>,
    pub user: bool,
}

impl AxisFrame {
    pub fn new(data: Vec<u8>) -> Self {
        AxisFrame { data, user: false }
    }
}

/// Pack `bytes` (at most the bus width) into u32 words, byte 0 in bits 7..0.
pub fn pack_beat(bytes: &[u8], nbytes: usize) -> Vec<u32> {
    let mut w = vec![0u32; nbytes.div_ceil(4)];
    for (i, b) in bytes.iter().enumerate() {
        w[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
    w
}

/// The first `n` bytes of a beat's u32 words (byte 0 in bits 7..0): the inverse of [`pack_beat`].
pub fn unpack_beat(words: &[u32], n: usize) -> impl Iterator<Item = u8> + '_ {
    (0..n).map(|i| (words[i / 4] >> (8 * (i % 4))) as u8)
}

/// Bytes kept by a `tkeep` (u32 words) of contiguous low bytes, up to `nbytes`.
pub fn keep_len(keep: &[u32], nbytes: usize) -> usize {
    (0..nbytes).take_while(|i| keep[i / 32] >> (i % 32) & 1 == 1).count()
}

/// A `tkeep` of `n` contiguous low bytes as u32 words.
pub fn keep_words(n: usize, nbytes: usize) -> Vec<u32> {
    let mut w = vec![0u32; nbytes.div_ceil(32)];
    for i in 0..n {
        w[i / 32] |= 1 << (i % 32);
    }
    w
}

pub struct AxisDriver {
    pub ports: AxisPorts,
    queue: VecDeque<AxisFrame>,
    offset: usize,
    presenting: bool,
    /// Probability (percent) of presenting a beat in a cycle when none is pending.
    pub valid_pct: u32,
    /// Stream without `tready` (a MAC RX side): every presented beat is taken.
    pub no_ready: bool,
    rng: Rng,
    pub beats: u64,
    pub frames: u64,
}

impl AxisDriver {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, prefix: &str, valid_pct: u32, seed: u64) -> Self {
        let ports = AxisPorts::find(sim, prefix);
        let no_ready = ports.tready.is_none();
        AxisDriver { ports, queue: VecDeque::new(), offset: 0, presenting: false, valid_pct, no_ready, rng: Rng::new(seed), beats: 0, frames: 0 }
    }
    pub fn push(&mut self, f: AxisFrame) {
        assert!(!f.data.is_empty(), "an AXI4-Stream frame has at least one byte");
        self.queue.push_back(f);
    }
    pub fn idle(&self) -> bool {
        self.queue.is_empty()
    }
    pub fn pending(&self) -> usize {
        self.queue.len()
    }
    /// Set the interface's inputs for this cycle (call before `eval`).
    pub fn drive<S: CycleSim + ?Sized>(&mut self, sim: &mut S) {
        let p = self.ports.clone();
        if !self.presenting {
            self.presenting = !self.queue.is_empty() && self.rng.chance(self.valid_pct);
        }
        sim.set_bit(p.tvalid, self.presenting);
        if let Some(f) = self.queue.front() {
            let n = (f.data.len() - self.offset).min(p.bytes);
            let last = self.offset + n == f.data.len();
            // random bytes outside tkeep: the DUT must ignore them
            let mut bytes = f.data[self.offset..self.offset + n].to_vec();
            if self.presenting {
                bytes.extend((n..p.bytes).map(|i| (i as u8).wrapping_mul(37) ^ 0x5a));
            }
            sim.set(p.tdata, &pack_beat(&bytes, p.bytes));
            sim.set(p.tkeep, &keep_words(n, p.bytes));
            sim.set_bit(p.tlast, last);
            if let Some(u) = p.tuser {
                sim.set_bit(u, last && f.user);
            }
        } else {
            sim.set_bit(p.tlast, false);
        }
    }
    /// After `eval`: if the beat was taken, advance. Returns whether a beat moved.
    pub fn sample<S: CycleSim + ?Sized>(&mut self, sim: &mut S) -> bool {
        if !self.presenting {
            return false;
        }
        let taken = self.no_ready || sim.get_bit(self.ports.tready.unwrap());
        if taken {
            let f = self.queue.front().unwrap();
            let n = (f.data.len() - self.offset).min(self.ports.bytes);
            self.offset += n;
            self.beats += 1;
            if self.offset == f.data.len() {
                self.queue.pop_front();
                self.offset = 0;
                self.frames += 1;
            }
            self.presenting = false;
        }
        taken
    }
}

/// A frame seen by a monitor, with the cycles of its first and last beats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenFrame {
    pub data: Vec<u8>,
    pub user: bool,
    pub first_cycle: u64,
    pub last_cycle: u64,
}

pub struct AxisMonitor {
    pub ports: AxisPorts,
    /// Probability (percent) of `tready` high in a cycle.
    pub ready_pct: u32,
    rng: Rng,
    ready: bool,
    cur: Vec<u8>,
    first: u64,
    pub frames: Vec<SeenFrame>,
    pub beats: u64,
}

impl AxisMonitor {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, prefix: &str, ready_pct: u32, seed: u64) -> Self {
        AxisMonitor { ports: AxisPorts::find(sim, prefix), ready_pct, rng: Rng::new(seed), ready: false, cur: vec![], first: 0, frames: vec![], beats: 0 }
    }
    pub fn drive<S: CycleSim + ?Sized>(&mut self, sim: &mut S) {
        self.ready = self.rng.chance(self.ready_pct);
        if let Some(r) = self.ports.tready {
            sim.set_bit(r, self.ready);
        }
    }
    /// After `eval`: take a beat if one moves. Panics on a `tkeep` that breaks the rules
    /// (a non-last beat must be full; a last beat must be contiguous from byte 0, never empty).
    pub fn sample<S: CycleSim + ?Sized>(&mut self, sim: &mut S) -> bool {
        let p = self.ports.clone();
        let ready = self.ready || p.tready.is_none();
        if !(ready && sim.get_bit(p.tvalid)) {
            return false;
        }
        let data = sim.get_words(p.tdata);
        let keep = sim.get_words(p.tkeep);
        let last = sim.get_bit(p.tlast);
        let n = keep_len(&keep, p.bytes);
        for i in n..p.bytes {
            assert!(keep[i / 32] >> (i % 32) & 1 == 0, "cycle {}: tkeep {:x?} is not contiguous", sim.cycle(), keep);
        }
        assert!(n > 0, "cycle {}: beat with empty tkeep", sim.cycle());
        assert!(last || n == p.bytes, "cycle {}: non-last beat with partial tkeep ({n} bytes)", sim.cycle());
        if self.cur.is_empty() {
            self.first = sim.cycle();
        }
        self.cur.extend(unpack_beat(&data, n));
        self.beats += 1;
        if last {
            let user = p.tuser.map(|u| sim.get_bit(u)).unwrap_or(false);
            self.frames.push(SeenFrame { data: std::mem::take(&mut self.cur), user, first_cycle: self.first, last_cycle: sim.cycle() });
        }
        true
    }
}

/// Drivers and monitors stepped together, one cycle at a time.
#[derive(Default)]
pub struct StreamBench {
    pub drivers: Vec<AxisDriver>,
    pub monitors: Vec<AxisMonitor>,
    pub cycles: u64,
}

impl StreamBench {
    pub fn new(drivers: Vec<AxisDriver>, monitors: Vec<AxisMonitor>) -> Self {
        StreamBench { drivers, monitors, cycles: 0 }
    }
    /// drive → eval → sample → tick. Returns the number of beats the monitors took.
    pub fn step<S: CycleSim + ?Sized>(&mut self, sim: &mut S) -> usize {
        for d in &mut self.drivers {
            d.drive(sim);
        }
        for m in &mut self.monitors {
            m.drive(sim);
        }
        sim.eval();
        for d in &mut self.drivers {
            d.sample(sim);
        }
        let mut n = 0;
        for m in &mut self.monitors {
            n += m.sample(sim) as usize;
        }
        sim.tick();
        self.cycles += 1;
        n
    }
    /// Like [`step`](Self::step), calling `f` after `eval` (to sample other ports). Returns
    /// whether anything moved or is still on offer: a monitor beat, a `tvalid` a monitor saw, or
    /// `f` returning true.
    pub fn step_with<S: CycleSim + ?Sized, F: FnMut(&mut S) -> bool>(&mut self, sim: &mut S, mut f: F) -> bool {
        for d in &mut self.drivers {
            d.drive(sim);
        }
        for m in &mut self.monitors {
            m.drive(sim);
        }
        sim.eval();
        for d in &mut self.drivers {
            d.sample(sim);
        }
        let mut moved = false;
        for m in &mut self.monitors {
            moved |= m.sample(sim);
            moved |= sim.get_bit(m.ports.tvalid);
        }
        moved |= f(sim);
        sim.tick();
        self.cycles += 1;
        moved
    }
    /// Step until every driver is empty and no monitor has been offered a beat for `quiet`
    /// cycles. Panics after `max` cycles (a stalled pipeline).
    pub fn drain<S: CycleSim + ?Sized>(&mut self, sim: &mut S, quiet: u64, max: u64) -> u64 {
        let start = self.cycles;
        let mut still = 0;
        loop {
            let n = self.step(sim);
            let offered = self.monitors.iter().any(|m| sim.get_bit(m.ports.tvalid));
            let busy = offered || self.drivers.iter().any(|d| !d.idle());
            still = if n > 0 || busy { 0 } else { still + 1 };
            if still >= quiet {
                return self.cycles - start;
            }
            assert!(self.cycles - start < max, "stream stalled: {} cycles without finishing", max);
        }
    }
}
