#include <sys/vfs.h>

#include "cgps_shim.h"

/* statfs(2) is not in Swift's Glibc module; the log's padding depends on the file system. */
long cairn_fs_magic(const char *path) {
    struct statfs s;
    if (statfs(path, &s) != 0) return -1;
    return (long)s.f_type;
}
