//! What a hook said: the verdict in its stdout, its fields checked.
//!
//! The rule, as hook authors rely on it:
//!
//! 1. The verdict is the last JSON object in stdout, not inside another complete JSON value,
//!    that holds a verdict field (`cancel`, `contextModification`, `errorMessage`, or the older
//!    and CLI ones: `shouldContinue`, `review`, `context`, `overrideInput`); when none holds
//!    one, the last object. Objects after the verdict that hold none (a JSON log line) are
//!    ignored, with a warning naming them; a later object that holds one is the verdict, and
//!    when it replaced a `"cancel": true` a warning says the operation was not blocked. Log
//!    lines before it, text before it on its own line (`log: {"cancel":true}`), unbalanced
//!    brackets or quotes in log text never hide it; of two objects on one line, the second is
//!    the verdict. Outside JSON values quotes are log text, not strings. JSON is what
//!    `JSON.parse` accepts, and Python's `NaN` and `Infinity` too (lenient.rs), each oddity
//!    named in a warning. The [`Scanner`](crate::verdict::Scanner) (locate.rs) finds the
//!    values in one linear, string-aware pass over all of stdout as it streams; the verdict's
//!    own text is then parsed once when the runner kept it (it lies in the first or the last
//!    MiB), else its fields are read from what the pass kept of them.
//! 2. Anything but blanks (whitespace, NUL, the byte-order mark) after the last object makes
//!    the hook `failed`, but the verdict still counts: text, junk or a crash after a printed
//!    `"cancel": true` never loses it (only a later verdict object replaces it, rule 1). So
//!    does a verdict inside a value that opens a line and never ends (truncated output).
//! 3. With no object there is no verdict. The hook is `failed` only when its output looks like
//!    an attempt at one, and the sentence says what it printed: a final array or scalar, a value
//!    opened at the start of a line that never ends or is not valid JSON, JSON nested more
//!    than 128 levels deep. A bracket in the middle of a log line (`value: {not json`) is log
//!    text, nothing more.
//! 4. A verdict field of the wrong type, `null` included, makes the hook `failed` (Cline's own
//!    reader refuses such output); its other fields still count.
//! 5. In the CLI profile a line `HOOK_CONTROL<tab>{...}` (spaces around it allowed: the Cline
//!    SDK trims lines) carries the verdict, and the last such line wins over rule 1; when it
//!    does not block, a `"cancel": true` it set aside (on an earlier control line, or in an
//!    object holding a verdict field anywhere on stdout) is named in a warning. In the
//!    extension profile it is a log line like any other.
//! 6. `contextModification` (or `context`: of the two printed as strings, `context` wins in the
//!    CLI profile, as in the Cline SDK, and `contextModification` in the extension profile) and
//!    `errorMessage` keep at most 50,000 bytes of UTF-8 each, marker included (the contract's
//!    50 KB), cut on a character boundary; `overrideInput` is read up to 1 MiB of JSON.
//! 7. UTF-16 output (PowerShell's `Out-File`) is decoded, with a warning (encoding.rs).

use serde_json::{Map, Value};

use crate::discovery::Profile;
use crate::verdict::{
    self, is_blank, Captured, Fields, Key, Kind, Opener, Scan, Span, CAPTURE_BUDGET, DEEP_LIMIT,
    JSON_KEEP, MAX_DEPTH, TEXT_KEEP,
};
use crate::verdict::{Control, Kept, Reader, HEAD_KEEP, TAIL_KEEP};
use crate::verdict::{Encoding, Utf16Later};
use crate::verdict::{Notes, Spot};

/// Longest `contextModification` one hook may contribute, in bytes of UTF-8 (the contract's
/// 50 KB), the marker saying it was cut included. `errorMessage` has the same limit.
pub const MAX_CONTEXT_BYTES: usize = TEXT_KEEP;

/// The fields of a hook's verdict, after checking their types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// The parsed object, unknown fields included; `None` when stdout held no JSON object.
    pub object: Option<Map<String, Value>>,
    /// `cancel: true`, or the older `shouldContinue: false`.
    pub cancel: bool,
    /// `contextModification` (or the CLI's `context`), cut to [`MAX_CONTEXT_BYTES`].
    pub context_modification: String,
    /// `errorMessage`, cut to [`MAX_CONTEXT_BYTES`].
    pub error_message: String,
    /// `review: true`.
    pub review: bool,
    /// `overrideInput`: the object that replaces the tool's input.
    pub override_input: Option<Map<String, Value>>,
    /// Sentences for the hook's author about output that was read all the same (UTF-16, a
    /// field cut at its limit, `NaN`...).
    pub warnings: Vec<String>,
    /// Why this output makes the hook `failed`, as a sentence; `None` when the output is fine.
    pub problem: Option<String>,
    /// A Claude settings handler's exit code was its answer (2: a block), not a failure.
    pub exit_is_answer: bool,
}

/// Reads the verdict from all of a hook's stdout at once.
pub fn parse(stdout: &[u8], profile: Profile) -> Verdict {
    let mut reader = Reader::new(profile);
    reader.feed(stdout);
    read(reader.finish())
}

/// Reads the verdict from what a [`Reader`] kept of stdout.
pub fn read(mut kept: Kept) -> Verdict {
    let mut verdict = match kept.control.take() {
        Some(control) => control_verdict(control, &kept.scan, || object_rule(&kept)),
        None => object_rule(&kept),
    };
    if let Some(open) = kept.scan.unclosed_cancel {
        unclosed_cancel(&mut verdict, open);
    }
    if let Some(warning) = kept.encoding.warning() {
        verdict.warnings.insert(0, warning);
    }
    // UTF-8, then UTF-16: with no verdict read, that is why the hook failed.
    if let (Encoding::Utf8, Some(at)) = (kept.encoding, kept.utf16_later) {
        let sentence = Utf16Later::warning(at);
        if verdict.object.is_none() {
            verdict.problem = Some(sentence);
        } else {
            verdict.warnings.push(sentence);
        }
    }
    verdict
}

/// Stdout ended inside an object, inside no other value, that had printed `"cancel": true`
/// (a hook killed or timed out while writing its verdict): fail closed. Only the cancel
/// counts; the object's other fields may be cut anywhere, so none of them is applied, and
/// the hook is `failed` (or stays `timedOut`), the sentence saying why.
fn unclosed_cancel(verdict: &mut Verdict, open: Opener) {
    verdict.cancel = true;
    verdict
        .object
        .get_or_insert_with(|| Map::from_iter([("cancel".to_owned(), Value::Bool(true))]));
    verdict.problem = Some(format!(
        "printed a JSON object with \"cancel\": true that never ends (truncated output?): the one opened at line {} column {} has no closing brace; its cancel was applied and nothing else of it: print the whole object, last on stdout",
        open.line, open.column
    ));
}

/// A verdict printed to stderr by mistake: when nothing on stdout holds a verdict field and
/// stderr's last object does, the warning saying so. Cline reads verdicts from stdout only,
/// so it does not count.
pub fn stderr_verdict(stdout: &Verdict, stderr: &[u8]) -> Option<String> {
    if stdout.object.as_ref().is_some_and(holds_verdict) {
        return None;
    }
    let found = parse(stderr, Profile::Extension);
    let object = found.object.filter(holds_verdict)?;
    let shown = excerpt_json(&Value::Object(object).to_string());
    let effect = if found.cancel {
        ", so it did not block"
    } else {
        ""
    };
    Some(format!(
        "printed {shown} on stderr, where verdicts are not read, and no verdict on stdout{effect}: print the verdict on stdout and keep stderr for logs"
    ))
}

/// Whether `map` holds a verdict field at its top level (rule 1).
pub(crate) fn holds_verdict(map: &Map<String, Value>) -> bool {
    Key::ALL.iter().any(|k| map.contains_key(k.name()))
}

/// Rule 1 to 4: the verdict among the JSON values of stdout.
fn object_rule(kept: &Kept) -> Verdict {
    let scan = &kept.scan;
    match chosen(scan) {
        Some((span, fields)) => object_verdict(kept, span, fields),
        None => Verdict {
            problem: diagnose(kept),
            ..Verdict::default()
        },
    }
}

/// The object rule 1 picks among the values a scan found: the last one holding a verdict
/// field, else the last object; with the verdict fields the scan kept of it.
fn chosen(scan: &Scan) -> Option<(Span, Option<&Fields>)> {
    match (&scan.keyed, scan.last_object) {
        (Some(found), _) => Some((found.span, found.fields.as_deref())),
        (None, Some(span)) => Some((span, None)),
        (None, None) => None,
    }
}

fn broken(problem: String) -> Verdict {
    Verdict {
        problem: Some(problem),
        ..Verdict::default()
    }
}

/// Judges one `HOOK_CONTROL` payload: its verdict and whether text followed its object, or
/// why it is not usable.
pub(crate) fn control_payload(payload: &str) -> Result<(Verdict, bool), String> {
    match verdict::parse_first(payload) {
        Ok((Value::Object(map), end, notes)) => {
            let trailing = !payload[end..].trim().is_empty();
            Ok((from_map(map, notes, Profile::Cli), trailing))
        }
        Ok((other, _, _)) => Err(format!(
            "printed a HOOK_CONTROL line holding {}, not a JSON object",
            describe(&other)
        )),
        Err(err) => deep_control(payload)
            .ok_or_else(|| format!("printed a HOOK_CONTROL line that is not valid JSON: {err}")),
    }
}

