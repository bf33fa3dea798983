//! Loop latches in the form ptxas unrolls (PTX text → PTX text, after LLVM).
//!
//! ptxas unrolls a loop whose last block ends `setp.CC %p, a, b; @%p bra HEADER;` (the
//! back-edge conditional, the exit falling through), and leaves rolled the same loop ending
//! `setp.!CC %p, a, b; @%p bra EXIT; bra.uni HEADER;` or `@!%p bra HEADER;`. Read in SASS
//! (ptxas 12.9, sm_90): convolve_cols' unchecked kernel has its eight-output loop unrolled
//! (73 `LDS`, eight `STG`); rewritten by hand to the second form, one output per turn (17 `LDS`,
//! one `STG`). LLVM's NVPTX backend writes the second form whenever the loop's exit is not
//! the block laid out after it (it does not reverse branch conditions after block placement),
//! as in a versioned kernel, whose fast and checked copies share the function's one `ret`:
//! convolve_cols' fast copy ran its loop rolled, 136 shared loads for eight outputs, and the
//! checked kernel ran at 0.68 of nvcc against 1.02 unchecked (bench/NOTES.md, 2026-12-02).
//!
//! [`rewrite`] turns `setp.CC %p, a, b; @%p bra EXIT; bra.uni HEADER;`, where the jump to
//! `HEADER` is a loop's back-edge and the branch to `EXIT` is not (`HEADER`'s block dominates
//! this one, `EXIT`'s does not; read from the function's control-flow graph), `%p` is read
//! by this branch only and the comparison is on integers, into `setp.!CC %p, a, b; @%p bra HEADER; bra.uni EXIT;` (the `bra.uni` dropped
//! when `EXIT` is the next label). The two forms branch to the same place on every input:
//! the condition is negated and the targets swapped; integer comparisons have exact
//! negations (`lt` ↔ `ge`, `lo` ↔ `hs`, …), floating-point ones (unordered operands) are
//! left alone.

use std::collections::HashMap;

/// The comparison that is true exactly when `cc` is false, on integers.
fn negated(cc: &str) -> Option<&'static str> {
    Some(match cc {
        "eq" => "ne",
        "ne" => "eq",
        "lt" => "ge",
        "ge" => "lt",
        "le" => "gt",
        "gt" => "le",
        "lo" => "hs",
        "hs" => "lo",
        "ls" => "hi",
        "hi" => "ls",
        _ => return None,
    })
}

/// `ptx` with its loops' latches in the form ptxas unrolls (see the module's docs).
pub(crate) fn rewrite(ptx: &str) -> String {
    let mut lines: Vec<Option<String>> = ptx.lines().map(|l| Some(l.to_string())).collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.as_deref().is_some_and(is_function_start))
        .map(|(i, _)| i)
        .collect();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        function(&mut lines[start..end]);
    }
    let mut out = String::with_capacity(ptx.len());
    for l in lines.into_iter().flatten() {
        out.push_str(&l);
        out.push('\n');
    }
    if !ptx.ends_with('\n') {
        out.pop();
    }
    out
}

/// `.entry name(` or `.func name(`, after directives such as `.visible`.
fn is_function_start(l: &str) -> bool {
    l.split_whitespace()
        .take_while(|w| w.starts_with('.'))
        .any(|w| w == ".entry" || w == ".func")
}

/// The label a line defines (`$L__BB1_2:`, maybe followed by a comment).
fn label(l: &str) -> Option<&str> {
    let (name, _) = l.split_once(':')?;
    (name.starts_with("$L__") && !name.contains(char::is_whitespace)).then_some(name)
}

/// `(predicate, target)` of `@%p bra TARGET;`.
fn conditional_branch(l: &str) -> Option<(&str, &str)> {
    let mut w = l.split_whitespace();
    let pred = w.next()?.strip_prefix('@')?;
    if !pred.starts_with("%p") || w.next()? != "bra" {
        return None;
    }
    let target = w.next()?.strip_suffix(';')?;
    w.next().is_none().then_some((pred, target))
}

