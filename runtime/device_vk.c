/* libqdrt's Vulkan device, through the system loader opened at run time (libvulkan.so.1; no link
 * dependency). The first physical device with a compute queue is made either for every feature
 * of the structures below that it has, at the highest Vulkan version (up to 1.3) both the loader
 * and it have, or (qdrt_vulkan_options.spirv) for one module: its version and exactly the
 * features its capabilities, extensions and atomic instructions need. A module is checked
 * against the device when it loads (SPIR-V version, what it needs), so a missing feature is
 * named, never a driver crash. Buffers are host-visible and coherent. Entry points run as
 * qdrt_dispatch says (bindings, push constants, groups, loops); a kernel launch is a dispatch
 * with qdc-spirv(7)'s layout: ndarray parameters at set 0, fields at set 1, scalars and
 * extents in the push-constant block. tools/vulkan-runner/vkrun is a client of this file. */
#define VK_NO_PROTOTYPES
#include "qdrt_backend.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define VK_FNS(X)                                                                                                    \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)                              \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceFeatures2) X(vkEnumerateDeviceExtensionProperties) \
    X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer)  \
    X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory)     \
    X(vkMapMemory) X(vkUnmapMemory) X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout)  \
    X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout) X(vkCreateComputePipelines)  \
    X(vkDestroyPipeline) X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)             \
    X(vkUpdateDescriptorSets) X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)              \
    X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline)                        \
    X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier) X(vkQueueSubmit)        \
    X(vkQueueWaitIdle)

/* ---- what a module needs ---- */

/* The feature structures a device can be made with; each need below is one field of one. */
enum {
#define VK_FEATURES(id, stype, T, core, ext) id,
#include "vk_features.def"
    NSTRUCT
};
static const struct {
    VkStructureType stype;
    size_t size;
    uint32_t core;   /* Vulkan version that has it without an extension (0: never) */
    const char *ext; /* the device extension otherwise */
} structs[NSTRUCT] = {
#define VK_FEATURES(id, stype, T, core, ext) [id] = {stype, sizeof(T), core, ext},
#include "vk_features.def"
};

enum {
    N_INT64, N_INT16, N_FLOAT64, N_INT8, N_FLOAT16, N_SB8, N_SB16, N_BUF_I64ATOM, N_SH_I64ATOM, N_VMM, N_VMM_DEV,
    N_BUF_F32, N_BUF_F32ADD, N_BUF_F64, N_BUF_F64ADD, N_SH_F32, N_SH_F32ADD, N_SH_F64, N_SH_F64ADD,
    N_BUF_F16, N_BUF_F16ADD, N_BUF_F16MM, N_BUF_F32MM, N_BUF_F64MM, N_SH_F16, N_SH_F16ADD, N_SH_F16MM, N_SH_F32MM, N_SH_F64MM,
    N_DEV_CLOCK, NNEED
};
/* Each need: its structure, the field's offset and name, and the SPIR-V capability (the 1.6
 * specification's number) that brings it (0: an atomic load, store or exchange of a float). */
typedef struct { int s; size_t off; const char *name; uint32_t cap; } Need;
#define CORE(f, c) {S_CORE, offsetof(VkPhysicalDeviceFeatures2, features.f), #f, c}
#define FIELD(s, T, f, c) {s, offsetof(T, f), #f, c}
#define FA(n, f, c) [n] = FIELD(S_FATOM, VkPhysicalDeviceShaderAtomicFloatFeaturesEXT, f, c)
#define FA2(n, f, c) [n] = FIELD(S_FATOM2, VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT, f, c)
static const Need needs[NNEED] = {
    [N_INT64] = CORE(shaderInt64, 11), [N_INT16] = CORE(shaderInt16, 22), [N_FLOAT64] = CORE(shaderFloat64, 10),
    [N_INT8] = FIELD(S_F16I8, VkPhysicalDeviceShaderFloat16Int8Features, shaderInt8, 39),
    [N_FLOAT16] = FIELD(S_F16I8, VkPhysicalDeviceShaderFloat16Int8Features, shaderFloat16, 9),
    [N_SB8] = FIELD(S_8BIT, VkPhysicalDevice8BitStorageFeatures, storageBuffer8BitAccess, 4448),
    [N_SB16] = FIELD(S_16BIT, VkPhysicalDevice16BitStorageFeatures, storageBuffer16BitAccess, 4433),
    [N_BUF_I64ATOM] = FIELD(S_I64ATOM, VkPhysicalDeviceShaderAtomicInt64Features, shaderBufferInt64Atomics, 12),
    [N_SH_I64ATOM] = FIELD(S_I64ATOM, VkPhysicalDeviceShaderAtomicInt64Features, shaderSharedInt64Atomics, 12),
    [N_VMM] = FIELD(S_MEMMODEL, VkPhysicalDeviceVulkanMemoryModelFeatures, vulkanMemoryModel, 5345),
    [N_VMM_DEV] = FIELD(S_MEMMODEL, VkPhysicalDeviceVulkanMemoryModelFeatures, vulkanMemoryModelDeviceScope, 5346),
    FA(N_BUF_F32, shaderBufferFloat32Atomics, 0), FA(N_BUF_F32ADD, shaderBufferFloat32AtomicAdd, 6033),
    FA(N_BUF_F64, shaderBufferFloat64Atomics, 0), FA(N_BUF_F64ADD, shaderBufferFloat64AtomicAdd, 6034),
    FA(N_SH_F32, shaderSharedFloat32Atomics, 0), FA(N_SH_F32ADD, shaderSharedFloat32AtomicAdd, 6033),
    FA(N_SH_F64, shaderSharedFloat64Atomics, 0), FA(N_SH_F64ADD, shaderSharedFloat64AtomicAdd, 6034),
    FA2(N_BUF_F16, shaderBufferFloat16Atomics, 0), FA2(N_BUF_F16ADD, shaderBufferFloat16AtomicAdd, 6095),
    FA2(N_BUF_F16MM, shaderBufferFloat16AtomicMinMax, 5616), FA2(N_BUF_F32MM, shaderBufferFloat32AtomicMinMax, 5612),
    FA2(N_BUF_F64MM, shaderBufferFloat64AtomicMinMax, 5613), FA2(N_SH_F16, shaderSharedFloat16Atomics, 0),
    FA2(N_SH_F16ADD, shaderSharedFloat16AtomicAdd, 6095), FA2(N_SH_F16MM, shaderSharedFloat16AtomicMinMax, 5616),
    FA2(N_SH_F32MM, shaderSharedFloat32AtomicMinMax, 5612), FA2(N_SH_F64MM, shaderSharedFloat64AtomicMinMax, 5613),
    [N_DEV_CLOCK] = FIELD(S_CLOCK, VkPhysicalDeviceShaderClockFeaturesKHR, shaderDeviceClock, 5055),
};

