/* Capability database queries: families by name or alias, per-family facts for targets,
 * cell lookup with conditions (--cap, scope, result use), --list-targets and --print-caps. */
#include "capdb_int.h"
#include "../ir/ir.h"
#include "../support/json.h"
#include <stdlib.h>
#include <string.h>

int capdb_ntargets(const CapDb *db) {
    capdb_load_all(db);
    return db->targets.len;
}
const CapTarget *capdb_target_at(const CapDb *db, int i) { return db->targets.items[i]; }

/* A family a listing shows: loaded and selectable. */
static bool listed(const CapTarget *t) { return t->state == 2 && !t->abstract; }

const char *capdb_target_names(const CapDb *db) {
    capdb_load_all(db);
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < db->targets.len; i++)
        if (listed(db->targets.items[i])) sb_printf(&b, "%s%s", b.len ? ", " : "", db->targets.items[i]->name);
    free(((CapDb *)db)->names_csv);
    return ((CapDb *)db)->names_csv = sb_take(&b);
}

void capdb_list_targets(const CapDb *db, FILE *out) {
    capdb_load_all(db);
    for (int i = 0; i < db->targets.len; i++) {
        const CapTarget *t = db->targets.items[i];
        if (!listed(t)) continue;
        StrBuf al;
        sb_init(&al);
        for (int a = 0; a < t->aliases.len; a++) sb_printf(&al, "%s%s", a ? "," : "", t->aliases.items[a]);
        fprintf(out, "%-10s %-7s %-8s", t->name, cap_backend(t), al.len ? al.data : "-");
        sb_free(&al);
        const char *d = t->facts[CAPK_DESCRIPTION].value;
        if (d) fputs("  ", out), fput_printable(d, out);
        fputc('\n', out);
    }
}

/* --list-targets --format=json: one document, families in listing order. */
void capdb_list_targets_json(const CapDb *db, FILE *out) {
    capdb_load_all(db);
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"schema\":1,\"targets\":[");
    bool first = true;
    for (int i = 0; i < db->targets.len; i++) {
        const CapTarget *t = db->targets.items[i];
        if (!listed(t)) continue;
        sb_puts(&b, first ? "\n{\"name\":" : ",\n{\"name\":"), json_str(&b, t->name);
        sb_puts(&b, ",\"backend\":"), json_str(&b, cap_backend(t));
        sb_puts(&b, ",\"aliases\":[");
        for (int a = 0; a < t->aliases.len; a++) sb_puts(&b, a ? "," : ""), json_str(&b, t->aliases.items[a]);
        const char *d = t->facts[CAPK_DESCRIPTION].value;
        sb_puts(&b, "],\"description\":"), json_str(&b, d ? d : "");
        sb_puts(&b, ",\"file\":"), json_str(&b, t->disp);
        sb_puts(&b, "}");
        first = false;
    }
    sb_puts(&b, "\n]}\n");
    fwrite(b.data, 1, b.len, out);
    sb_free(&b);
}

/* Up to max family names and aliases (for "did you mean"); returns how many. */
int capdb_names(const CapDb *db, const char **names, int max) {
    capdb_load_all(db);
    int n = 0;
    for (int i = 0; i < db->targets.len; i++) {
        const CapTarget *t = db->targets.items[i];
        if (!listed(t)) continue;
        if (n < max) names[n++] = t->name;
        for (int a = 0; a < t->aliases.len && n < max; a++) names[n++] = t->aliases.items[a];
    }
    return n;
}

int capdb_target_files(const CapTarget *t, const char ***paths_out) {
    *paths_out = (const char **)t->files.items;
    return t->files.len;
}

const char *cap_name(const CapTarget *t) { return t->name; }
bool cap_shipped(const CapTarget *t) { return !t->user; }
const char *cap_backend(const CapTarget *t) { return t->facts[CAPK_BACKEND].value; }

Span cap_where(const CapTarget *t, const char *key) {
    int k = capk_find(key);
    const CapOrigin *at = k >= 0 ? &t->facts[k].at : NULL;
    return cap_where_line(t, at ? at->file : NULL, at ? at->line : 0);
}

Span cap_where_line(const CapTarget *t, const char *file, int at_line) {
    for (int i = 0; file && i < t->db->targets.len; i++) { /* the family's own files are loaded */
        const CapTarget *u = t->db->targets.items[i];
        if (!u->src || strcmp(u->disp, file)) continue;
        const char *p = u->src->text, *end = p + u->src->len;
        for (int line = 1; line < at_line && p < end; p++)
            if (*p == '\n') line++;
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        return span_make(u->src, (uint32_t)(p - u->src->text), (uint32_t)((nl ? nl : end) - p));
    }
    return span_make(t->src, 0, 0);
}

