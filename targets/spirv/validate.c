/* SPIRV-Tools in-process: every module is validated before it is written; disassembly for
 * --emit=spirv-asm and golden tests. */
#include "spvtools.h"
#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>
#include <string.h>

static spv_context context_for(const char *env) {
    spv_target_env te;
    if (!spvParseTargetEnv(env, &te)) die("unknown SPIR-V environment '%s' in the database", env);
    return spvContextCreate(te);
}

static void take_diag(spv_diagnostic d, StrBuf *err) {
    if (!d) return;
    if (d->isTextSource) sb_printf(err, "line %zu: ", d->position.line + 1);
    else if (d->position.index) sb_printf(err, "word %zu: ", d->position.index);
    sb_puts(err, d->error ? d->error : "unknown error");
    spvDiagnosticDestroy(d);
}

/* A copy of the module without OpName and OpMemberName (debug names only). The validator names
 * every id for its messages, and its name mapper makes a repeated name unique by trying name_0,
 * name_1, ... in turn: every kernel's "args" and parameter names repeat, so a module of 10,000
 * small kernels took 33 s of CPU and 6.6 GB in validation alone (issue 13 item 16). */
static uint32_t *without_names(const uint32_t *words, size_t n, size_t *out_n) {
    uint32_t *w = xmalloc((n ? n : 1) * sizeof *w);
    size_t o = 0, i = 0;
    for (; i < n && i < 5; i++) w[o++] = words[i]; /* the header */
    while (i < n) {
        size_t len = words[i] >> 16;
        uint32_t op = words[i] & 0xffff;
        if (len == 0 || i + len > n) len = n - i; /* malformed: keep the rest for the validator */
        if (op != SpvOpName && op != SpvOpMemberName)
            for (size_t k = 0; k < len; k++) w[o++] = words[i + k];
        i += len;
    }
    *out_n = o;
    return w;
}

/* Validation by pieces (issue 33 item 2). SPIRV-Tools compares every OpEntryPoint with every
 * earlier one (same name and execution model), building both names each time: a module of 10,000
 * kernels spent most of its validation there. A module of more than PIECE_ENTRIES entry points is
 * validated as pieces of at most that many: each piece holds the module's preamble, its entry
 * points and their execution modes, the functions they reach, the types, constants and variables
 * those reach and the decorations of what it holds, in the module's order and with its ids. The
 * last piece also holds every module-scope instruction and every function that no entry point
 * reaches, so each instruction is validated at least once. What only the whole module shows is
 * checked here: ids defined once, entry points unique by name and model, the validator's limit
 * on module-scope variables. A module the splitting does not model (decoration groups, a failed
 * parse, a check above) is validated whole, and so is one whose piece fails, for the message. */
enum { PIECE_ENTRIES = 64, MAX_GLOBAL_VARIABLES = 65535 };
enum { SEC_PRE, SEC_ENTRY, SEC_MODE, SEC_DEBUG, SEC_ANNOT, SEC_GLOBAL, SEC_FUNC };

typedef struct SpvInst {
    uint32_t off, ids; /* word offset; first id operand in SpvModule.ids */
    uint32_t result;
    uint16_t n, nids, op;
    uint8_t sec;
} SpvInst;

typedef struct SpvModule {
    const uint32_t *words;
    VEC(SpvInst) insts;
    VEC(uint32_t) ids;
    bool in_function, unsupported;
} SpvModule;

static uint8_t section_of(SpvModule *m, uint32_t op) {
    switch (op) {
    case SpvOpCapability: case SpvOpExtension: case SpvOpExtInstImport: case SpvOpMemoryModel:
        return SEC_PRE;
    case SpvOpEntryPoint: return SEC_ENTRY;
    case SpvOpExecutionMode: case SpvOpExecutionModeId: return SEC_MODE;
    case SpvOpString: case SpvOpSourceExtension: case SpvOpSource: case SpvOpSourceContinued:
    case SpvOpModuleProcessed:
        return SEC_DEBUG;
    case SpvOpName: case SpvOpMemberName: case SpvOpDecorate: case SpvOpMemberDecorate:
    case SpvOpDecorateId: case SpvOpDecorateString: case SpvOpMemberDecorateString:
        return SEC_ANNOT;
    case SpvOpDecorationGroup: case SpvOpGroupDecorate: case SpvOpGroupMemberDecorate:
        m->unsupported = true;
        return SEC_ANNOT;
    default: return m->in_function ? SEC_FUNC : SEC_GLOBAL;
    }
}