typedef struct Needs {
    uint32_t api;               /* the Vulkan version the SPIR-V version needs */
    bool need[NNEED];
    bool ext[NSTRUCT];          /* a SPIR-V extension asks for this structure's device extension */
    bool non_semantic;          /* SPV_KHR_non_semantic_info: VK_KHR_shader_non_semantic_info before 1.3 */
    char **entries;             /* the GLCompute entry points' names */
    int nentries;
} Needs;

static void needs_free(Needs *n) {
    for (int i = 0; i < n->nentries; i++) free(n->entries[i]);
    free(n->entries);
    n->entries = NULL, n->nentries = 0;
}

/* SPIR-V opcodes and enumerants read here (the SPIR-V 1.6 specification's numbers). */
enum { OpExtension = 10, OpEntryPoint = 15, OpCapability = 17, OpTypeInt = 21, OpTypeFloat = 22, OpTypePointer = 32,
       OpVariable = 59, OpAccessChain = 65, OpPtrAccessChain = 67, OpAtomicLoad = 227, OpAtomicStore = 228,
       OpAtomicXor = 242, OpAtomicFMinEXT = 5614, OpAtomicFMaxEXT = 5615, OpAtomicFAddEXT = 6035 };
enum { SC_Workgroup = 4, SC_StorageBuffer = 12 };

static bool capability(Needs *m, uint32_t cap) {
    if (cap == 1 /* Shader */ || (cap >= 61 && cap <= 68) /* GroupNonUniform* */) return true;
    if (cap == 12 || cap == 6033 || cap == 6034 || cap == 6095 || cap == 5612 || cap == 5613 || cap == 5616)
        return true; /* atomics: the instructions say buffer or shared */
    for (int i = 0; i < NNEED; i++)
        if (needs[i].cap == cap) return m->need[i] = true;
    return false;
}

static bool extension(Needs *m, const char *name) {
    static const struct { const char *spv; int s; } map[] = {
        {"SPV_KHR_storage_buffer_storage_class", -1}, {"SPV_KHR_16bit_storage", S_16BIT},
        {"SPV_KHR_8bit_storage", S_8BIT}, {"SPV_KHR_vulkan_memory_model", S_MEMMODEL},
        {"SPV_EXT_shader_atomic_float_add", S_FATOM}, {"SPV_EXT_shader_atomic_float_min_max", S_FATOM2},
        {"SPV_EXT_shader_atomic_float16_add", S_FATOM2}, {"SPV_KHR_shader_clock", S_CLOCK},
    };
    if (!strcmp(name, "SPV_KHR_non_semantic_info")) return m->non_semantic = true;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].spv, name)) {
            if (map[i].s >= 0) m->ext[map[i].s] = true;
            return true;
        }
    return false;
}

/* Result type of each id, and for type ids what they are. */
typedef struct { uint32_t type, op, sc, pointee, width; } Id;

/* What one atomic instruction on a pointer needs. */
static void atomic_needs(Needs *m, const Id *ids, uint32_t bound, uint32_t op, uint32_t ptr) {
    uint32_t pt = ptr < bound ? ids[ptr].type : 0, t = pt < bound ? ids[pt].pointee : 0;
    if (!pt || ids[pt].op != OpTypePointer || !t || t >= bound) return;
    int shared = ids[pt].sc == SC_Workgroup, w = (int)ids[t].width;
    if (ids[pt].sc != SC_Workgroup && ids[pt].sc != SC_StorageBuffer) return;
    if (ids[t].op == OpTypeInt) {
        if (w == 64) m->need[shared ? N_SH_I64ATOM : N_BUF_I64ATOM] = true;
        return;
    }
    if (ids[t].op != OpTypeFloat) return;
    int k = w == 16 ? 0 : w == 32 ? 1 : 2;
    static const int plain[2][3] = {{N_BUF_F16, N_BUF_F32, N_BUF_F64}, {N_SH_F16, N_SH_F32, N_SH_F64}};
    static const int add[2][3] = {{N_BUF_F16ADD, N_BUF_F32ADD, N_BUF_F64ADD}, {N_SH_F16ADD, N_SH_F32ADD, N_SH_F64ADD}};
    static const int mm[2][3] = {{N_BUF_F16MM, N_BUF_F32MM, N_BUF_F64MM}, {N_SH_F16MM, N_SH_F32MM, N_SH_F64MM}};
    if (op == OpAtomicFAddEXT) m->need[add[shared][k]] = true;
    else if (op == OpAtomicFMinEXT || op == OpAtomicFMaxEXT) m->need[mm[shared][k]] = true;
    else m->need[plain[shared][k]] = true; /* load, store, exchange of a float */
}

/* Reads what module w[0..nwords) needs: QDRT_E_MODULE when it is not SPIR-V, QDRT_E_UNSUPPORTED
 * for a capability or extension libqdrt does not know. */