const char *cap_str(const CapTarget *t, const char *key) {
    int k = capk_find(key);
    return k >= 0 ? t->facts[k].value : NULL;
}

long cap_int(const CapTarget *t, const char *key, long dflt) {
    int k = capk_find(key);
    if (k < 0) {
        char dotted[96];
        snprintf(dotted, sizeof dotted, "limits.%s", key);
        k = capk_find(dotted);
    }
    if (k < 0 || !t->facts[k].value) return dflt;
    return t->facts[k].num;
}

const char *cap_status_name(CapStatus s) {
    return s == CS_NATIVE ? "native" : s == CS_CAS ? "cas" : "unsupported";
}

/* Whether capability `cap` is asserted in caps ("+name" / "-name"; the last one wins). */
bool cap_has(const CapTarget *t, const char *cap, const char *const *caps, int ncaps) {
    (void)t;
    bool on = false;
    for (int i = 0; i < ncaps; i++)
        if (!strcmp(caps[i] + 1, cap)) on = caps[i][0] == '+';
    return on;
}

const CapCell *cap_missing_cell(const CapTarget *t) { return t->missing; }

const CapCell *cap_vector_cell(const CapTarget *t, QdOp op, QdType dt, int width) {
    int w = width == 2 ? 0 : width == 4 ? 1 : width == 8 ? 2 : -1;
    if (w < 0 || op < 0 || op >= QOP_COUNT || dt < 0 || dt >= QT_COUNT) return NULL;
    return t->vcells[op][dt][w];
}

static bool wave32(const CapTarget *t, const char *const *caps, int ncaps) {
    return cap_str(t, "simt.wave32") && cap_has(t, "wave32", caps, ncaps);
}

long cap_subgroup_width(const CapTarget *t, const char *const *caps, int ncaps) {
    return wave32(t, caps, ncaps) ? 32 : cap_int(t, "subgroup_width", 0);
}

const char *cap_llvm_features(const CapTarget *t, const char *const *caps, int ncaps) {
    return wave32(t, caps, ncaps) ? cap_str(t, "simt.wave32") : cap_str(t, "llvm.features");
}

/* Follows `else` until a cell's conditions hold. */
CapAnswer cap_resolve_cell(const CapTarget *t, const CapCell *c, QdScope scope, bool result_used,
                           const char *const *caps, int ncaps) {
    CapAnswer a = {0};
    if (!c) c = cap_missing_cell(t);
    for (;;) {
        const char *missing = NULL;
        for (int i = 0; i < c->nwhen && !missing; i++)
            if (!cap_has(t, c->when[i], caps, ncaps)) missing = c->when[i];
        bool holds = !missing && !(c->unused_only && result_used) && !(c->max_scope >= 0 && (int)scope > c->max_scope);
        if (holds) {
            for (int i = 0; i < c->nwhen && a.ncaps_used < 8; i++) a.caps_used[a.ncaps_used++] = c->when[i];
            a.cell = c, a.status = c->status;
            return a;
        }
        if (missing && !a.needs_cap) a.needs_cap = missing;
        if (!c->els) {
            /* nothing below: the deciding cell is this conditional one, unsupported */
            a.cell = c, a.status = CS_UNSUPPORTED;
            return a;
        }
        c = c->els;
    }
}

CapAnswer cap_lookup(const CapTarget *t, QdOp op, QdType dt, QdSpace sp, QdScope scope, bool result_used,
                     const char *const *caps, int ncaps) {
    if ((unsigned)op >= QOP_COUNT || (unsigned)dt >= QT_COUNT || (unsigned)sp >= QSPACE_COUNT)
        die("cap_lookup(%d, %d, %d)", op, dt, sp);
    return cap_resolve_cell(t, t->cells[op][dt][sp], scope, result_used, caps, ncaps);
}

