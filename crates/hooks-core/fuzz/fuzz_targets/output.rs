//! Any bytes a hook could print: parsing never panics, never recurses without bound, a verdict
//! that cancels always comes with a parsed object, stdout read in pieces (as the runner reads
//! it) says what it says at once, and a `{"cancel":true}` printed last on its own line is found
//! whatever came before it.
#![no_main]

use cline_hooks_core::discovery::Profile;
use cline_hooks_core::verdict::{decode_all, parse, read, Encoding, Reader, MAX_CONTEXT_BYTES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the case: bit 1 the CLI profile, bit 0 reading in pieces of
    // (the other bits + 1) bytes, with windows that small too, so fields come from the scan.
    let (flags, stdout) = data.split_first().map_or((0, data), |(f, rest)| (*f, rest));
    let profile = if flags & 2 == 2 {
        Profile::Cli
    } else {
        Profile::Extension
    };
    let verdict = parse(stdout, profile);
    if verdict.cancel || verdict.review {
        assert!(verdict.object.is_some());
    }
    assert!(verdict.context_modification.len() <= MAX_CONTEXT_BYTES);
    assert!(verdict.error_message.len() <= MAX_CONTEXT_BYTES);

    if flags & 1 == 1 {
        let piece = usize::from(flags >> 2) + 1;
        let mut reader = Reader::with_windows(profile, 1 << 20, 1 << 20);
        for chunk in stdout.chunks(piece) {
            reader.feed(chunk);
        }
        assert_eq!(read(reader.finish()), verdict, "read in pieces of {piece}");

        let mut reader = Reader::with_windows(profile, 0, 0);
        for chunk in stdout.chunks(piece) {
            reader.feed(chunk);
        }
        let kept = read(reader.finish());
        assert_eq!(kept.cancel, verdict.cancel, "fields from the scan");
        assert_eq!(
            kept.error_message, verdict.error_message,
            "fields from the scan"
        );
        assert_eq!(kept.context_modification, verdict.context_modification);
        assert_eq!(kept.override_input, verdict.override_input);
    }

    // After a newline no string of the junk is still open, so nothing can swallow the object
    // (in UTF-8: bytes that read as UTF-16 make the appended line something else).
    let mut last = stdout.to_vec();
    last.extend_from_slice(b"\n{\"cancel\":true}");
    if decode_all(&last).1 == Encoding::Utf8 {
        let verdict = parse(&last, Profile::Extension);
        assert!(verdict.cancel, "the final {{\"cancel\":true}} was lost");
        assert_eq!(verdict.object.map(|o| o.len()), Some(1));
    }
});
