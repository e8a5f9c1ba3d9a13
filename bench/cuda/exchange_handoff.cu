// exchange_handoff.qd in CUDA: atomicExch on ints and floats.
__global__ void init(int n, int *head, float *box) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { box[i] = 0.0f; if (i == 0) head[0] = -1; }
}
__global__ void post(int n, int *link, int *head, const float *w, float *box) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { link[i] = atomicExch(&head[0], i); atomicExch(&box[i], w[i]); }
}
__global__ void take(int n, float *box, float *got) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) got[j] = atomicExch(&box[(j + 1) % n], 0.0f);
}
