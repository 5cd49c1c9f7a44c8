//! Which discovered hooks run confined: each gets its sandbox from the options (see
//! [`crate::sandbox`]), once, where discovery applies the user's policy.

use std::path::{Path, PathBuf};

use super::{DiscoveredHook, Source};
use crate::sandbox::{sandbox_for, SandboxMode, SandboxOptions};

/// Gives each of `hooks` its sandbox under `options` (see [`sandbox_for`]): a workspace's hook
/// may write in its root, any other in the first of `roots` (where it runs). Under
/// `workspace`, a hook whose file lies inside a workspace root counts as the repository's,
/// whatever folder option found it (a `globalHooksDir` or `clineDir` pointed into the
/// workspace must not take its hooks out of the sandbox); managed hooks never do.
pub fn give_sandboxes(
    hooks: &mut [DiscoveredHook],
    options: &SandboxOptions,
    roots: &[PathBuf],
    temp: &Path,
) {
    if options.mode == SandboxMode::Off {
        return;
    }
    for hook in hooks {
        let cwd = hook
            .workspace_root
            .as_deref()
            .or(roots.first().map(PathBuf::as_path));
        let source = match hook.source {
            Source::Managed => Source::Managed,
            _ if inside_a_root(hook, roots) => Source::Workspace,
            other => other,
        };
        hook.sandbox = sandbox_for(options, source, cwd, temp).map(std::sync::Arc::new);
    }
}

/// Whether `hook`'s file (as found, or where its links lead) lies inside one of `roots`.
fn inside_a_root(hook: &DiscoveredHook, roots: &[PathBuf]) -> bool {
    let paths = std::iter::once(hook.path.as_path()).chain(hook.real_path.as_deref());
    paths
        .into_iter()
        .any(|path| roots.iter().any(|root| path.starts_with(root)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> SandboxOptions {
        SandboxOptions {
            mode: SandboxMode::Workspace,
            ..SandboxOptions::default()
        }
    }

    #[test]
    fn a_folder_option_pointed_into_a_workspace_does_not_take_its_hooks_out_of_the_sandbox() {
        let roots = [PathBuf::from("/ws")];
        let mut hooks = vec![
            DiscoveredHook {
                source: Source::Global,
                ..DiscoveredHook::sample("/ws/.clinerules/hooks/PreToolUse")
            },
            DiscoveredHook {
                source: Source::Global,
                ..DiscoveredHook::sample("/home/me/Documents/Cline/Hooks/PreToolUse")
            },
            DiscoveredHook {
                source: Source::Managed,
                ..DiscoveredHook::sample("/ws/managed/PreToolUse")
            },
        ];
        give_sandboxes(&mut hooks, &options(), &roots, Path::new("/tmp"));
        let confined: Vec<bool> = hooks.iter().map(|h| h.sandbox.is_some()).collect();
        assert_eq!(confined, [true, false, false]);
        assert_eq!(
            hooks[0].sandbox.as_ref().map(|s| s.writable.clone()),
            Some(vec![PathBuf::from("/ws"), PathBuf::from("/tmp")])
        );
    }

    #[test]
    fn off_confines_nothing() {
        let mut hooks = vec![DiscoveredHook::sample("/ws/.clinerules/hooks/PreToolUse")];
        give_sandboxes(
            &mut hooks,
            &SandboxOptions::default(),
            &[PathBuf::from("/ws")],
            Path::new("/tmp"),
        );
        assert!(hooks[0].sandbox.is_none());
    }
}
