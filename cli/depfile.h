/* Make-style dependency files (-MD, -MMD, -MF, -MT, -MQ, -MP), written in the same run as the
 * outputs. Dependencies: the input (unless stdin) and every capability file a target read. */
#ifndef QDC_DEPFILE_H
#define QDC_DEPFILE_H
#include "../support/util.h"
#include <stdbool.h>

typedef struct DepTarget {
    const char *name;
    bool quote; /* -MQ: escape for make; -MT: verbatim */
} DepTarget;

/* Appends `path` escaped for a make rule and a ninja depfile (spaces, tabs, '#', ':', '$'). */
void dep_escape(StrBuf *out, const char *path);
/* Why `path` cannot be written in a depfile at all ("a newline", ...), or NULL when it can. */
const char *dep_unwritable(const char *path);
/* Renders the rule "targets: deps" (one dependency per line) and, with phony, an empty rule for
 * every dependency after the first ninputs (the input file, absent when it is stdin), so
 * deleting or renaming a capability file does not break make. */
void dep_render(StrBuf *out, const DepTarget *targets, int ntargets, const char *const *deps, int ndeps,
                int ninputs, bool phony);
/* The default depfile path for an output: ".d" appended ("out/k.ptx" -> "out/k.ptx.d"), so outputs
 * that differ only in their extension (k.o, k.h, k.spv) never share a depfile. */
char *dep_default_path(const char *output);
#endif
