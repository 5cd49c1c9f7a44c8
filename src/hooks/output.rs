//! What a hook said: the verdict in its stdout, its fields checked.
//!
//! The rule, as hook authors rely on it:
//!
//! 1. The verdict is the last JSON object in stdout that is not inside another complete JSON
//!    value. Log lines before it, text before it on its own line (`log: {"cancel":true}`),
//!    unbalanced brackets or quotes in log text never hide it; of two objects on one line, the
//!    second is the verdict. Outside JSON values quotes are log text, not strings.
//!    [`locate::scan`] finds the values in one linear, string-aware pass; only the verdict's
//!    own text is then parsed, once.
//! 2. Anything but blanks (whitespace, NUL, the byte-order mark) after the verdict makes the
//!    hook `failed`, but the verdict still counts: a printed `"cancel": true` is never lost.
//!    So does a verdict inside a value that opens a line and never ends (truncated output).
//! 3. With no object there is no verdict. The hook is `failed` only when its output looks like
//!    an attempt at one, and the sentence says what it printed: a final array or scalar, a value
//!    opened at the start of a line that never ends or is not valid JSON, JSON nested more
//!    than 128 levels deep. A bracket in the middle of a log line (`value: {not json`) is log
//!    text, nothing more.
//! 4. When the runner kept only the tail of stdout (`cut`), its first line is a fragment and
//!    is ignored.
//! 5. In the CLI profile a line `HOOK_CONTROL<tab>{...}` (spaces around it allowed: the Cline
//!    SDK trims lines) carries the verdict, and the last such line wins over rule 1. In the
//!    extension profile it is a log line like any other.
//! 6. `contextModification` keeps at most 50,000 bytes of UTF-8, marker included (the
//!    contract's 50 KB), cut on a character boundary.

use serde_json::{Map, Value};

use crate::hooks::discover::Profile;
use crate::hooks::locate::{self, is_blank, Kind, Opener, Scan};

/// Longest `contextModification` one hook may contribute, in bytes of UTF-8 (the contract's
/// 50 KB), the marker saying it was cut included.
pub const MAX_CONTEXT_BYTES: usize = 50_000;

const CONTROL_PREFIX: &str = "HOOK_CONTROL\t";

/// The fields of a hook's verdict, after checking their types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// The parsed object, unknown fields included; `None` when stdout held no JSON object.
    pub object: Option<Map<String, Value>>,
    pub cancel: bool,
    pub context_modification: String,
    pub error_message: String,
    pub review: bool,
    pub override_input: Option<Map<String, Value>>,
    pub warnings: Vec<String>,
    /// Why this output makes the hook `failed`, as a sentence; `None` when the output is fine.
    pub problem: Option<String>,
}

/// Reads the verdict from the kept tail of stdout. `cut` says the tail lost its beginning
/// (the hook printed more than the runner keeps), so its first line is a fragment.
pub fn parse(stdout: &[u8], cut: bool, profile: Profile) -> Verdict {
    let text = String::from_utf8_lossy(stdout);
    let body = if cut {
        text.split_once('\n').map_or("", |(_, rest)| rest)
    } else {
        &text
    };
    let controls = if profile == Profile::Cli {
        control_lines(body)
    } else {
        Vec::new()
    };
    if !controls.is_empty() {
        return control_verdict(&controls, || object_rule(&text, body, cut));
    }
    object_rule(&text, body, cut)
}

/// Rule 1 to 4: the verdict among the JSON values of `body`.
fn object_rule(text: &str, body: &str, cut: bool) -> Verdict {
    let scan = locate::scan(body);
    match scan.values.iter().rposition(|v| v.kind == Kind::Object) {
        Some(index) => object_verdict(body, &scan, index),
        None => Verdict {
            problem: diagnose(text, body, &scan, cut),
            ..Verdict::default()
        },
    }
}

