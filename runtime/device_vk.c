/* libqdrt's Vulkan device, through the system loader opened at run time (libvulkan.so.1; no link
 * dependency). The first physical device with a compute queue is created for the highest
 * Vulkan version (up to 1.3) that both the loader and it have, with every feature of the
 * structures below that it has enabled; a module is checked against them when it loads (its
 * SPIR-V version and each OpCapability), so a missing feature is named, never a driver crash.
 * Buffers are host-visible and coherent. The binding layout is qdc-spirv(7)'s: ndarray
 * parameters at set 0, fields at set 1, scalars and extents in the push-constant block. */
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

/* The feature structures a device is created with; each entry of needs[] is one field of one. */
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

/* SPIR-V capabilities (the 1.6 specification's numbers) and the device feature each needs. */
#define CORE(f) S_CORE, offsetof(VkPhysicalDeviceFeatures2, features.f), #f
#define FIELD(s, T, f) s, offsetof(T, f), #f
static const struct { uint32_t cap; int s; size_t off; const char *feature; } cap_needs[] = {
    {9, FIELD(S_F16I8, VkPhysicalDeviceShaderFloat16Int8Features, shaderFloat16)},
    {10, CORE(shaderFloat64)},
    {11, CORE(shaderInt64)},
    {12, FIELD(S_I64ATOM, VkPhysicalDeviceShaderAtomicInt64Features, shaderBufferInt64Atomics)},
    {22, CORE(shaderInt16)},
    {39, FIELD(S_F16I8, VkPhysicalDeviceShaderFloat16Int8Features, shaderInt8)},
    {4433, FIELD(S_16BIT, VkPhysicalDevice16BitStorageFeatures, storageBuffer16BitAccess)},
    {4448, FIELD(S_8BIT, VkPhysicalDevice8BitStorageFeatures, storageBuffer8BitAccess)},
    {5345, FIELD(S_MEMMODEL, VkPhysicalDeviceVulkanMemoryModelFeatures, vulkanMemoryModel)},
    {5346, FIELD(S_MEMMODEL, VkPhysicalDeviceVulkanMemoryModelFeatures, vulkanMemoryModelDeviceScope)},
    {6033, FIELD(S_FATOM, VkPhysicalDeviceShaderAtomicFloatFeaturesEXT, shaderBufferFloat32AtomicAdd)},
    {6034, FIELD(S_FATOM, VkPhysicalDeviceShaderAtomicFloatFeaturesEXT, shaderBufferFloat64AtomicAdd)},
    {6095, FIELD(S_FATOM2, VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT, shaderBufferFloat16AtomicAdd)},
    {5616, FIELD(S_FATOM2, VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT, shaderBufferFloat16AtomicMinMax)},
    {5612, FIELD(S_FATOM2, VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT, shaderBufferFloat32AtomicMinMax)},
    {5613, FIELD(S_FATOM2, VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT, shaderBufferFloat64AtomicMinMax)},
    {5055, FIELD(S_CLOCK, VkPhysicalDeviceShaderClockFeaturesKHR, shaderDeviceClock)},
};
/* Capabilities that need nothing beyond Vulkan 1.1: Shader, GroupNonUniform*. */
static bool cap_free(uint32_t c) { return c == 1 || (c >= 61 && c <= 68); }

typedef struct Vk {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
#define X(f) PFN_##f f;
    VK_FNS(X)
#undef X
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    VkCommandPool cpool;
    uint32_t api, qf, max_groups, max_push, memtype_bits;
    VkPhysicalDeviceMemoryProperties mem;
    void *feat[NSTRUCT]; /* what the device has (and was created with); NULL: not available */
    bool non_semantic;
} Vk;

typedef struct VkKernel {
    VkDescriptorSetLayout layouts[2];
    VkPipelineLayout pl;
    VkPipeline *pipes;
    uint32_t nbind[2];
} VkKernel;

typedef struct VkBuf { VkBuffer buf; VkDeviceMemory mem; } VkBuf;

