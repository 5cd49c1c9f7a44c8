//! Reading the hooks folders: listing each one (or reusing the listing of a folder that has
//! not changed), inspecting the entries named like the hooks asked for, resolving how each
//! starts, and saying why a folder cannot be read. With inspect.rs, the only part of
//! discovery that touches the file system.

use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::hook_files::stem_key;
use super::inspect::{inspect, ShebangRule};
use super::{
    could_be_hook_file, is_file_of, launch_for, Contents, Entry, HookDir, Listing, Platform,
    Profile, Source, Stray,
};
use crate::launch::Interpreters;
use crate::policy::Fingerprints;

/// How many strays of one hook a folder keeps: a folder of thousands of look-alikes is named
/// by its first ones (a run's warnings stay bounded).
const STRAYS_LIMIT: usize = 16;

/// Scans hooks directories for one factory, remembering each directory's listing so that a
/// directory that has not changed is not listed again: a rescan of an unchanged folder of
/// 100,000 files costs one `stat` of the folder plus the inspection of the files named after
/// the hooks asked for (however many other files are named like hooks).
#[derive(Debug, Default)]
pub struct Scanner {
    listed: HashMap<PathBuf, Listed>,
    /// The fingerprints of the files inspected, rehashed only when a file's stamp changes.
    fingerprints: Fingerprints,
}

/// One directory's entries that could be hooks, as of its change stamp.
#[derive(Debug, Clone)]
struct Listed {
    stamp: Stamp,
    /// Each with the type the listing reported (no `stat` needed for it).
    candidates: Vec<(String, Option<std::fs::FileType>)>,
    /// The files meant for a known hook that are none of its files.
    strays: Arc<[Stray]>,
    /// The candidates by their stem in ASCII lower case (`pretooluse` for `PreToolUse.ps1`),
    /// so a rescan finds the files of the hooks asked for without looking at the others.
    by_stem: HashMap<String, Vec<usize>>,
}

impl Listed {
    fn new(
        stamp: Stamp,
        mut candidates: Vec<(String, Option<std::fs::FileType>)>,
        mut strays: Vec<Stray>,
        profile: Profile,
        platform: &Platform,
    ) -> Listed {
        strays.sort_by(|a, b| a.name.cmp(&b.name));
        let mut kept: HashMap<&'static str, usize> = HashMap::new();
        strays.retain(|stray| {
            let count = kept.entry(stray.meant).or_default();
            *count += 1;
            *count <= STRAYS_LIMIT
        });
        // The last one kept of each hook says how many were left out, so a run says so too.
        for stray in strays.iter_mut().rev() {
            if let Some(count) = kept.remove(stray.meant) {
                stray.more = count.saturating_sub(STRAYS_LIMIT);
            }
        }
        candidates.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_stem: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, (name, _)) in candidates.iter().enumerate() {
            let stem = stem_key(name, profile, platform);
            by_stem.entry(stem).or_default().push(at);
        }
        Listed {
            stamp,
            candidates,
            strays: strays.into(),
            by_stem,
        }
    }

    /// The candidates that are files of the hooks in `wanted` (all of them for `None`), in
    /// name order.
    fn of_hooks<'a>(
        &'a self,
        wanted: Option<&BTreeSet<String>>,
        profile: Profile,
        platform: &Platform,
    ) -> Vec<&'a (String, Option<std::fs::FileType>)> {
        let Some(wanted) = wanted else {
            return self.candidates.iter().collect();
        };
        let mut at: Vec<usize> = wanted
            .iter()
            .filter_map(|hook| self.by_stem.get(&hook.to_ascii_lowercase()))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        at.into_iter()
            .map(|i| &self.candidates[i])
            .filter(|(name, _)| {
                wanted
                    .iter()
                    .any(|hook| is_file_of(name, hook, profile, platform))
            })
            .collect()
    }
}

