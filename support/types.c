/* Tables for the shared vocabulary in types.h, and Quadrants' type promotion. */
#include "types.h"
#include <string.h>

static const struct { const char *name; int bits; QdTypeKind kind; } type_info[QT_COUNT] = {
    [QT_VOID] = {"void", 0, K_VOID},
#define X(e, n, b, k) [QT_##e] = {n, b, k},
#include "types.def"
#undef X
};
_Static_assert(QT_COUNT == 14, "types.def rows and QT_COUNT disagree");

const char *qt_name(QdType t) { return (unsigned)t < QT_COUNT ? type_info[t].name : "?"; }
int qt_bits(QdType t) { return (unsigned)t < QT_COUNT ? type_info[t].bits : 0; }
QdTypeKind qt_kind(QdType t) { return (unsigned)t < QT_COUNT ? type_info[t].kind : K_VOID; }
bool qt_is_int(QdType t) { return qt_kind(t) == K_SINT || qt_kind(t) == K_UINT; }
bool qt_is_integral(QdType t) { return qt_is_int(t) || qt_kind(t) == K_BOOL; }
bool qt_is_float(QdType t) { return qt_kind(t) == K_FLOAT; }
bool qt_is_signed(QdType t) { return qt_kind(t) == K_SINT || qt_kind(t) == K_FLOAT; }

/* Long aliases accepted after "qd." (python/quadrants/types/primitive_types.py). */
static const struct { const char *alias; QdType t; } aliases[] = {
    {"int8", QT_I8},     {"int16", QT_I16},   {"int32", QT_I32},     {"int64", QT_I64},
    {"uint8", QT_U8},    {"uint16", QT_U16},  {"uint32", QT_U32},    {"uint64", QT_U64},
    {"float16", QT_F16}, {"float32", QT_F32}, {"float64", QT_F64},   {"uint1", QT_U1},
    {"bfloat16", QT_BF16},
};

QdType qt_from_name(const char *name) {
    for (int t = 1; t < QT_COUNT; t++)
        if (strcmp(type_info[t].name, name) == 0) return (QdType)t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, name) == 0) return aliases[i].t;
    return QT_VOID;
}

/* real beats integral; more bits beat fewer; at equal width unsigned beats signed;
 * on a tie the right-hand operand wins. */
QdType qt_promote(QdType a, QdType b) {
    bool fa = qt_is_float(a), fb = qt_is_float(b);
    if (fa != fb) return fa ? a : b;
    if (qt_bits(a) != qt_bits(b)) return qt_bits(a) > qt_bits(b) ? a : b;
    if (!fa) {
        bool ua = qt_kind(a) == K_UINT || qt_kind(a) == K_BOOL;
        bool ub = qt_kind(b) == K_UINT || qt_kind(b) == K_BOOL;
        if (ua != ub) return ua ? a : b;
    }
    return b;
}

QdType qt_int_of_width(int bits, bool is_signed) {
    switch (bits) {
    case 8: return is_signed ? QT_I8 : QT_U8;
    case 16: return is_signed ? QT_I16 : QT_U16;
    case 32: return is_signed ? QT_I32 : QT_U32;
    case 64: return is_signed ? QT_I64 : QT_U64;
    default: return QT_VOID;
    }
}

QdType qt_uint_same_width(QdType t) { return qt_int_of_width(qt_bits(t) < 8 ? 8 : qt_bits(t), false); }

static const struct { const char *name; int operands; } op_info[QOP_COUNT] = {
#define X(e, n, k) [QOP_##e] = {n, k},
#include "ops.def"
#undef X
};
_Static_assert(QOP_COUNT == 14, "ops.def rows and QOP_COUNT disagree");

const char *qop_name(QdOp op) { return (unsigned)op < QOP_COUNT ? op_info[op].name : "?"; }
int qop_operands(QdOp op) { return (unsigned)op < QOP_COUNT ? op_info[op].operands : 0; }
QdOp qop_from_name(const char *name) {
    for (int i = 0; i < QOP_COUNT; i++)
        if (strcmp(op_info[i].name, name) == 0) return (QdOp)i;
    return QOP_COUNT;
}

static const char *const order_names[QORD_COUNT] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
static const char *const scope_names[QSCOPE_COUNT] = {"block", "cluster", "device", "system"};
static const char *const space_names[QSPACE_COUNT] = {"global", "shared"};

static int find_name(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}
const char *qord_name(QdOrder o) { return (unsigned)o < QORD_COUNT ? order_names[o] : "?"; }
const char *qscope_name(QdScope s) { return (unsigned)s < QSCOPE_COUNT ? scope_names[s] : "?"; }
const char *qspace_name(QdSpace s) { return (unsigned)s < QSPACE_COUNT ? space_names[s] : "?"; }
int qord_from_name(const char *s) { return find_name(order_names, QORD_COUNT, s); }
int qscope_from_name(const char *s) { return find_name(scope_names, QSCOPE_COUNT, s); }
int qspace_from_name(const char *s) { return find_name(space_names, QSPACE_COUNT, s); }
