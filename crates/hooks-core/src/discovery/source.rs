//! Where a hooks folder came from ([`Source`]: managed, extra, global, a workspace's, or a Claude
//! Code settings file), which
//! every hook found in it carries: it orders the folders, and decides whose choices apply.

/// Where a hooks directory came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The machine's managed hooks folder (`/etc/cline/hooks`, `/Library/Application
    /// Support/Cline/Hooks`, `%ProgramData%\Cline\Hooks`, or `managedHooksDir`): searched
    /// first, its hooks run before all others. Put there by an administrator, so they are
    /// exempt from the user's choices (trust, the disabled state); in exchange a hook whose
    /// file or folder anyone but root/Administrators can write is refused (see `managed.rs`).
    Managed,
    /// A directory the caller named (`extraHooksDirs`, the CLI's `--hooks-dir`).
    Extra,
    /// The user's global hooks folder.
    Global,
    /// `<root>/.clinerules/hooks` of a workspace root.
    Workspace,
    /// The user's Claude Code settings, `~/.claude/settings.json` (with `claudeSettings`).
    ClaudeUser,
    /// A workspace root's shared Claude Code settings, `<root>/.claude/settings.json`.
    ClaudeProject,
    /// A workspace root's own Claude Code settings, `<root>/.claude/settings.local.json`.
    ClaudeLocal,
}

impl Source {
    /// Its label in reports: `managed`, `extra`, `global`, `workspace`, `claudeUser`,
    /// `claudeProject` or `claudeLocal`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Managed => "managed",
            Source::Extra => "extra",
            Source::Global => "global",
            Source::Workspace => "workspace",
            Source::ClaudeUser => "claudeUser",
            Source::ClaudeProject => "claudeProject",
            Source::ClaudeLocal => "claudeLocal",
        }
    }

    /// Whether its hooks come from a Claude Code settings file.
    pub fn is_claude(self) -> bool {
        matches!(
            self,
            Source::ClaudeUser | Source::ClaudeProject | Source::ClaudeLocal
        )
    }

    /// Whether its hooks are a workspace root's, brought by the repository (what trust's
    /// `workspace` scope covers).
    pub fn is_workspace(self) -> bool {
        matches!(
            self,
            Source::Workspace | Source::ClaudeProject | Source::ClaudeLocal
        )
    }
}
