//! The compiler's one entry point for the macro crate: a kernel's source, its options and the
//! facts of the toolchain in ([`build`]), one typed [`Artifact`] out with everything an
//! expansion prints: the PTX and cubins of each build, the entry, the runtime-check sites, the
//! simulator's body and facts, and what rustc must confirm (struct layouts, module items).

use std::path::PathBuf;
use std::sync::OnceLock;

use proc_macro2::{Span, TokenStream};
use quote::format_ident;

use crate::ir::{ExprKind, Program};
use crate::ty::{struct_layout, StructDef, Ty};
use crate::{compile_with, sass, CompiledKernel, KernelOptions, KernelSource, Target};

/// The facts of the toolchain that builds: what a compilation needs beyond the kernel.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The target of a kernel that names none (`#[kernel(target = "sm_90")]` does).
    pub target: Target,
    /// NVIDIA's libdevice, when it was found: a kernel whose math needs it is an error
    /// without it.
    pub libdevice: Option<PathBuf>,
    /// The architectures to assemble SASS for ahead of time, as `CUPRUM_SASS` names them
    /// (`sm_80,sm_90`; empty for none).
    pub sass: String,
    /// `ptxas`, which assembles them.
    pub ptxas: Option<PathBuf>,
}

impl Toolchain {
    /// This process's toolchain: the default target, libdevice where the search finds it
    /// (searched once per process), no ahead-of-time SASS.
    pub fn search() -> Toolchain {
        Toolchain {
            target: Target::default_target(),
            libdevice: searched_libdevice(),
            sass: String::new(),
            ptxas: None,
        }
    }

    /// The toolchain a build script recorded (the macro crate's, so that expanding kernels
    /// starts no search): the target's name, libdevice's and ptxas's paths and the SASS
    /// list, each empty when unset or not found. libdevice is searched for again when
    /// `CUPRUM_LIBDEVICE` is set now or the recorded file is gone. A target that does not
    /// parse gives the default target and the error, for the caller to report.
    pub fn from_build(
        target: &str,
        libdevice: &str,
        sass: &str,
        ptxas: &str,
    ) -> (Toolchain, Option<String>) {
        let (target, error) = match target {
            "" => (Target::default_target(), None),
            t => match Target::parse(t) {
                Ok(t) => (t, None),
                Err(e) => (
                    Target::default_target(),
                    Some(format!("CUPRUM_TARGET: {e}")),
                ),
            },
        };
        let recorded = Some(PathBuf::from(libdevice))
            .filter(|p| std::env::var_os("CUPRUM_LIBDEVICE").is_none() && p.is_file());
        let toolchain = Toolchain {
            target,
            libdevice: recorded.or_else(searched_libdevice),
            sass: sass.to_string(),
            ptxas: Some(PathBuf::from(ptxas)).filter(|p| !p.as_os_str().is_empty()),
        };
        (toolchain, error)
    }
}

/// libdevice where the toolkit's search finds it, searched once per process.
fn searched_libdevice() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(crate::toolkit::libdevice).clone()
}

/// A compiled kernel (or instance), as the expansion prints it.
#[derive(Debug)]
pub struct Artifact {
    /// The PTX entry name.
    pub entry: String,
    /// The target the PTX is for.
    pub target: Target,
    /// Whether the kernel takes the hidden panic-record parameter (checked, or asserting).
    pub records_failures: bool,
    /// The build with `debug_assert*!` (the only build of a kernel without them).
    pub build: Build,
    /// For a kernel with `debug_assert*!`: the build without them, which a crate built
    /// without debug assertions loads.
    pub release: Option<Build>,
    /// The runtime checks, indexed by site number.
    pub sites: Vec<Site>,
    /// The simulator's half.
    pub sim: Sim,
    /// The structs of the kernel's module that it uses, as the kernel compiler lays them out.
    pub structs: Vec<StructLayout>,
    /// The module's `const` and `static` items the kernel used, with the values it computed.
    pub items: Vec<ItemUse>,
    /// The enums the kernel uses that its module can name, as the kernel compiler read them.
    pub enums: Vec<crate::ty::EnumDef>,
    /// The versioning test the launch evaluates (`cuprum_abi::versioning`), when the kernel
    /// takes its result as a hidden `u32` parameter after its own (and its simulator body
    /// as a `bool` after its own).
    pub host_test: Option<crate::ir::HostTest>,
}

/// Cubins assembled ahead of time, by compute capability (major × 10 + minor).
pub type Cubins = Vec<(u32, Vec<u8>)>;

/// One build of a kernel.
#[derive(Debug)]
pub struct Build {
    /// The PTX text.
    pub ptx: String,
    /// Cubins assembled ahead of time.
    pub sass: Cubins,
    /// The module of the launch-selected copy alone ([`CompiledKernel::fast_ptx`]), its PTX
    /// and cubins.
    pub fast: Option<(String, Cubins)>,
}

