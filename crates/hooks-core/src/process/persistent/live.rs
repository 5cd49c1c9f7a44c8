//! One live persistent process: started at the head of its own tree (registered, announced to
//! the watchdog, trust checked, like a per-event hook), its stdin written an event line at a
//! time while its stdout is read line by line and the tail of its stderr kept; how one event
//! ends on it; and how it is retired (EOF on stdin, then its tree stopped a second later).

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::time::{sleep, sleep_until, timeout, timeout_at, Instant};

use super::answer::{classify, printed_cancel, quote, LineSplitter, Said, ANSWER_LINE_MAX};
use super::file_state::FileState;
use super::job::{Job, StartWith};
use crate::discovery::Profile;
use crate::observe::Lines;
use crate::process::admission::terminated_before_start;
use crate::process::deadline::{exit_of, reap_eventually, stop_tree};
use crate::process::execution::{Execution, FailureKind, Status};
use crate::process::pipes::{Tail, PIPE_FLOW_MAX, PIPE_GRACE, STDERR_KEEP};
use crate::process::spawn::{spawn_watched, NotStarted};
use crate::process::spawn_failure::explain_start_error;
use crate::process::verified_start::{verify, VerifiedFile};
use crate::process::Registration;

/// How long a retired process has, after EOF on its stdin, to exit on its own before its tree
/// is stopped.
pub const RETIRE_GRACE: Duration = Duration::from_secs(1);

/// Bytes read from a pipe at once.
const READ_CHUNK: usize = 64 << 10;

/// A persistent hook's process, running.
pub(super) struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    lines: LineSplitter,
    registration: Registration,
    /// The checked file of an approved hook, held while it runs (on Windows, that is the lock).
    _verified: Option<VerifiedFile>,
    /// The last of its stderr over its whole life: why it crashed, when it does.
    stderr_tail: Tail,
    out_buf: Box<[u8]>,
    err_buf: Box<[u8]>,
    /// The version of its file it was started from.
    pub file: FileState,
    /// What it was started with.
    pub start_with: StartWith,
    /// Its process id, for logs.
    pub pid: Option<u32>,
    /// It answered before its event was written whole: its stdin is in the middle of a line,
    /// so the next event would not reach it as a line of its own. It is retired.
    pub out_of_step: bool,
    /// It has answered with its event's `hookEventId`: from then on a JSON line that echoes
    /// none is not an answer (a log line that looks like one), so none is taken for another's.
    echoes_ids: bool,
}

/// What one event's turn on a process saw: its share of the output.
pub(super) struct EventLog {
    stdout: Tail,
    stderr: Tail,
    watch: Option<(Lines, Lines)>,
    /// The start of a line that was not its answer but printed `"cancel": true`.
    cancel_in: Option<String>,
    /// The start of an answer to another event (it echoed another id), skipped.
    stale: Option<String>,
}

impl EventLog {
    pub(super) fn new(job: &Job) -> EventLog {
        EventLog {
            stdout: Tail::new(STDERR_KEEP),
            stderr: Tail::new(STDERR_KEEP),
            watch: job.watch.as_ref().map(|w| (w.lines(true), w.lines(false))),
            cancel_in: None,
            stale: None,
        }
    }

    /// Notes an answer that echoed another event's id, or none from a hook that echoes them:
    /// skipped, and said.
    fn stale_answer(&mut self, line: &[u8]) {
        self.stale.get_or_insert_with(|| quote(line));
    }

    /// Notes a line that is not the answer but printed `"cancel": true`.
    fn cancel_in(&mut self, line: &[u8]) {
        self.cancel_in.get_or_insert_with(|| quote(line));
    }

    fn stdout(&mut self, bytes: &[u8]) {
        self.stdout.push(bytes);
        if let Some((out, _)) = &mut self.watch {
            out.push(bytes);
        }
    }

    fn stderr(&mut self, bytes: &[u8]) {
        self.stderr.push(bytes);
        if let Some((_, err)) = &mut self.watch {
            err.push(bytes);
        }
    }

