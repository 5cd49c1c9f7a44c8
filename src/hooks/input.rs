//! The JSON a hook reads on stdin: the caller's object, with the common fields it left out.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::hooks::error::HookError;

/// Fills `hookName`, `timestamp` (milliseconds since the epoch, as a string), `workspaceRoots`
/// and `model` where the caller did not set them; a field the caller set is never touched.
pub fn complete(
    input: Value,
    hook_name: &str,
    workspace_roots: &[PathBuf],
    now_ms: u128,
) -> Result<Map<String, Value>, HookError> {
    let Value::Object(mut map) = input else {
        return Err(HookError::InvalidInput(format!(
            "the hook input must be a JSON object, not {}",
            kind(&input)
        )));
    };
    map.entry("hookName")
        .or_insert_with(|| Value::from(hook_name));
    map.entry("timestamp")
        .or_insert_with(|| Value::from(now_ms.to_string()));
    map.entry("workspaceRoots").or_insert_with(|| {
        Value::Array(
            workspace_roots
                .iter()
                .map(|r| Value::from(r.to_string_lossy().into_owned()))
                .collect(),
        )
    });
    map.entry("model")
        .or_insert_with(|| serde_json::json!({ "provider": "unknown", "slug": "unknown" }));
    Ok(map)
}

/// The bytes written to stdin: one line of JSON.
pub fn serialize(input: &Map<String, Value>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(input).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fills_missing_common_fields() {
        let map = complete(
            json!({"preToolUse": {"tool": "x"}}),
            "PreToolUse",
            &["/w".into()],
            1736654400000,
        )
        .unwrap();
        assert_eq!(map["hookName"], "PreToolUse");
        assert_eq!(map["timestamp"], "1736654400000");
        assert_eq!(map["workspaceRoots"], json!(["/w"]));
        assert_eq!(
            map["model"],
            json!({"provider": "unknown", "slug": "unknown"})
        );
        assert_eq!(map["preToolUse"]["tool"], "x");
    }

    #[test]
    fn never_overwrites_what_the_caller_set() {
        let given = json!({"hookName": "tool_call", "timestamp": "2026-01-15T10:30:00Z", "workspaceRoots": [], "model": null});
        let map = complete(given.clone(), "PreToolUse", &["/w".into()], 1).unwrap();
        assert_eq!(Value::Object(map), given);
    }

    #[test]
    fn refuses_non_objects() {
        for bad in [json!([1]), json!("x"), json!(null), json!(3)] {
            assert!(complete(bad, "TaskStart", &[], 0)
                .unwrap_err()
                .to_string()
                .contains("must be a JSON object"));
        }
    }

    #[test]
    fn numbers_survive_serialization_exactly() {
        // Found by fuzzing: without serde_json's float_roundtrip, reading this back gave a
        // neighbouring double, so a number could change between the caller and the hook.
        let text = r#"{"big": 2666666666666666666666666666666666666666666666666666666666666, "x": 0.30000000000000004}"#;
        let given: Value = serde_json::from_str(text).unwrap();
        let map = complete(given.clone(), "TaskStart", &[], 0).unwrap();
        let back: Value = serde_json::from_slice(&serialize(&map)).unwrap();
        assert_eq!(back["big"], given["big"]);
        assert_eq!(back["x"].as_f64(), Some(0.30000000000000004));
        assert_eq!(given["big"].as_f64(), Some(2.6666666666666667e60));
    }

    #[test]
    fn serializes_one_line() {
        let map = complete(json!({"a": "multi\nline"}), "TaskStart", &[], 0).unwrap();
        let bytes = serialize(&map);
        assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(bytes.last(), Some(&b'\n'));
    }
}
