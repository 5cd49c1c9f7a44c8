//! A Claude hook's answer read into the verdict a hook file gives: exit code 2 blocks with
//! stderr as the reason; on exit 0, its JSON (`continue`, `decision`, `hookSpecificOutput`,
//! ...) or, for UserPromptSubmit and SessionStart, its plain text as context. Pure.

use crate::discovery::Profile;
use crate::verdict::Verdict;

/// How a Claude hook ended, as its reader needs it.
#[derive(Debug, Clone, Copy)]
pub struct Ended<'a> {
    /// The Claude event it ran for (`PreToolUse`).
    pub event: &'a str,
    /// Its exit code; `None` when it did not exit on its own (stopped at its deadline, by an
    /// abort or `terminateAll()`, or by a signal).
    pub exit_code: Option<i32>,
    /// All of stdout's text; `None` when it was longer than the runtime keeps.
    pub stdout: Option<&'a str>,
    /// Stderr's text (its last 16 KiB).
    pub stderr: &'a str,
    /// Whose conventions the verdict follows (`ask` is the cli profile's `review`).
    pub profile: Profile,
}

/// What a Claude hook said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeAnswer {
    /// The verdict, as a hook file's would be.
    pub verdict: Verdict,
    /// Whether its exit code is its answer (2: a block), not a failure.
    pub exit_is_answer: bool,
}

/// Reads a Claude hook's answer.
pub fn read_output(ended: &Ended) -> ClaudeAnswer {
    let _ = ended;
    ClaudeAnswer::default()
}
