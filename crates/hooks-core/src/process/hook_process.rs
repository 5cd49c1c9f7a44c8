//! One hook as one process: start it, feed stdin while reading stdout and stderr, enforce
//! its deadline, stop its whole tree when needed, and say what happened.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::{sleep, sleep_until, timeout, Instant};
use tokio_util::sync::CancellationToken;

use crate::discovery::{DiscoveredHook, Profile, Source};
use crate::launch;
use crate::process::{self, ProcessTree};
use crate::process::{Owner, Registration};
use crate::verdict;
use crate::verdict::Reader;

/// Bytes of stdout handed to its scan at once, on a blocking thread (all of stdout is scanned
/// as it arrives; see `stdout::Reader` for what is kept).
pub const SCAN_BATCH: usize = 256 << 10;
/// Bytes of stderr kept for the result.
pub const STDERR_KEEP: usize = 16 << 10;
/// How long stdout and stderr may stay quiet after the hook's own process exited before they
/// are given up on: a background process it started may hold them open forever, and must not
/// hold the run.
pub const PIPE_GRACE: Duration = Duration::from_millis(150);
/// How much longer than [`PIPE_GRACE`] output still flowing after the exit is read (what the
/// pipe and the scan still held, or a background process still printing).
pub const PIPE_FLOW_MAX: Duration = Duration::from_secs(1);
/// Between SIGTERM and SIGKILL when a tree is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(250);

/// How a hook run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Completed,
    Failed,
    TimedOut,
    Aborted,
    /// Started detached; nothing more is known or awaited.
    Started,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Started => "started",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::TimedOut => "timedOut",
            Status::Aborted => "aborted",
        }
    }
}

/// What running one hook did.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    pub hook_name: String,
    pub path: PathBuf,
    pub source: Source,
    pub workspace_root: Option<PathBuf>,
    pub status: Status,
    pub cancel: bool,
    pub context_modification: String,
    pub error_message: String,
    pub review: bool,
    pub override_input: Option<Map<String, Value>>,
    pub output: Option<Map<String, Value>>,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub duration: Duration,
    pub stderr: String,
    pub failure: Option<String>,
    pub warnings: Vec<String>,
}

impl Execution {
    /// A record for `hook` with nothing known yet but its status.
    pub fn of(hook: &DiscoveredHook, status: Status) -> Execution {
        Execution {
            hook_name: hook.hook_name.clone(),
            path: hook.path.clone(),
            source: hook.source,
            workspace_root: hook.workspace_root.clone(),
            status,
            cancel: false,
            context_modification: String::new(),
            error_message: String::new(),
            review: false,
            override_input: None,
            output: None,
            exit_code: None,
            signal: None,
            duration: Duration::ZERO,
            stderr: String::new(),
            failure: None,
            warnings: Vec::new(),
        }
    }
}

/// Everything one run shares between its hooks.
pub struct RunContext {
    /// The input JSON, serialized once, newline-terminated.
    pub input: Arc<[u8]>,
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    /// Where global and extra hooks run: the first workspace root, else the home directory.
    pub default_cwd: PathBuf,
    /// Cancelled when the caller aborts the run.
    pub abort: CancellationToken,
    /// Slots for hook processes; a hook waits here before it starts.
    pub limiter: Arc<Semaphore>,
    /// Who to account the hook processes to (see `running::Owner`).
    pub owner: Owner,
    /// Cancelled by `terminateAll()`: hooks of this run that have not started never will.
    pub start_permission: CancellationToken,
    /// Whose conventions the hooks' output follows.
    pub profile: Profile,
}

enum End {
    Exited(io::Result<ExitStatus>),
    TimedOut,
    Aborted,
    Terminated,
}