static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *pi) {
    SpvModule *m = user;
    if (pi->opcode == SpvOpFunction) m->in_function = true;
    SpvInst in = {(uint32_t)(pi->words - m->words), (uint32_t)m->ids.len, pi->result_id,
                  pi->num_words, 0, pi->opcode, section_of(m, pi->opcode)};
    if (pi->opcode == SpvOpFunctionEnd) m->in_function = false;
    for (int k = 0; k < pi->num_operands; k++) {
        const spv_parsed_operand_t *o = &pi->operands[k];
        if (o->type == SPV_OPERAND_TYPE_ID || o->type == SPV_OPERAND_TYPE_TYPE_ID ||
            o->type == SPV_OPERAND_TYPE_SCOPE_ID || o->type == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID ||
            o->type == SPV_OPERAND_TYPE_OPTIONAL_ID) {
            vec_push(&m->ids, pi->words[o->offset]);
            in.nids++;
        }
    }
    vec_push(&m->insts, in);
    return SPV_SUCCESS;
}

/* The module's indexes, by id (bound entries) and by instruction. */
typedef struct Pieces {
    SpvModule m;
    uint32_t bound;
    int *def;      /* id -> module-scope instruction or OpFunction defining it, -1 */
    int *by_target, *modes_of, *next_of; /* an id's annotations, its execution modes: lists */
    bool *needed;  /* this piece's ids */
    bool *reached; /* OpFunction instructions some piece holds */
    VEC(int) always, entries, work, touched, kept;
} Pieces;

static uint32_t id_at(const Pieces *p, const SpvInst *in, int k) { return p->m.ids.items[in->ids + k]; }

static void need(Pieces *p, uint32_t id) {
    if (id == 0 || id >= p->bound || p->needed[id]) return;
    p->needed[id] = true;
    vec_push(&p->touched, (int)id);
    vec_push(&p->work, (int)id);
}

static void need_operands(Pieces *p, int i) {
    const SpvInst *in = &p->m.insts.items[i];
    for (int k = 0; k < in->nids; k++) need(p, id_at(p, in, k));
}

/* Everything the ids on the work list reach, into p->kept. */
static void close_over(Pieces *p) {
    while (p->work.len) {
        uint32_t id = (uint32_t)p->work.items[--p->work.len];
        int d = p->def[id];
        if (d >= 0 && p->m.insts.items[d].op == SpvOpFunction) {
            p->reached[d] = true;
            for (int i = d; i < p->m.insts.len; i++) {
                vec_push(&p->kept, i);
                need_operands(p, i);
                if (i != d) need(p, p->m.insts.items[i].result);
                if (p->m.insts.items[i].op == SpvOpFunctionEnd) break;
            }
        } else if (d >= 0) {
            vec_push(&p->kept, d);
            need_operands(p, d);
        }
        for (int a = p->by_target[id]; a >= 0; a = p->next_of[a]) {
            vec_push(&p->kept, a);
            need_operands(p, a);
        }
    }
}

