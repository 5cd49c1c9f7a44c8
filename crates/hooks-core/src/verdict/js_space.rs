//! JavaScript's blank: what `String.prototype.trim` removes, so text the Node API and the CLI
//! trim (a verdict's control line, a `#!` line, a hook file's name, an environment value) is
//! trimmed here the same way.

/// What JavaScript's `String.prototype.trim` removes.
pub fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character JavaScript's `trim` removes (ECMA-262: WhiteSpace, i.e. tab, VT, FF,
    /// ZWNBSP and the Zs category, and LineTerminator), and no other.
    #[test]
    fn js_space_is_what_javascript_trims() {
        let zs = [
            ' ', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}',
            '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200a}', '\u{202f}',
            '\u{205f}', '\u{3000}',
        ];
        let others = [
            '\t', '\u{b}', '\u{c}', '\u{feff}', '\n', '\r', '\u{2028}', '\u{2029}',
        ];
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let trimmed = zs.contains(&c) || others.contains(&c);
            assert_eq!(is_js_space(c), trimmed, "U+{:04X}", c as u32);
        }
    }
}
