//! The shape of the code a newcomer reads, checked where review would only hope for it: no
//! library crate grows past what one person can hold, few functions run past a screenful, no
//! two files of a crate lean on each other in a circle, and ARCHITECTURE.md's crate table says
//! what `cargo metadata` says.
//!
//! "Production code" is every `.rs` file under a crate's `src/` except `tests.rs` files, files
//! under a `tests/` folder, and a file's trailing `#[cfg(test)]` module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::root;

/// Lines of production code a library crate may hold.
const CRATE_LINES: usize = 12_000;
/// Lines a function may run to before it counts as long…
const LONG_FUNCTION: usize = 100;
/// …and how many long ones the workspace may keep (each says in its doc why it stays whole).
const LONG_FUNCTIONS_ALLOWED: usize = 5;

/// One crate's production files: its name, and each file's path relative to `src/` with its
/// text cut before its test module.
struct Crate {
    name: String,
    files: BTreeMap<String, String>,
}

fn crates() -> Vec<Crate> {
    let mut dirs = vec![("driftgate".to_owned(), root().join("src"))];
    let mut members: Vec<_> = std::fs::read_dir(root().join("crates"))
        .expect("crates/ is readable")
        .map(|entry| entry.expect("crates/ lists").path())
        .collect();
    members.sort();
    for dir in members {
        let name = dir.file_name().expect("a crate folder").to_string_lossy();
        dirs.push((format!("driftgate-{name}"), dir.join("src")));
    }
    dirs.into_iter()
        .map(|(name, src)| {
            let mut files = BTreeMap::new();
            collect_files(&src, &src, &mut files);
            Crate { name, files }
        })
        .collect()
}

fn collect_files(src: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a folder lists").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        if path.is_dir() {
            if name != "tests" {
                collect_files(src, &path, files);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            let text = std::fs::read_to_string(&path).expect("a source file reads");
            let relative = path.strip_prefix(src).expect("under src/");
            files.insert(
                relative.to_string_lossy().into_owned(),
                production_part(&text),
            );
        }
    }
}

/// A file's text without its tests: an inline `#[cfg(test)] mod … {` ends it (tests come
/// last), and a test module declared on its own (`#[cfg(test)] mod tests;`) or a test-only
/// import is left out where it stands.
fn production_part(text: &str) -> String {
    let mut kept = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            let next = lines.peek().map(|next| next.trim()).unwrap_or_default();
            if next.starts_with("mod ") && next.ends_with('{') {
                break;
            }
            if next.ends_with(';') {
                lines.next();
            }
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

#[test]
fn no_library_crate_is_over_twelve_thousand_lines() {
    let mut sizes = Vec::new();
    let mut over = Vec::new();
    for krate in crates() {
        let lines: usize = krate.files.values().map(|text| text.lines().count()).sum();
        sizes.push(format!("{} {lines}", krate.name));
        if krate.name != "driftgate" && lines > CRATE_LINES {
            over.push(format!("{}: {lines} lines", krate.name));
        }
    }
    assert!(
        over.is_empty(),
        "library crates over {CRATE_LINES} production lines (split along a seam):\n{}\n(all: {})",
        over.join("\n"),
        sizes.join(", ")
    );
}

/// Every function of the production code longer than [`LONG_FUNCTION`] lines, as
/// `crate/file:line name (n lines)`. rustfmt closes a body at the indentation its `fn` opened.
fn long_functions(krate: &Crate) -> Vec<String> {
    let mut long = Vec::new();
    for (file, text) in &krate.files {
        let lines: Vec<&str> = text.lines().collect();
        for (start, line) in lines.iter().enumerate() {
            let Some(name) = function_name(line) else {
                continue;
            };
            // A declaration without a body (a trait's) ends in `;` before any `{`.
            let opens = lines[start..]
                .iter()
                .map(|l| l.trim_end())
                .find(|l| l.ends_with('{') || l.ends_with(';'));
            if opens.is_none_or(|l| l.ends_with(';')) {
                continue;
            }
            let indent = &line[..line.len() - line.trim_start().len()];
            let close = format!("{indent}}}");
            if let Some(end) = lines[start + 1..].iter().position(|l| *l == close) {
                let length = end + 2;
                if length > LONG_FUNCTION {
                    long.push(format!(
                        "{}/{file}:{} {name} ({length} lines)",
                        krate.name,
                        start + 1
                    ));
                }
            }
        }
    }
    long
}

/// The name of the function a line opens, if it opens one.
fn function_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = match after.strip_prefix('(') {
            Some(scoped) => scoped.split_once(')')?.1,
            None => after,
        }
        .trim_start();
    }
    for qualifier in ["const ", "async ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(qualifier).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    Some(&name[..end])
}

