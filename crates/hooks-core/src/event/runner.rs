//! Runs the hooks of one name for one event and combines their verdicts.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::batch_runs::guarded_items;
use crate::discovery::{DiscoveredHook, HookMode, Profile};
use crate::error::HookError;
use crate::event::{input, required_block, tool_name, tools_match, HookInput};
use crate::observe::{HookWatch, Observer, DEFAULT_SLOW_THRESHOLD};
use crate::process::{
    build_env_to_add, hook_timeout, hook_variable, host_names_to_remove, run_hook_watched,
    run_persistent, start_detached, Execution, RunContext, ScrubEnv, Status, BUILD_ENV_VAR,
};
use crate::verdict::{apply_failure_policy, combine, Combined, FailurePolicy};

/// The default per-hook timeout (the contract's 30 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The default cap on a header's `timeout=` (10 minutes).
pub const DEFAULT_MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// How long a persistent hook's process waits for its next event, by default, before it is
/// stopped (5 minutes).
pub const DEFAULT_PERSISTENT_IDLE: Duration = Duration::from_secs(5 * 60);

/// How one run is carried out.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// How long a hook may run before it is stopped (status `TimedOut`): run together, the
    /// hooks share one deadline from the call; run one after another, each gets its own. A
    /// hook's header `timeout=` replaces it for that hook.
    pub timeout: Duration,
    /// The longest timeout a hook's header may ask for (default 10 minutes).
    pub max_timeout: Duration,
    /// Added to the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// One hook after another instead of all at once.
    pub sequential: bool,
    /// Start the hooks and return without waiting for them (status `Started`).
    pub detached: bool,
    /// Cancelled when the caller aborts.
    pub abort: CancellationToken,
    /// A limit on this call's processes, replacing the factory's limiter.
    pub max_processes: Option<usize>,
    /// Who the hook processes belong to (see [`Owner`](crate::process::Owner)).
    pub owner: crate::process::Owner,
    /// Which failures count as a cancel (`onFailure`); by default none.
    pub on_failure: FailurePolicy,
    /// Inherited variables the hooks do not get (`scrubEnv`); by default none are left out.
    pub scrub_env: ScrubEnv,
    /// Where each execution is recorded (`auditLog`, `hookLogs`); by default nowhere.
    pub records: crate::record::Records,
    /// Receives each hook's live events (see [`crate::observe`]); none by default, and then
    /// no output is split into lines.
    pub observer: Option<Arc<dyn Observer>>,
    /// How long a hook runs before its `Slow` event (default 2 s).
    pub slow_threshold: Duration,
    /// How long a persistent hook's process (`mode=persistent`) may wait for its next event
    /// before it is stopped (default [`DEFAULT_PERSISTENT_IDLE`]); the event that finds it
    /// stopped starts it again.
    pub persistent_idle: Duration,
    /// The host was started with the Node condition `development` (a Node host's
    /// `process.execArgv` holds `--conditions=development`): in the `cli` profile, hooks then
    /// get `CLINE_BUILD_ENV=development` when nothing else decides it (see
    /// [`build_env_to_add`](crate::process::build_env_to_add)).
    pub development_condition: bool,
    /// The permission its hooks start under, taken when the call was made
    /// ([`start_permission`](crate::process::start_permission)): a `terminate_all` (or a
    /// [`terminate`](crate::process::terminate) of its owner) made after the call and before
    /// the run reached its hooks still stops them. `None`: taken when the run begins.
    pub start_permission: Option<CancellationToken>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            timeout: DEFAULT_TIMEOUT,
            max_timeout: DEFAULT_MAX_TIMEOUT,
            env: Vec::new(),
            sequential: false,
            detached: false,
            abort: CancellationToken::new(),
            max_processes: None,
            owner: crate::process::Owner::default(),
            on_failure: FailurePolicy::default(),
            scrub_env: ScrubEnv::Off,
            records: crate::record::Records::default(),
            observer: None,
            slow_threshold: DEFAULT_SLOW_THRESHOLD,
            persistent_idle: DEFAULT_PERSISTENT_IDLE,
            development_condition: false,
            start_permission: None,
        }
    }
}

