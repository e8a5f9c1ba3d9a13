/* The layout facts of the qdc C ABI (man/qdc-abi.7) that the header and metadata writers and
 * every backend read: C spellings of dtypes and names, the shared-memory layout of a task, its
 * block size, the include guard of a module's header. */
#include "abi.h"
#include <ctype.h>

const char *abi_c_type(QdType t) {
    switch (t) {
    case QT_U1: return "uint8_t";
    case QT_I8: return "int8_t";
    case QT_I16: return "int16_t";
    case QT_I32: return "int32_t";
    case QT_I64: return "int64_t";
    case QT_U8: return "uint8_t";
    case QT_U16: return "uint16_t";
    case QT_U32: return "uint32_t";
    case QT_U64: return "uint64_t";
    case QT_F16: case QT_BF16: return "uint16_t"; /* raw IEEE binary16 / bfloat16 bits */
    case QT_F32: return "float";
    case QT_F64: return "double";
    default: die("no C type for %s", qt_name(t));
    }
}

void abi_ident(StrBuf *out, const char *name) {
    for (const char *p = name; *p; p++) sb_putc(out, isalnum((unsigned char)*p) || *p == '_' ? *p : '_');
}

int abi_block_dim(const IrTask *t, const CapTarget *cap) {
    return t->block_dim ? t->block_dim : (int)cap_int(cap, "limits.default_block_dim", 0); /* required key */
}

bool abi_device_extent(const IrTask *t) { return t->kind == IR_TASK_PARALLEL && t->extent && !ir_is_uniform(t->extent); }

int abi_device_groups(const IrTask *t, int block_dim) {
    (void)t;
    return (QDC_DEVICE_EXTENT_THREADS + block_dim - 1) / block_dim;
}

void abi_guard(StrBuf *out, const char *module, const char *suffix) {
    size_t at = out->len;
    sb_puts(out, "QDC_");
    abi_ident(out, module);
    sb_printf(out, "_%s", suffix);
    for (char *p = out->data + at; *p; p++) *p = (char)toupper((unsigned char)*p);
}
