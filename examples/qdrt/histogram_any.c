/* histogram on any device through libqdrt's typed launcher (qdrt(3)):
 *   histogram_any vulkan histogram.spv      histogram_any cpu histogram.o
 * (each module with its --emit=metadata histogram.json beside it; histogram.h from --emit=header) */
#include "qdrt_device.h"
#include "histogram.h"
#include <stdio.h>

int main(int argc, char **argv) {
    int32_t data[1000], bins[256];
    int64_t n = 1000, nbins = 256;
    for (int i = 0; i < 1000; i++) data[i] = i * 7;
    qdrt_device_kind kind;
    qdrt_device *dev = NULL;
    qdrt_module *mod;
    qdrt_array *d, *b;
    if (argc != 3 || qdrt_device_kind_parse(argv[1], &kind) || qdrt_device_open(kind, &dev) ||
        qdrt_module_load(dev, argv[2], NULL, &mod) || qdrt_array_new(dev, QDRT_I32, 1, &n, &d) ||
        qdrt_array_new(dev, QDRT_I32, 1, &nbins, &b) || qdrt_array_write(d, data, sizeof data) ||
        histogram_run(dev, d, b) || qdrt_array_read(b, bins, sizeof bins))
        return fprintf(stderr, "histogram_any: %s\n", argc == 3 ? qdrt_error() : "usage: histogram_any DEVICE MODULE"), 1;
    for (int i = 0; i < 256; i++) printf("%d%c", bins[i], i % 16 == 15 ? '\n' : ' ');
    qdrt_device_close(dev);
    return 0;
}
