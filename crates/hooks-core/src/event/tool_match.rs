//! Which tool hooks apply to a tool call: the tool's name read from the event's input, and
//! the `tools=` globs of a hook's header matched against it. Pure.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

#[cfg(test)]
use crate::discovery::is_tool_hook;

/// The name of the tool an event's input (JSON text) is about, for a `PreToolUse` or
/// `PostToolUse` hook: `preToolUse.tool` (or `.toolName`), or the CLI's `tool_call.name`;
/// `postToolUse.tool` (or `.toolName`), or `tool_result.name`. `None` when the input names
/// none (then a hook with `tools=` runs: a guardrail is never skipped on a guess).
pub fn tool_name(hook_name: &str, input: &str) -> Option<String> {
    // Only these few fields are kept; the rest of the input (file contents...) is skipped.
    let sections: Sections = serde_json::from_str(input).ok()?;
    let (extension, cli) = match hook_name {
        "PreToolUse" => (sections.pre_tool_use, sections.tool_call),
        "PostToolUse" => (sections.post_tool_use, sections.tool_result),
        _ => return None,
    };
    let extension = extension.unwrap_or_default();
    // An empty name names no tool.
    [
        extension.tool,
        extension.tool_name,
        cli.unwrap_or_default().name,
    ]
    .into_iter()
    .flatten()
    .find(|name| !name.is_empty())
}

/// Whether `tool` matches one of `globs` (`*`: any run of characters, `?`: one character;
/// case-sensitive, as tool names are identifiers).
pub fn tools_match(globs: &[String], tool: &str) -> bool {
    globs.iter().any(|glob| glob_matches(glob, tool))
}

