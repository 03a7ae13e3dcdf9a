/* describe.c - the report of `nholo check` (nh_model_describe): a model file's sizes and
 * names, every derived expression, and the model evaluated at the initial state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "expr/text.h"
#include "la/la.h"
#include "base/msg.h"
#include "nholo/modelfile.h"
#include "nholo/status.h"

static void sb_expr(nh_text *b, const mf *m, int e, const char *const *names) {
  char small[256];
  size_t need = nh_expr_print(m->pool, e, names, small, sizeof small);
  if (need < sizeof small) {
    nh_text_printf(b, "%s", small);
    return;
  }
  char *big = malloc(need + 1);
  if (!big) {
    b->nomem = 1;
    return;
  }
  nh_expr_print(m->pool, e, names, big, need + 1);
  nh_text_printf(b, "%s", big);
  free(big);
}

/* the gaps, their laws and gradients (either form; an almost-Poisson model's are on x) */
static void describe_gaps(nh_text *b, const mf *m, const char *const *names) {
  const int nq = m->nq;
  for (int k = 0; k < m->ngap; k++) {
    static const char *laws[] = {"elastic", "plastic", "restitution"};
    nh_text_printf(b, "gap %s (impact %s", m->gap[k].name, laws[m->gap[k].law]);
    if (m->gap[k].law == NH_IMPACT_RESTITUTION) nh_text_printf(b, " %g", m->gap[k].value);
    nh_text_printf(b, "): g = ");
    sb_expr(b, m, m->g[k], names);
    nh_text_printf(b, "\n  dg = [");
    for (int j = 0; j < nq; j++) {
      nh_text_printf(b, j ? ", " : "");
      sb_expr(b, m, m->dg[k * nq + j], names);
    }
    nh_text_printf(b, "]\n");
  }
}

/* the report of an almost-Poisson model */
static void describe_poisson(nh_text *b, const mf *m, const nh_model *model, const char *const *names) {
  const int n = m->nq;
  nh_text_printf(b, "model %s: almost-Poisson form, %d state variables, %d parameters\nstate:", m->name, n,
                 m->npar);
  for (int i = 0; i < n; i++) nh_text_printf(b, " %s", m->coord[i]);
  nh_text_printf(b, "\n");
  for (int i = 0; i < m->npar; i++) nh_text_printf(b, "parameter %s = %.15g\n", m->par[i].name, m->par[i].value);
  nh_text_printf(b, "\nHamiltonian H = ");
  sb_expr(b, m, m->ham, names);
  if (m->hdeg > 0) nh_text_printf(b, "   (a polynomial of degree %d: AVF quadrature exact)", m->hdeg);
  nh_text_printf(b, "\ngradient dH/dx (nonzero entries):\n");
  for (int i = 0; i < n; i++)
    if (!mf_is_zero(m, m->dH[i])) {
      nh_text_printf(b, "  dH/d%s = ", m->coord[i]);
      sb_expr(b, m, m->dH[i], names);
      nh_text_printf(b, "\n");
    }
  nh_text_printf(b, "Pi(x) (upper triangle; Pi is skew-symmetric):\n");
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (!mf_is_zero(m, m->Pi[i * n + j])) {
        nh_text_printf(b, "  Pi[%s,%s] = ", m->coord[i], m->coord[j]);
        sb_expr(b, m, m->Pi[i * n + j], names);
        nh_text_printf(b, "\n");
      }
  describe_gaps(b, m, names);
  nh_text_printf(b, "\nat the initial state:\n ");
  for (int i = 0; i < n; i++) nh_text_printf(b, " %s = %.10g", m->coord[i], m->q0[i]);
  double H = 0.0, gv[NH_MF_MAX_ITEMS];
  model->hamiltonian(m->q0, &H, NULL, model->user);
  nh_text_printf(b, "\n  energy H = %.15g\n", H);
  if (m->ngap) model->gap(m->q0, gv, NULL, model->user);
  for (int k = 0; k < m->ngap; k++) nh_text_printf(b, "  gap %s = %.10g\n", m->gap[k].name, gv[k]);
}

