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
    /// CLI profile: the interpreter comes from the `#!` line or the extension.
    Interpreted,
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

/// The programs hooks are started with, resolved once per process (PATH lookups are not
/// free). `node` defaults to the one on PATH; the binding passes the host's own Node.
#[derive(Debug, Clone)]
pub struct Interpreters {
    /// `pwsh` from PATH if present, else Windows PowerShell at its system path.
    pub powershell: PathBuf,
    /// `%ComSpec%`, else `cmd.exe` at its system path.
    pub cmd: PathBuf,
    pub bash: Option<PathBuf>,
    pub zsh: Option<PathBuf>,
    pub node: Option<PathBuf>,
    pub bun: Option<PathBuf>,
    /// The argv prefix that runs Python 3: `python3`; on Windows `py -3`, else `python`.
    pub python: Option<Vec<OsString>>,
    /// Finds a program on PATH (for `#!/usr/bin/env X`).
    pub lookup: fn(&str) -> Option<PathBuf>,
}

#[cfg(test)]
impl Interpreters {
    /// Fixed interpreters for rule tests: python3, node, bun and bash "exist" under /usr/bin.
    pub fn fixture() -> Interpreters {
        fn lookup(name: &str) -> Option<PathBuf> {
            ["python3", "node", "bun", "bash"]
                .contains(&name)
                .then(|| PathBuf::from(format!("/usr/bin/{name}")))
        }
        Interpreters {
            powershell: PathBuf::from(r"C:\pwsh\pwsh.exe"),
            cmd: PathBuf::from(r"C:\Windows\System32\cmd.exe"),
            bash: Some("/bin/bash".into()),
            zsh: None,
            node: Some("/opt/node/bin/node".into()),
            bun: None,
            python: Some(vec!["/usr/bin/python3".into()]),
            lookup,
        }
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    which::which(program).ok()
}

impl Interpreters {
    pub fn find() -> &'static Interpreters {
        static FOUND: OnceLock<Interpreters> = OnceLock::new();
        FOUND.get_or_init(|| {
            let system_root = std::env::var_os("SystemRoot")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(r"C:\Windows"));
            let powershell = powershell(on_path("pwsh"), &system_root);
            let cmd = std::env::var_os("ComSpec")
                .map(PathBuf::from)
                .unwrap_or_else(|| system_root.join(r"System32\cmd.exe"));
            let python = if cfg!(windows) {
                on_path("py")
                    .map(|py| vec![py.into_os_string(), OsString::from("-3")])
                    .or_else(|| on_path("python").map(|p| vec![p.into_os_string()]))
            } else {
                on_path("python3").map(|p| vec![p.into_os_string()])
            };
            Interpreters {
                powershell,
                cmd,
                bash: on_path("bash"),
                zsh: on_path("zsh"),
                node: on_path("node"),
                bun: on_path("bun"),
                python,
                lookup: on_path,
            }
        })
    }
}

/// PowerShell 7 (`pwsh`) when it is on PATH, else the Windows PowerShell every Windows has.
pub fn powershell(pwsh_on_path: Option<PathBuf>, system_root: &Path) -> PathBuf {
    pwsh_on_path
        .unwrap_or_else(|| system_root.join(r"System32\WindowsPowerShell\v1.0\powershell.exe"))
}