#[test]
fn at_most_five_functions_run_over_a_hundred_lines() {
    let long: Vec<String> = crates().iter().flat_map(long_functions).collect();
    assert!(
        long.len() <= LONG_FUNCTIONS_ALLOWED,
        "{} functions over {LONG_FUNCTION} lines (at most {LONG_FUNCTIONS_ALLOWED}; split them into named phases):\n{}",
        long.len(),
        long.join("\n")
    );
}

#[test]
fn tests_are_not_production_code_wherever_they_are_declared() {
    let text = "mod a;\n#[cfg(test)]\nmod tests;\nuse crate::b;\n#[cfg(test)]\nmod inline {\n    use crate::c;\n}\n";
    assert_eq!(production_part(text), "mod a;\nuse crate::b;\n");
}

#[test]
fn a_long_function_is_found_and_a_declaration_is_not() {
    let body: String = (0..LONG_FUNCTION)
        .map(|i| format!("    let x{i} = {i};\n"))
        .collect();
    let text = format!(
        "trait T {{\n    fn declared(&self)\n        -> u8;\n}}\n\npub(crate) async fn long() {{\n{body}}}\n\nfn short() {{}}\n"
    );
    let krate = Crate {
        name: "k".into(),
        files: BTreeMap::from([("lib.rs".to_owned(), text)]),
    };
    assert_eq!(
        long_functions(&krate),
        [format!("k/lib.rs:6 long ({} lines)", LONG_FUNCTION + 2)]
    );
}

/// A file's module path: `a/b.rs` and `a/b/mod.rs` are `[a, b]`; `lib.rs` and `main.rs` the
/// root.
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// A `use` tree expanded into its paths and the name each is known by here:
/// `crate::{a::b, c::{d, e as f}}` gives `crate::a::b` (`b`), `crate::c::d` (`d`) and
/// `crate::c::e` (`f`).
fn use_items(tree: &str) -> Vec<(String, String)> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let mut parts = tree.split(" as ");
        let path: String = parts
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        let name = match parts.next() {
            Some(alias) => alias.trim().to_owned(),
            None => path.rsplit("::").next().unwrap_or_default().to_owned(),
        };
        return vec![(path, name)];
    };
    let prefix: String = tree[..open].split_whitespace().collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[from..]);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(use_items)
        .map(|(path, name)| match path.as_str() {
            // `a::b::{self, C}` names `a::b` itself, as `b`.
            "self" => {
                let module = prefix.trim_end_matches("::");
                let own = module.rsplit("::").next().unwrap_or_default();
                let name = if name == "self" { own.to_owned() } else { name };
                (module.to_owned(), name)
            }
            _ => (format!("{prefix}{path}"), name),
        })
        .collect()
}

/// What a file's code names: its `use` items (the path, the name it is known by here) and
/// every other path in its code.
struct Named {
    uses: Vec<(String, String)>,
    paths: Vec<String>,
}

