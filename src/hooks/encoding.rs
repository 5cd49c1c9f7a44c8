//! The encoding of a hook's stdout, and its text as UTF-8, decoded as it streams.
//!
//! The contract is UTF-8. Windows PowerShell's `Out-File` and `>` write UTF-16 (little-endian,
//! with a byte-order mark), and so does a console set to `[Text.Encoding]::Unicode`; such
//! output is recognised by its byte-order mark or, without one, by the NUL byte beside every
//! ASCII character, and decoded, so its verdict still counts. Anything else is UTF-8, invalid
//! bytes read as U+FFFD exactly as `String::from_utf8_lossy` reads them.

/// How many bytes are looked at before deciding (fewer when stdout is shorter).
const SNIFF: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16 { little_endian: bool, bom: bool },
}

impl Encoding {
    /// Decides from the first bytes of stdout; `None` while more bytes could change the answer.
    /// A byte-order mark alone is not enough (stray bytes `FF FE` happen): an ASCII character
    /// must follow in the first bytes, its NUL byte where the byte order puts it.
    pub fn sniff(start: &[u8], complete: bool) -> Option<Encoding> {
        if start.len() < SNIFF && !complete {
            return None;
        }
        let window = &start[..start.len().min(SNIFF)];
        let ascii = |b: u8| b != 0 && b < 0x80;
        let units =
            |body: &[u8]| -> Vec<(u8, u8)> { body.chunks_exact(2).map(|p| (p[0], p[1])).collect() };
        let with_bom = match window {
            [0xFF, 0xFE, body @ ..] => Some((true, units(body))),
            [0xFE, 0xFF, body @ ..] => Some((false, units(body))),
            _ => None,
        };
        if let Some((little_endian, units)) = with_bom {
            let ascii_unit = |&(a, b): &(u8, u8)| {
                if little_endian {
                    ascii(a) && b == 0
                } else {
                    a == 0 && ascii(b)
                }
            };
            return Some(if units.iter().any(ascii_unit) {
                Encoding::Utf16 {
                    little_endian,
                    bom: true,
                }
            } else {
                Encoding::Utf8
            });
        }
        let units = units(window);
        for little_endian in [true, false] {
            let nul_beside_ascii = units.iter().all(|&(a, b)| {
                if little_endian {
                    ascii(a) && b == 0
                } else {
                    a == 0 && ascii(b)
                }
            });
            if units.len() >= 2 && nul_beside_ascii {
                return Some(Encoding::Utf16 {
                    little_endian,
                    bom: false,
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

fn u16_of(little_endian: bool, a: u8, b: u8) -> u16 {
    if little_endian {
        u16::from_le_bytes([a, b])
    } else {
        u16::from_be_bytes([a, b])
    }
}

/// One UTF-16 code unit; a surrogate without its pair reads as U+FFFD.
fn unit(unit: u16, high: &mut Option<u16>, out: &mut String) {
    if let Some(lead) = high.take() {
        if (0xDC00..=0xDFFF).contains(&unit) {
            let code = 0x10000 + ((u32::from(lead) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
            out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            return;
        }
        out.push(char::REPLACEMENT_CHARACTER);
    }
    match unit {
        0xD800..=0xDBFF => *high = Some(unit),
        _ => out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
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

    #[test]
    fn broken_utf16_reads_as_replacement_characters() {
        // A leading surrogate alone, a trailing one alone, an odd last byte.
        let bytes = [0xFF, 0xFE, 0x3D, 0xD8, b'x', 0, 0x00, 0xDC, b'y'];
        assert_eq!(decode_all(&bytes).0, "\u{feff}\u{fffd}x\u{fffd}\u{fffd}");
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
