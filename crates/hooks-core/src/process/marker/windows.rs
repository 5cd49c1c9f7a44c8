//! The sweep on Windows: the processes whose environment block holds a tree's marker, found by
//! reading each process's block, and terminated. The job object holds every descendant but
//! one: a process created with another process named as its parent
//! (`PROC_THREAD_ATTRIBUTE_PARENT_PROCESS`) joins that parent's job, so a hook that opens the
//! host and names it as its child's parent takes the child out of the hook's job. The child
//! still carries the marker it inherited from the hook, and is found by it.

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::Diagnostics::Debug::ReadProcessMemory;
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcessId, OpenProcess, TerminateProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_TERMINATE, PROCESS_VM_READ,
};

use super::{Marked, Stop};

/// Passes over the process list at most (as on Linux): another pass only when one found a
/// marked process, which may have started another meanwhile.
const PASSES: usize = 8;

/// The most of an environment block read (the system allows 32,767 characters a variable,
/// and no total): a block longer than this is read up to here.
const BLOCK_LIMIT: usize = 4 << 20;

/// `PROCESS_BASIC_INFORMATION`, as `NtQueryInformationProcess` fills it.
#[repr(C)]
struct BasicInformation {
    exit_status: i32,
    peb: *mut c_void,
    affinity_mask: usize,
    base_priority: i32,
    unique_process_id: usize,
    inherited_from: usize,
}

#[link(name = "ntdll")]
extern "system" {
    fn NtQueryInformationProcess(
        process: HANDLE,
        class: u32,
        information: *mut c_void,
        length: u32,
        returned: *mut u32,
    ) -> i32;
}

/// Where the block's address is, on a 64-bit system: `PEB.ProcessParameters` and
/// `RTL_USER_PROCESS_PARAMETERS.Environment` (unchanged since Windows XP x64).
const PEB_PROCESS_PARAMETERS: usize = 0x20;
/// The granularity of a read: a page.
const PAGE: usize = 4096;
const PARAMETERS_ENVIRONMENT: usize = 0x80;

/// Terminates every other process whose environment holds a tree's marker; both stops are
/// the same here, as for the job object. Stops that come together share one pass over the
/// processes (an abort of a hundred runs makes one or two sweeps, not a hundred): a caller
/// returns once a sweep that began after it asked, and so looked for its markers, has ended.
pub(super) fn sweep(trees: &[Marked], _stop: Stop) {
    let entries = trees.iter().map(|tree| {
        String::from_utf8_lossy(&tree.entry)
            .encode_utf16()
            .collect()
    });
    let mine = {
        let mut rounds = lock(&ROUNDS);
        rounds.pending.extend(entries);
        rounds.started + 1
    };
    let _turn = lock(&SWEEPING);
    let (round, wanted) = {
        let mut rounds = lock(&ROUNDS);
        if rounds.finished >= mine {
            return;
        }
        rounds.started += 1;
        (rounds.started, std::mem::take(&mut rounds.pending))
    };
    terminate_marked(&wanted);
    lock(&ROUNDS).finished = round;
}

/// The sweeps asked for and made: markers waiting for the next sweep, and the numbers of the
/// last sweep begun and ended.
struct Rounds {
    pending: Vec<Vec<u16>>,
    started: u64,
    finished: u64,
}

static ROUNDS: Mutex<Rounds> = Mutex::new(Rounds {
    pending: Vec::new(),
    started: 0,
    finished: 0,
});
/// Held while a sweep runs: one at a time.
static SWEEPING: Mutex<()> = Mutex::new(());

/// A lock, even one a panicking sweep left poisoned (its data stays consistent).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Terminates every other process whose environment block holds one of `entries`; returns
/// how many.
fn terminate_marked(entries: &[Vec<u16>]) -> usize {
    // Safety: GetCurrentProcessId has no preconditions.
    let me = unsafe { GetCurrentProcessId() };
    let mut terminated: Vec<u32> = Vec::new();
    // Read once: a later pass reads only the processes that are new (under Wine each read is a
    // round trip to its server, and a pass over 300 processes takes a quarter of a second).
    let mut read: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for _ in 0..PASSES {
        let mut found = false;
        for pid in process_ids() {
            if pid == me || pid == 0 || !read.insert(pid) {
                continue;
            }
            // Safety: OpenProcess takes plain values; a null handle is checked.
            let process = unsafe {
                OpenProcess(
                    PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ | PROCESS_TERMINATE,
                    0,
                    pid,
                )
            };
            if process.is_null() {
                continue;
            }
            // The handle pins the process: the pid cannot be reused while it is open, so the
            // block read is the block of the process terminated.
            if carries_a_marker(process, entries) {
                found = true;
                // Safety: a handle opened with PROCESS_TERMINATE.
                if unsafe { TerminateProcess(process, 1) } != 0 {
                    terminated.push(pid);
                }
            }
            // Safety: a handle this function opened.
            unsafe { CloseHandle(process) };
        }
        if !found {
            break;
        }
    }
    terminated.len()
}

