//! Claude's `updatedInput` back into Cline's parameters: a PreToolUse hook's new tool input,
//! in Claude's field names, put into the Cline tool's own parameters (`cline_tool_input`,
//! `cline_tool_parameters`), the exact inverse of `claude_tool_input` (`tools.rs`). Pure: no
//! file is read, no process run.
//!
//! Where Claude's contract and Cline's disagree, the choice made here is the one in
//! `docs/claude-code-mapping.md`; the comments below say why, briefly.

use std::path::Path;

use serde_json::{Map, Value};

use super::events::{claude_event_of, hook_of, tool_call};
use super::lists::{as_list, json_list};
use super::paths::{path_back, Folder};
use super::sdk_reads::{
    editor_newer, has_queries, has_requests, read_files_source, run_commands_source, ReadSource,
};
use super::search_replace::{block_lines, block_span};
use super::tools::{
    command_line, editor_tool, object_form, read_request, run_commands_line, tool_input_in, truthy,
};
use crate::discovery::Profile;

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

/// `cline_tool_input` with Windows' path rules or POSIX's (see `resolve` in `paths.rs`).
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
                // The older names only where the forward mapping read them.
                let command = original.get("command").is_some_and(Value::is_string)
                    && !editor_newer(&Value::Object(original.clone()));
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
        // Claude's `command` is always what runs (`run_commands_source`), even where Cline's
        // own `command` is that field.
        "run_commands" => vec!["command"],
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
        // Into the first request when there are requests (all the SDK fetches), whatever
        // stands at the top level.
        "fetch_web_content" if has_requests(original) => vec!["url", "prompt"],
        "fetch_web_content" => ["url", "prompt"]
            .into_iter()
            .filter(|key| !original.contains_key(*key))
            .collect(),
        "web_search" => vec!["allowed_domains", "blocked_domains"],
        _ => Vec::new(),
    }
}

