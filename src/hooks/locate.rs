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

    let mut i = 0;
    while i < bytes.len() {
        // Fast paths over bytes that cannot change anything: log text up to the next bracket,
        // and the plain characters of the only open string (it began on this line, so the line
        // is already not blank).
        if phases.is_empty() {
            let Some(next) = bytes[i..].iter().position(|&b| b == b'{' || b == b'[') else {
                break;
            };
            if next > 0 {
                let end = i + next;
                line_blank = match bytes[i..end].iter().rposition(|&b| b == b'\n') {
                    Some(n) => all_blank(text, i + n + 1, end),
                    None => line_blank && all_blank(text, i, end),
                };
                i = end;
            }
        } else if let [Phase {
            lex: Lex::Str { esc: Esc::None, .. },
            ..
        }] = phases[..]
        {
            let plain = bytes[i..]
                .iter()
                .position(|&b| matches!(b, b'"' | b'\\' | b'{' | b'[' | 0..=0x1f))
                .unwrap_or(bytes.len() - i);
            i += plain;
            if i == bytes.len() {
                break;
            }
        }
        let b = bytes[i];
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
                Step::Done => spare.push(phases.swap_remove(p).frames),
                Step::Failed => {
                    let phase = phases.swap_remove(p);
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
        i += 1;
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

/// Whether `text[from..to]` is blank; `from` may be inside a character already judged.
fn all_blank(text: &str, from: usize, to: usize) -> bool {
    let from = (from..to).find(|&k| text.is_char_boundary(k)).unwrap_or(to);
    text[from..to].chars().all(is_blank)
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
                // (A digit after a leading zero, `01`, then fails as a missing comma.)
                let complete = matches!(at, Num::Zero | Num::Int | Num::Frac | Num::Exp);
                if !complete || !in_range(&bytes[start..i]) {
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
/// as Rust's does, so the two agree on which those are. Without an exponent, fewer than 300
/// digits stay far below `f64::MAX` (about 1.8e308): no need to parse those.
fn in_range(number: &[u8]) -> bool {
    if number.len() < 300 && !number.iter().any(|&b| b == b'e' || b == b'E') {
        return true;
    }
    std::str::from_utf8(number)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some_and(f64::is_finite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::discover::Profile;
    use crate::hooks::output;
    use proptest::prelude::*;
    use serde_json::Value;

    /// The reference: from every `{` or `[`, the value serde_json reads there (if it reads
    /// one), minus those inside another. Slow, and obviously right.
    fn oracle(text: &str) -> Vec<(usize, usize, Kind)> {
        let mut valid = Vec::new();
        for (start, _) in text.match_indices(['{', '[']) {
            let mut values =
                serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
            let kind = match values.next() {
                Some(Ok(Value::Object(_))) => Kind::Object,
                Some(Ok(Value::Array(_))) => Kind::Array,
                _ => continue,
            };
            let end = start + values.byte_offset();
            assert!(serde_json::from_str::<Value>(&text[start..end]).is_ok());
            valid.push((start, end, kind));
        }
        let inside =
            |v: &(usize, usize, Kind), w: &(usize, usize, Kind)| v != w && w.0 <= v.0 && v.1 <= w.1;
        valid
            .iter()
            .filter(|v| !valid.iter().any(|w| inside(v, w)))
            .copied()
            .collect()
    }

    fn json_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-z {}\\[\\]:,]{0,6}",
            Just("\\\"".to_owned()),
            Just("\\\\".to_owned()),
            Just("\\n".to_owned()),
            Just("\\u00e9".to_owned()),
            Just("\\ud83d\\ude00".to_owned()),
            Just("\\ud800".to_owned()),
            Just("\\udc00x".to_owned()),
            Just("\\x".to_owned()),
            Just("é中".to_owned()),
            Just("\t".to_owned()),
        ];
        prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?",
            Just("1e999".to_owned()),
            Just("-1e309".to_owned()),
            Just("0e99999".to_owned()),
            Just("01".to_owned()),
            Just("1.".to_owned()),
            Just("-".to_owned()),
        ]
    }

    /// JSON text, mostly valid, compact or pretty (`sep`), with a few invalid tokens mixed in.
    fn json(sep: &'static str) -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            json_string(),
            number(),
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("null".to_owned()),
            Just("tru".to_owned()),
        ];
        leaf.prop_recursive(4, 24, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(move |items| format!("[{}]", items.join(&format!(",{sep}")))),
                prop::collection::vec((json_string(), inner), 0..4).prop_map(move |members| {
                    let members: Vec<String> = members
                        .iter()
                        .map(|(k, v)| format!("{k}:{sep}{v}"))
                        .collect();
                    format!("{{{sep}{}{sep}}}", members.join(&format!(",{sep}")))
                }),
            ]
        })
    }

    /// One piece of stdout: a log line, a value (maybe cut short), a verdict, deep nesting...
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        let text = prop_oneof![
            4 => "[a-z \"{}\\[\\]:,\\\\1]{0,16}",
            4 => json(""),
            3 => json("\n  "),
            2 => (json(" "), any::<prop::sample::Index>())
                .prop_map(|(s, cut)| s[..s.floor_char_boundary(cut.index(s.len() + 1))].to_owned()),
            3 => prop_oneof![Just("{\"cancel\":true}"), Just("{\"cancel\": false}")]
                .prop_map(str::to_owned),
            1 => (110usize..135, 110usize..135)
                .prop_map(|(open, close)| format!("{}{{}}{}", "[".repeat(open), "]".repeat(close))),
            1 => Just("HOOK_CONTROL\t{\"cancel\":false}".to_owned()),
            1 => Just("log: ".to_owned()),
        ];
        let noise: BoxedStrategy<&'static [u8]> = prop_oneof![
            Just(&b""[..]),
            Just(&b"\0"[..]),
            Just("\u{feff}".as_bytes()),
            Just(&b"\xff"[..]),
            Just(&b"\xc3"[..]),
            Just(&b" "[..]),
        ]
        .boxed();
        let end = prop_oneof![Just("\n"), Just("\r\n"), Just(""), Just(" ")];
        (noise, text, end)
            .prop_map(|(noise, text, end)| [noise, text.as_bytes(), end.as_bytes()].concat())
    }

    fn stdout() -> impl Strategy<Value = (Vec<u8>, bool)> {
        (
            prop::collection::vec(piece(), 1..7),
            prop::bool::weighted(0.1),
        )
            .prop_map(|(pieces, cut)| (pieces.concat(), cut))
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 3_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Issue 10 B1: the one-pass locator finds exactly the values the brute-force
        /// reference finds, and the parsed verdict is the reference's last object.
        #[test]
        fn the_locator_agrees_with_brute_force((bytes, cut) in stdout()) {
            let text = String::from_utf8_lossy(&bytes);
            let body = if cut {
                match text.find('\n') { Some(n) => &text[n + 1..], None => "" }
            } else {
                &text[..]
            };
            let expected = oracle(body);
            let found: Vec<(usize, usize, Kind)> =
                scan(body).values.iter().map(|v| (v.start, v.end, v.kind)).collect();
            prop_assert_eq!(&found, &expected, "{:?}", body);

            let last = expected.iter().rev().find(|v| v.2 == Kind::Object);
            let object = last.map(|v| match serde_json::from_str::<Value>(&body[v.0..v.1]) {
                Ok(Value::Object(map)) => map,
                _ => unreachable!("the oracle kept only objects that parse"),
            });
            let verdict = output::parse(&bytes, cut, Profile::Extension);
            let cancel = object.as_ref().is_some_and(|o| o.get("cancel") == Some(&Value::Bool(true)));
            prop_assert_eq!(&verdict.object, &object, "{:?}", body);
            prop_assert_eq!(verdict.cancel, cancel, "{:?}", body);
        }
    }

    #[test]
    fn a_bracket_inside_a_broken_string_still_starts_a_value() {
        let values = scan("log: [\"x {\"cancel\":true}").values;
        assert_eq!(
            values,
            vec![Span {
                start: 9,
                end: 24,
                kind: Kind::Object
            }]
        );
    }

    #[test]
    fn values_that_overlap_are_both_kept() {
        // `["{"]` is an array; `{"]":1}` starting inside it is an object: neither holds the other.
        let found: Vec<_> = scan("[\"{\"]\":1}")
            .values
            .iter()
            .map(|v| (v.start, v.end))
            .collect();
        assert_eq!(found, vec![(0, 5), (2, 9)]);
        assert_eq!(oracle("[\"{\"]\":1}").len(), 2);
    }
}
