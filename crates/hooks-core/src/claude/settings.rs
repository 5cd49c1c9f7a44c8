//! A Claude Code settings file's `hooks` key read into one entry per handler, and every
//! mistake in it (not JSON, a wrong shape, a handler type this runtime cannot run) said as a
//! warning. Pure.
//!
//! The shape is Claude Code's (hooks reference, "Configuration" and "Hook handler fields",
//! <https://code.claude.com/docs/en/hooks>): `{"hooks": {"<Event>": [{"matcher": "...",
//! "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}`. Claude Code skips a
//! whole file that breaks its schema; here only the broken piece is skipped, and said, so one
//! typo does not silently disable every other hook of the file.
//!
//! Every warning is a sentence whose subject is the file, which the caller names in front of
//! it: "`<file>` is not valid JSON: ...", "`<file>` has no `type` in the handler at ...".

use std::time::Duration;

use serde_json::{Map, Value};

use super::json_numbers::clamp_huge_numbers;

/// The most handlers read from one file; the rest are ignored, with a warning. A settings file
/// holds a handful, and each becomes a process to run on its event.
pub const MAX_SETTINGS_ENTRIES: usize = 1000;

/// The most warnings kept for one file; the rest are counted in a last one.
const MAX_WARNINGS: usize = 100;

/// The longest `timeout` taken, in seconds (about 136 years): longer ones are mistakes, and a
/// deadline that far off could overflow the clock arithmetic of whoever waits on it.
const MAX_TIMEOUT_SECS: f64 = u32::MAX as f64;

/// How many characters of a value or key a message quotes.
const QUOTE_LEN: usize = 60;

/// One handler of a settings file: `hooks.<event>[i].hooks[j]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsEntry {
    /// The event key as written (`PreToolUse`), whether or not Cline has it.
    pub event: String,
    /// Its group's `matcher` as written; `None` when the group has none.
    pub matcher: Option<String>,
    /// Where it is in the file: `hooks.PreToolUse[0].hooks[1]`.
    pub position: String,
    /// What it runs.
    pub handler: Handler,
}

/// What a handler runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handler {
    /// `{"type": "command", "command": ..., "timeout": seconds}`.
    Command {
        /// The shell command line.
        command: String,
        /// Its `timeout`, when it has a valid one.
        timeout: Option<Duration>,
    },
    /// A handler of another type (`http`, `prompt`, `agent`, `mcp_tool`, ...): listed, never run.
    Unsupported {
        /// Its `type` as written.
        kind: String,
    },
}

/// A settings file's hooks, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedSettings {
    /// Every handler, in the file's order (events in the order written).
    pub entries: Vec<SettingsEntry>,
    /// Sentences for the file's author, without the file's name (the caller adds it).
    pub warnings: Vec<String>,
    /// `"disableAllHooks": true`: Claude Code runs none of its hooks (listed disabled here).
    pub disable_all_hooks: bool,
}

/// Reads a settings file's text.
pub fn parse_settings(text: &str) -> ParsedSettings {
    let mut reader = Reader::default();
    reader.read(text);
    reader.finish()
}

/// The walk over one file: what it found so far.
#[derive(Default)]
struct Reader {
    entries: Vec<SettingsEntry>,
    warnings: Vec<String>,
    disable_all_hooks: bool,
    /// Warnings past [`MAX_WARNINGS`], counted only.
    unlisted: usize,
}

/// Whether the walk goes on after a handler.
enum Flow {
    Continue,
    Full,
}

