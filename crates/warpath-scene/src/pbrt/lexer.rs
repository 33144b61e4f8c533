//! The pbrt-v4 tokenizer: quoted strings (with `\"`, `\\`, `\n`, `\t` escapes), numbers,
//! bare words (directives, `true`/`false`), `[` and `]`, and `#` comments to the end of the
//! line. Every token carries its line; malformed input (an unterminated string, a stray
//! byte) is an error at its line. The lexer always advances, so it cannot hang.

use crate::SceneError;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A bare word: a directive name, or `true`/`false`.
    Word(String),
    /// A quoted string, escapes resolved.
    Str(String),
    Num(f64),
    Open,
    Close,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub line: usize,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("'{w}'"),
            Tok::Str(s) => format!("the string \"{}\"", s.chars().take(40).collect::<String>()),
            Tok::Num(n) => format!("the number {n}"),
            Tok::Open => "'['".into(),
            Tok::Close => "']'".into(),
        }
    }
}

pub(crate) struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
    pub path: PathBuf,
    peeked: Option<Option<Token>>,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str, path: &Path) -> Self {
        Lexer { text: text.as_bytes(), pos: 0, line: 1, path: path.to_path_buf(), peeked: None }
    }

    pub fn error(&self, line: usize, message: impl Into<String>) -> SceneError {
        SceneError::Parse { path: self.path.clone(), line, message: message.into() }
    }

    pub fn peek(&mut self) -> Result<Option<&Token>, SceneError> {
        if self.peeked.is_none() {
            let t = self.scan()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().and_then(|t| t.as_ref()))
    }

    pub fn next(&mut self) -> Result<Option<Token>, SceneError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.scan(),
        }
    }

    fn scan(&mut self) -> Result<Option<Token>, SceneError> {
        let t = self.text;
        loop {
            while self.pos < t.len() && t[self.pos].is_ascii_whitespace() {
                if t[self.pos] == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            if self.pos < t.len() && t[self.pos] == b'#' {
                while self.pos < t.len() && t[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
        if self.pos >= t.len() {
            return Ok(None);
        }
        let line = self.line;
        let c = t[self.pos];
        let tok = match c {
            b'[' => {
                self.pos += 1;
                Tok::Open
            }
            b']' => {
                self.pos += 1;
                Tok::Close
            }
            b'"' => {
                self.pos += 1;
                let mut bytes = Vec::new();
                loop {
                    if self.pos >= t.len() {
                        return Err(self.error(line, "unterminated string (no closing '\"')"));
                    }
                    let b = t[self.pos];
                    self.pos += 1;
                    match b {
                        b'"' => break,
                        b'\n' => {
                            return Err(self.error(line, "a string runs past the end of its line (no closing '\"')"));
                        }
                        b'\\' => {
                            let Some(&e) = t.get(self.pos) else {
                                return Err(self.error(line, "unterminated string (ends in '\\')"));
                            };
                            self.pos += 1;
                            bytes.push(match e {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'r' => b'\r',
                                b'b' => 8,
                                b'f' => 12,
                                other => other,
                            });
                        }
                        other => bytes.push(other),
                    }
                }
                Tok::Str(String::from_utf8_lossy(&bytes).into_owned())
            }
            _ => {
                let start = self.pos;
                while self.pos < t.len() {
                    let b = t[self.pos];
                    if b.is_ascii_whitespace() || matches!(b, b'"' | b'[' | b']' | b'#') {
                        break;
                    }
                    self.pos += 1;
                }
                let word = String::from_utf8_lossy(&t[start..self.pos]).into_owned();
                if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.') {
                    let v: f64 = word.parse().map_err(|_| self.error(line, format!("'{word}' is not a number")))?;
                    if !v.is_finite() {
                        return Err(self.error(line, format!("'{word}' is not a finite number")));
                    }
                    Tok::Num(v)
                } else if c.is_ascii_alphabetic() {
                    Tok::Word(word)
                } else {
                    let shown: String = word.chars().take(20).collect();
                    return Err(self.error(
                        line,
                        format!("unexpected '{shown}' (expected a directive, a string, a number or '[')"),
                    ));
                }
            }
        };
        Ok(Some(Token { tok, line }))
    }
}
