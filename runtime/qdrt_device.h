/* libqdrt's device API (qdrt(3)): one C API that runs a module qdc compiled on a Vulkan device,
 * an NVIDIA GPU (CUDA driver API), an AMD GPU (HIP) or the CPU. A device is opened, a module is
 * loaded onto it with its metadata (qdc --emit=metadata), ndarrays are allocated on it, and a
 * kernel is launched by name with its arguments in parameter order; the launch runs every task
 * of the kernel in order with a full barrier between tasks, repeats qd.graph.do_while loops,
 * sizes the grid of tasks whose bounds the device reads, and returns once the device is idle.
 * Every function returns a qdrt_status; on failure qdrt_error() is a message that says what
 * and why (never an abort, never a message on stderr). Not thread-safe per device. */
#ifndef QDRT_DEVICE_H
#define QDRT_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum qdrt_status {
    QDRT_OK = 0,
    QDRT_E_ARGUMENT,  /* wrong argument count, type, dtype, shape, unknown kernel/field name */
    QDRT_E_MODULE,    /* module or metadata unreadable, malformed, or for another family */
    QDRT_E_NO_DEVICE, /* no driver library, or no device of that kind */
    QDRT_E_FEATURE,   /* the device lacks a feature or version the module needs (named) */
    QDRT_E_MEMORY,    /* out of host or device memory */
    QDRT_E_DEVICE,    /* a driver call failed (the message names it and its result) */
    QDRT_E_UNSUPPORTED /* valid, but this runtime does not do it yet (the message says what) */
} qdrt_status;

typedef enum qdrt_device_kind {
    QDRT_DEVICE_BEST = 0, /* the first that opens of: CUDA, HIP, Vulkan, CPU */
    QDRT_DEVICE_VULKAN,
    QDRT_DEVICE_CUDA,
    QDRT_DEVICE_HIP,
    QDRT_DEVICE_CPU
} qdrt_device_kind;

/* Element types, as qdc's dtypes (qdc-abi(7), TYPES: f16/bf16 are raw 16-bit patterns). */
typedef enum qdrt_dtype {
    QDRT_U1, QDRT_I8, QDRT_I16, QDRT_I32, QDRT_I64, QDRT_U8, QDRT_U16, QDRT_U32, QDRT_U64,
    QDRT_F16, QDRT_BF16, QDRT_F32, QDRT_F64, QDRT_NDTYPES
} qdrt_dtype;

#define QDRT_MAX_NDIM 8

typedef struct qdrt_device qdrt_device;
typedef struct qdrt_module qdrt_module;
typedef struct qdrt_array qdrt_array;

/* One argument of a launch: an ndarray (array non-NULL) or a scalar. A scalar given as is_float
 * goes to a float parameter only; an integer goes to an integer parameter, or to a float one
 * converted (qdrt_i64(3) for an f32 parameter is 3.0f). */
typedef struct qdrt_value {
    qdrt_array *array;
    int is_float;
    int64_t i;
    double f;
} qdrt_value;
static inline qdrt_value qdrt_arr(qdrt_array *a) { qdrt_value v = {a, 0, 0, 0}; return v; }
static inline qdrt_value qdrt_i64(int64_t x) { qdrt_value v = {NULL, 0, x, 0}; return v; }
static inline qdrt_value qdrt_f64(double x) { qdrt_value v = {NULL, 1, 0, x}; return v; }

/* The message of the last failure on this thread ("" if none). */
const char *qdrt_error(void);
const char *qdrt_status_name(qdrt_status s);

/* Opens a device of a kind; QDRT_E_NO_DEVICE when its driver or device is missing. */
qdrt_status qdrt_device_open(qdrt_device_kind kind, qdrt_device **out);
/* Parses "vulkan", "cuda", "hip", "cpu" or "best". */
qdrt_status qdrt_device_kind_parse(const char *name, qdrt_device_kind *out);
qdrt_device_kind qdrt_device_kind_of(const qdrt_device *dev);
const char *qdrt_device_name(const qdrt_device *dev); /* "cpu", "vulkan: llvmpipe ...", ... */
void qdrt_device_close(qdrt_device *dev);             /* frees its modules and arrays too */
/* The qdc family (--target) this device runs natively: "sm_XY" for CUDA, "vulkan1.N" for the
 * Vulkan version the device was made for, "x86_64" for the CPU; "" when unknown (HIP). */
