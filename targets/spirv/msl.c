/* MSL through the SPIRV-Cross C API: one entry point per SPIR-V module, explicit buffer
 * indices, the family's MSL version. SPIRV-Cross exceptions come back as messages. */
#include "spvtools.h"
#include <spirv_cross_c.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void on_error(void *user, const char *msg) {
    StrBuf *err = user;
    if (!err->len) sb_puts(err, msg);
}

static unsigned msl_version_code(const char *v) {
    unsigned major = 0, minor = 0, patch = 0;
    if (sscanf(v, "%u.%u.%u", &major, &minor, &patch) < 2) die("bad msl.version '%s' in the database", v);
    return SPVC_MAKE_MSL_VERSION(major, minor, patch);
}

static bool configure(spvc_compiler comp, const char *version, const SpvMslBinding *b, int nb, bool lines) {
    spvc_compiler_options opts;
    if (spvc_compiler_create_compiler_options(comp, &opts) != SPVC_SUCCESS) return false;
    spvc_compiler_options_set_uint(opts, SPVC_COMPILER_OPTION_MSL_VERSION, msl_version_code(version));
    if (lines) spvc_compiler_options_set_bool(opts, SPVC_COMPILER_OPTION_EMIT_LINE_DIRECTIVES, SPVC_TRUE);
    if (spvc_compiler_install_compiler_options(comp, opts) != SPVC_SUCCESS) return false;
    for (int i = 0; i < nb; i++) {
        spvc_msl_resource_binding rb;
        spvc_msl_resource_binding_init(&rb);
        rb.stage = SpvExecutionModelGLCompute;
        rb.desc_set = b[i].set, rb.binding = b[i].binding, rb.msl_buffer = b[i].buffer;
        if (spvc_compiler_msl_add_resource_binding(comp, &rb) != SPVC_SUCCESS) return false;
    }
    return true;
}

static bool translate(const uint32_t *words, size_t n, const char *version, const SpvMslBinding *b, int nb,
                      bool line_directives, StrBuf *out, StrBuf *err) {
    spvc_context ctx = NULL;
    if (spvc_context_create(&ctx) != SPVC_SUCCESS) die("spvc_context_create failed");
    spvc_context_set_error_callback(ctx, on_error, err);
    spvc_parsed_ir ir = NULL;
    spvc_compiler comp = NULL;
    const char *msl = NULL;
    bool ok = spvc_context_parse_spirv(ctx, words, n, &ir) == SPVC_SUCCESS &&
              spvc_context_create_compiler(ctx, SPVC_BACKEND_MSL, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &comp) ==
                  SPVC_SUCCESS &&
              configure(comp, version, b, nb, line_directives) && spvc_compiler_compile(comp, &msl) == SPVC_SUCCESS;
    if (ok) sb_puts(out, msl);
    else if (!err->len) sb_puts(err, spvc_context_get_last_error_string(ctx));
    spvc_context_destroy(ctx);
    return ok;
}

/* SPIRV-Cross recurses over the module (about 4 KiB of stack per rewritten atomic of one task:
 * 1,700 of them overflowed the main thread's 8 MiB), so it runs on a thread whose stack is
 * reserved large; untouched pages cost nothing. One thread runs every task of a module (a
 * thread per task mapped and unmapped 1 GiB each time: a quarter of a many-kernel compile). */
#define MSL_STACK_BYTES ((size_t)1 << 30)

bool spv_to_msl(const uint32_t *words, size_t n, const char *version, const SpvMslBinding *b, int nb,
                bool line_directives, StrBuf *out, StrBuf *err) {
    return translate(words, n, version, b, nb, line_directives, out, err);
}

typedef struct {
    bool (*fn)(void *);
    void *arg;
    bool ok;
} Job;

static void *run_job(void *arg) {
    Job *j = arg;
    j->ok = j->fn(j->arg);
    return NULL;
}

/* The calling thread waits: fn may report diagnostics as if it ran on it. */
bool spv_msl_on_large_stack(bool (*fn)(void *), void *arg) {
    Job j = {fn, arg, false};
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr)) die("pthread_attr_init failed");
    int rc = pthread_attr_setstacksize(&attr, MSL_STACK_BYTES);
    if (!rc) rc = pthread_create(&th, &attr, run_job, &j);
    pthread_attr_destroy(&attr);
    if (rc) die("cannot start the MSL translation thread (%s byte stack): %s", "1 GiB", strerror(rc));
    if (pthread_join(th, NULL)) die("pthread_join failed");
    return j.ok;
}
