/* The language server (`qdc --lsp`, man/qdc-lsp.1): JSON-RPC 2.0 over standard input and
 * output with LSP 3.17's Content-Length framing. Standard output carries nothing but frames;
 * anything else goes to standard error.
 *
 * Diagnostics: each open document is checked by a qdc child process (this executable, with an
 * argv, never a shell): `--check --report-lowering=json --diagnostics-format=json` plus the
 * configured flags, on a private copy of the text named as the document (--input-name, so its
 * imports resolve as a compile of the file would). A child that crashes or hangs costs a
 * diagnostic, never the server. Its JSON-lines diagnostics become publishDiagnostics (notes:
 * relatedInformation); its lowering report answers hover on an atomic. Go-to-definition parses
 * the text in process (diagnostics quiet) and resolves a name through the enclosing functions
 * and the module; a name an import binds, and its attributes, into the imported module's file
 * (found by frontend/module.c's module_locate on qdc's search path). */
#include "lsp.h"
#include "../frontend/ast.h"
#include "../frontend/frontend.h"
#include "../support/fileio.h"
#include "../support/json.h"
#include "lsp_json.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { /* JSON-RPC and LSP error codes */
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    LSP_SERVER_NOT_INITIALIZED = -32002,
};
#define LSP_MAX_MESSAGE (64u << 20) /* a larger frame is skipped */
#define LSP_CHECK_SECONDS 60        /* a check running longer is killed */

typedef VEC(char *) Args;

typedef struct Doc {
    char *uri;
    char *path; /* the file the URI names (file: URIs), else NULL */
    char *text;
    size_t len;
    char *report; /* the last lowering report (JSON lines) of a check that got that far */
    StrBuf refused; /* "off len message\n" of the last check's QD4xxx errors in this document */
} Doc;

typedef struct Lsp {
    VEC(Doc *) docs;
    Args flags; /* the command line's, then the client's (initializationOptions) */
    bool utf8;         /* positionEncoding utf-8 (else UTF-16, LSP's default) */
    bool initialized, shutdown;
    char *tmp;  /* private directory for the checked copies */
    char exe[PATH_MAX];
    const char *version;
} Lsp;

/* ---- framing ---- */

static void send_frame(const char *body, size_t n) {
    printf("Content-Length: %zu\r\n\r\n", n);
    fwrite(body, 1, n, stdout);
    fflush(stdout);
}

static void send_buf(StrBuf *b) { send_frame(b->data ? b->data : "", b->len); }

/* The raw id as it came (number or string; JSON null when absent). */
static void put_id(StrBuf *b, const JsonVal *id) {
    if (id && id->kind == JV_STR) json_str(b, id->str);
    else if (id && id->kind == JV_NUM && id->num == (double)(long long)id->num) sb_printf(b, "%lld", (long long)id->num);
    else if (id && id->kind == JV_NUM) sb_printf(b, "%.17g", id->num);
    else sb_puts(b, "null");
}

static void reply(const JsonVal *id, const char *result) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":"), put_id(&b, id), sb_printf(&b, ",\"result\":%s}", result);
    send_buf(&b), sb_free(&b);
}

static void reply_error(const JsonVal *id, int code, const char *message) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":"), put_id(&b, id);
    sb_printf(&b, ",\"error\":{\"code\":%d,\"message\":", code), json_str(&b, message), sb_puts(&b, "}}");
    send_buf(&b), sb_free(&b);
}

/* Reads one frame's body; NULL at end of input. A frame without Content-Length, or one too
 * large, is reported on stderr and skipped (*body_len = SIZE_MAX, returns ""). */
static char *read_frame(size_t *body_len) {
    char line[1024];
    size_t n = SIZE_MAX;
    bool any = false;
    for (;;) {
        if (!fgets(line, sizeof line, stdin)) return NULL;
        any = true;
        if (!strcmp(line, "\r\n") || !strcmp(line, "\n")) break;
        if (!strncasecmp(line, "Content-Length:", 15)) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(line + 15, &end, 10);
            n = errno || end == line + 15 ? SIZE_MAX : (size_t)v;
        }
    }
    (void)any;
    if (n == SIZE_MAX || n > LSP_MAX_MESSAGE) {
        fprintf(stderr, "qdc --lsp: a message without a valid Content-Length header (at most %u bytes) is skipped\n",
                LSP_MAX_MESSAGE);
        if (n != SIZE_MAX) /* skip its body */
            for (size_t k = 0; k < n && fgetc(stdin) != EOF; k++) continue;
        *body_len = SIZE_MAX;
        return xstrdup("");
    }
    char *body = xmalloc(n + 1);
    size_t got = fread(body, 1, n, stdin);
    body[got] = 0;
    if (got != n) return free(body), NULL;
    *body_len = n;
    return body;
}

/* ---- positions: LSP's (line, character) in UTF-16 code units or bytes ---- */

static size_t line_start(const char *t, size_t len, long line) {
    size_t off = 0;
    for (long l = 0; l < line && off < len; off++)
        if (t[off] == '\n') l++;
    return line <= 0 ? 0 : off;
}

static size_t pos_to_offset(const Lsp *L, const Doc *d, long line, long ch) {
    size_t off = line_start(d->text, d->len, line);
    if (line > 0 && off == 0) return d->len; /* past the last line (a one-line file has line 0 only) */
    for (long c = 0; off < d->len && d->text[off] != '\n' && c < ch;) {
        unsigned char b = (unsigned char)d->text[off];
        int n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
        c += L->utf8 ? n : n == 4 ? 2 : 1;
        off += (size_t)n;
    }
    return off > d->len ? d->len : off;
}

static void offset_to_pos(const Lsp *L, const char *t, size_t len, size_t off, long *line, long *ch) {
    if (off > len) off = len;
    long l = 0, c = 0;
    for (size_t i = 0; i < off; i++) {
        unsigned char b = (unsigned char)t[i];
        if (b == '\n') l++, c = 0;
        else if (L->utf8) c++;
        else if ((b & 0xC0) != 0x80) c += b >= 0xF0 ? 2 : 1;
    }
    *line = l, *ch = c;
}

