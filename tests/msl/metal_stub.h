/* metal_stub.h: just enough of the Metal Shading Language, as C++ for clang, to compile qdc's
 * generated .metal files without a Mac (make unit: tests/unit/test_msl_check.c). It checks
 * syntax, types and the MSL-version gates qdc relies on; it is not Apple's header and says
 * nothing about what the Metal compiler or a GPU does.
 *   clang++ -fsyntax-only -std=c++17 -Itests/msl/include -D__METAL_VERSION__=320 x.metal
 * __METAL_VERSION__ is the MSL version the file was generated for (230, 240, 300, 320);
 * QDC_APPLE_FAMILY (7, 8, 9) gates the 64-bit atomics of Apple9.
 * Address spaces: device and constant are clang address spaces 1 and 2, so a device pointer
 * cannot silently become a thread one; threadgroup and thread are empty (plain C++ allows no
 * address space on the automatic variables MSL declares threadgroup). */
#ifndef QDC_METAL_STUB_H
#define QDC_METAL_STUB_H
#ifndef __METAL_VERSION__
#error "define __METAL_VERSION__ (230, 240, 300, 320) to the MSL version of the file"
#endif

#define kernel
#ifdef QDC_METAL_RUN
#define device
#define constant const
#define QDC_BODY(...) { __VA_ARGS__ }
#else
#define device __attribute__((address_space(1)))
#define constant const __attribute__((address_space(2)))
#define QDC_BODY(...) ;
#endif
#define threadgroup
#define thread
#if __METAL_VERSION__ >= 320
#define coherent(scope) /* MSL 3.2: accesses visible across threadgroups */
#endif

