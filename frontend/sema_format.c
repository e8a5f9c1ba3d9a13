/* print(...) in kernels and the formatted strings it takes (issue 14): one printf per call with
 * Quadrants' conversions (integers at least 32 bits wide; f16/f32 as "%f" of a double, f64 as
 * "%.12f"), and "...".format(...) whose {:spec} fields are merged into the value's conversion
 * as Quadrants merges them: the spec's flags, width and precision, the type's length, the
 * spec's conversion when it is of the type's kind. Where the target has no output channel the
 * backend warns (QD5180) and drops the call. Also the %-formatted message of an assert. */
#include "sema.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PRINT_VALUES 32 /* run-time values of one print (the backends' printf calls take that many) */

typedef struct {
    Sema *S;
    StrBuf fmt;
    IrExpr **args;
    int n;
} Printf;

static void fmt_text(StrBuf *b, const char *s, size_t len) { /* literal text in a printf format */
    for (size_t k = 0; k < len && s[k]; k++) {
        if (s[k] == '%') sb_putc(b, '%');
        sb_putc(b, s[k]);
    }
}

/* Quadrants' conversion of a t and the type printf receives it as. */
static const char *type_spec(QdType t, QdType *w) {
    if (qt_is_float(t)) return *w = QT_F64, t == QT_F64 ? "%.12f" : "%f";
    if (t == QT_I64 || t == QT_U64) return *w = t, t == QT_I64 ? "%lld" : "%llu";
    if (t == QT_U32 || t == QT_U16 || t == QT_U8) return *w = QT_U32, "%u";
    return *w = QT_I32, "%d";
}

typedef struct { const char *flags, *width, *prec, *len, *conv; int nflags, nwidth, nprec, nlen, nconv; } PrintfSpec;

/* %[flags][width][.precision][length][conversion], each part optional (Quadrants' grammar). */
static bool parse_spec(const char *s, PrintfSpec *p) {
    memset(p, 0, sizeof *p);
    if (*s == '%') s++;
    for (p->flags = s; *s && strchr("-+ #0", *s); s++) p->nflags++;
    p->width = s;
    if (*s == '*') s++, p->nwidth = 1;
    else for (; *s >= '0' && *s <= '9'; s++) p->nwidth++;
    p->prec = s;
    if (*s == '.') {
        s++, p->nprec = 1;
        if (*s == '*') s++, p->nprec++;
        else for (; *s >= '0' && *s <= '9'; s++) p->nprec++;
        if (p->nprec == 1) return false;
    }
    p->len = s;
    if ((s[0] == 'h' && s[1] == 'h') || (s[0] == 'l' && s[1] == 'l')) s += 2, p->nlen = 2;
    else if (*s && strchr("hljztL", *s)) s++, p->nlen = 1;
    p->conv = s;
    if (*s && strchr("csdioxXufFeEaAgGnp", *s)) s++, p->nconv = 1;
    return *s == 0;
}

static int conv_group(char c) { return !c ? 0 : strchr("di", c) ? 1 : strchr("oxXu", c) ? 2 : strchr("fFeEaAgG", c) ? 3 : 4; }

/* The printf conversion for a value of type t printed with the {:spec} `user`. False (reported)
 * for a spec printf cannot take, or whose conversion does not fit t (Quadrants' errors). */
static bool merge_spec(const char *user, QdType t, StrBuf *out, Span sp) {
    QdType w;
    PrintfSpec u, d;
    parse_spec(type_spec(t, &w), &d);
    if (!parse_spec(user, &u)) return diag_error(sp, QD2007, "'%s' is not a valid printf specifier", user), false;
    if ((u.nwidth && u.width[0] == '*') || (u.nprec > 1 && u.prec[1] == '*') || (u.nconv && u.conv[0] == 'n'))
        return diag_error(sp, QD2007, "the printf specifier '%s' is not supported", user), false;
    char c = u.nconv ? u.conv[0] : 0;
    if (conv_group(c) == 4) return diag_error(sp, QD2007, "conversion '%c' is not supported", c), false;
    bool fits = !c || (conv_group(c) == 1 && qt_is_integral(t) && qt_is_signed(t)) ||
                (conv_group(c) == 2 && qt_is_integral(t) && !qt_is_signed(t)) || (conv_group(c) == 3 && qt_is_float(t));
    if (!fits) return diag_error(sp, QD2019, "'%s' doesn't match '%s'.", user, qt_name(t)), false;
    sb_printf(out, "%%%.*s%.*s", u.nflags, u.flags, u.nwidth, u.width);
    if (u.nprec) sb_printf(out, "%.*s", u.nprec, u.prec);
    else sb_printf(out, "%.*s", d.nprec, d.prec);
    sb_printf(out, "%.*s%c", d.nlen, d.len, c && conv_group(c) == conv_group(d.conv[0]) ? c : d.conv[0]);
    return true;
}