impl Scanner {
    /// Scans `dirs` in order, inspecting the files of the hooks in `wanted` only. Only the
    /// directories of this scan stay remembered.
    pub fn scan(
        &mut self,
        dirs: Vec<HookDir>,
        wanted: &BTreeSet<String>,
        profile: Profile,
        platform: &Platform,
        tools: &mut Interpreters,
    ) -> Vec<Listing> {
        let mut previous = std::mem::take(&mut self.listed);
        self.fingerprints.begin();
        dirs.into_iter()
            .map(|dir| {
                if dir.source.is_claude() {
                    let contents = super::scan_claude_dir(&dir, tools);
                    return Listing {
                        real_dir: crate::policy::policy_dir(&dir.path),
                        dir,
                        contents,
                        strays: Arc::default(),
                    };
                }
                let previous = previous.remove(&dir.path);
                let (mut contents, listed, strays) = scan_dir_with(
                    &dir.path,
                    Some(wanted),
                    profile,
                    platform,
                    tools,
                    previous,
                    &mut self.fingerprints,
                );
                if dir.source == Source::Managed {
                    contents = super::managed_scan::refuse_unsafe(&dir.path, contents);
                }
                if let Some(listed) = listed {
                    self.listed.insert(dir.path.clone(), listed);
                }
                let real_dir = match contents {
                    Contents::Missing => None,
                    _ => crate::policy::policy_dir(&dir.path),
                };
                Listing {
                    dir,
                    contents,
                    real_dir,
                    strays,
                }
            })
            .collect()
    }
}

/// Lists and inspects one hooks directory with nothing remembered: every entry named like
/// some hook is inspected (a [`Scanner`] inspects those of the hooks asked for only).
pub fn scan_dir(
    dir: &Path,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
) -> Contents {
    let fingerprints = &mut Fingerprints::default();
    scan_dir_with(dir, None, profile, platform, tools, None, fingerprints).0
}

/// Lists one hooks directory (or reuses `previous`, its listing from the last scan, if the
/// directory has not changed since) and inspects the entries that could be hooks: each costs
/// an `open`, an `fstat` and a read of its first bytes, plus the PATH lookups of its
/// interpreter (each once per scan). Also returns what to remember for the next scan, and its
/// strays.
fn scan_dir_with(
    dir: &Path,
    wanted: Option<&BTreeSet<String>>,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
    previous: Option<Listed>,
    fingerprints: &mut Fingerprints,
) -> (Contents, Option<Listed>, Arc<[Stray]>) {
    // The clock is read before the directory, so that a change made after this point can
    // never carry a time that counts as settled (see `settled`).
    let now = SystemTime::now();
    let listed = match list(dir, profile, platform, previous, now) {
        Ok(listed) => listed,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            tracing::debug!(folder = %dir.display(), "hooks folder does not exist");
            return (Contents::Missing, None, Arc::default());
        }
        // A file where the folder would be (`.clinerules` is also a rules file) means no hooks.
        // Wine reports it as an invalid name where Windows says ERROR_DIRECTORY: look.
        Err(err)
            if DirError::of(&err) == DirError::NotADirectory
                || (DirError::of(&err) == DirError::InvalidName && dir.is_file()) =>
        {
            return (Contents::Missing, None, Arc::default())
        }
        Err(err) => {
            let why = dir_problem(dir, DirError::of(&err), &err.to_string());
            tracing::debug!(folder = %dir.display(), why, "hooks folder cannot be read");
            return (Contents::Unreadable(why), None, Arc::default());
        }
    };
    // Windows' extension profile starts files by their extension, never by a #! line.
    let shebang_rule = match (profile, platform) {
        (Profile::Cli, _) => ShebangRule::Sdk,
        (Profile::Extension, Platform::Unix) => ShebangRule::Kernel,
        (Profile::Extension, _) => ShebangRule::Unread,
    };
    let mut entries = Vec::new();
    for (name, listed_as) in listed.of_hooks(wanted, profile, platform) {
        let path = dir.join(name);
        // Gone since the listing: it is not there, so it is not listed.
        let Some((kind, shebang, sha256, header)) =
            inspect(&path, *listed_as, shebang_rule, fingerprints)
        else {
            continue;
        };
        let launch = launch_for(&path, shebang.as_deref(), profile, platform, tools);
        entries.push(Entry {
            launch,
            kind,
            name: name.clone(),
            shebang,
            sha256,
            header,
        });
    }
    tracing::debug!(
        folder = %dir.display(),
        hook_files = entries.len(),
        candidates = listed.candidates.len(),
        "hooks folder scanned"
    );
    let strays = listed.strays.clone();
    (
        Contents::Entries(entries),
        listed.stamp.reusable.then_some(listed),
        strays,
    )
}

