//! What a run leaves on disk for people to read later: one audit line per hook execution
//! (`auditLog`) and each hook's own log beside its folder (`hookLogs`). The text is made by
//! pure functions; it is written here, on a blocking thread, before the run settles.

mod audit_log;
mod hook_logs;
mod logs_folder;

pub use audit_log::*;
pub use hook_logs::*;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::discovery::Profile;
use crate::process::Execution;

/// Where a run's records go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    /// The audit log to append one JSON line per execution to (`auditLog`).
    pub audit_log: Option<PathBuf>,
    /// Whether each execution is appended to its hook's log (`hookLogs`).
    pub hook_logs: bool,
}

impl Records {
    /// Whether there is anything to write.
    pub fn any(&self) -> bool {
        self.audit_log.is_some() || self.hook_logs
    }
}

/// Writes the `executions` of run `run_id` (each with the sha256 discovery read of its file)
/// where `records` says: the text is made here, the writing done on a blocking thread (inline
/// if the system refuses one). Returns the warnings of the writes that failed; a failure never
/// fails the run, and the executions never leave the caller.
pub async fn write(
    records: &Records,
    run_id: &str,
    executions: &[Execution],
    sha256s: &[Option<String>],
) -> Vec<String> {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let time = crate::event::timestamp(Profile::Cli, since_epoch);
    let audit = records.audit_log.clone().map(|path| {
        let lines: Vec<String> = executions
            .iter()
            .enumerate()
            .map(|(at, e)| {
                let sha256 = sha256s.get(at).and_then(|s| s.as_deref());
                audit_line(e, sha256, run_id, &time)
            })
            .collect();
        (path, lines)
    });
    let entries: Vec<HookLogEntry> = if records.hook_logs {
        executions
            .iter()
            .filter_map(|e| HookLogEntry::of(e, run_id, &time))
            .collect()
    } else {
        Vec::new()
    };
    crate::blocking::run_or_inline(move || write_now(audit, entries))
        .await
        .unwrap_or_else(|why| {
            tracing::error!(why, "writing the run's records failed");
            vec![format!(
                "the audit log and hook logs of this run were not written: an internal error in @cline/hooks (please report it): {why}"
            )]
        })
}

/// Writes the audit lines and hook log entries (blocking I/O); the warnings of what failed.
fn write_now(audit: Option<(PathBuf, Vec<String>)>, entries: Vec<HookLogEntry>) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some((path, lines)) = audit {
        if let Err(why) = append_lines(&path, &lines) {
            tracing::warn!(path = %path.display(), why, "the audit log could not be written");
            warnings.push(why);
        }
    }
    for entry in entries {
        if let Err(why) = entry.append() {
            let why = why.to_string();
            tracing::warn!(why, "a hook log could not be written");
            warnings.push(why);
        }
    }
    warnings
}

/// Opens `path` to append to, creating it (a symbolic link is followed: the audit log is the
/// caller's path; hook logs open theirs in logs_folder.rs). Only a regular file is written: a
/// FIFO nobody reads would block the open (or the write) forever and with it the run, and a
/// device is no log. Opened without blocking (a FIFO with no reader is then an error at once),
/// which changes nothing for a regular file.
pub(crate) fn open_for_append(path: &Path) -> Result<File, String> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ENXIO) {
            return "it is a FIFO nobody reads, not a file".to_owned();
        }
        format!("it could not be opened ({e})")
    })?;
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok(file),
        Ok(_) => Err("it is not a regular file (a FIFO, a device or a folder)".to_owned()),
        Err(e) => Err(format!("it could not be read ({e})")),
    }
}

/// Tests: a fresh empty folder under the system temp dir.
#[cfg(test)]
pub(crate) fn scratch(tag: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "cline-hooks-record-{tag}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}