/// Runs one hook to its end. `deadline` covers waiting for a slot and running; the run never
/// outlives it by more than [`KILL_GRACE`] plus [`REAP_LIMIT`] plus [`PIPE_GRACE`] plus
/// [`PIPE_FLOW_MAX`].
pub async fn run_hook(hook: &DiscoveredHook, ctx: &RunContext, deadline: Instant) -> Execution {
    let started = Instant::now();
    let (permit, mut registration) = match admit(hook, ctx, deadline, false).await {
        Ok(admitted) => admitted,
        Err(refused) => return not_started(hook, refused, started),
    };
    let mut exec = Execution::of(hook, Status::Failed);

    let cwd = hook
        .workspace_root
        .clone()
        .unwrap_or_else(|| ctx.default_cwd.clone());
    if registration.stop.is_cancelled() {
        return not_started(hook, terminated_before_start(), started);
    }
    // Announced before the start, so a host that dies during it still leaves nothing.
    let announced = match process::announce() {
        Ok(announced) => Some(announced),
        Err(why) => {
            exec.warnings.push(why);
            None
        }
    };
    let mut env = ctx.env.clone();
    env.extend(announced.as_ref().and_then(process::Announced::env));
    let started_process = start(
        hook,
        &cwd,
        &env,
        &mut exec.warnings,
        Stdio::piped(),
        Stdio::piped,
    );
    let mut child = match started_process {
        Ok((child, tree)) => {
            let watched = announced.map(|announced| announced.started(tree.group()));
            registration.attach(tree, watched);
            child
        }
        Err(err) => {
            exec.failure = Some(explain_start_error(&err, hook, &cwd));
            exec.duration = started.elapsed();
            return exec;
        }
    };

    let mut out = StdoutScan::new(Reader::new(ctx.profile));
    let mut err = Tail::new(STDERR_KEEP);
    let progress = AtomicU64::new(0);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let input = ctx.input.clone();

    let (end, pipes_closed, stuck) = {
        let io = async {
            tokio::join!(
                feed(stdin, &input),
                drain_stdout(stdout, &mut out, &progress),
                drain(stderr, &mut err, &progress)
            );
        };
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
                    _ = ctx.abort.cancelled() => break End::Aborted,
                    _ = registration.stop.cancelled() => break End::Terminated,
                }
            }
        };
        let mut stuck = false;
        match end {
            // Its own process is gone: what it left in the background is its business.
            End::Exited(_) => registration.disarm(),
            _ => {
                // SIGTERM the tree, keep draining its pipes through the grace, then SIGKILL.
                // The leader stays unreaped until after SIGKILL, so its group id cannot be reused.
                registration.terminate();
                let grace_end = Instant::now() + KILL_GRACE;
                loop {
                    tokio::select! {
                        _ = &mut io, if !io_done => io_done = true,
                        _ = sleep_until(grace_end) => break,
                    }
                }
                registration.kill_now();
                stuck = !reap_after_kill(&mut child).await;
            }
        }
        // Output still flowing is read on (up to PIPE_FLOW_MAX); quiet pipes are given up on.
        let flow_end = Instant::now() + PIPE_GRACE + PIPE_FLOW_MAX;
        while !io_done {
            let seen = progress.load(Ordering::Relaxed);
            let wait = PIPE_GRACE.min(flow_end.saturating_duration_since(Instant::now()));
            io_done = timeout(wait, &mut io).await.is_ok();
            if progress.load(Ordering::Relaxed) == seen || Instant::now() >= flow_end {
                break;
            }
        }
        (end, io_done, stuck)
    };
    if stuck {
        // The run settles anyway; the process is reaped in the background if it ever ends.
        tokio::spawn(reap_eventually(child));
    }
    drop(registration);

    exec.stderr = err.text();
    // The scan and the verdict are linear but may take milliseconds: keep them off the async
    // workers so other runs' timers and pipes are not held up, and count them in the duration.
    out.settle().await;
    let stderr_bytes = err.bytes().to_vec();
    let verdict = tokio::task::spawn_blocking(move || {
        let StdoutScan {
            reader, batch, lost, ..
        } = out;
        let mut reader = match (reader, lost) {
            (Some(reader), None) => reader,
            (_, lost) => return Err(lost.unwrap_or_default()),
        };
        reader.feed(&batch);
        let mut verdict = verdict::read(reader.finish());
        if let Some(warning) = verdict::stderr_verdict(&verdict, &stderr_bytes) {
            verdict.warnings.push(warning);
        }
        Ok(verdict)
    })
    .await
    .unwrap_or_else(|join| Err(join.to_string()))
    .unwrap_or_else(|why| verdict::Verdict {
        problem: Some(format!(
            "its output could not be read because of an internal error in @cline/hooks (please report it): {why}"
        )),
        ..verdict::Verdict::default()
    });
    exec.duration = started.elapsed();
    if !pipes_closed && matches!(end, End::Exited(_)) {
        exec.warnings.push(format!(
            "a process it left running still holds its stdout or stderr; output after the hook exited was not read (waited {} ms)",
            PIPE_GRACE.as_millis()
        ));
    }
    exec.warnings.extend(verdict.warnings.iter().cloned());
    exec.cancel = verdict.cancel;
    exec.context_modification = verdict.context_modification;
    exec.error_message = verdict.error_message;
    exec.review = verdict.review;
    exec.override_input = verdict.override_input;
    exec.output = verdict.object;

    let could_not_stop = if stuck {
        format!(
            "; its process could not be stopped even by {} within {} ms (it is stuck in the kernel, for example on a hung network filesystem) and is left to end on its own",
            if cfg!(windows) {
                "terminating its job object"
            } else {
                "SIGKILL"
            },
            REAP_LIMIT.as_millis()
        )
    } else {
        String::new()
    };
    match end {
        End::Exited(Ok(status)) => {
            exec.exit_code = status.code();
            exec.signal = signal_name(&status);
            exec.failure = exit_failure(&status, &exec.stderr);
            // Where start errors surface as exit 127 (an emulator, a wrapper), say why.
            if status.code() == Some(127) {
                if let Some(why) = start_obstacle(hook, &cwd) {
                    exec.failure = Some(why);
                }
            }
            match (&exec.failure, verdict.problem) {
                (None, None) => exec.status = Status::Completed,
                (None, Some(problem)) => exec.failure = Some(problem),
                (Some(_), Some(problem)) => exec.warnings.push(format!("it also {problem}")),
                (Some(_), None) => {}
            }
            if exec.failure.is_some() {
                exec.status = Status::Failed;
            }
        }
        End::Exited(Err(wait_err)) => {
            exec.failure = Some(format!("could not be waited for: {wait_err}"));
        }
        End::TimedOut => {
            exec.status = Status::TimedOut;
            exec.failure = Some(format!(
                "did not finish within {} ms, so its process tree was stopped ({}){could_not_stop}",
                ctx.timeout.as_millis(),
                stop_sequence(),
            ));
        }
        End::Aborted => {
            exec.status = Status::Aborted;
            exec.failure = Some(format!(
                "was stopped because the run was aborted{could_not_stop}"
            ));
        }
        End::Terminated => {
            exec.status = Status::Aborted;
            exec.failure = Some(format!("was stopped by terminateAll(){could_not_stop}"));
        }
    }
    drop(permit);
    exec
}

