# nicgen: `make` runs the main job, `make test` runs every test. Both install what they need.
CARGO  ?= cargo
NICGEN := target/release/nicgen
GEN    ?= gen
OUT    ?= out

.PHONY: all setup build verilog lint demo dpi compose sim report test sweep check-hdl bench bitstream program flash clean

all: setup build verilog lint dpi demo

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release

verilog: build
	$(NICGEN) verilog --out $(GEN)

lint: verilog
	$(NICGEN) lint --dir $(GEN)

# The short demo: two engines under Verilator, RDMA WRITE and READ over four QPs, then a short
# fault campaign (1% loss).
demo: build
	@mkdir -p $(OUT)
	$(NICGEN) sim rdma --op mixed --size 32768 --count 64 --qps 4 --pcap $(OUT)/demo.pcap
	$(NICGEN) pcap check $(OUT)/demo.pcap | tail -n 1
	@echo "The same over a lossy link (1% of frames lost each way): Go-Back-N recovers every message."
	$(NICGEN) sim rdma --op mixed --size 16384 --count 200 --qps 4 --loss 0.01 --timeout 3 --campaign 200
	@echo "Verilog, wrappers, file lists and register maps: $(GEN)/<top>/ (index: $(GEN)/tops.json)"
	@echo "Capture of both directions of the link: $(OUT)/demo.pcap"

# The DPI classifier's training (numpy, offline): trains the ternary file-type classifier
# (CSV/PNG/text/ELF; not a malware detector) on files it generates or finds, reports held-out
# accuracy, and writes $(OUT)/dpi/weights.json. The hardware is generated from the committed
# hw/dpi/weights.json (the same script, seed 1); copy a new file there to change the network.
dpi: setup
	python3 scripts/dpi/train.py --out $(OUT)/dpi/weights.json

# Composition: every subset of the services (aes, dlrm, dpi) generates, lints and passes the RC
# engine's two-node, reliability and interop tests unchanged (about 40 minutes on 2 cores).
compose: setup
	bash scripts/compose.sh

sim: demo

report: build
	$(NICGEN) report

check-hdl:
	python3 scripts/check_hdl_gen.py --self-test
	python3 scripts/check_hdl_gen.py hw/src

test: setup check-hdl
	bash scripts/test.sh

# The performance report with plots (full run; `nicgen bench --quick` runs a subset).
bench: build
	$(NICGEN) bench --out $(OUT)/bench

# The Vivado flow for the Alveo U55C (needs Vivado on PATH; each says what is missing).
BOARD ?= au55c100g
BIT   ?= $(OUT)/vivado/$(BOARD).bit
bitstream: verilog
	$(NICGEN) build --board $(BOARD) --gen $(GEN) --out $(OUT)/vivado

program: build
	$(NICGEN) program $(BIT)

flash: build
	$(NICGEN) flash $(BIT)

clean:
	rm -rf $(GEN) $(OUT)
	$(CARGO) clean

# Every scenario across seeds and traffic mixes (scripts/sweep.sh; SWEEP_SEEDS=8 by default).
sweep: build
	@bash scripts/sweep.sh
