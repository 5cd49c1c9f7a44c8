//! How a discovered hook file is started: the exact argv, per platform. Pure rules; the
//! interpreters they name are found once at the edge (`Interpreters::find`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// How a hook file is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchKind {
    /// Executed directly; on macOS/Linux its `#!` line picks the interpreter.
    Direct,
    /// A `.ps1` file, run by PowerShell.
    PowerShell,
    /// A `.bat`/`.cmd` file, run by `cmd.exe`.
    Cmd,
    /// A PATHEXT type this package does not start (for example `.vbs`).
    Unsupported,
}

/// Arguments PowerShell gets before the script path: no profile, no prompts, no policy
/// surprises, and `-File` so the path is never parsed as PowerShell code.
pub const POWERSHELL_ARGS: [&str; 6] = [
    "-NoLogo",
    "-NoProfile",
    "-NonInteractive",
    "-ExecutionPolicy",
    "Bypass",
    "-File",
];

/// Windows interpreters, resolved once per process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreters {
    pub powershell: PathBuf,
    pub cmd: PathBuf,
}

impl Interpreters {
    /// `pwsh` from PATH if present, else Windows PowerShell at its system path; `cmd.exe`
    /// from `%ComSpec%` or the system path. Cached: PATH lookups are not free.
    pub fn find() -> &'static Interpreters {
        static FOUND: OnceLock<Interpreters> = OnceLock::new();
        FOUND.get_or_init(|| {
            let system_root = std::env::var_os("SystemRoot")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(r"C:\Windows"));
            let powershell = which::which("pwsh").unwrap_or_else(|_| {
                system_root.join(r"System32\WindowsPowerShell\v1.0\powershell.exe")
            });
            let cmd = std::env::var_os("ComSpec")
                .map(PathBuf::from)
                .unwrap_or_else(|| system_root.join(r"System32\cmd.exe"));
            Interpreters { powershell, cmd }
        })
    }
}

/// The argv a hook is started with. For `Cmd`, the last element is passed to `CreateProcess`
/// verbatim (see [`cmd_line_tail`]).
pub fn command(path: &Path, kind: LaunchKind, interpreters: &Interpreters) -> Vec<OsString> {
    match kind {
        LaunchKind::Direct | LaunchKind::Unsupported => vec![path.as_os_str().to_owned()],
        LaunchKind::PowerShell => {
            let mut argv = vec![interpreters.powershell.as_os_str().to_owned()];
            argv.extend(POWERSHELL_ARGS.iter().map(OsString::from));
            argv.push(path.as_os_str().to_owned());
            argv
        }
        LaunchKind::Cmd => {
            let mut argv = vec![interpreters.cmd.as_os_str().to_owned()];
            argv.extend(["/d", "/v:off", "/s", "/c"].map(OsString::from));
            argv.push(OsString::from(cmd_line_tail(&path.to_string_lossy())));
            argv
        }
    }
}

/// The text after `cmd.exe /d /v:off /s /c` that runs exactly `path` and nothing else.
///
/// `/s` strips the outer pair of quotes, leaving the path inside one pair of quotes, where
/// `& | < > ^ ( )` and spaces are literal. `!` is literal because delayed expansion is off
/// (`/v:off`, whatever the registry says), and `/d` skips AutoRun commands. `%` is the one
/// character cmd expands inside quotes: each becomes `%%cd:~,%`, which cmd reads as a literal
/// `%` followed by an empty substring of `%cd%`. Windows paths cannot contain `"`.
pub fn cmd_line_tail(path: &str) -> String {
    let escaped = path.replace('%', "%%cd:~,%");
    format!("\"\"{escaped}\"\"")
}

/// Why a path cannot be handed to `cmd.exe` safely, if it cannot.
pub fn cmd_unsafe_path(path: &str) -> Option<&'static str> {
    if path.contains('"') {
        Some("its path contains a double quote, which cmd.exe cannot run safely")
    } else if path.contains(['\n', '\r']) {
        Some("its path contains a line break, which cmd.exe cannot run safely")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interp() -> Interpreters {
        Interpreters {
            powershell: PathBuf::from(r"C:\pwsh\pwsh.exe"),
            cmd: PathBuf::from(r"C:\Windows\System32\cmd.exe"),
        }
    }

    #[test]
    fn direct_files_are_their_own_argv() {
        let argv = command(
            Path::new("/repo/.clinerules/hooks/PreToolUse"),
            LaunchKind::Direct,
            &interp(),
        );
        assert_eq!(
            argv,
            vec![OsString::from("/repo/.clinerules/hooks/PreToolUse")]
        );
    }

    #[test]
    fn powershell_gets_the_documented_flags_and_the_path_as_one_argument() {
        let argv = command(
            Path::new(r"C:\my hooks\PreToolUse.ps1"),
            LaunchKind::PowerShell,
            &interp(),
        );
        let argv: Vec<_> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            argv,
            [
                r"C:\pwsh\pwsh.exe",
                "-NoLogo",
                "-NoProfile",
                "-NonInteractive",
                "-ExecutionPolicy",
                "Bypass",
                "-File",
                r"C:\my hooks\PreToolUse.ps1"
            ]
        );
    }

    #[test]
    fn cmd_files_run_through_cmd_with_quoting_that_keeps_metacharacters_literal() {
        let argv = command(
            Path::new(r"C:\a & b^(x)!\PreToolUse.bat"),
            LaunchKind::Cmd,
            &interp(),
        );
        let argv: Vec<_> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(&argv[1..5], ["/d", "/v:off", "/s", "/c"]);
        assert_eq!(argv[5], r#"""C:\a & b^(x)!\PreToolUse.bat"""#);
    }

    #[test]
    fn percent_signs_cannot_expand_variables() {
        assert_eq!(
            cmd_line_tail(r"C:\100%PATH%\H.cmd"),
            r#"""C:\100%%cd:~,%PATH%%cd:~,%\H.cmd"""#
        );
    }

    #[test]
    fn paths_cmd_cannot_hold_are_refused() {
        assert!(cmd_unsafe_path("C:\\a\"b\\H.bat").is_some());
        assert!(cmd_unsafe_path("C:\\a\nb\\H.bat").is_some());
        assert!(cmd_unsafe_path("C:\\a & b\\H.bat").is_none());
    }
}
