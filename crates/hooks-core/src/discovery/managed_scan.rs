//! Checking a scanned managed hooks folder: reads the owner and permissions (macOS/Linux) or
//! owner and DACL (Windows) of the folder, the folders above it and each hook file, during the
//! scan, and marks every hook that the rules of `managed.rs` refuse.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::managed::Role;
use super::{Contents, EntryKind};
use crate::launch::Launch;

/// `contents` of the managed folder `dir` with every hook file whose folder, folders above or
/// file someone other than root/Administrators can write marked [`EntryKind::Refused`] (and
/// its launch disabled), the sentence saying what is wrong and how to fix it. Costs a `stat`
/// (Windows: a security descriptor read) of the folder and of each folder above it, and of
/// each hook file of the hooks asked for; nothing when the folder is missing or holds none.
pub(super) fn refuse_unsafe(dir: &Path, contents: Contents) -> Contents {
    let Contents::Entries(mut entries) = contents else {
        return contents;
    };
    if !entries
        .iter()
        .any(|e| matches!(e.kind, EntryKind::File { .. }))
    {
        return Contents::Entries(entries);
    }
    let mut checks = Checks::default();
    let folder = checks.folder(dir);
    for entry in entries.iter_mut() {
        if !matches!(entry.kind, EntryKind::File { .. }) {
            continue;
        }
        let why = folder
            .clone()
            .or_else(|| checks.file(&dir.join(&entry.name)));
        if let Some(why) = why {
            let why = format!("refused as a managed hook: {why}");
            entry.launch = Launch::Disabled(why.clone());
            entry.kind = EntryKind::Refused(why);
        }
    }
    Contents::Entries(entries)
}

/// One scan's checks, each path looked at once.
#[derive(Default)]
struct Checks {
    seen: HashMap<(PathBuf, RoleKey), Option<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum RoleKey {
    Folder,
    File,
    Above,
}

impl Checks {
    /// What is wrong with the managed folder or a folder above it, if anything.
    fn folder(&mut self, dir: &Path) -> Option<String> {
        self.check(dir, Role::Folder)
            .or_else(|| self.above(dir))
            .or_else(|| {
                let real = std::fs::canonicalize(dir).ok()?;
                (real != dir)
                    .then(|| {
                        self.check(&real, Role::Folder)
                            .or_else(|| self.above(&real))
                    })
                    .flatten()
            })
    }

    /// What is wrong with a hook file: the file it leads to, and, for a link, the folders
    /// above that file.
    fn file(&mut self, path: &Path) -> Option<String> {
        if let Some(why) = self.check(path, Role::File) {
            return Some(why);
        }
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return None;
        }
        match std::fs::canonicalize(path) {
            Ok(real) => self.above(&real),
            Err(err) => Some(format!("{} cannot be followed ({err})", path.display())),
        }
    }

    /// What is wrong with a folder above `path`, the nearest first.
    fn above(&mut self, path: &Path) -> Option<String> {
        path.ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .find_map(|p| self.check(p, Role::Above))
    }

    fn check(&mut self, path: &Path, role: Role) -> Option<String> {
        let key = match role {
            Role::Folder => RoleKey::Folder,
            Role::File => RoleKey::File,
            Role::Above => RoleKey::Above,
        };
        self.seen
            .entry((path.to_path_buf(), key))
            .or_insert_with(|| problem_at(path, role))
            .clone()
    }
}

/// What is wrong with `path` in `role`, read from the file system (links followed).
#[cfg(unix)]
fn problem_at(path: &Path, role: Role) -> Option<String> {
    use super::managed::{unix_problem, unix_refusal, UnixFacts, UnixProblem};
    use std::os::unix::fs::MetadataExt;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) => return Some(format!("{} cannot be checked ({err})", path.display())),
    };
    let facts = UnixFacts {
        uid: meta.uid(),
        gid: meta.gid(),
        mode: meta.mode(),
    };
    let problem = unix_problem(role, facts)?;
    let (owner, group) = match problem {
        UnixProblem::Owner { uid } => (crate::policy::account(uid).map(|a| a.name), None),
        UnixProblem::GroupWritable { gid } => (None, crate::policy::group(gid).map(|g| g.name)),
        UnixProblem::OtherWritable => (None, None),
    };
    Some(unix_refusal(
        path,
        role,
        facts,
        problem,
        owner.as_deref(),
        group.as_deref(),
    ))
}

