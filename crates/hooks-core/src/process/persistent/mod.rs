//! Persistent hooks (`mode=persistent` in a hook's header): one long-lived process answers
//! event after event, a line each, instead of a process started per event.
//!
//! # The protocol
//!
//! The process is started on its hook's first event and kept: one per (owner, hook file,
//! working directory). Each event is written to its stdin as one line of compact JSON; its
//! answer is the next line of its stdout that is a JSON object, read exactly as a per-event
//! hook's stdout is (the same verdict fields, caps and checks). Other stdout lines are its log
//! (kept in the event's `stdout_tail`, sent to an observer as output lines); so is what it
//! prints on stderr during the event (the event's `stderr`, the last 16 KiB). A line that
//! starts with `{` (after blanks and a byte-order mark) but is not one JSON object fails the
//! event (`invalidOutput`), and the process is kept: the protocol is still in step. Lines are
//! read up to [`ANSWER_LINE_MAX`] bytes: a longer answer fails its event, a longer log line is
//! cut. The hook gets `CLINE_HOOK_MODE=persistent` in its environment, besides what every
//! hook gets (the `CLINE_HOOK_*` variables are those of the run that started it).
//!
//! # One event at a time
//!
//! A process serves one event at a time, in the order they came; the others wait, their
//! deadline running. An event whose deadline passes while it waits is `timedOut` and never
//! written; the process serving another event is left alone. Events count against the run's
//! process limit while they are served, not while they wait.
//!
//! # When the process is replaced or stopped
//!
//! - **Deadline**: an event not answered by its deadline is `timedOut` and the whole process
//!   tree is stopped (as a per-event hook's); the next event starts a fresh process.
//! - **Abort or a dropped run** while its event is in flight: the event is `aborted` and the
//!   tree is stopped too. What the process had read of the event, and which event its next
//!   line would answer, are unknown: kept, it could hand its late answer to the next event.
//! - **Exit or crash**: the event in flight fails (`crash`, with the exit code or signal and
//!   its last stderr line); the next event starts it again. After [`CRASH_LIMIT`] crashes
//!   within [`CRASH_WINDOW`] the hook is disabled until its file changes (see
//!   [`crash_disabled`]: runs report it skipped, listings disabled, with its last stderr
//!   lines). A process that exits while idle is started again by the next event, which says
//!   so in a warning.
//! - **A changed file** (its sha256 from discovery, size or modification time, checked at
//!   each event) or a run with another `env` or `scrubEnv`: the old process gets EOF on its
//!   stdin and, if it has not exited [`RETIRE_GRACE`] later, its tree is stopped; the event
//!   runs on a fresh process.
//! - **Idle** for the run's `persistent_idle` (default 5 minutes): retired the same way.
//! - **`terminate_all()`** stops it (and counts it), host teardown (`kill_now`) kills it, and
//!   the watchdog stops it if the host dies: its tree is registered for its whole life, like a
//!   running per-event hook's.
//!
//! Each session is a task of the runtime that first ran the hook: nothing here keeps a
//! runtime (or Node) alive, and a runtime that shuts down drops the task, which kills the
//! process. An approved hook's file is checked against its approval at each process start, as
//! a per-event hook's is at each start; a running process is replaced once the file changes.
//!
//! # Detached runs
//!
//! A detached run hands the event over and returns at once (`started`); the event is served
//! in turn like any other, its deadline still applying (a persistent process is shared, so an
//! event it never answers must not hold the ones behind it).

mod answer;
mod crash_loop;
mod file_state;
mod job;
mod live;
mod pool;
mod session;

use std::sync::Arc;
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

pub use answer::ANSWER_LINE_MAX;
pub use crash_loop::{crash_disabled, disable_crash_loops, CRASH_LIMIT, CRASH_WINDOW};
pub use live::RETIRE_GRACE;
pub use pool::retire_others;

use super::admission::terminated_before_start;
use super::execution::{Execution, FailureKind, RunContext, Status};
use crate::discovery::DiscoveredHook;
use crate::observe::HookWatch;
use job::{Job, Turn};

/// The variable that tells a hook it runs as a persistent process: `persistent`.
pub const MODE_VAR: &str = "CLINE_HOOK_MODE";

/// Runs one event on `hook`'s persistent process (started if none runs), waiting its turn
/// behind the events already sent to it. `deadline` is when the event must be answered,
/// `timeout` the hook's timeout the sentences name.
pub(crate) async fn run_persistent(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    timeout: Duration,
    watch: Option<&Arc<HookWatch>>,
) -> Execution {
    let (job, answer) = Job::new(hook, ctx, deadline, timeout, watch);
    let (turn, since) = (job.turn.clone(), job.since);
    pool::submit(job);
    tokio::pin!(answer);
    let gave_up = tokio::select! {
        answered = &mut answer => return answered.unwrap_or_else(|_| lost(hook, since)),
        _ = sleep_until(deadline) => (Status::TimedOut, session::waited_in_queue(timeout)),
        _ = ctx.abort.cancelled() => (Status::Aborted, "the run was aborted before this hook started".to_owned()),
        _ = ctx.start_permission.cancelled() => terminated_before_start(),
    };
    if turn.leave_queue(Turn::GivenUp) {
        let mut exec = Execution::of(hook, gave_up.0);
        exec.failure_kind = FailureKind::of_unstarted(gave_up.0);
        exec.failure = Some(gave_up.1);
        exec.duration = since.elapsed();
        return exec;
    }
    // Its turn has come: the session ends it (at its deadline too) and answers.
    answer.await.unwrap_or_else(|_| lost(hook, since))
}

/// Hands one event of a detached run to `hook`'s persistent process and returns at once
/// (`started`): the event is served in turn, its deadline applying.
pub(crate) fn hand_over_detached(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    timeout: Duration,
) -> Execution {
    let (job, answer) = Job::new(hook, ctx, deadline, timeout, None);
    pool::submit(job);
    // Nobody reads the answer; kept so the session sees a caller still there.
    tokio::spawn(answer);
    let mut exec = Execution::of(hook, Status::Started);
    exec.started = true;
    exec
}

/// The record of an event whose session vanished (its runtime shut down under it).
fn lost(hook: &DiscoveredHook, since: Instant) -> Execution {
    let mut exec = Execution::of(hook, Status::Failed);
    exec.failure = Some("internal error in @cline/hooks: its persistent process's session ended before answering (was its runtime shut down?)".to_owned());
    exec.failure_kind = Some(FailureKind::Crash);
    exec.duration = since.elapsed();
    exec
}
