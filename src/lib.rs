//! `@cline/hooks`: the Node face of the hook runtime. Everything here converts JavaScript
//! values to core types and back; the behaviour lives in [`hooks`].

#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod node;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tokio_util::sync::CancellationToken;

use cline_hooks_core::error::HookError;
use cline_hooks_core::event::Runner;
use cline_hooks_core::factory::{self, Factory, Snapshot};
use node::errors::Failure;
use node::options::{self, DiscoveryOptions, RunHookOptions, RunOptions};
use node::results::{self, DiscoveredHook, HookList, HookRunResult};
use node::signal::{self, SignalState};
use node::{settle, teardown};

// The policy calls live in their own file; exported here like the rest of the API.
pub use node::decisions::{set_hook_enabled, trust_hook, untrust_hook, HookApproval};
pub use node::diagnosis::diagnose_hooks;
pub use node::logger::{set_logger, LogRecord, LoggerOptions};

/// Runs once, as the library loads, before any runtime exists.
#[napi_derive::module_init]
fn init_runtime() {
    node::panic_hook::install();
    node::logger::install();
    node::runtime::install();
}

/// Runs as the addon loads on a JavaScript thread, before the host's later code can change
/// what results are built with.
#[napi(module_exports)]
pub fn on_load(_exports: Object, env: Env) -> Result<()> {
    results::capture(&env);
    node::host::capture(&env);
    node::logger::on_env(&env);
    Ok(())
}

/// The hook names Cline fires today: TaskStart, TaskResume, TaskCancel, TaskComplete,
/// TaskError, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, SessionShutdown,
/// Notification. Other names of the same shape are accepted too, and so are the CLI's event
/// names (`tool_call`, `agent_start`, ...). Declared by hand in src/node/contract.d.ts
/// (`readonly HookName[]`).
#[napi(skip_typescript)]
pub const KNOWN_HOOKS: [&str; 11] = cline_hooks_core::discovery::KNOWN_HOOKS;

/// Runs every hook named `hookName` found for `options` with `input` on stdin, and combines
/// their verdicts. Never rejects because of what a hook did (see `HookExecution.status`);
/// rejects for a bad name, input or option, and with an `AbortError` when aborted. `input` is
/// typed by `hookName` (`HookInputFor`); the fields the runtime fills may be left out.
#[napi(
    catch_unwind,
    ts_generic_types = "N extends HookName | CliEventName",
    ts_args_type = "hookName: N, input: HookInputFor<N>, options?: RunHookOptions",
    ts_return_type = "Promise<HookRunResult>"
)]
pub fn run_hook<'env>(
    env: &'env Env,
    hook_name: Option<Unknown<'env>>,
    input: Option<Unknown<'env>>,
    options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, HookRunResult>> {
    let read = || -> std::result::Result<_, Failure<'env>> {
        let name = options::hook_name(env, hook_name)?;
        let options = options::options_object(options)?;
        let (discovery, run) =
            options::read::<RunHookOptions>(env, options.as_ref(), "runHook")?.split();
        let layout = options::layout(&discovery)?;
        let factory = factory::shared(&layout, None, options::node_path(env));
        Ok((Target::Discover(factory, name), options, run))
    };
    match read() {
        Ok((target, options, run)) => start_run(env, target, input, options.as_ref(), run, None),
        Err(failure) => settle::reject(env, failure),
    }
}

