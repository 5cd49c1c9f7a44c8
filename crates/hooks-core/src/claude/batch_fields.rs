//! Every file path, URL or query a batch tool call holds in any field the Cline SDK may read,
//! so a Claude handler run per item (`batch.rs`) sees them all, whichever field the SDK ends
//! up reading. Which field that is follows the SDK's zod unions and the code after them
//! (`sdk_reads.rs`); a call that fits them one way here and another way there (a range-only
//! entry the SDK merges into the one before it, a `start_line` zod coerces differently, an
//! `end_line` past its integers) would otherwise show the guard a decoy. So this fails
//! closed: the field the mapping shows (`primary`) keeps its items as they were, and every
//! other value in any of the tool's fields runs too, as an item of its own. Pure.

use serde_json::{Map, Value};

use super::lists::{as_list, json_list};
use super::sdk_reads::{has_queries, has_requests, read_files_source, ReadSource};

/// Where a batch tool keeps what it acts on.
struct Fields {
    /// Lists (or one value, or a list's JSON text) of items.
    lists: &'static [&'static str],
    /// One item at the top level.
    top: &'static [&'static str],
    /// In an object item, the keys holding its path, URL or query.
    item_keys: &'static [&'static str],
}

fn fields_of(tool: &str) -> Option<Fields> {
    match tool {
        "read_files" => Some(Fields {
            lists: &["files", "file_paths", "paths"],
            top: &["path", "file_path", "filePath"],
            item_keys: &["path", "file_path", "filePath"],
        }),
        "fetch_web_content" => Some(Fields {
            lists: &["requests"],
            top: &["url"],
            item_keys: &["url"],
        }),
        "search_codebase" => Some(Fields {
            lists: &["queries"],
            top: &["query", "pattern"],
            item_keys: &["query", "pattern"],
        }),
        _ => None,
    }
}

/// What the mapping (`tools.rs`) shows a handler of a batch tool's call, as the SDK reads it
/// (`sdk_reads.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Primary {
    /// The items of the list under this key, one run each.
    List(&'static str),
    /// The one request at the top level, the call as it is.
    Top,
    /// Nothing.
    Nothing,
}

/// The field a normal call's items come from: where `sdk_reads` says the SDK reads, else
/// the top-level request the mapping falls back to.
pub(super) fn primary(tool: &str, params: &Map<String, Value>) -> Primary {
    let top = |keys: &[&str]| {
        keys.iter()
            .any(|k| params.get(*k).is_some_and(Value::is_string))
    };
    match tool {
        "read_files" => match read_files_source(params) {
            Some(ReadSource::Batch(key)) => Primary::List(key),
            _ if top(&["path", "file_path", "filePath"]) => Primary::Top,
            _ => Primary::Nothing,
        },
        "fetch_web_content" if has_requests(params) => Primary::List("requests"),
        "fetch_web_content" if top(&["url"]) => Primary::Top,
        "search_codebase" if has_queries(params) => Primary::List("queries"),
        "search_codebase" if top(&["query"]) => Primary::Top,
        _ => Primary::Nothing,
    }
}

/// One value of a field: where it is (`file_paths[0]`, `path`) and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FieldValue {
    pub(super) at: String,
    pub(super) text: String,
}

/// Every path, URL or query `tool`'s call holds, in a stable order: the list fields in turn
/// (strings, objects' path keys, a list's JSON text), then the top-level keys.
pub(super) fn every_value(tool: &str, params: &Map<String, Value>) -> Vec<FieldValue> {
    let Some(fields) = fields_of(tool) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for key in fields.lists {
        let Some(value) = params.get(*key) else {
            continue;
        };
        let items = json_list(value).unwrap_or_else(|| as_list(value));
        for (index, item) in items.iter().enumerate() {
            let at = format!("{key}[{index}]");
            let texts: Vec<&str> = match item {
                Value::String(s) => vec![s.as_str()],
                _ => fields
                    .item_keys
                    .iter()
                    .filter_map(|k| item.get(*k).and_then(Value::as_str))
                    .collect(),
            };
            out.extend(texts.into_iter().map(|text| FieldValue {
                at: at.clone(),
                text: text.to_owned(),
            }));
        }
    }
    for key in fields.top {
        if let Some(text) = params.get(*key).and_then(Value::as_str) {
            out.push(FieldValue {
                at: (*key).to_owned(),
                text: text.to_owned(),
            });
        }
    }
    out
}