/// The ids of the running processes (a Toolhelp snapshot); empty if none can be taken.
fn process_ids() -> Vec<u32> {
    let mut ids = Vec::new();
    // Safety: a snapshot handle is checked, used with a sized entry, and closed.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        if snapshot.is_null() || snapshot as isize == -1 {
            return ids;
        }
        let mut entry: PROCESSENTRY32W = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut more = Process32FirstW(snapshot, &mut entry) != 0;
        while more {
            ids.push(entry.th32ProcessID);
            more = Process32NextW(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
    }
    ids
}

/// Whether `process`'s environment block holds one of `entries` exactly.
fn carries_a_marker(process: HANDLE, entries: &[Vec<u16>]) -> bool {
    let Some(block) = environment_block(process) else {
        return false;
    };
    block
        .split(|&unit| unit == 0)
        .any(|variable| entries.iter().any(|entry| variable == entry.as_slice()))
}

/// Reads `process`'s environment block, up to its closing empty variable or [`BLOCK_LIMIT`].
fn environment_block(process: HANDLE) -> Option<Vec<u16>> {
    if cfg!(not(target_pointer_width = "64")) {
        return None;
    }
    let mut info: BasicInformation = unsafe { std::mem::zeroed() };
    // Safety: class 0 (ProcessBasicInformation) fills a struct of exactly this size.
    let status = unsafe {
        NtQueryInformationProcess(
            process,
            0,
            (&mut info as *mut BasicInformation).cast(),
            std::mem::size_of::<BasicInformation>() as u32,
            std::ptr::null_mut(),
        )
    };
    if status < 0 || info.peb.is_null() {
        return None;
    }
    let parameters: usize = read_value(process, info.peb as usize + PEB_PROCESS_PARAMETERS)?;
    let environment: usize = read_value(process, parameters.checked_add(PARAMETERS_ENVIRONMENT)?)?;
    if environment == 0 {
        return None;
    }
    let mut block: Vec<u16> = Vec::new();
    let mut page = [0u16; PAGE / 2];
    let mut at = environment;
    while block.len() * 2 < BLOCK_LIMIT {
        // One page at a time, up to the next page boundary: a read that would cross into an
        // unmapped page fails whole, and the block may end just before one.
        let bytes = PAGE - at % PAGE;
        let mut read = 0usize;
        // Safety: reads at most PAGE bytes into `page`; a failed read is checked.
        let ok = unsafe {
            ReadProcessMemory(
                process,
                at as *const c_void,
                page.as_mut_ptr().cast(),
                bytes,
                &mut read,
            )
        };
        if ok == 0 || read < 2 {
            break;
        }
        let seen = block.len();
        block.extend_from_slice(&page[..read / 2]);
        // The block ends with an empty variable: two NULs in a row (looked for in what is new).
        if block[seen.saturating_sub(1)..]
            .windows(2)
            .any(|pair| pair == [0, 0])
        {
            break;
        }
        at += read;
    }
    Some(block)
}

/// Reads one pointer-sized value at `address` of `process`.
fn read_value(process: HANDLE, address: usize) -> Option<usize> {
    let mut value = 0usize;
    let mut read = 0usize;
    // Safety: reads size_of::<usize>() bytes into `value`; a failed read is checked.
    let ok = unsafe {
        ReadProcessMemory(
            process,
            address as *const c_void,
            (&mut value as *mut usize).cast(),
            std::mem::size_of::<usize>(),
            &mut read,
        )
    };
    (ok != 0 && read == std::mem::size_of::<usize>()).then_some(value)
}
