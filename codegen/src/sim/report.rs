//! The simulator's assertions and `gpu::println!`, and the host formatter of an assertion's
//! message (shared with the GPU path: the site table of a kernel holds the same formatter).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::format::{printf_directive, printf_text, ArgKind, ArgRef, Piece, Promote};
use crate::ir::{BinOp, Expr, PanicCall, PanicForm, PanicMessage, PanicWhen, PrintCall};
use crate::ty::Scalar;

fn scalar_of(e: &Expr) -> Scalar {
    e.ty.as_scalar()
        .expect("printed and recorded values are scalars (checked)")
}

/// A value's bits as the `u64` a failing GPU thread records (see `lower::report`).
fn bits(v: TokenStream, s: Scalar) -> TokenStream {
    match s {
        Scalar::F32 => quote!((#v.to_bits() as u64)),
        Scalar::F64 => quote!(#v.to_bits()),
        _ => quote!((#v as u64)),
    }
}

/// `|values: &[u64]| -> String`: the message of a failed assertion or panic, in Rust's
/// wording, formatted by Rust from the recorded values. A record shorter than the message
/// needs reads zeros (never panics).
pub fn panic_formatter(m: &PanicMessage) -> TokenStream {
    let decode: Vec<TokenStream> = m
        .values
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let v = format_ident!("__cuprum_v{}", k);
            let raw = quote!(__cuprum_values.get(#k).copied().unwrap_or(0));
            let value = match s {
                Scalar::Bool => quote!(#raw != 0),
                Scalar::F32 => quote!(f32::from_bits(#raw as u32)),
                Scalar::F64 => quote!(f64::from_bits(#raw)),
                s => {
                    let t = format_ident!("{}", s.name());
                    quote!(#raw as #t)
                }
            };
            quote!(let #v = #value;)
        })
        .collect();
    let first = usize::from(matches!(m.form, PanicForm::Compare(_))) * 2;
    let user = m.user.as_ref().map(|(fmt, names)| {
        let lit = syn::LitStr::new(fmt, Span::call_site());
        let args = names.iter().enumerate().map(|(i, name)| {
            let v = format_ident!("__cuprum_v{}", first + i);
            match name {
                Some(n) => {
                    let n = format_ident!("{}", n);
                    quote!(#n = #v)
                }
                None => quote!(#v),
            }
        });
        quote!(::std::format!(#lit, #(#args),*))
    });
    let message = match (&m.form, user) {
        (PanicForm::Assert(_) | PanicForm::Panic, Some(u)) => u,
        (PanicForm::Assert(text), None) => {
            let s = format!("assertion failed: {text}");
            quote!(::std::string::String::from(#s))
        }
        (PanicForm::Panic, None) => quote!(::std::string::String::from("explicit panic")),
        (PanicForm::Unreachable, None) => {
            quote!(::std::string::String::from(
                "internal error: entered unreachable code"
            ))
        }
        (PanicForm::Unreachable, Some(u)) => {
            quote!(::std::format!("internal error: entered unreachable code: {}", #u))
        }
        (PanicForm::Compare(op), u) => {
            let head = format!(
                "assertion `left {} right` failed",
                if *op == BinOp::Eq { "==" } else { "!=" }
            );
            let user = match u {
                Some(u) => quote!(::std::format!(": {}", #u)),
                None => quote!(::std::string::String::new()),
            };
            quote!(
                ::std::format!("{}{}\n  left: {:?}\n right: {:?}", #head, #user, __cuprum_v0, __cuprum_v1)
            )
        }
    };
    quote!(|__cuprum_values: &[u64]| -> ::std::string::String {
        #(#decode)*
        #message
    })
}

impl Emitter<'_> {
    /// An assertion: the condition, then on failure the message's arguments and the stop.
    pub(super) fn panic_call(&mut self, p: &PanicCall, span: Span) -> TokenStream {
        let site = &self.program.sites[p.site as usize];
        let Some(message) = &site.message else {
            unreachable!("assertion sites carry their message")
        };
        let formatter = panic_formatter(message);
        let loc = self.loc(span);
        let names: Vec<_> = (0..p.args.len())
            .map(|k| format_ident!("__cuprum_a{}", k))
            .collect();
        let values: Vec<TokenStream> = p.args.iter().map(|a| self.expr(a)).collect();
        let lets: Vec<TokenStream> = names
            .iter()
            .zip(&values)
            .map(|(n, v)| quote!(let #n = #v;))
            .collect();
        let recorded: Vec<TokenStream> = names
            .iter()
            .zip(&p.args)
            .map(|(n, a)| bits(quote!(#n), scalar_of(a)))
            .collect();
        let stop = quote!(return ::core::result::Result::Err(__t.fail((#formatter)(&[#(#recorded),*]), ::core::option::Option::Some(*#loc))));
        let code = match &p.when {
            PanicWhen::Always => quote!({ #(#lets)* #stop }),
            PanicWhen::Not(c) => {
                let c = self.expr(c);
                quote!(if !(#c) { #(#lets)* #stop })
            }
            PanicWhen::Compare(op) => {
                let (first, rest) = lets.split_at(2);
                let (l, r) = (&names[0], &names[1]);
                let holds = if *op == BinOp::Eq {
                    quote!(#l == #r)
                } else {
                    quote!(#l != #r)
                };
                quote!({ #(#first)* if !(#holds) { #(#rest)* #stop } })
            }
        };
        if p.debug {
            quote!(if ::core::cfg!(debug_assertions) { #code })
        } else {
            code
        }
    }

    /// `gpu::println!`: the same C format as on the GPU, formatted by the simulator's
    /// `printf` and written to standard output as the thread runs.
    pub(super) fn print_call(&mut self, p: &PrintCall) -> TokenStream {
        let rt = super::rt();
        let names: Vec<_> = (0..p.args.len())
            .map(|k| format_ident!("__cuprum_p{}", k))
            .collect();
        let lets: Vec<TokenStream> = names
            .iter()
            .zip(&p.args)
            .map(|(n, a)| {
                let v = self.expr(a);
                quote!(let #n = #v;)
            })
            .collect();
        let mut format = String::new();
        let mut args = Vec::new();
        for piece in &p.pieces {
            match piece {
                Piece::Text(t) => format.push_str(&printf_text(t)),
                Piece::Arg { arg, spec } => {
                    let ArgRef::Index(i) = arg else {
                        unreachable!("format arguments are resolved by the checker")
                    };
                    let s = scalar_of(&p.args[*i]);
                    let (directive, promote) = printf_directive(spec, ArgKind::of(s));
                    format.push_str(&directive);
                    let v = &names[*i];
                    args.push(match promote {
                        Promote::Signed => quote!(#rt::PrintfArg::Int(#v as i64)),
                        Promote::Unsigned => {
                            let u = format_ident!("u{}", s.bits());
                            quote!(#rt::PrintfArg::Uint(#v as #u as u64))
                        }
                        Promote::Double => quote!(#rt::PrintfArg::Double(#v as f64)),
                        Promote::Str => {
                            quote!(#rt::PrintfArg::Str(if #v { "true" } else { "false" }))
                        }
                    });
                }
            }
        }
        quote!({ #(#lets)* #rt::printf(#format, &[#(#args),*]); })
    }
}
