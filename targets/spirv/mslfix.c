/* The MSL completion step (design: qdc-msl(7)). SPIRV-Cross 2021 stays the translator; what it
 * cannot write for MSL 3.2, qdc writes into its output, only at places qdc itself planted:
 *   1. the empty marker functions qdc_fence_{threadgroup,device}() get their fence statement;
 *   2. kernel parameters [[buffer(n)]] shared across threadgroups get the coherent qualifier;
 *   3. a SharedArray that qd.volatile_load reads is declared `volatile threadgroup` (SPIRV-Cross
 *      2021 drops the Volatile memory access of a threadgroup load: the spin could be hoisted);
 *   4. the pieces of several tasks are merged item by item (a helper both runs wrote is kept
 *      once; two different items of one name are an internal error, never silent output).
 * A marker that cannot be found is an internal error: the output is never left half done. */
#include "spvtools.h"
#include <ctype.h>
#include <string.h>

static const struct { const char *name; bool device; } markers[] = {
    {"qdc_fence_threadgroup", false},
    {"qdc_fence_device", true},
};

/* "void NAME()\n{\n}" -> "void NAME()\n{\n    FENCE(FLAGS, ORDER, SCOPE);\n}" */
static char *fill_markers(const char *msl, const MslFacts *f) {
    char *s = xstrdup(msl);
    for (size_t i = 0; i < ARRAY_LEN(markers); i++) {
        char *def = xasprintf("void %s()\n{\n}\n", markers[i].name), *call = xasprintf("%s();", markers[i].name);
        char *at = strstr(s, def);
        if (!at && strstr(s, call)) die("MSL completion: marker %s is called but its definition was not found", markers[i].name);
        if (at) {
            if (!f->fence) die("MSL completion: a fence reached a target whose MSL has none (msl.fence unset)");
            StrBuf b;
            sb_init(&b);
            sb_append(&b, s, (size_t)(at - s));
            sb_printf(&b, "void %s()\n{\n    %s(%s, %s, %s);\n}\n", markers[i].name, f->fence, f->fence_flags,
                      f->fence_order, markers[i].device ? f->scope_device : f->scope_block);
            sb_puts(&b, at + strlen(def));
            free(s);
            s = b.data;
        }
        free(def), free(call);
    }
    return s;
}

/* ---- 64-bit helpers: void qdc_{u64,split64}_<op>_<n>(int idx, T v, <buffer>) { LHS = RHS; } ---- */
static void helper_body(StrBuf *b, const char *kind, const char *op, const char *lhs, const char *rhs) {
    if (!strcmp(kind, "u64")) { /* Apple9: one 64-bit atomic, no result */
        sb_printf(b, "    atomic_%s_explicit((volatile device atomic_ulong*)&%s, %s, memory_order_relaxed);\n", op, lhs, rhs);
        return;
    }
    /* split64: the words of a little-endian 64-bit value, each updated by one 32-bit atomic */
    sb_printf(b, "    volatile device atomic_uint* qdc_w = (volatile device atomic_uint*)&%s;\n", lhs);
    sb_printf(b, "    ulong qdc_x = ulong(%s);\n", rhs);
    if (!strcmp(op, "add")) {
        sb_puts(b, "    uint qdc_lo = atomic_fetch_add_explicit(&qdc_w[0], uint(qdc_x), memory_order_relaxed);\n");
        sb_puts(b, "    uint qdc_hi = uint(qdc_x >> 32) + (qdc_lo + uint(qdc_x) < qdc_lo ? 1u : 0u);\n");
        sb_puts(b, "    if (qdc_hi != 0u)\n    {\n        atomic_fetch_add_explicit(&qdc_w[1], qdc_hi, memory_order_relaxed);\n    }\n");
        return;
    }
    if (strcmp(op, "and") && strcmp(op, "or") && strcmp(op, "xor")) die("MSL completion: no 64-bit split for '%s'", op);
    sb_printf(b, "    atomic_fetch_%s_explicit(&qdc_w[0], uint(qdc_x), memory_order_relaxed);\n", op);
    sb_printf(b, "    atomic_fetch_%s_explicit(&qdc_w[1], uint(qdc_x >> 32), memory_order_relaxed);\n", op);
}

