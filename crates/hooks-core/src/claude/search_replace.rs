//! The SEARCH/REPLACE blocks of a `replace_in_file` diff: where the first whole block's
//! search text and replacement are, read for Claude's Edit (`old_string`, `new_string`) and
//! written back into the diff with every marker, line end and other block kept. Pure.

/// The first SEARCH/REPLACE block of a `replace_in_file` diff: its search text and its
/// replacement. Cline's markers are `------- SEARCH`, `=======`, `+++++++ REPLACE` (and the
/// older `<<<<<<< SEARCH`, `>>>>>>> REPLACE`); `None` without one whole block.
pub(super) fn first_block(diff: &str) -> Option<(String, String)> {
    let block = block_span(diff)?;
    let search = diff.get(block.search)?;
    let replace = diff.get(block.replace)?;
    Some((block_text(search), block_text(replace)))
}

/// Where the first whole SEARCH/REPLACE block of a diff has its two texts: byte ranges of
/// the lines between the markers (each line with its line end), so that the inverse mapping
/// can replace one text and keep every marker and every other block as written.
pub(super) struct BlockSpan {
    /// The search lines: after the SEARCH marker's line end, up to the separator line.
    pub(super) search: std::ops::Range<usize>,
    /// The replacement lines: after the separator's line end, up to the REPLACE marker.
    pub(super) replace: std::ops::Range<usize>,
    /// Whether the SEARCH marker's line ends in `\r\n` (a Windows diff).
    pub(super) crlf: bool,
}

/// The first whole block of `diff` (see `first_block`), by byte offsets.
pub(super) fn block_span(diff: &str) -> Option<BlockSpan> {
    let marker = |line: &str, mark: char, word: &str| {
        let line = line.trim_end();
        let body = line.trim_start_matches(mark);
        line.len() - body.len() >= 3 && (body == format!(" {word}") || body == format!(" {word}>"))
    };
    let separator = |line: &str| {
        let line = line.trim_end();
        line.len() >= 3 && line.chars().all(|c| c == '=')
    };
    let (mut search_start, mut replace_start, mut sep_start) = (0, 0, 0);
    let mut crlf = false;
    let mut part = 0;
    let mut at = 0;
    for raw in diff.split('\n') {
        let (line_start, next) = (at, at + raw.len() + 1);
        at = next;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        match part {
            0 if marker(line, '-', "SEARCH") || marker(line, '<', "SEARCH") => {
                part = 1;
                search_start = next;
                crlf = raw.ends_with('\r');
            }
            1 if separator(line) => {
                part = 2;
                sep_start = line_start;
                replace_start = next;
            }
            2 if marker(line, '+', "REPLACE") || marker(line, '>', "REPLACE") => {
                return Some(BlockSpan {
                    search: search_start..sep_start,
                    replace: replace_start..line_start,
                    crlf,
                });
            }
            _ => {}
        }
    }
    None
}

/// The text of a block's lines (each with its line end, as `BlockSpan` holds them): the
/// lines without their ends, joined by `\n`.
fn block_text(lines: &str) -> String {
    let Some(lines) = lines.strip_suffix('\n') else {
        return String::new();
    };
    lines
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as a block's lines, each ended by `\r\n` or `\n`: the inverse of `block_text`
/// (an empty text is no line at all).
pub(super) fn block_lines(text: &str, crlf: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let end = if crlf { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split('\n') {
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push_str(end);
    }
    out
}
