//! Core results -> JavaScript objects.

mod file_report;
mod handover;

pub use file_report::HookFileReport;
pub use handover::{capture, to_js};

use napi::bindgen_prelude::{Either, Null};
use napi_derive::napi;
use serde_json::Value;

use cline_hooks_core::discovery::DiscoveredHook as CoreHook;
use cline_hooks_core::event::RunReport;
use cline_hooks_core::process::{signal_parts, Execution};

/// A hook file found by discovery.
#[napi(object, object_from_js = false)]
#[derive(Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredHook {
    /// The hook name it answers to, for example `PreToolUse`.
    pub hook_name: String,
    /// Absolute path of the hook file.
    pub path: String,
    /// Which kind of directory it was found in.
    #[napi(
        ts_type = "'managed' | 'extra' | 'global' | 'workspace' | 'claudeUser' | 'claudeProject' | 'claudeLocal'"
    )]
    pub source: String,
    /// The workspace root whose `.clinerules/hooks` holds it (workspace hooks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<String>,
    /// `false`: found, but it will not run; `reason` says why (for example: not executable,
    /// or a `#!` line with Windows line endings: a run reports such a hook `failed`, never
    /// started).
    pub enabled: bool,
    /// Why it will not run, or why it will fail to start (a missing interpreter), written
    /// for the hook's author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The exact argv it is started with (no shell is involved).
    pub command: Vec<String>,
    /// The sha256 of its file's bytes (lowercase hex), what `trustHook` approves; absent when
    /// the file cannot be read (or is over 64 MiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Where it stands with the user's approvals: `"notRequired"` (outside the trust scope,
    /// or trust is off), `"approved"` (these bytes are approved), `"new"` (never approved) or
    /// `"changed"` (approved with other bytes).
    #[napi(ts_type = "'notRequired' | 'approved' | 'new' | 'changed'")]
    pub trust: String,
    /// What its `cline-hook:` header asks for (see "Faster hooks" in the README).
    pub settings: HookSettings,
    /// What is wrong with its file that does not stop it from running: each problem of its
    /// header, naming the line and the fix (it runs with the settings that were valid).
    pub warnings: Vec<String>,
    /// A Claude Code settings handler's event, matcher and command (`claudeSettings`); absent
    /// for a hook file. Its `path` is `<settings file>#<position>`, what `trustHook` approves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claude: Option<ClaudeHandler>,
    /// The sandbox it runs in (`sandbox`); absent when it runs unconfined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<HookSandbox>,
}

/// What a confined hook may do beyond reading (see `DiscoveryOptions.sandbox`).
#[napi(object, object_from_js = false)]
#[derive(Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSandbox {
    /// The folders it may write in: the folder it runs in, the system temp folder, then
    /// `sandboxWritable`.
    pub writable: Vec<String>,
    /// Whether it may open TCP connections and listen (`sandboxNetwork`).
    pub network: bool,
}

/// A Claude Code settings handler, as written in its file.
#[napi(object, object_from_js = false)]
#[derive(Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeHandler {
    /// The Claude event it is written under (`PreToolUse`, `SessionStart`, `Stop`...).
    pub event: String,
    /// Its group's `matcher`; absent when the group has none (it matches everything).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The command line its shell runs.
    pub command: String,
    /// The settings file.
    pub file: String,
    /// Where in the file: `hooks.PreToolUse[0].hooks[1]`.
    pub position: String,
    /// The files an approval covers the bytes of (a project's settings only): those its
    /// command runs or loads inside its project, the one it runs first, then every file of
    /// the project's `.claude/hooks`.
    pub scripts: Vec<String>,
}

