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
/// by another user (see [`others_can_write`](super::others_can_write)), lies inside a
/// workspace root once links are followed (its folders' and its own), or is reached through a
/// symbolic link inside a workspace root ([`chain_problem`]), is empty with a `problem` that
/// says so. Every rule is applied to the file opened, where its descriptor says it lies. A
/// store with several names (hard links) is read: a name gives no one a right to write it that
/// its owner and mode do not, and those are checked.
pub fn load(path: &Path, workspace_roots: &[PathBuf]) -> Loaded {
    match read(path, workspace_roots) {
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

/// A store's path with every symbolic link on it followed, walked one name at a time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Its real path (no link on it); for a missing store, where it would be.
    pub real: PathBuf,
    /// Where each link followed lies (its folder's real path and its name), in order: the
    /// store file's own, its folders', and those their targets lead through.
    pub links: Vec<PathBuf>,
}

/// Why a store reached as `resolved` could be the repository's, given the workspace roots
/// with their links resolved: it lies inside one, or a link on its way does (whoever can
/// change the repository can point that link at a store of its own, at any moment). Pure.
pub fn chain_problem(resolved: &Resolved, real_roots: &[PathBuf]) -> Option<String> {
    if let Some(why) = placement_problem(&resolved.real, real_roots) {
        return Some(format!("is, once symbolic links are followed, {why}"));
    }
    resolved.links.iter().find_map(|link| {
        let root = real_roots.iter().find(|root| link.starts_with(root))?;
        Some(format!(
            "is reached through the symbolic link {}, inside the workspace root {}, which the repository could point at a store of its own; keep the store, and every link leading to it, outside the workspace roots",
            link.display(),
            root.display()
        ))
    })
}

/// As many links as the system follows in one path (Linux's MAXSYMLINKS).
const LINK_LIMIT: usize = 40;

/// `path` walked one name at a time, as the system would, recording every symbolic link on
/// the way (a missing name ends the walk: the rest is taken as written). I/O.
fn resolve(path: &Path) -> Result<Resolved, String> {
    use std::path::Component;
    let start = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map_err(|e| format!("cannot be found: the current folder is unknown ({e})"))?
            .join(path)
    };
    // Names still to walk, the next one last.
    let mut todo: Vec<PathBuf> = Vec::new();
    let push = |todo: &mut Vec<PathBuf>, p: &Path| {
        todo.extend(p.components().rev().map(|c| PathBuf::from(c.as_os_str())));
    };
    push(&mut todo, &start);
    let mut real = PathBuf::new();
    let mut links = Vec::new();
    let mut missing = false;
    while let Some(part) = todo.pop() {
        match part.components().next() {
            Some(Component::Prefix(_)) => real = part,
            // An absolute link target starts again from the root (of its drive, on Windows).
            Some(Component::RootDir) => {
                real = real
                    .components()
                    .take_while(|c| matches!(c, Component::Prefix(_)))
                    .collect();
                real.push(part);
            }
            Some(Component::ParentDir) => {
                real.pop();
            }
            Some(Component::Normal(name)) => {
                let next = real.join(name);
                if missing {
                    real = next;
                    continue;
                }
                match std::fs::symlink_metadata(&next) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        missing = true;
                        real = next;
                    }
                    Err(e) => return Err(format!("cannot be reached ({}: {e})", next.display())),
                    Ok(meta) if meta.file_type().is_symlink() => {
                        if links.len() == LINK_LIMIT {
                            return Err(format!(
                                "is reached through more than {LINK_LIMIT} symbolic links (a loop?); point it at the file itself"
                            ));
                        }
                        let target = std::fs::read_link(&next)
                            .map_err(|e| format!("cannot be reached ({}: {e})", next.display()))?;
                        links.push(next);
                        push(&mut todo, &target);
                    }
                    Ok(_) => real = next,
                }
            }
            Some(Component::CurDir) | None => {}
        }
    }
    Ok(Resolved { real, links })
}

/// Opens the store for reading without blocking (a FIFO put in its place must not hold the
/// caller), without taking a terminal and (macOS/Linux) without following a link at its end:
/// `real` was walked, and a link there now is a change since.
fn open_store(real: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
    }
    options.open(real)
}

