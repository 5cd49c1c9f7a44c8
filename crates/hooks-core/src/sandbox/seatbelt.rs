//! The Seatbelt profile a confined hook runs under on macOS (`sandbox-exec -p <profile>`):
//! built from its [`Sandbox`] by a pure function, so the text is what the tests check (its
//! enforcement is macOS's; it was not run here).

use std::path::Path;

use super::Sandbox;

/// The profile for `sandbox`: everything allowed but writing outside its folders (and the
/// harmless devices), the network unless allowed, and reaching other processes.
pub fn seatbelt_profile(sandbox: &Sandbox) -> String {
    let mut profile = String::from("(version 1)\n(allow default)\n");
    profile.push_str("(deny file-write*)\n(allow file-write*\n");
    for dir in &sandbox.writable {
        profile.push_str(&format!("  (subpath {})\n", quoted(dir)));
    }
    for device in super::landlock::WRITABLE_DEVICES {
        profile.push_str(&format!("  (literal {})\n", quoted(Path::new(device))));
    }
    profile.push_str(")\n");
    if !sandbox.network {
        profile.push_str("(deny network-outbound network-inbound network-bind)\n");
        // Local (Unix socket) talk to the system's own daemons stays possible.
        profile.push_str("(allow network-outbound (remote unix-socket))\n");
    }
    // No reading or signalling the host or any process outside the sandbox.
    profile.push_str("(deny process-info* (target others))\n(deny signal (target others))\n");
    profile.push_str("(deny mach-priv-task-port (target others))\n");
    profile
}

/// `path` as a Seatbelt string literal: quotes and backslashes escaped, so no path can end
/// the string and add a rule of its own.
fn quoted(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn sandbox(network: bool) -> Sandbox {
        Sandbox {
            writable: vec![
                PathBuf::from("/Users/me/repo"),
                PathBuf::from("/private/tmp"),
            ],
            network,
        }
    }

    #[test]
    fn writes_are_denied_except_beneath_the_writable_folders_and_the_devices() {
        let profile = seatbelt_profile(&sandbox(false));
        assert!(profile.starts_with("(version 1)\n(allow default)\n(deny file-write*)\n"));
        assert!(
            profile.contains("(subpath \"/Users/me/repo\")"),
            "{profile}"
        );
        assert!(profile.contains("(subpath \"/private/tmp\")"), "{profile}");
        assert!(profile.contains("(literal \"/dev/null\")"), "{profile}");
    }

    #[test]
    fn the_network_is_denied_unless_allowed() {
        assert!(seatbelt_profile(&sandbox(false))
            .contains("(deny network-outbound network-inbound network-bind)"));
        assert!(!seatbelt_profile(&sandbox(true)).contains("network"));
    }

    #[test]
    fn other_processes_are_out_of_reach_either_way() {
        for network in [false, true] {
            let profile = seatbelt_profile(&sandbox(network));
            assert!(profile.contains("(deny process-info* (target others))"));
            assert!(profile.contains("(deny signal (target others))"));
        }
    }

    #[test]
    fn a_folder_name_cannot_break_out_of_its_string() {
        let hostile = Sandbox {
            writable: vec![PathBuf::from("/x\")\n(allow network*)(\"")],
            network: false,
        };
        let profile = seatbelt_profile(&hostile);
        assert!(
            profile.contains("(subpath \"/x\\\")\\n(allow network*)(\\\"\")"),
            "{profile}"
        );
        assert!(
            !profile
                .lines()
                .any(|line| line.starts_with("(allow network*)")),
            "{profile}"
        );
    }
}
