//! What a hook said: the final JSON object of its stdout, its fields checked.
//!
//! Hooks may log to stdout before their verdict, so the verdict is the last JSON object, which
//! must begin a line (a pretty-printed object, as `jq` prints, counts). A stdout line starting
//! with `HOOK_CONTROL\t` (the CLI's convention) carries the verdict explicitly and wins.

use serde_json::{Map, Value};

/// Longest `contextModification` one hook may contribute, in characters (the contract's 50 KB).
pub const MAX_CONTEXT_CHARS: usize = 50_000;

/// How many line starts the parser tries before giving up; bounds the work on hostile output.
const MAX_CANDIDATES: usize = 256;

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
pub fn parse(stdout: &[u8], cut: bool) -> Verdict {
    let text = String::from_utf8_lossy(stdout);
    match locate(&text, cut) {
        Located::Nothing => Verdict::default(),
        Located::Object(map) => read_fields(map),
        Located::ObjectWithTrailingText(map) => {
            let mut verdict = read_fields(map);
            let applied = if verdict.cancel {
                " (its cancel was still applied)"
            } else {
                ""
            };
            verdict.problem.get_or_insert_with(|| {
                format!(
                    "printed text after its final JSON object{applied}; the JSON object must be the last thing on stdout, so send logs to stderr"
                )
            });
            verdict
        }
        Located::Broken(sentence) => Verdict {
            problem: Some(sentence),
            ..Verdict::default()
        },
    }
}

enum Located {
    Nothing,
    Object(Map<String, Value>),
    ObjectWithTrailingText(Map<String, Value>),
    Broken(String),
}

fn locate(text: &str, cut: bool) -> Located {
    if let Some(control) = last_control_line(text) {
        return match serde_json::from_str::<Value>(control) {
            Ok(Value::Object(map)) => Located::Object(map),
            Ok(other) => Located::Broken(format!(
                "printed a HOOK_CONTROL line holding {}, not a JSON object",
                describe(&other)
            )),
            Err(err) => Located::Broken(format!(
                "printed a HOOK_CONTROL line that is not valid JSON: {err}"
            )),
        };
    }

    let body = text.trim_end_matches(is_blank);
    if body.trim().is_empty() {
        return Located::Nothing;
    }
    let starts = candidate_starts(body, cut);

    // The latest line start from which the rest of stdout is exactly one JSON value.
    let mut furthest_error: Option<(usize, serde_json::Error)> = None;
    for &start in starts.iter().rev() {
        match serde_json::from_str::<Value>(&body[start..]) {
            Ok(Value::Object(map)) => return Located::Object(map),
            Ok(other) => {
                return Located::Broken(format!(
                    "printed {} as its final output; a hook must print a JSON object such as {{\"cancel\": false}}",
                    describe(&other)
                ))
            }
            Err(err) => {
                let reach = start + offset_of(&body[start..], err.line(), err.column());
                if furthest_error.as_ref().is_none_or(|(r, _)| reach > *r) {
                    furthest_error = Some((reach, err));
                }
            }
        }
    }

    // An object followed by log text: honour it (a gate's cancel must not be lost), but fail.
    for &start in starts.iter().rev() {
        if !body[start..].trim_start().starts_with('{') {
            continue;
        }
        let mut stream = serde_json::Deserializer::from_str(&body[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(map))) = stream.next() {
            let rest = body[start + stream.byte_offset()..].trim_start();
            if !rest.starts_with([',', ']', '}', ':']) {
                return Located::ObjectWithTrailingText(map);
            }
        }
    }

    let last_line = body.rsplit('\n').next().unwrap_or(body).trim();
    if let Ok(scalar @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))) =
        serde_json::from_str::<Value>(last_line)
    {
        return Located::Broken(format!(
            "printed {} as its final output; a hook must print a JSON object such as {{\"cancel\": false}}",
            describe(&scalar)
        ));
    }
    if starts.is_empty() && !body.ends_with('}') {
        return Located::Nothing;
    }
    if cut && starts.is_empty() {
        return Located::Broken(
            "printed a final JSON object larger than the 1 MiB of stdout the runner keeps"
                .to_owned(),
        );
    }
    match furthest_error {
        Some((_, err)) if err.is_eof() => Located::Broken(format!(
            "printed a JSON object that ends too early (truncated output?): {err}"
        )),
        // serde_json stops at 128 levels, which also bounds the parser's stack.
        Some((_, err)) if err.to_string().starts_with("recursion limit exceeded") => {
            Located::Broken(format!(
                "printed JSON nested more than 128 levels deep (at line {} column {}); a verdict is a flat object such as {{\"cancel\": false}}",
                err.line(),
                err.column()
            ))
        }
        Some((_, err)) => Located::Broken(format!(
            "printed output that looks like JSON but is not valid: {err}"
        )),
        None => {
            Located::Broken("printed output ending in '}' that is not a JSON object".to_owned())
        }
    }
}