/* the report of a mechanical model: the derived expressions, then the initial state */
static void describe_mechanical(nh_text *b, const mf *m, const nh_model *model, const char *const *names) {
  const int nq = m->nq;
  nh_text_printf(b, "model %s: %d coordinates, %d constraints, %d gaps, %d parameters\n", m->name, nq,
            m->nc, m->ngap, m->npar);
  nh_text_printf(b, "coordinates:");
  for (int i = 0; i < nq; i++) nh_text_printf(b, " %s", m->coord[i]);
  nh_text_printf(b, "\n");
  for (int i = 0; i < m->npar; i++) nh_text_printf(b, "parameter %s = %.15g\n", m->par[i].name, m->par[i].value);
  nh_text_printf(b, "\nmass matrix M(q) = d2T/dq'dq' (nonzero entries, upper triangle):\n");
  for (int i = 0; i < nq; i++)
    for (int j = i; j < nq; j++)
      if (!mf_is_zero(m, m->M[i * nq + j])) {
        nh_text_printf(b, "  M[%s,%s] = ", m->coord[i], m->coord[j]);
        sb_expr(b, m, m->M[i * nq + j], names);
        nh_text_printf(b, "\n");
      }
  nh_text_printf(b, "potential V = ");
  sb_expr(b, m, m->V, names);
  nh_text_printf(b, "\ngradient dV/dq (nonzero entries):\n");
  for (int i = 0; i < nq; i++)
    if (!mf_is_zero(m, m->dV[i])) {
      nh_text_printf(b, "  dV/d%s = ", m->coord[i]);
      sb_expr(b, m, m->dV[i], names);
      nh_text_printf(b, "\n");
    }
  nh_text_printf(b, "Coriolis and centrifugal terms c(q, q') (nonzero entries):\n");
  for (int i = 0; i < nq; i++)
    if (!mf_is_zero(m, m->c[i])) {
      nh_text_printf(b, "  c[%s] = ", m->coord[i]);
      sb_expr(b, m, m->c[i], names);
      nh_text_printf(b, "\n");
    }
  nh_text_printf(b, "generalized forces f(t, q, q') (nonzero entries):\n");
  for (int i = 0; i < nq; i++)
    if (!mf_is_zero(m, m->f[i])) {
      nh_text_printf(b, "  f[%s] = ", m->coord[i]);
      sb_expr(b, m, m->f[i], names);
      nh_text_printf(b, "\n");
    }
  if (m->has_se2) {
    nh_text_printf(b, "group se2: theta = %s, x = %s, y = %s; shape:", m->coord[m->se2[0]],
                   m->coord[m->se2[1]], m->coord[m->se2[2]]);
    for (int i = 0; i < nq; i++)
      if (i != m->se2[0] && i != m->se2[1] && i != m->se2[2]) nh_text_printf(b, " %s", m->coord[i]);
    nh_text_printf(b, "\n");
  }
  for (int k = 0; k < m->nc; k++) {
    if (m->con[k].holonomic) {
      nh_text_printf(b, "holonomic %s: phi = ", m->con[k].name);
      sb_expr(b, m, m->con[k].phi, names);
      nh_text_printf(b, "\n");
    }
    nh_text_printf(b, "constraint %s: A = [", m->con[k].name);
    for (int j = 0; j < nq; j++) {
      nh_text_printf(b, j ? ", " : "");
      sb_expr(b, m, m->A[k * nq + j], names);
    }
    nh_text_printf(b, "], (Adot v) = ");
    sb_expr(b, m, m->Adv[k], names);
    nh_text_printf(b, "\n");
  }
  describe_gaps(b, m, names);
  if (model->mass_constant)
    nh_text_printf(b, "structure: M constant%s\n",
                   model->gram_constant ? "; G = A M^-1 A^T constant (sin^2 + cos^2 = 1 normal form)" : "");

  /* evaluated at the initial state */
  nh_text_printf(b, "\nat the initial state:\n ");
  for (int i = 0; i < nq; i++) nh_text_printf(b, " %s = %.10g", m->coord[i], m->q0[i]);
  nh_text_printf(b, "\n ");
  for (int i = 0; i < nq; i++) nh_text_printf(b, " %s' = %.10g", m->coord[i], m->v0[i]);
  double E = 0.0, res = 0.0, *Mq = malloc(sizeof(double) * (size_t)nq * (size_t)nq);
  int rank = 0;
  nh_model_energy(model, m->q0, m->v0, &E);
  nh_model_constraint_residual(model, m->q0, m->v0, &res);
  double minpiv = Mq ? INFINITY : NAN;
  if (Mq) {
    model->mass(m->q0, Mq, model->user);
    nh_la_chol(nq, Mq, MF_RANK_TOL, &rank);
    for (int i = 0; i < nq; i++) minpiv = fmin(minpiv, Mq[i * nq + i] * Mq[i * nq + i]);
    free(Mq);
  }
  nh_text_printf(b, "\n  energy E = %.15g\n  max |A v| = %.3g\n", E, res);
  nh_text_printf(b, "  M positive definite (smallest squared Cholesky pivot %.6g)\n", minpiv);
  if (m->ngap) {
    double gv[NH_MF_MAX_ITEMS];
    model->gap(m->q0, gv, NULL, model->user);
    for (int k = 0; k < m->ngap; k++) nh_text_printf(b, "  gap %s = %.10g\n", m->gap[k].name, gv[k]);
  }
}

