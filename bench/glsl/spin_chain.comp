// spin_chain.qd's chain loop: volatile spin, fences, publish by exchange.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { int x[]; };
layout(std430, binding = 1) volatile buffer Out { int o[]; };
layout(std430, binding = 2) volatile buffer Flags { int flags[]; };
layout(std430, binding = 3) buffer T { int ticket; };
layout(push_constant) uniform P { int n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    int t = atomicAdd(ticket, 1), acc = x[t];
    if (t > 0) { while (flags[t - 1] == 0) {} memoryBarrierBuffer(); acc += o[t - 1]; }
    o[t] = acc;
    memoryBarrierBuffer();
    atomicExchange(flags[t], 1);
}
