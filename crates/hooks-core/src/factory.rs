//! Cached discovery: a [`Factory`] hands out [`Snapshot`]s of the hooks folders (and the
//! runners built from them) without scanning the folders on every call.
//!
//! A snapshot is stale as soon as a watched hooks folder changes (see
//! [`discovery::watch`]: on Linux the next call sees a hook added, removed, renamed,
//! chmod-ed or edited, with no system call on the check), after [`Factory::refresh`], and in
//! any case once it is [`CACHE_TTL`] old: the age covers what no watch sees (a symlinked
//! hook's target, an interpreter on PATH, the default folders' environment, a policy store
//! changed by another process) and every folder that cannot be watched (inotify limits,
//! macOS and Windows, where the age is all there is). A rescan costs one `stat` per
//! directory (plus a `readdir` if it changed, see [`discovery::Scanner`]), one `open` and
//! read per entry named like a hook, the default folders and the interpreters found again.
//! One rescan runs at a time per factory; calls that find the snapshot stale meanwhile wait
//! for it and take its result. The user's policy store is read again with every rescan; a
//! change this process makes to it (see [`crate::policy::writes`]) makes every snapshot stale
//! at once.
//!
//! There is one way in: [`Factory::snapshot`], whose first step is [`Factory::snapshot_now`],
//! the synchronous answer from a fresh snapshot. The freshness rule is `Stored::answers`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::diagnosis::FileReport;
use crate::discovery::watch::{Mark, Watch};
use crate::discovery::{self, Defaults, DiscoveredHook, Layout, Listing, Platform, Scanner};
use crate::error::HookError;
use crate::event::{Runner, RunnerPolicy, DEFAULT_TIMEOUT};
use crate::launch::{Interpreters, LiveMachine};
use crate::policy::{self, Loaded};
use crate::process::KILL_GRACE;

/// How long a run with hook timeout `timeout` may wait for discovery: the timeout plus the
/// kill grace, the same bound as for stopping a hook.
pub const fn discovery_limit(timeout: Duration) -> Duration {
    timeout.saturating_add(KILL_GRACE)
}

/// How long discovery may take outside a run (`discoverHooks`, `hasHook`, `create`): as for a
/// run with the default timeout.
pub const DISCOVERY_LIMIT: Duration = discovery_limit(DEFAULT_TIMEOUT);

/// How long a discovery snapshot is trusted at most, watched or not.
pub const CACHE_TTL: Duration = Duration::from_millis(250);

/// How many hook names one factory inspects files for before it starts over from Cline's own.
const WANTED_LIMIT: usize = 256;

pub use crate::process::{default_process_limit, limiter, shared_limiter};

/// The factory for `layout`, shared by every call that names the same directories, so that
/// one-shot calls (`runHook`) get the same cached discovery as a long-lived factory.
pub fn shared(
    layout: &Layout,
    max_processes: Option<usize>,
    node: Option<PathBuf>,
) -> Arc<Factory> {
    type Key = (Layout, Option<usize>, Option<PathBuf>);
    static SHARED: std::sync::OnceLock<Mutex<std::collections::HashMap<Key, Arc<Factory>>>> =
        std::sync::OnceLock::new();
    let mut map = SHARED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let key = (layout.clone(), max_processes, node.clone());
    if let Some(factory) = map.get(&key) {
        return factory.clone();
    }
    // A host that keeps inventing layouts must not grow this without bound.
    if map.len() >= 64 {
        map.clear();
    }
    let factory = Arc::new(Factory::new(layout, max_processes, node));
    map.insert(key, factory.clone());
    factory
}

/// What a factory was made for, shared with every snapshot it hands out.
#[derive(Debug)]
struct Setup {
    layout: Layout,
    platform: Platform,
    /// Shared by the runners, so that their hook processes count against one limit.
    limiter: Arc<Semaphore>,
}

/// The hooks of one name as a scan of the hooks folders found them: what
/// [`Factory::snapshot`] hands out. Reading it makes no system call: the scan resolved every
/// hook's argv.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The name asked for: a CLI event name stays one, because the runner's input carries it.
    name: String,
    listings: Arc<Vec<Listing>>,
    /// The policy store as the scan read it (empty without one).
    policy: Arc<Loaded>,
    /// Why the scan's folders are not watched, if they could not be.
    unwatched: Option<Arc<str>>,
    setup: Arc<Setup>,
}

impl Snapshot {
    /// The name asked for: a hook name, or a CLI event name such as `tool_call`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The hook name the files carry: the name asked for, or the hook its CLI event stands for.
    pub fn hook_name(&self) -> &str {
        discovery::event_hook(&self.name).unwrap_or(&self.name)
    }

    /// Every hook of this name, enabled or not, in run order, with the user's policy applied
    /// (disabled hooks, trust).
    pub fn hooks(&self) -> Vec<DiscoveredHook> {
        let mut hooks = self.hooks_to_run();
        // A persistent hook that runs per event for now (a crash loop, an approved batch file)
        // is listed with why.
        crate::process::note_per_event_runs(&mut hooks);
        hooks
    }