static void put_range(const Lsp *L, StrBuf *b, const Doc *d, size_t off, size_t n) {
    long l0, c0, l1, c1;
    offset_to_pos(L, d->text, d->len, off, &l0, &c0);
    offset_to_pos(L, d->text, d->len, off + n, &l1, &c1);
    sb_printf(b, "{\"start\":{\"line\":%ld,\"character\":%ld},\"end\":{\"line\":%ld,\"character\":%ld}}", l0, c0, l1, c1);
}

/* ---- documents ---- */

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The path of a file: URI (percent-decoded), or NULL. */
static char *uri_path(const char *uri) {
    if (strncmp(uri, "file://", 7)) return NULL;
    const char *p = uri + 7;
    if (*p != '/') { /* file://host/path: only an empty or local host */
        if (strncmp(p, "localhost/", 10)) return NULL;
        p += 9;
    }
    StrBuf b;
    sb_init(&b);
    for (; *p; p++) {
        int h, l;
        if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
            char c = (char)(h * 16 + l);
            if (!c) return sb_free(&b), NULL;
            sb_putc(&b, c), p += 2;
        } else sb_putc(&b, *p);
    }
    return sb_take(&b);
}

static Doc *find_doc(Lsp *L, const char *uri) {
    for (int i = 0; uri && i < L->docs.len; i++)
        if (!strcmp(L->docs.items[i]->uri, uri)) return L->docs.items[i];
    return NULL;
}

static void doc_free(Doc *d) {
    free(d->uri), free(d->path), free(d->text), free(d->report), sb_free(&d->refused), free(d);
}

/* ---- configuration: the project's .qdc-lsp ---- */

/* The nearest .qdc-lsp in the document's directory or above; NULL if none. */
static char *find_config(const char *path) {
    if (!path) return NULL;
    char *dir = xstrdup(path);
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash) break;
        *slash = 0;
        char *cand = xasprintf("%s/.qdc-lsp", *dir ? dir : "");
        if (access(cand, R_OK) == 0) return free(dir), cand;
        free(cand);
    }
    free(dir);
    return NULL;
}

/* Appends the flags of a .qdc-lsp: one argument a line, as it is (no quoting); empty lines and
 * lines starting with '#' are skipped. */
static void config_flags(const char *file, Args *argv) {
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    if (read_file(file, 1 << 20, &text, &len, &err) != READ_OK) return;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *end = nl ? nl : text + len;
        size_t n = (size_t)(end - p);
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
        while (n && (*p == ' ' || *p == '\t')) p++, n--;
        if (n && *p != '#') vec_push(argv, xstrndup(p, n));
        p = end + 1;
    }
    free(text);
}

/* ---- running a check ---- */

typedef struct Run {
    int status; /* exit status, or 128 + signal */
    char *out, *err;
    size_t out_len, err_len;
} Run;

/* Runs argv in cwd with stdin from /dev/null and stdout/stderr into files of the private
 * directory; false when it cannot start. */
static bool run_child(Lsp *L, char **argv, const char *cwd, Run *r) {
    char *out = xasprintf("%s/stdout", L->tmp), *err = xasprintf("%s/stderr", L->tmp);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (cwd) posix_spawn_file_actions_addchdir_np(&fa, cwd);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    bool ok = rc == 0;
    if (ok) {
        int st = 0;
        struct timespec tick = {0, 5 * 1000 * 1000};
        long waited = 0;
        pid_t w;
        while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
            if (waited++ > LSP_CHECK_SECONDS * 200L) kill(pid, SIGKILL);
            nanosleep(&tick, NULL);
        }
        r->status = w < 0 ? 128 + SIGKILL : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        int e = 0;
        if (read_file(out, 256u << 20, &r->out, &r->out_len, &e) != READ_OK) r->out = xstrdup(""), r->out_len = 0;
        if (read_file(err, 256u << 20, &r->err, &r->err_len, &e) != READ_OK) r->err = xstrdup(""), r->err_len = 0;
    } else fprintf(stderr, "qdc --lsp: cannot run %s: %s\n", argv[0], strerror(rc));
    unlink(out), unlink(err);
    free(out), free(err);
    return ok;
}

/* The checked copy's name: the document's file name, so the module name is the same. */
static char *copy_path(Lsp *L, const Doc *d) {
    const char *base = d->path ? strrchr(d->path, '/') : NULL;
    base = base ? base + 1 : d->path ? d->path : "";
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) base = "untitled.qd";
    return xasprintf("%s/%s", L->tmp, base);
}

/* The name the check gives the copy (--input-name): the document's own path, so its imports
 * resolve as a compile of the file would; a document without one is named as its copy. */
static char *checked_name(Lsp *L, const Doc *d) { return d->path ? xstrdup(d->path) : copy_path(L, d); }

static const char *severity_num(const char *sev) {
    return !strcmp(sev, "warning") ? "2" : !strcmp(sev, "note") ? "3" : "1";
}

/* An absolute file: URI for a path the child named (relative to its cwd). */
static void put_file_uri(StrBuf *b, const char *file, const char *cwd) {
    char *abs = file[0] == '/' || !cwd ? xstrdup(file) : xasprintf("%s/%s", cwd, file);
    StrBuf u;
    sb_init(&u);
    json_uri(&u, abs); /* a JSON string holding the percent-encoded path */
    sb_printf(b, "\"file://%s", u.data + 1);
    sb_free(&u), free(abs);
}

/* One record's location as an LSP Location (relatedInformation) or, for a diagnostic outside
 * the document, a "file:line:col: " prefix for its message. */
static bool in_doc(const JsonVal *rec, const char *copy) {
    const char *file = json_get_str(rec, "file", NULL);
    return file && !strcmp(file, copy) && json_get_num(rec, "line", 0) > 0;
}

