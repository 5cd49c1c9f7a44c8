//! A hook start's marker, `CLINE_HOOKS_START=<host pid>.<nonce>.<n>` in its environment,
//! inherited by everything it starts; and the sweep that finds by it the processes that left the
//! hook's process group, so that stopping the tree stops them too.
//!
//! Common tools move their children to a process group of their own without meaning to escape
//! anything: GNU `timeout`, a shell with job control (`set -m`). A signal to the hook's group
//! misses them; their environment still carries the marker. On Linux, stopping a tree also
//! signals every process whose `/proc/<pid>/environ` holds that exact entry. Other Unix systems
//! stop the group only (their processes' environments are not read). On Windows the job object
//! holds every descendant but one created with another process as its parent, which joins that
//! parent's job; the sweep there reads each process's environment block ([`windows`]). A
//! process that clears or rewrites its own
//! environment (`env -i`, perl setting `$0`) is no longer found, nor is one whose environment
//! this user cannot read (another user's; a non-dumpable one, for a host that is not root).
//!
//! The nonce is what makes a marker this start's alone: two copies of this code in one host
//! (two extensions bundling the package) both number their starts from 1, and a host that got
//! the pid of an earlier one numbers its starts as that one did; without it, stopping one
//! start would stop the other's.

use std::ffi::OsString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable that marks a hook start.
pub(crate) const MARKER: &str = "CLINE_HOOKS_START";

/// Longest a sweep made outside the async runtime is waited for: reading a process's
/// environment waits for its memory map, which a process stuck in the kernel can hold.
const SWEEP_LIMIT: Duration = Duration::from_secs(1);

/// A random number drawn once per loaded copy of this code: each copy's statics are its own.
fn nonce() -> u64 {
    static NONCE: OnceLock<u64> = OnceLock::new();
    *NONCE.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        // RandomState's keys come from the system's random source, and each copy of this code
        // links its own std, so its own keys; the time and an address of this copy are mixed
        // in as well, which differ between copies even were the keys shared.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        hasher.write_u128(now);
        hasher.write_usize(std::ptr::addr_of!(NONCE) as usize);
        hasher.write_u32(std::process::id());
        hasher.finish()
    })
}

/// `<host pid>.<nonce>`: what every marker of this copy of the code in this host begins with.
/// The pid is read each time: a forked host gets markers of its own.
pub(crate) fn marker_prefix() -> String {
    format!("{}.{:016x}", std::process::id(), nonce())
}

/// The `<host pid>.<nonce>` of another copy of this code in this host: any nonce but ours
/// (for the Unix tests of the sweep and the watchdog).
#[cfg(all(test, unix))]
pub(crate) fn another_copys_prefix() -> String {
    let other = if nonce() == 1 { 2u64 } else { 1 };
    format!("{}.{other:016x}", std::process::id())
}

/// One hook start, numbered within this copy of the code; its marker entry is unique to it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StartMarker {
    number: u64,
}

impl StartMarker {
    /// The next start's marker.
    pub fn next() -> StartMarker {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        StartMarker {
            number: NEXT.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The start's number (the `<n>` of the marker), as the watchdog is told it.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub fn number(self) -> u64 {
        self.number
    }

    /// The marker's value, `<host pid>.<nonce>.<n>`.
    fn value(self) -> String {
        format!("{}.{}", marker_prefix(), self.number)
    }

    /// The variable to put in the hook's environment.
    pub fn env(self) -> (OsString, OsString) {
        (MARKER.into(), self.value().into())
    }

    /// The tree started under this marker, heading process group `group`, for a sweep.
    pub fn tree(self, group: i32) -> Marked {
        let entry = format!("{MARKER}={}", self.value());
        Marked {
            entry: entry.into_bytes().into_boxed_slice(),
            group,
        }
    }
}

/// A tree to sweep: the exact environment entry its processes carry, and its process group
/// (whose members the group's own signal has reached already).
#[derive(Debug, Clone)]
#[cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code))]
pub(crate) struct Marked {
    entry: Box<[u8]>,
    // Windows has no groups: its job object stands for one.
    #[cfg_attr(windows, allow(dead_code))]
    group: i32,
}

/// Which signal a sweep sends, the same as the group's.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stop {
    /// SIGTERM: the polite request.
    Term,
    /// SIGKILL.
    Kill,
}