    /// The hooks as a run takes them: [`Snapshot::hooks`] without the listing's notes on
    /// persistent hooks that run per event (a run says so in its own warnings).
    pub fn hooks_to_run(&self) -> Vec<DiscoveredHook> {
        let setup = &self.setup;
        let mut hooks = discovery::discover(
            self.hook_name(),
            &self.listings,
            setup.layout.profile,
            &setup.platform,
        );
        policy::apply(&mut hooks, &self.policy.policy, setup.layout.trust);
        crate::discovery::give_sandboxes(
            &mut hooks,
            &setup.layout.sandbox,
            &setup.layout.workspace_roots,
            &std::env::temp_dir(),
        );
        hooks
    }

    /// What a run of this hook says beyond its hooks: what is wrong with the policy store, if
    /// anything (it then counts as empty); why the folders are not watched, where they could
    /// not be (a change is then seen within [`CACHE_TTL`] only); the files meant for this hook
    /// that will not run, and the workspace roots its hooks cannot run in (see
    /// [`crate::diagnosis::run_warnings`]).
    pub fn warnings(&self) -> Vec<String> {
        let hooks = self.hooks_to_run();
        self.warnings_for(&hooks, &self.not_run(&hooks))
    }

    /// [`Snapshot::warnings`], given the hooks found and the files that will not run.
    fn warnings_for(&self, hooks: &[DiscoveredHook], not_run: &[FileReport]) -> Vec<String> {
        let unwatched = self.unwatched.as_deref().map(str::to_owned);
        let files = crate::diagnosis::run_warnings(
            self.hook_name(),
            &self.listings,
            not_run,
            hooks,
            &self.setup.platform,
        );
        self.policy
            .problem
            .iter()
            .cloned()
            .chain(unwatched)
            .chain(files)
            .collect()
    }

    /// The files meant for this hook that will not run, as the doctor reports them (see
    /// [`crate::diagnosis::run_reports`]), given the hooks found.
    fn not_run(&self, hooks: &[DiscoveredHook]) -> Vec<FileReport> {
        crate::diagnosis::run_reports(
            self.hook_name(),
            &self.listings,
            hooks,
            self.setup.layout.profile,
            &self.setup.platform,
        )
    }

    /// Whether the host requires this hook (`requireHooks`): by its name, in any letter case in
    /// the cli profile, whose files name their hook in any case.
    fn required(&self) -> bool {
        let layout = &self.setup.layout;
        let name = self.hook_name();
        match layout.profile {
            discovery::Profile::Cli => layout
                .require_hooks
                .iter()
                .any(|required| required.eq_ignore_ascii_case(name)),
            discovery::Profile::Extension => layout.require_hooks.contains(name),
        }
    }

    /// A runner for these hooks; its processes count against the factory's limit.
    pub fn runner(&self) -> Runner {
        let setup = &self.setup;
        let hooks = self.hooks_to_run();
        let not_run = self.not_run(&hooks);
        let warnings = self.warnings_for(&hooks, &not_run);
        Runner::new(
            self.name.clone(),
            hooks,
            setup.layout.workspace_roots.clone(),
            setup.limiter.clone(),
            setup.layout.profile,
        )
        .with_warnings(warnings)
        .with_required(self.required())
        .with_not_run(not_run.into())
        .with_policy(setup.layout.policy_file.clone().map(|file| RunnerPolicy {
            file,
            scope: setup.layout.trust,
            workspace_roots: setup.layout.workspace_roots.clone(),
            writes: self.policy.writes,
        }))
    }

    /// Whether `other` is this snapshot again: the same name read from the same scan result
    /// (a rescan that finds the folders unchanged keeps its predecessor's), so that what was
    /// built from one, such as a runner, serves for the other. Cheap: a pointer and a name
    /// are compared.
    pub fn same_as(&self, other: &Snapshot) -> bool {
        Arc::ptr_eq(&self.listings, &other.listings)
            && Arc::ptr_eq(&self.policy, &other.policy)
            && self.name == other.name
    }
}

/// What a rescan hands out: the listings and the policy store it read, and why its folders
/// are not watched, if so.
type Scanned = (Arc<Vec<Listing>>, Arc<Loaded>, Option<Arc<str>>);

/// The listings of the last rescan, as the factory keeps them.
struct Stored {
    /// When the rescan began: whatever changed after may be missing from it.
    taken: Instant,
    listings: Arc<Vec<Listing>>,
    /// The hooks whose files it inspected: it answers for these only.
    wanted: Arc<BTreeSet<String>>,
    /// Which rescan made it (1, 2, ...).
    generation: u64,
    /// The policy store it read, and how many changes this process had made to stores then.
    policy: Arc<Loaded>,
    policy_writes: u64,
    /// The watch's change count when the rescan began, and the refreshes asked for then.
    mark: Mark,
    refreshes: u64,
    unwatched: Option<Arc<str>>,
}

