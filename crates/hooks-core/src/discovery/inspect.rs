//! What one directory entry is: its type, exec bit, `#!` line and fingerprint, all taken from
//! one open file, and looked at again while the entry is being replaced.

use std::io;
use std::path::Path;

use super::{read_header, DirError, EntryKind, Header, HEADER_BYTES};
use crate::policy::Fingerprints;
use crate::verdict::is_js_space;

/// What an entry is: its kind, its `#!` line, (a file) the sha256 of its bytes and its
/// `cline-hook:` header.
pub(super) type Inspected = (EntryKind, Option<String>, Option<String>, Header);

/// What one look at an entry found.
#[derive(Debug)]
enum Seen {
    Entry(Inspected),
    /// It is no longer there.
    Gone,
    /// It was replaced between two steps of the look.
    Changed,
}

/// Looks at an entry at most this many times while it keeps being replaced.
const LOOKS: usize = 3;

/// What the entry at `path` is, its `#!` line (read by `shebang_rule`) and its fingerprint (taken
/// from `fingerprints` if its stamp is unchanged), from what was observed: `None` if it was
/// deleted since the listing. Nothing is concluded from two
/// looks that may have seen two different files: the type, mode and first line of a file
/// come from one open file, and a link is called broken only if the same link was there
/// before and after its target could not be found.
pub(super) fn inspect(
    path: &Path,
    listed_as: Option<std::fs::FileType>,
    shebang_rule: ShebangRule,
    fingerprints: &mut Fingerprints,
) -> Option<Inspected> {
    for _ in 0..LOOKS {
        match look(path, listed_as, shebang_rule, fingerprints) {
            Seen::Entry(inspected) => return Some(inspected),
            Seen::Gone => return None,
            Seen::Changed => {}
        }
    }
    Some((
        EntryKind::Uninspectable(
            "it was replaced again and again while it was being inspected; it is looked at again on the next discovery".to_owned(),
        ),
        None,
        None,
        Header::default(),
    ))
}

fn look(
    path: &Path,
    listed_as: Option<std::fs::FileType>,
    shebang_rule: ShebangRule,
    fingerprints: &mut Fingerprints,
) -> Seen {
    // Listed as a regular file: open it without following links and learn everything
    // from the open file.
    if listed_as.is_some_and(|t| t.is_file()) {
        match open_entry(path, false) {
            Ok(file) => return from_open(path, &file, None, shebang_rule, fingerprints),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Seen::Gone,
            // Replaced by a link, or unreadable: the general way below tells which.
            Err(_) => {}
        }
    }
    let before = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Seen::Gone,
        Err(err) => return uninspectable(&err),
    };
    if !before.file_type().is_symlink() {
        return with_shebang(path, &before, false, shebang_rule, fingerprints);
    }
    match std::fs::metadata(path) {
        Ok(target) => with_shebang(path, &target, true, shebang_rule, fingerprints),
        Err(err) => {
            let kind = if err.kind() == io::ErrorKind::NotFound {
                EntryKind::BrokenSymlink
            } else if DirError::of(&err) == DirError::Loop {
                EntryKind::SymlinkLoop
            } else {
                return uninspectable(&err);
            };
            // Only a link that was there before and after its target was looked for is
            // broken: a link deleted or replaced in between says nothing about its target.
            match std::fs::symlink_metadata(path) {
                Ok(after) if after.file_type().is_symlink() && same_file(&before, &after) => {
                    Seen::Entry((kind, None, None, Header::default()))
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => Seen::Gone,
                _ => Seen::Changed,
            }
        }
    }
}

/// The entry whose metadata (`meta`, its target's if it is a link) was just read; for a
/// file, its first line and fingerprint too, read from an open file that must be the same file.
fn with_shebang(
    path: &Path,
    meta: &std::fs::Metadata,
    follow: bool,
    shebang_rule: ShebangRule,
    fingerprints: &mut Fingerprints,
) -> Seen {
    let kind = kind_of(meta);
    if !matches!(kind, EntryKind::File { .. }) {
        return Seen::Entry((kind, None, None, Header::default()));
    }
    match open_entry(path, follow) {
        Ok(file) => from_open(path, &file, Some(meta), shebang_rule, fingerprints),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Seen::Changed,
        // Not readable (mode --x): the kernel may still run it; no #! line or fingerprint
        // is known.
        Err(_) => Seen::Entry((kind, None, None, Header::default())),
    }
}

