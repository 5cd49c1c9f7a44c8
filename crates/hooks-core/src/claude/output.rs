//! A Claude hook's answer read into the verdict a hook file gives (Claude Code's hook contract,
//! code.claude.com/docs/en/hooks): exit code 2 blocks with stderr as the reason; on exit 0, its
//! JSON (`continue`, `decision`, `hookSpecificOutput`, ...) or, for UserPromptSubmit and
//! SessionStart, its plain text as context. Pure.
//!
//! The rules, as Claude Code applies them and where this runtime differs:
//!
//! 1. **Exit 2** blocks what the event is about (PreToolUse, UserPromptSubmit, Stop,
//!    SubagentStop, PreCompact since Claude Code 2.1.105, and any event not known to be
//!    non-blocking), stderr (trimmed) being the reason; it is the hook's answer, not a failure
//!    (`exit_is_answer`). On PostToolUse (and PostToolUseFailure) the tool already ran and
//!    Claude Code shows stderr to the model: it is `context_modification`, and it does NOT
//!    cancel, because Cline's PostToolUse cancel stops the whole task, which is not what a
//!    Claude hook author asks for (the usual use is "lint failed: fix it"). On SessionStart,
//!    SessionEnd, Notification and the other events where Claude Code only shows stderr to the
//!    user, nothing is blocked and stderr becomes a warning ([`exit_two`]). On Stop and
//!    SubagentStop a Claude block means "keep working, for this reason"; Cline's TaskComplete
//!    cannot resume the model, so it is read as a cancel with that reason, which the runner
//!    treats as it treats a hook file's cancel there.
//! 2. **Other non-zero exits**, and a hook stopped before it exited, are non-blocking errors
//!    (`exit_is_answer` false: the runner marks the run failed).
//! 3. **A block printed on stdout is never dropped**, whatever the ending: `"continue": false`,
//!    `"decision": "block"`, `permissionDecision` `"deny"` (and `"ask"`, which asks the user, or
//!    blocks in the extension) count on every exit code, in JSON printed after log lines, and
//!    in text that is not valid JSON but holds one of them (a truncated or Python-style object,
//!    read leniently). An ask on an ending that fails the hook (not 0 or 2) is a block: the
//!    runner takes only a cancel from a failed hook, and an ask is stricter than going ahead.
//!    Misplaced answers the author meant as blocks block too, with a warning saying where they
//!    belong: Cline's `"cancel": true` (a hook file's answer) and a `permissionDecision` at the
//!    top level instead of in `hookSpecificOutput`. Everything else (`additionalContext`, `updatedInput`, `systemMessage`,
//!    plain text as context) applies on exit 0 only, as in Claude Code, which reads stdout
//!    only then; on other endings a warning names what was not applied.
//! 4. **Exit 0**: stdout, trimmed, that starts with `{` and is one JSON object is read field by
//!    field; a field of the wrong type is named in a warning (a value that reads as a block,
//!    `"continue": "false"` or `"permissionDecision": "Deny"`, blocks all the same: fail
//!    closed). Any other stdout is text: context for UserPromptSubmit and SessionStart, else
//!    ignored.
//! 5. Texts are cut to [`MAX_CONTEXT_BYTES`](crate::verdict::MAX_CONTEXT_BYTES) with the
//!    marker a hook file's verdict gets. `problem` stays `None`: Claude Code never fails a hook
//!    for what it printed (what is not its JSON is text), so neither does this reader.

use serde_json::{Map, Value};

use crate::discovery::Profile;
use crate::verdict::{cut_text, Verdict};

/// How a Claude hook ended, as its reader needs it.
#[derive(Debug, Clone, Copy)]
pub struct Ended<'a> {
    /// The Claude event it ran for (`PreToolUse`).
    pub event: &'a str,
    /// Its exit code; `None` when it did not exit on its own (stopped at its deadline, by an
    /// abort or `terminateAll()`, or by a signal).
    pub exit_code: Option<i32>,
    /// All of stdout's text; `None` when it was longer than the runtime keeps.
    pub stdout: Option<&'a str>,
    /// Stderr's text (its last 16 KiB).
    pub stderr: &'a str,
    /// Whose conventions the verdict follows (`ask` is the cli profile's `review`).
    pub profile: Profile,
}

/// What a Claude hook said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeAnswer {
    /// The verdict, as a hook file's would be.
    pub verdict: Verdict,
    /// Whether its exit code is its answer (2: a block, or stderr for the model or the user
    /// on events that exit 2 does not block), not a failure. `false` for exit 0, which is
    /// never a failure, and for every other ending.
    pub exit_is_answer: bool,
}

/// What Claude Code does when a hook exits with code 2 (or prints `"decision": "block"`) on an
/// event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitTwo {
    /// Blocks what the event is about, stderr being the reason.
    Blocks,
    /// Shows stderr to the model: what the event is about already happened (PostToolUse).
    ToModel,
    /// Shows stderr to the user only; nothing is blocked (SessionStart, Notification, ...).
    ToUser,
}

/// What exit code 2 does on the Claude event `event`, per Claude Code's table ("Exit code 2
/// behavior per event"). PreCompact blocks (Claude Code 2.1.105 made it blockable); an event
/// this table does not name blocks, failing closed.
pub fn exit_two(event: &str) -> ExitTwo {
    match event {
        "PostToolUse" | "PostToolUseFailure" => ExitTwo::ToModel,
        "SessionStart" | "SessionEnd" | "Notification" | "SubagentStart" | "PostCompact"
        | "InstructionsLoaded" | "StopFailure" | "CwdChanged" | "FileChanged"
        | "WorktreeRemove" => ExitTwo::ToUser,
        _ => ExitTwo::Blocks,
    }
}

/// The events whose plain stdout (on exit 0) Claude Code adds to the model's context.
fn text_is_context(event: &str) -> bool {
    matches!(event, "UserPromptSubmit" | "SessionStart")
}

