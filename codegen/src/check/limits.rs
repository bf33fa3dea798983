//! What the compiler refuses because it could not finish: nesting deeper than a proc macro's
//! stack holds, and local arrays too large to be values. Each limit is an error at the code
//! that crosses it, never a crash or a build that does not end.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;

use super::Checker;
use crate::ty::Ty;

/// How deeply expressions may nest. The checker and the lowering recurse over the syntax
/// tree; a proc macro runs on rustc's 8 MiB stack, which holds about a thousand levels in a
/// debug build.
const MAX_DEPTH: u32 = 256;

/// How deeply brackets, parentheses and braces may nest in a kernel or `launch!`, and how many
/// prefix operators (`-`, `!`, `&`, `return`, ..) may follow each other: syn's parser recurses
/// over both and overflows the stack a few hundred levels down.
pub const MAX_GROUP_DEPTH: usize = 128;

/// Reports tokens nested more deeply than [`MAX_GROUP_DEPTH`], or longer runs of prefix
/// operators, at the token that goes too far, before anything recursive parses them.
pub fn check_nesting(tokens: &TokenStream) -> syn::Result<()> {
    const PREFIX_WORDS: &[&str] = &["return", "break", "yield", "move", "mut", "ref", "box"];
    let too_deep = |span: Span, what: &str| {
        syn::Error::new(
            span,
            format!("{what} more than {MAX_GROUP_DEPTH} levels deep here, more than Cuprum's compiler handles; split the code with `let` bindings"),
        )
    };
    // Each level: its tokens, and how many prefix operators came last in a row.
    let mut stack = vec![(tokens.clone().into_iter(), 0usize)];
    while let Some((top, run)) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Group(g)) => {
                *run = 0;
                if stack.len() > MAX_GROUP_DEPTH {
                    return Err(too_deep(
                        g.span_open(),
                        "brackets, parentheses and braces nest",
                    ));
                }
                stack.push((g.stream().into_iter(), 0));
            }
            Some(TokenTree::Punct(p)) => {
                *run += 1;
                if *run > MAX_GROUP_DEPTH {
                    return Err(too_deep(p.span(), "operators nest"));
                }
            }
            Some(TokenTree::Ident(i)) if PREFIX_WORDS.contains(&i.to_string().as_str()) => {
                *run += 1;
                if *run > MAX_GROUP_DEPTH {
                    return Err(too_deep(i.span(), "operators nest"));
                }
            }
            Some(_) => *run = 0,
            None => {
                stack.pop();
            }
        }
    }
    Ok(())
}

/// The most scalars one local array may hold. Local arrays are values in registers or the
/// thread's local memory, and LLVM's time grows faster than linearly with their length (a
/// 16 KiB array takes tens of seconds to compile); large data belongs in a buffer.
pub(super) const LOCAL_ARRAY_LIMIT: u64 = 1024;

/// The most bytes of static shared memory (`.shared` variables) one kernel may declare: PTX
/// allows 48 KiB on every target (ptxas: "uses too much shared data (.., 0xc000 max)"); more
/// is only reachable as dynamic shared memory.
pub(crate) const STATIC_SHARED_LIMIT: u64 = 48 * 1024;

/// The number of scalars in a value of type `ty`, or `None` for what arrays cannot hold.
pub(super) fn scalar_count(ty: &Ty) -> Option<u64> {
    match ty {
        Ty::Scalar(_) | Ty::Enum(_) | Ty::Var(_) | Ty::Error => Some(1),
        Ty::Array(t, n) => scalar_count(t)?.checked_mul(*n),
        Ty::Tuple(ts) => ts
            .iter()
            .try_fold(0u64, |acc, t| acc.checked_add(scalar_count(t)?)),
        Ty::Dim3 => Some(3),
        Ty::Struct(d) => d
            .fields
            .iter()
            .try_fold(0u64, |acc, (_, t)| acc.checked_add(scalar_count(t)?)),
        _ => None,
    }
}

impl Checker<'_> {
    /// Counts one more level of nesting; at the limit, reports it (once) and says no.
    pub(super) fn enter(&mut self, at: &impl ToTokens) -> bool {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.error(
                    at,
                    format!("this expression nests more than {} levels deep, more than Cuprum's compiler handles; split it with `let` bindings", MAX_DEPTH),
                );
            }
            return false;
        }
        self.depth += 1;
        true
    }

    /// Whether one more static shared array of `dims` elements of `elem` keeps the kernel's
    /// static shared memory within [`STATIC_SHARED_LIMIT`]; reports at `at` (its sizes) when
    /// not. Sizes are multiplied without overflow: `shared_array_2d::<u32, 4294967296,
    /// 4294967296>()` is 2^66 bytes, not 0.
    pub(super) fn static_shared_fits(
        &mut self,
        elem: &Ty,
        dims: &[u64],
        at: impl ToTokens,
    ) -> bool {
        if dims.is_empty() {
            return true; // dynamic shared memory: sized at launch
        }
        let bytes = dims.iter().try_fold(elem_bytes(elem) as u128, |acc, &d| {
            acc.checked_mul(d as u128)
        });
        let before: u64 = self
            .shared
            .iter()
            .filter(|a| !a.dims.is_empty())
            .map(|a| a.dims.iter().product::<u64>() * elem_bytes(&a.elem))
            .sum();
        let hint = "for more, use `gpu::dynamic_shared::<T>()` with the launch's shared bytes (up to 227 KiB per block on sm_90)";
        let limit = STATIC_SHARED_LIMIT;
        match bytes {
            Some(b) if b <= limit as u128 && before + b as u64 <= limit => true,
            Some(b) if b <= limit as u128 => {
                self.error(
                    at,
                    format!("this shared array needs {b} bytes, and the kernel's other static shared arrays {before}: together more than the 48 KiB ({limit} bytes) a kernel's static shared arrays may hold; {hint}"),
                );
                false
            }
            b => {
                let b = b.map_or_else(|| "more than 2^128".to_string(), |b| b.to_string());
                self.error(
                    at,
                    format!("this shared array needs {b} bytes; a kernel's static shared arrays hold at most 48 KiB ({limit} bytes); {hint}"),
                );
                false
            }
        }
    }

    /// Whether a local array of `n` elements of type `elem` is small enough to be a value;
    /// reports at `at` when not.
    pub(super) fn array_fits(&mut self, elem: &Ty, n: u64, at: impl ToTokens) -> bool {
        let elem = self.infer.zonk(elem);
        let Some(size) = scalar_count(&elem) else {
            let d = self.infer.describe(&elem);
            self.error(
                at,
                format!("arrays of `{d}` are not supported in kernels; arrays hold scalars, tuples of them, or arrays"),
            );
            return false;
        };
        match size.checked_mul(n) {
            Some(total) if total <= LOCAL_ARRAY_LIMIT => true,
            total => {
                let total = total.map_or_else(|| "more than 2^64".to_string(), |t| t.to_string());
                self.error(
                    at,
                    format!("this local array holds {total} values; a kernel's local arrays hold at most {LOCAL_ARRAY_LIMIT}: keep large data in a `&mut [T]` parameter"),
                );
                false
            }
        }
    }
}

/// The bytes of one element of a slice or shared array.
pub(crate) fn elem_bytes(elem: &Ty) -> u64 {
    crate::ty::size_align(elem).map_or(0, |(s, _)| s)
}
