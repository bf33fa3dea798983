//! ARCHITECTURE.md is the source of truth for how the crates may depend on each other: this
//! test reads its crate table and checks the "must never depend on" column against the
//! dependency graph `cargo metadata` reports, that the table has a row for every workspace
//! package, that the files the page names exist, and that no source cites a document outside
//! the repository.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One row of the crate table.
#[derive(Debug)]
struct Row {
    folder: String,
    /// The package, the first name in backticks of the crate column (none for folders of
    /// examples and tests).
    package: Option<String>,
    /// Names in backticks of the last column; `None` when it says `anything`.
    never: Option<Vec<String>>,
}

/// The names in backticks in `cell`.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The table of the section `## Crates`.
fn crate_table(doc: &str) -> Vec<Row> {
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Crates"))
        .expect("ARCHITECTURE.md has a `## Crates` section");
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        if cells.len() != 4 || cells[0] == "folder" || cells[0].starts_with("---") {
            continue;
        }
        let never = if cells[3].starts_with("anything") {
            None
        } else {
            Some(ticked(cells[3]))
        };
        rows.push(Row {
            folder: ticked(cells[0]).into_iter().next().unwrap_or_default(),
            package: ticked(cells[1]).into_iter().next(),
            never,
        });
    }
    assert!(rows.len() > 5, "the crate table was not found: {rows:?}");
    rows
}

/// `cargo metadata` of the workspace, for the platform that builds it (so that nothing has
/// to be downloaded).
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("running rustc -vV");
    let version = String::from_utf8_lossy(&version.stdout).to_string();
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host");
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", host])
        .current_dir(root())
        .output()
        .expect("running cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON")
}

/// The dependency graph: package id → (name, whether it is a proc macro, the ids of its
/// normal dependencies, i.e. what its library links).
struct Graph {
    name: HashMap<String, String>,
    proc_macro: HashMap<String, bool>,
    deps: HashMap<String, Vec<String>>,
}

impl Graph {
    fn new(meta: &Value) -> Graph {
        let mut name = HashMap::new();
        let mut proc_macro = HashMap::new();
        for p in meta["packages"].as_array().unwrap() {
            let id = p["id"].as_str().unwrap().to_string();
            name.insert(id.clone(), p["name"].as_str().unwrap().to_string());
            let is_pm = p["targets"].as_array().unwrap().iter().any(|t| {
                t["kind"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k == "proc-macro")
            });
            proc_macro.insert(id, is_pm);
        }
        let mut deps = HashMap::new();
        for n in meta["resolve"]["nodes"].as_array().unwrap() {
            let normal = n["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].is_null())
                })
                .map(|d| d["pkg"].as_str().unwrap().to_string())
                .collect();
            deps.insert(n["id"].as_str().unwrap().to_string(), normal);
        }
        Graph {
            name,
            proc_macro,
            deps,
        }
    }

    fn id(&self, package: &str) -> Option<&String> {
        self.name
            .iter()
            .find(|(_, n)| n.as_str() == package)
            .map(|(id, _)| id)
    }

    /// What `id` depends on, directly or not, as names with the path that reaches each. A
    /// proc macro is a dependency, but its own dependencies run in the compiler, not in
    /// what links the crate, so they are not followed.
    fn reachable(&self, id: &str) -> HashMap<String, Vec<String>> {
        let mut seen: HashMap<String, Vec<String>> = HashMap::new();
        let mut stack = vec![(id.to_string(), vec![self.name[id].clone()])];
        while let Some((at, path)) = stack.pop() {
            if at != id && self.proc_macro[&at] {
                continue;
            }
            for d in &self.deps[&at] {
                let n = &self.name[d];
                if !seen.contains_key(n) {
                    let mut p = path.clone();
                    p.push(n.clone());
                    seen.insert(n.clone(), p.clone());
                    stack.push((d.clone(), p));
                }
            }
        }
        seen
    }
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("reading ARCHITECTURE.md")
}