impl Stored {
    /// The freshness rule: whether these listings answer a call for `hook_name` (resolved) at
    /// `now`. They must hold that hook's files, and be younger than [`CACHE_TTL`] or, for a
    /// call that waited for the rescan in flight (`waited_for`: the last rescan it had seen),
    /// come from a later rescan however long it took: otherwise every waiter would rescan in
    /// turn, once per caller. A store changed by this process since (`policy_writes` is the
    /// count now), a change in a watched folder (`changed`) or a refresh since (`refreshes`
    /// is the count now) makes them stale in every case, for waiters too: a change made
    /// before a call began is never answered by a rescan that began before it. Pure: the
    /// caller reads the clock, the counts and the watch.
    fn answers(
        &self,
        hook_name: &str,
        now: Instant,
        waited_for: Option<u64>,
        policy_writes: u64,
        changed: bool,
        refreshes: u64,
    ) -> bool {
        self.wanted.contains(hook_name)
            && self.policy_writes == policy_writes
            && !changed
            && self.refreshes == refreshes
            && (now.saturating_duration_since(self.taken) < CACHE_TTL
                || waited_for.is_some_and(|seen| self.generation > seen))
    }
}

/// Cached discovery for one [`Layout`]: hands out [`Snapshot`]s, rescanning the folders at
/// most once per [`CACHE_TTL`], one rescan at a time, off the caller's thread.
pub struct Factory {
    setup: Arc<Setup>,
    /// The host's own Node binary, for `.js` hooks of the CLI profile.
    node: Option<PathBuf>,
    stored: Mutex<Option<Stored>>,
    /// Held by the one rescan in flight, until its blocking thread returns: callers on a
    /// stale snapshot wait for it instead of starting scans of their own, so a folder that
    /// hangs (a dead network filesystem) holds one thread, not one per call.
    scanning: Arc<tokio::sync::Mutex<()>>,
    /// What the last rescan listed, so an unchanged directory is not listed again.
    scanner: Mutex<Scanner>,
    /// The hooks asked for so far (Cline's own from the start): a rescan inspects their
    /// files only, so a folder of 100,000 other files, named like hooks or not, costs no
    /// more than its listing.
    wanted: Mutex<Arc<BTreeSet<String>>>,
    /// Rescans done so far.
    rescans: AtomicU64,
    /// The folders watched for the last rescan.
    watch: Watch,
    /// Refreshes asked for so far ([`Factory::refresh`]).
    refreshes: AtomicU64,
    /// Tests: how long each rescan takes at least (a folder slower than the snapshot's age).
    #[cfg(test)]
    slow_scan: Duration,
}

impl Factory {
    /// A factory for the folders of `layout`, with at most `max_processes` hook processes at
    /// once (`None`: the limit shared by every such factory, see [`shared_limiter`]). `node`
    /// is the host's own Node binary, used for `.js` hooks of the CLI profile. No I/O: the
    /// folders, files and interpreters are found by the first scan, off the caller's thread.
    pub fn new(layout: &Layout, max_processes: Option<usize>, node: Option<PathBuf>) -> Factory {
        Factory {
            setup: Arc::new(Setup {
                layout: layout.made_absolute(),
                platform: Platform::current(),
                limiter: max_processes.map(limiter).unwrap_or_else(shared_limiter),
            }),
            node,
            stored: Mutex::new(None),
            scanning: Arc::default(),
            scanner: Mutex::default(),
            wanted: Mutex::new(Arc::new(
                discovery::KNOWN_HOOKS
                    .iter()
                    .map(|h| (*h).to_owned())
                    .collect(),
            )),
            rescans: AtomicU64::new(0),
            watch: Watch::new(),
            refreshes: AtomicU64::new(0),
            #[cfg(test)]
            slow_scan: Duration::ZERO,
        }
    }

    /// Lets go of what the factory holds between calls (its watches, its last scan), for a
    /// host that is done with it: a later call works, scanning again from nothing.
    pub fn release(&self) {
        self.watch.release();
        *self.stored.lock().unwrap_or_else(|p| p.into_inner()) = None;
        *self.scanner.lock().unwrap_or_else(|p| p.into_inner()) = Scanner::default();
    }

    /// How many rescans this factory has done.
    pub fn rescans(&self) -> u64 {
        self.rescans.load(Ordering::Relaxed)
    }

    /// The snapshot for `hook_name` (a hook or CLI event name) if the stored one is fresh:
    /// no I/O, no system call, fit for the JavaScript thread. `None` means it is stale (or
    /// does not hold that hook's files yet): await [`Factory::snapshot`]. A name that is
    /// neither a hook name nor an event name is an error at once.
    pub fn snapshot_now(&self, hook_name: &str) -> Option<Result<Snapshot, HookError>> {
        let hook = match discovery::resolve(hook_name) {
            Ok(hook) => hook,
            Err(err) => return Some(Err(err)),
        };
        let Some(scanned) = self.stored_for(hook, None) else {
            tracing::trace!(hook, "discovery cache miss");
            return None;
        };
        tracing::trace!(hook, "discovery cache hit");
        Some(Ok(self.snapshot_of(hook_name, scanned)))
    }

