//! AbortSignal -> cancellation token, through `addEventListener`, so the caller's own
//! `onabort` handler is never replaced. Runs sharing a signal share one listener, removed when
//! the last of them settles (a long-lived signal reused for thousands of runs, or used by
//! many at once, must not collect listeners).

use napi::bindgen_prelude::*;
use tokio_util::sync::CancellationToken;

use crate::node::errors::{take_exception, Failure};
use cline_hooks_core::error::HookError;

type Handler<'env> = Function<'env, (), ()>;
type ListenerMethod<'env> =
    Function<'env, FnArgs<(&'static str, Handler<'env>, Object<'env>)>, Unknown<'env>>;

pub enum SignalState<'env> {
    Absent,
    /// Already aborted: start nothing. The signal, for its `reason`.
    Aborted(Object<'env>),
    Live(Object<'env>),
}

/// Reads `options.signal` without touching it. A getter or Proxy trap that throws on the way
/// is the failure's cause.
pub fn read<'env>(
    env: &'env Env,
    options: Option<&Object<'env>>,
) -> std::result::Result<SignalState<'env>, Failure<'env>> {
    let Some(options) = options else {
        return Ok(SignalState::Absent);
    };
    // What napi says here names its internals; the thrown value itself is the cause.
    let thrown = |_: Error| {
        Failure::thrown(
            env,
            HookError::InvalidOption {
                option: "signal",
                reason:
                    "reading it threw (the error's cause is what it threw); pass an AbortSignal"
                        .to_owned(),
            },
        )
    };
    let value: Option<Unknown> = options.get("signal").map_err(thrown)?;
    let Some(value) = value else {
        return Ok(SignalState::Absent);
    };
    match value.get_type().map_err(thrown)? {
        ValueType::Undefined | ValueType::Null => return Ok(SignalState::Absent),
        ValueType::Object => {}
        _ => return Err(not_a_signal(&crate::node::describe::describe_value(&value)).into()),
    }
    // Safety: checked to be an object just above.
    let signal: Object = unsafe { value.cast().map_err(thrown)? };
    let aborted: Option<Unknown> = signal.get("aborted").map_err(thrown)?;
    let add: Option<Unknown> = signal.get("addEventListener").map_err(thrown)?;
    let is_function = add
        .map(|add| add.get_type().map(|t| t == ValueType::Function))
        .transpose()
        .map_err(thrown)?
        .unwrap_or(false);
    let aborted = match aborted.map(|a| a.get_type().map(|t| (t, a))).transpose() {
        Ok(Some((ValueType::Boolean, a))) => Some(a.coerce_to_bool().map_err(thrown)?),
        Ok(_) => None,
        Err(e) => return Err(thrown(e)),
    };
    match (aborted, is_function) {
        (Some(true), true) => Ok(SignalState::Aborted(signal)),
        (Some(false), true) => Ok(SignalState::Live(signal)),
        _ => Err(not_a_signal(
            "an object without a boolean `aborted` and an `addEventListener` method",
        )
        .into()),
    }
}

/// `signal.reason`, the cause of an abort; nothing when reading it throws.
pub fn reason<'env>(env: &'env Env, signal: &Object<'env>) -> Option<Unknown<'env>> {
    match signal.get::<Unknown>("reason") {
        Ok(reason) => reason.filter(|r| !matches!(r.get_type(), Ok(ValueType::Undefined))),
        Err(_) => {
            let _ = take_exception(env);
            None
        }
    }
}

/// One `abort` listener per signal, however many runs share it: an extension passes its task's
/// signal to every hook run of the task, and Node warns past 10 listeners on one signal. Runs
/// take child tokens of the signal's token; the last run to settle removes the listener.
struct FanOut {
    token: CancellationToken,
    runs: usize,
    /// Unchecked for leaks: a run still pending when the process exits holds it, and the
    /// check would print a false "memory leak" warning at `process.exit()`.
    signal: ObjectRef<false>,
    handler: FunctionRef<(), ()>,
}

thread_local! {
    // One Node environment per JavaScript thread, so a signal is only ever seen from one.
    static FAN_OUTS: std::cell::RefCell<std::collections::HashMap<u32, FanOut>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

static NEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// The key under which a signal carries its fan-out's id: a registered symbol, so it never
/// shows up in `Object.keys()` or `JSON.stringify()` of the caller's signal, named after this
/// copy of the addon (two versions loaded in one process keep separate ids).
fn id_key<'env>(env: &'env Env) -> Result<Unknown<'env>> {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let name = NAME.get_or_init(|| format!("@cline/hooks.abortFanOut.{:p}", &NEXT_ID));
    let symbol: Unknown = env.get_global()?.get_named_property("Symbol")?;
    // Safety: `Symbol` is a function, and functions are objects.
    let symbol: Object = unsafe { symbol.cast()? };
    let symbol_for: Function<&str, Unknown> = symbol.get_named_property("for")?;
    symbol_for.apply(symbol, name.as_str())
}

