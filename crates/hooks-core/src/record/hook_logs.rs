//! Each hook's own log (`hookLogs`): `<HookName>.log` in a `logs` folder beside the hooks
//! folder (`.clinerules/logs/` beside `.clinerules/hooks/`; `Logs/` beside the global
//! `Hooks/`), one entry per execution (a header line, then its stdout and stderr tails), kept
//! under [`HOOK_LOG_CAP`] by renaming it once to `.log.1`. Writers in many runs and processes
//! take an OS lock on `<HookName>.log.lock` while they rotate and append. Where it goes, what
//! an entry says and what a handle may be are decided here (pure); logs_folder.rs does the
//! I/O, appending an entry there.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::discovery::Source;
use crate::process::{Execution, Status};

/// Past this size a hook log is renamed to `.log.1` (replacing the last one) before the next
/// entry is appended, so a hook's logs take at most twice this.
pub const HOOK_LOG_CAP: u64 = 1 << 20;

/// Where a hook's logs folder is, split where the user's own path ends: the `anchor` is
/// opened as it is (links followed: the user's own), each folder `below` it without following
/// a link (they may be a cloned repository's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsPlace {
    /// A workspace's root (the user chose it; above it is the user's own path), or the folder
    /// holding the global hooks folder (all the user's own, `~/.cline` may well be a link).
    pub anchor: PathBuf,
    /// The folders from the anchor down to the logs folder (the last, created when missing):
    /// `[".clinerules", "logs"]` in a workspace, as the repository ships them; `["Logs"]`.
    pub below: Vec<OsString>,
}

impl LogsPlace {
    /// The logs folder's path.
    pub fn dir(&self) -> PathBuf {
        let mut dir = self.anchor.clone();
        dir.extend(&self.below);
        dir
    }
}

/// Where the log of a hook at `hook_path` goes: a folder beside its hooks folder, `Logs` for a
/// folder named `Hooks` (the global `<Documents>/Cline/Hooks`), else `logs`
/// (`.clinerules/logs`, the CLI's `.cline/logs` and `$CLINE_DIR/logs`); a Claude settings file's
/// hooks, `logs` beside the file (`<root>/.claude/logs`). None for managed hooks
/// (root's folder, shared by every user) and extra folders (they can be anywhere, such as
/// directly in a shared `/tmp`). Pure.
pub fn logs_place(source: Source, hook_path: &Path) -> Option<LogsPlace> {
    let hooks_dir = hook_path.parent()?;
    let name = if hooks_dir.file_name()? == "Hooks" {
        "Logs"
    } else {
        "logs"
    };
    let holder = hooks_dir.parent()?;
    match source {
        // Everything below the root is the repository's: `.clinerules` too.
        Source::Workspace => Some(LogsPlace {
            anchor: holder.parent()?.to_path_buf(),
            below: vec![holder.file_name()?.to_owned(), name.into()],
        }),
        Source::Global => Some(LogsPlace {
            anchor: holder.to_path_buf(),
            below: vec![name.into()],
        }),
        // A settings file's hooks log beside it: `<root>/.claude/logs`, `~/.claude/logs`.
        Source::ClaudeProject | Source::ClaudeLocal => Some(LogsPlace {
            anchor: holder.to_path_buf(),
            below: vec![hooks_dir.file_name()?.to_owned(), "logs".into()],
        }),
        Source::ClaudeUser => Some(LogsPlace {
            anchor: hooks_dir.to_path_buf(),
            below: vec!["logs".into()],
        }),
        Source::Extra | Source::Managed => None,
    }
}

/// The logs folder of a hook at `hook_path` (see [`logs_place`]). Pure.
pub fn logs_dir(source: Source, hook_path: &Path) -> Option<PathBuf> {
    logs_place(source, hook_path).map(|place| place.dir())
}

/// Whether a log of `current` bytes is renamed away before an entry of `entry` bytes is
/// appended: when it would pass [`HOOK_LOG_CAP`] and holds anything. Pure.
pub fn must_rotate(current: u64, entry: usize) -> bool {
    current > 0 && current.saturating_add(entry as u64) > HOOK_LOG_CAP
}

