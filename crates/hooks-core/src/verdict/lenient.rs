//! JSON as hooks really print it: what `JSON.parse` accepts (a lone UTF-16 surrogate escape,
//! numbers beyond a 64-bit float) and what Python's `json.dumps` prints by default (`NaN`,
//! `Infinity`, `-Infinity`), read into serde_json values, with a note for each oddity.
//!
//! serde_json refuses all of these, so the text is first rewritten into strict JSON: a lone
//! surrogate escape becomes `\ufffd` (U+FFFD), every other oddity `null`, the value
//! `JSON.stringify` writes for a number it cannot print. The rewrite is lexical (strings are
//! skipped escape-aware), so it also works on text that is not valid JSON: in
//! [`Mode::SameLength`] every replacement keeps its length, so serde_json's error positions
//! still point into the original text.

use std::borrow::Cow;

use serde_json::Value;

/// How oddities are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Into the values they are read as: `null`, or U+FFFD for a lone surrogate.
    Values,
    /// Into valid JSON of the same length (`0` and spaces), for error positions only.
    SameLength,
}

/// The kinds of text serde_json refuses that a hook's verdict may still hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oddity {
    /// `\ud83d` with no trailing surrogate after it (or a trailing one alone).
    LoneSurrogate,
    /// A number whose magnitude is beyond a 64-bit float (`1e400`).
    OutOfRange,
    /// `NaN`, `Infinity` or `-Infinity`.
    NotJson,
}

/// Where an oddity first occurred, and how many of its kind there were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    /// The text as printed (`NaN`, `1e400`, `\ud83d`).
    pub token: String,
    /// Where it is in the value: `score`, `data.items[3]`; empty at the top level.
    pub path: String,
    /// How many oddities of this kind the value held.
    pub count: usize,
}

/// The oddities met while reading one value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    /// [`Oddity::LoneSurrogate`]s.
    pub lone_surrogate: Option<Spot>,
    /// [`Oddity::OutOfRange`] numbers.
    pub out_of_range: Option<Spot>,
    /// [`Oddity::NotJson`] words.
    pub not_json: Option<Spot>,
}

impl Notes {
    /// Whether the value held no oddity.
    pub fn is_empty(&self) -> bool {
        self.lone_surrogate.is_none() && self.out_of_range.is_none() && self.not_json.is_none()
    }

    /// Counts one oddity; `path` is only built for the first of its kind.
    pub fn add(&mut self, oddity: Oddity, token: &str, path: impl FnOnce() -> String) {
        let slot = match oddity {
            Oddity::LoneSurrogate => &mut self.lone_surrogate,
            Oddity::OutOfRange => &mut self.out_of_range,
            Oddity::NotJson => &mut self.not_json,
        };
        match slot {
            Some(spot) => spot.count += 1,
            None => {
                *slot = Some(Spot {
                    token: token.to_owned(),
                    path: path(),
                    count: 1,
                })
            }
        }
    }

    /// Adds `other`'s notes, found inside the field `prefix`.
    pub fn absorb(&mut self, other: Notes, prefix: &str) {
        let pairs = [
            (&mut self.lone_surrogate, other.lone_surrogate),
            (&mut self.out_of_range, other.out_of_range),
            (&mut self.not_json, other.not_json),
        ];
        for (mine, theirs) in pairs {
            let Some(theirs) = theirs else { continue };
            match mine {
                Some(mine) => mine.count += theirs.count,
                None => {
                    *mine = Some(Spot {
                        path: join_path(prefix, &theirs.path),
                        ..theirs
                    })
                }
            }
        }
    }

