//! Core results -> JavaScript objects.

use napi::bindgen_prelude::{Either, Null};
use napi_derive::napi;
use serde_json::Value;

use cline_hooks_core::discovery::DiscoveredHook as CoreHook;
use cline_hooks_core::event::RunReport;
use cline_hooks_core::process::Execution;

/// A hook file found by discovery.
#[napi(object, object_from_js = false)]
#[derive(Clone)]
pub struct DiscoveredHook {
    /// The hook name it answers to, for example `PreToolUse`.
    pub hook_name: String,
    /// Absolute path of the hook file.
    pub path: String,
    /// Which kind of directory it was found in.
    #[napi(ts_type = "'extra' | 'global' | 'workspace'")]
    pub source: String,
    /// The workspace root whose `.clinerules/hooks` holds it (workspace hooks only).
    pub workspace_root: Option<String>,
    /// `false`: found, but it will not run; `reason` says why (for example: not executable).
    pub enabled: bool,
    /// Why it will not run, or why it will fail to start (a missing interpreter), written
    /// for the hook's author.
    pub reason: Option<String>,
    /// The exact argv it is started with (no shell is involved).
    pub command: Vec<String>,
}

impl From<&CoreHook> for DiscoveredHook {
    fn from(hook: &CoreHook) -> Self {
        DiscoveredHook {
            hook_name: hook.hook_name.clone(),
            path: hook.path.to_string_lossy().into_owned(),
            source: hook.source.as_str().to_owned(),
            workspace_root: hook
                .workspace_root
                .as_ref()
                .map(|r| r.to_string_lossy().into_owned()),
            enabled: hook.enabled(),
            reason: hook.disabled.clone().or_else(|| hook.launch_error.clone()),
            command: hook
                .command
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
        }
    }
}

/// What running one hook did.
#[napi(object, object_from_js = false)]
#[derive(Clone)]
pub struct HookExecution {
    /// The hook name it ran for.
    pub hook_name: String,
    /// Absolute path of the hook file.
    pub path: String,
    /// Which kind of directory it was found in.
    #[napi(ts_type = "'extra' | 'global' | 'workspace'")]
    pub source: String,
    /// The workspace root it belongs to (workspace hooks only); it ran with this as its cwd.
    pub workspace_root: Option<String>,
    /// `completed`: exited 0 with valid (or no) JSON. `failed`: could not start, exited
    /// non-zero, was killed, or printed invalid JSON. `timedOut`: stopped at its timeout.
    /// `aborted`: stopped by an AbortSignal or `terminateAll()`. `started`: a detached run's
    /// hook, started and left running.
    #[napi(ts_type = "'started' | 'completed' | 'failed' | 'timedOut' | 'aborted'")]
    pub status: String,
    /// The `cancel` it printed. An explicit `cancel: true` still blocks when the hook then
    /// failed, timed out or was stopped by `terminateAll()`.
    pub cancel: bool,
    /// The `contextModification` (or CLI `context`) it printed, cut at 50,000 bytes of UTF-8
    /// (the marker that says so included).
    pub context_modification: String,
    /// The `errorMessage` it printed, cut at 50,000 bytes of UTF-8 (the marker that says so
    /// included).
    pub error_message: String,
    /// The CLI's `review` flag: ask the user before going ahead.
    pub review: bool,
    /// The CLI's `overrideInput`: replacement tool input, or null.
    #[napi(ts_type = "Record<string, unknown> | null")]
    pub override_input: Either<Value, Null>,
    /// The parsed JSON object it printed (its verdict), unknown fields included, or null. A
    /// lone surrogate escape reads as U+FFFD; `NaN`, `Infinity` and numbers beyond a 64-bit
    /// float read as null. For a verdict object the runner could not keep whole (it lies
    /// within neither the first nor the last MiB of stdout), only its verdict fields.
    #[napi(ts_type = "Record<string, unknown> | null")]
    pub output: Either<Value, Null>,
    /// Its exit code; null when it was killed by a signal or never started.
    #[napi(ts_type = "number | null")]
    pub exit_code: Either<i32, Null>,
    /// The signal that killed it, for example `SIGKILL (9)`; null otherwise.
    #[napi(ts_type = "string | null")]
    pub signal: Either<String, Null>,
    /// Wall time from queueing to the end, in milliseconds.
    pub duration_ms: f64,
    /// The last 16 KiB of its stderr (invalid UTF-8 replaced).
    pub stderr: String,
    /// Why it failed, timed out or was aborted, in one sentence for the hook's author.
    pub failure: Option<String>,
    /// Things worth knowing that did not make it fail (non-JSON tokens read as null, JSON
    /// objects ignored after the verdict, UTF-16 output, a verdict printed on stderr, legacy
    /// fields, ...).
    pub warnings: Vec<String>,
}

