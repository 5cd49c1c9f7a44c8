//! Which folders to watch for a set of hooks folders: each folder that exists, and the
//! ancestors whose changes can make a folder appear, vanish or move. A pure rule.

use std::path::{Path, PathBuf};

use crate::discovery::HookDir;

/// What a watched folder stands for, which decides the events asked of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// A hooks folder: any change among its entries (create, delete, rename, chmod, edit).
    Folder,
    /// A folder on a hooks folder's path: an entry created, deleted, renamed or chmod-ed
    /// there can make the hooks folder appear, vanish, move or become readable.
    Ancestor,
}

/// The folders to watch for `dirs`, each once (a folder that is both gets [`Role::Folder`]),
/// `exists` telling which paths exist now: each hooks folder that exists, and its parent (the
/// folder replaced, or a link to it pointed elsewhere, is an entry changing there: its own
/// watch follows the old folder); for one that does not exist, its nearest existing ancestor,
/// so that its creation is seen (above its workspace root only when the root itself is gone:
/// a workspace cloned again). What the watches cannot see (a grandparent of an existing folder
/// renamed) is left to the revalidation by age.
pub fn targets(dirs: &[HookDir], exists: impl Fn(&Path) -> bool) -> Vec<(PathBuf, Role)> {
    let mut out: Vec<(PathBuf, Role)> = Vec::new();
    let mut add = |path: &Path, role: Role| match out.iter_mut().find(|(p, _)| p == path) {
        Some((_, seen)) => *seen = (*seen).min(role),
        None => out.push((path.to_owned(), role)),
    };
    for dir in dirs {
        if exists(&dir.path) {
            add(&dir.path, Role::Folder);
            if let Some(parent) = dir.path.parent().filter(|p| exists(p)) {
                add(parent, Role::Ancestor);
            }
            continue;
        }
        let nearest = dir.path.ancestors().skip(1).find(|p| exists(p));
        if let Some(parent) = nearest {
            add(parent, Role::Ancestor);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::Source;

    fn dir(path: &str, root: Option<&str>) -> HookDir {
        HookDir {
            path: PathBuf::from(path),
            source: if root.is_some() {
                Source::Workspace
            } else {
                Source::Global
            },
            workspace_root: root.map(PathBuf::from),
        }
    }

    fn names(t: Vec<(PathBuf, Role)>) -> Vec<(String, Role)> {
        t.into_iter()
            .map(|(p, r)| (p.to_string_lossy().into_owned(), r))
            .collect()
    }

    #[test]
    fn an_existing_folder_is_watched_with_its_parent() {
        let existing = ["/w", "/w/.clinerules", "/w/.clinerules/hooks", "/"];
        let t = targets(&[dir("/w/.clinerules/hooks", Some("/w"))], |p| {
            existing.iter().any(|e| Path::new(e) == p)
        });
        assert_eq!(
            names(t),
            vec![
                ("/w/.clinerules/hooks".into(), Role::Folder),
                ("/w/.clinerules".into(), Role::Ancestor)
            ]
        );
    }

    #[test]
    fn a_workspace_root_that_is_gone_is_watched_for_from_above() {
        let t = targets(&[dir("/w/.clinerules/hooks", Some("/w"))], |p| {
            p == Path::new("/")
        });
        assert_eq!(names(t), vec![("/".into(), Role::Ancestor)]);
    }

    #[test]
    fn a_workspace_without_clinerules_watches_its_root_so_the_folder_appearing_is_seen() {
        let t = targets(&[dir("/w/.clinerules/hooks", Some("/w"))], |p| {
            p == Path::new("/w") || p == Path::new("/")
        });
        assert_eq!(names(t), vec![("/w".into(), Role::Ancestor)]);
    }

    #[test]
    fn a_missing_folder_outside_workspaces_watches_its_nearest_existing_ancestor() {
        let existing = ["/", "/home", "/home/u", "/home/u/Hooks"];
        let on = |p: &Path| existing.iter().any(|e| Path::new(e) == p);
        assert_eq!(
            names(targets(&[dir("/home/u/Hooks", None)], on)),
            vec![
                ("/home/u/Hooks".into(), Role::Folder),
                ("/home/u".into(), Role::Ancestor)
            ]
        );
        assert_eq!(
            names(targets(&[dir("/home/u/Documents/Cline/Hooks", None)], on)),
            vec![("/home/u".into(), Role::Ancestor)]
        );
    }

    #[test]
    fn a_folder_that_is_also_an_ancestor_is_watched_once_as_a_folder() {
        let existing = ["/a", "/"];
        let on = |p: &Path| existing.iter().any(|e| Path::new(e) == p);
        let t = targets(&[dir("/a/b", None), dir("/a", None)], on);
        assert_eq!(
            names(t),
            vec![("/a".into(), Role::Folder), ("/".into(), Role::Ancestor)]
        );
    }
}
