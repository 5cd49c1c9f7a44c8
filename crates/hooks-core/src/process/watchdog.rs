//! The watchdog: a tiny process that outlives the host by a moment, to stop the hook trees
//! the host was running when it died.
//!
//! A host killed by a signal (SIGKILL included) runs no code of ours, so the stopping has to
//! happen elsewhere. Before the first hook starts, a `/bin/sh` loop is started in its own
//! process group, reading lines from a pipe the host holds:
//!
//! - `?<n>`: hook start number `n` is under way; the hook's environment carries
//!   `CLINE_HOOKS_START=<host pid>.<nonce>.<n>`, the nonce this copy of the code's (so the
//!   watchdog of another copy in the same host, or of an earlier host with the same pid, never
//!   takes it for one of its own);
//! - `+<n> <pgid>`: it started, heading process group `pgid`; `!<n>`: it did not start;
//! - `-<n>`: its own process ended (what it left in the background is its business).
//!
//! When the host dies, the kernel closes the pipe; the loop reads EOF and sends SIGTERM, then
//! SIGKILL, to every group still listed. On Linux it also finds, by their markers in the
//! environments in `/proc`, the processes of the listed and unconfirmed starts: those that
//! left their hook's group (GNU `timeout`, a job-control shell) are signalled too, and a start
//! the host did not live to confirm is stopped as a group, so a host killed in the middle of a
//! burst of starts leaves nothing either. Other Unix systems stop the listed groups only.
//! Detached hooks are never announced, so they outlive the host. The loop ignores the
//! terminal's signals, so a Ctrl-C that
//! kills the host cannot kill it first, and nothing is installed in the host. If the watchdog
//! itself is killed, a thread of the host notices at once and starts another with the same
//! list. Windows needs none of this: a job object set to kill on close does the same.

#[cfg(unix)]
pub(crate) use unix::announce;

/// Windows: job objects already die with the host; nothing is announced.
#[cfg(not(unix))]
pub(crate) fn announce(_marker: crate::process::StartMarker) -> Result<Announced, String> {
    Ok(Announced)
}

/// Windows: a start nothing needs to be told of.
#[cfg(not(unix))]
pub(crate) struct Announced;

#[cfg(not(unix))]
impl Announced {
    /// Nothing to list: the job object stops the tree.
    pub fn started(self, _group: i32) -> Watched {
        Watched
    }
}

/// A group the watchdog stops if the host dies; dropping it takes the group off the list.
#[cfg(not(unix))]
pub(crate) struct Watched;

#[cfg(unix)]
pub(crate) use unix::Watched;

#[cfg(unix)]
mod unix {
    use std::collections::{BTreeMap, BTreeSet};
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::{Mutex, MutexGuard, OnceLock};

    use crate::process::{marker_prefix, StartMarker, MARKER};

