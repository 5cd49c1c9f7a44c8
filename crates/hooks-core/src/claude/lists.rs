//! A list parameter's items, however Cline sent the list: an array, a JSON array's text (the
//! Cline SDK's older `preToolUse.parameters` and the extension send lists that way), or one
//! value. Pure.

use serde_json::Value;

/// The items of a list parameter: an array's, the items of a JSON array's text (the Cline
/// SDK's `preToolUse.parameters` and the extension send lists that way), or the one value.
pub(super) fn as_list(value: &Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        other => json_list(other).unwrap_or_else(|| vec![other.clone()]),
    }
}

/// The items of a JSON array's text.
pub(super) fn json_list(value: &Value) -> Option<Vec<Value>> {
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

/// A test's JSON object as the map the readers take (anything else: an empty map).
#[cfg(test)]
pub(super) fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}
