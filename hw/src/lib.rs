pub mod axil;
pub mod board;
#[macro_use]
pub mod record;
pub mod crc;
pub mod em;
pub mod m2m;
pub mod roce;
pub mod service;
pub mod stream;
pub mod top;
