/* SPIRV-Tools in-process: every module is validated before it is written; disassembly for
 * --emit=spirv-asm and golden tests. */
#include "spvtools.h"
#include <spirv-tools/libspirv.h>

static spv_context context_for(const char *env) {
    spv_target_env te;
    if (!spvParseTargetEnv(env, &te)) die("unknown SPIR-V environment '%s' in the database", env);
    return spvContextCreate(te);
}

static void take_diag(spv_diagnostic d, StrBuf *err) {
    if (!d) return;
    if (d->isTextSource) sb_printf(err, "line %zu: ", d->position.line + 1);
    else if (d->position.index) sb_printf(err, "word %zu: ", d->position.index);
    sb_puts(err, d->error ? d->error : "unknown error");
    spvDiagnosticDestroy(d);
}

bool spv_validate(const uint32_t *words, size_t n, const char *env, StrBuf *err) {
    spv_context ctx = context_for(env);
    spv_const_binary_t bin = {words, n};
    spv_diagnostic d = NULL;
    spv_result_t r = spvValidate(ctx, &bin, &d);
    if (r != SPV_SUCCESS) take_diag(d, err);
    else if (d) spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    return r == SPV_SUCCESS;
}

bool spv_disassemble(const uint32_t *words, size_t n, const char *env, StrBuf *out, StrBuf *err) {
    spv_context ctx = context_for(env);
    spv_text text = NULL;
    spv_diagnostic d = NULL;
    uint32_t opts = SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT;
    spv_result_t r = spvBinaryToText(ctx, words, n, opts, &text, &d);
    if (r == SPV_SUCCESS) sb_append(out, text->str, text->length);
    else take_diag(d, err);
    if (d && r == SPV_SUCCESS) spvDiagnosticDestroy(d);
    spvTextDestroy(text);
    spvContextDestroy(ctx);
    return r == SPV_SUCCESS;
}