static void put_record_range(const Lsp *L, StrBuf *b, const Doc *d, const JsonVal *rec, const char *copy) {
    if (in_doc(rec, copy))
        put_range(L, b, d, (size_t)json_get_num(rec, "byte_offset", 0), (size_t)json_get_num(rec, "byte_length", 0));
    else sb_puts(b, "{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":0}}");
}

static void put_message(StrBuf *b, const JsonVal *rec, const char *copy, const char *extra) {
    StrBuf m;
    sb_init(&m);
    const char *file = json_get_str(rec, "file", NULL);
    if (file && !in_doc(rec, copy) && json_get_num(rec, "line", 0) > 0 && strcmp(file, copy))
        sb_printf(&m, "%s:%.0f:%.0f: ", file, json_get_num(rec, "line", 0), json_get_num(rec, "column", 0));
    sb_printf(&m, "%s%s", json_get_str(rec, "message", ""), extra);
    json_str(b, m.data);
    sb_free(&m);
}

/* Turns the child's JSON-lines diagnostics into the LSP array; the QD4xxx errors in the document
 * are kept for hover ("refused"). */
static void convert_diagnostics(Lsp *L, Doc *d, const Run *r, const char *copy, const char *cwd, StrBuf *arr) {
    sb_putc(arr, '[');
    bool any = false, open_related = false;
    StrBuf last_range; /* the range of the diagnostic the notes belong to */
    sb_init(&last_range);
    sb_free(&d->refused);
    for (char *p = r->err; p < r->err + r->err_len;) {
        char *nl = memchr(p, '\n', (size_t)(r->err + r->err_len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(r->err + r->err_len - p);
        JsonVal *rec = json_parse(p, n);
        p += n + 1;
        const char *sev = json_get_str(rec, "severity", NULL);
        if (!sev) {
            json_free(rec);
            continue;
        }
        bool note = !strcmp(sev, "note");
        if (note && any && json_get(rec, "file") && json_get(rec, "file")->kind == JV_STR) {
            /* relatedInformation of the diagnostic before it */
            sb_puts(arr, open_related ? "," : ",\"relatedInformation\":[");
            open_related = true;
            /* a note without a line (the whole input) points where its diagnostic does */
            bool doc = !strcmp(json_get_str(rec, "file", ""), copy);
            sb_puts(arr, "{\"location\":{\"uri\":");
            if (doc) json_str(arr, d->uri);
            else put_file_uri(arr, json_get_str(rec, "file", ""), cwd);
            sb_puts(arr, ",\"range\":");
            if (doc && !in_doc(rec, copy)) sb_puts(arr, last_range.data);
            else put_record_range(L, arr, d, rec, copy);
            sb_puts(arr, "},\"message\":"), put_message(arr, rec, copy, ""), sb_puts(arr, "}");
            json_free(rec);
            continue;
        }
        if (any) sb_puts(arr, open_related ? "]}," : "},");
        open_related = false;
        any = true;
        bool internal = !strcmp(sev, "internal-error");
        sb_puts(arr, "{\"range\":");
        last_range.len = 0;
        put_record_range(L, &last_range, d, rec, copy);
        sb_puts(arr, last_range.data);
        sb_printf(arr, ",\"severity\":%s", severity_num(sev));
        const char *code = json_get_str(rec, "code", NULL);
        if (code) sb_puts(arr, ",\"code\":"), json_str(arr, code);
        sb_puts(arr, ",\"source\":\"qdc\",\"message\":");
        if (internal) {
            char *m = xasprintf("internal error in qdc: %s", json_get_str(rec, "message", ""));
            json_str(arr, m), free(m);
        } else put_message(arr, rec, copy, "");
        if (code && !strncmp(code, "QD4", 3) && in_doc(rec, copy))
            sb_printf(&d->refused, "%.0f %.0f %s\n", json_get_num(rec, "byte_offset", 0),
                      json_get_num(rec, "byte_length", 0), json_get_str(rec, "message", ""));
        json_free(rec);
    }
    if (r->status > 3) { /* killed: say so where the user looks */
        if (any) sb_puts(arr, open_related ? "]}," : "},");
        any = open_related = false;
        char *m = r->status == 128 + SIGKILL
                      ? xasprintf("qdc did not finish checking this file within %d seconds", LSP_CHECK_SECONDS)
                      : xasprintf("internal error: qdc stopped with signal %d while checking this file", r->status - 128);
        sb_puts(arr, "{\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":0}},"
                     "\"severity\":1,\"source\":\"qdc\",\"message\":");
        json_str(arr, m), free(m);
        sb_puts(arr, "}");
    }
    if (any) sb_puts(arr, open_related ? "]}" : "}");
    sb_putc(arr, ']');
    sb_free(&last_range);
}

