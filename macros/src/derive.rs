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
        Ok(t) => {
            let bundle = type_bundle(&item);
            quote!(#t #bundle)
        }
        Err(e) => e.to_compile_error(),
    }
}

/// The macro, named like the type in the macro namespace, through which kernels of other
/// modules and crates that import the type get the items of its module (its definition,
/// its `#[device] impl` blocks, its module's constants): `Type! { STATE }` answers
/// `collect! { STATE BUNDLE }`, as a `#[device]` function's macro does.
fn type_bundle(item: &syn::DeriveInput) -> TokenStream {
    let name = &item.ident;
    let items = crate::items::of_type(name).to_tokens();
    let bundle = cuprum_codegen::device::encode_type_bundle(&items);
    let public = matches!(item.vis, syn::Visibility::Public(_));
    crate::device::bundle_macro(name, "type", &bundle, public)
}

fn derive(item: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let name = &item.ident;
    let data = match &item.data {
        syn::Data::Struct(data) => data,
        syn::Data::Enum(data) => return derive_enum(item, data),
        syn::Data::Union(u) => {
            return Err(syn::Error::new_spanned(
                u.union_token,
                "`DeviceCopy` cannot be derived for unions: use a `#[repr(C)]` struct or a field-less enum",
            ))
        }
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
    // Every bit pattern is a value when every field's is (no enum inside): rustc decides
    // through the bounds, which a higher-ranked `for<'a>` keeps from being an error when
    // they do not hold (the impl then simply does not apply).
    let any_bits = tys
        .iter()
        .map(|t| quote_spanned!(t.span()=> for<'__cuprum> #t: ::cuprum::AnyBitPattern));
    let element = element_impls(name, &data.fields);
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
            // SAFETY: no padding (above), and every field accepts every bit pattern (the
            // bounds), so every bit pattern of the struct is one of its values.
            unsafe impl #rt::AnyBitPattern for #name where #(#any_bits),* {}
            #element
        };
    })
}

