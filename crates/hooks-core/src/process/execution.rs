//! The record of one hook's run ([`Execution`]: how it ended, what it printed, why it failed)
//! and what a run shares between its hooks ([`RunContext`]). run.rs makes the record.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::discovery::{DiscoveredHook, Profile, Source};
use crate::process::Owner;

/// How a hook run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It exited with code 0 and its output could be read (its verdict may still cancel).
    Completed,
    /// It could not start, exited non-zero, was killed, or printed output that cannot be
    /// used; [`Execution::failure`] says which.
    Failed,
    /// It was still running at its deadline, so its tree was stopped; or it waited for a
    /// process slot until the deadline and never started.
    TimedOut,
    /// The run was aborted, or `terminateAll()` was called, before it ended.
    Aborted,
    /// Started detached; nothing more is known or awaited.
    Started,
    /// Not started because it does not apply (its header's `tools=` does not match the
    /// tool); [`Execution::skip_reason`] says why. Not a failure.
    Skipped,
}

impl Status {
    /// Its name as the Node API reports it: `completed`, `failed`, `timedOut`, `aborted`,
    /// `started` or `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Started => "started",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::TimedOut => "timedOut",
            Status::Aborted => "aborted",
            Status::Skipped => "skipped",
        }
    }
}

/// How a hook's run failed, for a failure policy: what `onFailure` can turn into a cancel.
/// An abort or `terminateAll()` is never one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// Still running at its deadline, or waiting for a process slot until it.
    Timeout,
    /// Exited non-zero, was killed by a signal, or this package failed while running it.
    Crash,
    /// Could not start: the start failed, its interpreter is missing, or (exit 127, or an
    /// interpreter that failed) its file or working directory was gone.
    StartFailure,
    /// Exited 0 but printed output that cannot be used.
    InvalidOutput,
}

impl FailureKind {
    /// Its name as the Node API reports it (and `onFailure` keys it): `timedOut` (the same
    /// word as the status), `crash`, `startFailure` or `invalidOutput`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timedOut",
            FailureKind::Crash => "crash",
            FailureKind::StartFailure => "startFailure",
            FailureKind::InvalidOutput => "invalidOutput",
        }
    }

    /// The kind of a run that ended with `status` without a process of its own to judge:
    /// timed out, or (failed) could not start; an abort and a success are none.
    pub(crate) fn of_unstarted(status: Status) -> Option<FailureKind> {
        match status {
            Status::TimedOut => Some(FailureKind::Timeout),
            Status::Failed => Some(FailureKind::StartFailure),
            Status::Completed | Status::Aborted | Status::Started | Status::Skipped => None,
        }
    }
}

/// What running one hook did.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    /// The hook's name (the event it handles, such as `PreToolUse`).
    pub hook_name: String,
    /// The hook file.
    pub path: PathBuf,
    /// Which kind of directory it was found in.
    pub source: Source,
    /// The workspace root it belongs to (workspace hooks only); it ran there.
    pub workspace_root: Option<PathBuf>,
    /// How it ended.
    pub status: Status,
    /// Whether its process was started: `false` when it waited for a process slot until its
    /// deadline, the system refused to start it, or its run was stopped first. A host that
    /// treats a hook as a guardrail can refuse to go ahead when it never ran.
    pub started: bool,
    /// The `cancel` it printed.
    pub cancel: bool,
    /// The `contextModification` (or CLI `context`) it printed, possibly cut.
    pub context_modification: String,
    /// The `errorMessage` it printed, possibly cut.
    pub error_message: String,
    /// The CLI's `review` flag: ask the user before going ahead.
    pub review: bool,
    /// The CLI's `overrideInput`: replacement tool input.
    pub override_input: Option<Map<String, Value>>,
    /// The JSON object it printed (its verdict), unknown fields included.
    pub output: Option<Map<String, Value>>,
    /// Its exit code; `None` when it was killed by a signal or never started.
    pub exit_code: Option<i32>,
    /// The signal that killed it, for example `SIGKILL (9)`.
    pub signal: Option<String>,
    /// From the call to its end, waiting for a slot and reading its output included.
    pub duration: Duration,
    /// The last [`STDERR_KEEP`](crate::process::STDERR_KEEP) bytes of its stdout as text, for
    /// a reader (the hook's author, its log), never for the verdict: a copy of the end of what
    /// the verdict's reader kept, decoded as that reader decodes it (invalid UTF-8 replaced,
    /// UTF-16 read as text), from a whole character on. A persistent hook's is its event's
    /// output: what it printed while the event was in flight, its answer line included, lines
    /// answering another event left out. Empty when it printed nothing or was not read (not
    /// started, started detached).
    pub stdout: String,
    /// The last [`STDERR_KEEP`](crate::process::STDERR_KEEP) bytes of its stderr (invalid
    /// UTF-8 replaced).
    pub stderr: String,
    /// Why it failed, timed out or was aborted, in one sentence for the hook's author.
    pub failure: Option<String>,
    /// How it failed (see [`FailureKind`]); `None` when it completed, was started detached,
    /// or was stopped by an abort or `terminateAll()`.
    pub failure_kind: Option<FailureKind>,
    /// Things worth knowing that did not make it fail.
    pub warnings: Vec<String>,
    /// Bytes it printed on stdout and on stderr (0 when its output was not read).
    pub output_bytes: (u64, u64),
    /// The timeout it ran with: the run's, or its header's `timeout=` (capped).
    pub timeout: Duration,
    /// Why it was not started although enabled (status `Skipped`).
    pub skip_reason: Option<String>,
    /// It runs in a sandbox (`sandbox`): if it started, it started confined; where it could
    /// not be confined it did not start (a `startFailure` saying why).
    pub confined: bool,
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
            started: false,
            confined: hook.sandbox.is_some(),
            cancel: false,
            context_modification: String::new(),
            error_message: String::new(),
            review: false,
            override_input: None,
            output: None,
            exit_code: None,
            signal: None,
            duration: Duration::ZERO,
            stdout: String::new(),
            stderr: String::new(),
            failure: None,
            failure_kind: None,
            warnings: Vec::new(),
            output_bytes: (0, 0),
            timeout: Duration::ZERO,
            skip_reason: None,
        }
    }
}

