//! `trustHook`, `untrustHook` and `setHookEnabled`: the user's decisions about one hook file,
//! recorded in the policy store by the core (`cline_hooks_core::policy`) on a blocking thread.

use std::path::PathBuf;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::node::errors::Failure;
use crate::node::options::{self, PolicyOptions, TrustOptions};
use crate::node::settle;
use cline_hooks_core::error::HookError;
use cline_hooks_core::policy;

/// An approval as `trustHook` recorded it.
#[napi(object, object_from_js = false)]
pub struct HookApproval {
    /// The hook file approved (absolute).
    pub path: String,
    /// The sha256 of the bytes approved: only these bytes run while trust is required.
    pub sha256: String,
}

/// Approves the hook file at `path` as its bytes are now (with `sha256`: only if they still
/// have it), in the policy store (`policyFile`, default the CLI's, `$CLINE_DIR` or `~/.cline`). Rejects with `ERR_NOT_A_HOOK` for a path that is not a
/// hook file and `ERR_HOOK_POLICY_FILE` when the store cannot be read or written (a corrupt
/// store is never overwritten).
#[napi(
    catch_unwind,
    ts_args_type = "path: string, options?: { policyFile?: string | undefined; sha256?: string | undefined }",
    ts_return_type = "Promise<HookApproval>"
)]
pub fn trust_hook<'env>(
    env: &'env Env,
    path: Option<Unknown<'env>>,
    options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, HookApproval>> {
    let read = || -> std::result::Result<_, Failure<'env>> {
        let path = hook_path(env, path)?;
        let options = options::options_object(options)?;
        let parsed: TrustOptions = options::read(env, options.as_ref(), "trustHook")?;
        let store = options::policy_file(parsed.policy_file.as_ref(), "trustHook")?;
        Ok((path, store, parsed.sha256))
    };
    let (path, store, sha256) = match read() {
        Ok(read) => read,
        Err(failure) => return settle::reject(env, failure),
    };
    settle::spawn(
        env,
        None,
        off_thread(move || policy::trust_hook(&path, &store, sha256.as_deref())),
        |approval| HookApproval {
            path: approval.path.to_string_lossy().into_owned(),
            sha256: approval.sha256,
        },
    )
}

/// Withdraws the approval of the hook file at `path` from the policy store (as `trustHook`); resolves
/// with whether there was one.
#[napi(
    catch_unwind,
    ts_args_type = "path: string, options?: { policyFile?: string | undefined }",
    ts_return_type = "Promise<boolean>"
)]
pub fn untrust_hook<'env>(
    env: &'env Env,
    path: Option<Unknown<'env>>,
    options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, bool>> {
    let (path, store) = match read_path_and_store(env, path, options, "untrustHook") {
        Ok(read) => read,
        Err(failure) => return settle::reject(env, failure),
    };
    settle::spawn(
        env,
        None,
        off_thread(move || policy::untrust_hook(&path, &store)),
        |had| had,
    )
}

/// Records in the policy store (as `trustHook`) whether the hook file at `path` runs. Discovery lists a
/// disabled hook `enabled: false` with reason `disabled`. Enabling a file without the exec
/// bit (macOS/Linux) sets it; one that is a link (or in a linked folder) leading out of its
/// workspace root or hooks folder is refused with `ERR_NOT_A_HOOK` instead.
#[napi(
    catch_unwind,
    ts_args_type = "path: string, enabled: boolean, options?: { policyFile?: string | undefined }",
    ts_return_type = "Promise<void>"
)]
pub fn set_hook_enabled<'env>(
    env: &'env Env,
    path: Option<Unknown<'env>>,
    enabled: Option<Unknown<'env>>,
    options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, ()>> {
    let enabled = match enabled.map(|v| (v.get_type(), v)) {
        Some((Ok(ValueType::Boolean), value)) => value.coerce_to_bool().unwrap_or(false),
        _ => {
            let err = HookError::InvalidOption {
                option: "enabled",
                reason: "pass true to enable the hook or false to disable it".to_owned(),
            };
            return settle::reject(env, err.into());
        }
    };
    let (path, store) = match read_path_and_store(env, path, options, "setHookEnabled") {
        Ok(read) => read,
        Err(failure) => return settle::reject(env, failure),
    };
    settle::spawn(
        env,
        None,
        off_thread(move || policy::set_hook_enabled(&path, enabled, &store)),
        |()| (),
    )
}

fn read_path_and_store<'env>(
    env: &'env Env,
    path: Option<Unknown<'env>>,
    options: Option<Unknown<'env>>,
    call: &str,
) -> std::result::Result<(PathBuf, PathBuf), Failure<'env>> {
    let path = hook_path(env, path)?;
    let options = options::options_object(options)?;
    let parsed: PolicyOptions = options::read(env, options.as_ref(), call)?;
    let store = options::policy_file(parsed.policy_file.as_ref(), call)?;
    Ok((path, store))
}

/// The hook path argument: a non-empty string, made absolute as discovery reports paths.
fn hook_path<'env>(
    env: &'env Env,
    path: Option<Unknown<'env>>,
) -> std::result::Result<PathBuf, Failure<'env>> {
    let fix = "pass the hook file's path, as discoverHooks or `cline-hooks list` shows it";
    let refuse = || -> Failure<'env> {
        HookError::InvalidOption {
            option: "path",
            reason: fix.to_owned(),
        }
        .into()
    };
    let value = path.ok_or_else(refuse)?;
    if value.get_type().ok() != Some(ValueType::String) {
        return Err(refuse());
    }
    let text = options::env_and_paths_path(env, "path", &value, fix)?;
    Ok(options::absolute_path("path", &text)?)
}

/// Runs the store's blocking file work on Tokio's blocking pool.
async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> std::result::Result<T, HookError> + Send + 'static,
) -> std::result::Result<T, HookError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| HookError::Internal(format!("the policy store's thread failed: {e}")))?
}