impl Reader {
    fn warn(&mut self, sentence: String) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(sentence);
        } else {
            self.unlisted += 1;
        }
    }

    fn finish(mut self) -> ParsedSettings {
        if self.unlisted > 0 {
            self.warnings.push(format!(
                "has {} more problems like those above, not listed one by one; fix those and \
                 they will be listed.",
                self.unlisted
            ));
        }
        ParsedSettings {
            entries: self.entries,
            warnings: self.warnings,
            disable_all_hooks: self.disable_all_hooks,
        }
    }

    fn read(&mut self, text: &str) {
        // Editors on Windows may save a UTF-8 byte order mark; JSON parsers reject it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // A file with nothing in it holds no settings, like `{}`; not worth a warning.
        if text.trim().is_empty() {
            return;
        }
        // A number too large for a double is `Infinity` to JSON.parse, not an invalid file.
        let parsed = serde_json::from_str(text).or_else(|err| match clamp_huge_numbers(text) {
            Some(clamped) => serde_json::from_str(&clamped),
            None => Err(err),
        });
        let root: Value = match parsed {
            Ok(root) => root,
            Err(err) => {
                // serde_json's message ends with the place: "... at line 3 column 5".
                self.warn(format!(
                    "is not valid JSON: {err}; no hook of it runs until it is fixed."
                ));
                return;
            }
        };
        let Some(object) = root.as_object() else {
            // Claude Code reads settings from an object only: nothing of this file applies.
            self.warn(format!(
                "holds {}, not a JSON object such as {{\"hooks\": {{...}}}}; no hook of it runs until it is fixed.",
                kind_of(&root)
            ));
            return;
        };
        self.disable_all_hooks = object.get("disableAllHooks") == Some(&Value::Bool(true));
        // Settings that have no `hooks` are not this reader's to judge: the file may hold only
        // permissions, env and the like.
        let Some(hooks) = object.get("hooks") else {
            return;
        };
        let Some(events) = hooks.as_object() else {
            self.warn(format!(
                "has `hooks` as {}, not an object of events such as \
                 {{\"PreToolUse\": [...]}}; none of its hooks run until it is one.",
                kind_of(hooks)
            ));
            return;
        };
        for (event, groups) in events {
            if let Flow::Full = self.read_event(event, groups) {
                return;
            }
        }
    }

    fn read_event(&mut self, event: &str, groups: &Value) -> Flow {
        let at = format!("hooks{}", key_path(event));
        let Some(groups) = groups.as_array() else {
            self.warn(format!(
                "has `{at}` as {}, not a list of matcher groups such as \
                 [{{\"matcher\": \"Bash\", \"hooks\": [...]}}]; its handlers are skipped.",
                kind_of(groups)
            ));
            return Flow::Continue;
        };
        for (index, group) in groups.iter().enumerate() {
            let at = format!("{at}[{index}]");
            let Some(group) = group.as_object() else {
                self.warn(format!(
                    "has `{at}` as {}, not a matcher group such as \
                     {{\"matcher\": \"Bash\", \"hooks\": [...]}}; it is skipped.",
                    kind_of(group)
                ));
                continue;
            };
            if let Flow::Full = self.read_group(event, &at, group) {
                return Flow::Full;
            }
        }
        Flow::Continue
    }

    fn read_group(&mut self, event: &str, at: &str, group: &Map<String, Value>) -> Flow {
        let matcher = match group.get("matcher") {
            None => None,
            Some(Value::String(matcher)) => Some(matcher.clone()),
            Some(other) => {
                self.warn(format!(
                    "has `{at}.matcher` as {}, not a string such as \"Bash\" or \"Edit|Write\" \
                     (or \"*\" for every tool); the group is skipped.",
                    kind_of(other)
                ));
                return Flow::Continue;
            }
        };
        let handlers = match group.get("hooks") {
            Some(Value::Array(handlers)) => handlers,
            None if group.contains_key("command") || group.contains_key("type") => {
                // The common slip: a handler put where its group belongs.
                self.warn(format!(
                    "has a handler directly at `{at}`, where a matcher group belongs; wrap it as \
                     {{\"matcher\": \"\", \"hooks\": [<the handler>]}}. It is skipped until then."
                ));
                return Flow::Continue;
            }
            None => {
                self.warn(format!(
                    "has no `hooks` list in the matcher group at `{at}`; add one such as \
                     \"hooks\": [{{\"type\": \"command\", \"command\": \"...\"}}]. The group is \
                     skipped."
                ));
                return Flow::Continue;
            }
            Some(other) => {
                self.warn(format!(
                    "has `{at}.hooks` as {}, not a list of handlers such as \
                     [{{\"type\": \"command\", \"command\": \"...\"}}]; the group is skipped.",
                    kind_of(other)
                ));
                return Flow::Continue;
            }
        };
        for (index, handler) in handlers.iter().enumerate() {
            let position = format!("{at}.hooks[{index}]");
            if self.entries.len() >= MAX_SETTINGS_ENTRIES {
                self.warn(format!(
                    "has more than {MAX_SETTINGS_ENTRIES} hook handlers; the first \
                     {MAX_SETTINGS_ENTRIES} are read and the rest, from `{position}` on, are \
                     ignored."
                ));
                return Flow::Full;
            }
            if let Some(handler) = self.read_handler(&position, handler) {
                self.entries.push(SettingsEntry {
                    event: event.to_owned(),
                    matcher: matcher.clone(),
                    position,
                    handler,
                });
            }
        }
        Flow::Continue
    }

    fn read_handler(&mut self, at: &str, handler: &Value) -> Option<Handler> {
        let Some(handler) = handler.as_object() else {
            self.warn(format!(
                "has `{at}` as {}, not a handler such as \
                 {{\"type\": \"command\", \"command\": \"...\"}}; it is skipped.",
                kind_of(handler)
            ));
            return None;
        };
        let kind = match handler.get("type") {
            Some(Value::String(kind)) if !kind.trim().is_empty() => kind,
            // Claude Code's schema requires `type` (hooks reference, "Common fields": `type`,
            // required); guessing "command" would run what Claude Code refuses to.
            None => {
                self.warn(format!(
                    "has no `type` in the handler at `{at}`; Claude Code requires one, so add \
                     \"type\": \"command\". The handler is skipped until then."
                ));
                return None;
            }
            Some(other) => {
                self.warn(format!(
                    "has `{at}.type` as {}, not a handler type such as \"command\"; the handler \
                     is skipped.",
                    describe(other)
                ));
                return None;
            }
        };
        if kind != "command" {
            // `http`, `prompt`, `agent`, `mcp_tool`, ...: the caller says they do not run here.
            return Some(Handler::Unsupported { kind: kind.clone() });
        }
        let command = match handler.get("command") {
            Some(Value::String(command)) if !command.trim().is_empty() => command.clone(),
            Some(Value::String(_)) => {
                self.warn(format!(
                    "has an empty `{at}.command`; write the shell command the handler runs. It \
                     is skipped until then."
                ));
                return None;
            }
            None => {
                self.warn(format!(
                    "has no `command` in the command handler at `{at}`; add the shell command it \
                     runs. It is skipped until then."
                ));
                return None;
            }
            Some(other) => {
                self.warn(format!(
                    "has `{at}.command` as {}, not the shell command line to run; the handler is \
                     skipped.",
                    kind_of(other)
                ));
                return None;
            }
        };
        if handler.contains_key("if") {
            // Claude Code spawns the handler only when the tool call matches `if` (and never
            // on events without a tool); running it on every call instead could block calls
            // its author never meant it to see.
            self.warn(format!(
                "has an `if` condition at `{at}.if`, which this runtime does not evaluate; the \
                 handler is skipped rather than run on every call. Drop `if` and test the \
                 condition in the script to run it here."
            ));
            return None;
        }
        for key in ["async", "asyncRewake"] {
            if handler.get(key) == Some(&Value::Bool(true)) {
                self.warn(format!(
                    "has `{at}.{key}` true: Claude Code runs that handler in the background, but \
                     here it runs like any other, so the call waits for it and its answer counts."
                ));
                break;
            }
        }
        let timeout = match handler.get("timeout") {
            None => None,
            Some(value) => {
                let timeout = timeout_of(value);
                if timeout.is_none() {
                    self.warn(format!(
                        "has `{at}.timeout` {}, which is not a positive number of seconds (such as \
                         60 or 1.5) up to {MAX_TIMEOUT_SECS}; the handler runs with the default \
                         timeout.",
                        describe(value)
                    ));
                }
                timeout
            }
        };
        Some(Handler::Command { command, timeout })
    }
}

