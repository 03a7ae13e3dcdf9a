/* contact.c - the constraint multipliers in monitors, and rolling contacts
 * (docs/model-language.md, "Multipliers and contacts").
 *
 * lambda(C) in a monitor is the multiplier of constraint C at the state: a variable after q,
 * v and t (MF_LAMBDA_VAR) that the monitor evaluator fills from nh_model_accel. A contact
 *
 *   contact NAME: normal CN [friction C1 [C2]] [at Q ...] [mu E] [on-slip A] [on-detach A]
 *
 * names the constraint that carries the normal force and those that carry the friction;
 * the forces are the multipliers times the norms of the constraints' rows over the
 * coordinates `at` (all coordinates when absent), so that a constraint written with any
 * scale gives a force. The contact becomes monitors of these expressions: NAME.normal (N,
 * falling: detachment), NAME.friction (|f|, a value only) and, with a friction coefficient,
 * NAME.slip (mu N - |f|, falling: slip). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lang/mf.h"
#include "expr/parse.h"
#include "nholo/status.h"

static int find_con(const mf *m, const char *name) {
  for (int k = 0; k < m->nc; k++)
    if (strcmp(m->con[k].name, name) == 0) return k;
  return -1;
}

int mf_lookup_call(mf *m, const char *name, int *out) {
  const char *open = strchr(name, '(');
  if ((size_t)(open - name) != strlen("lambda") || strncmp(name, "lambda", 6) != 0) return NH_SYM_UNKNOWN;
  if (!m->in_monitor || m->poisson) return m->in_monitor ? NH_SYM_BAD_ARG : NH_SYM_NOT_HERE;
  char arg[NH_PARSE_NAME_MAX + 1];
  size_t n = strlen(open + 1) - 1; /* without the ')' */
  if (n > NH_PARSE_NAME_MAX) return NH_SYM_BAD_ARG;
  memcpy(arg, open + 1, n);
  arg[n] = '\0';
  int k = find_con(m, arg);
  if (k < 0) return NH_SYM_BAD_ARG;
  m->mon_lambda = 1;
  *out = MF_LAMBDA_VAR(m, k);
  return NH_SYM_VAR;
}

/* a word of letters, '_' and '-' (the contact's keywords), or 0 */
static int read_word(mf_cursor *c, char *out, size_t size) {
  mf_skip_ws(c);
  size_t i = c->pos, n = 0;
  while (i < c->end && (isalpha((unsigned char)c->m->clean[i]) || c->m->clean[i] == '_' || c->m->clean[i] == '-') &&
         n + 1 < size)
    out[n++] = c->m->clean[i++];
  out[n] = '\0';
  if (!n) return 0;
  c->pos = i;
  return 1;
}

/* a constraint's name at the cursor: its index, or -1 after the error */
static int constraint_at(mf_cursor *c, const char *role) {
  mf *m = c->m;
  char name[NH_PARSE_NAME_MAX + 1];
  size_t noff = (mf_skip_ws(c), c->pos);
  if (!mf_read_name(c, name)) return m->status ? -1 : (mf_expect_fail(c, role), -1);
  int k = find_con(m, name);
  if (k < 0)
    return mf_fail(m, noff, "unknown constraint '%s' (a contact names constraints declared before it)", name);
  return k;
}

/* the norm of constraint k's row over the coordinates in `at` (all when nat = 0) */
static int row_norm(mf *m, int k, const int *at, int nat) {
  nh_expr_pool *p = m->pool;
  int sum = nh_expr_const(p, 0.0);
  for (int j = 0; j < (nat ? nat : m->nq) && sum >= 0; j++) {
    int a = nh_expr_diff(p, m->con[k].node, m->nq + (nat ? at[j] : j));
    sum = nh_expr_add(p, sum, nh_expr_mul(p, a, a));
  }
  return sum < 0 ? -1 : nh_expr_unary(p, NH_EX_SQRT, sum);
}

