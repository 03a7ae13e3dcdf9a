/* nholo/nholo.h - the whole public API of nholo.
 *
 * nholo simulates nonholonomic mechanical systems (rolling and sliding bodies whose
 * velocities are constrained) with structure-preserving integrators, through impacts.
 *
 *   nholo/version.h  the version, and the components loaded on first use
 *   nholo/status.h   status codes and their messages
 *   nholo/model.h    the constant model: M(q), V, forces, constraints A(q), gaps, impact laws
 *   nholo/impact.h   impact maps (holonomic with restitution, elastic and plastic nonholonomic)
 *   nholo/method.h   the table of integrators
 *   nholo/sim.h      a simulation: state, hybrid driver, impact log, statistics
 *   nholo/systems.h  the built-in models by name (each system's own header: nholo/systems/)
 *   nholo/io.h       trajectories, CSV, plots
 *   nholo/modelfile.h  model files (.nh): read, check, build
 *   nholo/lyapunov.h   the largest Lyapunov exponent of a hybrid flow
 *   nholo/ensemble.h   ensembles of runs on every core (threads) and across machines (MPI)
 */
#ifndef NHOLO_NHOLO_H
#define NHOLO_NHOLO_H

#include "nholo/export.h"
#include "nholo/version.h"
#include "nholo/status.h"
#include "nholo/model.h"
#include "nholo/impact.h"
#include "nholo/method.h"
#include "nholo/sim.h"
#include "nholo/systems.h"
#include "nholo/io.h"
#include "nholo/modelfile.h"
#include "nholo/lyapunov.h"
#include "nholo/ensemble.h"

#endif
