/* vkrun: runs qdc's SPIR-V through Vulkan compute on the first device with a compute queue.
 *   vkrun [--validate] MODULE.spv [--buffer SET,BINDING,FILE]... [--push FILE] [--loop FIRST,LAST,BUF]...
 *         ENTRY:GROUPS...
 * (with no entry it only creates the device and says which Vulkan version it asked for)
 * Buffers start with FILE's bytes and are written back to FILE afterwards; the push-constant
 * block comes from --push (layout: man/qdc-spirv.7, --emit=metadata). Entries run in order with
 * a full barrier between them. --loop (a qd.graph.do_while loop, qdc-abi(7) "Do-while loops";
 * give them outer loops first): after entry LAST (0-based), the host waits for the device and
 * reads the first int32 of the BUF-th --buffer (0-based); non-zero: it continues at entry FIRST.
 * Loops ending at one entry are checked innermost (last given) first. Without --loop every entry
 * goes in one submission.
 *
 * Vulkan's rules, read from the module itself:
 *  - the instance and device are created for the Vulkan version the module's SPIR-V version
 *    needs (SPIR-V 1.0-1.3: Vulkan 1.1, 1.4-1.5: 1.2, 1.6: 1.3);
 *  - exactly the device features and extensions its OpCapability/OpExtension declarations and
 *    its atomic instructions (type and storage class of each pointer) need are enabled, and
 *    nothing else; a capability or extension vkrun does not know is an error (exit 2), never
 *    silently ignored;
 *  - everything created is destroyed.
 * VKRUN_TIME=1 prints the wall time from vkQueueSubmit to vkQueueWaitIdle's return on stderr
 * (`make bench` section 3c: dispatches only, no device or pipeline creation).
 * --validate (or VKRUN_VALIDATE=1) enables VK_LAYER_KHRONOS_validation when it is installed and
 * counts its messages: any warning or error makes the run fail (exit 4). Without the layer it
 * says so on stderr and runs plainly.
 * --printf also turns on the layer's Debug Printf (a module with NonSemantic.DebugPrintf: qdc's
 * print on Vulkan) and writes each message on stdout as "vkrun: printf: TEXT"; without the layer
 * the run is a skip (exit 77), as nothing could be printed.
 * An entry that uses a storage buffer (a DescriptorSet/Binding) no --buffer names is a usage
 * error that names the entry, set, binding and variable.
 * Exit 0 ok, 1 usage/file errors, 2 Vulkan errors, 4 validation messages, 77 no usable device:
 * none at all, too old for the module, or lacking a feature the module needs (the notice is
 * printed on stdout; callers count a skip). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define MAXB 32
#define MAXE 256
#define SKIP 77
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        VkResult r_ = (x);                                                                         \
        if (r_ != VK_SUCCESS) { fprintf(stderr, "vkrun: %s failed (%d)\n", #x, (int)r_); exit(2); } \
    } while (0)

typedef struct { unsigned set, binding; const char *file; size_t size; VkBuffer buf; VkDeviceMemory mem; void *map; } Buf;
static Buf bufs[MAXB];
static int nbufs;
static VkDevice dev;
static VkPhysicalDevice phys;
static unsigned validation_messages;

static void *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "vkrun: cannot open %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = calloc(1, (size_t)n + 16);
    if (n < 0 || fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "vkrun: cannot read %s\n", path); exit(1); }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* ---- what the module needs ---- */

/* Feature structures vkrun may chain; each field a module can need is one Need below. */
enum {
#define VK_FEATURES(id, stype, T, core, ext) id,
#include "../../runtime/vk_features.def"
    NSTRUCT
};
static const struct {
    VkStructureType stype;
    size_t size;
    uint32_t core;   /* Vulkan version that has it without an extension (0: never) */
    const char *ext; /* the device extension otherwise */
} structs[NSTRUCT] = {
#define VK_FEATURES(id, stype, T, core, ext) [id] = {stype, sizeof(T), core, ext},
#include "../../runtime/vk_features.def"
};

