//! Any bytes a hook could print: parsing never panics, never recurses without bound, and
//! a verdict that cancels always comes with a parsed object.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (cut, stdout) = match data.split_first() {
        Some((flag, rest)) => (flag & 1 == 1, rest),
        None => (false, data),
    };
    let verdict = cline_hooks::hooks::output::parse(stdout, cut);
    if verdict.cancel || verdict.review {
        assert!(verdict.object.is_some());
    }
    assert!(verdict.context_modification.chars().count() <= cline_hooks::hooks::output::MAX_CONTEXT_CHARS + 200);
});
