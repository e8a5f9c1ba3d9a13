/* Input reading with clear failure classes, and all-or-nothing output writing (temporaries
 * renamed into place, special files written in place, temporaries removed on signals). */
#include "fileio.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ReadStatus read_file(const char *path, size_t max, char **out, size_t *len, int *err) {
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return *err = errno, errno == ENOENT ? READ_NOENT : READ_ERRNO;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (fd != STDIN_FILENO) close(fd);
        return READ_ISDIR;
    }
    StrBuf b;
    sb_init(&b);
    ReadStatus rs = READ_OK;
    for (;;) {
        sb_reserve(&b, 65536);
        ssize_t n = read(fd, b.data + b.len, b.cap - b.len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            *err = errno;
            rs = errno == EISDIR ? READ_ISDIR : READ_ERRNO;
            break;
        }
        if (n == 0) break;
        b.len += (size_t)n;
        if (b.len > max) {
            rs = READ_TOO_LARGE;
            break;
        }
    }
    if (fd != STDIN_FILENO) close(fd);
    if (rs != READ_OK) {
        sb_free(&b);
        return rs;
    }
    sb_reserve(&b, 0);
    b.data[b.len] = 0;
    *len = b.len;
    *out = sb_take(&b);
    return READ_OK;
}

static bool write_all(int fd, const void *data, size_t len, int *err) {
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return *err = errno, false;
        p += n, len -= (size_t)n;
    }
    return true;
}

/* ---- temporaries removed on SIGINT, SIGTERM and SIGHUP ----
 * The handler may only unlink and re-raise (async-signal-safe), so the live temporary names
 * sit in a fixed table; a slot is filled before mkstemp() creates the file and cleared after
 * the rename or unlink. */
#define MAX_TEMPS 256
static char *volatile live_temps[MAX_TEMPS];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_temps_and_die(int sig) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (live_temps[i]) unlink(live_temps[i]);
    raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

static void install_cleanup(void) {
    static bool done;
    if (done) return;
    done = true;
    for (size_t i = 0; i < ARRAY_LEN(cleanup_signals); i++) {
        struct sigaction old, sa = {.sa_handler = remove_temps_and_die, .sa_flags = SA_RESETHAND};
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < ARRAY_LEN(cleanup_signals); k++) sigaddset(&sa.sa_mask, cleanup_signals[k]);
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) /* nohup stays */
            sigaction(cleanup_signals[i], &sa, NULL);
    }
}

static int track_temp(char *path) {
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!live_temps[i]) return live_temps[i] = path, i;
    die("more than %d temporary files", MAX_TEMPS);
}

/* ---- output sets ---- */

typedef enum { OUT_STDOUT, OUT_RENAME, OUT_IN_PLACE } OutKind;

typedef struct {
    const char *path; /* as given (diagnostics) */
    const void *data;
    size_t len;
    OutKind kind;
    char *dest;       /* OUT_RENAME: the file the temporary replaces (a symlink's target) */
    char *tmp;        /* OUT_RENAME: the staged temporary, while it exists */
    int slot;         /* its live_temps slot */
    bool existed;     /* OUT_RENAME: dest existed before this run */
    enum { NOT_PLACED, SWAPPED, RENAMED } placed; /* SWAPPED: tmp now holds the old file */
} Output;

struct OutputSet {
    VEC(Output) outs;
    VEC(char *) made_dirs; /* created by this commit, removed again on failure */
};

OutputSet *outputs_new(void) { return xcalloc(1, sizeof(OutputSet)); }

void outputs_add(OutputSet *s, const char *path, const void *data, size_t len) {
    Output o = {path, data ? data : "", len, OUT_STDOUT, NULL, NULL, -1, false, NOT_PLACED};
    vec_push(&s->outs, o);
}

/* Creates the missing parent directories of path (for -o out/%t/k.%e), remembering them. A
 * directory that cannot be made gives its own reason (EACCES, EROFS, ENOTDIR...), not the
 * ENOENT that writing under it would give. */
