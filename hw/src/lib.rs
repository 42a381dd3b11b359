pub mod axil;
pub mod crc;
pub mod roce;
pub mod stream;
pub mod top;