/* the monitors: direction, action, expression and value at the initial state (t = 0) */
static void describe_monitors(nh_text *b, const mf *m, const nh_model *model, const char **qnames) {
  static const char *const dirs[] = {"falling", "both", "rising", "value"}; /* by direction + 1 */
  const char *names[2 * NH_MF_MAX_Q + 1 + NH_MF_MAX_ITEMS]; /* q, q', t, then lambda(C) */
  char lam[NH_MF_MAX_ITEMS][NH_PARSE_NAME_MAX + 9];
  memcpy(names, qnames, sizeof(char *) * (size_t)(2 * m->nq + 1));
  for (int k = 0; m->mon_lambda && k < m->nc; k++) {
    snprintf(lam[k], sizeof lam[k], "lambda(%s)", m->con[k].name);
    names[MF_LAMBDA_VAR(m, k)] = lam[k];
  }
  double x[2 * NH_MF_MAX_Q], mv[NH_MF_MAX_ITEMS];
  for (int i = 0; i < m->nq; i++) x[i] = m->q0[i], x[m->nq + i] = m->v0[i];
  int ok = m->nmon && model->monitor(0.0, x, mv, model->user) == 0;
  for (int k = 0; k < m->nmon; k++) {
    nh_text_printf(b, "monitor %s (%s, %s): m = ", m->mon[k].name, dirs[m->mon[k].dir + 1],
                   m->mon[k].action == NH_MONITOR_STOP ? "stop" : "report");
    sb_expr(b, m, m->mexpr[k], names);
    if (ok) nh_text_printf(b, "\n  m = %.10g at the initial state", mv[k]);
    nh_text_printf(b, "\n");
  }
}

char *nh_model_describe(const char *path, const nh_load_opts *opts, char *msg, size_t msg_size) {
  char *text = mf_read_file(path, msg, msg_size);
  if (!text) return NULL;
  mf *m = calloc(1, sizeof *m);
  nh_text b = {NULL, 0, 0, 0};
  nh_model *model = NULL;
  char (*primed)[NH_PARSE_NAME_MAX + 2] = NULL; /* the primed names, per coordinate */
  if (!m) {
    nh_set_msg(msg, msg_size, "out of memory");
    goto fail;
  }
  if (mf_prepare(m, text, path, opts, msg, msg_size) != NH_OK) goto fail;
  if (!(model = mf_build(m, msg, msg_size))) goto fail;
  const char *names[2 * NH_MF_MAX_Q + 1];
  primed = malloc(sizeof *primed * (size_t)(m->nq > 0 ? m->nq : 1));
  if (!primed) {
    nh_set_msg(msg, msg_size, "out of memory");
    goto fail;
  }
  mf_var_names(m, names, primed);

  if (m->poisson)
    describe_poisson(&b, m, model, names);
  else
    describe_mechanical(&b, m, model, names);
  describe_monitors(&b, m, model, names);
  // the back end, and why the tape when the compiler passed its budget (the note without "FILE: ")
  const char *note = nh_model_backend_note(model);
  const size_t nf = strlen(m->file);
  if (strncmp(note, m->file, nf) == 0 && note[nf] == ':') note += nf + 2;
  nh_text_printf(&b, "evaluation: %s%s%s%s\n", model->backend, note[0] ? " (" : "", note, note[0] ? ")" : "");
  if (b.nomem) {
    nh_set_msg(msg, msg_size, "out of memory");
    goto fail;
  }
  nh_model_destroy(model);
  mf_free(m);
  free(m), free(primed);
  free(text);
  return b.s;
fail:
  free(primed);
  nh_model_destroy(model);
  if (m) mf_free(m);
  free(m);
  free(b.s);
  free(text);
  return NULL;
}
