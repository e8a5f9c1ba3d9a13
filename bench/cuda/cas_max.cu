// cas_max.qd in CUDA, the same algorithm qdc emits: grid-stride kernels with 128-thread blocks;
// lock-free max of |x| by an atomicCAS retry loop.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void __launch_bounds__(128) init(int *best) { GRID_STRIDE(i, 1) best[0] = 0; }
__global__ void __launch_bounds__(128) cas_max(const int *cand, int n, int *best) {
    GRID_STRIDE(i, n) {
        int v = abs(cand[i]), cur = best[0];
        while (cur < v) {
            int old = atomicCAS(&best[0], cur, v);
            if (old == cur) break;
            cur = old;
        }
    }
}
