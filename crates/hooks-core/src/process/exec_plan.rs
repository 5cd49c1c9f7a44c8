//! What a confined hook's own spawn (own_spawn.rs) hands to `execve`, read back from the
//! `Command` that spawn.rs built for it, so that one place decides a hook's program, argv,
//! environment and working directory whichever way it starts: the program's path (a bare name
//! looked up in PATH as `Command` looks it up), argv, the environment as `Command` would pass
//! it, and the working directory, all as C strings made before the clone, whose child may not
//! allocate.

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The search path of glibc's `execvp` (and so of `Command`) when the child has no PATH.
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Everything `execve` and the steps before it are given, owned; the pointer arrays point into
/// the strings, which live as long as the plan.
pub(super) struct ExecPlan {
    program: CString,
    _argv: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    _envp: Vec<CString>,
    envp_ptrs: Vec<*const libc::c_char>,
    cwd: Option<CString>,
}

impl ExecPlan {
    /// The plan of `command`: its program (resolved as below), its argv (the program as given,
    /// then its arguments, as `Command` passes them), the host's environment with the
    /// command's changes applied (as `Command` builds it, in its order: sorted by name), and
    /// its working directory. The command must not have cleared its environment (no hook
    /// start does; `Command` does not say whether it was).
    pub fn of(command: &Command) -> io::Result<ExecPlan> {
        let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        for (name, value) in command.get_envs() {
            match value {
                Some(value) => env.insert(name.to_owned(), value.to_owned()),
                None => env.remove(name),
            };
        }
        let given = command.get_program();
        let argv = std::iter::once(given)
            .chain(command.get_args())
            .map(|arg| c_string(arg.as_bytes().to_vec()))
            .collect::<io::Result<Vec<_>>>()?;
        let envp = env
            .into_iter()
            .map(|(name, value)| {
                let mut pair = name.into_vec();
                pair.push(b'=');
                pair.extend_from_slice(value.as_bytes());
                c_string(pair)
            })
            .collect::<io::Result<Vec<_>>>()?;
        let cwd = command.get_current_dir();
        let c_cwd = cwd
            .map(|cwd| c_string(cwd.as_os_str().as_bytes().to_vec()))
            .transpose()?;
        let program = resolve(given, env_path(&envp), cwd)?;
        Ok(ExecPlan {
            program: c_string(program.into_os_string().into_vec())?,
            argv_ptrs: pointers(&argv),
            _argv: argv,
            envp_ptrs: pointers(&envp),
            _envp: envp,
            cwd: c_cwd,
        })
    }

    /// The path given to `execve`.
    pub fn program(&self) -> *const libc::c_char {
        self.program.as_ptr()
    }

    /// argv, NULL-terminated.
    pub fn argv(&self) -> *const *const libc::c_char {
        self.argv_ptrs.as_ptr()
    }

    /// The environment, NULL-terminated.
    pub fn envp(&self) -> *const *const libc::c_char {
        self.envp_ptrs.as_ptr()
    }

    /// The working directory to change to, or null (the host's).
    pub fn cwd(&self) -> *const libc::c_char {
        self.cwd
            .as_ref()
            .map_or(std::ptr::null(), |cwd| cwd.as_ptr())
    }
}

/// What `Command` keeps, and gives back, in place of a program, argument or directory that
/// held a NUL byte (it then refuses to spawn, which it does not say through a getter).
const NUL_MARK: &[u8] = b"<string-with-nul>";

/// `bytes` as a C string; a NUL inside (or `Command`'s mark of one) is refused as `Command`
/// refuses it.
fn c_string(bytes: Vec<u8>) -> io::Result<CString> {
    let refused = || {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in provided data",
        )
    };
    if bytes == NUL_MARK {
        return Err(refused());
    }
    CString::new(bytes).map_err(|_| refused())
}

/// The child's PATH, from its environment's `NAME=value` strings.
fn env_path(envp: &[CString]) -> Option<&OsStr> {
    envp.iter()
        .find_map(|pair| pair.to_bytes().strip_prefix(b"PATH="))
        .map(OsStr::from_bytes)
}

/// Pointers to `strings`, then NULL.
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

/// The file `execve` is to run for `program`, as `Command` finds it: a name with a slash is
/// used as it is (relative to the child's working directory); a bare name is looked up in
/// `path`, the child's PATH (the host's, unless the command changed it), or glibc's default
/// when the child has none, each relative entry (an empty one is `.`) taken from the child's
/// working directory. The first regular, executable file wins; none found is ENOENT, or EACCES
/// when a file of that name was there but could not be run (as `execvp` says it).
fn resolve(program: &OsStr, path: Option<&OsStr>, cwd: Option<&Path>) -> io::Result<PathBuf> {
    let bytes = program.as_bytes();
    if bytes.contains(&b'/') {
        return Ok(PathBuf::from(program));
    }
    if bytes.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    let path = path.unwrap_or(OsStr::new(DEFAULT_PATH));
    let mut refused = false;
    for dir in path.as_bytes().split(|b| *b == b':') {
        let dir = match dir {
            [] => Path::new("."),
            dir => Path::new(OsStr::from_bytes(dir)),
        };
        let mut candidate = dir.join(program);
        if candidate.is_relative() {
            if let Some(cwd) = cwd {
                candidate = cwd.join(candidate);
            }
        }
        match std::fs::metadata(&candidate) {
            Ok(meta) if meta.is_file() && executable(&candidate, meta.permissions().mode()) => {
                return Ok(candidate);
            }
            Ok(_) => refused = true,
            Err(_) => {}
        }
    }
    Err(io::Error::from_raw_os_error(if refused {
        libc::EACCES
    } else {
        libc::ENOENT
    }))
}