    /// The event is over: its output goes into `exec`.
    pub(super) fn into_execution(mut self, exec: &mut Execution) {
        if let Some((out, err)) = &mut self.watch {
            out.finish();
            err.finish();
        }
        exec.stdout_tail = self.stdout.text();
        exec.stderr = self.stderr.text();
        exec.output_bytes = (self.stdout.total(), self.stderr.total());
        if let Some(line) = self.stale {
            exec.warnings.push(format!(
                "it printed a JSON object line that is not the answer to this event ({line}: its hookEventId is another event's, or missing where its answers carry one), which was skipped"
            ));
        }
        // A printed cancel is never dropped: an event that ends without an answer that says
        // otherwise blocks when a line of it printed one.
        if let Some(line) = self.cancel_in {
            if exec.status != Status::Completed && !exec.cancel {
                exec.cancel = true;
                exec.warnings.push(format!(
                    "it printed \"cancel\": true in a line that was not its answer ({line}) and then gave no answer, so the cancel counts"
                ));
            }
        }
    }
}

/// How one event's turn on a process ended.
pub(super) enum Served {
    /// It printed a line that is a JSON object: the answer. The process stays.
    Answered(Box<crate::verdict::Verdict>),
    /// It printed a line that starts with `{` and is not one; the process stays.
    Broken(String),
    /// It closed its stdout (or stdin) and lives on: it can never answer.
    Closed(&'static str),
    /// Its process ended first (it is reaped); `answer` when it answered as it went.
    Exited {
        status: io::Result<ExitStatus>,
        answer: Option<Said>,
    },
    /// The event's deadline passed, its run was aborted or dropped, or `terminateAll()` came:
    /// the process must be stopped.
    Stop(Stop),
}

/// Why a process serving an event must be stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    TimedOut,
    Aborted,
    Terminated,
}

/// What ended an idle process's wait.
pub(super) enum Idle {
    /// It exited on its own (reaped).
    Exited(io::Result<ExitStatus>),
    /// `terminateAll()` asked it to stop.
    Terminated,
    /// It printed a JSON object line between events (an answer to no event, or a second
    /// one): its next answer cannot be told from a stale one, so it must be replaced. The
    /// text says what it printed.
    OutOfStep(String),
}

impl Live {
    /// Starts `job`'s hook for it: trust checked on the bytes about to start, registered
    /// before the start, announced to the watchdog, `CLINE_HOOK_MODE=persistent` in its
    /// environment. On failure `exec` says why and nothing runs.
    pub(super) async fn start(job: &Job, exec: &mut Execution) -> Option<Live> {
        let hook = &job.hook;
        let mut registration = Registration::reserve(job.owner, false);
        if job.start_permission.is_cancelled() || registration.stop.is_cancelled() {
            let (status, why) = terminated_before_start();
            exec.status = status;
            exec.failure = Some(why);
            return None;
        }
        let verified = match verify(hook).await {
            Ok(verified) => verified,
            Err(why) => {
                exec.status = Status::Failed;
                exec.failure = Some(why);
                return None;
            }
        };
        let file = FileState::of(hook).await;
        let env = job.start_with.env.clone();
        let stop = registration.stop.clone();
        let wait = |pause: Duration, refusal: String| {
            let (abort, stop, deadline, timeout) =
                (job.abort.clone(), stop.clone(), job.deadline, job.timeout);
            async move {
                tokio::select! {
                    biased;
                    _ = abort.cancelled() => Err((Status::Aborted, "the run was aborted before this hook started".to_owned())),
                    _ = stop.cancelled() => Err(terminated_before_start()),
                    _ = sleep_until(deadline) => Err((Status::TimedOut, format!(
                        "never started: the system refused to start it ({refusal}) until its timeout of {} ms",
                        timeout.as_millis()
                    ))),
                    _ = sleep(pause) => Ok(()),
                }
            }
        };
        let spawned = spawn_watched(
            hook,
            &job.cwd,
            (&env, &job.start_with.env_remove, &job.run),
            &mut registration,
            &mut exec.warnings,
            verified.as_ref(),
            wait,
        )
        .await;
        let mut child = match spawned {
            Ok(child) => child,
            Err(NotStarted::Stopped(status, why)) => {
                exec.status = status;
                exec.failure_kind = FailureKind::of_unstarted(status);
                exec.failure = Some(why);
                return None;
            }
            Err(NotStarted::Failed(err)) => {
                exec.status = Status::Failed;
                exec.failure = Some(explain_start_error(&err, hook, &job.cwd));
                exec.failure_kind = Some(FailureKind::StartFailure);
                return None;
            }
        };
        let pid = child.id();
        tracing::debug!(hook = %hook.path.display(), pid, "persistent hook started");
        Some(Live {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            child,
            lines: LineSplitter::new(ANSWER_LINE_MAX),
            registration,
            _verified: verified,
            stderr_tail: Tail::new(STDERR_KEEP),
            out_buf: vec![0u8; READ_CHUNK].into_boxed_slice(),
            err_buf: vec![0u8; READ_CHUNK].into_boxed_slice(),
            file,
            start_with: job.start_with.clone(),
            pid,
            out_of_step: false,
            echoes_ids: false,
        })
    }

