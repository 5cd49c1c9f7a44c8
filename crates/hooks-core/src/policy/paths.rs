//! Which path the policy store keys a hook file by, and which files this package may change
//! the mode of: a hook belongs to the folder it was found in, a workspace hook to its
//! workspace root, whatever links its path goes through. Pure rules, and the resolution of
//! links they are applied to (I/O, off any event loop).

use std::path::{Path, PathBuf};

/// The folders of a root that hold its hooks, as discovery searches them:
/// `<root>/.clinerules/hooks` (both profiles) and `<root>/.cline/hooks` (the CLI's).
const ROOT_HOOK_DIRS: [[&str; 2]; 2] = [[".clinerules", "hooks"], [".cline", "hooks"]];

/// The root whose hooks folder `dir` is by its name (`/w` for `/w/.clinerules/hooks`), if it
/// is one. Pure; names compared ignoring ASCII case, as Windows and macOS compare them.
pub fn root_of_hooks_dir(dir: &Path) -> Option<&Path> {
    let hooks = dir.file_name()?.to_str()?;
    let parent = dir.parent()?;
    let rules = parent.file_name()?.to_str()?;
    let named = ROOT_HOOK_DIRS
        .iter()
        .any(|[r, h]| rules.eq_ignore_ascii_case(r) && hooks.eq_ignore_ascii_case(h));
    if named {
        parent.parent()
    } else {
        None
    }
}

/// The folder the store keys the hooks in `dir` by, given `real_dir` (`dir` with its links
/// resolved) and `real_root` (the [`root_of_hooks_dir`] of `dir` with its links resolved):
/// `real_dir`, so every spelling of a folder is one folder; but when `dir` is a root's hooks
/// folder that leads out of its root (a cloned repository's `.clinerules` linked to another
/// project's), the root's own spelling of it, so an approval given in one root never
/// approves a hook run in another. Pure.
pub fn keyed_dir(dir: &Path, real_dir: PathBuf, real_root: Option<&Path>) -> PathBuf {
    match (root_of_hooks_dir(dir), real_root) {
        (Some(root), Some(real_root)) if !real_dir.starts_with(real_root) => dir
            .strip_prefix(root)
            .map_or(real_dir.clone(), |inside| real_root.join(inside)),
        _ => real_dir,
    }
}

/// Why this package must not change the mode of a hook file whose links resolve to
/// `real_file`: it lies outside `area`, the hook's workspace root or folder
/// ([`hook_area`]), so a repository's link would have it change a file elsewhere. Pure.
pub fn leads_out(real_file: &Path, area: &Path) -> Option<String> {
    (!real_file.starts_with(area)).then(|| {
        format!(
            "it is a symbolic link (or is in a linked folder) leading to {}, outside {}, and enabling it would make that file executable; @cline/hooks never changes a file outside a hook's workspace root or folder: if you mean to run that file, run chmod +x on it yourself, then enable the hook again",
            real_file.display(),
            area.display()
        )
    })
}

/// `dir` with every symbolic link on its path resolved (Windows: without the `\\?\` prefix
/// when it is a plain drive path); `None` if it does not exist. I/O.
pub fn real_dir(dir: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(dir).ok().map(plain_spelling)
}

/// A real path as Windows reports it (`\\?\C:\...`) without the `\\?\` prefix when it is a
/// plain drive path, so it compares with paths as users write them; elsewhere unchanged.
pub(crate) fn plain_spelling(real: PathBuf) -> PathBuf {
    #[cfg(windows)]
    {
        let text = real.to_string_lossy();
        if let Some(plain) = text.strip_prefix(r"\\?\") {
            if plain.as_bytes().get(1) == Some(&b':') {
                return PathBuf::from(plain);
            }
        }
    }
    real
}

/// The folder the store keys the hooks in `dir` by ([`keyed_dir`] of its links resolved);
/// `None` if it does not exist. I/O.
pub fn policy_dir(dir: &Path) -> Option<PathBuf> {
    let real = real_dir(dir)?;
    let real_root = root_of_hooks_dir(dir).and_then(real_dir);
    Some(keyed_dir(dir, real, real_root.as_deref()))
}

