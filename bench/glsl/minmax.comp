// minmax.qd's atomic loops (float min/max need GL_EXT_shader_atomic_float2).
#version 450
layout(local_size_x = 128) in;
#extension GL_EXT_shader_atomic_float2 : require
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer U { uint u[]; };
layout(std430, binding = 2) readonly buffer F { float f[]; };
layout(std430, binding = 3) buffer IR { int ires[]; };
layout(std430, binding = 4) buffer UR { uint ures[]; };
layout(std430, binding = 5) buffer FR { float fres[]; };
layout(push_constant) uniform P { int n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    atomicMin(ires[0], a[i]); atomicMax(ires[1], a[i]);
    atomicMin(ures[0], u[i]); atomicMax(ures[1], u[i]);
    atomicMin(fres[0], f[i]); atomicMax(fres[1], f[i]);
}
