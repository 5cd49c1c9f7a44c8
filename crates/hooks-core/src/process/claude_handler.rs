//! What differs when the hook is a Claude settings handler: its stdin is Claude's JSON for the
//! event (built from the run's completed input), `CLAUDE_PROJECT_DIR` names its project, its
//! answer is read by Claude's rules (exit code 2, its JSON) into the same verdict, and an exit
//! 127 is explained from its command, which has no file of its own.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::Path;

use super::execution::RunContext;
use crate::claude::{
    claude_input, cline_tool_input, exit_two, read_output, ClaudeHook, Ended, ExitTwo,
};
use crate::discovery::DiscoveredHook;
use crate::verdict::{Kept, Spotted, Verdict, HEAD_KEEP, TAIL_KEEP};

/// The variable naming a Claude hook's project folder, as Claude Code sets it.
pub const CLAUDE_PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";

impl RunContext {
    /// The bytes `hook` reads on stdin: the run's input, or a Claude handler's own.
    pub(super) fn stdin_of(&self, hook: &DiscoveredHook, cwd: &Path) -> Cow<'_, [u8]> {
        let (Some(_), Some(value)) = (&hook.claude, &self.claude_input) else {
            return Cow::Borrowed(&self.input);
        };
        let call = claude_input(&hook.hook_name, value, self.profile, cwd);
        let mut bytes = serde_json::to_vec(&call.input).unwrap_or_else(|_| b"{}".to_vec());
        bytes.push(b'\n');
        Cow::Owned(bytes)
    }

    /// The variables added to `hook`'s environment: the run's, and a Claude handler's
    /// `CLAUDE_PROJECT_DIR` (its working directory).
    pub(super) fn env_of(
        &self,
        hook: &DiscoveredHook,
        cwd: &Path,
    ) -> Cow<'_, [(OsString, OsString)]> {
        if hook.claude.is_none() {
            return Cow::Borrowed(&self.env);
        }
        let mut env = self.env.clone();
        env.retain(|(name, _)| name != CLAUDE_PROJECT_DIR_VAR);
        env.push((CLAUDE_PROJECT_DIR_VAR.into(), cwd.as_os_str().to_owned()));
        Cow::Owned(env)
    }
}

/// What reading a Claude handler's answer needs beyond its stdout: how it ended, its stderr,
/// and the call it answered (its `updatedInput` is put back into the Cline tool's parameters).
pub(super) struct ClaudeEnding {
    pub claude: std::sync::Arc<ClaudeHook>,
    pub hook_name: String,
    pub exit_code: Option<i32>,
    pub stderr: String,
    pub input: Option<std::sync::Arc<serde_json::Value>>,
    pub project_dir: std::path::PathBuf,
}

/// A Claude handler's answer from what was kept of its stdout and how it ended: the verdict,
/// and whether its exit code is its answer (2) rather than a failure.
pub(super) fn claude_verdict(ending: &ClaudeEnding, kept: &Kept) -> (Verdict, bool) {
    let ClaudeEnding {
        claude,
        exit_code,
        stderr,
        ..
    } = ending;
    let exit_code = *exit_code;
    // The tail window holds all of stdout until it overflows into `head`. Past that, what is
    // kept (its first and last MiB) is read as text, so a block in it still blocks; the hook
    // is `failed`, its answer not read whole.
    let joined;
    let stdout = match kept.head.is_empty() {
        true => kept.tail.as_str(),
        false => {
            joined = format!("{}\n{}", kept.head, kept.tail);
            joined.as_str()
        }
    };
    let answer = read_output(&Ended {
        event: &claude.event,
        exit_code,
        stdout: Some(stdout),
        stderr,
        profile: kept.profile,
    });
    let mut verdict = answer.verdict;
    // Too long to read whole: a block printed anywhere in it still blocks.
    let spotted = match kept.spotted {
        Some(Spotted::Continue) => true,
        Some(Spotted::Decision) => exit_two(&claude.event) == ExitTwo::Blocks,
        None => false,
    };
    if !kept.head.is_empty() && spotted && !verdict.cancel {
        verdict.cancel = true;
        verdict.error_message = format!(
            "blocked: {} printed a block in {} bytes of stdout, too long to read its reason",
            claude.position, kept.raw_len
        );
    }
    if !kept.head.is_empty() {
        verdict.problem = Some(format!(
            "printed {} bytes on stdout, more than a Claude hook's answer is read whole from ({} MiB): all of it was searched for a block{}; print the JSON answer alone, and logs on stderr",
            kept.raw_len,
            (HEAD_KEEP + TAIL_KEEP) >> 20,
            match verdict.cancel {
                true => ", which was found and blocks",
                false => " and none was found",
            }
        ));
    }
    // Claude's field names go back under the Cline tool's own (see `cline_tool_input`).
    if let (Some(updated), Some(input)) = (verdict.override_input.take(), &ending.input) {
        verdict.override_input = Some(cline_tool_input(
            &ending.hook_name,
            input,
            kept.profile,
            &ending.project_dir,
            &updated,
        ));
    }
    if exit_code == Some(127) {
        // The run's failure says it, naming the command (see `exit_127`).
        verdict
            .warnings
            .retain(|w| !w.starts_with("exited with code 127"));
    }
    (verdict, answer.exit_is_answer)
}

/// Why a Claude handler exited 127: its shell could not find a program its command names.
pub(super) fn exit_127(claude: &ClaudeHook, stderr: &str) -> String {
    let said = stderr.trim().lines().last().unwrap_or("").trim();
    let said = match said.is_empty() {
        true => String::new(),
        false => format!(" (the shell said: {said})"),
    };
    format!(
        "exited 127: its shell could not find a program or script its command names{said}, so this hook did not run; fix the path in {} at {}: {}",
        claude.file.display(),
        claude.position,
        serde_json::Value::String(claude.command.clone())
    )
}