/// The call holding `text` alone, in the field the mapping reads first (`files`, `requests`,
/// `queries`), every other field of the tool's removed: a run for a value outside the
/// primary field is shown that value.
pub(super) fn alone(tool: &str, params: &Map<String, Value>, text: &str) -> Map<String, Value> {
    let mut out = params.clone();
    let Some(fields) = fields_of(tool) else {
        return out;
    };
    for key in fields.lists.iter().chain(fields.top) {
        out.shift_remove(*key);
    }
    let (key, item) = match tool {
        "read_files" => {
            for key in ["start_line", "end_line"] {
                out.shift_remove(key);
            }
            ("files", serde_json::json!({ "path": text }))
        }
        "fetch_web_content" => ("requests", serde_json::json!({ "url": text })),
        _ => ("queries", Value::from(text)),
    };
    out.insert(key.into(), Value::Array(vec![item]));
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::claude::lists::object as map;

    fn texts(tool: &str, v: Value) -> Vec<(String, String)> {
        every_value(tool, &map(v))
            .into_iter()
            .map(|f| (f.at, f.text))
            .collect()
    }

    fn pair(at: &str, text: &str) -> (String, String) {
        (at.to_owned(), text.to_owned())
    }

    #[test]
    fn every_field_the_sdk_may_read_is_seen() {
        assert_eq!(
            texts(
                "read_files",
                json!({"files": [{"path": ".env"}, {"start_line": 1}], "paths": ["a.txt"]})
            ),
            vec![pair("files[0]", ".env"), pair("paths[0]", "a.txt")]
        );
        assert_eq!(
            texts(
                "read_files",
                json!({"file_paths": "[\"b\",\"c\"]", "files": {"file_path": "d", "filePath": "e"}, "path": "a", "filePath": "f"})
            ),
            vec![
                pair("files[0]", "d"),
                pair("files[0]", "e"),
                pair("file_paths[0]", "b"),
                pair("file_paths[1]", "c"),
                pair("path", "a"),
                pair("filePath", "f"),
            ]
        );
        assert_eq!(
            texts(
                "fetch_web_content",
                json!({"requests": [{"url": "u"}], "url": "v"})
            ),
            vec![pair("requests[0]", "u"), pair("url", "v")]
        );
        assert_eq!(
            texts(
                "search_codebase",
                json!({"queries": "x", "query": "y", "pattern": "z"})
            ),
            vec![
                pair("queries[0]", "x"),
                pair("query", "y"),
                pair("pattern", "z")
            ]
        );
        assert!(texts("run_commands", json!({"commands": ["a"]})).is_empty());
        assert!(texts("read_files", json!({"files": [3, {"start_line": 1}]})).is_empty());
    }

    #[test]
    fn the_primary_field_is_what_the_mapping_shows() {
        let p = |tool: &str, v: Value| primary(tool, &map(v));
        assert_eq!(
            p("read_files", json!({"files": [{"path": "a"}], "path": "b"})),
            Primary::List("files")
        );
        assert_eq!(
            p(
                "read_files",
                json!({"files": [{"path": ".env", "start_line": "0x1"}], "path": "a"})
            ),
            Primary::Top
        );
        // A range-only entry: no schema fits here, nothing is shown.
        assert_eq!(
            p(
                "read_files",
                json!({"files": [{"path": ".env"}, {"start_line": 1}]})
            ),
            Primary::Nothing
        );
        assert_eq!(
            p(
                "fetch_web_content",
                json!({"requests": [{"url": "u"}], "url": "v"})
            ),
            Primary::List("requests")
        );
        assert_eq!(p("fetch_web_content", json!({"url": "v"})), Primary::Top);
        assert_eq!(p("search_codebase", json!({"query": "q"})), Primary::Top);
        assert_eq!(p("search_codebase", json!({})), Primary::Nothing);
    }

    #[test]
    fn a_value_alone_is_in_the_first_field_the_rest_removed() {
        let params = map(
            json!({"files": [{"path": "a"}], "paths": ["b"], "path": "c", "start_line": 2, "x": 1}),
        );
        assert_eq!(
            Value::Object(alone("read_files", &params, ".env")),
            json!({"x": 1, "files": [{"path": ".env"}]})
        );
        assert_eq!(
            Value::Object(alone(
                "fetch_web_content",
                &map(json!({"url": "v", "requests": []})),
                "v"
            )),
            json!({"requests": [{"url": "v"}]})
        );
        assert_eq!(
            Value::Object(alone("search_codebase", &map(json!({"query": "q"})), "q")),
            json!({"queries": ["q"]})
        );
    }
}
