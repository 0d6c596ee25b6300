#ifndef CAIRN_CSYSTEM_H
#define CAIRN_CSYSTEM_H
/* The file system magic (statfs f_type) of path, or -1 with errno set. */
long cairn_fs_magic(const char *path);
/* The columns of the terminal on fd, or -1 when it is none. */
int cairn_terminal_columns(int fd);
#endif
