//! Any bytes a hook could print: parsing never panics, never recurses without bound, a verdict
//! that cancels always comes with a parsed object, and a `{"cancel":true}` printed last on its
//! own line is found whatever came before it.
#![no_main]

use cline_hooks::hooks::discover::Profile;
use cline_hooks::hooks::output::{parse, MAX_CONTEXT_BYTES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the case: bit 0 the cut tail, bit 1 the CLI profile.
    let (flags, stdout) = data.split_first().map_or((0, data), |(f, rest)| (*f, rest));
    let cut = flags & 1 == 1;
    let profile = if flags & 2 == 2 {
        Profile::Cli
    } else {
        Profile::Extension
    };
    let verdict = parse(stdout, cut, profile);
    if verdict.cancel || verdict.review {
        assert!(verdict.object.is_some());
    }
    assert!(verdict.context_modification.len() <= MAX_CONTEXT_BYTES);

    // After a newline no string of the junk is still open, so nothing can swallow the object.
    let mut last = stdout.to_vec();
    last.extend_from_slice(b"\n{\"cancel\":true}");
    let verdict = parse(&last, false, Profile::Extension);
    assert!(verdict.cancel, "the final {{\"cancel\":true}} was lost");
    assert_eq!(verdict.object.map(|o| o.len()), Some(1));
});
