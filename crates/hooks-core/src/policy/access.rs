//! Who besides the user could change the policy store (macOS/Linux): the rule, pure (the file
//! must be the user's and writable by nobody else, by its mode or, on Linux, its POSIX ACL;
//! each folder above it the user's or root's and writable by nobody else unless sticky, since
//! whoever can write a folder can replace what is in it), and the look-ups it needs (modes,
//! owners, groups, ACLs, the local accounts) at the edge. A store that fails it counts as empty.

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
/// give each user): the owner's primary group, named after the owner, listing no one else,
/// and, among `local` (the accounts of `/etc/passwd`, [`parse_passwd`]), the primary group of
/// the owner's account and of no other. Only then does its write bit give no one else a way
/// in. An owner missing from `local` (an account from a network directory such as LDAP,
/// whose other accounts cannot be listed) has no private group: its group bits count. Pure.
pub fn is_private_group(owner: &Account, group: &Group, local: &[Account]) -> bool {
    group.gid == owner.gid
        && group.name == owner.name
        && group.members.iter().all(|m| *m == owner.name)
        && local.iter().any(|a| a == owner)
        && local
            .iter()
            .all(|a| a.gid != group.gid || a.name == owner.name)
}

/// The accounts of a `passwd` file's `text` (name and primary gid); lines that are not
/// accounts are skipped. `None` when it defers to another source (`+`/`-` lines of NIS
/// compat mode), whose accounts it does not list. Pure.
pub fn parse_passwd(text: &str) -> Option<Vec<Account>> {
    let mut accounts = Vec::new();
    for line in text.lines() {
        if line.starts_with('+') || line.starts_with('-') {
            return None;
        }
        let fields: Vec<&str> = line.split(':').collect();
        if let (Some(name), Some(gid)) = (fields.first(), fields.get(3)) {
            if let Ok(gid) = gid.trim().parse() {
                accounts.push(Account {
                    name: (*name).to_owned(),
                    gid,
                });
            }
        }
    }
    Some(accounts)
}

/// Linux's `system.posix_acl_access` tags (`acl_ea.h`).
const ACL_USER_OBJ: u16 = 0x01;
const ACL_USER: u16 = 0x02;
const ACL_GROUP_OBJ: u16 = 0x04;
const ACL_GROUP: u16 = 0x08;
const ACL_MASK: u16 = 0x10;
const ACL_OTHER: u16 = 0x20;
const ACL_WRITE: u16 = 0x02;

/// Who a POSIX access ACL lets write, besides its owner ([`acl_writes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AclWrites {
    /// Whether the owning group may write (its entry's permission, masked): with an ACL, the
    /// mode's group bits are the mask, not the group's.
    pub group: bool,
    /// Another user or a named group that may write (a fragment with the fix), if any.
    pub others: Option<String>,
}

/// Who may write an entry owned by `owner` whose Linux access ACL is `acl` (the value of
/// `system.posix_acl_access`: version 2, then 8-byte entries of tag, permission and id, little
/// endian), as the process running as `me` sees it: a named user other than the owner and
/// `me`, or any named group, with write left by the mask, is another way in. `Err` for a
/// value that is not such an ACL. Pure.
pub fn acl_writes(acl: &[u8], owner: u32, me: u32) -> Result<AclWrites, String> {
    let bad = |what: &str| format!("has a POSIX ACL that cannot be read ({what})");
    let version = acl
        .get(..4)
        .map(|v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]))
        .ok_or_else(|| bad("shorter than its header"))?;
    if version != 2 || !(acl.len() - 4).is_multiple_of(8) {
        return Err(bad(&format!("version {version}, {} bytes", acl.len())));
    }
    let entries: Vec<(u16, u16, u32)> = acl[4..]
        .chunks_exact(8)
        .map(|e| {
            (
                u16::from_le_bytes([e[0], e[1]]),
                u16::from_le_bytes([e[2], e[3]]),
                u32::from_le_bytes([e[4], e[5], e[6], e[7]]),
            )
        })
        .collect();
    // No mask entry: nothing is masked (an ACL of the three base entries only).
    let mask = entries
        .iter()
        .find(|(tag, _, _)| *tag == ACL_MASK)
        .map_or(ACL_WRITE, |(_, perm, _)| *perm);
    let writes = |perm: u16| perm & mask & ACL_WRITE != 0;
    let mut group = false;
    let mut others = None;
    for &(tag, perm, id) in &entries {
        match tag {
            ACL_GROUP_OBJ => group = writes(perm),
            ACL_USER if writes(perm) && id != owner && id != me && others.is_none() => {
                others = Some(format!(
                    "can be written by the user uid {id} through its POSIX ACL (ls -l shows a +); remove that entry with setfacl -x u:{id}, or every entry with setfacl -b"
                ));
            }
            ACL_GROUP if writes(perm) && others.is_none() => {
                others = Some(format!(
                    "can be written by the members of the group gid {id} through its POSIX ACL (ls -l shows a +); remove that entry with setfacl -x g:{id}, or every entry with setfacl -b"
                ));
            }
            ACL_USER_OBJ | ACL_USER | ACL_GROUP | ACL_MASK | ACL_OTHER => {}
            other => return Err(bad(&format!("unknown tag {other:#x}"))),
        }
    }
    Ok(AclWrites { group, others })
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

