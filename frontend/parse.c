/* The parser: recursive descent over the token array, producing the AST (ast.h) for the
 * Python subset of the kernel language (research/quadrants.md §3). Python syntax outside the
 * subset is parsed far enough to give a located QD1012 error; after a syntax error the parser
 * skips to the next statement (and its indented block) and goes on, so one run reports several
 * errors. Expression nesting is limited to QDL_MAX_NESTING levels (no stack overflow). */
#include "ast.h"
#include "frontend.h"
#include "lex.h"
#include <string.h>

typedef struct {
    const Source *src;
    Arena *arena;
    Arena *strs; /* names and strings: they outlive the AST nodes (the IR points to them) */
    Token *toks;
    int pos, ntoks;
    int depth;
    bool quiet; /* an error was reported in this statement: stay quiet until resynchronised */
    bool kwstar; /* host_call_stmt: **NAME is a keyword without a name (a dict's items) */
    bool fatal; /* nesting limit hit: unwind without further work */
    bool speculative; /* module level: a statement that does not parse is host code, not an error */
    int hostfn;       /* depth of host function bodies being parsed (their `if` blocks are kept) */
    int star_lambda;  /* depth of lambdas with star parameters (host code: f(**kwargs) is read) */
    int raises;       /* depth of host blocks the script expects to raise (try, with pytest.raises) */
    bool failed;      /* ... and this one did not parse */
    const char *qd_alias; /* the name quadrants was imported as (decorators rooted at it are ours) */
} Parser;

/* ---- token helpers ---- */

static Token *peek(Parser *P) { return &P->toks[P->pos]; }
static Token *peek2(Parser *P) { return &P->toks[P->pos + 1 < P->ntoks ? P->pos + 1 : P->pos]; }
static bool at(Parser *P, TokKind k) { return peek(P)->kind == k; }
static Token *next(Parser *P) {
    Token *t = peek(P);
    if (t->kind != T_EOF) P->pos++;
    return t;
}
static bool accept(Parser *P, TokKind k) { return at(P, k) ? (next(P), true) : false; }
static Span tspan(Parser *P, Token *t) { return span_make(P->src, t->off, t->len); }
static Span prev_span(Parser *P) { return tspan(P, &P->toks[P->pos > 0 ? P->pos - 1 : 0]); }

static void syntax_error(Parser *P, Token *t, DiagCode code, const char *msg) {
    if (P->speculative) P->failed = P->quiet = true;
    if (P->quiet || P->fatal) return;
    P->quiet = true;
    Span sp = tspan(P, t);
    if (t->kind == T_NEWLINE || t->kind == T_EOF || t->kind == T_DEDENT || t->kind == T_INDENT) sp.len = 0;
    diag_error(sp, code, "%s", msg);
}

static void expected(Parser *P, const char *what) {
    Token *t = peek(P);
    if (P->speculative) P->failed = P->quiet = true;
    if (P->quiet || P->fatal) return;
    const char *got = t->kind == T_NAME ? t->s : tok_spelling(t->kind);
    char msg[256];
    snprintf(msg, sizeof msg, "expected %s, got '%s'", what, got);
    syntax_error(P, t, QD1011, msg);
}

static bool expect(Parser *P, TokKind k) {
    if (accept(P, k)) return true;
    /* a ':' missing at the end of a line: insert it after the last token (fix-it) */
    if (k == T_COLON && peek(P)->kind == T_NEWLINE && P->pos > 0 && !P->speculative && !P->quiet && !P->fatal) {
        Span prev = tspan(P, &P->toks[P->pos - 1]);
        diag_fixit(span_make(prev.src, prev.off + prev.len, 0), ":");
    }
    char what[64];
    snprintf(what, sizeof what, "'%s'", tok_spelling(k));
    expected(P, what);
    return false;
}

static Expr *new_expr(Parser *P, ExprKind k, Span sp) {
    Expr *e = ARENA_NEW(P->arena, Expr);
    e->kind = k;
    e->span = sp;
    return e;
}
static Expr *error_expr(Parser *P) { return new_expr(P, E_ERROR, tspan(P, peek(P))); }

typedef VEC(Expr *) ExprVec;
static ExprList freeze_exprs(Parser *P, ExprVec *v) {
    ExprList l = {ARENA_ARRAY(P->arena, Expr *, v->len), v->len};
    if (v->len) memcpy(l.items, v->items, sizeof(Expr *) * (size_t)v->len);
    vec_free(v);
    return l;
}

/* ---- expressions ---- */

static Expr *parse_test(Parser *P);
static Expr *parse_dict(Parser *P, Token *open);
static Expr *parse_factor(Parser *P);
static Expr *parse_binary(Parser *P, int level);
static Expr *parse_comp(Parser *P, Expr *elt, bool gen);
static Expr *parse_lambda(Parser *P);
static Expr *parse_boolop(Parser *P, TokKind op);
_Static_assert((int)T_COUNT < (int)CMP_NOT_IN, "CMP_NOT_IN collides with a token kind");

static bool enter(Parser *P) {
    if (P->fatal) return false;
    if (++P->depth > QDL_MAX_EXPR_DEPTH) {
        diag_error(tspan(P, peek(P)), QD1007, "expression nested too deeply (limit %d levels)", QDL_MAX_EXPR_DEPTH);
        P->fatal = true;
        return false;
    }
    return true;
}
static Expr *leave(Parser *P, Expr *e) {
    P->depth--;
    return e;
}

/* `*a` (an unpacked item of a call, tuple or list) or a test. */
static Expr *parse_star_test(Parser *P) {
    Token *t = peek(P);
    if (!accept(P, T_STAR)) return parse_test(P);
    Expr *a = parse_binary(P, 0);
    Expr *e = new_expr(P, E_STARRED, span_join(tspan(P, t), a->span));
    e->un.a = a;
    return e;
}

/* The targets of a `for` (statement or comprehension) before `in`: one expression, or a tuple
 * of them when separated by commas (`for i, j in ...`). */
static Expr *parse_for_target(Parser *P) {
    Expr *t = parse_binary(P, 0);
    if (!at(P, T_COMMA)) return t;
    ExprVec v = {0};
    vec_push(&v, t);
    while (accept(P, T_COMMA) && !at(P, T_KW_IN)) vec_push(&v, parse_binary(P, 0));
    Expr *tu = new_expr(P, E_TUPLE, span_join(t->span, v.items[v.len - 1]->span));
    tu->list = freeze_exprs(P, &v);
    return tu;
}

/* The `for` clauses of a comprehension after its element: for TARGETS in OR_TEST [if OR_TEST]... */
static Expr *parse_comp(Parser *P, Expr *elt, bool gen) {
    Token *kw = peek(P);
    expect(P, T_KW_FOR);
    Expr *c = new_expr(P, E_COMP, tspan(P, kw));
    c->comp.elt = elt, c->comp.gen = gen;
    c->comp.target = parse_for_target(P);
    expect(P, T_KW_IN);
    c->comp.iter = parse_boolop(P, T_KW_OR);
    ExprVec conds = {0};
    while (!P->quiet && accept(P, T_KW_IF)) vec_push(&conds, parse_boolop(P, T_KW_OR));
    c->comp.conds = freeze_exprs(P, &conds);
    if (!P->quiet && at(P, T_KW_FOR)) c->comp.next = parse_comp(P, elt, gen);
    return c;
}

/* Parenthesised, list or tuple contents up to `close`: returns a tuple/list, or the single
 * expression for `(x)`. */
/* sequence = (test (',' test)* [','])?   up to `close`; no comprehension */
static Expr *parse_sequence(Parser *P, Token *open, TokKind close, ExprKind kind) {
    ExprVec v = {0};
    bool comma = false;
    while (!at(P, close) && !at(P, T_EOF) && !P->quiet) {
        vec_push(&v, parse_star_test(P));
        if (at(P, T_KW_FOR) && v.len == 1 && !comma) {
            Expr *c = parse_comp(P, v.items[0], kind == E_TUPLE);
            vec_free(&v);
            expect(P, close);
            c->span = span_join(tspan(P, open), prev_span(P));
            return c;
        }
        if (at(P, T_KW_FOR)) syntax_error(P, peek(P), QD1012, "a comprehension needs brackets of its own");
        if (at(P, T_WALRUS)) syntax_error(P, peek(P), QD1012, "assignment expressions (:=) are not supported in kernels");
        if (!accept(P, T_COMMA)) break;
        comma = true;
    }
    expect(P, close);
    Span sp = span_join(tspan(P, open), prev_span(P));
    if (kind == E_TUPLE && v.len == 1 && !comma) {
        Expr *e = v.items[0];
        vec_free(&v);
        return e;
    }
    Expr *e = new_expr(P, kind, sp);
    e->list = freeze_exprs(P, &v);
    return e;
}

/* f"..." / rf"...": the prefix before the quote has an f. */
static bool is_fstring(Parser *P, const Token *t) {
    for (const char *c = P->src->text + t->off; *c != '"' && *c != '\''; c++)
        if ((*c | 0x20) == 'f') return true;
    return false;
}

/* atom = NAME | INT | FLOAT | STRING+ | 'True' | 'False' | 'None'
 *      | '(' sequence ')' | '[' sequence ']' | '{' dict '}'
 * (lambda, yield and await are recognised only to be rejected: QD1012) */
static Expr *parse_atom(Parser *P) {
    Token *t = peek(P);
    Expr *e;
    switch (t->kind) {
    case T_NAME: next(P), e = new_expr(P, E_NAME, tspan(P, t)), e->name = t->s; return e;
    case T_INT: next(P), e = new_expr(P, E_INT, tspan(P, t)), e->i = t->i; return e;
    case T_FLOAT: next(P), e = new_expr(P, E_FLOAT, tspan(P, t)), e->f = t->f; return e;
    case T_IMAG: syntax_error(P, t, QD1012, "complex numbers are not supported in kernels (Quadrants has no complex type)"); next(P); return error_expr(P);
    case T_KW_TRUE: case T_KW_FALSE: next(P), e = new_expr(P, E_BOOL, tspan(P, t)), e->b = t->kind == T_KW_TRUE; return e;
    case T_KW_NONE: next(P); return new_expr(P, E_NONE, tspan(P, t));
    case T_STRING: {
        next(P);
        StrBuf b;
        sb_init(&b);
        bool fstr = false;
        for (int k = P->pos - 1; k < P->ntoks && P->toks[k].kind == T_STRING; k++) fstr |= is_fstring(P, &P->toks[k]);
        Token *last = t;
        for (Token *piece = t;; piece = last = next(P)) { /* implicit concatenation */
            bool lit = fstr && !is_fstring(P, piece); /* a plain piece of an f-string: its braces are text */
            for (const char *c = piece->s; *c; c++) {
                if (lit && (*c == '{' || *c == '}')) sb_printf(&b, "%c", *c);
                sb_printf(&b, "%c", *c);
            }
            if (!at(P, T_STRING)) break;
        }
        e = new_expr(P, E_STR, span_join(tspan(P, t), tspan(P, last)));
        e->fstr = fstr;
        e->str = arena_strdup(P->strs, b.data ? b.data : "");
        sb_free(&b);
        return e;
    }
    case T_LPAREN: next(P); return parse_sequence(P, t, T_RPAREN, E_TUPLE);
    case T_LBRACKET: next(P); return parse_sequence(P, t, T_RBRACKET, E_LIST);
    case T_LBRACE: return parse_dict(P, t);
    case T_KW_LAMBDA: return parse_lambda(P);
    case T_DOT: /* `...` (Ellipsis, e.g. a stub body): a value like None */
        if (peek2(P)->kind == T_DOT && P->pos + 2 < P->ntoks && P->toks[P->pos + 2].kind == T_DOT) {
            next(P), next(P);
            Token *last = next(P);
            return new_expr(P, E_NONE, span_join(tspan(P, t), tspan(P, last)));
        }
        expected(P, "an expression");
        return error_expr(P);
    case T_KW_YIELD: syntax_error(P, t, QD1012, "'yield' is not supported in kernels"); return error_expr(P);
    case T_KW_AWAIT: syntax_error(P, t, QD1012, "'await' is not supported in kernels"); return error_expr(P);
    default: expected(P, "an expression"); return error_expr(P);
    }
}

