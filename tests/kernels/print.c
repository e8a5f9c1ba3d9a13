/* Host for tests/kernels/print.qd: the kernel's lines, then the host's. */
#include "print.h"
#include "common.h" /* examples/host/common.h */

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv);
    show_args a = {-7, -5000000000LL, 0.25};
    if (!host_launch_ok(show(&a, nt))) return 2;
    printf("host done\n");
    return 0;
}
