/* In-process SPIRV-Tools and SPIRV-Cross: validation, disassembly, MSL translation. */
#ifndef QDC_SPVTOOLS_H
#define QDC_SPVTOOLS_H
#include "../../support/util.h"
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>

/* spvValidate for env ("vulkan1.2"); false with the validator's message in *err. */
bool spv_validate(const uint32_t *words, size_t n, const char *env, StrBuf *err);
/* Disassembly text (no header comment, friendly names), appended to out. */
bool spv_disassemble(const uint32_t *words, size_t n, const char *env, StrBuf *out, StrBuf *err);
/* One resource's Metal buffer index (desc_set ~0u: the push-constant block). */
typedef struct SpvMslBinding { unsigned set, binding, buffer; } SpvMslBinding;
/* MSL source for msl_version "2.3.0"; false with SPIRV-Cross's message in *err. With
 * line_directives (-g) SPIRV-Cross turns the module's OpLine into `#line N "file"`.
 * Buffer indices are the layout's (targets/spirv/spvgen.h), given explicitly. */
bool spv_to_msl(const uint32_t *words, size_t n, const char *msl_version, const SpvMslBinding *b, int nb,
                bool line_directives, StrBuf *out, StrBuf *err);
/* Runs fn(arg) on a thread with a 1 GiB stack reserved and returns its result; spv_to_msl is
 * called only from within such a run (SPIRV-Cross's recursion depth grows with the task). */
bool spv_msl_on_large_stack(bool (*fn)(void *), void *arg);

/* mslfix.c: the completion step (qdc-msl(7)). Spellings come from the family's msl.* keys;
 * NULL where the family's MSL has no such construct. */
typedef struct MslFacts {
    const char *fence, *fence_order, *fence_flags, *scope_block, *scope_device, *coherent;
} MslFacts;
/* Fills the fence markers and adds `coherent` to the parameters [[buffer(n)]] with coherent[n]. */
char *msl_complete(const char *msl, const MslFacts *f, const bool *coherent, int nbuf);
/* Declares the SharedArray `name` volatile threadgroup (qd.volatile_load of its elements); NULL
 * when SPIRV-Cross wrote no declaration of that name. */
char *msl_volatile_threadgroup(const char *msl, const char *name);
typedef struct MslItem { char *text, *name; } MslItem;
/* The merged items in order, and two hash indexes of them (by text, by name; slot = item + 1,
 * 0 empty) so that merging many tasks stays linear. Zero-initialised: empty. */
typedef struct MslItems {
    MslItem *items;
    int len, cap;
    int *by_text, *by_name;
    unsigned nslots; /* a power of two, at least twice len */
} MslItems;
/* Adds the top-level items of one SPIRV-Cross output, each distinct item once. */
void msl_merge(MslItems *merged, const char *msl);
/* Writes the merged items separated by one blank line and frees them. */
void msl_items_write(MslItems *merged, StrBuf *out);
#endif
