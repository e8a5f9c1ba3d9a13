// bitflags.qd in CUDA: atomicOr / atomicXor / atomicAnd on u32.
__global__ void init(unsigned *present, int words, unsigned *acc) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < words) { present[w] = 0u; if (w == 0) { acc[0] = 0u; acc[1] = ~0u; } }
}
__global__ void bitflags(const unsigned *keys, int n, unsigned *present, int words, unsigned *acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = keys[i];
    int word = (int)((k >> 5) % (unsigned)words);
    atomicOr(&present[word], 1u << (k & 31u));
    atomicXor(&acc[0], k);
    atomicAnd(&acc[1], k);
}