typedef struct { int s; size_t off; const char *name; } Need;
#define CORE(f) {S_CORE, offsetof(VkPhysicalDeviceFeatures2, features.f), #f}
#define FIELD(s, T, f) {s, offsetof(T, f), #f}
enum {
    N_INT64, N_INT16, N_FLOAT64, N_INT8, N_FLOAT16, N_SB8, N_SB16, N_BUF_I64ATOM, N_SH_I64ATOM, N_VMM, N_VMM_DEV,
    N_BUF_F32, N_BUF_F32ADD, N_BUF_F64, N_BUF_F64ADD, N_SH_F32, N_SH_F32ADD, N_SH_F64, N_SH_F64ADD,
    N_BUF_F16, N_BUF_F16ADD, N_BUF_F16MM, N_BUF_F32MM, N_BUF_F64MM, N_SH_F16, N_SH_F16ADD, N_SH_F16MM, N_SH_F32MM, N_SH_F64MM,
    N_DEV_CLOCK, NNEED
};
static const Need needs[NNEED] = {
    [N_INT64] = CORE(shaderInt64), [N_INT16] = CORE(shaderInt16), [N_FLOAT64] = CORE(shaderFloat64),
    [N_INT8] = FIELD(S_F16I8, VkPhysicalDeviceShaderFloat16Int8Features, shaderInt8),
    [N_FLOAT16] = FIELD(S_F16I8, VkPhysicalDeviceShaderFloat16Int8Features, shaderFloat16),
    [N_SB8] = FIELD(S_8BIT, VkPhysicalDevice8BitStorageFeatures, storageBuffer8BitAccess),
    [N_SB16] = FIELD(S_16BIT, VkPhysicalDevice16BitStorageFeatures, storageBuffer16BitAccess),
    [N_BUF_I64ATOM] = FIELD(S_I64ATOM, VkPhysicalDeviceShaderAtomicInt64Features, shaderBufferInt64Atomics),
    [N_SH_I64ATOM] = FIELD(S_I64ATOM, VkPhysicalDeviceShaderAtomicInt64Features, shaderSharedInt64Atomics),
    [N_VMM] = FIELD(S_MEMMODEL, VkPhysicalDeviceVulkanMemoryModelFeatures, vulkanMemoryModel),
    [N_VMM_DEV] = FIELD(S_MEMMODEL, VkPhysicalDeviceVulkanMemoryModelFeatures, vulkanMemoryModelDeviceScope),
#define FA(n, f) [n] = FIELD(S_FATOM, VkPhysicalDeviceShaderAtomicFloatFeaturesEXT, f)
#define FA2(n, f) [n] = FIELD(S_FATOM2, VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT, f)
    FA(N_BUF_F32, shaderBufferFloat32Atomics), FA(N_BUF_F32ADD, shaderBufferFloat32AtomicAdd),
    FA(N_BUF_F64, shaderBufferFloat64Atomics), FA(N_BUF_F64ADD, shaderBufferFloat64AtomicAdd),
    FA(N_SH_F32, shaderSharedFloat32Atomics), FA(N_SH_F32ADD, shaderSharedFloat32AtomicAdd),
    FA(N_SH_F64, shaderSharedFloat64Atomics), FA(N_SH_F64ADD, shaderSharedFloat64AtomicAdd),
    FA2(N_BUF_F16, shaderBufferFloat16Atomics), FA2(N_BUF_F16ADD, shaderBufferFloat16AtomicAdd),
    FA2(N_BUF_F16MM, shaderBufferFloat16AtomicMinMax), FA2(N_BUF_F32MM, shaderBufferFloat32AtomicMinMax),
    FA2(N_BUF_F64MM, shaderBufferFloat64AtomicMinMax), FA2(N_SH_F16, shaderSharedFloat16Atomics),
    FA2(N_SH_F16ADD, shaderSharedFloat16AtomicAdd), FA2(N_SH_F16MM, shaderSharedFloat16AtomicMinMax),
    FA2(N_SH_F32MM, shaderSharedFloat32AtomicMinMax), FA2(N_SH_F64MM, shaderSharedFloat64AtomicMinMax),
    [N_DEV_CLOCK] = FIELD(S_CLOCK, VkPhysicalDeviceShaderClockFeaturesKHR, shaderDeviceClock),
};

typedef struct {
    uint32_t api;             /* Vulkan version the SPIR-V version needs */
    unsigned char need[NNEED];
    unsigned char ext[NSTRUCT]; /* a SPIR-V extension asks for this struct's device extension */
    unsigned char non_semantic; /* SPV_KHR_non_semantic_info: VK_KHR_shader_non_semantic_info before 1.3 */
} Module;

/* SPIR-V opcodes and enumerants vkrun reads (the SPIR-V 1.6 specification's numbers). */
enum { OpExtension = 10, OpCapability = 17, OpTypeInt = 21, OpTypeFloat = 22, OpTypePointer = 32,
       OpAtomicLoad = 227, OpAtomicStore = 228, OpAtomicExchange = 229, OpAtomicXor = 242,
       OpAtomicFMinEXT = 5614, OpAtomicFMaxEXT = 5615, OpAtomicFAddEXT = 6035 };
enum { SC_Workgroup = 4, SC_StorageBuffer = 12 };

/* Result type of each id, and for type ids what they are. */
typedef struct { uint32_t type, op, sc, pointee, width; } Id;

