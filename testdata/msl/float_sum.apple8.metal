#pragma clang diagnostic ignored "-Wunused-variable"

#include <metal_stdlib>
#include <simd/simd.h>
#include <metal_atomic>

using namespace metal;

struct float_sum_t0_buf_u32
{
    uint data[1];
};

kernel void float_sum_t0(device float_sum_t0_buf_u32& _out [[buffer(1)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    int _20 = int(gl_GlobalInvocationID.x);
    int _11 = _20;
    int _26 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _32 = _11;
        if (uint(_32) < uint(1))
        {
            int _6 = _32;
            int _8 = _6;
            _out.data[0] = as_type<uint>(0.0);
            _out.data[1] = as_type<uint>(0.0);
            _11 += _26;
            continue;
        }
        else
        {
            break;
        }
    }
}

struct float_sum_t1_args_float_sum
{
    int x_shape0;
    int out_shape0;
};

struct float_sum_t1_buf_f32
{
    float data[1];
};

struct float_sum_t1_buf_u32
{
    uint data[1];
};

kernel void float_sum_t1(device float_sum_t1_buf_f32& x [[buffer(0)]], device float_sum_t1_buf_u32& _out [[buffer(1)]], constant float_sum_t1_args_float_sum& args [[buffer(2)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]])
{
    float _13 = -0.0;
    float _16 = -0.0;
    int _26 = max(args.x_shape0, 0);
    int _33 = int(gl_GlobalInvocationID.x);
    int _11 = _33;
    int _39 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _45 = _11;
        if (uint(_45) < uint(_26))
        {
            int _9 = _45;
            int _10 = _9;
            _13 += x.data[_10];
            _16 += (x.data[_10] * x.data[_10]);
            _11 += _39;
            continue;
        }
        else
        {
            break;
        }
    }
    float _77 = simd_sum(_13);
    bool _78 = simd_is_first();
    if (_78)
    {
        uint _84 = atomic_load_explicit((device atomic_uint*)&_out.data[0], memory_order_relaxed);
        uint _89;
        _89 = _84;
        uint _90;
        for (;;)
        {
            float _91 = as_type<float>(_89);
            float _92 = _91 + _77;
            uint _93 = as_type<uint>(_92);
            do
            {
                _90 = _89;
            } while (!atomic_compare_exchange_weak_explicit((device atomic_uint*)&_out.data[0], &_90, _93, memory_order_relaxed, memory_order_relaxed) && _90 == _89);
            if (_90 == _89)
            {
                break;
            }
            else
            {
                _89 = _90;
                continue;
            }
        }
    }
    float _99 = simd_sum(_16);
    bool _100 = simd_is_first();
    if (_100)
    {
        uint _104 = atomic_load_explicit((device atomic_uint*)&_out.data[1], memory_order_relaxed);
        uint _109;
        _109 = _104;
        uint _110;
        for (;;)
        {
            float _111 = as_type<float>(_109);
            float _112 = _111 + _99;
            uint _113 = as_type<uint>(_112);
            do
            {
                _110 = _109;
            } while (!atomic_compare_exchange_weak_explicit((device atomic_uint*)&_out.data[1], &_110, _113, memory_order_relaxed, memory_order_relaxed) && _110 == _109);
            if (_110 == _109)
            {
                break;
            }
            else
            {
                _109 = _110;
                continue;
            }
        }
    }
}
