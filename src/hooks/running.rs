//! Which hook process trees are running right now, so that all of them can be stopped at
//! once: by `terminateAll()`, when the host tears down, or when a run is dropped mid-flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::hooks::tree::ProcessTree;

struct Entry {
    tree: ProcessTree,
    stop: CancellationToken,
    owner: Owner,
}

/// Who started a run (for example one Node environment of several in a process), so that
/// tearing one down stops only its own hooks. `0` is "nobody in particular".
pub type Owner = u64;

#[derive(Default)]
struct Registry {
    entries: Mutex<HashMap<u64, Entry>>,
    gone: Notify,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

fn lock() -> MutexGuard<'static, HashMap<u64, Entry>> {
    // A panic while holding this lock cannot leave the map inconsistent (single inserts and
    // removes), so a poisoned lock is still safe to use.
    registry()
        .entries
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running hook tree. While it is alive the tree can be stopped from outside; dropping it
/// while still `armed` (the run was abandoned) kills the tree, so nothing is left behind.
pub struct Registration {
    id: u64,
    tree: ProcessTree,
    armed: bool,
    /// Cancelled when `terminate_all` asks this tree to stop.
    pub stop: CancellationToken,
}

impl Registration {
    pub fn new(tree: ProcessTree, owner: Owner) -> Registration {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let stop = CancellationToken::new();
        lock().insert(
            id,
            Entry {
                tree: tree.clone(),
                stop: stop.clone(),
                owner,
            },
        );
        Registration {
            id,
            tree,
            armed: true,
            stop,
        }
    }

    /// The hook's own process has been reaped; whatever it left in the background is its
    /// business (the documented way to do async work), so dropping must not kill anything.
    pub fn disarm(&mut self) {
        self.armed = false;
        self.tree.release();
    }

    pub fn tree(&self) -> &ProcessTree {
        &self.tree
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if self.armed {
            self.tree.kill_now();
        }
        lock().remove(&self.id);
        registry().gone.notify_waiters();
    }
}

/// Asks every running hook tree to stop and waits until each has been stopped and reaped.
/// Returns how many there were.
pub async fn terminate_all() -> usize {
    let ids: Vec<u64> = {
        let entries = lock();
        for entry in entries.values() {
            entry.stop.cancel();
        }
        entries.keys().copied().collect()
    };
    loop {
        let gone = registry().gone.notified();
        tokio::pin!(gone);
        gone.as_mut().enable();
        if !ids.iter().any(|id| lock().contains_key(id)) {
            return ids.len();
        }
        gone.await;
    }
}

/// Kills running hook trees at once, without waiting: for host teardown, where there is no
/// event loop left to wait on. `owner: None` kills all of them.
pub fn kill_now(owner: Option<Owner>) -> usize {
    let entries = lock();
    let mut killed = 0;
    for entry in entries
        .values()
        .filter(|e| owner.is_none_or(|o| e.owner == o))
    {
        entry.tree.kill_now();
        killed += 1;
    }
    killed
}

/// How many hook trees are running.
pub fn count() -> usize {
    lock().len()
}
