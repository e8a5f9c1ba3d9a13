#pragma clang diagnostic ignored "-Wunused-variable"

#include <metal_stdlib>
#include <simd/simd.h>
#include <metal_atomic>

using namespace metal;

struct histogram_t0_buf_i32
{
    int data[1];
};

kernel void histogram_t0(device histogram_t0_buf_i32& bins [[buffer(1)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    int _20 = int(gl_GlobalInvocationID.x);
    int _11 = _20;
    int _26 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _32 = _11;
        if (uint(_32) < uint(256))
        {
            int _6 = _32;
            int _8 = _6;
            bins.data[_8] = 0;
            _11 += _26;
            continue;
        }
        else
        {
            break;
        }
    }
}

struct histogram_t1_args_histogram
{
    int data_shape0;
    int bins_shape0;
};

struct histogram_t1_buf_i32
{
    int data[1];
};

kernel void histogram_t1(device histogram_t1_buf_i32& data [[buffer(0)]], device histogram_t1_buf_i32& bins [[buffer(1)]], constant histogram_t1_args_histogram& args [[buffer(2)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    int _21 = max(args.data_shape0, 0);
    int _28 = int(gl_GlobalInvocationID.x);
    int _11 = _28;
    int _34 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _40 = _11;
        if (uint(_40) < uint(_21))
        {
            int _9 = _40;
            int _10 = _9;
            int _58 = atomic_fetch_add_explicit((device atomic_int*)&bins.data[data.data[_10] & 255], 1, memory_order_relaxed);
            _11 += _34;
            continue;
        }
        else
        {
            break;
        }
    }
}