    /// One sentence per kind of oddity, for the hook author.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(spot) = &self.lone_surrogate {
            out.push(format!(
                "printed a lone UTF-16 surrogate escape {}{} (a JavaScript string cut in the middle of an emoji?), which is not a character; it was read as U+FFFD: cut strings between characters, for example with Array.from(text).slice(...)",
                spot.token,
                place(spot)
            ));
        }
        if let Some(spot) = &self.out_of_range {
            out.push(format!(
                "printed the number {}{}, beyond the range of a 64-bit float (JSON.parse reads it as Infinity); it was read as null: print a smaller number or a string",
                spot.token,
                place(spot)
            ));
        }
        if let Some(spot) = &self.not_json {
            out.push(format!(
                "printed {}{}, which is not JSON (Python's json.dumps writes it for a float that is not a number or infinite); it was read as null: print null or a string instead, or pass allow_nan=False to json.dumps to catch it",
                spot.token,
                place(spot)
            ));
        }
        out
    }
}

/// ` in "path"`, and how many more there were.
fn place(spot: &Spot) -> String {
    let at = if spot.path.is_empty() {
        String::new()
    } else {
        format!(" in \"{}\"", spot.path)
    };
    match spot.count {
        0 | 1 => at,
        n => format!("{at} (and {} more like it)", n - 1),
    }
}

fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

/// Reads one JSON value leniently: `text` holds exactly the value (blanks around it allowed).
pub fn parse_value(text: &str) -> Result<(Value, Notes), serde_json::Error> {
    let (strict, notes) = normalize(text, Mode::Values);
    let value = serde_json::from_str::<Value>(&strict)?;
    Ok((value, notes))
}

/// Reads the first JSON value of `text` leniently (blanks before it allowed): the value, the
/// byte offset where it ends, and its notes.
pub fn parse_first(text: &str) -> Result<(Value, usize, Notes), serde_json::Error> {
    let (positional, _) = normalize(text, Mode::SameLength);
    // (Read as values: serde_json words its errors for `IgnoredAny` differently.)
    let mut stream = serde_json::Deserializer::from_str(&positional).into_iter::<Value>();
    match stream.next() {
        Some(Ok(_)) => {
            let end = stream.byte_offset();
            let (value, notes) = parse_value(&text[..end])?;
            Ok((value, end, notes))
        }
        Some(Err(err)) => Err(err),
        // Blanks only: serde_json's own "EOF while parsing a value".
        None => serde_json::from_str::<Value>(&positional).map(|v| (v, 0, Notes::default())),
    }
}

/// The error serde_json gives for `text`, oddities aside (`None` if it is valid).
pub fn error_of(text: &str) -> Option<serde_json::Error> {
    let (positional, _) = normalize(text, Mode::SameLength);
    serde_json::from_str::<Value>(&positional).err()
}

