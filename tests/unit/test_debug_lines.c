/* -g (issue 20, item 15): line information that maps code back to .qd lines on every output
 * kind -- DWARF .debug_line in x86 objects and AMDGPU code objects, `.loc` in x86 assembly and
 * PTX, OpString/OpSource/OpLine in SPIR-V, `#line` in MSL -- naming the input exactly as it was
 * given (no directory added), deterministic, and nothing of it without -g. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line 6 multiplies, line 7 stores: both survive -O2 as their own instructions. */
static const char *const KERNEL = "import quadrants as qd\n"
                                  "\n"
                                  "@qd.kernel\n"
                                  "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), b: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                                  "    for i in range(a.shape[0]):\n"
                                  "        x = a[i] * b[i]\n"
                                  "        a[i] = x + 1.0\n";

typedef struct {
    char *dir, *out;
    RunResult r;
} Compiled;

/* Compiles k.qd (given relative, from its directory) for target with extra options. */
static Compiled compile_k(const char *target, const char *emit, bool g, const char *out_name) {
    Compiled c = {make_temp_dir(), NULL, {0}};
    char *src = path_join(c.dir, "k.qd");
    cr_assert(write_text(src, KERNEL));
    free(src);
    char tgt[64], em[64];
    snprintf(tgt, sizeof tgt, "--target=%s", target);
    snprintf(em, sizeof em, "--emit=%s", emit);
    const char *args[] = {tgt, em, "-o", out_name, "k.qd", g ? "-g" : NULL, NULL};
    c.r = run_qdc_argv(args, NULL, c.dir);
    cr_assert_eq(c.r.status, 0, "qdc %s %s: %s", target, emit, c.r.err);
    cr_expect_str_empty(c.r.err);
    c.out = path_join(c.dir, out_name);
    return c;
}

static void done(Compiled *c) {
    run_free(&c->r);
    remove_tree(c->dir);
    free(c->dir), free(c->out);
}

/* The set of line numbers in llvm-dwarfdump's line table rows ("0x<addr> <line> <col> ..."). */
static bool dwarf_has_line(const char *dump, unsigned want) {
    for (const char *p = dump; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        unsigned long long addr;
        unsigned line;
        if (!strncmp(p, "0x", 2) && sscanf(p, "%llx %u", &addr, &line) == 2 && line == want) return true;
    }
    return false;
}

static char *dwarf_lines(const char *path) {
    const char *argv[] = {"llvm-dwarfdump-19", "--debug-line", path, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "llvm-dwarfdump-19: %s", r.err);
    char *out = r.out;
    r.out = NULL;
    run_free(&r);
    return out;
}

/* True when the file's bytes contain s (an absolute temporary path must never be there). */
static bool file_contains(const char *path, const char *s) {
    size_t n = 0;
    char *data = read_text(path, &n);
    cr_assert(data, "cannot read %s", path);
    bool found = memmem(data, n, s, strlen(s)) != NULL;
    free(data);
    return found;
}

Test(debug_lines, x86_object_has_dwarf_lines_of_the_statements) {
    Compiled c = compile_k("x86_64", "obj", true, "k.o");
    char *dump = dwarf_lines(c.out);
    cr_expect(strstr(dump, "name: \"k.qd\""), "the file is named as given:\n%s", dump);
    cr_expect(dwarf_has_line(dump, 6) && dwarf_has_line(dump, 7), "lines 6 and 7 in the table:\n%s", dump);
    cr_expect(!dwarf_has_line(dump, 2), "no row for the blank line 2:\n%s", dump);
    cr_expect(!file_contains(c.out, c.dir), "no absolute path of the build directory");
    free(dump);
    done(&c);
}

Test(debug_lines, x86_assembly_has_loc_directives) {
    Compiled c = compile_k("x86_64", "asm", true, "k.s");
    char *s = read_text(c.out, NULL);
    cr_expect(strstr(s, "\t.file\t") && strstr(s, "\"k.qd\""), "%s", s);
    cr_expect(strstr(s, "\t.loc\t1 7 ") && strstr(s, "\t.loc\t1 6 "), "%s", s);
    free(s);
    done(&c);
}

