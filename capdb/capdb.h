/* The capability database: one YAML file per GPU family under capability-db/, loaded with
 * libyaml, inheritance resolved. Lowering asks it per (op, dtype, space, order, scope);
 * targets read a few per-family strings and numbers (LLVM triple, PTX ISA, SPIR-V version...).
 * The schema is documented in man/qdc-capdb.5. */
#ifndef QDC_CAPDB_H
#define QDC_CAPDB_H
#include "../support/diag.h"
#include "../support/types.h"
#include <stdbool.h>
#include <stdio.h>

#define CAPDB_SCHEMA 1 /* the schema version this qdc reads (qdc-capdb(5)) */

typedef struct CapDb CapDb;
typedef struct CapTarget CapTarget;

/* Loads every family file found in dirs (searched in order; first file of a given name wins).
 * Returns NULL after reporting diagnostics (file:line:col) if any file is malformed. */
CapDb *capdb_open(const char *const *dirs, int ndirs);
/* The same with the first nuser dirs named by the user (--capdb-dir, QDC_CAPDB_PATH): a file
 * there that shadows a later one of the same name is reported (warning QD0008). */
CapDb *capdb_open_search(const char *const *dirs, int ndirs, int nuser);
/* The same search, but a file is read only when a run needs it: capdb_target loads the named
 * family's file and the files it extends (or, for an alias, the file declaring it), so a malformed
 * file fails only the families whose chain includes it. Listings load every file (capdb_load_all),
 * leaving out quietly those that cannot be loaded. NULL (reported) when no file is found. */
CapDb *capdb_open_lazy(const char *const *dirs, int ndirs, int nuser);
void capdb_load_all(const CapDb *db);
void capdb_close(CapDb *db);

/* A family by name or alias ("h100" -> sm_90); NULL if unknown or (lazy, reported) if its files
 * cannot be loaded. */
const CapTarget *capdb_target(const CapDb *db, const char *name);
/* All family names in database order, comma separated, for usage errors. */
const char *capdb_target_names(const CapDb *db);
void capdb_list_targets(const CapDb *db, FILE *out); /* --list-targets */
void capdb_list_targets_json(const CapDb *db, FILE *out);
/* Family names and aliases, for suggestions; returns how many were stored (at most max). */
int capdb_names(const CapDb *db, const char **names, int max);
/* Every file that contributed to a target (itself and its parents), for depfiles. */
int capdb_target_files(const CapTarget *t, const char ***paths_out);

const char *cap_name(const CapTarget *t);    /* canonical family name: "sm_90" */
/* Whether the family's file and every file it extends come from the shipped database (not from
 * --capdb-dir or QDC_CAPDB_PATH): facts the suite has checked, which need no probe per run. */
bool cap_shipped(const CapTarget *t);
/* Backend kind: "ptx", "amdgpu", "spirv", "msl", "x86_64". */
const char *cap_backend(const CapTarget *t);
/* Per-family strings by dotted key, NULL if absent. Keys targets use:
 *   llvm.triple, llvm.cpu, llvm.features      (ptx, amdgpu, x86_64)
 *   ptx.isa ("8.0"), ptx.sm ("sm_90a")        (ptx)
 *   amdgpu.code_object ("5")                  (amdgpu)
 *   spirv.version ("1.5"), spirv.env ("vulkan1.2")   (spirv, msl)
 *   msl.version ("2.3.0")                     (msl)
 * (A family's output kinds and extensions are its backend's: targets/backends.def.) */
const char *cap_str(const CapTarget *t, const char *key);
/* The line of the family's file (or of the parent it inherits the key from) that sets key, for
 * located diagnostics about a value (the start of the family's file if unknown). */
Span cap_where(const CapTarget *t, const char *key);
/* The same for a line of one of the family's files (IrLowering.reason_file, reason_line). */
Span cap_where_line(const CapTarget *t, const char *file, int line);
/* Per-family integers: subgroup_width, default_block_dim, max_block_dim, max_shared_bytes. */
long cap_int(const CapTarget *t, const char *key, long dflt);
/* The subgroup width a compile uses: limits.subgroup_width, or 32 where the family's
 * simt.wave32 names the LLVM feature for 32-lane waves and --cap=+wave32 asks for them (RDNA
 * is wave64 by default, as Quadrants pins it). */
long cap_subgroup_width(const CapTarget *t, const char *const *caps, int ncaps);
/* llvm.features for that choice: simt.wave32 instead when wave32 is selected. */
const char *cap_llvm_features(const CapTarget *t, const char *const *caps, int ncaps);
#endif
