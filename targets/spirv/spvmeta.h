/* The binding layout as data: metadata JSON (--emit=metadata), the C header of push-constant
 * structs (--emit=header), and the Metal buffer indices handed to SPIRV-Cross. */
#ifndef QDC_SPVMETA_H
#define QDC_SPVMETA_H
#include "../abi.h"
#include "spvgen.h"
#include "spvtools.h"

int spv_msl_bindings(const IrModule *m, const IrKernel *k, SpvMslBinding **out); /* malloc'd */
/* The binding layout's hooks for header_emit/metadata_emit (targets/abi.h); st outlives them. */
AbiBindings spv_bindings(const SpvTarget *st);
#endif