/* Marks what one atomic instruction on a pointer needs. */
static void atomic_needs(Module *m, const Id *ids, uint32_t bound, uint32_t op, uint32_t ptr) {
    uint32_t pt = ptr < bound ? ids[ptr].type : 0, t = pt < bound ? ids[pt].pointee : 0;
    if (!pt || ids[pt].op != OpTypePointer || !t || t >= bound) return;
    int shared = ids[pt].sc == SC_Workgroup, w = (int)ids[t].width;
    if (ids[pt].sc != SC_Workgroup && ids[pt].sc != SC_StorageBuffer) return;
    if (ids[t].op == OpTypeInt) {
        if (w == 64) m->need[shared ? N_SH_I64ATOM : N_BUF_I64ATOM] = 1;
        return;
    }
    if (ids[t].op != OpTypeFloat) return;
    int k = w == 16 ? 0 : w == 32 ? 1 : 2;
    static const int plain[2][3] = {{N_BUF_F16, N_BUF_F32, N_BUF_F64}, {N_SH_F16, N_SH_F32, N_SH_F64}};
    static const int add[2][3] = {{N_BUF_F16ADD, N_BUF_F32ADD, N_BUF_F64ADD}, {N_SH_F16ADD, N_SH_F32ADD, N_SH_F64ADD}};
    static const int mm[2][3] = {{N_BUF_F16MM, N_BUF_F32MM, N_BUF_F64MM}, {N_SH_F16MM, N_SH_F32MM, N_SH_F64MM}};
    if (op == OpAtomicFAddEXT) m->need[add[shared][k]] = 1;
    else if (op == OpAtomicFMinEXT || op == OpAtomicFMaxEXT) m->need[mm[shared][k]] = 1;
    else m->need[plain[shared][k]] = 1; /* load, store, exchange of a float */
}

static int capability(Module *m, uint32_t cap) {
    switch (cap) {
    case 1: /* Shader */ return 1;
    case 9: m->need[N_FLOAT16] = 1; return 1;
    case 10: m->need[N_FLOAT64] = 1; return 1;
    case 11: m->need[N_INT64] = 1; return 1;
    case 12: /* Int64Atomics: the atomic instructions say buffer or shared */ return 1;
    case 22: m->need[N_INT16] = 1; return 1;
    case 39: m->need[N_INT8] = 1; return 1;
    case 4433: /* StorageBuffer16BitAccess */ m->need[N_SB16] = 1; return 1;
    case 4448: /* StorageBuffer8BitAccess */ m->need[N_SB8] = 1; return 1;
    case 5345: m->need[N_VMM] = 1; return 1;
    case 5346: m->need[N_VMM_DEV] = 1; return 1;
    case 6033: case 6034: case 6095: /* AtomicFloat32/64/16AddEXT */
    case 5612: case 5613: case 5616: /* AtomicFloat16/32/64MinMaxEXT */ return 1;
    case 61: /* GroupNonUniform */ case 62: case 63: case 64: case 65: case 66: case 67: case 68: return 1;
    case 5055: /* ShaderClockKHR: qdc reads at Device scope */ m->need[N_DEV_CLOCK] = 1; return 1;
    default: return 0;
    }
}

static int extension(Module *m, const char *name) {
    static const struct { const char *spv; int s; } map[] = {
        {"SPV_KHR_storage_buffer_storage_class", -1}, {"SPV_KHR_16bit_storage", S_16BIT},
        {"SPV_KHR_8bit_storage", S_8BIT}, {"SPV_KHR_vulkan_memory_model", S_MEMMODEL},
        {"SPV_EXT_shader_atomic_float_add", S_FATOM}, {"SPV_EXT_shader_atomic_float_min_max", S_FATOM2},
        {"SPV_EXT_shader_atomic_float16_add", S_FATOM2}, {"SPV_KHR_shader_clock", S_CLOCK},
    };
    if (!strcmp(name, "SPV_KHR_non_semantic_info")) return m->non_semantic = 1;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].spv, name)) {
            if (map[i].s >= 0) m->ext[map[i].s] = 1;
            return 1;
        }
    return 0;
}

static Module read_module(const uint32_t *w, size_t nwords) {
    Module m = {0};
    if (nwords < 5 || w[0] != 0x07230203u) { fprintf(stderr, "vkrun: not a SPIR-V module\n"); exit(1); }
    uint32_t minor = (w[1] >> 8) & 0xff, bound = w[3];
    m.api = minor <= 3 ? VK_API_VERSION_1_1 : minor <= 5 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_3;
    Id *ids = calloc(bound + 1, sizeof *ids);
    for (size_t i = 5; i < nwords;) {
        uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
        if (!len || i + len > nwords) { fprintf(stderr, "vkrun: malformed SPIR-V at word %zu\n", i); exit(1); }
        const uint32_t *a = w + i + 1;
        if (op == OpCapability && !capability(&m, a[0])) { fprintf(stderr, "vkrun: capability %u is not handled\n", a[0]); exit(2); }
        if (op == OpExtension && !extension(&m, (const char *)a)) { fprintf(stderr, "vkrun: extension %.64s is not handled\n", (const char *)a); exit(2); }
        if ((op == OpTypeInt || op == OpTypeFloat) && len >= 3 && a[0] < bound) ids[a[0]].op = op, ids[a[0]].width = a[1];
        if (op == OpTypePointer && len >= 4 && a[0] < bound) ids[a[0]].op = op, ids[a[0]].sc = a[1], ids[a[0]].pointee = a[2];
        /* Result type of instructions that have one: OpVariable, OpAccessChain and the like. */
        if ((op == 59 /* OpVariable */ || op == 65 /* OpAccessChain */ || op == 66 || op == 67 /* PtrAccessChain */) &&
            len >= 3 && a[1] < bound)
            ids[a[1]].type = a[0];
        if ((op >= OpAtomicLoad && op <= OpAtomicXor) || op == OpAtomicFMinEXT || op == OpAtomicFMaxEXT || op == OpAtomicFAddEXT)
            atomic_needs(&m, ids, bound, op, op == OpAtomicStore ? a[0] : a[2]);
        i += len;
    }
    free(ids);
    return m;
}