    /// The last of its stderr over its life.
    pub(super) fn stderr_text(&mut self) -> String {
        self.stderr_tail.text()
    }

    /// Writes `job`'s event and reads until its answer, or until its process ends, the
    /// deadline passes, the run is aborted or dropped, or `terminateAll()` comes. The write
    /// never blocks a thread: a hook that does not read its stdin only holds its own event.
    pub(super) async fn serve(&mut self, job: &mut Job, log: &mut EventLog) -> Served {
        let Live {
            child,
            stdin,
            stdout,
            stderr,
            lines,
            registration,
            stderr_tail,
            out_buf,
            err_buf,
            out_of_step,
            echoes_ids,
            ..
        } = self;
        let line = job.line.clone();
        let write = async {
            match stdin.as_mut() {
                Some(stdin) => {
                    stdin.write_all(&line).await?;
                    stdin.flush().await
                }
                None => Err(io::Error::from(io::ErrorKind::BrokenPipe)),
            }
        };
        tokio::pin!(write);
        let mut written = false;
        let (abort, stop, deadline) = (job.abort.clone(), registration.stop.clone(), job.deadline);
        // A pipe that ended: an exit usually follows at once (and says more); a process that
        // lives on without its stdin or stdout can never answer.
        macro_rules! ended {
            ($pipe:expr) => {{
                let Ok(status) = timeout(CLOSED_GRACE, exit_of(child)).await else {
                    return Served::Closed($pipe);
                };
                registration.disarm();
                drain_stderr(stderr, err_buf, stderr_tail, log).await;
                return Served::Exited {
                    status,
                    answer: None,
                };
            }};
        }
        if stdout.is_none() {
            ended!("stdout");
        }
        loop {
            tokio::select! {
                // A stop that has come already wins over output that has not been read.
                biased;
                _ = abort.cancelled() => return Served::Stop(Stop::Aborted),
                _ = job.reply.closed() => return Served::Stop(Stop::Aborted),
                _ = stop.cancelled() => return Served::Stop(Stop::Terminated),
                _ = sleep_until(deadline) => return Served::Stop(Stop::TimedOut),
                wrote = &mut write, if !written => {
                    written = true;
                    if wrote.is_err() {
                        ended!("stdin");
                    }
                }
                read = read_some(stdout, out_buf) => {
                    let Some(bytes) = read else { ended!("stdout") };
                    log.stdout(bytes);
                    // The answer of this read: one that echoes this event's id wins over
                    // any other JSON line read with it; else the first that echoes none.
                    let (mut own, mut said) = (None, None);
                    for line in lines.push(bytes) {
                        let judged = classify(&line, job.profile);
                        if matches!(judged, Said::Log | Said::Broken(_))
                            && printed_cancel(&line, job.profile)
                        {
                            log.cancel_in(&line.bytes);
                        }
                        let id = match &judged {
                            Said::Answer(verdict) => echoed(verdict).map(|id| id.as_str() == Some(&job.event_id)),
                            _ => None,
                        };
                        match (judged, id) {
                            (Said::Log, _) => {}
                            (answer @ Said::Answer(_), Some(true)) => {
                                *echoes_ids = true;
                                own.get_or_insert(answer);
                            }
                            // A late answer to another event, or (from a hook whose answers
                            // echo ids) a JSON line that echoes none: skipped.
                            (Said::Answer(_), Some(false)) => {
                                *echoes_ids = true;
                                log.stale_answer(&line.bytes);
                            }
                            (Said::Answer(_), None) if *echoes_ids => log.stale_answer(&line.bytes),
                            // A second answer that says no event: the process is out of step.
                            (_, _) if said.is_some() => *out_of_step = true,
                            (other, _) => said = Some(other),
                        }
                    }
                    let Some(said) = own.or(said) else { continue };
                    // Answered before reading all of its event: the rest is written now, or
                    // the process cannot be given another event.
                    if !written && !matches!(timeout_at(deadline, &mut write).await, Ok(Ok(()))) {
                        *out_of_step = true;
                    }
                    return match said {
                        Said::Answer(verdict) => Served::Answered(verdict),
                        Said::Broken(why) => Served::Broken(why),
                        Said::Log => continue,
                    };
                }
                read = read_some(stderr, err_buf) => {
                    if let Some(bytes) = read {
                        stderr_tail.push(bytes);
                        log.stderr(bytes);
                    }
                }
                status = exit_of(child) => {
                    registration.disarm();
                    let answer = read_after_exit(stdout, out_buf, lines, job, log).await;
                    drain_stderr(stderr, err_buf, stderr_tail, log).await;
                    return Served::Exited { status, answer };
                }
            }
        }
    }

