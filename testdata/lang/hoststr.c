/* Host for testdata/lang/hoststr.py: order= computed by a helper from a parametrized layout
 * ((1, 0) -> "ji": stored column-major, f[i, j] at j * 2 + i; (0, 1) -> "ij": a plain field),
 * the vector field placed "ji" through a qd.template() parameter, and the values of the string
 * methods the kernel `strings` read at compile time; every value exact. */
#include "hoststr.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    test_layout__layout0__fill__f_args l0 = {0};
    test_layout__layout1__fill__f_args l1 = {0};
    test_vector_order__fill__v_args vo = {0};
    strings_args st = {0};
    if (!host_launch_ok(test_layout__layout0__fill__f(&l0, nt)) || !host_launch_ok(test_layout__layout1__fill__f(&l1, nt)) ||
        !host_launch_ok(test_vector_order__fill__v(&vo, nt)) || !host_launch_ok(strings(&st, nt)))
        return 2;
    const int32_t *raw = (const int32_t *)(const void *)qd_snode_test_layout__layout0__f;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            if (raw[j * 2 + i] != i * 10 + j) printf("ji f[%d, %d] = %d, want %d\n", i, j, raw[j * 2 + i], i * 10 + j), bad++;
            if (qd_field_test_layout__layout1__f[i][j] != i * 10 + j)
                printf("ij f[%d, %d] = %d, want %d\n", i, j, qd_field_test_layout__layout1__f[i][j], i * 10 + j), bad++;
            if (*qd_field_test_vector_order__v_0_at(i, j) != i || *qd_field_test_vector_order__v_1_at(i, j) != j)
                printf("v[%d, %d] = (%d, %d)\n", i, j, *qd_field_test_vector_order__v_0_at(i, j), *qd_field_test_vector_order__v_1_at(i, j)), bad++;
        }
    const int32_t *vraw = (const int32_t *)(const void *)qd_snode_test_vector_order__v_0; /* components interleaved, j outermost */
    if (vraw[(2 * 2 + 1) * 2] != 1 || vraw[(2 * 2 + 1) * 2 + 1] != 2) printf("v[1, 2] is not at element 5\n"), bad++;
    /* g[1, 2] = 12 in both layouts (slot 0: "ji", 1: "ij"); v[1, 2] = (1, 2); len("GRID_3") * 10 + 1;
     * strip/lstrip; 3 words + "y" found; find("_") = 4, two "-"; lower/startswith/in; ord("z");
     * "12".isdigit() */
    static const int want[10] = {12, 12, 12, 61, 1, 13, 402, 1, 122, 1};
    for (int s = 0; s < 10; s++)
        if (qd_field_out[s] != want[s]) printf("out[%d] = %d, want %d\n", s, qd_field_out[s], want[s]), bad++;
    printf("hoststr: %d wrong\n", bad);
    return bad != 0;
}
