//! The hook header: the `cline-hook:` settings line a hook file may carry in its first lines
//! (`# cline-hook: tools=write_to_file timeout=5s onFailure=block mode=persistent`).

use std::time::Duration;

use crate::verdict::OnFailure;

/// How a hook's process lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HookMode {
    /// One process per event (the contract's way).
    #[default]
    PerEvent,
    /// One long-lived process answers event after event, a line each (`mode=persistent`).
    Persistent,
}

impl HookMode {
    /// Its name in the header and the Node API: `perEvent` or `persistent`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookMode::PerEvent => "perEvent",
            HookMode::Persistent => "persistent",
        }
    }
}

/// What a hook's header asks for; every field `None` (or the default) when it has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookSettings {
    /// `tools=`: the tool names (globs with `*` and `?`) a tool hook runs for.
    pub tools: Option<Vec<String>>,
    /// `timeout=`: this hook's timeout, replacing the run's (capped by the host's maximum).
    pub timeout: Option<Duration>,
    /// `onFailure=`: this hook's failure policy, replacing the run's.
    pub on_failure: Option<OnFailure>,
    /// `mode=`: how its process lives.
    pub mode: HookMode,
    /// The header's line number (1-based), when it has one.
    pub line: Option<usize>,
}

/// A header must be within a hook file's first this many lines.
pub const HEADER_LINES: usize = 20;

/// ... and within its first this many bytes (what discovery reads of each file's start).
pub const HEADER_BYTES: usize = 8 * 1024;

/// The longest `timeout=` a header may ask for before the host's cap: a day (longer is a
/// unit mistake).
const LONGEST_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// A hook file's header as read: its settings, and what was wrong with it (the hook still
/// runs with the keys that were valid).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The valid settings.
    pub settings: HookSettings,
    /// One sentence per problem, naming the line and the fix.
    pub warnings: Vec<String>,
}

/// The keys a header may set, as written in the documentation.
const KEYS: [&str; 4] = ["tools", "timeout", "onFailure", "mode"];

/// Reads the header of a hook file from `head`, its first bytes (a UTF-8 BOM, UTF-16 with its
/// BOM (what Windows PowerShell 5.1 saves by default), `\r\n` line endings and any comment
/// leader of `#`, `//`, `--`, `REM`, `@REM`, `::` accepted). A `cline-hook:` line past the
/// lines a header is read from is named, not read. Pure.
pub fn read_header(head: &[u8]) -> Header {
    let text = decoded(head);
    let mut header = Header::default();
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        let Some(settings) = header_text(line) else {
            continue;
        };
        if let Some(first) = header.settings.line {
            header.warnings.push(format!(
                "line {number} is a second cline-hook: header, ignored; put all settings on line {first}"
            ));
            continue;
        }
        if number > HEADER_LINES {
            header.warnings.push(format!(
                "line {number} is a cline-hook: header, but a header is read from the first {HEADER_LINES} lines only, so it is ignored; move it up, under the #! line"
            ));
            break;
        }
        header.settings.line = Some(number);
        read_pairs(settings, number, &mut header);
    }
    if header.warnings.len() > MAX_WARNINGS {
        let more = header.warnings.len() - MAX_WARNINGS;
        header.warnings.truncate(MAX_WARNINGS);
        header.warnings.push(format!(
            "{more} more problems in its cline-hook: header are not listed"
        ));
    }
    header
}

