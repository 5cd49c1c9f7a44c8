//! What a hook is told about itself and its run in its environment (`CLINE_HOOK_NAME`,
//! `CLINE_HOOK_SOURCE`, `CLINE_WORKSPACE_ROOT`, `CLINE_HOOK_RUN_ID`), and the run id itself.

use std::collections::hash_map::RandomState;
use std::ffi::OsString;
use std::hash::BuildHasher;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::discovery::DiscoveredHook;

/// The hook's name (`PreToolUse`), also for a CLI event (`tool_call` runs `PreToolUse`).
pub const HOOK_NAME_VAR: &str = "CLINE_HOOK_NAME";
/// Where it was found: `managed`, `extra`, `global` or `workspace`.
pub const HOOK_SOURCE_VAR: &str = "CLINE_HOOK_SOURCE";
/// The workspace root it runs for, or empty.
pub const WORKSPACE_ROOT_VAR: &str = "CLINE_WORKSPACE_ROOT";
/// The id of the run, the same for every hook of one run.
pub const RUN_ID_VAR: &str = "CLINE_HOOK_RUN_ID";

/// What every hook of one run shares in its environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunIdentity {
    /// The run's id (see [`new_run_id`]).
    pub id: String,
    /// The first workspace root of the run, if any: the root of the hooks that belong to no
    /// workspace (managed, extra, global), which run there.
    pub first_root: Option<PathBuf>,
}

impl RunIdentity {
    /// A new run's identity, with a fresh id.
    pub fn new(first_root: Option<PathBuf>) -> RunIdentity {
        RunIdentity {
            id: new_run_id(),
            first_root,
        }
    }

    /// The variables `hook` gets: set after the caller's `env` and never removed by
    /// `scrubEnv`, so a hook can rely on them.
    pub fn variables(&self, hook: &DiscoveredHook) -> [(&'static str, OsString); 4] {
        let root = hook
            .workspace_root
            .as_ref()
            .or(self.first_root.as_ref())
            .map(|root| root.as_os_str().to_owned())
            .unwrap_or_default();
        [
            (HOOK_NAME_VAR, OsString::from(&hook.hook_name)),
            (HOOK_SOURCE_VAR, OsString::from(hook.source.as_str())),
            (WORKSPACE_ROOT_VAR, root),
            (RUN_ID_VAR, OsString::from(&self.id)),
        ]
    }
}

/// A new run id: 32 lowercase hex digits, the first 12 the run's start in milliseconds since
/// the epoch (ids sort by time, as a UUIDv7 does), the rest random, so ids never repeat across
/// runs or processes.
pub fn new_run_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    // std's per-process random keys; hashed with the counter, the pid and the clock.
    let random = RandomState::new().hash_one((count, std::process::id(), since_epoch));
    run_id_of(since_epoch, random, count)
}

/// The run id for a start at `since_epoch` with 64 random bits and a per-process counter.
/// Pure.
fn run_id_of(since_epoch: Duration, random: u64, count: u64) -> String {
    let ms = u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX) & 0xFFFF_FFFF_FFFF;
    // 48 bits of time, 64 random bits, then 16 bits of the counter.
    format!("{ms:012x}{random:016x}{:04x}", count & 0xFFFF)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::Source;

    #[test]
    fn a_run_id_is_32_hex_digits_starting_with_the_time() {
        let id = run_id_of(
            Duration::from_millis(0x0123_4567_89ab),
            0xdead_beef,
            0x1_0002,
        );
        assert_eq!(id, "0123456789ab00000000deadbeef0002");
        let fresh = new_run_id();
        assert_eq!(fresh.len(), 32);
        assert!(fresh
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_ne!(fresh, new_run_id());
    }

    #[test]
    fn a_hook_is_told_its_name_source_root_and_run() {
        let run = RunIdentity {
            id: "abc".into(),
            first_root: Some("/first".into()),
        };
        let mut hook = DiscoveredHook::sample("/ws/.clinerules/hooks/PreToolUse");
        hook.workspace_root = Some("/ws".into());
        let vars = run.variables(&hook);
        assert_eq!(vars[0], (HOOK_NAME_VAR, "PreToolUse".into()));
        assert_eq!(vars[1], (HOOK_SOURCE_VAR, "workspace".into()));
        assert_eq!(vars[2], (WORKSPACE_ROOT_VAR, "/ws".into()));
        assert_eq!(vars[3], (RUN_ID_VAR, "abc".into()));

        // A global hook runs in the first root; with no root at all, the variable is empty.
        hook.workspace_root = None;
        hook.source = Source::Global;
        assert_eq!(run.variables(&hook)[1].1, "global");
        assert_eq!(run.variables(&hook)[2].1, "/first");
        let rootless = RunIdentity::default();
        assert_eq!(rootless.variables(&hook)[2].1, "");
    }
}
