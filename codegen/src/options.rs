//! The arguments of `#[kernel(...)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;

use crate::target::Target;
use crate::ty::Scalar;

/// What `#[kernel(...)]` asked for.
#[derive(Clone, Debug)]
pub struct KernelOptions {
    /// Bounds and division checks (off with `unchecked`).
    pub checked: bool,
    /// Approximate math and flush-to-zero (`fastmath`).
    pub fastmath: bool,
    /// `max_threads = N`: the most threads per block this kernel is launched with.
    pub max_threads: Option<u32>,
    /// `min_blocks = N`: blocks per multiprocessor the register budget must allow.
    pub min_blocks: Option<u32>,
    /// `target = "sm_90"`: overrides the default target.
    pub target: Option<Target>,
    /// `instances(f32, f64)` (or `instances((f32, u32), ..)` for several type parameters):
    /// the types a generic kernel is compiled for.
    pub instances: Vec<Vec<Scalar>>,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions {
            checked: true,
            fastmath: false,
            max_threads: None,
            min_blocks: None,
            target: None,
            instances: Vec::new(),
        }
    }
}

/// Every attribute name, for error messages.
const KNOWN: &str = "`unchecked`, `fastmath`, `max_threads = N`, `min_blocks = N`, `target = \"sm_XX\"`, `instances(f32, f64)`";

impl KernelOptions {
    /// Parses the tokens inside `#[kernel(...)]`. Every problem is reported, at its own span.
    pub fn parse(tokens: TokenStream) -> syn::Result<KernelOptions> {
        let mut options = KernelOptions::default();
        let mut errors: Option<syn::Error> = None;
        let mut push = |e: syn::Error| match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        };
        let parser = syn::meta::parser(|meta| {
            let name = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            match name.as_str() {
                "unchecked" => options.checked = false,
                "fastmath" => options.fastmath = true,
                "max_threads" | "min_blocks" => {
                    let lit: syn::LitInt = meta.value()?.parse()?;
                    let v: u32 = lit.base10_parse()?;
                    let limit = if name == "max_threads" { 1024 } else { 32 };
                    if v == 0 || v > limit {
                        push(syn::Error::new(
                            lit.span(),
                            format!("`{name}` must be between 1 and {limit}"),
                        ));
                    } else if name == "max_threads" {
                        options.max_threads = Some(v);
                    } else {
                        options.min_blocks = Some(v);
                    }
                }
                "instances" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let types =
                        syn::punctuated::Punctuated::<syn::Type, syn::Token![,]>::parse_terminated(
                            &content,
                        )?;
                    for t in types {
                        let parts: Vec<syn::Type> = match &t {
                            syn::Type::Tuple(tt) => tt.elems.iter().cloned().collect(),
                            other => vec![other.clone()],
                        };
                        let mut instance = Vec::new();
                        for p in &parts {
                            let name = quote::ToTokens::to_token_stream(p).to_string();
                            match Scalar::from_name(&name).filter(|s| *s != Scalar::Bool) {
                                Some(s) => instance.push(s),
                                None => push(syn::Error::new_spanned(p, format!("instances are kernel scalar types (`f32`, `i32`, ..), not `{name}`"))),
                            }
                        }
                        if instance.len() == parts.len() {
                            options.instances.push(instance);
                        }
                    }
                }
                "target" => {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    match Target::parse(&lit.value()) {
                        Ok(t) => options.target = Some(t),
                        Err(msg) => push(syn::Error::new(lit.span(), msg)),
                    }
                }
                _ => {
                    let shown = quote::ToTokens::to_token_stream(&meta.path)
                        .to_string()
                        .replace(' ', "");
                    push(meta.error(format!(
                        "unknown kernel attribute `{shown}`; expected {KNOWN}"
                    )));
                    // Skip a value or list so the rest still parses.
                    if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    } else if meta.input.peek(syn::token::Paren) {
                        let _ = meta.parse_nested_meta(|m| {
                            let _ = m.input.parse::<TokenStream>();
                            Ok(())
                        });
                    }
                }
            }
            Ok(())
        });
        parser.parse2(tokens)?;
        match errors {
            Some(e) => Err(e),
            None => Ok(options),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_every_option() {
        let o = KernelOptions::parse(quote!(
            unchecked,
            fastmath,
            max_threads = 256,
            min_blocks = 2,
            target = "sm_90"
        ))
        .unwrap();
        assert!(!o.checked && o.fastmath);
        assert_eq!((o.max_threads, o.min_blocks), (Some(256), Some(2)));
        assert_eq!(o.target.unwrap().sm, "sm_90");
    }

    #[test]
    fn reports_every_unknown_option() {
        let e =
            KernelOptions::parse(quote!(fast, max_threads = 4096, target = "sm_1")).unwrap_err();
        let msgs: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs[0].contains("unknown kernel attribute `fast`"));
        assert!(msgs[1].contains("between 1 and 1024"));
        assert!(msgs[2].contains("unknown GPU target"));
    }
}
