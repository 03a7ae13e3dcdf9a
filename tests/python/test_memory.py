"""Reference counts and memory stay flat over 10,000 create/run/destroy cycles (models,
simulations, results with their logs and summaries, and raised errors)."""
import gc
import os
import sys
import tracemalloc

import nholo

CYCLES = 10000


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cycle(shared, i):
    m = nholo.builtin("penny") if i % 2 else shared
    r = nholo.Simulation(m, method="exact", out_dt=0.05).run(2.0, max_impacts=2)
    assert len(r.impacts) == 1 and r.summary["impacts"] == 1 and r.lam.shape[1] == 2
    try:
        nholo.load_model_string("model bad\ncoordinates x\nkinetic x'^2 +\n", backend="tape")
    except nholo.ModelError as e:
        assert e.line == 4 and e.file == "<input>"
    try:
        nholo.run(shared, 1.0, method="rk4", max_steps=2)
    except nholo.SimulationError as e:
        assert e.result.stats["steps"] == 2


def test_refcounts_and_memory_are_stable():
    shared = nholo.builtin("penny")
    c_model = shared._c
    for i in range(200):  # warm-up: caches, interned strings, allocator pools
        cycle(shared, i)
    gc.collect()
    refs = sys.getrefcount(c_model), sys.getrefcount(shared), sys.getrefcount(None)
    tracemalloc.start()
    rss0 = rss_bytes()
    snap0 = tracemalloc.take_snapshot()
    for i in range(CYCLES):
        cycle(shared, i)
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    rss1 = rss_bytes()
    tracemalloc.stop()
    assert (sys.getrefcount(c_model), sys.getrefcount(shared)) == refs[:2]
    assert abs(sys.getrefcount(None) - refs[2]) < 100
    assert grown < 64 * 1024, "Python memory grew by %d bytes over %d cycles" % (grown, CYCLES)
    # the C side (models, simulations, logs) is outside tracemalloc: the process's RSS
    assert rss1 - rss0 < 4 * 1024 * 1024, "RSS grew by %d bytes over %d cycles" % (rss1 - rss0, CYCLES)