#define VKCHECK(call)                                                                                       \
    do {                                                                                                    \
        VkResult r_ = (call);                                                                               \
        if (r_ != VK_SUCCESS)                                                                               \
            return qdrt_fail(r_ == VK_ERROR_OUT_OF_HOST_MEMORY || r_ == VK_ERROR_OUT_OF_DEVICE_MEMORY ? QDRT_E_MEMORY \
                                                                                                    : QDRT_E_DEVICE, \
                             "Vulkan: %s failed (VkResult %d)", #call, (int)r_);                           \
    } while (0)

static void vk_close(qdrt_device *d) {
    Vk *v = d->impl;
    if (!v) return;
    if (v->cpool) v->vkDestroyCommandPool(v->dev, v->cpool, NULL);
    if (v->dev) v->vkDestroyDevice(v->dev, NULL);
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

static qdrt_status vk_create(qdrt_device *d, Vk *v) {
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
    v->api = loader < VK_API_VERSION_1_3 ? loader : VK_API_VERSION_1_3;
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "libqdrt", 1, "qdc", 1, v->api};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    if (!ci || ci(&ici, NULL, &v->inst) != VK_SUCCESS) return v->inst = NULL, qdrt_fail(QDRT_E_NO_DEVICE, "no Vulkan instance (no driver?)");
#define X(f)                                                                                      \
    if (!(v->f = (PFN_##f)v->gipa(v->inst, #f))) return qdrt_fail(QDRT_E_NO_DEVICE, "Vulkan: no %s", #f);
    VK_FNS(X)
#undef X
    uint32_t n = 0;
    VkPhysicalDevice devs[16];
    v->vkEnumeratePhysicalDevices(v->inst, &n, NULL);
    if (n > 16) n = 16;
    v->vkEnumeratePhysicalDevices(v->inst, &n, devs);
    VkPhysicalDeviceProperties props;
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
    v->vkGetPhysicalDeviceProperties(v->phys, &props);
    if (props.apiVersion < v->api) v->api = props.apiVersion;
    if (v->api < VK_API_VERSION_1_1) return qdrt_fail(QDRT_E_NO_DEVICE, "the Vulkan device %s is older than 1.1", props.deviceName);
    v->max_groups = props.limits.maxComputeWorkGroupCount[0] < 65535 ? props.limits.maxComputeWorkGroupCount[0] : 65535;
    v->max_push = props.limits.maxPushConstantsSize;
    snprintf(d->name, sizeof d->name, "vulkan: %s (Vulkan %u.%u)", props.deviceName, VK_API_VERSION_MAJOR(v->api), VK_API_VERSION_MINOR(v->api));
    v->vkGetPhysicalDeviceMemoryProperties(v->phys, &v->mem);

    /* every structure the device has, chained and queried, then passed on as they are */
    uint32_t ne = 0;
    v->vkEnumerateDeviceExtensionProperties(v->phys, NULL, &ne, NULL);
    VkExtensionProperties *exts = calloc((size_t)ne + 1, sizeof *exts);
    if (!exts) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    v->vkEnumerateDeviceExtensionProperties(v->phys, NULL, &ne, exts);
    const char *enable[NSTRUCT + 1];
    uint32_t nenable = 0;
    VkBaseOutStructure *chain = NULL;
    for (int s = NSTRUCT - 1; s >= 0; s--) {
        bool core = structs[s].core && v->api >= structs[s].core, ext = structs[s].ext && has_ext(exts, ne, structs[s].ext);
        if (!core && !ext) continue;
        if (!core) enable[nenable++] = structs[s].ext;
        VkBaseOutStructure *b = calloc(1, structs[s].size);
        if (!b) return free(exts), qdrt_fail(QDRT_E_MEMORY, "out of memory");
        b->sType = structs[s].stype, b->pNext = chain, chain = b;
        v->feat[s] = b;
    }
    if (v->api < VK_API_VERSION_1_3 && has_ext(exts, ne, VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME))
        enable[nenable++] = VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME, v->non_semantic = true;
    else v->non_semantic = v->api >= VK_API_VERSION_1_3;
    free(exts);
    v->vkGetPhysicalDeviceFeatures2(v->phys, v->feat[S_CORE]);
    /* robustness features cost speed and qdc's kernels stay in bounds */
    ((VkPhysicalDeviceFeatures2 *)v->feat[S_CORE])->features.robustBufferAccess = VK_FALSE;
    float prio = 1;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, v->qf, 1, &prio};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, v->feat[S_CORE], 0, 1, &qi, 0, NULL, nenable, enable, NULL};
    VKCHECK(v->vkCreateDevice(v->phys, &dci, NULL, &v->dev));
    v->vkGetDeviceQueue(v->dev, v->qf, 0, &v->queue);
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, v->qf};
    VKCHECK(v->vkCreateCommandPool(v->dev, &cpi, NULL, &v->cpool));
    return QDRT_OK;
}

static qdrt_status vk_open(qdrt_device *d) {
    Vk *v = calloc(1, sizeof *v);
    if (!v) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    d->impl = v;
    qdrt_status st = vk_create(d, v);
    if (st) vk_close(d);
    return st;
}

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

/* The module's SPIR-V version and capabilities against the device. */
static qdrt_status vk_check(const Vk *v, const qdrt_module *m, const uint32_t *w, size_t nwords) {
    if (nwords < 5 || w[0] != 0x07230203u) return qdrt_fail(QDRT_E_MODULE, "not a SPIR-V module");
    uint32_t minor = (w[1] >> 8) & 0xff, need = minor <= 3 ? VK_API_VERSION_1_1 : minor <= 5 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_3;
    if (v->api < need)
        return qdrt_fail(QDRT_E_FEATURE, "module %s (%s, SPIR-V 1.%u) needs Vulkan %u.%u; the device has %u.%u", m->name, m->target, minor,
                         VK_API_VERSION_MAJOR(need), VK_API_VERSION_MINOR(need), VK_API_VERSION_MAJOR(v->api), VK_API_VERSION_MINOR(v->api));
    for (size_t i = 5; i < nwords;) {
        uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
        if (!len || i + len > nwords) return qdrt_fail(QDRT_E_MODULE, "malformed SPIR-V at word %zu", i);
        if (op == 17 /* OpCapability */ && len >= 2 && !cap_free(w[i + 1])) {
            uint32_t cap = w[i + 1];
            size_t c = 0, nc = sizeof cap_needs / sizeof cap_needs[0];
            while (c < nc && cap_needs[c].cap != cap) c++;
            if (c == nc) {
                return qdrt_fail(QDRT_E_FEATURE, "module %s uses SPIR-V capability %u, which libqdrt does not know", m->name, cap);
            }
            const void *s = v->feat[cap_needs[c].s];
            if (!s || !*(const VkBool32 *)((const char *)s + cap_needs[c].off))
                return qdrt_fail(QDRT_E_FEATURE, "module %s needs the Vulkan feature %s (SPIR-V capability %u); %s does not have it",
                                 m->name, cap_needs[c].feature, cap, m->dev->name);
        }
        if (op == 10 /* OpExtension */ && !strcmp((const char *)(w + i + 1), "SPV_KHR_non_semantic_info") && !v->non_semantic)
            return qdrt_fail(QDRT_E_FEATURE, "module %s needs VK_KHR_shader_non_semantic_info; %s does not have it", m->name, m->dev->name);
        i += len;
    }
    return QDRT_OK;
}

static void vk_unload(qdrt_module *m) {
    Vk *v = m->dev->impl;
    for (int i = 0; i < m->nkernels; i++) {
        VkKernel *vk = m->kernels[i].impl;
        if (!vk) continue;
        for (int t = 0; vk->pipes && t < m->kernels[i].ntasks; t++)
            if (vk->pipes[t]) v->vkDestroyPipeline(v->dev, vk->pipes[t], NULL);
        if (vk->pl) v->vkDestroyPipelineLayout(v->dev, vk->pl, NULL);
        for (int s = 0; s < 2; s++)
            if (vk->layouts[s]) v->vkDestroyDescriptorSetLayout(v->dev, vk->layouts[s], NULL);
        free(vk->pipes), free(vk);
        m->kernels[i].impl = NULL;
    }
    for (int i = 0; i < m->nfields; i++) qdrt_array_free(m->fields[i].store), m->fields[i].store = NULL;
    if (m->impl) v->vkDestroyShaderModule(v->dev, (VkShaderModule)m->impl, NULL);
    m->impl = NULL;
}

static qdrt_status vk_kernel(Vk *v, qdrt_module *m, Kernel *k) {
    VkKernel *vk = calloc(1, sizeof *vk);
    if (!vk) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    k->impl = vk;
    int n = k->nparams + m->nfields;
    VkDescriptorSetLayoutBinding *lb = calloc((size_t)n + 1, sizeof *lb);
    if (!lb || !(vk->pipes = calloc((size_t)k->ntasks, sizeof *vk->pipes))) return free(lb), qdrt_fail(QDRT_E_MEMORY, "out of memory");
    qdrt_status st = QDRT_OK;
    for (int s = 0; s < 2 && !st; s++) {
        uint32_t nb = 0;
        for (int i = 0; s == 0 && i < k->nparams; i++)
            if (k->params[i].array)
                lb[nb++] = (VkDescriptorSetLayoutBinding){(uint32_t)k->params[i].binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                          VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        for (int i = 0; s == 1 && i < m->nfields; i++)
            lb[nb++] = (VkDescriptorSetLayoutBinding){(uint32_t)m->fields[i].binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                      VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        vk->nbind[s] = nb;
        VkDescriptorSetLayoutCreateInfo ci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, nb, lb};
        VkResult r = v->vkCreateDescriptorSetLayout(v->dev, &ci, NULL, &vk->layouts[s]);
        if (r) st = qdrt_fail(QDRT_E_DEVICE, "Vulkan: vkCreateDescriptorSetLayout failed (VkResult %d)", (int)r);
    }
    free(lb);
    if (st) return st;
    if ((uint32_t)k->push_size > v->max_push)
        return qdrt_fail(QDRT_E_FEATURE, "kernel %s has %d push-constant bytes; %s allows %u", k->name, k->push_size, m->dev->name, v->max_push);
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t)(k->push_size + 3) & ~3u};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 2, vk->layouts, k->push_size ? 1 : 0, &pr};
    VKCHECK(v->vkCreatePipelineLayout(v->dev, &pli, NULL, &vk->pl));
    for (int t = 0; t < k->ntasks; t++) {
        VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
            {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, (VkShaderModule)m->impl,
             k->tasks[t].name, NULL}, vk->pl, VK_NULL_HANDLE, -1};
        VKCHECK(v->vkCreateComputePipelines(v->dev, VK_NULL_HANDLE, 1, &cpci, NULL, &vk->pipes[t]));
    }
    return QDRT_OK;
}