/// Characters that never matter around a verdict: whitespace, NUL, and the UTF-8 byte-order
/// mark that Windows PowerShell 5.1 writes at the start of its output.
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\0' || c == '\u{feff}'
}

/// Byte offsets of the lines whose first non-blank character opens a JSON object or array.
fn candidate_starts(body: &str, cut: bool) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut line_start = 0;
    let mut first = true;
    for line in body.split_inclusive('\n') {
        let skip_fragment = first && cut;
        first = false;
        let trimmed = line.trim_start_matches(is_blank);
        if !skip_fragment && (trimmed.starts_with('{') || trimmed.starts_with('[')) {
            starts.push(line_start + (line.len() - trimmed.len()));
        }
        line_start += line.len();
    }
    if starts.len() > MAX_CANDIDATES {
        starts.drain(..starts.len() - MAX_CANDIDATES);
    }
    starts
}

fn last_control_line(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .find_map(|line| line.strip_prefix(CONTROL_PREFIX))
        .map(|rest| rest.trim_end_matches('\r'))
}

/// Turns serde's 1-based line/column into a byte offset, to compare how far parses got.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    line_start + column
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
    let total = text.chars().count();
    if total <= MAX_CONTEXT_CHARS {
        return text;
    }
    let omitted = total - MAX_CONTEXT_CHARS;
    let mut kept: String = text.chars().take(MAX_CONTEXT_CHARS).collect();
    kept.push_str(&format!("\n[… {omitted} characters cut by @cline/hooks: contextModification is limited to {MAX_CONTEXT_CHARS} characters]"));
    warnings.push(format!(
        "contextModification was {total} characters; it was cut to {MAX_CONTEXT_CHARS} (the limit), {omitted} characters dropped"
    ));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Verdict {
        parse(s.as_bytes(), false)
    }

    #[test]
    fn empty_or_plain_logs_are_no_verdict() {
        for s in ["", "  \n\n", "starting\nall good\n", "value: {not json"] {
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

    #[test]
    fn crlf_and_nul_noise_are_tolerated() {
        let v = p("log\0line\r\n\u{0}{\"cancel\":true}\r\n");
        assert!(v.cancel);
        let v = parse(
            b"\xff\xfe bad bytes\n{\"contextModification\":\"ok\"}\n",
            false,
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
            ("{\"cancel\": tr", "ends too early"),
            ("[1,2]", "JSON array"),
            ("42", "number 42"),
            ("{\"cancel\":\"yes\"}", "\"cancel\" must be true or false"),
            ("{\"contextModification\": 5}", "must be a string"),
            ("{\"a\":1}}", "not valid"),
        ] {
            let v = p(s);
            let problem = v.problem.unwrap_or_default();
            assert!(problem.contains(needle), "{s:?} -> {problem}");
            assert!(!v.cancel, "{s:?}");
        }
    }

    #[test]
    fn trailing_text_fails_but_keeps_the_cancel() {
        let v = p("{\"cancel\":true} garbage\n");
        assert!(v.cancel);
        assert!(v.problem.unwrap().contains("cancel was still applied"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let problem = p(&deep).problem.unwrap_or_default();
        assert!(problem.contains("nested more than 128 levels"), "{problem}");
        let deep_obj = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(p(&deep_obj).problem.is_some());
    }

    #[test]
    fn many_candidate_lines_stay_bounded() {
        let noisy = "{\"x\":[\n".repeat(200_000);
        let v = p(&noisy);
        assert!(v.problem.is_some());
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
    fn hook_control_line_wins() {
        let v = p("HOOK_CONTROL\t{\"cancel\":true}\nlater log\n{\"cancel\":false}\n");
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        let v = p("HOOK_CONTROL\t{\"cancel\":false}\nHOOK_CONTROL\t{\"review\":true}\r\n");
        assert!(v.review);
    }

    #[test]
    fn context_is_cut_at_the_limit_with_a_marker() {
        let long = "é".repeat(MAX_CONTEXT_CHARS + 10);
        let v = p(&serde_json::json!({ "contextModification": long }).to_string());
        assert!(v
            .context_modification
            .starts_with(&"é".repeat(MAX_CONTEXT_CHARS)));
        assert!(v.context_modification.contains("10 characters cut"));
        assert_eq!(v.warnings.len(), 1);
    }

    #[test]
    fn a_cut_tail_ignores_its_first_fragment() {
        // The fragment `"x"}` alone must not be mistaken for anything; the next object counts.
        let v = parse(b"aaa\"}\n{\"cancel\":true}\n", true);
        assert!(v.cancel);
        let v = parse(b"{\"partial\": 1, \"cancel\": true}", true);
        assert!(v.problem.unwrap().contains("larger than"));
    }

    #[test]
    fn unknown_fields_pass_through() {
        let v = p("{\"cancel\":false,\"custom\":{\"k\":[1,2]}}");
        assert_eq!(v.object.unwrap()["custom"]["k"][1], 2);
    }
}
