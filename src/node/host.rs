//! What the Node host was started with that a hook's environment follows: the `development`
//! condition in `process.execArgv`, which makes the `cli` profile's `CLINE_BUILD_ENV`
//! `development` (the rule is the core's `build_env_to_add`). Kept per JavaScript thread: a
//! worker has an `execArgv` of its own, and a run's settings are read on its caller's thread.

use std::cell::Cell;

use napi::bindgen_prelude::*;

use cline_hooks_core::process::has_development_condition;

thread_local! {
    static DEVELOPMENT_CONDITION: Cell<bool> = const { Cell::new(false) };
}

/// Reads this thread's `process.execArgv` as the addon loads on it. A host without it (a bare
/// embedding) has no condition; what went wrong reading it is dropped, never thrown into the
/// host.
pub fn capture(env: &Env) {
    let read = || -> Result<Vec<String>> {
        let process: Object = env.get_global()?.get_named_property("process")?;
        process.get_named_property("execArgv")
    };
    match read() {
        Ok(args) => DEVELOPMENT_CONDITION.with(|c| c.set(has_development_condition(&args))),
        Err(_) => {
            let _ = crate::node::errors::take_exception(env);
        }
    }
}

/// Whether the host, on this JavaScript thread, asked for the `development` condition.
pub fn development_condition() -> bool {
    DEVELOPMENT_CONDITION.with(Cell::get)
}
