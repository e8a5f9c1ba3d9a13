/* qdrun: runs one kernel of a module qdc compiled on a device, through libqdrt (qdrun(1)).
 *   qdrun MODULE KERNEL [--device=vulkan|cuda|hip|cpu|best] NAME=FILE.npy NAME=@FILE.npy NAME=VALUE ...
 * FILE.npy is read into an ndarray argument; @FILE.npy is read before and written back after
 * the run (atomically: a temporary file renamed over it). VALUE is a scalar (an integer, or a
 * float with a '.', an exponent, inf or nan). The module's metadata is MODULE with its extension
 * replaced by .json (--metadata=FILE overrides). A kernel's return value is printed on stdout.
 * Exit: 0 ran, 1 bad module/arguments/.npy files, 2 usage, 3 device or internal error,
 * 77 no driver or device, or the device lacks a feature the module needs. */
#include "../../runtime/qdrt_device.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3, EXIT_NODEVICE = 77 };

static int fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("qdrun: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

static int status_exit(qdrt_status s) {
    switch (s) {
    case QDRT_OK: return 0;
    case QDRT_E_NO_DEVICE: case QDRT_E_FEATURE: return EXIT_NODEVICE;
    case QDRT_E_DEVICE: case QDRT_E_MEMORY: return EXIT_INTERNAL;
    default: return EXIT_INPUT;
    }
}

/* ---- .npy (NumPy format 1.0 and 2.0: little-endian or byte-order-free dtypes, C order) ---- */

typedef struct Npy {
    qdrt_dtype dtype;
    int ndim;
    int64_t shape[QDRT_MAX_NDIM];
    void *data;
    size_t bytes;
} Npy;

static const struct { const char *descr; qdrt_dtype t; } npy_types[] = {
    {"|b1", QDRT_U1}, {"|i1", QDRT_I8}, {"<i2", QDRT_I16}, {"<i4", QDRT_I32}, {"<i8", QDRT_I64}, {"|u1", QDRT_U8},
    {"<u2", QDRT_U16}, {"<u4", QDRT_U32}, {"<u8", QDRT_U64}, {"<f2", QDRT_F16}, {"<f4", QDRT_F32}, {"<f8", QDRT_F64},
};

/* The value of 'key' in the header dict: a pointer just after "'key':" and spaces. */
static const char *npy_key(const char *h, const char *key) {
    char k[32];
    snprintf(k, sizeof k, "'%s'", key);
    const char *p = strstr(h, k);
    if (!p) return NULL;
    p += strlen(k);
    while (*p == ' ') p++;
    if (*p++ != ':') return NULL;
    while (*p == ' ') p++;
    return p;
}

static int npy_read(const char *path, Npy *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return fail(EXIT_INPUT, "cannot open %s: %s", path, strerror(errno));
    unsigned char pre[12];
    size_t got = fread(pre, 1, 10, f);
    if (got < 10 || memcmp(pre, "\x93NUMPY", 6)) return fclose(f), fail(EXIT_INPUT, "%s: not a .npy file (no \\x93NUMPY magic)", path);
    if (pre[6] != 1 && pre[6] != 2) return fclose(f), fail(EXIT_INPUT, "%s: .npy format version %d.%d (qdrun reads 1.0 and 2.0)", path, pre[6], pre[7]);
    size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (pre[6] == 2) {
        if (fread(pre + 10, 1, 2, f) != 2) return fclose(f), fail(EXIT_INPUT, "%s: truncated .npy header", path);
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    char *h = hlen < (1u << 24) ? calloc(1, hlen + 1) : NULL;
    if (!h || fread(h, 1, hlen, f) != hlen) return free(h), fclose(f), fail(EXIT_INPUT, "%s: truncated .npy header", path);
    const char *descr = npy_key(h, "descr"), *order = npy_key(h, "fortran_order"), *shape = npy_key(h, "shape");
    int rc = 0;
    if (!descr || !order || !shape || (*descr != '\'' && *descr != '"') || *shape != '(')
        rc = fail(EXIT_INPUT, "%s: malformed .npy header: %s", path, h);
    size_t t = 0, nt = sizeof npy_types / sizeof npy_types[0];
    if (!rc) {
        char d[16] = {0};
        size_t i = 0;
        for (const char *p = descr + 1; *p && *p != *descr && i + 1 < sizeof d; p++) d[i++] = *p;
        if (d[0] == '=' ) d[0] = '<'; /* native order: little-endian here */
        if (!strcmp(d, "<b1") || !strcmp(d, "<i1") || !strcmp(d, "<u1")) d[0] = '|';
        while (t < nt && strcmp(npy_types[t].descr, d)) t++;
        if (t == nt)
            rc = fail(EXIT_INPUT, "%s: dtype '%s' is not supported (%s)", path, d,
                      d[0] == '>' ? "big-endian: convert with arr.astype(arr.dtype.newbyteorder('<'))" :
                                    "qdrun reads bool, int8..int64, uint8..uint64, float16/32/64, little-endian");
    }
    if (!rc && strncmp(order, "False", 5)) rc = fail(EXIT_INPUT, "%s: Fortran order; qdrun reads C order (np.ascontiguousarray)", path);
    uint64_t count = 1;
    n->ndim = 0;
    for (const char *p = shape + 1; !rc && *p != ')';) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        char *end;
        long long e = strtoll(p, &end, 10);
        if (end == p || e < 0 || e > INT32_MAX || n->ndim == QDRT_MAX_NDIM) rc = fail(EXIT_INPUT, "%s: malformed or too large shape", path);
        else n->shape[n->ndim++] = e, count *= (uint64_t)e, p = end;
        while (!rc && *p == 'L') p++;
    }
    if (!rc) {
        n->dtype = npy_types[t].t;
        n->bytes = (size_t)(count * qdrt_dtype_size(n->dtype));
        n->data = malloc(n->bytes ? n->bytes : 1);
        if (!n->data) rc = fail(EXIT_INTERNAL, "out of memory for %s", path);
        else if (fread(n->data, 1, n->bytes, f) != n->bytes) rc = fail(EXIT_INPUT, "%s: %zu data bytes expected, the file is shorter", path, n->bytes);
        if (rc) free(n->data), n->data = NULL;
    }
    free(h);
    fclose(f);
    return rc;
}

/* Writes FILE.npy (format 1.0, header padded to 64 bytes) through a temporary file. */
static int npy_write(const char *path, qdrt_dtype t, int ndim, const int64_t *shape, const void *data, size_t bytes) {
    const char *descr = "?";
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
        if (npy_types[i].t == t) descr = npy_types[i].descr;
    char h[512], dims[256] = "";
    size_t dl = 0;
    for (int d = 0; d < ndim; d++) dl += (size_t)snprintf(dims + dl, sizeof dims - dl, "%" PRId64 "%s", shape[d], ndim == 1 || d + 1 < ndim ? ", " : "");
    if (ndim == 1) dims[dl - 1] = 0; /* (n,) */
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    while ((10 + len + 1) % 64) h[len++] = ' ';
    h[len++] = '\n';
    char *tmp = malloc(strlen(path) + 16);
    if (!tmp) return fail(EXIT_INTERNAL, "out of memory");
    sprintf(tmp, "%s.qdrun-tmp", path);
    FILE *f = fopen(tmp, "wb");
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
    int rc = 0;
    if (!f || fwrite(pre, 1, 10, f) != 10 || fwrite(h, 1, (size_t)len, f) != (size_t)len || fwrite(data, 1, bytes, f) != bytes)
        rc = fail(EXIT_INPUT, "cannot write %s", tmp);
    if (f && fclose(f) && !rc) rc = fail(EXIT_INPUT, "cannot write %s", tmp);
    if (!rc && rename(tmp, path)) rc = fail(EXIT_INPUT, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc) remove(tmp);
    free(tmp);
    return rc;
}

/* ---- the command ---- */

typedef struct Arg {
    const char *name, *text;
    int used;
} Arg;

static void print_value(qdrt_dtype t, const void *p) {
    switch (t) {
    case QDRT_U1: case QDRT_U8: printf("%u", *(const uint8_t *)p); break;
    case QDRT_I8: printf("%d", *(const int8_t *)p); break;
    case QDRT_I16: printf("%d", *(const int16_t *)p); break;
    case QDRT_U16: case QDRT_F16: case QDRT_BF16: printf("%u", *(const uint16_t *)p); break;
    case QDRT_I32: printf("%" PRId32, *(const int32_t *)p); break;
    case QDRT_U32: printf("%" PRIu32, *(const uint32_t *)p); break;
    case QDRT_I64: printf("%" PRId64, *(const int64_t *)p); break;
    case QDRT_U64: printf("%" PRIu64, *(const uint64_t *)p); break;
    case QDRT_F32: printf("%.9g", (double)*(const float *)p); break;
    case QDRT_F64: printf("%.17g", *(const double *)p); break;
    default: break;
    }
}

static int usage(void) {
    fprintf(stderr, "usage: qdrun MODULE KERNEL [--device=vulkan|cuda|hip|cpu|best] [--metadata=FILE]\n"
                    "             NAME=FILE.npy NAME=@FILE.npy NAME=VALUE ...\n"
                    "Runs KERNEL of MODULE (.spv, .ptx, .hsaco, .o) through libqdrt; see qdrun(1).\n");
    return EXIT_USAGE;
}

static int default_device(const char *module, qdrt_device_kind *k) {
    const char *dot = strrchr(module, '.');
    static const struct { const char *ext; qdrt_device_kind k; } map[] = {
        {".spv", QDRT_DEVICE_VULKAN}, {".ptx", QDRT_DEVICE_CUDA}, {".hsaco", QDRT_DEVICE_HIP}, {".o", QDRT_DEVICE_CPU}};
    for (size_t i = 0; dot && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(dot, map[i].ext)) return *k = map[i].k, 0;
    return fail(EXIT_USAGE, "%s: which device? (a module is .spv, .ptx, .hsaco or .o; or give --device=)", module);
}

static int parse_scalar(const char *name, const char *s, qdrt_value *v) {
    char *end;
    errno = 0;
    if (strpbrk(s, ".eEnN") && !strpbrk(s, "xX")) {
        *v = qdrt_f64(strtod(s, &end));
    } else if (*s == '-') {
        *v = qdrt_i64(strtoll(s, &end, 0));
    } else {
        *v = qdrt_i64((int64_t)strtoull(s, &end, 0));
    }
    if (end == s || *end || errno) return fail(EXIT_INPUT, "%s=%s: not a number, a .npy file or @FILE.npy", name, s);
    return 0;
}

int main(int argc, char **argv) {
    const char *module = NULL, *kernel = NULL, *metadata = NULL, *device = NULL;
    static Arg *args; /* at most one per command-line word; static: reachable on the early exits */
    args = calloc((size_t)argc, sizeof *args);
    int nargs = 0;
    if (!args) return fail(EXIT_INTERNAL, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(), 0;
        if (!strncmp(a, "--device=", 9)) device = a + 9;
        else if (!strncmp(a, "--metadata=", 11)) metadata = a + 11;
        else if (a[0] == '-' && a[1] == '-') return fail(EXIT_USAGE, "unknown option %s", a);
        else if (!module) module = a;
        else if (!kernel) kernel = a;
        else if (!eq || eq == a) return fail(EXIT_USAGE, "argument '%s' is not NAME=FILE.npy, NAME=@FILE.npy or NAME=VALUE", a);
        else {
            char *name = strndup(a, (size_t)(eq - a));
            for (int j = 0; j < nargs; j++)
                if (!strcmp(args[j].name, name)) return fail(EXIT_USAGE, "%s is given twice", name);
            args[nargs++] = (Arg){name, eq + 1, 0};
        }
    }
    if (!module || !kernel) return usage();
    qdrt_device_kind kind;
    int rc = device ? (qdrt_device_kind_parse(device, &kind) ? fail(EXIT_USAGE, "%s", qdrt_error()) : 0) : default_device(module, &kind);
    if (rc) return rc;
    qdrt_device *dev;
    qdrt_status st = qdrt_device_open(kind, &dev);
    if (st) return fail(status_exit(st), "%s", qdrt_error());
    qdrt_module *mod;
    if ((st = qdrt_module_load(dev, module, metadata, &mod))) {
        rc = fail(status_exit(st), "%s", qdrt_error());
        qdrt_device_close(dev);
        return rc;
    }
    int np = qdrt_kernel_params(mod, kernel);
    /* any number of parameters (a vector argument is one per component) */
    size_t slots = np > 0 ? (size_t)np : 1;
    qdrt_value *vals = calloc(slots, sizeof *vals);
    qdrt_array **arrays = calloc(slots, sizeof *arrays);
    const char **writeback = calloc(slots, sizeof *writeback);
    int64_t (*shapes)[QDRT_MAX_NDIM] = calloc(slots, sizeof *shapes);
    if (!vals || !arrays || !writeback || !shapes) rc = fail(EXIT_INTERNAL, "out of memory");
    else if (np < 0) rc = fail(EXIT_INPUT, "module %s has no kernel %s", module, kernel);
    for (int i = 0; !rc && i < np; i++) {
        const char *pname;
        int is_array, ndim;
        qdrt_dtype dt;
        qdrt_kernel_param(mod, kernel, i, &pname, &is_array, &dt, &ndim);
        Arg *a = NULL;
        for (int j = 0; j < nargs; j++)
            if (!strcmp(args[j].name, pname)) a = &args[j];
        if (!a) { rc = fail(EXIT_INPUT, "kernel %s: no value for parameter %s (%s)", kernel, pname, is_array ? "an ndarray: NAME=FILE.npy" : "a scalar: NAME=VALUE"); break; }
        a->used = 1;
        const char *file = a->text[0] == '@' ? a->text + 1 : a->text;
        size_t fl = strlen(file);
        bool npy = a->text[0] == '@' || (fl > 4 && !strcmp(file + fl - 4, ".npy"));
        if (!npy) {
            rc = parse_scalar(pname, a->text, &vals[i]);
            continue;
        }
        Npy n;
        if ((rc = npy_read(file, &n))) break;
        memcpy(shapes[i], n.shape, sizeof n.shape);
        st = qdrt_array_new(dev, n.dtype, n.ndim, n.shape, &arrays[i]);
        if (!st) st = qdrt_array_write(arrays[i], n.data, n.bytes);
        free(n.data);
        if (st) { rc = fail(status_exit(st), "%s: %s", file, qdrt_error()); break; }
        vals[i] = qdrt_arr(arrays[i]);
        if (a->text[0] == '@') writeback[i] = file;
    }
    for (int j = 0; !rc && j < nargs; j++)
        if (!args[j].used) rc = fail(EXIT_INPUT, "kernel %s has no parameter %s", kernel, args[j].name);
    qdrt_dtype rt = QDRT_I32;
    size_t rb = rc ? 0 : qdrt_kernel_ret_bytes(mod, kernel, &rt);
    unsigned char *ret = rb ? calloc(1, rb) : NULL;
    if (!rc && (st = qdrt_launch_kernel(mod, kernel, vals, np, ret, rb))) rc = fail(status_exit(st), "%s", qdrt_error());
    for (int i = 0; !rc && i < np; i++) {
        if (!writeback[i]) continue;
        size_t bytes = qdrt_array_bytes(arrays[i]);
        void *buf = malloc(bytes ? bytes : 1);
        if (!buf) { rc = fail(EXIT_INTERNAL, "out of memory"); break; }
        const char *pname;
        int is_array, ndim;
        qdrt_dtype dt;
        qdrt_kernel_param(mod, kernel, i, &pname, &is_array, &dt, &ndim);
        if ((st = qdrt_array_read(arrays[i], buf, bytes))) rc = fail(status_exit(st), "%s", qdrt_error());
        else rc = npy_write(writeback[i], dt, ndim, shapes[i], buf, bytes);
        free(buf);
    }
    if (!rc && rb) { /* "k returned 3", "k returned 1 2 3", "k returned x=1.5 inner.a=1 2 3 c=7" */
        printf("%s returned", kernel);
        for (int m = 0, nm = qdrt_kernel_ret_members(mod, kernel); m < nm; m++) {
            const char *mname;
            int count;
            size_t off;
            qdrt_kernel_ret_member(mod, kernel, m, &mname, &rt, &count, &off);
            printf(" %s%s", mname, *mname ? "=" : "");
            for (int e = 0; e < count; e++) printf("%s", e ? " " : ""), print_value(rt, ret + off + (size_t)e * qdrt_dtype_size(rt));
        }
        putchar('\n');
    }
    free(ret);
    for (int j = 0; j < nargs; j++) free((char *)args[j].name);
    free(args), free(vals), free(arrays), free(writeback), free(shapes);
    qdrt_device_close(dev);
    return rc;
}
