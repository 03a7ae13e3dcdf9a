/* signals.c - SIGINT and SIGTERM end a command cleanly (README, "Exit status"; docs/cli.md).
 *
 * The handler only records the signal in cli_signal (async-signal-safe). The library is given
 * &cli_signal as its cancellation flag (nh_sim_def.cancel, nh_lyap_def.cancel,
 * nh_load_opts.cancel): a run stops at its next step, every member of an ensemble on every
 * thread, a model's compiler is killed with its files. The command then keeps what was
 * computed (its outputs renamed into place, the summary's status NH_INTERRUPTED), says so on
 * stderr, and exits with 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM. A second
 * signal while the outputs are closed changes nothing (the files are never left half-written).
 * A signal ignored when nholo started (SIGINT of a background job of a shell without job
 * control, nohup) stays ignored. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

volatile sig_atomic_t cli_signal = 0;

static void on_signal(int sig) {
  if (!cli_signal) cli_signal = sig;
}

void cli_signals_install(void) {
  static const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    struct sigaction old, sa;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* writes and reads go on; the computation polls the flag */
    sigaction(sigs[i], &sa, NULL);
  }
}

const char *cli_signal_name(void) {
  return cli_signal == SIGINT ? "SIGINT" : cli_signal == SIGTERM ? "SIGTERM" : "a signal";
}

int cli_interrupted(const char *what) {
  if (what) fprintf(stderr, "nholo: interrupted by %s%s%s\n", cli_signal_name(), what[0] ? " " : "", what);
  return 128 + (int)cli_signal;
}
