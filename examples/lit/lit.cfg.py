# examples/lit — checking qdc's outputs with LLVM's lit and FileCheck (Debian: llvm-19-tools).
# Each .qd file here is a test: its `# RUN:` lines are shell commands (%qdc is the compiler,
# %s the file), their output is matched by FileCheck against the `# CHECK:` lines.
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v examples/lit        (qdc from build/)
#   QDC=/usr/local/bin/qdc python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v examples/lit
import os
import lit.formats

config.name = "qdc-examples"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".qd"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.environ.get("TMPDIR", "/tmp"), "qdc-lit")

here = os.path.dirname(os.path.abspath(__file__))
qdc = os.environ.get("QDC", os.path.join(here, "..", "..", "build", "qdc"))
config.substitutions.append(("%qdc", os.path.abspath(qdc)))
# FileCheck and `not` (inverts an exit status) come with LLVM 19.
config.environment["PATH"] = os.pathsep.join(["/usr/lib/llvm-19/bin", os.environ.get("PATH", "")])
