//! The live persistent hooks of this process: one session per (owner, hook file, working
//! directory), found by the events sent to it. Each session is a task of the runtime that
//! first needed it; it leaves the pool when it has no process and no event left, and one
//! whose runtime is gone (its task dropped, its process killed with it) is replaced.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard, OnceLock};

use tokio::sync::mpsc::{self, error::SendError, UnboundedReceiver, UnboundedSender};

use super::job::{InFlight, Job};
use crate::process::Owner;

/// What one session serves: its owner (a Node environment), its hook file and the working
/// directory its process runs in.
pub(super) type Key = (Owner, PathBuf, PathBuf);

struct Entry {
    /// Which session this is (a key's session can be replaced).
    id: u64,
    tx: UnboundedSender<Job>,
    /// Its events sent and not yet answered.
    in_flight: Arc<AtomicUsize>,
    /// The hook name its file answers to.
    hook_name: String,
}

fn pool() -> MutexGuard<'static, HashMap<Key, Entry>> {
    static POOL: OnceLock<Mutex<HashMap<Key, Entry>>> = OnceLock::new();
    POOL.get_or_init(Mutex::default)
        .lock()
        // Single inserts and removes: a poisoned lock still holds a consistent map.
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What became of a job handed to the pool.
// `Busy` hands the job back by value (moved once, on the busy path): no allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Handed {
    /// Sent to the session of its key.
    Sent,
    /// Its session is answering another event: the job comes back, to run per event.
    Busy(Job),
    /// No live session served its key: one is entered in the pool, the job first in its queue,
    /// for the caller to start at once (on the current runtime) as `Session::new(key, id,
    /// queue)`.
    Opened(Key, u64, UnboundedReceiver<Job>),
}

/// Hands `job` to its session, entering a new session in the pool (for the caller to start)
/// if there is none; hands it back when the session is answering another event, so that it
/// runs per event rather than wait its turn with its timeout running (a queue would turn a
/// cost into a verdict). Sent under the pool's lock, so a session that leaves (under the same
/// lock) never leaves an event behind.
pub(super) fn submit(mut job: Job) -> Handed {
    let key: Key = (job.owner, job.hook.path.clone(), job.cwd.clone());
    let hook_name = job.hook.hook_name.clone();
    let mut pool = pool();
    let job = match pool.get(&key) {
        Some(entry) if entry.in_flight.load(Ordering::Acquire) > 0 => return Handed::Busy(job),
        Some(entry) => {
            job.in_flight = Some(InFlight::new(entry.in_flight.clone()));
            match entry.tx.send(job) {
                Ok(()) => return Handed::Sent,
                // Its task is gone (its runtime shut down): a new session takes over.
                Err(SendError(job)) => job,
            }
        }
        None => job,
    };
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::unbounded_channel();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let mut job = job;
    job.in_flight = Some(InFlight::new(in_flight.clone()));
    // The receiver is alive: this cannot fail.
    let _ = tx.send(job);
    pool.insert(
        key.clone(),
        Entry {
            id,
            tx,
            in_flight,
            hook_name,
        },
    );
    Handed::Opened(key, id, rx)
}

/// Retires the sessions of `owner` for hooks named `hook_name` whose file is not in `keep`
/// (the persistent hooks a run of that name takes now): a hook file deleted, renamed, made a
/// per-event hook, disabled or no longer trusted does not keep its process until it idles.
/// Closing a session's queue retires its process once the events already sent are served.
pub fn retire_others(owner: Owner, hook_name: &str, keep: &[&std::path::Path]) {
    let mut pool = pool();
    if pool.is_empty() {
        return;
    }
    pool.retain(|(of, path, _), entry| {
        *of != owner || entry.hook_name != hook_name || keep.contains(&path.as_path())
    });
}

/// Retires every session of `scope` (a factory disposed of): their processes end once the
/// events already sent are served, or at once when [`terminate`](crate::process::terminate)
/// stops them.
pub fn retire_scope(scope: Owner) {
    pool().retain(|(of, _, _), _| !of.within(scope));
}

/// Session `id` of `key` leaves the pool if no event waits for it (`None`: it has left, and
/// its channel is closed and empty), else hands back the event that waits.
pub(super) fn leave(key: &Key, id: u64, rx: &mut UnboundedReceiver<Job>) -> Option<Job> {
    let mut pool = pool();
    if let Ok(job) = rx.try_recv() {
        return Some(job);
    }
    if pool.get(key).is_some_and(|entry| entry.id == id) {
        pool.remove(key);
    }
    rx.close();
    None
}
