//! A Claude Code settings file's `hooks` key read into one entry per handler, and every
//! mistake in it (not JSON, a wrong shape, a handler type this runtime cannot run) said as a
//! warning. Pure.

use std::time::Duration;

/// One handler of a settings file: `hooks.<event>[i].hooks[j]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsEntry {
    /// The event key as written (`PreToolUse`), whether or not Cline has it.
    pub event: String,
    /// Its group's `matcher` as written; `None` when the group has none.
    pub matcher: Option<String>,
    /// Where it is in the file: `hooks.PreToolUse[0].hooks[1]`.
    pub position: String,
    /// What it runs.
    pub handler: Handler,
}

/// What a handler runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handler {
    /// `{"type": "command", "command": ..., "timeout": seconds}`.
    Command {
        /// The shell command line.
        command: String,
        /// Its `timeout`, when it has a valid one.
        timeout: Option<Duration>,
    },
    /// A handler of another type (`http`, `prompt`, `agent`, `mcp_tool`, ...): listed, never run.
    Unsupported {
        /// Its `type` as written.
        kind: String,
    },
}

/// A settings file's hooks, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedSettings {
    /// Every handler, in the file's order (events in the order written).
    pub entries: Vec<SettingsEntry>,
    /// Sentences for the file's author, without the file's name (the caller adds it).
    pub warnings: Vec<String>,
}

/// Reads a settings file's text.
pub fn parse_settings(text: &str) -> ParsedSettings {
    let _ = text;
    ParsedSettings::default()
}
