/* Preloaded (LD_PRELOAD) into every process of scripts/clean-room.sh: at exit, copies the
   process's /proc/self/maps to $TOKENCACHE_MAPS_DIR/maps.PID, so the test can show which files
   each process had mapped (nothing of a Swift toolchain). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((destructor)) static void dump_maps(void) {
    const char *dir = getenv("TOKENCACHE_MAPS_DIR");
    if (dir == NULL) return;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/maps.%ld", dir, (long)getpid()) >= (int)sizeof path) return;
    int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (in < 0) return;
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out >= 0) {
        char buffer[8192];
        ssize_t n;
        while ((n = read(in, buffer, sizeof buffer)) > 0) {
            if (write(out, buffer, (size_t)n) != n) break;
        }
        close(out);
    }
    close(in);
}
