/* SPIRV-Tools in-process: every module is validated before it is written; disassembly for
 * --emit=spirv-asm and golden tests. */
#include "spvtools.h"
#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>

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

/* A copy of the module without OpName and OpMemberName (debug names only). The validator names
 * every id for its messages, and its name mapper makes a repeated name unique by trying name_0,
 * name_1, ... in turn: every kernel's "args" and parameter names repeat, so a module of 10,000
 * small kernels took 33 s of CPU and 6.6 GB in validation alone (issue 13 item 16). */
static uint32_t *without_names(const uint32_t *words, size_t n, size_t *out_n) {
    uint32_t *w = xmalloc((n ? n : 1) * sizeof *w);
    size_t o = 0, i = 0;
    for (; i < n && i < 5; i++) w[o++] = words[i]; /* the header */
    while (i < n) {
        size_t len = words[i] >> 16;
        uint32_t op = words[i] & 0xffff;
        if (len == 0 || i + len > n) len = n - i; /* malformed: keep the rest for the validator */
        if (op != SpvOpName && op != SpvOpMemberName)
            for (size_t k = 0; k < len; k++) w[o++] = words[i + k];
        i += len;
    }
    *out_n = o;
    return w;
}

bool spv_validate(const uint32_t *words, size_t n, const char *env, StrBuf *err) {
    spv_context ctx = context_for(env);
    size_t vn;
    uint32_t *vw = without_names(words, n, &vn);
    spv_const_binary_t bin = {vw, vn};
    spv_diagnostic d = NULL;
    spv_result_t r = spvValidate(ctx, &bin, &d);
    free(vw);
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
