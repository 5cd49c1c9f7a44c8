//! Cline's events in Claude Code's words, both ways: which Cline hooks run a Claude event's
//! handlers (`cline_hooks_of`), which Claude event a Cline hook is (`claude_event_of`), and
//! the JSON a Claude hook reads on stdin, built from the input Cline gives the hook
//! (`claude_input`); the tool call in it is told in Claude's words by `tools.rs`. Pure: no
//! file is read, no process run.
//!
//! Where Claude's contract and Cline's disagree, the choice made here is the one in
//! `docs/claude-code-mapping.md`; the comments below say why, briefly.

use std::path::Path;

use serde_json::{Map, Value};

use super::paths::Folder;
use super::tools::{claude_tool_name, tool_input_in, NULL};
use crate::discovery::Profile;

/// Every hook event Claude Code has documented, so that a settings key Cline cannot fire
/// (`SubagentStop`) is told apart from a typo (`PreToolUSe`).
pub const CLAUDE_EVENTS: &[&str] = &[
    "SessionStart",
    "Setup",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "SessionEnd",
];

/// Each Claude event Cline has, and the Cline hooks that are it.
const EVENTS: [(&str, &[&str]); 8] = [
    ("PreToolUse", &["PreToolUse"]),
    ("PostToolUse", &["PostToolUse"]),
    ("UserPromptSubmit", &["UserPromptSubmit"]),
    ("SessionStart", &["TaskStart", "TaskResume"]),
    ("Stop", &["TaskComplete"]),
    ("SessionEnd", &["TaskCancel"]),
    ("PreCompact", &["PreCompact"]),
    ("Notification", &["Notification"]),
];

/// The Cline CLI's event names and the hook each one fires (a hook file is always named
/// after the hook, whichever name fired it).
const SDK_EVENTS: [(&str, &str); 9] = [
    ("tool_call", "PreToolUse"),
    ("tool_result", "PostToolUse"),
    ("prompt_submit", "UserPromptSubmit"),
    ("agent_start", "TaskStart"),
    ("agent_resume", "TaskResume"),
    ("agent_end", "TaskComplete"),
    ("agent_abort", "TaskCancel"),
    ("agent_error", "TaskError"),
    ("session_shutdown", "SessionShutdown"),
];

/// Claude's `SessionEnd` reason for a cancelled task. Claude's reasons are `clear`, `logout`,
/// `prompt_input_exit`, `bypass_permissions_disabled` and `other`: a user's cancel is none of
/// the first four.
const CANCEL_REASON: &str = "other";

/// The Cline hooks that run the handlers of Claude's `event` (`SessionStart` runs on
/// `TaskStart` and `TaskResume`); empty when Cline has no such moment.
pub fn cline_hooks_of(event: &str) -> &'static [&'static str] {
    EVENTS
        .iter()
        .find(|(claude, _)| *claude == event)
        .map_or(&[], |(_, hooks)| *hooks)
}

/// The Claude event that the Cline hook `hook_name` is, if any. The Cline CLI's event names
/// (`tool_call`, `agent_start`, ...) are accepted too.
pub fn claude_event_of(hook_name: &str) -> Option<&'static str> {
    let hook = hook_of(hook_name);
    EVENTS
        .iter()
        .find(|(_, hooks)| hooks.contains(&hook))
        .map(|(claude, _)| *claude)
}

/// The hook name for `name`, which may be the Cline CLI's event name.
pub(super) fn hook_of(name: &str) -> &str {
    SDK_EVENTS
        .iter()
        .find(|(sdk, _)| *sdk == name)
        .map_or(name, |(_, hook)| *hook)
}

/// A Claude hook's stdin for one event, and what its matcher is tested against.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaudeCall {
    /// The JSON object written to its stdin.
    pub input: Value,
    /// The tool's Claude name (PreToolUse, PostToolUse), the SessionStart `source`, the
    /// PreCompact `trigger`, the Notification type, the SessionEnd `reason` (Claude matches
    /// SessionEnd by it too); `None` when the event has no matcher (UserPromptSubmit, Stop).
    /// `Some("")` when Cline did not say: only a match-everything matcher applies then.
    pub subject: Option<String>,
}

