//! The encoding of a hook's stdout, and its text as UTF-8, decoded as it streams.
//!
//! The contract is UTF-8. Windows PowerShell's `Out-File` and `>` write UTF-16 (little-endian,
//! with a byte-order mark), and so does a console set to `[Text.Encoding]::Unicode`; such
//! output is recognised in its first KiB, by its byte-order mark or, without one, by the NUL
//! byte beside its JSON punctuation, and decoded, so its verdict still counts. Anything else is
//! UTF-8, invalid bytes read as U+FFFD exactly as `String::from_utf8_lossy` reads them.
//! UTF-8 holds no NUL byte beside `{` or `"` unless a program wrote one, so it is never taken
//! for UTF-16; output that turns to UTF-16 after UTF-8 is found by [`Utf16Later`] and named.

/// How many bytes are looked at before deciding (fewer when stdout is shorter).
const SNIFF: usize = 1024;

/// How a hook's stdout is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8, the contract (also what anything unrecognised is read as).
    Utf8,
    /// UTF-16, as Windows PowerShell writes it.
    Utf16 {
        /// Its byte order: little-endian (Windows' own) or big-endian.
        little_endian: bool,
        /// Whether it starts with a byte-order mark.
        bom: bool,
    },
}

/// What the first code units say for one byte order.
#[derive(Debug, Default)]
struct Evidence {
    /// Unpaired surrogates (a leading one cut by the window's end aside).
    unpaired: usize,
    /// ASCII characters (their other byte NUL).
    ascii: usize,
    /// Of those, the ones a verdict is made of: `{`, `}`, `"`, a newline.
    marks: usize,
    /// Where the first of those ASCII characters starts.
    first_ascii: Option<usize>,
}

impl Evidence {
    fn of(body: &[u8], little_endian: bool) -> Evidence {
        let mut e = Evidence::default();
        let mut lead = false;
        for (k, pair) in body.chunks_exact(2).enumerate() {
            let unit = u16_of(little_endian, pair[0], pair[1]);
            let trail = (0xDC00..=0xDFFF).contains(&unit);
            if lead != trail {
                e.unpaired += 1;
            }
            lead = (0xD800..=0xDBFF).contains(&unit);
            if (1..0x80).contains(&unit) {
                e.first_ascii.get_or_insert(2 * k);
                e.ascii += 1;
                e.marks += usize::from(matches!(unit as u8, b'{' | b'}' | b'"' | b'\n'));
            }
        }
        e
    }
}

impl Encoding {
    /// Decides from the first bytes of stdout; `None` while more bytes could change the answer.
    /// With a byte-order mark, the units after it must hold an ASCII character and no more
    /// unpaired surrogates than ASCII characters (stray bytes `FF FE` happen; a string cut
    /// mid-emoji too); without one, at least two of a verdict's ASCII characters (`{`, `}`,
    /// `"`, newline) with their NUL bytes, and an unpaired surrogate at most per 4 ASCII
    /// characters, whatever else it holds (CJK, emoji, `✓`). Either way, what comes before
    /// the first such ASCII character must not read as UTF-8 holding a verdict's punctuation.
    pub fn sniff(start: &[u8], complete: bool) -> Option<Encoding> {
        if start.len() < SNIFF && !complete {
            return None;
        }
        let window = &start[..start.len().min(SNIFF)];
        let (bom, body) = match window {
            [0xFF, 0xFE, body @ ..] => (Some(true), body),
            [0xFE, 0xFF, body @ ..] => (Some(false), body),
            _ => (None, window),
        };
        let orders: &[bool] = match bom {
            Some(true) => &[true],
            Some(false) => &[false],
            None => &[true, false],
        };
        for &little_endian in orders {
            let e = Evidence::of(body, little_endian);
            let utf16 = if bom.is_some() {
                e.ascii >= 1 && e.unpaired <= e.ascii
            } else {
                e.marks >= 2 && e.unpaired * 4 <= e.ascii
            };
            let utf16 = utf16 && !utf8_before(body, &e);
            if utf16 {
                return Some(Encoding::Utf16 {
                    little_endian,
                    bom: bom.is_some(),
                });
            }
        }
        Some(Encoding::Utf8)
    }

