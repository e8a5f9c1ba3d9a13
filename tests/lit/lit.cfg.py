# tests/lit — qdc's own FileCheck tests (LLVM lit + FileCheck, Debian llvm-19-tools, installed
# by `make deps`). Run by the suite (test_lit.c) and by `make lit`:
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v tests/lit          (qdc from build/)
# Each .qd file is a test: `# RUN:` lines run qdc (%qdc) on the file (%s) and pipe what it
# writes to FileCheck, which matches the file's `# <PREFIX>:` lines; [[@LINE]] is the line the
# check is written on, so a check sits beside the statement it is about.
import os
import lit.formats

config.name = "qdc"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".qd"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.environ.get("TMPDIR", "/tmp"), "qdc-lit-tests")

here = os.path.dirname(os.path.abspath(__file__))
qdc = os.environ.get("QDC", os.path.join(here, "..", "..", "build", "qdc"))
config.substitutions.append(("%qdc", os.path.abspath(qdc)))
config.environment["PATH"] = os.pathsep.join(["/usr/lib/llvm-19/bin", os.environ.get("PATH", "")])
