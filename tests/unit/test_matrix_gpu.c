/* The verified support matrix for every NVIDIA and AMD family in capability-db/: one probe file
 * per dtype with one kernel per (op, space), compiled with --emit=asm --report-lowering=json.
 * The database's verdict (the report) must match the code: native => the op's own atomic
 * instruction and no compare-and-swap; cas => a compare-and-swap is present; unsupported =>
 * a QD4xxx diagnostic on the op's line. Ops the language rejects on floats (and/or/xor/cas/
 * inc/dec) are not cells and are left out. Prints the number of verified cells per family; any disagreement fails. */
#include "harness.h"
#include "support/types.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const QdOp mx_ops[] = {QOP_ADD, QOP_SUB, QOP_MUL, QOP_MIN, QOP_MAX, QOP_AND, QOP_OR, QOP_XOR,
                              QOP_EXCHANGE, QOP_CAS, QOP_INC, QOP_DEC, QOP_LOAD, QOP_STORE};
static const QdType mx_types[] = {QT_I32, QT_U32, QT_I64, QT_U64, QT_F16, QT_BF16, QT_F32, QT_F64};
#define NOPS ((int)ARRAY_LEN(mx_ops))
#define NCELLS (2 * NOPS) /* cell c: op mx_ops[c % NOPS] in space c / NOPS (0 global, 1 shared) */

typedef struct {
    const char *family;
    bool amd;
    int native, cas, unsupported, not_cells, disagreements, ptxas_ok;
    StrBuf why;
} Tally;

/* ---- probe source ---- */
static void op_call(StrBuf *b, QdOp op, const char *tgt) {
    switch (op) {
    case QOP_LOAD: sb_printf(b, "        out[i] = qd.atomic_load(%s)\n", tgt); break;
    case QOP_STORE: sb_printf(b, "        qd.atomic_store(%s, y[i])\n", tgt); break;
    case QOP_CAS: sb_printf(b, "        out[i] = qd.atomic_cas(%s, y[i], out[i])\n", tgt); break;
    default: sb_printf(b, "        out[i] = qd.atomic_%s(%s, y[i])\n", qop_name(op), tgt); break;
    }
}

/* The language rejects these on floats (QD2xxx): they are not database cells. */
static bool float_rejected(QdOp op) {
    return op == QOP_AND || op == QOP_OR || op == QOP_XOR || op == QOP_CAS || op == QOP_INC || op == QOP_DEC;
}

/* Writes the probe: kernel k_<op>_g (global) and k_<op>_s (shared) per op; line_of[c] receives
 * the source line of cell c's atomic (0 if left out). */
static void probe_source(StrBuf *b, QdType t, const bool *skip, int *line_of) {
    int line = 1;
    sb_puts(b, "import quadrants as qd\n");
    for (int c = 0; c < NCELLS; c++) {
        QdOp op = mx_ops[c % NOPS];
        bool shared = c >= NOPS;
        line_of[c] = 0;
        if (skip[c]) continue;
        const char *dt = qt_name(t);
        sb_printf(b, "\n@qd.kernel\ndef k_%s_%c(x: qd.types.ndarray(dtype=qd.%s, ndim=1), y: qd.types.ndarray(dtype=qd.%s, ndim=1),"
                     " out: qd.types.ndarray(dtype=qd.%s, ndim=1)):\n", qop_name(op), shared ? 's' : 'g', dt, dt, dt);
        line += 3;
        if (shared) {
            sb_puts(b, "    qd.loop_config(block_dim=128)\n    for i in range(x.shape[0]):\n");
            /* written before, barrier and read after: LLVM cannot fold a never-read array away */
            sb_printf(b, "        sh = qd.simt.block.SharedArray((128,), qd.%s)\n", dt);
            sb_puts(b, "        t = qd.simt.block.thread_idx()\n        sh[t] = y[i]\n");
            line += 5;
            line_of[c] = ++line;
            op_call(b, op, "sh[t]");
            sb_puts(b, "        qd.simt.block.sync()\n        x[i] = sh[t]\n");
            line += 2;
        } else {
            sb_puts(b, "    for i in range(x.shape[0]):\n");
            line += 1;
            line_of[c] = ++line;
            op_call(b, op, "x[i]");
        }
    }
}

