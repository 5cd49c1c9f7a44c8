//! Where a tool's path points: a path made absolute against the project folder as Cline's
//! Node makes it on the system Cline runs on (`path.posix.resolve` or `path.win32.resolve`),
//! so that a hook sees the file Cline will touch; and a hook's new path written back as
//! Cline's (relative when Cline's was and the new one is inside the project). Pure: the file
//! system is never asked.

use serde_json::Value;

/// The project folder a tool's relative path is resolved against, and whose path rules
/// apply: Windows' (drive letters, `\` and `/` both separators, UNC and `\\?\` roots) or
/// POSIX's (only `/`, every other character, `\`, `:` and `~` included, part of a name).
#[derive(Clone, Copy)]
pub(super) struct Folder<'a> {
    dir: &'a str,
    windows: bool,
}

impl<'a> Folder<'a> {
    pub(super) fn of(dir: &'a str, windows: bool) -> Self {
        Folder { dir, windows }
    }

    fn is_separator(self, c: char) -> bool {
        c == '/' || (self.windows && c == '\\')
    }

    /// The separator results are written with: `/` on POSIX; on Windows `\`, as Node writes
    /// it, unless the project folder is written with `/` alone, so that a hook comparing a
    /// path with its `cwd` compares like with like.
    fn separator(self) -> char {
        if self.windows && (self.dir.contains('\\') || !self.dir.contains('/')) {
            '\\'
        } else {
            '/'
        }
    }
}

/// A resolved path: its root and its parts, none of them `.` or `..` (but the leading `..`
/// of a relative result).
struct Resolved {
    /// Windows' device: `C:`, or `\\server\share` (`\\?\C:` too), written with `\`; "" on
    /// POSIX and for a Windows path rooted at `\` with no drive.
    device: String,
    /// Whether it starts at a root (only a relative project folder gives a relative path).
    absolute: bool,
    parts: Vec<String>,
}

/// `path` made absolute against the project folder `base` and tidied, as Cline makes it:
/// Node's `path.resolve(cwd, path)` on the system Cline runs on. So a hook testing "inside
/// the project" sees the file Cline will write: `src/../../etc` is outside, `~/../x` is
/// `<project>/x` (Node expands no `~`), and on POSIX `C:/../x` is `<project>/x` too (a drive
/// letter is a name there). See `resolve`.
pub(super) fn absolutize(path: &str, base: Folder<'_>) -> String {
    render(&resolve(path, base), base.separator())
}

/// `path` resolved against `base`: Node's `path.posix.resolve` or `path.win32.resolve`
/// (`base.windows`). Where Node would read the process's own working folder, which a pure
/// function cannot know, the answer is the one that never shows a path inside the project
/// that Node puts elsewhere: a drive-relative `D:x` on a drive other than the project's is
/// taken from that drive's root (Node's answer when Windows keeps no working folder for
/// the drive; any other is on that drive too, so outside the project either way), and a
/// relative project folder gives a relative result. On Windows, the drive letter and the
/// leading names that equal the project folder's but for case are written as the project
/// folder writes them (Windows compares names without regard to case, so this is the same
/// file, and a hook's prefix test sees it inside). A `\\?\C:\...` path keeps its prefix, as
/// in Node: it is not the project folder's spelling, and is shown as outside it.
fn resolve(path: &str, base: Folder<'_>) -> Resolved {
    let resolved = if base.windows {
        resolve_win32(path, base)
    } else {
        resolve_posix(path, base)
    };
    if !base.windows || !resolved.absolute {
        return resolved;
    }
    let home = resolve_win32("", base);
    if !home.absolute || !same_name(&resolved.device, &home.device) {
        return resolved;
    }
    let mut parts = resolved.parts;
    for (part, own) in parts.iter_mut().zip(&home.parts) {
        if !same_name(part, own) {
            break;
        }
        own.clone_into(part);
    }
    Resolved {
        device: home.device,
        absolute: true,
        parts,
    }
}