/// How a tree is stopped, for the hook author.
fn stop_sequence() -> String {
    if cfg!(windows) {
        "its job object was terminated".to_owned()
    } else {
        format!("SIGTERM, then SIGKILL {} ms later", KILL_GRACE.as_millis())
    }
}

/// What every hook goes through before it starts: it must be startable, then get a free
/// process slot within the deadline, unless the run is aborted or `terminateAll()` is called
/// first. The error is the hook's status and why.
async fn admit(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    detached: bool,
) -> Result<(OwnedSemaphorePermit, Registration), (Status, String)> {
    if let Some(why) = &hook.launch_error {
        return Err((Status::Failed, format!("could not start: {why}")));
    }
    let permit = wait_for_slot(ctx, deadline).await?;
    // Registered before the start, then asked again: a `terminateAll()` from here on either
    // finds this registration or has already withdrawn the permission to start.
    let registration = Registration::reserve(ctx.owner, detached);
    if ctx.start_permission.is_cancelled() {
        return Err(terminated_before_start());
    }
    Ok((permit, registration))
}

/// The record of a hook that never started, with its status and why.
fn not_started(
    hook: &DiscoveredHook,
    (status, why): (Status, String),
    since: Instant,
) -> Execution {
    let mut exec = Execution::of(hook, status);
    exec.failure = Some(why);
    exec.duration = since.elapsed();
    exec
}

fn terminated_before_start() -> (Status, String) {
    (
        Status::Aborted,
        "was stopped by terminateAll() before it started".to_owned(),
    )
}

async fn wait_for_slot(
    ctx: &RunContext,
    deadline: Instant,
) -> Result<OwnedSemaphorePermit, (Status, String)> {
    if ctx.start_permission.is_cancelled() {
        return Err(terminated_before_start());
    }
    tokio::select! {
        permit = ctx.limiter.clone().acquire_owned() => permit.map_err(|_| {
            (Status::Failed, "internal error in @cline/hooks: the hook slots were closed (please report it)".to_owned())
        }),
        _ = sleep_until(deadline) => Err((
            Status::TimedOut,
            format!(
                "waited {} ms for a free hook slot (too many hooks running at once) and never started",
                ctx.timeout.as_millis()
            ),
        )),
        _ = ctx.abort.cancelled() => Err((
            Status::Aborted,
            "the run was aborted before this hook started".to_owned(),
        )),
        _ = ctx.start_permission.cancelled() => Err(terminated_before_start()),
    }
}

/// Starts a hook and returns as soon as it runs, for observation-only hooks. It waits for a
/// slot like any hook and holds it until its own process ends; its input is a file (not a
/// pipe), so all of it reaches the hook even when the host exits at once; its output goes
/// nowhere. It is reaped when it ends, and `terminateAll()` stops it; the host's exit does not.
pub async fn start_detached(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
) -> Execution {
    let started = Instant::now();
    let (permit, mut registration) = match admit(hook, ctx, deadline, true).await {
        Ok(admitted) => admitted,
        Err(refused) => return not_started(hook, refused, started),
    };
    let mut exec = Execution::of(hook, Status::Failed);
    let input = match input_file(&ctx.input) {
        Ok(file) => file,
        Err(err) => {
            exec.failure = Some(format!(
                "could not start: its input could not be written to a temporary file in {} ({err}); check that the temp folder is writable",
                std::env::temp_dir().display()
            ));
            exec.duration = started.elapsed();
            return exec;
        }
    };
    let cwd = hook
        .workspace_root
        .clone()
        .unwrap_or_else(|| ctx.default_cwd.clone());
    match start(
        hook,
        &cwd,
        &ctx.env,
        &mut exec.warnings,
        Stdio::from(input),
        Stdio::null,
    ) {
        Ok((child, tree)) => {
            registration.attach(tree, None);
            exec.status = Status::Started;
            tokio::spawn(follow_detached(child, registration, permit));
        }
        Err(err) => exec.failure = Some(explain_start_error(&err, hook, &cwd)),
    }
    exec.duration = started.elapsed();
    exec
}

