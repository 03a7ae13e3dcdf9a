/* fake_module.c - a module of another ABI, named nholo-plot.so (test_components foreign): the
 * loader must pass it over and say so. */
#include "base/module.h"

static const nh_module_plot fake = {{NH_MODULE_ABI + 1000, sizeof(nh_module_plot), NH_MODULE_VERSION, "plot", "fake"},
                                    0, 0, 0, 0};

__attribute__((visibility("default"))) const void *nholo_module_table(void);
const void *nholo_module_table(void) { return &fake; }