/// Where the open `file` lies, read from its descriptor: Linux's `/proc/self/fd`, Windows'
/// final path. `None` where the system cannot say (then the caller compares identities).
fn opened_path(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(windows)]
    {
        use std::os::windows::ffi::OsStringExt;
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::Storage::FileSystem::GetFinalPathNameByHandleW;
        let mut buf = vec![0u16; 1024];
        for _ in 0..2 {
            let len = u32::try_from(buf.len()).ok()?;
            // SAFETY: the handle is open for the call; buf is valid for `len` wide chars.
            let got = unsafe {
                GetFinalPathNameByHandleW(file.as_raw_handle(), buf.as_mut_ptr(), len, 0)
            };
            let got = usize::try_from(got).ok()?;
            if got == 0 {
                return None;
            }
            if got < buf.len() {
                let path = PathBuf::from(std::ffi::OsString::from_wide(&buf[..got]));
                return Some(super::paths::plain_spelling(path));
            }
            buf.resize(got + 1, 0);
        }
        None
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = file;
        None
    }
}

/// The store at `path` opened (`None`: there is none) with where it really is, once every rule
/// passed for the file opened: the walk's links ([`chain_problem`], the folders holding them)
/// and the opened file's own real location (inside no workspace root of `workspace_roots`, in
/// folders only the user can change, the file the user's and writable by nobody else). A link
/// changed between the walk and the open (a race) is refused. The one decision for reads and
/// writes. I/O.
fn open_checked(
    path: &Path,
    workspace_roots: &[PathBuf],
) -> Result<(PathBuf, Option<File>), String> {
    // A writer renaming a new store over the old one can move it between the walk and the
    // open: walk again. A link flipped on every try leaves the store unread.
    for _ in 0..3 {
        match open_walked(resolve(path)?, workspace_roots) {
            Err(Refusal::Changed(_)) => continue,
            Err(Refusal::Why(why)) => return Err(why),
            Ok(opened) => return Ok(opened),
        }
    }
    match open_walked(resolve(path)?, workspace_roots) {
        Err(Refusal::Changed(why) | Refusal::Why(why)) => Err(why),
        Ok(opened) => Ok(opened),
    }
}

/// Why [`open_walked`] opened nothing.
#[derive(Debug)]
enum Refusal {
    /// The path changed between the walk and the open (what to tell the user). Not on
    /// Windows, whose opened file is judged where its final path says it is.
    #[cfg_attr(windows, allow(dead_code))]
    Changed(String),
    /// What is wrong with the store.
    Why(String),
}

impl From<String> for Refusal {
    fn from(why: String) -> Self {
        Refusal::Why(why)
    }
}

/// Whether the descriptor's path `opened` is the walked `real` path: the same, or (Linux) that
/// path marked deleted, when a writer renamed a new store over it after the open. Pure.
#[cfg(not(windows))]
fn at_walked(opened: &Path, real: &Path) -> bool {
    let mut deleted = real.as_os_str().to_owned();
    deleted.push(" (deleted)");
    opened == real || opened.as_os_str() == deleted
}

/// [`open_checked`] once the path was walked.
fn open_walked(
    walked: Resolved,
    workspace_roots: &[PathBuf],
) -> Result<(PathBuf, Option<File>), Refusal> {
    let file = match open_store(&walked.real) {
        Ok(file) => Some(file),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        // Windows refuses to open a directory as a file: say what it is.
        Err(_) if walked.real.is_dir() => {
            return Err(Refusal::Why(
                "is a directory; it must be a JSON file".to_owned(),
            ))
        }
        #[cfg(unix)]
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => return Err(changed(&walked.real)),
        Err(err) => return Err(Refusal::Why(format!("cannot be read ({err})"))),
    };
    // Decide on the file opened: where its descriptor says it is.
    let opened = match &file {
        Some(file) => match opened_path(file) {
            Some(at) => at,
            None => same_file(file, &walked.real)?,
        },
        None => walked.real.clone(),
    };
    #[cfg(not(windows))]
    if !at_walked(&opened, &walked.real) {
        return Err(changed(&walked.real));
    }
    // Windows' final path is the opened file's own spelling; elsewhere, the walked one.
    #[cfg(not(windows))]
    let opened = walked.real;
    let real_roots: Vec<PathBuf> = workspace_roots
        .iter()
        .filter_map(|r| super::real_dir(r))
        .collect();
    let decided = Resolved {
        real: opened,
        links: walked.links,
    };
    if let Some(why) = chain_problem(&decided, &real_roots) {
        return Err(Refusal::Why(why));
    }
    // Whoever can write a folder holding a link can re-point it; one holding the store can
    // replace it.
    let folders = decided.links.iter().chain([&decided.real]);
    for folder in folders.filter_map(|p| p.parent()) {
        if let Some(why) = folder_problem(folder) {
            return Err(Refusal::Why(why));
        }
    }
    Ok((decided.real, file))
}

