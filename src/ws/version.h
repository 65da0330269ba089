/*
 * ws/version.h - the library's version and the JSON schema it writes:
 * WS_VERSION and WS_SCHEMA of the public header.
 */
#ifndef WS_VERSION_H
#define WS_VERSION_H

#include "weightscan.h"

#endif
