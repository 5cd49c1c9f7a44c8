//! What the addon prints when a panic unwinds in it: as before, except for the runtime's
//! refusal of a thread, which the core catches and reports in the result.
//!
//! With a cgroup's pids.max or RLIMIT_NPROC reached (a fork bomb elsewhere in the session),
//! tokio's blocking pool panics when it asks for a thread and the core takes the work back. The
//! default hook would still print `thread 'tokio-rt-worker' panicked` to the host's stderr, in
//! an editor's log as if the host had crashed, while the run goes on and says what happened.
//! The hook is this library's own: each addon links its own Rust standard library.

/// Installs the hook, keeping the one in place for every other panic.
pub fn install() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !cline_hooks_core::panic_is_a_refused_thread() {
            previous(info);
        }
    }));
}
