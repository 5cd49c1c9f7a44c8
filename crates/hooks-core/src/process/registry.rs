//! Which hook process trees are running right now, so that all of them can be stopped at
//! once: by `terminateAll()`, when the host tears down or dies, or when a run is dropped
//! mid-flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::process::{sweep_now, Marked, ProcessTree, Stop, Watched};

struct Entry {
    /// `None` while its process is being started: `terminate_all` already sees (and counts)
    /// it, and the run stops the tree as soon as it has one.
    tree: Option<ProcessTree>,
    stop: CancellationToken,
    owner: Owner,
    /// Detached hooks are stopped by `terminate_all` only; the host's exit leaves them running.
    detached: bool,
    /// `terminate_all` already asked it to stop (so a second call does not count it again).
    stopping: bool,
}

/// Who started a run: one Node environment of several in a process (so that tearing one down
/// stops only its own hooks) and, within it, one factory (so that disposing of it, or its
/// `terminateAll`, stops only that factory's). The default is "nobody in particular".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Owner {
    environment: u64,
    /// `0`: the environment itself, not one factory of it.
    factory: u64,
}

impl Owner {
    /// The owner for environment `id`.
    pub const fn environment(id: u64) -> Owner {
        Owner {
            environment: id,
            factory: 0,
        }
    }

