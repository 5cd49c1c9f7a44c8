//! How a discovered hook file is started: the exact argv, per platform. Pure rules over a
//! [`Machine`] that answers PATH and file questions; the live one is only asked while a
//! hooks directory is scanned (off the JavaScript thread), so the answers are part of the
//! discovery snapshot and handing out a runner makes no system call.
//!
//! Here: the kinds of launch and a file's argv by kind (extension profile) or by `#!` line
//! and extension (CLI profile). interpreters.rs finds the programs (the [`Machine`] trait),
//! shebang.rs holds the kernel's `#!` rules, windows.rs cmd.exe quoting and PATH lookup.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::verdict::is_js_space;

mod from_descriptor;
mod interpreters;
mod shebang;
mod windows;

pub use self::from_descriptor::*;
pub use self::interpreters::*;
pub use self::shebang::*;
pub use self::windows::*;

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
    /// A Claude Code settings command, run by its shell (see [`Interpreters::claude_shell`]).
    Shell,
}

/// How one file starts, decided when its directory is scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// The argv it is started with (for `Cmd`, see [`cmd_line_tail`]).
    Argv(Vec<OsString>),
    /// Listed enabled, but it cannot start: a run reports `failed` with this sentence (an
    /// interpreter its author can install or fix).
    Fails(String),
    /// Listed disabled with this reason and never started.
    Disabled(String),
}

/// Arguments PowerShell gets before the script path: no profile, no prompts, no policy
/// surprises (pwsh ignores the policy outside Windows), and `-File` so the path is never
/// parsed as PowerShell code. The same on every platform.
pub const POWERSHELL_ARGS: [&str; 6] = [
    "-NoLogo",
    "-NoProfile",
    "-NonInteractive",
    "-ExecutionPolicy",
    "Bypass",
    "-File",
];

/// Why a `.ps1` hook is disabled where no PowerShell exists (macOS, Linux without pwsh).
pub const NO_PWSH: &str = "PowerShell hooks need pwsh, which is not on PATH; install PowerShell 7 (https://aka.ms/install-powershell, or brew install powershell on macOS) to enable it";

/// How a file of `kind` starts. For `Cmd`, the last element is passed to `CreateProcess`
/// verbatim (see [`cmd_line_tail`]).
pub fn command(path: &Path, kind: LaunchKind, tools: &mut Interpreters) -> Launch {
    match kind {
        LaunchKind::Direct | LaunchKind::Unsupported | LaunchKind::Interpreted => {
            Launch::Argv(vec![path.as_os_str().to_owned()])
        }
        LaunchKind::PowerShell => match tools.powershell() {
            Some(program) => {
                let mut argv = vec![program.into_os_string()];
                argv.extend(POWERSHELL_ARGS.iter().map(OsString::from));
                argv.push(path.as_os_str().to_owned());
                Launch::Argv(argv)
            }
            None => Launch::Disabled(NO_PWSH.to_owned()),
        },
        LaunchKind::Cmd => {
            let mut argv = vec![tools.cmd().into_os_string()];
            argv.extend(["/d", "/v:off", "/s", "/c"].map(OsString::from));
            argv.push(OsString::from(cmd_line_tail(&path.to_string_lossy())));
            Launch::Argv(argv)
        }
        // A settings command has no file of its own: see [`claude_command`].
        LaunchKind::Shell => {
            Launch::Fails("a Claude settings command is started by its text, not a file".to_owned())
        }
    }
}

/// How a Claude Code settings `command` starts: `<shell> -c <command>`, the shell being
/// [`Interpreters::claude_shell`]'s (`/bin/sh`, Git Bash on Windows).
pub fn claude_command(command: &str, tools: &mut Interpreters) -> Launch {
    match tools.claude_shell() {
        Ok(shell) => Launch::Argv(vec![
            shell.into_os_string(),
            OsString::from("-c"),
            OsString::from(command),
        ]),
        Err(why) => Launch::Fails(why),
    }
}

