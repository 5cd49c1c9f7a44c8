//! What each file of a hooks folder is and what stops it, as one rule for every surface: the
//! doctor reports every file of every folder with it, and a run of hook `X` names, in its
//! warnings, the files meant for `X` that it leaves out. Pure: over a scan's listings and the
//! hooks discovery found in them.

use std::path::{Path, PathBuf};

use super::rules::{hook_finding, name_finding, settle_renames, shadowed, Finding};
use super::FileReport;
use crate::discovery::{
    is_file_of, Contents, DiscoveredHook, Entry, Listing, Platform, Profile, KNOWN_HOOKS,
};

/// One name of a folder to report on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The name.
    pub name: String,
    /// Whether it is a folder (a helper's folder is not worth a line).
    pub folder: bool,
}

/// The reports on `names` (sorted), entries of the folder of `listing` whose scanned hook
/// files are `entries`, given the hooks discovery found (`found`, with the user's policy
/// applied). `start_check` adds what discovery leaves to the moment a found, enabled hook
/// starts (the doctor looks; a run lets the start say it). `siblings` are every name of the
/// folder known, so that a rename is never advised onto a file that exists.
#[allow(clippy::too_many_arguments)]
pub fn folder_reports(
    listing: &Listing,
    entries: &[Entry],
    names: &[Name],
    siblings: &[String],
    found: &[DiscoveredHook],
    profile: Profile,
    platform: &Platform,
    start_check: &mut dyn FnMut(&DiscoveredHook, Option<&Entry>) -> Option<Finding>,
) -> Vec<FileReport> {
    let dir = &listing.dir;
    let mut examined: Vec<(String, PathBuf, Option<String>, Option<Finding>)> = Vec::new();
    for Name { name, folder } in names {
        let path = dir.path.join(name);
        // Byte equality: both paths are the folder joined with the name.
        if let Some(hook) = found
            .iter()
            .find(|h| h.path.as_os_str() == path.as_os_str())
        {
            let entry = entries.iter().find(|e| e.name == *name);
            let finding = hook_finding(
                &path,
                hook.disabled.as_deref(),
                hook.launch_error.as_deref(),
                entry.map(|e| &e.kind),
                entry.and_then(|e| e.shebang.as_deref()),
                profile,
            )
            .or_else(|| start_check(hook, entry));
            examined.push((name.clone(), path, Some(hook.hook_name.clone()), finding));
            continue;
        }
        // The scan lists the files of the hooks asked for: one discovery did not pick is
        // passed over because Windows runs another file of that hook first.
        let file_of = entries
            .iter()
            .any(|e| e.name == *name)
            .then(|| {
                let stem = name.split('.').next().unwrap_or_default();
                KNOWN_HOOKS
                    .iter()
                    .find(|h| h.eq_ignore_ascii_case(stem.trim()))
            })
            .flatten();
        if let Some(hook) = file_of {
            let runs = found
                .iter()
                .find(|h| {
                    h.hook_name == *hook
                        && h.path.parent().map(Path::as_os_str) == Some(dir.path.as_os_str())
                })
                .and_then(|h| h.path.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "another file".to_owned());
            examined.push((
                name.clone(),
                path,
                Some((*hook).to_owned()),
                Some(shadowed(&runs)),
            ));
            continue;
        }
        if *folder {
            continue;
        }
        let finding = name_finding(&path, name, siblings, profile, platform);
        examined.push((
            name.clone(),
            path,
            finding.meant.map(str::to_owned),
            Some(finding),
        ));
    }
    // A file no printed command can name keeps no rename to claim: it is renamed by hand.
    for (_, path, _, finding) in &mut examined {
        if let Some(finding) = finding.as_mut() {
            if super::rules::unpasteable(path).is_some() {
                finding.renames_to = None;
            }
        }
    }
    settle_renames(
        examined
            .iter_mut()
            .filter_map(|(name, _, _, finding)| Some((name.as_str(), finding.as_mut()?))),
    );
    examined
        .into_iter()
        .map(|(_, path, hook_name, finding)| {
            let (problem, reason, fix) = match finding {
                Some(f) => (Some(f.problem), Some(f.reason), f.fix),
                None => (None, None, None),
            };
            // A command naming this file could not name it exactly: say so instead.
            let fix = fix.map(|fix| match super::rules::unpasteable(&path) {
                Some(why) if fix.contains(&*path.to_string_lossy()) => why,
                _ => fix,
            });
            FileReport {
                will_run: problem.is_none(),
                path,
                hook_name,
                source: dir.source,
                workspace_root: dir.workspace_root.clone(),
                problem,
                reason,
                fix,
            }
        })
        .collect()
}

