//! Errors a caller can get back. Everything that goes wrong inside a hook is not an error
//! but a `failed` execution; these are for mistakes in the call itself.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HookError {
    #[error("\"{name}\" is not a valid hook name: {reason}. Hook names look like PreToolUse or TaskStart.")]
    InvalidHookName { name: String, reason: String },

    #[error("invalid input: {0}")]
    InvalidInput(String),

    #[error("invalid option {option}: {reason}")]
    InvalidOption {
        option: &'static str,
        reason: String,
    },

    #[error("the hook run was aborted")]
    Aborted,

    #[error("internal error in @cline/hooks (please report it): {0}")]
    Internal(String),
}