/// Stays with a detached hook until its own process ends (reaping it, so no zombie is left)
/// or `terminateAll()` stops its tree, then frees its slot.
async fn follow_detached(
    mut child: Child,
    mut registration: Registration,
    permit: OwnedSemaphorePermit,
) {
    let terminated = tokio::select! {
        _ = exit_of(&mut child) => false,
        _ = registration.stop.cancelled() => true,
    };
    if terminated {
        registration.terminate();
        sleep(KILL_GRACE).await;
        registration.kill_now();
        if !reap_after_kill(&mut child).await {
            tokio::spawn(reap_eventually(child));
        }
    }
    registration.disarm();
    drop(permit);
}

/// The input as an unnamed temporary file, positioned at its start, for a detached hook's
/// stdin: a pipe would need this process alive to be written.
fn input_file(input: &[u8]) -> io::Result<std::fs::File> {
    use std::io::{Seek, SeekFrom, Write};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".cline-hook-input-{}-{n}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::OpenOptionsExt;
            const FILE_FLAG_DELETE_ON_CLOSE: u32 = 0x0400_0000;
            const SHARE_ALL: u32 = 0x1 | 0x2 | 0x4;
            options
                .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
                .share_mode(SHARE_ALL);
        }
        let mut file = match options.open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        };
        // Unix: the open file outlives its name; Windows deletes it when the last handle closes.
        #[cfg(unix)]
        let _ = std::fs::remove_file(&path);
        file.write_all(input)?;
        file.seek(SeekFrom::Start(0))?;
        return Ok(file);
    }
}

/// Longest wait for the exit of a process sent SIGKILL. Only a process stuck in the kernel
/// (uninterruptible sleep, a hung network filesystem) takes longer.
pub const REAP_LIMIT: Duration = Duration::from_secs(1);

/// Longest pause between two checks for a process's exit when its exit is not signalled.
const EXIT_POLL_MAX: Duration = Duration::from_millis(50);

/// Waits for the exit of a process sent SIGKILL, within [`REAP_LIMIT`]. `false`: it is stuck.
async fn reap_after_kill(child: &mut Child) -> bool {
    timeout(REAP_LIMIT, exit_of(child)).await.is_ok()
}

/// Reaps a process that could not be stopped, whenever it finally ends.
async fn reap_eventually(mut child: Child) {
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
async fn exit_of(child: &mut Child) -> io::Result<ExitStatus> {
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

/// Starts the hook's process as the head of its own tree, with `stdin` and `output()` for
/// stdout and stderr.
fn start(
    hook: &DiscoveredHook,
    cwd: &Path,
    env: &[(OsString, OsString)],
    warnings: &mut Vec<String>,
    stdin: Stdio,
    output: fn() -> Stdio,
) -> io::Result<(Child, ProcessTree)> {
    // The retry without a #! line needs stdin again: a file is shared, a pipe made anew.
    let mut stdin = Some(stdin);
    let mut spawn = |argv: &[OsString]| -> io::Result<Child> {
        let stdin = stdin.take().unwrap_or_else(Stdio::piped);
        let mut command = Command::new(&argv[0]);
        add_args(&mut command, hook, &argv[1..]);
        command
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(stdin)
            .stdout(output())
            .stderr(output())
            .kill_on_drop(false);
        process::configure(&mut command);
        command.spawn()
    };
    if hook.command.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    }
    let child = match spawn(&hook.command) {
        Err(err) if is_exec_format_error(&err) => {
            // What execvp does for a script without a #! line: hand it to /bin/sh.
            let mut argv = vec![OsString::from("/bin/sh")];
            argv.extend(hook.command.iter().cloned());
            let child = spawn(&argv)?;
            warnings.push("has no #! line, so it was run with /bin/sh; start it with a line like #!/usr/bin/env bash".to_owned());
            child
        }
        other => other?,
    };
    let tree = match ProcessTree::adopt(&child) {
        Ok(tree) => tree,
        Err(err) => {
            let mut child = child;
            let _ = child.start_kill();
            return Err(err);
        }
    };
    Ok((child, tree))
}

#[cfg(windows)]
fn add_args(command: &mut Command, hook: &DiscoveredHook, args: &[OsString]) {
    use crate::launch::LaunchKind;
    match (hook.kind, args.split_last()) {
        // cmd.exe parses its own command line; the tail is already quoted for it.
        (LaunchKind::Cmd, Some((tail, flags))) => {
            command.args(flags);
            command.raw_arg(tail);
        }
        _ => {
            command.args(args);
        }
    }
}

#[cfg(not(windows))]
fn add_args(command: &mut Command, _hook: &DiscoveredHook, args: &[OsString]) {
    command.args(args);
}

#[cfg(unix)]
fn is_exec_format_error(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::ENOEXEC)
}

