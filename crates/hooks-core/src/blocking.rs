//! Work that blocks (a folder scan, a verdict read, a sweep of /proc), run on the runtime's
//! blocking pool, and handed back when the system refuses the pool a thread.
//!
//! tokio's pool, with no thread left (they end after 10 s without work) and refused a new one
//! (a cgroup's pids.max or RLIMIT_NPROC reached, as a fork bomb leaves it), panics in the
//! caller but keeps the work queued, to run whenever some later call gets a thread. Work that
//! holds a lock, or a hook's verdict, cannot wait for that: here the work waits in a slot that
//! the pool's thread takes it from, and on that panic it is taken back, so the caller can run
//! it where it is or give it up, and the queued task finds the slot empty and does nothing.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::JoinHandle;

use crate::error::panic_message;

/// What became of work given to [`spawn`] that did not start on the pool.
pub(crate) struct Refused<F> {
    /// The work, not run.
    pub work: F,
    /// Why the pool could not run it (tokio's panic message).
    pub reason: String,
}

/// Work started on the pool: its result, or `None` if it was taken back meanwhile (which
/// only [`spawn`] does, and only when it returns it as [`Refused`]).
pub(crate) type Started<T> = JoinHandle<Option<T>>;

thread_local! {
    /// Set while [`spawn`] asks the pool for a thread: a panic then is the pool's refusal,
    /// which [`spawn`] catches.
    static ASKING_THE_POOL: Cell<bool> = const { Cell::new(false) };
}

/// Whether a panic now unwinding on this thread is the blocking pool refusing a thread, which
/// this crate catches and reports in its result (a hook that could not start, or
/// `ERR_HOOK_NO_THREAD`). A host's panic hook can keep it off stderr, where it would read as a
/// crash; the Node binding does.
pub fn panic_is_a_refused_thread() -> bool {
    ASKING_THE_POOL.with(Cell::get)
}

/// Starts `work` on the blocking pool, or returns it, not run, when the pool has no thread
/// and the system refuses it one.
pub(crate) fn spawn<T, F>(work: F) -> Result<Started<T>, Refused<F>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let slot = Arc::new(Mutex::new(Some(work)));
    let queued = slot.clone();
    ASKING_THE_POOL.with(|asking| asking.set(true));
    let spawned = catch_unwind(AssertUnwindSafe(|| {
        tokio::task::spawn_blocking(move || {
            let work = queued.lock().unwrap_or_else(PoisonError::into_inner).take();
            work.map(|work| work())
        })
    }));
    ASKING_THE_POOL.with(|asking| asking.set(false));
    match spawned {
        Ok(started) => Ok(started),
        Err(panic) => {
            let work = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            match work {
                Some(work) => Err(Refused {
                    work,
                    reason: panic_message(panic.as_ref())
                        .unwrap_or("no thread could be started")
                        .to_owned(),
                }),
                // Not reachable: only this function empties the slot before the work runs,
                // and a pool that panicked ran nothing. Should it happen, the panic goes on.
                None => std::panic::resume_unwind(panic),
            }
        }
    }
}

/// Runs `work` on the blocking pool, or, when the system refuses the pool a thread, here on
/// the calling (async) thread: work that must not be lost (a hook's verdict) and is bounded.
/// `Err`: the pool's task ended without a result (it panicked), with why.
pub(crate) async fn run_or_inline<T, F>(work: F) -> Result<T, String>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match spawn(work) {
        Ok(started) => match started.await {
            Ok(Some(done)) => Ok(done),
            Ok(None) => Err("the work was taken back from the blocking pool".to_owned()),
            Err(join) => Err(join.to_string()),
        },
        Err(refused) => Ok((refused.work)()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a runtime whose pool has threads, work runs there and its result comes back.
    #[tokio::test]
    async fn work_runs_on_the_pool_and_returns_its_result() {
        let here = std::thread::current().id();
        let there = run_or_inline(move || std::thread::current().id() != here).await;
        assert_eq!(there, Ok(true));
    }

    /// Outside a request for a thread, a panic is never taken for the pool's refusal.
    #[tokio::test]
    async fn only_a_request_for_a_thread_counts_as_one() {
        assert!(!panic_is_a_refused_thread());
        let asked = spawn(panic_is_a_refused_thread)
            .ok()
            .unwrap()
            .await
            .unwrap();
        assert_eq!(
            asked,
            Some(false),
            "the work itself runs outside the request"
        );
        assert!(!panic_is_a_refused_thread());
    }
}
