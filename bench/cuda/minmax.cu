// minmax.qd in CUDA, the same algorithm qdc emits: grid-stride kernels with 128-thread blocks;
// integer atomicMin/Max; float min/max by CAS loops (CUDA has no float atomicMin).
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__device__ float atomic_min_f(float *p, float v) {
    int *ip = (int *)p, old = *ip, assumed;
    do { assumed = old; if (__int_as_float(assumed) <= v) break; old = atomicCAS(ip, assumed, __float_as_int(v)); } while (old != assumed);
    return __int_as_float(old);
}
__device__ float atomic_max_f(float *p, float v) {
    int *ip = (int *)p, old = *ip, assumed;
    do { assumed = old; if (__int_as_float(assumed) >= v) break; old = atomicCAS(ip, assumed, __float_as_int(v)); } while (old != assumed);
    return __int_as_float(old);
}
__global__ void __launch_bounds__(128) init(const int *a, const unsigned *u, const float *f, int *ires, unsigned *ures, float *fres) {
    GRID_STRIDE(i, 1) { ires[0] = ires[1] = a[0]; ures[0] = ures[1] = u[0]; fres[0] = fres[1] = f[0]; }
}
__global__ void __launch_bounds__(128) mm_i(const int *a, int n, int *ires) {
    GRID_STRIDE(i, n) { atomicMin(&ires[0], a[i]); atomicMax(&ires[1], a[i]); }
}
__global__ void __launch_bounds__(128) mm_u(const unsigned *u, int n, unsigned *ures) {
    GRID_STRIDE(i, n) { atomicMin(&ures[0], u[i]); atomicMax(&ures[1], u[i]); }
}
__global__ void __launch_bounds__(128) mm_f(const float *f, int n, float *fres) {
    GRID_STRIDE(i, n) { atomic_min_f(&fres[0], f[i]); atomic_max_f(&fres[1], f[i]); }
}
