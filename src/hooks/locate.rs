//! Where the JSON values are in a hook's stdout: one linear pass that lists every complete
//! JSON object or array that is not inside another one, whatever log text surrounds them.
//!
//! The rule (a value is "found" exactly when a JSON parser started at its first bracket accepts
//! it) is what a brute-force search would give: try serde_json on every slice of stdout that
//! starts with `{` or `[`, keep the values that parse, drop those inside another. This module
//! gets the same answer in one pass:
//!
//! - Outside any value, text is log text: quotes there are not strings, only `{` and `[` count.
//! - Each bracket starts a parse. A parse that reaches a bracket where JSON allows a value
//!   nests it (the two parses agree from there on); the parses that share a stack form a
//!   *phase*. An error in a phase's innermost value is an error for every enclosing one, so
//!   the whole phase ends at once.
//! - A bracket inside a phase's string still starts a parse (`log: ["x {"cancel":true}` holds a
//!   valid object), in a second phase whose strings are where the first one's are not. Every
//!   later quote flips both, so two phases never both read a character as structure, and there
//!   are never more than two: linear time, whatever the input.
//! - serde_json stops at 128 nested levels; a phase keeps at most 127 open values and drops the
//!   outermost when a 128th opens, since that one can no longer be valid.

use std::collections::VecDeque;

/// The deepest nesting serde_json accepts: it rejects the 128th level.
pub const MAX_DEPTH: usize = 127;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
}

/// A complete JSON value: `text[start..end]`, from its opening to its closing bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

/// A bracket that began a line (only blanks before it on its line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opener {
    pub at: usize,
    pub kind: Kind,
}

/// What one pass over stdout found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Every complete value not inside another complete value, in order.
    pub values: Vec<Span>,
    /// The first line-opening value that stdout ended inside (it never closed), if any.
    pub unclosed: Option<Opener>,
    /// How many line-opening values stdout ended inside.
    pub unclosed_lines: usize,
    /// Where a value first opened 128 levels deep (serde_json's limit).
    pub too_deep: Option<usize>,
    /// The last line-opening value that turned out not to be JSON after a valid start.
    pub broken: Option<Opener>,
}

/// Characters that never matter around a verdict: whitespace, NUL, and the UTF-8 byte-order
/// mark that Windows PowerShell 5.1 writes at the start of its output.
pub fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\0' || c == '\u{feff}'
}

/// Lists the complete JSON values in `text` (see the module comment for the rule).
pub fn scan(text: &str) -> Scan {
    let bytes = text.as_bytes();
    let mut out = Scan::default();
    let mut phases: Vec<Phase> = Vec::with_capacity(2);
    let mut spare: Vec<VecDeque<Frame>> = Vec::new();
    let mut line_blank = true;

    for (i, &b) in bytes.iter().enumerate() {
        let line_start = line_blank;
        if b == b'\n' {
            line_blank = true;
        } else if line_blank && !starts_blank(text, i) {
            line_blank = false;
        }

        let mut nested = false;
        let mut p = 0;
        while p < phases.len() {
            match phases[p].step(bytes, i, b, line_start, &mut out) {
                Step::Alive => p += 1,
                Step::Nested => {
                    nested = true;
                    p += 1;
                }
                Step::Done => spare.push(phases.remove(p).frames),
                Step::Failed => {
                    let phase = phases.remove(p);
                    // `[INFO] ...` fails at its first token: a log line, not broken JSON.
                    let first_token = phase.frames.len() == 1
                        && matches!(phase.lex, Lex::Expect(Want::KeyOrEnd | Want::ValueOrEnd));
                    let first = phase.frames.iter().find(|f| f.line_start);
                    if let Some(first) = first.filter(|_| !first_token) {
                        if out.broken.is_none_or(|o| o.at < first.start) {
                            out.broken = Some(Opener {
                                at: first.start,
                                kind: first.kind,
                            });
                        }
                    }
                    spare.push(phase.frames);
                }
            }
        }
        if !nested && (b == b'{' || b == b'[') {
            let mut frames = spare.pop().unwrap_or_default();
            frames.clear();
            let mut phase = Phase {
                frames,
                lex: Lex::Expect(Want::Value),
                dropped: None,
                dropped_lines: 0,
            };
            phase.open(i, kind_of(b), line_start, &mut out);
            phases.push(phase);
        }
        debug_assert!(phases.len() <= 2, "more than two phases at byte {i}");
    }

    // Stdout ended inside these values: the outer ones dropped for depth never closed either.
    for phase in &phases {
        let live = phase.frames.iter().filter(|f| f.line_start);
        out.unclosed_lines += phase.dropped_lines + live.clone().count();
        let first = phase.dropped.or_else(|| {
            live.clone().next().map(|f| Opener {
                at: f.start,
                kind: f.kind,
            })
        });
        if let Some(first) = first {
            if out.unclosed.is_none_or(|o| first.at < o.at) {
                out.unclosed = Some(first);
            }
        }
    }
    out
}

