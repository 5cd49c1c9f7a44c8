//! AbortSignal -> cancellation token, through `addEventListener`, so the caller's own
//! `onabort` handler is never replaced, and the listener is removed when the run settles
//! (a long-lived signal reused for thousands of runs must not collect listeners).

use napi::bindgen_prelude::*;
use tokio_util::sync::CancellationToken;

use crate::hooks::error::HookError;

type Handler<'env> = Function<'env, (), ()>;
type ListenerMethod<'env> =
    Function<'env, FnArgs<(&'static str, Handler<'env>, Object<'env>)>, Unknown<'env>>;

/// The listener installed on a caller's signal.
pub struct Listener {
    signal: ObjectRef,
    handler: FunctionRef<(), ()>,
}

pub enum Watch {
    /// No signal given.
    None,
    /// The signal was already aborted: start nothing.
    AlreadyAborted,
    Watching(CancellationToken, Listener),
}

/// Reads `options.signal` and, unless it is absent or already aborted, listens for `abort`.
pub fn watch(env: &Env, options: Option<&Object>) -> Result<std::result::Result<Watch, HookError>> {
    let Some(options) = options else {
        return Ok(Ok(Watch::None));
    };
    let value: Option<Unknown> = options.get("signal")?;
    let Some(value) = value else {
        return Ok(Ok(Watch::None));
    };
    match value.get_type()? {
        ValueType::Undefined | ValueType::Null => return Ok(Ok(Watch::None)),
        ValueType::Object => {}
        _ => return Ok(Err(not_a_signal())),
    }
    let signal: Object = unsafe { value.cast()? };
    let aborted: Option<bool> = signal.get("aborted")?;
    let add: Option<ListenerMethod> = signal.get("addEventListener")?;
    let (Some(aborted), Some(add)) = (aborted, add) else {
        return Ok(Err(not_a_signal()));
    };
    if aborted {
        return Ok(Ok(Watch::AlreadyAborted));
    }
    let token = CancellationToken::new();
    let on_abort = token.clone();
    let handler: Handler = env.create_function_from_closure("onHookRunAbort", move |_| {
        on_abort.cancel();
        Ok(())
    })?;
    let mut once = Object::new(env)?;
    once.set("once", true)?;
    add.apply(signal, FnArgs::from(("abort", handler, once)))?;
    Ok(Ok(Watch::Watching(
        token,
        Listener {
            signal: signal.create_ref()?,
            handler: handler.create_ref()?,
        },
    )))
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
