//! The catalog against the CUDA sources, without a GPU: every `extern "C" __global__`
//! signature of every program (the headers it includes and its source, comments removed, the
//! macros that define kernels expanded) is parsed and compared with the catalog's declared
//! parameters; every entry point of the sources must be catalogued (or listed as unused) and
//! every catalogued kernel must exist. [`mismatches`] is public so that a crate with programs
//! of its own ([`Program::External`], warpath-bench's) checks its declarations the same way.

use crate::compiler::included_headers;
use crate::kernel::{KernelInfo, ParamType};
use crate::kernels::Program;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A parameter type as the CUDA source declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CudaType {
    ConstPtr,
    MutPtr,
    U32,
    I32,
    U64,
    F32,
    Struct(String),
}

impl From<&ParamType> for CudaType {
    fn from(param: &ParamType) -> Self {
        match param {
            ParamType::ConstPtr => CudaType::ConstPtr,
            ParamType::MutPtr => CudaType::MutPtr,
            ParamType::U32 => CudaType::U32,
            ParamType::I32 => CudaType::I32,
            ParamType::U64 => CudaType::U64,
            ParamType::F32 => CudaType::F32,
            ParamType::Struct(name) => CudaType::Struct(name.to_string()),
        }
    }
}

/// A function-like macro.
struct Macro {
    params: Vec<String>,
    body: String,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `text` without comments (string literals kept as they are).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    if s == '\\' {
                        if let Some(escaped) = chars.next() {
                            out.push(escaped);
                        }
                    } else if s == '"' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    if n == '\n' {
                        out.push('\n');
                    }
                    last = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Splits `text` (continuations joined) into its function-like macros and the rest (every
/// preprocessor line removed).
fn split_macros(text: &str, macros: &mut HashMap<String, Macro>) -> String {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut rest = String::with_capacity(joined.len());
    for line in joined.lines() {
        let trimmed = line.trim_start();
        let Some(directive) = trimmed.strip_prefix('#') else {
            rest.push_str(line);
            rest.push('\n');
            continue;
        };
        let Some(define) = directive.trim_start().strip_prefix("define") else { continue };
        let define = define.trim_start();
        let name: String = define.chars().take_while(|&c| is_ident(c)).collect();
        let after = &define[name.len()..];
        // Only function-like macros (`NAME(` with no space) can define kernels.
        let Some(after) = after.strip_prefix('(') else { continue };
        let Some((params, body)) = after.split_once(')') else { continue };
        let params = params.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
        macros.entry(name).or_insert(Macro { params, body: body.trim().to_string() });
    }
    rest
}

/// `text` with every identifier of `map` replaced.
fn replace_idents(text: &str, map: &HashMap<&str, &str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut ident = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if is_ident(c) {
            ident.push(c);
            continue;
        }
        if !ident.is_empty() {
            out.push_str(map.get(ident.as_str()).copied().unwrap_or(&ident));
            ident.clear();
        }
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

/// The arguments of a macro call whose `(` is at `text[open]`, and the index after its `)`.
fn call_args(text: &str, open: usize) -> Option<(Vec<String>, usize)> {
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut current = String::new();
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    args.push(current.trim().to_string());
                    return Some((args, open + i + 1));
                }
            }
            ',' if depth == 1 => {
                args.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    None
}

/// One pass of expanding the calls of `expand` (macro names) in `text`.
fn expand_once(text: &str, macros: &HashMap<String, Macro>, expand: &HashSet<String>) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i..].chars().next().expect("in bounds");
        if !is_ident(c) {
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let end = text[i..].find(|c: char| !is_ident(c)).map_or(text.len(), |n| i + n);
        let name = &text[i..end];
        let open = end + text[end..].len() - text[end..].trim_start().len();
        if expand.contains(name)
            && text[open..].starts_with('(')
            && let Some((args, after)) = call_args(text, open)
        {
            let m = &macros[name];
            let map: HashMap<&str, &str> =
                m.params.iter().map(String::as_str).zip(args.iter().map(String::as_str)).collect();
            let body = replace_idents(&m.body, &map);
            // Token pasting: `a ## b` → `ab`.
            let pasted = body.split("##").map(str::trim).collect::<Vec<_>>().join("");
            out.push_str(&pasted);
            out.push('\n');
            changed = true;
            i = after;
        } else {
            out.push_str(name);
            i = end;
        }
    }
    (out, changed)
}