    /// The snapshot for `hook_name`: the stored one if it is fresh ([`Factory::snapshot_now`]),
    /// else the result of a rescan on a blocking thread, never the caller's: the one in flight
    /// if there is one, else a new one. Gives up after `limit` (a folder that does not
    /// answer) with [`HookError::DiscoveryTimedOut`].
    pub async fn snapshot(
        self: &Arc<Self>,
        hook_name: &str,
        limit: Duration,
    ) -> Result<Snapshot, HookError> {
        if let Some(fresh) = self.snapshot_now(hook_name) {
            return fresh;
        }
        let hook = discovery::resolve(hook_name)?;
        let scanned = tokio::time::timeout(limit, self.rescan_once(hook))
            .await
            .map_err(|_| HookError::DiscoveryTimedOut {
                waited_ms: limit.as_millis(),
            })??;
        Ok(self.snapshot_of(hook_name, scanned))
    }

    /// Makes the stored snapshot stale and rescans the folders now (one rescan in flight
    /// serves: a rescan that began before this call does not), for Cline's own hooks and
    /// every name asked for so far. Gives up after `limit` like [`Factory::snapshot`].
    pub async fn refresh(self: &Arc<Self>, limit: Duration) -> Result<(), HookError> {
        self.refreshes.fetch_add(1, Ordering::AcqRel);
        self.snapshot(discovery::KNOWN_HOOKS[0], limit)
            .await
            .map(drop)
    }

    fn snapshot_of(&self, hook_name: &str, scanned: Scanned) -> Snapshot {
        let (listings, policy, unwatched) = scanned;
        Snapshot {
            name: hook_name.to_owned(),
            listings,
            policy,
            unwatched,
            setup: self.setup.clone(),
        }
    }

    /// The stored listings if they answer for `hook` now (see `Stored::answers`). The clock
    /// read is the vDSO's and the watch's check a read of memory, not system calls.
    fn stored_for(&self, hook: &str, waited_for: Option<u64>) -> Option<Scanned> {
        let now = Instant::now();
        let writes = self.policy_writes();
        let refreshes = self.refreshes.load(Ordering::Acquire);
        let guard = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .as_ref()
            .filter(|s| {
                let changed = self.watch.changed(s.mark);
                s.answers(hook, now, waited_for, writes, changed, refreshes)
            })
            .map(|s| (s.listings.clone(), s.policy.clone(), s.unwatched.clone()))
    }

    /// The changes this process has made to policy stores, if this factory reads one (one
    /// atomic load: no system call).
    fn policy_writes(&self) -> u64 {
        if self.setup.layout.policy_file.is_some() {
            policy::writes()
        } else {
            0
        }
    }

    /// Adds `hook` to the hooks a rescan inspects. Bounded: past [`WANTED_LIMIT`] names (a
    /// caller inventing names) the set starts over from Cline's own.
    fn want(&self, hook: &str) {
        let mut wanted = self.wanted.lock().unwrap_or_else(|p| p.into_inner());
        if wanted.contains(hook) {
            return;
        }
        let mut next: BTreeSet<String> = if wanted.len() >= WANTED_LIMIT {
            discovery::KNOWN_HOOKS
                .iter()
                .map(|h| (*h).to_owned())
                .collect()
        } else {
            (**wanted).clone()
        };
        next.insert(hook.to_owned());
        *wanted = Arc::new(next);
    }

    /// The listings of a rescan that answers a call for `hook` that found the snapshot stale:
    /// the one in flight if there is one, else a new one. A rescan that ends while this call
    /// waits answers it even if it took longer than [`CACHE_TTL`] (see `Stored::answers`).
    async fn rescan_once(self: &Arc<Self>, hook: &str) -> Result<Scanned, HookError> {
        self.want(hook);
        let waited_for = self.generation();
        let turn = self.scanning.clone().lock_owned().await;
        if let Some(scanned) = self.stored_for(hook, Some(waited_for)) {
            return Ok(scanned);
        }
        // On the blocking pool; refused a thread there, the scan is given up (and its turn
        // with it, so the next call can scan) rather than run on an async worker, where a
        // folder that does not answer would hold the worker.
        let this = self.clone();
        let scan = crate::blocking::spawn(move || {
            let _turn = turn;
            this.rescan()
        })
        .map_err(|refused| HookError::NoThread {
            what: "read the hooks folders",
            reason: refused.reason,
        })?;
        match scan.await {
            Ok(Some(scanned)) => Ok(scanned),
            Ok(None) => Err(HookError::Internal(
                "the scan of the hooks folders was taken back from the blocking pool".into(),
            )),
            Err(e) => Err(HookError::Internal(format!("discovery failed: {e}"))),
        }
    }

    /// Which rescan made the stored listings (0: none yet).
    fn generation(&self) -> u64 {
        let guard = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map_or(0, |s| s.generation)
    }

