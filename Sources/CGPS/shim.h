#ifndef CAIRN_CGPS_SHIM_H
#define CAIRN_CGPS_SHIM_H
#include <gps.h>
#endif
