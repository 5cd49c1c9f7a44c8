//! Core futures and results -> JavaScript promises.

use std::future::Future;

use napi::bindgen_prelude::*;

use crate::node::errors;
use crate::node::signal::Listener;
use cline_hooks_core::error::HookError;

/// Runs `work` on the runtime (as its own task, so a panic becomes a rejection, never an
/// abort of the host) and settles the promise on the JavaScript thread, removing the abort
/// listener first.
pub fn spawn<'env, T, R, W>(
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
        // An abort rejects with the signal's reason as `cause`, read before the listener
        // lets go of the signal.
        let mut cause = None;
        if let Some(listener) = listener {
            if matches!(outcome, Err(HookError::Aborted)) {
                cause = listener.reason(env);
            }
            if listener.remove(env).is_err() {
                // The caller's removeEventListener threw: nothing to undo, but the
                // exception must not stay pending.
                let _ = errors::take_exception(env);
            }
        }
        outcome
            .map(convert)
            .map_err(|err| errors::to_js(env, &err, cause))
    })
}

/// A promise settled right away on the JavaScript thread: no thread hop, no system call.
pub fn now<T: ToNapiValue>(
    env: &Env,
    outcome: std::result::Result<T, HookError>,
) -> Result<PromiseRaw<'_, T>> {
    match outcome {
        Ok(value) => PromiseRaw::resolve(env, value),
        Err(err) => reject(env, err.into()),
    }
}

/// A promise rejected right away, with the failure's cause.
pub fn reject<'env, T: ToNapiValue>(
    env: &'env Env,
    failure: errors::Failure,
) -> Result<PromiseRaw<'env, T>> {
    PromiseRaw::reject(env, errors::failure_to_js(env, failure))
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
