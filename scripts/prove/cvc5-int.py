"""SMT-LIB solver command for halmos (`--solver-command`): cvc5 from its PyPI package, reading bit-vectors as
integers (cvc5's --solve-bv-as-int=iand, halmos' `cvc5-int`). halmos would download the cvc5 binary from its release
site, which is unreachable here; the PyPI wheel carries the same solver as a library. Usage: python cvc5-int.py FILE.
Prints each command's answer (check-sat, get-model) as the cvc5 executable does."""

import sys

import cvc5

term_manager = cvc5.TermManager()
solver = cvc5.Solver(term_manager)
solver.setOption("produce-models", "true")
# Non-linear products and quotients of 256-bit words are out of reach of bit-blasting; as integers they are not.
solver.setOption("solve-bv-as-int", "iand")
solver.setOption("iand-mode", "bitwise")
symbols = cvc5.SymbolManager(term_manager)
parser = cvc5.InputParser(solver, symbols)
parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.argv[-1])
while True:
    command = parser.nextCommand()
    if command.isNull():
        break
    answer = command.invoke(solver, symbols)
    if answer:
        sys.stdout.write(answer if answer.endswith("\n") else answer + "\n")
        sys.stdout.flush()
