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
    /// `block = (X, Y, Z)` (or `(X, Y)`, `X`): the only block shape the kernel is launched
    /// with (the runtime refuses any other); the IR passes use it as facts.
    pub block: Option<[u32; 3]>,
    /// `target = "sm_90"`: overrides the default target.
    pub target: Option<Target>,
    /// `instances(f32, f64)`, `instances(128, 256)` (or `instances((f32, 128), ..)` for
    /// several generic parameters): what a generic kernel is compiled for.
    pub instances: Vec<Vec<InstanceArg>>,
    /// Compile `debug_assert*!` (not an attribute: the macro compiles a kernel that has them
    /// twice, and the user's crate picks one with `cfg!(debug_assertions)`).
    pub debug_assertions: bool,
    /// Let the IR passes prove index checks redundant (`passes::bounds`). Not an attribute:
    /// on by default; tests turn it off to compare.
    pub prove_bounds: bool,
    /// Let the launch evaluate a versioning test whose values it knows (`passes::host`).
    /// Not an attribute: on by default; tests turn it off to see the test in the kernel.
    pub host_tests: bool,
    /// `cooperative`: launched cooperatively (every block resident at once), so that
    /// `gpu::grid_sync()` can wait for the whole grid.
    pub cooperative: bool,
    /// Mistakes that leave the options usable (an instance listed twice), reported with the
    /// kernel's own errors so that nothing else is reported because of them.
    pub repeated: Vec<syn::Error>,
}

/// The shape of `block = ..`: one to three positive integers whose product is at most 1024,
/// `z` at most 64.
fn block_shape(v: &syn::Expr) -> syn::Result<[u32; 3]> {
    let usage =
        "`block` takes the block's shape as integers: `block = (32, 8)` or `block = (8, 8, 4)`";
    let parts: Vec<&syn::Expr> = match v {
        syn::Expr::Tuple(t) => t.elems.iter().collect(),
        syn::Expr::Paren(p) => vec![&*p.expr],
        other => vec![other],
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(syn::Error::new_spanned(v, usage));
    }
    let mut shape = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) = p
        else {
            return Err(syn::Error::new_spanned(p, usage));
        };
        let limit = if k == 2 { 64 } else { 1024 };
        match lit.base10_parse::<u32>() {
            Ok(n) if (1..=limit).contains(&n) => shape[k] = n,
            _ => {
                let axis = ["x", "y", "z"][k];
                return Err(syn::Error::new(
                    lit.span(),
                    format!("`block`'s {axis} must be between 1 and {limit}"),
                ));
            }
        }
    }
    if shape.iter().map(|&n| n as u64).product::<u64>() > 1024 {
        return Err(syn::Error::new_spanned(
            v,
            "a block has at most 1024 threads; `block`'s sizes multiply to more",
        ));
    }
    Ok(shape)
}

/// One argument of a kernel instance, for a type or a const generic parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceArg {
    /// A type, `f32`.
    Type(Scalar),
    /// A constant, `256`.
    Const(i128),
}

impl InstanceArg {
    /// How it is written in Rust (`f32`, `256`), which is also its part of an entry name
    /// (`-1` is `m1` there).
    pub fn text(self) -> String {
        match self {
            InstanceArg::Type(s) => s.name().to_string(),
            InstanceArg::Const(v) => v.to_string(),
        }
    }
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions {
            checked: true,
            fastmath: false,
            max_threads: None,
            min_blocks: None,
            block: None,
            target: None,
            instances: Vec::new(),
            debug_assertions: true,
            repeated: Vec::new(),
            cooperative: false,
            prove_bounds: true,
            host_tests: true,
        }
    }
}

/// Every attribute: its name (for suggestions) and how it is written (for error messages).
const ATTRIBUTES: &[(&str, &str)] = &[
    ("unchecked", "`unchecked`"),
    ("fastmath", "`fastmath`"),
    ("max_threads", "`max_threads = N`"),
    ("min_blocks", "`min_blocks = N`"),
    ("block", "`block = (X, Y, Z)`"),
    ("target", "`target = \"sm_XX\"`"),
    ("instances", "`instances(f32, f64)`"),
    ("cooperative", "`cooperative`"),
];

