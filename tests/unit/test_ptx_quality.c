/* PTX quality of the examples (issue 9, bench/ptx-quality.md): the grid-stride loop keeps
 * nvcc's shape (no 64-bit pointer induction per array, no range() clamp, no loop for a
 * one-iteration task), and ptxas -v registers per entry stay within the nvcc baselines of
 * bench/cuda/ plus the differences that bench/ptx-quality.md explains. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXAS "/usr/local/cuda/bin/ptxas"

static const char *const examples[] = {"bitflags", "cas_max", "compaction", "exchange_handoff", "float_sum",
                                       "histogram", "last_block", "minmax", "shared_histogram", "spin_chain"};

static char *example_ptx(const char *ex, const char *arch) {
    char *rel = xasprintf("examples/%s.qd", ex), *src = root_path(rel);
    char *tgt = xasprintf("--target=%s", arch);
    RunResult r = run_qdc(src, tgt, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s for %s: %s", ex, arch, r.err);
    char *ptx = xstrdup(r.out);
    run_free(&r);
    free(rel), free(src), free(tgt);
    return ptx;
}

/* The text of `.entry name(` up to its closing brace line; NULL if absent. */
static char *entry_text(const char *ptx, const char *name) {
    char *head = xasprintf(".entry %s(", name);
    const char *s = strstr(ptx, head);
    free(head);
    if (!s) return NULL;
    const char *e = strstr(s, "\n}\n");
    return xstrndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* A register-strided 64-bit pointer induction: "add.s64 %rdA, %rdA, %rdB;" (LLVM's loop
 * strength reduction of a grid-stride address). Immediate steps (an unrolled serial loop) pass. */
static bool has_pointer_induction(const char *text) {
    for (const char *p = text; (p = strstr(p, "add.s64")); p++) {
        char a[16], b[16], c[16];
        if (sscanf(p, "add.s64 %15[^,], %15[^,], %15[^;];", a, b, c) == 3 && !strcmp(a, b) && c[0] == '%') return true;
    }
    return false;
}

Test(ptx_quality, grid_loops_recompute_addresses) {
    const char *arches[] = {"sm_60", "sm_80", "sm_90"};
    for (size_t a = 0; a < ARRAY_LEN(arches); a++)
        for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
            char *ptx = example_ptx(examples[i], arches[a]);
            cr_expect(!has_pointer_induction(ptx), "%s %s: 64-bit pointer induction in a grid-stride loop:\n%s",
                      examples[i], arches[a], ptx);
            free(ptx);
        }
}

Test(ptx_quality, range_clamp_folded_and_unsigned_latch) {
    char *ptx = example_ptx("histogram", "sm_80");
    char *t1 = entry_text(ptx, "histogram_t1");
    cr_assert_not_null(t1);
    cr_expect(!strstr(t1, "max.s32"), "range(n)'s max(n, 0) should be tested as n:\n%s", t1);
    cr_expect(strstr(t1, "setp.ge.s32") && strstr(t1, "setp.lt.u32"), "entry test signed, latch unsigned:\n%s", t1);
    free(t1), free(ptx);
}

Test(ptx_quality, one_iteration_task_has_no_loop) {
    const char *cases[][2] = {{"cas_max", "cas_max_t0"}, {"compaction", "compact_t0"},
                              {"compaction", "compact_t2"}, {"float_sum", "float_sum_t0"}};
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char *ptx = example_ptx(cases[i][0], "sm_90");
        char *t = entry_text(ptx, cases[i][1]);
        cr_assert_not_null(t, "%s: no entry %s", cases[i][0], cases[i][1]);
        cr_expect(!strstr(t, "%nctaid.x"), "range(1) should need no grid stride:\n%s", t);
        cr_expect(!strstr(t, "bra.uni"), "range(1) should be straight-line code:\n%s", t);
        free(t), free(ptx);
    }
}

/* nvcc -O3 registers of the matching bench/cuda kernel (CUDA 13.0 ptxas), plus the extra
 * registers bench/ptx-quality.md explains. */