static int by_index(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* The piece of entries [lo, hi) (the last piece: everything at module scope too), validated. */
static spv_result_t validate_piece(Pieces *p, spv_context ctx, int lo, int hi, bool last,
                                   spv_diagnostic *d) {
    p->kept.len = 0;
    for (int k = 0; k < p->always.len; k++) vec_push(&p->kept, p->always.items[k]);
    for (int e = lo; e < hi; e++) {
        const SpvInst *in = &p->m.insts.items[p->entries.items[e]];
        vec_push(&p->kept, p->entries.items[e]);
        need_operands(p, p->entries.items[e]);
        for (int a = p->modes_of[id_at(p, in, 0)]; a >= 0; a = p->next_of[a]) {
            vec_push(&p->kept, a);
            need_operands(p, a);
        }
    }
    close_over(p);
    if (last) {
        for (int i = 0; i < p->m.insts.len; i++) {
            const SpvInst *in = &p->m.insts.items[i];
            if (in->sec == SEC_GLOBAL && !in->result && in->op != SpvOpTypeForwardPointer)
                vec_push(&p->kept, i); /* OpLine and the like; a forward pointer comes with its type */
            else if ((in->sec == SEC_GLOBAL || in->op == SpvOpFunction) && !p->reached[i]) need(p, in->result);
        }
        close_over(p);
    }
    qsort(p->kept.items, (size_t)p->kept.len, sizeof *p->kept.items, by_index);
    size_t n = 5;
    for (int k = 0; k < p->kept.len; k++) n += p->m.insts.items[p->kept.items[k]].n;
    uint32_t *w = xmalloc(n * sizeof *w);
    memcpy(w, p->m.words, 5 * sizeof *w);
    size_t o = 5;
    for (int k = 0; k < p->kept.len; k++) {
        const SpvInst *in = &p->m.insts.items[p->kept.items[k]];
        memcpy(w + o, p->m.words + in->off, in->n * sizeof *w);
        o += in->n;
    }
    spv_const_binary_t bin = {w, n};
    spv_result_t r = spvValidate(ctx, &bin, d);
    free(w);
    for (int k = 0; k < p->touched.len; k++) p->needed[p->touched.items[k]] = false;
    p->touched.len = 0;
    return r;
}

static uint64_t entry_key(const Pieces *p, const SpvInst *in) {
    uint64_t h = 1469598103934665603u ^ p->m.words[in->off + 1]; /* FNV-1a of model and name */
    const char *s = (const char *)(p->m.words + in->off + 3);
    size_t max = (size_t)(in->n - 3) * 4;
    for (size_t k = 0; k < max && s[k]; k++) h = (h ^ (unsigned char)s[k]) * 1099511628211u;
    return h;
}

static bool same_entry(const Pieces *p, const SpvInst *a, const SpvInst *b) {
    return p->m.words[a->off + 1] == p->m.words[b->off + 1] &&
           strncmp((const char *)(p->m.words + a->off + 3), (const char *)(p->m.words + b->off + 3),
                   (size_t)(a->n - 3) * 4) == 0;
}

/* True when no two entry points share a name and an execution model. */
static bool entries_unique(const Pieces *p) {
    size_t slots = 16;
    while (slots < 2 * (size_t)p->entries.len) slots *= 2;
    int *tab = xmalloc(slots * sizeof *tab);
    for (size_t k = 0; k < slots; k++) tab[k] = -1;
    bool ok = true;
    for (int e = 0; e < p->entries.len && ok; e++) {
        const SpvInst *in = &p->m.insts.items[p->entries.items[e]];
        size_t s = entry_key(p, in) & (slots - 1);
        for (; tab[s] >= 0 && ok; s = (s + 1) & (slots - 1))
            ok = !same_entry(p, &p->m.insts.items[p->entries.items[tab[s]]], in);
        tab[s] = e;
    }
    free(tab);
    return ok;
}

/* Indexes the parsed module; false where it must be validated whole. */
static bool index_module(Pieces *p) {
    p->bound = p->m.words[3];
    p->def = xmalloc((size_t)p->bound * sizeof *p->def);
    p->by_target = xmalloc((size_t)p->bound * sizeof *p->by_target);
    p->modes_of = xmalloc((size_t)p->bound * sizeof *p->modes_of);
    p->next_of = xmalloc((size_t)p->m.insts.len * sizeof *p->next_of);
    p->needed = xcalloc(p->bound, sizeof *p->needed);
    p->reached = xcalloc((size_t)p->m.insts.len, sizeof *p->reached);
    bool *defined = xcalloc(p->bound, sizeof *defined);
    for (uint32_t id = 0; id < p->bound; id++) p->def[id] = p->by_target[id] = p->modes_of[id] = -1;
    int globals = 0;
    bool ok = !p->m.unsupported;
    for (int i = p->m.insts.len - 1; i >= 0 && ok; i--) { /* lists in module order */
        const SpvInst *in = &p->m.insts.items[i];
        p->next_of[i] = -1;
        if (in->sec == SEC_ENTRY && (in->n < 4 || in->nids < 1)) ok = false;
        else if (in->result >= p->bound || (in->result && defined[in->result])) ok = false;
        else if (in->result) defined[in->result] = true;
        if (!ok) break;
        if (in->sec == SEC_ENTRY) vec_push(&p->entries, i);
        else if (in->sec == SEC_PRE || in->sec == SEC_DEBUG) vec_push(&p->always, i);
        else if (in->sec == SEC_MODE || in->sec == SEC_ANNOT || in->op == SpvOpTypeForwardPointer) {
            uint32_t t = in->nids ? id_at(p, in, 0) : 0;
            int *head = in->sec == SEC_MODE ? p->modes_of : p->by_target;
            if (t == 0 || t >= p->bound) ok = false;
            else p->next_of[i] = head[t], head[t] = i;
        } else if (in->result && (in->sec == SEC_GLOBAL || in->op == SpvOpFunction))
            p->def[in->result] = i;
        globals += in->sec == SEC_GLOBAL && in->op == SpvOpVariable;
    }
    free(defined);
    for (int a = 0, b = p->entries.len - 1; a < b; a++, b--) { /* module order */
        int t = p->entries.items[a];
        p->entries.items[a] = p->entries.items[b], p->entries.items[b] = t;
    }
    return ok && globals <= MAX_GLOBAL_VARIABLES && entries_unique(p);
}

static void pieces_free(Pieces *p) {
    free(p->def), free(p->by_target), free(p->modes_of), free(p->next_of), free(p->needed), free(p->reached);
    vec_free(&p->m.insts), vec_free(&p->m.ids);
    vec_free(&p->always), vec_free(&p->entries), vec_free(&p->work), vec_free(&p->touched);
    vec_free(&p->kept);
}

/* False where the module is validated whole; else *r is the pieces' result. */
static bool validate_by_pieces(spv_context ctx, const uint32_t *w, size_t n, spv_result_t *r,
                               spv_diagnostic *d) {
    size_t entries = 0; /* a module of few entry points takes the whole path at once */
    for (size_t i = 5; i < n && entries <= PIECE_ENTRIES; i += w[i] >> 16 ? w[i] >> 16 : n)
        entries += (w[i] & 0xffff) == SpvOpEntryPoint;
    if (entries <= PIECE_ENTRIES) return false;
    Pieces p = {.m = {.words = w}};
    bool split = spvBinaryParse(ctx, &p.m, w, n, NULL, on_inst, NULL) == SPV_SUCCESS &&
                 index_module(&p) && p.entries.len > PIECE_ENTRIES;
    if (split) {
        *r = SPV_SUCCESS;
        for (int lo = PIECE_ENTRIES; lo < p.entries.len && *r == SPV_SUCCESS; lo += PIECE_ENTRIES) {
            int hi = lo + PIECE_ENTRIES < p.entries.len ? lo + PIECE_ENTRIES : p.entries.len;
            *r = validate_piece(&p, ctx, lo, hi, false, d);
        }
        if (*r == SPV_SUCCESS) *r = validate_piece(&p, ctx, 0, PIECE_ENTRIES, true, d);
    }
    pieces_free(&p);
    return split;
}

bool spv_validate(const uint32_t *words, size_t n, const char *env, StrBuf *err) {
    spv_context ctx = context_for(env);
    size_t vn;
    uint32_t *vw = without_names(words, n, &vn);
    spv_const_binary_t bin = {vw, vn};
    spv_diagnostic d = NULL;
    spv_result_t r = SPV_SUCCESS;
    bool split = validate_by_pieces(ctx, vw, vn, &r, &d);
    if (!split || r != SPV_SUCCESS) { /* whole: not split, or a piece failed (the whole's message) */
        spv_diagnostic piece = d;
        d = NULL;
        spv_result_t whole = spvValidate(ctx, &bin, &d);
        if (whole == SPV_SUCCESS && split) { /* only a piece fails: its message */
            if (d) spvDiagnosticDestroy(d);
            d = piece;
        } else {
            if (piece) spvDiagnosticDestroy(piece);
            r = whole;
        }
    }
    free(vw);
    if (r != SPV_SUCCESS) take_diag(d, err);
    else if (d) spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    return r == SPV_SUCCESS;
}

bool spv_disassemble(const uint32_t *words, size_t n, const char *env, StrBuf *out, StrBuf *err) {
    spv_context ctx = context_for(env);
    spv_text text = NULL;
    spv_diagnostic d = NULL;
    uint32_t opts = SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT;
    spv_result_t r = spvBinaryToText(ctx, words, n, opts, &text, &d);
    if (r == SPV_SUCCESS) sb_append(out, text->str, text->length);
    else take_diag(d, err);
    if (d && r == SPV_SUCCESS) spvDiagnosticDestroy(d);
    spvTextDestroy(text);
    spvContextDestroy(ctx);
    return r == SPV_SUCCESS;
}