/// `text` with its comments, strings and character literals blanked (newlines kept), so
/// that only code is read for paths.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 1;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_before(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            i += 2 + hashes;
            while i < chars.len() && !chars[i..].starts_with(&close) {
                out.push(blank(chars[i]));
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                out.push(blank(chars.get(i).copied().unwrap_or(' ')));
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\''), not a lifetime.
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// What a file's code names, comments and strings aside.
fn named(text: &str) -> Named {
    let code = code_only(text);
    let mut uses = Vec::new();
    let mut paths = Vec::new();
    // `use` trees are expanded, then blanked: their inner paths are relative to the tree.
    let mut rest = code.as_str();
    let mut without_uses = String::new();
    while let Some(at) = rest.find("use ") {
        let boundary = rest[..at]
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == ')' || c == '{' || c == ';');
        let after = &rest[at + 4..];
        let end = if boundary {
            after.find(';').unwrap_or(after.len())
        } else {
            0
        };
        without_uses.push_str(&rest[..at + 4]);
        if boundary {
            uses.extend(use_items(&after[..end]));
        }
        rest = &after[end..];
    }
    without_uses.push_str(rest);
    let code = without_uses;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let starts = (c.is_ascii_alphabetic() || c == '_')
            && (i == 0 || {
                let before = bytes[i - 1] as char;
                !(before.is_ascii_alphanumeric() || before == '_' || before == ':')
            });
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < bytes.len() {
            let c = bytes[end] as char;
            if c.is_ascii_alphanumeric() || c == '_' {
                end += 1;
            } else if code[end..].starts_with("::")
                && code[end + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            {
                end += 2;
            } else {
                break;
            }
        }
        if code[i..end].contains("::") {
            paths.push(code[i..end].to_owned());
        }
        i = end.max(i + 1);
    }
    Named { uses, paths }
}

/// `path` as named in the file of module `me`, from the crate's root; `None` for a path
/// outside the crate.
fn absolute(
    path: &str,
    me: &[String],
    modules: &BTreeMap<Vec<String>, &String>,
) -> Option<Vec<String>> {
    let segments: Vec<String> = path.split("::").map(str::to_owned).collect();
    match segments[0].as_str() {
        "crate" => Some(segments[1..].to_vec()),
        "self" => Some(me.iter().chain(&segments[1..]).cloned().collect()),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = &me[..me.len().saturating_sub(ups)];
            Some(base.iter().chain(&segments[ups..]).cloned().collect())
        }
        child => {
            let mut own = me.to_vec();
            own.push(child.to_owned());
            modules
                .contains_key(&own)
                .then(|| me.iter().chain(&segments).cloned().collect())
        }
    }
}

/// Which files of the crate each file names, by `crate::`, `super::`, `self::` or a child
/// module's name. A path to an item a file imports (a `pub use` re-export, or a `use` its
/// children see) leads on to the file that defines it: naming `crate::Snapshot` uses
/// `snapshot.rs`, not `lib.rs`; an item of another crate uses no file of this one.
fn file_edges(krate: &Crate) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, &String> = krate
        .files
        .keys()
        .map(|file| (module_path(file), file))
        .collect();
    let named: BTreeMap<&String, Named> = krate
        .files
        .iter()
        .map(|(file, text)| (file, named(text)))
        .collect();
    // What each file imports, by the name it gives it (which the module's children may name
    // too): where in the crate it leads, or `None` for an item of another crate, which no file
    // of this one defines.
    let imported: BTreeMap<&String, BTreeMap<&str, Option<Vec<String>>>> = named
        .iter()
        .map(|(file, named)| {
            let me = module_path(file);
            let names = named
                .uses
                .iter()
                .map(|(path, name)| (name.as_str(), absolute(path, &me, &modules)))
                .collect();
            (*file, names)
        })
        .collect();
    let resolve = |segments: Vec<String>| {
        let mut segments = segments;
        for _ in 0..8 {
            let (n, file) = (0..=segments.len())
                .rev()
                .find_map(|n| modules.get(&segments[..n]).map(|file| (n, *file)))?;
            match segments
                .get(n)
                .and_then(|item| imported[file].get(item.as_str()))
            {
                Some(Some(origin)) => {
                    segments = origin.iter().chain(&segments[n + 1..]).cloned().collect()
                }
                Some(None) => return None,
                None => return Some(file.clone()),
            }
        }
        None
    };
    let mut edges = BTreeMap::new();
    for (file, named) in &named {
        let me = module_path(file);
        let paths = named.uses.iter().map(|(path, _)| path).chain(&named.paths);
        let targets = paths
            .filter_map(|path| absolute(path, &me, &modules))
            .filter_map(resolve)
            .filter(|target| target != *file)
            .collect();
        edges.insert((*file).clone(), targets);
    }
    edges
}

