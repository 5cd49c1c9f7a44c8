//! Cline's events and tools in Claude Code's words, both ways: which Cline hooks run a Claude
//! event's handlers, which Claude tool a Cline tool is, and the JSON a Claude hook reads on
//! stdin, built from the input Cline gives the hook; and back again, a PreToolUse hook's
//! `updatedInput` (in Claude's field names) put into the Cline tool's own parameters
//! (`cline_tool_input`). Pure: no file is read, no process run.
//!
//! Where Claude's contract and Cline's disagree, the choice made here is the one in
//! `docs/claude-code-mapping.md`; the comments below say why, briefly.

use std::path::Path;

use serde_json::{Map, Value};

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

/// Claude Code's built-in tool names (old and new), for telling a matcher's typo (`bash`)
/// from a tool Cline just does not have. MCP tools are `mcp__<server>__<tool>`.
pub const CLAUDE_TOOL_NAMES: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "EnterPlanMode",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "LSP",
    "ListMcpResourcesTool",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "ReadMcpResourceTool",
    "Skill",
    "SlashCommand",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "TodoRead",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
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
fn hook_of(name: &str) -> &str {
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

/// `claude_input` with Windows' path rules or POSIX's (see `resolve`).
fn claude_input_in(
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
struct ToolCall<'a> {
    /// Cline's name for the tool; "" when Cline sent none.
    name: String,
    /// Its parameters (the Cline CLI's real input, or the extension's string map).
    params: &'a Value,
    /// The Cline CLI's tool call id.
    id: Option<String>,
    /// The object it came from: `tool_call`/`tool_result` (`sdk`) or the older
    /// `preToolUse`/`postToolUse`.
    source: &'a Value,
    sdk: bool,
}

static NULL: Value = Value::Null;

/// The tool call in `input`: the Cline CLI's own `tool_call`/`tool_result` first in the cli
/// profile (its input is the real JSON; the older object's parameters are all strings), the
/// extension's `preToolUse`/`postToolUse` first otherwise; the other one when it is missing.
fn tool_call(input: &Value, profile: Profile, post: bool) -> ToolCall<'_> {
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

/// The Claude name of the Cline tool `cline_tool` (either profile's), told by its
/// `parameters` where the name depends on them: `list_files` is `Glob` when recursive and `LS`
/// otherwise, `editor` is `Write` when it creates a file and `Edit` otherwise,
/// `use_mcp_tool` is `mcp__<server_name>__<tool_name>`. A tool Claude has no counterpart of
/// keeps Cline's name.
pub fn claude_tool_name(cline_tool: &str, parameters: Option<&Value>) -> String {
    let param = |key: &str| parameters.and_then(|p| p.get(key));
    let name = match cline_tool {
        "execute_command" | "run_commands" => "Bash",
        "write_to_file" => "Write",
        "replace_in_file" => "Edit",
        "read_file" | "read_files" => "Read",
        "list_files" if truthy(param("recursive")) => "Glob",
        "list_files" => "LS",
        "search_files" | "search_codebase" => "Grep",
        "web_fetch" | "fetch_web_content" => "WebFetch",
        "web_search" => "WebSearch",
        "skills" => "Skill",
        "editor" => editor_tool(parameters.unwrap_or(&NULL)),
        "use_mcp_tool" => {
            let part = |key| param(key).and_then(Value::as_str).filter(|s| !s.is_empty());
            return match (part("server_name"), part("tool_name")) {
                (Some(server), Some(tool)) => {
                    format!("mcp__{}__{}", mcp_name(server), mcp_name(tool))
                }
                _ => cline_tool.to_owned(),
            };
        }
        other => other,
    };
    name.to_owned()
}

/// A name as Claude Code writes it in an MCP tool's name: every character but ASCII letters,
/// digits, `_` and `-` made `_`.
fn mcp_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether a parameter says yes: `true`, or the extension's string `"true"`.
fn truthy(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// What the Cline CLI's `editor` call does, in Claude's words. Its older input has
/// `command` (`create`, `str_replace`, `insert`); its newer one `old_text`/`new_text`/
/// `insert_line`, where neither `old_text` nor `insert_line` means "create the file".
fn editor_tool(params: &Value) -> &'static str {
    let set = |key: &str| params.get(key).is_some_and(|v| !v.is_null());
    match params.get("command").and_then(Value::as_str) {
        Some("create") => "Write",
        Some("str_replace" | "insert") => "Edit",
        Some(_) => "editor",
        None if set("old_text") || set("insert_line") => "Edit",
        None if set("new_text") => "Write",
        // Nothing to tell by: most editor calls are edits.
        None => "Edit",
    }
}

/// The Cline tool's `parameters` as Claude's tool of the same job takes them
/// (`claude_tool_name`'s): Claude's field names first (`file_path` made absolute against
/// `project_dir`, `old_string`, `pattern`, ...), then every parameter not renamed, as it was.
/// An MCP tool's input is its parsed `arguments`. Paths are resolved as Cline resolves them
/// on this system (see `resolve`).
pub fn claude_tool_input(cline_tool: &str, parameters: &Value, project_dir: &Path) -> Value {
    let dir = project_dir.to_string_lossy();
    tool_input_in(cline_tool, parameters, Folder::of(&dir, cfg!(windows)))
}

/// `claude_tool_input` with the path rules of `base` (Windows' or POSIX's), so that both are
/// tested on every system.
fn tool_input_in(cline_tool: &str, parameters: &Value, base: Folder<'_>) -> Value {
    if cline_tool == "use_mcp_tool" {
        return mcp_input(parameters);
    }
    let mut rest = match parameters {
        Value::Object(map) => map.clone(),
        Value::Null => Map::new(),
        // The Cline CLI takes a bare string or list for some tools: put it where its object
        // form has it.
        other => {
            let key = match cline_tool {
                "run_commands" => "commands",
                "read_files" => "file_paths",
                "search_codebase" => "queries",
                "fetch_web_content" => "requests",
                _ => "input",
            };
            let mut map = Map::new();
            map.insert(key.into(), other.clone());
            map
        }
    };
    let mut claude = Map::new();
    match cline_tool {
        "execute_command" => {}
        "run_commands" => run_commands(&mut claude, &mut rest),
        "read_file" | "write_to_file" => move_path(&mut claude, &mut rest, "path", base),
        "replace_in_file" => {
            move_path(&mut claude, &mut rest, "path", base);
            // The diff stays: old_string/new_string are its first block only.
            let block = rest
                .get("diff")
                .and_then(Value::as_str)
                .and_then(first_block);
            if let Some((old, new)) = block {
                claude.insert("old_string".into(), old.into());
                claude.insert("new_string".into(), new.into());
            }
        }
        "read_files" => read_files(&mut claude, &mut rest, base),
        "editor" => editor(&mut claude, &mut rest, base),
        "list_files" => {
            if truthy(rest.get("recursive")) {
                claude.insert("pattern".into(), "**/*".into());
            }
            dir_path(&mut claude, &mut rest, base);
        }
        "search_files" => {
            rename(&mut claude, &mut rest, "regex", "pattern");
            dir_path(&mut claude, &mut rest, base);
            rename(&mut claude, &mut rest, "file_pattern", "glob");
        }
        "search_codebase" => {
            let first = ["queries", "query"]
                .iter()
                .filter_map(|key| rest.get(*key))
                .flat_map(as_list)
                .find_map(|q| q.as_str().map(str::to_owned));
            if let Some(pattern) = first {
                claude.insert("pattern".into(), pattern.into());
            }
        }
        "fetch_web_content" => {
            let first = rest.get("requests").map(as_list).unwrap_or_default();
            if let Some(request) = first.into_iter().find(Value::is_object) {
                for key in ["url", "prompt"] {
                    if let Some(v) = request.get(key).filter(|v| v.is_string()) {
                        if !rest.contains_key(key) {
                            claude.insert(key.into(), v.clone());
                        }
                    }
                }
            }
        }
        "web_search" => {
            for key in ["allowed_domains", "blocked_domains"] {
                if let Some(list) = rest.get(key).and_then(json_list) {
                    rest.shift_remove(key);
                    claude.insert(key.into(), Value::Array(list));
                }
            }
        }
        _ => {}
    }
    for (key, value) in rest {
        claude.entry(key).or_insert(value);
    }
    Value::Object(claude)
}

/// An MCP tool's input: its `arguments`, a JSON object's text in Cline, parsed. Arguments that
/// are no object (or no JSON) are kept under `arguments`, so a hook still sees them.
fn mcp_input(params: &Value) -> Value {
    match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(Value::String(text)) if text.trim().is_empty() => Value::Object(Map::new()),
        Some(other) => {
            let parsed = other
                .as_str()
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
                .filter(Value::is_object);
            parsed.unwrap_or_else(|| {
                let mut map = Map::new();
                map.insert("arguments".into(), other.clone());
                Value::Object(map)
            })
        }
    }
}

/// Moves `rest[from]` to `claude[to]`.
fn rename(claude: &mut Map<String, Value>, rest: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(value) = rest.shift_remove(from) {
        claude.insert(to.into(), value);
    }
}

/// Moves the string `rest[from]` to `claude["file_path"]`, made absolute.
fn move_path(
    claude: &mut Map<String, Value>,
    rest: &mut Map<String, Value>,
    from: &str,
    base: Folder<'_>,
) {
    if let Some(Value::String(path)) = rest.get(from) {
        let absolute = absolutize(path, base);
        rest.shift_remove(from);
        claude.insert("file_path".into(), absolute.into());
    }
}

/// Makes the directory `path` (Claude's `LS`, `Glob` and `Grep` call it `path` too)
/// absolute.
fn dir_path(claude: &mut Map<String, Value>, rest: &mut Map<String, Value>, base: Folder<'_>) {
    if let Some(Value::String(path)) = rest.get("path") {
        let absolute = absolutize(path, base);
        rest.shift_remove("path");
        claude.insert("path".into(), absolute.into());
    }
}

/// `run_commands` as one `Bash` command: its commands on separate lines, as a script runs
/// them, so a hook looking for `rm -rf` sees every one. `commands` stays as it was.
fn run_commands(claude: &mut Map<String, Value>, rest: &mut Map<String, Value>) {
    if rest.get("command").is_some_and(Value::is_string) {
        return;
    }
    let lines: Vec<String> = match rest.get("commands").or_else(|| rest.get("cmd")) {
        Some(commands) => as_list(commands).iter().filter_map(command_line).collect(),
        None => Vec::new(),
    };
    if !lines.is_empty() {
        claude.insert("command".into(), lines.join("\n").into());
    }
}

/// One `run_commands` entry as a shell line: a string as it is, `{command, args}` with its
/// arguments quoted where the shell would split or expand them.
fn command_line(entry: &Value) -> Option<String> {
    if let Some(line) = entry.as_str() {
        return Some(line.to_owned());
    }
    let command = entry
        .get("command")
        .or_else(|| entry.get("cmd"))?
        .as_str()?;
    let mut line = command.to_owned();
    for arg in entry.get("args").map(as_list).unwrap_or_default() {
        if let Some(arg) = arg.as_str() {
            line.push(' ');
            line.push_str(&shell_quote(arg));
        }
    }
    Some(line)
}

/// `arg` as one POSIX shell word.
fn shell_quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:@%+,".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// `read_files` as one `Read`: Claude reads one file, so `file_path` is the first file (and
/// its `start_line`/`end_line` Claude's `offset`/`limit`); the whole batch stays in `files`
/// or `file_paths` as Cline sent it.
fn read_files(claude: &mut Map<String, Value>, rest: &mut Map<String, Value>, base: Folder<'_>) {
    let batch = ["files", "file_paths", "paths"]
        .iter()
        .filter_map(|key| rest.get(*key))
        .flat_map(as_list)
        .find_map(|entry| read_request(&entry));
    let (path, start, end) = match batch {
        Some(request) => request,
        None => {
            // A single request at the top level: `{path}` / `{file_path}` / `{filePath}`.
            let Some(request) = read_request(&Value::Object(rest.clone())) else {
                return;
            };
            for key in ["path", "file_path", "filePath", "start_line", "end_line"] {
                rest.shift_remove(key);
            }
            request
        }
    };
    claude.insert("file_path".into(), absolutize(&path, base).into());
    if let Some(start) = start {
        claude.insert("offset".into(), start.into());
    }
    match (start, end) {
        (Some(start), Some(end)) if end >= start => {
            claude.insert("limit".into(), (end - start + 1).into());
        }
        (None, Some(end)) => {
            claude.insert("limit".into(), end.into());
        }
        _ => {}
    }
}

/// One file read request: a path, or `{path, start_line, end_line}` (the path also spelled
/// `file_path` or `filePath`).
fn read_request(entry: &Value) -> Option<(String, Option<u64>, Option<u64>)> {
    if let Some(path) = entry.as_str() {
        return Some((path.to_owned(), None, None));
    }
    let path = ["path", "file_path", "filePath"]
        .iter()
        .find_map(|key| entry.get(*key).and_then(Value::as_str))?;
    let line = |key: &str| {
        match entry.get(key) {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
            _ => None,
        }
        .filter(|n| *n > 0)
    };
    Some((path.to_owned(), line("start_line"), line("end_line")))
}

/// `editor` as `Write` (`content`) or `Edit` (`old_string`, `new_string`), by what it does
/// (see `editor_tool`); `insert_line` stays for an insert, which Claude's Edit cannot say.
fn editor(claude: &mut Map<String, Value>, rest: &mut Map<String, Value>, base: Folder<'_>) {
    move_path(claude, rest, "path", base);
    let tool = editor_tool(&Value::Object(rest.clone()));
    let command = rest
        .get("command")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match (command.as_deref(), tool) {
        (Some(_), "Write") => rename(claude, rest, "file_text", "content"),
        (Some(_), "Edit") => {
            rename(claude, rest, "old_str", "old_string");
            rename(claude, rest, "new_str", "new_string");
        }
        (None, "Write") => rename(claude, rest, "new_text", "content"),
        (None, _) => {
            if rest.get("old_text").is_some_and(|v| !v.is_null()) {
                rename(claude, rest, "old_text", "old_string");
            }
            rename(claude, rest, "new_text", "new_string");
        }
        _ => {}
    }
}