/// The entries of `dir` that could be hooks, sorted by name: `previous` again when the
/// directory's stamp shows it unchanged and settled at `now`, else a fresh listing.
fn list(
    dir: &Path,
    profile: Profile,
    platform: &Platform,
    previous: Option<Listed>,
    now: SystemTime,
) -> io::Result<Listed> {
    let stamp = Stamp::of(dir, now);
    if let Some(previous) = previous {
        if stamp.reusable && previous.stamp == stamp {
            return Ok(previous);
        }
    }
    let mut candidates = Vec::new();
    let mut strays = Vec::new();
    for item in std::fs::read_dir(dir)? {
        let Ok(item) = item else { continue };
        let Ok(name) = item.file_name().into_string() else {
            continue;
        };
        let candidate = could_be_hook_file(&name, profile, platform);
        let file_type = item.file_type().ok();
        if let Some(meant) = crate::diagnosis::meant_hook(&name) {
            // A folder named like a hook is a helper's, unless it stands where a hook would.
            let folder = file_type.is_some_and(|t| t.is_dir());
            let runs_as_it = candidate && is_file_of(&name, meant, profile, platform);
            if !(folder || runs_as_it) {
                strays.push(Stray {
                    name: name.clone(),
                    meant,
                    more: 0,
                });
            }
        }
        if candidate {
            candidates.push((name, file_type));
        }
    }
    Ok(Listed::new(stamp, candidates, strays, profile, platform))
}

/// How long after its last change a directory's listing may be reused. Timestamps are
/// coarse (a kernel tick, or 2 s on FAT): a file created in the same tick as the last
/// change leaves the stamp as it was. A directory whose last change is older than this
/// cannot be changed again without its stamp changing, so only then is its listing kept.
pub const SETTLE: Duration = Duration::from_secs(3);

/// What identifies a directory's contents without reading them: on macOS/Linux creating,
/// removing or renaming an entry updates the directory's change time (POSIX), and its inode
/// tells a replaced directory apart. Elsewhere nothing is reusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    /// Device, inode, size, link count, then modification and change times (s, ns).
    id: Option<([u64; 4], [i64; 4])>,
    /// Whether a listing made now may be reused while the stamp stays the same.
    reusable: bool,
}

impl Stamp {
    #[cfg(unix)]
    fn of(dir: &Path, now: SystemTime) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        let Ok(m) = std::fs::metadata(dir) else {
            return Stamp {
                id: None,
                reusable: false,
            };
        };
        let changed = (m.ctime(), m.ctime_nsec()).max((m.mtime(), m.mtime_nsec()));
        Stamp {
            id: Some((
                [m.dev(), m.ino(), m.size(), m.nlink()],
                [m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()],
            )),
            reusable: settled(changed, now),
        }
    }

    #[cfg(not(unix))]
    fn of(_dir: &Path, _now: SystemTime) -> Stamp {
        Stamp {
            id: None,
            reusable: false,
        }
    }
}

/// Whether a directory last changed at `changed` (seconds and nanoseconds since the epoch)
/// is settled at `now`: changed more than [`SETTLE`] ago. Pure.
#[cfg_attr(not(unix), allow(dead_code))]
fn settled(changed: (i64, i64), now: SystemTime) -> bool {
    let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
        return false;
    };
    let (Ok(secs), Ok(nanos)) = (u64::try_from(changed.0), u32::try_from(changed.1)) else {
        return false;
    };
    Duration::new(secs, nanos.min(999_999_999)) + SETTLE < now
}

/// Why a hooks directory could not be listed, as far as the advice differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirError {
    /// ELOOP: the path goes through a symbolic link loop.
    Loop,
    /// ENOTDIR: something on the path is a file.
    NotADirectory,
    /// ENAMETOOLONG.
    NameTooLong,
    /// EACCES/EPERM.
    PermissionDenied,
    /// A name the system does not accept (Windows' `* ? " < > |`, a NUL byte).
    InvalidName,
    /// Anything else: the system's message is given as it is.
    Other,
}

