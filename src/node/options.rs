//! JavaScript options -> core settings. Only conversion and validation happen here.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use napi::bindgen_prelude::*;

use crate::node::describe::{describe_type, describe_value, js_number};
use napi_derive::napi;

use crate::node::errors::{self, Failure};
use cline_hooks_core::discovery::{GlobalDir, Layout, ManagedDir, Profile};
use cline_hooks_core::error::HookError;
use cline_hooks_core::event::HookInput;
use cline_hooks_core::event::RunSettings;
use cline_hooks_core::policy::{placement_problem, TrustScope};
use cline_hooks_core::process::Owner;
use tokio_util::sync::CancellationToken;

mod env_and_paths;
mod on_failure;
mod scrub_env;

use on_failure::OnFailureOption;
use scrub_env::ScrubEnvOption;

/// Where to look for hooks. Every path is a non-empty string without NUL bytes and of valid
/// Unicode (anything else is refused with `ERR_INVALID_OPTION`, naming the entry); a relative
/// one is resolved against the current directory.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct DiscoveryOptions {
    /// Workspace roots, in order; each one's `.clinerules/hooks` is searched. Default: none.
    pub workspace_roots: Option<Vec<String>>,
    /// The global hooks folder. Default: the user's Documents folder + `/Cline/Hooks`
    /// (the Documents known folder on Windows, `XDG_DOCUMENTS_DIR` on Linux, `~/Documents`
    /// otherwise). `null` turns every global folder off (in the CLI profile, `$CLINE_DIR/hooks`
    /// too).
    #[napi(ts_type = "string | null")]
    pub global_hooks_dir: Option<Either<String, Null>>,
    /// More hooks folders, searched first (for example a CLI `--hooks-dir`).
    pub extra_hooks_dirs: Option<Vec<String>>,
    /// Whose conventions to follow. `"extension"` (default): `.clinerules/hooks`, one
    /// executable per hook per folder. `"cli"`: the Cline CLI's file hooks: also
    /// `$CLINE_DIR/hooks` and `<root>/.cline/hooks`, files with extensions (`.sh .bash .zsh
    /// .js .mjs .cjs .ts .mts .cts .py .ps1`) run by their `#!` line or their extension's
    /// interpreter, several per hook, no exec bit needed, in the Cline SDK's order (every file
    /// by full path, as `localeCompare` sorts); hooks get `CLINE_BUILD_ENV` and no `model`
    /// field, and output is read for up to 1 s after a hook exits, as the SDK does.
    #[napi(ts_type = "'extension' | 'cli'")]
    pub profile: Option<String>,
    /// The CLI profile's data folder; default `$CLINE_DIR`, else `~/.cline`.
    pub cline_dir: Option<String>,
    /// Most hook processes this factory runs at once, an integer from 1 to 1024; more wait
    /// for a free slot (their timeout keeps running while they wait). Default: 8 per CPU
    /// core, shared by all callers that set no limit.
    pub max_concurrent_hooks: Option<f64>,
    /// The longest timeout a hook's header (`timeout=`) may ask for, in milliseconds, for this
    /// factory's runs (a run's own `maxTimeoutMs` replaces it): from 1
    /// to 86,400,000 (a day); default 600000 (10 minutes). A longer `timeout=` runs with this
    /// one, and the execution warns.
    pub max_timeout_ms: Option<f64>,
    /// Milliseconds a persistent hook's process (header `mode=persistent`) may sit idle
    /// before it is stopped: from 0 to 86,400,000; default 300000 (5 minutes); for this
    /// factory's runs (a run's own `persistentIdleMs` replaces it).
    pub persistent_idle_ms: Option<f64>,
    /// The user's hooks policy store: a JSON file of approved hook fingerprints and disabled
    /// hooks, edited with `trustHook`, `untrustHook` and `setHookEnabled`. Default: the
    /// `cline-hooks` CLI's store, `$CLINE_DIR/hooks-policy.json`, else
    /// `~/.cline/hooks-policy.json` (not used when it lies inside a workspace root), so an
    /// approval made with `cline-hooks trust` counts here; `null`: no store (no hook is
    /// disabled or approved by one). A store named here must not be inside a workspace root. A
    /// store that cannot be used counts as empty and each run's `warnings` says why; a missing
    /// one is empty.
    #[napi(ts_type = "string | null")]
    pub policy_file: Option<Either<String, Null>>,
    /// Which hooks must be approved (`trustHook`) before they run: `"off"` (default, none),
    /// `"workspace"` (the hooks of workspace roots, which a cloned repository brings:
    /// recommended), or `"all"` (every hook but managed ones). A hook not approved for its
    /// current bytes is listed `enabled: false` with reason `not trusted: new` or
    /// `not trusted: changed since approved`, and is not started. Needs a policy store (the
    /// default one will do).
    #[napi(ts_type = "'workspace' | 'all' | 'off'")]
    pub trust: Option<String>,
    /// The managed hooks folder, searched first; its hooks run before all others and are
    /// refused when anyone but root/Administrators can write them or their folder. Default:
    /// the system's (`/etc/cline/hooks`, `/Library/Application Support/Cline/Hooks`,
    /// `%ProgramData%\Cline\Hooks`); `null`: none.
    #[napi(ts_type = "string | null")]
    pub managed_hooks_dir: Option<Either<String, Null>>,
    /// Hooks this host requires (hook names such as `"PreToolUse"`, or CLI event names such
    /// as `"tool_call"`): a run of one of them in which no hook of that name starts (none
    /// exists; all are disabled, untrusted or misnamed; none could start) is `cancel: true`,
    /// with an `errorMessage` naming the hook and why none ran. A hook skipped by its header's
    /// `tools=` counts as present. Default: none.
    #[napi(ts_type = "Array<HookName | CliEventName>")]
    pub require_hooks: Option<Vec<String>>,
    /// Also run the hooks of Claude Code's settings files: the `hooks` key of
    /// `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`; off with `globalHooksDir: null`) and of
    /// each root's `.claude/settings.json` and `.claude/settings.local.json`, after every hook
    /// file. Each command handler is a hook (`source` `claudeUser`, `claudeProject` or
    /// `claudeLocal`; `claude` tells its event, matcher and command), run by `sh -c` (Git Bash on
    /// Windows) with Claude's JSON on stdin; its exit code 2 or JSON answer is read into the
    /// same verdict (see docs/claude-code.md). Default: false.
    pub claude_settings: Option<bool>,
    /// Which hooks run confined in an OS sandbox: `'workspace'` the hooks a repository brings
    /// (its `.clinerules/hooks` and Claude Code project settings), `'all'` every hook but the
    /// managed ones, `'off'` none (the default). A confined hook writes only beneath the folder
    /// it runs in, the system temp folder and `sandboxWritable`, opens no TCP connection unless
    /// `sandboxNetwork`, and cannot trace or signal the host; its whole tree inherits that.
    /// Linux (Landlock ABI 4, Linux 6.7; ABI 2 with `sandboxNetwork`) and macOS
    /// (`sandbox-exec`); where a hook cannot be confined it does not start (a `startFailure`
    /// saying why). See docs/security.md.
    #[napi(ts_type = "'off' | 'workspace' | 'all'")]
    pub sandbox: Option<String>,
    /// More folders a confined hook may write in (see `sandbox`). Default: none.
    pub sandbox_writable: Option<Vec<String>>,
    /// Let confined hooks open TCP connections and listen (see `sandbox`). Default: false.
    pub sandbox_network: Option<bool>,
}

