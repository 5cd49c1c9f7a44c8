//! What is said of a file a settings command runs that is not there: one sentence, for the
//! discovery warning and the doctor's finding alike. A missing program exits 127, but an
//! interpreter given a missing script exits its own way (`sh` and `python3` exit 2, which a
//! blocking event reads as a block, in Claude Code as here; `node` exits 1), so the sentence
//! does not promise one code. Pure.

use std::path::Path;

/// The sentence for a handler whose command runs `path`, which is not a readable file.
pub fn missing_script(path: &Path) -> String {
    format!(
        "its command names {}, which is not a readable file, so this handler cannot do its job: a program run directly exits 127, a failure; an interpreter given a missing script exits its own way (sh, dash, perl and python3 exit 2, which blocks every call it runs for, as in Claude Code; bash exits 127; node exits 1); fix the path",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_names_the_file_and_promises_no_single_exit_code() {
        let said = missing_script(Path::new("/w/.claude/hooks/nope.py"));
        assert!(said.starts_with("its command names /w/.claude/hooks/nope.py, which is not"));
        assert!(said.contains("exit 2, which blocks every call"));
        assert!(said.ends_with("fix the path"));
    }
}
