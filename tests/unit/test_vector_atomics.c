/* Vector atomics on sm_90 (issue 15 item 4, qdc-lang(7) "Vector atomics"): the component
 * atomics of one vector statement whose results are unused become one atom.global.add.vN
 * instruction where the capability database's vector_atomics cell says native, on storage the
 * ABI aligns; everything else keeps its scalar atomics, byte for byte, with the reason in
 * --report-lowering. llc-19 and (when present) ptxas accept what is emitted. */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXAS "/usr/local/cuda/bin/ptxas"

#define HEAD "import quadrants as qd\n\nvec4 = qd.types.vector(4, qd.f32)\nf = qd.Vector.field(4, qd.f32, shape=(16,))\n"
#define KERNEL(params, body) "\n@qd.kernel\ndef k(" params "):\n    for i in range(16):\n" body

typedef struct {
    RunResult r;
    char *text; /* the output file, NULL after an error */
} Out;

/* Compiles src for target with the given extra arguments (NULL-terminated, at most 6). */
static Out compile_args(const char *src, const char *target, const char *const *extra) {
    char *dir = make_temp_dir(), *in = NULL, *out = NULL, *tgt = NULL;
    cr_assert(asprintf(&in, "%s/k.py", dir) > 0 && asprintf(&out, "%s/k.out", dir) > 0);
    cr_assert(asprintf(&tgt, "--target=%s", target) > 0);
    cr_assert(write_text(in, src));
    const char *args[16] = {"--color=never", tgt};
    int n = 2;
    for (; extra && *extra && n < 12; extra++) args[n++] = *extra;
    args[n++] = in, args[n++] = "-o", args[n++] = out, args[n] = NULL;
    Out o = {run_qdc_argv(args, NULL, NULL), NULL};
    if (!o.r.status) o.text = read_text(out, NULL);
    else cr_expect(!file_exists(out), "an output was written after an error");
    remove_tree(dir);
    free(dir), free(in), free(out), free(tgt);
    return o;
}

static char *ptx_for(const char *src, const char *target) {
    Out o = compile_args(src, target, (const char *[]){"--emit=ptx", NULL});
    cr_assert_eq(o.r.status, 0, "%s", o.r.err);
    run_free(&o.r);
    return o.text;
}

