//! The JSON a hook reads on stdin: the caller's object, kept as JSON text, with the common
//! fields it left out appended.
//!
//! The input is never turned into a tree of values: an input nested 100,000 levels deep (which
//! `JSON.parse` builds happily) would overflow the stack of any recursive walk. One iterative
//! scan checks the text and finds its top-level keys; the missing fields are appended before
//! the final `}`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::discovery::Profile;
use crate::error::HookError;

/// The documented fields filled in when the caller left them out, in the order they are
/// appended.
const FILLED: [&str; 4] = ["hookName", "timestamp", "workspaceRoots", "model"];

/// One caller's input: compact JSON text (no whitespace outside strings) and what a scan
/// learnt about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookInput {
    text: String,
    shape: Shape,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `present[i]` says whether `FILLED[i]` is a top-level key.
    Object { present: [bool; 4], empty: bool },
    /// Not an object: what it is, for the error.
    Other(&'static str),
}

impl HookInput {
    /// From JSON text, for example `JSON.stringify`'s output. Any valid JSON (RFC 8259) of any
    /// depth is accepted; whitespace between tokens is removed so the hook gets one line.
    /// Fails for text that is not one JSON value, or a value that is not an object.
    pub fn from_json(text: String) -> Result<HookInput, HookError> {
        let scan = scan(text.as_bytes()).map_err(|why| {
            HookError::InvalidInput(format!(
                "the hook input is not valid JSON ({why}); pass one JSON object"
            ))
        })?;
        let input = HookInput::scanned(text, scan);
        input.check_object()?;
        Ok(input)
    }

    /// From a `serde_json::Value` (a convenience for Rust callers). A non-object is accepted
    /// here and refused by [`HookInput::complete`], like every other mistake in a run's call.
    pub fn from_value(value: Value) -> HookInput {
        // Serializing a Value cannot fail: its map keys are strings.
        let text = serde_json::to_string(&value).unwrap_or_else(|_| "null".to_owned());
        match scan(text.as_bytes()) {
            Ok(scan) => HookInput::scanned(text, scan),
            Err(_) => HookInput {
                text,
                shape: Shape::Other("invalid JSON"),
            },
        }
    }

    fn scanned(text: String, scan: Scan) -> HookInput {
        let text = if scan.spaced { compact(&text) } else { text };
        HookInput {
            text,
            shape: scan.shape,
        }
    }

    fn check_object(&self) -> Result<(), HookError> {
        match self.shape {
            Shape::Object { .. } => Ok(()),
            Shape::Other(kind) => Err(not_an_object(kind)),
        }
    }

    /// The caller's JSON text, compact.
    pub fn as_json(&self) -> &str {
        &self.text
    }

    /// Whether it is a JSON object (anything else is refused when a run completes it).
    pub fn is_object(&self) -> bool {
        matches!(self.shape, Shape::Object { .. })
    }

    /// The bytes written to stdin: the caller's JSON with `hookName`, `timestamp` (the given
    /// text, see [`timestamp`]), `workspaceRoots` and, in the `extension` profile, `model`
    /// appended where the caller did not set them, on one newline-terminated line. A field the
    /// caller set is never touched. The `cli` profile adds no `model`: no payload of the Cline
    /// SDK has one.
    pub fn complete(
        &self,
        profile: Profile,
        hook_name: &str,
        workspace_roots: &[PathBuf],
        timestamp: &str,
    ) -> Result<Vec<u8>, HookError> {
        let (present, empty) = match self.shape {
            Shape::Object { present, empty } => (present, empty),
            Shape::Other(kind) => return Err(not_an_object(kind)),
        };
        let roots: Vec<Value> = workspace_roots
            .iter()
            .map(|r| Value::from(r.to_string_lossy().into_owned()))
            .collect();
        let values = [
            Value::from(hook_name),
            Value::from(timestamp),
            Value::Array(roots),
            serde_json::json!({ "provider": "unknown", "slug": "unknown" }),
        ];
        // The text is a valid object, so it ends with `}`.
        let body = self.text.strip_suffix('}').unwrap_or(&self.text);
        let mut bytes = Vec::with_capacity(self.text.len() + 256);
        bytes.extend_from_slice(body.as_bytes());
        let mut first = empty;
        for ((name, value), set) in FILLED.iter().zip(values).zip(present) {
            if set || (*name == "model" && profile == Profile::Cli) {
                continue;
            }
            if !first {
                bytes.push(b',');
            }
            first = false;
            bytes.push(b'"');
            bytes.extend_from_slice(name.as_bytes());
            bytes.extend_from_slice(b"\":");
            // Strings and arrays of strings: serializing them cannot fail.
            bytes.extend_from_slice(value.to_string().as_bytes());
        }
        bytes.extend_from_slice(b"}\n");
        Ok(bytes)
    }
}

