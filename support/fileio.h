/* Reading inputs and writing outputs the way a build system needs: inputs checked (directory,
 * unreadable, too large); all outputs of one run written together or not at all. Regular files
 * are staged as temporaries beside their destination and renamed into place once every output
 * was written; special files (devices, FIFOs, /proc/self/fd links) and "-" are written in place,
 * as gcc and clang do. A signal during the write removes the temporaries. */
#ifndef QDC_FILEIO_H
#define QDC_FILEIO_H
#include "util.h"

#define QDC_MAX_INPUT_BYTES (64u << 20) /* 64 MiB: documented limit on one source file */

typedef enum { READ_OK, READ_NOENT, READ_ISDIR, READ_ERRNO, READ_TOO_LARGE } ReadStatus;
/* path "-" reads stdin. On success *out holds the bytes (NUL-terminated) and *len the size. */
ReadStatus read_file(const char *path, size_t max, char **out, size_t *len, int *err);

/* The outputs of one run. outputs_add() keeps a pointer to data until outputs_commit(). */
typedef struct OutputSet OutputSet;
OutputSet *outputs_new(void);
void outputs_add(OutputSet *s, const char *path, const void *data, size_t len);
/* Writes every output; missing parent directories are created. On failure returns false with
 * *failed naming the output and *err the errno, and leaves every regular output as it was (no
 * temporary, no new directory; a file already replaced is exchanged back). Order: temporaries,
 * then in-place outputs, then the renames. */
bool outputs_commit(OutputSet *s, const char **failed, int *err);
void outputs_free(OutputSet *s);

/* True when a and b name the same existing file (device and inode), or the same name in the
 * same directory for files that do not exist yet. Special files (/dev/null twice) never match. */
bool same_file(const char *a, const char *b);
/* path with "." and "dir/.." removed and slashes collapsed, lexically ("bin/../db/x.yaml" ->
 * "db/x.yaml", "/a/../../b" -> "/b", "../x" stays); malloc'd. */
char *path_normalize(const char *path);
#endif
