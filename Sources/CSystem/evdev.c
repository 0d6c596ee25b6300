#include <linux/input.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "csystem.h"

/* ioctl(2) is variadic, which Swift does not import; struct input_event's time is a timeval
   whose layout differs between ABIs, so it is unpacked here. */
int cairn_evdev_use_monotonic(int fd) {
    int clock = CLOCK_MONOTONIC;
    return ioctl(fd, EVIOCSCLOCKID, &clock);
}

int cairn_evdev_has_key(int fd, int code) {
    unsigned char bits[KEY_MAX / 8 + 1] = {0};
    if (code < 0 || code > KEY_MAX) return 0;
    if (ioctl(fd, EVIOCGBIT(EV_KEY, sizeof bits), bits) < 0) return -1;
    return (bits[code / 8] >> (code % 8)) & 1;
}

long cairn_evdev_read(int fd, struct cairn_input_event *out, int max) {
    struct input_event buf[64];
    if (max > 64) max = 64;
    if (max <= 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf[0] * (size_t)max);
    if (n < 0) return -1;
    long count = (long)((size_t)n / sizeof buf[0]);
    for (long i = 0; i < count; i++) {
        out[i].mono_us = (long long)buf[i].input_event_sec * 1000000LL + (long long)buf[i].input_event_usec;
        out[i].type = buf[i].type;
        out[i].code = buf[i].code;
        out[i].value = buf[i].value;
    }
    return count;
}
