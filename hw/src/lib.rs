pub mod axil;
pub mod board;
pub mod blockbench;
#[macro_use]
pub mod record;
pub mod crc;
pub mod em;
pub mod m2m;
pub mod roce;
pub mod scenario;
pub mod service;
pub mod stream;
pub mod top;
