/* status.c - the messages and names of the status codes, and the library version.
 *
 * Both tables come from the single X-macro list NH_STATUS_LIST of nholo/status.h. */
#include "nholo/nholo.h"

const char *nh_status_string(int status) {
  switch (status) {
#define NH__STATUS_MSG(name, value, msg) \
  case value:                            \
    return msg;
    NH_STATUS_LIST(NH__STATUS_MSG)
#undef NH__STATUS_MSG
  default:
    return "unknown status";
  }
}

const char *nh_status_name(int status) {
  switch (status) {
#define NH__STATUS_NAME(name, value, msg) \
  case value:                             \
    return #name;
    NH_STATUS_LIST(NH__STATUS_NAME)
#undef NH__STATUS_NAME
  default:
    return "NH_UNKNOWN";
  }
}

const char *nh_version(void) { return "0.1.0"; }
