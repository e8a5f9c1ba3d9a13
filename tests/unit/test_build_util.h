/* Helpers shared by the build-system tests (test_build*.c, test_install*.c, test_determinism*.c):
 * finding families that compile today, installing into a temporary DESTDIR, file times. */
#ifndef QDC_TEST_BUILD_UTIL_H
#define QDC_TEST_BUILD_UTIL_H
#include "harness.h"

/* Up to max family names (malloc'd) for which examples/histogram.qd compiles now. */
int working_targets(char **names, int max);
void free_names(char **names, int n);
/* `make install-files DESTDIR=<dir> PREFIX=/usr` from the build that made QDC_BIN;
 * returns the malloc'd DESTDIR (the installed qdc is <dir>/usr/bin/qdc) or NULL. */
char *install_to_temp(void);
/* A copy of QDC_BIN that another user (uid 65534) can run wherever the checkout lives (it may
 * be under a mode-0700 directory such as /root): <dir>/bin/qdc with the shipped capability
 * database as an installed qdc finds it (<dir>/share/qdc/capability-db), in a mode-0755
 * directory made under /tmp (never $TMPDIR, which may be private). Returns the malloc'd <dir>
 * or NULL; *qdc gets the malloc'd path of the copy. */
char *public_qdc_copy(char **qdc);
/* Sets a file's modification time to now + secs (negative: in the past). */
void set_mtime(const char *path, int secs);
/* set_mtime(every file under dir, secs). */
void backdate_tree(const char *dir, int secs);
char *path_join(const char *a, const char *b);
bool copy_file(const char *from, const char *to);
/* Number of lines of text containing needle. */
int count_lines_with(const char *text, const char *needle);
#endif