/// Why the store file opened as `file`, whose metadata is `meta`, must not be believed:
/// someone other than this user could have written it. I/O: reads its ACL (Linux) through the
/// descriptor, and looks up its group when it is group-writable.
#[cfg(unix)]
pub fn file_problem(file: &std::fs::File, meta: &std::fs::Metadata) -> Option<String> {
    judge(Entry::File, meta, acl::of_file(file))
}

/// Why the store could be replaced by another user through `real_dir` (a folder with no
/// symbolic link on its path) or a folder above it: one another user owns or can write (a
/// fragment naming the folder). `None` when there is none, or when it does not exist (nothing
/// to replace yet). I/O.
#[cfg(unix)]
pub fn folder_problem(real_dir: &Path) -> Option<String> {
    real_dir.ancestors().find_map(|folder| {
        let meta = std::fs::symlink_metadata(folder).ok()?;
        let why = judge(Entry::Folder, &meta, acl::of_path(folder))?;
        Some(format!(
            "is in the folder {}, where another user could replace it: that folder {why}",
            folder.display()
        ))
    })
}

/// [`others_can_write`] for an entry with metadata `meta` and access ACL `acl` (`Ok(None)`:
/// none; `Err`: it could not be read, so nothing can be said for it).
#[cfg(unix)]
fn judge(
    entry: Entry,
    meta: &std::fs::Metadata,
    acl: Result<Option<Vec<u8>>, String>,
) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let mut access = Access {
        uid: meta.uid(),
        gid: meta.gid(),
        mode: meta.mode(),
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    // The owner first (no permission bits: only the owner rule can speak): another user's
    // entry is refused whatever its ACL says.
    if let Some(why) = others_can_write(entry, Access { mode: 0, ..access }, me, false) {
        return Some(why);
    }
    match acl {
        Err(why) => return Some(why),
        Ok(None) => {}
        Ok(Some(acl)) => match acl_writes(&acl, access.uid, me) {
            Err(why) => return Some(why),
            Ok(AclWrites {
                others: Some(why), ..
            }) => return Some(why),
            // The mode's group bits are the ACL's mask: the group's own write is the ACL's.
            Ok(AclWrites { group, .. }) => {
                access.mode = (access.mode & !0o020) | if group { 0o020 } else { 0 };
            }
        },
    }
    // The look-ups only for a group-writable entry: most are not.
    let private = access.mode & 0o020 != 0
        && matches!(
            (account(access.uid), group(access.gid)),
            (Some(owner), Some(group)) if is_private_group(&owner, &group, &local_accounts())
        );
    others_can_write(entry, access, me, private)
}

/// The accounts of `/etc/passwd`; none when it cannot be read or defers to another source
/// (then no group counts as private). Accounts that only NSS sources such as LDAP or SSSD
/// know are not listed: enumerating a directory is slow or disabled, so their owners simply
/// get no private-group exception.
#[cfg(unix)]
fn local_accounts() -> Vec<Account> {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|text| parse_passwd(&text))
        .unwrap_or_default()
}