/// The stdin of a Claude hook run for the Cline hook `hook_name`, from `input`, the completed
/// input Cline gives hook files (of `profile`), `project_dir` being the hook's project folder
/// (its `cwd`, `CLAUDE_PROJECT_DIR`).
///
/// Never fails: a field Cline left out (or sent with the wrong type) is left out, or given
/// Claude's neutral value, and the rest is built. A hook with no Claude event (`TaskError`,
/// `SessionShutdown`, an unknown name) gets `Value::Null` and no subject: run no Claude hook
/// for it. `transcript_path` is never set: Cline keeps no Claude transcript, and a made-up
/// path would send a hook reading it to a file that does not exist.
pub fn claude_input(
    hook_name: &str,
    input: &Value,
    profile: Profile,
    project_dir: &Path,
) -> ClaudeCall {
    claude_input_in(hook_name, input, profile, project_dir, cfg!(windows))
}

/// `claude_input` with Windows' path rules or POSIX's (see `resolve` in `paths.rs`).
pub(super) fn claude_input_in(
    hook_name: &str,
    input: &Value,
    profile: Profile,
    project_dir: &Path,
    windows: bool,
) -> ClaudeCall {
    let hook = hook_of(hook_name);
    let Some(event) = claude_event_of(hook) else {
        return ClaudeCall {
            input: Value::Null,
            subject: None,
        };
    };
    let cwd = project_dir.to_string_lossy();
    let mut out = Map::new();
    out.insert("session_id".into(), session_id(input, profile, hook).into());
    out.insert("cwd".into(), Value::from(cwd.as_ref()));
    out.insert("hook_event_name".into(), event.into());
    let subject = match event {
        "PreToolUse" | "PostToolUse" => {
            let post = event == "PostToolUse";
            let call = tool_call(input, profile, post);
            let name = claude_tool_name(&call.name, Some(call.params));
            out.insert("tool_name".into(), Value::from(name.as_str()));
            out.insert(
                "tool_input".into(),
                tool_input_in(&call.name, call.params, Folder::of(&cwd, windows)),
            );
            if post {
                out.insert("tool_response".into(), tool_response(&call));
            }
            if let Some(id) = call.id {
                out.insert("tool_use_id".into(), id.into());
            }
            Some(name)
        }
        "UserPromptSubmit" => {
            let prompt = text_at(input, &["userPromptSubmit", "prompt"]).unwrap_or_default();
            out.insert("prompt".into(), prompt.into());
            None
        }
        "SessionStart" => {
            let source = if hook == "TaskResume" {
                "resume"
            } else {
                "startup"
            };
            out.insert("source".into(), source.into());
            Some(source.to_owned())
        }
        "Stop" => {
            // Claude sets it when it goes on because a Stop hook said so; Cline's
            // TaskComplete is never such a second round.
            out.insert("stop_hook_active".into(), false.into());
            if let Some(text) = text_at(input, &["turn", "outputText"]) {
                out.insert("last_assistant_message".into(), text.into());
            }
            None
        }
        "SessionEnd" => {
            out.insert("reason".into(), CANCEL_REASON.into());
            Some(CANCEL_REASON.to_owned())
        }
        "PreCompact" => {
            let compact = input.get("preCompact");
            let manual = compact.is_some_and(|c| {
                c.get("trigger").and_then(Value::as_str) == Some("manual")
                    || c.get("manual").and_then(Value::as_bool) == Some(true)
            });
            let trigger = if manual { "manual" } else { "auto" };
            let instructions = text_at(input, &["preCompact", "customInstructions"])
                .or_else(|| text_at(input, &["preCompact", "custom_instructions"]))
                .unwrap_or_default();
            out.insert("trigger".into(), trigger.into());
            out.insert("custom_instructions".into(), instructions.into());
            Some(trigger.to_owned())
        }
        _ => {
            // Notification.
            let message = text_at(input, &["notification", "message"]).unwrap_or_default();
            let kind = text_at(input, &["notification", "type"])
                .or_else(|| text_at(input, &["notification", "notificationType"]))
                .map(|kind| claude_notification_type(&kind))
                .unwrap_or_default();
            out.insert("message".into(), message.into());
            out.insert("notification_type".into(), Value::from(kind.as_str()));
            Some(kind)
        }
    };
    ClaudeCall {
        input: Value::Object(out),
        subject,
    }
}

/// Claude's notification type for Cline's: the package's `approval_required` is the moment
/// Claude calls `permission_prompt`; any other type is passed on as it is.
fn claude_notification_type(cline: &str) -> String {
    match cline {
        "approval_required" => "permission_prompt".to_owned(),
        other => other.to_owned(),
    }
}

