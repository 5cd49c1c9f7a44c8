//! Batches one Claude run at a time: the Cline CLI's `read_files`, `fetch_web_content` and
//! `search_codebase` take a list, Claude's Read, WebFetch and Grep one file, URL or pattern.
//! A Claude handler shown only the first item would let `[a.txt, .env]` past a `.env` guard,
//! so it runs once per item (`batch_items`: each run's input is the call with that item
//! alone), and the items' `updatedInput`s are put back each into its own item
//! (`merge_item_inputs`). Pure: the runner runs the items.

use serde_json::{Map, Value};

use super::events::{claude_event_of, hook_of, tool_call};
use super::lists::as_list;
use super::sdk_reads::{has_queries, read_files_source, ReadSource};
use super::tools::object_form;
use super::updated_input::put_list;
use crate::discovery::Profile;

/// The most items a handler is run for one by one; a longer batch fails closed (see
/// `Batch::TooMany`).
pub const BATCH_ITEM_LIMIT: usize = 64;

/// One item's run of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchItem {
    /// Says which item, for the run's record: `item 2 of 3 of read_files' files: .env`.
    pub label: String,
    /// The whole hook input, the tool call's list holding this item alone.
    pub input: Value,
    /// Its place in the list.
    pub index: usize,
}

/// How a Claude handler runs for one hook input.
#[derive(Debug, Clone, PartialEq)]
pub enum Batch {
    /// Once, as for any call: no batch, or a batch of one item.
    One,
    /// Once per item, in item order.
    Items {
        /// The list's key in the tool's parameters.
        key: &'static str,
        /// Each item's run.
        items: Vec<BatchItem>,
    },
    /// More items than `BATCH_ITEM_LIMIT`.
    TooMany {
        /// The Cline tool.
        tool: String,
        /// How many items it holds.
        count: usize,
    },
}

/// Whether the Claude handler of `hook_name` runs once per item for `input` (the completed
/// Cline input of `profile`), and each item's input.
pub fn batch_items(hook_name: &str, input: &Value, profile: Profile) -> Batch {
    let post = match claude_event_of(hook_of(hook_name)) {
        Some("PreToolUse") => false,
        Some("PostToolUse") => true,
        _ => return Batch::One,
    };
    let call = tool_call(input, profile, post);
    let params = object_form(&call.name, call.params);
    let Some(key) = batch_key(&call.name, &params) else {
        return Batch::One;
    };
    let list = params.get(key).map(as_list).unwrap_or_default();
    if list.len() < 2 {
        return Batch::One;
    }
    if list.len() > BATCH_ITEM_LIMIT {
        return Batch::TooMany {
            tool: call.name.clone(),
            count: list.len(),
        };
    }
    let params_key = if call.sdk { "input" } else { "parameters" };
    let source_key = match (post, call.sdk) {
        (false, true) => "tool_call",
        (true, true) => "tool_result",
        (false, false) => "preToolUse",
        (true, false) => "postToolUse",
    };
    let count = list.len();
    let items = list
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let mut one = params.clone();
            put_list(&mut one, key, params.get(key), vec![item.clone()]);
            let mut whole = input.clone();
            if let Some(source) = whole.get_mut(source_key).and_then(Value::as_object_mut) {
                source.insert(params_key.into(), Value::Object(one));
            }
            BatchItem {
                label: format!(
                    "item {} of {count} of {}' {key}: {}",
                    index + 1,
                    call.name,
                    item_text(item)
                ),
                input: whole,
                index,
            }
        })
        .collect();
    Batch::Items { key, items }
}

/// The tool call's parameters in `input` (the completed Cline input of the hook `hook_name`),
/// in their object form: what `merge_item_inputs` starts from.
pub fn call_parameters(hook_name: &str, input: &Value, profile: Profile) -> Map<String, Value> {
    let post = claude_event_of(hook_of(hook_name)) == Some("PostToolUse");
    let call = tool_call(input, profile, post);
    object_form(&call.name, call.params)
}

/// The key of the list the SDK runs one by one, for a batch tool.
fn batch_key(tool: &str, params: &Map<String, Value>) -> Option<&'static str> {
    match tool {
        "read_files" => match read_files_source(params) {
            Some(ReadSource::Batch(key)) => Some(key),
            _ => None,
        },
        "fetch_web_content" => Some("requests"),
        "search_codebase" if has_queries(params) => Some("queries"),
        _ => None,
    }
}

