/* TEMPORARY scaffolding: replaced by the capability database and lowering engine. */
#include "lower.h"
#include <string.h>
struct CapDb { int dummy; };
struct CapTarget { const char *name, *backend; };
static CapDb the_db;
static const CapTarget x86 = {"x86_64", "x86_64"};
CapDb *capdb_open(const char *const *dirs, int ndirs) { (void)dirs, (void)ndirs; return &the_db; }
void capdb_close(CapDb *db) { (void)db; }
const CapTarget *capdb_target(const CapDb *db, const char *name) { (void)db; return strcmp(name, "x86_64") ? NULL : &x86; }
const char *capdb_target_names(const CapDb *db) { (void)db; return "x86_64"; }
void capdb_list_targets(const CapDb *db, FILE *out) { (void)db; fputs("x86_64\n", out); }
int capdb_target_files(const CapTarget *t, const char ***paths_out) { (void)t; *paths_out = NULL; return 0; }
const char *cap_name(const CapTarget *t) { return t->name; }
const char *cap_backend(const CapTarget *t) { return t->backend; }
const char *cap_str(const CapTarget *t, const char *key) { (void)t, (void)key; return NULL; }
long cap_int(const CapTarget *t, const char *key, long dflt) { (void)t, (void)key; return dflt; }
bool lower_check_caps(const CapTarget *t, const LowerOptions *o) { (void)t, (void)o; return true; }
bool lower_module(IrModule *m, const CapTarget *t, const LowerOptions *o, Arena *a) { (void)m, (void)t, (void)o, (void)a; return true; }
void lower_report(const IrModule *m, const CapTarget *t, bool json, StrBuf *out) { (void)m, (void)t, (void)json, (void)out; }
void capdb_print_target(const CapTarget *t, bool json, FILE *out) { (void)t, (void)json, (void)out; }
bool capdb_support_matrix(const CapDb *db, const char *csv, bool md, FILE *out) { (void)db, (void)csv, (void)md, (void)out; return true; }
