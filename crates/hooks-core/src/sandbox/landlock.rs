//! The Landlock domain a confined hook enters on Linux: which rights a kernel is asked to
//! handle and which it grants where ([`domain_rights`], pure), and the ruleset made from a
//! hook's [`Sandbox`] (at the edge). The hook's own process enters it just before exec
//! (`process/confine.rs`); no thread of the host ever does.

use super::Unavailable;

/// Landlock's file-system rights (`LANDLOCK_ACCESS_FS_*`).
mod fs {
    pub const EXECUTE: u64 = 1 << 0;
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const READ_FILE: u64 = 1 << 2;
    pub const READ_DIR: u64 = 1 << 3;
    /// REMOVE_DIR to MAKE_SYM: removing and making every kind of file.
    pub const REMOVE_AND_MAKE: u64 = ((1 << 13) - 1) & !((1 << 4) - 1);
    pub const REFER: u64 = 1 << 13;
    pub const TRUNCATE: u64 = 1 << 14;
    pub const IOCTL_DEV: u64 = 1 << 15;
}

/// `LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP` (ABI 4).
const NET_TCP: u64 = 0b11;
/// `LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET` (ABI 6).
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
/// `LANDLOCK_SCOPE_SIGNAL` (ABI 6).
const SCOPE_SIGNAL: u64 = 1 << 1;

/// A test setting: the runtime acts as if confining needed at least this Landlock ABI, so a
/// test can see what a kernel older than the options need does (the hook does not start).
pub const LANDLOCK_ABI_OVERRIDE_VAR: &str = "CLINE_HOOKS_SANDBOX_NEEDS_ABI";

/// What a confined hook's domain asks of a kernel with Landlock ABI `abi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DomainRights {
    /// The kernel's ABI.
    pub abi: i64,
    /// The file-system rights the domain handles: every one the kernel knows.
    pub handled_fs: u64,
    /// Granted beneath `/`: reading, listing, executing (and device ioctls), as before.
    pub read: u64,
    /// Granted beneath each writable folder: writing, truncating, making, removing, renaming.
    pub write: u64,
    /// Granted on the harmless device files (`/dev/null`, `/dev/tty`, ...): writing them.
    pub device_write: u64,
    /// The network rights handled (none granted): TCP connect and bind, unless the network is
    /// allowed.
    pub handled_net: u64,
    /// What the domain's processes cannot reach outside it (ABI 6): signals, and abstract Unix
    /// sockets unless the network is allowed.
    pub scoped: u64,
    /// The size of `struct landlock_ruleset_attr` to pass: the fields the kernel knows.
    pub attr_size: usize,
}

/// The rights of a confined hook's domain on a kernel whose ABI query gave `abi` (its version,
/// or the error number), with the network allowed or not, and an ABI the test setting asks
/// for. ABI 2 is the least (ABI 1 cannot let a hook rename across folders); without the network,
/// ABI 4 (TCP rules). Signals and abstract sockets are scoped where the kernel can (ABI 6).
pub fn domain_rights(abi: Result<i64, i32>, network: bool) -> Result<DomainRights, Unavailable> {
    domain_rights_needing(abi, network, None)
}

/// [`domain_rights`], with at least ABI `needs_at_least` required (the test setting).
pub(crate) fn domain_rights_needing(
    abi: Result<i64, i32>,
    network: bool,
    needs_at_least: Option<i64>,
) -> Result<DomainRights, Unavailable> {
    const ENOSYS: i32 = 38;
    const EOPNOTSUPP: i32 = 95;
    let abi = match abi {
        Err(ENOSYS) => return Err(Unavailable::NoLandlock),
        Err(EOPNOTSUPP) => return Err(Unavailable::Disabled),
        Err(code) => {
            return Err(Unavailable::Refused(
                std::io::Error::from_raw_os_error(code).to_string(),
            ))
        }
        Ok(abi) => abi,
    };
    let (mut needed, mut what) = if network {
        (
            2,
            "letting a confined hook rename across folders (Linux 5.19)",
        )
    } else {
        (
            4,
            "stopping TCP connections (Linux 6.7; or allow the network with sandboxNetwork)",
        )
    };
    if let Some(asked) = needs_at_least.filter(|asked| *asked > needed) {
        (needed, what) = (asked, "the test setting CLINE_HOOKS_SANDBOX_NEEDS_ABI");
    }
    if abi < needed {
        return Err(Unavailable::TooOld { abi, needed, what });
    }
    let mut handled_fs = fs::EXECUTE
        | fs::WRITE_FILE
        | fs::READ_FILE
        | fs::READ_DIR
        | fs::REMOVE_AND_MAKE
        | fs::REFER;
    if abi >= 3 {
        handled_fs |= fs::TRUNCATE;
    }
    if abi >= 5 {
        handled_fs |= fs::IOCTL_DEV;
    }
    let read = handled_fs & (fs::EXECUTE | fs::READ_FILE | fs::READ_DIR | fs::IOCTL_DEV);
    let write = handled_fs & !read;
    let device_write = handled_fs & (fs::WRITE_FILE | fs::TRUNCATE);
    let handled_net = if network { 0 } else { NET_TCP };
    let scoped = match (abi >= 6, network) {
        (false, _) => 0,
        (true, true) => SCOPE_SIGNAL,
        (true, false) => SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET,
    };
    // Three u64 fields from ABI 6, two from ABI 4; before that the first only.
    let attr_size = 8 * match abi {
        6.. => 3,
        4 | 5 => 2,
        _ => 1,
    };
    Ok(DomainRights {
        abi,
        handled_fs,
        read,
        write,
        device_write,
        handled_net,
        scoped,
        attr_size,
    })
}

