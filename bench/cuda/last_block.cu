// last_block.qd in CUDA, the same algorithm qdc emits: grid-stride kernels (128-thread blocks for
// reset, 1-thread blocks for the scan as block_dim=1 asks); fence plus ticket counter, the last
// arrival scans.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__device__ int tickets;
__global__ void __launch_bounds__(128) reset() { GRID_STRIDE(i, 1) tickets = 0; }
__global__ void __launch_bounds__(1) last_block(int *a, int n) {
    GRID_STRIDE(i, n) {
        a[i] = 1;
        __threadfence();
        int t = atomicAdd(&tickets, 1);
        if (t == n - 1) {
            __threadfence();
            for (int j = 1; j < n; j++) a[j] = a[j] + a[j - 1];
        }
    }
}
