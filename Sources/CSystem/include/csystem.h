#ifndef CAIRN_CSYSTEM_H
#define CAIRN_CSYSTEM_H
/* The file system magic (statfs f_type) of path, or -1 with errno set. */
long cairn_fs_magic(const char *path);
/* The columns of the terminal on fd, or -1 when it is none. */
int cairn_terminal_columns(int fd);
/* An input event (evdev), its kernel time in microseconds on the clock set by
   cairn_evdev_use_monotonic. */
struct cairn_input_event {
    long long mono_us;
    unsigned short type;
    unsigned short code;
    int value;
};
/* EVIOCSCLOCKID to CLOCK_MONOTONIC: 0, or -1 with errno set. */
int cairn_evdev_use_monotonic(int fd);
/* Whether the device has key `code` (1, 0), or -1 with errno set. */
int cairn_evdev_has_key(int fd, int code);
/* One read(2) of up to max (at most 64) events into out: the count, or -1 with errno set. */
long cairn_evdev_read(int fd, struct cairn_input_event *out, int max);
#endif
