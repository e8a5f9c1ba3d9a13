/* Compile-time Python strings in host code (qdc-lang(7) "Whole scripts"): the str methods test
 * helpers use to build names and orders ("".join(chr(ord("i") + a) for a in layout),
 * "{}_{}".format(a, b), s.upper() ...), chr and ord, `in` on strings. Each computes exactly
 * what Python computes; an argument that is not a compile-time value keeps the caller's
 * reason (the value is then the script's, QD2062 where a kernel uses it). */
#include "py.h"
#include <ctype.h>
#include <string.h>

static Val str_val(const char *s) { return (Val){.kind = V_STR, .path = s}; }

static Val int_val(Sema *S, int64_t v, Span sp) {
    Val r = val_int_typed(S, QT_I64, v, sp); /* a Python int: exact in arithmetic */
    S->core->sema_module_constant(S, &r); /* a Python int: i32 when it fits */
    return r;
}

/* The text str() and format() give a compile-time string, integer, bool or None; NULL otherwise. */
static const char *text_of(Sema *S, Val v) {
    int64_t i;
    if (v.kind == V_STR) return v.path;
    if (v.kind == V_NONE) return "None";
    if (v.kind == V_PYINT) return sema_pyint_text(S, v, S->budget.at);
    if (val_is_host_bool(v)) return val_host_u64(v) ? "True" : "False";
    if (val_host_int(v, &i))
        return qt_is_signed(val_host_type(v)) ? arena_printf(S->arena, "%lld", (long long)i) : arena_printf(S->arena, "%llu", (unsigned long long)val_host_u64(v));
    return NULL;
}

/* What a value is, in a message about a str method's argument. */
static const char *kind_of(Sema *S, Val v) {
    if (val_is_host_scalar(v)) return val_is_host_float(v) ? "a float" : val_is_host_bool(v) ? "a bool" : "an integer";
    return S->core->val_describe(v);
}

static bool nargs(const Expr *call, const char *name, int min, int max) {
    int n = call->call.args.n;
    if (call->call.nkw)
        return diag_error(call->call.kw[0].span, QD2007, "str.%s takes no keyword arguments here", name), false;
    if (n < min || n > max)
        return diag_error(call->span, QD2007, "str.%s takes %d%s%d argument%s, got %d", name, min, max > min ? " to " : "",
                          max > min ? max : -1, max == 1 ? "" : "s", n), false;
    return true;
}

/* The k-th argument as a compile-time string (reported when it is something else). */
static const char *str_arg(Sema *S, const Expr *call, int k, const char *name) {
    Val v = S->core->sema_eval(S, call->call.args.items[k]);
    if (v.kind == V_ERR) return NULL;
    if (v.kind != V_STR)
        return diag_error(call->call.args.items[k]->span, QD2012, "str.%s needs a string here, got %s", name, kind_of(S, v)), NULL;
    return v.path;
}

/* sep.join(iterable): every item a string (Python raises TypeError otherwise). */
static Val join(Sema *S, const Expr *call, const char *sep) {
    if (!nargs(call, "join", 1, 1)) return val_err();
    Val *items;
    int n;
    if (!sema_iter_items(S, call->call.args.items[0], &items, &n)) return val_err();
    StrBuf b;
    sb_init(&b);
    for (int k = 0; k < n; k++) {
        if (items[k].kind != V_STR) {
            diag_error(call->call.args.items[0]->span, QD2012, "str.join: sequence item %d: expected a string, got %s", k, kind_of(S, items[k]));
            sb_free(&b);
            return val_err();
        }
        sb_printf(&b, "%s%s", k ? sep : "", items[k].path);
    }
    Val r = str_val(arena_strdup(S->arena, b.data ? b.data : ""));
    sb_free(&b);
    return r;
}

/* fmt.format(args, name=value): fields {}, {N} and {name} without a format spec or conversion;
 * {{ and }} are literal braces. */