/// A control line's object nested deeper than serde_json reads (`JSON.parse` reads any
/// depth): its verdict from the fields the scan kept, when the scan finds it valid.
fn deep_control(payload: &str) -> Option<(Verdict, bool)> {
    let (deepest, end) = verdict::nesting(payload);
    let end = end.filter(|_| deepest > MAX_DEPTH)?;
    let start = payload.len() - payload.trim_start_matches([' ', '\t', '\n', '\r']).len();
    let scan = verdict::scan(&payload[..end]);
    let (span, fields) = chosen(&scan)?;
    if (span.start, span.end) != (start, end) {
        return None;
    }
    let trailing = !payload[end..].trim().is_empty();
    Some((
        from_fields(span, fields, Unkept::Deep, Profile::Cli),
        trailing,
    ))
}

/// Rule 5: the last control line that holds a JSON object is the verdict. A broken control
/// line after it, or text after its object, makes the hook `failed` but never discards it;
/// with no usable control line the final-object rule decides, and the hook is `failed`.
/// When the line does not block, a `"cancel": true` it set aside (on an earlier control
/// line, or in a verdict object anywhere on stdout) is named in a warning.
fn control_verdict(control: Control, scan: &Scan, otherwise: impl FnOnce() -> Verdict) -> Verdict {
    if let Some((mut verdict, trailing)) = control.last {
        // An unclosed `"cancel": true` still blocks (see `unclosed_cancel`).
        if !verdict.cancel && scan.unclosed_cancel.is_none() {
            // The scan counts control lines' objects too: with no cancel on a control line,
            // its cancels are in objects the control line set aside.
            let set_aside = if control.cancels > 0 {
                Some(SetAside::ControlLine)
            } else {
                (scan.cancels > 0).then_some(SetAside::Object)
            };
            if let Some(set_aside) = set_aside {
                let warning = set_aside_cancel(set_aside, &verdict);
                verdict.warnings.push(warning);
            }
        }
        let problem = control.broken_later.or_else(|| {
            trailing.then(|| {
                "printed text after the JSON object of its last HOOK_CONTROL line".to_owned()
            })
        });
        if let Some(problem) = problem {
            let applied = still_applied(&verdict);
            verdict.problem.get_or_insert(format!("{problem}{applied}"));
        }
        return verdict;
    }
    let mut verdict = otherwise();
    if let Some(why) = control.broken_later {
        let applied = if verdict.cancel {
            " (the cancel of its final JSON object was still applied)"
        } else {
            ""
        };
        verdict.problem = Some(format!("{why}{applied}"));
    }
    verdict
}

/// The verdict is the object at `span`; what surrounds it may still make the hook `failed`.
fn object_verdict(kept: &Kept, span: Span, fields: Option<&Fields>) -> Verdict {
    let scan = &kept.scan;
    let mut verdict = match kept.text(span.start, span.end) {
        Some(text) => match verdict::parse_value(text) {
            Ok((Value::Object(map), notes)) => from_map(map, notes, kept.profile),
            // The scan accepts exactly what lenient.rs reads; this only keeps that promise honest.
            Ok((other, _)) => {
                return broken(format!(
                    "printed {} where a JSON object was expected",
                    describe(&other)
                ))
            }
            // Deeper than serde_json reads, but `JSON.parse` reads it: the scan checked it.
            Err(_) if verdict::nesting(text).0 > MAX_DEPTH => {
                from_fields(span, fields, Unkept::Deep, kept.profile)
            }
            Err(err) => {
                return broken(format!(
                    "printed output that looks like JSON but is not valid: {err}"
                ))
            }
        },
        None => from_fields(span, fields, Unkept::Large, kept.profile),
    };
    // An unclosed `"cancel": true` after it still blocks (see `unclosed_cancel`).
    if scan.cancel_replaced && !verdict.cancel && scan.unclosed_cancel.is_none() {
        verdict.warnings.push(replaced_cancel(fields));
    }
    if scan.keyed.is_some() && scan.ignored > 0 {
        verdict.warnings.push(ignored_objects(kept));
    }
    let applied = still_applied(&verdict);
    let unfinished = scan.unclosed.filter(|o| o.at < span.start).map(|open| {
        format!(
            "{}; the last complete object inside it was read as the verdict{applied}",
            never_ends(open, scan.unclosed_lines)
        )
    });
    let last = scan.last_object.map_or(span.end, |o| o.end.max(span.end));
    let after = scan.last_nonblank_end > last;
    // The object is inside something deeper than the scan reads: the rest closes that.
    let too_deep = scan
        .too_deep
        .filter(|o| o.at < span.end && after)
        .map(|o| format!("{}{applied}", nested_too_deep(o)));
    let trailing = after.then(|| {
        let array = scan
            .last_value
            .is_some_and(|v| v.kind == Kind::Array && v.start >= last);
        let what = if array { "a JSON array" } else { "text" };
        format!(
            "printed {what} after its final JSON object{applied}; the JSON object must be the last thing on stdout, so send logs to stderr"
        )
    });
    if let Some(problem) = unfinished.or(too_deep).or(trailing) {
        verdict.problem.get_or_insert(problem);
    }
    verdict
}

/// What a problem sentence adds when the verdict it fails still cancels.
fn still_applied(verdict: &Verdict) -> &'static str {
    if verdict.cancel {
        " (its cancel was still applied)"
    } else {
        ""
    }
}

/// The verdict fields an object holds, named: `a verdict field (cancel)`, or `none` when
/// it holds none.
fn held_fields(holds: impl Fn(Key) -> bool, none: &str) -> String {
    let names: Vec<&str> = Key::ALL
        .into_iter()
        .filter(|&key| holds(key))
        .map(Key::name)
        .collect();
    match names.as_slice() {
        [] => none.to_owned(),
        [one] => format!("a verdict field ({one})"),
        many => format!("verdict fields ({})", many.join(", ")),
    }
}

/// The warning for a `"cancel": true` that a later object holding a verdict field replaced
/// (a SIGTERM trap printing `{"cancel": false}`, a context line printed after the verdict):
/// the rule takes the last such object, so the operation went ahead.
fn replaced_cancel(fields: Option<&Fields>) -> String {
    let held = held_fields(
        |key| fields.is_some_and(|f| f.get(key).is_some()),
        "a verdict field",
    );
    format!(
        "printed {{\"cancel\": true}} earlier, but a later JSON object with {held} replaced it, so the operation was not blocked: only the last JSON object holding a verdict field counts; print one verdict, last on stdout, and logs to stderr"
    )
}

/// Where a `"cancel": true` that the last `HOOK_CONTROL` line set aside was printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetAside {
    /// On an earlier `HOOK_CONTROL` line.
    ControlLine,
    /// In a JSON object holding a verdict field, before or after the control lines.
    Object,
}

/// The warning for a `"cancel": true` that the last `HOOK_CONTROL` line, which does not
/// block, set aside (CLI profile): the line is the verdict, so the operation went ahead.
fn set_aside_cancel(set_aside: SetAside, verdict: &Verdict) -> String {
    let object = verdict.object.as_ref();
    let held = held_fields(
        |key| object.is_some_and(|o| o.contains_key(key.name())),
        "no verdict field",
    );
    match set_aside {
        SetAside::ControlLine => format!(
            "printed {{\"cancel\": true}} on a HOOK_CONTROL line, but a later HOOK_CONTROL line with {held} replaced it, so the operation was not blocked: in the CLI profile only the last HOOK_CONTROL line holding a JSON object counts; print one HOOK_CONTROL line, last, and logs to stderr"
        ),
        SetAside::Object => format!(
            "printed {{\"cancel\": true}} in a JSON object, but in the CLI profile a HOOK_CONTROL line decides the verdict and the last one, with {held}, does not block, so that object was not used and the operation was not blocked: put the cancel on the last HOOK_CONTROL line (HOOK_CONTROL, a tab, {{\"cancel\": true}}), or print no HOOK_CONTROL line"
        ),
    }
}

/// The warning for objects without a verdict field printed after the verdict.
fn ignored_objects(kept: &Kept) -> String {
    let scan = &kept.scan;
    let shown = scan.first_ignored.map_or_else(String::new, |s| {
        kept.text(s.start, s.end)
            .map(excerpt_json)
            .unwrap_or_else(|| format!("a JSON object of {} bytes", s.end - s.start))
    });
    let (what, they) = match scan.ignored {
        1 => (format!("printed {shown} after its verdict"), "it was"),
        n => (
            format!("printed {n} JSON objects after its verdict (the first: {shown})"),
            "they were",
        ),
    };
    format!(
        "{what}; holding none of the verdict fields (cancel, contextModification, errorMessage), {they} ignored and the verdict before counts: print the verdict last, and logs to stderr"
    )
}

