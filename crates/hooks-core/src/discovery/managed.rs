//! Who may write a managed hook: the rules, per OS, that refuse a managed hook whose file or
//! folder someone other than root (macOS/Linux) or Administrators/SYSTEM (Windows) can change,
//! and the sentences that say so. Pure: the facts are read by `managed_scan.rs`.
//!
//! Why: managed hooks are exempt from the user's choices (trust, the disabled state), so they
//! must be hooks the user cannot have written. A folder or file anyone else can write would let
//! any local account (or anything running as the user) put a hook there that every user runs.

use std::path::Path;

/// What a checked path is to the managed folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The managed hooks folder itself: whoever can write it can add a hook.
    Folder,
    /// A hook file (the file a link leads to, if it is one): whoever can write it can change
    /// what runs.
    File,
    /// A folder above the managed folder, or above a file a link in it leads to: whoever can
    /// write it can rename what is below and put their own in its place.
    Above,
}

/// Owner and permission bits of a file or folder (`st_uid`, `st_gid`, `st_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnixFacts {
    /// Its owner.
    pub uid: u32,
    /// Its group.
    pub gid: u32,
    /// Its type and permission bits.
    pub mode: u32,
}

/// What is wrong with a path on macOS/Linux.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnixProblem {
    /// Not owned by root: its owner can change its mode, and so its contents.
    Owner {
        /// The owner.
        uid: u32,
    },
    /// Others (everyone) can write it.
    OtherWritable,
    /// Its group can write it.
    GroupWritable {
        /// The group.
        gid: u32,
    },
}

const STICKY: u32 = 0o1000;
const GROUP_WRITE: u32 = 0o020;
const OTHER_WRITE: u32 = 0o002;

/// The macOS/Linux rule: the path must be owned by uid 0 and have neither the group nor the
/// other write bit. A folder above may have them with the sticky bit (as `/tmp` has): there
/// nobody but root can rename or delete what root owns, so the path below stays put. The
/// managed folder itself may not: in a sticky folder anyone can still add a file, a new hook.
pub fn unix_problem(role: Role, facts: UnixFacts) -> Option<UnixProblem> {
    if facts.uid != 0 {
        return Some(UnixProblem::Owner { uid: facts.uid });
    }
    if role == Role::Above && facts.mode & STICKY != 0 {
        return None;
    }
    if facts.mode & OTHER_WRITE != 0 {
        Some(UnixProblem::OtherWritable)
    } else if facts.mode & GROUP_WRITE != 0 {
        Some(UnixProblem::GroupWritable { gid: facts.gid })
    } else {
        None
    }
}

/// Why a managed hook is refused for `problem` at `path`, with the commands that fix it.
/// `owner` and `group` are the account names of the uid and gid, when known.
pub fn unix_refusal(
    path: &Path,
    role: Role,
    facts: UnixFacts,
    problem: UnixProblem,
    owner: Option<&str>,
    group: Option<&str>,
) -> String {
    let shown = path.display();
    let named = |id: u32, name: Option<&str>| match name {
        Some(name) => format!("{id} (\"{name}\")"),
        None => id.to_string(),
    };
    let what = match problem {
        UnixProblem::Owner { uid } => format!("is owned by uid {}, not root", named(uid, owner)),
        UnixProblem::OtherWritable => "is writable by everyone".to_owned(),
        UnixProblem::GroupWritable { gid } => match group {
            Some(name) => format!("is writable by group \"{name}\""),
            None => format!("is writable by group {gid}"),
        },
    };
    let mode = facts.mode & 0o7777;
    let quoted = sh_quoted(&path.to_string_lossy());
    let fix = format!("sudo chown root {quoted} && sudo chmod go-w {quoted}");
    match role {
        Role::Folder => format!(
            "the managed hooks folder {shown} {what} (mode {mode:04o}); a managed hook's folder must be owned by root and writable only by root: {fix}"
        ),
        Role::File => format!(
            "{shown} {what} (mode {mode:04o}); a managed hook must be owned by root and writable only by root: {fix}"
        ),
        Role::Above => format!(
            "{shown}, a folder above a managed hook, {what} (mode {mode:04o}); every folder above a managed hook must be owned by root and writable only by root (or sticky, as /tmp is): {fix}"
        ),
    }
}

