//! pbrt-v4 parameter lists (`"type name" value` or `"type name" [values]`): reading them
//! from the token stream, typed access that marks each parameter as read, and the warning
//! (file:line) for every parameter no reader asked for.

use super::lexer::{Lexer, Tok};
use crate::SceneError;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub(crate) enum Values {
    Num(Vec<f64>),
    Str(Vec<String>),
    Bool(Vec<bool>),
}

#[derive(Clone, Debug)]
pub(crate) struct Param {
    /// The type, with pbrt-v3 spellings normalized (`point` → `point3`, `color` → `rgb`).
    pub ty: String,
    pub name: String,
    pub values: Values,
    pub line: usize,
    pub used: bool,
}

/// One directive's parameters, for typed reads; [`Params::finish`] names the unread ones.
pub(crate) struct Params {
    pub items: Vec<Param>,
    pub path: PathBuf,
    /// The directive and plugin, for messages (`Shape "sphere"`).
    pub what: String,
    pub line: usize,
}

/// Reads the parameters that follow a directive (none, when the next token is not a string).
/// A parameter given twice keeps its first value, as in pbrt-v4, and the repeat is a warning.
pub(crate) fn read_params(
    lx: &mut Lexer,
    what: String,
    line: usize,
    warnings: &mut Vec<String>,
) -> Result<Params, SceneError> {
    let mut items: Vec<Param> = Vec::new();
    while let Some(t) = lx.peek()? {
        let Tok::Str(decl) = &t.tok else { break };
        let decl = decl.clone();
        let pline = t.line;
        lx.next()?;
        let parts: Vec<&str> = decl.split_whitespace().collect();
        if parts.len() != 2 {
            return Err(lx.error(pline, format!("{what}: \"{decl}\" is not a parameter declaration (\"type name\")")));
        }
        let ty = match parts[0] {
            "point" => "point3",
            "normal" | "normal3" => "normal3",
            "vector" => "vector3",
            "color" => "rgb",
            t => t,
        }
        .to_string();
        let name = parts[1].to_string();
        if !matches!(
            ty.as_str(),
            "integer"
                | "float"
                | "point2"
                | "vector2"
                | "point3"
                | "vector3"
                | "normal3"
                | "spectrum"
                | "rgb"
                | "blackbody"
                | "bool"
                | "string"
                | "texture"
        ) {
            return Err(lx.error(pline, format!("{what}: parameter '{name}' has unknown type '{ty}'")));
        }
        let mut values: Option<Values> = None;
        match lx.next()? {
            Some(v) if v.tok == Tok::Open => loop {
                match lx.next()? {
                    None => return Err(lx.error(pline, format!("{what}: parameter '{name}': '[' is never closed"))),
                    Some(v) if v.tok == Tok::Close => break,
                    Some(v) if v.tok == Tok::Open => {
                        return Err(lx.error(v.line, format!("{what}: parameter '{name}': '[' inside '[ ]'")));
                    }
                    Some(v) => push(lx, &ty, &name, &what, &mut values, v)?,
                }
            },
            Some(v) if matches!(v.tok, Tok::Num(_) | Tok::Str(_) | Tok::Word(_)) => {
                push(lx, &ty, &name, &what, &mut values, v)?
            }
            _ => return Err(lx.error(pline, format!("{what}: parameter '{name}' has no value"))),
        }
        let values = values.unwrap_or(match ty.as_str() {
            "bool" => Values::Bool(Vec::new()),
            "string" | "texture" => Values::Str(Vec::new()),
            _ => Values::Num(Vec::new()),
        });
        if let Some(previous) = items.iter().find(|p| p.name == name) {
            warnings.push(format!(
                "{}:{pline}: {what}: parameter '{name}' is given twice: the first value (line {}) is used, as pbrt does",
                lx.path.display(),
                previous.line
            ));
            continue;
        }
        items.push(Param { ty, name, values, line: pline, used: false });
    }
    Ok(Params { items, path: lx.path.clone(), what, line })
}

/// Adds one value token to a parameter's values (numbers are stored as they are read: a
/// mesh of millions of numbers costs 8 bytes a number).
fn push(
    lx: &Lexer,
    ty: &str,
    name: &str,
    what: &str,
    values: &mut Option<Values>,
    t: super::lexer::Token,
) -> Result<(), SceneError> {
    let err = |m: String| lx.error(t.line, format!("{what}: parameter '{name}': {m}"));
    let values = values.get_or_insert_with(|| match (ty, &t.tok) {
        ("bool", _) => Values::Bool(Vec::new()),
        ("string" | "texture", _) | ("spectrum", Tok::Str(_)) => Values::Str(Vec::new()),
        _ => Values::Num(Vec::new()),
    });
    match values {
        Values::Bool(out) => out.push(match &t.tok {
            Tok::Word(w) | Tok::Str(w) if w == "true" => true,
            Tok::Word(w) | Tok::Str(w) if w == "false" => false,
            other => return Err(err(format!("{} is not true or false", other.describe()))),
        }),
        Values::Str(out) => match t.tok {
            Tok::Str(s) => out.push(s),
            ref other => return Err(err(format!("expected a quoted string, found {}", other.describe()))),
        },
        Values::Num(out) => match t.tok {
            Tok::Num(v) => out.push(v),
            ref other => return Err(err(format!("expected a number, found {}", other.describe()))),
        },
    }
    Ok(())
}

