// shared_histogram.qd in CUDA: block-shared histogram, then one global atomic per non-empty bin.
__global__ void zero_bins(int *bins) { int b = blockIdx.x * blockDim.x + threadIdx.x; if (b < 256) bins[b] = 0; }
__global__ void shared_histogram(const int *data, int n, int *bins) {
    __shared__ int hist[257];
    int i = blockIdx.x * blockDim.x + threadIdx.x, tid = threadIdx.x;
    hist[tid] = 0;
    if (tid == 0) hist[256] = 0;
    __syncthreads();
    int d = 256;
    if (i < n) d = data[i] & 255;
    atomicAdd(&hist[d], 1);
    __syncthreads();
    if (hist[tid] != 0) atomicAdd(&bins[tid], hist[tid]);
}