/// Reads a Claude hook's answer.
pub fn read_output(ended: &Ended) -> ClaudeAnswer {
    let event = ended.event;
    let mut said = match ended.stdout {
        Some(stdout) => read_stdout(stdout, event, ended.profile),
        None => Said {
            warnings: vec![
                "printed more on stdout than the runner keeps, so its stdout was not read (a block printed there was lost): print only its JSON answer on stdout, and logs on stderr"
                    .to_owned(),
            ],
            ..Said::default()
        },
    };
    let mut verdict = Verdict {
        object: said.object.take(),
        ..Verdict::default()
    };
    let mut warnings = std::mem::take(&mut said.warnings);
    let mut context: Vec<(&'static str, String)> = Vec::new();
    // Exit 2's reason, when stderr gives one: it wins over stdout's (Claude Code reads stderr).
    let mut message: Option<(&'static str, String)> = None;
    let stderr = ended.stderr.trim();

    match ended.exit_code {
        Some(0) => {}
        Some(2) => match exit_two(event) {
            ExitTwo::Blocks => {
                verdict.cancel = true;
                if !stderr.is_empty() {
                    message = Some(("stderr", stderr.to_owned()));
                }
            }
            ExitTwo::ToModel if stderr.is_empty() => warnings.push(format!(
                "exited with code 2 and printed nothing on stderr: on {event} Claude Code shows stderr to the model (the tool already ran, so it blocks nothing); print what the model should know on stderr"
            )),
            ExitTwo::ToModel => context.push(("stderr", stderr.to_owned())),
            ExitTwo::ToUser => warnings.push(if stderr.is_empty() {
                format!(
                    "exited with code 2, which does not block {event} in Claude Code, and printed nothing on stderr; to stop, print {{\"continue\": false, \"stopReason\": \"...\"}} and exit 0"
                )
            } else {
                format!(
                    "exited with code 2, which does not block {event} in Claude Code (it shows stderr to the user): {}",
                    excerpt(stderr, 2000)
                )
            }),
        },
        Some(127) => warnings.push(
            "exited with code 127, which usually means its command was not found: check the command in the settings file (a failed hook does not block, in Claude Code either)"
                .to_owned(),
        ),
        Some(126) => warnings.push(
            "exited with code 126, which usually means its command is not executable: make the script executable or run it through its interpreter in the settings file"
                .to_owned(),
        ),
        Some(_) | None => {}
    }

    // Rule 3: a printed block counts on every ending.
    if let Some(block) = said.block.take() {
        verdict.cancel = true;
        message.get_or_insert(block);
    }
    if verdict.cancel && message.is_none() {
        message = Some((
            "stderr",
            format!(
                "Blocked by a Claude Code {event} hook that exited with code 2 and printed nothing on stderr (Claude Code shows stderr as the reason: print it there)."
            ),
        ));
    }
    if let Some(reason) = said.review.take() {
        if matches!(ended.exit_code, Some(0 | 2)) {
            verdict.review = true;
            if !verdict.cancel {
                message = Some(reason);
            }
        } else {
            // Any other ending fails the hook, and the runner takes only a cancel from a hook
            // that failed (`verdict::combine`): a review would be dropped without a word. An
            // ask is stricter than going ahead, so it counts as a block here (rule 3).
            let done = if verdict.cancel {
                "the block it printed stands"
            } else {
                "it was read as a block (fail closed)"
            };
            warnings.push(format!(
                "{} after printing \"permissionDecision\": \"ask\"; a hook that fails cannot ask for a review, so {done}: exit 0 after printing \"ask\"",
                ending(ended.exit_code)
            ));
            if !verdict.cancel {
                verdict.cancel = true;
                message = Some(reason);
            }
        }
    }

    if ended.exit_code == Some(0) {
        context.append(&mut said.context);
        verdict.override_input = said.override_input.take();
        if let Some(system) = said.system_message.take() {
            if message.is_none() {
                message = Some(("systemMessage", system));
            } else {
                warnings.push(format!(
                    "printed a systemMessage beside the reason for its answer; Cline shows one message, the reason, so the systemMessage was not shown: {}",
                    excerpt(&system, 400)
                ));
            }
        }
    } else {
        let unapplied = said.exit_zero_only();
        if !unapplied.is_empty() {
            warnings.push(format!(
                "{}, so the {} it printed on stdout {} not applied: Claude Code reads a hook's stdout only when it exits 0 (a block printed there still counts)",
                ending(ended.exit_code),
                list(&unapplied),
                if unapplied.len() == 1 { "was" } else { "were" }
            ));
        }
    }

    if !context.is_empty() {
        let name = match context.as_slice() {
            [(name, _)] => *name,
            _ => "additionalContext",
        };
        let text = context
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join("\n\n");
        verdict.context_modification = cut(name, &text, &mut warnings);
    }
    if let Some((name, text)) = message {
        verdict.error_message = cut(name, &text, &mut warnings);
    }
    verdict.warnings = warnings;
    ClaudeAnswer {
        verdict,
        exit_is_answer: ended.exit_code == Some(2),
    }
}

/// What stdout said, before the exit code decides what of it applies.
#[derive(Debug, Default)]
struct Said {
    /// The JSON object, when stdout was one.
    object: Option<Map<String, Value>>,
    /// The first block found (`continue: false`, a deny, a block) and its message, named by
    /// the field it came from (for the cut's marker).
    block: Option<(&'static str, String)>,
    /// `permissionDecision: "ask"` in the cli profile: the message.
    review: Option<(&'static str, String)>,
    /// Context for the model, by the field it came from (exit 0 only).
    context: Vec<(&'static str, String)>,
    /// `updatedInput` (exit 0 only).
    override_input: Option<Map<String, Value>>,
    /// `systemMessage` (exit 0 only).
    system_message: Option<String>,
    warnings: Vec<String>,
}

impl Said {
    fn block(&mut self, field: &'static str, message: String) {
        self.block.get_or_insert((field, message));
    }

    /// The fields read that apply on exit 0 only, by name.
    fn exit_zero_only(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for (name, _) in &self.context {
            let name = match *name {
                "stdout" => "text (context for the model)",
                "reason" => "decision \"block\" reason (context for the model)",
                other => other,
            };
            if !names.contains(&name) {
                names.push(name);
            }
        }
        if self.override_input.is_some() {
            names.push("updatedInput");
        }
        if self.system_message.is_some() {
            names.push("systemMessage");
        }
        names
    }
}

/// Reads stdout as Claude Code does (one JSON object, else text), and finds any block printed
/// in it (rule 3).
fn read_stdout(stdout: &str, event: &str, profile: Profile) -> Said {
    let text = stdout.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Said::default();
    }
    let mut said = Said::default();
    if text_is_context(event) {
        said.context.push(("stdout", text.to_owned()));
    }
    if text.starts_with('{') {
        match serde_json::from_str::<Map<String, Value>>(text) {
            Ok(map) => {
                let mut said = read_object(&map, event, profile);
                said.object = Some(map);
                return said;
            }
            Err(err) => {
                let found = loose_blocks(text, event, &mut said);
                said.warnings.insert(
                    0,
                    format!(
                        "printed text that starts with \"{{\" but is not valid JSON ({err}), so Claude Code would read it as plain text{}: print one JSON object, alone on stdout",
                        if found { ", not as a block; the block it holds was applied all the same (fail closed)" } else { "" }
                    ),
                );
            }
        }
        return said;
    }
    embedded_json(text, event, profile, &mut said);
    said
}

/// The lines of `text` that start with `{` (after blanks): the byte offset of each brace.
fn brace_lines(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.len() - line.trim_start_matches([' ', '\t', '\r']).len();
        if line[blank..].starts_with('{') {
            starts.push(offset + blank);
        }
        offset += line.len();
    }
    starts
}

/// Stdout that is text, and has a line starting with `{`: a JSON object printed after log
/// lines, which Claude Code reads as text. Its block still counts (rule 3), with a warning;
/// with no whole object, the lenient reading looks for one.
fn embedded_json(text: &str, event: &str, profile: Profile, said: &mut Said) {
    let starts = brace_lines(text);
    let Some(&first) = starts.first() else {
        return;
    };
    // A few tries, from the first and the last such lines, keep this linear in stdout's size.
    let tries = starts
        .iter()
        .take(4)
        .chain(starts.iter().skip(4).rev().take(4));
    for &at in tries {
        let Ok(map) = serde_json::from_str::<Map<String, Value>>(&text[at..]) else {
            continue;
        };
        let mut inner = read_object(&map, event, profile);
        let line = text[..at].matches('\n').count() + 1;
        let blocks = inner.block.is_some() || inner.review.is_some();
        said.warnings.push(format!(
            "printed a JSON object after other text (from line {line}), so Claude Code would read all of stdout as text{}: print the JSON object alone on stdout, and logs on stderr",
            if blocks { "; its block was applied all the same (fail closed)" } else { " and none of its fields was applied" }
        ));
        if blocks {
            said.warnings.append(&mut inner.warnings);
        }
        said.block = inner.block;
        said.review = inner.review;
        return;
    }
    loose_blocks(&text[first..], event, said);
}

/// A block found by the lenient reading of text that is not JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loose {
    ContinueFalse,
    CancelTrue,
    Deny,
    DecisionBlock,
}

/// Rule 3 for text that is not valid JSON: `"continue": false`, Cline's `"cancel": true`,
/// `"permissionDecision": "deny"` or `"decision": "block"` (keys in double or single quotes, values bare or quoted,
/// any case: a truncated object, Python's `repr`) blocks all the same, with a warning.
/// Returns whether it found one.
fn loose_blocks(text: &str, event: &str, said: &mut Said) -> bool {
    let found = [
        ("continue", Loose::ContinueFalse),
        ("cancel", Loose::CancelTrue),
        ("permissionDecision", Loose::Deny),
        ("decision", Loose::DecisionBlock),
    ]
    .into_iter()
    .filter(|(key, kind)| loose_values(text, key).any(|value| loose_match(*kind, &value)))
    .map(|(_, kind)| kind);
    let mut blocked = false;
    for kind in found {
        let (what, counts) = match kind {
            Loose::ContinueFalse => ("\"continue\": false", true),
            Loose::CancelTrue => ("Cline's \"cancel\": true", true),
            Loose::Deny => ("\"permissionDecision\": \"deny\"", true),
            Loose::DecisionBlock => (
                "\"decision\": \"block\"",
                exit_two(event) == ExitTwo::Blocks,
            ),
        };
        if !counts {
            continue;
        }
        blocked = true;
        said.block(
            "stdout",
            format!(
                "Blocked by a Claude Code {event} hook whose output was not valid JSON but held {what}."
            ),
        );
        said.warnings.push(format!(
            "printed {what} in text that is not valid JSON; it was read as a block all the same (fail closed): print one valid JSON object, alone on stdout"
        ));
    }
    blocked
}

/// The values printed after `key` (quoted with `"` or `'`) and a colon, lowercased: a quoted
/// value's first word, or a bare one.
fn loose_values<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = String> + 'a {
    text.match_indices(key).filter_map(move |(at, _)| {
        let quote = text[..at]
            .chars()
            .next_back()
            .filter(|c| matches!(c, '"' | '\''))?;
        let rest = text[at + key.len()..].strip_prefix(quote)?;
        let rest = rest.trim_start().strip_prefix(':')?.trim_start();
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest).trim_start();
        Some(
            rest.chars()
                .take_while(|c| c.is_alphanumeric())
                .take(16)
                .collect::<String>()
                .to_lowercase(),
        )
    })
}

fn loose_match(kind: Loose, value: &str) -> bool {
    match kind {
        Loose::ContinueFalse => matches!(value, "false" | "0" | "no"),
        Loose::CancelTrue => matches!(value, "true" | "1" | "yes"),
        Loose::Deny | Loose::DecisionBlock => deny_word(value),
    }
}

/// A word that means "no" to a tool call: read as a block when printed where `"block"` or
/// `"deny"` belongs (fail closed).
fn deny_word(value: &str) -> bool {
    matches!(
        value,
        "deny" | "denied" | "block" | "blocked" | "reject" | "rejected"
    )
}

/// A word that means "yes" to a tool call.
fn allow_word(value: &str) -> bool {
    matches!(value, "allow" | "allowed" | "approve" | "approved")
}

/// The value of `key`, `null` read as absent (what Python prints for `None`).
fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

/// A string field; another type is named in a warning and ignored.
fn text_field<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    at: &str,
    warnings: &mut Vec<String>,
) -> Option<&'a str> {
    match field(map, key)? {
        Value::String(text) => Some(text),
        other => {
            warnings.push(format!(
                "\"{at}{key}\" must be a string, not {}; it was ignored",
                describe(other)
            ));
            None
        }
    }
}