/// The first SEARCH/REPLACE block of a `replace_in_file` diff: its search text and its
/// replacement. Cline's markers are `------- SEARCH`, `=======`, `+++++++ REPLACE` (and the
/// older `<<<<<<< SEARCH`, `>>>>>>> REPLACE`); `None` without one whole block.
fn first_block(diff: &str) -> Option<(String, String)> {
    let block = block_span(diff)?;
    let search = diff.get(block.search)?;
    let replace = diff.get(block.replace)?;
    Some((block_text(search), block_text(replace)))
}

/// Where the first whole SEARCH/REPLACE block of a diff has its two texts: byte ranges of
/// the lines between the markers (each line with its line end), so that the inverse mapping
/// can replace one text and keep every marker and every other block as written.
struct BlockSpan {
    /// The search lines: after the SEARCH marker's line end, up to the separator line.
    search: std::ops::Range<usize>,
    /// The replacement lines: after the separator's line end, up to the REPLACE marker.
    replace: std::ops::Range<usize>,
    /// Whether the SEARCH marker's line ends in `\r\n` (a Windows diff).
    crlf: bool,
}

/// The first whole block of `diff` (see `first_block`), by byte offsets.
fn block_span(diff: &str) -> Option<BlockSpan> {
    let marker = |line: &str, mark: char, word: &str| {
        let line = line.trim_end();
        let body = line.trim_start_matches(mark);
        line.len() - body.len() >= 3 && (body == format!(" {word}") || body == format!(" {word}>"))
    };
    let separator = |line: &str| {
        let line = line.trim_end();
        line.len() >= 3 && line.chars().all(|c| c == '=')
    };
    let (mut search_start, mut replace_start, mut sep_start) = (0, 0, 0);
    let mut crlf = false;
    let mut part = 0;
    let mut at = 0;
    for raw in diff.split('\n') {
        let (line_start, next) = (at, at + raw.len() + 1);
        at = next;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        match part {
            0 if marker(line, '-', "SEARCH") || marker(line, '<', "SEARCH") => {
                part = 1;
                search_start = next;
                crlf = raw.ends_with('\r');
            }
            1 if separator(line) => {
                part = 2;
                sep_start = line_start;
                replace_start = next;
            }
            2 if marker(line, '+', "REPLACE") || marker(line, '>', "REPLACE") => {
                return Some(BlockSpan {
                    search: search_start..sep_start,
                    replace: replace_start..line_start,
                    crlf,
                });
            }
            _ => {}
        }
    }
    None
}

/// The text of a block's lines (each with its line end, as `BlockSpan` holds them): the
/// lines without their ends, joined by `\n`.
fn block_text(lines: &str) -> String {
    let Some(lines) = lines.strip_suffix('\n') else {
        return String::new();
    };
    lines
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as a block's lines, each ended by `\r\n` or `\n`: the inverse of `block_text`
/// (an empty text is no line at all).
fn block_lines(text: &str, crlf: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let end = if crlf { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split('\n') {
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push_str(end);
    }
    out
}

/// The items of a list parameter: an array's, the items of a JSON array's text (the Cline
/// SDK's `preToolUse.parameters` and the extension send lists that way), or the one value.
fn as_list(value: &Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        other => json_list(other).unwrap_or_else(|| vec![other.clone()]),
    }
}

/// The items of a JSON array's text.
fn json_list(value: &Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) => Some(items.clone()),
        Value::String(text) if text.trim_start().starts_with('[') => {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Array(items)) => Some(items),
                _ => None,
            }
        }
        _ => None,
    }
}

// ---- Paths, resolved as Cline resolves them ----

/// The project folder a tool's relative path is resolved against, and whose path rules
/// apply: Windows' (drive letters, `\` and `/` both separators, UNC and `\\?\` roots) or
/// POSIX's (only `/`, every other character, `\`, `:` and `~` included, part of a name).
#[derive(Clone, Copy)]
struct Folder<'a> {
    dir: &'a str,
    windows: bool,
}

impl<'a> Folder<'a> {
    fn of(dir: &'a str, windows: bool) -> Self {
        Folder { dir, windows }
    }

    fn is_separator(self, c: char) -> bool {
        c == '/' || (self.windows && c == '\\')
    }

    /// The separator results are written with: `/` on POSIX; on Windows `\`, as Node writes
    /// it, unless the project folder is written with `/` alone, so that a hook comparing a
    /// path with its `cwd` compares like with like.
    fn separator(self) -> char {
        if self.windows && (self.dir.contains('\\') || !self.dir.contains('/')) {
            '\\'
        } else {
            '/'
        }
    }
}

/// A resolved path: its root and its parts, none of them `.` or `..` (but the leading `..`
/// of a relative result).
struct Resolved {
    /// Windows' device: `C:`, or `\\server\share` (`\\?\C:` too), written with `\`; "" on
    /// POSIX and for a Windows path rooted at `\` with no drive.
    device: String,
    /// Whether it starts at a root (only a relative project folder gives a relative path).
    absolute: bool,
    parts: Vec<String>,
}

/// `path` made absolute against the project folder `base` and tidied, as Cline makes it:
/// Node's `path.resolve(cwd, path)` on the system Cline runs on. So a hook testing "inside
/// the project" sees the file Cline will write: `src/../../etc` is outside, `~/../x` is
/// `<project>/x` (Node expands no `~`), and on POSIX `C:/../x` is `<project>/x` too (a drive
/// letter is a name there). See `resolve`.
fn absolutize(path: &str, base: Folder<'_>) -> String {
    render(&resolve(path, base), base.separator())
}

/// `path` resolved against `base`: Node's `path.posix.resolve` or `path.win32.resolve`
/// (`base.windows`). Where Node would read the process's own working folder, which a pure
/// function cannot know, the answer is the one that never shows a path inside the project
/// that Node puts elsewhere: a drive-relative `D:x` on a drive other than the project's is
/// taken from that drive's root (Node's answer when Windows keeps no working folder for
/// the drive; any other is on that drive too, so outside the project either way), and a
/// relative project folder gives a relative result. On Windows, the drive letter and the
/// leading names that equal the project folder's but for case are written as the project
/// folder writes them (Windows compares names without regard to case, so this is the same
/// file, and a hook's prefix test sees it inside). A `\\?\C:\...` path keeps its prefix, as
/// in Node: it is not the project folder's spelling, and is shown as outside it.
fn resolve(path: &str, base: Folder<'_>) -> Resolved {
    let resolved = if base.windows {
        resolve_win32(path, base)
    } else {
        resolve_posix(path, base)
    };
    if !base.windows || !resolved.absolute {
        return resolved;
    }
    let home = resolve_win32("", base);
    if !home.absolute || !same_name(&resolved.device, &home.device) {
        return resolved;
    }
    let mut parts = resolved.parts;
    for (part, own) in parts.iter_mut().zip(&home.parts) {
        if !same_name(part, own) {
            break;
        }
        own.clone_into(part);
    }
    Resolved {
        device: home.device,
        absolute: true,
        parts,
    }
}

/// Node's `path.posix.resolve(base, path)`.
fn resolve_posix(path: &str, base: Folder<'_>) -> Resolved {
    let mut pieces = Vec::new();
    let mut absolute = false;
    for piece in [path, base.dir] {
        if piece.is_empty() {
            continue;
        }
        pieces.insert(0, piece);
        if piece.starts_with('/') {
            absolute = true;
            break;
        }
    }
    Resolved {
        device: String::new(),
        absolute,
        parts: normalize(&pieces, base, absolute),
    }
}

/// Node's `path.win32.resolve(base, path)`: the device of the last path that has one, the
/// parts from the last absolute one (a path rooted at `\` takes the project folder's device;
/// a project folder on another device is not used).
fn resolve_win32(path: &str, base: Folder<'_>) -> Resolved {
    let mut device = String::new();
    let mut pieces = Vec::new();
    let mut absolute = false;
    for piece in [path, base.dir] {
        if piece.is_empty() {
            continue;
        }
        let (own, start, rooted) = win32_root(piece);
        if !own.is_empty() {
            if device.is_empty() {
                device = own;
            } else if !same_name(&own, &device) {
                continue;
            }
        }
        if absolute {
            if !device.is_empty() {
                break;
            }
        } else {
            pieces.insert(0, piece.get(start..).unwrap_or_default());
            absolute = rooted;
            if absolute && !device.is_empty() {
                break;
            }
        }
    }
    // A drive-relative path on a drive the project folder is not on: that drive's root.
    if !device.is_empty() {
        absolute = true;
    }
    Resolved {
        parts: normalize(&pieces, base, absolute),
        device,
        absolute,
    }
}

/// Node's `path.win32` root of `path`: its device (`C:`, or `\\server\share` written with
/// `\`), the byte where the rest starts, and whether it is absolute (`C:\x`, `\x`,
/// `\\server\share\x`; not the drive-relative `C:x`).
fn win32_root(path: &str) -> (String, usize, bool) {
    let sep = |b: u8| b == b'/' || b == b'\\';
    let bytes = path.as_bytes();
    let len = bytes.len();
    match bytes {
        [a, b, ..] if sep(*a) && sep(*b) => {
            // `\\server\share`: both names needed, else it is a path rooted at `\`.
            let mut j = 2;
            while j < len && !sep(bytes[j]) {
                j += 1;
            }
            if j < len && j != 2 {
                let server = path.get(2..j).unwrap_or_default();
                while j < len && sep(bytes[j]) {
                    j += 1;
                }
                let share_start = j;
                while j < len && !sep(bytes[j]) {
                    j += 1;
                }
                if j != share_start {
                    let share = path.get(share_start..j).unwrap_or_default();
                    return (format!("\\\\{server}\\{share}"), j, true);
                }
            }
            (String::new(), 0, true)
        }
        [a, ..] if sep(*a) => (String::new(), 1, true),
        [drive, b':', rest @ ..] if drive.is_ascii_alphabetic() => {
            let device = path.get(..2).unwrap_or_default().to_owned();
            match rest.first() {
                Some(b) if sep(*b) => (device, 3, true),
                _ => (device, 2, false),
            }
        }
        _ => (String::new(), 0, false),
    }
}

/// The parts of `pieces` (joined by a separator) without `.`, `..` or empty parts: Node's
/// `normalizeString`. A `..` at the root stays there; a relative path keeps its leading `..`.
fn normalize(pieces: &[&str], base: Folder<'_>, absolute: bool) -> Vec<String> {
    let mut parts: Vec<&str> = Vec::new();
    for piece in pieces {
        for part in piece.split(|c| base.is_separator(c)) {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.last().is_some_and(|last| *last != "..") {
                        parts.pop();
                    } else if !absolute {
                        parts.push("..");
                    }
                }
                part => parts.push(part),
            }
        }
    }
    parts.into_iter().map(str::to_owned).collect()
}

/// `resolved` as text, its parts joined by `separator` (a UNC device written with it too).
fn render(resolved: &Resolved, separator: char) -> String {
    let device = if separator == '/' {
        resolved.device.replace('\\', "/")
    } else {
        resolved.device.clone()
    };
    let body = resolved.parts.join(separator.encode_utf8(&mut [0; 4]));
    if resolved.absolute {
        format!("{device}{separator}{body}")
    } else if device.is_empty() && body.is_empty() {
        ".".to_owned()
    } else {
        format!("{device}{body}")
    }
}

/// Whether two Windows names are the same name: equal but for case, each character
/// compared by its one-character uppercase (no `ß` = `SS`, which Windows does not say).
fn same_name(a: &str, b: &str) -> bool {
    let upper = |c: char| {
        let mut up = c.to_uppercase();
        match (up.next(), up.next()) {
            (Some(u), None) => u,
            _ => c,
        }
    };
    a.chars().map(upper).eq(b.chars().map(upper))
}

/// Whether `path` is relative under `base`'s rules: Cline resolves it against the project
/// folder (`~` is a name like any other; on Windows `C:x` and `\x` are not relative).
fn is_relative(path: &str, base: Folder<'_>) -> bool {
    if base.windows {
        win32_root(path) == (String::new(), 0, false)
    } else {
        !path.starts_with('/')
    }
}

// ---- Claude's `updatedInput` back into Cline's parameters ----

/// The Cline parameters that carry a Claude PreToolUse hook's `updatedInput` for the tool
/// call in `input` (the completed input Cline gives the Cline hook `hook_name`, of
/// `profile`, as `claude_input` takes it; `project_dir` as there). The runtime's
/// `overrideInput` REPLACES the tool's parameters, so this is the call's original Cline
/// parameters with each field Claude's hook changed put back under its Cline name: the exact
/// inverse of `claude_tool_input` (see `cline_tool_parameters`). A hook with no tool call
/// (not PreToolUse/PostToolUse, or no tool in `input`) gets `updated` as it is.
///
/// Never fails and never panics: a value that cannot be put back in Cline's form is kept
/// under its Claude name, where Cline's own check of its parameters will name it.
pub fn cline_tool_input(
    hook_name: &str,
    input: &Value,
    profile: Profile,
    project_dir: &Path,
    updated: &Map<String, Value>,
) -> Map<String, Value> {
    cline_tool_input_in(
        hook_name,
        input,
        profile,
        project_dir,
        updated,
        cfg!(windows),
    )
}

/// `cline_tool_input` with Windows' path rules or POSIX's (see `resolve`).
fn cline_tool_input_in(
    hook_name: &str,
    input: &Value,
    profile: Profile,
    project_dir: &Path,
    updated: &Map<String, Value>,
    windows: bool,
) -> Map<String, Value> {
    let post = match claude_event_of(hook_of(hook_name)) {
        Some("PreToolUse") => false,
        Some("PostToolUse") => true,
        _ => return updated.clone(),
    };
    let call = tool_call(input, profile, post);
    let dir = project_dir.to_string_lossy();
    let base = Folder::of(&dir, windows);
    restore(&call.name, call.params, !call.sdk, base, updated, true)
}