/// What a file of the logs folder is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// A log: created when missing, written at its end.
    Append,
    /// A lock file: created when missing, never written.
    Lock,
}

/// What an opened handle was meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meant {
    /// A folder on the way to the logs folder, or the logs folder.
    Folder,
    /// A log or its lock file.
    File(Access),
}

/// What the system says an opened handle is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen {
    /// Its kind.
    pub kind: SeenKind,
    /// How many names (hard links) it has.
    pub links: u64,
}

/// The kind of an opened handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeenKind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A link opened as itself (a Windows symbolic link or junction: a reparse point).
    Link,
    /// A FIFO, a device, a socket.
    Other,
}

/// Whether a handle opened at `path` as `meant` may be used: a folder must be a folder, a file
/// a regular file with no other name (another name could be a file of the user's, hard linked
/// here), and neither a link. Pure.
pub(crate) fn judge(meant: Meant, seen: Seen, path: &Path) -> Result<(), Problem> {
    let path = path.to_path_buf();
    match (meant, seen.kind) {
        (_, SeenKind::Link) => Err(Problem::Link(path)),
        (Meant::Folder, SeenKind::Folder) => Ok(()),
        (Meant::Folder, _) => Err(Problem::NotAFolder(path)),
        (Meant::File(_), SeenKind::File) if seen.links > 1 => Err(Problem::HardLink {
            path,
            links: seen.links,
        }),
        (Meant::File(_), SeenKind::File) => Ok(()),
        (Meant::File(_), _) => Err(Problem::NotAFile(path)),
    }
}

