// spin_chain.qd in CUDA: ticket, volatile spin on the predecessor's flag, fences, publish by exchange.
__device__ int ticket;
__global__ void init(int n, int *flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { flags[i] = 0; if (i == 0) ticket = 0; }
}
__global__ void spin_chain(const int *x, int n, int *out, int *flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
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