/// Node's `path.posix.resolve(base, path)`.
fn resolve_posix(path: &str, base: Folder<'_>) -> Resolved {
    let mut pieces = Vec::new();
    let mut absolute = false;
    for piece in [path, base.dir] {
        if piece.is_empty() {
            continue;
        }
        pieces.insert(0, piece);
        if piece.starts_with('/') {
            absolute = true;
            break;
        }
    }
    Resolved {
        device: String::new(),
        absolute,
        parts: normalize(&pieces, base, absolute),
    }
}

/// Node's `path.win32.resolve(base, path)`: the device of the last path that has one, the
/// parts from the last absolute one (a path rooted at `\` takes the project folder's device;
/// a project folder on another device is not used).
fn resolve_win32(path: &str, base: Folder<'_>) -> Resolved {
    let mut device = String::new();
    let mut pieces = Vec::new();
    let mut absolute = false;
    for piece in [path, base.dir] {
        if piece.is_empty() {
            continue;
        }
        let (own, start, rooted) = win32_root(piece);
        if !own.is_empty() {
            if device.is_empty() {
                device = own;
            } else if !same_name(&own, &device) {
                continue;
            }
        }
        if absolute {
            if !device.is_empty() {
                break;
            }
        } else {
            pieces.insert(0, piece.get(start..).unwrap_or_default());
            absolute = rooted;
            if absolute && !device.is_empty() {
                break;
            }
        }
    }
    // A drive-relative path on a drive the project folder is not on: that drive's root.
    if !device.is_empty() {
        absolute = true;
    }
    Resolved {
        parts: normalize(&pieces, base, absolute),
        device,
        absolute,
    }
}

/// Node's `path.win32` root of `path`: its device (`C:`, or `\\server\share` written with
/// `\`), the byte where the rest starts, and whether it is absolute (`C:\x`, `\x`,
/// `\\server\share\x`; not the drive-relative `C:x`).
fn win32_root(path: &str) -> (String, usize, bool) {
    let sep = |b: u8| b == b'/' || b == b'\\';
    let bytes = path.as_bytes();
    let len = bytes.len();
    match bytes {
        [a, b, ..] if sep(*a) && sep(*b) => {
            // `\\server\share`: both names needed, else it is a path rooted at `\`.
            let mut j = 2;
            while j < len && !sep(bytes[j]) {
                j += 1;
            }
            if j < len && j != 2 {
                let server = path.get(2..j).unwrap_or_default();
                while j < len && sep(bytes[j]) {
                    j += 1;
                }
                let share_start = j;
                while j < len && !sep(bytes[j]) {
                    j += 1;
                }
                if j != share_start {
                    let share = path.get(share_start..j).unwrap_or_default();
                    return (format!("\\\\{server}\\{share}"), j, true);
                }
            }
            (String::new(), 0, true)
        }
        [a, ..] if sep(*a) => (String::new(), 1, true),
        [drive, b':', rest @ ..] if drive.is_ascii_alphabetic() => {
            let device = path.get(..2).unwrap_or_default().to_owned();
            match rest.first() {
                Some(b) if sep(*b) => (device, 3, true),
                _ => (device, 2, false),
            }
        }
        _ => (String::new(), 0, false),
    }
}

/// The parts of `pieces` (joined by a separator) without `.`, `..` or empty parts: Node's
/// `normalizeString`. A `..` at the root stays there; a relative path keeps its leading `..`.
fn normalize(pieces: &[&str], base: Folder<'_>, absolute: bool) -> Vec<String> {
    let mut parts: Vec<&str> = Vec::new();
    for piece in pieces {
        for part in piece.split(|c| base.is_separator(c)) {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.last().is_some_and(|last| *last != "..") {
                        parts.pop();
                    } else if !absolute {
                        parts.push("..");
                    }
                }
                part => parts.push(part),
            }
        }
    }
    parts.into_iter().map(str::to_owned).collect()
}