    /// Rescans (blocking I/O) and stores the listings: the default folders (`CLINE_DIR`,
    /// `HOME`, Documents) are read again, so every factory, shared or not, follows them
    /// within [`CACHE_TTL`]; every hook file's interpreter is looked up on PATH here, so
    /// that nothing built from the snapshot asks the system again. Listings equal to the
    /// stored ones are kept as they are, so snapshots stay [`Snapshot::same_as`] the last.
    fn rescan(&self) -> Scanned {
        let taken = Instant::now();
        let generation = self.rescans.fetch_add(1, Ordering::Relaxed) + 1;
        let setup = &self.setup;
        // Counted before the store is read: a change made while it is read leaves this
        // snapshot stale.
        let policy_writes = self.policy_writes();
        let mut loaded = setup
            .layout
            .policy_file
            .as_deref()
            .map(|file| policy::load(file, &setup.layout.workspace_roots))
            .unwrap_or_default();
        loaded.writes = policy_writes;
        let refreshes = self.refreshes.load(Ordering::Acquire);
        let dirs = discovery::hook_dirs(&setup.layout, &Defaults::find());
        tracing::debug!(
            generation,
            folders = dirs.len(),
            "rescanning the hooks folders"
        );
        // Watched before they are read: a change from here on makes this snapshot stale.
        let (mark, unwatched) = self
            .watch
            .follow(&discovery::watched_dirs(&dirs), CACHE_TTL);
        if let Some(why) = &unwatched {
            tracing::warn!("{why}");
        }
        let mut machine = LiveMachine::default();
        let windows = matches!(setup.platform, Platform::Windows { .. });
        let mut tools = Interpreters::new(&mut machine, self.node.clone(), windows);
        let wanted = self
            .wanted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let scanned = self.scanner.lock().unwrap_or_else(|p| p.into_inner()).scan(
            dirs,
            &wanted,
            setup.layout.profile,
            &setup.platform,
            &mut tools,
        );
        #[cfg(test)]
        std::thread::sleep(self.slow_scan);
        let mut guard = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        let listings = match guard.as_ref() {
            Some(previous) if *previous.listings == scanned => previous.listings.clone(),
            _ => Arc::new(scanned),
        };
        let policy = match guard.as_ref() {
            Some(previous) if *previous.policy == loaded => previous.policy.clone(),
            _ => Arc::new(loaded),
        };
        *guard = Some(Stored {
            taken,
            listings: listings.clone(),
            wanted,
            generation,
            policy: policy.clone(),
            policy_writes,
            mark,
            refreshes,
            unwatched: unwatched.clone().map(Arc::from),
        });
        (listings, policy, unwatched.map(Arc::from))
    }

    /// Tests: makes the stored snapshot as old as [`CACHE_TTL`], so the next call rescans.
    #[cfg(all(test, unix))]
    fn age(&self) {
        let mut guard = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(stored) = guard.as_mut() {
            stored.taken = stored
                .taken
                .checked_sub(CACHE_TTL)
                .expect("a clock past its TTL");
        }
    }
}

/// The freshness rule and the snapshot's names: no file system needed.
#[cfg(test)]
mod rule_tests {
    use super::*;

    #[test]
    fn a_snapshot_answers_for_the_hooks_it_inspected_while_young_or_for_its_waiters() {
        let taken = Instant::now();
        let stored = Stored {
            taken,
            listings: Arc::default(),
            wanted: Arc::new(["TaskStart".to_owned()].into()),
            generation: 2,
            policy: Arc::default(),
            policy_writes: 0,
            mark: Mark::Unwatched,
            refreshes: 0,
            unwatched: None,
        };
        let just_before = taken + CACHE_TTL - Duration::from_nanos(1);
        assert!(stored.answers("TaskStart", taken, None, 0, false, 0));
        assert!(stored.answers("TaskStart", just_before, None, 0, false, 0));
        assert!(
            !stored.answers("TaskStart", taken + CACHE_TTL, None, 0, false, 0),
            "stale"
        );
        assert!(
            !stored.answers("PreToolUse", taken, None, 0, false, 0),
            "it did not inspect that hook's files"
        );
        // A call that waited while rescan 2 ran takes its result, however long it took.
        let late = taken + CACHE_TTL * 10;
        assert!(stored.answers("TaskStart", late, Some(1), 0, false, 0));
        assert!(
            !stored.answers("TaskStart", late, Some(2), 0, false, 0),
            "not a later rescan"
        );
        assert!(!stored.answers("PreToolUse", late, Some(1), 0, false, 0));
        // A change this process made to the policy store since: stale, even for a waiter.
        assert!(!stored.answers("TaskStart", taken, None, 1, false, 0));
        assert!(!stored.answers("TaskStart", late, Some(1), 1, false, 0));
        // A change in a watched folder, or a refresh, since: stale, even young, even for a
        // waiter (the rescan it waited for may have begun before the change).
        assert!(!stored.answers("TaskStart", taken, None, 0, true, 0));
        assert!(!stored.answers("TaskStart", late, Some(1), 0, true, 0));
        assert!(!stored.answers("TaskStart", taken, None, 0, false, 1));
        assert!(!stored.answers("TaskStart", late, Some(1), 0, false, 1));
    }

