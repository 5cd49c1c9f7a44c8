//! The hook logs folder held open without following links (the I/O edge of `hookLogs`): each
//! folder below the trusted anchor is opened as itself, never through a link, and every file
//! of the folder is opened, and renamed, relative to the folder held, so nothing a repository
//! plants (a link, a hard link, a swap racing the runtime) makes a write land outside it; and
//! an entry appended to its log there ([`HookLogEntry::append`]), under the log's lock. What a
//! handle may be is decided by [`super::judge`].

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::hook_logs::{
    judge, must_rotate, Access, HookLogEntry, HookLogError, LogsPlace, Meant, Problem, Seen,
    SeenKind,
};
use crate::file_lock::{lock_within, LockRefused};

/// The logs folder, open. On Unix its descriptor (every file is opened, every rename done,
/// relative to it); on Windows the handles of it and of each folder checked above it, held
/// without delete sharing so none can be renamed or replaced while the entry is written.
#[derive(Debug)]
pub(crate) struct LogsFolder {
    path: PathBuf,
    #[cfg(unix)]
    dir: File,
    #[cfg(windows)]
    _held: Vec<File>,
}

impl LogsFolder {
    /// Opens the folder at `place`: its anchor as the user's own path (links followed), each
    /// folder below without following a link, and creates the last (the logs folder) when
    /// missing.
    pub(crate) fn open(place: &LogsPlace) -> Result<LogsFolder, Problem> {
        let last = place.below.len().saturating_sub(1);
        let mut path = place.anchor.clone();
        #[cfg(unix)]
        let mut dir = sys::open_anchor(&path).map_err(|error| Problem::Open {
            path: path.clone(),
            error,
        })?;
        #[cfg(windows)]
        let mut held = Vec::new();
        for (at, name) in place.below.iter().enumerate() {
            path.push(name);
            #[cfg(unix)]
            {
                if at == last {
                    sys::make_dir_at(&dir, name).map_err(|error| Problem::CreateFolder {
                        path: path.clone(),
                        error,
                    })?;
                }
                let next = sys::open_at(&dir, name, Meant::Folder)
                    .map_err(|e| sys::problem(&path, e, Meant::Folder))?;
                checked(&next, &path, Meant::Folder)?;
                dir = next;
            }
            #[cfg(windows)]
            {
                if at == last {
                    match std::fs::create_dir(&path) {
                        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                            return Err(Problem::CreateFolder {
                                path: path.clone(),
                                error: e,
                            });
                        }
                        _ => {}
                    }
                }
                let next = sys::open(&path, Meant::Folder).map_err(|error| Problem::Open {
                    path: path.clone(),
                    error,
                })?;
                checked(&next, &path, Meant::Folder)?;
                held.push(next);
            }
        }
        Ok(LogsFolder {
            path,
            #[cfg(unix)]
            dir,
            #[cfg(windows)]
            _held: held,
        })
    }

    /// The folder's path, for messages.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the file `name` of the folder for `access`, creating it, and returns it once
    /// [`judge`] accepts it (a regular file with no other name, not a link).
    pub(crate) fn open_file(&self, name: &OsStr, access: Access) -> Result<File, Problem> {
        let path = self.path.join(name);
        #[cfg(unix)]
        let file = sys::open_at(&self.dir, name, Meant::File(access))
            .map_err(|e| sys::problem(&path, e, Meant::File(access)))?;
        #[cfg(windows)]
        let file = sys::open(&path, Meant::File(access)).map_err(|error| Problem::Open {
            path: path.clone(),
            error,
        })?;
        checked(&file, &path, Meant::File(access))?;
        Ok(file)
    }

    /// Renames the entry `from` of the folder to `to`, replacing the entry `to` itself (a link
    /// there is replaced, never followed; a hard link there only loses that name).
    pub(crate) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        #[cfg(unix)]
        return sys::rename_at(&self.dir, from, to);
        #[cfg(windows)]
        {
            // Windows renames over an existing file only with a flag std may not pass (Wine
            // refuses); the log's lock makes removing it first safe. Removing a link removes the
            // link, and the folders held cannot be swapped, so both paths stay in this folder.
            let _ = std::fs::remove_file(self.path.join(to));
            std::fs::rename(self.path.join(from), self.path.join(to))
        }
    }
}