/// A run's hold on its signal's listener; released when the run settles.
pub struct Listener {
    id: u32,
}

/// Listens for `abort` on a live signal; the token is cancelled when it fires.
pub fn listen(env: &Env, mut signal: Object) -> Result<(CancellationToken, Listener)> {
    let key = id_key(env)?;
    let existing: Unknown = signal.get_property_unchecked(key)?;
    if existing.get_type()? == ValueType::Number {
        let id = existing.coerce_to_number()?.get_uint32()?;
        let shared = FAN_OUTS.with(|all| {
            all.borrow_mut().get_mut(&id).map(|fan_out| {
                fan_out.runs += 1;
                fan_out.token.child_token()
            })
        });
        if let Some(token) = shared {
            return Ok((token, Listener { id }));
        }
    }

    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let token = CancellationToken::new();
    let on_abort = token.clone();
    let handler: Handler = env.create_function_from_closure("onHookRunAbort", move |_| {
        on_abort.cancel();
        Ok(())
    })?;
    let add: ListenerMethod = signal.get_named_property("addEventListener")?;
    // Defined, not assigned: a setter for `once` on Object.prototype must not run.
    let once = Object::new(env)?;
    let raw = env.raw();
    // Safety: `true` converts on this thread's env.
    let yes = unsafe { bool::to_napi_value(raw, true)? };
    crate::node::properties::define(
        raw,
        once.raw(),
        &[(crate::node::properties::string(raw, "once")?, yes)],
    )?;
    add.apply(signal, FnArgs::from(("abort", handler, once)))?;
    // The caller's own code run since the signal was first read (a getter, a `toJSON` of the
    // input) may have aborted it: that event has fired already, so ask again.
    match signal.get::<bool>("aborted") {
        Ok(Some(true)) => token.cancel(),
        Ok(_) => {}
        Err(_) => {
            let _ = take_exception(env);
        }
    }
    // A frozen signal (or a Proxy refusing the write) cannot carry the id: its runs then listen
    // one by one, which still works.
    if signal.set_property(key, env.create_uint32(id)?).is_err() {
        let _ = take_exception(env);
    }
    let child = token.child_token();
    let fan_out = FanOut {
        token,
        runs: 1,
        signal: signal.create_ref::<false>()?,
        handler: handler.create_ref()?,
    };
    FAN_OUTS.with(|all| all.borrow_mut().insert(id, fan_out));
    Ok((child, Listener { id }))
}

impl Listener {
    /// The signal's `reason`, for the rejection of an aborted run.
    pub fn reason<'env>(&self, env: &'env Env) -> Option<Unknown<'env>> {
        let signal = FAN_OUTS.with(|all| {
            all.borrow()
                .get(&self.id)
                .map(|fan_out| fan_out.signal.get_value(env))
        })?;
        reason(env, &signal.ok()?)
    }

    /// Lets go of the signal; the last run of a signal removes its listener. Runs on the
    /// JavaScript thread when the run settles.
    pub fn remove(self, env: &Env) -> Result<()> {
        let last = FAN_OUTS.with(|all| {
            let mut all = all.borrow_mut();
            let fan_out = all.get_mut(&self.id)?;
            fan_out.runs = fan_out.runs.saturating_sub(1);
            if fan_out.runs == 0 {
                all.remove(&self.id)
            } else {
                None
            }
        });
        let Some(fan_out) = last else {
            return Ok(());
        };
        let mut signal = fan_out.signal.get_value(env)?;
        let detached = (|| -> Result<()> {
            let handler = fan_out.handler.borrow_back(env)?;
            let remove: Option<ListenerMethod> = signal.get("removeEventListener")?;
            if let Some(remove) = remove {
                let options = Object::new(env)?;
                remove.apply(signal, FnArgs::from(("abort", handler, options)))?;
            }
            Ok(())
        })();
        // Whatever the caller's signal threw, the id comes off and the reference goes.
        let _ = take_exception(env);
        if let Ok(key) = id_key(env) {
            if signal.delete_property(key).is_err() {
                let _ = take_exception(env);
            }
        }
        fan_out.signal.unref(env)?;
        detached
    }
}

fn not_a_signal(got: &str) -> HookError {
    HookError::InvalidOption {
        option: "signal",
        reason: format!(
            "must be an AbortSignal (for example new AbortController().signal), not {got}"
        ),
    }
}
