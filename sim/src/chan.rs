//! Testbench agents for valid/ready channels that carry one word vector per transfer (a parsed
//! header, a command, a completion): `<prefix>`, `<prefix>_valid`, `<prefix>_ready`.
use crate::cycle::CycleSim;
use crate::rng::Rng;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct ChanPorts {
    pub data: usize,
    pub valid: usize,
    pub ready: usize,
}

impl ChanPorts {
    /// `data` is the payload port; `valid`/`ready` are `<data>_valid`/`<data>_ready` unless given.
    pub fn find<S: CycleSim + ?Sized>(sim: &S, data: &str) -> Self {
        ChanPorts { data: sim.port(data), valid: sim.port(&format!("{data}_valid")), ready: sim.port(&format!("{data}_ready")) }
    }
}

/// Takes transfers from a channel the design drives, with `ready` high `ready_pct`% of cycles.
pub struct ChanMonitor {
    pub ports: ChanPorts,
    pub ready_pct: u32,
    rng: Rng,
    ready: bool,
    /// (cycle, words) of each transfer.
    pub seen: Vec<(u64, Vec<u32>)>,
}

impl ChanMonitor {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, data: &str, ready_pct: u32, seed: u64) -> Self {
        ChanMonitor { ports: ChanPorts::find(sim, data), ready_pct, rng: Rng::new(seed), ready: false, seen: vec![] }
    }
    pub fn drive<S: CycleSim + ?Sized>(&mut self, sim: &mut S) {
        self.ready = self.rng.chance(self.ready_pct);
        sim.set_bit(self.ports.ready, self.ready);
    }
    /// After `eval`. Returns whether a transfer happened.
    pub fn sample<S: CycleSim + ?Sized>(&mut self, sim: &mut S) -> bool {
        if self.ready && sim.get_bit(self.ports.valid) {
            let w = sim.get_words(self.ports.data);
            self.seen.push((sim.cycle(), w));
            true
        } else {
            false
        }
    }
}

/// Offers transfers to a channel the design takes, with `valid` raised `valid_pct`% of the
/// cycles when idle (held until taken, as the protocol requires).
pub struct ChanDriver {
    pub ports: ChanPorts,
    pub valid_pct: u32,
    rng: Rng,
    queue: VecDeque<Vec<u32>>,
    presenting: bool,
    pub sent: u64,
    /// With [`ChanDriver::lookahead`]: whether a word is presented next cycle, drawn a cycle
    /// early while none is presented.
    look: bool,
    next: Option<bool>,
}

impl ChanDriver {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, data: &str, valid_pct: u32, seed: u64) -> Self {
        ChanDriver { ports: ChanPorts::find(sim, data), valid_pct, rng: Rng::new(seed), queue: VecDeque::new(), presenting: false, sent: 0, look: false, next: None }
    }
    /// Draw each cycle's valid a cycle early, so that [`ChanDriver::hint`] can tell what comes
    /// next, as a producer that loads its output register knows (the RX parser's header skid).
    pub fn lookahead(mut self) -> Self {
        self.look = true;
        self
    }
    /// With `lookahead`: the word presented next cycle, when none is presented now.
    pub fn hint(&self) -> Option<&Vec<u32>> {
        if !self.presenting && self.next == Some(true) {
            self.queue.front()
        } else {
            None
        }
    }
    /// One cycle's valid: a word waits and the valid percentage says present it.
    fn draw(&mut self) -> bool {
        !self.queue.is_empty() && self.rng.chance(self.valid_pct)
    }
    pub fn push(&mut self, w: Vec<u32>) {
        self.queue.push_back(w);
    }
    pub fn idle(&self) -> bool {
        self.queue.is_empty()
    }
    pub fn drive<S: CycleSim + ?Sized>(&mut self, sim: &mut S) {
        if !self.presenting {
            self.presenting = match self.next.take() {
                Some(p) => p,
                None => self.draw(),
            };
            if self.look && !self.presenting {
                self.next = Some(self.draw());
            }
        }
        sim.set_bit(self.ports.valid, self.presenting);
        if let Some(w) = self.queue.front() {
            sim.set(self.ports.data, w);
        }
    }
    pub fn sample<S: CycleSim + ?Sized>(&mut self, sim: &mut S) -> bool {
        if self.presenting && sim.get_bit(self.ports.ready) {
            self.queue.pop_front();
            self.presenting = false;
            self.sent += 1;
            true
        } else {
            false
        }
    }
}
