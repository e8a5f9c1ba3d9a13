/* Vulkan runs from the suite and their accounting (see vk_exec.h). */
#include "vk_exec.h"
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- accounting: one line per run in a file every test process appends to ---- */

static bool in_ci(void) {
    const char *ci = getenv("CI");
    return ci && *ci && strcmp(ci, "0") && strcmp(ci, "false");
}

static void tally(char kind, int runs, const char *why) {
    const char *path = getenv("QDC_VK_TALLY");
    if (!path || runs <= 0) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd < 0) return;
    char line[400];
    int n = snprintf(line, sizeof line, "%c %d %.300s\n", kind, runs, why ? why : "");
    for (char *c = line; c < line + n - 1; c++)
        if (*c == '\n') *c = ' ';
    if (write(fd, line, (size_t)n) != n) perror("vk tally");
    close(fd);
}

void vk_count_skip(int runs, const char *why) {
    tally('S', runs, why);
    if (in_ci()) cr_expect(false, "CI is set and a Vulkan run was skipped: %s", why);
    else {
        static bool said; /* once per test: the closing summary counts them all */
        if (!said) fprintf(stderr, "SKIPPED Vulkan run(s): %s\n", why);
        said = true;
    }
}

static char tally_path[256];
static pid_t runner_pid;

/* After Criterion's "Synthesis:" line (so it is the suite's last line): the Vulkan runs. */
static void report_vulkan_runs(void) {
    if (getpid() != runner_pid) return; /* a forked test process inherits the handler */
    long ran = 0, skipped = 0;
    char first[320] = "";
    FILE *f = fopen(tally_path, "r");
    char line[400];
    while (f && fgets(line, sizeof line, f)) {
        int runs = atoi(line + 2);
        if (line[0] == 'R') ran += runs;
        else {
            skipped += runs;
            const char *why = strchr(line + 2, ' ');
            if (!*first && why) snprintf(first, sizeof first, "%.*s", (int)strcspn(why + 1, "\n"), why + 1);
        }
    }
    if (f) fclose(f);
    unlink(tally_path);
    if (!ran && !skipped) return; /* a filtered run without Vulkan tests */
    if (skipped)
        fprintf(stderr, "[====] Vulkan runs: %ld executed, %ld SKIPPED -- a skipped run is NOT a pass%s (first: %s)\n", ran,
                skipped, in_ci() ? "; CI is set, so the suite fails" : "", first);
    else
        fprintf(stderr, "[====] Vulkan runs: %ld executed, 0 skipped\n", ran);
}

ReportHook(PRE_ALL)(struct criterion_test_set *set) {
    (void)set;
    const char *tmp = getenv("TMPDIR");
    runner_pid = getpid();
    snprintf(tally_path, sizeof tally_path, "%s/qdc-vk-tally-%ld", tmp && *tmp ? tmp : "/tmp", (long)runner_pid);
    unlink(tally_path);
    setenv("QDC_VK_TALLY", tally_path, 1);
    atexit(report_vulkan_runs);
}

/* ---- metadata ---- */

static const char *str_after(const char *line, const char *key, char *out, size_t n) {
    const char *p = strstr(line, key);
    if (!p) return NULL;
    p += strlen(key);
    size_t i = 0;
    while (*p && *p != '"' && i + 1 < n) out[i++] = *p++;
    out[i] = 0;
    return out;
}
static int int_after(const char *line, const char *key, int dflt) {
    const char *p = strstr(line, key);
    if (!p) return dflt;
    p += strlen(key);
    return !strncmp(p, "null", 4) ? dflt : atoi(p);
}
static int dtype_size(const char *dt) { return dt[1] == '8' ? 1 : !strcmp(dt + 1, "16") ? 2 : !strcmp(dt + 1, "64") ? 8 : 4; }

/* The metadata is qdc's own fixed pretty-printed JSON: one parameter, push member, task or field
 * per line, and each kernel opening with `      "name": "<kernel>",`. */