/* Python's str() of a float literal: the shortest form that reads back, with ".0" when it would
 * look like an integer. */
static void py_float(StrBuf *b, double v) {
    char buf[64];
    if (isnan(v) || isinf(v)) return sb_puts(b, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    sb_puts(b, buf);
    if (!strpbrk(buf, ".e")) sb_puts(b, ".0");
}

/* A literal argument without a spec is formatted at compile time, as Python formats it. */
static bool literal_text(const Expr *a, StrBuf *out) {
    bool neg = a->kind == E_UNARY && a->op == T_MINUS && (a->un.a->kind == E_INT || a->un.a->kind == E_FLOAT);
    const Expr *x = neg ? a->un.a : a;
    switch (x->kind) {
    case E_STR: if (x->fstr) return false; fmt_text(out, x->str, strlen(x->str)); return true;
    case E_BOOL: sb_puts(out, x->b ? "True" : "False"); return true;
    case E_NONE: sb_puts(out, "None"); return true;
    case E_INT: sb_printf(out, "%s%llu", neg ? "-" : "", (unsigned long long)x->i); return true;
    case E_FLOAT: {
        StrBuf t;
        sb_init(&t);
        py_float(&t, neg ? -x->f : x->f);
        fmt_text(out, t.data, strlen(t.data));
        sb_free(&t);
        return true;
    }
    default: return false;
    }
}

static bool print_fstring(Printf *P, const Expr *a);

/* A value: a string's text; a tuple or list as [a, b] (Quadrants' list form, nested ones
 * too); a vector as [1, 2], a matrix as [[1, 2], [3, 4]]; a scalar with its conversion. */
static bool print_val(Printf *P, Val v, const char *spec, Span sp) {
    Sema *S = P->S;
    if (v.kind == V_STR) return fmt_text(&P->fmt, v.path, strlen(v.path)), true;
    if (v.kind == V_TUPLE) {
        sb_putc(&P->fmt, '[');
        for (int k = 0; k < v.tuple.n; k++) {
            if (k) sb_puts(&P->fmt, ", ");
            if (!print_val(P, v.tuple.items[k], spec, sp)) return false;
        }
        sb_putc(&P->fmt, ']');
        return true;
    }
    int nc = v.kind == V_VEC ? vec_len(v) : 1;
    if (P->n + nc > MAX_PRINT_VALUES) return diag_error(sp, QD2007, "print takes at most %d run-time values", MAX_PRINT_VALUES), false;
    if (v.kind == V_VEC) sb_puts(&P->fmt, v.vec.m ? "[[" : "[");
    for (int c = 0; c < nc; c++) {
        if (c) sb_puts(&P->fmt, v.vec.m && c % v.vec.m == 0 ? "], [" : ", ");
        IrExpr *e = sema_rvalue(S, v.kind == V_VEC ? v.vec.c[c] : v, sp);
        if (!e) return false;
        QdType w;
        const char *conv = type_spec(e->type, &w);
        if (!spec) sb_puts(&P->fmt, conv);
        else if (!merge_spec(spec, e->type, &P->fmt, sp)) return false;
        P->args[P->n++] = irb_cast(S->arena, e, w);
    }
    if (v.kind == V_VEC) sb_puts(&P->fmt, v.vec.m ? "]]" : "]");
    return true;
}

/* One printed value (a vector or matrix: its components in Quadrants' brackets), with a
 * {:spec} or (spec NULL) the type's conversion. field: a field of a format string or f-string,
 * where Python formats a literal (print's own arguments are all converted by Quadrants). */
static bool print_value(Printf *P, const Expr *a, const char *spec, bool field) {
    Sema *S = P->S;
    if (field && !spec && literal_text(a, &P->fmt)) return true;
    if (a->kind == E_STR && !a->fstr) return fmt_text(&P->fmt, a->str, strlen(a->str)), true;
    if (a->kind == E_STR && a->fstr && !sema_fstring_known(S, a)) return print_fstring(P, a);
    Val v = sema_eval(S, a);
    return v.kind != V_ERR && print_val(P, v, spec, a->span);
}

/* ---- f-strings with run-time fields ---- */

typedef struct {
    int start, len;   /* the expression */
    int shown;        /* {x = }: the length of the text shown before the value, else 0 */
    int spec, nspec;  /* the format spec after ':' */
} FField;

/* Scans s[*i, n) to the next {field} of an f-string; the literal text before it goes to lit
 * ({{ and }} as single braces). False at the end, or with *bad set on a malformed or
 * unsupported field (a !conversion). */
static bool fstring_next(const char *s, int n, int *i, FField *f, StrBuf *lit, bool *bad) {
    while (*i < n) {
        char c = s[*i];
        if ((c == '{' || c == '}') && *i + 1 < n && s[*i + 1] == c) {
            if (lit) sb_putc(lit, c);
            *i += 2;
            continue;
        }
        if (c == '}') return *bad = true, false;
        if (c != '{') {
            if (lit) sb_putc(lit, c);
            ++*i;
            continue;
        }
        int j = *i + 1, depth = 0;
        f->start = j;
        for (; j < n; j++) {
            char d = s[j];
            if (d == '(' || d == '[' || d == '{') depth++;
            else if (depth && (d == ')' || d == ']' || d == '}')) depth--;
            else if (!depth && (d == '}' || d == ':' || (d == '!' && j + 1 < n && s[j + 1] != '='))) break;
        }
        if (j >= n || s[j] == '!') return *bad = true, false;
        f->len = j - f->start, f->shown = 0, f->spec = f->nspec = 0;
        int e = f->len;
        while (e > 0 && s[f->start + e - 1] == ' ') e--;
        if (e > 0 && s[f->start + e - 1] == '=' && (e < 2 || !strchr("=!<>", s[f->start + e - 2]))) f->shown = f->len, f->len = e - 1;
        if (s[j] == ':') {
            int k = j + 1;
            while (k < n && s[k] != '}') k++;
            if (k >= n) return *bad = true, false;
            f->spec = j + 1, f->nspec = k - j - 1, j = k;
        }
        *i = j + 1;
        return true;
    }
    return false;
}

/* print(f"... {expr:spec} ...") with run-time fields: each field's expression is parsed from the
 * source (the literal's text, so its columns are right) and printed like a "{:spec}".format()
 * field; the literal text between comes from the processed string (escapes resolved). One
 * f-string literal (no implicit concatenation). */
static bool print_fstring(Printf *P, const Expr *a) {
    Sema *S = P->S;
    const Source *src = a->span.src ? a->span.src : S->src; /* the literal's own module */
    const char *raw = src->text + a->span.off;
    int n = (int)a->span.len, q = 0;
    while (q < n && strchr("rRfFbBuU", raw[q])) q++;
    int quotes = q + 2 < n && raw[q + 1] == raw[q] && raw[q + 2] == raw[q] ? 3 : 1;
    bool one = q < n && (raw[q] == '"' || raw[q] == '\'') && n >= q + 2 * quotes && raw[n - 1] == raw[q];
    for (int k = q + quotes; one && k < n - quotes; k++) one = raw[k] != raw[q] || raw[k - 1] == '\\';
    if (!one) return diag_error(a->span, QD2062, "an f-string with run-time fields must be one literal (no implicit concatenation)"), false;
    const char *str = a->str;
    int sn = (int)strlen(str), ri = q + quotes, si = 0, rn = n - quotes;
    bool rbad = false, sbad = false;
    FField rf, sf;
    for (;;) {
        StrBuf lit;
        sb_init(&lit);
        bool more = fstring_next(str, sn, &si, &sf, &lit, &sbad);
        bool rmore = fstring_next(raw, rn, &ri, &rf, NULL, &rbad);
        fmt_text(&P->fmt, lit.data ? lit.data : "", lit.len);
        sb_free(&lit);
        if (sbad || rbad || more != rmore) {
            diag_error(a->span, QD2007, "an f-string field that print cannot take (a !conversion, or an unbalanced brace)");
            return false;
        }
        if (!more) return true;
        if (sf.shown) fmt_text(&P->fmt, str + sf.start, (size_t)sf.shown);
        Source *owned;
        Expr *e = frontend_parse_field(src, S->arena, a->span.off + (uint32_t)rf.start, (uint32_t)rf.len, &owned);
        if (owned) vec_push(&S->spec_sources, owned);
        if (!e) return false;
        char *spec = sf.nspec ? arena_strndup(S->arena, str + sf.spec, (size_t)sf.nspec) : NULL;
        if (!print_value(P, e, spec, true)) return false;
    }
}

static bool is_format_call(const Expr *a) {
    return a->kind == E_CALL && a->call.fn->kind == E_ATTR && a->call.fn->attr.obj->kind == E_STR && !a->call.fn->attr.obj->fstr &&
           !strcmp(a->call.fn->attr.name, "format");
}

/* "text {} {0:.2f} {name:e}".format(...): Python's fields ({{ and }} are braces), each value
 * printed with its spec. Quadrants' checks: every positional argument up to the highest index
 * used, and every keyword, is used. */
static bool print_format(Printf *P, const Expr *call) {
    const char *s = call->call.fn->attr.obj->str;
    const ExprList *args = &call->call.args;
    int next = 0, maxidx = -1, nkw = call->call.nkw;
    bool *kwused = ARENA_ARRAY(P->S->arena, bool, nkw ? nkw : 1);
    for (int k = 0; k < args->n; k++)
        if (args->items[k]->kind == E_STARRED)
            return diag_error(args->items[k]->span, QD2007, "str.format(*args) is not supported in a kernel"), false;
    while (*s) {
        if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
            sb_putc(&P->fmt, s[0]), s += 2;
            continue;
        }
        if (*s == '}') return diag_error(call->span, QD2007, "single '}' encountered in format string"), false;
        if (*s != '{') {
            fmt_text(&P->fmt, s, 1), s++;
            continue;
        }
        const char *end = strchr(s, '}');
        if (!end) return diag_error(call->span, QD2007, "single '{' encountered in format string"), false;
        const char *colon = memchr(s, ':', (size_t)(end - s)), *bang = memchr(s, '!', (size_t)(end - s));
        const char *name_end = bang && (!colon || bang < colon) ? bang : colon ? colon : end;
        if (bang && (!colon || bang < colon)) return diag_error(call->span, QD2007, "a !conversion in a format field is not supported"), false;
        char *name = arena_strndup(P->S->arena, s + 1, (size_t)(name_end - s - 1));
        char *spec = colon && end > colon + 1 ? arena_strndup(P->S->arena, colon + 1, (size_t)(end - colon - 1)) : NULL;
        const Expr *value = NULL;
        if (!*name || (*name >= '0' && *name <= '9')) {
            int idx = *name ? atoi(name) : next++;
            if (idx > maxidx) maxidx = idx;
            if (idx < args->n) value = args->items[idx];
        } else {
            for (int k = 0; k < nkw && !value; k++)
                if (!strcmp(call->call.kw[k].name, name)) value = call->call.kw[k].value, kwused[k] = true;
            if (!value) return diag_error(call->span, QD2007, "Keyword '%s' not found.", name), false;
        }
        if (value && !print_value(P, value, spec, true)) return false;
        s = end + 1;
    }
    if (maxidx + 1 != args->n)
        return diag_error(call->span, QD2007, "Expected %d positional argument(s), but received %d instead.", maxidx + 1, args->n), false;
    for (int k = 0; k < nkw; k++)
        if (!kwused[k]) return diag_error(call->call.kw[k].span, QD2007, "Keyword '%s' not used.", call->call.kw[k].name), false;
    return true;
}

