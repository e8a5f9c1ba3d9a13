/* exec_spec.h's examples and atomics matrix through libqdrt (see exec_qdrt.h). */
#include "exec_qdrt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lib_fail(char *why, size_t whylen, const char *what) {
    snprintf(why, whylen, "%s: %s", what, qdrt_error());
    return -1;
}

int exec_qdrt_example(qdrt_module *m, const Example *ex, int n, char *why, size_t whylen) {
    ExArgs a = {0};
    ex->setup(&a, n);
    int np = qdrt_kernel_params(m, ex->kernel), b = 0, rc = 1;
    qdrt_value v[8];
    qdrt_array *arr[8] = {0};
    if (np < 0 || np > 8) rc = lib_fail(why, whylen, "qdrt_kernel_params");
    for (int i = 0; rc == 1 && i < np; i++) {
        const char *name;
        int is_array, ndim;
        qdrt_dtype dt;
        if (qdrt_kernel_param(m, ex->kernel, i, &name, &is_array, &dt, &ndim)) rc = lib_fail(why, whylen, "qdrt_kernel_param");
        else if (!is_array) v[i] = qdrt_i64(a.scalar);
        else if (b == a.nbufs || qdrt_dtype_size(dt) != a.bufs[b].elem) {
            snprintf(why, whylen, "parameter %s does not match the example's buffer %d", name, b);
            rc = -1;
        } else {
            ExBuf *eb = &a.bufs[b++];
            int64_t shape = (int64_t)eb->n;
            if (qdrt_array_new(qdrt_module_device(m), dt, 1, &shape, &arr[i]) || qdrt_array_write(arr[i], eb->host, eb->elem * eb->n))
                rc = lib_fail(why, whylen, name);
            v[i] = qdrt_arr(arr[i]);
        }
    }
    if (rc == 1 && b != a.nbufs) snprintf(why, whylen, "%d buffers for %d ndarray parameters", a.nbufs, b), rc = -1;
    if (rc == 1 && qdrt_launch_kernel(m, ex->kernel, v, np, NULL, 0)) rc = lib_fail(why, whylen, ex->kernel);
    for (int i = 0, k = 0; i < np && np <= 8; i++)
        if (arr[i]) {
            ExBuf *eb = &a.bufs[k++];
            if (rc == 1 && qdrt_array_read(arr[i], eb->host, eb->elem * eb->n)) rc = lib_fail(why, whylen, "qdrt_array_read");
            qdrt_array_free(arr[i]);
        }
    if (rc == 1 && !ex->check(&a, n)) snprintf(why, whylen, "%s", a.why), rc = 0;
    exec_args_free(&a);
    return rc;
}

int exec_qdrt_matrix(qdrt_module *m, const XFile *f, int n, uint32_t seed, char *why, size_t whylen) {
    static const qdrt_dtype dts[XD_COUNT] = {QDRT_I32, QDRT_U32, QDRT_I64, QDRT_U64, QDRT_F32, QDRT_F64};
    XData d;
    xdata_init(&d, f, n, seed);
    void *host[4] = {d.v, d.w, d.tgt, d.old};
    size_t bytes[4] = {xdata_bytes(&d, 'v'), xdata_bytes(&d, 'v'), xdata_bytes(&d, 't'), xdata_bytes(&d, 'o')};
    qdrt_array *arr[4] = {0};
    qdrt_value args[5] = {qdrt_i64(n)};
    int rc = 0;
    for (int i = 0; i < 4 && !rc; i++) {
        int64_t count = (int64_t)(bytes[i] / (size_t)d.esize);
        if (qdrt_array_new(qdrt_module_device(m), dts[f->dt], 1, &count, &arr[i]) || qdrt_array_write(arr[i], host[i], bytes[i]))
            rc = lib_fail(why, whylen, "matrix arrays");
        args[1 + i] = qdrt_arr(arr[i]);
    }
    for (int k = 0; k < f->nkernels && !rc; k++) {
        char *name = xkernel_name(f, k);
        if (qdrt_launch_kernel(m, name, args, 5, NULL, 0)) rc = lib_fail(why, whylen, name);
        free(name);
    }
    for (int i = 0; i < 4; i++) {
        if (!rc && arr[i] && qdrt_array_read(arr[i], host[i], bytes[i])) rc = lib_fail(why, whylen, "qdrt_array_read");
        qdrt_array_free(arr[i]);
    }
    char one[512];
    for (int k = 0; k < f->nkernels && rc >= 0; k++)
        if (!xcheck(f, &d, k, one, sizeof one) && !rc++) snprintf(why, whylen, "%s", one);
    xdata_free(&d);
    return rc;
}