static qdrt_status read_needs(const uint32_t *w, size_t nwords, Needs *m) {
    memset(m, 0, sizeof *m);
    if (nwords < 5 || w[0] != 0x07230203u) return qdrt_fail(QDRT_E_MODULE, "not a SPIR-V module");
    uint32_t minor = (w[1] >> 8) & 0xff, bound = w[3];
    if (bound > (1u << 24)) return qdrt_fail(QDRT_E_MODULE, "malformed SPIR-V: id bound %u", bound);
    m->api = minor <= 3 ? VK_API_VERSION_1_1 : minor <= 5 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_3;
    Id *ids = calloc((size_t)bound + 1, sizeof *ids);
    if (!ids) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    qdrt_status st = QDRT_OK;
    for (size_t i = 5; i < nwords && !st;) {
        uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
        if (!len || i + len > nwords) {
            st = qdrt_fail(QDRT_E_MODULE, "malformed SPIR-V at word %zu", i);
            break;
        }
        const uint32_t *a = w + i + 1;
        const char *text = (const char *)a;
        size_t room = 4 * (size_t)(len - 1);
        if (op == OpCapability && len >= 2 && !capability(m, a[0]))
            st = qdrt_fail(QDRT_E_UNSUPPORTED, "the module uses SPIR-V capability %u, which libqdrt does not know", a[0]);
        else if (op == OpExtension && (!memchr(text, 0, room) || !extension(m, text)))
            st = qdrt_fail(QDRT_E_UNSUPPORTED, "the module uses SPIR-V extension %.*s, which libqdrt does not know", (int)(room < 64 ? room : 64), text);
        else if (op == OpEntryPoint && len >= 4 && a[0] == 5 /* GLCompute */ && memchr(a + 2, 0, 4 * (size_t)(len - 3))) {
            char **e = realloc(m->entries, (size_t)(m->nentries + 1) * sizeof *e);
            if (!e || !(e[m->nentries] = malloc(strlen((const char *)(a + 2)) + 1))) st = qdrt_fail(QDRT_E_MEMORY, "out of memory");
            if (e) m->entries = e;
            if (!st) strcpy(m->entries[m->nentries++], (const char *)(a + 2));
        }
        if ((op == OpTypeInt || op == OpTypeFloat) && len >= 3 && a[0] < bound) ids[a[0]].op = op, ids[a[0]].width = a[1];
        if (op == OpTypePointer && len >= 4 && a[0] < bound) ids[a[0]].op = op, ids[a[0]].sc = a[1], ids[a[0]].pointee = a[2];
        if ((op == OpVariable || (op >= OpAccessChain && op <= OpPtrAccessChain)) && len >= 3 && a[1] < bound) ids[a[1]].type = a[0];
        if ((op >= OpAtomicLoad && op <= OpAtomicXor) || op == OpAtomicFMinEXT || op == OpAtomicFMaxEXT || op == OpAtomicFAddEXT)
            atomic_needs(m, ids, bound, op, op == OpAtomicStore ? a[0] : len >= 4 ? a[2] : 0);
        i += len;
    }
    free(ids);
    if (st) needs_free(m);
    return st;
}

/* ---- the device ---- */

typedef struct Vk {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
#define X(f) PFN_##f f;
    VK_FNS(X)
#undef X
    VkInstance inst;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    VkCommandPool cpool;
    uint32_t api, qf, max_groups, max_push;
    VkPhysicalDeviceMemoryProperties mem;
    void *feat[NSTRUCT]; /* what the device was made with; NULL: not chained */
    bool non_semantic, validation, printf_on;
    void (*on_message)(void *, qdrt_message_kind, const char *);
    void *user;
    char device[256], features[1024], extensions[512];
} Vk;

typedef struct VkMod { VkShaderModule sm; Needs needs; } VkMod;

#define VKCHECK(call)                                                                                       \
    do {                                                                                                    \
        VkResult r_ = (call);                                                                               \
        if (r_ != VK_SUCCESS) return vk_fail(r_, #call);                                                    \
    } while (0)

static qdrt_status vk_fail(VkResult r, const char *call) {
    if (!strncmp(call, "v->", 3)) call += 3;
    return qdrt_fail(r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? QDRT_E_MEMORY : QDRT_E_DEVICE,
                     "Vulkan: %.*s failed (VkResult %d)", (int)strcspn(call, "("), call, (int)r);
}

static void vk_close(qdrt_device *d) {
    Vk *v = d->impl;
    if (!v) return;
    if (v->cpool) v->vkDestroyCommandPool(v->dev, v->cpool, NULL);
    if (v->dev) v->vkDestroyDevice(v->dev, NULL);
    if (v->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT dm = (PFN_vkDestroyDebugUtilsMessengerEXT)v->gipa(v->inst, "vkDestroyDebugUtilsMessengerEXT");
        if (dm) dm(v->inst, v->messenger, NULL);
    }
    if (v->inst) v->vkDestroyInstance(v->inst, NULL);
    for (int s = 0; s < NSTRUCT; s++) free(v->feat[s]);
    if (v->lib) dlclose(v->lib);
    free(v);
    d->impl = NULL;
}

static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name)) return true;
    return false;
}

static VkBool32 *field(void *s, size_t off) { return (VkBool32 *)((char *)s + off); }

static void append(char *buf, size_t size, const char *word) {
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", n ? " " : "", word);
}

/* The validation layer's messages: warnings and errors counted by the caller, Debug Printf
 * lines given as their text alone. */
static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev, VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d, void *user) {
    Vk *v = user;
    (void)type;
    if (v->printf_on && d->pMessageIdName && strstr(d->pMessageIdName, "DEBUG-PRINTF")) {
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
        char line[4096];
        snprintf(line, sizeof line, "%s", text);
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n') line[n - 1] = 0;
        if (v->on_message) v->on_message(v->user, QDRT_MSG_PRINTF, line);
    } else if (sev >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT && v->on_message)
        v->on_message(v->user, sev >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? QDRT_MSG_ERROR : QDRT_MSG_WARNING, d->pMessage);
    return VK_FALSE;
}

static bool layer_installed(Vk *v, const char *name) {
    PFN_vkEnumerateInstanceLayerProperties el = (PFN_vkEnumerateInstanceLayerProperties)v->gipa(NULL, "vkEnumerateInstanceLayerProperties");
    uint32_t n = 0;
    if (!el || el(&n, NULL) != VK_SUCCESS) return false;
    VkLayerProperties *l = calloc((size_t)n + 1, sizeof *l);
    bool found = false;
    if (l && el(&n, l) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) found |= !strcmp(l[i].layerName, name);
    free(l);
    return found;
}

