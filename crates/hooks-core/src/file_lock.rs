//! Taking an OS lock on a lock file beside a file that several processes write (the policy
//! store, a hook's log), with a bounded wait: a writer that holds it too long is an error for
//! the caller to word, never a hang.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why the lock was not taken.
#[derive(Debug)]
pub enum LockRefused {
    /// Another process held it for the whole wait.
    Held,
    /// The system refused the lock itself.
    Failed(std::io::Error),
}

/// Takes the exclusive lock on `file` (released when it is closed, even if the process dies),
/// trying again with pauses doubling up to `max_pause` for up to `wait`.
pub fn lock_within(file: File, wait: Duration, max_pause: Duration) -> Result<File, LockRefused> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(TryLockError::WouldBlock) if started.elapsed() < wait => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(max_pause);
            }
            Err(TryLockError::WouldBlock) => return Err(LockRefused::Held),
            Err(TryLockError::Error(e)) => return Err(LockRefused::Failed(e)),
        }
    }
}

/// `path` with `suffix` appended to its file name (`hooks.json` → `hooks.json.lock`).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_refused_after_the_wait_and_taken_once_let_go() {
        let path = std::env::temp_dir().join(format!("cline-hooks-lock-{}", std::process::id()));
        let open = || {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .unwrap()
        };
        let held = lock_within(open(), Duration::ZERO, Duration::ZERO).unwrap();
        let started = Instant::now();
        let refused = lock_within(open(), Duration::from_millis(50), Duration::from_millis(5));
        assert!(matches!(refused, Err(LockRefused::Held)), "{refused:?}");
        assert!(started.elapsed() >= Duration::from_millis(50));
        drop(held);
        assert!(lock_within(open(), Duration::ZERO, Duration::ZERO).is_ok());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_sibling_appends_to_the_file_name() {
        assert_eq!(
            sibling(Path::new("/a/hooks.json"), ".lock"),
            PathBuf::from("/a/hooks.json.lock")
        );
    }
}
