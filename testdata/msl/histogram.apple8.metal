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
    int _18 = int(gl_GlobalInvocationID.x);
    int _9 = _18;
    int _24 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _30 = _9;
        if (uint(_30) < uint(256))
        {
            int _6 = _30;
            int _8 = _6;
            bins.data[_8] = 0;
            _9 += _24;
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
    int _19 = max(args.data_shape0, 0);
    int _26 = int(gl_GlobalInvocationID.x);
    int _9 = _26;
    int _32 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _38 = _9;
        if (uint(_38) < uint(_19))
        {
            int _6 = _38;
            int _8 = _6;
            int _56 = atomic_fetch_add_explicit((device atomic_int*)&bins.data[data.data[_8] & 255], 1, memory_order_relaxed);
            _9 += _32;
            continue;
        }
        else
        {
            break;
        }
    }
}