/* ---- --print-caps ---- */
static void print_cell_text(const CapCell *c, FILE *out) {
    if (!c) {
        fputs("unsupported", out);
        return;
    }
    fputs(cap_status_name(c->status), out);
    for (int i = 0; i < c->nwhen; i++) fprintf(out, "%s+%s", i ? "," : " if ", c->when[i]);
    if (c->unused_only) fputs(" if result unused", out);
    if (c->max_scope >= 0) fprintf(out, " if scope<=%s", qscope_name(c->max_scope));
    if (c->spelling) fprintf(out, " [%s]", c->spelling);
    if (c->flags)
        for (unsigned b = 1; b <= LOWF_VOLATILE_DECORATION; b <<= 1)
            if (c->flags & b) fprintf(out, " {%s}", lowf_name(b));
    if (c->els) {
        fputs(" else ", out);
        print_cell_text(c->els, out);
    }
}

static void print_cell_json(const CapCell *c, StrBuf *b) {
    if (!c) {
        sb_puts(b, "{\"status\":\"unsupported\"}");
        return;
    }
    sb_printf(b, "{\"status\":\"%s\"", cap_status_name(c->status));
    if (c->nwhen) {
        sb_puts(b, ",\"when\":[");
        for (int i = 0; i < c->nwhen; i++) sb_puts(b, i ? "," : ""), json_str(b, c->when[i]);
        sb_putc(b, ']');
    }
    if (c->unused_only) sb_puts(b, ",\"unused\":true");
    if (c->max_scope >= 0) sb_printf(b, ",\"max_scope\":\"%s\"", qscope_name(c->max_scope));
    if (c->spelling) sb_puts(b, ",\"spelling\":"), json_str(b, c->spelling);
    if (c->flags) {
        sb_puts(b, ",\"flags\":[");
        bool first = true;
        for (unsigned f = 1; f <= LOWF_VOLATILE_DECORATION; f <<= 1)
            if (c->flags & f) sb_printf(b, "%s\"%s\"", first ? "" : ",", lowf_name(f)), first = false;
        sb_putc(b, ']');
    }
    sb_puts(b, ",\"source\":"), json_strf(b, "%s:%d", c->at.file, c->at.line);
    if (c->els) sb_puts(b, ",\"else\":"), print_cell_json(c->els, b);
    sb_putc(b, '}');
}

static void orders_text(const CapTarget *t, FILE *out) {
    static const char *const kinds[ORDK_COUNT] = {"rmw", "load", "store", "fence", "noret"};
    for (int k = 0; k < ORDK_COUNT; k++) {
        fprintf(out, "orders.%s:", kinds[k]);
        for (int o = 0; o < QORD_COUNT; o++)
            if (t->orders[k] & (1u << o)) fprintf(out, " %s", qord_name(o));
        fputc('\n', out);
    }
    fputs("scopes:", out);
    for (int s = 0; s < QSCOPE_COUNT; s++)
        if (t->scope_map[s] >= 0)
            fprintf(out, " %s%s%s", qscope_name(s), t->scope_map[s] != s ? "->" : "",
                    t->scope_map[s] != s ? qscope_name(t->scope_map[s]) : "");
    fputs("\ncaps:", out);
    for (int i = 0; i < t->caps.len; i++) fprintf(out, " %s", t->caps.items[i].name);
    fputc('\n', out);
}

static void print_text(const CapTarget *t, FILE *out) {
    fprintf(out, "target: %s\nfiles:", t->name);
    for (int i = 0; i < t->files.len; i++) fprintf(out, " %s", t->files.items[i]);
    fputc('\n', out);
    for (int k = 0; k < CAPK_COUNT; k++)
        if (t->facts[k].value) fprintf(out, "%s: ", capk_names[k]), fput_printable(t->facts[k].value, out), fputc('\n', out);
    orders_text(t, out);
    fputs("volatile: ", out), print_cell_text(t->volatile_cell, out), fputc('\n', out);
    fputs("fence: ", out), print_cell_text(t->fence_cell, out), fputc('\n', out);
    for (int op = 0; op < QOP_COUNT; op++)
        for (int dt = QT_I8; dt < QT_COUNT; dt++)
            for (int sp = 0; sp < QSPACE_COUNT; sp++) {
                fprintf(out, "%-8s %-4s %-6s ", qop_name(op), qt_name(dt), qspace_name(sp));
                const CapCell *c = t->cells[op][dt][sp];
                bool bits = qt_is_float(dt) && (op == QOP_EXCHANGE || op == QOP_CAS || op == QOP_LOAD || op == QOP_STORE);
                if (bits) fprintf(out, "as %s: ", qt_name(qt_uint_same_width(dt))), c = t->cells[op][qt_uint_same_width(dt)][sp];
                print_cell_text(c, out);
                fputc('\n', out);
            }
    for (int op = 0; op < QOP_COUNT; op++) /* vector_atomics: only the cells the family sets */
        for (int dt = QT_I8; dt < QT_COUNT; dt++)
            for (int w = 0; w < 3; w++)
                if (t->vcells[op][dt][w]) {
                    fprintf(out, "%-8s %-4s global.v%d ", qop_name(op), qt_name(dt), 2 << w);
                    print_cell_text(t->vcells[op][dt][w], out);
                    fputc('\n', out);
                }
}

