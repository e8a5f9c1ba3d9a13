/* The inline-PTX spelling (the ISA's grammar; availability is the database's): exact spellings,
 * and every spellable (op, dtype, space, order, scope) assembled by ptxas for sm_60 (as sm_75),
 * sm_70 (as sm_75) and sm_90. */
#include "harness.h"
#include "targets/llvm/gpu.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXAS "/usr/local/cuda/bin/ptxas"

static char *spell(QdOp op, QdType t, QdSpace sp, QdOrder o, QdScope s, bool sem, bool noret, char **cons) {
    PtxInline pi;
    if (!ptx_spell_memop(op, t, sp, o, s, sem, noret, &pi)) return NULL;
    char *text = sb_take(&pi.text);
    *cons = sb_take(&pi.cons);
    return text;
}

static void expect(QdOp op, QdType t, QdSpace sp, QdOrder o, QdScope s, bool sem, bool noret,
                   const char *want_text, const char *want_cons) {
    char *cons = NULL;
    char *text = spell(op, t, sp, o, s, sem, noret, &cons);
    cr_assert_not_null(text, "no spelling for %s %s", qop_name(op), qt_name(t));
    cr_expect_str_eq(text, want_text);
    cr_expect_str_eq(cons, want_cons);
    free(text), free(cons);
}

Test(ptx_spell, atoms_with_sem_and_scope) {
    expect(QOP_ADD, QT_U32, QSPACE_GLOBAL, QORD_ACQ_REL, QSCOPE_BLOCK, true, false,
           "atom.acq_rel.cta.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}");
    expect(QOP_ADD, QT_I64, QSPACE_SHARED, QORD_RELEASE, QSCOPE_DEVICE, true, false,
           "atom.release.gpu.shared.add.u64 $0, [$1], $2;", "=l,l,l,~{memory}");
    expect(QOP_ADD, QT_F16, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_SYSTEM, false, false,
           "atom.sys.global.add.noftz.f16 $0, [$1], $2;", "=h,l,h,~{memory}");
    expect(QOP_MIN, QT_I32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_CLUSTER, true, false,
           "atom.acquire.cluster.global.min.s32 $0, [$1], $2;", "=r,l,r,~{memory}");
    expect(QOP_CAS, QT_F64, QSPACE_GLOBAL, QORD_SEQ_CST, QSCOPE_SYSTEM, true, false,
           "atom.acq_rel.sys.global.cas.b64 $0, [$1], $2, $3;", "=l,l,l,l,~{memory}");
    expect(QOP_INC, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, false, false,
           "atom.gpu.global.inc.u32 $0, [$1], $2;", "=r,l,r,~{memory}");
    expect(QOP_CAS, QT_I16, QSPACE_SHARED, QORD_ACQUIRE, QSCOPE_BLOCK, true, false,
           "atom.acquire.cta.shared.cas.b16 $0, [$1], $2, $3;", "=h,l,h,h,~{memory}");
    expect(QOP_MIN, QT_I64, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, false, false,
           "atom.gpu.global.min.s64 $0, [$1], $2;", "=l,l,l,~{memory}");
    expect(QOP_XOR, QT_U64, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, false, false,
           "atom.gpu.global.xor.b64 $0, [$1], $2;", "=l,l,l,~{memory}");
}

Test(ptx_spell, red_when_result_unused) {
    expect(QOP_ADD, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, false, true,
           "red.gpu.global.add.u32 [$0], $1;", "l,r,~{memory}");
    expect(QOP_MAX, QT_U64, QSPACE_GLOBAL, QORD_RELEASE, QSCOPE_SYSTEM, true, true,
           "red.release.sys.global.max.u64 [$0], $1;", "l,l,~{memory}");
    /* red has no acquire: the returning atom keeps the order */
    expect(QOP_ADD, QT_F32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_DEVICE, true, true,
           "atom.acquire.gpu.global.add.f32 $0, [$1], $2;", "=r,l,r,~{memory}");
    /* exchange and cas always return */
    expect(QOP_EXCHANGE, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, false, true,
           "atom.gpu.global.exch.b32 $0, [$1], $2;", "=r,l,r,~{memory}");
}

