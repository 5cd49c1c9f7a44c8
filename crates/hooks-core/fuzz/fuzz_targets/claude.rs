//! Any text a repository or a Claude hook could write: a settings file, a matcher, a command,
//! a hook's stdout and stderr with any ending, and a tool call's input are read without a
//! panic, and a block printed on stdout with exit 0 still blocks on every other ending.
#![no_main]

use std::path::Path;

use cline_hooks_core::claude::{
    claude_input, compile_matcher, parse_settings, read_output, scripts_named, Ended,
};
use cline_hooks_core::discovery::Profile;
use libfuzzer_sys::fuzz_target;

const EVENTS: [&str; 6] = [
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "Notification",
];
const HOOKS: [&str; 5] = ["PreToolUse", "PostToolUse", "TaskStart", "UserPromptSubmit", "tool_call"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let parsed = parse_settings(text);
    assert!(parsed.entries.len() <= cline_hooks_core::claude::MAX_SETTINGS_ENTRIES);
    if let Ok(matcher) = compile_matcher(Some(text)) {
        let _ = matcher.matches("Bash");
    }
    let _ = scripts_named(text, Some(Path::new("/w")), Some(Path::new("/h")));
    let profile = if pick & 1 == 0 { Profile::Extension } else { Profile::Cli };
    let event = EVENTS[usize::from(pick >> 1) % EVENTS.len()];
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid -= 1;
    }
    let (stdout, stderr) = text.split_at(mid);
    let read = |exit_code| {
        read_output(&Ended {
            event,
            exit_code,
            stdout: Some(stdout),
            stderr,
            profile,
        })
    };
    let answered = read(Some(0));
    if answered.verdict.cancel {
        for ending in [Some(1), Some(127), None] {
            assert!(read(ending).verdict.cancel, "a block at exit 0 dropped on {ending:?}");
        }
    }
    let _ = read(Some(2));
    if let Ok(input) = serde_json::from_str::<serde_json::Value>(text) {
        let hook = HOOKS[usize::from(pick >> 4) % HOOKS.len()];
        let _ = claude_input(hook, &input, profile, Path::new("/w"));
    }
});