impl DirError {
    /// Which of these `err` is.
    pub fn of(err: &io::Error) -> DirError {
        match err.raw_os_error() {
            Some(code) if code == errno::LOOP => DirError::Loop,
            Some(code) if code == errno::NOT_A_DIRECTORY => DirError::NotADirectory,
            Some(code) if code == errno::NAME_TOO_LONG => DirError::NameTooLong,
            Some(code) if errno::INVALID_NAME == Some(code) => DirError::InvalidName,
            _ if err.kind() == io::ErrorKind::PermissionDenied => DirError::PermissionDenied,
            // std refuses a path holding a NUL byte with InvalidInput, before any system call.
            _ if matches!(
                err.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::InvalidFilename
            ) =>
            {
                DirError::InvalidName
            }
            _ => DirError::Other,
        }
    }
}

/// The reason every hook of an unlistable directory is reported disabled: what is wrong with
/// `dir` and how to fix it. `detail` is the system's message, for errors without advice.
pub fn dir_problem(dir: &Path, error: DirError, detail: &str) -> String {
    let dir = dir.display();
    match error {
        DirError::Loop => format!(
            "its hooks directory {dir} is a symbolic link loop; fix or remove the link"
        ),
        DirError::NotADirectory => format!(
            "its hooks directory {dir} goes through a file, not a folder; move the file or name another folder"
        ),
        DirError::NameTooLong => format!(
            "its hooks directory {dir} has a path longer than the system allows; use a shorter path"
        ),
        DirError::PermissionDenied => format!(
            "its hooks directory {dir} cannot be read (permission denied); fix the directory's permissions"
        ),
        DirError::InvalidName => format!(
            "its hooks directory {dir} is not a valid path on this system (a name in it holds a character the system does not allow, such as * ? \" < > | or a control character); correct the path"
        ),
        DirError::Other => format!("its hooks directory {dir} cannot be read ({detail})"),
    }
}

/// The system error codes `DirError` tells apart.
#[cfg(unix)]
mod errno {
    pub const LOOP: i32 = libc::ELOOP;
    pub const NOT_A_DIRECTORY: i32 = libc::ENOTDIR;
    pub const NAME_TOO_LONG: i32 = libc::ENAMETOOLONG;
    /// Unix takes any byte but `/` and NUL in a name (a NUL is refused by std, see above).
    pub const INVALID_NAME: Option<i32> = None;
}

#[cfg(not(unix))]
mod errno {
    /// ERROR_CANT_RESOLVE_FILENAME
    pub const LOOP: i32 = 1921;
    /// ERROR_DIRECTORY
    pub const NOT_A_DIRECTORY: i32 = 267;
    /// ERROR_FILENAME_EXCED_RANGE
    pub const NAME_TOO_LONG: i32 = 206;
    /// ERROR_INVALID_NAME
    pub const INVALID_NAME: Option<i32> = Some(123);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::fixtures::scratch;
    #[cfg(unix)]
    use crate::launch::tests::FixedMachine;