impl HookLogEntry {
    /// Appends the entry (one write), renaming the log to `.log.1` first when it would pass
    /// [`HOOK_LOG_CAP`](super::HOOK_LOG_CAP), under the log's lock; creates the logs folder
    /// (not its parent). Every file is opened and renamed within the logs folder held open
    /// (reached through no link below the anchor of its [`LogsPlace`]), so nothing outside it
    /// is created, written or renamed.
    pub fn append(&self) -> Result<(), HookLogError> {
        self.append_in_folder().map_err(|problem| HookLogError {
            log: self.log.clone(),
            problem,
        })
    }

    fn append_in_folder(&self) -> Result<(), Problem> {
        let folder = LogsFolder::open(&self.place)?;
        let name = self.log.file_name().unwrap_or(OsStr::new("hook.log"));
        let _lock = lock(&folder, &with_suffix(name, ".lock"))?;
        // Opened (and so checked) before anything is renamed.
        let mut file = folder.open_file(name, Access::Append)?;
        let current = file.metadata().map_or(0, |m| m.len());
        if must_rotate(current, self.text.len()) {
            let old = with_suffix(name, ".1");
            folder.rename(name, &old).map_err(|error| Problem::Rename {
                to: folder.path().join(&old),
                error,
            })?;
            // The renamed file is open: start the new log.
            file = folder.open_file(name, Access::Append)?;
        }
        match file.write(self.text.as_bytes()) {
            Ok(n) if n == self.text.len() => Ok(()),
            Ok(written) => Err(Problem::ShortWrite {
                written,
                len: self.text.len(),
            }),
            Err(e) => Err(Problem::Write(e)),
        }
    }
}

/// `name` with `suffix` appended (`PreToolUse.log` → `PreToolUse.log.lock`).
fn with_suffix(name: &OsStr, suffix: &str) -> OsString {
    let mut name = name.to_owned();
    name.push(suffix);
    name
}

/// Takes the OS lock on the lock file `name` of `folder` (released when the file is closed,
/// even if the process dies), waiting up to [`LOCK_WAIT`]. The lock file stays: deleting it
/// would let two writers lock two different files.
fn lock(folder: &LogsFolder, name: &OsStr) -> Result<File, Problem> {
    let file = folder.open_file(name, Access::Lock)?;
    let path = folder.path().join(name);
    lock_within(file, LOCK_WAIT, Duration::from_millis(20)).map_err(|refused| match refused {
        LockRefused::Held => Problem::LockHeld {
            path,
            seconds: LOCK_WAIT.as_secs(),
        },
        LockRefused::Failed(error) => Problem::LockFailed { path, error },
    })
}

/// Longest wait for another writer's lock on a hook log.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// `file` (opened at `path` as `meant`) once [`judge`] accepts what the system says it is.
fn checked(file: &File, path: &Path, meant: Meant) -> Result<(), Problem> {
    let seen = sys::seen(file).map_err(|error| Problem::Open {
        path: path.to_path_buf(),
        error,
    })?;
    judge(meant, seen, path)
}

#[cfg(unix)]
mod sys {
    use std::ffi::{CString, OsStr};
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    use std::path::Path;

    use super::{Access, Meant, Problem, Seen, SeenKind};