/* one monitor NAME.SUFFIX = node */
static int add_monitor(mf *m, size_t off, const char *name, const char *suffix, int node, int dir, int action) {
  if (node < 0) return mf_fail(m, off, "out of memory");
  if (m->nmon >= NH_MF_MAX_ITEMS) return mf_fail(m, off, "more than %d monitors", NH_MF_MAX_ITEMS);
  mf_item *it = &m->mon[m->nmon++];
  memset(it, 0, sizeof *it);
  snprintf(it->name, sizeof it->name, "%s.%s", name, suffix);
  it->node = node, it->dir = dir, it->action = action, it->off = off;
  return 0;
}

/* an action after on-slip / on-detach; overridden by the load options when they set one */
static int action_at(mf_cursor *c, int opt, int *action) {
  char w[16];
  size_t woff = (mf_skip_ws(c), c->pos);
  if (!read_word(c, w, sizeof w) || (strcmp(w, "stop") && strcmp(w, "report"))) {
    c->pos = woff;
    return mf_expect_fail(c, "an action (stop or report)");
  }
  *action = opt ? opt - 1 : strcmp(w, "stop") == 0 ? NH_MONITOR_STOP : NH_MONITOR_REPORT;
  return 0;
}

/* the optional parts after the constraints: at Q..., mu E, on-slip A, on-detach A */
typedef struct contact_opts {
  int at[NH_MF_MAX_Q], nat;
  int has_mu;
  double mu;
  int on_slip, on_detach;
} contact_opts;

static int contact_tail(mf_cursor *c, contact_opts *o) {
  mf *m = c->m;
  const nh_load_opts *lo = m->opts;
  while (!mf_at_end(c)) {
    char w[16];
    size_t woff = c->pos;
    if (!read_word(c, w, sizeof w)) return mf_expect_fail(c, "at, mu, on-slip, on-detach or the end of the contact");
    if (strcmp(w, "at") == 0 && !o->nat) {
      char name[NH_PARSE_NAME_MAX + 1];
      for (;;) {
        size_t noff = (mf_skip_ws(c), c->pos), save = c->pos;
        if (!mf_read_name(c, name)) break;
        int i = -1;
        for (int j = 0; j < m->nq; j++)
          if (strcmp(m->coord[j], name) == 0) i = j;
        if (i < 0 && (!strcmp(name, "mu") || !strcmp(name, "on"))) { c->pos = save; break; }
        if (i < 0) return mf_fail(m, noff, "'%s' is not a coordinate (at names the coordinates of the contact's position)", name);
        o->at[o->nat++] = i;
      }
      if (!o->nat) return mf_expect_fail(c, "a coordinate after 'at'");
    } else if (strcmp(w, "mu") == 0 && !o->has_mu) {
      size_t eoff = (mf_skip_ws(c), c->pos);
      if (mf_const_expr_at(c, 1, "the friction coefficient mu", &o->mu)) return -1;
      char note[NH_PARSE_NAME_MAX + 64];
      if (!(o->mu >= 0.0))
        return mf_fail(m, eoff, "friction coefficient mu = %g is negative%s", o->mu, mf_set_note(m, note, sizeof note));
      o->has_mu = 1;
    } else if (strcmp(w, "on-slip") == 0) {
      if (action_at(c, lo->contact_on_slip, &o->on_slip)) return -1;
    } else if (strcmp(w, "on-detach") == 0) {
      if (action_at(c, lo->contact_on_detach, &o->on_detach)) return -1;
    } else {
      c->pos = woff;
      return mf_expect_fail(c, "at, mu, on-slip, on-detach or the end of the contact");
    }
  }
  if (lo->contact_mu_set) o->has_mu = lo->contact_mu > 0.0, o->mu = lo->contact_mu;
  return 0;
}

