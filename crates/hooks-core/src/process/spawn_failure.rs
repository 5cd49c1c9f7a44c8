//! Why a hook could not start, told to its author: what the start reported, weighed against
//! what discovery saw of the hook and what the filesystem shows now.

use std::io;
use std::path::{Path, PathBuf};

use super::start_retry::{is_passing_refusal, START_ATTEMPTS};
use crate::discovery::DiscoveredHook;
use crate::launch;

/// What the filesystem shows is in the way of starting the hook, if anything: its file is
/// gone, or its working directory is missing or closed to this user.
pub(super) fn start_obstacle(hook: &DiscoveredHook, cwd: &Path) -> Option<String> {
    if !hook.path.exists() {
        return Some(format!(
            "could not start: {} no longer exists (it was deleted or renamed after discovery)",
            hook.path.display()
        ));
    }
    if !cwd.is_dir() {
        return Some(format!(
            "could not start: its working directory {} does not exist",
            cwd.display()
        ));
    }
    if !can_enter(cwd) {
        return Some(format!(
            "could not start: its working directory {} cannot be entered by this user (permission denied)",
            cwd.display()
        ));
    }
    None
}

/// Turns a failed start into a sentence that names the fix. It goes by what the start
/// reported and what discovery saw of the hook (its `#!` program), never by a second look at
/// the hook file, which may have been deleted and recreated since the start failed. What it
/// does check now is the working directory and the `#!` program: the other possible causes.
pub(super) fn explain_start_error(err: &io::Error, hook: &DiscoveredHook, cwd: &Path) -> String {
    let program = hook
        .command
        .first()
        .map_or_else(|| hook.path.clone(), PathBuf::from);
    let shebang_program = hook.shebang_program.clone();
    let facts = StartFacts {
        hook_gone: !hook.path.exists(),
        cwd_missing: !cwd.is_dir(),
        cwd_closed: !can_enter(cwd),
        started_directly: program == hook.path,
        interpreter_exists: shebang_program
            .as_deref()
            .filter(|p| Path::new(p).is_absolute())
            .map(|p| Path::new(p).exists()),
        shebang_program,
    };
    start_failure(&StartError::of(err), &hook.path, &program, cwd, &facts)
}

/// How starting a process failed, as far as the explanation differs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum StartError {
    /// ENOENT / ERROR_FILE_NOT_FOUND: a file the start needed was not there.
    NotFound(String),
    /// EACCES.
    PermissionDenied(String),
    /// ETXTBSY (Windows: a sharing violation): the file was open for writing.
    Busy,
    /// E2BIG: its arguments and environment together are over the system's limit.
    #[cfg_attr(windows, allow(dead_code))]
    TooBig,
    /// Windows: the file is not a program Windows can run (error 193 and its kin).
    #[cfg_attr(not(windows), allow(dead_code))]
    NotAProgram {
        code: i32,
    },
    /// Windows: a program for another processor (error 216).
    #[cfg_attr(not(windows), allow(dead_code))]
    OtherMachine,
    /// Refused for a reason that passes ([`is_passing_refusal`]), at every try.
    Refused(String),
    Other(String),
}

impl StartError {
    fn of(err: &io::Error) -> StartError {
        #[cfg(windows)]
        {
            // ERROR_BAD_FORMAT, ERROR_INVALID_EXE_SIGNATURE, ERROR_CHILD_NOT_COMPLETE,
            // ERROR_BAD_EXE_FORMAT: their system texts hold a raw `%1`.
            match err.raw_os_error() {
                Some(code @ (11 | 129 | 191 | 193)) => return StartError::NotAProgram { code },
                Some(216) => return StartError::OtherMachine,
                // ERROR_SHARING_VIOLATION: another process holds it open for writing.
                Some(32) => return StartError::Busy,
                _ => {}
            }
        }
        #[cfg(unix)]
        match err.raw_os_error() {
            Some(libc::ETXTBSY) => return StartError::Busy,
            Some(libc::E2BIG) => return StartError::TooBig,
            _ => {}
        }
        if is_passing_refusal(err) {
            return StartError::Refused(err.to_string());
        }
        match err.kind() {
            io::ErrorKind::NotFound => StartError::NotFound(err.to_string()),
            io::ErrorKind::PermissionDenied => StartError::PermissionDenied(err.to_string()),
            _ => StartError::Other(err.to_string()),
        }
    }
}

