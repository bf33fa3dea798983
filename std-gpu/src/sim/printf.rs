//! `gpu::println!` on the simulator: the C `printf` directives the GPU's `vprintf` is called
//! with (`%lld`, `%llu`, `%llx`, `%llX`, `%llo`, `%f`, `%e`, `%E`, `%g`, `%s`, with `-`, `+`,
//! `0`, width and precision), formatted here exactly as C formats them, so that the
//! simulator prints what the GPU prints.

use std::io::Write;

/// One promoted `printf` argument.
#[derive(Clone, Copy, Debug)]
pub enum PrintfArg {
    /// A signed integer, sign-extended to 64 bits.
    Int(i64),
    /// An unsigned integer (or an integer printed in hex/octal), zero-extended.
    Uint(u64),
    /// A float, as `double`.
    Double(f64),
    /// A string (`bool`'s `"true"`/`"false"`).
    Str(&'static str),
}

/// Formats like C's `printf` and writes the result to standard output in one write, so that
/// lines of threads printing at once do not interleave.
pub fn printf(format: &str, args: &[PrintfArg]) {
    let text = format_printf(format, args);
    let out = std::io::stdout();
    let mut lock = out.lock();
    // A closed or full standard output is not the kernel's failure.
    let _ = lock.write_all(text.as_bytes());
    let _ = lock.flush();
}

/// The text C's `printf(format, args..)` prints, for the directives Cuprum emits. A missing
/// argument prints nothing, an unknown directive prints itself.
pub fn format_printf(format: &str, args: &[PrintfArg]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut d = Directive::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => d.left = true,
                '+' => d.plus = true,
                '0' => d.zero = true,
                _ => break,
            }
            chars.next();
        }
        let number = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n: Option<usize> = None;
            while let Some(v) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(v as usize));
                chars.next();
            }
            n
        };
        d.width = number(&mut chars).unwrap_or(0);
        if chars.peek() == Some(&'.') {
            chars.next();
            d.precision = Some(number(&mut chars).unwrap_or(0));
        }
        while chars.peek() == Some(&'l') {
            chars.next();
        }
        let Some(conv) = chars.next() else { break };
        let Some(arg) = args.next() else { continue };
        out.push_str(&d.format(conv, *arg));
    }
    out
}

#[derive(Default)]
struct Directive {
    left: bool,
    plus: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

impl Directive {
    fn format(&self, conv: char, arg: PrintfArg) -> String {
        let (sign, body, numeric) = match (conv, arg) {
            ('s', PrintfArg::Str(s)) => {
                let s: String = match self.precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s.to_string(),
                };
                (String::new(), s, false)
            }
            ('d' | 'i', PrintfArg::Int(v)) => {
                (self.sign(v < 0), v.unsigned_abs().to_string(), true)
            }
            ('u', PrintfArg::Uint(v)) => (String::new(), v.to_string(), true),
            ('x', PrintfArg::Uint(v)) => (String::new(), format!("{v:x}"), true),
            ('X', PrintfArg::Uint(v)) => (String::new(), format!("{v:X}"), true),
            ('o', PrintfArg::Uint(v)) => (String::new(), format!("{v:o}"), true),
            ('f' | 'F' | 'e' | 'E' | 'g' | 'G', PrintfArg::Double(v)) => {
                let sign = self.sign(v.is_sign_negative());
                let upper = conv.is_ascii_uppercase();
                if !v.is_finite() {
                    let t = if v.is_nan() { "nan" } else { "inf" };
                    let t = if upper { t.to_uppercase() } else { t.into() };
                    // C pads infinities and NaNs with spaces, never zeros.
                    return self.pad(&sign, &t, false);
                }
                let p = self.precision.unwrap_or(6);
                let a = v.abs();
                let body = match conv.to_ascii_lowercase() {
                    'f' => format!("{a:.p$}"),
                    'e' => c_exponent(a, p, upper),
                    _ => general(a, p, upper),
                };
                (sign, body, true)
            }
            // A promotion the macro never emits; print the value plainly.
            (_, PrintfArg::Int(v)) => (String::new(), v.to_string(), true),
            (_, PrintfArg::Uint(v)) => (String::new(), v.to_string(), true),
            (_, PrintfArg::Double(v)) => (String::new(), v.to_string(), true),
            (_, PrintfArg::Str(s)) => (String::new(), s.to_string(), false),
        };
        self.pad(&sign, &body, numeric)
    }

    fn sign(&self, negative: bool) -> String {
        if negative {
            "-".into()
        } else if self.plus {
            "+".into()
        } else {
            String::new()
        }
    }