/* ---- reading the outputs ---- */

/* The body of entry <kname>_t0 in the assembly (PTX .entry or AMDGPU function label). */
static char *entry_body(const char *asm_text, const char *kname, bool amd) {
    char start[96], stop[96];
    snprintf(start, sizeof start, amd ? "\n%s_t0:" : ".entry %s_t0(", kname);
    snprintf(stop, sizeof stop, amd ? ".Lfunc_end" : "\n}");
    const char *s = strstr(asm_text, start);
    if (!s) return NULL;
    const char *e = strstr(s, stop);
    return xstrndup(s, e ? (size_t)(e - s) : strlen(s));
}

static bool has_cas(const char *body, bool amd) {
    if (amd) return strstr(body, "cmpswap") || strstr(body, "ds_cmpst");
    return strstr(body, ".cas.b") != NULL;
}

/* Instruction-name fragments of the op the decision emits (emit_op), per target. */
typedef struct { const char *op, *ptx, *amd1, *amd2; } NativeName;
static const NativeName native_names[] = {
    {"add", ".add.", "add", NULL},    {"sub", ".add.", "sub", "add"},   {"min", ".min.", "min", NULL},
    {"max", ".max.", "max", NULL},    {"and", ".and.", "and", NULL},    {"or", ".or.", "_or", NULL},
    {"xor", ".xor.", "xor", NULL},    {"exchange", ".exch.", "swap", "xchg"}, {"cas", ".cas.", "cmpswap", "cmpst"},
    {"inc", ".inc.", "inc", NULL},    {"dec", ".dec.", "dec", NULL},
    {"load", "ld.", "load", "read"},  {"store", "st.", "store", "write"},
};

/* True if some instruction line of body starts with one of the atomic prefixes and names op. */
static bool has_native(const char *body, const char *emit_op, bool amd) {
    const NativeName *n = NULL;
    for (size_t i = 0; i < ARRAY_LEN(native_names); i++)
        if (!strcmp(native_names[i].op, emit_op)) n = &native_names[i];
    if (!n) return false;
    bool mem = !strcmp(emit_op, "load") || !strcmp(emit_op, "store");
    static const char *const ptx_pre[] = {"atom.", "red."}, *const ptx_mem[] = {"ld.volatile", "ld.relaxed", "ld.acquire",
                                                                                "st.volatile", "st.relaxed", "st.release"};
    static const char *const amd_pre[] = {"global_atomic", "flat_atomic", "ds_"}, *const amd_mem[] = {"global_", "flat_", "ds_"};
    for (const char *l = body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        while (*l == ' ' || *l == '\t') l++;
        const char *end = l + strcspn(l, " \t\n");
        size_t np = amd ? 3 : mem ? 6 : 2;
        for (size_t i = 0; i < np; i++) {
            const char *pre = amd ? (mem ? amd_mem[i] : amd_pre[i]) : (mem ? ptx_mem[i] : ptx_pre[i]);
            if (strncmp(l, pre, strlen(pre))) continue;
            char *word = xstrndup(l, (size_t)(end - l));
            bool ok = amd ? (strstr(word, n->amd1) || (n->amd2 && strstr(word, n->amd2))) : (mem || strstr(word, n->ptx));
            free(word);
            if (ok) return true;
        }
    }
    return false;
}

static const char *json_field(const char *rec, const char *key, char *buf, size_t n) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(rec, pat);
    if (!p) return "";
    p += strlen(pat);
    size_t i = 0;
    while (p[i] && p[i] != '"' && i + 1 < n) buf[i] = p[i], i++;
    buf[i] = 0;
    return buf;
}

static void disagree(Tally *t, QdType ty, int c, const char *what) {
    t->disagreements++;
    sb_printf(&t->why, "  %s %s %s %s: %s\n", t->family, qt_name(ty), c >= NOPS ? "shared" : "global",
              c >= 0 ? qop_name(mx_ops[c % NOPS]) : "-", what);
}

