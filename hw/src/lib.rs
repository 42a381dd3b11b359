pub mod axil;
pub mod crc;
pub mod stream;
pub mod top;
