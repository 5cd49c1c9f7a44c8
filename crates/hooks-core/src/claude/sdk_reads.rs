//! Which of a Cline CLI tool call's parameters the Cline SDK actually acts on, so that what a
//! Claude hook is shown (`tools.rs`) and where its `updatedInput` goes back
//! (`updated_input.rs`) are what runs. The SDK (`@cline/core` 0.0.86) parses a call's input
//! with a zod union that takes the FIRST schema that fits and strips every other key; a
//! mapping that read another field first would let a decoy field (`command: "ls"` beside
//! `commands: ["rm -rf /"]`) hide what runs. The rules below follow those unions' order. Pure.

use serde_json::{Map, Value};

use super::lists::{as_list, json_list};

/// Where `run_commands` takes its commands from (`aZ` over the union `iU`): `commands` when it
/// is a command, a command list or one `{command, args}`; else a top-level `command`
/// (with `args` when they are a list of strings and `command` is not empty); else `cmd`.
/// `None`: no schema fits, the SDK refuses the call and runs nothing.
pub(super) fn run_commands_source(params: &Map<String, Value>) -> Option<&'static str> {
    if params.get("commands").is_some_and(commands_valid) {
        return Some("commands");
    }
    if params.get("command").is_some_and(Value::is_string) {
        return Some("command");
    }
    if params.get("cmd").is_some_and(Value::is_string) {
        return Some("cmd");
    }
    None
}

/// The value of `commands` that one of `iU`'s schemas takes: a string, a `{command, args}`,
/// or a list of either. A list given as its JSON text (the SDK's older `parameters`) counts
/// as the list.
fn commands_valid(value: &Value) -> bool {
    match value {
        Value::String(_) => true,
        Value::Object(_) => argv_valid(value),
        Value::Array(items) => items
            .iter()
            .all(|item| item.is_string() || argv_valid(item)),
        _ => false,
    }
}

/// A `{command, args}` entry as the SDK's schema `m4` takes it: a non-empty `command`, and
/// `args` (when given) a list of strings. Other keys are stripped, and do not matter.
pub(super) fn argv_valid(entry: &Value) -> bool {
    let command = entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty());
    command && entry.get("args").is_none_or(args_valid)
}

/// `args` as `m4` takes them: an array of strings (`null` is no array: zod's `optional`).
pub(super) fn args_valid(args: &Value) -> bool {
    args.as_array()
        .is_some_and(|items| items.iter().all(Value::is_string))
}

/// Where `read_files` takes its files from (the union `dU` and the code after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReadSource {
    /// A list (or one entry) under this key.
    Batch(&'static str),
    /// One request at the top level: `path`, `file_path` or `filePath`.
    Top,
}

/// `read_files`' source, in `dU`'s order: `files` when it is a list of `{path, ...}` objects
/// (`hZ`); then a request at the top level; then `files` in any other form, `file_paths`,
/// `paths`. `None`: nothing fits, the SDK refuses the call.
pub(super) fn read_files_source(params: &Map<String, Value>) -> Option<ReadSource> {
    let files = params.get("files");
    let strict = files.and_then(list_items).is_some_and(|items| {
        items
            .iter()
            .all(|item| item.get("path").is_some_and(Value::is_string) && lines_valid(item))
    });
    if strict {
        return Some(ReadSource::Batch("files"));
    }
    if request_valid(&Value::Object(params.clone())) {
        return Some(ReadSource::Top);
    }
    let loose = |item: &Value| item.is_string() || request_valid(item);
    if files.is_some_and(|v| v.is_string() || request_valid(v))
        || files
            .and_then(list_items)
            .is_some_and(|i| i.iter().all(loose))
    {
        return Some(ReadSource::Batch("files"));
    }
    let file_paths = params.get("file_paths");
    if file_paths.is_some_and(Value::is_string)
        || file_paths
            .and_then(list_items)
            .is_some_and(|i| i.iter().all(Value::is_string))
    {
        return Some(ReadSource::Batch("file_paths"));
    }
    let paths = params.get("paths");
    if paths.is_some_and(|v| v.is_string() || request_valid(v))
        || paths
            .and_then(list_items)
            .is_some_and(|i| i.iter().all(loose))
    {
        return Some(ReadSource::Batch("paths"));
    }
    None
}

/// A list parameter's items: an array's, or a JSON array's text's (the older `parameters`).
fn list_items(value: &Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(_) => Some(as_list(value)),
        Value::String(_) => json_list(value),
        _ => None,
    }
}

/// One request object as `X8` takes it: `path`, `file_path` or `filePath` a string, and its
/// line bounds valid.
fn request_valid(item: &Value) -> bool {
    item.is_object()
        && ["path", "file_path", "filePath"]
            .iter()
            .any(|key| item.get(*key).is_some_and(Value::is_string))
        && lines_valid(item)
}