/// `resolved` as text, its parts joined by `separator` (a UNC device written with it too).
fn render(resolved: &Resolved, separator: char) -> String {
    let device = if separator == '/' {
        resolved.device.replace('\\', "/")
    } else {
        resolved.device.clone()
    };
    let body = resolved.parts.join(separator.encode_utf8(&mut [0; 4]));
    if resolved.absolute {
        format!("{device}{separator}{body}")
    } else if device.is_empty() && body.is_empty() {
        ".".to_owned()
    } else {
        format!("{device}{body}")
    }
}

/// Whether two Windows names are the same name: equal but for case, each character
/// compared by its one-character uppercase (no `ß` = `SS`, which Windows does not say).
fn same_name(a: &str, b: &str) -> bool {
    let upper = |c: char| {
        let mut up = c.to_uppercase();
        match (up.next(), up.next()) {
            (Some(u), None) => u,
            _ => c,
        }
    };
    a.chars().map(upper).eq(b.chars().map(upper))
}

/// Whether `path` is relative under `base`'s rules: Cline resolves it against the project
/// folder (`~` is a name like any other; on Windows `C:x` and `\x` are not relative).
fn is_relative(path: &str, base: Folder<'_>) -> bool {
    if base.windows {
        win32_root(path) == (String::new(), 0, false)
    } else {
        !path.starts_with('/')
    }
}

/// A Claude path (`file_path`, or the `path` of LS, Glob and Grep) as Cline's `path`: relative
/// to the project folder when Cline's `original` was relative and the new path is inside the
/// folder, absolute (tidied) otherwise. A path that is no string is passed on as it is.
pub(super) fn path_back(value: &Value, original: Option<&Value>, base: Folder<'_>) -> Value {
    let Some(path) = value.as_str() else {
        return value.clone();
    };
    let resolved = resolve(path, base);
    let relative_original = original
        .and_then(Value::as_str)
        .filter(|p| is_relative(p, base));
    if let Some(original) = relative_original {
        if let Some(relative) = relative_inside(&resolved, base, original) {
            return relative.into();
        }
    }
    render(&resolved, base.separator()).into()
}

