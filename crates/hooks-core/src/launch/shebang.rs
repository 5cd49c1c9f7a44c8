//! The `#!` line of a hook started directly: how the kernel splits it, and the sentence for
//! one that cannot start the hook (a missing interpreter, Windows line endings), its program
//! quoted as the system sees it.

/// The program and its one argument as the kernel splits a `#!` line (Linux's binfmt_script,
/// macOS alike): only spaces and tabs are blanks, so a carriage return or a no-break space is
/// part of the program's name; the program ends at the first space or tab, and the rest (less
/// its leading and trailing blanks) is its argument. Pure.
pub fn kernel_shebang(line: &str) -> (&str, Option<&str>) {
    let line = line.trim_matches([' ', '\t']);
    match line.split_once([' ', '\t']) {
        Some((program, arg)) => (program, Some(arg.trim_start_matches([' ', '\t']))),
        None => (line, None),
    }
}

/// Why a `#!` line split as [`kernel_shebang`] cannot start the hook, if it cannot; `exists`
/// says whether `program` exists (`None`: a relative name, the kernel's business). Pure.
pub fn shebang_problem(program: &str, arg: Option<&str>, exists: Option<bool>) -> Option<String> {
    if program.ends_with('\r') && exists != Some(true) {
        return Some(format!(
            "its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named {}; convert the file to LF line endings (e.g. dos2unix)",
            quoted(program)
        ));
    }
    if exists == Some(false) {
        return Some(missing_interpreter(program));
    }
    match arg {
        Some(arg) if arg.ends_with('\r') => Some(format!(
            "its #! line ends with a carriage return (the file has Windows line endings), so {program} is given the argument {}; convert the file to LF line endings (e.g. dos2unix)",
            quoted(arg)
        )),
        _ => None,
    }
}

/// The sentence for a `#!` program that does not exist; a name with characters that do not
/// show (a no-break space, a line separator, a control) is quoted with them escaped. Pure.
pub fn missing_interpreter(program: &str) -> String {
    if program.chars().any(unclear) {
        format!(
            "its #! line names the program {}, which does not exist (the system ends the name only at a space or a tab, and this name holds a character that does not show, escaped here); fix the #! line",
            quoted(program)
        )
    } else {
        format!("its #! line names {program}, which does not exist; install it or fix the #! line")
    }
}

/// `name` in single quotes, each character that does not show as itself escaped as the CLI
/// and bash's `$'…'` write them (`\r`, `\x1B`, `\u00A0`): the name exactly as the system
/// sees it, and nothing a terminal would act on.
pub fn quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('\'');
    for c in name.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if unclear(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if unclear(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Characters that do not show as themselves: controls (C0, DEL, C1), blanks other than the
/// space, invisible formatting and bidi controls, and U+FFFD (a byte that is not UTF-8).
fn unclear(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{ad}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fffd}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 18 (B1): only spaces and tabs split a `#!` line, as in the kernel.
    #[test]
    fn a_shebang_is_split_on_spaces_and_tabs_only() {
        assert_eq!(kernel_shebang("/bin/sh"), ("/bin/sh", None));
        assert_eq!(kernel_shebang("/bin/sh\r"), ("/bin/sh\r", None));
        assert_eq!(kernel_shebang("/bin/sh\u{a0}"), ("/bin/sh\u{a0}", None));
        assert_eq!(
            kernel_shebang("/nonexist\u{2028}y"),
            ("/nonexist\u{2028}y", None)
        );
        assert_eq!(
            kernel_shebang(" \t/usr/bin/env \t node  -x \t"),
            ("/usr/bin/env", Some("node  -x"))
        );
        assert_eq!(kernel_shebang("/bin/sh -e\r"), ("/bin/sh", Some("-e\r")));
        assert_eq!(kernel_shebang(""), ("", None));
    }

    #[test]
    fn windows_line_endings_and_hidden_characters_are_named_as_the_system_sees_them() {
        let crlf = shebang_problem("/bin/sh\r", None, Some(false));
        assert_eq!(
            crlf.as_deref(),
            Some("its #! line ends with a carriage return (the file has Windows line endings), so the system looks for a program named '/bin/sh\\r'; convert the file to LF line endings (e.g. dos2unix)")
        );
        // A relative name is not looked up, but a carriage return is never meant.
        assert!(shebang_problem("sh\r", None, None).is_some_and(|w| w.contains("'sh\\r'")));
        // The program is fine, its argument carries the carriage return.
        let arg = shebang_problem("/bin/sh", Some("-e\r"), Some(true));
        assert!(
            arg.as_deref()
                .is_some_and(|w| w.contains("/bin/sh is given the argument '-e\\r'")),
            "{arg:?}"
        );
        let nbsp = shebang_problem("/bin/sh\u{a0}", None, Some(false));
        assert!(
            nbsp.as_deref().is_some_and(|w| w.starts_with(
                "its #! line names the program '/bin/sh\\u00A0', which does not exist"
            )),
            "{nbsp:?}"
        );
        assert_eq!(
            shebang_problem("/opt/nope", None, Some(false)).as_deref(),
            Some(
                "its #! line names /opt/nope, which does not exist; install it or fix the #! line"
            )
        );
        assert_eq!(shebang_problem("/bin/sh", Some("-e"), Some(true)), None);
        assert_eq!(shebang_problem("sh", None, None), None);
        assert_eq!(
            quoted("a\u{202e}b\u{9b}c\u{7f}\u{1b}\u{fffd}'\\é"),
            "'a\\u202Eb\\u009Bc\\x7F\\x1B\\uFFFD\\'\\\\é'"
        );
    }
}