/* {k: v, ...} with any other keys is the call dict([(k, v), ...]), which Python evaluates alike. */
static Expr *parse_pairs_dict(Parser *P, Token *open) {
    next(P);
    Expr *call = new_expr(P, E_CALL, tspan(P, open)), *fn = new_expr(P, E_NAME, tspan(P, open));
    fn->name = "dict";
    call->call.fn = fn;
    ExprVec pairs = {0};
    while (!at(P, T_RBRACE) && !at(P, T_EOF) && !P->quiet) {
        Expr *k = parse_test(P);
        if (!at(P, T_COLON)) {
            syntax_error(P, open, QD1012, "sets and dict comprehensions are not supported in kernels");
            break;
        }
        next(P);
        Expr *pair = new_expr(P, E_TUPLE, k->span);
        Expr **kv = ARENA_ARRAY(P->arena, Expr *, 2);
        kv[0] = k, kv[1] = parse_test(P);
        pair->list = (ExprList){kv, 2};
        pair->span = span_join(k->span, kv[1]->span);
        vec_push(&pairs, pair);
        if (at(P, T_KW_FOR) && pairs.len == 1) { /* {k: v for ...}: Python's dict([(k, v) for ...]), evaluated alike */
            Expr *comp = parse_comp(P, pair, false);
            Token *close = peek(P);
            expect(P, T_RBRACE);
            comp->span = span_join(tspan(P, open), tspan(P, close));
            call->span = comp->span;
            call->call.args.items = ARENA_ARRAY(P->arena, Expr *, 1);
            call->call.args.items[0] = comp, call->call.args.n = 1;
            vec_free(&pairs);
            return call;
        }
        if (at(P, T_KW_FOR)) {
            syntax_error(P, open, QD1012, "sets and dict comprehensions are not supported in kernels");
            break;
        }
        if (!accept(P, T_COMMA)) break;
    }
    Token *close = peek(P);
    expect(P, T_RBRACE);
    Expr *list = new_expr(P, E_LIST, span_join(tspan(P, open), tspan(P, close)));
    list->list = freeze_exprs(P, &pairs);
    call->span = list->span;
    call->call.args.items = ARENA_ARRAY(P->arena, Expr *, 1);
    call->call.args.items[0] = list, call->call.args.n = 1;
    return call;
}

/* {"a": qd.f32, "b": vec3} (string keys only: qd.Struct.field's members) is read as the call
 * dict(a=qd.f32, b=vec3); other keys as dict([(k, v), ...]); a set is QD1012. */
/* dict = '{' (STRING ':' test (',' STRING ':' test)* [','])? '}' */
static Expr *parse_dict(Parser *P, Token *open) {
    if (peek2(P)->kind != T_RBRACE && !(peek2(P)->kind == T_STRING && P->pos + 2 < P->ntoks && P->toks[P->pos + 2].kind == T_COLON))
        return parse_pairs_dict(P, open);
    next(P);
    Expr *call = new_expr(P, E_CALL, tspan(P, open)), *fn = new_expr(P, E_NAME, tspan(P, open));
    fn->name = "dict";
    call->call.fn = fn;
    VEC(Keyword) kws = {0};
    while (!at(P, T_RBRACE) && !at(P, T_EOF) && !P->quiet) {
        Token *k = peek(P);
        if (k->kind != T_STRING || peek2(P)->kind != T_COLON) {
            syntax_error(P, open, QD1012, "sets and dicts are not supported in kernels");
            break;
        }
        next(P), next(P);
        Keyword kw = {k->s, parse_test(P), tspan(P, k)};
        vec_push(&kws, kw);
        if (!accept(P, T_COMMA)) break;
    }
    expect(P, T_RBRACE);
    call->call.nkw = kws.len;
    call->call.kw = ARENA_ARRAY(P->arena, Keyword, kws.len);
    if (kws.len) memcpy(call->call.kw, kws.items, sizeof(Keyword) * (size_t)kws.len);
    vec_free(&kws);
    return call;
}

/* call_args = (arg (',' arg)* [','])? ')'      arg = test | NAME '=' test
 * (positional arguments first; no * or ** unpacking; at most 255) */
static void parse_call_args(Parser *P, Expr *call) {
    ExprVec args = {0};
    VEC(Keyword) kws = {0};
    while (!at(P, T_RPAREN) && !at(P, T_EOF) && !P->quiet) {
        if (at(P, T_POW) && P->star_lambda) { /* lambda *a, **kw: f(*a, **kw): kept unevaluable (E_ERROR) */
            Token *pow = next(P);
            Expr *v = parse_test(P);
            vec_push(&args, new_expr(P, E_ERROR, span_join(tspan(P, pow), v->span)));
            if (!accept(P, T_COMMA)) break;
            continue;
        }
        if (at(P, T_POW)) {
            syntax_error(P, peek(P), QD1012, "keyword argument unpacking (**) is not supported in kernels");
            break;
        }
        if (at(P, T_NAME) && peek2(P)->kind == T_ASSIGN) {
            Token *n = next(P);
            next(P);
            Keyword k = {n->s, parse_test(P), tspan(P, n)};
            vec_push(&kws, k);
        } else {
            if (kws.len) syntax_error(P, peek(P), QD1011, "positional argument follows keyword argument");
            vec_push(&args, parse_star_test(P));
        }
        if (at(P, T_KW_FOR) && args.len == 1 && !kws.len && args.items[0]->kind != E_STARRED) { /* f(x for x in xs) */
            Expr *elt = args.items[0];
            args.items[0] = parse_comp(P, elt, true);
            args.items[0]->span = span_join(elt->span, prev_span(P));
            if (!at(P, T_RPAREN)) syntax_error(P, peek(P), QD1011, "a generator expression must be the only argument unless parenthesized");
        }
        if (at(P, T_KW_FOR)) syntax_error(P, peek(P), QD1011, "a generator expression must be the only argument unless parenthesized");
        if (args.len + kws.len > QDL_MAX_ARGS) {
            syntax_error(P, peek(P), QD1007, "too many arguments in one call (limit 255)");
            break;
        }
        if (!accept(P, T_COMMA)) break;
    }
    expect(P, T_RPAREN);
    call->call.args = freeze_exprs(P, &args);
    call->call.nkw = kws.len;
    call->call.kw = ARENA_ARRAY(P->arena, Keyword, kws.len);
    if (kws.len) memcpy(call->call.kw, kws.items, sizeof(Keyword) * (size_t)kws.len);
    vec_free(&kws);
}

/* A subscript item: a test, or a slice lo:hi[:step] with any part left out. */
static Expr *parse_slice(Parser *P) {
    Token *t = peek(P);
    Expr *lo = at(P, T_COLON) ? NULL : parse_test(P);
    if (!at(P, T_COLON)) return lo;
    Expr *e = new_expr(P, E_SLICE, tspan(P, t));
    e->slice.lo = lo;
    next(P);
    if (!at(P, T_COLON) && !at(P, T_COMMA) && !at(P, T_RBRACKET)) e->slice.hi = parse_test(P);
    if (accept(P, T_COLON) && !at(P, T_COMMA) && !at(P, T_RBRACKET)) e->slice.step = parse_test(P);
    e->span = span_join(tspan(P, t), prev_span(P));
    return e;
}

static Expr *parse_subscript_index(Parser *P, Token *open) {
    ExprVec v = {0};
    bool comma = false;
    while (!at(P, T_RBRACKET) && !at(P, T_EOF) && !P->quiet) {
        vec_push(&v, parse_slice(P));
        if (!accept(P, T_COMMA)) break;
        comma = true;
    }
    if (!v.len) expected(P, "an index");
    expect(P, T_RBRACKET);
    if (v.len == 1 && !comma) {
        Expr *e = v.items[0];
        vec_free(&v);
        return e;
    }
    Expr *t = new_expr(P, E_TUPLE, span_join(tspan(P, open), prev_span(P)));
    t->list = freeze_exprs(P, &v);
    return t;
}

/* Each trailer deepens the (left-leaning) tree, so a chain counts against the nesting limit
 * like a chain of binary operators: later passes recurse once per link. */
/* trailers = ('(' call_args | '[' subscript | '.' NAME)* */
static Expr *parse_trailers(Parser *P, Expr *e) {
    int saved = P->depth;
    for (;;) {
        Token *t = peek(P);
        if (P->quiet || P->fatal) break;
        if ((t->kind == T_LPAREN || t->kind == T_LBRACKET || t->kind == T_DOT) && !enter(P)) break;
        if (accept(P, T_LPAREN)) {
            Expr *c = new_expr(P, E_CALL, e->span);
            c->call.fn = e;
            parse_call_args(P, c);
            c->span = span_join(e->span, prev_span(P));
            e = c;
        } else if (accept(P, T_LBRACKET)) {
            Expr *s = new_expr(P, E_SUBSCRIPT, e->span);
            s->sub.obj = e;
            s->sub.index = parse_subscript_index(P, t);
            s->span = span_join(e->span, prev_span(P));
            e = s;
        } else if (accept(P, T_DOT)) {
            Token *n = peek(P);
            if (!expect(P, T_NAME)) break;
            Expr *a = new_expr(P, E_ATTR, span_join(e->span, tspan(P, n)));
            a->attr.obj = e;
            a->attr.name = n->s;
            e = a;
        } else {
            break;
        }
    }
    P->depth = saved;
    return e;
}

static Expr *make_binary(Parser *P, int op, Expr *a, Expr *b) {
    Expr *e = new_expr(P, E_BINARY, span_join(a->span, b->span));
    e->op = op;
    e->bin.a = a, e->bin.b = b;
    return e;
}

/* power = atom trailers ['**' factor]   (right-associative through factor) */
static Expr *parse_power(Parser *P) {
    Expr *e = parse_trailers(P, parse_atom(P));
    if (accept(P, T_POW)) e = make_binary(P, T_POW, e, parse_factor(P));
    return e;
}

