//! Starting an approved hook from the bytes that were approved. Its file is opened once and
//! hashed through that descriptor, just before the start:
//! - Linux: a hook started directly is started from that same descriptor
//!   (`/proc/self/fd/N`, the descriptor kept open across `exec` in the child only), so a file
//!   replaced or renamed after the check cannot change what runs; a rewrite of the same file
//!   in place between the check and the interpreter's read still can.
//! - Windows: the file is held open without write or delete sharing until the hook ends, so
//!   nobody can change, replace or delete it while it is checked and run (when another
//!   program already has it open for writing, it is checked without that hold).
//! - Elsewhere (macOS, and hooks started through an interpreter that is given the path): the
//!   file is checked and started by its path at once; a swap in between can go unnoticed.

use std::ffi::OsString;
use std::fs::File;
use std::io;

use crate::discovery::DiscoveredHook;
use crate::policy::{sha256_of, TrustState, NOT_TRUSTED_CHANGED};

/// The reason a hook is not started when its bytes are not the approved ones at start.
pub fn changed_at_start(path: &std::path::Path) -> String {
    format!(
        "{NOT_TRUSTED_CHANGED}: {} changed after it was approved (it was checked again just before its start), so it was not started; review it and approve it again (cline-hooks trust)",
        path.display()
    )
}

/// An approved hook's file, open, whose bytes were just checked against the approval.
#[derive(Debug)]
pub(crate) struct VerifiedFile {
    // Elsewhere than Linux it is only held open (on Windows, that is the lock).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    file: File,
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
    crate::blocking::run_or_inline(move || check(&path, &approved))
        .await
        .unwrap_or_else(|why| Err(format!("{NOT_TRUSTED_CHANGED}: {why}")))
        .map(Some)
}

fn check(path: &std::path::Path, approved: &str) -> Result<VerifiedFile, String> {
    let file = open_held(path).map_err(|e| {
        format!(
            "{NOT_TRUSTED_CHANGED}: {} could not be read to check it against its approval ({e}), so it was not started",
            path.display()
        )
    })?;
    match sha256_of(&file) {
        Ok(Some(now)) if now == approved => Ok(VerifiedFile { file }),
        _ => Err(changed_at_start(path)),
    }
}

/// Opens the file for reading; on Windows with read sharing only, so that it cannot be
/// written, replaced or deleted while the handle is held, unless that is refused because
/// someone already has it open for writing.
fn open_held(path: &std::path::Path) -> io::Result<File> {
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
    /// The argv to start `hook` with: on Linux, for a hook the kernel starts directly, its
    /// path replaced by this descriptor's (`/proc/self/fd/N`, valid in the child, which keeps
    /// it open: see [`VerifiedFile::keep_in_child`]); elsewhere its argv as it is.
    pub(crate) fn argv(&self, hook: &DiscoveredHook) -> Vec<OsString> {
        #[cfg(target_os = "linux")]
        if hook.kind == crate::launch::LaunchKind::Direct {
            use std::os::fd::AsRawFd;
            let own = OsString::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()));
            return hook
                .command
                .iter()
                .map(|arg| {
                    if std::path::Path::new(arg) == hook.path {
                        own.clone()
                    } else {
                        arg.clone()
                    }
                })
                .collect();
        }
        hook.command.clone()
    }

    /// Linux: keeps the descriptor open across `exec` in the child (and only there), so the
    /// hook's interpreter can read the script through it.
    pub(crate) fn keep_in_child(&self, command: &mut tokio::process::Command) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let fd = self.file.as_raw_fd();
            // SAFETY: the closure runs in the child between fork and exec and calls only
            // fcntl, which is async-signal-safe; `fd` stays open in the parent until the
            // start returns, so the child's copy is the verified file.
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
