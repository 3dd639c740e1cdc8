# iblink: `make run` and `make test` are all a fresh machine needs.
SHELL := bash
CARGO ?= cargo
IBLINK := target/release/iblink
HDL_OUT := hdl_out

.PHONY: deps build run test emit lint cosim bench clean

## deps: install Verilator, Yosys, nextpnr-ice40, icestorm, iverilog when missing
deps:
	@bash tools/deps.sh

build:
	$(CARGO) build --release -p iblink

## run: emit the default Verilog and run the default testbench (CRC-16, 32-bit)
run: deps build
	$(IBLINK) emit --out $(HDL_OUT)
	$(IBLINK) tb crc16

## test: every test: lint of the emitted RTL, unit, snapshot, lockstep and CLI tests
test: deps build lint
	$(CARGO) test --workspace

## emit: regenerate hdl_out/ (review the diff, commit it)
emit: build
	$(IBLINK) emit --out $(HDL_OUT)

## lint: verilator --lint-only -Wall and yosys check on every emitted file
lint:
	@bash tools/lint.sh $(HDL_OUT)

## cosim: lockstep of model, rust-hdl stepper and Verilator
cosim: deps
	$(CARGO) test -p iblink-sim

## bench: simulation speed of every back end
bench: build
	$(IBLINK) bench sim

clean:
	$(CARGO) clean
	rm -rf build
