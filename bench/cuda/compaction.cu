// compaction.qd in CUDA, the same algorithm qdc emits: grid-stride kernels with 128-thread blocks;
// stream compaction through a global counter.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__device__ int count;
__global__ void __launch_bounds__(128) reset() { GRID_STRIDE(i, 1) count = 0; }
__global__ void __launch_bounds__(128) compact(const int *src, int n, int *dst_val, int *dst_idx, int threshold) {
    GRID_STRIDE(i, n) {
        if (src[i] > threshold) {
            int slot = atomicAdd(&count, 1);
            dst_val[slot] = src[i];
            dst_idx[slot] = i;
        }
    }
}
__global__ void __launch_bounds__(128) finish(int *n_out) { GRID_STRIDE(i, 1) n_out[0] = count; }
