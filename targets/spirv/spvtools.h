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
/* MSL source for msl_version "2.3.0"; false with SPIRV-Cross's message in *err.
 * Buffer indices are the layout's (targets/spirv/spvgen.h), given explicitly. */
bool spv_to_msl(const uint32_t *words, size_t n, const char *msl_version, const SpvMslBinding *b, int nb,
                StrBuf *out, StrBuf *err);
#endif