#[cfg(not(unix))]
fn is_exec_format_error(_err: &io::Error) -> bool {
    false
}

/// Writes the input and closes stdin. A hook that exits without reading it is fine.
async fn feed(stdin: Option<tokio::process::ChildStdin>, input: &[u8]) {
    if let Some(mut stdin) = stdin {
        let _ = stdin.write_all(input).await;
        let _ = stdin.shutdown().await;
    }
}

/// Reads stderr into its tail; `progress` counts what was read.
async fn drain<R: AsyncRead + Unpin>(pipe: Option<R>, tail: &mut Tail, progress: &AtomicU64) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                progress.fetch_add(n as u64, Ordering::Relaxed);
                tail.push(&buf[..n]);
            }
        }
    }
}

/// Reads stdout and hands it to its scan in batches; `progress` counts what was read and
/// scanned. Cancel-safe: what was read and not yet scanned stays in `out`.
async fn drain_stdout<R: AsyncRead + Unpin>(
    pipe: Option<R>,
    out: &mut StdoutScan,
    progress: &AtomicU64,
) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                progress.fetch_add(n as u64, Ordering::Relaxed);
                out.batch.extend_from_slice(&buf[..n]);
            }
        }
        if out.batch.len() >= SCAN_BATCH {
            out.hand_over().await;
            progress.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Stdout's scan: the reader (away on a blocking thread while it scans a batch) and the bytes
/// read since.
struct StdoutScan {
    reader: Option<Reader>,
    scanning: Option<JoinHandle<Reader>>,
    batch: Vec<u8>,
    /// Why the reader was lost (a panic in the scan), if it was.
    lost: Option<String>,
}

impl StdoutScan {
    fn new(reader: Reader) -> StdoutScan {
        StdoutScan {
            reader: Some(reader),
            scanning: None,
            batch: Vec::new(),
            lost: None,
        }
    }

    /// Waits for the batch being scanned, if any. Cancel-safe: the handle is kept until it
    /// resolves.
    async fn settle(&mut self) {
        let Some(scanning) = self.scanning.as_mut() else {
            return;
        };
        let result = scanning.await;
        self.scanning = None;
        match result {
            Ok(reader) => self.reader = Some(reader),
            Err(join) => self.lost = Some(join.to_string()),
        }
    }

    /// Hands the bytes read so far to the scan, once the previous batch is done.
    async fn hand_over(&mut self) {
        self.settle().await;
        let batch = std::mem::take(&mut self.batch);
        if let Some(mut reader) = self.reader.take() {
            self.scanning = Some(tokio::task::spawn_blocking(move || {
                reader.feed(&batch);
                reader
            }));
        }
    }
}

/// The last `cap` bytes of a stream, and how many there were.
struct Tail {
    buf: VecDeque<u8>,
    cap: usize,
    total: u64,
}

impl Tail {
    fn new(cap: usize) -> Tail {
        Tail {
            buf: VecDeque::new(),
            cap,
            total: 0,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(self.cap)..];
        let overflow = (self.buf.len() + chunk.len()).saturating_sub(self.cap);
        self.buf.drain(..overflow);
        self.buf.extend(chunk);
    }

    fn bytes(&mut self) -> &[u8] {
        self.buf.make_contiguous()
    }

    fn text(&mut self) -> String {
        String::from_utf8_lossy(self.bytes()).into_owned()
    }
}

fn exit_failure(status: &ExitStatus, stderr: &str) -> Option<String> {
    if status.success() {
        return None;
    }
    let last_line = stderr.lines().rev().map(str::trim).find(|l| !l.is_empty());
    let said = last_line
        .map(|l| format!(" (stderr: {})", l.chars().take(200).collect::<String>()))
        .unwrap_or_default();
    Some(match (status.code(), signal_name(status)) {
        (Some(code), _) => format!("exited with code {code}{said}"),
        (None, Some(signal)) => format!("was killed by signal {signal}{said}"),
        (None, None) => format!("ended abnormally{said}"),
    })
}

#[cfg(unix)]
fn signal_name(status: &ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let signal = status.signal()?;
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return Some(format!("signal {signal}")),
    };
    Some(format!("{name} ({signal})"))
}

#[cfg(not(unix))]
fn signal_name(_status: &ExitStatus) -> Option<String> {
    None
}

/// What the filesystem shows is in the way of starting the hook, if anything: its file is
/// gone, or its working directory is missing or closed to this user.
fn start_obstacle(hook: &DiscoveredHook, cwd: &Path) -> Option<String> {
    if !hook.path.exists() {
        return Some(format!(
            "could not start: {} no longer exists (it was deleted or renamed after discovery)",
            hook.path.display()
        ));
    }
    if !cwd.is_dir() {
        return Some(format!(
            "could not start: its working directory {} does not exist",
            cwd.display()
        ));
    }
    if !can_enter(cwd) {
        return Some(format!(
            "could not start: its working directory {} cannot be entered by this user (permission denied)",
            cwd.display()
        ));
    }
    None
}

