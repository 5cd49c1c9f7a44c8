//! How an approved hook starts from the bytes that were checked (Linux): always from a sealed
//! in-memory copy of them (a memfd), never from its file. A program the kernel runs, or an
//! interpreter that reads its script from any path, is given the copy's `/proc/self/fd/N`;
//! Node and bun, which look their script up again by its real path (`/proc/self/fd/N` of a
//! replaced file reads `<path> (deleted)`, a name a repository can ship), are started with the
//! runtime's bootstrap (`-e`), which reads the copy and runs it under the hook's own path. An
//! interpreter without a bootstrap here (deno, tsx, ...) is given the copy's path too; one that
//! looks it up again (tsx) fails on the copy's name (`/memfd:cline-hook (deleted)`) rather
//! than run other bytes. PowerShell, which wants a `.ps1` path, and `cmd.exe` start by path.
//! Pure.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use super::{kernel_shebang, LaunchKind};

/// Where the process reads its program or script from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorStart {
    /// A sealed copy of the checked bytes (`/proc/self/fd/N` of a memfd) in place of the path.
    Copy,
    /// The sealed copy, read by the runtime's bootstrap for this interpreter (see
    /// [`bootstrap_argv`]); the hook keeps its own path.
    Bootstrap(Bootstrap),
    /// Not started: a bootstrap cannot hold this start (the sentence says why and what to do).
    Refused(&'static str),
    /// The file's path, as discovery gave it.
    ByPath,
}

/// The interpreters the runtime starts through a bootstrap of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bootstrap {
    /// `node`: the hook runs as the main module, CommonJS or ES module (node_bootstrap.js).
    Node,
    /// `bun`: a plugin gives bun the approved bytes for the hook's path (bun_bootstrap.js).
    Bun,
}

/// Why an approved bun hook whose interpreter arguments hold `run` is not started.
pub const BUN_RUN_REFUSED: &str = "its interpreter is started as `bun run`, which reads the hook's file again by its path, so the approved bytes could not be guaranteed and it was not started; start it with plain bun (#!/usr/bin/env bun)";

/// Arguments bun is always given by the runtime, right after its program: no `bunfig.toml`
/// (whose `preload` would run a repository's code in every run), no `.env` files from the
/// working directory, which is the workspace, and no `tsconfig.json`/`jsconfig.json` from
/// anywhere (their `paths` could map the bootstrap's import of the hook's own path, and so the
/// hook itself, to a repository's file before the bootstrap's plugin sees it). The CLI profile puts them right after the program
/// (a `#!` line's own `--config` follows, and wins); a `#!` line started as the kernel would
/// (the `cline` profile) gets them after its argument. Not on Windows, which has no `/dev/null`.
pub const BUN_GUARD: [&str; 3] = [
    "--config=/dev/null",
    "--no-env-file",
    "--tsconfig-override=/dev/null",
];

/// The bootstrap for an interpreter named `name`, if the runtime has one.
fn bootstrap_for(name: &str) -> Option<Bootstrap> {
    match name {
        "node" | "nodejs" => Some(Bootstrap::Node),
        "bun" => Some(Bootstrap::Bun),
        _ => None,
    }
}

/// The last component of a program path.
fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// The interpreter a `#!` line runs, by name: `bash` for `/bin/bash -e`, `node` for
/// `/usr/bin/env node` or `/usr/bin/env -S node --flag`.
pub fn shebang_interpreter(line: &str) -> &str {
    let (program, arg) = kernel_shebang(line);
    if base(program) != "env" {
        return base(program);
    }
    arg.unwrap_or_default()
        .split_whitespace()
        .find(|word| !word.starts_with('-') && !word.contains('='))
        .map_or("env", base)
}

