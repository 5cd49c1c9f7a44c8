//! Batches one Claude run at a time: the Cline CLI's `read_files`, `fetch_web_content` and
//! `search_codebase` take a list, Claude's Read, WebFetch and Grep one file, URL or pattern.
//! A Claude handler shown only the first item would let `[a.txt, .env]` past a `.env` guard,
//! so it runs once per item (`batch_items`: each run's input is the call with that item
//! alone), and the items' `updatedInput`s are put back each into its own item
//! (`merge_item_inputs`). Pure: the runner runs the items.

use serde_json::{Map, Value};

use super::batch_fields::{alone, every_value, primary, Primary};
use super::events::{claude_event_of, hook_of, tool_call};
use super::lists::as_list;
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
    /// Whether its run's `updatedInput` goes back into the call: not for a value from a
    /// field other than the one the mapping shows (`batch_fields.rs`), run only so the
    /// handler sees it.
    pub applies: bool,
}

/// How a Claude handler runs for one hook input.
#[derive(Debug, Clone, PartialEq)]
pub enum Batch {
    /// Once, as for any call: no batch, or a batch of one item.
    One,
    /// Once per item, in item order.
    Items {
        /// The list's key in the tool's parameters; `None` when the items that apply are the
        /// call's one top-level request (or there are none).
        key: Option<&'static str>,
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
/// Cline input of `profile`), and each item's input. The items are those of the field the
/// mapping shows (as the SDK reads it), then every other path, URL or query the call holds
/// in a field the SDK may read, each distinct value once (`batch_fields.rs`: fail closed).
pub fn batch_items(hook_name: &str, input: &Value, profile: Profile) -> Batch {
    let post = match claude_event_of(hook_of(hook_name)) {
        Some("PreToolUse") => false,
        Some("PostToolUse") => true,
        _ => return Batch::One,
    };
    let call = tool_call(input, profile, post);
    let params = object_form(&call.name, call.params);
    // (the parameters the run is shown, its place, what it is, where it is)
    let mut runs: Vec<(Map<String, Value>, usize, String, String)> = Vec::new();
    let values = every_value(&call.name, &params);
    let key = match primary(&call.name, &params) {
        Primary::List(key) => {
            let list = params.get(key).map(as_list).unwrap_or_default();
            for (index, item) in list.iter().enumerate() {
                let mut one = params.clone();
                put_list(&mut one, key, params.get(key), vec![item.clone()]);
                runs.push((one, index, item_text(item), key.to_owned()));
            }
            Some(key)
        }
        Primary::Top => {
            if let Some(top) = values.iter().find(|v| !v.at.contains('[')) {
                runs.push((params.clone(), 0, top.text.clone(), top.at.clone()));
            }
            None
        }
        Primary::Nothing => None,
    };
    let applying = runs.len();
    let mut seen: Vec<String> = runs.iter().map(|run| run.2.clone()).collect();
    for value in values {
        if seen.contains(&value.text) {
            continue;
        }
        seen.push(value.text.clone());
        let one = alone(&call.name, &params, &value.text);
        runs.push((one, runs.len(), value.text, value.at));
    }
    if runs.len() < 2 && runs.len() == applying {
        return Batch::One;
    }
    if runs.len() > BATCH_ITEM_LIMIT {
        return Batch::TooMany {
            tool: call.name.clone(),
            count: runs.len(),
        };
    }
    let params_key = if call.sdk { "input" } else { "parameters" };
    let source_key = match (post, call.sdk) {
        (false, true) => "tool_call",
        (true, true) => "tool_result",
        (false, false) => "preToolUse",
        (true, false) => "postToolUse",
    };
    let count = runs.len();
    let items = runs
        .into_iter()
        .enumerate()
        .map(|(slot, (one, index, text, at))| {
            let mut whole = input.clone();
            if let Some(source) = whole.get_mut(source_key).and_then(Value::as_object_mut) {
                source.insert(params_key.into(), Value::Object(one));
            }
            let applies = slot < applying;
            let label = if applies {
                format!(
                    "item {} of {count} of {}' {at}: {}",
                    slot + 1,
                    call.name,
                    short(&text)
                )
            } else {
                format!("{at} (a field the SDK may also read): {}", short(&text))
            };
            BatchItem {
                label,
                input: whole,
                index,
                applies,
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

/// An item's path, URL or query (the item itself when it has none).
fn item_text(item: &Value) -> String {
    let text = match item {
        Value::String(s) => Some(s.clone()),
        _ => ["path", "file_path", "filePath", "url"]
            .iter()
            .find_map(|k| item.get(*k).and_then(Value::as_str).map(str::to_owned)),
    };
    text.unwrap_or_else(|| item.to_string())
}

/// A value in a few words, for a label.
fn short(text: &str) -> String {
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The tool call's parameters with each item run's `updatedInput` (already in Cline's words,
/// for the call holding that item alone: `(index, parameters)`, in item order) put back into
/// its own item, the other items untouched. A field outside the list that two items' runs
/// set differently keeps the first's value, and a warning says which was not applied.
/// `original` is the call's parameters (`object_form`'d by the caller's `key`). With no
/// `key` (the items that apply are the call's one top-level request), that run's parameters
/// are the call's.
pub fn merge_item_inputs(
    original: &Map<String, Value>,
    key: Option<&str>,
    changed: &[(usize, Map<String, Value>)],
) -> (Map<String, Value>, Vec<String>) {
    let Some(key) = key else {
        let whole = changed.first().map(|(_, params)| params.clone());
        return (whole.unwrap_or_else(|| original.clone()), Vec::new());
    };
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
    use std::path::Path;

    use serde_json::json;

    use super::super::tools::claude_tool_input;
    use super::*;
    use crate::claude::lists::object as map;

    #[test]
    fn a_batch_runs_once_per_item_with_that_item_alone() {
        let input = json!({"tool_call": {"id": "c", "name": "read_files", "input": {"files": [{"path": "a.txt"}, {"path": ".env"}], "x": 1}}});
        let Batch::Items { key, items } = batch_items("PreToolUse", &input, Profile::Cli) else {
            panic!("not a batch");
        };
        assert_eq!(key, Some("files"));
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
                key: Some("requests"),
                ..
            }
        ));
        let search = json!({"tool_call": {"name": "search_codebase", "input": ["a", "b"]}});
        assert!(matches!(
            batch_items("PreToolUse", &search, Profile::Cli),
            Batch::Items {
                key: Some("queries"),
                ..
            }
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

    /// The labels of a read_files call's item runs, and the paths each is shown (as Read).
    fn read_runs(params: Value) -> Option<Vec<(String, String, bool)>> {
        let input = json!({"tool_call": {"name": "read_files", "input": params}});
        match batch_items("PreToolUse", &input, Profile::Cli) {
            Batch::Items { items, .. } => Some(
                items
                    .into_iter()
                    .map(|item| {
                        let call = tool_call(&item.input, Profile::Cli, false);
                        let read = claude_tool_input(&call.name, call.params, Path::new("/p"));
                        let path = read["file_path"].as_str().unwrap_or_default();
                        let path = path.trim_start_matches("/p/").to_owned();
                        (item.label, path, item.applies)
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    fn shown(params: Value) -> Vec<String> {
        read_runs(params)
            .unwrap_or_default()
            .into_iter()
            .map(|run| run.1)
            .collect()
    }

    #[test]
    fn every_path_in_any_field_the_sdk_may_read_runs() {
        // A range-only entry the SDK merges into the one before it: `files` fits no schema
        // here, so `paths` is what the mapping shows, and `.env` runs as well.
        let runs =
            read_runs(json!({"files": [{"path": ".env"}, {"start_line": 1}], "paths": ["a.txt"]}));
        assert_eq!(
            runs,
            Some(vec![
                (
                    "item 1 of 2 of read_files' paths: a.txt".into(),
                    "a.txt".into(),
                    true
                ),
                (
                    "files[0] (a field the SDK may also read): .env".into(),
                    ".env".into(),
                    false
                ),
            ])
        );
        // One path, in no field that fits here: still run, shown it.
        assert_eq!(
            shown(json!({"files": [".env", {"start_line": 1, "end_line": 2}]})),
            vec![".env"]
        );
        assert_eq!(
            shown(json!({"files": [{"path": "a.txt"}, {"start_line": 2}, {"path": ".env"}]})),
            vec!["a.txt", ".env"]
        );
        // `start_line` forms zod may coerce otherwise: the top-level path is shown first.
        for start in [json!("0x1"), json!([1]), json!("\u{feff}1")] {
            let runs = read_runs(
                json!({"files": [{"path": ".env", "start_line": start}], "path": "a.txt"}),
            )
            .unwrap_or_default();
            let got: Vec<_> = runs.iter().map(|r| (r.1.as_str(), r.2)).collect();
            assert_eq!(got, vec![("a.txt", true), (".env", false)], "{start}");
            assert_eq!(runs[0].0, "item 1 of 2 of read_files' path: a.txt");
        }
        // An `end_line` past the SDK's integers on the listed file: the top-level one runs.
        assert_eq!(
            shown(json!({"files": [{"path": "a.txt", "end_line": 1e20}], "path": ".env"})),
            vec!["a.txt", ".env"]
        );
        // Each distinct path once; file_paths and filePath too.
        assert_eq!(
            shown(
                json!({"files": [{"path": "a"}, {"path": "b"}], "file_paths": ["b", ".env"], "filePath": "a"})
            ),
            vec!["a", "b", ".env"]
        );
    }

    #[test]
    fn decoys_count_toward_the_limit_and_a_normal_call_is_unchanged() {
        let mut files: Vec<Value> = (0..64).map(|i| json!(format!("f{i}.txt"))).collect();
        files.push(json!(".env"));
        files.push(json!({"start_line": 1}));
        let big = json!({"tool_call": {"name": "read_files", "input": {"files": files}}});
        assert_eq!(
            batch_items("PreToolUse", &big, Profile::Cli),
            Batch::TooMany {
                tool: "read_files".into(),
                count: 65
            }
        );
        let top =
            json!({"tool_call": {"name": "read_files", "input": {"path": "a", "start_line": 2}}});
        assert_eq!(batch_items("PreToolUse", &top, Profile::Cli), Batch::One);
        let none =
            json!({"tool_call": {"name": "read_files", "input": {"files": [{"start_line": 1}]}}});
        assert_eq!(batch_items("PreToolUse", &none, Profile::Cli), Batch::One);
        // A top-level url beside requests, and a query beside queries, run too.
        let fetch = json!({"tool_call": {"name": "fetch_web_content", "input": {"requests": [{"url": "u"}], "url": "v"}}});
        let Batch::Items { key, items } = batch_items("PreToolUse", &fetch, Profile::Cli) else {
            panic!("not a batch");
        };
        assert_eq!(key, Some("requests"));
        assert_eq!(
            items.iter().map(|i| i.label.as_str()).collect::<Vec<_>>(),
            vec![
                "item 1 of 2 of fetch_web_content' requests: u",
                "url (a field the SDK may also read): v"
            ]
        );
        let search = json!({"tool_call": {"name": "search_codebase", "input": {"queries": ["q"], "query": "r"}}});
        assert!(matches!(
            batch_items("PreToolUse", &search, Profile::Cli),
            Batch::Items { items, .. } if items.len() == 2 && !items[1].applies
        ));
    }

    #[test]
    fn a_top_level_request_s_change_is_the_call_s() {
        let original = map(json!({"path": "a", "files": [{"path": ".env", "start_line": "0x1"}]}));
        let changed = map(json!({"path": "b", "files": [{"path": ".env", "start_line": "0x1"}]}));
        let (got, warnings) = merge_item_inputs(&original, None, &[(0, changed.clone())]);
        assert_eq!(got, changed);
        assert!(warnings.is_empty());
    }

    #[test]
    fn each_items_change_lands_in_its_own_item() {
        let original = map(json!({"files": [{"path": "a"}, {"path": "b"}, {"path": "c"}], "t": 1}));
        let (got, warnings) = merge_item_inputs(
            &original,
            Some("files"),
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
            Some("files"),
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
        let (got, _) = merge_item_inputs(
            &text,
            Some("queries"),
            &[(1, map(json!({"queries": "[\"B\"]"})))],
        );
        assert_eq!(got["queries"], "[\"a\",\"B\"]");
    }
}
