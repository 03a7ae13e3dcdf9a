/* nholo/systems/all.h - every system-specific header of nholo/systems/ (the generic
 * registry is nholo/systems.h, part of nholo/nholo.h). */
#ifndef NHOLO_SYSTEMS_ALL_H
#define NHOLO_SYSTEMS_ALL_H

#include "nholo/systems.h"
#include "nholo/systems/penny.h"
#include "nholo/systems/sleigh.h"
#include "nholo/systems/snakeboard.h"
#include "nholo/systems/dg_examples.h"
#include "nholo/systems/ball.h"

#endif
