//! Claude Code's `matcher`: which tool names (or SessionStart sources, PreCompact triggers,
//! Notification types) a group of handlers applies to. Pure.

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
        let _ = subject;
        true
    }
}

/// Compiles a group's matcher; the error says what is wrong, for the settings file's author.
pub fn compile_matcher(matcher: Option<&str>) -> Result<Matcher, String> {
    let _ = matcher;
    Ok(Matcher::All)
}
