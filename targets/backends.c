/* The backend table: backend kind (a family's `backend:` key) -> emitter. */
#include "target.h"
#include <string.h>

static const Backend backends[] = {
    {"x86_64", backend_llvm_emit},
    {"ptx", backend_llvm_emit},
    {"amdgpu", backend_llvm_emit},
    {"spirv", backend_spirv_emit},
    {"msl", backend_spirv_emit},
};

const Backend *backend_find(const char *name) {
    for (size_t i = 0; i < ARRAY_LEN(backends); i++)
        if (!strcmp(backends[i].name, name)) return &backends[i];
    return NULL;
}