/// A `timeout` in seconds as a duration, when it is a positive number no larger than
/// [`MAX_TIMEOUT_SECS`] that does not round to zero.
fn timeout_of(value: &Value) -> Option<Duration> {
    let seconds = value.as_f64()?;
    if !(seconds > 0.0 && seconds <= MAX_TIMEOUT_SECS) {
        return None;
    }
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|timeout| !timeout.is_zero())
}

/// `.Name` for a key of letters, digits and `_`; else `["the key"]`, escaped and cut short.
fn key_path(key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= QUOTE_LEN
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if plain {
        format!(".{key}")
    } else {
        format!("[{}]", quote(key))
    }
}

/// `text` in double quotes for a message, cut to [`QUOTE_LEN`] characters; see [`escaped`].
fn quote(text: &str) -> String {
    let mut shown = String::from("\"");
    for c in text.chars().take(QUOTE_LEN) {
        escaped(c, &mut shown);
    }
    if text.chars().nth(QUOTE_LEN).is_some() {
        shown.push('…');
    }
    shown.push('"');
    shown
}

/// Pushes `c` onto `out`, as `\u{..}` when it is a control character or one that reorders or
/// hides text (bidirectional controls, zero-width characters), so a quoted key or value cannot
/// garble the message it sits in; `"` and `\` are escaped as in JSON.
pub(crate) fn escaped(c: char, out: &mut String) {
    let hidden = c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}');
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        c if hidden => out.push_str(&format!("\\u{{{:04x}}}", u32::from(c))),
        c => out.push(c),
    }
}

