//! Linux: the process's one inotify instance, the io_uring ring that tells without a system
//! call whether it has events, and the watch descriptors each factory holds, each event
//! counted for the factories that hold its watch.

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use io_uring::{cqueue, opcode, types, IoUring};

use super::Role;

/// What a hooks folder is watched for: every change among its entries, and the folder
/// itself deleted or moved.
const FOLDER_EVENTS: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_ATTRIB
    | libc::IN_MODIFY
    | libc::IN_CLOSE_WRITE
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF;

/// What an ancestor is watched for: entries appearing, going or changing mode, not their
/// contents (a workspace root sees many edits that cannot change its hooks).
const ANCESTOR_EVENTS: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_ATTRIB
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF;

/// Reads of the inotify fd one check may make before it gives up draining for now (and
/// counts the next check as a change too): a flood cannot hold the caller.
const DRAIN_LIMIT: usize = 256;

/// The process's inotify instance and how its events are noticed.
struct Shared {
    inotify: OwnedFd,
    /// The ring with multishot polls on `inotify`; `None`: a `read` per check instead.
    ring: Option<Mutex<Ring>>,
    /// A drain stopped at its limit: the next check counts as a change as well.
    flooded: std::sync::atomic::AtomicBool,
    /// Watch descriptors and the change counts of the factory watches holding each (one per
    /// inode: two paths to one folder share it), one entry per hold.
    holders: Mutex<HashMap<i32, Vec<Changes>>>,
}

/// One factory watch's change count: moved by every event on a watch it holds, and by
/// anything the checks cannot vouch for (a full event queue, a poll ended).
pub type Changes = Arc<AtomicU64>;

/// The ring, and which threads have a poll armed on it.
///
/// Each thread that checks arms a poll of its own, once: the kernel completes a poll in the
/// thread that armed it (task work, run before that thread next returns to user space), so
/// a thread whose own poll is armed finds the completion of a change it made (or was told
/// of through a system call) already posted. A poll armed by another thread, parked
/// elsewhere, would be posted when that thread gets to run: milliseconds late under load.
struct Ring {
    ring: IoUring,
    /// The threads (by [`thread_tag`]) with a poll armed; a poll that ends (its thread
    /// exited: -ECANCELED) leaves the set through its completion.
    armed: HashSet<u64>,
}

/// A number for the calling thread, unique in the process (its poll's `user_data`).
fn thread_tag() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static TAG: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    TAG.with(|tag| *tag)
}

/// The shared instance, made by the first factory that watches (a failure is retried at the
/// next rescan: EMFILE may pass). Read by every check: a load, no lock.
static SHARED: std::sync::OnceLock<&'static Shared> = std::sync::OnceLock::new();

/// Held while the shared instance is made, so it is made once.
static MAKING: Mutex<()> = Mutex::new(());

fn shared() -> Option<&'static Shared> {
    SHARED.get().copied()
}

fn shared_or_make() -> Result<&'static Shared, String> {
    let _making = MAKING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(shared) = shared() {
        return Ok(shared);
    }
    // SAFETY: no pointers; the result is checked.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return Err(format!(
            "inotify_init1: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let inotify = unsafe { OwnedFd::from_raw_fd(fd) };
    let ring = if std::env::var_os("CLINE_HOOKS_NO_IO_URING").is_some_and(|v| v == "1") {
        None
    } else {
        ring_on(&inotify)
    };
    // Kept for the life of the process: two fds at most, whatever the number of factories.
    let made: &'static Shared = Box::leak(Box::new(Shared {
        inotify,
        ring: ring.map(Mutex::new),
        flooded: Default::default(),
        holders: Mutex::default(),
    }));
    tracing::debug!(
        io_uring = made.ring.is_some(),
        "watching hooks folders with inotify"
    );
    Ok(*SHARED.get_or_init(|| made))
}

/// A ring with a multishot poll armed on `inotify`, or `None` where io_uring cannot be used:
/// refused (EPERM from a seccomp filter or `kernel.io_uring_disabled`, ENOSYS), or a kernel
/// without IORING_FEAT_CQE_SKIP (before 5.17; multishot poll came in 5.13).
fn ring_on(inotify: &OwnedFd) -> Option<Ring> {
    // Room for a completion per thread with a poll, twice (the completion queue is twice the
    // size): more waits in the kernel until a check flushes it.
    let ring = IoUring::new(64).ok()?;
    if !ring.params().is_feature_skip_cqe_on_success() {
        return None;
    }
    let mut ring = Ring {
        ring,
        armed: HashSet::new(),
    };
    arm(&mut ring, inotify).then_some(ring)
}