/* factor = ('+' | '-' | '~') factor | power */
static Expr *parse_factor(Parser *P) {
    if (!enter(P)) return error_expr(P);
    Token *t = peek(P);
    if (t->kind == T_MINUS || t->kind == T_PLUS || t->kind == T_TILDE) {
        next(P);
        Expr *a = parse_factor(P);
        Expr *e = new_expr(P, E_UNARY, span_join(tspan(P, t), a->span));
        e->op = t->kind;
        e->un.a = a;
        return leave(P, e);
    }
    return leave(P, parse_power(P));
}

/* Binary precedence levels, loosest first (Python's order from | down to * / // % @). */
static const TokKind levels[][6] = {
    {T_PIPE}, {T_CARET}, {T_AMP}, {T_SHL, T_SHR}, {T_PLUS, T_MINUS},
    {T_STAR, T_SLASH, T_FDIV, T_PERCENT, T_AT},
};

/* binary(level) = binary(level + 1) (op(level) binary(level + 1))*, left-associative;
 * binary(6) = factor. Levels: | ^ & (<< >>) (+ -) (* / // % @) */
static Expr *parse_binary(Parser *P, int level) {
    if (level == (int)ARRAY_LEN(levels)) return parse_factor(P);
    Expr *e = parse_binary(P, level + 1);
    int saved = P->depth; /* each operator of a chain deepens the (left-leaning) tree */
    for (;;) {
        TokKind k = peek(P)->kind;
        bool match = false;
        for (int j = 0; j < 6 && levels[level][j]; j++) match |= levels[level][j] == k;
        if (!match || P->quiet || P->fatal || !enter(P)) break;
        next(P);
        e = make_binary(P, k, e, parse_binary(P, level + 1));
    }
    P->depth = saved;
    return e;
}

static bool comparison_op(Parser *P, int *op) {
    TokKind k = peek(P)->kind;
    if (k == T_LT || k == T_GT || k == T_EQ || k == T_NE || k == T_LE || k == T_GE) {
        next(P);
        return *op = k, true;
    }
    if (k == T_KW_IS) { /* sema: compile-time values only */
        next(P);
        return *op = accept(P, T_KW_NOT) ? T_KW_NOT : T_KW_IS, true;
    }
    if (k == T_KW_IN) return next(P), *op = T_KW_IN, true;
    if (k == T_KW_NOT && peek2(P)->kind == T_KW_IN) return next(P), next(P), *op = CMP_NOT_IN, true;
    return false;
}

/* comparison = binary(0) (comp_op binary(0))*
 * comp_op = '<' | '>' | '==' | '!=' | '<=' | '>=' | (host conditions only) 'is' ['not'] */
static Expr *parse_comparison(Parser *P) {
    Expr *a = parse_binary(P, 0);
    int op;
    if (P->quiet || !comparison_op(P, &op)) return a;
    ExprVec items = {0};
    VEC(int) ops = {0};
    vec_push(&items, a);
    int saved = P->depth;
    do {
        vec_push(&ops, op);
        vec_push(&items, parse_binary(P, 0));
    } while (!P->quiet && enter(P) && comparison_op(P, &op));
    P->depth = saved;
    Expr *e = new_expr(P, E_COMPARE, span_join(a->span, items.items[items.len - 1]->span));
    e->cmp.ops = ARENA_ARRAY(P->arena, int, ops.len);
    memcpy(e->cmp.ops, ops.items, sizeof(int) * (size_t)ops.len);
    vec_free(&ops);
    e->cmp.items = freeze_exprs(P, &items);
    return e;
}

/* not_test = 'not' not_test | comparison */
static Expr *parse_not(Parser *P) {
    if (!enter(P)) return error_expr(P);
    Token *t = peek(P);
    if (accept(P, T_KW_NOT)) {
        Expr *a = parse_not(P);
        Expr *e = new_expr(P, E_UNARY, span_join(tspan(P, t), a->span));
        e->op = T_KW_NOT;
        e->un.a = a;
        return leave(P, e);
    }
    return leave(P, parse_comparison(P));
}

/* or_test = and_test ('or' and_test)*      and_test = not_test ('and' not_test)* */
static Expr *parse_boolop(Parser *P, TokKind op) {
    Expr *a = op == T_KW_OR ? parse_boolop(P, T_KW_AND) : parse_not(P);
    if (!at(P, op) || P->quiet) return a;
    ExprVec items = {0};
    vec_push(&items, a);
    int saved = P->depth;
    while (!P->quiet && enter(P) && accept(P, op)) vec_push(&items, op == T_KW_OR ? parse_boolop(P, T_KW_AND) : parse_not(P));
    P->depth = saved;
    Expr *e = new_expr(P, E_BOOLOP, span_join(a->span, items.items[items.len - 1]->span));
    e->op = op;
    e->list = freeze_exprs(P, &items);
    return e;
}

/* lambda a, b=1: body, as the def `<lambda>(a, b=1): return body` (sema inlines it like a
 * qd.func, in the scope where the lambda is evaluated). */
static Expr *parse_lambda(Parser *P) {
    Token *kw = next(P);
    VEC(Param) v = {0};
    while (!at(P, T_COLON) && !at(P, T_EOF) && !P->quiet) {
        if (at(P, T_SLASH)) {
            syntax_error(P, peek(P), QD1012, "'/' parameters are not supported in kernels");
            break;
        }
        const char *star = accept(P, T_STAR) ? "*" : accept(P, T_POW) ? "**" : ""; /* host code: a call from a kernel is QD1012 */
        Token *n = peek(P);
        if (!expect(P, T_NAME)) break;
        Param p = {*star ? arena_printf(P->strs, "%s%s", star, n->s) : n->s, NULL, NULL, tspan(P, n)};
        if (accept(P, T_ASSIGN)) p.dflt = parse_test(P);
        vec_push(&v, p);
        if (!accept(P, T_COMMA)) break;
    }
    expect(P, T_COLON);
    bool star = false;
    for (int k = 0; k < v.len; k++) star |= v.items[k].name[0] == '*';
    P->star_lambda += star;
    Expr *body = parse_test(P);
    P->star_lambda -= star;
    Stmt *def = ARENA_NEW(P->arena, Stmt), *ret = ARENA_NEW(P->arena, Stmt);
    def->kind = S_DEF, def->span = span_join(tspan(P, kw), body->span);
    def->def.name = "<lambda>", def->def.name_span = tspan(P, kw);
    def->def.params = ARENA_ARRAY(P->arena, Param, v.len);
    if (v.len) memcpy(def->def.params, v.items, sizeof(Param) * (size_t)v.len);
    def->def.nparams = v.len;
    vec_free(&v);
    ret->kind = S_RETURN, ret->span = body->span, ret->expr = body;
    def->def.body.stmts = ARENA_ARRAY(P->arena, Stmt *, 1);
    def->def.body.stmts[0] = ret, def->def.body.n = 1;
    Expr *e = new_expr(P, E_LAMBDA, def->span);
    e->lambda = def;
    return e;
}

static Expr *parse_test(Parser *P) {
    if (!enter(P)) return error_expr(P);
    if (at(P, T_KW_LAMBDA)) return leave(P, parse_atom(P));
    Expr *a = parse_boolop(P, T_KW_OR);
    if (!P->quiet && accept(P, T_KW_IF)) {
        Expr *c = parse_boolop(P, T_KW_OR);
        expect(P, T_KW_ELSE);
        Expr *b = parse_test(P);
        Expr *e = new_expr(P, E_IFEXP, span_join(a->span, b->span));
        e->ifexp.cond = c, e->ifexp.a = a, e->ifexp.b = b;
        a = e;
    }
    /* NAME := value in a kernel or qd.func (Quadrants' build_NamedExpr: an assignment whose value
     * is the expression's); in host code it stays Python that qdc does not evaluate */
    if (at(P, T_WALRUS) && (P->speculative || a->kind != E_NAME)) {
        syntax_error(P, peek(P), QD1012, P->speculative ? "assignment expressions (:=) are not supported in host code qdc evaluates"
                                                        : "the target of an assignment expression (:=) must be a name");
    } else if (at(P, T_WALRUS)) {
        next(P);
        Expr *v = parse_test(P);
        Expr *e = new_expr(P, E_NAMED, span_join(a->span, v->span));
        e->bin.a = a, e->bin.b = v;
        a = e;
    }
    return leave(P, a);
}

/* testlist = test (',' test)* [','] -- a tuple when there is a comma. */
static Expr *parse_testlist(Parser *P) {
    Expr *a = parse_test(P);
    if (!at(P, T_COMMA)) return a;
    ExprVec v = {0};
    vec_push(&v, a);
    while (accept(P, T_COMMA)) {
        TokKind k = peek(P)->kind;
        if (k == T_NEWLINE || k == T_ASSIGN || k == T_SEMI || k == T_COLON || k == T_RPAREN || k == T_KW_IN) break;
        vec_push(&v, parse_test(P));
    }
    Expr *t = new_expr(P, E_TUPLE, span_join(a->span, v.items[v.len - 1]->span));
    t->list = freeze_exprs(P, &v);
    return t;
}

/* ---- statements ---- */

static Stmt *new_stmt(Parser *P, StmtKind k, Span sp) {
    Stmt *s = ARENA_NEW(P->arena, Stmt);
    s->kind = k;
    s->span = sp;
    return s;
}

typedef VEC(Stmt *) StmtVec;
static void parse_stmt(Parser *P, StmtVec *out);

/* Skips the rest of a broken statement and any indented block that belongs to it. */
static void resync(Parser *P) {
    while (!at(P, T_NEWLINE) && !at(P, T_EOF)) next(P);
    accept(P, T_NEWLINE);
    if (at(P, T_INDENT)) {
        int depth = 0;
        do {
            if (at(P, T_INDENT)) depth++;
            else if (at(P, T_DEDENT)) depth--;
            next(P);
        } while (depth > 0 && !at(P, T_EOF));
    }
    P->quiet = false;
}

/* block = ':' (small_stmt (';' small_stmt)* NEWLINE | NEWLINE INDENT stmt+ DEDENT) */
static StmtList parse_block(Parser *P) {
    StmtVec v = {0};
    StmtList l = {0};
    if (!expect(P, T_COLON)) return l;
    if (!accept(P, T_NEWLINE)) {
        parse_stmt(P, &v);
    } else if (!at(P, T_INDENT)) {
        syntax_error(P, peek(P), QD1005, "expected an indented block");
    } else {
        next(P);
        while (!at(P, T_DEDENT) && !at(P, T_EOF) && !P->fatal) parse_stmt(P, &v);
        accept(P, T_DEDENT);
    }
    l.stmts = ARENA_ARRAY(P->arena, Stmt *, v.len);
    if (v.len) memcpy(l.stmts, v.items, sizeof(Stmt *) * (size_t)v.len);
    l.n = v.len;
    vec_free(&v);
    return l;
}

/* A clause Python allows here that the kernel language rejects: report and skip it. */
static void reject_clause(Parser *P, const char *msg) {
    syntax_error(P, peek(P), QD1012, msg);
    P->quiet = false;
    next(P);
    while (!at(P, T_COLON) && !at(P, T_NEWLINE) && !at(P, T_EOF)) next(P);
    bool q = P->quiet;
    P->quiet = true; /* nothing inside a rejected clause is worth reporting */
    parse_block(P);
    P->quiet = q;
}