/// `cline_tool_input` for one tool call given directly: `cline_tool` and its `parameters` as
/// Cline sent them (`legacy` when they are the older `parameters` object, whose values are
/// strings: an MCP tool's `arguments` is then written back as JSON text even when it was
/// missing). Starts from `parameters` (a bare string or list in the object form the forward
/// mapping reads it in, see `claude_tool_input`), so fields Claude never saw are kept; a
/// field of `updated` equal to what the hook was shown changes nothing (so `./a.ts` stays
/// `./a.ts` when the hook echoes the whole input back, as Claude's hooks must); each other
/// field goes back under its Cline name, or under its own name when the tool has no such
/// field.
pub fn cline_tool_parameters(
    cline_tool: &str,
    parameters: &Value,
    legacy: bool,
    project_dir: &Path,
    updated: &Map<String, Value>,
) -> Map<String, Value> {
    let dir = project_dir.to_string_lossy();
    let base = Folder::of(&dir, cfg!(windows));
    restore(cline_tool, parameters, legacy, base, updated, true)
}

/// The inverse mapping. `skip_shown` leaves out the fields of `updated` equal to what the
/// hook was shown; without it (the tests' way of checking the inverse itself) every field is
/// put back.
fn restore(
    tool: &str,
    parameters: &Value,
    legacy: bool,
    base: Folder<'_>,
    updated: &Map<String, Value>,
    skip_shown: bool,
) -> Map<String, Value> {
    let shown = match tool_input_in(tool, parameters, base) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    if tool == "use_mcp_tool" {
        return mcp_back(parameters, legacy, &shown, updated);
    }
    let mut out = object_form(tool, parameters);
    let original = out.clone();
    let changed: Map<String, Value> = updated
        .iter()
        .filter(|(key, value)| !skip_shown || shown.get(*key) != Some(*value))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let claude_keys = claude_fields(tool, &original);
    let mut claude = Map::new();
    for (key, value) in changed {
        if claude_keys.contains(&key.as_str()) {
            claude.insert(key, value);
        } else {
            // A Cline field under its own name (`diff`, `commands`, `timeout`) or a Claude
            // field this tool has no place for (`replace_all`, a Glob's `pattern`).
            out.insert(key, value);
        }
    }
    // In `claude_fields`' order, which says which of two fields for one Cline field wins.
    for key in claude_keys {
        let Some(value) = claude.shift_remove(key) else {
            continue;
        };
        let key = key.to_owned();
        let put = match (tool, key.as_str()) {
            ("run_commands", "command") => commands_back(&mut out, &value),
            ("read_file" | "write_to_file" | "replace_in_file" | "editor", "file_path") => {
                let path = path_back(&value, original.get("path"), base);
                out.insert("path".into(), path);
                true
            }
            ("replace_in_file", "old_string" | "new_string") => {
                diff_back(&mut out, &key, &value, &shown)
            }
            ("read_files", "file_path") => read_back(&mut out, Some(&value), None, base),
            ("read_files", "offset" | "limit") => {
                // Both bounds, so that a new offset keeps the number of lines read.
                let bound = |k: &str| -> Option<Option<u64>> {
                    match updated.get(k).or_else(|| shown.get(k)) {
                        None | Some(Value::Null) => Some(None),
                        Some(v) => line_number(v).map(Some),
                    }
                };
                match (bound("offset"), bound("limit")) {
                    (Some(offset), Some(limit)) => {
                        // Done once for both keys: a second pass changes nothing.
                        read_back(&mut out, None, Some((offset, limit)), base)
                    }
                    _ => false,
                }
            }
            ("editor", "content" | "old_string" | "new_string") => {
                let command = original.get("command").is_some_and(Value::is_string);
                out.insert(editor_field(command, &key).into(), value.clone());
                true
            }
            ("list_files" | "search_files", "path") => {
                let path = path_back(&value, original.get("path"), base);
                out.insert("path".into(), path);
                true
            }
            ("list_files", "pattern") => list_pattern_back(&mut out, &value),
            ("search_files", "pattern") => {
                out.insert("regex".into(), value.clone());
                true
            }
            ("search_files", "glob") => {
                out.insert("file_pattern".into(), value.clone());
                true
            }
            ("search_codebase", "pattern") => first_query_back(&mut out, &value),
            ("fetch_web_content", "url" | "prompt") => request_back(&mut out, &key, &value),
            ("web_search", "allowed_domains" | "blocked_domains") => {
                let text = original.get(&key).is_some_and(Value::is_string);
                let value = match &value {
                    Value::Array(_) if text => Value::from(value.to_string()),
                    other => other.clone(),
                };
                out.insert(key.clone(), value);
                true
            }
            _ => false,
        };
        if !put {
            // What cannot be put back is kept under its Claude name.
            out.insert(key, value);
        }
    }
    out
}

/// The Claude field names that `claude_tool_input` made for `tool` from the parameters
/// `original` (in object form): each is put back under its Cline name. Every other field of
/// `updated` is Cline's own name already.
fn claude_fields(tool: &str, original: &Map<String, Value>) -> Vec<&'static str> {
    match tool {
        // A `command` that was Cline's own is passed on as such.
        "run_commands" if !original.get("command").is_some_and(Value::is_string) => {
            vec!["command"]
        }
        "read_file" | "write_to_file" => vec!["file_path"],
        "replace_in_file" => vec!["file_path", "old_string", "new_string"],
        "read_files" => vec!["file_path", "offset", "limit"],
        // `content` and `new_string` are both the newer input's `new_text`: the field of the
        // tool the hook was shown comes last, and wins.
        "editor" if editor_tool(&Value::Object(original.clone())) == "Write" => {
            vec!["file_path", "old_string", "new_string", "content"]
        }
        "editor" => vec!["file_path", "content", "old_string", "new_string"],
        "list_files" => vec!["path", "pattern"],
        "search_files" => vec!["pattern", "path", "glob"],
        "search_codebase" => vec!["pattern"],
        "fetch_web_content" => ["url", "prompt"]
            .into_iter()
            .filter(|key| !original.contains_key(*key))
            .collect(),
        "web_search" => vec!["allowed_domains", "blocked_domains"],
        _ => Vec::new(),
    }
}

/// `parameters` as the object `claude_tool_input` reads them as: a bare string or list under
/// the key its object form has it at, `null` as no parameter.
fn object_form(tool: &str, parameters: &Value) -> Map<String, Value> {
    match parameters {
        Value::Object(map) => map.clone(),
        Value::Null => Map::new(),
        other => {
            let key = match tool {
                "run_commands" => "commands",
                "read_files" => "file_paths",
                "search_codebase" => "queries",
                "fetch_web_content" => "requests",
                _ => "input",
            };
            let mut map = Map::new();
            map.insert(key.into(), other.clone());
            map
        }
    }
}

/// A Claude path (`file_path`, or the `path` of LS, Glob and Grep) as Cline's `path`: relative
/// to the project folder when Cline's `original` was relative and the new path is inside the
/// folder, absolute (tidied) otherwise. A path that is no string is passed on as it is.
fn path_back(value: &Value, original: Option<&Value>, base: Folder<'_>) -> Value {
    let Some(path) = value.as_str() else {
        return value.clone();
    };
    let resolved = resolve(path, base);
    let relative_original = original
        .and_then(Value::as_str)
        .filter(|p| is_relative(p, base));
    if let Some(original) = relative_original {
        if let Some(relative) = relative_inside(&resolved, base, original) {
            return relative.into();
        }
    }
    render(&resolved, base.separator()).into()
}

/// `path` (resolved against `base`) relative to the project folder, written with the
/// separator of `style` (Cline's original relative path), or `None` when it is not inside
/// the folder. Windows names compare without regard to case, as Windows does.
fn relative_inside(path: &Resolved, base: Folder<'_>, style: &str) -> Option<String> {
    let home = resolve("", base);
    let same = |a: &str, b: &str| {
        if base.windows {
            same_name(a, b)
        } else {
            a == b
        }
    };
    if path.absolute != home.absolute
        || !same(&path.device, &home.device)
        || path.parts.len() < home.parts.len()
        || !home.parts.iter().zip(&path.parts).all(|(h, p)| same(h, p))
    {
        return None;
    }
    let rest = &path.parts[home.parts.len()..];
    if rest.is_empty() {
        return Some(".".to_owned());
    }
    let separator = if !base.windows || style.contains('/') {
        '/'
    } else if style.contains('\\') {
        '\\'
    } else {
        base.separator()
    };
    Some(rest.join(separator.encode_utf8(&mut [0; 4])))
}

/// Writes `items` back to `out[key]` in the form `original` had: JSON text when it was a JSON
/// array's text (the older `parameters`), the one item when it was a single value and one
/// item is left, an array otherwise.
fn put_list(out: &mut Map<String, Value>, key: &str, original: Option<&Value>, items: Vec<Value>) {
    let value = match original {
        Some(text @ Value::String(_)) if json_list(text).is_some() => {
            Value::from(Value::Array(items).to_string())
        }
        Some(Value::Array(_)) | None | Some(Value::Null) => Value::Array(items),
        Some(_) if items.len() == 1 => items.into_iter().next().unwrap_or(Value::Null),
        Some(_) => Value::Array(items),
    };
    out.insert(key.to_owned(), value);
}

/// Claude's Bash `command` back into `run_commands`' list (`commands`, or `cmd` when the call
/// used that). The forward mapping wrote one line per command; when the new command has as
/// many lines as there were commands, line i is command i again (an unchanged line keeps its
/// entry, a structured `{command, args}` one too; a changed line becomes a string). With
/// another number of lines (a hook added or removed one, or wrote a multi-line script) the
/// whole text is one command, run as the one script Claude's Bash would have run.
fn commands_back(out: &mut Map<String, Value>, value: &Value) -> bool {
    let Some(text) = value.as_str() else {
        return false;
    };
    let key = if out.contains_key("commands") || !out.contains_key("cmd") {
        "commands"
    } else {
        "cmd"
    };
    let original = out.get(key).cloned();
    let mut entries = original.as_ref().map(as_list).unwrap_or_default();
    let rendered: Vec<(usize, String)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, entry)| command_line(entry).map(|line| (i, line)))
        .collect();
    let lines: Vec<&str> = text.split('\n').collect();
    if !rendered.is_empty() && lines.len() == rendered.len() {
        for ((i, old), new) in rendered.into_iter().zip(lines) {
            if old != new {
                if let Some(entry) = entries.get_mut(i) {
                    *entry = new.into();
                }
            }
        }
    } else {
        entries = vec![text.into()];
    }
    put_list(out, key, original.as_ref(), entries);
    true
}

/// A line number from Claude's `offset`/`limit`: a whole number from 1, or its text.
fn line_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
    .filter(|n| *n > 0)
}

/// Claude's Read `file_path` (and/or its `offset`/`limit` as `(offset, limit)`) back into the
/// request the forward mapping read: the first file of `files`/`file_paths`/`paths`, else the
/// top-level `path`/`file_path`/`filePath`; a new `files: [{path}]` when there was none. The
/// range becomes `start_line` = offset and `end_line` = offset + limit - 1 (`end_line` =
/// limit without an offset); a file given as a bare path becomes `{path, start_line,
/// end_line}` to carry one.
fn read_back(
    out: &mut Map<String, Value>,
    file_path: Option<&Value>,
    range: Option<(Option<u64>, Option<u64>)>,
    base: Folder<'_>,
) -> bool {
    if file_path.is_some_and(|v| !v.is_string()) {
        return false;
    }
    let lines = range.map(|(offset, limit)| {
        let end = match (offset, limit) {
            (Some(start), Some(count)) => Some(start.saturating_add(count - 1)),
            (None, Some(count)) => Some(count),
            (_, None) => None,
        };
        (offset, end)
    });
    let set_lines = |request: &mut Map<String, Value>| {
        if let Some((start, end)) = lines {
            for (key, line) in [("start_line", start), ("end_line", end)] {
                match line {
                    Some(n) => request.insert(key.into(), n.into()),
                    None => request.shift_remove(key),
                };
            }
        }
    };
    let path_key = |request: &Map<String, Value>| {
        ["path", "file_path", "filePath"]
            .into_iter()
            .find(|key| request.get(*key).is_some_and(Value::is_string))
    };
    let new_path = |old: Option<&Value>| file_path.map(|value| path_back(value, old, base));
    // The batch, where the forward mapping looked first.
    for key in ["files", "file_paths", "paths"] {
        let Some(original) = out.get(key).cloned() else {
            continue;
        };
        let mut items = as_list(&original);
        let Some(i) = items.iter().position(|item| read_request(item).is_some()) else {
            continue;
        };
        let entry = match &items[i] {
            Value::String(path) if lines.is_none() => {
                new_path(Some(&Value::from(path.as_str()))).unwrap_or_else(|| path.as_str().into())
            }
            Value::String(path) => {
                let mut request = Map::new();
                let path = Value::from(path.as_str());
                request.insert("path".into(), new_path(Some(&path)).unwrap_or(path));
                set_lines(&mut request);
                Value::Object(request)
            }
            Value::Object(request) => {
                let mut request = request.clone();
                let at = path_key(&request).unwrap_or("path");
                if let Some(path) = new_path(request.get(at)) {
                    request.insert(at.into(), path);
                }
                set_lines(&mut request);
                Value::Object(request)
            }
            other => other.clone(),
        };
        items[i] = entry;
        put_list(out, key, Some(&original), items);
        return true;
    }
    // A single request at the top level.
    if let Some(at) = path_key(out) {
        if let Some(path) = new_path(out.get(at)) {
            out.insert(at.into(), path);
        }
        set_lines(out);
        return true;
    }
    // No file at all: the hook names the one to read.
    let Some(path) = new_path(None) else {
        return false;
    };
    let mut request = Map::new();
    request.insert("path".into(), path);
    set_lines(&mut request);
    out.insert("files".into(), Value::Array(vec![Value::Object(request)]));
    true
}

