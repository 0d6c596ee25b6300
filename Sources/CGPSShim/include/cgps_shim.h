#ifndef CAIRN_CGPS_STUBS_H
#define CAIRN_CGPS_STUBS_H
/* Linked before libgps.a so its D-Bus member (and libsystemd behind it) is never pulled in.
   cairn always connects to a numeric TCP address, so the D-Bus path is unreachable. */
int cairn_gps_shim_linked(void);

/* The file system magic (statfs f_type) of path, or -1 with errno set. */
long cairn_fs_magic(const char *path);
#endif