/// Why output with no JSON object fails the hook, if it looks like an attempt at a verdict.
fn diagnose(kept: &Kept) -> Option<String> {
    let scan = &kept.scan;
    if let Some(open) = scan.unclosed {
        return Some(never_ends(open, scan.unclosed_lines));
    }
    if let Some(open) = scan.too_deep {
        return Some(nested_too_deep(open));
    }

    // Of a final array, a value that is not valid JSON and a scalar last line: the latest.
    let mut last: Option<(usize, String)> = None;
    if let Some(value) = scan.last_value {
        if scan.last_nonblank_end <= value.end {
            last = Some((value.start, final_value("a JSON array")));
        }
    }
    if let Some(open) = scan.broken {
        if last.as_ref().is_none_or(|(at, _)| open.at > *at) {
            last = Some((open.at, not_valid(kept, open)));
        }
    }
    if let Some((line_at, line)) = last_line(kept) {
        if last.as_ref().is_none_or(|(at, _)| line_at > *at) {
            if let Ok((
                scalar @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)),
                _,
            )) = verdict::parse_value(line)
            {
                last = Some((line_at, final_value(&describe(&scalar))));
            }
        }
    }
    if let Some((_, sentence)) = last {
        return Some(sentence);
    }
    kept.tail
        .trim_end_matches(is_blank)
        .ends_with('}')
        .then(|| "printed output ending in '}' that is not a JSON object".to_owned())
}

/// Where stdout's last line that is not blank starts, and the line without its blanks, when
/// the kept tail holds all of it.
fn last_line(kept: &Kept) -> Option<(usize, &str)> {
    let trimmed = kept.tail.trim_end_matches(is_blank);
    let line_at = match trimmed.rfind('\n') {
        Some(n) => n + 1,
        None if kept.tail_start == 0 => 0,
        None => return None,
    };
    Some((
        kept.tail_start + line_at,
        trimmed[line_at..].trim_matches(is_blank),
    ))
}

fn nested_too_deep(open: Opener) -> String {
    format!(
        "printed JSON nested more than {DEEP_LIMIT} levels deep (at line {} column {}), more than the runner reads; a verdict is a flat object such as {{\"cancel\": false}}",
        open.line, open.column
    )
}

fn final_value(what: &str) -> String {
    format!(
        "printed {what} as its final output; a hook must print a JSON object such as {{\"cancel\": false}}"
    )
}

