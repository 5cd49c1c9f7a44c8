//! Confined hooks (`sandbox`): which hooks run inside an OS sandbox and what that sandbox lets
//! them do. The choice is made once, at discovery
//! ([`give_sandboxes`](crate::discovery::give_sandboxes)), and carried by each hook
//! ([`DiscoveredHook::sandbox`](crate::discovery::DiscoveredHook::sandbox)), so every way of
//! running it (per event, detached, persistent, the SDK adapter, the plugin) starts it the same
//! way. Pure here; the rules a kernel is given are in `landlock.rs` (Linux) and `seatbelt.rs`
//! (macOS), and a start that cannot be confined fails with [`Unavailable`]'s sentence.

mod landlock;
mod seatbelt;
mod seccomp;

#[cfg(target_os = "linux")]
pub(crate) use self::landlock::calls as landlock_calls;
pub use self::landlock::{domain_rights, DomainRights, RulesetAttr, LANDLOCK_ABI_OVERRIDE_VAR};
pub use self::seatbelt::seatbelt_profile;
pub use self::seccomp::{native, seccomp_filter, Arch, SockFilter, AARCH64, X86_64};

use std::fmt;
use std::path::{Path, PathBuf};

use crate::discovery::Source;

/// Which hooks run confined (`sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SandboxMode {
    /// None (the default).
    #[default]
    Off,
    /// The hooks a repository brings: its `.clinerules/hooks` and its Claude Code settings.
    Workspace,
    /// Every hook but the managed ones (an administrator's, which are never confined).
    All,
}

impl SandboxMode {
    /// The option's word for it: `off`, `workspace` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::Workspace => "workspace",
            SandboxMode::All => "all",
        }
    }

    /// The mode `word` names, or `None`.
    pub fn parse(word: &str) -> Option<SandboxMode> {
        match word {
            "off" => Some(SandboxMode::Off),
            "workspace" => Some(SandboxMode::Workspace),
            "all" => Some(SandboxMode::All),
            _ => None,
        }
    }

    /// Whether a hook from `source` runs confined under this mode.
    pub fn covers(self, source: Source) -> bool {
        match self {
            SandboxMode::Off => false,
            SandboxMode::Workspace => source.is_workspace(),
            SandboxMode::All => source != Source::Managed,
        }
    }
}

/// The sandbox options of a discovery (`sandbox`, `sandboxWritable`, `sandboxNetwork`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SandboxOptions {
    /// Which hooks run confined.
    pub mode: SandboxMode,
    /// More folders a confined hook may write (absolute).
    pub writable: Vec<PathBuf>,
    /// Whether a confined hook may open TCP connections and listen.
    pub network: bool,
}

/// What one confined hook may do beyond reading: write beneath `writable`, and use the network
/// if `network`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sandbox {
    /// The folders it may write, create, rename and remove in: the folder it runs in, the
    /// system temp folder, then `sandboxWritable`, without repeats.
    pub writable: Vec<PathBuf>,
    /// Whether it may open TCP connections and listen.
    pub network: bool,
}

/// The sandbox a hook from `source` gets under `options`, running in `cwd` with the system
/// temp folder `temp`; `None` when it runs unconfined.
pub fn sandbox_for(
    options: &SandboxOptions,
    source: Source,
    cwd: Option<&Path>,
    temp: &Path,
) -> Option<Sandbox> {
    if !options.mode.covers(source) {
        return None;
    }
    let mut writable: Vec<PathBuf> = Vec::new();
    for dir in cwd
        .into_iter()
        .chain(std::iter::once(temp))
        .chain(options.writable.iter().map(PathBuf::as_path))
    {
        if !writable.iter().any(|kept| kept == dir) {
            writable.push(dir.to_path_buf());
        }
    }
    Some(Sandbox {
        writable,
        network: options.network,
    })
}

