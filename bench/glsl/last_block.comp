// last_block.qd's ticket loop.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) coherent buffer A { int a[]; };
layout(std430, binding = 1) buffer T { int tickets; };
layout(push_constant) uniform P { int n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    a[i] = 1;
    memoryBarrierBuffer();
    int t = atomicAdd(tickets, 1);
    if (t == n - 1) { memoryBarrierBuffer(); for (int j = 1; j < n; j++) a[j] = a[j] + a[j - 1]; }
}