/// How a hook of `kind` whose argv starts with `program` and whose file begins with `head`
/// starts from its checked bytes.
pub fn descriptor_start(kind: LaunchKind, program: &OsStr, head: &[u8]) -> DescriptorStart {
    let (name, args) = match kind {
        LaunchKind::Direct => match crate::discovery::parse_shebang(head) {
            // A binary, or a script without a #! line that /bin/sh runs.
            None => return DescriptorStart::Copy,
            Some(line) => {
                let name = shebang_interpreter(&line).to_owned();
                (name, line)
            }
        },
        LaunchKind::Interpreted => {
            let name = Path::new(program)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name == "pwsh" || name == "powershell" {
                return DescriptorStart::ByPath;
            }
            // The `#!` line's words, which the CLI profile passes on as arguments.
            let line = crate::discovery::parse_shebang(head).unwrap_or_default();
            (name, line)
        }
        LaunchKind::PowerShell | LaunchKind::Cmd | LaunchKind::Unsupported | LaunchKind::Shell => {
            return DescriptorStart::ByPath
        }
    };
    match bootstrap_for(&name) {
        // `bun run -e code -- file` runs the file by path and never the code.
        Some(Bootstrap::Bun) if args.split_whitespace().any(|word| word == "run") => {
            DescriptorStart::Refused(BUN_RUN_REFUSED)
        }
        Some(bootstrap) => DescriptorStart::Bootstrap(bootstrap),
        None => DescriptorStart::Copy,
    }
}

