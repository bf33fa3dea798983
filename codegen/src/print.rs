//! The IR as text, for tests and for reading what the checker and the IR passes made.
//!
//! Locals print as `name_N` (their id after the name), loops as `'L` + id, check sites as
//! `@sN` after what they guard (`x_1[i_2 @s0]`), an elided site as `@sN:why`. Expressions
//! are fully parenthesised; types are printed where they are introduced (parameters,
//! `let`s, casts, literals).

use std::fmt::Write;

use crate::ir::{
    Block, Builtin, Elision, Expr, ExprKind, Function, HostValue, PanicWhen, Pattern, Place,
    Program, Proj, SiteId, Stmt, UnOp,
};

/// The whole program: the kernel, its device functions, then the site table.
pub fn program(p: &Program) -> String {
    let mut out = String::new();
    let mut pr = Printer { p, out: &mut out };
    pr.function("kernel", &p.kernel);
    for (i, f) in p.functions.iter().enumerate() {
        pr.function(&format!("fn f{i}"), f);
    }
    if let Some(t) = &p.host_test {
        out.push_str("host test:\n");
        let f = &p.kernel;
        let param = |k: usize| {
            let id = f.params[k];
            format!("{}_{id}", f.locals[id].name)
        };
        let value = |i: u32| match t.values[i as usize] {
            HostValue::Len(k) => format!("len({})", param(k)),
            HostValue::Scalar(k) => param(k),
            HostValue::GridDim(a) => format!("grid_dim().{}", ["x", "y", "z"][a as usize]),
            HostValue::BlockDim(a) => format!("block_dim().{}", ["x", "y", "z"][a as usize]),
            HostValue::Const(c) => format!("{c}"),
        };
        for (terms, len) in &t.tests {
            let q: Vec<String> = terms
                .iter()
                .map(|(c, fs)| {
                    let mut parts = vec![c.to_string()];
                    parts.extend(fs.iter().map(|&i| value(i)));
                    parts.join("·")
                })
                .collect();
            let q = if q.is_empty() {
                "0".to_string()
            } else {
                q.join(" + ")
            };
            let _ = writeln!(out, "  {q} <= {}", value(*len));
        }
    }
    if !p.shared.is_empty() {
        out.push_str("shared:\n");
        for (i, s) in p.shared.iter().enumerate() {
            let _ = writeln!(out, "  #{i}: {}{:?}", s.elem, s.dims);
        }
    }
    if !p.sites.is_empty() {
        out.push_str("sites:\n");
        for (i, s) in p.sites.iter().enumerate() {
            let at = s.span.start();
            let _ = write!(
                out,
                "  s{i}: {} at {}:{}",
                s.kind.name(),
                at.line,
                at.column
            );
            if let Some(e) = s.elided {
                let _ = write!(out, " (elided: {})", elision(e));
            }
            out.push('\n');
        }
    }
    out
}

fn elision(e: Elision) -> &'static str {
    match e {
        Elision::Prechecked => "prechecked",
        Elision::InRange => "in range",
        Elision::Versioned => "versioned",
    }
}

struct Printer<'a> {
    p: &'a Program,
    out: &'a mut String,
}

