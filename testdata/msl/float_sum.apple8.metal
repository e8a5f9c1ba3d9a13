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
    int _18 = int(gl_GlobalInvocationID.x);
    int _9 = _18;
    int _24 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _30 = _9;
        if (uint(_30) < uint(1))
        {
            int _6 = _30;
            int _8 = _6;
            _out.data[0] = as_type<uint>(0.0);
            _out.data[1] = as_type<uint>(0.0);
            _9 += _24;
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
    float _11 = -0.0;
    float _14 = -0.0;
    int _24 = max(args.x_shape0, 0);
    int _31 = int(gl_GlobalInvocationID.x);
    int _9 = _31;
    int _37 = int(gl_NumWorkGroups.x) * 128;
    for (;;)
    {
        int _43 = _9;
        if (uint(_43) < uint(_24))
        {
            int _6 = _43;
            int _8 = _6;
            _11 += x.data[_8];
            _14 += (x.data[_8] * x.data[_8]);
            _9 += _37;
            continue;
        }
        else
        {
            break;
        }
    }
    float _75 = simd_sum(_11);
    bool _76 = simd_is_first();
    if (_76)
    {
        uint _82 = atomic_load_explicit((device atomic_uint*)&_out.data[0], memory_order_relaxed);
        uint _87;
        _87 = _82;
        uint _88;
        for (;;)
        {
            float _89 = as_type<float>(_87);
            float _90 = _89 + _75;
            uint _91 = as_type<uint>(_90);
            do
            {
                _88 = _87;
            } while (!atomic_compare_exchange_weak_explicit((device atomic_uint*)&_out.data[0], &_88, _91, memory_order_relaxed, memory_order_relaxed) && _88 == _87);
            if (_88 == _87)
            {
                break;
            }
            else
            {
                _87 = _88;
                continue;
            }
        }
    }
    float _97 = simd_sum(_14);
    bool _98 = simd_is_first();
    if (_98)
    {
        uint _102 = atomic_load_explicit((device atomic_uint*)&_out.data[1], memory_order_relaxed);
        uint _107;
        _107 = _102;
        uint _108;
        for (;;)
        {
            float _109 = as_type<float>(_107);
            float _110 = _109 + _97;
            uint _111 = as_type<uint>(_110);
            do
            {
                _108 = _107;
            } while (!atomic_compare_exchange_weak_explicit((device atomic_uint*)&_out.data[1], &_108, _111, memory_order_relaxed, memory_order_relaxed) && _108 == _107);
            if (_108 == _107)
            {
                break;
            }
            else
            {
                _107 = _108;
                continue;
            }
        }
    }
}