Test(ptx_spell, loads_stores_and_fences) {
    expect(QOP_LOAD, QT_F32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_DEVICE, true, false,
           "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l,~{memory}");
    expect(QOP_LOAD, QT_U64, QSPACE_GLOBAL, QORD_SEQ_CST, QSCOPE_SYSTEM, true, false,
           "ld.acquire.sys.global.b64 $0, [$1];", "=l,l,~{memory}");
    expect(QOP_STORE, QT_BF16, QSPACE_SHARED, QORD_RELEASE, QSCOPE_BLOCK, true, false,
           "st.release.cta.shared.b16 [$0], $1;", "l,h,~{memory}");
    expect(QOP_LOAD, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, false, false,
           "ld.volatile.global.b32 $0, [$1];", "=r,l,~{memory}");
    /* 8 bits: ld/st name a 16-bit register */
    expect(QOP_LOAD, QT_I8, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_DEVICE, true, false,
           "ld.acquire.gpu.global.b8 $0, [$1];", "=h,l,~{memory}");
    expect(QOP_STORE, QT_U8, QSPACE_SHARED, QORD_RELEASE, QSCOPE_SYSTEM, true, false,
           "st.release.sys.shared.b8 [$0], $1;", "l,h,~{memory}");
    expect(QOP_LOAD, QT_U16, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_BLOCK, true, false,
           "ld.relaxed.cta.global.b16 $0, [$1];", "=h,l,~{memory}");
    StrBuf b;
    sb_init(&b);
    ptx_spell_fence(QORD_SEQ_CST, QSCOPE_DEVICE, false, &b);
    ptx_spell_fence(QORD_ACQUIRE, QSCOPE_BLOCK, false, &b);
    ptx_spell_fence(QORD_RELEASE, QSCOPE_SYSTEM, true, &b);
    ptx_spell_fence(QORD_ACQ_REL, QSCOPE_CLUSTER, true, &b);
    ptx_spell_fence(QORD_RELAXED, QSCOPE_SYSTEM, false, &b);
    cr_expect_str_eq(b.data, "fence.sc.gpu;fence.acq_rel.cta;membar.sys;membar.gl;");
    sb_free(&b);
}

/* The grammar's gaps: no float min/max or bitwise atom, inc/dec only .u32, no 16-bit add/min/exch,
 * no 8-bit atom at all, no sub/mul, nothing on u1. */
Test(ptx_spell, no_single_instruction) {
    static const struct { QdOp op; QdType t; } none[] = {
        {QOP_MIN, QT_F32},      {QOP_INC, QT_U64}, {QOP_EXCHANGE, QT_F16}, {QOP_SUB, QT_I32}, {QOP_MUL, QT_I32},
        {QOP_ADD, QT_I8},       {QOP_ADD, QT_U16}, {QOP_MIN, QT_I16},      {QOP_CAS, QT_U8},  {QOP_AND, QT_F32},
        {QOP_EXCHANGE, QT_U16}, {QOP_DEC, QT_I64}, {QOP_LOAD, QT_U1},
    };
    for (size_t i = 0; i < ARRAY_LEN(none); i++) {
        char *cons = NULL, *text = spell(none[i].op, none[i].t, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, true, false, &cons);
        cr_expect_null(text, "%s on %s spelled '%s'", qop_name(none[i].op), qt_name(none[i].t), text);
        free(text), free(cons);
    }
}

/* ---- ptxas acceptance of the whole table ---- */

typedef struct {
    const char *target, *arch;
    bool sem;         /* .sem qualifiers exist (sm_70+) */
    bool cluster;     /* .cluster scope (sm_90) */
    bool f16_add;     /* atom.add.noftz.f16, atom.cas.b16 (sm_70) */
    bool bf16_add;    /* atom.add.noftz.bf16 (sm_90) */
} PtxasTarget;

static const char *reg_for(char c, int i) {
    static char buf[8][16];
    static int k;
    char *b = buf[k++ & 7];
    snprintf(b, 16, "%s%d", c == 'h' ? "%h" : c == 'r' ? "%r" : "%rd", i);
    return b;
}

/* Replaces $N by registers of the classes the constraint string names. */
static void instantiate(StrBuf *out, const char *text, const char *cons, bool shared) {
    char cls[8] = {0};
    int n = 0;
    for (const char *c = cons; *c && n < 8; c++) {
        if (*c == '~') break;
        if (*c == 'h' || *c == 'r' || *c == 'l') cls[n++] = *c;
    }
    for (const char *p = text; *p; p++) {
        if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
            int i = *++p - '0';
            bool addr = p[1] == ']';
            sb_puts(out, addr ? (shared ? "%rd7" : "%rd6") : reg_for(cls[i], i));
        } else {
            sb_putc(out, *p);
        }
    }
    sb_putc(out, '\n');
}

static bool combo_ok(const PtxasTarget *t, QdOp op, QdType ty, QdOrder o, QdScope s) {
    if (s == QSCOPE_CLUSTER && !t->cluster) return false;
    if (!t->sem && o != QORD_RELAXED) return false;
    if (op == QOP_ADD && ty == QT_F16 && !t->f16_add) return false;
    if (op == QOP_ADD && ty == QT_BF16 && !t->bf16_add) return false;
    if (op == QOP_CAS && qt_bits(ty) == 16 && !t->f16_add) return false;
    return true;
}