/// Whether the character starting at byte `i` is blank (continuation bytes belong to a
/// character already judged, so they keep the line as it was).
fn starts_blank(text: &str, i: usize) -> bool {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return b.is_ascii_whitespace() || b == 0x0b || b == 0;
    }
    if b & 0xC0 == 0x80 {
        return true;
    }
    text.get(i..)
        .and_then(|rest| rest.chars().next())
        .is_some_and(is_blank)
}

fn kind_of(b: u8) -> Kind {
    if b == b'{' {
        Kind::Object
    } else {
        Kind::Array
    }
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    start: usize,
    kind: Kind,
    line_start: bool,
}

/// Parses that share one stack: `frames` holds the values still open, outermost first.
struct Phase {
    frames: VecDeque<Frame>,
    lex: Lex,
    /// The first line-opening value dropped for depth, and how many were.
    dropped: Option<Opener>,
    dropped_lines: usize,
}

/// Where the innermost open value is, token-wise.
#[derive(Debug, Clone, Copy)]
enum Lex {
    Expect(Want),
    Str { key: bool, esc: Esc },
    Num { start: usize, at: Num },
    Word { word: &'static [u8], next: usize },
}

/// Which token the grammar allows next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    KeyOrEnd,
    Key,
    Colon,
    ValueOrEnd,
    Value,
    CommaOrEnd,
}

/// Inside a string: plain text, after `\`, in the 4 hex digits of `\u`, or after a leading
/// surrogate, which serde_json requires to be followed by `\u` and a trailing one.
#[derive(Debug, Clone, Copy)]
enum Esc {
    None,
    Backslash,
    Hex { left: u8, code: u16, trail: bool },
    AfterLead,
    AfterLeadBackslash,
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, by the part just read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ExpSign,
    Exp,
}

enum Step {
    Alive,
    /// The byte was a bracket that opened a value inside this phase.
    Nested,
    /// The outermost open value closed: nothing is left open.
    Done,
    /// The byte is not JSON here: every open value of the phase is invalid.
    Failed,
}