Val sema_print_call(Sema *S, const Expr *call) {
    const char *sep = " ", *end = "\n";
    for (int k = 0; k < call->call.nkw; k++) {
        const Keyword *kw = &call->call.kw[k];
        bool s = !strcmp(kw->name, "sep");
        if ((!s && strcmp(kw->name, "end")) || kw->value->kind != E_STR) {
            diag_error(kw->span, QD2007, "print takes only sep= and end= keyword arguments, as string literals");
            return val_err();
        }
        *(s ? &sep : &end) = kw->value->str;
    }
    if (!S->cur) return diag_error(call->span, QD2019, "'print' can only be used inside a kernel or qd.func"), val_err();
    Printf P = {.S = S, .args = ARENA_ARRAY(S->arena, IrExpr *, MAX_PRINT_VALUES)};
    sb_init(&P.fmt);
    bool ok = true;
    for (int k = 0; k < call->call.args.n && ok; k++) {
        const Expr *a = call->call.args.items[k];
        if (k) fmt_text(&P.fmt, sep, strlen(sep));
        ok = is_format_call(a) ? print_format(&P, a) : print_value(&P, a, NULL, false);
    }
    fmt_text(&P.fmt, end, strlen(end));
    if (ok) {
        IrStmt *st = sema_stmt_new(S, IR_PRINT, call->span);
        st->print.fmt = arena_strdup(S->arena, P.fmt.data), st->print.args = P.args, st->print.nargs = P.n;
        sema_emit(S, st);
    }
    sb_free(&P.fmt);
    return ok ? (Val){.kind = V_NONE} : val_err();
}