static void print_json(const CapTarget *t, FILE *out) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"schema\":1,\"target\":"), json_str(&b, t->name);
    sb_puts(&b, ",\"files\":[");
    for (int i = 0; i < t->files.len; i++) sb_puts(&b, i ? "," : ""), json_str(&b, t->files.items[i]);
    sb_puts(&b, "],\"facts\":{");
    bool first = true;
    for (int k = 0; k < CAPK_COUNT; k++)
        if (t->facts[k].value) {
            sb_puts(&b, first ? "" : ","), json_str(&b, capk_names[k]), sb_putc(&b, ':');
            if (capk_kinds[k] == CK_INT) sb_printf(&b, "%ld", t->facts[k].num);
            else json_str(&b, t->facts[k].value);
            first = false;
        }
    sb_puts(&b, "},\"scopes\":{");
    first = true;
    for (int s = 0; s < QSCOPE_COUNT; s++)
        if (t->scope_map[s] >= 0)
            sb_printf(&b, "%s\"%s\":\"%s\"", first ? "" : ",", qscope_name(s), qscope_name(t->scope_map[s])), first = false;
    sb_puts(&b, "},\"orders\":{");
    static const char *const kinds[ORDK_COUNT] = {"rmw", "load", "store", "fence", "noret"};
    for (int k = 0; k < ORDK_COUNT; k++) {
        sb_printf(&b, "%s\"%s\":[", k ? "," : "", kinds[k]);
        first = true;
        for (int o = 0; o < QORD_COUNT; o++)
            if (t->orders[k] & (1u << o)) sb_printf(&b, "%s\"%s\"", first ? "" : ",", qord_name(o)), first = false;
        sb_putc(&b, ']');
    }
    sb_puts(&b, "},\"caps\":[");
    for (int i = 0; i < t->caps.len; i++) sb_puts(&b, i ? "," : ""), json_str(&b, t->caps.items[i].name);
    sb_puts(&b, "],\"volatile\":"), print_cell_json(t->volatile_cell, &b);
    sb_puts(&b, ",\"fence\":"), print_cell_json(t->fence_cell, &b);
    sb_puts(&b, ",\"ops\":[");
    first = true;
    for (int op = 0; op < QOP_COUNT; op++)
        for (int dt = QT_I8; dt < QT_COUNT; dt++)
            for (int sp = 0; sp < QSPACE_COUNT; sp++) {
                sb_printf(&b, "%s{\"op\":\"%s\",\"dtype\":\"%s\",\"space\":\"%s\",\"cell\":", first ? "" : ",",
                          qop_name(op), qt_name(dt), qspace_name(sp));
                bool bits = qt_is_float(dt) && (op == QOP_EXCHANGE || op == QOP_CAS || op == QOP_LOAD || op == QOP_STORE);
                print_cell_json(t->cells[op][bits ? qt_uint_same_width(dt) : (QdType)dt][sp], &b);
                sb_puts(&b, bits ? ",\"via_int\":true}" : "}");
                first = false;
            }
    sb_puts(&b, "],\"vector_ops\":[");
    first = true;
    for (int op = 0; op < QOP_COUNT; op++)
        for (int dt = QT_I8; dt < QT_COUNT; dt++)
            for (int w = 0; w < 3; w++)
                if (t->vcells[op][dt][w]) {
                    sb_printf(&b, "%s{\"op\":\"%s\",\"dtype\":\"%s\",\"width\":%d,\"cell\":", first ? "" : ",",
                              qop_name(op), qt_name(dt), 2 << w);
                    print_cell_json(t->vcells[op][dt][w], &b);
                    sb_putc(&b, '}');
                    first = false;
                }
    sb_puts(&b, "]}\n");
    fputs(b.data, out);
    sb_free(&b);
}

void capdb_print_target(const CapTarget *t, bool json, FILE *out) {
    if (json) print_json(t, out);
    else print_text(t, out);
}
