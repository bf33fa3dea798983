//! Black-Scholes option pricing: transcendental math (`ln`, `exp`, `sqrt` from libdevice) and
//! `#[device]` functions.
//!
//! Run: `cargo run --release --example black_scholes`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// The cumulative normal distribution, by the polynomial of NVIDIA's classic sample (its
/// constants as the sample writes them).
#[allow(clippy::excessive_precision)]
#[device]
pub fn cnd(d: f32) -> f32 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let c = 0.3989422804
        * (-0.5 * d * d).exp()
        * (k * (0.31938153
            + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

/// (call, put) for spot `s`, strike `x`, years `t`, rate `r`, volatility `v`.
#[device]
pub fn price(s: f32, x: f32, t: f32, r: f32, v: f32) -> (f32, f32) {
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let (cnd1, cnd2) = (cnd(d1), cnd(d2));
    let exp_rt = (-r * t).exp();
    (
        s * cnd1 - x * exp_rt * cnd2,
        x * exp_rt * (1.0 - cnd2) - s * (1.0 - cnd1),
    )
}

/// One thread per option; block 256.
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn black_scholes(
    call: &mut [f32],
    put: &mut [f32],
    s: &[f32],
    x: &[f32],
    t: &[f32],
    r: f32,
    v: f32,
) {
    let i = gpu::global_id_x();
    if i < call.len() {
        let (c, p) = price(s[i], x[i], t[i], r, v);
        call[i] = c;
        put[i] = p;
    }
}

/// Options: spot, strike and maturity of each.
pub struct Options {
    /// Spot prices.
    pub s: Vec<f32>,
    /// Strikes.
    pub x: Vec<f32>,
    /// Years to expiry.
    pub t: Vec<f32>,
}

/// Rate and volatility of the example.
pub const RATE: f32 = 0.02;
/// Volatility.
pub const VOLATILITY: f32 = 0.30;

/// (call, put) prices computed on `stream`'s device.
pub fn compute(stream: &Stream, o: &Options) -> Result<(Vec<f32>, Vec<f32>)> {
    let (ds, dx, dt) = (
        stream.to_device(&o.s)?,
        stream.to_device(&o.x)?,
        stream.to_device(&o.t)?,
    );
    let n = o.s.len();
    let (mut call, mut put) = (
        stream.to_device(&vec![f32::NAN; n])?,
        stream.to_device(&vec![f32::NAN; n])?,
    );
    launch!(black_scholes<<<LaunchConfig::for_elements(n, 256).grid, 256, stream>>>(&mut call, &mut put, &ds, &dx, &dt, RATE, VOLATILITY))?;
    Ok((stream.to_host(&call)?, stream.to_host(&put)?))
}

/// Random options.
pub fn inputs(dev: &Device) -> Options {
    let n = if cuprum_testkit::small_inputs(dev) {
        1 << 16
    } else {
        1 << 24
    };
    Options {
        s: cuprum_testkit::random_f32(n, 5.0, 30.0),
        x: cuprum_testkit::random_f32(n, 1.0, 100.0),
        t: cuprum_testkit::random_f32(n, 0.25, 10.0),
    }
}

fn price_f64(s: f64, x: f64, t: f64, r: f64, v: f64) -> (f64, f64) {
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.2316419 * d.abs());
        let c = 0.3989422804
            * (-0.5 * d * d).exp()
            * (k * (0.31938153
                + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
        if d > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
    let d2 = d1 - v * t.sqrt();
    let e = (-r * t).exp();
    (
        s * cnd(d1) - x * e * cnd(d2),
        x * e * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
    )
}

/// Checks every price against the same formula in f64 (absolute 1e-4 plus relative 1e-4).
pub fn check(o: &Options, call: &[f32], put: &[f32]) -> std::result::Result<String, String> {
    for i in 0..o.s.len() {
        let (c, p) = price_f64(
            o.s[i] as f64,
            o.x[i] as f64,
            o.t[i] as f64,
            RATE as f64,
            VOLATILITY as f64,
        );
        for (what, got, want) in [("call", call[i], c), ("put", put[i], p)] {
            if got.is_nan() || (got as f64 - want).abs() > 1e-4 + 1e-4 * want.abs() {
                return Err(format!("option {i}: {what} {got}, expected {want}"));
            }
        }
    }
    Ok(format!("{} options priced", o.s.len()))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let o = inputs(dev);
    let (call, put) = compute(&dev.default_stream(), &o)?;
    Ok(check(&o, &call, &put))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("black_scholes", run)
}