    /// What it printed on stderr right after its answer (stderr and stdout are separate
    /// pipes), without waiting.
    pub(super) async fn stderr_now(&mut self, log: &mut EventLog) {
        let Some(pipe) = self.stderr.as_mut() else {
            return;
        };
        // One poll per read: what is there is taken, and nothing waits (a zero `timeout` would
        // wait for the timer's next millisecond tick, on every event).
        while let Some(read) = ready_now(pipe, &mut self.err_buf).await {
            match read {
                Ok(0) | Err(_) => {
                    self.stderr = None;
                    return;
                }
                Ok(n) => {
                    self.stderr_tail.push(&self.err_buf[..n]);
                    log.stderr(&self.err_buf[..n]);
                }
            }
        }
    }

    /// Waits while no event is in flight, reading (and dropping, but for stderr's tail) what
    /// it prints, until its process exits or `terminateAll()` asks it to stop. Cancel-safe.
    pub(super) async fn idle(&mut self) -> Idle {
        let Live {
            child,
            stdout,
            stderr,
            lines,
            registration,
            stderr_tail,
            out_buf,
            err_buf,
            echoes_ids,
            ..
        } = self;
        let stop = registration.stop.clone();
        loop {
            tokio::select! {
                biased;
                _ = stop.cancelled() => return Idle::Terminated,
                read = read_some(stdout, out_buf) => {
                    // Log between events; a partial line is finished by the next event. A
                    // JSON object line here answers no event: the process is out of step.
                    if let Some(bytes) = read {
                        for line in lines.push(bytes) {
                            match classify(&line, Profile::Extension) {
                                Said::Log => {}
                                // A late answer that says which event it answers, or any
                                // object from a hook whose answers say so: harmless.
                                Said::Answer(verdict) if *echoes_ids || echoed(&verdict).is_some() => {
                                    *echoes_ids = true;
                                }
                                _ => return Idle::OutOfStep(quote(&line.bytes)),
                            }
                        }
                    }
                }
                read = read_some(stderr, err_buf) => {
                    if let Some(bytes) = read {
                        stderr_tail.push(bytes);
                    }
                }
                status = exit_of(child) => {
                    registration.disarm();
                    return Idle::Exited(status);
                }
            }
        }
    }

    /// Stops its whole tree now (SIGTERM, a grace, SIGKILL; its job object on Windows), what
    /// it prints meanwhile going to `log`. `false`: it could not be stopped (stuck in the
    /// kernel), and is left to be reaped whenever it ends.
    pub(super) async fn stop(mut self, log: Option<&mut EventLog>) -> bool {
        drop(self.stdin.take());
        let Live {
            child,
            stdout,
            stderr,
            registration,
            stderr_tail,
            out_buf,
            err_buf,
            ..
        } = &mut self;
        let mut log = log;
        let meanwhile = async {
            loop {
                tokio::select! {
                    read = read_some(stdout, out_buf) => {
                        if let (Some(bytes), Some(log)) = (read, log.as_deref_mut()) {
                            log.stdout(bytes);
                        }
                    }
                    read = read_some(stderr, err_buf) => {
                        if let Some(bytes) = read {
                            stderr_tail.push(bytes);
                            if let Some(log) = log.as_deref_mut() {
                                log.stderr(bytes);
                            }
                        }
                    }
                }
            }
        };
        let stopped = stop_tree(registration, child, meanwhile).await;
        if !stopped {
            let Live { child, .. } = self;
            tokio::spawn(reap_eventually(child));
        }
        stopped
    }

