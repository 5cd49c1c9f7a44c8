//! Any JSON a caller could pass as input: completing and serializing it never panics, the
//! bytes are one line of JSON that parses back to the same object, and fields the caller set
//! are kept.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let given = value.clone();
    let Ok(map) = cline_hooks::hooks::input::complete(value, "PreToolUse", &["/w".into()], 1) else {
        assert!(!given.is_object());
        return;
    };
    let bytes = cline_hooks::hooks::input::serialize(&map);
    assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
    let back: Value = serde_json::from_slice(&bytes).expect("serialized input parses");
    assert_eq!(back, Value::Object(map));
    if let Value::Object(given) = given {
        for (key, value) in given {
            assert_eq!(back[&key], value);
        }
    }
});