/// Reading an entry's POSIX access ACL (Linux's `system.posix_acl_access`); elsewhere none is
/// read (macOS ACLs are not judged: see the README).
#[cfg(unix)]
mod acl {
    /// The ACL of the open `file`.
    #[cfg(target_os = "linux")]
    pub fn of_file(file: &std::fs::File) -> Result<Option<Vec<u8>>, String> {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fd is open for the call; the buffer is valid for `len` bytes (or null, 0).
        read(|buf, len| unsafe { libc::fgetxattr(fd, NAME.as_ptr(), buf, len) })
    }

    /// The ACL of the entry at `path` (a link's own, not its target's).
    #[cfg(target_os = "linux")]
    pub fn of_path(path: &std::path::Path) -> Result<Option<Vec<u8>>, String> {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return Ok(None);
        };
        // SAFETY: c_path is NUL-terminated and outlives the call; the buffer is valid for
        // `len` bytes (or null, 0).
        read(|buf, len| unsafe { libc::lgetxattr(c_path.as_ptr(), NAME.as_ptr(), buf, len) })
    }

    #[cfg(target_os = "linux")]
    const NAME: &std::ffi::CStr = c"system.posix_acl_access";

    /// Calls `get` (a getxattr) for the size, then for the value, again if it grew meanwhile.
    #[cfg(target_os = "linux")]
    fn read(
        get: impl Fn(*mut libc::c_void, usize) -> libc::ssize_t,
    ) -> Result<Option<Vec<u8>>, String> {
        for _ in 0..4 {
            let size = get(std::ptr::null_mut(), 0);
            if size < 0 {
                return absent_or(std::io::Error::last_os_error());
            }
            let mut buf = vec![0u8; size.unsigned_abs()];
            let got = get(buf.as_mut_ptr().cast(), buf.len());
            if got >= 0 {
                buf.truncate(got.unsigned_abs());
                return Ok(Some(buf));
            }
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::ERANGE) {
                return absent_or(err);
            }
        }
        Err("has a POSIX ACL that kept changing while it was read; try again".to_owned())
    }

    /// No ACL (none set, or a file system without them), or the error, for the user.
    #[cfg(target_os = "linux")]
    fn absent_or(err: std::io::Error) -> Result<Option<Vec<u8>>, String> {
        match err.raw_os_error() {
            Some(libc::ENODATA) | Some(libc::ENOTSUP) => Ok(None),
            _ => Err(format!(
                "has a POSIX ACL that cannot be read ({err}), so who may write it is unknown"
            )),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn of_file(_file: &std::fs::File) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn of_path(_path: &std::path::Path) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }
}

/// Windows: the store's ACL is not judged (see the README's Security section).
#[cfg(not(unix))]
pub fn file_problem(_file: &std::fs::File, _meta: &std::fs::Metadata) -> Option<String> {
    None
}

/// Windows: the folders' ACLs are not judged (see the README's Security section).
#[cfg(not(unix))]
pub fn folder_problem(_real_dir: &Path) -> Option<String> {
    None
}

