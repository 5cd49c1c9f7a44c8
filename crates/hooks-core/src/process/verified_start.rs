//! Starting an approved hook from the bytes that were approved. Just before the start its
//! file is opened once, read through that descriptor and hashed; then (see
//! [`descriptor_start`]):
//! - Linux: the hook starts from a sealed in-memory copy of exactly the bytes checked (a memfd),
//!   never from its file, so no change to the file or its folder after the check (a rewrite in
//!   place, a replacement, an unlink, a sibling named `<hook> (deleted)`) reaches the run. A
//!   program the kernel runs, or a script of an interpreter that reads any path (a shell,
//!   Python, Ruby, Perl), is given the copy's `/proc/self/fd/N`. Node and bun, which look their
//!   script up again by its real path, are started with the runtime's bootstrap (`-e`), which
//!   reads the copy and runs it under the hook's own path (relative imports work). Any other
//!   interpreter is given the copy's path too; one that looks its script up again (tsx) fails
//!   on the copy's name (`/memfd:cline-hook (deleted)`), never reading other bytes. No copy,
//!   no start.
//! - Windows: the file is held open without write or delete sharing until the hook ends, so
//!   nobody can change, replace or delete it from the check to the end of the run. When that
//!   hold cannot be had (another program has the file open and may write it), the hook is not
//!   started. A batch file is handed to `cmd.exe`, which rereads it line by line as it runs, by
//!   the held file's own final path, so a junction, link or `subst` drive on the discovered path
//!   re-pointed after the check cannot change what cmd.exe reads.
//! - Elsewhere (macOS; PowerShell, which wants a `.ps1` path): the file is checked and started
//!   by its path at once; a swap in between can go unnoticed.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::discovery::DiscoveredHook;
use crate::policy::{read_capped, sha256_of_bytes, TrustState, NOT_TRUSTED_CHANGED};

/// The reason a hook is not started when its bytes are not the approved ones at start.
pub fn changed_at_start(path: &Path) -> String {
    format!(
        "{NOT_TRUSTED_CHANGED}: {} changed after it was approved (it was checked again just before its start), so it was not started; review it and approve it again (cline-hooks trust)",
        path.display()
    )
}

/// An approved hook's file, open, whose bytes were just checked against the approval; and,
/// where the start reads from a descriptor, that descriptor.
#[derive(Debug)]
pub(crate) struct VerifiedFile {
    /// Held open until the hook ends (on Windows, that is the lock).
    #[allow(dead_code)]
    file: File,
    /// The sealed copy the process starts from (Linux), and how.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    start_from: Option<(File, Start)>,
    /// Windows, a batch file: the held file's final path, which `cmd.exe` is given.
    #[cfg_attr(not(windows), allow(dead_code))]
    batch_path: Option<String>,
    /// A Claude settings handler's other scripts, held like `file`.
    #[allow(dead_code)]
    also_held: Vec<File>,
}

/// How the process starts from its sealed copy: the copy's `/proc/self/fd/N` in place of the
/// hook's path, or an interpreter's bootstrap (which needs the file's `#!` line).
#[derive(Debug)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Start {
    InPlace,
    Bootstrap(crate::launch::Bootstrap, Vec<u8>),
}

/// Opens and checks `hook`'s file if it must match an approval; `Ok(None)` when it need not.
/// `Err` holds the sentence of why it must not start. The file is read on a blocking thread
/// (inline if none is to be had), not on the caller's task.
pub(crate) async fn verify(hook: &DiscoveredHook) -> Result<Option<VerifiedFile>, String> {
    if hook.trust != TrustState::Approved {
        return Ok(None);
    }
    if let Some(claude) = &hook.claude {
        let scripts = claude.scripts.clone();
        return crate::blocking::run_or_inline(move || check_scripts(&scripts))
            .await
            .unwrap_or_else(|why| Err(format!("{NOT_TRUSTED_CHANGED}: {why}")));
    }
    let Some(approved) = hook.sha256.clone() else {
        return Err(changed_at_start(&hook.path));
    };
    let path = hook.path.clone();
    let kind = hook.kind;
    let program = hook.command.first().cloned().unwrap_or_default();
    crate::blocking::run_or_inline(move || {
        let checked = check(&path, &approved)?;
        checked.start_form(kind, &program, &path).map(Some)
    })
    .await
    .unwrap_or_else(|why| Err(format!("{NOT_TRUSTED_CHANGED}: {why}")))
}

