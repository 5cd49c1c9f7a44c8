//! Cached discovery: hands out runners without scanning directories on every call.
//!
//! Revalidation is by age: a snapshot of the hooks directories is reused for
//! [`CACHE_TTL`], then rescanned: one `stat` per directory (plus a `readdir` if it changed,
//! see [`discovery::Scanner`]), one `open` and read per entry named like a hook, the default
//! folders and the interpreters found again. One rescan runs at a time per factory; calls
//! that find the snapshot stale meanwhile wait for it and take its result.
//! A hook added, removed or chmod-ed is therefore seen within that time, with no watcher
//! threads or inotify limits, and a warm call makes no system call at all.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::discovery::{self, Defaults, DiscoveredHook, Layout, Listing, Platform, Scanner};
use crate::error::HookError;
use crate::event::{Runner, DEFAULT_TIMEOUT};
use crate::launch::{Interpreters, LiveMachine};
use crate::process::KILL_GRACE;

/// How long a run with hook timeout `timeout` may wait for discovery: the timeout plus the
/// kill grace, the same bound as for stopping a hook.
pub const fn discovery_limit(timeout: Duration) -> Duration {
    timeout.saturating_add(KILL_GRACE)
}

/// How long discovery may take outside a run (`discoverHooks`, `hasHook`, `create`): as for a
/// run with the default timeout.
pub const DISCOVERY_LIMIT: Duration = discovery_limit(DEFAULT_TIMEOUT);

/// How long a discovery snapshot is trusted.
pub const CACHE_TTL: Duration = Duration::from_millis(250);

/// How many hook names one factory inspects files for before it starts over from Cline's own.
const WANTED_LIMIT: usize = 256;

/// Default limit on hook processes running at once per limiter: 8 per core, at least 8.
pub fn default_process_limit() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get() * 8)
        .unwrap_or(8)
        .max(8)
}

/// The limiter shared by every call that sets no limit of its own.
pub fn shared_limiter() -> Arc<Semaphore> {
    static SHARED: std::sync::OnceLock<Arc<Semaphore>> = std::sync::OnceLock::new();
    SHARED
        .get_or_init(|| Arc::new(Semaphore::new(default_process_limit())))
        .clone()
}