static qdrt_status make_instance(Vk *v, const qdrt_vulkan_options *o, const Needs *mod) {
    const char *lib = getenv("QDRT_VULKAN_LIBRARY");
    if (!(v->lib = dlopen(lib && *lib ? lib : "libvulkan.so.1", RTLD_NOW | RTLD_LOCAL)))
        return qdrt_fail(QDRT_E_NO_DEVICE, "no Vulkan loader (%s): %s", lib && *lib ? lib : "libvulkan.so.1", dlerror());
    if (!(v->gipa = (PFN_vkGetInstanceProcAddr)dlsym(v->lib, "vkGetInstanceProcAddr")))
        return qdrt_fail(QDRT_E_NO_DEVICE, "the Vulkan loader has no vkGetInstanceProcAddr");
    PFN_vkCreateInstance ci = (PFN_vkCreateInstance)v->gipa(NULL, "vkCreateInstance");
    PFN_vkEnumerateInstanceVersion eiv = (PFN_vkEnumerateInstanceVersion)v->gipa(NULL, "vkEnumerateInstanceVersion");
    uint32_t loader = VK_API_VERSION_1_0;
    if (eiv) eiv(&loader);
    if (loader < VK_API_VERSION_1_1) return qdrt_fail(QDRT_E_NO_DEVICE, "the Vulkan loader is older than 1.1");
    if (mod && loader < mod->api)
        return qdrt_fail(QDRT_E_FEATURE, "the Vulkan loader is too old for the module (loader 1.%u, module needs 1.%u)",
                         VK_API_VERSION_MINOR(loader), VK_API_VERSION_MINOR(mod->api));
    v->api = mod ? mod->api : loader < VK_API_VERSION_1_3 ? loader : VK_API_VERSION_1_3;
    static const char *const layer = "VK_LAYER_KHRONOS_validation", *const dbg_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    v->validation = o && o->validate && layer_installed(v, layer);
    v->printf_on = v->validation && o->debug_printf;
    if (o) v->on_message = o->on_message, v->user = o->user;
    VkValidationFeatureEnableEXT dbg = VK_VALIDATION_FEATURE_ENABLE_DEBUG_PRINTF_EXT;
    VkDebugUtilsMessengerCreateInfoEXT mci = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT, NULL, 0,
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
            (v->printf_on ? VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT : 0),
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT, on_message, v};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &mci, 1, &dbg, 0, NULL};
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "libqdrt", 1, "qdc", 1, v->api};
    uint32_t nl = v->validation ? 1 : 0;
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, !nl ? NULL : v->printf_on ? (void *)&features : (void *)&mci, 0,
                                &app, nl, &layer, nl, &dbg_ext};
    if (!ci || ci(&ici, NULL, &v->inst) != VK_SUCCESS) return v->inst = NULL, qdrt_fail(QDRT_E_NO_DEVICE, "no Vulkan instance (no driver?)");
#define X(f)                                                                                      \
    if (!(v->f = (PFN_##f)v->gipa(v->inst, #f))) return qdrt_fail(QDRT_E_NO_DEVICE, "Vulkan: no %s", #f);
    VK_FNS(X)
#undef X
    if (v->validation) {
        PFN_vkCreateDebugUtilsMessengerEXT cm = (PFN_vkCreateDebugUtilsMessengerEXT)v->gipa(v->inst, "vkCreateDebugUtilsMessengerEXT");
        if (cm) VKCHECK(cm(v->inst, &mci, NULL, &v->messenger));
    }
    return QDRT_OK;
}

/* The first physical device with a compute queue; its version, limits and memory types. */
static qdrt_status pick_device(qdrt_device *d, Vk *v, const Needs *mod) {
    uint32_t n = 0;
    VkPhysicalDevice devs[16];
    v->vkEnumeratePhysicalDevices(v->inst, &n, NULL);
    if (n > 16) n = 16;
    v->vkEnumeratePhysicalDevices(v->inst, &n, devs);
    for (uint32_t i = 0; i < n && !v->phys; i++) {
        uint32_t nq = 0;
        VkQueueFamilyProperties q[16];
        v->vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, NULL);
        if (nq > 16) nq = 16;
        v->vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, q);
        for (uint32_t k = 0; k < nq && !v->phys; k++)
            if (q[k].queueFlags & VK_QUEUE_COMPUTE_BIT) v->phys = devs[i], v->qf = k;
    }
    if (!v->phys) return qdrt_fail(QDRT_E_NO_DEVICE, "no Vulkan device with a compute queue");
    VkPhysicalDeviceProperties props;
    v->vkGetPhysicalDeviceProperties(v->phys, &props);
    snprintf(v->device, sizeof v->device, "%s", props.deviceName);
    if (mod && props.apiVersion < mod->api)
        return qdrt_fail(QDRT_E_FEATURE, "the device's Vulkan version is too old for the module (device %u.%u, module needs %u.%u)",
                         VK_API_VERSION_MAJOR(props.apiVersion), VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_MAJOR(mod->api),
                         VK_API_VERSION_MINOR(mod->api));
    if (props.apiVersion < v->api) v->api = props.apiVersion;
    if (v->api < VK_API_VERSION_1_1) return qdrt_fail(QDRT_E_NO_DEVICE, "the Vulkan device %s is older than 1.1", props.deviceName);
    v->max_groups = props.limits.maxComputeWorkGroupCount[0];
    v->max_push = props.limits.maxPushConstantsSize;
    snprintf(d->name, sizeof d->name, "vulkan: %s (Vulkan %u.%u)", props.deviceName, VK_API_VERSION_MAJOR(v->api), VK_API_VERSION_MINOR(v->api));
    snprintf(d->target, sizeof d->target, "vulkan1.%u", VK_API_VERSION_MINOR(v->api) < 3 ? VK_API_VERSION_MINOR(v->api) : 3);
    v->vkGetPhysicalDeviceMemoryProperties(v->phys, &v->mem);
    return QDRT_OK;
}

/* Chains the structures, queries them and keeps in v->feat what the device is made with: all
 * it has (mod NULL), or exactly what mod needs. enable[] gets the extensions. */
static qdrt_status choose_features(Vk *v, const Needs *mod, const VkExtensionProperties *exts, uint32_t ne, const char **enable,
                                   uint32_t *nenable) {
    bool used[NSTRUCT] = {0};
    used[S_CORE] = true;
    for (int s = 1; s < NSTRUCT; s++) {
        bool core = structs[s].core && v->api >= structs[s].core;
        if (!mod) used[s] = core || (structs[s].ext && has_ext(exts, ne, structs[s].ext));
        else used[s] = mod->ext[s];
    }
    for (int i = 0; mod && i < NNEED; i++) used[needs[i].s] |= mod->need[i];
    used[S_FATOM] |= used[S_FATOM2]; /* VK_EXT_shader_atomic_float2 requires VK_EXT_shader_atomic_float */
    for (int s = 1; s < NSTRUCT; s++) {
        if (!used[s] || (structs[s].core && v->api >= structs[s].core)) continue;
        if (!has_ext(exts, ne, structs[s].ext))
            return qdrt_fail(QDRT_E_FEATURE, "the module needs the device extension %s; %s does not have it", structs[s].ext, v->device);
        enable[(*nenable)++] = structs[s].ext;
    }
    void *query[NSTRUCT] = {0};
    qdrt_status st = QDRT_OK;
    for (int s = 0; s < NSTRUCT && !st; s++)
        if (used[s] && (!(query[s] = calloc(1, structs[s].size)) || !(v->feat[s] = calloc(1, structs[s].size))))
            st = qdrt_fail(QDRT_E_MEMORY, "out of memory");
    for (int s = 0; s < NSTRUCT && !st; s++)
        if (used[s]) ((VkBaseOutStructure *)query[s])->sType = ((VkBaseOutStructure *)v->feat[s])->sType = structs[s].stype;
    VkBaseOutStructure *tq = query[S_CORE], *tw = v->feat[S_CORE];
    for (int s = 1; s < NSTRUCT && !st; s++)
        if (used[s]) tq = tq->pNext = query[s], tw = tw->pNext = v->feat[s];
    if (!st) v->vkGetPhysicalDeviceFeatures2(v->phys, query[S_CORE]);
    for (int i = 0; i < NNEED && !st; i++) {
        if (!used[needs[i].s] || !(mod ? mod->need[i] : *field(query[needs[i].s], needs[i].off))) continue;
        if (!*field(query[needs[i].s], needs[i].off))
            st = qdrt_fail(QDRT_E_FEATURE, "the module needs the Vulkan feature %s; %s does not have it", needs[i].name, v->device);
        else *field(v->feat[needs[i].s], needs[i].off) = VK_TRUE, append(v->features, sizeof v->features, needs[i].name);
    }
    for (int s = 0; !mod && !st && s < NSTRUCT; s++) /* every feature it has, passed on as queried */
        if (used[s]) {
            VkBaseOutStructure *f = v->feat[s];
            void *next = f->pNext;
            memcpy(f, query[s], structs[s].size);
            f->pNext = next;
        }
    if (!mod && !st) /* robust buffer access costs speed, and qdc's kernels stay in bounds */
        ((VkPhysicalDeviceFeatures2 *)v->feat[S_CORE])->features.robustBufferAccess = VK_FALSE;
    for (int s = 0; s < NSTRUCT; s++) free(query[s]);
    return st;
}