/// How deeply `text`'s brackets nest (strings skipped, escape-aware), and where the first
/// bracket that opens at depth 0 is closed again, if it is. Brackets only: it says nothing of
/// validity. serde_json stops at 128 levels; this is how a caller tells that limit from an error.
pub fn nesting(text: &str) -> (usize, Option<usize>) {
    let bytes = text.as_bytes();
    let (mut depth, mut deepest, mut first_end) = (0usize, 0usize, None);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && first_end.is_none() {
                    first_end = Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (deepest, first_end)
}

/// One level of the value being rewritten, for naming where an oddity is.
enum Level {
    /// An object, and the raw text (quotes included) of its current key.
    Object {
        key: Option<(usize, usize)>,
    },
    Array {
        index: usize,
    },
}

/// Rewrites the oddities of `text` (see the module comment); borrows when there are none.
pub fn normalize(text: &str, mode: Mode) -> (Cow<'_, str>, Notes) {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut notes = Notes::default();
    let mut levels: Vec<Level> = Vec::new();
    let mut expect_key = false;

    let path_of = |levels: &[Level]| -> String {
        let mut path = String::new();
        for level in levels {
            match level {
                Level::Object { key: Some((s, e)) } => {
                    let raw = &text[*s..*e];
                    let key = serde_json::from_str::<String>(raw)
                        .unwrap_or_else(|_| raw.trim_matches('"').to_owned());
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&key);
                }
                Level::Object { key: None } => {}
                Level::Array { index } => path.push_str(&format!("[{index}]")),
            }
        }
        path
    };
    let replace =
        |out: &mut Option<String>, copied: &mut usize, at: usize, len: usize, with: &str| {
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
            buf.push_str(&text[*copied..at]);
            buf.push_str(with);
            *copied = at + len;
        };

    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] != b'\\' {
                        i += 1;
                        continue;
                    }
                    if bytes.get(i + 1) != Some(&b'u') {
                        i += 2;
                        continue;
                    }
                    let Some(unit) = hex4(bytes, i + 2) else {
                        i += 2;
                        continue;
                    };
                    let paired = (0xD800..=0xDBFF).contains(&unit)
                        && bytes.get(i + 6) == Some(&b'\\')
                        && bytes.get(i + 7) == Some(&b'u')
                        && hex4(bytes, i + 8).is_some_and(|t| (0xDC00..=0xDFFF).contains(&t));
                    if paired {
                        i += 12;
                    } else if (0xD800..=0xDFFF).contains(&unit) {
                        notes.add(Oddity::LoneSurrogate, &text[i..i + 6], || path_of(&levels));
                        replace(&mut out, &mut copied, i, 6, "\\ufffd");
                        i += 6;
                    } else {
                        i += 6;
                    }
                }
                i = (i + 1).min(bytes.len());
                if expect_key {
                    if let Some(Level::Object { key }) = levels.last_mut() {
                        *key = Some((start, i));
                    }
                    expect_key = false;
                }
            }
            b'{' => {
                levels.push(Level::Object { key: None });
                expect_key = true;
                i += 1;
            }
            b'[' => {
                levels.push(Level::Array { index: 0 });
                expect_key = false;
                i += 1;
            }
            b'}' | b']' => {
                levels.pop();
                expect_key = false;
                i += 1;
            }
            b',' => {
                match levels.last_mut() {
                    Some(Level::Object { .. }) => expect_key = true,
                    Some(Level::Array { index }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' | b'N' | b'I' => {
                let rest = &text[i..];
                let word = ["-Infinity", "Infinity", "NaN"]
                    .into_iter()
                    .find(|w| rest.starts_with(w));
                let (len, oddity) = match word {
                    Some(w) => (w.len(), Some(Oddity::NotJson)),
                    None if bytes[i] == b'N' || bytes[i] == b'I' => (1, None),
                    None => {
                        let len = rest
                            .bytes()
                            .position(|b| {
                                !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                            })
                            .unwrap_or(rest.len());
                        let infinite = rest[..len].parse::<f64>().is_ok_and(|f| f.is_infinite());
                        (len, infinite.then_some(Oddity::OutOfRange))
                    }
                };
                if let Some(oddity) = oddity {
                    notes.add(oddity, &text[i..i + len], || path_of(&levels));
                    let with = match mode {
                        Mode::Values => Cow::Borrowed("null"),
                        Mode::SameLength => Cow::Owned(format!("0{}", " ".repeat(len - 1))),
                    };
                    replace(&mut out, &mut copied, i, len, &with);
                }
                i += len;
            }
            _ => i += 1,
        }
    }
    match out {
        Some(mut buf) => {
            buf.push_str(&text[copied..]);
            (Cow::Owned(buf), notes)
        }
        None => (Cow::Borrowed(text), notes),
    }
}

