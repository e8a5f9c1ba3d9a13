/* Host for last_block.qd: the last ticket holder sees every write (fences) and prefix-sums. */
#include "last_block.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 16), bad = 0;
    int32_t *a = host_alloc((size_t)n, 4);
    last_block_args args = {a, {n}};
    if (!host_launch_ok(last_block(&args, nt))) return 2;
    for (int i = 0; i < n; i++) bad += a[i] != i + 1;
    printf("%d blocks: last block saw every write, a[i] == i + 1: %s\n", n, bad ? "NO" : "yes");
    free(a);
    return bad != 0;
}