static qdrt_status vk_create(qdrt_device *d, Vk *v, const qdrt_vulkan_options *o, const Needs *mod) {
    qdrt_status st = make_instance(v, o, mod);
    if (!st) st = pick_device(d, v, mod);
    if (st) return st;
    uint32_t ne = 0;
    v->vkEnumerateDeviceExtensionProperties(v->phys, NULL, &ne, NULL);
    VkExtensionProperties *exts = calloc((size_t)ne + 1, sizeof *exts);
    if (!exts) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    v->vkEnumerateDeviceExtensionProperties(v->phys, NULL, &ne, exts);
    const char *enable[NSTRUCT + 1];
    uint32_t nenable = 0;
    st = choose_features(v, mod, exts, ne, enable, &nenable);
    bool ns_ext = has_ext(exts, ne, VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME);
    free(exts);
    if (st) return st;
    v->non_semantic = v->api >= VK_API_VERSION_1_3;
    if (!v->non_semantic && (mod ? mod->non_semantic : ns_ext)) {
        if (!ns_ext)
            return qdrt_fail(QDRT_E_FEATURE, "the module needs the device extension %s; %s does not have it",
                             VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME, v->device);
        enable[nenable++] = VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME, v->non_semantic = true;
    }
    for (uint32_t i = 0; i < nenable; i++) append(v->extensions, sizeof v->extensions, enable[i]);
    float prio = 1;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, v->qf, 1, &prio};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, v->feat[S_CORE], 0, 1, &qi, 0, NULL, nenable, enable, NULL};
    VKCHECK(v->vkCreateDevice(v->phys, &dci, NULL, &v->dev));
    v->vkGetDeviceQueue(v->dev, v->qf, 0, &v->queue);
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, v->qf};
    VKCHECK(v->vkCreateCommandPool(v->dev, &cpi, NULL, &v->cpool));
    return QDRT_OK;
}

static qdrt_status vk_open(qdrt_device *d, const qdrt_vulkan_options *o) {
    Needs mod = {0};
    bool for_module = o && o->spirv;
    if (for_module) {
        if (o->spirv_size % 4) return qdrt_fail(QDRT_E_MODULE, "not a SPIR-V module (%zu bytes, not a multiple of 4)", o->spirv_size);
        uint32_t *words = malloc(o->spirv_size + 4);
        if (!words) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
        memcpy(words, o->spirv, o->spirv_size);
        qdrt_status st = read_needs(words, o->spirv_size / 4, &mod);
        free(words);
        if (st) return st;
        needs_free(&mod); /* the entry points are checked when a module loads */
    }
    Vk *v = calloc(1, sizeof *v);
    if (!v) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    d->impl = v;
    qdrt_status st = vk_create(d, v, o, for_module ? &mod : NULL);
    if (st) vk_close(d);
    return st;
}

qdrt_status qdrt_device_vulkan_info(const qdrt_device *d, qdrt_vulkan_info *out) {
    if (d->kind != QDRT_DEVICE_VULKAN) return qdrt_fail(QDRT_E_ARGUMENT, "%s is not a Vulkan device", d->name);
    const Vk *v = d->impl;
    *out = (qdrt_vulkan_info){v->api, v->device, v->features, v->extensions, v->validation, v->max_groups, v->max_push};
    return QDRT_OK;
}

/* ---- buffers ---- */

typedef struct VkBuf { VkBuffer buf; VkDeviceMemory mem; } VkBuf;

static qdrt_status vk_alloc(qdrt_array *a) {
    Vk *v = a->dev->impl;
    VkBuf *b = calloc(1, sizeof *b);
    if (!b) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    a->impl = b;
    VkDeviceSize size = a->bytes ? a->bytes : 4;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    VKCHECK(v->vkCreateBuffer(v->dev, &bi, NULL, &b->buf));
    VkMemoryRequirements req;
    v->vkGetBufferMemoryRequirements(v->dev, b->buf, &req);
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < v->mem.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (v->mem.memoryTypes[i].propertyFlags & want) == want) type = i;
    if (type == UINT32_MAX) return qdrt_fail(QDRT_E_FEATURE, "Vulkan: the device has no host-visible coherent memory for buffers");
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type};
    VKCHECK(v->vkAllocateMemory(v->dev, &ai, NULL, &b->mem));
    VKCHECK(v->vkBindBufferMemory(v->dev, b->buf, b->mem, 0));
    VKCHECK(v->vkMapMemory(v->dev, b->mem, 0, VK_WHOLE_SIZE, 0, &a->host));
    memset(a->host, 0, size);
    return QDRT_OK;
}

static void vk_release(qdrt_array *a) {
    Vk *v = a->dev->impl;
    VkBuf *b = a->impl;
    if (!b) return;
    if (a->host) v->vkUnmapMemory(v->dev, b->mem);
    if (b->buf) v->vkDestroyBuffer(v->dev, b->buf, NULL);
    if (b->mem) v->vkFreeMemory(v->dev, b->mem, NULL);
    free(b);
    a->impl = NULL;
}