#[test]
fn no_crate_depends_on_what_architecture_md_forbids() {
    let rows = crate_table(&architecture());
    let meta = metadata();
    let graph = Graph::new(&meta);
    let mut failures = Vec::new();
    for row in &rows {
        let Some(package) = &row.package else {
            continue;
        };
        let Some(id) = graph.id(package) else {
            failures.push(format!(
                "`{package}` (ARCHITECTURE.md) is no package of the workspace"
            ));
            continue;
        };
        let reach = graph.reachable(id);
        match &row.never {
            None => {
                if let Some((dep, _)) = reach.iter().next() {
                    failures.push(format!(
                        "`{package}` must depend on nothing, but depends on `{dep}`"
                    ));
                }
            }
            Some(never) => {
                for n in never {
                    if n == "proc_macro" {
                        // The compiler's own crate, not a package: look for it in the source.
                        let dir = root().join(&row.folder);
                        for f in rust_files(&dir) {
                            let text = std::fs::read_to_string(&f).unwrap();
                            if text.contains("extern crate proc_macro;")
                                || text.contains("proc_macro::")
                            {
                                failures.push(format!(
                                    "`{package}` uses `proc_macro` in {}",
                                    f.display()
                                ));
                            }
                        }
                    } else if graph.id(n).is_none() {
                        failures.push(format!(
                            "ARCHITECTURE.md: `{package}` must never depend on `{n}`, which is no package of the dependency graph (a typo, or a dependency that is gone: update the table)"
                        ));
                    } else if let Some(path) = reach.get(n) {
                        failures.push(format!(
                            "`{package}` must never depend on `{n}`, but does: {}",
                            path.join(" → ")
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn architecture_md_has_a_row_for_every_package_and_folder() {
    let rows = crate_table(&architecture());
    let meta = metadata();
    let listed: BTreeSet<&str> = rows.iter().filter_map(|r| r.package.as_deref()).collect();
    let mut missing = Vec::new();
    for m in meta["workspace_members"].as_array().unwrap() {
        let id = m.as_str().unwrap();
        let p = meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap();
        let name = p["name"].as_str().unwrap();
        if !listed.contains(name) {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's crate table has no row for {missing:?}"
    );
    for row in &rows {
        assert!(
            root().join(&row.folder).is_dir(),
            "ARCHITECTURE.md names the folder `{}`, which does not exist",
            row.folder
        );
    }
}

/// Every file of the repository (outside `target` and hidden folders), relative to the root.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p.strip_prefix(root()).unwrap().to_path_buf());
        }
    }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    files(dir, &mut all);
    all.into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .map(|f| root().join(f))
        .collect()
}

#[test]
fn files_architecture_md_names_exist() {
    let mut all = Vec::new();
    files(&root(), &mut all);
    let all: Vec<String> = all
        .iter()
        .map(|f| format!("/{}", f.to_string_lossy()))
        .collect();
    let mut missing = Vec::new();
    for name in ticked(&architecture()) {
        let is_path = [".rs", ".md", ".toml", ".py", ".sh"]
            .iter()
            .any(|e| name.ends_with(e))
            || (name.ends_with('/') && name.len() > 1);
        if !is_path || name.contains(' ') || name.contains('*') {
            continue;
        }
        // A name is relative to the crate or folder the text is about: it must be the end of
        // some file's path (a folder: of some file's folder).
        let want = format!("/{}", name.trim_start_matches("./"));
        if !all.iter().any(|f| {
            f.ends_with(&want)
                || f.contains(&format!("{want}/"))
                || (want.ends_with('/') && f.contains(&want))
        }) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}

#[test]
fn sources_cite_nothing_outside_the_repository() {
    let mut all = Vec::new();
    files(&root(), &mut all);
    let mut found = Vec::new();
    for f in all {
        let ext = f.extension().map(|e| e.to_string_lossy().to_string());
        let name = f.to_string_lossy().to_string();
        if !(matches!(ext.as_deref(), Some("rs" | "toml"))
            || name == "ARCHITECTURE.md"
            || name == "README.md")
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root().join(&f)) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            // Written so as not to match itself.
            if line.contains(concat!("DESIGN", " §")) || line.contains(concat!("../", "shared/")) {
                found.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "these cite documents outside the repository:\n{}",
        found.join("\n")
    );
}

/// Codegen's public surface is its root API and the four front-end modules the macros read
/// users' code with; every other module is private (the compiler enforces that the macro
/// crate cannot reach them), so widening it is a change to this list.
#[test]
fn codegen_exposes_only_its_entry_points() {
    let lib = std::fs::read_to_string(root().join("codegen/src/lib.rs")).unwrap();
    let public: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert_eq!(
        public,
        ["consts", "device", "imports", "launch"],
        "codegen's public modules"
    );
    assert!(
        !lib.contains("doc(hidden)"),
        "codegen/src/lib.rs hides something public instead of making it private"
    );
}
