// bitflags.qd's atomic loop.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Present { uint present[]; };
layout(std430, binding = 2) buffer Acc { uint acc[]; };
layout(push_constant) uniform P { int n; int words; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    uint k = keys[i];
    int word = int((k >> 5u) % uint(words));
    atomicOr(present[word], 1u << (k & 31u));
    atomicXor(acc[0], k);
    atomicAnd(acc[1], k);
}
