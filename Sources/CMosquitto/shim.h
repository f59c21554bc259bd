#ifndef CAMFX_CMOSQUITTO_SHIM_H
#define CAMFX_CMOSQUITTO_SHIM_H
// libmosquitto (Debian libmosquitto-dev), the MQTT client the event clips publish
// through. Its API imports as is: the callbacks are plain C function pointers that
// get the client's user data back.
#include <mosquitto.h>
#endif