/* Checks every kernel of a successful compile against its report record. */
static void verify_outputs(Tally *t, QdType ty, const bool *skip, const char *report, const char *asm_text) {
    for (int c = 0; c < NCELLS; c++) {
        if (skip[c]) continue;
        QdOp op = mx_ops[c % NOPS];
        char kname[48], got[48], dec[32], eop[32];
        snprintf(kname, sizeof kname, "k_%s_%c", qop_name(op), c >= NOPS ? 's' : 'g');
        const char *rec = NULL;
        for (const char *p = report; (p = strstr(p, "{\"file\"")); p++)
            if (!strcmp(json_field(p, "kernel", got, sizeof got), kname)) { rec = p; break; }
        if (!rec) { disagree(t, ty, c, "no --report-lowering record"); continue; }
        json_field(rec, "decision", dec, sizeof dec);
        json_field(rec, "emit_op", eop, sizeof eop);
        char *body = entry_body(asm_text, kname, t->amd);
        if (!body) { disagree(t, ty, c, "entry missing from the assembly"); continue; }
        bool cas = has_cas(body, t->amd) && op != QOP_CAS;
        if (!strcmp(dec, "native")) {
            if (cas) disagree(t, ty, c, "database says native, code has a CAS loop");
            else if (!has_native(body, eop, t->amd)) disagree(t, ty, c, "database says native, no native instruction");
            else t->native++;
        } else if (!strcmp(dec, "cas")) {
            if (!has_cas(body, t->amd)) disagree(t, ty, c, "database says cas, no compare-and-swap in the code");
            else t->cas++;
        } else {
            disagree(t, ty, c, dec);
        }
        free(body);
    }
}

/* Marks the cells named by QDnnnn diagnostics; true if any line was recognised. */
static bool read_diagnostics(Tally *t, const char *err, bool *skip, const int *line_of) {
    bool any = false;
    for (const char *p = err; (p = strstr(p, ".qd:")); p++) {
        int line = atoi(p + 4);
        const char *code = strstr(p, "error[QD");
        const char *eol = strchr(p, '\n');
        if (!code || (eol && code > eol)) continue;
        for (int c = 0; c < NCELLS; c++)
            if (!skip[c] && line_of[c] == line) {
                skip[c] = true, any = true;
                if (code[8] == '4') t->unsupported++;
                else t->not_cells++;
            }
    }
    return any;
}

/* Every probe PTX must assemble (sm_60/sm_70 as sm_75: ptxas 13 still checks .target). */
static void ptxas_probe(Tally *t, QdType ty, const char *ptx) {
    static const char *const ptxas = "/usr/local/cuda/bin/ptxas";
    if (t->amd || !tool_available(ptxas)) return;
    bool old = !strcmp(t->family, "sm_60") || !strcmp(t->family, "sm_70");
    char *arch = xasprintf("-arch=%s", old ? "sm_75" : t->family);
    char *cubin = xasprintf("%s.cubin", ptx);
    RunResult r = run_argv((const char *[]){ptxas, arch, ptx, "-o", cubin, NULL}, NULL, NULL);
    if (r.status != 0) disagree(t, ty, -1, "ptxas rejected the probe"), sb_printf(&t->why, "%s\n", r.err);
    else t->ptxas_ok++;
    run_free(&r);
    free(arch), free(cubin);
}

