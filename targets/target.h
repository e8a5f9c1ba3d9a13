/* The backend interface. The driver hands the sealed IrModule, this target's lowering of it
 * (IrLowered) and the resolved family to the backend named by the family's `backend:` key; the backend fills `out` with the artifact bytes
 * and never touches the file system for the output itself (the driver writes atomically).
 * Backends return false after reporting diagnostics; an internal failure uses die().
 * What a backend may touch: this header, abi.h, ir/ir.h (the sealed IR and its IrLowered, read
 * only), capdb/capdb.h (the family's answers) and support/; never a frontend header, another
 * backend's folder, or the file system for its outputs. A backend is one row of backends.def. */
#ifndef QDC_TARGET_H
#define QDC_TARGET_H
#include "../capdb/capdb.h"
#include "../ir/ir.h"
#include "../support/util.h"

typedef enum {
    EMIT_DEFAULT, /* the family's natural output (the backend's default column) */
#define E(e, name, ext, what) EMIT_##e,
#include "emits.def"
#undef E
    EMIT_COUNT
} EmitKind;

/* --emit's name and the file extension (with the dot) of an output kind; emit_from_name: -1 if none. */
const char *emit_name(EmitKind k);
const char *emit_extension(EmitKind k);
int emit_from_name(const char *name);

typedef struct TargetOptions {
    EmitKind emit;
    int opt_level;            /* 0..3, default 2 */
    const char *module_name;  /* basename of the input without extension, e.g. "histogram" */
    const char *const *caps;  /* --cap=+NAME / -NAME as given (msl: +msl3.2 chooses MSL 3.2) */
    int ncaps;
    bool debug_lines;         /* -g: line information (DWARF / .loc / OpLine) mapping code to .qd lines */
    const char *symbol_prefix; /* --symbol-prefix (already applied to the IR's symbols); NULL: none */
    /* Called at most once, when the backend has read the IR and the lowering for the last time
     * (the driver frees them: a large kernel's LLVM or SPIR-V work then reuses that memory).
     * After it the backend reads neither m nor low, nor anything they point to. NULL: none. */
    void (*ir_done)(void *ctx);
    void *ir_done_ctx;
} TargetOptions;

typedef bool (*BackendFn)(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o,
                          StrBuf *out);

/* Checks a family's backend-specific facts once it is chosen (false after located diagnostics). */
typedef bool (*BackendCheckFn)(const CapTarget *t);

/* One entry per backend kind (targets/backends.def). */
typedef struct Backend {
    const char *name;      /* matches cap_backend() */
    BackendFn emit;
    BackendCheckFn check;  /* NULL: nothing to check */
    EmitKind def;          /* what EMIT_DEFAULT means */
    unsigned allowed;      /* bit per EmitKind it produces (def included) */
    EmitKind in_process;   /* an output made without external tools (the fuzzer's) */
    const char *qd_arch;   /* Quadrants' arch for it: "x64", "cuda", "amdgpu", "vulkan", "metal" */
} Backend;

const Backend *backend_find(const char *name); /* targets/backends.c; NULL if unknown */

/* Backends (each in its own directory). */
bool backend_llvm_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, StrBuf *out);
bool backend_spirv_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, StrBuf *out);
bool backend_llvm_check(const CapTarget *t); /* llvm.cpu / llvm.features against LLVM's target */
#endif
