/* vkrun: runs qdc's SPIR-V through Vulkan compute on the first device with a compute queue.
 *   vkrun MODULE.spv [--buffer SET,BINDING,FILE]... [--push FILE] ENTRY:GROUPS...
 * Buffers start with FILE's bytes and are written back to FILE afterwards; the push-constant
 * block comes from --push (layout: man/qdc-spirv.7, --emit=metadata). Entries run in order with
 * a full barrier between them. Exit 0 ok, 1 usage/file errors, 2 Vulkan errors,
 * 77 no Vulkan device (the notice is printed; callers skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define MAXB 32
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

static void *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "vkrun: cannot open %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = calloc(1, (size_t)n + 16);
    if (fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "vkrun: cannot read %s\n", path); exit(1); }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static uint32_t pick_device(VkInstance inst) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, NULL);
    VkPhysicalDevice devs[16];
    if (n > 16) n = 16;
    vkEnumeratePhysicalDevices(inst, &n, devs);
    for (uint32_t d = 0; d < n; d++) {
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nq, NULL);
        VkQueueFamilyProperties q[16];
        if (nq > 16) nq = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nq, q);
        for (uint32_t i = 0; i < nq; i++)
            if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { phys = devs[d]; return i; }
    }
    printf("vkrun: no Vulkan device with a compute queue; skipping\n");
    exit(77);
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

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: vkrun MODULE.spv [--buffer S,B,FILE]... [--push FILE] ENTRY:GROUPS...\n"); return 1; }
    const char *push_file = NULL, *entries[64];
    int nentries = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--buffer") && i + 1 < argc && nbufs < MAXB) {
            Buf *b = &bufs[nbufs++];
            char *s = argv[++i];
            if (sscanf(s, "%u,%u,", &b->set, &b->binding) != 2 || b->set > 1) return fprintf(stderr, "vkrun: bad --buffer %s\n", s), 1;
            b->file = strchr(strchr(s, ',') + 1, ',') + 1;
        } else if (!strcmp(argv[i], "--push") && i + 1 < argc) push_file = argv[++i];
        else if (nentries < 64) entries[nentries++] = argv[i];
    }
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vkrun", 1, "qdc", 1, VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    VkInstance inst;
    if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) { printf("vkrun: no Vulkan instance; skipping\n"); return 77; }
    uint32_t qf = pick_device(inst);
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, qf, 1, &prio};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qci, 0, NULL, 0, NULL, NULL};
    CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
    VkQueue queue;
    vkGetDeviceQueue(dev, qf, 0, &queue);
    for (int i = 0; i < nbufs; i++) make_buffer(&bufs[i]);
    size_t code_len, push_len = 0;
    uint32_t *code = slurp(argv[1], &code_len);
    void *push = push_file ? slurp(push_file, &push_len) : NULL;
    VkShaderModuleCreateInfo smi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, code_len, code};
    VkShaderModule mod;
    CHECK(vkCreateShaderModule(dev, &smi, NULL, &mod));
    VkDescriptorSetLayout layouts[2] = {set_layout(0), set_layout(1)};
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t)((push_len + 3) & ~3u)};
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
    VkCommandBufferAllocateInfo cba = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, cpool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(dev, &cba, &cb));
    VkCommandBufferBeginInfo cbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    CHECK(vkBeginCommandBuffer(cb, &cbi));
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 2, sets, 0, NULL);
    if (push_len) vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, pr.size, push);
    VkPipeline pipes[64];
    for (int e = 0; e < nentries; e++) {
        char name[256];
        unsigned groups = 1;
        snprintf(name, sizeof name, "%s", entries[e]);
        char *colon = strrchr(name, ':');
        if (colon) *colon = 0, groups = (unsigned)strtoul(colon + 1, NULL, 10);
        VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
            {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, mod, name, NULL}, pl, VK_NULL_HANDLE, -1};
        CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, NULL, &pipes[e]));
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipes[e]);
        vkCmdDispatch(cb, groups ? groups : 1, 1, 1);
        VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                             0, 1, &mb, 0, NULL, 0, NULL);
    }
    CHECK(vkEndCommandBuffer(cb));
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
    CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
    CHECK(vkQueueWaitIdle(queue));
    for (int i = 0; i < nbufs; i++) {
        FILE *f = fopen(bufs[i].file, "wb");
        if (!f || fwrite(bufs[i].map, 1, bufs[i].size, f) != bufs[i].size) return fprintf(stderr, "vkrun: cannot write %s\n", bufs[i].file), 1;
        fclose(f);
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    printf("vkrun: ran %d entry point(s) on %s\n", nentries, props.deviceName);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    free(code), free(push);
    return 0;
}