/// What was checked after a start failed. Whether the hook file is there now only picks the
/// words ("no longer exists" or "was not there when it was started"), never the cause.
#[derive(Debug, Clone, Default)]
struct StartFacts {
    hook_gone: bool,
    cwd_missing: bool,
    cwd_closed: bool,
    /// The hook file is the program started (no interpreter in front of it).
    started_directly: bool,
    /// The program its `#!` line named when it was discovered.
    shebang_program: Option<String>,
    /// Whether that program, if it is an absolute path, exists now.
    interpreter_exists: Option<bool>,
}

/// The sentence for a failed start of the hook at `path`, started as `program` in `cwd`.
/// Pure. An ENOENT has four possible causes: the working directory, an interpreter named in
/// front of the hook, the hook's `#!` program, and the hook file itself; it is blamed on the
/// hook file only when the others are ruled out.
fn start_failure(
    error: &StartError,
    path: &Path,
    program: &Path,
    cwd: &Path,
    facts: &StartFacts,
) -> String {
    let (path, program, cwd) = (path.display(), program.display(), cwd.display());
    let missing = if facts.hook_gone {
        format!(
            "could not start: {path} no longer exists (it was deleted or renamed after discovery"
        )
    } else {
        format!("could not start: {path} was not there when it was started (it was deleted or renamed after discovery")
    };
    if matches!(error, StartError::NotFound(_)) && facts.cwd_missing {
        return format!("could not start: its working directory {cwd} does not exist");
    }
    if matches!(error, StartError::PermissionDenied(_)) && facts.cwd_closed {
        return format!(
            "could not start: its working directory {cwd} cannot be entered by this user (permission denied)"
        );
    }
    match error {
        StartError::NotFound(_) if !facts.started_directly => format!(
            "could not start: {program}, which runs it, was not found when it was started (it was removed or renamed after discovery); install it again or fix PATH"
        ),
        StartError::NotFound(text) => match (&facts.shebang_program, facts.interpreter_exists) {
            // A program that is missing, or whose name ends in a carriage return.
            (Some(interpreter), Some(false)) => format!(
                "could not start: {}",
                launch::shebang_problem(interpreter, None, Some(false))
                    .unwrap_or_else(|| launch::missing_interpreter(interpreter))
            ),
            (Some(interpreter), None) if interpreter.ends_with('\r') => format!(
                "could not start: {}",
                launch::shebang_problem(interpreter, None, None)
                    .unwrap_or_else(|| launch::missing_interpreter(interpreter))
            ),
            (Some(interpreter), Some(true)) if facts.hook_gone => {
                format!("{missing}; its #! program {} exists)", shown(interpreter))
            }
            // Both files are there: the system's "not found" was about the #! program's own
            // #! program or loader, or the hook was swapped at that very moment; say both.
            (Some(interpreter), Some(true)) => {
                let interpreter = shown(interpreter);
                format!(
                    "could not start: the system reported 'not found' for {path} or for a program it names (its #! program {interpreter} exists; if {interpreter} is itself a script, check its own #! line)"
                )
            }
            (Some(interpreter), None) => format!(
                "could not start: the system found no file to run ({text}): either {path} was deleted or renamed after discovery, or {}, which its #! line names, was not found",
                shown(interpreter)
            ),
            (None, _) if cfg!(windows) || facts.hook_gone => format!("{missing})"),
            (None, _) => format!(
                "could not start: the system found no file to run ({text}): either {path} was deleted or renamed after discovery, or it is a program whose loader (the dynamic linker it names) is missing"
            ),
        },
        StartError::PermissionDenied(text) => format!(
            "could not start: permission denied ({text}); make sure it is executable (chmod +x) and on a filesystem that allows running programs"
        ),
        // Its own text ("Argument list too long") names neither the environment nor a fix.
        StartError::TooBig => "could not start: its arguments and environment are larger than the system allows (E2BIG); pass fewer or smaller `env` variables".to_owned(),
        StartError::Busy if cfg!(windows) => "could not start: another program had its file open without sharing it (a sharing violation: an editor saving it, a virus scanner, a backup); try again, and write hook files under another name and rename them into place".to_owned(),
        StartError::Busy => "could not start: its file was still open for writing when it was started (text file busy); write hook files under another name and rename them into place".to_owned(),
        StartError::NotAProgram { code } => format!(
            "could not start: {program} is not a valid Windows program (Windows error {code}); replace it with a program built for Windows, or write the hook as a .cmd or .ps1 file"
        ),
        StartError::OtherMachine => format!(
            "could not start: {program} is built for another processor type (Windows error 216); use a build for this machine"
        ),
        StartError::Refused(text) => format!(
            "could not start: the system refused to create its process ({text}) at each of {START_ATTEMPTS} tries; memory, processes or system resources are running short (or process creation failed inside the system): the hook is not at fault, try again"
        ),
        // Windows' texts may hold `%1`, the name of the file it was given.
        StartError::Other(text) => {
            format!("could not start: {}", text.replace("%1", &program.to_string()))
        }
    }
}