/// A file started directly (macOS/Linux): its own argv, unless its `#!` line cannot work: it
/// names an absolute interpreter that does not exist (the kernel's error would only say
/// ENOENT), or it ends with a carriage return (the file has Windows line endings).
pub fn direct_command(path: &Path, shebang: Option<&str>, tools: &mut Interpreters) -> Launch {
    if let Some((program, arg)) = shebang.map(kernel_shebang) {
        let exists = Path::new(program)
            .is_absolute()
            .then(|| tools.machine.exists(Path::new(program)));
        if let Some(why) = shebang_problem(program, arg, exists) {
            return Launch::Fails(why);
        }
    }
    Launch::Argv(vec![path.as_os_str().to_owned()])
}

/// The CLI profile's argv: the `#!` line wins (`#!/usr/bin/env X` is looked up on PATH),
/// otherwise the extension picks the interpreter. `Fails` names what to install.
pub fn interpreted_command(path: &Path, shebang: Option<&str>, tools: &mut Interpreters) -> Launch {
    let windows = tools.windows;
    let with = |program: &Path, args: &[&str]| -> Launch {
        let mut argv = vec![program.as_os_str().to_owned()];
        if !windows && program.file_name().is_some_and(|name| name == "bun") {
            argv.extend(BUN_GUARD.iter().map(OsString::from));
        }
        argv.extend(args.iter().map(OsString::from));
        argv.push(path.as_os_str().to_owned());
        Launch::Argv(argv)
    };
    if let Some(line) = shebang {
        let words: Vec<&str> = line.split(is_js_space).filter(|w| !w.is_empty()).collect();
        if !words.is_empty() {
            return from_shebang(line, &words, path, tools, &with);
        }
    }
    // The extension in any case: `Hook.SH` is a shell script, `Hook.PY` Python.
    let extension = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| node_extname(n).to_ascii_lowercase())
        .unwrap_or_default();
    let missing = |what: &str, hint: &str| {
        Launch::Fails(format!(
            "{what} hooks need {hint}, which is not on PATH; install it or add a #! line"
        ))
    };
    let found = |program: Option<PathBuf>, or: Launch| match program {
        Some(program) => with(&program, &[]),
        None => or,
    };
    match extension.as_str() {
        "" | ".sh" | ".bash" => {
            let bash = tools.machine.on_path("bash");
            found(bash, missing("shell", "bash"))
        }
        ".zsh" => {
            let zsh = tools
                .machine
                .on_path("zsh")
                .or_else(|| tools.machine.on_path("bash"));
            found(zsh, missing("zsh", "zsh"))
        }
        ".js" | ".mjs" | ".cjs" => found(tools.node(), missing("JavaScript", "node")),
        ".ts" | ".mts" | ".cts" => {
            let bun = tools.machine.on_path("bun");
            found(bun, Launch::Fails("TypeScript hooks run with bun, which is not on PATH; install bun (npm install -g bun) or add a #! line".to_owned()))
        }
        ".py" => match tools.python() {
            Some(prefix) => {
                let mut argv = prefix;
                argv.push(path.as_os_str().to_owned());
                Launch::Argv(argv)
            }
            None if tools.windows => missing("Python", "Python 3 (py -3 or python)"),
            None => missing("Python", "python3"),
        },
        ".ps1" => command(path, LaunchKind::PowerShell, tools),
        other => Launch::Fails(format!("files ending in {other} are not run as hooks")),
    }
}

