//! Every generated variant of every block family, listed once.
//!
//! A block family is one const-generic rust-hdl type; each variant (a data width, a
//! VLCap, a buffer size) is one instantiation. Three places need to go from a runtime
//! key to that type — emission ([`crate::catalog`]), the Rust twin and the
//! Verilated model (`iblink-sim`) — and all three use the `with_<family>!` macro here,
//! so a new variant is added in one line.
//!
//! ```ignore
//! with_tx_credits!(vls, |T| crate::io::top_ports(&T::default()), _ => panic!(..))
//! ```
//! runs the body with `T` bound to the variant's type, or the fallback arm when the key
//! names no generated variant.

/// Match `$key` against `$pat`s and run `$body` with `$t` aliased to the matching type.
#[macro_export]
macro_rules! dispatch_variant {
    ($key:expr; $($pat:pat => $ty:ty),+ ; |$t:ident| $body:expr ; _ => $other:expr) => {
        match $key {
            $($pat => {
                #[allow(dead_code)]
                type $t = $ty;
                $body
            })+
            _ => $other,
        }
    };
}

/// CRC-16 unit by data width in bits.
#[macro_export]
macro_rules! with_crc16 {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            8 => $crate::crc16::Crc16W8,
            16 => $crate::crc16::Crc16W16,
            32 => $crate::crc16::Crc16W32,
            64 => $crate::crc16::Crc16W64;
            |$t| $body; _ => $other)
    };
}

/// Pipelined dword CRC unit by data width in bits (32 only).
#[macro_export]
macro_rules! with_crc16_dword {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            32 => $crate::crc16_dword::Crc16DwordW32;
            |$t| $body; _ => $other)
    };
}

/// TX credits by VLCap.
#[macro_export]
macro_rules! with_tx_credits {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            1 => $crate::tx_credits::TxCreditsVl1,
            2 => $crate::tx_credits::TxCreditsVl2,
            4 => $crate::tx_credits::TxCreditsVl4,
            8 => $crate::tx_credits::TxCreditsVl8,
            15 => $crate::tx_credits::TxCreditsVl15;
            |$t| $body; _ => $other)
    };
}

/// RX credits by (VLCap, buffer blocks per VL): the default buffer for every VLCap, and
/// the sizes the tests need (seed 000's 3072 blocks, the largest buffer).
#[macro_export]
macro_rules! with_rx_credits {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, $crate::rx_credits::DEFAULT_CAPACITY) => $crate::rx_credits::RxCreditsVl1,
            (2, $crate::rx_credits::DEFAULT_CAPACITY) => $crate::rx_credits::RxCreditsVl2,
            (4, $crate::rx_credits::DEFAULT_CAPACITY) => $crate::rx_credits::RxCreditsVl4,
            (8, $crate::rx_credits::DEFAULT_CAPACITY) => $crate::rx_credits::RxCreditsVl8,
            (15, $crate::rx_credits::DEFAULT_CAPACITY) => $crate::rx_credits::RxCreditsVl15,
            (1, 3072) => $crate::rx_credits::RxCreditsVl1Buf3072,
            (4, 3072) => $crate::rx_credits::RxCreditsVl4Buf3072,
            (15, 3072) => $crate::rx_credits::RxCreditsVl15Buf3072,
            (15, $crate::rx_credits::MAX_CAPACITY) => $crate::rx_credits::RxCreditsVl15Buf4095;
            |$t| $body; _ => $other)
    };
}

/// SLtoVL table by VLCap.
#[macro_export]
macro_rules! with_sl2vl {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            1 => $crate::sl2vl::SlToVlVl1,
            2 => $crate::sl2vl::SlToVlVl2,
            4 => $crate::sl2vl::SlToVlVl4,
            8 => $crate::sl2vl::SlToVlVl8,
            15 => $crate::sl2vl::SlToVlVl15;
            |$t| $body; _ => $other)
    };
}

