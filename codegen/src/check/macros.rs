//! The macros a kernel may call: `gpu::print!`/`gpu::println!`, the `assert!` family,
//! `panic!` and `unreachable!`. The checker reads their arguments itself (nothing is
//! expanded by rustc inside a kernel), so format strings are checked here, against the
//! types of their arguments.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::{source, Checker};
use crate::format::{self, ArgKind, ArgRef, Piece};
use crate::ir::{
    BinOp, CheckKind, CheckSite, Expr, ExprKind, PanicCall, PanicForm, PanicMessage, PanicWhen,
    PrintCall, SiteId,
};
use crate::ty::Ty;

/// Most values one `gpu::println!` can print (CUDA's `printf` takes 32 arguments).
pub const MAX_PRINT_ARGS: usize = 32;
/// Most values a failing assertion records (what the panic record holds).
pub const MAX_PANIC_VALUES: usize = cuprum_abi::record::MAX_VALUES;

/// A format string with its arguments, checked.
struct Formatted {
    pieces: Vec<Piece>,
    args: Vec<Expr>,
    /// The name each argument is referred to by (named or captured), `None` if positional.
    names: Vec<Option<String>>,
    format: String,
}

/// Which macro a call is.
enum Known {
    Print { newline: bool },
    Assert { debug: bool },
    AssertCmp { op: BinOp, debug: bool },
    Panic,
    Unreachable,
}

fn known(mac: &syn::Macro) -> Option<Known> {
    let segs: Vec<String> = mac
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let (last, prefix) = segs.split_last()?;
    let prefix: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let gpu = matches!(prefix.as_slice(), ["gpu"] | ["cuprum", "gpu"]);
    let std = matches!(prefix.as_slice(), [] | ["std"] | ["core"]);
    Some(match last.as_str() {
        "println" | "print" if gpu => Known::Print {
            newline: last == "println",
        },
        "assert" if std => Known::Assert { debug: false },
        "debug_assert" if std => Known::Assert { debug: true },
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" if std => {
            Known::AssertCmp {
                op: if last.ends_with("eq") {
                    BinOp::Eq
                } else {
                    BinOp::Ne
                },
                debug: last.starts_with("debug"),
            }
        }
        "panic" if std => Known::Panic,
        "unreachable" if std => Known::Unreachable,
        _ => return None,
    })
}

