//! Which discovered hooks run confined: each gets its sandbox from the options (see
//! [`crate::sandbox`]), once, where discovery applies the user's policy.

use std::path::Path;

use super::DiscoveredHook;
use crate::sandbox::{sandbox_for, SandboxMode, SandboxOptions};

/// Gives each of `hooks` its sandbox under `options` (see [`sandbox_for`]): a workspace's hook
/// may write in its root, any other in `default_cwd` (the first root, where it runs).
pub fn give_sandboxes(
    hooks: &mut [DiscoveredHook],
    options: &SandboxOptions,
    default_cwd: Option<&Path>,
    temp: &Path,
) {
    if options.mode == SandboxMode::Off {
        return;
    }
    for hook in hooks {
        let cwd = hook.workspace_root.as_deref().or(default_cwd);
        hook.sandbox = sandbox_for(options, hook.source, cwd, temp).map(std::sync::Arc::new);
    }
}
