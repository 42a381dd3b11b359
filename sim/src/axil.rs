//! AXI4-Lite master for testbenches: reads and writes with random valid delays and random
//! ready backpressure on the response channels. Each call ticks the simulation until its
//! response arrives (bounded).
use crate::cycle::CycleSim;
use crate::rng::Rng;

pub const OKAY: u8 = 0;
pub const SLVERR: u8 = 2;

pub struct AxilMaster {
    p: Vec<usize>,
    rng: Rng,
    /// Percent chance, per cycle, of offering a request or accepting a response.
    pub pct: u32,
}

const NAMES: [&str; 17] = [
    "awaddr", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp", "bvalid", "bready", "araddr",
    "arvalid", "arready", "rdata", "rresp", "rvalid", "rready",
];

impl AxilMaster {
    pub fn new<S: CycleSim + ?Sized>(sim: &S, prefix: &str, pct: u32, seed: u64) -> Self {
        let p = NAMES.iter().map(|n| sim.port(&format!("{prefix}${n}"))).collect();
        AxilMaster { p, rng: Rng::new(seed), pct }
    }
    fn port(&self, n: &str) -> usize {
        self.p[NAMES.iter().position(|x| *x == n).unwrap()]
    }
    /// Drive every master output low (call once after reset).
    pub fn idle<S: CycleSim + ?Sized>(&self, sim: &mut S) {
        for n in ["awvalid", "wvalid", "bready", "arvalid", "rready"] {
            sim.set_bit(self.port(n), false);
        }
    }

    /// Read the 32-bit word at `addr`: (data, resp).
    pub fn read<S: CycleSim + ?Sized>(&mut self, sim: &mut S, addr: impl Into<u64>) -> (u32, u8) {
        let addr: u64 = addr.into();
        let (ar, arv, arr, rd, rr, rv, rrdy) = (self.port("araddr"), self.port("arvalid"), self.port("arready"), self.port("rdata"), self.port("rresp"), self.port("rvalid"), self.port("rready"));
        let mut offered = false;
        let mut sent = false;
        for _ in 0..1000 {
            if !sent && !offered {
                offered = self.rng.chance(self.pct);
            }
            sim.set_u64(ar, addr);
            sim.set_bit(arv, offered && !sent);
            let ready = sent && self.rng.chance(self.pct);
            sim.set_bit(rrdy, ready);
            sim.eval();
            if offered && !sent && sim.get_bit(arr) {
                sent = true;
            }
            if ready && sim.get_bit(rv) {
                let v = (sim.get_u64(rd) as u32, sim.get_u64(rr) as u8);
                sim.tick();
                sim.set_bit(rrdy, false);
                sim.set_bit(arv, false);
                return v;
            }
            sim.tick();
        }
        panic!("AXI4-Lite read of 0x{addr:04x}: no response in 1000 cycles");
    }

    /// Write `data` at `addr` with byte strobes `strb`: the response code.
    pub fn write<S: CycleSim + ?Sized>(&mut self, sim: &mut S, addr: impl Into<u64>, data: u32, strb: u8) -> u8 {
        let addr: u64 = addr.into();
        let (aw, awv, awr, wd, ws, wv, wr, br, bv, brdy) = (
            self.port("awaddr"), self.port("awvalid"), self.port("awready"), self.port("wdata"), self.port("wstrb"),
            self.port("wvalid"), self.port("wready"), self.port("bresp"), self.port("bvalid"), self.port("bready"),
        );
        let (mut a_on, mut w_on, mut a_done, mut w_done) = (false, false, false, false);
        for _ in 0..1000 {
            // address and data may be offered in either order
            if !a_on {
                a_on = self.rng.chance(self.pct);
            }
            if !w_on {
                w_on = self.rng.chance(self.pct);
            }
            sim.set_u64(aw, addr);
            sim.set_u64(wd, data as u64);
            sim.set_u64(ws, strb as u64);
            sim.set_bit(awv, a_on && !a_done);
            sim.set_bit(wv, w_on && !w_done);
            let ready = a_done && w_done && self.rng.chance(self.pct);
            sim.set_bit(brdy, ready);
            sim.eval();
            if a_on && !a_done && sim.get_bit(awr) {
                a_done = true;
            }
            if w_on && !w_done && sim.get_bit(wr) {
                w_done = true;
            }
            if ready && sim.get_bit(bv) {
                let r = sim.get_u64(br) as u8;
                sim.tick();
                sim.set_bit(brdy, false);
                sim.set_bit(awv, false);
                sim.set_bit(wv, false);
                return r;
            }
            sim.tick();
        }
        panic!("AXI4-Lite write of 0x{addr:04x}: no response in 1000 cycles");
    }
}