/// `open` starts a line and stdout ended inside it; `lines` such values are open at the end.
fn never_ends(open: Opener, lines: usize) -> String {
    let line = open.line;
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

/// `open` starts a line and looked like JSON until it stopped being JSON: serde_json says why
/// (when the runner kept the text from there to the end).
fn not_valid(kept: &Kept, open: Opener) -> String {
    let what = match open.kind {
        Kind::Object => "a JSON object",
        Kind::Array => "a JSON array",
    };
    let (line, column) = (open.line, open.column);
    let why = match kept.rest(open.at).and_then(verdict::error_of) {
        Some(err) => {
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
        None => format!("from line {line}"),
    };
    format!(
        "printed output that looks like {what} but is not valid: {why}; fix the JSON (`jq .` shows where) and print it last on stdout"
    )
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

/// JSON text as one short line: blanks collapsed, cut after 80 characters.
fn excerpt_json(text: &str) -> String {
    let start = &text[..text.floor_char_boundary(400)];
    let flat = start.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut shown: String = flat.chars().take(80).collect();
    if shown.len() < flat.len() || start.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// One verdict field as printed, or what the scan kept of it.
enum Field<'a> {
    Value(&'a Value),
    /// A string longer than what was kept of it: its first bytes and its length.
    Cut {
        prefix: &'a str,
        len: usize,
    },
    /// A number too long to keep: its first digits.
    Number {
        prefix: &'a str,
    },
    /// An object or array that was not kept.
    Container(Kind),
    /// `overrideInput`'s JSON, not kept: its length.
    Unkept {
        len: usize,
    },
}

fn what(field: &Field) -> String {
    match field {
        Field::Value(value) => describe(value),
        Field::Cut { prefix, .. } => format!("the string {}", excerpt(&format!("{prefix}…"))),
        Field::Number { prefix } => format!("the number {prefix}…"),
        Field::Container(Kind::Object) | Field::Unkept { .. } => "a JSON object".to_owned(),
        Field::Container(Kind::Array) => "a JSON array".to_owned(),
    }
}

/// The verdict of a whole object.
fn from_map(map: Map<String, Value>, notes: Notes, profile: Profile) -> Verdict {
    let mut verdict = read_fields(|key| map.get(key.name()).map(Field::Value), profile);
    verdict.warnings.extend(notes.warnings());
    verdict.object = Some(map);
    verdict
}

/// Why an object's verdict is read from the fields the scan kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unkept {
    /// Neither kept window holds all of it.
    Large,
    /// It nests deeper than serde_json reads.
    Deep,
}

/// The verdict of an object the runner could not keep whole, from the fields the scan kept.
fn from_fields(span: Span, fields: Option<&Fields>, why: Unkept, profile: Profile) -> Verdict {
    let mut notes = Notes::default();
    let mut whole: [Option<Value>; 7] = Default::default();
    for key in Key::ALL {
        let read = match fields.and_then(|f| f.get(key)) {
            Some(Captured::Token { text, len }) | Some(Captured::Json { text, len })
                if text.len() == *len =>
            {
                verdict::parse_value(text).ok().map(|(value, found)| {
                    notes.absorb(found, key.name());
                    value
                })
            }
            Some(Captured::Text {
                text,
                len,
                lone,
                lones,
            }) => {
                if let Some(unit) = lone {
                    let found = Notes {
                        lone_surrogate: Some(Spot {
                            token: format!("\\u{unit:04x}"),
                            path: String::new(),
                            count: *lones,
                        }),
                        ..Notes::default()
                    };
                    notes.absorb(found, key.name());
                }
                (text.len() == *len).then(|| Value::String(text.clone()))
            }
            _ => None,
        };
        whole[key as usize] = read;
    }
    let get = |key: Key| -> Option<Field> {
        if let Some(value) = &whole[key as usize] {
            return Some(Field::Value(value));
        }
        Some(match fields?.get(key)? {
            Captured::Text { text, len, .. } => Field::Cut {
                prefix: text,
                len: *len,
            },
            Captured::Token { text, .. } => Field::Number { prefix: text },
            Captured::Json { len, .. } => Field::Unkept { len: *len },
            Captured::Container(kind) => Field::Container(*kind),
        })
    };
    let mut verdict = read_fields(get, profile);
    // An object with no verdict field is the verdict only by being the last object.
    let what = if fields.is_some() {
        "a verdict object"
    } else {
        "a JSON object"
    };
    verdict.warnings.push(match why {
        Unkept::Large => format!(
            "printed {what} of {} bytes that the runner could not keep whole (it keeps the first {} MiB and the last {} MiB of stdout): its verdict fields were read as stdout streamed past, and its output holds only those it kept whole",
            span.end - span.start,
            HEAD_KEEP >> 20,
            TAIL_KEEP >> 20
        ),
        Unkept::Deep => format!(
            "printed {what} nested more than {MAX_DEPTH} levels deep, deeper than the runner parses whole: its verdict fields were read as stdout streamed past, and its output holds only those; keep deep data out of the verdict (print it to stderr or a file)"
        ),
    });
    verdict.warnings.extend(notes.warnings());
    let object: Map<String, Value> = Key::ALL
        .into_iter()
        .filter_map(|key| {
            whole[key as usize]
                .clone()
                .map(|value| (key.name().to_owned(), value))
        })
        .collect();
    verdict.object = Some(object);
    verdict
}

/// Checks the known fields' types; unknown fields stay in `object` untouched.
fn read_fields<'a>(get: impl Fn(Key) -> Option<Field<'a>>, profile: Profile) -> Verdict {
    let mut verdict = Verdict::default();
    let mut problems = Vec::new();

    match get(Key::Cancel) {
        None => {}
        Some(Field::Value(Value::Bool(b))) => verdict.cancel = *b,
        Some(other) => problems.push(format!(
            "\"cancel\" must be true or false, but the hook printed {}, so it did not block",
            what(&other)
        )),
    }
    match get(Key::ShouldContinue) {
        None | Some(Field::Value(Value::Bool(true))) => {}
        Some(Field::Value(Value::Bool(false))) => {
            verdict.cancel = true;
            verdict.warnings.push(
                "\"shouldContinue\": false is the older contract; it was read as \"cancel\": true (print {\"cancel\": true} instead)"
                    .to_owned(),
            );
        }
        Some(other) => problems.push(format!(
            "\"shouldContinue\" must be true or false, not {}",
            what(&other)
        )),
    }
    match get(Key::Review) {
        None => {}
        Some(Field::Value(Value::Bool(b))) => verdict.review = *b,
        Some(other) => problems.push(format!(
            "\"review\" must be true or false, not {}",
            what(&other)
        )),
    }

    let [first, second] = context_keys(profile);
    let context = match text_field(&get, first, &mut problems) {
        Some(text) => Some((first, text)),
        None => text_field(&get, second, &mut problems).map(|text| (second, text)),
    };
    if let Some((key, (text, len))) = context {
        verdict.context_modification = cut_text(key.name(), text, len, &mut verdict.warnings);
    }
    if let Some((text, len)) = text_field(&get, Key::ErrorMessage, &mut problems) {
        verdict.error_message = cut_text("errorMessage", text, len, &mut verdict.warnings);
    }
    match get(Key::OverrideInput) {
        None => {}
        Some(Field::Value(Value::Object(o))) => verdict.override_input = Some(o.clone()),
        Some(Field::Unkept { len }) if len > JSON_KEEP => problems.push(format!(
            "\"overrideInput\" is {len} bytes of JSON, more than the {} MiB the runner reads of it, so it was not applied",
            JSON_KEEP >> 20
        )),
        Some(Field::Unkept { .. }) => problems.push(format!(
            "\"overrideInput\" could not be kept whole (more than {} MiB of verdict fields were held at once), so it was not applied",
            CAPTURE_BUDGET >> 20
        )),
        Some(other) => problems.push(format!(
            "\"overrideInput\" must be a JSON object, not {}",
            what(&other)
        )),
    }

    if !problems.is_empty() {
        verdict.problem = Some(format!(
            "printed a verdict with a field of the wrong type: {}",
            problems.join("; ")
        ));
    }
    verdict
}

/// The two names of the context a hook adds, the one that wins first when a hook prints both as
/// strings: the CLI's own `context` in the CLI profile, as the Cline SDK reads it (`typeof
/// context === 'string' ? context : contextModification`); the contract's
/// `contextModification` in the extension profile, whose contract has no `context`. Pure.
pub fn context_keys(profile: Profile) -> [Key; 2] {
    match profile {
        Profile::Cli => [Key::Context, Key::ContextModification],
        Profile::Extension => [Key::ContextModification, Key::Context],
    }
}

/// A string field: its text (or what was kept of it) and its length.
fn text_field<'a>(
    get: &impl Fn(Key) -> Option<Field<'a>>,
    key: Key,
    problems: &mut Vec<String>,
) -> Option<(&'a str, usize)> {
    match get(key)? {
        Field::Value(Value::String(s)) => Some((s, s.len())),
        Field::Cut { prefix, len } => Some((prefix, len)),
        other => {
            problems.push(format!(
                "\"{}\" must be a string, not {}",
                key.name(),
                what(&other)
            ));
            None
        }
    }
}

/// `text` (all of a string of `len` bytes, or its start) within [`MAX_CONTEXT_BYTES`],
/// marker included. Also cuts a Claude hook's texts (claude/output.rs), so both say the same.
pub(crate) fn cut_text(name: &str, text: &str, len: usize, warnings: &mut Vec<String>) -> String {
    if text.len() == len && len <= MAX_CONTEXT_BYTES {
        return text.to_owned();
    }
    let over = len > MAX_CONTEXT_BYTES;
    let marker = |omitted: usize| {
        if over {
            format!("\n[… {omitted} bytes cut by @cline/hooks: {name} is limited to {MAX_CONTEXT_BYTES} bytes]")
        } else {
            format!("\n[… {omitted} bytes not kept by @cline/hooks]")
        }
    };
    // At most `len` bytes are omitted, so a marker sized for `len` always fits.
    let budget = MAX_CONTEXT_BYTES - marker(len).len();
    let keep = text.floor_char_boundary(budget.min(text.len()));
    let omitted = len - keep;
    warnings.push(if over {
        format!(
            "{name} was {len} bytes; it was cut to {MAX_CONTEXT_BYTES} bytes (the limit), {omitted} bytes dropped"
        )
    } else {
        format!(
            "{name} was {len} bytes, but only its first {keep} could be kept (more than {} MiB of verdict fields were held at once); the rest was dropped",
            CAPTURE_BUDGET >> 20
        )
    });
    format!("{}{}", &text[..keep], marker(omitted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::{Duration, Instant};

    fn p(s: &str) -> Verdict {
        parse(s.as_bytes(), Profile::Extension)
    }

    fn cli(s: &str) -> Verdict {
        parse(s.as_bytes(), Profile::Cli)
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
        assert!(problem.contains("that never ends"), "{problem}");
        assert!(problem.contains("opened at line 1"), "{problem}");
        // Issue 18 B3: its own `"cancel": true` counts (it used to be lost).
        assert!(v.cancel);
    }

    /// Issue 18 B3: a hook killed or timed out while printing its verdict, after its
    /// `"cancel": true`, still blocks; only that cancel counts, and only an outermost object's.
    #[test]
    fn an_unclosed_verdict_with_cancel_true_blocks() {
        let data = "d".repeat(100_000);
        for s in [
            format!("{{\"cancel\":true,\"errorMessage\":\"blocked\",\"data\":\"{data}"),
            "log\n  {\"cancel\": true, \"data\": [1, {\"a\": 2}, 3".to_owned(),
            "log: {\"cancel\": true".to_owned(),
            "{\"cancel\":false}\n{\"cancel\":true,\"cancel\":tr".to_owned(),
            format!(
                "{{\"d\":{},\"cancel\":true,\"x\":{}",
                nested(300),
                "[".repeat(300)
            ),
        ] {
            let v = p(&s);
            assert!(v.cancel, "{s:.80}");
            assert_eq!(v.error_message, "", "{s:.80}");
            let problem = v.problem.unwrap_or_default();
            assert!(
                problem.starts_with("printed a JSON object with \"cancel\": true that never ends (truncated output?): the one opened at line "),
                "{s:.80}: {problem}"
            );
            assert!(
                problem.contains("its cancel was applied and nothing else of it"),
                "{problem}"
            );
            let streamed = streamed(s.as_bytes(), 1000, 64, 64);
            assert!(streamed.cancel, "{s:.80}");
        }
        // Not an explicit true, not its own field, not an outermost object: no block.
        for s in [
            "{\"cancel\": tr",
            "{\"cancel\": \"true\", \"x\": 1",
            "{\"cancel\":true,\"cancel\":false,\"x\":",
            "{\"log\": {\"cancel\": true, \"x\": 1",
            "[{\"cancel\": true, \"x\": 1",
            "{\"a\": [\"x\", {\"cancel\":true,",
        ] {
            let v = p(s);
            assert!(!v.cancel, "{s}");
            assert!(v.problem.is_some(), "{s}");
        }
    }

    /// `[` and `]`, `n` of each.
    fn nested(n: usize) -> String {
        format!("{}{}", "[".repeat(n), "]".repeat(n))
    }

    /// Issue 18 B1: JSON nested deeper than serde_json reads (JSON.parse reads any depth)
    /// beside the verdict, before or after its cancel, never drops the cancel; a million
    /// levels cost one linear pass and no stack.
    #[test]
    fn deep_json_beside_the_verdict_keeps_its_cancel() {
        for depth in [126, 127, 128, 129, 1_000, 1_000_000] {
            for cancel_last in [false, true] {
                let cancel = r#""cancel": true, "errorMessage": "blocked""#;
                let deep = format!(r#""d": {}"#, nested(depth));
                let s = if cancel_last {
                    format!("{{{deep}, {cancel}}}\n")
                } else {
                    format!("{{{cancel}, {deep}}}\n")
                };
                let case = format!("depth {depth}, cancel_last={cancel_last}");
                let started = Instant::now();
                let v = p(&s);
                assert!(started.elapsed() < Duration::from_secs(5), "{case}");
                assert!(v.cancel, "{case}");
                assert_eq!(v.error_message, "blocked", "{case}");
                assert_eq!(v.problem, None, "{case}");
                // The object holds `depth + 1` levels: serde_json reads 127.
                if s.len() > MIB {
                    assert!(v.warnings[0].contains("could not keep whole"), "{case}");
                } else if depth + 1 > MAX_DEPTH {
                    assert_eq!(
                        v.warnings,
                        vec!["printed a verdict object nested more than 127 levels deep, deeper than the runner parses whole: its verdict fields were read as stdout streamed past, and its output holds only those; keep deep data out of the verdict (print it to stderr or a file)"],
                        "{case}"
                    );
                    assert_eq!(
                        v.object.unwrap(),
                        serde_json::from_str::<Map<String, Value>>(&format!("{{{cancel}}}"))
                            .unwrap()
                    );
                } else {
                    assert!(v.warnings.is_empty(), "{case}");
                    assert!(v.object.unwrap().contains_key("d"), "{case}");
                }
            }
        }
    }

    /// Issue 18 B1: deep JSON that is not a verdict is what it is (an array, an object, never
    /// closed), named as such, without a stack overflow.
    #[test]
    fn deep_nesting_is_read_without_a_stack_overflow() {
        let problem = p(&nested(1_000_000)).problem.unwrap_or_default();
        assert!(
            problem.contains("JSON array as its final output"),
            "{problem}"
        );
        let problem = p(&"[".repeat(1_000_000)).problem.unwrap_or_default();
        assert!(problem.contains("JSON array that never ends"), "{problem}");
        let v = p(&format!("{{\"a\":{}}}", nested(100_000)));
        assert_eq!(v.problem, None);
        assert!(v.warnings[0].starts_with("printed a JSON object nested more than 127 levels"));
        let deep_keys = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
        assert_eq!(p(&deep_keys).problem, None);
        // Brackets that do not match, however deep, are not JSON: the verdict before counts.
        let v = p(&format!(
            "{{\"cancel\":true}}\n{{\"cancel\":false,\"d\":{}{{]{}}}",
            "[".repeat(200),
            "]".repeat(200)
        ));
        assert!(v.cancel);
    }

    /// A verdict printed after more lines that open arrays never closed than the scan keeps
    /// whole (it keeps the innermost levels too), and deep JSON closed after a verdict inside it.
    #[test]
    fn a_verdict_inside_deep_unclosed_values_still_counts() {
        for lines in [256, 1_000, 100_000] {
            let s = format!("{}{{\"cancel\": true}}\n", "[\"x\",\n".repeat(lines));
            let v = p(&s);
            assert!(v.cancel, "{lines}");
            assert!(v.problem.unwrap().contains("never closed"), "{lines}");
        }
        // Inside values that close, it is no longer the verdict: the arrays hold it.
        let s = format!(
            "{}{{\"cancel\": true}}{}\n",
            "[".repeat(1_000),
            "]".repeat(1_000)
        );
        assert!(!p(&s).cancel);
    }

    /// Issue 18 B1: a deep field in a verdict larger than the kept windows, and in a CLI
    /// control line.
    #[test]
    fn deep_json_in_a_streamed_verdict_or_a_control_line_keeps_its_cancel() {
        let text = format!(
            "{{\"cancel\":true,\"errorMessage\":\"blocked\",\"d\":{},\"data\":\"{}\"}}\n",
            nested(127),
            "d".repeat(3 * MIB)
        );
        let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
        assert!(v.cancel);
        assert_eq!(v.error_message, "blocked");
        assert_eq!(v.problem, None);
        for depth in [127, 10_000] {
            let v = cli(&format!(
                "HOOK_CONTROL\t{{\"cancel\": true, \"errorMessage\": \"blocked\", \"d\": {}}}\n{{\"cancel\":false}}\n",
                nested(depth)
            ));
            assert!(v.cancel, "{depth}");
            assert_eq!(v.error_message, "blocked");
            assert_eq!(v.problem, None, "{depth}");
            assert!(
                v.warnings[0].contains("nested more than 127 levels"),
                "{:?}",
                v.warnings
            );
        }
        // Text after it fails the hook and keeps the cancel, as for a shallow line.
        let v = cli(&format!(
            "HOOK_CONTROL\t{{\"cancel\": true, \"d\": {}}} junk\n",
            nested(200)
        ));
        assert!(v.cancel);
        assert!(v.problem.unwrap().contains("text after"));
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
            let v = parse(&bytes, Profile::Extension);
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

    /// Of `context` and `contextModification` printed as strings, the CLI profile takes
    /// `context` (the Cline SDK's rule), the extension profile `contextModification`, whether
    /// the object is read whole, from a HOOK_CONTROL line, or from what the scan kept of it.
    #[test]
    fn the_cli_profile_prefers_context_and_the_extension_profile_context_modification() {
        let both = "{\"context\": \"cli\", \"contextModification\": \"ext\"}";
        assert_eq!(
            context_keys(Profile::Cli),
            [Key::Context, Key::ContextModification]
        );
        assert_eq!(cli(both).context_modification, "cli");
        assert_eq!(p(both).context_modification, "ext");
        assert_eq!(
            cli(&format!("HOOK_CONTROL\t{both}\n")).context_modification,
            "cli"
        );
        // An empty `context` is a string too: it wins, and adds nothing.
        let empty = cli("{\"context\": \"\", \"contextModification\": \"ext\"}");
        assert_eq!(
            (empty.context_modification.as_str(), empty.problem),
            ("", None)
        );
        // One of the wrong type fails the hook, and the other is read.
        for (text, problem) in [
            (
                "{\"context\": 5, \"contextModification\": \"ext\"}",
                "\"context\" must be a string",
            ),
            ("{\"context\": \"cli\", \"contextModification\": null}", ""),
        ] {
            let v = cli(text);
            let want = if problem.is_empty() { "cli" } else { "ext" };
            assert_eq!(v.context_modification, want, "{text}");
            assert_eq!(
                v.problem.is_some_and(|why| why.contains(problem)),
                !problem.is_empty(),
                "{text}"
            );
        }
        // Neither kept window holds the object: its fields come from the scan, the same way.
        let data = "d".repeat(3 * MIB);
        let big = format!(
            "{{\"context\":\"cli\",\"data\":\"{data}\",\"contextModification\":\"ext\"}}\n"
        );
        for (profile, want) in [(Profile::Cli, "cli"), (Profile::Extension, "ext")] {
            let v = streamed_in(profile, big.as_bytes(), 64 << 10, MIB, MIB);
            assert_eq!(v.context_modification, want, "{profile:?}");
        }
        // A `context` over the limit is cut, and named as printed.
        let long = "x".repeat(MAX_CONTEXT_BYTES + 10);
        let v =
            cli(&serde_json::json!({ "context": long, "contextModification": "ext" }).to_string());
        assert!(v
            .context_modification
            .ends_with("context is limited to 50000 bytes]"));
        assert!(
            v.warnings[0].starts_with("context was 50010 bytes"),
            "{:?}",
            v.warnings
        );
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
    fn unknown_fields_pass_through() {
        let v = p("{\"cancel\":false,\"custom\":{\"k\":[1,2]}}");
        assert_eq!(v.object.unwrap()["custom"]["k"][1], 2);
    }

    /// Reads `bytes` in chunks of `chunk`, keeping `head` and `tail` bytes of text.
    fn streamed(bytes: &[u8], chunk: usize, head: usize, tail: usize) -> Verdict {
        streamed_in(Profile::Extension, bytes, chunk, head, tail)
    }

    fn streamed_in(
        profile: Profile,
        bytes: &[u8],
        chunk: usize,
        head: usize,
        tail: usize,
    ) -> Verdict {
        let mut reader = Reader::with_windows(profile, head, tail);
        for piece in bytes.chunks(chunk) {
            reader.feed(piece);
        }
        read(reader.finish())
    }

    /// Issue 18 item 1: what `JSON.parse` accepts and Python prints by default still blocks,
    /// with a warning naming each oddity.
    #[test]
    fn verdicts_json_parse_accepts_count() {
        let v = p("{\"cancel\":true,\"errorMessage\":\"\\ud83d\"}\n");
        assert!(v.cancel);
        assert_eq!(v.error_message, "\u{fffd}");
        assert_eq!(v.problem, None);
        assert!(
            v.warnings[0].contains("lone UTF-16 surrogate escape \\ud83d in \"errorMessage\""),
            "{:?}",
            v.warnings
        );

        let v = p("{\"cancel\": true, \"score\": NaN, \"range\": [-Infinity, Infinity]}\n");
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        assert_eq!(v.object.unwrap()["score"], Value::Null);
        assert!(
            v.warnings[0]
                .starts_with("printed NaN in \"score\" (and 2 more like it), which is not JSON"),
            "{:?}",
            v.warnings
        );

        let v = p("{\"cancel\": true, \"limit\": 1e400}\n");
        assert!(v.cancel);
        assert_eq!(v.problem, None);
        assert!(
            v.warnings[0]
                .contains("the number 1e400 in \"limit\", beyond the range of a 64-bit float"),
            "{:?}",
            v.warnings
        );

        // An oddity where a boolean belongs is still a wrong type.
        let v = p("{\"cancel\": NaN}");
        assert!(!v.cancel);
        assert!(v
            .problem
            .unwrap()
            .contains("\"cancel\" must be true or false, but the hook printed null"));
    }

    /// Issue 18 item 3b: `null` is a wrong type, as the README says and as Cline's reader
    /// (`typeof output.cancel !== "boolean"`) refuses it.
    #[test]
    fn null_verdict_fields_fail_the_hook() {
        for (s, needle) in [
            (
                "{\"cancel\":null}",
                "\"cancel\" must be true or false, but the hook printed null",
            ),
            (
                "{\"contextModification\":null}",
                "\"contextModification\" must be a string, not null",
            ),
            (
                "{\"errorMessage\":null,\"cancel\":true}",
                "\"errorMessage\" must be a string, not null",
            ),
            (
                "{\"review\":null}",
                "\"review\" must be true or false, not null",
            ),
            (
                "{\"overrideInput\":null}",
                "\"overrideInput\" must be a JSON object, not null",
            ),
        ] {
            let problem = p(s).problem.unwrap_or_default();
            assert!(problem.contains(needle), "{s} -> {problem}");
        }
        // The other fields still count.
        assert!(p("{\"errorMessage\":null,\"cancel\":true}").cancel);
    }

    /// Issue 18 item 3c: a JSON log line after the verdict is not taken as the verdict.
    #[test]
    fn objects_without_verdict_fields_after_the_verdict_are_ignored_and_named() {
        let v = p("{\"cancel\":true,\"errorMessage\":\"no\"}\n{\"status\":\"logged\"}\n");
        assert!(v.cancel);
        assert_eq!(v.error_message, "no");
        assert_eq!(v.problem, None);
        assert_eq!(
            v.warnings,
            vec!["printed {\"status\":\"logged\"} after its verdict; holding none of the verdict fields (cancel, contextModification, errorMessage), it was ignored and the verdict before counts: print the verdict last, and logs to stderr"]
        );
        let v = p("{\"cancel\":true}\n{\n  \"status\": \"logged\"\n}\n{}\n");
        assert!(v.cancel);
        assert!(
            v.warnings[0].starts_with(
                "printed 2 JSON objects after its verdict (the first: { \"status\": \"logged\" })"
            ),
            "{:?}",
            v.warnings
        );
        // A later object with a verdict field is the verdict, as before, and the cancel it
        // replaced is named.
        let v = p("{\"cancel\":true}\n{\"status\":\"logged\"}\n{\"cancel\":false}\n");
        assert!(!v.cancel);
        assert_eq!(v.warnings, vec![replaced("a verdict field (cancel)")]);
        // Text after the last object still fails the hook.
        let v = p("{\"cancel\":true}\n{\"status\":\"logged\"}\ndone\n");
        assert!(v.cancel);
        assert!(v.problem.unwrap().starts_with(
            "printed text after its final JSON object (its cancel was still applied)"
        ));
        // Without any verdict field, the last object is the verdict, silently.
        let v = p("{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(v.object.unwrap()["b"], 2);
        assert!(v.warnings.is_empty());
    }

    /// The warning for a replaced `"cancel": true`, the later object holding `held`.
    fn replaced(held: &str) -> String {
        format!("printed {{\"cancel\": true}} earlier, but a later JSON object with {held} replaced it, so the operation was not blocked: only the last JSON object holding a verdict field counts; print one verdict, last on stdout, and logs to stderr")
    }

    /// A `"cancel": true` replaced by a later object holding a verdict field (a SIGTERM trap's
    /// `{"cancel": false}`, a context line printed after the verdict) is still replaced (the
    /// last one is the verdict) but never silently; read whole or in small windows alike.
    #[test]
    fn a_replaced_cancel_is_named() {
        for (text, held) in [
            (
                "{\"cancel\":true}\n{\"contextModification\":\"x\"}\n",
                "a verdict field (contextModification)",
            ),
            (
                "{\"cancel\": true, \"errorMessage\": \"no\"}\nstopping\n{\"cancel\": false}\n",
                "a verdict field (cancel)",
            ),
            (
                "{\"cancel\":true}\n{\"cancel\":false}\n{\"cancel\":false,\"errorMessage\":\"late\",\"x\":1}\n",
                "verdict fields (cancel, errorMessage)",
            ),
            (
                "{\"cancel\":true} {\"review\":false}",
                "a verdict field (review)",
            ),
        ] {
            for v in [p(text), streamed(text.as_bytes(), 5, 0, 0)] {
                assert!(!v.cancel, "{text}");
                assert_eq!(v.problem, None, "{text}");
                assert_eq!(
                    v.warnings.iter().filter(|w| **w == replaced(held)).count(),
                    1,
                    "{text}: {:?}",
                    v.warnings
                );
            }
        }
        let v = p("{\"cancel\":true}\n{\"contextModification\":\"x\"}\n");
        assert_eq!(v.context_modification, "x");
        assert_eq!(
            v.warnings,
            vec![replaced("a verdict field (contextModification)")]
        );
        // A wrong-typed later cancel fails the hook, and the replaced cancel is named too.
        let v = p("{\"cancel\":true}\n{\"cancel\":\"yes\"}\n");
        assert!(!v.cancel);
        assert!(v
            .problem
            .unwrap()
            .contains("\"cancel\" must be true or false"));
        assert_eq!(v.warnings, vec![replaced("a verdict field (cancel)")]);

        // Nothing was replaced that blocked, or the operation is blocked all the same.
        for text in [
            "{\"cancel\":true}\n{\"status\":\"logged\"}\n",
            "{\"cancel\":false}\n{\"cancel\":true}\n",
            "{\"cancel\":true}\n{\"cancel\":true,\"errorMessage\":\"again\"}\n",
            "{\"cancel\":true}\n{\"shouldContinue\":false}\n",
            "{\"cancel\":true,\"cancel\":false}\n{\"errorMessage\":\"x\"}\n",
            "{\"cancel\":\"true\"}\n{\"errorMessage\":\"x\"}\n",
            "{\"log\":{\"cancel\":true}}\n{\"errorMessage\":\"x\"}\n",
            "[{\"cancel\":true}]\n{\"errorMessage\":\"x\"}\n",
            "{\"cancel\":true}\n{\"cancel\":false}\n{\"cancel\":true,\"data\":\"cut",
        ] {
            for v in [p(text), streamed(text.as_bytes(), 5, 0, 0)] {
                assert!(
                    !v.warnings
                        .iter()
                        .any(|w| w.contains("but a later JSON object")),
                    "{text}: {:?}",
                    v.warnings
                );
            }
        }
        // In the CLI profile a HOOK_CONTROL line is the verdict: the object rule replaced
        // nothing, but the line set the cancel aside, and says so. Without one, the object
        // rule decides, and says so.
        let v =
            cli("{\"cancel\":true}\nHOOK_CONTROL\t{\"cancel\":false}\n{\"errorMessage\":\"x\"}\n");
        assert!(!v.cancel);
        assert_eq!(
            v.warnings,
            vec![set_aside_object("a verdict field (cancel)")]
        );
        let v = cli("{\"cancel\":true}\n{\"errorMessage\":\"x\"}\n");
        assert_eq!(v.warnings, vec![replaced("a verdict field (errorMessage)")]);
    }

    /// The warning for a `"cancel": true` on a HOOK_CONTROL line that a later one, holding
    /// `held`, replaced.
    fn set_aside_line(held: &str) -> String {
        format!("printed {{\"cancel\": true}} on a HOOK_CONTROL line, but a later HOOK_CONTROL line with {held} replaced it, so the operation was not blocked: in the CLI profile only the last HOOK_CONTROL line holding a JSON object counts; print one HOOK_CONTROL line, last, and logs to stderr")
    }

    /// The warning for a `"cancel": true` object that the last HOOK_CONTROL line, holding
    /// `held`, set aside.
    fn set_aside_object(held: &str) -> String {
        format!("printed {{\"cancel\": true}} in a JSON object, but in the CLI profile a HOOK_CONTROL line decides the verdict and the last one, with {held}, does not block, so that object was not used and the operation was not blocked: put the cancel on the last HOOK_CONTROL line (HOOK_CONTROL, a tab, {{\"cancel\": true}}), or print no HOOK_CONTROL line")
    }

    /// The CLI profile's verdict read whole and streamed in pieces through windows too small
    /// to keep any object whole.
    fn both_cli(text: &str) -> [Verdict; 2] {
        [
            cli(text),
            streamed_in(Profile::Cli, text.as_bytes(), 5, 8, 8),
        ]
    }

    /// In the CLI profile the last HOOK_CONTROL line is the verdict (unchanged), but a
    /// `"cancel": true` it set aside, on an earlier control line or in a verdict object
    /// before or after the lines, is named when the line does not block.
    #[test]
    fn a_cancel_a_control_line_set_aside_is_named() {
        for (text, warning, context) in [
            (
                "{\"cancel\":true}\nHOOK_CONTROL\t{\"contextModification\":\"x\"}\n",
                set_aside_object("a verdict field (contextModification)"),
                "x",
            ),
            (
                "HOOK_CONTROL\t{\"contextModification\":\"x\"}\n{\"cancel\":true}\n",
                set_aside_object("a verdict field (contextModification)"),
                "x",
            ),
            (
                "HOOK_CONTROL\t{\"cancel\":true}\nHOOK_CONTROL\t{\"contextModification\":\"x\"}\n",
                set_aside_line("a verdict field (contextModification)"),
                "x",
            ),
            (
                "HOOK_CONTROL\t{\"cancel\":true}\nHOOK_CONTROL\t{\"cancel\":false}\n",
                set_aside_line("a verdict field (cancel)"),
                "",
            ),
            // Both: the control line is named, once.
            (
                "{\"cancel\":true}\n  HOOK_CONTROL\t{\"cancel\": true, \"errorMessage\": \"no\"}\r\nlog\nHOOK_CONTROL\t{\"cancel\":false,\"context\":\"y\"}\n{\"cancel\":true}\n",
                set_aside_line("verdict fields (cancel, context)"),
                "y",
            ),
            (
                "HOOK_CONTROL\t{\"cancel\":true}\nHOOK_CONTROL\t{\"note\":1}\n",
                set_aside_line("no verdict field"),
                "",
            ),
            // Text before it on its line, an object the control line sets aside all the same.
            (
                "gate: {\"cancel\":true} \nHOOK_CONTROL\t{\"review\":true}\n",
                set_aside_object("a verdict field (review)"),
                "",
            ),
        ] {
            for v in both_cli(text) {
                assert!(!v.cancel, "{text}");
                assert_eq!(v.problem, None, "{text}");
                assert_eq!(v.context_modification, context, "{text}");
                assert_eq!(v.warnings, vec![warning.clone()], "{text}");
            }
        }
        // A broken line after the one that decides fails the hook; the cancel is named too.
        for v in
            both_cli("HOOK_CONTROL\t{\"cancel\":true}\nHOOK_CONTROL\t{}\nHOOK_CONTROL\tnot json\n")
        {
            assert!(!v.cancel);
            assert!(v.problem.unwrap().contains("not valid JSON"));
            assert_eq!(v.warnings, vec![set_aside_line("no verdict field")]);
        }

        // Nothing blocking was set aside, or the operation is blocked all the same: cancels
        // in strings, nested values, arrays or log text, a duplicate overridden, a string
        // "true", and a line or unclosed object that blocks.
        for text in [
            "HOOK_CONTROL\t{\"cancel\":false}\n{\"log\":{\"cancel\":true}}\n",
            "HOOK_CONTROL\t{\"cancel\":false}\n{\"msg\":\"{\\\"cancel\\\":true}\",\"errorMessage\":\"e\"}\n",
            "cancel: true\n\"cancel\": true\nHOOK_CONTROL\t{\"cancel\":false}\n",
            "[{\"cancel\":true}]\nHOOK_CONTROL\t{\"cancel\":false}\n",
            "HOOK_CONTROL\t{\"d\":{\"cancel\":true},\"e\":[{\"cancel\":true}]}\nHOOK_CONTROL\t{\"cancel\":false}\n",
            "HOOK_CONTROL\t{\"s\":\"\\\"cancel\\\": true\"}\nHOOK_CONTROL\t{\"cancel\":false}\n",
            "HOOK_CONTROL\t[{\"cancel\":true}]\nHOOK_CONTROL\t{\"cancel\":false}\n",
            "HOOK_CONTROL\t{\"cancel\":true,\"cancel\":false}\nHOOK_CONTROL\t{\"errorMessage\":\"x\"}\n",
            "{\"cancel\":true,\"cancel\":false}\nHOOK_CONTROL\t{\"errorMessage\":\"x\"}\n",
            "{\"cancel\":\"true\"}\nHOOK_CONTROL\t{\"errorMessage\":\"x\"}\n",
            "{\"status\":\"logged\"}\nHOOK_CONTROL\t{\"cancel\":false}\n",
            "{\"cancel\":true}\nHOOK_CONTROL\t{\"cancel\":true}\n",
            "HOOK_CONTROL\t{\"cancel\":true}\nHOOK_CONTROL\t{\"shouldContinue\":false}\n",
            "HOOK_CONTROL\t{\"cancel\":false}\n{\"cancel\":true,\"data\":\"cut",
        ] {
            for v in both_cli(text) {
                assert!(
                    !v.warnings.iter().any(|w| w.contains("HOOK_CONTROL line")),
                    "{text}: {:?}",
                    v.warnings
                );
            }
        }
        // The extension profile has no control lines: such a line is an object like any other.
        let v = p("HOOK_CONTROL\t{\"cancel\":true}\nHOOK_CONTROL\t{\"cancel\":false}\n");
        assert_eq!(v.warnings, vec![replaced("a verdict field (cancel)")]);
    }

    /// A cancel set aside by a HOOK_CONTROL line is named when no object is kept whole: the
    /// counts are taken as stdout streams past.
    #[test]
    fn a_cancel_a_control_line_set_aside_is_named_beyond_the_kept_windows() {
        let flood = "x".repeat(3 * MIB);
        let data = "d".repeat(3 * MIB);
        for (text, warning) in [
            (
                format!("{{\"cancel\":true,\"data\":\"{data}\"}}\n{flood}\nHOOK_CONTROL\t{{\"contextModification\":\"x\"}}\n{flood}\n"),
                set_aside_object("a verdict field (contextModification)"),
            ),
            (
                format!("{flood}\nHOOK_CONTROL\t{{\"contextModification\":\"x\"}}\n{flood}\n{{\"data\":\"{data}\",\"cancel\":true}}\n{flood}\n"),
                set_aside_object("a verdict field (contextModification)"),
            ),
            (
                format!("HOOK_CONTROL\t{{\"cancel\":true}}\n{flood}\nHOOK_CONTROL\t{{\"contextModification\":\"x\"}}\n{flood}\n"),
                set_aside_line("a verdict field (contextModification)"),
            ),
        ] {
            let v = streamed_in(Profile::Cli, text.as_bytes(), 64 << 10, MIB, MIB);
            assert!(!v.cancel);
            assert_eq!(v.context_modification, "x");
            assert_eq!(v.warnings, vec![warning]);
        }
    }

    /// The replaced cancel is named when neither object is kept whole: the earlier one's
    /// cancel and the later one's fields are read as stdout streams past.
    #[test]
    fn a_replaced_cancel_is_named_beyond_the_kept_windows() {
        let flood = "x".repeat(3 * MIB);
        let data = "d".repeat(3 * MIB);
        for text in [
            format!("{{\"cancel\":true,\"data\":\"{data}\"}}\n{flood}\n{{\"contextModification\":\"x\",\"data\":\"{data}\"}}\n"),
            format!("{{\"cancel\":true}}\n{flood}\n{{\"data\":\"{data}\",\"contextModification\":\"x\"}}\n{flood}\n{{\"status\":\"logged\"}}\n"),
        ] {
            let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
            assert!(!v.cancel);
            assert_eq!(v.context_modification, "x");
            assert!(
                v.warnings[0].contains("could not keep whole"),
                "{:?}",
                v.warnings
            );
            assert_eq!(
                v.warnings
                    .iter()
                    .filter(|w| **w == replaced("a verdict field (contextModification)"))
                    .count(),
                1,
                "{:?}",
                v.warnings
            );
        }
        // The same, with the cancel printed after a flood: it still blocks, and no warning.
        let text = format!("{{\"contextModification\":\"x\",\"data\":\"{data}\"}}\n{flood}\n{{\"cancel\":true,\"data\":\"{data}\"}}\n");
        let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
        assert!(v.cancel);
        assert!(!v
            .warnings
            .iter()
            .any(|w| w.contains("but a later JSON object")));
    }

    /// Issue 18 item 3d: UTF-16 (PowerShell's Out-File) is decoded and named.
    #[test]
    fn utf16_output_is_decoded_with_a_warning() {
        let text = "log\r\n{\"cancel\": true, \"errorMessage\": \"nein\"}\r\n";
        let le: Vec<u8> = [0xFEFFu16]
            .into_iter()
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for (bytes, named) in [
            (le, "little-endian, with a byte-order mark"),
            (be, "big-endian"),
        ] {
            let v = parse(&bytes, Profile::Extension);
            assert!(v.cancel);
            assert_eq!(v.error_message, "nein");
            assert_eq!(v.problem, None);
            assert!(
                v.warnings[0].starts_with(&format!("printed UTF-16 ({named}")),
                "{:?}",
                v.warnings
            );
            assert!(v.warnings[0].contains("must print UTF-8"));
        }
    }

    /// Issue 18 B2: UTF-16 that starts with other characters than ASCII still blocks, and
    /// UTF-16 after UTF-8 output fails the hook naming UTF-16.
    #[test]
    fn utf16_not_starting_with_ascii_blocks_and_utf16_after_utf8_is_named() {
        let le = |text: &str, bom: bool| -> Vec<u8> {
            bom.then_some(0xFEFF)
                .into_iter()
                .chain(text.encode_utf16())
                .flat_map(u16::to_le_bytes)
                .collect()
        };
        for (text, bom) in [
            ("检查通过，没有问题。\r\n{\"cancel\":true}\r\n", true),
            ("🛑🛑 blocked\n{\"cancel\":true}", true),
            ("🛑🛑🛑🛑 blocked\n{\"cancel\":true}", true),
            ("✓ lint ok\n{\"cancel\":true}", false),
            ("é{\"cancel\":true}", false),
        ] {
            let v = parse(&le(text, bom), Profile::Extension);
            assert!(v.cancel, "{text}");
            assert_eq!(v.problem, None, "{text}");
            assert!(v.warnings[0].starts_with("printed UTF-16"), "{text}");
        }
        // (UTF-8 within the first KiB is read as UTF-16 with the rest, which is named too.)
        for log in [
            "checking\n".to_owned(),
            "checking.\n".to_owned(),
            "checking...\n".repeat(100),
        ] {
            let mut bytes = log.as_bytes().to_vec();
            bytes.extend(le("{\"cancel\":true}\r\n", false));
            let v = parse(&bytes, Profile::Extension);
            assert!(!v.cancel);
            let at = log.len();
            assert_eq!(
                v.problem.as_deref(),
                Some(Utf16Later::warning(at as u64).as_str())
            );
            assert!(v.problem.unwrap().starts_with(&format!(
                "printed UTF-16 text after UTF-8 output (from byte {at}"
            )));
        }
        // With a verdict read before it, a warning.
        let mut bytes = b"{\"cancel\":true}\n".to_vec();
        bytes.extend(le("{\"cancel\":false}", false));
        let v = parse(&bytes, Profile::Extension);
        assert!(v.cancel);
        assert!(
            v.warnings
                .iter()
                .any(|w| w.starts_with("printed UTF-16 text after UTF-8")),
            "{:?}",
            v.warnings
        );
    }

    /// Issue 18 item 3a: a verdict on stderr does not count (Cline reads stdout), but says so.
    #[test]
    fn a_verdict_on_stderr_is_named() {
        let nothing = p("");
        let warning = stderr_verdict(
            &nothing,
            b"debug\n{\"cancel\": true, \"errorMessage\": \"no\"}\n",
        )
        .unwrap();
        assert_eq!(
            warning,
            "printed {\"cancel\":true,\"errorMessage\":\"no\"} on stderr, where verdicts are not read, and no verdict on stdout, so it did not block: print the verdict on stdout and keep stderr for logs"
        );
        assert!(stderr_verdict(&p("{\"cancel\":false}"), b"{\"cancel\":true}").is_none());
        assert!(stderr_verdict(&nothing, b"{\"level\":\"info\"}\n").is_none());
        assert!(stderr_verdict(&nothing, b"plain log\n").is_none());
    }

    #[test]
    fn error_message_is_cut_at_the_limit_too() {
        let long = "x".repeat(MAX_CONTEXT_BYTES + 10);
        let v = p(&serde_json::json!({ "cancel": true, "errorMessage": long }).to_string());
        assert!(v.cancel);
        assert!(v.error_message.len() <= MAX_CONTEXT_BYTES);
        assert!(v
            .error_message
            .contains("errorMessage is limited to 50000 bytes"));
        assert!(v.warnings[0].starts_with("errorMessage was 50010 bytes"));
    }

    const MIB: usize = 1 << 20;

    /// A verdict with a `data` field of `size` bytes, compact or pretty, `cancel` first or last.
    fn big_verdict(size: usize, pretty: bool, cancel_last: bool) -> String {
        let (nl, ind) = if pretty { ("\n", "  ") } else { ("", "") };
        let cancel = format!("{ind}\"cancel\": true,{nl}{ind}\"errorMessage\": \"blocked\"");
        let data = format!("{ind}\"data\": \"{}\"", "d".repeat(size));
        if cancel_last {
            format!("{{{nl}{data},{nl}{cancel}{nl}}}\n")
        } else {
            format!("{{{nl}{cancel},{nl}{data}{nl}}}\n")
        }
    }

    /// Issue 18 item 2: a verdict object larger than the kept windows still blocks, wherever
    /// its fields are in it.
    #[test]
    fn a_verdict_larger_than_what_is_kept_still_blocks() {
        for size in [2 * MIB, 5 * MIB] {
            for pretty in [false, true] {
                for cancel_last in [false, true] {
                    let text = format!("starting\n{}", big_verdict(size, pretty, cancel_last));
                    let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
                    let case = format!("{size} pretty={pretty} cancel_last={cancel_last}");
                    assert!(v.cancel, "{case}");
                    assert_eq!(v.error_message, "blocked", "{case}");
                    assert_eq!(v.problem, None, "{case}");
                    assert!(
                        v.warnings[0].contains("could not keep whole"),
                        "{case}: {:?}",
                        v.warnings
                    );
                    let object = v.object.unwrap();
                    assert_eq!(object.len(), 2, "{case}: output holds the verdict fields");
                    assert_eq!(object["cancel"], true);
                }
            }
        }
    }

    /// Issue 18 item 2: a pretty verdict whose tail is a long array of objects that say
    /// `"cancel": false` (what the tail alone shows) is still read as the outer object.
    #[test]
    fn nested_objects_in_a_huge_verdict_are_not_the_verdict() {
        for cancel_last in [false, true] {
            let mut text = String::from("{\n  \"cancel\": true,\n  \"data\": [\n");
            if cancel_last {
                text = String::from("{\n  \"data\": [\n");
            }
            while text.len() < 3 * MIB {
                text.push_str(
                    "    {\n      \"cancel\": false,\n      \"errorMessage\": \"item\"\n    },\n",
                );
            }
            text.push_str("    {}\n  ]");
            text.push_str(if cancel_last {
                ",\n  \"cancel\": true\n}\n"
            } else {
                "\n}\n"
            });
            let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
            assert!(v.cancel, "cancel_last={cancel_last}");
            assert_eq!(v.error_message, "");
            assert_eq!(v.problem, None);
        }
    }

    /// A small verdict printed between two floods (in neither kept window) still counts whole,
    /// and one printed before a flood counts, the flood after it failing the hook.
    #[test]
    fn a_verdict_anywhere_in_a_flood_counts() {
        let flood = "x".repeat(3 * MIB);
        let text = format!("{flood}\n{{\"cancel\":true,\"errorMessage\":\"no\"}}\n{flood}\n{{\"status\":\"logged\"}}\n");
        let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
        assert!(v.cancel);
        assert_eq!(v.error_message, "no");
        assert!(v.problem.is_none(), "{:?}", v.problem);
        assert!(
            v.warnings
                .iter()
                .any(|w| w.contains("{\"status\":\"logged\"}")),
            "{:?}",
            v.warnings
        );

        let v = streamed(
            format!("starting\n{{\"cancel\":true}}\n{flood}").as_bytes(),
            64 << 10,
            MIB,
            MIB,
        );
        assert!(v.cancel);
        assert!(v.problem.unwrap().starts_with(
            "printed text after its final JSON object (its cancel was still applied)"
        ));
    }

    /// An object without a verdict field, taken only as the last object, is named a JSON
    /// object, not a verdict, when it is too large to keep.
    #[test]
    fn a_large_object_without_verdict_fields_is_no_verdict_object() {
        let text = format!("{{\"data\":\"{}\"}}\n", "d".repeat(3 * MIB));
        let v = streamed(text.as_bytes(), 64 << 10, MIB, MIB);
        assert!(
            v.warnings[0].starts_with("printed a JSON object of 3145739 bytes that the runner"),
            "{:?}",
            v.warnings
        );
    }

    /// A verdict field longer than the scan keeps is read as the whole text would be: the
    /// same cut, the same marker.
    #[test]
    fn long_fields_read_from_the_stream_are_cut_as_whole_ones() {
        let long = "é".repeat(MAX_CONTEXT_BYTES);
        let text = serde_json::json!({ "cancel": true, "contextModification": long, "overrideInput": {"a": [1, {"b": "}"}]} }).to_string();
        let whole = p(&text);
        let read = streamed(text.as_bytes(), 1000, 0, 0);
        assert_eq!(read.context_modification, whole.context_modification);
        assert_eq!(read.override_input, whole.override_input);
        assert!(read.cancel);
        let too_big = format!(
            "{{\"cancel\":true,\"overrideInput\":{{\"a\":\"{}\"}}}}",
            "x".repeat(JSON_KEEP)
        );
        let v = streamed(too_big.as_bytes(), 64 << 10, 0, 0);
        assert!(v.cancel);
        assert!(v.problem.unwrap().contains("\"overrideInput\" is 1048584 bytes of JSON, more than the 1 MiB the runner reads of it"));
    }

    fn field_value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("null".to_owned()),
            Just("NaN".to_owned()),
            Just("1e400".to_owned()),
            Just("-12.5e3".to_owned()),
            Just(format!("1{}", "0".repeat(80))),
            Just("[1, {\"cancel\": true}]".to_owned()),
            Just("{\"cancel\": false, \"overrideInput\": {\"x\": 1}}".to_owned()),
            Just("{\"a\": [1, \"}\", NaN], \"b\": {\"c\": \"\\ud83d\"}}".to_owned()),
            "\"([a-z {}\\[\\]]|\\\\n|\\\\\"|\\\\u00e9|\\\\ud83d|\\\\ud83d\\\\ude00|\\\\udc00|é|😀){0,12}\"",
            Just(format!("\"{}\"", "ab\\n".repeat(20_000))),
        ]
    }

    fn verdict_object() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            3 => (prop::sample::select(Key::ALL.to_vec()).prop_map(|k| k.name()), field_value()),
            1 => (Just("other"), field_value()),
        ];
        (prop::collection::vec(member, 0..6), prop::bool::ANY).prop_map(|(members, pretty)| {
            let sep = if pretty { ",\n  " } else { "," };
            let body: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("\"{k}\": {v}"))
                .collect();
            format!("{{{}}}", body.join(sep))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 400,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Issue 18 item 2: a verdict read from the fields the scan kept is the verdict read
        /// from its whole text (only `output` and one warning differ).
        #[test]
        fn kept_fields_read_as_the_whole_object(
            object in verdict_object(),
            before in "(log [a-z]{0,8}\n){0,2}",
            after in prop_oneof![Just(""), Just("\n"), Just("\n{\"status\": 1}\n"), Just("\ntrailing\n")],
            chunk in 1usize..64,
        ) {
            let text = format!("{before}{object}{after}");
            let whole = p(&text);
            let kept = streamed(text.as_bytes(), chunk, 0, 0);
            prop_assert_eq!(kept.cancel, whole.cancel, "{}", text);
            prop_assert_eq!(kept.review, whole.review, "{}", text);
            prop_assert_eq!(&kept.context_modification, &whole.context_modification, "{}", text);
            prop_assert_eq!(&kept.error_message, &whole.error_message, "{}", text);
            prop_assert_eq!(&kept.override_input, &whole.override_input, "{}", text);
            prop_assert_eq!(&kept.problem, &whole.problem, "{}", text);
        }
    }
}