/// Claude's Edit `old_string` or `new_string` back into the `replace_in_file` diff: the text
/// of the first SEARCH/REPLACE block (the one the forward mapping showed) is replaced, every
/// marker, line end and other block kept as written. A diff with no whole block is replaced
/// by one block in Cline's current markers, its other side being what the hook was shown
/// (in `shown`) or empty. A text that is no string cannot be put in a diff.
fn diff_back(
    out: &mut Map<String, Value>,
    key: &str,
    value: &Value,
    shown: &Map<String, Value>,
) -> bool {
    let shown_side = |key: &str| shown.get(key).and_then(Value::as_str).unwrap_or("");
    let Some(text) = value.as_str() else {
        return false;
    };
    let diff = out.get("diff").and_then(Value::as_str).unwrap_or("");
    let new_diff = match block_span(diff) {
        Some(block) => {
            let range = if key == "old_string" {
                block.search
            } else {
                block.replace
            };
            let (Some(before), Some(after)) = (diff.get(..range.start), diff.get(range.end..))
            else {
                return false;
            };
            format!("{before}{}{after}", block_lines(text, block.crlf))
        }
        None => {
            let (old, new) = if key == "old_string" {
                (text, shown_side("new_string"))
            } else {
                (shown_side("old_string"), text)
            };
            format!(
                "------- SEARCH\n{}=======\n{}+++++++ REPLACE\n",
                block_lines(old, false),
                block_lines(new, false)
            )
        }
    };
    out.insert("diff".into(), new_diff.into());
    true
}

/// The Cline CLI `editor` field of Claude's Write `content` or Edit `old_string`/
/// `new_string`: `file_text`/`old_str`/`new_str` in its older input (with `command`),
/// `new_text`/`old_text` in its newer one.
fn editor_field(command: bool, claude: &str) -> &'static str {
    match (command, claude) {
        (true, "content") => "file_text",
        (true, "old_string") => "old_str",
        (true, _) => "new_str",
        (false, "old_string") => "old_text",
        (false, _) => "new_text",
    }
}

/// A Glob `pattern` back into `list_files`: `**/*` (what the forward mapping shows for a
/// recursive listing) is `recursive` (`"true"` when Cline sent it as text, or sent none in
/// the extension's string form); any other pattern is more than Cline's listing can take, and
/// is kept under its name.
fn list_pattern_back(out: &mut Map<String, Value>, value: &Value) -> bool {
    if value.as_str() != Some("**/*") {
        return false;
    }
    if !truthy(out.get("recursive")) {
        let text = out.get("recursive").is_none_or(Value::is_string);
        let yes = if text {
            Value::from("true")
        } else {
            Value::from(true)
        };
        out.insert("recursive".into(), yes);
    }
    true
}

/// Claude's Grep `pattern` back into `search_codebase`: the first query (of `queries`, else
/// `query`) is replaced, the others kept; a new `queries` list when there was none.
fn first_query_back(out: &mut Map<String, Value>, value: &Value) -> bool {
    let Some(text) = value.as_str() else {
        return false;
    };
    for key in ["queries", "query"] {
        let Some(original) = out.get(key).cloned() else {
            continue;
        };
        let mut items = as_list(&original);
        if let Some(item) = items.iter_mut().find(|item| item.is_string()) {
            *item = text.into();
            put_list(out, key, Some(&original), items);
            return true;
        }
    }
    out.insert("queries".into(), Value::Array(vec![text.into()]));
    true
}

/// Claude's WebFetch `url` or `prompt` back into `fetch_web_content`'s first request (the one
/// the forward mapping showed), the other requests kept; a new `requests` list when there was
/// no request.
fn request_back(out: &mut Map<String, Value>, key: &str, value: &Value) -> bool {
    let original = out.get("requests").cloned();
    let mut items = original.as_ref().map(as_list).unwrap_or_default();
    if let Some(Value::Object(request)) = items.iter_mut().find(|item| item.is_object()) {
        request.insert(key.to_owned(), value.clone());
        put_list(out, "requests", original.as_ref(), items);
    } else {
        let mut request = Map::new();
        request.insert(key.to_owned(), value.clone());
        out.insert(
            "requests".into(),
            Value::Array(vec![Value::Object(request)]),
        );
    }
    true
}

