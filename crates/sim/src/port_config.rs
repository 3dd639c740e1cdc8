//! From a validated port configuration (`iblink_model::config::PortConfig`, the TOML a
//! user writes) to the parameters the link port RTL is generated from.

use iblink_model::arbiter::LowPolicy;
use iblink_model::config::{ConfigError, PortConfig};
use iblink_rtl::link_port::PortParams;

/// The link port parameters a (validated) port configuration names. Fails, naming the
/// field, where a value is valid for the model but does not fit the port's registers.
pub fn port_params(c: &PortConfig) -> Result<PortParams, ConfigError> {
    let clocks16 = |field: &str, v: u32| {
        u16::try_from(v).map_err(|_| ConfigError::field(field, format!("{v} clocks does not fit the port's 16-bit timer")))
    };
    let periods16 = |field: &str, v: u32| {
        u16::try_from(v).map_err(|_| ConfigError::field(field, format!("{v} does not fit the port's 16-bit register")))
    };
    Ok(PortParams {
        vl_cap: c.vl_cap.get() as usize,
        width: c.datapath_bytes as usize * 8,
        buffer_blocks: c.buffer_blocks,
        vl15_packets: c.vl15_buffer_packets as usize,
        refresh_clocks: clocks16("refresh_symbols", c.refresh_clocks())?,
        min_gap_clocks: clocks16("min_fcp_gap", c.min_gap_clocks())?,
        vl_high_limit: c.vl_high_limit,
        one_packet: c.low_policy == LowPolicy::OnePacket,
        high: c.high.iter().map(|e| (e.vl, e.weight)).collect(),
        low: c.low.iter().map(|e| (e.vl, e.weight)).collect(),
        update_periods: periods16("update_monitor_periods", c.update_monitor_periods)?,
        overrun_periods: periods16("overrun_periods", c.overrun_periods)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults of the configuration are the port's defaults (docs/spec.md §5, §8).
    #[test]
    fn default_config_is_default_port() {
        for (vl_cap, bytes) in [(1u8, 4u8), (4, 4), (15, 8)] {
            let text = format!("vl_cap = {vl_cap}\ndatapath_bits = {}\n", bytes * 8);
            let c = PortConfig::from_toml(&text).unwrap();
            assert_eq!(port_params(&c).unwrap(), PortParams::defaults(vl_cap as usize, bytes as usize * 8));
        }
    }
}
