//! Watching the hooks folders, so that a change in one (create, delete, rename, chmod, edit)
//! makes the factory's snapshot stale at once, with no system call on the check.
//!
//! A factory holds a [`Watch`]. Before each rescan it calls [`Watch::follow`] with the
//! folders it is about to read, which watches them (see [`targets`]) and returns a [`Mark`];
//! the snapshot is stale as soon as [`Watch::changed`] says so for that mark.
//!
//! Linux: one inotify instance and one io_uring ring per process, shared by every factory
//! (inotify instances are limited to 128 per user by default: a host making a factory per
//! task must not run out), each factory holding its own watch descriptors, released when it
//! is dropped. The ring carries a multishot poll on the inotify fd: the kernel posts its
//! completion before the system call that made the change returns, so the check is a read of
//! the ring's memory. Without io_uring (a seccomp filter, `kernel.io_uring_disabled`, a
//! kernel older than 5.17, or `CLINE_HOOKS_NO_IO_URING=1`), one non-blocking `read` of the
//! inotify fd per check, as exact. Where a folder cannot be watched (inotify limits), or on
//! other systems, nothing is watched and the factory's revalidation by age is what remains.

#[cfg(target_os = "linux")]
mod linux;
mod targets;

pub use targets::{targets, Role};

use std::time::Duration;

use crate::discovery::HookDir;

/// Which change count a rescan started from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Every folder of the rescan is watched; the factory's change count was this when the
    /// rescan began.
    Watched(u64),
    /// Some folder is not watched: only the revalidation by age applies.
    Unwatched,
}

/// The watches of one factory: released when it is dropped.
#[derive(Debug)]
pub struct Watch {
    #[cfg(target_os = "linux")]
    held: std::sync::Mutex<linux::Held>,
    /// This factory's change count (the one `held` moves), read without its lock.
    #[cfg(target_os = "linux")]
    changes: linux::Changes,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch::new()
    }
}

impl Watch {
    /// A watch holding nothing yet: no I/O.
    pub fn new() -> Watch {
        #[cfg(target_os = "linux")]
        {
            let held = linux::Held::default();
            let changes = held.changes();
            Watch {
                held: std::sync::Mutex::new(held),
                changes,
            }
        }
        #[cfg(not(target_os = "linux"))]
        Watch {}
    }

    /// Watches the folders of `dirs` (and the ancestors [`targets`] names), lets go of the
    /// ones watched before that are not among them, and returns the mark the rescan about to
    /// read them starts from, with why some folder could not be watched (a sentence for
    /// `warnings`), if so. Blocking I/O: call it on the rescan's thread, before reading.
    pub fn follow(&self, dirs: &[HookDir], revalidated_within: Duration) -> (Mark, Option<String>) {
        #[cfg(target_os = "linux")]
        {
            let wanted = targets(dirs, |p| p.is_dir());
            let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
            match held.follow(&wanted) {
                Ok(generation) => (Mark::Watched(generation), None),
                Err(why) => (
                    Mark::Unwatched,
                    Some(format!(
                        "The hooks folders are not watched ({why}): a change in them is seen \
                         within {} ms instead of at once. Raise the inotify limits \
                         (fs.inotify.max_user_watches, fs.inotify.max_user_instances) to fix this.",
                        revalidated_within.as_millis()
                    )),
                ),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            // Not watched here: the revalidation by age stands, as documented.
            let _ = (dirs, revalidated_within);
            (Mark::Unwatched, None)
        }
    }

    /// Lets go of every folder watched (the factory is disposed of): its inotify descriptor is
    /// closed now, not when the last reference to the factory goes.
    pub fn release(&self) {
        #[cfg(target_os = "linux")]
        {
            let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
            *held = linux::Held::default();
        }
    }

    /// Whether a watched folder changed since `mark` (`false` for [`Mark::Unwatched`]: the
    /// age decides then). Cheap: with io_uring, a read of the ring's memory and no system
    /// call unless something changed.
    pub fn changed(&self, mark: Mark) -> bool {
        match mark {
            Mark::Unwatched => false,
            #[cfg(target_os = "linux")]
            Mark::Watched(count) => linux::count(&self.changes) != count,
            #[cfg(not(target_os = "linux"))]
            Mark::Watched(_) => true,
        }
    }

    /// How the change checks are made in this process: `"io_uring"`, `"read"` (one
    /// non-blocking `read` per check), or `None` (nothing watched yet, or not possible).
    pub fn method() -> Option<&'static str> {
        #[cfg(target_os = "linux")]
        {
            linux::method()
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}