bool vk_parse_kernel(const char *meta, const char *kernel, VkKernel *k) {
    memset(k, 0, sizeof *k);
    char want[160], buf[96];
    snprintf(want, sizeof want, "\n      \"name\": \"%s\",", kernel);
    const char *start = strstr(meta, want);
    if (!start) return false;
    const char *end = strstr(start + 1, "\n      \"name\": \"");
    for (const char *line = meta; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char l[512];
        snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l ? len : sizeof l - 1), line);
        bool mine = line > start && (!end || line < end);
        if (strstr(l, "\"shape\": [") && strstr(l, "\"set\": 1") && k->nfields == (int)(sizeof k->fields / sizeof k->fields[0])) {
            k->overflow = true;
        } else if (strstr(l, "\"shape\": [") && strstr(l, "\"set\": 1")) {
            VkSlot *s = &k->fields[k->nfields++];
            str_after(l, "\"name\": \"", s->name, sizeof s->name);
            str_after(l, "\"dtype\": \"", buf, sizeof buf);
            size_t count = 1;
            for (const char *p = strstr(l, "\"shape\": [") + 10; *p && *p != ']'; p++)
                if (*p >= '0' && *p <= '9') count *= strtoul(p, (char **)&p, 10), p--;
            s->set = 1, s->binding = int_after(l, "\"binding\": ", 0), s->bytes = count * (size_t)dtype_size(buf);
        } else if (mine && strstr(l, "\"kind\": \"ndarray\"") && k->narrays < 16) {
            VkSlot *s = &k->arrays[k->narrays++];
            str_after(l, "\"name\": \"", s->name, sizeof s->name);
            s->set = int_after(l, "\"set\": ", 0), s->binding = int_after(l, "\"binding\": ", 0);
        } else if (mine && strstr(l, "\"kind\": \"scalar\"")) {
            str_after(l, "\"name\": \"", k->scalar, sizeof k->scalar), k->has_scalar = 1;
        } else if (mine && strstr(l, "\"push_constants\": {\"size\": ")) {
            k->push_size = int_after(l, "\"size\": ", 0);
        } else if (mine && strstr(l, "{\"first_task\": ") && k->nloops < 8) { /* before the push members: it names a param too */
            str_after(l, "\"condition\": {\"param\": \"", buf, sizeof buf);
            int idx = -1;
            for (int i = 0; i < k->narrays; i++)
                if (!strcmp(k->arrays[i].name, buf)) idx = i;
            k->loops[k->nloops].first = int_after(l, "\"first_task\": ", -1), k->loops[k->nloops].last = int_after(l, "\"last_task\": ", -1);
            k->loops[k->nloops++].array = idx;
        } else if (mine && strstr(l, "{\"param\": \"") && k->npush < 24) {
            str_after(l, "{\"param\": \"", buf, sizeof buf);
            int idx = -1;
            for (int i = 0; i < k->narrays; i++)
                if (!strcmp(k->arrays[i].name, buf)) idx = i;
            k->push[k->npush].is_value = strstr(l, "\"what\": \"value\"") != NULL;
            k->push[k->npush].array = idx, k->push[k->npush++].offset = int_after(l, "\"offset\": ", 0);
        } else if (mine && strstr(l, "{\"entry\": \"") && k->ntasks == (int)(sizeof k->tasks / sizeof k->tasks[0])) {
            k->overflow = true;
        } else if (mine && strstr(l, "{\"entry\": \"")) {
            VkTask *t = &k->tasks[k->ntasks++];
            str_after(l, "{\"entry\": \"", t->entry, sizeof t->entry);
            t->block_dim = int_after(l, "\"block_dim\": ", 1), t->groups = int_after(l, "\"groups\": ", -1);
            t->device = strstr(l, "\"extent\": \"device\"") != NULL;
        }
        line = nl ? nl + 1 : NULL;
    }
    return k->ntasks > 0;
}

/* ---- running ---- */

/* $QDC_VKRUN, else vkrun built once per test process into that test's directory against
 * $QDC_RT (libqdrt.a: vkrun is a client of its device API). */
static char *vkrun_path(const char *dir) {
    static char *built;
    const char *env = getenv("QDC_VKRUN"), *rt = getenv("QDC_RT");
    if (env && file_exists(env)) return xstrdup(env);
    if (built && file_exists(built)) return xstrdup(built);
    if (!rt || !file_exists(rt)) return NULL;
    char *src = root_path("tools/vulkan-runner/vkrun.c"), *out = xasprintf("%s/vkrun", dir);
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1"); /* QDC_RT is then the sanitized libqdrt */
    RunResult r = run_argv((const char *[]){"cc", "-std=c17", "-O1", "-Wall", "-Wextra", "-Werror", asan ? "-fsanitize=address,undefined" : "-O1",
                                            "-o", out, src, rt, "-lpthread", "-lm", NULL},
                           NULL, NULL);
    bool ok = r.status == 0;
    if (!ok) fprintf(stderr, "vk_exec: cannot build vkrun: %s\n", r.err);
    run_free(&r);
    free(src);
    if (!ok) free(out);
    else free(built), built = xstrdup(out);
    return ok ? out : NULL;
}