impl From<Value> for HookInput {
    fn from(value: Value) -> Self {
        HookInput::from_value(value)
    }
}

/// The `timestamp` filled in for a caller that left it out, `since_epoch` after the Unix
/// epoch: in the extension profile milliseconds as a string (`"1736654400000"`, the
/// contract's form); in the CLI profile the UTC time as `new Date().toISOString()` writes it
/// (`"2025-01-12T04:00:00.000Z"`), the form the Cline SDK fills. Pure.
pub fn timestamp(profile: Profile, since_epoch: Duration) -> String {
    let ms = since_epoch.as_millis();
    match profile {
        Profile::Extension => ms.to_string(),
        Profile::Cli => iso_8601(u64::try_from(ms).unwrap_or(u64::MAX)),
    }
}

/// `ms` milliseconds after the epoch as JavaScript's `toISOString` writes it: four digits of
/// year, or a sign and six past 9999.
fn iso_8601(ms: u64) -> String {
    let (days, in_day) = (ms / 86_400_000, ms % 86_400_000);
    let (year, month, day) = civil_from_days(days);
    let year = if year <= 9999 {
        format!("{year:04}")
    } else {
        format!("+{year:06}")
    };
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    format!("{year}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The proleptic Gregorian date `days` days after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

fn not_an_object(kind: &str) -> HookError {
    HookError::InvalidInput(format!("the hook input must be a JSON object, not {kind}"))
}

/// What one pass over JSON text found.
#[derive(Debug, PartialEq, Eq)]
struct Scan {
    shape: Shape,
    /// Whitespace between tokens (the text is not one compact line).
    spaced: bool,
}

/// Where a value may close, or what comes next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value (after `:`, after `,` in an array, or at the start).
    Value,
    /// A value or `]` (right after `[`).
    ValueOrClose,
    /// A key or `}` (right after `{`).
    KeyOrClose,
    /// A key (after `,` in an object).
    Key,
    Colon,
    CommaOrClose,
    End,
}

/// Checks that `b` is exactly one JSON value and describes it, in one linear pass with an
/// explicit stack (no recursion, so any depth is fine). Top-level keys are compared with the
/// filled fields' names after decoding their escapes.
fn scan(b: &[u8]) -> Result<Scan, String> {
    let mut stack: Vec<u8> = Vec::new();
    let mut expect = Expect::Value;
    let mut spaced = false;
    let mut present = [false; 4];
    let mut empty = true;
    let mut top: Option<u8> = None;
    let mut i = 0;
    loop {
        while let Some(&c) = b.get(i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            spaced = true;
            i += 1;
        }
        let Some(&c) = b.get(i) else {
            if expect == Expect::End {
                break;
            }
            return Err("it ends too early".to_owned());
        };
        let at = |what: &str| format!("{what} at byte {i}");
        match expect {
            Expect::End => return Err(at("unexpected text after the value")),
            Expect::Colon => {
                if c != b':' {
                    return Err(at("expected ':'"));
                }
                i += 1;
                expect = Expect::Value;
            }
            Expect::CommaOrClose => {
                let open = stack.last().copied();
                match (c, open) {
                    (b',', Some(b'{')) => expect = Expect::Key,
                    (b',', Some(_)) => expect = Expect::Value,
                    (b'}', Some(b'{')) | (b']', Some(b'[')) => {
                        stack.pop();
                        expect = after_value(&stack);
                    }
                    _ => return Err(at("expected ',' or a closing bracket")),
                }
                i += 1;
            }
            Expect::Key | Expect::KeyOrClose => {
                if c == b'}' && expect == Expect::KeyOrClose {
                    stack.pop();
                    expect = after_value(&stack);
                    i += 1;
                    continue;
                }
                if c != b'"' {
                    return Err(at("expected a key in double quotes"));
                }
                let end = string_end(b, i)?;
                if stack.len() == 1 {
                    empty = false;
                    let key = &b[i..end];
                    for (slot, name) in present.iter_mut().zip(FILLED) {
                        *slot = *slot || key_is(key, name);
                    }
                }
                i = end;
                expect = Expect::Colon;
            }
            Expect::Value | Expect::ValueOrClose => {
                if c == b']' && expect == Expect::ValueOrClose {
                    stack.pop();
                    expect = after_value(&stack);
                    i += 1;
                    continue;
                }
                top.get_or_insert(c);
                match c {
                    b'{' => {
                        stack.push(c);
                        expect = Expect::KeyOrClose;
                        i += 1;
                        continue;
                    }
                    b'[' => {
                        stack.push(c);
                        expect = Expect::ValueOrClose;
                        i += 1;
                        continue;
                    }
                    b'"' => i = string_end(b, i)?,
                    b't' => i = literal(b, i, b"true")?,
                    b'f' => i = literal(b, i, b"false")?,
                    b'n' => i = literal(b, i, b"null")?,
                    b'-' | b'0'..=b'9' => i = number_end(b, i)?,
                    _ => return Err(at("expected a value")),
                }
                expect = after_value(&stack);
            }
        }
    }
    let shape = match top {
        Some(b'{') => Shape::Object { present, empty },
        Some(b'[') => Shape::Other("an array"),
        Some(b'"') => Shape::Other("a string"),
        Some(b't' | b'f') => Shape::Other("a boolean"),
        Some(b'n') => Shape::Other("null"),
        _ => Shape::Other("a number"),
    };
    Ok(Scan { shape, spaced })
}

fn after_value(stack: &[u8]) -> Expect {
    if stack.is_empty() {
        Expect::End
    } else {
        Expect::CommaOrClose
    }
}

/// The index just past the string starting with the `"` at `start`.
fn string_end(b: &[u8], start: usize) -> Result<usize, String> {
    let mut i = start + 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => return Ok(i + 1),
            b'\\' => {
                match b.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => {
                        let hex = b.get(i + 2..i + 6).unwrap_or_default();
                        if hex.len() != 4 || !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(format!("a bad \\u escape at byte {i}"));
                        }
                        i += 6;
                    }
                    _ => return Err(format!("a bad escape at byte {i}")),
                }
                continue;
            }
            0..=0x1f => return Err(format!("a control character inside a string at byte {i}")),
            _ => {}
        }
        i += 1;
    }
    Err("a string that never closes".to_owned())
}

