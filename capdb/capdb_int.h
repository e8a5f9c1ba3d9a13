/* Internal representation of the capability database, shared by the loader (capdb_load.c),
 * the queries and printers (capdb.c, capdb_matrix.c) and the lowering engine (lower.c). */
#ifndef QDC_CAPDB_INT_H
#define QDC_CAPDB_INT_H
#include "../support/diag.h"
#include "../support/util.h"
#include "capdb.h"

typedef enum { CK_STR, CK_INT, CK_ENUM } CapKeyKind;
typedef enum {
#define K(e, n, k) CAPK_##e,
#include "capdb_keys.def"
#undef K
    CAPK_COUNT
} CapKey;

/* orders.<kind>: which orders an instruction of that kind carries natively */
typedef enum { ORDK_RMW, ORDK_LOAD, ORDK_STORE, ORDK_FENCE, ORDK_NORET, ORDK_COUNT } CapOrderKind;

typedef enum { CS_UNSUPPORTED, CS_NATIVE, CS_CAS } CapStatus;

/* Where a fact was written: the file's display name ("capability-db/sm_80.yaml"), line, and
 * key path ("ops.add.f32.global", "fence"): reports name the key, which an unrelated edit
 * of the file does not move. */
typedef struct { const char *file; int line; const char *key; } CapOrigin;

/* One database cell: status when all conditions hold, else the `els` cell. */
typedef struct CapCell {
    CapStatus status;
    const char *spelling;   /* instruction the backend emits, for reports */
    const char **when;      /* capabilities that must be asserted with --cap=+name */
    int nwhen;
    bool unused_only;       /* only when the result is unused */
    int max_scope;          /* -1, or the widest QdScope for which this cell holds */
    unsigned flags;         /* LOWF_* */
    const char *note;
    struct CapCell *els;    /* NULL: unsupported */
    CapOrigin at;
} CapCell;

typedef struct { const char *value; long num; CapOrigin at; } CapFact;
typedef struct { const char *name, *desc; CapOrigin at; } CapCap;

struct CapTarget {
    const CapDb *db;
    const char *name;
    const char *path;        /* as opened, for diagnostics */
    const char *disp;        /* display name for reports: "<dir>/<name>.yaml" */
    int from_dir;            /* index of its directory on the search path */
    bool user;               /* it or a file it extends is from a user directory */
    Source *src;
    int state;               /* 0 unresolved, 1 resolving, 2 resolved, 3 failed */
    bool abstract;
    long rank;               /* listing position (not inherited) */
    const char *parent;
    CapFact facts[CAPK_COUNT];
    unsigned orders[ORDK_COUNT]; /* bit per QdOrder */
    CapOrigin order_at[ORDK_COUNT];
    int scope_map[QSCOPE_COUNT]; /* carried QdScope, -1 unsupported */
    CapOrigin scope_at[QSCOPE_COUNT];
    VEC(CapCap) caps;
    VEC(const char *) aliases;
    VEC(const char *) files;     /* this file and its ancestors (display names) */
    const CapCell *cells[QOP_COUNT][QT_COUNT][QSPACE_COUNT];
    const CapCell *volatile_cell, *fence_cell;
    /* vector_atomics.ops: one instruction for CAP_VEC_WIDTHS consecutive elements (v2, v4, v8),
     * global memory only; NULL where the family says nothing (qdc-capdb(5)) */
    const CapCell *vcells[QOP_COUNT][QT_COUNT][3];
    CapOrigin ops_at;            /* the file's `ops:` key (reason for missing cells) */
    CapCell *missing;            /* the answer for a cell no file sets */
};

struct CapDb {
    Arena arena;
    VEC(CapTarget *) targets;    /* sorted by family order (backend, then name) */
    VEC(Source *) sources;
    char *names_csv;
    int nuser;                   /* the first nuser search directories are the user's */
    bool lazy;                   /* capdb_open_lazy: files are read when a family is asked for */
    bool all;                    /* every file has been tried (capdb_load_all) */
};

extern const char *const capk_names[CAPK_COUNT];
extern const CapKeyKind capk_kinds[CAPK_COUNT];
int capk_find(const char *dotted); /* -1 if unknown */

/* enum values of CK_ENUM keys */
enum { SEQ_NATIVE, SEQ_FENCE, SEQ_ACQ_REL, SEQ_NONE };
enum { EMU_NONE, EMU_FENCES, EMU_MEMBAR };

/* LOWF_* flag names as written in the database ("unsafe_fp_atomics") */
const char *lowf_name(unsigned bit);
int lowf_from_name(const char *s);

/* The resolved cell path for one request: the first cell whose conditions hold. */
typedef struct {
    const CapCell *cell;      /* the deciding cell (never NULL after cap_lookup) */
    CapStatus status;
    const char *needs_cap;    /* unsupported/cas: a --cap that would have enabled a better cell */
    const char *caps_used[8]; /* capabilities relied on */
    int ncaps_used;
} CapAnswer;

bool cap_has(const CapTarget *t, const char *cap, const char *const *caps, int ncaps);
/* The cell for (op, dtype, space) after conditions; caps are "+name"/"-name" strings. */
CapAnswer cap_lookup(const CapTarget *t, QdOp op, QdType dt, QdSpace sp, QdScope scope, bool result_used,
                     const char *const *caps, int ncaps);
CapAnswer cap_resolve_cell(const CapTarget *t, const CapCell *c, QdScope scope, bool result_used,
                           const char *const *caps, int ncaps);
const CapCell *cap_missing_cell(const CapTarget *t);
const char *cap_status_name(CapStatus s);
/* The vector_atomics cell for (op, dtype, width 2/4/8), NULL where the family has none. */
const CapCell *cap_vector_cell(const CapTarget *t, QdOp op, QdType dt, int width);
/* Every loaded family (a lazy database loads them all first, quietly). */
int capdb_ntargets(const CapDb *db);
const CapTarget *capdb_target_at(const CapDb *db, int i);
#endif