/// Queues a multishot poll for input on `inotify` for the calling thread and submits it.
fn arm(ring: &mut Ring, inotify: &OwnedFd) -> bool {
    let tag = thread_tag();
    let poll = opcode::PollAdd::new(types::Fd(inotify.as_raw_fd()), libc::POLLIN as u32)
        .multi(true)
        .build()
        .user_data(tag);
    // SAFETY: the entry names no buffer; the fd outlives the ring (both live as long as the
    // process).
    let queued = unsafe { ring.ring.submission().push(&poll).is_ok() };
    let armed = queued && ring.ring.submit().is_ok();
    if armed {
        ring.armed.insert(tag);
    }
    armed
}

impl Shared {
    /// Takes in what happened since the last check, moving the change counts of the watches
    /// it concerns. With the ring: its completion queue is read from memory; only a
    /// completion (an event, an error, a poll ended) leads to system calls: the inotify fd
    /// drained, a poll armed again.
    fn check(&self) {
        match &self.ring {
            Some(ring) => self.check_ring(&mut ring.lock().unwrap_or_else(|p| p.into_inner())),
            None => {
                self.drain();
                if self.flooded.swap(false, Ordering::Relaxed) {
                    self.bump_all();
                }
            }
        }
    }

    /// Counts a change for every watch: for what cannot be told apart.
    fn bump_all(&self) {
        let holders = self.holders.lock().unwrap_or_else(|p| p.into_inner());
        for changes in holders.values().flatten() {
            changes.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Counts a change for the watches holding `wd`.
    fn bump(&self, wd: i32) {
        let holders = self.holders.lock().unwrap_or_else(|p| p.into_inner());
        for changes in holders.get(&wd).into_iter().flatten() {
            changes.fetch_add(1, Ordering::AcqRel);
        }
    }

    fn check_ring(&self, ring: &mut MutexGuard<'_, Ring>) {
        // This thread's first check arms its poll before the queue is read: events already
        // waiting complete it during the submit, so they are read below, not at the next check.
        if !ring.armed.contains(&thread_tag()) && !arm(ring, &self.inotify) {
            // This thread cannot have a poll (the ring refuses): its checks count as changes,
            // so the snapshots fall back to a rescan per call rather than go stale.
            self.flooded.store(true, Ordering::Relaxed);
        }
        let mut seen = false;
        let mut overflowed = false;
        loop {
            let Ring { ring: uring, armed } = &mut **ring;
            let mut completions = uring.completion();
            completions.sync();
            for cqe in &mut completions {
                seen = true;
                // A poll ended (cancelled when the thread that armed it exited, say): its
                // thread arms another at its next check. Not a change in itself: the ring
                // is only a doorbell, the events wait in the inotify fd until the drain
                // below reads and counts them, and a poll armed on a fd that holds events
                // completes at once. (Counting it for every watch would make each exiting
                // blocking-pool thread cost every factory a rescan.)
                if cqe.result() < 0 || !cqueue::more(cqe.flags()) {
                    armed.remove(&cqe.user_data());
                }
            }
            drop(completions);
            // Completions held back by a full queue are only flushed by a system call.
            if !uring.submission().cq_overflow() {
                break;
            }
            seen = true;
            overflowed = true;
            if uring.submit().is_err() {
                break;
            }
        }
        if seen {
            self.drain();
        }
        // A completion queue that overflowed: counted for every watch, to be safe.
        if overflowed || self.flooded.swap(false, Ordering::Relaxed) {
            self.bump_all();
        }
    }

    /// Reads the inotify fd until it is empty, counting each event for the watches holding
    /// its descriptor (IN_IGNORED, a watch gone with its folder, and IN_UNMOUNT included);
    /// IN_Q_OVERFLOW (events lost) for every watch.
    fn drain(&self) {
        let mut buf = [0u8; 4096];
        for _ in 0..DRAIN_LIMIT {
            // SAFETY: `buf` is valid for its length.
            let n =
                unsafe { libc::read(self.inotify.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                for (wd, mask) in events(buf.get(..n as usize).unwrap_or_default()) {
                    if mask & libc::IN_Q_OVERFLOW != 0 {
                        self.bump_all();
                    } else {
                        self.bump(wd);
                    }
                }
                continue;
            }
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        self.flooded.store(true, Ordering::Relaxed);
    }

    /// Adds a watch on `path` for `role`'s events (added to what others asked of the same
    /// folder). `Ok(None)`: the path is gone (its ancestor's watch covers that).
    fn add(
        &self,
        path: &std::path::Path,
        role: Role,
        changes: &Changes,
    ) -> Result<Option<i32>, String> {
        let wanted = match role {
            Role::Folder => FOLDER_EVENTS,
            Role::Ancestor => ANCESTOR_EVENTS,
        };
        let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
            return Ok(None);
        };
        // SAFETY: `c_path` is a valid C string for the call.
        let wd = unsafe {
            libc::inotify_add_watch(
                self.inotify.as_raw_fd(),
                c_path.as_ptr(),
                wanted | libc::IN_ONLYDIR | libc::IN_MASK_ADD,
            )
        };
        if wd >= 0 {
            let mut holders = self.holders.lock().unwrap_or_else(|p| p.into_inner());
            holders.entry(wd).or_default().push(changes.clone());
            return Ok(Some(wd));
        }
        let err = std::io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::ENOENT | libc::ENOTDIR) => Ok(None),
            Some(libc::ENOSPC) => Err("the inotify watch limit is reached".into()),
            // EACCES and the like: the folder cannot be read either; the scan says so.
            Some(libc::EACCES | libc::EPERM) => Ok(None),
            _ => Err(format!("inotify_add_watch {}: {err}", path.display())),
        }
    }

    /// Lets go of one hold on `wd` by `changes`; the last hold removes the watch.
    fn release(&self, wd: i32, changes: &Changes) {
        let mut holders = self.holders.lock().unwrap_or_else(|p| p.into_inner());
        let Some(held) = holders.get_mut(&wd) else {
            return;
        };
        if let Some(at) = held.iter().position(|c| Arc::ptr_eq(c, changes)) {
            held.swap_remove(at);
        }
        if held.is_empty() {
            holders.remove(&wd);
            // SAFETY: plain call; EINVAL (the folder was deleted, its watch already gone) is
            // harmless.
            unsafe { libc::inotify_rm_watch(self.inotify.as_raw_fd(), wd) };
        }
    }
}

/// `changes` as of now: what happened since the last check taken in first.
pub fn count(changes: &Changes) -> u64 {
    if let Some(shared) = shared() {
        shared.check();
    }
    changes.load(Ordering::Acquire)
}

/// The (descriptor, mask) of each event in what a `read` of an inotify fd returned.
fn events(mut bytes: &[u8]) -> impl Iterator<Item = (i32, u32)> + '_ {
    std::iter::from_fn(move || {
        let header = bytes.get(..16)?;
        let word = |at: usize| [header[at], header[at + 1], header[at + 2], header[at + 3]];
        let wd = i32::from_ne_bytes(word(0));
        let mask = u32::from_ne_bytes(word(4));
        let len = u32::from_ne_bytes(word(12)) as usize;
        bytes = bytes.get(16 + len..).unwrap_or_default();
        Some((wd, mask))
    })
}