/// `TARGET` of `bra.uni TARGET;`.
fn branch(l: &str) -> Option<&str> {
    let mut w = l.split_whitespace();
    if w.next()? != "bra.uni" {
        return None;
    }
    let target = w.next()?.strip_suffix(';')?;
    w.next().is_none().then_some(target)
}

/// `setp.CC.TYPE %p, a, b;` with `%p` = `pred` and an integer `TYPE`: the line with `CC`
/// negated.
fn negated_setp(l: &str, pred: &str) -> Option<String> {
    let (indent, rest) = l.split_at(l.len() - l.trim_start().len());
    let (op, operands) = rest.split_once(char::is_whitespace)?;
    let mut parts = op.split('.');
    let (setp, cc, ty) = (parts.next()?, parts.next()?, parts.next()?);
    let integer = ty.len() > 1
        && matches!(&ty[..1], "b" | "s" | "u")
        && ty[1..].chars().all(|c| c.is_ascii_digit());
    if setp != "setp" || parts.next().is_some() || !integer {
        return None;
    }
    let first = operands.trim_start().split(',').next()?.trim();
    if first != pred {
        return None;
    }
    Some(format!(
        "{indent}setp.{}.{ty}{}",
        negated(cc)?,
        &rest[op.len()..]
    ))
}