static qdrt_status vk_write(qdrt_array *a, const void *src) { return memcpy(a->host, src, a->bytes), QDRT_OK; }
static qdrt_status vk_read(const qdrt_array *a, void *dst) { return memcpy(dst, a->host, a->bytes), QDRT_OK; }

/* ---- pipelines and runs ---- */

/* The layouts for a set of (set, binding) slots and a push-constant block, and one pipeline per entry. */
typedef struct Pipes {
    VkDescriptorSetLayout layouts[2];
    VkPipelineLayout pl;
    VkPipeline *pipes;
    int n;
    uint32_t nbind, push;
} Pipes;

static void pipes_free(Vk *v, Pipes *p) {
    for (int t = 0; p->pipes && t < p->n; t++)
        if (p->pipes[t]) v->vkDestroyPipeline(v->dev, p->pipes[t], NULL);
    if (p->pl) v->vkDestroyPipelineLayout(v->dev, p->pl, NULL);
    for (int s = 0; s < 2; s++)
        if (p->layouts[s]) v->vkDestroyDescriptorSetLayout(v->dev, p->layouts[s], NULL);
    free(p->pipes);
    memset(p, 0, sizeof *p);
}

static qdrt_status pipes_make(Vk *v, const VkMod *vm, const qdrt_binding *b, int nb, size_t push_bytes, const char *const *names, int n,
                              Pipes *p) {
    memset(p, 0, sizeof *p);
    for (int t = 0; t < n; t++) {
        int e = 0;
        while (e < vm->needs.nentries && strcmp(vm->needs.entries[e], names[t])) e++;
        if (e == vm->needs.nentries) return qdrt_fail(QDRT_E_ARGUMENT, "the module has no compute entry point %s", names[t]);
    }
    VkDescriptorSetLayoutBinding *lb = calloc((size_t)nb + 1, sizeof *lb);
    if (!lb || !(p->pipes = calloc((size_t)n + 1, sizeof *p->pipes))) return free(lb), qdrt_fail(QDRT_E_MEMORY, "out of memory");
    p->n = n, p->nbind = (uint32_t)nb, p->push = (uint32_t)(push_bytes + 3) & ~3u;
    VkResult r = VK_SUCCESS;
    for (uint32_t s = 0; s < 2 && !r; s++) {
        uint32_t k = 0;
        for (int i = 0; i < nb; i++)
            if (b[i].set == s)
                lb[k++] = (VkDescriptorSetLayoutBinding){b[i].binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo ci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, k, lb};
        r = v->vkCreateDescriptorSetLayout(v->dev, &ci, NULL, &p->layouts[s]);
    }
    free(lb);
    if (r) return vk_fail(r, "vkCreateDescriptorSetLayout");
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 2, p->layouts, p->push ? 1 : 0, &pr};
    VKCHECK(v->vkCreatePipelineLayout(v->dev, &pli, NULL, &p->pl));
    for (int t = 0; t < n; t++) {
        VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
            {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, vm->sm, names[t], NULL},
            p->pl, VK_NULL_HANDLE, -1};
        VKCHECK(v->vkCreateComputePipelines(v->dev, VK_NULL_HANDLE, 1, &cpci, NULL, &p->pipes[t]));
    }
    return QDRT_OK;
}

static qdrt_status record(Vk *v, const Pipes *p, VkDescriptorSet *sets, const void *push, const uint32_t *groups, VkCommandBuffer *cbs,
                          bool reuse) {
    VkCommandBufferBeginInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, reuse ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    for (int t = 0; t < p->n; t++) {
        VkCommandBuffer cb = cbs[t];
        VKCHECK(v->vkBeginCommandBuffer(cb, &cbi));
        v->vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pl, 0, 2, sets, 0, NULL);
        if (p->push) v->vkCmdPushConstants(cb, p->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push, push);
        v->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipes[t]);
        v->vkCmdDispatch(cb, groups[t], 1, 1);
        VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT};
        v->vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0,
                                1, &mb, 0, NULL, 0, NULL);
        VKCHECK(v->vkEndCommandBuffer(cb));
    }
    return QDRT_OK;
}

/* Submits the entries in order; a loop's range again while its condition holds. */
static qdrt_status submit(Vk *v, int n, const qdrt_repeat *loops, int nloops, VkCommandBuffer *cbs) {
    for (int pc = 0; pc < n;) {
        int stop = n; /* the next loop boundary after pc */
        for (int l = 0; l < nloops; l++) {
            if (loops[l].first > pc && loops[l].first < stop) stop = loops[l].first;
            if (loops[l].last + 1 > pc && loops[l].last + 1 < stop) stop = loops[l].last + 1;
        }
        VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, (uint32_t)(stop - pc), &cbs[pc], 0, NULL};
        VKCHECK(v->vkQueueSubmit(v->queue, 1, &si, VK_NULL_HANDLE));
        VKCHECK(v->vkQueueWaitIdle(v->queue));
        pc = stop;
        for (int l = nloops - 1; l >= 0; l--) /* innermost first */
            if (loops[l].last == stop - 1 && qdrt_nonzero(loops[l].dtype, loops[l].condition->host)) {
                pc = loops[l].first;
                break;
            }
    }
    return QDRT_OK;
}

/* Runs p's entries with the buffers b[] bound, push (p->push bytes) and groups[]; waits. */
static qdrt_status run(qdrt_device *d, const Pipes *p, const qdrt_binding *b, int nb, const void *push, const uint32_t *groups,
                       const qdrt_repeat *loops, int nloops) {
    Vk *v = d->impl;
    if (!p->n) return d->last_run_ms = 0, QDRT_OK;
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (uint32_t)nb + 1};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 2, 1, &ps};
    VkDescriptorPool pool;
    VKCHECK(v->vkCreateDescriptorPool(v->dev, &dpi, NULL, &pool));
    VkDescriptorSetAllocateInfo dsa = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, pool, 2, p->layouts};
    VkDescriptorSet sets[2];
    VkCommandBuffer *cbs = calloc((size_t)p->n, sizeof *cbs);
    qdrt_status st = cbs ? QDRT_OK : qdrt_fail(QDRT_E_MEMORY, "out of memory");
    VkResult r = st ? VK_SUCCESS : v->vkAllocateDescriptorSets(v->dev, &dsa, sets);
    if (r) st = vk_fail(r, "vkAllocateDescriptorSets");
    for (int i = 0; !st && i < nb; i++) {
        VkDescriptorBufferInfo info = {((VkBuf *)b[i].array->impl)->buf, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[b[i].set], b[i].binding, 0, 1,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &info, NULL};
        v->vkUpdateDescriptorSets(v->dev, 1, &w, 0, NULL);
    }
    VkCommandBufferAllocateInfo cba = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, v->cpool, VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       (uint32_t)p->n};
    bool have_cbs = false;
    if (!st) {
        if ((r = v->vkAllocateCommandBuffers(v->dev, &cba, cbs))) st = vk_fail(r, "vkAllocateCommandBuffers");
        else have_cbs = true;
    }
    if (!st) st = record(v, p, sets, push, groups, cbs, nloops > 0);
    double t0 = qdrt_now();
    if (!st) st = submit(v, p->n, loops, nloops, cbs);
    d->last_run_ms = (qdrt_now() - t0) * 1e3;
    if (have_cbs) v->vkFreeCommandBuffers(v->dev, v->cpool, (uint32_t)p->n, cbs);
    v->vkDestroyDescriptorPool(v->dev, pool, NULL);
    free(cbs);
    return st;
}

