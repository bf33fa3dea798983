//! `#[derive(DeviceCopy)]`: the host side of a user type that kernels use.
//!
//! The kernel compiler reads the struct's definition from the source file (with the
//! module's constants, `consts::ModuleItems`); the derive checks on the host what makes the
//! type plain data the device can read byte for byte, and implements the traits launches
//! and buffers need. Every check is an error at the item or field concerned, and the unsafe
//! impls are emitted only when the syntax checks pass; what only rustc knows (field types
//! implementing `DeviceCopy`, the absence of padding) is checked by rustc in the expansion.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// Expands `#[derive(DeviceCopy)]` on `input`.
pub fn expand(input: TokenStream) -> TokenStream {
    let item: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    match derive(&item) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn derive(item: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let name = &item.ident;
    let syn::Data::Struct(data) = &item.data else {
        return Err(syn::Error::new_spanned(
            name,
            "`DeviceCopy` can be derived for structs only",
        ));
    };
    let mut errors: Option<syn::Error> = None;
    let mut tys = Vec::new();
    for f in &data.fields {
        if let Err(e) = check_field_type(&f.ty) {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
        tys.push(&f.ty);
    }
    if data.fields.is_empty() {
        return Err(syn::Error::new_spanned(
            name,
            "a `DeviceCopy` struct needs at least one field",
        ));
    }
    if let Some(e) = errors {
        return Err(e);
    }
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "a `DeviceCopy` struct cannot be generic: kernels need its exact layout; write the types out",
        ));
    }
    check_repr(item)?;
    let rt = crate::private();
    let field_checks = tys
        .iter()
        .map(|t| quote_spanned!(t.span()=> let _: __CuprumDeviceCopyField<#t>;));
    let padding_msg = format!(
        "`{name}` has padding bytes between or after its fields, which would be copied to and read on the device uninitialised; add explicit padding fields (such as `_pad: [u8; N]`) or reorder the fields from the largest alignment down"
    );
    let sizes = tys.iter().map(|t| quote!(::core::mem::size_of::<#t>()));
    Ok(quote! {
        const _: () = {
            struct __CuprumDeviceCopyField<T: #rt::DeviceCopy>(::core::marker::PhantomData<T>);
            #[allow(dead_code)]
            fn __cuprum_fields_are_device_copy() {
                #(#field_checks)*
            }
            assert!(
                ::core::mem::size_of::<#name>() == 0 #(+ #sizes)*,
                #padding_msg
            );
            // SAFETY: `#name` is `repr(C)` (checked above), its fields are `DeviceCopy`
            // (plain data without pointers, checked by the bound above) and it has no
            // padding (the assertion above), so its bytes are all initialised and every
            // value the device writes is one of its values.
            unsafe impl #rt::DeviceCopy for #name {}
            // SAFETY: as above: kernels receive the value's bytes as a `repr(C)` struct.
            unsafe impl #rt::DeviceRepr for #name {}
        };
    })
}

/// `#[repr(C)]` (optionally with `align(N)`) is required; `packed` and others are refused.
fn check_repr(item: &syn::DeriveInput) -> syn::Result<()> {
    let mut c = false;
    for a in item.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let mut bad: Option<syn::Error> = None;
        a.parse_nested_meta(|m| {
            if m.path.is_ident("C") {
                c = true;
            } else if m.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in m.input);
                let _: syn::LitInt = content.parse()?;
            } else {
                let what = m.path.to_token_stream().to_string();
                bad = Some(syn::Error::new_spanned(
                    &m.path,
                    format!("`repr({what})` is not supported on `DeviceCopy` types: kernels use `#[repr(C)]` (optionally `#[repr(C, align(N))]`)"),
                ));
                if m.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in m.input);
                    let _: TokenStream = content.parse()?;
                }
            }
            Ok(())
        })?;
        if let Some(e) = bad {
            return Err(e);
        }
    }
    if !c {
        return Err(syn::Error::new_spanned(
            &item.ident,
            format!(
                "`{}` needs `#[repr(C)]` to be `DeviceCopy`: kernels and the host must agree on where each field lies, which Rust's default layout does not promise; add `#[repr(C)]` above the struct",
                item.ident
            ),
        ));
    }
    Ok(())
}

/// Refuses field types that are never plain device data, with what to write instead.
fn check_field_type(ty: &syn::Type) -> syn::Result<()> {
    let msg = match ty {
        syn::Type::Paren(p) => return check_field_type(&p.elem),
        syn::Type::Group(g) => return check_field_type(&g.elem),
        syn::Type::Array(a) => return check_field_type(&a.elem),
        syn::Type::Reference(_) | syn::Type::Ptr(_) => {
            "a `DeviceCopy` struct cannot hold references or pointers: the device cannot follow host addresses; pass the data as a `&[T]` kernel parameter (a `DeviceBuffer<T>`) and store an index".to_string()
        }
        syn::Type::Slice(_) => "a `DeviceCopy` struct cannot hold a slice; use an array `[T; N]`".to_string(),
        syn::Type::Tuple(t) if t.elems.is_empty() => "a `DeviceCopy` struct cannot hold `()`; remove the field".to_string(),
        syn::Type::Tuple(_) => "a `DeviceCopy` struct cannot hold a tuple (its layout is not `repr(C)`); use an array or another `DeviceCopy` struct".to_string(),
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return Ok(());
            };
            match last.ident.to_string().as_str() {
                "Vec" | "String" | "Box" | "Rc" | "Arc" | "HashMap" | "BTreeMap" | "VecDeque" => format!(
                    "a `DeviceCopy` struct cannot hold a `{}`: it owns host heap memory; pass the data as a `&[T]` kernel parameter (a `DeviceBuffer<T>`)",
                    last.ident
                ),
                "Option" | "Result" => format!(
                    "a `DeviceCopy` struct cannot hold a `{}`; store a plain value and a flag",
                    last.ident
                ),
                "char" | "str" => "a `DeviceCopy` struct cannot hold text; store bytes (`u8`)".to_string(),
                "i128" | "u128" => "128-bit integers are not supported on the GPU; use `i64` or `u64`".to_string(),
                _ => return Ok(()),
            }
        }
        _ => format!(
            "type `{}` cannot be a field of a `DeviceCopy` struct: fields are scalars, arrays or other `DeviceCopy` types",
            ty.to_token_stream()
        ),
    };
    Err(syn::Error::new_spanned(ty, msg))
}
