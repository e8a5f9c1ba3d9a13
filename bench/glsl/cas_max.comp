// cas_max.qd's CAS retry loop.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer Cand { int cand[]; };
layout(std430, binding = 1) buffer Best { int best[]; };
layout(push_constant) uniform P { int n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    int v = abs(cand[i]), cur = best[0];
    while (cur < v) { int old = atomicCompSwap(best[0], cur, v); if (old == cur) break; cur = old; }
}