/// What is wrong with `path` in `role`, read from its security descriptor (links followed).
#[cfg(windows)]
fn problem_at(path: &Path, role: Role) -> Option<String> {
    use super::managed::{acl_problem, acl_refusal, AclProblem};
    let (owner, dacl) = match acl::read(path) {
        Ok(read) => read,
        Err(err) => return Some(format!("{} cannot be checked ({err})", path.display())),
    };
    let problem = acl_problem(role, &owner, dacl.as_deref())?;
    let sid = match &problem {
        AclProblem::Owner(sid)
        | AclProblem::Grants { sid, .. }
        | AclProblem::Unknown { sid, .. } => Some(sid.as_str()),
        AclProblem::NoDacl => None,
    };
    let name = sid.and_then(acl::account_name);
    Some(acl_refusal(path, role, &problem, name.as_deref()))
}

/// Reading a file's owner and DACL on Windows.
#[cfg(windows)]
mod acl {
    use super::super::managed::{Ace, AceKind};
    use std::io;
    use std::os::windows::ffi::OsStrExt;
    use std::path::Path;
    use windows_sys::Win32::Foundation::{LocalFree, ERROR_SUCCESS};
    use windows_sys::Win32::Security::Authorization::{
        ConvertSidToStringSidW, ConvertStringSidToSidW, GetNamedSecurityInfoW, SE_FILE_OBJECT,
    };
    use windows_sys::Win32::Security::{
        GetAce, LookupAccountSidW, ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, DACL_SECURITY_INFORMATION,
        OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, SID_NAME_USE,
    };

    const ALLOWED: u8 = 0; // ACCESS_ALLOWED_ACE_TYPE
    const DENIED: u8 = 1; // ACCESS_DENIED_ACE_TYPE
    const ALLOWED_CALLBACK: u8 = 9;
    const DENIED_CALLBACK: u8 = 10;
    const INHERIT_ONLY: u8 = 0x08;

    /// Frees what Windows allocated with LocalAlloc when dropped.
    struct Local(*mut core::ffi::c_void);
    impl Drop for Local {
        fn drop(&mut self) {
            if !self.0.is_null() {
                // Safety: allocated by the API that returned it, freed once.
                unsafe { LocalFree(self.0) };
            }
        }
    }

    fn wide(path: &Path) -> Vec<u16> {
        path.as_os_str().encode_wide().chain(Some(0)).collect()
    }

    /// The owner SID and the DACL (`None`: a null DACL) of `path`.
    pub fn read(path: &Path) -> io::Result<(String, Option<Vec<Ace>>)> {
        let name = wide(path);
        let mut owner: PSID = std::ptr::null_mut();
        let mut dacl: *mut ACL = std::ptr::null_mut();
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // Safety: a NUL-terminated path; the out pointers point into `sd`, freed by `_sd`.
        let rc = unsafe {
            GetNamedSecurityInfoW(
                name.as_ptr(),
                SE_FILE_OBJECT,
                OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                &mut owner,
                std::ptr::null_mut(),
                &mut dacl,
                std::ptr::null_mut(),
                &mut sd,
            )
        };
        let _sd = Local(sd);
        if rc != ERROR_SUCCESS {
            return Err(io::Error::from_raw_os_error(rc as i32));
        }
        let owner = sid_text(owner)?;
        if dacl.is_null() {
            return Ok((owner, None));
        }
        // Safety: a valid ACL inside `sd`.
        let count = unsafe { (*dacl).AceCount };
        let mut aces = Vec::with_capacity(usize::from(count));
        for i in 0..u32::from(count) {
            let mut ace: *mut core::ffi::c_void = std::ptr::null_mut();
            // Safety: `i` is below the ACL's count.
            if unsafe { GetAce(dacl, i, &mut ace) } == 0 || ace.is_null() {
                return Err(io::Error::last_os_error());
            }
            // Safety: every ACE starts with its header; the allowed and denied kinds (and their
            // callback forms) continue with the mask and the SID, as ACCESS_ALLOWED_ACE lays out.
            let header = unsafe { &*(ace as *const ACE_HEADER) };
            let laid_out = unsafe { &*(ace as *const ACCESS_ALLOWED_ACE) };
            let sid = sid_text(std::ptr::addr_of!(laid_out.SidStart) as PSID)?;
            let kind = match header.AceType {
                ALLOWED | ALLOWED_CALLBACK => AceKind::Allow,
                DENIED | DENIED_CALLBACK => AceKind::Deny,
                other => AceKind::Other(other),
            };
            aces.push(Ace {
                sid,
                mask: laid_out.Mask,
                kind,
                inherit_only: header.AceFlags & INHERIT_ONLY != 0,
            });
        }
        Ok((owner, Some(aces)))
    }

    fn sid_text(sid: PSID) -> io::Result<String> {
        let mut text: *mut u16 = std::ptr::null_mut();
        // Safety: a valid SID; `text` is allocated by the call and freed by `_text`.
        if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let _text = Local(text.cast());
        // Safety: a NUL-terminated wide string.
        let len = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
        let units = unsafe { std::slice::from_raw_parts(text, len) };
        Ok(String::from_utf16_lossy(units))
    }