/// The factory for `layout`, shared by every call that names the same directories, so that
/// one-shot calls (`runHook`) get the same cached discovery as a long-lived factory.
pub fn shared(
    layout: &Layout,
    max_processes: Option<usize>,
    node: Option<PathBuf>,
) -> Arc<Factory> {
    type Key = (Layout, Option<usize>);
    static SHARED: std::sync::OnceLock<Mutex<std::collections::HashMap<Key, Arc<Factory>>>> =
        std::sync::OnceLock::new();
    let mut map = SHARED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let key = (layout.clone(), max_processes);
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

struct Snapshot {
    taken: Instant,
    listings: Arc<Vec<Listing>>,
    /// The hooks whose files it inspected: it answers for these only.
    wanted: Arc<BTreeSet<String>>,
    /// Which rescan made it (1, 2, ...).
    generation: u64,
}

pub struct Factory {
    layout: Layout,
    /// The host's own Node binary, for `.js` hooks of the CLI profile.
    node: Option<PathBuf>,
    platform: Platform,
    limiter: Arc<Semaphore>,
    snapshot: Mutex<Option<Snapshot>>,
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
    /// Tests: how long each rescan takes at least (a folder slower than the snapshot's age).
    #[cfg(test)]
    slow_scan: Duration,
}

impl Factory {
    /// No I/O: the folders, files and interpreters are found by the first scan, off the
    /// caller's thread. `node` is the host's own Node binary, used for `.js` hooks of the CLI
    /// profile.
    pub fn new(layout: &Layout, max_processes: Option<usize>, node: Option<PathBuf>) -> Factory {
        Factory {
            layout: layout.clone(),
            node,
            platform: Platform::current(),
            limiter: max_processes
                .map(|n| Arc::new(Semaphore::new(n)))
                .unwrap_or_else(shared_limiter),
            snapshot: Mutex::new(None),
            scanning: Arc::default(),
            scanner: Mutex::default(),
            wanted: Mutex::new(Arc::new(
                discovery::KNOWN_HOOKS
                    .iter()
                    .map(|h| (*h).to_owned())
                    .collect(),
            )),
            rescans: AtomicU64::new(0),
            #[cfg(test)]
            slow_scan: Duration::ZERO,
        }
    }

    /// How many rescans this factory has done.
    pub fn rescans(&self) -> u64 {
        self.rescans.load(Ordering::Relaxed)
    }

    /// The listings if the snapshot is still fresh and answers for `hook_name` (as given:
    /// a CLI event name stands for its hook); no I/O. While the hooks directories are
    /// unchanged this is the same `Arc` from one refresh to the next, so callers may cache
    /// what they derive from it and compare with `Arc::ptr_eq`.
    pub fn fresh_listings_for(&self, hook_name: &str) -> Option<Arc<Vec<Listing>>> {
        let hook_name = discovery::resolve(hook_name).ok()?;
        let guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .as_ref()
            .filter(|s| s.taken.elapsed() < CACHE_TTL && s.wanted.contains(hook_name))
            .map(|s| s.listings.clone())
    }

    /// Adds `hook_name` to the hooks a rescan inspects. Bounded: past [`WANTED_LIMIT`]
    /// names (a caller inventing names) the set starts over from Cline's own.
    fn want(&self, hook_name: &str) {
        let mut wanted = self.wanted.lock().unwrap_or_else(|p| p.into_inner());
        if wanted.contains(hook_name) {
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
        next.insert(hook_name.to_owned());
        *wanted = Arc::new(next);
    }

    /// The listings if the snapshot is still fresh, whichever hooks it answers for.
    #[cfg(test)]
    pub fn fresh_listings(&self) -> Option<Arc<Vec<Listing>>> {
        let guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .as_ref()
            .filter(|s| s.taken.elapsed() < CACHE_TTL)
            .map(|s| s.listings.clone())
    }

    /// Rescans (blocking I/O) and stores the snapshot: the default folders (`CLINE_DIR`,
    /// `HOME`, Documents) are read again, so every factory, shared or not, follows them
    /// within [`CACHE_TTL`]; every hook file's interpreter is looked up on PATH here, so
    /// that nothing built from the snapshot asks the system again.
    fn rescan(&self) -> Arc<Vec<Listing>> {
        let taken = Instant::now();
        let generation = self.rescans.fetch_add(1, Ordering::Relaxed) + 1;
        let dirs = discovery::hook_dirs(&self.layout, &Defaults::find());
        let mut machine = LiveMachine::default();
        let windows = matches!(self.platform, Platform::Windows { .. });
        let mut tools = Interpreters::new(&mut machine, self.node.clone(), windows);
        let wanted = self
            .wanted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let scanned = self.scanner.lock().unwrap_or_else(|p| p.into_inner()).scan(
            dirs,
            &wanted,
            self.layout.profile,
            &self.platform,
            &mut tools,
        );
        #[cfg(test)]
        std::thread::sleep(self.slow_scan);
        let mut guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        let listings = match guard.as_ref() {
            Some(previous) if *previous.listings == scanned => previous.listings.clone(),
            _ => Arc::new(scanned),
        };
        *guard = Some(Snapshot {
            taken,
            listings: listings.clone(),
            wanted,
            generation,
        });
        listings
    }

    /// The snapshot of a rescan that finished after rescan number `generation` and answers
    /// for `hook_name`, if any.
    fn scanned_after(&self, generation: u64, hook_name: &str) -> Option<Arc<Vec<Listing>>> {
        let guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .as_ref()
            .filter(|s| s.generation > generation && s.wanted.contains(hook_name))
            .map(|s| s.listings.clone())
    }

    fn generation(&self) -> u64 {
        let guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map_or(0, |s| s.generation)
    }

    /// The hooks named `hook_name`, enabled or not, in run order. Scans only when the snapshot
    /// is stale, and then on a blocking thread, never on the caller's; gives up after `limit`
    /// (a folder that does not answer) with [`HookError::DiscoveryTimedOut`].
    pub async fn discover(
        self: &Arc<Self>,
        hook_name: &str,
        limit: Duration,
    ) -> Result<Vec<DiscoveredHook>, HookError> {
        let hook_name = discovery::resolve(hook_name)?;
        let listings = match self.fresh_listings_for(hook_name) {
            Some(listings) => listings,
            None => tokio::time::timeout(limit, self.rescan_once(hook_name))
                .await
                .map_err(|_| HookError::DiscoveryTimedOut {
                    waited_ms: limit.as_millis(),
                })??,
        };
        Ok(self.pick(hook_name, &listings))
    }

    /// A fresh snapshot: the one a rescan in flight produces, or a new rescan. A rescan that
    /// ends while this call waits counts as fresh for it even if it took longer than
    /// [`CACHE_TTL`]: otherwise every waiter would rescan in turn, once per caller.
    async fn rescan_once(
        self: &Arc<Self>,
        hook_name: &str,
    ) -> Result<Arc<Vec<Listing>>, HookError> {
        self.want(hook_name);
        let waited_from = self.generation();
        let turn = self.scanning.clone().lock_owned().await;
        if let Some(listings) = self
            .fresh_listings_for(hook_name)
            .or_else(|| self.scanned_after(waited_from, hook_name))
        {
            return Ok(listings);
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            this.rescan()
        })
        .await
        .map_err(|e| HookError::Internal(format!("discovery failed: {e}")))
    }

    /// Discovery from the cached snapshot alone, when it is fresh: no I/O, no system call.
    /// `None` means the snapshot is stale and `discover` must be awaited.
    pub fn discover_cached(
        &self,
        hook_name: &str,
    ) -> Option<Result<Vec<DiscoveredHook>, HookError>> {
        let hook_name = match discovery::resolve(hook_name) {
            Ok(name) => name,
            Err(err) => return Some(Err(err)),
        };
        let listings = self.fresh_listings_for(hook_name)?;
        Some(Ok(self.pick(hook_name, &listings)))
    }

    /// Pure: the snapshot already holds every resolved argv.
    fn pick(&self, hook_name: &str, listings: &[Listing]) -> Vec<DiscoveredHook> {
        discovery::discover(hook_name, listings, self.layout.profile, &self.platform)
    }

    /// The runner for `hook_name`, discovering within `limit` (see `discover`).
    pub async fn runner(
        self: &Arc<Self>,
        hook_name: &str,
        limit: Duration,
    ) -> Result<Runner, HookError> {
        let hooks = self.discover(hook_name, limit).await?;
        Ok(self.runner_for(hook_name, hooks))
    }

    /// `runner` from the cached snapshot alone (see `discover_cached`).
    pub fn runner_cached(&self, hook_name: &str) -> Option<Result<Runner, HookError>> {
        let listings = self.fresh_listings_for(hook_name)?;
        Some(self.runner_from(hook_name, &listings))
    }

    /// The runner for `hook_name` in a given snapshot (from `fresh_listings`); no system call.
    pub fn runner_from(&self, hook_name: &str, listings: &[Listing]) -> Result<Runner, HookError> {
        let resolved = discovery::resolve(hook_name)?;
        Ok(self.runner_for(hook_name, self.pick(resolved, listings)))
    }

    fn runner_for(&self, hook_name: &str, hooks: Vec<DiscoveredHook>) -> Runner {
        Runner::new(
            hook_name.to_owned(),
            hooks,
            self.layout.workspace_roots.clone(),
            self.limiter.clone(),
            self.layout.profile,
        )
    }
}

// Unix: the hook file is made executable with Unix permissions.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::discovery::GlobalDir;

    /// A fresh empty folder under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            // No spaces: the path goes into a `#!` line.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let dir = std::env::temp_dir().join(format!(
                "cline-hooks-factory-{tag}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
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
                        .runner("TaskStart", Duration::from_millis(200))
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
        assert!(
            factory.fresh_listings().is_none(),
            "no caller scanned on its own"
        );
        drop(stuck);
        let runner = factory
            .runner("TaskStart", Duration::from_millis(2000))
            .await
            .unwrap();
        assert_eq!(runner.hooks.len(), 1);
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
        factory.runner("TaskStart", DISCOVERY_LIMIT).await.unwrap();
        assert_eq!(factory.rescans(), 1);
        tokio::time::sleep(CACHE_TTL + Duration::from_millis(20)).await;
        assert!(factory.fresh_listings().is_none(), "stale");

        let started = Instant::now();
        let calls: Vec<_> = (0..16)
            .map(|_| {
                let factory = factory.clone();
                tokio::spawn(async move { factory.runner("TaskStart", DISCOVERY_LIMIT).await })
            })
            .collect();
        for call in calls {
            assert_eq!(call.await.unwrap().unwrap().hooks.len(), 1);
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
        assert!(factory.fresh_listings().is_none(), "nothing scanned yet");
        assert!(factory
            .runner("TaskStart", DISCOVERY_LIMIT)
            .await
            .unwrap()
            .hooks
            .is_empty());
        let first = factory
            .fresh_listings()
            .expect("a snapshot after the first scan");

        // A hook added now is not seen while the snapshot is fresh: the calls did not scan.
        add_hook(&dir);
        let cached = factory.runner_cached("TaskStart").expect("fresh").unwrap();
        assert!(cached.hooks.is_empty());
        assert!(Arc::ptr_eq(&first, &factory.fresh_listings().unwrap()));

        // Past the snapshot's age the next call rescans and sees it.
        tokio::time::sleep(CACHE_TTL + Duration::from_millis(20)).await;
        assert!(factory.runner_cached("TaskStart").is_none(), "stale");
        assert_eq!(
            factory
                .runner("TaskStart", DISCOVERY_LIMIT)
                .await
                .unwrap()
                .hooks
                .len(),
            1
        );
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
        let snapshot = factory.rescan();

        // The interpreter disappears after the scan: a runner built from that snapshot must
        // not look again (that would be a system call on the JavaScript thread), so it still
        // carries the argv the scan resolved.
        std::fs::remove_file(&interpreter).unwrap();
        let runner = factory.runner_from("TaskStart", &snapshot).unwrap();
        assert_eq!(runner.hooks.len(), 1);
        assert_eq!(runner.hooks[0].launch_error, None);
        assert_eq!(
            runner.hooks[0].command,
            vec![interpreter.into_os_string(), hook.into_os_string()]
        );

        // The next scan sees that it is gone: the CLI lists the hook disabled, saying why.
        let rescanned = factory.rescan();
        let runner = factory.runner_from("TaskStart", &rescanned).unwrap();
        let why = runner.hooks[0].disabled.clone().unwrap_or_default();
        assert!(why.contains("which does not exist"), "{why}");
        assert!(runner.hooks[0].command.is_empty() && runner.hooks[0].launch_error.is_none());
    }

    #[tokio::test]
    async fn an_unchanged_rescan_keeps_the_same_snapshot() {
        let dir = TempDir::new("same");
        add_hook(&dir);
        let factory = factory_for(&dir);
        factory.runner("TaskStart", DISCOVERY_LIMIT).await.unwrap();
        let first = factory.fresh_listings().unwrap();
        tokio::time::sleep(CACHE_TTL + Duration::from_millis(20)).await;
        factory.runner("TaskStart", DISCOVERY_LIMIT).await.unwrap();
        // Same Arc: callers that cache what they derived from it (runner objects) keep it.
        assert!(Arc::ptr_eq(&first, &factory.fresh_listings().unwrap()));
    }
}
