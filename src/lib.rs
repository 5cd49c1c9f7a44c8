//! `@cline/hooks`: the Node face of the hook runtime. Everything here converts JavaScript
//! values to core types and back; the behaviour lives in [`hooks`].

#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod hooks;
mod node;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tokio_util::sync::CancellationToken;

use hooks::discover::Listing;
use hooks::error::HookError;
use hooks::factory::{self, Factory};
use hooks::runner::Runner;
use node::options::{self, DiscoveryOptions, RunHookOptions, RunOptions};
use node::results::{DiscoveredHook, HookRunResult};
use node::signal::{self, SignalState};
use node::{settle, teardown};

/// The hook names Cline fires today: TaskStart, TaskResume, TaskCancel, TaskComplete,
/// TaskError, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, SessionShutdown,
/// Notification. Other names of the same shape are accepted too, and so are the CLI's event
/// names (`tool_call`, `agent_start`, ...).
#[napi]
pub const KNOWN_HOOKS: [&str; 11] = hooks::name::KNOWN_HOOKS;

/// Runs every hook named `hookName` found for `options` with `input` on stdin, and combines
/// their verdicts. Never rejects because of what a hook did (see `HookExecution.status`);
/// rejects for a bad name, input or option, and with an `AbortError` when aborted.
#[napi(
    catch_unwind,
    ts_args_type = "hookName: string, input: object, options?: RunHookOptions",
    ts_return_type = "Promise<HookRunResult>"
)]
pub fn run_hook<'env>(
    env: &'env Env,
    hook_name: String,
    input: Unknown<'env>,
    options: Option<Object<'env>>,
) -> Result<PromiseRaw<'env, HookRunResult>> {
    let (discovery, run) = match options::read::<RunHookOptions>(env, options.as_ref()) {
        Ok(parsed) => parsed.split(),
        Err(err) => return settle::now(env, Err(err)),
    };
    let target = options::layout(&discovery).map(|layout| {
        let factory = factory::shared(&layout, None, options::node_path(env));
        Target::Discover(factory, hook_name)
    });
    start_run(env, target, input, options.as_ref(), run)
}

/// Lists every hook file named `hookName` (enabled or not, with the reason) and the argv it
/// would be started with, in run order.
#[napi(
    catch_unwind,
    ts_args_type = "hookName: string, options?: DiscoveryOptions",
    ts_return_type = "Promise<DiscoveredHook[]>"
)]
pub fn discover_hooks<'env>(
    env: &'env Env,
    hook_name: String,
    options: Option<Object<'env>>,
) -> Result<PromiseRaw<'env, Vec<DiscoveredHook>>> {
    let factory = options::read::<DiscoveryOptions>(env, options.as_ref())
        .and_then(|parsed| options::layout(&parsed))
        .map(|layout| factory::shared(&layout, None, options::node_path(env)));
    settle::spawn(
        env,
        None,
        async move { factory?.discover(&hook_name).await },
        |hooks| hooks.iter().map(DiscoveredHook::from).collect(),
    )
}

/// Stops every running hook's process tree (SIGTERM, then SIGKILL) and resolves with how
/// many there were, once all of them are gone. Their runs report `aborted`.
#[napi(catch_unwind, ts_return_type = "Promise<number>")]
pub fn terminate_all(env: &Env) -> Result<PromiseRaw<'_, u32>> {
    settle::spawn(
        env,
        None,
        async { Ok(hooks::running::terminate_all().await) },
        |n| u32::try_from(n).unwrap_or(u32::MAX),
    )
}

/// Discovers hooks once and keeps the result fresh cheaply (a snapshot is reused for 250 ms,
/// then revalidated), handing out runners for each hook name.
#[napi]
pub struct HookFactory {
    inner: Arc<Factory>,
    /// The runner handed out per name, while discovery is unchanged. Saves building a new
    /// object on every tool call. Held strongly: a weak reference can still look alive after
    /// V8 collected its object (until the finalizer runs), and resolving with it fails.
    runners: RefCell<HashMap<String, CachedRunner>>,
}

/// A runner and the discovery snapshot it was built from.
type CachedRunner = (Arc<Vec<Listing>>, Reference<HookRunner>);

/// Names remembered per factory before the runner cache starts over.
const RUNNER_CACHE_LIMIT: usize = 64;

#[napi]
impl HookFactory {
    /// A factory for the folders `options` names. Nothing is read until the first call;
    /// a bad option throws a `TypeError` with `code: 'ERR_INVALID_OPTION'`.
    #[napi(constructor, catch_unwind, ts_args_type = "options?: DiscoveryOptions")]
    pub fn new(env: &Env, options: Option<Object>) -> Result<Self> {
        let built = (|| -> std::result::Result<_, HookError> {
            let parsed: DiscoveryOptions = options::read(env, options.as_ref())?;
            let layout = options::layout(&parsed)?;
            let limit = options::process_limit("maxConcurrentHooks", parsed.max_concurrent_hooks)?;
            Ok(Factory::new(&layout, limit, options::node_path(env)))
        })();
        match built {
            Ok(factory) => Ok(HookFactory {
                inner: Arc::new(factory),
                runners: RefCell::new(HashMap::new()),
            }),
            Err(err) => Err(node::errors::to_js(env, &err)),
        }
    }

