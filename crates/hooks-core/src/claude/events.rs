//! Cline's events and tools in Claude Code's words, both ways: which Cline hooks run a Claude
//! event's handlers, which Claude tool a Cline tool is, and the JSON a Claude hook reads on
//! stdin, built from the input Cline gives the hook. Pure.

use std::path::Path;

use serde_json::Value;

use crate::discovery::Profile;

/// The Cline hooks that run the handlers of Claude's `event` (`SessionStart` runs on
/// `TaskStart` and `TaskResume`); empty when Cline has no such moment.
pub fn cline_hooks_of(event: &str) -> &'static [&'static str] {
    let _ = event;
    &[]
}

/// The Claude event that the Cline hook `hook_name` is, if any.
pub fn claude_event_of(hook_name: &str) -> Option<&'static str> {
    let _ = hook_name;
    None
}

/// A Claude hook's stdin for one event, and what its matcher is tested against.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaudeCall {
    /// The JSON object written to its stdin.
    pub input: Value,
    /// The tool's Claude name (PreToolUse, PostToolUse), the SessionStart `source`, the
    /// PreCompact `trigger`, the Notification type; `None` when the event has no matcher.
    pub subject: Option<String>,
}

/// The stdin of a Claude hook run for the Cline hook `hook_name`, from `input`, the completed
/// input Cline gives hook files (of `profile`), `project_dir` being the hook's project folder
/// (its `cwd`, `CLAUDE_PROJECT_DIR`).
pub fn claude_input(
    hook_name: &str,
    input: &Value,
    profile: Profile,
    project_dir: &Path,
) -> ClaudeCall {
    let _ = (hook_name, input, profile, project_dir);
    ClaudeCall {
        input: Value::Null,
        subject: None,
    }
}