/// The text of a file's first bytes, decoded as the verdict reader decodes a hook's output
/// (UTF-16 when its byte-order mark or its bytes say so, else UTF-8), less a byte-order mark.
fn decoded(head: &[u8]) -> String {
    let (text, _) = crate::verdict::decode_all(head);
    match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// A hook lists at most this many problems of its header (a line of junk is one mistake).
const MAX_WARNINGS: usize = 8;

/// The settings text of a header line (after `cline-hook:`), or `None` for any other line.
fn header_text(line: &str) -> Option<&str> {
    let text = line.trim();
    let after_leader = ["#", "//", "--", "::"]
        .iter()
        .find_map(|leader| text.strip_prefix(leader))
        .or_else(|| strip_word(text, "@REM"))
        .or_else(|| strip_word(text, "REM"))?;
    let text = after_leader.trim_start();
    const MARK: &str = "cline-hook:";
    let mark = text.get(..MARK.len())?;
    mark.eq_ignore_ascii_case(MARK).then(|| &text[MARK.len()..])
}

/// `text` less a leading batch-file word (any case), which must end there or at a space.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = &text[word.len()..];
    (head.eq_ignore_ascii_case(word) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
        .then_some(rest)
}

/// Reads the `key=value` pairs of the header on line `number` into `header`.
fn read_pairs(text: &str, number: usize, header: &mut Header) {
    let mut seen: Vec<&'static str> = Vec::new();
    for pair in text.split_whitespace() {
        let Some((key, value)) = pair.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            header.warnings.push(format!(
                "line {number}: `{pair}` in its cline-hook: header is not key=value; write settings as key=value separated by spaces (keys: {})",
                KEYS.join(", ")
            ));
            continue;
        };
        let Some(known) = KEYS.iter().copied().find(|k| k.eq_ignore_ascii_case(key)) else {
            header.warnings.push(format!(
                "line {number}: unknown key `{key}` in its cline-hook: header{}; the keys are {}",
                closest(key).map_or(String::new(), |k| format!(" (did you mean {k}?)")),
                KEYS.join(", ")
            ));
            continue;
        };
        if seen.contains(&known) {
            header.warnings.push(format!(
                "line {number}: {known} is set twice in its cline-hook: header; the first one counts, remove the other"
            ));
            continue;
        }
        seen.push(known);
        if let Err(fix) = apply(known, value, &mut header.settings) {
            header.warnings.push(format!(
                "line {number}: `{pair}` in its cline-hook: header is not valid: {fix}"
            ));
        } else if known == "tools" {
            let globs = header.settings.tools.clone().unwrap_or_default();
            for glob in &globs {
                // Another entry naming that tool exactly makes this one harmless.
                let meant = super::tool_names::look_alike(glob)
                    .filter(|meant| !crate::event::tools_match(&globs, meant));
                if let Some(meant) = meant {
                    header.warnings.push(format!(
                        "line {number}: tools= entry `{}` matches no tool exactly but looks like {meant} (tool names are case-sensitive, and letters from another alphabet differ), so the hook never runs for {meant}; write tools={meant}",
                        glob.escape_debug()
                    ));
                }
            }
        }
    }
}

/// Sets `key` (a known key) to `value`, or says how to write it.
fn apply(key: &str, value: &str, settings: &mut HookSettings) -> Result<(), String> {
    match key {
        "tools" => {
            let globs: Vec<String> = value.split(',').map(str::to_owned).collect();
            if globs.iter().any(String::is_empty) {
                return Err("write tool names (globs with * and ?) separated by commas, with no empty one: tools=write_to_file,replace_in_file".into());
            }
            // A quote or a `;` would never match a tool: the hook would silently never run.
            if let Some(bad) = value.chars().find(|c| *c != ',' && !is_tool_name_char(*c)) {
                return Err(format!(
                    "{} cannot be in a tool name; write tool names as they are (letters, digits, _ - . : / @, and * or ?), unquoted, separated by commas: tools=write_to_file,replace_in_file",
                    shown(bad)
                ));
            }
            settings.tools = Some(globs);
        }
        "timeout" => settings.timeout = Some(parse_timeout(value)?),
        "onFailure" => {
            settings.on_failure = Some(match value.to_ascii_lowercase().as_str() {
                "allow" => OnFailure::Allow,
                "block" => OnFailure::Block,
                _ => return Err("write onFailure=allow or onFailure=block".into()),
            })
        }
        _ => {
            settings.mode = match value.to_ascii_lowercase().as_str() {
                "persistent" => HookMode::Persistent,
                "perevent" => HookMode::PerEvent,
                _ => return Err("write mode=persistent (or mode=perEvent, the default)".into()),
            }
        }
    }
    Ok(())
}

/// Whether `c` can be in a `tools=` glob.
fn is_tool_name_char(c: char) -> bool {
    c.is_alphanumeric() || "_-.:/@*?".contains(c)
}

/// A character as a warning shows it: in backquotes, or escaped when it is a control one.
fn shown(c: char) -> String {
    if c.is_control() {
        format!("{c:?}")
    } else {
        format!("`{c}`")
    }
}

/// `5s`, `1.5s`, `500ms` as a duration: more than zero, at most a day.
fn parse_timeout(value: &str) -> Result<Duration, String> {
    let fix =
        "write a number of milliseconds or seconds with its unit: timeout=500ms or timeout=5s";
    let lower = value.to_ascii_lowercase();
    let (number, scale) = if let Some(n) = lower.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = lower.strip_suffix('s') {
        (n, 1.0)
    } else {
        return Err(format!("it has no unit; {fix}"));
    };
    let valid = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let seconds = number
        .parse::<f64>()
        .ok()
        .filter(|n| valid && n.is_finite())
        .map(|n| n * scale)
        .ok_or_else(|| fix.to_owned())?;
    if seconds <= 0.0 {
        return Err(format!("a timeout must be more than zero; {fix}"));
    }
    if seconds > LONGEST_TIMEOUT.as_secs_f64() {
        return Err("a timeout may be a day at most".into());
    }
    // At least a millisecond: `0.0001s` is not "no time at all".
    Ok(Duration::from_secs_f64(seconds).max(Duration::from_millis(1)))
}

