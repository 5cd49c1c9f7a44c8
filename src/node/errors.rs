//! Core errors -> JavaScript errors with a stable `code` (and `name`, for AbortError), and the
//! JavaScript exceptions a caller's own code threw while we read its arguments. Each is an
//! instance of the package's `HookError` class (hook-error.js), which the loader hands over
//! once per JavaScript thread before exporting anything.

use napi::bindgen_prelude::*;

use crate::node::properties::{define, string};
use cline_hooks_core::error::HookError;

/// A rejection: the core error, and what the caller's code threw (or the signal's reason)
/// when that is why, to become the JavaScript error's `cause`.
pub struct Failure<'env> {
    pub error: HookError,
    pub cause: Option<Unknown<'env>>,
}

impl From<HookError> for Failure<'_> {
    fn from(error: HookError) -> Self {
        Failure { error, cause: None }
    }
}

impl<'env> Failure<'env> {
    /// `error`, caused by whatever a failed napi call left thrown (a getter, a Proxy trap).
    pub fn thrown(env: &'env Env, error: HookError) -> Self {
        Failure {
            error,
            cause: take_exception(env),
        }
    }
}

/// Clears the pending JavaScript exception, if any, and returns the thrown value. Must follow
/// every failed napi call that can run the caller's code: with an exception pending, every
/// later napi call fails, including building the rejection, and the call would throw.
pub fn take_exception<'env>(env: &'env Env) -> Option<Unknown<'env>> {
    let mut pending = false;
    // Safety: plain napi calls on the current thread's env with valid out-pointers.
    unsafe {
        if napi::sys::napi_is_exception_pending(env.raw(), &mut pending)
            != napi::sys::Status::napi_ok
            || !pending
        {
            return None;
        }
        let mut value = std::ptr::null_mut();
        if napi::sys::napi_get_and_clear_last_exception(env.raw(), &mut value)
            != napi::sys::Status::napi_ok
            || value.is_null()
        {
            return None;
        }
        Some(Unknown::from_raw_unchecked(env.raw(), value))
    }
}

/// The constructors of `HookError` (for `Error`-kind errors) and of its `TypeError` kind, per
/// JavaScript thread (each has its own classes).
type ErrorClass = FunctionRef<String, Unknown<'static>>;

thread_local! {
    static CLASSES: std::cell::RefCell<Option<(ErrorClass, ErrorClass)>> = const { std::cell::RefCell::new(None) };
}

/// Called once by the loader (index.js) with hook-error.js's classes: every error made on this
/// thread from then on is one of theirs. Not part of the API (index.js does not export it).
#[napi_derive::napi(skip_typescript, js_name = "useErrorClasses")]
// Called from JavaScript only: a Rust test build sees no caller.
#[cfg_attr(test, allow(dead_code))]
pub fn use_error_classes(
    hook_error: Function<String, Unknown<'static>>,
    type_error: Function<String, Unknown<'static>>,
) -> Result<()> {
    let classes = (hook_error.create_ref()?, type_error.create_ref()?);
    CLASSES.with(|cell| *cell.borrow_mut() = Some(classes));
    Ok(())
}

/// The `code` of each error, as documented in index.d.ts.
pub fn code(err: &HookError) -> (&'static str, &'static str) {
    match err {
        HookError::InvalidHookName { .. } | HookError::HookNameNotString { .. } => {
            ("TypeError", "ERR_INVALID_HOOK_NAME")
        }
        HookError::InvalidInput(_) => ("TypeError", "ERR_INVALID_HOOK_INPUT"),
        HookError::InvalidOption { .. } | HookError::UnknownOption { .. } => {
            ("TypeError", "ERR_INVALID_OPTION")
        }
        HookError::Aborted => ("AbortError", "ABORT_ERR"),
        HookError::DiscoveryTimedOut { .. } => ("HookError", "ERR_HOOK_DISCOVERY_TIMEOUT"),
        HookError::NoThread { .. } => ("HookError", "ERR_HOOK_NO_THREAD"),
        HookError::Internal(_) => ("HookError", "ERR_CLINE_HOOKS_INTERNAL"),
        HookError::PolicyFile(_) => ("HookError", "ERR_HOOK_POLICY_FILE"),
        HookError::NotAHook { .. } => ("HookError", "ERR_NOT_A_HOOK"),
        HookError::Disposed => ("HookError", "ERR_HOOK_FACTORY_DISPOSED"),
    }
}