static qdrt_status vk_load(qdrt_module *m, const void *code, size_t size) {
    Vk *v = m->dev->impl;
    if (size % 4) return qdrt_fail(QDRT_E_MODULE, "not a SPIR-V module (%zu bytes, not a multiple of 4)", size);
    uint32_t *words = malloc(size + 4);
    if (!words) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    memcpy(words, code, size);
    qdrt_status st = vk_check(v, m, words, size / 4);
    VkShaderModule sm = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo smi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, size, words};
    if (!st && v->vkCreateShaderModule(v->dev, &smi, NULL, &sm)) st = qdrt_fail(QDRT_E_MODULE, "Vulkan: vkCreateShaderModule failed");
    free(words);
    m->impl = (void *)sm;
    for (int i = 0; !st && i < m->nfields; i++) {
        Field *f = &m->fields[i];
        int64_t shape = f->count;
        if (f->set != 1 || f->binding < 0) st = qdrt_fail(QDRT_E_MODULE, "metadata: field %s has no set 1 binding", f->name);
        else st = qdrt_array_new(m->dev, f->dtype, 1, &shape, &f->store);
        if (!st) { /* a field is the module's, not one of the device's arrays the user frees */
            qdrt_array *a = f->store;
            if (a->prev) a->prev->next = a->next;
            else m->dev->arrays = a->next;
            if (a->next) a->next->prev = a->prev;
            a->prev = a->next = NULL;
        }
    }
    for (int i = 0; !st && i < m->nkernels; i++) st = vk_kernel(v, m, &m->kernels[i]);
    if (st) vk_unload(m);
    return st;
}