/// The string at `path` (object keys) in `value`, if there is one.
fn text_at(value: &Value, path: &[&str]) -> Option<String> {
    let mut at = value;
    for key in path {
        at = at.get(key)?;
    }
    at.as_str().map(str::to_owned)
}

/// Claude's `session_id`: the Cline CLI's root session (its subagents share it, as Claude's
/// do), else the task's id; "" when Cline sent none.
fn session_id(input: &Value, profile: Profile, hook: &str) -> String {
    let nonempty = |s: Option<String>| s.filter(|s| !s.is_empty());
    let root = || nonempty(text_at(input, &["sessionContext", "rootSessionId"]));
    let task = || nonempty(text_at(input, &["taskId"]));
    let metadata = || {
        let key = match hook {
            "TaskStart" => "taskStart",
            "TaskResume" => "taskResume",
            "TaskComplete" => "taskComplete",
            "TaskCancel" => "taskCancel",
            _ => return None,
        };
        nonempty(text_at(input, &[key, "taskMetadata", "taskId"]))
    };
    let found = match profile {
        Profile::Cli => root().or_else(task),
        Profile::Extension => task().or_else(root),
    };
    found.or_else(metadata).unwrap_or_default()
}

/// One tool call as Cline described it.
pub(super) struct ToolCall<'a> {
    /// Cline's name for the tool; "" when Cline sent none.
    pub(super) name: String,
    /// Its parameters (the Cline CLI's real input, or the extension's string map).
    pub(super) params: &'a Value,
    /// The Cline CLI's tool call id.
    id: Option<String>,
    /// The object it came from: `tool_call`/`tool_result` (`sdk`) or the older
    /// `preToolUse`/`postToolUse`.
    source: &'a Value,
    pub(super) sdk: bool,
}

/// The tool call in `input`: the Cline CLI's own `tool_call`/`tool_result` first in the cli
/// profile (its input is the real JSON; the older object's parameters are all strings), the
/// extension's `preToolUse`/`postToolUse` first otherwise; the other one when it is missing.
pub(super) fn tool_call(input: &Value, profile: Profile, post: bool) -> ToolCall<'_> {
    let (sdk_key, legacy_key) = if post {
        ("tool_result", "postToolUse")
    } else {
        ("tool_call", "preToolUse")
    };
    let order = match profile {
        Profile::Cli => [(sdk_key, true), (legacy_key, false)],
        Profile::Extension => [(legacy_key, false), (sdk_key, true)],
    };
    let found = order
        .iter()
        .find_map(|&(key, sdk)| input.get(key).filter(|v| v.is_object()).map(|v| (v, sdk)));
    let Some((source, sdk)) = found else {
        return ToolCall {
            name: String::new(),
            params: &NULL,
            id: None,
            source: &NULL,
            sdk: false,
        };
    };
    let text = |key: &str| source.get(key).and_then(Value::as_str).map(str::to_owned);
    let (name, params) = if sdk {
        (text("name"), source.get("input"))
    } else {
        (
            text("toolName").or_else(|| text("tool")),
            source.get("parameters"),
        )
    };
    ToolCall {
        name: name.unwrap_or_default(),
        params: params.unwrap_or(&NULL),
        id: if sdk { text("id") } else { None },
        source,
        sdk,
    }
}

