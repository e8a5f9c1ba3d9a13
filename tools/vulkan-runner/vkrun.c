/* vkrun: runs qdc's SPIR-V through Vulkan compute on the first device with a compute queue, as a
 * client of libqdrt's device API (qdrt(3): qdrt_device_open_vulkan, qdrt_dispatch).
 *   vkrun [--validate|--printf] MODULE.spv [--buffer SET,BINDING,FILE]... [--push FILE]
 *         [--loop FIRST,LAST,BUF]... ENTRY:GROUPS...
 * (with no entry it only creates the device and says which Vulkan version it asked for)
 * Buffers start with FILE's bytes and are written back to FILE afterwards; the push-constant
 * block comes from --push (layout: man/qdc-spirv.7, --emit=metadata). Entries run in order with
 * a full barrier between them. --loop (a qd.graph.do_while loop, qdc-abi(7) "Do-while loops";
 * give them outer loops first): after entry LAST (0-based), the host waits for the device and
 * reads the first int32 of the BUF-th --buffer (0-based); non-zero: it continues at entry FIRST.
 * Loops ending at one entry are checked innermost (last given) first. Without --loop every entry
 * goes in one submission.
 *
 * The device is libqdrt's, made for the module (qdrt_vulkan_options.spirv): the Vulkan version
 * its SPIR-V version needs (SPIR-V 1.0-1.3: Vulkan 1.1, 1.4-1.5: 1.2, 1.6: 1.3) and exactly the
 * features and extensions its OpCapability/OpExtension declarations and atomic instructions
 * need, printed as "vkrun: features: ...; extensions: ..."; a capability or extension libqdrt
 * does not know is an error (exit 2), never silently ignored. Everything created is destroyed.
 * VKRUN_TIME=1 prints the wall time from the first vkQueueSubmit to the device being idle on
 * stderr (qdrt_device_last_run_ms; `make bench` section 3c: dispatches only).
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
#include "../../runtime/qdrt_device.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB 32
#define MAXE 256
#define SKIP 77

typedef struct { unsigned set, binding; const char *file; size_t size; qdrt_array *array; } Buf;
static Buf bufs[MAXB];
static int nbufs;
static unsigned validation_messages;

static void *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "vkrun: cannot open %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = calloc(1, (size_t)(n < 0 ? 0 : n) + 16);
    if (n < 0 || !p || fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "vkrun: cannot read %s\n", path); exit(1); }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* SPIR-V opcodes and enumerants check_bindings reads (the SPIR-V 1.6 specification's numbers). */
enum { OpAtomicLoad = 227, OpAtomicStore = 228, OpAtomicXor = 242, OpAtomicFMinEXT = 5614, OpAtomicFMaxEXT = 5615, OpAtomicFAddEXT = 6035 };
enum { SC_StorageBuffer = 12 };

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

/* A libqdrt failure: no device, too old, or lacking a feature is a skip (exit 77, on stdout);
 * the module's or the arguments' fault exit 1; the driver's exit 2. */
static int failed(qdrt_status st) {
    if (st == QDRT_E_NO_DEVICE || st == QDRT_E_FEATURE) {
        printf("vkrun: %s; skipping\n", qdrt_error());
        return SKIP;
    }
    fprintf(stderr, "vkrun: %s\n", qdrt_error());
    return st == QDRT_E_MODULE || st == QDRT_E_ARGUMENT ? 1 : 2;
}

static void on_message(void *user, qdrt_message_kind kind, const char *text) {
    (void)user;
    if (kind == QDRT_MSG_PRINTF) {
        printf("vkrun: printf: %s\n", text);
        return;
    }
    validation_messages++;
    fprintf(stderr, "vkrun: validation %s: %s\n", kind == QDRT_MSG_ERROR ? "error" : "warning", text);
}