/// How to run.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RunOptions {
    /// Per-hook timeout in milliseconds (default 30000). A hook still running then has its
    /// whole process tree stopped and is reported `timedOut`. A hook's header `timeout=`
    /// replaces it for that hook.
    pub timeout_ms: Option<f64>,
    /// The longest timeout a hook's header (`timeout=`) may ask for, in milliseconds: from 1
    /// to 86,400,000 (a day); default 600000 (10 minutes). A longer `timeout=` runs with this
    /// one, and the execution warns.
    pub max_timeout_ms: Option<f64>,
    /// Milliseconds a persistent hook's process (header `mode=persistent`) may sit idle
    /// before it is stopped: from 0 to 86,400,000; default 300000 (5 minutes).
    pub persistent_idle_ms: Option<f64>,
    /// Aborting kills every running hook's process tree and rejects with an `AbortError`;
    /// an already-aborted signal starts nothing.
    #[napi(ts_type = "AbortSignal")]
    #[allow(dead_code)] // typed here for index.d.ts; the live object is read by signal.rs
    pub signal: Option<SignalField>,
    /// Variables added to the inherited environment of every hook: a plain object (`{ ... }`
    /// or `Object.create(null)`) of names to strings. Only its own enumerable string keys
    /// count; inherited ones (a polluted `Object.prototype`) are ignored. As Node's
    /// `child_process` does, a finite number or BigInt becomes `String(value)`, and
    /// `undefined` leaves the variable out: since these variables are added to the inherited
    /// ones (Node's `env` replaces them), the hook then sees the host's value, if any.
    /// Refused with `ERR_INVALID_OPTION`, naming the variable: any other value (`null`, a
    /// boolean, an object, NaN), a `Map` or other non-plain object, an empty name, a name with
    /// `=` or NUL, a value with NUL, text that is not valid Unicode, and on Linux a
    /// `NAME=value` longer than 32 memory pages (131,071 bytes with 4 KiB pages), with which
    /// the kernel starts no program. On Windows, where names ignore case, of two spellings of
    /// one name the value given last wins.
    #[napi(ts_type = "Record<string, string | number | undefined>")]
    pub env: Option<EnvVars>,
    /// `false` (default): the hooks of one run start together. `true`: one after another.
    /// Results are always combined in discovery order.
    pub sequential: Option<bool>,
    /// Most hook processes this call runs at once, an integer from 1 to 1024, replacing the
    /// factory's limit.
    pub max_concurrent_hooks: Option<f64>,
    /// Fire and forget, for observation-only hooks: start the hooks with their input and
    /// resolve as soon as they have started (status `"started"`). Their output is not read,
    /// and they never hold the caller, its event loop or its exit. Each takes a process slot
    /// until its own process ends; `terminateAll()` stops them; the host's exit does not.
    pub detached: Option<bool>,
    /// What a hook's failure means. `'allow'` (default): a hook that times out, crashes,
    /// cannot start or prints output that cannot be used never blocks. `'block'`: each of
    /// these counts as `cancel: true`, and `errorMessage` gets one line naming the hook and
    /// what happened. An object sets each kind on its own (a kind left out is allowed). An
    /// abort, `terminateAll()` and a disabled hook are never failures.
    #[napi(ts_type = "'allow' | 'block' | OnFailurePolicy")]
    pub on_failure: Option<OnFailureOption>,
    /// Variables of the host's environment the hooks do not get. `true`: those whose names
    /// look like credentials (containing, in any case, `TOKEN`, `SECRET`, `PASSWORD`,
    /// `PASSWD`, `PASSPHRASE`, `CREDENTIAL`, `API_KEY`, `APIKEY` or `PRIVATE_KEY`; ending in
    /// `_KEY`, `_PAT` or `_AUTH`; starting with `AWS_` or `AZURE_`). An array: exactly those
    /// names (without case on Windows). `false` (default): all are passed. What `env` sets is
    /// always passed. On Linux (Landlock) scrubbed hooks also cannot read the host's
    /// environment or memory through `/proc`, gain privileges (`sudo`) or mount; where they are
    /// not kept from the host, the run's `warnings` say so once (README, "Environment scrubbing").
    #[napi(ts_type = "boolean | string[]")]
    pub scrub_env: Option<ScrubEnvOption>,
    /// A file to append one JSON line to per hook execution (time, runId, hookName, path,
    /// source, sha256, status, durationMs, exitCode, signal, failureKind, cancel, review,
    /// inputOverridden, stdoutBytes, stderrBytes), with one write per line, so many runs and
    /// processes can share it. Created with its folders if missing; a relative path is resolved
    /// against the current directory. A failed write is a warning of the run, never a failure.
    pub audit_log: Option<String>,
    /// `true`: each execution of a workspace or global hook is appended to
    /// `<HookName>.log` beside its hooks folder (`.clinerules/logs/`, the global folder's
    /// `Logs/`): a header line and the tails of its stdout and stderr; over 1 MiB it is renamed
    /// to `.log.1`. Default `false`.
    pub hook_logs: Option<bool>,
    /// Called with each hook's live events as they happen (see `HookEvent`): its start, each
    /// line it prints (at most 1,000 per hook, each cut at 4 KiB), `slow` once past
    /// `slowThresholdMs`, and its `end` with its `HookExecution`; in order per hook, every one
    /// before the returned promise settles. It runs on the JavaScript thread and never holds
    /// the hooks; what it throws is ignored. Without it, output is not split into lines.
    #[napi(ts_type = "(event: HookEvent) => void")]
    #[allow(dead_code)] // typed here for index.d.ts; the live function is read by events.rs
    pub on_event: Option<crate::node::events::OnEventField>,
    /// Milliseconds a hook runs (or waits for a slot) before its `slow` event: a number, 0 or
    /// more (default 2000).
    pub slow_threshold_ms: Option<f64>,
}

/// `DiscoveryOptions & RunOptions`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RunHookOptions {
    /// See `DiscoveryOptions.workspaceRoots`.
    pub workspace_roots: Option<Vec<String>>,
    /// See `DiscoveryOptions.globalHooksDir`.
    #[napi(ts_type = "string | null")]
    pub global_hooks_dir: Option<Either<String, Null>>,
    /// See `DiscoveryOptions.extraHooksDirs`.
    pub extra_hooks_dirs: Option<Vec<String>>,
    /// See `DiscoveryOptions.profile`.
    #[napi(ts_type = "'extension' | 'cli'")]
    pub profile: Option<String>,
    /// See `DiscoveryOptions.clineDir`.
    pub cline_dir: Option<String>,
    /// See `DiscoveryOptions.policyFile`.
    #[napi(ts_type = "string | null")]
    pub policy_file: Option<Either<String, Null>>,
    /// See `DiscoveryOptions.trust`.
    #[napi(ts_type = "'workspace' | 'all' | 'off'")]
    pub trust: Option<String>,
    /// See `DiscoveryOptions.managedHooksDir`.
    #[napi(ts_type = "string | null")]
    pub managed_hooks_dir: Option<Either<String, Null>>,
    /// See `DiscoveryOptions.requireHooks`.
    #[napi(ts_type = "Array<HookName | CliEventName>")]
    pub require_hooks: Option<Vec<String>>,
    /// See `DiscoveryOptions.claudeSettings`.
    pub claude_settings: Option<bool>,
    /// See `DiscoveryOptions.sandbox`.
    #[napi(ts_type = "'off' | 'workspace' | 'all'")]
    pub sandbox: Option<String>,
    /// See `DiscoveryOptions.sandboxWritable`.
    pub sandbox_writable: Option<Vec<String>>,
    /// See `DiscoveryOptions.sandboxNetwork`.
    pub sandbox_network: Option<bool>,
    /// See `RunOptions.maxConcurrentHooks`.
    pub max_concurrent_hooks: Option<f64>,
    /// See `RunOptions.timeoutMs`.
    pub timeout_ms: Option<f64>,
    /// See `RunOptions.maxTimeoutMs`.
    pub max_timeout_ms: Option<f64>,
    /// See `RunOptions.persistentIdleMs`.
    pub persistent_idle_ms: Option<f64>,
    /// See `RunOptions.signal`.
    #[napi(ts_type = "AbortSignal")]
    #[allow(dead_code)] // typed here for index.d.ts; the live object is read by signal.rs
    pub signal: Option<SignalField>,
    /// See `RunOptions.env`.
    #[napi(ts_type = "Record<string, string | number | undefined>")]
    pub env: Option<EnvVars>,
    /// See `RunOptions.sequential`.
    pub sequential: Option<bool>,
    /// See `RunOptions.detached`.
    pub detached: Option<bool>,
    /// See `RunOptions.onFailure`.
    #[napi(ts_type = "'allow' | 'block' | OnFailurePolicy")]
    pub on_failure: Option<OnFailureOption>,
    /// See `RunOptions.scrubEnv`.
    #[napi(ts_type = "boolean | string[]")]
    pub scrub_env: Option<ScrubEnvOption>,
    /// See `RunOptions.auditLog`.
    pub audit_log: Option<String>,
    /// See `RunOptions.hookLogs`.
    pub hook_logs: Option<bool>,
    /// See `RunOptions.onEvent`.
    #[napi(ts_type = "(event: HookEvent) => void")]
    #[allow(dead_code)] // typed here for index.d.ts; the live function is read by events.rs
    pub on_event: Option<crate::node::events::OnEventField>,
    /// See `RunOptions.slowThresholdMs`.
    pub slow_threshold_ms: Option<f64>,
}