static void push_bytes(const Kernel *k, qdrt_array *const *a, const uint64_t *s, unsigned char *out) {
    for (int i = 0; i < k->npush; i++) {
        const PushMember *pm = &k->push[i];
        const Param *p = &k->params[pm->param];
        uint64_t bits = 0;
        if (!pm->value) bits = (uint32_t)(int32_t)a[pm->param]->shape[pm->axis];
        else {
            bits = s[pm->param];
            size_t from = qdrt_dtype_size(p->dtype);
            bool sign = p->dtype == QDRT_I8 || p->dtype == QDRT_I16;
            if (from < 4 && sign && (bits >> (8 * from - 1) & 1)) bits |= ~(uint64_t)0 << (8 * from); /* widened: sign-extend */
        }
        memcpy(out + pm->offset, &bits, qdrt_dtype_size(pm->dtype));
    }
}

static qdrt_status record(Vk *v, const Kernel *k, VkDescriptorSet *sets, const unsigned char *push, int64_t items, VkCommandBuffer *cbs,
                          bool reuse) {
    VkKernel *vk = k->impl;
    VkCommandBufferBeginInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, reuse ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    for (int t = 0; t < k->ntasks; t++) {
        VkCommandBuffer cb = cbs[t];
        VKCHECK(v->vkBeginCommandBuffer(cb, &cbi));
        v->vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pl, 0, 2, sets, 0, NULL);
        if (k->push_size) v->vkCmdPushConstants(cb, vk->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t)(k->push_size + 3) & ~3u, push);
        v->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipes[t]);
        v->vkCmdDispatch(cb, qdrt_groups(&k->tasks[t], items, v->max_groups), 1, 1);
        VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT};
        v->vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0,
                                1, &mb, 0, NULL, 0, NULL);
        VKCHECK(v->vkEndCommandBuffer(cb));
    }
    return QDRT_OK;
}