/// Lists every hook file named `hookName` (enabled or not, with the reason) and the argv it
/// would be started with, in run order.
#[napi(
    catch_unwind,
    ts_args_type = "hookName: HookName | CliEventName, options?: DiscoveryOptions",
    ts_return_type = "Promise<DiscoveredHook[]>"
)]
pub fn discover_hooks<'env>(
    env: &'env Env,
    hook_name: Option<Unknown<'env>>,
    options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, HookList>> {
    let read = || -> std::result::Result<_, Failure<'env>> {
        let name = options::hook_name(env, hook_name)?;
        let options = options::options_object(options)?;
        let parsed = options::read::<DiscoveryOptions>(env, options.as_ref(), "discoverHooks")?;
        options::process_limit("maxConcurrentHooks", parsed.max_concurrent_hooks)?;
        let layout = options::layout(&parsed)?;
        Ok((
            name,
            factory::shared(&layout, None, options::node_path(env)),
        ))
    };
    let (hook_name, factory) = match read() {
        Ok(read) => read,
        Err(failure) => return settle::reject(env, failure),
    };
    settle::spawn(
        env,
        None,
        async move {
            let snapshot = factory
                .snapshot(&hook_name, factory::DISCOVERY_LIMIT)
                .await?;
            Ok(snapshot.hooks())
        },
        |hooks| HookList(hooks.iter().map(DiscoveredHook::from).collect()),
    )
}

/// Stops every running hook's process tree (SIGTERM, then SIGKILL; on Windows its job object
/// is terminated), detached ones included, and resolves with how many it stopped, once they
/// are gone (at most 5 s for processes stuck in the kernel). Their runs report `aborted` and keep the cancels they printed; hooks still
/// waiting for a slot never start.
#[napi(catch_unwind, ts_return_type = "Promise<number>")]
pub fn terminate_all(env: &Env) -> Result<PromiseRaw<'_, u32>> {
    settle::spawn(
        env,
        None,
        async { Ok(cline_hooks_core::process::terminate_all().await) },
        |n| u32::try_from(n).unwrap_or(u32::MAX),
    )
}

/// Discovers hooks once and keeps the result fresh cheaply (a snapshot is reused until a
/// watched hooks folder changes, and for 250 ms at most), handing out runners for each hook name.
#[napi]
pub struct HookFactory {
    inner: Arc<Factory>,
    /// Its runs' owner (its own, within its environment's) and whether it is disposed of.
    scope: node::lifecycle::Scope,
    /// `maxTimeoutMs` and `persistentIdleMs` given to the factory, for its runners' runs.
    defaults: options::RunDefaults,
    /// The runner handed out per name, while discovery is unchanged. Saves building a new
    /// object on every tool call. Held strongly: a weak reference can still look alive after
    /// V8 collected its object (until the finalizer runs), and resolving with it fails.
    runners: RefCell<HashMap<String, CachedRunner>>,
}

/// A runner and the discovery snapshot it was built from.
type CachedRunner = (Snapshot, Reference<HookRunner>);

/// Names remembered per factory before the runner cache starts over.
const RUNNER_CACHE_LIMIT: usize = 64;

#[napi]
impl HookFactory {
    /// A factory for the folders `options` names. Nothing is read until the first call;
    /// a bad option throws a `TypeError` with `code: 'ERR_INVALID_OPTION'`.
    #[napi(constructor, catch_unwind, ts_args_type = "options?: DiscoveryOptions")]
    pub fn new(env: &Env, options: Option<Unknown>) -> Result<Self> {
        let built = (|| -> std::result::Result<_, Failure> {
            let options = options::options_object(options)?;
            let parsed: DiscoveryOptions = options::read(env, options.as_ref(), "new HookFactory")?;
            let layout = options::layout(&parsed)?;
            let limit = options::process_limit("maxConcurrentHooks", parsed.max_concurrent_hooks)?;
            let defaults = options::RunDefaults::of(&parsed)?;
            Ok((
                Factory::new(&layout, limit, options::node_path(env)),
                defaults,
            ))
        })();
        match built {
            Ok((factory, defaults)) => Ok(HookFactory {
                inner: Arc::new(factory),
                scope: node::lifecycle::Scope::new(teardown::ensure(env)),
                defaults,
                runners: RefCell::new(HashMap::new()),
            }),
            Err(failure) => Err(node::errors::throw(env, failure)),
        }
    }

