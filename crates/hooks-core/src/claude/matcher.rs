//! Claude Code's `matcher`: which tool names (or SessionStart sources, PreCompact triggers,
//! Notification types) a group of handlers applies to. Pure.
//!
//! Claude Code decides by the characters a matcher holds (hooks reference, "Matcher patterns",
//! <https://code.claude.com/docs/en/hooks>):
//! - `*`, `""` or no matcher: everything;
//! - only ASCII letters, digits, `_`, `-`, spaces, `,` and `|`: an exact, case-sensitive name,
//!   or a list of them separated by `|` or `,` with optional spaces around each name
//!   (`Edit|Write`, `Edit, Write`); `mcp__memory` is such a name and matches no tool;
//! - anything else: a JavaScript regular expression tested unanchored (`RegExp.test`), so
//!   `Notebook.*` matches `NotebookEdit` and `Edit.*` matches `NotebookEdit` too.
//!
//! Regular expressions are compiled with `regex_lite`, whose syntax is close to JavaScript's for
//! what matchers use (classes, alternation, `^`/`$`, repetition); lookaround and
//! backreferences, which it lacks, are reported as errors rather than guessed at.

use regex_lite::RegexBuilder;

/// The longest regular expression compiled, in bytes: a matcher is a few tool names, and a
/// longer one is a mistake (or hostile), not worth the memory.
const MAX_PATTERN_LEN: usize = 4096;

/// The compiled program's size bound handed to `regex_lite` (its default is 10 MiB).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// How much of a matcher an error message quotes.
const QUOTE_LEN: usize = 80;

/// A group's matcher, ready to test.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Absent, empty or `*`: everything.
    All,
    /// A plain name or a `|` list of plain names: exactly those.
    Names(Vec<String>),
    /// Any other text: a regular expression.
    Pattern(regex_lite::Regex),
}

impl Matcher {
    /// Whether it applies to `subject`.
    pub fn matches(&self, subject: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|name| name == subject),
            // `is_match` searches anywhere in the subject, as JavaScript's `RegExp.test` does.
            Matcher::Pattern(regex) => regex.is_match(subject),
        }
    }
}

/// Whether Claude Code reads `matcher` as exact names rather than a regular expression.
fn is_plain(matcher: &str) -> bool {
    matcher
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' ' | b',' | b'|'))
}

/// `text` in double quotes for a message, escaped as settings messages are, cut to
/// [`QUOTE_LEN`] characters.
fn quote(text: &str) -> String {
    let mut shown = String::from("\"");
    for c in text.chars().take(QUOTE_LEN) {
        super::settings::escaped(c, &mut shown);
    }
    if text.chars().nth(QUOTE_LEN).is_some() {
        shown.push('…');
    }
    shown.push('"');
    shown
}

/// Compiles a group's matcher; the error says what is wrong, for the settings file's author.
pub fn compile_matcher(matcher: Option<&str>) -> Result<Matcher, String> {
    let text = match matcher {
        None | Some("") | Some("*") => return Ok(Matcher::All),
        Some(text) => text,
    };
    if is_plain(text) {
        let names: Vec<String> = text
            .split(['|', ','])
            .map(|name| name.trim_matches(' '))
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect();
        if names.is_empty() {
            // Claude Code would compare tool names with empty strings: a group that never runs.
            return Err(format!(
                "The matcher {} names no tool, so its handlers would never run; write a tool name \
                 such as \"Bash\" or \"Edit|Write\", or \"*\" for every tool.",
                quote(text)
            ));
        }
        return Ok(Matcher::Names(names));
    }
    if text.len() > MAX_PATTERN_LEN {
        return Err(format!(
            "The matcher {} is {} bytes long, more than the {MAX_PATTERN_LEN} a matcher may be; \
             shorten it to the tool names or the pattern it needs.",
            quote(text),
            text.len()
        ));
    }
    RegexBuilder::new(text)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(Matcher::Pattern)
        .map_err(|err| {
            format!(
                "The matcher {} is read as a regular expression (it has characters other than \
                 letters, digits, `_`, `-`, spaces, `,` and `|`) and is not a valid one: {err}. \
                 Fix the pattern, or list plain tool names such as \"Edit|Write\".",
                quote(text)
            )
        })
}

