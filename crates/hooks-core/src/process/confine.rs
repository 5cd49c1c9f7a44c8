//! Keeping scrubbed hooks (`scrubEnv`) out of the host's environment and memory: on Linux each
//! one enters a Landlock domain in its own process, between its start and its exec (see
//! own_spawn.rs), and the host never does. A domain denies every process inside it
//! ptrace-class access (`/proc/<pid>/environ`, `mem`, `ptrace(2)`) to processes outside it,
//! and (Landlock ABI 6) signals to them; it allows both into the same domain, so no thread of
//! the host may be inside one: a hook would reach the host's whole environment and memory
//! through `/proc/<host>/task/<that thread>/`. The ruleset is made once, in the host; the rule
//! that picks it for a kernel, and the warning a run gives where hooks cannot be confined, are
//! here too.

use std::fmt;

/// Why hooks started with `scrubEnv` are not kept from the host's environment here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconfined {
    /// Not Linux: macOS and Windows let a process of the same user read another's memory.
    NotLinux,
    /// The kernel has no Landlock (before 5.13, built without it, or a seccomp filter hides it).
    NoLandlock,
    /// Landlock is built in but not enabled (its name is missing from the `lsm=` boot list).
    Disabled,
    /// Landlock ABI 1 (kernels 5.13 to 5.18): a domain there forbids every rename and link
    /// across folders, which hooks need.
    TooOld,
    /// The system refused the domain, in these words (16 domains nested already, a sandbox).
    Refused(String),
}

impl fmt::Display for Unconfined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unconfined::NotLinux => f.write_str("only Linux can confine hooks (with Landlock)"),
            Unconfined::NoLandlock => f.write_str("this kernel has no Landlock (Linux 5.13 or later built with it; a container's seccomp filter can also hide it)"),
            Unconfined::Disabled => f.write_str("Landlock is not enabled in this kernel (add landlock to the lsm= boot parameter)"),
            Unconfined::TooOld => f.write_str("this kernel's Landlock (ABI 1, Linux before 5.19) would forbid hooks to rename or link files across folders"),
            Unconfined::Refused(why) => write!(f, "the system refused the Landlock domain ({why})"),
        }
    }
}

/// The file-system rights the confining domain handles (and grants on `/`, so none is denied)
/// on a kernel whose Landlock ABI query gave `abi` (its version, or the error number).
///
/// A domain must handle some access to exist; file-system rights are the ones every Landlock
/// kernel knows. They must include REFER: a domain that does not handle it forbids every
/// rename or link across folders, and ABI 1 cannot grant it, so ABI 1 is not used. These are
/// the rights a confined hook's domain handles with the network allowed (one rule for both:
/// [`domain_rights`](crate::sandbox::domain_rights)), said here in `scrubEnv`'s words.
pub fn fs_rights(abi: Result<i64, i32>) -> Result<u64, Unconfined> {
    use crate::sandbox::Unavailable;
    match crate::sandbox::domain_rights(abi, true) {
        Ok(rights) => Ok(rights.handled_fs),
        Err(Unavailable::NoLandlock) => Err(Unconfined::NoLandlock),
        Err(Unavailable::Disabled) => Err(Unconfined::Disabled),
        Err(Unavailable::TooOld { .. }) => Err(Unconfined::TooOld),
        Err(Unavailable::Refused(why)) => Err(Unconfined::Refused(why)),
        // Not a kernel's answer (the platform's own refusals): said as they are.
        Err(other) => Err(Unconfined::Refused(other.to_string())),
    }
}

/// `LANDLOCK_SCOPE_SIGNAL` (ABI 6): no signal from inside the domain to a process outside it.
pub const SCOPE_SIGNAL: u64 = 1 << 1;

pub use crate::sandbox::RulesetAttr;