const char *qdrt_device_target(const qdrt_device *dev);

/* Loads a module file qdc wrote: .spv (Vulkan), .ptx (CUDA), .hsaco (HIP), .o (CPU: linked into
 * a shared object with ld.lld-19 and loaded; the process must export libqdrt's qdrt_* symbols,
 * see qdrt(3)). metadata: the --emit=metadata file; NULL: PATH with its extension replaced by
 * .json (qdc's default name). */
qdrt_status qdrt_module_load(qdrt_device *dev, const char *path, const char *metadata, qdrt_module **out);
/* The same from memory: an --emit=c-array array (or any bytes) and the metadata's JSON text. */
qdrt_status qdrt_module_load_memory(qdrt_device *dev, const void *code, size_t size, const char *metadata_json,
                                    qdrt_module **out);
void qdrt_module_free(qdrt_module *mod);
qdrt_device *qdrt_module_device(const qdrt_module *mod);

/* A zero-filled ndarray on the device: ndim axes of shape[], row-major, tightly packed. */
qdrt_status qdrt_array_new(qdrt_device *dev, qdrt_dtype dtype, int ndim, const int64_t *shape, qdrt_array **out);
qdrt_status qdrt_array_write(qdrt_array *a, const void *src, size_t bytes); /* bytes: the array's size */
qdrt_status qdrt_array_read(const qdrt_array *a, void *dst, size_t bytes);
size_t qdrt_array_bytes(const qdrt_array *a);
void qdrt_array_free(qdrt_array *a);

/* A module field (a qd.field), zero at load and kept across launches: whole contents. */
qdrt_status qdrt_field_write(qdrt_module *mod, const char *field, const void *src, size_t bytes);
qdrt_status qdrt_field_read(qdrt_module *mod, const char *field, void *dst, size_t bytes);

/* Launches kernel `kernel` with args[0..nargs) in parameter order and waits for it. A kernel
 * with a return value stores it in ret (ret_bytes: the value's size; ret may be NULL). */
qdrt_status qdrt_launch_kernel(qdrt_module *mod, const char *kernel, const qdrt_value *args, int nargs, void *ret,
                               size_t ret_bytes);

/* The same for the module named `module` (its metadata's "module") loaded on dev, the most
 * recently loaded one of that name: what the typed launchers <kernel>_run(dev, ...) of qdc's
 * generated headers call (qdc-abi(7), TYPED LAUNCHERS). */
qdrt_status qdrt_launch_on(qdrt_device *dev, const char *module, const char *kernel, const qdrt_value *args, int nargs, void *ret,
                           size_t ret_bytes);

/* Caps the grid of every task launched on a GPU device at max_groups (0: the device's own
 * limit; the CPU ignores it): a test that the kernels' grid-stride loops cover their range on a
 * few groups (the suite's "3 blocks" runs). */
qdrt_status qdrt_device_cap_groups(qdrt_device *dev, uint32_t max_groups);
/* The wall time of the device's last launch or dispatch, in milliseconds, from its first
 * submission until the device was idle (argument checks and command recording excluded). */
double qdrt_device_last_run_ms(const qdrt_device *dev);

/* What a kernel takes, for tools (qdrun): parameter i's name, whether it is an ndarray, its
 * dtype and ndim (0 for a scalar). Returns the number of parameters, or -1 (no such kernel). */
int qdrt_kernel_params(const qdrt_module *mod, const char *kernel);
qdrt_status qdrt_kernel_param(const qdrt_module *mod, const char *kernel, int i, const char **name, int *is_array,
                              qdrt_dtype *dtype, int *ndim);
/* The size in bytes of the kernel's return value (0: none); *dtype its elements' (a struct's:
 * its first member's). A struct (or tuple) is returned as the C struct <kernel>_ret of qdc's
 * header, padding as a C compiler on the host lays it out (qdc-abi(7)). */
size_t qdrt_kernel_ret_bytes(const qdrt_module *mod, const char *kernel, qdrt_dtype *dtype);
/* The members of the return value (1 for a scalar, vector or matrix; -1: none, or no kernel)
 * and member i: its path ("inner.a"; "" when the value is not a struct), dtype, element count
 * and byte offset in ret. */