/* Checks a document with a qdc child and publishes its diagnostics. */
static void check_doc(Lsp *L, Doc *d) {
    char *copy = copy_path(L, d);
    OutputSet *set = outputs_new();
    outputs_add(set, copy, d->text, d->len);
    const char *failed = NULL;
    int werr = 0;
    bool written = outputs_commit(set, &failed, &werr);
    outputs_free(set);
    if (!written) {
        fprintf(stderr, "qdc --lsp: cannot write '%s': %s\n", copy, strerror(werr));
        free(copy);
        return;
    }
    Args argv = {0};
    vec_push(&argv, xstrdup(L->exe));
    vec_push(&argv, xstrdup("--check"));
    vec_push(&argv, xstrdup("--report-lowering=json"));
    vec_push(&argv, xstrdup("--diagnostics-format=json"));
    vec_push(&argv, xstrdup("--error-limit=0"));
    char *config = find_config(d->path);
    if (config) config_flags(config, &argv);
    for (int i = 0; i < L->flags.len; i++) vec_push(&argv, xstrdup(L->flags.items[i]));
    char *name = checked_name(L, d);
    vec_push(&argv, xasprintf("--input-name=%s", name));
    vec_push(&argv, xstrdup("--"));
    vec_push(&argv, xstrdup(copy));
    vec_push(&argv, NULL);
    /* relative paths in the flags (--capdb-dir) are the project's: the config's directory */
    char *cwd = config ? xstrdup(config) : d->path ? xstrdup(d->path) : NULL;
    if (cwd) *strrchr(cwd, '/') = 0;
    if (cwd && !*cwd) free(cwd), cwd = xstrdup("/");
    Run r = {0};
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":");
    json_str(&b, d->uri);
    sb_puts(&b, ",\"diagnostics\":");
    if (run_child(L, argv.items, cwd, &r)) {
        convert_diagnostics(L, d, &r, name, cwd, &b);
        if (r.out_len) free(d->report), d->report = xstrndup(r.out, r.out_len);
    } else sb_puts(&b, "[]");
    sb_puts(&b, "}}");
    send_buf(&b);
    sb_free(&b);
    unlink(copy);
    for (int i = 0; i < argv.len; i++) free(argv.items[i]);
    free(argv.items), free(r.out), free(r.err), free(config), free(cwd), free(copy), free(name);
}

/* ---- hover: the lowering of the atomic under the cursor, per family ---- */

static void hover(Lsp *L, const Doc *d, size_t off, const JsonVal *id) {
    char *copy = checked_name(L, d);
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < off && i < d->len; i++) d->text[i] == '\n' ? (line++, col = 1) : col++;
    /* the records on the cursor's line; the one starting last at or before the cursor */
    VEC(JsonVal *) recs = {0};
    double best = 0;
    for (char *p = d->report; p && *p;) {
        char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        JsonVal *rec = json_parse(p, n);
        p += n + (nl != NULL);
        double c = json_get_num(rec, "col", 0);
        if (json_get_num(rec, "line", 0) == line && c <= col && !strcmp(json_get_str(rec, "file", ""), copy)) {
            if (c > best) best = c;
            vec_push(&recs, rec);
        } else json_free(rec);
    }
    StrBuf md;
    sb_init(&md);
    for (int i = 0; i < recs.len; i++) {
        const JsonVal *r = recs.items[i];
        if (json_get_num(r, "col", 0) != best) continue;
        if (!md.len)
            sb_printf(&md, "**%s** `%s` (%s)\n\n| family | lowering | decided by |\n|---|---|---|\n",
                      json_get_str(r, "op", "?"), json_get_str(r, "dtype", "?"), json_get_str(r, "space", "?"));
        const char *dec = json_get_str(r, "decision", "?");
        sb_printf(&md, "| %s | %s", json_get_str(r, "target", "?"), dec);
        if (!strcmp(dec, "native") || !strcmp(dec, "cas")) sb_printf(&md, " (%s)", json_get_str(r, "emit_op", "?"));
        sb_printf(&md, " | %s |\n", json_get_str(r, "reason", "-"));
    }
    /* the families that refuse it: the check's QD4xxx errors covering the cursor */
    for (const char *p = d->refused.data; p && *p;) {
        unsigned long o = 0, n = 0;
        int used = 0;
        const char *nl = strchr(p, '\n');
        if (sscanf(p, "%lu %lu %n", &o, &n, &used) >= 2 && off >= o && off <= o + n)
            sb_printf(&md, "%srefused: %.*s\n", md.len ? "\n" : "", (int)(nl - p - used), p + used);
        p = nl + 1;
    }
    if (!md.len) reply(id, "null");
    else {
        StrBuf b;
        sb_init(&b);
        sb_puts(&b, "{\"contents\":{\"kind\":\"markdown\",\"value\":"), json_str(&b, md.data), sb_puts(&b, "}}");
        reply(id, b.data);
        sb_free(&b);
    }
    for (int i = 0; i < recs.len; i++) json_free(recs.items[i]);
    free(recs.items), sb_free(&md), free(copy);
}

/* ---- go to definition ---- */

typedef struct Binding {
    const char *name;
    Span span;
    const Stmt *imp; /* the import that binds it, else NULL */
} Binding;
typedef VEC(Binding) Bindings;

static bool covers(Span s, uint32_t off) { return s.src && off >= s.off && off <= s.off + s.len; }

/* The names an assignment target binds. */
static void target_names(const Expr *e, Bindings *out) {
    if (!e) return;
    if (e->kind == E_NAME) vec_push(out, ((Binding){e->name, e->span, NULL}));
    else if (e->kind == E_TUPLE || e->kind == E_LIST)
        for (int i = 0; i < e->list.n; i++) target_names(e->list.items[i], out);
    else if (e->kind == E_STARRED) target_names(e->un.a, out);
}

/* The bindings a statement list makes in its own scope, in source order (nested functions bind
 * their name only; their bodies are their own scope). */
static void scope_bindings(const StmtList *l, Bindings *out) {
    for (int i = 0; i < l->n; i++) {
        const Stmt *s = l->stmts[i];
        switch (s->kind) {
        case S_ASSIGN:
            for (int k = 0; k < s->assign.targets.n; k++) target_names(s->assign.targets.items[k], out);
            break;
        case S_ANNASSIGN: target_names(s->ann.target, out); break;
        case S_FOR: target_names(s->for_.target, out), scope_bindings(&s->for_.body, out); break;
        case S_IF: scope_bindings(&s->if_.then, out), scope_bindings(&s->if_.els, out); break;
        case S_WHILE: scope_bindings(&s->while_.body, out); break;
        case S_DEF: vec_push(out, ((Binding){s->def.name, s->def.name_span, NULL})); break;
        case S_CLASS: vec_push(out, ((Binding){s->class_.name, s->class_.name_span, NULL})); break;
        case S_HOST:
            for (int k = 0; k < s->host.names.n; k++) target_names(s->host.names.items[k], out);
            break;
        case S_IMPORT:
            if (s->import.alias || s->import.module) {
                const char *nm = s->import.alias ? s->import.alias : s->import.module;
                vec_push(out, ((Binding){nm, s->span, s->import.user ? s : NULL}));
            }
            break;
        default: break;
        }
    }
}