/* ---- modules ---- */

/* The module's SPIR-V version and needs against the device. */
static qdrt_status vk_check(const Vk *v, const qdrt_module *m, const Needs *n) {
    if (v->api < n->api)
        return qdrt_fail(QDRT_E_FEATURE, "module %s (%s) needs Vulkan %u.%u; the device has %u.%u", m->name, m->target,
                         VK_API_VERSION_MAJOR(n->api), VK_API_VERSION_MINOR(n->api), VK_API_VERSION_MAJOR(v->api), VK_API_VERSION_MINOR(v->api));
    for (int i = 0; i < NNEED; i++) {
        const void *s = v->feat[needs[i].s];
        if (!n->need[i] || (s && *(const VkBool32 *)((const char *)s + needs[i].off))) continue;
        if (needs[i].cap)
            return qdrt_fail(QDRT_E_FEATURE, "module %s needs the Vulkan feature %s (SPIR-V capability %u); %s does not have it", m->name,
                             needs[i].name, needs[i].cap, m->dev->name);
        return qdrt_fail(QDRT_E_FEATURE, "module %s needs the Vulkan feature %s (a float atomic load, store or exchange); %s does not have it",
                         m->name, needs[i].name, m->dev->name);
    }
    if (n->non_semantic && !v->non_semantic)
        return qdrt_fail(QDRT_E_FEATURE, "module %s needs VK_KHR_shader_non_semantic_info; %s does not have it", m->name, m->dev->name);
    return QDRT_OK;
}

static void vk_unload(qdrt_module *m) {
    Vk *v = m->dev->impl;
    for (int i = 0; i < m->nkernels; i++) {
        Pipes *p = m->kernels[i].impl;
        if (p) pipes_free(v, p), free(p);
        m->kernels[i].impl = NULL;
    }
    for (int i = 0; i < m->nfields; i++) {
        if (m->fields[i].storage < 0) qdrt_array_free(m->fields[i].store);
        m->fields[i].store = NULL;
    }
    for (int i = 0; i < m->nstorages; i++) qdrt_array_free(m->storages[i].store), m->storages[i].store = NULL;
    VkMod *vm = m->impl;
    if (vm) {
        if (vm->sm) v->vkDestroyShaderModule(v->dev, vm->sm, NULL);
        needs_free(&vm->needs);
        free(vm);
    }
    m->impl = NULL;
}

/* A kernel's slots: its ndarray parameters at set 0 (and its argument block where it is a buffer,
 * qdc-spirv(7)), the module's fields at set 1. */
static int kernel_bindings(const qdrt_module *m, const Kernel *k, qdrt_array *const *a, qdrt_array *args, qdrt_binding *b) {
    int nb = 0;
    for (int i = 0; i < k->nparams; i++)
        if (k->params[i].array) b[nb++] = (qdrt_binding){0, (uint32_t)k->params[i].binding, a ? a[i] : NULL};
    if (k->args_binding >= 0) b[nb++] = (qdrt_binding){0, (uint32_t)k->args_binding, args};
    for (int i = 0; i < m->nfields; i++) b[nb++] = (qdrt_binding){1, (uint32_t)m->fields[i].binding, m->fields[i].store};
    return nb;
}

static qdrt_status vk_kernel(Vk *v, qdrt_module *m, Kernel *k) {
    bool in_buffer = k->args_binding >= 0;
    if (!in_buffer && (uint32_t)k->push_size > v->max_push)
        return qdrt_fail(QDRT_E_FEATURE, "kernel %s has %d push-constant bytes; %s allows %u", k->name, k->push_size, m->dev->name, v->max_push);
    Pipes *p = calloc(1, sizeof *p);
    qdrt_binding *b = calloc((size_t)(k->nparams + m->nfields) + 2, sizeof *b);
    const char **names = calloc((size_t)k->ntasks + 1, sizeof *names);
    qdrt_status st = p && b && names ? QDRT_OK : qdrt_fail(QDRT_E_MEMORY, "out of memory");
    for (int t = 0; !st && t < k->ntasks; t++) names[t] = k->tasks[t].name;
    if (!st)
        st = pipes_make(v, m->impl, b, kernel_bindings(m, k, NULL, NULL, b), in_buffer ? 0 : (size_t)k->push_size, names, k->ntasks, p);
    if (st && p) pipes_free(v, p), free(p), p = NULL;
    k->impl = p;
    free(b), free(names);
    return st;
}

static qdrt_status vk_load(qdrt_module *m, const void *code, size_t size) {
    Vk *v = m->dev->impl;
    if (size % 4) return qdrt_fail(QDRT_E_MODULE, "not a SPIR-V module (%zu bytes, not a multiple of 4)", size);
    uint32_t *words = malloc(size + 4);
    VkMod *vm = calloc(1, sizeof *vm);
    if (!words || !vm) return free(words), free(vm), qdrt_fail(QDRT_E_MEMORY, "out of memory");
    memcpy(words, code, size);
    m->impl = vm;
    qdrt_status st = read_needs(words, size / 4, &vm->needs);
    if (!st) st = vk_check(v, m, &vm->needs);
    VkShaderModuleCreateInfo smi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, size, words};
    if (!st && v->vkCreateShaderModule(v->dev, &smi, NULL, &vm->sm)) st = qdrt_fail(QDRT_E_MODULE, "Vulkan: vkCreateShaderModule failed");
    free(words);
    /* one buffer per field, or per SNode storage (bound to the bindings of all its fields) */
    for (int i = 0; !st && i < m->nfields + m->nstorages; i++) {
        Field *f = i < m->nfields ? &m->fields[i] : NULL;
        qdrt_array **store = f ? &f->store : &m->storages[i - m->nfields].store;
        int64_t shape = f ? f->count : (int64_t)m->storages[i - m->nfields].bytes;
        if (f && (f->set != 1 || f->binding < 0)) st = qdrt_fail(QDRT_E_MODULE, "metadata: field %s has no set 1 binding", f->name);
        else if (f && f->storage >= 0) continue;
        else st = qdrt_array_new(m->dev, f ? f->dtype : QDRT_U8, 1, &shape, store);
        if (!st) { /* the module's, not one of the device's arrays the user frees */
            qdrt_array *a = *store;
            if (a->prev) a->prev->next = a->next;
            else m->dev->arrays = a->next;
            if (a->next) a->next->prev = a->prev;
            a->prev = a->next = NULL;
        }
    }
    for (int i = 0; !st && i < m->nfields; i++)
        if (m->fields[i].storage >= 0) m->fields[i].store = m->storages[m->fields[i].storage].store;
    for (int i = 0; !st && i < m->nkernels; i++) st = vk_kernel(v, m, &m->kernels[i]);
    if (st) vk_unload(m);
    return st;
}

