//! The interpreters hooks are started with (PowerShell, cmd.exe, Python, Node, bash), found
//! through a [`Machine`]: the live one looks programs up on PATH, each at most once a scan.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The questions about the machine that starting a hook depends on.
pub trait Machine {
    /// The program `name` found on PATH.
    fn on_path(&mut self, name: &str) -> Option<PathBuf>;
    /// Whether a file exists at `path`.
    fn exists(&mut self, path: &Path) -> bool;
    /// An environment variable (`SystemRoot`, `ComSpec`).
    fn var(&mut self, name: &str) -> Option<OsString>;
}

/// The real machine, for one scan: each program is looked up on PATH at most once, so ten
/// `.sh` hooks cost one lookup of bash, and a PATH changed since the last scan is seen.
#[derive(Debug, Default)]
pub struct LiveMachine {
    found: HashMap<String, Option<PathBuf>>,
}

impl Machine for LiveMachine {
    fn on_path(&mut self, name: &str) -> Option<PathBuf> {
        self.found
            .entry(name.to_owned())
            .or_insert_with(|| find_on_path(name))
            .clone()
    }

    fn exists(&mut self, path: &Path) -> bool {
        path.exists()
    }

    fn var(&mut self, name: &str) -> Option<OsString> {
        std::env::var_os(name).filter(|v| !v.is_empty())
    }
}

#[cfg(not(windows))]
fn find_on_path(name: &str) -> Option<PathBuf> {
    which::which(name).ok()
}

/// Windows: the first file on PATH among [`windows_candidates`](super::windows_candidates).
/// Not `which`, which tries every PATHEXT extension in every PATH folder: its cost grows with
/// PATHEXT (1,000 entries took seconds per lookup under Wine), and most of those kinds cannot
/// be started.
#[cfg(windows)]
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    super::windows_candidates(name, &dirs)
        .into_iter()
        .find(|candidate| candidate.is_file())
}

/// The interpreters hooks are started with, found through a [`Machine`] only when a hook
/// needs one.
pub struct Interpreters<'m> {
    /// What is asked about the machine (the `#!` rules ask it too).
    pub(super) machine: &'m mut dyn Machine,
    /// The host's own Node binary (the binding passes `process.execPath`), preferred over
    /// PATH's for `.js` hooks.
    node: Option<PathBuf>,
    /// Windows rules (PowerShell and cmd.exe at their system paths, `py -3`).
    pub(super) windows: bool,
}

impl<'m> Interpreters<'m> {
    /// Interpreters looked up through `machine`; `node` is the host's own Node binary, if
    /// any, and `windows` picks the Windows rules.
    pub fn new(machine: &'m mut dyn Machine, node: Option<PathBuf>, windows: bool) -> Self {
        Interpreters {
            machine,
            node,
            windows,
        }
    }

