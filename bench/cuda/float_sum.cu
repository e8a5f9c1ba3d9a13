// float_sum.qd in CUDA: float atomicAdd of x and x*x.
__global__ void init(float *out) { out[0] = 0.0f; out[1] = 0.0f; }
__global__ void float_sum(const float *x, int n, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { atomicAdd(&out[0], x[i]); atomicAdd(&out[1], x[i] * x[i]); }
}
