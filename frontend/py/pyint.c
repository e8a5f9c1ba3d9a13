/* Python ints (pyint.h): magnitudes are arrays of 32-bit limbs, least significant first, with
 * 64-bit intermediates; division is Knuth's algorithm D. Signed operators are written on the
 * magnitudes, the bitwise ones through a two's-complement image one limb wider than either
 * operand, as Python defines them on negative values. */
#include "pyint.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct PyInt {
    int sign;     /* -1, 0 (then n == 0) or 1 */
    uint32_t n;   /* limbs; the top one is nonzero */
    uint32_t d[]; /* the magnitude */
};

#define MAX_LIMBS ((uint64_t)1 << 28) /* 1 GiB: past any budget; keeps the size arithmetic exact */

static const PyInt zero = {0, 0}, one = {1, 1, {1}}, minus_one = {-1, 1, {1}};
#define SHARED(x) ((PyInt *)&(x)) /* the constants are never written: values are immutable */

/* ---- budget and allocation ---- */

static bool charge(PyIntCtx *c, EvalLimit which, uint64_t units) {
    if (!c->budget) return true;
    if (budget_charge(c->budget, which, units > INT64_MAX ? INT64_MAX : (int64_t)units, c->at)) return true;
    c->err = PYINT_BUDGET;
    return false;
}

/* Work proportional to the product of two lengths in limbs: one step per 1024 limb products. */
static bool charge_work(PyIntCtx *c, uint64_t na, uint64_t nb) { return charge(c, EB_STEPS, na * nb >> 10); }

/* Whether a result of `bytes` can be made, without charging: a bound checked before the work. */
static bool room(PyIntCtx *c, uint64_t bytes) {
    bool fits = bytes <= MAX_LIMBS * 4 && (!c->budget || (int64_t)bytes <= c->budget->limit[EB_SIZE] - c->budget->used[EB_SIZE]);
    if (!fits) {
        charge(c, EB_SIZE, c->budget ? INT64_MAX : 0);
        c->err = PYINT_BUDGET;
    }
    return fits;
}

static PyInt *alloc(PyIntCtx *c, uint64_t n) { /* room for n limbs, zeroed */
    if (n > MAX_LIMBS) return room(c, UINT64_MAX), NULL;
    if (n > 2 && !charge(c, EB_SIZE, 4 * n)) return NULL; /* 64 bits and less: what every constant costs */
    PyInt *r = arena_alloc(c->arena, sizeof *r + 4 * n);
    r->n = (uint32_t)n;
    return r;
}

static PyInt *norm(PyInt *r, int sign) {
    while (r->n && !r->d[r->n - 1]) r->n--;
    r->sign = r->n ? sign : 0;
    return r;
}

static PyInt *with_sign(PyIntCtx *c, const PyInt *a, int sign) {
    if (a->sign == sign || !a->sign) return (PyInt *)a;
    PyInt *r = alloc(c, a->n);
    if (!r) return NULL;
    memcpy(r->d, a->d, 4 * (size_t)a->n);
    return norm(r, sign);
}

PyInt *pyint_from_u64(PyIntCtx *c, uint64_t v) {
    PyInt *r = alloc(c, 2);
    if (!r) return NULL;
    r->d[0] = (uint32_t)v, r->d[1] = (uint32_t)(v >> 32);
    return norm(r, 1);
}

