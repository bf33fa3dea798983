//! How a piece of syntax reads inside an error message: `&mut [f32]`, `dyn Fn(f32) -> f32`,
//! `(i * 2) as usize`, as a person would write it rather than as token streams print
//! (`& mut [f32]`, `dynFn(f32)->f32`).

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// Keywords that are always followed by a space when written.
const SPACED_KEYWORDS: &[&str] = &["mut", "dyn", "impl", "as", "in", "const", "move", "ref"];

/// The text of a type, with `<` and `>` as generic brackets.
pub(crate) fn type_text(node: &impl ToTokens) -> String {
    render(node.to_token_stream(), true)
}

/// The text of an expression, with `<` and `>` as comparisons (except in turbofish).
pub(crate) fn expr_text(node: &impl ToTokens) -> String {
    render(node.to_token_stream(), false)
}

/// `e as ty`, with parentheses only where the cast would otherwise bind to part of `e`.
pub(crate) fn cast_text(e: &syn::Expr, ty: &str) -> String {
    let text = expr_text(e);
    match e {
        syn::Expr::Path(_)
        | syn::Expr::Lit(_)
        | syn::Expr::Paren(_)
        | syn::Expr::Field(_)
        | syn::Expr::Index(_)
        | syn::Expr::Call(_)
        | syn::Expr::MethodCall(_)
        | syn::Expr::Cast(_) => format!("{text} as {ty}"),
        _ => format!("({text}) as {ty}"),
    }
}

/// The text of `e` as the receiver of a method call: `x[i]`, `(a + b)`.
pub(crate) fn receiver_text(e: &syn::Expr) -> String {
    let text = expr_text(e);
    match e {
        syn::Expr::Path(_)
        | syn::Expr::Lit(_)
        | syn::Expr::Paren(_)
        | syn::Expr::Field(_)
        | syn::Expr::Index(_)
        | syn::Expr::Call(_)
        | syn::Expr::MethodCall(_) => text,
        _ => format!("({text})"),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Last {
    Start,
    Word,
    Keyword,
    /// An operator after which the next token follows without a space (`&`, `::`, unary `-`).
    Tight,
    /// An operator written with spaces around it.
    Spaced,
    Close,
}

fn render(tokens: TokenStream, in_type: bool) -> String {
    let mut out = String::new();
    let mut last = Last::Start;
    // Open turbofish brackets (`f::<u32>`), whose `>` closes tight even in an expression.
    let mut turbofish = 0usize;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(id) => {
                if matches!(last, Last::Word | Last::Keyword | Last::Close) {
                    out.push(' ');
                }
                let s = id.to_string();
                last = if SPACED_KEYWORDS.contains(&s.as_str()) {
                    Last::Keyword
                } else {
                    Last::Word
                };
                out.push_str(&s);
            }
            TokenTree::Literal(l) => {
                if matches!(last, Last::Word | Last::Keyword | Last::Close) {
                    out.push(' ');
                }
                out.push_str(&l.to_string());
                last = Last::Word;
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                if last == Last::Keyword
                    || (g.delimiter() == Delimiter::Brace && last != Last::Start)
                {
                    out.push(' ');
                }
                out.push_str(open);
                out.push_str(&render(g.stream(), in_type));
                out.push_str(close);
                last = Last::Close;
            }
            TokenTree::Punct(_) => {
                // A run of joint punctuation is one operator: `::`, `->`, `+=`, `..=`.
                let mut op = String::new();
                while let Some(TokenTree::Punct(p)) = tokens.get(i) {
                    op.push(p.as_char());
                    if p.spacing() == Spacing::Alone || p.as_char() == '\'' {
                        break;
                    }
                    i += 1;
                }
                if op == "'" {
                    // A lifetime: the quote and its name are written together.
                    if matches!(last, Last::Word | Last::Keyword | Last::Close) {
                        out.push(' ');
                    }
                    out.push('\'');
                    last = Last::Tight;
                    i += 1;
                    continue;
                }
                let unary = matches!(last, Last::Start | Last::Tight | Last::Spaced)
                    && matches!(op.as_str(), "-" | "!" | "*" | "&" | "&&");
                if op == "<" && out.ends_with("::") {
                    turbofish += 1;
                }
                let closes_turbofish = op == ">" && turbofish > 0;
                if closes_turbofish {
                    turbofish -= 1;
                }
                let tight = unary
                    || closes_turbofish
                    || matches!(op.as_str(), "::" | "." | ".." | "..=" | "#" | "?")
                    || (in_type && matches!(op.as_str(), "<" | ">" | ">>"))
                    || (op == "<" && out.ends_with("::"));
                match op.as_str() {
                    "," | ";" => {
                        out.push_str(&op);
                        out.push(' ');
                        last = Last::Tight;
                    }
                    ":" => {
                        out.push_str(": ");
                        last = Last::Tight;
                    }
                    _ if tight => {
                        out.push_str(&op);
                        last = if matches!(op.as_str(), ">" | ">>") {
                            Last::Close
                        } else {
                            Last::Tight
                        };
                    }
                    _ => {
                        if !out.is_empty() && !out.ends_with(' ') {
                            out.push(' ');
                        }
                        out.push_str(&op);
                        out.push(' ');
                        last = Last::Spaced;
                    }
                }
            }
        }
        i += 1;
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> String {
        type_text(&syn::parse_str::<syn::Type>(s).unwrap())
    }

    fn ex(s: &str) -> String {
        expr_text(&syn::parse_str::<syn::Expr>(s).unwrap())
    }

    #[test]
    fn types_read_as_written() {
        for t in [
            "&mut [f32]",
            "&[f32]",
            "Vec<f32>",
            "&dyn Fn(f32) -> f32",
            "[f32; 4]",
            "(f32, u32)",
            "Box<dyn Fn(f32) -> f32>",
            "impl Fn(f32) -> f32",
            "&'a str",
            "std::vec::Vec<Vec<u8>>",
            "fn(f32) -> f32",
            "*const f32",
        ] {
            assert_eq!(ty(t), t);
        }
    }

    #[test]
    fn expressions_read_as_written() {
        for e in [
            "i * 2 + 1",
            "-x",
            "a[i]",
            "x.min(y)",
            "f::<u32>(n)",
            "a < b",
            "!done && i >= n",
            "gpu::thread_idx().x",
            "0..n",
            "x as f32",
        ] {
            assert_eq!(ex(e), e);
        }
    }

    #[test]
    fn casts_are_parenthesised_only_when_needed() {
        let e = |s: &str| syn::parse_str::<syn::Expr>(s).unwrap();
        assert_eq!(cast_text(&e("i"), "usize"), "i as usize");
        assert_eq!(cast_text(&e("i + 1"), "usize"), "(i + 1) as usize");
        assert_eq!(cast_text(&e("x[j]"), "f32"), "x[j] as f32");
    }
}