/* Rewrites the body "{\n    LHS = RHS;\n}" of every helper; anything else there is a bug. */
static char *fill_helpers(const char *msl) {
    StrBuf b;
    sb_init(&b);
    const char *p = msl;
    for (const char *at; (at = strstr(p, "\nvoid qdc_")) && (!strncmp(at + 10, "u64_", 4) || !strncmp(at + 10, "split64_", 8));) {
        const char *name = at + 6, *paren = strchr(name, '(');
        const char *open = paren ? strstr(paren, ")\n{\n    ") : NULL;
        const char *stmt = open ? open + 8 : NULL, *eq = stmt ? strstr(stmt, " = ") : NULL;
        const char *semi = eq ? strstr(eq, ";\n}\n") : NULL;
        if (!semi || strchr(stmt, '\n') < semi) die("MSL completion: helper at offset %ld is not a single store", (long)(at - msl));
        char *nm = xstrndup(name, (size_t)(paren - name)), *lhs = xstrndup(stmt, (size_t)(eq - stmt)),
             *rhs = xstrndup(eq + 3, (size_t)(semi - eq - 3));
        char *kind = nm + 4, *op = strchr(kind, '_') + 1;
        op[-1] = 0;
        *strchr(op, '_') = 0; /* qdc_<kind>_<op>_<n>_<task> */
        sb_append(&b, p, (size_t)(stmt - 4 - p)); /* through "{\n": helper_body indents its own lines */
        helper_body(&b, kind, op, lhs, rhs);
        sb_puts(&b, "}\n");
        p = semi + 4;
        free(nm), free(lhs), free(rhs);
    }
    sb_puts(&b, p);
    return b.data;
}

/* One kernel parameter (text up to its ',' or ')' at depth 0): with [[buffer(N)]] and
 * coherent[N], the qualifier goes before its address space "device". */
static void param(StrBuf *b, const char *p, size_t len, const char *qual, const bool *coherent, int nbuf) {
    char *text = xstrndup(p, len), *br = strstr(text, "[[buffer(");
    int n = br ? atoi(br + 9) : -1;
    char *dev = strstr(text, "device ");
    while (dev && dev != text && (isalnum((unsigned char)dev[-1]) || dev[-1] == '_')) dev = strstr(dev + 1, "device ");
    if (n >= 0 && n < nbuf && coherent[n] && dev) {
        sb_append(b, text, (size_t)(dev - text));
        sb_printf(b, "%s %s", qual, dev);
    } else sb_puts(b, text);
    free(text);
}

static char *add_coherent(const char *msl, const char *qual, const bool *coherent, int nbuf) {
    StrBuf b;
    sb_init(&b);
    const char *k = strncmp(msl, "kernel void ", 12) ? strstr(msl, "\nkernel void ") : msl;
    const char *open = k ? strchr(k, '(') : NULL;
    if (!open) die("MSL completion: no kernel function in the SPIRV-Cross output");
    sb_append(&b, msl, (size_t)(open + 1 - msl));
    const char *p = open + 1;
    for (int depth = 0;; p++) {
        const char *q = p;
        while (*q && !(depth == 0 && (*q == ',' || *q == ')'))) depth += *q == '(' ? 1 : *q == ')' ? -1 : 0, q++;
        if (!*q) die("MSL completion: unterminated kernel parameter list");
        param(&b, p, (size_t)(q - p), qual, coherent, nbuf);
        sb_append(&b, q, 1);
        p = q;
        if (*q == ')') break;
    }
    sb_puts(&b, p + 1);
    return b.data;
}

