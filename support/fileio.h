/* Reading inputs and writing outputs the way a build system needs: inputs checked (directory,
 * unreadable, too large), outputs written to a temporary file beside the destination and
 * renamed into place, so a failed compilation never leaves or touches an output file. */
#ifndef QDC_FILEIO_H
#define QDC_FILEIO_H
#include "util.h"

#define QDC_MAX_INPUT_BYTES (64u << 20) /* 64 MiB: documented limit on one source file */

typedef enum { READ_OK, READ_NOENT, READ_ISDIR, READ_ERRNO, READ_TOO_LARGE } ReadStatus;
/* path "-" reads stdin. On success *out holds the bytes (NUL-terminated) and *len the size. */
ReadStatus read_file(const char *path, size_t max, char **out, size_t *len, int *err);

/* Writes data to path atomically (path "-" writes stdout). Returns false and sets *err. */
bool write_file_atomic(const char *path, const void *data, size_t len, int *err);
#endif
