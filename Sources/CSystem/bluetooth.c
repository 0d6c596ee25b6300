#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "csystem.h"

/* The kernel's Bluetooth structures (include/net/bluetooth/bluetooth.h, l2cap.h), written out:
 * Swift's Glibc module has no Bluetooth headers and libbluetooth-dev is not needed for four
 * numbers and one struct. */
#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif
#define CAIRN_BTPROTO_L2CAP 0
#define CAIRN_L2CAP_CID_ATT 4

struct cairn_sockaddr_l2 {
    sa_family_t l2_family;
    unsigned short l2_psm;
    unsigned char l2_bdaddr[6];
    unsigned short l2_cid;
    unsigned char l2_bdaddr_type;
};

int cairn_l2cap_att_socket(void) {
    int fd = socket(AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, CAIRN_BTPROTO_L2CAP);
    if (fd < 0) return -1;
    /* The kernel's receive time of each packet, read back by cairn_receive_timestamped. */
    int on = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    return fd;
}

int cairn_l2cap_att_connect(int fd, const unsigned char *address_le, int address_type) {
    struct cairn_sockaddr_l2 a;
    /* Bound first, as BlueZ's own clients do: any adapter, channel 4, an LE source. This makes
     * the socket the ATT fixed channel; unbound, the kernel takes it for a connection-oriented
     * channel and refuses a connect without a PSM (EINVAL). */
    memset(&a, 0, sizeof a);
    a.l2_family = AF_BLUETOOTH;
    a.l2_cid = CAIRN_L2CAP_CID_ATT;
    a.l2_bdaddr_type = 1; /* BDADDR_LE_PUBLIC */
    if (bind(fd, (const struct sockaddr *)&a, sizeof a) != 0) return -1;
    memset(&a, 0, sizeof a);
    a.l2_family = AF_BLUETOOTH;
    memcpy(a.l2_bdaddr, address_le, 6);
    a.l2_cid = CAIRN_L2CAP_CID_ATT; /* little-endian on every board cairn runs on */
    a.l2_bdaddr_type = (unsigned char)address_type;
    return connect(fd, (const struct sockaddr *)&a, sizeof a);
}

int cairn_socket_error(int fd) {
    int e = 0;
    socklen_t n = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &n) != 0) return errno;
    return e;
}

long cairn_receive_timestamped(int fd, void *buffer, unsigned long count, long long *seconds, long *nanoseconds) {
    struct iovec v = {buffer, count};
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    m.msg_control = control.bytes;
    m.msg_controllen = sizeof control.bytes;
    *seconds = -1;
    *nanoseconds = 0;
    ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);
    if (n < 0) return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec t;
            memcpy(&t, CMSG_DATA(c), sizeof t);
            *seconds = (long long)t.tv_sec;
            *nanoseconds = t.tv_nsec;
        }
    }
    return (long)n;
}

struct cairn_sockaddr_hci {
    sa_family_t hci_family;
    unsigned short hci_dev;
    unsigned short hci_channel;
};

int cairn_management_socket(void) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 1 /* BTPROTO_HCI */);
    if (fd < 0) return -1;
    struct cairn_sockaddr_hci a;
    memset(&a, 0, sizeof a);
    a.hci_family = AF_BLUETOOTH;
    a.hci_dev = 0xffff;  /* HCI_DEV_NONE */
    a.hci_channel = 3;   /* HCI_CHANNEL_CONTROL: the management interface */
    if (bind(fd, (const struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}
