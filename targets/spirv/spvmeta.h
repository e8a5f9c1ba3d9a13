/* The binding layout as data: metadata JSON (--emit=metadata), the C header of push-constant
 * structs (--emit=header), and the Metal buffer indices handed to SPIRV-Cross. */
#ifndef QDC_SPVMETA_H
#define QDC_SPVMETA_H
#include "../target.h"
#include "spvgen.h"
#include "spvtools.h"

int spv_msl_bindings(const IrModule *m, const IrKernel *k, SpvMslBinding **out); /* malloc'd */
void spv_metadata(const IrModule *m, const IrLowered *low, const CapTarget *t, const SpvTarget *st, const char *module, StrBuf *out);
void spv_header(const IrModule *m, const CapTarget *t, const char *module, StrBuf *out);
#endif