namespace metal {
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;
typedef _Float16 half;
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int3 __attribute__((ext_vector_type(3)));
typedef uint uint2 __attribute__((ext_vector_type(2)));
typedef uint uint3 __attribute__((ext_vector_type(3)));
struct float2 { /* Metal's float2(x, y) constructor, as SPIRV-Cross writes PackHalf2x16's operand */
    float x, y;
    float2() = default;
    float2(float a, float b) : x(a), y(b) {}
};
typedef float float3 __attribute__((ext_vector_type(3)));
struct uint4 { /* Metal's uint4(uint2, uint, uint) constructor, as SPIRV-Cross's ballot helper uses it */
    uint x, y, z, w;
    uint4(uint2 v, uint c, uint d) : x(v.x), y(v.y), z(c), w(d) {}
    uint4(uint a, uint b, uint2 v) : x(a), y(b), z(v.x), w(v.y) {} /* the ballot bit-count masks */
    uint operator[](int i) const { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
    uint4 operator&(uint4 o) const { return uint4(x & o.x, y & o.y, uint2{z & o.z, w & o.w}); }
};
template <typename T, uint N> using vec = T __attribute__((ext_vector_type(N)));
/* half2 as SPIRV-Cross writes GLSL.std.450 Pack/UnpackHalf2x16: as_type<uint>(half2(float2)) and
 * float2(as_type<half2>(uint)), converting each component. */
struct half2 {
    half x, y;
    half2() = default;
    explicit half2(float2 v) : x(half(v.x)), y(half(v.y)) {}
    explicit operator float2() const { return float2(float(x), float(y)); }
};

/* ---- conversions and math (those SPIRV-Cross writes for qdc's IR) ---- */
template <typename T, typename U> T as_type(U u) {
    static_assert(sizeof(T) == sizeof(U), "as_type between types of different sizes");
    return __builtin_bit_cast(T, u);
}
template <typename T> T min(T a, T b) { return b < a ? b : a; }
template <typename T> T max(T a, T b) { return a < b ? b : a; }
template <typename T> T select(T a, T b, bool c) { return c ? b : a; }
template <typename T> T abs(T a) { return a < T(0) ? -a : a; }
template <typename T> T clz(T x) { return T(x ? __builtin_clzll((unsigned long long)x) - 8 * (8 - sizeof(T)) : 8 * sizeof(T)); }
template <typename T> T popcount(T x) { return T(__builtin_popcountll((unsigned long long)x)); }
/* bits [offset, offset + bits) of x, shifted down (SPIRV-Cross's ballot bit-count helpers) */
template <typename T> T extract_bits(T x, uint offset, uint bits) {
    unsigned long long v = (unsigned long long)(uint)x >> offset;
    return T(bits >= 32 ? v : v & ((1ull << bits) - 1));
}
float floor(float);
float sqrt(float);
float pow(float, float);
float fmod(float, float);
half floor(half);
half sqrt(half);
template <typename T> bool isnan(T x) { return x != x; } /* Metal's isnan (float and half) */

namespace precise { /* IEEE min/max: a NaN operand loses */
float min(float, float);
float max(float, float);
} // namespace precise

/* ---- synchronization ---- */
enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
inline mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(int(a) | int(b)); }
void threadgroup_barrier(mem_flags);
void simdgroup_barrier(mem_flags);

#if __METAL_VERSION__ >= 320
enum memory_order { memory_order_relaxed, memory_order_seq_cst };
enum thread_scope { thread_scope_thread, thread_scope_simdgroup, thread_scope_threadgroup, thread_scope_device };
void atomic_thread_fence(mem_flags, memory_order, thread_scope = thread_scope_device);
#else
enum memory_order { memory_order_relaxed }; /* the only order of every MSL atomic function */
#endif

/* ---- SIMD-group functions (those SPIRV-Cross writes for OpGroupNonUniform*) ---- */
template <typename T> T simd_sum(T);
template <typename T> T simd_product(T);
template <typename T> T simd_min(T);
template <typename T> T simd_max(T);
template <typename T> T simd_and(T);
template <typename T> T simd_or(T);
template <typename T> T simd_xor(T);
template <typename T> T simd_prefix_inclusive_sum(T);
template <typename T> T simd_prefix_inclusive_product(T);
template <typename T> T simd_prefix_exclusive_sum(T);
template <typename T> T simd_prefix_exclusive_product(T);
template <typename T> T simd_shuffle(T, ushort);
template <typename T> T simd_shuffle_up(T, ushort);
template <typename T> T simd_shuffle_down(T, ushort);
template <typename T> T simd_broadcast(T, ushort);
template <typename T> T simd_broadcast_first(T);
bool simd_all(bool);
bool simd_any(bool);
bool simd_is_first();
struct simd_vote {
    typedef ulong vote_t;
    explicit operator vote_t() const;
};
simd_vote simd_ballot(bool);

/* ---- atomics: atomic_int, atomic_uint (every version), atomic_float (MSL 3.0) ---- */
template <typename T> struct _atomic { T _v; };
typedef _atomic<int> atomic_int;
typedef _atomic<uint> atomic_uint;
#if __METAL_VERSION__ >= 300
typedef _atomic<float> atomic_float;
#endif
#if __METAL_VERSION__ >= 240 && QDC_APPLE_FAMILY >= 9
typedef _atomic<ulong> atomic_ulong;
#endif

#define QDC_RMW1(NAME, BUILTIN, T, Q)                                                     \
    T NAME(Q _atomic<T> *p, T v, memory_order) QDC_BODY(return BUILTIN(&p->_v, v, __ATOMIC_RELAXED);)
#define QDC_ATOMIC_RMW(T, Q)                                                              \
    QDC_RMW1(atomic_fetch_add_explicit, __atomic_fetch_add, T, Q)                         \
    QDC_RMW1(atomic_fetch_sub_explicit, __atomic_fetch_sub, T, Q)                         \
    QDC_RMW1(atomic_fetch_and_explicit, __atomic_fetch_and, T, Q)                         \
    QDC_RMW1(atomic_fetch_or_explicit, __atomic_fetch_or, T, Q)                           \
    QDC_RMW1(atomic_fetch_xor_explicit, __atomic_fetch_xor, T, Q)                         \
    T atomic_fetch_min_explicit(Q _atomic<T> *, T, memory_order);                         \
    T atomic_fetch_max_explicit(Q _atomic<T> *, T, memory_order);
#define QDC_ATOMIC_LS(T, Q)                                                               \
    T atomic_load_explicit(Q _atomic<T> *p, memory_order) QDC_BODY(return __atomic_load_n(&p->_v, __ATOMIC_RELAXED);) \
    void atomic_store_explicit(Q _atomic<T> *p, T v, memory_order) QDC_BODY(__atomic_store_n(&p->_v, v, __ATOMIC_RELAXED);) \
    T atomic_exchange_explicit(Q _atomic<T> *p, T v, memory_order) QDC_BODY(return __atomic_exchange_n(&p->_v, v, __ATOMIC_RELAXED);) \
    bool atomic_compare_exchange_weak_explicit(Q _atomic<T> *p, thread T *e, T d, memory_order, memory_order) \
        QDC_BODY(return __atomic_compare_exchange_n(&p->_v, e, d, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED);)
#ifdef QDC_METAL_RUN
#define QDC_ATOMIC_SPACES(X, T) X(T, ) X(T, volatile)
#else
#define QDC_ATOMIC_SPACES(X, T) X(T, ) X(T, volatile) X(T, device) X(T, volatile device)
#endif
QDC_ATOMIC_SPACES(QDC_ATOMIC_RMW, int)
QDC_ATOMIC_SPACES(QDC_ATOMIC_RMW, uint)
QDC_ATOMIC_SPACES(QDC_ATOMIC_LS, int)
QDC_ATOMIC_SPACES(QDC_ATOMIC_LS, uint)
#if __METAL_VERSION__ >= 300
QDC_ATOMIC_SPACES(QDC_ATOMIC_LS, float)
float atomic_fetch_add_explicit(volatile device atomic_float *, float, memory_order);
#endif
#if __METAL_VERSION__ >= 240 && QDC_APPLE_FAMILY >= 9
/* Apple9: 64-bit min/max on device memory, no result [capabilities.md M3/M4] */
void atomic_min_explicit(volatile device atomic_ulong *, ulong, memory_order);
void atomic_max_explicit(volatile device atomic_ulong *, ulong, memory_order);
#endif
} // namespace metal
#endif