/// The argv a hook is started with. For `Cmd`, the last element is passed to `CreateProcess`
/// verbatim (see [`cmd_line_tail`]).
pub fn command(path: &Path, kind: LaunchKind, interpreters: &Interpreters) -> Vec<OsString> {
    match kind {
        LaunchKind::Direct | LaunchKind::Unsupported | LaunchKind::Interpreted => {
            vec![path.as_os_str().to_owned()]
        }
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

/// The CLI profile's argv: the `#!` line wins (`#!/usr/bin/env X` is looked up on PATH),
/// otherwise the extension picks the interpreter. `Err` names what to install.
pub fn interpreted_command(
    path: &Path,
    shebang: Option<&str>,
    tools: &Interpreters,
) -> Result<Vec<OsString>, String> {
    let with = |program: &Path, args: &[&str]| -> Vec<OsString> {
        let mut argv = vec![program.as_os_str().to_owned()];
        argv.extend(args.iter().map(OsString::from));
        argv.push(path.as_os_str().to_owned());
        argv
    };
    if let Some(line) = shebang {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some((program, args)) = words.split_first() {
            let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
            if base == "env" {
                // `env -S prog args` and plain `env prog args` both name `prog`.
                let rest: Vec<&str> = args
                    .iter()
                    .copied()
                    .skip_while(|a| a.starts_with('-'))
                    .collect();
                let Some((name, args)) = rest.split_first() else {
                    return Err(format!("its #! line ({line}) names no program after env"));
                };
                return match (tools.lookup)(name) {
                    Some(found) => Ok(with(&found, args)),
                    None => Err(format!("its #! line asks for {name}, which is not on PATH; install {name} or change the #! line")),
                };
            }
            if Path::new(program).exists() {
                return Ok(with(Path::new(program), args));
            }
            // A Unix path on Windows (#!/bin/bash): the same program from PATH will do.
            return match (tools.lookup)(base) {
                Some(found) => Ok(with(&found, args)),
                None => Err(format!("its #! line names {program}, which does not exist; install it or change the #! line")),
            };
        }
    }
    let extension = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.find('.').map(|i| n[i..].to_ascii_lowercase()))
        .unwrap_or_default();
    let missing = |what: &str, hint: &str| {
        format!("{what} hooks need {hint}, which is not on PATH; install it or add a #! line")
    };
    match extension.as_str() {
        "" | ".sh" | ".bash" => tools.bash.as_deref().map(|b| with(b, &[])).ok_or_else(|| missing("shell", "bash")),
        ".zsh" => tools.zsh.as_deref().or(tools.bash.as_deref()).map(|z| with(z, &[])).ok_or_else(|| missing("zsh", "zsh")),
        ".js" | ".mjs" | ".cjs" => tools.node.as_deref().map(|n| with(n, &[])).ok_or_else(|| missing("JavaScript", "node")),
        ".ts" | ".mts" | ".cts" => tools
            .bun
            .as_deref()
            .map(|b| with(b, &[]))
            .ok_or_else(|| "TypeScript hooks run with bun, which is not on PATH; install bun (npm install -g bun) or add a #! line".to_owned()),
        ".py" => match &tools.python {
            Some(prefix) => {
                let mut argv = prefix.clone();
                argv.push(path.as_os_str().to_owned());
                Ok(argv)
            }
            None if cfg!(windows) => Err(missing("Python", "Python 3 (py -3 or python)")),
            None => Err(missing("Python", "python3")),
        },
        ".ps1" => Ok(command(path, LaunchKind::PowerShell, tools)),
        other => Err(format!("files ending in {other} are not run as hooks")),
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
        Interpreters::fixture()
    }

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

    fn argv(result: Result<Vec<OsString>, String>) -> Vec<String> {
        result
            .unwrap()
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn cli_shebang_wins_and_env_is_resolved_on_path() {
        let p = Path::new("/h/PreToolUse.sh");
        let i = interp();
        assert_eq!(
            argv(interpreted_command(p, Some("/usr/bin/env python3"), &i)),
            ["/usr/bin/python3", "/h/PreToolUse.sh"]
        );
        assert_eq!(
            argv(interpreted_command(p, Some("/usr/bin/env -S bun run"), &i)),
            ["/usr/bin/bun", "run", "/h/PreToolUse.sh"]
        );
        assert_eq!(
            argv(interpreted_command(p, Some("/bin/sh -e"), &i)),
            ["/bin/sh", "-e", "/h/PreToolUse.sh"]
        );
        let err = interpreted_command(p, Some("/usr/bin/env ruby"), &i).unwrap_err();
        assert!(err.contains("ruby, which is not on PATH"), "{err}");
        let err = interpreted_command(p, Some("/nonexistent/zzz"), &i).unwrap_err();
        assert!(
            err.contains("/nonexistent/zzz, which does not exist"),
            "{err}"
        );
    }

    #[test]
    fn cli_extension_picks_the_interpreter() {
        let i = interp();
        assert_eq!(
            argv(interpreted_command(Path::new("/h/PreToolUse"), None, &i)),
            ["/bin/bash", "/h/PreToolUse"]
        );
        assert_eq!(
            argv(interpreted_command(Path::new("/h/a.zsh"), None, &i)),
            ["/bin/bash", "/h/a.zsh"]
        );
        assert_eq!(
            argv(interpreted_command(Path::new("/h/a.mjs"), None, &i)),
            ["/opt/node/bin/node", "/h/a.mjs"]
        );
        assert_eq!(
            argv(interpreted_command(Path::new("/h/a.PY"), None, &i)),
            ["/usr/bin/python3", "/h/a.PY"]
        );
        assert_eq!(
            argv(interpreted_command(Path::new("/h/a.ps1"), None, &i))[1..3],
            ["-NoLogo", "-NoProfile"]
        );
        let err = interpreted_command(Path::new("/h/a.ts"), None, &i).unwrap_err();
        assert!(err.contains("install bun"), "{err}");
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