/// The argv of a CLI-profile hook from its `#!` line's words, by the Cline SDK's rule: a shell
/// (`bash`, `sh`, `zsh`) or Python (`python3`, `python`) named by any path, in any case, is
/// the bare name from PATH (Python as `.py` files find it on Windows); `env` is followed by
/// the program it names, with the same rule; any other program is the one named. Where the
/// SDK's start would fail, the hook still starts: `env -S` and other `env` flags are passed
/// over, and a named program that does not exist (a Unix path on Windows) or a shell not on
/// PATH is looked up the other way.
fn from_shebang(
    line: &str,
    words: &[&str],
    path: &Path,
    tools: &mut Interpreters,
    with: &dyn Fn(&Path, &[&str]) -> Launch,
) -> Launch {
    let Some((program, args)) = words.split_first() else {
        return Launch::Fails(format!(
            "its #! line ({}) names no program after env",
            line.trim()
        ));
    };
    let base = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .to_lowercase();
    // A bare name is only ever looked up on PATH, never taken relative to a folder.
    let named = program.contains(['/', '\\']);
    match base.as_str() {
        "env" => {
            let rest: Vec<&str> = args
                .iter()
                .copied()
                .skip_while(|a| a.starts_with('-'))
                .collect();
            from_shebang(line, &rest, path, tools, with)
        }
        "bash" | "sh" | "zsh" => match tools.machine.on_path(&base) {
            Some(found) => with(&found, args),
            None if named && tools.machine.exists(Path::new(program)) => {
                with(Path::new(program), args)
            }
            None => Launch::Fails(format!(
                "its #! line asks for {base}, which is not on PATH; install {base} or change the #! line"
            )),
        },
        "python3" | "python" if tools.windows => match tools.python() {
            Some(mut argv) => {
                argv.extend(args.iter().map(OsString::from));
                argv.push(path.as_os_str().to_owned());
                Launch::Argv(argv)
            }
            None => Launch::Fails(
                "its #! line asks for Python, which is not on PATH; install Python 3 (py -3 or python)".to_owned(),
            ),
        },
        "python3" | "python" => match tools.machine.on_path(&base) {
            Some(found) => with(&found, args),
            None if named && tools.machine.exists(Path::new(program)) => {
                with(Path::new(program), args)
            }
            None => Launch::Fails(format!(
                "its #! line asks for {base}, which is not on PATH; install {base} or change the #! line"
            )),
        },
        _ if named && tools.machine.exists(Path::new(program)) => with(Path::new(program), args),
        _ => {
            let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
            match tools.machine.on_path(name) {
                Some(found) => with(&found, args),
                None if named => {
                    Launch::Fails(format!("its #! line names {program}, which does not exist; install it or change the #! line"))
                }
                None => Launch::Fails(format!("its #! line asks for {name}, which is not on PATH; install {name} or change the #! line")),
            }
        }
    }
}

/// The extension of a file name as Node's `path.extname` gives it (the Cline SDK's rule):
/// from its last dot, unless that dot starts the name (`.sh` has none) or the name is `..`.
/// Pure.
pub fn node_extname(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if dot > 0 && name != ".." => &name[dot..],
        _ => "",
    }
}

/// Tests, and a fixed [`Machine`] other rooms' tests start hooks with.
#[cfg(test)]
#[allow(missing_docs)]
pub mod tests {
    use super::*;

    /// A machine with fixed answers: python3, node, bun and bash are on PATH under
    /// /usr/bin, `/bin/sh` and `/bin/bash` exist; it counts the questions asked.
    #[derive(Debug, Default)]
    pub struct FixedMachine {
        pub on_path: Vec<(String, PathBuf)>,
        pub asked: usize,
    }

    impl FixedMachine {
        pub fn unix() -> FixedMachine {
            let on_path = ["python3", "node", "bun", "bash"]
                .iter()
                .map(|n| (n.to_string(), PathBuf::from(format!("/usr/bin/{n}"))))
                .collect();
            FixedMachine { on_path, asked: 0 }
        }

        pub fn with(mut self, name: &str, at: &str) -> FixedMachine {
            self.on_path.push((name.to_owned(), at.into()));
            self
        }
    }