typedef struct Finder {
    uint32_t off;
    const Expr *name;      /* the E_NAME under the cursor (the head of attr) */
    const Expr *attr;      /* the E_ATTR whose attribute name is under the cursor */
    Binding self;          /* a definition's own name under the cursor */
    const Stmt *defs[32];  /* the functions enclosing the cursor, outermost first */
    int ndefs, depth;
} Finder;

static void find_expr(Finder *f, const Expr *e);

static void find_list(Finder *f, const ExprList *l) {
    for (int i = 0; i < l->n; i++) find_expr(f, l->items[i]);
}

static void find_stmts(Finder *f, const StmtList *l, uint32_t limit);

/* A statement's text runs up to the next statement of its block (limit): a compound
 * statement's own span may be its header only. */
static void find_def(Finder *f, const Stmt *s, uint32_t limit) {
    find_list(f, &s->def.decorators);
    if (f->name || f->off < s->span.off || f->off >= limit) return;
    if (covers(s->def.name_span, f->off)) {
        f->self = (Binding){s->def.name, s->def.name_span, NULL};
        return;
    }
    if (f->ndefs < (int)ARRAY_LEN(f->defs)) f->defs[f->ndefs++] = s;
    for (int k = 0; k < s->def.nparams; k++) {
        const Param *p = &s->def.params[k];
        if (covers(p->span, f->off) && !f->name) f->self = (Binding){p->name, p->span, NULL};
        find_expr(f, p->annotation), find_expr(f, p->dflt);
    }
    find_expr(f, s->def.returns);
    find_stmts(f, &s->def.body, limit);
}

static void find_expr(Finder *f, const Expr *e) {
    if (!e || f->name || !covers(e->span, f->off) || f->depth > 200) return;
    f->depth++;
    switch (e->kind) {
    case E_NAME: f->name = e; break;
    case E_ATTR:
        if (!e->attr.obj || covers(e->attr.obj->span, f->off)) find_expr(f, e->attr.obj);
        else { /* m.f, a.b.f: resolved from the head name */
            const Expr *h = e->attr.obj;
            while (h && h->kind == E_ATTR) h = h->attr.obj;
            if (h && h->kind == E_NAME) f->attr = e, f->name = h;
        }
        break;
    case E_CALL:
        find_expr(f, e->call.fn), find_list(f, &e->call.args);
        for (int i = 0; i < e->call.nkw; i++) find_expr(f, e->call.kw[i].value);
        break;
    case E_SUBSCRIPT: find_expr(f, e->sub.obj), find_expr(f, e->sub.index); break;
    case E_TUPLE: case E_LIST: case E_BOOLOP: find_list(f, &e->list); break;
    case E_UNARY: case E_STARRED: find_expr(f, e->un.a); break;
    case E_BINARY: case E_NAMED: find_expr(f, e->bin.a), find_expr(f, e->bin.b); break;
    case E_COMPARE: find_list(f, &e->cmp.items); break;
    case E_IFEXP: find_expr(f, e->ifexp.cond), find_expr(f, e->ifexp.a), find_expr(f, e->ifexp.b); break;
    case E_SLICE: find_expr(f, e->slice.lo), find_expr(f, e->slice.hi), find_expr(f, e->slice.step); break;
    case E_COMP:
        for (const Expr *c = e; c; c = c->comp.next) {
            find_expr(f, c->comp.target), find_expr(f, c->comp.iter), find_list(f, &c->comp.conds);
            if (!c->comp.next) find_expr(f, c->comp.elt);
        }
        break;
    default: break;
    }
    f->depth--;
}

static void find_stmt(Finder *f, const Stmt *s, uint32_t limit) {
    if (f->name || f->self.name) return;
    switch (s->kind) {
    case S_EXPR: case S_RETURN: find_expr(f, s->expr); break;
    case S_ASSIGN: find_list(f, &s->assign.targets), find_expr(f, s->assign.value); break;
    case S_ANNASSIGN: find_expr(f, s->ann.target), find_expr(f, s->ann.annotation), find_expr(f, s->ann.value); break;
    case S_AUGASSIGN: find_expr(f, s->aug.target), find_expr(f, s->aug.value); break;
    case S_IF: find_expr(f, s->if_.cond), find_stmts(f, &s->if_.then, limit), find_stmts(f, &s->if_.els, limit); break;
    case S_WHILE: find_expr(f, s->while_.cond), find_stmts(f, &s->while_.body, limit); break;
    case S_FOR: find_expr(f, s->for_.target), find_expr(f, s->for_.iter), find_stmts(f, &s->for_.body, limit); break;
    case S_ASSERT: find_expr(f, s->assert_.cond), find_expr(f, s->assert_.msg); break;
    case S_DEF: find_def(f, s, limit); break;
    case S_CLASS:
        if (covers(s->class_.name_span, f->off)) f->self = (Binding){s->class_.name, s->class_.name_span, NULL};
        else if (f->off >= s->span.off && f->off < limit) find_stmts(f, &s->class_.body, limit);
        break;
    case S_HOST: find_list(f, &s->host.names); break;
    default: break;
    }
}

static void find_stmts(Finder *f, const StmtList *l, uint32_t limit) {
    for (int i = 0; i < l->n && !f->name && !f->self.name; i++)
        find_stmt(f, l->stmts[i], i + 1 < l->n ? l->stmts[i + 1]->span.off : limit);
}

