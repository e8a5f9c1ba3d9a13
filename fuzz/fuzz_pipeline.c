/* libFuzzer target: the whole pipeline on generated kernels. The input bytes drive a small
 * generator of valid-looking Quadrants modules (fields, ndarrays, shared arrays, every atomic op
 * with dtypes, orders and scopes, volatile loads, fences, nested control flow), compiled for one
 * family of the database chosen by the first byte: every backend is reached; at -O0, or -O2 for
 * one input in eight (fuzz_opt_level). */
#include "fuzz.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t n;
    StrBuf out;
    int depth, tmp, visible; /* temps t0..t<visible-1> are defined at kernel level */
    unsigned fdt[3], cdt, adt[3], sdt; /* dtype index of fields f<k>, c, ndarrays a<k>, shared sh */
} Gen;

static unsigned pick(Gen *g, unsigned mod) {
    if (!g->n) return 0;
    g->n--;
    return *g->p++ % mod;
}

/* Integer types first: most generated atomics are integer ones (bitwise, cas, inc/dec). */
static const char *const dtypes[] = {"i32", "u32", "i64", "u64", "i16", "u8", "f32", "f64", "f16"};
#define FIRST_FLOAT 6u
static const char *const float_ops[] = {"add", "sub", "mul", "min", "max", "exchange"};
static const char *const load_orders[] = {"relaxed", "acquire", "seq_cst"};
static const char *const store_orders[] = {"relaxed", "release", "seq_cst"};
static const char *const ops[] = {"add", "sub", "mul", "min", "max", "and", "or", "xor", "exchange"};
static const char *const orders[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
static const char *const scopes[] = {"block", "cluster", "device", "system"};
static const char *const fences[] = {"qd.simt.grid.mem_fence()", "qd.simt.block.mem_fence()",
                                     "qd.simt.block.sync()"};
#define PICK(g, a) (a)[pick((g), ARRAY_LEN(a))]

/* Memory references: field f<k>, 0-d field c, ndarray parameter a<k>, shared array sh.
 * Returns the dtype index of the element. */
static unsigned ref(Gen *g, StrBuf *b) {
    unsigned k = pick(g, 3);
    switch (pick(g, 4)) {
    case 0: sb_printf(b, "f%u[i %% N]", k); return g->fdt[k];
    case 1: sb_puts(b, "c[None]"); return g->cdt;
    case 2: sb_printf(b, "a%u[i %% N]", k); return g->adt[k];
    default: sb_puts(b, "sh[i % 64]"); return g->sdt;
    }
}

static void value(Gen *g, StrBuf *b) {
    switch (pick(g, 5)) {
    case 0: sb_puts(b, "1"); break;
    case 1: sb_puts(b, "2.5"); break;
    case 2: sb_printf(b, "qd.cast(i, qd.%s)", PICK(g, dtypes)); break;
    case 3: sb_printf(b, "t%u", pick(g, (unsigned)g->visible)); break;
    default: sb_puts(b, "-7"); break;
    }
}

static void indent(Gen *g) {
    for (int i = 0; i < g->depth + 2; i++) sb_puts(&g->out, "    ");
}

static void kwargs(Gen *g, const char *const *orders_ok, unsigned norders) {
    if (pick(g, 2)) sb_printf(&g->out, ", order=\"%s\"", orders_ok[pick(g, norders)]);
    if (pick(g, 2)) sb_printf(&g->out, ", scope=\"%s\"", PICK(g, scopes));
}
#define KWARGS(g, list) kwargs((g), (list), ARRAY_LEN(list))

/* t<n> = an atomic of a kind valid for the reference's dtype (one in 16 is left unchecked, so
 * the checker's rejections are exercised too). */
static void atomic(Gen *g) {
    StrBuf r;
    sb_init(&r);
    unsigned dt = ref(g, &r);
    bool any = pick(g, 16) == 0, isfloat = dt >= FIRST_FLOAT && !any;
    indent(g);
    if (g->depth == 0) g->visible = g->tmp + 1;
    sb_printf(&g->out, "t%d = ", g->tmp++);
    switch (isfloat ? 4 + pick(g, 3) : pick(g, 7)) {
    case 0: sb_printf(&g->out, "qd.atomic_cas(%s, ", r.data), value(g, &g->out); break;
    case 1: sb_printf(&g->out, "qd.atomic_%s(%s", pick(g, 2) ? "inc" : "dec", r.data); break;
    case 2: sb_printf(&g->out, "qd.atomic_%s(%s", PICK(g, ops), r.data); break;
    case 4: sb_printf(&g->out, "qd.atomic_load(%s", r.data), KWARGS(g, load_orders), sb_puts(&g->out, ")\n"); goto done;
    case 5: sb_printf(&g->out, "qd.volatile_load(%s)\n", r.data); goto done;
    default: sb_printf(&g->out, "qd.atomic_%s(%s", PICK(g, float_ops), r.data); break;
    }
    sb_puts(&g->out, ", ");
    value(g, &g->out);
    KWARGS(g, orders);
    sb_puts(&g->out, ")\n");
done:
    sb_free(&r);
}

static void block(Gen *g, int n);

static void statement(Gen *g) {
    unsigned kind = pick(g, 9);
    if (g->depth >= 4 && kind >= 6) kind = 0;
    switch (kind) {
    case 0: case 1: case 2: atomic(g); break;
    case 3: indent(g), ref(g, &g->out), sb_printf(&g->out, " %s ", pick(g, 2) ? "+=" : "|="), value(g, &g->out), sb_putc(&g->out, '\n'); break;
    case 4: indent(g), sb_puts(&g->out, "qd.atomic_store("), ref(g, &g->out), sb_puts(&g->out, ", "), value(g, &g->out), KWARGS(g, store_orders), sb_puts(&g->out, ")\n"); break;
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
    for (int k = 0; k < 3; k++) g->fdt[k] = pick(g, ARRAY_LEN(dtypes)), sb_printf(o, "f%d = qd.field(qd.%s, shape=(N,))\n", k, dtypes[g->fdt[k]]);
    g->cdt = pick(g, ARRAY_LEN(dtypes));
    sb_printf(o, "c = qd.field(dtype=qd.%s, shape=())\n\n", dtypes[g->cdt]);
    int nkernels = 1 + (int)pick(g, 2);
    for (int kn = 0; kn < nkernels; kn++) {
        sb_printf(o, "@qd.kernel\ndef k%d(", kn);
        for (int k = 0; k < 3; k++) g->adt[k] = pick(g, ARRAY_LEN(dtypes)), sb_printf(o, "a%d: qd.types.NDArray[qd.%s, 1], ", k, dtypes[g->adt[k]]);
        sb_puts(o, "s: qd.i32):\n");
        if (pick(g, 2)) sb_printf(o, "    qd.loop_config(block_dim=%u)\n", 32u << pick(g, 4));
        sb_puts(o, "    for i in range(N):\n");
        g->sdt = pick(g, ARRAY_LEN(dtypes));
        sb_printf(o, "        sh = qd.simt.block.SharedArray((64,), qd.%s)\n", dtypes[g->sdt]);
        sb_puts(o, "        t0 = s\n");
        g->tmp = g->visible = 1;
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
    db = fuzz_open_capdb(NULL, false);
    if (!db) die("the capability database does not load (set QDC_ROOT)");
    targets = fuzz_all_targets(db, &ntargets);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Gen g = {.p = data, .n = size};
    sb_init(&g.out);
    const CapTarget *t = targets[pick(&g, 255) % ntargets];
    module(&g);
    if (getenv("QDC_FUZZ_PRINT")) fprintf(stderr, "--- %s ---\n%s", cap_name(t), g.out.data);
    fuzz_compile_at("gen.qd", (const uint8_t *)g.out.data, g.out.len, t, fuzz_opt_level(fuzz_hash(data, size)));
    sb_free(&g.out);
    return 0;
}