/// A runtime check in the kernel's source.
#[derive(Debug)]
pub struct Site {
    /// The check's kind: the name of its `cuprum_abi::CheckKind` variant.
    pub kind: &'static str,
    /// Where it is.
    pub span: Span,
    /// `file: .., line: .., column: ..`, the fields of its location.
    pub location: TokenStream,
    /// For an assertion with a message: a `fn(&[u64]) -> String` that formats it from the
    /// values the failing thread recorded.
    pub message: Option<TokenStream>,
}

/// The simulator's half of a kernel.
#[derive(Debug)]
pub struct Sim {
    /// The kernel as host Rust: a function named [`SIM_BODY`], taking the thread and the
    /// launch's arguments (as `KernelArg::Sim`).
    pub body: TokenStream,
    /// Whether threads wait for each other (barriers, warp operations).
    pub cooperative: bool,
    /// The bytes of the kernel's locals, for its threads' stacks.
    pub frame_bytes: u64,
    /// The bytes of each static shared array.
    pub shared: Vec<u64>,
}

/// The name of the simulator's body function ([`Sim::body`]).
pub const SIM_BODY: &str = "__cuprum_sim_body";

/// A struct as the kernel compiler lays it out (`repr(C)`, which is also LLVM's layout).
#[derive(Debug)]
pub struct StructLayout {
    /// Its name in the kernel's module.
    pub name: String,
    /// A tuple struct (fields `0`, `1`, ..).
    pub tuple: bool,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// Each field's name and offset, in declaration order.
    pub fields: Vec<(String, u64)>,
}

/// A module item a kernel used.
#[derive(Debug)]
pub struct ItemUse {
    /// Its name.
    pub name: String,
    /// The use's span.
    pub span: Span,
    /// Conditions that the item (named with the use's span) holds that value, one per
    /// scalar of it (a struct's fields, an array's elements, up to [`LEAF_CHECKS`]).
    pub checks: Vec<TokenStream>,
}

/// How many scalars of one constant [`ItemUse::checks`] compares with rustc's value (a bound
/// that keeps rustc's const evaluation short for large tables).
pub const LEAF_CHECKS: usize = 64;

/// Compiles a kernel for `toolchain` (see [`compile_with`](crate::compile_with)) and assembles
/// its cubins.
pub fn build(
    source: &KernelSource,
    options: &KernelOptions,
    toolchain: &Toolchain,
) -> Result<Artifact, syn::Error> {
    let k = compile_with(source, options, toolchain)?;
    let sass_error = |e| syn::Error::new(source.item.sig.ident.span(), format!("CUPRUM_SASS: {e}"));
    let archs = sass::parse_archs(&toolchain.sass).map_err(sass_error)?;
    let assemble = |ptx: &str| -> Result<Vec<(u32, Vec<u8>)>, syn::Error> {
        if archs.is_empty() {
            return Ok(Vec::new());
        }
        let Some(ptxas) = &toolchain.ptxas else {
            return Err(sass_error("ptxas was not found when the macros were built; install it with `pip install nvidia-cuda-nvcc-cu12` (scripts/setup.sh does) or set CUPRUM_PTXAS, then rebuild".into()));
        };
        archs
            .iter()
            .map(|a| Ok((a.cc, sass::assemble(ptx, a, ptxas).map_err(sass_error)?)))
            .collect()
    };
    let fast = |ptx: &Option<String>| -> Result<_, syn::Error> {
        match ptx {
            Some(p) => Ok(Some((p.clone(), assemble(p)?))),
            None => Ok(None),
        }
    };
    let build = Build {
        sass: assemble(&k.ptx)?,
        ptx: k.ptx.clone(),
        fast: fast(&k.fast_ptx)?,
    };
    let release = match &k.release {
        Some(r) => Some(Build {
            sass: assemble(&r.ptx)?,
            ptx: r.ptx.clone(),
            fast: fast(&r.fast_ptx)?,
        }),
        None => None,
    };
    Ok(artifact(k, source, options, build, release))
}

fn artifact(
    k: CompiledKernel,
    source: &KernelSource,
    options: &KernelOptions,
    build: Build,
    release: Option<Build>,
) -> Artifact {
    let p = &k.program;
    let sites = p
        .sites
        .iter()
        .map(|s| Site {
            kind: s.kind.name(),
            span: s.span,
            location: crate::sim::site_location(s.span),
            message: s.message.as_ref().map(|m| crate::sim::panic_formatter(m)),
        })
        .collect();
    let sim = Sim {
        body: crate::sim::emit_body(p, &format_ident!("{}", SIM_BODY)),
        cooperative: crate::sim::is_cooperative(p),
        frame_bytes: crate::sim::frame_bytes(p),
        shared: crate::sim::static_shared_bytes(p),
    };
    Artifact {
        records_failures: p.records_failures(options.checked),
        structs: struct_layouts(p, source),
        enums: enums_used(p, source),
        items: items_used(p),
        host_test: p.host_test.clone(),
        sites,
        sim,
        entry: k.name,
        target: k.target,
        build,
        release,
    }
}

