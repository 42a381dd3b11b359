//! The cycle-level testbench API shared by every back end.
pub use nicgen_hdl::{top_ports, Dir, PortInfo};

/// The one API every testbench is written against. Ports are set and read as little-endian
/// arrays of u32 words (word 0 holds bits 31..0).
pub trait CycleSim {
    fn ports(&self) -> &[PortInfo];
    fn set(&mut self, port: usize, words: &[u32]);
    fn get(&mut self, port: usize, words: &mut [u32]);
    /// Settle combinational logic after inputs changed.
    fn eval(&mut self);
    /// One rising and one falling edge of the clock, settled.
    fn tick(&mut self);
    /// Cycles ticked so far.
    fn cycle(&self) -> u64;

    fn port(&self, name: &str) -> usize {
        self.try_port(name).unwrap_or_else(|| {
            let names: Vec<&str> = self.ports().iter().map(|p| p.name.as_str()).collect();
            panic!("no port {name}; ports are {names:?}")
        })
    }
    fn try_port(&self, name: &str) -> Option<usize> {
        self.ports().iter().position(|p| p.name == name)
    }
    fn set_u64(&mut self, port: usize, v: u64) {
        self.set(port, &[v as u32, (v >> 32) as u32]);
    }
    fn get_u64(&mut self, port: usize) -> u64 {
        let mut w = [0u32; 2];
        let n = self.ports()[port].words().min(2);
        self.get(port, &mut w[..n]);
        w[0] as u64 | (w[1] as u64) << 32
    }
    fn set_bit(&mut self, port: usize, v: bool) {
        self.set(port, &[v as u32]);
    }
    fn get_bit(&mut self, port: usize) -> bool {
        self.get_u64(port) & 1 == 1
    }
    fn get_words(&mut self, port: usize) -> Vec<u32> {
        let mut w = vec![0u32; self.ports()[port].words()];
        self.get(port, &mut w);
        w
    }
    /// Hold `reset` high for `n` cycles with every other input at zero, then release it.
    fn reset(&mut self, n: usize) {
        let ports: Vec<PortInfo> = self.ports().to_vec();
        for (i, p) in ports.iter().enumerate() {
            if p.dir == Dir::In && p.name != "clock" {
                self.set(i, &vec![0; p.words()]);
            }
        }
        if let Some(r) = self.try_port("reset") {
            self.set_bit(r, true);
            self.eval();
            for _ in 0..n {
                self.tick();
            }
            self.set_bit(r, false);
        }
        self.eval();
    }
}
