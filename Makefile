# Convenience front end: `make run` sets up, builds and runs the main job; `make check`
# builds and runs the tests. Everything real lives in CMake.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all setup configure build run check bench figures install clean

all: build

setup:
	@sh scripts/setup.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: setup $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the bouncing penny on the circular table (Clark & Bloch Fig. 1). It builds
# only the command-line tool (tests, benchmarks and the fuzzer are for `make check`).
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target nholo_cli
	@mkdir -p out
	./$(BUILD)/nholo run penny --impacts 20 --out out/penny.csv --events out/penny_impacts.csv --plot out/penny.png
	@echo "results: out/penny.csv (trajectory), out/penny_impacts.csv (impact log), out/penny.png (plot)"

check: build
	cmake --build $(BUILD) -j $(JOBS) --target fuzz_modelfile_build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	./$(BUILD)/bench/bench_penny
	./$(BUILD)/bench/bench_modelfile
	./$(BUILD)/bench/bench_ball
	./$(BUILD)/bench/bench_gni
	./$(BUILD)/bench/bench_dg
	./$(BUILD)/bench/bench_dop853
	./$(BUILD)/bench/bench_ensemble
	./$(BUILD)/bench/bench_simul
	./$(BUILD)/bench/bench_scale
	./$(BUILD)/bench/bench_startup

figures: build
	./$(BUILD)/nholo figure all --out-dir out/figures

clean:
	rm -rf $(BUILD)
