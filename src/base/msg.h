/* msg.h - the one-line failure messages the library writes into caller buffers (private). */
#ifndef NH_MSG_H
#define NH_MSG_H

#include <stddef.h>

/* printf into msg (at most size bytes, always terminated); nothing when msg is NULL or size 0 */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void nh_set_msg(char *msg, size_t size, const char *fmt, ...);

#endif