/// VL15 receive buffer by capacity in packets.
#[macro_export]
macro_rules! with_vl15_rx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            1 => $crate::vl15_rx::Vl15RxCap1,
            4 => $crate::vl15_rx::Vl15RxCap4;
            |$t| $body; _ => $other)
    };
}

/// FCP RX framer by (VLCap, link word width in bits).
#[macro_export]
macro_rules! with_fcp_rx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::fcp_rx::FcpRxVl1W32,
            (2, 32) => $crate::fcp_rx::FcpRxVl2W32,
            (4, 32) => $crate::fcp_rx::FcpRxVl4W32,
            (8, 32) => $crate::fcp_rx::FcpRxVl8W32,
            (15, 32) => $crate::fcp_rx::FcpRxVl15W32,
            (1, 64) => $crate::fcp_rx::FcpRxVl1W64,
            (2, 64) => $crate::fcp_rx::FcpRxVl2W64,
            (4, 64) => $crate::fcp_rx::FcpRxVl4W64,
            (8, 64) => $crate::fcp_rx::FcpRxVl8W64,
            (15, 64) => $crate::fcp_rx::FcpRxVl15W64;
            |$t| $body; _ => $other)
    };
}

/// FCP TX framer and scheduler by (VLCap, link word width in bits).
#[macro_export]
macro_rules! with_fcp_tx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::fcp_tx::FcpTxVl1W32,
            (2, 32) => $crate::fcp_tx::FcpTxVl2W32,
            (4, 32) => $crate::fcp_tx::FcpTxVl4W32,
            (8, 32) => $crate::fcp_tx::FcpTxVl8W32,
            (15, 32) => $crate::fcp_tx::FcpTxVl15W32,
            (1, 64) => $crate::fcp_tx::FcpTxVl1W64,
            (2, 64) => $crate::fcp_tx::FcpTxVl2W64,
            (4, 64) => $crate::fcp_tx::FcpTxVl4W64,
            (8, 64) => $crate::fcp_tx::FcpTxVl8W64,
            (15, 64) => $crate::fcp_tx::FcpTxVl15W64;
            |$t| $body; _ => $other)
    };
}

/// Link TX path by link word width in bits.
#[macro_export]
macro_rules! with_link_tx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            32 => $crate::link_tx::LinkTxW32,
            64 => $crate::link_tx::LinkTxW64;
            |$t| $body; _ => $other)
    };
}

/// Link RX classifier by (VLCap, link word width in bits).
#[macro_export]
macro_rules! with_link_rx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::link_rx::LinkRxVl1W32,
            (2, 32) => $crate::link_rx::LinkRxVl2W32,
            (4, 32) => $crate::link_rx::LinkRxVl4W32,
            (8, 32) => $crate::link_rx::LinkRxVl8W32,
            (15, 32) => $crate::link_rx::LinkRxVl15W32,
            (1, 64) => $crate::link_rx::LinkRxVl1W64,
            (2, 64) => $crate::link_rx::LinkRxVl2W64,
            (4, 64) => $crate::link_rx::LinkRxVl4W64,
            (8, 64) => $crate::link_rx::LinkRxVl8W64,
            (15, 64) => $crate::link_rx::LinkRxVl15W64;
            |$t| $body; _ => $other)
    };
}

/// Data-VL arbiter by VLCap.
#[macro_export]
macro_rules! with_vl_arb {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            1 => $crate::vl_arb::VlArbVl1,
            2 => $crate::vl_arb::VlArbVl2,
            4 => $crate::vl_arb::VlArbVl4,
            8 => $crate::vl_arb::VlArbVl8,
            15 => $crate::vl_arb::VlArbVl15;
            |$t| $body; _ => $other)
    };
}

/// Failsafe by VLCap.
#[macro_export]
macro_rules! with_failsafe {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            1 => $crate::failsafe::FailsafeVl1,
            2 => $crate::failsafe::FailsafeVl2,
            4 => $crate::failsafe::FailsafeVl4,
            8 => $crate::failsafe::FailsafeVl8,
            15 => $crate::failsafe::FailsafeVl15;
            |$t| $body; _ => $other)
    };
}