    #[test]
    fn a_snapshot_for_an_event_name_reads_its_hook_and_keeps_the_event_for_the_runner() {
        let factory = Factory::new(&Layout::default(), None, None);
        let listings: Arc<Vec<Listing>> = Arc::default();
        let event_policy: Arc<Loaded> = Arc::default();
        let event =
            factory.snapshot_of("tool_call", (listings.clone(), event_policy.clone(), None));
        assert_eq!(
            (event.name(), event.hook_name()),
            ("tool_call", "PreToolUse")
        );
        assert_eq!(event.runner().hook_name, "tool_call");
        let hook = factory.snapshot_of("PreToolUse", (listings.clone(), Arc::default(), None));
        assert_eq!(
            (hook.name(), hook.hook_name()),
            ("PreToolUse", "PreToolUse")
        );
        let listings_again = listings.clone();
        assert!(event
            .same_as(&factory.snapshot_of("tool_call", (listings, event_policy.clone(), None))));
        assert!(!event.same_as(&hook), "another name");
        assert!(!event
            .same_as(&factory.snapshot_of("tool_call", (Arc::default(), Arc::default(), None))));
        assert!(
            !event
                .same_as(&factory.snapshot_of("tool_call", (listings_again, Arc::default(), None))),
            "another policy store read"
        );
    }

    #[test]
    fn a_bad_name_is_an_error_at_once_and_a_stale_snapshot_is_none() {
        let factory = Factory::new(&Layout::default(), None, None);
        let err = factory
            .snapshot_now("Pre.ToolUse")
            .expect("answered")
            .unwrap_err();
        assert!(matches!(err, HookError::InvalidHookName { .. }), "{err}");
        assert!(
            factory.snapshot_now("PreToolUse").is_none(),
            "nothing scanned yet"
        );
        assert_eq!(factory.rescans(), 0);
    }
}

