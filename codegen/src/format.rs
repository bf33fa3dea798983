//! Rust format strings in kernels (`gpu::println!`, assertion messages): parsing `{}`,
//! `{:>8.3}`, `{0}`, `{name}` and `{{`/`}}`, which specs a scalar can honour, and the C
//! `printf` format that `gpu::println!` is lowered to.
//!
//! The GPU formats `printf` output on the host, in C; a spec is accepted only where that C
//! format prints what Rust would, with two documented exceptions: a float without a
//! precision prints as `%g` (six significant digits) and `{:e}` prints C's exponent
//! (`1.500000e+00`). Assertion messages are formatted on the host by Rust itself, from the
//! recorded values, so they follow Rust exactly.

/// A piece of a parsed format string.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Literal text (`{{` and `}}` already unescaped).
    Text(String),
    /// A formatted argument.
    Arg {
        /// Which argument (after resolution: always [`ArgRef::Index`]).
        arg: ArgRef,
        /// How to format it.
        spec: Spec,
    },
}

/// How a `{..}` names its argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgRef {
    /// `{}`: the next positional argument.
    Next,
    /// `{0}`, or any reference after resolution.
    Index(usize),
    /// `{name}`: a named argument or a captured local.
    Name(String),
}

/// Alignment within a width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// `<`
    Left,
    /// `>`
    Right,
    /// `^`
    Center,
}

/// The formatting trait a spec asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conv {
    /// `{}`
    #[default]
    Display,
    /// `{:?}`
    Debug,
    /// `{:x}`
    LowerHex,
    /// `{:X}`
    UpperHex,
    /// `{:o}`
    Octal,
    /// `{:b}`
    Binary,
    /// `{:e}`
    LowerExp,
    /// `{:E}`
    UpperExp,
    /// `{:x?}` / `{:X?}`
    DebugHex,
}

/// A parsed `:spec`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Spec {
    /// A fill character other than a space (which printf cannot honour).
    pub fill: Option<char>,
    /// `<`, `>`, `^`.
    pub align: Option<Align>,
    /// `+`
    pub plus: bool,
    /// `-` (Rust accepts and ignores it)
    pub minus: bool,
    /// `#`
    pub alternate: bool,
    /// `0`
    pub zero: bool,
    /// A literal width.
    pub width: Option<usize>,
    /// A literal precision.
    pub precision: Option<usize>,
    /// A width or precision taken from an argument (`{:1$}`, `{:.*}`), which kernels do not
    /// support.
    pub from_argument: bool,
    /// The trait.
    pub conv: Conv,
}

/// What kind of scalar a value is, for the rules of what a spec can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// An integer of this many bits, signed or not.
    Int {
        /// Signed.
        signed: bool,
        /// 8, 16, 32 or 64.
        bits: u32,
    },
    /// `f32` or `f64`.
    Float,
    /// `bool`.
    Bool,
}

impl ArgKind {
    /// The kind of a scalar type.
    pub fn of(s: crate::ty::Scalar) -> ArgKind {
        if s == crate::ty::Scalar::Bool {
            ArgKind::Bool
        } else if s.is_float() {
            ArgKind::Float
        } else {
            ArgKind::Int {
                signed: s.is_signed(),
                bits: s.bits(),
            }
        }
    }
}

