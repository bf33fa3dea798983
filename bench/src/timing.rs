//! Timing: CUDA events around device work, medians of many runs.

use cuprum::Stream;

/// Milliseconds the device spent on the work `f` enqueues, measured with events.
pub fn device_ms(
    stream: &Stream,
    mut f: impl FnMut() -> cuprum::Result<()>,
) -> cuprum::Result<f64> {
    let start = stream.record_event()?;
    f()?;
    let end = stream.record_event()?;
    Ok(start.elapsed_ms(&end)? as f64)
}

/// The median of `samples` (sorted in place).
pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}
