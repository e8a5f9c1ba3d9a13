/* --support-matrix: op x dtype rows, one column per target, regenerated from the database with
 * the same rewrites the lowering engine applies (float bit ops through integers, sub as add).
 * Cells: native / CAS / unsupported, plus what changes the answer (--cap, unused result, scope). */
#include "../capdb/capdb_int.h"
#include "../support/json.h"
#include "lower.h"
#include <stdlib.h>
#include <string.h>

static bool bit_op(QdOp op) { return op == QOP_EXCHANGE || op == QOP_CAS || op == QOP_LOAD || op == QOP_STORE; }

static CapStatus status_at(const CapTarget *t, QdOp op, QdType dt, QdSpace sp, QdScope sc, bool used,
                           const char *const *caps, int ncaps) {
    if (qt_is_float(dt) && bit_op(op)) dt = qt_uint_same_width(dt);
    CapAnswer a = cap_lookup(t, op, dt, sp, sc, used, caps, ncaps);
    if (op == QOP_SUB && a.status != CS_NATIVE &&
        cap_lookup(t, QOP_ADD, dt, sp, sc, used, caps, ncaps).status == CS_NATIVE)
        return CS_NATIVE;
    return a.status;
}

/* The language rejects floats for and/or/xor/cas/inc/dec (design/language.md): no rows for them. */
static bool row_exists(QdOp op, QdType dt) {
    return !qt_is_float(dt) || !(op == QOP_AND || op == QOP_OR || op == QOP_XOR || op == QOP_CAS || op == QOP_INC || op == QOP_DEC);
}

static const char *short_status(CapStatus s) { return s == CS_NATIVE ? "native" : s == CS_CAS ? "CAS" : "unsupported"; }

/* One cell's text: the default answer (device scope, result used, no --cap) and what improves it. */
static char *cell_text(const CapTarget *t, QdOp op, QdType dt, QdSpace sp) {
    StrBuf b;
    sb_init(&b);
    CapStatus base = status_at(t, op, dt, sp, QSCOPE_DEVICE, true, NULL, 0);
    sb_puts(&b, short_status(base));
    CapStatus unused = status_at(t, op, dt, sp, QSCOPE_DEVICE, false, NULL, 0);
    if (unused != base) sb_printf(&b, "; %s if result unused", short_status(unused));
    for (int i = 0; i < t->caps.len; i++) {
        char *plus = xasprintf("+%s", t->caps.items[i].name);
        const char *caps[1] = {plus};
        CapStatus with = status_at(t, op, dt, sp, QSCOPE_DEVICE, true, caps, 1);
        if (with != base) sb_printf(&b, "; %s with %s", short_status(with), plus);
        free(plus);
    }
    if (t->scope_map[QSCOPE_SYSTEM] >= 0) {
        CapStatus sys = status_at(t, op, dt, sp, QSCOPE_SYSTEM, true, NULL, 0);
        if (sys != base) sb_printf(&b, "; %s at system scope", short_status(sys));
    }
    return sb_take(&b);
}

static bool parse_targets(const CapDb *db, const char *csv, const CapTarget ***out, int *n) {
    char *copy = xstrdup(csv), *save = NULL;
    VEC(const CapTarget *) v = {0};
    bool ok = true;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const CapTarget *t = capdb_target(db, tok);
        if (!t) {
            diag_usage("unknown target '%s' in --targets; known targets: %s", tok, capdb_target_names(db));
            ok = false;
        } else vec_push(&v, t);
    }
    free(copy);
    if (!v.len && ok) diag_usage("--targets lists no target"), ok = false;
    *out = v.items, *n = v.len;
    return ok;
}

static void row(FILE *out, bool md, const char *const *cols, int n, int width) {
    for (int i = 0; i < n; i++) {
        if (md) fprintf(out, "| %s ", cols[i]);
        else fprintf(out, "%-*s", i < 2 ? 10 : width, cols[i]);
    }
    fputs(md ? "|\n" : "\n", out);
}

static void table(FILE *out, bool md, const CapTarget **ts, int n, QdSpace sp) {
    fprintf(out, md ? "\n## %s memory\n\n" : "\n%s memory\n", qspace_name(sp));
    const char **cols = xcalloc((size_t)n + 2, sizeof *cols);
    cols[0] = "op", cols[1] = "dtype";
    for (int i = 0; i < n; i++) cols[i + 2] = cap_name(ts[i]);
    row(out, md, cols, n + 2, 28);
    if (md) {
        for (int i = 0; i < n + 2; i++) fputs("|---", out);
        fputs("|\n", out);
    }
    for (int op = 0; op < QOP_COUNT; op++)
        for (int dt = QT_I8; dt < QT_COUNT; dt++) {
            if (!row_exists(op, dt)) continue;
            cols[0] = qop_name(op), cols[1] = qt_name(dt);
            for (int i = 0; i < n; i++) cols[i + 2] = cell_text(ts[i], op, dt, sp);
            row(out, md, cols, n + 2, 28);
            for (int i = 0; i < n; i++) free((char *)cols[i + 2]);
        }
    free(cols);
}

/* SIMT collectives: the subgroup width and, per kind of collective, the family's instruction
 * (its simt.* keys): "native X", "fallback butterfly|shuffles" (expanded from shuffles) or
 * "unsupported" (no simt section). */
static const char *const simt_keys[] = {"simt.shuffle", "simt.vote", "simt.reduce", "simt.scan", "simt.sync", "simt.match"};

