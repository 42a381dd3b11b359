//! `RustHdlSim`: rust-hdl's own simulator behind the `CycleSim` API.
use crate::cycle::{top_ports, CycleSim, PortInfo};
use rust_hdl::prelude::*;

pub use nicgen_hdl::{PortAccess, SigWords, StructWords};

pub struct RustHdlSim<T: Block + PortAccess> {
    pub uut: T,
    ports: Vec<PortInfo>,
    cycle: u64,
}

impl<T: Block + PortAccess> RustHdlSim<T> {
    pub fn new(mut uut: T) -> Self {
        uut.connect_all();
        check_all(&uut).expect("rust-hdl static checks");
        let ports = top_ports(&uut);
        let names: Vec<String> = ports.iter().map(|p| p.name.clone()).collect();
        assert_eq!(names, T::port_names(), "impl_ports! order must match the Verilog port order");
        let mut s = RustHdlSim { uut, ports, cycle: 0 };
        s.eval();
        s
    }
}

impl<T: Block + PortAccess> CycleSim for RustHdlSim<T> {
    fn ports(&self) -> &[PortInfo] {
        &self.ports
    }
    fn set(&mut self, port: usize, w: &[u32]) {
        self.uut.port_sig(port).put(w)
    }
    fn get(&mut self, port: usize, w: &mut [u32]) {
        self.uut.port_sig(port).take(w)
    }
    fn eval(&mut self) {
        assert!(simulate(&mut self.uut, 200), "rust-hdl simulation did not converge");
    }
    fn tick(&mut self) {
        self.eval();
        self.uut.clock_sig().next = Clock { clk: true };
        self.eval();
        self.uut.clock_sig().next = Clock { clk: false };
        self.eval();
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}