/// The files meant for `hook_name` that a run of it leaves out, as the doctor reports them:
/// the hooks discovery found that are disabled, untrusted or cannot start, a file misnamed
/// for it (`PreToolUse.py`, `PreTooluse`, `PreTolUse`), and one Windows passes over for
/// another file of the hook. `found` are the hooks of `hook_name` discovery found, with the
/// user's policy applied. Pure; for a hook with no such file, a walk over the listings.
pub fn run_reports(
    hook_name: &str,
    listings: &[Listing],
    found: &[DiscoveredHook],
    profile: Profile,
    platform: &Platform,
) -> Vec<FileReport> {
    let mut reports = Vec::new();
    for listing in listings {
        let in_folder = |h: &&DiscoveredHook| {
            h.path.parent().map(Path::as_os_str) == Some(listing.dir.path.as_os_str())
        };
        let entries = match &listing.contents {
            Contents::Entries(entries) => entries.as_slice(),
            // A folder that cannot be read: discovery found one disabled hook there, saying why.
            _ => &[],
        };
        let not_running = found
            .iter()
            .filter(in_folder)
            .filter(|h| h.disabled.is_some() || h.launch_error.is_some());
        let strays = listing.strays.iter().filter(|s| s.meant == hook_name);
        let passed_over = entries.iter().filter(|e| {
            is_file_of(&e.name, hook_name, profile, platform)
                && !found.iter().filter(in_folder).any(|h| {
                    h.path.file_name().map(|n| n.to_string_lossy()) == Some(e.name.as_str().into())
                })
        });
        let mut names: Vec<Name> = not_running
            .filter_map(|h| h.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .chain(strays.map(|s| s.name.clone()))
            .chain(passed_over.map(|e| e.name.clone()))
            .map(|name| Name {
                name,
                folder: false,
            })
            .collect();
        if names.is_empty() {
            continue;
        }
        names.sort_by(|a, b| a.name.cmp(&b.name));
        names.dedup();
        let siblings: Vec<String> = entries
            .iter()
            .map(|e| e.name.clone())
            .chain(listing.strays.iter().map(|s| s.name.clone()))
            .collect();
        let reports_here = folder_reports(
            listing,
            entries,
            &names,
            &siblings,
            found,
            profile,
            platform,
            &mut |_, _| None,
        );
        reports.extend(
            reports_here
                .into_iter()
                .filter(|r| r.problem.is_some_and(super::Problem::is_mistake)),
        );
    }
    reports
}

/// What a run of `hook_name` says, beyond its hooks, about the files of `not_run` (see
/// [`run_reports`]) but the disabled hooks it found (the runner names those), and the
/// workspace roots its hooks cannot run in: one sentence each, with the fix. Pure.
pub fn run_warnings(
    hook_name: &str,
    listings: &[Listing],
    not_run: &[FileReport],
    found: &[DiscoveredHook],
    platform: &Platform,
) -> Vec<String> {
    // A folder of more look-alikes than a run lists says how many it left out.
    let more = listings.iter().flat_map(|listing| {
        listing
            .strays
            .iter()
            .filter(|s| s.meant == hook_name && s.more > 0)
            .map(|s| {
                format!(
                    "{} more files in {} look meant for {hook_name} and will not run; cline-hooks doctor lists them all",
                    s.more,
                    listing.dir.path.display()
                )
            })
    });
    not_run
        .iter()
        .filter(|r| !found.iter().any(|h| h.path == r.path && !h.enabled()))
        .map(sentence)
        .chain(more)
        .chain(root_warnings(found, platform))
        .collect()
}

/// One sentence per workspace root whose enabled hooks (of `found`) cannot run there (see
/// [`super::rules::root_problem`]). Pure.
pub fn root_warnings(found: &[DiscoveredHook], platform: &Platform) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut said: Vec<&Path> = Vec::new();
    let roots = found
        .iter()
        .filter(|h| h.enabled())
        .filter_map(|h| Some((h.workspace_root.as_deref()?, h.kind)));
    for (root, kind) in roots {
        if said.contains(&root) {
            continue;
        }
        if let Some(why) = super::rules::root_problem(root, kind, platform) {
            said.push(root);
            warnings.push(why);
        }
    }
    warnings
}