/// Reads the verdict when stdout was longer than the runner keeps (`head` and `tail` are its
/// first and last bytes): from the tail when it holds one, else from the head, so that a
/// verdict printed before a flood of output still counts. The hook is then `failed` (the
/// verdict must be the last thing on stdout), but its cancel is applied.
pub fn parse_cut(head: &[u8], tail: &[u8], profile: Profile) -> Verdict {
    let from_tail = parse(tail, true, profile);
    if from_tail.object.is_some() {
        return from_tail;
    }
    let mut from_head = parse(head, false, profile);
    if from_head.object.is_none() {
        return from_tail;
    }
    let applied = if from_head.cancel {
        " (its cancel was still applied)"
    } else {
        ""
    };
    from_head.problem = Some(format!(
        "printed more output after its JSON object than the runner keeps{applied}; the JSON object must be the last thing on stdout, so send logs to stderr"
    ));
    from_head
}

fn broken(problem: String) -> Verdict {
    Verdict {
        problem: Some(problem),
        ..Verdict::default()
    }
}

/// The payloads of the lines that are `HOOK_CONTROL<tab>` and a payload, in order, each line
/// trimmed as the SDK trims it.
fn control_lines(body: &str) -> Vec<&str> {
    body.split('\n')
        .filter_map(|line| line.trim_matches(is_js_space).strip_prefix(CONTROL_PREFIX))
        .collect()
}

/// What JavaScript's `String.prototype.trim` removes.
fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Rule 5: the last control line that holds a JSON object is the verdict. A broken control
/// line after it, or text after its object, makes the hook `failed` but never discards it;
/// with no usable control line the final-object rule decides, and the hook is `failed`.
fn control_verdict(payloads: &[&str], otherwise: impl FnOnce() -> Verdict) -> Verdict {
    let mut broken_later: Option<String> = None;
    for payload in payloads.iter().rev() {
        let mut stream = serde_json::Deserializer::from_str(payload).into_iter::<Value>();
        let why = match stream.next() {
            Some(Ok(Value::Object(map))) => {
                let trailing = !payload[stream.byte_offset()..].trim().is_empty();
                let mut verdict = read_fields(map);
                let problem = broken_later.or_else(|| {
                    trailing.then(|| {
                        "printed text after the JSON object of its last HOOK_CONTROL line"
                            .to_owned()
                    })
                });
                if let Some(problem) = problem {
                    let applied = if verdict.cancel {
                        " (its cancel was still applied)"
                    } else {
                        ""
                    };
                    verdict.problem.get_or_insert(format!("{problem}{applied}"));
                }
                return verdict;
            }
            Some(Ok(other)) => format!(
                "printed a HOOK_CONTROL line holding {}, not a JSON object",
                describe(&other)
            ),
            Some(Err(err)) => format!("printed a HOOK_CONTROL line that is not valid JSON: {err}"),
            // Unreachable: a trimmed line ending in the tab is no control line.
            None => "printed a HOOK_CONTROL line with nothing after it".to_owned(),
        };
        broken_later.get_or_insert(why);
    }
    let mut verdict = otherwise();
    if let Some(why) = broken_later {
        let applied = if verdict.cancel {
            " (the cancel of its final JSON object was still applied)"
        } else {
            ""
        };
        verdict.problem = Some(format!("{why}{applied}"));
    }
    verdict
}

/// The verdict is `scan.values[index]`; what surrounds it may still make the hook `failed`.
fn object_verdict(body: &str, scan: &Scan, index: usize) -> Verdict {
    let span = scan.values[index];
    let map = match serde_json::from_str::<Value>(&body[span.start..span.end]) {
        Ok(Value::Object(map)) => map,
        // `locate` accepts exactly what serde_json accepts; this only keeps that promise honest.
        Ok(other) => {
            return broken(format!(
                "printed {} where a JSON object was expected",
                describe(&other)
            ))
        }
        Err(err) => {
            return broken(format!(
                "printed output that looks like JSON but is not valid: {err}"
            ))
        }
    };
    let mut verdict = read_fields(map);
    let applied = if verdict.cancel {
        " (its cancel was still applied)"
    } else {
        ""
    };
    let unfinished = scan.unclosed.filter(|o| o.at < span.start).map(|open| {
        format!(
            "{}; the last complete object inside it was read as the verdict{applied}",
            never_ends(body, open, scan.unclosed_lines)
        )
    });
    let after = body[span.end..].trim_start_matches(is_blank);
    // The object is the innermost 127 levels of something deeper: the rest closes that.
    let too_deep = scan
        .too_deep
        .filter(|&at| at < span.end && !after.is_empty())
        .map(|at| format!("{}{applied}", nested_too_deep(body, at)));
    let trailing = (!after.is_empty()).then(|| {
        let next_is_array = scan
            .values
            .get(index + 1)
            .is_some_and(|v| v.kind == Kind::Array && v.start == body.len() - after.len());
        let what = if next_is_array { "a JSON array" } else { "text" };
        format!(
            "printed {what} after its final JSON object{applied}; the JSON object must be the last thing on stdout, so send logs to stderr"
        )
    });
    if let Some(problem) = unfinished.or(too_deep).or(trailing) {
        verdict.problem.get_or_insert(problem);
    }
    verdict
}