/// What one run did.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// The hooks' verdicts as one, with the warnings of the run.
    pub combined: Combined,
    /// One per enabled hook, in run order: started, or `Skipped` when its header's `tools=`
    /// does not match the tool.
    pub executions: Vec<Execution>,
    /// How long the run took (zero when no hook was enabled).
    pub duration: Duration,
    /// The files meant for this hook that will not run (disabled, untrusted, misnamed,
    /// passed over, or unable to start), as the doctor reports them.
    pub not_run: Arc<[crate::diagnosis::FileReport]>,
}

/// The hooks of one name, ready to run. With no enabled hook, a run does nothing at all.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The hook name these hooks answer to (`PreToolUse`).
    pub hook_name: String,
    /// Every hook found, enabled or not, in run order.
    pub hooks: Vec<DiscoveredHook>,
    workspace_roots: Vec<PathBuf>,
    limiter: Arc<Semaphore>,
    /// Whose conventions the hooks' output follows (HOOK_CONTROL lines are the CLI's).
    profile: Profile,
    /// Said in every run's warnings (a policy store that cannot be used).
    warnings: Vec<String>,
    /// The user's policy store the hooks were checked against, if any: a run after this
    /// process changed a store applies it again (a revoked approval or a disabled hook does
    /// not run from a runner made before).
    policy: Option<RunnerPolicy>,
    /// Whether its host requires this hook (`requireHooks`): a run in which none of its hooks
    /// starts blocks (see [`required_block`]).
    required: bool,
    /// The files meant for this hook that will not run: every run reports them.
    not_run: Arc<[crate::diagnosis::FileReport]>,
}

/// The policy store a runner's hooks were checked against (see [`Runner::with_policy`]).
#[derive(Debug, Clone)]
pub struct RunnerPolicy {
    /// The store.
    pub file: PathBuf,
    /// The trust scope applied.
    pub scope: crate::policy::TrustScope,
    /// The layout's workspace roots (where the store must not be).
    pub workspace_roots: Vec<PathBuf>,
    /// [`crate::policy::writes`] when the store was read.
    pub writes: u64,
}

impl Runner {
    /// A runner for `hooks` (in run order); `workspace_roots` fill the input's
    /// `workspaceRoots` and give hooks their default working directory, `limiter` bounds the
    /// hook processes running at once.
    pub fn new(
        hook_name: String,
        hooks: Vec<DiscoveredHook>,
        workspace_roots: Vec<PathBuf>,
        limiter: Arc<Semaphore>,
        profile: Profile,
    ) -> Runner {
        Runner {
            hook_name,
            hooks,
            workspace_roots,
            limiter,
            profile,
            warnings: Vec::new(),
            policy: None,
            required: false,
            not_run: Arc::default(),
        }
    }

    /// The same runner, reporting `not_run` as the files meant for its hook that will not run
    /// (see [`crate::diagnosis::run_reports`]).
    pub fn with_not_run(mut self, not_run: Arc<[crate::diagnosis::FileReport]>) -> Runner {
        self.not_run = not_run;
        self
    }

    /// The same runner, for a hook its host requires (or not): see [`required_block`].
    pub fn with_required(mut self, required: bool) -> Runner {
        self.required = required;
        self
    }

    /// `report` with the files that will not run, blocked when this hook is required and none
    /// of its hooks started.
    fn checked(&self, mut report: RunReport) -> RunReport {
        report.not_run = self.not_run.clone();
        if !self.required {
            return report;
        }
        let hook = crate::discovery::resolve(&self.hook_name).unwrap_or(&self.hook_name);
        let combined = &mut report.combined;
        if let Some(why) = required_block(hook, &self.hooks, &combined.warnings, &report.executions)
        {
            combined.cancel = true;
            if !combined.error_message.is_empty() {
                combined.error_message.push('\n');
            }
            combined.error_message.push_str(&why);
        }
        report
    }

    /// The same runner, checked against `policy` again at a run once this process has changed
    /// a store since it was read.
    pub fn with_policy(mut self, policy: Option<RunnerPolicy>) -> Runner {
        self.policy = policy;
        self
    }