/* if_stmt = 'if' test block ('elif' test block)* ['else' block]   (elif nests as else: if) */
static Stmt *parse_if(Parser *P, Token *kw) {
    Stmt *s = new_stmt(P, S_IF, tspan(P, kw));
    s->if_.cond = parse_test(P);
    s->if_.then = parse_block(P);
    Token *t = peek(P);
    if (accept(P, T_KW_ELIF)) {
        Stmt *e = parse_if(P, t);
        s->if_.els.stmts = ARENA_ARRAY(P->arena, Stmt *, 1);
        s->if_.els.stmts[0] = e;
        s->if_.els.n = 1;
    } else if (accept(P, T_KW_ELSE)) {
        s->if_.els = parse_block(P);
    }
    return s;
}

/* while_stmt = 'while' test block
 * for_stmt   = 'for' binary(0) (',' binary(0))* 'in' testlist block
 * (an 'else' clause on either is rejected: QD1012) */
static Stmt *parse_loop(Parser *P, Token *kw) {
    Stmt *s;
    if (kw->kind == T_KW_WHILE) {
        s = new_stmt(P, S_WHILE, tspan(P, kw));
        s->while_.cond = parse_test(P);
        s->while_.body = parse_block(P);
    } else {
        s = new_stmt(P, S_FOR, tspan(P, kw));
        s->for_.target = parse_for_target(P);
        expect(P, T_KW_IN);
        s->for_.iter = parse_testlist(P);
        s->for_.body = parse_block(P);
    }
    if (at(P, T_KW_ELSE)) reject_clause(P, kw->kind == T_KW_WHILE ? "'while ... else' is not supported in kernels"
                                                                  : "'for ... else' is not supported in kernels");
    return s;
}

/* params = '(' (param (',' param)* [','])? ')'     param = NAME [':' test] ['=' test]
 * A host function's may have a bare '*': the parameters after it are keyword-only. */
static void parse_params(Parser *P, Stmt *s, bool host) {
    VEC(Param) v = {0};
    expect(P, T_LPAREN);
    while (!at(P, T_RPAREN) && !at(P, T_EOF) && !P->quiet) {
        if (host && !s->def.kwonly && at(P, T_STAR) && peek2(P)->kind == T_COMMA) {
            next(P), next(P);
            s->def.kwonly = v.len + 1;
            continue;
        }
        if (at(P, T_STAR) || at(P, T_POW) || at(P, T_SLASH)) {
            syntax_error(P, peek(P), QD1012, "'*', '**' and '/' parameters are not supported in kernels");
            break;
        }
        Token *n = peek(P);
        if (!expect(P, T_NAME)) break;
        Param p = {n->s, NULL, NULL, tspan(P, n)};
        if (accept(P, T_COLON)) p.annotation = parse_test(P);
        if (accept(P, T_ASSIGN)) p.dflt = parse_test(P);
        vec_push(&v, p);
        if (!accept(P, T_COMMA)) break;
    }
    expect(P, T_RPAREN);
    s->def.params = ARENA_ARRAY(P->arena, Param, v.len);
    if (v.len) memcpy(s->def.params, v.items, sizeof(Param) * (size_t)v.len);
    s->def.nparams = v.len;
    vec_free(&v);
}

/* funcdef = 'def' NAME params ['->' test] block */
static Stmt *parse_def(Parser *P, Token *kw, ExprList decorators) {
    Stmt *s = new_stmt(P, S_DEF, tspan(P, kw));
    s->def.decorators = decorators;
    Token *n = peek(P);
    if (!expect(P, T_NAME)) return s;
    s->def.name = n->s;
    s->def.name_span = tspan(P, n);
    parse_params(P, s, false);
    if (accept(P, T_ARROW)) s->def.returns = parse_test(P);
    s->def.body = parse_block(P);
    return s;
}

/* decorated = ('@' test NEWLINE)+ funcdef */
static Stmt *parse_decorated(Parser *P) {
    ExprVec v = {0};
    while (at(P, T_AT) && !P->quiet) {
        next(P);
        vec_push(&v, parse_test(P));
        expect(P, T_NEWLINE);
    }
    ExprList decos = freeze_exprs(P, &v);
    Token *kw = peek(P);
    if (P->quiet) return NULL;
    if (accept(P, T_KW_DEF)) return parse_def(P, kw, decos);
    if (at(P, T_KW_CLASS)) syntax_error(P, kw, QD1012, "classes (including @qd.data_oriented) are not supported in v1");
    else expected(P, "'def' after a decorator");
    return NULL;
}

/* import_stmt = 'import' NAME ('.' NAME)* ['as' NAME]   (one module per statement) */
static Stmt *parse_import(Parser *P, Token *kw) {
    Stmt *s = new_stmt(P, S_IMPORT, tspan(P, kw));
    Token *n = peek(P);
    if (!expect(P, T_NAME)) return s;
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, n->s);
    while (accept(P, T_DOT)) {
        Token *m = peek(P);
        if (!expect(P, T_NAME)) break;
        sb_printf(&b, ".%s", m->s);
    }
    s->import.module = arena_strdup(P->strs, b.data);
    sb_free(&b);
    if (accept(P, T_KW_AS)) {
        Token *a = peek(P);
        if (expect(P, T_NAME)) s->import.alias = a->s;
    }
    if (!strcmp(s->import.module, "quadrants")) P->qd_alias = s->import.alias ? s->import.alias : "quadrants";
    if (at(P, T_COMMA)) syntax_error(P, peek(P), QD2003, "import one module per statement");
    s->span = span_join(s->span, prev_span(P));
    return s;
}

static int aug_binop(TokKind k) {
    switch (k) {
    case T_POWASSIGN: return T_POW;
    case T_FDIVASSIGN: return T_FDIV;
    case T_SHLASSIGN: return T_SHL;
    case T_SHRASSIGN: return T_SHR;
    case T_ADDASSIGN: return T_PLUS;
    case T_SUBASSIGN: return T_MINUS;
    case T_MULASSIGN: return T_STAR;
    case T_DIVASSIGN: return T_SLASH;
    case T_MODASSIGN: return T_PERCENT;
    case T_ANDASSIGN: return T_AMP;
    case T_ORASSIGN: return T_PIPE;
    case T_XORASSIGN: return T_CARET;
    default: return T_AT;
    }
}
static bool is_augassign(TokKind k) { return aug_binop(k) != T_AT || k == T_MATMULASSIGN; }

static bool valid_target(Expr *e) {
    if (e->kind == E_TUPLE || e->kind == E_LIST) {
        for (int k = 0; k < e->list.n; k++)
            if (!valid_target(e->list.items[k]) || e->list.items[k]->kind == E_TUPLE) return false;
        return e->list.n > 0;
    }
    return e->kind == E_NAME || e->kind == E_SUBSCRIPT || e->kind == E_ATTR || e->kind == E_ERROR;
}

/* expr_stmt = testlist ('=' testlist)*            assignment (targets: valid_target)
 *           | test ':' test ['=' testlist]         annotated assignment
 *           | test augassign testlist             augassign = '+=' | '-=' | ... | '**='
 *           | testlist                            expression statement */
static Stmt *parse_expr_stmt(Parser *P) {
    Token *first = peek(P);
    Expr *e = parse_testlist(P);
    TokKind k = peek(P)->kind;
    if (P->quiet) return NULL;
    if (k == T_ASSIGN) {
        ExprVec targets = {0};
        Expr *value = e;
        while (accept(P, T_ASSIGN)) {
            if (!valid_target(value)) {
                if (!P->speculative) diag_error(value->span, QD1013, "cannot assign to this expression");
                P->quiet = true, P->failed = P->speculative;
            }
            vec_push(&targets, value);
            value = parse_testlist(P);
        }
        Stmt *s = new_stmt(P, S_ASSIGN, span_join(tspan(P, first), value->span));
        s->assign.targets = freeze_exprs(P, &targets);
        s->assign.value = value;
        return s;
    }
    if (k == T_COLON) {
        next(P);
        if (e->kind != E_NAME && e->kind != E_SUBSCRIPT) syntax_error(P, first, QD1013, "only a name can be annotated");
        Stmt *s = new_stmt(P, S_ANNASSIGN, e->span);
        s->ann.target = e;
        s->ann.annotation = parse_test(P);
        if (accept(P, T_ASSIGN)) s->ann.value = parse_testlist(P);
        s->span = span_join(s->span, prev_span(P));
        return s;
    }
    if (is_augassign(k)) {
        Token *op = next(P);
        if (k == T_MATMULASSIGN) syntax_error(P, op, QD1012, "'@=' is not supported in v1 (no matrix types)");
        if (e->kind != E_NAME && e->kind != E_SUBSCRIPT && e->kind != E_ATTR)
            syntax_error(P, first, QD1013, "invalid target for augmented assignment");
        Stmt *s = new_stmt(P, S_AUGASSIGN, tspan(P, op));
        s->aug.target = e;
        s->aug.op = aug_binop(k);
        s->aug.value = parse_testlist(P);
        return s;
    }
    Stmt *s = new_stmt(P, S_EXPR, e->span);
    s->expr = e;
    return s;
}

static const struct { TokKind kw; const char *msg; } rejected[] = {
    {T_KW_TRY, "'try' statements are not supported in kernels"},
    {T_KW_CLASS, "classes are not supported in kernels"},
    {T_KW_RAISE, "'raise' is not supported in kernels (Unsupported node \"Raise\")"},
    {T_KW_DEL, "'del' is not supported in kernels"},
    {T_KW_GLOBAL, "'global' is not supported in kernels"},
    {T_KW_NONLOCAL, "'nonlocal' is not supported in kernels"},
    {T_KW_ASYNC, "'async' is not supported in kernels"},
    {T_KW_FROM, "'from ... import' is not supported; write 'import quadrants as qd'"},
    {T_KW_EXCEPT, "'except' without 'try'"},
    {T_KW_FINALLY, "'finally' without 'try'"},
};

/* small_stmt = 'pass' | 'break' | 'continue' | 'return' [testlist] | import_stmt
 *            | 'assert' test [',' test] | expr_stmt
 * (try, class, raise, del, global, nonlocal, async, from-import: rejected[]) */
static Stmt *parse_small(Parser *P) {
    Token *t = peek(P);
    for (size_t k = 0; k < ARRAY_LEN(rejected); k++)
        if (t->kind == rejected[k].kw) {
            syntax_error(P, t, rejected[k].kw == T_KW_FROM ? QD2003 : QD1012, rejected[k].msg);
            return NULL;
        }
    switch (t->kind) {
    case T_KW_PASS: next(P); return new_stmt(P, S_PASS, tspan(P, t));
    case T_KW_BREAK: next(P); return new_stmt(P, S_BREAK, tspan(P, t));
    case T_KW_CONTINUE: next(P); return new_stmt(P, S_CONTINUE, tspan(P, t));
    case T_KW_RETURN: {
        next(P);
        Stmt *s = new_stmt(P, S_RETURN, tspan(P, t));
        if (!at(P, T_NEWLINE) && !at(P, T_SEMI)) s->expr = parse_testlist(P);
        return s;
    }
    case T_KW_IMPORT: next(P); return parse_import(P, t);
    case T_KW_ASSERT: { /* assert_stmt: 'assert' test [',' test] */
        next(P);
        Stmt *s = new_stmt(P, S_ASSERT, tspan(P, t));
        s->assert_.cond = parse_test(P);
        if (accept(P, T_COMMA)) s->assert_.msg = parse_test(P);
        return s;
    }
    default: return parse_expr_stmt(P);
    }
}

