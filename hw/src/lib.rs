pub mod crc;
pub mod stream;
pub mod top;