    /// The hooks to run now: as discovered, with the user's policy applied again if this
    /// process changed a store since it was read (on a blocking thread); and the warnings.
    async fn current(&self) -> (Vec<DiscoveredHook>, Vec<String>) {
        let Some(policy) = self.policy.clone() else {
            return (self.hooks.clone(), self.warnings.clone());
        };
        if crate::policy::writes() == policy.writes {
            return (self.hooks.clone(), self.warnings.clone());
        }
        let mut hooks = self.hooks.clone();
        let loaded = crate::blocking::run_or_inline(move || {
            crate::policy::load(&policy.file, &policy.workspace_roots)
        })
        .await
        .unwrap_or_else(|why| crate::policy::Loaded {
            problem: Some(format!(
                "the hooks policy store could not be read again ({why})"
            )),
            ..crate::policy::Loaded::default()
        });
        let scope = self
            .policy
            .as_ref()
            .map_or_else(Default::default, |p| p.scope);
        crate::policy::apply(&mut hooks, &loaded.policy, scope);
        (hooks, loaded.problem.into_iter().collect())
    }

    /// The same runner, with `warnings` added to every run's (what discovery found wrong
    /// outside any one hook, such as a policy store that cannot be used).
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Runner {
        self.warnings = warnings;
        self
    }