/// What a store changed under the reader says.
#[cfg(not(windows))]
fn changed(real: &Path) -> Refusal {
    Refusal::Changed(changed_text(real))
}

/// What a store changed under its reader or writer says.
fn changed_text(real: &Path) -> String {
    format!(
        "changed while it was being opened (a symbolic link on its way was replaced; {} is no longer what it was), so nothing was read from it; if nobody meant to change it, look at what did",
        real.display()
    )
}

/// `real` when the open `file` is the file now at `real` (no link there): where the
/// descriptor cannot name its path, its identity says the same. I/O.
fn same_file(file: &File, real: &Path) -> Result<PathBuf, Refusal> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let opened = file
            .metadata()
            .map_err(|e| format!("cannot be read ({e})"))?;
        match std::fs::symlink_metadata(real) {
            Ok(now) if now.dev() == opened.dev() && now.ino() == opened.ino() => {
                Ok(real.to_owned())
            }
            _ => Err(changed(real)),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        Ok(real.to_owned())
    }
}

/// The store's contents, or what is wrong with the file (a fragment after its path).
fn read(path: &Path, workspace_roots: &[PathBuf]) -> Result<Policy, String> {
    match open_checked(path, workspace_roots)? {
        (_, Some(file)) => contents(file),
        (_, None) => Ok(Policy::default()),
    }
}