/// `*` and `?` globbing over characters, linear in time (the classic backtrack to the last
/// star, never exponential).
fn glob_matches(glob: &str, text: &str) -> bool {
    let (glob, text): (Vec<char>, Vec<char>) = (glob.chars().collect(), text.chars().collect());
    let (mut g, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match glob.get(g) {
            Some('*') => {
                star = Some((g, t));
                g += 1;
            }
            Some(c) if *c == '?' || *c == text[t] => {
                g += 1;
                t += 1;
            }
            _ => match star {
                Some((star_g, star_t)) => {
                    g = star_g + 1;
                    t = star_t + 1;
                    star = Some((star_g, star_t + 1));
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|c| *c == '*')
}

/// The parts of an input that may name a tool.
#[derive(Deserialize, Default)]
struct Sections {
    #[serde(rename = "preToolUse", default)]
    pre_tool_use: Option<Named>,
    #[serde(rename = "postToolUse", default)]
    post_tool_use: Option<Named>,
    #[serde(default)]
    tool_call: Option<Named>,
    #[serde(default)]
    tool_result: Option<Named>,
}

/// The string fields of one section that may name its tool; a section that is not an
/// object, or a field that is not a string, names nothing.
#[derive(Default)]
struct Named {
    tool: Option<String>,
    tool_name: Option<String>,
    name: Option<String>,
}

impl<'de> Deserialize<'de> for Named {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Named, D::Error> {
        deserializer.deserialize_any(NamedVisitor)
    }
}

struct NamedVisitor;

impl<'de> Visitor<'de> for NamedVisitor {
    type Value = Named;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Named, A::Error> {
        let mut named = Named::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "tool" => &mut named.tool,
                "toolName" => &mut named.tool_name,
                "name" => &mut named.name,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let value: Text = map.next_value()?;
            // The first of a repeated key counts, as everywhere else in the input.
            if slot.is_none() {
                *slot = value.0;
            }
        }
        Ok(named)
    }

    // Anything but an object names no tool.
    fn visit_bool<E>(self, _: bool) -> Result<Named, E> {
        Ok(Named::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Named, E> {
        Ok(Named::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Named, E> {
        Ok(Named::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Named, E> {
        Ok(Named::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<Named, E> {
        Ok(Named::default())
    }
    fn visit_unit<E>(self) -> Result<Named, E> {
        Ok(Named::default())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Named, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Named::default())
    }
}

/// A string, or `None` for any other JSON value.
struct Text(Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, text: &str) -> Result<Text, E> {
                Ok(Text(Some(text.to_owned())))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_unit<E>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Text, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Text, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn globs_match_with_star_and_question_mark() {
        let cases = [
            ("write_to_file", "write_to_file", true),
            ("write_to_file", "write_to_files", false),
            ("write_*", "write_to_file", true),
            ("*_file", "write_to_file", true),
            ("*", "", true),
            ("", "", true),
            ("", "a", false),
            ("?", "", false),
            ("?", "é", true),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
            ("Write_*", "write_to_file", false),
            ("**x", "abx", true),
            ("*?", "", false),
        ];
        for (glob, text, expected) in cases {
            assert_eq!(glob_matches(glob, text), expected, "{glob} vs {text}");
        }
        // Linear: a pathological pattern answers at once.
        let long = "a".repeat(10_000);
        assert!(!glob_matches(&format!("{}b", "*a".repeat(50)), &long));
    }

    /// A simple oracle: a recursive matcher, tried against generated patterns.
    fn oracle(glob: &[char], text: &[char]) -> bool {
        match glob.first() {
            None => text.is_empty(),
            Some('*') => (0..=text.len()).any(|i| oracle(&glob[1..], &text[i..])),
            Some(c) => {
                !text.is_empty() && (*c == '?' || *c == text[0]) && oracle(&glob[1..], &text[1..])
            }
        }
    }

    #[test]
    fn the_matcher_agrees_with_a_simple_oracle() {
        let alphabet = ['a', 'b', '*', '?'];
        let mut seed: u64 = 0x9e3779b97f4a7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..20_000 {
            let glob: String = (0..next(7)).map(|_| alphabet[next(4)]).collect();
            let text: String = (0..next(7)).map(|_| alphabet[next(2)]).collect();
            let expected = oracle(
                &glob.chars().collect::<Vec<_>>(),
                &text.chars().collect::<Vec<_>>(),
            );
            assert_eq!(glob_matches(&glob, &text), expected, "{glob:?} vs {text:?}");
        }
    }

    #[test]
    fn the_tool_is_read_from_each_profiles_input_shape() {
        let pre = r#"{"preToolUse":{"tool":"write_to_file","parameters":{"content":"x"}}}"#;
        assert_eq!(
            tool_name("PreToolUse", pre).as_deref(),
            Some("write_to_file")
        );
        let named = r#"{"preToolUse":{"toolName":"read_file"}}"#;
        assert_eq!(tool_name("PreToolUse", named).as_deref(), Some("read_file"));
        let post = r#"{"postToolUse":{"tool":"execute_command","result":"ok"}}"#;
        assert_eq!(
            tool_name("PostToolUse", post).as_deref(),
            Some("execute_command")
        );
        let post_named = r#"{"postToolUse":{"toolName":"x"}}"#;
        assert_eq!(tool_name("PostToolUse", post_named).as_deref(), Some("x"));
        let cli = r#"{"hookName":"tool_call","tool_call":{"name":"run_commands","input":{}}}"#;
        assert_eq!(
            tool_name("PreToolUse", cli).as_deref(),
            Some("run_commands")
        );
        let cli_result = r#"{"tool_result":{"name":"read_files","output":[1,2]}}"#;
        assert_eq!(
            tool_name("PostToolUse", cli_result).as_deref(),
            Some("read_files")
        );
        // The other event's section names nothing for this hook.
        assert_eq!(tool_name("PostToolUse", pre), None);
        assert_eq!(tool_name("TaskStart", pre), None);
    }

    #[test]
    fn inputs_that_name_no_tool_give_none() {
        for input in [
            r#"{}"#,
            r#"{"preToolUse":"write_to_file"}"#,
            r#"{"preToolUse":{"tool":5}}"#,
            r#"{"preToolUse":{"tool":null,"parameters":{}}}"#,
            r#"{"preToolUse":[1,{"tool":"x"}]}"#,
            r#"{"preToolUse":{"tool":{"name":"x"}}}"#,
            r#"{"preToolUse":{"tool":"x""#,
            r#"[]"#,
        ] {
            assert_eq!(tool_name("PreToolUse", input), None, "{input}");
        }
        // A string field wins over an earlier non-string one.
        let mixed = r#"{"preToolUse":{"tool":7,"toolName":"y"}}"#;
        assert_eq!(tool_name("PreToolUse", mixed).as_deref(), Some("y"));
        // An empty name names no tool: the next field's counts, or none does.
        let empty = r#"{"preToolUse":{"tool":"","toolName":"write_to_file"}}"#;
        assert_eq!(
            tool_name("PreToolUse", empty).as_deref(),
            Some("write_to_file")
        );
        assert_eq!(
            tool_name("PreToolUse", r#"{"preToolUse":{"tool":""}}"#),
            None
        );
    }

    #[test]
    fn only_tool_hooks_take_tool_globs() {
        assert!(is_tool_hook("PreToolUse") && is_tool_hook("PostToolUse"));
        assert!(!is_tool_hook("TaskStart") && !is_tool_hook("tool_call"));
        assert!(tools_match(
            &globs(&["read_*", "write_to_file"]),
            "write_to_file"
        ));
        assert!(!tools_match(&globs(&["read_*"]), "write_to_file"));
    }
}