/// The run options a `HookFactory` takes for its runners' runs.
#[derive(Debug, Default, Clone, Copy)]
pub struct RunDefaults {
    max_timeout_ms: Option<f64>,
    persistent_idle_ms: Option<f64>,
}

impl RunDefaults {
    /// The factory's, checked as a run's are.
    pub fn of(options: &DiscoveryOptions) -> std::result::Result<RunDefaults, HookError> {
        max_timeout(options.max_timeout_ms)?;
        persistent_idle(options.persistent_idle_ms)?;
        Ok(RunDefaults {
            max_timeout_ms: options.max_timeout_ms,
            persistent_idle_ms: options.persistent_idle_ms,
        })
    }

    /// `run` with these where it sets none of its own.
    pub fn under(self, mut run: RunOptions) -> RunOptions {
        run.max_timeout_ms = run.max_timeout_ms.or(self.max_timeout_ms);
        run.persistent_idle_ms = run.persistent_idle_ms.or(self.persistent_idle_ms);
        run
    }
}

/// Where `untrustHook` and `setHookEnabled` record the user's decision (typed inline in
/// index.d.ts, where `policyFile` is required).
#[derive(Default)]
pub struct PolicyOptions {
    /// The hooks policy store (see `DiscoveryOptions.policyFile`); default: the CLI's store.
    pub policy_file: Option<Either<String, Null>>,
}

/// Where `trustHook` records the approval, and of which bytes (typed inline in index.d.ts).
#[derive(Default)]
pub struct TrustOptions {
    /// The hooks policy store (see `DiscoveryOptions.policyFile`); default: the CLI's store.
    pub policy_file: Option<Either<String, Null>>,
    /// The sha256 the user reviewed (as `discoverHooks` reported it): the hook is approved
    /// only if its bytes still have it, so a file changed after it was shown is not.
    pub sha256: Option<String>,
}

/// A path argument read as `env_and_paths` reads path options (no NUL, valid Unicode).
pub fn env_and_paths_path<'env>(
    env: &'env Env,
    option: &'static str,
    value: &Unknown<'env>,
    if_empty: &str,
) -> std::result::Result<String, Failure<'env>> {
    env_and_paths::path(env, option, value, if_empty)
}

/// The store a policy call names: `policyFile` made absolute, else the default store. `null`
/// (no store, for discovery) is refused: a decision needs a store to be recorded in, and
/// writing the default one instead would change the store the caller turned off.
pub fn policy_file(
    policy_file: Option<&Either<String, Null>>,
    call: &str,
) -> std::result::Result<PathBuf, HookError> {
    match policy_file {
        Some(Either::A(file)) => absolute_path("policyFile", file),
        Some(Either::B(Null)) => Err(HookError::InvalidOption {
            option: "policyFile",
            reason: format!(
                "{call} records in a policy store, and null means none; leave policyFile out for the default store (the CLI's) or pass a file"
            ),
        }),
        None => cline_hooks_core::policy::default_policy_file().ok_or_else(|| HookError::InvalidOption {
            option: "policyFile",
            reason: format!(
                "{call} has no default policy store here (neither CLINE_DIR nor a home folder is set); pass {{ policyFile: '/path/to/hooks-policy.json' }}"
            ),
        }),
    }
}

/// Stands in for the `signal` field during struct conversion; the signal object itself is
/// read separately (see `signal.rs`), because it must stay a live JavaScript object.
pub struct SignalField;

impl TypeName for SignalField {
    fn type_name() -> &'static str {
        "AbortSignal"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl FromNapiValue for SignalField {
    unsafe fn from_napi_value(
        _env: napi::sys::napi_env,
        _value: napi::sys::napi_value,
    ) -> Result<Self> {
        Ok(SignalField)
    }
}

impl ValidateNapiValue for SignalField {}

/// The variables of `env`, in the object's key order (so on Windows, where names ignore case,
/// the last spelling wins). Read and checked by [`read`], never by napi's conversion, which
/// would also take inherited properties and name no variable in its errors.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct EnvVars(pub Vec<(String, String)>);

impl TypeName for EnvVars {
    fn type_name() -> &'static str {
        "Record<string, string>"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl FromNapiValue for EnvVars {
    unsafe fn from_napi_value(
        _env: napi::sys::napi_env,
        _value: napi::sys::napi_value,
    ) -> Result<Self> {
        // `read` always hands the conversion `undefined` here and fills the field itself.
        Err(Error::new(
            Status::InvalidArg,
            "env must be read by options::read",
        ))
    }
}

impl ValidateNapiValue for EnvVars {}

impl RunHookOptions {
    pub fn split(self) -> (DiscoveryOptions, RunOptions) {
        (
            DiscoveryOptions {
                workspace_roots: self.workspace_roots,
                global_hooks_dir: self.global_hooks_dir,
                extra_hooks_dirs: self.extra_hooks_dirs,
                profile: self.profile,
                cline_dir: self.cline_dir,
                max_concurrent_hooks: None,
                max_timeout_ms: None,
                persistent_idle_ms: None,
                policy_file: self.policy_file,
                trust: self.trust,
                managed_hooks_dir: self.managed_hooks_dir,
                require_hooks: self.require_hooks,
                claude_settings: self.claude_settings,
                sandbox: self.sandbox,
                sandbox_writable: self.sandbox_writable,
                sandbox_network: self.sandbox_network,
            },
            RunOptions {
                timeout_ms: self.timeout_ms,
                max_timeout_ms: self.max_timeout_ms,
                persistent_idle_ms: self.persistent_idle_ms,
                signal: None,
                env: self.env,
                sequential: self.sequential,
                max_concurrent_hooks: self.max_concurrent_hooks,
                detached: self.detached,
                on_failure: self.on_failure,
                scrub_env: self.scrub_env,
                audit_log: self.audit_log,
                hook_logs: self.hook_logs,
                on_event: None,
                slow_threshold_ms: self.slow_threshold_ms,
            },
        )
    }
}

pub fn layout(options: &DiscoveryOptions) -> std::result::Result<Layout, HookError> {
    let absolute = |option: &'static str,
                    paths: &Option<Vec<String>>|
     -> std::result::Result<Vec<PathBuf>, HookError> {
        paths
            .iter()
            .flatten()
            .map(|p| absolute_path(option, p))
            .collect()
    };
    let workspace_roots = absolute("workspaceRoots", &options.workspace_roots)?;
    // Left out: the default store (the CLI's); `null`: no store. A store named here inside a
    // workspace root is refused below; the default one there (a user working in their home
    // folder) is not used when read, and each run's `warnings` says why.
    let named = matches!(options.policy_file, Some(Either::A(_)));
    let policy_file = match &options.policy_file {
        Some(Either::A(file)) => Some(absolute_path("policyFile", file)?),
        Some(Either::B(Null)) => None,
        None => cline_hooks_core::policy::default_policy_file(),
    };
    let trust = match options.trust.as_deref() {
        None => TrustScope::Off,
        Some(name) => TrustScope::parse(name).ok_or_else(|| HookError::InvalidOption {
            option: "trust",
            reason: format!(
                "{} is not a trust scope; use \"workspace\" (recommended), \"all\" or \"off\"",
                cline_hooks_core::error::quoted(name)
            ),
        })?,
    };
    // A default store that cannot be used (inside a workspace root, no home folder) leaves
    // nothing approved: every hook trust covers is listed not trusted, and none runs.
    let explicitly_off = matches!(options.policy_file, Some(Either::B(Null)));
    if trust != TrustScope::Off && explicitly_off {
        return Err(HookError::InvalidOption {
            option: "trust",
            reason: format!(
                "\"{}\" needs a policy store, where the approvals are kept, and policyFile is null; leave it out for the default (~/.cline/hooks-policy.json) or pass a file outside every workspace root",
                trust.as_str()
            ),
        });
    }
    let global_hooks_dir = match &options.global_hooks_dir {
        Some(Either::B(Null)) => GlobalDir::Off,
        Some(Either::A(dir)) => GlobalDir::At(absolute_path("globalHooksDir", dir)?),
        None => GlobalDir::Default,
    };
    if let Some(reason) = policy_file
        .as_deref()
        .filter(|_| named)
        .and_then(|f| placement_problem(f, &workspace_roots))
    {
        return Err(HookError::InvalidOption {
            option: "policyFile",
            reason,
        });
    }
    let managed_hooks_dir = match &options.managed_hooks_dir {
        Some(Either::B(Null)) => ManagedDir::Off,
        Some(Either::A(dir)) => ManagedDir::At(absolute_path("managedHooksDir", dir)?),
        None => ManagedDir::Default,
    };
    let require_hooks = options
        .require_hooks
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, name)| {
            let hook = cline_hooks_core::discovery::resolve(name).map_err(|err| {
                HookError::InvalidOption {
                    option: "requireHooks",
                    reason: format!("requireHooks[{i}]: {err}"),
                }
            })?;
            // A required name one slip away from a hook Cline fires would block every run of
            // a hook nobody writes, and never guard the one meant.
            let known = cline_hooks_core::discovery::KNOWN_HOOKS.contains(&hook);
            match cline_hooks_core::diagnosis::closest_hook(hook).filter(|_| !known) {
                Some(meant) => Err(HookError::InvalidOption {
                    option: "requireHooks",
                    reason: format!(
                        "requireHooks[{i}]: {} is not a hook Cline fires; did you mean {meant}?",
                        cline_hooks_core::error::quoted(name)
                    ),
                }),
                None => Ok(hook.to_owned()),
            }
        })
        .collect::<std::result::Result<_, _>>()?;
    Ok(Layout {
        workspace_roots,
        global_hooks_dir,
        extra_hooks_dirs: absolute("extraHooksDirs", &options.extra_hooks_dirs)?,
        profile: match options.profile.as_deref() {
            None | Some("extension") => Profile::Extension,
            Some("cli") => Profile::Cli,
            Some(other) => {
                return Err(HookError::InvalidOption {
                    option: "profile",
                    reason: format!(
                        "{} is not a profile; use \"extension\" or \"cli\"",
                        cline_hooks_core::error::quoted(other)
                    ),
                })
            }
        },
        cline_dir: options
            .cline_dir
            .as_deref()
            .map(|d| absolute_path("clineDir", d))
            .transpose()?,
        policy_file,
        trust,
        managed_hooks_dir,
        require_hooks,
        claude_settings: options.claude_settings.unwrap_or(false),
        sandbox: cline_hooks_core::sandbox::SandboxOptions {
            mode: match options.sandbox.as_deref() {
                None => cline_hooks_core::sandbox::SandboxMode::Off,
                Some(word) => cline_hooks_core::sandbox::SandboxMode::parse(word).ok_or_else(|| {
                    HookError::InvalidOption {
                        option: "sandbox",
                        reason: format!(
                            "{} is not a sandbox mode; use \"workspace\" (the hooks a repository brings), \"all\" (every hook but the managed ones) or \"off\"",
                            cline_hooks_core::error::quoted(word)
                        ),
                    }
                })?,
            },
            writable: absolute("sandboxWritable", &options.sandbox_writable)?,
            network: options.sandbox_network.unwrap_or(false),
        },
    })
}

