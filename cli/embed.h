/* What a host build needs around an artifact: exported symbols under a prefix
 * (--symbol-prefix) and the artifact as a C array (--emit=c-array, --embed). */
#ifndef QDC_EMBED_H
#define QDC_EMBED_H
#include "../ir/ir.h"

/* Renames kernels, tasks and fields to <prefix><name>, so every exported symbol
 * (qd_field_<prefix><f>, <prefix><kernel>_t<k>, <prefix><kernel>_args) carries it. */
void ir_prefix_symbols(IrModule *m, const char *prefix, Arena *arena);
/* The bytes of an artifact as C source: `const unsigned char <sym>[]` (NUL-terminated, so PTX
 * and MSL can be passed as strings) and `const size_t <sym>_size` (without the NUL).
 * sym is <prefix>qdc_<module>_<family> with every other character turned into '_'. With header
 * (--embed: the file name of the c_array_header() beside it), the source includes that header,
 * so the compiler checks the declarations against the definitions; NULL for --emit=c-array. */
void c_array_render(StrBuf *out, const char *prefix, const char *module, const char *family, const char *kind,
                    const StrBuf *data, const char *header);
/* The header declaring what c_array_render() defines (--embed), as glslangValidator --vn and
 * dxc -Fh give: include guard, extern "C", the size and the array of `size` bytes + NUL. */
void c_array_header(StrBuf *out, const char *prefix, const char *module, const char *family, const char *kind,
                    size_t size);
#endif