/// The link port by (VLCap, link word bits).
#[macro_export]
macro_rules! with_link_port {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::link_port::LinkPortVl1W32,
            (2, 32) => $crate::link_port::LinkPortVl2W32,
            (4, 32) => $crate::link_port::LinkPortVl4W32,
            (8, 32) => $crate::link_port::LinkPortVl8W32,
            (15, 32) => $crate::link_port::LinkPortVl15W32,
            (1, 64) => $crate::link_port::LinkPortVl1W64,
            (2, 64) => $crate::link_port::LinkPortVl2W64,
            (4, 64) => $crate::link_port::LinkPortVl4W64,
            (8, 64) => $crate::link_port::LinkPortVl8W64,
            (15, 64) => $crate::link_port::LinkPortVl15W64;
            |$t| $body; _ => $other)
    };
}

/// PAUSE/PFC transmit side by (queues, datapath width in bits).
#[macro_export]
macro_rules! with_pfc_tx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::pfc_tx::PfcTxQ1W32,
            (2, 32) => $crate::pfc_tx::PfcTxQ2W32,
            (3, 32) => $crate::pfc_tx::PfcTxQ3W32,
            (4, 32) => $crate::pfc_tx::PfcTxQ4W32,
            (5, 32) => $crate::pfc_tx::PfcTxQ5W32,
            (6, 32) => $crate::pfc_tx::PfcTxQ6W32,
            (7, 32) => $crate::pfc_tx::PfcTxQ7W32,
            (8, 32) => $crate::pfc_tx::PfcTxQ8W32,
            (1, 64) => $crate::pfc_tx::PfcTxQ1W64,
            (2, 64) => $crate::pfc_tx::PfcTxQ2W64,
            (3, 64) => $crate::pfc_tx::PfcTxQ3W64,
            (4, 64) => $crate::pfc_tx::PfcTxQ4W64,
            (5, 64) => $crate::pfc_tx::PfcTxQ5W64,
            (6, 64) => $crate::pfc_tx::PfcTxQ6W64,
            (7, 64) => $crate::pfc_tx::PfcTxQ7W64,
            (8, 64) => $crate::pfc_tx::PfcTxQ8W64;
            |$t| $body; _ => $other)
    };
}

/// PAUSE/PFC frame builder by (queues, datapath width in bits).
#[macro_export]
macro_rules! with_eth_txq {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::eth_txq::EthTxqQ1W32,
            (2, 32) => $crate::eth_txq::EthTxqQ2W32,
            (3, 32) => $crate::eth_txq::EthTxqQ3W32,
            (4, 32) => $crate::eth_txq::EthTxqQ4W32,
            (5, 32) => $crate::eth_txq::EthTxqQ5W32,
            (6, 32) => $crate::eth_txq::EthTxqQ6W32,
            (7, 32) => $crate::eth_txq::EthTxqQ7W32,
            (8, 32) => $crate::eth_txq::EthTxqQ8W32,
            (1, 64) => $crate::eth_txq::EthTxqQ1W64,
            (2, 64) => $crate::eth_txq::EthTxqQ2W64,
            (3, 64) => $crate::eth_txq::EthTxqQ3W64,
            (4, 64) => $crate::eth_txq::EthTxqQ4W64,
            (5, 64) => $crate::eth_txq::EthTxqQ5W64,
            (6, 64) => $crate::eth_txq::EthTxqQ6W64,
            (7, 64) => $crate::eth_txq::EthTxqQ7W64,
            (8, 64) => $crate::eth_txq::EthTxqQ8W64;
            |$t| $body; _ => $other)
    };
}

