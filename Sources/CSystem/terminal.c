#include <sys/ioctl.h>

#include "csystem.h"

/* ioctl(2) is variadic, which Swift does not import. */
int cairn_terminal_columns(int fd) {
    struct winsize w;
    if (ioctl(fd, TIOCGWINSZ, &w) != 0) return -1;
    return (int)w.ws_col;
}
