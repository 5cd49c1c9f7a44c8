//! The order the `cli` profile runs one hook's files in: the Cline SDK's. The SDK sorts the files
//! of all its folders together by full path with JavaScript's `localeCompare`, which is ICU's
//! root collation (letters first, case second: `pretooluse.js` before `PreToolUse.sh`), and
//! that order decides whose `overrideInput` wins and the order contexts are joined in.
//!
//! The collation here is that one, exact for printable ASCII (what hook names, `.cline`,
//! `.clinerules` and most folders are made of), and close for the rest: a Latin letter with an
//! accent sorts with its base letter, every other character after all ASCII letters by its
//! lower case's code point (scripts in block order: Latin, Greek, Cyrillic, ..., Han).
//! ICU's tables would make the addon half as big again; paths that differ only in such
//! characters are the rare case it would serve.

use std::cmp::Ordering;
use std::path::Path;

use super::{DiscoveredHook, Source};

/// The primary weight of each printable ASCII character (U+0020 to U+007E) in ICU's root
/// collation: its rank under `new Intl.Collator('en', { sensitivity: 'base' })` in Node 20
/// (ICU 78), where a letter and its capital share one. The order: `` _-,;:!?.'"()[]{}@*/\&#%`^+<=>|~$``,
/// digits, letters.
const ASCII_PRIMARY: [u8; 95] = [
    0, 6, 10, 22, 32, 23, 21, 9, 11, 12, 18, 26, 3, 2, 8, 19, 33, 34, 35, 36, 37, 38, 39, 40, 41,
    42, 5, 4, 27, 28, 29, 7, 17, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58,
    59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 13, 20, 14, 25, 1, 24, 43, 44, 45, 46, 47, 48, 49, 50,
    51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 15, 30, 16, 31,
];

/// The first primary weight after `z`'s.
const AFTER_ASCII: u32 = 69 + BLANKS;

/// How many weights come before the space's: the blanks that are controls (tab to U+0085).
const BLANKS: u32 = 6;

/// The primary weight of a printable ASCII character.
fn ascii_primary(c: u8) -> u32 {
    BLANKS + u32::from(ASCII_PRIMARY[usize::from(c) - 0x20])
}

/// The base letter of each character from U+00C0 to U+017F that is a Latin letter with an
/// accent (its canonical decomposition's first character), `.` for the others.
const LATIN_BASE: &[u8; 192] = b"AAAAAA.CEEEEIIII.NOOOOO..UUUUY..aaaaaa.ceeeeiiii.nooooo..uuuuy.yAaAaAaCcCcCcCcDd..EeEeEeEeEeGgGgGgGgHh..IiIiIiIiI...JjKk.LlLlLl....NnNnNn...OoOoOo..RrRrRrSsSsSsSsTtTt..UuUuUuUuUuUuWwYyYZzZzZz.";

/// A character's weights at the three levels: primary (what it is), secondary (its accent),
/// tertiary (its case); `None` where the collation passes over it at that level (a control
/// character at every level, a combining accent at the first and the third).
fn weights(c: char) -> [Option<u32>; 3] {
    let case = Some(u32::from(c.is_uppercase()));
    if (' '..='~').contains(&c) {
        return [Some(ascii_primary(c as u8)), Some(0), case];
    }
    // Blanks that are controls come before the space, in this order.
    if let Some(i) = ['\t', '\n', '\u{b}', '\u{c}', '\r', '\u{85}']
        .iter()
        .position(|b| *b == c)
    {
        return [Some(i as u32), Some(0), case];
    }
    if c.is_control() {
        return [None; 3];
    }
    if ('\u{300}'..='\u{36f}').contains(&c) {
        return [None, Some(c as u32), None];
    }
    let base = (c as usize)
        .checked_sub(0xC0)
        .and_then(|i| LATIN_BASE.get(i))
        .filter(|b| **b != b'.');
    if let Some(base) = base {
        let primary = ascii_primary(*base);
        return [Some(primary), Some(c as u32), case];
    }
    let lower = c.to_lowercase().next().unwrap_or(c);
    [Some(AFTER_ASCII + lower as u32), Some(0), case]
}

/// `a` against `b` as `a.localeCompare(b)` orders them in a Node or Bun whose locale does not
/// reorder letters (`en`, the root; `sv` puts `å` after `z`, and such a locale is not
/// followed): the characters' primary weights first, then their accents, then their case.
/// Paths are compared as the text Node reads them as (bytes that are not UTF-8 become U+FFFD).
/// Exact for printable ASCII; see the module's comment for the rest. Paths it finds equal
/// (differing only in control characters) are `Equal`. Pure.
pub fn sdk_path_order(a: &Path, b: &Path) -> Ordering {
    let (a, b) = (a.to_string_lossy(), b.to_string_lossy());
    // Each character weighs the same wherever it stands, so a common start counts for nothing
    // (paths of one hook share most of theirs).
    let mut same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(same) {
        same -= 1;
    }
    let (a, b) = (&a[same..], &b[same..]);
    (0..3)
        .map(|i| level(a, i).cmp(level(b, i)))
        .find(|order| order.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// The weights of `text` at level `i`.
fn level(text: &str, i: usize) -> impl Iterator<Item = u32> + '_ {
    text.chars().filter_map(move |c| weights(c)[i])
}

/// Puts one hook's files in the `cli` profile's run order: the managed folder's first (they
/// are the administrator's, and the SDK has no such folder), then every other file in
/// [`sdk_path_order`], whichever folder it is in; Claude settings handlers last, as found. The sort is stable, as JavaScript's is: files
/// whose paths the collation finds equal keep the order of their folders and, within a folder,
/// of their names' bytes (the order Node lists a folder in). Pure.
pub fn sort_for_cli(hooks: &mut [DiscoveredHook]) {
    hooks.sort_by(|a, b| {
        let managed = |h: &DiscoveredHook| h.source != Source::Managed;
        // Claude settings handlers run after every hook file, in their files' order.
        let claude = |h: &DiscoveredHook| h.source.is_claude();
        managed(a)
            .cmp(&managed(b))
            .then_with(|| claude(a).cmp(&claude(b)))
            .then_with(|| match claude(a) {
                true => std::cmp::Ordering::Equal,
                false => sdk_path_order(&a.path, &b.path),
            })
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
        // What `localeCompare` gives in Node 20 for these.
        assert_eq!(
            sorted(&[
                "/w/z",
                "/w/1",
                "/w/.x",
                "/w/-a",
                "/w/_a",
                "/w/\u{e4}b",
                "/w/ab",
                "/w/Ab"
            ]),
            [
                "/w/_a",
                "/w/-a",
                "/w/.x",
                "/w/1",
                "/w/ab",
                "/w/Ab",
                "/w/\u{e4}b",
                "/w/z"
            ]
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
        // JavaScript: "a\u0001b".localeCompare("ab") === 0.
        let composed = "/w/ab";
        let decomposed = "/w/a\u{1}b";
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
