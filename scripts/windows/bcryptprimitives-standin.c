/*
 * Stand-in for Windows' bcryptprimitives.dll, for Wine 8 only (test lane, never shipped).
 *
 * Rust >= 1.78 programs import ProcessPrng from bcryptprimitives.dll for their random numbers.
 * Wine 8 has no such DLL, so every Rust .exe fails to start (status c0000135). This one-function
 * DLL fills the buffer from RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * scripts/windows/test.sh builds it with mingw and copies it into the Wine prefix's system32.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