    /// `DOMAIN\name` of a SID given as text, for messages.
    pub fn account_name(sid: &str) -> Option<String> {
        let text: Vec<u16> = sid.encode_utf16().chain(Some(0)).collect();
        let mut psid: PSID = std::ptr::null_mut();
        // Safety: a NUL-terminated string; `psid` is freed by `_sid`.
        if unsafe { ConvertStringSidToSidW(text.as_ptr(), &mut psid) } == 0 {
            return None;
        }
        let _sid = Local(psid);
        let mut name = [0u16; 256];
        let mut domain = [0u16; 256];
        let (mut name_len, mut domain_len) = (name.len() as u32, domain.len() as u32);
        let mut use_: SID_NAME_USE = 0;
        // Safety: buffers with their sizes.
        let ok = unsafe {
            LookupAccountSidW(
                std::ptr::null(),
                psid,
                name.as_mut_ptr(),
                &mut name_len,
                domain.as_mut_ptr(),
                &mut domain_len,
                &mut use_,
            )
        };
        if ok == 0 {
            return None;
        }
        let name = String::from_utf16_lossy(&name[..name_len as usize]);
        let domain = String::from_utf16_lossy(&domain[..domain_len as usize]);
        Some(if domain.is_empty() {
            name
        } else {
            format!("{domain}\\{name}")
        })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::discovery::fixtures::scratch;
    use crate::discovery::Entry;
    use std::os::unix::fs::PermissionsExt;

    fn hook(name: &str) -> Entry {
        Entry {
            name: name.to_owned(),
            kind: EntryKind::File { executable: true },
            shebang: Some("/bin/sh".into()),
            launch: Launch::Argv(vec![name.into()]),
            sha256: None,
            header: Default::default(),
        }
    }

    fn refused(contents: &Contents) -> Vec<Option<String>> {
        let Contents::Entries(entries) = contents else {
            panic!("{contents:?}")
        };
        entries
            .iter()
            .map(|e| match &e.kind {
                EntryKind::Refused(why) => Some(why.clone()),
                _ => None,
            })
            .collect()
    }

    /// Runs as root on the test machine (what it creates is root's); as another user every
    /// managed folder it makes is refused for its owner, which is checked instead.
    #[test]
    fn a_managed_hook_is_refused_when_others_can_write_its_folder_or_file() {
        let dir = scratch("managed");
        let set = |p: &Path, mode| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        std::fs::write(dir.join("A"), "#!/bin/sh\n").unwrap();
        std::fs::write(dir.join("B"), "#!/bin/sh\n").unwrap();
        set(&dir.join("A"), 0o755);
        set(&dir.join("B"), 0o755);
        set(&dir, 0o755);
        let scan = || refuse_unsafe(&dir, Contents::Entries(vec![hook("A"), hook("B")]));
        // SAFETY of the call: reads the effective uid only.
        let root = unsafe { libc::geteuid() } == 0;
        if !root {
            let got = refused(&scan());
            assert!(
                got.iter()
                    .all(|w| w.as_deref().is_some_and(|w| w.contains("not root"))),
                "{got:?}"
            );
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        assert_eq!(refused(&scan()), vec![None, None]);
        set(&dir.join("B"), 0o757);
        let got = refused(&scan());
        assert_eq!(got[0], None);
        let why = got[1].as_deref().unwrap_or_default();
        assert!(why.starts_with("refused as a managed hook: "), "{why}");
        assert!(
            why.contains(&format!(
                "{} is writable by everyone (mode 0757)",
                dir.join("B").display()
            )),
            "{why}"
        );
        set(&dir.join("B"), 0o755);
        set(&dir, 0o775);
        let got = refused(&scan());
        for why in &got {
            let why = why.as_deref().unwrap_or_default();
            assert!(
                why.contains("the managed hooks folder") && why.contains("is writable by group"),
                "{why}"
            );
        }
        // A link to a file in a folder others can write is refused for that folder.
        set(&dir, 0o755);
        let elsewhere = scratch("managed-target");
        set(&elsewhere, 0o777);
        std::fs::write(elsewhere.join("real"), "#!/bin/sh\n").unwrap();
        set(&elsewhere.join("real"), 0o755);
        std::os::unix::fs::symlink(elsewhere.join("real"), dir.join("C")).unwrap();
        let got = refused(&refuse_unsafe(&dir, Contents::Entries(vec![hook("C")])));
        let why = got[0].as_deref().unwrap_or_default();
        assert!(
            why.contains("a folder above a managed hook, is writable by everyone"),
            "{why}"
        );
        // Nothing to check: no system call, the contents as they were.
        assert_eq!(refuse_unsafe(&dir, Contents::Missing), Contents::Missing);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&elsewhere);
    }
}
