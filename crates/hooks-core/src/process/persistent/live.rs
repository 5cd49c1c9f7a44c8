//! One live persistent process: started at the head of its own tree (registered, announced to
//! the watchdog, trust checked, like a per-event hook), its stdin written an event line at a
//! time while its stdout is read line by line and the tail of its stderr kept; how one event
//! ends on it; and how it is retired (EOF on stdin, then its tree stopped a second later).

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{sleep, sleep_until, timeout, timeout_at, Instant};

use super::file_state::FileState;
use super::framing::Framing;
use super::job::{Job, StartWith};
use crate::discovery::DiscoveredHook;
use crate::observe::Lines;
use crate::process::admission::terminated_before_start;
use crate::process::deadline::{exit_of, reap_eventually, stop_tree, End, Ending, Stopped};
use crate::process::execution::{Execution, FailureKind, Status};
use crate::process::hook_child::HookChild;
use crate::process::pipes::{
    PipeGrace, Sink, StdoutScan, Tail, PIPE_FLOW_MAX, PIPE_GRACE, STDERR_KEEP,
};
use crate::process::run::{conclude, read_verdict};
use crate::process::spawn::{spawn_watched, HookEnv, NotStarted};
use crate::process::verified_start::verify;
use crate::process::Registration;
use crate::verdict::Reader;

/// How long a retired process has, after EOF on its stdin, to exit on its own before its tree
/// is stopped.
pub const RETIRE_GRACE: Duration = Duration::from_secs(1);

/// Bytes read from a pipe at once.
const READ_CHUNK: usize = 64 << 10;

/// A persistent hook's process, running.
pub(super) struct Live {
    child: HookChild,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    /// Which of its stdout belongs to which event.
    framing: Framing,
    registration: Registration,
    /// The process slot it holds for its whole life, retirement included, and whose it is.
    _slot: OwnedSemaphorePermit,
    pub limiter: Arc<Semaphore>,
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
    /// The event in flight was written whole to its stdin.
    event_written: bool,
}

/// What one event's turn on a process saw: its share of the output, stdout read as it comes
/// by the per-event reader, so what it decides is decided as a per-event hook's output is.
pub(super) struct EventLog {
    scan: StdoutScan,
    /// Bytes framed as the event's output, on their way to the scan.
    framed: Vec<u8>,
    stderr: Tail,
    watch: Option<(Lines, Lines)>,
    event_id: String,
    /// Its answer line has ended.
    answered: bool,
    /// Bytes of stdout read during the event.
    printed: u64,
    /// The start of an answer to another event (it echoed another id), skipped.
    stale: Option<String>,
    /// The first JSON object line read as a log line (it held no verdict field), quoted.
    object_log: Option<String>,
}

impl EventLog {
    pub(super) fn new(job: &Job) -> EventLog {
        EventLog {
            scan: StdoutScan::new(Reader::new(job.profile)),
            framed: Vec::new(),
            stderr: Tail::new(STDERR_KEEP),
            watch: job.watch.as_ref().map(|w| (w.lines(true), w.lines(false))),
            event_id: job.event_id.clone(),
            answered: false,
            printed: 0,
            stale: None,
            object_log: None,
        }
    }

    /// Whether it printed nothing on stdout during the event.
    pub(super) fn printed_nothing(&self) -> bool {
        self.printed == 0
    }

    /// Takes bytes of stdout: the event's share goes to the per-event reader.
    async fn stdout(&mut self, framing: &mut Framing, bytes: &[u8]) {
        self.printed += bytes.len() as u64;
        if let Some((out, _)) = &mut self.watch {
            out.push(bytes);
        }
        let pushed = framing.push(bytes, Some(&self.event_id), &mut self.framed);
        self.answered |= pushed.answered;
        if self.stale.is_none() {
            self.stale = pushed.stale;
        }
        if self.object_log.is_none() {
            self.object_log = pushed.object_log;
        }
        self.hand_over().await;
    }

    async fn hand_over(&mut self) {
        if !self.framed.is_empty() {
            self.scan.take(&self.framed).await;
            self.framed.clear();
        }
    }

    fn stderr(&mut self, bytes: &[u8]) {
        self.stderr.push(bytes);
        if let Some((_, err)) = &mut self.watch {
            err.push(bytes);
        }
    }

