//! AXI4-Stream bus types. `D` is the data width in bits and `K = D/8` the `tkeep` width (passed
//! separately because derived const widths need nightly Rust). `tuser` bit 0 flags a bad frame
//! and is meaningful on `tlast`.
use rust_hdl::prelude::*;

/// The source (master) side of a stream: `m_axis_*`.
#[derive(LogicInterface, Default)]
#[join = "AxisSink"]
pub struct AxisSource<const D: usize, const K: usize> {
    pub tdata: Signal<Out, Bits<D>>,
    pub tkeep: Signal<Out, Bits<K>>,
    pub tlast: Signal<Out, Bit>,
    pub tuser: Signal<Out, Bit>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// The sink (slave) side of a stream: `s_axis_*`.
#[derive(LogicInterface, Default)]
#[join = "AxisSource"]
pub struct AxisSink<const D: usize, const K: usize> {
    pub tdata: Signal<In, Bits<D>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// A passive tap on a stream (a monitor): every signal is an input, and a beat passes when
/// `tvalid & tready`. A tap has no way to push back.
#[derive(LogicInterface, Default)]
pub struct AxisTap<const D: usize, const K: usize> {
    pub tdata: Signal<In, Bits<D>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
}

pub const DATA_W: usize = 512;
pub const KEEP_W: usize = 64;
/// The default 512-bit stream.
pub type Axis512Sink = AxisSink<DATA_W, KEEP_W>;
pub type Axis512Source = AxisSource<DATA_W, KEEP_W>;
pub type Axis512Tap = AxisTap<DATA_W, KEEP_W>;