/* "    threadgroup T NAME[...];" -> "    volatile threadgroup T NAME[...];" for every declaration of
 * the SharedArray NAME in the kernel body (one per view); NULL when there is none (a name
 * SPIRV-Cross changed): the caller refuses the load rather than write a plain one. */
char *msl_volatile_threadgroup(const char *msl, const char *name) {
    StrBuf b;
    sb_init(&b);
    char *want = xasprintf(" %s[", name);
    int found = 0;
    for (const char *line = msl; *line;) {
        const char *nl = strchr(line, '\n'), *end = nl ? nl + 1 : line + strlen(line), *p = line;
        while (p < end && *p == ' ') p++;
        const char *at = !strncmp(p, "threadgroup ", 12) ? strstr(p, want) : NULL;
        if (at && at < end && p > line && end[-1 - (nl != NULL)] == ';') {
            sb_append(&b, line, (size_t)(p - line));
            sb_puts(&b, "volatile ");
            sb_append(&b, p, (size_t)(end - p));
            found++;
        } else sb_append(&b, line, (size_t)(end - line));
        line = end;
    }
    free(want);
    if (found) return sb_take(&b);
    sb_free(&b);
    return NULL;
}

/* ---- item merge ---- */
static bool blank(const char *line, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)line[i])) return false;
    return true;
}

/* The line that declares an item: its first line that is not an attribute or template line. */
static const char *decl_line(const char *item) {
    for (const char *l = item; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        if (*l == '#' || !strncmp(l, "//", 2) || !strncmp(l, "using ", 6) || !strncmp(l, "template", 8) || !strncmp(l, "static inline", 13)) continue;
        return l;
    }
    return "";
}

/* Two items declare the same thing: the same declaration line (overloads of a SPIRV-Cross
 * helper such as spvSubgroupBroadcast share a name but not that line). */
static bool same_decl(const char *a, const char *b) {
    const char *la = decl_line(a), *lb = decl_line(b);
    size_t na = strcspn(la, "\n"), nb = strcspn(lb, "\n");
    return na == nb && !strncmp(la, lb, na);
}

/* The name an item declares: "struct NAME", or the identifier before the first '(' of its
 * first line that is not an attribute or template line; "" for preamble lines. */
static char *item_name(const char *item) {
    for (const char *l = item; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        if (*l == '#' || !strncmp(l, "//", 2) || !strncmp(l, "using ", 6) || !strncmp(l, "template", 8) || !strncmp(l, "static inline", 13)) continue;
        const char *e = strpbrk(l, "(\n{;");
        if (!strncmp(l, "struct ", 7)) e = strpbrk(l + 7, " \n{;");
        if (!e) e = l + strlen(l);
        const char *s = e;
        while (s > l && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) s--;
        return xstrndup(s, (size_t)(e - s));
    }
    return xstrdup("");
}

