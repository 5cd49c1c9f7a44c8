//! AbortSignal -> cancellation token, through `addEventListener`, so the caller's own
//! `onabort` handler is never replaced, and the listener is removed when the run settles
//! (a long-lived signal reused for thousands of runs must not collect listeners).

use napi::bindgen_prelude::*;
use tokio_util::sync::CancellationToken;

use crate::hooks::error::HookError;

type Handler<'env> = Function<'env, (), ()>;
type ListenerMethod<'env> =
    Function<'env, FnArgs<(&'static str, Handler<'env>, Object<'env>)>, Unknown<'env>>;

pub enum SignalState<'env> {
    Absent,
    /// Already aborted: start nothing.
    Aborted,
    Live(Object<'env>),
}

/// Reads `options.signal` without touching it.
pub fn read<'env>(
    options: Option<&Object<'env>>,
) -> Result<std::result::Result<SignalState<'env>, HookError>> {
    let Some(options) = options else {
        return Ok(Ok(SignalState::Absent));
    };
    let value: Option<Unknown> = options.get("signal")?;
    let Some(value) = value else {
        return Ok(Ok(SignalState::Absent));
    };
    match value.get_type()? {
        ValueType::Undefined | ValueType::Null => return Ok(Ok(SignalState::Absent)),
        ValueType::Object => {}
        _ => return Ok(Err(not_a_signal())),
    }
    let signal: Object = unsafe { value.cast()? };
    let aborted: Option<bool> = signal.get("aborted")?;
    let add: Option<Unknown> = signal.get("addEventListener")?;
    match (aborted, add) {
        (Some(true), Some(_)) => Ok(Ok(SignalState::Aborted)),
        (Some(false), Some(_)) => Ok(Ok(SignalState::Live(signal))),
        _ => Ok(Err(not_a_signal())),
    }
}

/// The listener installed on a caller's signal.
pub struct Listener {
    signal: ObjectRef,
    handler: FunctionRef<(), ()>,
}

/// Listens for `abort` on a live signal; the token is cancelled when it fires.
pub fn listen(env: &Env, signal: Object) -> Result<(CancellationToken, Listener)> {
    let token = CancellationToken::new();
    let on_abort = token.clone();
    let handler: Handler = env.create_function_from_closure("onHookRunAbort", move |_| {
        on_abort.cancel();
        Ok(())
    })?;
    let add: ListenerMethod = signal.get_named_property("addEventListener")?;
    let mut once = Object::new(env)?;
    once.set("once", true)?;
    add.apply(signal, FnArgs::from(("abort", handler, once)))?;
    let listener = Listener {
        signal: signal.create_ref()?,
        handler: handler.create_ref()?,
    };
    Ok((token, listener))
}

impl Listener {
    /// Removes the listener; runs on the JavaScript thread when the run settles.
    pub fn remove(self, env: &Env) -> Result<()> {
        let signal = self.signal.get_value(env)?;
        let handler = self.handler.borrow_back(env)?;
        let remove: Option<ListenerMethod> = signal.get("removeEventListener")?;
        if let Some(remove) = remove {
            let options = Object::new(env)?;
            remove.apply(signal, FnArgs::from(("abort", handler, options)))?;
        }
        self.signal.unref(env)?;
        Ok(())
    }
}

fn not_a_signal() -> HookError {
    HookError::InvalidOption {
        option: "signal",
        reason: "must be an AbortSignal (for example new AbortController().signal)".to_owned(),
    }
}
