/* Layout facts of the qdc C ABI (man/qdc-abi.7) shared by the header and metadata writers and
 * the CPU backend: C spellings of dtypes and symbol names (the shared-memory layout is the IR's,
 * ir_shared_offset). */
#ifndef QDC_TARGETS_ABI_H
#define QDC_TARGETS_ABI_H
#include "target.h"
#include <stdlib.h>

#define QDC_ABI_VERSION 1

const char *abi_c_type(QdType t);  /* "int32_t", "float"; u1 -> "uint8_t", f16/bf16 -> "uint16_t" */
/* The block size a task runs with: its block_dim, else the family's default_block_dim. */
int abi_block_dim(const IrTask *t, const CapTarget *cap);
/* A parallel task whose loop bounds the serial code before it stored in its kernel-owned field
 * qdc_bounds_<task> (qdc-lang(7)): its extent reads that field, so only the device knows it and
 * a GPU host cannot size the grid from the arguments. Such a task covers its extent with any
 * grid; the metadata suggests QDC_DEVICE_EXTENT_THREADS threads' worth of blocks, the count
 * Quadrants' SPIR-V backend dispatches for loops whose bounds it learns on the device
 * (qdc-abi(7), "Device bounds"). */
#define QDC_DEVICE_EXTENT_THREADS 131072
bool abi_device_extent(const IrTask *t);
int abi_device_groups(const IrTask *t, int block_dim); /* ceil(QDC_DEVICE_EXTENT_THREADS / block_dim) */
/* Writes `name` with every character outside [A-Za-z0-9_] replaced by '_'. */
void abi_ident(StrBuf *out, const char *name);
/* The include guard of a module's header: "QDC_<MODULE>_<SUFFIX>" as a valid macro name. */
void abi_guard(StrBuf *out, const char *module, const char *suffix);
/* Renames each kernel parameter whose name is a C or C++ keyword or a standard macro (errno,
 * float, new, ...) to "<name>_", its spelling in the header, the metadata and the symbols
 * (qdc-abi(7), NAMES); before abi_check_names, which then checks the new spellings. */
void abi_spell_params(IrModule *m, Arena *arena);
/* Appends the name of a kernel's inline CPU launcher: the kernel's name, with a trailing '_' when
 * that name is a C or C++ keyword, a standard macro or a C library function (qdc-abi(7), NAMES). */
void abi_launcher(StrBuf *out, const char *kernel);
/* False after a located QD5006 for every C-visible name that clashes or is reserved (names.c). */
bool abi_check_names(const IrModule *m);
/* "returns": {"dtype", "field", "symbol"} of a kernel with a return value (qdc-abi(7)). */
void abi_returns_json(StrBuf *out, const IrModule *m, const IrKernel *k);
void abi_loops_json(StrBuf *out, const IrKernel *k, const char *sep); /* "loops": [...] of a graph kernel */
void abi_checkpoints_json(StrBuf *out, const IrKernel *k, const char *sep); /* "checkpoints": [...] of a checkpoints kernel */

/* How a backend that does not pass arguments as the C struct of --emit=header (SPIR-V and MSL:
 * descriptor bindings and push constants) fills its part of the one header and metadata writer.
 * NULL everywhere below: the C ABI of the LLVM backends. */
typedef struct AbiBindings {
    const void *ctx;
    const char *guard_suffix; /* the header's include guard ends in this instead of "H" */
    const char *header_note;  /* a comment line after the header's first line */
    void (*args_struct)(StrBuf *out, const IrModule *m, int kernel, const void *ctx); /* <kernel>_args */
    void (*meta_head)(StrBuf *out, const void *ctx);                    /* top-level keys, each ",\n  \"key\": v" */
    void (*meta_field)(StrBuf *out, const IrModule *m, int field, const void *ctx); /* keys after the field's shape */
    void (*meta_kernel)(StrBuf *out, const IrModule *m, int kernel, const void *ctx); /* the whole "    {...}" entry */
} AbiBindings;

/* --emit=header and --emit=metadata for every backend (header.c, metadata.c). */
bool header_emit(const IrModule *m, const CapTarget *t, const TargetOptions *o, const AbiBindings *bind, StrBuf *out);
bool metadata_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, const AbiBindings *bind,
                   StrBuf *out);
#endif
