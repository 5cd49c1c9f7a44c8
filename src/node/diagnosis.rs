//! `diagnoseHooks`: the doctor's report (`cline_hooks_core::diagnosis`) as JavaScript objects.
//! Converts only: the options in, the report out.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::node::errors::Failure;
use crate::node::options::{self, DiscoveryOptions};
use crate::node::settle;
use cline_hooks_core::diagnosis::{self, Diagnosis};
use cline_hooks_core::factory;

/// A folder discovery searches.
#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookFolderReport {
    /// The folder (absolute).
    pub path: String,
    /// Which kind of folder it is.
    #[napi(ts_type = "'managed' | 'extra' | 'global' | 'workspace'")]
    pub source: String,
    /// The workspace root it belongs to (workspace folders only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<String>,
    /// Whether it exists. One that does not is normal: it holds no hooks.
    pub exists: bool,
    /// Why it cannot be read (permission denied, a link loop, ...), with the fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// A file in a searched folder, whether it will run, and when not, why and the fix.
#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookFileReport {
    /// The file (absolute).
    pub path: String,
    /// The hook it is a file of; for a misnamed file (`PreToolUse.sh` on macOS/Linux,
    /// `PretoolUse`, `PreToolUse.bak`), the hook it most likely means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_name: Option<String>,
    /// Which kind of folder it is in.
    #[napi(ts_type = "'managed' | 'extra' | 'global' | 'workspace'")]
    pub source: String,
    /// The workspace root of its folder (workspace folders only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<String>,
    /// Whether it runs (and starts) when its hook fires.
    pub will_run: bool,
    /// Why it will not run. Every one is a mistake to fix but `notAHook` (a file named like no
    /// hook, such as a helper script or notes, which is left alone on purpose).
    #[napi(
        ts_type = "'notExecutable' | 'wrongPlatformName' | 'unknownHookName' | 'notAHook' | 'missingInterpreter' | 'windowsLineEndings' | 'noShebang' | 'noPowerShell' | 'notAFile' | 'shadowed' | 'disabledByUser' | 'notTrusted' | 'cannotRun'"
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The problem in one sentence for the hook's author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What to do: a command to run (`chmod +x <path>`, `mv <path> <new path>`) or a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// The facts of this machine and call that decide which files run and how.
#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRuntimeFacts {
    /// `process.platform`'s name for this system: `linux`, `darwin`, `win32`, ...
    pub platform: String,
    /// Whose conventions apply.
    #[napi(ts_type = "'extension' | 'cli'")]
    pub profile: String,
    /// The global hooks folder as resolved (the Documents known folder on Windows,
    /// `XDG_DOCUMENTS_DIR` on Linux); absent when global hooks are off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_hooks_dir: Option<String>,
    /// The `cli` profile's data folder (`$CLINE_DIR`, else `~/.cline`); `cli` profile only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cline_dir: Option<String>,
    /// The managed hooks folder, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_hooks_dir: Option<String>,
    /// The PowerShell a `.ps1` hook starts with (`pwsh` from PATH, else Windows PowerShell on
    /// Windows); absent when none is found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub powershell: Option<String>,
    /// PATHEXT as this process read it (Windows only; absent elsewhere or when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pathext: Option<String>,
    /// The policy store, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_file: Option<String>,
    /// Which hooks must be approved to run.
    #[napi(ts_type = "'workspace' | 'all' | 'off'")]
    pub trust: String,
}

/// What `diagnoseHooks` found.
#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookDiagnosis {
    /// Every folder searched, in search order, whether it exists or not.
    pub folders: Vec<HookFolderReport>,
    /// Every file of every readable folder (folder by folder, by name), those that will run
    /// too, and every entry named like a hook (a folder `PreToolUse/` included).
    pub hooks: Vec<HookFileReport>,
    /// The machine's facts.
    pub runtime: HookRuntimeFacts,
    /// Problems outside the folders: a policy store that cannot be used.
    pub warnings: Vec<String>,
    /// How many mistakes: unreadable folders plus files that will not run, `notAHook` ones
    /// excepted. `0` means every hook file found runs.
    pub mistakes: u32,
}