/// The settings of a hook's `cline-hook:` header line.
#[napi(object, object_from_js = false)]
#[derive(Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSettings {
    /// `tools=`: the tool-name globs (`*`, `?`) a PreToolUse/PostToolUse hook runs for; absent:
    /// every tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// `timeout=`, in milliseconds: its timeout, replacing the run's `timeoutMs` (capped by
    /// `maxTimeoutMs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<f64>,
    /// `onFailure=`: its failure policy, replacing the run's `onFailure`.
    #[napi(ts_type = "'allow' | 'block'")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<String>,
    /// `mode=`: `persistent` (one long-lived process answers event after event) or
    /// `perEvent` (the default: a process per event).
    #[napi(ts_type = "'perEvent' | 'persistent'")]
    pub mode: String,
    /// The header's line number (1-based); absent when the file has no header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl From<&cline_hooks_core::discovery::HookSettings> for HookSettings {
    fn from(settings: &cline_hooks_core::discovery::HookSettings) -> Self {
        HookSettings {
            tools: settings.tools.clone(),
            timeout_ms: settings.timeout.map(|t| t.as_millis() as f64),
            on_failure: settings.on_failure.map(|f| f.as_str().to_owned()),
            mode: settings.mode.as_str().to_owned(),
            line: settings.line.map(|l| l as u32),
        }
    }
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
            // One that cannot start is not listed enabled: the doctor says it will not run. A
            // run still reports it `failed` (not started), so a failure policy applies to it.
            enabled: hook.enabled() && hook.launch_error.is_none(),
            reason: hook.disabled.clone().or_else(|| hook.launch_error.clone()),
            command: hook
                .command
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            sha256: hook.sha256.clone(),
            trust: hook.trust.as_str().to_owned(),
            settings: (&hook.settings).into(),
            warnings: hook.warnings.clone(),
            claude: hook.claude.as_ref().map(|c| ClaudeHandler {
                event: c.event.clone(),
                matcher: c.matcher.text.clone(),
                command: c.command.clone(),
                file: c.file.to_string_lossy().into_owned(),
                position: c.position.clone(),
                scripts: c
                    .scripts
                    .iter()
                    .map(|(p, _)| p.to_string_lossy().into_owned())
                    .collect(),
            }),
            sandbox: hook.sandbox.as_ref().map(|sandbox| HookSandbox {
                writable: sandbox
                    .writable
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect(),
                network: sandbox.network,
            }),
        }
    }
}

/// Discovered hooks on their way to JavaScript: an array whose elements are defined, not
/// assigned as napi's own conversion of a `Vec` does, so no setter a host put on
/// `Array.prototype` runs or swallows an element.
pub struct HookList(pub Vec<DiscoveredHook>);

impl napi::bindgen_prelude::ToNapiValue for HookList {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        val: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        // Strings and booleans: serializing cannot fail; an empty list would show it did.
        let value = serde_json::to_value(&val.0).unwrap_or_else(|_| Value::Array(Vec::new()));
        crate::node::properties::json_value(env, &value)
    }
}