/// An item in a few words: its path, URL or query.
fn item_text(item: &Value) -> String {
    let text = match item {
        Value::String(s) => Some(s.clone()),
        _ => ["path", "file_path", "filePath", "url"]
            .iter()
            .find_map(|k| item.get(*k).and_then(Value::as_str).map(str::to_owned)),
    };
    let text = text.unwrap_or_else(|| item.to_string());
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The tool call's parameters with each item run's `updatedInput` (already in Cline's words,
/// for the call holding that item alone: `(index, parameters)`, in item order) put back into
/// its own item, the other items untouched. A field outside the list that two items' runs
/// set differently keeps the first's value, and a warning says which was not applied.
/// `original` is the call's parameters (`object_form`'d by the caller's `key`).
pub fn merge_item_inputs(
    original: &Map<String, Value>,
    key: &str,
    changed: &[(usize, Map<String, Value>)],
) -> (Map<String, Value>, Vec<String>) {
    let list = original.get(key).map(as_list).unwrap_or_default();
    let mut slots: Vec<Vec<Value>> = list.iter().map(|item| vec![item.clone()]).collect();
    let mut out = original.clone();
    let mut set_by: Map<String, Value> = Map::new();
    let mut warnings = Vec::new();
    for (index, params) in changed {
        if let Some(slot) = slots.get_mut(*index) {
            // The item's list, as the hook left it (a hook may make one item two).
            if let Some(items) = params.get(key) {
                *slot = as_list(items);
            }
        }
        for (field, value) in params {
            if field == key || original.get(field) == Some(value) {
                continue;
            }
            match set_by.get(field) {
                Some(first) if first != value => warnings.push(format!(
                    "updatedInput for item {} set `{field}`, already set differently for an earlier item: not applied",
                    index + 1
                )),
                Some(_) => {}
                None => {
                    set_by.insert(field.clone(), value.clone());
                    out.insert(field.clone(), value.clone());
                }
            }
        }
    }
    put_list(&mut out, key, original.get(key), slots.concat());
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_batch_runs_once_per_item_with_that_item_alone() {
        let input = json!({"tool_call": {"id": "c", "name": "read_files", "input": {"files": [{"path": "a.txt"}, {"path": ".env"}], "x": 1}}});
        let Batch::Items { key, items } = batch_items("PreToolUse", &input, Profile::Cli) else {
            panic!("not a batch");
        };
        assert_eq!(key, "files");
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[1].input,
            json!({"tool_call": {"id": "c", "name": "read_files", "input": {"files": [{"path": ".env"}], "x": 1}}})
        );
        assert_eq!(items[1].label, "item 2 of 2 of read_files' files: .env");
        // PostToolUse too, and the other batches.
        let post = json!({"tool_result": {"name": "fetch_web_content", "input": {"requests": [{"url": "u1"}, {"url": "u2"}]}}});
        assert!(matches!(
            batch_items("tool_result", &post, Profile::Cli),
            Batch::Items {
                key: "requests",
                ..
            }
        ));
        let search = json!({"tool_call": {"name": "search_codebase", "input": ["a", "b"]}});
        assert!(matches!(
            batch_items("PreToolUse", &search, Profile::Cli),
            Batch::Items { key: "queries", .. }
        ));
    }

    #[test]
    fn one_item_another_tool_or_event_runs_once_and_too_many_fail_closed() {
        let one = json!({"tool_call": {"name": "read_files", "input": {"files": [{"path": "a"}]}}});
        assert_eq!(batch_items("PreToolUse", &one, Profile::Cli), Batch::One);
        let bash =
            json!({"tool_call": {"name": "run_commands", "input": {"commands": ["a", "b"]}}});
        assert_eq!(batch_items("PreToolUse", &bash, Profile::Cli), Batch::One);
        let many: Vec<Value> = (0..65).map(|i| json!(format!("f{i}"))).collect();
        let big = json!({"tool_call": {"name": "read_files", "input": {"file_paths": many}}});
        assert_eq!(
            batch_items("PreToolUse", &big, Profile::Cli),
            Batch::TooMany {
                tool: "read_files".into(),
                count: 65
            }
        );
        let prompt = json!({"prompt_submit": {"prompt": "x"}});
        assert_eq!(
            batch_items("UserPromptSubmit", &prompt, Profile::Cli),
            Batch::One
        );
    }

    #[test]
    fn each_items_change_lands_in_its_own_item() {
        let original = map(json!({"files": [{"path": "a"}, {"path": "b"}, {"path": "c"}], "t": 1}));
        let (got, warnings) = merge_item_inputs(
            &original,
            "files",
            &[
                (0, map(json!({"files": [{"path": "A"}], "t": 1}))),
                (2, map(json!({"files": [{"path": "C"}], "t": 2}))),
            ],
        );
        assert_eq!(
            Value::Object(got),
            json!({"files": [{"path": "A"}, {"path": "b"}, {"path": "C"}], "t": 2})
        );
        assert!(warnings.is_empty());
        // Two items setting one field differently: the first wins, and it is said.
        let (got, warnings) = merge_item_inputs(
            &original,
            "files",
            &[
                (0, map(json!({"files": [{"path": "a"}], "t": 2}))),
                (1, map(json!({"files": [{"path": "b"}], "t": 3}))),
            ],
        );
        assert_eq!(got["t"], 2);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("item 2"), "{warnings:?}");
        // JSON text stays JSON text.
        let text = map(json!({"queries": "[\"a\",\"b\"]"}));
        let (got, _) =
            merge_item_inputs(&text, "queries", &[(1, map(json!({"queries": "[\"B\"]"})))]);
        assert_eq!(got["queries"], "[\"a\",\"B\"]");
    }
}
