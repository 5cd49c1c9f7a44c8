//! Where a hook's deadline is enforced: the wait for its exit against the deadline, an abort
//! and `terminateAll()`; the stop of its tree (SIGTERM, a grace, SIGKILL) and the reap.

use std::future::Future;
use std::io;
use std::process::ExitStatus;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use tokio::time::{sleep, sleep_until, timeout_at, Instant};
use tokio_util::sync::CancellationToken;

use super::hook_child::HookChild;
use super::pipes::{read_on, PipeGrace};
use crate::process::{sweep, Registration, Stop};

/// Between SIGTERM and SIGKILL when a tree is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(250);

/// Longest wait for the exit of a process sent SIGKILL. Only a process stuck in the kernel
/// (uninterruptible sleep, a hung network filesystem) takes longer.
pub const REAP_LIMIT: Duration = Duration::from_secs(1);

/// Longest pause between two checks for a process's exit when its exit is not signalled.
const EXIT_POLL_MAX: Duration = Duration::from_millis(50);

/// What ended the wait for a hook's process.
pub(super) enum End {
    /// Its own process exited (or could not be waited for).
    Exited(io::Result<ExitStatus>),
    /// The deadline came first.
    TimedOut,
    /// The run was aborted first.
    Aborted,
    /// `terminateAll()` came first.
    Terminated,
    /// A persistent hook's process answered its event and lives on.
    Answered,
    /// A persistent hook's process closed this pipe of its own and lived on, so it could never
    /// answer; it was stopped.
    Closed(&'static str),
}

/// How driving a hook's process ended.
pub(super) struct Ending {
    /// What ended the wait.
    pub end: End,
    /// Its stdout and stderr were read to their end (no background process held them).
    pub pipes_closed: bool,
    /// How they were read on after its process was gone.
    pub grace: PipeGrace,
    /// Its process could not be stopped, even by SIGKILL, within [`REAP_LIMIT`].
    pub stuck: bool,
    /// How its own process ended when it was stopped (the signal that ended it), when read.
    pub stopped_with: Option<ExitStatus>,
}

/// How stopping a tree ended.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stopped {
    /// Its process did not end, even at SIGKILL, within [`REAP_LIMIT`]: it is left running.
    pub stuck: bool,
    /// Its exit status (the signal that ended it), when it was reaped.
    pub status: Option<ExitStatus>,
}

/// Drives a started hook to its end: `io` (its pipes) runs while its process is waited for
/// until it exits, the deadline passes, the run is aborted or `terminateAll()` asks; in all but
/// the first case its tree is stopped. Then output is read on by `grace`. A process that
/// could not be stopped is left to be reaped in the background; the run settles anyway.
pub(super) async fn drive(
    mut child: HookChild,
    io: impl Future<Output = ()>,
    progress: &AtomicU64,
    registration: &mut Registration,
    abort: &CancellationToken,
    deadline: Instant,
    grace: PipeGrace,
) -> Ending {
    tokio::pin!(io);
    let mut io_done = false;
    let end = {
        let exit = exit_of(&mut child);
        tokio::pin!(exit);
        loop {
            tokio::select! {
                _ = &mut io, if !io_done => io_done = true,
                status = &mut exit => break End::Exited(status),
                _ = sleep_until(deadline) => break End::TimedOut,
                _ = abort.cancelled() => break End::Aborted,
                _ = registration.stop.cancelled() => break End::Terminated,
            }
        }
    };
    let (mut stuck, mut stopped_with) = (false, None);
    match end {
        // Its own process is gone: what it left in the background is its business.
        End::Exited(_) => registration.disarm(),
        _ => {
            match end {
                End::TimedOut => {
                    tracing::info!("a hook passed its deadline: stopping its process tree")
                }
                End::Aborted => tracing::debug!("run aborted: stopping a hook's process tree"),
                _ => tracing::debug!("terminateAll(): stopping a hook's process tree"),
            }
            // Its pipes are read through the grace, so what it prints while stopping is kept.
            let io_while_stopping = async {
                if !io_done {
                    io.as_mut().await;
                    io_done = true;
                }
            };
            let stopped = stop_tree(registration, &mut child, io_while_stopping).await;
            (stuck, stopped_with) = (stopped.stuck, stopped.status);
            if stuck {
                tracing::warn!(pid = child.id(), "a hook's process could not be stopped, even by SIGKILL; it is left to end on its own");
            }
        }
    }
    // An abort does not wait out the grace: the run is over for its caller.
    let pipes_closed = tokio::select! {
        closed = read_on(io, io_done, progress, grace) => closed,
        _ = abort.cancelled() => io_done,
    };
    if stuck {
        tokio::spawn(reap_eventually(child));
    }
    Ending {
        end,
        pipes_closed,
        grace,
        stuck,
        stopped_with,
    }
}