    fn pad(&self, sign: &str, body: &str, numeric: bool) -> String {
        let len = sign.chars().count() + body.chars().count();
        let fill = self.width.saturating_sub(len);
        if self.left {
            format!("{sign}{body}{}", " ".repeat(fill))
        } else if self.zero && numeric {
            format!("{sign}{}{body}", "0".repeat(fill))
        } else {
            format!("{}{sign}{body}", " ".repeat(fill))
        }
    }
}

/// `%e` of a non-negative finite value: `d.ddde+XX` (at least two exponent digits).
fn c_exponent(a: f64, p: usize, upper: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{e}{sign}{:02}", exp.unsigned_abs())
}

/// `%g` of a non-negative finite value: `%e` or `%f` by the exponent, with `P` significant
/// digits and trailing zeros removed.
fn general(a: f64, p: usize, upper: bool) -> String {
    let p = p.max(1);
    let probe = format!("{a:.prec$e}", prec = p - 1);
    let exp: i32 = probe
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if exp < -4 || exp >= p as i32 {
        let s = c_exponent(a, p - 1, upper);
        let split = s.find(['e', 'E']).unwrap_or(s.len());
        let (m, e) = s.split_at(split);
        format!("{}{e}", trim(m.to_string()))
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim(format!("{a:.decimals$}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{c_char, c_int, CStr, CString};

    extern "C" {
        fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
    }

    /// What the C library prints for one directive and argument: the reference.
    fn c(format: &str, arg: PrintfArg) -> String {
        let f = CString::new(format).unwrap();
        let mut buf = vec![0 as c_char; 512];
        // SAFETY: the buffer is 512 bytes and snprintf writes at most that many; each
        // directive matches its argument's promoted C type.
        unsafe {
            match arg {
                PrintfArg::Int(v) => snprintf(buf.as_mut_ptr(), 512, f.as_ptr(), v),
                PrintfArg::Uint(v) => snprintf(buf.as_mut_ptr(), 512, f.as_ptr(), v),
                PrintfArg::Double(v) => snprintf(buf.as_mut_ptr(), 512, f.as_ptr(), v),
                PrintfArg::Str(s) => {
                    let s = CString::new(s).unwrap();
                    snprintf(buf.as_mut_ptr(), 512, f.as_ptr(), s.as_ptr())
                }
            };
            CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
        }
    }

    /// A small deterministic generator (no dependency for one test).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn formats_as_the_c_library_does() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let flags = ["", "-", "+", "0", "-+", "+0"];
        let widths = ["", "1", "8", "25"];
        let precisions = ["", ".0", ".1", ".3", ".10"];
        for _ in 0..4000 {
            let r = rng.next();
            let flag = flags[(r % 6) as usize];
            let width = widths[((r >> 8) % 4) as usize];
            let raw = rng.next();
            let scale = (rng.next() % 80) as i32 - 40;
            let float = match raw % 10 {
                0 => 0.0,
                1 => -0.0,
                2 => f64::INFINITY,
                3 => f64::NAN,
                4 => (raw % 1000) as f64 / 8.0,
                _ => {
                    f64::from_bits(raw).signum() * (raw >> 11) as f64 / (1u64 << 53) as f64
                        * 10f64.powi(scale)
                }
            };
            for conv in ["f", "e", "E", "g", "G"] {
                let prec = precisions[((r >> 16) % 5) as usize];
                let f = format!("%{flag}{width}{prec}{conv}");
                assert_eq!(
                    format_printf(&f, &[PrintfArg::Double(float)]),
                    c(&f, PrintfArg::Double(float)),
                    "{f} {float:e}"
                );
            }
            let int = raw as i64 >> (raw % 60);
            let f = format!("%{flag}{width}lld");
            assert_eq!(
                format_printf(&f, &[PrintfArg::Int(int)]),
                c(&f, PrintfArg::Int(int)),
                "{f}"
            );
            let flag = flag.replace('+', "");
            for conv in ["llu", "llx", "llX", "llo"] {
                let f = format!("%{flag}{width}{conv}");
                let v = int as u64;
                assert_eq!(
                    format_printf(&f, &[PrintfArg::Uint(v)]),
                    c(&f, PrintfArg::Uint(v)),
                    "{f}"
                );
            }
            let f = format!("%-{width}s|%{width}.2s");
            let s = PrintfArg::Str(if r.is_multiple_of(2) { "true" } else { "false" });
            assert_eq!(format_printf(&f, &[s, s]), {
                let one = c(&format!("%-{width}s|"), s);
                one + &c(&format!("%{width}.2s"), s)
            });
        }
        assert_eq!(
            format_printf("100%% %lld%s", &[PrintfArg::Int(7)]),
            "100% 7"
        );
    }
}
