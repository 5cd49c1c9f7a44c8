//! What the policy store holds: the hook files the user approved (path -> sha256 of the bytes
//! approved) and the ones they disabled, and its JSON form. Pure: parsing and printing only;
//! policy_file.rs reads and writes it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

/// The format version written; a file of a later version is refused, never half-read.
pub const POLICY_VERSION: u64 = 1;

/// The store's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Approved hook files: [`key`] of the path -> lowercase hex sha256 of the approved bytes.
    pub approved: BTreeMap<String, String>,
    /// Disabled hook files, by [`key`] of the path.
    pub disabled: BTreeSet<String>,
    /// Top-level fields this version does not know, kept as they were when the file is
    /// rewritten (a newer tool's additions survive an older one's edit).
    pub other: Map<String, Value>,
}

impl Policy {
    /// The digest approved for `path`, if any.
    pub fn approval(&self, path: &Path) -> Option<&str> {
        self.approved.get(&key(path)).map(String::as_str)
    }

    /// Whether the user disabled `path`.
    pub fn is_disabled(&self, path: &Path) -> bool {
        self.disabled.contains(&key(path))
    }

    /// The store as the file holds it: pretty JSON with a final newline, keys sorted.
    pub fn to_json(&self) -> String {
        let mut out = Map::new();
        out.insert("version".into(), POLICY_VERSION.into());
        out.insert(
            "approved".into(),
            Value::Object(
                self.approved
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                    .collect(),
            ),
        );
        out.insert(
            "disabled".into(),
            Value::Array(
                self.disabled
                    .iter()
                    .map(|p| Value::from(p.as_str()))
                    .collect(),
            ),
        );
        for (k, v) in &self.other {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let mut text =
            serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}

/// How a hook's path is written in the store: its real path (see
/// [`crate::policy::real_path`]); on Windows, where paths ignore case, in lower case so one file
/// has one key.
pub fn key(path: &Path) -> String {
    key_text(&path.to_string_lossy())
}

/// [`key`] of a path already in text (a key read from the file, which a person may have
/// written in another case).
fn key_text(text: &str) -> String {
    if cfg!(windows) {
        text.to_lowercase()
    } else {
        text.to_owned()
    }
}

/// Whether `digest` is a sha256 as the store keeps it: 64 lowercase hex digits.
pub fn is_sha256(digest: &str) -> bool {
    digest.len() == 64
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The store from the file's bytes, or what is wrong with them (a sentence fragment that
/// follows the file's path: "is not valid JSON (...)"). An empty file is an empty store.
pub fn parse(bytes: &[u8]) -> Result<Policy, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Policy::default());
    }
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("is not valid JSON ({e})"))?;
    let Value::Object(mut object) = value else {
        return Err(format!(
            "must hold a JSON object such as {{\"version\": 1, \"approved\": {{}}, \"disabled\": []}}, not {}",
            kind_of(&value)
        ));
    };
    match object.remove("version") {
        None => {}
        Some(Value::Number(n)) if n.as_u64() == Some(POLICY_VERSION) => {}
        Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v > POLICY_VERSION) => {
            return Err(format!(
                "was written by a newer version of @cline/hooks (format version {n}); update @cline/hooks"
            ))
        }
        Some(other) => {
            return Err(format!(
                "has \"version\": {other}; the only version is {POLICY_VERSION}"
            ))
        }
    }
    let mut policy = Policy::default();
    match object.remove("approved") {
        None => {}
        Some(Value::Object(approved)) => {
            for (path, digest) in approved {
                match digest {
                    Value::String(d) if is_sha256(&d) => {
                        policy.approved.insert(key_text(&path), d);
                    }
                    other => {
                        return Err(format!(
                            "approves {} with {}, which is not a sha256 (64 lowercase hex digits)",
                            crate::error::quoted(&path),
                            crate::error::quoted(&other.to_string())
                        ))
                    }
                }
            }
        }
        Some(other) => {
            return Err(format!(
                "has \"approved\" as {}; it must be an object of hook paths to sha256 digests",
                kind_of(&other)
            ))
        }
    }
    match object.remove("disabled") {
        None => {}
        Some(Value::Array(paths)) => {
            for path in paths {
                match path {
                    Value::String(p) => {
                        policy.disabled.insert(key_text(&p));
                    }
                    other => {
                        return Err(format!(
                            "lists {} in \"disabled\", which is not a path; it must be an array of hook paths",
                            kind_of(&other)
                        ))
                    }
                }
            }
        }
        Some(other) => {
            return Err(format!(
                "has \"disabled\" as {}; it must be an array of hook paths",
                kind_of(&other)
            ))
        }
    }
    policy.other = object;
    Ok(policy)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn a_store_survives_printing_and_parsing_with_unknown_fields_kept() {
        let mut policy = Policy::default();
        let pre_tool_use = key(Path::new("/w/.clinerules/hooks/PreToolUse"));
        policy.approved.insert(pre_tool_use, DIGEST.into());
        policy
            .disabled
            .insert(key(Path::new("/w/.clinerules/hooks/TaskStart")));
        policy.other.insert("note".into(), "kept".into());
        let text = policy.to_json();
        assert!(text.ends_with("}\n"), "{text}");
        assert_eq!(parse(text.as_bytes()).unwrap(), policy);
        assert_eq!(
            policy.approval(Path::new("/w/.clinerules/hooks/PreToolUse")),
            Some(DIGEST)
        );
        assert!(policy.is_disabled(Path::new("/w/.clinerules/hooks/TaskStart")));
    }

    #[test]
    fn an_empty_file_is_an_empty_store_and_fields_may_be_missing() {
        assert_eq!(parse(b"").unwrap(), Policy::default());
        assert_eq!(parse(b" \n").unwrap(), Policy::default());
        assert_eq!(parse(b"{}").unwrap(), Policy::default());
    }

    #[test]
    fn every_wrong_shape_is_refused_with_what_is_wrong() {
        let cases: [(&[u8], &str); 9] = [
            (b"{", "is not valid JSON"),
            (b"\xff\xfe{}", "is not valid JSON"),
            (b"[]", "not an array"),
            (b"{\"version\": 2}", "newer version"),
            (b"{\"version\": \"1\"}", "the only version is 1"),
            (b"{\"approved\": []}", "\"approved\" as an array"),
            (b"{\"approved\": {\"/a\": \"ABC\"}}", "not a sha256"),
            (b"{\"disabled\": {}}", "\"disabled\" as an object"),
            (b"{\"disabled\": [1]}", "a number in \"disabled\""),
        ];
        for (bytes, expected) in cases {
            let why = parse(bytes).unwrap_err();
            assert!(why.contains(expected), "{why}");
        }
    }

    #[test]
    fn only_lowercase_hex_of_the_right_length_is_a_digest() {
        assert!(is_sha256(DIGEST));
        assert!(!is_sha256(&DIGEST.to_uppercase()));
        assert!(!is_sha256(&DIGEST[1..]));
        assert!(!is_sha256(""));
    }
}
