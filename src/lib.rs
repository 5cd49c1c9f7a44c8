//! `@cline/hooks`: the Node face of the hook runtime. Everything here converts JavaScript
//! values to core types and back; the behaviour lives in [`hooks`].

#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod hooks;
mod node;

use std::future::Future;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tokio_util::sync::CancellationToken;

use hooks::error::HookError;
use hooks::factory::{self, Factory};
use hooks::runner::Runner;
use node::options::{self, DiscoveryOptions, RunHookOptions, RunOptions};
use node::results::{DiscoveredHook, HookRunResult};
use node::signal::{self, Listener, Watch};

/// The hook names Cline fires today: TaskStart, TaskResume, TaskCancel, TaskComplete,
/// TaskError, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, SessionShutdown,
/// Notification. Other names of the same shape are accepted too.
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
    let parsed: RunHookOptions = read_options(env, options.as_ref())?;
    let input = read_input(env, input);
    let (discovery, run) = parsed.split();
    let watch = signal::watch(env, options.as_ref())?;
    let prepared = (|| -> std::result::Result<_, HookError> {
        let layout = options::layout(&discovery)?;
        let factory = factory::shared(&layout, None, node_path(env));
        Ok((factory, input?))
    })();
    run_with(
        env,
        watch,
        run,
        prepared,
        move |(factory, input), settings| async move {
            let runner = factory.runner(&hook_name).await?;
            runner.run(input, settings).await
        },
    )
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
    let parsed: DiscoveryOptions = read_options(env, options.as_ref())?;
    let factory =
        options::layout(&parsed).map(|layout| factory::shared(&layout, None, node_path(env)));
    settle(
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
    settle(
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
}

#[napi]
impl HookFactory {
    #[napi(constructor, catch_unwind, ts_args_type = "options?: DiscoveryOptions")]
    pub fn new(env: &Env, options: Option<Object>) -> Result<Self> {
        let parsed: DiscoveryOptions = read_options(env, options.as_ref())?;
        let built = (|| -> std::result::Result<_, HookError> {
            let layout = options::layout(&parsed)?;
            let limit = options::process_limit("maxConcurrentHooks", parsed.max_concurrent_hooks)?;
            Ok(Factory::new(&layout, limit, node_path(env)))
        })();
        match built {
            Ok(factory) => Ok(HookFactory {
                inner: Arc::new(factory),
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
        let factory = self.inner.clone();
        settle(
            env,
            None,
            async move { factory.discover(&hook_name).await },
            |hooks| hooks.iter().any(|h| h.enabled()),
        )
    }

    /// A runner for `hookName`; when no hook exists it runs nothing and resolves at once.
    #[napi(catch_unwind, ts_return_type = "Promise<HookRunner>")]
    pub fn create<'env>(
        &self,
        env: &'env Env,
        hook_name: String,
    ) -> Result<PromiseRaw<'env, HookRunner>> {
        let factory = self.inner.clone();
        settle(
            env,
            None,
            async move { factory.runner(&hook_name).await },
            HookRunner::new,
        )
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
        let run: RunOptions = read_options(env, options.as_ref())?;
        let watch = signal::watch(env, options.as_ref())?;
        let prepared = read_input(env, input).map(|input| (self.runner.clone(), input));
        run_with(
            env,
            watch,
            run,
            prepared,
            |(runner, input), settings| async move { runner.run(input, settings).await },
        )
    }
}

/// Shared path of every run: honour the signal, build settings, run, convert.
fn run_with<'env, P, F, Fut>(
    env: &'env Env,
    watch: std::result::Result<Watch, HookError>,
    run: RunOptions,
    prepared: std::result::Result<P, HookError>,
    work: F,
) -> Result<PromiseRaw<'env, HookRunResult>>
where
    P: Send + 'static,
    F: FnOnce(P, hooks::runner::RunSettings) -> Fut + Send + 'static,
    Fut: Future<Output = std::result::Result<hooks::runner::RunReport, HookError>> + Send + 'static,
{
    let owner = ensure_teardown(env);
    let (abort, listener) = match watch {
        Ok(Watch::None) => (CancellationToken::new(), None),
        Ok(Watch::AlreadyAborted) => {
            return settle::<hooks::runner::RunReport, _, _>(
                env,
                None,
                async { Err(HookError::Aborted) },
                HookRunResult::from,
            );
        }
        Ok(Watch::Watching(token, listener)) => (token, Some(listener)),
        Err(err) => {
            return settle::<hooks::runner::RunReport, _, _>(
                env,
                None,
                async move { Err(err) },
                HookRunResult::from,
            )
        }
    };
    let ready = prepared.and_then(|p| options::run_settings(run, abort, owner).map(|s| (p, s)));
    settle(
        env,
        listener,
        async move {
            let (prepared, settings) = ready?;
            work(prepared, settings).await
        },
        HookRunResult::from,
    )
}

/// Runs `work` on the runtime (as its own task, so a panic becomes a rejection) and settles
/// the promise on the JavaScript thread, removing the abort listener first.
fn settle<'env, T, R, W>(
    env: &'env Env,
    listener: Option<Listener>,
    work: W,
    convert: fn(T) -> R,
) -> Result<PromiseRaw<'env, R>>
where
    T: Send + 'static,
    R: ToNapiValue + 'static,
    W: Future<Output = std::result::Result<T, HookError>> + Send + 'static,
{
    let guarded = async move {
        let outcome = match tokio::spawn(work).await {
            Ok(outcome) => outcome,
            Err(join) => Err(HookError::Internal(panic_text(join))),
        };
        Ok::<_, Error>(outcome)
    };
    env.spawn_future_with_callback(guarded, move |env, outcome| {
        if let Some(listener) = listener {
            let _ = listener.remove(env);
        }
        outcome
            .map(convert)
            .map_err(|err| node::errors::to_js(env, &err))
    })
}