    /// Whether at least one enabled hook named `hookName` exists.
    #[napi(catch_unwind, ts_return_type = "Promise<boolean>")]
    pub fn has_hook<'env>(
        &self,
        env: &'env Env,
        hook_name: String,
    ) -> Result<PromiseRaw<'env, bool>> {
        let any_enabled =
            |hooks: Vec<hooks::discover::DiscoveredHook>| hooks.iter().any(|h| h.enabled());
        if let Some(found) = self.inner.discover_cached(&hook_name) {
            return settle::now(env, found.map(any_enabled));
        }
        let factory = self.inner.clone();
        settle::spawn(
            env,
            None,
            async move { factory.discover(&hook_name).await },
            any_enabled,
        )
    }

    /// A runner for `hookName`; when no hook exists it runs nothing and resolves at once.
    #[napi(catch_unwind, ts_return_type = "Promise<HookRunner>")]
    pub fn create<'env>(
        &self,
        env: &'env Env,
        hook_name: String,
    ) -> Result<PromiseRaw<'env, HookRunner>> {
        if let Some(listings) = self.inner.fresh_listings() {
            return self.create_now(env, hook_name, listings);
        }
        let factory = self.inner.clone();
        settle::spawn(
            env,
            None,
            async move { factory.runner(&hook_name).await },
            HookRunner::new,
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
        listings: Arc<Vec<Listing>>,
    ) -> Result<PromiseRaw<'env, HookRunner>> {
        let cached = match self.runners.borrow().get(&hook_name) {
            Some((seen, runner)) if Arc::ptr_eq(seen, &listings) => Some(runner.clone(*env)?),
            _ => None,
        };
        if let Some(runner) = cached {
            return Ok(PromiseRaw::new(
                env.raw(),
                PromiseRaw::resolve(env, runner)?.raw(),
            ));
        }
        let runner = match self.inner.runner_from(&hook_name, &listings) {
            Ok(runner) => HookRunner::new(runner).into_reference(*env)?,
            Err(err) => return settle::now(env, Err(err)),
        };
        let mut runners = self.runners.borrow_mut();
        if runners.len() >= RUNNER_CACHE_LIMIT {
            runners.clear();
        }
        runners.insert(hook_name, (listings, runner.clone(*env)?));
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
    hooks: Vec<DiscoveredHook>,
}

impl HookRunner {
    fn new(runner: Runner) -> HookRunner {
        let hooks = runner.hooks.iter().map(DiscoveredHook::from).collect();
        HookRunner {
            runner: Arc::new(runner),
            hooks,
        }
    }
}

#[napi]
impl HookRunner {
    /// The hook name this runner runs.
    #[napi(getter)]
    pub fn hook_name(&self) -> String {
        self.runner.hook_name.clone()
    }

    /// Every hook found for this name, enabled or not, in run order.
    #[napi(getter)]
    pub fn hooks(&self) -> Vec<DiscoveredHook> {
        self.hooks.clone()
    }

    /// Runs the hooks with `input` on stdin and combines their verdicts.
    #[napi(
        catch_unwind,
        ts_args_type = "input: object, options?: RunOptions",
        ts_return_type = "Promise<HookRunResult>"
    )]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        input: Unknown<'env>,
        options: Option<Object<'env>>,
    ) -> Result<PromiseRaw<'env, HookRunResult>> {
        let run: RunOptions = match options::read(env, options.as_ref()) {
            Ok(run) => run,
            Err(err) => return settle::now(env, Err(err)),
        };
        start_run(
            env,
            Ok(Target::Ready(self.runner.clone())),
            input,
            options.as_ref(),
            run,
        )
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
    target: std::result::Result<Target, HookError>,
    input: Unknown<'env>,
    options: Option<&Object<'env>>,
    run: RunOptions,
) -> Result<PromiseRaw<'env, HookRunResult>> {
    let owner = teardown::ensure(env);
    let checked = (|| -> std::result::Result<_, HookError> {
        let target = target?;
        let signal = signal::read(options).map_err(|e| HookError::InvalidOption {
            option: "signal",
            reason: e.reason,
        })??;
        if matches!(signal, SignalState::Aborted) {
            return Err(HookError::Aborted);
        }
        let settings = options::run_settings(run, CancellationToken::new(), owner)?;
        options::check_input(&input)?;
        let target = match target {
            Target::Discover(factory, name) => match factory.runner_cached(&name) {
                Some(runner) => Target::Ready(Arc::new(runner?)),
                None => Target::Discover(factory, name),
            },
            ready => ready,
        };
        Ok((target, signal, settings))
    })();
    let (target, signal, mut settings) = match checked {
        Ok(checked) => checked,
        Err(err) => return settle::now(env, Err(err)),
    };
    if let Target::Ready(runner) = &target {
        if let Some(report) = runner.nothing_to_run() {
            let result = node::results::nothing_ran(env, report.combined.warnings)?;
            return Ok(PromiseRaw::new(
                env.raw(),
                PromiseRaw::resolve(env, result)?.raw(),
            ));
        }
    }
    let input = match options::read_input(env, input) {
        Ok(input) => input,
        Err(err) => return settle::now(env, Err(err)),
    };
    let listener = match signal {
        SignalState::Live(signal) => match signal::listen(env, signal) {
            Ok((token, listener)) => {
                settings.abort = token;
                Some(listener)
            }
            Err(err) => {
                let why = format!("could not listen to the AbortSignal: {err}");
                return settle::now(env, Err(HookError::Internal(why)));
            }
        },
        _ => None,
    };
    let work = async move {
        let runner = match target {
            Target::Ready(runner) => runner,
            Target::Discover(factory, name) => Arc::new(factory.runner(&name).await?),
        };
        runner.run(input, settings).await
    };
    settle::spawn(env, listener, work, HookRunResult::from)
}