/// The ruleset for a kernel whose Landlock ABI query gave `abi`, and the size of the attribute
/// to pass: the file-system rights of [`fs_rights`], and from ABI 6 [`SCOPE_SIGNAL`] (a
/// scrubbed hook could otherwise `SIGSTOP` the host and freeze the editor); abstract Unix
/// sockets are left open, as hooks talk to agents and daemons through them. Before ABI 6
/// only `handled_access_fs` is passed (8 bytes), which every kernel takes.
pub fn ruleset_attr(abi: Result<i64, i32>) -> Result<(RulesetAttr, usize), Unconfined> {
    let handled_access_fs = fs_rights(abi)?;
    let scoped_from_abi_6 = matches!(abi, Ok(abi) if abi >= 6);
    Ok(if scoped_from_abi_6 {
        let attr = RulesetAttr {
            handled_access_fs,
            handled_access_net: 0,
            scoped: SCOPE_SIGNAL,
        };
        (attr, std::mem::size_of::<RulesetAttr>())
    } else {
        let attr = RulesetAttr {
            handled_access_fs,
            ..RulesetAttr::default()
        };
        (attr, std::mem::size_of::<u64>())
    })
}

/// What a run with `scrubEnv` says in its warnings, once, about how far its hooks are kept from
/// the host: `confined` is whether they start in the Landlock domain, `as_root` whether the host
/// (and so its hooks) runs as root. `None`: nothing to say.
pub fn scrub_warning(confined: Result<(), &Unconfined>, as_root: bool) -> Option<String> {
    match (confined, as_root) {
        (Ok(()), false) => None,
        (Ok(()), true) => Some("scrubEnv: the hooks run as root, whose capabilities still let them read this process's environment from /proc/<pid>/environ (its memory and ptrace stay closed to them); run the host as an ordinary user to keep its environment from its hooks".to_owned()),
        (Err(why), _) => Some(format!(
            "scrubEnv: the hooks' environment is scrubbed, but they are not kept from reading this process's own environment and memory (a process of the same user can, from /proc/<pid>/environ or with a debugger): {why}"
        )),
    }
}

/// Whether hooks started with `scrubEnv` are confined on this system. The first call makes
/// the ruleset (Linux), so its answer holds for the life of the process.
pub fn confinement() -> Result<(), Unconfined> {
    imp::confinement()
}

/// The warning a run with `scrubEnv` gives, for this system and this process's user.
pub fn scrub_warning_here() -> Option<String> {
    #[cfg(unix)]
    // SAFETY: geteuid has no preconditions and cannot fail.
    let as_root = unsafe { libc::geteuid() } == 0;
    #[cfg(not(unix))]
    let as_root = false;
    scrub_warning(confinement().as_ref().map(|_| ()), as_root)
}

/// The ruleset scrubbed hooks enter (see the module's comment; own_spawn.rs starts them so), or
/// `None` where hooks cannot be confined (the run said so in its warnings) and start as any
/// other. A child the kernel refuses the domain then fails to start, rather than run
/// unconfined.
#[cfg(target_os = "linux")]
pub(super) fn scrub_ruleset() -> Option<std::os::fd::RawFd> {
    imp::scrub_ruleset()
}

