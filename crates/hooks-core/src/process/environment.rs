//! What of the host's environment a hook does not get (`scrubEnv`): the variables whose names
//! look like credentials, or the names the caller gives; the rule, and the list of names one
//! run removes, worked out once from the host's environment.

use std::ffi::{OsStr, OsString};

/// Which inherited variables a run leaves out of its hooks' environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ScrubEnv {
    /// None: hooks inherit the whole environment (the default).
    #[default]
    Off,
    /// Those whose names look like credentials (see [`looks_like_credential`]).
    Credentials,
    /// Exactly these names (without case on Windows, as its environment is).
    Names(Vec<OsString>),
}

/// Names that hold a credential wherever they appear in a name, in any case.
const CREDENTIAL_WORDS: [&str; 9] = [
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
];

/// Endings of names that hold a credential: a key, a personal access token (`GH_PAT`,
/// `AZURE_DEVOPS_EXT_PAT`), basic auth (`NPM_CONFIG__AUTH`).
const CREDENTIAL_ENDINGS: [&str; 3] = ["_KEY", "_PAT", "_AUTH"];

/// Beginnings of names of cloud accounts, every one of whose variables can hold or point at
/// a credential (`AWS_SESSION_TOKEN`, `AZURE_CLIENT_SECRET`, `AWS_PROFILE`).
const CREDENTIAL_PREFIXES: [&str; 2] = ["AWS_", "AZURE_"];

/// Whether variable `name` looks like it holds a credential: it contains (in any case)
/// `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `CREDENTIAL`, `API_KEY`, `APIKEY` or
/// `PRIVATE_KEY`, ends in `_KEY`, `_PAT` or `_AUTH`, or starts with `AWS_` or `AZURE_`. This
/// covers `GOOGLE_APPLICATION_CREDENTIALS`, `NPM_TOKEN`, `GITHUB_TOKEN`, `GH_TOKEN`,
/// `OPENAI_API_KEY` and `ANTHROPIC_API_KEY`.
pub fn looks_like_credential(name: &OsStr) -> bool {
    let upper = name.to_string_lossy().to_uppercase();
    CREDENTIAL_WORDS.iter().any(|w| upper.contains(w))
        || CREDENTIAL_ENDINGS.iter().any(|e| upper.ends_with(e))
        || CREDENTIAL_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The names of `host` (the host's environment variable names) that a run with `scrub` removes
/// from its hooks' environment, except those `added` explicitly (the run's `env`, which always
/// reaches the hook). `ignore_case`: names compare without case, as on Windows.
pub fn names_to_remove(
    host: impl IntoIterator<Item = OsString>,
    scrub: &ScrubEnv,
    added: &[(OsString, OsString)],
    ignore_case: bool,
) -> Vec<OsString> {
    let same = |a: &OsStr, b: &OsStr| {
        if ignore_case {
            a.to_string_lossy().to_uppercase() == b.to_string_lossy().to_uppercase()
        } else {
            a == b
        }
    };
    let wanted = |name: &OsStr| match scrub {
        ScrubEnv::Off => false,
        ScrubEnv::Credentials => looks_like_credential(name),
        ScrubEnv::Names(names) => names.iter().any(|n| same(n, name)),
    };
    let mut removed: Vec<OsString> = host
        .into_iter()
        .filter(|name| wanted(name))
        .filter(|name| !added.iter().any(|(a, _)| same(a, name)))
        .collect();
    removed.sort();
    removed.dedup();
    removed
}

/// [`names_to_remove`] from this process's environment, as this system compares names.
pub fn host_names_to_remove(scrub: &ScrubEnv, added: &[(OsString, OsString)]) -> Vec<OsString> {
    if *scrub == ScrubEnv::Off {
        return Vec::new();
    }
    names_to_remove(
        std::env::vars_os().map(|(name, _)| name),
        scrub,
        added,
        cfg!(windows),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(names: &[&str]) -> Vec<OsString> {
        names.iter().map(OsString::from).collect()
    }

    #[test]
    fn credential_names_are_recognised_in_any_case() {
        for name in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "NPM_TOKEN",
            "npm_config_//registry.npmjs.org/:_authToken",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AWS_ACCESS_KEY_ID",
            "AWS_PROFILE",
            "AZURE_CLIENT_SECRET",
            "azure_tenant_id",
            "DB_PASSWORD",
            "MYSQL_PWD_PASSWD",
            "GPG_PASSPHRASE",
            "client_secret",
            "STRIPE_APIKEY",
            "SSH_PRIVATE_KEY_FILE",
            "SIGNING_KEY",
            "GH_PAT",
            "NPM_CONFIG__AUTH",
            "Docker_Credential_Helper",
        ] {
            assert!(looks_like_credential(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn ordinary_names_are_kept() {
        for name in [
            "PATH",
            "HOME",
            "USERPROFILE",
            "LANG",
            "TERM",
            "SSH_AUTH_SOCK",
            "KEYBOARD",
            "LESSKEY",
            "GIT_AUTHOR_NAME",
            "XAUTHORITY",
            "PATHEXT",
            "NODE_OPTIONS",
            "CLINE_HOOKS_START",
            "KEY_ID",
        ] {
            assert!(!looks_like_credential(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn off_removes_nothing_and_credentials_remove_the_credential_names() {
        let host = os(&["PATH", "GITHUB_TOKEN", "HOME", "OPENAI_API_KEY"]);
        assert!(names_to_remove(host.clone(), &ScrubEnv::Off, &[], false).is_empty());
        assert_eq!(
            names_to_remove(host, &ScrubEnv::Credentials, &[], false),
            os(&["GITHUB_TOKEN", "OPENAI_API_KEY"])
        );
    }

    #[test]
    fn a_list_removes_exactly_its_names_with_case_only_where_the_system_ignores_it() {
        let host = os(&["PATH", "GITHUB_TOKEN", "My_Var", "OTHER"]);
        let scrub = ScrubEnv::Names(os(&["my_var", "PATH"]));
        assert_eq!(
            names_to_remove(host.clone(), &scrub, &[], false),
            os(&["PATH"])
        );
        assert_eq!(
            names_to_remove(host, &scrub, &[], true),
            os(&["My_Var", "PATH"])
        );
    }

    #[test]
    fn what_env_adds_is_never_removed() {
        let host = os(&["GITHUB_TOKEN", "NPM_TOKEN"]);
        let added = vec![(OsString::from("github_token"), OsString::from("x"))];
        assert_eq!(
            names_to_remove(host.clone(), &ScrubEnv::Credentials, &added, true),
            os(&["NPM_TOKEN"])
        );
        assert_eq!(
            names_to_remove(host, &ScrubEnv::Credentials, &added, false),
            os(&["GITHUB_TOKEN", "NPM_TOKEN"])
        );
    }
}