static bool put_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    if (f) fclose(f);
    return ok;
}
static bool get_file(const char *path, void *data, size_t n) {
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(data, 1, n, f) == n;
    if (f) fclose(f);
    return ok;
}

/* vkrun's environment: the private lavapipe's libraries and validation layer. Set only around
 * the vkrun spawn (the test process itself and qdc never see them). */
static void vk_env(bool on) {
    static char *saved_ld, *saved_layer;
    static bool active;
    const char *vd = getenv("QDC_VULKAN_DIR");
    if (on) {
        if (!vd || !*vd) return;
        char *libf = xasprintf("%s/libdir", vd), *lib = read_text(libf, NULL);
        free(libf);
        if (!lib) return;
        lib[strcspn(lib, "\n")] = 0;
        const char *old = getenv("LD_LIBRARY_PATH");
        saved_ld = old ? xstrdup(old) : NULL;
        old = getenv("VK_LAYER_PATH");
        saved_layer = old ? xstrdup(old) : NULL;
        char *ld = saved_ld ? xasprintf("%s:%s", lib, saved_ld) : xstrdup(lib);
        char *layer = xasprintf("%s/root/usr/share/vulkan/explicit_layer.d", vd);
        setenv("LD_LIBRARY_PATH", ld, 1), setenv("VK_LAYER_PATH", layer, 1);
        free(ld), free(layer), free(lib);
        active = true;
    } else if (active) {
        if (saved_ld) setenv("LD_LIBRARY_PATH", saved_ld, 1);
        else unsetenv("LD_LIBRARY_PATH");
        if (saved_layer) setenv("VK_LAYER_PATH", saved_layer, 1);
        else unsetenv("VK_LAYER_PATH");
        free(saved_ld), free(saved_layer);
        saved_ld = saved_layer = NULL, active = false;
    }
}

RunResult vk_spawn(const char *const *argv) {
    vk_env(true);
    RunResult r = run_argv(argv, NULL, NULL);
    vk_env(false);
    return r;
}

