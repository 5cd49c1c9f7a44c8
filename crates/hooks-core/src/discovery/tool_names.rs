//! The tool names Cline and the Cline CLI give their tools, and the `tools=` entry that means
//! one of them but matches none: another letter case, or a letter from another alphabet that
//! looks the same (a Cyrillic `е` in `write_to_filе`). Such a hook never runs for that tool,
//! so its author is told. Pure.

use crate::event::tools_match;

/// The VS Code extension's tools, then the Cline CLI's (`@cline/core`). A `tools=` entry
/// naming none of them is not wrong (MCP and newer tools have other names); one that names
/// none but one of these *by look* is.
pub const KNOWN_TOOLS: [&str; 41] = [
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "plan_mode_respond",
    "act_mode_respond",
    "load_mcp_documentation",
    "attempt_completion",
    "new_task",
    "condense",
    "summarize_task",
    "report_bug",
    "new_rule",
    "web_fetch",
    "web_search",
    "focus_chain",
    "apply_patch",
    "generate_explanation",
    "use_skill",
    // The Cline CLI.
    "read_files",
    "search_codebase",
    "run_commands",
    "editor",
    "fetch_web_content",
    "skills",
    "ask_question",
    "submit_and_exit",
    "spawn_agent",
    "image_generation",
    "team_task",
    "team_status",
    "team_run_task",
    "team_send_message",
    "team_spawn_teammate",
];

/// The known tool that the `tools=` entry `glob` (a name or a `*`/`?` glob) looks like but
/// matches no known tool exactly: `None` when it matches one, or looks like none.
pub fn look_alike(glob: &str) -> Option<&'static str> {
    let globs = [glob.to_owned()];
    if KNOWN_TOOLS.iter().any(|tool| tools_match(&globs, tool)) {
        return None;
    }
    let folded = [fold(glob)];
    KNOWN_TOOLS
        .iter()
        .copied()
        .find(|tool| tools_match(&folded, tool))
}

/// `text` in lower case with the letters that look like Latin ones made Latin (Cyrillic and
/// Greek look-alikes, fullwidth forms) and dash look-alikes made `-`.
fn fold(text: &str) -> String {
    text.chars()
        .map(|c| {
            let c = match c as u32 {
                // Fullwidth ASCII (`ｗｒｉｔｅ`).
                0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
                _ => c,
            };
            let latin = match c {
                'а' | 'А' | 'α' | 'Α' => 'a',
                'в' | 'В' | 'β' | 'Β' => 'b',
                'с' | 'С' | 'ϲ' => 'c',
                'ԁ' => 'd',
                'е' | 'Е' | 'ε' | 'Ε' => 'e',
                'ɡ' => 'g',
                'һ' | 'Н' | 'Η' => 'h',
                'і' | 'І' | 'ι' | 'Ι' | 'ӏ' => 'i',
                'ј' | 'Ј' => 'j',
                'к' | 'К' | 'κ' | 'Κ' => 'k',
                'м' | 'М' | 'Μ' => 'm',
                'п' | 'ո' | 'Ν' => 'n',
                'о' | 'О' | 'ο' | 'Ο' => 'o',
                'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
                'ԛ' => 'q',
                'ѕ' | 'Ѕ' => 's',
                'т' | 'Т' | 'τ' | 'Τ' => 't',
                'υ' | 'ս' => 'u',
                'ν' | 'ѵ' => 'v',
                'ԝ' => 'w',
                'х' | 'Х' | 'χ' | 'Χ' => 'x',
                'у' | 'У' | 'γ' | 'Υ' => 'y',
                'ᴢ' | 'Ζ' => 'z',
                '‐' | '‑' | '‒' | '–' | '—' | '−' => '-',
                other => other,
            };
            latin.to_ascii_lowercase()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_tool_or_a_glob_matching_one_is_fine() {
        for glob in [
            "write_to_file",
            "replace_*",
            "read_file?",
            "*",
            "my_mcp_tool",
            "x",
        ] {
            assert_eq!(look_alike(glob), None, "{glob}");
        }
    }

    #[test]
    fn another_case_or_alphabet_is_named() {
        assert_eq!(look_alike("Write_To_File"), Some("write_to_file"));
        assert_eq!(look_alike("WRITE_TO_FILE"), Some("write_to_file"));
        // A Cyrillic е and а.
        assert_eq!(look_alike("writ\u{435}_to_file"), Some("write_to_file"));
        assert_eq!(look_alike("re\u{440}l\u{430}ce_*"), Some("replace_in_file"));
        assert_eq!(look_alike("ｗｒｉｔｅ_to_file"), Some("write_to_file"));
        assert_eq!(look_alike("Run_Commands"), Some("run_commands"));
    }
}