impl Printer<'_> {
    fn function(&mut self, what: &str, f: &Function) {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|&l| format!("{}: {}", local(f, l), f.locals[l].ty))
            .collect();
        let _ = writeln!(
            self.out,
            "{what} {}({}) -> {}",
            f.name,
            params.join(", "),
            f.ret
        );
        for (l, v) in &f.constants {
            let v = self.expr(f, v, 1);
            let _ = writeln!(self.out, "  const {} = {v};", local(f, *l));
        }
        let body = self.block(f, &f.body, 0);
        self.out.push_str(&body);
        self.out.push('\n');
    }

    fn block(&self, f: &Function, b: &Block, depth: usize) -> String {
        let pad = "    ".repeat(depth + 1);
        let mut s = String::from("{\n");
        for st in &b.stmts {
            match st {
                Stmt::Let { pat, init } => {
                    let _ = writeln!(
                        s,
                        "{pad}let {}: {} = {};",
                        pattern(f, pat),
                        init.ty,
                        self.expr(f, init, depth + 1)
                    );
                }
                Stmt::Expr(e) => {
                    let _ = writeln!(s, "{pad}{};", self.expr(f, e, depth + 1));
                }
            }
        }
        if let Some(t) = &b.tail {
            let _ = writeln!(s, "{pad}{}", self.expr(f, t, depth + 1));
        }
        s.push_str(&"    ".repeat(depth));
        s.push('}');
        s
    }

    fn site(&self, site: Option<SiteId>) -> String {
        match site {
            None => String::new(),
            Some(id) => match self.p.sites.get(id as usize).and_then(|s| s.elided) {
                Some(e) => format!(" @s{id}:{}", elision(e)),
                None => format!(" @s{id}"),
            },
        }
    }

    fn place(&self, f: &Function, p: &Place, depth: usize) -> String {
        let mut s = local(f, p.base);
        for j in &p.proj {
            match j {
                Proj::Index { index, site } => {
                    let _ = write!(s, "[{}{}]", self.expr(f, index, depth), self.site(*site));
                }
                Proj::Field(k) => {
                    let _ = write!(s, ".{k}");
                }
            }
        }
        s
    }

    fn list(&self, f: &Function, xs: &[Expr], depth: usize) -> String {
        xs.iter()
            .map(|x| self.expr(f, x, depth))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, f: &Function, e: &Expr, depth: usize) -> String {
        let d = depth;
        match &e.kind {
            ExprKind::Int(v) => format!("{v}{}", e.ty),
            ExprKind::Float(v) => format!("{v:?}{}", e.ty),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Unit => "()".into(),
            ExprKind::Read(p) => self.place(f, p, d),
            ExprKind::Assign(p, v) => format!("{} = {}", self.place(f, p, d), self.expr(f, v, d)),
            ExprKind::CompoundAssign(op, p, v) => format!(
                "{} {}= {}",
                self.place(f, p, d),
                op.symbol(),
                self.expr(f, v, d)
            ),
            ExprKind::Unary(op, x) => {
                let o = if *op == UnOp::Neg { "-" } else { "!" };
                format!("{o}{}", self.expr(f, x, d))
            }
            ExprKind::Binary(op, l, r, site) => format!(
                "({} {}{} {})",
                self.expr(f, l, d),
                op.symbol(),
                self.site(*site),
                self.expr(f, r, d)
            ),
            ExprKind::And(l, r) => format!("({} && {})", self.expr(f, l, d), self.expr(f, r, d)),
            ExprKind::Or(l, r) => format!("({} || {})", self.expr(f, l, d), self.expr(f, r, d)),
            ExprKind::Cast(x) => format!("({} as {})", self.expr(f, x, d), e.ty),
            ExprKind::Tuple(xs) => format!("({})", self.list(f, xs, d)),
            ExprKind::Array(xs) => format!("[{}]", self.list(f, xs, d)),
            ExprKind::Repeat(x, n) => format!("[{}; {n}]", self.expr(f, x, d)),
            ExprKind::Field(x, k) if x.ty == crate::ty::Ty::Dim3 => {
                let axis = ["x", "y", "z"].get(*k as usize).unwrap_or(&"?");
                format!("{}.{axis}", self.expr(f, x, d))
            }
            ExprKind::Field(x, k) => format!("{}.{k}", self.expr(f, x, d)),
            ExprKind::Builtin(b, args) => format!("{}({})", builtin(*b), self.list(f, args, d)),
            ExprKind::Call(id, args) => {
                let name = self.p.functions.get(*id).map_or("?", |g| g.name.as_str());
                format!("f{id}:{name}({})", self.list(f, args, d))
            }
            ExprKind::SliceRef(l) => format!("&{}", local(f, *l)),
            ExprKind::Atomic(op, scope, p, args) => format!(
                "atomic_{}::<{scope:?}>(&{}, {})",
                op.name(),
                self.place(f, p, d),
                self.list(f, args, d)
            ),
            ExprKind::Len(p) => format!("len({})", self.place(f, p, d)),
            ExprKind::If(c, t, els) => {
                let mut s = format!("if {} {}", self.expr(f, c, d), self.block(f, t, d));
                if let Some(els) = els {
                    let _ = write!(s, " else {}", self.block(f, els, d));
                }
                s
            }
            ExprKind::Loop(id, b) => format!("'L{id}: loop {}", self.block(f, b, d)),
            ExprKind::While(id, c, b) => format!(
                "'L{id}: while {} {}",
                self.expr(f, c, d),
                self.block(f, b, d)
            ),
            ExprKind::For {
                id,
                var,
                start,
                end,
                inclusive,
                step,
                body,
            } => {
                let dots = if *inclusive { "..=" } else { ".." };
                let step = match step {
                    Some((s, site)) => {
                        format!(".step_by({}{})", self.expr(f, s, d), self.site(*site))
                    }
                    None => String::new(),
                };
                format!(
                    "'L{id}: for {} in ({}{dots}{}){step} {}",
                    local(f, *var),
                    self.expr(f, start, d),
                    self.expr(f, end, d),
                    self.block(f, body, d)
                )
            }
            ExprKind::Break(id, v) => match v {
                Some(v) => format!("break 'L{id} {}", self.expr(f, v, d)),
                None => format!("break 'L{id}"),
            },
            ExprKind::Continue(id) => format!("continue 'L{id}"),
            ExprKind::Return(v) => match v {
                Some(v) => format!("return {}", self.expr(f, v, d)),
                None => "return".into(),
            },
            ExprKind::Block(b) => self.block(f, b, d),
            ExprKind::Panic(p) => {
                let when = match &p.when {
                    PanicWhen::Always => "always".to_string(),
                    PanicWhen::Not(c) => format!("unless {}", self.expr(f, c, d)),
                    PanicWhen::Compare(op) => format!("unless a0 {} a1", op.symbol()),
                };
                let debug = if p.debug { "debug_" } else { "" };
                format!(
                    "{debug}panic {when} ({}){}",
                    self.list(f, &p.args, d),
                    self.site(Some(p.site))
                )
            }
            ExprKind::Print(p) => format!("print({})", self.list(f, &p.args, d)),
            ExprKind::IndexCheck { index, len, site } => format!(
                "check({} < {}{})",
                self.expr(f, index, d),
                self.expr(f, len, d),
                self.site(*site)
            ),
        }
    }
}

