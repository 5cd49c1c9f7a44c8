//! Where a started hook's stdin comes from and where its stdout and stderr go, and those as the
//! `Stdio` of tokio's `Command` (the own spawn of a confined hook makes its descriptors from the
//! same: see own_spawn.rs).

use std::io;
use std::process::Stdio;

/// What a hook reads on stdin: a pipe the run writes its input into, or (a detached run) a
/// file holding it. Each try of a start takes its own handle to it.
pub(super) enum HookStdin {
    Piped,
    File(std::fs::File),
}

impl HookStdin {
    pub fn stdio(&self) -> io::Result<Stdio> {
        match self {
            HookStdin::Piped => Ok(Stdio::piped()),
            // A start that failed read nothing of it: the shared position is still at 0.
            HookStdin::File(file) => Ok(Stdio::from(file.try_clone()?)),
        }
    }
}

/// Where a hook's stdout and stderr go: pipes the run reads, or nowhere (a detached run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HookOutput {
    Piped,
    Null,
}

impl HookOutput {
    pub fn stdio(self) -> Stdio {
        match self {
            HookOutput::Piped => Stdio::piped(),
            HookOutput::Null => Stdio::null(),
        }
    }
}

/// Where a hook's stdin comes from and what its stdout and stderr go to.
pub(super) struct HookIo {
    pub stdin: HookStdin,
    pub output: HookOutput,
}