/// The argv that starts `bootstrap` for the hook at `path` (whose argv is `command` and whose
/// file begins with `head`) from the sealed copy open as descriptor `fd`: the interpreter and
/// its own arguments (the CLI profile's argv, or what the kernel makes of the `#!` line),
/// then `-e` with the bootstrap's code, `--`, and the hook's path, which the bootstrap runs
/// under (its `process.argv[1]`, `__filename`, `import.meta.url`).
pub fn bootstrap_argv(
    bootstrap: Bootstrap,
    kind: LaunchKind,
    command: &[OsString],
    head: &[u8],
    path: &Path,
    fd: i32,
) -> Vec<OsString> {
    let at = command.iter().position(|arg| Path::new(arg) == path);
    let mut argv: Vec<OsString> = match (kind, crate::discovery::parse_shebang(head)) {
        // The kernel's start of a `#!` line: its program, then its one argument.
        (LaunchKind::Direct, Some(line)) => {
            let (program, arg) = kernel_shebang(&line);
            // The kernel finds a program without a slash in the working directory, not PATH.
            let program = if program.contains('/') {
                program.to_owned()
            } else {
                format!("./{program}")
            };
            let mut argv = vec![OsString::from(program)];
            argv.extend(arg.map(OsString::from));
            if bootstrap == Bootstrap::Bun {
                argv.extend(BUN_GUARD.iter().map(OsString::from));
            }
            argv
        }
        _ => command[..at.unwrap_or(command.len())].to_vec(),
    };
    let code = match bootstrap {
        Bootstrap::Node => include_str!("node_bootstrap.js"),
        Bootstrap::Bun => include_str!("bun_bootstrap.js"),
    };
    argv.push(OsString::from("-e"));
    argv.push(OsString::from(format!("{}({fd})", code.trim_end())));
    argv.push(OsString::from("--"));
    argv.push(path.as_os_str().to_owned());
    if let Some(at) = at {
        argv.extend(command[at + 1..].iter().cloned());
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interpreter_of_a_shebang_line_is_named_through_env() {
        assert_eq!(shebang_interpreter("/bin/bash -e"), "bash");
        assert_eq!(shebang_interpreter("/usr/bin/env node"), "node");
        assert_eq!(shebang_interpreter("/usr/bin/env -S python3 -u"), "python3");
        assert_eq!(shebang_interpreter("/usr/bin/env A=1 ruby"), "ruby");
        assert_eq!(shebang_interpreter("/usr/bin/env"), "env");
    }

    #[test]
    fn every_descriptor_start_is_the_sealed_copy_node_and_bun_through_their_bootstrap() {
        use DescriptorStart::{Bootstrap as Boot, ByPath, Copy, Refused};
        let direct = |head: &[u8]| descriptor_start(LaunchKind::Direct, OsStr::new("/h/x"), head);
        assert_eq!(direct(b"#!/bin/sh\necho"), Copy);
        assert_eq!(direct(b"#!/usr/bin/env python3\n"), Copy);
        assert_eq!(direct(b"\x7fELF\x02\x01"), Copy);
        assert_eq!(direct(b"echo no shebang\n"), Copy);
        assert_eq!(
            direct(b"#!/usr/bin/env node\n"),
            Boot(super::Bootstrap::Node)
        );
        assert_eq!(
            direct(b"#!/usr/bin/env -S node --no-warnings\n"),
            Boot(super::Bootstrap::Node)
        );
        assert_eq!(direct(b"#!/usr/bin/env bun\n"), Boot(super::Bootstrap::Bun));
        assert_eq!(
            direct(b"#!/usr/bin/env -S bun run\n"),
            Refused(BUN_RUN_REFUSED)
        );
        // No bootstrap: the copy, which an interpreter that looks its script up again by its
        // real path cannot find (it fails; it never reads another file).
        assert_eq!(direct(b"#!/usr/local/bin/deno run\n"), Copy);
        assert_eq!(direct(b"#!/usr/bin/env tsx\n"), Copy);
        let interpreted = |program: &str, head: &[u8]| {
            descriptor_start(LaunchKind::Interpreted, OsStr::new(program), head)
        };
        assert_eq!(interpreted("/usr/bin/bash", b""), Copy);
        assert_eq!(interpreted("/root/.pyenv/shims/python3", b""), Copy);
        assert_eq!(
            interpreted("/usr/bin/node", b""),
            Boot(super::Bootstrap::Node)
        );
        assert_eq!(
            interpreted("/usr/bin/bun", b"// x"),
            Boot(super::Bootstrap::Bun)
        );
        assert_eq!(
            interpreted("/usr/bin/bun", b"#!/usr/bin/env -S bun run\n"),
            Refused(BUN_RUN_REFUSED)
        );
        assert_eq!(interpreted("/usr/bin/tsx", b""), Copy);
        assert_eq!(interpreted("/usr/bin/pwsh", b""), ByPath);
        assert_eq!(
            descriptor_start(LaunchKind::PowerShell, OsStr::new("pwsh"), b""),
            ByPath
        );
    }

    fn strings(argv: Vec<OsString>) -> Vec<String> {
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_bootstrap_follows_the_interpreter_and_its_arguments_and_precedes_the_hooks_path() {
        let path = Path::new("/w/.clinerules/hooks/PreToolUse");
        // CLI profile: its argv, the path replaced by -e code -- path.
        let command: Vec<OsString> = ["/usr/bin/node", "--no-warnings", path.to_str().unwrap()]
            .iter()
            .map(OsString::from)
            .collect();
        let argv = strings(bootstrap_argv(
            Bootstrap::Node,
            LaunchKind::Interpreted,
            &command,
            b"",
            path,
            7,
        ));
        assert_eq!(argv[..3], ["/usr/bin/node", "--no-warnings", "-e"]);
        assert!(argv[3].starts_with("// The runtime's start of an approved Node hook"));
        assert!(
            argv[3].ends_with("})(7)"),
            "{}",
            &argv[3][argv[3].len() - 20..]
        );
        assert_eq!(argv[4..], ["--", path.to_str().unwrap()]);
        // cline profile: the #! line as the kernel splits it (one argument).
        let direct = |head: &[u8], bootstrap| {
            let argv = strings(bootstrap_argv(
                bootstrap,
                LaunchKind::Direct,
                &[path.as_os_str().to_owned()],
                head,
                path,
                3,
            ));
            let e = argv.iter().position(|a| a == "-e").unwrap_or(argv.len());
            (argv[..e].to_vec(), argv[e + 2..].to_vec())
        };
        let tail = vec!["--".to_owned(), path.to_str().unwrap().to_owned()];
        assert_eq!(
            direct(b"#!/usr/bin/env -S node --a --b\n", Bootstrap::Node),
            (
                vec!["/usr/bin/env".into(), "-S node --a --b".into()],
                tail.clone()
            )
        );
        assert_eq!(
            direct(b"#!node\n", Bootstrap::Node),
            (vec!["./node".into()], tail.clone())
        );
        assert_eq!(
            direct(b"#!/usr/bin/env bun\n", Bootstrap::Bun),
            (
                vec![
                    "/usr/bin/env".into(),
                    "bun".into(),
                    "--config=/dev/null".into(),
                    "--no-env-file".into(),
                    "--tsconfig-override=/dev/null".into()
                ],
                tail
            )
        );
    }
}
