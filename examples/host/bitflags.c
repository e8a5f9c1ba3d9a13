/* Host for bitflags.qd: atomic or/and/xor against a serial computation. */
#include "bitflags.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20), w = 1024, bad = 0;
    uint32_t *keys = host_alloc((size_t)n, 4), *present = host_alloc((size_t)w, 4), *want = host_alloc((size_t)w, 4);
    uint32_t acc[2], x = 0, y = ~0u;
    for (int i = 0; i < n; i++) {
        keys[i] = host_rand() | 0x80000001u; /* keep some AND bits set */
        want[(keys[i] >> 5) % (uint32_t)w] |= 1u << (keys[i] & 31), x ^= keys[i], y &= keys[i];
    }
    bitflags_args a = {keys, {n}, present, {w}, acc, {2}};
    if (!host_launch_ok(bitflags(&a, nt))) return 2;
    for (int i = 0; i < w; i++) bad += present[i] != want[i];
    int ok = !bad && acc[0] == x && acc[1] == y;
    printf("%d keys: bitset %s, xor=0x%08x and=0x%08x %s\n", n, bad ? "WRONG" : "exact", acc[0], acc[1], ok ? "exact" : "MISMATCH");
    free(keys), free(present), free(want);
    return !ok;
}
