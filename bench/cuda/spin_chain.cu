// spin_chain.qd in CUDA, the same algorithm qdc emits: grid-stride kernels (128-thread blocks for
// init, 1-thread blocks for the chain as block_dim=1 asks); ticket, volatile spin on the
// predecessor's flag, fences, publish by exchange.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__device__ int ticket;
__global__ void __launch_bounds__(128) init(int n, int *flags) {
    GRID_STRIDE(i, n) { flags[i] = 0; if (i == 0) ticket = 0; }
}
__global__ void __launch_bounds__(1) spin_chain(const int *x, int n, int *out, int *flags) {
    GRID_STRIDE(i, n) {
        int t = atomicAdd(&ticket, 1), acc = x[t];
        if (t > 0) {
            while (*(volatile int *)&flags[t - 1] == 0) {}
            __threadfence();
            acc += *(volatile int *)&out[t - 1];
        }
        out[t] = acc;
        __threadfence();
        atomicExch(&flags[t], 1);
    }
}