/// What the opened store `file` holds, or what is wrong with it.
fn contents(mut file: File) -> Result<Policy, String> {
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
    if let Some(why) = file_problem(&file, &meta) {
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
/// the change fails with [`HookError::PolicyFile`]; so does a lock held longer than 10 s. A
/// change that changes nothing writes nothing.
pub fn update<R>(
    path: &Path,
    change: impl FnOnce(&mut Policy) -> Result<R, HookError>,
) -> Result<R, HookError> {
    let fail = |why: String| {
        HookError::PolicyFile(format!("the hooks policy file {} {why}", path.display()))
    };
    // A store that is a link is changed where it points, so the link keeps working; the
    // functions know no workspace roots, the rest of the decision is the readers'.
    let given = path;
    let walked = resolve(given).map_err(|why| fail(format!("{why}; nothing was changed")))?;
    let path = walked.real.as_path();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            fail(format!(
                "cannot be created: its folder cannot be made ({e})"
            ))
        })?;
    }
    let lock = lock_file(path).map_err(fail)?;
    let refused = |why: String| {
        fail(format!(
            "{why}; nothing was changed: fix the file or delete it, then try again"
        ))
    };
    let (real, file) = open_checked(given, &[]).map_err(refused)?;
    if real != path {
        return Err(refused(changed_text(path)));
    }
    let mut policy = file
        .map_or(Ok(Policy::default()), contents)
        .map_err(refused)?;
    let before = policy.clone();
    let result = change(&mut policy)?;
    // Nothing changed (withdrawing an approval there was not): the store is left as it was,
    // and not created when there was none.
    if policy == before {
        drop(lock);
        return Ok(result);
    }
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
    fn a_link_inside_a_workspace_root_on_the_way_to_the_store_is_refused() {
        let roots = [PathBuf::from("/w/repo")];
        let resolved = |real: &str, links: &[&str]| Resolved {
            real: real.into(),
            links: links.iter().map(PathBuf::from).collect(),
        };
        // ~/.cline -> /w/repo/.cline-config -> ~/outside: ends outside, but the repository
        // controls the middle link.
        let why = chain_problem(
            &resolved(
                "/home/u/outside/p.json",
                &["/home/u/.cline", "/w/repo/.cline-config"],
            ),
            &roots,
        )
        .unwrap();
        assert!(
            why.contains("through the symbolic link /w/repo/.cline-config, inside the workspace root /w/repo"),
            "{why}"
        );
        // Ends inside: said as before.
        let why = chain_problem(&resolved("/w/repo/p.json", &["/home/u/.cline"]), &roots).unwrap();
        assert!(why.contains("once symbolic links are followed"), "{why}");
        // Links of the user's own, outside every root.
        assert_eq!(
            chain_problem(
                &resolved("/home/u/dotfiles/p.json", &["/home/u/.cline"]),
                &roots
            ),
            None
        );
        assert_eq!(chain_problem(&resolved("/w/repo/p.json", &[]), &[]), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_walk_records_every_link_of_the_folders_and_the_file() {
        let dir = scratch("walk");
        let real_dir = crate::policy::real_dir(&dir).unwrap();
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/p.json"), "{}").unwrap();
        std::os::unix::fs::symlink("a", dir.join("l1")).unwrap();
        std::os::unix::fs::symlink("l1/b/p.json", dir.join("file")).unwrap();
        std::os::unix::fs::symlink(real_dir.join("file"), dir.join("abs")).unwrap();
        let walked = resolve(&dir.join("abs")).unwrap();
        assert_eq!(walked.real, real_dir.join("a/b/p.json"));
        assert_eq!(
            walked.links,
            [
                real_dir.join("abs"),
                real_dir.join("file"),
                real_dir.join("l1")
            ]
        );
        // `..` after a link is taken from where the link led, as the system does.
        std::os::unix::fs::symlink("a/b", dir.join("deep")).unwrap();
        assert_eq!(
            resolve(&dir.join("deep/../b/p.json")).unwrap().real,
            real_dir.join("a/b/p.json")
        );
        // Missing: where it would be.
        assert_eq!(
            resolve(&dir.join("l1/none/p.json")).unwrap().real,
            real_dir.join("a/none/p.json")
        );
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        assert!(resolve(&dir.join("loop"))
            .unwrap_err()
            .contains("more than 40"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_reached_through_a_workspace_link_counts_as_empty_wherever_it_ends() {
        let dir = scratch("ws-link");
        let repo = dir.join("repo");
        let outside = dir.join("outside");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("p.json"), "{\"disabled\": [\"/h/x\"]}").unwrap();
        // ~/.cline -> repo/.cline-config -> outside: the repository could flip its link.
        std::os::unix::fs::symlink(&outside, repo.join(".cline-config")).unwrap();
        std::os::unix::fs::symlink(repo.join(".cline-config"), dir.join("dot-cline")).unwrap();
        let store = dir.join("dot-cline/p.json");
        let loaded = load(&store, std::slice::from_ref(&repo));
        assert!(loaded.policy.disabled.is_empty());
        let why = loaded.problem.unwrap();
        assert!(
            why.contains("is reached through the symbolic link"),
            "{why}"
        );
        // Without that root (another task), the same store is read.
        assert!(load(&store, &[]).policy.is_disabled(Path::new("/h/x")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_linked_into_a_folder_others_can_write_counts_as_empty() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("link-shared");
        let shared = dir.join("shared");
        let home = dir.join("home");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(shared.join("p.json"), "{\"disabled\": [\"/h/x\"]}").unwrap();
        std::os::unix::fs::symlink(shared.join("p.json"), home.join("p.json")).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let why = load(&home.join("p.json"), &[]).problem.unwrap();
        assert!(
            why.contains(&format!(
                "is in the folder {}",
                crate::policy::real_dir(&shared).unwrap().display()
            )),
            "{why}"
        );
        assert!(update(&home.join("p.json"), |_| Ok(())).is_err());
        // A link in such a folder can be re-pointed, even when the store it leads to is safe.
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::symlink(shared.join("p.json"), home.join("hop")).unwrap();
        std::os::unix::fs::symlink(home.join("hop"), shared.join("hop")).unwrap();
        std::fs::rename(home.join("p.json"), dir.join("unused")).unwrap();
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o777)).unwrap();
        let why = load(&shared.join("hop"), &[]).problem.unwrap();
        assert!(why.contains("where another user could replace it"), "{why}");
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(load(&shared.join("hop"), &[])
            .policy
            .is_disabled(Path::new("/h/x")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_changed_between_the_walk_and_the_open_is_not_read() {
        let dir = scratch("race");
        std::fs::create_dir_all(dir.join("cfg")).unwrap();
        std::fs::create_dir_all(dir.join("evil")).unwrap();
        std::fs::write(dir.join("cfg/p.json"), "{}").unwrap();
        std::fs::write(dir.join("evil/p.json"), "{\"disabled\": [\"/h/x\"]}").unwrap();
        // A folder on the walked path swapped for a link after the walk.
        let walked = resolve(&dir.join("cfg/p.json")).unwrap();
        std::fs::rename(dir.join("cfg"), dir.join("cfg-old")).unwrap();
        std::os::unix::fs::symlink(dir.join("evil"), dir.join("cfg")).unwrap();
        let Err(Refusal::Changed(why)) = open_walked(walked, &[]) else {
            panic!("a folder swapped for a link was read");
        };
        assert!(why.contains("changed while it was being opened"), "{why}");
        // The file itself swapped for a link.
        std::fs::write(dir.join("q.json"), "{}").unwrap();
        let walked = resolve(&dir.join("q.json")).unwrap();
        std::fs::remove_file(dir.join("q.json")).unwrap();
        std::os::unix::fs::symlink(dir.join("evil/p.json"), dir.join("q.json")).unwrap();
        let Err(Refusal::Changed(why)) = open_walked(walked, &[]) else {
            panic!("a file swapped for a link was read");
        };
        assert!(why.contains("changed while it was being opened"), "{why}");
        // A store renamed over after the open (an ordinary writer) is still the walked one.
        let real = Path::new("/home/u/.cline/p.json");
        assert!(at_walked(real, real));
        assert!(at_walked(
            Path::new("/home/u/.cline/p.json (deleted)"),
            real
        ));
        assert!(!at_walked(Path::new("/w/repo/p.json"), real));
        assert!(!at_walked(Path::new("/w/repo/p.json (deleted)"), real));
        let _ = std::fs::remove_dir_all(&dir);
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

/// The name of the policy store in the Cline data folder.
pub const POLICY_FILE_NAME: &str = "hooks-policy.json";

/// The default policy store, the same file the `cline-hooks` CLI uses:
/// `$CLINE_DIR/hooks-policy.json` (`CLINE_DIR` set and not empty, relative to `cwd`), else
/// `~/.cline/hooks-policy.json`, the home folder as Node's `os.homedir()` finds it (`HOME`,
/// `USERPROFILE` on Windows, else the system's record), read from this process.
pub fn default_policy_file() -> Option<PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_default();
    default_policy_file_from(|name| std::env::var_os(name), &cwd, dirs::home_dir())
}

/// [`default_policy_file`]'s rule. Pure: `var` reads the environment.
pub fn default_policy_file_from(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
    cwd: &Path,
    system_home: Option<PathBuf>,
) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(dir) = set("CLINE_DIR") {
        return Some(cwd.join(dir).join(POLICY_FILE_NAME));
    }
    let home_var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    let home = set(home_var).map(PathBuf::from).or(system_home)?;
    Some(home.join(".cline").join(POLICY_FILE_NAME))
}

#[cfg(test)]
mod default_store_tests {
    use super::*;

    fn vars<'a>(
        pairs: &'a [(&'a str, &'a str)],
    ) -> impl Fn(&str) -> Option<std::ffi::OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).into())
        }
    }

    #[test]
    fn cline_dir_first_then_home() {
        let cwd = Path::new("/work");
        let home = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
        assert_eq!(
            default_policy_file_from(vars(&[("CLINE_DIR", "/c"), (home, "/h")]), cwd, None),
            Some(PathBuf::from("/c").join(POLICY_FILE_NAME))
        );
        assert_eq!(
            default_policy_file_from(vars(&[("CLINE_DIR", "rel")]), cwd, None),
            Some(cwd.join("rel").join(POLICY_FILE_NAME))
        );
        assert_eq!(
            default_policy_file_from(vars(&[("CLINE_DIR", ""), (home, "/h")]), cwd, None),
            Some(PathBuf::from("/h").join(".cline").join(POLICY_FILE_NAME))
        );
        assert_eq!(
            default_policy_file_from(vars(&[]), cwd, Some(PathBuf::from("/sys"))),
            Some(PathBuf::from("/sys").join(".cline").join(POLICY_FILE_NAME))
        );
        assert_eq!(default_policy_file_from(vars(&[]), cwd, None), None);
    }
}