/// Why an entry was not written (a warning of the run); each says what to do.
#[derive(Debug, Error)]
pub enum Problem {
    /// A folder on the way, the log or its lock is a link.
    #[error("{} is a symbolic link (or junction), and hook logs are never written through one (a cloned repository could point it at a file of yours); make it a real folder or file, or turn hookLogs off", .0.display())]
    Link(PathBuf),
    /// The log or its lock has other names.
    #[error("{} has {links} names (hard links), and hook logs never write a file with another name (a cloned repository could link it to a file of yours); delete it, or turn hookLogs off", .path.display())]
    HardLink {
        /// The file.
        path: PathBuf,
        /// Its number of names.
        links: u64,
    },
    /// A folder on the way is not a folder.
    #[error("{} is not a folder; remove it, or turn hookLogs off", .0.display())]
    NotAFolder(PathBuf),
    /// The log or its lock is a FIFO no process reads.
    #[error("{} is a FIFO nobody reads, not a file; delete it, or turn hookLogs off", .0.display())]
    Fifo(PathBuf),
    /// The log or its lock is not a regular file.
    #[error("{} is not a regular file (a FIFO, a device or a folder); delete it, or turn hookLogs off", .0.display())]
    NotAFile(PathBuf),
    /// The logs folder could not be created.
    #[error("its folder {} could not be created ({error}); check that its parent is writable, or turn hookLogs off", .path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// A folder or file could not be opened.
    #[error("{} could not be opened ({error}); check that the folder is writable, or turn hookLogs off", .path.display())]
    Open {
        /// The folder or file.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// Another writer kept the lock.
    #[error("another process held its lock {} for over {seconds} s; try again, or turn hookLogs off", .path.display())]
    LockHeld {
        /// The lock file.
        path: PathBuf,
        /// How long the wait was.
        seconds: u64,
    },
    /// The system refused the lock.
    #[error("its lock {} failed ({error}); check the folder's file system, or turn hookLogs off", .path.display())]
    LockFailed {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// The full log could not be renamed to `.log.1`.
    #[error("it could not be renamed to {} ({error}); check that the folder is writable, or turn hookLogs off", .to.display())]
    Rename {
        /// The new name (`<HookName>.log.1`).
        to: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// The write was cut short.
    #[error("only {written} of the entry's {len} bytes were written (is the disk full?)")]
    ShortWrite {
        /// Bytes written.
        written: usize,
        /// Bytes of the entry.
        len: usize,
    },
    /// The write failed.
    #[error("{0}; check that the disk has room, or turn hookLogs off")]
    Write(io::Error),
}

/// An entry that was not written to its hook's log: a warning of the run.
#[derive(Debug, Error)]
#[error("the hook log {} was not written: {problem}", log.display())]
pub struct HookLogError {
    /// The log.
    pub log: PathBuf,
    /// Why.
    pub problem: Problem,
}

/// One entry of a hook log, ready to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookLogEntry {
    /// Where its logs folder is.
    pub place: LogsPlace,
    /// `<logs folder>/<HookName>.log`.
    pub log: PathBuf,
    /// The entry's text.
    pub text: String,
}

impl HookLogEntry {
    /// The entry of `exec`, if its hook has a log folder (see [`logs_place`]).
    pub fn of(exec: &Execution, run_id: &str, time: &str) -> Option<HookLogEntry> {
        let place = logs_place(exec.source, &exec.path)?;
        let log = place.dir().join(format!("{}.log", exec.hook_name));
        Some(HookLogEntry {
            place,
            log,
            text: entry_text(exec, run_id, time),
        })
    }
}

/// The text of one execution's entry: a header line (time, path, status, duration, exit,
/// run), the failure if any, then the tails of stdout and stderr when they hold anything.
/// Pure.
pub fn entry_text(exec: &Execution, run_id: &str, time: &str) -> String {
    let ms = exec.duration.as_millis();
    let ended = match (exec.status, exec.exit_code, &exec.signal) {
        (Status::Started, _, _) => "started detached (its output is not read)".to_owned(),
        (_, Some(code), _) => format!("{} in {ms} ms, exit code {code}", exec.status.as_str()),
        (_, None, Some(signal)) => {
            format!("{} in {ms} ms, killed by {signal}", exec.status.as_str())
        }
        _ => format!("{} in {ms} ms", exec.status.as_str()),
    };
    // Only the runtime's own lines start at the margin: a path or failure is kept on its line
    // and the hook's output is indented, so a hook cannot print a line that passes for a
    // header (`=== ...`).
    let mut text = format!(
        "=== {time} {} ({}) {}: {ended}; run {run_id}\n",
        exec.hook_name,
        exec.source.as_str(),
        one_line(&exec.path.display().to_string())
    );
    if let Some(failure) = &exec.failure {
        text.push_str(&format!("failure: {}\n", one_line(failure)));
    }
    let mut section = |name: &str, tail: &str, total: u64| {
        if tail.is_empty() {
            return;
        }
        let cut = if (tail.len() as u64) < total {
            format!(" (its last {} of {total} bytes)", tail.len())
        } else {
            String::new()
        };
        text.push_str(&format!("--- {name}{cut} ---\n"));
        for line in tail.lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    };
    section("stdout", &exec.stdout, exec.output_bytes.0);
    section("stderr", &exec.stderr, exec.output_bytes.1);
    text
}

/// `text` on one line: line breaks and other control characters written as `\xNN`. Pure.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::discovery::DiscoveredHook;
    use crate::file_lock::sibling;

    #[test]
    fn logs_go_beside_the_hooks_folder_of_workspaces_and_the_global_folder_only() {
        let at = |source, path: &str| {
            logs_place(source, Path::new(path)).map(|p| {
                let dir = p.dir();
                let below: Vec<String> = p
                    .below
                    .iter()
                    .map(|b| b.to_string_lossy().into_owned())
                    .collect();
                (p.anchor, below.join("|"), dir)
            })
        };
        // In a workspace, the repository's part starts below the root: `.clinerules` is checked.
        assert_eq!(
            at(Source::Workspace, "/ws/.clinerules/hooks/PreToolUse"),
            Some((
                "/ws".into(),
                ".clinerules|logs".into(),
                "/ws/.clinerules/logs".into()
            ))
        );
        assert_eq!(
            at(Source::Workspace, "/ws/.cline/hooks/PreToolUse.sh"),
            Some(("/ws".into(), ".cline|logs".into(), "/ws/.cline/logs".into()))
        );
        // The global folder is the user's own: only the logs folder itself is checked.
        assert_eq!(
            at(Source::Global, "/home/u/Documents/Cline/Hooks/PreToolUse"),
            Some((
                "/home/u/Documents/Cline".into(),
                "Logs".into(),
                "/home/u/Documents/Cline/Logs".into()
            ))
        );
        assert_eq!(
            at(Source::Global, "/home/u/.cline/hooks/PreToolUse.py"),
            Some((
                "/home/u/.cline".into(),
                "logs".into(),
                "/home/u/.cline/logs".into()
            ))
        );
        assert_eq!(at(Source::Extra, "/tmp/hooks/PreToolUse"), None);
        assert_eq!(at(Source::Managed, "/etc/cline/hooks/PreToolUse"), None);
        assert_eq!(at(Source::Workspace, "/PreToolUse"), None);
        assert_eq!(
            logs_dir(
                Source::Workspace,
                Path::new("/ws/.clinerules/hooks/PreToolUse")
            ),
            Some("/ws/.clinerules/logs".into())
        );
    }

    #[test]
    fn only_a_folder_or_a_regular_file_with_one_name_is_used() {
        let judged = |meant, kind, links| judge(meant, Seen { kind, links }, Path::new("/l/x"));
        let log = Meant::File(Access::Append);
        let lock = Meant::File(Access::Lock);
        assert!(judged(Meant::Folder, SeenKind::Folder, 2).is_ok());
        assert!(judged(log, SeenKind::File, 1).is_ok());
        assert!(judged(lock, SeenKind::File, 1).is_ok());
        for meant in [Meant::Folder, log, lock] {
            assert!(matches!(
                judged(meant, SeenKind::Link, 1),
                Err(Problem::Link(_))
            ));
        }
        // A hard link to a file of the user's, at the log or its lock.
        for meant in [log, lock] {
            assert!(matches!(
                judged(meant, SeenKind::File, 2),
                Err(Problem::HardLink { links: 2, .. })
            ));
            assert!(matches!(
                judged(meant, SeenKind::Other, 1),
                Err(Problem::NotAFile(_))
            ));
            assert!(matches!(
                judged(meant, SeenKind::Folder, 1),
                Err(Problem::NotAFile(_))
            ));
        }
        assert!(matches!(
            judged(Meant::Folder, SeenKind::File, 1),
            Err(Problem::NotAFolder(_))
        ));
    }

    #[test]
    fn a_log_rotates_only_when_the_entry_would_pass_the_cap() {
        assert!(!must_rotate(0, usize::MAX));
        assert!(!must_rotate(HOOK_LOG_CAP - 10, 10));
        assert!(must_rotate(HOOK_LOG_CAP - 10, 11));
    }

    fn execution() -> Execution {
        let hook = DiscoveredHook::sample("/ws/.clinerules/hooks/PreToolUse");
        let mut exec = Execution::of(&hook, Status::Failed);
        exec.duration = Duration::from_millis(12);
        exec.exit_code = Some(3);
        exec.failure = Some("exited with code 3".into());
        exec.stdout = "{\"cancel\": false}".into();
        exec.stderr = "checking\n".into();
        exec.output_bytes = (100, 9);
        exec
    }

    #[test]
    fn an_entry_has_a_header_the_failure_and_the_tails() {
        let text = entry_text(&execution(), "r1", "2026-11-24T17:00:00.000Z");
        assert_eq!(
            text,
            "=== 2026-11-24T17:00:00.000Z PreToolUse (workspace) /ws/.clinerules/hooks/PreToolUse: failed in 12 ms, exit code 3; run r1\n\
             failure: exited with code 3\n\
             --- stdout (its last 17 of 100 bytes) ---\n  {\"cancel\": false}\n\
             --- stderr ---\n  checking\n"
        );
        // Nothing a hook prints, nor a path, starts a line as the runtime's own lines do.
        let mut forged = execution();
        forged.path = "/ws/a\n=== forged/PreToolUse".into();
        forged.stderr =
            "=== 2026-11-24T17:00:00.000Z PreToolUse (workspace) /x: completed\n".into();
        let text = entry_text(&forged, "r1", "t");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("===")).count(),
            1,
            "{text}"
        );
        assert!(text.contains("/ws/a\\x0A=== forged"), "{text}");
        let mut quiet = execution();
        (quiet.stdout, quiet.stderr, quiet.failure) = (String::new(), String::new(), None);
        quiet.status = Status::Started;
        let text = entry_text(&quiet, "r1", "t");
        assert!(
            text.ends_with(": started detached (its output is not read); run r1\n"),
            "{text}"
        );
    }

    #[test]
    fn entries_are_appended_and_the_log_is_renamed_once_past_the_cap() {
        let dir = crate::record::scratch("hook-log");
        let hooks = dir.join(".clinerules/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        let mut exec = execution();
        exec.path = hooks.join("PreToolUse");
        exec.stdout = "x".repeat(300 << 10);
        let entry = HookLogEntry::of(&exec, "r1", "t").unwrap();
        assert_eq!(entry.log, dir.join(".clinerules/logs/PreToolUse.log"));
        for _ in 0..3 {
            entry.append().unwrap();
        }
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let len = entry.text.len() as u64;
        assert_eq!(size(&entry.log), 3 * len);
        entry.append().unwrap(); // 4 entries would pass 1 MiB: rotated first
        assert_eq!(size(&entry.log), len);
        assert_eq!(size(&sibling(&entry.log, ".1")), 3 * len);

        // A log that is a link to another file is not written through.
        #[cfg(unix)]
        {
            let target = dir.join("bashrc");
            std::fs::write(&target, "mine\n").unwrap();
            std::fs::remove_file(&entry.log).unwrap();
            std::os::unix::fs::symlink(&target, &entry.log).unwrap();
            let why = entry.append().unwrap_err();
            assert!(matches!(why.problem, Problem::Link(_)), "{why}");
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
            assert!(
                !sibling(&entry.log, ".1").is_symlink(),
                "a link is never rotated"
            );

            // A FIFO nobody reads is refused at once, not waited on.
            std::fs::remove_file(&entry.log).unwrap();
            let fifo = std::ffi::CString::new(entry.log.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid C string.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
            let why = entry.append().unwrap_err();
            assert!(matches!(why.problem, Problem::Fifo(_)), "{why}");
            std::fs::remove_file(&entry.log).unwrap();

            // A folder is no log.
            std::fs::create_dir(&entry.log).unwrap();
            let why = entry.append().unwrap_err();
            assert!(matches!(why.problem, Problem::NotAFile(_)), "{why}");
            std::fs::remove_dir(&entry.log).unwrap();

            // A hard link to a file of the user's, as the log or its lock: refused, unchanged.
            for linked in [entry.log.clone(), sibling(&entry.log, ".lock")] {
                let _ = std::fs::remove_file(&linked);
                std::fs::hard_link(&target, &linked).unwrap();
                let why = entry.append().unwrap_err();
                assert!(
                    matches!(why.problem, Problem::HardLink { links: 2, .. }),
                    "{why}"
                );
                assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
                std::fs::remove_file(&linked).unwrap();
            }

            // `.clinerules` itself a link to a folder elsewhere: nothing is made there.
            let elsewhere = dir.join("elsewhere");
            std::fs::create_dir(&elsewhere).unwrap();
            std::fs::rename(dir.join(".clinerules"), elsewhere.join(".clinerules")).unwrap();
            std::os::unix::fs::symlink(elsewhere.join(".clinerules"), dir.join(".clinerules"))
                .unwrap();
            std::fs::remove_dir_all(elsewhere.join(".clinerules/logs")).unwrap();
            let why = entry.append().unwrap_err();
            assert!(matches!(why.problem, Problem::Link(_)), "{why}");
            assert!(!elsewhere.join(".clinerules/logs").exists());
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