/// `path` made absolute. `read` has already refused empty text, NUL and lone surrogates; what
/// is left to fail is a relative path when the current directory is gone.
pub fn absolute_path(option: &'static str, path: &str) -> std::result::Result<PathBuf, HookError> {
    if path.is_empty() {
        // Not reached through `read`; kept so the message below never describes "".
        return Err(HookError::InvalidOption {
            option,
            reason: "an empty string names no directory; pass a directory path".to_owned(),
        });
    }
    let absolute = std::path::absolute(path).map_err(|e| HookError::InvalidOption {
        option,
        reason: format!(
            "{} is relative and the current directory cannot be read ({e}); pass an absolute path",
            cline_hooks_core::error::quoted(path)
        ),
    })?;
    Ok(normalize(&absolute))
}

/// Removes `.` and resolves `..` lexically (without following links), so one directory
/// spelled two ways is searched once.
fn normalize(path: &std::path::Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Most processes a `maxConcurrentHooks` may allow: far more than any machine runs hooks at
/// once, and small enough for every target's `usize`.
pub const MAX_PROCESS_LIMIT: f64 = 1024.0;

pub fn process_limit(
    option: &'static str,
    value: Option<f64>,
) -> std::result::Result<Option<usize>, HookError> {
    match value {
        None => Ok(None),
        Some(n) if n.fract() == 0.0 && (1.0..=MAX_PROCESS_LIMIT).contains(&n) => {
            Ok(Some(n as usize))
        }
        Some(n) => Err(HookError::InvalidOption {
            option,
            reason: format!(
                "{} is not a process count; use an integer from 1 to {MAX_PROCESS_LIMIT}",
                js_number(n)
            ),
        }),
    }
}

/// Longest accepted `timeoutMs`: a day. Longer is almost surely a unit mistake.
const MAX_TIMEOUT_MS: f64 = 86_400_000.0;

pub fn run_settings(
    options: RunOptions,
    abort: CancellationToken,
    owner: Owner,
) -> std::result::Result<RunSettings, HookError> {
    let timeout = match options.timeout_ms {
        Some(ms) if ms.is_finite() && (1.0..=MAX_TIMEOUT_MS).contains(&ms) => {
            Duration::from_millis(ms.ceil() as u64)
        }
        Some(ms) => {
            return Err(HookError::InvalidOption {
                option: "timeoutMs",
                reason: format!("{} is not a timeout: use a number of milliseconds from 1 to {MAX_TIMEOUT_MS} (24 hours)", js_number(ms)),
            })
        }
        None => cline_hooks_core::event::DEFAULT_TIMEOUT,
    };
    // Names and values were checked when `read` took them from JavaScript.
    let env: Vec<(OsString, OsString)> = options
        .env
        .map(|vars| vars.0)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, value)| (name.into(), value.into()))
        .collect();
    Ok(RunSettings {
        timeout,
        max_timeout: max_timeout(options.max_timeout_ms)?,
        persistent_idle: persistent_idle(options.persistent_idle_ms)?,
        env,
        sequential: options.sequential.unwrap_or(false),
        detached: options.detached.unwrap_or(false),
        abort,
        max_processes: process_limit("maxConcurrentHooks", options.max_concurrent_hooks)?,
        owner,
        on_failure: options.on_failure.map(|o| o.0).unwrap_or_default(),
        scrub_env: options.scrub_env.map(|o| o.0).unwrap_or_default(),
        records: cline_hooks_core::record::Records {
            audit_log: options
                .audit_log
                .as_deref()
                .map(|path| absolute_path("auditLog", path))
                .transpose()?,
            hook_logs: options.hook_logs.unwrap_or(false),
        },
        observer: None,
        slow_threshold: slow_threshold(options.slow_threshold_ms)?,
        development_condition: crate::node::host::development_condition(),
        // Taken now, on the JavaScript thread: a terminateAll() or dispose() called after this
        // call returns stops its hooks even if the run has not reached them yet.
        start_permission: Some(cline_hooks_core::process::start_permission(owner)),
    })
}

/// `maxTimeoutMs`: from 1 ms to a day; default 10 minutes.
pub fn max_timeout(value: Option<f64>) -> std::result::Result<Duration, HookError> {
    match value {
        None => Ok(cline_hooks_core::event::DEFAULT_MAX_TIMEOUT),
        Some(ms) if ms.is_finite() && (1.0..=MAX_TIMEOUT_MS).contains(&ms) => {
            Ok(Duration::from_millis(ms.ceil() as u64))
        }
        Some(ms) => Err(HookError::InvalidOption {
            option: "maxTimeoutMs",
            reason: format!(
                "{} is not a timeout: use a number of milliseconds from 1 to {MAX_TIMEOUT_MS} (24 hours); the default is 600000 (10 minutes)",
                js_number(ms)
            ),
        }),
    }
}

