//! One hook as one process: start it, feed stdin while reading stdout and stderr, enforce
//! its deadline, stop its whole tree when needed, and say what happened.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::Semaphore;
use tokio::time::{sleep_until, timeout, Instant};
use tokio_util::sync::CancellationToken;

use crate::hooks::discover::{DiscoveredHook, Source};
use crate::hooks::output;
use crate::hooks::running::{Owner, Registration};
use crate::hooks::tree::{self, ProcessTree};

/// Bytes of stdout kept for finding the final JSON object (the rest streams through).
pub const STDOUT_KEEP: usize = 1 << 20;
/// Bytes of stderr kept for the result.
pub const STDERR_KEEP: usize = 16 << 10;
/// How long pipes are still read after the hook's own process exited: a background process
/// it started may hold them open forever, and must not hold the run.
pub const PIPE_GRACE: Duration = Duration::from_millis(150);
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
}

enum End {
    Exited(io::Result<ExitStatus>),
    TimedOut,
    Aborted,
    Terminated,
}

/// Runs one hook to its end. `deadline` covers waiting for a slot and running; the run never
/// outlives it by more than [`KILL_GRACE`] plus [`PIPE_GRACE`].
pub async fn run_hook(hook: &DiscoveredHook, ctx: &RunContext, deadline: Instant) -> Execution {
    let started = Instant::now();
    let mut exec = Execution::of(hook, Status::Failed);
    if let Some(why) = &hook.launch_error {
        exec.failure = Some(format!("could not start: {why}"));
        return exec;
    }

    let permit = tokio::select! {
        permit = ctx.limiter.clone().acquire_owned() => permit.ok(),
        _ = sleep_until(deadline) => {
            exec.status = Status::TimedOut;
            exec.failure = Some(format!(
                "waited {} ms for a free hook slot (too many hooks running at once) and never started",
                ctx.timeout.as_millis()
            ));
            exec.duration = started.elapsed();
            return exec;
        }
        _ = ctx.abort.cancelled() => {
            exec.status = Status::Aborted;
            exec.failure = Some("the run was aborted before this hook started".to_owned());
            return exec;
        }
    };

    let cwd = hook
        .workspace_root
        .clone()
        .unwrap_or_else(|| ctx.default_cwd.clone());
    let (mut child, registration) = match start(hook, &cwd, &ctx.env, &mut exec.warnings, false) {
        Ok((child, tree)) => (child, Registration::new(tree, ctx.owner)),
        Err(err) => {
            exec.failure = Some(explain_start_error(&err, hook, &cwd));
            exec.duration = started.elapsed();
            return exec;
        }
    };
    let mut registration = registration;

    let mut out = Tail::new(STDOUT_KEEP);
    let mut err = Tail::new(STDERR_KEEP);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let input = ctx.input.clone();

    let (end, pipes_closed) = {
        let io = async {
            tokio::join!(
                feed(stdin, &input),
                drain(stdout, &mut out),
                drain(stderr, &mut err)
            );
        };
        tokio::pin!(io);
        let mut io_done = false;
        let end = loop {
            tokio::select! {
                _ = &mut io, if !io_done => io_done = true,
                status = child.wait() => break End::Exited(status),
                _ = sleep_until(deadline) => break End::TimedOut,
                _ = ctx.abort.cancelled() => break End::Aborted,
                _ = registration.stop.cancelled() => break End::Terminated,
            }
        };
        let end = match end {
            End::Exited(status) => End::Exited(status),
            stopped => {
                // SIGTERM the tree, keep draining its pipes through the grace, then SIGKILL.
                // The leader stays unreaped until after SIGKILL, so its group id cannot be reused.
                registration.tree().terminate();
                let grace_end = Instant::now() + KILL_GRACE;
                loop {
                    tokio::select! {
                        _ = &mut io, if !io_done => io_done = true,
                        _ = sleep_until(grace_end) => break,
                    }
                }
                registration.tree().kill_now();
                let _ = child.wait().await;
                stopped
            }
        };
        if !io_done {
            io_done = timeout(PIPE_GRACE, &mut io).await.is_ok();
        }
        (end, io_done)
    };
    registration.disarm();
    drop(registration);

    exec.duration = started.elapsed();
    exec.stderr = err.text();
    let cut = out.cut();
    let verdict = output::parse(out.bytes(), cut);
    if out.cut() {
        exec.warnings.push(format!(
            "printed {} bytes to stdout; only the last {} were kept to find its JSON",
            out.total, STDOUT_KEEP
        ));
    }
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
                "did not finish within {} ms, so its process tree was stopped (SIGTERM, then SIGKILL {} ms later)",
                ctx.timeout.as_millis(),
                KILL_GRACE.as_millis()
            ));
        }
        End::Aborted => {
            exec.status = Status::Aborted;
            exec.failure = Some("was stopped because the run was aborted".to_owned());
        }
        End::Terminated => {
            exec.status = Status::Aborted;
            exec.failure = Some("was stopped by terminateAll()".to_owned());
        }
    }
    drop(permit);
    exec
}