    /// The warning a hook printing this encoding gets (none for UTF-8).
    pub fn warning(self) -> Option<String> {
        let Encoding::Utf16 { little_endian, bom } = self else {
            return None;
        };
        let order = if little_endian { "little" } else { "big" };
        let how = if bom {
            "with a byte-order mark"
        } else {
            "recognised by the NUL byte beside each ASCII character"
        };
        Some(format!(
            "printed UTF-16 ({order}-endian, {how}), as Windows PowerShell's Out-File and > write it; it was decoded and its verdict read, but hooks must print UTF-8: set [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false and write with Write-Output or [Console]::Out"
        ))
    }
}

enum State {
    /// The first bytes, until the encoding is known.
    Sniffing(Vec<u8>),
    /// The bytes of a character cut by the end of the last chunk.
    Utf8(Vec<u8>),
    Utf16 {
        little_endian: bool,
        /// A byte of a code unit cut by the end of the last chunk.
        odd: Option<u8>,
        /// A leading surrogate waiting for its trailing one.
        high: Option<u16>,
    },
}

/// Turns stdout's bytes into UTF-8 text, chunk by chunk; each chunk's text holds only whole
/// characters.
pub struct Decoder {
    state: State,
    encoding: Option<Encoding>,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder {
            state: State::Sniffing(Vec::with_capacity(SNIFF)),
            encoding: None,
        }
    }
}

impl Decoder {
    /// The encoding found (UTF-8 until one is decided).
    pub fn encoding(&self) -> Encoding {
        self.encoding.unwrap_or(Encoding::Utf8)
    }

    /// The text of `bytes`: borrowed when they are whole UTF-8, else written into `scratch`.
    pub fn decode<'a>(&mut self, bytes: &'a [u8], scratch: &'a mut String) -> &'a str {
        scratch.clear();
        if let State::Sniffing(start) = &mut self.state {
            let take = bytes.len().min(SNIFF.saturating_sub(start.len()));
            start.extend_from_slice(&bytes[..take]);
            let Some(encoding) = Encoding::sniff(start, false) else {
                return "";
            };
            let start = std::mem::take(start);
            self.decide(encoding);
            self.push(&start, scratch);
            self.push(&bytes[take..], scratch);
            return scratch;
        }
        if let State::Utf8(carry) = &self.state {
            if carry.is_empty() {
                if let Ok(text) = std::str::from_utf8(bytes) {
                    return text;
                }
            }
        }
        self.push(bytes, scratch);
        scratch
    }

    /// The text still held back at the end of stdout: an undecided start, a cut character.
    pub fn finish(&mut self, scratch: &mut String) {
        scratch.clear();
        if let State::Sniffing(start) = &mut self.state {
            let start = std::mem::take(start);
            let encoding = Encoding::sniff(&start, true).unwrap_or(Encoding::Utf8);
            self.decide(encoding);
            self.push(&start, scratch);
        }
        match &mut self.state {
            State::Utf8(carry) if !carry.is_empty() => {
                carry.clear();
                scratch.push(char::REPLACEMENT_CHARACTER);
            }
            State::Utf16 { odd, high, .. } => {
                for _ in odd.take().into_iter().chain(high.take().map(|_| 0)) {
                    scratch.push(char::REPLACEMENT_CHARACTER);
                }
            }
            _ => {}
        }
    }

    fn decide(&mut self, encoding: Encoding) {
        self.encoding = Some(encoding);
        self.state = match encoding {
            Encoding::Utf8 => State::Utf8(Vec::new()),
            Encoding::Utf16 { little_endian, .. } => State::Utf16 {
                little_endian,
                odd: None,
                high: None,
            },
        };
    }

    fn push(&mut self, bytes: &[u8], out: &mut String) {
        match &mut self.state {
            State::Sniffing(start) => start.extend_from_slice(bytes),
            State::Utf8(carry) => {
                let joined;
                let mut rest: &[u8] = if carry.is_empty() {
                    bytes
                } else {
                    joined = [std::mem::take(carry).as_slice(), bytes].concat();
                    &joined
                };
                loop {
                    match std::str::from_utf8(rest) {
                        Ok(text) => {
                            out.push_str(text);
                            break;
                        }
                        Err(err) => {
                            let (valid, after) = rest.split_at(err.valid_up_to());
                            out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                            match err.error_len() {
                                // A character cut by the chunk's end: its next bytes follow.
                                None => {
                                    carry.extend_from_slice(after);
                                    break;
                                }
                                Some(bad) => {
                                    out.push(char::REPLACEMENT_CHARACTER);
                                    rest = &after[bad..];
                                }
                            }
                        }
                    }
                }
            }
            State::Utf16 {
                little_endian,
                odd,
                high,
            } => {
                let mut rest = bytes;
                if let Some(first) = odd.take() {
                    let Some((&second, after)) = rest.split_first() else {
                        *odd = Some(first);
                        return;
                    };
                    unit(u16_of(*little_endian, first, second), high, out);
                    rest = after;
                }
                let mut pairs = rest.chunks_exact(2);
                for pair in &mut pairs {
                    unit(u16_of(*little_endian, pair[0], pair[1]), high, out);
                }
                if let [last] = pairs.remainder() {
                    *odd = Some(*last);
                }
            }
        }
    }
}