/// Turns a failed start into a sentence that names the fix. It goes by what the start
/// reported and what discovery saw of the hook (its `#!` program), never by a second look at
/// the hook file, which may have been deleted and recreated since the start failed. What it
/// does check now is the working directory and the `#!` program: the other possible causes.
fn explain_start_error(err: &io::Error, hook: &DiscoveredHook, cwd: &Path) -> String {
    let program = hook
        .command
        .first()
        .map_or_else(|| hook.path.clone(), PathBuf::from);
    let shebang_program = hook.shebang_program.clone();
    let facts = StartFacts {
        hook_gone: !hook.path.exists(),
        cwd_missing: !cwd.is_dir(),
        cwd_closed: !can_enter(cwd),
        started_directly: program == hook.path,
        interpreter_exists: shebang_program
            .as_deref()
            .filter(|p| Path::new(p).is_absolute())
            .map(|p| Path::new(p).exists()),
        shebang_program,
    };
    start_failure(&StartError::of(err), &hook.path, &program, cwd, &facts)
}

/// How starting a process failed, as far as the explanation differs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum StartError {
    /// ENOENT / ERROR_FILE_NOT_FOUND: a file the start needed was not there.
    NotFound(String),
    /// EACCES.
    PermissionDenied(String),
    /// ETXTBSY (Windows: a sharing violation): the file was open for writing.
    Busy,
    /// E2BIG: its arguments and environment together are over the system's limit.
    TooBig,
    /// Windows: the file is not a program Windows can run (error 193 and its kin).
    #[cfg_attr(not(windows), allow(dead_code))]
    NotAProgram {
        code: i32,
    },
    /// Windows: a program for another processor (error 216).
    #[cfg_attr(not(windows), allow(dead_code))]
    OtherMachine,
    Other(String),
}

impl StartError {
    fn of(err: &io::Error) -> StartError {
        #[cfg(windows)]
        {
            // ERROR_BAD_FORMAT, ERROR_INVALID_EXE_SIGNATURE, ERROR_CHILD_NOT_COMPLETE,
            // ERROR_BAD_EXE_FORMAT: their system texts hold a raw `%1`.
            match err.raw_os_error() {
                Some(code @ (11 | 129 | 191 | 193)) => return StartError::NotAProgram { code },
                Some(216) => return StartError::OtherMachine,
                // ERROR_SHARING_VIOLATION: another process holds it open for writing.
                Some(32) => return StartError::Busy,
                _ => {}
            }
        }
        #[cfg(unix)]
        match err.raw_os_error() {
            Some(libc::ETXTBSY) => return StartError::Busy,
            Some(libc::E2BIG) => return StartError::TooBig,
            _ => {}
        }
        match err.kind() {
            io::ErrorKind::NotFound => StartError::NotFound(err.to_string()),
            io::ErrorKind::PermissionDenied => StartError::PermissionDenied(err.to_string()),
            _ => StartError::Other(err.to_string()),
        }
    }
}

/// What was checked after a start failed. Whether the hook file is there now only picks the
/// words ("no longer exists" or "was not there when it was started"), never the cause.
#[derive(Debug, Clone, Default)]
struct StartFacts {
    hook_gone: bool,
    cwd_missing: bool,
    cwd_closed: bool,
    /// The hook file is the program started (no interpreter in front of it).
    started_directly: bool,
    /// The program its `#!` line named when it was discovered.
    shebang_program: Option<String>,
    /// Whether that program, if it is an absolute path, exists now.
    interpreter_exists: Option<bool>,
}