/// Parses a format string. Errors say what is wrong in words (the caller puts them at the
/// string literal).
pub fn parse(s: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '}' => {
                return Err("unmatched `}` in format string; write `}}` for a literal `}`".into())
            }
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inner.push(c),
                        None => {
                            return Err(
                                "unmatched `{` in format string; write `{{` for a literal `{`"
                                    .into(),
                            )
                        }
                    }
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(parse_placeholder(&inner)?);
            }
            '\0' => {
                return Err(
                    "a format string printed by the GPU cannot contain a NUL character".into(),
                )
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn parse_placeholder(inner: &str) -> Result<Piece, String> {
    let (arg, spec) = match inner.split_once(':') {
        Some((a, s)) => (a, Some(s)),
        None => (inner, None),
    };
    let arg = if arg.is_empty() {
        ArgRef::Next
    } else if let Ok(i) = arg.parse::<usize>() {
        ArgRef::Index(i)
    } else if syn::parse_str::<syn::Ident>(arg).is_ok() && !arg.starts_with("r#") {
        ArgRef::Name(arg.to_string())
    } else {
        return Err(format!(
            "invalid argument `{arg}` in format string; write `{{}}`, `{{0}}` or `{{name}}`"
        ));
    };
    let spec = match spec {
        Some(s) => parse_spec(s)?,
        None => Spec::default(),
    };
    Ok(Piece::Arg { arg, spec })
}

/// The largest width or precision: what one thread prints must stay small (the GPU's printf
/// buffer is 1 MB by default).
const MAX_COUNT: usize = 1000;

fn parse_spec(s: &str) -> Result<Spec, String> {
    let bad = || format!("invalid format spec `{{:{s}}}`");
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut spec = Spec::default();
    let align_of = |c: char| match c {
        '<' => Some(Align::Left),
        '>' => Some(Align::Right),
        '^' => Some(Align::Center),
        _ => None,
    };
    if cs.len() >= 2 && align_of(cs[1]).is_some() {
        if cs[0] != ' ' {
            spec.fill = Some(cs[0]);
        }
        spec.align = align_of(cs[1]);
        i = 2;
    } else if let Some(a) = cs.first().and_then(|&c| align_of(c)) {
        spec.align = Some(a);
        i = 1;
    }
    match cs.get(i) {
        Some('+') => {
            spec.plus = true;
            i += 1;
        }
        Some('-') => {
            spec.minus = true;
            i += 1;
        }
        _ => {}
    }
    if cs.get(i) == Some(&'#') {
        spec.alternate = true;
        i += 1;
    }
    if cs.get(i) == Some(&'0') && cs.get(i + 1) != Some(&'$') {
        spec.zero = true;
        i += 1;
    }
    // `Ok(None)` without digits; an error past `MAX_COUNT`.
    let number = |i: &mut usize| -> Result<Option<usize>, String> {
        let start = *i;
        while cs.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        if *i == start {
            return Ok(None);
        }
        match cs[start..*i].iter().collect::<String>().parse::<usize>() {
            Ok(n) if n <= MAX_COUNT => Ok(Some(n)),
            _ => Err(format!(
                "a width or precision in a kernel is at most {MAX_COUNT}"
            )),
        }
    };
    let count_from_argument = |i: &mut usize| {
        // `N$` or `name$`
        let start = *i;
        while cs.get(*i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            *i += 1;
        }
        if *i > start && cs.get(*i) == Some(&'$') {
            *i += 1;
            true
        } else {
            *i = start;
            false
        }
    };
    if count_from_argument(&mut i) {
        spec.from_argument = true;
    } else if let Some(w) = number(&mut i)? {
        spec.width = Some(w);
    }
    if cs.get(i) == Some(&'.') {
        i += 1;
        if cs.get(i) == Some(&'*') {
            i += 1;
            spec.from_argument = true;
        } else if count_from_argument(&mut i) {
            spec.from_argument = true;
        } else {
            spec.precision = Some(number(&mut i)?.ok_or_else(bad)?);
        }
    }
    let rest: String = cs[i..].iter().collect();
    spec.conv = match rest.as_str() {
        "" => Conv::Display,
        "?" => Conv::Debug,
        "x" => Conv::LowerHex,
        "X" => Conv::UpperHex,
        "o" => Conv::Octal,
        "b" => Conv::Binary,
        "e" => Conv::LowerExp,
        "E" => Conv::UpperExp,
        "x?" | "X?" => Conv::DebugHex,
        _ => return Err(bad()),
    };
    Ok(spec)
}

/// Why `spec` cannot print a value of kind `kind` with the GPU's `printf`, or `None` when
/// it can. `name` is the value's type, for the message.
pub fn printf_limit(spec: &Spec, kind: ArgKind, name: &str) -> Option<String> {
    if spec.from_argument {
        return Some("a width or precision taken from an argument (`{:1$}`, `{:.*}`) cannot be printed in kernels; write the number in the format string".into());
    }
    if spec.fill.is_some() {
        return Some("a fill character other than a space cannot be printed by the GPU's printf; use `{:>8}` or `{:08}`".into());
    }
    if spec.align == Some(Align::Center) {
        return Some(
            "centering (`^`) cannot be printed by the GPU's printf; use `<` or `>`".into(),
        );
    }
    match spec.conv {
        Conv::Binary => {
            return Some("`{:b}` cannot be printed by the GPU's printf; use `{:x}`".into())
        }
        Conv::DebugHex => return Some("`{:x?}` cannot be printed in kernels; use `{:x}`".into()),
        _ => {}
    }
    match kind {
        ArgKind::Int { .. } => {
            if matches!(spec.conv, Conv::LowerExp | Conv::UpperExp) {
                return Some(format!("`{{:e}}` prints floats in kernels, and this is a `{name}`; convert it: `as f64`"));
            }
            if spec.precision.is_some() {
                return Some(format!(
                    "a precision applies to floats, and this is a `{name}`"
                ));
            }
            if spec.alternate
                && matches!(spec.conv, Conv::LowerHex | Conv::UpperHex | Conv::Octal)
                && spec.width.is_some()
            {
                return Some("`#` with a width cannot be printed by the GPU's printf; drop the width or the `#`".into());
            }
            None
        }
        ArgKind::Float => {
            if matches!(spec.conv, Conv::LowerHex | Conv::UpperHex | Conv::Octal) {
                return Some(format!("`{{:x}}` and `{{:o}}` print integers, and this is a `{name}`; print its bits with `.to_bits()`"));
            }
            if spec.alternate {
                return Some("`#` cannot be printed for floats by the GPU's printf".into());
            }
            None
        }
        ArgKind::Bool => {
            if !matches!(spec.conv, Conv::Display | Conv::Debug) {
                return Some(format!(
                    "a `bool` prints with `{{}}` or `{{:?}}`, not `{}`",
                    conv_text(spec.conv)
                ));
            }
            if spec.plus || spec.zero || spec.alternate {
                return Some("`+`, `0` and `#` do not apply to a `bool`".into());
            }
            None
        }
    }
}

/// Why Rust's formatting cannot print a value of kind `kind` with `spec` (assertion
/// messages, which the host formats), or `None` when it can.
pub fn rust_limit(spec: &Spec, kind: ArgKind, name: &str) -> Option<String> {
    if spec.from_argument {
        return Some("a width or precision taken from an argument (`{:1$}`, `{:.*}`) cannot be used in kernels; write the number in the format string".into());
    }
    let integer_only = matches!(
        spec.conv,
        Conv::LowerHex | Conv::UpperHex | Conv::Octal | Conv::Binary
    );
    match kind {
        ArgKind::Float if integer_only => Some(format!(
            "`{}` prints integers, and this is a `{name}`; print its bits with `.to_bits()`",
            conv_text(spec.conv)
        )),
        ArgKind::Bool if integer_only || matches!(spec.conv, Conv::LowerExp | Conv::UpperExp) => {
            Some(format!(
                "a `bool` prints with `{{}}` or `{{:?}}`, not `{}`",
                conv_text(spec.conv)
            ))
        }
        _ => None,
    }
}

fn conv_text(c: Conv) -> &'static str {
    match c {
        Conv::Display => "{}",
        Conv::Debug => "{:?}",
        Conv::LowerHex => "{:x}",
        Conv::UpperHex => "{:X}",
        Conv::Octal => "{:o}",
        Conv::Binary => "{:b}",
        Conv::LowerExp => "{:e}",
        Conv::UpperExp => "{:E}",
        Conv::DebugHex => "{:x?}",
    }
}