/// Whether the bytes before the first ASCII character of UTF-16 read as UTF-8 holding a
/// verdict's punctuation (`{"cancel":true}` then UTF-16): UTF-8 output that turns to UTF-16,
/// read as UTF-8 so its start counts. UTF-16 text rarely reads as valid UTF-8 at all.
fn utf8_before(body: &[u8], e: &Evidence) -> bool {
    let before = &body[..e.first_ascii.unwrap_or(0)];
    std::str::from_utf8(before).is_ok_and(|text| text.contains(['{', '}', '"', '\n']))
}

/// Finds UTF-16 JSON in output read as UTF-8 (UTF-8 logs, then a verdict written in UTF-16):
/// `{` or `"` followed by `"`, `:` or a line end, each beside a NUL byte in either byte order
/// (`{\0"\0`, `\0"\0:`), wherever it is, across chunks. Only chunks holding a NUL are looked at.
#[derive(Debug, Default)]
pub struct Utf16Later {
    /// The last 3 bytes of the previous chunk, how many, and the bytes fed before this chunk.
    carry: [u8; 3],
    carried: usize,
    seen: u64,
    /// The offset in stdout's bytes of the first such pattern.
    pub found: Option<u64>,
}

impl Utf16Later {
    /// Looks at the next bytes of stdout (once found, nothing more is looked for).
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.found.is_none() && (bytes.contains(&0) || self.carry[..self.carried].contains(&0)) {
            let base = self.seen - self.carried as u64;
            let edge: Vec<u8> = self.carry[..self.carried]
                .iter()
                .chain(bytes.iter().take(3))
                .copied()
                .collect();
            let hit = |w: &[u8]| {
                let (a, b) = (
                    matches!(w[0], b'{' | b'"'),
                    matches!(w[2], b'"' | b':' | b'\r' | b'\n'),
                );
                let le = a && w[1] == 0 && b && w[3] == 0;
                let (a, b) = (
                    matches!(w[1], b'{' | b'"'),
                    matches!(w[3], b'"' | b':' | b'\r' | b'\n'),
                );
                le || (w[0] == 0 && a && w[2] == 0 && b)
            };
            self.found = match edge.windows(4).position(hit) {
                Some(n) => Some(base + n as u64),
                None => bytes.windows(4).position(hit).map(|n| self.seen + n as u64),
            };
        }
        self.seen += bytes.len() as u64;
        let keep = bytes.len().min(3);
        let mut carry = [0u8; 6];
        carry[..self.carried].copy_from_slice(&self.carry[..self.carried]);
        carry[self.carried..self.carried + keep].copy_from_slice(&bytes[bytes.len() - keep..]);
        let total = self.carried + keep;
        let from = total.saturating_sub(3);
        self.carried = total - from;
        self.carry[..self.carried].copy_from_slice(&carry[from..total]);
    }

    /// The sentence for a hook whose output turned to UTF-16 at byte `at`.
    pub fn warning(at: u64) -> String {
        format!(
            "printed UTF-16 text after UTF-8 output (from byte {at}, a NUL byte beside each character), which the runner reads as UTF-8, so no JSON in it could be read: print everything in UTF-8 (in PowerShell: [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false, and Write-Output rather than Out-File)"
        )
    }
}

fn u16_of(little_endian: bool, a: u8, b: u8) -> u16 {
    if little_endian {
        u16::from_le_bytes([a, b])
    } else {
        u16::from_be_bytes([a, b])
    }
}

/// One UTF-16 code unit; a surrogate without its pair reads as U+FFFD.
fn unit(unit: u16, high: &mut Option<u16>, out: &mut String) {
    utf16_unit(unit, high, |c| {
        out.push(c.unwrap_or(char::REPLACEMENT_CHARACTER))
    });
}