/* The push-constant block of a launch: extents and scalars where the metadata puts them. */
static void push_bytes(const Kernel *k, qdrt_array *const *a, const uint64_t *s, unsigned char *out) {
    for (int i = 0; i < k->npush; i++) {
        const PushMember *pm = &k->push[i];
        const Param *p = &k->params[pm->param];
        uint64_t bits = 0;
        if (!pm->value) bits = (uint32_t)(int32_t)a[pm->param]->shape[pm->axis];
        else if ((p->dtype == QDRT_F16 || p->dtype == QDRT_BF16) && pm->dtype == QDRT_F32) { /* widened to f32 */
            uint32_t h = (uint32_t)s[pm->param] & 0xffff, w;
            if (p->dtype == QDRT_BF16) w = h << 16;
            else {
                uint32_t sign = (h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
                if (e == 31) w = sign | 0x7f800000 | (m << 13);
                else if (e) w = sign | ((e + 112) << 23) | (m << 13);
                else if (!m) w = sign;
                else { /* subnormal: normalise */
                    int ex = 113;
                    while (!(m & 0x400)) m <<= 1, ex--;
                    w = sign | ((uint32_t)ex << 23) | ((m & 0x3ff) << 13);
                }
            }
            bits = w;
        } else {
            bits = s[pm->param];
            size_t from = qdrt_dtype_size(p->dtype);
            bool sign = p->dtype == QDRT_I8 || p->dtype == QDRT_I16;
            if (from < 4 && sign && (bits >> (8 * from - 1) & 1)) bits |= ~(uint64_t)0 << (8 * from); /* widened: sign-extend */
        }
        memcpy(out + pm->offset, &bits, qdrt_dtype_size(pm->dtype));
    }
}

static qdrt_status vk_launch(qdrt_module *m, Kernel *k, qdrt_array *const *a, const uint64_t *s) {
    Vk *v = m->dev->impl;
    const Pipes *p = k->impl;
    unsigned char *push = calloc(1, (size_t)k->push_size + 8u);
    qdrt_binding *b = calloc((size_t)(k->nparams + m->nfields) + 2, sizeof *b);
    uint32_t *groups = calloc((size_t)k->ntasks, sizeof *groups);
    qdrt_repeat *loops = calloc((size_t)k->nloops + 1, sizeof *loops);
    qdrt_array *args = NULL; /* the block as a buffer (qdc-spirv(7)): written before the run, freed after */
    qdrt_status st = push && b && groups && loops ? QDRT_OK : qdrt_fail(QDRT_E_MEMORY, "out of memory");
    if (!st) push_bytes(k, a, s, push);
    if (!st && k->args_binding >= 0) {
        int64_t bytes = k->push_size;
        st = qdrt_array_new(m->dev, QDRT_U8, 1, &bytes, &args);
        if (!st) st = qdrt_array_write(args, push, (size_t)bytes);
    }
    if (!st) {
        int64_t items = qdrt_items(k, a);
        for (int t = 0; t < k->ntasks; t++) groups[t] = qdrt_groups(m->dev, &k->tasks[t], items, v->max_groups < 65535 ? v->max_groups : 65535);
        for (int l = 0; l < k->nloops; l++) {
            const qdrt_array *c = a[k->loops[l].param];
            loops[l] = (qdrt_repeat){k->loops[l].first, k->loops[l].last, c, c->dtype};
        }
        st = run(m->dev, p, b, kernel_bindings(m, k, a, args, b), push, groups, loops, k->nloops);
    }
    if (args) qdrt_array_free(args);
    free(push), free(b), free(groups), free(loops);
    return st;
}

static qdrt_status vk_dispatch(qdrt_module *m, const qdrt_binding *b, int nb, const void *push, size_t push_bytes, const qdrt_entry *e,
                               int ne, const qdrt_repeat *loops, int nloops) {
    Vk *v = m->dev->impl;
    if (push_bytes > v->max_push) return qdrt_fail(QDRT_E_ARGUMENT, "%zu push-constant bytes, the device allows %u", push_bytes, v->max_push);
    const char **names = calloc((size_t)ne + 1, sizeof *names);
    uint32_t *groups = calloc((size_t)ne + 1, sizeof *groups);
    unsigned char *block = calloc(1, push_bytes + 8);
    qdrt_status st = names && groups && block ? QDRT_OK : qdrt_fail(QDRT_E_MEMORY, "out of memory");
    for (int i = 0; !st && i < ne; i++) {
        names[i] = e[i].name, groups[i] = e[i].groups;
        if (!e[i].name) st = qdrt_fail(QDRT_E_ARGUMENT, "dispatch %d has no entry point", i);
        else if (e[i].groups < 1 || e[i].groups > v->max_groups)
            st = qdrt_fail(QDRT_E_ARGUMENT, "%s: %u groups (the device allows 1..%u)", e[i].name, e[i].groups, v->max_groups);
    }
    if (!st && push_bytes) memcpy(block, push, push_bytes);
    Pipes p = {0};
    if (!st) st = pipes_make(v, m->impl, b, nb, push_bytes, names, ne, &p);
    if (!st) st = run(m->dev, &p, b, nb, block, groups, loops, nloops);
    pipes_free(v, &p);
    free(names), free(groups), free(block);
    return st;
}

const Backend qdrt_vulkan_backend = {"vulkan", "spirv", vk_open, vk_close, vk_alloc, vk_release, vk_write, vk_read,
                                     vk_load, vk_unload, vk_launch, vk_dispatch};