    /// Whether at least one enabled hook named `hookName` exists. A persistent hook listed
    /// disabled for crashing in a loop counts: its runs still report it (failed, not started),
    /// and a blocking `onFailure` still blocks.
    #[napi(
        catch_unwind,
        ts_args_type = "hookName: HookName | CliEventName",
        ts_return_type = "Promise<boolean>"
    )]
    pub fn has_hook<'env>(
        &self,
        env: &'env Env,
        hook_name: Option<Unknown<'env>>,
    ) -> Result<PromiseRaw<'env, bool>> {
        if let Err(err) = self.scope.usable() {
            return settle::now(env, Err(err));
        }
        let hook_name = match options::hook_name(env, hook_name) {
            Ok(name) => name,
            Err(err) => return settle::now(env, Err(err)),
        };
        let any_enabled = |hooks: Vec<cline_hooks_core::discovery::DiscoveredHook>| {
            hooks.iter().any(|h| h.enabled())
        };
        if let Some(found) = self.inner.snapshot_now(&hook_name) {
            return settle::now(
                env,
                found.map(|snapshot| any_enabled(snapshot.hooks_to_run())),
            );
        }
        let factory = self.inner.clone();
        settle::spawn(
            env,
            None,
            async move {
                let snapshot = factory
                    .snapshot(&hook_name, factory::DISCOVERY_LIMIT)
                    .await?;
                Ok(snapshot.hooks_to_run())
            },
            any_enabled,
        )
    }

    /// A runner for `hookName`; when no hook exists it runs nothing and resolves at once. Its
    /// type carries the name (`HookRunnerFor`), so its `run` takes that hook's input.
    #[napi(
        catch_unwind,
        ts_generic_types = "N extends HookName | CliEventName",
        ts_args_type = "hookName: N",
        ts_return_type = "Promise<HookRunnerFor<N>>"
    )]
    pub fn create<'env>(
        &self,
        env: &'env Env,
        hook_name: Option<Unknown<'env>>,
    ) -> Result<PromiseRaw<'env, HookRunner>> {
        if let Err(err) = self.scope.usable() {
            return settle::now(env, Err(err));
        }
        let hook_name = match options::hook_name(env, hook_name) {
            Ok(name) => name,
            Err(err) => return settle::now(env, Err(err)),
        };
        match self.inner.snapshot_now(&hook_name) {
            Some(Ok(snapshot)) => return self.create_now(env, hook_name, snapshot),
            Some(Err(err)) => return settle::now(env, Err(err)),
            None => {}
        }
        let factory = self.inner.clone();
        let defaults = self.defaults;
        let scope = self.scope.clone();
        settle::spawn(
            env,
            None,
            async move {
                let snapshot = factory
                    .snapshot(&hook_name, factory::DISCOVERY_LIMIT)
                    .await?;
                Ok((snapshot.runner(), defaults, scope))
            },
            HookRunner::of,
        )
    }
}

impl HookFactory {
    /// `create` from a fresh snapshot, settled on the JavaScript thread; the same runner
    /// object again when the snapshot has not changed since it was made.
    fn create_now<'env>(
        &self,
        env: &'env Env,
        hook_name: String,
        snapshot: Snapshot,
    ) -> Result<PromiseRaw<'env, HookRunner>> {
        let cached = match self.runners.borrow().get(&hook_name) {
            Some((seen, runner)) if seen.same_as(&snapshot) => Some(runner.clone(*env)?),
            _ => None,
        };
        if let Some(runner) = cached {
            return Ok(PromiseRaw::new(
                env.raw(),
                PromiseRaw::resolve(env, runner)?.raw(),
            ));
        }
        let runner = HookRunner::new(snapshot.runner(), self.defaults, Some(self.scope.clone()))
            .into_reference(*env)?;
        let mut runners = self.runners.borrow_mut();
        if runners.len() >= RUNNER_CACHE_LIMIT {
            runners.clear();
        }
        runners.insert(hook_name, (snapshot, runner.clone(*env)?));
        Ok(PromiseRaw::new(
            env.raw(),
            PromiseRaw::resolve(env, runner)?.raw(),
        ))
    }
}