/// The known key a mistyped `key` most likely meant.
fn closest(key: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    let start: String = key.chars().take(3).collect();
    KEYS.iter().copied().find(|k| {
        let k = k.to_ascii_lowercase();
        k.starts_with(&start) || key.contains(&k) || k.contains(&key)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> HookSettings {
        let header = read_header(text.as_bytes());
        assert_eq!(header.warnings, Vec::<String>::new(), "{text}");
        header.settings
    }

    #[test]
    fn every_comment_leader_carries_a_header() {
        for line in [
            "# cline-hook: mode=persistent",
            "#cline-hook: mode=persistent",
            "// cline-hook: mode=persistent",
            "-- cline-hook: mode=persistent",
            "REM cline-hook: mode=persistent",
            "rem cline-hook: mode=persistent",
            "@REM cline-hook: mode=persistent",
            ":: cline-hook: mode=persistent",
            "   # CLINE-HOOK: mode=persistent",
        ] {
            let found = settings(&format!("#!/bin/sh\n{line}\necho\n"));
            assert_eq!(found.mode, HookMode::Persistent, "{line}");
            assert_eq!(found.line, Some(2), "{line}");
        }
    }

    #[test]
    fn other_lines_are_not_headers() {
        for line in [
            "cline-hook: mode=persistent",
            "echo '# cline-hook: mode=persistent'",
            "REMARK cline-hook: mode=persistent",
            "# a cline-hook: mode=persistent",
            "#! cline-hook: mode=persistent",
        ] {
            assert_eq!(read_header(line.as_bytes()), Header::default(), "{line}");
        }
    }

    #[test]
    fn all_four_keys_are_read() {
        let found = settings(
            "#!/usr/bin/env bash\n# cline-hook: tools=write_to_file,replace_*  timeout=1.5s onFailure=block mode=persistent\n",
        );
        assert_eq!(
            found,
            HookSettings {
                tools: Some(vec!["write_to_file".into(), "replace_*".into()]),
                timeout: Some(Duration::from_millis(1500)),
                on_failure: Some(OnFailure::Block),
                mode: HookMode::Persistent,
                line: Some(2),
            }
        );
        assert_eq!(
            settings("# cline-hook: timeout=250ms").timeout,
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            settings("# cline-hook: onfailure=ALLOW").on_failure,
            Some(OnFailure::Allow)
        );
    }

    #[test]
    fn crlf_and_a_bom_are_accepted() {
        let found = settings("\u{feff}# cline-hook: timeout=5s tools=a\r\nWrite-Output '{}'\r\n");
        assert_eq!(found.timeout, Some(Duration::from_secs(5)));
        assert_eq!(found.tools, Some(vec!["a".to_owned()]));
        let cmd = settings("@echo off\r\n:: cline-hook: mode=persistent\r\n");
        assert_eq!(cmd.mode, HookMode::Persistent);
    }

    #[test]
    fn a_header_after_line_20_is_ignored() {
        let mut text = "#!/bin/sh\n".to_owned();
        for _ in 0..18 {
            text.push_str("echo\n");
        }
        let on_20 = format!("{text}# cline-hook: mode=persistent\n");
        assert_eq!(settings(&on_20).line, Some(20));
        let on_21 = format!("{text}echo\n# cline-hook: mode=persistent onFailure=block\n");
        let late = read_header(on_21.as_bytes());
        assert_eq!(late.settings, HookSettings::default());
        assert_eq!(late.warnings.len(), 1, "{:?}", late.warnings);
        assert!(late.warnings[0].starts_with(
            "line 21 is a cline-hook: header, but a header is read from the first 20 lines only"
        ));
    }

    #[test]
    fn a_utf16_file_with_its_byte_order_mark_has_its_header_read() {
        let text = "# cline-hook: onFailure=block tools=write_to_file\r\nWrite-Output '{}'\r\n";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            // A unit cut in half at the end of what was read.
            .chain([0x00])
            .collect();
        for head in [le, be] {
            let header = read_header(&head);
            assert_eq!(header.warnings, Vec::<String>::new());
            assert_eq!(header.settings.on_failure, Some(OnFailure::Block));
            assert_eq!(
                header.settings.tools,
                Some(vec!["write_to_file".to_owned()])
            );
        }
    }

    #[test]
    fn a_tools_entry_that_only_looks_like_a_tool_warns_and_stays() {
        let header = read_header("# cline-hook: tools=Write_To_File,my_tool\n".as_bytes());
        assert_eq!(
            header.settings.tools,
            Some(vec!["Write_To_File".to_owned(), "my_tool".to_owned()])
        );
        assert_eq!(header.warnings.len(), 1, "{:?}", header.warnings);
        assert!(header.warnings[0]
            .contains("`Write_To_File` matches no tool exactly but looks like write_to_file"));
        // Another entry naming the tool exactly: the look-alike skips nothing.
        let both = read_header("# cline-hook: tools=write_to_file,Write_To_File\n".as_bytes());
        assert_eq!(both.warnings, Vec::<String>::new());
    }

    #[test]
    fn malformed_pairs_and_unknown_keys_warn_and_the_valid_keys_stay() {
        let header = read_header(
            b"#!/bin/sh\n# cline-hook: timeout=5 tool=x persistent mode=persistent onFailure=maybe =x tools=a,,b\n",
        );
        assert_eq!(header.settings.mode, HookMode::Persistent);
        assert_eq!(header.settings.timeout, None);
        assert_eq!(header.settings.on_failure, None);
        assert_eq!(header.settings.tools, None);
        let w = header.warnings.join("\n");
        assert_eq!(header.warnings.len(), 6, "{w}");
        assert!(
            w.contains(
                "line 2: `timeout=5` in its cline-hook: header is not valid: it has no unit"
            ),
            "{w}"
        );
        assert!(
            w.contains("unknown key `tool` in its cline-hook: header (did you mean tools?)"),
            "{w}"
        );
        assert!(
            w.contains("`persistent` in its cline-hook: header is not key=value"),
            "{w}"
        );
        assert!(
            w.contains("write onFailure=allow or onFailure=block"),
            "{w}"
        );
        assert!(
            w.contains("`=x` in its cline-hook: header is not key=value"),
            "{w}"
        );
        assert!(w.contains("no empty one"), "{w}");
    }

    #[test]
    fn tool_names_with_quotes_or_separators_warn() {
        for bad in ["\"write_to_file\"", "write_to_file;", "a\u{0}b", "'x'"] {
            let header = read_header(format!("# cline-hook: tools={bad}").as_bytes());
            assert_eq!(header.settings.tools, None, "{bad}");
            assert_eq!(header.warnings.len(), 1, "{bad}: {:?}", header.warnings);
            assert!(
                header.warnings[0].contains("cannot be in a tool name"),
                "{:?}",
                header.warnings
            );
        }
        let fine =
            settings("# cline-hook: tools=mcp:server/tool-1,use_mcp_tool,a.b@c,*_file,read?");
        assert_eq!(fine.tools.map(|t| t.len()), Some(5));
    }

    #[test]
    fn timeouts_must_be_positive_numbers_with_a_unit() {
        for bad in [
            "0s", "0ms", "-1s", "s", "5m", "1e3ms", "nans", "2d", "90000s", "1.2.3s",
        ] {
            let header = read_header(format!("# cline-hook: timeout={bad}").as_bytes());
            assert_eq!(header.settings.timeout, None, "{bad}");
            assert_eq!(header.warnings.len(), 1, "{bad}: {:?}", header.warnings);
        }
        assert_eq!(parse_timeout("0.0001s"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_timeout("86400s"), Ok(Duration::from_secs(86400)));
    }

    #[test]
    fn a_second_header_and_a_repeated_key_warn() {
        let header =
            read_header(b"# cline-hook: timeout=1s timeout=2s\n# cline-hook: mode=persistent\n");
        assert_eq!(header.settings.timeout, Some(Duration::from_secs(1)));
        assert_eq!(header.settings.mode, HookMode::PerEvent);
        assert_eq!(header.warnings.len(), 2, "{:?}", header.warnings);
        assert!(header.warnings[0].contains("timeout is set twice"));
        assert!(header.warnings[1].contains(
            "line 2 is a second cline-hook: header, ignored; put all settings on line 1"
        ));
    }

    #[test]
    fn hostile_bytes_never_panic() {
        let samples: [&[u8]; 5] = [
            b"# cline-hook: \xff\xfe=\xc3 t\xc3\xa9=1",
            b"# cline-hook: \xc3\xa9\xc3\xa9\xc3\xa9=1",
            b"REM\xc3\xa9 cline-hook: mode=persistent",
            b"# cline-hoo",
            b"\xEF\xBB",
        ];
        for bytes in samples {
            let _ = read_header(bytes);
        }
        let long = format!("# cline-hook: {}", "x=y ".repeat(5000));
        let warnings = read_header(long.as_bytes()).warnings;
        assert_eq!(warnings.len(), MAX_WARNINGS + 1, "{warnings:?}");
        assert!(
            warnings[MAX_WARNINGS].contains("more problems"),
            "{warnings:?}"
        );
    }
}
