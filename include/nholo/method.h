/* nholo/method.h - the integrators, as a table the caller can list and pick from.
 *
 * A method is a static, read-only description (name, order, what it preserves) together
 * with its step function. Every method can be used with every impact law: the simulation
 * driver (nholo/sim.h), not the method, locates impacts and applies the maps. */
#ifndef NHOLO_METHOD_H
#define NHOLO_METHOD_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nh_method nh_method;

/* Flags describing a method. */
enum {
  NH_METHOD_ADAPTIVE = 1 << 0, /* error-controlled step size (uses rtol/atol) */
  NH_METHOD_EXACT = 1 << 1,    /* uses the model's closed-form flow */
  NH_METHOD_IMPLICIT = 1 << 2, /* solves nonlinear equations each step */
  NH_METHOD_SYMMETRIC = 1 << 3, /* time-reversible */
  NH_METHOD_LIE = 1 << 4        /* a Lie-group method: needs the model's rotation part
                                   (nh_model_def.angvel), keeps |q| = 1 without projection */
};

/* Number of methods, and the i-th (0 <= i < count); NULL when out of range. */
NH_API int nh_method_count(void);
NH_API const nh_method *nh_method_at(int i);
/* The method with this lower-case name ("rk4", "dopri5", "exact", ...), or NULL. */
NH_API const nh_method *nh_method_find(const char *name);

NH_API const char *nh_method_name(const nh_method *method);
/* One line: what the method is. */
NH_API const char *nh_method_summary(const nh_method *method);
/* One line: what the method preserves ("nothing exactly", "energy", ...). */
NH_API const char *nh_method_preserves(const nh_method *method);
NH_API int nh_method_order(const nh_method *method);
NH_API unsigned nh_method_flags(const nh_method *method);
/* NH_OK when the method can run this model, else NH_ERR_UNSUPPORTED (e.g. "exact" on a model
 * with no closed-form flow). */
NH_API int nh_method_supports(const nh_method *method, const nh_model *model);

#ifdef __cplusplus
}
#endif
#endif
