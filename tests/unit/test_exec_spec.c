/* The exact sequential-history check of the atomics matrix (exec_spec.c) judged on histories
 * written by hand: it accepts every serial order and rejects what no serial order can return. */
#include "exec_spec.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

/* Kernel 0 of the i32 global file (add, relaxed), 10 elements on 5 targets: target 0 gets
 * elements 0 and 5, operands 3 and 4, from the initial value 100. */
static void setup(XFile *f, XData *d) {
    xfile_init(f, XD_I32, XS_GLOBAL);
    cr_assert_eq(f->op[0], XO_ADD);
    xdata_init(d, f, 10, 1);
    int32_t *v = d->v, *tgt = d->tgt, *tgt0 = d->tgt0, *old = d->old;
    for (int t = 0; t < 5; t++) tgt0[t] = 100 * (t + 1);
    for (int i = 0; i < 10; i++) v[i] = 3 + i / 5;
    /* serial: element t first, then t + 5 */
    for (int t = 0; t < 5; t++) old[t] = tgt0[t], old[t + 5] = tgt0[t] + 3, tgt[t] = tgt0[t] + 7;
}

Test(exec_spec, history_accepts_any_serial_order) {
    XFile f;
    XData d;
    setup(&f, &d);
    char why[512] = "";
    cr_expect(xcheck(&f, &d, 0, why, sizeof why), "%s", why);
    int32_t *old = d.old, *tgt0 = d.tgt0;
    old[0] = tgt0[0] + 4, old[5] = tgt0[0]; /* the other order on target 0 */
    cr_expect(xcheck(&f, &d, 0, why, sizeof why), "%s", why);
    xdata_free(&d);
}

Test(exec_spec, history_rejects_impossible_values) {
    XFile f;
    XData d;
    char why[512];
    setup(&f, &d);
    int32_t *old = d.old, *tgt = d.tgt, *tgt0 = d.tgt0;
    old[5] = tgt0[0]; /* both saw the initial value: a lost update */
    cr_expect_not(xcheck(&f, &d, 0, why, sizeof why));
    cr_expect(strstr(why, "g_add_relaxed (i32, global) target 0") != NULL, "%s", why);
    old[5] = tgt0[0] + 3;
    tgt[1] += 1; /* a final value no history reaches */
    cr_expect_not(xcheck(&f, &d, 0, why, sizeof why));
    cr_expect(strstr(why, "target 1") != NULL, "%s", why);
    tgt[1] -= 1;
    old[7] = 12345; /* an old value from nowhere */
    cr_expect_not(xcheck(&f, &d, 0, why, sizeof why));
    xdata_free(&d);
}

/* cas: failed compare-and-swaps are self-loops; a success that did not happen is caught. */
Test(exec_spec, history_of_cas) {
    XFile f;
    xfile_init(&f, XD_U32, XS_GLOBAL);
    int k = 0;
    while (f.op[k] != XO_CAS) k++;
    XData d;
    xdata_init(&d, &f, 5, 1); /* one element per target */
    uint32_t *v = d.v, *w = d.w, *tgt = d.tgt, *tgt0 = d.tgt0, *old = d.old;
    size_t base = (size_t)k * 5, tb = (size_t)k * d.ntgt;
    for (int t = 0; t < 5; t++) tgt0[tb + t] = 1, v[base + t] = (uint32_t)(t & 1), w[base + t] = 9, old[base + t] = 1;
    for (int t = 0; t < 5; t++) tgt[tb + t] = t & 1 ? 9 : 1; /* expected 1 succeeds, expected 0 fails */
    char why[512] = "";
    cr_expect(xcheck(&f, &d, k, why, sizeof why), "%s", why);
    tgt[tb + 0] = 9; /* a failed cas cannot store */
    cr_expect_not(xcheck(&f, &d, k, why, sizeof why));
    xdata_free(&d);
}
