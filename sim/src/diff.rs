//! `Diff`: two back ends driven with the same inputs, compared on every output after every
//! `eval` and `tick`. The first difference panics with the cycle, port and both values.
use crate::cycle::{CycleSim, Dir, PortInfo};

pub struct Diff<A: CycleSim, B: CycleSim> {
    pub a: A,
    pub b: B,
    pub names: (&'static str, &'static str),
    outs: Vec<usize>,
}

impl<A: CycleSim, B: CycleSim> Diff<A, B> {
    pub fn new(a: A, b: B) -> Self {
        assert_eq!(a.ports(), b.ports(), "lock step needs identical port lists");
        let outs = a.ports().iter().enumerate().filter(|(_, p)| p.dir == Dir::Out).map(|(i, _)| i).collect();
        let mut d = Diff { a, b, names: ("verilator", "rust-hdl"), outs };
        d.compare("start");
        d
    }

    fn compare(&mut self, when: &str) {
        for &i in &self.outs {
            let (x, y) = (self.a.get_words(i), self.b.get_words(i));
            if x != y {
                panic!(
                    "lock step: output {} differs at cycle {} ({when}): {} {} vs {} {}",
                    self.a.ports()[i].name,
                    self.a.cycle(),
                    self.names.0,
                    hex(&x),
                    self.names.1,
                    hex(&y)
                );
            }
        }
    }
}

fn hex(w: &[u32]) -> String {
    let mut s = String::from("0x");
    for x in w.iter().rev() {
        s += &format!("{x:08x}");
    }
    s
}

impl<A: CycleSim, B: CycleSim> CycleSim for Diff<A, B> {
    fn ports(&self) -> &[PortInfo] {
        self.a.ports()
    }
    fn set(&mut self, port: usize, w: &[u32]) {
        self.a.set(port, w);
        self.b.set(port, w);
    }
    fn get(&mut self, port: usize, w: &mut [u32]) {
        self.a.get(port, w);
    }
    fn eval(&mut self) {
        self.a.eval();
        self.b.eval();
        self.compare("eval");
    }
    fn tick(&mut self) {
        self.a.tick();
        self.b.tick();
        self.compare("tick");
    }
    fn cycle(&self) -> u64 {
        self.a.cycle()
    }
}
