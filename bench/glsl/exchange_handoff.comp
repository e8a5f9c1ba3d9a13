// exchange_handoff.qd's exchange loop (float exchange needs GL_EXT_shader_atomic_float).
#version 450
layout(local_size_x = 128) in;
#extension GL_EXT_shader_atomic_float : require
layout(std430, binding = 0) buffer Link { int link[]; };
layout(std430, binding = 1) buffer Head { int head[]; };
layout(std430, binding = 2) readonly buffer W { float w[]; };
layout(std430, binding = 3) buffer Box { float box[]; };
layout(push_constant) uniform P { int n; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) { link[i] = atomicExchange(head[0], int(i)); atomicExchange(box[i], w[i]); } }