    /// The event is over, as `end` says: its output is read by the per-event reader and
    /// concluded by the per-event rules into `exec`. A line begun and not ended counts.
    pub(super) async fn conclude(
        mut self,
        framing: &mut Framing,
        exec: &mut Execution,
        end: End,
        stopped: Option<Stopped>,
        hook: &DiscoveredHook,
        cwd: &std::path::Path,
    ) {
        framing.flush(Some(&self.event_id), &mut self.framed);
        // No answer of its own came: what it printed as other events' answers is its output
        // too, as it would be per event.
        let held = framing.take_held();
        if !self.answered && !held.is_empty() {
            self.framed.extend_from_slice(&held);
            self.stale = None;
            exec.warnings.push("it printed a JSON object line that echoes another event's hookEventId and gave no answer of its own, so that line was read as this event's output".to_owned());
        }
        self.hand_over().await;
        if let (false, End::TimedOut, Some(line)) = (self.answered, &end, &self.object_log) {
            exec.warnings.push(format!(
                "it printed a JSON object line with no verdict field ({line}), which was read as a log line, not its answer: a persistent hook's answer holds cancel, contextModification or errorMessage, or is {{}}, or echoes the event's hookEventId"
            ));
        }
        if let Some((out, err)) = &mut self.watch {
            out.finish();
            err.finish();
        }
        exec.stderr = self.stderr.text();
        let (verdict, stdout_bytes, stdout) =
            read_verdict(self.scan, self.stderr.bytes().to_vec()).await;
        exec.output_bytes = (stdout_bytes, self.stderr.total());
        // The event's output as framed (its answer and log lines), as its verdict read it.
        exec.stdout = stdout;
        let ending = Ending {
            end,
            pipes_closed: true,
            grace: PipeGrace::Quiet,
            stuck: stopped.is_some_and(|s| s.stuck),
            stopped_with: stopped.and_then(|s| s.status),
        };
        conclude(exec, ending, verdict, hook, cwd);
        if let Some(line) = self.stale {
            exec.warnings.push(format!(
                "it printed a JSON object line that answers another event ({line}: its hookEventId is another event's), which was skipped"
            ));
        }
    }
}

/// How one event's turn on a process ended.
pub(super) enum Served {
    /// Its answer line ended (with what else it had printed by then). The process stays.
    Answered,
    /// It closed its stdout (or stdin) and lives on: it can never answer.
    Closed(&'static str),
    /// Its process ended first (it is reaped), what it printed read to the end.
    Exited(io::Result<ExitStatus>),
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
    pub(super) async fn start(
        job: &Job,
        exec: &mut Execution,
        slot: OwnedSemaphorePermit,
    ) -> Option<Live> {
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
            HookEnv {
                add: &env,
                remove: &job.start_with.env_remove,
                confine: job.start_with.confine,
                run: &job.run,
            },
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
            Err(failed) => {
                exec.status = Status::Failed;
                exec.failure = Some(failed.explained(hook, &job.cwd));
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
            framing: Framing::default(),
            registration,
            _slot: slot,
            limiter: job.limiter.clone(),
            stderr_tail: Tail::new(STDERR_KEEP),
            out_buf: vec![0u8; READ_CHUNK].into_boxed_slice(),
            err_buf: vec![0u8; READ_CHUNK].into_boxed_slice(),
            file,
            start_with: job.start_with.clone(),
            pid,
            out_of_step: false,
            event_written: false,
        })
    }

    /// How it ended, if it has exited already (reaped now): an event must not be handed to a
    /// process that will never read it.
    pub(super) fn exited_now(&mut self) -> Option<io::Result<ExitStatus>> {
        let status = match self.child.try_wait() {
            Ok(None) => return None,
            Ok(Some(status)) => Ok(status),
            Err(err) => Err(err),
        };
        self.registration.disarm();
        Some(status)
    }

    /// Whether it certainly never read any of the event in flight, `len` bytes long: the
    /// write failed, or (Linux) all of it is still in the pipe.
    pub(super) fn never_read(&self, len: usize) -> bool {
        !self.event_written || self.unread_input() == Some(len)
    }