/// The text of `program` (its headers, then its source) with the kernel-defining macros
/// expanded, and the type aliases (`using A = B;`) it declares.
fn expanded_program(program: Program) -> (String, HashMap<String, String>) {
    let source = program.source();
    let mut macros = HashMap::new();
    let mut text = String::new();
    for (_, header) in included_headers(&source) {
        text.push_str(&split_macros(&strip_comments(header), &mut macros));
    }
    text.push_str(&split_macros(&strip_comments(source.source), &mut macros));
    // The macros that define kernels: those whose body has `__global__`, and those calling them.
    let mut expand: HashSet<String> =
        macros.iter().filter(|(_, m)| m.body.contains("__global__")).map(|(n, _)| n.clone()).collect();
    loop {
        let callers: Vec<String> = macros
            .iter()
            .filter(|(n, m)| {
                !expand.contains(*n)
                    && expand.iter().any(|e| replace_idents(&m.body, &HashMap::from([(e.as_str(), "\u{1}")])) != m.body)
            })
            .map(|(n, _)| n.clone())
            .collect();
        if callers.is_empty() {
            break;
        }
        expand.extend(callers);
    }
    for _ in 0..8 {
        let (next, changed) = expand_once(&text, &macros, &expand);
        text = next;
        if !changed {
            break;
        }
    }
    let mut aliases = HashMap::new();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for statement in flat.split(';') {
        // `using A = B` ends the statement (whatever block or declaration came before it).
        if let Some(at) = statement.rfind("using ")
            && !statement[..at].ends_with(is_ident)
            && let Some((alias, target)) = statement[at + "using ".len()..].split_once('=')
            && alias.trim().chars().all(is_ident)
        {
            aliases.entry(alias.trim().to_string()).or_insert_with(|| target.trim().to_string());
        }
    }
    (text, aliases)
}

