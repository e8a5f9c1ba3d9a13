/* Scalar types, memory orders, scopes and spaces: the vocabulary shared by every layer.
 * Generated from types.def and ops.def; promotion follows Quadrants (type_factory.cpp). */
#ifndef QDC_TYPES_H
#define QDC_TYPES_H
#include <stdbool.h>

typedef enum {
    QT_VOID = 0,
#define X(e, n, b, k) QT_##e,
#include "types.def"
#undef X
    QT_COUNT
} QdType;

typedef enum { K_VOID, K_BOOL, K_SINT, K_UINT, K_FLOAT } QdTypeKind;

const char *qt_name(QdType t);            /* "i32"; "void" for QT_VOID */
int qt_bits(QdType t);                    /* storage bits: u1 reports 1 */
QdTypeKind qt_kind(QdType t);
bool qt_is_int(QdType t);                 /* signed or unsigned integer, not u1 */
bool qt_is_integral(QdType t);            /* Quadrants "integral": ints and u1 */
bool qt_is_float(QdType t);
bool qt_is_signed(QdType t);
QdType qt_from_name(const char *name);    /* "i32", "float32", "int", ...; QT_VOID if unknown */
QdType qt_promote(QdType a, QdType b);    /* binary-op promotion */
QdType qt_int_of_width(int bits, bool is_signed);
QdType qt_uint_same_width(QdType t);      /* f32 -> u32: the integer a float CAS goes through */

typedef enum {
#define X(e, n, k) QOP_##e,
#include "ops.def"
#undef X
    QOP_COUNT
} QdOp;
const char *qop_name(QdOp op);
int qop_operands(QdOp op);
QdOp qop_from_name(const char *name);     /* QOP_COUNT if unknown */

typedef enum { QORD_RELAXED, QORD_ACQUIRE, QORD_RELEASE, QORD_ACQ_REL, QORD_SEQ_CST, QORD_COUNT } QdOrder;
typedef enum { QSCOPE_BLOCK, QSCOPE_CLUSTER, QSCOPE_DEVICE, QSCOPE_SYSTEM, QSCOPE_COUNT } QdScope;
typedef enum { QSPACE_GLOBAL, QSPACE_SHARED, QSPACE_COUNT } QdSpace;

const char *qord_name(QdOrder o);         /* "relaxed", ... (the language's spelling) */
const char *qscope_name(QdScope s);       /* "block", "cluster", "device", "system" */
const char *qspace_name(QdSpace s);       /* "global", "shared" */
int qord_from_name(const char *s);        /* -1 if unknown */
int qscope_from_name(const char *s);
int qspace_from_name(const char *s);
#endif