    /// How many bytes written to its stdin it has not read (Linux: `FIONREAD` on the pipe);
    /// `None` where that cannot be known.
    fn unread_input(&self) -> Option<usize> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let fd = self.stdin.as_ref()?.as_raw_fd();
            let mut unread: libc::c_int = 0;
            // SAFETY: FIONREAD writes one int through the pointer, to a live local.
            let done = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut unread) };
            (done == 0).then_some(unread as usize)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    /// The last of its stderr over its life.
    pub(super) fn stderr_text(&mut self) -> String {
        self.stderr_tail.text()
    }

    /// Writes `job`'s event and reads until its answer (and what else it printed by then), or
    /// until its process ends, the deadline passes, the run is aborted or dropped, or
    /// `terminateAll()` comes; what it prints goes to `log`. The write never blocks a thread: a
    /// hook that does not read its stdin only holds its own event.
    pub(super) async fn serve(&mut self, job: &mut Job, log: &mut EventLog) -> Served {
        let Live {
            child,
            stdin,
            stdout,
            stderr,
            framing,
            registration,
            stderr_tail,
            out_buf,
            err_buf,
            out_of_step,
            event_written,
            ..
        } = self;
        framing.start_event();
        *event_written = false;
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
                read_after_exit(stdout, out_buf, framing, log).await;
                drain_stderr(stderr, err_buf, stderr_tail, log).await;
                return Served::Exited(status);
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
                    *event_written = wrote.is_ok();
                    if wrote.is_err() {
                        ended!("stdin");
                    }
                }
                read = read_some(stdout, out_buf) => {
                    let Some(bytes) = read else { ended!("stdout") };
                    log.stdout(framing, bytes).await;
                    if !log.answered {
                        continue;
                    }
                    // What it printed with its answer is this event's output too: all that is
                    // there now, and the rest of a line begun.
                    while let Some(Some(bytes)) = ready_now(stdout, out_buf).await {
                        log.stdout(framing, bytes).await;
                    }
                    if framing.mid_line() && stdout.is_some() {
                        continue;
                    }
                    // Answered before reading all of its event: the rest is written now, or
                    // the process cannot be given another event.
                    if !written && !matches!(timeout_at(deadline, &mut write).await, Ok(Ok(()))) {
                        *out_of_step = true;
                    }
                    return Served::Answered;
                }
                read = read_some(stderr, err_buf) => {
                    if let Some(bytes) = read {
                        stderr_tail.push(bytes);
                        log.stderr(bytes);
                    }
                }
                status = exit_of(child) => {
                    registration.disarm();
                    read_after_exit(stdout, out_buf, framing, log).await;
                    drain_stderr(stderr, err_buf, stderr_tail, log).await;
                    return Served::Exited(status);
                }
            }
        }
    }

    /// Its stdout's framing, for the end of an event.
    pub(super) fn framing(&mut self) -> &mut Framing {
        &mut self.framing
    }

    /// What it printed on stderr right after its answer (stderr and stdout are separate
    /// pipes), without waiting: one poll per read, so nothing waits (a zero `timeout` would
    /// wait for the timer's next millisecond tick, on every event).
    pub(super) async fn stderr_now(&mut self, log: &mut EventLog) {
        while let Some(Some(bytes)) = ready_now(&mut self.stderr, &mut self.err_buf).await {
            self.stderr_tail.push(bytes);
            log.stderr(bytes);
        }
    }

    /// Waits while no event is in flight, reading (and dropping, but for stderr's tail) what
    /// it prints, until its process exits or `terminateAll()` asks it to stop. Cancel-safe.
    pub(super) async fn idle(&mut self) -> Idle {
        let Live {
            child,
            stdout,
            stderr,
            framing,
            registration,
            stderr_tail,
            out_buf,
            err_buf,
            ..
        } = self;
        let stop = registration.stop.clone();
        let mut dropped = Vec::new();
        loop {
            tokio::select! {
                biased;
                _ = stop.cancelled() => return Idle::Terminated,
                read = read_some(stdout, out_buf) => {
                    // Log between events; a partial line is finished by the next event. A
                    // JSON object line here answers no event: the process is out of step.
                    // A late answer that says which event it answers, or any object from a
                    // hook whose answers say so, is harmless.
                    if let Some(bytes) = read {
                        let pushed = framing.push(bytes, None, &mut dropped);
                        dropped.clear();
                        if let Some(line) = pushed.unclaimed {
                            return Idle::OutOfStep(line);
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
    /// it prints meanwhile going to `log`. A process that could not be stopped (stuck in the
    /// kernel) is left to be reaped whenever it ends. Its framing is handed back, for the end
    /// of the event.
    pub(super) async fn stop(mut self, log: Option<&mut EventLog>) -> (Stopped, Framing) {
        drop(self.stdin.take());
        let Live {
            child,
            stdout,
            stderr,
            framing,
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
                            log.stdout(framing, bytes).await;
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
        let framing = std::mem::take(&mut self.framing);
        if stopped.stuck {
            let Live { child, .. } = self;
            tokio::spawn(reap_eventually(child));
        }
        (stopped, framing)
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

/// Reads what is left on stdout once the process has exited, for what it printed just before:
/// until the pipe ends, stays quiet for [`PIPE_GRACE`], or [`PIPE_FLOW_MAX`] more, as a
/// per-event hook's is.
async fn read_after_exit(
    stdout: &mut Option<ChildStdout>,
    buf: &mut [u8],
    framing: &mut Framing,
    log: &mut EventLog,
) {
    let flow_end = Instant::now() + PIPE_GRACE + PIPE_FLOW_MAX;
    while stdout.is_some() {
        let quiet = (Instant::now() + PIPE_GRACE).min(flow_end);
        let Ok(Some(read)) = timeout_at(quiet, read_some(stdout, buf)).await else {
            return;
        };
        log.stdout(framing, read).await;
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

/// The read of what `pipe` holds right now, polled once: `None` when nothing is there yet,
/// `Some(None)` when it ended (the pipe is dropped then).
async fn ready_now<'b, R: tokio::io::AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &'b mut [u8],
) -> Option<Option<&'b [u8]>> {
    use std::pin::Pin;
    use std::task::Poll;
    use tokio::io::ReadBuf;
    let reader = pipe.as_mut()?;
    let mut read = ReadBuf::new(buf);
    let polled = std::future::poll_fn(|cx| match Pin::new(&mut *reader).poll_read(cx, &mut read) {
        Poll::Pending => Poll::Ready(None),
        Poll::Ready(result) => Poll::Ready(Some(result.is_ok())),
    })
    .await;
    match polled {
        None => None,
        Some(true) if !read.filled().is_empty() => {
            let n = read.filled().len();
            Some(Some(&buf[..n]))
        }
        Some(_) => {
            *pipe = None;
            Some(None)
        }
    }
}