/// `persistentIdleMs`: from 0 to a day; default 5 minutes.
pub fn persistent_idle(value: Option<f64>) -> std::result::Result<Duration, HookError> {
    match value {
        None => Ok(cline_hooks_core::event::DEFAULT_PERSISTENT_IDLE),
        Some(ms) if ms.is_finite() && (0.0..=MAX_TIMEOUT_MS).contains(&ms) => {
            Ok(Duration::from_millis(ms.ceil() as u64))
        }
        Some(ms) => Err(HookError::InvalidOption {
            option: "persistentIdleMs",
            reason: format!(
                "{} is not an idle time: use a number of milliseconds from 0 to {MAX_TIMEOUT_MS} (24 hours); the default is 300000 (5 minutes)",
                js_number(ms)
            ),
        }),
    }
}

/// `slowThresholdMs`: any number of milliseconds from 0; beyond what a clock holds, never.
fn slow_threshold(value: Option<f64>) -> std::result::Result<Duration, HookError> {
    match value {
        None => Ok(cline_hooks_core::observe::DEFAULT_SLOW_THRESHOLD),
        Some(ms) if ms.is_finite() && ms >= 0.0 => {
            Ok(Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX))
        }
        Some(ms) => Err(HookError::InvalidOption {
            option: "slowThresholdMs",
            reason: format!(
                "{} is not a threshold: use a number of milliseconds, 0 or more (default 2000)",
                js_number(ms)
            ),
        }),
    }
}

/// The option names one options type holds, for spotting typos, and where the options read by
/// hand go.
pub trait Known {
    const KEYS: &'static [&'static str];
    /// Takes the options of `env_and_paths` this type has.
    fn fill(&mut self, checked: EnvAndPaths);
    /// Takes option `key` (one of `KEYS`, not read by hand), its type already checked.
    fn set(&mut self, key: &str, value: Plain);
}

/// An option value of a plain JavaScript type, read after [`check_type`] accepted it.
pub enum Plain {
    Text(String),
    Number(f64),
    Flag(bool),
}

/// `value` as a [`Plain`]; nothing for `null`, `undefined` (the default) and the signal
/// (read by `signal.rs`, as a live object).
fn plain(env: &Env, value: &Unknown) -> Option<Plain> {
    // Safety (of each conversion): the value's type was just read.
    match value.get_type().ok()? {
        ValueType::String => unsafe { String::from_napi_value(env.raw(), value.raw()) }
            .ok()
            .map(Plain::Text),
        ValueType::Number => value
            .coerce_to_number()
            .and_then(|n| n.get_double())
            .ok()
            .map(Plain::Number),
        ValueType::Boolean => value.coerce_to_bool().ok().map(Plain::Flag),
        _ => None,
    }
}

/// The options [`read`] takes from JavaScript itself rather than through napi's conversion:
/// each value is read once (a getter cannot hand the check one value and the run another),
/// only own properties count, and a bad entry is named with its index or variable.
#[derive(Default)]
pub struct EnvAndPaths {
    workspace_roots: Option<Vec<String>>,
    extra_hooks_dirs: Option<Vec<String>>,
    sandbox_writable: Option<Vec<String>>,
    global_hooks_dir: Option<Either<String, Null>>,
    cline_dir: Option<String>,
    policy_file: Option<Either<String, Null>>,
    managed_hooks_dir: Option<Either<String, Null>>,
    require_hooks: Option<Vec<String>>,
    env: Option<EnvVars>,
    on_failure: Option<OnFailureOption>,
    scrub_env: Option<ScrubEnvOption>,
    audit_log: Option<String>,
}

const BY_HAND_KEYS: [&str; 12] = [
    "workspaceRoots",
    "requireHooks",
    "extraHooksDirs",
    "sandboxWritable",
    "globalHooksDir",
    "clineDir",
    "policyFile",
    "managedHooksDir",
    "env",
    "onFailure",
    "scrubEnv",
    "auditLog",
];

impl EnvAndPaths {
    /// Reads option `key` (one of `BY_HAND_KEYS`, its type already checked).
    fn take<'env>(
        &mut self,
        env: &'env Env,
        key: &'static str,
        value: &Unknown<'env>,
    ) -> std::result::Result<(), Failure<'env>> {
        match value.get_type() {
            // `null` turns the global folders off; otherwise null means the default.
            Ok(ValueType::Null) if key == "globalHooksDir" => {
                self.global_hooks_dir = Some(Either::B(Null));
                return Ok(());
            }
            // `null` turns the policy store off.
            Ok(ValueType::Null) if key == "policyFile" => {
                self.policy_file = Some(Either::B(Null));
                return Ok(());
            }
            // `null` turns the managed folder off.
            Ok(ValueType::Null) if key == "managedHooksDir" => {
                self.managed_hooks_dir = Some(Either::B(Null));
                return Ok(());
            }
            Ok(ValueType::Null | ValueType::Undefined) => return Ok(()),
            _ => {}
        }
        match key {
            "workspaceRoots" => {
                self.workspace_roots = Some(env_and_paths::path_list(env, key, value)?);
            }
            "extraHooksDirs" => {
                self.extra_hooks_dirs = Some(env_and_paths::path_list(env, key, value)?);
            }
            "sandboxWritable" => {
                self.sandbox_writable = Some(env_and_paths::path_list(env, key, value)?);
            }
            "requireHooks" => {
                self.require_hooks = Some(env_and_paths::text_list(
                    env,
                    key,
                    value,
                    "hook name",
                    "an array of hook names, such as [\"PreToolUse\"]",
                )?);
            }
            "globalHooksDir" => {
                let fix = "pass a directory path, or null to turn the global hooks off";
                self.global_hooks_dir = Some(Either::A(env_and_paths::path(env, key, value, fix)?));
            }
            "clineDir" => {
                let fix = "pass a directory path or leave the option out for the default";
                self.cline_dir = Some(env_and_paths::path(env, key, value, fix)?);
            }
            "policyFile" => {
                let fix = "pass the path of a JSON file, such as ~/.cline/hooks-policy.json";
                self.policy_file = Some(Either::A(env_and_paths::path(env, key, value, fix)?));
            }
            "managedHooksDir" => {
                let fix = "pass a directory path, null for no managed hooks, or leave the option out for the system's folder";
                self.managed_hooks_dir =
                    Some(Either::A(env_and_paths::path(env, key, value, fix)?));
            }
            "onFailure" => self.on_failure = Some(OnFailureOption(on_failure::read(env, value)?)),
            "scrubEnv" => self.scrub_env = Some(ScrubEnvOption(scrub_env::read(env, value)?)),
            "auditLog" => {
                let fix = "pass the path of a file to append JSON lines to, such as /var/log/cline-hooks.jsonl";
                self.audit_log = Some(env_and_paths::path(env, key, value, fix)?);
            }
            _ => self.env = Some(EnvVars(env_and_paths::env_vars(env, value)?)),
        }
        Ok(())
    }
}

const DISCOVERY_KEYS: [&str; 16] = [
    "workspaceRoots",
    "globalHooksDir",
    "extraHooksDirs",
    "profile",
    "clineDir",
    "managedHooksDir",
    "maxConcurrentHooks",
    "maxTimeoutMs",
    "persistentIdleMs",
    "policyFile",
    "trust",
    "requireHooks",
    "claudeSettings",
    "sandbox",
    "sandboxWritable",
    "sandboxNetwork",
];
const RUN_KEYS: [&str; 14] = [
    "timeoutMs",
    "maxTimeoutMs",
    "persistentIdleMs",
    "signal",
    "onEvent",
    "slowThresholdMs",
    "env",
    "sequential",
    "maxConcurrentHooks",
    "detached",
    "onFailure",
    "scrubEnv",
    "auditLog",
    "hookLogs",
];
const RUN_HOOK_KEYS: [&str; 27] = [
    "workspaceRoots",
    "globalHooksDir",
    "extraHooksDirs",
    "profile",
    "clineDir",
    "managedHooksDir",
    "policyFile",
    "trust",
    "requireHooks",
    "claudeSettings",
    "sandbox",
    "sandboxWritable",
    "sandboxNetwork",
    "maxConcurrentHooks",
    "timeoutMs",
    "maxTimeoutMs",
    "persistentIdleMs",
    "signal",
    "onEvent",
    "slowThresholdMs",
    "env",
    "sequential",
    "detached",
    "onFailure",
    "scrubEnv",
    "auditLog",
    "hookLogs",
];

