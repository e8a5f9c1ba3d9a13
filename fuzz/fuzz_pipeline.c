/* libFuzzer target: the whole pipeline on generated kernels. The input bytes drive a small
 * generator of valid-looking Quadrants modules (fields, ndarrays, shared arrays, every atomic op
 * with dtypes, orders and scopes, volatile loads, fences, nested control flow), compiled for one
 * family of the database chosen by the first byte: every backend is reached. */
#include "fuzz.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t n;
    StrBuf out;
    int depth, tmp;
} Gen;

static unsigned pick(Gen *g, unsigned mod) {
    if (!g->n) return 0;
    g->n--;
    return *g->p++ % mod;
}

static const char *const dtypes[] = {"i32", "u32", "i64", "u64", "f32", "f64", "f16", "i16", "u8"};
static const char *const ops[] = {"add", "sub", "mul", "min", "max", "and", "or", "xor", "exchange"};
static const char *const orders[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
static const char *const scopes[] = {"block", "cluster", "device", "system"};
static const char *const fences[] = {"qd.simt.grid.mem_fence()", "qd.simt.block.mem_fence()",
                                     "qd.simt.block.sync()"};
#define PICK(g, a) (a)[pick((g), ARRAY_LEN(a))]

/* Memory references: field f<k>, 0-d field c, ndarray parameter a<k>, shared array sh. */
static int ref(Gen *g, StrBuf *b) {
    unsigned k = pick(g, 3), kind = pick(g, 4);
    switch (kind) {
    case 0: sb_printf(b, "f%u[i %% N]", k); break;
    case 1: sb_puts(b, "c[None]"); break;
    case 2: sb_printf(b, "a%u[i %% N]", k); break;
    default: sb_puts(b, "sh[i % 64]"); break;
    }
    return (int)k;
}

static void value(Gen *g, StrBuf *b) {
    switch (pick(g, 5)) {
    case 0: sb_puts(b, "1"); break;
    case 1: sb_puts(b, "2.5"); break;
    case 2: sb_printf(b, "qd.cast(i, qd.%s)", PICK(g, dtypes)); break;
    case 3: sb_printf(b, "t%d", g->tmp ? (int)pick(g, (unsigned)g->tmp) : 0); break;
    default: sb_puts(b, "-7"); break;
    }
}

static void indent(Gen *g) {
    for (int i = 0; i < g->depth + 2; i++) sb_puts(&g->out, "    ");
}

static void kwargs(Gen *g) {
    if (pick(g, 2)) sb_printf(&g->out, ", order=\"%s\"", PICK(g, orders));
    if (pick(g, 2)) sb_printf(&g->out, ", scope=\"%s\"", PICK(g, scopes));
}

static void atomic(Gen *g) {
    indent(g);
    sb_printf(&g->out, "t%d = ", g->tmp++);
    switch (pick(g, 5)) {
    case 0: sb_puts(&g->out, "qd.atomic_cas("), ref(g, &g->out), sb_puts(&g->out, ", "), value(g, &g->out); break;
    case 1: sb_printf(&g->out, "qd.atomic_%s(", pick(g, 2) ? "inc" : "dec"), ref(g, &g->out); break;
    case 2: sb_puts(&g->out, "qd.atomic_load("), ref(g, &g->out), kwargs(g), sb_puts(&g->out, ")\n"); return;
    case 3: sb_puts(&g->out, "qd.volatile_load("), ref(g, &g->out), sb_puts(&g->out, ")\n"); return;
    default: sb_printf(&g->out, "qd.atomic_%s(", PICK(g, ops)), ref(g, &g->out); break;
    }
    sb_puts(&g->out, ", ");
    value(g, &g->out);
    kwargs(g);
    sb_puts(&g->out, ")\n");
}

static void block(Gen *g, int n);

static void statement(Gen *g) {
    unsigned kind = pick(g, 9);
    if (g->depth >= 4 && kind >= 6) kind = 0;
    switch (kind) {
    case 0: case 1: case 2: atomic(g); break;
    case 3: indent(g), ref(g, &g->out), sb_printf(&g->out, " %s ", pick(g, 2) ? "+=" : "|="), value(g, &g->out), sb_putc(&g->out, '\n'); break;
    case 4: indent(g), sb_puts(&g->out, "qd.atomic_store("), ref(g, &g->out), sb_puts(&g->out, ", "), value(g, &g->out), kwargs(g), sb_puts(&g->out, ")\n"); break;
    case 5: indent(g), sb_printf(&g->out, "%s\n", PICK(g, fences)); break;
    case 6: indent(g), sb_printf(&g->out, "if i %% %u == 0:\n", pick(g, 7) + 1), block(g, 1 + (int)pick(g, 3)); break;
    case 7: indent(g), sb_printf(&g->out, "for j%d in range(%u):\n", g->depth, pick(g, 9)), block(g, 1 + (int)pick(g, 3)); break;
    default: indent(g), sb_puts(&g->out, "while qd.volatile_load("), ref(g, &g->out), sb_puts(&g->out, ") == 0:\n"), block(g, 1); break;
    }
}

static void block(Gen *g, int n) {
    g->depth++;
    for (int i = 0; i < n; i++) statement(g);
    g->depth--;
}

static void module(Gen *g) {
    StrBuf *o = &g->out;
    sb_printf(o, "import quadrants as qd\n\nN = %u\n", 1 + pick(g, 255));
    for (int k = 0; k < 3; k++) sb_printf(o, "f%d = qd.field(qd.%s, shape=(N,))\n", k, PICK(g, dtypes));
    sb_printf(o, "c = qd.field(dtype=qd.%s, shape=())\n\n", PICK(g, dtypes));
    int nkernels = 1 + (int)pick(g, 2);
    for (int kn = 0; kn < nkernels; kn++) {
        sb_printf(o, "@qd.kernel\ndef k%d(", kn);
        for (int k = 0; k < 3; k++) sb_printf(o, "a%d: qd.types.NDArray[qd.%s, 1], ", k, PICK(g, dtypes));
        sb_puts(o, "s: qd.i32):\n");
        if (pick(g, 2)) sb_printf(o, "    qd.loop_config(block_dim=%u)\n", 32u << pick(g, 4));
        sb_puts(o, "    for i in range(N):\n");
        sb_printf(o, "        sh = qd.simt.block.SharedArray((64,), qd.%s)\n", PICK(g, dtypes));
        sb_puts(o, "        t0 = s\n");
        g->tmp = 1;
        g->depth = 0;
        int n = 1 + (int)pick(g, 12);
        for (int s = 0; s < n; s++) statement(g);
        sb_putc(o, '\n');
    }
}

static CapDb *db;
static const CapTarget **targets;
static unsigned ntargets;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_quiet_diagnostics();
    db = fuzz_open_capdb(NULL);
    if (!db) die("the capability database does not load (set QDC_ROOT)");
    char *names = xstrdup(capdb_target_names(db));
    for (char *save, *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        while (*n == ' ') n++;
        const CapTarget *t = capdb_target(db, n);
        if (!t) continue;
        targets = xrealloc(targets, sizeof *targets * (ntargets + 1));
        targets[ntargets++] = t;
    }
    free(names);
    if (!ntargets) die("no families in the capability database");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Gen g = {data, size, {0}, 0, 0};
    sb_init(&g.out);
    const CapTarget *t = targets[pick(&g, 255) % ntargets];
    module(&g);
    if (getenv("QDC_FUZZ_PRINT")) fprintf(stderr, "--- %s ---\n%s", cap_name(t), g.out.data);
    fuzz_compile("gen.qd", (const uint8_t *)g.out.data, g.out.len, t);
    sb_free(&g.out);
    return 0;
}
