//! `CLINE_BUILD_ENV`, which the Cline SDK sets for every hook it starts (`development` or
//! `production`), so the `cli` profile sets it too, by the SDK's rule.

use std::ffi::{OsStr, OsString};

use crate::verdict::is_js_space;

/// The variable's name.
pub const BUILD_ENV_VAR: &str = "CLINE_BUILD_ENV";

/// A value as the SDK reads it: trimmed as JavaScript trims, in lower case.
fn as_read(value: &OsStr) -> String {
    value
        .to_string_lossy()
        .trim_matches(is_js_space)
        .to_lowercase()
}

/// Whether a value names a build as the SDK reads it (`development` or `production`, trimmed,
/// in any case).
fn names_a_build(value: &OsStr) -> bool {
    let value = as_read(value);
    value == "development" || value == "production"
}

/// The SDK's rule (`withResolvedClineBuildEnv` in `@cline/shared` 0.0.86): a value the hook
/// would get anyway is kept when it names a build; else `NODE_ENV` decides when it is
/// `production` or `development`; else `development` when the host was started with the Node
/// condition `development` (`--conditions=development`), and `production` otherwise. `get`
/// reads the hook's environment as it would be without this variable. Returns the value to
/// add, or `None` to keep the one it has. Pure.
pub fn build_env_to_add(
    get: impl Fn(&str) -> Option<OsString>,
    development_condition: bool,
) -> Option<&'static str> {
    if get(BUILD_ENV_VAR).is_some_and(|value| names_a_build(&value)) {
        return None;
    }
    let node_env = get("NODE_ENV").map(|v| as_read(&v));
    Some(match node_env.as_deref() {
        Some("production") => "production",
        Some("development") => "development",
        _ if development_condition => "development",
        _ => "production",
    })
}

/// Whether a Node host's `process.execArgv` asks for the condition `development`
/// (`--conditions=development`, `--conditions development`, or a list holding it), as the SDK
/// reads it. Pure.
pub fn has_development_condition(exec_argv: &[String]) -> bool {
    exec_argv.iter().enumerate().any(|(i, arg)| {
        let arg = arg.trim_matches(is_js_space);
        if arg == "--conditions" {
            return exec_argv
                .get(i + 1)
                .is_some_and(|next| next.trim_matches(is_js_space) == "development");
        }
        arg.strip_prefix("--conditions=").is_some_and(|list| {
            list.split(',')
                .any(|c| c.trim_matches(is_js_space) == "development")
        })
    })
}

/// What a hook's environment holds for `name`: the run's `env` (its last entry for the name),
/// else nothing when the run removes it (`scrubEnv`), else the host's. Names compare without
/// case on Windows, as its environment does.
pub fn hook_variable(
    name: &str,
    add: &[(OsString, OsString)],
    remove: &[OsString],
    host: impl Fn(&str) -> Option<OsString>,
) -> Option<OsString> {
    let same = |a: &OsStr| {
        if cfg!(windows) {
            a.to_string_lossy().eq_ignore_ascii_case(name)
        } else {
            a == name
        }
    };
    if let Some((_, value)) = add.iter().rev().find(|(n, _)| same(n)) {
        return Some(value.clone());
    }
    if remove.iter().any(|n| same(n)) {
        return None;
    }
    host(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn a_value_naming_a_build_is_kept_in_any_case() {
        for kept in [
            "development",
            "production",
            " Production ",
            "DEVELOPMENT",
            "\u{feff}development",
        ] {
            assert_eq!(
                build_env_to_add(env(&[(BUILD_ENV_VAR, kept)]), true),
                None,
                "{kept}"
            );
        }
    }

    #[test]
    fn otherwise_node_env_decides_then_the_condition_then_production() {
        let cases = [
            (
                vec![(BUILD_ENV_VAR, "staging"), ("NODE_ENV", "development")],
                false,
                "development",
            ),
            (vec![("NODE_ENV", " Production")], true, "production"),
            (vec![("NODE_ENV", "test")], true, "development"),
            (vec![("NODE_ENV", "test")], false, "production"),
            (vec![], false, "production"),
            (vec![], true, "development"),
            // JavaScript's trim keeps U+0085 (Rust's would take it).
            (vec![("NODE_ENV", "development\u{85}")], false, "production"),
        ];
        for (vars, condition, want) in cases {
            assert_eq!(
                build_env_to_add(env(&vars), condition),
                Some(want),
                "{vars:?} {condition}"
            );
        }
    }

    #[test]
    fn the_development_condition_in_each_spelling() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(has_development_condition(&args(&[
            "--conditions=development"
        ])));
        assert!(has_development_condition(&args(&[
            "--conditions",
            "development"
        ])));
        assert!(has_development_condition(&args(&[
            "--conditions=browser, development"
        ])));
        assert!(!has_development_condition(&args(&[
            "--conditions=production"
        ])));
        assert!(!has_development_condition(&args(&["--conditions"])));
        assert!(!has_development_condition(&args(&["-C", "development"])));
    }

    #[test]
    fn the_hooks_value_is_the_runs_then_none_when_scrubbed_then_the_hosts() {
        let host = env(&[("NODE_ENV", "production")]);
        let add = vec![(OsString::from("NODE_ENV"), OsString::from("development"))];
        assert_eq!(
            hook_variable("NODE_ENV", &add, &[], &host),
            Some("development".into())
        );
        assert_eq!(
            hook_variable("NODE_ENV", &[], &["NODE_ENV".into()], &host),
            None
        );
        assert_eq!(
            hook_variable("NODE_ENV", &[], &[], &host),
            Some("production".into())
        );
    }
}
