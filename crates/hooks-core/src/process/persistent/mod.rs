//! Persistent hooks (`mode=persistent` in a hook's header): one long-lived process answers
//! event after event, a line each, instead of a process started per event.
//!
//! # The protocol
//!
//! The process is started on its hook's first event and kept: one per (owner, hook file,
//! working directory). Each event is written to its stdin as one line of compact JSON whose last
//! field is the runtime's `hookEventId` (a caller's own top-level one is replaced; the word in
//! the content is content). What the process prints for the event, up to its answer line, is
//! read by the per-event reader and concluded by the per-event rules, exactly as a per-event
//! hook's whole stdout and exit are: how a hook is run changes what it costs, never what it
//! decides. Which bytes belong to which event is [`framing`]'s alone: the answer line is the
//! one echoing the event's id (from a process that echoes ids), else the first line ending
//! with a JSON object that holds a verdict field or is `{}`, found as the per-event reader
//! finds objects; with it goes whatever else it had printed by then; a line echoing another event's
//! id is skipped. An event that ends without its answer (exit, timeout, abort,
//! `terminateAll()`) is read from what it printed, a line without its newline included, as a
//! per-event hook's output is at the same ending. The hook gets `CLINE_HOOK_MODE=persistent`
//! in its environment, besides what every hook gets (the `CLINE_HOOK_*` variables are those of
//! the run that started it).
//!
//! # One event at a time
//!
//! A process serves one event at a time. An event that comes while it answers another runs
//! per event instead (a process of its own, with its full timeout): waiting its turn with its
//! deadline running would let a queue decide (a slow gate's second event timing out). A live
//! process holds a slot of the run that started it (see `slots`) for its whole life; an event
//! of another run takes a slot of its own run while it is answered.
//!
//! # When the process is replaced or stopped
//!
//! - **Deadline**: an event not answered by its deadline is `timedOut` and the whole process
//!   tree is stopped (as a per-event hook's); the next event starts a fresh process.
//! - **Abort or a dropped run** while its event is in flight: the event is `aborted` and the
//!   tree is stopped too. What the process had read of the event, and which event its next
//!   line would answer, are unknown: kept, it could hand its late answer to the next event.
//! - **Exit**: the event is read and concluded as a per-event hook that exited so; the next
//!   event starts the process again. After [`CRASH_LIMIT`] crashes (a non-zero exit or a
//!   signal) within [`CRASH_WINDOW`] the hook runs per event, a process for each event, until
//!   its file changes (see [`crash_disabled`]): it keeps deciding every event as its file does,
//!   and every run says so in a warning.
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
//! a per-event hook's is at each start, and held only while it is checked and started; a
//! running process is replaced once the file changes. An approved batch file runs per event
//! (see [`held_while_running`]): cmd.exe reads it as it runs, so only a run that holds it runs
//! the approved bytes, and a persistent process would hold it against its author for its life.
//!
//! # Detached runs
//!
//! A detached event runs per event (a process of its own, as a detached per-event hook's):
//! a persistent process is the host's, and would be stopped with it before the event is read.

mod crash_loop;
mod file_state;
mod framing;
mod job;
mod live;
mod pool;
mod session;

use std::sync::Arc;
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

pub use crash_loop::{crash_disabled, CRASH_LIMIT, CRASH_WINDOW};
pub use framing::{EVENT_ID_FIELD, LINE_KEEP};
pub use live::RETIRE_GRACE;
pub use pool::{retire_others, retire_scope};

use super::admission::terminated_before_start;
use super::execution::{Execution, FailureKind, RunContext, Status};
use super::run::run_hook_watched;
use crate::discovery::DiscoveredHook;
use crate::launch::LaunchKind;
use crate::observe::HookWatch;
use crate::policy::TrustState;
use job::{Job, Turn};
use pool::Handed;
use session::Session;