    #[test]
    fn a_rescan_inspects_only_the_files_of_the_hooks_asked_for() {
        let names = [
            "Log1",
            "PreToolUse",
            "PreToolUse.ps1",
            "pretooluse.cmd",
            " pretooluse .SH",
            "TaskStart",
            "f2.sh",
        ];
        let wanted: BTreeSet<String> = ["PreToolUse".to_owned()].into();
        let of = |profile, platform: &Platform| {
            let stamp = Stamp {
                id: None,
                reusable: false,
            };
            let listed = Listed::new(stamp, candidates_of(&names), Vec::new(), profile, platform);
            listed
                .of_hooks(Some(&wanted), profile, platform)
                .into_iter()
                .map(|(name, _)| name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(of(Profile::Extension, &Platform::Unix), ["PreToolUse"]);
        assert_eq!(
            of(Profile::Extension, &Platform::windows("")),
            ["PreToolUse", "PreToolUse.ps1", "pretooluse.cmd"]
        );
        // The CLI profile files ` pretooluse .SH` under its trimmed, lowered name too.
        assert_eq!(
            of(Profile::Cli, &Platform::Unix),
            [" pretooluse .SH", "PreToolUse", "PreToolUse.ps1"]
        );
    }

    fn candidates_of(names: &[&str]) -> Vec<(String, Option<std::fs::FileType>)> {
        names.iter().map(|n| ((*n).to_owned(), None)).collect()
    }

    #[test]
    fn a_listing_is_reused_only_while_its_directory_is_unchanged_and_settled() {
        let t = |secs: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        assert!(settled((100, 0), t(104)));
        assert!(
            !settled((100, 0), t(103)),
            "within SETTLE of the last change"
        );
        assert!(!settled((100, 0), t(90)), "a change in the future");
        assert!(!settled((-1, 0), t(104)));

        let dir = scratch("reuse");
        std::fs::write(dir.join("PreToolUse"), "#!/bin/sh\n").unwrap();
        let later = SystemTime::now() + SETTLE + Duration::from_secs(1);
        let list_at =
            |previous, now| list(&dir, Profile::Extension, &Platform::Unix, previous, now).unwrap();
        let first = list_at(None, later);
        assert_eq!(first.candidates.len(), 1);
        assert_eq!(first.stamp.reusable, cfg!(unix));
        // Unchanged: the remembered listing comes back without reading the directory.
        let mut marked = first.clone();
        marked.candidates.clear();
        assert_eq!(
            list_at(Some(marked.clone()), later).candidates.len(),
            usize::from(!cfg!(unix))
        );
        // Just changed (the real clock): listed again, and not to be reused.
        let fresh = list_at(Some(marked.clone()), SystemTime::now());
        assert_eq!((fresh.candidates.len(), fresh.stamp.reusable), (1, false));
        // Changed since: listed again.
        std::fs::write(dir.join("TaskStart"), "#!/bin/sh\n").unwrap();
        assert_eq!(list_at(Some(marked), later).candidates.len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn each_directory_error_gets_its_own_advice() {
        let dir = Path::new("/w/.clinerules/hooks");
        let says = |error, detail| dir_problem(dir, error, detail);
        let lp = says(DirError::Loop, "");
        assert!(lp.contains("/w/.clinerules/hooks") && lp.contains("symbolic link loop"));
        assert!(
            lp.contains("fix or remove the link") && !lp.contains("permission"),
            "{lp}"
        );
        let nd = says(DirError::NotADirectory, "");
        assert!(
            nd.contains("a file, not a folder") && !nd.contains("permission"),
            "{nd}"
        );
        let long = says(DirError::NameTooLong, "");
        assert!(
            long.contains("shorter path") && !long.contains("permission"),
            "{long}"
        );
        let denied = says(DirError::PermissionDenied, "");
        assert!(
            denied.contains("fix the directory's permissions"),
            "{denied}"
        );
        let other = says(DirError::Other, "Input/output error (os error 5)");
        assert!(
            other.contains("(Input/output error (os error 5))"),
            "{other}"
        );
        assert!(!other.contains("permission"), "{other}");
    }

    #[cfg(unix)]
    #[test]
    fn system_errors_map_to_their_advice() {
        let of = |code| DirError::of(&io::Error::from_raw_os_error(code));
        assert_eq!(of(libc::ELOOP), DirError::Loop);
        assert_eq!(of(libc::ENOTDIR), DirError::NotADirectory);
        assert_eq!(of(libc::ENAMETOOLONG), DirError::NameTooLong);
        assert_eq!(of(libc::EACCES), DirError::PermissionDenied);
        assert_eq!(of(libc::EPERM), DirError::PermissionDenied);
        assert_eq!(of(libc::EIO), DirError::Other);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_as_hooks_folder_is_reported_as_a_loop() {
        let tmp = std::env::temp_dir().join(format!(
            "cline-hooks-loop-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
        ));
        std::fs::create_dir_all(&tmp).unwrap();
        let looped = tmp.join("loop");
        std::os::unix::fs::symlink(&looped, &looped).unwrap();
        let machine = &mut FixedMachine::default();
        let mut tools = Interpreters::new(machine, None, false);
        let got = scan_dir(&looped, Profile::Extension, &Platform::Unix, &mut tools);
        let _ = std::fs::remove_dir_all(&tmp);
        let Contents::Unreadable(why) = got else {
            panic!("{got:?}")
        };
        assert!(why.contains("symbolic link loop"), "{why}");
    }
}
