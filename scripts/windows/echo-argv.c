/*
 * echo-argv.exe: a tiny Windows test program, NOT PowerShell and not part of the package.
 *
 * The Windows test lane (scripts/windows/test.sh) compiles it with mingw and uses it twice:
 *   - as pwsh.exe in a folder put first on PATH: a clearly named stand-in for PowerShell (which
 *     cannot be installed here), so a .ps1 hook runs once through the exact argv the package builds;
 *   - as a compiled .exe hook, for the non-ASCII round trip.
 * It reads all of stdin and prints one JSON object:
 *   {"standIn":"echo-argv.exe (not PowerShell)","argv":[...UTF-8...],"text":"输出✓🎉","echo":<stdin>}
 * "echo" is stdin copied byte for byte (the hook input is a JSON object, so the result is JSON);
 * "argv" is the UTF-16 command line split by CommandLineToArgvW and converted to UTF-8.
 */
#include <windows.h>
#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <io.h>

static void put_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            putchar('\\');
            putchar(c);
        } else if (c < 0x20) {
            printf("\\u%04x", c);
        } else {
            putchar(c);
        }
    }
    putchar('"');
}

int main(void)
{
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);

    size_t cap = 1 << 16, len = 0, n;
    char *in = malloc(cap);
    while (in && (n = fread(in + len, 1, cap - len, stdin)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            in = realloc(in, cap);
        }
    }
    if (!in) {
        return 3;
    }
    while (len > 0 && (in[len - 1] == '\n' || in[len - 1] == '\r' || in[len - 1] == ' ')) {
        len--;
    }

    int argc = 0;
    LPWSTR *argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    /* "输出✓🎉" as UTF-8 bytes, so the source file's encoding does not matter. */
    static const char text[] = "\xe8\xbe\x93\xe5\x87\xba\xe2\x9c\x93\xf0\x9f\x8e\x89";

    printf("{\"standIn\":\"echo-argv.exe (not PowerShell)\",\"argv\":[");
    for (int i = 0; argv && i < argc; i++) {
        int size = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, NULL, 0, NULL, NULL);
        char *utf8 = malloc(size > 0 ? size : 1);
        utf8[0] = 0;
        WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, utf8, size, NULL, NULL);
        if (i > 0) {
            putchar(',');
        }
        put_json_string(utf8);
        free(utf8);
    }
    printf("],\"text\":\"%s\",\"echo\":", text);
    if (len == 0) {
        printf("null");
    } else {
        fwrite(in, 1, len, stdout);
    }
    printf("}\n");
    fflush(stdout);
    return 0;
}