/// The hooks of one name, discovered when the runner was created.
#[napi]
pub struct HookRunner {
    runner: Arc<Runner>,
    /// Its factory's `maxTimeoutMs` and `persistentIdleMs`.
    defaults: options::RunDefaults,
    /// Its factory's owner and disposal.
    scope: Option<node::lifecycle::Scope>,
}

impl HookRunner {
    fn of(
        (runner, defaults, scope): (Runner, options::RunDefaults, node::lifecycle::Scope),
    ) -> HookRunner {
        HookRunner::new(runner, defaults, Some(scope))
    }

    fn new(
        runner: Runner,
        defaults: options::RunDefaults,
        scope: Option<node::lifecycle::Scope>,
    ) -> HookRunner {
        HookRunner {
            runner: Arc::new(runner),
            defaults,
            scope,
        }
    }
}

#[napi]
impl HookRunner {
    /// The hook name this runner runs.
    #[napi(getter, ts_return_type = "HookName | CliEventName")]
    pub fn hook_name(&self) -> String {
        self.runner.hook_name.clone()
    }

    /// Every hook found for this name, enabled or not, in run order; a persistent hook that
    /// runs per event for now (a crash loop, an approved batch file) says why in its warnings.
    #[napi(getter, ts_return_type = "Array<DiscoveredHook>")]
    pub fn hooks(&self) -> HookList {
        let mut hooks = self.runner.hooks.clone();
        cline_hooks_core::process::note_per_event_runs(&mut hooks);
        HookList(hooks.iter().map(DiscoveredHook::from).collect())
    }

    /// Runs the hooks with `input` on stdin and combines their verdicts. `input` is typed by
    /// the runner's hook name (`HookInputFor`); a runner typed without its name takes any
    /// hook's input.
    #[napi(
        catch_unwind,
        ts_generic_types = "N extends HookName | CliEventName",
        ts_args_type = "this: { readonly hookName: N }, input: HookInputFor<N>, options?: RunOptions",
        ts_return_type = "Promise<HookRunResult>"
    )]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        input: Option<Unknown<'env>>,
        options: Option<Unknown<'env>>,
    ) -> Result<PromiseRaw<'env, HookRunResult>> {
        let read = || -> std::result::Result<_, Failure<'env>> {
            if let Some(scope) = &self.scope {
                scope.usable()?;
            }
            let options = options::options_object(options)?;
            let run: RunOptions = options::read(env, options.as_ref(), "runner.run")?;
            Ok((options, self.defaults.under(run)))
        };
        match read() {
            Ok((options, run)) => start_run(
                env,
                Target::Ready(self.runner.clone()),
                input,
                options.as_ref(),
                run,
                self.scope.as_ref().map(node::lifecycle::Scope::owner),
            ),
            Err(failure) => settle::reject(env, failure),
        }
    }
}

/// What a run runs: a runner in hand, or the hooks of a name still to be discovered.
enum Target {
    Ready(Arc<Runner>),
    Discover(Arc<Factory>, String),
}