static bool make_parents(OutputSet *s, const char *path, int *err) {
    char *dir = xstrdup(path);
    bool ok = true;
    for (char *p = strchr(dir + 1, '/'); p && ok; p = strchr(p + 1, '/')) {
        *p = 0;
        struct stat st;
        int e = mkdir(dir, 0777) == 0 ? 0 : errno;
        if (!e) vec_push(&s->made_dirs, xstrdup(dir));
        else if (e != EEXIST && !(stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) *err = e, ok = false;
        *p = '/';
    }
    free(dir);
    return ok;
}

/* Decides how o is written: "-" to stdout, an existing non-regular file in place, anything
 * else through a temporary renamed over o->dest (a symlink's target, so the link is kept). */
static bool classify(OutputSet *s, Output *o, int *err) {
    if (!strcmp(o->path, "-")) return o->kind = OUT_STDOUT, true;
    struct stat st;
    if (stat(o->path, &st) != 0) {
        if (errno != ENOENT) return *err = errno, false;
        struct stat lst;
        if (lstat(o->path, &lst) == 0) return *err = ENOENT, false; /* a dangling symlink */
        if (!make_parents(s, o->path, err)) return false;
        o->kind = OUT_RENAME, o->dest = xstrdup(o->path);
        return true;
    }
    if (S_ISDIR(st.st_mode)) return *err = EISDIR, false;
    if (!S_ISREG(st.st_mode)) return o->kind = OUT_IN_PLACE, true;
    o->kind = OUT_RENAME, o->existed = true;
    struct stat lst;
    if (lstat(o->path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        o->dest = realpath(o->path, NULL);
        if (!o->dest) return *err = errno, false;
    } else {
        o->dest = xstrdup(o->path);
    }
    return true;
}

/* A temporary beside dest: "<name>.qdc-tmp-XXXXXX", the name shortened so that it fits
 * NAME_MAX (a 255-byte output name must still be writable). */
static char *temp_name(const char *dest) {
    const char *slash = strrchr(dest, '/');
    size_t dirlen = slash ? (size_t)(slash - dest) + 1 : 0, base = strlen(dest) - dirlen;
    const size_t suffix = sizeof ".qdc-tmp-XXXXXX" - 1;
    if (base > NAME_MAX - suffix) base = NAME_MAX - suffix;
    return xasprintf("%.*s%.*s.qdc-tmp-XXXXXX", (int)dirlen, dest, (int)base, dest + dirlen);
}

static bool stage(Output *o, int *err) {
    o->tmp = temp_name(o->dest);
    o->slot = track_temp(o->tmp);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        *err = errno;
        live_temps[o->slot] = NULL;
        free(o->tmp), o->tmp = NULL;
        return false;
    }
    bool ok = write_all(fd, o->data, o->len, err);
    mode_t mask = umask(0); /* mkstemp makes 0600; outputs are ordinary files */
    umask(mask);
    if (ok && fchmod(fd, 0666 & ~mask) != 0) *err = errno, ok = false;
    if (close(fd) != 0 && ok) *err = errno, ok = false;
    return ok;
}

static bool write_in_place(const Output *o, int *err) {
    if (o->kind == OUT_STDOUT) {
        fflush(stdout); /* anything printed before (reports) comes first */
        return write_all(STDOUT_FILENO, o->data, o->len, err);
    }
    int fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return *err = errno, false;
    bool ok = write_all(fd, o->data, o->len, err);
    if (close(fd) != 0 && ok) *err = errno, ok = false;
    return ok;
}

/* Moves o's temporary into place. An existing file is exchanged with it (renameat2), so the old
 * contents stay under the temporary's name until every output is in place and can be put back
 * if a later one fails; where the file system cannot exchange, a plain rename. */
static bool place(Output *o, int *err) {
    if (o->existed && renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->dest, RENAME_EXCHANGE) == 0)
        return o->placed = SWAPPED, true;
    if (rename(o->tmp, o->dest) != 0) return *err = errno, false;
    live_temps[o->slot] = NULL;
    free(o->tmp), o->tmp = NULL;
    return o->placed = RENAMED, true;
}

/* Undoes place(): the old file back (or the new one removed when there was none). */
static void unplace(Output *o) {
    if (o->placed == SWAPPED) renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->dest, RENAME_EXCHANGE);
    else if (o->placed == RENAMED && !o->existed) unlink(o->dest);
    o->placed = NOT_PLACED;
}

static void drop_temp(Output *o) {
    if (!o->tmp) return;
    unlink(o->tmp);
    live_temps[o->slot] = NULL;
    free(o->tmp), o->tmp = NULL;
}