/// `start_line`/`end_line` as the SDK takes them (`z.coerce.number().int().positive()`,
/// nullable, optional): missing, `null`, or a whole number from 1 (or its text).
fn lines_valid(item: &Value) -> bool {
    ["start_line", "end_line"]
        .iter()
        .all(|key| match item.get(*key) {
            None | Some(Value::Null) | Some(Value::Bool(true)) => true,
            Some(Value::Number(n)) => n.as_f64().is_some_and(whole_positive),
            Some(Value::String(s)) => s.trim().parse::<f64>().is_ok_and(whole_positive),
            Some(_) => false,
        })
}

fn whole_positive(n: f64) -> bool {
    n >= 1.0 && n.fract() == 0.0 && n.is_finite()
}

/// Whether `fetch_web_content` has requests to fetch: the SDK (`mZ`) reads only `requests`,
/// so a top-level `url`/`prompt` beside them is never fetched.
pub(super) fn has_requests(params: &Map<String, Value>) -> bool {
    params
        .get("requests")
        .map(as_list)
        .is_some_and(|items| items.iter().any(Value::is_object))
}

/// Whether `search_codebase` searches its `queries` (`pU`); a top-level `query` is read only
/// when there is no `queries` at all (the SDK refuses such a call, so it runs nothing).
pub(super) fn has_queries(params: &Map<String, Value>) -> bool {
    params.contains_key("queries")
}

/// Whether an `editor` call is in the SDK's own input (`cZ`: `path`, `old_text`, `new_text`,
/// `insert_line`): with a string `new_text`, the older `command`/`old_str`/`new_str`/
/// `file_text` are stripped unread, whatever they say.
pub(super) fn editor_newer(params: &Value) -> bool {
    params.get("new_text").is_some_and(Value::is_string)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::claude::lists::object as map;

    #[test]
    fn run_commands_reads_commands_then_command_then_cmd() {
        let source = |v: Value| run_commands_source(&map(v));
        assert_eq!(
            source(json!({"commands": ["rm -rf /"], "command": "ls"})),
            Some("commands")
        );
        assert_eq!(
            source(json!({"commands": "rm -rf /", "cmd": "ls"})),
            Some("commands")
        );
        assert_eq!(
            source(json!({"command": "rm -rf /", "cmd": "ls"})),
            Some("command")
        );
        assert_eq!(
            source(json!({"commands": {"command": "rm", "args": ["-rf", "/"]}, "command": "ls"})),
            Some("commands")
        );
        assert_eq!(source(json!({"commands": []})), Some("commands"));
        // A `commands` no schema takes is stripped: the next field runs.
        assert_eq!(
            source(json!({"commands": [1], "command": "ls"})),
            Some("command")
        );
        assert_eq!(
            source(json!({"commands": [{"command": ""}], "cmd": "ls"})),
            Some("cmd")
        );
        assert_eq!(
            source(json!({"commands": [{"command": "a", "args": null}]})),
            None
        );
        assert_eq!(source(json!({"cmd": 3})), None);
        assert_eq!(source(json!({})), None);
    }

    #[test]
    fn read_files_reads_a_files_list_then_the_top_level_then_the_rest() {
        let source = |v: Value| read_files_source(&map(v));
        let files = Some(ReadSource::Batch("files"));
        assert_eq!(
            source(json!({"files": [{"path": "a.txt"}], "path": ".env"})),
            files
        );
        // `files` as strings is a later schema than the top-level request.
        assert_eq!(
            source(json!({"files": ["a.txt"], "path": ".env"})),
            Some(ReadSource::Top)
        );
        assert_eq!(
            source(json!({"file_paths": ["a.txt"], "filePath": ".env"})),
            Some(ReadSource::Top)
        );
        assert_eq!(
            source(json!({"files": [{"path": "a", "start_line": 0}], "file_path": ".env"})),
            Some(ReadSource::Top)
        );
        assert_eq!(source(json!({"files": ["a"], "file_paths": ["b"]})), files);
        assert_eq!(
            source(json!({"files": [3], "file_paths": ["b"]})),
            Some(ReadSource::Batch("file_paths"))
        );
        assert_eq!(
            source(json!({"paths": [{"file_path": "b", "end_line": "4"}]})),
            Some(ReadSource::Batch("paths"))
        );
        assert_eq!(source(json!({"files": "[{\"path\":\"q\"}]"})), files);
        assert_eq!(source(json!({"files": [{"nope": 1}]})), None);
        assert_eq!(source(json!({"path": 1})), None);
    }

    #[test]
    fn fetch_search_and_editor_read_their_own_fields() {
        assert!(has_requests(&map(
            json!({"requests": [{"url": "u"}], "url": "v"})
        )));
        assert!(!has_requests(&map(json!({"url": "v"}))));
        assert!(has_queries(&map(json!({"queries": 5, "query": "x"}))));
        assert!(editor_newer(
            &json!({"command": "create", "file_text": "a", "new_text": "b"})
        ));
        assert!(!editor_newer(
            &json!({"command": "create", "file_text": "a"})
        ));
    }
}