/// The one path of every run: check the call, settle at once when there is nothing to run
/// (no thread hop, no system call), otherwise listen to the signal and run on the runtime.
fn start_run<'env>(
    env: &'env Env,
    target: Target,
    input: Option<Unknown<'env>>,
    options: Option<&Object<'env>>,
    run: RunOptions,
    owner: Option<cline_hooks_core::process::Owner>,
) -> Result<PromiseRaw<'env, HookRunResult>> {
    // A factory's runs are its own (its dispose() stops them); others are the environment's.
    let owner = owner.unwrap_or_else(|| teardown::ensure(env));
    let checked = (|| -> std::result::Result<_, Failure<'env>> {
        let signal = signal::read(env, options)?;
        if let SignalState::Aborted(signal) = &signal {
            return Err(Failure {
                error: HookError::Aborted,
                cause: signal::reason(env, signal),
            });
        }
        let settings = options::run_settings(run, CancellationToken::new(), owner)?;
        let on_event = node::events::read(env, options)?;
        // Serialised by JSON.stringify even when nothing will run, so a bad input is refused
        // the same way whether or not a hook happens to be installed; only a run copies the
        // text into the core.
        let input = match input {
            Some(input) => options::read_input(env, input)?,
            None => {
                return Err(HookError::InvalidInput(
                    "the hook input is missing; pass a JSON object (for example {})".to_owned(),
                )
                .into())
            }
        };
        let target = match target {
            // A bad name is reported by the run below, after the input's own checks.
            Target::Discover(factory, name) => match factory.snapshot_now(&name) {
                Some(Ok(snapshot)) => Target::Ready(Arc::new(snapshot.runner())),
                _ => Target::Discover(factory, name),
            },
            ready => ready,
        };
        Ok((target, signal, settings, input, on_event))
    })();
    let (target, signal, mut settings, input, on_event) = match checked {
        Ok(checked) => checked,
        Err(failure) => return settle::reject(env, failure),
    };
    if let Target::Ready(runner) = &target {
        // A persistent hook's file gone, disabled or made per-event: its process is retired.
        runner.retire_stale(owner);
        if let Some(report) = runner.nothing_to_run() {
            // A required hook that is missing blocks, and files that will not run are listed:
            // the fast literal holds neither.
            if report.combined.cancel || !report.not_run.is_empty() {
                let result = results::run_json(&report);
                return Ok(PromiseRaw::new(
                    env.raw(),
                    PromiseRaw::resolve(env, result)?.raw(),
                ));
            }
            let result = results::nothing_ran(env, report.combined.warnings)?;
            return Ok(PromiseRaw::new(
                env.raw(),
                PromiseRaw::resolve(env, result)?.raw(),
            ));
        }
    }
    let input = match input.into_input() {
        Ok(input) => input,
        Err(failure) => return settle::reject(env, failure),
    };
    // Every hook skipped by its `tools=`: settled here too, with the executions that say so.
    if let Target::Ready(runner) = &target {
        if let Some(report) = runner.without_processes(&input, &settings) {
            let result = results::run_json(&report);
            return Ok(PromiseRaw::new(
                env.raw(),
                PromiseRaw::resolve(env, result)?.raw(),
            ));
        }
    }
    let listener = match signal {
        SignalState::Live(signal) => match signal::listen(env, signal) {
            Ok((token, listener)) => {
                settings.abort = token;
                Some(listener)
            }
            Err(_) => {
                let error = HookError::InvalidOption {
                    option: "signal",
                    reason: "its addEventListener threw (the error's cause is what it threw); pass an AbortSignal (for example new AbortController().signal)".to_owned(),
                };
                return settle::reject(env, Failure::thrown(env, error));
            }
        },
        _ => None,
    };
    let work = |poster: Option<settle::Poster>| async move {
        settings.observer = poster.map(node::events::observer);
        let runner = match target {
            Target::Ready(runner) => runner,
            // A folder that does not answer must not hold the run past its own deadline.
            Target::Discover(factory, name) => {
                let limit = factory::discovery_limit(settings.timeout);
                Arc::new(factory.snapshot(&name, limit).await?.runner())
            }
        };
        // The result's JSON is written here, on the runtime, not on the JavaScript thread.
        runner
            .run(input, settings)
            .await
            .map(|report| results::run_json(&report))
    };
    let promise = settle::spawn_observed(env, listener, on_event, work, std::convert::identity)?;
    Ok(PromiseRaw::new(env.raw(), promise.raw()))
}
