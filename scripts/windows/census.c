/*
 * census.exe <pid>: what a Windows test counts with the Windows API. Not part of the package;
 * the Windows lane builds it with mingw. Prints one JSON line:
 *   {"handles":N,"processes":M,"descendants":[pid,...]}
 * handles: GetProcessHandleCount of <pid>; processes: every process in a Toolhelp snapshot;
 * descendants: the processes whose parent chain (by the snapshot) leads to <pid>.
 * Exits 1 with a sentence on stderr when <pid> cannot be opened.
 */
#include <windows.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PROCS 65536

static DWORD pids[MAX_PROCS], parents[MAX_PROCS];

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: census.exe <pid>\n");
        return 2;
    }
    DWORD root = (DWORD)strtoul(argv[1], NULL, 10);
    HANDLE process = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, root);
    if (!process) process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, root);
    if (!process) {
        fprintf(stderr, "census.exe: cannot open process %lu (error %lu)\n", root, GetLastError());
        return 1;
    }
    DWORD handles = 0;
    GetProcessHandleCount(process, &handles);
    CloseHandle(process);

    int count = 0;
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snap != INVALID_HANDLE_VALUE) {
        PROCESSENTRY32 entry;
        entry.dwSize = sizeof entry;
        for (BOOL ok = Process32First(snap, &entry); ok && count < MAX_PROCS; ok = Process32Next(snap, &entry)) {
            pids[count] = entry.th32ProcessID;
            parents[count] = entry.th32ParentProcessID;
            count++;
        }
        CloseHandle(snap);
    }

    printf("{\"handles\":%lu,\"processes\":%d,\"descendants\":[", handles, count);
    int printed = 0;
    for (int i = 0; i < count; i++) {
        /* Walk up the parent chain (bounded: a reused pid can make a loop). */
        DWORD at = parents[i];
        for (int depth = 0; depth < 64 && at != 0; depth++) {
            if (at == root) {
                printf(printed++ ? ",%lu" : "%lu", pids[i]);
                break;
            }
            int next = -1;
            for (int j = 0; j < count; j++) {
                if (pids[j] == at) {
                    next = j;
                    break;
                }
            }
            if (next < 0 || pids[next] == pids[i]) break;
            at = parents[next];
        }
    }
    printf("]}\n");
    return 0;
}