static char *report_for(const char *src, const char *target, const char *format) {
    char *dir = make_temp_dir(), *in = NULL, *tgt = NULL;
    cr_assert(asprintf(&in, "%s/k.py", dir) > 0 && asprintf(&tgt, "--target=%s", target) > 0);
    cr_assert(write_text(in, src));
    RunResult r = run_qdc("--color=never", tgt, format, in, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = r.out;
    r.out = NULL;
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(tgt);
    return out;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* The rest of the line that defines reg ("\tmov.b32 \t%r17, %f1;" -> "mov.b32", "%f1;"). */
static bool def_of(const char *ptx, const char *reg, char *insn, size_t ni, char *rest, size_t nr) {
    char pat[32];
    snprintf(pat, sizeof pat, "\t%s, ", reg);
    const char *p = strstr(ptx, pat);
    if (!p) return false;
    const char *bol = p;
    while (bol > ptx && bol[-1] != '\n') bol--;
    while (*bol == '\t') bol++;
    size_t k = strcspn(bol, " \t");
    snprintf(insn, ni, "%.*s", (int)k, bol);
    const char *r = p + strlen(pat);
    snprintf(rest, nr, "%.*s", (int)strcspn(r, "\n"), r);
    return true;
}

static void ptxas_accepts(const char *ptx, const char *arch) {
    if (!tool_available(PTXAS)) {
        printf("vector_atomics: SKIP ptxas check (%s not present)\n", PTXAS);
        return;
    }
    char *dir = make_temp_dir(), *in = NULL, *out = NULL, *a = NULL;
    cr_assert(asprintf(&in, "%s/k.ptx", dir) > 0 && asprintf(&out, "%s/k.cubin", dir) > 0 &&
              asprintf(&a, "-arch=%s", arch) > 0);
    cr_assert(write_text(in, ptx));
    RunResult r = run_argv((const char *[]){PTXAS, a, in, "-o", out, NULL}, NULL, NULL);
    cr_expect_eq(r.status, 0, "ptxas %s rejected:\n%s\n%s", arch, r.err, ptx);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(out), free(a);
}

static const char *const vec4_src = HEAD KERNEL("w: vec4", "        qd.atomic_add(f[i], w)\n");

/* One atom.global.add.v4.f32 whose operands are w_0..w_3 in order, at qd_field_f + 16 * i,
 * in a PTX ISA 8.1 module; no scalar atomic remains. */
Test(vector_atomics, sm90_vec4_is_one_instruction_with_the_components_in_order) {
    char *ptx = ptx_for(vec4_src, "sm_90");
    cr_expect(strstr(ptx, "\n.version 8.1\n.target sm_90\n"), "%s", ptx);
    cr_expect_eq(count(ptx, "atom."), 1, "%s", ptx);
    cr_expect_eq(count(ptx, "red."), 0, "%s", ptx);
    const char *at = strstr(ptx, "\tatom.global.add.v4.f32 {");
    cr_assert(at, "%s", ptx);
    char d[4][16], addr[16], b[4][16];
    int got = sscanf(at, "\tatom.global.add.v4.f32 {%15[^,], %15[^,], %15[^,], %15[^}]}, [%15[^]]], {%15[^,], %15[^,], "
                         "%15[^,], %15[^}]};", d[0], d[1], d[2], d[3], addr, b[0], b[1], b[2], b[3]);
    cr_assert_eq(got, 9, "%s", at);
    char insn[32], rest[64], insn2[32], rest2[64];
    for (int k = 0; k < 4; k++) { /* b[k] = bits of the f32 parameter w_k */
        cr_assert(def_of(ptx, b[k], insn, sizeof insn, rest, sizeof rest), "%s undefined", b[k]);
        cr_expect_str_eq(insn, "mov.b32");
        rest[strcspn(rest, ";")] = 0;
        cr_assert(def_of(ptx, rest, insn2, sizeof insn2, rest2, sizeof rest2), "%s undefined", rest);
        cr_expect_str_eq(insn2, "ld.param.f32");
        char want[48];
        snprintf(want, sizeof want, "[k_t0_param_%d];", k);
        cr_expect_str_eq(rest2, want, "component %d: %s", k, rest2);
        for (int j = 0; j < k; j++) cr_expect_str_neq(b[j], b[k]);
    }
    /* the address: qd_field_f + i * 16 (AOS, 16-byte elements of a 64-byte aligned field) */
    cr_assert(def_of(ptx, addr, insn, sizeof insn, rest, sizeof rest), "%s undefined", addr);
    cr_expect_str_eq(insn, "add.s64");
    char x[16], y[16];
    cr_assert_eq(sscanf(rest, "%15[^,], %15[^;];", x, y), 2, "%s", rest);
    char ix[32], rx[64], iy[32], ry[64];
    cr_assert(def_of(ptx, x, ix, sizeof ix, rx, sizeof rx) && def_of(ptx, y, iy, sizeof iy, ry, sizeof ry));
    bool field_first = !strcmp(ix, "mov.u64");
    cr_expect_str_eq(field_first ? rx : ry, "qd_field_f;");
    cr_expect_str_eq(field_first ? iy : ix, "mul.wide.s32");
    cr_expect(strstr(field_first ? ry : rx, ", 16;"), "%s / %s", rx, ry);
    free(ptx);
}

/* llc-19 compiles the module's LLVM IR to the same instruction; ptxas (when installed) accepts
 * the PTX for sm_90 and sm_90a (which inherits the cells). */
Test(vector_atomics, llc19_and_ptxas_accept_the_module) {
    Out o = compile_args(vec4_src, "sm_90", (const char *[]){"--emit=llvm-ir", NULL});
    cr_assert_eq(o.r.status, 0, "%s", o.r.err);
    cr_expect(strstr(o.text, "atom.global.add.v4.f32 {$0, $1, $2, $3}, [$4], {$5, $6, $7, $8};"), "%s", o.text);
    char *dir = make_temp_dir(), *ll = NULL, *s = NULL;
    cr_assert(asprintf(&ll, "%s/k.ll", dir) > 0 && asprintf(&s, "%s/k.ptx", dir) > 0);
    cr_assert(write_text(ll, o.text));
    RunResult r = run_argv((const char *[]){"llc-19", "-march=nvptx64", "-mcpu=sm_90", "-mattr=+ptx81", ll, "-o", s, NULL},
                           NULL, NULL);
    cr_expect_eq(r.status, 0, "llc-19: %s", r.err);
    char *ptx = read_text(s, NULL);
    cr_expect(ptx && strstr(ptx, "atom.global.add.v4.f32 {"), "%s", ptx ? ptx : "(none)");
    if (ptx) ptxas_accepts(ptx, "sm_90");
    free(ptx);
    run_free(&r);
    run_free(&o.r);
    free(o.text);
    remove_tree(dir);
    free(dir), free(ll), free(s);
    for (int i = 0; i < 2; i++) {
        const char *fam = i ? "sm_90a" : "sm_90";
        char *p = ptx_for(vec4_src, fam);
        cr_expect_eq(count(p, "atom.global.add.v4.f32 {"), 1, "%s: %s", fam, p);
        ptxas_accepts(p, fam);
        free(p);
    }
}

/* Families without vector_atomics fan out exactly as before: four scalar atomics, PTX 8.0. */
Test(vector_atomics, families_without_the_cell_keep_one_atomic_per_component) {
    const char *fams[] = {"sm_80", "sm_89"};
    for (int i = 0; i < 2; i++) {
        char *ptx = ptx_for(vec4_src, fams[i]);
        cr_expect(strstr(ptx, "\n.version 8.0\n"), "%s", ptx);
        cr_expect_eq(count(ptx, "atom.global.add.f32"), 4, "%s: %s", fams[i], ptx);
        cr_expect_eq(count(ptx, ".v4."), 0, "%s", ptx);
        free(ptx);
        char *rep = report_for(vec4_src, fams[i], "--report-lowering");
        cr_expect_eq(count(rep, "  add            f32   global  relaxed  device   native       atom.add.f32  ("), 4, "%s", rep);
        cr_expect(!strstr(rep, "vector"), "%s", rep);
        free(rep);
    }
}

/* A copy of the shipped sm_90 without its vector_atomics section, shadowing it (QD0008). */
static char *family_without_vectors(void) {
    char *dir = make_temp_dir(), *src = root_path("capability-db/sm_90.yaml"), *dst = NULL;
    char *text = read_text(src, NULL);
    cr_assert(text);
    char *cut = strstr(text, "\nvector_atomics:");
    cr_assert(cut);
    cut[1] = 0;
    cr_assert(asprintf(&dst, "%s/sm_90.yaml", dir) > 0);
    cr_assert(write_text(dst, text));
    free(src), free(dst), free(text);
    return dir;
}

/* Not fused: a vec3, used results, an ndarray (only element-aligned), release and seq_cst
 * orders, an operand that reads the vector it updates, a max (no cell). Each record says why,
 * and the PTX is byte for byte the one of an sm_90 without vector_atomics. */
Test(vector_atomics, unfused_cases_say_why_and_emit_exactly_the_scalar_atomics) {
    static const struct { const char *decl, *params, *body, *why; int n; } cases[] = {
        {"g = qd.Vector.field(3, qd.f32, shape=(16,))\n", "", "        g[i] += qd.Vector([1.0, 2.0, 3.0])\n",
         "not one vector atomic: no vector_atomics cell of the family for add on f32 has a width dividing its 3 components", 3},
        {"o = qd.Vector.field(4, qd.f32, shape=(16,))\n", "w: vec4", "        old = qd.atomic_add(f[i], w)\n        o[i] = old\n",
         "not one vector atomic: its old values are used", 4},
        {"", "w: vec4, a: qd.types.ndarray(dtype=vec4, ndim=1)", "        qd.atomic_add(a[i], w)\n",
         "not one vector atomic: ndarray data is only element-aligned (qdc-abi(7))", 4},
        {"", "w: vec4", "        qd.atomic_add(f[i], w, order=\"release\")\n",
         "not one vector atomic: one instruction would not order its components as the scalar release atomics do", 4},
        {"", "w: vec4", "        qd.atomic_add(f[i], w, order=\"acq_rel\", scope=\"block\")\n",
         "not one vector atomic: one instruction would not order its components as the scalar release atomics do", 4},
        {"", "w: vec4", "        qd.atomic_add(f[i], w, order=\"seq_cst\")\n",
         "not one vector atomic: its components are not single native atomics", 4},
        {"", "", "        qd.atomic_add(f[i], qd.Vector([f[i][1], 0.0, 0.0, 0.0]))\n",
         "not one vector atomic: an operand reads the memory it updates or has effects", 4},
        {"", "w: vec4", "        qd.atomic_max(f[i], w)\n", "not one vector atomic: its components are not single native atomics", 4},
    };
    char *plain_db = family_without_vectors();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *src = NULL;
        cr_assert(asprintf(&src, HEAD "%s\n@qd.kernel\ndef k(%s):\n    for i in range(16):\n%s", cases[c].decl,
                           cases[c].params, cases[c].body) > 0);
        char *rep = report_for(src, "sm_90", "--report-lowering");
        cr_expect_eq(count(rep, cases[c].why), cases[c].n, "case %zu:\n%s", c, rep);
        cr_expect(!strstr(rep, ".v4"), "case %zu:\n%s", c, rep);
        free(rep);
        Out with = compile_args(src, "sm_90", (const char *[]){"--emit=ptx", NULL});
        Out without = compile_args(src, "sm_90", (const char *[]){"--emit=ptx", "--capdb-dir", plain_db, NULL});
        cr_assert_eq(with.r.status, 0, "%s", with.r.err);
        cr_assert_eq(without.r.status, 0, "%s", without.r.err);
        cr_expect_str_eq(with.text, without.text, "case %zu differs from a family without vector_atomics", c);
        cr_expect(strstr(with.text, "\n.version 8.0\n"), "case %zu", c);
        ptxas_accepts(with.text, "sm_90");
        run_free(&with.r), run_free(&without.r);
        free(with.text), free(without.text), free(src);
    }
    remove_tree(plain_db);
    free(plain_db);
}

/* The widths the database has: a vec8 as two v4 (32-byte elements), a 2x2 matrix as one v4,
 * a vec2 as v2, eight f16 as one v8; sub as add of the negation; acquire and a scope carried. */
Test(vector_atomics, widths_matrices_sub_orders_and_f16) {
    const char *src = HEAD "h = qd.Vector.field(8, qd.f32, shape=(16,))\nm = qd.Matrix.field(2, 2, qd.f32, shape=(16,))\n"
                           "t = qd.Vector.field(2, qd.f32, shape=(16,))\nhf = qd.Vector.field(8, qd.f16, shape=(16,))\n"
                           "hb = qd.Vector.field(4, qd.bf16, shape=(16,))\n"
        KERNEL("w: vec4", "        h[i] += 1.0\n        m[i] += qd.Matrix([[1.0, 2.0], [3.0, 4.0]])\n"
                          "        t[i] += qd.Vector([1.0, 2.0])\n        hf[i] += qd.cast(1, qd.f16)\n"
                          "        hb[i] += qd.cast(1, qd.bf16)\n        f[i] -= w\n"
                          "        qd.atomic_add(f[i], w, order=\"acquire\", scope=\"system\")\n"
                          "        qd.atomic_add(f[i], w, scope=\"block\")\n");
    char *ptx = ptx_for(src, "sm_90");
    cr_expect_eq(count(ptx, "atom.global.add.v4.f32 {"), 4, "%s", ptx); /* h twice, m, f -= w */
    cr_expect_eq(count(ptx, "atom.global.add.v2.f32 {"), 1, "%s", ptx);
    cr_expect_eq(count(ptx, "atom.global.add.noftz.v8.f16 {"), 1, "%s", ptx);
    cr_expect_eq(count(ptx, "atom.global.add.noftz.v4.bf16 {"), 1, "%s", ptx);
    cr_expect_eq(count(ptx, "atom.acquire.sys.global.add.v4.f32 {"), 1, "%s", ptx);
    cr_expect_eq(count(ptx, "atom.cta.global.add.v4.f32 {"), 1, "%s", ptx);
    cr_expect_eq(count(ptx, ", -2147483648;"), 4, "%s", ptx); /* the sign bits of w, flipped */
    cr_expect_eq(count(ptx, "atom."), 9, "%s", ptx);
    ptxas_accepts(ptx, "sm_90");
    free(ptx);
    char *rep = report_for(src, "sm_90", "--report-lowering");
    cr_expect(strstr(rep, "  sub.v4         f32   global  relaxed  device   native       atom.global.add.v4.f32: components 0-3 "
                          "of the vector in one instruction (each component atomic on its own); sub as add of the negation  "
                          "(capability-db/sm_90.yaml:vector_atomics.add.f32.v4)\n"), "%s", rep);
    cr_expect(strstr(rep, "atom.global.add.v4.f32: components 4-7 of the vector in one instruction"), "%s", rep);
    free(rep);
}

/* --report-lowering: one record per vector instruction (text and JSON), naming the cell. */
Test(vector_atomics, report_has_one_record_per_vector_atomic) {
    char *text = report_for(vec4_src, "sm_90", "--report-lowering");
    cr_expect(strstr(text, "# lowering for target sm_90 (ptx)\n"), "%s", text);
    cr_expect_eq(count(text, "\n"), 2, "%s", text);
    cr_expect(strstr(text, "k.py:9:9 "), "%s", text);
    cr_expect(strstr(text, "  add.v4         f32   global  relaxed  device   native       "
                           "atom.global.add.v4.f32: components 0-3 of the vector in one instruction (each component atomic "
                           "on its own)  (capability-db/sm_90.yaml:vector_atomics.add.f32.v4)\n"), "%s", text);
    free(text);
    char *json = report_for(vec4_src, "sm_90", "--report-lowering=json");
    cr_expect_eq(count(json, "\n"), 1, "%s", json);
    cr_expect(strstr(json, "\"op\":\"add\",\"dtype\":\"f32\",\"space\":\"global\",\"order\":\"relaxed\",\"scope\":\"device\","
                           "\"decision\":\"native\",\"emit_op\":\"add\""), "%s", json);
    cr_expect(strstr(json, "\"no_return\":false,\"flags\":[],\"spelling\":\"atom.global.add.v4.f32\""), "%s", json);
    cr_expect(strstr(json, "\"reason\":\"capability-db/sm_90.yaml:vector_atomics.add.f32.v4\",\"fence_order\":null,"
                           "\"reduce\":null,\"vector\":4,\"schema\":\"qdc-lowering/1\"}\n"), "%s", json);
    free(json);
    /* --atomic-rewrite: a reduced vector atomic stays per component; with none it is fused */
    const char *red = "import quadrants as qd\n\nz = qd.Vector.field(2, qd.f32, shape=())\n\n@qd.kernel\ndef k():\n"
                      "    for i in range(16):\n        z[None] += qd.Vector([1.0, 2.0])\n";
    char *r1 = report_for(red, "sm_90", "--report-lowering");
    cr_expect_eq(count(r1, "not one vector atomic: its components are reduced per worker or subgroup (--atomic-rewrite)"), 2, "%s", r1);
    free(r1);
    char *dir = make_temp_dir(), *in = NULL;
    cr_assert(asprintf(&in, "%s/k.py", dir) > 0 && write_text(in, red));
    RunResult r = run_qdc("--target=sm_90", "--atomic-rewrite=none", "--report-lowering", in, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "add.v2         f32   global  relaxed  device   native       atom.global.add.v2.f32: "), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in);
}

