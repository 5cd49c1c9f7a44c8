/*
 * hookbot.exe: the Windows test hooks that need the Windows API or a fast start. Not part of the
 * package; the Windows lane (scripts/windows/test.sh) builds it with mingw, and the workflow on
 * real Windows with the compiler it has.
 *
 *   hookbot.exe                  reads all of stdin, prints the contents of "<own path>.verdict"
 *                                (or {}) with each @ID@ replaced by the input's "id" string, and
 *                                exits 0: the quick hook of a thousand runs.
 *   hookbot.exe <mode> <dir> [verdict-file]
 *                                a hostile hook. It writes its pid to <dir>\hook-<pid>.pid, prints
 *                                the verdict file's contents (if given) and then, by mode:
 *     ignore-ctrl   ignores console control events, starts a child that does the same and starts
 *                   a grandchild; all three keep stdout open and never end (child-<pid>.pid,
 *                   grandchild-<pid>.pid);
 *     tree          starts a child that starts a grandchild; all three never end;
 *     breakaway     starts a child with CREATE_BREAKAWAY_FROM_JOB (escape.txt says whether Windows
 *                   allowed it; if not, it starts the child plainly), then never ends;
 *     spoof-parent  starts its child with the host (the pid in CLINE_HOOKS_START) as its parent
 *                   (PROC_THREAD_ATTRIBUTE_PARENT_PROCESS), so the child is in the host's job,
 *                   not the hook's (escape.txt says whether that worked), then never ends;
 *     own-job       puts itself in a job object of its own, starts a child inside it, never ends;
 *     never-read    never reads stdin and never ends;
 *     wait          never ends (the children above run this).
 */
#include <windows.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>

static wchar_t self_path[MAX_PATH * 4];

static void write_file(const wchar_t *dir, const wchar_t *name, const char *text)
{
    wchar_t path[MAX_PATH * 4];
    _snwprintf(path, sizeof path / sizeof *path, L"%ls\\%ls", dir, name);
    HANDLE h = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return;
    DWORD written;
    WriteFile(h, text, (DWORD)strlen(text), &written, NULL);
    CloseHandle(h);
}

/* Writes this process's pid to <dir>\<role>-<pid>.pid, so many hooks can share one folder. */
static void write_pid(const wchar_t *dir, const wchar_t *role)
{
    char text[32];
    wchar_t name[64];
    snprintf(text, sizeof text, "%lu", GetCurrentProcessId());
    _snwprintf(name, 64, L"%ls-%lu.pid", role, GetCurrentProcessId());
    write_file(dir, name, text);
}

/* Copies a whole file to stdout; returns whether it could be read. */
static int print_file(const wchar_t *path)
{
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    if (h == INVALID_HANDLE_VALUE) return 0;
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    char buf[65536];
    DWORD got, written;
    while (ReadFile(h, buf, sizeof buf, &got, NULL) && got > 0) WriteFile(out, buf, got, &written, NULL);
    CloseHandle(h);
    return 1;
}

/* Reads all of stdin; keeps the value of the first "id":"..." (JSON.stringify's spacing). */
static void drain_stdin(char *id, size_t id_size)
{
    static const char key[] = "\"id\":\"";
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    char buf[65536], head[4096];
    size_t kept = 0;
    DWORD got;
    id[0] = 0;
    while (ReadFile(in, buf, sizeof buf, &got, NULL) && got > 0) {
        size_t room = sizeof head - 1 - kept;
        size_t take = got < room ? got : room;
        memcpy(head + kept, buf, take);
        kept += take;
    }
    head[kept] = 0;
    char *at = strstr(head, key);
    if (!at) return;
    at += sizeof key - 1;
    size_t n = 0;
    while (at[n] && at[n] != '"' && n + 1 < id_size) n++;
    memcpy(id, at, n);
    id[n] = 0;
}

/* Prints a whole (small) file with each @ID@ replaced by `id`; returns whether it was read. */
static int print_verdict(const wchar_t *path, const char *id)
{
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    if (h == INVALID_HANDLE_VALUE) return 0;
    char text[65536];
    DWORD got = 0;
    ReadFile(h, text, sizeof text - 1, &got, NULL);
    CloseHandle(h);
    text[got] = 0;
    for (char *at = text, *hit; *at; at = hit + 4) {
        hit = strstr(at, "@ID@");
        if (!hit) {
            fputs(at, stdout);
            break;
        }
        fwrite(at, 1, (size_t)(hit - at), stdout);
        fputs(id, stdout);
    }
    return 1;
}