/// An MCP tool's new input (Claude's `mcp__server__tool` arguments) back into `use_mcp_tool`'s
/// `arguments`: the arguments the hook was shown with its fields laid over them, written as
/// Cline had them (JSON text when they were text, or missing from the older `parameters`;
/// an object otherwise). Arguments that were no JSON object were shown as `{"arguments":
/// ...}`: a hook that changes only that field gives them back as it wrote them. Unchanged
/// arguments keep their exact text.
fn mcp_back(
    parameters: &Value,
    legacy: bool,
    shown: &Map<String, Value>,
    updated: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = object_form("use_mcp_tool", parameters);
    let mut merged = shown.clone();
    for (key, value) in updated {
        merged.insert(key.clone(), value.clone());
    }
    if &merged == shown {
        return out;
    }
    let original = out.get("arguments");
    let wrapped = match original {
        None | Some(Value::Null | Value::Object(_)) => false,
        Some(Value::String(text)) if text.trim().is_empty() => false,
        Some(Value::String(text)) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object)
            .is_none(),
        Some(_) => true,
    };
    let as_text = match original {
        Some(Value::String(_)) => true,
        None | Some(Value::Null) => legacy,
        Some(_) => false,
    };
    let arguments = match merged.get("arguments") {
        Some(raw) if wrapped && merged.len() == 1 => raw.clone(),
        _ => Value::Object(merged),
    };
    let arguments = match arguments {
        text @ Value::String(_) => text,
        other if as_text => Value::from(other.to_string()),
        other => other,
    };
    out.insert("arguments".into(), arguments);
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::{json, Value};

    use super::*;

    const PROJECT: &str = "/home/dev/proj";

    // The tests name POSIX paths (and Windows ones where they say so): each rule set is
    // tested on every system, so the helpers give the rules explicitly.
    const POSIX: Folder<'static> = Folder {
        dir: PROJECT,
        windows: false,
    };

    fn ext(hook: &str, input: Value) -> ClaudeCall {
        claude_input_in(hook, &input, Profile::Extension, Path::new(PROJECT), false)
    }

    fn cli(hook: &str, input: Value) -> ClaudeCall {
        claude_input_in(hook, &input, Profile::Cli, Path::new(PROJECT), false)
    }

    fn tool_input(tool: &str, params: Value) -> Value {
        tool_input_in(tool, &params, POSIX)
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

    // ---- tool names ----

    #[test]
    fn the_extension_tools_have_claude_names() {
        let cases = [
            ("execute_command", "Bash"),
            ("write_to_file", "Write"),
            ("replace_in_file", "Edit"),
            ("read_file", "Read"),
            ("list_files", "LS"),
            ("search_files", "Grep"),
            ("web_fetch", "WebFetch"),
            ("web_search", "WebSearch"),
            ("use_mcp_tool", "use_mcp_tool"),
            ("browser_action", "browser_action"),
            ("attempt_completion", "attempt_completion"),
            ("list_code_definition_names", "list_code_definition_names"),
            ("ask_followup_question", "ask_followup_question"),
            ("some_new_tool", "some_new_tool"),
            ("", ""),
        ];
        for (cline, claude) in cases {
            assert_eq!(claude_tool_name(cline, None), claude, "{cline}");
        }
    }

    #[test]
    fn the_cli_tools_have_claude_names() {
        let cases = [
            ("run_commands", json!({"commands": ["ls"]}), "Bash"),
            ("read_files", json!({"files": [{"path": "a"}]}), "Read"),
            ("search_codebase", json!({"queries": ["x"]}), "Grep"),
            ("fetch_web_content", json!({"requests": []}), "WebFetch"),
            ("skills", json!({"skill": "commit"}), "Skill"),
            (
                "apply_patch",
                json!({"input": "*** Begin Patch"}),
                "apply_patch",
            ),
            ("ask_question", json!({}), "ask_question"),
            ("spawn_agent", json!({}), "spawn_agent"),
            ("team_task", json!({}), "team_task"),
        ];
        for (cline, params, claude) in cases {
            assert_eq!(claude_tool_name(cline, Some(&params)), claude, "{cline}");
        }
    }

    #[test]
    fn list_files_is_glob_when_recursive() {
        for yes in [
            json!({"recursive": "true"}),
            json!({"recursive": true}),
            json!({"recursive": " TRUE "}),
        ] {
            assert_eq!(claude_tool_name("list_files", Some(&yes)), "Glob", "{yes}");
        }
        for no in [
            json!({"recursive": "false"}),
            json!({"recursive": false}),
            json!({}),
            json!({"recursive": 1}),
            json!("x"),
        ] {
            assert_eq!(claude_tool_name("list_files", Some(&no)), "LS", "{no}");
        }
    }

    #[test]
    fn the_editor_is_write_or_edit_by_what_it_does() {
        let cases = [
            (
                json!({"command": "create", "path": "a", "file_text": "x"}),
                "Write",
            ),
            (
                json!({"command": "str_replace", "path": "a", "old_str": "x", "new_str": "y"}),
                "Edit",
            ),
            (
                json!({"command": "insert", "path": "a", "insert_line": 3, "new_str": "y"}),
                "Edit",
            ),
            (json!({"command": "undo_edit", "path": "a"}), "editor"),
            (
                json!({"path": "a", "old_text": "x", "new_text": "y"}),
                "Edit",
            ),
            (
                json!({"path": "a", "insert_line": 2, "new_text": "y"}),
                "Edit",
            ),
            (
                json!({"path": "a", "old_text": null, "insert_line": null, "new_text": "y"}),
                "Write",
            ),
            (json!({"path": "a", "new_text": "y"}), "Write"),
            (json!({}), "Edit"),
            (json!(null), "Edit"),
        ];
        for (params, claude) in cases {
            assert_eq!(
                claude_tool_name("editor", Some(&params)),
                claude,
                "{params}"
            );
        }
        assert_eq!(claude_tool_name("editor", None), "Edit");
    }

    #[test]
    fn an_mcp_tool_is_named_as_claude_names_it() {
        let name = |params: Value| claude_tool_name("use_mcp_tool", Some(&params));
        assert_eq!(
            name(json!({"server_name": "github", "tool_name": "create_issue"})),
            "mcp__github__create_issue"
        );
        assert_eq!(
            name(json!({"server_name": "my server.v2", "tool_name": "a/b:c"})),
            "mcp__my_server_v2__a_b_c"
        );
        assert_eq!(
            name(json!({"server_name": "weather-api", "tool_name": "get-forecast"})),
            "mcp__weather-api__get-forecast"
        );
        assert_eq!(
            name(json!({"server_name": "café", "tool_name": "t☃"})),
            "mcp__caf___t_"
        );
        assert_eq!(name(json!({"server_name": "github"})), "use_mcp_tool");
        assert_eq!(
            name(json!({"server_name": "", "tool_name": "x"})),
            "use_mcp_tool"
        );
        assert_eq!(
            name(json!({"server_name": 3, "tool_name": "x"})),
            "use_mcp_tool"
        );
        assert_eq!(claude_tool_name("use_mcp_tool", None), "use_mcp_tool");
    }

    // ---- tool inputs, extension ----

    #[test]
    fn execute_command_keeps_its_command() {
        assert_eq!(
            tool_input(
                "execute_command",
                json!({"command": "npm test", "requires_approval": "false"})
            ),
            json!({"command": "npm test", "requires_approval": "false"})
        );
    }

    #[test]
    fn file_tools_get_an_absolute_file_path() {
        assert_eq!(
            tool_input("read_file", json!({"path": "src/a.ts"})),
            json!({"file_path": "/home/dev/proj/src/a.ts"})
        );
        assert_eq!(
            tool_input("read_file", json!({"path": "/etc/hosts"})),
            json!({"file_path": "/etc/hosts"})
        );
        assert_eq!(
            tool_input(
                "write_to_file",
                json!({"path": "./b.ts", "content": "export {}", "extra": "kept"})
            ),
            json!({"file_path": "/home/dev/proj/b.ts", "content": "export {}", "extra": "kept"})
        );
    }

    #[test]
    fn replace_in_file_gives_its_first_block_and_keeps_the_diff() {
        let diff = "------- SEARCH\nconst a = 1;\nconst b = 2;\n=======\nconst a = 3;\n+++++++ REPLACE\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n";
        assert_eq!(
            tool_input("replace_in_file", json!({"path": "a.ts", "diff": diff})),
            json!({
                "file_path": "/home/dev/proj/a.ts",
                "old_string": "const a = 1;\nconst b = 2;",
                "new_string": "const a = 3;",
                "diff": diff
            })
        );
        // The older markers, Windows line ends, an empty replacement.
        let legacy = "<<<<<<< SEARCH\r\nold line\r\n=======\r\n>>>>>>> REPLACE\r\n";
        let input = tool_input("replace_in_file", json!({"path": "a.ts", "diff": legacy}));
        assert_eq!(input["old_string"], "old line");
        assert_eq!(input["new_string"], "");
        // No whole block: the diff alone.
        for broken in [
            "",
            "just text",
            "------- SEARCH\nx\n=======\ny",
            "=======\n+++++++ REPLACE",
            "-- SEARCH\nx\n=======\ny\n+++++++ REPLACE",
        ] {
            let input = tool_input("replace_in_file", json!({"path": "a.ts", "diff": broken}));
            assert_eq!(
                input,
                json!({"file_path": "/home/dev/proj/a.ts", "diff": broken}),
                "{broken:?}"
            );
        }
    }

    #[test]
    fn search_files_is_grep_with_pattern_path_and_glob() {
        assert_eq!(
            tool_input(
                "search_files",
                json!({"path": "src", "regex": "TODO", "file_pattern": "*.ts"})
            ),
            json!({"pattern": "TODO", "path": "/home/dev/proj/src", "glob": "*.ts"})
        );
    }

    #[test]
    fn list_files_is_ls_or_a_recursive_glob() {
        assert_eq!(
            tool_input("list_files", json!({"path": "src", "recursive": "false"})),
            json!({"path": "/home/dev/proj/src", "recursive": "false"})
        );
        assert_eq!(
            tool_input("list_files", json!({"path": ".", "recursive": "true"})),
            json!({"pattern": "**/*", "path": "/home/dev/proj", "recursive": "true"})
        );
    }

    #[test]
    fn web_tools_keep_url_and_query_and_get_domain_lists() {
        assert_eq!(
            tool_input("web_fetch", json!({"url": "https://example.com"})),
            json!({"url": "https://example.com"})
        );
        assert_eq!(
            tool_input(
                "web_search",
                json!({"query": "rust", "allowed_domains": "[\"docs.rs\"]", "blocked_domains": "not a list"})
            ),
            json!({"allowed_domains": ["docs.rs"], "query": "rust", "blocked_domains": "not a list"})
        );
    }

    #[test]
    fn an_mcp_tools_input_is_its_parsed_arguments() {
        let input = |args: Value| {
            tool_input(
                "use_mcp_tool",
                json!({"server_name": "s", "tool_name": "t", "arguments": args}),
            )
        };
        assert_eq!(
            input(json!("{\"city\": \"Oslo\", \"days\": 3}")),
            json!({"city": "Oslo", "days": 3})
        );
        assert_eq!(input(json!({"city": "Oslo"})), json!({"city": "Oslo"}));
        assert_eq!(input(json!("")), json!({}));
        assert_eq!(input(json!(null)), json!({}));
        assert_eq!(input(json!("{not json")), json!({"arguments": "{not json"}));
        assert_eq!(input(json!("[1, 2]")), json!({"arguments": "[1, 2]"}));
        assert_eq!(input(json!(7)), json!({"arguments": 7}));
        assert_eq!(
            tool_input("use_mcp_tool", json!({"server_name": "s"})),
            json!({})
        );
    }

    #[test]
    fn other_tools_keep_their_parameters() {
        let params = json!({"path": "src", "action": "launch", "weird": {"nested": [1]}});
        assert_eq!(tool_input("browser_action", params.clone()), params);
        assert_eq!(
            tool_input("list_code_definition_names", json!({"path": "src"})),
            json!({"path": "src"})
        );
        assert_eq!(tool_input("x", json!(null)), json!({}));
        assert_eq!(
            tool_input("apply_patch", json!("*** Begin Patch")),
            json!({"input": "*** Begin Patch"})
        );
        assert_eq!(
            tool_input("skills", json!({"skill": "commit", "args": null})),
            json!({"skill": "commit", "args": null})
        );
    }

    // ---- tool inputs, cli ----

    #[test]
    fn run_commands_is_one_bash_command_line_per_command() {
        assert_eq!(
            tool_input("run_commands", json!({"commands": ["npm ci", "npm test"]})),
            json!({"command": "npm ci\nnpm test", "commands": ["npm ci", "npm test"]})
        );
        assert_eq!(
            tool_input("run_commands", json!("ls -la")),
            json!({"command": "ls -la", "commands": "ls -la"})
        );
        assert_eq!(
            tool_input("run_commands", json!(["a", "b"]))["command"],
            "a\nb"
        );
        // The SDK's older `parameters` send the list as its JSON text.
        assert_eq!(
            tool_input(
                "run_commands",
                json!({"commands": "[\"ls\"]", "timeout": "5"})
            )["command"],
            "ls"
        );
        // Structured entries: arguments quoted for the shell.
        assert_eq!(
            tool_input(
                "run_commands",
                json!({"commands": [{"command": "git", "args": ["commit", "-m", "it's done"]}, {"cmd": "echo", "args": "a b"}]})
            )["command"],
            "git commit -m 'it'\\''s done'\necho 'a b'"
        );
        assert_eq!(
            tool_input("run_commands", json!({"command": "pwd"})),
            json!({"command": "pwd"})
        );
        assert_eq!(
            tool_input("run_commands", json!({"cmd": "pwd"})),
            json!({"command": "pwd", "cmd": "pwd"})
        );
        assert_eq!(
            tool_input("run_commands", json!({"commands": []})),
            json!({"commands": []})
        );
        assert_eq!(
            tool_input("run_commands", json!({"commands": [1, null, {}]})),
            json!({"commands": [1, null, {}]})
        );
    }

    #[test]
    fn read_files_is_a_read_of_its_first_file() {
        assert_eq!(
            tool_input(
                "read_files",
                json!({"file_paths": ["src/a.ts", "/abs/b.ts"]})
            ),
            json!({"file_path": "/home/dev/proj/src/a.ts", "file_paths": ["src/a.ts", "/abs/b.ts"]})
        );
        assert_eq!(
            tool_input(
                "read_files",
                json!({"files": [{"path": "/w/a.ts", "start_line": 10, "end_line": 19}]})
            ),
            json!({"file_path": "/w/a.ts", "offset": 10, "limit": 10, "files": [{"path": "/w/a.ts", "start_line": 10, "end_line": 19}]})
        );
        assert_eq!(
            tool_input(
                "read_files",
                json!({"files": [{"path": "a", "start_line": "3"}]})
            )["offset"],
            3
        );
        assert_eq!(
            tool_input(
                "read_files",
                json!({"files": [{"path": "a", "end_line": 5}]})
            )["limit"],
            5
        );
        let backwards = tool_input(
            "read_files",
            json!({"files": [{"path": "a", "start_line": 9, "end_line": 2}]}),
        );
        assert_eq!(backwards.get("limit"), None);
        assert_eq!(
            tool_input("read_files", json!({"filePath": "/path/to/file.ts"})),
            json!({"file_path": "/path/to/file.ts"})
        );
        assert_eq!(
            tool_input("read_files", json!({"path": "x.md", "start_line": 2})),
            json!({"file_path": "/home/dev/proj/x.md", "offset": 2})
        );
        assert_eq!(
            tool_input("read_files", json!("a.ts"))["file_path"],
            "/home/dev/proj/a.ts"
        );
        assert_eq!(
            tool_input("read_files", json!(["a.ts", "b.ts"]))["file_path"],
            "/home/dev/proj/a.ts"
        );
        assert_eq!(
            tool_input("read_files", json!({"files": "[{\"path\":\"q.ts\"}]"}))["file_path"],
            "/home/dev/proj/q.ts"
        );
        assert_eq!(
            tool_input("read_files", json!({"files": [{"file_path": "c.ts"}]}))["file_path"],
            "/home/dev/proj/c.ts"
        );
        assert_eq!(
            tool_input("read_files", json!({"files": [7, {"nope": 1}]})),
            json!({"files": [7, {"nope": 1}]})
        );
    }

    #[test]
    fn the_editor_gets_claudes_write_and_edit_fields() {
        assert_eq!(
            tool_input(
                "editor",
                json!({"command": "create", "path": "n.ts", "file_text": "x"})
            ),
            json!({"file_path": "/home/dev/proj/n.ts", "content": "x", "command": "create"})
        );
        assert_eq!(
            tool_input(
                "editor",
                json!({"command": "str_replace", "path": "/a", "old_str": "x", "new_str": "y"})
            ),
            json!({"file_path": "/a", "old_string": "x", "new_string": "y", "command": "str_replace"})
        );
        assert_eq!(
            tool_input(
                "editor",
                json!({"command": "insert", "path": "/a", "insert_line": 4, "new_str": "y"})
            ),
            json!({"file_path": "/a", "new_string": "y", "command": "insert", "insert_line": 4})
        );
        assert_eq!(
            tool_input(
                "editor",
                json!({"path": "/a", "old_text": "x", "new_text": "y"})
            ),
            json!({"file_path": "/a", "old_string": "x", "new_string": "y"})
        );
        assert_eq!(
            tool_input(
                "editor",
                json!({"path": "/a", "old_text": null, "insert_line": 2, "new_text": "y"})
            ),
            json!({"file_path": "/a", "new_string": "y", "old_text": null, "insert_line": 2})
        );
        assert_eq!(
            tool_input("editor", json!({"path": "/a", "new_text": "whole file"})),
            json!({"file_path": "/a", "content": "whole file"})
        );
        assert_eq!(
            tool_input("editor", json!({"command": "view", "path": "/a"})),
            json!({"file_path": "/a", "command": "view"})
        );
    }

    #[test]
    fn fetch_web_content_and_search_codebase_show_their_first_request() {
        assert_eq!(
            tool_input(
                "fetch_web_content",
                json!({"requests": [{"url": "https://a.dev", "prompt": "summarize"}, {"url": "https://b.dev", "prompt": "x"}]})
            ),
            json!({"url": "https://a.dev", "prompt": "summarize", "requests": [{"url": "https://a.dev", "prompt": "summarize"}, {"url": "https://b.dev", "prompt": "x"}]})
        );
        assert_eq!(
            tool_input(
                "fetch_web_content",
                json!({"url": "https://a.dev", "prompt": "p"})
            ),
            json!({"url": "https://a.dev", "prompt": "p"})
        );
        assert_eq!(
            tool_input("fetch_web_content", json!({"requests": "nope"})),
            json!({"requests": "nope"})
        );
        assert_eq!(
            tool_input("search_codebase", json!({"queries": ["fn main", "TODO"]})),
            json!({"pattern": "fn main", "queries": ["fn main", "TODO"]})
        );
        assert_eq!(
            tool_input("search_codebase", json!("needle"))["pattern"],
            "needle"
        );
        assert_eq!(
            tool_input("search_codebase", json!({"query": "one"}))["pattern"],
            "one"
        );
    }

    // ---- paths ----

    fn posix(path: &str, base: &str) -> String {
        absolutize(path, Folder::of(base, false))
    }

    fn win(path: &str, base: &str) -> String {
        absolutize(path, Folder::of(base, true))
    }

    /// The attack's paths (03-paths.js): a tool path the model picks, what Node's
    /// `path.posix.resolve(PROJECT, p)` writes, and what `path.win32.resolve(WIN, p)` writes
    /// (Node's own answers, but where the comment says why not).
    const WIN: &str = r"C:\Users\dev\proj";
    const ATTACK: [(&str, &str, &str); 26] = [
        ("src/../../x", "/home/dev/x", r"C:\Users\dev\x"),
        (
            "C:/../.claude/settings.json",
            "/home/dev/proj/.claude/settings.json",
            r"C:\.claude\settings.json",
        ),
        (
            r"C:\..\.claude\settings.json",
            r"/home/dev/proj/C:\..\.claude\settings.json",
            r"C:\.claude\settings.json",
        ),
        (
            "~/../.claude/settings.json",
            "/home/dev/proj/.claude/settings.json",
            r"C:\Users\dev\proj\.claude\settings.json",
        ),
        ("~", "/home/dev/proj/~", r"C:\Users\dev\proj\~"),
        (
            r"..\..\etc\passwd",
            r"/home/dev/proj/..\..\etc\passwd",
            r"C:\Users\etc\passwd",
        ),
        ("//etc/passwd", "/etc/passwd", r"\\etc\passwd\"),
        ("/proj/../etc", "/etc", r"C:\etc"),
        (
            "a\u{0}b/../../../etc/passwd",
            "/home/etc/passwd",
            r"C:\Users\etc\passwd",
        ),
        (
            ".claude/../.claude/settings.json",
            "/home/dev/proj/.claude/settings.json",
            r"C:\Users\dev\proj\.claude\settings.json",
        ),
        // Node asks Windows for D:'s own working folder: any is on D:, outside the project.
        ("D:", "/home/dev/proj/D:", r"D:\"),
        ("D:..", "/home/dev/proj/D:..", r"D:\"),
        (r"\\?\C:\x", r"/home/dev/proj/\\?\C:\x", r"\\?\C:\x"),
        (
            "file:///etc/passwd",
            "/home/dev/proj/file:/etc/passwd",
            r"C:\Users\dev\proj\file:\etc\passwd",
        ),
        (
            "src/./a\u{202e}.ts",
            "/home/dev/proj/src/a\u{202e}.ts",
            "C:\\Users\\dev\\proj\\src\\a\u{202e}.ts",
        ),
        ("", "/home/dev/proj", r"C:\Users\dev\proj"),
        // Node writes `c:\Users\dev\proj\x`: the same file, in the project folder's spelling.
        ("c:x", "/home/dev/proj/c:x", r"C:\Users\dev\proj\x"),
        (r"C:..\..\y", r"/home/dev/proj/C:..\..\y", r"C:\Users\y"),
        (
            r"c:\users\DEV\proj\.claude",
            r"/home/dev/proj/c:\users\DEV\proj\.claude",
            r"C:\Users\dev\proj\.claude",
        ),
        (r"\rooted\f", r"/home/dev/proj/\rooted\f", r"C:\rooted\f"),
        ("/unix/style", "/unix/style", r"C:\unix\style"),
        (
            r"\\server\share\..\..\f",
            r"/home/dev/proj/\\server\share\..\..\f",
            r"\\server\share\f",
        ),
        (r"\\server", r"/home/dev/proj/\\server", r"C:\server"),
        (r"\\server\", r"/home/dev/proj/\\server\", r"C:\server"),
        (
            r"\\?\C:\Users\dev\proj\..\..\x",
            r"/home/dev/proj/\\?\C:\Users\dev\proj\..\..\x",
            r"\\?\C:\Users\x",
        ),
        (r"\\.\pipe\p", r"/home/dev/proj/\\.\pipe\p", r"\\.\pipe\p"),
    ];

    #[test]
    fn the_attack_paths_resolve_as_node_does_on_each_system() {
        for (path, want_posix, want_win) in ATTACK {
            assert_eq!(posix(path, PROJECT), want_posix, "posix {path:?}");
            assert_eq!(win(path, WIN), want_win, "win32 {path:?}");
            // What a hook is shown: the Write tool's `file_path` is where Node writes.
            let params = json!({"path": path, "content": "x"});
            for (base, want) in [
                (Folder::of(PROJECT, false), want_posix),
                (Folder::of(WIN, true), want_win),
            ] {
                let input = json!({"tool_call": {"name": "write_to_file", "input": params}});
                let call = claude_input_in(
                    "tool_call",
                    &input,
                    Profile::Cli,
                    Path::new(base.dir),
                    base.windows,
                );
                assert_eq!(call.input["tool_input"]["file_path"], want, "{path:?}");
                assert_eq!(call.input["cwd"], base.dir);
            }
        }
    }

    #[test]
    fn a_hook_testing_inside_the_project_sees_what_node_writes() {
        // The attack's check: inside the project (by text) exactly when Node's path is.
        let inside = |path: &str, root: &str, sep: char| {
            path == root || path.starts_with(&format!("{root}{sep}"))
        };
        for (path, want_posix, want_win) in ATTACK {
            let shown = posix(path, PROJECT);
            assert_eq!(
                inside(&shown, PROJECT, '/'),
                inside(want_posix, PROJECT, '/'),
                "{path:?}"
            );
            let shown = win(path, WIN);
            assert_eq!(
                inside(&shown, WIN, '\\'),
                inside(want_win, WIN, '\\'),
                "{path:?}"
            );
        }
        // The protected folder is found whatever the way there.
        for path in [
            "C:/../.claude/settings.json",
            "~/../.claude/settings.json",
            ".claude/../.claude/settings.json",
            "x/../../proj/.claude/settings.json",
        ] {
            assert_eq!(
                posix(path, PROJECT),
                "/home/dev/proj/.claude/settings.json",
                "{path:?}"
            );
        }
        for path in [
            "~/../.claude/settings.json",
            r"~\..\.claude\settings.json",
            r"C:.claude\settings.json",
            r"c:\USERS\dev\Proj\.claude\settings.json",
            r"\Users\dev\proj\.claude\settings.json",
            "/Users/dev/proj/.claude/./settings.json",
        ] {
            assert_eq!(
                win(path, WIN),
                r"C:\Users\dev\proj\.claude\settings.json",
                "{path:?}"
            );
        }
    }

    #[test]
    fn posix_paths_are_made_absolute_and_tidy() {
        let cases = [
            ("a.ts", "/home/dev/proj/a.ts"),
            ("./src//b.ts", "/home/dev/proj/src/b.ts"),
            ("src/../c.ts", "/home/dev/proj/c.ts"),
            ("../../../../../etc/passwd", "/etc/passwd"),
            ("/etc/hosts", "/etc/hosts"),
            ("/a/./b/../c/", "/a/c"),
            ("//double", "/double"),
            ("/", "/"),
            ("/..", "/"),
            ("", "/home/dev/proj"),
            (".", "/home/dev/proj"),
            // No `~` expansion in Node: a folder named `~` in the project.
            ("~/notes.md", "/home/dev/proj/~/notes.md"),
            ("~user/x", "/home/dev/proj/~user/x"),
            ("dir\\name.txt", "/home/dev/proj/dir\\name.txt"),
            ("C:/x", "/home/dev/proj/C:/x"),
            ("ünï/cødé 🦀.rs", "/home/dev/proj/ünï/cødé 🦀.rs"),
        ];
        for (path, want) in cases {
            assert_eq!(posix(path, PROJECT), want, "{path:?}");
        }
        // A project folder with a trailing `/` or `..` in it.
        assert_eq!(posix("a", "/home/dev/proj/"), "/home/dev/proj/a");
        assert_eq!(posix("a", "/home/dev/x/../proj"), "/home/dev/proj/a");
    }

    #[test]
    fn windows_paths_are_made_absolute_and_tidy() {
        let cases = [
            ("src/a.ts", r"C:\Users\dev\proj\src\a.ts"),
            (r"src\b.ts", r"C:\Users\dev\proj\src\b.ts"),
            (r"..\other\c.ts", r"C:\Users\dev\other\c.ts"),
            (r"..\..\..\..\..\x", r"C:\x"),
            (r"D:\data\f.txt", r"D:\data\f.txt"),
            ("d:/data/./f.txt", r"d:\data\f.txt"),
            (r"D:x\y", r"D:\x\y"),
            (r"\\server\share\dir\..\f", r"\\server\share\f"),
            ("//server/share/f", r"\\server\share\f"),
            (r"\\server\share", r"\\server\share\"),
            (r"\\?\D:\a\..\b", r"\\?\D:\b"),
            ("", r"C:\Users\dev\proj"),
            ("~", r"C:\Users\dev\proj\~"),
        ];
        for (path, want) in cases {
            assert_eq!(win(path, WIN), want, "{path:?}");
        }
        // A project folder written with forward slashes: results written so too.
        assert_eq!(win("a.ts", "C:/proj"), "C:/proj/a.ts");
        assert_eq!(win(r"..\b\c", "C:/proj"), "C:/b/c");
        assert_eq!(win("//s/h/x", "C:/proj"), "//s/h/x");
        // A project on a share: `\x` is on the share, the share's name cannot be left.
        let unc = r"\\srv\share\proj";
        assert_eq!(win(r"\x", unc), r"\\srv\share\x");
        assert_eq!(win(r"..\..\..\x", unc), r"\\srv\share\x");
        assert_eq!(win(r"\\SRV\Share\proj\a", unc), r"\\srv\share\proj\a");
        assert_eq!(win("C:x", unc), r"C:\x");
        // Project folders of the other system (only in tests): rooted, with no drive.
        assert_eq!(win("a", PROJECT), r"/home/dev/proj/a");
        assert_eq!(posix("a", WIN), r"C:\Users\dev\proj/a");
        // Case is folded only one character to one: `ß` is not `SS`.
        assert_eq!(win(r"C:\STRASSE\x", r"C:\Straße"), r"C:\STRASSE\x");
        assert_eq!(win(r"C:\ÜNÏ\x", r"C:\ünï"), r"C:\ünï\x");
        assert_eq!(
            tool_input_in(
                "read_file",
                &json!({"path": "src\\a.ts"}),
                Folder::of(WIN, true)
            ),
            json!({"file_path": r"C:\Users\dev\proj\src\a.ts"})
        );
    }

    #[test]
    fn a_relative_project_folder_gives_relative_paths() {
        for windows in [false, true] {
            let at = |path: &str, base: &str| absolutize(path, Folder::of(base, windows));
            assert_eq!(at("a.ts", "proj").replace('\\', "/"), "proj/a.ts");
            assert_eq!(at("a.ts", ""), "a.ts");
            assert_eq!(at("../a.ts", "proj"), "a.ts");
            assert_eq!(at("../../a.ts", "proj").replace('\\', "/"), "../a.ts");
            assert_eq!(at("", ""), ".");
            assert_eq!(at("..", "proj"), ".");
        }
    }

    #[test]
    fn what_is_relative_depends_on_the_system() {
        for path in ["a", "~/a", "", "C:x", r"C:\x", r"\x", r"\\s\h"] {
            assert!(is_relative(path, Folder::of(PROJECT, false)), "{path:?}");
        }
        assert!(!is_relative("/a", Folder::of(PROJECT, false)));
        for path in ["a", "~/a", "", r"a\b", "é:x"] {
            assert!(is_relative(path, Folder::of(WIN, true)), "{path:?}");
        }
        for path in ["C:x", r"C:\x", r"\x", "/x", r"\\s\h", r"\\?\C:\x"] {
            assert!(!is_relative(path, Folder::of(WIN, true)), "{path:?}");
        }
    }

    #[test]
    fn odd_windows_roots_never_panic() {
        let paths = [
            "\\",
            "/",
            "\\\\",
            "//",
            "\\\\\\",
            "\\\\a",
            "\\\\a\\",
            "\\\\a\\\\",
            "\\\\é\\ü",
            "é:",
            "C",
            "C:",
            ":",
            "1:\\x",
            "\u{0}:",
            "\\\\a\\b\\..\\..\\..",
        ];
        for path in paths {
            for base in [WIN, "", "rel", "C:", "\\\\a", PROJECT, "é"] {
                let got = win(path, base);
                assert!(
                    !got.contains("\\.\\") && !got.ends_with("\\.."),
                    "{path:?} {base:?}"
                );
                let _ = posix(path, base);
                let _ = path_back(&json!(path), Some(&json!("a")), Folder::of(base, true));
            }
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

    /// A small deterministic generator of arbitrary JSON built from the keys the code reads.
    struct Garbage(u64);

    impl Garbage {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        fn value(&mut self, depth: u32) -> Value {
            const KEYS: [&str; 40] = [
                "preToolUse",
                "postToolUse",
                "tool_call",
                "tool_result",
                "toolName",
                "tool",
                "name",
                "parameters",
                "input",
                "id",
                "output",
                "error",
                "result",
                "success",
                "path",
                "file_path",
                "filePath",
                "files",
                "file_paths",
                "paths",
                "commands",
                "command",
                "cmd",
                "args",
                "diff",
                "regex",
                "recursive",
                "requests",
                "queries",
                "server_name",
                "tool_name",
                "arguments",
                "old_text",
                "new_text",
                "insert_line",
                "taskId",
                "sessionContext",
                "rootSessionId",
                "notification",
                "preCompact",
            ];
            const TEXTS: [&str; 16] = [
                "",
                "execute_command",
                "run_commands",
                "read_files",
                "editor",
                "use_mcp_tool",
                "list_files",
                "true",
                "../../x",
                "C:\\a\\..\\b",
                "\\\\srv\\share",
                "[\"a\",1,{}]",
                "{\"k\":[1",
                "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE",
                "\u{0}\u{feff}\u{202e}🦀",
                "create",
            ];
            let pick = self.next() % if depth == 0 { 5 } else { 7 };
            match pick {
                0 => Value::Null,
                1 => Value::Bool(self.next().is_multiple_of(2)),
                2 => json!(self.next() as i64 - (1 << 30)),
                3 => json!(-1.5e300),
                4 => Value::from(TEXTS[(self.next() % TEXTS.len() as u64) as usize]),
                5 => Value::Array(
                    (0..self.next() % 4)
                        .map(|_| self.value(depth - 1))
                        .collect(),
                ),
                _ => {
                    let mut map = Map::new();
                    for _ in 0..self.next() % 6 {
                        let key = KEYS[(self.next() % KEYS.len() as u64) as usize];
                        map.insert(key.to_owned(), self.value(depth - 1));
                    }
                    Value::Object(map)
                }
            }
        }
    }

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

    // ---- updatedInput back into Cline's parameters ----

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// The Cline parameters for a hook's `updated` answer to `tool` called with `params`.
    fn back(tool: &str, params: Value, updated: Value) -> Value {
        Value::Object(restore(tool, &params, false, POSIX, &map(updated), true))
    }

    /// `back` with `fields` laid over the `tool_input` the hook was shown (a hook answers
    /// the whole input with a few fields changed, as Claude's must).
    fn edit(tool: &str, params: Value, fields: Value) -> Value {
        let mut updated = map(tool_input(tool, params.clone()));
        updated.extend(map(fields));
        back(tool, params, Value::Object(updated))
    }

    /// Every tool call the forward mapping knows, in each form it reads.
    fn round_trip_cases() -> Vec<(&'static str, Value)> {
        vec![
            (
                "execute_command",
                json!({"command": "npm test", "requires_approval": "false"}),
            ),
            (
                "run_commands",
                json!({"commands": ["npm ci", "npm test"], "timeout": 5}),
            ),
            (
                "run_commands",
                json!({"commands": "[\"ls\",\"pwd\"]", "timeout": "5"}),
            ),
            (
                "run_commands",
                json!({"commands": [{"command": "git", "args": ["commit", "-m", "it's"]}, "ls"]}),
            ),
            ("run_commands", json!({"cmd": "pwd"})),
            ("run_commands", json!({"command": "pwd"})),
            ("run_commands", json!({"commands": [1, null, "ls"]})),
            ("read_file", json!({"path": "src/a.ts"})),
            ("read_file", json!({"path": "./src/../b.ts"})),
            ("read_file", json!({"path": "/etc/hosts"})),
            ("read_file", json!({"path": "~/notes.md"})),
            ("read_file", json!({"path": "../outside.ts"})),
            (
                "read_files",
                json!({"files": [{"path": "a.ts", "start_line": 10, "end_line": 19}, {"path": "b.ts"}]}),
            ),
            (
                "read_files",
                json!({"files": [{"path": "a", "start_line": "3", "end_line": 1}]}),
            ),
            (
                "read_files",
                json!({"file_paths": ["src/a.ts", "/abs/b.ts"]}),
            ),
            ("read_files", json!({"files": "[{\"path\":\"q.ts\"}]"})),
            ("read_files", json!({"filePath": "/path/to/file.ts"})),
            ("read_files", json!({"path": "x.md", "start_line": 2})),
            (
                "write_to_file",
                json!({"path": "./b.ts", "content": "export {}", "extra": "kept"}),
            ),
            (
                "replace_in_file",
                json!({"path": "a.ts", "diff": "------- SEARCH\nconst a = 1;\n=======\nconst a = 2;\n+++++++ REPLACE\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n"}),
            ),
            (
                "replace_in_file",
                json!({"path": "a.ts", "diff": "<<<<<<< SEARCH\r\nold\r\n=======\r\n>>>>>>> REPLACE\r\n"}),
            ),
            (
                "replace_in_file",
                json!({"path": "a.ts", "diff": "no block"}),
            ),
            (
                "editor",
                json!({"command": "create", "path": "n.ts", "file_text": "x"}),
            ),
            (
                "editor",
                json!({"command": "str_replace", "path": "/a", "old_str": "x", "new_str": "y"}),
            ),
            (
                "editor",
                json!({"command": "insert", "path": "/a", "insert_line": 4, "new_str": "y"}),
            ),
            ("editor", json!({"command": "view", "path": "src"})),
            (
                "editor",
                json!({"path": "a.ts", "old_text": "x", "new_text": "y"}),
            ),
            (
                "editor",
                json!({"path": "a.ts", "old_text": null, "insert_line": 2, "new_text": "y"}),
            ),
            ("editor", json!({"path": "a.ts", "new_text": "whole file"})),
            ("list_files", json!({"path": "src", "recursive": "false"})),
            ("list_files", json!({"path": ".", "recursive": "true"})),
            (
                "search_files",
                json!({"path": "src", "regex": "TODO", "file_pattern": "*.ts"}),
            ),
            ("search_codebase", json!({"queries": ["fn main", "TODO"]})),
            ("search_codebase", json!({"query": "one"})),
            ("web_fetch", json!({"url": "https://example.com"})),
            (
                "fetch_web_content",
                json!({"requests": [{"url": "https://a.dev", "prompt": "p"}, {"url": "https://b.dev"}]}),
            ),
            (
                "fetch_web_content",
                json!({"url": "https://a.dev", "prompt": "p"}),
            ),
            (
                "web_search",
                json!({"query": "rust", "allowed_domains": "[\"docs.rs\"]", "blocked_domains": ["x.com"]}),
            ),
            (
                "use_mcp_tool",
                json!({"server_name": "gh", "tool_name": "list", "arguments": "{\"n\": 1,  \"q\":\"x\"}"}),
            ),
            (
                "use_mcp_tool",
                json!({"server_name": "gh", "tool_name": "list", "arguments": {"n": 1}}),
            ),
            (
                "use_mcp_tool",
                json!({"server_name": "gh", "tool_name": "list", "arguments": "{not json"}),
            ),
            (
                "use_mcp_tool",
                json!({"server_name": "gh", "tool_name": "list"}),
            ),
            ("skills", json!({"skill": "commit", "args": null})),
            (
                "browser_action",
                json!({"action": "launch", "url": "http://localhost"}),
            ),
            ("apply_patch", json!({"input": "*** Begin Patch"})),
        ]
    }

    #[test]
    fn forward_round_trips() {
        for (tool, params) in round_trip_cases() {
            // The hook echoes the tool_input it was shown: Cline's parameters come back.
            let shown = tool_input(tool, params.clone());
            assert_eq!(back(tool, params.clone(), shown), params, "{tool} {params}");
            // Or it answers nothing at all.
            assert_eq!(
                back(tool, params.clone(), json!({})),
                params,
                "{tool} {params}"
            );
            // Through the hook's own input, both profiles, both objects.
            for (profile, input) in [
                (
                    Profile::Cli,
                    json!({"tool_call": {"id": "c", "name": tool, "input": params}}),
                ),
                (
                    Profile::Extension,
                    json!({"preToolUse": {"toolName": tool, "parameters": params}}),
                ),
            ] {
                // Each system's rules, with a project folder of that system.
                for (dir, windows) in [(PROJECT, false), (WIN, true)] {
                    let dir = Path::new(dir);
                    for hook in ["PreToolUse", "tool_call"] {
                        let call = claude_input_in(hook, &input, profile, dir, windows);
                        let updated = map(call.input["tool_input"].clone());
                        let got =
                            cline_tool_input_in(hook, &input, profile, dir, &updated, windows);
                        assert_eq!(Value::Object(got), params, "{hook} {tool} {params}");
                    }
                }
            }
        }
        // The loose CLI forms come back in their object form (the result is an object).
        assert_eq!(
            back(
                "run_commands",
                json!("ls -la"),
                json!({"command": "ls -la"})
            ),
            json!({"commands": "ls -la"})
        );
        assert_eq!(
            back(
                "read_files",
                json!(["a.ts"]),
                json!({"file_path": "/home/dev/proj/a.ts"})
            ),
            json!({"file_paths": ["a.ts"]})
        );
        assert_eq!(
            back("apply_patch", json!("x"), json!({"input": "x"})),
            json!({"input": "x"})
        );
    }

    #[test]
    fn the_inverse_alone_round_trips_modulo_its_normalisations() {
        // Every field put back, even those equal to what the hook was shown: the inverse
        // mapping itself. The right column is the original where no normalisation applies.
        let norm = |params: &Value| -> Value {
            let cases = [
                // `.` and `..` are tidied; a relative path outside the project is absolute.
                (json!({"path": "./src/../b.ts"}), json!({"path": "b.ts"})),
                (
                    json!({"path": "../outside.ts"}),
                    json!({"path": "/home/dev/outside.ts"}),
                ),
                (
                    json!({"path": "./b.ts", "content": "export {}", "extra": "kept"}),
                    json!({"path": "b.ts", "content": "export {}", "extra": "kept"}),
                ),
                // Line numbers are written as numbers; an end before the start is dropped.
                (
                    json!({"files": [{"path": "a", "start_line": "3", "end_line": 1}]}),
                    json!({"files": [{"path": "a", "start_line": 3}]}),
                ),
            ];
            cases
                .iter()
                .find(|(from, _)| from == params)
                .map_or_else(|| params.clone(), |(_, to)| to.clone())
        };
        for (tool, params) in round_trip_cases() {
            let shown = map(tool_input(tool, params.clone()));
            let got = restore(tool, &params, false, POSIX, &shown, false);
            assert_eq!(Value::Object(got), norm(&params), "{tool} {params}");
        }
    }

    #[test]
    fn a_new_file_path_is_cline_path_relative_when_it_was_and_can_be() {
        let cases = [
            (
                "read_file",
                "src/a.ts",
                "/home/dev/proj/lib/b.ts",
                "lib/b.ts",
            ),
            ("read_file", "src/a.ts", "/etc/passwd", "/etc/passwd"),
            (
                "read_file",
                "src/a.ts",
                "/home/dev/project2/x",
                "/home/dev/project2/x",
            ),
            (
                "read_file",
                "src/a.ts",
                "/home/dev/proj/../x",
                "/home/dev/x",
            ),
            ("read_file", "src/a.ts", "/home/dev/proj", "."),
            (
                "read_file",
                "/abs/a.ts",
                "/home/dev/proj/b.ts",
                "/home/dev/proj/b.ts",
            ),
            // `~` is a name: `~/a.ts` is relative, as Node takes it.
            ("read_file", "~/a.ts", "/home/dev/proj/b.ts", "b.ts"),
            ("read_file", "C:/a.ts", "/home/dev/proj/b.ts", "b.ts"),
            ("read_file", "src/a.ts", "lib/c.ts", "lib/c.ts"),
            ("read_file", "src/a.ts", "~/c.ts", "~/c.ts"),
            (
                "write_to_file",
                "a.ts",
                "/home/dev/proj/sub/dir/z.ts",
                "sub/dir/z.ts",
            ),
            ("replace_in_file", "a.ts", "/tmp/z.ts", "/tmp/z.ts"),
        ];
        for (tool, original, new, want) in cases {
            let got = edit(tool, json!({"path": original}), json!({"file_path": new}));
            assert_eq!(got["path"], want, "{tool} {original} -> {new}");
            assert_eq!(got.get("file_path"), None);
        }
        // Windows: case-insensitive, and the original's separator.
        let put = |original: &str, new: &str| {
            let mut updated = Map::new();
            updated.insert("file_path".into(), new.into());
            let params = json!({"path": original});
            restore(
                "read_file",
                &params,
                false,
                Folder::of(WIN, true),
                &updated,
                true,
            )["path"]
                .clone()
        };
        assert_eq!(put(r"src\a.ts", r"c:\users\DEV\proj\lib\b.ts"), r"lib\b.ts");
        assert_eq!(put("src/a.ts", r"C:\Users\dev\proj\lib\b.ts"), "lib/b.ts");
        assert_eq!(put("a.ts", r"C:\Users\dev\proj\lib\b.ts"), r"lib\b.ts");
        assert_eq!(put("a.ts", r"D:\x.ts"), r"D:\x.ts");
        assert_eq!(put("~/a.ts", r"C:\Users\dev\proj\b.ts"), "b.ts");
        assert_eq!(
            put(r"C:a.ts", r"C:\Users\dev\proj\b.ts"),
            r"C:\Users\dev\proj\b.ts"
        );
        assert_eq!(
            put(r"\a.ts", r"C:\Users\dev\proj\b.ts"),
            r"C:\Users\dev\proj\b.ts"
        );
        assert_eq!(put("a.ts", "c:b.ts"), r"b.ts");
        assert_eq!(
            put("a.ts", r"\\?\C:\Users\dev\proj\b.ts"),
            r"\\?\C:\Users\dev\proj\b.ts"
        );
        // A path that is no string goes to `path` as it is, for Cline to refuse.
        assert_eq!(
            edit("read_file", json!({"path": "a"}), json!({"file_path": 3}))["path"],
            3
        );
    }

    #[test]
    fn a_hooks_new_path_goes_back_to_where_node_would_write_it() {
        // Whatever path a hook answers, the Cline path put back makes Node write where the
        // hook's own path resolves (the attack's paths, each system's rules).
        for (base, windows) in [(PROJECT, false), (WIN, true)] {
            let folder = Folder::of(base, windows);
            for original in ["a.ts", "/abs/a.ts", "~/a.ts"] {
                for (path, _, _) in ATTACK {
                    let mut updated = Map::new();
                    updated.insert("file_path".into(), path.into());
                    let params = json!({"path": original});
                    let got = restore("write_to_file", &params, false, folder, &updated, true);
                    let put = got["path"].as_str().unwrap_or("?");
                    assert_eq!(
                        absolutize(put, folder),
                        absolutize(path, folder),
                        "{base} {original:?} {path:?} -> {put:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_changed_edit_lands_in_the_first_block_of_the_diff() {
        let diff = "------- SEARCH\nconst a = 1;\nconst b = 2;\n=======\nconst a = 3;\n+++++++ REPLACE\n\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n";
        let params = json!({"path": "a.ts", "diff": diff});
        assert_eq!(
            edit(
                "replace_in_file",
                params.clone(),
                json!({"new_string": "const a = 4;\n// four"})
            ),
            json!({"path": "a.ts", "diff": "------- SEARCH\nconst a = 1;\nconst b = 2;\n=======\nconst a = 4;\n// four\n+++++++ REPLACE\n\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n"})
        );
        assert_eq!(
            edit("replace_in_file", params.clone(), json!({"old_string": "const b = 2;", "new_string": ""}))["diff"],
            "------- SEARCH\nconst b = 2;\n=======\n+++++++ REPLACE\n\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n"
        );
        // The older markers and CRLF line ends are kept.
        let legacy = "<<<<<<< SEARCH\r\nold line\r\n=======\r\nnew line\r\n>>>>>>> REPLACE\r\n";
        assert_eq!(
            edit(
                "replace_in_file",
                json!({"path": "a.ts", "diff": legacy}),
                json!({"new_string": "one\ntwo"})
            )["diff"],
            "<<<<<<< SEARCH\r\nold line\r\n=======\r\none\r\ntwo\r\n>>>>>>> REPLACE\r\n"
        );
        // What the forward mapping reads back is what the hook wrote.
        let got = edit(
            "replace_in_file",
            params.clone(),
            json!({"old_string": "p\n\nq", "new_string": "r"}),
        );
        assert_eq!(
            first_block(got["diff"].as_str().unwrap_or("")),
            Some(("p\n\nq".to_owned(), "r".to_owned()))
        );
        // No whole block: one in Cline's current markers.
        assert_eq!(
            back(
                "replace_in_file",
                json!({"path": "a.ts", "diff": "garbage"}),
                json!({"old_string": "a", "new_string": "b"})
            )["diff"],
            "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n"
        );
        assert_eq!(
            back(
                "replace_in_file",
                json!({"path": "a.ts"}),
                json!({"new_string": "b"})
            )["diff"],
            "------- SEARCH\n=======\nb\n+++++++ REPLACE\n"
        );
        // A diff the hook rewrote itself is Cline's own field; Claude's fields apply to it.
        assert_eq!(
            back(
                "replace_in_file",
                params.clone(),
                json!({"diff": "------- SEARCH\nm\n=======\nn\n+++++++ REPLACE"})
            )["diff"],
            "------- SEARCH\nm\n=======\nn\n+++++++ REPLACE"
        );
        // Texts that are no strings, and Edit's `replace_all`, are kept under their names.
        let got = edit(
            "replace_in_file",
            params,
            json!({"new_string": 5, "replace_all": true}),
        );
        assert_eq!(got["diff"], diff);
        assert_eq!(got["new_string"], 5);
        assert_eq!(got["replace_all"], true);
    }

    #[test]
    fn a_changed_bash_command_lands_in_command_or_commands() {
        assert_eq!(
            edit(
                "execute_command",
                json!({"command": "npm test", "requires_approval": "false"}),
                json!({"command": "npm test -- --ci"})
            ),
            json!({"command": "npm test -- --ci", "requires_approval": "false"})
        );
        // One line per command: line i is command i.
        assert_eq!(
            edit(
                "run_commands",
                json!({"commands": ["npm ci", "npm test"], "timeout": 5}),
                json!({"command": "npm ci\nnpm test -- --ci"})
            ),
            json!({"commands": ["npm ci", "npm test -- --ci"], "timeout": 5})
        );
        // An unchanged structured entry stays structured; a changed one becomes its line.
        let structured = json!({"commands": [{"command": "git", "args": ["commit", "-m", "it's"]}, {"cmd": "ls"}]});
        assert_eq!(
            edit(
                "run_commands",
                structured.clone(),
                json!({"command": "git commit -m 'it'\\''s'\nls -la"})
            ),
            json!({"commands": [{"command": "git", "args": ["commit", "-m", "it's"]}, "ls -la"]})
        );
        // Another number of lines: one command, the whole script.
        assert_eq!(
            edit(
                "run_commands",
                structured,
                json!({"command": "set -e\ngit status\nls"})
            ),
            json!({"commands": ["set -e\ngit status\nls"]})
        );
        // Its form is kept: JSON text, a bare string, `cmd`, Cline's own `command`.
        assert_eq!(
            edit(
                "run_commands",
                json!({"commands": "[\"ls\"]"}),
                json!({"command": "ls -a"})
            ),
            json!({"commands": "[\"ls -a\"]"})
        );
        assert_eq!(
            edit("run_commands", json!("ls"), json!({"command": "ls -a"})),
            json!({"commands": "ls -a"})
        );
        assert_eq!(
            edit(
                "run_commands",
                json!({"cmd": "pwd"}),
                json!({"command": "pwd -P"})
            ),
            json!({"cmd": "pwd -P"})
        );
        assert_eq!(
            edit(
                "run_commands",
                json!({"command": "pwd"}),
                json!({"command": "pwd -P"})
            ),
            json!({"command": "pwd -P"})
        );
        assert_eq!(
            back("run_commands", json!({}), json!({"command": "ls"})),
            json!({"commands": ["ls"]})
        );
        assert_eq!(
            back(
                "run_commands",
                json!({"commands": ["ls"]}),
                json!({"command": ["x"]})
            ),
            json!({"commands": ["ls"], "command": ["x"]})
        );
    }

    #[test]
    fn a_changed_read_lands_in_the_first_file_and_its_lines() {
        let batch = json!({"files": [{"path": "a.ts", "start_line": 10, "end_line": 19}, {"path": "b.ts"}]});
        assert_eq!(
            edit(
                "read_files",
                batch.clone(),
                json!({"file_path": "/home/dev/proj/c.ts"})
            ),
            json!({"files": [{"path": "c.ts", "start_line": 10, "end_line": 19}, {"path": "b.ts"}]})
        );
        assert_eq!(
            edit("read_files", batch.clone(), json!({"offset": 20})),
            json!({"files": [{"path": "a.ts", "start_line": 20, "end_line": 29}, {"path": "b.ts"}]})
        );
        assert_eq!(
            edit("read_files", batch.clone(), json!({"limit": 100})),
            json!({"files": [{"path": "a.ts", "start_line": 10, "end_line": 109}, {"path": "b.ts"}]})
        );
        assert_eq!(
            back(
                "read_files",
                batch.clone(),
                json!({"file_path": "/home/dev/proj/a.ts", "offset": null, "limit": null})
            ),
            json!({"files": [{"path": "a.ts"}, {"path": "b.ts"}]})
        );
        assert_eq!(
            back(
                "read_files",
                json!({"file_paths": ["a.ts", "b.ts"]}),
                json!({"limit": 5})
            ),
            json!({"file_paths": [{"path": "a.ts", "end_line": 5}, "b.ts"]})
        );
        assert_eq!(
            edit(
                "read_files",
                json!({"file_paths": "[\"a.ts\"]"}),
                json!({"file_path": "/x.ts"})
            ),
            json!({"file_paths": "[\"/x.ts\"]"})
        );
        assert_eq!(
            edit(
                "read_files",
                json!({"filePath": "/p/a.ts"}),
                json!({"file_path": "/p/b.ts", "offset": 2, "limit": 2})
            ),
            json!({"filePath": "/p/b.ts", "start_line": 2, "end_line": 3})
        );
        assert_eq!(
            back(
                "read_files",
                json!({}),
                json!({"file_path": "/p/b.ts", "offset": 4})
            ),
            json!({"files": [{"path": "/p/b.ts", "start_line": 4}]})
        );
        // Not a line number: kept under its name, the range left as it was.
        assert_eq!(
            back("read_files", batch, json!({"offset": "soon"})),
            json!({"files": [{"path": "a.ts", "start_line": 10, "end_line": 19}, {"path": "b.ts"}], "offset": "soon"})
        );
        assert_eq!(
            edit("read_file", json!({"path": "a"}), json!({"offset": 3}))["offset"],
            3
        );
    }

    #[test]
    fn a_changed_write_or_edit_lands_in_the_editors_fields() {
        assert_eq!(
            edit(
                "write_to_file",
                json!({"path": "a.ts", "content": "x"}),
                json!({"content": "y"})
            ),
            json!({"path": "a.ts", "content": "y"})
        );
        assert_eq!(
            edit(
                "editor",
                json!({"command": "create", "path": "n.ts", "file_text": "x"}),
                json!({"content": "y", "file_path": "/home/dev/proj/m.ts"})
            ),
            json!({"command": "create", "path": "m.ts", "file_text": "y"})
        );
        assert_eq!(
            edit(
                "editor",
                json!({"command": "str_replace", "path": "/a", "old_str": "x", "new_str": "y"}),
                json!({"old_string": "p", "new_string": "q"})
            ),
            json!({"command": "str_replace", "path": "/a", "old_str": "p", "new_str": "q"})
        );
        assert_eq!(
            edit(
                "editor",
                json!({"path": "/a", "old_text": "x", "new_text": "y"}),
                json!({"old_string": "p", "new_string": "q"})
            ),
            json!({"path": "/a", "old_text": "p", "new_text": "q"})
        );
        assert_eq!(
            edit(
                "editor",
                json!({"path": "/a", "new_text": "whole"}),
                json!({"content": "other"})
            ),
            json!({"path": "/a", "new_text": "other"})
        );
        // Both names of `new_text`: the one of the tool the hook was shown wins.
        assert_eq!(
            back(
                "editor",
                json!({"path": "/a", "new_text": "w"}),
                json!({"content": "c", "new_string": "n"})
            )["new_text"],
            "c"
        );
        assert_eq!(
            back(
                "editor",
                json!({"path": "/a", "old_text": "o", "new_text": "w"}),
                json!({"new_string": "n", "content": "c"})
            )["new_text"],
            "n"
        );
    }

    #[test]
    fn changed_search_list_and_web_fields_land_in_clines_names() {
        assert_eq!(
            edit(
                "search_files",
                json!({"path": "src", "regex": "TODO", "file_pattern": "*.ts"}),
                json!({"pattern": "FIXME", "glob": "*.rs", "path": "/home/dev/proj/lib"})
            ),
            json!({"path": "lib", "regex": "FIXME", "file_pattern": "*.rs"})
        );
        assert_eq!(
            edit(
                "list_files",
                json!({"path": "src", "recursive": "true"}),
                json!({"path": "/tmp"})
            ),
            json!({"path": "/tmp", "recursive": "true"})
        );
        // `**/*` is a recursive listing; a Glob pattern Cline's listing cannot take is kept
        // under its name.
        assert_eq!(
            edit(
                "list_files",
                json!({"path": "src", "recursive": "false"}),
                json!({"pattern": "**/*"})
            ),
            json!({"path": "src", "recursive": "true"})
        );
        assert_eq!(
            back(
                "list_files",
                json!({"path": "src", "recursive": false}),
                json!({"pattern": "**/*"})
            ),
            json!({"path": "src", "recursive": true})
        );
        assert_eq!(
            edit(
                "list_files",
                json!({"path": ".", "recursive": "true"}),
                json!({"pattern": "**/*.ts"})
            ),
            json!({"path": ".", "recursive": "true", "pattern": "**/*.ts"})
        );
        assert_eq!(
            edit(
                "search_codebase",
                json!({"queries": ["a", "b"]}),
                json!({"pattern": "c"})
            ),
            json!({"queries": ["c", "b"]})
        );
        assert_eq!(
            edit(
                "search_codebase",
                json!("needle"),
                json!({"pattern": "pin"})
            ),
            json!({"queries": "pin"})
        );
        assert_eq!(
            back("search_codebase", json!({}), json!({"pattern": "x"})),
            json!({"queries": ["x"]})
        );
        assert_eq!(
            edit(
                "web_fetch",
                json!({"url": "https://a.dev"}),
                json!({"url": "https://b.dev", "prompt": "p"})
            ),
            json!({"url": "https://b.dev", "prompt": "p"})
        );
        assert_eq!(
            edit(
                "fetch_web_content",
                json!({"requests": [{"url": "https://a.dev", "prompt": "p"}, {"url": "https://c.dev"}]}),
                json!({"url": "https://b.dev"})
            ),
            json!({"requests": [{"url": "https://b.dev", "prompt": "p"}, {"url": "https://c.dev"}]})
        );
        assert_eq!(
            edit(
                "fetch_web_content",
                json!({"url": "https://a.dev"}),
                json!({"url": "https://b.dev"})
            ),
            json!({"url": "https://b.dev"})
        );
        assert_eq!(
            back(
                "fetch_web_content",
                json!({}),
                json!({"url": "u", "prompt": "p"})
            ),
            json!({"requests": [{"url": "u", "prompt": "p"}]})
        );
        assert_eq!(
            edit(
                "web_search",
                json!({"query": "q", "allowed_domains": "[\"docs.rs\"]", "blocked_domains": ["x"]}),
                json!({"allowed_domains": ["crates.io"], "blocked_domains": ["y"]})
            ),
            json!({"query": "q", "allowed_domains": "[\"crates.io\"]", "blocked_domains": ["y"]})
        );
    }

    #[test]
    fn changed_mcp_arguments_go_back_as_cline_had_them() {
        let params =
            |args: Value| json!({"server_name": "gh", "tool_name": "list", "arguments": args});
        let got = edit(
            "use_mcp_tool",
            params(json!("{\"n\": 1, \"q\": \"x\"}")),
            json!({"n": 2}),
        );
        assert_eq!(got["server_name"], "gh");
        assert_eq!(got["tool_name"], "list");
        let text = got["arguments"].as_str().unwrap_or("");
        assert_eq!(
            serde_json::from_str::<Value>(text).ok(),
            Some(json!({"n": 2, "q": "x"}))
        );
        // Fields the hook left out keep their values: `{"n": 2}` alone is enough.
        let got = back(
            "use_mcp_tool",
            params(json!("{\"n\": 1, \"q\": \"x\"}")),
            json!({"n": 2}),
        );
        let text = got["arguments"].as_str().unwrap_or("");
        assert_eq!(
            serde_json::from_str::<Value>(text).ok(),
            Some(json!({"n": 2, "q": "x"}))
        );
        assert_eq!(
            back("use_mcp_tool", params(json!({"n": 1})), json!({"m": [1]}))["arguments"],
            json!({"n": 1, "m": [1]})
        );
        assert_eq!(
            back(
                "use_mcp_tool",
                params(json!("{bad")),
                json!({"arguments": "{\"ok\":1}"})
            )["arguments"],
            "{\"ok\":1}"
        );
        assert_eq!(
            back("use_mcp_tool", params(json!(7)), json!({"arguments": 8}))["arguments"],
            8
        );
        assert_eq!(
            back("use_mcp_tool", params(json!("{bad")), json!({"x": 1}))["arguments"],
            "{\"arguments\":\"{bad\",\"x\":1}"
        );
        let missing = json!({"server_name": "gh", "tool_name": "list"});
        assert_eq!(
            back("use_mcp_tool", missing.clone(), json!({"a": 1}))["arguments"],
            json!({"a": 1})
        );
        let legacy = cline_tool_parameters(
            "use_mcp_tool",
            &missing,
            true,
            Path::new(PROJECT),
            &map(json!({"a": 1})),
        );
        assert_eq!(legacy["arguments"], "{\"a\":1}");
    }

    #[test]
    fn other_tools_and_unknown_fields_keep_their_names() {
        assert_eq!(
            edit(
                "skills",
                json!({"skill": "commit", "args": null}),
                json!({"args": "-m x", "new": 1})
            ),
            json!({"skill": "commit", "args": "-m x", "new": 1})
        );
        assert_eq!(back("", json!(null), json!({"a": 1})), json!({"a": 1}));
        // A field the hook did not name keeps its value.
        assert_eq!(
            back(
                "write_to_file",
                json!({"path": "a", "content": "x"}),
                json!({"content": "y"})
            ),
            json!({"path": "a", "content": "y"})
        );
    }

    #[test]
    fn the_hooks_own_input_picks_the_call_as_claude_input_does() {
        let updated = map(json!({"file_path": "/home/dev/proj/b.ts"}));
        let input = json!({
            "tool_call": {"id": "c", "name": "read_files", "input": {"files": [{"path": "a.ts"}]}},
            "preToolUse": {"toolName": "read_file", "parameters": {"path": "x.ts"}}
        });
        let dir = Path::new(PROJECT);
        let cline_tool_input =
            |hook: &str, input: &Value, profile, dir, updated: &Map<String, Value>| {
                cline_tool_input_in(hook, input, profile, dir, updated, false)
            };
        assert_eq!(
            Value::Object(cline_tool_input(
                "tool_call",
                &input,
                Profile::Cli,
                dir,
                &updated
            )),
            json!({"files": [{"path": "b.ts"}]})
        );
        assert_eq!(
            Value::Object(cline_tool_input(
                "PreToolUse",
                &input,
                Profile::Extension,
                dir,
                &updated
            )),
            json!({"path": "b.ts"})
        );
        // No tool call to put it back into: the answer as it is.
        for hook in ["UserPromptSubmit", "TaskStart", "TaskError", "nope", ""] {
            assert_eq!(
                cline_tool_input(hook, &input, Profile::Cli, dir, &updated),
                updated
            );
        }
        assert_eq!(
            cline_tool_input("PreToolUse", &json!({}), Profile::Cli, dir, &updated),
            updated
        );
    }

    #[test]
    fn arbitrary_answers_never_panic_and_land_where_they_should() {
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
            "",
        ];
        const CLAUDE_KEYS: [&str; 12] = [
            "file_path",
            "old_string",
            "new_string",
            "content",
            "command",
            "pattern",
            "path",
            "glob",
            "offset",
            "limit",
            "url",
            "prompt",
        ];
        let mut garbage = Garbage(0xfeed);
        for round in 0..3000_usize {
            let tool = tools[round % tools.len()];
            let params = if round.is_multiple_of(3) {
                garbage.value(4)
            } else {
                match garbage.value(1) {
                    Value::Object(mut m) => {
                        for key in CLAUDE_KEYS
                            .iter()
                            .chain(["diff", "commands", "files", "arguments"].iter())
                        {
                            if garbage.next().is_multiple_of(4) {
                                m.insert((*key).into(), garbage.value(2));
                            }
                        }
                        Value::Object(m)
                    }
                    other => other,
                }
            };
            let dir = ["/p", "C:\\p", "", "rel", "\\\\s\\h", "C:/p"][round % 6];
            let dir = Folder::of(dir, round % 7 < 4);
            // Echoed: the original, in object form.
            let shown = match tool_input_in(tool, &params, dir) {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            let got = restore(tool, &params, round.is_multiple_of(2), dir, &shown, true);
            assert_eq!(got, object_form(tool, &params), "{tool} {params}");
            // Anything: no panic, and a field with no Claude meaning lands under its name.
            let mut updated = Map::new();
            for _ in 0..garbage.next() % 5 {
                let key = CLAUDE_KEYS[(garbage.next() % CLAUDE_KEYS.len() as u64) as usize];
                updated.insert(key.into(), garbage.value(2));
            }
            updated.insert("zz_unknown".into(), json!(round));
            let got = restore(tool, &params, false, dir, &updated, true);
            if tool != "use_mcp_tool" {
                assert_eq!(got["zz_unknown"], json!(round), "{tool}");
            }
            let _ = restore(tool, &params, true, dir, &updated, false);
        }
        // Huge texts.
        let huge = "é\n".repeat(100_000);
        let diff = format!("------- SEARCH\n{huge}=======\n{huge}+++++++ REPLACE");
        let got = back(
            "replace_in_file",
            json!({"path": "a", "diff": diff}),
            json!({"new_string": huge}),
        );
        assert!(got["diff"].as_str().is_some_and(|d| d.len() > 400_000));
        let _ = back(
            "run_commands",
            json!({"commands": vec!["ls"; 10_000]}),
            json!({"command": "x\n".repeat(10_000)}),
        );
    }
}