    /// Retires it: EOF on its stdin, [`RETIRE_GRACE`] to finish (what it prints is read and
    /// dropped), then its whole tree is stopped, what it left running included: a retired
    /// hook leaves nothing behind. `terminateAll()` meanwhile stops it at once.
    pub(super) async fn retire(mut self) {
        drop(self.stdin.take());
        let grace_end = Instant::now() + RETIRE_GRACE;
        {
            // Its own process is not reaped meanwhile: its group id stays its own until the
            // tree is stopped, so the stop reaches what it left running and nothing else.
            let Live {
                stdout,
                stderr,
                registration,
                out_buf,
                err_buf,
                ..
            } = &mut self;
            let stop = registration.stop.clone();
            loop {
                tokio::select! {
                    biased;
                    _ = stop.cancelled() => break,
                    _ = sleep_until(grace_end) => break,
                    _ = read_some(stdout, out_buf) => {}
                    _ = read_some(stderr, err_buf) => {}
                }
            }
        }
        tracing::debug!(
            pid = self.pid,
            "a retired persistent hook's tree is stopped"
        );
        self.stop(None).await;
    }
}

/// The event id an answer echoes, if any.
fn echoed(verdict: &crate::verdict::Verdict) -> Option<&serde_json::Value> {
    verdict
        .object
        .as_ref()
        .and_then(|object| object.get(super::job::EVENT_ID_FIELD))
}

/// How long a process whose stdout ended mid-event has to exit before it counts as one that
/// closed its stdout and lives on.
const CLOSED_GRACE: Duration = Duration::from_millis(500);

/// Reads once from `pipe` into `buf`; `None` when it ended (the pipe is dropped then, and a
/// read of an ended pipe never completes, so a `select!` moves on).
async fn read_some<'b, R: tokio::io::AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &'b mut [u8],
) -> Option<&'b [u8]> {
    let Some(reader) = pipe.as_mut() else {
        return std::future::pending().await;
    };
    match reader.read(buf).await {
        Ok(0) | Err(_) => {
            *pipe = None;
            None
        }
        Ok(n) => Some(&buf[..n]),
    }
}

/// Reads what is left on stdout once the process has exited, for an answer it printed just
/// before: until the pipe ends, stays quiet for [`PIPE_GRACE`], or [`PIPE_FLOW_MAX`] more.
async fn read_after_exit(
    stdout: &mut Option<ChildStdout>,
    buf: &mut [u8],
    lines: &mut LineSplitter,
    job: &Job,
    log: &mut EventLog,
) -> Option<Said> {
    let flow_end = Instant::now() + PIPE_GRACE + PIPE_FLOW_MAX;
    loop {
        stdout.as_ref()?;
        let quiet = (Instant::now() + PIPE_GRACE).min(flow_end);
        let read = timeout_at(quiet, read_some(stdout, buf)).await.ok()??;
        log.stdout(read);
        for line in lines.push(read) {
            match classify(&line, job.profile) {
                Said::Log => {}
                said => return Some(said),
            }
        }
    }
}

/// Reads what is left on stderr once the process has exited, as [`read_after_exit`] does.
async fn drain_stderr(
    stderr: &mut Option<ChildStderr>,
    buf: &mut [u8],
    tail: &mut Tail,
    log: &mut EventLog,
) {
    let flow_end = Instant::now() + PIPE_GRACE + PIPE_FLOW_MAX;
    while stderr.is_some() {
        let quiet = (Instant::now() + PIPE_GRACE).min(flow_end);
        let Ok(Some(read)) = timeout_at(quiet, read_some(stderr, buf)).await else {
            return;
        };
        tail.push(read);
        log.stderr(read);
    }
}

/// The read of what `pipe` holds right now: polled once, `None` when nothing is there yet.
async fn ready_now(pipe: &mut ChildStderr, buf: &mut [u8]) -> Option<io::Result<usize>> {
    use std::pin::Pin;
    use std::task::Poll;
    use tokio::io::{AsyncRead, ReadBuf};
    std::future::poll_fn(|cx| {
        let mut read = ReadBuf::new(buf);
        match Pin::new(&mut *pipe).poll_read(cx, &mut read) {
            Poll::Pending => Poll::Ready(None),
            Poll::Ready(Ok(())) => Poll::Ready(Some(Ok(read.filled().len()))),
            Poll::Ready(Err(err)) => Poll::Ready(Some(Err(err))),
        }
    })
    .await
}