fn uninspectable(err: &io::Error) -> Seen {
    Seen::Entry((
        EntryKind::Uninspectable(inspect_problem(err)),
        None,
        None,
        Header::default(),
    ))
}

/// Everything about an entry from its open file; `Changed` if it is not the file whose
/// metadata `expected` is.
fn from_open(
    path: &Path,
    file: &std::fs::File,
    expected: Option<&std::fs::Metadata>,
    shebang_rule: ShebangRule,
    fingerprints: &mut Fingerprints,
) -> Seen {
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(err) => return uninspectable(&err),
    };
    if expected.is_some_and(|expected| !same_file(expected, &meta)) {
        return Seen::Changed;
    }
    let kind = kind_of(&meta);
    if !matches!(kind, EntryKind::File { .. }) {
        return Seen::Entry((kind, None, None, Header::default()));
    }
    let head = first_bytes(file).unwrap_or_default();
    let shebang = match shebang_rule {
        ShebangRule::Unread => None,
        ShebangRule::Kernel => parse_shebang(&head),
        ShebangRule::Sdk => parse_sdk_shebang(&head),
    };
    let header = read_header(&head);
    let sha256 = fingerprints.of(path, file, &meta);
    Seen::Entry((kind, shebang, sha256, header))
}

/// Opens an entry for reading its first bytes: never blocking (a FIFO swapped in), never
/// taking a terminal, and, unless `follow`, never through a link.
fn open_entry(path: &Path, follow: bool) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | nofollow);
    }
    #[cfg(not(unix))]
    let _ = follow;
    options.open(path)
}

/// The file's first [`HEADER_BYTES`] (where its `#!` line and header must be).
fn first_bytes(file: &std::fs::File) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEADER_BYTES);
    file.take(HEADER_BYTES as u64).read_to_end(&mut head).ok()?;
    Some(head)
}

/// How a file's `#!` line is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShebangRule {
    /// Not at all (Windows' own kinds of hook).
    Unread,
    /// As the kernel reads it ([`parse_shebang`]): hooks started directly.
    Kernel,
    /// As the Cline SDK reads it ([`parse_sdk_shebang`]): the `cli` profile.
    Sdk,
}

/// The text after `#!` as the Cline SDK reads it: the first line (up to a line feed, a
/// carriage return before it dropped), trimmed as JavaScript trims (so a byte-order mark or
/// blanks before the `#!` count), then the rest after `#!`, trimmed. Pure.
pub fn parse_sdk_shebang(head: &[u8]) -> Option<String> {
    let line = head.split(|b| *b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    let rest = line.trim_matches(is_js_space).strip_prefix("#!")?;
    let rest = rest.trim_matches(is_js_space);
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// The text after `#!` on the first line, if `head` (a file's first bytes) starts with one,
/// as the kernel keeps it: up to the line feed (or a NUL, where the kernel's string ends),
/// less leading and trailing spaces and tabs only. A carriage return or a no-break space stays:
/// the kernel takes it as part of the program's name, and so must the messages.
pub fn parse_shebang(head: &[u8]) -> Option<String> {
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|b| *b == b'\n' || *b == 0).next()?;
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = line.iter().position(|b| !blank(b)).unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |i| i + 1);
    Some(String::from_utf8_lossy(&line[start..end]).into_owned())
}

fn kind_of(meta: &std::fs::Metadata) -> EntryKind {
    if meta.is_file() {
        EntryKind::File {
            executable: is_executable(meta),
        }
    } else if meta.is_dir() {
        EntryKind::Directory
    } else {
        EntryKind::Special
    }
}

/// Whether two metadata describe the same file (Windows: assumed, std has no stable file id).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

/// Why an entry cannot be inspected, with the fix that fits the error.
fn inspect_problem(err: &io::Error) -> String {
    match DirError::of(err) {
        DirError::NameTooLong => {
            "its path is longer than the system allows; move its hooks directory to a shorter path".to_owned()
        }
        DirError::PermissionDenied => {
            "it cannot be inspected (permission denied); give this user read access to it and search access to its directory".to_owned()
        }
        _ => format!("it cannot be inspected ({err})"),
    }
}

