//! A factory's lifetime: the owner its runs are registered under, so that `dispose()` and its
//! own `terminateAll()` stop its hooks and no other's, and the flag that refuses calls after
//! `dispose()`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::node::settle;
use crate::HookFactory;
use cline_hooks_core::error::HookError;
use cline_hooks_core::process::{self, Owner};

/// A factory's owner and whether it has been disposed of, shared with the runners it made.
#[derive(Clone)]
pub struct Scope {
    owner: Owner,
    disposed: Arc<AtomicBool>,
}

impl Scope {
    /// A new factory's scope within `environment`.
    pub fn new(environment: Owner) -> Scope {
        Scope {
            owner: environment.new_factory(),
            disposed: Arc::default(),
        }
    }

    /// The owner its runs are registered under.
    pub fn owner(&self) -> Owner {
        self.owner
    }

    /// `Err(Disposed)` once `dispose()` was called.
    pub fn usable(&self) -> std::result::Result<(), HookError> {
        if self.disposed.load(Ordering::Acquire) {
            Err(HookError::Disposed)
        } else {
            Ok(())
        }
    }
}

#[napi]
impl HookFactory {
    /// Stops this factory's hooks and lets go of what it holds: its running hook trees are
    /// stopped as `terminateAll()` stops them (their runs resolve, reporting `aborted`, and keep
    /// the cancels already printed), hooks waiting for a slot never start, its persistent
    /// hooks' processes end, and its folder watches are closed. Resolves once the trees are
    /// gone (at most 5 s for processes stuck in the kernel). Every later call on the factory
    /// or a runner it made rejects with `ERR_HOOK_FACTORY_DISPOSED`; calling `dispose()` again
    /// resolves. Also `await using factory = new HookFactory(...)` where Node has
    /// `Symbol.asyncDispose`.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn dispose<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        self.scope.disposed.store(true, Ordering::Release);
        self.runners.borrow_mut().clear();
        let owner = self.scope.owner;
        let factory = self.inner.clone();
        settle::spawn(
            env,
            None,
            async move {
                process::terminate(Some(owner)).await;
                process::retire_scope(owner);
                factory.release();
                process::forget_scope(owner);
                Ok(())
            },
            |()| (),
        )
    }

    /// Stops this factory's running hooks only (the global `terminateAll()` stops every
    /// hook of the process, other factories' and `runHook`'s too), as `terminateAll()` does:
    /// resolves with how many trees it stopped, once they are gone. The factory stays usable.
    #[napi(
        js_name = "terminateAll",
        catch_unwind,
        ts_return_type = "Promise<number>"
    )]
    pub fn terminate_own<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, u32>> {
        if let Err(err) = self.scope.usable() {
            return settle::now(env, Err(err));
        }
        let owner = self.scope.owner;
        settle::spawn(
            env,
            None,
            async move { Ok(process::terminate(Some(owner)).await) },
            |n| u32::try_from(n).unwrap_or(u32::MAX),
        )
    }
}

impl Drop for HookFactory {
    /// Collected without `dispose()`: its persistent sessions close (their processes end once
    /// idle or served), and its start permission is forgotten. Running hooks finish their runs.
    fn drop(&mut self) {
        process::retire_scope(self.scope.owner);
        process::forget_scope(self.scope.owner);
    }
}
