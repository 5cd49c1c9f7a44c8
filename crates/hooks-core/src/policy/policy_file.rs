//! The policy store on disk: reading it (a file that cannot be used is reported and counts
//! as empty, so it never enables anything) and changing it (under a lock file, written to a
//! temporary file and renamed over the old one, so readers see the old store or the new one,
//! never half of one, and concurrent writers in several processes never lose each other's
//! changes).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::access::{file_problem, folder_problem};
use super::store::{parse, Policy};
use crate::error::HookError;
use crate::file_lock::{lock_within, sibling, LockRefused};

/// A store larger than this is refused rather than read: it holds one line per hook.
const POLICY_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// How long a change waits for another process's change to finish.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Changes this process made to any store: a discovery snapshot taken before the latest one
/// is stale, so this process's next call sees its own change at once.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// How many changes this process has made to policy stores.
pub fn writes() -> u64 {
    WRITES.load(Ordering::Acquire)
}

/// Why the store cannot be at `policy_file`: inside a workspace root, where the repository (or
/// the agent working in it) could write its own approvals. Pure: compares paths as given
/// (absolute, as a [`Layout`](crate::discovery::Layout) holds them).
pub fn placement_problem(policy_file: &Path, workspace_roots: &[PathBuf]) -> Option<String> {
    let root = workspace_roots
        .iter()
        .find(|root| policy_file.starts_with(root))?;
    Some(format!(
        "{} is inside the workspace root {}, where a repository could approve its own hooks; keep the store in the user's own folders (the CLI's is ~/.cline/hooks-policy.json)",
        policy_file.display(),
        root.display()
    ))
}

/// A store as read, with what made it unusable (then it is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// What it holds; empty when it is missing or unusable.
    pub policy: Policy,
    /// Why it could not be used, for the run's `warnings`.
    pub problem: Option<String>,
    /// How many changes this process had made to stores ([`writes`]) before it was read; set
    /// by whoever keeps it (0 from [`load`]).
    pub writes: u64,
}

/// Reads the store at `path` for a layout with `workspace_roots`. A missing file is an empty
/// store; one that cannot be read, is not a store, (on macOS/Linux) could be written or replaced
/// by another user (see [`others_can_write`](super::others_can_write)), or is inside a
/// workspace root once links are followed (its folders' and its own), is empty with a
/// `problem` that says so. A store with several names (hard links) is read: a name gives no
/// one a right to write it that its owner and mode do not, and those are checked.
pub fn load(path: &Path, workspace_roots: &[PathBuf]) -> Loaded {
    let placed = real_placement_problem(path, workspace_roots);
    match placed.map_or_else(|| read(path), Err) {
        Ok(policy) => Loaded {
            policy,
            problem: None,
            writes: 0,
        },
        Err(why) => Loaded {
            writes: 0,
            policy: Policy::default(),
            problem: Some(format!(
                "the hooks policy file {} {why}; until it is fixed or deleted it counts as empty: no hook is approved or disabled by it",
                path.display()
            )),
        },
    }
}

/// [`placement_problem`] with links followed (a workspace root, the store's folder or the store
/// file itself given through a symbolic link): I/O, done where the store is read, off any
/// event loop.
fn real_placement_problem(path: &Path, workspace_roots: &[PathBuf]) -> Option<String> {
    let real = real_store_path(path)?;
    let roots: Vec<PathBuf> = workspace_roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect();
    placement_problem(&real, &roots)
        .map(|why| format!("is, once symbolic links are followed, {why}"))
}

/// `path` with every symbolic link resolved, its own included, even when the file it leads to
/// does not exist yet (a dangling link counts where it points); `None` when its folder does
/// not exist or the links loop. I/O.
fn real_store_path(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let mut path = path.to_owned();
    // As many links as the system follows in one path (Linux's MAXSYMLINKS).
    for _ in 0..40 {
        let real_dir = std::fs::canonicalize(path.parent()?).ok()?;
        let real = real_dir.join(path.file_name()?);
        match std::fs::read_link(&real) {
            Ok(target) => path = real_dir.join(target),
            Err(_) => return Some(real),
        }
    }
    None
}