/// Whether this process may execute the file at `path` (of permission bits `mode`): not
/// without an execute bit (root could `access` it all the same), else as the kernel says.
fn executable(path: &Path, mode: u32) -> bool {
    if mode & 0o111 == 0 {
        return false;
    }
    let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path, valid for the call.
    unsafe { libc::access(path.as_ptr(), libc::X_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn strings(ptrs: *const *const libc::c_char) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = ptrs;
        // SAFETY: a NULL-terminated array of C strings owned by the plan under test.
        unsafe {
            while !(*at).is_null() {
                out.push(CStr::from_ptr(*at).to_string_lossy().into_owned());
                at = at.add(1);
            }
        }
        out
    }

    #[test]
    fn argv_env_and_cwd_are_what_the_command_says() {
        let dir = std::env::temp_dir();
        let mut command = Command::new("/bin/sh");
        command
            .args(["-c", "exit 0"])
            .env("CLINE_PLAN_SET", "yes")
            .env_remove("HOME")
            .current_dir(&dir);
        let plan = ExecPlan::of(&command).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(strings(plan.argv()), ["/bin/sh", "-c", "exit 0"]);
        let env = strings(plan.envp());
        assert!(env.contains(&"CLINE_PLAN_SET=yes".to_owned()), "{env:?}");
        assert!(!env.iter().any(|v| v.starts_with("HOME=")), "{env:?}");
        let mut sorted = env.clone();
        sorted.sort();
        assert_eq!(env, sorted, "in Command's order");
        // SAFETY: the plan's own C strings.
        let cwd = unsafe { CStr::from_ptr(plan.cwd()) };
        assert_eq!(cwd.to_bytes(), dir.as_os_str().as_bytes());
        // SAFETY: as above.
        let program = unsafe { CStr::from_ptr(plan.program()) };
        assert_eq!(program.to_bytes(), b"/bin/sh");
    }

    #[test]
    fn a_bare_name_is_found_in_the_childs_path_first() {
        let found = resolve(OsStr::new("sh"), Some(OsStr::new("/nowhere:/bin")), None);
        assert_eq!(found.ok(), Some(PathBuf::from("/bin/sh")));
        // No PATH at all: glibc's default, as Command does.
        let found = resolve(OsStr::new("sh"), None, None);
        assert_eq!(found.ok(), Some(PathBuf::from("/bin/sh")));
        let missing = resolve(
            OsStr::new("cline-no-such-program"),
            Some(OsStr::new("/bin")),
            None,
        );
        assert_eq!(
            missing.map_err(|e| e.kind()).err(),
            Some(io::ErrorKind::NotFound)
        );
        // A slash: used as it is, found or not.
        let relative = resolve(OsStr::new("./x"), Some(OsStr::new("/bin")), None);
        assert_eq!(relative.ok(), Some(PathBuf::from("./x")));
    }

    #[test]
    fn a_file_that_cannot_be_run_is_eacces_and_relative_entries_follow_the_cwd() {
        let dir = std::env::temp_dir().join(format!("cline-plan-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("bin"));
        let plain = dir.join("bin").join("plain");
        let runnable = dir.join("bin").join("runnable");
        let _ = std::fs::write(&plain, "x");
        let _ = std::fs::write(&runnable, "#!/bin/sh\n");
        let _ = std::fs::set_permissions(&runnable, std::fs::Permissions::from_mode(0o755));
        let refused = resolve(OsStr::new("plain"), Some(OsStr::new("bin")), Some(&dir));
        assert_eq!(
            refused.err().and_then(|e| e.raw_os_error()),
            Some(libc::EACCES)
        );
        let found = resolve(OsStr::new("runnable"), Some(OsStr::new(":bin")), Some(&dir));
        assert_eq!(found.ok(), Some(dir.join("bin").join("runnable")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// In an argument, the program, the directory or a variable, as `Command` refuses it.
    #[test]
    fn a_nul_byte_is_refused_as_command_refuses_it() {
        let mut commands = vec![Command::new("/bin/sh"), Command::new("/bin/\0sh")];
        commands[0].arg("a\0b");
        let mut in_dir = Command::new("/bin/sh");
        in_dir.current_dir("/t\0mp");
        let mut in_env = Command::new("/bin/sh");
        in_env.env("CLINE_PLAN_NUL", "a\0b");
        commands.extend([in_dir, in_env]);
        for command in &mut commands {
            let err = ExecPlan::of(command).err().map(|e| e.kind());
            assert_eq!(err, Some(io::ErrorKind::InvalidInput), "{command:?}");
            assert_eq!(
                command.output().err().map(|e| e.kind()),
                err,
                "as Command says"
            );
        }
    }
}