static unsigned str_hash(const char *s) {
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The index slot of the first item whose key (text or name) equals key, or of the empty slot
 * where it would go; *from starts the probe (0) and resumes it after a match. */
static unsigned probe(const MslItems *m, const int *slots, bool by_name, const char *key, unsigned *from) {
    unsigned mask = m->nslots - 1, i = (str_hash(key) + *from) & mask;
    for (;; i = (i + 1) & mask, ++*from) {
        if (!slots[i]) return i;
        const MslItem *it = &m->items[slots[i] - 1];
        const char *k = by_name ? it->name : it->text;
        if (k && !strcmp(k, key)) return ++*from, i;
    }
}

static void index_item(MslItems *m, int item) {
    const MslItem *it = &m->items[item];
    unsigned from = 0, i;
    while (m->by_text[i = probe(m, m->by_text, false, it->text, &from)]) {}
    m->by_text[i] = item + 1;
    if (!it->name) return;
    from = 0;
    while (m->by_name[i = probe(m, m->by_name, true, it->name, &from)]) {}
    m->by_name[i] = item + 1;
}

static void add_item(MslItems *m, MslItem it) {
    vec_push(m, it);
    if ((unsigned)m->len * 2 <= m->nslots) return index_item(m, m->len - 1);
    free(m->by_text), free(m->by_name);
    m->nslots = m->nslots ? m->nslots * 2 : 64;
    m->by_text = xcalloc(m->nslots, sizeof(int)), m->by_name = xcalloc(m->nslots, sizeof(int));
    for (int i = 0; i < m->len; i++) index_item(m, i);
}

static bool has_text(const MslItems *m, const char *text) {
    unsigned from = 0;
    return m->nslots && m->by_text[probe(m, m->by_text, false, text, &from)];
}

/* Appends the items of `msl` (runs of lines separated by blank lines outside braces) to
 * `merged`, skipping an item identical to one already there. */
void msl_merge(MslItems *merged, const char *msl) {
    StrBuf cur;
    sb_init(&cur);
    int depth = 0;
    for (const char *p = msl;; ) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool end = !*p;
        if ((end || (depth == 0 && blank(p, len))) && cur.len) {
            char *name = item_name(cur.data);
            bool dup = has_text(merged, cur.data);
            unsigned from = 0, i;
            while (!dup && name[0] && merged->nslots && merged->by_name[i = probe(merged, merged->by_name, true, name, &from)])
                if (same_decl(merged->items[merged->by_name[i] - 1].text, cur.data))
                    die("MSL merge: two different definitions of '%s' in one module", name);
            if (!dup) add_item(merged, (MslItem){xstrdup(cur.data), name});
            else free(name);
            sb_free(&cur);
            sb_init(&cur);
        } else if (depth == 0 && (*p == '#' || !strncmp(p, "using namespace ", 16))) {
            char *line = xstrndup(p, len);
            if (!has_text(merged, line)) add_item(merged, (MslItem){line, NULL});
            else free(line);
        } else if (!blank(p, len)) {
            sb_append(&cur, p, len), sb_puts(&cur, "\n");
            for (size_t i = 0; i < len; i++) depth += p[i] == '{' ? 1 : p[i] == '}' ? -1 : 0;
        }
        if (end) break;
        p += len + (nl ? 1 : 0);
    }
    sb_free(&cur);
}

/* Preamble lines first (#pragma, #include, using namespace: each kind in first-seen order, a
 * blank line between kinds), then the items in order, one blank line apart. */
static int preamble_rank(const MslItem *it) {
    if (it->name) return -1;
    return !strncmp(it->text, "#pragma", 7) ? 0 : it->text[0] == '#' ? 1 : 2;
}

void msl_items_write(MslItems *merged, StrBuf *out) {
    for (int r = 0; r < 3; r++) {
        bool any = false;
        for (int i = 0; i < merged->len; i++)
            if (preamble_rank(&merged->items[i]) == r) sb_printf(out, "%s%s\n", !any && out->len ? "\n" : "", merged->items[i].text), any = true;
    }
    for (int i = 0; i < merged->len; i++)
        if (preamble_rank(&merged->items[i]) < 0) sb_printf(out, "\n%s", merged->items[i].text);
    for (int i = 0; i < merged->len; i++) free(merged->items[i].text), free(merged->items[i].name);
    vec_free(merged);
    free(merged->by_text), free(merged->by_name);
    *merged = (MslItems){0};
}

char *msl_complete(const char *msl, const MslFacts *f, const bool *coherent, int nbuf) {
    char *h = fill_helpers(msl), *a = fill_markers(h, f);
    free(h);
    bool any = false;
    for (int i = 0; i < nbuf; i++) any |= coherent[i];
    if (!any) return a;
    if (!f->coherent) die("MSL completion: coherent buffers on a target whose MSL has no coherent qualifier");
    char *b = add_coherent(a, f->coherent, coherent, nbuf);
    free(a);
    return b;
}