#[macro_export]
macro_rules! with_eth_port {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::eth_port::EthPortQ1W32,
            (2, 32) => $crate::eth_port::EthPortQ2W32,
            (3, 32) => $crate::eth_port::EthPortQ3W32,
            (4, 32) => $crate::eth_port::EthPortQ4W32,
            (5, 32) => $crate::eth_port::EthPortQ5W32,
            (6, 32) => $crate::eth_port::EthPortQ6W32,
            (7, 32) => $crate::eth_port::EthPortQ7W32,
            (8, 32) => $crate::eth_port::EthPortQ8W32,
            (1, 64) => $crate::eth_port::EthPortQ1W64,
            (2, 64) => $crate::eth_port::EthPortQ2W64,
            (3, 64) => $crate::eth_port::EthPortQ3W64,
            (4, 64) => $crate::eth_port::EthPortQ4W64,
            (5, 64) => $crate::eth_port::EthPortQ5W64,
            (6, 64) => $crate::eth_port::EthPortQ6W64,
            (7, 64) => $crate::eth_port::EthPortQ7W64,
            (8, 64) => $crate::eth_port::EthPortQ8W64;
            |$t| $body; _ => $other)
    };
}

#[macro_export]
macro_rules! with_eth_rxbuf {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::eth_rxbuf::EthRxbufQ1W32,
            (2, 32) => $crate::eth_rxbuf::EthRxbufQ2W32,
            (3, 32) => $crate::eth_rxbuf::EthRxbufQ3W32,
            (4, 32) => $crate::eth_rxbuf::EthRxbufQ4W32,
            (5, 32) => $crate::eth_rxbuf::EthRxbufQ5W32,
            (6, 32) => $crate::eth_rxbuf::EthRxbufQ6W32,
            (7, 32) => $crate::eth_rxbuf::EthRxbufQ7W32,
            (8, 32) => $crate::eth_rxbuf::EthRxbufQ8W32,
            (1, 64) => $crate::eth_rxbuf::EthRxbufQ1W64,
            (2, 64) => $crate::eth_rxbuf::EthRxbufQ2W64,
            (3, 64) => $crate::eth_rxbuf::EthRxbufQ3W64,
            (4, 64) => $crate::eth_rxbuf::EthRxbufQ4W64,
            (5, 64) => $crate::eth_rxbuf::EthRxbufQ5W64,
            (6, 64) => $crate::eth_rxbuf::EthRxbufQ6W64,
            (7, 64) => $crate::eth_rxbuf::EthRxbufQ7W64,
            (8, 64) => $crate::eth_rxbuf::EthRxbufQ8W64;
            |$t| $body; _ => $other)
    };
}

#[macro_export]
macro_rules! with_pfc_frame {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            (1, 32) => $crate::pfc_frame::PfcFrameQ1W32,
            (2, 32) => $crate::pfc_frame::PfcFrameQ2W32,
            (3, 32) => $crate::pfc_frame::PfcFrameQ3W32,
            (4, 32) => $crate::pfc_frame::PfcFrameQ4W32,
            (5, 32) => $crate::pfc_frame::PfcFrameQ5W32,
            (6, 32) => $crate::pfc_frame::PfcFrameQ6W32,
            (7, 32) => $crate::pfc_frame::PfcFrameQ7W32,
            (8, 32) => $crate::pfc_frame::PfcFrameQ8W32,
            (1, 64) => $crate::pfc_frame::PfcFrameQ1W64,
            (2, 64) => $crate::pfc_frame::PfcFrameQ2W64,
            (3, 64) => $crate::pfc_frame::PfcFrameQ3W64,
            (4, 64) => $crate::pfc_frame::PfcFrameQ4W64,
            (5, 64) => $crate::pfc_frame::PfcFrameQ5W64,
            (6, 64) => $crate::pfc_frame::PfcFrameQ6W64,
            (7, 64) => $crate::pfc_frame::PfcFrameQ7W64,
            (8, 64) => $crate::pfc_frame::PfcFrameQ8W64;
            |$t| $body; _ => $other)
    };
}

/// PAUSE/PFC receive side by datapath width in bits.
#[macro_export]
macro_rules! with_pause_rx {
    ($key:expr, |$t:ident| $body:expr, _ => $other:expr) => {
        $crate::dispatch_variant!($key;
            32 => $crate::pause_rx::PauseRxW32,
            64 => $crate::pause_rx::PauseRxW64;
            |$t| $body; _ => $other)
    };
}
