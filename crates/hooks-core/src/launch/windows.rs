//! Windows' own rules: where a program is found on PATH (the four kinds Windows starts, not
//! all of PATHEXT), and the command line that hands a `.bat`/`.cmd` file to `cmd.exe` with
//! nothing in its path expanded.

use std::path::PathBuf;

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

/// The path Windows gives for an open file (`GetFinalPathNameByHandle`: `\\?\C:\dir\H.cmd`,
/// `\\?\UNC\server\share\H.cmd`) as `cmd.exe` runs it (`C:\dir\H.cmd`,
/// `\\server\share\H.cmd`), the form a batch file's `%~dp0` and cmd.exe's own rules expect. Pure.
pub fn batch_path_of_final(path: &str) -> String {
    if let Some(share) = path.strip_prefix(r"\\?\UNC\") {
        format!(r"\\{share}")
    } else if let Some(drive) = path.strip_prefix(r"\\?\") {
        drive.to_owned()
    } else {
        path.to_owned()
    }
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
    fn a_final_path_loses_its_long_path_prefix_for_cmd() {
        assert_eq!(batch_path_of_final(r"\\?\C:\w\H.cmd"), r"C:\w\H.cmd");
        assert_eq!(
            batch_path_of_final(r"\\?\UNC\srv\share\H.cmd"),
            r"\\srv\share\H.cmd"
        );
        assert_eq!(batch_path_of_final(r"Z:\w\H.cmd"), r"Z:\w\H.cmd");
    }

    #[test]
    fn paths_cmd_cannot_hold_are_refused() {
        assert!(cmd_unsafe_path("C:\\a\"b\\H.bat").is_some());
        assert!(cmd_unsafe_path("C:\\a\nb\\H.bat").is_some());
        assert!(cmd_unsafe_path("C:\\a & b\\H.bat").is_none());
    }
}