/// How checks are made: `"io_uring"` or `"read"`; `None` before anything is watched.
pub fn method() -> Option<&'static str> {
    shared().map(|s| if s.ring.is_some() { "io_uring" } else { "read" })
}

/// The watch descriptors one factory holds, and its change count.
#[derive(Debug, Default)]
pub struct Held {
    wds: Vec<i32>,
    changes: Changes,
}

impl Held {
    /// Watches `wanted` (new holds first, then the old ones let go, so a folder in both is
    /// never unwatched in between) and returns the change count to start a rescan from.
    pub fn follow(&mut self, wanted: &[(PathBuf, Role)]) -> Result<u64, String> {
        let changes = self.changes.clone();
        let shared = shared_or_make()?;
        let mut wds = Vec::with_capacity(wanted.len());
        let mut failed = None;
        for (path, role) in wanted {
            match shared.add(path, *role, &changes) {
                Ok(Some(wd)) => wds.push(wd),
                Ok(None) => {}
                Err(why) => {
                    failed = Some(why);
                    break;
                }
            }
        }
        for wd in std::mem::replace(&mut self.wds, wds) {
            shared.release(wd, &changes);
        }
        match failed {
            Some(why) => Err(why),
            // Read after the watches are in place and before the folders are: a change from
            // here on moves the count.
            None => Ok(count(&changes)),
        }
    }

    /// The change count, shared with the checks.
    pub fn changes(&self) -> Changes {
        self.changes.clone()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(shared) = shared() {
            for wd in self.wds.drain(..) {
                shared.release(wd, &self.changes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_with_their_names_skipped_and_a_cut_one_dropped() {
        let mut bytes = Vec::new();
        for (wd, mask, name) in [(3i32, libc::IN_CREATE, 16u32), (-1, libc::IN_Q_OVERFLOW, 0)] {
            bytes.extend(wd.to_ne_bytes());
            bytes.extend(mask.to_ne_bytes());
            bytes.extend(0u32.to_ne_bytes());
            bytes.extend(name.to_ne_bytes());
            bytes.extend(vec![0u8; name as usize]);
        }
        let read: Vec<_> = events(&bytes).collect();
        assert_eq!(read, vec![(3, libc::IN_CREATE), (-1, libc::IN_Q_OVERFLOW)]);
        assert_eq!(events(&bytes[..10]).count(), 0);
    }
}
