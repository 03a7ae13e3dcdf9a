/* system_impl.h - the classes of the systems interface (nholo/systems.h), for the layers that
 * pair a class with what it records of a run (src/io/outputs.c). */
#ifndef NH_SYSTEM_IMPL_H
#define NH_SYSTEM_IMPL_H

#include "nholo/systems.h"

/* a model file; a built-in model; the penny (a built-in with its plan view); the rolling ball
 * and disk (ball_system.c: built-ins and body files) */
extern const nh_system_class nh_system_file, nh_system_builtin, nh_system_penny, nh_system_ball;

#endif