/// Runs one event on `hook`'s persistent process (started if none runs), waiting its turn
/// behind the events already sent to it; per event while it is in a crash loop. `deadline` is
/// when the event must be answered, `timeout` the hook's timeout the sentences name.
pub(crate) async fn run_persistent(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    timeout: Duration,
    watch: Option<&Arc<HookWatch>>,
) -> Execution {
    if let Some(why) = runs_per_event(hook) {
        let mut exec = per_event(hook, ctx, deadline, watch).await;
        exec.warnings.push(why);
        return exec;
    }
    let (job, answer) = Job::new(hook, ctx, deadline, timeout, watch);
    let (turn, since) = (job.turn.clone(), job.since);
    match pool::submit(job) {
        Handed::Sent => {}
        Handed::Opened(key, id, queue) => {
            // The new session's task runs on this runtime: pool.rs keeps the sessions,
            // session.rs serves one.
            tokio::spawn(Session::new(key, id, queue).run());
        }
        Handed::Busy(job) => {
            drop(job);
            tracing::debug!(hook = %hook.path.display(), "a busy persistent hook's event runs per event");
            return per_event(hook, ctx, deadline, watch).await;
        }
    }
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

/// Why `hook`, whose header asks for a persistent process, runs per event for now, if it does:
/// a crash loop, or a file that must stay held while it runs. The run and the listing ask this
/// same question.
fn runs_per_event(hook: &DiscoveredHook) -> Option<String> {
    crash_disabled(hook).or_else(|| held_while_running(hook))
}

/// Notes on the persistent hooks of `hooks` that run per event for now (after a crash loop,
/// see [`crash_disabled`]; or an approved batch file, which must stay held while it runs) why,
/// in their warnings, as their runs say it. For listings: they stay enabled, as runs take them.
pub fn note_per_event_runs(hooks: &mut [DiscoveredHook]) {
    for hook in hooks {
        if hook.enabled() && hook.settings.mode == crate::discovery::HookMode::Persistent {
            hook.warnings.extend(runs_per_event(hook));
        }
    }
}

/// Why `hook` runs per event although its header asks for a persistent process, when its file
/// must stay held for as long as its process runs: an approved batch file, which cmd.exe reads
/// a line at a time as it runs it (bytes saved later would run unchecked). A per-event run
/// holds it only for that event; a persistent process would lock it against its author (no
/// saving, renaming or deleting it on Windows) for its whole life. Pure.
fn held_while_running(hook: &DiscoveredHook) -> Option<String> {
    (hook.kind == LaunchKind::Cmd && hook.trust == TrustState::Approved).then(|| {
        format!(
            "{} runs per event, not as a persistent process: it is an approved batch file, which cmd.exe reads as it runs, so it is held for each run (a persistent process would lock it for its life); make it a .ps1 or an .exe to keep one process",
            hook.path.display()
        )
    })
}

/// Runs `hook`'s file per event (a process of its own, without `CLINE_HOOK_MODE`): for an
/// event that comes while its process answers another, or while it crash-loops. The same file
/// decides, with its full timeout.
async fn per_event(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    watch: Option<&Arc<HookWatch>>,
) -> Execution {
    let mut per_event = hook.clone();
    per_event.settings.mode = crate::discovery::HookMode::PerEvent;
    run_hook_watched(&per_event, ctx, deadline, watch).await
}

/// The record of an event whose session vanished (its runtime shut down under it).
fn lost(hook: &DiscoveredHook, since: Instant) -> Execution {
    let mut exec = Execution::of(hook, Status::Failed);
    exec.failure = Some("internal error in @cline/hooks: its persistent process's session ended before answering (was its runtime shut down?)".to_owned());
    exec.failure_kind = Some(FailureKind::Crash);
    exec.duration = since.elapsed();
    exec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_approved_batch_file_runs_per_event_and_the_warning_says_why_and_what_to_do() {
        let mut hook = DiscoveredHook::sample(r"C:\w\.clinerules\hooks\PreToolUse.cmd");
        hook.kind = LaunchKind::Cmd;
        assert_eq!(
            held_while_running(&hook),
            None,
            "not approved: nothing to hold"
        );
        hook.trust = TrustState::Approved;
        let why = held_while_running(&hook).expect("an approved batch file runs per event");
        assert!(
            why.starts_with(r"C:\w\.clinerules\hooks\PreToolUse.cmd runs per event"),
            "{why}"
        );
        assert!(why.contains("make it a .ps1 or an .exe"), "{why}");
        for kind in [LaunchKind::PowerShell, LaunchKind::Direct] {
            hook.kind = kind;
            assert_eq!(
                held_while_running(&hook),
                None,
                "{kind:?} is read once, at its start"
            );
        }
    }
}
