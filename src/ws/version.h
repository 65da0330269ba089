/*
 * ws/version.h - the library's version and the JSON schema it writes.
 */
#ifndef WS_VERSION_H
#define WS_VERSION_H

#define WS_VERSION "0.1.0"
#define WS_SCHEMA 1

#endif