/// Why output with no JSON object fails the hook, if it looks like an attempt at a verdict.
fn diagnose(text: &str, body: &str, scan: &Scan, cut: bool) -> Option<String> {
    if let Some(open) = scan.unclosed {
        return Some(never_ends(body, open, scan.unclosed_lines));
    }
    if let Some(at) = scan.too_deep {
        return Some(nested_too_deep(body, at));
    }

    // Of a final array, a value that is not valid JSON and a scalar last line: the latest.
    let mut last: Option<(usize, String)> = None;
    if let Some(value) = scan.values.last() {
        if body[value.end..].chars().all(is_blank) {
            last = Some((value.start, final_value("a JSON array")));
        }
    }
    if let Some(open) = scan.broken {
        if last.as_ref().is_none_or(|(at, _)| open.at > *at) {
            last = Some((open.at, not_valid(body, open)));
        }
    }
    let trimmed = body.trim_end_matches(is_blank);
    let line_at = trimmed.rfind('\n').map_or(0, |n| n + 1);
    if last.as_ref().is_none_or(|(at, _)| line_at > *at) {
        let line = trimmed[line_at..].trim_matches(is_blank);
        if let Ok(scalar @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))) =
            serde_json::from_str::<Value>(line)
        {
            last = Some((line_at, final_value(&describe(&scalar))));
        }
    }
    if let Some((_, sentence)) = last {
        return Some(sentence);
    }

    let ends_in_brace = text.trim_end_matches(is_blank).ends_with('}');
    if cut && ends_in_brace {
        Some(
            "printed a final JSON object larger than the 1 MiB of stdout the runner keeps"
                .to_owned(),
        )
    } else if ends_in_brace {
        Some("printed output ending in '}' that is not a JSON object".to_owned())
    } else {
        None
    }
}

fn nested_too_deep(body: &str, at: usize) -> String {
    let (line, column) = line_column(body, at);
    format!(
        "printed JSON nested more than 128 levels deep (at line {line} column {column}); a verdict is a flat object such as {{\"cancel\": false}}"
    )
}

fn final_value(what: &str) -> String {
    format!(
        "printed {what} as its final output; a hook must print a JSON object such as {{\"cancel\": false}}"
    )
}

/// `open` starts a line and stdout ended inside it; `lines` such values are open at the end.
fn never_ends(body: &str, open: Opener, lines: usize) -> String {
    let (line, _) = line_column(body, open.at);
    match open.kind {
        Kind::Object => format!(
            "printed a JSON object that never ends (truncated output?): the one opened at line {line} has no closing brace; print the whole object, last on stdout"
        ),
        Kind::Array if lines > 1 => format!(
            "printed JSON arrays that are never closed ({lines} lines open a value that never ends, the first at line {line}); a hook must print a JSON object such as {{\"cancel\": false}}, last on stdout"
        ),
        Kind::Array => format!(
            "printed a JSON array that never ends (opened at line {line}, truncated output?); a hook must print a JSON object such as {{\"cancel\": false}}, last on stdout"
        ),
    }
}