/// The report on its way to JavaScript: built from JSON with defined properties, as
/// `discoverHooks`' list is, so no setter on a prototype runs.
pub struct DiagnosisValue(HookDiagnosis);

impl ToNapiValue for DiagnosisValue {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        // Strings, booleans and numbers: serializing cannot fail.
        let value = serde_json::to_value(&val.0).unwrap_or(Value::Null);
        crate::node::properties::json_value(env, &value)
    }
}

/// Explains every file in every folder that `options` makes discovery search: whether it will
/// run, and when not, why and the fix (no exec bit, a name for another platform, a misspelt
/// hook name, a missing interpreter, Windows line endings, no PowerShell, a folder that cannot
/// be read, disabled or not trusted in the policy store), with the runtime facts behind it.
#[napi(
    catch_unwind,
    ts_args_type = "options?: DiscoveryOptions",
    ts_return_type = "Promise<HookDiagnosis>"
)]
pub fn diagnose_hooks<'env>(
    env: &'env Env,
    options: Option<Unknown<'env>>,
) -> Result<PromiseRaw<'env, DiagnosisValue>> {
    let read = || -> std::result::Result<_, Failure<'env>> {
        let options = options::options_object(options)?;
        let parsed = options::read::<DiscoveryOptions>(env, options.as_ref(), "diagnoseHooks")?;
        options::process_limit("maxConcurrentHooks", parsed.max_concurrent_hooks)?;
        Ok(options::layout(&parsed)?)
    };
    let layout = match read() {
        Ok(layout) => layout,
        Err(failure) => return settle::reject(env, failure),
    };
    let node = options::node_path(env);
    settle::spawn(
        env,
        None,
        diagnosis::diagnose_off_thread(layout, node, factory::DISCOVERY_LIMIT),
        |found| DiagnosisValue(convert(found)),
    )
}

fn text(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

fn convert(found: Diagnosis) -> HookDiagnosis {
    let mistakes = u32::try_from(found.mistakes()).unwrap_or(u32::MAX);
    let runtime = found.runtime;
    HookDiagnosis {
        folders: found
            .folders
            .into_iter()
            .map(|f| HookFolderReport {
                path: text(&f.path),
                source: f.source.as_str().to_owned(),
                workspace_root: f.workspace_root.as_deref().map(text),
                exists: f.exists,
                problem: f.problem,
            })
            .collect(),
        hooks: found
            .hooks
            .into_iter()
            .map(|h| {
                let (problem, reason, fix) = match h.finding {
                    Some(f) => (Some(f.problem.as_str().to_owned()), Some(f.reason), f.fix),
                    None => (None, None, None),
                };
                HookFileReport {
                    path: text(&h.path),
                    hook_name: h.hook_name,
                    source: h.source.as_str().to_owned(),
                    workspace_root: h.workspace_root.as_deref().map(text),
                    will_run: h.will_run,
                    problem,
                    reason,
                    fix,
                }
            })
            .collect(),
        runtime: HookRuntimeFacts {
            platform: runtime.platform.to_owned(),
            profile: match runtime.profile {
                cline_hooks_core::discovery::Profile::Extension => "extension",
                cline_hooks_core::discovery::Profile::Cli => "cli",
            }
            .to_owned(),
            global_hooks_dir: runtime.global_hooks_dir.as_deref().map(text),
            cline_dir: runtime.cline_dir.as_deref().map(text),
            managed_hooks_dir: runtime.managed_hooks_dir.as_deref().map(text),
            powershell: runtime.powershell.as_deref().map(text),
            pathext: runtime.pathext,
            policy_file: runtime.policy_file.as_deref().map(text),
            trust: runtime.trust.as_str().to_owned(),
        },
        warnings: found.warnings,
        mistakes,
    }
}
