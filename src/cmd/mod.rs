pub mod bench;
pub mod lint;
pub mod pcap;
pub mod report;
pub mod sim;
pub mod verilog;
pub mod plot;
pub mod vivado;
