//! `HookFileReport`: a hook file that will or will not run, and why, as `diagnoseHooks()`
//! lists every file and a run's `notRun` lists the ones that did not run. Declares the shape
//! for index.d.ts; the reports reach JavaScript as the core's JSON.

use napi_derive::napi;

/// A file in a searched folder, whether it will run, and when not, why and the fix.
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
pub struct HookFileReport {
    /// The file (absolute).
    pub path: String,
    /// The hook it is a file of; for a misnamed file (`PreToolUse.sh` on macOS/Linux,
    /// `PretoolUse`, `PreToolUse.bak`), the hook it most likely means.
    pub hook_name: Option<String>,
    /// Which kind of folder it is in.
    #[napi(ts_type = "'managed' | 'extra' | 'global' | 'workspace'")]
    pub source: String,
    /// The workspace root of its folder (workspace folders only).
    pub workspace_root: Option<String>,
    /// Whether it runs (and starts) when its hook fires.
    pub will_run: bool,
    /// Why it will not run. Every one is a mistake to fix but `notAHook` (a file named like no
    /// hook, or a document about one such as `PreToolUse.md`: a helper script or notes, left
    /// alone on purpose).
    #[napi(
        ts_type = "'notExecutable' | 'wrongPlatformName' | 'unknownHookName' | 'notAHook' | 'missingInterpreter' | 'windowsLineEndings' | 'noShebang' | 'noPowerShell' | 'notAFile' | 'shadowed' | 'disabledByUser' | 'notTrusted' | 'cannotRun' | 'missingScript'"
    )]
    pub problem: Option<String>,
    /// The problem in one sentence for the hook's author.
    pub reason: Option<String>,
    /// What to do: a command to run (`chmod +x <path>`, `mv <path> <new path>`) or a sentence.
    pub fix: Option<String>,
}
