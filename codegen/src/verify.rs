//! The IR verifier: the invariants that the lowering, the simulator and the IR passes rely
//! on, checked on every compilation (it is cheap) and after every pass in tests. It collects
//! every violation, not only the first.
//!
//! - types: no inference variable or error type is left (on expressions and locals); the
//!   operands of a binary operator (but shifts) have one type; an assignment stores a value
//!   of the place's type; each projection of a place applies to what it projects (an index
//!   to a slice, array or shared array, a field to a tuple, struct or `Dim3`);
//! - ids: locals, loops, device functions, shared allocations and check sites are in range;
//!   `break` and `continue` are inside the loop they name;
//! - check sites: each site is used by uses of its kind only (an index by an index, `/` by a
//!   division, ...); a site may be used more than once (the place that an inlined `&mut`
//!   parameter names repeats its caller's check at each use) or not at all (a method's
//!   checks when it is inlined at its calls); an `unchecked` kernel uses no site but its
//!   assertions'; only index checks are elided (see `passes`).

use crate::ir::{
    BinOp, Block, CheckKind, Expr, ExprKind, Function, Pattern, Place, Program, Proj, SiteId, Stmt,
};
use crate::ty::Ty;
use crate::walk;

/// Checks every invariant; the error lists each violation on its own line.
#[cfg(test)]
pub fn verify_program(program: &Program) -> Result<(), String> {
    let problems = problems(program, None);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Every violated invariant of `program`, each once. With `checked: Some(false)` (an
/// `unchecked` kernel) a site other than an assertion's is a violation too.
pub fn problems(program: &Program, checked: Option<bool>) -> Vec<String> {
    let mut v = Verifier {
        program,
        problems: Vec::new(),
        checked,
        f: &program.kernel,
        fname: String::new(),
        loops: Vec::new(),
    };
    for f in std::iter::once(&program.kernel).chain(&program.functions) {
        v.function(f);
    }
    for (site, s) in program.sites.iter().enumerate() {
        if s.elided.is_some() && s.kind != CheckKind::Index {
            v.problems.push(format!(
                "check site s{site} of kind {} is elided (only index checks are)",
                s.kind.name()
            ));
        }
    }
    v.problems
}

struct Verifier<'p> {
    program: &'p Program,
    problems: Vec<String>,
    checked: Option<bool>,
    f: &'p Function,
    fname: String,
    /// The loops around the expression being verified.
    loops: Vec<usize>,
}

impl<'p> Verifier<'p> {
    fn report(&mut self, what: String) {
        let p = format!("in `{}`: {what}", self.fname);
        if !self.problems.contains(&p) {
            self.problems.push(p);
        }
    }

    fn function(&mut self, f: &'p Function) {
        self.f = f;
        self.fname = f.name.clone();
        self.loops.clear();
        for l in &f.locals {
            if matches!(l.ty, Ty::Var(_) | Ty::Error) {
                self.report(format!("local `{}` has no type", l.name));
            }
        }
        for &p in &f.params {
            self.local(p);
        }
        for (l, value) in &f.constants {
            self.local(*l);
            self.expr(value);
        }
        self.block(&f.body);
    }

    fn local(&mut self, id: usize) {
        if id >= self.f.locals.len() {
            self.report(format!(
                "local l{id} out of range ({} locals)",
                self.f.locals.len()
            ));
        }
    }

    fn site(&mut self, site: SiteId, kind: CheckKind) {
        let Some(s) = self.program.sites.get(site as usize) else {
            self.report(format!(
                "check site s{site} out of range ({} sites)",
                self.program.sites.len()
            ));
            return;
        };
        if s.kind != kind {
            self.report(format!(
                "check site s{site} of kind {} used as {}",
                s.kind.name(),
                kind.name()
            ));
        }
        if kind != CheckKind::Panic && self.checked == Some(false) {
            self.report(format!(
                "check site s{site} ({}) in an unchecked kernel",
                kind.name()
            ));
        }
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            match s {
                Stmt::Let { pat, init } => {
                    self.expr(init);
                    self.pattern(pat);
                }
                Stmt::Expr(e) => self.expr(e),
            }
        }
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }

    fn pattern(&mut self, p: &Pattern) {
        match p {
            Pattern::Local(id) => self.local(*id),
            Pattern::Tuple(ps) => ps.iter().for_each(|p| self.pattern(p)),
            Pattern::Wild => {}
        }
    }

    fn place(&mut self, p: &Place) {
        self.local(p.base);
        let Some(local) = self.f.locals.get(p.base) else {
            return;
        };
        let mut ty = local.ty.clone();
        for j in &p.proj {
            let next = match (j, &ty) {
                (Proj::Index { index, site }, _) => {
                    if let Some(site) = site {
                        self.site(*site, CheckKind::Index);
                    }
                    self.expr(index);
                    if index.ty != Ty::USIZE {
                        self.report(format!("index of type {} (usize expected)", index.ty));
                    }
                    match &ty {
                        Ty::Slice { elem, .. } => Some((**elem).clone()),
                        Ty::Array(t, _) => Some((**t).clone()),
                        Ty::Shared { elem, dims } if dims.len() > 1 => Some(Ty::Shared {
                            elem: elem.clone(),
                            dims: dims[1..].to_vec(),
                        }),
                        Ty::Shared { elem, .. } => Some((**elem).clone()),
                        _ => None,
                    }
                }
                (Proj::Field(k), Ty::Tuple(ts)) => ts.get(*k as usize).cloned(),
                (Proj::Field(k), Ty::Struct(d)) => d.fields.get(*k as usize).map(|f| f.1.clone()),
                (Proj::Field(k), Ty::Dim3) if *k < 3 => Some(Ty::U32),
                (Proj::Field(_), _) => None,
            };
            match next {
                Some(t) => ty = t,
                None => {
                    self.report(format!("projection {j:?} on a value of type {ty}"));
                    return;
                }
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        if matches!(e.ty, Ty::Var(_) | Ty::Error) {
            self.report(format!("unresolved type at {:?}", e.kind));
        }
        match &e.kind {
            ExprKind::Read(p) | ExprKind::Len(p) => return self.place(p),
            ExprKind::Assign(p, v) | ExprKind::CompoundAssign(_, p, v) => {
                if matches!(e.kind, ExprKind::Assign(..))
                    && p.ty != v.ty
                    && !matches!(v.ty, Ty::Never)
                {
                    self.report(format!(
                        "assignment of {} to a place of type {}",
                        v.ty, p.ty
                    ));
                }
                self.place(p);
                return self.expr(v);
            }
            ExprKind::Atomic(_, _, p, args) => {
                self.place(p);
                return args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Binary(op, l, r, site) => {
                if !matches!(op, BinOp::Shl | BinOp::Shr) && l.ty != r.ty {
                    self.report(format!(
                        "operands of {} differ: {} and {}",
                        op.symbol(),
                        l.ty,
                        r.ty
                    ));
                }
                if let Some(site) = site {
                    let kind = match op {
                        BinOp::Div => CheckKind::DivZero,
                        BinOp::Rem => CheckKind::RemZero,
                        _ => {
                            self.report(format!("a check site on `{}`", op.symbol()));
                            CheckKind::DivZero
                        }
                    };
                    self.site(*site, kind);
                }
            }
            ExprKind::SliceRef(l) => self.local(*l),
            ExprKind::Call(fid, _) if *fid >= self.program.functions.len() => {
                self.report(format!("device function f{fid} out of range"));
            }
            ExprKind::Builtin(crate::ir::Builtin::Shared(k), _)
                if *k >= self.program.shared.len() =>
            {
                self.report(format!("shared allocation {k} out of range"));
            }
            ExprKind::Builtin(crate::ir::Builtin::HostTest, _)
                if self.program.host_test.is_none()
                    || !std::ptr::eq(self.f, &self.program.kernel) =>
            {
                self.report(
                    "reads the versioning flag, which only a kernel with a host test takes".into(),
                );
            }
            ExprKind::Panic(p) => self.site(p.site, CheckKind::Panic),
            ExprKind::IndexCheck {
                site: Some(site), ..
            } => self.site(*site, CheckKind::Index),
            ExprKind::Break(id, _) | ExprKind::Continue(id) if !self.loops.contains(id) => {
                let what = if matches!(e.kind, ExprKind::Break(..)) {
                    "break"
                } else {
                    "continue"
                };
                self.report(format!("`{what}` of loop {id} outside it"));
            }
            _ => {}
        }
        let loop_id = match &e.kind {
            ExprKind::Loop(id, _) | ExprKind::While(id, _, _) => Some(*id),
            ExprKind::For { id, var, step, .. } => {
                self.local(*var);
                if let Some((_, Some(site))) = step {
                    self.site(*site, CheckKind::StepZero);
                }
                Some(*id)
            }
            _ => None,
        };
        if let Some(id) = loop_id {
            if id >= self.f.loop_count {
                self.report(format!(
                    "loop {id} out of range ({} loops)",
                    self.f.loop_count
                ));
            }
        }
        let (xs, bs) = walk::children(e);
        for x in xs {
            self.expr(x);
        }
        // Only a loop's body is inside it (Rust rejects `break` in a `while` condition).
        if let Some(id) = loop_id {
            self.loops.push(id);
        }
        for b in bs {
            self.block(b);
        }
        if loop_id.is_some() {
            self.loops.pop();
        }
    }
}