/* ---- every binding an entry uses has a --buffer ---- */

/* The length of a SPIR-V string operand of at most room bytes (a malformed one has no NUL). */
static int name_bytes(const char *s, size_t room) {
    const char *nul = memchr(s, 0, room);
    return (int)(nul ? (size_t)(nul - s) : room);
}

/* Exits 1 when an entry point in entries (ENTRY[:GROUPS]) reaches a storage buffer or uniform
 * variable whose DescriptorSet/Binding no --buffer names (Vulkan would read an unbound
 * descriptor: lavapipe crashes). An entry reaches a variable when a function called from it,
 * directly or not, takes an access chain of it, loads, stores, applies an atomic to or passes
 * it. Names the entry, the set, the binding and the variable's OpName. */
static void check_bindings(const uint32_t *w, size_t nwords, const char *const *entries, int nentries) {
    uint32_t bound = w[3];
    typedef struct { uint32_t set, binding; unsigned char var, has_set, has_binding, reached; const char *name; int name_len; } Info;
    Info *id = calloc(bound + 1, sizeof *id);
    /* pass 1: names, decorations, variables, where each function starts */
    for (size_t i = 5; i < nwords; i += w[i] >> 16) {
        uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
        const uint32_t *a = w + i + 1;
        if (op == 5 /* OpName */ && len >= 3 && a[0] < bound)
            id[a[0]].name = (const char *)(a + 1), id[a[0]].name_len = name_bytes((const char *)(a + 1), 4 * (len - 2));
        if (op == 71 /* OpDecorate */ && len >= 4 && a[0] < bound) {
            if (a[1] == 34 /* DescriptorSet */) id[a[0]].set = a[2], id[a[0]].has_set = 1;
            if (a[1] == 33 /* Binding */) id[a[0]].binding = a[2], id[a[0]].has_binding = 1;
        }
        if (op == 59 /* OpVariable */ && len >= 4 && a[1] < bound && (a[2] == SC_StorageBuffer || a[2] == 2 /* Uniform */))
            id[a[1]].var = 1;
    }
    for (int e = 0; e < nentries; e++) {
        char name[256];
        snprintf(name, sizeof name, "%s", entries[e]);
        char *colon = strrchr(name, ':');
        if (colon) *colon = 0;
        uint32_t root = 0;
        for (size_t i = 5; i < nwords && !root; i += w[i] >> 16)
            if ((w[i] & 0xffff) == 15 /* OpEntryPoint */ && (w[i] >> 16) >= 4 && !strncmp((const char *)(w + i + 3), name, 4 * ((w[i] >> 16) - 3)))
                root = w[i + 2];
        if (!root || root >= bound) continue; /* pipeline creation reports an unknown entry */
        for (uint32_t k = 0; k < bound; k++) id[k].reached = 0;
        id[root].reached = 1;
        /* reach functions to a fixed point: a call inside a reached function reaches its callee */
        for (int changed = 1; changed;) {
            changed = 0;
            uint32_t fn = 0;
            for (size_t i = 5; i < nwords; i += w[i] >> 16) {
                uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
                const uint32_t *a = w + i + 1;
                if (op == 54 /* OpFunction */ && len >= 3) fn = a[1] < bound ? a[1] : 0;
                else if (op == 56 /* OpFunctionEnd */) fn = 0;
                if (!fn || !id[fn].reached) continue;
                uint32_t uses[2] = {0, 0};
                if (op == 57 /* OpFunctionCall */ && len >= 4 && a[2] < bound && !id[a[2]].reached) id[a[2]].reached = 1, changed = 1;
                if ((op >= 65 && op <= 67) || op == 70 || op == 61 || op == 68 || op == 83 || (op >= OpAtomicLoad && op <= OpAtomicXor) ||
                    op == OpAtomicFMinEXT || op == OpAtomicFMaxEXT || op == OpAtomicFAddEXT)
                    uses[0] = len >= 4 ? a[2] : 0; /* access chains, load, array length, copy, atomics */
                if (op == 62 /* OpStore */ || op == OpAtomicStore) uses[0] = len >= 2 ? a[0] : 0;
                if (op == 63 /* OpCopyMemory */) uses[0] = len >= 3 ? a[0] : 0, uses[1] = len >= 3 ? a[1] : 0;
                for (int u = 0; u < 2; u++)
                    if (uses[u] && uses[u] < bound && id[uses[u]].var) id[uses[u]].reached = 1;
                for (uint32_t k = 3; op == 57 && k + 1 < len; k++)
                    if (a[k] < bound && id[a[k]].var) id[a[k]].reached = 1;
            }
        }
        uint32_t v = 0; /* the missing binding with the lowest set, then binding */
        for (uint32_t u = 0; u < bound; u++) {
            if (!id[u].var || !id[u].reached || !id[u].has_set || !id[u].has_binding) continue;
            int given = 0;
            for (int b = 0; b < nbufs && !given; b++) given = bufs[b].set == id[u].set && bufs[b].binding == id[u].binding;
            if (!given && (!v || id[u].set < id[v].set || (id[u].set == id[v].set && id[u].binding < id[v].binding))) v = u;
        }
        if (v) {
            char vname[128] = "";
            if (id[v].name) snprintf(vname, sizeof vname, " ('%.*s')", id[v].name_len < 100 ? id[v].name_len : 100, id[v].name);
            fprintf(stderr, "vkrun: entry %s uses set %u binding %u%s, but no --buffer %u,%u,FILE was given\n", name,
                    id[v].set, id[v].binding, vname, id[v].set, id[v].binding);
            exit(1);
        }
    }
    free(id);
}