/// Starts a hook and returns as soon as it runs: its input is written by a background task
/// (given up after the timeout), its output goes nowhere, and it is not tracked, so it never
/// holds the caller, nor is it stopped when the host exits.
pub async fn start_detached(hook: &DiscoveredHook, ctx: &RunContext) -> Execution {
    let started = Instant::now();
    let mut exec = Execution::of(hook, Status::Failed);
    if let Some(why) = &hook.launch_error {
        exec.failure = Some(format!("could not start: {why}"));
        return exec;
    }
    if ctx.abort.is_cancelled() {
        exec.status = Status::Aborted;
        exec.failure = Some("the run was aborted before this hook started".to_owned());
        return exec;
    }
    let cwd = hook
        .workspace_root
        .clone()
        .unwrap_or_else(|| ctx.default_cwd.clone());
    match start(hook, &cwd, &ctx.env, &mut exec.warnings, true) {
        Ok((mut child, tree)) => {
            tree.release();
            exec.status = Status::Started;
            let stdin = child.stdin.take();
            let input = ctx.input.clone();
            let limit = ctx.timeout;
            tokio::spawn(async move {
                let _ = timeout(limit, feed(stdin, &input)).await;
                // Dropping the child without waiting hands it to tokio's orphan reaper.
                drop(child);
            });
        }
        Err(err) => exec.failure = Some(explain_start_error(&err, hook, &cwd)),
    }
    exec.duration = started.elapsed();
    exec
}

/// Starts the hook's process as the head of its own tree, stdin piped; stdout and stderr
/// piped too, or discarded for a `detached` start.
fn start(
    hook: &DiscoveredHook,
    cwd: &Path,
    env: &[(OsString, OsString)],
    warnings: &mut Vec<String>,
    detached: bool,
) -> io::Result<(Child, ProcessTree)> {
    let output = if detached { Stdio::null } else { Stdio::piped };
    let spawn = |argv: &[OsString]| -> io::Result<Child> {
        let mut command = Command::new(&argv[0]);
        add_args(&mut command, hook, &argv[1..]);
        command
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(output())
            .stderr(output())
            .kill_on_drop(false);
        tree::configure(&mut command);
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
    use crate::hooks::launch::LaunchKind;
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

async fn drain<R: AsyncRead + Unpin>(pipe: Option<R>, tail: &mut Tail) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => tail.push(&buf[..n]),
        }
    }
}

/// The last `cap` bytes of a stream, and how many there were in all.
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

    fn cut(&self) -> bool {
        self.total > self.buf.len() as u64
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

/// Turns a failed start into a sentence that names the fix.
fn explain_start_error(err: &io::Error, hook: &DiscoveredHook, cwd: &Path) -> String {
    if let Some(why) = start_obstacle(hook, cwd) {
        return why;
    }
    let interpreter = crate::hooks::discover::read_shebang(&hook.path)
        .and_then(|line| line.split_whitespace().next().map(str::to_owned));
    if let Some(interpreter) = interpreter {
        if err.kind() == io::ErrorKind::NotFound || !Path::new(&interpreter).exists() {
            return format!(
                "could not start: its #! line names {interpreter}, which does not exist; install it or fix the #! line"
            );
        }
    }
    match err.kind() {
        io::ErrorKind::PermissionDenied => {
            format!("could not start: permission denied ({err}); make sure it is executable (chmod +x) and on a filesystem that allows running programs")
        }
        _ => format!("could not start: {err}"),
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

    #[test]
    fn tail_keeps_the_last_bytes_and_counts_all() {
        let mut tail = Tail::new(4);
        tail.push(b"ab");
        assert!(!tail.cut());
        tail.push(b"cdef");
        assert_eq!(tail.bytes(), b"cdef");
        tail.push(b"0123456789");
        assert_eq!(tail.bytes(), b"6789");
        assert_eq!(tail.total, 16);
        assert!(tail.cut());
    }
}
