/* contacts.c - the rolling contacts of a model in `nholo run`: a model file's `contact`
 * statements are monitors NAME.normal (N), NAME.friction (|f|) and NAME.slip (mu N - |f|)
 * (docs/model-language.md); the run tracks, per contact, N, |f|, |f|/N and its running
 * maximum (the smallest friction coefficient that prevents slip) over the samples it sees,
 * writes them to a CSV (--contacts FILE) and adds them to the summary. Any model whose
 * monitors follow these names (a hand-written one too) is reported the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* the contacts of model: its monitors NAME.normal, with NAME.friction when present */
static void find_contacts(cli_contacts *cs, const nh_model *model) {
  for (int i = 0; i < model->nmon && cs->n < CLI_MAX_CONTACTS; i++) {
    const char *name = model->monitors[i].name, *dot = strrchr(name, '.');
    if (!dot || strcmp(dot, ".normal") != 0 || dot - name >= (long)sizeof cs->c[0].name) continue;
    cli_contact *c = &cs->c[cs->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%.*s", (int)(dot - name), name);
    c->normal = i, c->friction = -1;
    char fname[NH_MAX_NAME + 16];
    snprintf(fname, sizeof fname, "%s.friction", c->name);
    c->friction = nh_model_monitor_index(model, fname);
    c->min_mu = 0.0, c->t_min_mu = NAN;
    c->min_N = INFINITY, c->t_min_N = NAN, c->max_f = 0.0, c->t_max_f = NAN;
  }
}

int cli_contacts_count(const nh_model *model) {
  cli_contacts cs;
  cs.n = 0;
  if (model->form == NH_FORM_MECHANICAL) find_contacts(&cs, model);
  return cs.n;
}

int cli_contacts_open(cli_contacts *cs, const nh_model *model, const char *csv, char *msg, size_t msg_size) {
  memset(cs, 0, sizeof *cs);
  cs->model = model;
  cs->last_t = NAN;
  if (model->form != NH_FORM_MECHANICAL) return NH_OK;
  find_contacts(cs, model);
  if (!cs->n) return NH_OK;
  cs->x = malloc(sizeof(double) * (size_t)(model->nx + model->nmon));
  if (!cs->x) return NH_ERR_NOMEM;
  cs->mv = cs->x + model->nx;
  if (!csv) return NH_OK;
  int rc = nh_outfile_open(&cs->out, csv, msg, msg_size);
  if (rc != NH_OK) return rc;
  cs->has_out = 1;
  fputs("t", cs->out.fp);
  for (int k = 0; k < cs->n; k++)
    fprintf(cs->out.fp, ",%s_N,%s_friction,%s_friction_over_N,%s_min_mu_so_far", cs->c[k].name, cs->c[k].name,
            cs->c[k].name, cs->c[k].name);
  fputc('\n', cs->out.fp);
  return NH_OK;
}

int cli_contacts_sample(cli_contacts *cs, double t, const double *q, const double *v) {
  if (!cs->n || t == cs->last_t) return 0; /* an END repeating the last sample */
  const nh_model *m = cs->model;
  memcpy(cs->x, q, sizeof(double) * (size_t)m->nq);
  memcpy(cs->x + m->nq, v, sizeof(double) * (size_t)m->nq);
  if (m->monitor(t, cs->x, cs->mv, m->user) != 0) return 0; /* not at this sample */
  cs->last_t = t;
  if (cs->has_out) fprintf(cs->out.fp, "%.17g", t);
  for (int k = 0; k < cs->n; k++) {
    cli_contact *c = &cs->c[k];
    const double N = cs->mv[c->normal], f = c->friction >= 0 ? cs->mv[c->friction] : 0.0;
    c->samples++;
    if (N < c->min_N) c->min_N = N, c->t_min_N = t;
    if (f > c->max_f || isnan(c->t_max_f)) c->max_f = f, c->t_max_f = t;
    if (!(N > 0.0)) c->detached = 1; /* mu-hat means nothing from here on */
    const double ratio = N > 0.0 ? f / N : NAN;
    if (!c->detached && (ratio > c->min_mu || isnan(c->t_min_mu))) c->min_mu = ratio, c->t_min_mu = t;
    if (cs->has_out) {
      fprintf(cs->out.fp, ",%.17g,%.17g,", N, f);
      if (!isnan(ratio)) fprintf(cs->out.fp, "%.17g", ratio);
      fputc(',', cs->out.fp);
      if (!c->detached) fprintf(cs->out.fp, "%.17g", c->min_mu);
    }
  }
  if (cs->has_out) fputc('\n', cs->out.fp);
  return 0;
}

void cli_contacts_summary(FILE *f, int json, const cli_contacts *cs) {
  if (!cs->n) return;
  if (json) fputs(", \"contacts\": [", f);
  for (int k = 0; k < cs->n; k++) {
    const cli_contact *c = &cs->c[k];
    if (!json) {
      fprintf(f, "contact %s: normal force min %.10g at t = %.6g%s\n", c->name, c->min_N, c->t_min_N,
              c->detached ? " (detached)" : "");
      if (!c->detached && c->friction >= 0)
        fprintf(f, "contact %s: minimum static friction coefficient to roll without slipping: %.7f (max |f|/N, at "
                   "t = %.6g)\n", c->name, c->min_mu, c->t_min_mu);
      continue;
    }
    fputs(k ? ", {\"name\": " : "{\"name\": ", f);
    nh_json_str(f, c->name);
    fprintf(f, ", \"samples\": %ld", c->samples);
    nh_json_field_num(f, "min_mu_static", c->detached || c->friction < 0 ? NAN : c->min_mu);
    nh_json_field_num(f, "t_min_mu_static", c->t_min_mu);
    nh_json_field_num(f, "min_normal_force", c->min_N);
    nh_json_field_num(f, "t_min_normal_force", c->t_min_N);
    nh_json_field_num(f, "max_friction", c->max_f);
    nh_json_field_num(f, "t_max_friction", c->t_max_f);
    fprintf(f, ", \"detached\": %s}", c->detached ? "true" : "false");
  }
  if (json) fputc(']', f);
}

int cli_contacts_commit(cli_contacts *cs, char *msg, size_t msg_size) {
  int rc = NH_OK;
  if (cs->has_out) rc = nh_outfile_commit(&cs->out, msg, msg_size);
  cs->has_out = 0;
  free(cs->x);
  cs->x = NULL;
  return rc;
}

void cli_contacts_abort(cli_contacts *cs) {
  if (cs->has_out) nh_outfile_abort(&cs->out);
  cs->has_out = 0;
  free(cs->x);
  cs->x = NULL;
}
