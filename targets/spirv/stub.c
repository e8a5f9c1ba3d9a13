/* TEMPORARY scaffolding: replaced by the SPIR-V backend. */
#include "../target.h"
bool backend_spirv_emit(const IrModule *m, const CapTarget *t, const TargetOptions *o, StrBuf *out) { (void)m, (void)t, (void)o, (void)out; die("SPIR-V backend not implemented"); }