/// The account of `uid` (getpwuid_r), if the system knows it.
#[cfg(unix)]
pub(crate) fn account(uid: u32) -> Option<Account> {
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
pub(crate) fn group(gid: u32) -> Option<Group> {
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
        let local =
            parse_passwd("root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
                .unwrap();
        let private = |g: &Group| is_private_group(&alice, g, &local);
        assert!(private(&group(1000, "alice", &[])));
        assert!(private(&group(1000, "alice", &["alice"])));
        assert!(!private(&group(1000, "alice", &["bob"])));
        // macOS's staff, Linux's users: shared by every account.
        assert!(!private(&group(20, "staff", &[])));
        assert!(!private(&group(1000, "devs", &[])));
    }

    #[test]
    fn a_group_that_is_another_accounts_primary_group_is_not_private() {
        let alice = Account {
            name: "alice".into(),
            gid: 1000,
        };
        let group = Group {
            gid: 1000,
            name: "alice".into(),
            members: vec![],
        };
        // `useradd -g alice sneaky`: /etc/group lists no one, /etc/passwd shows sneaky.
        let passwd =
            "alice:x:1000:1000::/home/alice:/bin/sh\nsneaky:x:1003:1000::/home/sneaky:/bin/sh\n";
        assert!(!is_private_group(
            &alice,
            &group,
            &parse_passwd(passwd).unwrap()
        ));
        // An owner /etc/passwd does not list (LDAP): its other accounts are unknown.
        assert!(!is_private_group(&alice, &group, &[]));
        // NIS compat entries defer to another source: nothing is known.
        assert_eq!(
            parse_passwd("alice:x:1000:1000::/:/bin/sh\n+::::::\n"),
            None
        );
        // Comments and broken lines are no accounts.
        assert_eq!(
            parse_passwd("# c\n\nbob:x:1001\nalice:x:1000:1000::/:/bin/sh").unwrap(),
            vec![alice.clone()]
        );
    }

    /// A Linux access ACL value of `entries` (tag, perm, id).
    fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
        let mut bytes = 2u32.to_le_bytes().to_vec();
        for &(tag, perm, id) in entries {
            bytes.extend(tag.to_le_bytes());
            bytes.extend(perm.to_le_bytes());
            bytes.extend(id.to_le_bytes());
        }
        bytes
    }

    const ANY: u32 = u32::MAX;

    #[test]
    fn an_acl_entry_letting_another_user_or_a_named_group_write_is_a_way_in() {
        let base = |group: u16, mask: u16, extra: &[(u16, u16, u32)]| {
            let mut e = vec![(ACL_USER_OBJ, 6, ANY), (ACL_GROUP_OBJ, group, ANY)];
            e.extend_from_slice(extra);
            e.push((ACL_MASK, mask, ANY));
            e.push((ACL_OTHER, 4, ANY));
            acl_writes(&acl(&e), ME, ME).unwrap()
        };
        // user:1002:rw- (setacl.py / setfacl -m u:attacker:rw): mode shows g+w (the mask).
        let w = base(4, 6, &[(ACL_USER, 6, 1002)]);
        assert!(!w.group);
        let why = w.others.unwrap();
        assert!(
            why.contains("uid 1002") && why.contains("setfacl -x u:1002"),
            "{why}"
        );
        // A named group, whoever is in it.
        let why = base(4, 6, &[(ACL_GROUP, 6, 1000)]).others.unwrap();
        assert!(
            why.contains("gid 1000") && why.contains("setfacl -x g:1000"),
            "{why}"
        );
        // The mask takes write away: read only, whatever the entry says.
        assert_eq!(
            base(4, 4, &[(ACL_USER, 6, 1002), (ACL_GROUP, 7, 5)]),
            AclWrites {
                group: false,
                others: None
            }
        );
        // Read-only named entries, and the owner's own entry: no way in.
        assert_eq!(
            base(4, 6, &[(ACL_USER, 4, 1002), (ACL_USER, 6, ME)]).others,
            None
        );
        // The owning group's write is its entry's, masked (the mode's group bits are the mask).
        assert!(base(6, 6, &[]).group);
        assert!(!base(6, 4, &[]).group);
        // A folder of root's that grants the user (`me`) write: the user's own way in.
        assert_eq!(
            acl_writes(
                &acl(&[
                    (ACL_USER_OBJ, 7, ANY),
                    (ACL_USER, 7, ME),
                    (ACL_MASK, 7, ANY)
                ]),
                0,
                ME
            )
            .unwrap()
            .others,
            None
        );
    }

    #[test]
    fn an_acl_that_cannot_be_read_is_refused() {
        assert!(acl_writes(&[], ME, ME).is_err());
        assert!(acl_writes(&[2, 0, 0, 0, 1], ME, ME).is_err());
        let mut v1 = acl(&[(ACL_USER_OBJ, 6, ANY)]);
        v1[0] = 1;
        assert!(acl_writes(&v1, ME, ME)
            .unwrap_err()
            .contains("cannot be read"));
        assert!(acl_writes(&acl(&[(0x40, 6, ANY)]), ME, ME).is_err());
        // Base entries only, no mask: nothing masked.
        assert!(
            acl_writes(
                &acl(&[
                    (ACL_USER_OBJ, 6, ANY),
                    (ACL_GROUP_OBJ, 6, ANY),
                    (ACL_OTHER, 0, ANY)
                ]),
                ME,
                ME
            )
            .unwrap()
            .group
        );
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