    /// A new factory's scope within this environment, distinct from every other.
    pub fn new_factory(self) -> Owner {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Owner {
            environment: self.environment,
            factory: NEXT.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Whether a run of `self` is one of `scope`'s: the same owner, or `scope` is the
    /// environment `self` is a factory of.
    pub fn within(self, scope: Owner) -> bool {
        self == scope || (scope.factory == 0 && self.environment == scope.environment)
    }
}

#[derive(Default)]
struct Registry {
    entries: Mutex<HashMap<u64, Entry>>,
    gone: Notify,
    /// Cancelled by `terminate_all`: hooks still waiting to start when it was called never do.
    queued: Mutex<CancellationToken>,
    /// Per factory: a child of `queued` that [`terminate`] of that factory cancels alone.
    scoped: Mutex<HashMap<Owner, CancellationToken>>,
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

/// A token that `terminate_all` (and a [`terminate`] of `owner`'s factory) cancels: taken when
/// a run begins, it tells the run's hooks that have not started yet to never start.
pub fn start_permission(owner: Owner) -> CancellationToken {
    let all = registry()
        .queued
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    if owner.factory == 0 {
        return all;
    }
    let mut scoped = registry()
        .scoped
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // A cancelled token was spent by an earlier stop: runs begun after it start again.
    scoped
        .entry(owner)
        .and_modify(|token| {
            if token.is_cancelled() {
                *token = all.child_token();
            }
        })
        .or_insert_with(|| all.child_token())
        .clone()
}

/// Forgets a factory's start permission (the factory is gone): nothing else would.
pub fn forget_scope(owner: Owner) {
    registry()
        .scoped
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .remove(&owner);
}

/// A hook tree, registered from just before its process starts until its process ends.
/// While registered it can be stopped from outside; dropping it while still `armed` (the run
/// was abandoned) kills the tree, so nothing is left behind.
pub(crate) struct Registration {
    id: u64,
    tree: Option<ProcessTree>,
    armed: bool,
    /// Listed with the watchdog (non-detached trees), so it is stopped if the host dies.
    watched: Option<Watched>,
    /// Its whole tree was stopped, the processes outside its group included: a later kill
    /// signals the group only, with no second sweep.
    swept: bool,
    /// Cancelled when `terminate_all` asks this tree to stop.
    pub stop: CancellationToken,
}

impl Registration {
    /// Registers a hook about to start, before its process exists, so that `terminate_all`
    /// can never miss it: called from then on, it stops the tree once there is one.
    pub fn reserve(owner: Owner, detached: bool) -> Registration {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let stop = CancellationToken::new();
        lock().insert(
            id,
            Entry {
                tree: None,
                stop: stop.clone(),
                owner,
                detached,
                stopping: false,
            },
        );
        Registration {
            id,
            tree: None,
            // A detached tree outlives whatever follows it (the runtime ends with the host).
            armed: !detached,
            watched: None,
            swept: false,
            stop,
        }
    }

    /// The hook's process started, heading `tree`; `watched` is its listing with the
    /// watchdog, if any. If its environment was torn down meanwhile, the tree is killed now.
    pub fn attach(&mut self, tree: ProcessTree, watched: Option<Watched>) {
        let registered = match lock().get_mut(&self.id) {
            Some(entry) => {
                entry.tree = Some(tree.clone());
                true
            }
            None => false,
        };
        if !registered && self.armed {
            tree.kill_now();
        }
        self.tree = Some(tree);
        self.watched = watched;
    }

    /// The hook's own process has been reaped; whatever it left in the background is its
    /// business (the documented way to do async work): nothing will stop it any more, and
    /// the tree leaves the registry now.
    pub fn disarm(&mut self) {
        self.armed = false;
        if let Some(tree) = &self.tree {
            tree.release();
        }
        self.forget();
    }

    /// Signals the tree's process group (SIGTERM or SIGKILL; Windows terminates the job). The
    /// processes that left the group are reached by sweeping [`Registration::marked`].
    pub fn signal_group(&self, stop: Stop) {
        if let Some(tree) = &self.tree {
            tree.signal_group(stop);
        }
    }

    /// The tree for a sweep; empty before it has started.
    pub fn marked(&self) -> Vec<Marked> {
        self.tree.iter().map(ProcessTree::marked).collect()
    }

    /// The whole tree was stopped (group signalled and swept with SIGKILL).
    pub fn swept(&mut self) {
        self.swept = true;
    }

    /// Stops the tree now (SIGKILL), sweeping for the processes that left its group unless
    /// that was done already.
    pub fn kill_now(&self) {
        match &self.tree {
            Some(tree) if self.swept => tree.signal_group(Stop::Kill),
            Some(tree) => tree.kill_now(),
            None => {}
        }
    }

    fn forget(&mut self) {
        self.watched = None;
        if lock().remove(&self.id).is_some() {
            registry().gone.notify_waiters();
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if self.armed {
            self.kill_now();
        }
        self.forget();
    }
}

/// Longest `terminate_all` waits for the trees it stopped to be reaped. A process stuck in the
/// kernel (a hung network filesystem) ignores even SIGKILL; the run it belongs to gives up on
/// it after its own bound, and so does this.
const TERMINATE_WAIT: Duration = Duration::from_secs(5);

/// Asks every running hook tree to stop, stops hooks still waiting to start from ever
/// starting, and waits until each tree it stopped is gone. Returns how many it stopped.
pub async fn terminate_all() -> usize {
    terminate(None).await
}

/// [`terminate_all`] for the runs of `scope` only (a factory, or an environment and its
/// factories); `None` is every run of the process.
pub async fn terminate(scope: Option<Owner>) -> usize {
    match scope {
        None => {
            let mut queued = registry()
                .queued
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            queued.cancel();
            *queued = CancellationToken::new();
        }
        Some(scope) => {
            let scoped = registry()
                .scoped
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            for (_, token) in scoped.iter().filter(|(of, _)| of.within(scope)) {
                token.cancel();
            }
        }
    }
    // Every tree of the scope is waited for, the ones an earlier call is already stopping
    // too (so a second caller does not resolve before they are gone); only the ones this call
    // stops are counted.
    let (ids, stopped): (Vec<u64>, usize) = {
        let mut entries = lock();
        let mut stopped = 0;
        let ids = entries
            .iter_mut()
            .filter(|(_, entry)| scope.is_none_or(|scope| entry.owner.within(scope)))
            .map(|(id, entry)| {
                if !entry.stopping {
                    entry.stopping = true;
                    entry.stop.cancel();
                    stopped += 1;
                }
                *id
            })
            .collect();
        (ids, stopped)
    };
    let all_gone = async {
        loop {
            let gone = registry().gone.notified();
            tokio::pin!(gone);
            gone.as_mut().enable();
            if !ids.iter().any(|id| lock().contains_key(id)) {
                return;
            }
            gone.await;
        }
    };
    let _ = tokio::time::timeout(TERMINATE_WAIT, all_gone).await;
    stopped
}

/// Kills running hook trees at once and forgets them, without waiting for their ends: for host
/// teardown, where there is no event loop left to wait on. `owner: None` means every owner.
/// Detached trees are left running: outliving the host is what detached means. The processes
/// that left the trees' groups are found in one sweep, on this thread (bounded).
pub fn kill_now(owner: Option<Owner>) -> usize {
    let mut entries = lock();
    let before = entries.len();
    let mut marked = Vec::new();
    entries.retain(|_, entry| {
        let ours = !entry.detached && owner.is_none_or(|o| entry.owner.within(o));
        if let (true, Some(tree)) = (ours, &entry.tree) {
            tree.signal_group(Stop::Kill);
            marked.push(tree.marked());
        }
        !ours
    });
    let killed = before - entries.len();
    drop(entries);
    sweep_now(marked, Stop::Kill);
    if killed > 0 {
        registry().gone.notify_waiters();
    }
    killed
}