/// The UTF-16 code unit written as 4 hex digits at `bytes[at..]`.
fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    let mut unit = 0u16;
    for &d in digits {
        unit = unit << 4 | (d as char).to_digit(16)? as u16;
    }
    Some(unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_json_is_borrowed_untouched() {
        let text = r#"{"a": [1, -2.5e3, "x\"\\u00e9 NaN"], "b": null}"#;
        let (out, notes) = normalize(text, Mode::Values);
        assert!(matches!(out, Cow::Borrowed(_)));
        assert!(notes.is_empty());
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        let (v, notes) =
            parse_value(r#"{"m": "stop \ud83d", "t": "\udc00x", "ok": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(
            v,
            json!({"m": "stop \u{fffd}", "t": "\u{fffd}x", "ok": "😀"})
        );
        let spot = notes.lone_surrogate.unwrap();
        assert_eq!(
            (spot.token.as_str(), spot.path.as_str(), spot.count),
            ("\\ud83d", "m", 2)
        );
        // An escaped backslash before `u` is no escape.
        let (v, notes) = parse_value(r#"["\\ud800"]"#).unwrap();
        assert_eq!(v, json!(["\\ud800"]));
        assert!(notes.is_empty());
    }

    #[test]
    fn numbers_beyond_a_float_and_python_words_are_null() {
        let (v, notes) = parse_value(
            r#"{"cancel": true, "score": NaN, "d": {"hi": [1, Infinity, -Infinity]}, "big": 1e400, "neg": -1E+309, "tiny": 1e-400}"#,
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"cancel": true, "score": null, "d": {"hi": [1, null, null]}, "big": null, "neg": null, "tiny": 0.0})
        );
        let words = notes.not_json.unwrap();
        assert_eq!(
            (words.token.as_str(), words.path.as_str(), words.count),
            ("NaN", "score", 3)
        );
        let big = notes.out_of_range.unwrap();
        assert_eq!(
            (big.token.as_str(), big.path.as_str(), big.count),
            ("1e400", "big", 2)
        );
        // 400 digits without an exponent overflow too.
        let (v, notes) = parse_value(&format!("[{}]", "9".repeat(400))).unwrap();
        assert_eq!(v, json!([null]));
        assert_eq!(notes.out_of_range.unwrap().path, "[0]");
    }

    #[test]
    fn same_length_rewrites_keep_error_positions() {
        let text = "{\"a\": NaN, \"b\": \"\\ud800\",\n \"c\" 1}";
        let (out, _) = normalize(text, Mode::SameLength);
        assert_eq!(out.len(), text.len());
        let err = error_of(text).unwrap();
        assert_eq!((err.line(), err.column()), (2, 6), "{err}");
        assert!(error_of("{\"a\": -Infinity}").is_none());
    }

    #[test]
    fn the_first_value_and_where_it_ends() {
        let (v, end, notes) = parse_first(" {\"cancel\": true, \"x\": NaN} trailing").unwrap();
        assert_eq!(v, json!({"cancel": true, "x": null}));
        assert_eq!(end, 27);
        assert!(notes.not_json.is_some());
        assert!(parse_first("   ").is_err());
        assert!(parse_first("{\"a\": tru}").is_err());
    }

    /// Issue 18 B1: depth is counted without recursion, whatever it is.
    #[test]
    fn nesting_is_counted_in_a_loop() {
        assert_eq!(nesting(r#" {"a": "[{\"", "b": [[]]} [1]"#), (3, Some(25)));
        assert_eq!(nesting("[[ no end"), (2, None));
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert_eq!(nesting(&deep), (1_000_000, Some(2_000_000)));
    }

    #[test]
    fn each_kind_of_oddity_gets_one_sentence_naming_it() {
        let (_, notes) = parse_value(r#"{"e": "\ud83d", "n": NaN, "m": NaN, "b": 1e999}"#).unwrap();
        let warnings = notes.warnings();
        assert_eq!(warnings.len(), 3);
        assert!(warnings[0].contains("\\ud83d in \"e\""), "{}", warnings[0]);
        assert!(warnings[1].contains("1e999 in \"b\""), "{}", warnings[1]);
        assert!(
            warnings[2].contains("NaN in \"n\" (and 1 more like it)"),
            "{}",
            warnings[2]
        );
        let mut all = Notes::default();
        all.absorb(notes, "overrideInput");
        assert_eq!(all.not_json.unwrap().path, "overrideInput.n");
    }
}
