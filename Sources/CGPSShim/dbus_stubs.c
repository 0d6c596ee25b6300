/* gps_open() references gps_dbus_open() for the "DBUS export" pseudo-host only. Debian ships
   libgps.a with that member, which needs libdbus-1 and libsystemd (no static archive). These
   stubs satisfy the references so the static link succeeds; they are never reached because
   cairn only opens numeric TCP addresses. */
#include "cgps_shim.h"

struct gps_data_t;

int gps_dbus_open(struct gps_data_t *gpsdata) { (void)gpsdata; return -1; }
int gps_dbus_mainloop(int timeout, void (*hook)(struct gps_data_t *)) { (void)timeout; (void)hook; return -1; }
int cairn_gps_shim_linked(void) { return 1; }