/* ---- device selection and creation ---- */

static int has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name)) return 1;
    return 0;
}

static VkBool32 *field(void *s, size_t off) { return (VkBool32 *)((char *)s + off); }

static void skip(const char *why, const char *what) {
    printf("vkrun: %s%s; skipping\n", why, what ? what : "");
    exit(SKIP);
}

/* Picks the first device with a compute queue and creates it with exactly what m needs. */
static uint32_t create_device(VkInstance inst, const Module *m) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, NULL);
    VkPhysicalDevice devs[16];
    if (n > 16) n = 16;
    vkEnumeratePhysicalDevices(inst, &n, devs);
    uint32_t qf = UINT32_MAX;
    for (uint32_t d = 0; d < n && qf == UINT32_MAX; d++) {
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nq, NULL);
        VkQueueFamilyProperties q[16];
        if (nq > 16) nq = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nq, q);
        for (uint32_t i = 0; i < nq && qf == UINT32_MAX; i++)
            if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) phys = devs[d], qf = i;
    }
    if (qf == UINT32_MAX) skip("no Vulkan device with a compute queue", NULL);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    if (props.apiVersion < m->api) {
        char v[64];
        snprintf(v, sizeof v, " (device %u.%u, module needs %u.%u)", VK_API_VERSION_MAJOR(props.apiVersion),
                 VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_MAJOR(m->api), VK_API_VERSION_MINOR(m->api));
        skip("the device's Vulkan version is too old for the module", v);
    }
    uint32_t next = 0;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &next, NULL);
    VkExtensionProperties *exts = calloc(next + 1, sizeof *exts);
    vkEnumerateDeviceExtensionProperties(phys, NULL, &next, exts);

    /* Which structures the module needs, and whether each is core or an extension here. */
    int used[NSTRUCT] = {0};
    for (int i = 0; i < NNEED; i++) used[needs[i].s] |= m->need[i];
    for (int s = 0; s < NSTRUCT; s++) used[s] |= m->ext[s];
    used[S_CORE] = 1;
    used[S_FATOM] |= used[S_FATOM2]; /* VK_EXT_shader_atomic_float2 requires VK_EXT_shader_atomic_float */
    const char *enable[NSTRUCT + 1];
    uint32_t nenable = 0;
    for (int s = 1; s < NSTRUCT; s++) {
        if (!used[s] || (structs[s].core && m->api >= structs[s].core)) continue;
        if (!has_ext(exts, next, structs[s].ext)) skip("the device lacks extension ", structs[s].ext);
        enable[nenable++] = structs[s].ext;
    }
    if (m->non_semantic && m->api < VK_API_VERSION_1_3) {
        if (!has_ext(exts, next, VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME))
            skip("the device lacks extension ", VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME);
        enable[nenable++] = VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME;
    }
    free(exts);
    /* Query the used structures, check every needed field, then enable exactly those. */
    void *query[NSTRUCT] = {0}, *want[NSTRUCT] = {0};
    for (int s = 0; s < NSTRUCT; s++) {
        if (!used[s]) continue;
        query[s] = calloc(1, structs[s].size), want[s] = calloc(1, structs[s].size);
        ((VkBaseOutStructure *)query[s])->sType = ((VkBaseOutStructure *)want[s])->sType = structs[s].stype;
    }
    VkBaseOutStructure *tq = query[S_CORE], *tw = want[S_CORE];
    for (int s = 1; s < NSTRUCT; s++)
        if (used[s]) tq = tq->pNext = query[s], tw = tw->pNext = want[s];
    vkGetPhysicalDeviceFeatures2(phys, query[S_CORE]);
    for (int i = 0; i < NNEED; i++) {
        if (!m->need[i]) continue;
        if (!*field(query[needs[i].s], needs[i].off)) skip("the device lacks feature ", needs[i].name);
        *field(want[needs[i].s], needs[i].off) = VK_TRUE;
    }
    /* Say exactly what is enabled (the suite checks it). */
    printf("vkrun: features:");
    int any = 0;
    for (int i = 0; i < NNEED; i++)
        if (m->need[i]) printf(" %s", needs[i].name), any = 1;
    printf("%s; extensions:", any ? "" : " none");
    for (uint32_t i = 0; i < nenable; i++) printf(" %s", enable[i]);
    printf("%s\n", nenable ? "" : " none");
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, qf, 1, &prio};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, want[S_CORE], 0, 1, &qci, 0, NULL, nenable, enable, NULL};
    CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
    for (int s = 0; s < NSTRUCT; s++) free(query[s]), free(want[s]);
    return qf;
}