/// `text` as one word for a POSIX shell: as it is when it needs no quotes, else in single
/// quotes.
fn sh_quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// BUILTIN\Administrators.
pub const ADMINISTRATORS: &str = "S-1-5-32-544";
/// NT AUTHORITY\SYSTEM.
pub const SYSTEM: &str = "S-1-5-18";
/// NT SERVICE\TrustedInstaller.
pub const TRUSTED_INSTALLER: &str =
    "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";
/// CREATOR OWNER: stands for the owner of what is created below (and OWNER RIGHTS, for the
/// owner itself).
const CREATOR_OWNER: &str = "S-1-3-0";
const OWNER_RIGHTS: &str = "S-1-3-4";

/// The rights that let their holder change a file or folder, what it holds, or who may:
/// write/add file, append/add subfolder, delete child, DELETE, WRITE_DAC, WRITE_OWNER,
/// GENERIC_ALL, GENERIC_WRITE.
pub const WRITE_RIGHTS: u32 = 0x0000_0002
    | 0x0000_0004
    | 0x0000_0040
    | 0x0001_0000
    | 0x0004_0000
    | 0x0008_0000
    | 0x1000_0000
    | 0x4000_0000;

/// The rights on a folder above that let their holder move what is below it away: delete
/// child, WRITE_DAC, WRITE_OWNER, GENERIC_ALL. Adding files there is harmless (Windows gives
/// Users that right on `C:\ProgramData`), and deleting the folder below needs DELETE on it,
/// which the folder's own check refuses.
pub const MOVE_RIGHTS: u32 = 0x0000_0040 | 0x0004_0000 | 0x0008_0000 | 0x1000_0000;

/// The rights the rule refuses to others on a path of this role.
pub fn rights_of_concern(role: Role) -> u32 {
    match role {
        Role::Folder | Role::File => WRITE_RIGHTS,
        Role::Above => MOVE_RIGHTS,
    }
}

/// One entry of a DACL, as far as the rule cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ace {
    /// The SID it names, as text (`S-1-5-32-544`).
    pub sid: String,
    /// Its access mask.
    pub mask: u32,
    /// What kind of entry it is.
    pub kind: AceKind,
    /// `INHERIT_ONLY_ACE`: it applies to what is created below, not to this object.
    pub inherit_only: bool,
}

/// The kinds of DACL entry the rule tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AceKind {
    /// ACCESS_ALLOWED (or its callback form): grants `mask`.
    Allow,
    /// ACCESS_DENIED (or its callback form): only takes rights away.
    Deny,
    /// Any other type: not understood, so taken to grant anything.
    Other(u8),
}

/// What is wrong with a path's security descriptor on Windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AclProblem {
    /// Its owner is not Administrators, SYSTEM or TrustedInstaller: an owner can always
    /// rewrite the DACL.
    Owner(String),
    /// It has no DACL: everyone has full access.
    NoDacl,
    /// An entry grants a write right to someone else.
    Grants {
        /// Whom it grants them.
        sid: String,
        /// What it grants.
        mask: u32,
    },
    /// An entry of a type the rule does not read.
    Unknown {
        /// The SID it names.
        sid: String,
        /// Its type.
        ace_type: u8,
    },
}

fn trusted(sid: &str) -> bool {
    [ADMINISTRATORS, SYSTEM, TRUSTED_INSTALLER].contains(&sid)
}

