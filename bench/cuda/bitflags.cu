// bitflags.qd in CUDA, the same algorithm qdc emits: grid-stride kernels with 128-thread blocks;
// atomicOr / atomicXor / atomicAnd on u32.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void __launch_bounds__(128) init(unsigned *present, int words, unsigned *acc) {
    GRID_STRIDE(w, words) { present[w] = 0u; if (w == 0) { acc[0] = 0u; acc[1] = ~0u; } }
}
__global__ void __launch_bounds__(128) bitflags(const unsigned *keys, int n, unsigned *present, int words, unsigned *acc) {
    GRID_STRIDE(i, n) {
        unsigned k = keys[i];
        int word = (int)((k >> 5) % (unsigned)words);
        atomicOr(&present[word], 1u << (k & 31u));
        atomicXor(&acc[0], k);
        atomicAnd(&acc[1], k);
    }
}