int mf_st_contact(mf_cursor *c, size_t off) {
  mf *m = c->m;
  if (m->nq && m->poisson)
    return mf_fail(m, off, "'contact' is not part of an almost-Poisson model (declared by 'state'; it takes "
                           "hamiltonian and poisson statements)");
  if (!m->nq) return mf_fail(m, off, "this statement needs the coordinates: declare them first ('coordinates x y ...')");
  char name[NH_PARSE_NAME_MAX + 1], w[16];
  size_t noff = (mf_skip_ws(c), c->pos);
  if (!mf_read_name(c, name)) return m->status ? -1 : mf_expect_fail(c, "a contact name");
  if (strlen(name) > NH_PARSE_NAME_MAX - 9) return mf_fail(m, noff, "contact name longer than %d characters", NH_PARSE_NAME_MAX - 9);
  for (int i = 0; i < m->nmon; i++)
    if (strncmp(m->mon[i].name, name, strlen(name)) == 0 && m->mon[i].name[strlen(name)] == '.')
      return mf_fail(m, noff, "duplicate contact name '%s'", name);
  if (!mf_accept_char(c, ':')) return mf_expect_fail(c, "':' after the contact name");
  if (!m->nc) return mf_fail(m, off, "contact '%s': the model has no constraint to carry its forces (declare the "
                                     "normal and rolling constraints before the contact)", name);
  size_t woff = (mf_skip_ws(c), c->pos);
  if (!read_word(c, w, sizeof w) || strcmp(w, "normal")) {
    c->pos = woff;
    return mf_expect_fail(c, "'normal' and the constraint that carries the normal force");
  }
  int kn = constraint_at(c, "the constraint that carries the normal force"), kf[2], nf = 0;
  if (kn < 0) return -1;
  woff = (mf_skip_ws(c), c->pos);
  if (read_word(c, w, sizeof w) && strcmp(w, "friction") == 0) {
    while (nf < 2) {
      size_t save = (mf_skip_ws(c), c->pos);
      char next[NH_PARSE_NAME_MAX + 1];
      if (!mf_read_name(c, next) || !strcmp(next, "at") || !strcmp(next, "mu") || !strcmp(next, "on")) {
        c->pos = save;
        break;
      }
      c->pos = save;
      if ((kf[nf] = constraint_at(c, "a friction constraint")) < 0) return -1;
      if (kf[nf] == kn || (nf == 1 && kf[1] == kf[0]))
        return mf_fail(m, save, "constraint '%s' is named twice in the contact", m->con[kf[nf]].name);
      nf++;
    }
    if (!nf) return mf_expect_fail(c, "a friction constraint after 'friction'");
  } else {
    c->pos = woff;
  }
  contact_opts o = {.on_slip = NH_MONITOR_REPORT, .on_detach = NH_MONITOR_STOP};
  if (m->opts->contact_on_slip) o.on_slip = m->opts->contact_on_slip - 1;
  if (m->opts->contact_on_detach) o.on_detach = m->opts->contact_on_detach - 1;
  if (contact_tail(c, &o)) return -1;
  /* N = |row_n| lambda_n, f_k = |row_k| lambda_k, |f| */
  nh_expr_pool *p = m->pool;
  int N = nh_expr_mul(p, row_norm(m, kn, o.at, o.nat), nh_expr_var(p, MF_LAMBDA_VAR(m, kn)));
  int f2 = nh_expr_const(p, 0.0);
  for (int i = 0; i < nf && f2 >= 0; i++) {
    int f = nh_expr_mul(p, row_norm(m, kf[i], o.at, o.nat), nh_expr_var(p, MF_LAMBDA_VAR(m, kf[i])));
    f2 = nh_expr_add(p, f2, nh_expr_mul(p, f, f));
  }
  int F = f2 < 0 ? -1 : nh_expr_unary(p, NH_EX_SQRT, f2);
  m->mon_lambda = 1;
  m->ncontact++;
  if (add_monitor(m, noff, name, "normal", N, NH_MONITOR_FALLING, o.on_detach) ||
      add_monitor(m, noff, name, "friction", F, NH_MONITOR_NONE, NH_MONITOR_REPORT))
    return -1;
  if (o.has_mu && o.mu > 0.0 && nf) {
    int slip = nh_expr_sub(p, nh_expr_mul(p, nh_expr_const(p, o.mu), N), F);
    if (add_monitor(m, noff, name, "slip", slip, NH_MONITOR_FALLING, o.on_slip)) return -1;
  }
  return 0;
}
