/* status.c - the messages and names of the status codes, and the library version.
 *
 * Both tables come from the single X-macro list NH_STATUS_LIST of nholo/status.h; nh_set_msg
 * (base/msg.h) writes the one-line messages of every layer. */
#include <stdarg.h>
#include <stdio.h>

#include "base/msg.h"
#include "nholo/status.h"
#include "nholo/version.h"

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

int nh_status_exit_code(int status) {
  switch (status) {
  case NH_OK:
  case NH_EVENT_STOP:
    return 0;
  case NH_ERR_DEPENDENT_CONTACTS:
  case NH_ERR_OPPOSING_CONTACTS:
    return 2;
  case NH_ZENO:
    return 3;
  case NH_DRIFT:
    return 4;
  case NH_INTERRUPTED:
    return 130;
  default:
    return 1;
  }
}

#define NH_STR_(x) #x
#define NH_STR(x) NH_STR_(x)
const char *nh_version(void) {
  return NH_STR(NHOLO_VERSION_MAJOR) "." NH_STR(NHOLO_VERSION_MINOR) "." NH_STR(NHOLO_VERSION_PATCH);
}

void nh_set_msg(char *msg, size_t size, const char *fmt, ...) {
  if (!msg || size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, size, fmt, ap);
  va_end(ap);
}
