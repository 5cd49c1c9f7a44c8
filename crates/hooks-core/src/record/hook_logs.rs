//! Each hook's own log (`hookLogs`): `<HookName>.log` in a `logs` folder beside the hooks
//! folder (`.clinerules/logs/` beside `.clinerules/hooks/`; `Logs/` beside the global
//! `Hooks/`), one entry per execution (a header line, then its stdout and stderr tails), kept
//! under [`HOOK_LOG_CAP`] by renaming it once to `.log.1`. Writers in many runs and processes
//! take an OS lock on `<HookName>.log.lock` while they rotate and append.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::discovery::Source;
use crate::file_lock::{lock_within, sibling, LockRefused};
use crate::process::{Execution, Status};

/// Past this size a hook log is renamed to `.log.1` (replacing the last one) before the next
/// entry is appended, so a hook's logs take at most twice this.
pub const HOOK_LOG_CAP: u64 = 1 << 20;

/// Longest wait for another writer's lock on a hook log.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The folder a hook's log goes to: beside its hooks folder, `Logs` for a folder named `Hooks`
/// (the global `<Documents>/Cline/Hooks`), else `logs` (`.clinerules/logs`, the CLI's
/// `.cline/logs` and `$CLINE_DIR/logs`). None for managed hooks (root's folder, shared by
/// every user) and extra folders (they can be anywhere, such as directly in a shared `/tmp`).
/// Pure.
pub fn logs_dir(source: Source, hook_path: &Path) -> Option<PathBuf> {
    if !matches!(source, Source::Workspace | Source::Global) {
        return None;
    }
    let hooks_dir = hook_path.parent()?;
    let name = if hooks_dir.file_name()? == "Hooks" {
        "Logs"
    } else {
        "logs"
    };
    Some(hooks_dir.parent()?.join(name))
}

/// Whether a log of `current` bytes is renamed away before an entry of `entry` bytes is
/// appended: when it would pass [`HOOK_LOG_CAP`] and holds anything. Pure.
pub fn must_rotate(current: u64, entry: usize) -> bool {
    current > 0 && current.saturating_add(entry as u64) > HOOK_LOG_CAP
}

/// One entry of a hook log, ready to append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookLogEntry {
    /// `<logs folder>/<HookName>.log`.
    pub log: PathBuf,
    /// The entry's text.
    pub text: String,
}

impl HookLogEntry {
    /// The entry of `exec`, if its hook has a log folder (see [`logs_dir`]).
    pub fn of(exec: &Execution, run_id: &str, time: &str) -> Option<HookLogEntry> {
        let log = logs_dir(exec.source, &exec.path)?.join(format!("{}.log", exec.hook_name));
        Some(HookLogEntry {
            log,
            text: entry_text(exec, run_id, time),
        })
    }

    /// Appends the entry (one write), renaming the log to `.log.1` first when it would pass
    /// [`HOOK_LOG_CAP`], under the log's lock; creates the logs folder (not its parent). The
    /// error is a warning for the run, naming the file and the fix.
    pub fn append(&self) -> Result<(), String> {
        let fail = |what: String| {
            format!(
                "the hook log {} was not written: {what}; check that the folder is writable, or turn hookLogs off",
                self.log.display()
            )
        };
        let folder = self.log.parent().unwrap_or(Path::new("."));
        match std::fs::create_dir(folder) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                return Err(fail(format!("its folder could not be created ({e})")));
            }
            _ => {}
        }
        // A repository could ship its logs folder, or a log, as a link to a file of the user's:
        // the log is only ever written where it seems to be.
        if std::fs::symlink_metadata(folder).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(fail(format!(
                "{} is a symbolic link, and hook logs are not written through one",
                folder.display()
            )));
        }
        let _lock = lock(&sibling(&self.log, ".lock")).map_err(fail)?;
        // Opened (and so checked: a regular file, not a link) before anything is renamed.
        let mut file = super::open_for_append(&self.log, false).map_err(|why| {
            fail(format!(
                "{why}; it must be a regular file, not a symbolic link"
            ))
        })?;
        let current = file.metadata().map_or(0, |m| m.len());
        if must_rotate(current, self.text.len()) {
            let old = sibling(&self.log, ".1");
            // Windows renames over an existing file only with a flag std may not pass (Wine
            // refuses); the lock makes removing it first safe.
            let _ = std::fs::remove_file(&old);
            std::fs::rename(&self.log, &old).map_err(|e| {
                fail(format!(
                    "it could not be renamed to {} ({e})",
                    old.display()
                ))
            })?;
            // The renamed file is open: start the new log.
            file = super::open_for_append(&self.log, false).map_err(|why| {
                fail(format!(
                    "{why}; it must be a regular file, not a symbolic link"
                ))
            })?;
        }
        match file.write(self.text.as_bytes()) {
            Ok(n) if n == self.text.len() => Ok(()),
            Ok(n) => Err(fail(format!(
                "only {n} of the entry's {} bytes were written (is the disk full?)",
                self.text.len()
            ))),
            Err(e) => Err(fail(e.to_string())),
        }
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
    section("stdout", &exec.stdout_tail, exec.output_bytes.0);
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

/// `options` refusing to open a symbolic link (macOS/Linux; making one on Windows takes a
/// privilege a repository's files do not carry).
fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Not blocking: a FIFO left as the lock file must not hold the open.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options
}

/// Takes the OS lock on `lock_path` (released when the file is closed, even if the process
/// dies), waiting up to [`LOCK_WAIT`]. The lock file stays: deleting it would let two writers
/// lock two different files.
fn lock(lock_path: &Path) -> Result<File, String> {
    let file = no_follow(
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .open(lock_path)
    .map_err(|e| format!("its lock {} could not be opened ({e})", lock_path.display()))?;
    lock_within(file, LOCK_WAIT, Duration::from_millis(20)).map_err(|refused| match refused {
        LockRefused::Held => format!(
            "another process held its lock {} for over {} s",
            lock_path.display(),
            LOCK_WAIT.as_secs()
        ),
        LockRefused::Failed(e) => format!("its lock {} failed ({e})", lock_path.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::DiscoveredHook;

    #[test]
    fn logs_go_beside_the_hooks_folder_of_workspaces_and_the_global_folder_only() {
        let at = |source, path: &str| logs_dir(source, Path::new(path));
        assert_eq!(
            at(Source::Workspace, "/ws/.clinerules/hooks/PreToolUse"),
            Some("/ws/.clinerules/logs".into())
        );
        assert_eq!(
            at(Source::Workspace, "/ws/.cline/hooks/PreToolUse.sh"),
            Some("/ws/.cline/logs".into())
        );
        assert_eq!(
            at(Source::Global, "/home/u/Documents/Cline/Hooks/PreToolUse"),
            Some("/home/u/Documents/Cline/Logs".into())
        );
        assert_eq!(
            at(Source::Global, "/home/u/.cline/hooks/PreToolUse.py"),
            Some("/home/u/.cline/logs".into())
        );
        assert_eq!(at(Source::Extra, "/tmp/hooks/PreToolUse"), None);
        assert_eq!(at(Source::Managed, "/etc/cline/hooks/PreToolUse"), None);
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
        exec.stdout_tail = "{\"cancel\": false}".into();
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
        (quiet.stdout_tail, quiet.stderr, quiet.failure) = (String::new(), String::new(), None);
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
        exec.stdout_tail = "x".repeat(300 << 10);
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
            assert!(why.contains("not a symbolic link"), "{why}");
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
            assert!(why.contains("FIFO"), "{why}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
