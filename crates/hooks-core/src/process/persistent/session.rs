//! One session: the task that serves a persistent hook's events for one (owner, file, working
//! directory), one at a time in the order they came, on one live process it starts, keeps,
//! replaces (file changed, crashed, timed out) and retires when idle.

use std::io;
use std::process::ExitStatus;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{sleep_until, Instant};

use super::crash_loop::{forget, note_crash};
use super::file_state::FileState;
use super::job::{Job, Turn};
use super::live::{EventLog, Idle, Live, Served, Stop};
use super::pool::{self, Key};
use crate::process::admission::terminated_before_start;
use crate::process::deadline::End;
use crate::process::execution::{Execution, FailureKind, Status};
use crate::process::exit_status::exit_failure;

/// As far ahead as an idle timer is set.
const CENTURY: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 24 * 3600);

/// A session's state: its queue and its process, if one runs.
pub(super) struct Session {
    key: Key,
    id: u64,
    rx: UnboundedReceiver<Job>,
    live: Option<Live>,
    /// When the live process has been idle long enough.
    idle_until: Instant,
    /// How the previous process ended while idle, told with the next event.
    ended_idle: Option<String>,
}

impl Session {
    pub(super) fn new(key: Key, id: u64, rx: UnboundedReceiver<Job>) -> Session {
        Session {
            key,
            id,
            rx,
            live: None,
            idle_until: Instant::now(),
            ended_idle: None,
        }
    }

    /// Serves events until none is left and no process runs. Dropped with its runtime, it
    /// drops its process's registration, which kills the tree.
    pub(super) async fn run(mut self) {
        loop {
            let job = match self.live.as_mut() {
                None => match self.rx.try_recv() {
                    Ok(job) => job,
                    // What ended the last process is told with the next event: the session
                    // stays (no process, one waiting task) until it comes.
                    Err(_) if self.ended_idle.is_some() => match self.rx.recv().await {
                        Some(job) => job,
                        None => return,
                    },
                    Err(_) => match pool::leave(&self.key, self.id, &mut self.rx) {
                        None => return,
                        Some(job) => job,
                    },
                },
                Some(live) => {
                    let limiter = live.limiter.clone();
                    tokio::select! {
                        biased;
                        job = self.rx.recv() => match job {
                            Some(job) => job,
                            None => {
                                if let Some(live) = self.live.take() {
                                    live.retire().await;
                                }
                                return;
                            }
                        },
                        idle = live.idle() => {
                            match idle {
                                Idle::Exited(status) => {
                                    self.ended_idle = Some(idle_exit(&status, &live.stderr_text()));
                                    self.live = None;
                                }
                                Idle::Terminated => {
                                    if let Some(live) = self.live.take() {
                                        live.stop(None).await;
                                    }
                                }
                                Idle::OutOfStep(line) => {
                                    self.ended_idle = Some(format!(
                                        "its persistent process printed a JSON object line between events ({line}): an answer to no event, or a second one, after which its answers could belong to the wrong event; so it was replaced by a fresh process. A persistent hook prints exactly one JSON object line per event, and logs on stderr"
                                    ));
                                    if let Some(live) = self.live.take() {
                                        tokio::spawn(live.retire());
                                    }
                                }
                            }
                            continue;
                        }
                        _ = sleep_until(self.idle_until) => {
                            if let Some(live) = self.live.take() {
                                tracing::debug!(pid = live.pid, "an idle persistent hook is retired");
                                tokio::spawn(live.retire());
                            }
                            continue;
                        }
                        // Another hook waits for the slot it holds: given back.
                        _ = crate::process::slots::asked_for(&limiter) => {
                            if let Some(live) = self.live.take() {
                                tracing::debug!(pid = live.pid, "an idle persistent hook gives its slot to a waiting hook");
                                tokio::spawn(live.retire());
                            }
                            continue;
                        }
                    }
                }
            };
            self.serve(job).await;
        }
    }