/// The sentence for a failed start of the hook at `path`, started as `program` in `cwd`.
/// Pure. An ENOENT has four possible causes: the working directory, an interpreter named in
/// front of the hook, the hook's `#!` program, and the hook file itself; it is blamed on the
/// hook file only when the others are ruled out.
fn start_failure(
    error: &StartError,
    path: &Path,
    program: &Path,
    cwd: &Path,
    facts: &StartFacts,
) -> String {
    let (path, program, cwd) = (path.display(), program.display(), cwd.display());
    let missing = if facts.hook_gone {
        format!(
            "could not start: {path} no longer exists (it was deleted or renamed after discovery"
        )
    } else {
        format!("could not start: {path} was not there when it was started (it was deleted or renamed after discovery")
    };
    if matches!(error, StartError::NotFound(_)) && facts.cwd_missing {
        return format!("could not start: its working directory {cwd} does not exist");
    }
    if matches!(error, StartError::PermissionDenied(_)) && facts.cwd_closed {
        return format!(
            "could not start: its working directory {cwd} cannot be entered by this user (permission denied)"
        );
    }
    match error {
        StartError::NotFound(_) if !facts.started_directly => format!(
            "could not start: {program}, which runs it, was not found when it was started (it was removed or renamed after discovery); install it again or fix PATH"
        ),
        StartError::NotFound(text) => match (&facts.shebang_program, facts.interpreter_exists) {
            // A program that is missing, or whose name ends in a carriage return.
            (Some(interpreter), Some(false)) => format!(
                "could not start: {}",
                launch::shebang_problem(interpreter, None, Some(false))
                    .unwrap_or_else(|| launch::missing_interpreter(interpreter))
            ),
            (Some(interpreter), None) if interpreter.ends_with('\r') => format!(
                "could not start: {}",
                launch::shebang_problem(interpreter, None, None)
                    .unwrap_or_else(|| launch::missing_interpreter(interpreter))
            ),
            (Some(interpreter), Some(true)) if facts.hook_gone => {
                format!("{missing}; its #! program {} exists)", shown(interpreter))
            }
            // Both files are there: the system's "not found" was about the #! program's own
            // #! program or loader, or the hook was swapped at that very moment; say both.
            (Some(interpreter), Some(true)) => {
                let interpreter = shown(interpreter);
                format!(
                    "could not start: the system reported 'not found' for {path} or for a program it names (its #! program {interpreter} exists; if {interpreter} is itself a script, check its own #! line)"
                )
            }
            (Some(interpreter), None) => format!(
                "could not start: the system found no file to run ({text}): either {path} was deleted or renamed after discovery, or {}, which its #! line names, was not found",
                shown(interpreter)
            ),
            (None, _) if cfg!(windows) || facts.hook_gone => format!("{missing})"),
            (None, _) => format!(
                "could not start: the system found no file to run ({text}): either {path} was deleted or renamed after discovery, or it is a program whose loader (the dynamic linker it names) is missing"
            ),
        },
        StartError::PermissionDenied(text) => format!(
            "could not start: permission denied ({text}); make sure it is executable (chmod +x) and on a filesystem that allows running programs"
        ),
        // Its own text ("Argument list too long") names neither the environment nor a fix.
        StartError::TooBig => "could not start: its arguments and environment are larger than the system allows (E2BIG); pass fewer or smaller `env` variables".to_owned(),
        StartError::Busy => "could not start: its file was still open for writing when it was started (text file busy); write hook files under another name and rename them into place".to_owned(),
        StartError::NotAProgram { code } => format!(
            "could not start: {program} is not a valid Windows program (Windows error {code}); replace it with a program built for Windows, or write the hook as a .cmd or .ps1 file"
        ),
        StartError::OtherMachine => format!(
            "could not start: {program} is built for another processor type (Windows error 216); use a build for this machine"
        ),
        // Windows' texts may hold `%1`, the name of the file it was given.
        StartError::Other(text) => {
            format!("could not start: {}", text.replace("%1", &program.to_string()))
        }
    }
}

/// A `#!` program's name as the messages show it: as is when every character shows as
/// itself, else quoted with the others escaped.
fn shown(program: &str) -> String {
    if launch::quoted(program).len() == program.len() + 2 {
        program.to_owned()
    } else {
        launch::quoted(program)
    }
}

