pub mod stream; pub mod crc;