impl Params {
    pub fn error(&self, line: usize, message: impl Into<String>) -> SceneError {
        SceneError::Parse { path: self.path.clone(), line, message: format!("{}: {}", self.what, message.into()) }
    }

    /// `file:line` of the directive.
    pub fn at(&self) -> String {
        format!("{}:{}", self.path.display(), self.line)
    }

    pub fn at_line(&self, line: usize) -> String {
        format!("{}:{line}", self.path.display())
    }

    /// The parameter `name`, marked as read.
    pub fn take(&mut self, name: &str) -> Option<Param> {
        self.items.iter_mut().find(|p| p.name == name).map(|p| {
            p.used = true;
            p.clone()
        })
    }

    /// The parameter's type, without marking it read.
    pub fn type_of(&self, name: &str) -> Option<&str> {
        self.items.iter().find(|p| p.name == name).map(|p| p.ty.as_str())
    }

    /// A one-string parameter's value, without marking it read (None for any other shape).
    pub fn peek_string(&self, name: &str) -> Option<String> {
        match &self.items.iter().find(|p| p.name == name)?.values {
            Values::Str(v) if v.len() == 1 => Some(v[0].clone()),
            _ => None,
        }
    }

    pub fn has(&self, name: &str) -> bool {
        self.items.iter().any(|p| p.name == name)
    }

    /// Numbers of a parameter whose type is one of `types`.
    pub fn numbers(&mut self, name: &str, types: &[&str]) -> Result<Option<(Vec<f64>, usize)>, SceneError> {
        let Some(p) = self.take(name) else { return Ok(None) };
        if !types.contains(&p.ty.as_str()) {
            return Err(self.error(p.line, format!("'{name}' must be of type {}, not '{}'", types.join(" or "), p.ty)));
        }
        match p.values {
            Values::Num(v) => Ok(Some((v, p.line))),
            _ => Err(self.error(p.line, format!("'{name}' must hold numbers"))),
        }
    }

    pub fn float(&mut self, name: &str) -> Result<Option<f32>, SceneError> {
        let Some((v, line)) = self.numbers(name, &["float", "integer"])? else { return Ok(None) };
        if v.len() != 1 {
            return Err(self.error(line, format!("'{name}' takes one number, got {}", v.len())));
        }
        let f = v[0] as f32;
        if !f.is_finite() {
            return Err(self.error(line, format!("'{name}' = {} is out of range", v[0])));
        }
        Ok(Some(f))
    }

    pub fn float_or(&mut self, name: &str, default: f32) -> Result<f32, SceneError> {
        Ok(self.float(name)?.unwrap_or(default))
    }

    pub fn int(&mut self, name: &str) -> Result<Option<(i64, usize)>, SceneError> {
        let Some((v, line)) = self.numbers(name, &["integer"])? else { return Ok(None) };
        if v.len() != 1 || v[0].fract() != 0.0 {
            return Err(self.error(line, format!("'{name}' takes one integer")));
        }
        Ok(Some((v[0] as i64, line)))
    }

    /// Integers (mesh indices): each a whole number in [0, 2³²).
    pub fn indices(&mut self, name: &str) -> Result<Option<(Vec<u32>, usize)>, SceneError> {
        let Some((v, line)) = self.numbers(name, &["integer"])? else { return Ok(None) };
        let mut out = Vec::with_capacity(v.len());
        for x in v {
            if x.fract() != 0.0 || !(0.0..4294967295.0).contains(&x) {
                return Err(self.error(line, format!("'{name}': {x} is not a vertex index")));
            }
            out.push(x as u32);
        }
        Ok(Some((out, line)))
    }

    pub fn boolean(&mut self, name: &str) -> Result<Option<bool>, SceneError> {
        let Some(p) = self.take(name) else { return Ok(None) };
        match p.values {
            Values::Bool(v) if v.len() == 1 => Ok(Some(v[0])),
            _ => Err(self.error(p.line, format!("'{name}' must be one bool (true or false)"))),
        }
    }

    pub fn string(&mut self, name: &str) -> Result<Option<(String, usize)>, SceneError> {
        let Some(p) = self.take(name) else { return Ok(None) };
        match p.values {
            Values::Str(mut v) if v.len() == 1 && matches!(p.ty.as_str(), "string" | "texture" | "spectrum") => {
                Ok(Some((v.remove(0), p.line)))
            }
            _ => Err(self.error(p.line, format!("'{name}' must be one string"))),
        }
    }

    /// The string values of parameter `name` (of any type), without marking it read.
    pub fn peek_strings(&self, name: &str) -> Vec<&str> {
        match self.items.iter().find(|p| p.name == name).map(|p| &p.values) {
            Some(Values::Str(v)) => v.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The texture names the `texture` parameters refer to, without marking them read.
    pub fn texture_refs(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter(|p| p.ty == "texture").filter_map(|p| match &p.values {
            Values::Str(v) => v.first().map(String::as_str),
            _ => None,
        })
    }

    /// Marks every parameter read (for plugins that are replaced wholesale, with a warning).
    pub fn ignore_all(&mut self) {
        for p in self.items.iter_mut() {
            p.used = true;
        }
    }

    /// Warnings (file:line) for the parameters nobody read.
    pub fn finish(self, warnings: &mut Vec<String>) {
        for p in self.items.iter().filter(|p| !p.used) {
            warnings.push(format!(
                "{}:{}: {}: parameter \"{} {}\" is not supported by warpath and is ignored",
                self.path.display(),
                p.line,
                self.what,
                p.ty,
                p.name
            ));
        }
    }
}
