//! How an approved hook can start from the bytes that were checked (Linux), by who reads its
//! file: a program the kernel runs, or an interpreter known to read a script from any path
//! (a shell, Python, Ruby, Perl) starts from a sealed in-memory copy of those bytes; Node and
//! other interpreters that resolve the script's real path and read it again start from the
//! checked file's descriptor (which still defeats a rename or a replacement); PowerShell, which
//! wants a `.ps1` path, and `cmd.exe` start by path. Pure.

use std::ffi::OsStr;
use std::path::Path;

use super::{kernel_shebang, LaunchKind};

/// Where the process reads its program or script from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorStart {
    /// A sealed copy of the checked bytes (`/proc/self/fd/N` of a memfd).
    Copy,
    /// The checked file's own descriptor (`/proc/self/fd/N`).
    Original,
    /// The file's path, as discovery gave it.
    ByPath,
}

/// Interpreters that read the script named by their argument and never look for it again by
/// another name: given `/proc/self/fd/N`, they run exactly those bytes.
fn reads_any_path(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "ruby" | "perl"
    ) || name.starts_with("python")
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
    match kind {
        LaunchKind::Direct => match crate::discovery::parse_shebang(head) {
            // A binary, or a script without a #! line that /bin/sh runs.
            None => DescriptorStart::Copy,
            Some(line) if reads_any_path(shebang_interpreter(&line)) => DescriptorStart::Copy,
            Some(_) => DescriptorStart::Original,
        },
        LaunchKind::Interpreted => {
            let name = Path::new(program)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if reads_any_path(&name) {
                DescriptorStart::Copy
            } else if name == "pwsh" || name == "powershell" {
                DescriptorStart::ByPath
            } else {
                DescriptorStart::Original
            }
        }
        LaunchKind::PowerShell | LaunchKind::Cmd | LaunchKind::Unsupported => {
            DescriptorStart::ByPath
        }
    }
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
    fn shells_python_and_binaries_start_from_a_copy_node_from_the_file_powershell_by_path() {
        use DescriptorStart::*;
        let direct = |head: &[u8]| descriptor_start(LaunchKind::Direct, OsStr::new("/h/x"), head);
        assert_eq!(direct(b"#!/bin/sh\necho"), Copy);
        assert_eq!(direct(b"#!/usr/bin/env python3\n"), Copy);
        assert_eq!(direct(b"\x7fELF\x02\x01"), Copy);
        assert_eq!(direct(b"echo no shebang\n"), Copy);
        assert_eq!(direct(b"#!/usr/bin/env node\n"), Original);
        assert_eq!(direct(b"#!/usr/local/bin/deno run\n"), Original);
        let interpreted =
            |program: &str| descriptor_start(LaunchKind::Interpreted, OsStr::new(program), b"");
        assert_eq!(interpreted("/usr/bin/bash"), Copy);
        assert_eq!(interpreted("/root/.pyenv/shims/python3"), Copy);
        assert_eq!(interpreted("/usr/bin/node"), Original);
        assert_eq!(interpreted("/usr/bin/tsx"), Original);
        assert_eq!(interpreted("/usr/bin/pwsh"), ByPath);
        assert_eq!(
            descriptor_start(LaunchKind::PowerShell, OsStr::new("pwsh"), b""),
            ByPath
        );
    }
}