static Val format(Sema *S, const Expr *call, const char *fmt) {
    StrBuf b;
    sb_init(&b);
    int next = 0;
    Val r = val_err();
    for (const char *c = fmt; *c; c++) {
        if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
            sb_putc(&b, *c++);
            continue;
        }
        if (*c != '{') {
            sb_putc(&b, *c);
            continue;
        }
        const char *end = strchr(c, '}');
        size_t len = end ? (size_t)(end - c - 1) : 0;
        if (!end || strcspn(c + 1, ":!}") != len) {
            diag_error(call->span, QD2062, "str.format with a format spec or conversion ({x:>4}, {x!r}); qdc formats "
                                           "fields {}, {N} and {name} of compile-time strings, integers, bools and None");
            goto out;
        }
        const Expr *a = NULL;
        char *key = arena_strndup(S->arena, c + 1, len);
        if (!len) {
            a = next < call->call.args.n ? call->call.args.items[next++] : NULL;
        } else if (isdigit((unsigned char)key[0])) {
            int k = atoi(key);
            a = k < call->call.args.n ? call->call.args.items[k] : NULL;
        } else {
            for (int k = 0; k < call->call.nkw && !a; k++)
                if (!strcmp(call->call.kw[k].name, key)) a = call->call.kw[k].value;
        }
        if (!a) {
            diag_error(call->span, QD2007, "str.format has no argument for the field {%s}", key);
            goto out;
        }
        Val v = S->core->sema_eval(S, a);
        if (v.kind == V_ERR) goto out;
        const char *t = text_of(S, v);
        if (!t) {
            diag_error(a->span, QD2062, "str.format of %s; qdc formats compile-time strings, integers, bools and None", kind_of(S, v));
            goto out;
        }
        sb_puts(&b, t);
        c = end;
    }
    r = str_val(arena_strdup(S->arena, b.data ? b.data : ""));
out:
    sb_free(&b);
    return r;
}

/* s.strip([chars]) and its one-sided forms: the characters removed (whitespace when none given). */
static Val strip(Sema *S, const Expr *call, const char *s, const char *name) {
    if (!nargs(call, name, 0, 1)) return val_err();
    const char *chars = call->call.args.n ? str_arg(S, call, 0, name) : " \t\n\r\f\v";
    if (!chars) return val_err();
    size_t lo = 0, hi = strlen(s);
    if (name[0] != 'r')
        while (lo < hi && strchr(chars, s[lo])) lo++;
    if (name[0] != 'l')
        while (hi > lo && strchr(chars, s[hi - 1])) hi--;
    return str_val(arena_strndup(S->arena, s + lo, hi - lo));
}

static Val replace(Sema *S, const Expr *call, const char *s) {
    if (!nargs(call, "replace", 2, 2)) return val_err();
    const char *old = str_arg(S, call, 0, "replace"), *new = old ? str_arg(S, call, 1, "replace") : NULL;
    if (!new) return val_err();
    StrBuf b;
    sb_init(&b);
    size_t n = strlen(old);
    for (const char *c = s; *c || (!n && c == s);) {
        if (n && !strncmp(c, old, n)) {
            sb_puts(&b, new), c += n;
        } else if (!n) { /* "ab".replace("", "-") == "-a-b-" */
            sb_puts(&b, new);
            if (!*c) break;
            sb_putc(&b, *c++);
            if (!*c) sb_puts(&b, new);
        } else {
            sb_putc(&b, *c++);
        }
    }
    Val r = str_val(arena_strdup(S->arena, b.data ? b.data : ""));
    sb_free(&b);
    return r;
}

/* s.split([sep]): without sep, runs of whitespace separate and empty words are dropped. */
static Val split(Sema *S, const Expr *call, const char *s) {
    if (!nargs(call, "split", 0, 1)) return val_err();
    const char *sep = call->call.args.n ? str_arg(S, call, 0, "split") : NULL;
    if (call->call.args.n && !sep) return val_err();
    if (sep && !*sep) return diag_error(call->call.args.items[0]->span, QD2012, "str.split: empty separator"), val_err();
    VEC(Val) words = {0};
    for (const char *c = s;;) {
        if (!sep) {
            while (*c && isspace((unsigned char)*c)) c++;
            if (!*c) break;
        }
        const char *end = sep ? strstr(c, sep) : c;
        if (!sep)
            while (*end && !isspace((unsigned char)*end)) end++;
        if (!end) end = c + strlen(c);
        vec_push(&words, str_val(arena_strndup(S->arena, c, (size_t)(end - c))));
        if (sep ? !strstr(c, sep) : !*end) break;
        c = end + (sep ? strlen(sep) : 0);
    }
    Val t = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, words.len ? words.len : 1), words.len}};
    if (words.len) memcpy(t.tuple.items, words.items, sizeof(Val) * (size_t)words.len);
    vec_free(&words);
    return t;
}

