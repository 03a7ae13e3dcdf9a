/* paper_variant.h - options that run gni, rattle and shake in the paper's variant
 * (NH_VARIANT_PAPER; the other methods ignore it), for the tests that cover the paper's forms
 * (their default is the symmetric one, tests/test_symmetric.c). After nholo.h. */
#ifndef NH_TEST_PAPER_VARIANT_H
#define NH_TEST_PAPER_VARIANT_H

static inline nh_method_opts paper_opts(void) {
  nh_method_opts o = nh_method_opts_default();
  o.variant = NH_VARIANT_PAPER;
  return o;
}
static inline nh_sim_def paper_def(void) {
  nh_sim_def d = nh_sim_def_default();
  d.opts.variant = NH_VARIANT_PAPER;
  return d;
}

#endif
