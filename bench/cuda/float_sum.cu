// float_sum.qd in CUDA, the same algorithm qdc emits: grid-stride kernels with 128-thread blocks;
// float atomicAdd of x and x*x.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void __launch_bounds__(128) init(float *out) { GRID_STRIDE(i, 1) { out[0] = 0.0f; out[1] = 0.0f; } }
__global__ void __launch_bounds__(128) float_sum(const float *x, int n, float *out) {
    GRID_STRIDE(i, n) { atomicAdd(&out[0], x[i]); atomicAdd(&out[1], x[i] * x[i]); }
}