PyInt *pyint_from_i64(PyIntCtx *c, int64_t v) {
    PyInt *r = pyint_from_u64(c, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    return r && v < 0 ? norm(r, -1) : r;
}

/* ---- magnitudes ---- */

static int mag_cmp(const PyInt *a, const PyInt *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (uint32_t i = a->n; i-- > 0;)
        if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

static PyInt *mag_add(PyIntCtx *c, const PyInt *a, const PyInt *b, int sign) {
    if (a->n < b->n) {
        const PyInt *t = a;
        a = b, b = t;
    }
    PyInt *r = alloc(c, (uint64_t)a->n + 1);
    if (!r) return NULL;
    uint64_t carry = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        carry += (uint64_t)a->d[i] + (i < b->n ? b->d[i] : 0);
        r->d[i] = (uint32_t)carry;
        carry >>= 32;
    }
    r->d[a->n] = (uint32_t)carry;
    return norm(r, sign);
}

static PyInt *mag_sub(PyIntCtx *c, const PyInt *a, const PyInt *b, int sign) { /* |a| >= |b| */
    PyInt *r = alloc(c, a->n);
    if (!r) return NULL;
    uint64_t borrow = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        uint64_t x = (uint64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        r->d[i] = (uint32_t)x;
        borrow = x >> 63;
    }
    return norm(r, sign);
}

/* a + sb * b, where sb is b's sign or its opposite */
static PyInt *add_signed(PyIntCtx *c, const PyInt *a, const PyInt *b, int sb) {
    if (!sb) return (PyInt *)a;
    if (!a->sign) return with_sign(c, b, sb);
    if (a->sign == sb) return mag_add(c, a, b, sb);
    int k = mag_cmp(a, b);
    return !k ? SHARED(zero) : k > 0 ? mag_sub(c, a, b, a->sign) : mag_sub(c, b, a, sb);
}

PyInt *pyint_add(PyIntCtx *c, const PyInt *a, const PyInt *b) { return add_signed(c, a, b, b->sign); }
PyInt *pyint_sub(PyIntCtx *c, const PyInt *a, const PyInt *b) { return add_signed(c, a, b, -b->sign); }
PyInt *pyint_neg(PyIntCtx *c, const PyInt *a) { return with_sign(c, a, -a->sign); }
PyInt *pyint_abs(PyIntCtx *c, const PyInt *a) { return with_sign(c, a, a->sign ? 1 : 0); }
PyInt *pyint_invert(PyIntCtx *c, const PyInt *a) {
    PyInt *r = pyint_add(c, a, &one);
    return r ? pyint_neg(c, r) : NULL;
}

PyInt *pyint_mul(PyIntCtx *c, const PyInt *a, const PyInt *b) {
    if (!a->sign || !b->sign) return SHARED(zero);
    if (!charge_work(c, a->n, b->n)) return NULL;
    PyInt *r = alloc(c, (uint64_t)a->n + b->n);
    if (!r) return NULL;
    for (uint32_t i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (uint32_t j = 0; j < b->n; j++) {
            uint64_t t = (uint64_t)a->d[i] * b->d[j] + r->d[i + j] + carry;
            r->d[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        r->d[i + b->n] = (uint32_t)carry;
    }
    return norm(r, a->sign * b->sign);
}

/* |a| = q |b| + r with 0 <= r < |b|, b != 0 (Knuth, TAOCP 4.3.1, algorithm D). */
static bool mag_divmod(PyIntCtx *c, const PyInt *a, const PyInt *b, PyInt **q, PyInt **r) {
    if (mag_cmp(a, b) < 0) return *q = SHARED(zero), *r = with_sign(c, a, a->sign ? 1 : 0), *r != NULL;
    uint32_t na = a->n, nb = b->n;
    if (!charge_work(c, na, nb) || !(*q = alloc(c, na - nb + 1)) || !(*r = alloc(c, nb))) return false;
    if (nb == 1) { /* one limb: short division */
        uint64_t rem = 0;
        for (uint32_t i = na; i-- > 0;) {
            uint64_t cur = rem << 32 | a->d[i];
            (*q)->d[i] = (uint32_t)(cur / b->d[0]);
            rem = cur % b->d[0];
        }
        (*r)->d[0] = (uint32_t)rem;
        return norm(*q, 1), norm(*r, 1), true;
    }
    int s = __builtin_clz(b->d[nb - 1]); /* normalize: the divisor's top bit set */
    uint32_t *v = xmalloc(4 * (size_t)nb), *u = xmalloc(4 * ((size_t)na + 1));
    for (uint32_t i = nb - 1; i > 0; i--) v[i] = b->d[i] << s | (s ? (uint32_t)((uint64_t)b->d[i - 1] >> (32 - s)) : 0);
    v[0] = b->d[0] << s;
    u[na] = s ? (uint32_t)((uint64_t)a->d[na - 1] >> (32 - s)) : 0;
    for (uint32_t i = na - 1; i > 0; i--) u[i] = a->d[i] << s | (s ? (uint32_t)((uint64_t)a->d[i - 1] >> (32 - s)) : 0);
    u[0] = a->d[0] << s;
    const uint64_t B = (uint64_t)1 << 32;
    for (uint32_t j = na - nb + 1; j-- > 0;) {
        uint64_t top = (uint64_t)u[j + nb] << 32 | u[j + nb - 1];
        uint64_t qhat = top / v[nb - 1], rhat = top % v[nb - 1];
        while (qhat >= B || qhat * v[nb - 2] > (rhat << 32 | u[j + nb - 2])) {
            qhat--, rhat += v[nb - 1];
            if (rhat >= B) break;
        }
        int64_t k = 0, t;
        for (uint32_t i = 0; i < nb; i++) { /* u[j..j+nb] -= qhat * v */
            uint64_t p = qhat * v[i];
            t = (int64_t)u[i + j] - k - (int64_t)(p & 0xFFFFFFFFu);
            u[i + j] = (uint32_t)t;
            k = (int64_t)(p >> 32) - (t >> 32);
        }
        t = (int64_t)u[j + nb] - k;
        u[j + nb] = (uint32_t)t;
        if (t < 0) { /* qhat was one too large: add v back */
            qhat--;
            uint64_t carry = 0;
            for (uint32_t i = 0; i < nb; i++) {
                carry += (uint64_t)u[i + j] + v[i];
                u[i + j] = (uint32_t)carry;
                carry >>= 32;
            }
            u[j + nb] += (uint32_t)carry;
        }
        (*q)->d[j] = (uint32_t)qhat;
    }
    for (uint32_t i = 0; i < nb; i++) (*r)->d[i] = u[i] >> s | (s ? (uint32_t)((uint64_t)u[i + 1] << (32 - s)) : 0);
    free(u), free(v);
    return norm(*q, 1), norm(*r, 1), true;
}

/* Python's divmod: the quotient rounded toward minus infinity, the remainder with b's sign. */
bool pyint_divmod(PyIntCtx *c, const PyInt *a, const PyInt *b, PyInt **q, PyInt **r) {
    if (!b->sign) return c->err = PYINT_ZERODIV, false;
    if (!mag_divmod(c, a, b, q, r)) return false;
    if (a->sign && a->sign != b->sign) {
        if ((*r)->sign && (!(*q = pyint_add(c, *q, &one)) || !(*r = mag_sub(c, b, *r, 1)))) return false;
        if (!(*q = pyint_neg(c, *q))) return false;
    }
    return b->sign < 0 ? (*r = pyint_neg(c, *r)) != NULL : true;
}

PyInt *pyint_floordiv(PyIntCtx *c, const PyInt *a, const PyInt *b) {
    PyInt *q, *r;
    return pyint_divmod(c, a, b, &q, &r) ? q : NULL;
}

PyInt *pyint_mod(PyIntCtx *c, const PyInt *a, const PyInt *b) {
    PyInt *q, *r;
    return pyint_divmod(c, a, b, &q, &r) ? r : NULL;
}

/* ---- powers and shifts ---- */

uint64_t pyint_bit_length(const PyInt *a) {
    return a->n ? 32 * (uint64_t)(a->n - 1) + (uint64_t)(32 - __builtin_clz(a->d[a->n - 1])) : 0;
}

PyInt *pyint_pow(PyIntCtx *c, const PyInt *a, const PyInt *b) {
    if (b->sign < 0) return c->err = PYINT_NEGPOW, NULL;
    if (!b->sign) return SHARED(one);
    if (!a->sign || (a->n == 1 && a->d[0] == 1)) return a->sign < 0 && !(b->d[0] & 1) ? SHARED(one) : (PyInt *)a;
    uint64_t e, k = pyint_bit_length(a) - 1; /* |a| >= 2: the result has more than k * e bits */
    if (!pyint_to_u64(b, &e) || e > UINT64_MAX / k || !room(c, k * e / 8)) return room(c, UINT64_MAX), NULL;
    PyInt *r = SHARED(one);
    for (int bit = 63 - __builtin_clzll(e); bit >= 0; bit--) {
        if (!(r = pyint_mul(c, r, r))) return NULL;
        if ((e >> bit & 1) && !(r = pyint_mul(c, r, a))) return NULL;
    }
    return r;
}

/* |a| >> k, k < bit_length(a) */
static PyInt *mag_shr(PyIntCtx *c, const PyInt *a, uint64_t k) {
    uint32_t limbs = (uint32_t)(k / 32), bits = (uint32_t)(k % 32);
    PyInt *r = alloc(c, a->n - limbs);
    if (!r) return NULL;
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t w = a->d[i + limbs] | (i + limbs + 1 < a->n ? (uint64_t)a->d[i + limbs + 1] << 32 : 0);
        r->d[i] = (uint32_t)(w >> bits);
    }
    return norm(r, 1);
}

PyInt *pyint_shl(PyIntCtx *c, const PyInt *a, const PyInt *b) {
    if (b->sign < 0) return c->err = PYINT_NEGSHIFT, NULL;
    if (!a->sign || !b->sign) return (PyInt *)a;
    uint64_t k;
    if (!pyint_to_u64(b, &k) || k > MAX_LIMBS * 32 || !room(c, (pyint_bit_length(a) + k) / 8)) return room(c, UINT64_MAX), NULL;
    uint32_t limbs = (uint32_t)(k / 32), bits = (uint32_t)(k % 32);
    PyInt *r = alloc(c, (uint64_t)a->n + limbs + 1);
    if (!r) return NULL;
    for (uint32_t i = 0; i < a->n; i++) {
        uint64_t w = (uint64_t)a->d[i] << bits;
        r->d[i + limbs] |= (uint32_t)w;
        r->d[i + limbs + 1] = (uint32_t)(w >> 32);
    }
    return norm(r, a->sign);
}

/* Python's >> rounds toward minus infinity: -((|a| - 1) >> k) - 1 for a < 0. */
PyInt *pyint_shr(PyIntCtx *c, const PyInt *a, const PyInt *b) {
    if (b->sign < 0) return c->err = PYINT_NEGSHIFT, NULL;
    uint64_t k;
    if (!pyint_to_u64(b, &k) || k >= pyint_bit_length(a)) return a->sign < 0 ? SHARED(minus_one) : SHARED(zero);
    if (!k) return (PyInt *)a;
    if (a->sign > 0) return mag_shr(c, a, k);
    PyInt *m = mag_sub(c, a, &one, 1);
    if (!m) return NULL;
    if (!m->sign) return SHARED(minus_one);
    if (k >= pyint_bit_length(m)) return SHARED(minus_one);
    PyInt *r = mag_shr(c, m, k);
    return r ? mag_add(c, r, &one, -1) : NULL;
}

/* ---- bitwise operators, on two's-complement images ---- */

static void twos(const PyInt *a, uint32_t *out, uint32_t w) {
    memset(out, 0, 4 * (size_t)w);
    memcpy(out, a->d, 4 * (size_t)a->n);
    if (a->sign >= 0) return;
    uint64_t carry = 1;
    for (uint32_t i = 0; i < w; i++) {
        carry += (uint32_t)~out[i];
        out[i] = (uint32_t)carry;
        carry >>= 32;
    }
}

static PyInt *bitwise(PyIntCtx *c, const PyInt *a, const PyInt *b, char op) {
    uint32_t w = (a->n > b->n ? a->n : b->n) + 1;
    PyInt *r = alloc(c, w);
    if (!r) return NULL;
    uint32_t *x = xmalloc(4 * (size_t)w), *y = xmalloc(4 * (size_t)w);
    twos(a, x, w), twos(b, y, w);
    for (uint32_t i = 0; i < w; i++) r->d[i] = op == '&' ? x[i] & y[i] : op == '|' ? x[i] | y[i] : x[i] ^ y[i];
    free(x), free(y);
    if (!(r->d[w - 1] >> 31)) return norm(r, 1);
    uint64_t carry = 1; /* negative: the magnitude is ~r + 1 */
    for (uint32_t i = 0; i < w; i++) {
        carry += (uint32_t)~r->d[i];
        r->d[i] = (uint32_t)carry;
        carry >>= 32;
    }
    return norm(r, -1);
}

PyInt *pyint_and(PyIntCtx *c, const PyInt *a, const PyInt *b) { return bitwise(c, a, b, '&'); }
PyInt *pyint_or(PyIntCtx *c, const PyInt *a, const PyInt *b) { return bitwise(c, a, b, '|'); }
PyInt *pyint_xor(PyIntCtx *c, const PyInt *a, const PyInt *b) { return bitwise(c, a, b, '^'); }

/* ---- comparisons and conversions ---- */

int pyint_sign(const PyInt *a) { return a->sign; }

int pyint_cmp(const PyInt *a, const PyInt *b) {
    if (a->sign != b->sign) return a->sign < b->sign ? -1 : 1;
    return a->sign * mag_cmp(a, b);
}

static uint64_t low64(const PyInt *a) { return (a->n > 0 ? a->d[0] : 0) | (a->n > 1 ? (uint64_t)a->d[1] << 32 : 0); }

bool pyint_to_u64(const PyInt *a, uint64_t *out) {
    if (a->sign < 0 || a->n > 2) return false;
    return *out = low64(a), true;
}

bool pyint_to_i64(const PyInt *a, int64_t *out) {
    uint64_t m = low64(a);
    if (a->n > 2 || m > (uint64_t)INT64_MAX + (a->sign < 0)) return false;
    return *out = a->sign < 0 ? (int64_t)(0 - m) : (int64_t)m, true;
}

bool pyint_to_i128(const PyInt *a, __int128 *out) {
    if (pyint_bit_length(a) > 126) return false;
    unsigned __int128 m = 0;
    for (uint32_t i = a->n; i-- > 0;) m = m << 32 | a->d[i];
    return *out = a->sign < 0 ? -(__int128)m : (__int128)m, true;
}

/* The top 55 bits with every bit below them or-ed into the last, converted by the hardware:
 * rounding 55 bits to 53 then gives the correctly rounded double (CPython does the same). */
bool pyint_to_double(const PyInt *a, double *out) {
    uint64_t len = pyint_bit_length(a);
    if (len <= 64) return *out = a->sign * (double)low64(a), true;
    if (len > 1024) return false;
    uint64_t shift = len - 55, li = shift / 32, off = shift % 32;
    unsigned __int128 w = 0;
    for (uint64_t i = 0; i < 3 && li + i < a->n; i++) w |= (unsigned __int128)a->d[li + i] << (32 * i);
    uint64_t q = (uint64_t)(w >> off) & (((uint64_t)1 << 55) - 1);
    bool sticky = off && (a->d[li] & (((uint32_t)1 << off) - 1));
    for (uint64_t i = 0; i < li && !sticky; i++) sticky = a->d[i] != 0;
    double d = ldexp((double)(q | sticky), (int)shift);
    if (isinf(d)) return false;
    return *out = a->sign * d, true;
}

static int digit_value(char ch) {
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10 : 99;
}

static bool is_space(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

PyInt *pyint_parse(PyIntCtx *c, const char *s, size_t len, int base) {
    c->err = PYINT_SYNTAX;
    if (base != 0 && (base < 2 || base > 36)) return NULL;
    const char *p = s, *end = s + len;
    while (p < end && is_space(*p)) p++;
    while (end > p && is_space(end[-1])) end--;
    int sign = 1;
    if (p < end && (*p == '+' || *p == '-')) sign = *p++ == '-' ? -1 : 1;
    bool prefixed = false;
    if (end - p >= 2 && p[0] == '0') {
        char x = (char)(p[1] | 0x20);
        int b = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 0;
        if (b && (base == 0 || base == b)) base = b, p += 2, prefixed = true;
    }
    bool decimal0 = base == 0; /* a literal: 012 is not a number, 00 is */
    if (!base) base = 10;
    size_t ndigits = 0;
    bool nonzero = false;
    for (const char *q = p; q < end; q++) {
        if (*q == '_') { /* one between digits, or right after a prefix */
            if (q + 1 == end || q[1] == '_' || (q == p && !prefixed)) return NULL;
            continue;
        }
        int v = digit_value(*q);
        if (v >= base) return NULL;
        nonzero |= v != 0;
        ndigits++;
    }
    if (!ndigits || (decimal0 && !prefixed && nonzero && *p == '0')) return NULL;
    /* digits are taken in chunks whose value fits one limb: r = r * base^k + chunk */
    uint64_t bits = 1;
    while (((uint64_t)1 << bits) < (uint64_t)base) bits++;
    uint64_t limbs = ndigits * bits / 32 + 1;
    if (!room(c, 4 * limbs) || !charge_work(c, limbs, ndigits / 6 + 1)) return NULL;
    PyInt *r = alloc(c, limbs);
    if (!r) return NULL;
    uint32_t n = 0;
    for (const char *q = p; q < end;) {
        uint64_t chunk = 0, mul = 1;
        for (; q < end && mul * (uint64_t)base <= UINT32_MAX; q++)
            if (*q != '_') chunk = chunk * (uint64_t)base + (uint64_t)digit_value(*q), mul *= (uint64_t)base;
        uint64_t carry = chunk;
        for (uint32_t i = 0; i < n; i++) {
            carry += (uint64_t)r->d[i] * mul;
            r->d[i] = (uint32_t)carry;
            carry >>= 32;
        }
        if (carry) r->d[n++] = (uint32_t)carry;
    }
    c->err = PYINT_OK;
    r->n = n;
    return norm(r, sign);
}

char *pyint_str(PyIntCtx *c, const PyInt *a, int base) {
    int shift = base == 16 ? 4 : base == 8 ? 3 : base == 2 ? 1 : 0;
    uint64_t len = pyint_bit_length(a), ndigits;
    if (shift) ndigits = len ? (len + (uint64_t)shift - 1) / (uint64_t)shift : 1;
    else ndigits = len * 30103 / 100000 + 1; /* log10(2) < 0.30103: at most this many */
    if (!room(c, ndigits + 4) || !charge(c, EB_SIZE, ndigits + 4) || (!shift && !charge_work(c, a->n, a->n / 2 + 1))) return NULL;
    char *out = arena_alloc(c->arena, ndigits + 4), *p = out + ndigits + 3;
    *p = 0;
    if (shift) {
        for (uint64_t k = 0; k < ndigits; k++) {
            uint64_t bit = k * (uint64_t)shift, li = bit / 32;
            uint64_t w = (li < a->n ? a->d[li] : 0) | (li + 1 < a->n ? (uint64_t)a->d[li + 1] << 32 : 0);
            *--p = "0123456789abcdef"[(w >> (bit % 32)) & (uint64_t)(base - 1)];
        }
        *--p = base == 16 ? 'x' : base == 8 ? 'o' : 'b';
        *--p = '0';
    } else if (!a->sign) {
        *--p = '0';
    } else { /* repeated division by 10^9 of a copy */
        uint32_t n = a->n, *w = xmalloc(4 * (size_t)n);
        memcpy(w, a->d, 4 * (size_t)n);
        while (n) {
            uint64_t rem = 0;
            for (uint32_t i = n; i-- > 0;) {
                uint64_t cur = rem << 32 | w[i];
                w[i] = (uint32_t)(cur / 1000000000u);
                rem = cur % 1000000000u;
            }
            while (n && !w[n - 1]) n--;
            for (int k = 0; k < 9 && (n || rem); k++) *--p = (char)('0' + rem % 10), rem /= 10;
        }
        free(w);
    }
    if (a->sign < 0) *--p = '-';
    return p;
}