/// What running one hook did.
// Declares the type for index.d.ts; results reach JavaScript as JSON text (`run_json`).
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
pub struct HookExecution {
    /// The hook name it ran for.
    pub hook_name: String,
    /// Absolute path of the hook file.
    pub path: String,
    /// Which kind of directory it was found in.
    #[napi(
        ts_type = "'managed' | 'extra' | 'global' | 'workspace' | 'claudeUser' | 'claudeProject' | 'claudeLocal'"
    )]
    pub source: String,
    /// The workspace root it belongs to (workspace hooks only); it ran with this as its cwd.
    pub workspace_root: Option<String>,
    /// `completed`: exited 0 with valid (or no) JSON. `failed`: could not start, exited
    /// non-zero, was killed, or printed invalid JSON. `timedOut`: stopped at its timeout.
    /// `aborted`: stopped by an AbortSignal or `terminateAll()`. `started`: a detached run's
    /// hook, started and left running. `skipped`: not started because its header's `tools=`
    /// does not match the tool (`skipReason` says so); not a failure.
    #[napi(ts_type = "'started' | 'completed' | 'failed' | 'timedOut' | 'aborted' | 'skipped'")]
    pub status: String,
    /// Whether its process was started: `false` when it waited for a process slot until its
    /// timeout, the system refused to start it, or its run was stopped first. A host that
    /// treats the hook as a guardrail can refuse to go ahead when it never ran.
    pub started: bool,
    /// It runs in a sandbox (`sandbox`): started, it ran confined; where it could not be
    /// confined it did not start (`startFailure`, the `failure` saying why).
    pub confined: bool,
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
    /// The name of the signal that killed it, for example `SIGKILL`; null otherwise (and
    /// always on Windows, which has no signals).
    #[napi(ts_type = "string | null")]
    pub signal: Either<String, Null>,
    /// The number of that signal, for example `9`; null otherwise.
    #[napi(ts_type = "number | null")]
    pub signal_number: Either<i32, Null>,
    /// Wall time from queueing to the end, in milliseconds.
    pub duration_ms: f64,
    /// The last 16 KiB of its stdout, for reading what it printed (its verdict is read from
    /// all of stdout, not from this): invalid UTF-8 replaced, UTF-16 output decoded, from a
    /// whole character on. A persistent hook's: its event's output (the lines printed while
    /// the event was in flight, its answer included). Empty when it did not start, was
    /// skipped or started detached.
    pub stdout: String,
    /// The last 16 KiB of its stderr (invalid UTF-8 replaced).
    pub stderr: String,
    /// Why it failed, timed out or was aborted, in one sentence for the hook's author.
    pub failure: Option<String>,
    /// How it failed, as `onFailure` names it: `timedOut` (timed out, or waited for a process
    /// slot until its timeout), `crash` (exited non-zero, killed by a signal, or an internal
    /// error), `startFailure` (could not start), `invalidOutput` (exited 0, output unusable).
    /// Absent when it completed, was started detached, or was aborted.
    #[napi(ts_type = "'timedOut' | 'crash' | 'startFailure' | 'invalidOutput'")]
    pub failure_kind: Option<String>,
    /// Things worth knowing that did not make it fail (non-JSON tokens read as null, JSON
    /// objects ignored after the verdict, UTF-16 output, a verdict printed on stderr, legacy
    /// fields, ...).
    pub warnings: Vec<String>,
    /// The timeout it ran with, in milliseconds: the run's `timeoutMs`, or its header's
    /// `timeout=` (capped by `maxTimeoutMs`).
    pub timeout_ms: f64,
    /// Why it was skipped (status `skipped`).
    pub skip_reason: Option<String>,
}

/// The combined result of all hooks of one run.
// Declares the type for index.d.ts; results reach JavaScript as JSON text (`run_json`).
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
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
    /// The entry of `hooks` that took longest (the same object), or null when nothing ran.
    #[napi(ts_type = "HookExecution | null")]
    pub slowest: Either<HookExecution, Null>,
    /// Wall time of the whole run, in milliseconds.
    pub duration_ms: f64,
    /// Run-level notes: hooks skipped (with why), files meant for this hook that will not run
    /// (with why and the fix), overridden `overrideInput`s.
    pub warnings: Vec<String>,
    /// The files meant for this hook that will not run, as `diagnoseHooks()` reports them:
    /// hooks disabled, untrusted or unable to start, files misnamed for it (`PreToolUse.py`,
    /// `PreTooluse`), and files Windows passes over. Empty when every file of it runs.
    pub not_run: Vec<HookFileReport>,
}

pub(crate) fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

/// A run's result as JSON text, made on the runtime's thread, and which of its hooks is the
/// slowest. V8 builds the objects from it with one `JSON.parse` far faster than native code
/// can set their properties one by one, and `JSON.parse`'s own rules apply: a `"__proto__"`
/// key a hook printed is a plain key, and an integer beyond 2^63 a number like any other.
/// `slowest` travels as an index so that it is one of `hooks`, not a second copy to parse.
pub fn run_json(report: &RunReport) -> RunJson {
    let hooks: Vec<ExecutionJson> = report.executions.iter().map(ExecutionJson::from).collect();
    let slowest = report
        .combined
        .slowest
        .filter(|&i| i < hooks.len())
        .and_then(|i| u32::try_from(i).ok());
    let result = ResultJson {
        cancel: report.combined.cancel,
        context_modification: &report.combined.context_modification,
        error_message: &report.combined.error_message,
        review: report.combined.review,
        override_input: report.combined.override_input.as_ref(),
        hooks,
        slowest: None,
        duration_ms: millis(report.duration),
        warnings: &report.combined.warnings,
        not_run: &report.not_run,
    };
    // Serializing maps of strings and finite numbers cannot fail; `{}` would show it did.
    let text = serde_json::to_string(&result).unwrap_or_else(|_| "{}".to_owned());
    let ascii = text.is_ascii();
    RunJson {
        text,
        ascii,
        slowest,
    }
}