/// `struct landlock_ruleset_attr` as of ABI 6. A kernel reads the first `size` bytes it is
/// given (see [`ruleset_attr`](crate::process::ruleset_attr)) and refuses a size it does not know unless the rest is zero.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RulesetAttr {
    /// Rights handled (and granted on `/`): [`fs_rights`](crate::process::fs_rights).
    pub handled_access_fs: u64,
    /// ABI 4: network rights handled; none (a hook's network is not this domain's business).
    pub handled_access_net: u64,
    /// ABI 6: what the domain's processes cannot reach outside it.
    pub scoped: u64,
}

/// The device files every confined hook may write: where output is thrown away or read from.
pub(crate) const WRITABLE_DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
];

#[cfg(target_os = "linux")]
pub(crate) use self::linux::{rights_here, ruleset};

/// The Landlock system calls, for the sandbox here and scrubEnv's domain (process/confine.rs).
#[cfg(target_os = "linux")]
pub(crate) mod calls {
    use std::ffi::CString;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::OnceLock;

    use super::RulesetAttr;

    /// `struct landlock_path_beneath_attr`, which the kernel declares packed.
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }

    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    const LANDLOCK_RULE_PATH_BENEATH: u32 = 1;

    /// This kernel's Landlock ABI, or the error number of the query; asked once.
    pub(crate) fn kernel_abi() -> Result<i64, i32> {
        static ABI: OnceLock<Result<i64, i32>> = OnceLock::new();
        *ABI.get_or_init(|| {
            // SAFETY: the version query takes a null attribute of size 0 and touches no memory.
            let abi = unsafe {
                libc::syscall(
                    libc::SYS_landlock_create_ruleset,
                    std::ptr::null::<RulesetAttr>(),
                    0usize,
                    LANDLOCK_CREATE_RULESET_VERSION,
                )
            };
            if abi < 0 {
                Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
            } else {
                Ok(abi)
            }
        })
    }

    /// A new ruleset handling what `attr` says, of which the kernel reads `size` bytes.
    pub(crate) fn create_ruleset(attr: &RulesetAttr, size: usize) -> io::Result<OwnedFd> {
        // SAFETY: `attr` is valid for `size` bytes (at most its own size) during the call.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                attr as *const RulesetAttr,
                size,
                0u32,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just returned this descriptor, and nothing else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
    }

    /// Grants `rights` beneath `path` (on it, if it is a file: its file rights only) in
    /// `ruleset`; `Ok(false)` when `path` is not there.
    pub(crate) fn add_beneath(ruleset: &OwnedFd, path: &Path, rights: u64) -> io::Result<bool> {
        let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
            return Ok(false);
        };
        // SAFETY: a NUL-terminated path; O_PATH opens without reading anything.
        let fd = unsafe { libc::open(c_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            return Ok(false);
        }
        // SAFETY: a fresh descriptor owned here only.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut allowed = rights;
        if !is_dir(&fd) {
            const FILE_RIGHTS: u64 = super::fs::EXECUTE
                | super::fs::WRITE_FILE
                | super::fs::READ_FILE
                | super::fs::TRUNCATE
                | super::fs::IOCTL_DEV;
            allowed &= FILE_RIGHTS;
        }
        if allowed == 0 {
            return Ok(true);
        }
        let beneath = PathBeneathAttr {
            allowed_access: allowed,
            parent_fd: fd.as_raw_fd(),
        };
        // SAFETY: `beneath` is valid for the call; both descriptors are open.
        let added = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                LANDLOCK_RULE_PATH_BENEATH,
                &beneath as *const PathBeneathAttr,
                0u32,
            )
        };
        if added < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(true)
    }

    fn is_dir(fd: &OwnedFd) -> bool {
        // SAFETY: fstat into a zeroed local on an open descriptor (O_PATH allows fstat).
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let got = unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) };
        got == 0 && (stat.st_mode & libc::S_IFMT) == libc::S_IFDIR
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::io;
    use std::os::fd::OwnedFd;
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    use super::calls::{add_beneath, create_ruleset, kernel_abi};
    use super::{domain_rights_needing, DomainRights, RulesetAttr, WRITABLE_DEVICES};
    use crate::sandbox::{Sandbox, Unavailable};

    /// The ABI the test setting asks for, if any (read at each start: it is the caller's).
    fn needs_at_least() -> Option<i64> {
        std::env::var(super::LANDLOCK_ABI_OVERRIDE_VAR)
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// The rights for a sandbox with the network allowed or not on this kernel (see
    /// [`super::domain_rights`]), the test setting honoured.
    pub(crate) fn rights_here(network: bool) -> Result<DomainRights, Unavailable> {
        domain_rights_needing(kernel_abi(), network, needs_at_least())
    }

    /// The ruleset of `sandbox`'s domain: reading as before, writing beneath its folders and
    /// to the harmless devices, no TCP unless allowed. A writable folder that does not exist
    /// is left out, and `warnings` says so. A ruleset whose folders were all there is kept
    /// (the last few) and shared by the next starts of the same sandbox: its folders are the
    /// outermost ones (see `granted`), which no confined hook can replace.
    pub(crate) fn ruleset(
        sandbox: &Sandbox,
        warnings: &mut Vec<String>,
    ) -> Result<Arc<OwnedFd>, Unavailable> {
        type Kept = Vec<(Sandbox, DomainRights, Vec<Option<(u64, u64)>>, Arc<OwnedFd>)>;
        static KEPT: Mutex<Kept> = Mutex::new(Vec::new());
        const KEEP: usize = 16;
        let rights = rights_here(sandbox.network)?;
        // The folders as they are now: a kept ruleset holds the folders it was made with, so a
        // folder deleted and made again (a fresh clone) gets a new one.
        let granted = crate::sandbox::granted(&sandbox.writable);
        let now: Vec<Option<(u64, u64)>> = granted.iter().map(|dir| identity(dir)).collect();
        let kept = |list: &Kept| {
            list.iter()
                .find(|(s, r, ids, _)| s == sandbox && *r == rights && *ids == now)
                .map(|(_, _, _, fd)| fd.clone())
        };
        if let Some(fd) = KEPT.lock().ok().as_deref().and_then(kept) {
            return Ok(fd);
        }
        let before = warnings.len();
        let fd = Arc::new(make_ruleset(sandbox, rights, warnings)?);
        if warnings.len() == before {
            if let Ok(mut list) = KEPT.lock() {
                list.retain(|(s, r, _, _)| !(s == sandbox && *r == rights));
                if list.len() == KEEP {
                    list.remove(0);
                }
                list.push((sandbox.clone(), rights, now, fd.clone()));
            }
        }
        Ok(fd)
    }

    fn make_ruleset(
        sandbox: &Sandbox,
        rights: DomainRights,
        warnings: &mut Vec<String>,
    ) -> Result<OwnedFd, Unavailable> {
        let refused = |what: String, err: io::Error| Unavailable::Refused(format!("{what}: {err}"));
        let attr = RulesetAttr {
            handled_access_fs: rights.handled_fs,
            handled_access_net: rights.handled_net,
            scoped: rights.scoped,
        };
        let ruleset = create_ruleset(&attr, rights.attr_size)
            .map_err(|e| refused("creating the ruleset".to_owned(), e))?;
        let grant = |path: &Path, rights: u64| {
            add_beneath(&ruleset, path, rights)
                .map_err(|e| refused(format!("granting {}", path.display()), e))
        };
        if !grant(Path::new("/"), rights.read)? {
            return Err(refused(
                "granting / its reading rights".to_owned(),
                io::ErrorKind::NotFound.into(),
            ));
        }
        for dir in crate::sandbox::granted(&sandbox.writable) {
            if !grant(dir, rights.write)? {
                warnings.push(format!(
                    "sandbox: {} does not exist, so this confined hook cannot write there",
                    dir.display()
                ));
            }
        }
        for device in WRITABLE_DEVICES {
            grant(Path::new(device), rights.device_write)?;
        }
        Ok(ruleset)
    }

    /// The device and inode `path` leads to now, if anything.
    fn identity(path: &Path) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_network_abi_4_is_needed_and_tcp_is_handled() {
        let rights = domain_rights(Ok(4), false).ok();
        assert_eq!(rights.map(|r| r.handled_net), Some(NET_TCP));
        assert_eq!(rights.map(|r| r.attr_size), Some(16));
        assert_eq!(rights.map(|r| r.scoped), Some(0));
        match domain_rights(Ok(3), false) {
            Err(Unavailable::TooOld {
                abi: 3,
                needed: 4,
                what,
            }) => {
                assert!(what.contains("sandboxNetwork"), "{what}")
            }
            other => panic!("expected ABI 3 to be too old, got {other:?}"),
        }
    }

    #[test]
    fn with_the_network_abi_2_is_enough_and_nothing_of_the_network_is_handled() {
        let rights = domain_rights(Ok(2), true).ok();
        assert_eq!(rights.map(|r| r.handled_net), Some(0));
        assert_eq!(rights.map(|r| r.attr_size), Some(8));
        assert!(matches!(
            domain_rights(Ok(1), true),
            Err(Unavailable::TooOld { needed: 2, .. })
        ));
    }

    #[test]
    fn from_abi_6_signals_are_scoped_and_abstract_sockets_too_without_the_network() {
        let closed = domain_rights(Ok(7), false).ok();
        assert_eq!(
            closed.map(|r| r.scoped),
            Some(SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET)
        );
        assert_eq!(closed.map(|r| r.attr_size), Some(24));
        assert_eq!(
            domain_rights(Ok(6), true).ok().map(|r| r.scoped),
            Some(SCOPE_SIGNAL)
        );
        // The kernel's uapi values.
        assert_eq!((SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL), (1, 2));
    }

    #[test]
    fn reading_is_granted_everywhere_and_every_other_handled_right_only_where_writable() {
        for abi in [2, 3, 4, 5, 6, 7, 99] {
            let Ok(r) = domain_rights(Ok(abi), true) else {
                panic!("ABI {abi} confines");
            };
            assert_eq!(r.read | r.write, r.handled_fs, "ABI {abi}");
            assert_eq!(r.read & r.write, 0, "ABI {abi}");
            assert_ne!(r.write & fs::WRITE_FILE, 0);
            assert_ne!(r.write & fs::REFER, 0);
            assert_eq!(r.read & fs::WRITE_FILE, 0);
            assert_eq!(r.device_write & !(fs::WRITE_FILE | fs::TRUNCATE), 0);
        }
        // Rights the kernel does not know are never asked for.
        assert_eq!(
            domain_rights(Ok(2), true).ok().map(|r| r.handled_fs),
            Some(0x3fff)
        );
        assert_eq!(
            domain_rights(Ok(4), true).ok().map(|r| r.handled_fs),
            Some(0x7fff)
        );
        assert_eq!(
            domain_rights(Ok(99), true).ok().map(|r| r.handled_fs),
            Some(0xffff)
        );
    }

    #[test]
    fn a_kernel_without_landlock_or_with_it_off_is_said_so() {
        assert_eq!(domain_rights(Err(38), true), Err(Unavailable::NoLandlock));
        assert_eq!(domain_rights(Err(95), false), Err(Unavailable::Disabled));
        assert!(matches!(
            domain_rights(Err(1), false),
            Err(Unavailable::Refused(_))
        ));
    }

    #[test]
    fn the_test_setting_asks_for_a_newer_abi_than_the_kernels() {
        match domain_rights_needing(Ok(7), false, Some(8)) {
            Err(Unavailable::TooOld {
                abi: 7,
                needed: 8,
                what,
            }) => {
                assert!(what.contains(LANDLOCK_ABI_OVERRIDE_VAR), "{what}")
            }
            other => panic!("expected the override to refuse, got {other:?}"),
        }
        // It never lowers what the options need.
        assert!(domain_rights_needing(Ok(3), false, Some(2)).is_err());
        assert!(domain_rights_needing(Ok(7), false, Some(7)).is_ok());
    }
}