/// Opens the store for reading without blocking (a FIFO put in its place must not hold the
/// caller) and without taking a terminal.
fn open_store(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// The store's contents, or what is wrong with the file (a fragment after its path).
fn read(path: &Path) -> Result<Policy, String> {
    // Before the file: one in a folder another user can write may be theirs by the next read.
    if let Some(why) = folder_problem(path) {
        return Err(why);
    }
    let mut file = match open_store(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Policy::default()),
        // Windows refuses to open a directory as a file: say what it is.
        Err(_) if path.is_dir() => return Err("is a directory; it must be a JSON file".to_owned()),
        Err(err) => return Err(format!("cannot be read ({err})")),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read ({e})"))?;
    if meta.is_dir() {
        return Err("is a directory; it must be a JSON file".to_owned());
    }
    if !meta.is_file() {
        return Err(
            "is not a regular file (a FIFO, socket or device?); it must be a JSON file".to_owned(),
        );
    }
    if let Some(why) = file_problem(&meta) {
        return Err(why);
    }
    if meta.len() > POLICY_FILE_LIMIT {
        return Err(format!(
            "is {} bytes, more than a policy store can be ({} MiB)",
            meta.len(),
            POLICY_FILE_LIMIT / 1024 / 1024
        ));
    }
    let mut bytes = Vec::new();
    (&mut file)
        .take(POLICY_FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read ({e})"))?;
    parse(&bytes)
}

/// Changes the store at `path` with `change`, atomically and under its lock file
/// (`<path>.lock`): the store is read after the lock is taken, so a change made meanwhile by
/// another process is kept. A store that cannot be read or is not one is left untouched and
/// the change fails with [`HookError::PolicyFile`]; so does a lock held longer than 10 s.
pub fn update<R>(
    path: &Path,
    change: impl FnOnce(&mut Policy) -> Result<R, HookError>,
) -> Result<R, HookError> {
    let fail = |why: String| {
        HookError::PolicyFile(format!("the hooks policy file {} {why}", path.display()))
    };
    // A store that is a link is changed where it points, so the link keeps working.
    let resolved = std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_symlink())
        .and_then(|_| real_store_path(path));
    let path = resolved.as_deref().unwrap_or(path);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            fail(format!(
                "cannot be created: its folder cannot be made ({e})"
            ))
        })?;
    }
    let lock = lock_file(path).map_err(fail)?;
    let mut policy = read(path).map_err(|why| {
        fail(format!(
            "{why}; nothing was changed: fix the file or delete it, then try again"
        ))
    })?;
    let result = change(&mut policy)?;
    write_atomically(path, policy.to_json().as_bytes())
        .map_err(|e| fail(format!("cannot be written ({e}); nothing was changed")))?;
    WRITES.fetch_add(1, Ordering::AcqRel);
    drop(lock);
    Ok(result)
}

/// Takes `<path>.lock` exclusively (an OS lock, released when the returned file is closed,
/// even if the process dies), waiting up to [`LOCK_WAIT`]. The lock file is left in place:
/// deleting it would let two writers lock two different files.
fn lock_file(path: &Path) -> Result<File, String> {
    let lock_path = sibling(path, ".lock");
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(&lock_path).map_err(|e| {
        format!(
            "cannot be locked: {} cannot be opened ({e})",
            lock_path.display()
        )
    })?;
    lock_within(file, LOCK_WAIT, Duration::from_millis(50)).map_err(|refused| match refused {
        LockRefused::Held => format!(
            "is being changed by another process, which has held {} for over {} s; try again once it is done",
            lock_path.display(),
            LOCK_WAIT.as_secs()
        ),
        LockRefused::Failed(e) => {
            format!("cannot be locked through {} ({e})", lock_path.display())
        }
    })
}