/// Why a hook that must run confined cannot be confined here: its start fails with this.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// Windows has no sandbox this package can use yet.
    Windows,
    /// A Unix other than Linux and macOS.
    OtherUnix,
    /// macOS without `/usr/bin/sandbox-exec`.
    NoSandboxExec,
    /// Linux without Landlock (before 5.13, built without it, or hidden by a seccomp filter).
    NoLandlock,
    /// Landlock built in but not enabled (`lsm=` boot list).
    Disabled,
    /// The kernel's Landlock ABI is older than what the options need.
    TooOld {
        /// The kernel's ABI.
        abi: i64,
        /// The ABI needed.
        needed: i64,
        /// What needs it.
        what: &'static str,
    },
    /// The system refused, in these words.
    Refused(String),
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NOT_RUN: &str = "this hook must run confined (sandbox) and was not started";
        match self {
            Unavailable::Windows => write!(f, "{NOT_RUN}: Windows cannot confine hooks yet; run it with sandbox \"off\" (or leave its source out of the sandbox option) if you trust it"),
            Unavailable::OtherUnix => write!(f, "{NOT_RUN}: only Linux (Landlock) and macOS (sandbox-exec) can confine hooks"),
            Unavailable::NoSandboxExec => write!(f, "{NOT_RUN}: /usr/bin/sandbox-exec, which confines hooks on macOS, is missing"),
            Unavailable::NoLandlock => write!(f, "{NOT_RUN}: this kernel has no Landlock (Linux 5.19 or later built with it; a container's seccomp filter can also hide it)"),
            Unavailable::Disabled => write!(f, "{NOT_RUN}: Landlock is not enabled in this kernel (add landlock to the lsm= boot parameter)"),
            Unavailable::TooOld { abi, needed, what } => write!(f, "{NOT_RUN}: this kernel's Landlock is ABI {abi}, and {what} needs ABI {needed}"),
            Unavailable::Refused(why) => write!(f, "{NOT_RUN}: the system refused the sandbox ({why})"),
        }
    }
}

/// The folders of `writable` the kernel is given, each by its path: those not beneath another.
/// A folder beneath another is covered by it, and naming it again would let a link made inside
/// the other (a confined hook may make one there: the temp folder, a root inside it) turn the
/// grant toward any folder at all, at the instant the grant is made.
pub fn granted(writable: &[PathBuf]) -> Vec<&Path> {
    writable
        .iter()
        .filter(|dir| {
            !writable
                .iter()
                .any(|other| other != *dir && dir.starts_with(other))
        })
        .map(PathBuf::as_path)
        .collect()
}

/// A confined hook's sandbox made ready for its start: on Linux the Landlock ruleset its
/// process enters before exec; on macOS the Seatbelt profile `sandbox-exec` applies.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// The ruleset (open until the start; closed with this), and the seccomp filter for what
    /// Landlock does not see.
    #[cfg(target_os = "linux")]
    Landlock {
        /// The Landlock ruleset (shared by the starts of the same sandbox).
        ruleset: std::sync::Arc<std::os::fd::OwnedFd>,
        /// The seccomp filter ([`seccomp_filter`]), made once per kind.
        filter: &'static [SockFilter],
    },
    /// The profile's text.
    #[cfg(target_os = "macos")]
    Seatbelt(String),
}

/// Makes `sandbox` ready for one start, or says why it cannot be had here; `warnings` gets
/// what the hook should know (a writable folder that does not exist).
pub(crate) fn prepare(
    sandbox: &Sandbox,
    warnings: &mut Vec<String>,
) -> Result<Prepared, Unavailable> {
    imp::prepare(sandbox, warnings)
}

/// What this machine can confine, for `doctor` and `diagnoseHooks`: `Ok(description)` or why
/// not. Linux asks the kernel its Landlock ABI (and honours [`LANDLOCK_ABI_OVERRIDE_VAR`]).
pub fn support() -> Result<String, Unavailable> {
    imp::support()
}

#[cfg(target_os = "linux")]
mod imp {
    pub(super) fn prepare(
        sandbox: &super::Sandbox,
        warnings: &mut Vec<String>,
    ) -> Result<super::Prepared, super::Unavailable> {
        use std::sync::OnceLock;
        static FILTERS: [OnceLock<Option<Vec<super::SockFilter>>>; 2] =
            [OnceLock::new(), OnceLock::new()];
        let filter = FILTERS[usize::from(sandbox.network)]
            .get_or_init(|| {
                super::native().map(|arch| super::seccomp_filter(&arch, sandbox.network))
            })
            .as_deref()
            .ok_or_else(|| {
                super::Unavailable::Refused(
                    "this processor has no seccomp filter here (x86-64 and AArch64 have)"
                        .to_owned(),
                )
            })?;
        let ruleset = super::landlock::ruleset(sandbox, warnings)?;
        Ok(super::Prepared::Landlock { ruleset, filter })
    }

    pub(super) fn support() -> Result<String, super::Unavailable> {
        // The options that need the most: no network.
        let abi = super::landlock::rights_here(false)?.abi;
        Ok(format!(
            "Landlock ABI {abi}: confined hooks write only where allowed, open no TCP connection{}",
            if abi >= 6 {
                ", and cannot signal or trace the host"
            } else {
                ", and cannot trace the host (signals to it need Landlock ABI 6, Linux 6.12)"
            }
        ))
    }
}

#[cfg(target_os = "macos")]
mod imp {
    pub(super) fn prepare(
        sandbox: &super::Sandbox,
        _warnings: &mut Vec<String>,
    ) -> Result<super::Prepared, super::Unavailable> {
        support()?;
        Ok(super::Prepared::Seatbelt(super::seatbelt_profile(sandbox)))
    }

