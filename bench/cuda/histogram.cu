// histogram.qd in CUDA: zero the bins, then one atomicAdd per key.
__global__ void zero_bins(int *bins) { int b = blockIdx.x * blockDim.x + threadIdx.x; if (b < 256) bins[b] = 0; }
__global__ void histogram(const int *data, int n, int *bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] & 255], 1);
}