/// Stops a hook's tree: SIGTERM, then [`KILL_GRACE`] (spent on `meanwhile`, which never
/// shortens it), then SIGKILL, then the reap within [`REAP_LIMIT`]. The leader stays unreaped
/// until after SIGKILL, so its group id cannot be reused. Each signal goes to the process
/// group at once, and (Linux) to the processes that left it by a sweep on a blocking thread,
/// run through the grace and through the reap, so neither bound grows. Says whether the process
/// is stuck, and else the signal that ended it.
pub(super) async fn stop_tree(
    registration: &mut Registration,
    child: &mut HookChild,
    meanwhile: impl Future<Output = ()>,
) -> Stopped {
    registration.signal_group(Stop::Term);
    let grace_end = Instant::now() + KILL_GRACE;
    let escaped = sweep(registration.marked(), Stop::Term);
    tokio::pin!(meanwhile, escaped);
    let (mut meanwhile_done, mut escaped_done) = (false, false);
    loop {
        tokio::select! {
            _ = &mut meanwhile, if !meanwhile_done => meanwhile_done = true,
            _ = &mut escaped, if !escaped_done => escaped_done = true,
            _ = sleep_until(grace_end) => break,
        }
    }
    registration.signal_group(Stop::Kill);
    let reap_end = Instant::now() + REAP_LIMIT;
    let (_, reaped) = tokio::join!(
        timeout_at(reap_end, sweep(registration.marked(), Stop::Kill)),
        timeout_at(reap_end, exit_of(child)),
    );
    registration.swept();
    Stopped {
        stuck: reaped.is_err(),
        status: reaped.ok().and_then(Result::ok),
    }
}

/// Reaps a process that could not be stopped, whenever it finally ends.
pub(super) async fn reap_eventually(mut child: HookChild) {
    loop {
        match child.try_wait() {
            Ok(None) => sleep(Duration::from_secs(1)).await,
            Ok(Some(_)) | Err(_) => return,
        }
    }
}

/// Waits for the child's exit. tokio learns of it through a pidfd, or through SIGCHLD where
/// there is none (kernels before 5.3, seccomp profiles that deny `pidfd_open`); once the
/// host's libuv owns SIGCHLD that signal never reaches tokio. Checking with `waitpid(WNOHANG)`
/// at growing intervals (at most [`EXIT_POLL_MAX`]) sees the exit in every case.
pub(super) async fn exit_of(child: &mut HookChild) -> io::Result<ExitStatus> {
    let mut pause = Duration::from_millis(2);
    loop {
        tokio::select! {
            status = child.wait() => return status,
            _ = sleep(pause) => {
                if let Some(status) = child.try_wait()? {
                    return Ok(status);
                }
                pause = (pause * 2).min(EXIT_POLL_MAX);
            }
        }
    }
}

/// How a tree is stopped, for the hook author.
pub(super) fn stop_sequence() -> String {
    if cfg!(windows) {
        "its job object was terminated".to_owned()
    } else {
        format!("SIGTERM, then SIGKILL {} ms later", KILL_GRACE.as_millis())
    }
}

/// The end of a stop's failure sentence when its process was `stuck`; empty otherwise.
pub(super) fn could_not_stop(stuck: bool) -> String {
    if !stuck {
        return String::new();
    }
    format!(
        "; its process could not be stopped even by {} within {} ms (it is stuck in the kernel, for example on a hung network filesystem) and is left to end on its own",
        if cfg!(windows) {
            "terminating its job object"
        } else {
            "SIGKILL"
        },
        REAP_LIMIT.as_millis()
    )
}

#[cfg(test)]
mod tests {
    #[cfg(windows)]
    #[test]
    fn the_windows_stop_sentence_names_the_job_object_and_no_unix_signal() {
        let said = super::stop_sequence();
        assert!(said.contains("job object"), "{said}");
        assert!(!said.contains("SIG"), "{said}");
    }
}
