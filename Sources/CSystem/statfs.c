#include <sys/vfs.h>

#include "csystem.h"

/* statfs(2) is not in Swift's Glibc module (the function and the struct share a name). */
long cairn_fs_magic(const char *path) {
    struct statfs s;
    if (statfs(path, &s) != 0) return -1;
    return (long)s.f_type;
}