impl Known for DiscoveryOptions {
    const KEYS: &'static [&'static str] = &DISCOVERY_KEYS;
    fn fill(&mut self, checked: EnvAndPaths) {
        self.workspace_roots = checked.workspace_roots;
        self.extra_hooks_dirs = checked.extra_hooks_dirs;
        self.sandbox_writable = checked.sandbox_writable;
        self.global_hooks_dir = checked.global_hooks_dir;
        self.cline_dir = checked.cline_dir;
        self.policy_file = checked.policy_file;
        self.managed_hooks_dir = checked.managed_hooks_dir;
        self.require_hooks = checked.require_hooks;
    }
    fn set(&mut self, key: &str, value: Plain) {
        match (key, value) {
            ("profile", Plain::Text(t)) => self.profile = Some(t),
            ("trust", Plain::Text(t)) => self.trust = Some(t),
            ("maxConcurrentHooks", Plain::Number(n)) => self.max_concurrent_hooks = Some(n),
            ("maxTimeoutMs", Plain::Number(n)) => self.max_timeout_ms = Some(n),
            ("persistentIdleMs", Plain::Number(n)) => self.persistent_idle_ms = Some(n),
            ("claudeSettings", Plain::Flag(b)) => self.claude_settings = Some(b),
            ("sandbox", Plain::Text(t)) => self.sandbox = Some(t),
            ("sandboxNetwork", Plain::Flag(b)) => self.sandbox_network = Some(b),
            _ => {}
        }
    }
}
impl Known for RunOptions {
    const KEYS: &'static [&'static str] = &RUN_KEYS;
    fn fill(&mut self, checked: EnvAndPaths) {
        self.env = checked.env;
        self.on_failure = checked.on_failure;
        self.scrub_env = checked.scrub_env;
        self.audit_log = checked.audit_log;
    }
    fn set(&mut self, key: &str, value: Plain) {
        match (key, value) {
            ("timeoutMs", Plain::Number(n)) => self.timeout_ms = Some(n),
            ("maxTimeoutMs", Plain::Number(n)) => self.max_timeout_ms = Some(n),
            ("persistentIdleMs", Plain::Number(n)) => self.persistent_idle_ms = Some(n),
            ("slowThresholdMs", Plain::Number(n)) => self.slow_threshold_ms = Some(n),
            ("maxConcurrentHooks", Plain::Number(n)) => self.max_concurrent_hooks = Some(n),
            ("sequential", Plain::Flag(b)) => self.sequential = Some(b),
            ("detached", Plain::Flag(b)) => self.detached = Some(b),
            ("hookLogs", Plain::Flag(b)) => self.hook_logs = Some(b),
            _ => {}
        }
    }
}
impl Known for PolicyOptions {
    const KEYS: &'static [&'static str] = &["policyFile"];
    fn fill(&mut self, checked: EnvAndPaths) {
        self.policy_file = checked.policy_file;
    }
    fn set(&mut self, _key: &str, _value: Plain) {}
}
impl Known for TrustOptions {
    const KEYS: &'static [&'static str] = &["policyFile", "sha256"];
    fn fill(&mut self, checked: EnvAndPaths) {
        self.policy_file = checked.policy_file;
    }
    fn set(&mut self, key: &str, value: Plain) {
        if let ("sha256", Plain::Text(t)) = (key, value) {
            self.sha256 = Some(t);
        }
    }
}
impl Known for RunHookOptions {
    const KEYS: &'static [&'static str] = &RUN_HOOK_KEYS;
    fn fill(&mut self, checked: EnvAndPaths) {
        self.workspace_roots = checked.workspace_roots;
        self.extra_hooks_dirs = checked.extra_hooks_dirs;
        self.sandbox_writable = checked.sandbox_writable;
        self.global_hooks_dir = checked.global_hooks_dir;
        self.cline_dir = checked.cline_dir;
        self.policy_file = checked.policy_file;
        self.managed_hooks_dir = checked.managed_hooks_dir;
        self.require_hooks = checked.require_hooks;
        self.env = checked.env;
        self.on_failure = checked.on_failure;
        self.scrub_env = checked.scrub_env;
        self.audit_log = checked.audit_log;
    }
    fn set(&mut self, key: &str, value: Plain) {
        match (key, value) {
            ("profile", Plain::Text(t)) => self.profile = Some(t),
            ("trust", Plain::Text(t)) => self.trust = Some(t),
            ("maxConcurrentHooks", Plain::Number(n)) => self.max_concurrent_hooks = Some(n),
            ("timeoutMs", Plain::Number(n)) => self.timeout_ms = Some(n),
            ("maxTimeoutMs", Plain::Number(n)) => self.max_timeout_ms = Some(n),
            ("persistentIdleMs", Plain::Number(n)) => self.persistent_idle_ms = Some(n),
            ("slowThresholdMs", Plain::Number(n)) => self.slow_threshold_ms = Some(n),
            ("sequential", Plain::Flag(b)) => self.sequential = Some(b),
            ("detached", Plain::Flag(b)) => self.detached = Some(b),
            ("hookLogs", Plain::Flag(b)) => self.hook_logs = Some(b),
            ("claudeSettings", Plain::Flag(b)) => self.claude_settings = Some(b),
            ("sandbox", Plain::Text(t)) => self.sandbox = Some(t),
            ("sandboxNetwork", Plain::Flag(b)) => self.sandbox_network = Some(b),
            _ => {}
        }
    }
}

/// The `options` argument as an object: `undefined`/`null`/missing mean the defaults;
/// anything else that is not a plain object is refused.
pub fn options_object<'env>(
    value: Option<Unknown<'env>>,
) -> std::result::Result<Option<Object<'env>>, HookError> {
    options_object_like(value, "{ timeoutMs: 5000 }")
}

/// [`options_object`] for a call whose options look like `example` (`{ level: 'debug' }`).
pub fn options_object_like<'env>(
    value: Option<Unknown<'env>>,
    example: &str,
) -> std::result::Result<Option<Object<'env>>, HookError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let refuse = |got: String| HookError::InvalidOption {
        option: "options",
        reason: format!(
            "must be an object such as {example} (or undefined for the defaults), not {got}"
        ),
    };
    match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => Ok(None),
        Ok(ValueType::Object) if value.is_array().unwrap_or(false) => {
            Err(refuse("an array".to_owned()))
        }
        // Safety: checked to be an object.
        Ok(ValueType::Object) => Ok(Some(
            unsafe { value.cast::<Object>() }.map_err(|e| refuse(e.reason))?,
        )),
        Ok(_) => Err(refuse(describe_value(&value))),
        Err(e) => Err(refuse(e.reason)),
    }
}

/// The own enumerable options of `obj`, refusing one not among `known` (naming the closest
/// known one); whatever a Proxy's `ownKeys` trap throws is the cause.
pub fn known_keys<'env>(
    env: &'env Env,
    obj: &Object<'env>,
    call: &str,
    known: &[&str],
) -> std::result::Result<Vec<String>, Failure<'env>> {
    let keys = own_keys(env, obj).map_err(|e| {
        Failure::thrown(
            env,
            HookError::InvalidOption {
                option: "options",
                reason: format!(
                    "listing its keys failed ({}); pass a plain object",
                    e.reason
                ),
            },
        )
    })?;
    match keys.iter().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(unknown_option(unknown, call, known).into()),
        None => Ok(keys),
    }
}