fn literal(b: &[u8], start: usize, word: &[u8]) -> Result<usize, String> {
    if b.get(start..start + word.len()) == Some(word) {
        Ok(start + word.len())
    } else {
        Err(format!("expected a value at byte {start}"))
    }
}

/// The index just past the number at `start`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn number_end(b: &[u8], start: usize) -> Result<usize, String> {
    let bad = || format!("a malformed number at byte {start}");
    let digits = |mut i: usize| {
        let from = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i, i > from)
    };
    let mut i = start;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i).0,
        _ => return Err(bad()),
    }
    if b.get(i) == Some(&b'.') {
        let (end, any) = digits(i + 1);
        if !any {
            return Err(bad());
        }
        i = end;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let (end, any) = digits(i);
        if !any {
            return Err(bad());
        }
        i = end;
    }
    Ok(i)
}

/// Whether the quoted key `raw` (escapes and all) spells `name`.
fn key_is(raw: &[u8], name: &str) -> bool {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains(&b'\\') {
        return inner == name.as_bytes();
    }
    // Rare: an escaped key. Decoding one string is not recursive.
    serde_json::from_slice::<String>(raw).is_ok_and(|key| key == name)
}

/// `text` without whitespace outside strings. Only called on text `scan` accepted.
fn compact(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for &c in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
        } else if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        } else if c == b'"' {
            in_string = true;
        }
        out.push(c);
    }
    // Only ASCII bytes were removed, so the rest is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn completed(input: &HookInput) -> Value {
        let bytes = input
            .complete(
                Profile::Extension,
                "PreToolUse",
                &["/w".into()],
                "1736654400000",
            )
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn fills_missing_common_fields() {
        let input = HookInput::from_value(json!({"preToolUse": {"tool": "x"}}));
        let map = completed(&input);
        assert_eq!(map["hookName"], "PreToolUse");
        assert_eq!(map["timestamp"], "1736654400000");
        assert_eq!(map["workspaceRoots"], json!(["/w"]));
        assert_eq!(
            map["model"],
            json!({"provider": "unknown", "slug": "unknown"})
        );
        assert_eq!(map["preToolUse"]["tool"], "x");
    }

    #[test]
    fn the_cli_profile_adds_no_model_as_no_sdk_payload_has_one() {
        let input = HookInput::from_value(json!({"preToolUse": {"tool": "x"}}));
        let bytes = input
            .complete(
                Profile::Cli,
                "PreToolUse",
                &["/w".into()],
                "2026-01-01T00:00:00.000Z",
            )
            .unwrap();
        let map: Value = serde_json::from_slice(&bytes).unwrap();
        let keys: Vec<&str> = map
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["preToolUse", "hookName", "timestamp", "workspaceRoots"]
        );
    }

    /// The ISO form is JavaScript's `new Date(ms).toISOString()`, checked against Node 20.
    #[test]
    fn the_cli_profile_fills_an_iso_timestamp_and_the_extension_milliseconds() {
        for (ms, iso) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_709_210_096_789, "2024-02-29T12:34:56.789Z"),
            (1_736_654_400_000, "2025-01-12T04:00:00.000Z"),
            (1_795_490_316_601, "2026-11-24T03:18:36.601Z"),
            (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "+010000-01-01T00:00:00.000Z"),
            (8_640_000_000_000_000, "+275760-09-13T00:00:00.000Z"),
        ] {
            let at = Duration::from_millis(ms);
            assert_eq!(timestamp(Profile::Cli, at), iso, "{ms}");
            assert_eq!(timestamp(Profile::Extension, at), ms.to_string());
        }
        // Sub-millisecond time is dropped, as a JavaScript Date has none.
        assert_eq!(
            timestamp(Profile::Cli, Duration::from_nanos(1_999_999)),
            "1970-01-01T00:00:00.001Z"
        );
        // Every day of four centuries (leap years and the century rules) against a day count.
        let mut date = (1970, 1, 1);
        for days in 0..146_097 {
            assert_eq!(civil_from_days(days), date, "{days}");
            let (y, m, d) = date;
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let length = match m {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            date = match (d < length, m < 12) {
                (true, _) => (y, m, d + 1),
                (false, true) => (y, m + 1, 1),
                (false, false) => (y + 1, 1, 1),
            };
        }
        // A timestamp the caller gave is kept, whatever its form.
        let given = HookInput::from_value(json!({"timestamp": 17}));
        let bytes = given
            .complete(
                Profile::Extension,
                "TaskStart",
                &[],
                "2026-01-01T00:00:00.000Z",
            )
            .unwrap();
        assert!(
            bytes.starts_with(b"{\"timestamp\":17,\"hookName\""),
            "{bytes:?}"
        );
    }

    #[test]
    fn appends_after_the_callers_members_and_keeps_their_bytes() {
        let input = HookInput::from_json(r#"{"a":1.50,"b":"é\u00e9"}"#.to_owned()).unwrap();
        let bytes = input
            .complete(Profile::Extension, "TaskStart", &[], "7")
            .unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "{\"a\":1.50,\"b\":\"é\\u00e9\",\"hookName\":\"TaskStart\",\"timestamp\":\"7\",\
             \"workspaceRoots\":[],\"model\":{\"provider\":\"unknown\",\"slug\":\"unknown\"}}\n"
        );
    }

    #[test]
    fn fills_an_empty_object_without_a_leading_comma() {
        let bytes = HookInput::from_json("{}".to_owned())
            .unwrap()
            .complete(Profile::Extension, "TaskStart", &[], "7")
            .unwrap();
        assert!(
            bytes.starts_with(b"{\"hookName\":\"TaskStart\","),
            "{bytes:?}"
        );
    }

    #[test]
    fn never_overwrites_what_the_caller_set() {
        let given = json!({"hookName": "tool_call", "timestamp": "2026-01-15T10:30:00Z", "workspaceRoots": [], "model": null});
        let map = completed(&HookInput::from_value(given.clone()));
        assert_eq!(map, given);
    }

    #[test]
    fn only_top_level_keys_count_and_escaped_keys_are_decoded() {
        let text = r#"{"nested":{"hookName":"x","model":1},"hook\u004eame":"mine"}"#;
        let map = completed(&HookInput::from_json(text.to_owned()).unwrap());
        assert_eq!(map["hookName"], "mine");
        assert_eq!(map["model"]["slug"], "unknown");
        assert_eq!(map["nested"]["hookName"], "x");
    }

    #[test]
    fn a_key_inside_a_string_value_is_not_a_key() {
        let text = r#"{"note":"\"hookName\":1, {\"model\":2}"}"#;
        let map = completed(&HookInput::from_json(text.to_owned()).unwrap());
        assert_eq!(map["hookName"], "PreToolUse");
        assert_eq!(map["model"]["provider"], "unknown");
    }

    #[test]
    fn refuses_non_objects() {
        for bad in [json!([1]), json!("x"), json!(null), json!(3), json!(true)] {
            let err = HookInput::from_value(bad.clone())
                .complete(Profile::Extension, "TaskStart", &[], "0")
                .unwrap_err();
            assert!(err.to_string().contains("must be a JSON object"), "{err}");
            let err = HookInput::from_json(bad.to_string()).unwrap_err();
            assert!(err.to_string().contains("must be a JSON object"), "{err}");
        }
    }

    #[test]
    fn refuses_text_that_is_not_json() {
        for bad in [
            "",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":-}",
            "{\"a\":tru}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12\"}",
            "{\"a\":\"\u{1}\"}",
            "{}{}",
            "{} x",
            "{\"a\":[1}",
            "{\"a\":{]}",
            "{'a':1}",
            "{\"a\":1 \"b\":2}",
        ] {
            let err = HookInput::from_json(bad.to_owned()).unwrap_err();
            assert!(err.to_string().contains("not valid JSON"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn pretty_text_becomes_one_line_with_strings_untouched() {
        let text = "{\n  \"a\": [ 1, 2 ],\r\n\t\"b\": \"x y\\\" z\"\n}";
        let bytes = HookInput::from_json(text.to_owned())
            .unwrap()
            .complete(Profile::Extension, "TaskStart", &[], "0")
            .unwrap();
        assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
        assert!(bytes.starts_with(br#"{"a":[1,2],"b":"x y\" z","#));
    }

    #[test]
    fn any_depth_is_fine() {
        // 100,000 levels: a recursive walk (or serde_json's 128-level limit) would fail here.
        let depth = 100_000;
        let text = format!("{{\"deep\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
        let input = HookInput::from_json(text.clone()).unwrap();
        let bytes = input
            .complete(Profile::Extension, "TaskStart", &[], "0")
            .unwrap();
        assert!(bytes.starts_with(text.trim_end_matches('}').as_bytes()));
        let unbalanced = format!(
            "{{\"deep\":{}1{}}}",
            "[".repeat(depth),
            "]".repeat(depth - 1)
        );
        assert!(HookInput::from_json(unbalanced).is_err());
    }

    #[test]
    fn numbers_survive_serialization_exactly() {
        // Found by fuzzing: without serde_json's float_roundtrip, reading this back gave a
        // neighbouring double, so a number could change between the caller and the hook.
        let text = r#"{"big": 2666666666666666666666666666666666666666666666666666666666666, "x": 0.30000000000000004}"#;
        let given: Value = serde_json::from_str(text).unwrap();
        let back = completed(&HookInput::from_value(given.clone()));
        assert_eq!(back["big"], given["big"]);
        assert_eq!(back["x"].as_f64(), Some(0.30000000000000004));
        assert_eq!(given["big"].as_f64(), Some(2.6666666666666667e60));
        // From text, the caller's digits are passed through as they were written.
        let bytes = HookInput::from_json(text.to_owned())
            .unwrap()
            .complete(Profile::Extension, "TaskStart", &[], "0")
            .unwrap();
        assert!(bytes.starts_with(
            br#"{"big":2666666666666666666666666666666666666666666666666666666666666,"x":0.30000000000000004,"#
        ));
    }

    #[test]
    fn serializes_one_line() {
        let input = HookInput::from_value(json!({"a": "multi\nline"}));
        let bytes = input
            .complete(Profile::Extension, "TaskStart", &[], "0")
            .unwrap();
        assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(bytes.last(), Some(&b'\n'));
    }

    #[test]
    fn agrees_with_serde_json_on_what_is_json() {
        // Every case either both accept (and then the object comes back the same plus the
        // filled fields) or both refuse.
        for text in [
            r#"{"a":[{"b":null,"c":[true,false,-0.5e+3,1E2]}],"d":"\ud83d\ude00"}"#,
            r#"{"a":"\u0000\b\f\n\r\t\/\\"}"#,
            r#"{"":{"":[]}}"#,
            "{\"a\":1e}",
            "{\"a\":-01}",
            "{\"a\":[,]}",
        ] {
            let ours = HookInput::from_json(text.to_owned());
            let theirs = serde_json::from_str::<Value>(text);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{text}");
            if let (Ok(ours), Ok(Value::Object(theirs))) = (ours, theirs) {
                let back = completed(&ours);
                for (key, value) in theirs {
                    assert_eq!(back[&key], value);
                }
            }
        }
    }
}