/// Reads the fields of the JSON object a hook printed, per its event.
fn read_object(map: &Map<String, Value>, event: &str, profile: Profile) -> Said {
    let mut said = Said::default();
    let warnings = &mut said.warnings;
    let stop_reason = text_field(map, "stopReason", "", warnings).map(str::to_owned);
    let reason = text_field(map, "reason", "", warnings).map(str::to_owned);
    let system = text_field(map, "systemMessage", "", warnings).map(str::to_owned);
    match field(map, "suppressOutput") {
        None | Some(Value::Bool(_)) => {}
        Some(other) => warnings.push(format!(
            "\"suppressOutput\" must be true or false, not {}; it has no effect here anyway",
            describe(other)
        )),
    }

    // `continue: false` stops everything, and its stopReason is the message (Claude Code:
    // it takes precedence over any decision).
    let stop = |said: &mut Said| {
        let message = stop_reason.clone().unwrap_or_else(|| {
            format!("Stopped by a Claude Code {event} hook (\"continue\": false, without a stopReason).")
        });
        said.block("stopReason", message);
    };
    if map.get("continue").is_some_and(Value::is_null) {
        said.warnings.push(
            "\"continue\" is null, which is neither true nor false; it was read as true (go on): print true, or false to stop"
                .to_owned(),
        );
    }
    match field(map, "continue") {
        None | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => stop(&mut said),
        Some(other) if reads_false(other) => {
            said.warnings.push(format!(
                "\"continue\" must be true or false, not {}; it was read as false and stopped (fail closed)",
                describe(other)
            ));
            stop(&mut said);
        }
        Some(other) => said.warnings.push(format!(
            "\"continue\" must be true or false, not {}; it was ignored",
            describe(other)
        )),
    }

    if let Some(specific) = field(map, "hookSpecificOutput") {
        match specific {
            Value::Object(specific) => read_specific(specific, event, profile, &mut said),
            other => said.warnings.push(format!(
                "\"hookSpecificOutput\" must be a JSON object, not {}; it was ignored",
                describe(other)
            )),
        }
    }
    // Misplaced: Claude Code reads it only in hookSpecificOutput, but a printed deny is never
    // dropped (rule 3), so it is read here too.
    if field(map, "permissionDecision").is_some() {
        said.warnings.push(
            "printed \"permissionDecision\" at the top level of its JSON, where Claude Code does not read it; it was read all the same, so that a deny blocks (fail closed): put it in \"hookSpecificOutput\", as {\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"...\"}}"
                .to_owned(),
        );
        read_permission(map, "", event, profile, &mut said);
    }
    cline_fields(map, event, &mut said);

    match field(map, "decision") {
        None => {}
        Some(Value::String(s)) if s == "block" => decision_block(reason, event, &mut said),
        // PreToolUse's deprecated "approve": allow, which blocks nothing.
        Some(Value::String(s)) if s == "approve" => {}
        Some(Value::String(s)) => {
            let word = s.trim().to_lowercase();
            if deny_word(&word) {
                said.warnings.push(format!(
                    "\"decision\" must be \"block\" (or PreToolUse's older \"approve\"), not {}; it was read as \"block\" (fail closed)",
                    describe(&Value::String(s.clone()))
                ));
                decision_block(reason, event, &mut said);
            } else {
                let read = if allow_word(&word) {
                    "it was read as \"approve\", which blocks nothing"
                } else {
                    "it was ignored"
                };
                said.warnings.push(format!(
                    "\"decision\" must be \"block\" (or PreToolUse's older \"approve\"), not {}; {read}",
                    describe(&Value::String(s.clone()))
                ));
            }
        }
        Some(other) => said.warnings.push(format!(
            "\"decision\" must be the string \"block\", not {}; it was ignored",
            describe(other)
        )),
    }
    said.system_message = system;
    said
}

/// The fields of a Cline hook file's verdict (`cancel`, `contextModification`,
/// `errorMessage`), printed by a Claude handler: Claude Code ignores them, but `"cancel":
/// true` means the author wanted to block, so it blocks (fail closed), `errorMessage` being
/// its reason; each is named in a warning that says how a Claude Code hook answers.
fn cline_fields(map: &Map<String, Value>, event: &str, said: &mut Said) {
    const HOW: &str = "a Claude Code hook blocks by exiting with code 2 (the reason on stderr) or by printing \"decision\": \"block\" with a \"reason\", or {\"hookSpecificOutput\": {\"permissionDecision\": \"deny\"}} before a tool";
    let cancel = field(map, "cancel");
    let blocks = match cancel {
        Some(Value::Bool(b)) => *b,
        Some(other) => reads_true(other),
        None => false,
    };
    let reason = field(map, "errorMessage")
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty());
    if blocks {
        said.warnings.push(format!(
            "printed \"cancel\": {}, a Cline hook file's answer, which Claude Code ignores; it was read as a block all the same (fail closed): {HOW}",
            cancel.map_or_else(String::new, Value::to_string)
        ));
        match reason {
            Some(reason) => said.block("errorMessage", reason.to_owned()),
            None => said.block(
                "cancel",
                format!(
                    "Blocked by a Claude Code {event} hook that printed Cline's \"cancel\": true."
                ),
            ),
        }
    } else if let Some(cancel) = cancel {
        said.warnings.push(format!(
            "printed \"cancel\": {}, a Cline hook file's field, which Claude Code ignores; it was ignored, so nothing was blocked: {HOW}",
            excerpt(&cancel.to_string(), 40)
        ));
    }
    if reason.is_some() && !blocks {
        said.warnings.push(
            "printed \"errorMessage\", a Cline hook file's field, which Claude Code ignores; it was ignored: a Claude Code hook gives its reason in \"reason\" (with \"decision\": \"block\") or \"systemMessage\""
                .to_owned(),
        );
    }
    if field(map, "contextModification").is_some() {
        said.warnings.push(
            "printed \"contextModification\", a Cline hook file's field, which Claude Code ignores; it was ignored: a Claude Code hook adds context with {\"hookSpecificOutput\": {\"hookEventName\": \"...\", \"additionalContext\": \"...\"}}"
                .to_owned(),
        );
    }
}

/// Whether a `cancel` of the wrong type reads as true: the string `"true"`, `"yes"`, the
/// number 1 (fail closed, as `reads_false` for `continue`).
fn reads_true(value: &Value) -> bool {
    match value {
        Value::String(s) => matches!(s.trim().to_lowercase().as_str(), "true" | "yes" | "1"),
        Value::Number(n) => n.as_f64() == Some(1.0),
        _ => false,
    }
}

/// Whether a `continue` of the wrong type reads as false: the string `"false"`, `"no"`, the
/// number 0.
fn reads_false(value: &Value) -> bool {
    match value {
        Value::String(s) => matches!(s.trim().to_lowercase().as_str(), "false" | "no" | "0"),
        Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

/// `"decision": "block"`, per event (rule 1: what exit 2 does there).
fn decision_block(reason: Option<String>, event: &str, said: &mut Said) {
    match exit_two(event) {
        ExitTwo::Blocks => {
            let message = reason.unwrap_or_else(|| {
                format!("Blocked by a Claude Code {event} hook (\"decision\": \"block\", without a reason).")
            });
            said.block("reason", message);
        }
        ExitTwo::ToModel => match reason.filter(|r| !r.trim().is_empty()) {
            // Before additionalContext: the reason is what the hook answered.
            Some(reason) => said.context.insert(0, ("reason", reason)),
            None => said.warnings.push(format!(
                "printed \"decision\": \"block\" without a reason: on {event} Claude Code shows the reason to the model (the tool already ran, so it blocks nothing); add a \"reason\""
            )),
        },
        ExitTwo::ToUser => said.warnings.push(format!(
            "printed \"decision\": \"block\", which does nothing on {event} in Claude Code; to stop, print \"continue\": false with a \"stopReason\""
        )),
    }
}

/// What `permissionDecision` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Permission {
    Allow,
    Deny,
    Ask,
}

/// `hookSpecificOutput`: `permissionDecision` (PreToolUse), `updatedInput` (PreToolUse),
/// `additionalContext`.
fn read_specific(specific: &Map<String, Value>, event: &str, profile: Profile, said: &mut Said) {
    const AT: &str = "hookSpecificOutput.";
    match field(specific, "hookEventName") {
        None => {}
        Some(Value::String(name)) if name == event => {}
        Some(other) => said.warnings.push(format!(
            "\"hookSpecificOutput.hookEventName\" is {}, but the hook ran for {event}; its fields were read all the same: print \"hookEventName\": \"{event}\"",
            describe(other)
        )),
    }
    read_permission(specific, AT, event, profile, said);
    match field(specific, "updatedInput") {
        None => {}
        Some(Value::Object(input)) if event == "PreToolUse" => {
            said.override_input = Some(input.clone());
        }
        Some(Value::Object(_)) => said.warnings.push(format!(
            "printed \"hookSpecificOutput.updatedInput\" for {event}, where only PreToolUse can change a tool's input; it was ignored"
        )),
        Some(other) => said.warnings.push(format!(
            "\"hookSpecificOutput.updatedInput\" must be a JSON object (the tool's whole input), not {}; it was ignored",
            describe(other)
        )),
    }
    if let Some(context) = text_field(specific, "additionalContext", AT, &mut said.warnings) {
        if !context.is_empty() {
            said.context.push(("additionalContext", context.to_owned()));
        }
    }
}

/// `permissionDecision` (and its `permissionDecisionReason`) in `map`, the object at `at`
/// (`hookSpecificOutput.`, or "" for the top level, where a hook misplaced it: its `reason`
/// is then the reason when it has no `permissionDecisionReason`).
fn read_permission(
    map: &Map<String, Value>,
    at: &str,
    event: &str,
    profile: Profile,
    said: &mut Said,
) {
    let mut reason =
        text_field(map, "permissionDecisionReason", at, &mut said.warnings).map(str::to_owned);
    if reason.is_none() && at.is_empty() {
        reason = field(map, "reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    let permission = match field(map, "permissionDecision") {
        None => None,
        Some(Value::String(s)) => match s.as_str() {
            "allow" => Some(Permission::Allow),
            "deny" => Some(Permission::Deny),
            "ask" => Some(Permission::Ask),
            other => {
                let word = other.trim().to_lowercase();
                let shown = describe(&Value::String(s.clone()));
                let (permission, read) = if word == "defer" {
                    (
                        Some(Permission::Ask),
                        "Cline cannot defer a tool call to later, so it was read as \"ask\"",
                    )
                } else if deny_word(&word) {
                    (
                        Some(Permission::Deny),
                        "it was read as \"deny\" (fail closed)",
                    )
                } else if word == "ask" {
                    (Some(Permission::Ask), "it was read as \"ask\"")
                } else if allow_word(&word) {
                    (Some(Permission::Allow), "it was read as \"allow\"")
                } else {
                    (None, "it was ignored, so the tool call was not blocked")
                };
                said.warnings.push(format!(
                    "\"{at}permissionDecision\" must be \"allow\", \"deny\" or \"ask\", not {shown}; {read}"
                ));
                permission
            }
        },
        Some(other) => {
            said.warnings.push(format!(
                "\"{at}permissionDecision\" must be \"allow\", \"deny\" or \"ask\", not {}; it was ignored, so the tool call was not blocked",
                describe(other)
            ));
            None
        }
    };
    match (permission, event == "PreToolUse") {
        (None | Some(Permission::Allow), true) => {}
        (Some(Permission::Deny), pre_tool_use) => {
            if !pre_tool_use {
                said.warnings.push(format!(
                    "printed \"permissionDecision\": \"deny\" for {event}, where Claude Code reads it only for PreToolUse; it blocked all the same (fail closed): to stop, print \"continue\": false"
                ));
            }
            let message = reason.unwrap_or_else(|| {
                format!("Blocked by a Claude Code {event} hook (\"permissionDecision\": \"deny\", without a permissionDecisionReason).")
            });
            said.block("permissionDecisionReason", message);
        }
        (Some(Permission::Ask), true) => {
            let message = reason.unwrap_or_else(|| {
                "A Claude Code PreToolUse hook asks you to confirm this tool call.".to_owned()
            });
            match profile {
                Profile::Cli => said.review = Some(("permissionDecisionReason", message)),
                // The extension runs hooks without a way to ask the user: the safe answer is no.
                Profile::Extension => {
                    said.warnings.push(
                        "printed \"permissionDecision\": \"ask\", but the Cline extension cannot ask the user from a hook, so the tool call was blocked: print \"deny\" or \"allow\" for the extension"
                            .to_owned(),
                    );
                    said.block("permissionDecisionReason", message);
                }
            }
        }
        (Some(permission), false) => said.warnings.push(format!(
            "printed \"permissionDecision\": \"{}\" for {event}, where Claude Code reads it only for PreToolUse; it was ignored",
            if permission == Permission::Ask { "ask" } else { "allow" }
        )),
        (None, false) => {}
    }
}

/// `text` cut to the limit with the marker a hook file's verdict gets (a warning when cut).
fn cut(name: &str, text: &str, warnings: &mut Vec<String>) -> String {
    cut_text(name, text, text.len(), warnings)
}

/// A JSON value named for a sentence: its type, and a short string's text.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{}\"", excerpt(s, 40)),
        Value::Array(_) => "a JSON array".to_owned(),
        Value::Object(_) => "a JSON object".to_owned(),
    }
}