/* assert cond, "text %d" % (a, b): the message's values are checked like any code (S->cur
 * decides whether they leave code); a compile-time value is formatted into the text, a run-time
 * one keeps its conversion (%d) there: an assert failure reports a fixed message. NULL
 * (reported) for another kind of message. */
/* Python's repr of a float: the shortest digits that read back as it, with ".0" when integral. */
static void float_repr(StrBuf *b, double f) {
    char t[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(t, sizeof t, "%.*g", p, f);
        if (strtod(t, NULL) == f) break;
    }
    sb_puts(b, t);
    if (!strpbrk(t, ".einf")) sb_puts(b, ".0");
}

/* An f-string message with run-time fields: each field is checked; a compile-time string or
 * integer is formatted into the text, a run-time one keeps its {field} text. */
static const char *assert_fstring(Sema *S, const Expr *m) {
    const Source *src = m->span.src ? m->span.src : S->src; /* the literal's own module */
    const char *raw = src->text + m->span.off;
    int n = (int)m->span.len, q = 0;
    while (q < n && strchr("rRfFbBuU", raw[q])) q++;
    int quotes = q + 2 < n && raw[q + 1] == raw[q] && raw[q + 2] == raw[q] ? 3 : 1;
    const char *str = m->str;
    int sn = (int)strlen(str), ri = q + quotes, si = 0, rn = n - quotes;
    bool rbad = false, sbad = false, ok = true;
    FField rf, sf;
    StrBuf b;
    sb_init(&b);
    for (;;) {
        bool more = fstring_next(str, sn, &si, &sf, &b, &sbad), rmore = fstring_next(raw, rn, &ri, &rf, NULL, &rbad);
        if (sbad || rbad || more != rmore) {
            diag_error(m->span, QD2007, "an f-string field that an assert message cannot take (a !conversion, or an unbalanced brace)");
            ok = false;
        }
        if (!more || !ok) break;
        if (sf.shown) sb_append(&b, str + sf.start, (size_t)sf.shown);
        Source *owned;
        Expr *e = frontend_parse_field(src, S->arena, m->span.off + (uint32_t)rf.start, (uint32_t)rf.len, &owned);
        if (owned) vec_push(&S->spec_sources, owned);
        Val v = e ? sema_eval(S, e) : val_err();
        IrExpr *x = v.kind == V_EXPR || v.kind == V_LOCAL || v.kind == V_REF ? sema_known_const(S, sema_rvalue(S, v, m->span)) : NULL;
        if (!e || v.kind == V_ERR) ok = false;
        else if (v.kind == V_STR) sb_puts(&b, v.path);
        else if (x && ir_is_const(x) && qt_is_integral(x->type)) sb_printf(&b, "%lld", (long long)x->c.i);
        else if (x && ir_is_const(x) && qt_is_float(x->type)) float_repr(&b, x->c.f);
        else sb_printf(&b, "{%.*s}", sf.len, str + sf.start);
        if (!ok) break;
    }
    const char *text = ok ? arena_strdup(S->arena, b.data ? b.data : "") : NULL;
    sb_free(&b);
    return text;
}