/// How a value travels to `printf` (C's argument promotion: every integer as 64 bits,
/// floats as `double`, a `bool` as the address of `"true"` or `"false"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Promote {
    /// Sign-extended to 64 bits.
    Signed,
    /// Zero-extended to 64 bits (unsigned values, and any integer printed in hex or octal,
    /// which Rust prints as its unsigned bits).
    Unsigned,
    /// Converted to `f64`.
    Double,
    /// A `%s` string.
    Str,
}

/// The C `printf` directive for one placeholder, and how its value is promoted. Only for
/// specs [`printf_limit`] accepts.
pub fn printf_directive(spec: &Spec, kind: ArgKind) -> (String, Promote) {
    let mut d = String::new();
    if spec.alternate {
        match spec.conv {
            Conv::LowerHex | Conv::UpperHex => d.push_str("0x"),
            Conv::Octal => d.push_str("0o"),
            _ => {}
        }
    }
    d.push('%');
    // Rust's `0` flag pads after the sign whatever the alignment; printf drops `0` under `-`.
    let left = !spec.zero
        && match spec.align {
            Some(a) => a == Align::Left,
            // Strings (and so `bool`) are left-aligned by default in Rust, numbers right.
            None => kind == ArgKind::Bool,
        };
    if left {
        d.push('-');
    }
    if spec.plus {
        d.push('+');
    }
    if spec.zero {
        d.push('0');
    }
    if let Some(w) = spec.width {
        d.push_str(&w.to_string());
    }
    let promote = match kind {
        ArgKind::Int { signed, .. } => {
            let (conv, unsigned) = match spec.conv {
                Conv::LowerHex => ("llx", true),
                Conv::UpperHex => ("llX", true),
                Conv::Octal => ("llo", true),
                _ if signed => ("lld", false),
                _ => ("llu", true),
            };
            d.push_str(conv);
            if unsigned {
                Promote::Unsigned
            } else {
                Promote::Signed
            }
        }
        ArgKind::Float => {
            if let Some(p) = spec.precision {
                d.push('.');
                d.push_str(&p.to_string());
            }
            d.push(match (spec.conv, spec.precision) {
                (Conv::LowerExp, _) => 'e',
                (Conv::UpperExp, _) => 'E',
                (_, Some(_)) => 'f',
                (_, None) => 'g',
            });
            Promote::Double
        }
        ArgKind::Bool => {
            if let Some(p) = spec.precision {
                d.push('.');
                d.push_str(&p.to_string());
            }
            d.push('s');
            Promote::Str
        }
    };
    (d, promote)
}