/// `path` (a hook file) as the store keys it: [`policy_dir`] of its folder with its name
/// (the file itself may be a link: its own name is the hook's). I/O.
pub fn real_path(path: &Path) -> PathBuf {
    match (path.parent().and_then(policy_dir), path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    }
}

/// Where the files of the hooks in `dir` must lie, links resolved, for this package to change
/// them: the workspace root of a root's hooks folder, else the folder itself. I/O.
pub fn hook_area(dir: &Path) -> Option<PathBuf> {
    real_dir(root_of_hooks_dir(dir).unwrap_or(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roots_hooks_folder_is_known_by_its_name() {
        let root = |d: &str| root_of_hooks_dir(Path::new(d)).map(Path::to_owned);
        assert_eq!(root("/w/.clinerules/hooks"), Some("/w".into()));
        assert_eq!(root("/w/.cline/hooks"), Some("/w".into()));
        assert_eq!(root("/w/.ClineRules/Hooks"), Some("/w".into()));
        assert_eq!(root("/home/u/Documents/Cline/Hooks"), None);
        assert_eq!(root("/w/hooks"), None);
    }

    #[test]
    fn a_hooks_folder_leading_out_of_its_root_is_keyed_in_that_root() {
        let dir = Path::new("/clone/.clinerules/hooks");
        // Linked to another project's: keyed by the clone's spelling, never by projA's path.
        assert_eq!(
            keyed_dir(
                dir,
                "/projA/.clinerules/hooks".into(),
                Some(Path::new("/clone"))
            ),
            PathBuf::from("/clone/.clinerules/hooks")
        );
        // The root reached through a link: its real spelling.
        assert_eq!(
            keyed_dir(
                Path::new("/alias/.clinerules/hooks"),
                "/real/clone/.clinerules/hooks".into(),
                Some(Path::new("/real/clone"))
            ),
            PathBuf::from("/real/clone/.clinerules/hooks")
        );
        // A link inside the root, and a folder of no root: the real folder, as before.
        assert_eq!(
            keyed_dir(dir, "/clone/tools/hooks".into(), Some(Path::new("/clone"))),
            PathBuf::from("/clone/tools/hooks")
        );
        assert_eq!(
            keyed_dir(
                Path::new("/home/u/Documents/Cline/Hooks"),
                "/dotfiles/hooks".into(),
                None
            ),
            PathBuf::from("/dotfiles/hooks")
        );
    }

    #[test]
    fn a_file_outside_its_area_is_named_with_the_fix() {
        assert!(leads_out(Path::new("/w/.clinerules/hooks/TaskStart"), Path::new("/w")).is_none());
        let why = leads_out(Path::new("/home/u/bin/tool"), Path::new("/w")).unwrap();
        assert!(
            why.contains("leading to /home/u/bin/tool, outside /w") && why.contains("chmod +x"),
            "{why}"
        );
        // A sibling whose name starts like the root's is outside it.
        assert!(leads_out(Path::new("/w2/x"), Path::new("/w")).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_clone_linked_to_another_projects_hooks_keys_them_in_the_clone() {
        let base = std::env::temp_dir().join(format!("cline-hooks-paths-{}", std::process::id()));
        let project = base.join("projA");
        let clone = base.join("clone");
        std::fs::create_dir_all(project.join(".clinerules/hooks")).unwrap();
        std::fs::create_dir_all(clone.join(".clinerules")).unwrap();
        std::os::unix::fs::symlink(
            project.join(".clinerules/hooks"),
            clone.join(".clinerules/hooks"),
        )
        .unwrap();
        let real_base = real_dir(&base).unwrap();
        let in_clone = clone.join(".clinerules/hooks/PreToolUse");
        assert_eq!(
            real_path(&in_clone),
            real_base.join("clone/.clinerules/hooks/PreToolUse")
        );
        assert_eq!(
            real_path(&project.join(".clinerules/hooks/PreToolUse")),
            real_base.join("projA/.clinerules/hooks/PreToolUse")
        );
        assert_eq!(
            hook_area(&clone.join(".clinerules/hooks")),
            Some(real_base.join("clone"))
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
