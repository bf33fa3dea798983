//! The syntax of `launch!(kernel<<<grid, block[, shared_bytes], stream>>>(args..))`.
//!
//! The proc-macro crate only turns a [`LaunchCall`] into tokens; the parsing lives here so that
//! it can be tested (and fuzzed) without `proc_macro`. Every malformed input is a `syn::Error`
//! at the token that shows the problem, never a panic.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;

/// A parsed `launch!` invocation.
#[derive(Debug)]
pub struct LaunchCall {
    /// The kernel: a path such as `saxpy` or `kernels::scale`.
    pub kernel: syn::ExprPath,
    /// Blocks in the grid.
    pub grid: syn::Expr,
    /// Threads per block.
    pub block: syn::Expr,
    /// Dynamic shared memory per block, in bytes, when given.
    pub shared_bytes: Option<syn::Expr>,
    /// The stream to launch on.
    pub stream: syn::Expr,
    /// The kernel's arguments, with their parentheses.
    pub args: Group,
    /// The last `>` of `>>>`, which the call's method name takes as its span: rustc then
    /// quotes `>(args..)` when it suggests how to fix the arguments.
    pub close: Span,
}

/// How `launch!` is written, appended to every error.
pub const USAGE: &str = "expected `launch!(kernel<<<grid, block, stream>>>(args..))` or `launch!(kernel<<<grid, block, shared_bytes, stream>>>(args..))`";

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// Where the first run of `n` `c` tokens starts. Spacing is not checked: macro_rules
/// transcription may not keep it.
fn find_run(tokens: &[TokenTree], c: char, n: usize) -> Option<usize> {
    (0..tokens.len())
        .find(|&i| i + n <= tokens.len() && tokens[i..i + n].iter().all(|t| is_punct(t, c)))
}

/// The error for a launch whose `>>> (args..)` end is malformed.
fn bad_close(tokens: &[TokenTree], body: usize) -> syn::Error {
    let last = tokens
        .last()
        .map(TokenTree::span)
        .unwrap_or_else(Span::call_site);
    let Some(close) = (body..tokens.len())
        .rev()
        .find(|&i| i + 3 <= tokens.len() && tokens[i..i + 3].iter().all(|t| is_punct(t, '>')))
    else {
        let at = (body..tokens.len())
            .find(|&i| is_punct(&tokens[i], '>'))
            .map_or(last, |i| tokens[i].span());
        return syn::Error::new(
            at,
            format!("the launch configuration closes with three angle brackets, `>>>`; {USAGE}"),
        );
    };
    let (at, msg) = match &tokens[close + 3..] {
        [] => (
            tokens[close + 2].span(),
            "missing the kernel's arguments in parentheses after `>>>`",
        ),
        [TokenTree::Group(g), extra, ..] if g.delimiter() == Delimiter::Parenthesis => (
            extra.span(),
            "unexpected tokens after the kernel's arguments",
        ),
        [other, ..] => (
            other.span(),
            "expected the kernel's arguments in parentheses after `>>>`",
        ),
    };
    syn::Error::new(at, format!("{msg}; {USAGE}"))
}