static const QdOp all_ops[] = {QOP_ADD, QOP_MIN, QOP_MAX, QOP_AND, QOP_OR, QOP_XOR, QOP_EXCHANGE,
                               QOP_CAS, QOP_INC, QOP_DEC, QOP_LOAD, QOP_STORE};
static const QdType all_types[] = {QT_I8,  QT_U8,  QT_I16, QT_U16, QT_I32, QT_U32,
                                   QT_I64, QT_U64, QT_F16, QT_BF16, QT_F32, QT_F64};

/* One PTX kernel with every valid combination for t; returns how many instructions. */
static int build_probe(const PtxasTarget *t, StrBuf *ptx) {
    sb_printf(ptx, ".version 8.0\n.target %s\n.address_size 64\n.shared .align 8 .b8 sh[64];\n", t->target);
    sb_puts(ptx, ".visible .entry probe(.param .u64 p)\n{\n.reg .b16 %h<4>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n");
    sb_puts(ptx, "ld.param.u64 %rd6, [p];\ncvta.to.global.u64 %rd6, %rd6;\nmov.u64 %rd7, sh;\n");
    int n = 0;
    for (size_t a = 0; a < ARRAY_LEN(all_ops); a++)
        for (size_t b = 0; b < ARRAY_LEN(all_types); b++)
            for (int sp = 0; sp < QSPACE_COUNT; sp++)
                for (int o = 0; o < QORD_COUNT; o++)
                    for (int s = 0; s < QSCOPE_COUNT; s++)
                        for (int noret = 0; noret < 2; noret++) {
                            QdOp op = all_ops[a];
                            QdType ty = all_types[b];
                            if ((op == QOP_LOAD && o == QORD_RELEASE) || (op == QOP_STORE && o == QORD_ACQUIRE)) continue;
                            if (!combo_ok(t, op, ty, (QdOrder)o, (QdScope)s)) continue;
                            bool sem = t->sem && o != QORD_RELAXED;
                            char *cons = NULL;
                            char *text = spell(op, ty, (QdSpace)sp, (QdOrder)o, (QdScope)s, sem, noret, &cons);
                            if (!text) continue;
                            instantiate(ptx, text, cons, sp == QSPACE_SHARED);
                            free(text), free(cons);
                            n++;
                        }
    StrBuf f;
    sb_init(&f);
    for (int o = QORD_ACQUIRE; o < QORD_COUNT; o++)
        for (int s = 0; s < QSCOPE_COUNT; s++)
            if (t->sem ? (s != QSCOPE_CLUSTER || t->cluster) : true) {
                ptx_spell_fence((QdOrder)o, (QdScope)s, !t->sem, &f);
                sb_putc(&f, '\n');
                n++;
            }
    sb_puts(ptx, f.data);
    sb_free(&f);
    sb_puts(ptx, "ret;\n}\n");
    return n;
}

static void assemble(const PtxasTarget *t, int min_count) {
    if (!tool_available(PTXAS)) {
        printf("ptx_spell: SKIP ptxas acceptance for %s: %s not present\n", t->target, PTXAS);
        return;
    }
    StrBuf ptx;
    sb_init(&ptx);
    int n = build_probe(t, &ptx);
    cr_assert_geq(n, min_count);
    char *dir = make_temp_dir();
    char *in = xasprintf("%s/probe.ptx", dir), *out = xasprintf("%s/probe.cubin", dir);
    cr_assert(write_text(in, ptx.data));
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=%s", t->arch);
    RunResult r = run_argv((const char *[]){PTXAS, arch, in, "-o", out, NULL}, NULL, NULL);
    cr_expect_eq(r.status, 0, "ptxas %s rejected the spelled table:\n%s", t->target, r.err);
    printf("ptx_spell: ptxas accepted %d spelled instructions for .target %s\n", n, t->target);
    run_free(&r);
    remove_tree(dir);
    free(in), free(out), free(dir);
    sb_free(&ptx);
}

Test(ptx_spell, ptxas_accepts_sm60) { assemble(&(PtxasTarget){"sm_60", "sm_75", false, false, false, false}, 100); }
Test(ptx_spell, ptxas_accepts_sm70) { assemble(&(PtxasTarget){"sm_70", "sm_75", true, false, true, false}, 500); }
Test(ptx_spell, ptxas_accepts_sm90) { assemble(&(PtxasTarget){"sm_90", "sm_90", true, true, true, true}, 800); }