/// Every attribute as it is written, for error messages.
fn attribute_list() -> String {
    ATTRIBUTES
        .iter()
        .map(|(_, usage)| *usage)
        .collect::<Vec<_>>()
        .join(", ")
}

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
                "cooperative" => options.cooperative = true,
                "max_threads" | "min_blocks" => {
                    let usage = format!(
                        "`{name}` takes a number: `{name} = {}`",
                        if name == "max_threads" { 256 } else { 2 }
                    );
                    match option_value(&meta, &mut push, &usage)? {
                        Some(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(lit),
                            ..
                        })) => {
                            let limit = if name == "max_threads" { 1024 } else { 32 };
                            match lit.base10_parse::<u32>() {
                                Ok(v) if v >= 1 && v <= limit => {
                                    if name == "max_threads" {
                                        options.max_threads = Some(v);
                                    } else {
                                        options.min_blocks = Some(v);
                                    }
                                }
                                _ => push(syn::Error::new(
                                    lit.span(),
                                    format!("`{name}` must be between 1 and {limit}"),
                                )),
                            }
                        }
                        Some(other) => push(syn::Error::new_spanned(other, usage)),
                        None => {}
                    }
                }
                "block" => {
                    let usage = "`block` takes the block's shape: `block = (32, 8)`";
                    if let Some(v) = option_value(&meta, &mut push, usage)? {
                        match block_shape(&v) {
                            Ok(shape) => options.block = Some(shape),
                            Err(e) => push(e),
                        }
                    }
                }
                "instances" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let types =
                        syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated(
                            &content,
                        )?;
                    for t in types {
                        let parts: Vec<syn::Expr> = match &t {
                            syn::Expr::Tuple(tt) => tt.elems.iter().cloned().collect(),
                            syn::Expr::Paren(p) => vec![(*p.expr).clone()],
                            other => vec![other.clone()],
                        };
                        let mut instance = Vec::new();
                        for p in &parts {
                            match instance_arg(p) {
                                Some(a) => instance.push(a),
                                None => {
                                    let name = quote::ToTokens::to_token_stream(p).to_string();
                                    push(syn::Error::new_spanned(p, format!("instances are kernel scalar types (`f32`, `i32`, ..) and integer constants (`256`), not `{name}`")))
                                }
                            }
                        }
                        if instance.len() == parts.len() {
                            if options.instances.contains(&instance) {
                                let text = quote::ToTokens::to_token_stream(&t)
                                    .to_string()
                                    .replace(' ', "");
                                options.repeated.push(syn::Error::new_spanned(&t, format!("`{text}` is listed twice in `instances(..)`: each instance is one PTX entry; remove one")));
                            } else {
                                options.instances.push(instance);
                            }
                        }
                    }
                }
                "target" => {
                    let usage =
                        "`target` takes a GPU architecture as a string: `target = \"sm_90\"`";
                    match option_value(&meta, &mut push, usage)? {
                        Some(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(lit),
                            ..
                        })) => match Target::parse(&lit.value()) {
                            Ok(t) => options.target = Some(t),
                            Err(msg) => push(syn::Error::new(lit.span(), msg)),
                        },
                        Some(other) => {
                            let text = quote::ToTokens::to_token_stream(&other)
                                .to_string()
                                .replace(' ', "");
                            push(syn::Error::new_spanned(
                                other,
                                format!("`target` takes a string: write `target = \"{text}\"`"),
                            ))
                        }
                        None => {}
                    }
                }
                _ => {
                    let shown = quote::ToTokens::to_token_stream(&meta.path)
                        .to_string()
                        .replace(' ', "");
                    let known = attribute_list();
                    let hint = match crate::check::closest(
                        &shown,
                        ATTRIBUTES.iter().map(|(name, _)| *name),
                    ) {
                        Some(near) => {
                            format!("did you mean `{near}`? Kernel attributes are {known}")
                        }
                        None => format!("expected {known}"),
                    };
                    push(syn::Error::new_spanned(
                        &meta.path,
                        format!("unknown kernel attribute `{shown}`; {hint}"),
                    ));
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
        // A syntax error ends the list; the problems found before it are still reported.
        let syntax = parser.parse2(tokens).err().map(|e| {
            let msg = format!(
                "{e}; {}",
                "kernel attributes are written `#[kernel(unchecked, max_threads = 256)]`"
            );
            syn::Error::new(e.span(), msg)
        });
        match (errors, syntax) {
            (Some(mut e), Some(s)) => {
                e.combine(s);
                Err(e)
            }
            (Some(e), None) | (None, Some(e)) => Err(e),
            (None, None) => Ok(options),
        }
    }
}