static uint32_t host_memory_type(uint32_t bits) {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(phys, &mp);
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
    fprintf(stderr, "vkrun: no host-visible coherent memory\n");
    exit(2);
}

static void make_buffer(Buf *b) {
    size_t len;
    void *data = slurp(b->file, &len);
    b->size = len ? len : 4;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, b->size,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    CHECK(vkCreateBuffer(dev, &bi, NULL, &b->buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b->buf, &req);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, host_memory_type(req.memoryTypeBits)};
    CHECK(vkAllocateMemory(dev, &ai, NULL, &b->mem));
    CHECK(vkBindBufferMemory(dev, b->buf, b->mem, 0));
    CHECK(vkMapMemory(dev, b->mem, 0, b->size, 0, &b->map));
    memcpy(b->map, data, len);
    free(data);
}

static VkDescriptorSetLayout set_layout(unsigned set) {
    VkDescriptorSetLayoutBinding lb[MAXB];
    uint32_t n = 0;
    for (int i = 0; i < nbufs; i++)
        if (bufs[i].set == set)
            lb[n++] = (VkDescriptorSetLayoutBinding){bufs[i].binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                     VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo ci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, n, lb};
    VkDescriptorSetLayout l;
    CHECK(vkCreateDescriptorSetLayout(dev, &ci, NULL, &l));
    return l;
}

static void write_sets(VkDescriptorSet *sets) {
    for (int i = 0; i < nbufs; i++) {
        VkDescriptorBufferInfo info = {bufs[i].buf, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[bufs[i].set], bufs[i].binding, 0, 1,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &info, NULL};
        vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
    }
}

/* ---- validation layer ---- */

