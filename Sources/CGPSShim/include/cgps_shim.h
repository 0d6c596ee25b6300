#ifndef CAIRN_CGPS_STUBS_H
#define CAIRN_CGPS_STUBS_H
/* Linked before libgps.a so its D-Bus member (and libsystemd behind it) is never pulled in.
   cairn always connects to a numeric TCP address, so the D-Bus path is unreachable. */
int cairn_gps_shim_linked(void);
#endif
