//! Cached discovery: hands out runners without scanning directories on every call.
//!
//! Revalidation is by age: a snapshot of the hooks directories is reused for
//! [`CACHE_TTL`], then rescanned (one `readdir` per directory plus one `stat` per candidate).
//! A hook added, removed or chmod-ed is therefore seen within that time, with no watcher
//! threads or inotify limits, and a warm call makes no system call at all.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::hooks::discover::{
    self, Defaults, DiscoveredHook, HookDir, Layout, Listing, Platform, Profile,
};
use crate::hooks::error::HookError;
use crate::hooks::launch::Interpreters;
use crate::hooks::name;
use crate::hooks::runner::Runner;

/// How long a discovery snapshot is trusted.
pub const CACHE_TTL: Duration = Duration::from_millis(250);

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
}

pub struct Factory {
    dirs: Vec<HookDir>,
    workspace_roots: Vec<PathBuf>,
    profile: Profile,
    platform: Platform,
    interpreters: Interpreters,
    limiter: Arc<Semaphore>,
    snapshot: Mutex<Option<Snapshot>>,
}

impl Factory {
    /// `node` is the host's own Node binary, used for `.js` hooks of the CLI profile.
    pub fn new(layout: &Layout, max_processes: Option<usize>, node: Option<PathBuf>) -> Factory {
        let mut interpreters = Interpreters::find().clone();
        if node.is_some() {
            interpreters.node = node;
        }
        Factory {
            dirs: discover::hook_dirs(layout, &Defaults::find()),
            workspace_roots: layout.workspace_roots.clone(),
            profile: layout.profile,
            platform: Platform::current(),
            interpreters,
            limiter: max_processes
                .map(|n| Arc::new(Semaphore::new(n)))
                .unwrap_or_else(shared_limiter),
            snapshot: Mutex::new(None),
        }
    }

    /// The directories searched, in order.
    pub fn dirs(&self) -> &[HookDir] {
        &self.dirs
    }

    /// The listings if the snapshot is still fresh; no I/O. While the hooks directories are
    /// unchanged this is the same `Arc` from one refresh to the next, so callers may cache
    /// what they derive from it and compare with `Arc::ptr_eq`.
    pub fn fresh_listings(&self) -> Option<Arc<Vec<Listing>>> {
        let guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .as_ref()
            .filter(|s| s.taken.elapsed() < CACHE_TTL)
            .map(|s| s.listings.clone())
    }

    /// Rescans every directory (blocking I/O) and stores the snapshot.
    fn rescan(&self) -> Arc<Vec<Listing>> {
        let taken = Instant::now();
        let scanned: Vec<Listing> = self
            .dirs
            .iter()
            .map(|d| discover::scan_dir(&d.path))
            .collect();
        let mut guard = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        let listings = match guard.as_ref() {
            Some(previous) if *previous.listings == scanned => previous.listings.clone(),
            _ => Arc::new(scanned),
        };
        *guard = Some(Snapshot {
            taken,
            listings: listings.clone(),
        });
        listings
    }

    /// The hooks named `hook_name`, enabled or not, in run order. Scans only when the snapshot
    /// is stale, and then on a blocking thread, never on the caller's.
    pub async fn discover(
        self: &Arc<Self>,
        hook_name: &str,
    ) -> Result<Vec<DiscoveredHook>, HookError> {
        let hook_name = name::resolve(hook_name)?;
        let listings = match self.fresh_listings() {
            Some(listings) => listings,
            None => {
                let this = self.clone();
                tokio::task::spawn_blocking(move || this.rescan())
                    .await
                    .map_err(|e| HookError::Internal(format!("discovery failed: {e}")))?
            }
        };
        Ok(self.pick(hook_name, &listings))
    }

    /// Discovery from the cached snapshot alone, when it is fresh: no I/O, no system call.
    /// `None` means the snapshot is stale and `discover` must be awaited.
    pub fn discover_cached(
        &self,
        hook_name: &str,
    ) -> Option<Result<Vec<DiscoveredHook>, HookError>> {
        let hook_name = match name::resolve(hook_name) {
            Ok(name) => name,
            Err(err) => return Some(Err(err)),
        };
        let listings = self.fresh_listings()?;
        Some(Ok(self.pick(hook_name, &listings)))
    }

    fn pick(&self, hook_name: &str, listings: &[Listing]) -> Vec<DiscoveredHook> {
        discover::discover(
            hook_name,
            &self.dirs,
            listings,
            self.profile,
            &self.platform,
            &self.interpreters,
        )
    }

    pub async fn runner(self: &Arc<Self>, hook_name: &str) -> Result<Runner, HookError> {
        let hooks = self.discover(hook_name).await?;
        Ok(self.runner_for(hook_name, hooks))
    }

    /// `runner` from the cached snapshot alone (see `discover_cached`).
    pub fn runner_cached(&self, hook_name: &str) -> Option<Result<Runner, HookError>> {
        let listings = self.fresh_listings()?;
        Some(self.runner_from(hook_name, &listings))
    }

    /// The runner for `hook_name` in a given snapshot (from `fresh_listings`).
    pub fn runner_from(&self, hook_name: &str, listings: &[Listing]) -> Result<Runner, HookError> {
        let resolved = name::resolve(hook_name)?;
        Ok(self.runner_for(hook_name, self.pick(resolved, listings)))
    }

    fn runner_for(&self, hook_name: &str, hooks: Vec<DiscoveredHook>) -> Runner {
        Runner::new(
            hook_name.to_owned(),
            hooks,
            self.workspace_roots.clone(),
            self.limiter.clone(),
        )
    }
}

// Unix: the hook file is made executable with Unix permissions.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::hooks::discover::GlobalDir;

    /// A fresh empty folder under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "cline-hooks-factory-{tag}-{}-{:?}",
                std::process::id(),
                std::time::SystemTime::now()
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

    #[tokio::test]
    async fn a_fresh_snapshot_answers_without_scanning_and_a_stale_one_is_rescanned() {
        let dir = TempDir::new("cache");
        let factory = factory_for(&dir);
        assert!(factory.fresh_listings().is_none(), "nothing scanned yet");
        assert!(factory.runner("TaskStart").await.unwrap().hooks.is_empty());
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
        assert_eq!(factory.runner("TaskStart").await.unwrap().hooks.len(), 1);
    }

    #[tokio::test]
    async fn an_unchanged_rescan_keeps_the_same_snapshot() {
        let dir = TempDir::new("same");
        add_hook(&dir);
        let factory = factory_for(&dir);
        factory.runner("TaskStart").await.unwrap();
        let first = factory.fresh_listings().unwrap();
        tokio::time::sleep(CACHE_TTL + Duration::from_millis(20)).await;
        factory.runner("TaskStart").await.unwrap();
        // Same Arc: callers that cache what they derived from it (runner objects) keep it.
        assert!(Arc::ptr_eq(&first, &factory.fresh_listings().unwrap()));
    }
}