impl Checker<'_> {
    /// A macro call in a kernel, or `None` for one kernels do not have (the caller reports it).
    pub(super) fn macro_call(&mut self, mac: &syn::Macro) -> Option<Expr> {
        let kind = known(mac)?;
        let span = mac.path.span();
        let args =
            match mac.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated) {
                Ok(a) => a.into_iter().collect::<Vec<_>>(),
                Err(e) => {
                    self.errors.push(e);
                    return Some(super::error_expr(span));
                }
            };
        Some(match kind {
            Known::Print { newline } => self.print_call(mac, &args, newline, span),
            Known::Assert { debug } => {
                let Some((cond, rest)) = args.split_first() else {
                    self.error(mac, "`assert!` needs a condition: `assert!(i < n)`");
                    return Some(super::error_expr(span));
                };
                let c = self.expr(cond);
                self.unify_at(&Ty::BOOL, &c.ty, cond, "the condition of `assert!`");
                let form = PanicForm::Assert(source::expr_text(cond));
                self.panic_call(
                    PanicWhen::Not(Box::new(c)),
                    Vec::new(),
                    form,
                    rest,
                    debug,
                    span,
                )
            }
            Known::AssertCmp { op, debug } => {
                let [left, right, rest @ ..] = args.as_slice() else {
                    self.error(
                        mac,
                        "`assert_eq!` and `assert_ne!` compare two values: `assert_eq!(a, b)`",
                    );
                    return Some(super::error_expr(span));
                };
                let l = self.expr(left);
                let r = self.expr(right);
                self.unify_at(&l.ty, &r.ty, right, "the right side (like the left)");
                self.expect_recordable(
                    &l,
                    left,
                    "compared by `assert_eq!`/`assert_ne!` in kernels",
                    "compare its elements one by one",
                );
                let form = PanicForm::Compare(op);
                self.panic_call(PanicWhen::Compare(op), vec![l, r], form, rest, debug, span)
            }
            Known::Panic => self.panic_call(
                PanicWhen::Always,
                Vec::new(),
                PanicForm::Panic,
                &args,
                false,
                span,
            ),
            Known::Unreachable => self.panic_call(
                PanicWhen::Always,
                Vec::new(),
                PanicForm::Unreachable,
                &args,
                false,
                span,
            ),
        })
    }

    fn panic_call(
        &mut self,
        when: PanicWhen,
        mut values: Vec<Expr>,
        form: PanicForm,
        message: &[syn::Expr],
        debug: bool,
        span: Span,
    ) -> Expr {
        let diverges = matches!(when, PanicWhen::Always);
        let user = match message.split_first() {
            None => None,
            Some((fmt, rest)) => match self.formatted(fmt, rest, false, values.len()) {
                Some(f) => {
                    values.extend(f.args);
                    Some((f.format, f.names))
                }
                None => return super::error_expr(span),
            },
        };
        self.sites.push(CheckSite {
            kind: CheckKind::Panic,
            span,
            message: Some(Box::new(PanicMessage {
                form,
                user,
                values: Vec::new(),
            })),
            elided: None,
        });
        let site = self.sites.len() as SiteId - 1;
        Expr {
            kind: ExprKind::Panic(Box::new(PanicCall {
                when,
                args: values,
                site,
                debug,
            })),
            ty: if diverges { Ty::Never } else { Ty::Unit },
            span,
        }
    }

    fn print_call(
        &mut self,
        mac: &syn::Macro,
        args: &[syn::Expr],
        newline: bool,
        span: Span,
    ) -> Expr {
        let unit = |kind| Expr {
            kind,
            ty: Ty::Unit,
            span,
        };
        let Some((fmt, rest)) = args.split_first() else {
            if newline {
                return unit(ExprKind::Print(Box::new(PrintCall {
                    pieces: vec![Piece::Text("\n".into())],
                    args: Vec::new(),
                })));
            }
            self.error(
                mac,
                "`gpu::print!` needs a format string: `gpu::print!(\"x = {}\", x)`",
            );
            return super::error_expr(span);
        };
        let Some(mut f) = self.formatted(fmt, rest, true, 0) else {
            return super::error_expr(span);
        };
        if newline {
            f.pieces.push(Piece::Text("\n".into()));
        }
        unit(ExprKind::Print(Box::new(PrintCall {
            pieces: f.pieces,
            args: f.args,
        })))
    }

    /// Checks a format string and its arguments; `printf` says whether the GPU's `printf`
    /// prints it (else the host formats it with Rust, after `reserved` other values).
    fn formatted(
        &mut self,
        fmt: &syn::Expr,
        rest: &[syn::Expr],
        printf: bool,
        reserved: usize,
    ) -> Option<Formatted> {
        let lit = match super::expr::strip_parens(fmt) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => s.clone(),
            other => {
                self.error(
                    other,
                    "the format string must be a string literal, like `\"x = {}\"`",
                );
                return None;
            }
        };
        let format = lit.value();
        let mut pieces = match format::parse(&format) {
            Ok(p) => p,
            Err(msg) => {
                self.error(&lit, msg);
                return None;
            }
        };
        // The arguments as written: positional ones, then `name = value`.
        let mut nodes: Vec<(Option<String>, syn::Expr)> = Vec::new();
        let mut failed = false;
        for a in rest {
            match a {
                syn::Expr::Assign(asg) => match &*asg.left {
                    syn::Expr::Path(p)
                        if p.path
                            .get_ident()
                            .is_some_and(|i| !i.to_string().starts_with("r#")) =>
                    {
                        let name = p.path.get_ident().map(|i| i.to_string());
                        nodes.push((name, (*asg.right).clone()));
                    }
                    other => {
                        self.error(other, "a named argument is written `name = value`");
                        failed = true;
                    }
                },
                other => {
                    if nodes.iter().any(|(n, _)| n.is_some()) {
                        self.error(other, "positional arguments cannot follow named arguments");
                        failed = true;
                    }
                    nodes.push((None, other.clone()));
                }
            }
        }
        if failed {
            return None;
        }
        let positional = nodes.iter().filter(|(n, _)| n.is_none()).count();
        let mut used = vec![false; nodes.len()];
        let mut next = 0;
        for p in &mut pieces {
            let Piece::Arg { arg, .. } = p else { continue };
            let index = match arg {
                ArgRef::Next => {
                    next += 1;
                    next - 1
                }
                ArgRef::Index(i) => *i,
                ArgRef::Name(n) => match nodes.iter().position(|(m, _)| m.as_deref() == Some(n)) {
                    Some(i) => i,
                    None => {
                        // `{x}` captures the local `x`.
                        let ident = syn::Ident::new(n, lit.span());
                        let path = syn::Expr::Path(syn::ExprPath {
                            attrs: Vec::new(),
                            qself: None,
                            path: ident.into(),
                        });
                        nodes.push((Some(n.clone()), path));
                        used.push(false);
                        nodes.len() - 1
                    }
                },
            };
            if index >= nodes.len() || (!matches!(arg, ArgRef::Name(_)) && index >= positional) {
                self.error(
                    &lit,
                    format!(
                        "this format string refers to argument {index}, but there {} {positional} positional argument{}",
                        if positional == 1 { "is" } else { "are" },
                        if positional == 1 { "" } else { "s" }
                    ),
                );
                return None;
            }
            used[index] = true;
            *arg = ArgRef::Index(index);
        }
        if let Some(i) = used.iter().position(|u| !u) {
            self.error(
                &nodes[i].1,
                "this argument is never used by the format string",
            );
            return None;
        }
        let limit = if printf {
            MAX_PRINT_ARGS
        } else {
            MAX_PANIC_VALUES - reserved
        };
        if nodes.len() > limit {
            let what = if printf {
                "`gpu::println!` can print at most 32 values (the GPU's printf takes 32 arguments); split it into two calls"
            } else {
                "an assertion's message can record at most 16 values"
            };
            self.error(&nodes[limit].1, what);
            return None;
        }
        let mut args = Vec::new();
        let mut ok = true;
        for (i, (_, node)) in nodes.iter().enumerate() {
            let x = self.expr(node);
            let (what, advice) = if printf {
                ("printed in kernels", "print its elements one by one")
            } else {
                (
                    "recorded in an assertion's message",
                    "record its elements one by one",
                )
            };
            let Some(kind) = self.expect_recordable(&x, node, what, advice) else {
                ok = false;
                args.push(x);
                continue;
            };
            let name = self.infer.describe(&x.ty);
            for p in &pieces {
                let Piece::Arg {
                    arg: ArgRef::Index(j),
                    spec,
                } = p
                else {
                    continue;
                };
                if *j != i {
                    continue;
                }
                let why = if printf {
                    format::printf_limit(spec, kind, &name)
                } else {
                    format::rust_limit(spec, kind, &name)
                };
                if let Some(why) = why {
                    self.error(node, why);
                    ok = false;
                    break;
                }
            }
            args.push(x);
        }
        ok.then(|| Formatted {
            pieces,
            args,
            names: nodes.into_iter().map(|(n, _)| n).collect(),
            format,
        })
    }

    /// The kind of a value that can be printed or recorded (a scalar); an error at `node`
    /// otherwise, saying it cannot be `what` and the `advice`.
    fn expect_recordable(
        &mut self,
        x: &Expr,
        node: &syn::Expr,
        what: &str,
        advice: &str,
    ) -> Option<ArgKind> {
        match self.infer.shallow(&x.ty) {
            Ty::Scalar(s) => Some(ArgKind::of(s)),
            Ty::Var(_) => Some(if self.infer.is_float_var(&x.ty) == Some(true) {
                ArgKind::Float
            } else {
                ArgKind::Int {
                    signed: true,
                    bits: 32,
                }
            }),
            Ty::Error => None,
            other => {
                let d = self.infer.describe(&other);
                self.error(
                    node,
                    format!("only scalars and `bool` can be {what}, and this is a `{d}`; {advice}"),
                );
                None
            }
        }
    }
}
