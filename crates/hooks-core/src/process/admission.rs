//! What a hook goes through before it starts: it must be startable and get one of the run's
//! process slots before its deadline, unless the run is aborted or `terminateAll()` comes
//! first; and the record of a hook turned away.

use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{sleep, sleep_until, Instant};
use tokio_util::sync::CancellationToken;

use super::execution::{Execution, FailureKind, RunContext, Status};
use crate::discovery::DiscoveredHook;
use crate::process::Registration;

/// Admits `hook` to start: a process slot, held until its process ends, and its registration,
/// made before the start. The error is the hook's status and why it never started.
pub(super) async fn admit(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    detached: bool,
) -> Result<(OwnedSemaphorePermit, Registration), (Status, String)> {
    if let Some(why) = &hook.launch_error {
        return Err((Status::Failed, format!("could not start: {why}")));
    }
    let permit = wait_for_slot(ctx, ctx.timeout_of(hook), deadline).await?;
    // Registered before the start, then asked again: a `terminateAll()` from here on either
    // finds this registration or has already withdrawn the permission to start.
    let registration = Registration::reserve(ctx.owner, detached);
    if ctx.start_permission.is_cancelled() {
        return Err(terminated_before_start());
    }
    Ok((permit, registration))
}

/// The record of a hook that never started, with its status and why.
pub(super) fn not_started(
    hook: &DiscoveredHook,
    (status, why): (Status, String),
    since: Instant,
) -> Execution {
    let mut exec = Execution::of(hook, status);
    exec.failure = Some(why);
    exec.failure_kind = match FailureKind::of_unstarted(status) {
        // Failed here without a launch error: the slots were closed, an internal error.
        Some(FailureKind::StartFailure) if hook.launch_error.is_none() => Some(FailureKind::Crash),
        kind => kind,
    };
    exec.duration = since.elapsed();
    exec
}

/// The status and the reason of a hook that `terminateAll()` stopped before it started.
pub(super) fn terminated_before_start() -> (Status, String) {
    (
        Status::Aborted,
        "was stopped by terminateAll() (or its factory's dispose()) before it started".to_owned(),
    )
}

/// The status and the reason of a hook whose run was aborted before it started.
fn aborted_before_start() -> (Status, String) {
    (
        Status::Aborted,
        "the run was aborted before this hook started".to_owned(),
    )
}

/// Waits `pause` before another try at a start the system refused (`refusal`), unless the
/// deadline, an abort or `terminateAll()` (`stop`, the hook's registration's) comes first:
/// then the hook never starts, and the error is its status and why.
pub(super) async fn wait_to_retry(
    ctx: &RunContext,
    stop: &CancellationToken,
    (deadline, timeout): (Instant, Duration),
    pause: Duration,
    refusal: String,
) -> Result<(), (Status, String)> {
    tokio::select! {
        // A stop that has come already wins over a pause that has not ended.
        biased;
        _ = ctx.abort.cancelled() => Err(aborted_before_start()),
        _ = stop.cancelled() => Err(terminated_before_start()),
        _ = sleep_until(deadline) => Err((
            Status::TimedOut,
            format!(
                "never started: the system refused to start it ({refusal}) until its timeout of {} ms",
                timeout.as_millis()
            ),
        )),
        _ = sleep(pause) => Ok(()),
    }
}

/// Waits for a free process slot, until the deadline, an abort or `terminateAll()`.
async fn wait_for_slot(
    ctx: &RunContext,
    timeout: Duration,
    deadline: Instant,
) -> Result<OwnedSemaphorePermit, (Status, String)> {
    if ctx.start_permission.is_cancelled() {
        return Err(terminated_before_start());
    }
    tokio::select! {
        // An abort or `terminateAll()` that has come already wins over a free slot.
        biased;
        _ = ctx.abort.cancelled() => Err(aborted_before_start()),
        _ = ctx.start_permission.cancelled() => Err(terminated_before_start()),
        permit = crate::process::slots::acquire(&ctx.limiter) => permit.map_err(|_| {
            (Status::Failed, "internal error in @cline/hooks: the hook slots were closed (please report it)".to_owned())
        }),
        _ = sleep_until(deadline) => Err((
            Status::TimedOut,
            format!(
                "waited {} ms for a free hook slot (too many hooks running at once) and never started",
                timeout.as_millis()
            ),
        )),
    }
}
