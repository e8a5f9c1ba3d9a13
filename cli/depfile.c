/* Dependency-file rendering: gcc-compatible syntax that make, Ninja and CMake's DEPFILE accept. */
#include "depfile.h"
#include <string.h>

/* GNU make reads 2N+1 backslashes before a space as N backslashes and a space, so the
 * backslashes before a space or tab are doubled (as gcc does); '#' and ':' get a backslash and
 * '$' doubles. Checked against real make and ninja (tests/unit/test_io_formats.c). A newline,
 * a backslash ending a name or one before '#' cannot be written at all: see dep_unwritable(). */
void dep_escape(StrBuf *out, const char *path) {
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            for (const char *q = p; q > path && q[-1] == '\\'; q--) sb_putc(out, '\\');
            sb_putc(out, '\\');
        }
        if (*p == '#' || *p == ':') sb_putc(out, '\\');
        if (*p == '$') sb_putc(out, '$');
        sb_putc(out, *p);
    }
}

const char *dep_unwritable(const char *path) {
    for (const char *p = path; *p; p++) {
        if (*p == '\n' || *p == '\r') return "a line break";
        if (*p == '\\' && !p[1]) return "a backslash at its end";
        if (*p == '\\' && p[1] == '#') return "a backslash before '#'";
    }
    return NULL;
}

void dep_render(StrBuf *out, const DepTarget *targets, int ntargets, const char *const *deps, int ndeps,
                int ninputs, bool phony) {
    for (int i = 0; i < ntargets; i++) {
        if (i) sb_putc(out, ' ');
        if (targets[i].quote) dep_escape(out, targets[i].name);
        else sb_puts(out, targets[i].name);
    }
    sb_putc(out, ':');
    for (int i = 0; i < ndeps; i++) {
        sb_puts(out, " \\\n  ");
        dep_escape(out, deps[i]);
    }
    sb_putc(out, '\n');
    for (int i = ninputs; phony && i < ndeps; i++) {
        sb_putc(out, '\n');
        dep_escape(out, deps[i]);
        sb_puts(out, ":\n");
    }
}

char *dep_default_path(const char *output) { return xasprintf("%s.d", output); }