/// Everything one run shares between its hooks.
#[derive(Clone)]
pub struct RunContext {
    /// The input JSON, serialized once, newline-terminated.
    pub input: Arc<[u8]>,
    /// The environment added to the host's for each hook.
    pub env: Vec<(OsString, OsString)>,
    /// Inherited variables left out of each hook's environment (`scrubEnv`), worked out once
    /// per run (see [`host_names_to_remove`](crate::process::host_names_to_remove)).
    pub env_remove: Vec<OsString>,
    /// Whether hooks start confined, out of reach of the host's environment and memory
    /// (`scrubEnv` on; see [`confinement`](crate::process::confinement)).
    pub confine: bool,
    /// Each hook's timeout, as the run was given it (a header's `timeout=` replaces it: see
    /// [`RunContext::timeout_of`]).
    pub timeout: Duration,
    /// The longest timeout a header's `timeout=` may set.
    pub max_timeout: Duration,
    /// How long a persistent hook's process may wait for its next event before it is stopped.
    pub persistent_idle: Duration,
    /// Where global and extra hooks run: the first workspace root, else the home directory.
    pub default_cwd: PathBuf,
    /// Cancelled when the caller aborts the run.
    pub abort: CancellationToken,
    /// Slots for hook processes; a hook waits here before it starts.
    pub limiter: Arc<Semaphore>,
    /// Who to account the hook processes to (see [`Owner`]).
    pub owner: Owner,
    /// Cancelled by `terminateAll()`: hooks of this run that have not started never will.
    pub start_permission: CancellationToken,
    /// Whose conventions the hooks' output follows.
    pub profile: Profile,
    /// The run's id and first root, told to each hook in its environment.
    pub run: super::RunIdentity,
    /// The completed input as JSON, when a Claude settings handler runs: each builds its own
    /// stdin from it (see [`crate::claude::claude_input`]).
    pub claude_input: Option<Arc<Value>>,
    /// How a Claude handler runs for this call: once, or once per item of a batch (see
    /// [`crate::claude::batch_items`]); read once per run, beside `claude_input`.
    pub claude_batch: Option<Arc<crate::claude::Batch>>,
}

impl RunContext {
    /// The timeout `hook` runs with: its header's `timeout=` capped at `max_timeout`, else
    /// the run's.
    pub fn timeout_of(&self, hook: &DiscoveredHook) -> Duration {
        hook_timeout(hook, self.timeout, self.max_timeout)
    }

    /// Where `hook` runs: its workspace root, else the run's default.
    pub(super) fn cwd_of(&self, hook: &DiscoveredHook) -> PathBuf {
        hook.workspace_root
            .clone()
            .unwrap_or_else(|| self.default_cwd.clone())
    }
}

/// The timeout `hook` runs with in a run whose timeout is `run` and whose cap on headers is
/// `max`: its header's `timeout=` capped at `max`, else `run`.
pub fn hook_timeout(hook: &DiscoveredHook, run: Duration, max: Duration) -> Duration {
    hook.settings.timeout.map_or(run, |own| own.min(max))
}
