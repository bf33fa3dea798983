//! `sim`: the typed IR → host Rust, the kernel body the CPU simulator runs.
//!
//! The emitted function is `fn NAME(__t: &Thread, params..) -> Result<(), Stop>`. Every
//! memory access goes through the simulator's atomic views (`load`/`store`), every check
//! (index, division, `step_by`) returns `Err(Stop)` through `?`, integer arithmetic wraps, and
//! each check gets a `Loc` built with `line!()`/`column!()` at the user's span. Locals are
//! renamed `__cuprum_lN` (the IR already resolved shadowing) and loops labelled by id.

mod report;

pub use report::panic_formatter;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::ir::{
    AtomicOp, BinOp, Block, Builtin, Expr, ExprKind, Function, MathFn, Pattern, Place, Program,
    Proj, ShflKind, Stmt, UnOp,
};
use crate::ty::{Scalar, Ty};
use crate::walk;

/// The bytes of locals of the kernel and its device functions together: a bound on the
/// frames one simulated thread's calls hold at once (there is no recursion), from which the
/// simulator sizes its threads' stacks. Slices and shared arrays count as the views the
/// emitted code holds.
pub fn frame_bytes(program: &Program) -> u64 {
    fn size(ty: &Ty) -> u64 {
        match ty {
            Ty::Scalar(s) => s.bytes() as u64,
            Ty::Array(t, n) => size(t).saturating_mul(*n),
            Ty::Tuple(ts) => ts.iter().map(size).fold(0, u64::saturating_add),
            Ty::Dim3 => 12,
            Ty::Struct(_) => crate::ty::size_align(ty).map_or(8, |(s, _)| s),
            Ty::Slice { .. } | Ty::Shared { .. } => 16,
            _ => 8,
        }
    }
    std::iter::once(&program.kernel)
        .chain(&program.functions)
        .flat_map(|f| &f.locals)
        .map(|l| size(&l.ty))
        .fold(0, u64::saturating_add)
}

/// Whether the kernel's threads wait for each other (barriers, warp operations), so the
/// simulator must run each block's threads concurrently. Every device function the kernel
/// reaches counts: a barrier inside a helper waits just as one in the kernel's body does.
pub fn is_cooperative(program: &Program) -> bool {
    std::iter::once(&program.kernel)
        .chain(&program.functions)
        .any(waits_for_other_threads)
}

/// Whether `f`'s own body has a barrier or a warp operation.
fn waits_for_other_threads(f: &Function) -> bool {
    let mut found = false;
    let mut body = f.body.clone();
    walk::block_mut(&mut body, &mut |e| {
        if let ExprKind::Builtin(b, _) = &e.kind {
            if matches!(
                b,
                Builtin::SyncThreads
                    | Builtin::GridSync
                    | Builtin::SyncThreadsCount
                    | Builtin::SyncThreadsAnd
                    | Builtin::SyncThreadsOr
                    | Builtin::SyncWarp
                    | Builtin::Shfl(_)
                    | Builtin::Ballot
                    | Builtin::AllSync
                    | Builtin::AnySync
                    | Builtin::ActiveMask
                    | Builtin::MatchAny
                    | Builtin::MatchAll
                    | Builtin::Redux(_)
            ) {
                found = true;
            }
        }
    });
    found
}

/// `file: .., line: .., column: ..` of a runtime check at `span` (for the simulator's `Loc` and
/// the GPU's site table alike): the span's own position when the compiler knows it, so that a
/// check in a `#[device]` function (whose tokens reach the kernel through a macro, where
/// `line!()` would give the kernel's line) names its own file and line; otherwise
/// `file!()`, `line!()` and `column!()` at the span.
pub fn site_location(span: Span) -> TokenStream {
    let start = span.start();
    if span.local_file().is_some() && start.line > 0 {
        let file = span.file();
        let line = start.line as u32;
        let column = start.column as u32 + 1;
        quote!(file: #file, line: #line, column: #column)
    } else {
        quote_spanned!(span=> file: ::core::file!(), line: ::core::line!(), column: ::core::column!())
    }
}

/// The one door of emitted code into the runtime: every path the simulator's code names
/// starts at `::cuprum::__private` (the macros build theirs the same way).
fn private() -> TokenStream {
    quote!(::cuprum::__private)
}

/// The simulator's runtime, `::cuprum::__private::sim`.
fn rt() -> TokenStream {
    let private = private();
    quote!(#private::sim)
}

/// Emits the simulator body of `program`'s kernel as a function named `name`.
pub fn emit_body(program: &Program, name: &Ident) -> TokenStream {
    let rt = rt();
    let mut e = Emitter {
        f: &program.kernel,
        program,
        locs: Vec::new(),
    };
    let devices: Vec<TokenStream> = program
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            e.f = f;
            let params = e.params();
            let body = e.function_body();
            let ret = sim_type(&f.ret);
            let fname = device_fn_name(i);
            quote! {
                fn #fname(__t: &#rt::Thread, #(#params),*) -> ::core::result::Result<#ret, #rt::Stop> {
                    ::core::result::Result::Ok(#body)
                }
            }
        })
        .collect();
    e.f = &program.kernel;
    let mut params = e.params();
    // The launch's versioning flag (`Program::host_test`), after the parameters as on a GPU.
    if program.host_test.is_some() {
        params.push(quote!(__cuprum_host_test: bool));
    }
    let body = e.function_body();
    let locs = &e.locs;
    let count = locs.len();
    quote! {
        #[allow(unused, unused_mut, unused_parens, unused_braces, unused_labels, unreachable_code, non_snake_case, clippy::all)]
        fn #name(__t: &#rt::Thread, #(#params),*) -> ::core::result::Result<(), #rt::Stop> {
            static __CUPRUM_LOCS: [#rt::Loc; #count] = [#(#locs),*];
            #(#devices)*
            #body;
            ::core::result::Result::Ok(())
        }
    }
}