#[cfg(target_os = "linux")]
pub(super) use imp::{enter_domain, enter_sandbox};

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd, RawFd};
    use std::sync::OnceLock;

    use super::{ruleset_attr, Unconfined};

    /// The ruleset every scrubbed hook enters, or why there is none; made once, by the first
    /// caller, and open (close-on-exec, as the kernel makes it) for the life of the process.
    fn ruleset() -> &'static Result<OwnedFd, Unconfined> {
        static RULESET: OnceLock<Result<OwnedFd, Unconfined>> = OnceLock::new();
        RULESET.get_or_init(make_ruleset)
    }

    pub(super) fn confinement() -> Result<(), Unconfined> {
        ruleset().as_ref().map(|_| ()).map_err(Clone::clone)
    }

    /// The ruleset's descriptor: held open by a static for the life of the process, so a
    /// child's copy of it is the ruleset.
    pub(super) fn scrub_ruleset() -> Option<RawFd> {
        ruleset().as_ref().ok().map(AsRawFd::as_raw_fd)
    }

    /// What a sandboxed hook's process does before exec: every descriptor from 3 up is
    /// closed at exec (the host's, whatever it left open), then the domain, then the
    /// seccomp filter. Async-signal-safe: raw system calls only.
    pub(crate) fn enter_sandbox(
        ruleset: RawFd,
        filter: &[crate::sandbox::SockFilter],
    ) -> io::Result<()> {
        const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
        // SAFETY: integer arguments only; it marks this process's descriptors.
        let marked = unsafe {
            libc::syscall(
                libc::SYS_close_range,
                3 as libc::c_uint,
                libc::c_uint::MAX,
                CLOSE_RANGE_CLOEXEC,
            )
        };
        if marked != 0 {
            return Err(io::Error::last_os_error());
        }
        enter_domain(ruleset)?;
        #[repr(C)]
        struct SockFprog {
            len: libc::c_ushort,
            filter: *const crate::sandbox::SockFilter,
        }
        let prog = SockFprog {
            len: filter.len() as libc::c_ushort,
            filter: filter.as_ptr(),
        };
        // SAFETY: `prog` points at `filter`, alive and unchanged for the call; no_new_privs
        // was set by enter_domain, as an unprivileged filter needs.
        let installed = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER as libc::c_long,
                0 as libc::c_long,
                &prog as *const SockFprog,
            )
        };
        if installed != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Puts the calling thread into the domain of `ruleset`, no_new_privs first (Landlock
    /// requires it of an unprivileged caller). Async-signal-safe: raw system calls only, no
    /// allocation or lock (the error is the errno, which needs none).
    pub(in crate::process) fn enter_domain(ruleset: RawFd) -> io::Result<()> {
        let (yes, zero) = (1 as libc::c_ulong, 0 as libc::c_ulong);
        // SAFETY: integer arguments only (the kernel wants unsigned longs, zero beyond the
        // second); it applies to the calling thread.
        let nnp = unsafe {
            libc::syscall(
                libc::SYS_prctl,
                libc::PR_SET_NO_NEW_PRIVS as libc::c_long,
                yes,
                zero,
                zero,
                zero,
            )
        };
        if nnp != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a ruleset descriptor and no flags; it applies to the calling thread.
        let entered = unsafe {
            libc::syscall(
                libc::SYS_landlock_restrict_self,
                ruleset as libc::c_long,
                0 as libc::c_long,
            )
        };
        if entered != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Makes the ruleset: it handles the file-system rights and grants them all beneath `/`,
    /// so it denies no file access, and its processes lose ptrace-class access (and, from ABI
    /// 6, signals) to the processes outside it. Then checks, in a throwaway child, that this
    /// process's children can enter it (a process 16 domains deep, or a seccomp filter, is
    /// refused): that refusal is a warning of the run, not a hook that cannot start.
    fn make_ruleset() -> Result<OwnedFd, Unconfined> {
        use crate::sandbox::landlock_calls::{add_beneath, create_ruleset, kernel_abi};
        let refused = |what: &str, err: io::Error| Unconfined::Refused(format!("{what}: {err}"));
        let (attr, size) = ruleset_attr(kernel_abi())?;
        let ruleset =
            create_ruleset(&attr, size).map_err(|e| refused("creating the ruleset", e))?;
        match add_beneath(&ruleset, std::path::Path::new("/"), attr.handled_access_fs) {
            Ok(true) => {}
            Ok(false) => {
                return Err(refused(
                    "granting / its rights",
                    io::ErrorKind::NotFound.into(),
                ))
            }
            Err(err) => return Err(refused("granting / its rights", err)),
        }
        try_entering(ruleset.as_raw_fd())
            .map_err(|err| Unconfined::Refused(format!("entering the domain: {err}")))?;
        Ok(ruleset)
    }

    /// Enters the domain of `ruleset` in a child that then exits at once; its exit code is
    /// the error number (0: entered).
    fn try_entering(ruleset: RawFd) -> io::Result<()> {
        // SAFETY: the child makes raw system calls only (enter_domain, _exit), as a
        // multithreaded process's child must; the parent waits for that child by its pid.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            let code = match enter_domain(ruleset) {
                Ok(()) => 0,
                Err(err) => err.raw_os_error().unwrap_or(libc::EPERM).clamp(1, 255),
            };
            // SAFETY: ends the child without running anything of the parent's (no atexit).
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        loop {
            // SAFETY: waits for the child just started, into a local.
            if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
                break;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
        match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
            (true, 0) => Ok(()),
            (true, code) => Err(io::Error::from_raw_os_error(code)),
            _ => Err(io::Error::other(format!(
                "the child that tried it ended with wait status {status}"
            ))),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Unconfined;

    pub(super) fn confinement() -> Result<(), Unconfined> {
        Err(Unconfined::NotLinux)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_from_abi_2_gets_the_rights_it_knows_refer_included() {
        let abi_2 = fs_rights(Ok(2)).unwrap_or_default();
        assert_eq!(abi_2, 0x3fff);
        assert_ne!(abi_2 & (1 << 13), 0); // LANDLOCK_ACCESS_FS_REFER
        assert_eq!(fs_rights(Ok(3)), Ok(0x7fff));
        assert_eq!(fs_rights(Ok(4)), Ok(0x7fff));
        assert_eq!(fs_rights(Ok(5)), Ok(0xffff));
        // Later ABIs: no right this code does not know is asked for.
        assert_eq!(fs_rights(Ok(7)), Ok(0xffff));
        assert_eq!(fs_rights(Ok(99)), Ok(0xffff));
    }

    #[test]
    fn from_abi_6_the_ruleset_scopes_signals_and_is_passed_whole() {
        for abi in [6, 7, 99] {
            let (attr, size) = ruleset_attr(Ok(abi)).unwrap_or_default();
            assert_eq!(attr.scoped, SCOPE_SIGNAL, "ABI {abi}");
            assert_eq!(SCOPE_SIGNAL, 2); // LANDLOCK_SCOPE_SIGNAL in the kernel's uapi
            assert_eq!(attr.handled_access_fs, 0xffff);
            assert_eq!(attr.handled_access_net, 0);
            // Three u64 fields, as the kernel declares them.
            assert_eq!(size, 24);
            assert_eq!(std::mem::size_of::<RulesetAttr>(), 24);
        }
    }

    #[test]
    fn before_abi_6_only_the_file_system_rights_are_passed() {
        for (abi, fs) in [(2, 0x3fff), (3, 0x7fff), (4, 0x7fff), (5, 0xffff)] {
            let (attr, size) = ruleset_attr(Ok(abi)).unwrap_or_default();
            assert_eq!(attr.handled_access_fs, fs, "ABI {abi}");
            assert_eq!(attr.scoped, 0);
            assert_eq!(size, 8);
        }
        assert_eq!(ruleset_attr(Ok(1)), Err(Unconfined::TooOld));
        assert_eq!(ruleset_attr(Err(38)), Err(Unconfined::NoLandlock));
    }

    #[test]
    fn no_landlock_or_abi_1_is_said_in_words() {
        assert_eq!(fs_rights(Ok(1)), Err(Unconfined::TooOld));
        assert_eq!(fs_rights(Ok(0)), Err(Unconfined::TooOld));
        assert_eq!(fs_rights(Err(38)), Err(Unconfined::NoLandlock));
        assert_eq!(fs_rights(Err(95)), Err(Unconfined::Disabled));
        match fs_rights(Err(1)) {
            Err(Unconfined::Refused(why)) => assert!(!why.is_empty()),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_confined_run_by_a_user_warns_of_nothing() {
        assert_eq!(scrub_warning(Ok(()), false), None);
    }

    #[test]
    fn root_and_every_unconfined_system_are_warned_of() {
        let root = scrub_warning(Ok(()), true).unwrap_or_default();
        assert!(root.contains("run as root"), "{root}");
        for why in [
            Unconfined::NotLinux,
            Unconfined::NoLandlock,
            Unconfined::Disabled,
            Unconfined::TooOld,
            Unconfined::Refused("Argument list too long (os error 7)".to_owned()),
        ] {
            for as_root in [false, true] {
                let said = scrub_warning(Err(&why), as_root).unwrap_or_default();
                assert!(said.starts_with("scrubEnv: "), "{said}");
                assert!(said.ends_with(&why.to_string()), "{said}");
            }
        }
    }

    /// This system's answer is one of the two, and the same every time.
    #[test]
    fn confinement_is_decided_once() {
        assert_eq!(confinement(), confinement());
        if !cfg!(target_os = "linux") {
            assert_eq!(confinement(), Err(Unconfined::NotLinux));
        }
    }
}
