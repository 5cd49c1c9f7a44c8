//! Where a hooks folder came from ([`Source`]: managed, extra, global or a workspace's), which
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
}

impl Source {
    /// Its label in reports: `managed`, `extra`, `global` or `workspace`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Managed => "managed",
            Source::Extra => "extra",
            Source::Global => "global",
            Source::Workspace => "workspace",
        }
    }
}