/* Starts "hookbot.exe <mode> <dir>" with inherited handles (so it holds stdout too). */
static BOOL start_child(const wchar_t *mode, const wchar_t *dir, DWORD flags, PROCESS_INFORMATION *pi)
{
    wchar_t cmd[MAX_PATH * 10];
    _snwprintf(cmd, sizeof cmd / sizeof *cmd, L"\"%ls\" %ls \"%ls\"", self_path, mode, dir);
    STARTUPINFOW si;
    ZeroMemory(&si, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    return CreateProcessW(NULL, cmd, NULL, NULL, TRUE, flags, NULL, NULL, &si, pi);
}

/* Starts "hookbot.exe child <dir>" as a child of process `parent_pid`; returns whether it did. */
static BOOL start_child_of(DWORD parent_pid, const wchar_t *dir)
{
    HANDLE parent = OpenProcess(PROCESS_CREATE_PROCESS, FALSE, parent_pid);
    if (!parent) return FALSE;
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(NULL, 1, 0, &size);
    LPPROC_THREAD_ATTRIBUTE_LIST list = (LPPROC_THREAD_ATTRIBUTE_LIST)HeapAlloc(GetProcessHeap(), 0, size);
    BOOL ok = list && InitializeProcThreadAttributeList(list, 1, 0, &size) &&
              UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_PARENT_PROCESS, &parent, sizeof parent, NULL, NULL);
    if (ok) {
        wchar_t cmd[MAX_PATH * 10];
        _snwprintf(cmd, sizeof cmd / sizeof *cmd, L"\"%ls\" child \"%ls\"", self_path, dir);
        STARTUPINFOEXW si;
        ZeroMemory(&si, sizeof si);
        si.StartupInfo.cb = sizeof si;
        si.lpAttributeList = list;
        PROCESS_INFORMATION pi;
        ok = CreateProcessW(NULL, cmd, NULL, NULL, FALSE, EXTENDED_STARTUPINFO_PRESENT | CREATE_NO_WINDOW, NULL, NULL, &si.StartupInfo, &pi);
        if (ok) {
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        }
        DeleteProcThreadAttributeList(list);
    }
    if (list) HeapFree(GetProcessHeap(), 0, list);
    CloseHandle(parent);
    return ok;
}

static void never_end(void)
{
    for (;;) Sleep(INFINITE);
}

int wmain(int argc, wchar_t **argv)
{
    GetModuleFileNameW(NULL, self_path, sizeof self_path / sizeof *self_path);
    _setmode(_fileno(stdout), _O_BINARY);

    if (argc < 3) {
        wchar_t verdict[MAX_PATH * 4 + 16];
        char id[256];
        drain_stdin(id, sizeof id);
        _snwprintf(verdict, sizeof verdict / sizeof *verdict, L"%ls.verdict", self_path);
        /* Started by its short (8.3) name (a deep folder), it finds the file by its long one. */
        wchar_t long_path[MAX_PATH * 4];
        DWORD long_len = GetLongPathNameW(self_path, long_path, sizeof long_path / sizeof *long_path);
        int printed = print_verdict(verdict, id);
        if (!printed && long_len > 0 && long_len < sizeof long_path / sizeof *long_path) {
            _snwprintf(verdict, sizeof verdict / sizeof *verdict, L"%ls.verdict", long_path);
            printed = print_verdict(verdict, id);
        }
        if (!printed) fputs("{}\n", stdout);
        return 0;
    }

    const wchar_t *mode = argv[1], *dir = argv[2];
    if (wcscmp(mode, L"wait") == 0) {
        SetConsoleCtrlHandler(NULL, TRUE);
        never_end();
    }
    if (wcscmp(mode, L"child") == 0 || wcscmp(mode, L"grandchild") == 0) {
        SetConsoleCtrlHandler(NULL, TRUE);
        PROCESS_INFORMATION pi;
        if (wcscmp(mode, L"child") == 0 && start_child(L"grandchild", dir, 0, &pi)) {
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        }
        write_pid(dir, mode);
        never_end();
    }

    write_pid(dir, L"hook");
    if (argc > 3) print_file(argv[3]);
    fflush(stdout);

    PROCESS_INFORMATION pi;
    if (wcscmp(mode, L"ignore-ctrl") == 0 || wcscmp(mode, L"tree") == 0) {
        if (wcscmp(mode, L"ignore-ctrl") == 0) SetConsoleCtrlHandler(NULL, TRUE);
        if (start_child(L"child", dir, 0, &pi)) {
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        }
    } else if (wcscmp(mode, L"breakaway") == 0) {
        if (start_child(L"child", dir, CREATE_BREAKAWAY_FROM_JOB, &pi)) {
            write_file(dir, L"escape.txt", "allowed");
        } else {
            char text[64];
            snprintf(text, sizeof text, "refused %lu", GetLastError());
            write_file(dir, L"escape.txt", text);
            if (!start_child(L"child", dir, 0, &pi)) return 3;
        }
        CloseHandle(pi.hThread);
        CloseHandle(pi.hProcess);
    } else if (wcscmp(mode, L"spoof-parent") == 0) {
        /* CLINE_HOOKS_START=<host pid>.<nonce>.<n> */
        char marker[128];
        DWORD got = GetEnvironmentVariableA("CLINE_HOOKS_START", marker, sizeof marker);
        DWORD host = got > 0 && got < sizeof marker ? (DWORD)strtoul(marker, NULL, 10) : 0;
        write_file(dir, L"escape.txt", host && start_child_of(host, dir) ? "started" : "refused");
    } else if (wcscmp(mode, L"own-job") == 0) {
        HANDLE job = CreateJobObjectW(NULL, NULL);
        BOOL inside = job && AssignProcessToJobObject(job, GetCurrentProcess());
        char text[64];
        snprintf(text, sizeof text, inside ? "nested" : "refused %lu", GetLastError());
        write_file(dir, L"job.txt", text);
        if (start_child(L"child", dir, 0, &pi)) {
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        }
    } else if (wcscmp(mode, L"never-read") != 0) {
        fprintf(stderr, "hookbot: unknown mode\n");
        return 2;
    }
    never_end();
    return 0;
}