/// A report on a file that will not run as a run's warning: its path, why, and the fix.
pub fn sentence(report: &FileReport) -> String {
    let path = report.path.display();
    let reason = report.reason.as_deref().unwrap_or("it will not run");
    match &report.fix {
        Some(fix) => format!("{path} will not run: {reason}; fix: {fix}"),
        None => format!("{path} will not run: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::fixtures::file;
    use crate::discovery::{discover, HookDir, Source, Stray};

    fn listing(entries: Vec<Entry>, strays: &[(&str, &'static str)]) -> Listing {
        Listing {
            dir: HookDir {
                path: "/w/.clinerules/hooks".into(),
                source: Source::Workspace,
                workspace_root: Some("/w".into()),
            },
            contents: Contents::Entries(entries),
            real_dir: None,
            strays: strays
                .iter()
                .map(|(name, meant)| Stray {
                    name: (*name).to_owned(),
                    meant,
                    more: 0,
                })
                .collect(),
        }
    }

    fn problems(reports: &[FileReport]) -> Vec<(String, Option<&'static str>)> {
        reports
            .iter()
            .map(|r| {
                let name = r.path.file_name().unwrap_or_default().to_string_lossy();
                (
                    name.into_owned(),
                    r.problem.map(super::super::Problem::as_str),
                )
            })
            .collect()
    }

    #[test]
    fn a_run_reports_the_files_meant_for_its_hook_and_no_other() {
        let unix = Platform::Unix;
        let listings = [listing(
            vec![file("PreToolUse", false), file("TaskStart", true)],
            &[("PreToolUse.py", "PreToolUse"), ("TaskStrat", "TaskStart")],
        )];
        let found = discover("PreToolUse", &listings, Profile::Extension, &unix);
        let reports = run_reports("PreToolUse", &listings, &found, Profile::Extension, &unix);
        assert_eq!(
            problems(&reports),
            [
                ("PreToolUse".to_owned(), Some("notExecutable")),
                ("PreToolUse.py".to_owned(), Some("wrongPlatformName")),
            ]
        );
        // The disabled hook is the runner's to name; the misnamed file is named here, with the
        // rename that does not land on the hook's existing file.
        let warnings = run_warnings("PreToolUse", &listings, &reports, &found, &unix);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // The path as this system joins it (a Windows build joins with `\`).
        let stray = listings[0].dir.path.join("PreToolUse.py");
        assert!(warnings[0].starts_with(&format!("{} will not run: ", stray.display())));
        assert!(warnings[0].contains("fix: PreToolUse already exists beside it"));

        let found = discover("TaskStart", &listings, Profile::Extension, &unix);
        let reports = run_reports("TaskStart", &listings, &found, Profile::Extension, &unix);
        assert_eq!(
            problems(&reports),
            [("TaskStrat".to_owned(), Some("unknownHookName"))]
        );

        let found = discover("TaskCancel", &listings, Profile::Extension, &unix);
        assert!(run_reports("TaskCancel", &listings, &found, Profile::Extension, &unix).is_empty());
    }

    #[test]
    fn windows_names_the_file_it_passes_over() {
        let windows = Platform::windows("");
        let listings = [listing(
            vec![file("PreToolUse.cmd", true), file("PreToolUse.ps1", true)],
            &[],
        )];
        let found = discover("PreToolUse", &listings, Profile::Extension, &windows);
        let reports = run_reports(
            "PreToolUse",
            &listings,
            &found,
            Profile::Extension,
            &windows,
        );
        assert_eq!(
            problems(&reports),
            [("PreToolUse.cmd".to_owned(), Some("shadowed"))]
        );
        let warnings = run_warnings("PreToolUse", &listings, &reports, &found, &windows);
        assert!(
            warnings[0].contains("PreToolUse.ps1 comes first"),
            "{warnings:?}"
        );
    }
}
