//! Cline's tools in Claude Code's words: which Claude tool a Cline tool is
//! (`claude_tool_name`), and the `tool_input` a Claude hook is shown for the Cline tool's
//! parameters (`claude_tool_input`): Claude's field names first, every other parameter kept.
//! `updated_input.rs` puts a hook's answer back into Cline's parameters. Pure: no file is
//! read, no process run.
//!
//! Where Claude's contract and Cline's disagree, the choice made here is the one in
//! `docs/claude-code-mapping.md`; the comments below say why, briefly.

use std::path::Path;

use serde_json::{Map, Value};

use super::lists::{as_list, json_list};
use super::paths::{absolutize, Folder};
use super::sdk_reads::{
    args_valid, editor_newer, has_queries, has_requests, read_files_source, run_commands_source,
    ReadSource,
};
use super::search_replace::first_block;

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

/// A missing value (no parameters, no input), for borrowing where a `&Value` is needed.
pub(super) static NULL: Value = Value::Null;

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
pub(super) fn truthy(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// What the Cline CLI's `editor` call does, in Claude's words. Its older input has
/// `command` (`create`, `str_replace`, `insert`); its newer one `old_text`/`new_text`/
/// `insert_line`, where neither `old_text` nor `insert_line` means "create the file". The
/// SDK reads only the newer one: with a `new_text`, `command` is not looked at.
pub(super) fn editor_tool(params: &Value) -> &'static str {
    let set = |key: &str| params.get(key).is_some_and(|v| !v.is_null());
    let command = params
        .get("command")
        .and_then(Value::as_str)
        .filter(|_| !editor_newer(params));
    match command {
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
/// on this system (see `resolve` in `paths.rs`).
pub fn claude_tool_input(cline_tool: &str, parameters: &Value, project_dir: &Path) -> Value {
    let dir = project_dir.to_string_lossy();
    tool_input_in(cline_tool, parameters, Folder::of(&dir, cfg!(windows)))
}

/// `claude_tool_input` with the path rules of `base` (Windows' or POSIX's), so that both are
/// tested on every system.
pub(super) fn tool_input_in(cline_tool: &str, parameters: &Value, base: Folder<'_>) -> Value {
    if cline_tool == "use_mcp_tool" {
        return mcp_input(parameters);
    }
    let mut rest = object_form(cline_tool, parameters);
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
            // The SDK searches `queries` only: a `query` beside it is never run.
            let keys: &[&str] = if has_queries(&rest) {
                &["queries"]
            } else {
                &["query"]
            };
            let first = keys
                .iter()
                .filter_map(|key| rest.get(*key))
                .flat_map(as_list)
                .find_map(|q| q.as_str().map(str::to_owned));
            if let Some(pattern) = first {
                claude.insert("pattern".into(), pattern.into());
            }
        }
        "fetch_web_content" => {
            // The SDK fetches `requests` only: a top-level `url` beside them is never
            // fetched, and must not stand where the hook looks (Claude's fields win).
            let first = rest.get("requests").map(as_list).unwrap_or_default();
            if let Some(request) = first.into_iter().find(Value::is_object) {
                for key in ["url", "prompt"] {
                    match request.get(key).filter(|v| v.is_string()) {
                        Some(v) => {
                            claude.insert(key.into(), v.clone());
                        }
                        None => {
                            // Nothing of the decoy under Claude's name.
                            if has_requests(&rest) && rest.contains_key(key) {
                                claude.insert(key.into(), Value::Null);
                            }
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

/// `run_commands` as one `Bash` command: the commands the SDK runs (`run_commands_source`:
/// `commands`, else `command`, else `cmd`) on separate lines, as a script runs them, so a
/// hook looking for `rm -rf` sees every one; Claude's `command` hides a decoy `command` that
/// does not run. Cline's fields stay as they were.
fn run_commands(claude: &mut Map<String, Value>, rest: &mut Map<String, Value>) {
    if let Some(line) = run_commands_line(rest) {
        claude.insert("command".into(), line.into());
    }
}

/// The shell lines `run_commands` runs, one per command, as the hook is shown them. When no
/// field fits the SDK (it refuses the call, nothing runs) the lines of `commands` or `cmd`
/// as best read, for a hook to judge all the same. `None` when there is no line and no
/// decoy to hide.
pub(super) fn run_commands_line(params: &Map<String, Value>) -> Option<String> {
    let source = run_commands_source(params).unwrap_or(if params.contains_key("commands") {
        "commands"
    } else {
        "cmd"
    });
    let value = params.get(source)?;
    let lines: Vec<String> = match source {
        // A top-level `{command, args}` runs as one argv; `args` that are no list of
        // strings are stripped, and the command runs alone.
        "command" => {
            let argv = params.get("args").is_some_and(args_valid)
                && value.as_str().is_some_and(|c| !c.is_empty());
            let mut entry = Map::new();
            entry.insert("command".into(), value.clone());
            if argv {
                if let Some(args) = params.get("args") {
                    entry.insert("args".into(), args.clone());
                }
            }
            command_line(&Value::Object(entry)).into_iter().collect()
        }
        _ => as_list(value).iter().filter_map(command_line).collect(),
    };
    // No command runs: an empty `command` still hides a decoy one beside it.
    let decoy = source != "command" && params.contains_key("command");
    if lines.is_empty() && !decoy {
        return None;
    }
    Some(lines.join("\n"))
}

/// One `run_commands` entry as a shell line: a string as it is, `{command, args}` with its
/// arguments quoted where the shell would split or expand them.
pub(super) fn command_line(entry: &Value) -> Option<String> {
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
    // Where the SDK reads its files, so a decoy field never stands for them.
    let batch = match read_files_source(rest) {
        Some(ReadSource::Batch(key)) => rest
            .get(key)
            .map(as_list)
            .unwrap_or_default()
            .iter()
            .find_map(read_request),
        Some(ReadSource::Top) | None => None,
    };
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
pub(super) fn read_request(entry: &Value) -> Option<(String, Option<u64>, Option<u64>)> {
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
    // The older field names only when the SDK's own (`new_text`) are absent.
    let command = rest
        .get("command")
        .and_then(Value::as_str)
        .filter(|_| !editor_newer(&Value::Object(rest.clone())))
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

/// `parameters` as an object: a bare string or list (the Cline CLI takes one for some tools)
/// under the key its object form has it at, `null` as no parameter.
pub(super) fn object_form(tool: &str, parameters: &Value) -> Map<String, Value> {
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

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::claude::paths::fixtures::POSIX;

    fn tool_input(tool: &str, params: Value) -> Value {
        tool_input_in(tool, &params, POSIX)
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
    fn a_decoy_field_never_hides_what_the_sdk_runs() {
        // run_commands: `commands` wins over `command`, which wins over `cmd`.
        let bash = |params: Value| tool_input("run_commands", params)["command"].clone();
        assert_eq!(
            bash(json!({"commands": ["rm -rf /"], "command": "ls"})),
            "rm -rf /"
        );
        assert_eq!(
            bash(json!({"command": "rm -rf /", "cmd": "ls"})),
            "rm -rf /"
        );
        assert_eq!(
            bash(json!({"commands": "rm -rf /", "cmd": "ls"})),
            "rm -rf /"
        );
        assert_eq!(
            bash(json!({"commands": [{"command": "rm", "args": ["-rf", "/"]}], "command": "ls"})),
            "rm -rf /"
        );
        // A top-level `{command, args}` runs with its arguments.
        assert_eq!(
            bash(json!({"command": "rm", "args": ["-rf", "/"]})),
            "rm -rf /"
        );
        assert_eq!(bash(json!({"command": "rm", "args": "-rf /"})), "rm");
        // A `commands` the SDK cannot take is stripped: `command` runs.
        assert_eq!(bash(json!({"commands": [7], "command": "ls"})), "ls");
        // Nothing runs: the decoy is not shown as the command.
        assert_eq!(bash(json!({"commands": [], "command": "rm -rf /"})), "");
        // fetch_web_content fetches `requests` only.
        let fetch = tool_input(
            "fetch_web_content",
            json!({"requests": [{"url": "https://evil.dev", "prompt": "p"}], "url": "https://safe.dev", "prompt": "q"}),
        );
        assert_eq!(fetch["url"], "https://evil.dev");
        assert_eq!(fetch["prompt"], "p");
        let fetch = tool_input(
            "fetch_web_content",
            json!({"requests": [{"url": "https://evil.dev"}], "prompt": "q"}),
        );
        assert_eq!(fetch["prompt"], Value::Null);
        // read_files: a files list of requests wins over a top-level path, which wins over
        // the other lists.
        let read = |params: Value| tool_input("read_files", params)["file_path"].clone();
        assert_eq!(
            read(json!({"files": [{"path": ".env"}], "path": "a.txt"})),
            "/home/dev/proj/.env"
        );
        assert_eq!(
            read(json!({"file_paths": ["a.txt"], "path": ".env"})),
            "/home/dev/proj/.env"
        );
        assert_eq!(
            read(json!({"files": ["a.txt"], "filePath": ".env"})),
            "/home/dev/proj/.env"
        );
        assert_eq!(
            read(json!({"files": [3], "file_paths": [".env"]})),
            "/home/dev/proj/.env"
        );
        // search_codebase searches `queries` only.
        assert_eq!(
            tool_input(
                "search_codebase",
                json!({"queries": ["secret"], "query": "x"})
            )["pattern"],
            "secret"
        );
        assert_eq!(
            tool_input("search_codebase", json!({"queries": 5, "query": "x"})).get("pattern"),
            None
        );
        // editor: with `new_text`, the SDK's own fields, whatever `command` says.
        let edit = tool_input(
            "editor",
            json!({"command": "view", "path": "a", "old_str": "x", "new_str": "y", "old_text": "p", "new_text": "q"}),
        );
        assert_eq!(edit["old_string"], "p");
        assert_eq!(edit["new_string"], "q");
        assert_eq!(
            claude_tool_name("editor", Some(&json!({"command": "view", "new_text": "q"}))),
            "Write"
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
}
