//! Who besides the user could change the policy store (macOS/Linux): the rule, pure (the file
//! must be the user's and writable by nobody else; each folder above it the user's or root's
//! and writable by nobody else unless sticky, since whoever can write a folder can replace
//! what is in it), and the look-ups it needs (the folders' modes, owners and groups) at the
//! edge. A store that fails it counts as empty.

use std::path::Path;

/// An entry's owner, group and mode, as `stat` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Its owner's uid.
    pub uid: u32,
    /// Its group's gid.
    pub gid: u32,
    /// Its mode (the permission bits and the sticky bit are read).
    pub mode: u32,
}

/// Which entry of the store's path [`others_can_write`] judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// The store file itself: it must be the user's own.
    File,
    /// A folder on its path: the user's or root's.
    Folder,
}

/// A group as the system lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Its gid.
    pub gid: u32,
    /// Its name.
    pub name: String,
    /// The users it lists as members (users whose primary group it is are not listed).
    pub members: Vec<String>,
}

/// A user account: its name and primary group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// Its name.
    pub name: String,
    /// Its primary gid.
    pub gid: u32,
}

/// Whether `group` is `owner`'s private group (the "user private group" most Linux systems
/// give each user): the owner's primary group, named after the owner, listing no one else.
/// Only then does its write bit give no one else a way in. Pure.
pub fn is_private_group(owner: &Account, group: &Group) -> bool {
    group.gid == owner.gid
        && group.name == owner.name
        && group.members.iter().all(|m| *m == owner.name)
}

/// Why a user other than `me` could change the store through `entry`, whose `access` is given
/// (a fragment: "belongs to another user ..."); `private_group` says whether its group is its
/// owner's private group ([`is_private_group`]). A folder with the sticky bit (as `/tmp`) lets
/// no one else rename or delete what they do not own, so its write bits are no way in. Pure.
pub fn others_can_write(
    entry: Entry,
    access: Access,
    me: u32,
    private_group: bool,
) -> Option<String> {
    let mode = access.mode & 0o7777;
    let sticky = entry == Entry::Folder && mode & 0o1000 != 0;
    if access.uid != me && (entry == Entry::File || access.uid != 0) {
        return Some(match entry {
            Entry::File => format!(
                "belongs to another user (uid {}, this process runs as uid {me}); a policy store must be the user's own file",
                access.uid
            ),
            Entry::Folder => format!(
                "belongs to another user (uid {}, this process runs as uid {me}), who could replace the store; keep the store in a folder of your own",
                access.uid
            ),
        });
    }
    if sticky {
        return None;
    }
    if mode & 0o002 != 0 {
        return Some(format!(
            "can be written by every user (mode {mode:04o}); run chmod o-w on it"
        ));
    }
    if mode & 0o020 != 0 && !private_group {
        return Some(format!(
            "can be written by the members of its group (gid {}, mode {mode:04o}), which is not its owner's own private group; run chmod g-w on it",
            access.gid
        ));
    }
    None
}

/// Why the store file whose metadata is `meta` must not be believed: someone other than this
/// user could have written it. I/O: looks up its group when it is group-writable.
#[cfg(unix)]
pub fn file_problem(meta: &std::fs::Metadata) -> Option<String> {
    judge(Entry::File, meta)
}

/// Why the store at `path` could be replaced by another user: a folder on its real path
/// (links resolved) that another user owns or can write (a fragment naming the folder).
/// `None` when there is none, or when its folder does not exist (nothing to replace yet). I/O.
#[cfg(unix)]
pub fn folder_problem(path: &Path) -> Option<String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
    let real = std::fs::canonicalize(dir).ok()?;
    real.ancestors().find_map(|folder| {
        let meta = std::fs::symlink_metadata(folder).ok()?;
        let why = judge(Entry::Folder, &meta)?;
        Some(format!(
            "is in the folder {}, where another user could replace it: that folder {why}",
            folder.display()
        ))
    })
}