typedef struct { const char *ex, *entry; int sm80, sm90, extra80, extra90; } RegBudget;
static const RegBudget budgets[] = {
    {"bitflags", "bitflags_t0", 14, 12, 0, 0},       {"bitflags", "bitflags_t1", 16, 24, 0, 0},
    {"cas_max", "cas_max_t0", 6, 6, 0, 0},           {"cas_max", "cas_max_t1", 12, 16, 0, 0},
    {"compaction", "compact_t0", 6, 6, 0, 0},        {"compaction", "compact_t1", 16, 21, 0, 1}, /* warp aggregation (ptx-quality.md 6) */
    {"compaction", "compact_t2", 12, 10, 0, 0},      {"exchange_handoff", "exchange_handoff_t0", 14, 12, 0, 0},
    {"exchange_handoff", "exchange_handoff_t1", 16, 20, 0, 0},
    {"exchange_handoff", "exchange_handoff_t2", 14, 17, 0, 0},
    {"float_sum", "float_sum_t0", 6, 6, 0, 0},       {"float_sum", "float_sum_t1", 14, 16, 11, 11}, /* f32 reduction trees (ptx-quality.md 7) */
    {"histogram", "histogram_t0", 10, 8, 0, 0},      {"histogram", "histogram_t1", 12, 12, 0, 2},
    {"last_block", "last_block_t0", 6, 6, 0, 0},     {"last_block", "last_block_t1", 43, 44, 0, 0},
    {"minmax", "minmax_t0", 24, 22, 0, 0},           {"minmax", "minmax_t1", 16, 18, 0, 0},
    {"minmax", "minmax_t2", 16, 18, 0, 0},           {"minmax", "minmax_t3", 12, 12, 0, 0},
    {"shared_histogram", "shared_histogram_t0", 10, 8, 0, 0},
    {"shared_histogram", "shared_histogram_t1", 12, 16, 0, 0},
    {"spin_chain", "spin_chain_t0", 12, 10, 0, 0},   {"spin_chain", "spin_chain_t1", 16, 16, 0, 0},
};

/* ptxas -v registers of `entry` in its log; -1 if not found. */
static int entry_regs(const char *log, const char *entry) {
    char *key = xasprintf("Compiling entry function '%s'", entry);
    const char *s = strstr(log, key);
    free(key);
    const char *u = s ? strstr(s, "Used ") : NULL;
    int n = -1;
    if (u && sscanf(u, "Used %d registers", &n) != 1) n = -1;
    return n;
}

static bool ptxas_13(void) {
    if (!tool_available(PTXAS)) return false;
    RunResult r = run_argv((const char *[]){PTXAS, "--version", NULL}, NULL, NULL);
    bool ok = r.status == 0 && strstr(r.out, "release 13.");
    run_free(&r);
    return ok;
}

static void check_registers(const char *arch) {
    if (!ptxas_13()) {
        printf("ptx_quality: SKIP register budgets for %s (needs CUDA 13 %s)\n", arch, PTXAS);
        return;
    }
    char *dir = make_temp_dir();
    char *in = xasprintf("%s/k.ptx", dir), *out = xasprintf("%s/k.cubin", dir), *flag = xasprintf("-arch=%s", arch);
    bool sm90 = !strcmp(arch, "sm_90");
    for (size_t i = 0; i < ARRAY_LEN(budgets); i++) {
        const RegBudget *b = &budgets[i];
        char *ptx = example_ptx(b->ex, arch);
        cr_assert(write_text(in, ptx));
        RunResult r = run_argv((const char *[]){PTXAS, "-v", flag, in, "-o", out, NULL}, NULL, NULL);
        cr_expect_eq(r.status, 0, "ptxas rejected %s: %s", b->ex, r.err);
        int got = entry_regs(r.err, b->entry), nvcc = sm90 ? b->sm90 : b->sm80;
        int limit = nvcc + (sm90 ? b->extra90 : b->extra80);
        cr_expect(got > 0 && got <= limit, "%s %s: %d registers, nvcc %d, budget %d", b->entry, arch, got, nvcc, limit);
        run_free(&r);
        free(ptx);
    }
    remove_tree(dir);
    free(in), free(out), free(flag), free(dir);
}

Test(ptx_quality, registers_within_nvcc_sm80) { check_registers("sm_80"); }
Test(ptx_quality, registers_within_nvcc_sm90) { check_registers("sm_90"); }
