//! How a discovered hook file is started: the exact argv, per platform. Pure rules over a
//! [`Machine`] that answers PATH and file questions; the live one is only asked while a
//! hooks directory is scanned (off the JavaScript thread), so the answers are part of the
//! discovery snapshot and handing out a runner makes no system call.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

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

/// Windows: the first file on PATH among [`windows_candidates`]. Not `which`, which tries
/// every PATHEXT extension in every PATH folder: its cost grows with PATHEXT (1,000
/// entries took seconds per lookup under Wine), and most of those kinds cannot be started.
#[cfg(windows)]
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    windows_candidates(name, &dirs)
        .into_iter()
        .find(|candidate| candidate.is_file())
}

/// The kinds of program Windows starts on its own, in Windows' default PATHEXT order.
pub const WINDOWS_PROGRAM_EXTENSIONS: [&str; 4] = [".com", ".exe", ".bat", ".cmd"];

/// Where a program `name` may be on Windows, in search order: in each PATH folder, `name`
/// itself if it already ends in a program extension, else `name` with each of
/// [`WINDOWS_PROGRAM_EXTENSIONS`] (at most 4 per folder, whatever PATHEXT holds). Pure.
pub fn windows_candidates(name: &str, dirs: &[PathBuf]) -> Vec<PathBuf> {
    let lower = name.to_ascii_lowercase();
    let has_ext = WINDOWS_PROGRAM_EXTENSIONS
        .iter()
        .any(|ext| lower.ends_with(ext));
    let mut candidates = Vec::new();
    for dir in dirs.iter().filter(|d| !d.as_os_str().is_empty()) {
        if has_ext {
            candidates.push(dir.join(name));
        } else {
            candidates.extend(
                WINDOWS_PROGRAM_EXTENSIONS
                    .iter()
                    .map(|ext| dir.join(format!("{name}{ext}"))),
            );
        }
    }
    candidates
}

/// The interpreters hooks are started with, found through a [`Machine`] only when a hook
/// needs one.
pub struct Interpreters<'m> {
    machine: &'m mut dyn Machine,
    /// The host's own Node binary (the binding passes `process.execPath`), preferred over
    /// PATH's for `.js` hooks.
    node: Option<PathBuf>,
    /// Windows rules (PowerShell and cmd.exe at their system paths, `py -3`).
    windows: bool,
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

    /// The Node binary for `.js` hooks: the host's own, else `node` from PATH.
    pub fn node(&mut self) -> Option<PathBuf> {
        match &self.node {
            Some(node) => Some(node.clone()),
            None => self.machine.on_path("node"),
        }
    }
}

/// PowerShell 7 (`pwsh`) when it is on PATH, else the Windows PowerShell every Windows has.
pub fn powershell(pwsh_on_path: Option<PathBuf>, system_root: &Path) -> PathBuf {
    pwsh_on_path
        .unwrap_or_else(|| system_root.join(r"System32\WindowsPowerShell\v1.0\powershell.exe"))
}

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

/// The program and its one argument as the kernel splits a `#!` line (Linux's binfmt_script,
/// macOS alike): only spaces and tabs are blanks, so a carriage return or a no-break space is
/// part of the program's name; the program ends at the first space or tab, and the rest (less
/// its leading and trailing blanks) is its argument. Pure.
pub fn kernel_shebang(line: &str) -> (&str, Option<&str>) {
    let line = line.trim_matches([' ', '\t']);
    match line.split_once([' ', '\t']) {
        Some((program, arg)) => (program, Some(arg.trim_start_matches([' ', '\t']))),
        None => (line, None),
    }
}

/// Why a `#!` line split as [`kernel_shebang`] cannot start the hook, if it cannot; `exists`
/// says whether `program` exists (`None`: a relative name, the kernel's business). Pure.
pub fn shebang_problem(program: &str, arg: Option<&str>, exists: Option<bool>) -> Option<String> {
    if program.ends_with('\r') && exists != Some(true) {
        return Some(format!(
            "its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named {}; convert the file to LF line endings (e.g. dos2unix)",
            quoted(program)
        ));
    }
    if exists == Some(false) {
        return Some(missing_interpreter(program));
    }
    match arg {
        Some(arg) if arg.ends_with('\r') => Some(format!(
            "its #! line ends with a carriage return (the file has Windows line endings), so {program} is given the argument {}; convert the file to LF line endings (e.g. dos2unix)",
            quoted(arg)
        )),
        _ => None,
    }
}

/// The sentence for a `#!` program that does not exist; a name with characters that do not
/// show (a no-break space, a line separator, a control) is quoted with them escaped. Pure.
pub fn missing_interpreter(program: &str) -> String {
    if program.chars().any(unclear) {
        format!(
            "its #! line names the program {}, which does not exist (the system ends the name only at a space or a tab, and this name holds a character that does not show, escaped here); fix the #! line",
            quoted(program)
        )
    } else {
        format!("its #! line names {program}, which does not exist; install it or fix the #! line")
    }
}

/// `name` in single quotes, each character that does not show as itself escaped as the CLI
/// and bash's `$'…'` write them (`\r`, `\x1B`, `\u00A0`): the name exactly as the system
/// sees it, and nothing a terminal would act on.
pub fn quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('\'');
    for c in name.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if unclear(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if unclear(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Characters that do not show as themselves: controls (C0, DEL, C1), blanks other than the
/// space, invisible formatting and bidi controls, and U+FFFD (a byte that is not UTF-8).
fn unclear(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{ad}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fffd}'
        )
}