/// Claude's `tool_response` for a finished Cline tool: `{"output", "success"}`, and `error`
/// when the Cline CLI reported one. Claude's own responses differ per tool (Bash's has
/// `stdout`, Write's a patch); Cline reports one result for every tool, so this one shape.
fn tool_response(call: &ToolCall<'_>) -> Value {
    let mut response = Map::new();
    if call.sdk {
        let error = call.source.get("error").filter(|e| !e.is_null());
        let output = call.source.get("output").cloned().unwrap_or(Value::Null);
        response.insert("output".into(), output);
        response.insert("success".into(), error.is_none().into());
        if let Some(error) = error {
            response.insert("error".into(), error.clone());
        }
    } else {
        let output = call.source.get("result").cloned().unwrap_or(Value::Null);
        // A PostToolUse without `success` is taken as a success, Claude's PostToolUse.
        let success = call
            .source
            .get("success")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        response.insert("output".into(), output);
        response.insert("success".into(), success.into());
    }
    Value::Object(response)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::{json, Value};

    use super::*;
    use crate::claude::paths::fixtures::{posix, win, Garbage, PROJECT};
    use crate::claude::tools::{claude_tool_input, CLAUDE_TOOL_NAMES};

    fn ext(hook: &str, input: Value) -> ClaudeCall {
        claude_input_in(hook, &input, Profile::Extension, Path::new(PROJECT), false)
    }

    fn cli(hook: &str, input: Value) -> ClaudeCall {
        claude_input_in(hook, &input, Profile::Cli, Path::new(PROJECT), false)
    }

    // ---- events, both ways ----

    #[test]
    fn every_claude_event_cline_has_runs_on_its_hooks() {
        assert_eq!(cline_hooks_of("PreToolUse"), ["PreToolUse"]);
        assert_eq!(cline_hooks_of("PostToolUse"), ["PostToolUse"]);
        assert_eq!(cline_hooks_of("UserPromptSubmit"), ["UserPromptSubmit"]);
        assert_eq!(cline_hooks_of("SessionStart"), ["TaskStart", "TaskResume"]);
        assert_eq!(cline_hooks_of("Stop"), ["TaskComplete"]);
        assert_eq!(cline_hooks_of("SessionEnd"), ["TaskCancel"]);
        assert_eq!(cline_hooks_of("PreCompact"), ["PreCompact"]);
        assert_eq!(cline_hooks_of("Notification"), ["Notification"]);
    }

    #[test]
    fn claude_events_cline_lacks_and_typos_run_on_nothing() {
        for event in [
            "SubagentStop",
            "PermissionRequest",
            "PostToolUseFailure",
            "Setup",
        ] {
            assert!(CLAUDE_EVENTS.contains(&event), "{event}");
            assert!(cline_hooks_of(event).is_empty(), "{event}");
        }
        for typo in [
            "preToolUse",
            "PreToolUSe",
            "",
            " PreToolUse",
            "TaskStart",
            "tool_call",
        ] {
            assert!(cline_hooks_of(typo).is_empty(), "{typo}");
            assert!(!CLAUDE_EVENTS.contains(&typo), "{typo}");
        }
    }

    #[test]
    fn every_cline_hook_and_cli_event_name_has_its_claude_event() {
        let cases = [
            ("PreToolUse", "PreToolUse"),
            ("tool_call", "PreToolUse"),
            ("PostToolUse", "PostToolUse"),
            ("tool_result", "PostToolUse"),
            ("UserPromptSubmit", "UserPromptSubmit"),
            ("prompt_submit", "UserPromptSubmit"),
            ("TaskStart", "SessionStart"),
            ("agent_start", "SessionStart"),
            ("TaskResume", "SessionStart"),
            ("agent_resume", "SessionStart"),
            ("TaskComplete", "Stop"),
            ("agent_end", "Stop"),
            ("TaskCancel", "SessionEnd"),
            ("agent_abort", "SessionEnd"),
            ("PreCompact", "PreCompact"),
            ("Notification", "Notification"),
        ];
        for (hook, event) in cases {
            assert_eq!(claude_event_of(hook), Some(event), "{hook}");
        }
        for hook in [
            "TaskError",
            "agent_error",
            "SessionShutdown",
            "session_shutdown",
            "",
            "pretooluse",
            "Stop",
        ] {
            assert_eq!(claude_event_of(hook), None, "{hook}");
        }
    }

    #[test]
    fn the_two_directions_agree_and_the_lists_know_every_name_used() {
        for event in CLAUDE_EVENTS {
            for hook in cline_hooks_of(event) {
                assert_eq!(claude_event_of(hook), Some(*event));
            }
        }
        for (event, _) in EVENTS {
            assert!(CLAUDE_EVENTS.contains(&event), "{event}");
        }
        for (i, a) in CLAUDE_EVENTS.iter().enumerate() {
            assert!(!CLAUDE_EVENTS[i + 1..].contains(a), "{a} twice");
        }
        for (i, a) in CLAUDE_TOOL_NAMES.iter().enumerate() {
            assert!(!CLAUDE_TOOL_NAMES[i + 1..].contains(a), "{a} twice");
        }
        for tool in crate::discovery::KNOWN_TOOLS {
            let name = claude_tool_name(tool, None);
            assert!(
                name == *tool || CLAUDE_TOOL_NAMES.contains(&name.as_str()),
                "{tool} maps to {name}, not a Claude tool"
            );
        }
    }

    // ---- claude_input, extension profile ----

    #[test]
    fn extension_pre_tool_use() {
        let call = ext(
            "PreToolUse",
            json!({
                "clineVersion": "3.17.0", "hookName": "PreToolUse", "timestamp": "1736654400000",
                "taskId": "task-1", "workspaceRoots": [PROJECT], "userId": "u",
                "model": {"provider": "anthropic", "slug": "claude"},
                "preToolUse": {"toolName": "write_to_file", "parameters": {"path": "src/a.js", "content": "x"}}
            }),
        );
        assert_eq!(
            call.input,
            json!({
                "session_id": "task-1",
                "cwd": PROJECT,
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "tool_input": {"file_path": "/home/dev/proj/src/a.js", "content": "x"}
            })
        );
        assert_eq!(call.subject.as_deref(), Some("Write"));
        assert_eq!(call.input.get("transcript_path"), None);
        // The published page's `tool` for `toolName`.
        let call = ext(
            "PreToolUse",
            json!({"preToolUse": {"tool": "execute_command", "parameters": {"command": "ls"}}}),
        );
        assert_eq!(call.input["tool_name"], "Bash");
        assert_eq!(call.input["tool_input"], json!({"command": "ls"}));
    }

    #[test]
    fn extension_post_tool_use() {
        let call = ext(
            "PostToolUse",
            json!({
                "taskId": "t",
                "postToolUse": {"toolName": "use_mcp_tool", "parameters": {"server_name": "gh", "tool_name": "list", "arguments": "{\"n\":1}"},
                                "result": "done", "success": false, "executionTimeMs": 12}
            }),
        );
        assert_eq!(
            call.input,
            json!({
                "session_id": "t", "cwd": PROJECT, "hook_event_name": "PostToolUse",
                "tool_name": "mcp__gh__list", "tool_input": {"n": 1},
                "tool_response": {"output": "done", "success": false}
            })
        );
        assert_eq!(call.subject.as_deref(), Some("mcp__gh__list"));
        let call = ext(
            "PostToolUse",
            json!({"postToolUse": {"toolName": "read_file", "parameters": {"path": "a"}}}),
        );
        assert_eq!(
            call.input["tool_response"],
            json!({"output": null, "success": true})
        );
    }

    #[test]
    fn extension_prompt_and_task_events() {
        let call = ext(
            "UserPromptSubmit",
            json!({"taskId": "t", "userPromptSubmit": {"prompt": "fix it", "attachments": []}}),
        );
        assert_eq!(
            call.input,
            json!({"session_id": "t", "cwd": PROJECT, "hook_event_name": "UserPromptSubmit", "prompt": "fix it"})
        );
        assert_eq!(call.subject, None);

        let call = ext(
            "TaskStart",
            json!({"taskStart": {"taskMetadata": {"taskId": "from-meta", "ulid": "u", "initialTask": "go"}}}),
        );
        assert_eq!(
            call.input,
            json!({"session_id": "from-meta", "cwd": PROJECT, "hook_event_name": "SessionStart", "source": "startup"})
        );
        assert_eq!(call.subject.as_deref(), Some("startup"));

        let call = ext(
            "TaskResume",
            json!({"taskId": "t", "taskResume": {"taskMetadata": {}, "previousState": {}}}),
        );
        assert_eq!(call.input["source"], "resume");
        assert_eq!(call.subject.as_deref(), Some("resume"));

        let call = ext(
            "TaskComplete",
            json!({"taskId": "t", "taskComplete": {"taskMetadata": {"taskId": "t"}}}),
        );
        assert_eq!(
            call.input,
            json!({"session_id": "t", "cwd": PROJECT, "hook_event_name": "Stop", "stop_hook_active": false})
        );
        assert_eq!(call.subject, None);

        let call = ext(
            "TaskCancel",
            json!({"taskId": "t", "taskCancel": {"taskMetadata": {}}}),
        );
        assert_eq!(
            call.input,
            json!({"session_id": "t", "cwd": PROJECT, "hook_event_name": "SessionEnd", "reason": "other"})
        );
        assert_eq!(call.subject.as_deref(), Some("other"));
    }

    #[test]
    fn extension_pre_compact_and_notification() {
        let call = ext(
            "PreCompact",
            json!({"taskId": "t", "preCompact": {"conversationLength": 40, "estimatedTokens": 90000}}),
        );
        assert_eq!(
            call.input,
            json!({"session_id": "t", "cwd": PROJECT, "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""})
        );
        assert_eq!(call.subject.as_deref(), Some("auto"));
        let call = ext(
            "PreCompact",
            json!({"preCompact": {"trigger": "manual", "customInstructions": "keep the plan"}}),
        );
        assert_eq!(call.input["trigger"], "manual");
        assert_eq!(call.input["custom_instructions"], "keep the plan");
        assert_eq!(call.subject.as_deref(), Some("manual"));
        assert_eq!(
            ext("PreCompact", json!({"preCompact": {"manual": true}}))
                .subject
                .as_deref(),
            Some("manual")
        );

        let call = ext(
            "Notification",
            json!({"taskId": "t", "notification": {"type": "approval_required", "message": "Cline wants to run ls"}}),
        );
        assert_eq!(
            call.input,
            json!({"session_id": "t", "cwd": PROJECT, "hook_event_name": "Notification", "message": "Cline wants to run ls", "notification_type": "permission_prompt"})
        );
        assert_eq!(call.subject.as_deref(), Some("permission_prompt"));
        let call = ext(
            "Notification",
            json!({"notification": {"type": "idle_prompt"}}),
        );
        assert_eq!(call.input["notification_type"], "idle_prompt");
        assert_eq!(call.input["message"], "");
        assert_eq!(ext("Notification", json!({})).subject.as_deref(), Some(""));
    }

    #[test]
    fn hooks_without_a_claude_event_get_nothing() {
        for hook in [
            "TaskError",
            "SessionShutdown",
            "agent_error",
            "session_shutdown",
            "Nope",
            "",
        ] {
            for profile in [Profile::Extension, Profile::Cli] {
                let call = claude_input(hook, &json!({"taskId": "t"}), profile, Path::new(PROJECT));
                assert_eq!(
                    call,
                    ClaudeCall {
                        input: Value::Null,
                        subject: None
                    },
                    "{hook}"
                );
            }
        }
    }

    // ---- claude_input, cli profile ----

    fn cli_common(hook_name: &str) -> Value {
        json!({
            "clineVersion": "", "hookName": hook_name, "timestamp": "2026-01-15T10:30:00.000Z",
            "taskId": "conv-1", "sessionContext": {"rootSessionId": "root-1"},
            "workspaceRoots": [PROJECT], "userId": "u", "agent_id": "a1", "parent_agent_id": null
        })
    }

    fn with(mut base: Value, extra: Value) -> Value {
        if let (Some(base), Value::Object(extra)) = (base.as_object_mut(), extra) {
            base.extend(extra);
        }
        base
    }

    #[test]
    fn cli_tool_call_uses_the_sdks_own_input() {
        let input = with(
            cli_common("tool_call"),
            json!({
                "iteration": 1,
                "tool_call": {"id": "call-1", "name": "run_commands", "input": {"commands": ["ls", "git status"], "timeout": 5}},
                "preToolUse": {"toolName": "run_commands", "parameters": {"commands": "[\"ls\",\"git status\"]", "timeout": "5"}}
            }),
        );
        let call = cli("tool_call", input.clone());
        assert_eq!(
            call.input,
            json!({
                "session_id": "root-1", "cwd": PROJECT, "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "ls\ngit status", "commands": ["ls", "git status"], "timeout": 5},
                "tool_use_id": "call-1"
            })
        );
        assert_eq!(call.subject.as_deref(), Some("Bash"));
        // Fired under the hook's own name, the same.
        assert_eq!(cli("PreToolUse", input).input, call.input);
    }

    #[test]
    fn cli_without_tool_call_reads_the_older_object() {
        let call = cli(
            "PreToolUse",
            json!({"taskId": "c", "preToolUse": {"toolName": "read_files", "parameters": {"file_paths": "[\"a.ts\"]"}}}),
        );
        assert_eq!(call.input["session_id"], "c");
        assert_eq!(call.input["tool_name"], "Read");
        assert_eq!(call.input["tool_input"]["file_path"], "/home/dev/proj/a.ts");
        assert_eq!(call.input.get("tool_use_id"), None);
    }

    #[test]
    fn cli_tool_result() {
        let input = with(
            cli_common("tool_result"),
            json!({
                "tool_result": {"id": "c2", "name": "editor", "input": {"path": "a.ts", "old_text": "x", "new_text": "y"},
                                "output": {"ok": true}, "durationMs": 4},
                "postToolUse": {"toolName": "editor", "parameters": {}, "result": "{\"ok\":true}", "success": true, "executionTimeMs": 4}
            }),
        );
        let call = cli("tool_result", input);
        assert_eq!(
            call.input,
            json!({
                "session_id": "root-1", "cwd": PROJECT, "hook_event_name": "PostToolUse",
                "tool_name": "Edit",
                "tool_input": {"file_path": "/home/dev/proj/a.ts", "old_string": "x", "new_string": "y"},
                "tool_response": {"output": {"ok": true}, "success": true},
                "tool_use_id": "c2"
            })
        );
        let failed = cli(
            "PostToolUse",
            json!({"tool_result": {"name": "run_commands", "input": "false", "output": "exit 1", "error": "exit 1"}}),
        );
        assert_eq!(
            failed.input["tool_response"],
            json!({"output": "exit 1", "success": false, "error": "exit 1"})
        );
        let null_error = cli(
            "PostToolUse",
            json!({"tool_result": {"name": "x", "error": null}}),
        );
        assert_eq!(
            null_error.input["tool_response"],
            json!({"output": null, "success": true})
        );
    }

    #[test]
    fn cli_lifecycle_events() {
        let start = cli(
            "agent_start",
            with(
                cli_common("agent_start"),
                json!({"taskStart": {"taskMetadata": {}}}),
            ),
        );
        assert_eq!(
            start.input,
            json!({"session_id": "root-1", "cwd": PROJECT, "hook_event_name": "SessionStart", "source": "startup"})
        );
        let resume = cli(
            "agent_resume",
            with(
                cli_common("agent_resume"),
                json!({"taskResume": {"taskMetadata": {}, "previousState": {}}}),
            ),
        );
        assert_eq!(resume.input["source"], "resume");
        assert_eq!(resume.subject.as_deref(), Some("resume"));
        let prompt = cli(
            "prompt_submit",
            with(
                cli_common("prompt_submit"),
                json!({"userPromptSubmit": {"prompt": "hi", "attachments": []}}),
            ),
        );
        assert_eq!(prompt.input["prompt"], "hi");
        assert_eq!(prompt.input["hook_event_name"], "UserPromptSubmit");
        let end = cli(
            "agent_end",
            with(
                cli_common("agent_end"),
                json!({"iteration": 3, "turn": {"outputText": "All done.", "status": "completed"}, "taskComplete": {"taskMetadata": {}}}),
            ),
        );
        assert_eq!(
            end.input,
            json!({"session_id": "root-1", "cwd": PROJECT, "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "All done."})
        );
        let abort = cli(
            "agent_abort",
            with(
                cli_common("agent_abort"),
                json!({"reason": "user cancelled", "taskCancel": {"taskMetadata": {}}}),
            ),
        );
        assert_eq!(
            abort.input,
            json!({"session_id": "root-1", "cwd": PROJECT, "hook_event_name": "SessionEnd", "reason": "other"})
        );
        let compact = cli(
            "PreCompact",
            with(
                cli_common("PreCompact"),
                json!({"preCompact": {"conversationLength": 1, "estimatedTokens": 2}}),
            ),
        );
        assert_eq!(compact.subject.as_deref(), Some("auto"));
        let note = cli(
            "Notification",
            with(
                cli_common("Notification"),
                json!({"notification": {"type": "task_done", "message": "m"}}),
            ),
        );
        assert_eq!(note.subject.as_deref(), Some("task_done"));
        assert_eq!(note.input["message"], "m");
    }

    #[test]
    fn the_session_id_is_the_root_session_in_the_cli_and_the_task_in_the_extension() {
        let both = json!({"taskId": "task", "sessionContext": {"rootSessionId": "root"}});
        assert_eq!(cli("TaskStart", both.clone()).input["session_id"], "root");
        assert_eq!(ext("TaskStart", both).input["session_id"], "task");
        let empty_root = json!({"taskId": "task", "sessionContext": {"rootSessionId": ""}});
        assert_eq!(cli("TaskStart", empty_root).input["session_id"], "task");
        assert_eq!(
            cli(
                "TaskStart",
                json!({"sessionContext": {"rootSessionId": "r"}})
            )
            .input["session_id"],
            "r"
        );
        assert_eq!(
            ext("TaskStart", json!({"taskId": 5})).input["session_id"],
            ""
        );
        assert_eq!(
            ext(
                "TaskCancel",
                json!({"taskCancel": {"taskMetadata": {"taskId": "m"}}})
            )
            .input["session_id"],
            "m"
        );
    }

    // ---- garbage ----

    const HOOKS: [&str; 20] = [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "TaskStart",
        "TaskResume",
        "TaskComplete",
        "TaskCancel",
        "PreCompact",
        "Notification",
        "TaskError",
        "SessionShutdown",
        "tool_call",
        "tool_result",
        "prompt_submit",
        "agent_start",
        "agent_resume",
        "agent_end",
        "agent_abort",
        "agent_error",
        "session_shutdown",
    ];

    fn check(hook: &str, input: &Value, profile: Profile, dir: &str) {
        let windows = dir.contains('\\');
        let call = claude_input_in(hook, input, profile, Path::new(dir), windows);
        match claude_event_of(hook) {
            None => assert_eq!(call.input, Value::Null),
            Some(event) => {
                assert_eq!(call.input["hook_event_name"], event);
                assert!(call.input["session_id"].is_string());
                assert!(
                    call.input["tool_input"].is_object() || call.input.get("tool_input").is_none()
                );
                if let Some(name) = call.input.get("tool_name") {
                    assert_eq!(name.as_str(), call.subject.as_deref());
                }
            }
        }
    }

    #[test]
    fn arbitrary_json_never_panics() {
        let mut garbage = Garbage(0x5eed);
        for round in 0..3000_usize {
            let mut input = garbage.value(5);
            // Most rounds put the garbage where the code looks.
            if !round.is_multiple_of(3) {
                let key = ["preToolUse", "postToolUse", "tool_call", "tool_result"][round % 4];
                input = json!({ key: garbage.value(4), "taskId": garbage.value(1) });
            }
            let hook = HOOKS[round % HOOKS.len()];
            let profile = if round.is_multiple_of(2) {
                Profile::Cli
            } else {
                Profile::Extension
            };
            let dir = ["/p", "C:\\p", "", "rel"][round % 4];
            check(hook, &input, profile, dir);
        }
    }

    #[test]
    fn wrong_types_huge_strings_and_odd_unicode_never_panic() {
        let huge = "x/".repeat(200_000);
        let dots = "../".repeat(50_000);
        let diff = format!(
            "------- SEARCH\n{}\n=======\n{}\n+++++++ REPLACE",
            "a\n".repeat(100_000),
            "é".repeat(100_000)
        );
        let params = [
            json!({"path": huge}),
            json!({"path": dots}),
            json!({"diff": diff, "path": 1}),
            json!({"path": "\u{0}\u{202e}\u{feff}"}),
            json!({"path": "C:"}),
            json!({"path": "é:\\x"}),
            json!({"path": "\\"}),
            json!({"commands": {"nested": true}}),
            json!({"commands": [{"command": 1, "args": [null]}]}),
            json!({"files": [{"path": "a", "start_line": -4, "end_line": 1e308}]}),
            json!({"files": [{"path": "a", "start_line": u64::MAX, "end_line": u64::MAX}]}),
            json!({"server_name": "s", "tool_name": "t", "arguments": "{".repeat(100_000)}),
            json!({"server_name": "s", "tool_name": "t", "arguments": format!("{}{}", "[".repeat(1000), "]".repeat(1000))}),
            json!([[[[[]]]]]),
            json!(""),
            json!(1.5),
        ];
        let tools = [
            "execute_command",
            "run_commands",
            "read_file",
            "read_files",
            "write_to_file",
            "replace_in_file",
            "editor",
            "list_files",
            "search_files",
            "search_codebase",
            "web_fetch",
            "fetch_web_content",
            "web_search",
            "use_mcp_tool",
            "skills",
            "unknown",
        ];
        for tool in tools {
            for params in &params {
                let input = claude_tool_input(tool, params, Path::new("/p"));
                assert!(input.is_object(), "{tool}");
                let _ = claude_tool_name(tool, Some(params));
                for profile in [Profile::Extension, Profile::Cli] {
                    let wrapped = json!({"preToolUse": {"toolName": tool, "parameters": params}, "tool_call": {"name": tool, "input": params}});
                    check("PreToolUse", &wrapped, profile, "/p");
                }
            }
        }
        let long_read = claude_tool_input(
            "read_files",
            &json!({"files": [{"path": "a", "start_line": u64::MAX, "end_line": u64::MAX}]}),
            Path::new("/p"),
        );
        assert_eq!(long_read["limit"], 1);
        assert_eq!(posix(&"../".repeat(50_000), "/p"), "/");
        assert_eq!(win(&"..\\".repeat(50_000), "C:\\p"), "C:\\");
        for input in [
            json!(null),
            json!(1),
            json!("s"),
            json!([]),
            json!({"taskId": [1]}),
            json!({"userPromptSubmit": "x", "notification": 3, "preCompact": []}),
        ] {
            for hook in HOOKS {
                for profile in [Profile::Extension, Profile::Cli] {
                    check(hook, &input, profile, "/p");
                }
            }
        }
    }
}