const char *sema_assert_message(Sema *S, const Expr *m) {
    if (m->kind == E_STR && !m->fstr) return m->str;
    if (m->kind == E_STR && !sema_fstring_known(S, m)) return assert_fstring(S, m);
    if (m->kind == E_STR || m->kind == E_INT || m->kind == E_FLOAT || m->kind == E_BOOL) {
        StrBuf b;
        sb_init(&b);
        Val v = m->kind == E_STR ? sema_eval(S, m) : (Val){.kind = V_NONE};
        if (m->kind == E_STR && v.kind != V_STR) return sb_free(&b), NULL;
        if (m->kind == E_STR) sb_puts(&b, v.path);
        else literal_text(m, &b);
        const char *r = arena_strdup(S->arena, b.data ? b.data : "");
        sb_free(&b);
        return r;
    }
    if (m->kind != E_BINARY || m->op != T_PERCENT || m->bin.a->kind != E_STR || m->bin.a->fstr) {
        if (m->kind != E_ERROR) diag_error(m->span, QD2019, "the message of an assert must be a string literal, an f-string or \"...\" %% values");
        return NULL;
    }
    const Expr *r = m->bin.b;
    const Expr *const *items = (const Expr *const *)&r;
    int n = 1;
    if (r->kind == E_TUPLE) items = (const Expr *const *)r->list.items, n = r->list.n;
    StrBuf b;
    sb_init(&b);
    const char *s = m->bin.a->str;
    int k = 0;
    bool ok = true;
    while (*s && ok) {
        if (s[0] != '%') {
            sb_putc(&b, *s++);
            continue;
        }
        if (s[1] == '%') {
            sb_putc(&b, '%'), s += 2;
            continue;
        }
        const char *c = s + 1;
        while (*c && !strchr("csdioxXufFeEaAgGr", *c)) c++;
        if (!*c || k >= n) {
            diag_error(m->span, QD2007, k >= n ? "not enough arguments for the assert message's format string"
                                               : "incomplete format in the assert message");
            ok = false;
            break;
        }
        Val v = sema_eval(S, items[k++]);
        IrExpr *e = v.kind == V_EXPR || v.kind == V_LOCAL || v.kind == V_REF ? sema_known_const(S, sema_rvalue(S, v, m->span)) : NULL;
        if (v.kind == V_ERR) ok = false;
        else if (v.kind == V_STR && strchr("sr", *c)) sb_puts(&b, v.path);
        else if (e && ir_is_const(e) && qt_is_integral(e->type) && strchr("di", *c)) sb_printf(&b, "%lld", (long long)e->c.i);
        else if (e && ir_is_const(e) && qt_is_float(e->type) && strchr("fFeEgG", *c) && c - s < 16 && !memchr(s, '*', (size_t)(c - s))) {
            char spec[24];
            snprintf(spec, sizeof spec, "%.*s", (int)(c - s + 1), s); /* Python's %f, %e, %g are C's */
            sb_printf(&b, spec, e->c.f);
        }
        else sb_printf(&b, "%.*s", (int)(c - s + 1), s);
        s = c + 1;
    }
    if (ok && k < n) {
        diag_error(m->span, QD2007, "not all arguments converted in the assert message's format string");
        ok = false;
    }
    const char *text = ok ? arena_strdup(S->arena, b.data ? b.data : "") : NULL;
    sb_free(&b);
    return text;
}