/// Converts an options object into `T`; no object means the defaults. An unknown option or
/// a field of the wrong type is an `InvalidOption` error (a rejection, never a synchronous
/// throw); whatever a getter or Proxy trap throws on the way is its cause.
pub fn read<'env, T: Default + Known>(
    env: &'env Env,
    options: Option<&Object<'env>>,
    call: &str,
) -> std::result::Result<T, Failure<'env>> {
    let Some(obj) = options else {
        return Ok(T::default());
    };
    let keys = known_keys(env, obj, call, T::KEYS)?;
    // Each option is read once: a getter runs once, and one that throws is named with what it
    // threw as the cause. Only the object's own options count: one inherited from a polluted
    // `Object.prototype` is not the caller's. Every value's type is checked before it is
    // taken, so taking it cannot fail.
    let mut options = T::default();
    let mut checked = EnvAndPaths::default();
    for key in T::KEYS {
        if !keys.iter().any(|own| own == key) {
            continue;
        }
        let value: Unknown = obj.get_named_property(key).map_err(|_| {
            Failure::thrown(
                env,
                HookError::InvalidOption {
                    option: key,
                    reason:
                        "reading it threw (the error's cause is what it threw); pass a plain value"
                            .to_owned(),
                },
            )
        })?;
        check_type(key, &value)?;
        if BY_HAND_KEYS.contains(key) {
            checked.take(env, key, &value)?;
        } else if let Some(plain) = plain(env, &value) {
            options.set(key, plain);
        }
    }
    options.fill(checked);
    Ok(options)
}

/// The JavaScript type each option takes (`null` and `undefined` always mean the default).
fn check_type(key: &'static str, value: &Unknown) -> std::result::Result<(), HookError> {
    let t = value.get_type().unwrap_or(ValueType::Unknown);
    let is_array = value.is_array().unwrap_or(false);
    let expected = match key {
        "workspaceRoots" | "extraHooksDirs" | "sandboxWritable" if !is_array => {
            "an array of directory paths"
        }
        "sandbox" if t != ValueType::String => "\"workspace\", \"all\" or \"off\"",
        "requireHooks" if !is_array => "an array of hook names, such as [\"PreToolUse\"]",
        "globalHooksDir" | "clineDir" | "managedHooksDir" if t != ValueType::String => {
            "a directory path"
        }
        "profile" if t != ValueType::String => "\"extension\" or \"cli\"",
        "policyFile" if t != ValueType::String => "a file path",
        "trust" if t != ValueType::String => "\"workspace\", \"all\" or \"off\"",
        "sha256" if t != ValueType::String => "the hook's sha256 as discovery reported it",
        "maxConcurrentHooks" if t != ValueType::Number => "an integer from 1 to 1024",
        "timeoutMs" | "maxTimeoutMs" if t != ValueType::Number => "a number of milliseconds",
        "persistentIdleMs" if t != ValueType::Number => "a number of milliseconds, 0 or more",
        "slowThresholdMs" if t != ValueType::Number => "a number of milliseconds, 0 or more",
        "onEvent" if t != ValueType::Function => "a function, (event) => void",
        "env" if t != ValueType::Object || is_array => {
            "a plain object of variable names to string values, such as { NAME: 'value' }"
        }
        "sequential" | "detached" | "hookLogs" | "claudeSettings" | "sandboxNetwork"
            if t != ValueType::Boolean =>
        {
            "true or false"
        }
        "auditLog" if t != ValueType::String => "a file path",
        "onFailure" if t != ValueType::String && (t != ValueType::Object || is_array) => {
            "\"allow\", \"block\", or an object such as { timeout: 'block', crash: 'block' }"
        }
        "scrubEnv" if t != ValueType::Boolean && !is_array => {
            "true, false, or an array of variable names such as ['GITHUB_TOKEN']"
        }
        _ => return Ok(()),
    };
    if matches!(t, ValueType::Undefined | ValueType::Null) {
        return Ok(());
    }
    let shown = match t {
        ValueType::String => {
            // Safety: checked to be a string.
            let text = unsafe { String::from_napi_value(value.value().env, value.raw()) }
                .unwrap_or_default();
            format!("{} is a string", cline_hooks_core::error::quoted(&text))
        }
        ValueType::Number => {
            let n = value.coerce_to_number().and_then(|n| n.get_double());
            format!(
                "{} is a number",
                n.map(|n| n.to_string()).unwrap_or_default()
            )
        }
        ValueType::Object if is_array => "an array was given".to_owned(),
        other => format!("{} was given", describe_type(other)),
    };
    Err(HookError::InvalidOption {
        option: key,
        reason: format!("{shown}; use {expected}"),
    })
}

/// The object's own enumerable string keys (what `Object.keys` lists).
fn own_keys(env: &Env, obj: &Object) -> Result<Vec<String>> {
    use napi::sys;
    let mut names = std::ptr::null_mut();
    // Safety: a plain napi call on this thread's env. A Proxy's `ownKeys` trap may throw; the
    // exception stays pending for the caller to take.
    let status = unsafe {
        sys::napi_get_all_property_names(
            env.raw(),
            obj.raw(),
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut names,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(Error::new(Status::from(status), "its ownKeys threw"));
    }
    // Safety: napi returned an array.
    let names = unsafe { Array::from_napi_value(env.raw(), names)? };
    (0..names.len())
        .map(|i| names.get_element::<String>(i))
        .collect()
}

/// The error for an option `name` that `call` does not take: names the closest known one.
pub fn unknown_option(name: &str, call: &str, known: &[&str]) -> HookError {
    let hint = if let Some(near) = closest(name, known) {
        format!(
            "did you mean \"{near}\"? (the options of {call} are {})",
            known.join(", ")
        )
    } else if let Some(other) = closest(name, &RUN_HOOK_KEYS) {
        let whose = if DISCOVERY_KEYS.contains(&other) {
            "discovery (runHook, discoverHooks, new HookFactory)"
        } else {
            "runs (runHook, runner.run)"
        };
        format!(
            "{call} does not take \"{other}\", an option of {whose}; remove it (the options of {call} are {})",
            known.join(", ")
        )
    } else {
        format!("remove it (the options of {call} are {})", known.join(", "))
    };
    HookError::UnknownOption {
        name: name.to_owned(),
        hint,
    }
}

/// The known name closest to `name`: one that matches ignoring case, else the one with the
/// smallest edit distance, if that is small for the name's length (at most 1 edit for short
/// names, 3 for long ones).
pub fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    if let Some(same) = known.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    if name.chars().count() > 64 {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    let allowed = (name.chars().count() / 4).clamp(1, 3);
    known
        .iter()
        .map(|k| (edit_distance(&lower, &k.to_ascii_lowercase()), *k))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The hook name argument: a string (checked further by the core), or a typed rejection.
pub fn hook_name(env: &Env, value: Option<Unknown>) -> std::result::Result<String, HookError> {
    let Some(value) = value else {
        return Err(HookError::HookNameNotString {
            got: "null or undefined".to_owned(),
        });
    };
    match value.get_type() {
        // Safety: checked to be a string.
        Ok(ValueType::String) => unsafe { String::from_napi_value(env.raw(), value.raw()) }
            .map_err(|e| HookError::HookNameNotString { got: e.reason }),
        Ok(_) => Err(HookError::HookNameNotString {
            got: describe_value(&value),
        }),
        Err(e) => Err(HookError::HookNameNotString { got: e.reason }),
    }
}

/// The hook input must be a plain object; checked without converting it.
pub fn check_input(input: &Unknown) -> std::result::Result<(), HookError> {
    let not = |what: String| {
        HookError::InvalidInput(format!("the hook input must be a JSON object, not {what}"))
    };
    match input.get_type() {
        Ok(ValueType::Object) if input.is_array().unwrap_or(false) => {
            Err(not("an array".to_owned()))
        }
        Ok(ValueType::Object) => Ok(()),
        Ok(_) => Err(not(describe_value(input))),
        Err(e) => Err(HookError::InvalidInput(e.reason.clone())),
    }
}

/// Converts the hook input to JSON text with `JSON.stringify` itself, called on this thread:
/// its exact semantics (`toJSON`, dates, dropped `undefined`s, own properties only) for free,
/// and no recursive conversion on the native stack (an input 20,000 levels deep crashed the
/// host that way). What it throws (a cycle, a BigInt, too deep) is the rejection's cause.
pub fn read_input<'env>(
    env: &'env Env,
    input: Unknown<'env>,
) -> std::result::Result<Stringified<'env>, Failure<'env>> {
    check_input(&input)?;
    let Some(text) = stringify(env, input)? else {
        return Err(HookError::InvalidInput(
            "the hook input must be a JSON object, not undefined (JSON.stringify returned undefined: its toJSON returned undefined or a function)".to_owned(),
        )
        .into());
    };
    // A JSON text's first character says what it is; two bytes are copied, not the text.
    let mut first = [0u8; 2];
    let mut copied = 0usize;
    // Safety: a bounded copy into a local buffer on this thread's env.
    let status = unsafe {
        napi::sys::napi_get_value_string_utf8(
            env.raw(),
            text.raw(),
            first.as_mut_ptr().cast(),
            first.len(),
            &mut copied,
        )
    };
    let kind = match (status == napi::sys::Status::napi_ok, first[0]) {
        (true, b'{') => return Ok(Stringified { env, text }),
        (true, b'[') => "an array",
        (true, b'"') => "a string",
        (true, b't' | b'f') => "a boolean",
        (true, b'n') => "null",
        (true, _) => "a number",
        (false, _) => "text that could not be read",
    };
    Err(HookError::InvalidInput(format!("the hook input must be a JSON object, not {kind}")).into())
}

/// An input `JSON.stringify` turned into an object's JSON text, still a JavaScript string:
/// a run with nothing to run never copies it.
pub struct Stringified<'env> {
    env: &'env Env,
    text: Unknown<'env>,
}