/// Every `extern "C" __global__` function of `text`: name → parameter declarations.
fn entry_points(text: &str) -> Vec<(String, Vec<String>)> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut kernels = Vec::new();
    let mut rest = flat.as_str();
    while let Some(at) = rest.find("extern \"C\" __global__") {
        rest = &rest[at + "extern \"C\" __global__".len()..];
        let end = rest.find(['{', ';']).unwrap_or(rest.len());
        let header = rest[..end].trim();
        // The last parenthesised group is the parameter list; the identifier before it the name.
        let Some(close) = header.rfind(')') else { continue };
        let mut depth = 0;
        let mut open = None;
        for (i, c) in header[..=close].char_indices().rev() {
            match c {
                ')' => depth += 1,
                '(' => {
                    depth -= 1;
                    if depth == 0 {
                        open = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let before = header[..open].trim_end();
        let name: String =
            before.chars().rev().take_while(|&c| is_ident(c)).collect::<Vec<_>>().into_iter().rev().collect();
        let params = split_params(&header[open + 1..close]);
        kernels.push((name, params));
    }
    kernels
}

/// Splits a parameter list at its top-level commas.
fn split_params(list: &str) -> Vec<String> {
    let mut params = Vec::new();
    let (mut depth, mut current) = (0i32, String::new());
    for c in list.chars() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                params.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        params.push(current.trim().to_string());
    }
    params
}

/// The type of parameter declaration `param` (`const float4* __restrict__ nodes`, `unsigned int n`,
/// `ScheduleArgs<typename SurfaceEstimator::Deferred> a`, ...).
fn param_type(param: &str, aliases: &HashMap<String, String>) -> Result<CudaType, String> {
    let param = param.replace("__restrict__", " ");
    let param = param.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(star) = param.find('*') {
        let pointee = param[..star].trim();
        let is_const = pointee.split(' ').any(|t| t == "const");
        return Ok(if is_const { CudaType::ConstPtr } else { CudaType::MutPtr });
    }
    let (ty, _name) = param.rsplit_once(' ').ok_or_else(|| format!("`{param}` has no name"))?;
    let ty = ty.strip_prefix("const ").unwrap_or(ty);
    Ok(match ty {
        "unsigned int" | "unsigned" | "uint32_t" => CudaType::U32,
        "int" | "int32_t" => CudaType::I32,
        "unsigned long long" | "unsigned long long int" | "uint64_t" => CudaType::U64,
        "float" => CudaType::F32,
        "double" | "char" | "unsigned char" | "bool" | "short" | "long" | "size_t" => {
            return Err(format!("`{ty}` has no catalog parameter type"));
        }
        other => {
            let resolved = aliases.get(other).map_or(other, String::as_str);
            let normal = resolved.replace("typename ", "").replace("::Deferred", "").replace(' ', "");
            CudaType::Struct(normal)
        }
    })
}

/// Every entry point of every program of `programs`: name → program, parameter types.
fn source_kernels(programs: &[Program]) -> BTreeMap<String, (Program, Result<Vec<CudaType>, String>)> {
    let mut kernels = BTreeMap::new();
    for &program in programs {
        let (text, aliases) = expanded_program(program);
        for (name, params) in entry_points(&text) {
            let types = params.iter().map(|p| param_type(p, &aliases)).collect::<Result<Vec<_>, _>>();
            let previous = kernels.insert(name.clone(), (program, types));
            assert!(previous.is_none(), "kernel `{name}` is defined by two programs");
        }
    }
    kernels
}

/// The mismatches between `catalog` (the kernels declared for `programs`) and the sources of
/// `programs`: a kernel catalogued twice, catalogued but defined by no program or by another
/// one, or declared with other parameters than its CUDA signature's; an entry point that is
/// neither catalogued nor listed in `unused`. Empty when they agree.
pub fn mismatches(programs: &[Program], catalog: &[KernelInfo], unused: &[&str]) -> Vec<String> {
    let sources = source_kernels(programs);
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    for kernel in catalog {
        if !seen.insert(kernel.name) {
            problems.push(format!("`{}` is catalogued twice", kernel.name));
        }
        let declared: Vec<CudaType> = kernel.params.iter().map(CudaType::from).collect();
        match sources.get(kernel.name) {
            None => problems
                .push(format!("`{}` ({:?}) is catalogued but no program defines it", kernel.name, kernel.program)),
            Some((program, _)) if *program != kernel.program => problems
                .push(format!("`{}` is catalogued in {:?} but defined in {program:?}", kernel.name, kernel.program)),
            Some((_, Err(error))) => problems.push(format!("`{}`: {error}", kernel.name)),
            Some((_, Ok(types))) if *types != declared => {
                problems.push(format!("`{}`: the catalog declares {declared:?}, the source {types:?}", kernel.name))
            }
            Some(_) => {}
        }
    }
    for name in sources.keys() {
        if !seen.contains(name.as_str()) && !unused.contains(&name.as_str()) {
            problems.push(format!("`{name}` is defined but neither catalogued nor listed as unused"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry points of this crate's sources that no Rust code launches (none today).
    const UNUSED: &[&str] = &[];

    #[test]
    fn every_catalogued_kernel_matches_its_cuda_signature_and_every_entry_point_is_catalogued() {
        let catalog = crate::catalog::all();
        assert!(catalog.len() > 100, "{} kernels", catalog.len());
        let problems = mismatches(&Program::all(), &catalog, UNUSED);
        assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
    }

    #[test]
    fn a_wrong_declaration_is_found() {
        let mut catalog = crate::catalog::all();
        let shade = catalog.iter_mut().find(|k| k.name == "iso_shade").expect("catalogued");
        shade.params.swap(1, 3);
        let restir = catalog.iter_mut().find(|k| k.name == "restir_shade").expect("catalogued");
        restir.params.push(ParamType::U32);
        let film = catalog.iter_mut().find(|k| k.name == "film_merge_pass").expect("catalogued");
        film.params[6] = ParamType::I32;
        catalog.retain(|k| k.name != "compaction_scan_counts");
        let problems = mismatches(&Program::all(), &catalog, UNUSED);
        assert_eq!(problems.len(), 4, "{problems:#?}");
        for name in ["iso_shade", "restir_shade", "film_merge_pass", "compaction_scan_counts"] {
            assert!(problems.iter().any(|p| p.contains(name)), "{name}: {problems:#?}");
        }
    }

    #[test]
    fn signatures_parse_through_macros_attributes_and_aliases() {
        let mut macros = HashMap::new();
        let text = split_macros(
            &strip_comments(
                "// a comment with extern \"C\" __global__ void fake(int x)\n\
                 #define K(SUFFIX, T) \\\n extern \"C\" __global__ void __launch_bounds__(256, 2) k_##SUFFIX(const T* __restrict__ in, T* out, unsigned int n) {}\n\
                 #define KS(E) K(a, E) K(b, E)\n\
                 using Alias = Wrapped<typename E::Deferred>;\n\
                 KS(float)\n\
                 extern \"C\" __global__ void WARPATH_BOUNDS(64) plain(Alias a, unsigned long long t, int i, float f) {}\n",
            ),
            &mut macros,
        );
        let expand: HashSet<String> = ["K".to_string(), "KS".to_string()].into();
        let (once, _) = expand_once(&text, &macros, &expand);
        let (twice, _) = expand_once(&once, &macros, &expand);
        let kernels = entry_points(&twice);
        let names: Vec<_> = kernels.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["k_a", "k_b", "plain"]);
        let aliases = HashMap::from([("Alias".to_string(), "Wrapped<typename E::Deferred>".to_string())]);
        let types: Vec<_> = kernels[0].1.iter().map(|p| param_type(p, &aliases).unwrap()).collect();
        assert_eq!(types, [CudaType::ConstPtr, CudaType::MutPtr, CudaType::U32]);
        let types: Vec<_> = kernels[2].1.iter().map(|p| param_type(p, &aliases).unwrap()).collect();
        assert_eq!(types, [CudaType::Struct("Wrapped<E>".into()), CudaType::U64, CudaType::I32, CudaType::F32]);
    }
}
