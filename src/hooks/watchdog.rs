//! The watchdog: a tiny process that outlives the host by a moment, to stop the hook trees
//! the host was running when it died.
//!
//! A host killed by a signal (SIGKILL included) runs no code of ours, so the stopping has to
//! happen elsewhere. With the first hook, a `/bin/sh` loop is started in its own process
//! group, reading lines from a pipe the host holds: `+<pgid>` when a hook tree starts, `-<pgid>`
//! when its process ends. When the host dies, the kernel closes the pipe; the loop reads EOF,
//! sends SIGTERM to every group still listed, then SIGKILL. It ignores the terminal's signals
//! so a Ctrl-C that kills the host cannot kill it first, and it installs nothing in the host.
//! Windows needs none of this: a job object set to kill on close does the same.

#[cfg(unix)]
pub use unix::{unwatch, watch};

/// Windows: job objects already die with the host.
#[cfg(not(unix))]
pub fn watch(_group: i32) -> Result<(), String> {
    Ok(())
}

#[cfg(not(unix))]
pub fn unwatch(_group: i32) {}

#[cfg(unix)]
mod unix {
    use std::collections::BTreeSet;
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::{Mutex, MutexGuard, OnceLock};

    /// The watchdog's program. `groups` holds " 12 34 "; a group leaves it when its hook ends.
    const SCRIPT: &str = r#"trap '' HUP INT TERM QUIT PIPE
groups=" "
while IFS= read -r line; do
  case $line in
    +*) groups="$groups${line#+} " ;;
    -*) id=${line#-}
        case $groups in *" $id "*) groups="${groups%%" $id "*} ${groups#*" $id "}" ;; esac ;;
  esac
done
[ "$groups" = " " ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 0.25
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
"#;

    /// The name the watchdog shows in `ps` (its `$0`).
    pub const PROCESS_NAME: &str = "cline-hooks-watchdog";

    struct Watchdog {
        /// Reaped only if it dies early; normally it outlives us.
        process: Child,
        pipe: ChildStdin,
    }

    #[derive(Default)]
    struct State {
        watchdog: Option<Watchdog>,
        /// Every group listed, so a restarted watchdog can be told all of them again.
        groups: BTreeSet<i32>,
    }

    fn state() -> MutexGuard<'static, State> {
        static STATE: OnceLock<Mutex<State>> = OnceLock::new();
        STATE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Lists a hook's process group with the watchdog, starting it on first use. An error
    /// says why the tree would not be stopped if the host died (the hook still runs).
    pub fn watch(group: i32) -> Result<(), String> {
        let mut state = state();
        state.groups.insert(group);
        let line = format!("+{group}\n");
        if let Some(watchdog) = state.watchdog.as_mut() {
            if watchdog.pipe.write_all(line.as_bytes()).is_ok() {
                return Ok(());
            }
            // It died: reap it so it does not stay a zombie.
            let _ = watchdog.process.try_wait();
        }
        // Not started yet, or it died (someone killed it): start one and tell it everything.
        let mut watchdog = start().map_err(|err| {
            format!("the watchdog that stops hooks when the host dies could not be started ({err}), so this hook would outlive a crashed host")
        })?;
        let all: String = state.groups.iter().map(|g| format!("+{g}\n")).collect();
        watchdog
            .pipe
            .write_all(all.as_bytes())
            .map_err(|err| format!("the watchdog that stops hooks when the host dies did not accept this hook ({err}), so it would outlive a crashed host"))?;
        state.watchdog = Some(watchdog);
        Ok(())
    }

    /// Takes a group off the list: its hook's own process has ended.
    pub fn unwatch(group: i32) {
        let mut state = state();
        if !state.groups.remove(&group) {
            return;
        }
        let line = format!("-{group}\n");
        if let Some(watchdog) = state.watchdog.as_mut() {
            if watchdog.pipe.write_all(line.as_bytes()).is_err() {
                state.watchdog = None;
            }
        }
    }

    fn start() -> std::io::Result<Watchdog> {
        let mut process = Command::new("/bin/sh")
            .args(["-c", SCRIPT, PROCESS_NAME])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a terminal's Ctrl-C goes to the host's group, not to it.
            .process_group(0)
            .spawn()?;
        let pipe = process
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no pipe to the watchdog"))?;
        // A watchdog that stopped reading (SIGSTOP) must not block the thread starting a hook:
        // a full pipe is an error (the hook is then reported unwatched), never a wait.
        use std::os::fd::AsRawFd;
        let fd = pipe.as_raw_fd();
        // Safety: fcntl on a descriptor this function owns; no memory is passed.
        let nonblocking = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
        };
        if !nonblocking {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Watchdog { process, pipe })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The script itself, run as the watchdog runs: a group listed and never taken off
        /// is stopped when the pipe closes; a group taken off is left alone.
        #[test]
        fn the_script_stops_the_groups_still_listed_when_its_pipe_closes() {
            let spawn_group = || {
                Command::new("sleep")
                    .arg("30")
                    .process_group(0)
                    .spawn()
                    .unwrap()
            };
            let mut listed = spawn_group();
            let mut taken_off = spawn_group();
            let mut watchdog = start().unwrap();
            let (a, b) = (listed.id() as i32, taken_off.id() as i32);
            write!(watchdog.pipe, "+{a}\n+{b}\n-{b}\n").unwrap();
            let Watchdog { mut process, pipe } = watchdog;
            drop(pipe);
            assert!(process.wait().unwrap().success());
            let status = listed.wait().unwrap();
            assert!(!status.success(), "the listed group was stopped");
            assert_eq!(taken_off.try_wait().unwrap(), None, "still running");
            taken_off.kill().unwrap();
            taken_off.wait().unwrap();
        }
    }
}

#[cfg(unix)]
pub use unix::PROCESS_NAME;
