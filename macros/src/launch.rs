//! `launch!(kernel<<<grid, block[, shared_bytes], stream>>>(args..))` → `kernel::launch(..)`.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;

const USAGE: &str = "expected `launch!(kernel<<<grid, block, stream>>>(args..))` or `launch!(kernel<<<grid, block, shared_bytes, stream>>>(args..))`";

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

pub fn expand(input: TokenStream) -> TokenStream {
    match parse(input) {
        Ok(ts) => ts,
        Err(e) => e.to_compile_error(),
    }
}

fn parse(input: TokenStream) -> syn::Result<TokenStream> {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let whole = tokens
        .first()
        .map(|t| t.span())
        .unwrap_or_else(Span::call_site);
    let Some(open) = (0..tokens.len().saturating_sub(2)).find(|&i| {
        // Spacing is not checked: macro_rules transcription may not keep it.
        is_punct(&tokens[i], '<') && is_punct(&tokens[i + 1], '<') && is_punct(&tokens[i + 2], '<')
    }) else {
        return Err(syn::Error::new(
            whole,
            format!("missing `<<<` after the kernel name; {USAGE}"),
        ));
    };
    let Some(TokenTree::Group(args)) = tokens
        .last()
        .filter(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis))
    else {
        let at = tokens.last().map(|t| t.span()).unwrap_or(whole);
        return Err(syn::Error::new(
            at,
            format!("missing the kernel's arguments in parentheses after `>>>`; {USAGE}"),
        ));
    };
    let n = tokens.len();
    if n < open + 7
        || !(is_punct(&tokens[n - 4], '>')
            && is_punct(&tokens[n - 3], '>')
            && is_punct(&tokens[n - 2], '>'))
    {
        return Err(syn::Error::new(
            args.span(),
            format!("missing `>>>` before the kernel's arguments; {USAGE}"),
        ));
    }
    let path_tokens: TokenStream = tokens[..open].iter().cloned().collect();
    if path_tokens.is_empty() {
        return Err(syn::Error::new(
            tokens[open].span(),
            format!("missing the kernel's name before `<<<`; {USAGE}"),
        ));
    }
    let path: syn::ExprPath = syn::parse2(path_tokens.clone())
        .map_err(|_| syn::Error::new_spanned(&path_tokens, format!("the kernel must be named by a path, like `saxpy` or `kernels::scale::<f32>`; {USAGE}")))?;
    let config_tokens: TokenStream = tokens[open + 3..n - 4].iter().cloned().collect();
    let config = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
        .parse2(config_tokens.clone())
        .map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("cannot parse the launch configuration: {e}; {USAGE}"),
            )
        })?;
    let config: Vec<syn::Expr> = config.into_iter().collect();
    let (grid, block, shared, stream) = match config.as_slice() {
        [g, b, s] => (g, b, None, s),
        [g, b, sh, s] => (g, b, Some(sh), s),
        [_, _] => {
            return Err(syn::Error::new_spanned(
                &config_tokens,
                "missing the stream: `kernel<<<grid, block, stream>>>(args..)`; kernels are launched on a stream, e.g. `dev.default_stream()`",
            ))
        }
        _ => {
            let at = if config_tokens.is_empty() { tokens[open].span() } else { config_tokens.clone().into_iter().next().unwrap().span() };
            return Err(syn::Error::new(at, format!("the launch configuration has {} parts; {USAGE}", config.len())));
        }
    };
    let shared = shared.map(|s| quote!(.with_shared_bytes(#s)));
    let call_args = args.stream();
    let call =
        quote_spanned!(args.span()=> #path::launch(__cuprum_stream, __cuprum_config, #call_args));
    Ok(quote! {
        {
            let __cuprum_stream: &::cuprum::Stream = &#stream;
            let __cuprum_config = ::cuprum::LaunchConfig::new(#grid, #block) #shared;
            #call
        }
    })
}