    /// Completes the input and serializes it once for every hook: the bytes for stdin.
    pub fn prepare_input(&self, input: &HookInput) -> Result<Vec<u8>, HookError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let timestamp = input::timestamp(self.profile, now);
        input.complete(
            self.profile,
            &self.hook_name,
            &self.workspace_roots,
            &timestamp,
        )
    }

    /// Retires the persistent processes of `owner` for this name that no hook of this runner
    /// takes any more (see [`crate::process::retire_others`]); cheap when none runs.
    pub fn retire_stale(&self, owner: crate::process::Owner) {
        retire_stale(&self.hook_name, &self.hooks, owner);
    }

    /// The report of a run when no hook is enabled: nothing starts, nothing is awaited.
    pub fn nothing_to_run(&self) -> Option<RunReport> {
        self.unchecked_nothing_to_run()
            .map(|report| self.checked(report))
    }

    fn unchecked_nothing_to_run(&self) -> Option<RunReport> {
        if self.hooks.iter().any(DiscoveredHook::enabled) {
            return None;
        }
        let combined = Combined {
            warnings: self.skipped(),
            ..Combined::default()
        };
        Some(RunReport {
            combined,
            executions: Vec::new(),
            duration: Duration::ZERO,
            not_run: Arc::default(),
        })
    }

    /// The report of a run of `input` that starts no process, with nothing to wait for: no
    /// hook is enabled, or every enabled one is skipped by its header's `tools=`. `None` when
    /// a hook would start, or the input is refused, or the user's policy store must be read
    /// again first (then [`Runner::run`] says what happens). A host can settle a call at once
    /// with it, without a thread hop.
    pub fn without_processes(
        &self,
        input: &HookInput,
        settings: &RunSettings,
    ) -> Option<RunReport> {
        if let Some(report) = self.nothing_to_run() {
            return Some(report);
        }
        if self
            .policy
            .as_ref()
            .is_some_and(|policy| crate::policy::writes() != policy.writes)
        {
            return None;
        }
        if !input.is_object() {
            return None;
        }
        let claude_value = match self.hooks.iter().any(|h| h.enabled() && h.claude.is_some()) {
            true => self.claude_value(&self.hooks, &self.prepare_input(input).ok()?),
            false => None,
        };
        let (enabled, skips) = plan(
            &self.hooks,
            input,
            self.claude_subject(claude_value.as_ref()),
        );
        if !skips.iter().all(Option::is_some) {
            return None;
        }
        Some(self.checked(processless_report(
            &self.hooks,
            &self.warnings,
            &enabled,
            skips,
            settings,
        )))
    }

    /// The completed input (`bytes`) as JSON, when an enabled hook of `hooks` is a Claude
    /// settings handler: it builds its stdin and its matcher's subject from it.
    fn claude_value(&self, hooks: &[DiscoveredHook], bytes: &[u8]) -> Option<Value> {
        hooks
            .iter()
            .any(|h| h.enabled() && h.claude.is_some())
            .then(|| serde_json::from_slice(bytes).ok())
            .flatten()
    }

    /// What Claude settings handlers' matchers are tested against in this run (the tool's
    /// Claude name, the SessionStart source...); `None` when the event has no matcher.
    fn claude_subject(&self, value: Option<&Value>) -> Option<String> {
        let value = value?;
        let root = self.workspace_roots.first().cloned().unwrap_or_default();
        crate::claude::claude_input(&self.hook_name, value, self.profile, &root).subject
    }

    /// The run's warnings about the hooks that were not started, and the runner's own.
    fn skipped(&self) -> Vec<String> {
        skipped(&self.hooks, &self.warnings)
    }

    /// Runs the hooks with `input` (a [`HookInput`], or a `serde_json::Value`).
    pub async fn run(
        &self,
        input: impl Into<HookInput>,
        settings: RunSettings,
    ) -> Result<RunReport, HookError> {
        self.run_unchecked(input.into(), settings)
            .await
            .map(|report| self.checked(report))
    }

    /// [`Runner::run`] before the requirement is checked.
    async fn run_unchecked(
        &self,
        input: HookInput,
        settings: RunSettings,
    ) -> Result<RunReport, HookError> {
        let started = Instant::now();
        if settings.abort.is_cancelled() {
            return Err(HookError::Aborted);
        }
        let input_bytes = self.prepare_input(&input)?;
        self.retire_stale(settings.owner);
        if let Some(report) = self.unchecked_nothing_to_run() {
            return Ok(report);
        }
        // A persistent hook disabled for crashing in a loop still runs here: its run fails
        // without a start, so a blocking failure policy keeps blocking.
        let (hooks, warnings) = self.current().await;
        retire_stale(&self.hook_name, &hooks, settings.owner);
        let claude_value = self.claude_value(&hooks, &input_bytes);
        let (enabled, skips) = plan(&hooks, &input, self.claude_subject(claude_value.as_ref()));
        if skips.iter().all(Option::is_some) {
            // Nothing to start: no process, no task, no run context.
            return Ok(processless_report(
                &hooks, &warnings, &enabled, skips, &settings,
            ));
        }
        let to_run: Vec<DiscoveredHook> = enabled
            .iter()
            .zip(&skips)
            .filter(|(_, why)| why.is_none())
            .map(|(hook, _)| (*hook).clone())
            .collect();
        // Each hook runs on its own task, which dropping this future does not reach: a run
        // abandoned by its caller (a `select!`, a `timeout`) stops its hooks as an abort does.
        let abort = settings.abort.child_token();
        let stop_on_drop = abort.clone().drop_guard();

        // A run that starts hooks with `scrubEnv` says once how far they are kept from the
        // host (the first such run makes the ruleset that confines them).
        let scrubbed = settings.scrub_env != ScrubEnv::Off;
        let scrub_warning = scrubbed.then(crate::process::scrub_warning_here).flatten();
        let env_remove = host_names_to_remove(&settings.scrub_env, &settings.env);
        let mut env = settings.env.clone();
        if self.profile == Profile::Cli {
            // The SDK sets CLINE_BUILD_ENV for every hook it starts.
            let host = |name: &str| std::env::var_os(name);
            let get = |name: &str| hook_variable(name, &env, &env_remove, host);
            if let Some(value) = build_env_to_add(get, settings.development_condition) {
                env.push((BUILD_ENV_VAR.into(), value.into()));
            }
        }
        let ctx = Arc::new(RunContext {
            input: input_bytes.into(),
            env,
            env_remove,
            confine: scrubbed,
            timeout: settings.timeout,
            max_timeout: settings.max_timeout,
            persistent_idle: settings.persistent_idle,
            default_cwd: self
                .workspace_roots
                .first()
                .cloned()
                .or_else(|| dirs::home_dir().filter(|home| home.is_dir()))
                // A service account's home may not exist (nobody's is /nonexistent).
                .unwrap_or_else(std::env::temp_dir),
            abort,
            limiter: settings
                .max_processes
                .map(crate::process::limiter)
                .unwrap_or_else(|| self.limiter.clone()),
            owner: settings.owner,
            start_permission: settings
                .start_permission
                .clone()
                .unwrap_or_else(|| crate::process::start_permission(settings.owner)),
            profile: self.profile,
            run: crate::process::RunIdentity::new(self.workspace_roots.first().cloned()),
            // Only when a Claude handler is among the hooks that start.
            claude_batch: claude_value
                .as_ref()
                .filter(|_| to_run.iter().any(|h| h.claude.is_some()))
                .map(|value| {
                    Arc::new(crate::claude::batch_items(
                        &self.hook_name,
                        value,
                        self.profile,
                    ))
                }),
            claude_input: claude_value.map(Arc::new),
        });

        tracing::debug!(
            hook_name = %self.hook_name,
            hooks = to_run.len(),
            skipped = enabled.len() - to_run.len(),
            run = %ctx.run.id,
            sequential = settings.sequential,
            detached = settings.detached,
            "run started"
        );
        let (observer, slow_threshold) = (settings.observer.clone(), settings.slow_threshold);
        let watch = move |hook: &DiscoveredHook| {
            let observer = observer.clone()?;
            Some(HookWatch::new(observer, hook, slow_threshold))
        };
        let ran = if settings.detached {
            let mut executions = Vec::with_capacity(to_run.len());
            for hook in &to_run {
                let timeout = ctx.timeout_of(hook);
                let deadline = deadline_after(started, timeout);
                // A persistent hook's detached event runs per event too: its persistent
                // process is the host's, stopped with it before the event would be read.
                let start = start_detached(hook, &ctx, deadline);
                let Some(watch) = watch(hook) else {
                    executions.push(with_timeout(start.await, hook, &ctx));
                    continue;
                };
                let exec = with_timeout(watch.timing(start).await, hook, &ctx);
                if exec.started {
                    watch.start();
                }
                watch.end(&exec);
                executions.push(exec);
            }
            // A detached hook's verdict is never read: it runs once, as started.
            let executions: Vec<Vec<Execution>> =
                executions.into_iter().map(|exec| vec![exec]).collect();
            // Detached hooks outlive the call by design.
            stop_on_drop.disarm();
            executions
        } else if settings.sequential {
            let mut executions = Vec::with_capacity(to_run.len());
            for hook in &to_run {
                if settings.abort.is_cancelled() {
                    break;
                }
                let deadline = deadline_after(Instant::now(), ctx.timeout_of(hook));
                executions.push(
                    guarded_items(
                        hook.clone(),
                        ctx.clone(),
                        deadline,
                        (watch.clone(), true),
                        guarded,
                    )
                    .await,
                );
            }
            executions
        } else {
            let mut set = JoinSet::new();
            for (index, hook) in to_run.iter().cloned().enumerate() {
                let ctx = ctx.clone();
                let deadline = deadline_after(started, ctx.timeout_of(&hook));
                let watch = watch.clone();
                set.spawn(async move {
                    (
                        index,
                        guarded_items(hook, ctx, deadline, (watch, false), guarded).await,
                    )
                });
            }
            let mut slots: Vec<Option<Vec<Execution>>> = vec![None; to_run.len()];
            while let Some(joined) = set.join_next().await {
                if let Ok((index, exec)) = joined {
                    slots[index] = Some(exec);
                }
            }
            slots
                .into_iter()
                .zip(&to_run)
                .map(|(slot, hook)| {
                    slot.unwrap_or_else(|| {
                        vec![internal_failure(hook, "its task ended unexpectedly")]
                    })
                })
                .collect()
        };
        // In run order, the skipped hooks in their places; each with the timeout it had. A
        // Claude handler run once per batch item has one execution per item, in item order.
        let mut ran = ran.into_iter();
        let mut executions = Vec::with_capacity(enabled.len());
        let mut policies = Vec::with_capacity(enabled.len());
        let mut exec_hooks: Vec<&DiscoveredHook> = Vec::with_capacity(enabled.len());
        for (hook, why) in enabled.iter().zip(skips) {
            let group = match why {
                Some(why) => vec![with_timeout(skipped_execution(hook, why), hook, &ctx)],
                // A sequential run stopped by an abort has no more.
                None => match ran.next() {
                    Some(group) => group,
                    None => break,
                },
            };
            for exec in group {
                executions.push(exec);
                exec_hooks.push(hook);
                policies.push(
                    hook.settings
                        .on_failure
                        .map_or(settings.on_failure, FailurePolicy::all),
                );
            }
        }

        // Recorded before an abort is reported: the hooks it stopped ran too.
        // A skipped hook did not run: nothing of it is recorded.
        let record_warnings = if settings.records.any() {
            let (ran, sha256s): (Vec<Execution>, Vec<Option<String>>) = executions
                .iter()
                .zip(exec_hooks.iter().copied())
                .filter(|(exec, _)| exec.status != Status::Skipped)
                .map(|(exec, hook)| (exec.clone(), hook.sha256.clone()))
                .unzip();
            crate::record::write(&settings.records, &ctx.run.id, &ran, &sha256s).await
        } else {
            Vec::new()
        };
        if settings.abort.is_cancelled() {
            return Err(HookError::Aborted);
        }
        let mut combined = combine(&executions);
        apply_failure_policy(|i| policies[i], &executions, &mut combined);
        combined.warnings.extend(skipped(&hooks, &warnings));
        combined.warnings.extend(scrub_warning);
        // Hooks refused at their start because their bytes were no longer the approved ones.
        combined.warnings.extend(
            executions
                .iter()
                .filter(|e| !e.started)
                .filter_map(|e| e.failure.as_deref())
                .filter(|why| why.starts_with(crate::policy::NOT_TRUSTED_CHANGED))
                .map(|why| format!("skipped: {why}")),
        );
        combined.warnings.extend(record_warnings);
        tracing::debug!(
            hook_name = %self.hook_name,
            run = %ctx.run.id,
            cancel = combined.cancel,
            duration_ms = started.elapsed().as_millis() as u64,
            "run ended"
        );
        Ok(RunReport {
            combined,
            executions,
            duration: started.elapsed(),
            not_run: Arc::default(),
        })
    }
}