static Val map_chars(Sema *S, const Expr *call, const char *s, const char *name) {
    if (!nargs(call, name, 0, 0)) return val_err();
    char *r = arena_strdup(S->arena, s);
    for (char *c = r; *c; c++) {
        bool first = c == r;
        *c = (char)(!strcmp(name, "upper") || (first && !strcmp(name, "capitalize")) ? toupper((unsigned char)*c)
                                                                                  : tolower((unsigned char)*c));
    }
    return str_val(r);
}

/* s.startswith(p), s.endswith(p), s.find(p), s.count(p), s.isdigit() ... */
static Val query(Sema *S, const Expr *call, const char *s, const char *name) {
    bool noarg = !strncmp(name, "is", 2);
    if (!nargs(call, name, noarg ? 0 : 1, noarg ? 0 : 1)) return val_err();
    const char *p = noarg ? "" : str_arg(S, call, 0, name);
    if (!p) return val_err();
    size_t n = strlen(s), m = strlen(p);
    int64_t v = 0;
    if (!strcmp(name, "startswith")) v = !strncmp(s, p, m);
    else if (!strcmp(name, "endswith")) v = m <= n && !strcmp(s + n - m, p);
    else if (!strcmp(name, "find")) v = strstr(s, p) ? strstr(s, p) - s : -1;
    else if (!strcmp(name, "count") && !m) v = (int64_t)n + 1;
    else if (!strcmp(name, "count"))
        for (const char *c = strstr(s, p); c; c = strstr(c + m, p)) v++;
    else {
        v = n > 0;
        for (size_t k = 0; k < n; k++)
            v &= !strcmp(name, "isdigit") ? isdigit((unsigned char)s[k]) != 0 : isalpha((unsigned char)s[k]) != 0;
    }
    bool boolean = strcmp(name, "find") && strcmp(name, "count");
    return boolean ? val_expr(irb_int(S->arena, QT_U1, v, call->span)) : int_val(S, v, call->span);
}

static const char *const methods[] = {"join", "format", "upper", "lower", "capitalize", "strip", "lstrip", "rstrip", "replace",
                                      "split", "startswith", "endswith", "find", "count", "isdigit", "isalpha"};

bool sema_str_method(const char *name) {
    for (size_t k = 0; k < ARRAY_LEN(methods); k++)
        if (!strcmp(methods[k], name)) return true;
    return false;
}

/* s.NAME(args) on a compile-time string s (NAME one of methods[]: eval_attr gives the others
 * their "no attribute" error). */
static Val str_method(Sema *S, const Expr *call, const char *s, const char *name) {
    if (!strcmp(name, "join")) return join(S, call, s);
    if (!strcmp(name, "format")) return format(S, call, s);
    if (!strcmp(name, "upper") || !strcmp(name, "lower") || !strcmp(name, "capitalize")) return map_chars(S, call, s, name);
    if (strstr(name, "strip")) return strip(S, call, s, name);
    if (!strcmp(name, "replace")) return replace(S, call, s);
    if (!strcmp(name, "split")) return split(S, call, s);
    return query(S, call, s, name);
}

Val sema_str_method_call(Sema *S, const Expr *call, const char *s, const char *name) {
    return S->core->sema_new_value(S, str_method(S, call, s, name), call->span);
}

/* chr(i) and ord(c) (host code). */
Val sema_chr_ord(Sema *S, const Expr *call, bool chr) {
    const char *name = chr ? "chr" : "ord";
    if (call->call.args.n != 1 || call->call.nkw)
        return diag_error(call->span, QD2007, "%s takes 1 argument, got %d", name, call->call.args.n + call->call.nkw), val_err();
    const Expr *a = call->call.args.items[0];
    Val v = S->core->sema_eval(S, a);
    int64_t i;
    if (v.kind == V_ERR) return v;
    if (chr && (!val_host_int(v, &i) || val_is_host_bool(v)))
        return diag_error(a->span, QD2012, "chr needs a compile-time integer, got %s", S->core->val_describe(v)), val_err();
    if (chr && (i < 1 || i > 127)) /* qdc's strings are ASCII; chr(0) would end the C string */
        return diag_error(a->span, QD2012, "chr(%lld): qdc evaluates chr of ASCII code points 1 to 127", (long long)i), val_err();
    if (chr) return str_val(arena_printf(S->arena, "%c", (char)i));
    if (v.kind != V_STR || strlen(v.path) != 1)
        return diag_error(a->span, QD2012, "ord needs a string of one character, got %s", v.kind == V_STR ? "a longer string" : S->core->val_describe(v)), val_err();
    return int_val(S, (unsigned char)v.path[0], call->span);
}
