//! Core futures and results -> JavaScript promises.

use std::future::Future;

use napi::bindgen_prelude::*;

use crate::hooks::error::HookError;
use crate::node::errors;
use crate::node::signal::Listener;

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
        if let Some(listener) = listener {
            let _ = listener.remove(env);
        }
        outcome.map(convert).map_err(|err| errors::to_js(env, &err))
    })
}

/// A promise settled right away on the JavaScript thread: no thread hop, no system call.
pub fn now<T: ToNapiValue>(
    env: &Env,
    outcome: std::result::Result<T, HookError>,
) -> Result<PromiseRaw<'_, T>> {
    match outcome {
        Ok(value) => PromiseRaw::resolve(env, value),
        Err(err) => PromiseRaw::reject(env, errors::to_js(env, &err)),
    }
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
