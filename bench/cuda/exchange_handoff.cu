// exchange_handoff.qd in CUDA, the same algorithm qdc emits: grid-stride kernels with 128-thread
// blocks; atomicExch on ints and floats.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void __launch_bounds__(128) init(int n, int *head, float *box) {
    GRID_STRIDE(i, n) { box[i] = 0.0f; if (i == 0) head[0] = -1; }
}
__global__ void __launch_bounds__(128) post(int n, int *link, int *head, const float *w, float *box) {
    GRID_STRIDE(i, n) { link[i] = atomicExch(&head[0], i); atomicExch(&box[i], w[i]); }
}
__global__ void __launch_bounds__(128) take(int n, float *box, float *got) {
    GRID_STRIDE(j, n) got[j] = atomicExch(&box[(j + 1) % n], 0.0f);
}