/* The binding of name in a scope: a parameter, else the first binding in source order. */
static bool lookup(const char *name, const Stmt *def, const StmtList *body, Binding *out) {
    for (int k = 0; def && k < def->def.nparams; k++)
        if (!strcmp(def->def.params[k].name, name)) return *out = (Binding){name, def->def.params[k].span, NULL}, true;
    Bindings b = {0};
    scope_bindings(body, &b);
    bool found = false;
    for (int i = 0; i < b.len && !found; i++)
        if (!strcmp(b.items[i].name, name)) *out = b.items[i], found = true;
    vec_free(&b);
    return found;
}

/* ---- definitions in imported modules ---- */

/* Where qdc looks for the document's absolute imports (qdc-lang(7), IMPORTS): the input's
 * directory (the root of the packages around it; none where a -I directory holds it), the -I
 * directories of the check's flags (relative to its cwd), then QDC_PATH. */
static Args search_dirs(Lsp *L, const Doc *d) {
    Args flags = {0}, dirs = {0};
    char *config = find_config(d->path);
    if (config) config_flags(config, &flags);
    for (int i = 0; i < L->flags.len; i++) vec_push(&flags, xstrdup(L->flags.items[i]));
    char *cwd = xstrdup(config ? config : d->path);
    *strrchr(cwd, '/') = 0;
    vec_push(&dirs, NULL); /* the input's, below */
    for (int i = 0; i < flags.len; i++) {
        const char *v = !strcmp(flags.items[i], "-I") && i + 1 < flags.len ? flags.items[++i]
                        : !strncmp(flags.items[i], "-I", 2) ? flags.items[i] + 2 : NULL;
        if (v && *v) vec_push(&dirs, *v == '/' ? xstrdup(v) : xasprintf("%s/%s", *cwd ? cwd : "", v));
    }
    const char *qp = getenv("QDC_PATH");
    for (const char *p = qp; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n) vec_push(&dirs, xstrndup(p, n));
        p += n + (p[n] == ':');
    }
    char *real = realpath(d->path, NULL);
    bool under = false;
    for (int k = 1; real && k < dirs.len && !under; k++) {
        char *root = realpath(dirs.items[k], NULL);
        size_t n = root ? strlen(root) : 0;
        under = root && !strncmp(real, root, n) && real[n] == '/';
        free(root);
    }
    if (!under) { /* the directory, or the root of the packages holding it */
        char *dir = xstrdup(d->path);
        *strrchr(dir, '/') = 0;
        for (;;) {
            char *init = xasprintf("%s/__init__.py", *dir ? dir : "");
            struct stat st;
            bool pkg = stat(init, &st) == 0 && S_ISREG(st.st_mode);
            free(init);
            if (!pkg || !strrchr(dir, '/')) break;
            *strrchr(dir, '/') = 0;
        }
        dirs.items[0] = *dir ? dir : (free(dir), xstrdup("/"));
    }
    for (int i = 0; i < flags.len; i++) free(flags.items[i]);
    free(flags.items), free(real), free(cwd), free(config);
    return dirs;
}

/* A module an import names: `name` in dirs (dirs[0] is the package of a relative import;
 * name "" is that package itself). */
typedef struct ModRef {
    Args dirs;
    char *name;
} ModRef;

static char *mod_file(const ModRef *m) {
    if (*m->name) return module_locate((const char *const *)m->dirs.items, m->dirs.len, m->name);
    char *init = xasprintf("%s/__init__.py", m->dirs.items[0]);
    struct stat st;
    if (stat(init, &st) == 0 && S_ISREG(st.st_mode)) return init;
    return free(init), NULL;
}

static char *mod_sub(const ModRef *m, const char *leaf) {
    return *m->name ? xasprintf("%s.%s", m->name, leaf) : xstrdup(leaf);
}

/* The module an import statement names, absolute or relative to the document's directory. */
static bool import_ref(Lsp *L, const Doc *d, const Stmt *s, ModRef *out) {
    out->dirs = (Args){0};
    if (!s->import.level) {
        out->dirs = search_dirs(L, d);
        out->name = xstrdup(s->import.module);
        return true;
    }
    char *dir = xstrdup(d->path);
    for (int up = 0; up < s->import.level; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash) return free(dir), false;
        *slash = 0;
    }
    vec_push(&out->dirs, *dir ? dir : (free(dir), xstrdup("/")));
    out->name = xstrdup(s->import.module ? s->import.module : "");
    return true;
}

static void ref_free(ModRef *m) {
    for (int i = 0; i < m->dirs.len; i++) free(m->dirs.items[i]);
    free(m->dirs.items), free(m->name);
}

/* A Location in another file: name's top-level binding there, or its first line (name NULL). */
static bool put_file_location(Lsp *L, StrBuf *b, const char *file, const char *name) {
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    if (read_file(file, QDC_MAX_INPUT_BYTES, &text, &len, &err) != READ_OK) return false;
    size_t off = 0, n = 0;
    bool found = !name;
    if (name) {
        Source *src = source_new(file, text, len);
        Arena arena = {0};
        int mark = diag_quiet_begin();
        AstModule *m = frontend_parse(src, &arena);
        diag_quiet_end(mark);
        Binding bd;
        if (m && lookup(name, NULL, &m->body, &bd)) found = true, off = bd.span.off, n = bd.span.len;
        arena_free(&arena);
        source_free(src);
    }
    if (found) {
        char *abs = realpath(file, NULL);
        long l0, c0, l1, c1;
        offset_to_pos(L, text, len, off, &l0, &c0);
        offset_to_pos(L, text, len, off + n, &l1, &c1);
        sb_puts(b, "{\"uri\":"), put_file_uri(b, abs ? abs : file, NULL);
        sb_printf(b, ",\"range\":{\"start\":{\"line\":%ld,\"character\":%ld},\"end\":{\"line\":%ld,"
                     "\"character\":%ld}}}", l0, c0, l1, c1);
        free(abs);
    }
    free(text);
    return found;
}

/* The definition of a name an import binds, or of an attribute chain (f->attr) on it: a
 * submodule's file, else the binding in the module's file. */