Test(debug_lines, amdgpu_code_object_has_dwarf_lines) {
    Compiled c = compile_k("gfx942", "hsaco", true, "k.hsaco");
    char *dump = dwarf_lines(c.out);
    cr_expect(strstr(dump, "name: \"k.qd\""), "%s", dump);
    cr_expect(dwarf_has_line(dump, 6) && dwarf_has_line(dump, 7), "lines 6 and 7 in the table:\n%s", dump);
    free(dump);
    done(&c);
}

Test(debug_lines, ptx_has_file_and_loc) {
    Compiled c = compile_k("sm_90", "ptx", true, "k.ptx");
    char *s = read_text(c.out, NULL);
    cr_expect(strstr(s, "\t.file\t1 \"k.qd\"\n"), "%s", s);
    cr_expect(strstr(s, "\t.loc\t1 7 ") && strstr(s, "\t.loc\t1 6 "), "%s", s);
    free(s);
    static const char *const ptxas = "/usr/local/cuda/bin/ptxas"; /* where the CUDA toolkit is */
    if (tool_available(ptxas)) { /* the debug sections assemble */
        char *cubin = path_join(c.dir, "k.cubin");
        const char *argv[] = {ptxas, "-arch=sm_90", "-lineinfo", c.out, "-o", cubin, NULL};
        RunResult r = run_argv(argv, NULL, NULL);
        cr_expect_eq(r.status, 0, "ptxas: %s", r.err);
        run_free(&r), free(cubin);
    }
    done(&c);
}

Test(debug_lines, spirv_has_opstring_opsource_and_opline) {
    Compiled c = compile_k("vulkan1.2", "spirv-asm", true, "k.spvasm");
    char *s = read_text(c.out, NULL);
    cr_expect(strstr(s, "%1 = OpString \"k.qd\"\n"), "%s", s);
    cr_expect(strstr(s, "OpSource Unknown 0 %1\n"), "%s", s);
    cr_expect(strstr(s, "OpLine %1 6 ") && strstr(s, "OpLine %1 7 "), "%s", s);
    free(s);
    done(&c);
    /* the binary went through spirv-val inside qdc (a failure is an internal error, exit 3) */
    c = compile_k("vulkan1.3", "spirv", true, "k.spv");
    done(&c);
}

Test(debug_lines, msl_carries_line_directives) {
    Compiled c = compile_k("apple9", "msl", true, "k.metal");
    char *s = read_text(c.out, NULL);
    cr_expect(strstr(s, "#line 7 \"k.qd\"\n"), "%s", s);
    free(s);
    done(&c);
}

/* Without -g no output has any of it; with -g two runs give the same bytes. */
Test(debug_lines, nothing_without_g_and_deterministic_with_it) {
    static const char *const kinds[][3] = {{"x86_64", "obj", "k.o"}, {"x86_64", "asm", "k.s"}, {"sm_90", "ptx", "k.ptx"},
                                           {"gfx942", "hsaco", "k.hsaco"}, {"vulkan1.2", "spirv-asm", "k.spvasm"},
                                           {"apple9", "msl", "k.metal"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        Compiled plain = compile_k(kinds[i][0], kinds[i][1], false, kinds[i][2]);
        cr_expect(!file_contains(plain.out, "k.qd"), "%s %s without -g names the input", kinds[i][0], kinds[i][1]);
        cr_expect(!file_contains(plain.out, ".debug_line") && !file_contains(plain.out, ".loc\t") &&
                      !file_contains(plain.out, "OpLine") && !file_contains(plain.out, "#line"),
                  "%s %s without -g has line information", kinds[i][0], kinds[i][1]);
        Compiled a = compile_k(kinds[i][0], kinds[i][1], true, kinds[i][2]);
        Compiled b = compile_k(kinds[i][0], kinds[i][1], true, kinds[i][2]);
        size_t na = 0, nb = 0;
        char *da = read_text(a.out, &na), *db = read_text(b.out, &nb);
        cr_expect(na == nb && !memcmp(da, db, na), "%s %s -g differs between two runs", kinds[i][0], kinds[i][1]);
        cr_expect(file_contains(a.out, "k.qd"), "%s %s -g names the input", kinds[i][0], kinds[i][1]);
        free(da), free(db);
        done(&plain), done(&a), done(&b);
    }
}