    /// The watchdog's program; `$1` is the host's pid, `$2` its markers' `<host pid>.<nonce>`.
    /// `pending` holds " 5 6 " (start numbers), `started` " 5:12 7:30 " (start number: the
    /// group it heads). `marked` prints the pids whose environment holds a listed start's
    /// marker exactly, whole entry against whole entry (Linux; nothing elsewhere), read afresh
    /// before each signal, so a pid reused meanwhile is not signalled. It never prints the
    /// watchdog's own pid (started without a marker, it holds none; the check keeps it so) nor
    /// the host's: a host that gave up on a watchdog that stopped reading closed its pipe and
    /// still runs, whatever its environment holds.
    const SCRIPT: &str = r#"trap '' HUP INT TERM QUIT PIPE
host=$1 prefix=$2 pending=" " started=" "
while IFS= read -r line; do
  case $line in
    \?*) pending="$pending${line#?} " ;;
    +*) rest=${line#+}; n=${rest%% *}
        started="$started$n:${rest#* } "
        case $pending in *" $n "*) pending="${pending%%" $n "*} ${pending#*" $n "}" ;; esac ;;
    !*) n=${line#!}
        case $pending in *" $n "*) pending="${pending%%" $n "*} ${pending#*" $n "}" ;; esac ;;
    -*) n=${line#-}
        case $started in *" $n:"*) rest=${started#*" $n:"}; started="${started%%" $n:"*} ${rest#* }" ;; esac ;;
  esac
done
[ "$pending$started" = "  " ] && exit 0
marked() {
  [ -d /proc/self ] || return 0
  set --
  for s in $pending $started; do set -- "$@" -e "CLINE_HOOKS_START=$prefix.${s%%:*}"; done
  for f in $(grep -lzxF "$@" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}
    [ "$p" = "$$" ] || [ "$p" = "$host" ] || echo "$p"
  done
}
groups=" "
for s in $started; do groups="$groups${s#*:} "; done
# A start not yet confirmed has exec'd within this pause; its group is its leader's pid.
[ "$pending" != " " ] && sleep 0.1
for p in $(marked); do
  read -r stat < "/proc/$p/stat" || continue
  set -- ${stat##*) }
  [ "$3" = "$p" ] && groups="$groups$p "
done
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
for p in $(marked); do kill -s TERM "$p" 2>/dev/null; done
sleep 0.25
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
for round in 1 2; do
  for p in $(marked); do kill -s KILL "$p" 2>/dev/null; done
done
"#;

    /// The name the watchdog shows in `ps` (its `$0`).
    pub const PROCESS_NAME: &str = "cline-hooks-watchdog";

    struct Watchdog {
        /// Reaped by the monitor thread if it dies; normally it outlives the host.
        pipe: ChildStdin,
        generation: u64,
    }

    #[derive(Default)]
    struct State {
        watchdog: Option<Watchdog>,
        generation: u64,
        /// Starts announced and not yet confirmed, and every start listed with its group: what
        /// a restarted watchdog must be told again.
        pending: BTreeSet<u64>,
        started: BTreeMap<u64, i32>,
    }

    fn state() -> MutexGuard<'static, State> {
        static STATE: OnceLock<Mutex<State>> = OnceLock::new();
        STATE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    impl State {
        /// Sends `line`, starting a watchdog first if there is none (and telling a new one
        /// everything listed). The error says why the hook would outlive a crashed host.
        fn send(&mut self, line: &str) -> Result<(), String> {
            if let Some(watchdog) = self.watchdog.as_mut() {
                if watchdog.pipe.write_all(line.as_bytes()).is_ok() {
                    return Ok(());
                }
                self.watchdog = None;
            }
            self.restart()?;
            match self.watchdog.as_mut() {
                Some(watchdog) => watchdog.pipe.write_all(line.as_bytes()).map_err(|err| {
                    format!("the watchdog that stops hooks when the host dies did not accept this hook ({err}), so it would outlive a crashed host")
                }),
                None => Err("the watchdog that stops hooks when the host dies is not running".to_owned()),
            }
        }

        /// Starts a watchdog and gives it the current list.
        fn restart(&mut self) -> Result<(), String> {
            self.generation += 1;
            let mut watchdog = start(self.generation, std::process::id()).map_err(|err| {
                format!("the watchdog that stops hooks when the host dies could not be started ({err}), so this hook would outlive a crashed host")
            })?;
            let mut all: String = self.pending.iter().map(|n| format!("?{n}\n")).collect();
            all.extend(self.started.iter().map(|(n, g)| format!("+{n} {g}\n")));
            watchdog
                .pipe
                .write_all(all.as_bytes())
                .map_err(|err| format!("the watchdog that stops hooks when the host dies could not be told the running hooks ({err})"))?;
            self.watchdog = Some(watchdog);
            Ok(())
        }
    }

    /// A hook start announced to the watchdog; confirm it with [`Announced::started`]. Dropped
    /// unconfirmed, it tells the watchdog the start failed.
    pub struct Announced {
        number: u64,
        confirmed: bool,
    }

    /// Announces a hook start (starting the watchdog with the first one). The hook's
    /// environment must carry `marker`'s variable, so that the watchdog can find it should the
    /// host die before the start is confirmed, and find what leaves its group.
    pub fn announce(marker: StartMarker) -> Result<Announced, String> {
        let mut state = state();
        let number = marker.number();
        // Listed after it is sent: a watchdog started by this send is told the list first,
        // and must not be told this start twice (a second `?n` would outlast the `+n`).
        state.send(&format!("?{number}\n"))?;
        state.pending.insert(number);
        drop(state);
        // Made only now: its drop takes the lock, which a failed send above still held (a
        // watchdog that could not be started then deadlocked the thread).
        Ok(Announced {
            number,
            confirmed: false,
        })
    }

    impl Announced {
        /// The hook started, heading `group`: the watchdog lists the start until the returned
        /// guard is dropped.
        pub fn started(mut self, group: i32) -> Watched {
            self.confirmed = true;
            let mut state = state();
            state.pending.remove(&self.number);
            state.started.insert(self.number, group);
            let _ = state.send(&format!("+{} {group}\n", self.number));
            Watched {
                number: self.number,
            }
        }
    }

    impl Drop for Announced {
        fn drop(&mut self) {
            if self.confirmed {
                return;
            }
            let mut state = state();
            state.pending.remove(&self.number);
            if let Some(watchdog) = state.watchdog.as_mut() {
                let _ = watchdog
                    .pipe
                    .write_all(format!("!{}\n", self.number).as_bytes());
            }
        }
    }

    /// A start the watchdog stops if the host dies; dropping it takes the start off the list
    /// (the hook's own process has ended, or its tree was stopped). Listed by number, not by
    /// group: a group id reused by a later start while this one is taken off stays listed.
    pub struct Watched {
        number: u64,
    }

    impl Drop for Watched {
        fn drop(&mut self) {
            let mut state = state();
            if state.started.remove(&self.number).is_none() {
                return;
            }
            if let Some(watchdog) = state.watchdog.as_mut() {
                let _ = watchdog
                    .pipe
                    .write_all(format!("-{}\n", self.number).as_bytes());
            }
        }
    }

    /// Starts a watchdog for the host `host` (this process, but for a test) and the starts of
    /// this copy of the code.
    fn start(generation: u64, host: u32) -> std::io::Result<Watchdog> {
        let mut process = Command::new("/bin/sh")
            .args(["-c", SCRIPT, PROCESS_NAME])
            .arg(host.to_string())
            .arg(marker_prefix())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // A host that is itself a hook's process carries that hook's marker: its watchdog
            // must not, or the outer stop would kill it before it stops this host's hooks.
            .env_remove(MARKER)
            // Its own group: a terminal's Ctrl-C goes to the host's group, not to it.
            .process_group(0)
            .spawn()?;
        let (Some(pipe), Some(lifeline)) = (process.stdin.take(), process.stdout.take()) else {
            let _ = process.kill();
            let _ = process.wait();
            return Err(std::io::Error::other("no pipes to the watchdog"));
        };
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
            let _ = process.kill();
            let _ = process.wait();
            return Err(std::io::Error::last_os_error());
        }
        std::thread::Builder::new()
            .name("cline-hooks-watchdog-monitor".into())
            .spawn(move || monitor(process, lifeline, generation))?;
        Ok(Watchdog { pipe, generation })
    }

    /// Waits for the watchdog to die (its stdout closes; it never writes to it), reaps it,
    /// and starts another with the current list if hooks are running: a watchdog killed by
    /// someone must not leave the host's hooks unprotected until the next hook starts.
    fn monitor(mut process: Child, mut lifeline: std::process::ChildStdout, generation: u64) {
        let mut sink = [0u8; 64];
        while matches!(lifeline.read(&mut sink), Ok(n) if n > 0) {}
        let _ = process.wait();
        let mut state = state();
        if state.watchdog.as_ref().map(|w| w.generation) != Some(generation) {
            return;
        }
        state.watchdog = None;
        if !state.started.is_empty() || !state.pending.is_empty() {
            let _ = state.restart();
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::process::another_copys_prefix;

        fn spawn_group(env: Option<(&str, String)>) -> Child {
            let mut command = Command::new("sleep");
            command.arg("30").process_group(0);
            if let Some((key, value)) = env {
                command.env(key, value);
            }
            command.spawn().unwrap()
        }

        /// A process in a group of its own that ignores SIGTERM, so only the script's last
        /// step (SIGKILL) ends it: once it is gone, the script has sent every other signal.
        fn spawn_deaf_group(marker: String) -> Child {
            Command::new("/bin/sh")
                .args(["-c", "trap '' TERM; exec sleep 30"])
                .env(MARKER, marker)
                .process_group(0)
                .spawn()
                .unwrap()
        }

        /// The marker value of start `n` of this copy of the code.
        fn ours(n: u64) -> String {
            format!("{}.{n}", marker_prefix())
        }

        /// The script itself, run as the watchdog runs: when its pipe closes it stops the
        /// groups still listed, the processes of listed starts that left their group, and the
        /// unconfirmed starts it finds by their marker; it leaves alone the starts taken off
        /// the list (and what they left behind), the starts that failed, and the processes of
        /// another copy of the code or an earlier host of the same pid, whose start numbers are
        /// the same but whose markers hold another nonce (or none: markers once had none).
        /// Start numbers far above those of the hooks other tests start in this process.
        #[test]
        fn the_script_stops_listed_groups_escapees_and_unconfirmed_starts_when_its_pipe_closes() {
            let host = std::process::id();
            let n = u64::MAX / 2;
            let marker = |k: u64| Some((MARKER, ours(n + k)));
            let mut listed = spawn_group(marker(1));
            let mut listed_escaped = spawn_group(marker(1));
            let mut listed_escaped_deaf = spawn_deaf_group(ours(n + 1));
            let mut taken_off = spawn_group(marker(2));
            let mut taken_off_escaped = spawn_group(marker(2));
            let mut unconfirmed = spawn_group(marker(7));
            let mut failed_marker = spawn_group(marker(8));
            let another = format!("{}.{}", another_copys_prefix(), n + 1);
            let mut another_copy = spawn_group(Some((MARKER, another)));
            let mut no_nonce = spawn_group(Some((MARKER, format!("{host}.{}", n + 1))));
            let mut watchdog = start(u64::MAX, host).unwrap();
            let (a, b) = (listed.id() as i32, taken_off.id() as i32);
            let (n1, n2, n7, n8) = (n + 1, n + 2, n + 7, n + 8);
            write!(
                watchdog.pipe,
                "?{n1}\n+{n1} {a}\n?{n2}\n+{n2} {b}\n-{n2}\n?{n7}\n?{n8}\n!{n8}\n"
            )
            .unwrap();
            drop(watchdog.pipe);
            for stopped in [
                &mut listed,
                &mut listed_escaped,
                &mut unconfirmed,
                &mut listed_escaped_deaf,
            ] {
                assert!(!stopped.wait().unwrap().success(), "stopped");
            }
            for alive in [
                &mut taken_off,
                &mut taken_off_escaped,
                &mut failed_marker,
                &mut another_copy,
                &mut no_nonce,
            ] {
                assert_eq!(alive.try_wait().unwrap(), None, "still running");
                alive.kill().unwrap();
                alive.wait().unwrap();
            }
        }

        /// The host is never among the processes the script finds by marker, even when its
        /// environment holds one of its starts' markers (a host can be started with any
        /// environment) and it still lives when the pipe closes. Here a process in a group
        /// of its own stands for the host; its start is announced but unconfirmed, which is
        /// what the script finds by marker alone.
        #[test]
        fn the_script_never_stops_the_host() {
            let n = u64::MAX / 2 + 100;
            let mut host = spawn_group(Some((MARKER, ours(n))));
            let mut escaped = spawn_deaf_group(ours(n));
            let mut watchdog = start(u64::MAX - 1, host.id()).unwrap();
            writeln!(watchdog.pipe, "?{n}").unwrap();
            drop(watchdog.pipe);
            assert!(!escaped.wait().unwrap().success(), "stopped");
            assert_eq!(host.try_wait().unwrap(), None, "the host still runs");
            host.kill().unwrap();
            host.wait().unwrap();
        }
    }
}
