/* The backend and output-kind tables (backends.def, emits.def) and their lookups. */
#include "target.h"
#include <string.h>

static const struct { const char *name, *ext; } emits[] = {
#define E(e, name, ext, what) {name, ext},
#include "emits.def"
#undef E
};
_Static_assert(ARRAY_LEN(emits) == EMIT_COUNT - 1, "one row per EmitKind after EMIT_DEFAULT");

const char *emit_name(EmitKind k) { return k > EMIT_DEFAULT && k < EMIT_COUNT ? emits[k - 1].name : "default"; }
const char *emit_extension(EmitKind k) { return k > EMIT_DEFAULT && k < EMIT_COUNT ? emits[k - 1].ext : ".out"; }

int emit_from_name(const char *name) {
    for (int k = EMIT_DEFAULT + 1; k < EMIT_COUNT; k++)
        if (!strcmp(emits[k - 1].name, name)) return k;
    return -1;
}

static const Backend backends[] = {
#define K(e) (1u << EMIT_##e)
#define B(kind, emit, check, def, others, inproc, arch) {kind, emit, check, EMIT_##def, K(def) | (others), EMIT_##inproc, arch},
#include "backends.def"
#undef B
#undef K
};

const Backend *backend_find(const char *name) {
    for (size_t i = 0; i < ARRAY_LEN(backends); i++)
        if (!strcmp(backends[i].name, name)) return &backends[i];
    return NULL;
}