static bool imported_definition(Lsp *L, const Doc *d, const Stmt *s, const Expr *attr, StrBuf *b) {
    ModRef m;
    if (!d->path || !import_ref(L, d, s, &m)) return false;
    const char *leaf = s->import.name; /* from M import leaf */
    if (!leaf && s->import.alias && !strchr(s->import.alias, '.') && strchr(m.name, '.') &&
        strlen(s->import.alias) == strcspn(m.name, ".") && !strncmp(m.name, s->import.alias, strlen(s->import.alias)))
        m.name[strcspn(m.name, ".")] = 0; /* import a.b binds a */
    const char *chain[64];
    int n = 0;
    for (const Expr *e = attr; e && e->kind == E_ATTR && n < 64; e = e->attr.obj) chain[n++] = e->attr.name;
    bool ok = false;
    for (int k = n; k >= -1; k--) { /* leaf, then the chain outermost first */
        const char *nm = k == n ? leaf : k >= 0 ? chain[k] : NULL;
        if (k == n && !leaf) continue;
        char *sub = nm ? mod_sub(&m, nm) : NULL, *file = NULL;
        if (sub && (file = module_locate((const char *const *)m.dirs.items, m.dirs.len, sub))) {
            free(m.name), m.name = sub;
            if (k <= 0) ok = put_file_location(L, b, file, NULL);
            free(file);
            if (k <= 0) break;
            continue;
        }
        free(sub);
        file = mod_file(&m);
        /* a name in the module: the answer only where it is the last of the chain */
        if (file && (!nm || k <= 0)) ok = put_file_location(L, b, file, nm);
        free(file);
        break;
    }
    ref_free(&m);
    return ok;
}

static void definition(Lsp *L, const Doc *d, size_t off, const JsonVal *id) {
    Source *src = source_new(d->path ? d->path : d->uri, d->text, d->len);
    Arena arena = {0};
    int mark = diag_quiet_begin();
    AstModule *m = frontend_parse(src, &arena);
    diag_quiet_end(mark);
    Finder f = {.off = (uint32_t)off};
    Binding found = {0};
    if (m) find_stmts(&f, &m->body, (uint32_t)d->len + 1);
    if (f.self.name) found = f.self;
    else if (f.name) {
        bool ok = false;
        for (int k = f.ndefs - 1; k >= 0 && !ok; k--) ok = lookup(f.name->name, f.defs[k], &f.defs[k]->def.body, &found);
        if (!ok && !lookup(f.name->name, NULL, &m->body, &found)) found = (Binding){0};
    }
    StrBuf b;
    sb_init(&b);
    if (found.imp && imported_definition(L, d, found.imp, f.attr, &b)) reply(id, b.data);
    else if (!found.span.src || f.attr) reply(id, "null");
    else {
        sb_puts(&b, "{\"uri\":"), json_str(&b, d->uri), sb_puts(&b, ",\"range\":");
        put_range(L, &b, d, found.span.off, found.span.len);
        sb_puts(&b, "}");
        reply(id, b.data);
    }
    sb_free(&b);
    arena_free(&arena);
    source_free(src);
}

/* ---- dispatch ---- */

static void add_client_flags(Lsp *L, const JsonVal *opts) {
    const JsonVal *t = json_get(opts, "targets");
    if (t && t->kind == JV_STR) vec_push(&L->flags, xasprintf("--target=%s", t->str));
    if (t && t->kind == JV_ARR) {
        StrBuf b;
        sb_init(&b);
        for (int i = 0; i < t->n; i++)
            if (t->items[i]->kind == JV_STR) sb_printf(&b, "%s%s", b.len ? "," : "--target=", t->items[i]->str);
        if (b.len) vec_push(&L->flags, sb_take(&b));
        sb_free(&b);
    }
    const JsonVal *fl = json_get(opts, "flags");
    for (int i = 0; fl && fl->kind == JV_ARR && i < fl->n; i++)
        if (fl->items[i]->kind == JV_STR) vec_push(&L->flags, xstrdup(fl->items[i]->str));
}

static void initialize(Lsp *L, const JsonVal *params, const JsonVal *id) {
    const JsonVal *enc = json_get(params, "capabilities.general.positionEncodings");
    for (int i = 0; enc && enc->kind == JV_ARR && i < enc->n; i++)
        if (enc->items[i]->kind == JV_STR && !strcmp(enc->items[i]->str, "utf-8")) L->utf8 = true;
    add_client_flags(L, json_get(params, "initializationOptions"));
    L->initialized = true;
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "{\"capabilities\":{\"positionEncoding\":\"%s\",\"textDocumentSync\":{\"openClose\":true,\"change\":1,"
                  "\"save\":{\"includeText\":false}},\"hoverProvider\":true,\"definitionProvider\":true},"
                  "\"serverInfo\":{\"name\":\"qdc\",\"version\":\"%s\"}}",
              L->utf8 ? "utf-8" : "utf-16", L->version);
    reply(id, b.data);
    sb_free(&b);
}

/* Applies didChange's content changes: whole texts, or ranges (incremental clients). */
static void apply_changes(Lsp *L, Doc *d, const JsonVal *changes) {
    for (int i = 0; changes && changes->kind == JV_ARR && i < changes->n; i++) {
        const JsonVal *c = changes->items[i];
        const JsonVal *text = json_get(c, "text");
        if (!text || text->kind != JV_STR) continue;
        const JsonVal *range = json_get(c, "range");
        size_t a = 0, z = d->len;
        if (range) {
            a = pos_to_offset(L, d, (long)json_get_num(range, "start.line", 0), (long)json_get_num(range, "start.character", 0));
            z = pos_to_offset(L, d, (long)json_get_num(range, "end.line", 0), (long)json_get_num(range, "end.character", 0));
            if (z < a) z = a;
        }
        char *t = xmalloc(d->len - (z - a) + text->len + 1);
        memcpy(t, d->text, a), memcpy(t + a, text->str, text->len), memcpy(t + a + text->len, d->text + z, d->len - z);
        d->len = d->len - (z - a) + text->len;
        t[d->len] = 0;
        free(d->text), d->text = t;
    }
}

