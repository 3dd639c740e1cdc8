//! Clock bins both runs of a scenario count in (the RTL run, [`super::run`], and the
//! reference model's, [`super::model_run`]), so that [`super::compare`] can find the
//! stretch of the run where their link use parted.

/// Clocks per bin of `DirReport::busy_bins` and `ModelSummary::busy_bins`.
pub const BUSY_BIN: u64 = 1000;

/// Count `clock` in its [`BUSY_BIN`] bin.
pub(crate) fn bump(bins: &mut Vec<u32>, clock: u64) {
    let i = (clock / BUSY_BIN) as usize;
    if bins.len() <= i {
        bins.resize(i + 1, 0);
    }
    bins[i] += 1;
}