/// Whether a file has an exec bit (macOS/Linux); Windows has none to check.
#[cfg(unix)]
pub(crate) fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub(crate) fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use crate::discovery::fixtures::scratch;

    #[cfg(unix)]
    #[test]
    fn an_entry_is_described_by_what_was_observed_of_it() {
        use crate::policy::sha256_of_bytes;
        use std::os::unix::fs::symlink;
        let dir = scratch("inspect");
        let hook = dir.join("PreToolUse");
        let fp = &mut Fingerprints::default();
        std::fs::write(&hook, "#!/bin/sh -e\necho\n").unwrap();
        let listed_as = std::fs::symlink_metadata(&hook).unwrap().file_type();
        assert_eq!(
            inspect(&hook, Some(listed_as), ShebangRule::Kernel, fp),
            Some((
                EntryKind::File { executable: false },
                Some("/bin/sh -e".to_owned()),
                Some(sha256_of_bytes(b"#!/bin/sh -e\necho\n")),
                Header::default()
            ))
        );
        // Deleted between the listing and the look: gone, not "a broken symbolic link".
        std::fs::remove_file(&hook).unwrap();
        assert_eq!(
            inspect(&hook, Some(listed_as), ShebangRule::Kernel, fp),
            None
        );
        assert_eq!(inspect(&hook, None, ShebangRule::Kernel, fp), None);
        // A real broken link is one.
        symlink(dir.join("missing"), &hook).unwrap();
        let listed_as = std::fs::symlink_metadata(&hook).unwrap().file_type();
        assert_eq!(
            inspect(&hook, Some(listed_as), ShebangRule::Kernel, fp),
            Some((EntryKind::BrokenSymlink, None, None, Header::default()))
        );
        // A link to a file is that file; listed as a file but now a link, it is followed.
        std::fs::write(dir.join("target"), "#!/bin/bash\n").unwrap();
        std::fs::remove_file(&hook).unwrap();
        symlink(dir.join("target"), &hook).unwrap();
        let file_type = std::fs::metadata(dir.join("target")).unwrap().file_type();
        assert_eq!(
            inspect(&hook, Some(file_type), ShebangRule::Unread, fp),
            Some((
                EntryKind::File { executable: false },
                None,
                Some(sha256_of_bytes(b"#!/bin/bash\n")),
                Header::default()
            ))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue 34: the cli profile reads the `#!` line as the Cline SDK does.
    #[test]
    fn the_sdk_reads_a_shebang_line_trimmed_as_javascript_trims() {
        let read = |text: &str| parse_sdk_shebang(text.as_bytes());
        assert_eq!(
            read("\u{feff}#!/usr/bin/env python3\n").as_deref(),
            Some("/usr/bin/env python3")
        );
        assert_eq!(
            read("  #! /bin/bash -e \r\necho\n").as_deref(),
            Some("/bin/bash -e")
        );
        assert_eq!(read("#!/bin/sh\u{a0}\n").as_deref(), Some("/bin/sh"));
        assert_eq!(read("#!\n"), None);
        assert_eq!(read("echo #!/bin/sh\n"), None);
        // The kernel keeps what the SDK trims.
        assert_eq!(parse_shebang("\u{feff}#!/bin/sh\n".as_bytes()), None);
    }

    /// Issue 18 (B1): the `#!` line is kept as the kernel keeps it.
    #[test]
    fn a_shebang_line_keeps_what_the_kernel_keeps() {
        assert_eq!(
            parse_shebang(b"#!/bin/sh\r\necho\r\n").as_deref(),
            Some("/bin/sh\r")
        );
        assert_eq!(
            parse_shebang("#!/bin/sh\u{a0}\n".as_bytes()).as_deref(),
            Some("/bin/sh\u{a0}")
        );
        assert_eq!(
            parse_shebang(b"#! \t/bin/sh -e \t\n").as_deref(),
            Some("/bin/sh -e")
        );
        assert_eq!(
            parse_shebang(b"#!/bin/sh\0junk\n").as_deref(),
            Some("/bin/sh")
        );
        assert_eq!(parse_shebang(b"#!  \n").as_deref(), Some(""));
        assert_eq!(parse_shebang(b"echo"), None);
    }
}