/* Handles one message; returns false after `exit` (*status: the server's exit status). */
static bool handle(Lsp *L, const JsonVal *msg, int *status) {
    const JsonVal *id = json_get(msg, "id");
    const char *method = json_get_str(msg, "method", NULL);
    const JsonVal *params = json_get(msg, "params");
    if (!msg || msg->kind != JV_OBJ || !method) {
        bool response = msg && msg->kind == JV_OBJ && (json_get(msg, "result") || json_get(msg, "error"));
        if (!response) reply_error(id, RPC_INVALID_REQUEST, "not a JSON-RPC request or notification");
        return true; /* a response from the client (we send no requests) is ignored */
    }
    if (!strcmp(method, "exit")) return *status = L->shutdown ? 0 : 1, false;
    if (L->shutdown) {
        if (id) reply_error(id, RPC_INVALID_REQUEST, "the server is shut down; only 'exit' is accepted");
        return true;
    }
    if (!strcmp(method, "initialize")) {
        if (L->initialized) reply_error(id, RPC_INVALID_REQUEST, "initialize was already received");
        else initialize(L, params, id);
        return true;
    }
    if (!L->initialized) {
        if (id) reply_error(id, LSP_SERVER_NOT_INITIALIZED, "the server is not initialized");
        return true;
    }
    const char *uri = json_get_str(params, "textDocument.uri", NULL);
    Doc *d = find_doc(L, uri);
    if (!strcmp(method, "shutdown")) return L->shutdown = true, reply(id, "null"), true;
    if (!strcmp(method, "textDocument/didOpen")) {
        const JsonVal *text = json_get(params, "textDocument.text");
        if (!uri || !text || text->kind != JV_STR) return true;
        if (!d) {
            d = xcalloc(1, sizeof *d);
            d->uri = xstrdup(uri), d->path = uri_path(uri);
            vec_push(&L->docs, d);
        }
        free(d->text), d->text = xstrndup(text->str, text->len), d->len = text->len;
        check_doc(L, d);
    } else if (!strcmp(method, "textDocument/didChange")) {
        if (d) apply_changes(L, d, json_get(params, "contentChanges")), check_doc(L, d);
    } else if (!strcmp(method, "textDocument/didSave")) {
        if (d) check_doc(L, d);
    } else if (!strcmp(method, "textDocument/didClose")) {
        for (int i = 0; d && i < L->docs.len; i++)
            if (L->docs.items[i] == d) L->docs.items[i] = L->docs.items[--L->docs.len];
        if (d) {
            StrBuf b;
            sb_init(&b);
            sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":");
            json_str(&b, d->uri), sb_puts(&b, ",\"diagnostics\":[]}}");
            send_buf(&b), sb_free(&b), doc_free(d);
        }
    } else if (!strcmp(method, "textDocument/hover") || !strcmp(method, "textDocument/definition")) {
        if (!id) return true;
        if (!d || !json_get(params, "position")) return reply_error(id, RPC_INVALID_PARAMS, "unknown document or no position"), true;
        size_t off = pos_to_offset(L, d, (long)json_get_num(params, "position.line", 0),
                                   (long)json_get_num(params, "position.character", 0));
        if (method[13] == 'h') hover(L, d, off, id);
        else definition(L, d, off, id);
    } else if (id) {
        char *m = xasprintf("method '%s' is not supported", method);
        reply_error(id, RPC_METHOD_NOT_FOUND, m), free(m);
    } /* other notifications ($/cancelRequest, initialized, ...) need nothing */
    return true;
}

static int rm_entry(const char *dir, const char *name) {
    char *p = xasprintf("%s/%s", dir, name);
    int rc = unlink(p);
    free(p);
    return rc;
}

int lsp_main(const char *version, int nflags, char **flags) {
    Lsp L = {.version = version};
    ssize_t n = readlink("/proc/self/exe", L.exe, sizeof L.exe - 1);
    if (n <= 0) {
        fprintf(stderr, "qdc --lsp: cannot find the qdc executable (/proc/self/exe)\n");
        return QDC_EXIT_INTERNAL;
    }
    L.exe[n] = 0;
    const char *tmpdir = getenv("TMPDIR");
    char *tmpl = xasprintf("%s/qdc-lsp-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "qdc --lsp: cannot create a private directory '%s': %s\n", tmpl, strerror(errno));
        free(tmpl);
        return QDC_EXIT_INTERNAL;
    }
    char real[PATH_MAX];
    L.tmp = realpath(tmpl, real) ? xstrdup(real) : xstrdup(tmpl);
    free(tmpl);
    for (int i = 0; i < nflags; i++) vec_push(&L.flags, xstrdup(flags[i]));
    DiagConfig quiet = {DIAG_TEXT, DIAG_COLOR_NEVER, 0, false, stderr}; /* never standard output */
    diag_init(&quiet);
    signal(SIGPIPE, SIG_IGN);
    int status = 1;
    for (;;) {
        size_t len = 0;
        char *body = read_frame(&len);
        if (!body) break; /* end of input without exit: status 1 */
        if (len == SIZE_MAX) {
            free(body);
            continue;
        }
        JsonVal *msg = json_parse(body, len);
        free(body);
        bool go = true;
        if (!msg) reply_error(NULL, RPC_PARSE_ERROR, "the message is not valid JSON");
        else go = handle(&L, msg, &status);
        json_free(msg);
        if (!go) break;
    }
    for (int i = 0; i < L.docs.len; i++) doc_free(L.docs.items[i]);
    for (int i = 0; i < L.flags.len; i++) free(L.flags.items[i]);
    free(L.docs.items), free(L.flags.items);
    rm_entry(L.tmp, "stdout"), rm_entry(L.tmp, "stderr");
    rmdir(L.tmp);
    free(L.tmp);
    return status;
}