/// Writes `items` back to `out[key]` in the form `original` had: JSON text when it was a JSON
/// array's text (the older `parameters`), the one item when it was a single value and one
/// item is left, an array otherwise.
pub(super) fn put_list(
    out: &mut Map<String, Value>,
    key: &str,
    original: Option<&Value>,
    items: Vec<Value>,
) {
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

/// Claude's Bash `command` back into the field `run_commands` runs (`run_commands_source`:
/// `commands`, else a top-level `command`, else `cmd`; `commands` when none is there). The
/// forward mapping wrote one line per command; when the new command has as many lines as
/// there were commands, line i is command i again (an unchanged line keeps its entry, a
/// structured `{command, args}` one too; a changed line becomes a string). With another
/// number of lines (a hook added or removed one, or wrote a multi-line script) the whole text
/// is one command, run as the one script Claude's Bash would have run. A changed top-level
/// `command` becomes that shell line, its `args` dropped.
fn commands_back(out: &mut Map<String, Value>, value: &Value) -> bool {
    let Some(text) = value.as_str() else {
        return false;
    };
    let key = match run_commands_source(out) {
        Some("command") => {
            if run_commands_line(out).as_deref() != Some(text) {
                out.insert("command".into(), text.into());
                out.shift_remove("args");
            }
            return true;
        }
        Some("cmd") => "cmd",
        Some(_) => "commands",
        // Nothing the SDK takes: where the forward mapping read its best guess.
        None if out.contains_key("commands") || !out.contains_key("cmd") => "commands",
        None => "cmd",
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
    // Where the SDK reads (and the forward mapping looked): the batch, or the top level.
    let batch = match read_files_source(out) {
        Some(ReadSource::Batch(key)) => Some(key),
        Some(ReadSource::Top) | None => None,
    };
    let found = batch.and_then(|key| {
        let original = out.get(key).cloned()?;
        let items = as_list(&original);
        let i = items.iter().position(|item| read_request(item).is_some())?;
        Some((key, original, items, i))
    });
    if let Some((key, original, mut items, i)) = found {
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
    // Where the forward mapping read it: `queries` whenever there is one.
    let keys: &[&str] = if has_queries(out) {
        &["queries"]
    } else {
        &["query"]
    };
    for &key in keys {
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
    use crate::claude::events::claude_input_in;
    use crate::claude::lists::object as map;
    use crate::claude::paths::absolutize;
    use crate::claude::paths::fixtures::{Garbage, ATTACK, POSIX, PROJECT, WIN};
    use crate::claude::search_replace::first_block;

    fn tool_input(tool: &str, params: Value) -> Value {
        tool_input_in(tool, &params, POSIX)
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
            // Decoys: a field the SDK does not run beside the one it does.
            (
                "run_commands",
                json!({"commands": ["rm -rf /"], "command": "ls"}),
            ),
            ("run_commands", json!({"command": "rm -rf /", "cmd": "ls"})),
            ("run_commands", json!({"commands": "rm -rf /", "cmd": "ls"})),
            (
                "run_commands",
                json!({"command": "rm", "args": ["-rf", "/"], "cmd": "ls"}),
            ),
            (
                "read_files",
                json!({"file_paths": ["a.txt"], "path": ".env"}),
            ),
            (
                "read_files",
                json!({"files": [{"path": ".env"}], "path": "a.txt"}),
            ),
            (
                "fetch_web_content",
                json!({"requests": [{"url": "https://evil.dev", "prompt": "p"}], "url": "https://safe.dev"}),
            ),
            (
                "search_codebase",
                json!({"queries": ["secret"], "query": "harmless"}),
            ),
            (
                "editor",
                json!({"command": "view", "path": "a.ts", "old_str": "x", "new_str": "y", "old_text": "p", "new_text": "q"}),
            ),
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
    fn a_changed_command_lands_in_the_field_the_sdk_runs() {
        let cases = [
            (
                json!({"commands": ["rm -rf /"], "command": "ls"}),
                json!({"commands": ["echo safe"], "command": "ls"}),
            ),
            (
                json!({"command": "rm -rf /", "cmd": "ls"}),
                json!({"command": "echo safe", "cmd": "ls"}),
            ),
            (
                json!({"commands": "rm -rf /", "cmd": "ls"}),
                json!({"commands": "echo safe", "cmd": "ls"}),
            ),
            // A changed `{command, args}` is the new shell line, its argv gone.
            (
                json!({"command": "rm", "args": ["-rf", "/"], "cmd": "ls"}),
                json!({"command": "echo safe", "cmd": "ls"}),
            ),
        ];
        for (params, want) in cases {
            let got = edit(
                "run_commands",
                params.clone(),
                json!({"command": "echo safe"}),
            );
            assert_eq!(got, want, "{params}");
            // What runs now is what the hook wrote.
            assert_eq!(tool_input("run_commands", got)["command"], "echo safe");
        }
        // An unchanged `{command, args}` keeps its argv.
        let argv = json!({"command": "git", "args": ["log", "-1"]});
        assert_eq!(
            tool_input("run_commands", argv.clone())["command"],
            "git log -1"
        );
        assert_eq!(
            edit(
                "run_commands",
                argv.clone(),
                json!({"command": "git log -1"})
            ),
            argv
        );
    }

    #[test]
    fn a_changed_decoyed_read_fetch_search_or_edit_lands_where_the_sdk_reads() {
        let got = edit(
            "read_files",
            json!({"file_paths": ["a.txt"], "path": ".env"}),
            json!({"file_path": "/home/dev/proj/b.txt"}),
        );
        assert_eq!(got, json!({"file_paths": ["a.txt"], "path": "b.txt"}));
        let got = edit(
            "fetch_web_content",
            json!({"requests": [{"url": "https://evil.dev", "prompt": "p"}], "url": "https://safe.dev"}),
            json!({"url": "https://ok.dev"}),
        );
        assert_eq!(
            got,
            json!({"requests": [{"url": "https://ok.dev", "prompt": "p"}], "url": "https://safe.dev"})
        );
        let got = edit(
            "search_codebase",
            json!({"queries": 5, "query": "harmless"}),
            json!({"pattern": "x"}),
        );
        assert_eq!(got["queries"], json!(["x"]));
        let got = edit(
            "editor",
            json!({"command": "str_replace", "path": "/a", "old_str": "x", "new_str": "y", "old_text": "p", "new_text": "q"}),
            json!({"new_string": "r"}),
        );
        assert_eq!(got["new_text"], "r");
        assert_eq!(got["new_str"], "y");
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
