//! Discovers and runs the hooks of one event, as an agent embedding `cline-hooks-core` would,
//! and prints the combined result as JSON.
//!
//! ```text
//! cargo run -p cline-hooks-core --example run_event -- PreToolUse \
//!     --workspace examples/workspace --no-global < examples/inputs/PreToolUse.json
//! ```
//!
//! The input is one JSON object, read from `--input FILE` (`-`: stdin) or else from stdin
//! (`{}` when stdin is a terminal or empty). Exit status: 0 when the hooks allow, 1 when they cancel, 2 for a mistake in the
//! call (usage, input, discovery timeout): the same as `cline-hooks run`.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use cline_hooks_core::discovery::{GlobalDir, Layout, Profile};
use cline_hooks_core::event::{HookInput, RunReport, RunSettings};
use cline_hooks_core::factory::{discovery_limit, Factory};
use cline_hooks_core::process::Execution;

const USAGE: &str = "usage: run_event HOOK_NAME [--workspace DIR]... [--hooks-dir DIR]... \
[--no-global | --global-dir DIR] [--profile extension|cli] [--timeout-ms N] [--sequential] \
[--input FILE|-]";

/// What the command line asked for.
struct Args {
    hook_name: String,
    layout: Layout,
    settings: RunSettings,
    input: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let argv: Vec<String> = match std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect()
    {
        Ok(argv) => argv,
        Err(arg) => {
            eprintln!("run_event: argument {arg:?} is not UTF-8 text\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if argv.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let args = match parse_args(argv.into_iter()) {
        Ok(args) => args,
        Err(why) => {
            eprintln!("run_event: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let input = match read_input(args.input.as_deref()) {
        Ok(input) => input,
        Err(why) => {
            eprintln!("run_event: {why}");
            return ExitCode::from(2);
        }
    };

    // One factory per task (it caches discovery), one runner per event.
    let factory = Arc::new(Factory::new(&args.layout, None, None));
    let limit = discovery_limit(args.settings.timeout);
    let report = match factory.snapshot(&args.hook_name, limit).await {
        Ok(snapshot) => snapshot.runner().run(input, args.settings).await,
        Err(err) => Err(err),
    };

    match report {
        Ok(report) => {
            let cancel = report.combined.cancel;
            let printed = serde_json::to_string_pretty(&report_json(&report))
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    // Not `println!`, which panics when stdout is closed (`| head -1`).
                    writeln!(std::io::stdout().lock(), "{text}").map_err(|e| e.to_string())
                });
            if let Err(why) = printed {
                eprintln!("run_event: could not print the result: {why}");
                return ExitCode::from(2);
            }
            ExitCode::from(u8::from(cancel))
        }
        // A mistake in the call; what hooks do is never an error but part of the report.
        Err(err) => {
            eprintln!("run_event: {err}");
            ExitCode::from(2)
        }
    }
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut hook_name = None;
    let mut layout = Layout::default();
    let mut settings = RunSettings::default();
    let mut input = None;
    while let Some(arg) = argv.next() {
        let mut value = |name: &str| argv.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--workspace" => layout
                .workspace_roots
                .push(absolute(&value("--workspace")?)?),
            "--hooks-dir" => layout
                .extra_hooks_dirs
                .push(absolute(&value("--hooks-dir")?)?),
            "--no-global" => layout.global_hooks_dir = GlobalDir::Off,
            "--global-dir" => {
                layout.global_hooks_dir = GlobalDir::At(absolute(&value("--global-dir")?)?)
            }
            "--profile" => {
                layout.profile = match value("--profile")?.as_str() {
                    "extension" => Profile::Extension,
                    "cli" => Profile::Cli,
                    other => return Err(format!("unknown profile {other:?}")),
                }
            }
            "--timeout-ms" => {
                let text = value("--timeout-ms")?;
                let ms: u64 = text
                    .parse()
                    .ok()
                    .filter(|ms| *ms > 0)
                    .ok_or(format!("--timeout-ms {text:?} is not a positive integer"))?;
                settings.timeout = Duration::from_millis(ms);
            }
            "--sequential" => settings.sequential = true,
            "--input" => input = Some(PathBuf::from(value("--input")?)),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            name if hook_name.is_none() => hook_name = Some(name.to_owned()),
            extra => return Err(format!("unexpected argument {extra:?}")),
        }
    }
    Ok(Args {
        hook_name: hook_name.ok_or("no hook name given")?,
        layout,
        settings,
        input,
    })
}

/// The core takes absolute paths; relative ones are resolved against the current directory.
fn absolute(path: &str) -> Result<PathBuf, String> {
    if path.is_empty() {
        return Err("an empty path names no directory".to_owned());
    }
    std::path::absolute(path).map_err(|e| format!("cannot resolve {path:?}: {e}"))
}

/// The input object from `path` (`-`: stdin), checked to be one JSON object. Without
/// `--input`, stdin is read unless it is a terminal, and nothing there means `{}`.
/// The most input read, as `cline-hooks run` allows.
const INPUT_LIMIT: u64 = 16 << 20;

fn read_input(path: Option<&Path>) -> Result<HookInput, String> {
    // Read at most one byte past the limit, so that `< /dev/zero` is refused, not buffered.
    let read_limited = |from: &mut dyn Read, what: &str| {
        let mut bytes = Vec::new();
        from.take(INPUT_LIMIT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {what}: {e}"))?;
        if bytes.len() as u64 > INPUT_LIMIT {
            return Err(format!(
                "{what} is larger than {INPUT_LIMIT} bytes; a hook input is one JSON object"
            ));
        }
        String::from_utf8(bytes).map_err(|_| format!("{what} is not UTF-8 text"))
    };
    let read_stdin = || read_limited(&mut std::io::stdin().lock(), "stdin");
    let text = match path {
        Some(path) if path == Path::new("-") => read_stdin()?,
        Some(path) => {
            let mut file = std::fs::File::open(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            read_limited(&mut file, &path.display().to_string())?
        }
        // Nothing piped in: run with an empty input rather than wait for a terminal.
        None if std::io::stdin().is_terminal() => "{}".to_owned(),
        None => Some(read_stdin()?)
            .filter(|text| !text.trim().is_empty())
            .unwrap_or_else(|| "{}".to_owned()),
    };
    HookInput::from_json(text).map_err(|e| e.to_string())
}

/// The report as JSON, in the field names of the Node API's `HookRunResult`.
fn report_json(report: &RunReport) -> Value {
    let combined = &report.combined;
    let slowest = combined.slowest.and_then(|i| report.executions.get(i)).map(
        |exec| json!({ "path": exec.path.display().to_string(), "durationMs": ms(exec.duration) }),
    );
    json!({
        "cancel": combined.cancel,
        "contextModification": combined.context_modification,
        "errorMessage": combined.error_message,
        "review": combined.review,
        "overrideInput": combined.override_input,
        "hooks": report.executions.iter().map(execution_json).collect::<Vec<_>>(),
        "slowest": slowest,
        "durationMs": ms(report.duration),
        "warnings": combined.warnings,
    })
}

fn execution_json(exec: &Execution) -> Value {
    json!({
        "path": exec.path.display().to_string(),
        "source": exec.source.as_str(),
        "status": exec.status.as_str(),
        "cancel": exec.cancel,
        "contextModification": exec.context_modification,
        "errorMessage": exec.error_message,
        "exitCode": exec.exit_code,
        "signal": exec.signal,
        "durationMs": ms(exec.duration),
        "failure": exec.failure,
        "warnings": exec.warnings,
        "stdout": exec.stdout,
        "stderr": exec.stderr,
    })
}

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
