//! Which version of a hook file a persistent process runs: the sha256 discovery read and the
//! file's size and modification time when the process started. A process whose file is no
//! longer that version is replaced; a hook disabled for crashing runs again once it changes.

use std::path::Path;
use std::time::SystemTime;

use crate::discovery::DiscoveredHook;

/// A hook file as it was at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FileState {
    /// The sha256 discovery read (`None` when it could not).
    pub sha256: Option<String>,
    /// Its size and modification time, `None` when it could not be read.
    pub stat: Option<(u64, Option<SystemTime>)>,
}

impl FileState {
    /// `hook`'s file now: its discovered sha256 and a stat, on a blocking thread (a hung
    /// network filesystem must not hold a runtime worker).
    pub(super) async fn of(hook: &DiscoveredHook) -> FileState {
        let path = hook.path.clone();
        let stat = crate::blocking::run_or_inline(move || stat(&path))
            .await
            .unwrap_or(None);
        FileState {
            sha256: hook.sha256.clone(),
            stat,
        }
    }

    /// Whether `now` is another version of the file than `self`: a different sha256 (when
    /// both are known), size or modification time.
    pub(super) fn changed(&self, now: &FileState) -> bool {
        let sha_changed = match (&self.sha256, &now.sha256) {
            (Some(before), Some(after)) => before != after,
            _ => false,
        };
        sha_changed || self.stat != now.stat
    }
}

/// The size and modification time of `path`, if it can be read.
pub(super) fn stat(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn state(sha: Option<&str>, len: u64, secs: u64) -> FileState {
        FileState {
            sha256: sha.map(str::to_owned),
            stat: Some((
                len,
                Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)),
            )),
        }
    }

    #[test]
    fn a_new_sha_size_or_time_is_a_change_and_an_unknown_sha_is_not() {
        let base = state(Some("a"), 10, 1);
        assert!(!base.changed(&base.clone()));
        assert!(base.changed(&state(Some("b"), 10, 1)));
        assert!(base.changed(&state(Some("a"), 11, 1)));
        assert!(base.changed(&state(Some("a"), 10, 2)));
        assert!(!base.changed(&state(None, 10, 1)));
        let gone = FileState {
            sha256: Some("a".into()),
            stat: None,
        };
        assert!(base.changed(&gone));
    }
}