/// Builds the JavaScript error for `err`, ready to reject a promise with (or throw). Its
/// `name`, `code` and `cause` are defined, not assigned: a setter a host put on
/// `Object.prototype` or `Error.prototype` runs nothing and cannot make the error fail.
pub fn to_js(env: &Env, err: &HookError, cause: Option<Unknown>) -> Error {
    let (name, code) = code(err);
    // A leftover exception would make every call below fail.
    let _ = take_exception(env);
    let raw = env.raw();
    let build = || -> Result<Error> {
        let error = new_error(env, name == "TypeError", &err.to_string())?;
        define(
            raw,
            error.raw(),
            &[
                (string(raw, "name")?, string(raw, name)?),
                (string(raw, "code")?, string(raw, code)?),
            ],
        )?;
        let built = Error::from(error.to_unknown());
        // Defined after the conversion above, which would otherwise stringify the cause: the
        // caller's thrown value may throw again from its toString. The Error refers to this
        // same object, so the cause is still there when it is thrown or rejected with.
        if let Some(cause) = cause {
            define(raw, error.raw(), &[(string(raw, "cause")?, cause.raw())])?;
        }
        Ok(built)
    };
    build().unwrap_or_else(|e| {
        let _ = take_exception(env);
        // Still an Error object of ours, so the rejection never has to be made by napi's own
        // conversion (which assigns `code`).
        match new_error(env, false, &format!("{err} ({})", e.reason)) {
            Ok(error) => Error::from(error.to_unknown()),
            Err(_) => e,
        }
    })
}

/// A fresh `HookError`, of its `TypeError` kind (so `instanceof TypeError` holds too, as
/// documented) or not; a plain `TypeError` or `Error` before the loader handed the classes over.
fn new_error<'env>(env: &'env Env, type_error: bool, message: &str) -> Result<Object<'env>> {
    let made = CLASSES.with(|cell| -> Option<Result<Unknown<'env>>> {
        let classes = cell.borrow();
        let (hook_error, of_type) = classes.as_ref()?;
        let class = if type_error { of_type } else { hook_error };
        Some(
            class
                .borrow_back(env)
                .and_then(|class| class.new_instance(message.to_owned())),
        )
    });
    match made {
        Some(Ok(error)) => {
            // Safety: a `new` of an Error class is an object.
            return unsafe { error.cast::<Object>() };
        }
        // A pending exception (the constructor threw: a host broke Error) must not stay.
        Some(Err(_)) => {
            let _ = take_exception(env);
        }
        None => {}
    }
    let message = env.create_string(message)?;
    let mut raw = std::ptr::null_mut();
    // Safety: plain napi calls on this thread's env with a valid message string.
    let status = unsafe {
        if type_error {
            napi::sys::napi_create_type_error(
                env.raw(),
                std::ptr::null_mut(),
                message.raw(),
                &mut raw,
            )
        } else {
            napi::sys::napi_create_error(env.raw(), std::ptr::null_mut(), message.raw(), &mut raw)
        }
    };
    if status != napi::sys::Status::napi_ok {
        return Err(Error::new(
            Status::from(status),
            "could not create an error",
        ));
    }
    Ok(Object::from_raw(env.raw(), raw))
}

/// Throws `err` (for a constructor, which cannot return a promise). The returned error tells
/// napi that the exception is already pending.
pub fn throw(env: &Env, failure: Failure) -> Error {
    let error = failure_to_js(env, failure);
    match env.throw(error) {
        Ok(()) => Error::new(Status::PendingException, "thrown"),
        Err(e) => e,
    }
}

/// The JavaScript error for a failure.
pub fn failure_to_js(env: &Env, failure: Failure) -> Error {
    to_js(env, &failure.error, failure.cause)
}