    /// Serves one event and sends its execution to its caller.
    async fn serve(&mut self, mut job: Job) {
        if !job.turn.leave_queue(Turn::Taken) {
            return; // Its caller gave up waiting; it is reported already.
        }
        let mut exec = Execution::of(&job.hook, Status::Failed);
        exec.timeout = job.timeout;
        if let Some((status, why)) = gone_before_its_turn(&job) {
            exec.status = status;
            exec.failure_kind = FailureKind::of_unstarted(status);
            exec.failure = Some(why);
            return reply(job, exec);
        }
        self.replace_if_outdated(&job).await;
        // A process that exited after its last answer (and was not yet seen to) never reads
        // this event: it goes to a fresh one, and the exit is told with it.
        if let Some(live) = self.live.as_mut() {
            if let Some(status) = live.exited_now() {
                self.ended_idle = Some(idle_exit(&status, &live.stderr_text()));
                self.live = None;
            }
        }
        // An event of another run (another limiter) counts against its own run's cap while
        // it is answered; the process's own slot is its starting run's.
        let mut _event_slot = None;
        if self
            .live
            .as_ref()
            .is_some_and(|live| !Arc::ptr_eq(&live.limiter, &job.limiter))
        {
            match take_slot(&mut job).await {
                Ok(slot) => _event_slot = Some(slot),
                Err((status, why)) => {
                    exec.status = status;
                    exec.failure_kind = FailureKind::of_unstarted(status);
                    exec.failure = Some(why);
                    return reply(job, exec);
                }
            }
        }
        // At most one retry: an event handed to a process that exited before reading it.
        let mut retried = false;
        loop {
            if self.live.is_none() {
                // A process holds a slot of the run that starts it for its whole life.
                let slot = match take_slot(&mut job).await {
                    Ok(slot) => slot,
                    Err((status, why)) => {
                        exec.status = status;
                        exec.failure_kind = FailureKind::of_unstarted(status);
                        exec.failure = Some(why);
                        return reply(job, exec);
                    }
                };
                exec.warnings.extend(self.ended_idle.take());
                self.live = Live::start(&job, &mut exec, slot).await;
            }
            let Some(live) = self.live.as_mut() else {
                exec.duration = job.since.elapsed();
                return reply(job, exec);
            };
            exec.started = true;
            if let Some(watch) = &job.watch {
                watch.start();
            }
            // However the event ends, its output is read and concluded by the per-event rules.
            let mut log = EventLog::new(&job);
            let cwd = job.cwd.clone();
            match live.serve(&mut job, &mut log).await {
                Served::Answered => {
                    live.stderr_now(&mut log).await;
                    log.conclude(
                        live.framing(),
                        &mut exec,
                        End::Answered,
                        None,
                        &job.hook,
                        &cwd,
                    )
                    .await;
                }
                Served::Closed(pipe) => {
                    live.stderr_now(&mut log).await;
                    if let Some(live) = self.live.take() {
                        let (stopped, mut framing) = live.stop(Some(&mut log)).await;
                        log.conclude(
                            &mut framing,
                            &mut exec,
                            End::Closed(pipe),
                            Some(stopped),
                            &job.hook,
                            &cwd,
                        )
                        .await;
                    }
                }
                Served::Exited(status) => {
                    let stderr = live.stderr_text();
                    // It ended without reading the event (it was on its way out after its last
                    // answer): the event goes to a fresh process, once.
                    if !retried && log.printed_nothing() && live.never_read(job.line.len()) {
                        self.ended_idle = Some(idle_exit(&status, &stderr));
                        self.live = None;
                        retried = true;
                        continue;
                    }
                    let file = live.file.clone();
                    let clean = matches!(&status, Ok(s) if s.success());
                    let sentence = exit_sentence(&status, &stderr);
                    log.conclude(
                        live.framing(),
                        &mut exec,
                        End::Exited(status),
                        None,
                        &job.hook,
                        &cwd,
                    )
                    .await;
                    self.live = None;
                    ended(&mut exec, &job, clean, &sentence, &stderr, &file);
                }
                Served::Stop(stop) => {
                    if let Some(live) = self.live.take() {
                        let (stopped, mut framing) = live.stop(Some(&mut log)).await;
                        let end = match stop {
                            Stop::TimedOut => End::TimedOut,
                            Stop::Aborted => End::Aborted,
                            Stop::Terminated => End::Terminated,
                        };
                        log.conclude(&mut framing, &mut exec, end, Some(stopped), &job.hook, &cwd)
                            .await;
                        exec.warnings.push(stopped_note(stop));
                    }
                }
            }
            break;
        }
        if self.live.as_ref().is_some_and(|live| live.out_of_step) {
            if let Some(live) = self.live.take() {
                exec.warnings.push("it answered before reading all of its event, whose rest could not be written by its deadline, or printed two JSON object lines at once; its process was retired (a persistent hook reads each event line whole, then prints exactly one JSON object line)".to_owned());
                tokio::spawn(live.retire());
            }
        }
        exec.duration = job.since.elapsed();
        // A `persistent_idle` of `Duration::MAX` means never, not an overflow.
        let now = Instant::now();
        self.idle_until = now
            .checked_add(job.idle)
            .or_else(|| now.checked_add(CENTURY))
            .unwrap_or(now);
        tracing::debug!(
            hook = %job.hook.path.display(),
            status = exec.status.as_str(),
            failure = exec.failure.as_deref(),
            "persistent hook answered an event"
        );
        reply(job, exec);
    }