/// Literal text for a C format string (`%` doubled).
pub fn printf_text(text: &str) -> String {
    text.replace('%', "%%")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directive(s: &str, kind: ArgKind) -> String {
        let pieces = parse(s).unwrap();
        let Piece::Arg { spec, .. } = &pieces[0] else {
            panic!("no argument in {s}")
        };
        assert_eq!(printf_limit(spec, kind, "t"), None, "{s}");
        printf_directive(spec, kind).0
    }

    const I32: ArgKind = ArgKind::Int {
        signed: true,
        bits: 32,
    };

    #[test]
    fn specs_become_printf_directives() {
        assert_eq!(directive("{}", I32), "%lld");
        assert_eq!(directive("{:5}", I32), "%5lld");
        assert_eq!(directive("{:<5}", I32), "%-5lld");
        assert_eq!(directive("{:+05}", I32), "%+05lld");
        assert_eq!(directive("{:#x}", I32), "0x%llx");
        assert_eq!(directive("{:X}", I32), "%llX");
        assert_eq!(directive("{:.3}", ArgKind::Float), "%.3f");
        assert_eq!(directive("{:10.2e}", ArgKind::Float), "%10.2e");
        assert_eq!(directive("{}", ArgKind::Float), "%g");
        assert_eq!(directive("{:6}", ArgKind::Bool), "%-6s");
        assert_eq!(directive("{:>6}", ArgKind::Bool), "%6s");
    }

    #[test]
    fn pieces_and_escapes() {
        let p = parse("a{{b}}c {0} {x:?} {}%").unwrap();
        assert_eq!(p[0], Piece::Text("a{b}c ".into()));
        assert!(matches!(
            &p[1],
            Piece::Arg {
                arg: ArgRef::Index(0),
                ..
            }
        ));
        assert!(
            matches!(&p[3], Piece::Arg { arg: ArgRef::Name(n), spec } if n == "x" && spec.conv == Conv::Debug)
        );
        assert!(matches!(
            &p[5],
            Piece::Arg {
                arg: ArgRef::Next,
                ..
            }
        ));
        assert_eq!(printf_text("100%"), "100%%");
    }

    #[test]
    fn random_format_strings_never_panic() {
        const ALPHABET: &[char] = &[
            '{', '}', ':', '<', '>', '^', '+', '-', '#', '0', '1', '9', '.', '$', '*', 'x', 'X',
            'e', 'E', '?', 'o', 'b', ' ', 'a', '_', 'r', '\0', 'é',
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(state % 12) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                s.push(ALPHABET[(state % ALPHABET.len() as u64) as usize]);
            }
            if let Ok(pieces) = parse(&s) {
                for p in pieces {
                    if let Piece::Arg { spec, .. } = p {
                        for kind in [I32, ArgKind::Float, ArgKind::Bool] {
                            if printf_limit(&spec, kind, "t").is_none() {
                                printf_directive(&spec, kind);
                            }
                            rust_limit(&spec, kind, "t");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn what_printf_cannot_do_is_an_error() {
        for (s, kind) in [
            ("{:^5}", I32),
            ("{:*>5}", I32),
            ("{:b}", I32),
            ("{:.2}", I32),
            ("{:e}", I32),
            ("{:x}", ArgKind::Float),
            ("{:1$}", I32),
            ("{:.*}", ArgKind::Float),
            ("{:x}", ArgKind::Bool),
            ("{:#8x}", I32),
        ] {
            let pieces = parse(s).unwrap();
            let Piece::Arg { spec, .. } = &pieces[0] else {
                panic!()
            };
            assert!(printf_limit(spec, kind, "t").is_some(), "{s}");
        }
        for s in [
            "{",
            "}",
            "{:q}",
            "{a b}",
            "x\0",
            "{:1001}",
            "{:.99999999999999999999}",
            "{r#x}",
        ] {
            assert!(parse(s).is_err(), "{s}");
        }
    }
}