/// The CLI profile's argv: the `#!` line wins (`#!/usr/bin/env X` is looked up on PATH),
/// otherwise the extension picks the interpreter. `Fails` names what to install.
pub fn interpreted_command(path: &Path, shebang: Option<&str>, tools: &mut Interpreters) -> Launch {
    let with = |program: &Path, args: &[&str]| -> Launch {
        let mut argv = vec![program.as_os_str().to_owned()];
        argv.extend(args.iter().map(OsString::from));
        argv.push(path.as_os_str().to_owned());
        Launch::Argv(argv)
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
                    return Launch::Fails(format!(
                        "its #! line ({}) names no program after env",
                        line.trim()
                    ));
                };
                return match tools.machine.on_path(name) {
                    Some(found) => with(&found, args),
                    None => Launch::Fails(format!("its #! line asks for {name}, which is not on PATH; install {name} or change the #! line")),
                };
            }
            if tools.machine.exists(Path::new(program)) {
                return with(Path::new(program), args);
            }
            // A Unix path on Windows (#!/bin/bash): the same program from PATH will do.
            return match tools.machine.on_path(base) {
                Some(found) => with(&found, args),
                None => Launch::Fails(format!("its #! line names {program}, which does not exist; install it or change the #! line")),
            };
        }
    }
    let extension = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.find('.').map(|i| n[i..].to_ascii_lowercase()))
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
    fn cli_shebang_wins_and_env_is_resolved_on_path() {
        let p = "/h/PreToolUse.sh";
        let m = &mut FixedMachine::unix();
        assert_eq!(
            strings(cli(p, Some("/usr/bin/env python3"), m)),
            ["/usr/bin/python3", "/h/PreToolUse.sh"]
        );
        assert_eq!(
            strings(cli(p, Some("/usr/bin/env -S bun run"), m)),
            ["/usr/bin/bun", "run", "/h/PreToolUse.sh"]
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

    /// Issue 18 (B1): only spaces and tabs split a `#!` line, as in the kernel.
    #[test]
    fn a_shebang_is_split_on_spaces_and_tabs_only() {
        assert_eq!(kernel_shebang("/bin/sh"), ("/bin/sh", None));
        assert_eq!(kernel_shebang("/bin/sh\r"), ("/bin/sh\r", None));
        assert_eq!(kernel_shebang("/bin/sh\u{a0}"), ("/bin/sh\u{a0}", None));
        assert_eq!(
            kernel_shebang("/nonexist\u{2028}y"),
            ("/nonexist\u{2028}y", None)
        );
        assert_eq!(
            kernel_shebang(" \t/usr/bin/env \t node  -x \t"),
            ("/usr/bin/env", Some("node  -x"))
        );
        assert_eq!(kernel_shebang("/bin/sh -e\r"), ("/bin/sh", Some("-e\r")));
        assert_eq!(kernel_shebang(""), ("", None));
    }

    #[test]
    fn windows_line_endings_and_hidden_characters_are_named_as_the_system_sees_them() {
        let crlf = shebang_problem("/bin/sh\r", None, Some(false));
        assert_eq!(
            crlf.as_deref(),
            Some("its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named '/bin/sh\\r'; convert the file to LF line endings (e.g. dos2unix)")
        );
        // A relative name is not looked up, but a carriage return is never meant.
        assert!(shebang_problem("sh\r", None, None).is_some_and(|w| w.contains("'sh\\r'")));
        // The program is fine, its argument carries the carriage return.
        let arg = shebang_problem("/bin/sh", Some("-e\r"), Some(true));
        assert!(
            arg.as_deref()
                .is_some_and(|w| w.contains("/bin/sh is given the argument '-e\\r'")),
            "{arg:?}"
        );
        let nbsp = shebang_problem("/bin/sh\u{a0}", None, Some(false));
        assert!(
            nbsp.as_deref().is_some_and(|w| w.starts_with(
                "its #! line names the program '/bin/sh\\u00A0', which does not exist"
            )),
            "{nbsp:?}"
        );
        assert_eq!(
            shebang_problem("/opt/nope", None, Some(false)).as_deref(),
            Some(
                "its #! line names /opt/nope, which does not exist; install it or fix the #! line"
            )
        );
        assert_eq!(shebang_problem("/bin/sh", Some("-e"), Some(true)), None);
        assert_eq!(shebang_problem("sh", None, None), None);
        assert_eq!(
            quoted("a\u{202e}b\u{9b}c\u{7f}\u{1b}\u{fffd}'\\é"),
            "'a\\u202Eb\\u009Bc\\x7F\\x1B\\uFFFD\\'\\\\é'"
        );
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

    #[test]
    fn windows_looks_programs_up_as_the_four_kinds_windows_starts_whatever_pathext_holds() {
        let dirs = [
            PathBuf::from(r"C:\bin"),
            PathBuf::new(),
            PathBuf::from(r"D:\tools"),
        ];
        let names = |name: &str| -> Vec<String> {
            windows_candidates(name, &dirs)
                .iter()
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .collect()
        };
        assert_eq!(
            names("pwsh"),
            [
                "C:/bin/pwsh.com",
                "C:/bin/pwsh.exe",
                "C:/bin/pwsh.bat",
                "C:/bin/pwsh.cmd",
                "D:/tools/pwsh.com",
                "D:/tools/pwsh.exe",
                "D:/tools/pwsh.bat",
                "D:/tools/pwsh.cmd"
            ]
        );
        assert_eq!(names("Py.EXE"), ["C:/bin/Py.EXE", "D:/tools/Py.EXE"]);
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