static const char *simt_status(const CapTarget *t, const char *key) {
    const char *v = cap_str(t, key);
    if (!v || !cap_str(t, "simt.width")) return "unsupported";
    return !strcmp(v, "butterfly") || !strcmp(v, "shuffles") ? "fallback" : "native";
}

static char *simt_width(const CapTarget *t) {
    const char *w = cap_str(t, "simt.width");
    return !w ? xstrdup("unsupported") : !strcmp(w, "device") ? xstrdup("device; 32 with +subgroup32")
         : cap_str(t, "simt.wave32") ? xasprintf("%ld; 32 with +wave32", cap_int(t, "subgroup_width", 0))
                                     : xasprintf("%ld", cap_int(t, "subgroup_width", 0));
}

static void simt_table(FILE *out, bool md, const CapTarget **ts, int n) {
    const char *const *keys = simt_keys;
    fputs(md ? "\n## SIMT collectives\n\n" : "\nSIMT collectives\n", out);
    const char **cols = xcalloc((size_t)n + 2, sizeof *cols);
    char **owned = xcalloc((size_t)n + 1, sizeof *owned);
    cols[0] = "simt", cols[1] = "-";
    for (int i = 0; i < n; i++) cols[i + 2] = cap_name(ts[i]);
    row(out, md, cols, n + 2, 28);
    if (md) {
        for (int i = 0; i < n + 2; i++) fputs("|---", out);
        fputs("|\n", out);
    }
    cols[0] = "width";
    for (int i = 0; i < n; i++) cols[i + 2] = owned[i] = simt_width(ts[i]);
    row(out, md, cols, n + 2, 28);
    for (int i = 0; i < n; i++) free(owned[i]);
    for (size_t k = 0; k < ARRAY_LEN(simt_keys); k++) {
        cols[0] = keys[k] + 5;
        for (int i = 0; i < n; i++) {
            const char *st = simt_status(ts[i], keys[k]);
            cols[i + 2] = owned[i] = strcmp(st, "unsupported") ? xasprintf("%s %s", st, cap_str(ts[i], keys[k])) : xstrdup(st);
        }
        row(out, md, cols, n + 2, 28);
        for (int i = 0; i < n; i++) free(owned[i]);
    }
    free(owned), free(cols);
}

bool capdb_support_matrix(const CapDb *db, const char *targets_csv, bool markdown, FILE *out) {
    const CapTarget **ts;
    int n;
    if (!parse_targets(db, targets_csv, &ts, &n)) return free(ts), false;
    fprintf(out, markdown ? "# Atomic support matrix (generated by qdc --support-matrix from the capability database)\n"
                          : "Atomic support matrix (from the capability database)\n");
    fprintf(out, markdown ? "\nCells: default answer at device scope with the result used; `;` lists what changes it.\n"
                          : "cells: default at device scope, result used; ';' lists what changes it\n");
    for (int sp = 0; sp < QSPACE_COUNT; sp++) table(out, markdown, ts, n, sp);
    simt_table(out, markdown, ts, n);
    free(ts);
    return true;
}

/* --support-matrix --format=json: {"schema":1,"targets":[...],"rows":[{"space","op","dtype","cells":[...]}],
 * "simt":[{"row":"width","cells":[...]},{"row":"shuffle","cells":[{"status","spelling"}...]}...]}
 * with one cell per target, in --targets order; a SIMT status is native, fallback or unsupported. */
bool capdb_support_matrix_json(const CapDb *db, const char *targets_csv, FILE *out) {
    const CapTarget **ts;
    int n;
    if (!parse_targets(db, targets_csv, &ts, &n)) return free(ts), false;
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"schema\":1,\"targets\":[");
    for (int i = 0; i < n; i++) sb_puts(&b, i ? "," : ""), json_str(&b, cap_name(ts[i]));
    sb_puts(&b, "],\"rows\":[");
    bool first = true;
    for (int sp = 0; sp < QSPACE_COUNT; sp++)
        for (int op = 0; op < QOP_COUNT; op++)
            for (int dt = QT_I8; dt < QT_COUNT; dt++) {
                if (!row_exists(op, dt)) continue;
                sb_printf(&b, "%s\n{\"space\":\"%s\",\"op\":\"%s\",\"dtype\":\"%s\",\"cells\":[", first ? "" : ",",
                          qspace_name(sp), qop_name(op), qt_name(dt));
                for (int i = 0; i < n; i++) {
                    char *c = cell_text(ts[i], op, dt, sp);
                    sb_puts(&b, i ? "," : ""), json_str(&b, c);
                    free(c);
                }
                sb_puts(&b, "]}");
                first = false;
            }
    sb_puts(&b, "\n],\"simt\":[\n{\"row\":\"width\",\"cells\":[");
    for (int i = 0; i < n; i++) {
        char *w = simt_width(ts[i]);
        sb_puts(&b, i ? "," : ""), json_str(&b, w);
        free(w);
    }
    sb_puts(&b, "]}");
    for (size_t k = 0; k < ARRAY_LEN(simt_keys); k++) {
        sb_printf(&b, ",\n{\"row\":\"%s\",\"cells\":[", simt_keys[k] + 5);
        for (int i = 0; i < n; i++) {
            const char *st = simt_status(ts[i], simt_keys[k]);
            sb_printf(&b, "%s{\"status\":\"%s\",\"spelling\":", i ? "," : "", st);
            json_str(&b, strcmp(st, "unsupported") ? cap_str(ts[i], simt_keys[k]) : "");
            sb_puts(&b, "}");
        }
        sb_puts(&b, "]}");
    }
    sb_puts(&b, "\n]}\n");
    fwrite(b.data, 1, b.len, out);
    sb_free(&b), free(ts);
    return true;
}
