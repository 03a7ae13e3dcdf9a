/* cholmod_module.c - the cholmod component (nholo-cholmod.so): SuiteSparse CHOLMOD's
 * approximate minimum degree order for the sparse Cholesky factorization of sparse_chol.c,
 * behind the table of base/module.h. */
#include <string.h>

#include <cholmod.h>

#include "base/module.h"

/* perm <- CHOLMOD's AMD order of the pattern (read as the upper triangle by columns) */
static int amd_order(int n, const int *colstart, const int *rowidx, int *perm) {
  cholmod_common c;
  if (!cholmod_start(&c)) return NH_ERR_NOMEM;
  c.print = 0; /* the library prints nothing */
  c.error_handler = NULL;
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_AMD;
  c.supernodal = CHOLMOD_SIMPLICIAL;
  cholmod_sparse A;
  memset(&A, 0, sizeof A);
  A.nrow = A.ncol = (size_t)n;
  A.nzmax = (size_t)colstart[n];
  A.p = (void *)(size_t)colstart; /* read only (CHOLMOD's struct has no const) */
  A.i = (void *)(size_t)rowidx;
  A.stype = 1;
  A.itype = CHOLMOD_INT;
  A.xtype = CHOLMOD_PATTERN;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  cholmod_factor *L = cholmod_analyze(&A, &c);
  int rc = L ? NH_OK : c.status == CHOLMOD_OUT_OF_MEMORY ? NH_ERR_NOMEM : NH_ERR_ARG;
  if (L) memcpy(perm, L->Perm, sizeof(int) * (size_t)n);
  cholmod_free_factor(&L, &c);
  cholmod_finish(&c);
  return rc;
}

#define NH_CHOLMOD_STR_(x) #x
#define NH_CHOLMOD_STR(x) NH_CHOLMOD_STR_(x)
static const nh_module_cholmod cholmod_table = {
    NH_MODULE_HEAD(nh_module_cholmod, "cholmod",
                   "CHOLMOD " NH_CHOLMOD_STR(CHOLMOD_MAIN_VERSION) "." NH_CHOLMOD_STR(CHOLMOD_SUB_VERSION)),
    amd_order};

__attribute__((visibility("default"))) const void *nholo_module_table(void);
const void *nholo_module_table(void) { return &cholmod_table; }