/// The plain names of a [`Matcher::Names`] that are none of `known`, in the matcher's order and
/// each once (a typo such as `Bsh`, or a Claude tool this runtime has no counterpart for).
/// Empty for [`Matcher::All`] and [`Matcher::Pattern`], which name no particular tool.
pub fn unknown_names(matcher: &Matcher, known: &[&str]) -> Vec<String> {
    let Matcher::Names(names) = matcher else {
        return Vec::new();
    };
    let mut unknown: Vec<String> = Vec::new();
    for name in names {
        if !known.contains(&name.as_str()) && !unknown.contains(name) {
            unknown.push(name.clone());
        }
    }
    unknown
}

/// The longest name [`closest_name`] compares: tool names are short, and the comparison is
/// quadratic in the lengths.
const MAX_COMPARED_LEN: usize = 64;

/// The one of `known` that `name` most likely misspells, for a "did you mean" hint: one that
/// differs only in case first, else the nearest within two edits (insertions, deletions,
/// substitutions, counted without case), the first such in `known` on a tie. `None` when
/// nothing is that close, or when `name` is itself known.
pub fn closest_name<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if known.contains(&name) {
        return None;
    }
    if let Some(same) = known.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    if name.chars().count() > MAX_COMPARED_LEN {
        return None;
    }
    let lower: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in known {
        if candidate.chars().count() > MAX_COMPARED_LEN {
            continue;
        }
        let other: Vec<char> = candidate.chars().flat_map(char::to_lowercase).collect();
        let distance = edit_distance(&lower, &other);
        if distance <= 2 && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Levenshtein distance between `a` and `b`, one row at a time.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn compiled(matcher: &str) -> Matcher {
        match compile_matcher(Some(matcher)) {
            Ok(m) => m,
            Err(err) => panic!("{matcher:?} did not compile: {err}"),
        }
    }

    fn names(matcher: &str) -> Vec<String> {
        match compiled(matcher) {
            Matcher::Names(names) => names,
            other => panic!("{matcher:?} compiled to {other:?}, not names"),
        }
    }

    #[test]
    fn absent_empty_and_star_match_everything() {
        for matcher in [None, Some(""), Some("*")] {
            let m = compile_matcher(matcher).unwrap();
            assert!(matches!(m, Matcher::All), "{matcher:?}");
            for subject in ["Bash", "", "mcp__x__y", "startup", "ünïcode"] {
                assert!(m.matches(subject));
            }
        }
    }

    #[test]
    fn a_plain_name_matches_exactly_and_case_sensitively() {
        let m = compiled("Bash");
        assert!(m.matches("Bash"));
        for subject in ["bash", "BASH", "BashOutput", "KillBash", "Bas", " Bash", ""] {
            assert!(!m.matches(subject), "{subject:?}");
        }
    }

    #[test]
    fn a_pipe_list_matches_each_name_exactly() {
        let m = compiled("Edit|Write");
        assert_eq!(names("Edit|Write"), ["Edit", "Write"]);
        assert!(m.matches("Edit") && m.matches("Write"));
        for subject in ["NotebookEdit", "Edit|Write", "edit", "Read", "MultiEdit"] {
            assert!(!m.matches(subject), "{subject:?}");
        }
    }

    #[test]
    fn commas_and_spaces_separate_names_too() {
        assert_eq!(names("Edit, Write"), ["Edit", "Write"]);
        assert_eq!(names(" Edit ,Write | Read "), ["Edit", "Write", "Read"]);
        assert_eq!(names("Bash||Read,"), ["Bash", "Read"]);
        assert!(compiled("Edit, Write").matches("Write"));
    }

    #[test]
    fn hyphens_and_inner_spaces_stay_part_of_a_name() {
        assert_eq!(names("code-reviewer"), ["code-reviewer"]);
        assert!(compiled("code-reviewer").matches("code-reviewer"));
        assert!(!compiled("code-reviewer").matches("code"));
        assert_eq!(names("my agent|Explore"), ["my agent", "Explore"]);
    }

    #[test]
    fn a_server_prefix_alone_is_an_exact_name_that_matches_no_tool() {
        let m = compiled("mcp__memory");
        assert!(matches!(m, Matcher::Names(_)));
        assert!(!m.matches("mcp__memory__create_entities"));
    }

    #[test]
    fn session_sources_and_triggers_are_names() {
        assert!(compiled("startup|resume").matches("resume"));
        assert!(!compiled("startup").matches("compact"));
        assert!(compiled("manual").matches("manual"));
        assert!(compiled("permission_prompt").matches("permission_prompt"));
        assert!(compiled("123").matches("123"));
    }

    #[test]
    fn a_matcher_of_only_separators_is_an_error() {
        for matcher in ["|", ",", " ", " | , ", "||"] {
            let err = compile_matcher(Some(matcher)).unwrap_err();
            assert!(err.contains("names no tool"), "{err}");
        }
    }

    #[test]
    fn other_characters_make_an_unanchored_regex() {
        let m = compiled("Notebook.*");
        assert!(matches!(m, Matcher::Pattern(_)));
        assert!(m.matches("NotebookEdit") && m.matches("NotebookRead"));
        assert!(!m.matches("Edit"));
        // Unanchored, as `RegExp.test`: `Edit.*` finds `Edit` inside `NotebookEdit`.
        assert!(compiled("Edit.*").matches("NotebookEdit"));
        assert!(compiled("Edit.*").matches("MultiEdit"));
        let mcp = compiled("mcp__memory__.*");
        assert!(mcp.matches("mcp__memory__create_entities"));
        assert!(!mcp.matches("mcp__github__search"));
        assert!(compiled("mcp__.*__write.*").matches("mcp__filesystem__write_file"));
    }

    #[test]
    fn anchors_are_honoured_when_written() {
        let m = compiled("^Bash$");
        assert!(m.matches("Bash"));
        assert!(!m.matches("BashOutput") && !m.matches("KillBash"));
        let prefix = compiled("^Notebook");
        assert!(prefix.matches("NotebookEdit") && !prefix.matches("MyNotebook"));
        assert!(compiled("Output$").matches("BashOutput"));
    }

    #[test]
    fn regexes_are_case_sensitive() {
        assert!(!compiled("bash.*").matches("Bash"));
        assert!(compiled("(?i)bash.*").matches("Bash"));
        assert!(!compiled(".*write.*").matches("Write"));
    }

    #[test]
    fn a_regex_alternation_with_a_dot_is_still_a_regex() {
        let m = compiled("Edit|Write|mcp__.*");
        assert!(matches!(m, Matcher::Pattern(_)));
        assert!(m.matches("Edit") && m.matches("mcp__x__y"));
        // Unanchored alternation: `Edit` is found inside `NotebookEdit`.
        assert!(m.matches("NotebookEdit"));
    }

    #[test]
    fn permission_rule_syntax_is_a_regex_that_never_matches_a_bare_name() {
        // Claude Code reads `Bash(git *)` as a regex too; it cannot match the name `Bash`.
        let m = compiled("Bash(git *)");
        assert!(!m.matches("Bash"));
    }

    #[test]
    fn an_invalid_regex_is_an_error_quoting_the_matcher_and_the_cause() {
        let err = compile_matcher(Some("Edit(")).unwrap_err();
        assert!(err.contains("\"Edit(\""), "{err}");
        assert!(err.contains("not a valid one"), "{err}");
        let err = compile_matcher(Some("[Bash")).unwrap_err();
        assert!(err.contains("\"[Bash\""), "{err}");
        // JavaScript lookaround, which regex_lite lacks, is reported, not guessed at.
        assert!(compile_matcher(Some("(?!Bash).*")).is_err());
    }

    #[test]
    fn a_huge_regex_is_refused_and_the_quote_is_cut() {
        let huge = format!("{}.*", "a".repeat(MAX_PATTERN_LEN));
        let err = compile_matcher(Some(&huge)).unwrap_err();
        assert!(err.contains("bytes long"), "{err}");
        assert!(err.len() < 400, "{err}");
        // A long list of plain names needs no regex and is fine.
        let many = vec!["Bash"; 5000].join("|");
        assert!(compiled(&many).matches("Bash"));
    }

    #[test]
    fn a_regex_too_big_to_compile_is_an_error() {
        let err = compile_matcher(Some("(\\w{1000}){1000}")).unwrap_err();
        assert!(err.contains("regular expression"), "{err}");
    }

    #[test]
    fn control_characters_in_a_quoted_matcher_are_escaped() {
        let err = compile_matcher(Some("Edit(\n\u{1b}")).unwrap_err();
        assert!(!err.contains('\n') && !err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn non_ascii_letters_make_a_regex() {
        let m = compiled("Écrire");
        assert!(matches!(m, Matcher::Pattern(_)));
        assert!(m.matches("Écrire") && m.matches("xÉcrire"));
    }

    #[test]
    fn unknown_names_lists_names_that_are_not_known_once_each() {
        let known = ["Bash", "Read", "Edit", "Write"];
        assert_eq!(
            unknown_names(&compiled("Bsh|Read|Grep|Bsh"), &known),
            ["Bsh", "Grep"]
        );
        assert!(unknown_names(&compiled("Edit|Write"), &known).is_empty());
        // Case matters, as it does when matching.
        assert_eq!(unknown_names(&compiled("bash"), &known), ["bash"]);
        assert!(unknown_names(&compiled("*"), &known).is_empty());
        assert!(unknown_names(&compiled("Bsh.*"), &known).is_empty());
    }

    #[test]
    fn closest_name_suggests_a_case_fix_or_a_near_miss() {
        let known = ["Bash", "Read", "Edit", "Write", "WebFetch"];
        assert_eq!(closest_name("bash", &known), Some("Bash"));
        assert_eq!(closest_name("Bsh", &known), Some("Bash"));
        assert_eq!(closest_name("Wrte", &known), Some("Write"));
        assert_eq!(closest_name("webfetc", &known), Some("WebFetch"));
        assert_eq!(closest_name("Bash", &known), None);
        assert_eq!(closest_name("Grep", &known), None);
        assert_eq!(closest_name(&"x".repeat(10_000), &known), None);
        assert_eq!(closest_name("", &[]), None);
    }

    #[test]
    fn edit_distance_counts_edits() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(edit_distance(&chars("kitten"), &chars("sitting")), 3);
        assert_eq!(edit_distance(&chars(""), &chars("abc")), 3);
        assert_eq!(edit_distance(&chars("abc"), &chars("")), 3);
        assert_eq!(edit_distance(&chars("same"), &chars("same")), 0);
    }

    proptest! {
        #[test]
        fn compiling_and_matching_arbitrary_text_never_panics(matcher in any::<String>(), subject in any::<String>()) {
            if let Ok(m) = compile_matcher(Some(&matcher)) {
                let _ = m.matches(&subject);
                let _ = unknown_names(&m, &["Bash", "Edit"]);
            }
            let _ = closest_name(&matcher, &["Bash", subject.as_str()]);
        }

        #[test]
        fn regex_like_text_never_panics(matcher in "[a-zA-Z0-9_|.*+?()\\[\\]{}^$\\\\ ,-]{0,40}", subject in "[a-zA-Z_]{0,20}") {
            if let Ok(m) = compile_matcher(Some(&matcher)) {
                let _ = m.matches(&subject);
            }
        }

        #[test]
        fn every_listed_plain_name_matches_itself(names in proptest::collection::vec("[A-Za-z0-9_-]{1,12}", 1..6)) {
            let m = compiled(&names.join("|"));
            for name in &names {
                prop_assert!(m.matches(name));
            }
            prop_assert!(unknown_names(&m, &names.iter().map(String::as_str).collect::<Vec<_>>()).is_empty());
        }

        #[test]
        fn a_plain_name_matches_only_itself(name in "[A-Za-z0-9_]{1,12}", other in "[A-Za-z0-9_]{0,12}") {
            let m = compiled(&name);
            prop_assert_eq!(m.matches(&other), other == name);
        }
    }
}