bool outputs_commit(OutputSet *s, const char **failed, int *err) {
    /* a file-size limit (ulimit -f) must be EFBIG and a removed temp file, not a SIGXFSZ death;
     * a closed pipe must be an error, not a silent SIGPIPE death */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    install_cleanup();
    int n = s->outs.len, bad = -1;
    Output *o = s->outs.items;
    for (int i = 0; bad < 0 && i < n; i++)
        if (!classify(s, &o[i], err)) bad = i;
    for (int i = 0; bad < 0 && i < n; i++)
        if (o[i].kind == OUT_RENAME && !stage(&o[i], err)) bad = i;
    for (int i = 0; bad < 0 && i < n; i++)
        if (o[i].kind != OUT_RENAME && !write_in_place(&o[i], err)) bad = i;
    for (int i = 0; bad < 0 && i < n; i++)
        if (o[i].kind == OUT_RENAME && !place(&o[i], err)) bad = i;
    if (bad >= 0)
        for (int k = 0; k < n; k++) unplace(&o[k]);
    for (int k = 0; k < n; k++) drop_temp(&o[k]); /* failed: the new files; else: the old ones */
    if (bad < 0) return true;
    *failed = o[bad].path;
    for (int k = s->made_dirs.len - 1; k >= 0; k--) rmdir(s->made_dirs.items[k]);
    return false;
}

void outputs_free(OutputSet *s) {
    if (!s) return;
    for (int i = 0; i < s->outs.len; i++) drop_temp(&s->outs.items[i]), free(s->outs.items[i].dest);
    for (int i = 0; i < s->made_dirs.len; i++) free(s->made_dirs.items[i]);
    free(s->outs.items), free(s->made_dirs.items), free(s);
}

/* ---- same-file checks ---- */

char *path_normalize(const char *path) {
    StrBuf b;
    sb_init(&b);
    bool abs = path[0] == '/';
    if (abs) sb_putc(&b, '/');
    size_t floor = b.len; /* ".." never climbs above the root or a leading ".." */
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && !strncmp(p, "..", 2) && b.len > floor) {
            while (b.len > floor && b.data[b.len - 1] != '/') b.len--;
            if (b.len > floor) b.len--; /* the separator before the dropped component */
        } else if (n == 2 && !strncmp(p, "..", 2) && !abs) {
            sb_puts(&b, b.len ? "/.." : "..");
            floor = b.len;
        } else if (n && !(n == 1 && *p == '.') && !(n == 2 && !strncmp(p, "..", 2))) {
            if (b.len > (size_t)abs) sb_putc(&b, '/');
            sb_append(&b, p, n);
        }
        p += n;
        while (*p == '/') p++;
    }
    if (!b.len) sb_putc(&b, '.');
    sb_putc(&b, 0);
    return sb_take(&b);
}


/* The identity of path: its device and inode, or (not existing yet) those of its deepest existing
 * directory and the lexically normalised rest ("out/x.o" before out/ exists: "." and "out/x.o"). */
static bool identity(const char *path, struct stat *st, char **name) {
    *name = NULL;
    if (stat(path, st) == 0) return S_ISREG(st->st_mode);
    if (errno != ENOENT && errno != ENOTDIR) return false;
    for (size_t end = strlen(path); end > 0;) {
        while (end > 0 && path[end - 1] != '/') end--;
        size_t cut = end;
        while (cut > 1 && path[cut - 1] == '/') cut--; /* "a//b": the directory is "a" */
        char *dir = cut ? xstrndup(path, cut) : xstrdup(".");
        bool found = stat(dir, st) == 0 && S_ISDIR(st->st_mode);
        free(dir);
        if (found) return *name = path_normalize(path + end), true;
        if (!cut || (cut == 1 && path[0] == '/')) return false;
        end = cut - 1;
    }
    return false;
}

bool same_file(const char *a, const char *b) {
    if (!strcmp(a, "-") || !strcmp(b, "-")) return false;
    struct stat sa, sb;
    char *na, *nb;
    bool ia = identity(a, &sa, &na), ib = identity(b, &sb, &nb);
    bool same = ia && ib && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !na == !nb &&
                (!na || !strcmp(na, nb));
    free(na), free(nb);
    return same;
}
