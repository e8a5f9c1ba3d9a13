/* "did you mean" hints (support/util.c closest_name) in the frontend's diagnostics: the exact
 * text for misspelled builtins, names and qd.loop_config arguments, and the distance rules. */
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <string.h>

Test(diag_hints, edit_distance_and_closest) {
    cr_expect_eq(edit_distance("kitten", "sitting", 5), 3);
    cr_expect_eq(edit_distance("same", "same", 2), 0);
    cr_expect_eq(edit_distance("abc", "abcdefgh", 2), 3); /* capped at cap + 1 */
    static const char *const c[] = {"serialize", "parallelize", "block_dim", "x"};
    cr_expect_str_eq(closest_name("serialise", c, 4), "serialize");
    cr_expect_str_eq(closest_name("blockdim", c, 4), "block_dim");
    cr_expect_null(closest_name("y", c, 4));          /* never suggest by replacing a whole name */
    cr_expect_null(closest_name("vectorize", c, 4));  /* too far */
}

Test(diag_hints, frontend_messages) {
    char *src = root_path("testdata/frontend/err-did-you-mean.qd");
    RunResult r = run_qdc("--check", src, NULL);
    cr_expect_eq(r.status, 1);
    static const char *const want[] = {
        ":9:20: error[QD2007]: qd.loop_config has no argument 'serialise'; did you mean 'serialize'?\n",
        ":11:16: error[QD2008]: 'qd.sinn' is not supported in v1 kernels; did you mean 'qd.sin'?\n",
        ":11:32: error[QD2008]: 'qd.math.sqrtt' is not supported in v1 kernels; did you mean 'qd.math.sqrt'?\n",
        ":11:53: error[QD2008]: 'qd.atomic_ad' is not supported in v1 kernels; did you mean 'qd.atomic_add'?\n",
        ":11:79: error[QD2001]: Name \"alpah\" is not defined; did you mean 'alpha'?\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) cr_expect(strstr(r.err, want[i]), "missing %s in:\n%s", want[i], r.err);
    cr_expect(!strstr(r.err, "'alph'"), "the arguments of a rejected call are not reported again:\n%s", r.err);
    run_free(&r);
    free(src);
}