/// A `#!` program's name as the messages show it: as is when every character shows as
/// itself, else quoted with the others escaped.
fn shown(program: &str) -> String {
    if launch::quoted(program).len() == program.len() + 2 {
        program.to_owned()
    } else {
        launch::quoted(program)
    }
}

/// Whether this process may make `dir` its working directory (search permission).
#[cfg(unix)]
fn can_enter(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    match std::ffi::CString::new(dir.as_os_str().as_bytes()) {
        // Safety: a valid NUL-terminated path; access() only reads it.
        Ok(path) => unsafe { libc::access(path.as_ptr(), libc::X_OK) == 0 },
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn can_enter(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 18 item 8: a failed start is explained from what was observed, and each
    /// sentence claims only what the facts show.
    #[test]
    fn a_failed_start_is_blamed_on_what_the_facts_show() {
        let path = Path::new("/w/.clinerules/hooks/TaskStart");
        let cwd = Path::new("/w");
        let direct = |shebang: Option<&str>, exists: Option<bool>| StartFacts {
            started_directly: true,
            shebang_program: shebang.map(str::to_owned),
            interpreter_exists: exists,
            ..StartFacts::default()
        };
        let enoent = StartError::NotFound("No such file or directory (os error 2)".into());
        let says =
            |error: &StartError, facts: &StartFacts| start_failure(error, path, path, cwd, facts);

        // Deleted at the start and not there now, /bin/sh there: the hook file was missing.
        let deleted = says(
            &enoent,
            &StartFacts {
                hook_gone: true,
                ..direct(Some("/bin/sh"), Some(true))
            },
        );
        assert!(deleted.contains("no longer exists"), "{deleted}");
        assert!(!deleted.contains("which does not exist"), "{deleted}");
        // Both there now: the "not found" may be about the #! program's own #! program
        // (a script as interpreter) as well as a swap; nothing claims a deletion.
        let nested = says(&enoent, &direct(Some("/opt/interp"), Some(true)));
        assert_eq!(
            nested,
            "could not start: the system reported 'not found' for /w/.clinerules/hooks/TaskStart or for a program it names (its #! program /opt/interp exists; if /opt/interp is itself a script, check its own #! line)"
        );
        // Issue 18 (B1): the kernel looked for '/bin/sh\r' (Windows line endings).
        let crlf = says(&enoent, &direct(Some("/bin/sh\r"), Some(false)));
        assert_eq!(
            crlf,
            "could not start: its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named '/bin/sh\\r'; convert the file to LF line endings (e.g. dos2unix)"
        );
        let nbsp = says(&enoent, &direct(Some("/bin/sh\u{a0}"), Some(false)));
        assert!(
            nbsp.contains("names the program '/bin/sh\\u00A0'"),
            "{nbsp}"
        );
        let relative = says(&enoent, &direct(Some("sh\u{2028}"), None));
        assert!(relative.contains("or 'sh\\u2028', which its"), "{relative}");
        let missing = says(&enoent, &direct(Some("/opt/nope/sh"), Some(false)));
        assert!(
            missing.contains("its #! line names /opt/nope/sh, which does not exist"),
            "{missing}"
        );
        // No #! line: a binary whose loader is missing is possible too; both are said.
        let binary = says(&enoent, &direct(None, None));
        if cfg!(unix) {
            assert!(
                binary.contains("either") && binary.contains("loader"),
                "{binary}"
            );
        }
        let relative = says(&enoent, &direct(Some("sh"), None));
        assert!(
            relative.contains("either") && relative.contains("sh, which its #! line names"),
            "{relative}"
        );

        let cwd_gone = says(
            &enoent,
            &StartFacts {
                cwd_missing: true,
                ..direct(Some("/bin/sh"), Some(true))
            },
        );
        assert!(
            cwd_gone.contains("working directory /w does not exist"),
            "{cwd_gone}"
        );

        // An interpreter in front of the hook (CLI profile, .cmd, .ps1) is what was missing.
        let bash = Path::new("/usr/bin/bash");
        let interpreted = start_failure(&enoent, path, bash, cwd, &StartFacts::default());
        assert!(
            interpreted.contains("/usr/bin/bash, which runs it, was not found"),
            "{interpreted}"
        );

        // Unix: text file busy; Windows: a sharing violation, which need not be a writer.
        let busy = says(&StartError::Busy, &direct(Some("/bin/sh"), Some(true)));
        let named = if cfg!(windows) {
            "sharing violation"
        } else {
            "open for writing"
        };
        assert!(
            busy.contains(named) && busy.contains("rename them into place"),
            "{busy}"
        );
    }

    /// Issue 18 (E): E2BIG names the environment and the fix, not "Argument list too long".
    #[cfg(unix)]
    #[test]
    fn a_start_over_the_size_limit_names_the_environment_and_the_fix() {
        let error = StartError::of(&io::Error::from_raw_os_error(libc::E2BIG));
        assert_eq!(error, StartError::TooBig);
        let path = Path::new("/w/.clinerules/hooks/TaskStart");
        let said = start_failure(&error, path, path, Path::new("/w"), &StartFacts::default());
        assert_eq!(said, "could not start: its arguments and environment are larger than the system allows (E2BIG); pass fewer or smaller `env` variables");
    }

    #[test]
    fn windows_start_errors_are_told_in_words_not_with_a_raw_placeholder() {
        let exe = Path::new(r"C:\hooks\PreToolUse.exe");
        let facts = StartFacts {
            started_directly: true,
            ..StartFacts::default()
        };
        let bad = start_failure(
            &StartError::NotAProgram { code: 193 },
            exe,
            exe,
            Path::new("C:\\"),
            &facts,
        );
        assert!(
            bad.contains(r"C:\hooks\PreToolUse.exe is not a valid Windows program"),
            "{bad}"
        );
        assert!(!bad.contains("%1"), "{bad}");
        let other = start_failure(
            &StartError::OtherMachine,
            exe,
            exe,
            Path::new("C:\\"),
            &facts,
        );
        assert!(other.contains("another processor type"), "{other}");
        // Any other system text that names its file `%1` gets the file's name.
        let text = StartError::Other("The image file %1 is valid, but is for a machine type other than the current machine. (os error 216)".into());
        let said = start_failure(&text, exe, exe, Path::new("C:\\"), &facts);
        assert!(
            said.contains(r"The image file C:\hooks\PreToolUse.exe is valid")
                && !said.contains("%1"),
            "{said}"
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_error_codes_with_a_placeholder_are_classified() {
        for code in [11, 129, 191, 193] {
            assert_eq!(
                StartError::of(&io::Error::from_raw_os_error(code)),
                StartError::NotAProgram { code }
            );
        }
        assert_eq!(
            StartError::of(&io::Error::from_raw_os_error(216)),
            StartError::OtherMachine
        );
    }

    /// A start refused at every try says so, that the hook is not at fault, and what to do.
    #[test]
    fn a_start_refused_at_every_try_says_the_system_is_short() {
        #[cfg(unix)]
        let code = libc::EAGAIN;
        #[cfg(windows)]
        let code = 1359;
        let error = StartError::of(&io::Error::from_raw_os_error(code));
        assert!(matches!(error, StartError::Refused(_)), "{error:?}");
        let path = Path::new("/w/.clinerules/hooks/TaskStart");
        let said = start_failure(&error, path, path, Path::new("/w"), &StartFacts::default());
        assert!(
            said.starts_with("could not start: the system refused to create its process (")
                && said.contains(&format!("at each of {START_ATTEMPTS} tries"))
                && said.contains("the hook is not at fault, try again"),
            "{said}"
        );
    }
}
