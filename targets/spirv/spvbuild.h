/* qdc's SPIR-V binary builder: one word buffer per mandated module section, one id counter,
 * hash-consed types and constants, capability/extension sets emitted sorted so the output is
 * byte-stable. Knows nothing about qdc's IR. */
#ifndef QDC_SPVBUILD_H
#define QDC_SPVBUILD_H
#include "../../support/util.h"
#include <stdlib.h>
#include <spirv/unified1/spirv.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum {
    SPV_SEC_IMPORT, SPV_SEC_MODEL, SPV_SEC_ENTRY, SPV_SEC_EXEC, SPV_SEC_SOURCE, SPV_SEC_DEBUG, SPV_SEC_ANNOT,
    SPV_SEC_GLOBAL, SPV_SEC_FUNC, SPV_SEC_COUNT
} SpvSection; /* capabilities and extensions are sets, written first by spv_finish; SOURCE holds
               * OpString/OpSource, which precede the OpName/OpMemberName of DEBUG */

typedef VEC(uint32_t) SpvWords;
typedef struct SpvConsEntry SpvConsEntry;

typedef struct SpvBuilder {
    SpvWords sec[SPV_SEC_COUNT];
    uint32_t next_id;
    VEC(uint32_t) caps;
    VEC(char *) exts;
    VEC(SpvConsEntry *) cons;  /* hash-consed OpType* / OpConstant* (key: opcode + operands) */
    uint32_t glsl_std;         /* id of the GLSL.std.450 import, 0 until asked */
} SpvBuilder;

void spv_init(SpvBuilder *b);
void spv_free(SpvBuilder *b);
uint32_t spv_id(SpvBuilder *b);
void spv_cap(SpvBuilder *b, SpvCapability cap);
void spv_ext(SpvBuilder *b, const char *name);
uint32_t spv_glsl_std(SpvBuilder *b);

/* Appends one instruction to a section: opcode and n operand words. */
void spv_inst(SpvBuilder *b, SpvSection s, SpvOp op, const uint32_t *w, int n);
#define SPV_OP(b, s, op, ...)                                                            \
    spv_inst((b), (s), (op), (const uint32_t[]){__VA_ARGS__},                            \
             (int)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)))
/* An instruction whose operands are `pre` words, a literal string, then `post` words. */
void spv_inst_str(SpvBuilder *b, SpvSection s, SpvOp op, const uint32_t *pre, int npre,
                  const char *str, const uint32_t *post, int npost);

/* Hash-consed type or constant: operands exclude the result id (constants: type first).
 * *fresh (may be NULL) tells whether it was created now, to decorate it exactly once. */
uint32_t spv_cons(SpvBuilder *b, SpvOp op, const uint32_t *w, int n, bool *fresh);
#define SPV_TYPE(b, op, ...)                                                             \
    spv_cons((b), (op), (const uint32_t[]){__VA_ARGS__},                                 \
             (int)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)), NULL)
uint32_t spv_type0(SpvBuilder *b, SpvOp op); /* OpTypeVoid, OpTypeBool */

/* The module: header, sorted capabilities, sorted extensions, then the sections in order. */
void spv_finish(SpvBuilder *b, int version_minor, StrBuf *out);
#endif