    fn system_root(&mut self) -> PathBuf {
        self.machine
            .var("SystemRoot")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(r"C:\Windows"))
    }

    /// `pwsh` from PATH, else (Windows only) the Windows PowerShell every Windows has.
    pub fn powershell(&mut self) -> Option<PathBuf> {
        let pwsh = self.machine.on_path("pwsh");
        if !self.windows {
            return pwsh;
        }
        let root = self.system_root();
        Some(powershell(pwsh, &root))
    }

    /// `%ComSpec%`, else `cmd.exe` at its system path.
    pub fn cmd(&mut self) -> PathBuf {
        match self.machine.var("ComSpec") {
            Some(comspec) => PathBuf::from(comspec),
            None => self.system_root().join(r"System32\cmd.exe"),
        }
    }

    /// The argv prefix that runs Python 3: `python3`; on Windows `py -3`, else `python`.
    pub fn python(&mut self) -> Option<Vec<OsString>> {
        if !self.windows {
            return self
                .machine
                .on_path("python3")
                .map(|p| vec![p.into_os_string()]);
        }
        if let Some(py) = self.machine.on_path("py") {
            return Some(vec![py.into_os_string(), OsString::from("-3")]);
        }
        self.machine
            .on_path("python")
            .map(|p| vec![p.into_os_string()])
    }

    /// The shell Claude Code runs a settings command with: `/bin/sh` on macOS and Linux; on
    /// Windows Git for Windows' `bash.exe`, as Claude Code finds it
    /// (`CLAUDE_CODE_GIT_BASH_PATH`, else beside `git.exe` on PATH, else its default
    /// install). `Err`: why there is none, and what to do.
    pub fn claude_shell(&mut self) -> Result<PathBuf, String> {
        if !self.windows {
            return Ok(PathBuf::from("/bin/sh"));
        }
        if let Some(set) = self.machine.var("CLAUDE_CODE_GIT_BASH_PATH") {
            let set = PathBuf::from(set);
            return if self.machine.exists(&set) {
                Ok(set)
            } else {
                Err(format!("CLAUDE_CODE_GIT_BASH_PATH names {}, which does not exist; point it at Git for Windows' bin\\bash.exe", set.display()))
            };
        }
        // git.exe is in <Git>\cmd (or <Git>\bin, <Git>\mingw64\bin); bash.exe in <Git>\bin.
        let beside_git = self.machine.on_path("git").and_then(|git| {
            git.ancestors()
                .skip(1)
                .take(3)
                .map(|dir| dir.join("bin").join("bash.exe"))
                .find(|bash| self.machine.exists(bash))
        });
        let installed = || {
            let program_files = self
                .machine
                .var("ProgramFiles")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(r"C:\Program Files"));
            let bash = program_files.join(r"Git\bin\bash.exe");
            self.machine.exists(&bash).then_some(bash)
        };
        beside_git
            .or_else(installed)
            .ok_or_else(|| CLAUDE_NO_BASH.to_owned())
    }

    /// The Node binary for `.js` hooks: the host's own, else `node` from PATH.
    pub fn node(&mut self) -> Option<PathBuf> {
        match &self.node {
            Some(node) => Some(node.clone()),
            None => self.machine.on_path("node"),
        }
    }
}

/// Why a Claude settings command cannot start on a Windows without Git Bash.
pub const CLAUDE_NO_BASH: &str = "Claude Code's hook commands run in Git Bash on Windows, and none was found (not at CLAUDE_CODE_GIT_BASH_PATH, beside git.exe on PATH, or in Program Files\\Git); install Git for Windows (https://git-scm.com/download/win) or set CLAUDE_CODE_GIT_BASH_PATH to its bin\\bash.exe";

/// PowerShell 7 (`pwsh`) when it is on PATH, else the Windows PowerShell every Windows has.
pub fn powershell(pwsh_on_path: Option<PathBuf>, system_root: &Path) -> PathBuf {
    pwsh_on_path
        .unwrap_or_else(|| system_root.join(r"System32\WindowsPowerShell\v1.0\powershell.exe"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::tests::FixedMachine;

    #[test]
    fn pwsh_on_path_wins_else_windows_powershell_at_its_system_path() {
        let root = Path::new(r"C:\Windows");
        assert_eq!(
            powershell(Some(r"C:\Program Files\PowerShell\7\pwsh.exe".into()), root),
            PathBuf::from(r"C:\Program Files\PowerShell\7\pwsh.exe")
        );
        assert_eq!(
            powershell(None, root),
            root.join(r"System32\WindowsPowerShell\v1.0\powershell.exe")
        );
    }

    #[test]
    fn windows_falls_back_to_windows_powershell_and_python_launcher() {
        let m = &mut FixedMachine::default().with("py", r"C:\py.exe");
        let mut tools = Interpreters::new(m, None, true);
        assert_eq!(
            tools.powershell(),
            Some(
                PathBuf::from(r"C:\Windows")
                    .join(r"System32\WindowsPowerShell\v1.0\powershell.exe")
            )
        );
        assert_eq!(
            tools.python(),
            Some(vec![OsString::from(r"C:\py.exe"), OsString::from("-3")])
        );
        assert_eq!(
            tools.cmd(),
            PathBuf::from(r"C:\Windows").join(r"System32\cmd.exe")
        );
    }
}
