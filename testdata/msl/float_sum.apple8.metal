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
        if (_32 < 1)
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
    int _21 = max(args.x_shape0, 0);
    int _28 = int(gl_GlobalInvocationID.x);
    int _11 = _28;
    int _34 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _40 = _11;
        if (_40 < _21)
        {
            int _9 = _40;
            int _10 = _9;
            float _51 = x.data[_10];
            uint _60 = atomic_load_explicit((device atomic_uint*)&_out.data[0], memory_order_relaxed);
            uint _65;
            _65 = _60;
            uint _66;
            for (;;)
            {
                float _67 = as_type<float>(_65);
                float _68 = _67 + _51;
                uint _69 = as_type<uint>(_68);
                do
                {
                    _66 = _65;
                } while (!atomic_compare_exchange_weak_explicit((device atomic_uint*)&_out.data[0], &_66, _69, memory_order_relaxed, memory_order_relaxed) && _66 == _65);
                if (_66 == _65)
                {
                    break;
                }
                else
                {
                    _65 = _66;
                    continue;
                }
            }
            float _74 = x.data[_10];
            float _77 = x.data[_10];
            float _78 = _74 * _77;
            uint _81 = atomic_load_explicit((device atomic_uint*)&_out.data[1], memory_order_relaxed);
            uint _86;
            _86 = _81;
            uint _87;
            for (;;)
            {
                float _88 = as_type<float>(_86);
                float _89 = _88 + _78;
                uint _90 = as_type<uint>(_89);
                do
                {
                    _87 = _86;
                } while (!atomic_compare_exchange_weak_explicit((device atomic_uint*)&_out.data[1], &_87, _90, memory_order_relaxed, memory_order_relaxed) && _87 == _86);
                if (_87 == _86)
                {
                    break;
                }
                else
                {
                    _86 = _87;
                    continue;
                }
            }
            _11 += _34;
            continue;
        }
        else
        {
            break;
        }
    }
}