    pub(super) fn support() -> Result<String, super::Unavailable> {
        if std::path::Path::new("/usr/bin/sandbox-exec").is_file() {
            Ok("sandbox-exec (Seatbelt): confined hooks write only where allowed and open no network connection".to_owned())
        } else {
            Err(super::Unavailable::NoSandboxExec)
        }
    }
}

#[cfg(windows)]
mod imp {
    pub(super) fn prepare(
        _sandbox: &super::Sandbox,
        _warnings: &mut Vec<String>,
    ) -> Result<super::Prepared, super::Unavailable> {
        Err(super::Unavailable::Windows)
    }

    pub(super) fn support() -> Result<String, super::Unavailable> {
        Err(super::Unavailable::Windows)
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod imp {
    pub(super) fn prepare(
        _sandbox: &super::Sandbox,
        _warnings: &mut Vec<String>,
    ) -> Result<super::Prepared, super::Unavailable> {
        Err(super::Unavailable::OtherUnix)
    }

    pub(super) fn support() -> Result<String, super::Unavailable> {
        Err(super::Unavailable::OtherUnix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(mode: SandboxMode) -> SandboxOptions {
        SandboxOptions {
            mode,
            writable: vec![PathBuf::from("/cache"), PathBuf::from("/tmp")],
            network: false,
        }
    }

    #[test]
    fn workspace_mode_confines_what_a_repository_brings_and_nothing_else() {
        let mode = SandboxMode::Workspace;
        for source in [
            Source::Workspace,
            Source::ClaudeProject,
            Source::ClaudeLocal,
        ] {
            assert!(mode.covers(source), "{source:?}");
        }
        for source in [
            Source::Managed,
            Source::Extra,
            Source::Global,
            Source::ClaudeUser,
        ] {
            assert!(!mode.covers(source), "{source:?}");
        }
    }

    #[test]
    fn all_mode_confines_every_hook_but_the_managed_ones_and_off_none() {
        for source in [
            Source::Extra,
            Source::Global,
            Source::Workspace,
            Source::ClaudeUser,
            Source::ClaudeProject,
            Source::ClaudeLocal,
        ] {
            assert!(SandboxMode::All.covers(source), "{source:?}");
            assert!(!SandboxMode::Off.covers(source), "{source:?}");
        }
        assert!(!SandboxMode::All.covers(Source::Managed));
    }

    #[test]
    fn a_confined_hook_writes_in_its_folder_the_temp_folder_and_the_extra_ones_once_each() {
        let sandbox = sandbox_for(
            &options(SandboxMode::Workspace),
            Source::Workspace,
            Some(Path::new("/ws")),
            Path::new("/tmp"),
        );
        assert_eq!(
            sandbox,
            Some(Sandbox {
                writable: vec!["/ws".into(), "/tmp".into(), "/cache".into()],
                network: false,
            })
        );
        assert_eq!(
            sandbox_for(
                &options(SandboxMode::Workspace),
                Source::Global,
                Some(Path::new("/ws")),
                Path::new("/tmp"),
            ),
            None
        );
    }

    #[test]
    fn a_folder_beneath_another_is_granted_through_it_only() {
        let writable: Vec<PathBuf> = [
            "/tmp/ws",
            "/tmp",
            "/home/me/cache",
            "/home/me/cache/x",
            "/ws2",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(
            granted(&writable),
            [
                Path::new("/tmp"),
                Path::new("/home/me/cache"),
                Path::new("/ws2")
            ]
        );
        // Only whole components count: /tmpfoo is not beneath /tmp.
        let apart: Vec<PathBuf> = ["/tmp", "/tmpfoo"].iter().map(PathBuf::from).collect();
        assert_eq!(granted(&apart).len(), 2);
    }

    #[test]
    fn the_modes_words_round_trip_and_nothing_else_is_one() {
        for mode in [SandboxMode::Off, SandboxMode::Workspace, SandboxMode::All] {
            assert_eq!(SandboxMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(SandboxMode::parse("on"), None);
        assert_eq!(SandboxMode::parse("Workspace"), None);
    }

    #[test]
    fn every_unavailable_sentence_says_the_hook_did_not_run_and_why() {
        for why in [
            Unavailable::Windows,
            Unavailable::OtherUnix,
            Unavailable::NoSandboxExec,
            Unavailable::NoLandlock,
            Unavailable::Disabled,
            Unavailable::TooOld {
                abi: 3,
                needed: 4,
                what: "stopping TCP connections",
            },
            Unavailable::Refused("Operation not permitted (os error 1)".into()),
        ] {
            let said = why.to_string();
            assert!(
                said.starts_with("this hook must run confined (sandbox) and was not started: "),
                "{said}"
            );
            assert!(!said.ends_with('.'), "{said}");
        }
    }
}