impl<'env> Stringified<'env> {
    /// The text, checked, for the core.
    pub fn into_input(self) -> std::result::Result<HookInput, Failure<'env>> {
        let env = self.env;
        // Safety: `JSON.stringify` returned a string.
        let text = unsafe { String::from_napi_value(env.raw(), self.text.raw()) }.map_err(|e| {
            Failure::thrown(
                env,
                HookError::Internal(format!(
                    "could not read JSON.stringify's result: {}",
                    e.reason
                )),
            )
        })?;
        HookInput::from_json(text).map_err(Failure::from)
    }
}

/// `JSON.stringify(value)`, still a JavaScript string: `None` when it returns undefined.
fn stringify<'env>(
    env: &'env Env,
    value: Unknown<'env>,
) -> std::result::Result<Option<Unknown<'env>>, Failure<'env>> {
    let internal = |e: Error| {
        Failure::thrown(
            env,
            HookError::Internal(format!("could not call JSON.stringify: {}", e.reason)),
        )
    };
    let json: Object = env
        .get_global()
        .and_then(|g| g.get_named_property("JSON"))
        .map_err(internal)?;
    let stringify: Unknown = json.get_named_property("stringify").map_err(internal)?;
    let mut result = std::ptr::null_mut();
    let args = [value.raw()];
    // Safety: a plain call on this thread's env; what the function throws stays pending and is
    // taken just below.
    let status = unsafe {
        napi::sys::napi_call_function(
            env.raw(),
            json.raw(),
            stringify.raw(),
            args.len(),
            args.as_ptr(),
            &mut result,
        )
    };
    if status != napi::sys::Status::napi_ok {
        let thrown = errors::take_exception(env);
        let what = thrown
            .as_ref()
            .map(|t| describe_thrown(env, t))
            .unwrap_or_else(|| format!("napi status {status}"));
        return Err(Failure {
            error: HookError::InvalidInput(format!(
                "JSON.stringify could not serialize it ({what}); pass plain JSON data: no cycles, no BigInt values, no nesting deeper than JSON.stringify handles (the error's cause is what it threw)"
            )),
            cause: thrown,
        });
    }
    // Safety: `result` is the call's return value on this env.
    let result = unsafe { Unknown::from_raw_unchecked(env.raw(), result) };
    match result.get_type().map_err(internal)? {
        ValueType::String => Ok(Some(result)),
        _ => Ok(None),
    }
}

/// `name: message` of a thrown error, without running any code of the caller's (no getters:
/// only own data properties are read); a generic phrase otherwise.
fn describe_thrown(env: &Env, thrown: &Unknown) -> String {
    let read = || -> Result<String> {
        let describe: Function<Unknown, Unknown> = env.run_script(
            "(function (e) { try { if (e instanceof Error) { var d = Object.getOwnPropertyDescriptor(e, 'message'); \
             return d && typeof d.value === 'string' ? String(d.value).slice(0, 200) : 'an error'; } \
             return typeof e === 'string' ? e.slice(0, 200) : 'a value of type ' + typeof e } catch (_) { return 'a value' } })",
        )?;
        let text: Unknown = describe.call(*thrown)?;
        // Safety: the function always returns a string.
        let text = unsafe { String::from_napi_value(env.raw(), text.raw()) }?;
        Ok(text.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    read().unwrap_or_else(|_| {
        let _ = errors::take_exception(env);
        "it threw".to_owned()
    })
}

/// The host's own Node binary (`process.execPath`), for `.js` hooks of the CLI profile.
pub fn node_path(env: &Env) -> Option<PathBuf> {
    static NODE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    NODE.get_or_init(|| {
        let global = env.get_global().ok()?;
        let process: Object = global.get_named_property("process").ok()?;
        let exec_path: String = process.get_named_property("execPath").ok()?;
        Some(exec_path.into())
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelled_option_names_the_closest_known_one() {
        assert_eq!(closest("timeOutMs", &RUN_KEYS), Some("timeoutMs"));
        assert_eq!(closest("TIMEOUTMS", &RUN_KEYS), Some("timeoutMs"));
        assert_eq!(
            closest("workspaceRoot", &RUN_HOOK_KEYS),
            Some("workspaceRoots")
        );
        assert_eq!(closest("signl", &RUN_KEYS), Some("signal"));
        assert_eq!(
            closest("extraHookDir", &DISCOVERY_KEYS),
            Some("extraHooksDirs")
        );
        assert_eq!(closest("zzz", &RUN_HOOK_KEYS), None);
        assert_eq!(closest("cwd", &RUN_HOOK_KEYS), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn an_option_of_another_call_says_where_it_belongs() {
        let err = unknown_option("timeoutMs", "new HookFactory", &DISCOVERY_KEYS).to_string();
        assert!(
            err.contains("an option of runs (runHook, runner.run)"),
            "{err}"
        );
        let err = unknown_option("timeOutMs", "discoverHooks", &DISCOVERY_KEYS).to_string();
        assert!(err.contains("\"timeoutMs\", an option of runs"), "{err}");
        let err = unknown_option("signl", "runner.run", &RUN_KEYS).to_string();
        assert!(
            err.starts_with("unknown option \"signl\": did you mean \"signal\"?"),
            "{err}"
        );
    }

    #[test]
    fn process_limits_are_integers_from_1_to_1024() {
        for bad in [
            0.0,
            -1.0,
            1.5,
            4294967297.0,
            1025.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert!(
                process_limit("maxConcurrentHooks", Some(bad)).is_err(),
                "{bad}"
            );
        }
        assert_eq!(process_limit("maxConcurrentHooks", Some(1.0)), Ok(Some(1)));
        assert_eq!(
            process_limit("maxConcurrentHooks", Some(1024.0)),
            Ok(Some(1024))
        );
        assert_eq!(process_limit("maxConcurrentHooks", None), Ok(None));
    }

    #[test]
    fn the_default_timeout_is_the_contracts_30_seconds_and_bad_ones_are_refused() {
        let settings = run_settings(
            RunOptions::default(),
            CancellationToken::new(),
            Owner::default(),
        )
        .unwrap();
        assert_eq!(settings.timeout, Duration::from_secs(30));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let options = RunOptions {
                timeout_ms: Some(bad),
                ..RunOptions::default()
            };
            let refused = run_settings(options, CancellationToken::new(), Owner::default());
            assert!(
                matches!(
                    refused,
                    Err(HookError::InvalidOption {
                        option: "timeoutMs",
                        ..
                    })
                ),
                "{bad}"
            );
        }
    }
}
