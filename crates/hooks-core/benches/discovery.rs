//! Discovery: `discovery::scan_dir` on real temporary directories (what a rescan costs every
//! 250 ms while hooks run, interpreter lookups included), and `discovery::discover` over
//! listings already in memory (what every `runHook` / `HookFactory.create()` pays on a warm
//! snapshot: no system call, the argv was resolved by the scan).
//!
//! `cargo bench --bench discovery` (each case is capped at about a second of sampling).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cline_hooks_core::discovery::{self, KNOWN_HOOKS};
use cline_hooks_core::discovery::{
    Contents, Entry, EntryKind, HookDir, Listing, Platform, Profile, Source,
};
use cline_hooks_core::launch::{Interpreters, LiveMachine};
use divan::Bencher;

fn main() {
    divan::main();
}

// ------------------------------------------------------------------------------------------
// scan_dir: one readdir, then one stat (+ one open/read of the #! line) per candidate.

const SCANS: &[&str] = &[
    "missing",
    "empty",
    "typical_3_hooks",
    "all_11_hooks",
    "11_hooks_1000_other_files",
    "1000_hooklike_names",
];

struct Dirs {
    root: PathBuf,
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn write_hook(dir: &Path, name: &str, executable: bool) {
    let path = dir.join(name);
    std::fs::write(
        &path,
        "#!/bin/sh\ncat >/dev/null\necho '{\"cancel\":false}'\n",
    )
    .expect("write hook");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod hook");
    }
    #[cfg(not(unix))]
    let _ = executable;
}

fn dirs() -> &'static Dirs {
    static DIRS: OnceLock<Dirs> = OnceLock::new();
    DIRS.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("cline-hooks-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for case in SCANS.iter().filter(|c| **c != "missing") {
            std::fs::create_dir_all(root.join(case)).expect("mkdir");
        }
        let typical = root.join("typical_3_hooks");
        for name in ["PreToolUse", "PostToolUse", "TaskStart"] {
            write_hook(&typical, name, true);
        }
        std::fs::write(typical.join("README.md"), "my hooks\n").expect("write");
        std::fs::write(typical.join(".DS_Store"), [0u8; 64]).expect("write");
        for dir in ["all_11_hooks", "11_hooks_1000_other_files"] {
            for name in KNOWN_HOOKS {
                write_hook(&root.join(dir), name, true);
            }
        }
        let crowded = root.join("11_hooks_1000_other_files");
        for i in 0..1000 {
            // Not hook-shaped (a '-' in the stem): listed, never inspected.
            std::fs::write(crowded.join(format!("log-{i}.txt")), "x").expect("write");
        }
        let hooklike = root.join("1000_hooklike_names");
        for i in 0..1000 {
            // Hook-shaped stems: each one is stat-ed and its first line read.
            write_hook(&hooklike, &format!("Note{i}"), false);
        }
        Dirs { root }
    })
}

#[divan::bench(args = SCANS, max_time = 1)]
fn scan_dir(bencher: Bencher, case: &str) {
    let path = dirs().root.join(case);
    bencher.bench(|| {
        // A new machine per scan, as a rescan makes: PATH lookups are not carried over.
        let mut machine = LiveMachine::default();
        let mut tools = Interpreters::new(&mut machine, None, cfg!(windows));
        discovery::scan_dir(
            black_box(&path),
            Profile::Extension,
            &Platform::current(),
            &mut tools,
        )
    });
}

// ------------------------------------------------------------------------------------------
// discover: pick the hooks of one name from four listings (extra, global, two workspaces).

const PICKS: &[&str] = &[
    "extension_no_hook_for_name",
    "extension_hook_in_4_dirs",
    "windows_pathext_hook_in_4_dirs",
    "cli_by_extension_4_dirs",
    "cli_shebang_absolute_4_dirs",
    "cli_shebang_env_4_dirs",
];

struct Scenario {
    listings: Vec<Listing>,
    profile: Profile,
    platform: Platform,
    hook_name: &'static str,
}

fn hook_dirs() -> Vec<HookDir> {
    let dir = |p: &str, source, root: Option<&str>| HookDir {
        path: PathBuf::from(p),
        source,
        workspace_root: root.map(PathBuf::from),
    };
    vec![
        dir("/opt/hooks", Source::Extra, None),
        dir("/home/u/Documents/Cline/Hooks", Source::Global, None),
        dir("/w/a/.clinerules/hooks", Source::Workspace, Some("/w/a")),
        dir("/w/b/.clinerules/hooks", Source::Workspace, Some("/w/b")),
    ]
}

/// A hook file as a scan leaves it, its interpreter resolved with real PATH lookups.
fn entry(
    dir: &Path,
    name: &str,
    shebang: Option<&str>,
    profile: Profile,
    platform: &Platform,
) -> Entry {
    let mut machine = LiveMachine::default();
    let mut tools = Interpreters::new(&mut machine, None, cfg!(windows));
    Entry {
        name: name.to_owned(),
        kind: EntryKind::File { executable: true },
        shebang: shebang.map(str::to_owned),
        launch: discovery::launch_for(&dir.join(name), shebang, profile, platform, &mut tools),
        sha256: None,
        header: Default::default(),
    }
}

/// Every known hook in every directory, as `name{ext}` with the given `#!` line.
fn listings(
    ext: &str,
    shebang: Option<&str>,
    skip: Option<&str>,
    profile: Profile,
    platform: &Platform,
) -> Vec<Listing> {
    hook_dirs()
        .into_iter()
        .map(|dir| {
            let mut entries: Vec<Entry> = KNOWN_HOOKS
                .iter()
                .filter(|n| Some(**n) != skip)
                .map(|n| entry(&dir.path, &format!("{n}{ext}"), shebang, profile, platform))
                .collect();
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            Listing {
                dir,
                contents: Contents::Entries(entries),
                real_dir: None,
                strays: Default::default(),
            }
        })
        .collect()
}

fn scenario(case: &str) -> Scenario {
    let base =
        |(ext, shebang, skip): (&str, Option<&str>, Option<&str>), profile, platform| Scenario {
            listings: listings(ext, shebang, skip, profile, &platform),
            profile,
            platform,
            hook_name: "PreToolUse",
        };
    match case {
        "extension_no_hook_for_name" => base(
            ("", Some("/bin/sh"), Some("PreToolUse")),
            Profile::Extension,
            Platform::Unix,
        ),
        "extension_hook_in_4_dirs" => base(
            ("", Some("/bin/sh"), None),
            Profile::Extension,
            Platform::Unix,
        ),
        "windows_pathext_hook_in_4_dirs" => base(
            (".ps1", None, None),
            Profile::Extension,
            Platform::windows(".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC"),
        ),
        "cli_by_extension_4_dirs" => base((".py", None, None), Profile::Cli, Platform::Unix),
        "cli_shebang_absolute_4_dirs" => {
            base((".sh", Some("/bin/sh"), None), Profile::Cli, Platform::Unix)
        }
        "cli_shebang_env_4_dirs" => base(
            (".sh", Some("/usr/bin/env bash"), None),
            Profile::Cli,
            Platform::Unix,
        ),
        other => panic!("unknown case {other}"),
    }
}

#[divan::bench(args = PICKS, max_time = 1)]
fn discover(bencher: Bencher, case: &str) {
    let s = scenario(case);
    bencher
        .bench(|| discovery::discover(black_box(s.hook_name), &s.listings, s.profile, &s.platform));
}
