/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * status.c -- eco_strerror: one line of English per eco_status; the
 * library's version.
 */
#include "eco.h"

const char *eco_strerror(int status)
{
    switch (status) {
    case ECO_OK:
        return "success";
    case ECO_ERR_ARG:
        return "invalid argument";
    case ECO_ERR_NOMEM:
        return "out of memory";
    case ECO_ERR_IO:
        return "a file could not be read or written";
    case ECO_ERR_FORMAT:
        return "malformed subnet file or cost matrix";
    case ECO_ERR_DATATYPE:
        return "unknown PVM datatype";
    case ECO_ERR_PVM:
        return "a PVM call failed (eco_last_pvm_error tells which status)";
    case ECO_ERR_PEER:
        return "a member task exited or its host was lost";
    case ECO_ERR_MISMATCH:
        return "members disagree on size, root or protocol";
    case ECO_ERR_NOTMEMBER:
        return "the calling task is not in the task list";
    case ECO_ERR_NOTFOUND:
        return "host or name not found in the network map";
    case ECO_ERR_TIMEOUT:
        return "a peer did not answer in time";
    }
    return "unknown libeco status";
}

const char *eco_version(void)
{
    return ECO_VERSION;
}