struct Emitter<'a> {
    f: &'a Function,
    program: &'a Program,
    locs: Vec<TokenStream>,
}

/// The local a `SliceRef` argument names (usize::MAX for other arguments).
fn slice_local(e: &Expr) -> usize {
    match e.kind {
        ExprKind::SliceRef(l) => l,
        _ => usize::MAX,
    }
}

fn device_fn_name(id: usize) -> Ident {
    format_ident!("__cuprum_dev{}", id)
}

fn local_name(id: usize) -> Ident {
    format_ident!("__cuprum_l{}", id)
}

fn loop_label(id: usize) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'__cuprum_loop{id}"), Span::call_site())
}

fn scalar_ident(s: Scalar) -> Ident {
    Ident::new(s.name(), Span::call_site())
}

/// Field `k` of a struct as a member token: its name, or its index in a tuple struct (a
/// struct literal `P { 0: a, 1: b }` is valid Rust for tuple structs too).
fn struct_member(d: &crate::ty::StructDef, k: u32) -> syn::Member {
    if d.tuple {
        syn::Member::Unnamed(syn::Index::from(k as usize))
    } else {
        syn::Member::Named(Ident::new(&d.fields[k as usize].0, Span::call_site()))
    }
}

/// The Rust type of a value of `ty` in the simulator.
fn sim_type(ty: &Ty) -> TokenStream {
    let (private, rt) = (private(), rt());
    match ty {
        Ty::Unit | Ty::Never => quote!(()),
        Ty::Scalar(s) => {
            let i = scalar_ident(*s);
            quote!(#i)
        }
        Ty::Array(t, n) => {
            let t = sim_type(t);
            let n = *n as usize;
            quote!([#t; #n])
        }
        Ty::Tuple(ts) => {
            let ts = ts.iter().map(sim_type);
            quote!((#(#ts,)*))
        }
        Ty::Slice { elem, mutable } => {
            let e = sim_type(elem);
            if *mutable {
                quote!(#rt::SimSliceMut<#e>)
            } else {
                quote!(#rt::SimSlice<#e>)
            }
        }
        Ty::Shared { elem, .. } => {
            let e = sim_type(elem);
            quote!(#rt::SharedArray<#e>)
        }
        Ty::Dim3 => quote!(#private::Dim3),
        // The user's own struct or enum: the simulator runs in the module that defines it.
        Ty::Enum(d) => {
            let name = Ident::new(&d.name, Span::call_site());
            quote!(#name)
        }
        Ty::Struct(d) => {
            let name = Ident::new(&d.name, Span::call_site());
            quote!(#name)
        }
        Ty::Var(_) | Ty::Error => unreachable!("unresolved type reached the simulator emitter"),
    }
}

/// A literal of scalar type `s` with value `v`.
fn int_literal(s: Scalar, v: i128) -> TokenStream {
    let ident = scalar_ident(s);
    if let Some((lo, _)) = s.int_range() {
        if v == lo && s.is_signed() {
            return quote!(#ident::MIN);
        }
    }
    let lit = match s {
        Scalar::I8 => Literal::i8_suffixed(v.unsigned_abs() as i8),
        Scalar::I16 => Literal::i16_suffixed(v.unsigned_abs() as i16),
        Scalar::I32 => Literal::i32_suffixed(v.unsigned_abs() as i32),
        Scalar::I64 => Literal::i64_suffixed(v.unsigned_abs() as i64),
        Scalar::Isize => Literal::isize_suffixed(v.unsigned_abs() as isize),
        Scalar::U8 => Literal::u8_suffixed(v as u8),
        Scalar::U16 => Literal::u16_suffixed(v as u16),
        Scalar::U32 => Literal::u32_suffixed(v as u32),
        Scalar::U64 => Literal::u64_suffixed(v as u64),
        Scalar::Usize => Literal::usize_suffixed(v as usize),
        Scalar::Bool | Scalar::F32 | Scalar::F64 => {
            unreachable!("integer literal of a non-integer type")
        }
    };
    if v < 0 {
        quote!((-#lit))
    } else {
        quote!(#lit)
    }
}

fn float_literal(s: Scalar, v: f64) -> TokenStream {
    let ident = scalar_ident(s);
    // The value in its own type: `1e300` is infinite as an `f32`.
    let v = if s == Scalar::F32 {
        (v as f32) as f64
    } else {
        v
    };
    if v.is_nan() {
        return quote!(#ident::NAN);
    }
    if v.is_infinite() {
        return if v > 0.0 {
            quote!(#ident::INFINITY)
        } else {
            quote!(#ident::NEG_INFINITY)
        };
    }
    let lit = if s == Scalar::F32 {
        Literal::f32_suffixed((v as f32).abs())
    } else {
        Literal::f64_suffixed(v.abs())
    };
    if v.is_sign_negative() {
        quote!((-#lit))
    } else {
        quote!(#lit)
    }
}

impl Emitter<'_> {
    /// The current function's parameters, typed for the simulator.
    fn params(&self) -> Vec<TokenStream> {
        self.f
            .params
            .iter()
            .map(|&p| {
                let n = local_name(p);
                let ty = sim_type(&self.f.locals[p].ty);
                // A parameter the body reassigns is a `mut` binding in the host Rust too.
                let m = self.f.locals[p].mutable.then(|| quote!(mut));
                quote!(#m #n: #ty)
            })
            .collect()
    }

    /// Whether an IR pass elided the check of `site` (see `passes`).
    fn is_elided(&self, site: Option<u32>) -> bool {
        site.is_some_and(|s| self.program.sites[s as usize].elided.is_some())
    }

    /// The `Thread` method that checks an index at `site`: `proved` for an elided check.
    fn index_check(&self, site: Option<u32>) -> Ident {
        let name = if self.is_elided(site) {
            "proved"
        } else {
            "index"
        };
        Ident::new(name, Span::call_site())
    }

    /// A `&'static Loc` for a check at `span`.
    fn loc(&mut self, span: Span) -> TokenStream {
        let rt = rt();
        let k = self.locs.len();
        let at = site_location(span);
        self.locs.push(quote_spanned!(span=> #rt::Loc { #at }));
        quote!(&__CUPRUM_LOCS[#k])
    }

    /// The current function's body, after its tables (`Function::constants`, as `static`s:
    /// made once, not per thread).
    fn function_body(&mut self) -> TokenStream {
        let f = self.f;
        let tables: Vec<TokenStream> = f
            .constants
            .iter()
            .map(|(id, init)| {
                let n = local_name(*id);
                let ty = sim_type(&init.ty);
                let v = self.expr(init);
                quote!(#[allow(non_upper_case_globals)] static #n: #ty = #v;)
            })
            .collect();
        let body = self.block(&f.body);
        quote!({ #(#tables)* #body })
    }

    fn block(&mut self, b: &Block) -> TokenStream {
        let stmts: Vec<TokenStream> = b.stmts.iter().map(|s| self.stmt(s)).collect();
        let tail = b.tail.as_ref().map(|t| self.expr(t));
        quote!({ #(#stmts)* #tail })
    }

    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Let { pat, init } => {
                let v = self.expr(init);
                if let Pattern::Local(id) = pat {
                    if matches!(self.f.locals[*id].ty, Ty::Shared { .. }) {
                        let n = local_name(*id);
                        return quote!(let #n = #v;);
                    }
                }
                let p = self.pattern(pat);
                let ty = sim_type(&init.ty);
                quote!(let #p: #ty = #v;)
            }
            Stmt::Expr(e) => {
                let x = self.expr(e);
                quote!(#x;)
            }
        }
    }

    fn pattern(&self, p: &Pattern) -> TokenStream {
        match p {
            Pattern::Local(id) => {
                let n = local_name(*id);
                quote!(mut #n)
            }
            Pattern::Tuple(ps) => {
                let ps = ps.iter().map(|p| self.pattern(p));
                quote!((#(#ps,)*))
            }
            Pattern::Wild => quote!(_),
        }
    }

    /// How a place is reached: a local path (arrays, tuples, fields) or an element of a
    /// slice or shared array (a view and a checked flat index).
    fn place_access(&mut self, place: &Place, span: Span) -> Access {
        let base = local_name(place.base);
        match &self.f.locals[place.base].ty {
            Ty::Slice { elem, .. } | Ty::Shared { elem, .. } => {
                let elem = (**elem).clone();
                let (index, rest) = self.flat_index(place, span);
                if rest.is_empty() {
                    return Access::Element {
                        view: quote!(#base),
                        index,
                    };
                }
                let loc = self.loc(span);
                let at = quote!(#base.at(__t, #index, #loc)?);
                Access::Place(self.element_place(at, elem, rest, span))
            }
            local_ty => {
                let mut path = quote!(#base);
                let mut ty = local_ty.clone();
                for p in &place.proj {
                    match (p, ty.clone()) {
                        (Proj::Index { index, site }, Ty::Array(elem, n)) => {
                            let i = self.expr(index);
                            let loc = self.loc(span);
                            let n = n as usize;
                            let check = self.index_check(*site);
                            path = quote!(#path[__t.#check(#i, #n, #loc)?]);
                            ty = *elem;
                        }
                        (Proj::Field(k), Ty::Tuple(ts)) => {
                            let k = syn::Index::from(*k as usize);
                            path = quote!(#path.#k);
                            ty = ts[k.index as usize].clone();
                        }
                        (Proj::Field(k), Ty::Dim3) => {
                            let f = Ident::new(["x", "y", "z"][*k as usize], Span::call_site());
                            path = quote!(#path.#f);
                            ty = Ty::U32;
                        }
                        (Proj::Field(k), Ty::Struct(d)) => {
                            let f = struct_member(&d, *k);
                            path = quote!(#path.#f);
                            ty = d.fields[*k as usize].1.clone();
                        }
                        (p, t) => unreachable!("projection {p:?} on {t}"),
                    }
                }
                Access::Local(path)
            }
        }
    }

    /// A place inside an element of a slice or shared array (`ps[i].pos[k]`): the element's
    /// `SimPlace` (`at`, of type `ty`), then a checked index per array and a field per
    /// struct projection.
    fn element_place(
        &mut self,
        at: TokenStream,
        mut ty: Ty,
        proj: &[Proj],
        span: Span,
    ) -> TokenStream {
        let mut path = at;
        for p in proj {
            match (p, ty.clone()) {
                (Proj::Index { index, .. }, Ty::Array(elem, _)) => {
                    let i = self.expr(index);
                    let loc = self.loc(span);
                    path = quote!(#path.index(__t, #i, #loc)?);
                    ty = *elem;
                }
                (Proj::Field(k), Ty::Struct(d)) => {
                    let name = Ident::new(&d.name, Span::call_site());
                    let member = struct_member(&d, *k);
                    let fty = d.fields[*k as usize].1.clone();
                    let ft = sim_type(&fty);
                    // SAFETY (of the emitted call): `#ft` is the type of field `#member` of
                    // `#name`, the place's type, at the offset rustc gives.
                    path = quote!(unsafe { #path.field::<#ft>(::core::mem::offset_of!(#name, #member)) });
                    ty = fty;
                }
                (p, t) => unreachable!("projection {p:?} on an element part {t}"),
            }
        }
        path
    }

    /// The checked flat index of a slice or shared-array element (`s[r][c]` → `r * C + c`,
    /// each index checked against its own dimension).
    fn flat_index<'p>(&mut self, place: &'p Place, span: Span) -> (TokenStream, &'p [Proj]) {
        let dims: Vec<u64> = match &self.f.locals[place.base].ty {
            Ty::Shared { dims, .. } => dims.clone(),
            _ => Vec::new(),
        };
        let base = local_name(place.base);
        if dims.len() <= 1 {
            let Some((Proj::Index { index, site }, rest)) = place.proj.split_first() else {
                unreachable!("element access has an index")
            };
            let i = self.expr(index);
            if self.is_elided(*site) {
                let loc = self.loc(span);
                return (quote!(__t.proved(#i, #base.len(), #loc)?), rest);
            }
            // The view checks the index itself.
            return (i, rest);
        }
        let mut flat = quote!(0usize);
        let mut proj = &place.proj[..];
        for (d, &n) in dims.iter().enumerate() {
            let Some((Proj::Index { index, site }, rest)) = proj.split_first() else {
                unreachable!("one index per dimension")
            };
            proj = rest;
            let i = self.expr(index);
            let loc = self.loc(span);
            let n_us = n as usize;
            let stride: u64 = dims[d + 1..].iter().product();
            let stride = stride as usize;
            let check = self.index_check(*site);
            flat = quote!((#flat + __t.#check(#i, #n_us, #loc)? * #stride));
        }
        let _ = base;
        (flat, proj)
    }

    fn read(&mut self, place: &Place, span: Span) -> TokenStream {
        match self.place_access(place, span) {
            Access::Local(path) => quote!(#path),
            Access::Place(at) => {
                let loc = self.loc(span);
                quote!(#at.load(__t, #loc)?)
            }
            Access::Element { view, index } => {
                let loc = self.loc(span);
                quote!(#view.load(__t, #index, #loc)?)
            }
        }
    }

    fn write(&mut self, place: &Place, value: TokenStream, span: Span) -> TokenStream {
        match self.place_access(place, span) {
            Access::Local(path) => quote!({ let __v = #value; #path = __v; }),
            Access::Place(at) => quote!({ let __v = #value; #at.store(__v); }),
            Access::Element { view, index } => {
                let loc = self.loc(span);
                quote!({ let __v = #value; #view.store(__t, #index, __v, #loc)?; })
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> TokenStream {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(v) => match &e.ty {
                Ty::Scalar(s) => int_literal(*s, *v),
                // The user's own enum: the variant of that discriminant.
                Ty::Enum(d) => {
                    let name = Ident::new(&d.name, Span::call_site());
                    let variant = Ident::new(
                        d.variant_named(*v).expect("a discriminant of the enum"),
                        Span::call_site(),
                    );
                    quote!(#name::#variant)
                }
                _ => unreachable!("integer literal of type {}", e.ty),
            },
            ExprKind::Float(v) => match e.ty {
                Ty::Scalar(s) => float_literal(s, *v),
                _ => unreachable!("float literal of type {}", e.ty),
            },
            ExprKind::Bool(b) => quote!(#b),
            ExprKind::Unit => quote!(()),
            ExprKind::Read(place) => self.read(place, span),
            ExprKind::Len(place) => {
                let n = local_name(place.base);
                quote!(#n.len())
            }
            ExprKind::Assign(place, value) => {
                let v = self.expr(value);
                self.write(place, v, span)
            }
            ExprKind::CompoundAssign(op, place, value) => {
                let Ty::Scalar(s) = place.ty else {
                    unreachable!("compound assignment on a scalar")
                };
                let v = self.expr(value);
                let old = quote!(__old);
                let new = self.binary_tokens(*op, s, &value.ty, old, quote!(__v), None, span);
                match self.place_access(place, span) {
                    Access::Local(path) => {
                        quote!({ let __v = #v; let __p = &mut #path; let __old = *__p; *__p = #new; })
                    }
                    Access::Place(at) => {
                        let loc = self.loc(span);
                        quote!({ let __v = #v; let __p = #at; let __old = __p.load(__t, #loc)?; __p.store(#new); })
                    }
                    Access::Element { view, index } => {
                        let l1 = self.loc(span);
                        let l2 = self.loc(span);
                        quote!({ let __v = #v; let __i = #index; let __old = #view.load(__t, __i, #l1)?; #view.store(__t, __i, #new, #l2)?; })
                    }
                }
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(x);
                match (op, &x.ty) {
                    (UnOp::Neg, Ty::Scalar(s)) if s.is_int() => quote!((#v).wrapping_neg()),
                    (UnOp::Neg, _) => quote!((-(#v))),
                    (UnOp::Not, _) => quote!((!(#v))),
                }
            }
            ExprKind::Binary(op, l, r, site) => {
                let Ty::Scalar(s) = l.ty else {
                    unreachable!("binary operands are scalars")
                };
                let lv = self.expr(l);
                let rv = self.expr(r);
                self.binary_tokens(*op, s, &r.ty, lv, rv, *site, span)
            }
            ExprKind::And(l, r) => {
                let (l, r) = (self.expr(l), self.expr(r));
                quote!((#l && #r))
            }
            ExprKind::Or(l, r) => {
                let (l, r) = (self.expr(l), self.expr(r));
                quote!((#l || #r))
            }
            ExprKind::Cast(x) => {
                let v = self.expr(x);
                let t = sim_type(&e.ty);
                quote!(((#v) as #t))
            }
            ExprKind::Tuple(xs) => {
                let xs: Vec<TokenStream> = xs.iter().map(|x| self.expr(x)).collect();
                match &e.ty {
                    Ty::Struct(d) => {
                        let name = Ident::new(&d.name, Span::call_site());
                        let members = (0..xs.len() as u32).map(|k| struct_member(d, k));
                        quote!(#name { #(#members: #xs),* })
                    }
                    _ => quote!((#(#xs,)*)),
                }
            }
            ExprKind::Array(xs) => {
                let xs: Vec<TokenStream> = xs.iter().map(|x| self.expr(x)).collect();
                quote!([#(#xs),*])
            }
            ExprKind::Repeat(x, n) => {
                let v = self.expr(x);
                let n = *n as usize;
                quote!([#v; #n])
            }
            ExprKind::Field(x, k) => {
                let v = self.expr(x);
                match &x.ty {
                    Ty::Dim3 => {
                        let f = Ident::new(["x", "y", "z"][*k as usize], Span::call_site());
                        quote!((#v).#f)
                    }
                    Ty::Struct(d) => {
                        let f = struct_member(d, *k);
                        quote!((#v).#f)
                    }
                    _ => {
                        let k = syn::Index::from(*k as usize);
                        quote!((#v).#k)
                    }
                }
            }
            ExprKind::Builtin(b, args) => self.builtin(*b, args, &e.ty, span),
            ExprKind::Atomic(op, _, place, args) => self.atomic(*op, place, args, span),
            ExprKind::Call(fid, args) => {
                let f = &self.program.functions[*fid];
                let vals: Vec<TokenStream> = args
                    .iter()
                    .zip(&f.params)
                    .map(|(a, &p)| {
                        match (
                            &a.kind,
                            &f.locals[p].ty,
                            &self.f.locals.get(slice_local(a)).map(|l| &l.ty),
                        ) {
                            (
                                ExprKind::SliceRef(l),
                                Ty::Slice { mutable: false, .. },
                                Some(Ty::Slice { mutable: true, .. }),
                            ) => {
                                let n = local_name(*l);
                                quote!(#n.as_slice())
                            }
                            (ExprKind::SliceRef(l), ..) => {
                                let n = local_name(*l);
                                quote!(#n)
                            }
                            _ => self.expr(a),
                        }
                    })
                    .collect();
                let name = device_fn_name(*fid);
                quote!(#name(__t, #(#vals),*)?)
            }
            ExprKind::SliceRef(l) => {
                let n = local_name(*l);
                quote!(#n)
            }
            ExprKind::If(c, then, els) => {
                let c = self.expr(c);
                let t = self.block(then);
                match els {
                    Some(els) => {
                        let el = self.block(els);
                        quote!(if #c #t else #el)
                    }
                    None => quote!(if #c #t),
                }
            }
            ExprKind::Loop(id, body) => {
                let l = loop_label(*id);
                let b = self.block(body);
                quote!(#l: loop #b)
            }
            ExprKind::While(id, c, body) => {
                let l = loop_label(*id);
                let c = self.expr(c);
                let b = self.block(body);
                quote!(#l: while #c #b)
            }
            ExprKind::For {
                id,
                var,
                start,
                end,
                inclusive,
                step,
                body,
            } => {
                let l = loop_label(*id);
                let v = local_name(*var);
                let (s, en) = (self.expr(start), self.expr(end));
                let range = if *inclusive {
                    quote!((#s..=#en))
                } else {
                    quote!((#s..#en))
                };
                let iter = match step {
                    Some((st, _)) => {
                        let st = self.expr(st);
                        let loc = self.loc(st_span(step));
                        quote!(#range.step_by(__t.step(#st, #loc)?))
                    }
                    None => range,
                };
                let b = self.block(body);
                quote!(#l: for #v in #iter #b)
            }
            ExprKind::Break(id, v) => {
                let l = loop_label(*id);
                // The value in parentheses: `break 'l ::core::..` would read `'l:` as a label
                // to syn and other token-level tools.
                let v = v.as_ref().map(|v| {
                    let v = self.expr(v);
                    quote!((#v))
                });
                quote!(break #l #v)
            }
            ExprKind::Continue(id) => {
                let l = loop_label(*id);
                quote!(continue #l)
            }
            ExprKind::Return(v) => match v {
                Some(v) => {
                    let v = self.expr(v);
                    quote!(return ::core::result::Result::Ok(#v))
                }
                None => quote!(return ::core::result::Result::Ok(())),
            },
            ExprKind::Block(b) => self.block(b),
            ExprKind::Panic(p) => self.panic_call(p, e.span),
            ExprKind::Print(p) => self.print_call(p),
            ExprKind::IndexCheck { index, len, site } => {
                let (i, n) = (self.expr(index), self.expr(len));
                match site {
                    // The site's span: a check that `passes::checks_first` made stands
                    // elsewhere than the access it checks.
                    Some(site) => {
                        let loc = self.loc(self.program.sites[*site as usize].span);
                        let check = self.index_check(Some(*site));
                        quote!(__t.#check(#i, #n, #loc)?)
                    }
                    None => quote!(#i),
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary_tokens(
        &mut self,
        op: BinOp,
        s: Scalar,
        r_ty: &Ty,
        l: TokenStream,
        r: TokenStream,
        site: Option<u32>,
        span: Span,
    ) -> TokenStream {
        let _ = site;
        let rt = rt();
        if s.is_int() {
            let rs = match r_ty {
                Ty::Scalar(rs) => *rs,
                _ => s,
            };
            return match op {
                BinOp::Add => quote!((#l).wrapping_add(#r)),
                BinOp::Sub => quote!((#l).wrapping_sub(#r)),
                BinOp::Mul => quote!((#l).wrapping_mul(#r)),
                BinOp::Div => {
                    let loc = self.loc(span);
                    quote!(#rt::div(__t, #l, #r, #loc)?)
                }
                BinOp::Rem => {
                    let loc = self.loc(span);
                    quote!(#rt::rem(__t, #l, #r, #loc)?)
                }
                BinOp::Shl | BinOp::Shr => {
                    // The amount is converted to the left operand's type first (as the GPU
                    // does), then masked to its width by wrapping_shl/shr.
                    let lt = scalar_ident(s);
                    let amount = if rs == s {
                        quote!((#r))
                    } else {
                        quote!(((#r) as #lt))
                    };
                    if op == BinOp::Shl {
                        quote!((#l).wrapping_shl(#amount as u32))
                    } else {
                        quote!((#l).wrapping_shr(#amount as u32))
                    }
                }
                _ => plain_binary(op, l, r),
            };
        }
        plain_binary(op, l, r)
    }

    fn builtin(&mut self, b: Builtin, args: &[Expr], ty: &Ty, span: Span) -> TokenStream {
        let vals: Vec<TokenStream> = args.iter().map(|a| self.expr(a)).collect();
        let rt = rt();
        match b {
            Builtin::ThreadIdx => quote!(__t.thread_idx()),
            Builtin::BlockIdx => quote!(__t.block_idx()),
            Builtin::BlockDim => quote!(__t.block_dim()),
            Builtin::GridDim => quote!(__t.grid_dim()),
            Builtin::GlobalId(a) => quote!(__t.global_id(#a)),
            Builtin::GridStride(a) => quote!(__t.grid_stride(#a)),
            Builtin::LaneId => quote!(__t.lane_id()),
            Builtin::WarpId => quote!(__t.warp_id()),
            Builtin::SyncThreads => {
                let loc = self.loc(span);
                quote!(__t.sync_threads(#loc)?)
            }
            Builtin::GridSync => {
                let loc = self.loc(span);
                quote!(__t.grid_sync(#loc)?)
            }
            Builtin::SyncThreadsCount | Builtin::SyncThreadsAnd | Builtin::SyncThreadsOr => {
                let loc = self.loc(span);
                let p = &vals[0];
                let m = match b {
                    Builtin::SyncThreadsCount => quote!(sync_threads_count),
                    Builtin::SyncThreadsAnd => quote!(sync_threads_and),
                    _ => quote!(sync_threads_or),
                };
                quote!(__t.#m(#p, #loc)?)
            }
            Builtin::SyncWarp => {
                let loc = self.loc(span);
                let mask = &vals[0];
                quote!({ __t.warp(#rt::WarpOpKind::Sync, #mask, 0, #loc)?; })
            }
            Builtin::Fence(_) => quote!(::core::sync::atomic::fence(
                ::core::sync::atomic::Ordering::SeqCst
            )),
            Builtin::Shared(k) => {
                let alloc = &self.program.shared[k];
                let elem = sim_type(&alloc.elem);
                // SAFETY (of the emitted calls): `index` is the array's declaration and `len`
                // its element count; the array lives in the kernel body, which ends with the
                // block.
                if alloc.dims.is_empty() {
                    quote!(unsafe { __t.dynamic_shared::<#elem>() })
                } else {
                    let index = static_shared_index(self.program, k);
                    let len = alloc.dims.iter().product::<u64>() as usize;
                    quote!(unsafe { __t.shared::<#elem>(#index, #len) })
                }
            }
            Builtin::Shfl(kind) => {
                let loc = self.loc(span);
                let (mask, v, lane) = (&vals[0], &vals[1], &vals[2]);
                let k = match kind {
                    ShflKind::Idx => quote!(ShflIdx),
                    ShflKind::Up => quote!(ShflUp),
                    ShflKind::Down => quote!(ShflDown),
                    ShflKind::Xor => quote!(ShflXor),
                };
                quote!(#rt::warp_value(__t, #rt::WarpOpKind::#k(#lane), #mask, #v, #loc)?)
            }
            Builtin::Ballot | Builtin::AllSync | Builtin::AnySync | Builtin::MatchAny => {
                let loc = self.loc(span);
                let (mask, v) = (&vals[0], &vals[1]);
                let k = match b {
                    Builtin::Ballot => quote!(Ballot),
                    Builtin::AllSync => quote!(All),
                    Builtin::AnySync => quote!(Any),
                    _ => quote!(MatchAny),
                };
                let m = quote!(#rt::warp_mask(__t, #rt::WarpOpKind::#k, #mask, #v, #loc)?);
                if matches!(b, Builtin::AllSync | Builtin::AnySync) {
                    quote!((#m != 0))
                } else {
                    m
                }
            }
            Builtin::ActiveMask => {
                let loc = self.loc(span);
                quote!(#rt::warp_mask(__t, #rt::WarpOpKind::ActiveMask, 0, 0u32, #loc)?)
            }
            Builtin::Clock64 => quote!(#rt::clock64()),
            Builtin::Clock => quote!((#rt::clock64() as u32)),
            Builtin::HostTest => quote!(__cuprum_host_test),
            Builtin::Narrow => {
                let loc = self.loc(span);
                let (v, len) = (&vals[0], &vals[1]);
                quote!(__t.narrowed(#v, #len, #loc)?)
            }
            Builtin::Fits32 => {
                let loc = self.loc(span);
                let v = &vals[0];
                let signed = args[0].ty.as_scalar().is_some_and(|s| s.is_signed());
                quote!({ let __v = #v; __t.fits32(__v as i128, #signed, #loc)?; __v })
            }
            Builtin::LaneMask(m) => {
                // As u64, so that lane 31's `le` does not overflow.
                let mask = match m {
                    crate::ir::LaneMask::Lt => quote!((1u64 << __l) - 1),
                    crate::ir::LaneMask::Le => quote!((2u64 << __l) - 1),
                    crate::ir::LaneMask::Gt => quote!(!((2u64 << __l) - 1)),
                    crate::ir::LaneMask::Ge => quote!(!((1u64 << __l) - 1)),
                };
                quote!({ let __l = __t.lane_id(); (#mask) as u32 })
            }
            Builtin::MatchAll => {
                // Every lane of the mask matches this one's value exactly when the lanes that
                // do (match_any) are the whole mask.
                let loc = self.loc(span);
                let (mask, v) = (&vals[0], &vals[1]);
                quote!({
                    let __mask: u32 = #mask;
                    let __same = #rt::warp_mask(__t, #rt::WarpOpKind::MatchAny, __mask, #v, #loc)?;
                    if __same == __mask { (__mask, true) } else { (0u32, false) }
                })
            }
            Builtin::Redux(op) => {
                let loc = self.loc(span);
                let (mask, v) = (&vals[0], &vals[1]);
                let signed = args[1].ty == Ty::Scalar(Scalar::I32);
                let k = match (op, signed) {
                    (crate::ir::ReduxOp::Add, _) => quote!(Add),
                    (crate::ir::ReduxOp::Min, true) => quote!(MinI32),
                    (crate::ir::ReduxOp::Max, true) => quote!(MaxI32),
                    (crate::ir::ReduxOp::Min, false) => quote!(MinU32),
                    (crate::ir::ReduxOp::Max, false) => quote!(MaxU32),
                };
                quote!(#rt::warp_value(__t, #rt::WarpOpKind::Redux(#rt::ReduxOp::#k), #mask, #v, #loc)?)
            }
            Builtin::Fast(f) => {
                let x = &vals[0];
                match f {
                    crate::ir::FastFn::Exp => quote!(f32::exp(#x)),
                    crate::ir::FastFn::Ln => quote!(f32::ln(#x)),
                    crate::ir::FastFn::Sin => quote!(f32::sin(#x)),
                    crate::ir::FastFn::Cos => quote!(f32::cos(#x)),
                    crate::ir::FastFn::Div => {
                        let y = &vals[1];
                        quote!((#x / #y))
                    }
                }
            }
            Builtin::Math(f) => self.math(f, &args[0].ty, ty, &vals),
        }
    }

    fn math(&mut self, f: MathFn, recv_ty: &Ty, ty: &Ty, vals: &[TokenStream]) -> TokenStream {
        let Ty::Scalar(s) = recv_ty else {
            unreachable!("math on scalars")
        };
        let s = *s;
        let t = scalar_ident(s);
        let x = &vals[0];
        let rest = &vals[1..];
        let unsigned = |s: Scalar| {
            scalar_ident(match s {
                Scalar::I8 => Scalar::U8,
                Scalar::I16 => Scalar::U16,
                Scalar::I32 => Scalar::U32,
                Scalar::I64 => Scalar::U64,
                Scalar::Isize => Scalar::Usize,
                other => other,
            })
        };
        let _ = unsigned;
        match f {
            MathFn::Min if s.is_int() => quote!(::core::cmp::Ord::min(#x, #(#rest),*)),
            MathFn::Max if s.is_int() => quote!(::core::cmp::Ord::max(#x, #(#rest),*)),
            MathFn::Abs if s.is_int() => quote!(#t::wrapping_abs(#x)),
            MathFn::Pow => quote!(#t::wrapping_pow(#x, #(#rest),*)),
            MathFn::Rsqrt => quote!((1.0 as #t / #t::sqrt(#x))),
            MathFn::FromBits => {
                let out = sim_type(ty);
                quote!(#out::from_bits(#x))
            }
            MathFn::Clamp => {
                let (lo, hi) = (&vals[1], &vals[2]);
                quote!({ let (__x, __lo, __hi) = (#x, #lo, #hi); if __x < __lo { __lo } else if __x > __hi { __hi } else { __x } })
            }
            _ => {
                let m = Ident::new(f.name(), Span::call_site());
                quote!(#t::#m(#x #(, #rest)*))
            }
        }
    }

    /// `gpu::atomic_OP(&mut place, args)`: an atomic update of the element, returning the old
    /// value.
    fn atomic(&mut self, op: AtomicOp, place: &Place, args: &[Expr], span: Span) -> TokenStream {
        let loc = self.loc(span);
        let element = match self.place_access(place, span) {
            Access::Element { view, index } => quote!(#view.element_ptr(__t, #index, #loc)?),
            Access::Place(at) => quote!(#at.atomic()),
            Access::Local(_) => unreachable!("atomics act on device memory"),
        };
        let vals: Vec<TokenStream> = args.iter().map(|a| self.expr(a)).collect();
        let Ty::Scalar(s) = place.ty else {
            unreachable!("atomics on scalars")
        };
        let t = scalar_ident(s);
        let u = scalar_ident(match s {
            Scalar::I32 => Scalar::U32,
            Scalar::I64 => Scalar::U64,
            Scalar::Isize => Scalar::Usize,
            other => other,
        });
        if op == AtomicOp::Load {
            return quote!({
                let __p = #element;
                __p.update(move |__o: #t| __o)
            });
        }
        let v = vals.first().cloned().unwrap_or_default();
        let update = match (op, s.is_float()) {
            (AtomicOp::Add, true) => quote!(__o + __v),
            (AtomicOp::Sub, true) => quote!(__o - __v),
            (AtomicOp::Min, true) => quote!(#t::min(__o, __v)),
            (AtomicOp::Max, true) => quote!(#t::max(__o, __v)),
            (AtomicOp::Add, false) => quote!(__o.wrapping_add(__v)),
            (AtomicOp::Sub, false) => quote!(__o.wrapping_sub(__v)),
            (AtomicOp::Min, false) => quote!(::core::cmp::Ord::min(__o, __v)),
            (AtomicOp::Max, false) => quote!(::core::cmp::Ord::max(__o, __v)),
            (AtomicOp::Exch, _) => quote!(__v),
            (AtomicOp::And, _) => quote!(__o & __v),
            (AtomicOp::Or, _) => quote!(__o | __v),
            (AtomicOp::Xor, _) => quote!(__o ^ __v),
            (AtomicOp::Inc, _) => {
                quote!(if (__o as #u) >= (__v as #u) { 0 } else { __o.wrapping_add(1) })
            }
            (AtomicOp::Dec, _) => {
                quote!(if __o == 0 || (__o as #u) > (__v as #u) { __v } else { __o.wrapping_sub(1) })
            }
            (AtomicOp::Load, _) => unreachable!("loads return above"),
            (AtomicOp::Cas, _) => {
                let new = &vals[1];
                return quote!({
                    let __p = #element;
                    let (__v, __n): (#t, #t) = (#v, #new);
                    __p.update(move |__o: #t| if __o == __v { __n } else { __o })
                });
            }
        };
        quote!({
            let __p = #element;
            let __v: #t = #v;
            __p.update(move |__o: #t| #update)
        })
    }
}

/// The position of shared allocation `k` among the kernel's static (sized) allocations.
pub fn static_shared_index(program: &Program, k: usize) -> usize {
    program.shared[..k]
        .iter()
        .filter(|a| !a.dims.is_empty())
        .count()
}

/// The byte sizes of the kernel's static shared allocations, in order (for the simulator's
/// layout).
pub fn static_shared_bytes(program: &Program) -> Vec<u64> {
    program
        .shared
        .iter()
        .filter(|a| !a.dims.is_empty())
        .map(|a| {
            a.dims.iter().product::<u64>() * crate::ty::size_align(&a.elem).map_or(0, |(s, _)| s)
        })
        .collect()
}

fn st_span(step: &Option<(Box<Expr>, Option<u32>)>) -> Span {
    step.as_ref()
        .map(|(s, _)| s.span)
        .unwrap_or_else(Span::call_site)
}

fn plain_binary(op: BinOp, l: TokenStream, r: TokenStream) -> TokenStream {
    let o: TokenStream = op.symbol().parse().expect("an operator");
    quote!((#l #o #r))
}

enum Access {
    /// A Rust place expression (`__cuprum_l3[i].0`).
    Local(TokenStream),
    /// An element of a simulator view, with its index.
    Element {
        view: TokenStream,
        index: TokenStream,
    },
    /// A place inside an element (a `SimPlace` expression).
    Place(TokenStream),
}