/* with_stmt = 'with' test ['as' binary(0)] (',' test ['as' binary(0)])* block
 * In a kernel the block runs once where it stands: an S_IF whose condition is True, the first
 * context expression in if_.with; sema_graph.c accepts Quadrants' forms (qd.stream_parallel(),
 * qd.graph.parallel_context(), qd.graph.parallel()) and rejects the others with Quadrants' message. */
static Stmt *parse_with(Parser *P, Token *kw) {
    Stmt *s = new_stmt(P, S_IF, tspan(P, kw));
    s->if_.cond = new_expr(P, E_BOOL, tspan(P, kw));
    s->if_.cond->b = true;
    do {
        Expr *e = parse_test(P);
        if (!s->if_.with_items++) s->if_.with = e;
        if (accept(P, T_KW_AS)) s->if_.with_as = true, parse_binary(P, 0);
    } while (accept(P, T_COMMA));
    s->if_.then = parse_block(P);
    return s;
}

/* stmt = if_stmt | while_stmt | for_stmt | with_stmt | funcdef | decorated
 *      | small_stmt (';' small_stmt)* [';'] NEWLINE */
static void parse_stmt(Parser *P, StmtVec *out) {
    Token *t = peek(P);
    Stmt *s = NULL;
    if (P->fatal) {
        next(P);
        return;
    }
    switch (t->kind) {
    case T_INDENT: syntax_error(P, t, QD1005, "unexpected indent"); break;
    case T_KW_IF: next(P); s = parse_if(P, t); break;
    case T_KW_WITH: next(P); s = parse_with(P, t); break;
    case T_KW_WHILE: case T_KW_FOR: next(P); s = parse_loop(P, t); break;
    case T_KW_DEF: next(P); s = parse_def(P, t, (ExprList){0}); break;
    case T_AT: s = parse_decorated(P); break;
    case T_KW_ELSE: case T_KW_ELIF: syntax_error(P, t, QD1011, "'else' or 'elif' without a matching 'if'"); break;
    default:
        for (;;) {
            Stmt *one = parse_small(P);
            if (one && !P->quiet) vec_push(out, one);
            if (P->quiet || !accept(P, T_SEMI) || at(P, T_NEWLINE)) break;
        }
        if (!P->quiet && !at(P, T_EOF)) expect(P, T_NEWLINE);
        if (P->quiet) resync(P);
        while (t->kind == T_KW_TRY && (at(P, T_KW_EXCEPT) || at(P, T_KW_FINALLY) || at(P, T_KW_ELSE)))
            resync(P); /* the rest of a rejected try statement */
        return;
    }
    if (s && !P->quiet) vec_push(out, s);
    if (P->quiet) resync(P);
}

/* ---- module level of a whole Quadrants script ----
 * A script mixes kernel code with host code (imports of other modules, helper functions,
 * classes, `if __name__ == "__main__":`, calls). Each top-level statement is classified by
 * its first tokens: definitions decorated from the quadrants namespace, `import quadrants`
 * and simple statements that parse in the kernel grammar are kept (sema evaluates only the
 * values kernels use); everything else is host code: skipped, its bound names recorded so a
 * kernel that uses one gets a located error (QD2062) instead of "undefined name". */

/* Skips one logical line and the indented block that follows it. */
static void skip_line_and_block(Parser *P) {
    while (!at(P, T_NEWLINE) && !at(P, T_EOF)) next(P);
    accept(P, T_NEWLINE);
    if (!at(P, T_INDENT)) return;
    int depth = 0;
    do {
        if (at(P, T_INDENT)) depth++;
        else if (at(P, T_DEDENT)) depth--;
        next(P);
    } while (depth > 0 && !at(P, T_EOF));
}

static bool continues_compound(Parser *P) {
    TokKind k = peek(P)->kind;
    return k == T_KW_ELIF || k == T_KW_ELSE || k == T_KW_EXCEPT || k == T_KW_FINALLY;
}

/* Names host code binds at module scope: at statement starts, NAME = / NAME, / NAME:, def NAME,
 * class NAME, import X [as Y], for NAME in; inside if/for/while/try/with blocks too (they are
 * module scope in Python), not inside def or class bodies. */
static void host_names(Parser *P, int from, int to, ExprVec *out) {
    int depth = 0, body = -1; /* body: depth of the def/class whose body is being skipped */
    bool start = true;
    for (int i = from; i < to; i++) {
        Token *t = &P->toks[i], *n = &P->toks[i + 1 < P->ntoks ? i + 1 : i];
        if (t->kind == T_INDENT) depth++;
        if (t->kind == T_DEDENT && --depth <= body) body = -1;
        bool here = start && (body < 0 || depth <= body);
        start = t->kind == T_NEWLINE || t->kind == T_INDENT || t->kind == T_DEDENT || t->kind == T_SEMI;
        if (!here || t->kind == T_INDENT || t->kind == T_DEDENT) continue;
        if ((t->kind == T_KW_DEF || t->kind == T_KW_CLASS) && n->kind == T_NAME) {
            t = n, body = depth;
        } else if (t->kind == T_KW_FOR && n->kind == T_NAME) {
            t = n;
        } else if (t->kind == T_KW_IMPORT && n->kind == T_NAME) {
            int j = i + 1;
            while (j + 2 < to && P->toks[j + 1].kind == T_DOT) j += 2;
            t = j + 2 < to && P->toks[j + 1].kind == T_KW_AS ? &P->toks[j + 2] : n;
            if (t->kind != T_NAME) continue; /* 'import m as <not a name>': nothing bound */
        } else if (t->kind != T_NAME || (n->kind != T_ASSIGN && n->kind != T_COMMA && n->kind != T_COLON)) {
            continue;
        }
        Expr *e = new_expr(P, E_NAME, tspan(P, t));
        e->name = t->s;
        vec_push(out, e);
    }
}

static void host_stmt(Parser *P, int from, const char *what, StmtVec *out) {
    while (continues_compound(P)) skip_line_and_block(P); /* elif/else/except/finally clauses */
    ExprVec names = {0};
    host_names(P, from, P->pos, &names);
    Stmt *s = new_stmt(P, S_HOST, span_join(tspan(P, &P->toks[from]), tspan(P, &P->toks[from])));
    s->host.names = freeze_exprs(P, &names);
    s->host.what = what;
    vec_push(out, s);
}

/* Decorators rooted at the quadrants alias (@qd.kernel, @qd.func(...), @qd.data_oriented). */
static bool qd_decorated(Parser *P) {
    for (int i = P->pos; i + 1 < P->ntoks && P->toks[i].kind == T_AT; ) {
        Token *n = &P->toks[i + 1];
        bool ad = i + 3 < P->ntoks && P->toks[i + 2].kind == T_DOT && P->toks[i + 3].kind == T_NAME && !strcmp(P->toks[i + 3].s, "ad");
        if (n->kind == T_NAME && P->qd_alias && !strcmp(n->s, P->qd_alias) && !ad) return true; /* @qd.ad.grad_replaced: a host function */
        while (i < P->ntoks && P->toks[i].kind != T_NEWLINE && P->toks[i].kind != T_EOF) i++;
        i++;
    }
    return false;
}

static void module_stmt(Parser *P, StmtVec *out);

/* The token after the decorator lines that start at P->pos. */
static int after_decorators(Parser *P) {
    int i = P->pos;
    while (i < P->ntoks && P->toks[i].kind == T_AT) {
        while (i < P->ntoks && P->toks[i].kind != T_NEWLINE && P->toks[i].kind != T_EOF) i++;
        i++;
    }
    return i < P->ntoks ? i : P->ntoks - 1;
}

/* NEWLINE INDENT stmt+ DEDENT, each statement classified as at module level. */
static StmtList host_block(Parser *P) {
    StmtVec v = {0};
    next(P); /* INDENT */
    while (!at(P, T_DEDENT) && !at(P, T_EOF) && !P->fatal) {
        if (accept(P, T_NEWLINE)) continue;
        module_stmt(P, &v);
    }
    accept(P, T_DEDENT);
    StmtList l = {ARENA_ARRAY(P->arena, Stmt *, v.len), v.len};
    if (v.len) memcpy(l.stmts, v.items, sizeof(Stmt *) * (size_t)v.len);
    vec_free(&v);
    return l;
}

/* A host function (a def not decorated from the quadrants namespace; other decorators are
 * skipped): its header parsed speculatively, its body like module level (sema evaluates it in a
 * nested scope and compiles the kernels it defines). False, with nothing consumed, when the
 * header is outside the grammar (*args, a one-line body ...): the caller skips it as host code. */
/* One argument of a host decorator call that does not parse in the kernel grammar (a lambda, a
 * dict): an E_ERROR spanning it; the tokens up to the next ',' or ')' at its depth are skipped. */
static Expr *skip_host_arg(Parser *P) {
    Token *first = peek(P), *last = first;
    for (int depth = 0; !at(P, T_EOF) && !at(P, T_NEWLINE); last = next(P)) {
        TokKind k = peek(P)->kind;
        if (depth == 0 && (k == T_COMMA || k == T_RPAREN)) break;
        depth += k == T_LPAREN || k == T_LBRACKET || k == T_LBRACE ? 1 : k == T_RPAREN || k == T_RBRACKET || k == T_RBRACE ? -1 : 0;
    }
    return new_expr(P, E_ERROR, span_join(tspan(P, first), tspan(P, last)));
}

/* A decorator NAME.NAME...(args) whose arguments do not all parse: each one that does not is an
 * E_ERROR, so sema still sees the others (the names and values of a parametrize whose ids= is a
 * lambda). NULL when the decorator is not of that shape. */
