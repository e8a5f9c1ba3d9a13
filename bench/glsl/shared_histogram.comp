// shared_histogram.qd's block loop.
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Data { int data[]; };
layout(std430, binding = 1) buffer Bins { int bins[]; };
layout(push_constant) uniform P { int n; };
shared int hist[257];
void main() {
    uint i = gl_GlobalInvocationID.x, tid = gl_LocalInvocationID.x;
    hist[tid] = 0;
    if (tid == 0) hist[256] = 0;
    barrier();
    int d = 256;
    if (i < n) d = data[i] & 255;
    atomicAdd(hist[d], 1);
    barrier();
    if (hist[tid] != 0) atomicAdd(bins[tid], hist[tid]);
}