impl Phase {
    fn step(&mut self, bytes: &[u8], i: usize, b: u8, line_start: bool, out: &mut Scan) -> Step {
        match self.lex {
            Lex::Str { key, esc } => self.string(key, esc, b),
            Lex::Word { word, next } => {
                if word[next] != b {
                    Step::Failed
                } else if next + 1 == word.len() {
                    self.lex = Lex::Expect(Want::CommaOrEnd);
                    Step::Alive
                } else {
                    self.lex = Lex::Word {
                        word,
                        next: next + 1,
                    };
                    Step::Alive
                }
            }
            Lex::Num { start, at } => {
                let next = match (at, b) {
                    (Num::Minus, b'0') => Some(Num::Zero),
                    (Num::Minus, b'1'..=b'9') => Some(Num::Int),
                    (Num::Int, b'0'..=b'9') => Some(Num::Int),
                    (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
                    (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
                    (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::E),
                    (Num::E, b'+' | b'-') => Some(Num::ExpSign),
                    (Num::E | Num::ExpSign | Num::Exp, b'0'..=b'9') => Some(Num::Exp),
                    _ => None,
                };
                if let Some(at) = next {
                    self.lex = Lex::Num { start, at };
                    return Step::Alive;
                }
                let complete = matches!(at, Num::Zero | Num::Int | Num::Frac | Num::Exp);
                // A digit after a leading zero (`01`) is an error, as in serde_json.
                if !complete || b.is_ascii_digit() || !in_range(&bytes[start..i]) {
                    return Step::Failed;
                }
                self.structure(Want::CommaOrEnd, i, b, line_start, out)
            }
            Lex::Expect(want) => self.structure(want, i, b, line_start, out),
        }
    }

    fn string(&mut self, key: bool, esc: Esc, b: u8) -> Step {
        let esc = match esc {
            Esc::None => match b {
                b'"' => {
                    self.lex = Lex::Expect(if key { Want::Colon } else { Want::CommaOrEnd });
                    return Step::Alive;
                }
                b'\\' => Esc::Backslash,
                // Raw control characters (a newline above all) never occur in a JSON string.
                0..=0x1f => return Step::Failed,
                _ => Esc::None,
            },
            Esc::Backslash => match b {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Esc::None,
                b'u' => Esc::Hex {
                    left: 4,
                    code: 0,
                    trail: false,
                },
                _ => return Step::Failed,
            },
            Esc::Hex { left, code, trail } => {
                let Some(digit) = (b as char).to_digit(16) else {
                    return Step::Failed;
                };
                let code = code << 4 | digit as u16;
                match (left, trail, code) {
                    (2.., _, _) => Esc::Hex {
                        left: left - 1,
                        code,
                        trail,
                    },
                    (_, true, 0xDC00..=0xDFFF) => Esc::None,
                    (_, true, _) | (_, false, 0xDC00..=0xDFFF) => return Step::Failed,
                    (_, false, 0xD800..=0xDBFF) => Esc::AfterLead,
                    (_, false, _) => Esc::None,
                }
            }
            Esc::AfterLead if b == b'\\' => Esc::AfterLeadBackslash,
            Esc::AfterLeadBackslash if b == b'u' => Esc::Hex {
                left: 4,
                code: 0,
                trail: true,
            },
            Esc::AfterLead | Esc::AfterLeadBackslash => return Step::Failed,
        };
        self.lex = Lex::Str { key, esc };
        Step::Alive
    }

    /// A byte between tokens, where the grammar wants `want`.
    fn structure(&mut self, want: Want, i: usize, b: u8, line_start: bool, out: &mut Scan) -> Step {
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            self.lex = Lex::Expect(want);
            return Step::Alive;
        }
        let top = self.frames.back().map(|f| f.kind);
        let next = match (want, b) {
            (Want::KeyOrEnd | Want::Key, b'"') => Lex::Str {
                key: true,
                esc: Esc::None,
            },
            (Want::KeyOrEnd, b'}') | (Want::CommaOrEnd, b'}') if top == Some(Kind::Object) => {
                return self.close(i, out)
            }
            (Want::ValueOrEnd, b']') | (Want::CommaOrEnd, b']') if top == Some(Kind::Array) => {
                return self.close(i, out)
            }
            (Want::Colon, b':') => Lex::Expect(Want::Value),
            (Want::CommaOrEnd, b',') => Lex::Expect(if top == Some(Kind::Object) {
                Want::Key
            } else {
                Want::Value
            }),
            (Want::Value | Want::ValueOrEnd, _) => return self.value(i, b, line_start, out),
            _ => return Step::Failed,
        };
        self.lex = next;
        Step::Alive
    }

    fn value(&mut self, i: usize, b: u8, line_start: bool, out: &mut Scan) -> Step {
        self.lex = match b {
            b'{' | b'[' => {
                self.open(i, kind_of(b), line_start, out);
                return Step::Nested;
            }
            b'"' => Lex::Str {
                key: false,
                esc: Esc::None,
            },
            b'-' => Lex::Num {
                start: i,
                at: Num::Minus,
            },
            b'0' => Lex::Num {
                start: i,
                at: Num::Zero,
            },
            b'1'..=b'9' => Lex::Num {
                start: i,
                at: Num::Int,
            },
            b't' => Lex::Word {
                word: b"true",
                next: 1,
            },
            b'f' => Lex::Word {
                word: b"false",
                next: 1,
            },
            b'n' => Lex::Word {
                word: b"null",
                next: 1,
            },
            _ => return Step::Failed,
        };
        Step::Alive
    }

    fn open(&mut self, i: usize, kind: Kind, line_start: bool, out: &mut Scan) {
        if self.frames.len() == MAX_DEPTH {
            // The outermost open value now holds 128 levels: serde_json would fail here.
            out.too_deep.get_or_insert(i);
            if let Some(outer) = self.frames.pop_front() {
                if outer.line_start {
                    self.dropped_lines += 1;
                    self.dropped.get_or_insert(Opener {
                        at: outer.start,
                        kind: outer.kind,
                    });
                }
            }
        }
        self.frames.push_back(Frame {
            start: i,
            kind,
            line_start,
        });
        self.lex = Lex::Expect(match kind {
            Kind::Object => Want::KeyOrEnd,
            Kind::Array => Want::ValueOrEnd,
        });
    }

    fn close(&mut self, i: usize, out: &mut Scan) -> Step {
        let Some(frame) = self.frames.pop_back() else {
            return Step::Failed;
        };
        // Values recorded earlier that this one contains are no longer maximal. Maximal values
        // never contain one another, so sorted by end they are sorted by start too.
        while out.values.last().is_some_and(|v| v.start >= frame.start) {
            out.values.pop();
        }
        out.values.push(Span {
            start: frame.start,
            end: i + 1,
            kind: frame.kind,
        });
        if self.frames.is_empty() {
            Step::Done
        } else {
            self.lex = Lex::Expect(Want::CommaOrEnd);
            Step::Alive
        }
    }
}

/// serde_json rejects numbers that overflow to infinity (`1e999`); its parse rounds exactly,
/// as Rust's does, so the two agree on which those are.
fn in_range(number: &[u8]) -> bool {
    std::str::from_utf8(number)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some_and(f64::is_finite)
}