/// The next UTF-16 code unit of a stream, `high` holding a leading surrogate until the unit
/// after it: `emit` gets each character completed, or each surrogate without its pair
/// (`Err`), in order. Shared by stdout's decoder and the scan's `\uXXXX` escapes.
pub(crate) fn utf16_unit(
    unit: u16,
    high: &mut Option<u16>,
    mut emit: impl FnMut(Result<char, u16>),
) {
    if let Some(lead) = high.take() {
        if (0xDC00..=0xDFFF).contains(&unit) {
            let code = 0x10000 + ((u32::from(lead) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
            emit(char::from_u32(code).ok_or(lead));
            return;
        }
        emit(Err(lead));
    }
    match unit {
        0xD800..=0xDBFF => *high = Some(unit),
        // A trailing surrogate alone is no character.
        _ => emit(char::from_u32(u32::from(unit)).ok_or(unit)),
    }
}

/// `bytes` up to the end of their last whole character: text kept up to a byte limit may be
/// cut inside one.
pub(crate) fn whole_chars(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let valid = err.utf8_error().valid_up_to();
            let mut bytes = err.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
    }
}

/// All of `bytes` decoded at once.
pub fn decode_all(bytes: &[u8]) -> (String, Encoding) {
    let mut decoder = Decoder::default();
    let mut scratch = String::new();
    let mut text = decoder.decode(bytes, &mut scratch).to_owned();
    decoder.finish(&mut scratch);
    text.push_str(&scratch);
    (text, decoder.encoding())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn utf16(text: &str, little_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for unit in bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16()) {
            let pair = if little_endian {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            };
            out.extend_from_slice(&pair);
        }
        out
    }

    #[test]
    fn utf16_with_or_without_a_bom_is_recognised_and_decoded() {
        let text = "log\r\n{\"cancel\": true, \"errorMessage\": \"nein 😀\"}\r\n";
        for little_endian in [true, false] {
            for bom in [true, false] {
                let (decoded, encoding) = decode_all(&utf16(text, little_endian, bom));
                assert_eq!(encoding, Encoding::Utf16 { little_endian, bom });
                let expected = if bom {
                    format!("\u{feff}{text}")
                } else {
                    text.to_owned()
                };
                assert_eq!(decoded, expected);
                assert!(encoding.warning().unwrap().contains("UTF-16"));
            }
        }
        // `{}` alone in UTF-16 is 4 bytes, and enough.
        assert_eq!(decode_all(&utf16("{}", true, false)).0, "{}");
    }

    #[test]
    fn utf8_with_nul_noise_stays_utf8() {
        for bytes in [
            &b"\0{\"cancel\":true}"[..],
            b"log\0line\r\n{\"cancel\":true}",
            b"a\0",
            b"\0\0\0\0{}",
            b"\xef\xbb\xbf{\"cancel\":true}",
            b"\xff\xfe bad bytes\n{\"cancel\":true}",
        ] {
            let (text, encoding) = decode_all(bytes);
            assert_eq!(encoding, Encoding::Utf8, "{bytes:?}");
            assert_eq!(text, String::from_utf8_lossy(bytes));
        }
    }

    /// Issue 18 B2: UTF-16 that does not start with ASCII (CJK, emoji, `✓`, `é`) is still
    /// recognised, with or without a byte-order mark, in either byte order.
    #[test]
    fn utf16_starting_with_other_characters_is_recognised() {
        for text in [
            "检查通过，没有问题。\r\n{\"cancel\":true}\r\n",
            "🛑🛑 blocked\n{\"cancel\":true}",
            "🛑🛑🛑🛑 blocked\n{\"cancel\":true}",
            "✓ lint ok\n{\"cancel\":true}",
            "é{\"cancel\":true}",
            &format!("{}\n{{\"cancel\":true}}", "中".repeat(400)),
        ] {
            for little_endian in [true, false] {
                for bom in [true, false] {
                    let (decoded, encoding) = decode_all(&utf16(text, little_endian, bom));
                    assert_eq!(encoding, Encoding::Utf16 { little_endian, bom }, "{text}");
                    assert_eq!(decoded.trim_start_matches('\u{feff}'), text);
                }
            }
        }
    }

    /// Issue 18 B2: output that turns to UTF-16 after UTF-8 is found, wherever the chunks are
    /// cut; UTF-8 with NUL bytes elsewhere is not.
    #[test]
    fn utf16_after_utf8_is_found() {
        let mut bytes = b"log line\n".to_vec();
        bytes.extend(utf16("{\"cancel\": true}\r\n", true, false));
        for chunk in 1..6 {
            let mut later = Utf16Later::default();
            for piece in bytes.chunks(chunk) {
                later.feed(piece);
            }
            assert_eq!(later.found, Some(9), "pieces of {chunk}");
        }
        let mut be = b"log\n".to_vec();
        be.extend(utf16("{\r\n  \"cancel\": true\r\n}", false, false));
        let mut later = Utf16Later::default();
        later.feed(&be);
        assert_eq!(later.found, Some(4));
        for clean in [
            &b"log\0line\r\n{\"cancel\":true}\0"[..],
            b"\0\0{}\0",
            b"a{\0b\"\0",
        ] {
            let mut later = Utf16Later::default();
            later.feed(clean);
            assert_eq!(later.found, None, "{clean:?}");
        }
    }

    #[test]
    fn broken_utf16_reads_as_replacement_characters() {
        // A leading surrogate alone, a trailing one alone, an odd last byte.
        let bytes = [0xFF, 0xFE, 0x3D, 0xD8, b'x', 0, 0x00, 0xDC, b'{', 0, b'y'];
        assert_eq!(decode_all(&bytes).0, "\u{feff}\u{fffd}x\u{fffd}{\u{fffd}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Issue 18 B2: UTF-8 text without NUL (CJK, emoji, anything printable), with a verdict
        /// anywhere in it, even after stray `FF FE` bytes, is never taken for UTF-16; nor is it
        /// when UTF-16 follows it (which is then found).
        #[test]
        fn utf8_text_with_a_verdict_is_never_utf16(
            before in "[^\\x00]{0,300}",
            after in "[^\\x00]{0,300}",
            verdict in prop_oneof![Just("{\"cancel\":true}"), Just("{\n  \"cancel\": true\n}"), Just("{}")],
            stray in prop_oneof![Just(&b""[..]), Just(&b"\xff\xfe"[..]), Just(&b"\xfe\xff"[..])],
            then in prop_oneof![Just(None), "[a-z{}\":]{0,20}".prop_map(Some)],
            little_endian: bool,
        ) {
            let mut bytes = [stray, before.as_bytes(), verdict.as_bytes(), after.as_bytes()].concat();
            let mut later = Utf16Later::default();
            later.feed(&bytes);
            prop_assert_eq!(later.found, None);
            if let Some(then) = &then {
                bytes.extend(utf16(&format!("\n{{\"cancel\":false}}{then}"), little_endian, false));
            }
            prop_assert_eq!(decode_all(&bytes).1, Encoding::Utf8);
            let mut later = Utf16Later::default();
            later.feed(&bytes);
            prop_assert_eq!(later.found.is_some(), then.is_some());
        }
    }

    proptest! {
        /// Split anywhere, the stream decodes as the whole does, and UTF-8 as from_utf8_lossy.
        #[test]
        fn chunks_decode_as_the_whole(
            bytes in prop::collection::vec(prop_oneof![Just(0u8), Just(0xFFu8), Just(0xC3), Just(0xA9), Just(0xF0), Just(0x9F), any::<u8>(), 0x20u8..0x7f], 0..64),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
            utf16_text in "[a-z{}\":é😀]{0,12}",
        ) {
            let sources = [bytes.clone(), utf16(&utf16_text, true, true), utf16(&utf16_text, false, false)];
            for source in sources {
                let (whole, encoding) = decode_all(&source);
                if encoding == Encoding::Utf8 {
                    prop_assert_eq!(&whole, &String::from_utf8_lossy(&source));
                }
                let mut at: Vec<usize> = cuts.iter().map(|c| c.index(source.len() + 1)).collect();
                at.sort_unstable();
                let mut decoder = Decoder::default();
                let mut scratch = String::new();
                let mut text = String::new();
                let mut from = 0;
                for to in at.into_iter().chain([source.len()]) {
                    text.push_str(decoder.decode(&source[from..to], &mut scratch));
                    from = to;
                }
                decoder.finish(&mut scratch);
                text.push_str(&scratch);
                prop_assert_eq!(&text, &whole);
                prop_assert_eq!(decoder.encoding(), encoding);
            }
        }
    }
}
