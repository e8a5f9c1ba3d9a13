// float_sum.qd's atomic loop (GL_EXT_shader_atomic_float).
#version 450
layout(local_size_x = 128) in;
#extension GL_EXT_shader_atomic_float : require
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Out { float o[]; };
layout(push_constant) uniform P { int n; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) { atomicAdd(o[0], x[i]); atomicAdd(o[1], x[i] * x[i]); } }
