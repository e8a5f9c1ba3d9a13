/* TEMPORARY scaffolding: replaced by the real frontend (delete this file when implementing). */
#include "frontend.h"
AstModule *frontend_parse(const Source *src, Arena *arena) { (void)src, (void)arena; die("frontend not implemented"); }
void ast_dump(const AstModule *m, StrBuf *out) { (void)m, (void)out; }
IrModule *frontend_check(const AstModule *m, Arena *arena) { (void)m, (void)arena; return NULL; }
void ir_dump(const IrModule *m, StrBuf *out) { (void)m, (void)out; }
void ir_visit_memory_ops(IrModule *m, IrMemVisitor fn, void *ctx) { (void)m, (void)fn, (void)ctx; }