/// The value of `name = value`; without `= value`, reports `usage` and skips what follows the
/// name, so that the next option still parses.
fn option_value(
    meta: &syn::meta::ParseNestedMeta<'_>,
    push: &mut impl FnMut(syn::Error),
    usage: &str,
) -> syn::Result<Option<syn::Expr>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    push(syn::Error::new_spanned(&meta.path, usage));
    if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::TokenTree = meta.input.parse()?;
    }
    Ok(None)
}

/// An instance argument: a scalar type's name or an integer literal (possibly negative).
fn instance_arg(e: &syn::Expr) -> Option<InstanceArg> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => {
            let name = p.path.get_ident()?.to_string();
            Scalar::from_name(&name)
                .filter(|s| *s != Scalar::Bool)
                .map(InstanceArg::Type)
        }
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if i.suffix().is_empty() => i.base10_parse().ok().map(InstanceArg::Const),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match instance_arg(expr)? {
            InstanceArg::Const(v) => Some(InstanceArg::Const(-v)),
            InstanceArg::Type(_) => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn instances_of_types_and_constants() {
        let o = KernelOptions::parse(quote::quote!(instances(128, (f32, -2), (u32, f64)))).unwrap();
        assert_eq!(
            o.instances,
            vec![
                vec![InstanceArg::Const(128)],
                vec![InstanceArg::Type(Scalar::F32), InstanceArg::Const(-2)],
                vec![
                    InstanceArg::Type(Scalar::U32),
                    InstanceArg::Type(Scalar::F64)
                ],
            ]
        );
        assert!(KernelOptions::parse(quote::quote!(instances(1.5))).is_err());
    }

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

    /// Every attribute the parser takes is suggested for a near miss, `instances` too.
    #[test]
    fn near_misses_of_every_attribute_are_suggested() {
        for (name, _) in ATTRIBUTES {
            let mut miss = name.to_string();
            miss.pop();
            let tokens: TokenStream = format!("{miss}(f32)").parse().unwrap();
            let e = KernelOptions::parse(tokens).unwrap_err().to_string();
            assert!(
                e.contains(&format!("did you mean `{name}`?")),
                "{miss}: {e}"
            );
            let parsed_alone: TokenStream = match *name {
                "max_threads" | "min_blocks" => format!("{name} = 2"),
                "target" => format!("{name} = \"sm_90\""),
                "block" => format!("{name} = (32, 8)"),
                "instances" => format!("{name}(f32)"),
                _ => name.to_string(),
            }
            .parse()
            .unwrap();
            assert!(KernelOptions::parse(parsed_alone).is_ok(), "{name}");
        }
    }

    #[test]
    fn a_syntax_error_keeps_the_errors_before_it() {
        let e = KernelOptions::parse(quote!(fast, 1 + 2)).unwrap_err();
        let msgs: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("did you mean `fastmath`"), "{msgs:?}");
        assert!(
            msgs[1].contains("#[kernel(unchecked, max_threads = 256)]"),
            "{msgs:?}"
        );
    }
}