int main(int argc, char **argv) {
    int validate = getenv("VKRUN_VALIDATE") && !strcmp(getenv("VKRUN_VALIDATE"), "1"), printf_on = 0, a0 = 1;
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

    qdrt_vulkan_options opt = {code, code_len, validate, printf_on, on_message, NULL};
    qdrt_device *dev;
    qdrt_status st = qdrt_device_open_vulkan(&opt, &dev);
    if (st) return failed(st);
    qdrt_vulkan_info info;
    qdrt_device_vulkan_info(dev, &info);
    if (validate && !info.validation) {
        if (printf_on) return printf("vkrun: VK_LAYER_KHRONOS_validation is not installed: nothing can print; skipping\n"), SKIP;
        fprintf(stderr, "vkrun: VK_LAYER_KHRONOS_validation is not installed; running without validation\n");
    }
    /* Say exactly what is enabled (the suite checks it). */
    printf("vkrun: features: %s; extensions: %s\n", *info.features ? info.features : "none", *info.extensions ? info.extensions : "none");
    check_bindings(code, code_len / 4, entries, nentries); /* after the device: none is a skip (77) */
    qdrt_binding bind[MAXB];
    for (int i = 0; i < nbufs; i++) {
        size_t len;
        void *data = slurp(bufs[i].file, &len);
        int64_t n = (int64_t)len;
        if ((st = qdrt_array_new(dev, QDRT_U8, 1, &n, &bufs[i].array)) || (st = qdrt_array_write(bufs[i].array, data, len))) return failed(st);
        free(data);
        bufs[i].size = len;
        bind[i] = (qdrt_binding){bufs[i].set, bufs[i].binding, bufs[i].array};
    }
    void *push = push_file ? slurp(push_file, &push_len) : NULL;
    qdrt_module *mod;
    if ((st = qdrt_module_load_code(dev, code, code_len, &mod))) return failed(st);
    qdrt_repeat rep[MAXE];
    for (int l = 0; l < nloops; l++) {
        if (loops[l].first < 0 || loops[l].first > loops[l].last || loops[l].last >= nentries || loops[l].buf < 0 || loops[l].buf >= nbufs)
            return fprintf(stderr, "vkrun: --loop %d,%d,%d: no such entries or buffer\n", loops[l].first, loops[l].last, loops[l].buf), 1;
        rep[l] = (qdrt_repeat){loops[l].first, loops[l].last, bufs[loops[l].buf].array, QDRT_I32};
    }
    static char names[MAXE][256];
    qdrt_entry ent[MAXE];
    for (int e = 0; e < nentries; e++) {
        unsigned long groups = 1;
        snprintf(names[e], sizeof names[e], "%s", entries[e]);
        char *colon = strrchr(names[e], ':');
        if (colon) *colon = 0, groups = strtoul(colon + 1, NULL, 10);
        ent[e] = (qdrt_entry){names[e], groups > UINT32_MAX ? 0 : (uint32_t)groups};
    }
    if ((st = qdrt_dispatch(mod, bind, nbufs, push, push_len, ent, nentries, rep, nloops))) return failed(st);
    const char *tm = getenv("VKRUN_TIME");
    if (tm && *tm && strcmp(tm, "0")) fprintf(stderr, "vkrun: submit to idle %.3f ms\n", qdrt_device_last_run_ms(dev));
    for (int i = 0; i < nbufs; i++) {
        void *data = malloc(bufs[i].size + 1);
        FILE *f = fopen(bufs[i].file, "wb");
        if (!data || !f || qdrt_array_read(bufs[i].array, data, bufs[i].size) || fwrite(data, 1, bufs[i].size, f) != bufs[i].size)
            return fprintf(stderr, "vkrun: cannot write %s\n", bufs[i].file), 1;
        fclose(f);
        free(data);
    }
    printf("vkrun: ran %d entry point(s) on %s (Vulkan %u.%u)\n", nentries, info.device, info.api_version >> 22,
           (info.api_version >> 12) & 0x3ff);
    qdrt_device_close(dev);
    free(code), free(push);
    if (validation_messages) {
        fprintf(stderr, "vkrun: %u validation message(s)\n", validation_messages);
        return 4;
    }
    return 0;
}