/// The Windows rule: the owner must be Administrators, SYSTEM or TrustedInstaller, there must
/// be a DACL, and no entry that applies to the object may grant a write right
/// ([`rights_of_concern`] of its role) to any other SID; CREATOR OWNER and OWNER RIGHTS stand
/// for the owner, so they pass when it does. A deny entry never grants anything; an entry of an
/// unknown type is refused. `dacl` is `None` for a null DACL.
pub fn acl_problem(role: Role, owner: &str, dacl: Option<&[Ace]>) -> Option<AclProblem> {
    let concern = rights_of_concern(role);
    if !trusted(owner) {
        return Some(AclProblem::Owner(owner.to_owned()));
    }
    let Some(dacl) = dacl else {
        return Some(AclProblem::NoDacl);
    };
    for ace in dacl.iter().filter(|ace| !ace.inherit_only) {
        let stands_for_owner = ace.sid == CREATOR_OWNER || ace.sid == OWNER_RIGHTS;
        if trusted(&ace.sid) || stands_for_owner {
            continue;
        }
        match ace.kind {
            AceKind::Deny => {}
            AceKind::Allow if ace.mask & concern == 0 => {}
            AceKind::Allow => {
                return Some(AclProblem::Grants {
                    sid: ace.sid.clone(),
                    mask: ace.mask,
                })
            }
            AceKind::Other(ace_type) => {
                return Some(AclProblem::Unknown {
                    sid: ace.sid.clone(),
                    ace_type,
                })
            }
        }
    }
    None
}

