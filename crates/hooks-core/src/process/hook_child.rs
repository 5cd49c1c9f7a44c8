//! A started hook's process, whichever way it started: by tokio's `Command` (unconfined, and
//! everywhere but Linux) or by the own spawn of a confined hook (own_spawn.rs). Its pipes are
//! fields, as on tokio's `Child`, and it is waited for, polled and killed with tokio's
//! semantics; dropped, it is left running and reaped when it ends (`kill_on_drop(false)`).

use std::io;
use std::process::ExitStatus;

use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

/// A hook's process and the host's ends of its pipes.
#[derive(Debug)]
pub(crate) struct HookChild {
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    Tokio(tokio::process::Child),
    #[cfg(target_os = "linux")]
    Own(super::own_child::OwnChild),
}

impl From<tokio::process::Child> for HookChild {
    /// Takes a child tokio started, its pipes moved out into the fields.
    fn from(mut child: tokio::process::Child) -> HookChild {
        HookChild {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            inner: Inner::Tokio(child),
        }
    }
}

impl HookChild {
    /// A child of the own spawn, with the host's ends of its pipes.
    #[cfg(target_os = "linux")]
    pub(super) fn own(
        child: super::own_child::OwnChild,
        stdin: Option<ChildStdin>,
        stdout: Option<ChildStdout>,
        stderr: Option<ChildStderr>,
    ) -> HookChild {
        HookChild {
            stdin,
            stdout,
            stderr,
            inner: Inner::Own(child),
        }
    }

    /// Its process id until it has been reaped, then `None` (the id may be another's by then).
    pub fn id(&self) -> Option<u32> {
        match &self.inner {
            Inner::Tokio(child) => child.id(),
            #[cfg(target_os = "linux")]
            Inner::Own(child) => child.id(),
        }
    }

    /// Its process handle while it runs (Windows, where only tokio starts hooks).
    #[cfg(windows)]
    pub fn raw_handle(&self) -> Option<std::os::windows::io::RawHandle> {
        match &self.inner {
            Inner::Tokio(child) => child.raw_handle(),
        }
    }

    /// Its exit if it has exited (reaped then), `None` while it runs.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match &mut self.inner {
            Inner::Tokio(child) => child.try_wait(),
            #[cfg(target_os = "linux")]
            Inner::Own(child) => child.try_wait(),
        }
    }

    /// Waits for its exit, closing its stdin first (as tokio's `Child::wait` does, so a hook
    /// that reads to EOF can end). Cancel-safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        match &mut self.inner {
            Inner::Tokio(child) => child.wait().await,
            #[cfg(target_os = "linux")]
            Inner::Own(child) => child.wait().await,
        }
    }

    /// Asks the system to kill it (SIGKILL; Windows: TerminateProcess) without waiting; once it
    /// has been reaped, does nothing.
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Tokio(child) => child.start_kill(),
            #[cfg(target_os = "linux")]
            Inner::Own(child) => child.start_kill(),
        }
    }
}
