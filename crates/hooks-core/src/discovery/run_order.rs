//! The order the `cli` profile runs one hook's files in: the Cline SDK's. The SDK sorts the files
//! of all its folders together by full path with JavaScript's `localeCompare`, which is ICU's
//! root collation (letters first, case second: `pretooluse.js` before `PreToolUse.sh`), and
//! that order decides whose `overrideInput` wins and the order contexts are joined in.

use std::cmp::Ordering;
use std::path::Path;
use std::sync::OnceLock;

use icu_collator::options::CollatorOptions;
use icu_collator::{Collator, CollatorBorrowed};

use super::{DiscoveredHook, Source};

/// The root collation, made once (its data is compiled in).
fn collator() -> Option<&'static CollatorBorrowed<'static>> {
    static ROOT: OnceLock<Option<CollatorBorrowed<'static>>> = OnceLock::new();
    ROOT.get_or_init(|| Collator::try_new(Default::default(), CollatorOptions::default()).ok())
        .as_ref()
}

/// `a` against `b` as `a.localeCompare(b)` orders them in a Node or Bun whose locale does not
/// reorder letters (`en`, the root; `sv` puts `å` after `z`, and such a locale is not followed).
/// Paths are compared as the text Node reads them as (bytes that are not UTF-8 become U+FFFD).
/// Paths the collation finds equal (`é` composed or not, a U+FEFF inside) are `Equal`. Han
/// ideographs are ordered as Unicode 16's root collation orders them; ICU 78 (Node 20.20 and
/// later) orders them by radical and stroke, so paths that differ only there may sort otherwise
/// than such a host's `localeCompare`. Pure.
pub fn sdk_path_order(a: &Path, b: &Path) -> Ordering {
    match collator() {
        Some(collator) => collator.compare(&a.to_string_lossy(), &b.to_string_lossy()),
        None => a.cmp(b),
    }
}

/// Puts one hook's files in the `cli` profile's run order: the managed folder's first (they
/// are the administrator's, and the SDK has no such folder), then every other file in
/// [`sdk_path_order`], whichever folder it is in. The sort is stable, as JavaScript's is: files
/// whose paths the collation finds equal keep the order of their folders and, within a folder,
/// of their names' bytes (the order Node lists a folder in). Pure.
pub fn sort_for_cli(hooks: &mut [DiscoveredHook]) {
    hooks.sort_by(|a, b| {
        let managed = |h: &DiscoveredHook| h.source != Source::Managed;
        managed(a)
            .cmp(&managed(b))
            .then_with(|| sdk_path_order(&a.path, &b.path))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(paths: &[&str]) -> Vec<String> {
        let mut paths: Vec<&Path> = paths.iter().map(Path::new).collect();
        paths.sort_by(|a, b| sdk_path_order(a, b));
        paths
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn letters_come_before_case_and_punctuation_before_letters() {
        assert_eq!(
            sorted(&[
                "/w/PreToolUse.sh",
                "/w/pretooluse.js",
                "/w/B",
                "/w/a",
                "/w/A",
                "/w/b"
            ]),
            [
                "/w/a",
                "/w/A",
                "/w/b",
                "/w/B",
                "/w/pretooluse.js",
                "/w/PreToolUse.sh"
            ]
        );
        // What `localeCompare` gives in Node 20 (ICU 74) for these, checked by hand there.
        assert_eq!(
            sorted(&["/w/z", "/w/1", "/w/.x", "/w/-a", "/w/_a", "/w/ä", "/w/å"]),
            ["/w/_a", "/w/-a", "/w/.x", "/w/1", "/w/å", "/w/ä", "/w/z"]
        );
    }

    #[test]
    fn the_whole_path_counts_not_the_folder_first() {
        // The SDK sorts files of all folders together: a global folder is not ahead of a
        // workspace's because it was searched first.
        assert_eq!(
            sorted(&[
                "/home/u/Documents/Cline/Hooks/PreToolUse",
                "/home/u/app/.clinerules/hooks/PreToolUse"
            ]),
            [
                "/home/u/app/.clinerules/hooks/PreToolUse",
                "/home/u/Documents/Cline/Hooks/PreToolUse"
            ]
        );
    }

    #[test]
    fn paths_equal_to_the_collation_keep_their_discovery_order() {
        let composed = "/w/\u{e9}";
        let decomposed = "/w/e\u{301}";
        assert_eq!(
            sdk_path_order(Path::new(composed), Path::new(decomposed)),
            Ordering::Equal
        );
        let mut hooks: Vec<DiscoveredHook> = [decomposed, "/a", composed]
            .iter()
            .map(|p| DiscoveredHook::sample(p))
            .collect();
        sort_for_cli(&mut hooks);
        let paths: Vec<&Path> = hooks.iter().map(|h| h.path.as_path()).collect();
        assert_eq!(
            paths,
            [Path::new("/a"), Path::new(decomposed), Path::new(composed)]
        );
    }

    #[test]
    fn managed_hooks_stay_first() {
        let mut hooks = vec![
            DiscoveredHook::sample("/a/PreToolUse"),
            DiscoveredHook {
                source: Source::Managed,
                ..DiscoveredHook::sample("/z/PreToolUse")
            },
        ];
        sort_for_cli(&mut hooks);
        assert_eq!(hooks[0].path, Path::new("/z/PreToolUse"));
    }
}
