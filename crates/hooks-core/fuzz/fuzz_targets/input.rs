//! Any text a caller could pass as input: `HookInput::from_json` never panics, refuses what is
//! not JSON (agreeing with serde_json wherever serde_json can tell), and a completed input is
//! one line of JSON holding the caller's members unchanged plus the filled fields.
#![no_main]

use cline_hooks_core::discovery::Profile;
use cline_hooks_core::event::HookInput;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = HookInput::from_json(text.to_owned());
    // serde_json stops at 128 levels and refuses lone surrogate escapes, which
    // JSON.stringify writes (it says "unexpected end of hex escape" for some of them): only
    // compare where it has an answer of its own.
    let theirs = serde_json::from_str::<Value>(text);
    let lower = text.to_ascii_lowercase();
    let surrogate_escape = [
        "\\ud8", "\\ud9", "\\uda", "\\udb", "\\udc", "\\udd", "\\ude", "\\udf",
    ]
    .iter()
    .any(|escape| lower.contains(escape));
    // It also refuses numbers beyond f64 (`1e999`), which are JSON all the same.
    let deep_or_surrogate = surrogate_escape
        || matches!(&theirs, Err(e) if {
            let m = e.to_string();
            m.contains("recursion limit") || m.contains("number out of range")
        });
    match (&ours, &theirs) {
        (Ok(_), Err(_)) if !deep_or_surrogate => panic!("accepted what serde_json refuses"),
        (Err(_), Ok(Value::Object(_))) => panic!("refused an object serde_json reads"),
        _ => {}
    }
    let Ok(input) = ours else { return };
    let bytes = input
        .complete(Profile::Extension, "PreToolUse", &["/w".into()], "1")
        .expect("an object completes");
    assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
    assert_eq!(bytes.last(), Some(&b'\n'));
    let Ok(Value::Object(given)) = theirs else {
        return;
    };
    let back: Value = serde_json::from_slice(&bytes).expect("completed input parses");
    for (key, value) in &given {
        assert_eq!(&back[key], value);
    }
    for key in ["hookName", "timestamp", "workspaceRoots", "model"] {
        assert!(back.get(key).is_some(), "{key} filled");
    }
    // The cli profile fills the same fields but `model`, which no payload of the Cline SDK has.
    let cli = input
        .complete(Profile::Cli, "PreToolUse", &["/w".into()], "1")
        .expect("an object completes");
    let cli: Value = serde_json::from_slice(&cli).expect("completed input parses");
    assert_eq!(cli.get("model"), given.get("model"));
    // From a Value, the same object comes back.
    let again = HookInput::from_value(Value::Object(given.clone()))
        .complete(Profile::Extension, "PreToolUse", &["/w".into()], "1")
        .expect("an object completes");
    assert_eq!(
        serde_json::from_slice::<Value>(&again).expect("parses"),
        back
    );
});
