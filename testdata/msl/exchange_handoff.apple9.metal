#pragma clang diagnostic ignored "-Wunused-variable"

#include <metal_stdlib>
#include <simd/simd.h>
#include <metal_atomic>

using namespace metal;

struct exchange_handoff_t0_args_exchange_handoff
{
    int link_shape0;
    int head_shape0;
    int w_shape0;
    int box_shape0;
    int got_shape0;
};

struct exchange_handoff_t0_buf_u32
{
    uint data[1];
};

struct exchange_handoff_t0_buf_i32
{
    int data[1];
};

kernel void exchange_handoff_t0(device exchange_handoff_t0_buf_i32& head [[buffer(1)]], device exchange_handoff_t0_buf_u32& box [[buffer(3)]], constant exchange_handoff_t0_args_exchange_handoff& args [[buffer(5)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    int _19 = max(args.link_shape0, 0);
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
            box.data[_8] = as_type<uint>(0.0);
            if (_8 == 0)
            {
                head.data[0] = -1;
            }
            _9 += _32;
            continue;
        }
        else
        {
            break;
        }
    }
}

struct exchange_handoff_t1_args_exchange_handoff
{
    int link_shape0;
    int head_shape0;
    int w_shape0;
    int box_shape0;
    int got_shape0;
};

struct exchange_handoff_t1_buf_i32
{
    int data[1];
};

struct exchange_handoff_t1_buf_f32
{
    float data[1];
};

struct exchange_handoff_t1_buf_u32
{
    uint data[1];
};

kernel void exchange_handoff_t1(device exchange_handoff_t1_buf_i32& link [[buffer(0)]], device exchange_handoff_t1_buf_i32& head [[buffer(1)]], device exchange_handoff_t1_buf_f32& w [[buffer(2)]], device exchange_handoff_t1_buf_u32& box [[buffer(3)]], constant exchange_handoff_t1_args_exchange_handoff& args [[buffer(5)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    int _19 = max(args.link_shape0, 0);
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
            int _50 = atomic_exchange_explicit((device atomic_int*)&head.data[0], _8, memory_order_relaxed);
            link.data[_8] = _50;
            uint _71 = atomic_exchange_explicit((device atomic_uint*)&box.data[_8], as_type<uint>(w.data[_8]), memory_order_relaxed);
            _9 += _32;
            continue;
        }
        else
        {
            break;
        }
    }
}

struct exchange_handoff_t2_args_exchange_handoff
{
    int link_shape0;
    int head_shape0;
    int w_shape0;
    int box_shape0;
    int got_shape0;
};

struct exchange_handoff_t2_buf_u32
{
    uint data[1];
};

struct exchange_handoff_t2_buf_f32
{
    float data[1];
};

kernel void exchange_handoff_t2(device exchange_handoff_t2_buf_u32& box [[buffer(3)]], device exchange_handoff_t2_buf_f32& got [[buffer(4)]], constant exchange_handoff_t2_args_exchange_handoff& args [[buffer(5)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    int _19 = max(args.link_shape0, 0);
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
            int _45 = _8 + 1;
            int _59 = ((args.link_shape0 == 0) || ((_45 == int(0x80000000)) && (args.link_shape0 == (-1)))) ? 1 : args.link_shape0;
            int _60 = _45 - _59 * (_45 / _59);
            uint _76 = atomic_exchange_explicit((device atomic_uint*)&box.data[((_60 != 0) && ((_60 ^ _59) < 0)) ? (_60 + _59) : _60], as_type<uint>(0.0), memory_order_relaxed);
            got.data[_8] = as_type<float>(_76);
            _9 += _32;
            continue;
        }
        else
        {
            break;
        }
    }
}