/// `exec` with the timeout `hook` had, and a warning when its header asked for more than the
/// host allows.
fn with_timeout(mut exec: Execution, hook: &DiscoveredHook, ctx: &RunContext) -> Execution {
    exec.timeout = ctx.timeout_of(hook);
    if let Some(asked) = hook.settings.timeout.filter(|t| *t > ctx.max_timeout) {
        let asks = match hook.claude {
            Some(_) => format!(
                "its Claude settings ask for \"timeout\": {}",
                asked.as_secs_f64()
            ),
            None => format!(
                "its cline-hook: header asks for timeout={} ms",
                asked.as_millis()
            ),
        };
        exec.warnings.push(format!(
            "{asks}; it ran with the host's maximum, {} ms (maxTimeoutMs)",
            ctx.max_timeout.as_millis()
        ));
    }
    exec
}

/// The warnings of a run: `warnings`, then one per hook of `hooks` that was not started,
/// then what is wrong with the hooks' headers.
fn skipped(hooks: &[DiscoveredHook], warnings: &[String]) -> Vec<String> {
    warnings
        .iter()
        .cloned()
        .chain(hooks.iter().filter_map(|h| {
            h.disabled
                .as_ref()
                .map(|why| format!("skipped {}: {why}", h.path.display()))
        }))
        .chain(hooks.iter().flat_map(|h| {
            h.warnings
                .iter()
                .map(|warning| format!("{}: {warning}", h.path.display()))
        }))
        .collect()
}