/// At most `chars` characters of `text`, `…` marking a cut.
fn excerpt(text: &str, chars: usize) -> String {
    let mut shown: String = text.chars().take(chars).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// How a hook that did not exit 0 ended, as a sentence's start.
fn ending(exit_code: Option<i32>) -> String {
    match exit_code {
        Some(code) => format!("exited with code {code}"),
        None => "was stopped before it exited".to_owned(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::MAX_CONTEXT_BYTES;
    use proptest::prelude::*;
    use serde_json::json;

    const PROFILES: [Profile; 2] = [Profile::Extension, Profile::Cli];
    /// Every way a hook ends that the reader tells apart.
    const ENDINGS: [Option<i32>; 6] = [Some(0), Some(1), Some(2), Some(127), Some(-1), None];

    fn run(
        event: &str,
        exit_code: Option<i32>,
        stdout: &str,
        stderr: &str,
        profile: Profile,
    ) -> ClaudeAnswer {
        read_output(&Ended {
            event,
            exit_code,
            stdout: Some(stdout),
            stderr,
            profile,
        })
    }

    fn ok(event: &str, stdout: &str) -> Verdict {
        run(event, Some(0), stdout, "", Profile::Extension).verdict
    }

    fn has(warnings: &[String], part: &str) -> bool {
        warnings.iter().any(|w| w.contains(part))
    }

    #[test]
    fn exit_two_follows_claude_codes_table() {
        for event in [
            "PreToolUse",
            "UserPromptSubmit",
            "Stop",
            "SubagentStop",
            "PreCompact",
            "PermissionRequest",
            "SomeFutureEvent",
            "",
        ] {
            assert_eq!(exit_two(event), ExitTwo::Blocks, "{event}");
        }
        for event in ["PostToolUse", "PostToolUseFailure"] {
            assert_eq!(exit_two(event), ExitTwo::ToModel, "{event}");
        }
        for event in ["SessionStart", "SessionEnd", "Notification", "PostCompact"] {
            assert_eq!(exit_two(event), ExitTwo::ToUser, "{event}");
        }
        // Claude Code's event names are case-sensitive.
        assert_eq!(exit_two("posttooluse"), ExitTwo::Blocks);
    }

    #[test]
    fn exit_two_blocks_with_stderr_as_the_reason() {
        for profile in PROFILES {
            for event in [
                "PreToolUse",
                "UserPromptSubmit",
                "Stop",
                "SubagentStop",
                "PreCompact",
            ] {
                let a = run(event, Some(2), "", "  \n rm -rf is not allowed \n", profile);
                assert!(a.exit_is_answer, "{event}");
                assert!(a.verdict.cancel, "{event}");
                assert_eq!(a.verdict.error_message, "rm -rf is not allowed");
                assert_eq!(a.verdict.context_modification, "");
                assert!(a.verdict.warnings.is_empty(), "{:?}", a.verdict.warnings);
                assert_eq!(a.verdict.problem, None);
            }
        }
    }

    #[test]
    fn exit_two_without_stderr_still_blocks_and_says_so() {
        for stderr in ["", " \n\t "] {
            let a = run("PreToolUse", Some(2), "", stderr, Profile::Extension);
            assert!(a.verdict.cancel);
            assert!(a.exit_is_answer);
            assert_eq!(
                a.verdict.error_message,
                "Blocked by a Claude Code PreToolUse hook that exited with code 2 and printed nothing on stderr (Claude Code shows stderr as the reason: print it there)."
            );
        }
        // A reason printed on stdout is better than the default sentence.
        let a = run(
            "PreToolUse",
            Some(2),
            r#"{"decision":"block","reason":"from stdout"}"#,
            "",
            Profile::Extension,
        );
        assert!(a.verdict.cancel);
        assert_eq!(a.verdict.error_message, "from stdout");
        // But stderr wins when it has one, as in Claude Code.
        let a = run(
            "PreToolUse",
            Some(2),
            r#"{"decision":"block","reason":"from stdout"}"#,
            "from stderr",
            Profile::Extension,
        );
        assert_eq!(a.verdict.error_message, "from stderr");
    }

    /// PostToolUse: the tool already ran, and Cline's cancel would stop the whole task, so
    /// exit 2 is feedback for the model, as Claude Code gives it.
    #[test]
    fn exit_two_after_a_tool_is_context_for_the_model() {
        for profile in PROFILES {
            for event in ["PostToolUse", "PostToolUseFailure"] {
                let a = run(event, Some(2), "", "lint: 3 errors\n", profile);
                assert!(a.exit_is_answer);
                assert!(!a.verdict.cancel);
                assert_eq!(a.verdict.context_modification, "lint: 3 errors");
                assert_eq!(a.verdict.error_message, "");
                assert!(a.verdict.warnings.is_empty());
            }
        }
        let a = run("PostToolUse", Some(2), "", "", Profile::Extension);
        assert!(!a.verdict.cancel);
        assert!(a.exit_is_answer);
        assert_eq!(a.verdict.context_modification, "");
        assert!(a.verdict.warnings[0]
            .starts_with("exited with code 2 and printed nothing on stderr: on PostToolUse"));
    }

    #[test]
    fn exit_two_where_claude_does_not_block_is_a_warning() {
        for profile in PROFILES {
            for event in ["SessionStart", "SessionEnd", "Notification"] {
                let a = run(event, Some(2), "", "db is down\n", profile);
                assert!(a.exit_is_answer, "{event}: not a failure");
                assert!(!a.verdict.cancel);
                assert_eq!(a.verdict.error_message, "");
                assert_eq!(
                    a.verdict.warnings,
                    vec![format!("exited with code 2, which does not block {event} in Claude Code (it shows stderr to the user): db is down")]
                );
            }
        }
        let a = run("SessionStart", Some(2), "", "", Profile::Extension);
        assert!(a.verdict.warnings[0].contains("printed nothing on stderr; to stop, print"));
        // A printed stop still stops.
        let a = run(
            "SessionStart",
            Some(2),
            r#"{"continue": false, "stopReason": "no session today"}"#,
            "x",
            Profile::Extension,
        );
        assert!(a.verdict.cancel);
        assert_eq!(a.verdict.error_message, "no session today");
    }

    #[test]
    fn other_endings_are_failures_that_do_not_block() {
        for profile in PROFILES {
            for code in [
                Some(1),
                Some(3),
                Some(126),
                Some(127),
                Some(255),
                Some(-9),
                None,
            ] {
                for event in [
                    "PreToolUse",
                    "PostToolUse",
                    "UserPromptSubmit",
                    "SessionStart",
                ] {
                    let a = run(event, code, "some text", "Traceback ...", profile);
                    assert!(!a.exit_is_answer, "{code:?}");
                    assert!(!a.verdict.cancel, "{code:?}");
                    assert!(!a.verdict.review);
                    assert_eq!(a.verdict.context_modification, "");
                    assert_eq!(a.verdict.error_message, "");
                    assert_eq!(a.verdict.problem, None);
                }
            }
        }
        let a = run(
            "PreToolUse",
            Some(127),
            "",
            "sh: x: not found",
            Profile::Cli,
        );
        assert!(a.verdict.warnings[0].starts_with("exited with code 127, which usually means"));
        let a = run("PreToolUse", Some(126), "", "", Profile::Cli);
        assert!(a.verdict.warnings[0].starts_with("exited with code 126"));
        let a = run("PreToolUse", Some(1), "", "", Profile::Cli);
        assert!(a.verdict.warnings.is_empty());
        // Exit 0 is not a failure, and not an "answer" exit code either.
        let a = run("PreToolUse", Some(0), "", "noise on stderr", Profile::Cli);
        assert!(!a.exit_is_answer);
        assert_eq!(a.verdict, Verdict::default());
    }

    /// The runtime's rule: a printed cancel is never dropped, whatever the ending.
    #[test]
    fn a_printed_block_counts_on_every_ending() {
        let stdouts = [
            (r#"{"continue": false, "stopReason": "halt"}"#, "halt"),
            (r#"{"decision": "block", "reason": "nope"}"#, "nope"),
            (
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "denied"}}"#,
                "denied",
            ),
            (
                "{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"trunc",
                "Blocked by a Claude Code PreToolUse hook whose output was not valid JSON but held \"permissionDecision\": \"deny\".",
            ),
            (
                "checking...\n{\"decision\": \"block\", \"reason\": \"after logs\"}\n",
                "after logs",
            ),
        ];
        for profile in PROFILES {
            for code in ENDINGS {
                for (stdout, message) in stdouts {
                    let a = run("PreToolUse", code, stdout, "", profile);
                    assert!(a.verdict.cancel, "{code:?} {stdout}");
                    assert_eq!(a.verdict.error_message, message, "{code:?} {stdout}");
                    assert_eq!(a.exit_is_answer, code == Some(2));
                }
            }
        }
    }

    #[test]
    fn fields_that_do_not_block_apply_on_exit_zero_only() {
        let stdout = json!({
            "systemMessage": "hi user",
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "additionalContext": "ctx",
                "updatedInput": {"command": "ls -la"}
            }
        })
        .to_string();
        for profile in PROFILES {
            let a = run("PreToolUse", Some(0), &stdout, "", profile);
            assert!(!a.verdict.cancel);
            assert_eq!(a.verdict.context_modification, "ctx");
            assert_eq!(a.verdict.error_message, "hi user");
            assert_eq!(
                a.verdict.override_input,
                Some(json!({"command": "ls -la"}).as_object().unwrap().clone())
            );
            assert!(a.verdict.warnings.is_empty(), "{:?}", a.verdict.warnings);
            for (code, ending) in [
                (Some(1), "exited with code 1"),
                (Some(2), "exited with code 2"),
                (None, "was stopped before it exited"),
            ] {
                let a = run("PreToolUse", code, &stdout, "", profile);
                assert_eq!(a.verdict.context_modification, "");
                assert_eq!(a.verdict.override_input, None);
                assert!(
                    a.verdict.warnings.contains(&format!(
                        "{ending}, so the additionalContext, updatedInput and systemMessage it printed on stdout were not applied: Claude Code reads a hook's stdout only when it exits 0 (a block printed there still counts)"
                    )),
                    "{:?}",
                    a.verdict.warnings
                );
                // The object is kept all the same, for the record.
                assert!(a.verdict.object.is_some());
            }
        }
        // Plain text as context is named too.
        let a = run("UserPromptSubmit", Some(1), "ctx", "", Profile::Extension);
        assert_eq!(a.verdict.context_modification, "");
        assert!(has(
            &a.verdict.warnings,
            "so the text (context for the model) it printed on stdout was not applied"
        ));
    }

    #[test]
    fn continue_false_stops_with_its_stop_reason() {
        for event in [
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "Stop",
            "SessionStart",
            "Notification",
        ] {
            let v = ok(
                event,
                r#"{"continue": false, "stopReason": "Build broken"}"#,
            );
            assert!(v.cancel, "{event}");
            assert_eq!(v.error_message, "Build broken");
            let v = ok(event, r#"{"continue": false}"#);
            assert!(v.cancel);
            assert_eq!(
                v.error_message,
                format!("Stopped by a Claude Code {event} hook (\"continue\": false, without a stopReason).")
            );
        }
        let v = ok(
            "PreToolUse",
            r#"{"continue": true, "stopReason": "unused"}"#,
        );
        assert!(!v.cancel);
        assert_eq!(v.error_message, "");
        // continue: false wins over the other reasons (Claude Code: it takes precedence).
        let v = ok(
            "PreToolUse",
            r#"{"continue": false, "stopReason": "stop", "decision": "block", "reason": "block", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "deny"}}"#,
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "stop");
    }

    #[test]
    fn decision_block_follows_the_event() {
        for event in [
            "PreToolUse",
            "UserPromptSubmit",
            "Stop",
            "SubagentStop",
            "PreCompact",
        ] {
            let v = ok(event, r#"{"decision": "block", "reason": "not yet"}"#);
            assert!(v.cancel, "{event}");
            assert_eq!(v.error_message, "not yet");
            assert!(v.warnings.is_empty());
            let v = ok(event, r#"{"decision": "block"}"#);
            assert!(v.cancel);
            assert_eq!(
                v.error_message,
                format!("Blocked by a Claude Code {event} hook (\"decision\": \"block\", without a reason).")
            );
        }
        // After a tool: the reason is for the model, nothing is cancelled.
        let v = ok(
            "PostToolUse",
            r#"{"decision": "block", "reason": "tests fail", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "see log"}}"#,
        );
        assert!(!v.cancel);
        assert_eq!(v.context_modification, "tests fail\n\nsee log");
        let v = ok("PostToolUse", r#"{"decision": "block"}"#);
        assert!(!v.cancel);
        assert!(has(&v.warnings, "without a reason: on PostToolUse"));
        // Where Claude Code has no decision: a warning.
        let v = ok("SessionStart", r#"{"decision": "block", "reason": "x"}"#);
        assert!(!v.cancel);
        assert!(has(
            &v.warnings,
            "which does nothing on SessionStart in Claude Code"
        ));
        // PreToolUse's deprecated approve allows.
        let v = ok("PreToolUse", r#"{"decision": "approve", "reason": "fine"}"#);
        assert!(!v.cancel);
        assert!(v.warnings.is_empty());
        assert_eq!(v.error_message, "");
    }

    #[test]
    fn permission_decisions_in_both_profiles() {
        let out = |decision: &str| {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": "because"}}).to_string()
        };
        for profile in PROFILES {
            let a = run("PreToolUse", Some(0), &out("allow"), "", profile);
            assert!(!a.verdict.cancel && !a.verdict.review);
            assert_eq!(a.verdict.error_message, "");
            let a = run("PreToolUse", Some(0), &out("deny"), "", profile);
            assert!(a.verdict.cancel);
            assert_eq!(a.verdict.error_message, "because");
            assert!(a.verdict.warnings.is_empty());
        }
        let a = run("PreToolUse", Some(0), &out("ask"), "", Profile::Cli);
        assert!(!a.verdict.cancel);
        assert!(a.verdict.review);
        assert_eq!(a.verdict.error_message, "because");
        assert!(a.verdict.warnings.is_empty());
        let a = run("PreToolUse", Some(0), &out("ask"), "", Profile::Extension);
        assert!(a.verdict.cancel);
        assert!(!a.verdict.review);
        assert_eq!(a.verdict.error_message, "because");
        assert!(has(
            &a.verdict.warnings,
            "the Cline extension cannot ask the user from a hook"
        ));
        // Without a reason: a default sentence.
        let a = run(
            "PreToolUse",
            Some(0),
            r#"{"hookSpecificOutput": {"permissionDecision": "ask"}}"#,
            "",
            Profile::Cli,
        );
        assert!(a.verdict.review);
        assert_eq!(
            a.verdict.error_message,
            "A Claude Code PreToolUse hook asks you to confirm this tool call."
        );
        let a = run(
            "PreToolUse",
            Some(0),
            r#"{"hookSpecificOutput": {"permissionDecision": "deny"}}"#,
            "",
            Profile::Cli,
        );
        assert_eq!(
            a.verdict.error_message,
            "Blocked by a Claude Code PreToolUse hook (\"permissionDecision\": \"deny\", without a permissionDecisionReason)."
        );
        // Ask counts on other endings too (it is stricter than going ahead): as a block,
        // since the runner takes only a cancel from a hook that failed (19-cli-ask-crash.js).
        for ending in [Some(1), Some(127), Some(-1), None] {
            let a = run("PreToolUse", ending, &out("ask"), "", Profile::Cli);
            assert!(a.verdict.cancel, "{ending:?}");
            assert!(!a.verdict.review, "{ending:?}");
            assert_eq!(a.verdict.error_message, "because");
            assert!(
                has(
                    &a.verdict.warnings,
                    "after printing \"permissionDecision\": \"ask\"; a hook that fails cannot ask for a review, so it was read as a block (fail closed): exit 0 after printing \"ask\""
                ),
                "{ending:?} {:?}",
                a.verdict.warnings
            );
        }
        let a = run("PreToolUse", Some(1), &out("ask"), "", Profile::Cli);
        assert!(a.verdict.warnings[0].starts_with("exited with code 1 after printing"));
        let a = run("PreToolUse", None, &out("ask"), "", Profile::Cli);
        assert!(a.verdict.warnings[0].starts_with("was stopped before it exited after printing"));
        // Exit 2 is an answer, not a failure: the block and the review both stand.
        let a = run("PreToolUse", Some(2), &out("ask"), "no", Profile::Cli);
        assert!(a.verdict.cancel && a.verdict.review);
        assert_eq!(a.verdict.error_message, "no");
        // Beside a printed block, a failed hook's ask is said not to be applied.
        let both = r#"{"decision": "block", "reason": "b", "hookSpecificOutput": {"permissionDecision": "ask"}}"#;
        let a = run("PreToolUse", Some(1), both, "", Profile::Cli);
        assert!(a.verdict.cancel && !a.verdict.review);
        assert_eq!(a.verdict.error_message, "b");
        assert!(has(&a.verdict.warnings, "so the block it printed stands"));
        // The extension blocks an ask on every ending already.
        let a = run("PreToolUse", Some(1), &out("ask"), "", Profile::Extension);
        assert!(a.verdict.cancel && !a.verdict.review);
        // "defer" (headless Claude Code) is read as ask.
        let a = run("PreToolUse", Some(0), &out("defer"), "", Profile::Cli);
        assert!(a.verdict.review);
        assert!(has(&a.verdict.warnings, "cannot defer"));
        // A deny wins over an allow-ish decision, and a block over an allow.
        let v = ok(
            "PreToolUse",
            r#"{"decision": "approve", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "d"}}"#,
        );
        assert!(v.cancel);
        let v = ok(
            "PreToolUse",
            r#"{"decision": "block", "reason": "b", "hookSpecificOutput": {"permissionDecision": "allow"}}"#,
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "b");
    }

    #[test]
    fn permission_fields_outside_pre_tool_use() {
        let v = ok(
            "PostToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#,
        );
        assert!(v.cancel, "a printed deny is never dropped");
        assert_eq!(v.error_message, "no");
        assert!(has(
            &v.warnings,
            "where Claude Code reads it only for PreToolUse; it blocked all the same"
        ));
        for decision in ["allow", "ask"] {
            let v = ok(
                "UserPromptSubmit",
                &json!({"hookSpecificOutput": {"permissionDecision": decision}}).to_string(),
            );
            assert!(!v.cancel && !v.review);
            assert!(has(
                &v.warnings,
                &format!("\"{decision}\" for UserPromptSubmit")
            ));
        }
        let v = ok(
            "PostToolUse",
            r#"{"hookSpecificOutput": {"updatedInput": {"a": 1}}}"#,
        );
        assert_eq!(v.override_input, None);
        assert!(has(
            &v.warnings,
            "only PreToolUse can change a tool's input"
        ));
    }

    #[test]
    fn wrong_types_are_named_and_deny_ish_values_fail_closed() {
        let cases: &[(&str, bool, &str)] = &[
            (r#"{"continue": "no"}"#, true, "\"continue\" must be true or false, not the string \"no\"; it was read as false and stopped (fail closed)"),
            (r#"{"continue": "false"}"#, true, "it was read as false"),
            (r#"{"continue": 0}"#, true, "not the number 0; it was read as false"),
            (r#"{"continue": "yes"}"#, false, "\"continue\" must be true or false, not the string \"yes\"; it was ignored"),
            (r#"{"continue": []}"#, false, "not a JSON array; it was ignored"),
            (r#"{"decision": "deny"}"#, true, "it was read as \"block\" (fail closed)"),
            (r#"{"decision": "BLOCK"}"#, true, "it was read as \"block\" (fail closed)"),
            (r#"{"decision": "allow"}"#, false, "it was read as \"approve\", which blocks nothing"),
            (r#"{"decision": "maybe"}"#, false, "not the string \"maybe\"; it was ignored"),
            (r#"{"decision": true}"#, false, "\"decision\" must be the string \"block\", not the boolean true"),
            (r#"{"hookSpecificOutput": {"permissionDecision": "maybe"}}"#, false, "\"hookSpecificOutput.permissionDecision\" must be \"allow\", \"deny\" or \"ask\", not the string \"maybe\"; it was ignored, so the tool call was not blocked"),
            (r#"{"hookSpecificOutput": {"permissionDecision": "Deny"}}"#, true, "it was read as \"deny\" (fail closed)"),
            (r#"{"hookSpecificOutput": {"permissionDecision": " blocked "}}"#, true, "it was read as \"deny\" (fail closed)"),
            (r#"{"hookSpecificOutput": {"permissionDecision": "ALLOW"}}"#, false, "it was read as \"allow\""),
            (r#"{"hookSpecificOutput": {"permissionDecision": false}}"#, false, "not the boolean false; it was ignored"),
            (r#"{"hookSpecificOutput": "deny"}"#, false, "\"hookSpecificOutput\" must be a JSON object, not the string \"deny\""),
            (r#"{"hookSpecificOutput": {"updatedInput": "ls"}}"#, false, "\"hookSpecificOutput.updatedInput\" must be a JSON object"),
            (r#"{"hookSpecificOutput": {"additionalContext": 3}}"#, false, "\"hookSpecificOutput.additionalContext\" must be a string, not the number 3"),
            (r#"{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": ["x"]}}"#, true, "\"hookSpecificOutput.permissionDecisionReason\" must be a string, not a JSON array"),
            (r#"{"continue": false, "stopReason": 7}"#, true, "\"stopReason\" must be a string, not the number 7"),
            (r#"{"decision": "block", "reason": {}}"#, true, "\"reason\" must be a string, not a JSON object"),
            (r#"{"systemMessage": false}"#, false, "\"systemMessage\" must be a string, not the boolean false"),
            (r#"{"suppressOutput": "yes"}"#, false, "\"suppressOutput\" must be true or false"),
            (r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}}"#, false, "\"hookSpecificOutput.hookEventName\" is the string \"PostToolUse\", but the hook ran for PreToolUse; its fields were read all the same"),
        ];
        for profile in PROFILES {
            for (stdout, cancel, warning) in cases {
                let a = run("PreToolUse", Some(0), stdout, "", profile);
                assert_eq!(a.verdict.cancel, *cancel, "{stdout}");
                assert!(
                    has(&a.verdict.warnings, warning),
                    "{stdout}: {:?}",
                    a.verdict.warnings
                );
                assert_eq!(a.verdict.problem, None);
                assert!(a.verdict.object.is_some());
            }
        }
        // A mismatched event name does not lose the fields.
        let v = ok(
            "PreToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}}"#,
        );
        assert_eq!(v.context_modification, "x");
    }

    #[test]
    fn nulls_read_as_absent() {
        let v = ok(
            "PreToolUse",
            r#"{"stopReason": null, "decision": null, "reason": null, "systemMessage": null, "suppressOutput": null, "hookSpecificOutput": {"hookEventName": null, "permissionDecision": null, "updatedInput": null, "additionalContext": null}}"#,
        );
        assert!(!v.cancel);
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
        // `"continue": null` goes on, but is said: the author may have meant to stop.
        for profile in PROFILES {
            let a = run("PreToolUse", Some(0), r#"{"continue": null}"#, "", profile);
            assert!(!a.verdict.cancel);
            assert_eq!(
                a.verdict.warnings,
                ["\"continue\" is null, which is neither true nor false; it was read as true (go on): print true, or false to stop"]
            );
        }
        let v = ok(
            "PreToolUse",
            r#"{"hookSpecificOutput": null, "suppressOutput": true}"#,
        );
        assert!(v.warnings.is_empty());
        assert_eq!(
            v,
            Verdict {
                object: v.object.clone(),
                ..Verdict::default()
            }
        );
    }

    #[test]
    fn a_cline_cancel_printed_by_a_claude_hook_still_blocks() {
        for profile in PROFILES {
            for ending in ENDINGS {
                for event in [
                    "PreToolUse",
                    "PostToolUse",
                    "UserPromptSubmit",
                    "SessionStart",
                ] {
                    let a = run(event, ending, r#"{"cancel": true}"#, "", profile);
                    assert!(a.verdict.cancel, "{event} {ending:?}");
                    if ending != Some(2) {
                        assert_eq!(
                            a.verdict.error_message,
                            format!("Blocked by a Claude Code {event} hook that printed Cline's \"cancel\": true.")
                        );
                    }
                    assert!(has(
                        &a.verdict.warnings,
                        "printed \"cancel\": true, a Cline hook file's answer, which Claude Code ignores; it was read as a block all the same (fail closed): a Claude Code hook blocks by exiting with code 2 (the reason on stderr) or by printing \"decision\": \"block\""
                    ));
                }
            }
        }
        // Its errorMessage is the reason; contextModification is named, not applied.
        let v = ok(
            "PreToolUse",
            r#"{"cancel": true, "errorMessage": "no rm", "contextModification": "c"}"#,
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "no rm");
        assert_eq!(v.context_modification, "");
        assert!(has(
            &v.warnings,
            "printed \"contextModification\", a Cline hook file's field"
        ));
        // Read as true (fail closed): "true", 1.
        for cancel in [r#""true""#, "1", r#"" YES ""#] {
            let v = ok("PreToolUse", &format!(r#"{{"cancel": {cancel}}}"#));
            assert!(v.cancel, "{cancel}");
        }
        // Not a block, but said.
        for (stdout, part) in [
            (r#"{"cancel": false}"#, "printed \"cancel\": false, a Cline hook file's field, which Claude Code ignores; it was ignored, so nothing was blocked"),
            (r#"{"cancel": "maybe"}"#, "printed \"cancel\": \"maybe\""),
            (r#"{"errorMessage": "e"}"#, "printed \"errorMessage\", a Cline hook file's field"),
            (r#"{"contextModification": "c"}"#, "printed \"contextModification\""),
        ] {
            let v = ok("PreToolUse", stdout);
            assert!(!v.cancel, "{stdout}");
            assert!(has(&v.warnings, part), "{stdout}: {:?}", v.warnings);
        }
        // In text that is not JSON, or after logs, it blocks too.
        let a = run("PreToolUse", Some(1), "{'cancel': True", "", Profile::Cli);
        assert!(a.verdict.cancel);
        assert!(has(
            &a.verdict.warnings,
            "printed Cline's \"cancel\": true in text that is not valid JSON"
        ));
        let a = run(
            "PreToolUse",
            Some(0),
            "log\n{\"cancel\": true}",
            "",
            Profile::Cli,
        );
        assert!(a.verdict.cancel);
    }

    #[test]
    fn a_permission_decision_at_the_top_level_is_read_where_it_was_put() {
        let placed = "printed \"permissionDecision\" at the top level of its JSON, where Claude Code does not read it; it was read all the same, so that a deny blocks (fail closed): put it in \"hookSpecificOutput\"";
        for profile in PROFILES {
            for ending in ENDINGS {
                let a = run(
                    "PreToolUse",
                    ending,
                    r#"{"permissionDecision": "deny", "permissionDecisionReason": "not there"}"#,
                    "",
                    profile,
                );
                assert!(a.verdict.cancel, "{ending:?}");
                if ending != Some(2) {
                    assert_eq!(a.verdict.error_message, "not there");
                }
                assert!(has(&a.verdict.warnings, placed));
            }
        }
        // Its reason may be `reason`; deny-ish words fail closed; allow blocks nothing.
        let v = ok(
            "PreToolUse",
            r#"{"permissionDecision": "deny", "reason": "r"}"#,
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "r");
        let v = ok("PreToolUse", r#"{"permissionDecision": "Blocked"}"#);
        assert!(v.cancel);
        assert!(has(&v.warnings, "\"permissionDecision\" must be \"allow\", \"deny\" or \"ask\", not the string \"Blocked\"; it was read as \"deny\" (fail closed)"));
        let v = ok("PreToolUse", r#"{"permissionDecision": "allow"}"#);
        assert!(!v.cancel && !v.review);
        assert!(has(&v.warnings, placed));
        // An ask asks (cli) or blocks (extension), as in hookSpecificOutput.
        let a = run(
            "PreToolUse",
            Some(0),
            r#"{"permissionDecision": "ask"}"#,
            "",
            Profile::Cli,
        );
        assert!(a.verdict.review && !a.verdict.cancel);
        let a = run(
            "PreToolUse",
            Some(0),
            r#"{"permissionDecision": "ask"}"#,
            "",
            Profile::Extension,
        );
        assert!(a.verdict.cancel);
        // Beside an allow in hookSpecificOutput, the misplaced deny still blocks.
        let v = ok(
            "PreToolUse",
            r#"{"permissionDecision": "deny", "hookSpecificOutput": {"permissionDecision": "allow"}}"#,
        );
        assert!(v.cancel);
        // Elsewhere than PreToolUse, as in hookSpecificOutput: a deny blocks, said twice.
        let v = ok("PostToolUse", r#"{"permissionDecision": "deny"}"#);
        assert!(v.cancel);
        assert!(has(
            &v.warnings,
            "where Claude Code reads it only for PreToolUse"
        ));
        // A reason of the wrong type is named at the top level.
        let v = ok(
            "PreToolUse",
            r#"{"permissionDecision": "deny", "permissionDecisionReason": 3}"#,
        );
        assert!(has(
            &v.warnings,
            "\"permissionDecisionReason\" must be a string, not the number 3"
        ));
    }

    #[test]
    fn system_message_is_the_message_unless_another_is() {
        let v = ok("PreToolUse", r#"{"systemMessage": "heads up"}"#);
        assert!(!v.cancel);
        assert_eq!(v.error_message, "heads up");
        let v = ok(
            "PreToolUse",
            r#"{"systemMessage": "heads up", "decision": "block", "reason": "no"}"#,
        );
        assert_eq!(v.error_message, "no");
        assert_eq!(
            v.warnings,
            vec!["printed a systemMessage beside the reason for its answer; Cline shows one message, the reason, so the systemMessage was not shown: heads up".to_owned()]
        );
        let a = run(
            "PreToolUse",
            Some(0),
            r#"{"systemMessage": "s", "hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "r"}}"#,
            "",
            Profile::Cli,
        );
        assert_eq!(a.verdict.error_message, "r");
        assert!(has(&a.verdict.warnings, "systemMessage was not shown"));
    }

    #[test]
    fn the_parsed_object_is_kept_unknown_fields_included() {
        let text = r#"{"continue": true, "custom": {"a": [1, 2]}, "suppressOutput": true}"#;
        let v = ok("Stop", text);
        let expected: Map<String, Value> = serde_json::from_str(text).unwrap();
        assert_eq!(v.object, Some(expected));
        assert!(!v.cancel);
        assert!(v.warnings.is_empty());
        assert_eq!(ok("Stop", "plain").object, None);
    }

    #[test]
    fn plain_text_is_context_for_prompts_and_session_starts_only() {
        for event in ["UserPromptSubmit", "SessionStart"] {
            let v = ok(event, "\n  Today is Monday.\nBranch: main  \n");
            assert_eq!(v.context_modification, "Today is Monday.\nBranch: main");
            assert!(!v.cancel);
            assert!(v.warnings.is_empty());
            assert_eq!(v.object, None);
            // JSON that is all of stdout is JSON, not text.
            let v = ok(
                event,
                r#"{"hookSpecificOutput": {"additionalContext": "json ctx"}}"#,
            );
            assert_eq!(v.context_modification, "json ctx");
        }
        for event in [
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "Notification",
            "SessionEnd",
        ] {
            let v = ok(event, "Today is Monday.");
            assert_eq!(v, Verdict::default(), "{event}");
        }
        // Arrays and other JSON that is not an object are text.
        let v = ok("UserPromptSubmit", "[1, 2]");
        assert_eq!(v.context_modification, "[1, 2]");
        assert_eq!(ok("UserPromptSubmit", " \n\t"), Verdict::default());
        assert_eq!(ok("UserPromptSubmit", ""), Verdict::default());
    }

    #[test]
    fn json_that_does_not_parse_is_text_and_its_blocks_still_count() {
        // Truncated: it blocks (fail closed), and says so.
        let v = ok(
            "PreToolUse",
            "{\"decision\": \"block\", \"reason\": \"danger",
        );
        assert!(v.cancel);
        assert_eq!(
            v.error_message,
            "Blocked by a Claude Code PreToolUse hook whose output was not valid JSON but held \"decision\": \"block\"."
        );
        assert!(v.warnings[0].starts_with(
            "printed text that starts with \"{\" but is not valid JSON (EOF while parsing"
        ));
        assert!(v.warnings[0].contains("the block it holds was applied all the same (fail closed)"));
        assert!(has(
            &v.warnings,
            "printed \"decision\": \"block\" in text that is not valid JSON"
        ));
        assert_eq!(v.problem, None);
        // Python's repr of a dict.
        for text in [
            "{'continue': False, 'stopReason': 'x'}",
            "{'hookSpecificOutput': {'permissionDecision': 'deny'}}",
            "{\"continue\": false,}",
            "{\"hookSpecificOutput\": {\"permissionDecision\" :  \"DENY\"}} trailing",
            "{decision: 'block'} {\"decision\": \"block\"}",
        ] {
            let v = ok("PreToolUse", text);
            assert!(v.cancel, "{text}");
        }
        // Nothing blocking: a warning, and text (context where text is context).
        let v = ok("PreToolUse", "{not json}");
        assert!(!v.cancel);
        assert_eq!(v.warnings.len(), 1);
        assert!(v.warnings[0].ends_with(
            "so Claude Code would read it as plain text: print one JSON object, alone on stdout"
        ));
        let v = ok("UserPromptSubmit", "{not json}");
        assert_eq!(v.context_modification, "{not json}");
        // Values that only look like a block do not block.
        for text in [
            "{\"continue\": true,",
            "{\"decision\": \"approve\",",
            "{\"undecision\": \"block\",",
            "{\"decision\": \"blocking-ish\",",
            "{\"permissionDecision\": \"allow\"",
            "{continue: false",
        ] {
            assert!(!ok("PreToolUse", text).cancel, "{text}");
        }
        // A broken decision block after a tool is not a cancel (rule 1), a broken stop is.
        assert!(!ok("PostToolUse", "{\"decision\": \"block\"").cancel);
        assert!(ok("PostToolUse", "{\"continue\": false").cancel);
        assert!(!ok("SessionStart", "{\"decision\": \"block\"").cancel);
    }

    #[test]
    fn json_after_log_lines_is_text_but_its_block_counts() {
        let v = ok(
            "PreToolUse",
            "Checking command...\n  {\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no sudo\"}}\n",
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "no sudo");
        assert_eq!(
            v.warnings,
            vec!["printed a JSON object after other text (from line 2), so Claude Code would read all of stdout as text; its block was applied all the same (fail closed): print the JSON object alone on stdout, and logs on stderr".to_owned()]
        );
        assert_eq!(v.object, None);
        // Pretty-printed, after logs.
        let v = ok(
            "Stop",
            "log 1\nlog 2\n{\n  \"decision\": \"block\",\n  \"reason\": \"tests fail\"\n}\n",
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "tests fail");
        // Its other fields are not applied, as Claude Code reads it all as text.
        let v = ok(
            "PreToolUse",
            "log\n{\"hookSpecificOutput\": {\"additionalContext\": \"x\", \"updatedInput\": {}}}",
        );
        assert!(!v.cancel);
        assert_eq!(v.context_modification, "");
        assert_eq!(v.override_input, None);
        assert!(v.warnings[0].contains("none of its fields was applied"));
        let v = ok(
            "UserPromptSubmit",
            "log\n{\"hookSpecificOutput\": {\"additionalContext\": \"x\"}}",
        );
        assert_eq!(
            v.context_modification,
            "log\n{\"hookSpecificOutput\": {\"additionalContext\": \"x\"}}"
        );
        // A broken object after logs: the lenient reading.
        let v = ok(
            "PreToolUse",
            "log\n{\"continue\": false, \"stopReason\": \"cut",
        );
        assert!(v.cancel);
        // Braces inside log lines are log text.
        let v = ok("PreToolUse", "value: {\"decision\": \"block\"}\n");
        assert!(!v.cancel);
        assert!(v.warnings.is_empty());
        // In the cli profile an ask after logs still asks.
        let a = run(
            "PreToolUse",
            Some(0),
            "log\n{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\"}}",
            "",
            Profile::Cli,
        );
        assert!(a.verdict.review);
    }

    #[test]
    fn stdout_too_long_to_keep_is_named_and_exit_codes_still_count() {
        for profile in PROFILES {
            for (code, cancel) in [
                (Some(0), false),
                (Some(2), true),
                (Some(1), false),
                (None, false),
            ] {
                let a = read_output(&Ended {
                    event: "PreToolUse",
                    exit_code: code,
                    stdout: None,
                    stderr: "reason",
                    profile,
                });
                assert_eq!(a.verdict.cancel, cancel);
                assert!(a.verdict.warnings[0]
                    .starts_with("printed more on stdout than the runner keeps"));
                assert_eq!(a.verdict.problem, None);
                assert_eq!(a.exit_is_answer, code == Some(2));
            }
        }
    }

    #[test]
    fn unicode_is_kept_whole() {
        let a = run(
            "PreToolUse",
            Some(2),
            "",
            "\u{3000}🛑 nein — ünïcödé 检查\u{3000}\n",
            Profile::Cli,
        );
        assert_eq!(a.verdict.error_message, "🛑 nein — ünïcödé 检查");
        let v = ok(
            "PreToolUse",
            "\u{feff}{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"\\ud83d\\ude00 é\"}}",
        );
        assert!(v.cancel);
        assert_eq!(v.error_message, "😀 é");
        let v = ok("SessionStart", "\u{feff}Grüße 👋\r\n");
        assert_eq!(v.context_modification, "Grüße 👋");
        // A lone surrogate escape is not JSON for serde: text, without a block.
        let v = ok(
            "UserPromptSubmit",
            "{\"hookSpecificOutput\": {\"additionalContext\": \"\\ud83d\"}}",
        );
        assert!(!v.cancel);
        assert!(has(&v.warnings, "not valid JSON"));
        // Keys with odd Unicode are unknown fields.
        let v = ok(
            "PreToolUse",
            "{\"cont\u{200b}inue\": false, \"décision\": \"block\"}",
        );
        assert!(!v.cancel);
    }

    #[test]
    fn long_texts_are_cut_at_the_limit_with_the_marker() {
        let long = "é".repeat(MAX_CONTEXT_BYTES);
        let v = ok(
            "PreToolUse",
            &json!({"hookSpecificOutput": {"additionalContext": long}}).to_string(),
        );
        assert!(v.context_modification.len() <= MAX_CONTEXT_BYTES);
        assert!(v
            .context_modification
            .ends_with("additionalContext is limited to 50000 bytes]"));
        assert!(v.warnings[0].starts_with("additionalContext was 100000 bytes"));
        let v = ok(
            "PreToolUse",
            &json!({"continue": false, "stopReason": long}).to_string(),
        );
        assert!(v.cancel);
        assert!(v.error_message.len() <= MAX_CONTEXT_BYTES);
        assert!(v
            .error_message
            .ends_with("stopReason is limited to 50000 bytes]"));
        let v = ok("UserPromptSubmit", &"x".repeat(3 << 20));
        assert!(v.context_modification.len() <= MAX_CONTEXT_BYTES);
        assert!(v
            .context_modification
            .ends_with("stdout is limited to 50000 bytes]"));
        let a = run(
            "PostToolUse",
            Some(2),
            "",
            &"🛑".repeat(30_000),
            Profile::Cli,
        );
        assert!(a.verdict.context_modification.len() <= MAX_CONTEXT_BYTES);
        assert!(a
            .verdict
            .context_modification
            .ends_with("stderr is limited to 50000 bytes]"));
        // Two pieces of context are cut together.
        let half = "y".repeat(MAX_CONTEXT_BYTES / 2 + 10);
        let v = ok(
            "PostToolUse",
            &json!({"decision": "block", "reason": half, "hookSpecificOutput": {"additionalContext": half}}).to_string(),
        );
        assert!(v.context_modification.len() <= MAX_CONTEXT_BYTES);
        assert!(v.context_modification.starts_with(&half));
        // A huge stderr on a non-blocking event: a bounded warning.
        let a = run(
            "Notification",
            Some(2),
            "",
            &"w".repeat(16 << 10),
            Profile::Cli,
        );
        assert!(a.verdict.warnings[0].len() < 3000);
    }

    #[test]
    fn nested_junk_neither_panics_nor_hides_a_block() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let text = format!("{{\"decision\": \"block\", \"reason\": \"deep\", \"junk\": {deep}}}");
        let v = ok("PreToolUse", &text);
        assert!(
            v.cancel,
            "serde refuses the depth; the lenient reading still blocks"
        );
        let text = format!("{{\"a\": {}", "{\"a\": ".repeat(50_000));
        let v = ok("UserPromptSubmit", &text);
        assert!(!v.cancel);
        assert!(v.context_modification.len() <= MAX_CONTEXT_BYTES);
        // Many brace lines: bounded work, no block.
        let text = "{ not json\n".repeat(50_000);
        let v = ok("PreToolUse", &format!("log\n{text}"));
        assert!(!v.cancel);
        // Nested blocks inside a valid object are data, not the answer.
        let v = ok(
            "PreToolUse",
            r#"{"data": {"continue": false, "decision": "block", "hookSpecificOutput": {"permissionDecision": "deny"}}}"#,
        );
        assert!(!v.cancel);
        assert!(v.warnings.is_empty());
        // Duplicate keys: the last wins, as in JSON.parse.
        assert!(ok("PreToolUse", r#"{"continue": true, "continue": false}"#).cancel);
        assert!(!ok("PreToolUse", r#"{"continue": false, "continue": true}"#).cancel);
    }

    #[test]
    fn helpers_read_as_sentences() {
        assert_eq!(list(&[]), "");
        assert_eq!(list(&["a"]), "a");
        assert_eq!(list(&["a", "b"]), "a and b");
        assert_eq!(list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(excerpt("héllo", 2), "hé…");
        assert_eq!(excerpt("hé", 2), "hé");
        assert_eq!(brace_lines("{a\n  {b\nc {d\n\t{"), vec![0, 5, 14]);
    }

    fn events() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "PreToolUse",
                "PostToolUse",
                "UserPromptSubmit",
                "Stop",
                "SubagentStop",
                "SessionStart",
                "SessionEnd",
                "PreCompact",
                "Notification",
            ])
            .prop_map(str::to_owned),
            ".{0,12}",
        ]
    }

    fn endings() -> impl Strategy<Value = Option<i32>> {
        prop_oneof![
            Just(Some(0)),
            Just(Some(2)),
            Just(None),
            any::<i32>().prop_map(Some)
        ]
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            prop::sample::select(vec![
                "allow",
                "deny",
                "ask",
                "block",
                "approve",
                "Deny",
                "defer",
                "",
                "PreToolUse",
                "😀",
                "no",
                "false",
            ])
            .prop_map(Value::from),
            "\\PC{0,20}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((keys(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    fn keys() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "continue",
                "stopReason",
                "decision",
                "reason",
                "systemMessage",
                "suppressOutput",
                "hookSpecificOutput",
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
                "additionalContext",
            ])
            .prop_map(str::to_owned),
            "\\PC{0,8}",
        ]
    }

    fn check(a: &ClaudeAnswer, ended: &Ended) {
        let v = &a.verdict;
        assert!(v.context_modification.len() <= MAX_CONTEXT_BYTES);
        assert!(v.error_message.len() <= MAX_CONTEXT_BYTES);
        assert_eq!(v.problem, None);
        assert_eq!(a.exit_is_answer, ended.exit_code == Some(2));
        if ended.exit_code != Some(0) {
            assert_eq!(v.override_input, None);
        }
        if v.cancel {
            assert!(!v.error_message.is_empty(), "a block always says why");
        }
        for w in &v.warnings {
            assert!(!w.is_empty());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any text on stdout and stderr, any event, any ending: no panic, limits kept.
        #[test]
        fn arbitrary_text_never_panics(
            event in events(),
            exit_code in endings(),
            stdout in prop_oneof![
                "\\PC{0,200}",
                "[{}\\[\\]\"':,a-zA-Z0-9 \n\\\\]{0,200}",
                any::<String>(),
            ],
            stderr in any::<String>(),
            cli in any::<bool>(),
        ) {
            let profile = if cli { Profile::Cli } else { Profile::Extension };
            let ended = Ended { event: &event, exit_code, stdout: Some(&stdout), stderr: &stderr, profile };
            let a = read_output(&ended);
            check(&a, &ended);
        }

        /// Arbitrary JSON objects of Claude's fields: no panic, limits kept; a block counts
        /// on every ending.
        #[test]
        fn arbitrary_objects_never_panic(
            event in events(),
            exit_code in endings(),
            members in prop::collection::vec((keys(), json_value()), 0..8),
            pretty in any::<bool>(),
            cli in any::<bool>(),
        ) {
            let profile = if cli { Profile::Cli } else { Profile::Extension };
            let object = Value::Object(members.into_iter().collect());
            let stdout = if pretty {
                serde_json::to_string_pretty(&object).unwrap()
            } else {
                object.to_string()
            };
            let ended = Ended { event: &event, exit_code, stdout: Some(&stdout), stderr: "", profile };
            let a = read_output(&ended);
            check(&a, &ended);
            let at_zero = read_output(&Ended { exit_code: Some(0), ..ended });
            if at_zero.verdict.cancel {
                prop_assert!(a.verdict.cancel, "{}", stdout);
            }
        }
    }
}