/// `path` (resolved against `base`) relative to the project folder, written with the
/// separator of `style` (Cline's original relative path), or `None` when it is not inside
/// the folder. Windows names compare without regard to case, as Windows does.
fn relative_inside(path: &Resolved, base: Folder<'_>, style: &str) -> Option<String> {
    let home = resolve("", base);
    let same = |a: &str, b: &str| {
        if base.windows {
            same_name(a, b)
        } else {
            a == b
        }
    };
    if path.absolute != home.absolute
        || !same(&path.device, &home.device)
        || path.parts.len() < home.parts.len()
        || !home.parts.iter().zip(&path.parts).all(|(h, p)| same(h, p))
    {
        return None;
    }
    let rest = &path.parts[home.parts.len()..];
    if rest.is_empty() {
        return Some(".".to_owned());
    }
    let separator = if !base.windows || style.contains('/') {
        '/'
    } else if style.contains('\\') {
        '\\'
    } else {
        base.separator()
    };
    Some(rest.join(separator.encode_utf8(&mut [0; 4])))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::fixtures::{posix, win, ATTACK, PROJECT, WIN};
    use super::*;
    use crate::claude::events::claude_input_in;
    use crate::claude::tools::tool_input_in;
    use crate::discovery::Profile;

    #[test]
    fn the_attack_paths_resolve_as_node_does_on_each_system() {
        for (path, want_posix, want_win) in ATTACK {
            assert_eq!(posix(path, PROJECT), want_posix, "posix {path:?}");
            assert_eq!(win(path, WIN), want_win, "win32 {path:?}");
            // What a hook is shown: the Write tool's `file_path` is where Node writes.
            let params = json!({"path": path, "content": "x"});
            for (base, want) in [
                (Folder::of(PROJECT, false), want_posix),
                (Folder::of(WIN, true), want_win),
            ] {
                let input = json!({"tool_call": {"name": "write_to_file", "input": params}});
                let call = claude_input_in(
                    "tool_call",
                    &input,
                    Profile::Cli,
                    Path::new(base.dir),
                    base.windows,
                );
                assert_eq!(call.input["tool_input"]["file_path"], want, "{path:?}");
                assert_eq!(call.input["cwd"], base.dir);
            }
        }
    }

    #[test]
    fn a_hook_testing_inside_the_project_sees_what_node_writes() {
        // The attack's check: inside the project (by text) exactly when Node's path is.
        let inside = |path: &str, root: &str, sep: char| {
            path == root || path.starts_with(&format!("{root}{sep}"))
        };
        for (path, want_posix, want_win) in ATTACK {
            let shown = posix(path, PROJECT);
            assert_eq!(
                inside(&shown, PROJECT, '/'),
                inside(want_posix, PROJECT, '/'),
                "{path:?}"
            );
            let shown = win(path, WIN);
            assert_eq!(
                inside(&shown, WIN, '\\'),
                inside(want_win, WIN, '\\'),
                "{path:?}"
            );
        }
        // The protected folder is found whatever the way there.
        for path in [
            "C:/../.claude/settings.json",
            "~/../.claude/settings.json",
            ".claude/../.claude/settings.json",
            "x/../../proj/.claude/settings.json",
        ] {
            assert_eq!(
                posix(path, PROJECT),
                "/home/dev/proj/.claude/settings.json",
                "{path:?}"
            );
        }
        for path in [
            "~/../.claude/settings.json",
            r"~\..\.claude\settings.json",
            r"C:.claude\settings.json",
            r"c:\USERS\dev\Proj\.claude\settings.json",
            r"\Users\dev\proj\.claude\settings.json",
            "/Users/dev/proj/.claude/./settings.json",
        ] {
            assert_eq!(
                win(path, WIN),
                r"C:\Users\dev\proj\.claude\settings.json",
                "{path:?}"
            );
        }
    }

    #[test]
    fn posix_paths_are_made_absolute_and_tidy() {
        let cases = [
            ("a.ts", "/home/dev/proj/a.ts"),
            ("./src//b.ts", "/home/dev/proj/src/b.ts"),
            ("src/../c.ts", "/home/dev/proj/c.ts"),
            ("../../../../../etc/passwd", "/etc/passwd"),
            ("/etc/hosts", "/etc/hosts"),
            ("/a/./b/../c/", "/a/c"),
            ("//double", "/double"),
            ("/", "/"),
            ("/..", "/"),
            ("", "/home/dev/proj"),
            (".", "/home/dev/proj"),
            // No `~` expansion in Node: a folder named `~` in the project.
            ("~/notes.md", "/home/dev/proj/~/notes.md"),
            ("~user/x", "/home/dev/proj/~user/x"),
            ("dir\\name.txt", "/home/dev/proj/dir\\name.txt"),
            ("C:/x", "/home/dev/proj/C:/x"),
            ("ünï/cødé 🦀.rs", "/home/dev/proj/ünï/cødé 🦀.rs"),
        ];
        for (path, want) in cases {
            assert_eq!(posix(path, PROJECT), want, "{path:?}");
        }
        // A project folder with a trailing `/` or `..` in it.
        assert_eq!(posix("a", "/home/dev/proj/"), "/home/dev/proj/a");
        assert_eq!(posix("a", "/home/dev/x/../proj"), "/home/dev/proj/a");
    }

    #[test]
    fn windows_paths_are_made_absolute_and_tidy() {
        let cases = [
            ("src/a.ts", r"C:\Users\dev\proj\src\a.ts"),
            (r"src\b.ts", r"C:\Users\dev\proj\src\b.ts"),
            (r"..\other\c.ts", r"C:\Users\dev\other\c.ts"),
            (r"..\..\..\..\..\x", r"C:\x"),
            (r"D:\data\f.txt", r"D:\data\f.txt"),
            ("d:/data/./f.txt", r"d:\data\f.txt"),
            (r"D:x\y", r"D:\x\y"),
            (r"\\server\share\dir\..\f", r"\\server\share\f"),
            ("//server/share/f", r"\\server\share\f"),
            (r"\\server\share", r"\\server\share\"),
            (r"\\?\D:\a\..\b", r"\\?\D:\b"),
            ("", r"C:\Users\dev\proj"),
            ("~", r"C:\Users\dev\proj\~"),
        ];
        for (path, want) in cases {
            assert_eq!(win(path, WIN), want, "{path:?}");
        }
        // A project folder written with forward slashes: results written so too.
        assert_eq!(win("a.ts", "C:/proj"), "C:/proj/a.ts");
        assert_eq!(win(r"..\b\c", "C:/proj"), "C:/b/c");
        assert_eq!(win("//s/h/x", "C:/proj"), "//s/h/x");
        // A project on a share: `\x` is on the share, the share's name cannot be left.
        let unc = r"\\srv\share\proj";
        assert_eq!(win(r"\x", unc), r"\\srv\share\x");
        assert_eq!(win(r"..\..\..\x", unc), r"\\srv\share\x");
        assert_eq!(win(r"\\SRV\Share\proj\a", unc), r"\\srv\share\proj\a");
        assert_eq!(win("C:x", unc), r"C:\x");
        // Project folders of the other system (only in tests): rooted, with no drive.
        assert_eq!(win("a", PROJECT), r"/home/dev/proj/a");
        assert_eq!(posix("a", WIN), r"C:\Users\dev\proj/a");
        // Case is folded only one character to one: `ß` is not `SS`.
        assert_eq!(win(r"C:\STRASSE\x", r"C:\Straße"), r"C:\STRASSE\x");
        assert_eq!(win(r"C:\ÜNÏ\x", r"C:\ünï"), r"C:\ünï\x");
        assert_eq!(
            tool_input_in(
                "read_file",
                &json!({"path": "src\\a.ts"}),
                Folder::of(WIN, true)
            ),
            json!({"file_path": r"C:\Users\dev\proj\src\a.ts"})
        );
    }

    #[test]
    fn a_relative_project_folder_gives_relative_paths() {
        for windows in [false, true] {
            let at = |path: &str, base: &str| absolutize(path, Folder::of(base, windows));
            assert_eq!(at("a.ts", "proj").replace('\\', "/"), "proj/a.ts");
            assert_eq!(at("a.ts", ""), "a.ts");
            assert_eq!(at("../a.ts", "proj"), "a.ts");
            assert_eq!(at("../../a.ts", "proj").replace('\\', "/"), "../a.ts");
            assert_eq!(at("", ""), ".");
            assert_eq!(at("..", "proj"), ".");
        }
    }

    #[test]
    fn what_is_relative_depends_on_the_system() {
        for path in ["a", "~/a", "", "C:x", r"C:\x", r"\x", r"\\s\h"] {
            assert!(is_relative(path, Folder::of(PROJECT, false)), "{path:?}");
        }
        assert!(!is_relative("/a", Folder::of(PROJECT, false)));
        for path in ["a", "~/a", "", r"a\b", "é:x"] {
            assert!(is_relative(path, Folder::of(WIN, true)), "{path:?}");
        }
        for path in ["C:x", r"C:\x", r"\x", "/x", r"\\s\h", r"\\?\C:\x"] {
            assert!(!is_relative(path, Folder::of(WIN, true)), "{path:?}");
        }
    }

    #[test]
    fn odd_windows_roots_never_panic() {
        let paths = [
            "\\",
            "/",
            "\\\\",
            "//",
            "\\\\\\",
            "\\\\a",
            "\\\\a\\",
            "\\\\a\\\\",
            "\\\\é\\ü",
            "é:",
            "C",
            "C:",
            ":",
            "1:\\x",
            "\u{0}:",
            "\\\\a\\b\\..\\..\\..",
        ];
        for path in paths {
            for base in [WIN, "", "rel", "C:", "\\\\a", PROJECT, "é"] {
                let got = win(path, base);
                assert!(
                    !got.contains("\\.\\") && !got.ends_with("\\.."),
                    "{path:?} {base:?}"
                );
                let _ = posix(path, base);
                let _ = path_back(&json!(path), Some(&json!("a")), Folder::of(base, true));
            }
        }
    }
}

#[cfg(test)]
pub(super) mod fixtures {
    //! What the tests of the Claude mapping's files share: the project folder of each
    //! system, the attack's paths, and a generator of arbitrary JSON.

    use serde_json::{json, Map, Value};

    use super::*;

    pub(in crate::claude) const PROJECT: &str = "/home/dev/proj";

    // The tests name POSIX paths (and Windows ones where they say so): each rule set is
    // tested on every system, so the helpers give the rules explicitly.
    pub(in crate::claude) const POSIX: Folder<'static> = Folder {
        dir: PROJECT,
        windows: false,
    };

    pub(in crate::claude) fn posix(path: &str, base: &str) -> String {
        absolutize(path, Folder::of(base, false))
    }

    pub(in crate::claude) fn win(path: &str, base: &str) -> String {
        absolutize(path, Folder::of(base, true))
    }

    /// The attack's paths (03-paths.js): a tool path the model picks, what Node's
    /// `path.posix.resolve(PROJECT, p)` writes, and what `path.win32.resolve(WIN, p)` writes
    /// (Node's own answers, but where the comment says why not).
    pub(in crate::claude) const WIN: &str = r"C:\Users\dev\proj";
    pub(in crate::claude) const ATTACK: [(&str, &str, &str); 26] = [
        ("src/../../x", "/home/dev/x", r"C:\Users\dev\x"),
        (
            "C:/../.claude/settings.json",
            "/home/dev/proj/.claude/settings.json",
            r"C:\.claude\settings.json",
        ),
        (
            r"C:\..\.claude\settings.json",
            r"/home/dev/proj/C:\..\.claude\settings.json",
            r"C:\.claude\settings.json",
        ),
        (
            "~/../.claude/settings.json",
            "/home/dev/proj/.claude/settings.json",
            r"C:\Users\dev\proj\.claude\settings.json",
        ),
        ("~", "/home/dev/proj/~", r"C:\Users\dev\proj\~"),
        (
            r"..\..\etc\passwd",
            r"/home/dev/proj/..\..\etc\passwd",
            r"C:\Users\etc\passwd",
        ),
        ("//etc/passwd", "/etc/passwd", r"\\etc\passwd\"),
        ("/proj/../etc", "/etc", r"C:\etc"),
        (
            "a\u{0}b/../../../etc/passwd",
            "/home/etc/passwd",
            r"C:\Users\etc\passwd",
        ),
        (
            ".claude/../.claude/settings.json",
            "/home/dev/proj/.claude/settings.json",
            r"C:\Users\dev\proj\.claude\settings.json",
        ),
        // Node asks Windows for D:'s own working folder: any is on D:, outside the project.
        ("D:", "/home/dev/proj/D:", r"D:\"),
        ("D:..", "/home/dev/proj/D:..", r"D:\"),
        (r"\\?\C:\x", r"/home/dev/proj/\\?\C:\x", r"\\?\C:\x"),
        (
            "file:///etc/passwd",
            "/home/dev/proj/file:/etc/passwd",
            r"C:\Users\dev\proj\file:\etc\passwd",
        ),
        (
            "src/./a\u{202e}.ts",
            "/home/dev/proj/src/a\u{202e}.ts",
            "C:\\Users\\dev\\proj\\src\\a\u{202e}.ts",
        ),
        ("", "/home/dev/proj", r"C:\Users\dev\proj"),
        // Node writes `c:\Users\dev\proj\x`: the same file, in the project folder's spelling.
        ("c:x", "/home/dev/proj/c:x", r"C:\Users\dev\proj\x"),
        (r"C:..\..\y", r"/home/dev/proj/C:..\..\y", r"C:\Users\y"),
        (
            r"c:\users\DEV\proj\.claude",
            r"/home/dev/proj/c:\users\DEV\proj\.claude",
            r"C:\Users\dev\proj\.claude",
        ),
        (r"\rooted\f", r"/home/dev/proj/\rooted\f", r"C:\rooted\f"),
        ("/unix/style", "/unix/style", r"C:\unix\style"),
        (
            r"\\server\share\..\..\f",
            r"/home/dev/proj/\\server\share\..\..\f",
            r"\\server\share\f",
        ),
        (r"\\server", r"/home/dev/proj/\\server", r"C:\server"),
        (r"\\server\", r"/home/dev/proj/\\server\", r"C:\server"),
        (
            r"\\?\C:\Users\dev\proj\..\..\x",
            r"/home/dev/proj/\\?\C:\Users\dev\proj\..\..\x",
            r"\\?\C:\Users\x",
        ),
        (r"\\.\pipe\p", r"/home/dev/proj/\\.\pipe\p", r"\\.\pipe\p"),
    ];

    /// A small deterministic generator of arbitrary JSON built from the keys the code reads.
    pub(in crate::claude) struct Garbage(pub(in crate::claude) u64);

    impl Garbage {
        pub(in crate::claude) fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        pub(in crate::claude) fn value(&mut self, depth: u32) -> Value {
            const KEYS: [&str; 40] = [
                "preToolUse",
                "postToolUse",
                "tool_call",
                "tool_result",
                "toolName",
                "tool",
                "name",
                "parameters",
                "input",
                "id",
                "output",
                "error",
                "result",
                "success",
                "path",
                "file_path",
                "filePath",
                "files",
                "file_paths",
                "paths",
                "commands",
                "command",
                "cmd",
                "args",
                "diff",
                "regex",
                "recursive",
                "requests",
                "queries",
                "server_name",
                "tool_name",
                "arguments",
                "old_text",
                "new_text",
                "insert_line",
                "taskId",
                "sessionContext",
                "rootSessionId",
                "notification",
                "preCompact",
            ];
            const TEXTS: [&str; 16] = [
                "",
                "execute_command",
                "run_commands",
                "read_files",
                "editor",
                "use_mcp_tool",
                "list_files",
                "true",
                "../../x",
                "C:\\a\\..\\b",
                "\\\\srv\\share",
                "[\"a\",1,{}]",
                "{\"k\":[1",
                "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE",
                "\u{0}\u{feff}\u{202e}🦀",
                "create",
            ];
            let pick = self.next() % if depth == 0 { 5 } else { 7 };
            match pick {
                0 => Value::Null,
                1 => Value::Bool(self.next().is_multiple_of(2)),
                2 => json!(self.next() as i64 - (1 << 30)),
                3 => json!(-1.5e300),
                4 => Value::from(TEXTS[(self.next() % TEXTS.len() as u64) as usize]),
                5 => Value::Array(
                    (0..self.next() % 4)
                        .map(|_| self.value(depth - 1))
                        .collect(),
                ),
                _ => {
                    let mut map = Map::new();
                    for _ in 0..self.next() % 6 {
                        let key = KEYS[(self.next() % KEYS.len() as u64) as usize];
                        map.insert(key.to_owned(), self.value(depth - 1));
                    }
                    Value::Object(map)
                }
            }
        }
    }
}
