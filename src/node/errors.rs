//! Core errors -> JavaScript errors with a stable `code` (and `name`, for AbortError).

use napi::bindgen_prelude::*;

use crate::hooks::error::HookError;

/// Builds the JavaScript error for `err`, ready to reject a promise with.
pub fn to_js(env: &Env, err: &HookError) -> Error {
    let (name, code) = match err {
        HookError::InvalidHookName { .. } => ("TypeError", "ERR_INVALID_HOOK_NAME"),
        HookError::InvalidInput(_) => ("TypeError", "ERR_INVALID_HOOK_INPUT"),
        HookError::InvalidOption { .. } => ("TypeError", "ERR_INVALID_OPTION"),
        HookError::Aborted => ("AbortError", "ABORT_ERR"),
        HookError::Internal(_) => ("Error", "ERR_CLINE_HOOKS_INTERNAL"),
    };
    let build = || -> Result<Error> {
        let mut error = env.create_error(Error::new(Status::GenericFailure, err.to_string()))?;
        error.set("name", name)?;
        error.set("code", code)?;
        Ok(Error::from(error.to_unknown()))
    };
    build().unwrap_or_else(|e| e)
}