/// A Claude settings handler's scripts, each checked against the bytes its approval covered
/// and held open until it ends (on Windows, without write or delete sharing). Its command's
/// text is the approved one already: it is kept in memory from discovery. The shell opens
/// each script by its path: on macOS and Linux a swap between this check and that open can go
/// unnoticed, as for a hook started by its path.
fn check_scripts(scripts: &[(PathBuf, Option<String>)]) -> Result<Option<VerifiedFile>, String> {
    let mut held = Vec::with_capacity(scripts.len());
    for (path, approved) in scripts {
        // Not waiting on a FIFO put in its place; held against writers on Windows.
        let opened = match cfg!(windows) {
            true => open_held(path).ok(),
            false => crate::discovery::open_regular(path).ok().flatten(),
        };
        let now = opened.and_then(|file| {
            let bytes = read_capped(&file).ok().flatten()?;
            Some((sha256_of_bytes(&bytes), file))
        });
        match (now, approved) {
            (Some((sha256, file)), Some(approved)) if sha256 == *approved => held.push(file),
            // Missing when approved, and still missing: the shell will say so.
            (None, None) if std::fs::symlink_metadata(path).is_err() => {}
            _ => return Err(changed_at_start(path)),
        }
    }
    let mut held = held.into_iter();
    Ok(held.next().map(|file| VerifiedFile {
        file,
        start_from: None,
        batch_path: None,
        also_held: held.collect(),
    }))
}

/// The open file and its bytes, if they are the approved ones.
struct Checked {
    file: File,
    bytes: Vec<u8>,
}

fn check(path: &Path, approved: &str) -> Result<Checked, String> {
    let file = open_held(path).map_err(|e| not_held(path, &e))?;
    match read_capped(&file) {
        Ok(Some(bytes)) if sha256_of_bytes(&bytes) == approved => Ok(Checked { file, bytes }),
        _ => Err(changed_at_start(path)),
    }
}

/// Why `path` could not be opened to be checked and held: `err` from that open.
fn not_held(path: &Path, err: &io::Error) -> String {
    // ERROR_SHARING_VIOLATION: another handle may write the file, so no hold is to be had.
    if cfg!(windows) && err.raw_os_error() == Some(32) {
        return format!(
            "{NOT_TRUSTED_CHANGED}: {} is open in another program that may write it, so the approved bytes could not be held unchanged for the run and it was not started; close it there and run again",
            path.display()
        );
    }
    format!(
        "{NOT_TRUSTED_CHANGED}: {} could not be read to check it against its approval ({err}), so it was not started",
        path.display()
    )
}