static Expr *host_decorator_call(Parser *P) {
    Token *t = peek(P);
    if (!accept(P, T_NAME)) return NULL;
    Expr *fn = new_expr(P, E_NAME, tspan(P, t));
    fn->name = t->s;
    while (at(P, T_DOT) && peek2(P)->kind == T_NAME) {
        next(P);
        Token *n = next(P);
        Expr *a = new_expr(P, E_ATTR, span_join(fn->span, tspan(P, n)));
        a->attr.obj = fn, a->attr.name = n->s, fn = a;
    }
    if (!accept(P, T_LPAREN)) return NULL;
    ExprVec args = {0};
    VEC(Keyword) kws = {0};
    while (!at(P, T_RPAREN) && !at(P, T_EOF) && !at(P, T_NEWLINE)) {
        Token *name = NULL;
        if (at(P, T_NAME) && peek2(P)->kind == T_ASSIGN) name = next(P), next(P);
        if (!name && P->kwstar && fn->kind == E_NAME && at(P, T_POW) && peek2(P)->kind == T_NAME && P->pos + 2 < P->ntoks &&
            (P->toks[P->pos + 2].kind == T_COMMA || P->toks[P->pos + 2].kind == T_RPAREN)) { /* **d: a keyword without a name */
            Token *pow = next(P), *n = next(P);
            Expr *d = new_expr(P, E_NAME, tspan(P, n));
            d->name = n->s;
            Keyword k = {NULL, d, span_join(tspan(P, pow), tspan(P, n))};
            vec_push(&kws, k);
            if (!accept(P, T_COMMA)) break;
            continue;
        }
        int start = P->pos;
        P->speculative = true, P->failed = false;
        Expr *e = parse_test(P);
        if (!P->failed && !at(P, T_COMMA) && !at(P, T_RPAREN)) P->failed = true;
        P->speculative = false;
        if (P->failed) P->pos = start, e = skip_host_arg(P);
        P->failed = P->quiet = false;
        if (name) {
            Keyword k = {name->s, e, tspan(P, name)};
            vec_push(&kws, k);
        } else {
            vec_push(&args, e);
        }
        if (!accept(P, T_COMMA)) break;
    }
    Expr *call = new_expr(P, E_CALL, span_join(fn->span, prev_span(P)));
    call->call.fn = fn, call->call.args = freeze_exprs(P, &args);
    call->call.nkw = kws.len;
    call->call.kw = ARENA_ARRAY(P->arena, Keyword, kws.len);
    if (kws.len) memcpy(call->call.kw, kws.items, sizeof(Keyword) * (size_t)kws.len);
    vec_free(&kws);
    return call;
}

/* The decorators of a host function, kept for sema (pytest.mark.parametrize, sema_param.c).
 * One that does not parse in the kernel grammar is kept as a call whose unparsable arguments
 * are E_ERROR (host_decorator_call), or dropped when it is not a call of a dotted name. */
static ExprList host_decorators(Parser *P) {
    ExprVec v = {0};
    while (at(P, T_AT)) {
        next(P);
        int start = P->pos;
        P->speculative = true, P->failed = false;
        Expr *e = parse_test(P);
        if (!P->failed) expect(P, T_NEWLINE);
        P->speculative = false;
        if (P->failed) {
            P->pos = start, P->failed = P->quiet = false;
            e = host_decorator_call(P);
            while (!at(P, T_NEWLINE) && !at(P, T_EOF)) next(P);
            accept(P, T_NEWLINE);
        }
        P->failed = P->quiet = false;
        if (e) vec_push(&v, e);
    }
    return freeze_exprs(P, &v);
}

static bool host_def(Parser *P, StmtVec *out) {
    int from = P->pos;
    ExprList decorators = host_decorators(P);
    Token *kw = peek(P);
    if (!accept(P, T_KW_DEF)) return P->pos = from, false;
    P->speculative = true, P->failed = false;
    Stmt *s = new_stmt(P, S_DEF, tspan(P, kw));
    Token *n = peek(P);
    if (expect(P, T_NAME)) {
        s->def.name = n->s, s->def.name_span = tspan(P, n);
        parse_params(P, s, true);
        if (!P->failed && accept(P, T_ARROW)) s->def.returns = parse_test(P);
        if (!P->failed) expect(P, T_COLON);
        if (!P->failed) expect(P, T_NEWLINE);
        if (!P->failed) expect(P, T_INDENT), P->pos--;
    }
    P->speculative = false;
    bool ok = !P->failed;
    P->failed = P->quiet = false;
    if (!ok) return P->pos = from, false;
    s->def.host = true;
    s->def.decorators = decorators;
    P->hostfn++;
    s->def.body = host_block(P);
    P->hostfn--;
    vec_push(out, s);
    return true;
}

/* @dataclass, @dataclass(...), @dataclasses.dataclass[(...)] at token i (Python's dataclasses). */
static bool py_dataclass_decorator(const Parser *P, int i) {
    const Token *t = &P->toks[i];
    if (t[0].kind != T_AT || t[1].kind != T_NAME) return false;
    if (!strcmp(t[1].s, "dataclass")) return t[2].kind == T_NEWLINE || t[2].kind == T_LPAREN;
    return !strcmp(t[1].s, "dataclasses") && t[2].kind == T_DOT && t[3].kind == T_NAME && !strcmp(t[3].s, "dataclass");
}

/* `@NAME` or `@a.b.NAME` alone above a class, at token i (the decorator line ends before cls):
 * an alias sema resolves (Genesis' `DATA_ORIENTED = partial(dataclasses.dataclass, frozen=True)
 * if gs.use_ndarray else qd.data_oriented`), as an E_NAME/E_ATTR; NULL for another shape. */
static const Expr *decorator_alias(Parser *P, int i, int cls) {
    const Token *t = P->toks;
    if (t[i].kind != T_AT || t[i + 1].kind != T_NAME) return NULL;
    int k = i + 2;
    while (k + 1 < cls && t[k].kind == T_DOT && t[k + 1].kind == T_NAME) k += 2;
    if (k + 1 != cls || t[k].kind != T_NEWLINE) return NULL;
    Expr *e = new_expr(P, E_NAME, tspan(P, &P->toks[i + 1]));
    e->name = t[i + 1].s;
    for (int j = i + 3; j < k; j += 2) {
        Expr *a = new_expr(P, E_ATTR, span_join(e->span, tspan(P, &P->toks[j])));
        a->attr.obj = e, a->attr.name = t[j].s, e = a;
    }
    return e;
}

/* @qd.data_oriented, @qd.dataclass or @dataclasses.dataclass class NAME[(bases)], or one
 * decorated by an alias sema resolves (decorator_alias): its body is parsed like a host
 * function's. */
static bool data_oriented_class(Parser *P, StmtVec *out) {
    int from = P->pos, cls = after_decorators(P);
    bool marked = false, dataclass = false, py_dataclass = false, lifted = false;
    const Expr *alias = NULL;
    for (int i = from; i + 2 < cls; i++) {
        if (P->toks[i].kind == T_NAME && !strcmp(P->toks[i].s, "template_primitives") && P->toks[i + 1].kind == T_ASSIGN &&
            P->toks[i + 2].kind == T_KW_FALSE)
            lifted = true; /* @qd.data_oriented(template_primitives=False) */
        if (i + 3 < cls && P->toks[i].kind == T_AT && P->toks[i + 1].kind == T_NAME && P->qd_alias && !strcmp(P->toks[i + 1].s, P->qd_alias) &&
            P->toks[i + 2].kind == T_DOT && P->toks[i + 3].kind == T_NAME &&
            (!strcmp(P->toks[i + 3].s, "data_oriented") || !strcmp(P->toks[i + 3].s, "dataclass")))
            marked = true, dataclass = !strcmp(P->toks[i + 3].s, "dataclass");
        if (py_dataclass_decorator(P, i)) marked = py_dataclass = true;
    }
    if (!marked && P->toks[cls].kind == T_KW_CLASS && (alias = decorator_alias(P, from, cls))) marked = true;
    if (!marked || P->toks[cls].kind != T_KW_CLASS || P->toks[cls + 1].kind != T_NAME) return false;
    P->pos = cls + 2;
    if (accept(P, T_LPAREN)) {
        for (int depth = 1; depth > 0 && !at(P, T_EOF) && !at(P, T_NEWLINE); next(P))
            depth += at(P, T_LPAREN) ? 1 : at(P, T_RPAREN) ? -1 : 0;
    }
    if (!accept(P, T_COLON) || !accept(P, T_NEWLINE) || !at(P, T_INDENT)) return P->pos = from, false;
    Stmt *s = new_stmt(P, S_CLASS, tspan(P, &P->toks[cls]));
    s->class_.name = P->toks[cls + 1].s, s->class_.name_span = tspan(P, &P->toks[cls + 1]);
    s->class_.dataclass = dataclass && !py_dataclass, s->class_.py_dataclass = py_dataclass;
    s->class_.deco = alias, s->class_.lifted = lifted && !dataclass && !py_dataclass;
    s->class_.body = host_block(P);
    vec_push(out, s);
    return true;
}

/* class NAME(IntEnum): / (IntFlag) / (enum.IntEnum): Python's int enumerations, kept (their
 * members are int constants a kernel may use, sema_class.c); any other plain class is host code. */
static bool int_enum_class(Parser *P, StmtVec *out) {
    int c = P->pos, i = c + 3;
    if (i + 6 >= P->ntoks || P->toks[c + 1].kind != T_NAME || P->toks[c + 2].kind != T_LPAREN) return false;
    if (P->toks[i].kind == T_NAME && P->toks[i + 1].kind == T_DOT) i += 2;
    const Token *base = &P->toks[i];
    if (base->kind != T_NAME || (strcmp(base->s, "IntEnum") && strcmp(base->s, "IntFlag"))) return false;
    if (P->toks[i + 1].kind != T_RPAREN || P->toks[i + 2].kind != T_COLON || P->toks[i + 3].kind != T_NEWLINE ||
        P->toks[i + 4].kind != T_INDENT)
        return false;
    Stmt *s = new_stmt(P, S_CLASS, tspan(P, &P->toks[c]));
    s->class_.name = P->toks[c + 1].s, s->class_.name_span = tspan(P, &P->toks[c + 1]);
    s->class_.int_enum = true, s->class_.int_flag = !strcmp(base->s, "IntFlag");
    P->pos = i + 4;
    s->class_.body = host_block(P);
    vec_push(out, s);
    return true;
}

/* class NAME: / class NAME(): / class NAME(object): / class NAME(BASE): an undecorated Python
 * class whose body is parsed like a host function's; the evaluator runs its instances, methods,
 * properties (frontend/py/sema_class.c). A dotted base (class F(torch.autograd.Function)) is kept
 * as written, "torch.autograd.Function". Another header (several bases, keywords) stays host code. */
static bool plain_class(Parser *P, StmtVec *out) {
    int c = P->pos, i = c + 2;
    if (i + 2 >= P->ntoks || P->toks[c + 1].kind != T_NAME) return false;
    Token *base = NULL;
    const char *dotted = NULL;
    if (P->toks[i].kind == T_LPAREN) {
        int j = i + 1;
        while (j + 2 < P->ntoks && P->toks[j].kind == T_NAME && P->toks[j + 1].kind == T_DOT) j += 2;
        if (j > i + 1 && j + 1 < P->ntoks && P->toks[j].kind == T_NAME && P->toks[j + 1].kind == T_RPAREN) { /* a.b.C */
            StrBuf b;
            sb_init(&b);
            for (int k = i + 1; k <= j; k += 2) sb_printf(&b, "%s%s", k > i + 1 ? "." : "", P->toks[k].s);
            dotted = arena_strdup(P->strs, b.data), base = &P->toks[i + 1], i = j + 2;
            sb_free(&b);
        } else if (P->toks[i + 1].kind == T_NAME && P->toks[i + 2].kind == T_RPAREN) base = &P->toks[i + 1], i += 3;
        else if (P->toks[i + 1].kind == T_RPAREN) i += 2;
        else return false;
    }
    if (i + 2 >= P->ntoks || P->toks[i].kind != T_COLON || P->toks[i + 1].kind != T_NEWLINE || P->toks[i + 2].kind != T_INDENT) return false;
    Stmt *s = new_stmt(P, S_CLASS, tspan(P, &P->toks[c]));
    s->class_.name = P->toks[c + 1].s, s->class_.name_span = tspan(P, &P->toks[c + 1]);
    s->class_.plain = true;
    if (base && (dotted || strcmp(base->s, "object"))) s->class_.base = dotted ? dotted : base->s, s->class_.base_span = tspan(P, base);
    P->pos = i + 2;
    s->class_.body = host_block(P);
    vec_push(out, s);
    return true;
}