/// The impls that make a `DeviceCopy` struct a buffer and slice element: `Element`, zero as
/// a value (rustc checks that every field's type has zero as a value), and the
/// simulator's field-by-field accesses at the `repr(C)` offsets. Emitted after the checks
/// of `derive`, inside its `const _` block, so they are sound for the same reasons.
fn element_impls(name: &syn::Ident, fields: &syn::Fields) -> TokenStream {
    let rt = crate::private();
    let members: Vec<syn::Member> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.ident {
            Some(id) => syn::Member::Named(id.clone()),
            None => syn::Member::Unnamed(syn::Index::from(i)),
        })
        .collect();
    let tys: Vec<&syn::Type> = fields.iter().map(|f| &f.ty).collect();
    let sim = quote!(#rt::sim::SimValue);
    let label = name.to_string();
    // Each impl holds when every field's type has it (an enum without a zero variant has no
    // `ValidAsZeroBits`, so neither has a struct holding one); the higher-ranked bounds make
    // an unmet one leave the impl out rather than be an error. The simulator's `load_from`
    // fails when a field's does (an enum field holding no variant), and `CHECKED` says
    // whether one can.
    let bound = |tr: TokenStream| -> Vec<TokenStream> {
        tys.iter()
            .map(|t| quote_spanned!(t.span()=> for<'__cuprum> #t: #tr))
            .collect()
    };
    let zero_bounds = bound(quote!(#rt::ValidAsZeroBits));
    let sim_bounds = bound(quote!(#sim));
    let element_bounds = bound(quote!(#rt::Element));
    quote! {
        // SAFETY: zero bits are a value of every field's type (the bounds).
        unsafe impl #rt::ValidAsZeroBits for #name where #(#zero_bounds),* {}
        // SAFETY: each field is read and written through its own type's accesses at its
        // offset; the fields cover the struct's bytes (it has no padding).
        unsafe impl #sim for #name where #(#sim_bounds),* {
            const CHECKED: bool = false #(|| <#tys as #sim>::CHECKED)*;
            #[inline]
            unsafe fn load_from(p: *const u8) -> ::core::result::Result<Self, #rt::sim::NotAValue> {
                // SAFETY: each field lies within the value at `p` (the caller's contract).
                ::core::result::Result::Ok(unsafe {
                    #name { #(#members: <#tys as #sim>::load_from(p.add(::core::mem::offset_of!(#name, #members)))?,)* }
                })
            }
            #[inline]
            unsafe fn store_to(p: *mut u8, v: Self) {
                // SAFETY: as above.
                unsafe {
                    #(<#tys as #sim>::store_to(p.add(::core::mem::offset_of!(#name, #members)), v.#members);)*
                }
            }
            #[inline]
            unsafe fn copy_bits(src: *const u8, dst: *mut u8) {
                // SAFETY: each field of both values (the caller's contract).
                unsafe {
                    #(<#tys as #sim>::copy_bits(
                        src.add(::core::mem::offset_of!(#name, #members)),
                        dst.add(::core::mem::offset_of!(#name, #members)),
                    );)*
                }
            }
        }
        // SAFETY: `DeviceCopy` (above), zero is a value, and the simulator's accesses are
        // the fields'.
        unsafe impl #rt::Element for #name where #(#element_bounds),* {
            const NAME: &'static str = #label;
        }
    }
}

/// `#[derive(DeviceCopy)]` on a field-less enum with an integer `#[repr(..)]`: kernels hold
/// it as its discriminant. It is an `Element` and a `DeviceEnum` (its memory viewed as the
/// `repr` integer), but not `AnyBitPattern` (most bit patterns are no variant): its
/// `SimValue::load_from` checks the discriminant, which is how the simulator and every host
/// copy read it, and it is `ValidAsZeroBits` only when a variant's discriminant is 0.
fn derive_enum(item: &syn::DeriveInput, data: &syn::DataEnum) -> syn::Result<TokenStream> {
    let name = &item.ident;
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "a `DeviceCopy` enum cannot be generic: kernels need its exact layout",
        ));
    }
    let mut errors: Option<syn::Error> = None;
    for v in &data.variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            let e = syn::Error::new_spanned(
                &v.fields,
                format!("a `DeviceCopy` enum has no fields: kernels hold an enum as its discriminant; make `{}` a plain variant and keep its data in a `#[repr(C)]` struct next to the enum", v.ident),
            );
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    if data.variants.is_empty() {
        return Err(syn::Error::new_spanned(
            name,
            "a `DeviceCopy` enum needs at least one variant: kernels cannot hold a value of an empty type",
        ));
    }
    let repr = enum_repr(item)?;
    let size = repr.bytes() as usize;
    let size_msg = format!("`{name}` is not the size of its `repr`");
    let rt = crate::private();
    let sim = quote!(#rt::sim::SimValue);
    let int = syn::Ident::new(repr.name(), name.span());
    let variants: Vec<&syn::Ident> = data.variants.iter().map(|v| &v.ident).collect();
    let label = name.to_string();
    Ok(quote! {
        const _: () = {
            assert!(::core::mem::size_of::<#name>() == #size, #size_msg);
            // SAFETY: a field-less enum with an integer `repr` is that integer, with no
            // padding and no pointers; kernels only ever make values from its variants.
            unsafe impl ::cuprum::DeviceCopy for #name {}
            // SAFETY: as above: kernels receive the discriminant as the `repr` integer.
            unsafe impl ::cuprum::__private::DeviceRepr for #name {}
            // SAFETY: `#int` is the enum's `repr`: same size and alignment, and every value of
            // the enum is one of `#int`.
            unsafe impl ::cuprum::DeviceEnum for #name {
                type Repr = #int;
            }
            // Zero bits are a value only when a variant's discriminant is 0: rustc computes
            // it, and the higher-ranked bound leaves the impl out when it is not.
            const __CUPRUM_ZERO_IS_A_VARIANT: bool = false #(|| #name::#variants as #int == 0)*;
            // SAFETY: the bound holds only when zero is a variant's discriminant.
            unsafe impl #rt::ValidAsZeroBits for #name
            where
                for<'__cuprum> #rt::ZeroIsAVariant<__CUPRUM_ZERO_IS_A_VARIANT>: #rt::Holds
            {
            }
            // SAFETY: one atomic access of the `repr`'s width; `Ok` only for a variant's
            // discriminant.
            unsafe impl #sim for #name {
                const CHECKED: bool = true;
                #[inline]
                unsafe fn load_from(p: *const u8) -> ::core::result::Result<Self, #rt::sim::NotAValue> {
                    // SAFETY: the caller's contract is `SimValue::load_from`'s.
                    let bits = unsafe { <#int as #sim>::load_from(p) }.unwrap_or(0);
                    #(
                        if bits == #name::#variants as #int {
                            return ::core::result::Result::Ok(#name::#variants);
                        }
                    )*
                    ::core::result::Result::Err(#rt::sim::NotAValue {
                        ty: #label,
                        value: bits as i128,
                        repr: stringify!(#int),
                    })
                }
                #[inline]
                unsafe fn store_to(p: *mut u8, v: Self) {
                    // SAFETY: as above.
                    unsafe { <#int as #sim>::store_to(p, v as #int) }
                }
                #[inline]
                unsafe fn copy_bits(src: *const u8, dst: *mut u8) {
                    // SAFETY: the `repr` integer's accesses (the caller's contract).
                    unsafe { <#int as #sim>::copy_bits(src, dst) }
                }
            }
            // SAFETY: `DeviceCopy` (above); reads from memory check the discriminant
            // (`SimValue::CHECKED`, and the runtime's copies to the host), so no bit pattern
            // that is no variant ever becomes a value; zero is not required to be one.
            unsafe impl #rt::Element for #name {
                const NAME: &'static str = #label;
            }
        };
    })
}

/// The integer of an enum's `#[repr(..)]`, required (`C` alone leaves the size to the
/// platform's C compiler).
fn enum_repr(item: &syn::DeriveInput) -> syn::Result<cuprum_codegen::Scalar> {
    use cuprum_codegen::Scalar;
    let mut found = None;
    walk_repr(
        item,
        |what, _| {
            let int = Scalar::from_name(what).filter(|s| s.is_int());
            if int.is_some() {
                found = int;
            }
            Ok(int.is_some() || what == "C")
        },
        |what| {
            format!("`repr({what})` is not supported on `DeviceCopy` enums: use an integer type up to 64 bits, such as `#[repr(u8)]` or `#[repr(i32)]`")
        },
    )?;
    found.ok_or_else(|| {
        syn::Error::new_spanned(
            &item.ident,
            format!("`{}` needs an integer `#[repr(..)]` to be `DeviceCopy`, such as `#[repr(u8)]`: kernels and the host must agree on the size of its discriminant", item.ident),
        )
    })
}

/// Walks the arguments of the item's `#[repr(..)]` attributes: `accept(name, meta)` says
/// whether one is allowed (and parses its parenthesised argument, if it has one); the first
/// refused one is the error `refuse(name)` at it.
fn walk_repr(
    item: &syn::DeriveInput,
    mut accept: impl FnMut(&str, &syn::meta::ParseNestedMeta) -> syn::Result<bool>,
    refuse: impl Fn(&str) -> String,
) -> syn::Result<()> {
    for a in item.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let mut bad: Option<syn::Error> = None;
        a.parse_nested_meta(|m| {
            let what = m.path.to_token_stream().to_string();
            if accept(&what, &m)? {
                return Ok(());
            }
            bad.get_or_insert_with(|| syn::Error::new_spanned(&m.path, refuse(&what)));
            if m.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in m.input);
                let _: TokenStream = content.parse()?;
            }
            Ok(())
        })?;
        if let Some(e) = bad {
            return Err(e);
        }
    }
    Ok(())
}

/// `#[repr(C)]` (optionally with `align(N)`) is required; `packed` and others are refused.
fn check_repr(item: &syn::DeriveInput) -> syn::Result<()> {
    let mut c = false;
    walk_repr(
        item,
        |what, m| match what {
            "C" => {
                c = true;
                Ok(true)
            }
            "align" => {
                let content;
                syn::parenthesized!(content in m.input);
                let _: syn::LitInt = content.parse()?;
                Ok(true)
            }
            _ => Ok(false),
        },
        |what| {
            format!("`repr({what})` is not supported on `DeviceCopy` types: kernels use `#[repr(C)]` (optionally `#[repr(C, align(N))]`)")
        },
    )?;
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
