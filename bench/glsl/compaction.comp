// compaction.qd's counter loop.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer Src { int src[]; };
layout(std430, binding = 1) buffer Out { int dst_val[]; };
layout(std430, binding = 2) buffer Idx { int dst_idx[]; };
layout(std430, binding = 3) buffer Count { int count; };
layout(push_constant) uniform P { int n; int threshold; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n && src[i] > threshold) { int slot = atomicAdd(count, 1); dst_val[slot] = src[i]; dst_idx[slot] = int(i); }
}
