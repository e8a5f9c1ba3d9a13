// histogram.qd's atomic loop as a Vulkan compute shader.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer Data { int data[]; };
layout(std430, binding = 1) buffer Bins { int bins[]; };
layout(push_constant) uniform P { int n; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) atomicAdd(bins[data[i] & 255], 1); }
