//! `diagnoseHooks`: the doctor's report (`cline_hooks_core::diagnosis`) as JavaScript objects.
//! Converts only: the options in, the report out. The structs below declare its shape for
//! index.d.ts; the report reaches JavaScript through the core's own JSON form of it.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::node::errors::Failure;
use crate::node::options::{self, DiscoveryOptions};
use crate::node::results::HookFileReport;
use crate::node::settle;
use cline_hooks_core::diagnosis;
use cline_hooks_core::factory;

/// A folder discovery searches.
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
pub struct HookFolderReport {
    /// The folder (absolute).
    pub path: String,
    /// Which kind of folder it is.
    #[napi(
        ts_type = "'managed' | 'extra' | 'global' | 'workspace' | 'claudeUser' | 'claudeProject' | 'claudeLocal'"
    )]
    pub source: String,
    /// The workspace root it belongs to (workspace folders only).
    pub workspace_root: Option<String>,
    /// Whether it exists. One that does not is normal: it holds no hooks.
    pub exists: bool,
    /// Why it cannot be read (permission denied, a link loop, ...), with the fix.
    pub problem: Option<String>,
}

/// The facts of this machine and call that decide which files run and how.
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
pub struct HookRuntimeFacts {
    /// `process.platform`'s name for this system: `linux`, `darwin`, `win32`, ...
    pub platform: String,
    /// Whose conventions apply.
    #[napi(ts_type = "'extension' | 'cli'")]
    pub profile: String,
    /// The global hooks folder as resolved (the Documents known folder on Windows,
    /// `XDG_DOCUMENTS_DIR` on Linux); absent when global hooks are off.
    pub global_hooks_dir: Option<String>,
    /// The `cli` profile's data folder (`$CLINE_DIR`, else `~/.cline`); `cli` profile only.
    pub cline_dir: Option<String>,
    /// The managed hooks folder, if any.
    pub managed_hooks_dir: Option<String>,
    /// The PowerShell a `.ps1` hook starts with (`pwsh` from PATH, else Windows PowerShell on
    /// Windows); absent when none is found.
    pub powershell: Option<String>,
    /// PATHEXT as this process read it (Windows only; absent elsewhere or when unset).
    pub pathext: Option<String>,
    /// The policy store, when one was given.
    pub policy_file: Option<String>,
    /// Which hooks must be approved to run.
    #[napi(ts_type = "'workspace' | 'all' | 'off'")]
    pub trust: String,
    /// Which hooks run confined (`sandbox`), and whether this machine can confine them.
    pub sandbox: HookSandboxSupport,
}

/// The sandbox as `diagnoseHooks` sees it.
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
pub struct HookSandboxSupport {
    /// The `sandbox` option.
    #[napi(ts_type = "'off' | 'workspace' | 'all'")]
    pub mode: String,
    /// Whether this machine can confine hooks (Linux with Landlock, macOS).
    pub supported: bool,
    /// What confinement gives here, or why there is none (a confined hook then does not
    /// start).
    pub detail: String,
}

/// What `diagnoseHooks` found.
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
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

/// The report on its way to JavaScript: JSON text made off the JavaScript thread, read there
/// by the engine's `JSON.parse` as run results are (`results::to_js`).
pub struct DiagnosisJson {
    text: String,
    ascii: bool,
}

impl ToNapiValue for DiagnosisJson {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        crate::node::results::to_js(&Env::from_raw(env), &val.text, val.ascii, None)
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
) -> Result<PromiseRaw<'env, DiagnosisJson>> {
    let read = || -> std::result::Result<_, Failure<'env>> {
        let options =
            options::options_object_like(options, "{ workspaceRoots: ['/path/to/repo'] }")?;
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
        async move {
            let found =
                diagnosis::diagnose_off_thread(layout, node, factory::DISCOVERY_LIMIT).await?;
            // Strings, booleans and numbers (paths written lossily): serializing cannot fail.
            let text = serde_json::to_string(&found).unwrap_or_else(|_| "null".to_owned());
            Ok(DiagnosisJson {
                ascii: text.is_ascii(),
                text,
            })
        },
        |json| json,
    )
}