/// `open` starts a line and looked like JSON until it stopped being JSON: serde_json says why.
fn not_valid(body: &str, open: Opener) -> String {
    let what = match open.kind {
        Kind::Object => "a JSON object",
        Kind::Array => "a JSON array",
    };
    let (line, column) = line_column(body, open.at);
    let why = match serde_json::from_str::<Value>(&body[open.at..]) {
        Err(err) => {
            // serde_json counts from the value's start; say where it is in stdout.
            let full = err.to_string();
            let suffix = format!(" at line {} column {}", err.line(), err.column());
            let code = full.strip_suffix(&suffix).unwrap_or(&full);
            let (l, c) = if err.line() <= 1 {
                (line, column + err.column().saturating_sub(1))
            } else {
                (line + err.line() - 1, err.column())
            };
            format!("{code} at line {l} column {c}")
        }
        Ok(_) => format!("from line {line}"),
    };
    format!(
        "printed output that looks like {what} but is not valid: {why}; fix the JSON (`jq .` shows where) and print it last on stdout"
    )
}

/// 1-based line and column (in bytes) of byte `at`.
fn line_column(body: &str, at: usize) -> (usize, usize) {
    let before = &body.as_bytes()[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1);
    (line, at - line_start + 1)
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", excerpt(s)),
        Value::Array(_) => "a JSON array".to_owned(),
        Value::Object(_) => "a JSON object".to_owned(),
    }
}

fn excerpt(s: &str) -> String {
    let mut shown: String = s.chars().take(40).collect();
    if shown.len() < s.len() {
        shown.push('…');
    }
    format!("\"{shown}\"")
}

/// Checks the known fields' types; unknown fields stay in `object` untouched.
fn read_fields(map: Map<String, Value>) -> Verdict {
    let mut verdict = Verdict::default();
    let mut problems = Vec::new();

    match map.get("cancel") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => verdict.cancel = *b,
        Some(other) => problems.push(format!(
            "\"cancel\" must be true or false, but the hook printed {}, so it did not block",
            describe(other)
        )),
    }
    match map.get("shouldContinue") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            verdict.cancel = true;
            verdict.warnings.push(
                "\"shouldContinue\": false is the older contract; it was read as \"cancel\": true (print {\"cancel\": true} instead)"
                    .to_owned(),
            );
        }
        Some(other) => problems.push(format!(
            "\"shouldContinue\" must be true or false, not {}",
            describe(other)
        )),
    }
    match map.get("review") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => verdict.review = *b,
        Some(other) => problems.push(format!(
            "\"review\" must be true or false, not {}",
            describe(other)
        )),
    }

    let context = match string_field(&map, "contextModification", &mut problems) {
        Some(text) => Some(text),
        None => string_field(&map, "context", &mut problems),
    };
    if let Some(text) = context {
        verdict.context_modification = truncate_context(text, &mut verdict.warnings);
    }
    if let Some(text) = string_field(&map, "errorMessage", &mut problems) {
        verdict.error_message = text;
    }
    match map.get("overrideInput") {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => verdict.override_input = Some(o.clone()),
        Some(other) => problems.push(format!(
            "\"overrideInput\" must be a JSON object, not {}",
            describe(other)
        )),
    }

    if !problems.is_empty() {
        verdict.problem = Some(format!(
            "printed a verdict with a field of the wrong type: {}",
            problems.join("; ")
        ));
    }
    verdict.object = Some(map);
    verdict
}

fn string_field(map: &Map<String, Value>, key: &str, problems: &mut Vec<String>) -> Option<String> {
    match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(format!(
                "\"{key}\" must be a string, not {}",
                describe(other)
            ));
            None
        }
    }
}