/* The database fact: sm_90a inherits it, older families have none, `unset:` removes it. */
Test(vector_atomics, capdb_cells_inherit_print_and_unset) {
    RunResult r = run_qdc("--print-caps", "sm_90a", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\nvector_atomics.llvm_features: +ptx81\nvector_atomics.ptx_isa: 8.1\n"), "%s", r.out);
    cr_expect(strstr(r.out, "\nadd      f32  global.v4 native [atom.global.add.v4.f32]\n"), "%s", r.out);
    cr_expect(strstr(r.out, "\nadd      f16  global.v8 native [atom.global.add.noftz.v8.f16]\n"), "%s", r.out);
    cr_expect(!strstr(r.out, "min      f16  global.v"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--print-caps", "sm_89", NULL);
    cr_expect(!strstr(r.out, "global.v") && !strstr(r.out, "vector_atomics"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--print-caps", "sm_90", "--format=json", NULL);
    cr_expect(strstr(r.out, ",\"vector_ops\":[{\"op\":\"add\",\"dtype\":\"f16\",\"width\":2,\"cell\":{\"status\":\"native\","
                            "\"spelling\":\"atom.global.add.noftz.v2.f16\",\"source\":\"capability-db/sm_90.yaml:"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--print-caps", "gfx942", "--format=json", NULL);
    cr_expect(strstr(r.out, ",\"vector_ops\":[]}\n"), "%s", r.out);
    run_free(&r);
    char *dir = make_temp_dir(), *fam = NULL;
    cr_assert(asprintf(&fam, "%s/nov.yaml", dir) > 0);
    cr_assert(write_text(fam, "schema: 1\nname: nov\nextends: sm_90\nunset: [vector_atomics]\n"));
    Out o = compile_args(vec4_src, "nov", (const char *[]){"--emit=ptx", "--capdb-dir", dir, NULL});
    cr_assert_eq(o.r.status, 0, "%s", o.r.err);
    cr_expect_eq(count(o.text, "atom.global.add.f32"), 4, "%s", o.text);
    cr_expect(strstr(o.text, "\n.version 8.0\n"), "%s", o.text);
    run_free(&o.r);
    free(o.text), free(fam);
    remove_tree(dir);
    free(dir);
}

/* Scatter-adds: an index loaded from an ndarray and an operand read from another field are
 * computed once, before the one instruction (nothing the statement updates can change them). */
Test(vector_atomics, indices_and_operands_from_other_memory_are_fused) {
    const char *src = HEAD "o = qd.Vector.field(4, qd.f32, shape=(16,))\n"
        KERNEL("idx: qd.types.ndarray(dtype=qd.i32, ndim=1)", "        f[idx[i]] += o[i]\n"
                                                             "        qd.atomic_add(f[idx[i] + 1], qd.Vector([o[i][1], 0.0, 0.0, 1.0]))\n");
    char *rep = report_for(src, "sm_90", "--report-lowering");
    cr_expect_eq(count(rep, "  add.v4         f32   global  relaxed  device   native       atom.global.add.v4.f32: components 0-3"), 2,
                 "%s", rep);
    cr_expect_eq(count(rep, "\n"), 3, "%s", rep);
    free(rep);
    char *ptx = ptx_for(src, "sm_90");
    cr_expect_eq(count(ptx, "atom."), 2, "%s", ptx);
    cr_expect_eq(count(ptx, "ld.global.u32 \t%r"), 3, "%s", ptx); /* idx[i] once per statement, o[i][1] */
    ptxas_accepts(ptx, "sm_90");
    free(ptx);
}
