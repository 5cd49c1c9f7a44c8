//! The crash loop: a persistent hook whose process crashed [`CRASH_LIMIT`] times within
//! [`CRASH_WINDOW`] runs per event until its file changes: a broken daemon is not restarted
//! and fed events it drops, and the file still decides every event as it would per event (a
//! crash that some input provokes must never switch a gate off). The rule over crash instants is pure; the table of crashes is this
//! process's, keyed by hook file.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::file_state::{stat, FileState};
use crate::discovery::DiscoveredHook;

/// Crashes within [`CRASH_WINDOW`] that disable a persistent hook.
pub const CRASH_LIMIT: usize = 3;
/// The window [`CRASH_LIMIT`] crashes must fall in.
pub const CRASH_WINDOW: Duration = Duration::from_secs(60);
/// Lines of stderr a disabled hook's reason quotes.
const STDERR_LINES: usize = 5;

/// Whether `crashes` (instants, oldest first) hold [`CRASH_LIMIT`] within [`CRASH_WINDOW`] of
/// `now`. Pure.
pub(super) fn crash_loop(crashes: &VecDeque<Instant>, now: Instant) -> bool {
    crashes
        .iter()
        .filter(|&&at| now.saturating_duration_since(at) <= CRASH_WINDOW)
        .count()
        >= CRASH_LIMIT
}

/// One hook file's recent crashes, and whether they put it in a loop.
#[derive(Debug, Default)]
struct Crashes {
    at: VecDeque<Instant>,
    /// In a loop (it runs per event): the file as it was, and the reason.
    disabled: Option<(FileState, String)>,
}

fn table() -> MutexGuard<'static, HashMap<PathBuf, Crashes>> {
    static TABLE: OnceLock<Mutex<HashMap<PathBuf, Crashes>>> = OnceLock::new();
    TABLE
        .get_or_init(Mutex::default)
        .lock()
        // Single inserts and removes: a poisoned lock still holds a consistent map.
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Notes a crash of `path`'s process, started from `file`, with the last of its stderr.
/// Returns the reason it now runs per event, if this crash completed a loop.
pub(super) fn note_crash(path: &Path, file: &FileState, stderr: &str) -> Option<String> {
    let now = Instant::now();
    let mut table = table();
    let crashes = table.entry(path.to_path_buf()).or_default();
    crashes.at.push_back(now);
    while crashes.at.len() > CRASH_LIMIT {
        crashes.at.pop_front();
    }
    if !crash_loop(&crashes.at, now) {
        return None;
    }
    let why = reason(path, stderr);
    crashes.disabled = Some((file.clone(), why.clone()));
    Some(why)
}

/// The reason a crash-looping hook runs per event, for its author.
fn reason(path: &Path, stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let last = &lines[lines.len().saturating_sub(STDERR_LINES)..];
    let said = if last.is_empty() {
        " It printed nothing on stderr.".to_owned()
    } else {
        let shown: Vec<String> = last
            .iter()
            .map(|l| l.chars().take(200).collect::<String>())
            .collect();
        format!(" Its last stderr lines:\n{}", shown.join("\n"))
    };
    format!(
        "its persistent process crashed {CRASH_LIMIT} times within {} s, so it runs per event (a process for each event, without CLINE_HOOK_MODE=persistent) until its file changes: fix {} (run it by hand and send it an event line on stdin to see why it exits) and save it to run it persistent again.{said}",
        CRASH_WINDOW.as_secs(),
        path.display()
    )
}

/// Why `hook` (a persistent hook) runs per event for crashing [`CRASH_LIMIT`] times within
/// [`CRASH_WINDOW`], with its last stderr lines and what to do; `None` when it is not, or its
/// file has changed since (which makes it persistent again). Cheap: a hook that never crash-looped is
/// one map lookup; a disabled one whose sha256 discovery could not read is checked with a stat.
pub fn crash_disabled(hook: &DiscoveredHook) -> Option<String> {
    let mut table = table();
    let crashes = table.get(&hook.path)?;
    let (file, why) = crashes.disabled.as_ref()?;
    // The stat too: discovery's digest may be older than the file (a snapshot revalidated
    // later, where the folder is not watched).
    let unchanged = match (&file.sha256, &hook.sha256) {
        (Some(before), Some(now)) => before == now && file.stat == stat(&hook.path),
        _ => file.stat == stat(&hook.path),
    };
    if unchanged {
        return Some(why.clone());
    }
    table.remove(&hook.path);
    None
}

/// Forgets `path`'s crashes short of a loop: its file changed.
pub(super) fn forget(path: &Path) {
    let mut table = table();
    if table.get(path).is_some_and(|c| c.disabled.is_none()) {
        table.remove(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_crashes_within_a_minute_are_a_loop_and_spread_ones_are_not() {
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let crashes: VecDeque<Instant> = [at(0), at(30), at(60)].into();
        assert!(crash_loop(&crashes, at(60)));
        let spread: VecDeque<Instant> = [at(0), at(30), at(61)].into();
        assert!(!crash_loop(&spread, at(61)));
        let two: VecDeque<Instant> = [at(0), at(1)].into();
        assert!(!crash_loop(&two, at(1)));
    }

    #[test]
    fn the_reason_says_what_happened_quotes_the_last_stderr_lines_and_says_what_to_do() {
        let why = reason(Path::new("/h/PreToolUse"), "a\nb\n\nc\nd\ne\nf\n");
        assert!(why.starts_with("its persistent process crashed 3 times within 60 s"));
        assert!(why.contains("fix /h/PreToolUse"), "{why}");
        assert!(
            why.ends_with("Its last stderr lines:\nb\nc\nd\ne\nf"),
            "{why}"
        );
        let silent = reason(Path::new("/h/x"), "");
        assert!(
            silent.ends_with("It printed nothing on stderr."),
            "{silent}"
        );
    }

    #[test]
    fn a_loop_disables_the_hook_until_its_sha_changes() {
        let mut hook = DiscoveredHook::sample("/nonexistent/crash-loop-unit/PreToolUse");
        hook.sha256 = Some("one".into());
        let file = FileState {
            sha256: hook.sha256.clone(),
            stat: None,
        };
        assert!(note_crash(&hook.path, &file, "boom").is_none());
        assert!(note_crash(&hook.path, &file, "boom").is_none());
        assert!(crash_disabled(&hook).is_none());
        let why = note_crash(&hook.path, &file, "boom").unwrap();
        assert!(why.ends_with("boom"), "{why}");
        assert_eq!(crash_disabled(&hook), Some(why));
        forget(&hook.path);
        assert!(
            crash_disabled(&hook).is_some(),
            "answering does not enable it"
        );
        hook.sha256 = Some("two".into());
        assert!(crash_disabled(&hook).is_none());
        hook.sha256 = Some("one".into());
        assert!(crash_disabled(&hook).is_none(), "forgotten once changed");
    }
}
