/*
 * ctrl-c.exe <pid>: presses Ctrl-C on the console of process <pid>, as a user at that console
 * would. Not part of the package; a Windows test helper (for the Windows lane: build it with
 * mingw like hookbot.exe and pass its path in CLINE_HOOKS_TEST_CTRL_C).
 *
 * Node cannot do this: process.kill(pid, 'SIGINT') is TerminateProcess on Windows. A console
 * control event goes to every process attached to a console, so this program leaves its own
 * console, attaches to <pid>'s, ignores the event itself and generates CTRL_C_EVENT for the
 * whole console (process group 0: Windows delivers CTRL_C_EVENT to no smaller group).
 * Exits 0 once the event is generated; 1 with a sentence on stderr otherwise.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ctrl-c.exe <pid>\n");
        return 2;
    }
    DWORD pid = (DWORD)strtoul(argv[1], NULL, 10);
    FreeConsole();
    if (!AttachConsole(pid)) {
        fprintf(stderr, "ctrl-c.exe: cannot attach to the console of process %lu (error %lu)\n", pid, GetLastError());
        return 1;
    }
    SetConsoleCtrlHandler(NULL, TRUE);
    if (!GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0)) {
        fprintf(stderr, "ctrl-c.exe: GenerateConsoleCtrlEvent failed (error %lu)\n", GetLastError());
        return 1;
    }
    return 0;
}