int vk_run(const char *dir, const char *spv, const char *meta, const char *const *kernels, int nkernels, VkArray *arrays,
           int narrays, const int32_t *scalar, int items, VkGrid grid, bool validate, char **err) {
    *err = NULL;
    VkKernel k;
    if (!vk_parse_kernel(meta, kernels[0], &k)) return *err = xasprintf("no kernel %s in the metadata", kernels[0]), -1;
    if (k.overflow) return *err = xasprintf("%s has more tasks or fields than vk_exec.h holds", kernels[0]), -1;
    if (k.narrays != narrays) return *err = xasprintf("%s has %d ndarrays, the test gives %d", kernels[0], k.narrays, narrays), -1;
    char *vk = vkrun_path(dir);
    if (!vk) {
        vk_count_skip(nkernels, "vkrun cannot be built (QDC_VKRUN and QDC_RT unset?)");
        return 0;
    }
    const char *argv[400];
    char *owned[400];
    int na = 0, no = 0;
    argv[na++] = vk;
    if (validate) argv[na++] = "--validate";
    argv[na++] = spv;
    int ok = 1;
    for (int i = 0; i < narrays && ok; i++) {
        char *f = owned[no++] = xasprintf("%s/a%d", dir, i);
        ok = put_file(f, arrays[i].data, arrays[i].bytes);
        argv[na++] = "--buffer";
        argv[na++] = owned[no++] = xasprintf("%d,%d,%s", k.arrays[i].set, k.arrays[i].binding, f);
    }
    for (int i = 0; i < k.nfields && ok; i++) {
        char *f = owned[no++] = xasprintf("%s/f%d", dir, i);
        void *junk = malloc(k.fields[i].bytes);
        memset(junk, 0x5a, k.fields[i].bytes); /* fields start with junk: kernels initialise them */
        ok = put_file(f, junk, k.fields[i].bytes);
        free(junk);
        argv[na++] = "--buffer";
        argv[na++] = owned[no++] = xasprintf("1,%d,%s", k.fields[i].binding, f);
    }
    if (k.push_size) {
        unsigned char push[256] = {0};
        for (int i = 0; i < k.npush; i++) {
            int32_t v = k.push[i].is_value ? (scalar ? *scalar : 0) : k.push[i].array >= 0 ? arrays[k.push[i].array].extent : 0;
            memcpy(push + k.push[i].offset, &v, 4);
        }
        char *f = owned[no++] = xasprintf("%s/push", dir);
        ok = ok && put_file(f, push, (size_t)k.push_size);
        argv[na++] = "--push";
        argv[na++] = f;
    }
    int entries = 0;
    for (int kk = 0; kk < nkernels && ok; kk++) {
        VkKernel kn;
        if (kk && !vk_parse_kernel(meta, kernels[kk], &kn)) {
            *err = xasprintf("no kernel %s in the metadata", kernels[kk]);
            ok = 0;
            break;
        }
        const VkKernel *use = kk ? &kn : &k;
        for (int l = 0; l < use->nloops && na < 380; l++) { /* entries of this kernel start at `entries` */
            argv[na++] = "--loop";
            argv[na++] = owned[no++] = xasprintf("%d,%d,%d", entries + use->loops[l].first, entries + use->loops[l].last, use->loops[l].array);
        }
        for (int t = 0; t < use->ntasks && na < 390; t++) {
            long g = use->tasks[t].groups;
            if (use->tasks[t].device && grid == VK_FEW && g > 3) g = 3;
            if (g < 0) {
                g = (items + use->tasks[t].block_dim - 1) / use->tasks[t].block_dim;
                if (grid == VK_FEW && g > 3) g = 3;
                if (g > 65535) g = 65535;
                if (g < 1) g = 1;
            }
            argv[na++] = owned[no++] = xasprintf("%s:%ld", use->tasks[t].entry, g);
            entries++;
        }
    }
    argv[na] = NULL;
    int result = -1;
    if (ok) {
        RunResult r = vk_spawn(argv);
        if (r.status == 77) {
            char *why = xasprintf("%s", r.out);
            why[strcspn(why, "\n")] = 0;
            vk_count_skip(nkernels, why);
            free(why);
            result = 0;
        } else if (r.status != 0) {
            *err = xasprintf("vkrun exit %d: %s%s", r.status, r.out, r.err);
        } else {
            result = 1;
            for (int i = 0; i < narrays && result == 1; i++) {
                char *f = xasprintf("%s/a%d", dir, i);
                if (!get_file(f, arrays[i].data, arrays[i].bytes)) *err = xasprintf("cannot read back %s", f), result = -1;
                free(f);
            }
            if (result == 1) tally('R', nkernels, NULL);
        }
        run_free(&r);
    } else if (!*err) {
        *err = xasprintf("cannot write the run's files in %s", dir);
    }
    (void)entries;
    for (int i = 0; i < no; i++) free(owned[i]);
    free(vk);
    return result;
}

int vk_run_printf(const char *dir, const char *spv, const char *const *entries, int nentries, char **out, char **err) {
    *out = *err = NULL;
    char *vk = vkrun_path(dir);
    if (!vk) {
        vk_count_skip(1, "vkrun cannot be built (QDC_VKRUN and QDC_RT unset?)");
        return 0;
    }
    const char *argv[20];
    int na = 0;
    argv[na++] = vk, argv[na++] = "--printf", argv[na++] = spv;
    for (int i = 0; i < nentries && na < 19; i++) argv[na++] = entries[i];
    argv[na] = NULL;
    RunResult r = vk_spawn(argv);
    int result = -1;
    if (r.status == 77) {
        char *why = xasprintf("%s", r.out);
        why[strcspn(why, "\n")] = 0;
        vk_count_skip(1, why);
        free(why);
        result = 0;
    } else if (r.status != 0) {
        *err = xasprintf("vkrun exit %d: %s%s", r.status, r.out, r.err);
    } else {
        StrBuf b;
        sb_init(&b);
        for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"))
            if (!strncmp(line, "vkrun: printf: ", 15)) sb_printf(&b, "%s\n", line + 15);
        *out = b.data ? b.data : xstrdup("");
        tally('R', 1, NULL);
        result = 1;
    }
    run_free(&r);
    free(vk);
    return result;
}

char *vk_compile(const char *dir, const char *name, const char *target, const char *src, char **spv) {
    char *qd = xasprintf("%s/%s.py", dir, name), *mf = xasprintf("%s/%s.json", dir, name), *tflag = xasprintf("--target=%s", target);
    *spv = xasprintf("%s/%s.spv", dir, name);
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc(tflag, qd, "-o", *spv, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(tflag, "--emit=metadata", qd, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = read_text(mf, NULL);
    free(qd), free(mf), free(tflag);
    return meta;
}
