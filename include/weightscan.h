/*
 * weightscan.h - the public face of libweightscan (being rebuilt as opaque
 * handles and accessors; see README "Library").
 */
#ifndef WEIGHTSCAN_H
#define WEIGHTSCAN_H

#define WS_VERSION "0.1.0"
#define WS_SCHEMA 1

#endif
