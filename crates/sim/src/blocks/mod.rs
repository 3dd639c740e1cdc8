pub mod crc16;
pub mod rx_credits;
pub mod tx_credits;