/* Submits the tasks in order; a do-while loop's range again while its condition holds. */
static qdrt_status submit(Vk *v, const Kernel *k, qdrt_array *const *a, VkCommandBuffer *cbs) {
    for (int pc = 0; pc < k->ntasks;) {
        int stop = k->ntasks; /* the next loop boundary after pc */
        for (int l = 0; l < k->nloops; l++) {
            if (k->loops[l].first > pc && k->loops[l].first < stop) stop = k->loops[l].first;
            if (k->loops[l].last + 1 > pc && k->loops[l].last + 1 < stop) stop = k->loops[l].last + 1;
        }
        VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, (uint32_t)(stop - pc), &cbs[pc], 0, NULL};
        VKCHECK(v->vkQueueSubmit(v->queue, 1, &si, VK_NULL_HANDLE));
        VKCHECK(v->vkQueueWaitIdle(v->queue));
        pc = stop;
        for (int l = k->nloops - 1; l >= 0; l--) /* innermost first */
            if (k->loops[l].last == stop - 1 && qdrt_nonzero(a[k->loops[l].param]->dtype, a[k->loops[l].param]->host)) {
                pc = k->loops[l].first;
                break;
            }
    }
    return QDRT_OK;
}

static qdrt_status vk_launch(qdrt_module *m, Kernel *k, qdrt_array *const *a, const uint64_t *s) {
    Vk *v = m->dev->impl;
    VkKernel *vk = k->impl;
    unsigned char push[260] = {0};
    if (k->push_size > 256) return qdrt_fail(QDRT_E_UNSUPPORTED, "kernel %s: more than 256 push-constant bytes", k->name);
    push_bytes(k, a, s, push);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, vk->nbind[0] + vk->nbind[1] + 1};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 2, 1, &ps};
    VkDescriptorPool pool;
    VKCHECK(v->vkCreateDescriptorPool(v->dev, &dpi, NULL, &pool));
    VkDescriptorSetAllocateInfo dsa = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, pool, 2, vk->layouts};
    VkDescriptorSet sets[2];
    VkCommandBuffer *cbs = calloc((size_t)k->ntasks, sizeof *cbs);
    qdrt_status st = cbs ? QDRT_OK : qdrt_fail(QDRT_E_MEMORY, "out of memory");
    VkResult r = st ? VK_SUCCESS : v->vkAllocateDescriptorSets(v->dev, &dsa, sets);
    if (r) st = qdrt_fail(QDRT_E_DEVICE, "Vulkan: vkAllocateDescriptorSets failed (VkResult %d)", (int)r);
    for (int i = 0; !st && i < k->nparams + m->nfields; i++) {
        bool field = i >= k->nparams;
        qdrt_array *arr = field ? m->fields[i - k->nparams].store : a[i];
        if (!arr) continue;
        VkDescriptorBufferInfo info = {((VkBuf *)arr->impl)->buf, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[field], 
                                  (uint32_t)(field ? m->fields[i - k->nparams].binding : k->params[i].binding), 0, 1,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &info, NULL};
        v->vkUpdateDescriptorSets(v->dev, 1, &w, 0, NULL);
    }
    VkCommandBufferAllocateInfo cba = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, v->cpool, VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       (uint32_t)k->ntasks};
    bool have_cbs = false;
    if (!st) {
        r = v->vkAllocateCommandBuffers(v->dev, &cba, cbs);
        if (r) st = qdrt_fail(QDRT_E_DEVICE, "Vulkan: vkAllocateCommandBuffers failed (VkResult %d)", (int)r);
        else have_cbs = true;
    }
    if (!st) st = record(v, k, sets, push, qdrt_items(k, a), cbs, k->nloops > 0);
    if (!st) st = submit(v, k, a, cbs);
    if (have_cbs) v->vkFreeCommandBuffers(v->dev, v->cpool, (uint32_t)k->ntasks, cbs);
    v->vkDestroyDescriptorPool(v->dev, pool, NULL);
    free(cbs);
    return st;
}

const Backend qdrt_vulkan_backend = {"vulkan", "spirv", vk_open, vk_close, vk_alloc, vk_release, vk_write, vk_read,
                                     vk_load, vk_unload, vk_launch};