fn panic_text(join: tokio::task::JoinError) -> String {
    if !join.is_panic() {
        return "the task was cancelled".to_owned();
    }
    let payload = join.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

/// The host's own Node binary (`process.execPath`), for `.js` hooks of the CLI profile.
fn node_path(env: &Env) -> Option<std::path::PathBuf> {
    static NODE: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    NODE.get_or_init(|| {
        let global = env.get_global().ok()?;
        let process: Object = global.get_named_property("process").ok()?;
        let exec_path: String = process.get_named_property("execPath").ok()?;
        Some(exec_path.into())
    })
    .clone()
}

fn read_options<T: FromNapiValue + Default>(env: &Env, options: Option<&Object>) -> Result<T> {
    match options {
        None => Ok(T::default()),
        Some(obj) => unsafe { T::from_napi_value(env.raw(), obj.raw()) },
    }
}

fn read_input(env: &Env, input: Unknown) -> std::result::Result<serde_json::Value, HookError> {
    match input.get_type() {
        Ok(ValueType::Object) => env
            .from_js_value::<serde_json::Value, _>(input)
            .map_err(|e| {
                HookError::InvalidInput(format!("it cannot be turned into JSON: {}", e.reason))
            }),
        Ok(other) => Err(HookError::InvalidInput(format!(
            "the hook input must be a JSON object, not {other}"
        ))),
        Err(e) => Err(HookError::InvalidInput(e.reason.clone())),
    }
}

/// Hooks must not outlive their host: when this Node environment is torn down (an extension
/// host deactivating, a worker thread ending) its running hook trees are killed, and when the
/// process exits, all of them are. Returns this environment's owner id.
fn ensure_teardown(env: &Env) -> hooks::running::Owner {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        // One Node environment per JavaScript thread.
        static OWNER: std::cell::Cell<hooks::running::Owner> = const { std::cell::Cell::new(0) };
    }
    let existing = OWNER.with(|o| o.get());
    if existing != 0 {
        return existing;
    }
    let owner = NEXT_OWNER.fetch_add(1, Ordering::Relaxed);
    OWNER.with(|o| o.set(owner));
    let _ = env.add_env_cleanup_hook(owner, |owner| {
        hooks::running::kill_now(Some(owner));
    });
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        extern "C" fn kill_at_exit() {
            hooks::running::kill_now(None);
        }
        #[cfg(unix)]
        // Safety: registers a plain function with no captured state.
        unsafe {
            libc::atexit(kill_at_exit);
        }
        #[cfg(not(unix))]
        let _ = kill_at_exit;
    });
    owner
}
