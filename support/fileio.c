/* Input reading with clear failure classes, and atomic output writing (temp file + rename). */
#include "fileio.h"
#include <errno.h>
#include <fcntl.h>
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

bool write_file_atomic(const char *path, const void *data, size_t len, int *err) {
    /* a file-size limit (ulimit -f) must be EFBIG and a removed temp file, not a SIGXFSZ death */
    signal(SIGXFSZ, SIG_IGN);
    if (strcmp(path, "-") == 0) {
        /* a closed pipe must be an error, not a silent SIGPIPE death */
        signal(SIGPIPE, SIG_IGN);
        if (!write_all(STDOUT_FILENO, data, len, err)) return false;
        if (fflush(stdout) != 0) return *err = errno, false;
        return true;
    }
    char *tmp = xasprintf("%s.qdc-tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *err = errno;
        free(tmp);
        return false;
    }
    bool ok = write_all(fd, data, len, err);
    mode_t mask = umask(0); /* mkstemp makes 0600; outputs are ordinary files */
    umask(mask);
    if (ok && fchmod(fd, 0666 & ~mask) != 0) *err = errno, ok = false;
    if (close(fd) != 0 && ok) *err = errno, ok = false;
    if (ok && rename(tmp, path) != 0) *err = errno, ok = false;
    if (!ok) unlink(tmp);
    free(tmp);
    return ok;
}
