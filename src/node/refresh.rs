//! `HookFactory.refresh()`: a rescan of the hooks folders on demand.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use cline_hooks_core::factory;

use crate::node::settle;
use crate::HookFactory;

#[napi]
impl HookFactory {
    /// Rescans the hooks folders now, even if nothing was seen to change (a change the
    /// watches cannot see: a symlinked hook's target, an interpreter installed on PATH, a
    /// policy store edited by another process). Resolves once the rescan is done: the next
    /// `hasHook` or `create` answers from it. Rejects with `ERR_HOOK_DISCOVERY_TIMEOUT` if the
    /// folders do not answer within 30.25 s, and with `ERR_HOOK_FACTORY_DISPOSED` after `dispose()`.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn refresh<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        if let Err(err) = self.scope.usable() {
            return settle::now(env, Err(err));
        }
        let factory = self.inner.clone();
        settle::spawn(
            env,
            None,
            async move { factory.refresh(factory::DISCOVERY_LIMIT).await },
            |()| (),
        )
    }
}