/* `raise EXPR` in host code outside a try block: an S_ASSERT without a condition, which the
 * evaluator reports when it runs it (frontend/py/sema_lang.c); a bare `raise`, `raise X from Y`
 * or an EXPR outside the grammar stays host code. */
static bool host_raise(Parser *P, StmtVec *out) {
    int from = P->pos;
    Token *kw = next(P);
    if (at(P, T_NEWLINE)) return P->pos = from, false;
    P->speculative = true, P->failed = false;
    Stmt *s = new_stmt(P, S_ASSERT, tspan(P, kw));
    s->assert_.msg = parse_test(P);
    bool ok = !P->failed && at(P, T_NEWLINE);
    P->speculative = false, P->failed = P->quiet = false;
    if (!ok) return P->pos = from, false;
    vec_push(out, s);
    return true;
}

/* `from quadrants[.sub...] import NAME [as ALIAS], ...` (module level): one S_IMPORT per name,
 * module "quadrants.sub.NAME" bound to ALIAS (or NAME); sema maps it into the qd namespace
 * (`from quadrants.lang.simt import subgroup` binds subgroup to qd.simt.subgroup). */
static void parse_from_quadrants(Parser *P, StmtVec *out) {
    Token *kw = next(P);
    StrBuf mod;
    sb_init(&mod);
    do {
        Token *m = peek(P);
        if (!expect(P, T_NAME)) break;
        sb_printf(&mod, "%s%s", mod.len ? "." : "", m->s);
    } while (accept(P, T_DOT));
    bool paren = expect(P, T_KW_IMPORT) && accept(P, T_LPAREN);
    do {
        Token *n = peek(P);
        if (paren && at(P, T_RPAREN)) break;
        if (!expect(P, T_NAME)) break;
        Stmt *s = new_stmt(P, S_IMPORT, tspan(P, kw));
        s->import.module = arena_printf(P->strs, "%s.%s", mod.data, n->s);
        s->import.alias = n->s;
        if (accept(P, T_KW_AS)) {
            Token *a = peek(P);
            if (expect(P, T_NAME)) s->import.alias = a->s;
        }
        vec_push(out, s);
    } while (accept(P, T_COMMA));
    if (paren) expect(P, T_RPAREN);
    sb_free(&mod);
    accept(P, T_NEWLINE);
}

/* A program's own imports (frontend/module.c), one S_IMPORT (user) per name bound:
 *   import a.b [as c], d       from [.]*[a.b] import x [as y], (z, w)       from a import *
 * `import a.b` binds a (alias), `import a.b as c` binds c; a from-import binds each name. */
static void parse_user_import(Parser *P, StmtVec *out) {
    Token *kw = next(P);
    bool from = kw->kind == T_KW_FROM;
    int level = 0;
    while (from && at(P, T_DOT)) next(P), level++;
    StrBuf mod;
    sb_init(&mod);
    Span first = tspan(P, peek(P));
    while (!from || !at(P, T_KW_IMPORT)) {
        Token *m = peek(P);
        if (!mod.len) first = tspan(P, m);
        if (!expect(P, T_NAME)) break;
        sb_printf(&mod, "%s%s", mod.len ? "." : "", m->s);
        if (!accept(P, T_DOT)) {
            if (!from && accept(P, T_KW_AS)) {
                Token *a = peek(P);
                if (!expect(P, T_NAME)) break;
                Stmt *s = new_stmt(P, S_IMPORT, span_join(tspan(P, kw), prev_span(P)));
                s->import.module = arena_strdup(P->strs, mod.data), s->import.alias = a->s, s->import.user = true;
                s->import.bound = tspan(P, a);
                vec_push(out, s);
            } else if (!from) {
                Stmt *s = new_stmt(P, S_IMPORT, span_join(tspan(P, kw), prev_span(P)));
                s->import.module = arena_strdup(P->strs, mod.data), s->import.user = true;
                s->import.alias = arena_strndup(P->strs, mod.data, strcspn(mod.data, "."));
                s->import.bound = first;
                vec_push(out, s);
            }
            if (from || !accept(P, T_COMMA)) break;
            sb_free(&mod), sb_init(&mod);
        }
    }
    if (from && expect(P, T_KW_IMPORT)) {
        bool paren = accept(P, T_LPAREN);
        do {
            Token *n = peek(P);
            if (paren && at(P, T_RPAREN)) break;
            Stmt *s = new_stmt(P, S_IMPORT, tspan(P, kw));
            s->import.module = arena_strdup(P->strs, mod.len ? mod.data : ""), s->import.level = level, s->import.user = true;
            if (!paren && accept(P, T_STAR)) {
                s->import.star = true, s->span = span_join(s->span, prev_span(P));
                vec_push(out, s);
                break;
            }
            if (!expect(P, T_NAME)) break;
            s->import.name = s->import.alias = n->s, s->import.bound = tspan(P, n);
            if (accept(P, T_KW_AS)) {
                Token *a = peek(P);
                if (expect(P, T_NAME)) s->import.alias = a->s, s->import.bound = tspan(P, a);
            }
            s->span = span_join(s->span, prev_span(P));
            vec_push(out, s);
        } while (accept(P, T_COMMA));
        if (paren) expect(P, T_RPAREN);
    }
    sb_free(&mod);
    if (!at(P, T_EOF)) expect(P, T_NEWLINE);
}

/* `KEYWORD TEST: NEWLINE INDENT` of a host compound statement, at P->pos on the keyword, read
 * speculatively: its test, with *kw the keyword, or NULL with nothing consumed when it is outside
 * the grammar. */
static Expr *host_header(Parser *P, Token **kw) {
    int from = P->pos;
    *kw = next(P);
    P->speculative = true, P->failed = false;
    Expr *cond = parse_test(P);
    if (!P->failed) expect(P, T_COLON);
    if (!P->failed) expect(P, T_NEWLINE);
    if (!P->failed && !at(P, T_INDENT)) P->failed = true;
    P->speculative = false;
    bool ok = !P->failed;
    P->failed = P->quiet = false;
    if (!ok) P->pos = from;
    return ok ? cond : NULL;
}

/* `if TEST:` / `elif TEST:` with its block, at P->pos on the keyword: the header speculatively
 * (false, nothing consumed, when it is outside the grammar), the block like module level. */
static bool host_if_clause(Parser *P, Stmt **out) {
    Token *kw;
    Expr *cond = host_header(P, &kw);
    if (!cond) return false;
    Stmt *s = new_stmt(P, S_IF, tspan(P, kw));
    s->if_.cond = cond;
    s->if_.then = host_block(P);
    *out = s;
    return true;
}

/* An `if` statement in a host function's body (sema evaluates the branch a compile-time
 * condition takes, sema_param.c): each clause's block is read like module level; a clause
 * whose header is outside the grammar ends the chain as host code. */
static bool host_if(Parser *P, StmtVec *out) {
    int from = P->pos;
    Stmt *first;
    if (!host_if_clause(P, &first)) return false;
    for (Stmt *last = first;;) {
        Stmt *next_if;
        if (at(P, T_KW_ELIF) && host_if_clause(P, &next_if)) {
            last->if_.els = (StmtList){ARENA_ARRAY(P->arena, Stmt *, 1), 1};
            last->if_.els.stmts[0] = next_if, last = next_if;
            continue;
        }
        if (at(P, T_KW_ELSE) && peek2(P)->kind == T_COLON && P->toks[P->pos + 2].kind == T_NEWLINE &&
            P->toks[P->pos + 3].kind == T_INDENT) {
            P->pos += 3;
            last->if_.els = host_block(P);
        } else if (continues_compound(P)) { /* an elif outside the grammar: the rest is host code */
            StmtVec v = {0};
            host_stmt(P, P->pos, "set by host code", &v);
            last->if_.els = (StmtList){ARENA_ARRAY(P->arena, Stmt *, 1), 1};
            last->if_.els.stmts[0] = v.items[0];
            vec_free(&v);
        }
        break;
    }
    (void)from;
    vec_push(out, first);
    return true;
}

/* `for TARGET in ITER:` with its block in a host function's body (sema unrolls it when it
 * knows the values, sema_param.c): the header speculatively (false, nothing consumed, when it
 * is outside the grammar), the block like module level; an `else:` clause is host code. */
static bool host_for(Parser *P, StmtVec *out) {
    int from = P->pos;
    Token *kw = next(P);
    P->speculative = true, P->failed = false;
    Expr *t = parse_binary(P, 0);
    if (!P->failed && at(P, T_COMMA)) {
        ExprVec v = {0};
        vec_push(&v, t);
        while (!P->failed && accept(P, T_COMMA) && !at(P, T_KW_IN)) vec_push(&v, parse_binary(P, 0));
        Expr *tu = new_expr(P, E_TUPLE, span_join(t->span, v.items[v.len - 1]->span));
        tu->list = freeze_exprs(P, &v);
        t = tu;
    }
    Expr *iter = NULL;
    if (!P->failed) expect(P, T_KW_IN);
    if (!P->failed) iter = parse_testlist(P);
    if (!P->failed) expect(P, T_COLON);
    if (!P->failed) expect(P, T_NEWLINE);
    if (!P->failed && !at(P, T_INDENT)) P->failed = true;
    P->speculative = false;
    bool ok = !P->failed;
    P->failed = P->quiet = false;
    if (!ok) return P->pos = from, false;
    Stmt *s = new_stmt(P, S_FOR, tspan(P, kw));
    s->for_.target = t, s->for_.iter = iter;
    s->for_.body = host_block(P);
    vec_push(out, s);
    if (at(P, T_KW_ELSE)) host_stmt(P, P->pos, "set by host code", out);
    return true;
}

/* `while TEST:` with its block in host code (sema evaluates it while it knows the condition,
 * sema_param.c): the header speculatively (false, nothing consumed, when it is outside the
 * grammar), the block like module level; an `else:` clause is host code. */
static bool host_while(Parser *P, StmtVec *out) {
    Token *kw;
    Expr *cond = host_header(P, &kw);
    if (!cond) return false;
    Stmt *s = new_stmt(P, S_WHILE, tspan(P, kw));
    s->while_.cond = cond;
    s->while_.body = host_block(P);
    vec_push(out, s);
    if (at(P, T_KW_ELSE)) host_stmt(P, P->pos, "set by host code", out);
    return true;
}

/* `with ITEMS:` and `try:` at module level or in a host function's body: the block runs once, so it is read like
 * the rest of the body (an S_IF whose condition is True; `raises` for a try block and for
 * `with pytest.raises(...)`, whose code the script expects to fail); names bound by `as NAME`
 * and by the except/else/finally clauses are host code. False, nothing consumed, for a
 * one-line block. */