int qdrt_kernel_ret_members(const qdrt_module *mod, const char *kernel);
qdrt_status qdrt_kernel_ret_member(const qdrt_module *mod, const char *kernel, int i, const char **name, qdrt_dtype *dtype,
                                   int *count, size_t *offset);
const char *qdrt_dtype_name(qdrt_dtype t);
size_t qdrt_dtype_size(qdrt_dtype t);
qdrt_status qdrt_dtype_parse(const char *name, qdrt_dtype *out);

/* ---- Vulkan: how the device is made, and entry points dispatched as the caller says ----
 * (what tools/vulkan-runner/vkrun is made of; qdrt(3), VULKAN). */

typedef enum qdrt_message_kind { QDRT_MSG_WARNING, QDRT_MSG_ERROR, QDRT_MSG_PRINTF } qdrt_message_kind;

typedef struct qdrt_vulkan_options {
    /* Non-NULL: the device is made for this SPIR-V module: the Vulkan version its SPIR-V version
     * needs, and exactly the features and extensions its capabilities, extensions and atomic
     * instructions need (QDRT_E_FEATURE names the first the device lacks). NULL: the newest
     * version up to 1.3 and every feature qdc's SPIR-V can use that the device has. */
    const void *spirv;
    size_t spirv_size;
    int validate;     /* VK_LAYER_KHRONOS_validation when it is installed (qdrt_vulkan_info says) */
    int debug_printf; /* with validate: the layer's Debug Printf (qdc's print on Vulkan) */
    /* The layer's warnings and errors and the printf lines, one call each, the text without its
     * final newline; NULL: dropped. */
    void (*on_message)(void *user, qdrt_message_kind kind, const char *text);
    void *user;
} qdrt_vulkan_options;

typedef struct qdrt_vulkan_info {
    uint32_t api_version;       /* VK_MAKE_API_VERSION(0, 1, minor, 0) the device was made for */
    const char *device;         /* VkPhysicalDeviceProperties.deviceName */
    const char *features;       /* the features enabled, space-separated ("" none) */
    const char *extensions;     /* the device extensions enabled, space-separated ("" none) */
    int validation;             /* the validation layer is on */
    uint32_t max_groups;        /* maxComputeWorkGroupCount[0] */
    uint32_t max_push_bytes;    /* maxPushConstantsSize */
} qdrt_vulkan_info;

/* qdrt_device_open(QDRT_DEVICE_VULKAN) with options (NULL: the defaults). */
qdrt_status qdrt_device_open_vulkan(const qdrt_vulkan_options *opt, qdrt_device **out);
/* QDRT_E_ARGUMENT on another kind of device. The strings live as long as the device. */
qdrt_status qdrt_device_vulkan_info(const qdrt_device *dev, qdrt_vulkan_info *out);

/* A module without metadata (Vulkan: a SPIR-V binary), for qdrt_dispatch: it has no kernels. */
qdrt_status qdrt_module_load_code(qdrt_device *dev, const void *code, size_t size, qdrt_module **out);

typedef struct qdrt_binding { uint32_t set, binding; qdrt_array *array; } qdrt_binding; /* set 0 or 1 */
typedef struct qdrt_entry { const char *name; uint32_t groups; } qdrt_entry;
/* Entries first..last run again while element 0 of condition, read as dtype, is non-zero after
 * entry last (a qd.graph.do_while loop); loops ending at one entry are tested last given first. */
typedef struct qdrt_repeat { int first, last; const qdrt_array *condition; qdrt_dtype dtype; } qdrt_repeat;

/* Runs entries[0..n) of mod in order, a full barrier between them, each on its groups, with the
 * storage buffers bindings[] and the push-constant block push[0..push_bytes) (NULL, 0: none),
 * and waits. Vulkan only (QDRT_E_UNSUPPORTED elsewhere): qdrt_launch_kernel is this, with the
 * bindings, push constants and groups the metadata gives. */
qdrt_status qdrt_dispatch(qdrt_module *mod, const qdrt_binding *bindings, int nbindings, const void *push, size_t push_bytes,
                          const qdrt_entry *entries, int nentries, const qdrt_repeat *loops, int nloops);

#ifdef __cplusplus
}
#endif
#endif