static void verify_probe(Tally *t, const char *dir, QdType ty) {
    bool skip[NCELLS] = {0};
    int line_of[NCELLS];
    for (int c = 0; c < NCELLS; c++) skip[c] = qt_is_float(ty) && float_rejected(mx_ops[c % NOPS]);
    for (int attempt = 0; attempt < 4; attempt++) {
        StrBuf src;
        sb_init(&src);
        probe_source(&src, ty, skip, line_of);
        char *in = xasprintf("%s/p_%s_%s.qd", dir, t->family, qt_name(ty));
        char *out = xasprintf("%s.s", in);
        char *tgt = xasprintf("--target=%s", t->family);
        write_text(in, src.data);
        sb_free(&src);
        RunResult r = run_qdc(in, tgt, "--emit=asm", "--report-lowering=json", "-o", out, NULL);
        bool retry = false;
        if (r.status == 0) {
            char *asm_text = read_text(out, NULL);
            verify_outputs(t, ty, skip, r.out, asm_text ? asm_text : "");
            ptxas_probe(t, ty, out);
            free(asm_text);
        } else if (r.status == 1 && read_diagnostics(t, r.err, skip, line_of)) {
            retry = true;
        } else {
            disagree(t, ty, -1, "qdc failed without a diagnostic on an op line");
            sb_printf(&t->why, "%s\n", r.err);
        }
        run_free(&r);
        free(in), free(out), free(tgt);
        if (!retry) return;
    }
}

/* Under ASan+UBSan the plain run has already checked every cell; four families (both PTX
 * order models, both AMDGPU wave sizes) exercise every code path of the hooks. */
static bool asan_subset(const char *family) {
    static const char *const keep[] = {"sm_60", "sm_90", "gfx90a", "gfx1200"};
    if (!getenv("QDC_ASAN") || strcmp(getenv("QDC_ASAN"), "1")) return true;
    for (size_t i = 0; i < ARRAY_LEN(keep); i++)
        if (!strcmp(keep[i], family)) return true;
    printf("matrix: %-8s SKIP under ASan (the plain run verifies it)\n", family);
    return false;
}

static void verify_family(const char *family, bool amd) {
    if (!asan_subset(family)) return;
    Tally t = {.family = family, .amd = amd};
    sb_init(&t.why);
    char *dir = make_temp_dir();
    for (size_t i = 0; i < ARRAY_LEN(mx_types); i++)
        verify_probe(&t, dir, mx_types[i]);
    remove_tree(dir);
    free(dir);
    printf("matrix: %-8s verified %3d cells (native %d, cas %d, unsupported %d)%s\n", family,
           t.native + t.cas + t.unsupported, t.native, t.cas, t.unsupported,
           amd ? "" : t.ptxas_ok ? "; ptxas accepted every probe" : "; ptxas not present: not assembled");
    cr_expect_eq(t.not_cells, 0, "the frontend rejected %d probe operations", t.not_cells);
    cr_expect_eq(t.disagreements, 0, "%d cells disagree with the database:\n%s", t.disagreements, t.why.data);
    cr_expect_gt(t.native, 0);
    sb_free(&t.why);
}

#define FAMILY_TEST(fam, amd) Test(matrix_gpu, fam, .timeout = 120) { verify_family(#fam, amd); }
FAMILY_TEST(sm_60, false)
FAMILY_TEST(sm_70, false)
FAMILY_TEST(sm_75, false)
FAMILY_TEST(sm_80, false)
FAMILY_TEST(sm_86, false)
FAMILY_TEST(sm_89, false)
FAMILY_TEST(sm_90, false)
FAMILY_TEST(sm_90a, false)
FAMILY_TEST(gfx906, true)
FAMILY_TEST(gfx908, true)
FAMILY_TEST(gfx90a, true)
FAMILY_TEST(gfx942, true)
FAMILY_TEST(gfx1030, true)
FAMILY_TEST(gfx1100, true)
FAMILY_TEST(gfx1200, true)

/* Every NVIDIA/AMD family file in the database has a test above. */
Test(matrix_gpu, covers_every_gpu_family) {
    static const char *const listed[] = {"sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
                                         "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200"};
    char *dbdir = root_path("capability-db");
    DIR *d = opendir(dbdir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "sm_", 3) && strncmp(e->d_name, "gfx", 3)) continue;
        char *name = xstrndup(e->d_name, strcspn(e->d_name, "."));
        bool found = false;
        for (size_t i = 0; i < ARRAY_LEN(listed); i++) found |= !strcmp(listed[i], name);
        cr_expect(found, "capability-db/%s has no matrix_gpu test", e->d_name);
        free(name);
    }
    closedir(d);
    free(dbdir);
}
