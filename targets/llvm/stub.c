/* TEMPORARY scaffolding: replaced by the LLVM backend. */
#include "../target.h"
bool backend_llvm_emit(const IrModule *m, const CapTarget *t, const TargetOptions *o, StrBuf *out) { (void)m, (void)t, (void)o, (void)out; die("LLVM backend not implemented"); }