static int printf_on; /* --printf */

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev, VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d, void *user) {
    (void)type, (void)user;
    if (printf_on && d->pMessageIdName && strstr(d->pMessageIdName, "DEBUG-PRINTF")) {
        /* The layer puts its context first: "... | MessageID = 0x... | TEXT" (1.3.239) or a
         * location line, then TEXT (later layers). */
        const char *text = d->pMessage, *id = strstr(text, "| MessageID = 0x");
        if (id && strstr(id + 2, "| ")) text = strstr(id + 2, "| ") + 2;
        else {
            size_t n = strlen(text);
            while (n && text[n - 1] == '\n') n--;
            for (size_t i = 0; i < n; i++)
                if (text[i] == '\n') text = d->pMessage + i + 1;
        }
        printf("vkrun: printf: %s%s", text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
        return VK_FALSE;
    }
    if (sev >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        validation_messages++;
        fprintf(stderr, "vkrun: validation %s: %s\n", sev >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
                d->pMessage);
    }
    return VK_FALSE;
}

static int layer_installed(const char *name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *l = calloc(n + 1, sizeof *l);
    vkEnumerateInstanceLayerProperties(&n, l);
    int found = 0;
    for (uint32_t i = 0; i < n; i++) found |= !strcmp(l[i].layerName, name);
    free(l);
    return found;
}

int main(int argc, char **argv) {
    int validate = getenv("VKRUN_VALIDATE") && !strcmp(getenv("VKRUN_VALIDATE"), "1"), a0 = 1;
    if (argc > 1 && !strcmp(argv[1], "--validate")) validate = 1, a0 = 2;
    if (argc > 1 && !strcmp(argv[1], "--printf")) validate = printf_on = 1, a0 = 2;
    if (argc < a0 + 1) { fprintf(stderr, "usage: vkrun [--validate|--printf] MODULE.spv [--buffer S,B,FILE]... [--push FILE] ENTRY:GROUPS...\n"); return 1; }
    const char *push_file = NULL, *entries[MAXE];
    int nentries = 0, nloops = 0;
    struct { int first, last, buf; } loops[MAXE];
    for (int i = a0 + 1; i < argc; i++) {
        if (!strcmp(argv[i], "--loop") && i + 1 < argc) {
            if (nloops == MAXE) return fprintf(stderr, "vkrun: more than %d loops\n", MAXE), 1;
            if (sscanf(argv[++i], "%d,%d,%d", &loops[nloops].first, &loops[nloops].last, &loops[nloops].buf) != 3)
                return fprintf(stderr, "vkrun: bad --loop %s\n", argv[i]), 1;
            nloops++;
            continue;
        }
        if (!strcmp(argv[i], "--buffer") && i + 1 < argc) {
            if (nbufs == MAXB) return fprintf(stderr, "vkrun: more than %d buffers\n", MAXB), 1;
            Buf *b = &bufs[nbufs++];
            char *s = argv[++i], *c1 = strchr(s, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
            if (!c2 || sscanf(s, "%u,%u,", &b->set, &b->binding) != 2 || b->set > 1) return fprintf(stderr, "vkrun: bad --buffer %s\n", s), 1;
            b->file = c2 + 1;
        } else if (!strcmp(argv[i], "--push") && i + 1 < argc) push_file = argv[++i];
        else if (nentries < MAXE) entries[nentries++] = argv[i];
        else return fprintf(stderr, "vkrun: more than %d entry points\n", MAXE), 1;
    }
    size_t code_len, push_len = 0;
    uint32_t *code = slurp(argv[a0], &code_len);
    Module m = read_module(code, code_len / 4);

    uint32_t loader = VK_API_VERSION_1_0;
    PFN_vkEnumerateInstanceVersion eiv = (PFN_vkEnumerateInstanceVersion)vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
    if (eiv) eiv(&loader);
    if (loader < m.api) skip("the Vulkan loader is too old for the module", NULL);
    const char *layer = "VK_LAYER_KHRONOS_validation", *dbg_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validate && !layer_installed(layer)) {
        if (printf_on) skip(layer, " is not installed: nothing can print");
        fprintf(stderr, "vkrun: %s is not installed; running without validation\n", layer);
        validate = 0;
    }
    VkValidationFeatureEnableEXT dbg = VK_VALIDATION_FEATURE_ENABLE_DEBUG_PRINTF_EXT;
    VkDebugUtilsMessengerCreateInfoEXT mci = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT, NULL, 0,
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
            (printf_on ? VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT : 0),
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT, on_message, NULL};
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vkrun", 1, "qdc", 1, m.api};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &mci, 1, &dbg, 0, NULL};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, !validate ? NULL : printf_on ? (void *)&features : (void *)&mci, 0, &app,
                                (uint32_t)validate, &layer, (uint32_t)validate, &dbg_ext};
    VkInstance inst;
    if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) skip("no Vulkan instance", NULL);
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (validate) {
        PFN_vkCreateDebugUtilsMessengerEXT cm = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
        if (cm) CHECK(cm(inst, &mci, NULL, &messenger));
    }
    uint32_t qf = create_device(inst, &m);
    check_bindings(code, code_len / 4, entries, nentries); /* after the device: none is a skip (77) */
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    VkQueue queue;
    vkGetDeviceQueue(dev, qf, 0, &queue);
    for (int i = 0; i < nbufs; i++) make_buffer(&bufs[i]);
    void *push = push_file ? slurp(push_file, &push_len) : NULL;
    if (push_len > props.limits.maxPushConstantsSize)
        return fprintf(stderr, "vkrun: %zu push-constant bytes, the device allows %u\n", push_len, props.limits.maxPushConstantsSize), 1;
    VkShaderModuleCreateInfo smi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, code_len, code};
    VkShaderModule mod;
    CHECK(vkCreateShaderModule(dev, &smi, NULL, &mod));
    VkDescriptorSetLayout layouts[2] = {set_layout(0), set_layout(1)};
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t)((push_len + 3) & ~(size_t)3)};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 2, layouts, push_len ? 1 : 0, &pr};
    VkPipelineLayout pl;
    CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &pl));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, MAXB * 2};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 2, 1, &ps};
    VkDescriptorPool pool;
    CHECK(vkCreateDescriptorPool(dev, &dpi, NULL, &pool));
    VkDescriptorSetAllocateInfo dsa = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, pool, 2, layouts};
    VkDescriptorSet sets[2];
    CHECK(vkAllocateDescriptorSets(dev, &dsa, sets));
    write_sets(sets);
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, qf};
    VkCommandPool cpool;
    CHECK(vkCreateCommandPool(dev, &cpi, NULL, &cpool));
    for (int l = 0; l < nloops; l++)
        if (loops[l].first < 0 || loops[l].first > loops[l].last || loops[l].last >= nentries || loops[l].buf < 0 || loops[l].buf >= nbufs)
            return fprintf(stderr, "vkrun: --loop %d,%d,%d: no such entries or buffer\n", loops[l].first, loops[l].last, loops[l].buf), 1;
    /* one command buffer per entry: a loop submits a range of them again */
    VkCommandBufferAllocateInfo cba = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, cpool, VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       (uint32_t)(nentries ? nentries : 1)};
    VkCommandBuffer cbs[MAXE];
    CHECK(vkAllocateCommandBuffers(dev, &cba, cbs));
    VkCommandBufferBeginInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, nloops ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    VkPipeline pipes[MAXE];
    for (int e = 0; e < nentries; e++) {
        VkCommandBuffer cb = cbs[e];
        CHECK(vkBeginCommandBuffer(cb, &cbi));
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 2, sets, 0, NULL);
        if (push_len) vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, pr.size, push);
        char name[256];
        unsigned long groups = 1;
        snprintf(name, sizeof name, "%s", entries[e]);
        char *colon = strrchr(name, ':');
        if (colon) *colon = 0, groups = strtoul(colon + 1, NULL, 10);
        if (groups == 0 || groups > props.limits.maxComputeWorkGroupCount[0])
            return fprintf(stderr, "vkrun: %s: %lu groups (the device allows 1..%u)\n", name, groups,
                           props.limits.maxComputeWorkGroupCount[0]), 1;
        VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
            {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, mod, name, NULL}, pl, VK_NULL_HANDLE, -1};
        CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, NULL, &pipes[e]));
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipes[e]);
        vkCmdDispatch(cb, (uint32_t)groups, 1, 1);
        VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                             0, 1, &mb, 0, NULL, 0, NULL);
        CHECK(vkEndCommandBuffer(cb));
    }
    struct timespec t0, t1;
    timespec_get(&t0, TIME_UTC);
    for (int pc = 0; pc < nentries;) {
        int stop = nentries; /* the next loop boundary after pc */
        for (int l = 0; l < nloops; l++) {
            if (loops[l].first > pc && loops[l].first < stop) stop = loops[l].first;
            if (loops[l].last + 1 > pc && loops[l].last + 1 < stop) stop = loops[l].last + 1;
        }
        VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, (uint32_t)(stop - pc), &cbs[pc], 0, NULL};
        CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
        CHECK(vkQueueWaitIdle(queue));
        pc = stop;
        for (int l = nloops - 1; l >= 0; l--) /* innermost first */
            if (loops[l].last == stop - 1 && *(const int32_t *)bufs[loops[l].buf].map) {
                pc = loops[l].first;
                break;
            }
    }
    timespec_get(&t1, TIME_UTC);
    const char *tm = getenv("VKRUN_TIME");
    if (tm && *tm && strcmp(tm, "0"))
        fprintf(stderr, "vkrun: submit to idle %.3f ms\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    for (int i = 0; i < nbufs; i++) {
        FILE *f = fopen(bufs[i].file, "wb");
        if (!f || fwrite(bufs[i].map, 1, bufs[i].size, f) != bufs[i].size) return fprintf(stderr, "vkrun: cannot write %s\n", bufs[i].file), 1;
        fclose(f);
    }
    printf("vkrun: ran %d entry point(s) on %s (Vulkan %u.%u)\n", nentries, props.deviceName, VK_API_VERSION_MAJOR(m.api),
           VK_API_VERSION_MINOR(m.api));

    for (int e = 0; e < nentries; e++) vkDestroyPipeline(dev, pipes[e], NULL);
    vkFreeCommandBuffers(dev, cpool, (uint32_t)(nentries ? nentries : 1), cbs);
    vkDestroyCommandPool(dev, cpool, NULL);
    vkDestroyDescriptorPool(dev, pool, NULL);
    vkDestroyPipelineLayout(dev, pl, NULL);
    vkDestroyDescriptorSetLayout(dev, layouts[0], NULL);
    vkDestroyDescriptorSetLayout(dev, layouts[1], NULL);
    vkDestroyShaderModule(dev, mod, NULL);
    for (int i = 0; i < nbufs; i++) {
        vkUnmapMemory(dev, bufs[i].mem);
        vkDestroyBuffer(dev, bufs[i].buf, NULL);
        vkFreeMemory(dev, bufs[i].mem, NULL);
    }
    vkDestroyDevice(dev, NULL);
    if (messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT dm = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        if (dm) dm(inst, messenger, NULL);
    }
    vkDestroyInstance(inst, NULL);
    free(code), free(push);
    if (validation_messages) {
        fprintf(stderr, "vkrun: %u validation message(s)\n", validation_messages);
        return 4;
    }
    return 0;
}
