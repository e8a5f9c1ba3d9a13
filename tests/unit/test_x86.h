/* Helpers of the x86 tests: compile a C host program against a qdc object and header, link it
 * with libqdrt ($QDC_RT) and run it (all through harness.h, never a shell). */
#ifndef QDC_TEST_X86_H
#define QDC_TEST_X86_H
#include "harness.h"
#include <stdint.h>

/* Writes dir/host.c, compiles it with `cc -std=c11 -Wall -Werror` against dir/<objs...> (a
 * NULL-terminated list of file names in dir) and the runtime, to dir/host. False + message on
 * stderr when compilation fails. Under QDC_ASAN=1 the host is built with ASan/UBSan too. */
bool x86_build_host(const char *dir, const char *host_src, const char *const *objs);
/* The same for a host program in a file (compiled in place, with -I examples/host). */
bool x86_build_host_file(const char *dir, const char *src_path, const char *const *objs);
/* Runs dir/host with up to 4 arguments (NULL-terminated). */
RunResult x86_run_host(const char *dir, const char *a1, const char *a2, const char *a3);
/* Compiles src with `flag` to dir/d.o and its header dir/d.h, builds host_src against them and
 * runs it with a1, a2; status -1 (message on stderr) when qdc or cc fails. */
RunResult x86_compile_and_run(const char *dir, const char *src, const char *flag, const char *host_src, const char *a1, const char *a2);
/* Compiles QDC_ROOT/rel_src for x86_64 with host_src (which takes the thread count as argv[1]) and
 * runs it on 1, 2 and 4 threads: each run must exit 0 and print exactly want. */
void x86_expect_on_threads(const char *rel_src, const char *host_src, const char *want);
/* The same on the given thread counts (NULL-terminated list of decimal strings). */
void x86_expect_on_thread_counts(const char *rel_src, const char *host_src, const char *want, const char *const *threads);
/* Writes text to dir/<name>, compiles it for x86_64 with host_src (which takes the thread count
 * as argv[1] and prints n integers, one per line) and runs it on `threads` threads: asserts exit
 * 0 and parses the integers into got. */
void x86_run_ints(const char *dir, const char *name, const char *text, const char *host_src, const char *threads, int64_t *got, int n);
bool x86_have_runtime(void); /* QDC_RT set and cc available; prints a skip notice if not */
#endif
