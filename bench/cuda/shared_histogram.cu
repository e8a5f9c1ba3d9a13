// shared_histogram.qd in CUDA, the same algorithm qdc emits: grid-stride kernels (128-thread
// blocks for the zeroing, exactly 256 for the histogram) over the padded extent; block-shared
// histogram, then one global atomic per non-empty bin.
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void __launch_bounds__(128) zero_bins(int *bins) { GRID_STRIDE(b, 256) bins[b] = 0; }
__global__ void __launch_bounds__(256) shared_histogram(const int *data, int n, int *bins) {
    __shared__ int hist[257];
    GRID_STRIDE(i, (n + 255) / 256 * 256) {
        int tid = threadIdx.x;
        hist[tid] = 0;
        if (tid == 0) hist[256] = 0;
        __syncthreads();
        int d = 256;
        if (i < n) d = data[i] & 255;
        atomicAdd(&hist[d], 1);
        __syncthreads();
        if (hist[tid] != 0) atomicAdd(&bins[tid], hist[tid]);
    }
}
