//! What a scan of the hooks folders found: each folder's [`Listing`], what the folder held
//! ([`Contents`]) and the files in it meant for a known hook that none will run ([`Stray`]).
//! Made by scan.rs (managed_scan.rs marks the managed folder's), read by discovered.rs.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Entry, HookDir};

/// What a directory held, as far as hook discovery cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// It does not exist (or a file stands where it would be): no hooks, nothing to say.
    Missing,
    /// It cannot be listed; the sentence says why and what to do.
    Unreadable(String),
    /// Its entries named like the hooks asked for, by name.
    Entries(Vec<Entry>),
    /// A `.claude` folder's settings files (`claudeSettings`), in Claude Code's order.
    Settings(Vec<super::SettingsFile>),
}

/// One searched directory and what it held when it was scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The directory.
    pub dir: HookDir,
    /// What it held.
    pub contents: Contents,
    /// The directory as the user's policy store keys its hooks, when it exists: with every
    /// symbolic link on its path resolved, but a root's hooks folder leading out of its root
    /// spelled in that root (see [`crate::policy::policy_dir`]).
    pub real_dir: Option<PathBuf>,
    /// Its files meant for a known hook that no hook will run (see [`Stray`]), by name.
    pub strays: Arc<[Stray]>,
}

/// A file in a hooks folder named for a known hook (`PreToolUse.py`, `PreTooluse`,
/// `PreTolUse`) that is no file of that hook under the rules in force, so it never runs: a run
/// of that hook names it in its warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stray {
    /// Its name in the folder.
    pub name: String,
    /// The hook it is meant for ([`crate::diagnosis::meant_hook`]).
    pub meant: &'static str,
    /// How many more strays of that hook the folder holds past this one, the last kept (see
    /// `STRAYS_LIMIT` in scan.rs); 0 for every other.
    pub more: usize,
}