static bool host_once(Parser *P, StmtVec *out) {
    int from = P->pos, i = from + 1, depth = 0;
    bool raises = P->toks[from].kind == T_KW_TRY, tape = false, fwd = false, validate = false;
    int loss_at = -1; /* the token starting the Tape's loss argument (loss=X, or its first positional argument) */
    ExprVec names = {0};
    for (; i + 2 < P->ntoks; i++) {
        TokKind k = P->toks[i].kind;
        if (k == T_NEWLINE || k == T_EOF) break;
        depth += k == T_LPAREN || k == T_LBRACKET || k == T_LBRACE ? 1 : k == T_RPAREN || k == T_RBRACKET || k == T_RBRACE ? -1 : 0;
        if (depth == 0 && k == T_KW_AS && P->toks[i + 1].kind == T_NAME) {
            Expr *e = new_expr(P, E_NAME, tspan(P, &P->toks[i + 1]));
            e->name = P->toks[i + 1].s;
            vec_push(&names, e);
        }
        if (depth == 0 && k == T_COLON) break;
        raises |= k == T_NAME && !strcmp(P->toks[i].s, "raises") && P->toks[i + 1].kind == T_LPAREN;
        if (P->toks[from].kind == T_KW_WITH && k == T_NAME && !strcmp(P->toks[i].s, "Tape") && P->toks[i + 1].kind == T_LPAREN && !tape) {
            tape = true;
            bool kw = P->toks[i + 2].kind == T_NAME && P->toks[i + 3].kind == T_ASSIGN;
            if (!kw && P->toks[i + 2].kind != T_RPAREN) loss_at = i + 2; /* qd.ad.Tape(loss, ...) */
            for (int j = i + 2, d = 1; kw && j + 2 < P->ntoks && d > 0 && P->toks[j].kind != T_NEWLINE; j++) {
                TokKind kj = P->toks[j].kind;
                d += kj == T_LPAREN || kj == T_LBRACKET || kj == T_LBRACE ? 1 : kj == T_RPAREN || kj == T_RBRACKET || kj == T_RBRACE ? -1 : 0;
                if (d == 1 && kj == T_NAME && !strcmp(P->toks[j].s, "loss") && P->toks[j + 1].kind == T_ASSIGN &&
                    (P->toks[j - 1].kind == T_LPAREN || P->toks[j - 1].kind == T_COMMA))
                    loss_at = j + 2;
            }
        }
        fwd |= P->toks[from].kind == T_KW_WITH && k == T_NAME && !strcmp(P->toks[i].s, "FwdMode") && P->toks[i + 1].kind == T_LPAREN;
        validate |= k == T_NAME && !strcmp(P->toks[i].s, "validation") && P->toks[i + 1].kind == T_ASSIGN && P->toks[i + 2].kind == T_KW_TRUE; /* qd.ad.Tape(..., validation=True) */
    }
    if (P->toks[i].kind != T_COLON || P->toks[i + 1].kind != T_NEWLINE || P->toks[i + 2].kind != T_INDENT) {
        vec_free(&names);
        return false;
    }
    Token *kw = &P->toks[from];
    if (names.len) {
        Stmt *h = new_stmt(P, S_HOST, tspan(P, kw));
        h->host.names = freeze_exprs(P, &names);
        h->host.what = "bound by a with statement";
        vec_push(out, h);
    }
    vec_free(&names);
    Expr *loss = NULL;
    if (loss_at >= 0) { /* kept for Quadrants' checks of the loss as the Tape is entered (sema_ad.c) */
        P->pos = loss_at;
        P->speculative = true, P->failed = false;
        loss = parse_binary(P, 0);
        if (P->failed || (!at(P, T_COMMA) && !at(P, T_RPAREN))) loss = NULL;
        P->speculative = false, P->failed = P->quiet = false;
    }
    P->pos = i + 2;
    Stmt *s = new_stmt(P, S_IF, tspan(P, kw));
    s->if_.loss = loss;
    s->if_.cond = new_expr(P, E_BOOL, tspan(P, kw));
    s->if_.cond->b = true;
    s->if_.raises = raises, s->if_.tape = tape, s->if_.fwd = fwd, s->if_.validate = tape && validate;
    P->raises += raises;
    s->if_.then = host_block(P);
    P->raises -= raises;
    vec_push(out, s);
    if (continues_compound(P)) host_stmt(P, P->pos, "set by host code", out);
    return true;
}

/* `f(args...)` or `a.b.f(args...)` as a statement whose arguments do not all parse (a lambda):
 * kept as a call whose unparsable arguments are E_ERROR, so a call of a helper host function
 * still binds the others (sema_helper_call). False, nothing consumed, for any other shape. */
static bool host_call_stmt(Parser *P, StmtVec *out) {
    int from = P->pos;
    P->kwstar = true; /* f(**d), f a name: the helper call binds d's items (sema_helper_call) */
    Expr *e = at(P, T_NAME) ? host_decorator_call(P) : NULL;
    P->kwstar = false;
    if (!e || !accept(P, T_RPAREN) || !at(P, T_NEWLINE)) return P->pos = from, P->failed = P->quiet = false, false;
    next(P);
    Stmt *s = new_stmt(P, S_EXPR, e->span);
    s->expr = e;
    vec_push(out, s);
    return true;
}

/* A top-level statement (or one in a host function's body): parsed as kernel-language code, a
 * host function or data-oriented class, or recorded as host code. */
static void module_stmt(Parser *P, StmtVec *out) {
    int from = P->pos;
    TokKind k = peek(P)->kind;
    const char *what = NULL;
    if (k == T_KW_FROM && peek2(P)->kind == T_NAME && !strcmp(peek2(P)->s, "quadrants")) return parse_from_quadrants(P, out);
    if (k == T_KW_FROM || (k == T_KW_IMPORT && !(peek2(P)->kind == T_NAME && (!strcmp(peek2(P)->s, "quadrants") ||
                                                                             !strcmp(peek2(P)->s, "math")))))
        return parse_user_import(P, out); /* the program's modules (frontend/module.c) */
    if (k == T_AT && data_oriented_class(P, out)) return;
    if (k == T_KW_CLASS && int_enum_class(P, out)) return;
    if (k == T_KW_CLASS && !P->raises && plain_class(P, out)) return;
    if (k == T_KW_RAISE && !P->raises && host_raise(P, out)) return;
    if ((k == T_KW_DEF || (k == T_AT && !qd_decorated(P))) && host_def(P, out)) return;
    if (k == T_KW_IF && host_if(P, out)) return;
    if (k == T_KW_FOR && host_for(P, out)) return;
    if (k == T_KW_WHILE && host_while(P, out)) return;
    if ((k == T_KW_WITH || k == T_KW_TRY) && host_once(P, out)) return;
    if (k == T_AT && !qd_decorated(P)) what = "a decorated Python definition";
    else if (k == T_AT && P->raises) what = "defined in a block the script expects to raise (try, with pytest.raises), not compiled";
    else if (k == T_KW_DEF) what = "a Python function (not a qd.func)";
    else if (k == T_KW_CLASS) what = "a Python class";
    else if (k == T_KW_IF || k == T_KW_WHILE || k == T_KW_FOR || k == T_KW_TRY || k == T_KW_WITH || k == T_KW_ASYNC)
        what = "set by host code";
    if (what) {
        if (k == T_AT) while (at(P, T_AT)) skip_line_and_block(P);
        skip_line_and_block(P);
        return host_stmt(P, from, what, out);
    }
    if (k == T_AT || k == T_KW_IMPORT) return parse_stmt(P, out);
    int before = out->len;
    P->speculative = true, P->failed = false;
    parse_stmt(P, out);
    P->speculative = false;
    if (!P->failed) return;
    out->len = before; /* a simple statement outside the kernel grammar (lambda, dict, f(*a) ...) */
    P->pos = from, P->quiet = false;
    if (host_call_stmt(P, out)) return;
    skip_line_and_block(P);
    host_stmt(P, from, "set by host code", out);
}

AstModule *frontend_parse(const Source *src, Arena *arena) { return frontend_parse_split(src, arena, arena); }

AstModule *frontend_parse_split(const Source *src, Arena *arena, Arena *strs) {
    TokenList tl;
    int errors = diag_error_count();
    /* after a lexical error the parser would mostly report its consequences: stop here */
    if (!lex_source_owned(src, strs, &tl) || diag_error_count() > errors) return free(tl.toks), NULL;
    Parser P = {.src = src, .arena = arena, .strs = strs, .toks = tl.toks, .ntoks = tl.n};
    StmtVec v = {0};
    while (!at(&P, T_EOF) && !P.fatal) {
        if (accept(&P, T_NEWLINE) || accept(&P, T_DEDENT)) continue;
        module_stmt(&P, &v);
    }
    AstModule *m = ARENA_NEW(arena, AstModule);
    m->src = src;
    m->body.stmts = ARENA_ARRAY(arena, Stmt *, v.len);
    if (v.len) memcpy(m->body.stmts, v.items, sizeof(Stmt *) * (size_t)v.len);
    m->body.n = v.len;
    vec_free(&v);
    free(tl.toks); /* the AST keeps no token */
    return P.fatal ? NULL : m;
}

/* One {expression} field of an f-string (print, sema_format.c), at [off, off + len) of src: a
 * copy of the source with everything else blanked (newlines kept, so diagnostics keep their
 * line and column) and the field's delimiters made parentheses, parsed as one expression.
 * *owned: that copy, which the caller frees after the diagnostics are out. NULL after an
 * error. */
Expr *frontend_parse_field(const Source *src, Arena *arena, uint32_t off, uint32_t len, Source **owned) {
    *owned = NULL;
    if (off < 1 || (size_t)off + len >= src->len) return NULL;
    char *text = xmalloc(src->len + 1);
    for (size_t k = 0; k < src->len; k++) text[k] = src->text[k] == '\n' ? '\n' : ' ';
    memcpy(text + off, src->text + off, len);
    text[off - 1] = '(', text[off + len] = ')', text[src->len] = 0;
    Source *fs = *owned = source_new(src->name, text, src->len);
    free(text);
    TokenList tl;
    int errors = diag_error_count();
    if (!lex_source_owned(fs, arena, &tl) || diag_error_count() > errors) return free(tl.toks), NULL;
    Parser P = {.src = fs, .arena = arena, .strs = arena, .toks = tl.toks, .ntoks = tl.n};
    while (at(&P, T_INDENT) || at(&P, T_NEWLINE)) next(&P);
    Expr *e = parse_test(&P);
    while (at(&P, T_NEWLINE) || at(&P, T_DEDENT)) next(&P);
    if (!at(&P, T_EOF)) expected(&P, "the end of the f-string field");
    free(tl.toks);
    return diag_error_count() > errors || P.fatal ? NULL : e;
}

/* ---- questions on the tree ---- */

bool ast_stmt_may_return(const Stmt *s) {
    switch (s->kind) {
    case S_RETURN: return true;
    case S_IF: return ast_may_return(&s->if_.then) || ast_may_return(&s->if_.els);
    case S_WHILE: return ast_may_return(&s->while_.body);
    case S_FOR: return ast_may_return(&s->for_.body);
    default: return false;
    }
}

bool ast_may_return(const StmtList *l) {
    for (int k = 0; k < l->n; k++)
        if (ast_stmt_may_return(l->stmts[k])) return true;
    return false;
}
