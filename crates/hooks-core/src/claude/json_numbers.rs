//! Numbers too large for a double (`1e400`) in a settings file. `JSON.parse`, and so Claude
//! Code, reads one as `Infinity`; serde_json refuses the whole text. Written as the largest
//! double instead, one out-of-range value stays that value's mistake (a `timeout` too long is
//! said and dropped) and no longer turns off every other guard of the file. Pure.

/// The largest finite double, as JSON text.
const LARGEST: &str = "1.7976931348623157e308";

/// `text` with each number outside strings that a double cannot hold written as the largest
/// double (with its sign); `None` when there is none.
pub(super) fn clamp_huge_numbers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, i);
                let token = &text[i..end];
                if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    out.push_str(&text[copied..i]);
                    if token.starts_with('-') {
                        out.push('-');
                    }
                    out.push_str(LARGEST);
                    copied = end;
                    changed = true;
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    changed.then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// Where the string starting at `start` (its opening quote) ends: after its closing quote, or
/// at the end of the text.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Where the number (or number-like run of characters) starting at `start` ends.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_numbers_become_the_largest_double_and_nothing_else_changes() {
        assert_eq!(
            clamp_huge_numbers(r#"{"timeout": 1e400, "b": -2E+999, "c": [1, 1e308]}"#).as_deref(),
            Some(
                r#"{"timeout": 1.7976931348623157e308, "b": -1.7976931348623157e308, "c": [1, 1e308]}"#
            )
        );
        assert_eq!(
            clamp_huge_numbers(r#"{"a": 1.5, "b": -0, "c": 12e3}"#),
            None
        );
        // Inside strings (escaped quotes too) a number is text.
        assert_eq!(
            clamp_huge_numbers(r#"{"command": "echo 1e400 \" 9e999", "k": "\\"}"#),
            None
        );
        // Non-ASCII around numbers is kept whole.
        assert_eq!(
            clamp_huge_numbers("{\"é\": 1e999, \"ü\": \"1e999\"}").as_deref(),
            Some("{\"é\": 1.7976931348623157e308, \"ü\": \"1e999\"}")
        );
        // Whatever the text, never a panic (an unterminated string, a lone sign).
        for text in ["\"1e999", "-", "[-", "1e", "\\", "{\"a\":1e999"] {
            let _ = clamp_huge_numbers(text);
        }
    }

    #[test]
    fn the_result_parses_as_json_parse_would_read_it() {
        let clamped = clamp_huge_numbers(r#"{"x": 1e400}"#).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&clamped).unwrap_or_default();
        assert_eq!(value["x"].as_f64(), Some(f64::MAX));
    }
}