/// Why a managed hook is refused for `problem` at `path`, with the commands that fix it.
/// `name` is the account name of the SID in question, when known.
pub fn acl_refusal(path: &Path, role: Role, problem: &AclProblem, name: Option<&str>) -> String {
    let shown = path.display();
    let who = |sid: &str| match name {
        Some(name) => format!("{name} ({sid})"),
        None => sid.to_owned(),
    };
    let what = match problem {
        AclProblem::Owner(sid) => format!("is owned by {}, not Administrators or SYSTEM", who(sid)),
        AclProblem::NoDacl => "has no access control list, so everyone can write it".to_owned(),
        AclProblem::Grants { sid, mask } => {
            format!("can be written by {} (access mask 0x{mask:08x})", who(sid))
        }
        AclProblem::Unknown { sid, ace_type } => format!(
            "has an access entry of type {ace_type} for {} that this check cannot read",
            who(sid)
        ),
    };
    let target = path.to_string_lossy();
    let inherit = if role == Role::File { "" } else { "(OI)(CI)" };
    let fix = format!(
        "in an elevated prompt: icacls \"{target}\" /setowner *S-1-5-32-544 && icacls \"{target}\" /inheritance:r /grant:r *S-1-5-32-544:{inherit}F *S-1-5-18:{inherit}F *S-1-5-32-545:{inherit}RX"
    );
    match role {
        Role::Folder => format!(
            "the managed hooks folder {shown} {what}; a managed hook's folder must be owned by and writable only by Administrators and SYSTEM: {fix}"
        ),
        Role::File => format!(
            "{shown} {what}; a managed hook must be owned by and writable only by Administrators and SYSTEM: {fix}"
        ),
        Role::Above => format!(
            "{shown}, a folder above a managed hook, {what}; it must be owned by and writable only by Administrators and SYSTEM: {fix}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(uid: u32, mode: u32) -> UnixFacts {
        UnixFacts { uid, gid: 20, mode }
    }

    #[test]
    fn a_managed_path_must_be_owned_by_root_and_writable_only_by_root() {
        for role in [Role::Folder, Role::File, Role::Above] {
            for mode in [0o755, 0o700, 0o555, 0o644, 0o40755, 0o100750] {
                assert_eq!(unix_problem(role, facts(0, mode)), None, "{mode:o}");
            }
            assert_eq!(
                unix_problem(role, facts(0, 0o775)),
                Some(UnixProblem::GroupWritable { gid: 20 })
            );
            // A user who owns it can chmod it, whatever its mode says now.
            assert_eq!(
                unix_problem(role, facts(501, 0o755)),
                Some(UnixProblem::Owner { uid: 501 })
            );
            assert_eq!(
                unix_problem(role, facts(501, 0o700)),
                Some(UnixProblem::Owner { uid: 501 })
            );
        }
        assert_eq!(
            unix_problem(Role::File, facts(0, 0o666)),
            Some(UnixProblem::OtherWritable)
        );
        assert_eq!(
            unix_problem(Role::Folder, facts(0, 0o777)),
            Some(UnixProblem::OtherWritable)
        );
    }

    #[test]
    fn the_sticky_bit_saves_a_folder_above_but_not_the_managed_folder() {
        // /tmp (root, 1777): nobody else can rename what root owns in it.
        assert_eq!(unix_problem(Role::Above, facts(0, 0o41777)), None);
        assert_eq!(unix_problem(Role::Above, facts(0, 0o1775)), None);
        // ... but anyone can add a file to a sticky managed folder, a new hook.
        assert_eq!(
            unix_problem(Role::Folder, facts(0, 0o1777)),
            Some(UnixProblem::OtherWritable)
        );
        assert_eq!(
            unix_problem(Role::File, facts(0, 0o1777)),
            Some(UnixProblem::OtherWritable)
        );
        // A sticky folder above owned by someone else is theirs to chmod.
        assert_eq!(
            unix_problem(Role::Above, facts(501, 0o1777)),
            Some(UnixProblem::Owner { uid: 501 })
        );
    }

    #[test]
    fn a_unix_refusal_names_the_path_what_is_wrong_and_the_fix() {
        let path = Path::new("/etc/cline/hooks/PreToolUse");
        let group = unix_refusal(
            path,
            Role::File,
            facts(0, 0o100775),
            UnixProblem::GroupWritable { gid: 20 },
            None,
            Some("staff"),
        );
        assert_eq!(
            group,
            "/etc/cline/hooks/PreToolUse is writable by group \"staff\" (mode 0775); a managed hook must be owned by root and writable only by root: sudo chown root /etc/cline/hooks/PreToolUse && sudo chmod go-w /etc/cline/hooks/PreToolUse"
        );
        let mac = Path::new("/Library/Application Support/Cline/Hooks");
        let owner = unix_refusal(
            mac,
            Role::Folder,
            facts(501, 0o40755),
            UnixProblem::Owner { uid: 501 },
            Some("alice"),
            None,
        );
        assert!(
            owner.starts_with("the managed hooks folder /Library/Application Support/Cline/Hooks is owned by uid 501 (\"alice\"), not root (mode 0755)"),
            "{owner}"
        );
        assert!(
            owner.ends_with("sudo chown root '/Library/Application Support/Cline/Hooks' && sudo chmod go-w '/Library/Application Support/Cline/Hooks'"),
            "{owner}"
        );
        let above = unix_refusal(
            Path::new("/etc/cline"),
            Role::Above,
            facts(0, 0o40777),
            UnixProblem::OtherWritable,
            None,
            None,
        );
        assert!(
            above.contains(
                "/etc/cline, a folder above a managed hook, is writable by everyone (mode 0777)"
            ),
            "{above}"
        );
        assert_eq!(sh_quoted("it's"), r"'it'\''s'");
    }

    fn allow(sid: &str, mask: u32) -> Ace {
        Ace {
            sid: sid.to_owned(),
            mask,
            kind: AceKind::Allow,
            inherit_only: false,
        }
    }

    const USERS: &str = "S-1-5-32-545";
    const ME: &str = "S-1-5-21-1-2-3-1001";
    const READ_EXECUTE: u32 = 0x0012_00a9;
    const FULL: u32 = 0x001f_01ff;

    #[test]
    fn a_managed_path_on_windows_is_writable_only_by_administrators_system_or_trustedinstaller() {
        let locked = [
            allow(ADMINISTRATORS, FULL),
            allow(SYSTEM, FULL),
            allow(TRUSTED_INSTALLER, FULL),
            allow(USERS, READ_EXECUTE),
            allow("S-1-15-2-1", READ_EXECUTE),
        ];
        for owner in [ADMINISTRATORS, SYSTEM, TRUSTED_INSTALLER] {
            assert_eq!(acl_problem(Role::File, owner, Some(&locked)), None);
        }
        // Each write right given to anyone else refuses it.
        for right in [
            0x2u32,
            0x4,
            0x40,
            0x1_0000,
            0x4_0000,
            0x8_0000,
            0x1000_0000,
            0x4000_0000,
        ] {
            let mut dacl = locked.to_vec();
            dacl.push(allow(USERS, READ_EXECUTE | right));
            assert_eq!(
                acl_problem(Role::Folder, ADMINISTRATORS, Some(&dacl)),
                Some(AclProblem::Grants {
                    sid: USERS.into(),
                    mask: READ_EXECUTE | right
                }),
                "{right:x}"
            );
        }
        // The user who owns it can rewrite its DACL.
        assert_eq!(
            acl_problem(Role::Folder, ME, Some(&locked)),
            Some(AclProblem::Owner(ME.into()))
        );
        assert_eq!(
            acl_problem(Role::File, SYSTEM, None),
            Some(AclProblem::NoDacl)
        );
    }

    #[test]
    fn creator_owner_deny_and_inherit_only_entries_are_read_as_windows_reads_them() {
        // CREATOR OWNER stands for the owner, who is trusted here.
        let dacl = [allow(ADMINISTRATORS, FULL), allow(CREATOR_OWNER, FULL)];
        assert_eq!(acl_problem(Role::Folder, ADMINISTRATORS, Some(&dacl)), None);
        assert_eq!(
            acl_problem(Role::File, ME, Some(&dacl)),
            Some(AclProblem::Owner(ME.into()))
        );
        // A deny entry takes rights away; an inherit-only one applies to what is below only.
        let deny = Ace {
            kind: AceKind::Deny,
            ..allow(ME, FULL)
        };
        let below = Ace {
            inherit_only: true,
            ..allow(USERS, FULL)
        };
        assert_eq!(
            acl_problem(Role::Folder, SYSTEM, Some(&[deny, below])),
            None
        );
        // An entry of a type not understood is not taken as harmless.
        let odd = Ace {
            kind: AceKind::Other(5),
            ..allow(USERS, READ_EXECUTE)
        };
        assert_eq!(
            acl_problem(Role::Above, SYSTEM, Some(&[odd])),
            Some(AclProblem::Unknown {
                sid: USERS.into(),
                ace_type: 5
            })
        );
    }

    #[test]
    fn a_folder_above_may_let_users_add_files_but_not_move_what_is_below() {
        // C:\ProgramData: Users may create files and folders in it.
        let program_data = [
            allow(SYSTEM, FULL),
            allow(ADMINISTRATORS, FULL),
            allow(USERS, READ_EXECUTE | 0x2 | 0x4),
        ];
        assert_eq!(acl_problem(Role::Above, SYSTEM, Some(&program_data)), None);
        assert!(acl_problem(Role::Folder, SYSTEM, Some(&program_data)).is_some());
        let mut dacl = program_data.to_vec();
        dacl.push(allow(USERS, 0x40));
        assert!(acl_problem(Role::Above, SYSTEM, Some(&dacl)).is_some());
    }

    #[test]
    fn a_windows_refusal_names_the_path_who_can_write_and_the_fix() {
        let path = Path::new(r"C:\ProgramData\Cline\Hooks");
        let why = acl_refusal(
            path,
            Role::Folder,
            &AclProblem::Grants {
                sid: USERS.into(),
                mask: 0x0000_0116,
            },
            Some("BUILTIN\\Users"),
        );
        assert!(
            why.contains(
                r"can be written by BUILTIN\Users (S-1-5-32-545) (access mask 0x00000116)"
            ),
            "{why}"
        );
        assert!(
            why.contains(r#"icacls "C:\ProgramData\Cline\Hooks" /inheritance:r"#),
            "{why}"
        );
        let file = acl_refusal(
            Path::new(r"C:\ProgramData\Cline\Hooks\PreToolUse.ps1"),
            Role::File,
            &AclProblem::Owner(ME.into()),
            None,
        );
        assert!(
            file.contains("is owned by S-1-5-21-1-2-3-1001, not Administrators or SYSTEM"),
            "{file}"
        );
        assert!(file.contains("*S-1-5-32-544:F "), "{file}");
    }
}