/// Retires `owner`'s persistent processes for `hook_name` that none of `hooks` takes now.
fn retire_stale(hook_name: &str, hooks: &[DiscoveredHook], owner: crate::process::Owner) {
    let keep: Vec<&std::path::Path> = hooks
        .iter()
        .filter(|h| h.enabled() && h.settings.mode == HookMode::Persistent)
        .map(|h| h.path.as_path())
        .collect();
    crate::process::retire_others(owner, hook_name, &keep);
}

/// The enabled hooks of `hooks` and, for each, why it does not apply to `input` (`None`: it
/// runs). The input is read for its tool's name only when some hook has `tools=`.
fn plan<'h>(
    hooks: &'h [DiscoveredHook],
    input: &HookInput,
    claude_subject: Option<String>,
) -> (Vec<&'h DiscoveredHook>, Vec<Option<String>>) {
    let enabled: Vec<&DiscoveredHook> = hooks.iter().filter(|h| h.enabled()).collect();
    let tool = enabled
        .iter()
        .find(|h| h.settings.tools.is_some())
        .and_then(|h| tool_name(&h.hook_name, input.as_json()));
    let skips = enabled
        .iter()
        .map(|h| match &h.claude {
            Some(claude) => claude_skip_reason(claude, claude_subject.as_deref()),
            None => skip_reason(h, tool.as_deref()),
        })
        .collect();
    (enabled, skips)
}

/// The report of a run in which every `enabled` hook is skipped (`skips` says why).
fn processless_report(
    hooks: &[DiscoveredHook],
    warnings: &[String],
    enabled: &[&DiscoveredHook],
    skips: Vec<Option<String>>,
    settings: &RunSettings,
) -> RunReport {
    let executions = enabled
        .iter()
        .zip(skips)
        .filter_map(|(hook, why)| {
            let mut exec = skipped_execution(hook, why?);
            exec.timeout = hook_timeout(hook, settings.timeout, settings.max_timeout);
            Some(exec)
        })
        .collect();
    RunReport {
        combined: Combined {
            warnings: skipped(hooks, warnings),
            ..Combined::default()
        },
        executions,
        duration: Duration::ZERO,
        not_run: Arc::default(),
    }
}

