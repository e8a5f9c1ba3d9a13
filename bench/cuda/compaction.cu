// compaction.qd in CUDA: stream compaction through a global counter.
__device__ int count;
__global__ void reset() { count = 0; }
__global__ void compact(const int *src, int n, int *dst_val, int *dst_idx, int threshold) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && src[i] > threshold) {
        int slot = atomicAdd(&count, 1);
        dst_val[slot] = src[i];
        dst_idx[slot] = i;
    }
}
__global__ void finish(int *n_out) { n_out[0] = count; }