/// `HookRunResult`, keys in the order the API has always listed them.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultJson<'a> {
    cancel: bool,
    context_modification: &'a str,
    error_message: &'a str,
    review: bool,
    override_input: Option<&'a serde_json::Map<String, Value>>,
    hooks: Vec<ExecutionJson<'a>>,
    /// Always null here: filled in on the JavaScript thread (`RunJson::slowest`).
    slowest: Option<()>,
    duration_ms: f64,
    warnings: &'a [String],
    not_run: &'a [cline_hooks_core::diagnosis::FileReport],
}

/// `HookExecution`: `workspaceRoot`, `failure` and `failureKind` come last and only when set,
/// as they always have.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionJson<'a> {
    hook_name: &'a str,
    path: std::borrow::Cow<'a, str>,
    source: &'static str,
    status: &'static str,
    started: bool,
    confined: bool,
    cancel: bool,
    context_modification: &'a str,
    error_message: &'a str,
    review: bool,
    override_input: Option<&'a serde_json::Map<String, Value>>,
    output: Option<&'a serde_json::Map<String, Value>>,
    exit_code: Option<i32>,
    signal: Option<&'a str>,
    signal_number: Option<i32>,
    duration_ms: f64,
    stdout: &'a str,
    stderr: &'a str,
    warnings: &'a [String],
    timeout_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    workspace_root: Option<std::borrow::Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure_kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip_reason: Option<&'a str>,
}

impl<'a> From<&'a Execution> for ExecutionJson<'a> {
    fn from(e: &'a Execution) -> Self {
        ExecutionJson {
            hook_name: &e.hook_name,
            path: e.path.to_string_lossy(),
            source: e.source.as_str(),
            status: e.status.as_str(),
            started: e.started,
            confined: e.confined,
            cancel: e.cancel,
            context_modification: &e.context_modification,
            error_message: &e.error_message,
            review: e.review,
            override_input: e.override_input.as_ref(),
            output: e.output.as_ref(),
            exit_code: e.exit_code,
            signal: e.signal.as_deref().map(|s| signal_parts(s).0),
            signal_number: e.signal.as_deref().and_then(|s| signal_parts(s).1),
            duration_ms: millis(e.duration),
            stdout: &e.stdout,
            stderr: &e.stderr,
            warnings: &e.warnings,
            timeout_ms: millis(e.timeout),
            workspace_root: e.workspace_root.as_ref().map(|r| r.to_string_lossy()),
            failure: e.failure.as_deref(),
            failure_kind: e.failure_kind.map(|k| k.as_str()),
            skip_reason: e.skip_reason.as_deref(),
        }
    }
}

/// An object from JSON text made on the runtime (a live event), built as results are.
pub(crate) fn object_from_json(
    env: &napi::Env,
    text: &str,
    ascii: bool,
) -> napi::Result<napi::sys::napi_value> {
    handover::to_js(env, text, ascii, None)
}

/// A result on its way to JavaScript: see `run_json` and `handover`.
pub struct RunJson {
    text: String,
    /// Checked off the JavaScript thread: ASCII text is copied into V8 as it is, not decoded.
    ascii: bool,
    /// The index in `hooks` of the slowest execution.
    slowest: Option<u32>,
}

impl napi::bindgen_prelude::ToNapiValue for RunJson {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        val: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        let env = napi::Env::from_raw(env);
        handover::to_js(&env, &val.text, val.ascii, val.slowest)
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
                 overrideInput: null, hooks: [], slowest: null, durationMs: 0, warnings: warnings, notRun: [] } })",
            )?;
            let _ = cell.set(make.create_ref()?);
        }
        match cell.get() {
            Some(make) => make.borrow_back(env)?.call(warnings),
            None => Err(napi::Error::from_reason("result factory missing")),
        }
    })
}