fn local(f: &Function, id: usize) -> String {
    match f.locals.get(id) {
        Some(l) => format!("{}_{id}", l.name),
        None => format!("?_{id}"),
    }
}

fn pattern(f: &Function, p: &Pattern) -> String {
    match p {
        Pattern::Local(id) => local(f, *id),
        Pattern::Tuple(ps) => format!(
            "({})",
            ps.iter()
                .map(|p| pattern(f, p))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Pattern::Wild => "_".into(),
    }
}

fn builtin(b: Builtin) -> String {
    match b {
        Builtin::Math(m) => m.name().to_string(),
        Builtin::Fast(m) => format!("fast::{}", m.name()),
        Builtin::GlobalId(a) => format!("global_id_{}", ["x", "y", "z"][a as usize % 3]),
        Builtin::GridStride(a) => format!("grid_stride_{}", ["x", "y", "z"][a as usize % 3]),
        Builtin::Shared(k) => format!("shared#{k}"),
        other => {
            // `ThreadIdx` → `thread_idx`
            let name = format!("{other:?}");
            let mut s = String::new();
            for (i, c) in name.char_indices() {
                if c.is_uppercase() && i > 0 && !name[..i].ends_with('(') {
                    s.push('_');
                }
                s.extend(c.to_lowercase());
            }
            s
        }
    }
}