/// The structs of the kernel's module that the kernel uses (a struct that reaches it only
/// through a device function of another module may not be nameable in the module).
fn struct_layouts(p: &Program, source: &KernelSource) -> Vec<StructLayout> {
    fn collect<'t>(ty: &'t Ty, out: &mut Vec<&'t StructDef>) {
        match ty {
            Ty::Array(t, _) => collect(t, out),
            Ty::Slice { elem, .. } | Ty::Shared { elem, .. } => collect(elem, out),
            Ty::Tuple(ts) => ts.iter().for_each(|t| collect(t, out)),
            Ty::Struct(d) if !out.iter().any(|s| s.name == d.name) => {
                out.push(d);
                d.fields.iter().for_each(|(_, t)| collect(t, out));
            }
            _ => {}
        }
    }
    let mut defs = Vec::new();
    for f in std::iter::once(&p.kernel).chain(&p.functions) {
        for l in &f.locals {
            collect(&l.ty, &mut defs);
        }
        collect(&f.ret, &mut defs);
    }
    defs.into_iter()
        .filter(|d| source.consts.nameable(&d.name))
        .filter_map(|d| {
            let layout = struct_layout(d)?;
            Some(StructLayout {
                name: d.name.clone(),
                tuple: d.tuple,
                size: layout.size,
                align: layout.align,
                fields: d
                    .fields
                    .iter()
                    .zip(&layout.offsets)
                    .map(|((f, _), o)| (f.clone(), *o))
                    .collect(),
            })
        })
        .collect()
}

/// The module items the kernel used, each once.
fn items_used(p: &Program) -> Vec<ItemUse> {
    let mut out: Vec<ItemUse> = Vec::new();
    for (name, value) in &p.items_used {
        if out.iter().any(|i| &i.name == name) {
            continue;
        }
        let ident = format_ident!("{}", name, span = value.span);
        let mut checks = Vec::new();
        value_checks(quote::quote!(#ident), value, &mut checks);
        out.push(ItemUse {
            name: name.clone(),
            span: value.span,
            checks,
        });
    }
    out
}

/// Conditions that `place` (an expression naming a part of a constant) holds `value`, one per
/// scalar, at most [`LEAF_CHECKS`] in all.
fn value_checks(place: TokenStream, value: &crate::ir::Expr, out: &mut Vec<TokenStream>) {
    use quote::quote;
    if out.len() >= LEAF_CHECKS {
        return;
    }
    match (&value.kind, &value.ty) {
        (ExprKind::Int(v), Ty::Scalar(s)) => {
            let lit = proc_macro2::Literal::i128_unsuffixed(*v);
            let t = format_ident!("{}", s.name());
            out.push(quote!(#place == (#lit as #t)));
        }
        (ExprKind::Int(v), Ty::Enum(_)) => {
            let lit = proc_macro2::Literal::i128_unsuffixed(*v);
            out.push(quote!((#place as i128) == #lit));
        }
        (ExprKind::Bool(v), _) => out.push(quote!(#place == #v)),
        (ExprKind::Float(v), Ty::Scalar(s)) => {
            let bits = if s.name() == "f32" {
                proc_macro2::Literal::u64_unsuffixed((*v as f32).to_bits() as u64)
            } else {
                proc_macro2::Literal::u64_unsuffixed(v.to_bits())
            };
            out.push(quote!(#place.to_bits() as u64 == #bits));
        }
        (ExprKind::Array(xs), _) => {
            for (k, x) in xs.iter().enumerate() {
                value_checks(quote!(#place[#k]), x, out);
            }
        }
        (ExprKind::Tuple(xs), Ty::Struct(d)) => {
            for (x, (f, _)) in xs.iter().zip(&d.fields) {
                let member: syn::Member = if d.tuple {
                    syn::Member::Unnamed(syn::Index::from(f.parse::<usize>().unwrap_or(0)))
                } else {
                    syn::Member::Named(format_ident!("{}", f))
                };
                value_checks(quote!(#place.#member), x, out);
            }
        }
        (ExprKind::Tuple(xs), _) => {
            for (k, x) in xs.iter().enumerate() {
                let k = syn::Index::from(k);
                value_checks(quote!(#place.#k), x, out);
            }
        }
        _ => {}
    }
}

/// The enums the kernel uses (as values, fields, elements) that its module can name.
fn enums_used(p: &Program, source: &KernelSource) -> Vec<crate::ty::EnumDef> {
    fn collect(ty: &Ty, out: &mut Vec<crate::ty::EnumDef>) {
        match ty {
            Ty::Array(t, _) => collect(t, out),
            Ty::Tuple(ts) => ts.iter().for_each(|t| collect(t, out)),
            Ty::Struct(d) => d.fields.iter().for_each(|(_, t)| collect(t, out)),
            Ty::Enum(d) if !out.iter().any(|e| e.name == d.name) => out.push((**d).clone()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for f in std::iter::once(&p.kernel).chain(&p.functions) {
        for l in &f.locals {
            collect(&l.ty, &mut out);
        }
        collect(&f.ret, &mut out);
    }
    out.retain(|d| source.consts.nameable(&d.name));
    out
}
