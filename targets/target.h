/* The backend interface. The driver hands the sealed IrModule, this target's lowering of it
 * (IrLowered) and the resolved family to the backend named by the family's `backend:` key; the backend fills `out` with the artifact bytes
 * and never touches the file system for the output itself (the driver writes atomically).
 * Backends return false after reporting diagnostics; an internal failure uses die(). */
#ifndef QDC_TARGET_H
#define QDC_TARGET_H
#include "../capdb/capdb.h"
#include "../ir/ir.h"
#include "../support/util.h"

typedef enum {
    EMIT_DEFAULT,   /* the family's natural output: obj (x86), ptx, hsaco, spirv, msl */
    EMIT_AST,       /* frontend dump (driver only) */
    EMIT_IR,        /* IR dump with decisions (driver only) */
    EMIT_OBJ,       /* x86_64 ELF relocatable; amdgpu: the unlinked ELF object */
    EMIT_ASM,       /* x86/amdgpu assembly; ptx text for ptx */
    EMIT_LLVM_IR,   /* textual LLVM IR after optimization */
    EMIT_HEADER,    /* C header: kernels and argument structs */
    EMIT_METADATA,  /* JSON: kernels, tasks, parameters, layout, capabilities used */
    EMIT_PTX,
    EMIT_HSACO,
    EMIT_SPIRV,
    EMIT_SPIRV_ASM,
    EMIT_MSL,
} EmitKind;

typedef struct TargetOptions {
    EmitKind emit;
    int opt_level;            /* 0..3, default 2 */
    const char *module_name;  /* basename of the input without extension, e.g. "histogram" */
    const char *const *caps;  /* --cap=+NAME / -NAME as given (msl: +msl3.2 chooses MSL 3.2) */
    int ncaps;
} TargetOptions;

typedef bool (*BackendFn)(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o,
                          StrBuf *out);

/* One entry per backend kind; emits[] lists the EmitKinds it accepts besides EMIT_DEFAULT. */
typedef struct Backend {
    const char *name; /* matches cap_backend() */
    BackendFn emit;
} Backend;

const Backend *backend_find(const char *name); /* targets/backends.c */

/* Backends (each in its own directory). */
bool backend_llvm_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, StrBuf *out);
bool backend_spirv_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, StrBuf *out);
#endif