    impl Machine for FixedMachine {
        fn on_path(&mut self, name: &str) -> Option<PathBuf> {
            self.asked += 1;
            self.on_path
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, p)| p.clone())
        }

        fn exists(&mut self, path: &Path) -> bool {
            self.asked += 1;
            path == Path::new("/bin/sh")
                || path == Path::new("/bin/bash")
                || self.on_path.iter().any(|(_, p)| p == path)
        }

        fn var(&mut self, name: &str) -> Option<OsString> {
            (name == "SystemRoot").then(|| OsString::from(r"C:\Windows"))
        }
    }

    fn strings(launch: Launch) -> Vec<String> {
        match launch {
            Launch::Argv(argv) => argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            other => panic!("not an argv: {other:?}"),
        }
    }

    fn cli(path: &str, shebang: Option<&str>, machine: &mut FixedMachine) -> Launch {
        let mut tools = Interpreters::new(machine, Some("/opt/node/bin/node".into()), false);
        interpreted_command(Path::new(path), shebang, &mut tools)
    }

    fn fails(launch: Launch) -> String {
        match launch {
            Launch::Fails(why) => why,
            other => panic!("expected a failure: {other:?}"),
        }
    }

    #[test]
    fn cli_shebang_wins_and_env_is_resolved_on_path() {
        let p = "/h/PreToolUse.sh";
        let m = &mut FixedMachine::unix();
        assert_eq!(
            strings(cli(p, Some("/usr/bin/env python3"), m)),
            ["/usr/bin/python3", "/h/PreToolUse.sh"]
        );
        assert_eq!(
            strings(cli(p, Some("/usr/bin/env -S bun run"), m)),
            [
                "/usr/bin/bun",
                "--config=/dev/null",
                "--no-env-file",
                "--tsconfig-override=/dev/null",
                "run",
                "/h/PreToolUse.sh"
            ]
        );
        assert_eq!(
            strings(cli(p, Some("/bin/sh -e"), m)),
            ["/bin/sh", "-e", "/h/PreToolUse.sh"]
        );
        let err = fails(cli(p, Some("/usr/bin/env ruby"), m));
        assert!(err.contains("ruby, which is not on PATH"), "{err}");
        let err = fails(cli(p, Some("/nonexistent/zzz"), m));
        assert!(
            err.contains("/nonexistent/zzz, which does not exist"),
            "{err}"
        );
    }

    #[test]
    fn cli_shebang_follows_the_sdk_for_shells_and_python_in_any_case_and_path() {
        let p = "/h/PreToolUse";
        let m = &mut FixedMachine::unix().with("zsh", "/opt/zsh");
        // A shell or Python named by any path, in any case, is the one on PATH.
        for (line, want) in [
            ("/bin/BASH -e", vec!["/usr/bin/bash", "-e", p]),
            ("/usr/local/bin/bash", vec!["/usr/bin/bash", p]),
            ("/bin/zsh", vec!["/opt/zsh", p]),
            (
                "/usr/bin/env -S python3 -u",
                vec!["/usr/bin/python3", "-u", p],
            ),
            ("/usr/bin/Python3", vec!["/usr/bin/python3", p]),
            // Any other program is the one named, when it exists.
            (
                "/usr/bin/node --no-warnings",
                vec!["/usr/bin/node", "--no-warnings", p],
            ),
            // A relative name is looked up on PATH, as the SDK's spawn does.
            ("node", vec!["/usr/bin/node", p]),
        ] {
            assert_eq!(strings(cli(p, Some(line), m)), want, "{line}");
        }
        // Windows: Python from a #! line as a .py file finds it.
        let m = &mut FixedMachine::unix().with("py", r"C:\Windows\py.exe");
        let mut tools = Interpreters::new(m, None, true);
        assert_eq!(
            strings(interpreted_command(
                Path::new(p),
                Some("/usr/bin/python3"),
                &mut tools
            )),
            [r"C:\Windows\py.exe", "-3", p]
        );
    }

    #[test]
    fn cli_extension_picks_the_interpreter() {
        let m = &mut FixedMachine::unix();
        assert_eq!(
            strings(cli("/h/PreToolUse", None, m)),
            ["/usr/bin/bash", "/h/PreToolUse"]
        );
        assert_eq!(
            strings(cli("/h/a.zsh", None, m)),
            ["/usr/bin/bash", "/h/a.zsh"]
        );
        assert_eq!(
            strings(cli("/h/a.mjs", None, m)),
            ["/opt/node/bin/node", "/h/a.mjs"]
        );
        assert_eq!(
            strings(cli("/h/a.PY", None, m)),
            ["/usr/bin/python3", "/h/a.PY"]
        );
        // bun reads no bunfig.toml, .env or tsconfig.json from the workspace.
        assert_eq!(
            strings(cli("/h/a.ts", None, m)),
            [
                "/usr/bin/bun",
                "--config=/dev/null",
                "--no-env-file",
                "--tsconfig-override=/dev/null",
                "/h/a.ts"
            ]
        );
        let err = fails(cli("/h/a.ts", None, &mut FixedMachine::default()));
        assert!(err.contains("install bun"), "{err}");
    }

    #[test]
    fn a_ps1_hook_outside_windows_runs_with_pwsh_from_path_or_is_disabled_naming_pwsh() {
        let m = &mut FixedMachine::unix().with("pwsh", "/opt/microsoft/powershell/7/pwsh");
        assert_eq!(
            strings(cli("/h/PreToolUse.ps1", None, m)),
            [
                "/opt/microsoft/powershell/7/pwsh",
                "-NoLogo",
                "-NoProfile",
                "-NonInteractive",
                "-ExecutionPolicy",
                "Bypass",
                "-File",
                "/h/PreToolUse.ps1"
            ]
        );
        let without = cli("/h/PreToolUse.ps1", None, &mut FixedMachine::unix());
        let Launch::Disabled(why) = without else {
            panic!("{without:?}")
        };
        assert!(
            why.contains("pwsh") && why.contains("install PowerShell"),
            "{why}"
        );
    }

    #[test]
    #[cfg(unix)] // an absolute Unix path: on Windows it is not absolute
    fn a_shebang_naming_a_missing_absolute_interpreter_fails_with_its_name() {
        let m = &mut FixedMachine::unix();
        let mut tools = Interpreters::new(m, None, false);
        let p = Path::new("/h/TaskStart");
        assert_eq!(
            direct_command(p, Some("/bin/sh -e"), &mut tools),
            Launch::Argv(vec![p.as_os_str().to_owned()])
        );
        let err = fails(direct_command(p, Some("/nonexistent/sh"), &mut tools));
        assert!(
            err.contains("/nonexistent/sh, which does not exist"),
            "{err}"
        );
        // `#!sh` (relative) is the kernel's business, not checked here.
        assert!(matches!(
            direct_command(p, Some("sh"), &mut tools),
            Launch::Argv(_)
        ));
    }

    #[test]
    #[cfg(unix)] // `/bin/sh` and `/nonexistent` are Unix paths; Windows never starts by #! line
    fn a_direct_hook_with_windows_line_endings_fails_before_it_is_started() {
        let m = &mut FixedMachine::unix();
        let mut tools = Interpreters::new(m, None, false);
        let p = Path::new("/h/PreToolUse");
        let why = fails(direct_command(p, Some("/bin/sh\r"), &mut tools));
        assert!(why.contains("Windows line endings"), "{why}");
        let why = fails(direct_command(p, Some("/bin/sh\u{a0}"), &mut tools));
        assert!(why.contains("'/bin/sh\\u00A0'"), "{why}");
        // The CLI profile starts the interpreter itself: a CRLF line still runs there.
        assert_eq!(
            strings(cli("/h/PreToolUse", Some("/bin/sh\r"), m)),
            ["/bin/sh", "/h/PreToolUse"]
        );
    }

    #[test]
    fn direct_files_are_their_own_argv() {
        let m = &mut FixedMachine::default();
        let argv = command(
            Path::new("/repo/.clinerules/hooks/PreToolUse"),
            LaunchKind::Direct,
            &mut Interpreters::new(m, None, false),
        );
        assert_eq!(strings(argv), ["/repo/.clinerules/hooks/PreToolUse"]);
        assert_eq!(m.asked, 0, "a direct file needs no lookup");
    }

    #[test]
    fn powershell_gets_the_documented_flags_and_the_path_as_one_argument() {
        let m = &mut FixedMachine::default().with("pwsh", r"C:\pwsh\pwsh.exe");
        let argv = command(
            Path::new(r"C:\my hooks\PreToolUse.ps1"),
            LaunchKind::PowerShell,
            &mut Interpreters::new(m, None, true),
        );
        assert_eq!(
            strings(argv),
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
        let m = &mut FixedMachine::default();
        let argv = strings(command(
            Path::new(r"C:\a & b^(x)!\PreToolUse.bat"),
            LaunchKind::Cmd,
            &mut Interpreters::new(m, None, true),
        ));
        assert_eq!(&argv[1..5], ["/d", "/v:off", "/s", "/c"]);
        assert_eq!(argv[5], r#"""C:\a & b^(x)!\PreToolUse.bat"""#);
    }
}