impl From<&Execution> for HookExecution {
    fn from(e: &Execution) -> Self {
        HookExecution {
            hook_name: e.hook_name.clone(),
            path: e.path.to_string_lossy().into_owned(),
            source: e.source.as_str().to_owned(),
            workspace_root: e
                .workspace_root
                .as_ref()
                .map(|r| r.to_string_lossy().into_owned()),
            status: e.status.as_str().to_owned(),
            cancel: e.cancel,
            context_modification: e.context_modification.clone(),
            error_message: e.error_message.clone(),
            review: e.review,
            override_input: or_null(e.override_input.clone().map(Value::Object)),
            output: or_null(e.output.clone().map(Value::Object)),
            exit_code: or_null(e.exit_code),
            signal: or_null(e.signal.clone()),
            duration_ms: millis(e.duration),
            stderr: e.stderr.clone(),
            failure: e.failure.clone(),
            warnings: e.warnings.clone(),
        }
    }
}

/// The combined result of all hooks of one run.
#[napi(object, object_from_js = false)]
pub struct HookRunResult {
    /// True when any hook asked to cancel (including a failed hook's explicit `cancel: true`).
    pub cancel: bool,
    /// The non-empty, trimmed `contextModification`s of completed hooks, in discovery order,
    /// joined by a blank line.
    pub context_modification: String,
    /// The non-empty `errorMessage`s, in discovery order, joined by newlines.
    pub error_message: String,
    /// True when any completed hook set the CLI's `review` flag.
    pub review: bool,
    /// The last `overrideInput` in discovery order, or null.
    #[napi(ts_type = "Record<string, unknown> | null")]
    pub override_input: Either<Value, Null>,
    /// One entry per hook that ran, in discovery order.
    pub hooks: Vec<HookExecution>,
    /// The execution that took longest, or null when nothing ran.
    #[napi(ts_type = "HookExecution | null")]
    pub slowest: Either<HookExecution, Null>,
    /// Wall time of the whole run, in milliseconds.
    pub duration_ms: f64,
    /// Run-level notes: hooks skipped (with why), overridden `overrideInput`s.
    pub warnings: Vec<String>,
}

impl From<RunReport> for HookRunResult {
    fn from(report: RunReport) -> Self {
        let hooks: Vec<HookExecution> = report.executions.iter().map(HookExecution::from).collect();
        let slowest = or_null(report.combined.slowest.and_then(|i| hooks.get(i).cloned()));
        HookRunResult {
            cancel: report.combined.cancel,
            context_modification: report.combined.context_modification,
            error_message: report.combined.error_message,
            review: report.combined.review,
            override_input: or_null(report.combined.override_input.map(Value::Object)),
            hooks,
            slowest,
            duration_ms: millis(report.duration),
            warnings: report.combined.warnings,
        }
    }
}

fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

/// `null` rather than a missing key: the API promises `T | null` for these fields.
fn or_null<T>(value: Option<T>) -> Either<T, Null> {
    match value {
        Some(v) => Either::A(v),
        None => Either::B(Null),
    }
}

/// The result of a run with nothing to run, built by a JavaScript object literal: V8 makes
/// that far faster than setting nine properties one by one from native code, and this is the
/// path taken for every event that has no hook (most tool calls of most users).
pub fn nothing_ran<'env>(
    env: &'env napi::Env,
    warnings: Vec<String>,
) -> napi::Result<napi::bindgen_prelude::Unknown<'env>> {
    use napi::bindgen_prelude::*;
    thread_local! {
        static FACTORY: std::cell::OnceCell<FunctionRef<Vec<String>, Unknown<'static>>> = const { std::cell::OnceCell::new() };
    }
    FACTORY.with(|cell| {
        if cell.get().is_none() {
            let make: Function<Vec<String>, Unknown> = env.run_script(
                "(function (warnings) { return { cancel: false, contextModification: '', errorMessage: '', review: false, \
                 overrideInput: null, hooks: [], slowest: null, durationMs: 0, warnings: warnings } })",
            )?;
            let _ = cell.set(make.create_ref()?);
        }
        match cell.get() {
            Some(make) => make.borrow_back(env)?.call(warnings),
            None => Err(napi::Error::from_reason("result factory missing")),
        }
    })
}
