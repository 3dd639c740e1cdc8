pub mod crc16;