/// How many times register `reg` appears in `l` (as a whole name: `%p1` is not in `%p10`).
fn uses(l: &str, reg: &str) -> usize {
    l.match_indices(reg)
        .filter(|(i, _)| {
            !l[i + reg.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .count()
}

fn is_loc(l: &Option<String>) -> bool {
    l.as_deref()
        .is_some_and(|l| l.trim_start().starts_with(".loc"))
}

/// The next line at or after `i` that is not a `.loc` (or removed).
fn next_code(f: &[Option<String>], mut i: usize) -> Option<usize> {
    while i < f.len() && (f[i].is_none() || is_loc(&f[i])) {
        i += 1;
    }
    (i < f.len()).then_some(i)
}

/// The line before `i` that is not a `.loc` (or removed).
fn previous_code(f: &[Option<String>], i: usize) -> Option<usize> {
    (0..i).rev().find(|&k| f[k].is_some() && !is_loc(&f[k]))
}

/// The blocks of a function's body: the line each starts at, its successors (indices).
struct Cfg {
    /// The block each line belongs to (`None` outside the body).
    block_of: Vec<Option<usize>>,
    succs: Vec<Vec<usize>>,
}

/// The control-flow graph of the function whose lines are `f`, or `None` when it has a
/// branch this pass does not read (an indirect `brx.idx`, a label it cannot find).
fn cfg(f: &[Option<String>]) -> Option<Cfg> {
    let body = f.iter().position(|l| l.as_deref() == Some("{"))? + 1;
    let mut block_of = vec![None; f.len()];
    let mut labels = HashMap::new();
    let mut targets: Vec<Vec<String>> = vec![Vec::new()];
    let mut falls: Vec<bool> = vec![true];
    let mut current = 0;
    let mut open = true;
    for (i, l) in f.iter().enumerate().skip(body) {
        let Some(l) = l.as_deref() else { continue };
        if l == "}" {
            break;
        }
        if let Some(name) = label(l) {
            if !(current == 0 && i == body) {
                falls[current] = open;
                current = targets.len();
                targets.push(Vec::new());
                falls.push(true);
            }
            labels.insert(name.to_string(), current);
            open = true;
        }
        block_of[i] = Some(current);
        let code = l.trim_start();
        if code.starts_with("brx") {
            return None;
        }
        if let Some((_, t)) = conditional_branch(l) {
            targets[current].push(t.to_string());
        } else if let Some(t) = branch(l) {
            targets[current].push(t.to_string());
            open = false;
        } else if matches!(code, "ret;" | "exit;" | "trap;") {
            open = false;
        }
    }
    falls[current] = false;
    let n = targets.len();
    let mut succs = Vec::with_capacity(n);
    for (b, ts) in targets.iter().enumerate() {
        let mut out = Vec::new();
        for t in ts {
            out.push(*labels.get(t)?);
        }
        if falls[b] && b + 1 < n {
            out.push(b + 1);
        }
        succs.push(out);
    }
    Some(Cfg { block_of, succs })
}

/// `dom[b][d]`: block `d` dominates block `b` (the entry is block 0; an unreachable block
/// is dominated by every block).
fn dominators(succs: &[Vec<usize>]) -> Vec<Vec<bool>> {
    let n = succs.len();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut dom = vec![vec![true; n]; n];
    dom[0] = (0..n).map(|d| d == 0).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut d = vec![true; n];
            for &p in &preds[b] {
                for (x, y) in d.iter_mut().zip(&dom[p]) {
                    *x &= *y;
                }
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
    }
    dom
}

fn function(f: &mut [Option<String>]) {
    let Some(cfg) = cfg(f) else { return };
    let dom = dominators(&cfg.succs);
    let labels: HashMap<String, usize> = f
        .iter()
        .enumerate()
        .filter_map(|(i, l)| Some((label(l.as_deref()?)?.to_string(), i)))
        .collect();
    // `from → to` is a loop's back-edge: `to` dominates `from`.
    let back_edge = |from: usize, to: &str| {
        labels
            .get(to)
            .and_then(|&t| cfg.block_of[t])
            .is_some_and(|t| dom[from][t])
    };
    for i in 0..f.len() {
        let Some(line) = f[i].clone() else { continue };
        let Some((pred, exit)) = conditional_branch(&line) else {
            continue;
        };
        let Some(j) = next_code(f, i + 1) else {
            continue;
        };
        let Some(header) = f[j].as_deref().and_then(branch).map(str::to_string) else {
            continue;
        };
        let Some(b) = cfg.block_of[i] else { continue };
        if !back_edge(b, &header) || back_edge(b, exit) {
            continue;
        }
        let Some(k) = previous_code(f, i) else {
            continue;
        };
        let Some(setp) = f[k].as_deref().and_then(|l| negated_setp(l, pred)) else {
            continue;
        };
        let reads: usize = f.iter().flatten().map(|l| uses(l, pred)).sum();
        if reads != 2 {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let falls_to_exit = next_code(f, j + 1)
            .and_then(|n| f[n].as_deref().and_then(label))
            .is_some_and(|l| l == exit);
        f[k] = Some(setp);
        f[i] = Some(format!("{indent}@{pred} bra \t{header};"));
        f[j] = (!falls_to_exit).then(|| format!("{indent}bra.uni \t{exit};"));
    }
}

/// The natural loops of `ptx`'s functions, by back edge (`b → h`, `h` dominating `b`): each
/// header's label and the lines of the loop's blocks, in order (for tests reading loops in
/// PTX: which loops carry `.pragma "nounroll"`, what they hold).
#[cfg(test)]
pub(crate) fn loops(ptx: &str) -> Vec<(String, Vec<String>)> {
    let lines: Vec<Option<String>> = ptx.lines().map(|l| Some(l.to_string())).collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.as_deref().is_some_and(is_function_start))
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let f = &lines[start..starts.get(k + 1).copied().unwrap_or(lines.len())];
        let Some(cfg) = cfg(f) else { continue };
        let dom = dominators(&cfg.succs);
        let n = cfg.succs.len();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in cfg.succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        for h in 0..n {
            let mut body = vec![false; n];
            body[h] = true;
            let mut work: Vec<usize> = preds[h].iter().copied().filter(|&b| dom[b][h]).collect();
            if work.is_empty() {
                continue;
            }
            while let Some(b) = work.pop() {
                if !std::mem::replace(&mut body[b], true) {
                    work.extend(preds[b].iter().copied());
                }
            }
            let mut header = None;
            let mut held = Vec::new();
            for (i, l) in f.iter().enumerate() {
                let (Some(b), Some(l)) = (cfg.block_of[i], l.as_deref()) else {
                    continue;
                };
                if b == h && header.is_none() {
                    header = label(l).map(str::to_string);
                }
                if body[b] {
                    held.push(l.to_string());
                }
            }
            out.push((header.unwrap_or_default(), held));
        }
    }
    out
}