impl Checked {
    /// What the process starts from: a sealed copy (in place of the path, or through a
    /// bootstrap), or its path. `Err`: the sentence of why it does not start.
    #[cfg(target_os = "linux")]
    fn start_form(
        self,
        kind: crate::launch::LaunchKind,
        program: &OsString,
        path: &Path,
    ) -> Result<VerifiedFile, String> {
        use crate::launch::{descriptor_start, DescriptorStart};
        let start = match descriptor_start(kind, program, &self.bytes) {
            DescriptorStart::ByPath => None,
            DescriptorStart::Refused(why) => return Err(format!("{NOT_TRUSTED_CHANGED}: {why}")),
            DescriptorStart::Copy => Some(Start::InPlace),
            DescriptorStart::Bootstrap(bootstrap) => {
                let line = self.bytes.split(|b| *b == b'\n').next().unwrap_or_default();
                Some(Start::Bootstrap(bootstrap, line.to_vec()))
            }
        };
        let start_from = match start {
            None => None,
            // Fail closed: the file itself could be read again by another name.
            Some(start) => Some((
                sealed_copy(&self.bytes).map_err(|e| {
                    format!(
                        "{NOT_TRUSTED_CHANGED}: {} could not be started from a sealed copy of its approved bytes ({e}), so it was not started",
                        path.display()
                    )
                })?,
                start,
            )),
        };
        Ok(VerifiedFile {
            file: self.file,
            start_from,
            batch_path: None,
            also_held: Vec::new(),
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn start_form(
        self,
        kind: crate::launch::LaunchKind,
        _program: &OsString,
        _path: &Path,
    ) -> Result<VerifiedFile, String> {
        let _ = self.bytes;
        #[cfg(windows)]
        let batch_path = match kind {
            crate::launch::LaunchKind::Cmd => Some(batch_path(&self.file)?),
            _ => None,
        };
        #[cfg(not(windows))]
        let batch_path = {
            let _ = kind;
            None
        };
        Ok(VerifiedFile {
            file: self.file,
            start_from: None,
            batch_path,
            also_held: Vec::new(),
        })
    }
}

/// The path `cmd.exe` is given for a held batch file: the file's own final path (no junction,
/// link or `subst` drive left in it), which nobody can re-point while the file is held.
#[cfg(windows)]
fn batch_path(file: &File) -> Result<String, String> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{
        GetFinalPathNameByHandleW, FILE_NAME_NORMALIZED, VOLUME_NAME_DOS,
    };
    let handle = file.as_raw_handle();
    let mut wide = vec![0u16; 512];
    loop {
        // SAFETY: `handle` is the open file's; the buffer is valid for its length.
        let len = unsafe {
            GetFinalPathNameByHandleW(
                handle,
                wide.as_mut_ptr(),
                wide.len() as u32,
                FILE_NAME_NORMALIZED | VOLUME_NAME_DOS,
            )
        } as usize;
        if len == 0 {
            let err = io::Error::last_os_error();
            return Err(format!(
                "{NOT_TRUSTED_CHANGED}: the real path of a batch file could not be read ({err}), so it was not started"
            ));
        }
        if len < wide.len() {
            wide.truncate(len);
            break;
        }
        wide.resize(len + 1, 0);
    }
    let path = crate::launch::batch_path_of_final(&String::from_utf16_lossy(&wide));
    match crate::launch::cmd_unsafe_path(&path) {
        Some(why) => Err(format!(
            "{NOT_TRUSTED_CHANGED}: {why} ({path}), so it was not started"
        )),
        None => Ok(path),
    }
}

/// A memfd holding `bytes`, sealed against any change, executable, closed on exec (the child
/// keeps its copy: see [`VerifiedFile::keep_in_child`]).
#[cfg(target_os = "linux")]
fn sealed_copy(bytes: &[u8]) -> io::Result<File> {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    // MFD_EXEC (Linux 6.3): ask for an executable memfd where the default may be otherwise.
    const MFD_EXEC: libc::c_uint = 0x10;
    let name = c"cline-hook";
    let flags = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
    // SAFETY: a NUL-terminated name and plain flags; the result is checked.
    let mut fd = unsafe { libc::memfd_create(name.as_ptr(), flags | MFD_EXEC) };
    if fd == -1 {
        // SAFETY: as above, without MFD_EXEC for kernels before 6.3.
        fd = unsafe { libc::memfd_create(name.as_ptr(), flags) };
    }
    if fd == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a new descriptor owned by nothing else.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(bytes)?;
    use std::os::fd::AsRawFd;
    let seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE | libc::F_SEAL_SEAL;
    // SAFETY: fcntl on a descriptor this function owns.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// Opens the file for reading; on Windows with read sharing only, so that it cannot be
/// written, replaced or deleted while the handle is held (refused when someone already has
/// it open for writing: the hook is then not started).
fn open_held(path: &Path) -> io::Result<File> {
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_SHARE_READ: u32 = 0x1;
        // No fallback to an open without the hold: cmd.exe rereads a batch file as it runs,
        // and a writer's handle would change what runs after the check (see `not_held`).
        std::fs::OpenOptions::new()
            .read(true)
            .share_mode(FILE_SHARE_READ)
            .open(path)
    }
    #[cfg(not(windows))]
    File::open(path)
}

impl VerifiedFile {
    /// The argv to start `hook` with: on Linux, where it starts from its sealed copy, its path
    /// replaced by the copy's (`/proc/self/fd/N`, valid in the child, which keeps it open: see
    /// [`VerifiedFile::keep_in_child`]), or its interpreter's bootstrap argv (see
    /// [`bootstrap_argv`](crate::launch::bootstrap_argv)); on Windows, a batch file's path
    /// replaced by the held file's final path; otherwise its argv as it is.
    pub(crate) fn argv(&self, hook: &DiscoveredHook) -> Vec<OsString> {
        #[cfg(windows)]
        if let Some(real) = &self.batch_path {
            let mut argv = hook.command.clone();
            if let Some(tail) = argv.last_mut() {
                *tail = OsString::from(crate::launch::cmd_line_tail(real));
            }
            return argv;
        }
        #[cfg(target_os = "linux")]
        if let Some((from, start)) = &self.start_from {
            use std::os::fd::AsRawFd;
            if let Start::Bootstrap(bootstrap, head) = start {
                return crate::launch::bootstrap_argv(
                    *bootstrap,
                    hook.kind,
                    &hook.command,
                    head,
                    &hook.path,
                    from.as_raw_fd(),
                );
            }
            let own = OsString::from(format!("/proc/self/fd/{}", from.as_raw_fd()));
            return hook
                .command
                .iter()
                .map(|arg| {
                    if Path::new(arg) == hook.path {
                        own.clone()
                    } else {
                        arg.clone()
                    }
                })
                .collect();
        }
        hook.command.clone()
    }

    /// Linux: keeps the start's descriptor open across `exec` in the child (and only there),
    /// so the kernel or the interpreter can read it. (A confined start, which is not a
    /// `Command`'s, keeps [`VerifiedFile::kept_fd`] open itself.)
    pub(crate) fn keep_in_child(&self, command: &mut tokio::process::Command) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = self.kept_fd() {
            // SAFETY: the closure runs in the child between fork and exec and calls only
            // fcntl, which is async-signal-safe; `fd` stays open in the parent until the
            // start returns, so the child's copy is the verified one.
            unsafe {
                command.pre_exec(move || {
                    if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = command;
    }

    /// Linux: the descriptor the child must keep open across `exec` (the sealed copy its argv
    /// names), if it starts from one; open until this is dropped.
    #[cfg(target_os = "linux")]
    pub(crate) fn kept_fd(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        self.start_from.as_ref().map(|(from, _)| from.as_raw_fd())
    }
}
