//! Hooks must not outlive their host: when a Node environment is torn down (an extension
//! host deactivating, a worker thread ending) its running hook trees are killed, and when the
//! process exits, all of them are.

use napi::Env;

use cline_hooks_core::process::{self, Owner};

/// Registers the teardown for `env` once, and returns its owner id for runs started from it.
pub fn ensure(env: &Env) -> Owner {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        // One Node environment per JavaScript thread.
        static OWNER: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    let existing = OWNER.with(|o| o.get());
    if existing != 0 {
        return Owner::environment(existing);
    }
    let id = NEXT_OWNER.fetch_add(1, Ordering::Relaxed);
    OWNER.with(|o| o.set(id));
    let owner = Owner::environment(id);
    let _ = env.add_env_cleanup_hook(owner, |owner| {
        process::kill_now(Some(owner));
    });
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        extern "C" fn kill_at_exit() {
            process::kill_now(None);
        }
        #[cfg(unix)]
        // Safety: registers a plain function with no captured state.
        unsafe {
            libc::atexit(kill_at_exit);
        }
        #[cfg(not(unix))]
        let _ = kill_at_exit;
    });
    owner
}
