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
    int _23 = max(args.link_shape0, 0);
    int _30 = int(gl_GlobalInvocationID.x);
    int _13 = _30;
    int _36 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _42 = _13;
        if (uint(_42) < uint(_23))
        {
            int _6 = _42;
            int _8 = _6;
            box.data[_8] = as_type<uint>(0.0);
            if (_8 == 0)
            {
                head.data[0] = -1;
            }
            _13 += _36;
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
    int _23 = max(args.link_shape0, 0);
    int _30 = int(gl_GlobalInvocationID.x);
    int _13 = _30;
    int _36 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _42 = _13;
        if (uint(_42) < uint(_23))
        {
            int _9 = _42;
            int _10 = _9;
            int _54 = atomic_exchange_explicit((device atomic_int*)&head.data[0], _10, memory_order_relaxed);
            link.data[_10] = _54;
            uint _75 = atomic_exchange_explicit((device atomic_uint*)&box.data[_10], as_type<uint>(w.data[_10]), memory_order_relaxed);
            _13 += _36;
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
    int _23 = max(args.link_shape0, 0);
    int _30 = int(gl_GlobalInvocationID.x);
    int _13 = _30;
    int _36 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _42 = _13;
        if (uint(_42) < uint(_23))
        {
            int _11 = _42;
            int _12 = _11;
            int _49 = _12 + 1;
            int _63 = ((args.link_shape0 == 0) || ((_49 == int(0x80000000)) && (args.link_shape0 == (-1)))) ? 1 : args.link_shape0;
            int _64 = _49 - _63 * (_49 / _63);
            uint _80 = atomic_exchange_explicit((device atomic_uint*)&box.data[((_64 != 0) && ((_64 ^ _63) < 0)) ? (_64 + _63) : _64], as_type<uint>(0.0), memory_order_relaxed);
            got.data[_12] = as_type<float>(_80);
            _13 += _36;
            continue;
        }
        else
        {
            break;
        }
    }
}