/// Why `hook` is not started for a call of the tool `tool`: its header's `tools=` names
/// other tools. A hook runs when the input names no tool.
fn skip_reason(hook: &DiscoveredHook, tool: Option<&str>) -> Option<String> {
    let globs = hook.settings.tools.as_ref()?;
    let tool = tool?;
    (!tools_match(globs, tool)).then(|| {
        format!(
            "its cline-hook: header's tools={} does not match the tool {tool}",
            globs.join(",")
        )
    })
}

/// Why a Claude settings handler is not started for this call: its matcher does not match
/// `subject` (the tool's Claude name, the SessionStart source...). One runs when the event
/// has no matcher.
fn claude_skip_reason(claude: &crate::claude::ClaudeHook, subject: Option<&str>) -> Option<String> {
    let subject = subject?;
    (!claude.matcher.matches(subject)).then(|| {
        format!(
            "its matcher {} does not match {subject}",
            serde_json::Value::String(claude.matcher.text.clone().unwrap_or_default())
        )
    })
}

/// The record of a hook that does not apply to this call.
fn skipped_execution(hook: &DiscoveredHook, why: String) -> Execution {
    let mut exec = Execution::of(hook, Status::Skipped);
    exec.skip_reason = Some(why);
    exec
}

/// `from + timeout`, or as far ahead as the clock goes: a timeout of `Duration::MAX` (no
/// timeout, in effect) must not overflow the clock and panic.
fn deadline_after(from: Instant, timeout: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    from.checked_add(timeout)
        .or_else(|| from.checked_add(CENTURY))
        .unwrap_or(from)
}

/// Runs one hook on its own task, so a panic in this package becomes that hook's failure
/// instead of taking the whole run (or the host) down; with a `watch`, its events are sent but
/// its `End`, which the caller sends with the execution as the run reports it (see
/// `batch_runs`).
async fn guarded(
    hook: DiscoveredHook,
    ctx: Arc<RunContext>,
    deadline: Instant,
    watch: Option<Arc<HookWatch>>,
) -> Execution {
    let for_task = hook.clone();
    let watching = watch.clone();
    let for_work = ctx.clone();
    let work = isolated(&hook, async move {
        if for_task.settings.mode == HookMode::Persistent {
            let timeout = for_work.timeout_of(&for_task);
            run_persistent(&for_task, &for_work, deadline, timeout, watching.as_ref()).await
        } else {
            run_hook_watched(&for_task, &for_work, deadline, watching.as_ref()).await
        }
    });
    let Some(watch) = watch else {
        return with_timeout(work.await, &hook, &ctx);
    };
    with_timeout(watch.timing(work).await, &hook, &ctx)
}

/// Runs `work` as its own task; if it panics, the hook is `failed` with the panic's message.
async fn isolated<F>(hook: &DiscoveredHook, work: F) -> Execution
where
    F: std::future::Future<Output = Execution> + Send + 'static,
{
    match tokio::spawn(work).await {
        Ok(exec) => exec,
        Err(err) => {
            tracing::error!(hook = %hook.path.display(), %err, "internal error while running a hook");
            internal_failure(hook, &err.to_string())
        }
    }
}

fn internal_failure(hook: &DiscoveredHook, what: &str) -> Execution {
    let mut exec = Execution::of(hook, Status::Failed);
    exec.failure = Some(format!(
        "internal error in @cline/hooks while running it (please report it): {what}"
    ));
    exec.failure_kind = Some(crate::process::FailureKind::Crash);
    exec
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook() -> DiscoveredHook {
        DiscoveredHook::sample("/hooks/PreToolUse")
    }

    #[tokio::test]
    async fn a_panic_while_running_a_hook_fails_that_hook_and_nothing_else() {
        let panicking = isolated(&hook(), async { panic!("boom in the runtime") }).await;
        assert_eq!(panicking.status, Status::Failed);
        let failure = panicking.failure.unwrap_or_default();
        assert!(
            failure.starts_with("internal error in @cline/hooks"),
            "{failure}"
        );
        assert!(failure.contains("boom in the runtime"), "{failure}");

        let fine = isolated(&hook(), async { Execution::of(&hook(), Status::Completed) }).await;
        assert_eq!(fine.status, Status::Completed);
    }
}
