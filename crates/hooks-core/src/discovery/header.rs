//! The hook header: the `cline-hook:` settings line a hook file may carry in its first lines
//! (`# cline-hook: tools=write_to_file timeout=5s onFailure=block mode=persistent`).

use std::time::Duration;

use crate::verdict::OnFailure;

/// How a hook's process lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HookMode {
    /// One process per event (the contract's way).
    #[default]
    PerEvent,
    /// One long-lived process answers event after event, a line each (`mode=persistent`).
    Persistent,
}

impl HookMode {
    /// Its name in the header and the Node API: `perEvent` or `persistent`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookMode::PerEvent => "perEvent",
            HookMode::Persistent => "persistent",
        }
    }
}

/// What a hook's header asks for; every field `None` (or the default) when it has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookSettings {
    /// `tools=`: the tool names (globs with `*` and `?`) a tool hook runs for.
    pub tools: Option<Vec<String>>,
    /// `timeout=`: this hook's timeout, replacing the run's (capped by the host's maximum).
    pub timeout: Option<Duration>,
    /// `onFailure=`: this hook's failure policy, replacing the run's.
    pub on_failure: Option<OnFailure>,
    /// `mode=`: how its process lives.
    pub mode: HookMode,
    /// The header's line number (1-based), when it has one.
    pub line: Option<usize>,
}
