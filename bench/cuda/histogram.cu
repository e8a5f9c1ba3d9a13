// histogram.qd in CUDA, the same algorithm qdc emits: two grid-stride kernels (zero the bins, then
// one atomicAdd per key), 128-thread blocks (qdc's .maxntid from the database's default block).
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void __launch_bounds__(128) zero_bins(int *bins) { GRID_STRIDE(b, 256) bins[b] = 0; }
__global__ void __launch_bounds__(128) histogram(const int *data, int n, int *bins) {
    GRID_STRIDE(i, n) atomicAdd(&bins[data[i] & 255], 1);
}