    fn c_name(name: &OsStr) -> io::Result<CString> {
        CString::new(name.as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "its name holds a NUL byte"))
    }

    /// The anchor: the user's own folder, links in its path followed.
    pub(super) fn open_anchor(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY)
            .open(path)
    }

    /// Opens `name` in `dir` as `meant`, never following a link there. Files are opened
    /// without blocking: a FIFO nobody reads is then an error at once, not a hang.
    pub(super) fn open_at(dir: &File, name: &OsStr, meant: Meant) -> io::Result<File> {
        let flags = match meant {
            Meant::Folder => libc::O_RDONLY | libc::O_DIRECTORY,
            Meant::File(Access::Append) => {
                libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_NONBLOCK
            }
            Meant::File(Access::Lock) => libc::O_RDWR | libc::O_CREAT | libc::O_NONBLOCK,
        };
        let name = c_name(name)?;
        let mode: libc::c_uint = 0o666;
        // SAFETY: a descriptor that `dir` owns and a NUL-terminated name; the descriptor
        // returned is owned by the File made of it below.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                name.as_ptr(),
                flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                mode,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Makes the folder `name` in `dir` (a link there is left as it is: the open refuses it).
    pub(super) fn make_dir_at(dir: &File, name: &OsStr) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: a descriptor that `dir` owns and a NUL-terminated name.
        if unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), 0o777) } == 0 {
            return Ok(());
        }
        match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            e => Err(e),
        }
    }

    /// Renames the entry `from` of `dir` to `to`, in place of any entry `to`.
    pub(super) fn rename_at(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let (from, to) = (c_name(from)?, c_name(to)?);
        let fd = dir.as_raw_fd();
        // SAFETY: a descriptor that `dir` owns and NUL-terminated names.
        if unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// What `file` is.
    pub(super) fn seen(file: &File) -> io::Result<Seen> {
        let meta = file.metadata()?;
        let kind = if meta.file_type().is_symlink() {
            SeenKind::Link
        } else if meta.is_file() {
            SeenKind::File
        } else if meta.is_dir() {
            SeenKind::Folder
        } else {
            SeenKind::Other
        };
        Ok(Seen {
            kind,
            links: meta.nlink(),
        })
    }

    /// The problem of an open of `path` as `meant` that failed with `e`.
    pub(super) fn problem(path: &Path, e: io::Error, meant: Meant) -> Problem {
        let path = path.to_path_buf();
        match e.raw_os_error() {
            // O_NOFOLLOW met a link (FreeBSD says EMLINK).
            Some(libc::ELOOP | libc::EMLINK) => Problem::Link(path),
            // Linux says ENOTDIR for a link opened with O_DIRECTORY: which it was is read
            // again only to word the warning.
            Some(libc::ENOTDIR) if meant == Meant::Folder => {
                if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                    Problem::Link(path)
                } else {
                    Problem::NotAFolder(path)
                }
            }
            Some(libc::ENXIO) => Problem::Fifo(path),
            Some(libc::EISDIR) => Problem::NotAFile(path),
            _ => Problem::Open { path, error: e },
        }
    }
}

#[cfg(windows)]
mod sys {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::windows::fs::OpenOptionsExt;
    use std::os::windows::io::AsRawHandle;
    use std::path::Path;

    use windows_sys::Win32::Storage::FileSystem::{
        GetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_DEVICE,
        FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS,
        FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_READ, FILE_SHARE_WRITE,
    };

    use super::{Access, Meant, Seen, SeenKind};

    /// Opens `path` as `meant`: a link (symbolic link, junction) at its last part is opened as
    /// itself (FILE_FLAG_OPEN_REPARSE_POINT), for [`seen`] to report. A folder is held without
    /// delete sharing: it cannot be renamed or replaced while held.
    pub(super) fn open(path: &Path, meant: Meant) -> io::Result<File> {
        let mut options = OpenOptions::new();
        match meant {
            Meant::Folder => {
                options
                    .read(true)
                    .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
                    .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT);
            }
            Meant::File(Access::Lock) => {
                options
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
            }
            Meant::File(Access::Append) => {
                options
                    .append(true)
                    .create(true)
                    .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
            }
        }
        options.open(path)
    }

    /// What `file` is: its attributes and number of names, from the handle itself.
    pub(super) fn seen(file: &File) -> io::Result<Seen> {
        // SAFETY: a plain C struct, all zeros is a valid value.
        let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: a handle that `file` owns and a struct to fill.
        if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let attributes = info.dwFileAttributes;
        let kind = if attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
            SeenKind::Link
        } else if attributes & FILE_ATTRIBUTE_DEVICE != 0 {
            SeenKind::Other
        } else if attributes & FILE_ATTRIBUTE_DIRECTORY != 0 {
            SeenKind::Folder
        } else {
            SeenKind::File
        };
        Ok(Seen {
            kind,
            links: u64::from(info.nNumberOfLinks),
        })
    }
}
