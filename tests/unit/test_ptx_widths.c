/* Issue 21 item 3: which memory instructions the PTX backend emits comes from the capability
 * database alone (the decision and its loop_cas_native), the type suffix from the ISA's grammar.
 * Each kernel goes through the real driver and database; the test pins the exact sequence of
 * memory instructions in the PTX (ld.param excluded) and, when ptxas is present, assembles it. */
#include "test_ptx_ir.h"
#include <stdio.h>

/* The mnemonics of the memory instructions (atom red ld st fence membar), space separated. */
static char *memory_instructions(const char *ptx) {
    static const char *const heads[] = {"atom.", "red.", "ld.", "st.", "fence.", "membar."};
    StrBuf b;
    sb_init(&b);
    for (const char *l = ptx; *l;) {
        const char *e = strchr(l, '\n');
        if (!e) e = l + strlen(l);
        const char *p = l;
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        for (size_t i = 0; i < ARRAY_LEN(heads); i++) {
            if (strncmp(p, heads[i], strlen(heads[i])) || !strncmp(p, "ld.param", 8)) continue;
            const char *q = p;
            while (q < e && *q != ' ' && *q != '\t' && *q != ';') q++;
            sb_printf(&b, "%s%.*s", b.len ? " " : "", (int)(q - p), p);
        }
        l = *e ? e + 1 : e;
    }
    return sb_take(&b);
}

/* `stmt` on field a of dtype, in a parallel loop over i, compiled for family. */
static void expect_memory(const char *family, const char *dtype, const char *stmt, const char *want) {
    char *src = xasprintf("import quadrants as qd\n\na = qd.field(qd.%s, shape=(4,))\n\n@qd.kernel\ndef k():\n"
                          "    for i in range(4):\n        %s\n", dtype, stmt);
    char *target = xasprintf("--target=%s", family);
    RunResult r = run_qdc_argv((const char *[]){"-", target, "--emit=ptx", "-o", "-", NULL}, src, NULL);
    cr_assert_eq(r.status, 0, "%s %s: %s", family, stmt, r.err);
    char *got = memory_instructions(r.out);
    cr_expect_str_eq(got, want, "%s, %s: %s", family, dtype, stmt);
    ptxas_accepts(r.out, family);
    free(got), free(src), free(target);
    run_free(&r);
}

/* The database says `load: int: native` for every width: ordered 8- and 16-bit loads and stores
 * are ld.acquire/st.release (b8 through a 16-bit register), no longer relaxed between fences. */
Test(ptx_widths, ordered_narrow_loads_and_stores_carry_the_order) {
    expect_memory("sm_70", "i8", "a[i] = qd.atomic_load(a[0], order=\"acquire\")", "ld.acquire.gpu.global.b8 st.global.u8");
    expect_memory("sm_90", "u8", "a[i] = qd.atomic_load(a[0], order=\"seq_cst\", scope=\"block\")",
                  "fence.sc.cta ld.acquire.cta.global.b8 st.global.u8");
    expect_memory("sm_70", "i16", "a[i] = qd.atomic_load(a[0], order=\"acquire\", scope=\"system\")",
                  "ld.acquire.sys.global.b16 st.global.u16");
    expect_memory("sm_70", "u16", "qd.atomic_store(a[i], qd.u16(3), order=\"release\")", "st.release.gpu.global.b16");
    expect_memory("sm_80", "u8", "qd.atomic_store(a[i], qd.u8(3), order=\"seq_cst\", scope=\"system\")",
                  "fence.sc.sys st.release.sys.global.b8");
    /* relaxed stays LLVM's volatile form; sm_60 (orders: [relaxed], emulate: membar) brackets it */
    expect_memory("sm_90", "i8", "a[i] = qd.atomic_load(a[0])", "ld.volatile.global.u8 st.global.u8");
    expect_memory("sm_60", "i8", "a[i] = qd.atomic_load(a[0], order=\"acquire\")", "ld.volatile.global.u8 membar.gl st.global.u8");
    expect_memory("sm_60", "u16", "qd.atomic_store(a[i], qd.u16(3), order=\"release\")", "membar.gl st.volatile.global.u16");
}

/* sm_70's cas.int16 cell (atom.cas.b16): a 16-bit atomic_cas is one instruction, and every CAS
 * loop on 16 bits swaps with it; sm_60 has no such cell: LLVM's masked 32-bit CAS. */
Test(ptx_widths, sixteen_bit_cas_where_the_database_has_it) {
    expect_memory("sm_70", "i16", "a[i] = qd.atomic_cas(a[0], qd.i16(1), qd.i16(2))", "atom.gpu.global.cas.b16 st.global.u16");
    expect_memory("sm_90", "u16", "a[i] = qd.atomic_cas(a[0], qd.u16(1), qd.u16(2), order=\"acq_rel\", scope=\"block\")",
                  "atom.acq_rel.cta.global.cas.b16 st.global.u16");
    expect_memory("sm_80", "bf16", "a[i] = qd.atomic_add(a[0], qd.bf16(1.0))", "ld.volatile.global.u16 atom.gpu.global.cas.b16 st.global.u16");
    expect_memory("sm_70", "f16", "a[i] = qd.atomic_exchange(a[0], qd.f16(1.0), order=\"release\")",
                  "ld.volatile.global.u16 atom.release.gpu.global.cas.b16 st.global.u16");
    expect_memory("sm_60", "i16", "a[i] = qd.atomic_cas(a[0], qd.i16(1), qd.i16(2))",
                  "ld.volatile.global.u16 ld.global.u16 atom.global.cas.b32 st.global.u16");
    expect_memory("sm_60", "f16", "a[i] = qd.atomic_add(a[0], qd.f16(1.0))",
                  "ld.volatile.global.u16 ld.global.u16 atom.global.cas.b32 st.global.u16");
    /* 8 bits: no cas cell anywhere (PTX has no atom.cas.b8): the order as fences around LLVM's CAS */
    expect_memory("sm_70", "u8", "a[i] = qd.atomic_cas(a[0], qd.u8(1), qd.u8(2), order=\"acq_rel\")",
                  "ld.volatile.global.u8 fence.acq_rel.gpu fence.acq_rel.gpu ld.global.u32 atom.global.cas.b32 st.global.u8");
}

/* A database that calls native what PTX cannot spell is an error at its line (QD3014), not an
 * internal error, and nothing is written. */
Test(ptx_widths, native_without_a_ptx_instruction_is_the_database_error) {
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/sm_bad.yaml", dir), *src = xasprintf("%s/k.qd", dir);
    char *out = xasprintf("%s/k.ptx", dir), *opt = xasprintf("--capdb-dir=%s", dir);
    cr_assert(write_text(yaml, "schema: 1\nname: sm_bad\nextends: sm_70\nrank: 999\ndescription: \"16-bit add\"\nops:\n"
                               "  add:\n    int16: {status: native, spelling: \"atom.add.u16\"}\n"));
    cr_assert(write_text(src, "import quadrants as qd\n\na = qd.field(qd.i16, shape=(4,))\n\n@qd.kernel\ndef k():\n"
                              "    for i in range(4):\n        qd.atomic_add(a[i], qd.i16(1))\n"));
    RunResult r = run_qdc("--target=sm_bad", opt, src, "-o", out, NULL);
    char *want = xasprintf("%s:8:5: error[QD3014]: ops.add.int16 of 'sm_bad' calls add on i16 native, but PTX has no "
                           "instruction for it (PTX ISA: atom)\n", yaml);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    cr_expect(!file_exists(out), "no output after QD3014");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(yaml), free(src), free(out), free(opt), free(want);
}
