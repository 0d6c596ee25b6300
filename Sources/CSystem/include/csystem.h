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
/* A Bluetooth L2CAP LE socket for the ATT fixed channel: non-blocking, close-on-exec, the
 * kernel's receive times on (SO_TIMESTAMPNS); -1 with errno set. */
int cairn_l2cap_att_socket(void);
/* connect(2) to the 6 bytes of address_le (least significant first, as the kernel keeps them),
 * of address_type (1 LE public, 2 LE random), channel 4 (ATT): 0, or -1 with errno set
 * (EINPROGRESS on a non-blocking socket while the kernel connects). */
int cairn_l2cap_att_connect(int fd, const unsigned char *address_le, int address_type);
/* SO_ERROR of fd: 0, or the errno a pending connect failed with. */
int cairn_socket_error(int fd);
/* One recvmsg(2), MSG_DONTWAIT: the bytes read, or -1 with errno set; *seconds and *nanoseconds
 * the kernel's receive time (CLOCK_REALTIME), *seconds -1 when the kernel gave none. */
long cairn_receive_timestamped(int fd, void *buffer, unsigned long count, long long *seconds, long *nanoseconds);
/* The kernel's Bluetooth management socket (HCI_CHANNEL_CONTROL), non-blocking, close-on-exec;
 * -1 with errno set. */
int cairn_management_socket(void);
/* fork(2) and execvpe(3) of file with argv and envp (NULL-terminated), standard input
 * /dev/null, output to out_fd, errors to err_fd, in its own process group, killed (SIGKILL) when
 * cairn ends: the child's PID, or -1 with errno set (the exec's errno when it failed). */
int cairn_spawn_bound(const char *file, char *const argv[], char *const envp[], int out_fd, int err_fd);
#endif