/// What kind of JSON value `value` is, for "has X as <kind>".
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// `value` itself when it is short and simple (a number, a string, a boolean, null), quoted
/// and cut; else its kind.
fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => quote(text),
        // What `clamp_huge_numbers` wrote for a number too large for a double.
        Value::Number(number) if number.as_f64().is_some_and(|n| n.abs() == f64::MAX) => {
            "a number too large for a double (Infinity to JSON.parse)".to_owned()
        }
        Value::Number(number) => number.to_string(),
        Value::Bool(_) | Value::Null => value.to_string(),
        Value::Array(_) | Value::Object(_) => kind_of(value).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn parse(value: Value) -> ParsedSettings {
        parse_settings(&value.to_string())
    }

    fn command(command: &str, timeout: Option<Duration>) -> Handler {
        Handler::Command {
            command: command.to_owned(),
            timeout,
        }
    }

    fn only_warning(parsed: &ParsedSettings) -> &str {
        assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
        &parsed.warnings[0]
    }

    #[test]
    fn reads_the_documented_shape() {
        let parsed = parse(json!({
            "permissions": {"allow": ["Bash"]},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [
                        {"type": "command", "command": "check.sh", "timeout": 60},
                        {"type": "command", "command": "log.sh"}
                    ]},
                    {"hooks": [{"type": "command", "command": "all.sh"}]}
                ],
                "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "done.sh", "timeout": 1.5}]}]
            }
        }));
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(
            parsed.entries,
            vec![
                SettingsEntry {
                    event: "PreToolUse".into(),
                    matcher: Some("Bash".into()),
                    position: "hooks.PreToolUse[0].hooks[0]".into(),
                    handler: command("check.sh", Some(Duration::from_secs(60))),
                },
                SettingsEntry {
                    event: "PreToolUse".into(),
                    matcher: Some("Bash".into()),
                    position: "hooks.PreToolUse[0].hooks[1]".into(),
                    handler: command("log.sh", None),
                },
                SettingsEntry {
                    event: "PreToolUse".into(),
                    matcher: None,
                    position: "hooks.PreToolUse[1].hooks[0]".into(),
                    handler: command("all.sh", None),
                },
                SettingsEntry {
                    event: "Stop".into(),
                    matcher: Some(String::new()),
                    position: "hooks.Stop[0].hooks[0]".into(),
                    handler: command("done.sh", Some(Duration::from_millis(1500))),
                },
            ]
        );
    }

    #[test]
    fn events_keep_the_order_written() {
        let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}],
            "PreToolUse": [{"hooks": [{"type": "command", "command": "b"}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "c"}]}]}}"#;
        let events: Vec<_> = parse_settings(text)
            .entries
            .into_iter()
            .map(|e| e.event)
            .collect();
        assert_eq!(events, ["Stop", "PreToolUse", "Notification"]);
    }

    #[test]
    fn unknown_events_are_kept() {
        let parsed = parse(
            json!({"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
        );
        assert!(parsed.warnings.is_empty());
        assert_eq!(parsed.entries[0].event, "TeammateIdle");
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let text = "\u{feff}{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}}";
        let parsed = parse_settings(text);
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(parsed.entries.len(), 1);
    }

    #[test]
    fn text_that_is_not_json_is_one_warning_with_the_place() {
        let parsed = parse_settings("{\n  \"hooks\": {\n    \"Stop\": []\n    \"x\": 1\n}");
        assert!(parsed.entries.is_empty());
        let warning = only_warning(&parsed);
        assert!(
            warning.starts_with("is not valid JSON: expected `,` or `}` at line 4 column 5"),
            "{warning}"
        );
        assert!(
            warning.ends_with("; no hook of it runs until it is fixed."),
            "{warning}"
        );
    }

    #[test]
    fn trailing_garbage_and_deep_nesting_are_not_json() {
        assert!(only_warning(&parse_settings("{} x")).contains("trailing characters at line 1"));
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(only_warning(&parse_settings(&deep)).contains("recursion limit"));
    }

    #[test]
    fn an_empty_file_holds_no_hooks_and_no_warning() {
        for text in ["", "  \n", "\u{feff}"] {
            assert_eq!(parse_settings(text), ParsedSettings::default(), "{text:?}");
        }
    }

    #[test]
    fn settings_without_hooks_are_quiet() {
        for value in [json!({}), json!({"permissions": {}})] {
            assert_eq!(parse(value.clone()), ParsedSettings::default(), "{value}");
        }
    }

    /// Attack on issue 36: a file Claude Code cannot read as settings is said, not skipped.
    #[test]
    fn settings_that_are_not_an_object_are_said() {
        for (value, kind) in [
            (json!([1, 2]), "a list"),
            (json!("hooks"), "a string"),
            (json!(null), "null"),
            (json!(3), "a number"),
        ] {
            let parsed = parse(value.clone());
            assert!(parsed.entries.is_empty());
            assert_eq!(
                parsed.warnings,
                [format!("holds {kind}, not a JSON object such as {{\"hooks\": {{...}}}}; no hook of it runs until it is fixed.")],
                "{value}"
            );
        }
        assert!(parse(json!({"disableAllHooks": true})).disable_all_hooks);
        assert!(!parse(json!({"disableAllHooks": "yes"})).disable_all_hooks);
    }

    #[test]
    fn hooks_that_is_not_an_object_is_said() {
        for (value, kind) in [
            (json!([]), "a list"),
            (json!("x"), "a string"),
            (json!(null), "null"),
            (json!(true), "true or false"),
        ] {
            let parsed = parse(json!({"hooks": value}));
            assert!(parsed.entries.is_empty());
            let warning = only_warning(&parsed);
            assert!(
                warning.starts_with(&format!("has `hooks` as {kind}, not an object of events")),
                "{warning}"
            );
        }
    }

    #[test]
    fn an_event_that_is_not_a_list_is_skipped_and_the_rest_kept() {
        let parsed = parse(json!({"hooks": {
            "PreToolUse": {"matcher": "Bash"},
            "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]
        }}));
        assert_eq!(parsed.entries.len(), 1);
        let warning = only_warning(&parsed);
        assert!(
            warning
                .starts_with("has `hooks.PreToolUse` as an object, not a list of matcher groups"),
            "{warning}"
        );
    }

    #[test]
    fn a_group_that_is_not_an_object_is_skipped() {
        let parsed = parse(
            json!({"hooks": {"Stop": ["echo", {"hooks": [{"type": "command", "command": "x"}]}]}}),
        );
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(parsed.entries[0].position, "hooks.Stop[1].hooks[0]");
        assert!(only_warning(&parsed)
            .starts_with("has `hooks.Stop[0]` as a string, not a matcher group"));
    }

    #[test]
    fn a_handler_put_where_its_group_belongs_is_explained() {
        let parsed =
            parse(json!({"hooks": {"PreToolUse": [{"type": "command", "command": "echo hi"}]}}));
        assert!(parsed.entries.is_empty());
        let warning = only_warning(&parsed);
        assert!(
            warning.contains("directly at `hooks.PreToolUse[0]`"),
            "{warning}"
        );
        assert!(
            warning.contains("{\"matcher\": \"\", \"hooks\": [<the handler>]}"),
            "{warning}"
        );
    }

    #[test]
    fn a_group_without_a_hooks_list_is_skipped() {
        let parsed = parse(json!({"hooks": {"Stop": [{"matcher": "x"}, {"hooks": "echo"}]}}));
        assert!(parsed.entries.is_empty());
        assert_eq!(parsed.warnings.len(), 2);
        assert!(parsed.warnings[0]
            .starts_with("has no `hooks` list in the matcher group at `hooks.Stop[0]`"));
        assert!(parsed.warnings[1]
            .starts_with("has `hooks.Stop[1].hooks` as a string, not a list of handlers"));
    }

    #[test]
    fn a_matcher_that_is_not_a_string_skips_its_group() {
        let parsed = parse(json!({"hooks": {"PreToolUse": [
            {"matcher": {"tools": ["Bash"]}, "hooks": [{"type": "command", "command": "x"}]},
            {"matcher": ["Bash"], "hooks": [{"type": "command", "command": "y"}]},
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "z"}]}
        ]}}));
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(parsed.entries[0].matcher.as_deref(), Some("Edit"));
        assert_eq!(parsed.warnings.len(), 2);
        assert!(parsed.warnings[0]
            .starts_with("has `hooks.PreToolUse[0].matcher` as an object, not a string"));
        assert!(parsed.warnings[1].starts_with("has `hooks.PreToolUse[1].matcher` as a list"));
    }

    #[test]
    fn a_null_matcher_is_a_wrong_type_not_an_absent_one() {
        let parsed = parse(
            json!({"hooks": {"Stop": [{"matcher": null, "hooks": [{"type": "command", "command": "x"}]}]}}),
        );
        assert!(parsed.entries.is_empty());
        assert!(only_warning(&parsed).contains("as null"));
    }

    #[test]
    fn a_handler_that_is_not_an_object_is_skipped() {
        let parsed = parse(
            json!({"hooks": {"Stop": [{"hooks": ["echo hi", {"type": "command", "command": "x"}]}]}}),
        );
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(parsed.entries[0].position, "hooks.Stop[0].hooks[1]");
        assert!(only_warning(&parsed)
            .starts_with("has `hooks.Stop[0].hooks[0]` as a string, not a handler"));
    }

    #[test]
    fn a_handler_without_a_type_is_skipped_because_claude_requires_one() {
        let parsed = parse(json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "x"}]}]}}));
        assert!(parsed.entries.is_empty());
        let warning = only_warning(&parsed);
        assert!(
            warning.starts_with("has no `type` in the handler at `hooks.PreToolUse[0].hooks[0]`"),
            "{warning}"
        );
        assert!(warning.contains("add \"type\": \"command\""), "{warning}");
    }

    #[test]
    fn a_type_that_is_not_a_word_is_skipped() {
        for (value, shown) in [
            (json!(5), "5"),
            (json!(""), "\"\""),
            (json!(" "), "\" \""),
            (json!(null), "null"),
            (json!(["command"]), "a list"),
        ] {
            let parsed =
                parse(json!({"hooks": {"Stop": [{"hooks": [{"type": value, "command": "x"}]}]}}));
            assert!(parsed.entries.is_empty());
            let warning = only_warning(&parsed);
            assert!(
                warning.starts_with(&format!(
                    "has `hooks.Stop[0].hooks[0].type` as {shown}, not a handler type"
                )),
                "{warning}"
            );
        }
    }

    #[test]
    fn other_types_are_listed_as_unsupported_without_a_warning() {
        let parsed = parse(
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "http", "url": "http://localhost"},
                {"type": "prompt", "prompt": "ok?"},
                {"type": "agent"},
                {"type": "mcp_tool", "if": "Bash(x)"},
                {"type": "Command", "command": "x"}
            ]}]}}),
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        let kinds: Vec<_> = parsed
            .entries
            .iter()
            .map(|e| match &e.handler {
                Handler::Unsupported { kind } => kind.as_str(),
                Handler::Command { .. } => "command!",
            })
            .collect();
        assert_eq!(kinds, ["http", "prompt", "agent", "mcp_tool", "Command"]);
        assert!(parsed
            .entries
            .iter()
            .all(|e| e.matcher.as_deref() == Some("Bash")));
    }

    #[test]
    fn a_command_that_is_missing_empty_or_not_a_string_is_skipped() {
        let parsed = parse(json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command"},
            {"type": "command", "command": ""},
            {"type": "command", "command": "  \n"},
            {"type": "command", "command": ["ls", "-l"]},
            {"type": "command", "command": "ok"}
        ]}]}}));
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(parsed.entries[0].position, "hooks.Stop[0].hooks[4]");
        assert_eq!(parsed.warnings.len(), 4, "{:?}", parsed.warnings);
        assert!(parsed.warnings[0]
            .starts_with("has no `command` in the command handler at `hooks.Stop[0].hooks[0]`"));
        assert!(parsed.warnings[1].starts_with("has an empty `hooks.Stop[0].hooks[1].command`"));
        assert!(parsed.warnings[2].starts_with("has an empty `hooks.Stop[0].hooks[2].command`"));
        assert!(parsed.warnings[3].starts_with("has `hooks.Stop[0].hooks[3].command` as a list"));
    }

    #[test]
    fn the_command_is_kept_as_written() {
        let line = "  \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh --flag  ";
        let parsed =
            parse(json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": line}]}]}}));
        assert_eq!(parsed.entries[0].handler, command(line, None));
    }

    #[test]
    fn valid_timeouts_are_durations() {
        for (value, expected) in [
            (json!(60), Duration::from_secs(60)),
            (json!(0.25), Duration::from_millis(250)),
            (json!(1e-3), Duration::from_millis(1)),
            (json!(4294967295u64), Duration::from_secs(4_294_967_295)),
        ] {
            let parsed = parse(
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": value}]}]}}),
            );
            assert!(parsed.warnings.is_empty(), "{value}: {:?}", parsed.warnings);
            assert_eq!(
                parsed.entries[0].handler,
                command("x", Some(expected)),
                "{value}"
            );
        }
    }

    #[test]
    fn invalid_timeouts_are_said_and_dropped() {
        for (value, shown) in [
            (json!(0), "0"),
            (json!(-5), "-5"),
            (json!(-0.0), "-0.0"),
            (json!("60"), "\"60\""),
            (json!(null), "null"),
            (json!(true), "true"),
            (json!([60]), "a list"),
            (json!(1e-300), "1e-300"),
            (json!(u64::MAX), "18446744073709551615"),
            (json!(4294967296u64), "4294967296"),
            (json!(1e300), "1e+300"),
        ] {
            let parsed = parse(
                json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": value}]}]}}),
            );
            assert_eq!(parsed.entries[0].handler, command("x", None), "{value}");
            let warning = only_warning(&parsed);
            assert!(
                warning.starts_with(&format!("has `hooks.Stop[0].hooks[0].timeout` {shown}, which is not a positive number of seconds")),
                "{value}: {warning}"
            );
        }
    }

    #[test]
    fn a_number_too_large_for_a_double_is_that_values_mistake_not_the_files() {
        // JSON.parse reads 1e400 as Infinity; the file is valid, its other handlers run.
        let parsed = parse_settings(
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 1e400}, {"type": "command", "command": "b", "timeout": 5}]}]}}"#,
        );
        assert_eq!(parsed.entries.len(), 2);
        assert_eq!(parsed.entries[0].handler, command("a", None));
        assert_eq!(
            parsed.entries[1].handler,
            command("b", Some(Duration::from_secs(5)))
        );
        assert!(only_warning(&parsed).starts_with(
            "has `hooks.Stop[0].hooks[0].timeout` a number too large for a double (Infinity to JSON.parse), which is not a positive number of seconds"
        ));
        // Text that is not JSON for another reason still says the parser's own error.
        assert!(only_warning(&parse_settings(r#"{"a": 1e400,}"#)).contains("trailing comma"));
    }

    #[test]
    fn an_if_condition_skips_the_handler_with_a_warning() {
        let parsed = parse(
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "block.sh", "if": "Bash(rm *)"}
            ]}]}}),
        );
        assert!(parsed.entries.is_empty());
        let warning = only_warning(&parsed);
        assert!(
            warning.starts_with("has an `if` condition at `hooks.PreToolUse[0].hooks[0].if`"),
            "{warning}"
        );
    }

    #[test]
    fn an_async_handler_is_kept_with_a_warning() {
        let parsed = parse(json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "a", "async": true},
            {"type": "command", "command": "b", "asyncRewake": true, "async": true},
            {"type": "command", "command": "c", "async": false}
        ]}]}}));
        assert_eq!(parsed.entries.len(), 3);
        assert_eq!(parsed.warnings.len(), 2, "{:?}", parsed.warnings);
        assert!(parsed.warnings[0].starts_with("has `hooks.Stop[0].hooks[0].async` true"));
        assert!(parsed.warnings[1].starts_with("has `hooks.Stop[0].hooks[1].async` true"));
    }

    #[test]
    fn odd_event_keys_are_quoted_and_escaped_in_positions() {
        let key = "Pre Tool\u{202e}\n\"x\"";
        let parsed = parse(
            json!({"hooks": {key: [{"hooks": [{"type": "command", "command": "x"}]}], "": 5}}),
        );
        assert_eq!(parsed.entries[0].event, key);
        assert_eq!(
            parsed.entries[0].position,
            "hooks[\"Pre Tool\\u{202e}\\u{000a}\\\"x\\\"\"][0].hooks[0]"
        );
        assert!(only_warning(&parsed).starts_with("has `hooks[\"\"]` as a number"));
    }

    #[test]
    fn a_huge_event_key_is_cut_in_messages() {
        let key = "E".repeat(100_000);
        let parsed = parse(json!({"hooks": {key.clone(): 1}}));
        let warning = only_warning(&parsed);
        assert!(warning.len() < 400, "{} bytes", warning.len());
        assert!(warning.contains("…"));
    }

    #[test]
    fn entries_are_capped_with_a_warning() {
        let handlers: Vec<Value> = (0..MAX_SETTINGS_ENTRIES + 5)
            .map(|i| json!({"type": "command", "command": format!("echo {i}")}))
            .collect();
        let parsed = parse(json!({"hooks": {
            "PreToolUse": [{"hooks": handlers}],
            "Stop": [{"hooks": [{"type": "command", "command": "late"}]}]
        }}));
        assert_eq!(parsed.entries.len(), MAX_SETTINGS_ENTRIES);
        let warning = only_warning(&parsed);
        assert!(
            warning.contains(&format!(
                "`hooks.PreToolUse[0].hooks[{MAX_SETTINGS_ENTRIES}]`"
            )),
            "{warning}"
        );
    }

    #[test]
    fn exactly_the_cap_is_no_warning() {
        let handlers: Vec<Value> = (0..MAX_SETTINGS_ENTRIES)
            .map(|_| json!({"type": "command", "command": "x"}))
            .collect();
        let parsed = parse(json!({"hooks": {"Stop": [{"hooks": handlers}]}}));
        assert_eq!(parsed.entries.len(), MAX_SETTINGS_ENTRIES);
        assert!(parsed.warnings.is_empty());
    }

    #[test]
    fn warnings_are_capped_and_the_rest_counted() {
        let handlers: Vec<Value> = (0..MAX_WARNINGS + 7)
            .map(|_| json!({"type": "command"}))
            .collect();
        let parsed = parse(json!({"hooks": {"Stop": [{"hooks": handlers}]}}));
        assert_eq!(parsed.warnings.len(), MAX_WARNINGS + 1);
        assert!(
            parsed.warnings[MAX_WARNINGS].starts_with("has 7 more problems"),
            "{}",
            parsed.warnings[MAX_WARNINGS]
        );
    }

    #[test]
    fn duplicate_keys_keep_the_last() {
        let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "command": "b"}]}]}}"#;
        assert_eq!(parse_settings(text).entries[0].handler, command("b", None));
    }

    #[test]
    fn every_warning_is_a_sentence_about_the_file() {
        let parsed = parse(json!({"hooks": {
            "A": 1, "B": [1], "C": [{"matcher": 1, "hooks": []}], "D": [{"hooks": 1}], "E": [{}],
            "F": [{"command": "x"}], "G": [{"hooks": [1, {}, {"type": 1}, {"type": "command"},
                {"type": "command", "command": ""}, {"type": "command", "command": 1},
                {"type": "command", "command": "x", "timeout": 0},
                {"type": "command", "command": "x", "if": "Bash"},
                {"type": "command", "command": "x", "async": true}]}]
        }}));
        assert_eq!(parsed.warnings.len(), 15, "{:#?}", parsed.warnings);
        for warning in parsed.warnings {
            assert!(
                warning.starts_with("has ") || warning.starts_with("is "),
                "{warning}"
            );
            assert!(warning.ends_with('.'), "{warning}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in any::<String>()) {
            let parsed = parse_settings(&text);
            prop_assert!(parsed.entries.len() <= MAX_SETTINGS_ENTRIES);
            prop_assert!(parsed.warnings.len() <= MAX_WARNINGS + 1);
        }

        #[test]
        fn arbitrary_json_never_panics(value in arbitrary_json()) {
            let _ = parse(json!({"hooks": value.clone()}));
            let _ = parse(json!({"hooks": {"PreToolUse": value.clone()}}));
            let _ = parse(json!({"hooks": {"PreToolUse": [{"matcher": "x", "hooks": value.clone()}]}}));
            let _ = parse(json!({"hooks": {"PreToolUse": [{"hooks": [value.clone()]}]}}));
            let _ = parse(json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": value}]}]}}));
        }

        #[test]
        fn any_positive_number_either_is_a_timeout_or_is_warned(seconds in any::<f64>()) {
            if let Some(number) = serde_json::Number::from_f64(seconds) {
                let parsed = parse(json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": number}]}]}}));
                prop_assert_eq!(parsed.entries.len(), 1);
                let Handler::Command { timeout, .. } = &parsed.entries[0].handler else {
                    return Err(TestCaseError::fail("not a command"));
                };
                prop_assert_eq!(timeout.is_some(), parsed.warnings.is_empty());
                if let Some(timeout) = timeout {
                    prop_assert!(!timeout.is_zero());
                }
            }
        }

        #[test]
        fn arbitrary_keys_and_commands_round_trip(event in any::<String>(), line in "\\PC{1,40}", matcher in any::<Option<String>>()) {
            let mut group = json!({"hooks": [{"type": "command", "command": line.clone()}]});
            if let Some(matcher) = &matcher {
                group["matcher"] = json!(matcher);
            }
            let parsed = parse(json!({"hooks": {event.clone(): [group]}}));
            if line.trim().is_empty() {
                prop_assert!(parsed.entries.is_empty());
            } else {
                prop_assert_eq!(parsed.entries.len(), 1);
                prop_assert_eq!(&parsed.entries[0].event, &event);
                prop_assert_eq!(&parsed.entries[0].matcher, &matcher);
                prop_assert_eq!(&parsed.entries[0].handler, &command(&line, None));
            }
        }
    }

    /// Arbitrary JSON values, a few levels deep.
    fn arbitrary_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_map(|n| serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)),
            any::<String>().prop_map(Value::String),
            Just(json!("command")),
            Just(json!("type")),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec(
                    (
                        prop_oneof![
                            any::<String>(),
                            Just("type".to_owned()),
                            Just("command".to_owned()),
                            Just("hooks".to_owned()),
                            Just("matcher".to_owned()),
                            Just("timeout".to_owned())
                        ],
                        inner
                    ),
                    0..8
                )
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }
}
