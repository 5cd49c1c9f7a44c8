//! Starting an approved hook from the bytes that were approved. Just before the start its
//! file is opened once, read through that descriptor and hashed; then (see
//! [`descriptor_start`]):
//! - Linux: a program the kernel runs, or a script of a shell, Python, Ruby or Perl, starts
//!   from a sealed in-memory copy of exactly the bytes checked (`/proc/self/fd/N` of a memfd),
//!   so no change to the file after the check, in place or by replacement, reaches the run. A
//!   script of Node (or another interpreter that resolves its script's real path and reads it
//!   again) starts from the checked file's descriptor: a rename or replacement after the check
//!   cannot change what runs, a rewrite in place before Node reads it can.
//! - Windows: the file is held open without write or delete sharing until the hook ends, so
//!   nobody can change, replace or delete it from the check to the end of the run (when another
//!   program already has it open for writing, it is checked without that hold).
//! - Elsewhere (macOS; PowerShell, which wants a `.ps1` path): the file is checked and started
//!   by its path at once; a swap in between can go unnoticed.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::Path;

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
    /// The descriptor the process starts from (Linux): a sealed copy or `file` itself.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    start_from: Option<File>,
}

/// Opens and checks `hook`'s file if it must match an approval; `Ok(None)` when it need not.
/// `Err` holds the sentence of why it must not start. The file is read on a blocking thread
/// (inline if none is to be had), not on the caller's task.
pub(crate) async fn verify(hook: &DiscoveredHook) -> Result<Option<VerifiedFile>, String> {
    if hook.trust != TrustState::Approved {
        return Ok(None);
    }
    let Some(approved) = hook.sha256.clone() else {
        return Err(changed_at_start(&hook.path));
    };
    let path = hook.path.clone();
    let kind = hook.kind;
    let program = hook.command.first().cloned().unwrap_or_default();
    crate::blocking::run_or_inline(move || {
        let checked = check(&path, &approved)?;
        Ok(Some(checked.start_form(kind, &program)))
    })
    .await
    .unwrap_or_else(|why| Err(format!("{NOT_TRUSTED_CHANGED}: {why}")))
}

/// The open file and its bytes, if they are the approved ones.
struct Checked {
    file: File,
    bytes: Vec<u8>,
}

fn check(path: &Path, approved: &str) -> Result<Checked, String> {
    let file = open_held(path).map_err(|e| {
        format!(
            "{NOT_TRUSTED_CHANGED}: {} could not be read to check it against its approval ({e}), so it was not started",
            path.display()
        )
    })?;
    match read_capped(&file) {
        Ok(Some(bytes)) if sha256_of_bytes(&bytes) == approved => Ok(Checked { file, bytes }),
        _ => Err(changed_at_start(path)),
    }
}

impl Checked {
    /// What the process starts from: a sealed copy, the file's descriptor, or its path.
    #[cfg(target_os = "linux")]
    fn start_form(self, kind: crate::launch::LaunchKind, program: &OsString) -> VerifiedFile {
        use crate::launch::{descriptor_start, DescriptorStart};
        let start_from = match descriptor_start(kind, program, &self.bytes) {
            DescriptorStart::Copy => sealed_copy(&self.bytes)
                .ok()
                .or_else(|| self.file.try_clone().ok()),
            DescriptorStart::Original => self.file.try_clone().ok(),
            DescriptorStart::ByPath => None,
        };
        VerifiedFile {
            file: self.file,
            start_from,
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn start_form(self, _kind: crate::launch::LaunchKind, _program: &OsString) -> VerifiedFile {
        let _ = self.bytes;
        VerifiedFile {
            file: self.file,
            start_from: None,
        }
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
/// written, replaced or deleted while the handle is held, unless that is refused because
/// someone already has it open for writing.
fn open_held(path: &Path) -> io::Result<File> {
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_SHARE_READ: u32 = 0x1;
        if let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .share_mode(FILE_SHARE_READ)
            .open(path)
        {
            return Ok(file);
        }
    }
    File::open(path)
}

impl VerifiedFile {
    /// The argv to start `hook` with: on Linux, where it starts from a descriptor, its path
    /// replaced by that descriptor's (`/proc/self/fd/N`, valid in the child, which keeps it
    /// open: see [`VerifiedFile::keep_in_child`]); otherwise its argv as it is.
    pub(crate) fn argv(&self, hook: &DiscoveredHook) -> Vec<OsString> {
        #[cfg(target_os = "linux")]
        if let Some(from) = &self.start_from {
            use std::os::fd::AsRawFd;
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
    /// so the kernel or the interpreter can read it.
    pub(crate) fn keep_in_child(&self, command: &mut tokio::process::Command) {
        #[cfg(target_os = "linux")]
        if let Some(from) = &self.start_from {
            use std::os::fd::AsRawFd;
            let fd = from.as_raw_fd();
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
}
