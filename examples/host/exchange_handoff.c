/* Host for exchange_handoff.qd: the pushed list visits every index once; every mailbox value
 * is taken exactly once and the boxes end empty. */
#include "exchange_handoff.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20), bad = 0, len = 0;
    int32_t *link = host_alloc((size_t)n, 4), head = 7;
    float *w = host_alloc((size_t)n, 4), *box = host_alloc((size_t)n, 4), *got = host_alloc((size_t)n, 4);
    char *seen = host_alloc((size_t)n, 1);
    for (int i = 0; i < n; i++) w[i] = (float)(i + 1), box[i] = -1;
    exchange_handoff_args a = {link, {n}, &head, {1}, w, {n}, box, {n}, got, {n}};
    if (!host_launch_ok(exchange_handoff(&a, nt))) return 2;
    for (int p = head; p != -1 && len <= n; p = link[p], len++) {
        if (p < 0 || p >= n || seen[p]) { bad++; break; }
        seen[p] = 1;
    }
    for (int j = 0; j < n; j++) bad += got[j] != w[(j + 1) % n] || box[j] != 0.0f;
    int ok = !bad && len == n;
    printf("%d hand-offs: list of %d, every task taken exactly once: %s\n", n, len, ok ? "yes" : "NO");
    free(link), free(w), free(box), free(got), free(seen);
    return !ok;
}