fn truncate_context(text: String, warnings: &mut Vec<String>) -> String {
    let total = text.len();
    if total <= MAX_CONTEXT_BYTES {
        return text;
    }
    let marker = |omitted: usize| {
        format!("\n[… {omitted} bytes cut by @cline/hooks: contextModification is limited to {MAX_CONTEXT_BYTES} bytes]")
    };
    // At most `total` bytes are omitted, so a marker sized for `total` always fits.
    let budget = MAX_CONTEXT_BYTES - marker(total).len();
    let keep = (0..=budget)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let omitted = total - keep;
    let mut kept = text;
    kept.truncate(keep);
    kept.push_str(&marker(omitted));
    warnings.push(format!(
        "contextModification was {total} bytes; it was cut to {MAX_CONTEXT_BYTES} bytes (the limit), {omitted} bytes dropped"
    ));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn p(s: &str) -> Verdict {
        parse(s.as_bytes(), false, Profile::Extension)
    }

    fn cli(s: &str) -> Verdict {
        parse(s.as_bytes(), false, Profile::Cli)
    }

    #[test]
    fn empty_or_plain_logs_are_no_verdict() {
        for s in [
            "",
            "  \n\n",
            "starting\nall good\n",
            "value: {not json",
            "[INFO] starting\n[hook] checked rule 3\n",
            "log: [\nmore log\n",
            "say \"hi {\n",
        ] {
            let v = p(s);
            assert_eq!(v.problem, None, "{s:?}");
            assert!(!v.cancel);
            assert!(v.object.is_none());
        }
    }

    #[test]
    fn final_object_after_logs_wins() {
        let v = p("log {one}\n{\"cancel\":false}\nmore \"quotes\n{\"cancel\":true,\"errorMessage\":\"no }\"}\n");
        assert!(v.cancel);
        assert_eq!(v.error_message, "no }");
        assert_eq!(v.problem, None);
    }

    #[test]
    fn pretty_printed_object_counts() {
        let v = p("working\n{\n  \"cancel\": true,\n  \"nested\": [\n    {\"a\": 1}\n  ],\n  \"contextModification\": \"x\"\n}\n");
        assert!(v.cancel);
        assert_eq!(v.context_modification, "x");
        assert_eq!(v.object.unwrap()["nested"][0]["a"], 1);
    }

    /// Issue 10 A2: `jq -n '{cancel:true, findings:[range(300)|{line:.}]}'` has 300 lines that
    /// open `{`; the old parser gave up after 256 line starts and lost the cancel.
    #[test]
    fn a_long_pretty_verdict_keeps_its_cancel() {
        let findings: Vec<Value> = (0..300).map(|i| serde_json::json!({ "line": i })).collect();
        let pretty = serde_json::to_string_pretty(
            &serde_json::json!({ "cancel": true, "findings": findings }),
        )
        .unwrap();
        assert!(
            pretty
                .lines()
                .filter(|l| l.trim_start().starts_with('{'))
                .count()
                > 256
        );
        let v = p(&format!("scanning\n{pretty}\n"));
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        assert_eq!(v.object.unwrap()["findings"][299]["line"], 299);
    }

    /// Issue 10 A2: text before the object on its line, quotes and brackets in log text, and
    /// two objects on a line.
    #[test]
    fn log_text_around_the_verdict_never_hides_it() {
        for s in [
            "log: {\"cancel\":true}\n",
            "log: [\n{\"cancel\":true}\n",
            "log: [\"x {\"cancel\":true}\n",
            "unbalanced \" quote { and [ brackets\n{\"cancel\":true}",
            "{\"cancel\":false} {\"cancel\":true}\n",
            "HOOK_CONTROL\t{\"cancel\":false}\n{\"cancel\":true}\n",
            "\u{feff}log\0\r\n{\"cancel\": true}\r\n",
        ] {
            let v = p(s);
            assert!(v.cancel, "{s:?}");
            assert_eq!(v.problem, None, "{s:?}");
        }
    }

    #[test]
    fn crlf_and_nul_noise_are_tolerated() {
        let v = p("log\0line\r\n\u{0}{\"cancel\":true}\r\n");
        assert!(v.cancel);
        let v = parse(
            b"\xff\xfe bad bytes\n{\"contextModification\":\"ok\"}\n",
            false,
            Profile::Extension,
        );
        assert_eq!(v.context_modification, "ok");
    }

    #[test]
    fn a_byte_order_mark_is_ignored() {
        let v = p("\u{feff}{\"cancel\":true}\r\n");
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        let v = p("\u{feff}log\r\n\u{feff}{\"contextModification\":\"\u{4e2d}\u{6587}\"}");
        assert_eq!(v.context_modification, "中文");
    }

    #[test]
    fn broken_shapes_fail_with_a_sentence() {
        for (s, needle) in [
            ("{\"cancel\": tr", "JSON object that never ends"),
            ("[1,2]", "JSON array as its final output"),
            ("{\"a\":1,}\n[1,2]", "JSON array as its final output"),
            ("42", "number 42"),
            ("log\n\"done\"\n", "string \"done\""),
            ("{\"cancel\":\"yes\"}", "\"cancel\" must be true or false"),
            ("{\"contextModification\": 5}", "must be a string"),
            ("{\"a\":1,}", "not valid: trailing comma at line 1 column 8"),
            ("log\n  [1, 2 x]", "array but is not valid"),
            (
                "[1,2]\n{\"a\": 1,\n\"b\" 2}",
                "not valid: expected `:` at line 3 column 5",
            ),
            ("[1, 2,", "JSON array that never ends (opened at line 1"),
            ("log: {\"cancel\": tru}", "ending in '}'"),
        ] {
            let v = p(s);
            let problem = v.problem.unwrap_or_default();
            assert!(problem.contains(needle), "{s:?} -> {problem}");
            assert!(!v.cancel, "{s:?}");
        }
    }

    /// Issue 10 A3: 256 lines that each open an array that never closes are arrays, not "an
    /// object that ends too early", and cost a single pass.
    #[test]
    fn unclosed_arrays_are_named_as_arrays() {
        let s = format!("[{}\n", "1,".repeat(100)).repeat(256);
        let problem = p(&s).problem.unwrap_or_default();
        assert!(
            problem.starts_with("printed JSON arrays that are never closed (256 lines"),
            "{problem}"
        );
        assert!(!problem.contains("object that"), "{problem}");
    }

    #[test]
    fn trailing_text_fails_but_keeps_the_cancel() {
        for (s, what) in [
            ("{\"cancel\":true} garbage\n", "text"),
            ("{\"cancel\":true}}", "text"),
            ("{\"cancel\":true}\n]\n", "text"),
            ("{\"cancel\":true}\n[1,2]\n", "a JSON array"),
            ("{\"cancel\":true}\n{\"cancel\": fal", "text"),
        ] {
            let v = p(s);
            assert!(v.cancel, "{s:?}");
            let problem = v.problem.unwrap_or_default();
            assert!(
                problem.starts_with(&format!(
                    "printed {what} after its final JSON object (its cancel was still applied)"
                )),
                "{s:?} -> {problem}"
            );
        }
    }

    #[test]
    fn a_truncated_verdict_fails_even_with_complete_objects_inside() {
        let v =
            p("{\n  \"cancel\": true,\n  \"findings\": [\n    {\"line\": 0},\n    {\"line\": 1");
        let problem = v.problem.unwrap_or_default();
        assert!(problem.contains("JSON object that never ends"), "{problem}");
        assert!(problem.contains("opened at line 1"), "{problem}");
        assert!(!v.cancel);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let problem = p(&deep).problem.unwrap_or_default();
        assert!(problem.contains("nested more than 128 levels"), "{problem}");
        let deep_obj = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(p(&deep_obj).problem.is_some());
        // Its innermost 127 levels are a complete object, but the sentence names the depth.
        let deep_keys = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
        let problem = p(&deep_keys).problem.unwrap_or_default();
        assert!(problem.contains("nested more than 128 levels"), "{problem}");
    }

    #[test]
    fn nesting_stops_exactly_where_serde_json_does() {
        for depth in [126, 127, 128, 129] {
            let s = format!(
                "{{\"cancel\":true,\"a\":{}{}}}",
                "[".repeat(depth - 1),
                "]".repeat(depth - 1)
            );
            let serde_ok = serde_json::from_str::<Value>(&s).is_ok();
            assert_eq!(p(&s).cancel, serde_ok, "depth {depth}");
        }
    }

    #[test]
    fn many_candidate_lines_stay_bounded() {
        let noisy = "{\"x\":[\n".repeat(200_000);
        let v = p(&noisy);
        assert!(v.problem.is_some());
    }

    /// Issue 10 A3: each shape is 1 MiB; the old parser took seconds on the first. A generous
    /// bound for a debug build catches a return to quadratic time.
    #[test]
    fn adversarial_megabytes_parse_in_linear_time() {
        for (name, bytes) in adversarial_shapes() {
            let started = Instant::now();
            let v = parse(&bytes, false, Profile::Extension);
            let took = started.elapsed();
            assert!(took < Duration::from_secs(1), "{name}: {took:?}");
            if name.starts_with("junk_after")
                || name.starts_with("many_small")
                || name.starts_with("pretty")
            {
                assert!(v.cancel, "{name}");
            }
        }
    }

    /// The shapes of `benches/output_parse.rs` (hostile, 1 MiB each).
    fn adversarial_shapes() -> Vec<(&'static str, Vec<u8>)> {
        const MIB: usize = 1 << 20;
        let fill = |mut s: String, filler: &str| {
            while s.len() + filler.len() <= MIB {
                s.push_str(filler);
            }
            s.into_bytes()
        };
        let mut line = String::from("[");
        while line.len() < MIB / 256 - 1 {
            line.push_str("1,");
        }
        line.push('\n');
        let mut pretty = String::from("{\n  \"cancel\": true,\n  \"findings\": [\n");
        for i in 0..1_000 {
            pretty.push_str(&format!("    {{ \"line\": {i} }},\n"));
        }
        pretty.push_str("    {}\n  ]\n}\n");
        vec![
            ("unclosed_array_lines", line.repeat(256).into_bytes()),
            ("open_brackets", vec![b'['; MIB]),
            ("open_keys", fill(String::new(), "{\"a\":")),
            ("pretty_1000_lines", pretty.into_bytes()),
            (
                "junk_after",
                fill("{\"cancel\":true}\n".to_owned(), "] junk \" [ {\n"),
            ),
            ("many_small", fill(String::new(), "{\"cancel\":true}\n")),
        ]
    }

    #[test]
    fn legacy_should_continue_and_cli_context() {
        let v = p("{\"shouldContinue\": false}");
        assert!(v.cancel);
        assert_eq!(v.warnings.len(), 1);
        let v = p("{\"context\": \"from cli\"}");
        assert_eq!(v.context_modification, "from cli");
        let v = p("{\"context\": \"cli\", \"contextModification\": \"ext\"}");
        assert_eq!(v.context_modification, "ext");
    }

    #[test]
    fn review_and_override_input_are_read() {
        let v = p("{\"review\": true, \"overrideInput\": {\"filePath\": \"/x\"}}");
        assert!(v.review);
        assert_eq!(v.override_input.unwrap()["filePath"], "/x");
        assert!(p("{\"overrideInput\": 3}").problem.is_some());
    }

    #[test]
    fn hook_control_line_wins_in_the_cli_profile() {
        let v = cli("HOOK_CONTROL\t{\"cancel\":true}\nlater log\n{\"cancel\":false}\n");
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        let v = cli("HOOK_CONTROL\t{\"cancel\":false}\nHOOK_CONTROL\t{\"review\":true}\r\n");
        assert!(v.review);
        // The SDK trims each line before looking for the prefix.
        let v = cli("log\n  \u{feff}HOOK_CONTROL\t{\"cancel\":true}  \r\n{\"cancel\":false}\n");
        assert!(v.cancel);
        let v = cli("HOOK_CONTROL\t[1]\n");
        assert!(v.problem.unwrap().contains("holding a JSON array"));
        // A broken control line never discards a cancel printed before it (a hook killed while
        // writing its second line, a line of junk, an array), nor junk after its object.
        for later in [
            "HOOK_CONTROL\t{\"cancel\":tr",
            "HOOK_CONTROL\tnot json",
            "HOOK_CONTROL\t[]",
        ] {
            let v = cli(&format!("HOOK_CONTROL\t{{\"cancel\":true}}\n{later}"));
            assert!(v.cancel, "{later}");
            assert!(
                v.problem.unwrap().contains("cancel was still applied"),
                "{later}"
            );
        }
        let v = cli("HOOK_CONTROL\t{\"cancel\":true} junk\n");
        assert!(v.cancel);
        assert!(v.problem.unwrap().contains("text after"));
        // With no usable control line, the final object still counts, and the hook fails.
        let v = cli("{\"cancel\":true}\nHOOK_CONTROL\tbroken\n");
        assert!(v.cancel);
        assert!(v.problem.unwrap().contains("not valid JSON"));
        // Without one, the final object decides, as in the extension profile.
        assert!(cli("log\n{\"cancel\":true}\n").cancel);
    }

    /// Issue 10 A8: the extension has no HOOK_CONTROL convention, so such a line is a log line
    /// (possibly echoing file content) and cannot override the verdict after it.
    #[test]
    fn hook_control_is_a_log_line_in_the_extension_profile() {
        let v = p("HOOK_CONTROL\t{\"cancel\":false}\n{\"cancel\":true}\n");
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        let v = p("HOOK_CONTROL\t{\"cancel\":true}\nlater log\n");
        assert!(v.cancel, "its object is still the last object");
    }

    /// Issue 10 A9: the contract's 50 KB is bytes, marker included, cut between characters.
    #[test]
    fn context_is_cut_at_the_limit_in_bytes_with_a_marker() {
        for unit in ["é", "中", "😀", "a"] {
            let long = unit.repeat(MAX_CONTEXT_BYTES / unit.len() + 10);
            let v = p(&serde_json::json!({ "contextModification": long }).to_string());
            let kept = &v.context_modification;
            assert!(kept.len() <= MAX_CONTEXT_BYTES, "{unit}: {}", kept.len());
            assert!(
                kept.len() > MAX_CONTEXT_BYTES - 200,
                "{unit}: {}",
                kept.len()
            );
            let (body, marker) = kept.split_once("\n[… ").unwrap();
            assert!(body.chars().all(|c| c.to_string() == unit));
            let omitted = long.len() - body.len();
            assert!(
                marker.starts_with(&format!("{omitted} bytes cut")),
                "{marker}"
            );
            assert!(v.warnings[0].contains("bytes"));
        }
        let exact = "a".repeat(MAX_CONTEXT_BYTES);
        let v = p(&serde_json::json!({ "contextModification": exact }).to_string());
        assert_eq!(v.context_modification, exact);
        assert!(v.warnings.is_empty());
    }

    #[test]
    fn a_cut_tail_ignores_its_first_fragment() {
        // The fragment `"x"}` alone must not be mistaken for anything; the next object counts.
        let v = parse(b"aaa\"}\n{\"cancel\":true}\n", true, Profile::Extension);
        assert!(v.cancel);
        let v = parse(
            b"{\"partial\": 1, \"cancel\": true}",
            true,
            Profile::Extension,
        );
        assert!(v.problem.unwrap().contains("larger than"));
        let v = parse(
            b"{\"cancel\": true}\n{\"cancel\": false}",
            true,
            Profile::Extension,
        );
        assert!(!v.cancel);
    }

    #[test]
    fn a_verdict_before_a_flood_is_read_from_the_head() {
        let head = b"starting\n{\"cancel\":true,\"errorMessage\":\"no\"}\nxxxxxxxx";
        let v = parse_cut(head, b"xxxx\nxxxxxxxx", Profile::Extension);
        assert!(v.cancel);
        assert_eq!(v.error_message, "no");
        assert!(v.problem.unwrap().contains("cancel was still applied"));
        // A verdict in the tail is later output, so it wins.
        let v = parse_cut(head, b"xx\n{\"cancel\":false}\n", Profile::Extension);
        assert!(!v.cancel);
        assert_eq!(v.problem, None);
        // Nothing in either: nothing, as from the tail alone.
        assert_eq!(
            parse_cut(b"log\nlog", b"log\nlog", Profile::Extension),
            parse(b"log\nlog", true, Profile::Extension)
        );
    }

    #[test]
    fn unknown_fields_pass_through() {
        let v = p("{\"cancel\":false,\"custom\":{\"k\":[1,2]}}");
        assert_eq!(v.object.unwrap()["custom"]["k"][1], 2);
    }
}
