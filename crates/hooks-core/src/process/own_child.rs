//! A process started by the own spawn (own_spawn.rs), as tokio keeps one it started: waited for
//! through a pidfd registered with the runtime (or, where `pidfd_open` is refused, by checking
//! at growing intervals), reaped with `waitpid`, signalled only while it is unreaped (until
//! then its pid cannot be another process's), and, dropped unreaped, still reaped in the
//! background, as tokio's orphan queue reaps the children it was handed.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// Longest pause between two checks for the exit of a child that has no pidfd.
const POLL_MAX: Duration = Duration::from_millis(50);

/// A child of this process started by the own spawn.
#[derive(Debug)]
pub(super) struct OwnChild {
    pid: libc::pid_t,
    /// Readable once the process has exited; `None` where the system refused one (a seccomp
    /// profile, no runtime to register it with).
    pidfd: Option<AsyncFd<OwnedFd>>,
    /// Its exit, once reaped.
    status: Option<ExitStatus>,
}

impl OwnChild {
    /// Takes charge of `pid`, a child of this process not yet reaped.
    pub fn new(pid: libc::pid_t) -> OwnChild {
        OwnChild {
            pid,
            pidfd: pidfd_of(pid),
            status: None,
        }
    }

    /// Its process id while it is unreaped (as tokio's `Child::id`: `None` once reaped).
    pub fn id(&self) -> Option<u32> {
        match self.status {
            None => u32::try_from(self.pid).ok(),
            Some(_) => None,
        }
    }

    /// Its exit if it has exited, reaping it; `None` while it runs.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let status = reap(self.pid, false)?;
        if status.is_some() {
            self.status = status;
            // Its pidfd is of no more use; the registration goes with it.
            self.pidfd = None;
        }
        Ok(status)
    }

    /// Waits for its exit and reaps it. Cancel-safe: nothing is lost when the future is
    /// dropped before it is ready.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        let mut pause = Duration::from_millis(1);
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            if !exit_signalled(&mut self.pidfd).await {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(POLL_MAX);
            }
        }
    }

    /// Sends it SIGKILL without waiting for its end; nothing once it is reaped (its pid may be
    /// another process's by then), as tokio's `start_kill`.
    pub fn start_kill(&mut self) -> io::Result<()> {
        if self.status.is_some() {
            return Ok(());
        }
        // SAFETY: kill(2) on our own unreaped child, which holds its pid until reaped; it
        // touches no memory. A zombie takes the signal without an error.
        if unsafe { libc::kill(self.pid, libc::SIGKILL) } == -1 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for OwnChild {
    /// Dropped unreaped (its run stopped caring, as with tokio's `kill_on_drop(false)`): it
    /// keeps running and is reaped when it ends, so no zombie is left.
    fn drop(&mut self) {
        if self.status.is_some() || matches!(reap(self.pid, false), Ok(Some(_)) | Err(_)) {
            return;
        }
        Orphan {
            pid: self.pid,
            pidfd: self.pidfd.take(),
            reaped: false,
        }
        .reap_later();
    }
}

/// A child nobody waits for any more, to be reaped when it ends.
struct Orphan {
    pid: libc::pid_t,
    pidfd: Option<AsyncFd<OwnedFd>>,
    reaped: bool,
}

/// The orphans no runtime could take: reaped at the next own spawn (as tokio reaps its orphan
/// queue at the next SIGCHLD).
static ORPHANS: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

impl Orphan {
    /// Reaps it in a task of the current runtime; without one, at the next own spawn (its
    /// drop queues it).
    fn reap_later(self) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(self.reaped());
        }
    }

    /// Waits for its end and reaps it; dropped before (the runtime shuts down), it is queued.
    async fn reaped(mut self) {
        let mut pause = Duration::from_millis(1);
        loop {
            match reap(self.pid, false) {
                Ok(None) => {}
                Ok(Some(_)) | Err(_) => {
                    self.reaped = true;
                    return;
                }
            }
            if !exit_signalled(&mut self.pidfd).await {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
            }
        }
    }
}

impl Drop for Orphan {
    /// Not reaped (no runtime, or its task was dropped as the runtime shut down): queued.
    fn drop(&mut self) {
        if !self.reaped {
            if let Ok(mut orphans) = ORPHANS.lock() {
                orphans.push(self.pid);
            }
        }
    }
}

/// Reaps the queued orphans that have ended; the others stay queued.
pub(super) fn reap_orphans() {
    if let Ok(mut orphans) = ORPHANS.lock() {
        orphans.retain(|pid| matches!(reap(*pid, false), Ok(None)));
    }
}

/// `waitpid` on `pid`, a child of this process: its exit status once it has exited (reaped
/// then), `None` while it runs (or `block`: waits for it).
pub(super) fn reap(pid: libc::pid_t, block: bool) -> io::Result<Option<ExitStatus>> {
    let flags = if block { 0 } else { libc::WNOHANG };
    loop {
        let mut status = 0;
        // SAFETY: waits for one child by its pid, writing its status into a local.
        let reaped = unsafe { libc::waitpid(pid, &mut status, flags) };
        if reaped == pid {
            return Ok(Some(ExitStatus::from_raw(status)));
        }
        if reaped == 0 {
            return Ok(None);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Waits until `pidfd` says its process exited: `true` then; `false` at once when there is no
/// pidfd (or the runtime's reactor failed it, which drops it), so the caller checks by time.
async fn exit_signalled(pidfd: &mut Option<AsyncFd<OwnedFd>>) -> bool {
    let Some(fd) = pidfd else {
        return false;
    };
    match fd.readable().await {
        Ok(mut ready) => {
            // The readiness is edge-triggered: cleared here, the next `try_wait` sees the exit
            // that set it, and an exit after that sets it again.
            ready.clear_ready();
            true
        }
        Err(_) => {
            *pidfd = None;
            false
        }
    }
}

/// A pidfd of `pid` registered with the current runtime, if the system and a runtime allow it.
fn pidfd_of(pid: libc::pid_t) -> Option<AsyncFd<OwnedFd>> {
    // AsyncFd panics outside a runtime; there, exits are checked by time.
    tokio::runtime::Handle::try_current().ok()?;
    // SAFETY: pidfd_open takes a pid and no flags (its descriptor is close-on-exec) and returns
    // a new descriptor or -1; `pid` is our unreaped child, so the descriptor is of that process.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = i32::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the kernel just returned this descriptor, and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: an OwnedFd is open, and stays the same descriptor, for the AsyncFd's life.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropped outside any runtime while it runs, it is queued, and reaped by the first call
    /// after its end: no zombie stays.
    #[test]
    fn a_child_dropped_without_a_runtime_is_reaped_after_its_end() {
        let started = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 0.2"])
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let pid = libc::pid_t::try_from(started.id()).unwrap_or_default();
        // std's Child neither waits nor kills on drop: the OwnChild takes charge of the pid.
        drop(started);
        let child = OwnChild::new(pid);
        assert!(child.pidfd.is_none(), "no runtime, no pidfd");
        drop(child);
        std::thread::sleep(Duration::from_millis(500));
        reap_orphans();
        let queued = ORPHANS.lock().map(|o| o.contains(&pid)).unwrap_or(true);
        assert!(!queued, "still queued");
        // Reaped: no such child any more.
        let err = reap(pid, false).err().and_then(|e| e.raw_os_error());
        assert_eq!(err, Some(libc::ECHILD));
    }
}