// Unix: the hook file is made executable with Unix permissions.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::discovery::GlobalDir;

    /// A fresh empty folder, `hooks` in a folder of its own under the system temp dir, both
    /// removed on drop. Not directly in the temp dir: the watch follows a hooks folder's
    /// parent, and other tests creating folders there would make the snapshot stale.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            // No spaces: the path goes into a `#!` line.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let dir = std::env::temp_dir()
                .join(format!(
                    "cline-hooks-factory-{tag}-{}-{nanos}",
                    std::process::id()
                ))
                .join("hooks");
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            if let Some(own) = self.0.parent() {
                let _ = std::fs::remove_dir_all(own);
            }
        }
    }

    fn factory_for(dir: &TempDir) -> Arc<Factory> {
        let layout = Layout {
            extra_hooks_dirs: vec![dir.0.clone()],
            global_hooks_dir: GlobalDir::Off,
            ..Layout::default()
        };
        Arc::new(Factory::new(&layout, None, None))
    }

    fn add_hook(dir: &TempDir) {
        use std::os::unix::fs::PermissionsExt;
        let file = dir.0.join("TaskStart");
        std::fs::write(&file, "#!/bin/sh\necho '{}'\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// A rescan stuck in the kernel holds the scan turn until its thread returns; here the
    /// turn is held by the test instead. Callers give up at their limit with a typed error,
    /// start no scan of their own, and are served as soon as the turn is free again.
    #[tokio::test]
    async fn callers_waiting_on_a_rescan_that_does_not_return_give_up_at_their_limit() {
        let dir = TempDir::new("stuck");
        add_hook(&dir);
        let factory = factory_for(&dir);
        let stuck = factory.scanning.clone().lock_owned().await;
        let started = Instant::now();
        let waiting: Vec<_> = (0..4)
            .map(|_| {
                let factory = factory.clone();
                tokio::spawn(async move {
                    factory
                        .snapshot("TaskStart", Duration::from_millis(200))
                        .await
                })
            })
            .collect();
        for waiter in waiting {
            let err = waiter.await.unwrap().unwrap_err();
            assert_eq!(err, HookError::DiscoveryTimedOut { waited_ms: 200 });
            assert!(err.to_string().contains("does not answer"), "{err}");
        }
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(factory.rescans(), 0, "no caller scanned on its own");
        drop(stuck);
        let snapshot = factory
            .snapshot("TaskStart", Duration::from_millis(2000))
            .await
            .unwrap();
        assert_eq!(snapshot.hooks().len(), 1);
    }

    /// Issue 18 item 6: callers that find the snapshot stale while a rescan runs take that
    /// rescan's result, even when the rescan takes longer than the snapshot's age (before,
    /// each waiter rescanned in turn: 16 calls, 16 rescans one after another).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_calls_on_a_stale_snapshot_share_one_rescan_even_a_slow_one() {
        let dir = TempDir::new("single-flight");
        add_hook(&dir);
        let layout = Layout {
            extra_hooks_dirs: vec![dir.0.clone()],
            global_hooks_dir: GlobalDir::Off,
            ..Layout::default()
        };
        let mut factory = Factory::new(&layout, None, None);
        factory.slow_scan = CACHE_TTL * 2;
        let factory = Arc::new(factory);
        factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert_eq!(factory.rescans(), 1);
        factory.age();
        assert!(factory.snapshot_now("TaskStart").is_none(), "stale");

        let started = Instant::now();
        let calls: Vec<_> = (0..16)
            .map(|_| {
                let factory = factory.clone();
                tokio::spawn(async move { factory.snapshot("TaskStart", DISCOVERY_LIMIT).await })
            })
            .collect();
        for call in calls {
            assert_eq!(call.await.unwrap().unwrap().hooks().len(), 1);
        }
        assert_eq!(factory.rescans(), 2, "one rescan served all 16 calls");
        assert!(
            started.elapsed() < CACHE_TTL * 2 * 4,
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn a_fresh_snapshot_answers_without_scanning_and_a_stale_one_is_rescanned() {
        let dir = TempDir::new("cache");
        let factory = factory_for(&dir);
        assert!(
            factory.snapshot_now("TaskStart").is_none(),
            "nothing scanned yet"
        );
        let first = factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert!(first.hooks().is_empty());
        assert_eq!(factory.rescans(), 1);

        // While nothing changes, the calls do not scan.
        let cached = factory.snapshot_now("TaskStart").expect("fresh").unwrap();
        assert!(cached.same_as(&first));
        let awaited = factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert!(awaited.same_as(&first) && factory.rescans() == 1);

        // A hook added now makes the snapshot stale at once where the folder is watched
        // (Linux), else once it is past its age: the next call rescans and sees it.
        add_hook(&dir);
        if cfg!(not(target_os = "linux")) {
            factory.age();
        }
        assert!(factory.snapshot_now("TaskStart").is_none(), "stale");
        let rescanned = factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert_eq!(rescanned.hooks().len(), 1);
        assert!(!rescanned.same_as(&first));
    }

    /// A hook asked for by another name than Cline's own is inspected from the next rescan on.
    #[tokio::test]
    async fn a_snapshot_answers_only_for_the_hooks_whose_files_it_inspected() {
        let dir = TempDir::new("wanted");
        let file = dir.0.join("FutureHook");
        std::fs::write(&file, "#!/bin/sh\necho '{}'\n").unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let factory = factory_for(&dir);
        factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert!(factory.snapshot_now("TaskStart").is_some());
        assert!(
            factory.snapshot_now("FutureHook").is_none(),
            "not inspected"
        );
        let future = factory
            .snapshot("FutureHook", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert_eq!(future.hooks().len(), 1);
        assert_eq!(factory.rescans(), 2);
    }

    #[test]
    fn a_runner_built_from_a_snapshot_uses_the_interpreters_the_scan_resolved() {
        use crate::discovery::Profile;
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("interp");
        let interpreter = dir.0.join("bin").join("myinterp");
        std::fs::create_dir_all(interpreter.parent().unwrap()).unwrap();
        std::fs::write(&interpreter, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&interpreter, std::fs::Permissions::from_mode(0o755)).unwrap();
        let hooks = dir.0.join("hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        let hook = hooks.join("TaskStart.sh");
        std::fs::write(&hook, format!("#!{}\necho '{{}}'\n", interpreter.display())).unwrap();
        let layout = Layout {
            extra_hooks_dirs: vec![hooks],
            global_hooks_dir: GlobalDir::Off,
            profile: Profile::Cli,
            ..Layout::default()
        };
        let factory = Factory::new(&layout, None, None);
        let snapshot = {
            let scanned = factory.rescan();
            factory.snapshot_of("TaskStart", scanned)
        };

        // The interpreter disappears after the scan: a runner built from that snapshot must
        // not look again (that would be a system call on the JavaScript thread), so it still
        // carries the argv the scan resolved.
        std::fs::remove_file(&interpreter).unwrap();
        let runner = snapshot.runner();
        assert_eq!(runner.hooks.len(), 1);
        assert_eq!(runner.hooks[0].launch_error, None);
        assert_eq!(
            runner.hooks[0].command,
            vec![interpreter.into_os_string(), hook.into_os_string()]
        );

        // The next scan sees that it is gone: the CLI lists the hook disabled, saying why.
        let runner = {
            let scanned = factory.rescan();
            factory.snapshot_of("TaskStart", scanned)
        }
        .runner();
        let why = runner.hooks[0].disabled.clone().unwrap_or_default();
        assert!(why.contains("which does not exist"), "{why}");
        assert!(runner.hooks[0].command.is_empty() && runner.hooks[0].launch_error.is_none());
    }

    #[tokio::test]
    async fn an_unchanged_rescan_keeps_the_same_snapshot() {
        let dir = TempDir::new("same");
        add_hook(&dir);
        let factory = factory_for(&dir);
        let first = factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        factory.age();
        let second = factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert_eq!(factory.rescans(), 2);
        // The same: callers that cache what they built from it (runner objects) keep it.
        assert!(second.same_as(&first));
    }

    /// Issue 15 item 5: on Linux a change in a watched folder is seen by the very next call,
    /// with no wait: created, chmod-ed, edited, renamed, deleted, and the folder itself
    /// created in a workspace that had none.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn every_change_in_a_watched_folder_is_seen_by_the_next_call() {
        use std::os::unix::fs::PermissionsExt;
        let root = TempDir::new("instant");
        let layout = Layout {
            workspace_roots: vec![root.0.clone()],
            global_hooks_dir: GlobalDir::Off,
            ..Layout::default()
        };
        let factory = Arc::new(Factory::new(&layout, None, None));
        let count = |factory: &Arc<Factory>| {
            let factory = factory.clone();
            async move {
                match factory.snapshot_now("TaskStart") {
                    Some(fresh) => (fresh.unwrap().hooks().len(), false),
                    None => {
                        let snapshot = factory.snapshot("TaskStart", DISCOVERY_LIMIT).await;
                        (snapshot.unwrap().hooks().len(), true)
                    }
                }
            }
        };
        assert_eq!(count(&factory).await, (0, true));
        assert_eq!(count(&factory).await, (0, false), "fresh: no rescan");
        let hooks = root.0.join(".clinerules").join("hooks");
        let file = hooks.join("TaskStart");
        for round in 0..50 {
            std::fs::create_dir_all(&hooks).unwrap();
            std::fs::write(&file, "#!/bin/sh\necho '{}'\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(count(&factory).await, (1, true), "created, round {round}");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            let (found, rescanned) = count(&factory).await;
            assert!(rescanned, "chmod -x, round {round}");
            assert_eq!(found, 1, "listed, disabled");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert!(count(&factory).await.1, "chmod +x, round {round}");
            std::fs::write(&file, format!("#!/bin/sh\necho '{{}}' # {round}\n")).unwrap();
            assert!(count(&factory).await.1, "edited, round {round}");
            std::fs::rename(&file, hooks.join("Other")).unwrap();
            assert_eq!(count(&factory).await, (0, true), "renamed, round {round}");
            std::fs::remove_file(hooks.join("Other")).unwrap();
            assert!(count(&factory).await.1, "deleted, round {round}");
            std::fs::remove_dir_all(root.0.join(".clinerules")).unwrap();
            assert_eq!(
                count(&factory).await,
                (0, true),
                "folder gone, round {round}"
            );
        }
    }

    /// `refresh` rescans even when nothing changed, and the watches of dropped factories
    /// are let go (the process keeps one inotify instance whatever their number).
    #[tokio::test]
    async fn refresh_rescans_and_dropped_factories_let_go_of_their_watches() {
        let dir = TempDir::new("refresh");
        add_hook(&dir);
        let factory = factory_for(&dir);
        factory
            .snapshot("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap();
        assert!(factory.snapshot_now("TaskStart").is_some());
        factory.refresh(DISCOVERY_LIMIT).await.unwrap();
        assert_eq!(factory.rescans(), 2);
        assert!(factory.snapshot_now("TaskStart").is_some(), "fresh again");
        #[cfg(target_os = "linux")]
        {
            // The inodes the process's inotify instance watches (fdinfo names them in hex).
            let watched = || {
                let mut inodes = Vec::new();
                for fd in std::fs::read_dir("/proc/self/fdinfo").unwrap().flatten() {
                    let info = std::fs::read_to_string(fd.path()).unwrap_or_default();
                    for line in info.lines().filter(|l| l.starts_with("inotify wd:")) {
                        let ino = line.split_whitespace().find_map(|w| w.strip_prefix("ino:"));
                        inodes.extend(ino.and_then(|i| u64::from_str_radix(i, 16).ok()));
                    }
                }
                inodes
            };
            let mut dirs = Vec::new();
            for _ in 0..20 {
                use std::os::unix::fs::MetadataExt;
                let dir = TempDir::new("many");
                let other = factory_for(&dir);
                other.snapshot("TaskStart", DISCOVERY_LIMIT).await.unwrap();
                let ino = std::fs::metadata(&dir.0).unwrap().ino();
                assert!(watched().contains(&ino), "watched while the factory lives");
                drop(other);
                assert!(!watched().contains(&ino), "let go when it is dropped");
                dirs.push(dir);
            }
        }
    }

    /// The change made on another thread, the check on this one right after it says so:
    /// the completion is posted to this thread's own poll before it returns to user space.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_change_made_on_another_thread_is_seen_by_the_next_check_here() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("threads");
        add_hook(&dir);
        let file = dir.0.join("TaskStart");
        let factory = factory_for(&dir);
        let (ask, asked) = std::sync::mpsc::channel::<u32>();
        let (tell, told) = std::sync::mpsc::channel::<()>();
        let changer = std::thread::spawn(move || {
            for mode in asked {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
                tell.send(()).unwrap();
            }
        });
        for round in 0..500 {
            factory.rescan();
            assert!(
                factory.snapshot_now("TaskStart").is_some(),
                "fresh, round {round}"
            );
            ask.send(if round % 2 == 0 { 0o644 } else { 0o755 })
                .unwrap();
            told.recv().unwrap();
            assert!(
                factory.snapshot_now("TaskStart").is_none(),
                "chmod on another thread not seen, round {round}"
            );
        }
        drop(ask);
        changer.join().unwrap();
    }
}