/// Parses the tokens inside `launch!(..)`.
pub fn parse_launch(input: TokenStream) -> syn::Result<LaunchCall> {
    crate::check::check_nesting(&input)?;
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let Some(first) = tokens.first() else {
        return Err(syn::Error::new(
            Span::call_site(),
            format!("`launch!` needs a kernel, its configuration and its arguments; {USAGE}"),
        ));
    };
    let Some(open) = find_run(&tokens, '<', 3) else {
        let (at, msg) = match find_run(&tokens, '<', 1) {
            Some(i) => (
                tokens[i].span(),
                "the launch configuration opens with three angle brackets, `<<<`",
            ),
            None => (first.span(), "missing `<<<` after the kernel name"),
        };
        return Err(syn::Error::new(at, format!("{msg}; {USAGE}")));
    };
    if open == 0 {
        return Err(syn::Error::new(
            tokens[0].span(),
            format!("missing the kernel's name before `<<<`; {USAGE}"),
        ));
    }
    let path_tokens: TokenStream = tokens[..open].iter().cloned().collect();
    let kernel: syn::ExprPath = syn::parse2(path_tokens.clone()).map_err(|_| {
        syn::Error::new_spanned(
            &path_tokens,
            format!(
                "the kernel must be named by a path, like `saxpy` or `kernels::saxpy`; {USAGE}"
            ),
        )
    })?;
    let body = open + 3;
    let n = tokens.len();
    let args = match tokens.last() {
        Some(TokenTree::Group(g))
            if g.delimiter() == Delimiter::Parenthesis
                && n >= body + 4
                && tokens[n - 4..n - 1].iter().all(|t| is_punct(t, '>')) =>
        {
            g.clone()
        }
        _ => return Err(bad_close(&tokens, body)),
    };
    let close = n - 4;
    let config_tokens: TokenStream = tokens[body..close].iter().cloned().collect();
    let config = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
        .parse2(config_tokens.clone())
        .map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("cannot parse the launch configuration: {e}; {USAGE}"),
            )
        })?;
    let mut parts: Vec<syn::Expr> = config.into_iter().collect();
    let (grid, block, shared_bytes, stream) = match parts.len() {
        3 | 4 => {
            let stream = parts.pop().expect("three or four parts");
            let shared = if parts.len() == 3 { parts.pop() } else { None };
            let block = parts.pop().expect("two parts left");
            let grid = parts.pop().expect("one part left");
            (grid, block, shared, stream)
        }
        2 => {
            return Err(syn::Error::new_spanned(
                &config_tokens,
                "missing the stream: write `kernel<<<grid, block, stream>>>(args..)`; kernels are launched on a stream, e.g. `dev.default_stream()`",
            ))
        }
        0 => {
            return Err(syn::Error::new(
                tokens[close].span(),
                format!("the launch configuration is empty; {USAGE}"),
            ))
        }
        n => {
            let at = config_tokens.into_token_stream();
            return Err(syn::Error::new_spanned(
                at,
                format!("the launch configuration has {n} parts, not 3 or 4; {USAGE}"),
            ));
        }
    };
    Ok(LaunchCall {
        kernel,
        grid,
        block,
        shared_bytes,
        stream,
        args,
        close: tokens[n - 2].span(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn error(input: TokenStream) -> String {
        parse_launch(input).unwrap_err().to_string()
    }

    #[test]
    fn parses_both_forms() {
        let c = parse_launch(quote!(k<<<4, 256, s>>>(&mut y, &x, 2.0))).unwrap();
        assert!(c.shared_bytes.is_none());
        assert_eq!(c.args.stream().into_iter().count(), 8);
        let c = parse_launch(quote!(m::k<<<(2, 2), 32, 1024, dev.default_stream()>>>())).unwrap();
        assert!(c.shared_bytes.is_some());
        assert_eq!(c.kernel.path.segments.len(), 2);
    }

    #[test]
    fn nested_generics_in_the_configuration_do_not_confuse_it() {
        let c = parse_launch(quote!(k<<<f::<u32>(n), 256, s>>>(&mut y))).unwrap();
        assert_eq!(c.grid.to_token_stream().to_string(), "f :: < u32 > (n)");
    }

    #[test]
    fn each_malformed_shape_says_what_is_missing() {
        assert!(error(quote!(k<<<1, 32>>>(&mut y))).contains("missing the stream"));
        assert!(error(quote!(k << 1, 32, s >> (&mut y))).contains("three angle brackets, `<<<`"));
        assert!(error(quote!(k<<<1, 32, s>>(&mut y))).contains("`>>>`"));
        assert!(error(quote!(k<<<1, 32, s>>>)).contains("missing the kernel's arguments"));
        assert!(error(quote!(<<<1, 32, s>>>())).contains("missing the kernel's name"));
        assert!(error(quote!(k<<<1>>>())).contains("has 1 parts"));
        assert!(error(quote!(k<<<>>>())).contains("is empty"));
        assert!(error(quote!()).contains("needs a kernel"));
        assert!(error(quote!(k<<<1, 2, s>>>(a) b)).contains("unexpected tokens"));
        assert!(error(quote!(1 + 2<<<1, 2, s>>>(a))).contains("named by a path"));
    }
}