/// Writes `bytes` to a new file beside `path` (readable by this user only), flushes it to
/// disk and renames it over `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let temp = sibling(path, &format!(".{}-{nanos}.tmp", std::process::id()));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = (|| {
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        replace(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Renames `from` over `to`. Windows: `MoveFileExW` (std's rename asks for POSIX semantics,
/// which Wine refuses over an existing file), tried again for a moment while another program
/// (a virus scanner, an indexer, a reader without delete sharing) has `to` open.
#[cfg(windows)]
fn replace(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::windows::ffi::OsStrExt;
    use windows_sys::Win32::Storage::FileSystem::{
        MoveFileExW, MOVEFILE_REPLACE_EXISTING, MOVEFILE_WRITE_THROUGH,
    };
    let wide = |p: &Path| -> Vec<u16> { p.as_os_str().encode_wide().chain(Some(0)).collect() };
    let (from, to) = (wide(from), wide(to));
    let mut last = io::Error::other("not tried");
    for pause in [0, 10, 20, 40, 80, 160] {
        std::thread::sleep(Duration::from_millis(pause));
        // SAFETY: two NUL-terminated wide strings that live across the call.
        let moved = unsafe {
            MoveFileExW(
                from.as_ptr(),
                to.as_ptr(),
                MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH,
            )
        };
        if moved != 0 {
            return Ok(());
        }
        last = io::Error::last_os_error();
        // ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION: someone has it open; others are final.
        if !matches!(last.raw_os_error(), Some(5) | Some(32)) {
            break;
        }
    }
    Err(last)
}

#[cfg(not(windows))]
fn replace(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::rename(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "cline-hooks-policy-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_store_inside_a_workspace_root_is_refused() {
        let roots = [PathBuf::from("/w/repo")];
        let inside = placement_problem(Path::new("/w/repo/.cline/policy.json"), &roots);
        assert!(inside
            .unwrap()
            .contains("inside the workspace root /w/repo"));
        assert!(placement_problem(Path::new("/w/repo2/policy.json"), &roots).is_none());
        assert!(placement_problem(Path::new("/home/u/.cline/p.json"), &roots).is_none());
    }

    #[test]
    fn a_missing_store_is_empty_and_a_change_creates_it_with_its_folder() {
        let dir = scratch("create");
        let path = dir.join("nested/policy.json");
        assert_eq!(load(&path, &[]), Loaded::default());
        let before = writes();
        update(&path, |p| {
            p.disabled.insert("/h/TaskStart".into());
            Ok(())
        })
        .unwrap();
        assert!(writes() > before);
        assert!(load(&path, &[])
            .policy
            .is_disabled(Path::new("/h/TaskStart")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_corrupt_store_counts_as_empty_and_is_never_overwritten() {
        let dir = scratch("corrupt");
        let path = dir.join("policy.json");
        std::fs::write(&path, "{\"approved\": ").unwrap();
        let loaded = load(&path, &[]);
        assert_eq!(loaded.policy, Policy::default());
        let why = loaded.problem.unwrap();
        assert!(
            why.contains("is not valid JSON") && why.contains("counts as empty"),
            "{why}"
        );
        let err = update(&path, |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("nothing was changed"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"approved\": ");

        let as_dir = dir.join("a-dir.json");
        std::fs::create_dir(&as_dir).unwrap();
        assert!(load(&as_dir, &[])
            .problem
            .unwrap()
            .contains("is a directory"));
        assert!(update(&as_dir, |_| Ok(())).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_store_is_refused_at_once_and_a_linked_one_is_written_where_it_points() {
        let dir = scratch("fifo");
        let fifo = dir.join("policy.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(load(&fifo, &[])
            .problem
            .unwrap()
            .contains("not a regular file"));
        assert!(update(&fifo, |_| Ok(())).is_err());

        let real = dir.join("real.json");
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        update(&link, |p| {
            p.disabled.insert("/h/x".into());
            Ok(())
        })
        .unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(load(&real, &[]).policy.is_disabled(Path::new("/h/x")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_inside_a_workspace_through_a_link_counts_as_empty() {
        let dir = scratch("linked");
        let repo = dir.join("repo");
        std::fs::create_dir_all(repo.join(".cline")).unwrap();
        std::os::unix::fs::symlink(repo.join(".cline"), dir.join("outside")).unwrap();
        let store = dir.join("outside").join("policy.json");
        std::fs::write(&store, "{\"disabled\": [\"/h/x\"]}").unwrap();
        let loaded = load(&store, std::slice::from_ref(&repo));
        assert!(loaded.policy.disabled.is_empty());
        let why = loaded.problem.unwrap();
        assert!(why.contains("once symbolic links are followed"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_file_linked_into_a_workspace_counts_as_empty_and_a_hard_link_is_read() {
        let dir = scratch("file-link");
        let repo = dir.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        let inside = repo.join("policy.json");
        std::fs::write(&inside, "{\"disabled\": [\"/h/x\"]}").unwrap();
        let store = dir.join("hooks-policy.json");
        std::os::unix::fs::symlink(&inside, &store).unwrap();
        let loaded = load(&store, std::slice::from_ref(&repo));
        assert!(loaded.policy.disabled.is_empty());
        let why = loaded.problem.unwrap();
        assert!(why.contains("once symbolic links are followed"), "{why}");
        // Dangling, it still counts where it points.
        let dangling = dir.join("dangling.json");
        std::os::unix::fs::symlink(repo.join("missing.json"), &dangling).unwrap();
        assert!(load(&dangling, std::slice::from_ref(&repo))
            .problem
            .is_some());
        // A second name outside every root: read (see `load`).
        let hard = dir.join("hard.json");
        std::fs::hard_link(&inside, &hard).unwrap();
        assert!(load(&hard, &[]).policy.is_disabled(Path::new("/h/x")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_in_a_folder_others_can_write_counts_as_empty_and_is_not_written() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("open-folder");
        let path = dir.join("policy.json");
        std::fs::write(&path, "{\"disabled\": [\"/h/x\"]}").unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let loaded = load(&path, &[]);
        assert!(loaded.policy.disabled.is_empty());
        let why = loaded.problem.unwrap();
        assert!(why.contains("where another user could replace it"), "{why}");
        assert!(update(&path, |_| Ok(())).is_err());
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(load(&path, &[]).policy.is_disabled(Path::new("/h/x")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn concurrent_changes_from_many_threads_are_all_kept() {
        let dir = scratch("threads");
        let path = dir.join("policy.json");
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..20 {
                        update(&path, |p| {
                            p.disabled.insert(format!("/h/{t}/{i}"));
                            Ok(())
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(load(&path, &[]).policy.disabled.len(), 160);
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
