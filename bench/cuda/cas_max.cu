// cas_max.qd in CUDA: lock-free max of |x| by an atomicCAS retry loop.
__global__ void init(int *best) { best[0] = 0; }
__global__ void cas_max(const int *cand, int n, int *best) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = abs(cand[i]), cur = best[0];
    while (cur < v) {
        int old = atomicCAS(&best[0], cur, v);
        if (old == cur) break;
        cur = old;
    }
}