#[cfg(unix)]
fn judge(entry: Entry, meta: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let access = Access {
        uid: meta.uid(),
        gid: meta.gid(),
        mode: meta.mode(),
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    // The look-ups only for a group-writable entry: most are not.
    let private = access.mode & 0o020 != 0
        && matches!(
            (account(access.uid), group(access.gid)),
            (Some(owner), Some(group)) if is_private_group(&owner, &group)
        );
    others_can_write(entry, access, me, private)
}

/// Windows: the store's ACL is not judged (see the README's Security section).
#[cfg(not(unix))]
pub fn file_problem(_meta: &std::fs::Metadata) -> Option<String> {
    None
}

/// Windows: the folders' ACLs are not judged (see the README's Security section).
#[cfg(not(unix))]
pub fn folder_problem(_path: &Path) -> Option<String> {
    None
}

/// The account of `uid` (getpwuid_r), if the system knows it.
#[cfg(unix)]
fn account(uid: u32) -> Option<Account> {
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: all-zero is a valid passwd (null pointers, zero ids); getpwuid_r fills it.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; buf outlives every use of pwd's strings.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut found) };
    if rc != 0 || found.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name points into buf, NUL-terminated by getpwuid_r.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    Some(Account {
        name: name.to_string_lossy().into_owned(),
        gid: pwd.pw_gid,
    })
}

/// The group `gid` (getgrgid_r), if the system knows it.
#[cfg(unix)]
fn group(gid: u32) -> Option<Group> {
    let mut buf = vec![0 as libc::c_char; 64 * 1024];
    // SAFETY: all-zero is a valid group (null pointers); getgrgid_r fills it.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; buf outlives every use of grp's strings.
    let rc = unsafe { libc::getgrgid_r(gid, &mut grp, buf.as_mut_ptr(), buf.len(), &mut found) };
    if rc != 0 || found.is_null() || grp.gr_name.is_null() {
        return None;
    }
    // SAFETY: gr_name and gr_mem's strings point into buf, NUL-terminated; gr_mem ends with
    // a null pointer.
    let text = |p: *const libc::c_char| {
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    };
    let mut members = Vec::new();
    if !grp.gr_mem.is_null() {
        let mut at = 0;
        loop {
            // SAFETY: gr_mem is a null-terminated array; `at` never passes its end.
            let member = unsafe { *grp.gr_mem.add(at) };
            if member.is_null() {
                break;
            }
            members.push(text(member));
            at += 1;
        }
    }
    Some(Group {
        gid,
        name: text(grp.gr_name),
        members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: u32 = 1000;

    fn access(uid: u32, gid: u32, mode: u32) -> Access {
        Access { uid, gid, mode }
    }

    #[test]
    fn only_the_owners_private_group_may_have_the_write_bit() {
        let alice = Account {
            name: "alice".into(),
            gid: 1000,
        };
        let group = |gid, name: &str, members: &[&str]| Group {
            gid,
            name: name.into(),
            members: members.iter().map(|m| m.to_string()).collect(),
        };
        assert!(is_private_group(&alice, &group(1000, "alice", &[])));
        assert!(is_private_group(&alice, &group(1000, "alice", &["alice"])));
        assert!(!is_private_group(&alice, &group(1000, "alice", &["bob"])));
        // macOS's staff, Linux's users: shared by every account.
        assert!(!is_private_group(&alice, &group(20, "staff", &[])));
        assert!(!is_private_group(&alice, &group(1000, "devs", &[])));
    }

    #[test]
    fn the_store_file_must_be_the_users_and_writable_by_no_one_else() {
        let file = |a| others_can_write(Entry::File, a, ME, false);
        assert_eq!(file(access(ME, 1000, 0o100600)), None);
        assert_eq!(file(access(ME, 1000, 0o100644)), None);
        assert!(file(access(0, 0, 0o100600))
            .unwrap()
            .contains("another user"));
        assert!(file(access(ME, 1000, 0o100666))
            .unwrap()
            .contains("every user"));
        let group = file(access(ME, 100, 0o100660)).unwrap();
        assert!(
            group.contains("gid 100") && group.contains("g-w"),
            "{group}"
        );
        // The owner's private group: nobody else is in it.
        assert_eq!(
            others_can_write(Entry::File, access(ME, 1000, 0o100660), ME, true),
            None
        );
        // No sticky-bit exception for a file.
        assert!(file(access(ME, 1000, 0o101666)).is_some());
    }

    #[test]
    fn a_folder_above_it_must_be_the_users_or_roots_and_writable_by_no_one_else_unless_sticky() {
        let folder = |a| others_can_write(Entry::Folder, a, ME, false);
        assert_eq!(folder(access(ME, 1000, 0o40700)), None);
        assert_eq!(folder(access(0, 0, 0o40755)), None);
        assert!(folder(access(1001, 1001, 0o40755))
            .unwrap()
            .contains("uid 1001"));
        assert!(folder(access(ME, 1000, 0o40777))
            .unwrap()
            .contains("every user"));
        assert!(folder(access(ME, 100, 0o40775)).unwrap().contains("group"));
        // /tmp: others may write it, but not replace what is the user's.
        assert_eq!(folder(access(0, 0, 0o41777)), None);
        // Sticky does not make another user's folder safe: they can chmod it.
        assert!(folder(access(1001, 1001, 0o41777)).is_some());
    }
}
