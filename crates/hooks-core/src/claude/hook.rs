//! One handler of a Claude Code settings file as discovery lists it ([`ClaudeHook`]): its event,
//! matcher and command, where it is written, and the script files its command names, as the
//! scan fingerprinted them; and the path that stands for it where a hook file's path would
//! (`<file>#hooks.PreToolUse[0].hooks[1]`). Pure.

use std::path::{Path, PathBuf};

use super::{compile_matcher, Matcher};

/// A script a handler's command names, with the sha256 of its bytes when read (`None`: missing
/// or unreadable).
pub type Script = (PathBuf, Option<String>);

/// A Claude Code settings handler found by discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeHook {
    /// The Claude event it is written under (`PreToolUse`, `SessionStart`, `Stop`...).
    pub event: String,
    /// Its group's matcher.
    pub matcher: ClaudeMatcher,
    /// The command line its shell runs.
    pub command: String,
    /// The settings file it is written in.
    pub file: PathBuf,
    /// Where in the file: `hooks.PreToolUse[0].hooks[1]`.
    pub position: String,
    /// The files its command names inside its project (its scripts), each with the sha256 of
    /// its bytes when the scan read it (`None`: missing or unreadable); an approval covers
    /// them, and a start checks them again.
    pub scripts: Vec<Script>,
    /// The files its command runs (its program, an interpreter's script) that were not
    /// readable files when the scan looked, wherever they are: said, not covered.
    pub missing: Vec<PathBuf>,
}

/// A matcher as written and as compiled; two are equal when their texts are.
#[derive(Debug, Clone)]
pub struct ClaudeMatcher {
    /// As written; `None` when the group has none.
    pub text: Option<String>,
    /// Ready to test, or why it cannot be.
    pub compiled: Result<Matcher, String>,
}

impl ClaudeMatcher {
    /// Compiles `text`.
    pub fn new(text: Option<String>) -> ClaudeMatcher {
        let compiled = compile_matcher(text.as_deref());
        ClaudeMatcher { text, compiled }
    }

    /// Whether it applies to `subject`; a matcher that does not compile applies to nothing
    /// (its hook is listed disabled with why).
    pub fn matches(&self, subject: &str) -> bool {
        self.compiled.as_ref().is_ok_and(|m| m.matches(subject))
    }
}

impl PartialEq for ClaudeMatcher {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for ClaudeMatcher {}

/// Marks where the file's path ends in a handler's path: `settings.json#hooks.…`.
pub const ENTRY_MARK: &str = "#hooks.";

/// The path that stands for the handler at `position` of `file`, in results and in the
/// user's policy store: `<file>#<position>`.
pub fn entry_path(file: &Path, position: &str) -> PathBuf {
    let mut text = file.as_os_str().to_owned();
    text.push("#");
    text.push(position);
    PathBuf::from(text)
}

/// The settings file and the position a handler's path names, when it is one
/// (`…/settings.json#hooks.PreToolUse[0].hooks[1]`).
pub fn split_entry_path(path: &Path) -> Option<(PathBuf, String)> {
    let text = path.to_str()?;
    let at = text.rfind(ENTRY_MARK)?;
    let (file, position) = (&text[..at], &text[at + 1..]);
    let name = Path::new(file).file_name()?.to_str()?;
    matches!(name, "settings.json" | "settings.local.json")
        .then(|| (PathBuf::from(file), position.to_owned()))
}

/// The sha256 an approval of a handler records: of its event, matcher and command and of each
/// script's path and bytes' sha256, so editing any of them withdraws the approval.
pub fn entry_digest(
    event: &str,
    matcher: Option<&str>,
    command: &str,
    scripts: &[Script],
) -> String {
    let mut text = String::from("claude-settings-handler\n");
    for part in [event, matcher.unwrap_or("\u{0}none"), command] {
        // Lengths first: no two different handlers spell the same text.
        text.push_str(&format!("{}:{part}\n", part.len()));
    }
    for (path, sha256) in scripts {
        let path = path.to_string_lossy();
        let sha256 = sha256.as_deref().unwrap_or("missing");
        text.push_str(&format!("{}:{path}\n{sha256}\n", path.len()));
    }
    crate::policy::sha256_of_bytes(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handler_path_is_its_file_and_position_and_splits_back() {
        let file = Path::new("/w/.claude/settings.local.json");
        let path = entry_path(file, "hooks.PreToolUse[0].hooks[1]");
        assert_eq!(
            path,
            Path::new("/w/.claude/settings.local.json#hooks.PreToolUse[0].hooks[1]")
        );
        assert_eq!(path.parent(), Some(Path::new("/w/.claude")));
        assert_eq!(
            split_entry_path(&path),
            Some((file.to_owned(), "hooks.PreToolUse[0].hooks[1]".to_owned()))
        );
        assert_eq!(
            split_entry_path(Path::new("/w/.clinerules/hooks/PreToolUse")),
            None
        );
        assert_eq!(
            split_entry_path(Path::new("/w/x.json#hooks.A[0].hooks[0]")),
            None
        );
    }

    #[test]
    fn the_digest_changes_with_every_part_and_the_scripts_bytes() {
        let scripts = vec![(PathBuf::from("/w/g.sh"), Some("aa".to_owned()))];
        let base = entry_digest("PreToolUse", Some("Bash"), "g.sh", &scripts);
        assert_eq!(base.len(), 64);
        assert_eq!(
            base,
            entry_digest("PreToolUse", Some("Bash"), "g.sh", &scripts)
        );
        assert_ne!(
            base,
            entry_digest("PostToolUse", Some("Bash"), "g.sh", &scripts)
        );
        assert_ne!(base, entry_digest("PreToolUse", None, "g.sh", &scripts));
        assert_ne!(
            base,
            entry_digest("PreToolUse", Some("Bash"), "g.sh ", &scripts)
        );
        let edited = vec![(PathBuf::from("/w/g.sh"), Some("bb".to_owned()))];
        assert_ne!(
            base,
            entry_digest("PreToolUse", Some("Bash"), "g.sh", &edited)
        );
        let gone = vec![(PathBuf::from("/w/g.sh"), None)];
        assert_ne!(
            base,
            entry_digest("PreToolUse", Some("Bash"), "g.sh", &gone)
        );
        // No shifting of text between parts gives the same digest.
        assert_ne!(
            entry_digest("A", Some("BC"), "D", &[]),
            entry_digest("AB", Some("C"), "D", &[])
        );
    }
}
