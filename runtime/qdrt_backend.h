/* libqdrt's device API, inside: the module's metadata as the backends use it, and the table of
 * functions each backend (CPU, Vulkan, CUDA/HIP) provides. Not installed. */
#ifndef QDRT_BACKEND_H
#define QDRT_BACKEND_H
#include "qdrt_device.h"
#include <stdarg.h>
#include <stdbool.h>

typedef struct Param {
    char *name;
    bool array;
    qdrt_dtype dtype;
    int ndim;
    int set, binding; /* SPIR-V */
} Param;

typedef struct Task {
    char *name;
    int kind; /* QDRT_PARALLEL, QDRT_SERIAL, QDRT_BLOCK (qdrt.h) */
    int block_dim;
    long shared_bytes;
    int groups; /* suggested/fixed grid; -1: sized by the launch */
    bool device_extent;
} Task;

typedef struct Loop { int first, last, param; } Loop;
typedef struct PushMember { int param, axis, offset; bool value; qdrt_dtype dtype; } PushMember;

/* A member of a kernel's return value: the field holding it, count elements at offset in the
 * C struct of the header's <kernel>_ret (qdc-abi(7)). */
typedef struct RetMember {
    char *name; /* "inner.a"; "" for a value that is not a struct */
    int field, count;
    qdrt_dtype dtype;
    size_t offset;
} RetMember;

typedef struct Kernel {
    char *name;
    Param *params;
    int nparams;
    Task *tasks;
    int ntasks;
    Loop *loops;
    int nloops;
    PushMember *push;
    int npush, push_size;
    int args_binding;  /* SPIR-V: the push-constant block is a storage buffer at set 0, this binding; -1: push constants */
    RetMember *rets; /* the return value's members (one for a scalar, vector or matrix) */
    int nrets;
    size_t ret_size;   /* 0: no return value; else its C size */
    bool ret_struct;
    void *impl; /* the backend's per-kernel state */
} Kernel;

/* One level of an SNode path (qdc-abi(7), "SNode storages"): a dense node over axes[]. */
typedef struct SnLevel {
    int naxes, axes[QDRT_MAX_NDIM];
    int64_t sizes[QDRT_MAX_NDIM], cell_bytes, child_offset;
} SnLevel;

/* An SNode storage several fields share: one byte array (a symbol, or one buffer). */
typedef struct Storage {
    char *symbol;
    size_t bytes;
    qdrt_array *store; /* GPU backends: its buffer (the fields in it share it) */
    void *host;        /* CPU: the symbol */
} Storage;

typedef struct Field {
    char *name, *symbol;
    qdrt_dtype dtype;
    int ndim;
    int64_t shape[QDRT_MAX_NDIM];
    int64_t count; /* elements (components included) */
    int set, binding;
    qdrt_array *store; /* GPU backends: its buffer (a storage's for a field in one) */
    void *host;        /* CPU: the symbol's storage */
    int storage;       /* -1: its own; else the index of its SNode storage */
    int64_t byte_offset;
    SnLevel *levels;   /* its path, outermost first; NULL: not in the metadata (SPIR-V's) */
    int nlevels;
} Field;

struct qdrt_module {
    qdrt_device *dev;
    char *name, *target, *backend;
    Field *fields;
    int nfields;
    Storage *storages;
    int nstorages;
    Kernel *kernels;
    int nkernels;
    int spirv_minor; /* SPIR-V 1.x */
    void *impl;
    qdrt_module *next;
};

struct qdrt_array {
    qdrt_device *dev;
    qdrt_dtype dtype;
    int ndim;
    int64_t shape[QDRT_MAX_NDIM];
    size_t bytes;
    void *host;      /* CPU memory, or the mapping of a Vulkan buffer */
    uint64_t dptr;   /* CUDA/HIP device pointer */
    void *impl;      /* the backend's buffer */
    qdrt_array *prev, *next;
};

typedef struct Backend {
    const char *name;      /* "vulkan", ... */
    const char *family;    /* the metadata's "backend" its modules have */
    qdrt_status (*open)(qdrt_device *dev, const qdrt_vulkan_options *vk); /* vk: Vulkan's options or NULL */
    void (*close)(qdrt_device *dev);
    qdrt_status (*alloc)(qdrt_array *a); /* a->bytes > 0; zero-filled */
    void (*release)(qdrt_array *a);
    qdrt_status (*write)(qdrt_array *a, const void *src);
    qdrt_status (*read)(const qdrt_array *a, void *dst);
    qdrt_status (*load)(qdrt_module *m, const void *code, size_t size);
    void (*unload)(qdrt_module *m);
    /* args validated; a[i] the array of ndarray parameter i (NULL for scalars), s[i] the
     * scalar's bytes as the parameter's C type (8 bytes, low ones used) */
    qdrt_status (*launch)(qdrt_module *m, Kernel *k, qdrt_array *const *a, const uint64_t *s);
    /* qdrt_dispatch, its arguments' devices checked; NULL: not this device's */
    qdrt_status (*dispatch)(qdrt_module *m, const qdrt_binding *b, int nb, const void *push, size_t push_bytes,
                            const qdrt_entry *e, int ne, const qdrt_repeat *loops, int nloops);
} Backend;

struct qdrt_device {
    qdrt_device_kind kind;
    const Backend *be;
    char name[320];
    char target[32]; /* qdrt_device_target */
    void *impl;
    qdrt_module *modules;
    qdrt_array *arrays;
    uint32_t cap_groups; /* qdrt_device_cap_groups; 0: none */
    double last_run_ms;
};

extern const Backend qdrt_cpu_backend, qdrt_vulkan_backend, qdrt_cuda_backend, qdrt_hip_backend;

/* Sets the thread's error message and returns s. */
qdrt_status qdrt_fail(qdrt_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The number of work items a task without a fixed grid covers: the largest ndarray argument's
 * element count (at least 1). */
int64_t qdrt_items(const Kernel *k, qdrt_array *const *a);
/* Groups of task t: fixed or suggested, else ceil(items / block_dim), within [1, max] and the
 * device's cap. */
uint32_t qdrt_groups(const qdrt_device *d, const Task *t, int64_t items, uint32_t max);
/* Seconds on a monotonic clock. */
double qdrt_now(void);
/* Element 0 of the array as an integer is non-zero (a do-while condition). */
bool qdrt_nonzero(qdrt_dtype t, const void *p);
/* Reads a whole file; NULL with the error set. */
void *qdrt_slurp(const char *path, size_t *len);
#endif
