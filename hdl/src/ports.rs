//! A block's top-level ports as its emitted Verilog declares them.
use rust_hdl::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// Port name as in the emitted Verilog (`s_axis$tdata`).
    pub name: String,
    pub width: usize,
    pub dir: Dir,
}

impl PortInfo {
    pub fn words(&self) -> usize {
        self.width.div_ceil(32)
    }
    /// Vivado-friendly name used by the clean-port wrapper (`s_axis_tdata`).
    pub fn clean_name(&self) -> String {
        self.name.replace('$', "_")
    }
}

// ------------------------------------------------------------------ port discovery
#[derive(Default)]
struct PortLister {
    depth: usize,
    ns: Vec<String>,
    ports: Vec<PortInfo>,
}

impl Probe for PortLister {
    fn visit_start_scope(&mut self, _n: &str, _b: &dyn Block) {
        self.depth += 1;
    }
    fn visit_end_scope(&mut self, _n: &str, _b: &dyn Block) {
        self.depth -= 1;
    }
    fn visit_start_namespace(&mut self, n: &str, _b: &dyn Block) {
        if self.depth == 1 {
            self.ns.push(n.into())
        }
    }
    fn visit_end_namespace(&mut self, _n: &str, _b: &dyn Block) {
        if self.depth == 1 {
            self.ns.pop();
        }
    }
    fn visit_atom(&mut self, n: &str, a: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match a.kind() {
            AtomKind::InputParameter => Dir::In,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => Dir::Out,
            _ => return,
        };
        let mut name = self.ns.join("$");
        if !name.is_empty() {
            name.push('$');
        }
        name.push_str(n);
        self.ports.push(PortInfo { name, width: a.bits(), dir });
    }
}

/// The top-level ports of a block, in Verilog declaration order.
pub fn top_ports<T: Block>(uut: &T) -> Vec<PortInfo> {
    let mut p = PortLister::default();
    uut.accept("top", &mut p);
    p.ports
}
