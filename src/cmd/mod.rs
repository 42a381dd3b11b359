pub mod lint;
pub mod pcap;
pub mod report;
pub mod sim;
pub mod verilog;