/// Whether this process may make `dir` its working directory (search permission).
#[cfg(unix)]
fn can_enter(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    match std::ffi::CString::new(dir.as_os_str().as_bytes()) {
        // Safety: a valid NUL-terminated path; access() only reads it.
        Ok(path) => unsafe { libc::access(path.as_ptr(), libc::X_OK) == 0 },
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn can_enter(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 18 item 8: a failed start is explained from what was observed, and each
    /// sentence claims only what the facts show.
    #[test]
    fn a_failed_start_is_blamed_on_what_the_facts_show() {
        let path = Path::new("/w/.clinerules/hooks/TaskStart");
        let cwd = Path::new("/w");
        let direct = |shebang: Option<&str>, exists: Option<bool>| StartFacts {
            started_directly: true,
            shebang_program: shebang.map(str::to_owned),
            interpreter_exists: exists,
            ..StartFacts::default()
        };
        let enoent = StartError::NotFound("No such file or directory (os error 2)".into());
        let says =
            |error: &StartError, facts: &StartFacts| start_failure(error, path, path, cwd, facts);

        // Deleted at the start and not there now, /bin/sh there: the hook file was missing.
        let deleted = says(
            &enoent,
            &StartFacts {
                hook_gone: true,
                ..direct(Some("/bin/sh"), Some(true))
            },
        );
        assert!(deleted.contains("no longer exists"), "{deleted}");
        assert!(!deleted.contains("which does not exist"), "{deleted}");
        // Both there now: the "not found" may be about the #! program's own #! program
        // (a script as interpreter) as well as a swap; nothing claims a deletion.
        let nested = says(&enoent, &direct(Some("/opt/interp"), Some(true)));
        assert_eq!(
            nested,
            "could not start: the system reported 'not found' for /w/.clinerules/hooks/TaskStart or for a program it names (its #! program /opt/interp exists; if /opt/interp is itself a script, check its own #! line)"
        );
        // Issue 18 (B1): the kernel looked for '/bin/sh\r' (Windows line endings).
        let crlf = says(&enoent, &direct(Some("/bin/sh\r"), Some(false)));
        assert_eq!(
            crlf,
            "could not start: its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named '/bin/sh\\r'; convert the file to LF line endings (e.g. dos2unix)"
        );
        let nbsp = says(&enoent, &direct(Some("/bin/sh\u{a0}"), Some(false)));
        assert!(
            nbsp.contains("names the program '/bin/sh\\u00A0'"),
            "{nbsp}"
        );
        let relative = says(&enoent, &direct(Some("sh\u{2028}"), None));
        assert!(relative.contains("or 'sh\\u2028', which its"), "{relative}");
        let missing = says(&enoent, &direct(Some("/opt/nope/sh"), Some(false)));
        assert!(
            missing.contains("its #! line names /opt/nope/sh, which does not exist"),
            "{missing}"
        );
        // No #! line: a binary whose loader is missing is possible too; both are said.
        let binary = says(&enoent, &direct(None, None));
        if cfg!(unix) {
            assert!(
                binary.contains("either") && binary.contains("loader"),
                "{binary}"
            );
        }
        let relative = says(&enoent, &direct(Some("sh"), None));
        assert!(
            relative.contains("either") && relative.contains("sh, which its #! line names"),
            "{relative}"
        );

        let cwd_gone = says(
            &enoent,
            &StartFacts {
                cwd_missing: true,
                ..direct(Some("/bin/sh"), Some(true))
            },
        );
        assert!(
            cwd_gone.contains("working directory /w does not exist"),
            "{cwd_gone}"
        );

        // An interpreter in front of the hook (CLI profile, .cmd, .ps1) is what was missing.
        let bash = Path::new("/usr/bin/bash");
        let interpreted = start_failure(&enoent, path, bash, cwd, &StartFacts::default());
        assert!(
            interpreted.contains("/usr/bin/bash, which runs it, was not found"),
            "{interpreted}"
        );

        let busy = says(&StartError::Busy, &direct(Some("/bin/sh"), Some(true)));
        assert!(
            busy.contains("open for writing") && busy.contains("rename them into place"),
            "{busy}"
        );
    }

    /// Issue 18 (E): E2BIG names the environment and the fix, not "Argument list too long".
    #[cfg(unix)]
    #[test]
    fn a_start_over_the_size_limit_names_the_environment_and_the_fix() {
        let error = StartError::of(&io::Error::from_raw_os_error(libc::E2BIG));
        assert_eq!(error, StartError::TooBig);
        let path = Path::new("/w/.clinerules/hooks/TaskStart");
        let said = start_failure(&error, path, path, Path::new("/w"), &StartFacts::default());
        assert_eq!(said, "could not start: its arguments and environment are larger than the system allows (E2BIG); pass fewer or smaller `env` variables");
    }

    #[test]
    fn windows_start_errors_are_told_in_words_not_with_a_raw_placeholder() {
        let exe = Path::new(r"C:\hooks\PreToolUse.exe");
        let facts = StartFacts {
            started_directly: true,
            ..StartFacts::default()
        };
        let bad = start_failure(
            &StartError::NotAProgram { code: 193 },
            exe,
            exe,
            Path::new("C:\\"),
            &facts,
        );
        assert!(
            bad.contains(r"C:\hooks\PreToolUse.exe is not a valid Windows program"),
            "{bad}"
        );
        assert!(!bad.contains("%1"), "{bad}");
        let other = start_failure(
            &StartError::OtherMachine,
            exe,
            exe,
            Path::new("C:\\"),
            &facts,
        );
        assert!(other.contains("another processor type"), "{other}");
        // Any other system text that names its file `%1` gets the file's name.
        let text = StartError::Other("The image file %1 is valid, but is for a machine type other than the current machine. (os error 216)".into());
        let said = start_failure(&text, exe, exe, Path::new("C:\\"), &facts);
        assert!(
            said.contains(r"The image file C:\hooks\PreToolUse.exe is valid")
                && !said.contains("%1"),
            "{said}"
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_error_codes_with_a_placeholder_are_classified() {
        for code in [11, 129, 191, 193] {
            assert_eq!(
                StartError::of(&io::Error::from_raw_os_error(code)),
                StartError::NotAProgram { code }
            );
        }
        assert_eq!(
            StartError::of(&io::Error::from_raw_os_error(216)),
            StartError::OtherMachine
        );
    }

    #[cfg(windows)]
    #[test]
    fn the_windows_stop_sentence_names_the_job_object_and_no_unix_signal() {
        let said = stop_sequence();
        assert!(said.contains("job object"), "{said}");
        assert!(!said.contains("SIG"), "{said}");
    }

    #[test]
    fn tail_keeps_the_last_bytes_and_counts_all() {
        let mut tail = Tail::new(4);
        tail.push(b"ab");
        tail.push(b"cdef");
        assert_eq!(tail.bytes(), b"cdef");
        tail.push(b"0123456789");
        assert_eq!(tail.bytes(), b"6789");
        assert_eq!(tail.total, 16);
    }
}