/// Signals the processes of `trees` outside their groups (on Windows: their jobs), on a
/// blocking thread (the scan reads every process's environment). On Linux the stop waits for
/// it. On Windows the job's own processes are already dead when it starts and the sweep only
/// ends the few a hook took out of its job on purpose, while reading every process costs a
/// system call or more each: the stop does not wait for it (the escaped processes end moments
/// after the run settles). Elsewhere nothing is done.
pub(crate) async fn sweep(trees: Vec<Marked>, stop: Stop) {
    // Refused a thread (no process to spare, as a fork bomb leaves it), a sweep runs here:
    // the processes it stops matter more than the worker it holds meanwhile.
    #[cfg(target_os = "linux")]
    if !trees.is_empty() {
        let _ = crate::blocking::run_or_inline(move || platform::sweep(&trees, stop)).await;
    }
    #[cfg(windows)]
    if !trees.is_empty() && matches!(stop, Stop::Term) {
        // The first stop ends them (TerminateProcess); the second has nothing left to do.
        if let Err(refused) = crate::blocking::spawn(move || platform::sweep(&trees, stop)) {
            (refused.work)();
        }
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    let _ = (trees, stop);
}

/// [`sweep`] for callers outside the async runtime (teardown, a dropped run): waits for it at
/// most [`SWEEP_LIMIT`].
pub(crate) fn sweep_now(trees: Vec<Marked>, stop: Stop) {
    #[cfg(any(target_os = "linux", windows))]
    if !trees.is_empty() {
        let (done, finished) = std::sync::mpsc::channel();
        let shared = std::sync::Arc::new(trees);
        let ours = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("cline-hooks-sweep".into())
            .spawn(move || {
                platform::sweep(&ours, stop);
                let _ = done.send(());
            });
        match spawned {
            Ok(_) => {
                let _ = finished.recv_timeout(SWEEP_LIMIT);
            }
            // No thread to spare: sweep here rather than not at all.
            Err(_) => {
                platform::sweep(&shared, stop);
            }
        }
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    let _ = (trees, stop, SWEEP_LIMIT);
}

#[cfg(target_os = "linux")]
use linux as platform;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

#[cfg(target_os = "linux")]
mod linux {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};

    use super::{Marked, Stop};

    /// Passes over `/proc` at most, so that a sweep always ends: another pass is made only when
    /// one found a marked process outside its group, which may have started another between
    /// the scan and its signal.
    const PASSES: usize = 8;

    /// Signals every process outside its tree's group whose environment holds a tree's marker,
    /// except this process itself (a host can inherit an environment holding a marker; the
    /// watchdog never does: it is started without one). Processes that cannot be read (another
    /// user's) or that vanished are skipped. Returns how many were signalled.
    pub(super) fn sweep(trees: &[Marked], stop: Stop) -> usize {
        let signal = match stop {
            Stop::Term => libc::SIGTERM,
            Stop::Kill => libc::SIGKILL,
        };
        // Safety: getpid(2) cannot fail and touches no memory.
        let me = unsafe { libc::getpid() };
        let mut signalled: Vec<libc::pid_t> = Vec::new();
        let mut environ = Vec::with_capacity(8 * 1024);
        for _ in 0..PASSES {
            // A pass goes on to the next when it found any marked process, even one that had
            // exited by the time it was to be signalled: a process that forks and exits over
            // and over is found at a new pid each time, and a pass that counted only the
            // processes it signalled would end the sweep while its last child still runs.
            let mut found = false;
            let Ok(dir) = std::fs::read_dir("/proc") else {
                break;
            };
            for entry in dir.flatten() {
                let name = entry.file_name();
                let Some(pid) = name.to_str().and_then(|n| n.parse::<libc::pid_t>().ok()) else {
                    continue;
                };
                if pid == me || signalled.contains(&pid) {
                    continue;
                }
                let Some(tree) = marked_by(pid, trees, &mut environ) else {
                    continue;
                };
                // Safety: getpgid(2) reads a process's group id; it touches no memory of ours.
                if unsafe { libc::getpgid(pid) } == tree.group {
                    continue;
                }
                found = true;
                if signal_if_still_marked(pid, tree, signal, &mut environ) {
                    signalled.push(pid);
                }
            }
            if !found {
                break;
            }
        }
        signalled.len()
    }

    /// The tree whose marker entry `pid`'s environment holds, exactly, if any.
    fn marked_by<'t>(
        pid: libc::pid_t,
        trees: &'t [Marked],
        environ: &mut Vec<u8>,
    ) -> Option<&'t Marked> {
        environ.clear();
        let mut file = std::fs::File::open(format!("/proc/{pid}/environ")).ok()?;
        file.read_to_end(environ).ok()?;
        let prefix = super::MARKER.as_bytes();
        environ
            .split(|&b| b == 0)
            .filter(|entry| entry.starts_with(prefix))
            .find_map(|entry| trees.iter().find(|tree| *tree.entry == *entry))
    }

    /// Signals `pid` if it still carries `tree`'s marker. The process is pinned first (a
    /// pidfd) and its marker read again, so a pid reused since the scan is never signalled.
    fn signal_if_still_marked(
        pid: libc::pid_t,
        tree: &Marked,
        signal: libc::c_int,
        environ: &mut Vec<u8>,
    ) -> bool {
        // Safety: pidfd_open(2) takes a pid and flags and returns a new descriptor or -1.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if raw < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
                return false;
            }
            // No pidfd (a kernel before 5.3, a seccomp filter): the scan just made is the check.
            // Safety: kill(2) touches no memory.
            return unsafe { libc::kill(pid, signal) } == 0;
        }
        let Ok(raw) = libc::c_int::try_from(raw) else {
            return false;
        };
        // Safety: `raw` is a descriptor pidfd_open just returned, owned by nobody else.
        let pidfd = unsafe { OwnedFd::from_raw_fd(raw) };
        if marked_by(pid, std::slice::from_ref(tree), environ).is_none() {
            return false;
        }
        use std::os::fd::AsRawFd;
        // Safety: pidfd_send_signal(2) with no siginfo; the descriptor is open.
        let sent = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd.as_raw_fd(),
                signal,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
        sent == 0
    }

    #[cfg(test)]
    mod tests {
        use std::os::unix::process::CommandExt;
        use std::process::{Child, Command};

        use super::super::{another_copys_prefix, marker_prefix, StartMarker, Stop, MARKER};
        use super::sweep;

        fn sleeper(marker: Option<String>, group: i32) -> Child {
            let mut command = Command::new("sleep");
            command.arg("30").process_group(group);
            if let Some(marker) = marker {
                command.env(MARKER, marker);
            }
            command.spawn().unwrap()
        }

        fn value(marker: StartMarker) -> Option<String> {
            marker.env().1.into_string().ok()
        }

        /// A process carrying the marker outside the group is signalled; one inside the group
        /// (the group's signal reached it), one with another start's marker, one with the
        /// same start number under another nonce (another copy of this code, or an earlier
        /// host with this pid), one with the number but no nonce (markers once had none), and
        /// one without any are left alone.
        #[test]
        fn a_sweep_signals_only_marked_processes_outside_the_group() {
            let ours = StartMarker::next();
            let other = StartMarker::next();
            let mut leader = sleeper(value(ours), 0);
            let group = leader.id() as i32;
            let mut member = sleeper(value(ours), group);
            let mut escaped = sleeper(value(ours), 0);
            let mut another = sleeper(value(other), 0);
            let pid = std::process::id();
            let number = ours.number();
            let mut another_copy = sleeper(Some(format!("{}.{number}", another_copys_prefix())), 0);
            let mut no_nonce = sleeper(Some(format!("{pid}.{number}")), 0);
            let mut unmarked = sleeper(None, 0);

            assert_eq!(sweep(&[ours.tree(group)], Stop::Kill), 1);
            assert!(!escaped.wait().unwrap().success(), "stopped");
            for alive in [
                &mut leader,
                &mut member,
                &mut another,
                &mut another_copy,
                &mut no_nonce,
                &mut unmarked,
            ] {
                assert_eq!(alive.try_wait().unwrap(), None, "still running");
                alive.kill().unwrap();
                alive.wait().unwrap();
            }
        }

        /// The marker is `<pid>.<nonce>.<n>`: the nonce is 16 hex digits, the same for every
        /// start of this copy of the code.
        #[test]
        fn markers_hold_the_pid_this_copys_nonce_and_the_start_number() {
            let (first, second) = (StartMarker::next(), StartMarker::next());
            let prefix = format!("{}.", std::process::id());
            for marker in [first, second] {
                let value = value(marker).unwrap();
                let nonce = value
                    .strip_prefix(&prefix)
                    .and_then(|rest| rest.strip_suffix(&format!(".{}", marker.number())))
                    .unwrap();
                assert_eq!(nonce.len(), 16, "{value}");
                assert!(nonce.bytes().all(|b| b.is_ascii_hexdigit()), "{value}");
                assert!(value.starts_with(&marker_prefix()), "{value}");
            }
        }
    }
}
