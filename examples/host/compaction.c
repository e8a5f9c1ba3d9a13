/* Host for compaction.qd: keeps the values above a threshold; checks the count and that the
 * survivors are exactly the kept (index, value) pairs, each once. */
#include "compaction.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20), thr = 1 << 30, want = 0, bad = 0;
    int32_t *src = host_alloc((size_t)n, 4), *val = host_alloc((size_t)n, 4), *idx = host_alloc((size_t)n, 4), nout = -1;
    char *seen = host_alloc((size_t)n, 1);
    for (int i = 0; i < n; i++) src[i] = (int32_t)(host_rand() >> 1), want += src[i] > thr;
    compact_args a = {src, {n}, val, {n}, idx, {n}, &nout, {1}, thr};
    if (!host_launch_ok(compact(&a, nt))) return 2;
    for (int k = 0; k < nout && k < n; k++) {
        int i = idx[k];
        if (i < 0 || i >= n || seen[i] || src[i] <= thr || val[k] != src[i]) bad++;
        else seen[i] = 1;
    }
    int ok = nout == want && !bad && qd_field_count == want;
    printf("%d values, threshold %d: %d kept %s\n", n, thr, nout, ok ? "(exactly the survivors)" : "MISMATCH");
    free(src), free(val), free(idx), free(seen);
    return !ok;
}