    /// Retires the live process (EOF, then its tree stopped a second later, in the
    /// background) when it runs another version of the file than `job`'s, or was started with
    /// another environment.
    async fn replace_if_outdated(&mut self, job: &Job) {
        let Some(live) = &self.live else { return };
        let now = FileState::of(&job.hook).await;
        let changed = live.file.changed(&now);
        if !changed && live.start_with == job.start_with {
            return;
        }
        if changed {
            forget(&job.hook.path);
        }
        if let Some(live) = self.live.take() {
            tracing::debug!(pid = live.pid, changed, "a persistent hook is replaced");
            tokio::spawn(live.retire());
        }
    }
}

/// Sends `exec` to the event's caller (who may have gone: the run was dropped); the event is
/// no longer in flight first, so the caller's next event finds the session free.
fn reply(mut job: Job, exec: Execution) {
    drop(job.in_flight.take());
    let _ = job.reply.send(exec);
}

/// Why an event taken from the queue is not served: its run was aborted or dropped, or
/// `terminateAll()` came, or its deadline passed, while it waited.
fn gone_before_its_turn(job: &Job) -> Option<(Status, String)> {
    if job.abort.is_cancelled() || job.reply.is_closed() {
        return Some((
            Status::Aborted,
            "the run was aborted before this hook started".to_owned(),
        ));
    }
    if job.start_permission.is_cancelled() {
        return Some(terminated_before_start());
    }
    (Instant::now() >= job.deadline).then(|| (Status::TimedOut, waited_in_queue(job.timeout)))
}

/// Why an event never got its turn on its persistent process before its deadline.
pub(super) fn waited_in_queue(timeout: std::time::Duration) -> String {
    format!(
        "waited {} ms behind earlier events of this persistent hook (one event at a time per process) and never got its turn; the process serving them was left alone",
        timeout.as_millis()
    )
}

/// Waits for one of the run's process slots, for a process to start: a persistent process
/// counts as a running hook for its whole life, as the limit means. Until the deadline, an
/// abort, a dropped run or `terminateAll()`.
async fn take_slot(job: &mut Job) -> Result<OwnedSemaphorePermit, (Status, String)> {
    let limiter = job.limiter.clone();
    tokio::select! {
        biased;
        _ = job.abort.cancelled() => Err((Status::Aborted, "the run was aborted before this hook started".to_owned())),
        _ = job.reply.closed() => Err((Status::Aborted, "the run was aborted before this hook started".to_owned())),
        _ = job.start_permission.cancelled() => Err(terminated_before_start()),
        permit = crate::process::slots::acquire(&limiter) => permit.map_err(|_| {
            (Status::Failed, "internal error in @cline/hooks: the hook slots were closed (please report it)".to_owned())
        }),
        _ = sleep_until(job.deadline) => Err((
            Status::TimedOut,
            format!(
                "waited {} ms for a free hook slot (too many hooks running at once) and never got its turn",
                job.timeout.as_millis()
            ),
        )),
    }
}

/// How an exit reads for the hook's author: the per-event sentence, or exit 0 said as such.
fn exit_sentence(status: &io::Result<ExitStatus>, stderr: &str) -> String {
    match status {
        Ok(status) => {
            exit_failure(status, stderr).unwrap_or_else(|| "exited with code 0".to_owned())
        }
        Err(err) => format!("could not be waited for ({err})"),
    }
}

/// The warning for the next event of a process that ended while idle.
fn idle_exit(status: &io::Result<ExitStatus>, stderr: &str) -> String {
    format!(
        "its previous persistent process {} while waiting for an event; this event started a new one",
        exit_sentence(status, stderr)
    )
}

/// What an exit during an event adds to its record (read and concluded as a per-event
/// hook's exit): the process is gone, and a crash counts towards the crash loop.
fn ended(
    exec: &mut Execution,
    job: &Job,
    clean: bool,
    sentence: &str,
    stderr: &str,
    file: &FileState,
) {
    if clean {
        exec.warnings.push(format!(
            "its persistent process {sentence} during the event; the next event starts a new one"
        ));
        return;
    }
    let then = match note_crash(&job.hook.path, file, stderr) {
        Some(_) => format!(
            "it has crashed {} times within {} s, so from now on it runs per event (a process for each event) until its file changes",
            super::crash_loop::CRASH_LIMIT,
            super::crash_loop::CRASH_WINDOW.as_secs()
        ),
        None => "the next event starts it again".to_owned(),
    };
    exec.warnings.push(format!(
        "its persistent process {sentence} during the event; {then}"
    ));
}

/// What a stop adds to an event's record: its process is gone.
fn stopped_note(stop: Stop) -> String {
    let why = match stop {
        Stop::TimedOut => "at the event's timeout",
        // What it had read of the event, and which event its next line would answer, are
        // unknown: a process kept after an event it did not answer could hand its late
        // answer to the next event.
        Stop::Aborted => "as it was in the middle of the event when the run was aborted",
        Stop::Terminated => "by terminateAll() (or its factory's dispose())",
    };
    format!("its persistent process tree was stopped {why}; the next event starts a fresh process")
}