/// The circles of a graph: its strongly connected components of more than one file.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        circles: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            for next in self.edges.get(node).into_iter().flatten() {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next.as_str()]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next.as_str()) {
                    let low = self.low[node].min(self.index[next.as_str()]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let at = self.stack.iter().rposition(|n| *n == node).unwrap_or(0);
                let component: Vec<String> = self.stack.drain(at..).map(str::to_owned).collect();
                if component.len() > 1 {
                    self.circles.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for node in edges.keys() {
        if !tarjan.index.contains_key(node.as_str()) {
            tarjan.visit(node);
        }
    }
    tarjan.circles
}

#[test]
fn no_two_files_of_a_crate_use_each_other_in_a_circle() {
    let mut found = Vec::new();
    for krate in crates() {
        for mut circle in circles(&file_edges(&krate)) {
            circle.sort();
            found.push(format!("{}: {}", krate.name, circle.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "files that use each other in a circle (move what they share into a module of its own):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_circle_through_a_parent_and_its_child_is_found() {
    let krate = Crate {
        name: "k".into(),
        files: BTreeMap::from([
            (
                "lib.rs".to_owned(),
                "mod a;\nmod c;\nmod shared;\npub use a::Thing;\npub use other_crate::nic;\n"
                    .to_owned(),
            ),
            (
                "a.rs".to_owned(),
                "mod b;\nuse crate::shared::Word;\npub struct Thing(b::Inner);\n".to_owned(),
            ),
            (
                "a/b.rs".to_owned(),
                "use super::{super::shared::Word, Thing as T};\n// crate::never\n".to_owned(),
            ),
            (
                "c.rs".to_owned(),
                "pub fn f(_: crate::nic::Port) -> crate::Thing { \"crate::x::y\"; todo!() }\n"
                    .to_owned(),
            ),
            ("shared.rs".to_owned(), "pub struct Word;\n".to_owned()),
        ]),
    };
    let edges = file_edges(&krate);
    assert_eq!(edges["lib.rs"], BTreeSet::from(["a.rs".to_owned()]));
    // `crate::Thing` is `lib.rs`'s re-export of `a.rs`'s item, `crate::nic` another crate's:
    // neither is a use of lib.rs.
    assert_eq!(edges["c.rs"], BTreeSet::from(["a.rs".to_owned()]));
    assert_eq!(
        edges["a/b.rs"],
        BTreeSet::from(["a.rs".to_owned(), "shared.rs".to_owned()])
    );
    assert_eq!(
        use_items("crate::a::{self, b::{C as D}}"),
        [
            ("crate::a".to_owned(), "a".to_owned()),
            ("crate::a::b::C".to_owned(), "D".to_owned())
        ]
    );
    let mut circle = circles(&edges).concat();
    circle.sort();
    assert_eq!(circle, ["a.rs", "a/b.rs"]);
}

/// Each workspace crate's normal dependencies on other workspace crates, short names
/// (`driftgate-collect` → `collect`), from `cargo metadata`.
fn crate_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let metadata = crate::layering::metadata();
    let short = |name: &str| name.strip_prefix("driftgate-").unwrap_or(name).to_owned();
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|package| {
            let deps = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|dep| dep["path"].is_string() && dep["kind"].is_null())
                .map(|dep| short(dep["name"].as_str().expect("a name")))
                .collect();
            (short(package["name"].as_str().expect("a name")), deps)
        })
        .collect()
}

#[test]
fn architecture_md_names_every_crate_and_its_dependencies() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let crates = crate_dependencies();
    let mut wrong = Vec::new();
    let mut rows = BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("| `crates/") else {
            continue;
        };
        let name = rest.split('`').next().unwrap_or_default().to_owned();
        let cells: Vec<&str> = line.split(" | ").collect();
        let listed: BTreeSet<String> = cells
            .last()
            .map(|cell| cell.trim_end_matches('|').trim())
            .filter(|cell| !cell.starts_with('—'))
            .map(|cell| {
                cell.split(',')
                    .map(|dep| dep.trim().trim_matches('`').to_owned())
                    .filter(|dep| !dep.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        match crates.get(&name) {
            None => wrong.push(format!("`crates/{name}`: a row for no workspace crate")),
            Some(actual) if *actual != listed => wrong.push(format!(
                "`crates/{name}` depends on {actual:?}, the table says {listed:?}"
            )),
            Some(_) => {}
        }
        rows.insert(name);
    }
    for name in crates.keys().filter(|name| *name != "driftgate") {
        if !rows.contains(name) {
            wrong.push(format!("`crates/{name}`: no row in the crate table"));
        }
        if !text.contains(&format!("driftgate-{name} ")) {
            wrong.push(format!("driftgate-{name}: not on the crate map"));
        }
    }
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md and cargo metadata disagree:\n{}",
        wrong.join("\n")
    );
}

/// The first commit that CONTRIBUTING.md's rule for commit messages applies to.
const MESSAGES_RULED_FROM: &str = "28a8d88";

/// What is wrong with one commit message by CONTRIBUTING.md's rule, if anything.
fn message_problem(message: &str) -> Option<String> {
    let mut lines = message.lines();
    let subject = lines.next().unwrap_or_default();
    let length = subject.chars().count();
    if length > 72 {
        return Some(format!("a subject of {length} characters (at most 72)"));
    }
    if lines.next().is_some_and(|line| !line.trim().is_empty()) {
        return Some("no blank line after the subject".to_owned());
    }
    if lines.all(|line| line.trim().is_empty()) {
        return Some("no body saying why".to_owned());
    }
    None
}

#[test]
fn commits_since_the_rule_have_a_short_subject_and_a_body() {
    let Ok(repo) = git2::Repository::open(root()) else {
        return; // an export without its history (a source tarball) has nothing to check
    };
    let ruled = repo
        .revparse_single(&format!("{MESSAGES_RULED_FROM}^"))
        .ok()
        .map(|object| object.id());
    let mut walk = repo.revwalk().expect("a revision walk");
    if walk.push_head().is_err() {
        return;
    }
    if let Some(ruled) = ruled {
        walk.hide(ruled)
            .expect("the commit before the rule hides its ancestors");
    }
    let mut wrong = Vec::new();
    // A shallow clone (CI's checkout) ends where its history does.
    for oid in walk.map_while(Result::ok) {
        let Ok(commit) = repo.find_commit(oid) else {
            break;
        };
        // Merges say what they join in git's own words.
        if commit.parent_count() < 2
            && let Some(problem) = message_problem(commit.message().unwrap_or_default())
        {
            wrong.push(format!(
                "{:.7} {}: {problem}",
                oid,
                commit.summary().ok().flatten().unwrap_or_default()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "commit messages against CONTRIBUTING.md:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_long_subject_and_a_missing_body_are_named() {
    assert_eq!(
        message_problem("fleet: name the blocked hosts\n\nWhy.\n"),
        None
    );
    assert_eq!(
        message_problem(&"x".repeat(73)),
        Some("a subject of 73 characters (at most 72)".to_owned())
    );
    assert_eq!(
        message_problem("subject only\n"),
        Some("no body saying why".to_owned())
    );
    assert_eq!(
        message_problem("subject\nbody at once\n"),
        Some("no blank line after the subject".to_owned())
    );
}
